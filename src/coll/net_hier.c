/*
 * net_hier.c: hierarchical blocking Barrier, Bcast, Reduce and Allreduce
 * on communicators across processes (paper 001's leader scheme).
 *
 * The members of the communicator that live in one process share an
 * ordinary control block (shm.c), on which they run the in-process phase
 * with zmpi's fast single-process collectives; one leader per process
 * exchanges with the other processes' leaders by point-to-point messages;
 * then the in-process fan-out runs on the block again:
 *   - Barrier: local barrier, leaders exchange empty messages, local barrier;
 *   - Bcast: the root sends to one leader per other process, each process
 *     broadcasts from its leader (the root, in the root's process);
 *   - Reduce: local Reduce to each process's leader (the root in its own
 *     process), the other leaders send their partial results to the root,
 *     which combines them in process order;
 *   - Allreduce: local Reduce to the leader, leaders exchange their partial
 *     results and combine them in process order, local Bcast.
 * Network messages per collective: P - 1 per leader instead of the flat
 * path's n - 1 per rank (net_algo.c).
 *
 * Reduce and Allreduce combine the inputs of a process first, which
 * changes the order of the reduction (when the ranks are interleaved,
 * and its grouping always).  Predefined operations on integer, boolean,
 * byte and character elements give the same bits in any order (two's
 * complement arithmetic, comparisons and bit operations are associative
 * and commutative).  Predefined operations on floating-point and complex
 * elements take this path too: MPI treats them as associative and
 * commutative, and the result is still the same on every rank and in
 * every run of the same layout (each process reduces its members in rank
 * order, every leader combines the partial results in process order), as
 * MPICH's and Open MPI's are, only not always the bits a one-process run
 * gives.  ZMPI_COLL_RANK_ORDER=1 keeps them on the flat path, which
 * reduces in rank order like one process, at the price of n - 1 messages
 * per rank.  Pairs and user operations keep the flat path.  The decision
 * depends only on the operation, the element kind and the job's
 * environment, which every rank of a correct call shares, so all ranks
 * take the same path.
 *
 * Non-blocking and persistent collectives keep the one-round flat path:
 * a hierarchical one needs its ranks to drive later rounds.
 */
#include "coll/coll_impl.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* The process (or, with ZMPI_COLL_NET=1 in one process, the pseudo
 * process: world rank mod 2) that world rank w belongs to. */
static int proc_key(int w)
{
    return zm_net_remote ? zm_net_proc_of(w) : w % 2;
}

int zm_coll_net_hier_setup(coll_net_t *nx, const zm_p2p_comm_t *c)
{
    int n = c->size, nkeys = zm_net_remote ? zm_net_job.nprocs : 2;
    int *index = malloc(sizeof(int) * (size_t)nkeys);
    nx->pof = malloc(sizeof(int) * (size_t)n);
    nx->lead = malloc(sizeof(int) * (size_t)n);
    nx->lworld = malloc(sizeof(int) * (size_t)n);
    if (!index || !nx->pof || !nx->lead || !nx->lworld) {
        free(index);
        return -1;
    }
    for (int k = 0; k < nkeys; k++)
        index[k] = -1;
    int mykey = proc_key(c->world ? c->world[c->rank] : c->rank);
    nx->np = nx->nl = 0;
    for (int q = 0; q < n; q++) {
        int w = c->world ? c->world[q] : q, k = proc_key(w);
        if (index[k] < 0) {
            index[k] = nx->np;
            nx->lead[nx->np++] = q;
        }
        nx->pof[q] = index[k];
        if (k == mykey) {
            if (q == c->rank)
                nx->lme = nx->nl;
            nx->lworld[nx->nl++] = w;
        }
    }
    nx->me_p = index[mykey];
    free(index);
    nx->hier = nx->np > 1 && n > nx->np;
    return 0;
}

void zm_coll_net_hier_free(coll_net_t *nx)
{
    free(nx->pof);
    free(nx->lead);
    free(nx->lworld);
}

