/*
 * pcoll_allreduce.c: latency of a blocking MPI_Allreduce against a started
 * persistent one (MPI_Allreduce_init once, then MPI_Start + MPI_Wait per
 * call), MPI_INT / MPI_SUM, 8 B to 64 KiB per rank.
 *
 * For each size and form: warm-up calls, then a timed loop; each rank
 * takes its average time per call and the printed latency is the largest
 * of these averages (as the OSU benchmarks do).  The two forms alternate
 * in several passes and the best pass of each is kept, which damps the
 * noise of a shared machine.  The result of one call per size and form is
 * checked in full; a mismatch aborts.
 *
 * Usage: pcoll_allreduce [max_bytes [seconds_per_size]]
 * Plain MPI 4 (builds with any MPI that has persistent collectives); no
 * mutable global state (under zmpi ranks are threads).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PASSES 3

/* Fill the input of call `seq` and check the output against the sum. */
static void fill(int *in, int n, int rank, int seq)
{
    for (int i = 0; i < n; i++)
        in[i] = rank + i + seq;
}

static void check(const int *out, int n, int nranks, int seq, const char *form)
{
    for (int i = 0; i < n; i++) {
        long want = (long)nranks * (nranks - 1) / 2 + (long)nranks * (i + seq);
        if (out[i] != (int)want) {
            fprintf(stderr, "pcoll_allreduce: %s, element %d is %d, expected %ld\n", form, i,
                    out[i], want);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
}

/* Average seconds per call of `iters` calls of one form (persistent when
 * req is not NULL), the largest over the ranks. */
static double timed(int *in, int *out, int n, long iters, MPI_Request *req)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long k = 0; k < iters; k++) {
        if (req) {
            MPI_Start(req);
            MPI_Wait(req, MPI_STATUS_IGNORE);
        } else {
            MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        }
    }
    double mine = (MPI_Wtime() - t0) / (double)iters, worst;
    MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

/* Iterations that take about `budget` seconds, from a short trial. */
static long calibrate(int *in, int *out, int n, MPI_Request *req, double budget)
{
    double t = timed(in, out, n, 20, req);
    long iters = t > 0 ? (long)(budget / t) : 100000;
    return iters < 20 ? 20 : iters > 200000 ? 200000 : iters;
}

int main(int argc, char **argv)
{
    int rank, nranks;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    size_t max_bytes = argc > 1 ? (size_t)atol(argv[1]) : 65536;
    double budget = argc > 2 ? atof(argv[2]) : 0.2;
    int *in = malloc(max_bytes), *out = malloc(max_bytes);
    if (!in || !out)
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (rank == 0)
        printf("# Allreduce latency (us), %d ranks: blocking vs started persistent\n"
               "# %10s %12s %12s %8s\n", nranks, "bytes", "blocking", "persistent", "ratio");
    for (size_t bytes = 8; bytes <= max_bytes; bytes *= 2) {
        int n = (int)(bytes / sizeof(int));
        MPI_Request req;
        MPI_Allreduce_init(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
        /* Check both forms once, with fresh data. */
        fill(in, n, rank, 1);
        MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        check(out, n, nranks, 1, "blocking");
        fill(in, n, rank, 2);
        MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        check(out, n, nranks, 2, "persistent");
        long ib = calibrate(in, out, n, NULL, budget / PASSES / 2);
        long ip = calibrate(in, out, n, &req, budget / PASSES / 2);
        double best_b = 1e30, best_p = 1e30;
        for (int pass = 0; pass < PASSES; pass++) {
            double b = timed(in, out, n, ib, NULL), p = timed(in, out, n, ip, &req);
            best_b = b < best_b ? b : best_b;
            best_p = p < best_p ? p : best_p;
        }
        if (rank == 0)
            printf("  %10zu %12.3f %12.3f %8.2f\n", bytes, best_b * 1e6, best_p * 1e6,
                   best_p > 0 ? best_b / best_p : 0.0);
        MPI_Request_free(&req);
    }
    free(in);
    free(out);
    MPI_Finalize();
    return 0;
}
