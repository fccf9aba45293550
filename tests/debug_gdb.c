/*
 * debug_gdb.c: a program stopped in gdb with ranks in different states,
 * for tools/gdb/zmpi.py (tests/debug_gdb.sh).  Every rank sets the global
 * g to 100 + rank.  Rank 0 waits in MPI_Recv for rank 1; rank 1 waits for
 * the last rank, then calls stop_here (the breakpoint); the others wait in
 * MPI_Barrier.  So at the breakpoint rank 1 runs and every other rank is
 * inside an MPI call.
 */
#include <mpi.h>
#include <stdio.h>

int g = -1;

/* The breakpoint's place; not inlined, so gdb can stop in it. */
__attribute__((noinline)) void stop_here(int rank)
{
    printf("rank %d at the breakpoint, g %d\n", rank, g);
}

int main(int argc, char **argv)
{
    int rank, size, v = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    g = 100 + rank;
    if (rank == 0) {
        MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* LINE recv */
    } else if (rank == 1) {
        MPI_Recv(&v, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        stop_here(rank);
        MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    } else if (rank == size - 1) {
        MPI_Send(&rank, 1, MPI_INT, 1, 0, MPI_COMM_WORLD); /* LINE send */
    }
    MPI_Barrier(MPI_COMM_WORLD); /* LINE barrier */
    if (rank == 0)
        printf("debug_gdb: done, g %d\n", g);
    MPI_Finalize();
    return 0;
}
