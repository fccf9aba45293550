/*
 * rma_atomics.c: the accumulate family, checked against a serial model.
 *
 *   - every rank accumulates into rank 0's window at once (MPI_SUM, MPI_MAX,
 *     MPI_BXOR, MPI_PROD on ints, MPI_SUM on doubles holding integers,
 *     MPI_MINLOC on MPI_2INT), under fences and under shared locks;
 *   - accumulates through derived datatypes on both sides;
 *   - MPI_MAXLOC through vectors of value/index pairs whose extent has
 *     padding (long double + int, double + int, short + int), nothing
 *     written between or after the target's elements;
 *   - Get_accumulate with MPI_REPLACE / MPI_NO_OP swaps;
 *   - a Fetch_and_op counter incremented `iters` times by every rank ends
 *     exactly at size * iters, and the values each rank fetched rise and
 *     sum to the right total (every ticket handed out once);
 *   - a spin lock built on Compare_and_swap protects a counter updated with
 *     plain Get and Put.
 * Argument: iterations per rank (default 10000).
 */
#include "zt.h"

#include <stddef.h>

#define M 16

static void all_ops(MPI_Win win, int *base, int rank, int size, int passive)
{
    /* Elements: [0,M) sum, [M,2M) max, [2M,3M) bxor, [3M,4M) prod (ranks 0..size-1
     * contribute 1 or -1). */
    int src[4 * M];
    for (int i = 0; i < M; i++) {
        src[i] = rank * i + 1;
        src[M + i] = (rank * 7 + i * 13) % 101;
        src[2 * M + i] = rank * 2654435 + i;
        src[3 * M + i] = (rank + i) % 3 == 0 ? -1 : 1;
    }
    if (rank == 0)
        for (int i = 0; i < 4 * M; i++)
            base[i] = i < M ? 0 : i < 2 * M ? -1 : i < 3 * M ? 0 : 1;
    MPI_Barrier(MPI_COMM_WORLD);
    if (passive)
        ZT_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    else
        ZT_OK(MPI_Win_fence(0, win));
    ZT_OK(MPI_Accumulate(src, M, MPI_INT, 0, 0, M, MPI_INT, MPI_SUM, win));
    ZT_OK(MPI_Accumulate(src + M, M, MPI_INT, 0, M, M, MPI_INT, MPI_MAX, win));
    ZT_OK(MPI_Accumulate(src + 2 * M, M, MPI_INT, 0, 2 * M, M, MPI_INT, MPI_BXOR, win));
    ZT_OK(MPI_Accumulate(src + 3 * M, M, MPI_INT, 0, 3 * M, M, MPI_INT, MPI_PROD, win));
    if (passive) {
        ZT_OK(MPI_Win_unlock(0, win));
        MPI_Barrier(MPI_COMM_WORLD);
    } else {
        ZT_OK(MPI_Win_fence(0, win));
    }
    if (rank != 0)
        return;
    for (int i = 0; i < M; i++) {
        int sum = 0, max = -1, x = 0, prod = 1;
        for (int r = 0; r < size; r++) {
            sum += r * i + 1;
            int m = (r * 7 + i * 13) % 101;
            max = m > max ? m : max;
            x ^= r * 2654435 + i;
            prod *= (r + i) % 3 == 0 ? -1 : 1;
        }
        ZT_EQ(base[i], sum, "MPI_SUM element");
        ZT_EQ(base[M + i], max, "MPI_MAX element");
        ZT_EQ(base[2 * M + i], x, "MPI_BXOR element");
        ZT_EQ(base[3 * M + i], prod, "MPI_PROD element");
    }
}

/* Doubles with MPI_SUM through derived types: origin every other double,
 * target a contiguous run at displacement 8 (disp_unit 1 window of bytes
 * reinterpreted). Plus MINLOC on MPI_2INT. */
