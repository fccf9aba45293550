/*
 * p2p_ring_packed.c: small messages packed several to a cache line in
 * the rings of a receiver that polls (src/p2p/ring.c).  The last rank
 * receives, alone on its worker; the others send from the other workers.
 * Checks what packing could break:
 *   - every size from 0 to 64 bytes and a few larger ones, mixed, on two
 *     communicators, with tags that repeat in runs (entries that carry
 *     their envelope and entries that reuse the one before), received
 *     with MPI_ANY_SOURCE and MPI_ANY_TAG: order per sender and
 *     communicator, tag, size and every byte;
 *   - enough tiny messages that each sender's ring (a byte ring of
 *     8 KiB) wraps hundreds of times, entries of several sizes meeting
 *     its end at different offsets;
 *   - receives of different tags posted one behind another, which
 *     leave the rings to MPI_Waitall: MPI's matching order holds
 *     (selector_phase);
 *   - cancel of a tiny send packed between two others of the same
 *     envelope: the receiver gets the other two and never the cancelled
 *     one.
 */
#include "zt.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW 64
#define PER 1200      /* messages of the mixed phase, per sender */
#define TINY (4688 * WINDOW) /* messages of the wrap phase, per sender */
#define TAG_BASE 100
#define TAG_GO 30
#define TAG_CANCEL 31
#define TAG_SEL_A 32
#define TAG_SEL_B 33
#define SEL_K 16
#define SEL_ROUNDS 200

/* Sizes a sender cycles through: inline entries of every packing, the
 * payload area, and (1500) the locked path. */
static const int sizes[] = { 0,  1,  3,  4,  5,  7,  8,  9,   12,  13,  16, 20, 24,
                             31, 32, 33, 40, 43, 44, 45, 48,  60,  64,  8,  8,  0,
                             100, 8, 12, 1024, 4, 44, 1500, 2, 16, 200, 8 };
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))
#define MAXB 1500

static int msg_bytes(int seq)
{
    return sizes[seq % NSIZES];
}

/* Tags repeat in runs of 1 to 4, so entries alternate between carrying
 * their envelope and reusing the previous one's. */
static int msg_tag(int seq)
{
    return TAG_BASE + (seq / (1 + seq % 4)) % 3;
}

/* Message seq goes to communicator 1 (a duplicate) in runs of 5. */
static int msg_comm(int seq)
{
    return (seq / 5) % 2;
}

static unsigned char pattern(int src, int seq, int i)
{
    return (unsigned char)(src * 29 + seq * 11 + i * 7 + 3);
}

static void sender(int rank, int rcv, MPI_Comm comm[2])
{
    unsigned char (*buf)[MAXB] = malloc(sizeof(*buf) * WINDOW);
    MPI_Request q[WINDOW];
    ZT_CHECK(buf != NULL, "out of memory");
    for (int first = 0; first < PER; first += WINDOW) {
        int n = PER - first < WINDOW ? PER - first : WINDOW;
        for (int i = 0; i < n; i++) {
            int seq = first + i;
            for (int b = 0; b < msg_bytes(seq); b++)
                buf[i][b] = pattern(rank, seq, b);
            ZT_OK(MPI_Isend(buf[i], msg_bytes(seq), MPI_BYTE, rcv, msg_tag(seq),
                            comm[msg_comm(seq)], &q[i]));
        }
        ZT_OK(MPI_Waitall(n, q, MPI_STATUSES_IGNORE));
    }
    free(buf);
}

/* Check message `got` (status st) from communicator c against the next
 * one its sender sent there. */
static void check(const unsigned char *got, const MPI_Status *st, int c, int (*next)[2])
{
    int s = st->MPI_SOURCE, cnt;
    int seq = next[s][c];
    while (seq < PER && msg_comm(seq) != c)
        seq++;
    ZT_CHECK(seq < PER, "from %d on comm %d: more messages than sent", s, c);
    MPI_Get_count(st, MPI_BYTE, &cnt);
    ZT_CHECK(cnt == msg_bytes(seq), "from %d seq %d: %d bytes, expected %d", s, seq, cnt,
             msg_bytes(seq));
    ZT_CHECK(st->MPI_TAG == msg_tag(seq), "from %d seq %d: tag %d, expected %d", s, seq,
             st->MPI_TAG, msg_tag(seq));
    for (int b = 0; b < cnt; b++)
        ZT_CHECK(got[b] == pattern(s, seq, b), "from %d seq %d: byte %d differs", s, seq, b);
    next[s][c] = seq + 1;
}

