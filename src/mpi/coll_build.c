/*
 * coll_build.c: the argument checks of the collective calls and the
 * builders that turn a call's arguments into the coll layer's argument
 * block (zm_coll_args_t).
 *
 * One builder per collective serves its blocking, non-blocking and
 * persistent forms, int and large-count alike: scalar counts are
 * MPI_Count, and count and displacement arrays are read through
 * zm_mpi_at with the width the call passes (ZM_W32 for the int forms'
 * int arrays, ZM_W64 for the _c forms' MPI_Count / MPI_Aint ones), which
 * also travels to the coll layer in the block (zm_coll_args_t.wide).
 */
#include "coll_build.h"

static int check_root(struct zmpi_comm *c, const char *fn, int root)
{
    if (root >= 0 && root < c->p.size)
        return MPI_SUCCESS;
    return zm_mpi_error(c, MPI_ERR_ROOT, fn, "(root=%d): invalid root, communicator %s has %d ranks",
                        root, c->name, c->p.size);
}

int zm_mpi_check_op(struct zmpi_comm *c, const char *fn, MPI_Op op, MPI_Datatype dt)
{
    if (!zm_op_valid(op))
        return zm_mpi_error(c, MPI_ERR_OP, fn, "(op=%s): invalid operation",
                            op == MPI_OP_NULL ? "MPI_OP_NULL" : "freed or not an operation");
    if (!zm_op_defined(op, zm_dt_basic(dt)))
        return zm_mpi_error(c, MPI_ERR_OP, fn, "(op=%s): not defined for datatype %s", op->name,
                            dt->name);
    return MPI_SUCCESS;
}

int zm_mpi_check_counts(struct zmpi_comm *c, const char *fn, const char *what, const int *counts,
                        const int *displs, int *any)
{
    if (!counts || !displs)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(%s): counts or displacements array is NULL",
                            what);
    *any = 0;
    for (int i = 0; i < c->p.size; i++) {
        if (counts[i] < 0)
            return zm_mpi_error(c, MPI_ERR_COUNT, fn, "(%s[%d]=%d): invalid count, must be >= 0",
                                what, i, counts[i]);
        *any |= counts[i] > 0;
    }
    return MPI_SUCCESS;
}

/* A per-rank counts array (and its displacements) with a buffer. */
static int check_vbuf(struct zmpi_comm *c, const char *fn, const char *what, const void *buf,
                      const void *counts, const void *displs, MPI_Datatype dt, int wide)
{
    int any;
    int rc = zm_mpi_check_ccounts(c, fn, what, counts, displs, wide, &any);
    return rc != MPI_SUCCESS ? rc : zm_mpi_check_cbuf(c, fn, buf, any, dt);
}

/* The send side of a call whose sendbuf may be MPI_IN_PLACE where
 * `in_place_ok` says so. */
static int check_send(struct zmpi_comm *c, const char *fn, const void *sbuf, MPI_Count scount,
                      MPI_Datatype sdt, int in_place_ok)
{
    if (sbuf == MPI_IN_PLACE)
        return in_place_ok ? MPI_SUCCESS
                           : zm_mpi_error(c, MPI_ERR_BUFFER, fn, "(sendbuf=MPI_IN_PLACE): only "
                                          "allowed at the root");
    return zm_mpi_check_cbuf(c, fn, sbuf, scount, sdt);
}

/* MPI_IN_PLACE replaces the send count and type, which the standard then
 * ignores: programs pass anything there (-1, MPI_DATATYPE_NULL, a freed
 * type).  The coll layer gets no such value: a send count of 0 and no type
 * with an in-place send buffer. */
static inline void drop_send(zm_coll_args_t *a)
{
    a->scount = 0;
    a->sdt = NULL;
    a->scounts = a->sdispls = NULL;
    a->sdts = NULL;
}

/* Likewise for the receive side that MPI_IN_PLACE replaces (Scatter(v) at
 * the root) or that only the root reads (Gather(v) elsewhere). */
static inline void drop_recv(zm_coll_args_t *a)
{
    a->rcount = 0;
    a->rdt = NULL;
    a->rcounts = a->rdispls = NULL;
    a->rdts = NULL;
}

/* ---- Builders ----------------------------------------------------------- */

