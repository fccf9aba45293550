/*
 * p2p_ring_loan.c: MPI_Isend's loans (src/p2p/ring.c, "Loans"): a
 * non-blocking send of 256 bytes or more to a receiver that polls on
 * another worker leaves only a descriptor of its buffer in the ring, and
 * the receiver copies from that buffer.  The last rank receives, alone on
 * its worker; the others send.  Checks:
 *   - a sender that waits for its send (MPI_Wait, or MPI_Test in a loop)
 *     before the receiver posts the receive still completes: the
 *     receiver runs the program without calling MPI until every sender's
 *     wait has ended, so only the sender taking its message back can end
 *     it;
 *   - the same with the wait in a thread of the sending rank
 *     (MPI_THREAD_MULTIPLE), which is not the rank's ULT;
 *   - lent, copied and blocking sends mixed, with MPI_ANY_SOURCE and
 *     MPI_ANY_TAG receives and blocking ones: per-sender order and every
 *     byte;
 *   - an unmatched lent send can be cancelled, and nothing arrives;
 *   - senders move between workers (ZMPI_Migrate) with lent sends still
 *     unread, and the messages arrive in order.
 * The layout must leave the last rank alone on its worker (2x2, 3x2,
 * 5x3 with block placement): while it runs without MPI calls, ranks that
 * share its worker cannot run at all, loans or not (MPI would be needed
 * to let them), and the job would hang.
 */
#include "zt.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#define WINDOW 32
#define MAXB 4096
#define TAG_A 31
#define TAG_B 32
#define TAG_GO 33
#define TAG_CANCEL 34
#define TAG_WARM 35

/* Ranks are threads of one process: the receiver watches this counter,
 * which senders raise once their waits have ended, without calling MPI. */
static _Atomic int senders_done;

/* Sizes of the mixed stream: lent (256 B and up), copied through the
 * ring's entries or area, and the limits around loan_min. */
static const int sizes[] = { 1024, 8, 4096, 300, 64, 255, 256, 2000, 1500, 100, 1024, 3000 };
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

/* A stream of small receives makes the receiver ask senders for rings
 * (ring.c, zm_p2p_ring_decide). */
static void warm(int rank, int size)
{
    int rcv = size - 1, per = 2 * WINDOW, v = 0;
    MPI_Request q[WINDOW];
    if (rank != rcv) {
        for (int i = 0; i < per; i++)
            ZT_OK(MPI_Send(&v, 1, MPI_INT, rcv, TAG_WARM, MPI_COMM_WORLD));
        return;
    }
    static int sink[WINDOW];
    for (int left = per * (size - 1); left > 0; left -= WINDOW) {
        int n = left < WINDOW ? left : WINDOW;
        for (int i = 0; i < n; i++)
            ZT_OK(MPI_Irecv(&sink[i], 1, MPI_INT, MPI_ANY_SOURCE, TAG_WARM, MPI_COMM_WORLD,
                            &q[i]));
        ZT_OK(MPI_Waitall(n, q, MPI_STATUSES_IGNORE));
    }
}

/* The receiver's side of a phase in which senders wait before their
 * receives exist: post a receive (it polls: senders may lend), run
 * without MPI until every sender's wait is over, then take the messages
 * (`per` of `bytes` from each sender, checked) and end the phase. */
static void recv_after_waits(int size, int per, int bytes, unsigned char *buf, int phase)
{
    MPI_Request go;
    int v, ready = 1;
    ZT_OK(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, TAG_GO, MPI_COMM_WORLD, &go));
    /* Polling now: the senders' Isends find it so. */
    for (int s = 0; s < size - 1; s++)
        ZT_OK(MPI_Send(&ready, 1, MPI_INT, s, TAG_WARM, MPI_COMM_WORLD));
    while (atomic_load(&senders_done) < phase * (size - 1))
        ; /* the program's own work, no MPI call */
    for (int s = 0; s < size - 1; s++)
        for (int i = 0; i < per; i++) {
            MPI_Status st;
            ZT_OK(MPI_Recv(buf, MAXB, MPI_BYTE, s, TAG_A, MPI_COMM_WORLD, &st));
            ZT_CHECK_STATUS(st, s, TAG_A, bytes);
            ZT_CHECK_PAYLOAD(buf, (size_t)bytes, s, phase * 1000 + i);
        }
    for (int s = 0; s < size - 1; s++) {
        ZT_OK(MPI_Wait(&go, MPI_STATUS_IGNORE));
        if (s + 1 < size - 1)
            ZT_OK(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, TAG_GO, MPI_COMM_WORLD, &go));
    }
}

