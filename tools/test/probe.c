/* probe.c: what the build-system tests build.  It parses -n with getopt,
 * keeps a count in a global and prints from every rank; with privatized
 * globals each rank sees only its own count. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int counter;

int main(int argc, char **argv)
{
    int rank, size, c, n = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    while ((c = getopt(argc, argv, "n:")) != -1)
        if (c == 'n')
            n = atoi(optarg);
    counter += rank + 1;
    MPI_Barrier(MPI_COMM_WORLD);
    fprintf(stderr, "stderr of rank %d\n", rank);
    printf("rank %d of %d n=%d counter=%d\n", rank, size, n, counter);
    MPI_Finalize();
    return 0;
}
