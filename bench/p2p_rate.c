/*
 * p2p_rate.c: message rate of N sender/receiver pairs at once (issue 22).
 *
 * The ranks form pairs (i, i + size/2): the first half send, the second
 * half receive.  Block placement of ranks on zmpi's workers (or cores)
 * puts every pair across workers.  For each size, one window is 64
 * MPI_Isend calls matched by 64 pre-posted MPI_Irecv calls, completed with
 * MPI_Waitall; the receiver then sends a zero-byte acknowledgement.  The
 * printed rate is the job's total of messages per second (millions), as
 * seen by the slowest pair.
 *
 *   p2p_rate [-m MAX] [-M MIN] [-x FACTOR] [-s SLICES] [-f 1]   (even rank count)
 *
 * By default every send reads one buffer and every receive writes one,
 * so the payload's lines stay in the caches.  With -f 1 each message of
 * a window has a buffer of its own and the sender writes it before the
 * send, and the receiver reads every received message, as programs
 * that compute the data they send and use what they receive do: every
 * payload line then crosses from the sender's core to the receiver's.
 *
 * With -s, as many windows again run as SLICES runs timed on their own,
 * and a second column gives the rate of the fastest: on a machine that
 * other jobs load, that is the run in which both ranks of each pair held
 * a core, the closest a loaded machine gets to a quiet one.
 *
 * Plain MPI: builds with mpicc.mpich and mpicc.openmpi too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#define WINDOW 64
#define TAG_DATA 7
#define TAG_ACK 8

/* Buffer of message i of a window: one for all, or (-f) one each. */
static int fresh;
static char *slot(char *buf, int size, int i)
{
    return fresh ? buf + (size_t)i * (size_t)size : buf;
}

/* Read every byte of a received message (-f), as a program using it
 * does; the sum keeps the compiler from dropping the reads. */
static unsigned long sink;
static void consume(const char *b, int size)
{
    unsigned long s = 0;
    for (int i = 0; i < size; i++)
        s += (unsigned char)b[i];
    sink += s;
}

/* Runs `windows` windows of `size`-byte messages; returns seconds. */
static double run(char *buf, int size, long windows, int rank, int half)
{
    MPI_Request q[WINDOW];
    MPI_Status st[WINDOW];
    int sender = rank < half, peer = sender ? rank + half : rank - half;
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    for (long w = 0; w < windows; w++) {
        if (sender) {
            for (int i = 0; i < WINDOW; i++) {
                if (fresh)
                    memset(slot(buf, size, i), (int)(w + i), (size_t)size);
                MPI_Isend(slot(buf, size, i), size, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD,
                          &q[i]);
            }
            MPI_Waitall(WINDOW, q, st);
            MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            for (int i = 0; i < WINDOW; i++)
                MPI_Irecv(slot(buf, size, i), size, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD,
                          &q[i]);
            MPI_Waitall(WINDOW, q, st);
            for (int i = 0; fresh && i < WINDOW; i++)
                consume(slot(buf, size, i), size);
            MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_ACK, MPI_COMM_WORLD);
        }
    }
    t = MPI_Wtime() - t;
    double slowest;
    MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
}

int main(int argc, char **argv)
{
    int rank, size, maxb = 1024, minb = 1, slices = 0;
    double factor = 1.0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "-m") == 0)
            maxb = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "-M") == 0)
            minb = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "-x") == 0)
            factor = atof(argv[i + 1]);
        else if (strcmp(argv[i], "-s") == 0)
            slices = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "-f") == 0)
            fresh = atoi(argv[i + 1]) != 0;
    }
    if (size < 2 || size % 2 || minb < 1 || maxb < minb || !(factor > 0) || slices < 0) {
        if (rank == 0)
            fprintf(stderr, "usage: p2p_rate [-m MAX] [-M MIN] [-x FACTOR] [-s SLICES] [-f 1] on an "
                            "even number of ranks\n");
        MPI_Finalize();
        return 2;
    }
    char *buf = calloc(fresh ? WINDOW : 1, (size_t)maxb);
    if (rank == 0)
        printf("# zmpi bench: message rate of %d pairs, window of %d%s\n# size   Mmsgs_per_s%s\n",
               size / 2, WINDOW, fresh ? ", fresh buffers" : "", slices ? "  best_slice" : "");
    for (int s = minb; s <= maxb; s *= 2) {
        long windows = (long)(2000 * factor);
        run(buf, s, windows / 10 + 1, rank, size / 2); /* warm-up */
        double t = run(buf, s, windows, rank, size / 2);
        double msgs = (double)windows * WINDOW * (size / 2);
        if (slices > 0) {
            long per = windows / slices > 0 ? windows / slices : 1;
            double best = 0;
            for (int k = 0; k < slices; k++) {
                double tk = run(buf, s, per, rank, size / 2);
                double rate = (double)per * WINDOW * (size / 2) / tk / 1e6;
                best = rate > best ? rate : best;
            }
            if (rank == 0)
                printf("%-8d %10.2f %10.2f\n", s, msgs / t / 1e6, best);
        } else if (rank == 0) {
            printf("%-8d %10.2f\n", s, msgs / t / 1e6);
        }
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
