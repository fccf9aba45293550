/*
 * fast.c: the fast path of small blocking collectives (Barrier, Bcast,
 * Reduce, Allreduce, Allgather, Alltoall on communicators of up to
 * ZM_COLL_FAST_RANKS ranks).
 *
 * A rank's data already sits in the inline area of its ring entry
 * (prepare copied it there), right behind a small header with everything
 * the ranks must agree on.  The rank stamps the header and then waits
 * only for the ranks whose data it needs: nobody for a Bcast root or a
 * Reduce sender, the root for a Bcast receiver, everyone otherwise.  It
 * copies the data straight out of their areas, so it never waits for a
 * slower reader: the ring entry stays untouched until that reader has
 * moved on (zm_coll_begin's guard).  No counter is shared by all ranks,
 * no rank releases the others, and a small call costs one cache line per
 * rank read.
 *
 * A small Bcast, the commonest call, has a path of its own
 * (zm_coll_bcast_run): its header alone describes it (no record, no
 * argument block), and a receiver learns from the root's counter, which
 * it remembers, how many of the root's calls it may read.
 *
 * The ranks check each other with the headers only: in a correct program
 * they are equal.  When they are not, every rank that notices waits for
 * all and judges the full arguments like the slow path (zm_coll_check), so
 * they all report the same mismatch.  A rank that needs nobody's data
 * (the Bcast root) notices nothing and returns success, as with the slow
 * path's deferral.
 */
#include "coll/coll_impl.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#define FAST_MAX ZM_COLL_FAST_MAX

static inline const unsigned char *fdata(const coll_fhdr_t *h)
{
    return (const unsigned char *)h + ZM_COLL_HDR;
}

/* memcpy for the small sizes this path sees most, without a call: up to
 * 64 bytes as two overlapping blocks of 4, 8, 16 or 32 bytes (all loads
 * before the stores, so the blocks may overlap). */
#define SMALL_PAIR(T)                                                  \
    do {                                                               \
        T lo, hi;                                                      \
        memcpy(&lo, s, sizeof(T));                                     \
        memcpy(&hi, (const char *)s + n - sizeof(T), sizeof(T));       \
        memcpy(d, &lo, sizeof(T));                                     \
        memcpy((char *)d + n - sizeof(T), &hi, sizeof(T));             \
    } while (0)

typedef struct { uint64_t w[2]; } small16_t;
typedef struct { uint64_t w[4]; } small32_t;

static inline void small_copy(void *d, const void *s, size_t n)
{
    if (n >= 8 && n <= 16)
        SMALL_PAIR(uint64_t);
    else if (n >= 4 && n < 8)
        SMALL_PAIR(uint32_t);
    else if (n > 16 && n <= 32)
        SMALL_PAIR(small16_t);
    else if (n > 32 && n <= 64)
        SMALL_PAIR(small32_t);
    else if (n)
        memcpy(d, s, n);
}

/* Copy `bytes` bytes of (buf, count, dt) into the inline area and publish
 * them as this rank's data. */
static inline void fast_inline(zm_coll_args_t *a, const void *buf, size_t count,
                               const zm_dt_t *dt, size_t bytes)
{
    if (dt->contig)
        small_copy(a->inl_buf, buf, bytes);
    else if (bytes)
        zm_dt_copy(a->inl_buf, bytes, &zmpi_dt_MPI_BYTE, buf, count, dt, bytes);
    a->inl = 1;
    a->src = a->inl_buf;
    a->src_count = bytes;
    a->src_dt = &zmpi_dt_MPI_BYTE;
}

