/*
 * rma_net.c: one-sided latency between ranks 0 (origin) and 1 (target),
 * plain MPI, to compare zmpi across two processes with the bare system
 * MPI on the same source:
 *
 *   zmpirun -n 2 -p 2 ./rma_net                   # zmpi, one rank per process
 *   mpicc.mpich -O2 bench/rma_net.c -o rn && mpiexec.mpich -n 2 ./rn
 *
 * Rank 0 holds a shared lock on rank 1 for the whole run (MPI_Win_lock_all)
 * and measures, for each size (8 B to 64 KiB, by 4), one MPI_Put plus
 * MPI_Win_flush and one MPI_Get plus MPI_Win_flush; then MPI_Fetch_and_op
 * (MPI_SUM on one int64), MPI_Compare_and_swap (one int64) and
 * MPI_Accumulate (MPI_SUM on one double) each plus flush; and a stream of
 * STREAM Puts with one flush at the end (per Put: the rate a halo of many
 * small Puts sees).  Rank 1 waits in MPI_Barrier meanwhile, so the
 * target is passive.  Each figure is the best of 5 runs
 * of an iteration count that takes a few milliseconds, in microseconds
 * per operation.  After the runs rank 0 checks what the Gets read and the
 * counter's final value, and aborts on a mismatch.  Argument "create":
 * the window is the program's own memory (MPI_Win_create) instead of
 * MPI_Win_allocate's.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXB (64 * 1024)

enum { PUT, GET, FOP, CAS, ACC, PUTS };

/* Puts per flush in the stream measurement. */
#define STREAM 64

/* One timed run of `iters` operations of kind `what` (rank 0 only). */
static double run(MPI_Win win, int what, char *buf, int bytes, int iters)
{
    int64_t one = 1, old, cmp = -1;
    double d = 1.0, t0 = MPI_Wtime();
    if (what == PUTS) {
        for (int i = 0; i < iters; i++) {
            for (int k = 0; k < STREAM; k++)
                MPI_Put(buf, bytes, MPI_BYTE, 1, 8, bytes, MPI_BYTE, win);
            MPI_Win_flush(1, win);
        }
        return (MPI_Wtime() - t0) / ((double)iters * STREAM) * 1e6;
    }
    for (int i = 0; i < iters; i++) {
        if (what == PUT)
            MPI_Put(buf, bytes, MPI_BYTE, 1, 8, bytes, MPI_BYTE, win);
        else if (what == GET)
            MPI_Get(buf, bytes, MPI_BYTE, 1, 8, bytes, MPI_BYTE, win);
        else if (what == CAS) /* never equal: the counter stays as it is */
            MPI_Compare_and_swap(&one, &cmp, &old, MPI_INT64_T, 1, 0, win);
        else if (what == ACC) /* on the bytes after the counter, which Puts overwrite */
            MPI_Accumulate(&d, 1, MPI_DOUBLE, 1, 8, 1, MPI_DOUBLE, MPI_SUM, win);
        else
            MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 1, 0, MPI_SUM, win);
        MPI_Win_flush(1, win);
    }
    return (MPI_Wtime() - t0) / iters * 1e6;
}

/* Best of 5 runs, after a warm-up that also sizes the runs to ~5 ms. */
static double best(MPI_Win win, int what, char *buf, int bytes, long *done)
{
    double warm = run(win, what, buf, bytes, 50) * (what == PUTS ? STREAM : 1);
    int iters = warm > 0 ? (int)(5000.0 / warm) : 1000;
    iters = iters < 20 ? 20 : iters > 20000 ? 20000 : iters;
    double b = 1e30;
    for (int r = 0; r < 5; r++) {
        double t = run(win, what, buf, bytes, iters);
        b = t < b ? t : b;
    }
    *done += 50 + 5L * iters;
    return b;
}

/* Rank 0's measurements, in a lock_all epoch on the window, printed;
 * aborts if a Get or the counter read back something wrong. */
static void measure(MPI_Win win, char *buf, int create)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(lib, &len);
    printf("# rma_net: %.60s\n# window: %s\n# size put_flush_us get_flush_us "
           "put_stream_us\n", lib, create ? "MPI_Win_create" : "MPI_Win_allocate");
    long fops = 0, dummy = 0;
    MPI_Win_lock_all(0, win);
    for (int b = 8; b <= MAXB; b *= 4) {
        double p = best(win, PUT, buf, b, &dummy);
        memset(buf, 0, (size_t)b);
        double g = best(win, GET, buf, b, &dummy);
        if (buf[0] != 0x5a || buf[b - 1] != 0x5a) {
            fprintf(stderr, "rma_net: Get read wrong data at %d bytes\n", b);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        memset(buf, 0x5a, MAXB);
        double st = best(win, PUTS, buf, b, &dummy);
        printf("%d %.3f %.3f %.3f\n", b, p, g, st);
    }
    double f = best(win, FOP, buf, 8, &fops);
    double c = best(win, CAS, buf, 8, &dummy);
    double a = best(win, ACC, buf, 8, &dummy);
    int64_t total = 0, zero = 0;
    MPI_Fetch_and_op(&zero, &total, MPI_INT64_T, 1, 0, MPI_NO_OP, win);
    MPI_Win_flush(1, win);
    MPI_Win_unlock_all(win);
    printf("# fetch_and_op_us %.3f\n# compare_and_swap_us %.3f\n# accumulate_us %.3f\n",
           f, c, a);
    if (total != fops) {
        fprintf(stderr, "rma_net: counter %lld, expected %ld\n", (long long)total, fops);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        if (rank == 0)
            fprintf(stderr, "rma_net: needs 2 ranks\n");
        MPI_Finalize();
        return 1;
    }
    char *mem, *buf = malloc(MAXB);
    MPI_Win win;
    /* "create": the window is the program's own memory (MPI_Win_create). */
    int create = argc > 1 && strcmp(argv[1], "create") == 0;
    if (create) {
        mem = malloc(MAXB + 8);
        MPI_Win_create(mem, MAXB + 8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    } else {
        MPI_Win_allocate(MAXB + 8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    }
    memset(mem, 0, MAXB + 8);
    memset(buf, 0x5a, MAXB);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        measure(win, buf, create);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    if (create)
        free(mem);
    free(buf);
    MPI_Finalize();
    return 0;
}
