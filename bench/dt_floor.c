/*
 * dt_floor.c: the memory floor of a derived-datatype ping-pong
 * (dt_latency -F).
 *
 * Two threads, one per core, copy every message of a round straight from
 * the sender's layout into the receiver's layout, each thread half of the
 * outermost loop, with one spin barrier per direction: the least data
 * movement any MPI needs between two ranks of one address space, with no
 * matching, no protocol and no datatype engine (the reference layouts of
 * dt_common.h are walked by a plain loop nest).  The four buffers are
 * those of dt_latency (each rank's send and receive buffer), so the cache
 * sees the same working set.  Each case is timed with ordinary stores and,
 * where the blocks fill whole cache lines, with streaming stores that skip
 * reading the destination, and the fastest is printed: a bound in practice
 * for any MPI that copies this way (the halves are split statically, so a
 * dynamically balanced copy can come out slightly below it).
 *
 * The only MPI calls are MPI_Wtime and MPI_Abort; the threads are POSIX
 * threads of one rank.
 *
 * The same loops, on one thread, give dt_pack -F its floor: packing or
 * unpacking a vector with bare copies of each kind (dt_floor_vector).
 */
#include "dt_common.h"
#include "floor_threads.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define FLOOR_THREADS 2
/* Bytes of data a prefetching pack (DT_FLOOR_STREAM_AHEAD) reads ahead. */
#define FLOOR_AHEAD 4096
#define FLOOR_TRIALS 3

/* What both threads share for one case. */
struct floor_job {
    const struct dt_layout *send, *recv;
    int nmsgs;
    unsigned char *sbuf[2], *rbuf[2]; /* of rank 0 and rank 1 */
    long iters;
    int streaming;
    struct floor_sync sync; /* one barrier per direction */
};

/* Copies one block of n bytes with stores that bypass the cache: the
 * lines the block fills whole are streamed, the ends copied normally.
 * With 64-byte vectors (AVX-512) each store fills a line at once, which
 * is what makes streaming pay for short blocks; otherwise 16-byte stores. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
__attribute__((target("avx512f"))) static void stream_lines(unsigned char *d,
                                                           const unsigned char *s,
                                                           size_t n)
{
    size_t head = (size_t)(-(uintptr_t)d & 63), i;
    if (head > n)
        head = n;
    if (head)
        memcpy(d, s, head);
    for (i = head; i + 64 <= n; i += 64)
        _mm512_stream_si512((void *)(d + i), _mm512_loadu_si512(s + i));
    if (i < n)
        memcpy(d + i, s + i, n - i);
}

/* As stream_lines for a run of whole lines at d and s, with a prefetch of
 * the line `ahead` bytes past each line loaded (the next runs of a
 * strided source, which the hardware prefetchers follow too late). */
__attribute__((target("avx512f"))) static void stream_lines_ahead(unsigned char *d,
                                                                 const unsigned char *s,
                                                                 size_t n, size_t ahead)
{
    for (size_t i = 0; i < n; i += 64) {
        _mm_prefetch((const char *)s + i + ahead, _MM_HINT_T0);
        _mm512_stream_si512((void *)(d + i), _mm512_loadu_si512(s + i));
    }
}
#define HAVE_STREAM_LINES 1
#endif

static void copy_streaming(unsigned char *d, const unsigned char *s, size_t n, int wide)
{
#if defined(HAVE_STREAM_LINES)
    if (wide) {
        stream_lines(d, s, n);
        return;
    }
#endif
    (void)wide;
#if defined(__SSE2__)
    size_t head = (size_t)(-(uintptr_t)d & 15);
    if (head > n)
        head = n;
    memcpy(d, s, head);
    size_t i = head;
    for (; i + 16 <= n; i += 16)
        _mm_stream_si128((__m128i *)(d + i),
                         _mm_loadu_si128((const __m128i *)(s + i)));
    memcpy(d + i, s + i, n - i);
#else
    memcpy(d, s, n);
#endif
}

/* The copy loops are compiled once per vector width where GCC can do so
 * (AVX-512, AVX2, SSE2; the loader picks the widest the CPU runs), so that
 * the floor moves blocks as fast as zmpi's own engine does: a loop of
 * 64-byte moves for blocks of 64 bytes to 4 KiB (faster than a memcpy call
 * per block), memcpy for longer ones. */
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__)
#define FLOOR_WIDE __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define FLOOR_WIDE
#endif

typedef char v64_t __attribute__((vector_size(64)));