/* Bcast's argument checks, shared by MPI_Bcast's direct path and b_bcast. */
int zm_mpi_cb_check_bcast(struct zmpi_comm *c, const char *fn, const void *buf, MPI_Count count,
                       MPI_Datatype dt, int root)
{
    int rc = zm_mpi_check_cbuf(c, fn, buf, count, dt);
    if (rc == MPI_SUCCESS)
        rc = check_root(c, fn, root);
    return rc;
}

int zm_mpi_cb_bcast(struct zmpi_comm *c, const char *fn, zm_coll_args_t *a, void *buf,
                    MPI_Count count, MPI_Datatype dt, int root)
{
    int rc = zm_mpi_cb_check_bcast(c, fn, buf, count, dt, root);
    a->kind = ZM_COLL_BCAST;
    a->root = root;
    a->rbuf = buf;
    a->rcount = (size_t)count;
    a->rdt = dt;
    return rc;
}

int zm_mpi_cb_gather(struct zmpi_comm *c, const char *fn, zm_coll_args_t *a, int v,
                     const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                     MPI_Count rcount, const void *rcounts, const void *displs, MPI_Datatype rdt,
                     int root, int wide)
{
    int rc = check_root(c, fn, root), at_root = c->p.rank == root;
    if (rc == MPI_SUCCESS)
        rc = check_send(c, fn, sbuf, scount, sdt, at_root);
    if (rc == MPI_SUCCESS && at_root)
        rc = v ? check_vbuf(c, fn, "recvcounts", rbuf, rcounts, displs, rdt, wide)
               : zm_mpi_check_cbuf(c, fn, rbuf, rcount, rdt);
    a->kind = v ? ZM_COLL_GATHERV : ZM_COLL_GATHER;
    a->wide = wide;
    a->root = root;
    a->sbuf = sbuf;
    a->scount = (size_t)scount;
    a->sdt = sdt;
    a->rbuf = rbuf;
    a->rcount = (size_t)rcount;
    a->rcounts = rcounts;
    a->rdispls = displs;
    a->rdt = rdt;
    if (sbuf == MPI_IN_PLACE)
        drop_send(a);
    if (!at_root) {
        a->rbuf = NULL;
        drop_recv(a);
    }
    return rc;
}

int zm_mpi_cb_scatter(struct zmpi_comm *c, const char *fn, zm_coll_args_t *a, int v,
                      const void *sbuf, MPI_Count scount, const void *scounts,
                      const void *displs, MPI_Datatype sdt, void *rbuf, MPI_Count rcount,
                      MPI_Datatype rdt, int root, int wide)
{
    int rc = check_root(c, fn, root), at_root = c->p.rank == root;
    if (rc == MPI_SUCCESS && at_root)
        rc = v ? check_vbuf(c, fn, "sendcounts", sbuf, scounts, displs, sdt, wide)
               : zm_mpi_check_cbuf(c, fn, sbuf, scount, sdt);
    if (rc == MPI_SUCCESS && rbuf == MPI_IN_PLACE && !at_root)
        rc = zm_mpi_error(c, MPI_ERR_BUFFER, fn, "(recvbuf=MPI_IN_PLACE): only allowed at the root");
    if (rc == MPI_SUCCESS && rbuf != MPI_IN_PLACE)
        rc = zm_mpi_check_cbuf(c, fn, rbuf, rcount, rdt);
    a->kind = v ? ZM_COLL_SCATTERV : ZM_COLL_SCATTER;
    a->wide = wide;
    a->root = root;
    a->sbuf = sbuf;
    a->scount = (size_t)scount;
    a->scounts = scounts;
    a->sdispls = displs;
    a->sdt = sdt;
    a->rbuf = rbuf;
    a->rcount = (size_t)rcount;
    a->rdt = rdt;
    if (rbuf == MPI_IN_PLACE)
        drop_recv(a);
    if (!at_root) {
        a->sbuf = NULL;
        drop_send(a);
    }
    return rc;
}

int zm_mpi_cb_allgather(struct zmpi_comm *c, const char *fn, zm_coll_args_t *a, int v,
                        const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                        MPI_Count rcount, const void *rcounts, const void *displs,
                        MPI_Datatype rdt, int wide)
{
    int rc = check_send(c, fn, sbuf, scount, sdt, 1);
    if (rc == MPI_SUCCESS)
        rc = v ? check_vbuf(c, fn, "recvcounts", rbuf, rcounts, displs, rdt, wide)
               : zm_mpi_check_cbuf(c, fn, rbuf, rcount, rdt);
    a->kind = v ? ZM_COLL_ALLGATHERV : ZM_COLL_ALLGATHER;
    a->wide = wide;
    a->sbuf = sbuf;
    a->scount = (size_t)scount;
    a->sdt = sdt;
    a->rbuf = rbuf;
    a->rcount = (size_t)rcount;
    a->rcounts = rcounts;
    a->rdispls = displs;
    a->rdt = rdt;
    if (sbuf == MPI_IN_PLACE)
        drop_send(a);
    return rc;
}

