/*
 * net_algo.c: collectives as one round of point-to-point messages, for
 * communicators whose ranks live in several processes.
 *
 * Every rank posts, in one go, all the receives and then all the sends its
 * part of the collective needs; nothing it sends depends on what it
 * receives.  So the messages progress without their owner (the network
 * engine and the other ranks complete them), and the only work left once
 * they are complete is local: copying the rank's own block and, for
 * reductions, combining the inputs that arrived.  That is what lets a
 * non-blocking collective complete in the network's progress (net.c)
 * instead of needing its rank to drive later rounds.
 *
 * Reductions combine the ranks' inputs in exactly the order algo.c does
 * (in_0 op (in_1 op (... op in_{n-1})) for Reduce, Allreduce and
 * Reduce_scatter; prefixes (in_0 op in_1) op in_2 ... for Scan and
 * Exscan), element view and all, so results are bit-identical to the
 * single-process path and equal on every rank.  The price of one round is
 * n - 1 messages per rank for Barrier and Allreduce (each rank reduces
 * every input itself); see docs/net.md for the limits this sets.
 */
#include "coll/coll_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


struct coll_nsched {
    zm_coll_args_t a;               /* this rank's prepared call */
    zm_coll_shm_t *s;               /* its stand-in block */
    int me, n, tag, hold;
    coll_nmsgs_t ms;                /* the messages, behind signatures (net_msg.c) */
    void *arrays;                   /* non-blocking: copies of the call's count,
                                     * displacement and type arrays, or NULL */
    char *in;                       /* reductions: the inputs that arrive, per rank */
    size_t span;                    /* bytes of one input in `in` */
    ptrdiff_t off;                  /* where element 0 sits in an input's bytes */
    size_t rlen;                    /* reductions: view elements this rank combines */
    size_t rlo;                     /* ... and the first of them in the input view */
};

static int is_reduction(int k)
{
    return k == ZM_COLL_REDUCE || k == ZM_COLL_ALLREDUCE || k == ZM_COLL_REDUCE_SCATTER ||
           k == ZM_COLL_REDUCE_SCATTER_BLOCK || k == ZM_COLL_SCAN || k == ZM_COLL_EXSCAN;
}

static inline char *elem(const void *buf, const zm_dt_t *dt, size_t i)
{
    return (char *)buf + (ptrdiff_t)i * dt->extent;
}

/* Count and first element of rank q's block (see algo.c's block_of). */
static inline size_t block_of(const zm_coll_args_t *a, int v, const int *counts,
                              const int *displs, size_t count, int q, size_t *at)
{
    *at = v ? (size_t)zm_coll_at(a, displs, (size_t)q) : count * (size_t)q;
    return v ? (size_t)zm_coll_at(a, counts, (size_t)q) : count;
}

/* Add a message; what its signature counts is elements for reductions
 * (of the element view, the same on every rank of a correct call) and
 * bytes for everything else. */
static void add(coll_nsched_t *x, int send, int peer, const void *buf, size_t count,
                const zm_dt_t *dt)
{
    const zm_dt_t *t = dt ? dt : &zmpi_dt_MPI_BYTE;
    size_t units = is_reduction(x->a.kind) ? count : zm_dt_bytes(t, count);
    zm_coll_nmsgs_add(&x->ms, send, peer, (void *)buf, count, t, units);
}

/* ---- Reductions: the view elements each rank exchanges ---------------- */

/* View elements per user element (1 for user operations). */
static size_t view_factor(const zm_coll_args_t *a)
{
    return a->edt == a->rdt ? 1 : a->rdt->size / a->edt->size;
}

/* First view element and length of rank q's block of a Reduce_scatter. */
static size_t rs_block(const zm_coll_args_t *a, int q, int n, size_t *len)
{
    size_t f = view_factor(a);
    if (a->kind == ZM_COLL_REDUCE_SCATTER_BLOCK) {
        *len = a->rcount * f;
        return a->rcount * (size_t)q * f;
    }
    size_t d = 0;
    for (int i = 0; i < q && i < n; i++)
        d += (size_t)zm_coll_at(a, a->rcounts, (size_t)i);
    *len = (size_t)zm_coll_at(a, a->rcounts, (size_t)q) * f;
    return d * f;
}

/* Room for `len` elements of edt: the bytes they span (at least len
 * extents, which the reduction copies whole) and where element 0 sits in
 * them (types may have negative bounds or holes), both multiples of a
 * cache line so that every input is aligned as its elements need. */
