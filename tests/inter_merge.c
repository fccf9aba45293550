/*
 * inter_merge.c: MPI_Intercomm_merge (both orders of the high flag, and
 * equal flags), MPI_Intercomm_create_from_groups (repeated with one tag,
 * two tags in either order, overlapping groups refused), MPI_Comm_idup
 * and MPI_Comm_disconnect of intercommunicators, and collectives and
 * point-to-point on the results.  Groups: world ranks r % 3 == 0 (A) and
 * the others (B), of different sizes.
 */
#include "zt.h"

static int world_of(int g, int i)
{
    return g == 0 ? 3 * i : (i / 2) * 3 + 1 + i % 2;
}

/* Merge `inter` with this group's high flag and check the order of the
 * result: the group with high = 0 first; on a tie, group A (it holds
 * world rank 0, the lower leader). */
static void check_merge(MPI_Comm inter, int g, int lr, int na, int nb, int high_a, int high_b)
{
    MPI_Comm m;
    int r, n, wr, sum = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    ZT_OK(MPI_Intercomm_merge(inter, g == 0 ? high_a : high_b, &m));
    int a_first = high_a != high_b ? !high_a : 1;
    MPI_Comm_rank(m, &r);
    MPI_Comm_size(m, &n);
    ZT_EQ(n, na + nb, "merged size");
    int first_is_mine = (g == 0) == a_first;
    ZT_EQ(r, first_is_mine ? lr : (g == 0 ? nb : na) + lr, "merged rank");
    MPI_Group mg, wg;
    MPI_Comm_group(m, &mg);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    for (int i = 0; i < n; i++) {
        int w, fa = a_first ? 0 : 1, nfirst = a_first ? na : nb;
        MPI_Group_translate_ranks(mg, 1, &i, wg, &w);
        ZT_EQ(w, i < nfirst ? world_of(fa, i) : world_of(1 - fa, i - nfirst), "merged member");
    }
    MPI_Group_free(&mg);
    MPI_Group_free(&wg);
    /* The merged communicator is an ordinary intracommunicator. */
    int t;
    MPI_Comm_test_inter(m, &t);
    ZT_EQ(t, 0, "merged is an intracomm");
    ZT_OK(MPI_Allreduce(&wr, &sum, 1, MPI_INT, MPI_SUM, m));
    ZT_EQ(sum, n * (n - 1) / 2, "allreduce over the merged comm");
    int token = r, got = -1;
    ZT_OK(MPI_Sendrecv(&token, 1, MPI_INT, (r + 1) % n, 3, &got, 1, MPI_INT, (r + n - 1) % n, 3,
                       m, MPI_STATUS_IGNORE));
    ZT_EQ(got, (r + n - 1) % n, "ring over the merged comm");
    ZT_OK(MPI_Comm_free(&m));
}

/* Point-to-point and a reduction across an intercommunicator. */
static void check_inter_works(MPI_Comm ic, int g, int lr, int nr)
{
    int x = 1000 * g + lr, got = -1, sum = -1;
    MPI_Status st;
    if (lr < nr) {
        ZT_OK(MPI_Sendrecv(&x, 1, MPI_INT, lr, 4, &got, 1, MPI_INT, lr, 4, ic, &st));
        ZT_EQ(got, 1000 * (1 - g) + lr, "partner value");
    }
    ZT_OK(MPI_Allreduce(&lr, &sum, 1, MPI_INT, MPI_SUM, ic));
    ZT_EQ(sum, nr * (nr - 1) / 2, "allreduce across");
}

