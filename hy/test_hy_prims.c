/*
 * test_hy_prims.c: checks the zmpi_hy primitives against values computed
 * locally: allgather, broadcast from every root, allreduce of small and
 * large vectors (integer sum, double max, and a non-commutative user op),
 * each repeated so that reuse of the regions is exercised.
 *
 * Usage: test_hy_prims [-iters K].  Prints "hy prims OK" on rank 0 and
 * exits 0 when every check passes; otherwise reports the first mismatch
 * and calls MPI_Abort.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "zmpi_hy.h"

/* Aborts with a message naming the failed check. */
static void fail(int rank, const char *what, long where, long got, long want)
{
    fprintf(stderr, "rank %d: %s wrong at %ld: got %ld, expected %ld\n",
            rank, what, where, got, want);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* The value rank r puts at index i in iteration it. */
static int value_of(int r, long i, int it)
{
    return (int)((r * 7919L + i * 31L + it * 131L) % 100003L);
}

/* A non-commutative, associative op on MPI_2INT pairs (affine maps
 * x -> a*x + b composed modulo 2^31 - 1): inout = in o inout. */
static void compose(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const long long m = 2147483647LL;
    int *a = in, *b = inout;
    for (int i = 0; i < 2 * *len; i += 2) {
        long long a1 = a[i], b1 = a[i + 1], a2 = b[i], b2 = b[i + 1];
        /* (f o g)(x) = f(g(x)) with f = in, g = inout. */
        b[i] = (int)(a1 * a2 % m);
        b[i + 1] = (int)((a1 * b2 + b1) % m);
    }
}

/* Checks allgather of n ints per rank. */
static void check_allgather(zmpi_hy_comm *hy, int n, int it)
{
    zmpi_hy_region reg;
    zmpi_hy_alloc(hy, (size_t)n * sizeof(int), &reg);
    for (int k = 0; k < 3; k++) {
        int *mine = (int *)reg.slice;
        for (int i = 0; i < n; i++)
            mine[i] = value_of(hy->rank, i, it + k);
        zmpi_hy_allgather(hy, &reg);
        const int *all = (const int *)reg.base;
        for (int r = 0; r < hy->size; r++)
            for (int i = 0; i < n; i++)
                if (all[(long)r * n + i] != value_of(r, i, it + k))
                    fail(hy->rank, "allgather", (long)r * n + i,
                         all[(long)r * n + i], value_of(r, i, it + k));
        /* Nobody may write a slice while others still read the result. */
        zmpi_hy_node_sync(hy);
    }
    zmpi_hy_free(hy, &reg);
}

/* Checks a broadcast of n ints from every root. */
static void check_bcast(zmpi_hy_comm *hy, int n, int it)
{
    zmpi_hy_region reg;
    /* The data sits behind an offset of n ints in the slice. */
    zmpi_hy_alloc(hy, (size_t)n * 2 * sizeof(int), &reg);
    for (int root = 0; root < hy->size; root++) {
        if (hy->rank == root)
            for (int i = 0; i < n; i++)
                ((int *)reg.slice)[n + i] = value_of(root, i, it);
        void *data = NULL;
        zmpi_hy_bcast(hy, &reg, (size_t)n * sizeof(int), (size_t)n * sizeof(int),
                      root, &data);
        for (int i = 0; i < n; i++)
            if (((int *)data)[i] != value_of(root, i, it))
                fail(hy->rank, "bcast", i, ((int *)data)[i],
                     value_of(root, i, it));
    }
    zmpi_hy_node_sync(hy);
    zmpi_hy_free(hy, &reg);
}

/* Checks integer sum and double max allreduce of n elements. */
static void check_allreduce(zmpi_hy_comm *hy, int n, int it)
{
    zmpi_hy_region reg;
    zmpi_hy_alloc(hy, (size_t)n * sizeof(double), &reg);
    for (int k = 0; k < 3; k++) {
        int *in = (int *)reg.slice;
        for (int i = 0; i < n; i++)
            in[i] = value_of(hy->rank, i, it + k);
        void *res = NULL;
        zmpi_hy_allreduce(hy, &reg, n, MPI_INT, MPI_SUM, &res);
        for (int i = 0; i < n; i++) {
            long want = 0;
            for (int r = 0; r < hy->size; r++)
                want += value_of(r, i, it + k);
            if (((int *)res)[i] != (int)want)
                fail(hy->rank, "allreduce sum", i, ((int *)res)[i], want);
        }
        double *d = (double *)reg.slice;
        for (int i = 0; i < n; i++)
            d[i] = value_of(hy->rank, i, it + k) * 0.5;
        zmpi_hy_allreduce(hy, &reg, n, MPI_DOUBLE, MPI_MAX, &res);
        for (int i = 0; i < n; i++) {
            double want = 0;
            for (int r = 0; r < hy->size; r++)
                if (value_of(r, i, it + k) * 0.5 > want)
                    want = value_of(r, i, it + k) * 0.5;
            if (((double *)res)[i] != want)
                fail(hy->rank, "allreduce max", i,
                     (long)((double *)res)[i], (long)want);
        }
    }
    zmpi_hy_free(hy, &reg);
}

/* Checks a non-commutative user op: the result must be the composition
 * in rank order. */
static void check_noncommutative(zmpi_hy_comm *hy, int pairs)
{
    MPI_Op op;
    MPI_Op_create(compose, 0, &op);
    zmpi_hy_region reg;
    zmpi_hy_alloc(hy, (size_t)pairs * 2 * sizeof(int), &reg);
    int *in = (int *)reg.slice;
    for (int i = 0; i < pairs; i++) {
        in[2 * i] = 2 + (hy->rank + i) % 5;
        in[2 * i + 1] = 1 + (hy->rank * 3 + i) % 7;
    }
    void *res = NULL;
    zmpi_hy_allreduce(hy, &reg, pairs, MPI_2INT, op, &res);
    for (int i = 0; i < pairs; i++) {
        /* Fold from the highest rank down: acc = x_r o acc. */
        long long a = 1, b = 0;
        const long long m = 2147483647LL;
        for (int r = hy->size - 1; r >= 0; r--) {
            long long a1 = 2 + (r + i) % 5, b1 = 1 + (r * 3 + i) % 7;
            long long na = a1 * a % m, nb = (a1 * b + b1) % m;
            a = na;
            b = nb;
        }
        if (((int *)res)[2 * i] != a || ((int *)res)[2 * i + 1] != b)
            fail(hy->rank, "allreduce non-commutative", i,
                 ((int *)res)[2 * i + 1], b);
    }
    zmpi_hy_free(hy, &reg);
    MPI_Op_free(&op);
}

int main(int argc, char **argv)
{
    int iters = 3;
    MPI_Init(&argc, &argv);
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "-iters") == 0)
            iters = atoi(argv[i + 1]);
    zmpi_hy_comm hy;
    if (zmpi_hy_comm_create(MPI_COMM_WORLD, &hy) != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 2);
    static const int sizes[] = {1, 3, 100, 4096, 70000};
    for (int it = 0; it < iters; it++)
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
            check_allgather(&hy, sizes[s], it);
            if (sizes[s] <= 4096)
                check_bcast(&hy, sizes[s], it);
            check_allreduce(&hy, sizes[s], it);
        }
    check_noncommutative(&hy, 3);
    check_noncommutative(&hy, 5000);
    if (hy.rank == 0)
        printf("hy prims OK: %d ranks on %d nodes\n", hy.size, hy.nnodes);
    zmpi_hy_comm_free(&hy);
    MPI_Finalize();
    return 0;
}
