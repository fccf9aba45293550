/*
 * dt_copy.c: the copy engine.
 *
 * A copy walks the layouts of both sides at once with one iterator each.
 * An iterator is a stack of frames, one per layout level, whose top frame
 * is a leaf: `count` runs of `len` bytes, `stride` apart.  The engine
 * copies leaf against leaf in bulk: when both sides are at the start of
 * runs of the same length it copies as many runs as both leaves still hold
 * in one tight two-level loop; when one side is in the middle of a run long
 * enough to hold several runs of the other side, it treats that stretch as
 * runs of the other side's length with no gap.  Only what is left (runs of
 * different lengths that do not nest) goes piece by piece.  No buffer is
 * ever allocated: nothing is packed unless the caller asked for packing.
 */
#include "dt/dt.h"
#include "arch/arch.h"

#include <string.h>

/* One level of an iterator: node n at origin org, at child/run index i. */
typedef struct frame {
    const zm_dt_node_t *n;  /* node of this level */
    char *org;              /* its origin address */
    size_t i;               /* current run, iteration or entry */
} frame_t;

typedef struct iter {
    zm_dt_node_t top;        /* the `count` elements as one node */
    zm_dt_node_t line;       /* a contiguous buffer as one run */
    int sp;                  /* index of the leaf frame */
    int stream;              /* written with streaming stores (big packs) */
    size_t roff;             /* bytes of the current run already done */
    frame_t f[ZM_DT_MAX_DEPTH + 1];
} iter_t;

/* Index of the repetition of `len` bytes that holds byte off.  Most seeks
 * start at byte 0 (it_next_run enters every new iteration at its start),
 * and a 64-bit division costs tens of cycles: half the time of a seek
 * when every seek divided (stencil faces of 8-byte runs, 5^3 grid). */
static inline size_t seek_index(size_t off, size_t len)
{
    return off < len ? 0 : off / len;
}

/* Set frames from level d down to the leaf that holds byte `off` of node
 * n placed at base. */
static void it_seek(iter_t *it, int d, const zm_dt_node_t *n, char *base, size_t off)
{
    for (;; d++) {
        char *org = base + n->off;
        frame_t *f = &it->f[d];
        f->n = n;
        f->org = org;
        if (n->kind == ZM_DT_RUN) {
            size_t i = seek_index(off, n->len);
            f->i = i;
            it->roff = off - i * n->len;
            it->sp = d;
            return;
        }
        if (n->kind == ZM_DT_LOOP) {
            size_t i = seek_index(off, n->len);
            f->i = i;
            off -= i * n->len;
            base = org + (ptrdiff_t)i * n->stride;
            n = n->child;
            continue;
        }
        /* LIST: the last entry that starts at or before off. */
        size_t lo = 0, hi = n->count;
        while (hi - lo > 1) {
            size_t mid = (lo + hi) / 2;
            if (n->ent[mid].start <= off)
                lo = mid;
            else
                hi = mid;
        }
        f->i = lo;
        off -= n->ent[lo].start;
        base = org + n->ent[lo].disp;
        n = n->ent[lo].node;
    }
}

/* The current run is done: move to the next one, popping finished levels.
 * Past the end of the data the leaf frame index is -1. */
static void it_next_run(iter_t *it)
{
    int d = it->sp;
    it->roff = 0;
    if (++it->f[d].i < it->f[d].n->count)
        return;
    while (--d >= 0) {
        frame_t *p = &it->f[d];
        const zm_dt_node_t *n = p->n;
        if (++p->i >= n->count)
            continue;
        if (n->kind == ZM_DT_LOOP)
            it_seek(it, d + 1, n->child, p->org + (ptrdiff_t)p->i * n->stride, 0);
        else
            it_seek(it, d + 1, n->ent[p->i].node, p->org + n->ent[p->i].disp, 0);
        return;
    }
    it->sp = -1;
}

/* Start an iterator at byte `off` of the data of (buf, count, dt).  The
 * `count` elements become one node, simplified the way the layout
 * compiler simplifies loops, so that a vector sent with count > 1 is
 * still a single leaf when its elements abut. */