static void receiver(int nsend, MPI_Comm comm[2])
{
    unsigned char (*buf)[WINDOW][MAXB] = malloc(sizeof(*buf) * 2);
    int next[16][2] = { { 0 } }, left[2] = { 0, 0 };
    ZT_CHECK(buf != NULL, "out of memory");
    for (int seq = 0; seq < PER; seq++)
        left[msg_comm(seq)] += nsend;
    while (left[0] + left[1] > 0) {
        MPI_Request q[2 * WINDOW];
        MPI_Status st[2 * WINDOW];
        int n[2];
        for (int c = 0; c < 2; c++) {
            n[c] = left[c] < WINDOW ? left[c] : WINDOW;
            for (int i = 0; i < n[c]; i++)
                ZT_OK(MPI_Irecv(buf[c][i], MAXB, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                                comm[c], &q[c * WINDOW + i]));
            for (int i = n[c]; i < WINDOW; i++)
                q[c * WINDOW + i] = MPI_REQUEST_NULL;
        }
        ZT_OK(MPI_Waitall(2 * WINDOW, q, st));
        /* Receives of one communicator complete in the order posted, so
         * each sender's messages are checked in the order they came. */
        for (int c = 0; c < 2; c++) {
            for (int i = 0; i < n[c]; i++)
                check(buf[c][i], &st[c * WINDOW + i], c, next);
            left[c] -= n[c];
        }
    }
    free(buf);
}

/* Tiny messages in windows, 8 bytes and, every ninth, none (12 and 4
 * bytes an entry): each sender's ring wraps some 400 times. */
static void wrap_phase(int rank, int size)
{
    int rcv = size - 1;
    uint64_t v[WINDOW];
    MPI_Request q[WINDOW];
    if (rank != rcv) {
        for (int first = 0; first < TINY; first += WINDOW) {
            for (int i = 0; i < WINDOW; i++) {
                v[i] = (uint64_t)rank << 32 | (uint64_t)(first + i);
                ZT_OK(MPI_Isend(&v[i], i % 9 == 8 ? 0 : 8, MPI_BYTE, rcv, 5, MPI_COMM_WORLD,
                                &q[i]));
            }
            ZT_OK(MPI_Waitall(WINDOW, q, MPI_STATUSES_IGNORE));
        }
        return;
    }
    int next[16] = { 0 };
    for (int got = 0; got < TINY * (size - 1); got += WINDOW) {
        MPI_Status st[WINDOW];
        for (int i = 0; i < WINDOW; i++) {
            v[i] = UINT64_MAX;
            ZT_OK(MPI_Irecv(&v[i], 8, MPI_BYTE, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &q[i]));
        }
        ZT_OK(MPI_Waitall(WINDOW, q, st));
        for (int i = 0; i < WINDOW; i++) {
            int s = st[i].MPI_SOURCE, cnt, seq = next[s]++;
            MPI_Get_count(&st[i], MPI_BYTE, &cnt);
            ZT_CHECK(cnt == (seq % WINDOW % 9 == 8 ? 0 : 8), "wrap: %d bytes from %d", cnt, s);
            if (cnt)
                ZT_CHECK(v[i] == ((uint64_t)s << 32 | (uint64_t)seq),
                         "wrap: from %d expected %d, got %llx", s, seq,
                         (unsigned long long)v[i]);
        }
    }
}

/* Tag of message seq of every sender in the selector phase. */
static int sel_tag(int seq)
{
    return (seq * 7 / 3) % 2 ? TAG_SEL_A : TAG_SEL_B;
}

/* Per window, every sender sends SEL_K messages of tags A and B; the
 * receiver posts as many receives, specific ones for all but two of each
 * tag (A and B interleaved), then MPI_ANY_TAG ones, all of MPI_ANY_SOURCE,
 * one after another without a wait in between (so all but the first are
 * posted behind others and leave the rings to MPI_Waitall).  MPI's
 * matching must hold whatever arrived when: each message matches its
 * receive's tag, and of two receives taking messages of one sender, the
 * one posted first takes the earlier message whenever the later message
 * would have matched it too. */
