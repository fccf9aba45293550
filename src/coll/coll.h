/*
 * coll: reduction operations and the collectives.
 *
 * All ranks of a communicator live in one address space, so a collective
 * moves data with direct copies between the ranks' own buffers and needs no
 * message protocol.  Each communicator has one shared control block
 * (zm_coll_shm_t, shm.c): per rank a slot where the rank publishes its
 * arguments (buffer pointers, counts, types, root, op), and a counter with
 * per-rank release flags that make the phases of a collective.  A waiting
 * rank polls its flag while it is alone on its worker and otherwise parks;
 * the last rank to arrive releases (and wakes) the others, so a rank whose
 * peers never arrive stays parked and the deadlock detector reports it.
 *
 * Small Barrier, Bcast, Reduce, Allreduce, Allgather and Alltoall on up to
 * 64 ranks take a fast path instead (fast.c): each rank copies its data
 * into a ring entry of the block behind a stamped header and waits only
 * for the ranks whose data it needs, polling their stamps (no shared
 * counter, nobody releases anybody); the ring lets a rank that needs
 * nobody (a Bcast root) run ahead of its slowest reader by up to the ring
 * depth.  Waiters spin while alone on their worker, yield to the worker's
 * other ranks otherwise, and park after a while (woken by the next
 * publication), so the deadlock detector still sees stuck ranks.
 *
 * Blocking collectives run on the slots (coll.c); non-blocking ones are
 * matched in call order in per-operation instances and executed by the last
 * rank to start them (nbc.c), so they complete while the other ranks
 * compute.  Both share the algorithms (algo.c), written as "the part of the
 * work that belongs to rank r", so that a blocking collective runs every
 * part in parallel on its own rank.
 *
 * Seam for a multi-process layer: a communicator spanning processes would
 * get one block per process for its local ranks, and the rank that
 * finishes the local part (the leader) would exchange the per-process
 * result with the other processes' leaders before releasing the local
 * ranks.  Nothing here assumes more than one process yet.
 */
#ifndef ZM_COLL_H
#define ZM_COLL_H

#include "p2p/p2p.h"

/* ---- Reduction operations ---------------------------------------------- */

#define ZM_OP_MAGIC 0x7a6d6f70u

/* A user reduction function: the MPI_User_function signature, with the
 * datatype handle spelled as what MPI_Datatype is. */
typedef void zm_op_user_fn(void *in, void *inout, int *len, struct zmpi_datatype **dt);
/* The large-count form (MPI_User_function_c): an MPI_Count length. */
typedef void zm_op_user_large_fn(void *in, void *inout, int64_t *len,
                                 struct zmpi_datatype **dt);
/* Operations may have a large-count user function (MPI_Op_create_c): a
 * mark for the API layer's generator (scripts/gen_large_count.py). */
#define ZM_OP_USER_LARGE 1

/* A reduction operation (also MPI_Op). */
typedef struct zmpi_op {
    uint32_t magic;      /* ZM_OP_MAGIC */
    int id;              /* ZM_OP_* */
    int commutative;     /* 1 for all predefined operations */
    const char *name;    /* MPI name */
    zm_op_user_fn *fn;   /* ZM_OP_USER: the user's function (int length), or */
    zm_op_user_large_fn *lfn; /* the user's MPI_User_function_c (one of the two is set) */
    int predefined;      /* never freed */
    _Atomic int refs;    /* user ops: handle plus operations in flight */
} zm_op_t;

enum {
    ZM_OP_MAX, ZM_OP_MIN, ZM_OP_SUM, ZM_OP_PROD, ZM_OP_LAND, ZM_OP_BAND,
    ZM_OP_LOR, ZM_OP_BOR, ZM_OP_LXOR, ZM_OP_BXOR, ZM_OP_MINLOC, ZM_OP_MAXLOC,
    ZM_OP_REPLACE, ZM_OP_NO_OP, ZM_OP_USER
};

/* Nonzero if `op` is a valid operation object. */
int zm_op_valid(const zm_op_t *op);

/* Nonzero if `op` is defined on the predefined type `dt` (MPI-4 section
 * 6.9.2).  User operations are defined on every type. */
int zm_op_defined(const zm_op_t *op, const zm_dt_t *dt);

/* inout[i] = in[i] op inout[i] for `count` elements of `dt` (the predefined
 * basic type for predefined ops, the user's type for user ops).  The
 * caller has checked zm_op_defined.  Any thread. */
void zm_op_apply(const zm_op_t *op, const void *in, void *inout, size_t count,
                 const zm_dt_t *dt);

/* Make a user operation (refs = 1) of function fn (MPI_Op_create) or lfn
 * (MPI_Op_create_c; the other NULL), or NULL if out of memory. */
zm_op_t *zm_op_create(zm_op_user_fn *fn, zm_op_user_large_fn *lfn, int commutative);

/* Take / drop a reference to a user operation (no-ops for predefined
 * ones); the last drop frees it.  Any ULT. */
void zm_op_retain(const zm_op_t *op);
void zm_op_release(const zm_op_t *op);

