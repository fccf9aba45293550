/*
 * request_heap.c: persistent point-to-point requests in the rank's heap
 * (issue 21; docs/migrate.md, "Across processes"; docs/checkpoint.md).
 *
 * In a job whose ranks have fixed-address regions (--checkpoint), a
 * request made by MPI_Send_init, MPI_Bsend_init, MPI_Ssend_init,
 * MPI_Rsend_init or MPI_Recv_init (and their _c forms) on the rank's own
 * thread is allocated in the rank's heap instead of the process's request
 * pool, and put on a list headed in the rank's region header.  While it is
 * inactive (made, or completed by a wait or test and not started again) it
 * refers to nothing of its process: its communicator handle is a constant
 * (MPI_COMM_WORLD, MPI_COMM_SELF) or an object in the same heap, its
 * datatype a predefined one (libzmpi's data, at the same address in every
 * process of such a job) or one in the same heap, its buffer the rank's
 * memory; every field its operation fills in (matching state, queue links,
 * communicator of the p2p layer, envelope) is written again by MPI_Start.
 * So the rank moves to another process with it, and a checkpoint saves it
 * with the heap and the restart finds it at its address, ready for
 * MPI_Start.  An active one is in its process's queues: the rank stays,
 * and a checkpoint is refused (zm_mpi_preq_why).
 *
 * Such a request is not pooled (pooled 0), which keeps the pool's release
 * paths from ever taking it; MPI_Request_free hands it here.  Freed while
 * active and not complete, it stays on the list marked dropped until its
 * completer has stored DONE (after which nobody touches it), and is freed
 * at the next walk of the list.
 */
#include "mpi_impl.h"
#include "bind_hooks.h"

#include <string.h>

/* The API layer's word of the region header that heads the list (comm.c
 * uses 5 and 6, checkpoint.c 0-4). */
enum { RU_PREQS = 7 };

/* Guards every rank's list: made and freed on the rank's thread, but a
 * thread the rank started may free one of its requests too. */
static zm_spinlock_t preq_lock;

int zm_mpi_preq_in_heap(const zm_req_t *r)
{
    return r->persistent && !r->pooled && r->kind != ZM_REQ_SCHED;
}

/* Unlink r from h's list and give its memory back.  preq_lock held. */
static void preq_unlink(zm_rank_mem_t *h, zm_req_t *r)
{
    zm_req_t **pp = (zm_req_t **)&h->user[RU_PREQS];
    while (*pp && *pp != r)
        pp = &(*pp)->pnext;
    if (*pp)
        *pp = r->pnext;
}

static void preq_release(zm_req_t *r)
{
    if (r->hold)
        zm_dt_release(r->hold);
    zm_core_mem_free(r);
}

/* Free the requests of h's list that were freed while active and have
 * completed since. */
static void preq_reap(zm_rank_mem_t *h)
{
    for (;;) {
        zm_req_t *done = NULL;
        zm_spin_lock(&preq_lock);
        for (zm_req_t *r = (zm_req_t *)h->user[RU_PREQS]; r && !done; r = r->pnext)
            if (r->dropped &&
                atomic_load_explicit(&r->cstate, memory_order_acquire) == ZM_REQ_DONE)
                done = r;
        if (done)
            preq_unlink(h, done);
        zm_spin_unlock(&preq_lock);
        if (!done)
            return;
        preq_release(done);
    }
}

zm_req_t *zm_mpi_preq_new(void)
{
    zm_rank_mem_t *h = zm_core_obj_in_ranks ? zm_core_obj_region() : NULL;
    if (!h)
        return zm_p2p_req_alloc();
    preq_reap(h);
    zm_req_t *r = zm_core_heap_aligned(h, ZM_CACHE_LINE, sizeof(*r));
    if (!r)
        return NULL;
    memset(r, 0, sizeof(*r));
    r->holder = -1;
    zm_spin_lock(&preq_lock);
    r->pnext = (zm_req_t *)h->user[RU_PREQS];
    h->user[RU_PREQS] = (uintptr_t)r;
    zm_spin_unlock(&preq_lock);
    return r;
}

void zm_mpi_preq_free(zm_req_t *r)
{
    zm_rank_mem_t *h = zm_core_rank_mem_owner(r);
    int pending = r->active &&
                  atomic_load_explicit(&r->cstate, memory_order_acquire) != ZM_REQ_DONE;
    /* Bindings' hooks keyed by the request: dropped with it, or (still
     * pending) left to finish with its operation (bind_hooks.c). */
    if (ZM_UNLIKELY(atomic_load_explicit(&zm_mpi_hooks_n, memory_order_relaxed)))
        (void)zm_mpi_hook_free(r, pending);
    if (pending) {
        r->dropped = 1; /* its completer still writes it: preq_reap frees it */
        return;
    }
    zm_spin_lock(&preq_lock);
    preq_unlink(h, r);
    zm_spin_unlock(&preq_lock);
    preq_release(r);
}

const char *zm_mpi_preq_why(int w)
{
    if (!zm_core_obj_in_ranks || !zm_core_rank_mem_has(w))
        return NULL;
    zm_rank_mem_t *h = zm_core_rank_mem(w);
    preq_reap(h);
    const char *why = NULL;
    zm_spin_lock(&preq_lock);
    zm_req_t *first = (zm_req_t *)h->user[RU_PREQS];
    for (zm_req_t *r = first; r && !why; r = r->pnext)
        if (r->active || r->dropped)
            why = "it has an active persistent request (started, and not yet completed by a "
                  "wait or test)";
    zm_spin_unlock(&preq_lock);
    if (!why && first && atomic_load_explicit(&zm_mpi_hooks_n, memory_order_relaxed))
        why = "it has persistent requests and its process has hooks of a language binding "
              "on requests";
    if (!why && first && zm_mpi_request_handles_mapped())
        why = "it has persistent requests and its process has Fortran indices of requests "
              "(the index tables are the process's)";
    return why;
}
