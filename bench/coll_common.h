/*
 * coll_common.h: the frame shared by the collective latency benchmarks
 * (coll_barrier.c, coll_bcast.c, coll_reduce.c, coll_allreduce.c,
 * coll_allgather.c, coll_alltoall.c).
 *
 * Every program measures one collective over MPI_COMM_WORLD in the manner
 * of the OSU collective benchmarks: for each size, warm-up calls, then a
 * timed loop; each rank takes its average time per call and the printed
 * latency is the largest of these averages.  Iteration counts fall with
 * the size and are also cut so that one size takes about a fixed time
 * (-t), measured from the warm-up, so that heavily oversubscribed runs
 * stay short.  Once per size, outside the timed loop, the result of one
 * call is checked in full; a mismatch aborts.
 *
 * Plain MPI: builds with zmpicc, mpicc.mpich and mpicc.openmpi.  No
 * mutable global or static state (under zmpi ranks are threads).
 */
#ifndef ZMPI_BENCH_COLL_COMMON_H
#define ZMPI_BENCH_COLL_COMMON_H

#include <stddef.h>

#include <mpi.h>

/* What one call of the collective works on; owned by coll_main. */
struct coll_ctx {
    MPI_Comm comm;       /* MPI_COMM_WORLD. */
    int rank, nranks;    /* In comm. */
    unsigned char *sbuf; /* Send buffer (size * send_blocks bytes). */
    unsigned char *rbuf; /* Receive buffer (size * recv_blocks bytes). */
    size_t size;         /* Bytes per rank (per pair for alltoall). */
    int index;           /* Number of the size, for data patterns. */
    void *state;         /* Owned by the benchmark's begin/end hooks. */
};

/* Calls the collective iters times. */
typedef void (*coll_run_fn)(const struct coll_ctx *c, long iters);
/* Writes the data of one checked call into sbuf and spoils rbuf. */
typedef void (*coll_fill_fn)(const struct coll_ctx *c);
/* Returns the number of wrong bytes or elements after the checked call. */
typedef long (*coll_check_fn)(const struct coll_ctx *c);
/* Prepares or releases per-size state (c->state) around one size. */
typedef void (*coll_hook_fn)(struct coll_ctx *c);

/* One benchmark. */
struct coll_bench {
    const char *name;   /* E.g. "allreduce". */
    size_t unit;        /* Sizes are multiples of this (4 for MPI_INT);
                         * 0 means no data at all (barrier). */
    int send_blocks;    /* Send buffer holds size * (this ? nranks : 1). */
    int recv_blocks;    /* The same for the receive buffer. */
    coll_run_fn run;
    coll_fill_fn fill;
    coll_check_fn check;
    coll_hook_fn begin; /* Optional: called before each size. */
    coll_hook_fn end;   /* Optional: called after each size. */
    const char *title;  /* Optional: what is measured, if not MPI_<name>. */
};

/* The byte that rank src puts at position i for size number index (for
 * alltoall, src * nranks + dst stands for src). */
unsigned char coll_pattern(long src, int index, size_t i);

/* The whole program: MPI_Init, options, buffers, every size, output,
 * MPI_Finalize.  Returns the exit status for main. */
int coll_main(int argc, char **argv, const struct coll_bench *b);

#endif