void zm_coll_net_hier_quiesce(coll_net_t *nx)
{
    if (!nx->local)
        return;
    zm_coll_quiesce(nx->local, nx->lme);
    zm_coll_detach(nx->local);
    nx->local = NULL;
}

/* The local index of comm rank q, a member in this process. */
static int local_index(const coll_net_t *nx, int q)
{
    int w = nx->pc.world ? nx->pc.world[q] : q;
    for (int i = 0; i < nx->nl; i++)
        if (nx->lworld[i] == w)
            return i;
    return 0;
}

/* The block of this process's members, attached on first use (by the
 * rank itself: the block records its ULT).  NULL if out of memory. */
static zm_coll_shm_t *local_block(coll_net_t *nx)
{
    if (!nx->local) {
        nx->lc = (zm_p2p_comm_t){ nx->pc.ctx - 1, nx->lme, nx->nl, nx->lworld, nx->pc.name, 0 };
        nx->local = zm_coll_attach_block(&nx->lc);
    }
    return nx->local;
}

/* As a leader, send (sbuf, count, dt) to every other process's leader and
 * receive (rcount, rdt) from each into rbufs + p * rstride (rbufs NULL:
 * empty messages), then wait for all.  ULT context. */
static zm_status_t leaders_exchange(coll_net_t *nx, int tag, const void *sbuf, size_t count,
                                    const zm_dt_t *dt, char *rbufs, size_t rstride,
                                    size_t rcount, const zm_dt_t *rdt)
{
    int np = nx->np, k = 0;
    zm_req_t *reqs = aligned_alloc(ZM_CACHE_LINE, sizeof(zm_req_t) * 2 * (size_t)np);
    zm_req_t **all = malloc(sizeof(zm_req_t *) * 2 * (size_t)np);
    zm_status_t st = ZM_OK;
    if (!reqs || !all) {
        free(reqs);
        free(all);
        return ZM_ERR_NOMEM;
    }
    memset(reqs, 0, sizeof(zm_req_t) * 2 * (size_t)np);
    for (int p = 0; p < np; p++)
        if (p != nx->me_p)
            zm_p2p_irecv(&nx->pc, rbufs ? rbufs + (size_t)p * rstride : NULL, rcount, rdt,
                         nx->lead[p], tag, &reqs[k++]);
    int nrecv = k;
    for (int p = 0; p < np; p++)
        if (p != nx->me_p)
            zm_p2p_isend(&nx->pc, sbuf, count, dt, nx->lead[p], tag, ZM_SEND_STD, &reqs[k++]);
    for (int i = 0; i < k; i++)
        all[i] = &reqs[i];
    if (k > 0)
        zm_p2p_wait(all, k, 1);
    for (int i = 0; i < nrecv; i++)
        if (reqs[i].st_error != ZM_OK || reqs[i].st_bytes != zm_dt_bytes(rdt, rcount))
            st = ZM_COLL_ERR_COUNT;
    free(reqs);
    free(all);
    return st;
}

static zm_status_t hier_barrier(coll_net_t *nx, zm_coll_shm_t *l, int tag, char *err,
                                size_t errlen)
{
    zm_status_t st = zm_coll_barrier(l, nx->lme);
    if (st == ZM_OK && nx->lead[nx->me_p] == nx->me)
        st = leaders_exchange(nx, tag, NULL, 0, &zmpi_dt_MPI_BYTE, NULL, 0, 0,
                              &zmpi_dt_MPI_BYTE);
    zm_status_t st2 = zm_coll_barrier(l, nx->lme);
    if (st != ZM_OK && err)
        snprintf(err, errlen, "the leaders' exchange failed");
    return st != ZM_OK ? st : st2;
}

