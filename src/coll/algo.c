/*
 * algo.c: the collective algorithms, written as the part of the work that
 * belongs to one rank, over the arguments every rank published.
 *
 * Data moves with one copy from where it is to where it must go: a
 * receiver copies from the sender's buffer (Bcast, Scatter, Allgather,
 * Alltoall) or a sender into the root's buffer (Gather), with zm_dt_copy
 * so any layout works.  Small contributions are copied into the slot
 * (inline) so nobody reads the rank's buffer after the first phase.
 *
 * Reductions work on an "element view" of each rank's data: elements of
 * the predefined basic type for predefined operations (derived types are
 * first copied into that form), elements of the user's type for user
 * operations.  Large reductions are split into slices of elements; the
 * rank that owns a slice reduces it over all ranks' inputs, in rank order,
 * into a small accumulator and writes the result into every rank that
 * receives it.  Each result element is computed exactly once and the order
 * depends only on the number of ranks, so every rank gets the same bits,
 * run after run.  Small reductions are computed by each receiving rank
 * from the inline copies, in the same order.
 */
#include "coll/coll_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* A slice owner reduces at least this many bytes, so small reductions
 * use few ranks and do not scatter tiny writes over many cache lines
 * (1 KiB: 2 ranks share a 2-8 KiB Allreduce, 25-40% faster than with 4
 * KiB slices; 16 ranks measured the same). */
#define SLICE_MIN 1024

/* Accumulator size: slices are processed in chunks that stay in L1. */
#define CHUNK 2048

#define A(q) zm_coll_arg(v, (q))
#define ERR(...) (err ? (void)snprintf(err, errlen, __VA_ARGS__) : (void)0)

static const char *const kind_names[ZM_COLL_NKINDS] = {
    "MPI_Barrier", "MPI_Bcast", "MPI_Gather", "MPI_Gatherv", "MPI_Scatter",
    "MPI_Scatterv", "MPI_Allgather", "MPI_Allgatherv", "MPI_Alltoall",
    "MPI_Alltoallv", "MPI_Alltoallw", "MPI_Reduce", "MPI_Allreduce",
    "MPI_Reduce_scatter", "MPI_Reduce_scatter_block", "MPI_Scan", "MPI_Exscan"
};

const char *zm_coll_name(int kind)
{
    return kind >= 0 && kind < ZM_COLL_NKINDS ? kind_names[kind] : "a collective";
}

static int is_rooted(int k)
{
    return k == ZM_COLL_BCAST || k == ZM_COLL_GATHER || k == ZM_COLL_GATHERV ||
           k == ZM_COLL_SCATTER || k == ZM_COLL_SCATTERV || k == ZM_COLL_REDUCE;
}

static int is_reduction(int k)
{
    return k == ZM_COLL_REDUCE || k == ZM_COLL_ALLREDUCE || k == ZM_COLL_REDUCE_SCATTER ||
           k == ZM_COLL_REDUCE_SCATTER_BLOCK || k == ZM_COLL_SCAN || k == ZM_COLL_EXSCAN;
}

/* Address of element `i` of a buffer of type dt. */
static inline char *elem(const void *buf, const zm_dt_t *dt, size_t i)
{
    return (char *)buf + (ptrdiff_t)i * dt->extent;
}

/* Count of rank q's block in a buffer of per-rank blocks, and its first
 * element in *at: `count` each in rank order, or counts[q] at displs[q]
 * for the v collectives (v nonzero). */
static inline size_t block_of(int v, const zm_coll_args_t *a, const void *counts,
                              const void *displs, size_t count, int q, size_t *at)
{
    *at = v ? (size_t)zm_coll_at(a, displs, (size_t)q) : count * (size_t)q;
    return v ? (size_t)zm_coll_at(a, counts, (size_t)q) : count;
}

/* Copy `bytes` of data between two layouts, or nothing for zero bytes
 * (buffers may then be NULL). */
static inline void copy(void *d, size_t dc, const zm_dt_t *ddt, const void *s, size_t sc,
                        const zm_dt_t *sdt, size_t bytes)
{
    if (bytes)
        zm_dt_copy(d, dc, ddt, s, sc, sdt, bytes);
}

/* ---- prepare ------------------------------------------------------------ */

