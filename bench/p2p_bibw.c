/*
 * p2p_bibw.c: bi-directional bandwidth between ranks 0 and 1.
 *
 * For each message size, one window is BENCH_WINDOW MPI_Irecv calls and
 * then BENCH_WINDOW MPI_Isend calls on both ranks at once, completed with
 * one MPI_Waitall.  The printed bandwidth counts the bytes of both
 * directions: 2 * size * BENCH_WINDOW * windows / elapsed, in MB/s
 * (1 MB = 1e6 bytes), timed on rank 0.
 *
 * As in p2p_bw, the messages of a window share one send and one receive
 * buffer per rank (see the note there).
 */
#include "bench_common.h"

#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#define TAG_DATA 4

/*
 * Small sizes run 1000 windows; from 4 KiB on the count falls so that each
 * size moves about 256 MiB per direction, but at least one window is timed.
 */
static const struct bench_policy bibw_policy = {
    .max_iters = 1000,
    .min_iters = 1,
    .byte_budget = 256.0 * 1024 * 1024,
    .bytes_per_iter = BENCH_WINDOW,
};

/* Runs windows windows of size-byte messages each way and returns the
 * elapsed seconds as seen by this rank (only rank 0's value is reported). */
static double run_windows(unsigned char *sbuf, unsigned char *rbuf,
                          size_t size, long windows, int rank)
{
    MPI_Request reqs[2 * BENCH_WINDOW];
    int count = (int)size;
    int peer = rank == 0 ? 1 : 0;

    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    for (long w = 0; w < windows && rank < 2; w++) {
        for (int i = 0; i < BENCH_WINDOW; i++)
            MPI_Irecv(rbuf, count, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD,
                      &reqs[i]);
        for (int i = 0; i < BENCH_WINDOW; i++)
            MPI_Isend(sbuf, count, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD,
                      &reqs[BENCH_WINDOW + i]);
        MPI_Waitall(2 * BENCH_WINDOW, reqs, bench_statuses_ignore());
    }
    return MPI_Wtime() - start;
}

/* Measures one size: warm-up, check, timed run, check, and prints the
 * bandwidth on rank 0. */
static void measure_size(unsigned char *sbuf, unsigned char *rbuf,
                         size_t size, int index, int rank, double factor)
{
    struct bench_iters it = bench_iters_for(&bibw_policy, size, factor);
    int peer = rank == 0 ? 1 : 0;
    int active = rank < 2;

    if (active) {
        bench_mark(sbuf, size, rank, index);
        bench_clear(rbuf, size, peer, index);
    }
    run_windows(sbuf, rbuf, size, it.warmup, rank);
    if (active) {
        bench_check(rbuf, size, peer, index, "p2p_bibw");
        bench_clear(rbuf, size, peer, index);
    }
    double elapsed = run_windows(sbuf, rbuf, size, it.timed, rank);
    if (active)
        bench_check(rbuf, size, peer, index, "p2p_bibw");
    if (rank == 0) {
        double bytes = 2.0 * (double)size * BENCH_WINDOW * (double)it.timed;
        printf("%-12zu %14.2f\n", size, bytes / elapsed / 1e6);
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    /* Empty messages carry no bandwidth, so sizes start at 1 byte. */
    return bench_main(argc, argv, "Bi-directional bandwidth", 1,
                      "zmpi bench: bi-directional bandwidth, window of 64",
                      "MB_per_s", measure_size);
}
