/*
 * nbc.c: non-blocking collectives.
 *
 * Each rank numbers the non-blocking collectives it starts on a
 * communicator; the k-th of every rank belong together (MPI requires the
 * same order on all ranks).  A rank that starts one copies its arguments
 * into the instance for its number, creating it if it is the first; the
 * last rank to start it runs every rank's part, completes every request
 * and frees the instance.  So a non-blocking collective completes as soon
 * as all ranks have started it, whatever the others do meanwhile: no rank
 * has to call into the library for it to progress.
 */
#include "coll/coll_impl.h"

#include <stdlib.h>
#include <string.h>


/* Hold (hold = 1) or release the derived datatypes of one rank's
 * arguments: MPI lets the user free a type once the call that uses it has
 * started, and the last rank may run the collective much later.  The
 * Alltoallw arrays have n entries (NULL when not given). */
static void nbc_type(const zm_dt_t *t, int hold)
{
    if (t && t->d)
        hold ? zm_dt_retain(t) : zm_dt_release(t);
}

static void nbc_types(const zm_coll_args_t *a, int n, int hold)
{
    nbc_type(a->sdt, hold);
    nbc_type(a->rdt, hold);
    for (int i = 0; a->sdts && i < n; i++)
        nbc_type(a->sdts[i], hold);
    for (int i = 0; a->rdts && i < n; i++)
        nbc_type(a->rdts[i], hold);
}

static coll_nbc_t *nbc_new(int n, unsigned seq)
{
    coll_nbc_t *x = calloc(1, sizeof(*x));
    if (!x)
        return NULL;
    x->seq = seq;
    x->reqs = calloc((size_t)n, sizeof(*x->reqs));
    x->args = calloc((size_t)n, sizeof(*x->args));
    if (!x->reqs || !x->args) {
        free(x->reqs);
        free(x->args);
        free(x);
        return NULL;
    }
    return x;
}

/* Find (or add at the tail) the instance for number seq.  Called with the
 * block's nbc_lock held. */
static coll_nbc_t *nbc_find(zm_coll_shm_t *s, unsigned seq)
{
    coll_nbc_t **pp = &s->nbc_head;
    for (; *pp; pp = &(*pp)->next)
        if ((*pp)->seq == seq)
            return *pp;
    *pp = nbc_new(s->size, seq);
    return *pp;
}

static void nbc_unlink(zm_coll_shm_t *s, coll_nbc_t *x)
{
    coll_nbc_t **pp = &s->nbc_head;
    while (*pp != x)
        pp = &(*pp)->next;
    *pp = x->next;
}

/* Run every rank's part of a fully started collective and set each
 * request's error; the requests are not completed yet. */
static void nbc_exec(coll_nbc_t *x, int n)
{
    zm_coll_view_t v = { (char *)x->args, sizeof(zm_coll_args_t), n, 1 };
    zm_status_t st = zm_coll_check(&v, NULL, 0);
    for (int r = 0; r < n; r++)
        x->reqs[r]->st_error = st == ZM_OK ? zm_coll_part(&v, r, NULL, 0) : st;
    /* Without a temporary copy there is nothing to finish: skipping the
     * call leaves the arguments unwritten (see zm_coll_pstart). */
    for (int r = 0; r < n; r++)
        if (x->args[r].tmp)
            zm_coll_finish(&v, r);
}

/* Run a fully started non-blocking collective, complete the requests and
 * free it.  The caller has taken it out of the list. */
static void nbc_run(zm_coll_shm_t *s, coll_nbc_t *x)
{
    int n = s->size;
    nbc_exec(x, n);
    for (int r = 0; r < n; r++) {
        if (x->args[r].op)
            zm_op_release(x->args[r].op);
        nbc_types(&x->args[r], n, 0);
    }
    for (int r = 0; r < n; r++)
        zm_p2p_req_complete(x->reqs[r]);
    for (int r = 0; r < n; r++)
        zm_coll_detach(s);
    free(x->reqs);
    free(x->args);
    free(x);
}

