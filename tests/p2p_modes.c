/*
 * p2p_modes.c: every send mode (standard, synchronous, ready, buffered and
 * their nonblocking forms) delivers messages of every size intact, received
 * with MPI_Recv and MPI_Irecv; MPI_Sendrecv and MPI_Sendrecv_replace swap
 * data correctly.  Ranks work in pairs (0,1), (2,3), ...; an odd last rank
 * only takes part in the barriers.
 */
#include "zt.h"

enum { MODE_SEND, MODE_SSEND, MODE_RSEND, MODE_BSEND, MODE_ISEND,
       MODE_ISSEND, MODE_IRSEND, MODE_IBSEND, NMODES };

static const char *const mode_names[NMODES] = {
    "Send", "Ssend", "Rsend", "Bsend", "Isend", "Issend", "Irsend", "Ibsend"
};

static const int sizes[] = {
    0, 1, 8, 1024, 16383, 16384, 16385, 65536, 1 << 20, 8 << 20
};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))
#define MAX_SIZE (8 << 20)
#define READY_TAG 999

/* Sends n bytes of message seq to peer in the given mode.  Ready sends wait
 * for the receiver's go-ahead, which it gives after posting its receive. */
static void send_one(int mode, const void *buf, int n, int peer, int tag)
{
    MPI_Request req = MPI_REQUEST_NULL;

    if (mode == MODE_RSEND || mode == MODE_IRSEND)
        ZT_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, READY_TAG, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE));
    switch (mode) {
    case MODE_SEND: ZT_OK(MPI_Send(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD)); break;
    case MODE_SSEND: ZT_OK(MPI_Ssend(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD)); break;
    case MODE_RSEND: ZT_OK(MPI_Rsend(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD)); break;
    case MODE_BSEND: ZT_OK(MPI_Bsend(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD)); break;
    case MODE_ISEND: ZT_OK(MPI_Isend(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req)); break;
    case MODE_ISSEND: ZT_OK(MPI_Issend(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req)); break;
    case MODE_IRSEND: ZT_OK(MPI_Irsend(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req)); break;
    default: ZT_OK(MPI_Ibsend(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req)); break;
    }
    ZT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    ZT_CHECK(req == MPI_REQUEST_NULL, "MPI_Wait left the request non-null");
}

/* Receives message seq of n bytes from peer, with MPI_Recv or MPI_Irecv,
 * into a buffer one byte larger than needed, and checks every byte. */
static void recv_one(int mode, unsigned char *buf, int n, int peer, int tag,
                     long seq, int use_irecv)
{
    MPI_Status st;
    MPI_Request req;
    int ready = mode == MODE_RSEND || mode == MODE_IRSEND;

    memset(buf, 0xA5, (size_t)n + 1);
    if (use_irecv || ready) {
        ZT_OK(MPI_Irecv(buf, n + 1, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req));
        if (ready)
            ZT_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, READY_TAG, MPI_COMM_WORLD));
        ZT_OK(MPI_Wait(&req, &st));
    } else {
        ZT_OK(MPI_Recv(buf, n + 1, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st));
    }
    ZT_CHECK_STATUS(st, peer, tag, n);
    ZT_CHECK_PAYLOAD(buf, (size_t)n, peer, seq);
    ZT_CHECK(buf[n] == 0xA5, "%s of %d bytes wrote past the message end",
             mode_names[mode], n);
}

/* One direction of one pair: sender sends every size in every mode. */
static void run_direction(int me, int sender, int peer, unsigned char *buf,
                          unsigned char *rbuf)
{
    long seq = 0;

    for (int mode = 0; mode < NMODES; mode++) {
        for (int s = 0; s < NSIZES; s++, seq++) {
            int n = sizes[s], tag = mode * 100 + s;
            if (me == sender) {
                zt_fill(buf, (size_t)n, me, seq);
                send_one(mode, buf, n, peer, tag);
            } else {
                recv_one(mode, rbuf, n, peer, tag, seq, (int)(seq & 1));
            }
        }
    }
}

/* Both partners send and receive at once with MPI_Sendrecv, sizes differing
 * between the two directions, then swap a buffer with Sendrecv_replace. */
static void run_sendrecv(int me, int peer, unsigned char *buf,
                         unsigned char *rbuf)
{
    MPI_Status st;

    for (int s = 0; s < NSIZES; s++) {
        int n_out = sizes[(me < peer) ? s : NSIZES - 1 - s];
        int n_in = sizes[(me < peer) ? NSIZES - 1 - s : s];
        zt_fill(buf, (size_t)n_out, me, 1000 + s);
        ZT_OK(MPI_Sendrecv(buf, n_out, MPI_BYTE, peer, 7, rbuf, n_in,
                           MPI_BYTE, peer, 7, MPI_COMM_WORLD, &st));
        ZT_CHECK_STATUS(st, peer, 7, n_in);
        ZT_CHECK_PAYLOAD(rbuf, (size_t)n_in, peer, 1000 + s);
    }
    for (int s = 0; s < NSIZES; s++) {
        int n = sizes[s];
        zt_fill(buf, (size_t)n, me, 2000 + s);
        ZT_OK(MPI_Sendrecv_replace(buf, n, MPI_BYTE, peer, 8, peer, 8,
                                   MPI_COMM_WORLD, &st));
        ZT_CHECK_STATUS(st, peer, 8, n);
        ZT_CHECK_PAYLOAD(buf, (size_t)n, peer, 2000 + s);
    }
}

int main(int argc, char **argv)
{
    int rank, size, bsize = 0;
    void *attached, *detached = NULL;

    /* Room for every buffered message of both buffered modes at once, since
     * a library may reclaim buffer space lazily. */
    for (int s = 0; s < NSIZES; s++)
        bsize += 2 * (sizes[s] + MPI_BSEND_OVERHEAD);

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned char *buf = zt_malloc(MAX_SIZE + 1);
    unsigned char *rbuf = zt_malloc(MAX_SIZE + 1);
    attached = zt_malloc((size_t)bsize);
    ZT_OK(MPI_Buffer_attach(attached, bsize));
    int peer = rank ^ 1;
    if (peer < size) {
        int lo = rank < peer ? rank : peer, hi = lo + 1;
        run_direction(rank, lo, rank == lo ? hi : lo, buf, rbuf);
        run_direction(rank, hi, rank == lo ? hi : lo, buf, rbuf);
        run_sendrecv(rank, peer, buf, rbuf);
    }
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    ZT_OK(MPI_Buffer_detach(&detached, &bsize));
    ZT_CHECK(detached == attached, "MPI_Buffer_detach returned another buffer");
    free(attached);
    free(buf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
