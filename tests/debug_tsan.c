/*
 * debug_tsan.c: an MPI program for ThreadSanitizer on virtual ranks.
 * Without an argument it is correct, and TSan must report nothing: rounds
 * of point-to-point messages (blocking, non-blocking, eager and large),
 * collectives and a window with Put and fences, between ranks that zmpi
 * switches and moves between workers, and in each rank two threads of its
 * own that hand data over through pthread_join, and memory of an
 * MPI_Win_allocate_shared window that ranks write and read in turn,
 * ordered by MPI_Barrier, MPI_Win_fence and MPI_Win_lock.  With an
 * argument there is one race, on the line marked "MARK <argument>", which
 * TSan must report with this file and that line:
 *   race         the last rank's two threads both write one variable
 *   shared_race  ranks 0 and 1 write one word of the shared window with
 *                no MPI call between them
 * Run by tests/debug_tsan.sh.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIG 20000

/* Each rank's copy of a privatized program has its own. */
static long counter;
static int racy;

static void *bump(void *arg)
{
    for (int i = 0; i < 1000; i++) {
        if (racy)
            counter++; /* MARK race */
    }
    return arg;
}

/* Two threads of the rank: correct unless racy is set (then both write
 * counter at once). */
static int threads(void)
{
    pthread_t t[2];
    long before = counter;
    for (int i = 0; i < 2; i++)
        if (pthread_create(&t[i], NULL, bump, NULL) != 0)
            return 1;
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    /* Read after the joins: ordered. */
    return !racy && counter != before;
}

/* One round of messages around the ring and collectives; nonzero on a
 * wrong value. */
static int round_trip(int rank, int size, int round, double *big, double *in)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size, bad = 0;
    int got = -1;
    MPI_Sendrecv(&round, 1, MPI_INT, right, 1, &got, 1, MPI_INT, left, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    bad |= got != round;
    for (int i = 0; i < BIG; i++)
        big[i] = rank * 1000.0 + round + i;
    MPI_Request rq[2];
    MPI_Irecv(in, BIG, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(big, BIG, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    bad |= in[7] != left * 1000.0 + round + 7;
    int sum = 0, root = round % size, b = rank == root ? round : -1;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    bad |= sum != size * (size - 1) / 2;
    MPI_Bcast(&b, 1, MPI_INT, root, MPI_COMM_WORLD);
    bad |= b != round;
    int *to = malloc(sizeof(int) * (size_t)size), *from = malloc(sizeof(int) * (size_t)size);
    for (int i = 0; i < size; i++)
        to[i] = rank * size + i;
    MPI_Alltoall(to, 1, MPI_INT, from, 1, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < size; i++)
        bad |= from[i] != i * size + rank;
    free(to);
    free(from);
    return bad;
}

/* Every rank puts its rank into its right neighbour's window between
 * fences. */
static int window(int rank, int size)
{
    int cell = -1, bad;
    MPI_Win win;
    MPI_Win_create(&cell, sizeof cell, sizeof cell, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    MPI_Put(&rank, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    bad = cell != (rank + size - 1) % size;
    MPI_Win_free(&win);
    return bad;
}

/* A shared window: one int per rank, all in rank 0's segment; nonzero
 * on a wrong value. */
static int shared(int rank, int size, int racy_shared)
{
    MPI_Win win;
    int *mine, *all, du, bad = 0;
    MPI_Aint sz;
    MPI_Win_allocate_shared(rank == 0 ? (MPI_Aint)sizeof(int) * size : 0, sizeof(int),
                            MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win);
    MPI_Win_shared_query(win, 0, &sz, &du, &all);
    if (racy_shared) {
        if (rank < 2)
            all[0] = rank; /* MARK shared_race */
        MPI_Win_free(&win);
        return 0;
    }
    /* Ordered by a barrier: rank 0 writes, everybody reads. */
    if (rank == 0)
        for (int i = 0; i < size; i++)
            all[i] = 100 + i;
    MPI_Barrier(MPI_COMM_WORLD);
    bad |= all[rank] != 100 + rank;
    MPI_Barrier(MPI_COMM_WORLD);
    /* Ordered by fences: each rank writes its word, then reads its
     * neighbour's. */
    MPI_Win_fence(0, win);
    all[rank] = rank;
    MPI_Win_fence(0, win);
    bad |= all[(rank + 1) % size] != (rank + 1) % size;
    MPI_Win_fence(0, win);
    /* Ordered by an exclusive lock: every rank adds to word 0. */
    if (rank == 0)
        all[0] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    all[0] += 1;
    MPI_Win_unlock(0, win);
    MPI_Barrier(MPI_COMM_WORLD);
    bad |= all[0] != size;
    MPI_Win_free(&win);
    return bad;
}

int main(int argc, char **argv)
{
    int rank, size, bad = 0, any = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    racy = argc > 1 && strcmp(argv[1], "race") == 0 && rank == size - 1;
    double *big = malloc(sizeof(double) * BIG), *in = malloc(sizeof(double) * BIG);
    for (int round = 0; round < 20; round++) {
        bad |= round_trip(rank, size, round, big, in);
        if (round % 5 == 0)
            bad |= threads();
    }
    bad |= window(rank, size);
    bad |= shared(rank, size, argc > 1 && strcmp(argv[1], "shared_race") == 0);
    free(big);
    free(in);
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (rank == 0)
        printf("debug_tsan: %s\n", any ? "WRONG RESULTS" : "ok");
    MPI_Finalize();
    return any;
}
