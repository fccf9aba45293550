/*
 * net_comm.c: every communicator constructor on communicators whose ranks
 * live in several processes (tests/net.cmake runs it as 2 and 3
 * processes).  Each new communicator must agree on its members and its
 * context: collectives and messages on it give the expected results.
 */
#include "zt.h"

#include <math.h>
#include <stdlib.h>

/* Reductions of a type with holes (every other int) on c, whose ranks
 * have world ranks all[]: Reduce to the last rank (into a buffer and in
 * place), Allreduce, and a floating-point Allreduce; the holes must stay
 * untouched.  The floating-point sum must have the same bits on every
 * rank, equal the rank-order sum to rounding, and with
 * ZMPI_COLL_RANK_ORDER=1 equal it bit for bit. */
static void check_reductions(MPI_Comm c, const int *all, int n, int r, int w, const char *what)
{
    MPI_Datatype vt;
    int in[6], out[6];
    double x = 1.0 / (w + 3), fsum = 0, fgot = 0;
    ZT_OK(MPI_Type_vector(3, 1, 2, MPI_INT, &vt));
    ZT_OK(MPI_Type_commit(&vt));
    for (int i = 0; i < 6; i++)
        in[i] = w * 10 + i, out[i] = -1;
    for (int pass = 0; pass < 2; pass++) {
        int *o = out;
        if (pass == 1 && r == n - 1)
            memcpy(out, in, sizeof(in));
        ZT_OK(MPI_Reduce(pass == 1 && r == n - 1 ? MPI_IN_PLACE : in, o, 1, vt, MPI_SUM, n - 1, c));
        for (int i = 0; r == n - 1 && i < 6; i++) {
            long e = 0;
            for (int q = 0; q < n; q++)
                e += all[q] * 10 + i;
            ZT_EQ(out[i], i % 2 ? (pass == 1 ? in[i] : -1) : e, what);
        }
        for (int i = 0; i < 6; i++)
            out[i] = -1;
    }
    ZT_OK(MPI_Allreduce(in, out, 1, vt, MPI_MAX, c));
    for (int i = 0; i < 6; i++) {
        int e = -1;
        for (int q = 0; i % 2 == 0 && q < n; q++)
            e = all[q] * 10 + i > e ? all[q] * 10 + i : e;
        ZT_EQ(out[i], e, what);
    }
    ZT_OK(MPI_Type_free(&vt));
    /* Rank order, as the single-process path sums: x_0 + (x_1 + (... + x_{n-1})). */
    for (int q = n - 1; q >= 0; q--)
        fsum = 1.0 / (all[q] + 3) + fsum;
    ZT_OK(MPI_Allreduce(&x, &fgot, 1, MPI_DOUBLE, MPI_SUM, c));
    const char *ro = getenv("ZMPI_COLL_RANK_ORDER");
    if (ro && *ro == '1')
        ZT_CHECK(fgot == fsum, "%s: floating-point sum %.17g, expected %.17g in rank order",
                 what, fgot, fsum);
    ZT_CHECK(fabs(fgot - fsum) <= 1e-15 * n * fsum, "%s: floating-point sum %.17g, expected "
             "%.17g", what, fgot, fsum);
    double lo = fgot, hi = fgot;
    ZT_OK(MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_DOUBLE, MPI_MIN, c));
    ZT_OK(MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_DOUBLE, MPI_MAX, c));
    ZT_CHECK(lo == fgot && hi == fgot, "%s: floating-point sums differ between ranks (%.17g "
             "to %.17g)", what, lo, hi);
}

/* Checks that c works: its ranks agree on the membership (Allgather of
 * world ranks against Allreduce of their sum), a ring of messages, a Bcast
 * from the last rank and a Barrier. */