/* Publish (buf, count, dt) as this rank's data, inline when small. */
static void set_src(zm_coll_args_t *a, const void *buf, size_t count, const zm_dt_t *dt,
                    int nbc)
{
    size_t bytes = zm_dt_bytes(dt, count);
    if (!nbc && bytes <= a->inl_cap) {
        if (dt->contig && bytes)
            memcpy(a->inl_buf, buf, bytes);
        else
            copy(a->inl_buf, bytes, &zmpi_dt_MPI_BYTE, buf, count, dt, bytes);
        a->inl = 1;
        a->src = a->inl_buf;
        a->src_count = bytes;
        a->src_dt = &zmpi_dt_MPI_BYTE;
        return;
    }
    a->src = buf;
    a->src_count = count;
    a->src_dt = dt;
}

/* Bytes spanned by the blocks of a receive buffer (in-place Alltoall*). */
static size_t recv_span(const zm_coll_args_t *a, int n)
{
    size_t span = 0;
    for (int q = 0; q < n; q++) {
        size_t end;
        if (a->kind == ZM_COLL_ALLTOALL)
            end = (size_t)(q + 1) * a->rcount * (size_t)a->rdt->extent;
        else if (a->kind == ZM_COLL_ALLTOALLV)
            end = ((size_t)zm_coll_at(a, a->rdispls, (size_t)q) + (size_t)zm_coll_at(a, a->rcounts, (size_t)q)) * (size_t)a->rdt->extent;
        else
            end = (size_t)zm_coll_at(a, a->rdispls, (size_t)q) + (size_t)zm_coll_at(a, a->rcounts, (size_t)q) * (size_t)a->rdts[q]->extent;
        if (a->rcounts && zm_coll_at(a, a->rcounts, (size_t)q) == 0)
            end = 0;
        if (end > span)
            span = end;
    }
    return span;
}

/* In-place Alltoall*: the data to send is the receive buffer, which this
 * rank overwrites while others read it, so they read a copy. */
static zm_status_t prepare_alltoall(zm_coll_args_t *a, int n, int nbc)
{
    if (a->kind == ZM_COLL_ALLTOALL && !nbc) {
        /* Small: all blocks go inline (which also takes care of in place). */
        int ip = a->sbuf == ZM_IN_PLACE;
        size_t cnt = (ip ? a->rcount : a->scount) * (size_t)n;
        const zm_dt_t *dt = ip ? a->rdt : a->sdt;
        if (zm_dt_bytes(dt, cnt) <= a->inl_cap) {
            if (ip) {
                a->scount = a->rcount;
                a->sdt = a->rdt;
            }
            set_src(a, ip ? a->rbuf : a->sbuf, cnt, dt, 0);
            return ZM_OK;
        }
    }
    if (a->sbuf != ZM_IN_PLACE) {
        a->src = a->sbuf;
        return ZM_OK;
    }
    size_t span = recv_span(a, n);
    a->tmp = malloc(span ? span : 1);
    if (!a->tmp)
        return ZM_ERR_NOMEM;
    memcpy(a->tmp, a->rbuf, span);
    a->src = a->tmp;
    a->scount = a->rcount;
    a->sdt = a->rdt;
    a->scounts = a->rcounts;
    a->sdispls = a->rdispls;
    a->sdts = a->rdts;
    return ZM_OK;
}

/* Elements of the user's type that a reduction's input holds. */
static size_t red_count(const zm_coll_args_t *a, int n)
{
    if (a->kind == ZM_COLL_REDUCE_SCATTER_BLOCK)
        return a->rcount * (size_t)n;
    if (a->kind == ZM_COLL_REDUCE_SCATTER) {
        size_t t = 0;
        for (int q = 0; q < n; q++)
            t += (size_t)zm_coll_at(a, a->rcounts, (size_t)q);
        return t;
    }
    return a->rcount;
}

/* First element (in the user's type) of rank q's block of a
 * Reduce_scatter, and its length. */
