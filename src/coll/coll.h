/*
 * coll: reduction operations and the collectives of the foundation
 * (Barrier, Bcast, Reduce, Allreduce, and an internal allgather of ints for
 * communicator construction).  They run over p2p on the communicator's
 * collective context, so they never match user point-to-point traffic.
 * The node-aware collectives issue replaces the algorithms behind these
 * calls.
 */
#ifndef ZM_COLL_H
#define ZM_COLL_H

#include "p2p/p2p.h"

#define ZM_OP_MAGIC 0x7a6d6f70u

/* A reduction operation (also MPI_Op). */
typedef struct zmpi_op {
    uint32_t magic;      /* ZM_OP_MAGIC */
    int id;              /* ZM_OP_* */
    int commutative;     /* 1 for all predefined operations */
    const char *name;    /* MPI name */
} zm_op_t;

enum {
    ZM_OP_MAX, ZM_OP_MIN, ZM_OP_SUM, ZM_OP_PROD, ZM_OP_LAND, ZM_OP_BAND,
    ZM_OP_LOR, ZM_OP_BOR, ZM_OP_LXOR, ZM_OP_BXOR, ZM_OP_MINLOC, ZM_OP_MAXLOC,
    ZM_OP_REPLACE, ZM_OP_NO_OP
};

/* Nonzero if `op` is a valid operation object. */
int zm_op_valid(const zm_op_t *op);

/* Nonzero if `op` is defined on `dt` (MPI-4 section 6.9.2). */
int zm_op_defined(const zm_op_t *op, const zm_dt_t *dt);

/* inout[i] = in[i] op inout[i] for `count` elements of `dt`.  The caller
 * has checked zm_op_defined.  Any thread. */
void zm_op_apply(const zm_op_t *op, const void *in, void *inout, size_t count,
                 const zm_dt_t *dt);

/* Collective context of a communicator: its p2p context plus one. */
static inline zm_p2p_comm_t zm_coll_comm(const zm_p2p_comm_t *c)
{
    zm_p2p_comm_t cc = *c;
    cc.ctx = c->ctx + 1;
    return cc;
}

/* The collectives.  All ranks of `c` must call them in the same order with
 * matching arguments.  ULT context.  They return ZM_OK or ZM_ERR_NOMEM. */
zm_status_t zm_coll_barrier(const zm_p2p_comm_t *c);
zm_status_t zm_coll_bcast(const zm_p2p_comm_t *c, void *buf, size_t count,
                          const zm_dt_t *dt, int root);
zm_status_t zm_coll_reduce(const zm_p2p_comm_t *c, const void *sbuf, void *rbuf,
                           size_t count, const zm_dt_t *dt, const zm_op_t *op, int root);
zm_status_t zm_coll_allreduce(const zm_p2p_comm_t *c, const void *sbuf, void *rbuf,
                              size_t count, const zm_dt_t *dt, const zm_op_t *op);

/* Every rank contributes `n` ints; out (size*n ints) receives all of them
 * in rank order.  ULT context. */
zm_status_t zm_coll_allgather_int(const zm_p2p_comm_t *c, const int *in, int n, int *out);

#endif /* ZM_COLL_H */
