/*
 * zmpi_hy.c: one-copy-per-node collectives on standard MPI-3 (see
 * zmpi_hy.h for the interface and the ownership rules).
 *
 * Node synchronisation uses generation numbers.  Every synchronisation
 * step gets the next generation g (hy->gen, the same in all ranks of the
 * node because they call the same steps in the same order).  A rank
 * arrives by storing g in its own flag; the leader waits until every flag
 * it needs has reached g, does the work of the step, and releases the node
 * by storing g in the release flag, which the other ranks wait for.  Flags
 * only grow (modulo 2^32), so "reached" is a wrap-safe comparison and a
 * rank that runs ahead into the next step cannot make a slow reader miss
 * the value it waits for.  Every flag sits in its own cache line so that
 * arrivals do not bounce a shared line between cores.
 */
#define _POSIX_C_SOURCE 200809L

#include "zmpi_hy.h"

#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Bytes of one flag slot: a cache line. */
#define FLAG_LINE 64
/* unsigned values per cache line. */
#define FLAG_STRIDE (FLAG_LINE / sizeof(unsigned))
/* Polls of a flag before every further poll also lets other ranks run,
 * when every rank of the node has a core of its own (spinning alone is
 * fastest then).  When ranks outnumber the cores, or share worker threads
 * as in zmpi, the rank we wait for may need our core, and every poll lets
 * others run (see spins_before_yield). */
#define SPIN_BEFORE_YIELD 64
/* Below this many bytes the leader reduces the whole vector alone (one
 * synchronisation step); above it the node ranks reduce pieces in
 * parallel (two steps).  The paper found the cut near 2 KiB with 16
 * ranks; a little higher suits fewer, faster-synchronising ranks. */
#define PARALLEL_REDUCE_BYTES 8192

/* The region starts this far into its shared window.  Windows start on a
 * page, while large private buffers from malloc start 16 bytes into one;
 * a kernel streaming through a slice and a private array that start at
 * the same offset within their pages loses to 4 KiB aliasing (loads
 * falsely waiting for stores to the other array): summa's MPI+MPI variant
 * was up to 20% slower than its pure MPI one on zmpi.  One cache line of
 * skew measured best (0.8% faster than pure MPI there; half a page was
 * 0.4% slower). */
#define REGION_SKEW 64

/* Prints why a call was refused and returns MPI_ERR_ARG. */
static int bad_arg(const char *fn, const char *why)
{
    fprintf(stderr, "%s: %s\n", fn, why);
    return MPI_ERR_ARG;
}

/* Returns nonzero when flag value has reached generation want, modulo
 * 2^32 (flags only move forward). */
static int reached(unsigned value, unsigned want)
{
    return (int)(value - want) >= 0;
}

/* Lets the other ranks run while this one waits: an unsuccessful
 * MPI_Iprobe is where an MPI whose ranks share threads (zmpi's user-level
 * threads) switches to another rank, and where the others drive progress;
 * sched_yield gives the core to another process when ranks are processes
 * that outnumber the cores.  No message is ever sent on the node
 * communicator, so the probe never matches anything.  zmpi ranks are not
 * processes: there sched_yield would only hand the worker's core to an
 * unrelated process, for a 0.5 us system call at best (16 ranks on 2
 * workers: zmpi_hy_allreduce took 9 us with it, 1.5 us without). */
static void let_others_run(zmpi_hy_comm *hy)
{
    int found = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, hy->node, &found,
               MPI_STATUS_IGNORE);
#ifndef ZMPI
    sched_yield();
#endif
}

/* Spins until *flag reaches want.  MPI_Win_sync on the flag window is the
 * memory barrier MPI prescribes for polling shared memory. */
static void wait_flag(zmpi_hy_comm *hy, volatile unsigned *flag,
                      unsigned want)
{
    long spins = 0;
    while (!reached(*flag, want)) {
        MPI_Win_sync(hy->flag_win);
        if (++spins >= hy->spins)
            let_others_run(hy);
    }
    MPI_Win_sync(hy->flag_win);
}

