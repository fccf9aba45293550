/*
 * p2p_persistent.c: persistent requests (MPI_Send_init, MPI_Ssend_init,
 * MPI_Bsend_init, MPI_Rsend_init, MPI_Recv_init) can be started many times
 * with MPI_Start and MPI_Startall,
 * each round delivering the buffer's current contents; an inactive
 * persistent request completes at once with an empty status.
 * Ranks work in pairs (0,1), (2,3), ...
 */
#include "zt.h"

#define ROUNDS 200
#define NSIZE 4

static const int psizes[NSIZE] = { 0, 100, 16385, 70000 };

/* The sender has one standard and one synchronous persistent send per size;
 * each round it starts them all at once with MPI_Startall. */
static void sender(int peer, int rank)
{
    MPI_Request r[2 * NSIZE];
    unsigned char *buf[2 * NSIZE];

    for (int i = 0; i < 2 * NSIZE; i++) {
        int n = psizes[i % NSIZE];
        buf[i] = zt_malloc((size_t)n);
        if (i < NSIZE)
            ZT_OK(MPI_Send_init(buf[i], n, MPI_BYTE, peer, i, MPI_COMM_WORLD, &r[i]));
        else
            ZT_OK(MPI_Ssend_init(buf[i], n, MPI_BYTE, peer, i, MPI_COMM_WORLD, &r[i]));
    }
    for (long round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < 2 * NSIZE; i++)
            zt_fill(buf[i], (size_t)psizes[i % NSIZE], rank, round * 16 + i);
        ZT_OK(MPI_Startall(2 * NSIZE, r));
        ZT_OK(MPI_Waitall(2 * NSIZE, r, ZT_STATUSES_IGNORE));
        for (int i = 0; i < 2 * NSIZE; i++)
            ZT_CHECK(r[i] != MPI_REQUEST_NULL, "Waitall freed persistent "
                     "request %d", i);
    }
    for (int i = 0; i < 2 * NSIZE; i++) {
        ZT_OK(MPI_Request_free(&r[i]));
        free(buf[i]);
    }
}

/* The receiver starts its persistent receives one by one with MPI_Start in
 * reverse order and completes them with MPI_Wait. */
static void receiver(int peer)
{
    MPI_Request r[2 * NSIZE];
    unsigned char *buf[2 * NSIZE];
    MPI_Status st;

    for (int i = 0; i < 2 * NSIZE; i++) {
        buf[i] = zt_malloc((size_t)psizes[i % NSIZE] + 1);
        ZT_OK(MPI_Recv_init(buf[i], psizes[i % NSIZE] + 1, MPI_BYTE, peer, i,
                            MPI_COMM_WORLD, &r[i]));
    }
    for (long round = 0; round < ROUNDS; round++) {
        for (int i = 2 * NSIZE - 1; i >= 0; i--)
            ZT_OK(MPI_Start(&r[i]));
        for (int i = 0; i < 2 * NSIZE; i++) {
            int n = psizes[i % NSIZE];
            ZT_OK(MPI_Wait(&r[i], &st));
            ZT_CHECK(r[i] != MPI_REQUEST_NULL, "Wait freed a persistent request");
            ZT_CHECK_STATUS(st, peer, i, n);
            ZT_CHECK_PAYLOAD(buf[i], (size_t)n, peer, round * 16 + i);
        }
    }
    /* Waiting on an inactive persistent request returns an empty status. */
    ZT_OK(MPI_Wait(&r[0], &st));
    ZT_CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG,
             "inactive request: status source %d tag %d", st.MPI_SOURCE,
             st.MPI_TAG);
    for (int i = 0; i < 2 * NSIZE; i++) {
        ZT_OK(MPI_Request_free(&r[i]));
        ZT_CHECK(r[i] == MPI_REQUEST_NULL, "Request_free left the handle");
        free(buf[i]);
    }
}

/* Buffered and ready persistent sends: the receiver starts its receives
 * and then tells the sender (ready mode needs the receive posted); the
 * sender's buffered send goes through an attached buffer, which must be
 * empty again after each round. */
static void buffered_ready(int peer, int rank, int sending)
{
    enum { N = 3000 };
    MPI_Request r[2];
    unsigned char *buf[2] = { zt_malloc(N), zt_malloc(N) };
    if (sending) {
        int bsize = N + MPI_BSEND_OVERHEAD, sz;
        void *bbuf = zt_malloc((size_t)bsize), *back;
        ZT_OK(MPI_Buffer_attach(bbuf, bsize));
        ZT_OK(MPI_Bsend_init(buf[0], N, MPI_BYTE, peer, 100, MPI_COMM_WORLD, &r[0]));
        ZT_OK(MPI_Rsend_init(buf[1], N, MPI_BYTE, peer, 101, MPI_COMM_WORLD, &r[1]));
        for (long round = 0; round < ROUNDS; round++) {
            zt_fill(buf[0], N, rank, round * 2);
            zt_fill(buf[1], N, rank, round * 2 + 1);
            ZT_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            ZT_OK(MPI_Startall(2, r));
            ZT_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        }
        ZT_OK(MPI_Request_free(&r[0]));
        ZT_OK(MPI_Request_free(&r[1]));
        ZT_OK(MPI_Buffer_detach(&back, &sz));
        ZT_CHECK(back == bbuf && sz == bsize, "detach gave %p/%d", back, sz);
        free(bbuf);
    } else {
        ZT_OK(MPI_Recv_init(buf[0], N, MPI_BYTE, peer, 100, MPI_COMM_WORLD, &r[0]));
        ZT_OK(MPI_Recv_init(buf[1], N, MPI_BYTE, peer, 101, MPI_COMM_WORLD, &r[1]));
        for (long round = 0; round < ROUNDS; round++) {
            ZT_OK(MPI_Startall(2, r));
            ZT_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, 99, MPI_COMM_WORLD));
            ZT_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
            ZT_CHECK_PAYLOAD(buf[0], N, peer, round * 2);
            ZT_CHECK_PAYLOAD(buf[1], N, peer, round * 2 + 1);
        }
        ZT_OK(MPI_Request_free(&r[0]));
        ZT_OK(MPI_Request_free(&r[1]));
    }
    free(buf[0]);
    free(buf[1]);
}

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int peer = rank ^ 1;
    if (peer < size) {
        if (rank % 2 == 0) {
            sender(peer, rank);
            receiver(peer);
        } else {
            receiver(peer);
            sender(peer, rank);
        }
        buffered_ready(peer, rank, rank % 2 == 0);
        buffered_ready(peer, rank, rank % 2 == 1);
    }
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Finalize();
    return 0;
}