static void it_init(iter_t *it, const void *buf, size_t count, const zm_dt_t *dt, size_t off)
{
    const zm_dt_node_t *r = dt->layout->root;
    const zm_dt_node_t *top = r;
    if (dt->contig) {
        it->line = (zm_dt_node_t){ .kind = ZM_DT_RUN, .count = 1, .len = dt->size * count,
                                   .stride = 0, .total = dt->size * count };
        top = &it->line;
    } else if (count > 1) {
        zm_dt_node_t *t = &it->top;
        if (r->kind == ZM_DT_RUN && r->count == 1 && dt->extent == (ptrdiff_t)r->len)
            *t = (zm_dt_node_t){ .kind = ZM_DT_RUN, .count = 1, .off = r->off,
                                 .len = r->len * count, .total = r->len * count };
        else if (r->kind == ZM_DT_RUN && dt->extent == (ptrdiff_t)r->count * r->stride)
            *t = (zm_dt_node_t){ .kind = ZM_DT_RUN, .count = r->count * count, .off = r->off,
                                 .stride = r->stride, .len = r->len,
                                 .total = r->total * count };
        else if (r->kind == ZM_DT_LOOP && dt->extent == (ptrdiff_t)r->count * r->stride)
            *t = (zm_dt_node_t){ .kind = ZM_DT_LOOP, .count = r->count * count, .off = r->off,
                                 .stride = r->stride, .len = r->len,
                                 .total = r->total * count, .child = r->child };
        else
            *t = (zm_dt_node_t){ .kind = ZM_DT_LOOP, .count = count, .stride = dt->extent,
                                 .len = r->total, .total = r->total * count, .child = r };
        top = t;
    }
    it->stream = 0;
    it_seek(it, 0, top, (char *)buf, off);
}

/* A contiguous buffer as an iterator. */
static void it_init_line(iter_t *it, const void *buf, size_t n)
{
    it->line = (zm_dt_node_t){ .kind = ZM_DT_RUN, .count = 1, .len = n, .total = n };
    it->f[0] = (frame_t){ &it->line, (char *)buf, 0 };
    it->sp = 0;
    it->roff = 0;
    it->stream = 0;
}

/* A pack or unpack of this many bytes or more writes its output with
 * streaming stores (copy_runs_to: runs of WIDE_MIN bytes and more, or of
 * whole aligned lines; zm_arch_copy_runs_stream streams only on CPUs with
 * 64-byte vectors): such an output cannot stay in the caches next to its
 * source, and ordinary stores would first read every output line from
 * memory.  Measured on Zen 5, 16 MiB of 256 B-16 KiB blocks: 0.67-0.77
 * of memcpy with ordinary stores (unpack of 128 B-2 KiB blocks 0.65-0.75,
 * 0.9-1.2 streamed). */
#define ZM_DT_STREAM_MIN ((size_t)8 << 20)

/* Runs of k > 1 from 64 bytes, and single runs from WIDE_MIN bytes, up to
 * WIDE_MAX go through zm_arch_copy_runs, whose moves are as wide as the
 * CPU's vectors: the x86-64 baseline this file is compiled for has 16-byte
 * vectors, and glibc's memcpy pays a call and a size dispatch per run.
 * Measured on an AMD Zen 5 packing a vector held in L2: 512 B-2 KiB blocks
 * 70-78 GB/s through memcpy, 100-107 GB/s through 64-byte moves; 128 B
 * blocks 72-78 GB/s through loops of 16-byte moves, 122-130 through
 * 64-byte ones (runs of 64 bytes alike either way: one move).  From
 * WIDE_MAX on, memcpy uses `rep movsb`, which is faster still there (4-16
 * KiB blocks 103-126 GB/s against 72-100). */
#define WIDE_MIN 256
#define WIDE_MAX 4096

/* Copy one run of n bytes.  Long runs are one memcpy call, except when the
 * destination sits 1 to ALIAS_NEAR - 1 bytes past the source modulo
 * 4 KiB: on some CPUs (measured on an earlier AMD EPYC host) the `rep
 * movsb` that memcpy uses for long copies then runs at a tenth of its
 * speed (4 KiB blocks of a vector packed at 2.8 GB/s against 28 GB/s),
 * and a pack meets that case for whole messages.  Those runs take the
 * vector loop, which has no such case. */
