/*
 * topo_fatal.c: topology mistakes under the default error handler
 * (MPI_ERRORS_ARE_FATAL); the job must end by itself with a message naming
 * the call and the argument.  argv[1] names the mistake:
 *   shift_without_topology   MPI_Cart_shift on MPI_COMM_WORLD
 *   neighbor_without_topology MPI_Neighbor_alltoall on MPI_COMM_WORLD
 *   dims_impossible          MPI_Dims_create(7, {0, 3, 0})
 *   dist_graph_no_newcomm    MPI_Dist_graph_create_adjacent with no place
 *                            for the new communicator
 */
#include "zt.h"

int main(int argc, char **argv)
{
    int rank, src, dst, buf[2] = { 0, 0 }, dims[3] = { 0, 3, 0 };
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *what = argc > 1 ? argv[1] : "";
    if (strcmp(what, "shift_without_topology") == 0)
        MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &src, &dst);
    else if (strcmp(what, "neighbor_without_topology") == 0)
        MPI_Neighbor_alltoall(buf, 1, MPI_INT, buf + 1, 1, MPI_INT, MPI_COMM_WORLD);
    else if (strcmp(what, "dims_impossible") == 0)
        MPI_Dims_create(7, 3, dims);
    else if (strcmp(what, "dist_graph_no_newcomm") == 0)
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_UNWEIGHTED, 0, NULL,
                                       MPI_UNWEIGHTED, MPI_INFO_NULL, 0, NULL);
    else
        fprintf(stderr, "topo_fatal: unknown mistake '%s'\n", what);
    /* Reaching this point means the mistake was not fatal: succeed, so
     * that expect_fail.sh reports it. */
    MPI_Finalize();
    return 0;
}
