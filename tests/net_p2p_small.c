/*
 * net_p2p_small.c: small point-to-point messages between processes, where
 * the network backend sends envelopes of up to 1 KiB with a blocking
 * MPI_Send of the system MPI and larger ones with MPI_Isend, and where a
 * rank alone on its worker polls the system MPI itself while it waits
 * (docs/net.md, "Point-to-point" and "Progress").  Run across processes
 * (tests/net.cmake: 2 processes x 3 ranks interleaved, 3 processes x 1
 * rank, for each backend) and in one process.  At least 3 ranks.
 *
 * Usage: net_p2p_small <behaviour>
 *   order    every rank sends a stream of messages of sizes on both sides
 *            of the blocking send's limit, of the eager limit and of the
 *            rendezvous, to its right neighbour, all with one tag; the
 *            neighbour receives them with blocking receives (polling the
 *            network itself when alone on its worker) and checks that
 *            none overtook another and every byte;
 *   anysrc   rank 0 receives from MPI_ANY_SOURCE (and MPI_ANY_TAG for
 *            half of them) while ranks 1 and 2 both send to it: rank 2 is
 *            in rank 0's process with 2 x 3 interleaved, rank 1 in another;
 *            each sender's messages arrive in order and all of them
 *            arrive, whichever side's come first;
 *   cancel   rank 0 posts a receive from rank 1 (another process) that no
 *            message matches, cancels it while blocked in MPI_Wait on
 *            nothing else, and then receives rank 1's real message of that
 *            tag: the cancelled receive took nothing;
 *   probe    rank 0 probes (MPI_Probe, MPI_Iprobe, MPI_Mprobe) for rank
 *            1's messages of 8 bytes, 1000 bytes and 3000 bytes from
 *            MPI_ANY_SOURCE and receives exactly what the probe saw.
 */
#include "zt.h"

#include <stdlib.h>
#include <string.h>

/* Sizes of the order stream: around the blocking send's limit (1 KiB
 * envelopes: 992 bytes of data behind the 32-byte header), the eager
 * limit within a node (2 KiB + 64) and into the rendezvous. */
static const int sizes[] = { 0, 8, 991, 992, 993, 1000, 2112, 2113, 8, 5000, 1, 64 };
#define NSIZES ((int)(sizeof(sizes) / sizeof(sizes[0])))
#define ROUNDS 20
#define BIG 5000

static void b_order(int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size, n = ROUNDS * NSIZES;
    char *out = zt_malloc((size_t)n * BIG), *in = zt_malloc(BIG + 16);
    MPI_Request *rq = zt_malloc(sizeof(MPI_Request) * (size_t)n);
    for (int i = 0; i < n; i++) {
        int b = sizes[i % NSIZES];
        zt_fill(out + (size_t)i * BIG, (size_t)b, rank, i);
        ZT_OK(MPI_Isend(out + (size_t)i * BIG, b, MPI_BYTE, right, 5, MPI_COMM_WORLD, &rq[i]));
    }
    for (int i = 0; i < n; i++) {
        MPI_Status st;
        int b = sizes[i % NSIZES];
        ZT_OK(MPI_Recv(in, BIG + 16, MPI_BYTE, left, 5, MPI_COMM_WORLD, &st));
        ZT_CHECK_STATUS(st, left, 5, b);
        ZT_CHECK_PAYLOAD(in, (size_t)b, left, i);
    }
    ZT_OK(MPI_Waitall(n, rq, ZT_STATUSES_IGNORE));
    free(rq);
    free(in);
    free(out);
}

#define PER_SENDER 200

