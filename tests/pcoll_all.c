/*
 * pcoll_all.c: every persistent collective of MPI 4.0 (Barrier_init ...
 * Exscan_init), each made once and started ROUNDS times with new buffer
 * contents every round, results checked against hand-computed values;
 * in-place forms; a derived type freed after init; Startall of several
 * at once completed by Waitall and by Test loops; Barrier, Bcast,
 * Allgather, Alltoall and the four reductions (with a derived type freed
 * after init and a non-commutative user operation) on an
 * intercommunicator; persistent collectives started in a different order
 * on different ranks (they match in init order); and errors through
 * MPI_ERRORS_RETURN (starting an active request, freeing an active one,
 * bad arguments at init).
 */
#include "zt.h"

#define ROUNDS 4

/* Start, then complete with Wait or (odd rounds) a Test loop. */
static void run(MPI_Request *req, int round)
{
    ZT_OK(MPI_Start(req));
    if (round % 2 == 0) {
        ZT_OK(MPI_Wait(req, MPI_STATUS_IGNORE));
    } else {
        int flag = 0;
        while (!flag)
            ZT_OK(MPI_Test(req, &flag, MPI_STATUS_IGNORE));
    }
    ZT_CHECK(*req != MPI_REQUEST_NULL, "a persistent request was freed by its completion");
}

static void barrier_bcast(int rank, int n)
{
    MPI_Request b, c;
    int buf[3];
    ZT_OK(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &b));
    ZT_OK(MPI_Bcast_init(buf, 3, MPI_INT, n - 1, MPI_COMM_WORLD, MPI_INFO_NULL, &c));
    for (int round = 0; round < ROUNDS; round++) {
        run(&b, round);
        for (int i = 0; i < 3; i++)
            buf[i] = rank == n - 1 ? round * 10 + i : -1;
        run(&c, round);
        for (int i = 0; i < 3; i++)
            ZT_EQ(buf[i], round * 10 + i, "Bcast");
    }
    ZT_OK(MPI_Request_free(&b));
    ZT_OK(MPI_Request_free(&c));
}

static void gather_scatter(int rank, int n)
{
    int root = n / 2, *all = zt_malloc(sizeof(int) * 2 * (size_t)n), mine[2];
    int *cnt = zt_malloc(sizeof(int) * (size_t)n), *dsp = zt_malloc(sizeof(int) * (size_t)n);
    int *vall = zt_malloc(sizeof(int) * 3 * (size_t)n), vmine[3], total = 0;
    for (int q = 0; q < n; q++) {
        cnt[q] = q % 3 + 1;
        dsp[q] = total;
        total += cnt[q];
    }
    MPI_Request r[4];
    ZT_OK(MPI_Gather_init(mine, 2, MPI_INT, all, 2, MPI_INT, root, MPI_COMM_WORLD,
                          MPI_INFO_NULL, &r[0]));
    ZT_OK(MPI_Gatherv_init(vmine, cnt[rank], MPI_INT, vall, cnt, dsp, MPI_INT, root,
                           MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]));
    ZT_OK(MPI_Scatter_init(all, 2, MPI_INT, mine, 2, MPI_INT, root, MPI_COMM_WORLD,
                           MPI_INFO_NULL, &r[2]));
    ZT_OK(MPI_Scatterv_init(vall, cnt, dsp, MPI_INT, vmine, cnt[rank], MPI_INT, root,
                            MPI_COMM_WORLD, MPI_INFO_NULL, &r[3]));
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < 2; i++)
            mine[i] = rank * 100 + round * 7 + i;
        for (int i = 0; i < 3; i++)
            vmine[i] = rank * 100 + round * 5 + i;
        run(&r[0], round);
        run(&r[1], round);
        if (rank == root)
            for (int q = 0; q < n; q++) {
                for (int i = 0; i < 2; i++)
                    ZT_EQ(all[2 * q + i], q * 100 + round * 7 + i, "Gather");
                for (int i = 0; i < cnt[q]; i++)
                    ZT_EQ(vall[dsp[q] + i], q * 100 + round * 5 + i, "Gatherv");
            }
        /* Scatter back what the root now holds, plus one. */
        if (rank == root) {
            for (int k = 0; k < 2 * n; k++)
                all[k] += 1;
            for (int k = 0; k < total; k++)
                vall[k] += 2;
        }
        memset(mine, 0, sizeof(mine));
        memset(vmine, 0, sizeof(vmine));
        run(&r[2], round);
        run(&r[3], round);
        for (int i = 0; i < 2; i++)
            ZT_EQ(mine[i], rank * 100 + round * 7 + i + 1, "Scatter");
        for (int i = 0; i < cnt[rank]; i++)
            ZT_EQ(vmine[i], rank * 100 + round * 5 + i + 2, "Scatterv");
    }
    for (int i = 0; i < 4; i++)
        ZT_OK(MPI_Request_free(&r[i]));
    free(all);
    free(cnt);
    free(dsp);
    free(vall);
}

