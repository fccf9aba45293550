/*
 * p2p_floor.c: the memory floor of large point-to-point messages.
 *
 * Not an MPI program.  It measures the bare copies that a message of S
 * bytes between two ranks in one address space needs, one thread per
 * core, nothing else: no matching, no flags, one spin barrier per round.
 * An in-process MPI moves each byte at least once (read from the sender's
 * buffer, written to the receiver's), so the rates printed here bound
 * what p2p_bw (one direction) and p2p_bibw (both directions at once) can
 * reach on this machine, and say how far a target such as "1.2x the
 * better peer" is from the memory's limit.
 *
 *   one-way   thread 0 copies A's send buffer into B's receive buffer,
 *             S bytes per round (p2p_bw's data movement);
 *   both      thread 0 copies A -> B and thread 1 B -> A at the same
 *             time, 2 S bytes per round (p2p_bibw's);
 *   both-half each thread copies half of each of the two messages, as a
 *             copy split between the two cores would.
 *
 * Each pattern runs twice: with libc's memcpy (which switches to stores
 * that bypass the cache above a size glibc derives from the cache sizes)
 * and, on x86-64, with a plain loop of 16-byte loads and non-temporal
 * stores (the destination is written without being read first), the
 * faster of which is the floor.  Buffers are reused round after round, as
 * the benchmarks reuse theirs.
 *
 * Usage: p2p_floor [MIN [MAX]] (bytes, K/M suffixes; default 16M and 64M);
 * prints per size and copy "size copy one-way both both-half" in MB/s
 * (10^6 bytes per second, as the p2p benchmarks print), the best of 5
 * trials.
 * Build: cc -O2 -pthread p2p_floor.c -o p2p_floor.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "floor_threads.h"

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

#define TRIALS 5

typedef void *(*copy_fn)(void *, const void *, size_t);

/* Copy with non-temporal stores (x86-64; memcpy elsewhere).  Sizes here
 * are multiples of 64 and buffers come from malloc (16-byte aligned). */
static void *copy_stream(void *dst, const void *src, size_t n)
{
#if defined(__x86_64__)
    __m128i *d = dst;
    const __m128i *s = src;
    for (size_t i = 0; i < n / 16; i += 4) {
        __m128i a = _mm_loadu_si128(s + i), b = _mm_loadu_si128(s + i + 1);
        __m128i c = _mm_loadu_si128(s + i + 2), e = _mm_loadu_si128(s + i + 3);
        _mm_stream_si128(d + i, a);
        _mm_stream_si128(d + i + 1, b);
        _mm_stream_si128(d + i + 2, c);
        _mm_stream_si128(d + i + 3, e);
    }
    _mm_sfence();
    return dst;
#else
    return memcpy(dst, src, n);
#endif
}

struct floor_ctx {
    copy_fn copy;
    char *send[2], *recv[2];
    size_t size;
    int mode;   /* 0 one-way, 1 both, 2 both-half */
    int rounds;
    struct floor_sync sync;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void body(void *p, int me)
{
    struct floor_ctx *c = p;
    size_t half = c->size / 2;
    for (int r = 0; r < c->rounds; r++) {
        floor_sync_wait(&c->sync);
        if (c->mode == 0) {
            if (me == 0)
                c->copy(c->recv[1], c->send[0], c->size);
        } else if (c->mode == 1) {
            c->copy(c->recv[1 - me], c->send[me], c->size);
        } else {
            /* Thread me copies half `me` of both messages. */
            c->copy(c->recv[1] + me * half, c->send[0] + me * half, half);
            c->copy(c->recv[0] + me * half, c->send[1] + me * half, half);
        }
    }
    floor_sync_wait(&c->sync);
}

static size_t parse_size(const char *s)
{
    char *end;
    size_t v = strtoull(s, &end, 10);
    if (*end == 'K' || *end == 'k')
        v <<= 10;
    else if (*end == 'M' || *end == 'm')
        v <<= 20;
    return v;
}

/* Best rate in MB/s over TRIALS trials of `rounds` rounds. */
static double rate(struct floor_ctx *c, int mode)
{
    double best = 0;
    c->mode = mode;
    for (int t = 0; t < TRIALS; t++) {
        double t0 = now_s();
        floor_run_threads(2, body, c);
        double dt = now_s() - t0;
        double bytes = (double)c->size * c->rounds * (mode == 0 ? 1 : 2);
        if (bytes / dt / 1e6 > best)
            best = bytes / dt / 1e6;
    }
    return best;
}

int main(int argc, char **argv)
{
    size_t min = argc > 1 ? parse_size(argv[1]) : 16u << 20;
    size_t max = argc > 2 ? parse_size(argv[2]) : 64u << 20;
    printf("# size copy one-way both both-half (MB/s)\n");
    for (size_t s = min; s <= max && s > 0; s *= 2) {
        struct floor_ctx c = { .size = s, .sync = { .threads = 2 } };
        for (int i = 0; i < 2; i++) {
            c.send[i] = malloc(s);
            c.recv[i] = malloc(s);
            if (!c.send[i] || !c.recv[i]) {
                fprintf(stderr, "p2p_floor: out of memory\n");
                return 2;
            }
            memset(c.send[i], i + 1, s);
            memset(c.recv[i], 0, s);
        }
        c.rounds = (int)(((size_t)1 << 30) / s);
        if (c.rounds < 4)
            c.rounds = 4;
        for (int k = 0; k < 2; k++) {
            c.copy = k ? copy_stream : memcpy;
            double a = rate(&c, 0), b = rate(&c, 1), h = rate(&c, 2);
            printf("%zu %s %.0f %.0f %.0f\n", s, k ? "stream" : "memcpy", a, b, h);
        }
        for (int i = 0; i < 2; i++) {
            free(c.send[i]);
            free(c.recv[i]);
        }
    }
    return 0;
}
