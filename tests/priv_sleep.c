/*
 * priv_sleep.c: sleeping ranks of a privatized program park only
 * themselves (src/mpi/launch_sleep.c, src/ult/ult_timer.c).
 *
 *   overlap <call>  2 ranks on 1 worker: rank 0 tells rank 1 to go and
 *                   sleeps with <call> (sleep, usleep, nanosleep, clock_rel,
 *                   clock_abs_mono, clock_abs_real); rank 1 then sends it
 *                   a message stamped with the send time, and stores the
 *                   stamp where rank 0 told it.  Rank 0 sleeps again while
 *                   the stamp is not there (8 sleeps at most, no MPI call
 *                   between them); it must come, from before rank 0's last
 *                   wake: a sleep that blocked the worker would keep rank 1
 *                   from running until rank 0 woke.
 *   many            every rank sleeps 1 s; the whole takes < 2.5 s (8 ranks
 *                   on 2 workers took 4 s when a sleep blocked its worker).
 *   nodeadlock      rank 0 sleeps 2 s while the others wait for it in
 *                   MPI_Recv and MPI_Barrier: no deadlock may be reported.
 *   semantics       nanosleep/clock_nanosleep errors, remaining time,
 *                   TIMER_ABSTIME, and sleeps on a thread the rank created
 *                   (those go to libc).
 *   heap            every rank sleeps lengths of its own, between ring
 *                   exchanges (many deadlines in each worker's heap).
 *   polled          rank 1 polls MPI_Iprobe, never parking, for what rank 0
 *                   sends after a sleep on the same worker.
 *   poll            every rank waits 1 s in poll() (not redirected: it
 *                   blocks the worker); prints the time, checks nothing.
 *                   For the measurement in docs/privatization.md.
 * Every sleep is also checked to last at least what was asked.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <mpi.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NS 1000000000LL

static int rank, size;

static int64_t now_ns(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (int64_t)ts.tv_sec * NS + ts.tv_nsec;
}

static struct timespec to_ts(int64_t ns)
{
    struct timespec ts = { (time_t)(ns / NS), (long)(ns % NS) };
    return ts;
}

static void fail(const char *what)
{
    fprintf(stderr, "FAIL rank %d: %s\n", rank, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Sleep about ns nanoseconds with the named call; returns the call's
 * result (0 on success). */
static int do_sleep(const char *call, int64_t ns)
{
    struct timespec ts = to_ts(ns);
    if (strcmp(call, "sleep") == 0)
        return (int)sleep((unsigned)(ns / NS));
    if (strcmp(call, "usleep") == 0)
        return usleep((useconds_t)(ns / 1000));
    if (strcmp(call, "nanosleep") == 0)
        return nanosleep(&ts, NULL);
    if (strcmp(call, "clock_rel") == 0)
        return clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
    if (strcmp(call, "clock_abs_mono") == 0) {
        ts = to_ts(now_ns(CLOCK_MONOTONIC) + ns);
        return clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    }
    if (strcmp(call, "clock_abs_real") == 0) {
        ts = to_ts(now_ns(CLOCK_REALTIME) + ns);
        return clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL);
    }
    fail("unknown sleep call");
    return -1;
}