static void allgather(int rank, int n)
{
    int *all = zt_malloc(sizeof(int) * 2 * (size_t)n), mine[2];
    int *ip = zt_malloc(sizeof(int) * 2 * (size_t)n);
    int *cnt = zt_malloc(sizeof(int) * (size_t)n), *dsp = zt_malloc(sizeof(int) * (size_t)n);
    int *vall = zt_malloc(sizeof(int) * 2 * (size_t)n), total = 0;
    for (int q = 0; q < n; q++) {
        cnt[q] = q % 2 + 1;
        dsp[q] = total;
        total += cnt[q];
    }
    MPI_Request r[3];
    ZT_OK(MPI_Allgather_init(mine, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                             &r[0]));
    ZT_OK(MPI_Allgatherv_init(mine, cnt[rank], MPI_INT, vall, cnt, dsp, MPI_INT,
                              MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]));
    /* In place: the send arguments are ignored (garbage on purpose). */
    ZT_OK(MPI_Allgather_init(MPI_IN_PLACE, -5, MPI_DATATYPE_NULL, ip, 2, MPI_INT,
                             MPI_COMM_WORLD, MPI_INFO_NULL, &r[2]));
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < 2; i++) {
            mine[i] = rank * 10 + round * 3 + i;
            ip[2 * rank + i] = -(rank * 10 + round + i);
        }
        /* Startall of all three, then Waitall. */
        ZT_OK(MPI_Startall(3, r));
        ZT_OK(MPI_Waitall(3, r, ZT_STATUSES_IGNORE));
        for (int q = 0; q < n; q++)
            for (int i = 0; i < 2; i++) {
                ZT_EQ(all[2 * q + i], q * 10 + round * 3 + i, "Allgather");
                ZT_EQ(ip[2 * q + i], -(q * 10 + round + i), "Allgather in place");
                if (i < cnt[q])
                    ZT_EQ(vall[dsp[q] + i], q * 10 + round * 3 + i, "Allgatherv");
            }
    }
    for (int i = 0; i < 3; i++)
        ZT_OK(MPI_Request_free(&r[i]));
    free(all);
    free(ip);
    free(cnt);
    free(dsp);
    free(vall);
}

