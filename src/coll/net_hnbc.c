/*
 * net_hnbc.c: hierarchical non-blocking (and persistent) Ibarrier, Ibcast,
 * Ireduce and Iallreduce on communicators across processes, with the
 * leader scheme of the blocking ones (net_hier.c) and progressed without
 * the ranks calling in.
 *
 * The members of the communicator in one process meet in an instance of
 * their shared block (matched by the collective's tag, which every rank
 * numbers alike), as single-process non-blocking collectives do (nbc.c).
 * Messages can only be posted from a rank's own ULT, so every message is
 * posted when a rank starts the collective:
 *   - the process's leader posts its receives from the other leaders when
 *     it starts (a Bcast's root sends to the other processes' leaders
 *     then too);
 *   - the last member to start does the in-process part (a reduction of
 *     the members' inputs in rank order, as the blocking path does) and
 *     posts the leader's sends on its behalf (messages carry the
 *     communicator rank they are sent as, not the thread that posts them).
 * Whoever posts last checks for completion and otherwise leaves the check
 * in the network's deferred work (zm_net_defer); the check that finds
 * every message complete combines the processes' partial results in
 * process order (as the blocking path), copies the result to each
 * member's buffer (the in-process fan-out) and completes every member's
 * request.  Network messages per call: P - 1 per leader for Ibarrier and
 * Iallreduce, P - 1 from the root for Ibcast and to the root for Ireduce,
 * against the flat path's n - 1 per rank.
 *
 * Mismatches: the members of a process compare their calls when the last
 * one starts, and the leaders' messages carry signatures (net_msg.c), so
 * that a disagreement fails the requests instead of leaving them pending.
 */
#include "coll/coll_impl.h"

#include <stdlib.h>
#include <string.h>

typedef struct hnb {
    struct hnb *next;               /* in the local block's list */
    int tag;                        /* the collective's tag: its identity */
    int nl, arrived;                /* members in this process, started (list lock) */
    zm_coll_shm_t *l;               /* the local block (held) */
    zm_coll_args_t *args;           /* each member's call (public part) */
    zm_req_t **reqs;                /* each member's request */
    zm_coll_shm_t **stand;          /* each member's stand-in (held) */
    zm_status_t failed;             /* the members disagree (set by the last one) */
    int leader;                     /* comm rank of this process's leader */
    int lme_leader;                 /* its local index */
    int np, me_p, rootp;            /* processes, this one, the root's */
    int *lead;                      /* process -> its first member's comm rank */
    zm_p2p_comm_t lpc;              /* the collective context, as the leader */
    const zm_dt_t *e;               /* reductions: element type */
    size_t m, eb, stride;           /* elements, bytes, slot stride */
    char *parts;                    /* reductions: one slot per process */
    coll_nmsgs_t rx, tx;            /* the leader's receives, the sends */
    int has_rx, has_tx;             /* which of them this process has */
    int rx_live, tx_live;           /* which of them were posted */
    _Atomic int posts;              /* posting steps done */
    int need;                       /* posting steps before the check may run */
} hnb_t;

static int rooted(int k)
{
    return k == ZM_COLL_BCAST || k == ZM_COLL_REDUCE;
}

static int reduction(int k)
{
    return k == ZM_COLL_REDUCE || k == ZM_COLL_ALLREDUCE;
}

static void hold(const zm_coll_args_t *a, int on)
{
    if (a->op)
        on ? zm_op_retain(a->op) : zm_op_release(a->op);
    if (a->rdt && a->rdt->d)
        on ? zm_dt_retain(a->rdt) : zm_dt_release(a->rdt);
}

static void hnb_free(hnb_t *x)
{
    for (int q = 0; x->reqs && q < x->nl; q++)
        if (x->reqs[q])
            hold(&x->args[q], 0);
    free(x->args);
    free(x->reqs);
    free(x->stand);
    free(x->lead);
    free(x->parts);
    free(x);
}

