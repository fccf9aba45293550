/*
 * p2p_waitany_race.c: MPI_Waitany while the sends that complete its
 * receives arrive from another worker at the same moment.
 *
 * Ranks pair up, r with r + size/2, which zmpirun places on another worker
 * when there are two.  The lower rank posts NREQ receives from its partner,
 * tells it to go, and takes the receives with MPI_Waitany one by one; the
 * partner sends the NREQ messages as soon as it hears.  With several ranks
 * per worker a waiter is rarely alone, so it registers at once instead of
 * polling.  Each round some receives complete just before rank 0
 * registers in them, some just after, some while it sleeps.  Waitany once
 * counted a receive completed before registration twice, and let a second
 * completer wake a rank that was still running; both hung the job.  Every
 * index must come back exactly once with its own data.
 */
#include "zt.h"

#define NREQ 4
#define ROUNDS 1000

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ZT_CHECK(size >= 2 && size % 2 == 0, "needs an even number of ranks, got %d", size);
    int half = size / 2, partner = rank < half ? rank + half : rank - half;
    for (int round = 0; round < ROUNDS; round++) {
        int go = round;
        if (rank < half) {
            int vals[NREQ], seen[NREQ] = {0};
            MPI_Request reqs[NREQ];
            for (int i = 0; i < NREQ; i++)
                ZT_OK(MPI_Irecv(&vals[i], 1, MPI_INT, partner, i, MPI_COMM_WORLD, &reqs[i]));
            ZT_OK(MPI_Send(&go, 1, MPI_INT, partner, NREQ, MPI_COMM_WORLD));
            for (int k = 0; k < NREQ; k++) {
                int idx = -1;
                MPI_Status st;
                ZT_OK(MPI_Waitany(NREQ, reqs, &idx, &st));
                ZT_CHECK(idx >= 0 && idx < NREQ, "round %d: Waitany index %d", round, idx);
                ZT_CHECK(!seen[idx], "round %d: index %d returned twice", round, idx);
                seen[idx] = 1;
                ZT_EQ(st.MPI_TAG, idx, "tag of the completed receive");
                ZT_EQ(vals[idx], round * NREQ + idx, "value received");
                ZT_CHECK(reqs[idx] == MPI_REQUEST_NULL, "round %d: request %d not freed",
                         round, idx);
            }
            int idx = 0;
            ZT_OK(MPI_Waitany(NREQ, reqs, &idx, MPI_STATUS_IGNORE));
            ZT_EQ(idx, MPI_UNDEFINED, "Waitany index with no active request");
        } else {
            int vals[NREQ];
            ZT_OK(MPI_Recv(&go, 1, MPI_INT, partner, NREQ, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            ZT_EQ(go, round, "round number");
            for (int i = 0; i < NREQ; i++) {
                vals[i] = round * NREQ + i;
                ZT_OK(MPI_Send(&vals[i], 1, MPI_INT, partner, i, MPI_COMM_WORLD));
            }
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("p2p_waitany_race: %d rounds of %d receives passed\n", ROUNDS, NREQ);
    MPI_Finalize();
    return 0;
}