int zm_coll_fast_prepare(zm_coll_args_t *a, int me, int n)
{
    a->src = NULL;
    a->tmp = NULL;
    a->inl = 0;
    a->failed = ZM_OK;
    switch (a->kind) {
    case ZM_COLL_BARRIER:
        return 1;
    case ZM_COLL_ALLGATHER: {
        if (a->sbuf == ZM_IN_PLACE)
            return 0;
        size_t b = zm_dt_bytes(a->sdt, a->scount);
        if (b > a->inl_cap)
            return 0;
        fast_inline(a, a->sbuf, a->scount, a->sdt, b);
        return 1;
    }
    case ZM_COLL_ALLTOALL: {
        /* In place, the send count and type are garbage (MPI ignores
         * them): look at neither before knowing. */
        if (a->sbuf == ZM_IN_PLACE)
            return 0;
        size_t b = zm_dt_bytes(a->sdt, a->scount * (size_t)n);
        if (b > a->inl_cap)
            return 0;
        fast_inline(a, a->sbuf, a->scount * (size_t)n, a->sdt, b);
        return 1;
    }
    case ZM_COLL_REDUCE:
    case ZM_COLL_ALLREDUCE: {
        /* Predefined operations on predefined types: the element view is
         * the buffer itself. */
        const zm_dt_t *dt = a->rdt;
        size_t b = zm_dt_bytes(dt, a->rcount);
        if (a->op->id == ZM_OP_USER || !dt->contig || zm_dt_basic(dt) != dt ||
            b > zm_coll_red_inline(a->inl_cap, n))
            return 0;
        const void *in = a->sbuf == ZM_IN_PLACE ? a->rbuf : a->sbuf;
        small_copy(a->inl_buf, in, b);
        a->inl = 1;
        a->edt = dt;
        a->rm = a->rcount;
        a->rin = a->inl_buf;
        a->rout = a->kind == ZM_COLL_REDUCE && a->root != me ? NULL : a->rbuf;
        return 1;
    }
    default:
        return 0;
    }
}

int zm_coll_fast_sig(const zm_coll_shm_t *s, const zm_coll_args_t *a, coll_fhdr_t *h)
{
    /* Everything but the stamp, which readers may be polling. */
    memset((char *)h + sizeof(h->stamp), 0, ZM_COLL_HDR - sizeof(h->stamp));
    h->kind = (uint8_t)a->kind;
    h->root = a->root;
    if (s->size > zm_coll_fast_ranks(a->kind) || a->failed || s->inl_cap > FAST_MAX)
        return 0;
    /* The decision depends only on what all ranks of a correct program
     * agree on (the collective, the amount of data, the communicator
     * size), so either every rank takes the fast path or none. */
    switch (a->kind) {
    case ZM_COLL_BARRIER:
        break;
    /* A Bcast that fits has run zm_coll_bcast_run instead: any other
     * takes the slow path (default). */
    case ZM_COLL_ALLGATHER:
    case ZM_COLL_ALLTOALL: {
        if (!a->inl)
            return 0;
        size_t rb = zm_dt_bytes(a->rdt, a->rcount);
        /* Inline data is counted in bytes; Alltoall's holds every block. */
        size_t sb = a->src_count / (a->kind == ZM_COLL_ALLTOALL ? (size_t)s->size : 1);
        /* Larger receive blocks than any send block cannot match: keep
         * the value small enough for the header, the check reports it. */
        h->rbytes = (uint32_t)(rb > FAST_MAX ? FAST_MAX + 1 : rb);
        h->sbytes = (uint32_t)sb;
        break;
    }
    case ZM_COLL_REDUCE:
    case ZM_COLL_ALLREDUCE:
        if (!a->inl)
            return 0;
        h->rbytes = (uint32_t)a->rm;
        h->opid = a->op->id;
        h->opcomm = (uint8_t)a->op->commutative;
        h->ekind = (uint8_t)a->edt->kind;
        h->esize = (uint32_t)a->edt->size;
        break;
    default:
        return 0;
    }
    h->fast = 1;
    return 1;
}

/* Whether rank q's header agrees with ours: in a correct program every
 * field after the stamp is equal. */
static inline int hdr_match(const coll_fhdr_t *a, const coll_fhdr_t *q)
{
    const char *x = (const char *)a, *y = (const char *)q;
    uint32_t x4, y4;
    uint64_t x8[3], y8[3];
    memcpy(&x4, x + 4, 4);
    memcpy(&y4, y + 4, 4);
    memcpy(x8, x + 8, 24);
    memcpy(y8, y + 8, 24);
    return x4 == y4 && x8[0] == y8[0] && x8[1] == y8[1] && x8[2] == y8[2];
}

