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
 * The non-blocking and persistent forms follow the same scheme in
 * net_hnbc.c.  The leaders' messages carry signatures (net_msg.c); a
 * leader whose process's in-process phase failed still sends its
 * messages, marked failed, so that the other leaders fail too.
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

/* The in-process phase of call a (kind) failed with st, its message in
 * err (if given), in which the ranks are numbered within this process and
 * the kinds are the phase's own: say so, naming the call.  Every member
 * of the process found the same failure, so none runs the phases after
 * it (they would wait for each other).  Returns st. */
static zm_status_t local_failed(const coll_net_t *nx, int kind, zm_status_t st, char *err,
                                size_t errlen)
{
    if (err && errlen > 0) {
        char inner[200];
        snprintf(inner, sizeof(inner), "%s", err);
        snprintf(err, errlen, "this process's ranks (numbered 0-%d here) disagree in %s: %s",
                 nx->nl - 1, zm_coll_name(kind), inner);
    }
    return st;
}

/* Start a leader's set of messages for call a (tag, history digest hist)
 * with room for cap messages; its signature also carries `failed`, the
 * status of the in-process phase before it, so that the other leaders
 * fail too instead of waiting for this process.  0, or -1 if out of
 * memory. */
static int leader_msgs(coll_net_t *nx, coll_nmsgs_t *ms, const zm_coll_args_t *a, int tag,
                       uint32_t hist, int cap, zm_status_t failed)
{
    if (zm_coll_nmsgs_init(ms, &nx->pc, tag, nx->me, cap) != 0)
        return -1;
    zm_coll_args_t sa = *a;
    sa.failed = failed;
    sa.edt = NULL;
    zm_coll_sig_fill(&ms->sig, &sa, 1, hist);
    return 0;
}

/* Post a leader's messages, wait for them (checking their signatures)
 * and free them. */
static zm_status_t leader_run(coll_nmsgs_t *ms, char *err, size_t errlen)
{
    zm_status_t st = zm_coll_nmsgs_post(ms) != 0 ? ZM_ERR_NOMEM : zm_coll_nmsgs_wait(ms, err,
                                                                                   errlen);
    zm_coll_nmsgs_free(ms);
    return st;
}

/* As a leader, send (sbuf, count, dt; `units` for the signature) to every
 * other process's leader and receive (rcount, rdt) from each into rbufs +
 * p * rstride (rbufs NULL: nothing but signatures), then wait for all. */
static zm_status_t leaders_exchange(coll_net_t *nx, coll_nmsgs_t *ms, const void *sbuf,
                                    size_t count, const zm_dt_t *dt, char *rbufs,
                                    size_t rstride, size_t rcount, const zm_dt_t *rdt,
                                    size_t units, char *err, size_t errlen)
{
    for (int p = 0; p < nx->np; p++)
        if (p != nx->me_p)
            zm_coll_nmsgs_add(ms, 0, nx->lead[p], rbufs ? rbufs + (size_t)p * rstride : NULL,
                              rcount, rdt, units);
    for (int p = 0; p < nx->np; p++)
        if (p != nx->me_p)
            zm_coll_nmsgs_add(ms, 1, nx->lead[p], (void *)sbuf, count, dt, units);
    return leader_run(ms, err, errlen);
}

static zm_status_t hier_barrier(coll_net_t *nx, zm_coll_shm_t *l, const zm_coll_args_t *a,
                                int tag, uint32_t hist, char *err, size_t errlen)
{
    zm_status_t st = zm_coll_run(l, nx->lme, a, err, errlen), st3 = ZM_OK;
    if (st != ZM_OK)
        st = local_failed(nx, a->kind, st, err, errlen);
    if (nx->lead[nx->me_p] == nx->me) {
        coll_nmsgs_t ms;
        st3 = leader_msgs(nx, &ms, a, tag, hist, 2 * nx->np, st) != 0
                  ? ZM_ERR_NOMEM
                  : leaders_exchange(nx, &ms, NULL, 0, NULL, NULL, 0, 0, NULL, 0,
                                     st == ZM_OK ? err : NULL, errlen);
    }
    if (st != ZM_OK)
        return st;
    /* The members wait here for the leader, which releases them even when
     * its exchange failed. */
    zm_status_t st2 = zm_coll_run(l, nx->lme, a, st3 == ZM_OK ? err : NULL, errlen);
    return st3 != ZM_OK ? st3 : st2;
}