static size_t rs_block(const zm_coll_args_t *a, int q, size_t *len)
{
    if (a->kind == ZM_COLL_REDUCE_SCATTER_BLOCK) {
        *len = a->rcount;
        return a->rcount * (size_t)q;
    }
    size_t d = 0;
    for (int i = 0; i < q; i++)
        d += (size_t)zm_coll_at(a, a->rcounts, (size_t)i);
    *len = (size_t)zm_coll_at(a, a->rcounts, (size_t)q);
    return d;
}

static zm_status_t prepare_reduction(zm_coll_args_t *a, int me, int n, int nbc)
{
    const zm_dt_t *dt = a->rdt;
    const void *in = a->sbuf == ZM_IN_PLACE ? a->rbuf : a->sbuf;
    size_t tc = red_count(a, n), bytes = zm_dt_bytes(dt, tc);
    int rs = a->kind == ZM_COLL_REDUCE_SCATTER || a->kind == ZM_COLL_REDUCE_SCATTER_BLOCK;
    int user = a->op->id == ZM_OP_USER;
    const zm_dt_t *edt = user ? dt : zm_dt_basic(dt);
    size_t f = user ? 1 : dt->size / edt->size; /* view elements per user element */
    a->edt = edt;
    a->rm = tc * f;
    a->rin = in;
    a->rout = a->kind == ZM_COLL_REDUCE && a->root != me ? NULL : a->rbuf;
    size_t vbytes = a->rm * (size_t)edt->extent;
    if (edt != dt || (rs && a->sbuf == ZM_IN_PLACE)) {
        /* Derived type: reduce a copy in element form, written back at the
         * end.  In-place Reduce_scatter: a copy too, since this rank's
         * result overwrites input that other slices still read. */
        a->tmp = malloc(vbytes ? vbytes : 1);
        if (!a->tmp)
            return ZM_ERR_NOMEM;
        if (edt != dt)
            copy(a->tmp, a->rm, edt, in, tc, dt, bytes);
        else
            memcpy(a->tmp, in, vbytes);
        a->rin = a->tmp;
        if (edt != dt && a->rout) {
            size_t len, first = rs ? rs_block(a, me, &len) : 0;
            a->rout = elem(a->tmp, edt, first * f);
        }
    }
    if (!nbc && vbytes <= zm_coll_red_inline(a->inl_cap, n)) {
        memcpy(a->inl_buf, a->rin, vbytes);
        a->rin = a->inl_buf;
        a->inl = 1;
    }
    return ZM_OK;
}

zm_status_t zm_coll_prepare(zm_coll_args_t *a, int me, int n, int nbc)
{
    a->src = NULL;
    a->tmp = NULL;
    a->inl = 0;
    a->failed = ZM_OK;
    switch (a->kind) {
    case ZM_COLL_BCAST:
        if (a->root == me)
            set_src(a, a->rbuf, a->rcount, a->rdt, nbc);
        return ZM_OK;
    case ZM_COLL_GATHER:
    case ZM_COLL_GATHERV:
        if (a->sbuf != ZM_IN_PLACE)
            set_src(a, a->sbuf, a->scount, a->sdt, nbc || a->root == me);
        return ZM_OK;
    case ZM_COLL_SCATTER:
    case ZM_COLL_SCATTERV:
        a->src = a->sbuf;
        return ZM_OK;
    case ZM_COLL_ALLGATHER:
    case ZM_COLL_ALLGATHERV:
        if (a->sbuf != ZM_IN_PLACE) {
            set_src(a, a->sbuf, a->scount, a->sdt, nbc);
        } else {
            int v = a->kind == ZM_COLL_ALLGATHERV;
            size_t at, cnt = block_of(v, a, a->rcounts, a->rdispls, a->rcount, me, &at);
            set_src(a, elem(a->rbuf, a->rdt, at), cnt, a->rdt, nbc);
        }
        return ZM_OK;
    case ZM_COLL_ALLTOALL:
    case ZM_COLL_ALLTOALLV:
    case ZM_COLL_ALLTOALLW:
        return prepare_alltoall(a, n, nbc);
    default:
        return is_reduction(a->kind) ? prepare_reduction(a, me, n, nbc) : ZM_OK;
    }
}

/* ---- check -------------------------------------------------------------- */

/* Bytes rank q contributes to a rooted or all-to-all collective. */
static size_t sbytes(const zm_coll_args_t *a)
{
    return zm_dt_bytes(a->sdt, a->scount);
}