/* The arguments the full check reads, from a record. */
static void copy_rec(zm_coll_args_t *d, const coll_rec_t *r)
{
    d->kind = r->kind;
    d->root = r->root;
    d->failed = r->failed;
    d->sbuf = r->sbuf;
    d->scount = r->scount;
    d->rcount = r->rcount;
    d->src_count = r->src_count;
    d->rm = r->rm;
    d->sdt = r->sdt;
    d->rdt = r->rdt;
    d->src_dt = r->src_dt;
    d->edt = r->edt;
    d->op = r->op;
}

zm_status_t zm_coll_hist_error(int kind, int a, int b, char *err, size_t errlen)
{
    if (err)
        snprintf(err, errlen, "the collectives before this %s did not match: ranks %d and %d "
                 "called different collectives or passed different roots on this communicator",
                 zm_coll_name(kind), a, b);
    return ZM_COLL_ERR_KIND;
}

/* The first rank whose history differs from rank me's, or -1.  Every
 * rank has published collective k. */
static int hist_differs(const zm_coll_shm_t *s, int me, unsigned k)
{
    uint32_t mine = zm_coll_fhdr(s, me, k)->hist;
    for (int q = 0; q < s->size; q++)
        if (zm_coll_fhdr(s, q, k)->hist != mine)
            return q;
    return -1;
}

/* The ranks disagree: once every rank has published, judge all of them
 * the way the slow path does, so that every rank that notices reports the
 * same mismatch.  The arguments are read from copies taken while each
 * rank's entry still held collective k: a rank whose entry nobody reads in
 * the normal course may have moved on and rewritten it. */
static zm_status_t fast_mismatch(zm_coll_shm_t *s, int me, int kind, unsigned k, char *err,
                                 size_t errlen)
{
    int n = s->size, gone = -1;
    zm_coll_wait_all(s, me, k + 1);
    int other = hist_differs(s, me, k);
    if (other >= 0)
        return zm_coll_hist_error(kind, me, other, err, errlen);
    zm_coll_args_t *all = malloc(sizeof(*all) * (size_t)n);
    if (!all) {
        if (err)
            snprintf(err, errlen, "the ranks disagree on %s (out of memory for the details)",
                     zm_coll_name(kind));
        return ZM_COLL_ERR_COUNT;
    }
    memset(all, 0, sizeof(*all) * (size_t)n);
    int slow = -1;
    for (int q = 0; q < n; q++) {
        const coll_fhdr_t *hq = zm_coll_fhdr(s, q, k);
        const coll_rec_t *r = zm_coll_rec(s, q, k);
        if (!hq->fast) {
            /* A call on the slow path has a header but no record. */
            all[q].kind = hq->kind;
            all[q].root = hq->root;
            if (hq->kind == kind && (slow < 0 || q < slow))
                slow = q;
            continue;
        }
        if (hq->fast == ZM_COLL_FAST_HDR_ONLY) {
            /* A fast Bcast: what the check compares is its byte count. */
            all[q].kind = hq->kind;
            all[q].root = hq->root;
            all[q].rcount = hq->rbytes;
            all[q].rdt = &zmpi_dt_MPI_BYTE;
        } else {
            copy_rec(&all[q], r);
        }
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&hq->stamp, memory_order_relaxed) != k + 1)
            gone = q;
    }
    zm_coll_view_t v = { (char *)all, sizeof(*all), n, 0 };
    /* Same collective on the slow path: the amounts of data differ (the
     * path is chosen from them); the full check cannot tell more. */
    zm_status_t st = gone < 0 && slow < 0 ? zm_coll_check(&v, err, errlen) : ZM_OK;
    free(all);
    if (st == ZM_OK) {
        if (err && slow >= 0 && gone < 0)
            snprintf(err, errlen, "rank %d passed a different amount of data to %s than "
                     "rank %d", slow, zm_coll_name(kind), me);
        else if (err && gone >= 0)
            snprintf(err, errlen, "the ranks disagree on the arguments of %s (rank %d "
                     "already finished it)", zm_coll_name(kind), gone);
        else if (err)
            snprintf(err, errlen, "the ranks passed different amounts of data to %s",
                     zm_coll_name(kind));
        st = ZM_COLL_ERR_COUNT;
    }
    return st;
}

