/*
 * p2p_bsend.c: buffered sends complete locally while the receiver is not
 * yet receiving, as long as the attached buffer has room; detach returns
 * the attached buffer; without room, MPI_Bsend returns MPI_ERR_BUFFER under
 * MPI_ERRORS_RETURN.  Ranks work in pairs (0,1), (2,3), ...
 */
#include "zt.h"

#define NBUF 100

static int bsize_of(int i)
{
    return (i % 10 == 9) ? 20000 + i : i * 13;
}

/* Sends NBUF buffered messages (Bsend and Ibsend) before the receiver has
 * posted anything, then tells it to go on and detaches. */
static void buffered_sender(int rank, int peer)
{
    int total = 0, dsize = 0;
    void *detached = NULL;

    for (int i = 0; i < NBUF; i++)
        total += bsize_of(i) + MPI_BSEND_OVERHEAD;
    char *pool = zt_malloc((size_t)total);
    unsigned char *buf = zt_malloc(20000 + NBUF);
    ZT_OK(MPI_Buffer_attach(pool, total));
    for (int i = 0; i < NBUF; i++) {
        MPI_Request r;
        zt_fill(buf, (size_t)bsize_of(i), rank, i);
        if (i % 2) {
            ZT_OK(MPI_Ibsend(buf, bsize_of(i), MPI_BYTE, peer, 3, MPI_COMM_WORLD, &r));
            ZT_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        } else {
            ZT_OK(MPI_Bsend(buf, bsize_of(i), MPI_BYTE, peer, 3, MPI_COMM_WORLD));
        }
        /* The data was copied out: clobbering the buffer changes nothing. */
        memset(buf, 0, (size_t)bsize_of(i));
    }
    ZT_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, 4, MPI_COMM_WORLD));
    ZT_OK(MPI_Buffer_detach(&detached, &dsize));
    ZT_CHECK(detached == (void *)pool, "detach returned another address");
    ZT_EQ(dsize, total, "size returned by MPI_Buffer_detach");
    free(pool);
    free(buf);
}

/* Waits for the go-ahead, then receives the buffered messages in order. */
static void buffered_receiver(int peer)
{
    unsigned char *buf = zt_malloc(20000 + NBUF);
    MPI_Status st;

    ZT_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, 4, MPI_COMM_WORLD, &st));
    for (int i = 0; i < NBUF; i++) {
        ZT_OK(MPI_Recv(buf, 20000 + NBUF, MPI_BYTE, peer, 3, MPI_COMM_WORLD, &st));
        ZT_CHECK_STATUS(st, peer, 3, bsize_of(i));
        ZT_CHECK_PAYLOAD(buf, (size_t)bsize_of(i), peer, i);
    }
    free(buf);
}

/* With no buffer or too small a buffer, MPI_Bsend fails with class
 * MPI_ERR_BUFFER and sends nothing. */
static void check_exhaustion(int peer)
{
    int cls = -1, small = 64 + MPI_BSEND_OVERHEAD, dsize = 0;
    char *data = zt_malloc(4096), *pool = zt_malloc((size_t)small);
    void *detached = NULL;

    memset(data, 1, 4096);
    ZT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int rc = MPI_Bsend(data, 4096, MPI_BYTE, peer, 5, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    ZT_EQ(cls, MPI_ERR_BUFFER, "error class of MPI_Bsend with no buffer");
    ZT_OK(MPI_Buffer_attach(pool, small));
    rc = MPI_Bsend(data, 4096, MPI_BYTE, peer, 5, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    ZT_EQ(cls, MPI_ERR_BUFFER, "error class of MPI_Bsend larger than buffer");
    ZT_OK(MPI_Buffer_detach(&detached, &dsize));
    ZT_EQ(dsize, small, "detached size");
    ZT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    free(data);
    free(pool);
}

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int peer = rank ^ 1;
    if (peer < size) {
        for (int dir = 0; dir < 2; dir++) {
            if (rank % 2 == dir)
                buffered_sender(rank, peer);
            else
                buffered_receiver(peer);
        }
        check_exhaustion(peer);
    }
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Finalize();
    return 0;
}
