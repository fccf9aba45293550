/*
 * pcoll_ialltoallw.c: MPI_Ialltoallw, the non-blocking form of the
 * collective that MPI_Alltoallw_init makes persistent: per-peer counts,
 * byte displacements and datatypes (a different derived type for each
 * peer on the receive side), several outstanding at once, in place, and
 * on an intercommunicator; checked against hand-computed values.
 */
#include "zt.h"

/* Ints rank r sends to rank q. */
static int cnt(int r, int q)
{
    return (r + q) % 3;
}

static void intra(int rank, int n, int round)
{
    size_t N = (size_t)n;
    int *sbuf = zt_malloc(sizeof(int) * 2 * N), *rbuf = zt_malloc(sizeof(int) * 2 * N);
    int *sc = zt_malloc(sizeof(int) * N), *sd = zt_malloc(sizeof(int) * N);
    int *rc = zt_malloc(sizeof(int) * N), *rd = zt_malloc(sizeof(int) * N);
    MPI_Datatype *st = zt_malloc(sizeof(MPI_Datatype) * N), *rt = zt_malloc(sizeof(MPI_Datatype) * N);
    MPI_Datatype tc[3] = { MPI_INT, MPI_DATATYPE_NULL, MPI_DATATYPE_NULL };
    ZT_OK(MPI_Type_contiguous(1, MPI_INT, &tc[1]));
    ZT_OK(MPI_Type_contiguous(2, MPI_INT, &tc[2]));
    ZT_OK(MPI_Type_commit(&tc[1]));
    ZT_OK(MPI_Type_commit(&tc[2]));
    for (int q = 0; q < n; q++) {
        sc[q] = cnt(rank, q);
        sd[q] = (int)sizeof(int) * 2 * q;
        st[q] = MPI_INT;
        int c = cnt(q, rank);
        rc[q] = c > 0;
        rt[q] = tc[c];
        rd[q] = (int)sizeof(int) * 2 * (n - 1 - q); /* blocks in reverse order */
        for (int i = 0; i < 2; i++) {
            sbuf[2 * q + i] = rank * 1000 + q * 10 + i + round;
            rbuf[2 * q + i] = -7;
        }
    }
    MPI_Request req;
    ZT_OK(MPI_Ialltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, MPI_COMM_WORLD, &req));
    ZT_OK(MPI_Type_free(&tc[1]));
    ZT_OK(MPI_Type_free(&tc[2]));
    ZT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int q = 0; q < n; q++)
        for (int i = 0; i < 2; i++)
            ZT_EQ(rbuf[2 * (n - 1 - q) + i], i < cnt(q, rank) ? q * 1000 + rank * 10 + i + round : -7,
                  "Ialltoallw element");
    free(sbuf); free(rbuf); free(sc); free(sd); free(rc); free(rd); free(st); free(rt);
}

/* In place: one int to and from every rank. */
static void in_place(int rank, int n)
{
    size_t N = (size_t)n;
    int *buf = zt_malloc(sizeof(int) * N), *one = zt_malloc(sizeof(int) * N);
    int *d = zt_malloc(sizeof(int) * N);
    MPI_Datatype *t = zt_malloc(sizeof(MPI_Datatype) * N);
    for (int q = 0; q < n; q++) {
        buf[q] = rank * 100 + q;
        one[q] = 1;
        d[q] = (int)sizeof(int) * q;
        t[q] = MPI_INT;
    }
    MPI_Request req;
    ZT_OK(MPI_Ialltoallw(MPI_IN_PLACE, NULL, NULL, NULL, buf, one, d, t, MPI_COMM_WORLD, &req));
    ZT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int q = 0; q < n; q++)
        ZT_EQ(buf[q], q * 100 + rank, "in-place Ialltoallw");
    free(buf); free(one); free(d); free(t);
}

/* Even and odd ranks of the world as the two groups of an
 * intercommunicator: one int to every remote rank. */
static void inter(int rank, int n)
{
    if (n < 2)
        return;
    MPI_Comm half, ic;
    ZT_OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
    ZT_OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 21, &ic));
    int me, rsize;
    MPI_Comm_rank(ic, &me);
    MPI_Comm_remote_size(ic, &rsize);
    size_t R = (size_t)rsize;
    int *s = zt_malloc(sizeof(int) * R), *r = zt_malloc(sizeof(int) * R);
    int *one = zt_malloc(sizeof(int) * R), *d = zt_malloc(sizeof(int) * R);
    MPI_Datatype *t = zt_malloc(sizeof(MPI_Datatype) * R);
    for (int q = 0; q < rsize; q++) {
        s[q] = rank * 100 + q;
        r[q] = -1;
        one[q] = 1;
        d[q] = (int)sizeof(int) * q;
        t[q] = MPI_INT;
    }
    MPI_Request req;
    ZT_OK(MPI_Ialltoallw(s, one, d, t, r, one, d, t, ic, &req));
    ZT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    /* Remote rank q is world rank 2q + (1 - rank % 2). */
    for (int q = 0; q < rsize; q++)
        ZT_EQ(r[q], (2 * q + 1 - rank % 2) * 100 + me, "intercommunicator Ialltoallw");
    free(s); free(r); free(one); free(d); free(t);
    ZT_OK(MPI_Comm_free(&ic));
    ZT_OK(MPI_Comm_free(&half));
}

static void errors(int n)
{
    int x = 0, one = 1, zero = 0, cls = -1;
    MPI_Datatype t = MPI_INT;
    MPI_Request req;
    int rc = MPI_Ialltoallw(&x, &one, &zero, &t, &x, &one, &zero, &t, MPI_COMM_WORLD, NULL);
    MPI_Error_class(rc, &cls);
    ZT_EQ(cls, MPI_ERR_ARG, "NULL request");
    if (n == 1) {
        int neg = -1;
        rc = MPI_Ialltoallw(&x, &neg, &zero, &t, &x, &one, &zero, &t, MPI_COMM_WORLD, &req);
        MPI_Error_class(rc, &cls);
        ZT_EQ(cls, MPI_ERR_COUNT, "negative count");
    }
}

int main(int argc, char **argv)
{
    int rank, n;
    ZT_OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int round = 0; round < 3; round++)
        intra(rank, n, round);
    in_place(rank, n);
    inter(rank, n);
    errors(n);
    ZT_OK(MPI_Finalize());
    if (rank == 0)
        printf("pcoll_ialltoallw: OK on %d ranks\n", n);
    return 0;
}