static zm_status_t hier_bcast(coll_net_t *nx, zm_coll_shm_t *l, const zm_coll_args_t *a,
                              int tag, char *err, size_t errlen)
{
    int me = nx->me, rootp = nx->pof[a->root];
    /* Each process's leader for this call: the root in its own process. */
    int leader = nx->me_p == rootp ? a->root : nx->lead[nx->me_p];
    zm_status_t st = ZM_OK;
    if (me == a->root) {
        zm_req_t *reqs = aligned_alloc(ZM_CACHE_LINE, sizeof(zm_req_t) * (size_t)nx->np);
        zm_req_t **all = malloc(sizeof(zm_req_t *) * (size_t)nx->np);
        int k = 0;
        if (!reqs || !all) {
            free(reqs);
            free(all);
            return ZM_ERR_NOMEM;
        }
        memset(reqs, 0, sizeof(zm_req_t) * (size_t)nx->np);
        for (int p = 0; p < nx->np; p++)
            if (p != rootp)
                zm_p2p_isend(&nx->pc, a->rbuf, a->rcount, a->rdt, nx->lead[p], tag,
                             ZM_SEND_STD, &reqs[k++]);
        for (int i = 0; i < k; i++)
            all[i] = &reqs[i];
        if (k > 0)
            zm_p2p_wait(all, k, 1);
        free(reqs);
        free(all);
    } else if (me == leader) {
        zm_req_t r;
        memset(&r, 0, sizeof(r));
        zm_p2p_irecv(&nx->pc, a->rbuf, a->rcount, a->rdt, a->root, tag, &r);
        zm_req_t *rp = &r;
        zm_p2p_wait(&rp, 1, 1);
        size_t want = zm_dt_bytes(a->rdt, a->rcount);
        if (r.st_error != ZM_OK || r.st_bytes != want) {
            st = ZM_COLL_ERR_COUNT;
            if (err)
                snprintf(err, errlen, "rank %d sends %s bytes to rank %d, which expects %zu",
                         a->root, r.st_error != ZM_OK ? "more" : "fewer", me, want);
        }
    }
    /* The in-process fan-out, from the leader. */
    int lroot = local_index(nx, leader);
    zm_status_t st2 = zm_coll_bcast_run(l, nx->lme, a->rbuf, a->rcount, a->rdt, lroot,
                                        st == ZM_OK ? err : NULL, errlen);
    return st != ZM_OK ? st : st2;
}

/* Whether ZMPI_COLL_RANK_ORDER=1 keeps floating-point reductions in rank
 * order (read once). */
static int rank_order_wanted(void)
{
    static _Atomic int wanted = -1;
    return zm_core_env_flag("ZMPI_COLL_RANK_ORDER", &wanted);
}

/* Whether a reduction may combine each process's inputs first (see the
 * top of the file). */
static int hier_reduction(const zm_coll_args_t *a)
{
    if (!a->op || a->op->id == ZM_OP_USER || a->op->id == ZM_OP_REPLACE ||
        a->op->id == ZM_OP_NO_OP || !a->rdt)
        return 0;
    const zm_dt_t *e = zm_dt_basic(a->rdt);
    if (!e)
        return 0;
    switch (e->kind) {
    case ZM_DT_INT_SIGNED:
    case ZM_DT_INT_UNSIGNED:
    case ZM_DT_FORTRAN_INT:
    case ZM_DT_BOOL:
    case ZM_DT_BYTE:
    case ZM_DT_CHAR:
    case ZM_DT_LOGICAL:
        return 1;
    case ZM_DT_FLOAT:
    case ZM_DT_COMPLEX:
        return !rank_order_wanted();
    default:
        return 0;
    }
}

/* Combine the processes' partial results (m elements of e each, process p's
 * at parts + p * stride) in process order and write the result into the
 * receive buffer of a.  The hierarchical Reduce and Allreduce share it so
 * both combine in the same order. */
static void combine_parts(const coll_net_t *nx, const zm_coll_args_t *a, char *parts,
                          size_t stride, size_t m, const zm_dt_t *e)
{
    char *acc = parts + stride * (size_t)(nx->np - 1);
    for (int p = nx->np - 2; p >= 0; p--)
        zm_op_apply(a->op, parts + stride * (size_t)p, acc, m, e);
    if (m)
        zm_dt_copy(a->rbuf, a->rcount, a->rdt, acc, m, e, m * e->size);
}

