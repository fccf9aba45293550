/*
 * req_status.c: the status setters and getters (MPI_Status_set_elements(_x),
 * _set_cancelled, and MPI 4.1's _set/_get_source, _tag, _error) and the
 * MPI 4.1 calls MPI_Request_get_status_any/_all/_some, which report
 * completion without freeing or deactivating any request.
 */
#include "zt.h"

/* Status fields read back through the MPI 4.1 getters and the count calls. */
static void check_setters(void)
{
    MPI_Status st;
    int v = -1, n = -1;
    ZT_OK(MPI_Status_set_source(&st, 5));
    ZT_OK(MPI_Status_set_tag(&st, 77));
    ZT_OK(MPI_Status_set_error(&st, MPI_ERR_TAG));
    ZT_OK(MPI_Status_get_source(&st, &v));
    ZT_EQ(v, 5, "source");
    ZT_OK(MPI_Status_get_tag(&st, &v));
    ZT_EQ(v, 77, "tag");
    ZT_OK(MPI_Status_get_error(&st, &v));
    ZT_EQ(v, MPI_ERR_TAG, "error");
    ZT_EQ(st.MPI_SOURCE, 5, "MPI_SOURCE field");

    ZT_OK(MPI_Status_set_elements(&st, MPI_DOUBLE, 6));
    ZT_OK(MPI_Get_count(&st, MPI_DOUBLE, &n));
    ZT_EQ(n, 6, "count of doubles");
    ZT_OK(MPI_Get_count(&st, MPI_BYTE, &n));
    ZT_EQ(n, 48, "count of bytes");

    /* A derived type of 3 ints: 7 elements are 2 whole types and 1 more. */
    MPI_Datatype t3;
    ZT_OK(MPI_Type_contiguous(3, MPI_INT, &t3));
    ZT_OK(MPI_Type_commit(&t3));
    ZT_OK(MPI_Status_set_elements(&st, t3, 7));
    ZT_OK(MPI_Get_elements(&st, t3, &n));
    ZT_EQ(n, 7, "elements of a derived type");
    ZT_OK(MPI_Get_count(&st, t3, &n));
    ZT_EQ(n, MPI_UNDEFINED, "count of a partial derived type");
    ZT_OK(MPI_Status_set_elements_x(&st, t3, (MPI_Count)9));
    ZT_OK(MPI_Get_count(&st, t3, &n));
    ZT_EQ(n, 3, "count after set_elements_x");
    ZT_OK(MPI_Type_free(&t3));

    int flag = -1;
    ZT_OK(MPI_Status_set_cancelled(&st, 1));
    ZT_OK(MPI_Test_cancelled(&st, &flag));
    ZT_EQ(flag, 1, "cancelled");
    ZT_OK(MPI_Status_set_cancelled(&st, 0));
    ZT_OK(MPI_Test_cancelled(&st, &flag));
    ZT_EQ(flag, 0, "not cancelled");

    /* Bad arguments through MPI_ERRORS_RETURN. */
    int cls = -1;
    int rc = MPI_Status_set_elements(&st, MPI_INT, -1);
    MPI_Error_class(rc, &cls);
    ZT_EQ(cls, MPI_ERR_COUNT, "negative element count");
    rc = MPI_Status_set_elements(&st, MPI_DATATYPE_NULL, 1);
    MPI_Error_class(rc, &cls);
    ZT_EQ(cls, MPI_ERR_TYPE, "null datatype");
    rc = MPI_Status_get_tag(MPI_STATUS_IGNORE, &v);
    MPI_Error_class(rc, &cls);
    ZT_EQ(cls, MPI_ERR_ARG, "MPI_STATUS_IGNORE");
    rc = MPI_Status_get_source(&st, NULL);
    MPI_Error_class(rc, &cls);
    ZT_EQ(cls, MPI_ERR_ARG, "NULL output");
}

/* Receives from the left neighbour, queried with the get_status calls
 * before and after the neighbour sends; the requests stay usable. */