/* Returns the flag of node rank i; i == node_size is the release flag. */
static volatile unsigned *flag_of(zmpi_hy_comm *hy, int i)
{
    return hy->flags + (size_t)i * FLAG_STRIDE;
}

/* Publishes this rank's stores to data_win (MPI_WIN_NULL: none). */
static void sync_data(MPI_Win data_win)
{
    if (data_win != MPI_WIN_NULL)
        MPI_Win_sync(data_win);
}

/*
 * The first half of a synchronisation step: starts generation g, makes
 * this rank's stores to data_win visible and announces the arrival.  In
 * the leader it returns once every rank of the node has arrived (when
 * all is nonzero) or once rank `only` has (when all is zero).
 */
static int step_arrive(zmpi_hy_comm *hy, MPI_Win data_win, int all, int only)
{
    unsigned g = ++hy->gen;
    if (hy->sync_mode == ZMPI_HY_SYNC_BARRIER) {
        sync_data(data_win);
        int rc = MPI_Barrier(hy->node);
        sync_data(data_win);
        return rc;
    }
    sync_data(data_win);
    if (hy->node_rank != 0) {
        *flag_of(hy, hy->node_rank) = g;
        MPI_Win_sync(hy->flag_win);
        return MPI_SUCCESS;
    }
    for (int i = 1; i < hy->node_size; i++)
        if (all || i == only)
            wait_flag(hy, flag_of(hy, i), g);
    sync_data(data_win);
    return MPI_SUCCESS;
}

/* The second half of a step: the leader publishes its stores to data_win
 * and releases the node; the other ranks wait for the release. */
static int step_release(zmpi_hy_comm *hy, MPI_Win data_win)
{
    unsigned g = hy->gen;
    if (hy->sync_mode == ZMPI_HY_SYNC_BARRIER) {
        sync_data(data_win);
        int rc = MPI_Barrier(hy->node);
        sync_data(data_win);
        return rc;
    }
    if (hy->node_rank == 0) {
        sync_data(data_win);
        *flag_of(hy, hy->node_size) = g;
        MPI_Win_sync(hy->flag_win);
        return MPI_SUCCESS;
    }
    wait_flag(hy, flag_of(hy, hy->node_size), g);
    sync_data(data_win);
    return MPI_SUCCESS;
}

/* Fills hy->nnodes, node_index and node_first from the node and bridge
 * communicators; the leaders exchange their node sizes. */
