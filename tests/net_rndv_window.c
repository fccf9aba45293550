/*
 * net_rndv_window.c: many rendezvous messages in flight between processes
 * at once: the system MPI's requests of their data (one per message and
 * end, or one per piece) number about 200 per process, all tested by each
 * poll until they complete.  Ranks r and r ^ 1 exchange ROUNDS
 * rounds of WIN messages each way, sizes drawn from rendezvous sizes (in
 * pieces within a node, one message, beyond the system MPI's own
 * rendezvous threshold), every eighth by MPI_Issend; in odd rounds the
 * receives are posted after the sends, so the data may arrive before
 * zmpi's receive of it.  Every request is completed with MPI_Waitsome, in
 * whatever order they finish, and every status and byte is checked.  Run
 * across processes (tests/net.cmake: 2 processes x 2 ranks interleaved,
 * so each pair spans the processes, for each backend; over TCP) and in one
 * process, where the checks hold alike.
 *
 * Usage: net_rndv_window
 */
#include "zt.h"

#include <stdlib.h>
#include <string.h>

#define ROUNDS 6
#define WIN 48
#define TAG 5

/* The size of sender src's message i of round rnd. */
static int msg_bytes(int src, int rnd, int i)
{
    static const int sizes[] = {9 * 1024 + 5, 16 * 1024, 20 * 1024 + 3, 64 * 1024,
                                130 * 1024 + 7};
    zt_rng r = zt_rng_make(0x7e57u + (uint64_t)src, (uint64_t)(rnd * WIN + i));
    return sizes[zt_rng_below(&r, (long)(sizeof(sizes) / sizeof(sizes[0])))];
}

/* Post the round's sends to peer: every eighth synchronous. */
static void post_sends(char **out, MPI_Request *rq, int rank, int peer, int rnd)
{
    for (int i = 0; i < WIN; i++) {
        int b = msg_bytes(rank, rnd, i);
        zt_fill(out[i], (size_t)b, rank, (long)(rnd * WIN + i));
        if (i % 8 == 3)
            ZT_OK(MPI_Issend(out[i], b, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, &rq[i]));
        else
            ZT_OK(MPI_Isend(out[i], b, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, &rq[i]));
    }
}

static void post_recvs(char **in, MPI_Request *rq, int peer)
{
    for (int i = 0; i < WIN; i++)
        ZT_OK(MPI_Irecv(in[i], 130 * 1024 + 7, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, &rq[i]));
}

/* Complete all 2 * WIN requests (receives first in rq) with MPI_Waitsome
 * and check each receive's status and bytes as it completes: the
 * messages of one sender and tag match the receives in posting order. */
static void complete_round(char **in, MPI_Request *rq, int peer, int rnd)
{
    int left = 2 * WIN, idx[2 * WIN];
    MPI_Status st[2 * WIN];
    while (left > 0) {
        int n = 0;
        ZT_OK(MPI_Waitsome(2 * WIN, rq, &n, idx, st));
        ZT_CHECK(n > 0 && n != MPI_UNDEFINED, "Waitsome completed %d with %d left", n, left);
        for (int k = 0; k < n; k++) {
            int i = idx[k];
            left--;
            if (i >= WIN)
                continue;
            int b = msg_bytes(peer, rnd, i);
            ZT_CHECK_STATUS(st[k], peer, TAG, b);
            ZT_CHECK_PAYLOAD(in[i], (size_t)b, peer, (long)(rnd * WIN + i));
        }
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    ZT_OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ZT_CHECK(size % 2 == 0, "an even number of ranks, not %d", size);
    int peer = rank ^ 1;
    char *out[WIN], *in[WIN];
    for (int i = 0; i < WIN; i++) {
        out[i] = zt_malloc(130 * 1024 + 7);
        in[i] = zt_malloc(130 * 1024 + 7);
    }
    MPI_Request rq[2 * WIN];
    for (int rnd = 0; rnd < ROUNDS; rnd++) {
        for (int i = 0; i < WIN; i++)
            memset(in[i], 0, 130 * 1024 + 7);
        if (rnd % 2 == 0) {
            post_recvs(in, rq, peer);
            post_sends(out, rq + WIN, rank, peer, rnd);
        } else {
            post_sends(out, rq + WIN, rank, peer, rnd);
            post_recvs(in, rq, peer);
        }
        complete_round(in, rq, peer, rnd);
    }
    for (int i = 0; i < WIN; i++) {
        free(out[i]);
        free(in[i]);
    }
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Finalize();
    return 0;
}
