/*
 * inter_coll.c: every collective on an intercommunicator whose two groups
 * have different sizes (world ranks r % 3 == 0 form group A, the others
 * group B), blocking and non-blocking, with roots in either group
 * (MPI_ROOT at the root, MPI_PROC_NULL at its local peers, the root's
 * rank at the remote group), checked against values computed by hand;
 * then the argument errors through MPI_ERRORS_RETURN.
 */
#include "zt.h"

typedef struct side {
    int g;              /* 0: group A, 1: group B */
    int lr, nl, nr;     /* local rank, local size, remote size */
    MPI_Comm c;         /* the intercommunicator */
    int nb;             /* use the non-blocking forms */
} side;

/* The value element k of local rank r of group g contributes. */
static int val(int g, int r, int k)
{
    return 100000 * g + 100 * r + k;
}

/* Finish a call: the blocking form returned already; the non-blocking
 * one is waited for here. */
static void fin(const side *s, MPI_Request *req)
{
    if (s->nb)
        ZT_OK(MPI_Wait(req, MPI_STATUS_IGNORE));
}

#define CALL(s, blocking, nonblocking)                  \
    do {                                                \
        MPI_Request req_ = MPI_REQUEST_NULL;            \
        MPI_Request *const request = &req_;             \
        (void)request;                                  \
        if ((s)->nb)                                    \
            ZT_OK(nonblocking);                         \
        else                                            \
            ZT_OK(blocking);                            \
        fin((s), &req_);                                \
    } while (0)

/* The root argument for a rooted collective whose root is local rank
 * `rr` of group `rg`. */
static int root_arg(const side *s, int rg, int rr)
{
    if (s->g != rg)
        return rr;
    return s->lr == rr ? MPI_ROOT : MPI_PROC_NULL;
}

static void t_barrier_bcast(const side *s)
{
    CALL(s, MPI_Barrier(s->c), MPI_Ibarrier(s->c, request));
    for (int rg = 0; rg < 2; rg++) {
        int rr = rg == 0 ? 0 : (rg == s->g ? s->nl : s->nr) - 1;
        int root = root_arg(s, rg, rr), buf[3] = { -1, -1, -1 };
        if (root == MPI_ROOT)
            for (int k = 0; k < 3; k++)
                buf[k] = val(s->g, s->lr, k);
        CALL(s, MPI_Bcast(buf, 3, MPI_INT, root, s->c),
             MPI_Ibcast(buf, 3, MPI_INT, root, s->c, request));
        for (int k = 0; k < 3; k++)
            ZT_EQ(buf[k], root >= 0 ? val(rg, rr, k) : root == MPI_ROOT ? val(s->g, s->lr, k) : -1,
                  "bcast element");
    }
}

static void t_gather_scatter(const side *s)
{
    for (int rg = 0; rg < 2; rg++) {
        int root = root_arg(s, rg, 0), n = s->nr;
        int mine[2] = { val(s->g, s->lr, 0), val(s->g, s->lr, 1) };
        int *all = zt_malloc(sizeof(int) * 4 * (size_t)n);
        int *cnt = zt_malloc(sizeof(int) * (size_t)n);
        int *dis = zt_malloc(sizeof(int) * (size_t)n);
        for (int i = 0; i < 4 * n; i++)
            all[i] = -1;
        for (int i = 0, d = 0; i < n; i++, d += 3) {
            cnt[i] = i % 2 + 1;     /* remote rank i sends lr % 2 + 1 ints */
            dis[i] = d;
        }
        /* Gather: 2 ints from every remote rank. */
        CALL(s, MPI_Gather(mine, 2, MPI_INT, all, 2, MPI_INT, root, s->c),
             MPI_Igather(mine, 2, MPI_INT, all, 2, MPI_INT, root, s->c, request));
        for (int i = 0; root == MPI_ROOT && i < n; i++)
            for (int k = 0; k < 2; k++)
                ZT_EQ(all[2 * i + k], val(1 - s->g, i, k), "gather element");
        /* Gatherv: lr % 2 + 1 ints at displacement 3 * lr. */
        for (int i = 0; i < 4 * n; i++)
            all[i] = -1;
        CALL(s, MPI_Gatherv(mine, s->lr % 2 + 1, MPI_INT, all, cnt, dis, MPI_INT, root, s->c),
             MPI_Igatherv(mine, s->lr % 2 + 1, MPI_INT, all, cnt, dis, MPI_INT, root, s->c,
                          request));
        for (int i = 0; root == MPI_ROOT && i < n; i++)
            for (int k = 0; k < 3; k++)
                ZT_EQ(all[3 * i + k], k < cnt[i] ? val(1 - s->g, i, k) : -1, "gatherv element");
        /* Scatter: block i of the root's array to remote rank i. */
        for (int i = 0; i < n; i++)
            for (int k = 0; k < 2; k++)
                all[2 * i + k] = 7 * i + k + 1000 * rg;
        int got[3] = { -1, -1, -1 };
        CALL(s, MPI_Scatter(all, 2, MPI_INT, got, 2, MPI_INT, root, s->c),
             MPI_Iscatter(all, 2, MPI_INT, got, 2, MPI_INT, root, s->c, request));
        if (root >= 0)
            for (int k = 0; k < 2; k++)
                ZT_EQ(got[k], 7 * s->lr + k + 1000 * rg, "scatter element");
        /* Scatterv with the Gatherv layout. */
        for (int i = 0; i < 3 * n; i++)
            all[i] = 11 * i + 1000 * rg;
        got[0] = got[1] = got[2] = -1;
        CALL(s, MPI_Scatterv(all, cnt, dis, MPI_INT, got, s->lr % 2 + 1, MPI_INT, root, s->c),
             MPI_Iscatterv(all, cnt, dis, MPI_INT, got, s->lr % 2 + 1, MPI_INT, root, s->c,
                           request));
        for (int k = 0; root >= 0 && k < 3; k++)
            ZT_EQ(got[k], k <= s->lr % 2 ? 11 * (3 * s->lr + k) + 1000 * rg : -1,
                  "scatterv element");
        free(all);
        free(cnt);
        free(dis);
    }
}