/* A new instance for call a of nx, tag tag. */
static hnb_t *hnb_new(coll_net_t *nx, zm_coll_shm_t *l, const zm_coll_args_t *a, int tag)
{
    hnb_t *x = calloc(1, sizeof(*x));
    if (!x)
        return NULL;
    x->tag = tag;
    x->nl = nx->nl;
    x->l = l;
    x->np = nx->np;
    x->me_p = nx->me_p;
    x->args = calloc((size_t)x->nl, sizeof(*x->args));
    x->reqs = calloc((size_t)x->nl, sizeof(*x->reqs));
    x->stand = calloc((size_t)x->nl, sizeof(*x->stand));
    x->lead = malloc(sizeof(int) * (size_t)x->np);
    if (!x->args || !x->reqs || !x->stand || !x->lead) {
        hnb_free(x);
        return NULL;
    }
    memcpy(x->lead, nx->lead, sizeof(int) * (size_t)x->np);
    x->rootp = rooted(a->kind) ? nx->pof[a->root] : -1;
    x->leader = x->rootp == x->me_p ? a->root : nx->lead[x->me_p];
    x->lpc = nx->pc;
    x->lpc.rank = x->leader;
    if (reduction(a->kind)) {
        x->e = zm_dt_basic(a->rdt);
        x->m = zm_dt_bytes(a->rdt, a->rcount) / x->e->size;
        x->eb = x->m * x->e->size;
        x->stride = (x->eb + ZM_CACHE_LINE - 1) & ~(size_t)(ZM_CACHE_LINE - 1);
        if (!(x->parts = aligned_alloc(ZM_CACHE_LINE, x->stride * (size_t)x->np + ZM_CACHE_LINE))) {
            hnb_free(x);
            return NULL;
        }
    }
    /* Posting steps: the last member's, the leader's receives, a Bcast
     * root's sends (the root posts them when it starts). */
    int k = a->kind;
    x->has_rx = k == ZM_COLL_BARRIER || k == ZM_COLL_ALLREDUCE ||
                (k == ZM_COLL_BCAST && x->me_p != x->rootp) ||
                (k == ZM_COLL_REDUCE && x->me_p == x->rootp);
    x->has_tx = k == ZM_COLL_BARRIER || k == ZM_COLL_ALLREDUCE ||
                (k == ZM_COLL_BCAST && x->me_p == x->rootp) ||
                (k == ZM_COLL_REDUCE && x->me_p != x->rootp);
    x->need = 1 + x->has_rx + (k == ZM_COLL_BCAST && x->has_tx);
    return x;
}

/* Find or add the instance of tag in l's list.  With l's nbc_lock held. */
static hnb_t *hnb_find(coll_net_t *nx, zm_coll_shm_t *l, const zm_coll_args_t *a, int tag)
{
    hnb_t **pp = (hnb_t **)&l->hnb_head;
    for (; *pp; pp = &(*pp)->next)
        if ((*pp)->tag == tag)
            return *pp;
    *pp = hnb_new(nx, l, a, tag);
    return *pp;
}

/* The members' calls must agree (the last member checks, once). */
static zm_status_t local_check(const hnb_t *x)
{
    const zm_coll_args_t *a0 = &x->args[0];
    size_t b0 = a0->rdt ? zm_dt_bytes(a0->rdt, a0->rcount) : 0;
    for (int q = 1; q < x->nl; q++) {
        const zm_coll_args_t *a = &x->args[q];
        if (a->kind != a0->kind)
            return ZM_COLL_ERR_KIND;
        if (rooted(a->kind) && a->root != a0->root)
            return ZM_COLL_ERR_ROOT;
        if (reduction(a->kind) && a->op->id != a0->op->id)
            return ZM_COLL_ERR_OP;
        if (a->kind != ZM_COLL_BARRIER &&
            ((a->rdt ? zm_dt_bytes(a->rdt, a->rcount) : 0) != b0 ||
             (reduction(a->kind) && zm_dt_basic(a->rdt)->kind != x->e->kind)))
            return ZM_COLL_ERR_COUNT;
    }
    return ZM_OK;
}

/* Member q's input in element form: its buffer itself when it is laid out
 * as m elements of e, else a copy in tmp. */
static const void *input_of(const hnb_t *x, int q, char *tmp)
{
    const zm_coll_args_t *a = &x->args[q];
    const void *in = a->sbuf == ZM_IN_PLACE || !a->sbuf ? a->rbuf : a->sbuf;
    if (a->rdt->contig && a->rdt->size == x->e->size * (a->rdt->size / x->e->size) &&
        zm_dt_basic(a->rdt) == x->e && a->rdt->true_lb == 0)
        return in;
    if (x->eb)
        zm_dt_copy(tmp, x->m, x->e, in, a->rcount, a->rdt, x->eb);
    return tmp;
}

/* This process's partial result into its slot: the members' inputs
 * combined in rank order (in_0 op (in_1 op (...))), as the blocking
 * path's in-process Reduce does. */
static zm_status_t local_reduce(hnb_t *x)
{
    char *acc = x->parts + x->stride * (size_t)x->me_p;
    char *tmp = x->eb ? malloc(x->eb) : NULL;
    if (x->eb && !tmp)
        return ZM_ERR_NOMEM;
    if (x->eb)
        memcpy(acc, input_of(x, x->nl - 1, tmp), x->eb);
    for (int q = x->nl - 2; q >= 0 && x->eb; q--)
        zm_op_apply(x->args[0].op, input_of(x, q, tmp), acc, x->m, x->e);
    free(tmp);
    return ZM_OK;
}

