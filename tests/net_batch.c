/*
 * net_batch.c: batches of small envelopes between processes (src/net/
 * net_env.c, "Batches"): the eager envelopes of non-blocking sends to one
 * process travel together in one message of the system MPI.  Run across
 * processes (tests/net.cmake: 2 processes x 2 ranks interleaved, 3
 * processes x 1 rank, separate nodes over TCP, for each backend) and in
 * one process, where nothing is batched and the checks hold alike.  At
 * least 3 ranks (2 for "compute" and "coll").
 *
 * Usage: net_batch <behaviour>
 *   window   every rank but 1 sends windows of messages of mixed sizes
 *            (0 B-64 KiB: batched, eager one by one, rendezvous) and
 *            modes (Isend, Send, Ibsend, Issend, persistent) on three
 *            tags to rank 1, which receives them all with MPI_ANY_SOURCE
 *            and MPI_ANY_TAG (half the windows) or the expected tag, and
 *            checks that each sender's messages come in the order sent,
 *            with their tag, size and every byte;
 *   compute  rank 0 starts small non-blocking sends to rank 1 (another
 *            process) and then computes for 1.5 s without an MPI call;
 *            rank 1 must receive them while rank 0 computes (another
 *            worker's poll or the progress thread sends the batch), which
 *            it shows by its arrival time on the node's monotonic clock;
 *   ssend    rank 0 sends a stream of batched messages with an MPI_Issend
 *            in its middle to rank 1, which receives the messages before
 *            it and then waits for a go-ahead on another tag: the Issend
 *            must stay incomplete until then, and all arrive in order;
 *   cancel   rank 0 cancels one of a stream of batched sends to rank 1
 *            and tells rank 1 whether the cancel took; rank 1 receives
 *            exactly the messages that were not cancelled, in order;
 *   coll     the messages of a blocking collective batch too
 *            (zm_p2p_isend_batch): rank 0 enters an MPI_Alltoall with
 *            rank 1's part already arrived, so it never waits, and then
 *            computes for 1.5 s without an MPI call; rank 1 must finish
 *            its MPI_Alltoall meanwhile (rank 0's envelope may not stay in
 *            its batch: run with one worker and no progress thread, only
 *            the collective itself can send it), shown by its finishing
 *            time on the node's monotonic clock.  Ranks from 2 on take
 *            part in the Alltoall only, and must not share rank 0's
 *            worker (it computes).
 */
#define _POSIX_C_SOURCE 200809L
#include "zt.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WINDOWS 12
#define WIN 24
#define MAXB (64 * 1024)

/* Size and tag of sender src's message i of the window stream. */
static void msg_shape(int src, long i, int *bytes, int *tag)
{
    zt_rng r = zt_rng_make(0xba7c4u + (uint64_t)src, (uint64_t)i);
    long k = zt_rng_below(&r, 10);
    if (k < 6)
        *bytes = (int)zt_rng_below(&r, 257);
    else if (k < 8)
        *bytes = 257 + (int)zt_rng_below(&r, 1100 - 257);
    else if (k < 9)
        *bytes = 1101 + (int)zt_rng_below(&r, 4096 - 1101);
    else
        *bytes = 4097 + (int)zt_rng_below(&r, MAXB - 4097);
    *tag = 10 + (int)(i % 3);
}

static void window_send(int rank)
{
    char *out = zt_malloc((size_t)WIN * MAXB);
    int bsize = WIN * (MAXB + MPI_BSEND_OVERHEAD);
    void *battach = zt_malloc((size_t)bsize);
    MPI_Request rq[WIN];
    ZT_OK(MPI_Buffer_attach(battach, bsize));
    for (int w = 0; w < WINDOWS; w++) {
        int persistent[WIN];
        for (int j = 0; j < WIN; j++) {
            long i = (long)w * WIN + j;
            int b, tag;
            msg_shape(rank, i, &b, &tag);
            char *p = out + (size_t)j * MAXB;
            zt_fill(p, (size_t)b, rank, i);
            persistent[j] = 0;
            rq[j] = MPI_REQUEST_NULL;
            switch (j % 8) {
            case 4:
                ZT_OK(MPI_Send(p, b, MPI_BYTE, 1, tag, MPI_COMM_WORLD));
                break;
            case 5:
                ZT_OK(MPI_Ibsend(p, b, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &rq[j]));
                break;
            case 6:
                ZT_OK(MPI_Issend(p, b, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &rq[j]));
                break;
            case 7:
                ZT_OK(MPI_Send_init(p, b, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &rq[j]));
                ZT_OK(MPI_Start(&rq[j]));
                persistent[j] = 1;
                break;
            default:
                ZT_OK(MPI_Isend(p, b, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &rq[j]));
            }
        }
        for (int j = 0; j < WIN; j++) {
            ZT_OK(MPI_Wait(&rq[j], MPI_STATUS_IGNORE));
            if (persistent[j])
                ZT_OK(MPI_Request_free(&rq[j]));
        }
    }
    int got = 0;
    ZT_OK(MPI_Buffer_detach(&battach, &got));
    free(battach);
    free(out);
}

