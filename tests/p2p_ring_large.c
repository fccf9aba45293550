/*
 * p2p_ring_large.c: messages of 33 bytes to 1 KiB through the rings of a
 * receiver that polls in MPI_Waitall (src/p2p/ring.c, the payload area).
 * The last rank receives, alone on its worker; the others send from the
 * other workers.  Checks that MPI's semantics hold exactly:
 *   - order per sender and every payload byte, with MPI_ANY_SOURCE and
 *     MPI_ANY_TAG receives, for sizes that mix the ring's inline entries
 *     (8 bytes), its payload area (33 bytes to 1 KiB, sizes that make the
 *     area wrap at odd places) and the locked path (1500 bytes);
 *   - windows larger than the payload area holds, so senders fall back to
 *     the locked path in the middle of a stream;
 *   - order while the ranks move between workers (ZMPI_Migrate, strategy
 *     rotate) with entries still in the old worker's ring;
 *   - every size from 1 to 64 bytes arrives whole, and nothing more;
 *   - unexpected messages of these sizes, found in order by probes;
 *   - an unmatched 1 KiB send can still be cancelled;
 *   - a 1 KiB message into a 100-byte receive reports MPI_ERR_TRUNCATE in
 *     its status, MPI_Waitall MPI_ERR_IN_STATUS through an error handler
 *     that returns.
 */
#include "zt.h"

#include <string.h>

#define MAXB 1500
#define WINDOW 96
#define ROUNDS 120
#define TAG_A 21
#define TAG_B 22
#define TAG_GO 23
#define TAG_CANCEL 24
#define TAG_TRUNC 25

/* Sizes a sender cycles through: inline, payload area, locked path. */
static const int sizes[] = { 8, 1024, 33, 700, 1000, 64, 1024, 1500, 129, 1024, 511 };
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

static int msg_bytes(int seq)
{
    return sizes[seq % NSIZES];
}

/* The byte at offset i of message `seq` from `src`. */
static unsigned char pattern(int src, int seq, int i)
{
    return (unsigned char)(src * 31 + seq * 7 + i * 13 + 1);
}

/* Message `seq` of `src`: its sender and sequence number first, then
 * the pattern. */
static void fill(unsigned char *b, int src, int seq)
{
    int n = msg_bytes(seq);
    for (int i = 0; i < n; i++)
        b[i] = pattern(src, seq, i);
    memcpy(b, &src, sizeof(int));
    memcpy(b + sizeof(int), &seq, sizeof(int));
}

static void check(const unsigned char *b, int n, int src, int seq)
{
    ZT_EQ(n, msg_bytes(seq), "bytes of a message");
    for (int i = 2 * (int)sizeof(int); i < n; i++)
        ZT_CHECK(b[i] == pattern(src, seq, i), "from %d, message %d: byte %d is %d", src, seq,
                 i, b[i]);
}

/* A sender's part of a round: `per` messages to `dst`, tags alternating. */
static void send_stream(int rank, int dst, int first, int per, unsigned char (*m)[MAXB])
{
    MPI_Request q[WINDOW];
    for (int i = 0; i < per; i++) {
        fill(m[i], rank, first + i);
        ZT_OK(MPI_Isend(m[i], msg_bytes(first + i), MPI_BYTE, dst, i % 2 ? TAG_B : TAG_A,
                        MPI_COMM_WORLD, &q[i]));
    }
    ZT_OK(MPI_Waitall(per, q, MPI_STATUSES_IGNORE));
}

/* The receiver's part: `n` messages from any sender, any tag; each
 * sender's sequence numbers must come in order and whole. */
static void recv_stream(int n, int *next, unsigned char (*m)[MAXB])
{
    MPI_Request q[WINDOW];
    MPI_Status st[WINDOW];
    for (int i = 0; i < n; i++)
        ZT_OK(MPI_Irecv(m[i], MAXB, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                        &q[i]));
    ZT_OK(MPI_Waitall(n, q, st));
    for (int i = 0; i < n; i++) {
        int s, seq, cnt;
        memcpy(&s, m[i], sizeof(int));
        memcpy(&seq, m[i] + sizeof(int), sizeof(int));
        ZT_CHECK(s >= 0 && s < 8 && st[i].MPI_SOURCE == s, "source %d / %d", s,
                 st[i].MPI_SOURCE);
        ZT_CHECK(seq == next[s], "from %d: message %d, expected %d", s, seq, next[s]);
        MPI_Get_count(&st[i], MPI_BYTE, &cnt);
        check(m[i], cnt, s, seq);
        next[s]++;
    }
}

