/*
 * debug_checkers.c: an MPI program for memory checkers (valgrind's
 * memcheck, AddressSanitizer) on virtual ranks.  Without an argument it is
 * clean: point-to-point, collectives, a derived datatype and a window,
 * each checked, and the checker must report nothing.  With an argument the
 * last rank makes one deliberate mistake, on the line marked "MARK
 * <mistake>", which the checker must report with this file and that line:
 *   invalid_read   reads one int past a malloc'ed block
 *   uninit         branches on an uninitialised heap value
 *   heap_overflow  writes one int past a malloc'ed block
 * Run by tests/debug_valgrind.sh and tests/debug_asan.sh.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Each rank's copy of a privatized program has its own; linked with
 * -zmpi-no-privatize the ranks share it (both are checked). */
int g_rank = -1;

/* Messages around a ring, blocking and non-blocking; returns nonzero on a
 * wrong value. */
static int ring(int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int got = -1, bad = 0;
    MPI_Sendrecv(&rank, 1, MPI_INT, right, 1, &got, 1, MPI_INT, left, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    bad |= got != left;
    double v[8], w[8];
    MPI_Request rq[2];
    for (int i = 0; i < 8; i++)
        v[i] = rank * 10 + i;
    MPI_Irecv(w, 8, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(v, 8, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    return bad | (w[3] != left * 10 + 3);
}

/* Allreduce, Bcast and Alltoall. */
static int collectives(int rank, int size)
{
    int sum = 0, root_val = rank == 0 ? 77 : 0, bad = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Bcast(&root_val, 1, MPI_INT, 0, MPI_COMM_WORLD);
    bad |= sum != size * (size - 1) / 2 || root_val != 77;
    int *all = malloc(sizeof(int) * (size_t)size), *mine = malloc(sizeof(int) * (size_t)size);
    for (int i = 0; i < size; i++)
        mine[i] = rank * 100 + i;
    MPI_Alltoall(mine, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < size; i++)
        bad |= all[i] != i * 100 + rank;
    free(all);
    free(mine);
    return bad;
}

/* A column of a 4x4 matrix (a vector type) to the right neighbour, and a
 * Put into its window. */
static int datatype_and_window(int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size, bad = 0;
    int m[16], col[4];
    MPI_Datatype column;
    for (int i = 0; i < 16; i++)
        m[i] = rank * 16 + i;
    MPI_Type_vector(4, 1, 4, MPI_INT, &column);
    MPI_Type_commit(&column);
    MPI_Sendrecv(m + 1, 1, column, right, 3, col, 4, MPI_INT, left, 3, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Type_free(&column);
    for (int i = 0; i < 4; i++)
        bad |= col[i] != left * 16 + 1 + 4 * i;
    int *base;
    MPI_Win win;
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    *base = -1;
    MPI_Win_fence(0, win);
    MPI_Put(&rank, 1, MPI_INT, right, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    bad |= *base != left;
    MPI_Win_free(&win);
    return bad;
}

/* The deliberate mistake `what`. */
static void mistake(const char *what)
{
    int *volatile p = malloc(4 * sizeof(int));
    if (!strcmp(what, "invalid_read"))
        printf("read %d\n", p[4]); /* MARK invalid_read */
    if (!strcmp(what, "uninit") && p[2] > 0) /* MARK uninit */
        printf("positive\n");
    if (!strcmp(what, "heap_overflow"))
        p[4] = 1; /* MARK heap_overflow */
    free(p);
}

int main(int argc, char **argv)
{
    int rank, size, bad, any = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    g_rank = rank;
    bad = ring(rank, size) | collectives(rank, size) | datatype_and_window(rank, size);
    MPI_Barrier(MPI_COMM_WORLD);
    bad |= g_rank < 0 || g_rank >= size;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (argc > 1 && rank == size - 1)
        mistake(argv[1]);
    if (rank == 0)
        printf(any ? "FAIL: wrong values\n" : "debug_checkers: ok\n");
    MPI_Finalize();
    return any;
}