static void check_comm(MPI_Comm c, const char *what)
{
    int n, r, w, sum = 0, left = -1, right = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &w);
    ZT_OK(MPI_Comm_size(c, &n));
    ZT_OK(MPI_Comm_rank(c, &r));
    int *all = zt_malloc(sizeof(int) * (size_t)n);
    ZT_OK(MPI_Allgather(&w, 1, MPI_INT, all, 1, MPI_INT, c));
    ZT_EQ(all[r], w, what);
    long expect = 0;
    for (int i = 0; i < n; i++)
        expect += all[i];
    ZT_OK(MPI_Allreduce(&w, &sum, 1, MPI_INT, MPI_SUM, c));
    ZT_EQ(sum, expect, what);
    ZT_OK(MPI_Sendrecv(&w, 1, MPI_INT, (r + 1) % n, 5, &left, 1, MPI_INT, (r + n - 1) % n, 5, c,
                       MPI_STATUS_IGNORE));
    ZT_EQ(left, all[(r + n - 1) % n], what);
    right = r == n - 1 ? w : -1;
    ZT_OK(MPI_Bcast(&right, 1, MPI_INT, n - 1, c));
    ZT_EQ(right, all[n - 1], what);
    ZT_OK(MPI_Barrier(c));
    check_reductions(c, all, n, r, w, what);
    free(all);
}

/* Checks intercommunicator ic between `half` (the local group, as an
 * intracommunicator) and the rest of the world: an Allreduce across it
 * gives the remote group's sum, and its merge works and holds everyone. */
