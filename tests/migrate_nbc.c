/*
 * migrate_nbc.c: a non-blocking collective in flight keeps every rank of
 * the job in its process (tests/migrate.cmake; docs/migrate.md, "Across
 * processes": a move drops the collective state of every communicator in
 * every process, which the operation may be using).
 *
 * Run with zmpirun --checkpoint -n 6 -p 2 --interleave and
 * ZMPI_LB_PROC=rotate.  Ranks 0 and 2 (both in process 0) share a
 * communicator of their own; at each of ITERS rounds they start an
 * MPI_Iallreduce on it and complete it only after ZMPI_Migrate.  The other
 * ranks hold no request: with point-to-point requests they would move
 * (tests/migrate_net.c, MIG_MODE=pending), here nobody may.  Every
 * reduction is checked; rank 0 prints the moves the ranks saw (0).
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <sys/types.h>
#include <unistd.h>

#define ITERS 4

int main(int argc, char **argv)
{
    int me, np, moves = 0, all = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int pair = me == 0 || me == 2;
    MPI_Comm c;
    MPI_Comm_split(MPI_COMM_WORLD, pair ? 0 : MPI_UNDEFINED, me, &c);
    for (int iter = 0; iter < ITERS; iter++) {
        MPI_Request r = MPI_REQUEST_NULL;
        long in = me + 10L * iter, out = -1;
        if (pair)
            MPI_Iallreduce(&in, &out, 1, MPI_LONG, MPI_SUM, c, &r);
        pid_t before = getpid();
        ZMPI_Migrate(MPI_INFO_NULL);
        moves += getpid() != before;
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (pair && out != 2 + 20L * iter) {
            fprintf(stderr, "rank %d: reduction wrong: %ld at round %d\n", me, out, iter);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        /* A reduction over every rank after the call. */
        long sum = 0, one = 1;
        MPI_Allreduce(&one, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        if (sum != np)
            MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (pair)
        MPI_Comm_free(&c);
    MPI_Reduce(&moves, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0)
        printf("migrate_nbc: %d ranks, %d moves, ok\n", np, all);
    MPI_Finalize();
    return 0;
}
