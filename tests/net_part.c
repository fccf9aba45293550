/*
 * net_part.c: partitioned communication between ranks of different
 * processes (docs/net.md, "Partitioned communication").  Run as 2
 * processes x 3 ranks interleaved (tests/net.cmake), every rank's ring
 * neighbours live in the other process; it also runs in one process,
 * where the same checks hold on the in-process path.  Argument "compute":
 * ranks 0 and 1 are in different processes (see progress()).
 *
 *   - equal partitionings, and different ones (8 send partitions into 2
 *     receive partitions, 3 into 6, 4 of 256 KiB into 2), every byte
 *     checked;
 *   - MPI_Pready_list in reverse order, with MPI_Parrived polled: a
 *     receive partition is never reported before its bytes are all there;
 *   - 50 rounds of MPI_Startall on the same requests, new data each time;
 *   - three channels with the same (source, tag) and different
 *     partitionings, matched in init order though started in reverse;
 *   - derived datatypes: a strided vector on the send side, a struct of
 *     two int blocks on the receive side;
 *   - MPI_Test to a round's end, MPI_Request_free and MPI_Cancel of
 *     active requests refused, inactive requests complete;
 *   - progress: rank 0 computes without calling MPI (watching its buffer)
 *     until rank 1's partitions are there;
 *   - a size mismatch, receive made first and send made first: the
 *     receive's init (made second) or its rounds (made first) fail with
 *     MPI_ERR_TRUNCATE, the send's rounds fail (in one process, the send's
 *     init when made second), and a correct round on the same pair works
 *     afterwards.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "zt.h"

#include <string.h>
#include <time.h>

/* Test programs may run without privatization (ranks share globals):
 * every function asks for its rank and the size itself. */
#define WHO                                                                 \
    int rank, size;                                                         \
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);                                   \
    MPI_Comm_size(MPI_COMM_WORLD, &size);                                   \
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;          \
    (void)next;                                                             \
    (void)prev

/* The value element i of sender src's message has in round r on channel ch. */
static int val(int src, int r, int ch, int i)
{
    return src * 1000000 + r * 10000 + ch * 1000 + i;
}

/* Seconds on a clock that calling does not involve MPI. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One ring round trip of `rounds` rounds: sp send partitions of sc ints to
 * the next rank, rp receive partitions of rc ints from the previous one.
 * Odd rounds ready the partitions in reverse order with one Pready_list
 * and poll MPI_Parrived until all arrived; even ones use Pready each. */
static void ring(int sp, int sc, int rp, int rc, int rounds)
{
    WHO;
    int n = sp * sc, *s = zt_malloc(sizeof(int) * (size_t)n);
    int *d = zt_malloc(sizeof(int) * (size_t)n), *list = zt_malloc(sizeof(int) * (size_t)sp);
    MPI_Request r[2];
    ZT_EQ(rp * rc, n, "test case sizes");
    ZT_OK(MPI_Precv_init(d, rp, rc, MPI_INT, prev, 11, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]));
    ZT_OK(MPI_Psend_init(s, sp, sc, MPI_INT, next, 11, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]));
    for (int round = 0; round < rounds; round++) {
        for (int i = 0; i < n; i++) {
            s[i] = val(rank, round, 0, i);
            d[i] = -1;
        }
        ZT_OK(MPI_Startall(2, r));
        if (round % 2) {
            for (int k = 0; k < sp; k++)
                list[k] = sp - 1 - k;
            ZT_OK(MPI_Pready_list(sp, list, r[1]));
            int left = rp;
            unsigned char *seen = calloc((size_t)rp, 1);
            double t0 = now_s();
            while (left > 0) {
                ZT_CHECK(now_s() - t0 < 60, "partitions never arrived (%d left)", left);
                for (int j = 0; j < rp; j++) {
                    int flag = 0;
                    if (seen[j])
                        continue;
                    ZT_OK(MPI_Parrived(r[0], j, &flag));
                    if (!flag)
                        continue;
                    /* Reported: its bytes must all be there now. */
                    for (int i = j * rc; i < (j + 1) * rc; i++)
                        ZT_EQ(d[i], val(prev, round, 0, i), "partition reported arrived");
                    seen[j] = 1;
                    left--;
                }
            }
            free(seen);
        } else {
            for (int k = 0; k < sp; k++)
                ZT_OK(MPI_Pready(k, r[1]));
        }
        MPI_Status st[2];
        ZT_OK(MPI_Waitall(2, r, st));
        ZT_CHECK_STATUS(st[0], prev, 11, (int)(sizeof(int) * (size_t)n));
        for (int i = 0; i < n; i++)
            ZT_EQ(d[i], val(prev, round, 0, i), "received element");
    }
    MPI_Request_free(&r[0]);
    MPI_Request_free(&r[1]);
    free(s);
    free(d);
    free(list);
}

