/*
 * priv_tls.c: a privatized program with a thread-local variable, which
 * zmpi's own loader leaves to the dlopen path (the dynamic loader sets up
 * thread-local storage).  By default it runs; with ZMPI_LOADER=zmpi it
 * must fail before any rank starts, saying why.
 */
#include <mpi.h>
#include <stdio.h>

static __thread volatile int per_thread = 3;
static int per_rank;

int main(int argc, char **argv)
{
    int rank, bad, all = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    per_rank = rank;
    MPI_Barrier(MPI_COMM_WORLD);
    bad = per_rank != rank || per_thread != 3;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    if (rank == 0 && all == 0)
        printf("priv_tls: OK\n");
    return all != 0;
}
