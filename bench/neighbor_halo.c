/*
 * neighbor_halo.c: time of one halo exchange with MPI_Neighbor_alltoall on
 * a periodic Cartesian grid over all ranks: a 2-D 5-point stencil (4
 * neighbours) and a 3-D 7-point stencil (6 neighbours), with halos of 8 B
 * to 64 KiB per neighbour by default.
 *
 * For each grid and size: warm-up exchanges, a barrier, then a timed loop;
 * each rank takes its average time per exchange and the line shows the
 * largest and the smallest of these averages over the ranks, in
 * microseconds.  Once per size, outside the timed loop, every rank checks
 * every byte of what it received: the block that neighbour n sent from its
 * slot j^1 must be in slot j, and slots of the same neighbour (dimensions
 * of size 1 or 2) must not be swapped.  The last column says whether every
 * byte was right; wrong data does not stop the run, so that libraries
 * with the swapped-slot bug of such dimensions (mpi-forum/mpi-issues#153,
 * MPICH 4.0's 3-D case on two ranks) can still be timed, but the program
 * then exits with status 2.
 *
 * Plain MPI: builds with zmpicc, mpicc.mpich and mpicc.openmpi.  No mutable
 * global or static state (under zmpi ranks are threads).
 */
#include "bench_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

/* The default largest halo: 64 KiB per neighbour. */
#define HALO_DEFAULT_MAX ((size_t)64 << 10)

/*
 * Small halos run 2000 exchanges; larger ones fewer, so that one size
 * moves about 64 MiB per rank, but never fewer than 20.
 */
static const struct bench_policy halo_policy = {
    .max_iters = 2000,
    .min_iters = 20,
    .byte_budget = 64.0 * 1024 * 1024,
    .bytes_per_iter = 6.0,
};

/* One grid: its communicator and this rank's neighbours (slot order of
 * the neighbourhood collectives: dim 0 -1, dim 0 +1, dim 1 -1, ...). */
struct grid {
    MPI_Comm comm;
    int ndims, nslots;
    int nbr[6];
    int rank;
};

static void grid_make(int ndims, struct grid *g)
{
    int nranks, dims[3] = { 0, 0, 0 }, periods[3] = { 1, 1, 1 };
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    MPI_Dims_create(nranks, ndims, dims);
    MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 0, &g->comm);
    MPI_Comm_rank(g->comm, &g->rank);
    g->ndims = ndims;
    g->nslots = 2 * ndims;
    for (int d = 0; d < ndims; d++)
        MPI_Cart_shift(g->comm, d, 1, &g->nbr[2 * d], &g->nbr[2 * d + 1]);
}

/* The byte at position i of the block rank src sends from slot j. */
static unsigned char halo_byte(int src, int j, int index, size_t i)
{
    unsigned x = (unsigned)src * 2654435761u ^ (unsigned)(j + 1) * 40503u ^
                 (unsigned)index * 977u;
    x += (unsigned)i * 7u + (unsigned)(i >> 8) * 13u;
    return (unsigned char)(x ^ (x >> 11));
}

static void exchange(const struct grid *g, unsigned char *sbuf, unsigned char *rbuf,
                     size_t size, long iters)
{
    for (long i = 0; i < iters; i++)
        MPI_Neighbor_alltoall(sbuf, (int)size, MPI_BYTE, rbuf, (int)size, MPI_BYTE, g->comm);
}

/* One checked exchange; returns the number of wrong bytes received. */
static long check_once(const struct grid *g, unsigned char *sbuf, unsigned char *rbuf,
                       size_t size, int index)
{
    long wrong = 0;
    for (int j = 0; j < g->nslots; j++)
        for (size_t i = 0; i < size; i++)
            sbuf[(size_t)j * size + i] = halo_byte(g->rank, j, index, i);
    memset(rbuf, 0, size * (size_t)g->nslots);
    exchange(g, sbuf, rbuf, size, 1);
    for (int j = 0; j < g->nslots; j++)
        for (size_t i = 0; i < size; i++)
            wrong += rbuf[(size_t)j * size + i] != halo_byte(g->nbr[j], j ^ 1, index, i);
    return wrong;
}

/* Measures one size on one grid and prints its line on rank 0; returns
 * (on rank 0) whether any rank received wrong data. */
static int measure(const struct grid *g, unsigned char *sbuf, unsigned char *rbuf, size_t size,
                    int index, double factor)
{
    struct bench_iters it = bench_iters_for(&halo_policy, size, factor);
    exchange(g, sbuf, rbuf, size, it.warmup);
    long wrong = check_once(g, sbuf, rbuf, size, index), all_wrong = 0;
    MPI_Barrier(g->comm);
    double t = MPI_Wtime();
    exchange(g, sbuf, rbuf, size, it.timed);
    double avg = (MPI_Wtime() - t) * 1e6 / (double)it.timed, most = 0, least = 0;
    MPI_Reduce(&avg, &most, 1, MPI_DOUBLE, MPI_MAX, 0, g->comm);
    MPI_Reduce(&avg, &least, 1, MPI_DOUBLE, MPI_MIN, 0, g->comm);
    MPI_Reduce(&wrong, &all_wrong, 1, MPI_LONG, MPI_SUM, 0, g->comm);
    if (g->rank == 0) {
        printf("%-6s %-10zu %14.3f %14.3f %10ld %6s\n", g->ndims == 2 ? "2d" : "3d", size,
               most, least, it.timed, all_wrong ? "WRONG" : "ok");
        fflush(stdout);
    }
    return all_wrong != 0;
}

int main(int argc, char **argv)
{
    int rank, nranks;
    struct bench_opts opts;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int rc = bench_parse_args(argc, argv, "halo exchange with MPI_Neighbor_alltoall", 8, &opts,
                              rank);
    if (rc != 0) {
        MPI_Finalize();
        return rc < 0 ? 1 : 0;
    }
    /* Halos, not bulk transfers: unless -m says otherwise, stop at 64 KiB. */
    if (opts.max_bytes == BENCH_DEFAULT_MAX)
        opts.max_bytes = HALO_DEFAULT_MAX;
    unsigned char *sbuf = bench_alloc(opts.max_bytes * 6, 0);
    unsigned char *rbuf = bench_alloc(opts.max_bytes * 6, 0);
    if (rank == 0) {
        printf("# zmpi bench: halo exchange, MPI_Neighbor_alltoall on a periodic Cartesian "
               "grid (2d: 4 neighbours, 3d: 6); time per exchange, max and min over ranks of "
               "the average\n");
        printf("# ranks: %d\n", nranks);
        printf("# sizes: %zu to %zu bytes per neighbour, iteration factor %g\n",
               bench_first_size(&opts), opts.max_bytes, opts.iter_factor);
        printf("# %-4s %-10s %14s %14s %10s %6s\n", "grid", "size", "max_us", "min_us",
               "iters", "data");
        fflush(stdout);
    }
    int wrong = 0;
    for (int ndims = 2; ndims <= 3; ndims++) {
        struct grid g;
        grid_make(ndims, &g);
        int index = 0;
        for (size_t size = bench_first_size(&opts); size <= opts.max_bytes;
             size = bench_next_size(size), index++)
            wrong |= measure(&g, sbuf, rbuf, size, index, opts.iter_factor);
        MPI_Comm_free(&g.comm);
    }
    if (rank == 0 && wrong)
        printf("# WRONG: some exchanges delivered wrong data (see the data column)\n");
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return rank == 0 && wrong ? 2 : 0;
}
