/*
 * defects_cancel.c: MPI_Cancel of sends (issue 23, item 3).
 *
 * Ranks work in pairs (2k sends to 2k + 1; an odd last rank, and a
 * one-rank job, pairs with itself).
 *   - a send that no receive has matched is withdrawn, in every mode and
 *     size: tiny (the receiver's mail slot), small and medium (eager),
 *     large (rendezvous), standard, synchronous, ready and buffered, and
 *     persistent: MPI_Test_cancelled says true, the receiver never sees
 *     the message (an MPI_Iprobe after the cancel finds nothing and the
 *     next message with the same envelope is the one received), and a
 *     cancelled MPI_Ibsend gives its buffer space back;
 *   - a send that a receive matched is not cancelled: MPI_Test_cancelled
 *     says false and the receive has the data;
 *   - cancels racing with a receiver that keeps receiving (on another
 *     worker when there are two): every message is either cancelled or
 *     received exactly once, intact, in order.
 */
#include "zt.h"

enum { T_CASE = 10, T_MARK = 11, T_RACE = 12, T_DONE = 13 };

static const int sizes[] = { 8, 200, 9000, 100000 };
#define NSIZES 4

/* Send modes tested. */
enum { M_STD, M_SYNC, M_READY, M_BUF, M_PERSIST, M_PERSIST_SYNC, M_PERSIST_BUF, NMODES };
static const char *const mode_names[NMODES] = { "MPI_Isend", "MPI_Issend", "MPI_Irsend",
                                                "MPI_Ibsend", "MPI_Send_init",
                                                "MPI_Ssend_init", "MPI_Bsend_init" };

/* Start a send of `n` bytes in `mode`.  An unmatched ready send is
 * erroneous in the standard; zmpi treats it like a standard one, and the
 * test checks that it can be withdrawn too. */
static void start_send(int mode, void *buf, int n, int dest, int tag, MPI_Request *r)
{
    switch (mode) {
    case M_STD:
        ZT_OK(MPI_Isend(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, r));
        break;
    case M_SYNC:
        ZT_OK(MPI_Issend(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, r));
        break;
    case M_READY:
        ZT_OK(MPI_Irsend(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, r));
        break;
    case M_BUF:
        ZT_OK(MPI_Ibsend(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, r));
        break;
    case M_PERSIST:
        ZT_OK(MPI_Send_init(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, r));
        ZT_OK(MPI_Start(r));
        break;
    case M_PERSIST_SYNC:
        ZT_OK(MPI_Ssend_init(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, r));
        ZT_OK(MPI_Start(r));
        break;
    default:
        ZT_OK(MPI_Bsend_init(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, r));
        ZT_OK(MPI_Start(r));
        break;
    }
}

/* Cancel r, complete it and return what MPI_Test_cancelled says. */
static int cancel_wait(MPI_Request *r)
{
    MPI_Status st;
    int flag = -1;
    ZT_OK(MPI_Cancel(r));
    ZT_OK(MPI_Wait(r, &st));
    ZT_OK(MPI_Test_cancelled(&st, &flag));
    return flag;
}