/* Three channels to the same peer with the same tag, partitioned
 * differently (same total), must match in init order; the receiver
 * starts them in reverse and the sender readies the last one first. */
static void init_order(void)
{
    WHO;
    enum { N = 12, NCH = 3 };
    const int parts[NCH][2] = { { 12, 1 }, { 3, 4 }, { 2, 6 } }; /* send: partitions, count */
    int s[NCH][N], d[NCH][N];
    MPI_Request sr[NCH], rr[NCH];
    for (int c = 0; c < NCH; c++)
        ZT_OK(MPI_Psend_init(s[c], parts[c][0], parts[c][1], MPI_INT, next, 5, MPI_COMM_WORLD,
                             MPI_INFO_NULL, &sr[c]));
    for (int c = 0; c < NCH; c++)
        ZT_OK(MPI_Precv_init(d[c], parts[NCH - 1 - c][0], parts[NCH - 1 - c][1], MPI_INT, prev,
                             5, MPI_COMM_WORLD, MPI_INFO_NULL, &rr[c]));
    for (int round = 0; round < 3; round++) {
        for (int c = NCH - 1; c >= 0; c--) {
            for (int i = 0; i < N; i++) {
                s[c][i] = val(rank, round, c, i);
                d[c][i] = -1;
            }
            ZT_OK(MPI_Start(&rr[c]));
        }
        ZT_OK(MPI_Startall(NCH, sr));
        for (int c = NCH - 1; c >= 0; c--)
            ZT_OK(MPI_Pready_range(0, parts[c][0] - 1, sr[c]));
        ZT_OK(MPI_Waitall(NCH, rr, MPI_STATUSES_IGNORE));
        ZT_OK(MPI_Waitall(NCH, sr, MPI_STATUSES_IGNORE));
        for (int c = 0; c < NCH; c++)
            for (int i = 0; i < N; i++)
                ZT_EQ(d[c][i], val(prev, round, c, i), "channel matched out of init order");
    }
    for (int c = 0; c < NCH; c++) {
        MPI_Request_free(&sr[c]);
        MPI_Request_free(&rr[c]);
    }
}

/* Derived datatypes: each send partition is 2 elements of a vector of 3
 * ints with stride 2 (every other int); each receive partition is 1
 * element of a struct of two blocks of 3 ints with a gap of 1. */