static void check_inter(MPI_Comm ic, MPI_Comm half, const char *what)
{
    int flag, lsize, rsize, w, size, got = -1, lsum = 0, wsum = 0, msum = 0, msize;
    MPI_Comm merged;
    MPI_Comm_rank(MPI_COMM_WORLD, &w);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ZT_OK(MPI_Comm_test_inter(ic, &flag));
    ZT_CHECK(flag, "%s: not an intercommunicator", what);
    ZT_OK(MPI_Comm_size(ic, &lsize));
    ZT_OK(MPI_Comm_remote_size(ic, &rsize));
    ZT_EQ(lsize + rsize, size, what);
    ZT_OK(MPI_Allreduce(&w, &got, 1, MPI_INT, MPI_SUM, ic));
    ZT_OK(MPI_Allreduce(&w, &lsum, 1, MPI_INT, MPI_SUM, half));
    ZT_OK(MPI_Allreduce(&w, &wsum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    ZT_EQ(got, wsum - lsum, what);
    ZT_OK(MPI_Intercomm_merge(ic, 0, &merged));
    check_comm(merged, what);
    ZT_OK(MPI_Comm_size(merged, &msize));
    ZT_EQ(msize, size, what);
    ZT_OK(MPI_Allreduce(&w, &msum, 1, MPI_INT, MPI_SUM, merged));
    ZT_EQ(msum, wsum, what);
    ZT_OK(MPI_Comm_free(&merged));
}

int main(int argc, char **argv)
{
    int w, size;
    MPI_Comm c;
    MPI_Request req;
    MPI_Group wg, g;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &w);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    check_comm(MPI_COMM_WORLD, "MPI_COMM_WORLD");

    ZT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    check_comm(c, "MPI_Comm_dup");
    MPI_Comm c2;
    ZT_OK(MPI_Comm_idup(c, &c2, &req));
    ZT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    check_comm(c2, "MPI_Comm_idup");
    ZT_OK(MPI_Comm_free(&c2));
    ZT_OK(MPI_Comm_free(&c));

    /* Split by world rank mod 3, in reverse order. */
    ZT_OK(MPI_Comm_split(MPI_COMM_WORLD, w % 3, -w, &c));
    int n, r;
    MPI_Comm_size(c, &n);
    MPI_Comm_rank(c, &r);
    ZT_EQ(n, (size - w % 3 + 2) / 3, "MPI_Comm_split size");
    /* Key -w: the members with larger world ranks come first. */
    ZT_EQ(r, (size - 1 - w) / 3, "MPI_Comm_split rank");
    check_comm(c, "MPI_Comm_split");
    ZT_OK(MPI_Comm_free(&c));

    /* Shared memory: the ranks of one process; every rank in exactly one. */
    ZT_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c));
    check_comm(c, "MPI_COMM_TYPE_SHARED");
    MPI_Comm_size(c, &n);
    MPI_Comm_rank(c, &r);
    int part = r == 0 ? n : 0, total = 0;
    ZT_OK(MPI_Allreduce(&part, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    ZT_EQ(total, size, "ranks over the shared-memory communicators");
    ZT_OK(MPI_Comm_free(&c));

    /* Create from a group of the even world ranks. */
    int *even = zt_malloc(sizeof(int) * (size_t)size), ne = 0;
    for (int i = 0; i < size; i += 2)
        even[ne++] = i;
    ZT_OK(MPI_Group_incl(wg, ne, even, &g));
    ZT_OK(MPI_Comm_create(MPI_COMM_WORLD, g, &c));
    ZT_EQ(c == MPI_COMM_NULL, w % 2 == 1, "MPI_Comm_create membership");
    if (c != MPI_COMM_NULL) {
        check_comm(c, "MPI_Comm_create");
        ZT_OK(MPI_Comm_free(&c));
    }
    /* Create_group: only the members call it. */
    if (w % 2 == 0) {
        ZT_OK(MPI_Comm_create_group(MPI_COMM_WORLD, g, 7, &c));
        check_comm(c, "MPI_Comm_create_group");
        ZT_OK(MPI_Comm_free(&c));
    }
    ZT_OK(MPI_Group_free(&g));

    /* Intercommunicator between the lower and upper halves. */
    int low = w < size / 2;
    MPI_Comm half, ic;
    ZT_OK(MPI_Comm_split(MPI_COMM_WORLD, low, w, &half));
    ZT_OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? size / 2 : 0, 11, &ic));
    check_inter(ic, half, "MPI_Intercomm_create");
    ZT_OK(MPI_Comm_free(&ic));
    /* The same from groups, without a parent. */
    MPI_Group lg, rg;
    ZT_OK(MPI_Comm_group(half, &lg));
    int *other = zt_malloc(sizeof(int) * (size_t)size), no = 0;
    for (int i = 0; i < size; i++)
        if ((i < size / 2) != low)
            other[no++] = i;
    ZT_OK(MPI_Group_incl(wg, no, other, &rg));
    ZT_OK(MPI_Intercomm_create_from_groups(lg, 0, rg, 0, "net_comm halves", MPI_INFO_NULL,
                                           MPI_ERRORS_ARE_FATAL, &ic));
    check_inter(ic, half, "MPI_Intercomm_create_from_groups");
    ZT_OK(MPI_Comm_free(&ic));
    ZT_OK(MPI_Group_free(&lg));
    ZT_OK(MPI_Group_free(&rg));
    ZT_OK(MPI_Comm_free(&half));

    /* A Cartesian grid and its rows. */
    int dims[2] = { 0, 0 }, periods[2] = { 1, 0 }, keep[2] = { 0, 1 };
    ZT_OK(MPI_Dims_create(size, 2, dims));
    ZT_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &c));
    check_comm(c, "MPI_Cart_create");
    ZT_OK(MPI_Cart_sub(c, keep, &c2));
    check_comm(c2, "MPI_Cart_sub");
    ZT_OK(MPI_Comm_free(&c2));
    ZT_OK(MPI_Comm_free(&c));

    /* Sessions: a communicator from the world process set. */
    MPI_Session s;
    ZT_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &s));
    ZT_OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    ZT_OK(MPI_Comm_create_from_group(g, "net_comm world", MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL,
                                     &c));
    check_comm(c, "MPI_Comm_create_from_group");
    ZT_OK(MPI_Comm_free(&c));
    ZT_OK(MPI_Group_free(&g));
    ZT_OK(MPI_Session_finalize(&s));

    free(even);
    free(other);
    MPI_Group_free(&wg);
    if (w == 0)
        printf("net_comm: %d ranks OK\n", size);
    MPI_Finalize();
    return 0;
}
