/*
 * part_empty.c: partitioned transfers of an empty message (count 0 per
 * partition), as mpi4py's ring test makes them: after MPI_Start a receive
 * partition has not arrived until the sender has readied its partitions,
 * even though there is no byte to move; then every partition has arrived
 * and both requests complete.  A ring over all ranks, three rounds, 1 to 3
 * partitions on each side.
 */
#include "zt.h"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int dest = (rank + 1) % size, source = (rank + size - 1) % size;
    char sbuf[1], rbuf[1];
    for (int p = 1; p <= 3; p++) {
        MPI_Request sreq, rreq;
        ZT_OK(MPI_Psend_init(sbuf, p, 0, MPI_CHAR, dest, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                             &sreq));
        ZT_OK(MPI_Precv_init(rbuf, p, 0, MPI_CHAR, source, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                             &rreq));
        for (int round = 0; round < 3; round++) {
            int flag = -1;
            ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
            ZT_OK(MPI_Start(&rreq));
            for (int i = 0; i < p; i++) {
                ZT_OK(MPI_Parrived(rreq, i, &flag));
                ZT_CHECK(!flag, "partition %d of an empty message arrived before Pready", i);
            }
            ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
            ZT_OK(MPI_Start(&sreq));
            for (int i = 0; i < p; i++)
                ZT_OK(MPI_Pready(i, sreq));
            ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
            for (int i = 0; i < p; i++) {
                ZT_OK(MPI_Parrived(rreq, i, &flag));
                ZT_CHECK(flag, "partition %d not arrived after every Pready", i);
            }
            ZT_OK(MPI_Wait(&rreq, MPI_STATUS_IGNORE));
            ZT_OK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
        }
        ZT_OK(MPI_Request_free(&sreq));
        ZT_OK(MPI_Request_free(&rreq));
    }
    MPI_Finalize();
    return 0;
}