/* Allgather with different amounts per group: A's ranks send 1 int, B's
 * 2; every rank receives the remote group's. */
static void t_allgather(const side *s)
{
    int n = s->nr, sc = s->g + 1, rc = 2 - s->g;
    int mine[2] = { val(s->g, s->lr, 0), val(s->g, s->lr, 1) };
    int *all = zt_malloc(sizeof(int) * 3 * (size_t)n), *cnt = zt_malloc(sizeof(int) * (size_t)n);
    int *dis = zt_malloc(sizeof(int) * (size_t)n);
    CALL(s, MPI_Allgather(mine, sc, MPI_INT, all, rc, MPI_INT, s->c),
         MPI_Iallgather(mine, sc, MPI_INT, all, rc, MPI_INT, s->c, request));
    for (int i = 0; i < n; i++)
        for (int k = 0; k < rc; k++)
            ZT_EQ(all[rc * i + k], val(1 - s->g, i, k), "allgather element");
    /* Allgatherv: remote rank i sends i % 2 + 1 ints, placed in reverse
     * order of ranks. */
    for (int i = 0; i < n; i++) {
        cnt[i] = i % 2 + 1;
        dis[i] = 3 * (n - 1 - i);
    }
    for (int i = 0; i < 3 * n; i++)
        all[i] = -1;
    CALL(s, MPI_Allgatherv(mine, s->lr % 2 + 1, MPI_INT, all, cnt, dis, MPI_INT, s->c),
         MPI_Iallgatherv(mine, s->lr % 2 + 1, MPI_INT, all, cnt, dis, MPI_INT, s->c, request));
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            ZT_EQ(all[dis[i] + k], k < cnt[i] ? val(1 - s->g, i, k) : -1, "allgatherv element");
    free(all);
    free(cnt);
    free(dis);
}

/* The int local rank i of group g sends to remote rank j in Alltoall. */
static int a2a(int g, int i, int j, int k)
{
    return 1000000 * g + 1000 * i + 10 * j + k;
}