/* User operations in the process's own memory, not yet released (made
 * off a rank's own thread, or in a job whose ranks have no regions): a
 * rank cannot take them along to another process or into a checkpoint.
 * Any thread. */
long zm_op_live(void);

/* ---- Collectives -------------------------------------------------------- */

/* Same value as MPI_IN_PLACE. */
#define ZM_IN_PLACE ((void *)-1)

/* Which collective a rank called. */
enum {
    ZM_COLL_BARRIER, ZM_COLL_BCAST, ZM_COLL_GATHER, ZM_COLL_GATHERV,
    ZM_COLL_SCATTER, ZM_COLL_SCATTERV, ZM_COLL_ALLGATHER, ZM_COLL_ALLGATHERV,
    ZM_COLL_ALLTOALL, ZM_COLL_ALLTOALLV, ZM_COLL_ALLTOALLW, ZM_COLL_REDUCE,
    ZM_COLL_ALLREDUCE, ZM_COLL_REDUCE_SCATTER, ZM_COLL_REDUCE_SCATTER_BLOCK,
    ZM_COLL_SCAN, ZM_COLL_EXSCAN, ZM_COLL_NKINDS
};

/* Statuses of collectives besides core's: argument mismatches between the
 * ranks, found after every rank has published its arguments.  All ranks
 * find the same mismatch and return it, so none hangs. */
enum {
    ZM_COLL_ERR_KIND = -32,   /* ranks called different collectives */
    ZM_COLL_ERR_ROOT = -33,   /* ranks passed different roots */
    ZM_COLL_ERR_OP = -34,     /* ranks passed different operations */
    ZM_COLL_ERR_COUNT = -35   /* amounts of data do not match */
};

/* The arguments of one rank's call.  The API layer fills the public part
 * (kind to op); coll fills the rest.  Pointers and arrays belong to the
 * caller and must stay valid until the collective completes.  Arguments
 * that MPI ignores are zero and NULL, never the caller's values: the send
 * side of an in-place call, the receive side of a Scatter(v) root's
 * in-place call, and the root-only sides of Gather(v) and Scatter(v) on
 * the other ranks. */
typedef struct zm_coll_args {
    int kind;                       /* ZM_COLL_* */
    int root;                       /* rooted collectives */
    int wide;                       /* the arrays below hold int64_t (MPI_Count, MPI_Aint)
                                     * values, else int: ZM_COLL_WIDE_COUNTS */
    const void *sbuf;               /* send buffer or ZM_IN_PLACE */
    size_t scount;                  /* send count */
    const zm_dt_t *sdt;             /* send type */
    void *rbuf;                     /* receive buffer */
    size_t rcount;                  /* receive count (per rank) */
    const zm_dt_t *rdt;             /* receive type */
    /* The arrays are int arrays unless `wide` says they hold int64_t values:
     * read them with zm_coll_at. */
    const int *scounts, *sdispls;   /* v/w variants: per-rank send counts */
    const int *rcounts, *rdispls;   /* v/w variants, Reduce_scatter counts */
    const zm_dt_t *const *sdts;     /* Alltoallw: per-rank send types */
    const zm_dt_t *const *rdts;     /* Alltoallw: per-rank receive types */
    const zm_op_t *op;              /* reductions */
    /* Filled by coll. */
    const void *src;                /* where this rank's data is read */
    size_t src_count;               /* in units of src_dt */
    const zm_dt_t *src_dt;
    const void *rin;                /* reductions: input in element view */
    void *rout;                     /* reductions: output in element view */
    size_t rm;                      /* reductions: elements in the view */
    const zm_dt_t *edt;             /* reductions: element type */
    void *tmp;                      /* malloc'd by this rank, freed at end */
    unsigned char *inl_buf;         /* where small data is copied (shared block) */
    size_t inl_cap;                 /* its size; 0: never copy (non-blocking) */
    int inl;                        /* data copied into inl_buf */
    zm_status_t failed;             /* preparing failed (out of memory) */
    int pers_ready;                 /* persistent: what prepare filled in holds for
                                     * every round (no temporary copy) */
    uint32_t hist;                  /* blocking: digest of the rank's earlier
                                     * blocking collectives on the communicator */
} zm_coll_args_t;

/* Zero the public part of `a` (field by field: cheaper than a memset call
 * for a block this small, which runs on every collective). */
static inline void zm_coll_args_clear(zm_coll_args_t *a)
{
    a->kind = a->root = a->wide = 0;
    a->sbuf = NULL;
    a->scount = a->rcount = 0;
    a->sdt = a->rdt = NULL;
    a->rbuf = NULL;
    a->scounts = a->sdispls = a->rcounts = a->rdispls = NULL;
    a->sdts = a->rdts = NULL;
    a->op = NULL;
}

/* The count and displacement arrays of an argument block may be of either
 * width (the large-count calls pass MPI_Count / MPI_Aint arrays): this
 * mark says so to the API layer's generator (scripts/gen_large_count.py). */