/* Copies n >= 64 bytes in 64-byte moves, the last one overlapping. */
#define COPY_WIDE(d, s, n)                                             \
    do {                                                               \
        v64_t v_;                                                      \
        size_t i_ = 0;                                                 \
        for (; i_ + 64 <= (n); i_ += 64) {                             \
            memcpy(&v_, (s) + i_, 64);                                 \
            memcpy((d) + i_, &v_, 64);                                 \
        }                                                              \
        if (i_ < (n)) {                                                \
            memcpy(&v_, (s) + (n) - 64, 64);                           \
            memcpy((d) + (n) - 64, &v_, 64);                           \
        }                                                              \
    } while (0)

/* The wide kind of dt_floor_vector: 64-byte moves for blocks of 64 B to
 * 4 KiB, memcpy otherwise, as in copy_share; blocks of 8-32 bytes in one
 * move of their size each (a memcpy call per 8 bytes would be no floor). */
FLOOR_WIDE static void vector_wide(unsigned char *dense, unsigned char *vec, size_t total,
                                   size_t block, int unpack)
{
#define VECTOR_LOOP(COPY)                                                \
    for (size_t off = 0; off < total; off += block) {                    \
        unsigned char *v_ = vec + 2 * off, *c_ = dense + off;            \
        unsigned char *d = unpack ? v_ : c_;                             \
        const unsigned char *s = unpack ? c_ : v_;                       \
        COPY;                                                            \
    }
    if (block == 8)
        VECTOR_LOOP(memcpy(d, s, 8))
    else if (block == 16)
        VECTOR_LOOP(memcpy(d, s, 16))
    else if (block == 32)
        VECTOR_LOOP(memcpy(d, s, 32))
    else if (block >= 64 && block < 4096)
        VECTOR_LOOP(COPY_WIDE(d, s, block))
    else
        VECTOR_LOOP(memcpy(d, s, block))
#undef VECTOR_LOOP
}

int dt_floor_applies(size_t block, int unpack, int kind)
{
    if (kind != DT_FLOOR_STREAM && kind != DT_FLOOR_STREAM_AHEAD)
        return 1;
#if defined(HAVE_STREAM_LINES)
    __builtin_cpu_init();
    /* Prefetching applies to packs only: an unpack reads densely. */
    return block % 64 == 0 && __builtin_cpu_supports("avx512f") &&
           !(kind == DT_FLOOR_STREAM_AHEAD && unpack);
#else
    (void)block, (void)unpack;
    return 0;
#endif
}

int dt_floor_vector(unsigned char *dense, unsigned char *vec, size_t total, size_t block,
                    int unpack, int kind)
{
    if (!dt_floor_applies(block, unpack, kind))
        return 0;
    if (kind == DT_FLOOR_WIDE) {
        vector_wide(dense, vec, total, block, unpack);
        return 1;
    }
    if (kind == DT_FLOOR_STREAM || kind == DT_FLOOR_STREAM_AHEAD) {
#if defined(HAVE_STREAM_LINES)
        for (size_t off = 0; off < total; off += block) {
            if (unpack)
                stream_lines(vec + 2 * off, dense + off, block);
            else if (kind == DT_FLOOR_STREAM_AHEAD && off + FLOOR_AHEAD < total)
                stream_lines_ahead(dense + off, vec + 2 * off, block, 2 * FLOOR_AHEAD);
            else
                stream_lines(dense + off, vec + 2 * off, block);
        }
        _mm_sfence();
#endif
        return 1;
    }
    for (size_t off = 0; off < total; off += block) {
        if (unpack)
            memcpy(vec + 2 * off, dense + off, block);
        else
            memcpy(dense + off, vec + 2 * off, block);
    }
    return 1;
}

