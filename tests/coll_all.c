/*
 * coll_all.c: every collective against a serial reference computed here,
 * for several counts (empty, one element, inline-sized, large enough to be
 * split in slices), several roots, with and without MPI_IN_PLACE, on
 * MPI_COMM_WORLD and on a sub-communicator from MPI_Comm_split whose rank
 * order is reversed.
 *
 * Usage: coll_all [max_count]   (default 3000 elements)
 */
#include "zt.h"

/* Rank r's element i: small, so sums over 1000 ranks fit an int. */
static int val(int r, int i)
{
    return (r * 37 + i * 11) % 1009 - 500;
}

/* Per-rank count of the v-variants, with gaps in the displacements. */
static int vcount(int c, int q)
{
    return c ? c + q % 3 : 0;
}

typedef struct ctx {
    MPI_Comm comm;
    int rank, size;
    char what[96];
} ctx_t;

static int *ints(size_t n, int fill)
{
    int *p = zt_malloc(sizeof(int) * (n ? n : 1));
    for (size_t i = 0; i < n; i++)
        p[i] = fill;
    return p;
}

#define CHECK_ARR(x, got, want)                                                 \
    ZT_CHECK((got) == (want), "%s: element %s is %d, expected %d", (x)->what, \
             #got, (int)(got), (int)(want))

static void t_bcast(ctx_t *x, int c, int root)
{
    int *b = ints((size_t)c, -7);
    if (x->rank == root)
        for (int i = 0; i < c; i++)
            b[i] = val(root, i);
    snprintf(x->what, sizeof x->what, "Bcast c=%d root=%d", c, root);
    ZT_OK(MPI_Bcast(b, c, MPI_INT, root, x->comm));
    for (int i = 0; i < c; i++)
        CHECK_ARR(x, b[i], val(root, i));
    free(b);
}

static void t_gather(ctx_t *x, int c, int root, int inplace)
{
    int n = x->size;
    int *s = ints((size_t)c, 0), *r = ints((size_t)c * (size_t)n, -7);
    for (int i = 0; i < c; i++)
        s[i] = val(x->rank, i);
    if (inplace && x->rank == root)
        memcpy(r + (size_t)root * (size_t)c, s, sizeof(int) * (size_t)c);
    snprintf(x->what, sizeof x->what, "Gather c=%d root=%d inplace=%d", c, root, inplace);
    ZT_OK(MPI_Gather(inplace && x->rank == root ? MPI_IN_PLACE : s, c, MPI_INT, r, c, MPI_INT,
                     root, x->comm));
    if (x->rank == root)
        for (int q = 0; q < n; q++)
            for (int i = 0; i < c; i++)
                CHECK_ARR(x, r[(size_t)q * c + i], val(q, i));
    /* Gatherv: rank q sends vcount(c, q) elements to displacement 2q + sum. */
    int *rc = ints((size_t)n, 0), *dp = ints((size_t)n, 0), tot = 0;
    for (int q = 0; q < n; q++) {
        rc[q] = vcount(c, q);
        dp[q] = tot + 1;
        tot += rc[q] + 1;
    }
    int *rv = ints((size_t)tot + 1, -7), mine = vcount(c, x->rank);
    int *sv = ints((size_t)mine, 0);
    for (int i = 0; i < mine; i++)
        sv[i] = val(x->rank, i);
    if (inplace && x->rank == root)
        memcpy(rv + dp[root], sv, sizeof(int) * (size_t)mine);
    snprintf(x->what, sizeof x->what, "Gatherv c=%d root=%d inplace=%d", c, root, inplace);
    ZT_OK(MPI_Gatherv(inplace && x->rank == root ? MPI_IN_PLACE : sv, mine, MPI_INT, rv, rc, dp,
                      MPI_INT, root, x->comm));
    if (x->rank == root)
        for (int q = 0; q < n; q++) {
            CHECK_ARR(x, rv[dp[q] - 1], -7);
            for (int i = 0; i < rc[q]; i++)
                CHECK_ARR(x, rv[dp[q] + i], val(q, i));
        }
    free(s), free(r), free(rc), free(dp), free(rv), free(sv);
}

static void t_scatter(ctx_t *x, int c, int root, int inplace)
{
    int n = x->size, me = x->rank;
    int *s = ints((size_t)c * (size_t)n, 0), *r = ints((size_t)c, -7);
    for (int q = 0; q < n; q++)
        for (int i = 0; i < c; i++)
            s[(size_t)q * c + i] = val(q, i);
    int ip = inplace && me == root;
    snprintf(x->what, sizeof x->what, "Scatter c=%d root=%d inplace=%d", c, root, inplace);
    ZT_OK(MPI_Scatter(s, c, MPI_INT, ip ? MPI_IN_PLACE : r, c, MPI_INT, root, x->comm));
    for (int i = 0; i < c && !ip; i++)
        CHECK_ARR(x, r[i], val(me, i));
    int *sc = ints((size_t)n, 0), *dp = ints((size_t)n, 0), tot = 0;
    for (int q = 0; q < n; q++) {
        sc[q] = vcount(c, q);
        dp[q] = tot + 2;
        tot += sc[q] + 2;
    }
    int *sv = ints((size_t)tot, 0), *rv = ints((size_t)sc[me], -7);
    for (int q = 0; q < n; q++)
        for (int i = 0; i < sc[q]; i++)
            sv[dp[q] + i] = val(q, i);
    snprintf(x->what, sizeof x->what, "Scatterv c=%d root=%d inplace=%d", c, root, inplace);
    ZT_OK(MPI_Scatterv(sv, sc, dp, MPI_INT, ip ? MPI_IN_PLACE : rv, sc[me], MPI_INT, root,
                       x->comm));
    for (int i = 0; i < sc[me] && !ip; i++)
        CHECK_ARR(x, rv[i], val(me, i));
    free(s), free(r), free(sc), free(dp), free(sv), free(rv);
}

static void t_allgather(ctx_t *x, int c, int inplace)
{
    int n = x->size, me = x->rank;
    int *s = ints((size_t)c, 0), *r = ints((size_t)c * (size_t)n, -7);
    for (int i = 0; i < c; i++)
        s[i] = r[(size_t)me * c + i] = val(me, i);
    snprintf(x->what, sizeof x->what, "Allgather c=%d inplace=%d", c, inplace);
    ZT_OK(MPI_Allgather(inplace ? MPI_IN_PLACE : s, c, MPI_INT, r, c, MPI_INT, x->comm));
    for (int q = 0; q < n; q++)
        for (int i = 0; i < c; i++)
            CHECK_ARR(x, r[(size_t)q * c + i], val(q, i));
    int *rc = ints((size_t)n, 0), *dp = ints((size_t)n, 0), tot = 0;
    for (int q = 0; q < n; q++) {
        rc[q] = vcount(c, q);
        dp[q] = tot + 1;
        tot += rc[q] + 1;
    }
    int *rv = ints((size_t)tot, -7);
    for (int i = 0; i < rc[me]; i++)
        rv[dp[me] + i] = val(me, i);
    snprintf(x->what, sizeof x->what, "Allgatherv c=%d inplace=%d", c, inplace);
    int *sv = ints((size_t)rc[me], 0);
    memcpy(sv, rv + dp[me], sizeof(int) * (size_t)rc[me]);
    ZT_OK(MPI_Allgatherv(inplace ? MPI_IN_PLACE : sv, rc[me], MPI_INT, rv, rc, dp, MPI_INT,
                         x->comm));
    free(sv);
    for (int q = 0; q < n; q++) {
        CHECK_ARR(x, rv[dp[q] - 1], -7);
        for (int i = 0; i < rc[q]; i++)
            CHECK_ARR(x, rv[dp[q] + i], val(q, i));
    }
    free(s), free(r), free(rc), free(dp), free(rv);
}

/* Element i of the block rank `from` sends to rank `to`. */
static int a2a(int from, int to, int i)
{
    return val(from * 7 + to, i);
}

static void t_alltoall(ctx_t *x, int c, int inplace)
{
    int n = x->size, me = x->rank;
    int *s = ints((size_t)c * (size_t)n, 0), *r = ints((size_t)c * (size_t)n, -7);
    for (int q = 0; q < n; q++)
        for (int i = 0; i < c; i++)
            (inplace ? r : s)[(size_t)q * c + i] = a2a(me, q, i);
    snprintf(x->what, sizeof x->what, "Alltoall c=%d inplace=%d", c, inplace);
    ZT_OK(MPI_Alltoall(inplace ? MPI_IN_PLACE : s, c, MPI_INT, r, c, MPI_INT, x->comm));
    for (int q = 0; q < n; q++)
        for (int i = 0; i < c; i++)
            CHECK_ARR(x, r[(size_t)q * c + i], a2a(q, me, i));
    /* Alltoallv: rank p sends vcount(c, p + q) to q; displacements leave gaps. */
    int *sc = ints((size_t)n, 0), *sd = ints((size_t)n, 0), *rc = ints((size_t)n, 0);
    int *rd = ints((size_t)n, 0), st = 0, rt = 0;
    for (int q = 0; q < n; q++) {
        sc[q] = vcount(c, me + q), sd[q] = st + 1, st += sc[q] + 1;
        rc[q] = vcount(c, q + me), rd[q] = rt + 1, rt += rc[q] + 1;
    }
    int *sv = ints((size_t)st, 0), *rv = ints((size_t)rt, -7);
    for (int q = 0; q < n; q++)
        for (int i = 0; i < sc[q]; i++)
            (inplace ? rv : sv)[(inplace ? rd : sd)[q] + i] = a2a(me, q, i);
    snprintf(x->what, sizeof x->what, "Alltoallv c=%d inplace=%d", c, inplace);
    ZT_OK(MPI_Alltoallv(inplace ? MPI_IN_PLACE : sv, sc, sd, MPI_INT, rv, rc, rd, MPI_INT,
                        x->comm));
    for (int q = 0; q < n; q++) {
        CHECK_ARR(x, rv[rd[q] - 1], -7);
        for (int i = 0; i < rc[q]; i++)
            CHECK_ARR(x, rv[rd[q] + i], a2a(q, me, i));
    }
    /* Alltoallw with the same layout, displacements in bytes. */
    MPI_Datatype *ty = zt_malloc(sizeof(MPI_Datatype) * (size_t)n);
    for (int q = 0; q < n; q++) {
        ty[q] = MPI_INT;
        sd[q] *= (int)sizeof(int), rd[q] *= (int)sizeof(int);
        for (int i = 0; i < rc[q]; i++)
            rv[rd[q] / 4 + i] = -7;
    }
    if (!inplace) {
        snprintf(x->what, sizeof x->what, "Alltoallw c=%d", c);
        ZT_OK(MPI_Alltoallw(sv, sc, sd, ty, rv, rc, rd, ty, x->comm));
        for (int q = 0; q < n; q++)
            for (int i = 0; i < rc[q]; i++)
                CHECK_ARR(x, rv[rd[q] / 4 + i], a2a(q, me, i));
    }
    free(ty), free(s), free(r), free(sc), free(sd), free(rc), free(rd), free(sv), free(rv);
}

static int sum_to(int hi, int i) /* sum of val(q, i) for q in [0, hi) */
{
    int t = 0;
    for (int q = 0; q < hi; q++)
        t += val(q, i);
    return t;
}

static void t_reduce(ctx_t *x, int c, int root, int inplace)
{
    int n = x->size, me = x->rank;
    int *s = ints((size_t)c, 0), *r = ints((size_t)c, -7), *ref = ints((size_t)c, 0);
    int *mx = ints((size_t)c, 0);
    for (int i = 0; i < c; i++) {
        s[i] = val(me, i);
        ref[i] = sum_to(n, i);
        mx[i] = val(0, i);
        for (int q = 1; q < n; q++)
            mx[i] = val(q, i) > mx[i] ? val(q, i) : mx[i];
    }
    int ip = inplace && me == root;
    if (ip)
        memcpy(r, s, sizeof(int) * (size_t)c);
    snprintf(x->what, sizeof x->what, "Reduce c=%d root=%d inplace=%d", c, root, inplace);
    ZT_OK(MPI_Reduce(ip ? MPI_IN_PLACE : s, r, c, MPI_INT, MPI_SUM, root, x->comm));
    for (int i = 0; i < c && me == root; i++)
        CHECK_ARR(x, r[i], ref[i]);
    for (int i = 0; i < c; i++)
        r[i] = inplace ? s[i] : -7;
    snprintf(x->what, sizeof x->what, "Allreduce c=%d inplace=%d", c, inplace);
    ZT_OK(MPI_Allreduce(inplace ? MPI_IN_PLACE : s, r, c, MPI_INT, MPI_MAX, x->comm));
    for (int i = 0; i < c; i++)
        CHECK_ARR(x, r[i], mx[i]);
    for (int i = 0; i < c; i++)
        r[i] = inplace ? s[i] : -7;
    snprintf(x->what, sizeof x->what, "Scan c=%d inplace=%d", c, inplace);
    ZT_OK(MPI_Scan(inplace ? MPI_IN_PLACE : s, r, c, MPI_INT, MPI_SUM, x->comm));
    for (int i = 0; i < c; i++)
        CHECK_ARR(x, r[i], sum_to(me + 1, i));
    for (int i = 0; i < c; i++)
        r[i] = inplace ? s[i] : -7;
    snprintf(x->what, sizeof x->what, "Exscan c=%d inplace=%d", c, inplace);
    ZT_OK(MPI_Exscan(inplace ? MPI_IN_PLACE : s, r, c, MPI_INT, MPI_SUM, x->comm));
    for (int i = 0; i < c && me > 0; i++)
        CHECK_ARR(x, r[i], sum_to(me, i));
    free(s), free(r), free(ref), free(mx);
}

static void t_reduce_scatter(ctx_t *x, int c, int inplace)
{
    int n = x->size, me = x->rank;
    /* Block: rank q gets c elements; element j of the whole vector. */
    int *s = ints((size_t)c * (size_t)n, 0), *r = ints((size_t)c * (size_t)n, -7);
    for (int j = 0; j < c * n; j++)
        (inplace ? r : s)[j] = val(me, j);
    snprintf(x->what, sizeof x->what, "Reduce_scatter_block c=%d inplace=%d", c, inplace);
    ZT_OK(MPI_Reduce_scatter_block(inplace ? MPI_IN_PLACE : s, r, c, MPI_INT, MPI_SUM, x->comm));
    for (int i = 0; i < c; i++)
        CHECK_ARR(x, r[i], sum_to(n, me * c + i));
    int *rc = ints((size_t)n, 0), tot = 0, first = 0;
    for (int q = 0; q < n; q++) {
        rc[q] = vcount(c, q);
        if (q < me)
            first += rc[q];
        tot += rc[q];
    }
    int *sv = ints((size_t)tot, 0), *rv = ints((size_t)tot, -7);
    for (int j = 0; j < tot; j++)
        (inplace ? rv : sv)[j] = val(me, j);
    snprintf(x->what, sizeof x->what, "Reduce_scatter c=%d inplace=%d", c, inplace);
    ZT_OK(MPI_Reduce_scatter(inplace ? MPI_IN_PLACE : sv, rv, rc, MPI_INT, MPI_SUM, x->comm));
    for (int i = 0; i < rc[me]; i++)
        CHECK_ARR(x, rv[i], sum_to(n, first + i));
    free(s), free(r), free(rc), free(sv), free(rv);
}

static void run_all(MPI_Comm comm, int maxc)
{
    ctx_t x = { comm, 0, 0, "" };
    MPI_Comm_rank(comm, &x.rank);
    MPI_Comm_size(comm, &x.size);
    int n = x.size, counts[] = { 0, 1, 5, 40, maxc };
    /* Keep buffers of n blocks near 64 K elements at most. */
    int block_max = 65536 / n > 0 ? 65536 / n : 1;
    for (unsigned k = 0; k < sizeof counts / sizeof *counts; k++) {
        int c = counts[k], cb = c < block_max ? c : block_max;
        if (c > maxc || (k > 0 && c == counts[k - 1]))
            continue;
        int roots[] = { 0, n - 1, n / 2 };
        for (int ri = 0; ri < 3; ri++) {
            t_bcast(&x, c, roots[ri]);
            for (int ip = 0; ip < 2; ip++) {
                t_gather(&x, cb, roots[ri], ip);
                t_scatter(&x, cb, roots[ri], ip);
                t_reduce(&x, c, roots[ri], ip);
            }
        }
        for (int ip = 0; ip < 2; ip++) {
            t_allgather(&x, cb, ip);
            t_alltoall(&x, cb, ip);
            t_reduce_scatter(&x, cb, ip);
        }
        ZT_OK(MPI_Barrier(comm));
    }
}

int main(int argc, char **argv)
{
    int rank, size, maxc = argc > 1 ? atoi(argv[1]) : 3000;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    run_all(MPI_COMM_WORLD, maxc);
    /* A sub-communicator: three colours, rank order reversed. */
    MPI_Comm sub;
    ZT_OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 3, size - rank, &sub));
    run_all(sub, maxc);
    ZT_OK(MPI_Comm_free(&sub));
    if (rank == 0)
        printf("coll_all: %d ranks ok\n", size);
    MPI_Finalize();
    return 0;
}
