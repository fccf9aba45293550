/*
 * coll_floor.c: the memory floor of in-process collectives.
 *
 * Not an MPI program.  It measures how long the bare data movement of one
 * collective takes when N ranks' buffers live in one address space and T
 * threads (one per core) do nothing but copy and add: no matching, no
 * argument checks, no flags, one spin barrier per call.  Any in-process MPI
 * needs at least that much time, so the printed time is a lower bound for
 * zmpi's `coll_*` benchmarks at the same rank count and size, and tells
 * whether a target such as "10 times faster than Open MPI" is reachable
 * on this machine at all.
 *
 * The buffers are those of the OSU-style benchmarks: each rank has its own
 * send and receive buffer, reused by every call.  Ranks are given to the
 * threads in blocks, as zmpirun maps ranks to workers, and each thread
 * writes the receive buffers of its own ranks:
 *
 *   bcast      every rank but 0 copies rank 0's buffer;
 *   allgather  every rank copies block q of every rank q;
 *   alltoall   every rank copies block r of every rank's send buffer;
 *   allreduce  each thread sums its slice of the N inputs (ints, as
 *              coll_allreduce does) in rank order and writes the slice
 *              to every rank's output.
 *
 * Usage: coll_floor OP N T [MIN [MAX]] (bytes, K/M/G suffixes allowed,
 * default 4K and 1M); prints "size data_usec total_usec" lines: the best
 * of 5 trials of the average time per call, and that time less the time
 * of the barriers alone.  Built with any C
 * compiler: cc -O3 -march=native -pthread coll_floor.c.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "floor_threads.h"

#define MAX_THREADS FLOOR_MAX_THREADS
#define TRIALS 5

enum op { OP_BCAST, OP_ALLGATHER, OP_ALLTOALL, OP_ALLREDUCE };

/* What all threads share for one size. */
struct job {
    enum op op;
    int n, t;             /* ranks, threads */
    size_t size;          /* bytes per rank (per block for allgather/alltoall) */
    long iters;
    unsigned char **sbuf, **rbuf;
    struct floor_sync sync; /* one barrier per call */
};

/* The data movement of one call done by thread `me`. */
static void one_call(struct job *j, int me)
{
    int lo = j->n * me / j->t, hi = j->n * (me + 1) / j->t;
    size_t s = j->size;
    switch (j->op) {
    case OP_BCAST:
        for (int r = lo; r < hi; r++)
            if (r != 0)
                memcpy(j->rbuf[r], j->sbuf[0], s);
        break;
    case OP_ALLGATHER:
        for (int r = lo; r < hi; r++)
            for (int q = 0; q < j->n; q++)
                memcpy(j->rbuf[r] + (size_t)q * s, j->sbuf[q], s);
        break;
    case OP_ALLTOALL:
        for (int r = lo; r < hi; r++)
            for (int q = 0; q < j->n; q++)
                memcpy(j->rbuf[r] + (size_t)q * s, j->sbuf[q] + (size_t)r * s, s);
        break;
    case OP_ALLREDUCE: {
        size_t elems = s / sizeof(int);
        size_t a = elems * (size_t)me / (size_t)j->t;
        size_t b = elems * (size_t)(me + 1) / (size_t)j->t;
        int *out = (int *)j->rbuf[lo < j->n ? lo : 0];
        memcpy(out + a, (int *)j->sbuf[0] + a, (b - a) * sizeof(int));
        for (int q = 1; q < j->n; q++) {
            const int *restrict in = (const int *)j->sbuf[q];
            int *restrict o = out;
            for (size_t e = a; e < b; e++)
                o[e] += in[e];
        }
        for (int r = 0; r < j->n; r++)
            if ((int *)j->rbuf[r] != out)
                memcpy((int *)j->rbuf[r] + a, out + a, (b - a) * sizeof(int));
        break;
    }
    }
}

