/*
 * errors_return.c: under MPI_ERRORS_RETURN erroneous calls return an error
 * code of the right class and the job goes on; truncated receives deliver
 * the bytes that fit; error strings exist; a handler made with
 * MPI_Comm_create_errhandler is called with the error code, and MPI_Comm_dup
 * passes handlers on.
 */
#include "zt.h"

#define MAX_RANKS 4096

/* Under zmpi all ranks share globals, so the handler records each rank's
 * calls in that rank's own slot. */
static int handler_calls[MAX_RANKS];
static int handler_last_code[MAX_RANKS];

static void recording_handler(MPI_Comm *comm, int *code, ...)
{
    int rank = 0;

    (void)comm;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    handler_calls[rank]++;
    handler_last_code[rank] = *code;
}

/* Checks that rc is an error of the expected class with a message. */
static void expect_class(int rc, int expected, const char *what)
{
    char msg[MPI_MAX_ERROR_STRING];
    int cls = -1, len = -1;

    ZT_CHECK(rc != MPI_SUCCESS, "%s returned MPI_SUCCESS", what);
    ZT_OK(MPI_Error_class(rc, &cls));
    ZT_CHECK(cls == expected, "%s: error class %d, expected %d", what, cls,
             expected);
    ZT_OK(MPI_Error_string(rc, msg, &len));
    ZT_CHECK(len > 0 && (size_t)len == strlen(msg), "%s: error string "
             "length %d for code %d", what, len, rc);
}

/* Invalid arguments to point-to-point calls. */
static void check_p2p_args(int size)
{
    int v = 0;

    expect_class(MPI_Send(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD),
                 MPI_ERR_RANK, "MPI_Send to rank == size");
    expect_class(MPI_Send(&v, 1, MPI_INT, -7, 0, MPI_COMM_WORLD),
                 MPI_ERR_RANK, "MPI_Send to rank -7");
    expect_class(MPI_Send(&v, 1, MPI_INT, 0, -5, MPI_COMM_WORLD),
                 MPI_ERR_TAG, "MPI_Send with tag -5");
    expect_class(MPI_Send(&v, -1, MPI_INT, 0, 0, MPI_COMM_WORLD),
                 MPI_ERR_COUNT, "MPI_Send with count -1");
    expect_class(MPI_Recv(&v, -1, MPI_INT, 0, 0, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE),
                 MPI_ERR_COUNT, "MPI_Recv with count -1");
    expect_class(MPI_Send(&v, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD),
                 MPI_ERR_TYPE, "MPI_Send with MPI_DATATYPE_NULL");
    expect_class(MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_NULL),
                 MPI_ERR_COMM, "MPI_Send on MPI_COMM_NULL");
    expect_class(MPI_Recv(&v, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE),
                 MPI_ERR_RANK, "MPI_Recv from rank size + 3");
}

/* Invalid root and op in collectives; every rank makes the same calls. */
static void check_coll_args(int size)
{
    int v = 1, w = 0;

    expect_class(MPI_Bcast(&v, 1, MPI_INT, size, MPI_COMM_WORLD),
                 MPI_ERR_ROOT, "MPI_Bcast with root == size");
    expect_class(MPI_Reduce(&v, &w, 1, MPI_INT, MPI_SUM, -4, MPI_COMM_WORLD),
                 MPI_ERR_ROOT, "MPI_Reduce with root -4");
    expect_class(MPI_Allreduce(&v, &w, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD),
                 MPI_ERR_OP, "MPI_Allreduce with MPI_OP_NULL");
}

/* A receive too small for the message fails with MPI_ERR_TRUNCATE and
 * holds the bytes that fit.  Rank 1 sends 100 ints to rank 0. */
static void check_truncation(int rank)
{
    int *data = zt_malloc(100 * sizeof *data);
    MPI_Status st;

    if (rank == 1) {
        for (int i = 0; i < 100; i++)
            data[i] = 5000 + i;
        ZT_OK(MPI_Send(data, 100, MPI_INT, 0, 9, MPI_COMM_WORLD));
    } else if (rank == 0) {
        for (int i = 0; i < 100; i++)
            data[i] = -1;
        int rc = MPI_Recv(data, 10, MPI_INT, 1, 9, MPI_COMM_WORLD, &st);
        expect_class(rc, MPI_ERR_TRUNCATE, "MPI_Recv of 100 ints into 10");
#ifndef MPICH_NUMVERSION
        /* MPICH 4.0 delivers nothing here; Open MPI and zmpi deliver the
         * part that fits, which is what this checks. */
        for (int i = 0; i < 10; i++)
            ZT_EQ(data[i], 5000 + i, "truncated receive: delivered int");
#endif
        ZT_EQ(data[10], -1, "truncated receive wrote past the buffer");
    }
    free(data);
}