static int find_nodes(zmpi_hy_comm *hy)
{
    int info[2] = {0, 0};
    if (hy->bridge != MPI_COMM_NULL) {
        MPI_Comm_size(hy->bridge, &info[0]);
        MPI_Comm_rank(hy->bridge, &info[1]);
    }
    int rc = MPI_Bcast(info, 2, MPI_INT, 0, hy->node);
    if (rc != MPI_SUCCESS)
        return rc;
    hy->nnodes = info[0];
    hy->node_index = info[1];
    hy->node_first = malloc(((size_t)hy->nnodes + 1) * sizeof(int));
    if (hy->node_first == NULL)
        return MPI_ERR_NO_MEM;
    /* node_first[1..nnodes] first receives the node sizes. */
    int *sizes = hy->node_first + 1;
    if (hy->bridge != MPI_COMM_NULL) {
        rc = MPI_Allgather(&hy->node_size, 1, MPI_INT, sizes, 1, MPI_INT,
                           hy->bridge);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    rc = MPI_Bcast(sizes, hy->nnodes, MPI_INT, 0, hy->node);
    if (rc != MPI_SUCCESS)
        return rc;
    hy->node_first[0] = 0;
    for (int i = 1; i <= hy->nnodes; i++)
        hy->node_first[i] += hy->node_first[i - 1];
    return MPI_SUCCESS;
}

/* Allocates bytes of node-shared memory in the leader (nothing in the
 * other ranks), opens a passive epoch for MPI_Win_sync and returns the
 * leader's base address as seen by this rank. */
static int alloc_shared(MPI_Comm node, int leader, size_t bytes,
                        MPI_Win *win, void **base)
{
    void *mine = NULL;
    MPI_Aint size = leader ? (MPI_Aint)bytes : 0;
    int rc = MPI_Win_allocate_shared(size, 1, MPI_INFO_NULL, node, &mine,
                                     win);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Aint got = 0;
    int disp = 0;
    rc = MPI_Win_shared_query(*win, 0, &got, &disp, base);
    if (rc == MPI_SUCCESS)
        rc = MPI_Win_lock_all(MPI_MODE_NOCHECK, *win);
    if (rc != MPI_SUCCESS)
        MPI_Win_free(win);
    return rc;
}

/* Closes the epoch of a window from alloc_shared and frees it. */
static int free_shared(MPI_Win *win)
{
    int rc = MPI_Win_unlock_all(*win);
    int rc2 = MPI_Win_free(win);
    return rc != MPI_SUCCESS ? rc : rc2;
}

/* Creates the flag window and zeroes the flags before anyone uses them. */
static int create_flags(zmpi_hy_comm *hy)
{
    size_t bytes = ((size_t)hy->node_size + 1) * FLAG_LINE;
    void *base = NULL;
    int rc = alloc_shared(hy->node, hy->node_rank == 0, bytes, &hy->flag_win,
                          &base);
    if (rc != MPI_SUCCESS)
        return rc;
    hy->flags = base;
    if (hy->node_rank == 0)
        memset(base, 0, bytes);
    MPI_Win_sync(hy->flag_win);
    rc = MPI_Barrier(hy->node);
    MPI_Win_sync(hy->flag_win);
    return rc;
}

/* Reads ZMPI_HY_SYNC: "barrier" selects MPI_Barrier, anything else the
 * flags.  getenv only reads the environment, which no rank changes. */
static int sync_mode_from_env(void)
{
    const char *mode = getenv("ZMPI_HY_SYNC");
    if (mode != NULL && strcmp(mode, "barrier") == 0)
        return ZMPI_HY_SYNC_BARRIER;
    return ZMPI_HY_SYNC_FLAGS;
}

/*
 * Splits parent into nodes: normally by shared memory; with
 * ZMPI_HY_NODE_SIZE=k in the environment into groups of k consecutive
 * parent ranks instead.  The groups still share memory (they are parts
 * of a real node), so the test suite can run the leaders' bridge code on
 * one machine.
 */
static int split_nodes(MPI_Comm parent, MPI_Comm *node)
{
    const char *fake = getenv("ZMPI_HY_NODE_SIZE");
    int k = fake != NULL ? atoi(fake) : 0;
    if (k <= 0)
        return MPI_Comm_split_type(parent, MPI_COMM_TYPE_SHARED, 0,
                                   MPI_INFO_NULL, node);
    int rank = 0;
    MPI_Comm_rank(parent, &rank);
    return MPI_Comm_split(parent, rank / k, 0, node);
}

/* Returns how many polls a flag wait makes before each further poll also
 * lets other ranks run.  Spinning only pays while every rank of the node
 * has a core; with more ranks than online cores the awaited rank may need
 * this core.  zmpi always yields at once: its MPI_Iprobe is a cheap switch
 * to the next rank of the worker (and returns at once when there is none),
 * and in measurements every poll spent spinning there was lost
 * (zmpi_hy_allreduce of 8 B, 16 ranks on 2 workers: 9 us with 64 spins,
 * 1.5 us with 1). */
static int spins_before_yield(int node_size)
{
#ifdef ZMPI
    (void)node_size;
    return 1;
#else
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores > 0 && node_size > cores ? 1 : SPIN_BEFORE_YIELD;
#endif
}

int zmpi_hy_comm_create(MPI_Comm parent, zmpi_hy_comm *hy)
{
    memset(hy, 0, sizeof(*hy));
    hy->comm = hy->node = hy->bridge = MPI_COMM_NULL;
    hy->flag_win = MPI_WIN_NULL;
    hy->sync_mode = sync_mode_from_env();
    int rc = split_nodes(parent, &hy->node);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Comm_rank(hy->node, &hy->node_rank);
    MPI_Comm_size(hy->node, &hy->node_size);
    hy->spins = spins_before_yield(hy->node_size);
    /* Key 0 keeps the parent's order, so the bridge numbers the nodes in
     * the order of their leaders. */
    rc = MPI_Comm_split(parent, hy->node_rank == 0 ? 0 : MPI_UNDEFINED, 0,
                        &hy->bridge);
    if (rc != MPI_SUCCESS)
        goto err_free_node;
    rc = find_nodes(hy);
    if (rc != MPI_SUCCESS)
        goto err_free_bridge;
    rc = MPI_Comm_split(parent, 0,
                        hy->node_first[hy->node_index] + hy->node_rank,
                        &hy->comm);
    if (rc != MPI_SUCCESS)
        goto err_free_bridge;
    MPI_Comm_rank(hy->comm, &hy->rank);
    MPI_Comm_size(hy->comm, &hy->size);
    rc = create_flags(hy);
    if (rc != MPI_SUCCESS)
        goto err_free_comm;
    return MPI_SUCCESS;

err_free_comm:
    MPI_Comm_free(&hy->comm);
err_free_bridge:
    free(hy->node_first);
    hy->node_first = NULL;
    if (hy->bridge != MPI_COMM_NULL)
        MPI_Comm_free(&hy->bridge);
err_free_node:
    MPI_Comm_free(&hy->node);
    return rc;
}

int zmpi_hy_comm_free(zmpi_hy_comm *hy)
{
    int rc = free_shared(&hy->flag_win);
    hy->flags = NULL;
    free(hy->node_first);
    hy->node_first = NULL;
    if (hy->bridge != MPI_COMM_NULL)
        MPI_Comm_free(&hy->bridge);
    MPI_Comm_free(&hy->node);
    MPI_Comm_free(&hy->comm);
    return rc;
}

/* Reads one byte of every page of [base, base + bytes), so that the
 * page table of this process maps the whole region now rather than on
 * first use inside a collective (each process of a node faults on its own
 * mapping of the shared pages). */
static void map_pages(const unsigned char *base, size_t bytes)
{
    const volatile unsigned char *p = base;
    unsigned char sink = 0;
    for (size_t off = 0; off < bytes; off += 4096)
        sink ^= p[off];
    (void)sink;
}

int zmpi_hy_alloc(zmpi_hy_comm *hy, size_t slice_bytes, zmpi_hy_region *reg)
{
    memset(reg, 0, sizeof(*reg));
    reg->win = MPI_WIN_NULL;
    if (slice_bytes == 0)
        return bad_arg("zmpi_hy_alloc", "slice_bytes must not be 0");
    if (slice_bytes > (size_t)INT64_MAX / ((size_t)hy->size + 1))
        return bad_arg("zmpi_hy_alloc", "region too large");
    size_t total = ((size_t)hy->size + 1) * slice_bytes + REGION_SKEW;
    void *base = NULL;
    int rc = alloc_shared(hy->node, hy->node_rank == 0, total, &reg->win,
                          &base);
    if (rc != MPI_SUCCESS)
        return rc;
    reg->slice_bytes = slice_bytes;
    reg->base = (unsigned char *)base + REGION_SKEW;
    reg->slice = reg->base + (size_t)hy->rank * slice_bytes;
    reg->result = reg->base + (size_t)hy->size * slice_bytes;
    /* The leader writes every page once, so that no page is allocated
     * inside a timed collective. */
    if (hy->node_rank == 0)
        memset(base, 0, total);
    rc = zmpi_hy_node_sync(hy);
    if (rc == MPI_SUCCESS && hy->node_rank != 0)
        map_pages(base, total);
    return rc;
}

int zmpi_hy_free(zmpi_hy_comm *hy, zmpi_hy_region *reg)
{
    (void)hy;
    int rc = free_shared(&reg->win);
    reg->base = reg->slice = reg->result = NULL;
    return rc;
}

int zmpi_hy_node_sync(zmpi_hy_comm *hy)
{
    int rc = step_arrive(hy, MPI_WIN_NULL, 1, 0);
    if (rc != MPI_SUCCESS)
        return rc;
    return step_release(hy, MPI_WIN_NULL);
}

/* The leaders' part of the allgather: each node's block of slices goes to
 * every other node, in place in the node copies.  MPI counts are ints, so
 * the blocks are counted in bytes and must stay below 2 GiB. */
static int allgather_bridge(zmpi_hy_comm *hy, zmpi_hy_region *reg)
{
    if ((size_t)hy->size * reg->slice_bytes > (size_t)INT32_MAX)
        return bad_arg("zmpi_hy_allgather", "more than 2 GiB per node");
    int *counts = malloc(2 * (size_t)hy->nnodes * sizeof(int));
    if (counts == NULL)
        return MPI_ERR_NO_MEM;
    int *displs = counts + hy->nnodes;
    for (int i = 0; i < hy->nnodes; i++) {
        int ranks = hy->node_first[i + 1] - hy->node_first[i];
        counts[i] = (int)((size_t)ranks * reg->slice_bytes);
        displs[i] = (int)((size_t)hy->node_first[i] * reg->slice_bytes);
    }
    int rc = MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_BYTE, reg->base, counts,
                            displs, MPI_BYTE, hy->bridge);
    free(counts);
    return rc;
}