static size_t elems_span(const zm_dt_t *edt, size_t len, ptrdiff_t *off)
{
    const size_t line = ZM_CACHE_LINE;
    ptrdiff_t last = len ? (ptrdiff_t)(len - 1) * edt->extent : 0;
    ptrdiff_t lo = edt->true_lb < last + edt->true_lb ? edt->true_lb : last + edt->true_lb;
    ptrdiff_t hi = edt->true_ub > last + edt->true_ub ? edt->true_ub : last + edt->true_ub;
    if (lo > 0)
        lo = 0;
    if (hi < (ptrdiff_t)(len * (size_t)edt->extent))
        hi = (ptrdiff_t)(len * (size_t)edt->extent);
    *off = (ptrdiff_t)(((size_t)-lo + line - 1) & ~(line - 1));
    return ((size_t)*off + (size_t)hi + line) & ~(line - 1);
}

static void *input_of(const coll_nsched_t *x, int q)
{
    if (q == x->me)
        return elem(x->a.rin, x->a.edt, x->rlo);
    return x->in + (size_t)q * x->span + x->off;
}

/* The messages of a reduction: each rank's input (its part of it, for
 * Reduce_scatter) goes to every rank whose result depends on it. */
static int plan_reduction(coll_nsched_t *x)
{
    zm_coll_args_t *a = &x->a;
    int me = x->me, n = x->n, k = a->kind;
    x->rlo = 0;
    x->rlen = a->rm;
    if (k == ZM_COLL_REDUCE_SCATTER || k == ZM_COLL_REDUCE_SCATTER_BLOCK)
        x->rlo = rs_block(a, me, n, &x->rlen);
    x->span = elems_span(a->edt, x->rlen, &x->off);
    int scan = k == ZM_COLL_SCAN || k == ZM_COLL_EXSCAN;
    for (int q = 0; q < n; q++) {
        int from_q = q != me && (k == ZM_COLL_REDUCE ? me == a->root : scan ? q < me : 1);
        if (from_q && !x->in && !(x->in = aligned_alloc(ZM_CACHE_LINE, x->span * (size_t)n)))
            return -1;
        if (from_q)
            add(x, 0, q, x->in + (size_t)q * x->span + x->off, x->rlen, a->edt);
    }
    for (int q = 0; q < n; q++) {
        int to_q = q != me && (k == ZM_COLL_REDUCE ? q == a->root : scan ? q > me : 1);
        if (!to_q)
            continue;
        if (k == ZM_COLL_REDUCE_SCATTER || k == ZM_COLL_REDUCE_SCATTER_BLOCK) {
            size_t len, lo = rs_block(a, q, n, &len);
            add(x, 1, q, elem(a->rin, a->edt, lo), len, a->edt);
        } else {
            add(x, 1, q, a->rin, a->rm, a->edt);
        }
    }
    return 0;
}

/* ---- Data movement ------------------------------------------------------ */

static void plan_rooted(coll_nsched_t *x)
{
    zm_coll_args_t *a = &x->a;
    int me = x->me, n = x->n, root = a->root;
    switch (a->kind) {
    /* A rank receives "from the root" from whichever rank sends: in a
     * correct call only the root does, and a rank that takes another rank
     * for the root then gets the root's message, whose signature says so,
     * instead of waiting for a message that never comes. */
    case ZM_COLL_BCAST:
        if (me != root)
            add(x, 0, ZM_ANY_SOURCE, a->rbuf, a->rcount, a->rdt);
        for (int q = 0; q < n && me == root; q++)
            if (q != me)
                add(x, 1, q, a->src, a->src_count, a->src_dt);
        return;
    case ZM_COLL_GATHER:
    case ZM_COLL_GATHERV: {
        int v = a->kind == ZM_COLL_GATHERV;
        for (int q = 0; q < n && me == root; q++) {
            size_t at, cnt = block_of(a, v, a->rcounts, a->rdispls, a->rcount, q, &at);
            if (q != me)
                add(x, 0, q, elem(a->rbuf, a->rdt, at), cnt, a->rdt);
        }
        if (me != root)
            add(x, 1, root, a->src, a->src_count, a->src_dt);
        return;
    }
    default: { /* Scatter(v) */
        int v = a->kind == ZM_COLL_SCATTERV;
        if (me != root)
            add(x, 0, ZM_ANY_SOURCE, a->rbuf, a->rcount, a->rdt);
        for (int q = 0; q < n && me == root; q++) {
            size_t at, cnt = block_of(a, v, a->scounts, a->sdispls, a->scount, q, &at);
            if (q != me)
                add(x, 1, q, elem(a->src, a->sdt, at), cnt, a->sdt);
        }
    }
    }
}