static void derived(void)
{
    WHO;
    enum { SP = 4, RP = 4, NS = SP * 2 * 6, NR = RP * 7 };
    int s[NS], d[NR];
    MPI_Datatype vec, blk, st;
    ZT_OK(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
    MPI_Type_create_resized(vec, 0, 6 * sizeof(int), &blk);
    MPI_Type_free(&vec);
    ZT_OK(MPI_Type_commit(&blk));
    int bl[2] = { 3, 3 };
    MPI_Aint disp[2] = { 0, 4 * sizeof(int) };
    MPI_Datatype tys[2] = { MPI_INT, MPI_INT };
    ZT_OK(MPI_Type_create_struct(2, bl, disp, tys, &vec));
    MPI_Type_create_resized(vec, 0, 7 * sizeof(int), &st);
    MPI_Type_free(&vec);
    ZT_OK(MPI_Type_commit(&st));
    MPI_Request r[2];
    ZT_OK(MPI_Psend_init(s, SP, 2, blk, next, 6, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]));
    ZT_OK(MPI_Precv_init(d, RP, 1, st, prev, 6, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]));
    MPI_Type_free(&blk);
    MPI_Type_free(&st);
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < NS; i++)
            s[i] = val(rank, round, 0, i);
        for (int i = 0; i < NR; i++)
            d[i] = -1;
        ZT_OK(MPI_Startall(2, r));
        for (int k = SP - 1; k >= 0; k--)
            ZT_OK(MPI_Pready(k, r[0]));
        ZT_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        /* The k-th int of the stream is s[2k] at the sender; at the
         * receiver it sits in block k / 3 of partition k / 6. */
        for (int k = 0; k < NS / 2; k++) {
            int at = (k / 6) * 7 + (k % 6 < 3 ? k % 6 : k % 6 + 1);
            ZT_EQ(d[at], val(prev, round, 0, 2 * k), "derived-type element");
        }
        for (int p = 0; p < RP; p++)
            ZT_EQ(d[p * 7 + 3], -1, "gap of the receive type written");
    }
    MPI_Request_free(&r[0]);
    MPI_Request_free(&r[1]);
}

/* Waits, tests, frees and cancels behave as in one process: an active
 * partitioned request can be neither freed nor cancelled; MPI_Test polls
 * a round to its end; an inactive request tests complete and its
 * partitions arrived. */
static void requests(void)
{
    WHO;
    enum { P = 4, C = 8 };
    int s[P * C], d[P * C], flag = 0;
    MPI_Request r[2];
    MPI_Status st;
    for (int i = 0; i < P * C; i++)
        s[i] = val(rank, 0, 0, i);
    ZT_OK(MPI_Psend_init(s, P, C, MPI_INT, next, 13, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]));
    ZT_OK(MPI_Precv_init(d, P, C, MPI_INT, prev, 13, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]));
    ZT_OK(MPI_Test(&r[1], &flag, MPI_STATUS_IGNORE));
    ZT_CHECK(flag, "an inactive partitioned receive tests incomplete");
    ZT_OK(MPI_Parrived(r[1], 0, &flag));
    ZT_CHECK(flag, "a partition of an inactive receive not arrived");
    ZT_OK(MPI_Startall(2, r));
    ZT_EQ(zt_err_class(MPI_Request_free(&r[1])), MPI_ERR_REQUEST,
          "class of MPI_Request_free of an active partitioned receive");
    ZT_EQ(zt_err_class(MPI_Cancel(&r[0])), MPI_ERR_REQUEST,
          "class of MPI_Cancel of an active partitioned send");
    ZT_OK(MPI_Pready_range(0, P - 1, r[0]));
    double t0 = now_s();
    for (flag = 0; !flag;) {
        ZT_OK(MPI_Test(&r[1], &flag, &st));
        ZT_CHECK(now_s() - t0 < 60, "partitioned receive never completed under MPI_Test");
    }
    ZT_CHECK_STATUS(st, prev, 13, (int)sizeof(d));
    ZT_OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    for (int i = 0; i < P * C; i++)
        ZT_EQ(d[i], val(prev, 0, 0, i), "element received under MPI_Test");
    MPI_Request_free(&r[0]);
    MPI_Request_free(&r[1]);
}