/* Thread of a sending rank that waits for its lent sends. */
static void *wait_thread(void *arg)
{
    MPI_Request *q = arg;
    ZT_OK(MPI_Waitall(4, q, MPI_STATUSES_IGNORE));
    return NULL;
}

/* Send `per` messages of `bytes` to the receiver and wait for them in
 * the way `how` says (0 MPI_Wait, 1 MPI_Test loop, 2 another thread)
 * before the receiver takes them. */
static void send_then_wait(int rank, int size, int per, int bytes, unsigned char (*m)[MAXB],
                           int phase, int how)
{
    int rcv = size - 1, one = 1;
    MPI_Request q[4];
    ZT_CHECK(per <= 4, "at most 4 sends");
    /* The receiver posts its receive for "go" before it says ready: the
     * sends find it polling. */
    ZT_OK(MPI_Recv(&one, 1, MPI_INT, rcv, TAG_WARM, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 0; i < per; i++) {
        zt_fill(m[i], (size_t)bytes, rank, phase * 1000 + i);
        ZT_OK(MPI_Isend(m[i], bytes, MPI_BYTE, rcv, TAG_A, MPI_COMM_WORLD, &q[i]));
    }
    if (how == 0) {
        for (int i = 0; i < per; i++)
            ZT_OK(MPI_Wait(&q[i], MPI_STATUS_IGNORE));
    } else if (how == 1) {
        int flag = 0;
        while (!flag)
            ZT_OK(MPI_Testall(per, q, &flag, MPI_STATUSES_IGNORE));
    } else {
        pthread_t t;
        ZT_CHECK(per == 4, "the thread waits for 4 sends");
        ZT_EQ(pthread_create(&t, NULL, wait_thread, q), 0, "pthread_create");
        ZT_EQ(pthread_join(t, NULL), 0, "pthread_join");
    }
    /* The buffers are ours again: the receiver must have what was sent. */
    for (int i = 0; i < per; i++)
        memset(m[i], 0xee, (size_t)bytes);
    atomic_fetch_add(&senders_done, 1);
    ZT_OK(MPI_Send(&one, 1, MPI_INT, rcv, TAG_GO, MPI_COMM_WORLD));
}

static void waits_before_receives(int rank, int size, unsigned char (*m)[MAXB], int *phase)
{
    static const int bytes[] = { 1024, 4096, 256, 1024 };
    for (int how = 0; how < 3; how++)
        for (int k = 0; k < 4; k++) {
            int per = how == 2 ? 4 : 1 + k % 3;
            (*phase)++;
            warm(rank, size);
            if (rank == size - 1) {
                recv_after_waits(size, per, bytes[k], m[0], *phase);
            } else {
                send_then_wait(rank, size, per, bytes[k], m, *phase, how);
            }
            ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
        }
}

/* A sender's part of the mixed stream: messages numbered from `first`,
 * windows of non-blocking sends with every fifth a blocking one. */
static void mixed_send(int rank, int rcv, int first, int n, unsigned char (*m)[MAXB])
{
    MPI_Request q[WINDOW];
    int nq = 0;
    for (int i = 0; i < n; i++) {
        int seq = first + i, b = sizes[seq % NSIZES];
        zt_fill(m[i], (size_t)b, rank, seq);
        if (i % 5 == 4)
            ZT_OK(MPI_Send(m[i], b, MPI_BYTE, rcv, seq % 2 ? TAG_B : TAG_A, MPI_COMM_WORLD));
        else
            ZT_OK(MPI_Isend(m[i], b, MPI_BYTE, rcv, seq % 2 ? TAG_B : TAG_A, MPI_COMM_WORLD,
                            &q[nq++]));
    }
    ZT_OK(MPI_Waitall(nq, q, MPI_STATUSES_IGNORE));
}

/* The receiver's part: n messages from anyone, with any tag, in windows
 * of non-blocking receives or (odd rounds) one blocking receive at a
 * time; each sender's must come in order and whole. */
static void mixed_recv(int n, int *next, unsigned char (*m)[MAXB], int blocking)
{
    MPI_Request q[WINDOW];
    MPI_Status st[WINDOW];
    for (int i = 0; i < n; i++) {
        if (blocking)
            ZT_OK(MPI_Recv(m[i], MAXB, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                           &st[i]));
        else
            ZT_OK(MPI_Irecv(m[i], MAXB, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                            MPI_COMM_WORLD, &q[i]));
    }
    if (!blocking)
        ZT_OK(MPI_Waitall(n, q, st));
    for (int i = 0; i < n; i++) {
        int s = st[i].MPI_SOURCE, seq = next[s]++, b = sizes[seq % NSIZES];
        ZT_CHECK_STATUS(st[i], s, seq % 2 ? TAG_B : TAG_A, b);
        ZT_CHECK_PAYLOAD(m[i], (size_t)b, s, seq);
    }
}

/* Rounds of the mixed stream; the ranks change workers every fourth
 * round, senders with their last window's loans maybe still unread. */
static void mixed_phase(int rank, int size, unsigned char (*m)[MAXB], MPI_Info hints)
{
    int rcv = size - 1, next[8] = { 0 }, rounds = 24;
    for (int round = 0; round < rounds; round++) {
        if (rank != rcv)
            mixed_send(rank, rcv, round * WINDOW, WINDOW, m);
        else
            for (int s = 0; s < size - 1; s++)
                mixed_recv(WINDOW, next, m, round % 2);
        if (round % 4 == 3)
            ZT_OK(ZMPI_Migrate(hints));
    }
    if (rank == rcv)
        for (int s = 0; s < size - 1; s++)
            ZT_EQ(next[s], rounds * WINDOW, "messages from a sender");
}

/* Lent sends left unread across ZMPI_Migrate: each sender starts a
 * window, all ranks change workers, then the receiver takes it. */
static void migrate_phase(int rank, int size, unsigned char (*m)[MAXB], MPI_Info hints)
{
    int rcv = size - 1;
    MPI_Request q[8];
    MPI_Status st;
    warm(rank, size);
    if (rank != rcv)
        for (int i = 0; i < 8; i++) {
            zt_fill(m[i], 1024, rank, 5000 + i);
            ZT_OK(MPI_Isend(m[i], 1024, MPI_BYTE, rcv, TAG_A, MPI_COMM_WORLD, &q[i]));
        }
    ZT_OK(ZMPI_Migrate(hints));
    if (rank != rcv) {
        ZT_OK(MPI_Waitall(8, q, MPI_STATUSES_IGNORE));
        return;
    }
    for (int s = 0; s < size - 1; s++)
        for (int i = 0; i < 8; i++) {
            ZT_OK(MPI_Recv(m[0], MAXB, MPI_BYTE, s, TAG_A, MPI_COMM_WORLD, &st));
            ZT_CHECK_STATUS(st, s, TAG_A, 1024);
            ZT_CHECK_PAYLOAD(m[0], 1024, s, 5000 + i);
        }
}

/* An unmatched lent send is cancelled: its receiver polls for another
 * message meanwhile, and never sees it. */
static void cancel_phase(int rank, int size, unsigned char (*m)[MAXB])
{
    int rcv = size - 1, v = 0, flag;
    warm(rank, size);
    if (rank == rcv) {
        MPI_Request go;
        ZT_OK(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, TAG_GO, MPI_COMM_WORLD, &go));
        ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
        for (int s = 0; s < size - 1; s++) {
            ZT_OK(MPI_Wait(&go, MPI_STATUS_IGNORE));
            if (s + 1 < size - 1)
                ZT_OK(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, TAG_GO, MPI_COMM_WORLD, &go));
        }
        ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
        ZT_OK(MPI_Iprobe(MPI_ANY_SOURCE, TAG_CANCEL, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        ZT_CHECK(!flag, "a cancelled send arrived");
        return;
    }
    MPI_Request q;
    MPI_Status st;
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    zt_fill(m[0], 2048, rank, 7000);
    ZT_OK(MPI_Isend(m[0], 2048, MPI_BYTE, rcv, TAG_CANCEL, MPI_COMM_WORLD, &q));
    ZT_OK(MPI_Cancel(&q));
    ZT_OK(MPI_Wait(&q, &st));
    ZT_OK(MPI_Test_cancelled(&st, &flag));
    ZT_CHECK(flag, "an unmatched send could not be cancelled");
    ZT_OK(MPI_Send(&v, 1, MPI_INT, rcv, TAG_GO, MPI_COMM_WORLD));
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    int rank, size, provided, phase = 0;
    ZT_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    ZT_EQ(provided, MPI_THREAD_MULTIPLE, "thread level");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ZT_CHECK(size >= 2 && size <= 8, "2 to 8 ranks");
    unsigned char(*m)[MAXB] = zt_malloc(sizeof(*m) * WINDOW);
    MPI_Info hints;
    ZT_OK(MPI_Info_create(&hints));
    ZT_OK(MPI_Info_set(hints, "zmpi_lb", "rotate"));
    waits_before_receives(rank, size, m, &phase);
    mixed_phase(rank, size, m, hints);
    migrate_phase(rank, size, m, hints);
    cancel_phase(rank, size, m);
    ZT_OK(MPI_Info_free(&hints));
    free(m);
    MPI_Finalize();
    return 0;
}
