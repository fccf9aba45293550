/*
 * copy_wide.c: copies of runs of 64 bytes and more in the widest vector
 * moves the CPU has.
 *
 * The library is built for the x86-64 baseline, whose vectors are 16
 * bytes wide, so a loop written in C moves 16 bytes per instruction even
 * on a CPU that moves 64 (measured on an AMD Zen 5: packing 512-byte to
 * 2 KiB blocks of a vector held in L2 ran at 70-78 GB/s through memcpy
 * calls per block and at 100-107 GB/s with 64-byte moves).  The function
 * is compiled once per vector width (ZM_ARCH_WIDE) and the loader picks
 * the widest the CPU runs.  The second half of the file streams big
 * copies past the caches.
 */
#include "arch/arch.h"

#include <string.h>

/* 64 bytes in one vector register where the CPU has one that wide, in two
 * or four otherwise.  Loads and stores go through memcpy, so no alignment
 * is assumed; they are macros because a function returning such a vector
 * would have a different calling convention in each version. */
typedef char v64_t __attribute__((vector_size(64)));
#define LOAD64(v, p) memcpy(&(v), (p), sizeof(v64_t))
#define STORE64(p, v) memcpy((p), &(v), sizeof(v64_t))

/* Copy one run of len >= 64 bytes: 64 bytes at a time, then the last 64
 * bytes of the run again, overlapping what was already copied (source and
 * destination never overlap, so rewriting a few bytes with the same values
 * is harmless).  One load and one store per step: unrolling by four with
 * all loads before the stores measured 20-30 % slower on Zen 5 (1 KiB
 * blocks of a vector in L2: 77-87 against 102-106 GB/s). */
static inline void copy_one(char *d, const char *s, size_t len)
{
    v64_t a;
    size_t i = 0;
    for (; i + 64 <= len; i += 64) {
        LOAD64(a, s + i);
        STORE64(d + i, a);
    }
    if (i < len) {
        LOAD64(a, s + len - 64);
        STORE64(d + len - 64, a);
    }
}

ZM_ARCH_WIDE void zm_arch_copy_runs(char *d, ptrdiff_t ds, const char *s, ptrdiff_t ss,
                                    size_t len, size_t k)
{
    for (size_t j = 0; j < k; j++, d += ds, s += ss)
        copy_one(d, s, len);
}

/* ---- streaming copies ---------------------------------------------------
 *
 * Streaming stores write whole lines to memory without reading them first
 * (ordinary stores read every destination line for ownership) and leave
 * them out of the caches: for outputs larger than the last-level cache.
 * They pay only when each store fills a whole line at once: measured on
 * Zen 5, packing 16 MiB of 256-512 B blocks ran at 24 GB/s with 64-byte
 * streaming stores, 19 GB/s with ordinary ones and 13 GB/s with 16-byte
 * streaming stores.  So only CPUs with 64-byte vectors (AVX-512) stream;
 * the others keep ordinary stores. */

/* The ordinary-store version: runs of a line or more in wide moves. */
static void runs_plain(char *d, ptrdiff_t ds, const char *s, ptrdiff_t ss, size_t len, size_t k)
{
    if (len >= 64) {
        zm_arch_copy_runs(d, ds, s, ss, len, k);
        return;
    }
    for (size_t j = 0; j < k; j++, d += ds, s += ss)
        memcpy(d, s, len);
}

#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>

/* A streamed copy prefetches the source runs about this many bytes of
 * data ahead, when the hardware prefetchers alone leave the core waiting:
 * gathering short runs (under 256 B: every other 64 B line, 16 MiB, 2
 * ranks: 840 -> 650 us) or gathering into a dense output (pack: 128 B
 * blocks 10.5 -> 17 GB/s, 2 KiB blocks 18 -> 22 GB/s on Zen 5; 2-8 KiB
 * ahead measured alike).  Copying 512 B-16 KiB runs between two strided
 * layouts on both cores at once, it only cost time (5-10 %): memory
 * bandwidth is the limit there and the hardware follows such runs. */
#define STREAM_AHEAD 4096
#define STREAM_PF_SHORT 256

/* Streams the whole lines of one run; the caller stores its partial ends. */
__attribute__((target("avx512f"))) static inline size_t stream_lines(char *d, const char *s,
                                                                    size_t i, size_t len)
{
    for (; i + 64 <= len; i += 64)
        _mm512_stream_si512((void *)(d + i), _mm512_loadu_si512(s + i));
    return i;
}

/* As stream_lines, with one prefetch of the run at p per line stored.
 * Spread over the run so, prefetches paid better than issued all at its
 * start (measured on Zen 5 before runs_stream_whole took aligned runs,
 * packs of 16 MiB from memory, memcpy 21 GB/s: 128 B blocks 15 -> 19-20
 * GB/s, 256 B 15-16 -> 17.6, 16-64 KiB 17-22 -> 23-26, where a burst of
 * up to a thousand prefetches stalled the start of each run; 512 B-8 KiB
 * within noise). */
