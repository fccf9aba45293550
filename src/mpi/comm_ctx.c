/*
 * comm_ctx.c: communicator context ids, drawn from a process-wide counter
 * (comm.c, intercomm.c, spawn.c and port.c draw them), and the floor a
 * restarted job draws them above (checkpoint.c; docs/checkpoint.md).
 */
#include "inter_impl.h"

#include <stdio.h>

/* Contexts 0-3 belong to MPI_COMM_WORLD and MPI_COMM_SELF; each
 * communicator takes two (point-to-point and collective).  A restarted
 * job starts above every id its checkpoint's communicators hold
 * (ctx_floor, zm_mpi_ctx_floor); next_ctx counts the ids drawn above it. */
static uint32_t ctx_floor = 4;
static _Atomic uint32_t next_ctx;

/* Context ids are drawn by one rank and then shared with the others over
 * the parent communicator (or a rendezvous), so a job across processes
 * keeps them unique by giving each process its own range: process p
 * draws from [4 + p * R, 4 + (p + 1) * R) with R = (2^31 - 4) / nprocs
 * (about 2 million per process at 1000 processes), below 2^31 because
 * the ids travel as ints.  No agreement step is needed.  In a restarted
 * job the ranges start at the floor instead of 4. */
static uint32_t ctx_range(void)
{
    return ((0x7fffffffu - ctx_floor) / (uint32_t)zm_net_job.nprocs) & ~1u;
}

/* The first id of this process's range. */
static uint32_t ctx_base(void)
{
    return ctx_floor + (zm_net_job.nprocs > 1 ? ctx_range() * (uint32_t)zm_net_job.proc : 0);
}

uint32_t zm_mpi_ctx_draw(uint32_t n)
{
    uint32_t v = atomic_fetch_add(&next_ctx, n);
    if (ZM_LIKELY(zm_net_job.nprocs == 1))
        return ctx_floor + v;
    uint32_t range = ctx_range();
    if (v + n > range) {
        fprintf(stderr, "zmpi: process %d has used up its %u communicator context ids; "
                "ending the job\n", zm_net_job.proc, range);
        zm_net_abort(1);
    }
    return ctx_base() + v;
}

uint32_t zm_mpi_ctx_high(void)
{
    return ctx_base() + atomic_load(&next_ctx);
}

void zm_mpi_ctx_floor(uint32_t floor)
{
    floor = (floor + 1u) & ~1u;
    if (floor > ctx_floor)
        ctx_floor = floor;
}