/* The same for tiny messages, which may wait as unexpected messages in a
 * different place than large ones (zmpi's slot mail): rank 1 sends 4 ints
 * before rank 0 posts a receive for 2, then 3 ints that rank 0 receives
 * whole, so the truncated one is consumed and order is kept. */
static void check_small_truncation(int rank)
{
    int data[8];
    MPI_Status st;

    if (rank == 1) {
        int a[4] = { 70, 71, 72, 73 }, b[3] = { 80, 81, 82 };
        ZT_OK(MPI_Send(a, 4, MPI_INT, 0, 12, MPI_COMM_WORLD));
        ZT_OK(MPI_Send(b, 3, MPI_INT, 0, 12, MPI_COMM_WORLD));
        ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    } else {
        ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
        if (rank != 0)
            return;
        for (int i = 0; i < 8; i++)
            data[i] = -1;
        int rc = MPI_Recv(data, 2, MPI_INT, 1, 12, MPI_COMM_WORLD, &st);
        expect_class(rc, MPI_ERR_TRUNCATE, "MPI_Recv of 4 ints into 2");
#ifndef MPICH_NUMVERSION
        ZT_EQ(data[0], 70, "truncated small receive: first int");
        ZT_EQ(data[1], 71, "truncated small receive: second int");
#endif
        ZT_EQ(data[2], -1, "truncated small receive wrote past the buffer");
        ZT_OK(MPI_Recv(data, 8, MPI_INT, 1, 12, MPI_COMM_WORLD, &st));
        ZT_CHECK_STATUS(st, 1, 12, 3 * (int)sizeof(int));
        ZT_EQ(data[0] + data[1] + data[2], 80 + 81 + 82, "message after truncation");
        ZT_EQ(data[0], 80, "message after truncation, first int");
    }
}

/* A user handler gets the error code; MPI_Comm_dup copies the handler. */
static void check_user_handler(int rank, int size)
{
    MPI_Errhandler eh, got;
    MPI_Comm dup;
    int v = 0, cls = -1;

    ZT_OK(MPI_Comm_create_errhandler(recording_handler, &eh));
    ZT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh));
    int rc = MPI_Send(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
    ZT_EQ(handler_calls[rank], 1, "handler calls after one error");
    MPI_Error_class(handler_last_code[rank], &cls);
    ZT_EQ(cls, MPI_ERR_RANK, "class of the code given to the handler");
    ZT_EQ(rc, handler_last_code[rank], "return code vs code given to handler");
    ZT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    ZT_OK(MPI_Comm_get_errhandler(dup, &got));
    rc = MPI_Send(&v, 1, MPI_INT, 0, -3, dup);
    ZT_CHECK(rc != MPI_SUCCESS, "MPI_Send with tag -3 on a dup succeeded");
    ZT_EQ(handler_calls[rank], 2, "handler calls after an error on a dup");
    MPI_Error_class(handler_last_code[rank], &cls);
    ZT_EQ(cls, MPI_ERR_TAG, "class of the code given to the handler");
    ZT_OK(MPI_Errhandler_free(&got));
    ZT_OK(MPI_Comm_free(&dup));
    ZT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    ZT_OK(MPI_Errhandler_free(&eh));
    ZT_CHECK(eh == MPI_ERRHANDLER_NULL, "Errhandler_free left the handle");
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Errhandler eh;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ZT_CHECK(size >= 2 && size <= MAX_RANKS, "needs 2..%d ranks", MAX_RANKS);
    ZT_OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    ZT_CHECK(eh == MPI_ERRORS_ARE_FATAL, "default handler is not fatal");
    ZT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    /* Errors without a communicator handle may go to MPI_COMM_SELF. */
    ZT_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    check_p2p_args(size);
    check_coll_args(size);
    check_truncation(rank);
    check_small_truncation(rank);
    check_user_handler(rank, size);
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Finalize();
    return 0;
}