/* Copies thread me's share of message (recv <- send). */
FLOOR_WIDE static void copy_share(unsigned char *rb, const struct dt_layout *rl,
                       const unsigned char *sb, const struct dt_layout *sl,
                       int me, int streaming)
{
    int nlev = sl->nlevels, top = nlev - 1;
    size_t block = sl->block, idx[DT_MAX_LEVELS] = {0};
    size_t soff = sl->base, roff = rl->base, lo = 0, hi = 1;
    if (nlev == 0) {
        /* One block: each thread copies half of its bytes. */
        size_t a = block * (size_t)me / FLOOR_THREADS;
        size_t b = block * (size_t)(me + 1) / FLOOR_THREADS;
        memcpy(rb + roff + a, sb + soff + a, b - a);
        return;
    }
    lo = sl->count[top] * (size_t)me / FLOOR_THREADS;
    hi = sl->count[top] * (size_t)(me + 1) / FLOOR_THREADS;
    if (lo >= hi)
        return;
    idx[top] = lo;
    soff += lo * sl->stride[top];
    roff += lo * rl->stride[top];
    for (;;) {
        if (block == 8)
            memcpy(rb + roff, sb + soff, 8);
        else if (streaming)
            copy_streaming(rb + roff, sb + soff, block, streaming > 1);
        else if (block >= 64 && block < 4096)
            COPY_WIDE(rb + roff, sb + soff, block);
        else
            memcpy(rb + roff, sb + soff, block);
        int l = 0;
        for (; l < nlev; l++) {
            size_t end = l == top ? hi : sl->count[l];
            if (++idx[l] < end) {
                soff += sl->stride[l];
                roff += rl->stride[l];
                break;
            }
            if (l == top)
                break;
            soff -= (sl->count[l] - 1) * sl->stride[l];
            roff -= (rl->count[l] - 1) * rl->stride[l];
            idx[l] = 0;
        }
        if (l >= top && idx[top] >= hi)
            break;
    }
}

static void floor_thread(void *ctx, int me)
{
    struct floor_job *j = ctx;
    for (long i = 0; i < j->iters; i++) {
        for (int dir = 0; dir < 2; dir++) {
            for (int m = 0; m < j->nmsgs; m++)
                copy_share(j->rbuf[1 - dir], &j->recv[m], j->sbuf[dir],
                           &j->send[m], me, j->streaming);
#if defined(__SSE2__)
            if (j->streaming)
                _mm_sfence();
#endif
            floor_sync_wait(&j->sync);
        }
    }
}

/* Seconds of j->iters round trips on both threads. */
static double floor_run(struct floor_job *j)
{
    double start = MPI_Wtime();
    floor_run_threads(FLOOR_THREADS, floor_thread, j);
    return MPI_Wtime() - start;
}

/* Returns nonzero when the two layouts have the same loop shape, which
 * the plain loop nest needs (true of every dt_latency kernel). */
static int same_shape(const struct dt_layout *a, const struct dt_layout *b)
{
    if (a->block != b->block || a->nlevels != b->nlevels)
        return 0;
    for (int l = 0; l < a->nlevels; l++)
        if (a->count[l] != b->count[l])
            return 0;
    return 1;
}

double dt_floor_usec(const struct dt_layout *send, const struct dt_layout *recv,
                     int nmsgs, size_t buf_bytes, long max_iters, double trial_seconds)
{
    struct floor_job j = { .send = send, .recv = recv, .nmsgs = nmsgs };
    j.sync.threads = FLOOR_THREADS;
    int lines = 1;
    for (int m = 0; m < nmsgs; m++) {
        if (!same_shape(&send[m], &recv[m])) {
            fprintf(stderr, "dt_latency -F: message %d has different "
                    "send and receive shapes\n", m);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        lines &= send[m].block >= 64;
    }
    for (int r = 0; r < 2; r++) {
        j.sbuf[r] = bench_alloc(buf_bytes, 0xa5);
        j.rbuf[r] = bench_alloc(buf_bytes, DT_FILL);
    }
    double best = 1e30;
    /* 0: ordinary stores; 1: 16-byte streaming stores; 2: 64-byte ones. */
    int kinds = lines ? 2 : 0;
#if defined(HAVE_STREAM_LINES)
    __builtin_cpu_init();
    if (lines && __builtin_cpu_supports("avx512f"))
        kinds = 3;
#endif
    for (j.streaming = 0; j.streaming < (kinds ? kinds : 1); j.streaming++) {
        /* Warm up for at least 50 ms: the first case of a process ran
         * three times slower after only a tenth of its round trips. */
        j.iters = 1 + max_iters / 10;
        double spent = 0.0;
        long done = 0;
        for (; spent < 0.05; done += j.iters)
            spent += floor_run(&j);
        /* Each timed trial is cut to about trial_seconds, judged from
         * the warm-up's pace, but times at least 3 round trips. */
        long fit = (long)(trial_seconds / (spent / (double)done));
        j.iters = fit < max_iters ? (fit > 3 ? fit : 3) : max_iters;
        for (int t = 0; t < FLOOR_TRIALS; t++) {
            double s = floor_run(&j) / (2.0 * (double)j.iters);
            if (s < best)
                best = s;
        }
    }
    for (int r = 0; r < 2; r++) {
        free(j.sbuf[r]);
        free(j.rbuf[r]);
    }
    return best * 1e6;
}
