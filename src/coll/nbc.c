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

extern zm_dt_t zmpi_dt_MPI_BYTE;

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

/* Run every rank's part of a fully started collective and complete the
 * requests.  The caller has taken it out of the list. */
static void nbc_run(zm_coll_shm_t *s, coll_nbc_t *x)
{
    int n = s->size;
    zm_coll_view_t v = { (char *)x->args, sizeof(zm_coll_args_t), n, 1 };
    zm_status_t st = zm_coll_check(&v, NULL, 0);
    for (int r = 0; r < n; r++)
        x->reqs[r]->st_error = st == ZM_OK ? zm_coll_part(&v, r, NULL, 0) : st;
    for (int r = 0; r < n; r++) {
        zm_coll_args_t *a = &x->args[r];
        zm_coll_finish(&v, r);
        if (a->op)
            zm_op_release(a->op);
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
    zm_coll_args_t mine;
    unsigned seq = s->slots[me].nbc_seq++;
    memcpy(&mine, a, offsetof(zm_coll_args_t, src));
    mine.inl_buf = NULL;
    mine.inl_cap = 0; /* the ranks' buffers stay valid until the request completes */
    mine.failed = zm_coll_prepare(&mine, me, s->size, 1);
    if (mine.op)
        zm_op_retain(mine.op);
    zm_p2p_req_reset(req, ZM_REQ_DONE_ONLY);
    req->st_source = -1;
    req->st_tag = -1;
    req->st_bytes = 0;
    req->dt = &zmpi_dt_MPI_BYTE;
    req->count = 0;
    zm_coll_shm_retain(s);
    zm_spin_lock(&s->nbc_lock);
    coll_nbc_t *x = nbc_find(s, seq);
    int last = 0;
    if (x) {
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
        zm_coll_detach(s);
        return ZM_ERR_NOMEM;
    }
    if (last)
        nbc_run(s, x);
    return ZM_OK;
}