static void b_anysrc(int rank)
{
    if (rank == 1 || rank == 2) {
        for (int i = 0; i < PER_SENDER; i++) {
            int msg[2] = { rank, i };
            ZT_OK(MPI_Send(msg, 2, MPI_INT, 0, 10, MPI_COMM_WORLD));
        }
    } else if (rank == 0) {
        int next[3] = { 0, 0, 0 };
        for (int i = 0; i < 2 * PER_SENDER; i++) {
            int msg[2];
            MPI_Status st;
            ZT_OK(MPI_Recv(msg, 2, MPI_INT, MPI_ANY_SOURCE, i % 2 ? MPI_ANY_TAG : 10,
                           MPI_COMM_WORLD, &st));
            int s = st.MPI_SOURCE;
            ZT_CHECK(s == 1 || s == 2, "message from rank %d", s);
            ZT_EQ(msg[0], s, "sender in the message");
            ZT_EQ(msg[1], next[s], "sequence number (non-overtaking)");
            ZT_EQ(st.MPI_TAG, 10, "tag");
            next[s]++;
        }
        ZT_EQ(next[1], PER_SENDER, "messages from rank 1");
        ZT_EQ(next[2], PER_SENDER, "messages from rank 2");
    }
}

static void b_cancel(int rank)
{
    if (rank == 0) {
        int v = -1, w = -1, cancelled = 0;
        MPI_Request r;
        MPI_Status st;
        ZT_OK(MPI_Irecv(&v, 1, MPI_INT, 1, 77, MPI_COMM_WORLD, &r));
        ZT_OK(MPI_Cancel(&r));
        ZT_OK(MPI_Wait(&r, &st));
        ZT_OK(MPI_Test_cancelled(&st, &cancelled));
        ZT_CHECK(cancelled, "a receive that nothing matched was not cancelled");
        /* Only now may rank 1 send the message of that tag. */
        ZT_OK(MPI_Send(&cancelled, 1, MPI_INT, 1, 78, MPI_COMM_WORLD));
        ZT_OK(MPI_Recv(&w, 1, MPI_INT, 1, 77, MPI_COMM_WORLD, &st));
        ZT_EQ(w, 4242, "the message after the cancelled receive");
        ZT_EQ(v, -1, "the cancelled receive's buffer");
    } else if (rank == 1) {
        int go = 0, x = 4242;
        ZT_OK(MPI_Recv(&go, 1, MPI_INT, 0, 78, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        ZT_OK(MPI_Send(&x, 1, MPI_INT, 0, 77, MPI_COMM_WORLD));
    }
}

static void b_probe(int rank)
{
    static const int psizes[] = { 8, 1000, 3000 };
    char *buf = zt_malloc(4096);
    if (rank == 1) {
        for (int round = 0; round < 3; round++)
            for (int i = 0; i < 3; i++) {
                zt_fill(buf, (size_t)psizes[i], rank, round * 3 + i);
                ZT_OK(MPI_Send(buf, psizes[i], MPI_BYTE, 0, 30 + i, MPI_COMM_WORLD));
            }
    } else if (rank == 0) {
        for (int round = 0; round < 3; round++)
            for (int i = 0; i < 3; i++) {
                MPI_Status st;
                MPI_Message m;
                int n = -1, flag = 0;
                if (round == 0) {
                    ZT_OK(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                } else if (round == 1) {
                    while (!flag)
                        ZT_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag,
                                         &st));
                } else {
                    ZT_OK(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &m, &st));
                }
                ZT_CHECK_STATUS(st, 1, 30 + i, psizes[i]);
                MPI_Get_count(&st, MPI_BYTE, &n);
                memset(buf, 0, 4096);
                if (round == 2)
                    ZT_OK(MPI_Mrecv(buf, n, MPI_BYTE, &m, &st));
                else
                    ZT_OK(MPI_Recv(buf, n, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
                                   &st));
                ZT_CHECK_STATUS(st, 1, 30 + i, psizes[i]);
                ZT_CHECK_PAYLOAD(buf, (size_t)psizes[i], 1, round * 3 + i);
            }
    }
    free(buf);
}

int main(int argc, char **argv)
{
    int rank, size;
    ZT_OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ZT_CHECK(argc > 1 && size >= 3, "usage: net_p2p_small order|anysrc|cancel|probe, 3 ranks "
             "or more");
    if (!strcmp(argv[1], "order"))
        b_order(rank, size);
    else if (!strcmp(argv[1], "anysrc"))
        b_anysrc(rank);
    else if (!strcmp(argv[1], "cancel"))
        b_cancel(rank);
    else if (!strcmp(argv[1], "probe"))
        b_probe(rank);
    else
        ZT_CHECK(0, "unknown behaviour %s", argv[1]);
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Finalize();
    return 0;
}
