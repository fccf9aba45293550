/*
 * p2p_order.c: messages between one pair of ranks do not overtake each
 * other, whatever their sizes (eager and rendezvous mixed), the send mode,
 * and whether the receiver names the source and tag or uses wildcards.
 * Every rank except 0 sends to rank 0; rank 0 checks the order.
 */
#include "zt.h"

#define NMSG 60
#define MAX_BYTES (200 * 1024)

/* The size of message seq: a cycle crossing any eager threshold up to
 * 64 KiB in both directions, including empty messages. */
static int msg_size(long seq)
{
    static const int cycle[] = { 0, 1, 8, 16385, 100, 16383, MAX_BYTES, 4,
                                 65537, 0, 16384, 3000, 131072 };
    return cycle[seq % (long)(sizeof cycle / sizeof cycle[0])];
}

/* Sends NMSG messages to rank 0 with tag t(seq), alternating send calls.
 * Nonblocking sends stay outstanding until all are issued. */
static void send_all(int rank, int phase)
{
    unsigned char **bufs = zt_malloc(NMSG * sizeof *bufs);
    MPI_Request *reqs = zt_malloc(NMSG * sizeof *reqs);

    for (long seq = 0; seq < NMSG; seq++) {
        int n = msg_size(seq), tag = phase == 0 ? 5 : (int)(seq % 3);
        bufs[seq] = zt_malloc((size_t)n);
        zt_fill(bufs[seq], (size_t)n, rank, seq + phase * 1000);
        reqs[seq] = MPI_REQUEST_NULL;
        switch (seq % 4) {
        case 0: ZT_OK(MPI_Send(bufs[seq], n, MPI_BYTE, 0, tag, MPI_COMM_WORLD)); break;
        case 1: ZT_OK(MPI_Isend(bufs[seq], n, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &reqs[seq])); break;
        case 2: ZT_OK(MPI_Ssend(bufs[seq], n, MPI_BYTE, 0, tag, MPI_COMM_WORLD)); break;
        default: ZT_OK(MPI_Issend(bufs[seq], n, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &reqs[seq])); break;
        }
    }
    ZT_OK(MPI_Waitall(NMSG, reqs, ZT_STATUSES_IGNORE));
    for (long seq = 0; seq < NMSG; seq++)
        free(bufs[seq]);
    free(bufs);
    free(reqs);
}

/* Phase 0: receive from each source in turn, naming source and tag; half of
 * the receives are preposted MPI_Irecv completed in reverse order. */
static void recv_named(int size, unsigned char *buf)
{
    MPI_Request reqs[NMSG];
    unsigned char **bufs = zt_malloc(NMSG * sizeof *bufs);
    MPI_Status st;

    for (int src = 1; src < size; src++) {
        for (long seq = 0; seq < NMSG / 2; seq++) {
            bufs[seq] = zt_malloc(MAX_BYTES);
            ZT_OK(MPI_Irecv(bufs[seq], MAX_BYTES, MPI_BYTE, src, 5,
                            MPI_COMM_WORLD, &reqs[seq]));
        }
        for (long seq = NMSG / 2 - 1; seq >= 0; seq--) {
            ZT_OK(MPI_Wait(&reqs[seq], &st));
            ZT_CHECK_STATUS(st, src, 5, msg_size(seq));
            ZT_CHECK_PAYLOAD(bufs[seq], (size_t)msg_size(seq), src, seq);
            free(bufs[seq]);
        }
        for (long seq = NMSG / 2; seq < NMSG; seq++) {
            ZT_OK(MPI_Recv(buf, MAX_BYTES, MPI_BYTE, src, 5, MPI_COMM_WORLD, &st));
            ZT_CHECK_STATUS(st, src, 5, msg_size(seq));
            ZT_CHECK_PAYLOAD(buf, (size_t)msg_size(seq), src, seq);
        }
    }
    free(bufs);
}

/* Phase 1: receive everything with wildcards.  Messages from one source must
 * arrive in sending order even across tags, since an MPI_ANY_TAG receive
 * matches all of them; a third of the receives name the source. */
static void recv_wild(int size, unsigned char *buf)
{
    long *next = zt_malloc((size_t)size * sizeof *next);
    long total = (long)(size - 1) * NMSG;
    MPI_Status st;

    for (int i = 0; i < size; i++)
        next[i] = 0;
    for (long k = 0; k < total; k++) {
        int src = MPI_ANY_SOURCE;
        if (k % 3 == 2) {
            src = 1 + (int)(k % (size - 1));
            while (next[src] == NMSG)
                src = src % (size - 1) + 1;
        }
        ZT_OK(MPI_Recv(buf, MAX_BYTES, MPI_BYTE, src, MPI_ANY_TAG,
                       MPI_COMM_WORLD, &st));
        int s = st.MPI_SOURCE;
        ZT_CHECK(s >= 1 && s < size && next[s] < NMSG,
                 "unexpected source %d in status", s);
        long seq = next[s]++;
        ZT_CHECK_STATUS(st, s, (int)(seq % 3), msg_size(seq));
        ZT_CHECK_PAYLOAD(buf, (size_t)msg_size(seq), s, seq + 1000);
    }
    free(next);
}

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ZT_CHECK(size >= 2, "needs at least 2 ranks, has %d", size);
    for (int phase = 0; phase < 2; phase++) {
        if (rank == 0) {
            unsigned char *buf = zt_malloc(MAX_BYTES);
            if (phase == 0)
                recv_named(size, buf);
            else
                recv_wild(size, buf);
            free(buf);
        } else {
            send_all(rank, phase);
        }
        ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    MPI_Finalize();
    return 0;
}