static void check_get_status(int rank, int size)
{
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int in[2] = { -1, -1 }, out[2] = { rank * 10, rank * 10 + 1 }, flag = -1, idx = -1;
    int outcount = -1, indices[3];
    MPI_Request reqs[3];
    MPI_Status sts[3];

    /* A null and an inactive persistent request count as inactive. */
    ZT_OK(MPI_Recv_init(&in[1], 1, MPI_INT, left, 2, MPI_COMM_WORLD, &reqs[2]));
    reqs[0] = MPI_REQUEST_NULL;
    ZT_OK(MPI_Request_get_status_any(1, reqs, &idx, &flag, &sts[0]));
    ZT_EQ(flag, 1, "any of nothing active");
    ZT_EQ(idx, MPI_UNDEFINED, "index of nothing active");
    ZT_OK(MPI_Request_get_status_some(1, reqs, &outcount, indices, sts));
    ZT_EQ(outcount, MPI_UNDEFINED, "some of nothing active");

    ZT_OK(MPI_Irecv(&in[0], 1, MPI_INT, left, 1, MPI_COMM_WORLD, &reqs[0]));
    ZT_OK(MPI_Start(&reqs[2]));
    reqs[1] = MPI_REQUEST_NULL;
    /* Nobody has sent yet (everyone waits at the barrier after this). */
    ZT_OK(MPI_Request_get_status_all(3, reqs, &flag, sts));
    ZT_EQ(flag, size == 1 ? 0 : 0, "all before the sends");
    ZT_OK(MPI_Request_get_status_any(3, reqs, &idx, &flag, &sts[0]));
    ZT_EQ(flag, 0, "any before the sends");
    ZT_OK(MPI_Request_get_status_some(3, reqs, &outcount, indices, sts));
    ZT_EQ(outcount, 0, "some before the sends");
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    ZT_OK(MPI_Send(&out[0], 1, MPI_INT, right, 1, MPI_COMM_WORLD));
    ZT_OK(MPI_Send(&out[1], 1, MPI_INT, right, 2, MPI_COMM_WORLD));
    do
        ZT_OK(MPI_Request_get_status_all(3, reqs, &flag, sts));
    while (!flag);
    ZT_EQ(sts[0].MPI_SOURCE, left, "source of the first receive");
    ZT_EQ(sts[0].MPI_TAG, 1, "tag of the first receive");
    ZT_EQ(sts[1].MPI_SOURCE, MPI_ANY_SOURCE, "null request's status");
    ZT_EQ(sts[2].MPI_TAG, 2, "tag of the persistent receive");
    ZT_CHECK(reqs[0] != MPI_REQUEST_NULL, "get_status_all freed a request");
    ZT_OK(MPI_Request_get_status_some(3, reqs, &outcount, indices, sts));
    ZT_EQ(outcount, 2, "some after the sends");
    ZT_EQ(indices[0], 0, "first index");
    ZT_EQ(indices[1], 2, "second index");
    ZT_OK(MPI_Request_get_status_any(3, reqs, &idx, &flag, &sts[0]));
    ZT_EQ(flag, 1, "any after the sends");
    ZT_EQ(idx, 0, "any's index");
    /* Still there: Waitall frees the first and deactivates the third. */
    ZT_OK(MPI_Waitall(3, reqs, sts));
    ZT_EQ(in[0], left * 10, "first value");
    ZT_EQ(in[1], left * 10 + 1, "second value");
    ZT_CHECK(reqs[0] == MPI_REQUEST_NULL, "Waitall did not free");
    ZT_OK(MPI_Request_free(&reqs[2]));

    /* A bad request array. */
    int cls = -1, rc = MPI_Request_get_status_all(-1, reqs, &flag, sts);
    MPI_Error_class(rc, &cls);
    ZT_EQ(cls, MPI_ERR_COUNT, "negative count");
}

/* Calls that complete one operation, and multiple-completion calls that
 * succeed, leave a status's MPI_ERROR field as the caller set it (MPI 4.1
 * section 3.2.5); the MPICH Fortran tests check this. */
