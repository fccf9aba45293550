/*
 * comm_more.c: the remaining communicator calls on intracommunicators:
 * MPI_Comm_dup_with_info, MPI_Comm_idup overlapped with point-to-point
 * that deadlocks if idup waits for the other ranks, MPI_Comm_create_group
 * with concurrent tags and repeated calls, MPI_Comm_split_type with every
 * split type, MPI_Comm_disconnect, MPI_Group_range_excl, and their
 * argument errors through MPI_ERRORS_RETURN.
 */
#include "zt.h"

static void check_dup_with_info(int wr, int ws)
{
    MPI_Info info, used;
    MPI_Comm d;
    char v[MPI_MAX_INFO_VAL + 1];
    int flag = 0, r, sum = -1;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
    ZT_OK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &d));
    MPI_Info_free(&info);
    MPI_Comm_rank(d, &r);
    ZT_EQ(r, wr, "rank in the duplicate");
    ZT_OK(MPI_Comm_compare(d, MPI_COMM_WORLD, &r));
    ZT_EQ(r, MPI_CONGRUENT, "dup_with_info is congruent");
    ZT_OK(MPI_Comm_get_info(d, &used));
    MPI_Info_get(used, "mpi_assert_no_any_tag", MPI_MAX_INFO_VAL, v, &flag);
    ZT_CHECK(flag && strcmp(v, "true") == 0, "hint kept by dup_with_info (flag %d)", flag);
    MPI_Info_free(&used);
    ZT_OK(MPI_Allreduce(&wr, &sum, 1, MPI_INT, MPI_SUM, d));
    ZT_EQ(sum, ws * (ws - 1) / 2, "allreduce on the duplicate");
    ZT_OK(MPI_Comm_free(&d));
}

/* Even ranks call idup and then send to the next rank; odd ranks first
 * receive from the previous rank and then call idup.  A blocking idup
 * would leave the even ranks waiting for the odd ones, which wait for the
 * message: a deadlock.  Completed in two orders: Wait and Test loops. */