zm_status_t zm_coll_start(zm_coll_shm_t *s, int me, const zm_coll_args_t *a, zm_req_t *req)
{
    if (ZM_UNLIKELY(s->nx != NULL)) /* across processes: net.c */
        return zm_coll_net_start(s, me, a, req);
    zm_coll_args_t mine;
    unsigned seq = s->slots[me].nbc_seq++;
    memcpy(&mine, a, offsetof(zm_coll_args_t, src));
    mine.inl_buf = NULL;
    mine.inl_cap = 0; /* the ranks' buffers stay valid until the request completes */
    mine.failed = zm_coll_prepare(&mine, me, s->size, 1);
    if (mine.op)
        zm_op_retain(mine.op);
    nbc_types(&mine, s->size, 1);
    zm_coll_req_start(req);
    zm_coll_shm_retain(s);
    zm_spin_lock(&s->nbc_lock);
    coll_nbc_t *x = nbc_find(s, seq);
    int last = 0, mixed = x && x->persistent;
    if (x && !mixed) {
        x->args[me] = mine;
        x->reqs[me] = req;
        last = ++x->arrived == s->size;
        if (last)
            nbc_unlink(s, x);
    }
    zm_spin_unlock(&s->nbc_lock);
    if (!x) {
        /* Out of memory before anything was shared: this rank's numbering
         * is now off, which later collectives on this communicator would
         * not survive; report it. */
        s->slots[me].nbc_seq--;
        zm_coll_finish(&(zm_coll_view_t){ (char *)&mine, 0, 1, 1 }, 0);
        if (mine.op)
            zm_op_release(mine.op);
        nbc_types(&mine, s->size, 0);
        zm_coll_detach(s);
        return ZM_ERR_NOMEM;
    }
    if (mixed) {
        /* Another rank made a persistent collective where this one started
         * a non-blocking one: fail this request rather than mix them. */
        zm_coll_finish(&(zm_coll_view_t){ (char *)&mine, 0, 1, 1 }, 0);
        if (mine.op)
            zm_op_release(mine.op);
        nbc_types(&mine, s->size, 0);
        zm_coll_detach(s);
        req->st_error = ZM_COLL_ERR_KIND;
        zm_p2p_req_complete(req);
        return ZM_OK;
    }
    if (last)
        nbc_run(s, x);
    return ZM_OK;
}

/* ---- Persistent collectives --------------------------------------------- */

zm_status_t zm_coll_pinit(zm_coll_shm_t *s, int me, const zm_coll_args_t *a, zm_req_t *req,
                          zm_coll_pers_t **out)
{
    if (ZM_UNLIKELY(s->nx != NULL)) /* across processes: net.c */
        return zm_coll_net_pinit(s, me, a, req, out);
    zm_coll_args_t mine = *a;
    unsigned seq = s->slots[me].nbc_seq++;
    mine.tmp = NULL;
    mine.inl_buf = NULL;
    mine.inl_cap = 0; /* the ranks' buffers stay valid while a round runs */
    mine.inl = 0;
    mine.failed = ZM_OK;
    mine.pers_ready = 0;
    zm_coll_shm_retain(s);
    zm_spin_lock(&s->nbc_lock);
    coll_nbc_t *x = nbc_find(s, seq);
    if (x && x->arrived == 0 && !x->persistent) {
        /* The first rank to make it: every rank will hold it until it
         * frees its request. */
        x->persistent = 1;
        x->shm = s;
        atomic_store_explicit(&x->refs, s->size, memory_order_relaxed);
        atomic_store_explicit(&x->started, 0, memory_order_relaxed);
    }
    int mixed = x && !x->persistent;
    if (x && !mixed) {
        x->args[me] = mine;
        x->reqs[me] = req;
        if (++x->arrived == s->size)
            nbc_unlink(s, x);
    }
    zm_spin_unlock(&s->nbc_lock);
    if (!x || mixed) {
        if (!x)
            s->slots[me].nbc_seq--;
        zm_coll_detach(s);
        return x ? ZM_COLL_ERR_KIND : ZM_ERR_NOMEM;
    }
    if (mine.op)
        zm_op_retain(mine.op);
    *out = x;
    return ZM_OK;
}

void zm_coll_pstart(zm_coll_pers_t *x, int me)
{
    if (ZM_UNLIKELY(x->shm->nx != NULL)) { /* across processes: net.c */
        zm_coll_net_pstart(x, me);
        return;
    }
    int n = x->shm->size;
    zm_coll_args_t *a = &x->args[me];
    zm_req_t *req = x->reqs[me];
    /* The arguments were fixed at init, so what prepare derives from them
     * holds for every round, unless it copied the data (in place, derived
     * types' element views): only then is it done again.  Leaving the
     * block unwritten keeps its cache lines shared with the rank that runs
     * the round. */
    if (!a->pers_ready) {
        a->failed = zm_coll_prepare(a, me, n, 1);
        a->pers_ready = a->failed == ZM_OK && a->tmp == NULL;
    }
    zm_coll_req_start(req);
    /* The last rank to start the round runs it.  The counter is reset
     * before any request completes, so no rank can start the next round
     * before it. */
    if (atomic_fetch_add_explicit(&x->started, 1, memory_order_acq_rel) != n - 1)
        return;
    atomic_store_explicit(&x->started, 0, memory_order_relaxed);
    nbc_exec(x, n);
    for (int r = 0; r < n; r++)
        zm_p2p_req_complete(x->reqs[r]);
}

void zm_coll_pfree(zm_coll_pers_t *x, int me)
{
    if (ZM_UNLIKELY(x->shm->nx != NULL)) { /* across processes: net.c */
        zm_coll_net_pfree(x, me);
        return;
    }
    zm_coll_shm_t *s = x->shm;
    if (x->args[me].op)
        zm_op_release(x->args[me].op);
    if (atomic_fetch_sub_explicit(&x->refs, 1, memory_order_acq_rel) == 1) {
        free(x->reqs);
        free(x->args);
        free(x);
    }
    zm_coll_detach(s);
}
