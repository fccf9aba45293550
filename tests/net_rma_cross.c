/*
 * net_rma_cross.c: what crosses processes in one-sided communication
 * (docs/net.md, "Windows across processes"), each part checked against a
 * serial model.  Run as several processes (tests/net_rma.cmake), it also
 * runs in one process, where it checks the direct path alike.
 *
 *   - a Fetch_and_op counter on rank 0 incremented 10 000 times in total
 *     by all ranks ends exactly right, and the fetched tickets are each
 *     handed out once;
 *   - a mutex built on Compare_and_swap on the last rank protects a
 *     counter updated with plain Get and Put;
 *   - accumulates (MPI_SUM, MPI_MAX, MPI_BXOR) from every rank to rank 0
 *     at once, origins in rank 0's own process (direct path) and in
 *     others (active messages) mixed, with a derived type on the target;
 *   - passive target while the target rank is blocked in MPI_Recv from a
 *     rank that first locks the target, puts, gets and unlocks; and while
 *     the target rank computes without calling MPI (watching its own
 *     window memory) until an origin's Put arrives;
 *   - dynamic windows: attach, Put/Get/Accumulate by address to the next
 *     rank, detach, attach again;
 *   - derived datatypes on both sides of Put, Get, Accumulate and
 *     Get_accumulate;
 *   - errors: an out-of-window displacement (segment and dynamic window)
 *     to a rank of another process, unlock without lock, Put without an
 *     epoch: the right class, and nothing written outside the window.
 * Argument: total Fetch_and_op increments (default 10000).
 */
#include "zt.h"

#include <stdint.h>
#include <string.h>
#include <unistd.h>

#define M 12     /* ints of the accumulate and datatype regions */
#define GUARD 8  /* guard ints around each rank's window */

/* Test programs may run without privatization (ranks share globals):
 * every function asks for its rank and the size itself. */
#define WHO                                                                 \
    int rank, size;                                                         \
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);                                   \
    MPI_Comm_size(MPI_COMM_WORLD, &size)

/* ---- Fetch_and_op counter -------------------------------------------------- */

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

static void counter(long total)
{
    WHO;
    long *mem;
    MPI_Win win;
    ZT_OK(MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                           &win));
    *mem = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    long mine = total / size + (rank < total % size);
    long *got = zt_malloc(sizeof(long) * (size_t)(mine ? mine : 1));
    long one = 1;
    ZT_OK(MPI_Win_lock_all(0, win));
    for (long i = 0; i < mine; i++) {
        ZT_OK(MPI_Fetch_and_op(&one, &got[i], MPI_LONG, 0, 0, MPI_SUM, win));
        ZT_OK(MPI_Win_flush(0, win));
        ZT_CHECK(i == 0 || got[i] > got[i - 1], "tickets of one rank rise");
    }
    ZT_OK(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        ZT_EQ(*mem, total, "Fetch_and_op counter after all increments");
    /* Every ticket 0 .. total - 1 handed out exactly once: each rank's
     * tickets padded with -1 to the largest share. */
    long share = (total + size - 1) / size;
    long *pad = zt_malloc(sizeof(long) * (size_t)(share ? share : 1));
    for (long i = 0; i < share; i++)
        pad[i] = i < mine ? got[i] : -1;
    long *all = zt_malloc(sizeof(long) * (size_t)(share * size + 1));
    MPI_Gather(pad, (int)share, MPI_LONG, all, (int)share, MPI_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        qsort(all, (size_t)(share * size), sizeof(long), cmp_long);
        long skip = share * size - total; /* the -1 paddings sort first */
        for (long i = 0; i < total; i++)
            ZT_EQ(all[skip + i], i, "ticket handed out once");
    }
    free(all);
    free(pad);
    free(got);
    ZT_OK(MPI_Win_free(&win));
}

/* ---- Compare_and_swap mutex ---------------------------------------------- */

