/*
 * net_pingpong.c: ping-pong between ranks 0 and 1, plain MPI, to compare
 * zmpi across two processes with the bare system MPI on the same source:
 *
 *   zmpirun -n 2 -p 2 ./net_pingpong              # zmpi, one rank per process
 *   mpicc.mpich -O2 bench/net_pingpong.c -o pp && mpiexec.mpich -n 2 ./pp
 *
 * For each size (0 B to 4 MiB, by 4), the best of 5 runs of an iteration
 * count that takes a few milliseconds: half the round-trip time in
 * microseconds and the bandwidth in MB/s.  Optional arguments: the largest
 * size in bytes, and the iteration count below 64 KiB (default 2000; a
 * small count keeps runs under valgrind's callgrind short, for counting
 * instructions per message: docs/net.md).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double run(char *buf, int bytes, int iters, int rank)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        if (rank == 0) {
            MPI_Send(buf, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(buf, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(buf, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        }
    }
    double t = MPI_Wtime() - t0;
    /* Both ranks report rank 0's time. */
    MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return t / iters / 2;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long max = argc > 1 ? atol(argv[1]) : 4L << 20;
    int small_iters = argc > 2 ? atoi(argv[2]) : 2000;
    if (size < 2) {
        if (rank == 0)
            fprintf(stderr, "net_pingpong: needs 2 ranks\n");
        MPI_Finalize();
        return 1;
    }
    char *buf = malloc((size_t)max + 1);
    memset(buf, 1, (size_t)max + 1);
    if (rank == 0)
        printf("%10s %12s %12s\n", "bytes", "usec", "MB/s");
    for (long b = 0; b <= max; b = b ? b * 4 : 1) {
        int iters = b < 65536 ? small_iters : (int)(200000000L / (b * 20)) + 10;
        run(buf, (int)b, iters / 10 + 1, rank); /* warm-up */
        double best = 1e30;
        for (int k = 0; k < 5; k++) {
            double t = run(buf, (int)b, iters, rank);
            if (t < best)
                best = t;
        }
        if (rank == 0)
            printf("%10ld %12.2f %12.1f\n", b, best * 1e6, b ? b / best / 1e6 : 0.0);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