int zm_mpi_cb_alltoall(struct zmpi_comm *c, const char *fn, zm_coll_args_t *a,
                       const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                       MPI_Count rcount, MPI_Datatype rdt)
{
    int rc = check_send(c, fn, sbuf, scount, sdt, 1);
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_check_cbuf(c, fn, rbuf, rcount, rdt);
    a->kind = ZM_COLL_ALLTOALL;
    a->sbuf = sbuf;
    a->scount = (size_t)scount;
    a->sdt = sdt;
    a->rbuf = rbuf;
    a->rcount = (size_t)rcount;
    a->rdt = rdt;
    if (sbuf == MPI_IN_PLACE)
        drop_send(a);
    return rc;
}

int zm_mpi_cb_alltoallv(struct zmpi_comm *c, const char *fn, zm_coll_args_t *a,
                        const void *sbuf, const void *scounts, const void *sdispls,
                        MPI_Datatype sdt, void *rbuf, const void *rcounts, const void *rdispls,
                        MPI_Datatype rdt, int wide)
{
    int rc = sbuf == MPI_IN_PLACE ? MPI_SUCCESS
                                  : check_vbuf(c, fn, "sendcounts", sbuf, scounts, sdispls, sdt, wide);
    if (rc == MPI_SUCCESS)
        rc = check_vbuf(c, fn, "recvcounts", rbuf, rcounts, rdispls, rdt, wide);
    a->kind = ZM_COLL_ALLTOALLV;
    a->wide = wide;
    a->sbuf = sbuf;
    a->scounts = scounts;
    a->sdispls = sdispls;
    a->sdt = sdt;
    a->rbuf = rbuf;
    a->rcounts = rcounts;
    a->rdispls = rdispls;
    a->rdt = rdt;
    if (sbuf == MPI_IN_PLACE)
        drop_send(a);
    return rc;
}

