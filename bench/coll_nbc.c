/*
 * coll_nbc.c: latency of non-blocking collectives started and waited for
 * at once (MPI_Ibarrier + MPI_Wait, MPI_Iallreduce + MPI_Wait of MPI_DOUBLE
 * sums, 8 B to 64 KiB per rank), next to their blocking forms.
 *
 * For each case: warm-up calls, then a timed loop; each rank takes its
 * average time per call and the printed latency is the largest of these
 * averages (as the OSU benchmarks do).  The cases alternate in several
 * passes and the best pass of each is kept, which damps the noise of a
 * shared machine.  One result per size is checked; a wrong one aborts.
 *
 * Usage: coll_nbc [max_bytes [seconds_per_case]]
 * Plain MPI 3 (builds with any MPI); no mutable global state (under zmpi
 * ranks are threads).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PASSES 3

enum { IBARRIER, BARRIER, IALLREDUCE, ALLREDUCE, NCASES };
static const char *const names[NCASES] = { "Ibarrier", "Barrier", "Iallreduce", "Allreduce" };

/* One call of case c on n doubles. */
static void call(int c, double *in, double *out, int n)
{
    MPI_Request q;
    switch (c) {
    case IBARRIER:
        MPI_Ibarrier(MPI_COMM_WORLD, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        break;
    case BARRIER:
        MPI_Barrier(MPI_COMM_WORLD);
        break;
    case IALLREDUCE:
        MPI_Iallreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        break;
    default:
        MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
}

/* Average seconds per call of `iters` calls, the largest over the ranks. */
static double timed(int c, double *in, double *out, int n, long iters)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long k = 0; k < iters; k++)
        call(c, in, out, n);
    double mine = (MPI_Wtime() - t0) / (double)iters, worst;
    MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

/* Sums of small integers are exact in any order: every rank checks. */
static void check(const double *out, int n, int nranks, const char *what)
{
    for (int i = 0; i < n; i++) {
        double want = (double)nranks * (nranks - 1) / 2 + (double)nranks * (i % 7);
        if (out[i] != want) {
            fprintf(stderr, "coll_nbc: %s, element %d is %g, expected %g\n", what, i, out[i],
                    want);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    size_t maxb = argc > 1 ? (size_t)atol(argv[1]) : 65536;
    double secs = argc > 2 ? atof(argv[2]) : 0.3;
    int maxn = (int)(maxb / sizeof(double));
    double *in = malloc(sizeof(double) * (size_t)(maxn ? maxn : 1));
    double *out = malloc(sizeof(double) * (size_t)(maxn ? maxn : 1));
    for (int i = 0; i < maxn; i++)
        in[i] = rank + i % 7;
    if (rank == 0)
        printf("# coll_nbc: %d ranks; latency in us (largest rank average, best of %d "
               "passes)\n# %-10s %8s %10s\n", nranks, PASSES, "call", "bytes", "us");
    for (int n = 1; n <= (maxn ? maxn : 1); n *= 8) {
        double best[NCASES];
        long iters[NCASES];
        for (int c = 0; c < NCASES; c++) {
            if (n > 1 && (c == IBARRIER || c == BARRIER))
                continue; /* no data: measured once */
            /* Calibrate: about secs / PASSES of calls per pass. */
            double t = timed(c, in, out, n, 10);
            iters[c] = (long)(secs / PASSES / (t > 1e-7 ? t : 1e-7));
            if (iters[c] < 10)
                iters[c] = 10;
            best[c] = 1e30;
            if (c == IALLREDUCE || c == ALLREDUCE) {
                memset(out, 0, sizeof(double) * (size_t)n);
                call(c, in, out, n);
                check(out, n, nranks, names[c]);
            }
        }
        for (int pass = 0; pass < PASSES; pass++)
            for (int c = 0; c < NCASES; c++) {
                if (n > 1 && (c == IBARRIER || c == BARRIER))
                    continue;
                double t = timed(c, in, out, n, iters[c]);
                if (t < best[c])
                    best[c] = t;
            }
        for (int c = 0; c < NCASES && rank == 0; c++)
            if (n == 1 || c == IALLREDUCE || c == ALLREDUCE)
                printf("  %-10s %8zu %10.2f\n", names[c], sizeof(double) * (size_t)n,
                       best[c] * 1e6);
        fflush(stdout);
    }
    free(in);
    free(out);
    MPI_Finalize();
    return 0;
}