/* Rank q's block of an Alltoall(v/w) buffer: the send side (sending)
 * or the receive side. */
static void a2a_block(const zm_coll_args_t *a, int q, int sending, void **buf, size_t *count,
                      const zm_dt_t **dt)
{
    if (a->kind == ZM_COLL_ALLTOALL) {
        *dt = sending ? a->sdt : a->rdt;
        *count = sending ? a->scount : a->rcount;
        *buf = elem(sending ? a->src : a->rbuf, *dt, *count * (size_t)q);
    } else if (a->kind == ZM_COLL_ALLTOALLV) {
        *dt = sending ? a->sdt : a->rdt;
        *count = (size_t)zm_coll_at(a, sending ? a->scounts : a->rcounts, (size_t)q);
        *buf = elem(sending ? a->src : a->rbuf, *dt,
                    (size_t)zm_coll_at(a, sending ? a->sdispls : a->rdispls, (size_t)q));
    } else {
        *dt = (sending ? a->sdts : a->rdts)[q];
        *count = (size_t)zm_coll_at(a, sending ? a->scounts : a->rcounts, (size_t)q);
        *buf = (char *)(sending ? a->src : a->rbuf) +
               zm_coll_at(a, sending ? a->sdispls : a->rdispls, (size_t)q);
    }
}

static void plan_all(coll_nsched_t *x)
{
    zm_coll_args_t *a = &x->a;
    int me = x->me, n = x->n;
    if (a->kind == ZM_COLL_BARRIER) {
        for (int q = 0; q < n; q++)
            if (q != me)
                add(x, 0, q, NULL, 0, NULL);
        for (int q = 0; q < n; q++)
            if (q != me)
                add(x, 1, q, NULL, 0, NULL);
        return;
    }
    if (a->kind == ZM_COLL_ALLGATHER || a->kind == ZM_COLL_ALLGATHERV) {
        int v = a->kind == ZM_COLL_ALLGATHERV;
        for (int q = 0; q < n; q++) {
            size_t at, cnt = block_of(a, v, a->rcounts, a->rdispls, a->rcount, q, &at);
            if (q != me)
                add(x, 0, q, elem(a->rbuf, a->rdt, at), cnt, a->rdt);
        }
        for (int q = 0; q < n; q++)
            if (q != me)
                add(x, 1, q, a->src, a->src_count, a->src_dt);
        return;
    }
    /* Alltoall(v/w): start with the next rank so that not every rank
     * sends to rank 0 first. */
    for (int i = 1; i < n; i++) {
        int q = (me + n - i) % n;
        void *b;
        size_t c;
        const zm_dt_t *t;
        a2a_block(a, q, 0, &b, &c, &t);
        add(x, 0, q, b, c, t);
    }
    for (int i = 1; i < n; i++) {
        int q = (me + i) % n;
        void *b;
        size_t c;
        const zm_dt_t *t;
        a2a_block(a, q, 1, &b, &c, &t);
        add(x, 1, q, b, c, t);
    }
}

/* Hold (1) or release (0) the operation and derived types of a. */
static void hold_args(const zm_coll_args_t *a, int n, int hold)
{
    const zm_dt_t *t[2] = { a->sdt, a->rdt };
    if (a->op)
        hold ? zm_op_retain(a->op) : zm_op_release(a->op);
    for (int i = 0; i < 2; i++)
        if (t[i] && t[i]->d)
            hold ? zm_dt_retain(t[i]) : zm_dt_release(t[i]);
    for (int i = 0; a->sdts && i < n; i++)
        if (a->sdts[i] && a->sdts[i]->d)
            hold ? zm_dt_retain(a->sdts[i]) : zm_dt_release(a->sdts[i]);
    for (int i = 0; a->rdts && i < n; i++)
        if (a->rdts[i] && a->rdts[i]->d)
            hold ? zm_dt_retain(a->rdts[i]) : zm_dt_release(a->rdts[i]);
}

/* Point the call's count, displacement and type arrays at copies of
 * their own.  A non-blocking collective reads them again when it
 * finishes, and some callers free them as soon as the call returns
 * (mpi4py 4.1.2's Iallgatherv does not keep its arrays alive until the
 * request completes); the system MPIs copy them, so zmpi does too.
 * Returns -1 when out of memory. */
