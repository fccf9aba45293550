/*
 * req_isendrecv.c: MPI_Isendrecv and MPI_Isendrecv_replace (MPI 4.0)
 * around a ring, small (eager) and large (rendezvous) messages, a strided
 * derived type for the replace form, MPI_PROC_NULL partners, completion
 * through Wait, Test loops and Waitall with other requests, and a
 * truncated receive reported through MPI_ERRORS_RETURN.
 */
#include "zt.h"

/* Ring shift of n bytes with Isendrecv; seq makes every round's data new. */
static void shift(int rank, int size, size_t n, long seq, int use_test)
{
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    unsigned char *out = zt_malloc(n), *in = zt_malloc(n);
    zt_fill(out, n, rank, seq);
    memset(in, 0, n);
    MPI_Request req;
    MPI_Status st;
    ZT_OK(MPI_Isendrecv(out, (int)n, MPI_BYTE, right, 7, in, (int)n, MPI_BYTE, left, 7,
                        MPI_COMM_WORLD, &req));
    if (use_test) {
        int flag = 0;
        while (!flag)
            ZT_OK(MPI_Test(&req, &flag, &st));
    } else {
        ZT_OK(MPI_Wait(&req, &st));
    }
    ZT_CHECK(req == MPI_REQUEST_NULL, "request not freed");
    ZT_CHECK_STATUS(st, left, 7, (int)n);
    ZT_CHECK_PAYLOAD(in, n, left, seq);
    free(out);
    free(in);
}

/* Replace form with a strided type: every other int of 2*count ints. */
static void shift_replace(int rank, int size, int count, long seq)
{
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int *buf = zt_malloc(sizeof(int) * 2 * (size_t)count);
    MPI_Datatype vec;
    ZT_OK(MPI_Type_vector(count, 1, 2, MPI_INT, &vec));
    ZT_OK(MPI_Type_commit(&vec));
    for (int i = 0; i < 2 * count; i++)
        buf[i] = i % 2 ? -1 : rank * 100000 + i + (int)seq;
    MPI_Request req;
    MPI_Status st;
    ZT_OK(MPI_Isendrecv_replace(buf, 1, vec, right, 3, left, 3, MPI_COMM_WORLD, &req));
    /* The request holds the type and owns the outgoing copy. */
    ZT_OK(MPI_Type_free(&vec));
    ZT_OK(MPI_Wait(&req, &st));
    ZT_EQ(st.MPI_SOURCE, left, "source");
    for (int i = 0; i < 2 * count; i++)
        ZT_EQ(buf[i], i % 2 ? -1 : left * 100000 + i + (int)seq, "replaced element");
    free(buf);
}

/* Partners MPI_PROC_NULL: an empty receive's status. */
static void proc_null(void)
{
    int x = 5, y = 9;
    MPI_Request req[2];
    MPI_Status st[2];
    ZT_OK(MPI_Isendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, &y, 1, MPI_INT, MPI_PROC_NULL, 0,
                        MPI_COMM_WORLD, &req[0]));
    ZT_OK(MPI_Isendrecv_replace(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_PROC_NULL, 0,
                                MPI_COMM_WORLD, &req[1]));
    ZT_OK(MPI_Waitall(2, req, st));
    ZT_EQ(st[0].MPI_SOURCE, MPI_PROC_NULL, "source of PROC_NULL");
    ZT_EQ(st[1].MPI_TAG, MPI_ANY_TAG, "tag of PROC_NULL");
    ZT_EQ(y, 9, "untouched receive buffer");
    ZT_EQ(x, 5, "untouched replace buffer");
}

/* Everyone sends 8 ints into the right neighbour's 4: truncated. */
static void truncated(int rank, int size)
{
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int out[8] = { 0 }, in[4], cls = -1;
    MPI_Request req;
    MPI_Status st;
    ZT_OK(MPI_Isendrecv(out, 8, MPI_INT, right, 9, in, 4, MPI_INT, left, 9, MPI_COMM_WORLD,
                        &req));
    int rc = MPI_Wait(&req, &st);
    MPI_Error_class(rc, &cls);
    ZT_EQ(cls, MPI_ERR_TRUNCATE, "class of a truncated Isendrecv");
    rc = MPI_Isendrecv(out, 1, MPI_INT, size, 0, in, 1, MPI_INT, left, 0, MPI_COMM_WORLD, &req);
    MPI_Error_class(rc, &cls);
    ZT_EQ(cls, MPI_ERR_RANK, "invalid dest");
    rc = MPI_Isendrecv_replace(out, 1, MPI_INT, right, -2, left, 0, MPI_COMM_WORLD, &req);
    MPI_Error_class(rc, &cls);
    ZT_EQ(cls, MPI_ERR_TAG, "invalid sendtag");
    rc = MPI_Isendrecv(out, 1, MPI_INT, right, 0, in, 1, MPI_INT, left, 0, MPI_COMM_WORLD, NULL);
    MPI_Error_class(rc, &cls);
    ZT_EQ(cls, MPI_ERR_ARG, "NULL request");
}

/* Several outstanding Isendrecvs mixed with plain requests in Waitall. */
static void mixed(int rank, int size)
{
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int a[4], b[4], c = -1, d = rank;
    MPI_Request req[3];
    for (int i = 0; i < 4; i++)
        a[i] = rank * 4 + i;
    ZT_OK(MPI_Irecv(&c, 1, MPI_INT, right, 11, MPI_COMM_WORLD, &req[0]));
    ZT_OK(MPI_Isendrecv(a, 4, MPI_INT, right, 10, b, 4, MPI_INT, left, 10, MPI_COMM_WORLD,
                        &req[1]));
    ZT_OK(MPI_Isend(&d, 1, MPI_INT, left, 11, MPI_COMM_WORLD, &req[2]));
    int idx = -1;
    ZT_OK(MPI_Waitany(3, req, &idx, MPI_STATUS_IGNORE));
    ZT_OK(MPI_Waitall(3, req, ZT_STATUSES_IGNORE));
    ZT_EQ(c, right, "plain receive");
    for (int i = 0; i < 4; i++)
        ZT_EQ(b[i], left * 4 + i, "Isendrecv data");
}

/* A receive nobody matches, cancelled: the request reports it. */
static void cancelled(int rank, int size)
{
    int left = (rank + size - 1) % size, x = 1, y = -1, flag = -1;
    MPI_Request req;
    MPI_Status st;
    ZT_OK(MPI_Isendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, &y, 1, MPI_INT, left, 999,
                        MPI_COMM_WORLD, &req));
    ZT_OK(MPI_Cancel(&req));
    ZT_OK(MPI_Wait(&req, &st));
    ZT_OK(MPI_Test_cancelled(&st, &flag));
    ZT_EQ(flag, 1, "cancelled Isendrecv");
    ZT_EQ(y, -1, "untouched buffer of a cancelled receive");
}

int main(int argc, char **argv)
{
    int rank, size;
    ZT_OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (long seq = 0; seq < 3; seq++) {
        shift(rank, size, 8, seq, (int)(seq & 1));
        shift(rank, size, 100000, seq, (int)(seq & 1));
        shift_replace(rank, size, 5, seq);
        shift_replace(rank, size, 30000, seq);
    }
    proc_null();
    cancelled(rank, size);
    mixed(rank, size);
    truncated(rank, size);
    ZT_OK(MPI_Finalize());
    if (rank == 0)
        printf("req_isendrecv: OK on %d ranks\n", size);
    return 0;
}
