/*
 * crash_report.c: rank 2 dereferences a bad pointer after every rank has
 * printed a line (stdout goes to a file in the test, so the lines sit in
 * libc's buffer).  The test (expect_fail.sh) requires the report to name
 * the rank, the signal and the address, to show this file's function with
 * its file and line, and the lines printed before the crash to be there.
 */
#include "zt.h"

#include <stdio.h>

__attribute__((noinline)) static void crash_here(volatile int *p)
{
    *p = 42;
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("before the crash from rank %d\n", rank);
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    volatile uintptr_t bad = 16;
    if (rank == 2)
        crash_here((volatile int *)bad);
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Finalize();
    return 0;
}