static void derived_and_pairs(MPI_Win win, char *base, int rank, int size)
{
    double src[2 * M];
    for (int i = 0; i < 2 * M; i++)
        src[i] = (double)(rank + 1) * (i + 1);
    struct { int v, idx; } p = { 1000 - (rank * 37) % 101, rank }, *tp;
    double *td = (double *)(base + 8);
    tp = (void *)(base + 8 + M * sizeof(double));
    if (rank == 0) {
        for (int i = 0; i < M; i++)
            td[i] = 0.5;
        tp->v = 1 << 30;
        tp->idx = -1;
    }
    MPI_Datatype every_other;
    ZT_OK(MPI_Type_vector(M, 1, 2, MPI_DOUBLE, &every_other));
    ZT_OK(MPI_Type_commit(&every_other));
    ZT_OK(MPI_Win_fence(0, win));
    ZT_OK(MPI_Accumulate(src, 1, every_other, 0, 8, M, MPI_DOUBLE, MPI_SUM, win));
    ZT_OK(MPI_Accumulate(&p, 1, MPI_2INT, 0, 8 + M * sizeof(double), 1, MPI_2INT, MPI_MINLOC,
                         win));
    ZT_OK(MPI_Win_fence(0, win));
    MPI_Type_free(&every_other);
    if (rank != 0)
        return;
    int bestv = 1 << 30, besti = -1;
    for (int r = 0; r < size; r++) {
        int v = 1000 - (r * 37) % 101;
        if (v < bestv)
            bestv = v, besti = r;
    }
    for (int i = 0; i < M; i++) {
        double want = 0.5;
        for (int r = 0; r < size; r++)
            want += (double)(r + 1) * (2 * i + 1);
        ZT_CHECK(td[i] == want, "double sum element %d: %g, expected %g", i, td[i], want);
    }
    ZT_EQ(tp->v, bestv, "MPI_MINLOC value");
    ZT_EQ(tp->idx, besti, "MPI_MINLOC index");
}