static void thread_main(void *ctx, int me)
{
    struct job *j = ctx;
    for (long i = 0; i < j->iters; i++) {
        one_call(j, me);
        floor_sync_wait(&j->sync);
    }
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Runs j->iters calls on j->t threads; returns seconds. */
static double run(struct job *j)
{
    double start = now();
    floor_run_threads(j->t, thread_main, j);
    return now() - start;
}

/* Bytes from a count with an optional K, M or G suffix (powers of 1024);
 * 0 when the text is not such a count. */
static size_t parse_size(const char *text)
{
    char *end = NULL;
    unsigned long long v = strtoull(text, &end, 10);
    if (end == text)
        return 0;
    switch (*end) {
    case 'G': v <<= 10; /* fall through */
    case 'M': v <<= 10; /* fall through */
    case 'K': v <<= 10; end++; break;
    default: break;
    }
    return *end == '\0' ? (size_t)v : 0;
}

/* The best over TRIALS runs of the seconds per call. */
static double best_time(struct job *j)
{
    double best = 1e30;
    for (int k = 0; k < TRIALS; k++) {
        double t = run(j) / (double)j->iters;
        if (t < best)
            best = t;
    }
    return best;
}

static int parse_op(const char *s, enum op *op)
{
    static const char *names[] = { "bcast", "allgather", "alltoall", "allreduce" };
    for (int i = 0; i < 4; i++)
        if (strcmp(s, names[i]) == 0) {
            *op = (enum op)i;
            return 0;
        }
    return -1;
}

int main(int argc, char **argv)
{
    struct job j = { 0 };
    if (argc < 4 || parse_op(argv[1], &j.op) != 0) {
        fprintf(stderr, "usage: %s bcast|allgather|alltoall|allreduce N T [MIN [MAX]]\n",
                argv[0]);
        return 2;
    }
    j.n = atoi(argv[2]);
    j.t = atoi(argv[3]);
    j.sync.threads = j.t;
    size_t min = argc > 4 ? parse_size(argv[4]) : 4096;
    size_t max = argc > 5 ? parse_size(argv[5]) : 1 << 20;
    if (j.n < 1 || j.t < 1 || j.t > MAX_THREADS || j.t > j.n || min < 4 || max < min) {
        fprintf(stderr, "%s: bad arguments\n", argv[0]);
        return 2;
    }
    int wide = j.op == OP_ALLGATHER || j.op == OP_ALLTOALL;
    size_t sbytes = wide && j.op == OP_ALLTOALL ? max * (size_t)j.n : max;
    size_t rbytes = wide ? max * (size_t)j.n : max;
    j.sbuf = calloc((size_t)j.n, sizeof(*j.sbuf));
    j.rbuf = calloc((size_t)j.n, sizeof(*j.rbuf));
    for (int r = 0; r < j.n; r++) {
        j.sbuf[r] = aligned_alloc(4096, (sbytes + 4095) / 4096 * 4096);
        j.rbuf[r] = aligned_alloc(4096, (rbytes + 4095) / 4096 * 4096);
        if (!j.sbuf[r] || !j.rbuf[r]) {
            fprintf(stderr, "%s: out of memory\n", argv[0]);
            return 1;
        }
        memset(j.sbuf[r], r + 1, sbytes);
        memset(j.rbuf[r], 0, rbytes);
    }
    /* One barrier per call is part of each time; the time of barriers
     * alone is taken off, so that what is printed first is the data
     * movement only, a lower bound even for an implementation that needs
     * no barrier (zmpi's small Bcast lets the root run ahead). */
    j.size = 0;
    j.iters = 100000;
    double sync = best_time(&j);
    printf("# coll_floor %s: %d ranks on %d threads, best of %d trials\n"
           "# size data_usec (without the %.3f us barrier) total_usec\n",
           argv[1], j.n, j.t, TRIALS, sync * 1e6);
    for (size_t s = min; s <= max; s *= 2) {
        j.size = s;
        double moved = (double)s * (double)j.n * (wide ? (double)j.n : 1.0);
        j.iters = (long)(2e9 / (moved + 1e5));
        if (j.iters < 10)
            j.iters = 10;
        if (j.iters > 100000)
            j.iters = 100000;
        double t = best_time(&j);
        printf("%zu %.3f %.3f\n", s, t > sync ? (t - sync) * 1e6 : 0.0, t * 1e6);
    }
    return 0;
}
