/*
 * net_rma_shm.c: one-sided operations between processes of one node
 * (docs/net.md, "Windows across processes", direct windows), each part
 * checked against a serial model.  Run as several processes of one node
 * (the direct path), under --separate-nodes or ZMPI_RMA_DIRECT=0 (the
 * message path), and in one process (tests/net_rma.cmake).
 *
 *   - the path: MPI_Win_shared_query on an MPI_Win_allocate window gives
 *     another process's segment (with what that rank stored) on a direct
 *     window, and no memory on the message path;
 *   - concurrent accumulates from every rank to rank 0 at once: MPI_SUM on
 *     doubles (derived origin type) and on ints (derived target type),
 *     MPI_MAX, MPI_REPLACE of whole rows, with Get_accumulate / MPI_NO_OP
 *     reads in between that never see a torn row or a sum going back;
 *     the final window checked element by element;
 *   - exclusive against shared passive-target locks on rank 0: a stream of
 *     shared lockers cannot starve the exclusive ones (bounded in time),
 *     nobody holds a shared lock while an exclusive one is held, and the
 *     exclusive holder sees no shared holder inside;
 *   - MPI_Win_create windows (message path, or straight copies between
 *     processes): large, strided and small Puts and Gets to the next rank;
 *   - a rank waiting for a lock that a rank of another process holds while
 *     it computes is not reported as deadlocked, and gets the lock.
 * Argument: "direct", "message" or "any" (what the path check expects).
 */
#include "zt.h"

#include <stdint.h>
#include <string.h>
#include <unistd.h>

#define M 16      /* elements per accumulate region */
#define REPS 40   /* accumulate rounds per rank */

#define WHO                                                                 \
    int rank, size;                                                         \
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);                                   \
    MPI_Comm_size(MPI_COMM_WORLD, &size)

/* A rank of another process than the caller's, or -1. */
static int other_process_rank(void)
{
    WHO;
    int *pids = zt_malloc(sizeof(int) * (size_t)size), pid = (int)getpid(), q = -1;
    MPI_Allgather(&pid, 1, MPI_INT, pids, 1, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < size && q < 0; i++)
        if (pids[i] != pid)
            q = i;
    free(pids);
    return q;
}

/* ---- Which path ------------------------------------------------------------ */