static void counter(MPI_Win win, int64_t *base, int rank, int size, int iters)
{
    if (rank == 0)
        base[0] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    int64_t one = 1, got, prev = -1, mysum = 0;
    ZT_OK(MPI_Win_lock_all(0, win));
    for (int i = 0; i < iters; i++) {
        ZT_OK(MPI_Fetch_and_op(&one, &got, MPI_INT64_T, 0, 0, MPI_SUM, win));
        ZT_CHECK(got > prev, "fetched %lld after %lld", (long long)got, (long long)prev);
        prev = got;
        mysum += got;
    }
    ZT_OK(MPI_Win_unlock_all(win));
    int64_t total = 0, n = (int64_t)size * iters;
    MPI_Allreduce(&mysum, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    ZT_EQ(total, n * (n - 1) / 2, "sum of all tickets fetched");
    if (rank == 0)
        ZT_EQ(base[0], n, "final counter");
    /* Get_accumulate with MPI_NO_OP reads it atomically; MPI_REPLACE swaps. */
    MPI_Barrier(MPI_COMM_WORLD);
    ZT_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    int64_t r = -1, mine = 1000 + rank;
    ZT_OK(MPI_Get_accumulate(NULL, 0, MPI_INT64_T, &r, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T,
                             MPI_NO_OP, win));
    ZT_CHECK(r == n || r >= 1000, "NO_OP read %lld", (long long)r);
    ZT_OK(MPI_Get_accumulate(&mine, 1, MPI_INT64_T, &r, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T,
                             MPI_REPLACE, win));
    ZT_OK(MPI_Win_unlock(0, win));
    /* Every swap saw either the counter or another rank's value: the
     * chain of swaps is a permutation, so the values seen plus the final
     * one are n and all 1000 + r. */
    int64_t seen_sum = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Allreduce(&r, &seen_sum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    int64_t fin = 0;
    if (rank == 0)
        fin = base[0];
    MPI_Bcast(&fin, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    int64_t all = n;
    for (int q = 0; q < size; q++)
        all += 1000 + q;
    ZT_EQ(seen_sum + fin, all, "values seen by the MPI_REPLACE swaps");
}

/* A spin lock on rank size-1's word 1, taken with Compare_and_swap;
 * inside it, a plain read-modify-write of word 2. */
static void cas_lock(MPI_Win win, int64_t *base, int rank, int size, int iters)
{
    int owner = size - 1;
    if (rank == owner)
        base[1] = base[2] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    ZT_OK(MPI_Win_lock_all(0, win));
    int64_t zero = 0, me = rank + 1, got, v;
    for (int i = 0; i < iters; i++) {
        do {
            ZT_OK(MPI_Compare_and_swap(&me, &zero, &got, MPI_INT64_T, owner, 1, win));
            ZT_OK(MPI_Win_flush(owner, win));
        } while (got != 0);
        ZT_OK(MPI_Get(&v, 1, MPI_INT64_T, owner, 2, 1, MPI_INT64_T, win));
        ZT_OK(MPI_Win_flush(owner, win));
        v++;
        ZT_OK(MPI_Put(&v, 1, MPI_INT64_T, owner, 2, 1, MPI_INT64_T, win));
        ZT_OK(MPI_Win_flush(owner, win));
        ZT_OK(MPI_Compare_and_swap(&zero, &me, &got, MPI_INT64_T, owner, 1, win));
        ZT_EQ(got, me, "lock word when releasing");
    }
    ZT_OK(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == owner)
        ZT_EQ(base[2], (int64_t)size * iters, "counter guarded by the CAS lock");
}

/* Large concurrent accumulates: every rank adds 1 to each of L ints of
 * rank 0, `rounds` times, under a shared lock_all, so accumulates from
 * ranks on different workers overlap in time; a lost update shows. */
static void big_sum(int rank, int size, int rounds)
{
    enum { L = 8192 };
    int *base, *ones = zt_malloc(L * sizeof(int));
    MPI_Win win;
    ZT_OK(MPI_Win_allocate(L * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                           &win));
    for (int i = 0; i < L; i++)
        base[i] = 0, ones[i] = 1;
    MPI_Barrier(MPI_COMM_WORLD);
    ZT_OK(MPI_Win_lock_all(0, win));
    for (int k = 0; k < rounds; k++)
        ZT_OK(MPI_Accumulate(ones, L, MPI_INT, 0, 0, L, MPI_INT, MPI_SUM, win));
    ZT_OK(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        for (int i = 0; i < L; i++)
            ZT_EQ(base[i], size * rounds, "element after concurrent MPI_SUM accumulates");
    ZT_OK(MPI_Win_free(&win));
    free(ones);
}

/* Value/index pairs whose extent has padding: 20 bytes of data in 32, 12
 * in 16, and a short whose int follows a hole. */
typedef struct { long double v; int i; } ldi_t;
typedef struct { double v; int i; } di_t;
typedef struct { short v; int i; } si_t;
#define NPAIR 15  /* 300 bytes of long double pairs: not a multiple of 16 */
struct pairs_win {
    ldi_t ld[2 * NPAIR];
    di_t d[2 * NPAIR];
    si_t s[2 * NPAIR];
    unsigned char guard[64];
};

static int pair_value(int r, int k) { return (r * 7 + k * 3) % 11; }

/* The state of one target pair: the sentinel or some rank's value. */
#define PAIR_OK(p, k) (((p).v == -1 && (p).i == -5) || \
                       ((p).i >= 0 && (p).i < size && (p).v == pair_value((p).i, k)))

/* Every rank MAXLOCs NPAIR pairs of each kind into every other element of
 * rank 0's window under a shared lock (the last kind by Get_accumulate,
 * whose old values must each be a state the element had); the result is
 * the serial model's, and the elements between and the bytes after stay. */
static void padded_pairs(int rank, int size)
{
    struct pairs_win *w = zt_malloc(sizeof(*w));
    for (int k = 0; k < 2 * NPAIR; k++) {
        w->ld[k] = (ldi_t){ -1, -5 };
        w->d[k] = (di_t){ -1, -5 };
        w->s[k] = (si_t){ -1, -5 };
    }
    memset(w->guard, 0xab, sizeof(w->guard));
    MPI_Win win;
    ZT_OK(MPI_Win_create(w, sizeof(*w), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    /* The origins are vectors too: both sides go through scratch rows. */
    ldi_t ld[2 * NPAIR];
    di_t d[2 * NPAIR];
    si_t s[NPAIR], old[NPAIR];
    for (int k = 0; k < NPAIR; k++) {
        ld[2 * k] = (ldi_t){ pair_value(rank, k), rank };
        d[2 * k] = (di_t){ pair_value(rank, k), rank };
        s[k] = (si_t){ (short)pair_value(rank, k), rank };
    }
    MPI_Datatype vld, vd, vs;
    ZT_OK(MPI_Type_vector(NPAIR, 1, 2, MPI_LONG_DOUBLE_INT, &vld));
    ZT_OK(MPI_Type_vector(NPAIR, 1, 2, MPI_DOUBLE_INT, &vd));
    ZT_OK(MPI_Type_vector(NPAIR, 1, 2, MPI_SHORT_INT, &vs));
    ZT_OK(MPI_Type_commit(&vld));
    ZT_OK(MPI_Type_commit(&vd));
    ZT_OK(MPI_Type_commit(&vs));
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    ZT_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    ZT_OK(MPI_Accumulate(ld, 1, vld, 0, offsetof(struct pairs_win, ld), 1, vld, MPI_MAXLOC,
                         win));
    ZT_OK(MPI_Accumulate(d, 1, vd, 0, offsetof(struct pairs_win, d), 1, vd, MPI_MAXLOC, win));
    ZT_OK(MPI_Get_accumulate(s, NPAIR, MPI_SHORT_INT, old, NPAIR, MPI_SHORT_INT, 0,
                             offsetof(struct pairs_win, s), 1, vs, MPI_MAXLOC, win));
    ZT_OK(MPI_Win_unlock(0, win));
    for (int k = 0; k < NPAIR; k++)
        ZT_CHECK(PAIR_OK(old[k], k), "Get_accumulate's old pair %d: %d/%d", k, old[k].v,
                 old[k].i);
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int k = 0; rank == 0 && k < NPAIR; k++) {
        int best = -1, who = -1;
        for (int r = 0; r < size; r++)
            if (pair_value(r, k) > best)
                best = pair_value(r, k), who = r;
        ZT_CHECK(w->ld[2 * k].v == best && w->ld[2 * k].i == who, "long double pair %d", k);
        ZT_CHECK(w->d[2 * k].v == best && w->d[2 * k].i == who, "double pair %d", k);
        ZT_CHECK(w->s[2 * k].v == best && w->s[2 * k].i == who, "short pair %d", k);
        ZT_CHECK(w->ld[2 * k + 1].i == -5 && w->d[2 * k + 1].i == -5 && w->s[2 * k + 1].i == -5,
                 "pairs between the target's elements untouched (%d)", k);
    }
    for (size_t b = 0; b < sizeof(w->guard); b++)
        ZT_CHECK(w->guard[b] == 0xab, "byte %zu after the pairs untouched", b);
    MPI_Type_free(&vld);
    MPI_Type_free(&vd);
    MPI_Type_free(&vs);
    ZT_OK(MPI_Win_free(&win));
    free(w);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, iters = argc > 1 ? atoi(argv[1]) : 10000;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win win;
    int *ib;
    ZT_OK(MPI_Win_allocate(4 * M * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                           &ib, &win));
    all_ops(win, ib, rank, size, 0);
    all_ops(win, ib, rank, size, 1);
    ZT_OK(MPI_Win_free(&win));
    big_sum(rank, size, size > 8 ? 20 : 200);

    char *cb = zt_malloc(1024);
    ZT_OK(MPI_Win_create(cb, 1024, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    derived_and_pairs(win, cb, rank, size);
    ZT_OK(MPI_Win_free(&win));
    free(cb);
    padded_pairs(rank, size);

    int64_t *lb;
    ZT_OK(MPI_Win_allocate(4 * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL,
                           MPI_COMM_WORLD, &lb, &win));
    counter(win, lb, rank, size, iters);
    cas_lock(win, lb, rank, size, iters / 10 > 0 ? iters / 10 : 1);
    ZT_OK(MPI_Win_free(&win));
    MPI_Finalize();
    return 0;
}
