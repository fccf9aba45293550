/* fortran_bench_c.c: the loops of fortran_bench_f08.f90 through the C
 * interface, to compare against (issue 19): 8-byte ping-pong between ranks
 * 0 and 1, 8-byte MPI_Allreduce, and an 8-byte nonblocking exchange
 * between ranks 0 and 1 (MPI_Irecv, MPI_Isend, then MPI_Wait on each, or
 * one MPI_Waitall),
 * median of 7 runs, microseconds per operation.  A plain MPI benchmark;
 * fortran_bench_compare.sh runs it.
 *
 *   fortran_bench_c [ITERS [both|pp|ar|nb|wa [PAD]]]
 *
 * A second argument runs only the ping-pong (pp), the allreduce (ar) or
 * the nonblocking exchange with MPI_Wait (nb) or MPI_Waitall (wa) loop, so that an instruction count
 * (callgrind) can tell them apart.  PAD bytes of stack (default 0) lie
 * between main and the loops: an 8-byte round trip takes some 150 cycles,
 * and where its stack lies against the library's data moves it by up to
 * 7 %, more than the difference looked for, so a fair comparison runs
 * both programs at the same series of offsets (fortran_bench_compare.sh). */
#include <mpi.h>
#include <alloca.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The loops, below main's frame and the pad. */
static __attribute__((noinline)) void bench(int iters, const char *which)
{
    int rank;
    double x, y, pp[7] = {0}, ar[7] = {0}, nb[7] = {0}, wa[7] = {0};
    MPI_Status status;
    MPI_Request req[2];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    x = rank;
    for (int run = 0; run < 7; run++) {
        double t;
        if (strcmp(which, "both") == 0 || strcmp(which, "pp") == 0) {
            MPI_Barrier(MPI_COMM_WORLD);
            t = MPI_Wtime();
            for (int i = 0; i < iters; i++) {
                if (rank == 0) {
                    MPI_Send(&x, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
                    MPI_Recv(&y, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, &status);
                } else if (rank == 1) {
                    MPI_Recv(&y, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, &status);
                    MPI_Send(&x, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
                }
            }
            pp[run] = (MPI_Wtime() - t) / iters / 2 * 1e6;
        }
        if (strcmp(which, "both") == 0 || strcmp(which, "ar") == 0) {
            MPI_Barrier(MPI_COMM_WORLD);
            t = MPI_Wtime();
            for (int i = 0; i < iters; i++)
                MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            ar[run] = (MPI_Wtime() - t) / iters * 1e6;
        }
        if (strcmp(which, "both") == 0 || strcmp(which, "nb") == 0) {
            int other = 1 - rank;
            MPI_Barrier(MPI_COMM_WORLD);
            t = MPI_Wtime();
            for (int i = 0; i < iters && rank < 2; i++) {
                MPI_Irecv(&y, 1, MPI_DOUBLE, other, 0, MPI_COMM_WORLD, &req[0]);
                MPI_Isend(&x, 1, MPI_DOUBLE, other, 0, MPI_COMM_WORLD, &req[1]);
                MPI_Wait(&req[0], &status);
                MPI_Wait(&req[1], MPI_STATUS_IGNORE);
            }
            nb[run] = (MPI_Wtime() - t) / iters * 1e6;
        }
        if (strcmp(which, "both") == 0 || strcmp(which, "wa") == 0) {
            int other = 1 - rank;
            MPI_Barrier(MPI_COMM_WORLD);
            t = MPI_Wtime();
            for (int i = 0; i < iters && rank < 2; i++) {
                MPI_Irecv(&y, 1, MPI_DOUBLE, other, 0, MPI_COMM_WORLD, &req[0]);
                MPI_Isend(&x, 1, MPI_DOUBLE, other, 0, MPI_COMM_WORLD, &req[1]);
                MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
            }
            wa[run] = (MPI_Wtime() - t) / iters * 1e6;
        }
    }
    qsort(pp, 7, sizeof *pp, cmp);
    qsort(ar, 7, sizeof *ar, cmp);
    qsort(nb, 7, sizeof *nb, cmp);
    qsort(wa, 7, sizeof *wa, cmp);
    if (rank == 0)
        printf("C:       ping-pong (half round trip) %9.4f us, allreduce %9.4f us, "
               "nonblocking %9.4f us, waitall %9.4f us\n", pp[3], ar[3], nb[3], wa[3]);
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 100000, pad = argc > 3 ? atoi(argv[3]) : 0;
    const char *which = argc > 2 ? argv[2] : "both";
    volatile char *p = alloca((size_t)(pad > 0 ? pad : 0) + 1);
    p[0] = 0;
    MPI_Init(&argc, &argv);
    bench(iters, which);
    MPI_Finalize();
    return p[0];
}
