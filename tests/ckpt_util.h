/*
 * ckpt_util.h: the checkpoint step and the final line shared by the
 * checkpoint tests that compare a checksum across restarts
 * (tests/ckpt_comm.c, tests/ckpt_persist.c; tests/ckpt.cmake).
 */
#ifndef ZT_CKPT_UTIL_H
#define ZT_CKPT_UTIL_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Take a checkpoint in dir.  A refusal aborts the job with its reason (exit
 * 4), so the scripts can tell it from a wrong result.  With CK_STOP set the
 * job ends right after the checkpoint (the restart then continues from it):
 * returns 1 after MPI_Finalize, and the caller returns from main. */
static inline int zt_ckpt_take(const char *dir, int me)
{
    int rc = ZMPI_Checkpoint(dir);
    if (rc != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, msg, &len);
        printf("rank %d: checkpoint refused: %s\n", me, msg);
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
    if (!getenv("CK_STOP"))
        return 0;
    MPI_Finalize();
    if (me == 0)
        printf("stopped after the checkpoint\n");
    return 1;
}

/* The job's checksum (every rank's check combined), which the scripts
 * compare between the uninterrupted run and the restarts.  Collective. */
static inline uint64_t zt_ckpt_checksum(uint64_t check)
{
    uint64_t all = 0;
    MPI_Allreduce(&check, &all, 1, MPI_UINT64_T, MPI_BXOR, MPI_COMM_WORLD);
    return all;
}

/* Rank 0 prints the checksum line, and whether the restarted program still
 * has its command line (argv0 names the test's program). */
static inline void zt_ckpt_print(uint64_t all, int me, int np, const char *argv0)
{
    if (me == 0)
        printf("checksum %llu of %d ranks (%s)\n", (unsigned long long)all, np,
               strstr(argv0, "ckpt") ? "cmdline ok" : "cmdline lost");
}

#endif