#define ALIAS_NEAR 256

static inline void copy_run(char *d, const char *s, size_t n)
{
    if (n < WIDE_MIN) {
        memcpy(d, s, n);
        return;
    }
    size_t past = ((uintptr_t)d - (uintptr_t)s) & 4095;
    if (n < WIDE_MAX || (past != 0 && past < ALIAS_NEAR)) {
        zm_arch_copy_runs(d, 0, s, 0, n, 1);
        return;
    }
    memcpy(d, s, n);
}

/* Copy k runs of L bytes, strides ds and ss apart.  A memcpy call per run
 * costs more than the copy itself for short runs, so runs under 64 bytes
 * get loops of fixed-size moves (constant-size memcpy, which the compiler
 * turns into plain vector loads and stores), one loop per length class,
 * with the branch outside the loop; runs up to WIDE_MAX take the widest
 * vector moves (zm_arch_copy_runs).  A run whose length is not a multiple
 * of the move width ends with one move that overlaps the previous one: it
 * rewrites a few bytes with the same values, which is harmless because
 * source and destination never overlap.  Longer runs go through copy_run. */
#define STRIDED_LOOP(BODY)                                           \
    do {                                                             \
        for (size_t j = 0; j < k; j++, d += ds, s += ss) {           \
            BODY;                                                    \
        }                                                            \
    } while (0)

/* Two moves of W bytes covering a run of L bytes, W <= L <= 2W. */
#define MOVE_PAIR(W)                                                 \
    STRIDED_LOOP(memcpy(d, s, W); memcpy(d + L - (W), s + L - (W), W))

/* One fixed-size move per run.  Runs of up to 8 bytes go four per
 * iteration: the loop's own pointer updates and branch cost more than the
 * move (Zen 5, vector of 8-byte blocks packed in L2 29-30 -> 44-45 GB/s, 1
 * MiB 29 -> 36-37; 2-rank ping-pong of such vectors 4-256 KiB 15-25 %
 * faster); from 16 bytes the loads and stores are the limit. */
#define CASE_FIXED(N)                                                \
    case N: {                                                        \
        size_t j = 0;                                                \
        for (; N <= 8 && j + 4 <= k; j += 4, d += 4 * ds, s += 4 * ss) { \
            memcpy(d, s, N);                                         \
            memcpy(d + ds, s + ss, N);                               \
            memcpy(d + 2 * ds, s + 2 * ss, N);                       \
            memcpy(d + 3 * ds, s + 3 * ss, N);                       \
        }                                                            \
        for (; j < k; j++, d += ds, s += ss)                         \
            memcpy(d, s, N);                                         \
        return;                                                      \
    }

static void copy_strided(char *d, ptrdiff_t ds, const char *s, ptrdiff_t ss, size_t L,
                         size_t k)
{
    /* Lengths of whole doubles (and a few smaller ones) are exact moves;
     * two overlapping moves measured slower for them. */
    switch (L) {
    CASE_FIXED(1)
    CASE_FIXED(2)
    CASE_FIXED(4)
    CASE_FIXED(8)
    CASE_FIXED(12)
    CASE_FIXED(16)
    CASE_FIXED(24)
    CASE_FIXED(32)
    CASE_FIXED(40)
    CASE_FIXED(48)
    CASE_FIXED(56)
    CASE_FIXED(64)
    default:
        break;
    }
    if (L < 4)
        MOVE_PAIR(2); /* 3 bytes */
    else if (L < 8)
        MOVE_PAIR(4);
    else if (L < 16)
        MOVE_PAIR(8);
    else if (L < 32)
        MOVE_PAIR(16);
    else if (L < 64)
        MOVE_PAIR(32);
    else if (L < WIDE_MAX)
        zm_arch_copy_runs(d, ds, s, ss, L, k);
    else
        STRIDED_LOOP(copy_run(d, s, L));
}

/* copy_strided into the destination iterator dst, with streaming stores
 * when dst asks for them and the runs are whole, aligned cache lines or
 * long enough (WIDE_MIN) that their partial end lines matter little. */
