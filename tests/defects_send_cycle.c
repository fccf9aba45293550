/*
 * defects_send_cycle.c: standard-mode send cycles (issue 23, item 7).
 *
 * Ranks that all MPI_Send a message too large to go eagerly before they
 * receive form an unsafe program (MPI 4.1 section 3.5), and a very common
 * one.  zmpi buffers the messages of such a cycle when nothing else can
 * move, warns once, and the job goes on.  Modes (first argument):
 *   pair         ranks in pairs (2k and 2k + 1; an odd last rank with
 *                itself) exchange 64 KiB .. 8 MiB, both sending first;
 *   ring         every rank sends to the next and then receives from the
 *                previous one (64 KiB and 1 MiB);
 *   pair_waiter  ranks 0 and 1 exchange while rank 2 waits to receive
 *                from rank 1, which sends to it after its exchange;
 * and programs that buffering cannot save, which must end with a deadlock
 * report:
 *   ssend        the pairs use MPI_Ssend (a synchronous send is never
 *                buffered);
 *   recv_nobody  ranks 0 and 1 exchange (buffered), rank 2 waits for a
 *                message nobody sends.
 * Every received byte is checked.
 */
#include "zt.h"

/* Send n bytes of message (me, seq) to `to` and receive (from, seq) from
 * `from`, sending first. */
static void send_first(int me, int to, int from, size_t n, long seq, int sync, char *sbuf,
                       char *rbuf)
{
    zt_fill(sbuf, n, me, seq);
    memset(rbuf, 0, n);
    if (sync)
        ZT_OK(MPI_Ssend(sbuf, (int)n, MPI_BYTE, to, 7, MPI_COMM_WORLD));
    else
        ZT_OK(MPI_Send(sbuf, (int)n, MPI_BYTE, to, 7, MPI_COMM_WORLD));
    MPI_Status st;
    ZT_OK(MPI_Recv(rbuf, (int)n, MPI_BYTE, from, 7, MPI_COMM_WORLD, &st));
    ZT_CHECK_STATUS(st, from, 7, (int)n);
    ZT_CHECK_PAYLOAD(rbuf, n, from, seq);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    const char *mode = argc > 1 ? argv[1] : "pair";
    size_t max = (size_t)8 << 20;
    char *sbuf = zt_malloc(max), *rbuf = zt_malloc(max);
    int peer = (me ^ 1) < n ? me ^ 1 : me;
    if (strcmp(mode, "pair") == 0) {
        for (size_t sz = 64 << 10; sz <= max; sz *= 2)
            send_first(me, peer, peer, sz, (long)sz, 0, sbuf, rbuf);
    } else if (strcmp(mode, "ring") == 0) {
        for (size_t sz = 64 << 10; sz <= (1 << 20); sz *= 16)
            send_first(me, (me + 1) % n, (me + n - 1) % n, sz, (long)sz, 0, sbuf, rbuf);
    } else if (strcmp(mode, "ssend") == 0) {
        send_first(me, peer, peer, 64 << 10, 1, 1, sbuf, rbuf);
    } else if (strcmp(mode, "pair_waiter") == 0 || strcmp(mode, "recv_nobody") == 0) {
        ZT_CHECK(n >= 3, "mode %s needs 3 ranks", mode);
        int waiter = strcmp(mode, "pair_waiter") == 0;
        size_t sz = 256 << 10;
        if (me < 2) {
            send_first(me, 1 - me, 1 - me, sz, 5, 0, sbuf, rbuf);
            if (me == 1 && waiter)
                ZT_OK(MPI_Send(sbuf, (int)sz, MPI_BYTE, 2, 8, MPI_COMM_WORLD));
        } else if (me == 2) {
            MPI_Status st;
            if (waiter) {
                ZT_OK(MPI_Recv(rbuf, (int)sz, MPI_BYTE, 1, 8, MPI_COMM_WORLD, &st));
                ZT_CHECK_PAYLOAD(rbuf, sz, 1, 5);
            } else {
                ZT_OK(MPI_Recv(rbuf, 1, MPI_BYTE, 0, 99, MPI_COMM_WORLD, &st));
            }
        }
    } else {
        ZT_CHECK(0, "unknown mode %s", mode);
    }
    free(sbuf);
    free(rbuf);
    if (me == 0)
        printf("defects_send_cycle %s: %d ranks ok\n", mode, n);
    MPI_Finalize();
    return 0;
}