static void alltoall(int rank, int n)
{
    size_t N = (size_t)n;
    int *s = zt_malloc(sizeof(int) * 2 * N), *d = zt_malloc(sizeof(int) * 2 * N);
    int *sc = zt_malloc(sizeof(int) * N), *sd = zt_malloc(sizeof(int) * N);
    int *rc = zt_malloc(sizeof(int) * N), *rd = zt_malloc(sizeof(int) * N);
    int *sv = zt_malloc(sizeof(int) * 3 * N), *dv = zt_malloc(sizeof(int) * 3 * N);
    int *wsd = zt_malloc(sizeof(int) * N), *wrd = zt_malloc(sizeof(int) * N);
    int *one = zt_malloc(sizeof(int) * N);
    int *ws = zt_malloc(sizeof(int) * N), *wr = zt_malloc(sizeof(int) * N);
    MPI_Datatype *wt = zt_malloc(sizeof(MPI_Datatype) * N);
    for (int q = 0; q < n; q++) {
        sc[q] = (rank + q) % 3;
        rc[q] = (q + rank) % 3;
        sd[q] = 3 * q;
        rd[q] = 3 * q;
        one[q] = 1;
        wsd[q] = (int)sizeof(int) * (n - 1 - q); /* reversed layout */
        wrd[q] = (int)sizeof(int) * q;
        wt[q] = MPI_INT;
    }
    MPI_Request r[3];
    ZT_OK(MPI_Alltoall_init(s, 2, MPI_INT, d, 2, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]));
    ZT_OK(MPI_Alltoallv_init(sv, sc, sd, MPI_INT, dv, rc, rd, MPI_INT, MPI_COMM_WORLD,
                             MPI_INFO_NULL, &r[1]));
    ZT_OK(MPI_Alltoallw_init(ws, one, wsd, wt, wr, one, wrd, wt, MPI_COMM_WORLD, MPI_INFO_NULL,
                             &r[2]));
    for (int round = 0; round < ROUNDS; round++) {
        for (int q = 0; q < n; q++) {
            for (int i = 0; i < 2; i++)
                s[2 * q + i] = rank * 1000 + q * 10 + i + round;
            for (int i = 0; i < 3; i++)
                sv[3 * q + i] = rank * 1000 + q * 10 + i + 2 * round;
            ws[n - 1 - q] = rank * 1000 + q + 3 * round;
        }
        run(&r[0], round);
        run(&r[1], round);
        run(&r[2], round);
        for (int q = 0; q < n; q++) {
            for (int i = 0; i < 2; i++)
                ZT_EQ(d[2 * q + i], q * 1000 + rank * 10 + i + round, "Alltoall");
            for (int i = 0; i < rc[q]; i++)
                ZT_EQ(dv[3 * q + i], q * 1000 + rank * 10 + i + 2 * round, "Alltoallv");
            ZT_EQ(wr[q], q * 1000 + rank + 3 * round, "Alltoallw");
        }
    }
    for (int i = 0; i < 3; i++)
        ZT_OK(MPI_Request_free(&r[i]));
    free(s); free(d); free(sc); free(sd); free(rc); free(rd); free(sv); free(dv);
    free(wsd); free(wrd); free(one); free(ws); free(wr); free(wt);
}

/* Sum over q of q (0 + 1 + ... + k-1). */
static int tri(int k)
{
    return k * (k - 1) / 2;
}