static void mutex(int iters)
{
    WHO;
    int *mem; /* [0] the mutex (0 free, else holder + 1), [1] the counter */
    MPI_Win win;
    int t = size - 1;
    ZT_OK(MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                           &win));
    mem[0] = mem[1] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    ZT_OK(MPI_Win_lock_all(0, win));
    int me = rank + 1, zero = 0, old;
    for (int i = 0; i < iters; i++) {
        do {
            ZT_OK(MPI_Compare_and_swap(&me, &zero, &old, MPI_INT, t, 0, win));
            ZT_OK(MPI_Win_flush(t, win));
        } while (old != 0);
        int c;
        ZT_OK(MPI_Get(&c, 1, MPI_INT, t, 1, 1, MPI_INT, win));
        ZT_OK(MPI_Win_flush(t, win));
        c++;
        ZT_OK(MPI_Put(&c, 1, MPI_INT, t, 1, 1, MPI_INT, win));
        ZT_OK(MPI_Win_flush(t, win));
        ZT_OK(MPI_Compare_and_swap(&zero, &me, &old, MPI_INT, t, 0, win));
        ZT_OK(MPI_Win_flush(t, win));
        ZT_EQ(old, me, "the mutex was held by this rank when it released it");
    }
    ZT_OK(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == t) {
        ZT_EQ(mem[0], 0, "mutex free at the end");
        ZT_EQ(mem[1], size * iters, "counter under the Compare_and_swap mutex");
    }
    ZT_OK(MPI_Win_free(&win));
}

/* ---- Accumulates from everyone to rank 0 --------------------------------- */

static void accumulates(int reps)
{
    WHO;
    int *mem; /* [0,M) sum, [M,2M) max, [2M,3M) bxor, each every other int of 2M */
    MPI_Win win;
    ZT_OK(MPI_Win_allocate(6 * M * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                           &mem, &win));
    memset(mem, 0, 6 * M * sizeof(int));
    MPI_Datatype every2; /* M ints, stride 2 */
    ZT_OK(MPI_Type_vector(M, 1, 2, MPI_INT, &every2));
    ZT_OK(MPI_Type_commit(&every2));
    MPI_Barrier(MPI_COMM_WORLD);
    int v[M];
    ZT_OK(MPI_Win_lock_all(0, win));
    for (int r = 0; r < reps; r++) {
        for (int i = 0; i < M; i++)
            v[i] = rank + 1 + i;
        ZT_OK(MPI_Accumulate(v, M, MPI_INT, 0, 0, 1, every2, MPI_SUM, win));
        for (int i = 0; i < M; i++)
            v[i] = (rank * 7 + i * 3 + r) % 101;
        ZT_OK(MPI_Accumulate(v, M, MPI_INT, 0, 2 * M, 1, every2, MPI_MAX, win));
        for (int i = 0; i < M; i++)
            v[i] = 1 << ((rank + i + r) % 30);
        ZT_OK(MPI_Accumulate(v, M, MPI_INT, 0, 4 * M, 1, every2, MPI_BXOR, win));
    }
    ZT_OK(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        for (int i = 0; i < M; i++) {
            long sum = 0;
            int max = 0, x = 0;
            for (int q = 0; q < size; q++)
                for (int r = 0; r < reps; r++) {
                    sum += q + 1 + i;
                    int m = (q * 7 + i * 3 + r) % 101;
                    max = m > max ? m : max;
                    x ^= 1 << ((q + i + r) % 30);
                }
            ZT_EQ(mem[2 * i], sum, "MPI_SUM element");
            ZT_EQ(mem[2 * M + 2 * i], max, "MPI_MAX element");
            ZT_EQ(mem[4 * M + 2 * i], x, "MPI_BXOR element");
            ZT_EQ(mem[2 * i + 1] | mem[2 * M + 2 * i + 1] | mem[4 * M + 2 * i + 1], 0,
                  "gaps of the strided target untouched");
        }
    }
    MPI_Type_free(&every2);
    ZT_OK(MPI_Win_free(&win));
}

/* ---- Passive target while the target waits or computes ------------------- */

