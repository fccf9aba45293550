/*
 * threads_omp.c: OpenMP inside ranks (tests/threads.cmake,
 * docs/threads.md).  Built with -fopenmp, both as an ordinary and as a
 * privatized program.
 *
 * 1. Default team size: a rank's regions get omp_get_max_threads()
 *    threads, max(1, CPUs / ranks) unless OMP_NUM_THREADS is set, so
 *    ranks x threads does not oversubscribe the machine; inside a region
 *    omp_get_level() is 1 and the thread numbers are the team's.
 * 2. MPI inside regions at MPI_THREAD_MULTIPLE: every thread of a team of
 *    3 (omp_set_num_threads on the rank's thread) exchanges messages with
 *    the same thread of the neighbouring ranks (tag = thread number).
 * 3. Default-size regions whose thread blocks in MPI while the other
 *    ranks of its worker open regions of their own; a dynamic loop with a
 *    message per iteration; sections; reductions.
 * 4. Critical sections are per rank: a critical section around an MPI
 *    exchange with another rank (the usual MPI_THREAD_SERIALIZED idiom),
 *    which one lock for all ranks would deadlock; named critical sections
 *    counting, and omp_set_lock.
 *
 * Usage: zt_threads_omp [rounds (10)]
 */
#include "zt.h"

#include <omp.h>

static void exchange(int rank, int size, int tag, int salt)
{
    int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
    int out = rank * 1000 + salt, in = -1;
    MPI_Sendrecv(&out, 1, MPI_INT, next, tag, &in, 1, MPI_INT, prev, tag, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    ZT_EQ(in, prev * 1000 + salt, "value exchanged inside a parallel region");
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    ZT_EQ(provided, MPI_THREAD_MULTIPLE, "provided");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int rounds = argc > 1 ? atoi(argv[1]) : 10;

    /* 1. Default size. */
    int procs = omp_get_num_procs(), maxt = omp_get_max_threads();
    const char *env = getenv("OMP_NUM_THREADS");
    int expect = env && *env ? atoi(env) : (procs / size > 1 ? procs / size : 1);
    ZT_EQ(maxt, expect, "default omp_get_max_threads in a rank");
    int team = -1, level = -1, bad = 0;
#pragma omp parallel
    {
#pragma omp master
        {
            team = omp_get_num_threads();
            level = omp_get_level();
        }
        if (omp_get_thread_num() >= omp_get_num_threads())
            bad = 1;
    }
    ZT_EQ(team, maxt, "team size of a default region");
    ZT_EQ(level, 1, "omp_get_level in a region");
    ZT_EQ(bad, 0, "thread numbers within the team");

    for (int r = 0; r < rounds; r++) {
        /* 2. Teams of 3, every thread exchanging. */
        omp_set_num_threads(3);
        ZT_EQ(omp_get_max_threads(), 3, "omp_get_max_threads after omp_set_num_threads");
        int seen = 0;
#pragma omp parallel reduction(+ : seen)
        {
            int t = omp_get_thread_num();
            ZT_EQ(omp_get_num_threads(), 3, "team size after omp_set_num_threads(3)");
            exchange(rank, size, 100 + t, r * 10 + t);
            int mainflag = -1;
            MPI_Is_thread_main(&mainflag);
            ZT_EQ(mainflag, t == 0, "MPI_Is_thread_main of the region's master");
            seen += 1;
        }
        ZT_EQ(seen, 3, "reduction over a team of 3");
        omp_set_num_threads(expect);

        /* 3. Default regions blocking in MPI; a dynamic loop; sections. */
#pragma omp parallel
        {
#pragma omp single
            exchange(rank, size, 200, r);
        }
        long total = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : total)
        for (int i = 0; i < 8; i++) {
            exchange(rank, size, 300 + i, r * 100 + i);
            total += i;
        }
        ZT_EQ(total, 28, "sum of a dynamic loop");
        int s1 = 0, s2 = 0;
#pragma omp parallel sections
        {
#pragma omp section
            {
                exchange(rank, size, 400, r);
                s1 = 1;
            }
#pragma omp section
            {
                exchange(rank, size, 401, r);
                s2 = 1;
            }
        }
        ZT_CHECK(s1 && s2, "sections ran");

        /* 4. A critical section around a message to another rank, in teams
         * of 2 (one lock for all ranks would have rank 0 hold it while
         * waiting for rank 1, which waits for the lock). */
        int count = 0;
#pragma omp parallel num_threads(2) reduction(+ : count)
        {
#pragma omp critical
            exchange(rank, size, 500, r);
#pragma omp critical(counter)
            count++;
        }
        ZT_EQ(count, 2, "named critical sections");
    }

    omp_lock_t lock;
    omp_init_lock(&lock);
    int locked = 0;
#pragma omp parallel num_threads(2) reduction(+ : locked)
    {
        omp_set_lock(&lock);
        locked++;
        omp_unset_lock(&lock);
    }
    omp_set_lock(&lock);
    omp_unset_lock(&lock);
    omp_destroy_lock(&lock);
    ZT_EQ(locked, 2, "omp_set_lock in a team");

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("threads_omp: %d ranks, default team %d, %d rounds: OK\n", size, maxt, rounds);
    MPI_Finalize();
    return 0;
}