static inline void copy_runs_to(const iter_t *dst, char *d, ptrdiff_t ds, const char *s,
                                ptrdiff_t ss, size_t L, size_t k)
{
    if (ZM_UNLIKELY(dst->stream) &&
        (L >= WIDE_MIN || ((L | (size_t)ds | (uintptr_t)d) & 63) == 0))
        zm_arch_copy_runs_stream(d, ds, s, ss, L, k);
    else
        copy_strided(d, ds, s, ss, L, k);
}

static inline char *it_ptr(const iter_t *it)
{
    const frame_t *f = &it->f[it->sp];
    return f->org + (ptrdiff_t)f->i * f->n->stride + (ptrdiff_t)it->roff;
}

/* Advance by k whole runs from the start of the current run. */
static inline void it_skip_runs(iter_t *it, size_t k)
{
    it->f[it->sp].i += k - 1;
    it_next_run(it);
}

/* Advance by m bytes inside the current run. */
static inline void it_skip_bytes(iter_t *it, size_t m)
{
    it->roff += m;
    if (it->roff == it->f[it->sp].n->len)
        it_next_run(it);
}

static inline size_t min3(size_t a, size_t b, size_t c)
{
    size_t m = a < b ? a : b;
    return m < c ? m : c;
}

/* Bulk step when `a` is at a run start and `b` holds at least two of a's
 * runs contiguously from where it is: a's leaf against a stretch of b.
 * `a_is_dst` says which side is written.  Returns bytes copied (0 if the
 * step does not apply). */
static size_t step_line(iter_t *a, iter_t *b, size_t n, int a_is_dst)
{
    const frame_t *fa = &a->f[a->sp], *fb = &b->f[b->sp];
    size_t L = fa->n->len;
    size_t brem = fb->n->len - b->roff;
    if (a->roff != 0 || brem < 2 * L || n < 2 * L)
        return 0;
    size_t k = min3(fa->n->count - fa->i, brem / L, n / L);
    char *pa = it_ptr(a), *pb = it_ptr(b);
    if (a_is_dst)
        copy_runs_to(a, pa, fa->n->stride, pb, (ptrdiff_t)L, L, k);
    else
        copy_runs_to(b, pb, (ptrdiff_t)L, pa, fa->n->stride, L, k);
    it_skip_runs(a, k);
    it_skip_bytes(b, k * L);
    return k * L;
}

/* The loop frame right above the leaf of `it` if the leaf is its child
 * and stands at its first run, else NULL. */
static inline frame_t *it_loop_above(iter_t *it)
{
    if (it->sp < 1 || it->roff != 0 || it->f[it->sp].i != 0)
        return NULL;
    frame_t *p = &it->f[it->sp - 1];
    return p->n->kind == ZM_DT_LOOP ? p : NULL;
}

/* Bulk step over whole iterations of the loops right above both leaves,
 * when both leaves stand at their first run and have the same shape (a
 * 3D face of 8-byte elements, a column block): one strided copy per
 * iteration with no iterator steps in between, where going leaf by leaf
 * would pop to the loop and seek back down every time.  Returns bytes
 * copied (0 if the step does not apply). */
static size_t step_nest(iter_t *d, iter_t *s, size_t n)
{
    frame_t *pd = it_loop_above(d), *ps = it_loop_above(s);
    if (!pd || !ps)
        return 0;
    const zm_dt_node_t *ld = d->f[d->sp].n, *ls = s->f[s->sp].n;
    size_t L = ld->len, runs = ld->count, per = L * runs;
    if (ls->len != L || ls->count != runs || n < 2 * per)
        return 0;
    size_t m = min3(pd->n->count - pd->i, ps->n->count - ps->i, n / per);
    if (m < 2)
        return 0;
    char *pdst = it_ptr(d), *psrc = it_ptr(s);
    ptrdiff_t dstep = pd->n->stride, sstep = ps->n->stride;
    for (size_t j = 0; j < m; j++, pdst += dstep, psrc += sstep)
        copy_runs_to(d, pdst, ld->stride, psrc, ls->stride, L, runs);
    /* Stand on the last run of the last iteration taken, then step past. */
    pd->i += m - 1;
    ps->i += m - 1;
    it_skip_runs(d, runs);
    it_skip_runs(s, runs);
    return m * per;
}

