/*
 * spawn_other.c: a second program for spawn_basic's Comm_spawn_multiple
 * ("spawn_basic multi OTHER"): 2 ranks of it join 5 of spawn_basic in one
 * spawned MPI_COMM_WORLD, as application number 2.  It shares
 * spawn_basic's exchange code.
 */
#define SPAWN_OTHER
#pragma GCC diagnostic ignored "-Wunused-function"
#include "spawn_basic.c"

int main(int argc, char **argv)
{
    MPI_Comm parent;
    int size, rank, *appnum, flag, sum = 0, one = 1;
    MPI_Init(&argc, &argv);
    CHECK(MPI_Comm_get_parent(&parent) == MPI_SUCCESS && parent != MPI_COMM_NULL);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    CHECK(size == 7 && (rank == 5 || rank == 6));
    CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag) == MPI_SUCCESS && flag &&
          *appnum == 2);
    CHECK(argc == 2 && strcmp(argv[1], "from-spawn-basic") == 0);
    CHECK(g_counter == 0);
    g_counter++;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum == size);
    swap_all(parent, 50, 0);
    MPI_Comm_disconnect(&parent);
    MPI_Finalize();
    return 0;
}
