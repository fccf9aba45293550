/*
 * oversub.c: what a job costs when the host's cores are busy with other
 * work (issue 23, item 4).  Plain MPI, so the same source runs on zmpi,
 * MPICH and Open MPI:
 *
 *   comm    COMMS rounds of MPI_Comm_split + MPI_Comm_dup + two frees and a
 *           barrier on the duplicate, on every rank (communicator-heavy
 *           set-up code: each round is a few collective hand-offs);
 *   pp      PP ping-pongs of 8 bytes between ranks 0 and 1 (other ranks
 *           wait in a barrier).
 *
 * Prints one line: "comm <seconds> pp <microseconds per half round trip>",
 * timed on rank 0 between barriers.  Arguments: COMMS (default 2000), PP
 * (default 20000).  bench/oversub_run.sh runs it 20 times per MPI with and
 * without a competing load and reports the median and the worst run.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double comm_rounds(int rounds, int rank)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < rounds; i++) {
        MPI_Comm half, dup;
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
        MPI_Comm_dup(half, &dup);
        MPI_Barrier(dup);
        MPI_Comm_free(&dup);
        MPI_Comm_free(&half);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return MPI_Wtime() - t0;
}

static double ping_pong(int iters, int rank)
{
    char b[8] = { 0 };
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters && rank < 2; i++) {
        if (rank == 0) {
            MPI_Send(b, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(b, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(b, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(b, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return (MPI_Wtime() - t0) / iters / 2 * 1e6;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int comms = argc > 1 ? atoi(argv[1]) : 2000, pp = argc > 2 ? atoi(argv[2]) : 20000;
    if (size < 2 || comms < 1 || pp < 1) {
        if (rank == 0)
            fprintf(stderr, "oversub: needs 2 ranks or more, COMMS >= 1, PP >= 1\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double tc = comm_rounds(comms, rank);
    double tp = ping_pong(pp, rank);
    if (rank == 0)
        printf("comm %.4f pp %.3f\n", tc, tp);
    MPI_Finalize();
    return 0;
}