static size_t rbytes(const zm_coll_args_t *a)
{
    return zm_dt_bytes(a->rdt, a->rcount);
}

/* Compare rank q's data amounts with the reference rank's (the root, or
 * rank 0).  Returns 0 and writes a message on a mismatch. */
static int check_counts(const zm_coll_view_t *v, int q, const zm_coll_args_t *ref, char *err,
                        size_t errlen)
{
    const zm_coll_args_t *a = A(q);
    size_t mine = 0, want = 0;
    const char *what = "";
    int root = ref->root;
    switch (a->kind) {
    case ZM_COLL_BCAST:
        mine = rbytes(a), want = rbytes(ref), what = "count";
        break;
    case ZM_COLL_GATHER:
    case ZM_COLL_GATHERV:
        if (q == root && a->sbuf == ZM_IN_PLACE)
            return 1;
        mine = sbytes(a), what = "sendcount";
        want = a->kind == ZM_COLL_GATHER ? rbytes(ref)
                                         : zm_dt_bytes(ref->rdt, (size_t)zm_coll_at(ref, ref->rcounts, (size_t)q));
        break;
    case ZM_COLL_SCATTER:
    case ZM_COLL_SCATTERV:
        if (q == root && a->rbuf == ZM_IN_PLACE)
            return 1;
        mine = rbytes(a), what = "recvcount";
        want = a->kind == ZM_COLL_SCATTER ? sbytes(ref)
                                          : zm_dt_bytes(ref->sdt, (size_t)zm_coll_at(ref, ref->scounts, (size_t)q));
        break;
    case ZM_COLL_ALLGATHER:
    case ZM_COLL_ALLTOALL:
        /* In place, the send side is the receive block (prepare). */
        mine = a->kind == ZM_COLL_ALLTOALL ? sbytes(a) : zm_dt_bytes(a->src_dt, a->src_count);
        want = rbytes(ref), what = "sendcount";
        if (mine == want)
            mine = rbytes(a), what = "recvcount";
        break;
    case ZM_COLL_ALLGATHERV:
        mine = zm_dt_bytes(a->src_dt, a->src_count), what = "sendcount";
        want = zm_dt_bytes(ref->rdt, (size_t)zm_coll_at(ref, ref->rcounts, (size_t)q));
        break;
    default:
        if (!is_reduction(a->kind))
            return 1;
        mine = a->rm, want = ref->rm, what = "count";
        if (mine == want && a->edt != ref->edt && (a->edt->kind != ref->edt->kind ||
                                                   a->edt->size != ref->edt->size)) {
            ERR("rank %d passed datatype %s but the %s passed %s", q, a->edt->name,
                is_rooted(a->kind) ? "root" : "rank 0", ref->edt->name);
            return 0;
        }
        break;
    }
    if (mine == want)
        return 1;
    ERR("rank %d's %s gives %zu %s but the %s expects %zu", q, what,
        mine, is_reduction(a->kind) ? "elements" : "bytes",
        is_rooted(a->kind) ? "root" : "rank 0", want);
    return 0;
}

zm_status_t zm_coll_check(const zm_coll_view_t *v, char *err, size_t errlen)
{
    const zm_coll_args_t *a0 = A(0);
    for (int q = 0; q < v->n; q++) {
        const zm_coll_args_t *a = A(q);
        if (a->failed) {
            ERR("rank %d ran out of memory for a temporary buffer", q);
            return a->failed;
        }
        if (a->kind != a0->kind) {
            ERR("rank %d called %s while rank 0 called %s", q, zm_coll_name(a->kind),
                zm_coll_name(a0->kind));
            return ZM_COLL_ERR_KIND;
        }
        if (is_rooted(a->kind) && a->root != a0->root) {
            ERR("rank %d passed root=%d but rank 0 passed root=%d", q,
                a->root, a0->root);
            return ZM_COLL_ERR_ROOT;
        }
        /* Each rank creates its own user operation object, and with
         * privatized globals each rank's copy of the program has its own
         * copy of the function at another address (docs/privatization.md),
         * so two user operations cannot be told apart by their function;
         * they must at least agree on commutativity. */
        if (is_reduction(a->kind) && a->op != a0->op &&
            (a->op->id != a0->op->id ||
             (a->op->id == ZM_OP_USER && a->op->commutative != a0->op->commutative))) {
            ERR("rank %d passed op=%s%s but rank 0 passed op=%s%s", q, a->op->name,
                a->op->id == ZM_OP_USER && !a->op->commutative ? " (non-commutative)" : "",
                a0->op->name,
                a0->op->id == ZM_OP_USER && !a0->op->commutative ? " (non-commutative)" : "");
            return ZM_COLL_ERR_OP;
        }
    }
    if (a0->kind == ZM_COLL_BARRIER || a0->kind == ZM_COLL_ALLTOALLV ||
        a0->kind == ZM_COLL_ALLTOALLW)
        return ZM_OK; /* Alltoallv/w: each receiver checks what it copies */
    const zm_coll_args_t *ref = is_rooted(a0->kind) ? A(a0->root) : a0;
    for (int q = 0; q < v->n; q++)
        if (!check_counts(v, q, ref, err, errlen))
            return ZM_COLL_ERR_COUNT;
    return ZM_OK;
}