/* One unmatched send cancelled, then a marker with the same envelope. */
static void unmatched(int me, int peer, int mode, int n, char *sbuf, char *rbuf)
{
    int sender = me <= peer, receiver = me >= peer;
    MPI_Request r = MPI_REQUEST_NULL;
    if (sender) {
        zt_fill(sbuf, (size_t)n, me, 1);
        start_send(mode, sbuf, n, peer, T_CASE, &r);
        int c = cancel_wait(&r);
        ZT_CHECK(c == 1, "%s of %d bytes not matched by any receive was not cancelled",
                 mode_names[mode], n);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (receiver) {
        int flag = 1;
        ZT_OK(MPI_Iprobe(peer, T_CASE, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        ZT_CHECK(flag == 0, "a cancelled %s of %d bytes still arrived", mode_names[mode], n);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* The next message with the same envelope is the one received; a
     * cancelled persistent request is started again. */
    zt_fill(sbuf, (size_t)n, me, 2);
    if (sender && mode >= M_PERSIST)
        ZT_OK(MPI_Start(&r));
    else if (sender)
        start_send(mode == M_BUF ? M_BUF : M_STD, sbuf, n, peer, T_CASE, &r);
    if (receiver) {
        MPI_Status st;
        memset(rbuf, 0, (size_t)n);
        ZT_OK(MPI_Recv(rbuf, n, MPI_BYTE, peer, T_CASE, MPI_COMM_WORLD, &st));
        ZT_CHECK_PAYLOAD(rbuf, n, peer, 2);
    }
    if (sender) {
        ZT_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        if (r != MPI_REQUEST_NULL)
            ZT_OK(MPI_Request_free(&r));
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* A send already matched and received: cancelling it does nothing. */
static void matched(int me, int peer, int mode, int n, char *sbuf, char *rbuf)
{
    int sender = me <= peer, receiver = me >= peer;
    MPI_Request r = MPI_REQUEST_NULL, rr = MPI_REQUEST_NULL;
    if (sender) {
        zt_fill(sbuf, (size_t)n, me, 3);
        if (mode == M_READY && me == peer)
            mode = M_STD; /* a ready send needs its receive first */
        if (me == peer)
            ZT_OK(MPI_Irecv(rbuf, n, MPI_BYTE, peer, T_CASE, MPI_COMM_WORLD, &rr));
        if (mode != M_READY)
            start_send(mode, sbuf, n, peer, T_CASE, &r);
    }
    if (receiver && me != peer) {
        if (mode == M_READY) {
            ZT_OK(MPI_Irecv(rbuf, n, MPI_BYTE, peer, T_CASE, MPI_COMM_WORLD, &rr));
            ZT_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, T_MARK, MPI_COMM_WORLD));
        } else {
            ZT_OK(MPI_Recv(rbuf, n, MPI_BYTE, peer, T_CASE, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
    }
    if (sender && mode == M_READY) {
        ZT_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, T_MARK, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        start_send(mode, sbuf, n, peer, T_CASE, &r);
    }
    if (rr != MPI_REQUEST_NULL)
        ZT_OK(MPI_Wait(&rr, MPI_STATUS_IGNORE));
    if (receiver)
        ZT_CHECK_PAYLOAD(rbuf, n, peer, 3);
    MPI_Barrier(MPI_COMM_WORLD);
    if (sender) {
        int c = cancel_wait(&r);
        ZT_CHECK(c == 0, "%s of %d bytes that a receive matched was cancelled",
                 mode_names[mode], n);
        if (r != MPI_REQUEST_NULL)
            ZT_OK(MPI_Request_free(&r));
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* A cancelled Ibsend returns its space: the buffer holds one message, so
 * the second Ibsend fits only if the first's space came back. */
static void bsend_space(int me, int peer, char *sbuf, char *rbuf)
{
    int n = 5000, sz = n + MPI_BSEND_OVERHEAD;
    char *att = zt_malloc((size_t)sz);
    void *back;
    MPI_Request r;
    if (me <= peer) {
        ZT_OK(MPI_Buffer_attach(att, sz));
        for (int i = 0; i < 20; i++) {
            zt_fill(sbuf, (size_t)n, me, 100 + i);
            ZT_OK(MPI_Ibsend(sbuf, n, MPI_BYTE, peer, T_CASE, MPI_COMM_WORLD, &r));
            ZT_CHECK(cancel_wait(&r) == 1, "Ibsend %d not cancelled", i);
        }
    }
    /* The receive is posted only once the cancels are done. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (me <= peer) {
        zt_fill(sbuf, (size_t)n, me, 200);
        ZT_OK(MPI_Bsend(sbuf, n, MPI_BYTE, peer, T_CASE, MPI_COMM_WORLD));
    }
    if (me >= peer) {
        ZT_OK(MPI_Recv(rbuf, n, MPI_BYTE, peer, T_CASE, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        ZT_CHECK_PAYLOAD(rbuf, n, peer, 200);
    }
    if (me <= peer)
        ZT_OK(MPI_Buffer_detach(&back, &sz));
    free(att);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Cancels racing with a receiver that receives all the time. */
static void race(int me, int peer, int rounds)
{
    int maxn = 100000;
    char *buf = zt_malloc((size_t)maxn);
    if (me <= peer) {
        int *kept = zt_malloc(sizeof(int) * (size_t)(rounds + 1)), nkept = 0;
        /* Room for every buffered send of the run, in case the receiver
         * matches them all before they are cancelled. */
        int bsz = (rounds / 16 + 1) * (8 + 200 + 9000 + 100000 + 4 * MPI_BSEND_OVERHEAD);
        char *att = zt_malloc((size_t)bsz);
        void *back;
        ZT_OK(MPI_Buffer_attach(att, bsz));
        char **bufs = zt_malloc(sizeof(char *) * (size_t)rounds);
        for (int i = 0; i < rounds; i++) {
            int n = sizes[i % NSIZES], mode = (i / NSIZES) % 4;
            MPI_Request r;
            bufs[i] = zt_malloc((size_t)n);
            zt_fill(bufs[i], (size_t)n, me, 1000 + i);
            if (mode == M_READY || (me == peer && mode == M_SYNC))
                mode = M_STD;
            start_send(mode, bufs[i], n, peer, T_RACE, &r);
            if (!cancel_wait(&r))
                kept[nkept++] = i;
            if (me == peer) {
                /* Alone: receive what was kept at once. */
                while (nkept > 0) {
                    int j = kept[--nkept];
                    MPI_Status st;
                    ZT_OK(MPI_Recv(buf, maxn, MPI_BYTE, me, T_RACE, MPI_COMM_WORLD, &st));
                    ZT_CHECK_PAYLOAD(buf, (size_t)sizes[j % NSIZES], me, 1000 + j);
                }
            }
        }
        if (me != peer)
            ZT_OK(MPI_Send(kept, nkept, MPI_INT, peer, T_DONE, MPI_COMM_WORLD));
        if (me == 0 && me != peer)
            printf("defects_cancel: race: %d of %d sends received, the others cancelled\n",
                   nkept, rounds);
        ZT_OK(MPI_Buffer_detach(&back, &bsz));
        for (int i = 0; i < rounds; i++)
            free(bufs[i]);
        free(bufs);
        free(att);
        free(kept);
    } else {
        int *got = zt_malloc(sizeof(int) * (size_t)(rounds + 1)), ngot = 0;
        for (;;) {
            MPI_Status st;
            ZT_OK(MPI_Recv(buf, maxn, MPI_BYTE, peer, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            if (st.MPI_TAG == T_DONE) {
                int n = 0;
                MPI_Get_count(&st, MPI_INT, &n);
                ZT_EQ(n, ngot, "messages received vs. sends not cancelled");
                for (int k = 0; k < n; k++)
                    ZT_EQ(((int *)buf)[k], got[k], "which sends were received");
                break;
            }
            int bytes = 0, i;
            MPI_Get_count(&st, MPI_BYTE, &bytes);
            /* Which send: the first one after the last received whose
             * payload matches (cancelled ones in between were skipped). */
            for (i = ngot ? got[ngot - 1] + 1 : 0; i < rounds; i++)
                if (sizes[i % NSIZES] == bytes &&
                    zt_mismatch(buf, (size_t)bytes, peer, 1000 + i) == (size_t)bytes)
                    break;
            ZT_CHECK(i < rounds, "received %d bytes that match no send still due", bytes);
            got[ngot++] = i;
        }
        free(got);
    }
    free(buf);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int peer = (me ^ 1) < n ? me ^ 1 : me;
    int maxn = sizes[NSIZES - 1], bsz = 2 * (maxn + MPI_BSEND_OVERHEAD);
    char *sbuf = zt_malloc((size_t)maxn), *rbuf = zt_malloc((size_t)maxn);
    char *att = zt_malloc((size_t)bsz);
    void *back;
    ZT_OK(MPI_Buffer_attach(att, bsz));
    for (int mode = 0; mode < NMODES; mode++)
        for (int s = 0; s < NSIZES; s++) {
            unmatched(me, peer, mode, sizes[s], sbuf, rbuf);
            matched(me, peer, mode, sizes[s], sbuf, rbuf);
        }
    ZT_OK(MPI_Buffer_detach(&back, &bsz));
    free(att);
    bsend_space(me, peer, sbuf, rbuf);
    race(me, peer, argc > 1 ? atoi(argv[1]) : 2000);
    free(sbuf);
    free(rbuf);
    if (me == 0)
        printf("defects_cancel: %d ranks ok\n", n);
    MPI_Finalize();
    return 0;
}
