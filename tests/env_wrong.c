/*
 * env_wrong.c: erroneous uses of info objects, memory allocation and window
 * error handlers under the default MPI_ERRORS_ARE_FATAL.  The job must end
 * by itself with a message naming the call, the argument and the class;
 * tests/env.cmake checks the message.
 *
 * Usage: env_wrong <mistake>, where mistake is one of
 *   info_nokey        MPI_Info_delete of a key the object does not have
 *   free_mem_foreign  MPI_Free_mem of memory MPI_Alloc_mem did not give
 *   win_call          MPI_Win_call_errhandler on a window with the default
 *                     handler
 */
#include "zt.h"

int main(int argc, char **argv)
{
    const char *mistake = argc > 1 ? argv[1] : "";
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (strcmp(mistake, "info_nokey") == 0) {
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "present", "1");
        if (rank == 1)
            MPI_Info_delete(info, "absent_key");
        MPI_Info_free(&info);
    } else if (strcmp(mistake, "free_mem_foreign") == 0) {
        char *p = zt_malloc(64);
        if (rank == 0)
            MPI_Free_mem(p);
        free(p);
    } else if (strcmp(mistake, "win_call") == 0) {
        MPI_Win win;
        int *base;
        MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                                &win);
        if (rank == 1)
            MPI_Win_call_errhandler(win, MPI_ERR_RMA_RANGE);
        MPI_Win_free(&win);
    } else {
        fprintf(stderr, "env_wrong: unknown mistake '%s'\n", mistake);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* Reached only if the mistake was not caught. */
    MPI_Finalize();
    return 0;
}
