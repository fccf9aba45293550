/*
 * p2p_latency.c: ping-pong latency between ranks 0 and 1.
 *
 * For each message size, rank 0 sends a message with MPI_Send and waits for
 * rank 1 to send one of the same size back (blocking MPI_Recv).  The printed
 * latency is half of the average round trip, in microseconds.  Ranks beyond
 * 1 only take part in the barriers.
 */
#include "bench_common.h"

#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#define TAG_PING 1

/*
 * Small sizes run 20000 round trips; from 16 KiB on the count falls so
 * that each size moves about 320 MiB per direction, but never below 20.
 */
static const struct bench_policy latency_policy = {
    .max_iters = 20000,
    .min_iters = 20,
    .byte_budget = 320.0 * 1024 * 1024,
    .bytes_per_iter = 1.0,
};

/* Runs iters round trips of size bytes and returns the elapsed seconds as
 * seen by this rank (only rank 0's value is reported). */
static double ping_pong(unsigned char *sbuf, unsigned char *rbuf, size_t size,
                        long iters, int rank)
{
    int count = (int)size;
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    for (long i = 0; i < iters; i++) {
        if (rank == 0) {
            MPI_Send(sbuf, count, MPI_BYTE, 1, TAG_PING, MPI_COMM_WORLD);
            MPI_Recv(rbuf, count, MPI_BYTE, 1, TAG_PING, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(rbuf, count, MPI_BYTE, 0, TAG_PING, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            MPI_Send(sbuf, count, MPI_BYTE, 0, TAG_PING, MPI_COMM_WORLD);
        }
    }
    return MPI_Wtime() - start;
}

/* Measures one size: warm-up, check, timed run, check, and prints the
 * latency on rank 0. */
static void measure_size(unsigned char *sbuf, unsigned char *rbuf,
                         size_t size, int index, int rank, double factor)
{
    struct bench_iters it = bench_iters_for(&latency_policy, size, factor);
    int peer = rank == 0 ? 1 : 0;
    int active = rank < 2;

    if (active) {
        bench_mark(sbuf, size, rank, index);
        bench_clear(rbuf, size, peer, index);
    }
    ping_pong(sbuf, rbuf, size, it.warmup, rank);
    if (active) {
        bench_check(rbuf, size, peer, index, "p2p_latency");
        bench_clear(rbuf, size, peer, index);
    }
    double elapsed = ping_pong(sbuf, rbuf, size, it.timed, rank);
    if (active)
        bench_check(rbuf, size, peer, index, "p2p_latency");
    if (rank == 0) {
        double usec = elapsed * 1e6 / (2.0 * (double)it.timed);
        printf("%-12zu %14.3f\n", size, usec);
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    return bench_main(argc, argv, "Ping-pong latency", 0,
                      "zmpi bench: ping-pong latency (half round trip)",
                      "latency_us", measure_size);
}
