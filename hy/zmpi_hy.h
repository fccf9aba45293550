/*
 * zmpi_hy.h: one-copy-per-node collectives on standard MPI-3 (MPI+MPI).
 *
 * The ranks of a node share memory.  Instead of giving every rank its own
 * copy of a collective's result, these primitives keep ONE copy per node in
 * a shared-memory window and every rank of the node reads it through a
 * pointer.  Only one rank per node, the leader, talks to the other nodes,
 * over the bridge communicator of the leaders.  The design follows the
 * hybrid MPI+MPI collectives of Zhou, Gracia and Schneider (paper 001 of
 * the zmpi seeds); the names and the code are our own.
 *
 * Only standard MPI-3 calls are used (Comm_split_type, Win_allocate_shared,
 * Win_shared_query, Win_sync, Win_lock_all, Bcast, Allgather(v),
 * Allreduce, Reduce_local, ...), so the library builds and runs with zmpi,
 * MPICH and Open MPI alike.
 *
 * Ownership and threads: every object here belongs to the rank that
 * created it (it lives in memory the caller provides, plus MPI handles and
 * heap blocks that the matching free function releases).  There is no
 * global or static mutable state: under zmpi all ranks are threads of one
 * process.  Each rank calls the functions from the thread that called
 * MPI_Init; MPI_THREAD_SINGLE is enough.
 *
 * Collective calls: every function whose comment says "collective over
 * hy->comm" must be called by all ranks of the communicator, in the same
 * order, like an MPI collective.
 *
 * Errors: functions return MPI_SUCCESS or an MPI error code.  A failing MPI
 * call inside returns its code (with the default MPI_ERRORS_ARE_FATAL the
 * program has already stopped); wrong arguments give MPI_ERR_ARG and a
 * message on stderr naming the function.
 *
 * Synchronisation inside a node uses spin flags in a small shared window,
 * as in the paper: a rank announces its arrival by bumping its own flag,
 * the leader waits for the flags it needs, and releases the node by
 * bumping one release flag.  Waiting loops call MPI_Win_sync (the memory
 * barrier MPI prescribes for polling shared memory) and, after a few
 * polls, an unsuccessful MPI_Iprobe on the node communicator (where an MPI
 * whose ranks are threads or user-level threads, like zmpi, runs the other
 * ranks of the thread) and sched_yield() (for processes that outnumber the
 * cores).
 * Setting ZMPI_HY_SYNC=barrier in the environment replaces every flag
 * synchronisation by MPI_Barrier on the node communicator (for comparison).
 * Setting ZMPI_HY_NODE_SIZE=k splits the ranks into "nodes" of k
 * consecutive ranks instead of by shared memory, so that the bridge code
 * can be tested on one machine.
 */
#ifndef ZMPI_HY_H
#define ZMPI_HY_H

#include <stddef.h>

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How the ranks of a node wait for each other. */
enum zmpi_hy_sync_mode {
    ZMPI_HY_SYNC_FLAGS = 0,  /* Spin flags in shared memory (default). */
    ZMPI_HY_SYNC_BARRIER = 1 /* MPI_Barrier on the node communicator. */
};

/*
 * The communicators of one hybrid MPI+MPI context.  All fields are set by
 * zmpi_hy_comm_create and are read-only for the caller.
 *
 * comm numbers the ranks node by node: the ranks of node 0 first, then
 * those of node 1, ...; inside a node in the order of the parent
 * communicator.  With one node (the usual zmpi case) it has the parent's
 * order.  The one-copy regions are laid out in comm's rank order, so
 * programs should use comm (not the parent) for their rank numbering.
 */
typedef struct zmpi_hy_comm {
    MPI_Comm comm;      /* All ranks, node by node (owned). */
    MPI_Comm node;      /* The ranks that share memory with this one (owned). */
    MPI_Comm bridge;    /* The node leaders; MPI_COMM_NULL elsewhere (owned). */
    int rank, size;     /* This rank and the number of ranks in comm. */
    int node_rank;      /* Rank in node; 0 is the leader. */
    int node_size;      /* Ranks on this node. */
    int node_index;     /* This node's number, 0 .. nnodes-1. */
    int nnodes;         /* Number of nodes. */
    int *node_first;    /* [nnodes + 1]: comm rank of each node's leader,
                         * then size (owned heap block). */
    int sync_mode;      /* An enum zmpi_hy_sync_mode value. */
    int spins;          /* Flag polls before each poll yields (see .c). */
    unsigned gen;       /* Generation of the next synchronisation; the same
                         * in all ranks of the node. */
    MPI_Win flag_win;   /* Shared window holding the flags (owned). */
    volatile unsigned *flags; /* Node-shared flags: one cache line per node
                         * rank for arrivals, then one for the release. */
} zmpi_hy_comm;