__attribute__((target("avx512f"))) static inline size_t stream_lines_pf(char *d, const char *s,
                                                                       const char *p, size_t i,
                                                                       size_t len)
{
    for (; i + 64 <= len; i += 64) {
        _mm_prefetch(p + i, _MM_HINT_T0);
        _mm512_stream_si512((void *)(d + i), _mm512_loadu_si512(s + i));
    }
    return i;
}

/* runs_stream_avx512 for runs of whole lines at line-aligned addresses and
 * strides: no partial lines, so no per-run bookkeeping.  Measured on Zen
 * 5, packs of 16 MiB from memory in a bare harness, 256 B-2 KiB blocks:
 * 5-20 % faster than the general loop, whose per-run checks slowed even
 * this memory-bound copy.  The first k - ahead runs prefetch the run
 * `ahead` runs on (ahead >= k: none). */
__attribute__((target("avx512f"))) static void runs_stream_whole(char *d, ptrdiff_t ds,
                                                                const char *s, ptrdiff_t ss,
                                                                size_t len, size_t k,
                                                                size_t ahead)
{
    ptrdiff_t dist = (ptrdiff_t)ahead * ss;
    size_t j = 0, kp = k > ahead ? k - ahead : 0;
    for (; j < kp; j++, d += ds, s += ss)
        for (size_t i = 0; i < len; i += 64) {
            _mm_prefetch(s + dist + i, _MM_HINT_T0);
            _mm512_stream_si512((void *)(d + i), _mm512_load_si512(s + i));
        }
    for (; j < k; j++, d += ds, s += ss)
        for (size_t i = 0; i < len; i += 64)
            _mm512_stream_si512((void *)(d + i), _mm512_load_si512(s + i));
    _mm_sfence();
}

__attribute__((target("avx512f"))) static void runs_stream_avx512(char *d, ptrdiff_t ds,
                                                                 const char *s, ptrdiff_t ss,
                                                                 size_t len, size_t k)
{
    /* Prefetch the run this far ahead, or none (see STREAM_AHEAD): a
     * contiguous source needs no help. */
    int pf = ss != (ptrdiff_t)len && (len < STREAM_PF_SHORT || ds == (ptrdiff_t)len);
    size_t ahead = pf ? (STREAM_AHEAD + len - 1) / len : k;
    if ((((uintptr_t)d | (uintptr_t)s | (size_t)ds | (size_t)ss | len) & 63) == 0) {
        runs_stream_whole(d, ds, s, ss, len, k, ahead);
        return;
    }
    ptrdiff_t dist = (ptrdiff_t)ahead * ss;
    for (size_t j = 0; j < k; j++, d += ds, s += ss) {
        /* The lines the run fills whole are streamed; a partial first or
         * last line is stored normally (its other bytes are not ours). */
        size_t head = (size_t)(-(uintptr_t)d & 63), i;
        if (head > len)
            head = len;
        /* No call for the empty ends of aligned runs: two calls per
         * 512-byte run cost 0.1 ms per 8 MiB message. */
        if (head)
            memcpy(d, s, head);
        if (j + ahead < k) {
            /* The loop prefetches the lines at the offsets it streams:
             * all of the source run's lines only when the run is whole
             * lines at the destination's alignment.  Otherwise its first
             * and last lines are fetched too (when the loop does cover
             * them, the extra prefetches cost 256 B blocks 5-10 %). */
            if (head | ((len - head) & 63) | ((uintptr_t)s & 63)) {
                _mm_prefetch(s + dist, _MM_HINT_T0);
                _mm_prefetch(s + dist + len - 1, _MM_HINT_T0);
            }
            i = stream_lines_pf(d, s, s + dist, head, len);
        } else {
            i = stream_lines(d, s, head, len);
        }
        if (i < len)
            memcpy(d + i, s + i, len - i);
    }
    /* Streaming stores are weakly ordered: make them visible before the
     * caller publishes the data. */
    _mm_sfence();
}

/* Picks the version once, when the library is loaded (GNU ifunc). */
static void (*resolve_runs_stream(void))(char *, ptrdiff_t, const char *, ptrdiff_t, size_t,
                                          size_t)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") ? runs_stream_avx512 : runs_plain;
}

void zm_arch_copy_runs_stream(char *d, ptrdiff_t ds, const char *s, ptrdiff_t ss, size_t len,
                              size_t k) __attribute__((ifunc("resolve_runs_stream")));

#else

void zm_arch_copy_runs_stream(char *d, ptrdiff_t ds, const char *s, ptrdiff_t ss, size_t len,
                              size_t k)
{
    runs_plain(d, ds, s, ss, len, k);
}

#endif