static void window_recv(int size)
{
    char *in = zt_malloc(MAXB);
    long *next = calloc((size_t)size, sizeof(long));
    long total = (long)(size - 1) * WINDOWS * WIN;
    ZT_CHECK(next != NULL, "out of memory");
    for (long k = 0; k < total; k++) {
        MPI_Status st;
        int src = MPI_ANY_SOURCE, tag = MPI_ANY_TAG;
        if ((k / WIN) % 2) {
            /* The next message of the first sender that has messages
             * left, by its source and tag: MPI orders messages per
             * (source, tag) only, so that names it. */
            for (int s = 0; s < size && src == MPI_ANY_SOURCE; s++) {
                int b;
                if (s != 1 && next[s] < (long)WINDOWS * WIN) {
                    msg_shape(s, next[s], &b, &tag);
                    src = s;
                }
            }
        }
        ZT_OK(MPI_Recv(in, MAXB, MPI_BYTE, src, tag, MPI_COMM_WORLD, &st));
        int s = st.MPI_SOURCE, b, etag;
        ZT_CHECK(s >= 0 && s < size && s != 1, "a message from rank %d", s);
        msg_shape(s, next[s], &b, &etag);
        ZT_CHECK_STATUS(st, s, etag, b);
        ZT_CHECK_PAYLOAD(in, (size_t)b, s, next[s]);
        next[s]++;
    }
    free(next);
    free(in);
}

static void b_window(int rank, int size)
{
    if (rank == 1)
        window_recv(size);
    else
        window_send(rank);
}

/* Busy work that the compiler cannot drop, until `until` on the monotonic
 * clock: no MPI call in it. */
static double compute_until(double until)
{
    volatile double x = 1.0;
    while (zt_now_s() < until)
        for (int i = 0; i < 10000; i++)
            x = x * 1.0000001 + 1e-9;
    return x;
}