int zm_coll_sync(const zm_coll_view_t *v)
{
    const zm_coll_args_t *a0 = A(0);
    switch (a0->kind) {
    case ZM_COLL_BARRIER:
        return ZM_SYNC_NONE;
    case ZM_COLL_BCAST:
        return A(a0->root)->inl ? ZM_SYNC_NONE : ZM_SYNC_ROOT;
    case ZM_COLL_GATHER:
    case ZM_COLL_GATHERV:
    case ZM_COLL_SCATTER:
    case ZM_COLL_SCATTERV:
        return ZM_SYNC_ROOT;
    case ZM_COLL_ALLGATHER:
    case ZM_COLL_ALLGATHERV:
    case ZM_COLL_ALLTOALL:
        for (int q = 0; q < v->n; q++)
            if (!A(q)->inl)
                return ZM_SYNC_ALL;
        return ZM_SYNC_NONE;
    default:
        if (is_reduction(a0->kind) && a0->inl)
            return ZM_SYNC_NONE; /* inline decided by the size, equal on all ranks */
        return ZM_SYNC_ALL;
    }
}

/* ---- data movement parts ------------------------------------------------ */

/* Copy what q sends (src, bytes) into r's block: a mismatch in size is
 * reported (the copy takes what fits). */
static zm_status_t put(void *d, size_t dc, const zm_dt_t *ddt, const void *s, size_t sc,
                       const zm_dt_t *sdt, int from, int to, char *err, size_t errlen)
{
    size_t sb = zm_dt_bytes(sdt, sc), db = zm_dt_bytes(ddt, dc);
    copy(d, dc, ddt, s, sc, sdt, sb < db ? sb : db);
    if (sb == db)
        return ZM_OK;
    ERR("rank %d sends %zu bytes to rank %d, which expects %zu", from, sb, to, db);
    return ZM_COLL_ERR_COUNT;
}

static zm_status_t part_gather(const zm_coll_view_t *v, int r, char *err, size_t errlen)
{
    const zm_coll_args_t *rt = A(A(r)->root);
    int root = A(r)->root, gv = rt->kind == ZM_COLL_GATHERV;
    zm_status_t st = ZM_OK;
    for (int q = 0; q < v->n; q++) {
        const zm_coll_args_t *a = A(q);
        /* Non-roots write their own block unless it is inline; the root
         * copies its own and the inline ones.  No source: the root's
         * in-place block. */
        int by_me = q == r ? r == root || !a->inl : r == root && a->inl;
        if (!by_me || !a->src)
            continue;
        size_t at, cnt = block_of(gv, rt, rt->rcounts, rt->rdispls, rt->rcount, q, &at);
        zm_status_t s = put(elem(rt->rbuf, rt->rdt, at), cnt, rt->rdt, a->src, a->src_count,
                            a->src_dt, q, root, err, errlen);
        if (st == ZM_OK)
            st = s;
    }
    return st;
}