/* Wait for rank q's collective k and compare its header with ours. */
static inline int fast_peer(zm_coll_shm_t *s, int me, int q, unsigned k, const coll_fhdr_t *h)
{
    coll_fhdr_t *hq = zm_coll_fhdr(s, q, k);
    if (!zm_coll_reached(atomic_load_explicit(&hq->stamp, memory_order_acquire), k + 1))
        zm_coll_wait_seq(s, me, &hq->stamp, k + 1);
    return hdr_match(h, hq);
}

/* Copy `bytes` packed bytes into (d, dc, ddt). */
static inline void unpack(void *d, size_t dc, const zm_dt_t *ddt, const void *src, size_t bytes)
{
    if (!bytes)
        return;
    if (ddt->contig)
        small_copy(d, src, bytes);
    else
        zm_dt_copy(d, dc, ddt, src, bytes, &zmpi_dt_MPI_BYTE, bytes);
}

/* Reduce every rank's inline input, in rank order (the operand on the
 * left is always the lower rank), and write the result to our output. */
static void fast_reduce(zm_coll_shm_t *s, const zm_coll_args_t *a, unsigned k)
{
    /* Inline reduction inputs stay within the generic inline limit
     * (zm_coll_red_inline of the capped inl_cap). */
    unsigned char acc[ZM_COLL_INLINE_MAX] __attribute__((aligned(64)));
    size_t nb = a->rm * (size_t)a->edt->extent;
    int n = s->size;
    memcpy(acc, fdata(zm_coll_fhdr(s, n - 1, k)), nb);
    for (int q = n - 2; q >= 0; q--)
        zm_op_apply(a->op, fdata(zm_coll_fhdr(s, q, k)), acc, a->rm, a->edt);
    zm_coll_put_elems(a->rout, acc, a->rm, a->edt);
}

/* Rank me's share: copy what it receives out of the others' areas. */
static void fast_part(zm_coll_shm_t *s, int me, const zm_coll_args_t *a, const coll_fhdr_t *h,
                      unsigned k)
{
    int n = s->size;
    size_t rb = h->rbytes;
    switch (a->kind) {
    case ZM_COLL_ALLGATHER:
    case ZM_COLL_ALLTOALL:
        for (int i = 0; i < n; i++) {
            int q = (me + i) % n;
            if (q == me && a->kind == ZM_COLL_ALLGATHER && a->sbuf == ZM_IN_PLACE)
                continue;
            const unsigned char *src = fdata(zm_coll_fhdr(s, q, k));
            if (a->kind == ZM_COLL_ALLTOALL)
                src += rb * (size_t)me;
            unpack((char *)a->rbuf + (ptrdiff_t)(a->rcount * (size_t)q) * a->rdt->extent,
                   a->rcount, a->rdt, src, rb);
        }
        break;
    case ZM_COLL_REDUCE:
    case ZM_COLL_ALLREDUCE:
        if (a->rout)
            fast_reduce(s, a, k);
        break;
    }
}

/* A fast Bcast's header after the stamp, as the four words that hold
 * kind and fast, root and opid, esize and sbytes, rbytes and hist.  The
 * call writes them, and compares the root's with them, as whole words
 * from registers: reading back our own header, just written field by
 * field, would stall on every call (narrow stores are not forwarded to
 * wide loads). */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "header words are little-endian");
_Static_assert(offsetof(coll_fhdr_t, kind) == 4 && offsetof(coll_fhdr_t, fast) == 5 &&
               offsetof(coll_fhdr_t, root) == 8 && offsetof(coll_fhdr_t, esize) == 16 &&
               offsetof(coll_fhdr_t, rbytes) == 24 && sizeof(coll_fhdr_t) == ZM_COLL_HDR,
               "coll_fhdr_t layout");

typedef struct bcast_words {
    uint32_t w4;
    uint64_t w8, w16, w24;
} bcast_words_t;

static inline void words_put(coll_fhdr_t *h, const bcast_words_t *w)
{
    char *p = (char *)h;
    memcpy(p + 4, &w->w4, 4);
    memcpy(p + 8, &w->w8, 8);
    memcpy(p + 16, &w->w16, 8);
    memcpy(p + 24, &w->w24, 8);
}