static void selector_phase(int rank, int size)
{
    int rcv = size - 1, nsend = size - 1, ack = 0;
    if (rank != rcv) {
        for (int w = 0; w < SEL_ROUNDS; w++) {
            int v[SEL_K][2];
            MPI_Request q[SEL_K];
            for (int i = 0; i < SEL_K; i++) {
                v[i][0] = rank;
                v[i][1] = w * SEL_K + i;
                ZT_OK(MPI_Isend(v[i], 2, MPI_INT, rcv, sel_tag(v[i][1]), MPI_COMM_WORLD, &q[i]));
            }
            ZT_OK(MPI_Waitall(SEL_K, q, MPI_STATUSES_IGNORE));
            ZT_OK(MPI_Recv(&ack, 1, MPI_INT, rcv, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
        return;
    }
    int n = nsend * SEL_K, v[16 * SEL_K][2], sel[16 * SEL_K];
    MPI_Request q[16 * SEL_K];
    for (int w = 0; w < SEL_ROUNDS; w++) {
        int na = 0, nb = 0, k = 0;
        for (int i = 0; i < SEL_K; i++)
            sel_tag(w * SEL_K + i) == TAG_SEL_A ? na++ : nb++;
        na = na * nsend - 2;
        nb = nb * nsend - 2;
        for (; na > 0 || nb > 0; k++)
            sel[k] = (k % 2 && nb > 0) || na <= 0 ? (nb--, TAG_SEL_B) : (na--, TAG_SEL_A);
        for (; k < n; k++)
            sel[k] = MPI_ANY_TAG;
        for (int i = 0; i < n; i++)
            ZT_OK(MPI_Irecv(v[i], 2, MPI_INT, MPI_ANY_SOURCE, sel[i], MPI_COMM_WORLD, &q[i]));
        ZT_OK(MPI_Waitall(n, q, MPI_STATUSES_IGNORE));
        for (int i = 0; i < n; i++) {
            ZT_CHECK(v[i][0] >= 0 && v[i][0] < nsend && v[i][1] / SEL_K == w,
                     "selector: receive %d got %d/%d in window %d", i, v[i][0], v[i][1], w);
            ZT_CHECK(sel[i] == MPI_ANY_TAG || sel[i] == sel_tag(v[i][1]),
                     "selector: receive %d for tag %d got one of tag %d", i, sel[i],
                     sel_tag(v[i][1]));
            for (int j = i + 1; j < n; j++)
                if (v[j][0] == v[i][0] && (sel[i] == MPI_ANY_TAG || sel[i] == sel_tag(v[j][1])))
                    ZT_CHECK(v[i][1] < v[j][1], "selector: receive %d took %d's message %d, "
                             "later receive %d its earlier %d", i, v[i][0], v[i][1], j,
                             v[j][1]);
        }
        for (int s = 0; s < nsend; s++)
            ZT_OK(MPI_Send(&ack, 1, MPI_INT, s, TAG_GO, MPI_COMM_WORLD));
    }
}

/* Rank 0 packs three 4-byte sends of one envelope and cancels the middle
 * one; the receiver, which polled meanwhile for another message, gets
 * the first and the third. */
static void cancel_phase(int rank, int size)
{
    int rcv = size - 1, go = 0;
    if (rank == 0) {
        int v[3] = { 1, 2, 3 }, flag;
        MPI_Request r[3];
        MPI_Status st;
        for (int i = 0; i < 3; i++)
            ZT_OK(MPI_Isend(&v[i], 1, MPI_INT, rcv, TAG_CANCEL, MPI_COMM_WORLD, &r[i]));
        ZT_OK(MPI_Cancel(&r[1]));
        ZT_OK(MPI_Wait(&r[1], &st));
        ZT_OK(MPI_Test_cancelled(&st, &flag));
        ZT_CHECK(flag, "an unmatched packed send is cancelled");
        ZT_OK(MPI_Waitall(1, &r[0], MPI_STATUSES_IGNORE));
        ZT_OK(MPI_Waitall(1, &r[2], MPI_STATUSES_IGNORE));
        ZT_OK(MPI_Send(&go, 1, MPI_INT, rcv, TAG_GO, MPI_COMM_WORLD));
    } else if (rank == rcv) {
        MPI_Request r;
        int flag, a = 0, b = 0;
        ZT_OK(MPI_Irecv(&go, 1, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD, &r));
        ZT_OK(MPI_Waitall(1, &r, MPI_STATUSES_IGNORE));
        ZT_OK(MPI_Recv(&a, 1, MPI_INT, 0, TAG_CANCEL, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        ZT_OK(MPI_Recv(&b, 1, MPI_INT, 0, TAG_CANCEL, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        ZT_CHECK(a == 1 && b == 3, "the sends around the cancelled one: %d %d", a, b);
        ZT_OK(MPI_Iprobe(0, TAG_CANCEL, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        ZT_CHECK(!flag, "the cancelled message is gone");
    }
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ZT_CHECK(size >= 2 && size <= 16, "2 to 16 ranks");
    MPI_Comm comm[2] = { MPI_COMM_WORLD, MPI_COMM_NULL };
    ZT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm[1]));
    if (rank == size - 1)
        receiver(size - 1, comm);
    else
        sender(rank, size - 1, comm);
    /* The next phase's messages must not meet this one's ANY_TAG receives. */
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    wrap_phase(rank, size);
    selector_phase(rank, size);
    for (int i = 0; i < 10; i++)
        cancel_phase(rank, size);
    ZT_OK(MPI_Comm_free(&comm[1]));
    MPI_Finalize();
    return 0;
}