static void b_compute(int rank)
{
    enum { N = 8 };
    char out[N][16], in[16];
    MPI_Request rq[N];
    if (rank == 0) {
        double t0 = zt_now_s(), arrived = 0;
        for (int i = 0; i < N; i++) {
            zt_fill(out[i], 16, 0, i);
            ZT_OK(MPI_Isend(out[i], 16, MPI_BYTE, 1, 3, MPI_COMM_WORLD, &rq[i]));
        }
        (void)compute_until(t0 + 1.5);
        double t1 = zt_now_s();
        ZT_OK(MPI_Waitall(N, rq, ZT_STATUSES_IGNORE));
        ZT_OK(MPI_Recv(&arrived, 1, MPI_DOUBLE, 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        ZT_CHECK(arrived < t1, "the messages reached rank 1 only %.3f s after rank 0 "
                 "stopped computing (%.3f s after they were sent)", arrived - t1, arrived - t0);
    } else if (rank == 1) {
        for (int i = 0; i < N; i++) {
            MPI_Status st;
            ZT_OK(MPI_Recv(in, 16, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &st));
            ZT_CHECK_STATUS(st, 0, 3, 16);
            ZT_CHECK_PAYLOAD(in, 16, 0, i);
        }
        double arrived = zt_now_s();
        ZT_OK(MPI_Send(&arrived, 1, MPI_DOUBLE, 0, 4, MPI_COMM_WORLD));
    }
}

static void b_ssend(int rank)
{
    enum { N = 20, SS = N / 2 };
    char out[N + 1][64], in[64];
    MPI_Request rq[N + 1];
    if (rank == 0) {
        for (int i = 0; i <= N; i++) {
            zt_fill(out[i], 64, 0, i);
            if (i == SS)
                ZT_OK(MPI_Issend(out[i], 64, MPI_BYTE, 1, 5, MPI_COMM_WORLD, &rq[i]));
            else
                ZT_OK(MPI_Isend(out[i], 64, MPI_BYTE, 1, 5, MPI_COMM_WORLD, &rq[i]));
        }
        /* Rank 1 has not received the Issend's message: it waits for the
         * go-ahead, which goes only after these tests. */
        int done = 0, ack = 0;
        ZT_OK(MPI_Recv(&ack, 1, MPI_INT, 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int k = 0; k < 1000; k++) {
            ZT_OK(MPI_Test(&rq[SS], &done, MPI_STATUS_IGNORE));
            ZT_CHECK(!done, "the synchronous send completed before it was matched");
        }
        ZT_OK(MPI_Send(&ack, 1, MPI_INT, 1, 7, MPI_COMM_WORLD));
        ZT_OK(MPI_Waitall(N + 1, rq, ZT_STATUSES_IGNORE));
    } else if (rank == 1) {
        int ack = 0;
        for (int i = 0; i <= N; i++) {
            MPI_Status st;
            if (i == SS) {
                /* The messages before the Issend's are in: let rank 0
                 * test it, and match it only after the go-ahead. */
                ZT_OK(MPI_Send(&ack, 1, MPI_INT, 0, 6, MPI_COMM_WORLD));
                ZT_OK(MPI_Recv(&ack, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            }
            ZT_OK(MPI_Recv(in, 64, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &st));
            ZT_CHECK_STATUS(st, 0, 5, 64);
            ZT_CHECK_PAYLOAD(in, 64, 0, i);
        }
    }
}

static void b_cancel(int rank)
{
    enum { N = 16, VICTIM = 7 };
    char out[N][32], in[32];
    MPI_Request rq[N];
    if (rank == 0) {
        MPI_Status st;
        int cancelled = 0;
        for (int i = 0; i < N; i++) {
            zt_fill(out[i], 32, 0, i);
            ZT_OK(MPI_Isend(out[i], 32, MPI_BYTE, 1, 8, MPI_COMM_WORLD, &rq[i]));
        }
        ZT_OK(MPI_Cancel(&rq[VICTIM]));
        ZT_OK(MPI_Wait(&rq[VICTIM], &st));
        ZT_OK(MPI_Test_cancelled(&st, &cancelled));
        ZT_OK(MPI_Waitall(N, rq, ZT_STATUSES_IGNORE));
        ZT_OK(MPI_Send(&cancelled, 1, MPI_INT, 1, 9, MPI_COMM_WORLD));
    } else if (rank == 1) {
        int cancelled = -1;
        ZT_OK(MPI_Recv(&cancelled, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < N; i++) {
            MPI_Status st;
            if (i == VICTIM && cancelled)
                continue;
            ZT_OK(MPI_Recv(in, 32, MPI_BYTE, 0, 8, MPI_COMM_WORLD, &st));
            ZT_CHECK_STATUS(st, 0, 8, 32);
            ZT_CHECK_PAYLOAD(in, 32, 0, i);
        }
        /* Nothing else of that tag is on its way: rank 0 sends its last
         * message on tag 8 only after this one. */
        int flag = 1;
        ZT_OK(MPI_Send(&flag, 1, MPI_INT, 0, 10, MPI_COMM_WORLD));
        ZT_OK(MPI_Recv(&flag, 1, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        ZT_EQ(flag, -7, "the message after the stream");
    }
    if (rank == 0) {
        int flag = 0, last = -7;
        ZT_OK(MPI_Recv(&flag, 1, MPI_INT, 1, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        ZT_OK(MPI_Send(&last, 1, MPI_INT, 1, 8, MPI_COMM_WORLD));
    }
}

static void b_coll(int rank, int size)
{
    long out[64], in[64];
    ZT_CHECK(size <= 64, "coll takes at most 64 ranks");
    for (int i = 0; i < size; i++)
        out[i] = 1000L * rank + i;
    if (rank == 0) {
        /* Rank 1's Isend and its Alltoall envelope travel in one batch:
         * once the probe sees the first, the second has arrived too. */
        int flag = 0;
        while (!flag)
            ZT_OK(MPI_Iprobe(1, 6, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        ZT_OK(MPI_Recv(&flag, 1, MPI_INT, 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    MPI_Request rq = MPI_REQUEST_NULL;
    int one = 1;
    if (rank == 1)
        ZT_OK(MPI_Isend(&one, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, &rq));
    ZT_OK(MPI_Alltoall(out, 1, MPI_LONG, in, 1, MPI_LONG, MPI_COMM_WORLD));
    double done = zt_now_s();
    for (int i = 0; i < size; i++)
        ZT_CHECK(in[i] == 1000L * i + rank, "Alltoall: from rank %d got %ld", i, in[i]);
    if (rank == 0) {
        (void)compute_until(done + 1.5);
        double t1 = zt_now_s(), other = 0;
        ZT_OK(MPI_Recv(&other, 1, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        ZT_CHECK(other < t1, "rank 1 finished its Alltoall only %.3f s after rank 0 stopped "
                 "computing (%.3f s after rank 0 finished its own)", other - t1, other - done);
    } else if (rank == 1) {
        ZT_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        ZT_OK(MPI_Send(&done, 1, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD));
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    ZT_OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ZT_CHECK(argc > 1 && size >= 2, "usage: net_batch window|compute|ssend|cancel|coll");
    if (!strcmp(argv[1], "window")) {
        ZT_CHECK(size >= 3, "window needs 3 ranks or more");
        b_window(rank, size);
    } else if (!strcmp(argv[1], "compute")) {
        b_compute(rank);
    } else if (!strcmp(argv[1], "ssend")) {
        b_ssend(rank);
    } else if (!strcmp(argv[1], "cancel")) {
        b_cancel(rank);
    } else if (!strcmp(argv[1], "coll")) {
        b_coll(rank, size);
    } else {
        ZT_CHECK(0, "unknown behaviour %s", argv[1]);
    }
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Finalize();
    return 0;
}
