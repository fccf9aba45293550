/*
 * net_bw_burst.c: bursts of more envelopes than a process preposts
 * receives for (src/net/net_env.c: 16, or 64 within a node with MPICH),
 * between ranks 0 and 1 of different processes.  Sizes run from 0 to
 * 8 KiB + 100 bytes, so a burst mixes batched envelopes, eager ones sent
 * one by one and, with Open MPI, rendezvous.  Run across processes
 * (tests/net.cmake: 2 processes x 1 rank, 2 processes x 2 ranks
 * interleaved, for each backend) and in one process, where the checks
 * hold alike.
 *
 *   unexpected  rank 0 sends a burst of N messages to rank 1 and then a
 *               "go" on another tag; rank 1 first waits for the go, so
 *               under zmpi the burst has arrived before any receive is
 *               posted (it overflowed the preposted receives into the
 *               system MPI's own queue and wrapped around their ring),
 *               then receives the burst, alternately by source and tag
 *               and by MPI_ANY_SOURCE / MPI_ANY_TAG, checking order, size,
 *               tag and every byte;
 *   both        ranks 0 and 1 each post N receives (every other one from
 *               MPI_ANY_SOURCE), tell each other so, then send each
 *               other a burst of N non-blocking sends and wait for all:
 *               the i-th receive must hold the i-th message.
 */
#include "zt.h"

#include <stdlib.h>
#include <string.h>

#define N (3 * 64 + 5)
#define MAXB (8 * 1024 + 100)
#define TAG_BURST 21
#define TAG_GO 22

/* Size of sender src's message i: all sizes from 0 to MAXB turn up. */
static int burst_bytes(int src, long i)
{
    zt_rng r = zt_rng_make(0xb0257u + (uint64_t)src, (uint64_t)i);
    long k = zt_rng_below(&r, 4);
    if (k == 0)
        return (int)zt_rng_below(&r, 300);
    if (k == 1)
        return 300 + (int)zt_rng_below(&r, 2200 - 300);
    return 2200 + (int)zt_rng_below(&r, MAXB - 2200 + 1);
}

/* Rank 0's burst: N non-blocking sends, completed together. */
static void burst_send(int peer, int me, char *out, MPI_Request *rq)
{
    for (long i = 0; i < N; i++) {
        int b = burst_bytes(me, i);
        char *p = out + (size_t)i * MAXB;
        zt_fill(p, (size_t)b, me, i);
        ZT_OK(MPI_Isend(p, b, MPI_BYTE, peer, TAG_BURST, MPI_COMM_WORLD, &rq[i]));
    }
}

static void b_unexpected(int rank)
{
    char *buf = zt_malloc((size_t)N * MAXB);
    MPI_Request *rq = zt_malloc(sizeof(MPI_Request) * N);
    if (rank == 0) {
        burst_send(1, 0, buf, rq);
        ZT_OK(MPI_Send(NULL, 0, MPI_BYTE, 1, TAG_GO, MPI_COMM_WORLD));
        ZT_OK(MPI_Waitall(N, rq, MPI_STATUSES_IGNORE));
    } else if (rank == 1) {
        ZT_OK(MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (long i = 0; i < N; i++) {
            MPI_Status st;
            int b = burst_bytes(0, i), any = i % 2;
            ZT_OK(MPI_Recv(buf, MAXB, MPI_BYTE, any ? MPI_ANY_SOURCE : 0,
                           any ? MPI_ANY_TAG : TAG_BURST, MPI_COMM_WORLD, &st));
            ZT_CHECK_STATUS(st, 0, TAG_BURST, b);
            ZT_CHECK_PAYLOAD(buf, (size_t)b, 0, i);
        }
    }
    free(rq);
    free(buf);
}

static void b_both(int rank)
{
    if (rank > 1)
        return;
    int peer = 1 - rank;
    char *out = zt_malloc((size_t)N * MAXB), *in = zt_malloc((size_t)N * MAXB);
    MPI_Request *rq = zt_malloc(sizeof(MPI_Request) * 2 * N);
    MPI_Status *st = zt_malloc(sizeof(MPI_Status) * 2 * N);
    for (long i = 0; i < N; i++)
        ZT_OK(MPI_Irecv(in + (size_t)i * MAXB, MAXB, MPI_BYTE, i % 2 ? MPI_ANY_SOURCE : peer,
                        TAG_BURST, MPI_COMM_WORLD, &rq[N + i]));
    ZT_OK(MPI_Sendrecv(NULL, 0, MPI_BYTE, peer, TAG_GO, NULL, 0, MPI_BYTE, peer, TAG_GO,
                       MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    burst_send(peer, rank, out, rq);
    ZT_OK(MPI_Waitall(2 * N, rq, st));
    for (long i = 0; i < N; i++) {
        int b = burst_bytes(peer, i);
        ZT_CHECK_STATUS(st[N + i], peer, TAG_BURST, b);
        ZT_CHECK_PAYLOAD(in + (size_t)i * MAXB, (size_t)b, peer, i);
    }
    free(st);
    free(rq);
    free(in);
    free(out);
}

int main(int argc, char **argv)
{
    int rank, size;
    ZT_OK(MPI_Init(&argc, &argv));
    ZT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    ZT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    ZT_CHECK(argc > 1 && size >= 2, "usage: net_bw_burst unexpected|both");
    /* Three rounds: the ring has wrapped around several times by the
     * last, and what one round left behind would spoil the next. */
    for (int round = 0; round < 3; round++) {
        if (!strcmp(argv[1], "unexpected"))
            b_unexpected(rank);
        else if (!strcmp(argv[1], "both"))
            b_both(rank);
        else
            ZT_CHECK(0, "unknown behaviour %s", argv[1]);
        ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    ZT_OK(MPI_Finalize());
    return 0;
}
