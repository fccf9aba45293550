/*
 * priv_output.c: every rank writes lines built from many pieces (printf,
 * putchar, fputs, fwrite, fprintf to stdout), yielding to the other ranks
 * between pieces, and, on stderr, lines of its own.  Run by
 * priv_output_check.sh, which requires every line of the output to be
 * whole (no other rank's text inside), in order per rank, and (with
 * ZMPI_TAG_OUTPUT=1) tagged with the right rank.
 */
#include "zt.h"

#include <stdio.h>

#define LINES 20
#define PIECES 12

static void yield(void)
{
    int flag;
    ZT_OK(MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int l = 0; l < LINES; l++) {
        printf("rank %d line %d:", rank, l);
        for (int p = 0; p < PIECES; p++) {
            switch (p % 4) {
            case 0: printf(" %d", p); break;
            case 1: putchar(' '); putchar('0' + p % 10); break;
            case 2: fputs(" ", stdout); fprintf(stdout, "%d", p); break;
            default: fwrite(" x", 1, 2, stdout); break;
            }
            yield();
        }
        puts(" end");
        if (l % 5 == 0) {
            fprintf(stderr, "err rank %d", rank);
            yield();
            fprintf(stderr, " line %d\n", l);
        }
    }
    MPI_Finalize();
    return 0;
}
