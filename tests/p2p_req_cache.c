/*
 * p2p_req_cache.c: requests taken on one worker and given back on another
 * (src/p2p/p2p.c, the per-worker request caches in front of the pool).
 *
 * Every rank exchanges windows of messages with its neighbours in a ring.
 * Between starting a window and completing it, all ranks move to other
 * workers (ZMPI_Migrate, strategy rotate), so every request is freed by a
 * worker other than the one whose cache or pool it came from.  Each round
 * also:
 *   - starts more requests than a worker's cache holds (they overflow to
 *     the pool, which sends them home);
 *   - frees pending sends with MPI_Request_free (their completer, a
 *     receiver on another worker, frees them later);
 *   - cancels a receive that nothing matches.
 * Every payload is checked byte for byte, so a request handed out twice
 * (a cache corrupted by two threads, or a free of a live request) shows
 * as a wrong message or a crash.
 *
 *   p2p_req_cache [ROUNDS]     (default 20)
 */
#include "zt.h"

#include <stdlib.h>

#define WINDOW 300 /* above ZM_P2P_REQ_CACHE_MAX (256) */
#define FREED 8    /* sends freed pending, per round */
#define TAG_WIN 1
#define TAG_FREED 2
#define TAG_NEVER 3

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int rounds = argc > 1 ? atoi(argv[1]) : 20;
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    long *out = zt_malloc(sizeof(long) * WINDOW), *in = zt_malloc(sizeof(long) * WINDOW);
    long fout[FREED], fin[FREED];
    MPI_Request q[2 * WINDOW], fq[2 * FREED];
    MPI_Info hints;
    ZT_OK(MPI_Info_create(&hints));
    ZT_OK(MPI_Info_set(hints, "zmpi_lb", "rotate"));
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < WINDOW; i++) {
            out[i] = ((long)rank << 40) | ((long)r << 20) | i;
            in[i] = -1;
            ZT_OK(MPI_Irecv(&in[i], 1, MPI_LONG, from, TAG_WIN, MPI_COMM_WORLD, &q[i]));
        }
        for (int i = 0; i < WINDOW; i++)
            ZT_OK(MPI_Isend(&out[i], 1, MPI_LONG, to, TAG_WIN, MPI_COMM_WORLD, &q[WINDOW + i]));
        for (int i = 0; i < FREED; i++) {
            fout[i] = ((long)rank << 40) | ((long)r << 20) | (1 << 19) | i;
            ZT_OK(MPI_Irecv(&fin[i], 1, MPI_LONG, from, TAG_FREED, MPI_COMM_WORLD, &fq[i]));
            ZT_OK(MPI_Isend(&fout[i], 1, MPI_LONG, to, TAG_FREED, MPI_COMM_WORLD,
                            &fq[FREED + i]));
            ZT_OK(MPI_Request_free(&fq[FREED + i]));
            ZT_CHECK(fq[FREED + i] == MPI_REQUEST_NULL, "MPI_Request_free sets the handle null");
        }
        MPI_Request never;
        long nothing;
        ZT_OK(MPI_Irecv(&nothing, 1, MPI_LONG, from, TAG_NEVER, MPI_COMM_WORLD, &never));
        /* Everyone moves while all of the above is pending. */
        ZT_OK(ZMPI_Migrate(hints));
        ZT_OK(MPI_Waitall(2 * WINDOW, q, MPI_STATUSES_IGNORE));
        ZT_OK(MPI_Waitall(FREED, fq, MPI_STATUSES_IGNORE));
        for (int i = 0; i < WINDOW; i++)
            ZT_EQ(in[i], ((long)from << 40) | ((long)r << 20) | i, "window message");
        for (int i = 0; i < FREED; i++)
            ZT_EQ(fin[i], ((long)from << 40) | ((long)r << 20) | (1 << 19) | i,
                  "message of a send freed while pending");
        ZT_OK(MPI_Cancel(&never));
        MPI_Status st;
        int flag;
        ZT_OK(MPI_Wait(&never, &st));
        ZT_OK(MPI_Test_cancelled(&st, &flag));
        ZT_CHECK(flag, "a receive nothing matches is cancelled");
        /* The freed sends' buffers are reused next round only once their
         * receivers have them. */
        ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    ZT_OK(MPI_Info_free(&hints));
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