/* Messages of tag B arrive while the receiver waits for tag A only: they
 * become unexpected, and probes and receives find them in order. */
static void unexpected_phase(int rank, int size, unsigned char (*m)[MAXB])
{
    int rcv = size - 1, per = 11;
    if (rank != rcv) {
        for (int i = 0; i < per; i++) {
            fill(m[0], rank, i);
            ZT_OK(MPI_Send(m[0], msg_bytes(i), MPI_BYTE, rcv, TAG_B, MPI_COMM_WORLD));
        }
        ZT_OK(MPI_Send(&rank, 1, MPI_INT, rcv, TAG_A, MPI_COMM_WORLD));
        return;
    }
    for (int s = 0; s < size - 1; s++) {
        int any;
        MPI_Request r;
        ZT_OK(MPI_Irecv(&any, 1, MPI_INT, MPI_ANY_SOURCE, TAG_A, MPI_COMM_WORLD, &r));
        ZT_OK(MPI_Waitall(1, &r, MPI_STATUSES_IGNORE));
    }
    for (int s = 0; s < size - 1; s++)
        for (int i = 0; i < per; i++) {
            MPI_Status st;
            int flag, cnt, seq;
            ZT_OK(MPI_Iprobe(s, TAG_B, MPI_COMM_WORLD, &flag, &st));
            ZT_CHECK(flag, "probe finds %d's message %d", s, i);
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            ZT_EQ(cnt, msg_bytes(i), "probed size");
            ZT_OK(MPI_Recv(m[0], MAXB, MPI_BYTE, s, TAG_B, MPI_COMM_WORLD, &st));
            memcpy(&seq, m[0] + sizeof(int), sizeof(int));
            ZT_EQ(seq, i, "unexpected message order");
            check(m[0], cnt, s, i);
        }
}

/* Rank 0 sends one message of every size from 1 to 64 bytes (the inline
 * entries' copies of each width, then the payload area); the receiver
 * has them all posted and checks every byte. */