/* Alltoallw: per-rank types and byte displacements. */
static int check_wside(struct zmpi_comm *c, const char *fn, const char *what, const void *buf,
                       const void *counts, const void *displs, const MPI_Datatype *dts, int wide)
{
    if (!counts || !displs || !dts)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(%s): counts, displacements or types is NULL",
                            what);
    for (int i = 0; i < c->p.size; i++) {
        int rc = zm_mpi_check_cbuf(c, fn, buf, zm_mpi_at(counts, wide, (size_t)i), dts[i]);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

int zm_mpi_cb_alltoallw(struct zmpi_comm *c, const char *fn, zm_coll_args_t *a,
                        const void *sbuf, const void *scounts, const void *sdispls,
                        const MPI_Datatype *sdts, void *rbuf, const void *rcounts,
                        const void *rdispls, const MPI_Datatype *rdts, int wide)
{
    int rc = sbuf == MPI_IN_PLACE ? MPI_SUCCESS
                                  : check_wside(c, fn, "sendcounts", sbuf, scounts, sdispls, sdts,
                                                wide);
    if (rc == MPI_SUCCESS)
        rc = check_wside(c, fn, "recvcounts", rbuf, rcounts, rdispls, rdts, wide);
    a->kind = ZM_COLL_ALLTOALLW;
    a->wide = wide;
    a->sbuf = sbuf;
    a->scounts = scounts;
    a->sdispls = sdispls;
    a->sdts = (const zm_dt_t *const *)sdts;
    a->rbuf = rbuf;
    a->rcounts = rcounts;
    a->rdispls = rdispls;
    a->rdts = (const zm_dt_t *const *)rdts;
    if (sbuf == MPI_IN_PLACE)
        drop_send(a);
    return rc;
}

/* Reductions: Reduce (root >= 0), Allreduce, Scan, Exscan, and the two
 * Reduce_scatters (rcounts, or count per rank). */
int zm_mpi_cb_reduce(struct zmpi_comm *c, const char *fn, zm_coll_args_t *a, int kind,
                     const void *sbuf, void *rbuf, MPI_Count count, const void *rcounts,
                     MPI_Datatype dt, MPI_Op op, int root, int wide)
{
    int rc = kind == ZM_COLL_REDUCE ? check_root(c, fn, root) : MPI_SUCCESS;
    int gets = kind != ZM_COLL_REDUCE || c->p.rank == root;
    MPI_Count total = count;
    if (rc == MPI_SUCCESS && kind == ZM_COLL_REDUCE_SCATTER) {
        if (!rcounts)
            return zm_mpi_error(c, MPI_ERR_ARG, fn, "(recvcounts=NULL): invalid array");
        total = 0;
        for (int i = 0; i < c->p.size && rc == MPI_SUCCESS; i++) {
            MPI_Count n = zm_mpi_at(rcounts, wide, (size_t)i);
            if (n < 0)
                rc = zm_mpi_error(c, MPI_ERR_COUNT, fn, "(recvcounts[%d]=%lld): invalid count",
                                  i, (long long)n);
            total += n;
        }
        count = zm_mpi_at(rcounts, wide, (size_t)c->p.rank);
    } else if (kind == ZM_COLL_REDUCE_SCATTER_BLOCK) {
        total = count * c->p.size;
    }
    if (rc == MPI_SUCCESS)
        rc = check_send(c, fn, sbuf, total, dt, gets);
    if (rc == MPI_SUCCESS && gets)
        rc = zm_mpi_check_cbuf(c, fn, rbuf, sbuf == MPI_IN_PLACE ? total : count, dt);
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_check_op(c, fn, op, dt);
    a->kind = kind;
    a->root = root;
    a->wide = wide;
    a->sbuf = sbuf;
    a->rbuf = rbuf;
    a->rcount = (size_t)(kind == ZM_COLL_REDUCE_SCATTER_BLOCK ? count : total);
    a->rcounts = rcounts;
    a->sdt = a->rdt = dt;
    a->op = op;
    return rc;
}

int zm_mpi_coll_cbuild(struct zmpi_comm *c, const char *fn, const zm_mpi_ccall_t *k,
                       zm_coll_args_t *a)
{
    zm_coll_args_clear(a);
    int w = k->wide;
    switch (k->kind) {
    case ZM_COLL_BARRIER:
        a->kind = ZM_COLL_BARRIER;
        return MPI_SUCCESS;
    case ZM_COLL_BCAST:
        return zm_mpi_cb_bcast(c, fn, a, k->rbuf, k->rcount, k->rdt, k->root);
    case ZM_COLL_GATHER:
    case ZM_COLL_GATHERV:
        return zm_mpi_cb_gather(c, fn, a, k->kind == ZM_COLL_GATHERV, k->sbuf, k->scount, k->sdt,
                                k->rbuf, k->rcount, k->rcounts, k->rdispls, k->rdt, k->root, w);
    case ZM_COLL_SCATTER:
    case ZM_COLL_SCATTERV:
        return zm_mpi_cb_scatter(c, fn, a, k->kind == ZM_COLL_SCATTERV, k->sbuf, k->scount,
                                 k->scounts, k->sdispls, k->sdt, k->rbuf, k->rcount, k->rdt,
                                 k->root, w);
    case ZM_COLL_ALLGATHER:
    case ZM_COLL_ALLGATHERV:
        return zm_mpi_cb_allgather(c, fn, a, k->kind == ZM_COLL_ALLGATHERV, k->sbuf, k->scount,
                                   k->sdt, k->rbuf, k->rcount, k->rcounts, k->rdispls, k->rdt, w);
    case ZM_COLL_ALLTOALL:
        return zm_mpi_cb_alltoall(c, fn, a, k->sbuf, k->scount, k->sdt, k->rbuf, k->rcount,
                                  k->rdt);
    case ZM_COLL_ALLTOALLV:
        return zm_mpi_cb_alltoallv(c, fn, a, k->sbuf, k->scounts, k->sdispls, k->sdt, k->rbuf,
                                   k->rcounts, k->rdispls, k->rdt, w);
    case ZM_COLL_ALLTOALLW:
        return zm_mpi_cb_alltoallw(c, fn, a, k->sbuf, k->scounts, k->sdispls, k->sdts, k->rbuf,
                                   k->rcounts, k->rdispls, k->rdts, w);
    default:
        return zm_mpi_cb_reduce(c, fn, a, k->kind, k->sbuf, k->rbuf, k->rcount, k->rcounts,
                                k->rdt, k->op, k->root, w);
    }
}