/* Make a set of the leader's messages on context pc, with the signature
 * of call a, the poster's own (status `failed`): other members may not
 * have started yet. */
static int set_init(hnb_t *x, coll_nmsgs_t *ms, const zm_p2p_comm_t *pc,
                    const zm_coll_args_t *a, zm_status_t failed)
{
    if (zm_coll_nmsgs_init(ms, pc, x->tag, x->leader, x->np) != 0)
        return -1;
    zm_coll_args_t sa = *a;
    sa.failed = failed;
    sa.edt = NULL;
    zm_coll_sig_fill(&ms->sig, &sa, 1, 0);
    return 0;
}

static int hnb_poll(void *arg);

/* One posting step done: the last one checks for completion, and leaves
 * the check in the deferred work if it is not complete yet. */
static void posted(hnb_t *x)
{
    if (atomic_fetch_add_explicit(&x->posts, 1, memory_order_acq_rel) + 1 != x->need)
        return;
    if (!hnb_poll(x))
        zm_net_defer(hnb_poll, x);
}

/* The leader's receives, posted when it starts (its ULT).  The leader of
 * a Bcast's other processes receives into its own buffer. */
static void post_rx(hnb_t *x, coll_net_t *nx, const zm_coll_args_t *a)
{
    int k = a->kind;
    if (set_init(x, &x->rx, &nx->pc, a, ZM_OK) != 0) {
        x->failed = ZM_ERR_NOMEM;
        return;
    }
    if (k == ZM_COLL_BCAST) {
        zm_coll_nmsgs_add(&x->rx, 0, ZM_ANY_SOURCE, a->rbuf, a->rcount, a->rdt,
                          zm_dt_bytes(a->rdt, a->rcount));
    } else {
        for (int p = 0; p < x->np; p++)
            if (p != x->me_p)
                zm_coll_nmsgs_add(&x->rx, 0, x->lead[p],
                                  x->parts ? x->parts + x->stride * (size_t)p : NULL, x->m,
                                  x->e, x->m);
    }
    if (zm_coll_nmsgs_post(&x->rx) != 0) {
        zm_coll_nmsgs_free(&x->rx);
        x->failed = ZM_ERR_NOMEM;
        return;
    }
    x->rx_live = 1;
}

/* The sends: a Bcast root's from its buffer when it starts (its own
 * context), the others' by the last member as the leader. */
static void post_tx(hnb_t *x, const zm_p2p_comm_t *pc, const zm_coll_args_t *a)
{
    int k = a->kind;
    if (set_init(x, &x->tx, pc, a, x->failed) != 0) {
        x->failed = ZM_ERR_NOMEM;
        return;
    }
    char *mine = x->parts ? x->parts + x->stride * (size_t)x->me_p : NULL;
    for (int p = 0; p < x->np; p++) {
        if (p == x->me_p || (k == ZM_COLL_REDUCE && p != x->rootp))
            continue;
        if (k == ZM_COLL_BCAST)
            zm_coll_nmsgs_add(&x->tx, 1, x->lead[p], a->rbuf, a->rcount, a->rdt,
                              zm_dt_bytes(a->rdt, a->rcount));
        else
            zm_coll_nmsgs_add(&x->tx, 1, k == ZM_COLL_REDUCE ? a->root : x->lead[p], mine,
                              x->m, x->e, x->m);
    }
    if (zm_coll_nmsgs_post(&x->tx) != 0) {
        zm_coll_nmsgs_free(&x->tx);
        x->failed = ZM_ERR_NOMEM;
        return;
    }
    x->tx_live = 1;
}