static void path(const char *want)
{
    WHO;
    int *mem;
    MPI_Win win;
    ZT_OK(MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                           &win));
    mem[0] = 1000 + rank;
    MPI_Barrier(MPI_COMM_WORLD);
    ZT_OK(MPI_Win_sync(win));
    int q = other_process_rank();
    if (q >= 0) {
        MPI_Aint sz = -1;
        int du = 0, *p = NULL;
        ZT_OK(MPI_Win_shared_query(win, q, &sz, &du, &p));
        ZT_EQ(du, (int)sizeof(int), "disp_unit of another process's segment");
        if (strcmp(want, "direct") == 0) {
            ZT_CHECK(p != NULL, "a direct window maps rank %d's segment", q);
            ZT_EQ(sz, (MPI_Aint)(4 * sizeof(int)), "size of the other process's segment");
            ZT_EQ(p[0], 1000 + q, "what rank q stored, seen through the node's segment");
        } else if (strcmp(want, "message") == 0) {
            ZT_CHECK(p == NULL, "the message path shares no memory with rank %d", q);
            ZT_EQ(sz, (MPI_Aint)0, "size of another process's segment on the message path");
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    ZT_OK(MPI_Win_free(&win));
}

/* ---- Concurrent accumulates to rank 0 --------------------------------------- */

/* The window of rank 0: doubles summed, ints summed (every other int),
 * ints maxed, rows replaced. */
struct acc_mem {
    double dsum[M];
    int isum[2 * M];
    int imax[M];
    int rows[M];
};

/* Each rank's contributions in round r, element i. */
static double dval(int q, int r, int i)
{
    return (q + 1) * 0.5 + i + (r % 3) * 0.25; /* exact in binary */
}

static int ival(int q, int r, int i)
{
    return q * 3 + i + r;
}

static int mval(int q, int r, int i)
{
    return (q * 37 + i * 11 + r * 5) % 997;
}

/* A NO_OP read of the rows: one origin's whole row, never a torn one. */
static void check_rows(const int *row, int size)
{
    for (int i = 1; i < M; i++)
        ZT_EQ(row[i], row[0], "row element read with MPI_NO_OP (no torn MPI_REPLACE)");
    ZT_CHECK(row[0] == 0 || (row[0] / 1000 >= 1 && row[0] / 1000 <= size),
             "row value %d is one some rank wrote", row[0]);
}

static void accumulate_round(MPI_Win win, MPI_Datatype dstride, MPI_Datatype every2, int r,
                             double *prev)
{
    WHO;
    double dsrc[2 * M], dnow[M];
    int iv[M], mv[M], row[M], got[M];
    for (int i = 0; i < M; i++) {
        dsrc[2 * i] = dval(rank, r, i);
        dsrc[2 * i + 1] = -1e9; /* not part of the origin type */
        iv[i] = ival(rank, r, i);
        mv[i] = mval(rank, r, i);
        row[i] = (rank + 1) * 1000 + r;
    }
    MPI_Aint d_isum = offsetof(struct acc_mem, isum), d_imax = offsetof(struct acc_mem, imax),
             d_rows = offsetof(struct acc_mem, rows);
    ZT_OK(MPI_Accumulate(dsrc, 1, dstride, 0, 0, M, MPI_DOUBLE, MPI_SUM, win));
    ZT_OK(MPI_Accumulate(iv, M, MPI_INT, 0, d_isum, 1, every2, MPI_SUM, win));
    ZT_OK(MPI_Accumulate(mv, M, MPI_INT, 0, d_imax, M, MPI_INT, MPI_MAX, win));
    ZT_OK(MPI_Accumulate(row, M, MPI_INT, 0, d_rows, M, MPI_INT, MPI_REPLACE, win));
    ZT_OK(MPI_Get_accumulate(NULL, 0, MPI_INT, got, M, MPI_INT, 0, d_rows, M, MPI_INT,
                             MPI_NO_OP, win));
    ZT_OK(MPI_Get_accumulate(NULL, 0, MPI_DOUBLE, dnow, M, MPI_DOUBLE, 0, 0, M, MPI_DOUBLE,
                             MPI_NO_OP, win));
    ZT_OK(MPI_Win_flush(0, win));
    check_rows(got, size);
    for (int i = 0; i < M; i++) {
        ZT_CHECK(dnow[i] >= prev[i] + dval(rank, r, i),
                 "sum of doubles read back never loses an increment (element %d)", i);
        prev[i] = dnow[i];
    }
}

static void accumulates(void)
{
    WHO;
    struct acc_mem *mem;
    MPI_Win win;
    ZT_OK(MPI_Win_allocate(sizeof(struct acc_mem), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                           &win));
    memset(mem, 0, sizeof(*mem));
    MPI_Datatype dstride, every2;
    ZT_OK(MPI_Type_vector(M, 1, 2, MPI_DOUBLE, &dstride));
    ZT_OK(MPI_Type_commit(&dstride));
    ZT_OK(MPI_Type_vector(M, 1, 2, MPI_INT, &every2));
    ZT_OK(MPI_Type_commit(&every2));
    double prev[M] = { 0 };
    MPI_Barrier(MPI_COMM_WORLD);
    ZT_OK(MPI_Win_lock_all(0, win));
    for (int r = 0; r < REPS; r++)
        accumulate_round(win, dstride, every2, r, prev);
    ZT_OK(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        for (int i = 0; i < M; i++) {
            double ds = 0;
            long is = 0;
            int mx = 0;
            for (int q = 0; q < size; q++)
                for (int r = 0; r < REPS; r++) {
                    ds += dval(q, r, i);
                    is += ival(q, r, i);
                    mx = mval(q, r, i) > mx ? mval(q, r, i) : mx;
                }
            ZT_CHECK(mem->dsum[i] == ds, "MPI_SUM of doubles, element %d: %g, want %g", i,
                     mem->dsum[i], ds);
            ZT_EQ(mem->isum[2 * i], is, "MPI_SUM of ints through a derived target type");
            ZT_EQ(mem->isum[2 * i + 1], 0, "gap of the derived target type untouched");
            ZT_EQ(mem->imax[i], mx, "MPI_MAX element");
        }
        check_rows(mem->rows, size);
        ZT_EQ(mem->rows[0] % 1000, REPS - 1, "the last row replaced is some rank's last");
    }
    MPI_Type_free(&dstride);
    MPI_Type_free(&every2);
    ZT_OK(MPI_Win_free(&win));
}

/* ---- Exclusive against shared locks ------------------------------------------- */

enum { F_INSIDE, F_EXCL, F_SHARED_EPOCHS, F_DONE, F_N };

/* One shared epoch on rank 0: count itself inside, check that no
 * exclusive holder is, leave.  Returns how many exclusive lockers are
 * done. */
static int shared_epoch(MPI_Win win)
{
    int one = 1, minus = -1, none = 0, excl = -1, done = -1, old;
    ZT_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    ZT_OK(MPI_Fetch_and_op(&one, &old, MPI_INT, 0, F_INSIDE, MPI_SUM, win));
    ZT_OK(MPI_Fetch_and_op(&none, &excl, MPI_INT, 0, F_EXCL, MPI_NO_OP, win));
    ZT_OK(MPI_Fetch_and_op(&one, &old, MPI_INT, 0, F_SHARED_EPOCHS, MPI_SUM, win));
    ZT_OK(MPI_Fetch_and_op(&none, &done, MPI_INT, 0, F_DONE, MPI_NO_OP, win));
    ZT_OK(MPI_Win_flush(0, win));
    ZT_EQ(excl, 0, "no exclusive holder while a shared lock is held");
    ZT_OK(MPI_Fetch_and_op(&minus, &old, MPI_INT, 0, F_INSIDE, MPI_SUM, win));
    ZT_OK(MPI_Win_unlock(0, win));
    return done;
}

/* One exclusive epoch on rank 0: nobody else inside. */
static void exclusive_epoch(MPI_Win win, int last)
{
    int one = 1, zero = 0, inside = -1, old;
    ZT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    ZT_OK(MPI_Put(&one, 1, MPI_INT, 0, F_EXCL, 1, MPI_INT, win));
    ZT_OK(MPI_Get(&inside, 1, MPI_INT, 0, F_INSIDE, 1, MPI_INT, win));
    ZT_OK(MPI_Win_flush(0, win));
    ZT_EQ(inside, 0, "no shared holder inside an exclusive epoch");
    ZT_OK(MPI_Put(&zero, 1, MPI_INT, 0, F_EXCL, 1, MPI_INT, win));
    if (last)
        ZT_OK(MPI_Accumulate(&one, 1, MPI_INT, 0, F_DONE, 1, MPI_INT, MPI_SUM, win));
    ZT_OK(MPI_Win_unlock(0, win));
    (void)old;
}

static void fairness(void)
{
    WHO;
    int *mem;
    MPI_Win win;
    ZT_OK(MPI_Win_allocate(F_N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                           &win));
    memset(mem, 0, F_N * sizeof(int));
    MPI_Barrier(MPI_COMM_WORLD);
    /* Exclusive lockers: the last rank (another process than rank 0's when
     * there are several) and rank 1 if there are 4 ranks or more; the
     * others stream shared epochs until both are done. */
    int nexcl = size >= 4 ? 2 : size >= 2 ? 1 : 0;
    int excl = size >= 2 && (rank == size - 1 || (nexcl == 2 && rank == 1));
    if (excl) {
        for (int k = 0; k < 20; k++)
            exclusive_epoch(win, k == 19);
    } else {
        double t0 = MPI_Wtime();
        long epochs = 0;
        while (shared_epoch(win) < nexcl) {
            epochs++;
            ZT_CHECK(MPI_Wtime() - t0 < 60.0, "exclusive lockers starved: %ld shared "
                     "epochs in 60 s and they are not done", epochs);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && nexcl > 0) {
        ZT_EQ(mem[F_DONE], nexcl, "every exclusive locker finished");
        ZT_EQ(mem[F_INSIDE], 0, "nobody left inside");
        ZT_CHECK(mem[F_SHARED_EPOCHS] >= size - nexcl, "shared epochs counted");
    }
    ZT_OK(MPI_Win_free(&win));
}

/* ---- Windows of the program's own memory -------------------------------------- */

#define BIG 16384 /* ints of a large Put */

/* MPI_Win_create windows stay on the message path, or copy straight
 * between the processes of a node: a large contiguous Put, a strided one
 * (vector origin into a vector target of another stride) and a small
 * one to the right neighbour in a fence epoch, read back with Gets under
 * an exclusive lock; every element of the window checked. */
static void user_memory(void)
{
    WHO;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    size_t n = 4 * BIG + 1;
    int *mem = zt_malloc(n * sizeof(int)), *src = zt_malloc(2 * BIG * sizeof(int));
    int *back = zt_malloc(2 * BIG * sizeof(int));
    for (size_t i = 0; i < n; i++)
        mem[i] = -1;
    for (int i = 0; i < 2 * BIG; i++)
        src[i] = rank * 1000000 + i;
    MPI_Win win;
    ZT_OK(MPI_Win_create(mem, (MPI_Aint)(n * sizeof(int)), sizeof(int), MPI_INFO_NULL,
                         MPI_COMM_WORLD, &win));
    MPI_Datatype every2, every3; /* BIG / 2 ints, stride 2 / stride 3 */
    ZT_OK(MPI_Type_vector(BIG / 2, 1, 2, MPI_INT, &every2));
    ZT_OK(MPI_Type_vector(BIG / 2, 1, 3, MPI_INT, &every3));
    ZT_OK(MPI_Type_commit(&every2));
    ZT_OK(MPI_Type_commit(&every3));
    ZT_OK(MPI_Win_fence(0, win));
    ZT_OK(MPI_Put(src, BIG, MPI_INT, right, 0, BIG, MPI_INT, win));
    ZT_OK(MPI_Put(src, 1, every2, right, BIG, 1, every3, win));
    ZT_OK(MPI_Put(&src[7], 1, MPI_INT, right, 4 * BIG, 1, MPI_INT, win));
    ZT_OK(MPI_Win_fence(0, win));
    for (size_t i = 0; i < n; i++) {
        int want = -1;
        if (i < BIG)
            want = left * 1000000 + (int)i;
        else if (i < 4 * BIG && (i - BIG) % 3 == 0 && (i - BIG) / 3 < BIG / 2)
            want = left * 1000000 + 2 * (int)((i - BIG) / 3);
        else if (i == 4 * BIG)
            want = left * 1000000 + 7;
        ZT_EQ(mem[i], want, "window element after the left rank's Puts");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    ZT_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    for (int i = 0; i < 2 * BIG; i++)
        back[i] = -7;
    ZT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
    ZT_OK(MPI_Get(back, BIG, MPI_INT, right, 0, BIG, MPI_INT, win));
    ZT_OK(MPI_Get(&back[BIG], 1, every2, right, BIG, 1, every3, win));
    ZT_OK(MPI_Win_unlock(right, win));
    for (int i = 0; i < BIG; i++) {
        ZT_EQ(back[i], src[i], "large Get of what this rank put");
        ZT_EQ(back[BIG + i], i % 2 ? -7 : src[i], "strided Get into a strided origin");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Type_free(&every2);
    MPI_Type_free(&every3);
    ZT_OK(MPI_Win_free(&win));
    free(back);
    free(src);
    free(mem);
}

/* ---- A lock held by a rank of another process that computes --------------- */

/* A rank of another process takes a shared lock on rank 0 and computes
 * for longer than the deadlock detector needs to decide (about 1.5 s)
 * before it unlocks, while rank 0 waits for an exclusive lock on itself:
 * the waiter must not be reported as deadlocked, and gets the lock once
 * the holder leaves. */
static void holder_computes(void)
{
    WHO;
    int *mem;
    MPI_Win win;
    ZT_OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                           &win));
    *mem = 0;
    int q = other_process_rank(), holder = -1;
    /* The holder: the lowest rank outside rank 0's process. */
    MPI_Allreduce(rank == 0 ? &q : &holder, &holder, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (holder < 0) {
        ZT_OK(MPI_Win_free(&win));
        return;
    }
    if (rank == holder) {
        int v = 5;
        ZT_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        while (MPI_Wtime() - t0 < 2.5)
            ;
        ZT_OK(MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
        ZT_OK(MPI_Win_unlock(0, win));
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (rank == 0) {
        double t0 = MPI_Wtime();
        ZT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        ZT_CHECK(MPI_Wtime() - t0 > 1.0, "the exclusive lock waited for the holder");
        ZT_EQ(*mem, 5, "the holder's Put, seen once its shared lock is gone");
        ZT_OK(MPI_Win_unlock(0, win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    ZT_OK(MPI_Win_free(&win));
}

int main(int argc, char **argv)
{
    const char *want = argc > 1 ? argv[1] : "any";
    ZT_OK(MPI_Init(&argc, &argv));
    WHO;
    path(want);
    accumulates();
    fairness();
    user_memory();
    holder_computes();
    MPI_Finalize();
    if (rank == 0)
        printf("net_rma_shm: all checks passed on %d ranks (%s)\n", size, want);
    return 0;
}
