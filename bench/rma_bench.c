/*
 * rma_bench.c: one-sided communication between ranks 0 (origin) and 1
 * (target).
 *
 * Reported on rank 0, one line per test and size:
 *   put_fence, get_fence   latency of one Put/Get plus MPI_Win_fence on all ranks
 *   put_flush, get_flush   latency of one Put/Get plus MPI_Win_flush in lock_all
 *   acc_flush              MPI_Accumulate (MPI_SUM on doubles) plus flush
 *   fop, cas               MPI_Fetch_and_op (MPI_SUM) / MPI_Compare_and_swap on
 *                          one int64 plus flush
 *   put_bw                 BENCH_WINDOW Puts then one flush: bandwidth
 *   memcpy_bw              BENCH_WINDOW memcpy calls of the same sizes on rank 0
 *                          between two buffers of its own: the floor a Put
 *                          between ranks of one node compares with
 * Latencies in microseconds per operation; bandwidth in MB/s (10^6 B/s).
 * Options: -m max size, -M min size, -x iteration factor (bench_common.h).
 * Plain MPI: builds with zmpicc, mpicc.mpich and mpicc.openmpi.  Ranks
 * beyond 1 only take part in the fences and barriers.
 */
#include "bench_common.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

/* Latency sizes stop at 64 KiB; bandwidth runs to the maximum. */
#define LAT_MAX ((size_t)64 << 10)

static const struct bench_policy lat_policy = {
    .max_iters = 10000, .min_iters = 20, .byte_budget = 64.0 * 1024 * 1024,
    .bytes_per_iter = 1.0,
};
static const struct bench_policy bw_policy = {
    .max_iters = 200, .min_iters = 3, .byte_budget = 512.0 * 1024 * 1024,
    .bytes_per_iter = BENCH_WINDOW,
};

enum { T_PUT_FENCE, T_GET_FENCE, T_PUT_FLUSH, T_GET_FLUSH, T_ACC, T_FOP, T_CAS, T_BW, T_MEMCPY };
static const char *const test_name[] = { "put_fence", "get_fence", "put_flush", "get_flush",
                                         "acc_flush", "fop", "cas", "put_bw", "memcpy_bw" };

/* memcpy_bw's destination (rank 0, max bytes), and a byte read from it
 * after the copies so that the compiler keeps them. */
static unsigned char *copy_dst;
static volatile unsigned char copy_sink;

/* One iteration of test t of `size` bytes (rank 0 works, the others only
 * join fences). */
static void step(int t, MPI_Win win, unsigned char *buf, size_t size, int rank)
{
    int n = (int)size;
    int64_t one = 1, cmp = 0, res;
    switch (t) {
    case T_PUT_FENCE:
    case T_GET_FENCE:
        if (rank == 0 && t == T_PUT_FENCE)
            MPI_Put(buf, n, MPI_BYTE, 1, 0, n, MPI_BYTE, win);
        else if (rank == 0)
            MPI_Get(buf, n, MPI_BYTE, 1, 0, n, MPI_BYTE, win);
        MPI_Win_fence(0, win);
        break;
    case T_PUT_FLUSH:
        MPI_Put(buf, n, MPI_BYTE, 1, 0, n, MPI_BYTE, win);
        MPI_Win_flush(1, win);
        break;
    case T_GET_FLUSH:
        MPI_Get(buf, n, MPI_BYTE, 1, 0, n, MPI_BYTE, win);
        MPI_Win_flush(1, win);
        break;
    case T_ACC:
        MPI_Accumulate(buf, n / 8, MPI_DOUBLE, 1, 0, n / 8, MPI_DOUBLE, MPI_SUM, win);
        MPI_Win_flush(1, win);
        break;
    case T_FOP:
        MPI_Fetch_and_op(&one, &res, MPI_INT64_T, 1, 0, MPI_SUM, win);
        MPI_Win_flush(1, win);
        break;
    case T_CAS:
        MPI_Compare_and_swap(&one, &cmp, &res, MPI_INT64_T, 1, 0, win);
        MPI_Win_flush(1, win);
        break;
    case T_BW:
        for (int i = 0; i < BENCH_WINDOW; i++)
            MPI_Put(buf, n, MPI_BYTE, 1, 0, n, MPI_BYTE, win);
        MPI_Win_flush(1, win);
        break;
    case T_MEMCPY:
        if (rank == 0)
            for (int i = 0; i < BENCH_WINDOW; i++)
                memcpy(copy_dst, buf, size);
        break;
    }
}