static inline int words_match(const coll_fhdr_t *h, const bcast_words_t *w)
{
    const char *p = (const char *)h;
    uint32_t x4;
    uint64_t x8, x16, x24;
    memcpy(&x4, p + 4, 4);
    memcpy(&x8, p + 8, 8);
    memcpy(&x16, p + 16, 8);
    memcpy(&x24, p + 24, 8);
    return ((x4 ^ w->w4) | (x8 ^ w->w8) | (x16 ^ w->w16) | (x24 ^ w->w24)) == 0;
}

/* Wait until the root has published its collective k.  The receiver
 * looks at the root's pseq rather than at its ring entry, and remembers
 * what it saw: a root that runs ahead has published many calls at once,
 * and the receivers of another worker then read each entry once it is
 * complete, instead of polling the line the root is writing (every poll
 * took the line away from the root, which had to fetch it back).  Once
 * the root's pseq has reached k + 1 its entry k holds collective k until
 * we have started k + 1 (zm_coll_begin's guard). */
static __attribute__((noinline, cold)) void bcast_wait_look(zm_coll_shm_t *s, int me, int root,
                                                          unsigned k)
{
    coll_slot_t *sl = &s->slots[me];
    _Atomic uint32_t *p = &s->slots[root].pseq;
    uint32_t v = atomic_load_explicit(p, memory_order_acquire);
    if (!zm_coll_reached(v, k + 1)) {
        zm_coll_wait_seq(s, me, p, k + 1);
        v = atomic_load_explicit(p, memory_order_acquire);
    }
    sl->rseen_q = root;
    sl->rseen = v;
}

static inline void bcast_wait_root(zm_coll_shm_t *s, int me, int root, unsigned k)
{
    coll_slot_t *sl = &s->slots[me];
    /* The root is less than a ring ahead of us (its guard): a remembered
     * value further off is one from before the counters wrapped. */
    if (ZM_LIKELY(sl->rseen_q == root && sl->rseen - (k + 1) < s->ring))
        atomic_thread_fence(memory_order_acquire);
    else
        bcast_wait_look(s, me, root, k);
}

/* A Bcast that does not fit the fast path: the generic one. */
static __attribute__((noinline, cold)) zm_status_t bcast_slow(zm_coll_shm_t *s, int me, void *buf,
                                                              size_t count, const zm_dt_t *dt,
                                                              int root, char *err, size_t errlen)
{
    zm_coll_args_t a;
    zm_coll_args_clear(&a);
    a.kind = ZM_COLL_BCAST;
    a.root = root;
    a.rbuf = buf;
    a.rcount = count;
    a.rdt = dt;
    return zm_coll_run(s, me, &a, err, errlen);
}

/* The data copies of a Bcast with a non-contiguous type, out of line. */
static __attribute__((noinline)) void bcast_pack(void *inl, const void *buf, size_t count,
                                                 const zm_dt_t *dt, size_t b)
{
    if (b)
        zm_dt_copy(inl, b, &zmpi_dt_MPI_BYTE, buf, count, dt, b);
}

static __attribute__((noinline)) void bcast_unpack(void *buf, size_t count, const zm_dt_t *dt,
                                                   const void *src, size_t b)
{
    unpack(buf, count, dt, src, b);
}

/* The root's staging buffer for its staged Bcast number k of b bytes:
 * the next of its ZM_COLL_STAGES buffers, once every rank has started the
 * collective after the one that used it last (so nobody reads it any
 * more), grown if too small.  NULL if out of memory. */
static unsigned char *stage_take(zm_coll_shm_t *s, int me, unsigned k, size_t b)
{
    coll_slot_t *sl = &s->slots[me];
    unsigned j = sl->stage_next++ % ZM_COLL_STAGES;
    if (sl->stage[j]) {
        uint32_t want = sl->stage_k[j] + 2;
        if (!zm_coll_reached(sl->seen, want))
            zm_coll_wait_all(s, me, want);
    }
    sl->stage_k[j] = k;
    if (sl->stage_cap[j] < b) {
        size_t cap = (b + ZM_CACHE_LINE - 1) & ~(size_t)(ZM_CACHE_LINE - 1);
        free(sl->stage[j]);
        sl->stage[j] = aligned_alloc(ZM_CACHE_LINE, cap);
        sl->stage_cap[j] = sl->stage[j] ? cap : 0;
    }
    return sl->stage[j];
}

