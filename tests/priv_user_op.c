/*
 * priv_user_op.c: a user reduction in a privatized program.
 *
 * Linked for privatization, every rank runs its own copy of the program,
 * so the function given to MPI_Op_create sits at a different address in
 * each rank.  The collectives must still treat the ranks' operations as the
 * same one (HPCC's RandomAccess and PTRANS reduce so).  The function also
 * counts its calls in a global, which stays per rank.
 */
#include "zt.h"

static long calls; /* per rank under privatization */

static void sum_sq(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    long *a = in, *b = inout;
    (void)dt;
    calls++;
    for (int i = 0; i < *len; i++)
        b[i] += a[i];
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Op op;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ZT_OK(MPI_Op_create(sum_sq, 1, &op));
    for (int round = 0; round < 10; round++) {
        long mine[3] = {rank, (long)rank * rank, round}, all[3];
        ZT_OK(MPI_Allreduce(mine, all, 3, MPI_LONG, op, MPI_COMM_WORLD));
        ZT_EQ(all[0], (long)size * (size - 1) / 2, "sum of ranks");
        ZT_EQ(all[1], (long)(size - 1) * size * (2 * size - 1) / 6, "sum of squares");
        ZT_EQ(all[2], (long)round * size, "sum of the round number");
        ZT_OK(MPI_Reduce(mine, all, 3, MPI_LONG, op, size - 1, MPI_COMM_WORLD));
        if (rank == size - 1)
            ZT_EQ(all[0], (long)size * (size - 1) / 2, "reduced sum of ranks");
    }
    /* Free the op as soon as this rank leaves MPI_Reduce, which MPI
     * allows: a non-root rank may leave before the root has checked its
     * arguments, so the collective must hold the op (it once read freed
     * memory here). */
    ZT_OK(MPI_Op_free(&op));
    long total = 0, c = calls;
    ZT_OK(MPI_Allreduce(&c, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    ZT_CHECK(size == 1 || total > 0, "the user function was never called");
    if (rank == 0)
        printf("priv_user_op: %d ranks agree, user function called %ld times\n", size, total);
    MPI_Finalize();
    return 0;
}