static int own_arrays(coll_nsched_t *x)
{
    zm_coll_args_t *a = &x->a;
    size_t w = a->wide ? sizeof(int64_t) : sizeof(int), n = (size_t)x->n;
    const void **ca[4] = { (const void **)&a->scounts, (const void **)&a->sdispls,
                           (const void **)&a->rcounts, (const void **)&a->rdispls };
    const void **ta[2] = { (const void **)&a->sdts, (const void **)&a->rdts };
    size_t tw = sizeof(const zm_dt_t *), need = 0;
    for (int i = 0; i < 4; i++)
        need += *ca[i] ? n * w : 0;
    for (int i = 0; i < 2; i++)
        need += *ta[i] ? n * tw : 0;
    if (need == 0)
        return 0;
    /* Pointers first, then the counts: each part stays aligned. */
    char *p = x->arrays = malloc(need);
    if (!p)
        return -1;
    for (int i = 0; i < 2; i++)
        if (*ta[i]) {
            memcpy(p, *ta[i], n * tw);
            *ta[i] = p;
            p += n * tw;
        }
    for (int i = 0; i < 4; i++)
        if (*ca[i]) {
            memcpy(p, *ca[i], n * w);
            *ca[i] = p;
            p += n * w;
        }
    return 0;
}

/* Free the schedule, unless sends of a schedule ended by a mismatch are
 * still pending: then it stays (see zm_coll_nmsgs_free), temporaries and
 * held arguments included, since those sends may still read them. */
static void nsched_free(coll_nsched_t *x)
{
    if (x->ms.m && !zm_coll_nmsgs_free(&x->ms))
        return;
    if (x->hold)
        hold_args(&x->a, x->n, 0);
    free(x->arrays);
    free(x->in);
    free(x);
}

coll_nsched_t *zm_coll_nsched_start(zm_coll_shm_t *s, int me, const zm_coll_args_t *a,
                                    int tag, int hold, uint32_t hist, int blocking)
{
    int n = s->size;
    coll_nsched_t *x = calloc(1, sizeof(*x));
    if (!x)
        return NULL;
    x->a = *a;
    x->s = s;
    x->me = me;
    x->n = n;
    x->tag = tag;
    if (zm_coll_nmsgs_init(&x->ms, &s->nx->pc, tag, me, 2 * n) != 0 ||
        (is_reduction(a->kind) && plan_reduction(x) != 0) || (hold && own_arrays(x) != 0)) {
        nsched_free(x);
        return NULL;
    }
    x->hold = hold;
    if (hold)
        hold_args(&x->a, n, 1);
    if (a->kind == ZM_COLL_BCAST || a->kind == ZM_COLL_GATHER || a->kind == ZM_COLL_GATHERV ||
        a->kind == ZM_COLL_SCATTER || a->kind == ZM_COLL_SCATTERV)
        plan_rooted(x);
    else if (!is_reduction(a->kind))
        plan_all(x);
    zm_coll_sig_fill(&x->ms.sig, &x->a, 0, hist);
    x->ms.batch = blocking;
    if (zm_coll_nmsgs_post(&x->ms) != 0) {
        nsched_free(x);
        return NULL;
    }
    return x;
}

int zm_coll_nsched_done(const coll_nsched_t *x)
{
    return zm_coll_nmsgs_done(&x->ms);
}

zm_status_t zm_coll_nsched_wait(coll_nsched_t *x, char *err, size_t errlen)
{
    return zm_coll_nmsgs_wait(&x->ms, err, errlen);
}

zm_status_t zm_coll_nsched_poll(coll_nsched_t *x, int *done)
{
    return zm_coll_nmsgs_poll(&x->ms, done, NULL, 0);
}

/* ---- Finishing ---------------------------------------------------------- */

#define ERR(...) (err ? (void)snprintf(err, errlen, __VA_ARGS__) : (void)0)

/* This rank's own block, copied locally (sb and db bytes must agree). */
static zm_status_t own_copy(coll_nsched_t *x, void *d, size_t dc, const zm_dt_t *ddt,
                            const void *sp, size_t sc, const zm_dt_t *sdt, char *err,
                            size_t errlen)
{
    size_t sb = sdt ? zm_dt_bytes(sdt, sc) : 0, db = ddt ? zm_dt_bytes(ddt, dc) : 0;
    size_t b = sb < db ? sb : db;
    if (b)
        zm_dt_copy(d, dc, ddt, sp, sc, sdt, b);
    if (sb == db)
        return ZM_OK;
    ERR("rank %d sends %zu bytes to rank %d, which expects %zu", x->me, sb, x->me, db);
    return ZM_COLL_ERR_COUNT;
}