static void passive_progress(void)
{
    WHO;
    volatile int *mem;
    MPI_Win win;
    ZT_OK(MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                           (void *)&mem, &win));
    mem[0] = mem[1] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    int last = size - 1;
    if (size == 1) {
        ZT_OK(MPI_Win_free(&win)); /* nobody else to wait for */
        return;
    }
    /* Target 0 blocked in MPI_Recv from the last rank, which sends only
     * once its lock, Put, Get and unlock on rank 0 are done. */
    if (rank == 0) {
        int got = -1;
        ZT_OK(MPI_Recv(&got, 1, MPI_INT, last, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        ZT_EQ(got, 4242, "value the origin read back under the lock");
        ZT_EQ(mem[0], 4242, "value put while this rank sat in MPI_Recv");
    } else if (rank == last) {
        int x = 4242, back = 0;
        ZT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        ZT_OK(MPI_Put(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
        ZT_OK(MPI_Get(&back, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
        ZT_OK(MPI_Win_unlock(0, win));
        ZT_OK(MPI_Send(&back, 1, MPI_INT, 0, 5, MPI_COMM_WORLD));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* Target 0 computes, calling no MPI, until the last rank's Put of its
     * flag shows in its window memory (bounded: a stall fails the test).
     * Only when the two are in different processes: in one process a rank
     * that never yields may hold the worker its origin needs. */
    int other = rank == 0 ? last : 0, apart = 0;
    /* Processes, not nodes: MPI_COMM_TYPE_SHARED groups a node's. */
    int *pids = zt_malloc(sizeof(int) * (size_t)(last + 1)), pid = (int)getpid();
    MPI_Allgather(&pid, 1, MPI_INT, pids, 1, MPI_INT, MPI_COMM_WORLD);
    apart = pids[other] != pids[rank];
    free(pids);
    if (apart && rank == 0) {
        double t0 = MPI_Wtime();
        while (mem[1] == 0 && MPI_Wtime() - t0 < 30.0)
            ;
        ZT_EQ(mem[1], 77, "flag put while the target computed");
    } else if (apart && rank == last) {
        int f = 77;
        ZT_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        ZT_OK(MPI_Put(&f, 1, MPI_INT, 0, 1, 1, MPI_INT, win));
        ZT_OK(MPI_Win_unlock(0, win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    ZT_OK(MPI_Win_free(&win));
}

/* ---- Dynamic windows ----------------------------------------------------- */

static void dynamic(void)
{
    WHO;
    MPI_Win win;
    MPI_Aint *addr = zt_malloc(sizeof(MPI_Aint) * (size_t)size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    ZT_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    for (int round = 0; round < 3; round++) {
        int *d = zt_malloc(2 * M * sizeof(int));
        for (int i = 0; i < 2 * M; i++)
            d[i] = -1;
        ZT_OK(MPI_Win_attach(win, d, 2 * M * sizeof(int)));
        MPI_Aint me;
        MPI_Get_address(d, &me);
        MPI_Allgather(&me, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD);
        int v[M], back[M], one[M];
        for (int i = 0; i < M; i++) {
            v[i] = rank * 1000 + round * 100 + i;
            one[i] = 1;
        }
        ZT_OK(MPI_Win_fence(0, win));
        ZT_OK(MPI_Put(v, M, MPI_INT, right, addr[right], M, MPI_INT, win));
        ZT_OK(MPI_Win_fence(0, win));
        ZT_OK(MPI_Accumulate(one, M, MPI_INT, right, addr[right], M, MPI_INT, MPI_SUM, win));
        ZT_OK(MPI_Win_fence(0, win));
        ZT_OK(MPI_Get(back, M, MPI_INT, right, addr[right], M, MPI_INT, win));
        ZT_OK(MPI_Win_fence(0, win));
        for (int i = 0; i < M; i++) {
            ZT_EQ(d[i], left * 1000 + round * 100 + i + 1, "element put by the left rank");
            ZT_EQ(back[i], v[i] + 1, "dynamic window element read back from the right rank");
            ZT_EQ(d[M + i], -1, "rest of the attached region untouched");
        }
        /* Past the end of the attached region of another rank: refused by
         * the target, reported at the origin. */
        MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
        ZT_OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
        int rc = MPI_Put(v, M, MPI_INT, right, addr[right] + (MPI_Aint)(M + 1) * sizeof(int), M,
                         MPI_INT, win);
        ZT_EQ(zt_err_class(rc), MPI_ERR_RMA_RANGE, "Put beyond the attached region");
        ZT_OK(MPI_Win_unlock(right, win));
        MPI_Win_set_errhandler(win, MPI_ERRORS_ARE_FATAL);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = M; i < 2 * M; i++)
            ZT_EQ(d[i], -1, "nothing written by the refused Put");
        ZT_OK(MPI_Win_detach(win, d));
        MPI_Barrier(MPI_COMM_WORLD);
        free(d);
    }
    ZT_OK(MPI_Win_free(&win));
    free(addr);
}

/* ---- Derived datatypes on both sides ------------------------------------- */

static void derived(void)
{
    WHO;
    int *mem; /* 4M ints */
    MPI_Win win;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    ZT_OK(MPI_Win_allocate(4 * M * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                           &mem, &win));
    for (int i = 0; i < 4 * M; i++)
        mem[i] = -1;
    /* Origin: M ints every third of 3M; target: M/2 blocks of 2 ints,
     * block b at displacement 5b (an indexed type). */
    MPI_Datatype ovec, tidx;
    ZT_OK(MPI_Type_vector(M, 1, 3, MPI_INT, &ovec));
    ZT_OK(MPI_Type_commit(&ovec));
    int bl[M / 2], dp[M / 2];
    for (int b = 0; b < M / 2; b++) {
        bl[b] = 2;
        dp[b] = 5 * b;
    }
    ZT_OK(MPI_Type_indexed(M / 2, bl, dp, MPI_INT, &tidx));
    ZT_OK(MPI_Type_commit(&tidx));
    int src[3 * M], got[3 * M], res[3 * M];
    for (int i = 0; i < 3 * M; i++)
        src[i] = rank * 100 + i;
    MPI_Barrier(MPI_COMM_WORLD);
    ZT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
    ZT_OK(MPI_Put(src, 1, ovec, right, 0, 1, tidx, win));
    ZT_OK(MPI_Win_flush(right, win));
    for (int i = 0; i < 3 * M; i++)
        got[i] = res[i] = -7;
    ZT_OK(MPI_Get(got, 1, ovec, right, 0, 1, tidx, win));
    ZT_OK(MPI_Accumulate(src, 1, ovec, right, 0, 1, tidx, MPI_SUM, win));
    ZT_OK(MPI_Get_accumulate(src, 1, ovec, res, 1, ovec, right, 0, 1, tidx, MPI_SUM, win));
    ZT_OK(MPI_Win_unlock(right, win));
    for (int k = 0; k < M; k++) {
        ZT_EQ(got[3 * k], src[3 * k], "Get through derived types on both sides");
        ZT_EQ(res[3 * k], 2 * src[3 * k], "Get_accumulate result through derived types");
        ZT_EQ(got[3 * k + 1], -7, "gaps of the origin type untouched by Get");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* Serial model of this rank's window after the left rank's calls. */
    for (int i = 0; i < 4 * M; i++) {
        int k = -1;
        if (i % 5 < 2 && i / 5 < M / 2)
            k = 2 * (i / 5) + i % 5;
        int want = k < 0 ? -1 : 3 * (left * 100 + 3 * k);
        ZT_EQ(mem[i], want, "window element after Put, Accumulate, Get_accumulate");
    }
    MPI_Type_free(&ovec);
    MPI_Type_free(&tidx);
    ZT_OK(MPI_Win_free(&win));
}

/* ---- Errors -------------------------------------------------------------- */

static void errors(void)
{
    WHO;
    int *mem;
    MPI_Win win;
    int right = (rank + 1) % size;
    ZT_OK(MPI_Win_allocate((2 * GUARD + M) * sizeof(int), sizeof(int), MPI_INFO_NULL,
                           MPI_COMM_WORLD, &mem, &win));
    for (int i = 0; i < 2 * GUARD + M; i++)
        mem[i] = 5;
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int v[M] = { 0 };
    MPI_Barrier(MPI_COMM_WORLD);
    ZT_EQ(zt_err_class(MPI_Put(v, 1, MPI_INT, right, 0, 1, MPI_INT, win)), MPI_ERR_RMA_SYNC,
          "Put without an epoch");
    ZT_EQ(zt_err_class(MPI_Win_unlock(right, win)), MPI_ERR_RMA_SYNC, "unlock without lock");
    ZT_OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    ZT_EQ(zt_err_class(MPI_Put(v, M, MPI_INT, right, 2 * GUARD + 1, M, MPI_INT, win)),
          MPI_ERR_RMA_RANGE, "Put past the end of another process's window");
    ZT_EQ(zt_err_class(MPI_Accumulate(v, 2, MPI_INT, right, -1, 2, MPI_INT, MPI_SUM, win)),
          MPI_ERR_RMA_RANGE, "Accumulate before the start of the window");
    ZT_OK(MPI_Win_unlock(right, win));
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 2 * GUARD + M; i++)
        ZT_EQ(mem[i], 5, "window unchanged by refused calls");
    ZT_OK(MPI_Win_free(&win));
}

int main(int argc, char **argv)
{
    long total = argc > 1 ? atol(argv[1]) : 10000;
    ZT_OK(MPI_Init(&argc, &argv));
    WHO;
    counter(total);
    mutex(50);
    accumulates(20);
    passive_progress();
    dynamic();
    derived();
    errors();
    MPI_Finalize();
    if (rank == 0)
        printf("net_rma_cross: all checks passed on %d ranks\n", size);
    return 0;
}