/* Copy n bytes from s's position to d's position. */
static void copy_iters(iter_t *d, iter_t *s, size_t n)
{
    while (n) {
        const frame_t *fd = &d->f[d->sp], *fs = &s->f[s->sp];
        size_t dl = fd->n->len, sl = fs->n->len;
        if (dl == sl && d->roff == 0 && s->roff == 0 && n >= dl) {
            size_t m = step_nest(d, s, n);
            if (m) {
                n -= m;
                continue;
            }
            size_t k = min3(fd->n->count - fd->i, fs->n->count - fs->i, n / dl);
            copy_runs_to(d, it_ptr(d), fd->n->stride, it_ptr(s), fs->n->stride, dl, k);
            it_skip_runs(d, k);
            it_skip_runs(s, k);
            n -= k * dl;
            continue;
        }
        size_t m = dl < sl ? step_line(d, s, n, 1) : step_line(s, d, n, 0);
        if (m) {
            n -= m;
            continue;
        }
        m = min3(dl - d->roff, sl - s->roff, n);
        copy_run(it_ptr(d), it_ptr(s), m);
        it_skip_bytes(d, m);
        it_skip_bytes(s, m);
        n -= m;
    }
}

/* Layout to layout, bytes [off, off + n), streaming the destination when
 * `stream` is set. */
static void copy_layouts(void *dbuf, size_t dcount, const zm_dt_t *ddt, const void *sbuf,
                         size_t scount, const zm_dt_t *sdt, size_t off, size_t n, int stream)
{
    iter_t d, s;
    it_init(&d, dbuf, dcount, ddt, off);
    it_init(&s, sbuf, scount, sdt, off);
    d.stream = stream;
    copy_iters(&d, &s, n);
}

void zm_dt_copy_range(void *dbuf, size_t dcount, const zm_dt_t *ddt,
                      const void *sbuf, size_t scount, const zm_dt_t *sdt,
                      size_t off, size_t n)
{
    if (n == 0)
        return;
    if (ZM_LIKELY(ddt->contig && sdt->contig)) {
        memcpy((char *)dbuf + off, (const char *)sbuf + off, n);
        return;
    }
    copy_layouts(dbuf, dcount, ddt, sbuf, scount, sdt, off, n, 0);
}

void zm_dt_copy_range_stream(void *dbuf, size_t dcount, const zm_dt_t *ddt,
                             const void *sbuf, size_t scount, const zm_dt_t *sdt,
                             size_t off, size_t n)
{
    if (n)
        copy_layouts(dbuf, dcount, ddt, sbuf, scount, sdt, off, n, 1);
}

void zm_dt_copy(void *dbuf, size_t dcount, const zm_dt_t *ddt,
                const void *sbuf, size_t scount, const zm_dt_t *sdt, size_t bytes)
{
    zm_dt_copy_range(dbuf, dcount, ddt, sbuf, scount, sdt, 0, bytes);
}

void zm_dt_pack_range(void *packed, const void *buf, size_t count, const zm_dt_t *dt,
                      size_t off, size_t n)
{
    if (n == 0)
        return;
    if (dt->contig) {
        memcpy(packed, (const char *)buf + off, n);
        return;
    }
    iter_t d, s;
    it_init_line(&d, packed, n);
    it_init(&s, buf, count, dt, off);
    d.stream = n >= ZM_DT_STREAM_MIN;
    copy_iters(&d, &s, n);
}

void zm_dt_unpack_range(void *buf, size_t count, const zm_dt_t *dt, const void *packed,
                        size_t off, size_t n)
{
    if (n == 0)
        return;
    if (dt->contig) {
        memcpy((char *)buf + off, packed, n);
        return;
    }
    iter_t d, s;
    it_init(&d, buf, count, dt, off);
    it_init_line(&s, packed, n);
    d.stream = n >= ZM_DT_STREAM_MIN;
    copy_iters(&d, &s, n);
}

void zm_dt_pack(void *out, const void *buf, size_t count, const zm_dt_t *dt, size_t bytes)
{
    zm_dt_pack_range(out, buf, count, dt, 0, bytes);
}

void zm_dt_unpack(void *buf, size_t count, const zm_dt_t *dt, const void *in, size_t bytes)
{
    zm_dt_unpack_range(buf, count, dt, in, 0, bytes);
}
