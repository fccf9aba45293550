/*
 * p2p_stream_gather.c: wake-up migration on a busy host gathers a stream's
 * ranks onto the waker's worker (src/ult/ult.c, zm_ult_wake).
 *
 * Rank 0 streams windows of 8-byte messages to the last rank, which waits
 * for each window in MPI_Waitall.  Before each window rank 0 computes
 * (reads the clock) for a while, so that the receiver's worker runs out of
 * work and goes to sleep: the wake-up of the receiver then finds its
 * worker asleep, and on a busy host runs it on the waker's worker instead.
 * Run with ZMPI_WAKE_MIGRATE=always, which takes the busy host's
 * decisions on a quiet one, and ZMPI_STEAL=0, so that no idle worker
 * takes a rank back.
 *
 *   pair     (one rank per worker) the pair ends on one worker thread:
 *            apart, a two-rank stream needs both cores at once, which a
 *            busy host rarely gives (bench/results/p2p.md);
 *   crowded  (more ranks than workers) the last rank, alone on its
 *            worker, ends on the crowded waker's worker thread.
 *
 * The compute time only makes the sleeps likely, it synchronises nothing:
 * the check comes after many windows, once one wake-up found the
 * receiver's worker asleep or slow, and every window's messages are
 * checked.
 */
#define _GNU_SOURCE /* syscall */
#include "zt.h"

#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define WINDOW 64
#define WINDOWS 12
#define COMPUTE_S 0.03

/* The OS thread running the caller (its worker).  Not pthread_self():
 * glibc lets the compiler keep that in a register across calls, and a
 * rank may resume on another thread. */
static long long my_thread(void)
{
    return (long long)syscall(SYS_gettid);
}

/* Nonzero if rank 0 and the last rank run on one worker thread: each
 * reads its thread first, then all exchange what they read. */
static int pair_together(int size)
{
    long long t = my_thread(), *all = zt_malloc(sizeof(long long) * (size_t)size);
    ZT_OK(MPI_Allgather(&t, 1, MPI_LONG_LONG, all, 1, MPI_LONG_LONG, MPI_COMM_WORLD));
    int same = all[0] == all[size - 1];
    free(all);
    return same;
}

/* One window from rank 0 to rank `last`, checked byte for byte. */
static void window(int rank, int last, int w)
{
    MPI_Request q[WINDOW];
    long bufs[WINDOW];
    if (rank == 0) {
        double t = MPI_Wtime();
        while (MPI_Wtime() - t < COMPUTE_S)
            ;
        for (int i = 0; i < WINDOW; i++) {
            bufs[i] = (long)w * WINDOW + i;
            ZT_OK(MPI_Isend(&bufs[i], 1, MPI_LONG, last, 5, MPI_COMM_WORLD, &q[i]));
        }
        ZT_OK(MPI_Waitall(WINDOW, q, MPI_STATUSES_IGNORE));
    } else if (rank == last) {
        for (int i = 0; i < WINDOW; i++)
            ZT_OK(MPI_Irecv(&bufs[i], 1, MPI_LONG, 0, 5, MPI_COMM_WORLD, &q[i]));
        ZT_OK(MPI_Waitall(WINDOW, q, MPI_STATUSES_IGNORE));
        for (int i = 0; i < WINDOW; i++)
            ZT_EQ(bufs[i], (long)w * WINDOW + i, "message of the window");
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ZT_CHECK(argc == 2 && (strcmp(argv[1], "pair") == 0 || strcmp(argv[1], "crowded") == 0),
             "usage: p2p_stream_gather pair|crowded");
    ZT_CHECK(size >= 2, "needs 2 ranks or more, has %d", size);
    ZT_CHECK(!pair_together(size), "the stream's ranks start on one worker (run them on two)");
    for (int w = 0; w < WINDOWS; w++) {
        window(rank, size - 1, w);
        ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    ZT_CHECK(pair_together(size), "the receiver, woken while its worker slept, never moved "
             "to the waker's worker (%s)", argv[1]);
    MPI_Finalize();
    return 0;
}