static zm_status_t part_scatter(const zm_coll_view_t *v, int r, char *err, size_t errlen)
{
    const zm_coll_args_t *a = A(r), *rt = A(a->root);
    if (r == a->root && a->rbuf == ZM_IN_PLACE)
        return ZM_OK;
    int sv = rt->kind == ZM_COLL_SCATTERV;
    size_t at, cnt = block_of(sv, rt, rt->scounts, rt->sdispls, rt->scount, r, &at);
    return put(a->rbuf, a->rcount, a->rdt, elem(rt->src, rt->sdt, at), cnt, rt->sdt,
               a->root, r, err, errlen);
}

static zm_status_t part_allgather(const zm_coll_view_t *v, int r, char *err, size_t errlen)
{
    const zm_coll_args_t *a = A(r);
    int agv = a->kind == ZM_COLL_ALLGATHERV;
    zm_status_t st = ZM_OK;
    /* Start with the next rank so readers spread over the sources. */
    for (int i = 0; i < v->n; i++) {
        int q = (r + i) % v->n;
        const zm_coll_args_t *s = A(q);
        if (q == r && a->sbuf == ZM_IN_PLACE)
            continue;
        size_t at, cnt = block_of(agv, a, a->rcounts, a->rdispls, a->rcount, q, &at);
        zm_status_t x = put(elem(a->rbuf, a->rdt, at), cnt, a->rdt, s->src, s->src_count,
                            s->src_dt, q, r, err, errlen);
        if (st == ZM_OK)
            st = x;
    }
    return st;
}

static zm_status_t part_alltoall(const zm_coll_view_t *v, int r, char *err, size_t errlen)
{
    const zm_coll_args_t *a = A(r);
    zm_status_t st = ZM_OK;
    for (int i = 0; i < v->n; i++) {
        int q = (r + i) % v->n;
        const zm_coll_args_t *s = A(q);
        const void *sp;
        void *dp;
        size_t sc, dc;
        const zm_dt_t *sdt = s->sdt, *ddt = a->rdt;
        if (a->kind == ZM_COLL_ALLTOALL && s->inl) {
            /* Only the bytes: the sender may have freed its type. */
            sc = s->src_count / (size_t)v->n, dc = a->rcount;
            sdt = s->src_dt;
            sp = (const char *)s->src + sc * (size_t)r;
            dp = elem(a->rbuf, ddt, dc * (size_t)q);
        } else if (a->kind == ZM_COLL_ALLTOALL) {
            sc = s->scount, dc = a->rcount;
            sp = elem(s->src, sdt, sc * (size_t)r);
            dp = elem(a->rbuf, ddt, dc * (size_t)q);
        } else if (a->kind == ZM_COLL_ALLTOALLV) {
            sc = (size_t)zm_coll_at(s, s->scounts, (size_t)r), dc = (size_t)zm_coll_at(a, a->rcounts, (size_t)q);
            sp = elem(s->src, sdt, (size_t)zm_coll_at(s, s->sdispls, (size_t)r));
            dp = elem(a->rbuf, ddt, (size_t)zm_coll_at(a, a->rdispls, (size_t)q));
        } else {
            sc = (size_t)zm_coll_at(s, s->scounts, (size_t)r), dc = (size_t)zm_coll_at(a, a->rcounts, (size_t)q);
            sdt = s->sdts[r], ddt = a->rdts[q];
            sp = (const char *)s->src + zm_coll_at(s, s->sdispls, (size_t)r);
            dp = (char *)a->rbuf + zm_coll_at(a, a->rdispls, (size_t)q);
        }
        zm_status_t x = put(dp, dc, ddt, sp, sc, sdt, q, r, err, errlen);
        if (st == ZM_OK)
            st = x;
    }
    return st;
}

/* ---- reductions --------------------------------------------------------- */

void zm_coll_put_elems(void *out, const void *from, size_t len, const zm_dt_t *edt)
{
    if (edt->contig)
        memcpy(out, from, len * (size_t)edt->extent);
    else
        copy(out, len, edt, from, len, edt, zm_dt_bytes(edt, len));
}

/* The reduction of one chunk: elements [lo, lo + len) of the view, with
 * two accumulators of `cap` bytes. */
typedef struct red_chunk {
    const zm_coll_view_t *v;
    const zm_op_t *op;
    const zm_dt_t *edt;
    size_t ext;
    char *acc, *tmp;
} red_chunk_t;