static void tiny_phase(int rank, int size, unsigned char (*m)[MAXB])
{
    int rcv = size - 1;
    MPI_Request q[64];
    MPI_Status st[64];
    if (rank == 0) {
        for (int i = 0; i < 64; i++) {
            for (int j = 0; j < i + 1; j++)
                m[i][j] = pattern(0, i, j);
            ZT_OK(MPI_Isend(m[i], i + 1, MPI_BYTE, rcv, TAG_A, MPI_COMM_WORLD, &q[i]));
        }
        ZT_OK(MPI_Waitall(64, q, MPI_STATUSES_IGNORE));
    } else if (rank == rcv) {
        for (int i = 0; i < 64; i++) {
            memset(m[i], 0, 80);
            ZT_OK(MPI_Irecv(m[i], 80, MPI_BYTE, 0, TAG_A, MPI_COMM_WORLD, &q[i]));
        }
        ZT_OK(MPI_Waitall(64, q, st));
        for (int i = 0; i < 64; i++) {
            int cnt;
            MPI_Get_count(&st[i], MPI_BYTE, &cnt);
            ZT_EQ(cnt, i + 1, "size of a tiny message");
            for (int j = 0; j < 80; j++)
                ZT_CHECK(m[i][j] == (j <= i ? pattern(0, i, j) : 0),
                         "message of %d bytes: byte %d is %d", i + 1, j, m[i][j]);
        }
    }
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* A 1 KiB send that no receive matches is cancelled; the receiver, which
 * polled meanwhile for something else, never sees it. */
static void cancel_phase(int rank, int size, unsigned char (*m)[MAXB])
{
    int rcv = size - 1, go = 0;
    if (rank == 0) {
        int flag;
        MPI_Request r;
        MPI_Status st;
        ZT_OK(MPI_Isend(m[0], 1024, MPI_BYTE, rcv, TAG_CANCEL, MPI_COMM_WORLD, &r));
        ZT_OK(MPI_Cancel(&r));
        ZT_OK(MPI_Wait(&r, &st));
        ZT_OK(MPI_Test_cancelled(&st, &flag));
        ZT_CHECK(flag, "an unmatched 1 KiB send is cancelled");
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

/* Rank 0 sends 1 KiB into the receiver's 100-byte receive: the receive
 * fails with MPI_ERR_TRUNCATE (MPI_ERRORS_RETURN), the first 100 bytes
 * delivered, and the next message arrives intact. */
static void truncate_phase(int rank, int size, unsigned char (*m)[MAXB])
{
    int rcv = size - 1;
    if (rank == 0) {
        fill(m[0], 0, 1); /* 1024 bytes */
        ZT_OK(MPI_Send(m[0], 1024, MPI_BYTE, rcv, TAG_TRUNC, MPI_COMM_WORLD));
        fill(m[0], 0, 3); /* 700 bytes */
        ZT_OK(MPI_Send(m[0], 700, MPI_BYTE, rcv, TAG_TRUNC, MPI_COMM_WORLD));
    } else if (rank == rcv) {
        MPI_Request q[2];
        MPI_Status st[2];
        /* zmpi raises MPI_Waitall's MPI_ERR_IN_STATUS on MPI_COMM_SELF, the
         * receive's own error on its communicator: both return. */
        ZT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        ZT_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
        ZT_OK(MPI_Irecv(m[0], 100, MPI_BYTE, 0, TAG_TRUNC, MPI_COMM_WORLD, &q[0]));
        ZT_OK(MPI_Irecv(m[1], MAXB, MPI_BYTE, 0, TAG_TRUNC, MPI_COMM_WORLD, &q[1]));
        int rc = MPI_Waitall(2, q, st), cls;
        MPI_Error_class(rc, &cls);
        ZT_EQ(cls, MPI_ERR_IN_STATUS, "Waitall over a truncated receive");
        MPI_Error_class(st[0].MPI_ERROR, &cls);
        ZT_EQ(cls, MPI_ERR_TRUNCATE, "the truncated receive's error");
        ZT_EQ(st[1].MPI_ERROR, MPI_SUCCESS, "the next receive's error");
        for (int i = 2 * (int)sizeof(int); i < 100; i++)
            ZT_CHECK(m[0][i] == pattern(0, 1, i), "truncated byte %d", i);
        int cnt;
        MPI_Get_count(&st[1], MPI_BYTE, &cnt);
        check(m[1], cnt, 0, 3);
        ZT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
        ZT_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
    }
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    int rank, size, next[8] = { 0 };
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ZT_CHECK(size >= 2 && size <= 9, "2 to 9 ranks");
    unsigned char (*m)[MAXB] = malloc(sizeof(*m) * WINDOW);
    ZT_CHECK(m != NULL, "out of memory");
    MPI_Info hints;
    ZT_OK(MPI_Info_create(&hints));
    ZT_OK(MPI_Info_set(hints, "zmpi_lb", "rotate"));
    int nsend = size - 1, per = WINDOW / nsend;
    for (int round = 0; round < ROUNDS; round++) {
        if (rank == size - 1)
            recv_stream(nsend * per, next, m);
        else
            send_stream(rank, size - 1, round * per, per, m);
        /* Every tenth round the ranks change workers: a sender's entries
         * of the last round may still be in the old worker's ring. */
        if (round % 10 == 9)
            ZT_OK(ZMPI_Migrate(hints));
    }
    ZT_OK(MPI_Info_free(&hints));
    for (int i = 0; i < 20; i++)
        tiny_phase(rank, size, m);
    unexpected_phase(rank, size, m);
    cancel_phase(rank, size, m);
    truncate_phase(rank, size, m);
    free(m);
    MPI_Finalize();
    return 0;
}