/* Rank 0 computes without calling MPI until rank 1's partitions are in
 * its buffer: some other thread of its process must take them in.  With
 * one worker per process (tests/net.cmake), that is the progress thread.
 * Only with `compute` set (ranks 0 and 1 in different processes): in one
 * process rank 1 may share rank 0's worker, which the loop never gives
 * up, so there rank 0 waits in MPI_Wait.
 *
 * The barrier first: the other ranks of rank 0's process may be queued on
 * rank 0's worker, and a rank that computes without calling MPI keeps
 * them from running until it is done (ranks are not preempted:
 * docs/privatization.md, docs/migrate.md).  Without the barrier rank 1
 * could still be in an earlier phase waiting for one of them (its
 * partitioned send to rank 2 in requests() needs rank 2's MPI_Start), so
 * rank 1 never reached its MPI_Pready and rank 0 computed until its 60 s
 * limit: 1 run in 40-80 under load (2 x 3 interleaved, 2 workers).
 * After it, rank 1 needs nothing but rank 0's message and the network. */
static void progress(int compute)
{
    WHO;
    enum { P = 8, C = 64 };
    int buf[P * C];
    MPI_Request r;
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (size < 2 || rank > 1)
        return;
    for (int i = 0; i < P * C; i++)
        buf[i] = rank ? val(rank, 0, 0, i) : -1;
    if (rank == 0) {
        ZT_OK(MPI_Precv_init(buf, P, C, MPI_INT, 1, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
        ZT_OK(MPI_Start(&r));
        ZT_OK(MPI_Send(NULL, 0, MPI_INT, 1, 10, MPI_COMM_WORLD));
        volatile int *v = buf;
        double t0 = now_s();
        for (int i = 0; compute && i < P * C; i++)
            while (v[i] != val(1, 0, 0, i))
                ZT_CHECK(now_s() - t0 < 60, "element %d never arrived while computing", i);
        for (int j = 0; compute && j < P; j++) {
            int flag = 0;
            ZT_OK(MPI_Parrived(r, j, &flag));
            ZT_CHECK(flag, "partition %d there but not reported arrived", j);
        }
        ZT_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        for (int i = 0; i < P * C; i++)
            ZT_EQ(buf[i], val(1, 0, 0, i), "element after computing");
    } else {
        ZT_OK(MPI_Psend_init(buf, P, C, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
        ZT_OK(MPI_Start(&r));
        ZT_OK(MPI_Recv(NULL, 0, MPI_INT, 0, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int k = 0; k < P; k++)
            ZT_OK(MPI_Pready(k, r));
        ZT_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }
    MPI_Request_free(&r);
}

/* The next rank sends 10 ints, this one expects 12.  With recv_first
 * every receive is made before its send (a token from the receiver tells
 * the sender), else after it (the send's announcement travels ahead of
 * the sender's token).  The second init of a pair fails with
 * MPI_ERR_TRUNCATE, and the first side's rounds fail; across processes a
 * send's init cannot fail (it does not wait for its receive), so its
 * rounds fail instead. */
static void mismatch(int recv_first)
{
    WHO;
    int s[12] = { 0 }, d[12], src, rc;
    MPI_Request sr = MPI_REQUEST_NULL, rr = MPI_REQUEST_NULL;
    if (recv_first) {
        rc = MPI_Precv_init(d, 4, 3, MPI_INT, prev, 8, MPI_COMM_WORLD, MPI_INFO_NULL, &rr);
        ZT_OK(rc);
        ZT_OK(MPI_Sendrecv(NULL, 0, MPI_INT, prev, 12, NULL, 0, MPI_INT, next, 12,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        src = MPI_Psend_init(s, 5, 2, MPI_INT, next, 8, MPI_COMM_WORLD, MPI_INFO_NULL, &sr);
    } else {
        src = MPI_Psend_init(s, 5, 2, MPI_INT, next, 8, MPI_COMM_WORLD, MPI_INFO_NULL, &sr);
        ZT_OK(src);
        ZT_OK(MPI_Sendrecv(NULL, 0, MPI_INT, next, 12, NULL, 0, MPI_INT, prev, 12,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        rc = MPI_Precv_init(d, 4, 3, MPI_INT, prev, 8, MPI_COMM_WORLD, MPI_INFO_NULL, &rr);
        ZT_EQ(zt_err_class(rc), MPI_ERR_TRUNCATE, "class of a receive init matching a send "
              "of another size");
    }
    ZT_CHECK(src == MPI_SUCCESS || zt_err_class(src) == MPI_ERR_TRUNCATE,
             "MPI_Psend_init matching a receive of another size: %d", src);
    if (rc == MPI_SUCCESS) {
        ZT_OK(MPI_Start(&rr));
        ZT_EQ(zt_err_class(MPI_Wait(&rr, MPI_STATUS_IGNORE)), MPI_ERR_TRUNCATE,
              "error of a receive round whose sender has another size");
        MPI_Request_free(&rr);
    } else {
        ZT_EQ(zt_err_class(rc), MPI_ERR_TRUNCATE, "error of a receive init that matched a "
              "send of another size");
        ZT_CHECK(rr == MPI_REQUEST_NULL, "failed init made a request");
    }
    if (src == MPI_SUCCESS) {
        ZT_OK(MPI_Start(&sr));
        for (int k = 0; k < 5; k++) {
            rc = MPI_Pready(k, sr);
            ZT_CHECK(rc == MPI_SUCCESS || zt_err_class(rc) == MPI_ERR_TRUNCATE,
                     "MPI_Pready of a mismatched send: %d", rc);
        }
        ZT_CHECK(MPI_Wait(&sr, MPI_STATUS_IGNORE) != MPI_SUCCESS, "mismatched send completed");
        MPI_Request_free(&sr);
    } else {
        ZT_CHECK(sr == MPI_REQUEST_NULL, "failed init made a request");
    }
    /* The pair still works with sizes that agree. */
    ZT_OK(MPI_Psend_init(s, 6, 2, MPI_INT, next, 8, MPI_COMM_WORLD, MPI_INFO_NULL, &sr));
    ZT_OK(MPI_Precv_init(d, 4, 3, MPI_INT, prev, 8, MPI_COMM_WORLD, MPI_INFO_NULL, &rr));
    for (int i = 0; i < 12; i++)
        s[i] = val(rank, 0, 0, i);
    ZT_OK(MPI_Start(&rr));
    ZT_OK(MPI_Start(&sr));
    ZT_OK(MPI_Pready_range(0, 5, sr));
    ZT_OK(MPI_Wait(&rr, MPI_STATUS_IGNORE));
    ZT_OK(MPI_Wait(&sr, MPI_STATUS_IGNORE));
    for (int i = 0; i < 12; i++)
        ZT_EQ(d[i], val(prev, 0, 0, i), "element after a mismatch");
    MPI_Request_free(&sr);
    MPI_Request_free(&rr);
}

int main(int argc, char **argv)
{
    int rank, size;
    zt_init_errors_return(&argc, &argv, &rank, &size);
    double t0 = MPI_Wtime();
    ring(4, 16, 4, 16, 2);    /* equal partitionings */
    ring(8, 16, 2, 64, 4);    /* 8 send partitions into 2 receive ones */
    ring(3, 10, 6, 5, 4);     /* 3 into 6 */
    ring(4, 65536, 2, 131072, 2); /* 1 MiB, partitions larger than eager messages */
    double t1 = MPI_Wtime();
    ring(8, 4, 8, 4, 50);     /* 50 rounds */
    double t2 = MPI_Wtime();
    init_order();
    derived();
    requests();
    progress(argc > 1 && strcmp(argv[1], "compute") == 0);
    mismatch(1);
    mismatch(0);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("net_part: %d ranks ok; 50 rounds of 8 partitions in %.1f ms (%.1f us per "
               "round), the rest %.1f ms\n", size, (t2 - t1) * 1e3, (t2 - t1) * 1e6 / 50,
               (MPI_Wtime() - t2 + t1 - t0) * 1e3);
    MPI_Finalize();
    return 0;
}