static inline const char *in_at(const red_chunk_t *c, int q, size_t e)
{
    return (const char *)zm_coll_arg(c->v, q)->rin + e * c->ext;
}

static inline void out_to(const red_chunk_t *c, int q, size_t e, const void *from, size_t len)
{
    void *o = zm_coll_arg(c->v, q)->rout;
    if (o)
        zm_coll_put_elems((char *)o + e * c->ext, from, len, c->edt);
}

/* acc = in_0 op in_1 op ... op in_{n-1} over [lo, lo+len), rank order:
 * the operand on the left is always the lower rank. */
static void reduce_all(const red_chunk_t *c, size_t lo, size_t len)
{
    int n = c->v->n;
    memcpy(c->acc, in_at(c, n - 1, lo), len * c->ext);
    for (int q = n - 2; q >= 0; q--)
        zm_op_apply(c->op, in_at(c, q, lo), c->acc, len, c->edt);
}

/* Reduce_scatter: write acc (elements [lo, lo+len)) to the ranks whose
 * blocks they fall in; only ranks in [olo, ohi]. */
static void rs_write(const red_chunk_t *c, size_t lo, size_t len, int olo, int ohi)
{
    const zm_coll_args_t *a0 = zm_coll_arg(c->v, olo);
    size_t f = a0->edt == a0->rdt ? 1 : a0->rdt->size / a0->edt->size;
    size_t hi = lo + len, bfirst = 0;
    for (int b = 0; b < c->v->n && bfirst < hi; b++) {
        size_t blen = f * (a0->kind == ZM_COLL_REDUCE_SCATTER_BLOCK ? a0->rcount
                                                                    : (size_t)zm_coll_at(a0, a0->rcounts, (size_t)b));
        size_t s = lo > bfirst ? lo : bfirst, e = hi < bfirst + blen ? hi : bfirst + blen;
        if (s < e && b >= olo && b <= ohi)
            out_to(c, b, s - bfirst, c->acc + (s - lo) * c->ext, e - s);
        bfirst += blen;
    }
}

/* Prefix results for ranks [olo, ohi] over [lo, lo+len): acc runs over
 * in_0 .. in_q (Scan) or in_0 .. in_{q-1} (Exscan). */
static void scan_chunk(red_chunk_t *c, size_t lo, size_t len, int olo, int ohi, int ex)
{
    size_t nb = len * c->ext;
    memcpy(c->acc, in_at(c, 0, lo), nb);
    if (!ex && olo == 0)
        out_to(c, 0, lo, c->acc, len);
    for (int q = 1; q <= ohi; q++) {
        /* The output may be rank q's input (in place): read it first. */
        memcpy(c->tmp, in_at(c, q, lo), nb);
        if (ex && q >= olo)
            out_to(c, q, lo, c->acc, len);
        zm_op_apply(c->op, c->acc, c->tmp, len, c->edt); /* tmp = acc op in_q */
        char *t = c->acc;
        c->acc = c->tmp;
        c->tmp = t;
        if (!ex && q >= olo)
            out_to(c, q, lo, c->acc, len);
    }
}

/* Results over elements [lo, hi) for output ranks [olo, ohi]. */
static void reduce_range(const zm_coll_view_t *v, size_t lo, size_t hi, int olo, int ohi)
{
    const zm_coll_args_t *a = A(olo);
    char stack_acc[CHUNK] __attribute__((aligned(64)));
    char stack_tmp[CHUNK] __attribute__((aligned(64)));
    red_chunk_t c = { v, a->op, a->edt, (size_t)a->edt->extent, stack_acc, stack_tmp };
    size_t step = CHUNK / c.ext;
    char *heap = NULL;
    if (step == 0) {
        /* Elements larger than the accumulator (big user types). */
        heap = malloc(2 * c.ext);
        if (!heap)
            abort(); /* no way to report it to the other ranks */
        c.acc = heap, c.tmp = heap + c.ext, step = 1;
    }
    for (size_t e = lo; e < hi; e += step) {
        size_t len = hi - e < step ? hi - e : step;
        char *acc0 = c.acc, *tmp0 = c.tmp;
        switch (a->kind) {
        case ZM_COLL_SCAN:
        case ZM_COLL_EXSCAN:
            scan_chunk(&c, e, len, olo, ohi, a->kind == ZM_COLL_EXSCAN);
            break;
        case ZM_COLL_REDUCE_SCATTER:
        case ZM_COLL_REDUCE_SCATTER_BLOCK:
            reduce_all(&c, e, len);
            rs_write(&c, e, len, olo, ohi);
            break;
        default: /* Reduce (only the root has an output) and Allreduce */
            reduce_all(&c, e, len);
            for (int q = olo; q <= ohi; q++)
                out_to(&c, q, e, c.acc, len);
        }
        c.acc = acc0, c.tmp = tmp0;
    }
    free(heap);
}