static void check_idup(int wr, int ws)
{
    MPI_Comm d[2];
    MPI_Request rq[2];
    int x = wr, y = -1;
    for (int k = 0; k < 2; k++) {
        if (wr % 2 == 1)
            MPI_Recv(&y, 1, MPI_INT, wr - 1, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        ZT_OK(MPI_Comm_idup(MPI_COMM_WORLD, &d[k], &rq[k]));
        if (wr % 2 == 0 && wr + 1 < ws)
            MPI_Send(&x, 1, MPI_INT, wr + 1, k, MPI_COMM_WORLD);
        if (wr % 2 == 1)
            ZT_EQ(y, wr - 1, "message overlapped with idup");
    }
    int done = 0;
    while (!done)
        ZT_OK(MPI_Test(&rq[1], &done, MPI_STATUS_IGNORE));
    ZT_OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    /* The two duplicates are distinct communicators. */
    int r;
    ZT_OK(MPI_Comm_compare(d[0], d[1], &r));
    ZT_EQ(r, MPI_CONGRUENT, "two idups");
    int tok[2] = { 100 + wr, 200 + wr }, got[2] = { -1, -1 };
    MPI_Request s[2];
    for (int k = 0; k < 2; k++)
        MPI_Isend(&tok[k], 1, MPI_INT, (wr + 1) % ws, 0, d[k], &s[k]);
    for (int k = 1; k >= 0; k--)
        MPI_Recv(&got[k], 1, MPI_INT, (wr + ws - 1) % ws, 0, d[k], MPI_STATUS_IGNORE);
    MPI_Waitall(2, s, ZT_STATUSES_IGNORE);
    ZT_EQ(got[0], 100 + (wr + ws - 1) % ws, "message on the first idup");
    ZT_EQ(got[1], 200 + (wr + ws - 1) % ws, "message on the second idup");
    int sum = -1;
    ZT_OK(MPI_Allreduce(&wr, &sum, 1, MPI_INT, MPI_SUM, d[1]));
    ZT_EQ(sum, ws * (ws - 1) / 2, "allreduce on an idup");
    MPI_Comm_free(&d[0]);
    MPI_Comm_free(&d[1]);
    /* idup of a communicator made by split. */
    MPI_Comm half, hd;
    MPI_Request q;
    MPI_Comm_split(MPI_COMM_WORLD, wr % 2, -wr, &half);
    ZT_OK(MPI_Comm_idup_with_info(half, MPI_INFO_NULL, &hd, &q));
    ZT_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    int hs, hr, hsum = -1, expect = 0;
    MPI_Comm_size(hd, &hs);
    MPI_Comm_rank(hd, &hr);
    for (int i = wr % 2; i < ws; i += 2)
        expect += i;
    ZT_OK(MPI_Allreduce(&wr, &hsum, 1, MPI_INT, MPI_SUM, hd));
    ZT_EQ(hsum, expect, "allreduce on an idup of a split");
    ZT_EQ(hr, hs - 1 - wr / 2, "rank in an idup of a split");
    MPI_Comm_free(&hd);
    MPI_Comm_free(&half);
}

/* Low = world ranks [0, ws/2], high = [ws/2 - 1, ws) (they overlap in the
 * middle).  Middle ranks create the two in different orders; the tags
 * tell the calls apart.  Then the low group is created twice with one
 * tag: the calls pair up in order. */
static void check_create_group(int wr, int ws)
{
    MPI_Group wg, lo, hi;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int lo_end = ws / 2, hi_start = ws / 2 - 1 < 0 ? 0 : ws / 2 - 1;
    int rl[1][3] = { { 0, lo_end, 1 } }, rh[1][3] = { { ws - 1, hi_start, -1 } };
    MPI_Group_range_incl(wg, 1, rl, &lo);
    MPI_Group_range_incl(wg, 1, rh, &hi); /* reverse order: rank 0 is world ws-1 */
    int in_lo = wr <= lo_end, in_hi = wr >= hi_start;
    MPI_Comm clo = MPI_COMM_NULL, chi = MPI_COMM_NULL, clo2 = MPI_COMM_NULL;
    for (int pass = 0; pass < 2; pass++) {
        int do_lo = (pass == 0) == (wr % 2 == 0);
        if (do_lo && in_lo)
            ZT_OK(MPI_Comm_create_group(MPI_COMM_WORLD, lo, 5, &clo));
        if (!do_lo && in_hi)
            ZT_OK(MPI_Comm_create_group(MPI_COMM_WORLD, hi, 6, &chi));
    }
    if (in_lo)
        ZT_OK(MPI_Comm_create_group(MPI_COMM_WORLD, lo, 5, &clo2));
    int r, n, sum;
    if (in_lo) {
        MPI_Comm_rank(clo, &r);
        MPI_Comm_size(clo, &n);
        ZT_EQ(r, wr, "rank in the low group");
        ZT_EQ(n, lo_end + 1, "low group size");
        sum = -1;
        ZT_OK(MPI_Allreduce(&wr, &sum, 1, MPI_INT, MPI_SUM, clo));
        ZT_EQ(sum, lo_end * (lo_end + 1) / 2, "allreduce on the low group");
        /* clo and clo2 are separate: messages do not cross. */
        int a = 1, b = 2, x = -1, y = -1;
        MPI_Request q[2];
        MPI_Isend(&a, 1, MPI_INT, (r + 1) % n, 0, clo, &q[0]);
        MPI_Isend(&b, 1, MPI_INT, (r + 1) % n, 0, clo2, &q[1]);
        MPI_Recv(&y, 1, MPI_INT, (r + n - 1) % n, 0, clo2, MPI_STATUS_IGNORE);
        MPI_Recv(&x, 1, MPI_INT, (r + n - 1) % n, 0, clo, MPI_STATUS_IGNORE);
        MPI_Waitall(2, q, ZT_STATUSES_IGNORE);
        ZT_EQ(x, 1, "message on the first low comm");
        ZT_EQ(y, 2, "message on the second low comm");
        MPI_Comm_free(&clo);
        MPI_Comm_free(&clo2);
    }
    if (in_hi) {
        MPI_Comm_rank(chi, &r);
        MPI_Comm_size(chi, &n);
        ZT_EQ(r, ws - 1 - wr, "rank in the high group (reversed)");
        ZT_EQ(n, ws - hi_start, "high group size");
        sum = -1;
        ZT_OK(MPI_Allreduce(&wr, &sum, 1, MPI_INT, MPI_SUM, chi));
        ZT_EQ(sum, (ws - 1) * ws / 2 - (hi_start - 1) * hi_start / 2, "allreduce on the high "
              "group");
        MPI_Comm_free(&chi);
    }
    /* A non-member gets MPI_COMM_NULL without waiting for anybody. */
    MPI_Group me_only;
    MPI_Comm c = MPI_COMM_WORLD;
    int other = (wr + 1) % ws;
    MPI_Group_incl(wg, 1, &other, &me_only);
    ZT_OK(MPI_Comm_create_group(MPI_COMM_WORLD, me_only, 9, &c));
    ZT_CHECK(ws == 1 ? c != MPI_COMM_NULL : c == MPI_COMM_NULL, "non-member got a communicator");
    if (c != MPI_COMM_NULL)
        MPI_Comm_free(&c);
    MPI_Group_free(&me_only);
    MPI_Group_free(&lo);
    MPI_Group_free(&hi);
    MPI_Group_free(&wg);
}

/* The size of a split_type result, or 0 for MPI_COMM_NULL; frees it.
 * If `level` is given, *ok tells whether the result's info names that
 * mpi_hw_resource_type. */
static int split_size(int type, const char *key, const char *value, const char *level, int *ok)
{
    MPI_Info info = MPI_INFO_NULL;
    MPI_Comm c;
    int n = 0;
    if (key) {
        MPI_Info_create(&info);
        MPI_Info_set(info, key, value);
    }
    ZT_OK(MPI_Comm_split_type(MPI_COMM_WORLD, type, 0, info, &c));
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    if (c == MPI_COMM_NULL)
        return 0;
    MPI_Comm_size(c, &n);
    if (level) {
        MPI_Info used;
        char v[MPI_MAX_INFO_VAL + 1];
        int flag = 0;
        ZT_OK(MPI_Comm_get_info(c, &used));
        MPI_Info_get(used, "mpi_hw_resource_type", MPI_MAX_INFO_VAL, v, &flag);
        *ok = flag && strcmp(v, level) == 0;
        MPI_Info_free(&used);
    }
    MPI_Comm_free(&c);
    return n;
}

static void check_split_type(int wr, int ws)
{
    int ok;
    (void)wr;
    ZT_EQ(split_size(MPI_COMM_TYPE_SHARED, NULL, NULL, NULL, NULL), ws, "MPI_COMM_TYPE_SHARED");
    ZT_EQ(split_size(MPI_UNDEFINED, NULL, NULL, NULL, NULL), 0, "MPI_UNDEFINED");
    ok = 0;
    ZT_EQ(split_size(MPI_COMM_TYPE_HW_GUIDED, "mpi_hw_resource_type", "mpi_shared_memory",
                     "mpi_shared_memory", &ok), ws, "HW_GUIDED mpi_shared_memory");
    ZT_EQ(ok, 1, "mpi_hw_resource_type of the HW_GUIDED result");
    ZT_EQ(split_size(MPI_COMM_TYPE_HW_GUIDED, "mpi_hw_resource_type", "no_such_level", NULL, NULL),
          0,
          "HW_GUIDED with an unknown level");
    ZT_EQ(split_size(MPI_COMM_TYPE_HW_GUIDED, NULL, NULL, NULL, NULL), 0, "HW_GUIDED without info");
    /* Worker level: the sizes of the pieces add up to the world. */
    int n = split_size(MPI_COMM_TYPE_HW_GUIDED, "mpi_hw_resource_type", "zmpi_worker", NULL,
                       NULL);
    ZT_CHECK(n >= 1 && n <= ws, "worker piece of size %d", n);
    double part = 1.0 / n, total = 0;
    MPI_Allreduce(&part, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    ZT_CHECK(total > 0.5, "pieces: %f", total);
    int pieces = (int)(total + 0.5);
    /* Unguided: a strict subset when the world spans several workers (the
     * worker pieces), MPI_COMM_NULL when it runs on one. */
    ok = 0;
    int u = split_size(MPI_COMM_TYPE_HW_UNGUIDED, NULL, NULL, "zmpi_worker", &ok);
    if (pieces == 1) {
        ZT_EQ(u, 0, "HW_UNGUIDED on one worker");
    } else {
        ZT_EQ(u, n, "HW_UNGUIDED piece is the worker piece");
        ZT_CHECK(u < ws, "HW_UNGUIDED gave no strict subset (%d of %d)", u, ws);
        ZT_EQ(ok, 1, "mpi_hw_resource_type of the HW_UNGUIDED result");
    }
    ZT_EQ(split_size(MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_pset_name", "mpi://SELF", NULL, NULL),
          1,
          "RESOURCE_GUIDED mpi://SELF");
    ZT_EQ(split_size(MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_pset_name", "mpi://WORLD", NULL, NULL),
          ws,
          "RESOURCE_GUIDED mpi://WORLD");
    ZT_EQ(split_size(MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_hw_resource_type", "mpi_shared_memory",
                     NULL, NULL), ws, "RESOURCE_GUIDED mpi_shared_memory");
    /* Key orders the ranks: reversed. */
    MPI_Comm c;
    int r;
    ZT_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, -wr, MPI_INFO_NULL, &c));
    MPI_Comm_rank(c, &r);
    ZT_EQ(r, ws - 1 - wr, "split_type key order");
    MPI_Comm_free(&c);
}

static void check_disconnect(int wr, int ws)
{
    MPI_Comm d;
    MPI_Request q[2];
    int a = wr, b = -1;
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    MPI_Irecv(&b, 1, MPI_INT, (wr + ws - 1) % ws, 0, d, &q[0]);
    MPI_Isend(&a, 1, MPI_INT, (wr + 1) % ws, 0, d, &q[1]);
    ZT_OK(MPI_Waitall(2, q, ZT_STATUSES_IGNORE));
    ZT_OK(MPI_Comm_disconnect(&d));
    ZT_CHECK(d == MPI_COMM_NULL, "disconnect sets the handle to MPI_COMM_NULL");
    ZT_EQ(b, (wr + ws - 1) % ws, "message before disconnect");
}

static void check_range_excl(int wr, int ws)
{
    MPI_Group wg, odd, g2;
    int n, r;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int ev[1][3] = { { 0, ws - 1, 2 } };
    ZT_OK(MPI_Group_range_excl(wg, 1, ev, &odd));
    MPI_Group_size(odd, &n);
    ZT_EQ(n, ws / 2, "range_excl of the even ranks");
    MPI_Group_rank(odd, &r);
    ZT_EQ(r, wr % 2 ? wr / 2 : MPI_UNDEFINED, "rank in the odd group");
    /* Two ranges, one descending. */
    if (ws >= 4) {
        int two[2][3] = { { ws - 1, ws - 2, -1 }, { 0, 0, 1 } };
        ZT_OK(MPI_Group_range_excl(wg, 2, two, &g2));
        MPI_Group_size(g2, &n);
        ZT_EQ(n, ws - 3, "range_excl of two ranges");
        int zero = 0, w = -1;
        MPI_Group_translate_ranks(g2, 1, &zero, wg, &w);
        ZT_EQ(w, 1, "first member after excluding 0");
        MPI_Group_free(&g2);
    }
    /* Errors: a range out of the group, a rank named twice. */
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int bad[1][3] = { { 0, ws, 1 } };
    ZT_EQ(MPI_Group_range_excl(wg, 1, bad, &g2), MPI_ERR_ARG, "range beyond the group");
    int zero_stride[1][3] = { { 0, 0, 0 } };
    ZT_EQ(MPI_Group_range_excl(wg, 1, zero_stride, &g2), MPI_ERR_ARG, "stride 0");
    int twice[2][3] = { { 0, 0, 1 }, { 0, 0, 1 } };
    ZT_EQ(MPI_Group_range_excl(wg, 2, twice, &g2), MPI_ERR_RANK, "rank excluded twice");
    MPI_Group_free(&odd);
    MPI_Group_free(&wg);
}

static void check_errors(int wr, int ws)
{
    MPI_Comm c = MPI_COMM_NULL, w = MPI_COMM_WORLD;
    MPI_Group wg;
    (void)wr;
    (void)ws;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    ZT_EQ(MPI_Comm_split_type(MPI_COMM_WORLD, 99, 0, MPI_INFO_NULL, &c), MPI_ERR_ARG,
          "unknown split type");
    ZT_EQ(MPI_Comm_create_group(MPI_COMM_WORLD, wg, -5, &c), MPI_ERR_TAG, "negative tag");
    ZT_EQ(MPI_Comm_create_group(MPI_COMM_WORLD, MPI_GROUP_NULL, 1, &c), MPI_ERR_GROUP,
          "null group");
    ZT_EQ(MPI_Comm_disconnect(&w), MPI_ERR_COMM, "disconnect MPI_COMM_WORLD");
    ZT_EQ(MPI_Comm_idup(MPI_COMM_WORLD, &c, NULL), MPI_ERR_ARG, "idup without a request");
    ZT_EQ(MPI_Comm_dup_with_info(MPI_COMM_NULL, MPI_INFO_NULL, &c), MPI_ERR_COMM,
          "dup_with_info of MPI_COMM_NULL");
    ZT_CHECK(c == MPI_COMM_NULL, "failed calls made a communicator");
    MPI_Group_free(&wg);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    int wr, ws;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    MPI_Comm_size(MPI_COMM_WORLD, &ws);
    check_dup_with_info(wr, ws);
    check_idup(wr, ws);
    check_create_group(wr, ws);
    check_split_type(wr, ws);
    check_disconnect(wr, ws);
    check_range_excl(wr, ws);
    check_errors(wr, ws);
    MPI_Finalize();
    return 0;
}