/*
 * A Bcast too large for the inline ring, on a communicator of
 * ZM_COLL_STAGE_RANKS ranks or more: the root copies its data once into a
 * staging buffer of its own and returns, as it does for small ones; every
 * receiver copies from that buffer (paper 001's one shared copy per
 * node).  The root publishes the buffer's address as the call's inline
 * data.  Nobody waits for anybody but the root, so the copies of
 * successive calls overlap instead of each call waiting for its slowest
 * receiver before the next can start.  A root out of memory publishes no
 * buffer, and every rank reports the failure.
 */
static zm_status_t bcast_staged(zm_coll_shm_t *s, int me, void *buf, size_t count,
                                const zm_dt_t *dt, int root, size_t b, coll_fhdr_t *h,
                                unsigned k, const bcast_words_t *w, char *err, size_t errlen)
{
    unsigned char *stage = NULL;
    if (me == root) {
        stage = stage_take(s, me, k, b);
        if (stage && dt->contig)
            memcpy(stage, buf, b);
        else if (stage)
            bcast_pack(stage, buf, count, dt, b);
        memcpy((unsigned char *)h + ZM_COLL_HDR, &stage, sizeof(stage));
    }
    words_put(h, w);
    zm_coll_publish(s, me, h, k + 1);
    if (me != root) {
        bcast_wait_root(s, me, root, k);
        coll_fhdr_t *hr = (coll_fhdr_t *)((char *)h + (ptrdiff_t)(root - me) *
                                          (ptrdiff_t)s->rank_bytes);
        if (ZM_UNLIKELY(!words_match(hr, w)))
            return fast_mismatch(s, me, ZM_COLL_BCAST, k, err, errlen);
        memcpy(&stage, fdata(hr), sizeof(stage));
        if (stage && dt->contig)
            memcpy(buf, stage, b);
        else if (stage)
            bcast_unpack(buf, count, dt, stage, b);
    }
    if (ZM_UNLIKELY(!stage)) {
        if (err)
            snprintf(err, errlen, "the root (rank %d) is out of memory for staging %zu "
                     "bytes", root, b);
        return ZM_ERR_NOMEM;
    }
    return ZM_OK;
}

zm_status_t zm_coll_bcast_run(zm_coll_shm_t *s, int me, void *buf, size_t count,
                              const zm_dt_t *dt, int root, char *err, size_t errlen)
{
    size_t b = zm_dt_bytes(dt, count);
    if (ZM_UNLIKELY(!zm_coll_fast_bcast_fits(s, b)))
        return bcast_slow(s, me, buf, count, dt, root, err, errlen);
    unsigned k;
    coll_fhdr_t *h = zm_coll_begin(s, me, &k);
    uint32_t hist = zm_coll_hist_step(&s->slots[me], ZM_COLL_BCAST, root);
    zm_p2p_self()->stats.coll_fast++; /* MPI_T: the rank's own line */
    bcast_words_t w = { ZM_COLL_BCAST | ZM_COLL_FAST_HDR_ONLY << 8, (uint32_t)root, 0,
                        (uint32_t)b | (uint64_t)hist << 32 };
    if (b >= s->bcast_lim)
        return bcast_staged(s, me, buf, count, dt, root, b, h, k, &w, err, errlen);
    if (me == root) {
        if (ZM_LIKELY(dt->contig))
            small_copy((unsigned char *)h + ZM_COLL_HDR, buf, b);
        else
            bcast_pack((unsigned char *)h + ZM_COLL_HDR, buf, count, dt, b);
    }
    words_put(h, &w);
    zm_coll_publish(s, me, h, k + 1);
    /* The root needs nobody; a receiver waits only for the root. */
    if (me == root)
        return ZM_OK;
    bcast_wait_root(s, me, root, k);
    /* The root's entry k: ours, in the root's ring of areas. */
    coll_fhdr_t *hr = (coll_fhdr_t *)((char *)h + (ptrdiff_t)(root - me) *
                                      (ptrdiff_t)s->rank_bytes);
    if (ZM_UNLIKELY(!words_match(hr, &w)))
        return fast_mismatch(s, me, ZM_COLL_BCAST, k, err, errlen);
    if (ZM_LIKELY(dt->contig))
        small_copy(buf, fdata(hr), b);
    else
        bcast_unpack(buf, count, dt, fdata(hr), b);
    return ZM_OK;
}