static void t_alltoall(const side *s)
{
    int n = s->nr, g = s->g, o = 1 - s->g;
    int *sb = zt_malloc(sizeof(int) * 4 * (size_t)n), *rb = zt_malloc(sizeof(int) * 4 * (size_t)n);
    int *sc = zt_malloc(sizeof(int) * 4 * (size_t)n), *sd = sc + n, *rcn = sc + 2 * n,
        *rd = sc + 3 * n;
    for (int j = 0; j < n; j++)
        for (int k = 0; k < 2; k++)
            sb[2 * j + k] = a2a(g, s->lr, j, k);
    CALL(s, MPI_Alltoall(sb, 2, MPI_INT, rb, 2, MPI_INT, s->c),
         MPI_Ialltoall(sb, 2, MPI_INT, rb, 2, MPI_INT, s->c, request));
    for (int j = 0; j < n; j++)
        for (int k = 0; k < 2; k++)
            ZT_EQ(rb[2 * j + k], a2a(o, j, s->lr, k), "alltoall element");
    /* Alltoallv: (i + j) % 3 ints from local i to remote j, blocks 3 apart. */
    for (int j = 0; j < n; j++) {
        sc[j] = (s->lr + j) % 3;
        sd[j] = 3 * j;
        rcn[j] = (j + s->lr) % 3;
        rd[j] = 3 * (n - 1 - j);
        for (int k = 0; k < 3; k++)
            sb[3 * j + k] = a2a(g, s->lr, j, k);
    }
    for (int i = 0; i < 3 * n; i++)
        rb[i] = -1;
    CALL(s, MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rcn, rd, MPI_INT, s->c),
         MPI_Ialltoallv(sb, sc, sd, MPI_INT, rb, rcn, rd, MPI_INT, s->c, request));
    for (int j = 0; j < n; j++)
        for (int k = 0; k < 3; k++)
            ZT_EQ(rb[rd[j] + k], k < rcn[j] ? a2a(o, j, s->lr, k) : -1, "alltoallv element");
    /* Alltoallw (blocking only in zmpi): byte displacements, one int or
     * two per peer. */
    MPI_Datatype *ts = zt_malloc(sizeof(MPI_Datatype) * (size_t)n);
    for (int j = 0; j < n; j++) {
        ts[j] = MPI_INT;
        sc[j] = 1 + (s->lr + j) % 2;
        rcn[j] = 1 + (j + s->lr) % 2;
        sd[j] = (int)sizeof(int) * 3 * j;
        rd[j] = (int)sizeof(int) * 3 * j;
    }
    for (int i = 0; i < 3 * n; i++)
        rb[i] = -1;
    ZT_OK(MPI_Alltoallw(sb, sc, sd, ts, rb, rcn, rd, ts, s->c));
    for (int j = 0; j < n; j++)
        for (int k = 0; k < 3; k++)
            ZT_EQ(rb[3 * j + k], k < rcn[j] ? a2a(o, j, s->lr, k) : -1, "alltoallw element");
    free(ts);
    free(sb);
    free(rb);
    free(sc);
}

/* A non-commutative, associative operation on (value, 10^digits) pairs
 * mod a prime: concatenation of decimal strings.  Reducing in rank order
 * gives the digits of the ranks' values in order. */
#define P 1000000007LL
static void concat(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    long long *a = in, *b = inout;
    for (int i = 0; i < *len; i++, a += 2, b += 2) {
        long long v = (a[0] * b[1] + b[0]) % P, p = a[1] * b[1] % P;
        b[0] = v;
        b[1] = p;
    }
}

/* The concatenation of the digits d(r) = r % 9 + 1 of remote ranks 0..n-1. */
static long long concat_expect(int n, int shift)
{
    long long v = 0;
    for (int r = 0; r < n; r++)
        v = (v * 10 + (r + shift) % 9 + 1) % P;
    return v;
}

static void t_reduce(const side *s)
{
    int n = s->nr, o = 1 - s->g;
    long long sum_r = (long long)n * (n - 1) / 2;
    MPI_Op cat;
    MPI_Datatype pair, tri;
    MPI_Op_create(concat, 0, &cat);
    MPI_Type_contiguous(2, MPI_LONG_LONG, &pair);
    MPI_Type_commit(&pair);
    MPI_Type_contiguous(3, MPI_INT, &tri);
    MPI_Type_commit(&tri);
    for (int rg = 0; rg < 2; rg++) {
        int root = root_arg(s, rg, 0);
        int in[6], out[6] = { -1, -1, -1, -1, -1, -1 };
        for (int k = 0; k < 6; k++)
            in[k] = val(s->g, s->lr, k);
        /* A predefined operation on a derived type (2 x 3 ints). */
        CALL(s, MPI_Reduce(in, out, 2, tri, MPI_SUM, root, s->c),
             MPI_Ireduce(in, out, 2, tri, MPI_SUM, root, s->c, request));
        for (int k = 0; k < 6; k++)
            ZT_EQ(out[k], root == MPI_ROOT ? n * (100000 * o + k) + 100 * sum_r : -1,
                  "reduce element");
        /* A user operation that is not commutative: remote rank order. */
        long long cin[4] = { s->lr % 9 + 1, 10, (s->lr + 4) % 9 + 1, 10 }, cout[4] = { -1, -1,
                                                                                        -1, -1 };
        CALL(s, MPI_Reduce(cin, cout, 2, pair, cat, root, s->c),
             MPI_Ireduce(cin, cout, 2, pair, cat, root, s->c, request));
        if (root == MPI_ROOT) {
            ZT_EQ(cout[0], concat_expect(n, 0), "reduce concat, element 0");
            ZT_EQ(cout[2], concat_expect(n, 4), "reduce concat, element 1");
        }
    }
    /* Allreduce: every rank gets the remote group's result. */
    long long cin[2] = { s->lr % 9 + 1, 10 }, cout[2];
    CALL(s, MPI_Allreduce(cin, cout, 1, pair, cat, s->c),
         MPI_Iallreduce(cin, cout, 1, pair, cat, s->c, request));
    ZT_EQ(cout[0], concat_expect(n, 0), "allreduce concat");
    int mx = s->lr, got = -1;
    CALL(s, MPI_Allreduce(&mx, &got, 1, MPI_INT, MPI_MAX, s->c),
         MPI_Iallreduce(&mx, &got, 1, MPI_INT, MPI_MAX, s->c, request));
    ZT_EQ(got, n - 1, "allreduce max");
    MPI_Op_free(&cat);
    MPI_Type_free(&pair);
    MPI_Type_free(&tri);
}

