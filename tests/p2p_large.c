/*
 * p2p_large.c: messages larger than the last-level cache (which zmpi copies
 * with streaming stores, split between sender and receiver) arrive intact,
 * at unaligned addresses and odd lengths, whether the receive is posted
 * first or the send is.  Ranks work in pairs (0,1), (2,3), ...
 */
#include "zt.h"

#define BIG ((24 << 20) + 13)

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int peer = rank ^ 1;
    if (peer < size) {
        /* One byte of offset on each side makes every copy unaligned. */
        unsigned char *sbase = zt_malloc(BIG + 16), *rbase = zt_malloc(BIG + 16);
        unsigned char *sbuf = sbase + 1, *rbuf = rbase + 3;
        for (long round = 0; round < 4; round++) {
            long seq = round * 2 + (rank & 1);
            MPI_Status st;
            MPI_Request r;
            zt_fill(sbuf, BIG, rank, seq);
            memset(rbuf, 0, BIG);
            if (round % 2 == 0) {
                /* Receive posted before the send: the sender copies. */
                ZT_OK(MPI_Irecv(rbuf, BIG, MPI_BYTE, peer, 5, MPI_COMM_WORLD, &r));
                ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
                ZT_OK(MPI_Send(sbuf, BIG, MPI_BYTE, peer, 5, MPI_COMM_WORLD));
                ZT_OK(MPI_Wait(&r, &st));
            } else {
                /* Send queued before the receive: the receiver copies. */
                ZT_OK(MPI_Isend(sbuf, BIG, MPI_BYTE, peer, 6, MPI_COMM_WORLD, &r));
                ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
                ZT_OK(MPI_Recv(rbuf, BIG, MPI_BYTE, peer, 6, MPI_COMM_WORLD, &st));
                ZT_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
            }
            ZT_CHECK_STATUS(st, peer, round % 2 ? 6 : 5, BIG);
            ZT_CHECK_PAYLOAD(rbuf, BIG, peer, round * 2 + (peer & 1));
        }
        free(sbase);
        free(rbase);
    } else {
        for (int round = 0; round < 4; round++)
            ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    MPI_Finalize();
    return 0;
}