zm_status_t zm_coll_bcast_split(zm_coll_shm_t *s, int me, zm_coll_args_t *pa, coll_fhdr_t *h,
                                unsigned k, char *err, size_t errlen)
{
    /* Where no amount fits the fast Bcast, every rank is here. */
    if (!s->bcast_lim && !s->stage_lim)
        return ZM_OK;
    /* Every rank publishes its header for collective k before it waits
     * for anybody, on either path, so this wait ends; and no rank reuses
     * its entry k before we have started collective k + 1. */
    zm_coll_publish(s, me, h, k + 1);
    zm_coll_wait_all(s, me, k + 1);
    int fast = -1;
    for (int q = 0; q < s->size && fast < 0; q++) {
        const coll_fhdr_t *hq = zm_coll_fhdr(s, q, k);
        if (hq->fast == ZM_COLL_FAST_HDR_ONLY && hq->kind == ZM_COLL_BCAST)
            fast = q;
    }
    if (fast < 0)
        return ZM_OK;
    /* Every rank on the slow path saw the same headers and leaves here
     * too, so none waits for the others in the slow path's phase. */
    if (pa->tmp) {
        zm_coll_view_t v = { (char *)pa, 0, s->size, 0 };
        zm_coll_finish(&v, me);
    }
    int other = hist_differs(s, me, k);
    if (other >= 0)
        return zm_coll_hist_error(ZM_COLL_BCAST, me, other, err, errlen);
    if (err)
        snprintf(err, errlen, "rank %d passed a different amount of data to %s than rank %d",
                 fast, zm_coll_name(ZM_COLL_BCAST), me);
    return ZM_COLL_ERR_COUNT;
}

zm_status_t zm_coll_fast_run(zm_coll_shm_t *s, int me, zm_coll_args_t *pa, unsigned k,
                             char *err, size_t errlen)
{
    coll_fhdr_t *h = zm_coll_fhdr(s, me, k);
    zm_status_t st = ZM_OK;
    int root = pa->root, kind = pa->kind;
    zm_p2p_self()->stats.coll_fast++; /* MPI_T: the rank's own line */
    zm_coll_publish(s, me, h, k + 1);
    if (kind != ZM_COLL_REDUCE || me == root) {
        int ok = (kind != ZM_COLL_ALLGATHER && kind != ZM_COLL_ALLTOALL) ||
                 h->sbytes == h->rbytes;
        for (int i = 1; i < s->size; i++)
            ok &= fast_peer(s, me, (me + i) % s->size, k, h);
        /* Everyone has started collective k. */
        if (!zm_coll_reached(s->slots[me].seen, k + 1))
            s->slots[me].seen = k + 1;
        if (!ok)
            st = fast_mismatch(s, me, kind, k, err, errlen);
    }
    if (st == ZM_OK)
        fast_part(s, me, pa, h, k);
    /* A Reduce sender needs nobody, but it goes at most one Reduce ahead
     * of the root (as the slow path's deferral did): ULTs are not
     * preempted, and senders racing ahead into their computation delayed
     * the ranks queued behind them on their worker by milliseconds. */
    if (kind == ZM_COLL_REDUCE && me != root) {
        zm_coll_wait_seq(s, me, &s->slots[root].pseq, k);
        zm_ult_yield();
    }
    if (pa->tmp) {
        /* Nobody reads our arguments: a view of them alone. */
        zm_coll_view_t v = { (char *)pa, 0, s->size, 0 };
        zm_coll_finish(&v, me);
    }
    return st;
}