/* Reduce_scatter: 60 elements per contribution; the remote group's sum
 * is scattered over the local ranks by the local recvcounts. */
static void t_reduce_scatter(const side *s)
{
    enum { T = 60 };
    int nl = s->nl, n = s->nr, o = 1 - s->g;
    long long sum_r = (long long)n * (n - 1) / 2;
    int *cnt = zt_malloc(sizeof(int) * (size_t)nl), in[T], out[T + 1], off = 0;
    for (int i = 0; i < nl; i++) {
        cnt[i] = T / nl + (i < T % nl);
        if (i < s->lr)
            off += cnt[i];
    }
    for (int k = 0; k < T; k++)
        in[k] = val(s->g, s->lr, k);
    for (int k = 0; k <= T; k++)
        out[k] = -1;
    CALL(s, MPI_Reduce_scatter(in, out, cnt, MPI_INT, MPI_SUM, s->c),
         MPI_Ireduce_scatter(in, out, cnt, MPI_INT, MPI_SUM, s->c, request));
    for (int k = 0; k < cnt[s->lr]; k++)
        ZT_EQ(out[k], n * (100000 * o + off + k) + 100 * sum_r, "reduce_scatter element");
    ZT_EQ(out[cnt[s->lr]], -1, "reduce_scatter wrote past its count");
    /* Block form: n * nl ints per contribution, nr per local rank.  Each
     * group's total is nl * nr. */
    int *bin = zt_malloc(sizeof(int) * (size_t)(n * nl));
    int *bout = zt_malloc(sizeof(int) * (size_t)n);
    for (int k = 0; k < n * nl; k++)
        bin[k] = val(s->g, s->lr, k % 97);
    CALL(s, MPI_Reduce_scatter_block(bin, bout, n, MPI_INT, MPI_SUM, s->c),
         MPI_Ireduce_scatter_block(bin, bout, n, MPI_INT, MPI_SUM, s->c, request));
    for (int k = 0; k < n; k++)
        ZT_EQ(bout[k], n * (100000 * o + (s->lr * n + k) % 97) + 100 * sum_r,
              "reduce_scatter_block element");
    free(bin);
    free(bout);
    free(cnt);
}

/* Several non-blocking collectives in flight at once, completed together. */
static void t_overlap(const side *s)
{
    MPI_Request r[4];
    int b = s->g == 0 && s->lr == 0 ? 42 : -1, one = 1, sum = -1, gsend = s->lr, *gat;
    int root = root_arg(s, 0, 0);
    gat = zt_malloc(sizeof(int) * (size_t)s->nr);
    ZT_OK(MPI_Ibcast(&b, 1, MPI_INT, root, s->c, &r[0]));
    ZT_OK(MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, s->c, &r[1]));
    ZT_OK(MPI_Ibarrier(s->c, &r[2]));
    ZT_OK(MPI_Iallgather(&gsend, 1, MPI_INT, gat, 1, MPI_INT, s->c, &r[3]));
    ZT_OK(MPI_Waitall(4, r, ZT_STATUSES_IGNORE));
    ZT_EQ(b, root >= 0 || root == MPI_ROOT ? 42 : -1, "overlapped bcast");
    ZT_EQ(sum, s->nr, "overlapped allreduce");
    for (int i = 0; i < s->nr; i++)
        ZT_EQ(gat[i], i, "overlapped allgather");
    free(gat);
}