static zm_status_t finish_own(coll_nsched_t *x, char *err, size_t errlen)
{
    zm_coll_args_t *a = &x->a;
    int me = x->me;
    size_t at, cnt;
    switch (a->kind) {
    case ZM_COLL_GATHER:
    case ZM_COLL_GATHERV:
        if (me != a->root || !a->src)
            return ZM_OK;
        cnt = block_of(a, a->kind == ZM_COLL_GATHERV, a->rcounts, a->rdispls, a->rcount, me, &at);
        return own_copy(x, elem(a->rbuf, a->rdt, at), cnt, a->rdt, a->src, a->src_count,
                        a->src_dt, err, errlen);
    case ZM_COLL_SCATTER:
    case ZM_COLL_SCATTERV:
        if (me != a->root || a->rbuf == ZM_IN_PLACE)
            return ZM_OK;
        cnt = block_of(a, a->kind == ZM_COLL_SCATTERV, a->scounts, a->sdispls, a->scount, me, &at);
        return own_copy(x, a->rbuf, a->rcount, a->rdt, elem(a->src, a->sdt, at), cnt, a->sdt,
                        err, errlen);
    case ZM_COLL_ALLGATHER:
    case ZM_COLL_ALLGATHERV:
        if (a->sbuf == ZM_IN_PLACE)
            return ZM_OK;
        cnt = block_of(a, a->kind == ZM_COLL_ALLGATHERV, a->rcounts, a->rdispls, a->rcount, me, &at);
        return own_copy(x, elem(a->rbuf, a->rdt, at), cnt, a->rdt, a->src, a->src_count,
                        a->src_dt, err, errlen);
    case ZM_COLL_ALLTOALL:
    case ZM_COLL_ALLTOALLV:
    case ZM_COLL_ALLTOALLW: {
        void *sb, *db;
        size_t sc, dc;
        const zm_dt_t *sdt, *ddt;
        a2a_block(a, me, 1, &sb, &sc, &sdt);
        a2a_block(a, me, 0, &db, &dc, &ddt);
        return own_copy(x, db, dc, ddt, sb, sc, sdt, err, errlen);
    }
    default:
        return ZM_OK;
    }
}

/* Combine the inputs in algo.c's order and write this rank's result. */
static zm_status_t finish_reduction(coll_nsched_t *x)
{
    zm_coll_args_t *a = &x->a;
    int me = x->me, k = a->kind;
    size_t len = x->rlen, nb = len * (size_t)a->edt->extent;
    if ((k == ZM_COLL_REDUCE && me != a->root) || (k == ZM_COLL_EXSCAN && me == 0) || !a->rout)
        return ZM_OK;
    char *acc = aligned_alloc(ZM_CACHE_LINE, 2 * x->span), *tmp = acc ? acc + x->span : NULL;
    if (!acc)
        return ZM_ERR_NOMEM;
    acc += x->off;
    tmp += x->off;
    if (k == ZM_COLL_SCAN || k == ZM_COLL_EXSCAN) {
        int last = k == ZM_COLL_SCAN ? me : me - 1;
        memcpy(acc, input_of(x, 0), nb);
        for (int q = 1; q <= last; q++) {
            memcpy(tmp, input_of(x, q), nb);
            zm_op_apply(a->op, acc, tmp, len, a->edt); /* tmp = acc op in_q */
            char *t = acc;
            acc = tmp;
            tmp = t;
        }
    } else {
        memcpy(acc, input_of(x, x->n - 1), nb);
        for (int q = x->n - 2; q >= 0; q--)
            zm_op_apply(a->op, input_of(x, q), acc, len, a->edt);
    }
    zm_coll_put_elems(a->rout, acc, len, a->edt);
    free((acc < tmp ? acc : tmp) - x->off);
    return ZM_OK;
}

zm_status_t zm_coll_nsched_finish(coll_nsched_t *x, zm_status_t st, char *err, size_t errlen)
{
    if (st == ZM_OK)
        st = x->a.failed;
    if (st == ZM_OK)
        st = is_reduction(x->a.kind) ? finish_reduction(x) : finish_own(x, err, errlen);
    /* Derived types' results in element form go to the user's buffer, and
     * temporaries are freed (algo.c reads rank me's arguments at me). */
    zm_coll_view_t v = { (char *)&x->a - (size_t)x->me * sizeof(x->a), sizeof(x->a), x->n, 1 };
    if (st == ZM_OK)
        zm_coll_finish(&v, x->me);
    else if (zm_coll_nmsgs_done(&x->ms))
        free(x->a.tmp);
    nsched_free(x);
    return st;
}
