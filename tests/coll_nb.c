/*
 * coll_nb.c: non-blocking collectives.
 *   - each I-collective against a serial reference;
 *   - many outstanding on one communicator, completed in reverse order,
 *     must match in start order;
 *   - overlapped with point-to-point traffic in the same Waitall;
 *   - a collective started by every rank completes under MPI_Test while
 *     the ranks do something else (here a blocking Barrier);
 *   - blocking collectives interleaved with pending non-blocking ones.
 */
#include "zt.h"

#define NOUT 24

static int val(int r, int i)
{
    return (r * 31 + i * 7) % 997;
}

static void each_once(MPI_Comm comm, int c)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    int *s = zt_malloc(sizeof(int) * (size_t)c * (size_t)n);
    int *r = zt_malloc(sizeof(int) * (size_t)c * (size_t)n);
    int *cnt = zt_malloc(sizeof(int) * (size_t)n), *dsp = zt_malloc(sizeof(int) * (size_t)n);
    MPI_Request q;
    for (int i = 0; i < c * n; i++)
        s[i] = val(me, i);
    for (int k = 0; k < n; k++)
        cnt[k] = c, dsp[k] = k * c;

    ZT_OK(MPI_Ibcast(s, c, MPI_INT, n - 1, comm, &q));
    ZT_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    for (int i = 0; i < c; i++)
        ZT_EQ(s[i], val(n - 1, i), "Ibcast");
    for (int i = 0; i < c * n; i++)
        s[i] = val(me, i);

    ZT_OK(MPI_Igather(s, c, MPI_INT, r, c, MPI_INT, 0, comm, &q));
    ZT_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    for (int k = 0; k < n && me == 0; k++)
        for (int i = 0; i < c; i++)
            ZT_EQ(r[k * c + i], val(k, i), "Igather");
    ZT_OK(MPI_Igatherv(s, c, MPI_INT, r, cnt, dsp, MPI_INT, 0, comm, &q));
    ZT_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    for (int k = 0; k < n && me == 0; k++)
        for (int i = 0; i < c; i++)
            ZT_EQ(r[k * c + i], val(k, i), "Igatherv");

    ZT_OK(MPI_Iscatter(s, c, MPI_INT, r, c, MPI_INT, 0, comm, &q));
    ZT_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    for (int i = 0; i < c; i++)
        ZT_EQ(r[i], val(0, me * c + i), "Iscatter");
    ZT_OK(MPI_Iscatterv(s, cnt, dsp, MPI_INT, r, c, MPI_INT, 0, comm, &q));
    ZT_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    for (int i = 0; i < c; i++)
        ZT_EQ(r[i], val(0, me * c + i), "Iscatterv");

    ZT_OK(MPI_Iallgather(s, c, MPI_INT, r, c, MPI_INT, comm, &q));
    ZT_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    for (int k = 0; k < n; k++)
        for (int i = 0; i < c; i++)
            ZT_EQ(r[k * c + i], val(k, i), "Iallgather");
    ZT_OK(MPI_Iallgatherv(s, c, MPI_INT, r, cnt, dsp, MPI_INT, comm, &q));
    ZT_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    for (int k = 0; k < n; k++)
        for (int i = 0; i < c; i++)
            ZT_EQ(r[k * c + i], val(k, i), "Iallgatherv");

    ZT_OK(MPI_Ialltoall(s, c, MPI_INT, r, c, MPI_INT, comm, &q));
    ZT_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    for (int k = 0; k < n; k++)
        for (int i = 0; i < c; i++)
            ZT_EQ(r[k * c + i], val(k, me * c + i), "Ialltoall");
    ZT_OK(MPI_Ialltoallv(s, cnt, dsp, MPI_INT, r, cnt, dsp, MPI_INT, comm, &q));
    ZT_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    for (int k = 0; k < n; k++)
        for (int i = 0; i < c; i++)
            ZT_EQ(r[k * c + i], val(k, me * c + i), "Ialltoallv");

    int sum_all, sum_lo;
    ZT_OK(MPI_Ireduce(s, r, c, MPI_INT, MPI_SUM, n / 2, comm, &q));
    ZT_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    for (int i = 0; i < c && me == n / 2; i++) {
        sum_all = 0;
        for (int k = 0; k < n; k++)
            sum_all += val(k, i);
        ZT_EQ(r[i], sum_all, "Ireduce");
    }
    ZT_OK(MPI_Ireduce_scatter_block(s, r, c, MPI_INT, MPI_SUM, comm, &q));
    ZT_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    for (int i = 0; i < c; i++) {
        sum_all = 0;
        for (int k = 0; k < n; k++)
            sum_all += val(k, me * c + i);
        ZT_EQ(r[i], sum_all, "Ireduce_scatter_block");
    }
    ZT_OK(MPI_Ireduce_scatter(s, r, cnt, MPI_INT, MPI_SUM, comm, &q));
    ZT_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    for (int i = 0; i < c; i++) {
        sum_all = 0;
        for (int k = 0; k < n; k++)
            sum_all += val(k, me * c + i);
        ZT_EQ(r[i], sum_all, "Ireduce_scatter");
    }
    ZT_OK(MPI_Iexscan(s, r, c, MPI_INT, MPI_SUM, comm, &q));
    ZT_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    for (int i = 0; i < c && me > 0; i++) {
        sum_lo = 0;
        for (int k = 0; k < me; k++)
            sum_lo += val(k, i);
        ZT_EQ(r[i], sum_lo, "Iexscan");
    }
    free(s), free(r), free(cnt), free(dsp);
}