#define ZM_COLL_WIDE_COUNTS 1

/* Element i of count or displacement array arr of block a. */
static inline int64_t zm_coll_at(const zm_coll_args_t *a, const void *arr, size_t i)
{
    return a->wide ? ((const int64_t *)arr)[i] : (int64_t)((const int *)arr)[i];
}

/* A communicator's shared control block. */
typedef struct zm_coll_shm zm_coll_shm_t;

/* Find or create the block of communicator `c` (the same for all its
 * ranks) and take a reference.  Returns NULL if out of memory.  ULT
 * context; each rank calls it once per communicator object. */
zm_coll_shm_t *zm_coll_attach(const zm_p2p_comm_t *c);

/* Drop the caller's reference; the last one frees the block.  Any ULT. */
void zm_coll_detach(zm_coll_shm_t *s);

/* Finish the wait rank `me` deferred from its last collective on `s`
 * (see coll.c); the API calls it before the rank frees the communicator.
 * ULT context. */
void zm_coll_settle(zm_coll_shm_t *s, int me);

/* Before rank `me` frees its communicator: settle, and wait until every
 * other rank has started (so attached to `s` for) the last blocking
 * collective `me` ran, whose data it may still read.  ULT context. */
void zm_coll_quiesce(zm_coll_shm_t *s, int me);

/* Drop a rank's reference to its communicator's collective state s (its
 * stand-in, and the block of its process's members, of a communicator
 * across processes) when ranks moved between processes (ZMPI_Migrate,
 * src/mpi/migrate_net.c): the process groups, leaders and in-process
 * blocks depend on the placement, and the next collective attaches anew
 * (its blocking and non-blocking numbering starts again at 0, in every
 * rank alike).  Only while every rank of the process waits in that call
 * with no collective pending.  Any ULT of the process. */
void zm_coll_placement_drop(zm_coll_shm_t *s);

/* Run a blocking collective as rank `me` of block `s`.  On a mismatch
 * between the ranks' arguments, or a copy that does not fit, writes a
 * message (naming the rank and the argument) to err and returns the
 * status; every rank returns, none hangs.  ULT context. */
zm_status_t zm_coll_run(zm_coll_shm_t *s, int me, const zm_coll_args_t *a, char *err,
                        size_t errlen);

/* Start a non-blocking collective; `req` completes when it is done (the
 * last rank to start it does the work).  Non-blocking collectives of a
 * communicator are matched in the order each rank starts them.  Returns
 * ZM_ERR_NOMEM if out of memory.  ULT context. */
zm_status_t zm_coll_start(zm_coll_shm_t *s, int me, const zm_coll_args_t *a, zm_req_t *req);

/* A persistent collective (MPI_Allreduce_init etc.): every rank's
 * arguments, kept from init to free, so that a start only prepares the
 * caller's data and counts arrivals.  The last rank to start a round runs
 * every rank's part and completes every request, as for a non-blocking
 * collective. */
typedef struct coll_nbc zm_coll_pers_t;

/* Rank `me` creates its side of a persistent collective with arguments `a`
 * (which must stay valid, with the buffers and arrays they point to, until
 * zm_coll_pfree); `req` is the request each round completes.  Matched
 * between the ranks in the order they start non-blocking collectives and
 * make persistent ones.  Returns ZM_ERR_NOMEM, or ZM_COLL_ERR_KIND if
 * another rank started a non-blocking collective in its place.  ULT
 * context. */
zm_status_t zm_coll_pinit(zm_coll_shm_t *s, int me, const zm_coll_args_t *a, zm_req_t *req,
                          zm_coll_pers_t **out);

/* Start rank me's next round: `req` (given at init) completes when every
 * rank has started it and the work is done.  The caller must not start a
 * round before its previous one completed.  ULT context. */
void zm_coll_pstart(zm_coll_pers_t *p, int me);

/* Rank me is done with the persistent collective (not running); the last
 * rank frees it.  ULT context. */
void zm_coll_pfree(zm_coll_pers_t *p, int me);

/* A blocking Bcast of (buf, count, dt) from root, as zm_coll_run would
 * run it, without building the full argument block when the call takes
 * the fast path (MPI_Bcast's commonest case).  ULT context. */
zm_status_t zm_coll_bcast_run(zm_coll_shm_t *s, int me, void *buf, size_t count,
                              const zm_dt_t *dt, int root, char *err, size_t errlen);

/* Convenience wrappers used to build communicators. */
zm_status_t zm_coll_barrier(zm_coll_shm_t *s, int me);
zm_status_t zm_coll_bcast(zm_coll_shm_t *s, int me, void *buf, size_t count,
                          const zm_dt_t *dt, int root);
/* Every rank contributes `n` ints; out (size*n ints) receives all of them
 * in rank order. */
zm_status_t zm_coll_allgather_int(zm_coll_shm_t *s, int me, const int *in, int n, int *out);

/* Name of a collective's MPI call, for messages. */
const char *zm_coll_name(int kind);

#endif /* ZM_COLL_H */
