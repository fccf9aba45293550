/*
 * rma_wrong.c: erroneous one-sided programs that zmpi must stop with a
 * clear message (argument: the mistake).
 *   put_out_of_range    rank 0 puts past the end of rank 1's window
 *   lock_deadlock       rank 0 holds an exclusive lock and waits in a
 *                       receive that rank 1, waiting for the lock, never sends
 *   shared_lock_deadlock  rank 1 holds a shared lock on rank 0 and waits in
 *                       a receive that rank 0, waiting for an exclusive
 *                       lock on itself, never sends
 *   start_without_post  rank 0 starts an access epoch to rank 1, which
 *                       never posts
 *   unlock_without_lock rank 1 unlocks a target it never locked
 *   fence_skipped       rank 0 waits in a receive instead of the fence
 *                       the others are in
 */
#include "zt.h"

/* A lock cycle on rank 0's window: `holder` locks it (`kind`) and waits in
 * a receive from `waiter`, which first hears from the holder, then waits
 * for an exclusive lock and would only then send. */
static void lock_cycle(int rank, int holder, int waiter, int kind, MPI_Win win)
{
    int v = 7;
    if (rank == holder) {
        MPI_Win_lock(kind, 0, 0, win);
        MPI_Send(&v, 1, MPI_INT, waiter, 0, MPI_COMM_WORLD);
        MPI_Recv(&v, 1, MPI_INT, waiter, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Win_unlock(0, win);
    } else if (rank == waiter) {
        MPI_Recv(&v, 1, MPI_INT, holder, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Send(&v, 1, MPI_INT, holder, 1, MPI_COMM_WORLD);
        MPI_Win_unlock(0, win);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, v = 7;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *m = argc > 1 ? argv[1] : "";
    int *base;
    MPI_Win win;
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_set_name(win, "lockwin");
    if (strcmp(m, "put_out_of_range") == 0) {
        MPI_Win_fence(0, win);
        if (rank == 0)
            MPI_Put(&v, 1, MPI_INT, 1, 100, 1, MPI_INT, win);
        MPI_Win_fence(0, win);
    } else if (strncmp(m, "lock_deadlock", 13) == 0) { /* also lock_deadlock_2w */
        lock_cycle(rank, 0, 1, MPI_LOCK_EXCLUSIVE, win);
    } else if (strcmp(m, "shared_lock_deadlock") == 0) {
        /* The held lock is a shared one: on a direct window, one atomic
         * operation that the target's process does not see. */
        lock_cycle(rank, 1, 0, MPI_LOCK_SHARED, win);
    } else if (strcmp(m, "start_without_post") == 0) {
        if (rank == 0) {
            MPI_Group world, g;
            int one = 1;
            MPI_Comm_group(MPI_COMM_WORLD, &world);
            MPI_Group_incl(world, 1, &one, &g);
            MPI_Win_start(g, 0, win);
            MPI_Win_complete(win);
        }
    } else if (strcmp(m, "unlock_without_lock") == 0) {
        if (rank == 1)
            MPI_Win_unlock(0, win);
    } else if (strcmp(m, "fence_skipped") == 0) {
        if (rank == 0)
            MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Win_fence(0, win);
        if (rank == 1)
            MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    } else {
        fprintf(stderr, "rma_wrong: unknown mistake '%s'\n", m);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