static zm_status_t hier_bcast(coll_net_t *nx, zm_coll_shm_t *l, const zm_coll_args_t *a,
                              int tag, uint32_t hist, char *err, size_t errlen)
{
    int me = nx->me, rootp = nx->pof[a->root];
    /* Each process's leader for this call: the root in its own process. */
    int leader = nx->me_p == rootp ? a->root : nx->lead[nx->me_p];
    size_t bytes = zm_dt_bytes(a->rdt, a->rcount);
    zm_status_t st = ZM_OK;
    if (me == a->root || me == leader) {
        coll_nmsgs_t ms;
        if (leader_msgs(nx, &ms, a, tag, hist, nx->np, ZM_OK) != 0)
            return ZM_ERR_NOMEM;
        for (int p = 0; p < nx->np && me == a->root; p++)
            if (p != rootp)
                zm_coll_nmsgs_add(&ms, 1, nx->lead[p], a->rbuf, a->rcount, a->rdt, bytes);
        /* From whichever rank sends: see net_algo.c's plan_rooted. */
        if (me != a->root)
            zm_coll_nmsgs_add(&ms, 0, ZM_ANY_SOURCE, a->rbuf, a->rcount, a->rdt, bytes);
        st = leader_run(&ms, err, errlen);
    }
    /* The in-process fan-out, from the leader. */
    int lroot = local_index(nx, leader);
    zm_status_t st2 = zm_coll_bcast_run(l, nx->lme, a->rbuf, a->rcount, a->rdt, lroot,
                                        st == ZM_OK ? err : NULL, errlen);
    if (st == ZM_OK && st2 != ZM_OK)
        return local_failed(nx, a->kind, st2, err, errlen);
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

char *zm_coll_net_combine_parts(const zm_op_t *op, char *parts, size_t stride, int np,
                                size_t m, const zm_dt_t *e)
{
    char *acc = parts + stride * (size_t)(np - 1);
    for (int p = np - 2; p >= 0; p--)
        zm_op_apply(op, parts + stride * (size_t)p, acc, m, e);
    return acc;
}

/* Combine the processes' partial results (see zm_coll_net_combine_parts)
 * and write the result into the receive buffer of a.  The hierarchical
 * Reduce and Allreduce share it. */
static void combine_parts(const coll_net_t *nx, const zm_coll_args_t *a, char *parts,
                          size_t stride, size_t m, const zm_dt_t *e)
{
    char *acc = zm_coll_net_combine_parts(a->op, parts, stride, nx->np, m, e);
    if (m)
        zm_dt_copy(a->rbuf, a->rcount, a->rdt, acc, m, e, m * e->size);
}

/* Element type, elements and bytes of a's buffer in element form, and
 * the stride of the per-process slots that hold partial results. */
static const zm_dt_t *parts_shape(const zm_coll_args_t *a, size_t *m, size_t *eb,
                                  size_t *stride)
{
    const zm_dt_t *e = zm_dt_basic(a->rdt);
    *m = zm_dt_bytes(a->rdt, a->rcount) / e->size;
    *eb = *m * e->size;
    *stride = (*eb + ZM_CACHE_LINE - 1) & ~(size_t)(ZM_CACHE_LINE - 1);
    return e;
}

/* The leader's part of a hierarchical Allreduce, its process's partial
 * result in a's receive buffer (valid if `local`, the in-process phase's
 * status, is ZM_OK): exchange the partial results with the other leaders
 * and combine them all in process order into the buffer. */
static zm_status_t allreduce_leaders(coll_net_t *nx, const zm_coll_args_t *a, int tag,
                                     uint32_t hist, zm_status_t local, char *err, size_t errlen)
{
    size_t m, eb, stride;
    const zm_dt_t *e = parts_shape(a, &m, &eb, &stride);
    char *parts = aligned_alloc(ZM_CACHE_LINE, stride * (size_t)nx->np + ZM_CACHE_LINE);
    coll_nmsgs_t ms;
    if (!parts || leader_msgs(nx, &ms, a, tag, hist, 2 * nx->np, local) != 0) {
        free(parts);
        return ZM_ERR_NOMEM;
    }
    if (eb && local == ZM_OK)
        zm_dt_copy(parts + stride * (size_t)nx->me_p, m, e, a->rbuf, a->rcount, a->rdt, eb);
    zm_status_t st = leaders_exchange(nx, &ms, a->rbuf, a->rcount, a->rdt, parts, stride, m, e,
                                      m, local == ZM_OK ? err : NULL, errlen);
    if (st == ZM_OK && local == ZM_OK)
        combine_parts(nx, a, parts, stride, m, e);
    free(parts);
    return local != ZM_OK ? local : st;
}

static zm_status_t hier_allreduce(coll_net_t *nx, zm_coll_shm_t *l, const zm_coll_args_t *a,
                                  int tag, uint32_t hist, char *err, size_t errlen)
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
    zm_status_t st = zm_coll_run(l, nx->lme, &r, err, errlen), local = st;
    if (st != ZM_OK)
        st = local_failed(nx, a->kind, st, err, errlen);
    /* A leader whose process failed still meets the other leaders, with
     * its status in its messages, so that they fail too. */
    if (leader)
        st = allreduce_leaders(nx, a, tag, hist, st, err, errlen);
    if (local != ZM_OK)
        return st;
    zm_status_t st2 = zm_coll_bcast_run(l, nx->lme, a->rbuf, a->rcount, a->rdt, lroot,
                                        st == ZM_OK ? err : NULL, errlen);
    if (st == ZM_OK && st2 != ZM_OK)
        return local_failed(nx, a->kind, st2, err, errlen);
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
 * receive buffer (valid if `local` is ZM_OK): receive the other processes'
 * partial results from their leaders and combine them all in process
 * order into the buffer. */
static zm_status_t reduce_at_root(coll_net_t *nx, const zm_coll_args_t *a, int tag,
                                  uint32_t hist, zm_status_t local, char *err, size_t errlen)
{
    int rootp = nx->pof[a->root];
    size_t m, eb, stride;
    const zm_dt_t *e = parts_shape(a, &m, &eb, &stride);
    char *parts = aligned_alloc(ZM_CACHE_LINE, stride * (size_t)nx->np + ZM_CACHE_LINE);
    coll_nmsgs_t ms;
    if (!parts || leader_msgs(nx, &ms, a, tag, hist, nx->np, local) != 0) {
        free(parts);
        return ZM_ERR_NOMEM;
    }
    for (int p = 0; p < nx->np; p++)
        if (p != rootp)
            zm_coll_nmsgs_add(&ms, 0, nx->lead[p], parts + stride * (size_t)p, m, e, m);
    if (eb && local == ZM_OK)
        zm_dt_copy(parts + stride * (size_t)rootp, m, e, a->rbuf, a->rcount, a->rdt, eb);
    zm_status_t st = leader_run(&ms, local == ZM_OK ? err : NULL, errlen);
    if (st == ZM_OK && local == ZM_OK)
        combine_parts(nx, a, parts, stride, m, e);
    free(parts);
    return local != ZM_OK ? local : st;
}

/* Reduce: in-process Reduce to each process's leader (the root in its
 * own process), the other leaders send their partial results to the
 * root, which combines them in process order. */
static zm_status_t hier_reduce(coll_net_t *nx, zm_coll_shm_t *l, const zm_coll_args_t *a,
                               int tag, uint32_t hist, char *err, size_t errlen)
{
    int rootp = nx->pof[a->root], me = nx->me;
    int leader = nx->me_p == rootp ? a->root : nx->lead[nx->me_p];
    size_t off = 0, span = layout_span(a->rdt, a->rcount, &off), m, eb, stride;
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
    if (st != ZM_OK)
        st = local_failed(nx, a->kind, st, err, errlen);
    coll_nmsgs_t ms;
    if (me == leader && me != a->root) {
        /* Sent even when the process failed: the root then fails too. */
        parts_shape(a, &m, &eb, &stride);
        zm_status_t st2 = ZM_ERR_NOMEM;
        if (leader_msgs(nx, &ms, a, tag, hist, 1, st) == 0) {
            zm_coll_nmsgs_add(&ms, 1, a->root, tmp + off, a->rcount, a->rdt, m);
            st2 = leader_run(&ms, st == ZM_OK ? err : NULL, errlen);
        }
        st = st != ZM_OK ? st : st2;
    } else if (me == a->root) {
        st = reduce_at_root(nx, a, tag, hist, st, err, errlen);
    }
    free(tmp);
    return st;
}

int zm_coll_net_hier_fits(const coll_net_t *nx, const zm_coll_args_t *a)
{
    int k = a->kind;
    return nx->hier && (k == ZM_COLL_BARRIER || k == ZM_COLL_BCAST ||
                        ((k == ZM_COLL_ALLREDUCE || k == ZM_COLL_REDUCE) && hier_reduction(a)));
}

zm_coll_shm_t *zm_coll_net_local(coll_net_t *nx)
{
    return local_block(nx);
}

int zm_coll_net_hier_run(zm_coll_shm_t *s, int me, const zm_coll_args_t *a, int tag,
                         uint32_t hist, zm_status_t *st, char *err, size_t errlen)
{
    coll_net_t *nx = s->nx;
    (void)me;
    if (!zm_coll_net_hier_fits(nx, a))
        return 0;
    int k = a->kind;
    zm_coll_shm_t *l = local_block(nx);
    if (!l) {
        *st = ZM_ERR_NOMEM;
        return 1;
    }
    if (k == ZM_COLL_BARRIER)
        *st = hier_barrier(nx, l, a, tag, hist, err, errlen);
    else if (k == ZM_COLL_BCAST)
        *st = hier_bcast(nx, l, a, tag, hist, err, errlen);
    else if (k == ZM_COLL_REDUCE)
        *st = hier_reduce(nx, l, a, tag, hist, err, errlen);
    else
        *st = hier_allreduce(nx, l, a, tag, hist, err, errlen);
    return 1;
}