/* NOUT Iallreduces in flight, completed last first, plus a ring of
 * point-to-point messages in the same Waitall. */
static void many_outstanding(MPI_Comm comm)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    int in[NOUT], out[NOUT], ring_in = -1, ring_out = me * 3;
    MPI_Request q[NOUT + 2];
    for (int k = 0; k < NOUT; k++) {
        in[k] = me + k * 1000;
        out[k] = -1;
        if (k % 3 == 0)
            ZT_OK(MPI_Iallreduce(&in[k], &out[k], 1, MPI_INT, MPI_SUM, comm, &q[k]));
        else if (k % 3 == 1)
            ZT_OK(MPI_Iallreduce(&in[k], &out[k], 1, MPI_INT, MPI_MAX, comm, &q[k]));
        else
            ZT_OK(MPI_Ibcast(&in[k], 1, MPI_INT, k % n, comm, &q[k]));
    }
    ZT_OK(MPI_Irecv(&ring_in, 1, MPI_INT, (me + n - 1) % n, 5, comm, &q[NOUT]));
    ZT_OK(MPI_Isend(&ring_out, 1, MPI_INT, (me + 1) % n, 5, comm, &q[NOUT + 1]));
    /* A blocking collective in between pending non-blocking ones. */
    int b = me, bsum = -1;
    ZT_OK(MPI_Allreduce(&b, &bsum, 1, MPI_INT, MPI_SUM, comm));
    ZT_EQ(bsum, n * (n - 1) / 2, "Allreduce between pending Iallreduces");
    for (int k = NOUT - 1; k >= 0; k -= 2)
        ZT_OK(MPI_Wait(&q[k], MPI_STATUS_IGNORE));
    ZT_OK(MPI_Waitall(NOUT + 2, q, ZT_STATUSES_IGNORE));
    for (int k = 0; k < NOUT; k++) {
        if (k % 3 == 0)
            ZT_EQ(out[k], n * (n - 1) / 2 + n * k * 1000, "outstanding Iallreduce(SUM)");
        else if (k % 3 == 1)
            ZT_EQ(out[k], n - 1 + k * 1000, "outstanding Iallreduce(MAX)");
        else
            ZT_EQ(in[k], k % n + k * 1000, "outstanding Ibcast");
    }
    ZT_EQ(ring_in, ((me + n - 1) % n) * 3, "ring message beside the collectives");
}

/* Started by all ranks, a collective completes without the starters
 * waiting on it: Test after a Barrier finds it done (within a few tests). */
static void progress_while_busy(MPI_Comm comm)
{
    int me, n, flag = 0, tests = 0, x, y = -1;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    MPI_Request q;
    x = me + 1;
    ZT_OK(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, comm, &q));
    ZT_OK(MPI_Barrier(comm));
    while (!flag) {
        ZT_OK(MPI_Test(&q, &flag, MPI_STATUS_IGNORE));
        tests++;
    }
    ZT_EQ(y, n * (n + 1) / 2, "Iallreduce completed under Test");
    ZT_CHECK(q == MPI_REQUEST_NULL, "a completed request is freed by MPI_Test");
    ZT_OK(MPI_Ibarrier(comm, &q));
    ZT_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm sub;
    ZT_OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &sub));
    int counts[] = { 1, 10, 2000 };
    for (int k = 0; k < 3; k++) {
        each_once(MPI_COMM_WORLD, size > 64 ? 1 : counts[k]);
        each_once(sub, size > 64 ? 1 : counts[k]);
    }
    for (int it = 0; it < 3; it++) {
        many_outstanding(MPI_COMM_WORLD);
        many_outstanding(sub);
        progress_while_busy(MPI_COMM_WORLD);
    }
    ZT_OK(MPI_Comm_free(&sub));
    if (rank == 0)
        printf("coll_nb: %d ranks ok\n", size);
    MPI_Finalize();
    return 0;
}