static void check_from_groups(int g, int lr, int na, int nb)
{
    MPI_Group wg, ga, gb;
    MPI_Comm ic[3];
    int wsize, n;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    int ra[1][3] = { { 0, wsize - 1, 3 } };
    MPI_Group_range_incl(wg, 1, ra, &ga);
    MPI_Group_difference(wg, ga, &gb);
    MPI_Group mine = g == 0 ? ga : gb, other = g == 0 ? gb : ga;
    /* Two with one tag (they pair up in call order), and one with another
     * tag that group A creates first and group B last. */
    if (g == 0)
        ZT_OK(MPI_Intercomm_create_from_groups(mine, 0, other, 0, "zt-other", MPI_INFO_NULL,
                                               MPI_ERRORS_RETURN, &ic[2]));
    ZT_OK(MPI_Intercomm_create_from_groups(mine, 0, other, 0, "zt-tag", MPI_INFO_NULL,
                                           MPI_ERRORS_RETURN, &ic[0]));
    ZT_OK(MPI_Intercomm_create_from_groups(mine, 0, other, 0, "zt-tag", MPI_INFO_NULL,
                                           MPI_ERRORS_RETURN, &ic[1]));
    if (g == 1)
        ZT_OK(MPI_Intercomm_create_from_groups(mine, 0, other, 0, "zt-other", MPI_INFO_NULL,
                                               MPI_ERRORS_RETURN, &ic[2]));
    for (int k = 0; k < 3; k++) {
        MPI_Comm_remote_size(ic[k], &n);
        ZT_EQ(n, g == 0 ? nb : na, "remote size of an intercomm from groups");
        MPI_Comm_size(ic[k], &n);
        ZT_EQ(n, g == 0 ? na : nb, "local size");
        MPI_Comm_rank(ic[k], &n);
        ZT_EQ(n, lr, "local rank");
    }
    /* Messages on the three stay apart: send on all three, receive in
     * reverse order. */
    if (lr == 0) {
        int v[3] = { 10, 11, 12 }, w[3] = { -1, -1, -1 };
        MPI_Request rq[3];
        for (int k = 0; k < 3; k++)
            MPI_Isend(&v[k], 1, MPI_INT, 0, 0, ic[k], &rq[k]);
        for (int k = 2; k >= 0; k--)
            MPI_Recv(&w[k], 1, MPI_INT, 0, 0, ic[k], MPI_STATUS_IGNORE);
        MPI_Waitall(3, rq, ZT_STATUSES_IGNORE);
        for (int k = 0; k < 3; k++)
            ZT_EQ(w[k], 10 + k, "message on its own intercomm");
    }
    check_inter_works(ic[1], g, lr, g == 0 ? nb : na);
    /* The error handler given is the new communicator's. */
    MPI_Errhandler eh;
    MPI_Comm_get_errhandler(ic[0], &eh);
    ZT_CHECK(eh == MPI_ERRORS_RETURN, "errhandler of the new intercomm");
    for (int k = 0; k < 3; k++)
        ZT_OK(MPI_Comm_disconnect(&ic[k]));
    ZT_CHECK(ic[0] == MPI_COMM_NULL, "disconnected handle");
    /* Overlapping groups: every caller sees it, none waits. */
    MPI_Comm bad = MPI_COMM_NULL;
    ZT_EQ(MPI_Intercomm_create_from_groups(mine, 0, wg, 0, "zt-bad", MPI_INFO_NULL,
                                           MPI_ERRORS_RETURN, &bad), MPI_ERR_GROUP,
          "overlapping groups");
    ZT_EQ(MPI_Intercomm_create_from_groups(mine, na + nb, other, 0, "zt-bad", MPI_INFO_NULL,
                                           MPI_ERRORS_RETURN, &bad), MPI_ERR_RANK,
          "local_leader out of range");
    ZT_EQ(MPI_Intercomm_create_from_groups(other, 0, mine, 0, "zt-bad", MPI_INFO_NULL,
                                           MPI_ERRORS_RETURN, &bad), MPI_ERR_GROUP,
          "caller outside local_group");
    ZT_CHECK(bad == MPI_COMM_NULL, "failed calls made a communicator");
    MPI_Group_free(&ga);
    MPI_Group_free(&gb);
    MPI_Group_free(&wg);
}

/* Comm_idup of an intercommunicator, overlapped with point-to-point on the
 * original that would deadlock if idup waited for the remote group. */
static void check_idup(MPI_Comm inter, int g, int lr, int nr)
{
    MPI_Comm d;
    MPI_Request rq;
    int x = 5, y = -1;
    if (g == 1 && lr == 0)
        MPI_Recv(&y, 1, MPI_INT, 0, 8, inter, MPI_STATUS_IGNORE);
    ZT_OK(MPI_Comm_idup(inter, &d, &rq));
    if (g == 0 && lr == 0)
        MPI_Send(&x, 1, MPI_INT, 0, 8, inter);
    ZT_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    if (g == 1 && lr == 0)
        ZT_EQ(y, 5, "message overlapped with idup");
    int t;
    MPI_Comm_test_inter(d, &t);
    ZT_EQ(t, 1, "idup of an intercomm is an intercomm");
    check_inter_works(d, g, lr, nr);
    ZT_OK(MPI_Comm_disconnect(&d));
}

int main(int argc, char **argv)
{
    int wr, ws, lr, nl, nr;
    MPI_Comm local, inter;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    MPI_Comm_size(MPI_COMM_WORLD, &ws);
    if (ws < 2) {
        MPI_Finalize();
        return 0;
    }
    int g = wr % 3 == 0 ? 0 : 1;
    MPI_Comm_split(MPI_COMM_WORLD, g, wr, &local);
    ZT_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, g == 0 ? 1 : 0, 2, &inter));
    MPI_Comm_rank(inter, &lr);
    MPI_Comm_size(inter, &nl);
    MPI_Comm_remote_size(inter, &nr);
    int na = g == 0 ? nl : nr, nb = g == 0 ? nr : nl;
    check_merge(inter, g, lr, na, nb, 0, 1);
    check_merge(inter, g, lr, na, nb, 1, 0);
    check_merge(inter, g, lr, na, nb, 0, 0);
    check_merge(inter, g, lr, na, nb, 1, 1);
    check_idup(inter, g, lr, nr);
    check_from_groups(g, lr, na, nb);
    MPI_Comm m = MPI_COMM_NULL;
    MPI_Comm_set_errhandler(local, MPI_ERRORS_RETURN);
    ZT_EQ(MPI_Intercomm_merge(local, 0, &m), MPI_ERR_COMM, "merge of an intracomm");
    ZT_CHECK(m == MPI_COMM_NULL, "failed merge made a communicator");
    ZT_OK(MPI_Comm_free(&inter));
    ZT_OK(MPI_Comm_free(&local));
    MPI_Finalize();
    return 0;
}