static void reductions(int rank, int n)
{
    size_t N = (size_t)n;
    int s[3], d[3], ipbuf[3], sc[3], ex[3], rsb_out[2];
    int *rsb_in = zt_malloc(sizeof(int) * 2 * N), *rcounts = zt_malloc(sizeof(int) * N);
    int total = 0;
    for (int q = 0; q < n; q++)
        total += (rcounts[q] = q % 2 + 1);
    int *rs_in = zt_malloc(sizeof(int) * (size_t)total), rs_out[2], first = 0;
    for (int q = 0; q < rank; q++)
        first += rcounts[q];
    /* A derived type (3 contiguous ints) freed right after init. */
    MPI_Datatype t3;
    ZT_OK(MPI_Type_contiguous(3, MPI_INT, &t3));
    ZT_OK(MPI_Type_commit(&t3));
    MPI_Request r[8];
    ZT_OK(MPI_Reduce_init(s, d, 1, t3, MPI_SUM, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]));
    ZT_OK(MPI_Type_free(&t3));
    ZT_OK(MPI_Allreduce_init(s, d, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]));
    ZT_OK(MPI_Allreduce_init(MPI_IN_PLACE, ipbuf, 3, MPI_INT, MPI_MAX, MPI_COMM_WORLD,
                             MPI_INFO_NULL, &r[2]));
    ZT_OK(MPI_Reduce_scatter_init(rs_in, rs_out, rcounts, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                  MPI_INFO_NULL, &r[3]));
    ZT_OK(MPI_Reduce_scatter_block_init(rsb_in, rsb_out, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                        MPI_INFO_NULL, &r[4]));
    ZT_OK(MPI_Scan_init(s, sc, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[5]));
    ZT_OK(MPI_Exscan_init(s, ex, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[6]));
    /* In place at the root only; freed without ever being started. */
    ZT_OK(MPI_Reduce_init(rank == n - 1 ? MPI_IN_PLACE : (void *)s, d, 3, MPI_INT, MPI_SUM,
                          n - 1, MPI_COMM_WORLD, MPI_INFO_NULL, &r[7]));
    ZT_OK(MPI_Request_free(&r[7]));
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < 3; i++) {
            s[i] = rank + i + round;
            ipbuf[i] = (rank * 7 + i + round) % (n + 3);
        }
        for (int j = 0; j < 2 * n; j++)
            rsb_in[j] = rank + j + round;
        for (int j = 0; j < total; j++)
            rs_in[j] = rank * 2 + j - round;
        memset(d, 0, sizeof(d));
        run(&r[0], round);
        if (rank == 0)
            for (int i = 0; i < 3; i++)
                ZT_EQ(d[i], tri(n) + n * (i + round), "Reduce of a derived type");
        int want_max[3];
        for (int i = 0; i < 3; i++) {
            want_max[i] = -1;
            for (int q = 0; q < n; q++) {
                int v = (q * 7 + i + round) % (n + 3);
                want_max[i] = v > want_max[i] ? v : want_max[i];
            }
        }
        /* Several started at once, completed in one Waitall. */
        ZT_OK(MPI_Startall(6, &r[1]));
        ZT_OK(MPI_Waitall(6, &r[1], ZT_STATUSES_IGNORE));
        for (int i = 0; i < 3; i++) {
            ZT_EQ(d[i], tri(n) + n * (i + round), "Allreduce");
            ZT_EQ(ipbuf[i], want_max[i], "Allreduce in place (MAX)");
            ZT_EQ(sc[i], tri(rank + 1) + (rank + 1) * (i + round), "Scan");
            if (rank > 0)
                ZT_EQ(ex[i], tri(rank) + rank * (i + round), "Exscan");
        }
        for (int i = 0; i < 2; i++)
            ZT_EQ(rsb_out[i], tri(n) + n * (2 * rank + i + round), "Reduce_scatter_block");
        for (int i = 0; i < rcounts[rank]; i++)
            ZT_EQ(rs_out[i], 2 * tri(n) + n * (first + i - round), "Reduce_scatter");
    }
    for (int i = 0; i < 7; i++)
        ZT_OK(MPI_Request_free(&r[i]));
    free(rsb_in);
    free(rcounts);
    free(rs_in);
}

