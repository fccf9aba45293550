/* ranks.c: prints the job's rank count once ("ranks: N"), for
 * zmpirun_test.sh to tell a job that runs its ranks inside one program
 * (zmpirun -n 3 env X=1 ranks) from copies of it. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0)
        printf("ranks: %d\n", size);
    MPI_Finalize();
    return 0;
}
