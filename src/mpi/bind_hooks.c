/*
 * bind_hooks.c: completion hooks for the language bindings (bind_hooks.h).
 *
 * Hooks are few (one per array section a nonblocking, persistent or
 * one-sided call copies) and live as long as their operation, so they sit
 * in one list for the process, under a spinlock held only to link and
 * unlink: their functions run outside it, on hooks first unlinked into a
 * private chain (a persistent request's are linked again afterwards).
 * The library's paths look at zm_mpi_hooks_n before anything else, so a
 * program that never copies a section pays one load and a branch.
 */
#include "bind_hooks.h"

#include "mpi_impl.h"

_Atomic int zm_mpi_hooks_n;

#define BIND_HANDLE(h) h,
const MPI_Datatype zm_mpi_bind_types[ZM_MPI_BIND_NTYPES] = { NULL, ZMPI_DT_LIST(BIND_HANDLE) };
const MPI_Op zm_mpi_bind_ops[ZM_MPI_BIND_NOPS] = { NULL, ZMPI_OP_LIST(BIND_HANDLE) };
#undef BIND_HANDLE

/* Every hook attached, zombies included, most recent first. */
static zm_spinlock_t hooks_lock;
static zmpi_hook_t *hooks_head;

/* Unlinks every hook with key `key` that is no zombie (when `key` is
 * NULL: every zombie of the calling rank whose request is complete) and
 * returns them as a chain in their list order.  Takes the lock. */
static zmpi_hook_t *hooks_take(const void *key)
{
    zmpi_hook_t *got = NULL, **tail = &got;
    void *me = key ? NULL : zm_mpi_me();
    zm_spin_lock(&hooks_lock);
    for (zmpi_hook_t **p = &hooks_head; *p;) {
        zmpi_hook_t *h = *p;
        int take = key ? h->key == key && !h->zombie
                       : h->zombie && h->owner == me &&
                             zm_p2p_req_complete_now((zm_req_t *)h->key);
        if (!take) {
            p = &h->next;
            continue;
        }
        *p = h->next;
        h->next = NULL;
        *tail = h;
        tail = &h->next;
        atomic_fetch_sub_explicit(&zm_mpi_hooks_n, 1, memory_order_relaxed);
    }
    zm_spin_unlock(&hooks_lock);
    return got;
}

/* Links chain c back (a persistent request's hooks after an event). */
static void hooks_put(zmpi_hook_t *c)
{
    while (c) {
        zmpi_hook_t *next = c->next;
        zm_spin_lock(&hooks_lock);
        c->next = hooks_head;
        hooks_head = c;
        atomic_fetch_add_explicit(&zm_mpi_hooks_n, 1, memory_order_relaxed);
        zm_spin_unlock(&hooks_lock);
        c = next;
    }
}

/* Sends event to every hook of chain c; FREE ends the chain (the binding
 * frees each hook in its function). */
static void hooks_run(zmpi_hook_t *c, int event)
{
    while (c) {
        zmpi_hook_t *next = c->next;
        c->fn(c, event);
        c = next;
    }
}

/* Whether a hook with key `key` is still linked.  Takes the lock. */
static int hooks_linked(const void *key)
{
    int any = 0;
    zm_spin_lock(&hooks_lock);
    for (zmpi_hook_t *h = hooks_head; h && !any; h = h->next)
        any = h->key == key;
    zm_spin_unlock(&hooks_lock);
    return any;
}

/* The calling rank's requests that it freed while active and whose
 * operations are complete now: their hooks hear FREE (the rank's own
 * copy of the binding frees them: under privatization each rank has
 * one), then the requests go back to the library.  Called from the
 * hooks' entry points, so that a zombie outlives its operation only
 * until its rank's next completion, free or hooked call. */
static void hooks_sweep(void)
{
    zmpi_hook_t *c = hooks_take(NULL);
    while (c) {
        zmpi_hook_t *next = c->next;
        zm_req_t *r = c->key;
        c->fn(c, ZMPI_HOOK_FREE);
        /* Several hooks may share the request: free it with the last,
         * here or (a hook that the request completed after was passed
         * over, still linked) in a later sweep. */
        int last = 1;
        for (zmpi_hook_t *o = next; o; o = o->next)
            last &= o->key != r;
        if (last && !hooks_linked(r))
            zm_p2p_req_release(r);
        c = next;
    }
}

/* Links h into the list.  Any thread. */
static void hook_link(zmpi_hook_t *h, void *key, zmpi_hook_fn *fn)
{
    h->key = key;
    h->fn = fn;
    h->zombie = 0;
    h->owner = zm_mpi_me();
    zm_spin_lock(&hooks_lock);
    h->next = hooks_head;
    hooks_head = h;
    atomic_fetch_add_explicit(&zm_mpi_hooks_n, 1, memory_order_relaxed);
    zm_spin_unlock(&hooks_lock);
}

int zmpi_request_hook(MPI_Request req, zmpi_hook_t *h, zmpi_hook_fn *fn)
{
    if (req == MPI_REQUEST_NULL || !h || !fn)
        return MPI_ERR_REQUEST;
    hooks_sweep();
    hook_link(h, req, fn);
    return MPI_SUCCESS;
}

int zmpi_win_hook(MPI_Win win, zmpi_hook_t *h, zmpi_hook_fn *fn)
{
    if (win == MPI_WIN_NULL || !h || !fn)
        return MPI_ERR_WIN;
    hook_link(h, win, fn);
    return MPI_SUCCESS;
}

void zm_mpi_hook_finish(MPI_Request r)
{
    zmpi_hook_t *c = hooks_take(r);
    if (c) {
        hooks_run(c, r->cancelled ? ZMPI_HOOK_CANCELLED : ZMPI_HOOK_DONE);
        if (r->persistent)
            hooks_put(c);
        else
            hooks_run(c, ZMPI_HOOK_FREE);
    }
    hooks_sweep();
}

void zm_mpi_hook_start(MPI_Request r)
{
    zmpi_hook_t *c = hooks_take(r);
    hooks_run(c, ZMPI_HOOK_START);
    hooks_put(c);
}

int zm_mpi_hook_free(MPI_Request r, int pending)
{
    if (!pending) {
        hooks_run(hooks_take(r), ZMPI_HOOK_FREE);
        hooks_sweep();
        return 0;
    }
    int any = 0;
    zm_spin_lock(&hooks_lock);
    for (zmpi_hook_t *h = hooks_head; h; h = h->next)
        if (h->key == r) {
            h->zombie = 1;
            any = 1;
        }
    zm_spin_unlock(&hooks_lock);
    return any;
}

void zm_mpi_hook_win(MPI_Win w)
{
    zmpi_hook_t *c = hooks_take(w);
    if (!c)
        return;
    hooks_run(c, ZMPI_HOOK_DONE);
    hooks_run(c, ZMPI_HOOK_FREE);
}