/*
 * A node-shared memory region of a hybrid context: one copy per node of
 * size slices of slice_bytes each (one slice per rank of hy->comm, in rank
 * order), followed by a result area of slice_bytes.  The leader of each
 * node allocates it; all ranks of the node see it at their own addresses.
 */
typedef struct zmpi_hy_region {
    MPI_Win win;         /* The shared window (owned). */
    size_t slice_bytes;  /* Bytes of one slice and of the result area. */
    unsigned char *base; /* The node's copy of all slices: slice r starts at
                          * base + r * slice_bytes. */
    unsigned char *slice;  /* This rank's slice. */
    unsigned char *result; /* The node's result area. */
} zmpi_hy_region;

/*
 * Creates the hybrid context of parent: the node communicator
 * (MPI_Comm_split_type with MPI_COMM_TYPE_SHARED), the bridge communicator
 * of the node leaders, the node-ordered comm and the synchronisation flags.
 * Collective over parent.  *hy is caller-owned memory; release what it
 * holds with zmpi_hy_comm_free.  The parent communicator is not kept.
 */
int zmpi_hy_comm_create(MPI_Comm parent, zmpi_hy_comm *hy);

/*
 * Releases the communicators, the flag window and the heap block of hy.
 * Collective over hy->comm.  Every region of hy must be freed first.
 */
int zmpi_hy_comm_free(zmpi_hy_comm *hy);

/*
 * Allocates a node-shared region with slices of slice_bytes bytes for every
 * rank of hy->comm plus a result area of slice_bytes (see zmpi_hy_region).
 * Collective over hy->comm; every rank passes the same slice_bytes.  The
 * memory is owned by the window: release it with zmpi_hy_free.  The
 * contents start as zero bytes.
 */
int zmpi_hy_alloc(zmpi_hy_comm *hy, size_t slice_bytes, zmpi_hy_region *reg);

/* Releases a region.  Collective over hy->comm.  No pointer into it may be
 * used afterwards. */
int zmpi_hy_free(zmpi_hy_comm *hy, zmpi_hy_region *reg);

/*
 * Waits until every rank of this node has called it (a node-local
 * barrier on the flags).  Collective over hy->node only.  Use it before
 * writing into shared data that other ranks of the node may still read.
 */
int zmpi_hy_node_sync(zmpi_hy_comm *hy);

/*
 * One-copy allgather.  Before the call each rank has written its slice of
 * reg; on return reg->base holds all hy->size slices on every node.  The
 * leaders exchange the node blocks over the bridge (MPI_Allgatherv in
 * place); no rank copies anything inside a node.  Collective over
 * hy->comm.  A rank may write its slice again only after every rank of its
 * node is done reading the result (zmpi_hy_node_sync, or the next hy
 * collective on another region).
 */
int zmpi_hy_allgather(zmpi_hy_comm *hy, zmpi_hy_region *reg);

/*
 * One-copy broadcast of bytes bytes from rank root of hy->comm, which has
 * written them at offset in its slice before the call (offset + bytes at
 * most reg->slice_bytes).  On return *data points to the node's copy: on
 * the root's node into the root's slice itself (no copy at all), on the
 * other nodes to the start of the region's result area, received by the
 * leader over the bridge.  The copy stays valid until a rank of the node
 * calls the next hy collective on reg; the root must not change that part
 * of its slice before every reader of its node is done with it (data that
 * never changes, like the matrix blocks of SUMMA, needs no care at all).
 * Inside one node only the root's arrival is awaited.  Collective over
 * hy->comm.
 */
int zmpi_hy_bcast(zmpi_hy_comm *hy, zmpi_hy_region *reg, size_t offset,
                  size_t bytes, int root, void **data);

/*
 * One-copy allreduce of count elements of type with op.  Each rank has
 * written its contribution at the start of its slice; on return *result
 * points to the node's result area, which holds the reduction over all
 * ranks of hy->comm and is the same memory (so the same bits) for every
 * rank of the node.  Inside a node the ranks reduce disjoint pieces of
 * the vector in parallel (small vectors: the leader alone), applying op
 * in rank order, then the leaders combine the node results with
 * MPI_Allreduce on the bridge.  type must be contiguous (extent equals
 * size, e.g. a predefined type); op may be a predefined or a user op.  The
 * result stays valid until a rank of the node calls the next hy collective
 * on reg; slices may be rewritten as soon as the call returns.  Collective
 * over hy->comm.
 */
int zmpi_hy_allreduce(zmpi_hy_comm *hy, zmpi_hy_region *reg, int count,
                      MPI_Datatype type, MPI_Op op, void **result);

#ifdef __cplusplus
}
#endif

#endif