static void t_errors(const side *s)
{
    int x = 1, y = 0;
    MPI_Request req;
    MPI_Comm_set_errhandler(s->c, MPI_ERRORS_RETURN);
    ZT_EQ(MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, s->c), MPI_ERR_COMM, "Scan on an intercomm");
    ZT_EQ(MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, s->c), MPI_ERR_COMM, "Exscan on an intercomm");
    ZT_EQ(MPI_Iscan(&x, &y, 1, MPI_INT, MPI_SUM, s->c, &req), MPI_ERR_COMM, "Iscan");
    ZT_EQ(MPI_Bcast(&x, 1, MPI_INT, s->nr, s->c), MPI_ERR_ROOT, "root = remote size");
    ZT_EQ(MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, -7, s->c), MPI_ERR_ROOT, "root = -7");
    ZT_EQ(MPI_Allreduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, s->c), MPI_ERR_BUFFER,
          "MPI_IN_PLACE on an intercomm");
    ZT_EQ(MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_BAND, s->c), MPI_ERR_OP, "BAND on double");
    ZT_EQ(MPI_Allreduce(&x, &y, -1, MPI_INT, MPI_SUM, s->c), MPI_ERR_COUNT, "count -1");
    ZT_EQ(MPI_Ibarrier(s->c, NULL), MPI_ERR_ARG, "Ibarrier without a request");
    ZT_EQ(MPI_Gather(&x, 1, MPI_INT, NULL, 1, MPI_INT, MPI_ROOT, s->c), MPI_ERR_BUFFER,
          "root's NULL receive buffer");
    /* The rooted calls check the root's per-remote-rank side and the other
     * group's single buffer, each under its own argument name; every
     * mistake below is found before any message, so each rank may make it
     * alone. */
    int *counts = zt_malloc(sizeof(int) * (size_t)s->nr);
    int *displs = zt_malloc(sizeof(int) * (size_t)s->nr);
    for (int i = 0; i < s->nr; i++) {
        counts[i] = i == s->nr - 1 ? -1 : 1;
        displs[i] = i;
    }
    ZT_EQ(MPI_Scatterv(&x, counts, displs, MPI_INT, NULL, 0, MPI_INT, MPI_ROOT, s->c),
          MPI_ERR_COUNT, "Scatterv: root's last send count -1");
    ZT_EQ(MPI_Gatherv(NULL, 0, MPI_INT, &y, NULL, displs, MPI_INT, MPI_ROOT, s->c), MPI_ERR_ARG,
          "Gatherv: root's NULL receive counts");
    ZT_EQ(MPI_Scatter(NULL, 0, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, 0, s->c), MPI_ERR_BUFFER,
          "Scatter: MPI_IN_PLACE receive buffer in the other group");
    ZT_EQ(MPI_Igather(MPI_IN_PLACE, 1, MPI_INT, NULL, 0, MPI_INT, 0, s->c, &req), MPI_ERR_BUFFER,
          "Igather: MPI_IN_PLACE send buffer in the other group");
    ZT_EQ(MPI_Iscatterv(&x, counts, displs, MPI_INT, NULL, 0, MPI_INT, MPI_ROOT, s->c, NULL),
          MPI_ERR_ARG, "Iscatterv without a request");
    free(counts);
    free(displs);
    MPI_Comm_set_errhandler(s->c, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    side s;
    int wr, ws;
    MPI_Comm local;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    MPI_Comm_size(MPI_COMM_WORLD, &ws);
    if (ws < 2) {
        MPI_Finalize();
        return 0;
    }
    s.g = wr % 3 == 0 ? 0 : 1;
    MPI_Comm_split(MPI_COMM_WORLD, s.g, wr, &local);
    ZT_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, s.g == 0 ? 1 : 0, 1, &s.c));
    MPI_Comm_rank(s.c, &s.lr);
    MPI_Comm_size(s.c, &s.nl);
    MPI_Comm_remote_size(s.c, &s.nr);
    for (s.nb = 0; s.nb < 2; s.nb++) {
        t_barrier_bcast(&s);
        t_gather_scatter(&s);
        t_allgather(&s);
        t_alltoall(&s);
        t_reduce(&s);
        t_reduce_scatter(&s);
    }
    t_overlap(&s);
    t_errors(&s);
    MPI_Comm_free(&s.c);
    MPI_Comm_free(&local);
    MPI_Finalize();
    return 0;
}
