/*
 * rma_sync.c: synchronization modes.
 *
 *   - PSCW: each rank exposes its window to its left neighbour and puts
 *     into its right one, for several epochs in a row (an early post for a
 *     later epoch must not open the current one), with Win_wait and with a
 *     Win_test loop;
 *   - exclusive locks: every rank increments a counter with Get and Put
 *     (yielding in between with flush) under MPI_LOCK_EXCLUSIVE: the total
 *     is exact only if the lock excludes;
 *   - fairness: ranks keep taking shared locks until an exclusive locker
 *     has had its turn; it must get it (otherwise the test times out);
 *   - request forms Rput, Rget, Raccumulate, Rget_accumulate in lock_all;
 *   - polling with lock/Get/unlock epochs: every rank but 0 reads rank 0's
 *     flag in shared-lock epochs until rank 0, which runs only once they
 *     poll (it waits for their messages), sets it in an exclusive one;
 *   - the mpi4py.util.sync pattern: a mutex from Compare_and_swap and a
 *     condition from Fetch_and_op, waited for with flush spin loops while
 *     the other ranks sit in MPI_Barrier, then in MPI_Win_free.
 */
#include "zt.h"

static void pscw(MPI_Win win, int *base, int rank, int size, int use_test)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Group world, lg, rg;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &left, &lg);
    MPI_Group_incl(world, 1, &right, &rg);
    for (int epoch = 0; epoch < 20; epoch++) {
        ZT_OK(MPI_Win_post(lg, 0, win));
        ZT_OK(MPI_Win_start(rg, 0, win));
        int v = rank * 1000 + epoch;
        ZT_OK(MPI_Put(&v, 1, MPI_INT, right, epoch % 4, 1, MPI_INT, win));
        ZT_OK(MPI_Win_complete(win));
        if (use_test) {
            int flag = 0;
            while (!flag)
                ZT_OK(MPI_Win_test(win, &flag));
        } else {
            ZT_OK(MPI_Win_wait(win));
        }
        ZT_EQ(base[epoch % 4], left * 1000 + epoch, "element put in this PSCW epoch");
    }
    MPI_Group_free(&world);
    MPI_Group_free(&lg);
    MPI_Group_free(&rg);
}