int zmpi_hy_allgather(zmpi_hy_comm *hy, zmpi_hy_region *reg)
{
    /* Every slice must be written before the leaders ship the node block,
     * and nobody may still read the previous result when it arrives. */
    int rc = step_arrive(hy, reg->win, 1, 0);
    if (rc == MPI_SUCCESS && hy->node_rank == 0 && hy->nnodes > 1)
        rc = allgather_bridge(hy, reg);
    int rc2 = step_release(hy, reg->win);
    return rc != MPI_SUCCESS ? rc : rc2;
}

/* Returns the node number of comm rank r. */
static int node_of(const zmpi_hy_comm *hy, int r)
{
    int lo = 0, hi = hy->nnodes - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (hy->node_first[mid] <= r)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/*
 * The synchronisation of a broadcast inside a single node: the root
 * announces that its slice is written and everyone else waits for that
 * one flag (no other rank needs to wait for anybody).  Any rank, the
 * leader included, announces in its own flag.
 */
static int root_signal(zmpi_hy_comm *hy, zmpi_hy_region *reg, int root)
{
    unsigned g = ++hy->gen;
    if (hy->sync_mode == ZMPI_HY_SYNC_BARRIER) {
        sync_data(reg->win);
        int rc = MPI_Barrier(hy->node);
        sync_data(reg->win);
        return rc;
    }
    volatile unsigned *flag = flag_of(hy, root);
    if (hy->rank == root) {
        sync_data(reg->win);
        *flag = g;
        MPI_Win_sync(hy->flag_win);
    } else {
        wait_flag(hy, flag, g);
        sync_data(reg->win);
    }
    return MPI_SUCCESS;
}

int zmpi_hy_bcast(zmpi_hy_comm *hy, zmpi_hy_region *reg, size_t offset,
                  size_t bytes, int root, void **data)
{
    if (root < 0 || root >= hy->size)
        return bad_arg("zmpi_hy_bcast", "root out of range");
    if (offset > reg->slice_bytes || bytes > reg->slice_bytes - offset ||
        bytes > (size_t)INT32_MAX)
        return bad_arg("zmpi_hy_bcast", "offset + bytes exceed the slice");
    int root_node = node_of(hy, root);
    unsigned char *root_slice =
        reg->base + (size_t)root * reg->slice_bytes + offset;
    int here = root_node == hy->node_index;
    int rc;
    if (hy->nnodes == 1) {
        /* Nothing is copied, so the readers only wait for the root. */
        rc = root_signal(hy, reg, root);
    } else {
        /* The leader may overwrite the result area only when every reader
         * of the previous broadcast has come back. */
        rc = step_arrive(hy, reg->win, 1, 0);
        if (rc == MPI_SUCCESS && hy->node_rank == 0)
            rc = MPI_Bcast(here ? root_slice : reg->result, (int)bytes,
                           MPI_BYTE, root_node, hy->bridge);
        int rc2 = step_release(hy, reg->win);
        rc = rc != MPI_SUCCESS ? rc : rc2;
    }
    *data = here ? root_slice : reg->result;
    return rc;
}

/*
 * Reduces elements [lo, lo + n) of the node's slices into the result
 * area, in rank order: result = x_first op (x_first+1 op (... op x_last)).
 * MPI_Reduce_local computes inout = in op inout, so the walk starts from
 * the highest rank; for an associative op this is the rank-order result.
 */
static int reduce_piece(zmpi_hy_comm *hy, zmpi_hy_region *reg, int lo, int n,
                        MPI_Aint extent, MPI_Datatype type, MPI_Op op)
{
    if (n <= 0)
        return MPI_SUCCESS;
    int first = hy->node_first[hy->node_index];
    size_t off = (size_t)lo * (size_t)extent;
    unsigned char *acc = reg->result + off;
    const unsigned char *last =
        reg->base + (size_t)(first + hy->node_size - 1) * reg->slice_bytes;
    memcpy(acc, last + off, (size_t)n * (size_t)extent);
    for (int r = first + hy->node_size - 2; r >= first; r--) {
        const unsigned char *in = reg->base + (size_t)r * reg->slice_bytes;
        int rc = MPI_Reduce_local(in + off, acc, n, type, op);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* Checks the arguments of zmpi_hy_allreduce and returns the extent of
 * type in *extent. */
static int check_allreduce(const zmpi_hy_region *reg, int count,
                           MPI_Datatype type, MPI_Aint *extent)
{
    const char *fn = "zmpi_hy_allreduce";
    MPI_Aint lb = 0;
    int size = 0;
    if (count < 0)
        return bad_arg(fn, "negative count");
    int rc = MPI_Type_get_extent(type, &lb, extent);
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_size(type, &size);
    if (rc != MPI_SUCCESS)
        return rc;
    if (lb != 0 || *extent != (MPI_Aint)size || size == 0)
        return bad_arg(fn, "the datatype must be contiguous");
    if ((size_t)count * (size_t)size > reg->slice_bytes)
        return bad_arg(fn, "count elements do not fit in a slice");
    return MPI_SUCCESS;
}

int zmpi_hy_allreduce(zmpi_hy_comm *hy, zmpi_hy_region *reg, int count,
                      MPI_Datatype type, MPI_Op op, void **result)
{
    MPI_Aint extent = 0;
    int rc = check_allreduce(reg, count, type, &extent);
    if (rc != MPI_SUCCESS)
        return rc;
    *result = reg->result;
    int parallel = hy->node_size > 1 &&
                   (size_t)count * (size_t)extent >= PARALLEL_REDUCE_BYTES;
    /* All inputs must be written before anyone reads them, and nobody may
     * still read the previous result when the new one is written. */
    rc = step_arrive(hy, reg->win, 1, 0);
    if (rc != MPI_SUCCESS)
        return rc;
    if (parallel) {
        /* The leader lets everyone start on its own piece; the pieces
         * are then complete at the second arrival. */
        rc = step_release(hy, reg->win);
        int k = hy->node_rank, n = hy->node_size;
        int lo = (int)((long long)count * k / n);
        int hi = (int)((long long)count * (k + 1) / n);
        if (rc == MPI_SUCCESS)
            rc = reduce_piece(hy, reg, lo, hi - lo, extent, type, op);
        int rc2 = step_arrive(hy, reg->win, 1, 0);
        rc = rc != MPI_SUCCESS ? rc : rc2;
    } else if (hy->node_rank == 0) {
        rc = reduce_piece(hy, reg, 0, count, extent, type, op);
    }
    if (rc == MPI_SUCCESS && hy->node_rank == 0 && hy->nnodes > 1)
        rc = MPI_Allreduce(MPI_IN_PLACE, reg->result, count, type, op,
                           hy->bridge);
    int rc2 = step_release(hy, reg->win);
    return rc != MPI_SUCCESS ? rc : rc2;
}