static void overlap(const char *call)
{
    int64_t want = strcmp(call, "sleep") == 0 ? NS : NS / 4, stamp;
    if (size != 2)
        fail("overlap needs 2 ranks");
    if (rank == 0) {
        /* Rank 1 stores its stamp here too (both ranks share the address
         * space), so rank 0 can look between sleeps without an MPI call,
         * which would let rank 1 run even if the sleeps blocked the worker. */
        _Atomic int64_t seen = 0;
        uintptr_t where = (uintptr_t)&seen;
        int64_t woke = 0;
        int naps = 0;
        MPI_Send(&where, sizeof where, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
        /* A sleep that blocks the worker keeps rank 1 from running while
         * rank 0 sleeps, however often it sleeps; one that parks only rank 0
         * lets rank 1 go as soon as the worker gets a core.  Sleeping again
         * while rank 1 has not gone keeps a loaded machine, where the worker
         * may wait for a core longer than one sleep, from failing the test,
         * and still fails a blocking sleep every time. */
        while (atomic_load(&seen) == 0 && naps++ < 8) {
            int64_t t0 = now_ns(CLOCK_MONOTONIC);
            if (do_sleep(call, want) != 0)
                fail("the sleep call failed");
            woke = now_ns(CLOCK_MONOTONIC);
            if (woke - t0 < want)
                fail("the sleep ended early");
        }
        if (atomic_load(&seen) == 0)
            fail("rank 1 did not run while rank 0 slept (8 sleeps): "
                 "the sleep blocked the worker");
        MPI_Recv(&stamp, 1, MPI_INT64_T, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (stamp >= woke || stamp != atomic_load(&seen))
            fail("rank 1 sent only after rank 0 woke: the sleep blocked the worker");
        printf("overlap %s: %d sleep(s) of %.3f s, rank 1 went %.3f s before the last wake\n",
               call, naps, (double)want / NS, (double)(woke - stamp) / NS);
    } else {
        uintptr_t where;
        MPI_Recv(&where, sizeof where, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        stamp = now_ns(CLOCK_MONOTONIC);
        atomic_store((_Atomic int64_t *)where, stamp);
        MPI_Send(&stamp, 1, MPI_INT64_T, 0, 2, MPI_COMM_WORLD);
    }
}

static void many(int use_poll)
{
    MPI_Barrier(MPI_COMM_WORLD);
    int64_t t0 = now_ns(CLOCK_MONOTONIC);
    if (use_poll)
        poll(NULL, 0, 1000);
    else if (sleep(1) != 0)
        fail("sleep(1) failed");
    int64_t mine = now_ns(CLOCK_MONOTONIC) - t0;
    if (mine < NS)
        fail("sleep(1) ended early");
    MPI_Barrier(MPI_COMM_WORLD);
    double all = (double)(now_ns(CLOCK_MONOTONIC) - t0) / NS;
    if (rank == 0)
        printf("%d ranks each %s 1 s: %.3f s in all\n", size,
               use_poll ? "in poll()" : "sleeping", all);
    if (!use_poll && all >= 2.5) {
        char msg[96];
        snprintf(msg, sizeof msg, "the sleeps did not overlap (%.3f s, 2.5 s or more)", all);
        fail(msg);
    }
}

static void nodeadlock(void)
{
    int v = 0;
    if (rank == 0) {
        if (sleep(2) != 0)
            fail("sleep(2) failed");
        v = 42;
        for (int r = 1; r < size; r++)
            MPI_Send(&v, 1, MPI_INT, r, 0, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (v != 42)
            fail("wrong value from rank 0");
    }
    /* Rank 0 sleeps again while the others wait in the barrier. */
    if (rank == 0 && usleep(500000) != 0)
        fail("usleep failed");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("no deadlock reported while rank 0 slept\n");
}

/* Every rank sleeps its own length (0-199 ms, so the sleepers' deadlines
 * interleave across each worker's heap) a few times, each sleep at least
 * as long as asked, with a ring exchange in between. */
static void heap(void)
{
    unsigned seed = 12345u + 977u * (unsigned)rank;
    for (int round = 0; round < 3; round++) {
        seed = seed * 1103515245u + 12345u;
        int64_t want = (int64_t)((seed >> 8) % 200) * 1000000;
        struct timespec ts = to_ts(want);
        int64_t t0 = now_ns(CLOCK_MONOTONIC);
        if (nanosleep(&ts, NULL) != 0)
            fail("nanosleep failed");
        if (now_ns(CLOCK_MONOTONIC) - t0 < want)
            fail("a nanosleep ended before its deadline");
        int in = -1, out = rank * 10 + round;
        MPI_Sendrecv(&out, 1, MPI_INT, (rank + 1) % size, 3, &in, 1, MPI_INT,
                     (rank + size - 1) % size, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (in != ((rank + size - 1) % size) * 10 + round)
            fail("wrong value in the ring");
    }
    if (rank == 0)
        printf("%d ranks slept their own lengths 3 times\n", size);
}

/* Rank 1 polls with MPI_Iprobe (never parking) for the message rank 0
 * sends after a sleep on the same worker: the poll loop must let the
 * sleeper's timer fire. */
static void polled(void)
{
    int v = 7, flag = 0;
    if (rank == 0) {
        usleep(100000);
        MPI_Send(&v, 1, MPI_INT, 1, 4, MPI_COMM_WORLD);
    } else if (rank == 1) {
        while (!flag)
            MPI_Iprobe(0, 4, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        MPI_Recv(&v, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("a polling rank let the sleeper wake\n");
    }
}

static void *thread_sleeps(void *arg)
{
    int64_t t0 = now_ns(CLOCK_MONOTONIC);
    struct timespec ts = to_ts(NS / 10), rem = { 7, 7 };
    int rc = nanosleep(&ts, &rem);
    *(int *)arg = rc == 0 && now_ns(CLOCK_MONOTONIC) - t0 >= NS / 10;
    return NULL;
}

static void semantics(void)
{
    struct timespec bad[3] = { { 0, NS }, { 0, -1 }, { -1, 0 } }, rem;
    for (int i = 0; i < 3; i++) {
        errno = 0;
        if (nanosleep(&bad[i], NULL) != -1 || errno != EINVAL)
            fail("nanosleep of an invalid time did not fail with EINVAL");
        if (clock_nanosleep(CLOCK_MONOTONIC, 0, &bad[i], NULL) != EINVAL)
            fail("clock_nanosleep of an invalid time did not return EINVAL");
    }
    /* A normal return leaves no time remaining. */
    struct timespec ts = to_ts(NS / 20);
    rem = (struct timespec){ 5, 5 };
    if (nanosleep(&ts, &rem) != 0 || rem.tv_sec != 0 || rem.tv_nsec != 0)
        fail("nanosleep's remaining time is not 0 after a full sleep");
    rem = (struct timespec){ 5, 5 };
    if (clock_nanosleep(CLOCK_REALTIME, 0, &ts, &rem) != 0 || rem.tv_sec || rem.tv_nsec)
        fail("clock_nanosleep's remaining time is not 0 after a full sleep");
    /* Absolute deadlines: not before them, and one in the past at once. */
    clockid_t clks[2] = { CLOCK_MONOTONIC, CLOCK_REALTIME };
    for (int c = 0; c < 2; c++) {
        int64_t until = now_ns(clks[c]) + NS / 10;
        ts = to_ts(until);
        if (clock_nanosleep(clks[c], TIMER_ABSTIME, &ts, NULL) != 0)
            fail("clock_nanosleep TIMER_ABSTIME failed");
        if (now_ns(clks[c]) < until)
            fail("clock_nanosleep TIMER_ABSTIME returned before its deadline");
        int64_t t0 = now_ns(CLOCK_MONOTONIC);
        ts = to_ts(until - NS);
        if (clock_nanosleep(clks[c], TIMER_ABSTIME, &ts, NULL) != 0 ||
            now_ns(CLOCK_MONOTONIC) - t0 > NS / 2)
            fail("clock_nanosleep TIMER_ABSTIME of a past time did not return at once");
    }
    /* Zero-length sleeps return at once. */
    ts = to_ts(0);
    if (nanosleep(&ts, NULL) != 0 || usleep(0) != 0 || sleep(0) != 0)
        fail("a zero-length sleep failed");
    /* Other clocks go to libc unchanged (a thread's CPU clock: EINVAL). */
    ts = to_ts(1000);
    if (clock_nanosleep(CLOCK_THREAD_CPUTIME_ID, 0, &ts, NULL) != EINVAL)
        fail("clock_nanosleep on CLOCK_THREAD_CPUTIME_ID did not return EINVAL");
    /* A thread the rank created sleeps in libc, on its own. */
    pthread_t th;
    int ok = 0;
    if (pthread_create(&th, NULL, thread_sleeps, &ok) != 0 || pthread_join(th, NULL) != 0)
        fail("cannot run a thread");
    if (!ok)
        fail("nanosleep on a thread of the rank failed or ended early");
    if (rank == 0)
        printf("sleep semantics: ok\n");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "overlap") == 0 && argc > 2)
        overlap(argv[2]);
    else if (strcmp(mode, "many") == 0 || strcmp(mode, "poll") == 0)
        many(strcmp(mode, "poll") == 0);
    else if (strcmp(mode, "nodeadlock") == 0)
        nodeadlock();
    else if (strcmp(mode, "semantics") == 0)
        semantics();
    else if (strcmp(mode, "heap") == 0)
        heap();
    else if (strcmp(mode, "polled") == 0)
        polled();
    else
        fail("usage: priv_sleep overlap <call> | many | nodeadlock | semantics | heap | "
             "polled | poll");
    MPI_Finalize();
    return 0;
}