static void errors(int rank, int n)
{
    int x = rank, y = 0, cls = -1, rc;
    MPI_Request r, bad = MPI_REQUEST_NULL;
    ZT_OK(MPI_Allreduce_init(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    ZT_OK(MPI_Start(&r));
    rc = MPI_Start(&r);
    MPI_Error_class(rc, &cls);
    ZT_EQ(cls, MPI_ERR_REQUEST, "starting an active persistent collective");
    rc = MPI_Request_free(&r);
    MPI_Error_class(rc, &cls);
    ZT_EQ(cls, MPI_ERR_REQUEST, "freeing an active persistent collective");
    rc = MPI_Cancel(&r);
    MPI_Error_class(rc, &cls);
    ZT_EQ(cls, MPI_ERR_REQUEST, "cancelling a collective");
    ZT_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    ZT_EQ(y, tri(n), "Allreduce after the errors");
    ZT_OK(MPI_Request_free(&r));

    rc = MPI_Bcast_init(&x, 1, MPI_INT, n, MPI_COMM_WORLD, MPI_INFO_NULL, &bad);
    MPI_Error_class(rc, &cls);
    ZT_EQ(cls, MPI_ERR_ROOT, "root out of range");
    rc = MPI_Allreduce_init(&x, &y, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD, MPI_INFO_NULL, &bad);
    MPI_Error_class(rc, &cls);
    ZT_EQ(cls, MPI_ERR_OP, "null operation");
    rc = MPI_Allreduce_init(&x, &y, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &bad);
    MPI_Error_class(rc, &cls);
    ZT_EQ(cls, MPI_ERR_COUNT, "negative count");
    rc = MPI_Barrier_init(MPI_COMM_NULL, MPI_INFO_NULL, &bad);
    MPI_Error_class(rc, &cls);
    ZT_EQ(cls, MPI_ERR_COMM, "null communicator");
    rc = MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, NULL);
    MPI_Error_class(rc, &cls);
    ZT_EQ(cls, MPI_ERR_ARG, "NULL request");
    ZT_CHECK(bad == MPI_REQUEST_NULL, "a failed init returned a request");
}

/* A persistent Allreduce on a duplicate, interleaved with blocking and
 * non-blocking collectives on the same communicator. */
static void interleaved(int rank, int n)
{
    MPI_Comm dup;
    ZT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    int x, y, z, w;
    MPI_Request p, q;
    ZT_OK(MPI_Allreduce_init(&x, &y, 1, MPI_INT, MPI_SUM, dup, MPI_INFO_NULL, &p));
    for (int round = 0; round < ROUNDS; round++) {
        x = rank + round;
        ZT_OK(MPI_Start(&p));
        ZT_OK(MPI_Iallreduce(&x, &z, 1, MPI_INT, MPI_MAX, dup, &q));
        ZT_OK(MPI_Allreduce(&x, &w, 1, MPI_INT, MPI_MIN, dup));
        /* Completed through Waitany, then Testsome (or Wait). */
        MPI_Request both[2] = { p, q };
        int idx = -1, outcount = 0, indices[2];
        ZT_OK(MPI_Waitany(2, both, &idx, MPI_STATUS_IGNORE));
        ZT_CHECK(idx == 0 || idx == 1, "Waitany index %d", idx);
        if (round % 2)
            while (outcount != MPI_UNDEFINED)
                ZT_OK(MPI_Testsome(2, both, &outcount, indices, ZT_STATUSES_IGNORE));
        else
            ZT_OK(MPI_Wait(&both[1 - idx], MPI_STATUS_IGNORE));
        ZT_CHECK(both[0] == p, "the persistent request changed");
        ZT_CHECK(both[1] == MPI_REQUEST_NULL, "the non-blocking request was not freed");
        ZT_EQ(y, tri(n) + n * round, "persistent SUM");
        ZT_EQ(z, n - 1 + round, "non-blocking MAX");
        ZT_EQ(w, round, "blocking MIN");
    }
    ZT_OK(MPI_Request_free(&p));
    ZT_OK(MPI_Comm_free(&dup));
}

/* Three persistent collectives started in an order that differs between
 * ranks (MPI 4.1 section 6.13: they match in the order of the init
 * calls, whatever order the starts come in), completed together. */
static void start_order(int rank, int n)
{
    int b = -1, x, sum = -1;
    MPI_Request r[3];
    ZT_OK(MPI_Bcast_init(&b, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]));
    ZT_OK(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]));
    ZT_OK(MPI_Allreduce_init(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                             &r[2]));
    for (int round = 0; round < ROUNDS; round++) {
        b = rank == 0 ? 42 + round : -1;
        x = rank + round;
        /* Rank k starts them rotated by k (and backwards on odd ranks). */
        for (int i = 0; i < 3; i++) {
            int j = rank % 2 ? (rank + 3 - i) % 3 : (rank + i) % 3;
            ZT_OK(MPI_Start(&r[j]));
        }
        ZT_OK(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
        ZT_EQ(b, 42 + round, "Bcast started out of order");
        ZT_EQ(sum, tri(n) + n * round, "Allreduce started out of order");
    }
    for (int i = 0; i < 3; i++)
        ZT_OK(MPI_Request_free(&r[i]));
}

/* A non-commutative operation on pairs (value, scale): b = a . b, the
 * concatenation of decimal digit strings, so the order of the remote
 * group's contributions shows in the result. */
static void digits(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    long long *a = in, *b = inout;
    for (int i = 0; i < *len; i++, a += 2, b += 2) {
        b[0] = a[0] * b[1] + b[0];
        b[1] = a[1] * b[1];
    }
}

/* The remote group's contributions (world ranks w = 2q + odd, q = 0..rn-1,
 * digit w % 9 + 1) concatenated in remote rank order. */