/* Run test t at one size; prints on rank 0. */
static void run(int t, MPI_Win win, unsigned char *buf, size_t size, int rank, double factor)
{
    int bw = t == T_BW || t == T_MEMCPY;
    const struct bench_policy *p = bw ? &bw_policy : &lat_policy;
    struct bench_iters it = bench_iters_for(p, size, factor);
    int fence = t == T_PUT_FENCE || t == T_GET_FENCE;
    int active = fence || rank == 0;
    if (!fence && t != T_MEMCPY)
        MPI_Win_lock_all(0, win);
    for (long i = 0; active && i < it.warmup; i++)
        step(t, win, buf, size, rank);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long i = 0; active && i < it.timed; i++)
        step(t, win, buf, size, rank);
    double dt = MPI_Wtime() - t0;
    if (!fence && t != T_MEMCPY)
        MPI_Win_unlock_all(win);
    if (t == T_MEMCPY && rank == 0)
        copy_sink = copy_dst[size - 1];
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank != 0)
        return;
    if (bw)
        printf("%-10s %10zu %12.3f MB/s\n", test_name[t], size,
               (double)size * BENCH_WINDOW * (double)it.timed / dt / 1e6);
    else
        printf("%-10s %10zu %12.3f us\n", test_name[t], size, dt / (double)it.timed * 1e6);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    struct bench_opts opts;
    int rc = bench_parse_args(argc, argv, "one-sided latency and bandwidth", 8, &opts, rank);
    if (rc != 0 || nranks < 2) {
        if (rc == 0 && rank == 0)
            fprintf(stderr, "rma_bench: needs at least 2 ranks\n");
        MPI_Finalize();
        return rc < 0 || nranks < 2;
    }
    size_t max = opts.max_bytes;
    unsigned char *buf = bench_alloc(max, (unsigned char)rank);
    void *wbase;
    MPI_Win win;
    MPI_Win_allocate((MPI_Aint)(rank == 1 ? max : 64), 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                     &wbase, &win);
    memset(wbase, 0, rank == 1 ? max : 64);
    if (rank == 0)
        printf("# rma_bench: %d ranks, origin 0, target 1\n# test       bytes        value\n",
               nranks);
    /* Fence tests inside one run of fence epochs, then passive target. */
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    for (int t = T_PUT_FENCE; t <= T_GET_FLUSH; t++) {
        if (t == T_PUT_FLUSH)
            MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
        for (size_t s = bench_first_size(&opts); s <= max && s <= LAT_MAX; s = bench_next_size(s))
            if (s > 0)
                run(t, win, buf, s, rank, opts.iter_factor);
    }
    run(T_ACC, win, buf, 8, rank, opts.iter_factor);
    run(T_FOP, win, buf, 8, rank, opts.iter_factor);
    /* The bandwidths before Compare_and_swap, in which Open MPI 4.1.4
     * from Debian crashes (bench/README.md), so that they are measured
     * with every MPI. */
    copy_dst = bench_alloc(max, 0);
    for (size_t s = 8; s <= max; s *= 2) {
        run(T_BW, win, buf, s, rank, opts.iter_factor);
        run(T_MEMCPY, win, buf, s, rank, opts.iter_factor);
    }
    free(copy_dst);
    run(T_CAS, win, buf, 8, rank, opts.iter_factor);
    MPI_Win_free(&win);
    free(buf);
    MPI_Finalize();
    return 0;
}
