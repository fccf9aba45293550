/*
 * bufmode_comm.c: buffered mode with buffers per communicator (MPI 4.1
 * section 3.6): MPI_Comm_attach_buffer and its detach, flush and iflush,
 * MPI_Buffer_flush/iflush, and MPI_BUFFER_AUTOMATIC.  Messages go around
 * a ring (each rank to the next); receives are posted only after the
 * sends, so every message really sits in the sender's buffer, and every
 * byte is checked.
 */
#include "zt.h"

enum { N = 2000, K = 8 };

#define EXPECT(call, cls) ZT_EQ(zt_err_class(call), (cls), #call)

/* K messages of N bytes into a communicator's buffer while the process
 * has none; the process buffer is used on other communicators only. */
static void comm_buffer_used(MPI_Comm dup, int rank, int next, int prev)
{
    int size = K * (N + MPI_BSEND_OVERHEAD);
    char *buf = zt_malloc((size_t)size), *msg = zt_malloc(N), *in = zt_malloc(N);
    ZT_OK(MPI_Comm_attach_buffer(dup, buf, size));
    EXPECT(MPI_Comm_attach_buffer(dup, buf, size), MPI_ERR_BUFFER);
    for (int i = 0; i < K; i++) {
        zt_fill(msg, N, rank, i);
        if (i % 2)
            ZT_OK(MPI_Bsend(msg, N, MPI_BYTE, next, i, dup));
        else {
            MPI_Request r;
            ZT_OK(MPI_Ibsend(msg, N, MPI_BYTE, next, i, dup, &r));
            ZT_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        }
    }
    /* The buffer is full: one more does not fit, and the world has none. */
    EXPECT(MPI_Bsend(msg, N, MPI_BYTE, next, 99, dup), MPI_ERR_BUFFER);
    EXPECT(MPI_Bsend(msg, 1, MPI_BYTE, next, 99, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    /* Nothing was received yet, so a non-blocking flush is pending. */
    MPI_Request fl;
    int flag = 1;
    ZT_OK(MPI_Comm_iflush_buffer(dup, &fl));
    ZT_OK(MPI_Test(&fl, &flag, MPI_STATUS_IGNORE));
    ZT_EQ(flag, 0, "flush complete before any receive");
    ZT_OK(MPI_Barrier(dup));
    for (int i = 0; i < K; i++) {
        ZT_OK(MPI_Recv(in, N, MPI_BYTE, prev, i, dup, MPI_STATUS_IGNORE));
        ZT_CHECK_PAYLOAD(in, N, prev, i);
    }
    ZT_OK(MPI_Wait(&fl, MPI_STATUS_IGNORE));
    ZT_OK(MPI_Comm_flush_buffer(dup));
    void *back = NULL;
    int bsize = -1;
    ZT_OK(MPI_Comm_detach_buffer(dup, &back, &bsize));
    ZT_CHECK(back == buf && bsize == size, "detach gave %p/%d", back, bsize);
    EXPECT(MPI_Comm_detach_buffer(dup, &back, &bsize), MPI_ERR_BUFFER);
    EXPECT(MPI_Comm_flush_buffer(dup), MPI_ERR_BUFFER);
    free(buf);
    free(msg);
    free(in);
}

/* The communicator's buffer takes precedence over the process's, both
 * ways: a small one fails where the process's would fit. */
static void precedence(MPI_Comm dup, int rank, int next, int prev)
{
    int big = N + MPI_BSEND_OVERHEAD, small = 10 + MPI_BSEND_OVERHEAD;
    char *pbuf = zt_malloc((size_t)big), *cbuf = zt_malloc((size_t)small);
    char *msg = zt_malloc(N), *in = zt_malloc(N);
    ZT_OK(MPI_Buffer_attach(pbuf, big));
    ZT_OK(MPI_Comm_attach_buffer(dup, cbuf, small));
    zt_fill(msg, N, rank, 50);
    EXPECT(MPI_Bsend(msg, N, MPI_BYTE, next, 1, dup), MPI_ERR_BUFFER);
    ZT_OK(MPI_Bsend(msg, 10, MPI_BYTE, next, 2, dup));
    ZT_OK(MPI_Bsend(msg, N, MPI_BYTE, next, 3, MPI_COMM_WORLD));
    /* Persistent buffered sends use the communicator's buffer too. */
    MPI_Request ps;
    ZT_OK(MPI_Bsend_init(msg, N, MPI_BYTE, next, 4, dup, &ps));
    EXPECT(MPI_Start(&ps), MPI_ERR_BUFFER);
    ZT_OK(MPI_Request_free(&ps));
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    ZT_OK(MPI_Recv(in, 10, MPI_BYTE, prev, 2, dup, MPI_STATUS_IGNORE));
    ZT_CHECK_PAYLOAD(in, 10, prev, 50);
    ZT_OK(MPI_Recv(in, N, MPI_BYTE, prev, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    ZT_CHECK_PAYLOAD(in, N, prev, 50);
    MPI_Request fl;
    ZT_OK(MPI_Buffer_iflush(&fl));
    ZT_OK(MPI_Wait(&fl, MPI_STATUS_IGNORE));
    ZT_OK(MPI_Buffer_flush());
    void *back;
    int bsize;
    ZT_OK(MPI_Buffer_detach(&back, &bsize));
    ZT_CHECK(back == pbuf && bsize == big, "process detach gave %p/%d", back, bsize);
    EXPECT(MPI_Buffer_flush(), MPI_ERR_BUFFER);
    ZT_OK(MPI_Comm_detach_buffer(dup, &back, &bsize));
    ZT_CHECK(back == cbuf && bsize == small, "communicator detach gave %p/%d", back, bsize);
    free(pbuf);
    free(cbuf);
    free(msg);
    free(in);
}

/* A buffer for one message, reused round after round: flush frees it. */
static void reuse_after_flush(MPI_Comm dup, int rank, int next, int prev)
{
    int size = N + MPI_BSEND_OVERHEAD;
    char *buf = zt_malloc((size_t)size), *msg = zt_malloc(N), *in = zt_malloc(N);
    ZT_OK(MPI_Comm_attach_buffer(dup, buf, size));
    for (int round = 0; round < 6; round++) {
        zt_fill(msg, N, rank, 100 + round);
        ZT_OK(MPI_Bsend(msg, N, MPI_BYTE, next, round, dup));
        ZT_OK(MPI_Recv(in, N, MPI_BYTE, prev, round, dup, MPI_STATUS_IGNORE));
        ZT_CHECK_PAYLOAD(in, N, prev, 100 + round);
        ZT_OK(MPI_Comm_flush_buffer(dup));
    }
    void *back;
    int bsize;
    ZT_OK(MPI_Comm_detach_buffer(dup, &back, &bsize));
    free(buf);
    free(msg);
    free(in);
}

/* MPI_BUFFER_AUTOMATIC grows as needed: 64 messages of 20 000 bytes wait
 * in it, on a communicator and on the process. */
static void automatic(MPI_Comm dup, int rank, int next, int prev)
{
    enum { M = 64, B = 20000 };
    char *msg = zt_malloc(B), *in = zt_malloc(B);
    ZT_OK(MPI_Comm_attach_buffer(dup, MPI_BUFFER_AUTOMATIC, 0));
    ZT_OK(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0));
    for (int i = 0; i < M; i++) {
        zt_fill(msg, B, rank, 200 + i);
        ZT_OK(MPI_Bsend(msg, B, MPI_BYTE, next, i, i % 2 ? dup : MPI_COMM_WORLD));
    }
    MPI_Request fl[2];
    ZT_OK(MPI_Comm_iflush_buffer(dup, &fl[0]));
    ZT_OK(MPI_Buffer_iflush(&fl[1]));
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = M - 1; i >= 0; i--) {
        ZT_OK(MPI_Recv(in, B, MPI_BYTE, prev, i, i % 2 ? dup : MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE));
        ZT_CHECK_PAYLOAD(in, B, prev, 200 + i);
    }
    ZT_OK(MPI_Waitall(2, fl, MPI_STATUSES_IGNORE));
    void *back = NULL;
    int bsize = -1;
    ZT_OK(MPI_Comm_detach_buffer(dup, &back, &bsize));
    ZT_CHECK(back == MPI_BUFFER_AUTOMATIC, "detach of an automatic buffer gave %p", back);
    ZT_OK(MPI_Buffer_detach(&back, &bsize));
    ZT_CHECK(back == MPI_BUFFER_AUTOMATIC, "detach of an automatic buffer gave %p", back);
    free(msg);
    free(in);
}

int main(int argc, char **argv)
{
    int rank, size;
    zt_init_errors_return(&argc, &argv, &rank, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Comm dup;
    ZT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    ZT_OK(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));
    comm_buffer_used(dup, rank, next, prev);
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    precedence(dup, rank, next, prev);
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    reuse_after_flush(dup, rank, next, prev);
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    automatic(dup, rank, next, prev);
    /* Bad arguments. */
    char b[8];
    EXPECT(MPI_Comm_attach_buffer(MPI_COMM_NULL, b, 8), MPI_ERR_COMM);
    EXPECT(MPI_Comm_attach_buffer(dup, b, -1), MPI_ERR_ARG);
    EXPECT(MPI_Comm_detach_buffer(dup, NULL, NULL), MPI_ERR_ARG);
    EXPECT(MPI_Comm_iflush_buffer(dup, NULL), MPI_ERR_ARG);
    MPI_Request r;
    EXPECT(MPI_Comm_iflush_buffer(dup, &r), MPI_ERR_BUFFER);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
