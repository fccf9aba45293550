/*
 * pcoll_wrong.c: mistakes with persistent collectives under the default
 * error handler, MPI_ERRORS_ARE_FATAL.  The job must end with a message
 * naming the call, what is wrong and the rank (checked by
 * tests/expect_fail.sh).  argv[1] names the mistake:
 *   start_active  MPI_Start on a persistent Allreduce still running
 *   init_inter    MPI_Reduce_init on an intercommunicator with root 9,
 *                 neither MPI_ROOT, MPI_PROC_NULL nor a remote rank
 *   bad_root      MPI_Bcast_init with root 9 on 2 ranks
 */
#include "zt.h"

int main(int argc, char **argv)
{
    int rank, size, x = 1, y = 0;
    const char *what = argc > 1 ? argv[1] : "";
    MPI_Request r;
    ZT_OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (!strcmp(what, "start_active")) {
        MPI_Allreduce_init(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
        MPI_Start(&r);
        MPI_Start(&r);
    } else if (!strcmp(what, "init_inter") && size >= 2) {
        MPI_Comm half, inter;
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 5, &inter);
        MPI_Reduce_init(&x, &y, 1, MPI_INT, MPI_SUM, 9, inter, MPI_INFO_NULL, &r);
    } else if (!strcmp(what, "bad_root")) {
        MPI_Bcast_init(&x, 1, MPI_INT, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
    }
    fprintf(stderr, "pcoll_wrong: mistake '%s' was not reported\n", what);
    MPI_Finalize();
    return 3;
}