static void check_error_field_untouched(int rank)
{
    MPI_Status st, sts[2];
    MPI_Request reqs[2];
    int out = -1, in = 7;
    st.MPI_ERROR = 123;
    ZT_OK(MPI_Sendrecv(&in, 1, MPI_INT, rank, 5, &out, 1, MPI_INT, rank, 5, MPI_COMM_WORLD, &st));
    ZT_EQ(st.MPI_ERROR, 123, "MPI_ERROR after MPI_Sendrecv");
    ZT_EQ(st.MPI_TAG, 5, "tag after MPI_Sendrecv");
    st.MPI_ERROR = 124;
    ZT_OK(MPI_Recv(&out, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    ZT_EQ(st.MPI_ERROR, 124, "MPI_ERROR after a receive from MPI_PROC_NULL");
    ZT_OK(MPI_Irecv(&out, 1, MPI_INT, rank, 6, MPI_COMM_WORLD, &reqs[0]));
    ZT_OK(MPI_Isend(&in, 1, MPI_INT, rank, 6, MPI_COMM_WORLD, &reqs[1]));
    sts[0].MPI_ERROR = sts[1].MPI_ERROR = 125;
    ZT_OK(MPI_Waitall(2, reqs, sts));
    ZT_EQ(sts[0].MPI_ERROR, 125, "MPI_ERROR after a successful MPI_Waitall");
    ZT_EQ(sts[1].MPI_ERROR, 125, "second MPI_ERROR after a successful MPI_Waitall");
    ZT_EQ(out, 7, "data");
    /* Only inactive requests: the empty status, MPI_ERROR included. */
    int index = -2, flag = -1;
    st.MPI_ERROR = 126;
    ZT_OK(MPI_Request_get_status_any(2, reqs, &index, &flag, &st));
    ZT_EQ(index, MPI_UNDEFINED, "index over null requests");
    ZT_EQ(st.MPI_ERROR, MPI_SUCCESS, "MPI_ERROR of the empty status");
    ZT_EQ(st.MPI_SOURCE, MPI_ANY_SOURCE, "source of the empty status");
}

/* A send's completion leaves the status fields other than the cancelled
 * flag as they were (MPI 4.1 section 3.7.3 leaves them undefined; MPICH
 * keeps them, and its irsend tests pass one status to a Waitany over a
 * receive and a send, expecting the receive's fields to survive). */
static void check_send_status_untouched(int rank, int size)
{
    if (size < 2)
        return;
    int peer = rank ^ 1, v = 3, got = 0;
    if (peer >= size)
        return;
    MPI_Request r;
    MPI_Status st;
    st.MPI_SOURCE = 41;
    st.MPI_TAG = 42;
    ZT_OK(MPI_Status_set_elements(&st, MPI_BYTE, 43));
    ZT_OK(MPI_Isend(&v, 1, MPI_INT, peer, 9, MPI_COMM_WORLD, &r));
    ZT_OK(MPI_Recv(&got, 1, MPI_INT, peer, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    ZT_OK(MPI_Wait(&r, &st));
    int n = -1, flag = -1;
    ZT_OK(MPI_Get_count(&st, MPI_BYTE, &n));
    ZT_EQ(st.MPI_SOURCE, 41, "source after a send's MPI_Wait");
    ZT_EQ(st.MPI_TAG, 42, "tag after a send's MPI_Wait");
    ZT_EQ(n, 43, "count after a send's MPI_Wait");
    ZT_OK(MPI_Test_cancelled(&st, &flag));
    ZT_EQ(flag, 0, "a completed send is not cancelled");
}

int main(int argc, char **argv)
{
    int rank, size;
    zt_init_errors_return(&argc, &argv, &rank, &size);
    check_setters();
    check_get_status(rank, size);
    check_error_field_untouched(rank);
    check_send_status_untouched(rank, size);
    ZT_OK(MPI_Finalize());
    if (rank == 0)
        printf("req_status: OK on %d ranks\n", size);
    return 0;
}
