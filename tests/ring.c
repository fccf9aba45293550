/*
 * ring.c: a token travels several laps around a ring of all ranks, each
 * rank checking the value it receives; then an Allreduce confirms that
 * every rank took part.  Meant for very many ranks on few workers.
 * Usage: ring [laps]
 */
#include "zt.h"

int main(int argc, char **argv)
{
    int rank, size, laps = argc > 1 ? atoi(argv[1]) : 3;
    long long token, mine, sum = -1;
    MPI_Status st;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ZT_CHECK(size >= 2 && laps >= 1, "needs 2 ranks and a lap, has %d, %d",
             size, laps);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (long long lap = 0; lap < laps; lap++) {
        long long base = lap * size;
        if (rank == 0) {
            token = base;
            ZT_OK(MPI_Send(&token, 1, MPI_LONG_LONG, right, 1, MPI_COMM_WORLD));
            ZT_OK(MPI_Recv(&token, 1, MPI_LONG_LONG, left, 1, MPI_COMM_WORLD, &st));
            ZT_EQ(token, base + size - 1, "token back at rank 0");
        } else {
            ZT_OK(MPI_Recv(&token, 1, MPI_LONG_LONG, left, 1, MPI_COMM_WORLD, &st));
            ZT_EQ(token, base + rank - 1, "token received");
            ZT_CHECK_STATUS(st, left, 1, (int)sizeof token);
            token++;
            ZT_OK(MPI_Send(&token, 1, MPI_LONG_LONG, right, 1, MPI_COMM_WORLD));
        }
    }
    mine = rank;
    ZT_OK(MPI_Allreduce(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
    ZT_EQ(sum, (long long)size * (size - 1) / 2, "sum of all ranks");
    MPI_Finalize();
    return 0;
}