static zm_status_t hier_allreduce(coll_net_t *nx, zm_coll_shm_t *l, const zm_coll_args_t *a,
                                  int tag, char *err, size_t errlen)
{
    int leader = nx->lead[nx->me_p] == nx->me, lroot = 0;
    zm_coll_args_t r;
    zm_coll_args_clear(&r);
    r.kind = ZM_COLL_REDUCE;
    r.wide = a->wide;
    r.root = lroot; /* the leader is the process's first member */
    r.sbuf = a->sbuf == ZM_IN_PLACE && !leader ? a->rbuf : a->sbuf;
    r.rbuf = a->rbuf;
    r.rcount = a->rcount;
    r.rdt = a->rdt;
    r.op = a->op;
    zm_status_t st = zm_coll_run(l, nx->lme, &r, err, errlen);
    if (st == ZM_OK && leader) {
        /* Partial results in element form, one per process, combined in
         * process order by every leader alike. */
        const zm_dt_t *e = zm_dt_basic(a->rdt);
        size_t m = zm_dt_bytes(a->rdt, a->rcount) / e->size, eb = m * e->size;
        size_t stride = (eb + ZM_CACHE_LINE - 1) & ~(size_t)(ZM_CACHE_LINE - 1);
        char *parts = aligned_alloc(ZM_CACHE_LINE, stride * (size_t)nx->np + ZM_CACHE_LINE);
        if (!parts)
            return ZM_ERR_NOMEM;
        char *mine = parts + stride * (size_t)nx->me_p;
        if (eb)
            zm_dt_copy(mine, m, e, a->rbuf, a->rcount, a->rdt, eb);
        st = leaders_exchange(nx, tag, a->rbuf, a->rcount, a->rdt, parts, stride, m, e);
        if (st == ZM_OK)
            combine_parts(nx, a, parts, stride, m, e);
        else if (err)
            snprintf(err, errlen, "the leaders' exchange of partial results failed");
        free(parts);
    }
    zm_status_t st2 = zm_coll_bcast_run(l, nx->lme, a->rbuf, a->rcount, a->rdt, lroot,
                                        st == ZM_OK ? err : NULL, errlen);
    return st != ZM_OK ? st : st2;
}

/* Room for `count` elements of dt laid out as in a user buffer: bytes to
 * allocate, and in *off where the buffer's origin sits in them. */
static size_t layout_span(const zm_dt_t *dt, size_t count, size_t *off)
{
    ptrdiff_t last = count ? (ptrdiff_t)(count - 1) * dt->extent : 0;
    ptrdiff_t lo = dt->true_lb < last + dt->true_lb ? dt->true_lb : last + dt->true_lb;
    ptrdiff_t hi = dt->true_ub > last + dt->true_ub ? dt->true_ub : last + dt->true_ub;
    if (lo > 0)
        lo = 0;
    *off = (size_t)-lo;
    return (size_t)(hi - lo) + ZM_CACHE_LINE;
}

/* The root of a hierarchical Reduce, its process's partial result in its
 * receive buffer: receive the other processes' partial results from their
 * leaders and combine them all in process order into the buffer. */