static long long digits_expect(int rn, int odd, int round)
{
    long long v = 0;
    for (int q = 0; q < rn; q++)
        v = v * 10 + ((2 * q + odd + round) % 9 + 1);
    return v;
}

/* Persistent reductions on intercommunicator ic (MPI 4.1 section 6.13):
 * Reduce to each group's rank 0 in turn, Allreduce with a user operation
 * and with MPI_MAX, Reduce_scatter and Reduce_scatter_block, each made
 * once and started ROUNDS times with new contributions. */
static void inter_reductions(MPI_Comm ic, int rank, int me, int rsize, int even)
{
    /* Only each group's first 6 ranks contribute digits (the others the
     * identity, (0, 1)), so that the strings fit in 64 bits. */
    int lsize, rn = rsize > 6 ? 6 : rsize;
    MPI_Comm_size(ic, &lsize);
    MPI_Op cat;
    MPI_Datatype pair;
    ZT_OK(MPI_Op_create(digits, 0, &cat));
    ZT_OK(MPI_Type_contiguous(2, MPI_LONG_LONG, &pair));
    ZT_OK(MPI_Type_commit(&pair));
    /* Reduce_scatter splits T elements over the local ranks (both groups'
     * contributions have T); the block form gives each local rank rsize
     * elements of the lsize * rsize both groups contribute. */
    enum { T = 60 };
    long long cin[2], cout[2];
    int rin[2], rout[2], mx, got, sin[T], sout[T], off = 0;
    int *cnt = zt_malloc(sizeof(int) * (size_t)lsize);
    int *bin = zt_malloc(sizeof(int) * (size_t)(lsize * rsize));
    int *bout = zt_malloc(sizeof(int) * (size_t)rsize);
    for (int i = 0; i < lsize; i++) {
        cnt[i] = T / lsize + (i < T % lsize);
        if (i < me)
            off += cnt[i];
    }
    /* Reduce: the even group's rank 0 is the root (the odd group sends). */
    int root = even ? (me == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    MPI_Request r[5];
    ZT_OK(MPI_Reduce_init(rin, rout, 2, MPI_INT, MPI_SUM, root, ic, MPI_INFO_NULL, &r[0]));
    ZT_OK(MPI_Allreduce_init(cin, cout, 1, pair, cat, ic, MPI_INFO_NULL, &r[1]));
    ZT_OK(MPI_Type_free(&pair));
    ZT_OK(MPI_Allreduce_init(&mx, &got, 1, MPI_INT, MPI_MAX, ic, MPI_INFO_NULL, &r[2]));
    ZT_OK(MPI_Reduce_scatter_init(sin, sout, cnt, MPI_INT, MPI_SUM, ic, MPI_INFO_NULL, &r[3]));
    ZT_OK(MPI_Reduce_scatter_block_init(bin, bout, rsize, MPI_INT, MPI_SUM, ic, MPI_INFO_NULL,
                                        &r[4]));
    long long sum_w = 0; /* sum of the remote world ranks */
    for (int q = 0; q < rsize; q++)
        sum_w += 2 * q + (even ? 1 : 0);
    for (int round = 0; round < ROUNDS; round++) {
        int q_me = me; /* my rank in my group = my index as a remote rank */
        rin[0] = rank + round, rin[1] = 7 * round;
        rout[0] = rout[1] = -1;
        for (int k = 0; k < T; k++)
            sout[k] = -1;
        cin[0] = q_me < 6 ? (rank + round) % 9 + 1 : 0, cin[1] = q_me < 6 ? 10 : 1;
        mx = rank * 3 + round;
        for (int k = 0; k < T; k++)
            sin[k] = rank + k + round;
        for (int k = 0; k < lsize * rsize; k++)
            bin[k] = rank + k + round;
        ZT_OK(MPI_Startall(5, r));
        ZT_OK(MPI_Waitall(5, r, ZT_STATUSES_IGNORE));
        if (root == MPI_ROOT) {
            ZT_EQ(rout[0], (int)(sum_w + (long long)rsize * round), "inter Reduce_init");
        }
        ZT_EQ(cout[0], digits_expect(rn, even ? 1 : 0, round), "inter Allreduce_init user op");
        int wmax = 2 * (rsize - 1) + (even ? 1 : 0);
        ZT_EQ(got, wmax * 3 + round, "inter Allreduce_init max");
        for (int k = 0; k < cnt[me]; k++)
            ZT_EQ(sout[k], (int)(sum_w + (long long)rsize * (off + k + round)),
                  "inter Reduce_scatter_init");
        for (int k = 0; k < rsize; k++)
            ZT_EQ(bout[k], (int)(sum_w + (long long)rsize * (me * rsize + k + round)),
                  "inter Reduce_scatter_block_init");
    }
    for (int i = 0; i < 5; i++)
        ZT_OK(MPI_Request_free(&r[i]));
    ZT_OK(MPI_Op_free(&cat));
    free(bin);
    free(bout);
    free(cnt);
}

/* On an intercommunicator of the even and odd world ranks: Barrier,
 * Bcast (root: even group's rank 0), Allgather and Alltoall, each started
 * ROUNDS times, then the reductions. */
static void inter(int rank, int n)
{
    if (n < 2)
        return;
    MPI_Comm half, ic;
    ZT_OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
    ZT_OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 31, &ic));
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
    int me, rsize, even = rank % 2 == 0;
    MPI_Comm_rank(ic, &me);
    MPI_Comm_remote_size(ic, &rsize);
    size_t R = (size_t)rsize;
    int b[2], mine, *all = zt_malloc(sizeof(int) * R);
    int *s = zt_malloc(sizeof(int) * R), *d = zt_malloc(sizeof(int) * R);
    int root = even ? (me == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    MPI_Request r[4];
    ZT_OK(MPI_Barrier_init(ic, MPI_INFO_NULL, &r[0]));
    ZT_OK(MPI_Bcast_init(b, 2, MPI_INT, root, ic, MPI_INFO_NULL, &r[1]));
    ZT_OK(MPI_Allgather_init(&mine, 1, MPI_INT, all, 1, MPI_INT, ic, MPI_INFO_NULL, &r[2]));
    ZT_OK(MPI_Alltoall_init(s, 1, MPI_INT, d, 1, MPI_INT, ic, MPI_INFO_NULL, &r[3]));
    for (int round = 0; round < ROUNDS; round++) {
        b[0] = b[1] = -1;
        if (root == MPI_ROOT)
            b[0] = round, b[1] = round + 100;
        mine = rank * 10 + round;
        for (int q = 0; q < rsize; q++)
            s[q] = rank * 1000 + q * 10 + round;
        ZT_OK(MPI_Startall(4, r));
        ZT_OK(MPI_Waitall(4, r, ZT_STATUSES_IGNORE));
        if (!even) {
            ZT_EQ(b[0], round, "inter Bcast");
            ZT_EQ(b[1], round + 100, "inter Bcast");
        }
        /* Remote rank q is world rank 2q + (odd ? 0 : 1). */
        for (int q = 0; q < rsize; q++) {
            int w = 2 * q + (even ? 1 : 0);
            ZT_EQ(all[q], w * 10 + round, "inter Allgather");
            ZT_EQ(d[q], w * 1000 + me * 10 + round, "inter Alltoall");
        }
    }
    for (int i = 0; i < 4; i++)
        ZT_OK(MPI_Request_free(&r[i]));
    inter_reductions(ic, rank, me, rsize, even);
    free(all);
    free(s);
    free(d);
    ZT_OK(MPI_Comm_free(&ic));
    ZT_OK(MPI_Comm_free(&half));
}

int main(int argc, char **argv)
{
    int rank, n;
    zt_init_errors_return(&argc, &argv, &rank, &n);
    barrier_bcast(rank, n);
    gather_scatter(rank, n);
    allgather(rank, n);
    alltoall(rank, n);
    reductions(rank, n);
    errors(rank, n);
    interleaved(rank, n);
    start_order(rank, n);
    inter(rank, n);
    ZT_OK(MPI_Finalize());
    if (rank == 0)
        printf("pcoll_all: OK on %d ranks\n", n);
    return 0;
}
