/*
 * p2p_ring.c: small messages to a receiver that polls in MPI_Waitall
 * (src/p2p/ring.c): senders on the other worker leave them in rings and
 * the receiver matches them itself.  Checks that this keeps MPI's
 * semantics exactly:
 *   - order per sender when tiny (ring) and larger (locked path) messages
 *     alternate, with MPI_ANY_SOURCE and MPI_ANY_TAG receives;
 *   - messages that no posted receive matches when drained become
 *     unexpected messages, found by later receives and probes in order;
 *   - an unmatched tiny send can still be cancelled;
 *   - order holds while the ranks move between workers between sends
 *     (ZMPI_Migrate, strategy rotate), so a sender's older entries sit in
 *     another worker's ring.
 * Run with the last rank alone on its worker (e.g. 3 ranks, 2 workers):
 * it receives, the others send.
 */
#include "zt.h"

#include <string.h>

#define WINDOW 48
#define ROUNDS 200
#define TAG_A 11
#define TAG_B 12
#define TAG_GO 13
#define TAG_CANCEL 14

/* A message: its sender, its sequence number in that sender's stream,
 * padding that sends it through the ring (8 bytes in all) or through the
 * receiver's lock (64 bytes). */
typedef struct {
    int src;
    int seq;
    char pad[56];
} msg_t;

static int msg_bytes(int seq)
{
    return seq % 3 == 2 ? (int)sizeof(msg_t) : 2 * (int)sizeof(int);
}

/* Every sender sends `per` messages to `dst`, alternating tags A and B. */
static void send_stream(int rank, int dst, int first, int per)
{
    MPI_Request q[WINDOW];
    msg_t m[WINDOW];
    for (int i = 0; i < per; i++) {
        m[i].src = rank;
        m[i].seq = first + i;
        memset(m[i].pad, 0x5a, sizeof m[i].pad);
        ZT_OK(MPI_Isend(&m[i], msg_bytes(first + i), MPI_BYTE, dst, i % 2 ? TAG_B : TAG_A,
                        MPI_COMM_WORLD, &q[i]));
    }
    ZT_OK(MPI_Waitall(per, q, MPI_STATUSES_IGNORE));
}

/* The receiver: `nsend` senders, `per` messages each, received with
 * ANY_SOURCE/ANY_TAG; each sender's sequence numbers must come in order. */
static void recv_stream(int nsend, int per, int *next)
{
    int n = nsend * per;
    MPI_Request q[WINDOW * 8];
    MPI_Status st[WINDOW * 8];
    msg_t m[WINDOW * 8];
    ZT_CHECK(n <= WINDOW * 8, "window too large");
    for (int i = 0; i < n; i++)
        ZT_OK(MPI_Irecv(&m[i], (int)sizeof(msg_t), MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                        MPI_COMM_WORLD, &q[i]));
    ZT_OK(MPI_Waitall(n, q, st));
    for (int i = 0; i < n; i++) {
        int s = m[i].src, cnt;
        ZT_CHECK(s >= 0 && s < nsend && st[i].MPI_SOURCE == s, "source %d / %d", s,
                 st[i].MPI_SOURCE);
        ZT_CHECK(m[i].seq == next[s], "from %d: seq %d, expected %d", s, m[i].seq, next[s]);
        MPI_Get_count(&st[i], MPI_BYTE, &cnt);
        ZT_EQ(cnt, msg_bytes(m[i].seq), "bytes");
        ZT_EQ(st[i].MPI_TAG, (m[i].seq % per) % 2 ? TAG_B : TAG_A, "tag");
        next[s]++;
    }
}

/* Messages of tag B arrive while the receiver waits for one of tag A
 * only: they must end up unexpected, in order, found by probe and recv. */
static void unexpected_phase(int rank, int size)
{
    int rcv = size - 1, per = 8;
    if (rank != rcv) {
        for (int i = 0; i < per; i++) {
            int v[2] = { rank, i };
            ZT_OK(MPI_Send(v, 2, MPI_INT, rcv, TAG_B, MPI_COMM_WORLD));
        }
        ZT_OK(MPI_Send(&rank, 1, MPI_INT, rcv, TAG_A, MPI_COMM_WORLD));
        return;
    }
    for (int s = 0; s < size - 1; s++) {
        int any;
        MPI_Request r;
        ZT_OK(MPI_Irecv(&any, 1, MPI_INT, MPI_ANY_SOURCE, TAG_A, MPI_COMM_WORLD, &r));
        ZT_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }
    for (int s = 0; s < size - 1; s++)
        for (int i = 0; i < per; i++) {
            MPI_Status st;
            int v[2], flag;
            ZT_OK(MPI_Iprobe(s, TAG_B, MPI_COMM_WORLD, &flag, &st));
            ZT_CHECK(flag, "probe finds %d's message %d", s, i);
            ZT_OK(MPI_Recv(v, 2, MPI_INT, s, TAG_B, MPI_COMM_WORLD, &st));
            ZT_CHECK(v[0] == s && v[1] == i, "unexpected from %d: %d %d", s, v[0], v[1]);
        }
}

/* A tiny send that no receive matches is cancelled; the receiver, which
 * polled meanwhile for something else, must never see it. */
static void cancel_phase(int rank, int size)
{
    int rcv = size - 1, go = 0;
    if (rank == 0) {
        int v = 42, flag;
        MPI_Request r;
        MPI_Status st;
        ZT_OK(MPI_Isend(&v, 1, MPI_INT, rcv, TAG_CANCEL, MPI_COMM_WORLD, &r));
        ZT_OK(MPI_Cancel(&r));
        ZT_OK(MPI_Wait(&r, &st));
        ZT_OK(MPI_Test_cancelled(&st, &flag));
        ZT_CHECK(flag, "an unmatched 4-byte send is cancelled");
        ZT_OK(MPI_Send(&go, 1, MPI_INT, rcv, TAG_GO, MPI_COMM_WORLD));
    } else if (rank == rcv) {
        MPI_Request r;
        int flag;
        ZT_OK(MPI_Irecv(&go, 1, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD, &r));
        ZT_OK(MPI_Waitall(1, &r, MPI_STATUSES_IGNORE));
        ZT_OK(MPI_Iprobe(0, TAG_CANCEL, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        ZT_CHECK(!flag, "the cancelled message is gone");
    }
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    int rank, size, next[8] = { 0 }, per = WINDOW / 4;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ZT_CHECK(size >= 2 && size <= 9, "2 to 9 ranks");
    MPI_Info hints;
    ZT_OK(MPI_Info_create(&hints));
    ZT_OK(MPI_Info_set(hints, "zmpi_lb", "rotate"));
    for (int round = 0; round < ROUNDS; round++) {
        if (rank == size - 1)
            recv_stream(size - 1, per, next);
        else
            send_stream(rank, size - 1, round * per, per);
        /* Every tenth round the ranks change workers (sender entries of
         * the last round may still be in the old worker's ring). */
        if (round % 10 == 9)
            ZT_OK(ZMPI_Migrate(hints));
    }
    ZT_OK(MPI_Info_free(&hints));
    unexpected_phase(rank, size);
    cancel_phase(rank, size);
    MPI_Finalize();
    return 0;
}