static void exclusive(MPI_Win win, int *base, int rank, int size)
{
    if (rank == 0)
        base[4] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 50; i++) {
        int v;
        ZT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        ZT_OK(MPI_Get(&v, 1, MPI_INT, 0, 4, 1, MPI_INT, win));
        ZT_OK(MPI_Win_flush(0, win));
        v++;
        ZT_OK(MPI_Put(&v, 1, MPI_INT, 0, 4, 1, MPI_INT, win));
        ZT_OK(MPI_Win_unlock(0, win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        ZT_EQ(base[4], 50 * size, "counter updated under exclusive locks");
}

/* Ranks other than 1 hold shared locks on rank 0 in overlapping turns
 * (each yields with flush while holding it) until they read done = 1;
 * rank 1 asks for an exclusive lock and sets done. */
static void fairness(MPI_Win win, int *base, int rank, int size)
{
    if (size < 2)
        return;
    if (rank == 0)
        base[5] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        int one = 1;
        ZT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        ZT_OK(MPI_Put(&one, 1, MPI_INT, 0, 5, 1, MPI_INT, win));
        ZT_OK(MPI_Win_unlock(0, win));
    } else {
        int done = 0;
        long turns = 0;
        while (!done) {
            ZT_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
            ZT_OK(MPI_Get(&done, 1, MPI_INT, 0, 5, 1, MPI_INT, win));
            ZT_OK(MPI_Win_flush(0, win));
            ZT_OK(MPI_Win_unlock(0, win));
            turns++;
        }
        ZT_CHECK(turns < 10000000, "the exclusive locker waited %ld turns", turns);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void requests(MPI_Win win, int *base, int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    base[6] = base[7] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Request rq[4];
    int v = rank + 1, g = -1, one = 1, old = -1;
    ZT_OK(MPI_Win_lock_all(0, win));
    ZT_OK(MPI_Rput(&v, 1, MPI_INT, right, 6, 1, MPI_INT, win, &rq[0]));
    ZT_OK(MPI_Raccumulate(&one, 1, MPI_INT, 0, 7, 1, MPI_INT, MPI_SUM, win, &rq[1]));
    ZT_OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    ZT_OK(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    ZT_OK(MPI_Win_lock_all(0, win));
    ZT_OK(MPI_Rget(&g, 1, MPI_INT, left, 6, 1, MPI_INT, win, &rq[2]));
    ZT_OK(MPI_Rget_accumulate(&one, 1, MPI_INT, &old, 1, MPI_INT, left, 6, 1, MPI_INT,
                              MPI_SUM, win, &rq[3]));
    ZT_OK(MPI_Wait(&rq[2], MPI_STATUS_IGNORE));
    int flag = 0;
    ZT_OK(MPI_Test(&rq[3], &flag, MPI_STATUS_IGNORE));
    ZT_CHECK(flag && rq[3] == MPI_REQUEST_NULL, "an RMA request is complete at once");
    ZT_OK(MPI_Win_unlock_all(win));
    int left2 = (left + size - 1) % size;
    ZT_EQ(g, left2 + 1, "element got with MPI_Rget");
    ZT_EQ(old, left2 + 1, "element fetched with MPI_Rget_accumulate");
    MPI_Barrier(MPI_COMM_WORLD);
    ZT_EQ(base[6], left + 2, "element after the right neighbour's Rget_accumulate");
    if (rank == 0)
        ZT_EQ(base[7], size, "element after every rank's Raccumulate");
}

/* mpi4py.util.sync-style mutex (word 8 of rank 0, 0 = free) and counter
 * (word 9), and a condition (word 10) rank 0 waits for. */
static void mutex_acquire(MPI_Win win, int rank)
{
    int me = rank + 1, zero = 0, got = -1;
    for (;;) {
        ZT_OK(MPI_Compare_and_swap(&me, &zero, &got, MPI_INT, 0, 8, win));
        ZT_OK(MPI_Win_flush(0, win));
        if (got == 0)
            return;
    }
}

static void mutex_release(MPI_Win win, int rank)
{
    int zero = 0, got = -1;
    ZT_OK(MPI_Fetch_and_op(&zero, &got, MPI_INT, 0, 8, MPI_REPLACE, win));
    ZT_OK(MPI_Win_flush(0, win));
    ZT_EQ(got, rank + 1, "mutex owner at release");
}

/* Rank 0 spins until word 10 reaches `want`. */
static void cond_wait(MPI_Win win, int want)
{
    int got = -1, dummy = 0;
    do {
        ZT_OK(MPI_Fetch_and_op(&dummy, &got, MPI_INT, 0, 10, MPI_NO_OP, win));
        ZT_OK(MPI_Win_flush(0, win));
    } while (got < want);
}

static void sync_pattern(int rank, int size, int in_free)
{
    int *base;
    MPI_Win win;
    ZT_OK(MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                           &win));
    for (int i = 0; i < 16; i++)
        base[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    ZT_OK(MPI_Win_lock_all(0, win));
    if (rank == 0) {
        /* Take the mutex first so the others spin on it, then wait on the
         * condition, which needs them all to have passed the mutex. */
        mutex_acquire(win, rank);
        mutex_release(win, rank);
        cond_wait(win, size - 1);
    } else {
        int one = 1, v, got;
        mutex_acquire(win, rank);
        ZT_OK(MPI_Get(&v, 1, MPI_INT, 0, 9, 1, MPI_INT, win));
        ZT_OK(MPI_Win_flush(0, win));
        v++;
        ZT_OK(MPI_Put(&v, 1, MPI_INT, 0, 9, 1, MPI_INT, win));
        ZT_OK(MPI_Win_flush(0, win));
        mutex_release(win, rank);
        ZT_OK(MPI_Fetch_and_op(&one, &got, MPI_INT, 0, 10, MPI_SUM, win));
        ZT_OK(MPI_Win_flush(0, win));
    }
    ZT_OK(MPI_Win_unlock_all(win));
    if (!in_free)
        MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        ZT_EQ(base[9], size - 1, "counter guarded by the mutex");
        ZT_EQ(base[10], size - 1, "condition count");
    }
    ZT_OK(MPI_Win_free(&win));
}

/* Ranks 1.. send rank 0 a message, then poll its flag base[15] with
 * shared-lock epochs and no other MPI call (the pattern of linked-list
 * appends that wait for a neighbour's element); rank 0 receives every
 * message, then sets the flag under an exclusive lock.  On a worker shared
 * with rank 0, the pollers must let it run: unlock yields, as flush does. */
static void lock_polling(MPI_Win win, int *base, int rank, int size)
{
    int one = 1, v = 0;
    if (rank == 0) {
        ZT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        base[15] = 0;
        ZT_OK(MPI_Win_unlock(0, win));
    }
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        for (int r = 1; r < size; r++)
            ZT_OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 77, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
        ZT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        ZT_OK(MPI_Put(&one, 1, MPI_INT, 0, 15, 1, MPI_INT, win));
        ZT_OK(MPI_Win_unlock(0, win));
    } else {
        ZT_OK(MPI_Send(&rank, 1, MPI_INT, 0, 77, MPI_COMM_WORLD));
        while (v == 0) {
            ZT_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
            ZT_OK(MPI_Get(&v, 1, MPI_INT, 0, 15, 1, MPI_INT, win));
            ZT_OK(MPI_Win_unlock(0, win));
        }
    }
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *base;
    MPI_Win win;
    ZT_OK(MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                           &win));
    pscw(win, base, rank, size, 0);
    pscw(win, base, rank, size, 1);
    exclusive(win, base, rank, size);
    fairness(win, base, rank, size);
    requests(win, base, rank, size);
    lock_polling(win, base, rank, size);
    ZT_OK(MPI_Win_free(&win));
    sync_pattern(rank, size, 0);
    sync_pattern(rank, size, 1);
    MPI_Finalize();
    return 0;
}
