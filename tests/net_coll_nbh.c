/*
 * net_coll_nbh.c: non-blocking and persistent Ibarrier, Ibcast, Ireduce and
 * Iallreduce, which run hierarchically across processes (docs/net.md,
 * "Collectives"): results, floating-point sums equal on every rank and to
 * the blocking calls' (same combining order), several calls in flight at
 * once and out of order, roots in every process, derived types, in-place
 * calls, sub-communicators and persistent rounds.  It holds in one process
 * too.
 */
#include "zt.h"

#define N 300

/* Values whose double sum depends on the order of the additions. */
static double val(int rank, int i, int round)
{
    return 1.0 / (double)(rank + 3) + (double)(i % 13) * 1e-9 + (double)round * 1e7;
}

/* Every rank of comm must hold the same n doubles. */
static void same_everywhere(MPI_Comm comm, const double *v, int n, const char *what)
{
    double *mx = zt_malloc(sizeof(double) * (size_t)n), *mn = zt_malloc(sizeof(double) * (size_t)n);
    ZT_OK(MPI_Allreduce(v, mx, n, MPI_DOUBLE, MPI_MAX, comm));
    ZT_OK(MPI_Allreduce(v, mn, n, MPI_DOUBLE, MPI_MIN, comm));
    for (int i = 0; i < n; i++)
        ZT_CHECK(mx[i] == mn[i] && mx[i] == v[i], "%s: element %d differs between ranks", what, i);
    free(mx);
    free(mn);
}

static void check_comm(MPI_Comm comm, int round)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    double *in = zt_malloc(sizeof(double) * N), *nb = zt_malloc(sizeof(double) * N);
    double *bl = zt_malloc(sizeof(double) * N), *ip = zt_malloc(sizeof(double) * N);
    for (int i = 0; i < N; i++)
        in[i] = ip[i] = val(me, i, round);
    /* Iallreduce, an in-place one and Ibarriers in flight together, waited
     * for in reverse order. */
    MPI_Request q[4];
    ZT_OK(MPI_Iallreduce(in, nb, N, MPI_DOUBLE, MPI_SUM, comm, &q[0]));
    ZT_OK(MPI_Ibarrier(comm, &q[1]));
    ZT_OK(MPI_Iallreduce(MPI_IN_PLACE, ip, N, MPI_DOUBLE, MPI_SUM, comm, &q[2]));
    ZT_OK(MPI_Ibarrier(comm, &q[3]));
    for (int k = 3; k >= 0; k--)
        ZT_OK(MPI_Wait(&q[k], MPI_STATUS_IGNORE));
    ZT_OK(MPI_Allreduce(in, bl, N, MPI_DOUBLE, MPI_SUM, comm));
    for (int i = 0; i < N; i++) {
        ZT_CHECK(nb[i] == bl[i], "Iallreduce element %d: %.17g, blocking %.17g", i, nb[i], bl[i]);
        ZT_CHECK(ip[i] == bl[i], "in-place Iallreduce element %d differs", i);
    }
    same_everywhere(comm, nb, N, "Iallreduce");
    /* Ireduce and Ibcast from every root, with an integer check. */
    for (int root = 0; root < n; root++) {
        long li = me + 1, lo = -1;
        ZT_OK(MPI_Ireduce(&li, &lo, 1, MPI_LONG, MPI_SUM, root, comm, &q[0]));
        ZT_OK(MPI_Ireduce(in, nb, N, MPI_DOUBLE, MPI_SUM, root, comm, &q[1]));
        ZT_OK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
        if (me == root) {
            ZT_EQ(lo, (long)n * (n + 1) / 2, "Ireduce sum");
            for (int i = 0; i < N; i++)
                ZT_CHECK(nb[i] == bl[i], "Ireduce element %d differs from Allreduce", i);
        }
        int b[3] = { me, me, me };
        ZT_OK(MPI_Ibcast(b, 3, MPI_INT, root, comm, &q[0]));
        ZT_OK(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
        ZT_EQ(b[0] + b[1] + b[2], 3 * root, "Ibcast");
    }
    /* A large Ibcast (its own data message between the leaders) through a
     * derived type. */
    MPI_Datatype pair;
    ZT_OK(MPI_Type_vector(N / 2, 1, 2, MPI_DOUBLE, &pair));
    ZT_OK(MPI_Type_commit(&pair));
    for (int i = 0; i < N; i++)
        nb[i] = me == n - 1 ? val(7, i, round) : -1.0;
    ZT_OK(MPI_Ibcast(nb, 1, pair, n - 1, comm, &q[0]));
    ZT_OK(MPI_Type_free(&pair));
    ZT_OK(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
    for (int i = 0; i < N; i++)
        ZT_CHECK(nb[i] == (i % 2 == 0 || me == n - 1 ? val(7, i, round) : -1.0),
                 "vector Ibcast element %d", i);
    free(in), free(nb), free(bl), free(ip);
}

/* Persistent Allreduce and Barrier, several rounds. */
static void check_persistent(MPI_Comm comm)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    int x = 0, y = 0;
    MPI_Request q[2];
    ZT_OK(MPI_Allreduce_init(&x, &y, 1, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &q[0]));
    ZT_OK(MPI_Barrier_init(comm, MPI_INFO_NULL, &q[1]));
    for (int r = 0; r < 20; r++) {
        x = me + r;
        ZT_OK(MPI_Startall(2, q));
        ZT_OK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
        ZT_EQ(y, n * (n - 1) / 2 + n * r, "persistent Allreduce");
    }
    ZT_OK(MPI_Request_free(&q[0]));
    ZT_OK(MPI_Request_free(&q[1]));
}

int main(int argc, char **argv)
{
    int rank;
    ZT_OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int round = 0; round < 3; round++)
        check_comm(MPI_COMM_WORLD, round);
    MPI_Comm half;
    ZT_OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 3 == 0, rank, &half));
    check_comm(half, 5);
    check_persistent(MPI_COMM_WORLD);
    check_persistent(half);
    ZT_OK(MPI_Comm_free(&half));
    if (rank == 0)
        printf("net_coll_nbh: ok\n");
    MPI_Finalize();
    return 0;
}