static zm_status_t reduce_at_root(coll_net_t *nx, const zm_coll_args_t *a, int tag, char *err,
                                  size_t errlen)
{
    int rootp = nx->pof[a->root], k = 0;
    const zm_dt_t *e = zm_dt_basic(a->rdt);
    size_t m = zm_dt_bytes(a->rdt, a->rcount) / e->size, eb = m * e->size;
    size_t stride = (eb + ZM_CACHE_LINE - 1) & ~(size_t)(ZM_CACHE_LINE - 1);
    char *parts = aligned_alloc(ZM_CACHE_LINE, stride * (size_t)nx->np + ZM_CACHE_LINE);
    zm_req_t *reqs = aligned_alloc(ZM_CACHE_LINE, sizeof(zm_req_t) * (size_t)nx->np);
    zm_req_t **all = malloc(sizeof(zm_req_t *) * (size_t)nx->np);
    zm_status_t st = ZM_OK;
    if (!parts || !reqs || !all) {
        free(parts), free(reqs), free(all);
        return ZM_ERR_NOMEM;
    }
    memset(reqs, 0, sizeof(zm_req_t) * (size_t)nx->np);
    for (int p = 0; p < nx->np; p++) {
        if (p == rootp)
            continue;
        all[k] = &reqs[k];
        zm_p2p_irecv(&nx->pc, parts + stride * (size_t)p, m, e, nx->lead[p], tag, all[k]);
        k++;
    }
    if (eb)
        zm_dt_copy(parts + stride * (size_t)rootp, m, e, a->rbuf, a->rcount, a->rdt, eb);
    if (k > 0)
        zm_p2p_wait(all, k, 1);
    for (int i = 0; i < k; i++)
        if (reqs[i].st_error != ZM_OK || reqs[i].st_bytes != eb)
            st = ZM_COLL_ERR_COUNT;
    if (st == ZM_OK)
        combine_parts(nx, a, parts, stride, m, e);
    else if (err)
        snprintf(err, errlen, "the partial results of the processes do not match rank %d's "
                 "receive buffer", a->root);
    free(parts), free(reqs), free(all);
    return st;
}

/* Reduce: in-process Reduce to each process's leader (the root in its
 * own process), the other leaders send their partial results to the
 * root, which combines them in process order. */
static zm_status_t hier_reduce(coll_net_t *nx, zm_coll_shm_t *l, const zm_coll_args_t *a,
                               int tag, char *err, size_t errlen)
{
    int rootp = nx->pof[a->root], me = nx->me;
    int leader = nx->me_p == rootp ? a->root : nx->lead[nx->me_p];
    size_t off = 0, span = layout_span(a->rdt, a->rcount, &off);
    char *tmp = NULL;
    if (me == leader && me != a->root && !(tmp = malloc(span)))
        return ZM_ERR_NOMEM;
    zm_coll_args_t r;
    zm_coll_args_clear(&r);
    r.kind = ZM_COLL_REDUCE;
    r.wide = a->wide;
    r.root = local_index(nx, leader);
    r.sbuf = a->sbuf;
    r.rbuf = me == a->root ? a->rbuf : tmp ? tmp + off : NULL;
    r.rcount = a->rcount;
    r.rdt = a->rdt;
    r.op = a->op;
    zm_status_t st = zm_coll_run(l, nx->lme, &r, err, errlen);
    if (st == ZM_OK && me == leader && me != a->root) {
        zm_req_t q, *qp = &q;
        memset(&q, 0, sizeof(q));
        zm_p2p_isend(&nx->pc, tmp + off, a->rcount, a->rdt, a->root, tag, ZM_SEND_STD, &q);
        zm_p2p_wait(&qp, 1, 1);
    } else if (st == ZM_OK && me == a->root) {
        st = reduce_at_root(nx, a, tag, err, errlen);
    }
    free(tmp);
    return st;
}

int zm_coll_net_hier_run(zm_coll_shm_t *s, int me, const zm_coll_args_t *a, int tag,
                         zm_status_t *st, char *err, size_t errlen)
{
    coll_net_t *nx = s->nx;
    (void)me;
    if (!nx->hier)
        return 0;
    int k = a->kind;
    if (k != ZM_COLL_BARRIER && k != ZM_COLL_BCAST &&
        !((k == ZM_COLL_ALLREDUCE || k == ZM_COLL_REDUCE) && hier_reduction(a)))
        return 0;
    zm_coll_shm_t *l = local_block(nx);
    if (!l) {
        *st = ZM_ERR_NOMEM;
        return 1;
    }
    if (k == ZM_COLL_BARRIER)
        *st = hier_barrier(nx, l, tag, err, errlen);
    else if (k == ZM_COLL_BCAST)
        *st = hier_bcast(nx, l, a, tag, err, errlen);
    else if (k == ZM_COLL_REDUCE)
        *st = hier_reduce(nx, l, a, tag, err, errlen);
    else
        *st = hier_allreduce(nx, l, a, tag, err, errlen);
    return 1;
}
