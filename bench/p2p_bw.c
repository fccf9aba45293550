/*
 * p2p_bw.c: uni-directional bandwidth from rank 0 to rank 1.
 *
 * For each message size, one window is BENCH_WINDOW MPI_Isend calls on
 * rank 0 matched by as many MPI_Irecv calls on rank 1, completed with
 * MPI_Waitall; rank 1 then sends a small acknowledgement so that rank 0's
 * clock covers the delivery of the whole window.  The printed bandwidth is
 * size * BENCH_WINDOW * windows / elapsed in MB/s (1 MB = 1e6 bytes).
 *
 * All messages of a window share one send buffer and one receive buffer,
 * so the test measures the transport rather than the memory system.  The
 * MPI standard does not let pending receives share a buffer; since every
 * message of a window carries the same bytes, the result is the same in
 * whatever order or overlap the copies happen, and the check of the first
 * and last bytes still proves delivery.
 */
#include "bench_common.h"

#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#define TAG_DATA 2
#define TAG_ACK 3

/*
 * Small sizes run 2000 windows; from 4 KiB on the count falls so that each
 * size moves about 512 MiB, but at least one window is timed.
 */
static const struct bench_policy bw_policy = {
    .max_iters = 2000,
    .min_iters = 1,
    .byte_budget = 512.0 * 1024 * 1024,
    .bytes_per_iter = BENCH_WINDOW,
};

/* Runs windows windows of size-byte messages and returns the elapsed
 * seconds as seen by this rank (only rank 0's value is reported). */
static double run_windows(unsigned char *sbuf, unsigned char *rbuf,
                          size_t size, long windows, int rank)
{
    MPI_Request reqs[BENCH_WINDOW];
    int count = (int)size;
    int ack = 0;

    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    for (long w = 0; w < windows; w++) {
        if (rank == 0) {
            for (int i = 0; i < BENCH_WINDOW; i++)
                MPI_Isend(sbuf, count, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD,
                          &reqs[i]);
            MPI_Waitall(BENCH_WINDOW, reqs, bench_statuses_ignore());
            MPI_Recv(&ack, 1, MPI_INT, 1, TAG_ACK, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            for (int i = 0; i < BENCH_WINDOW; i++)
                MPI_Irecv(rbuf, count, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD,
                          &reqs[i]);
            MPI_Waitall(BENCH_WINDOW, reqs, bench_statuses_ignore());
            MPI_Send(&ack, 1, MPI_INT, 0, TAG_ACK, MPI_COMM_WORLD);
        }
    }
    return MPI_Wtime() - start;
}

/* Measures one size: warm-up, check, timed run, check, and prints the
 * bandwidth on rank 0. */
static void measure_size(unsigned char *sbuf, unsigned char *rbuf,
                         size_t size, int index, int rank, double factor)
{
    struct bench_iters it = bench_iters_for(&bw_policy, size, factor);

    if (rank == 0)
        bench_mark(sbuf, size, 0, index);
    if (rank == 1)
        bench_clear(rbuf, size, 0, index);
    run_windows(sbuf, rbuf, size, it.warmup, rank);
    if (rank == 1) {
        bench_check(rbuf, size, 0, index, "p2p_bw");
        bench_clear(rbuf, size, 0, index);
    }
    double elapsed = run_windows(sbuf, rbuf, size, it.timed, rank);
    if (rank == 1)
        bench_check(rbuf, size, 0, index, "p2p_bw");
    if (rank == 0) {
        double bytes = (double)size * BENCH_WINDOW * (double)it.timed;
        printf("%-12zu %14.2f\n", size, bytes / elapsed / 1e6);
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    /* Empty messages carry no bandwidth, so sizes start at 1 byte. */
    return bench_main(argc, argv, "Uni-directional bandwidth", 1,
                      "zmpi bench: uni-directional bandwidth, window of 64",
                      "MB_per_s", measure_size);
}
