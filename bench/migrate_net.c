/*
 * migrate_net.c: the cost of moving ranks between processes with
 * ZMPI_Migrate (docs/migrate.md, "Across processes"), against the size
 * of what moves.
 *
 *   zmpirun --checkpoint -n 4 -p 2 --interleave -w 1 ./migrate_net [MiB...]
 *   (with ZMPI_LB_PROC=rotate: every rank moves at every call)
 *
 * For each heap size (MiB per rank, default 0 1 16 64) every rank
 * allocates and writes that much, then calls ZMPI_Migrate STEPS times;
 * rank 0 prints the median and the spread of the calls' time as rank 0
 * saw it (a barrier first, so that all start together), and whether it
 * moved.  With ZMPI_LB_PROC=none the same calls move nothing: the cost
 * of the agreement alone.  With MIGRATE_NET_BARRIER set, or built by
 * another MPI (no ZMPI_HAS_MIGRATE), it times MPI_Barrier instead: the
 * floor of a step that every rank of the job must reach.
 *
 * MIGRATE_NET_COMMS=K: every rank holds K duplicates of MPI_COMM_WORLD
 * (they move with it, docs/migrate.md), and after each call runs one
 * MPI_Allreduce on each; rank 0 prints their median time too: the first
 * collective on a communicator after a call that moved ranks attaches
 * its collective state anew.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#define STEPS 9

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static MPI_Comm *held;
static int nheld;

/* One size: STEPS calls, their times at rank 0 (ms) into t, sorted, and
 * the time of the Allreduces on the held communicators after each call
 * into c, sorted. */
static int measure(size_t mib, double *t, double *c, int barrier)
{
    size_t bytes = mib << 20;
    char *heap = bytes ? malloc(bytes) : NULL;
    int moves = 0;
    if (bytes && !heap)
        return -1;
    if (heap)
        memset(heap, 0x5a, bytes);
    for (int s = 0; s < STEPS; s++) {
        pid_t before = getpid();
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
#ifdef ZMPI_HAS_MIGRATE
        if (!barrier)
            ZMPI_Migrate(MPI_INFO_NULL);
        else
#endif
            MPI_Barrier(MPI_COMM_WORLD);
        t[s] = (MPI_Wtime() - t0) * 1e3;
        moves += getpid() != before;
        double t1 = MPI_Wtime();
        for (int k = 0; k < nheld; k++) {
            int one = 1, sum = 0;
            MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, held[k]);
        }
        c[s] = (MPI_Wtime() - t1) * 1e3;
    }
    for (size_t i = 0; i < bytes; i += 4096)
        if (heap[i] != 0x5a)
            return -2;
    free(heap);
    qsort(t, STEPS, sizeof *t, cmp);
    qsort(c, STEPS, sizeof *c, cmp);
    return moves;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static const size_t dflt[] = { 0, 1, 16, 64 };
    int nsizes = argc > 1 ? argc - 1 : 4;
    nheld = getenv("MIGRATE_NET_COMMS") ? atoi(getenv("MIGRATE_NET_COMMS")) : 0;
    held = malloc(sizeof(MPI_Comm) * (size_t)(nheld > 0 ? nheld : 1));
    for (int k = 0; k < nheld; k++)
        MPI_Comm_dup(MPI_COMM_WORLD, &held[k]);
    if (rank == 0)
        printf("# %d ranks; per call at rank 0: median ms [min, max] of %d calls; "
               "moves of rank 0\n", size, STEPS);
    for (int k = 0; k < nsizes; k++) {
        size_t mib = argc > 1 ? (size_t)atol(argv[k + 1]) : dflt[k];
        double t[STEPS], c[STEPS];
        int moves = measure(mib, t, c, getenv("MIGRATE_NET_BARRIER") != NULL);
        if (moves < 0) {
            fprintf(stderr, "rank %d: %s\n", rank, moves == -1 ? "out of memory" : "heap changed");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (rank == 0)
            printf("heap %4zu MiB/rank: %8.3f ms [%.3f, %.3f], %d of %d calls moved rank 0; "
                   "%d allreduces after: %.3f ms [%.3f, %.3f]\n", mib, t[STEPS / 2], t[0],
                   t[STEPS - 1], moves, STEPS, nheld, c[STEPS / 2], c[0], c[STEPS - 1]);
    }
    for (int k = 0; k < nheld; k++)
        MPI_Comm_free(&held[k]);
    free(held);
    MPI_Finalize();
    return 0;
}