static zm_status_t part_reduction(const zm_coll_view_t *v, int r)
{
    const zm_coll_args_t *a = A(r);
    int n = v->n;
    if (a->inl) {
        /* Small: each rank computes its own result from the inline data. */
        size_t lo = 0, hi = a->rm;
        if (a->kind == ZM_COLL_REDUCE && r != a->root)
            return ZM_OK;
        if (a->kind == ZM_COLL_EXSCAN && r == 0)
            return ZM_OK;
        if (a->kind == ZM_COLL_REDUCE_SCATTER || a->kind == ZM_COLL_REDUCE_SCATTER_BLOCK) {
            size_t f = a->edt == a->rdt ? 1 : a->rdt->size / a->edt->size, len;
            lo = rs_block(a, r, &len) * f;
            hi = lo + len * f;
        }
        reduce_range(v, lo, hi, r, r);
        return ZM_OK;
    }
    /* Large: slices of at least SLICE_MIN bytes, owned by ranks spread
     * evenly over the communicator (and so over the workers). */
    size_t total = a->rm * (size_t)a->edt->extent;
    size_t nsl = total / SLICE_MIN;
    if (nsl > (size_t)n)
        nsl = (size_t)n;
    if (nsl == 0)
        nsl = 1;
    for (size_t j = 0; j < nsl; j++) {
        if ((int)(j * (size_t)n / nsl) != r)
            continue;
        reduce_range(v, a->rm * j / nsl, a->rm * (j + 1) / nsl, 0, n - 1);
    }
    return ZM_OK;
}

zm_status_t zm_coll_part(const zm_coll_view_t *v, int r, char *err, size_t errlen)
{
    const zm_coll_args_t *a = A(r);
    switch (a->kind) {
    case ZM_COLL_BARRIER:
        return ZM_OK;
    case ZM_COLL_BCAST:
        if (r == a->root)
            return ZM_OK;
        return put(a->rbuf, a->rcount, a->rdt, A(a->root)->src, A(a->root)->src_count,
                   A(a->root)->src_dt, a->root, r, err, errlen);
    case ZM_COLL_GATHER:
    case ZM_COLL_GATHERV:
        return part_gather(v, r, err, errlen);
    case ZM_COLL_SCATTER:
    case ZM_COLL_SCATTERV:
        return part_scatter(v, r, err, errlen);
    case ZM_COLL_ALLGATHER:
    case ZM_COLL_ALLGATHERV:
        return part_allgather(v, r, err, errlen);
    case ZM_COLL_ALLTOALL:
    case ZM_COLL_ALLTOALLV:
    case ZM_COLL_ALLTOALLW:
        return part_alltoall(v, r, err, errlen);
    default:
        return part_reduction(v, r);
    }
}

void zm_coll_finish(const zm_coll_view_t *v, int r)
{
    zm_coll_args_t *a = A(r);
    if (is_reduction(a->kind) && a->tmp && a->edt != a->rdt && a->rout &&
        !(a->kind == ZM_COLL_EXSCAN && r == 0)) {
        /* Derived type: the result is in element form in tmp. */
        int rs = a->kind == ZM_COLL_REDUCE_SCATTER ||
                 a->kind == ZM_COLL_REDUCE_SCATTER_BLOCK;
        size_t len = a->rcount;
        if (rs)
            rs_block(a, r, &len);
        size_t f = a->rdt->size / a->edt->size;
        copy(a->rbuf, len, a->rdt, a->rout, len * f, a->edt, zm_dt_bytes(a->rdt, len));
    }
    free(a->tmp);
    a->tmp = NULL;
}