/* Every message is complete: combine, fan out, complete the requests. */
static void hnb_finish(hnb_t *x, zm_status_t st)
{
    const zm_coll_args_t *a0 = &x->args[0];
    int k = a0->kind, lroot = x->lme_leader;
    if (st == ZM_OK && reduction(k) && (k == ZM_COLL_ALLREDUCE || x->me_p == x->rootp)) {
        char *acc = zm_coll_net_combine_parts(a0->op, x->parts, x->stride, x->np, x->m, x->e);
        for (int q = 0; q < x->nl; q++)
            if (x->eb && (k == ZM_COLL_ALLREDUCE || q == lroot))
                zm_dt_copy(x->args[q].rbuf, x->args[q].rcount, x->args[q].rdt, acc, x->m,
                           x->e, x->eb);
    } else if (st == ZM_OK && k == ZM_COLL_BCAST && lroot >= 0) {
        const zm_coll_args_t *r = &x->args[lroot];
        size_t b = zm_dt_bytes(r->rdt, r->rcount);
        for (int q = 0; q < x->nl && b; q++)
            if (q != lroot)
                zm_dt_copy(x->args[q].rbuf, x->args[q].rcount, x->args[q].rdt, r->rbuf,
                           r->rcount, r->rdt, b);
    }
    zm_coll_shm_t *l = x->l;
    int nl = x->nl;
    zm_req_t **reqs = x->reqs;
    zm_coll_shm_t **stand = x->stand;
    x->reqs = NULL;
    x->stand = NULL;
    for (int q = 0; q < nl; q++)
        hold(&x->args[q], 0);
    /* Sends of a set ended by a mismatch may still be pending: the set
     * then stays (zm_coll_nmsgs_free), and the instance with it. */
    if ((!x->rx_live || zm_coll_nmsgs_free(&x->rx)) && (!x->tx_live || zm_coll_nmsgs_free(&x->tx)))
        hnb_free(x);
    for (int q = 0; q < nl; q++)
        reqs[q]->st_error = st;
    for (int q = 0; q < nl; q++) {
        zm_p2p_req_complete(reqs[q]);
        zm_coll_detach(stand[q]);
    }
    free(reqs);
    free(stand);
    zm_coll_detach(l);
}

/* Deferred work: finish once the messages are complete (or a signature
 * disagreed).  Any thread; one at a time. */
static int hnb_poll(void *arg)
{
    hnb_t *x = arg;
    int done = 1, d;
    zm_status_t st = x->failed;
    if (x->rx_live) {
        zm_status_t s2 = zm_coll_nmsgs_poll(&x->rx, &d, NULL, 0);
        done &= d;
        if (st == ZM_OK)
            st = s2;
    }
    if (x->tx_live)
        done &= zm_coll_nmsgs_done(&x->tx);
    if (!done)
        return 0;
    hnb_finish(x, st);
    return 1;
}

/* Rank s (its stand-in; member nx->lme of this process) joins the
 * instance of tag in l with call a and request req; *last tells whether
 * it is the last member to.  NULL if out of memory. */
static hnb_t *hnb_join(zm_coll_shm_t *s, zm_coll_shm_t *l, const zm_coll_args_t *a, int tag,
                       zm_req_t *req, int *last)
{
    coll_net_t *nx = s->nx;
    zm_spin_lock(&l->nbc_lock);
    hnb_t *x = hnb_find(nx, l, a, tag);
    *last = 0;
    if (x) {
        zm_coll_args_t *mine = &x->args[nx->lme];
        memset(mine, 0, sizeof(*mine));
        memcpy(mine, a, offsetof(zm_coll_args_t, src));
        x->reqs[nx->lme] = req;
        x->stand[nx->lme] = s;
        if (nx->me == x->leader)
            x->lme_leader = nx->lme;
        hold(mine, 1);
        zm_coll_req_start(req);
        zm_coll_shm_retain(s);
        if (x->arrived == 0)
            zm_coll_shm_retain(l);
        *last = ++x->arrived == x->nl;
        if (*last) {
            hnb_t **pp = (hnb_t **)&l->hnb_head;
            while (*pp != x)
                pp = &(*pp)->next;
            *pp = x->next;
        }
    }
    zm_spin_unlock(&l->nbc_lock);
    return x;
}

zm_status_t zm_coll_net_hnbc_start(zm_coll_shm_t *s, int me, const zm_coll_args_t *a,
                                   int tag, zm_req_t *req)
{
    coll_net_t *nx = s->nx;
    zm_coll_shm_t *l = zm_coll_net_local(nx);
    int last;
    (void)me;
    hnb_t *x = l ? hnb_join(s, l, a, tag, req, &last) : NULL;
    if (!x)
        return ZM_ERR_NOMEM;
    /* This member's own posts (its ULT), then the last member's part;
     * each step counted once it is done, whether it could post or not. */
    int k = a->kind, lead = nx->me == x->leader;
    /* In the root's process the leader is the root (as the first member
     * saw it: exactly one member takes each step even if they disagree). */
    int rsend = lead && k == ZM_COLL_BCAST && x->has_tx;
    if (lead && x->has_rx)
        post_rx(x, nx, a);
    if (rsend)
        post_tx(x, &nx->pc, a);
    if (last) {
        zm_status_t st = local_check(x);
        if (st == ZM_OK && reduction(k))
            st = local_reduce(x);
        if (x->failed == ZM_OK)
            x->failed = st;
        if (k != ZM_COLL_BCAST && x->has_tx)
            post_tx(x, &x->lpc, a);
    }
    if (lead && x->has_rx)
        posted(x);
    if (rsend)
        posted(x);
    if (last)
        posted(x);
    return ZM_OK;
}
