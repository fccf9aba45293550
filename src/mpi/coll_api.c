/*
 * coll_api.c: the collective calls, blocking and non-blocking, with their
 * argument checks.
 *
 * Each collective has one builder that checks the caller's arguments and
 * fills a zm_coll_args_t; the blocking call runs it (zm_coll_run) and the
 * non-blocking one starts it (zm_coll_start).  Mismatches between ranks
 * (roots, counts, operations) are found by the coll layer once every rank
 * has arrived, and reported on every rank.
 */
#include "mpi_impl.h"
#include "inter_impl.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

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
                      const int *counts, const int *displs, MPI_Datatype dt)
{
    int any;
    int rc = zm_mpi_check_counts(c, fn, what, counts, displs, &any);
    return rc != MPI_SUCCESS ? rc : zm_mpi_check_buf(c, fn, buf, any, dt);
}

/* The send side of a call whose sendbuf may be MPI_IN_PLACE where
 * `in_place_ok` says so. */
static int check_send(struct zmpi_comm *c, const char *fn, const void *sbuf, int scount,
                      MPI_Datatype sdt, int in_place_ok)
{
    if (sbuf == MPI_IN_PLACE)
        return in_place_ok ? MPI_SUCCESS
                           : zm_mpi_error(c, MPI_ERR_BUFFER, fn, "(sendbuf=MPI_IN_PLACE): only "
                                          "allowed at the root");
    return zm_mpi_check_buf(c, fn, sbuf, scount, sdt);
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

/* The result of a blocking collective that coll returned as st with the
 * message err: MPI_SUCCESS, or the error through c's handler. */
static int coll_result(struct zmpi_comm *c, const char *fn, zm_status_t st, const char *err)
{
    if (ZM_LIKELY(st == ZM_OK))
        return MPI_SUCCESS;
    return zm_mpi_error(c, zm_mpi_class_of(st), fn, "%s (communicator %s)", err, c->name);
}

static int coll_call(struct zmpi_comm *c, const char *fn, const zm_coll_args_t *a)
{
    zm_coll_shm_t *s = zm_mpi_coll_shm(c);
    char err[200];
    if (!s)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    zm_p2p_self()->wait_call = fn;
    return coll_result(c, fn, zm_coll_run(s, c->p.rank, a, err, sizeof(err)), err);
}

/* Start a non-blocking collective on a new request. */
static int coll_start(struct zmpi_comm *c, const char *fn, const zm_coll_args_t *a,
                      MPI_Comm comm, MPI_Request *request)
{
    if (!request)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(request=NULL): no place for the request");
    zm_coll_shm_t *s = zm_mpi_coll_shm(c);
    zm_req_t *req = s ? zm_p2p_req_alloc() : NULL;
    if (!req)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    req->comm = comm;
    req->pcomm = &c->p;
    if (zm_coll_start(s, c->p.rank, a, req) != ZM_OK) {
        zm_p2p_req_release(req);
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    *request = req;
    return MPI_SUCCESS;
}

/* Enter a collective call: resolve the communicator and start an empty
 * argument block. */
#define COLL_ENTER(name)                                        \
    const char *fn = name;                                      \
    zm_mpi_rank_t *me = zm_mpi_enter(fn);                       \
    struct zmpi_comm *c;                                        \
    zm_coll_args_t a;                                           \
    zm_coll_args_clear(&a);                                     \
    int rc = zm_mpi_check_comm(me, comm, fn, &c);               \
    if (rc != MPI_SUCCESS)                                      \
        return rc

/* Finish a blocking (request == NULL) or non-blocking call. */
#define COLL_RUN_BLOCKING (rc != MPI_SUCCESS ? rc : coll_call(c, fn, &a))
/* The non-blocking forms: coll_start refuses a NULL request pointer. */
#define COLL_START(request) (rc != MPI_SUCCESS ? rc : coll_start(c, fn, &a, comm, (request)))

/* ---- Builders ----------------------------------------------------------- */

/* Bcast's argument checks, shared by MPI_Bcast's direct path and b_bcast. */
static int check_bcast(struct zmpi_comm *c, const char *fn, const void *buf, int count,
                       MPI_Datatype dt, int root)
{
    int rc = zm_mpi_check_buf(c, fn, buf, count, dt);
    if (rc == MPI_SUCCESS)
        rc = check_root(c, fn, root);
    return rc;
}

static int b_bcast(struct zmpi_comm *c, const char *fn, zm_coll_args_t *a, void *buf, int count,
                   MPI_Datatype dt, int root)
{
    int rc = check_bcast(c, fn, buf, count, dt, root);
    a->kind = ZM_COLL_BCAST;
    a->root = root;
    a->rbuf = buf;
    a->rcount = (size_t)count;
    a->rdt = dt;
    return rc;
}

static int b_gather(struct zmpi_comm *c, const char *fn, zm_coll_args_t *a, int v,
                    const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                    const int *rcounts, const int *displs, MPI_Datatype rdt, int root)
{
    int rc = check_root(c, fn, root), at_root = c->p.rank == root;
    if (rc == MPI_SUCCESS)
        rc = check_send(c, fn, sbuf, scount, sdt, at_root);
    if (rc == MPI_SUCCESS && at_root)
        rc = v ? check_vbuf(c, fn, "recvcounts", rbuf, rcounts, displs, rdt)
               : zm_mpi_check_buf(c, fn, rbuf, rcount, rdt);
    a->kind = v ? ZM_COLL_GATHERV : ZM_COLL_GATHER;
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

static int b_scatter(struct zmpi_comm *c, const char *fn, zm_coll_args_t *a, int v,
                     const void *sbuf, int scount, const int *scounts, const int *displs,
                     MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt, int root)
{
    int rc = check_root(c, fn, root), at_root = c->p.rank == root;
    if (rc == MPI_SUCCESS && at_root)
        rc = v ? check_vbuf(c, fn, "sendcounts", sbuf, scounts, displs, sdt)
               : zm_mpi_check_buf(c, fn, sbuf, scount, sdt);
    if (rc == MPI_SUCCESS && rbuf == MPI_IN_PLACE && !at_root)
        rc = zm_mpi_error(c, MPI_ERR_BUFFER, fn, "(recvbuf=MPI_IN_PLACE): only allowed at the root");
    if (rc == MPI_SUCCESS && rbuf != MPI_IN_PLACE)
        rc = zm_mpi_check_buf(c, fn, rbuf, rcount, rdt);
    a->kind = v ? ZM_COLL_SCATTERV : ZM_COLL_SCATTER;
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

static int b_allgather(struct zmpi_comm *c, const char *fn, zm_coll_args_t *a, int v,
                       const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                       const int *rcounts, const int *displs, MPI_Datatype rdt)
{
    int rc = check_send(c, fn, sbuf, scount, sdt, 1);
    if (rc == MPI_SUCCESS)
        rc = v ? check_vbuf(c, fn, "recvcounts", rbuf, rcounts, displs, rdt)
               : zm_mpi_check_buf(c, fn, rbuf, rcount, rdt);
    a->kind = v ? ZM_COLL_ALLGATHERV : ZM_COLL_ALLGATHER;
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

static int b_alltoall(struct zmpi_comm *c, const char *fn, zm_coll_args_t *a, const void *sbuf,
                      int scount, MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt)
{
    int rc = check_send(c, fn, sbuf, scount, sdt, 1);
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_check_buf(c, fn, rbuf, rcount, rdt);
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

static int b_alltoallv(struct zmpi_comm *c, const char *fn, zm_coll_args_t *a, const void *sbuf,
                       const int *scounts, const int *sdispls, MPI_Datatype sdt, void *rbuf,
                       const int *rcounts, const int *rdispls, MPI_Datatype rdt)
{
    int rc = sbuf == MPI_IN_PLACE ? MPI_SUCCESS
                                  : check_vbuf(c, fn, "sendcounts", sbuf, scounts, sdispls, sdt);
    if (rc == MPI_SUCCESS)
        rc = check_vbuf(c, fn, "recvcounts", rbuf, rcounts, rdispls, rdt);
    a->kind = ZM_COLL_ALLTOALLV;
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
                       const int *counts, const int *displs, const MPI_Datatype *dts)
{
    if (!counts || !displs || !dts)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(%s): counts, displacements or types is NULL",
                            what);
    for (int i = 0; i < c->p.size; i++) {
        int rc = zm_mpi_check_buf(c, fn, buf, counts[i], dts[i]);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

static int b_alltoallw(struct zmpi_comm *c, const char *fn, zm_coll_args_t *a, const void *sbuf,
                       const int *scounts, const int *sdispls, const MPI_Datatype *sdts,
                       void *rbuf, const int *rcounts, const int *rdispls,
                       const MPI_Datatype *rdts)
{
    int rc = sbuf == MPI_IN_PLACE ? MPI_SUCCESS
                                  : check_wside(c, fn, "sendcounts", sbuf, scounts, sdispls, sdts);
    if (rc == MPI_SUCCESS)
        rc = check_wside(c, fn, "recvcounts", rbuf, rcounts, rdispls, rdts);
    a->kind = ZM_COLL_ALLTOALLW;
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
static int b_reduce(struct zmpi_comm *c, const char *fn, zm_coll_args_t *a, int kind,
                    const void *sbuf, void *rbuf, int count, const int *rcounts, MPI_Datatype dt,
                    MPI_Op op, int root)
{
    int rc = kind == ZM_COLL_REDUCE ? check_root(c, fn, root) : MPI_SUCCESS;
    int gets = kind != ZM_COLL_REDUCE || c->p.rank == root;
    int total = count;
    if (rc == MPI_SUCCESS && kind == ZM_COLL_REDUCE_SCATTER) {
        if (!rcounts)
            return zm_mpi_error(c, MPI_ERR_ARG, fn, "(recvcounts=NULL): invalid array");
        total = 0;
        for (int i = 0; i < c->p.size && rc == MPI_SUCCESS; i++) {
            if (rcounts[i] < 0)
                rc = zm_mpi_error(c, MPI_ERR_COUNT, fn, "(recvcounts[%d]=%d): invalid count",
                                  i, rcounts[i]);
            total += rcounts[i];
        }
        count = rcounts[c->p.rank];
    } else if (kind == ZM_COLL_REDUCE_SCATTER_BLOCK) {
        total = count * c->p.size;
    }
    if (rc == MPI_SUCCESS)
        rc = check_send(c, fn, sbuf, total, dt, gets);
    if (rc == MPI_SUCCESS && gets)
        rc = zm_mpi_check_buf(c, fn, rbuf, sbuf == MPI_IN_PLACE ? total : count, dt);
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_check_op(c, fn, op, dt);
    a->kind = kind;
    a->root = root;
    a->sbuf = sbuf;
    a->rbuf = rbuf;
    a->rcount = (size_t)(kind == ZM_COLL_REDUCE_SCATTER_BLOCK ? count : total);
    a->rcounts = rcounts;
    a->sdt = a->rdt = dt;
    a->op = op;
    return rc;
}

/* Check a call's arguments and fill `a` with the builder of its kind, for
 * persistent collectives (coll_persist.c).  Intracommunicators only. */
int zm_mpi_coll_build(struct zmpi_comm *c, const char *fn, const zm_mpi_coll_call_t *k,
                      zm_coll_args_t *a)
{
    zm_coll_args_clear(a);
    switch (k->kind) {
    case ZM_COLL_BARRIER:
        a->kind = ZM_COLL_BARRIER;
        return MPI_SUCCESS;
    case ZM_COLL_BCAST:
        return b_bcast(c, fn, a, k->rbuf, k->rcount, k->rdt, k->root);
    case ZM_COLL_GATHER:
    case ZM_COLL_GATHERV:
        return b_gather(c, fn, a, k->kind == ZM_COLL_GATHERV, k->sbuf, k->scount, k->sdt,
                        k->rbuf, k->rcount, k->rcounts, k->rdispls, k->rdt, k->root);
    case ZM_COLL_SCATTER:
    case ZM_COLL_SCATTERV:
        return b_scatter(c, fn, a, k->kind == ZM_COLL_SCATTERV, k->sbuf, k->scount, k->scounts,
                         k->sdispls, k->sdt, k->rbuf, k->rcount, k->rdt, k->root);
    case ZM_COLL_ALLGATHER:
    case ZM_COLL_ALLGATHERV:
        return b_allgather(c, fn, a, k->kind == ZM_COLL_ALLGATHERV, k->sbuf, k->scount, k->sdt,
                           k->rbuf, k->rcount, k->rcounts, k->rdispls, k->rdt);
    case ZM_COLL_ALLTOALL:
        return b_alltoall(c, fn, a, k->sbuf, k->scount, k->sdt, k->rbuf, k->rcount, k->rdt);
    case ZM_COLL_ALLTOALLV:
        return b_alltoallv(c, fn, a, k->sbuf, k->scounts, k->sdispls, k->sdt, k->rbuf,
                           k->rcounts, k->rdispls, k->rdt);
    case ZM_COLL_ALLTOALLW:
        return b_alltoallw(c, fn, a, k->sbuf, k->scounts, k->sdispls, k->sdts, k->rbuf,
                           k->rcounts, k->rdispls, k->rdts);
    default:
        return b_reduce(c, fn, a, k->kind, k->sbuf, k->rbuf, k->rcount, k->rcounts, k->rdt,
                        k->op, k->root);
    }
}

/* ---- Blocking and non-blocking calls ------------------------------------ */

int PMPI_Barrier(MPI_Comm comm)
{
    COLL_ENTER("MPI_Barrier");
    if (c->inter) /* intercommunicator: inter_coll.c */
        return zm_mpi_inter_barrier(c, fn, comm, ZM_INTER_BLOCKING);
    a.kind = ZM_COLL_BARRIER;
    return COLL_RUN_BLOCKING;
}
ZM_WEAK(Barrier)

int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    COLL_ENTER("MPI_Ibarrier");
    if (c->inter) /* intercommunicator: inter_coll.c */
        return zm_mpi_inter_barrier(c, fn, comm, request);
    a.kind = ZM_COLL_BARRIER;
    return COLL_START(request);
}
ZM_WEAK(Ibarrier)

/* The commonest collective, without an argument block: coll builds one
 * only if the call leaves the fast path. */
int PMPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    const char *fn = "MPI_Bcast";
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    struct zmpi_comm *c;
    int rc = zm_mpi_check_comm(me, comm, fn, &c);
    if (rc == MPI_SUCCESS && c->inter) /* intercommunicator: inter_coll.c */
        return zm_mpi_inter_bcast(c, fn, comm, buf, count, dt, root, ZM_INTER_BLOCKING);
    if (rc == MPI_SUCCESS)
        rc = check_bcast(c, fn, buf, count, dt, root);
    if (rc != MPI_SUCCESS)
        return rc;
    zm_coll_shm_t *s = zm_mpi_coll_shm(c);
    char err[200];
    if (!s)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    /* me already holds our rank: no second walk from the thread to it. */
    zm_p2p_rank(me->world_rank)->wait_call = fn;
    return coll_result(c, fn, zm_coll_bcast_run(s, c->p.rank, buf, (size_t)count, dt, root,
                                                err, sizeof(err)), err);
}
ZM_WEAK(Bcast)

int PMPI_Ibcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                MPI_Request *request)
{
    COLL_ENTER("MPI_Ibcast");
    if (c->inter) /* intercommunicator: inter_coll.c */
        return zm_mpi_inter_bcast(c, fn, comm, buf, count, dt, root, request);
    rc = b_bcast(c, fn, &a, buf, count, dt, root);
    return COLL_START(request);
}
ZM_WEAK(Ibcast)

int PMPI_Gather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                MPI_Datatype rdt, int root, MPI_Comm comm)
{
    COLL_ENTER("MPI_Gather");
    if (c->inter) /* intercommunicator: inter_coll.c */
        return zm_mpi_inter_gather(c, fn, comm, 0, sbuf, scount, sdt, rbuf, rcount, NULL, NULL, rdt,
                                   root, ZM_INTER_BLOCKING);
    rc = b_gather(c, fn, &a, 0, sbuf, scount, sdt, rbuf, rcount, NULL, NULL, rdt, root);
    return COLL_RUN_BLOCKING;
}
ZM_WEAK(Gather)

int PMPI_Igather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                 MPI_Datatype rdt, int root, MPI_Comm comm, MPI_Request *request)
{
    COLL_ENTER("MPI_Igather");
    if (c->inter) /* intercommunicator: inter_coll.c */
        return zm_mpi_inter_gather(c, fn, comm, 0, sbuf, scount, sdt, rbuf, rcount, NULL, NULL, rdt,
                                   root, request);
    rc = b_gather(c, fn, &a, 0, sbuf, scount, sdt, rbuf, rcount, NULL, NULL, rdt, root);
    return COLL_START(request);
}
ZM_WEAK(Igather)

int PMPI_Gatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                 const int rcounts[], const int displs[], MPI_Datatype rdt, int root,
                 MPI_Comm comm)
{
    COLL_ENTER("MPI_Gatherv");
    if (c->inter) /* intercommunicator: inter_coll.c */
        return zm_mpi_inter_gather(c, fn, comm, 1, sbuf, scount, sdt, rbuf, 0, rcounts, displs, rdt,
                                   root, ZM_INTER_BLOCKING);
    rc = b_gather(c, fn, &a, 1, sbuf, scount, sdt, rbuf, 0, rcounts, displs, rdt, root);
    return COLL_RUN_BLOCKING;
}
ZM_WEAK(Gatherv)

int PMPI_Igatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                  const int rcounts[], const int displs[], MPI_Datatype rdt, int root,
                  MPI_Comm comm, MPI_Request *request)
{
    COLL_ENTER("MPI_Igatherv");
    if (c->inter) /* intercommunicator: inter_coll.c */
        return zm_mpi_inter_gather(c, fn, comm, 1, sbuf, scount, sdt, rbuf, 0, rcounts, displs, rdt,
                                   root, request);
    rc = b_gather(c, fn, &a, 1, sbuf, scount, sdt, rbuf, 0, rcounts, displs, rdt, root);
    return COLL_START(request);
}
ZM_WEAK(Igatherv)

int PMPI_Scatter(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                 MPI_Datatype rdt, int root, MPI_Comm comm)
{
    COLL_ENTER("MPI_Scatter");
    if (c->inter) /* intercommunicator: inter_coll.c */
        return zm_mpi_inter_scatter(c, fn, comm, 0, sbuf, scount, NULL, NULL, sdt, rbuf, rcount,
                                    rdt, root, ZM_INTER_BLOCKING);
    rc = b_scatter(c, fn, &a, 0, sbuf, scount, NULL, NULL, sdt, rbuf, rcount, rdt, root);
    return COLL_RUN_BLOCKING;
}
ZM_WEAK(Scatter)

int PMPI_Iscatter(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                  MPI_Datatype rdt, int root, MPI_Comm comm, MPI_Request *request)
{
    COLL_ENTER("MPI_Iscatter");
    if (c->inter) /* intercommunicator: inter_coll.c */
        return zm_mpi_inter_scatter(c, fn, comm, 0, sbuf, scount, NULL, NULL, sdt, rbuf, rcount,
                                    rdt, root, request);
    rc = b_scatter(c, fn, &a, 0, sbuf, scount, NULL, NULL, sdt, rbuf, rcount, rdt, root);
    return COLL_START(request);
}
ZM_WEAK(Iscatter)

int PMPI_Scatterv(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype sdt,
                  void *rbuf, int rcount, MPI_Datatype rdt, int root, MPI_Comm comm)
{
    COLL_ENTER("MPI_Scatterv");
    if (c->inter) /* intercommunicator: inter_coll.c */
        return zm_mpi_inter_scatter(c, fn, comm, 1, sbuf, 0, scounts, displs, sdt, rbuf, rcount,
                                    rdt, root, ZM_INTER_BLOCKING);
    rc = b_scatter(c, fn, &a, 1, sbuf, 0, scounts, displs, sdt, rbuf, rcount, rdt, root);
    return COLL_RUN_BLOCKING;
}
ZM_WEAK(Scatterv)

int PMPI_Iscatterv(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype sdt,
                   void *rbuf, int rcount, MPI_Datatype rdt, int root, MPI_Comm comm,
                   MPI_Request *request)
{
    COLL_ENTER("MPI_Iscatterv");
    if (c->inter) /* intercommunicator: inter_coll.c */
        return zm_mpi_inter_scatter(c, fn, comm, 1, sbuf, 0, scounts, displs, sdt, rbuf, rcount,
                                    rdt, root, request);
    rc = b_scatter(c, fn, &a, 1, sbuf, 0, scounts, displs, sdt, rbuf, rcount, rdt, root);
    return COLL_START(request);
}
ZM_WEAK(Iscatterv)

int PMPI_Allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                   MPI_Datatype rdt, MPI_Comm comm)
{
    COLL_ENTER("MPI_Allgather");
    if (c->inter) /* intercommunicator: inter_coll.c */
        return zm_mpi_inter_allgather(c, fn, comm, 0, sbuf, scount, sdt, rbuf, rcount, NULL, NULL,
                                      rdt, ZM_INTER_BLOCKING);
    rc = b_allgather(c, fn, &a, 0, sbuf, scount, sdt, rbuf, rcount, NULL, NULL, rdt);
    return COLL_RUN_BLOCKING;
}
ZM_WEAK(Allgather)

int PMPI_Iallgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                    MPI_Datatype rdt, MPI_Comm comm, MPI_Request *request)
{
    COLL_ENTER("MPI_Iallgather");
    if (c->inter) /* intercommunicator: inter_coll.c */
        return zm_mpi_inter_allgather(c, fn, comm, 0, sbuf, scount, sdt, rbuf, rcount, NULL, NULL,
                                      rdt, request);
    rc = b_allgather(c, fn, &a, 0, sbuf, scount, sdt, rbuf, rcount, NULL, NULL, rdt);
    return COLL_START(request);
}
ZM_WEAK(Iallgather)

int PMPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                    const int rcounts[], const int displs[], MPI_Datatype rdt, MPI_Comm comm)
{
    COLL_ENTER("MPI_Allgatherv");
    if (c->inter) /* intercommunicator: inter_coll.c */
        return zm_mpi_inter_allgather(c, fn, comm, 1, sbuf, scount, sdt, rbuf, 0, rcounts, displs,
                                      rdt, ZM_INTER_BLOCKING);
    rc = b_allgather(c, fn, &a, 1, sbuf, scount, sdt, rbuf, 0, rcounts, displs, rdt);
    return COLL_RUN_BLOCKING;
}
ZM_WEAK(Allgatherv)

int PMPI_Iallgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                     const int rcounts[], const int displs[], MPI_Datatype rdt, MPI_Comm comm,
                     MPI_Request *request)
{
    COLL_ENTER("MPI_Iallgatherv");
    if (c->inter) /* intercommunicator: inter_coll.c */
        return zm_mpi_inter_allgather(c, fn, comm, 1, sbuf, scount, sdt, rbuf, 0, rcounts, displs,
                                      rdt, request);
    rc = b_allgather(c, fn, &a, 1, sbuf, scount, sdt, rbuf, 0, rcounts, displs, rdt);
    return COLL_START(request);
}
ZM_WEAK(Iallgatherv)

int PMPI_Alltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                  MPI_Datatype rdt, MPI_Comm comm)
{
    COLL_ENTER("MPI_Alltoall");
    if (c->inter) /* intercommunicator: inter_coll.c */
        return zm_mpi_inter_alltoall(c, fn, comm, sbuf, scount, sdt, rbuf, rcount, rdt,
                                     ZM_INTER_BLOCKING);
    rc = b_alltoall(c, fn, &a, sbuf, scount, sdt, rbuf, rcount, rdt);
    return COLL_RUN_BLOCKING;
}
ZM_WEAK(Alltoall)

int PMPI_Ialltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                   MPI_Datatype rdt, MPI_Comm comm, MPI_Request *request)
{
    COLL_ENTER("MPI_Ialltoall");
    if (c->inter) /* intercommunicator: inter_coll.c */
        return zm_mpi_inter_alltoall(c, fn, comm, sbuf, scount, sdt, rbuf, rcount, rdt, request);
    rc = b_alltoall(c, fn, &a, sbuf, scount, sdt, rbuf, rcount, rdt);
    return COLL_START(request);
}
ZM_WEAK(Ialltoall)

int PMPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype sdt,
                   void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rdt,
                   MPI_Comm comm)
{
    COLL_ENTER("MPI_Alltoallv");
    if (c->inter) /* intercommunicator: inter_coll.c */
        return zm_mpi_inter_alltoallv(c, fn, comm, sbuf, scounts, sdispls, sdt, rbuf, rcounts,
                                      rdispls, rdt, ZM_INTER_BLOCKING);
    rc = b_alltoallv(c, fn, &a, sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt);
    return COLL_RUN_BLOCKING;
}
ZM_WEAK(Alltoallv)

int PMPI_Ialltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                    MPI_Datatype sdt, void *rbuf, const int rcounts[], const int rdispls[],
                    MPI_Datatype rdt, MPI_Comm comm, MPI_Request *request)
{
    COLL_ENTER("MPI_Ialltoallv");
    if (c->inter) /* intercommunicator: inter_coll.c */
        return zm_mpi_inter_alltoallv(c, fn, comm, sbuf, scounts, sdispls, sdt, rbuf, rcounts,
                                      rdispls, rdt, request);
    rc = b_alltoallv(c, fn, &a, sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt);
    return COLL_START(request);
}
ZM_WEAK(Ialltoallv)

int PMPI_Alltoallw(const void *sbuf, const int scounts[], const int sdispls[],
                   const MPI_Datatype sdts[], void *rbuf, const int rcounts[],
                   const int rdispls[], const MPI_Datatype rdts[], MPI_Comm comm)
{
    COLL_ENTER("MPI_Alltoallw");
    if (c->inter) /* intercommunicator: inter_coll.c */
        return zm_mpi_inter_alltoallw(c, fn, comm, sbuf, scounts, sdispls, sdts, rbuf, rcounts,
                                      rdispls, rdts, ZM_INTER_BLOCKING);
    rc = b_alltoallw(c, fn, &a, sbuf, scounts, sdispls, sdts, rbuf, rcounts, rdispls, rdts);
    return COLL_RUN_BLOCKING;
}
ZM_WEAK(Alltoallw)

int PMPI_Ialltoallw(const void *sbuf, const int scounts[], const int sdispls[],
                    const MPI_Datatype sdts[], void *rbuf, const int rcounts[],
                    const int rdispls[], const MPI_Datatype rdts[], MPI_Comm comm,
                    MPI_Request *request)
{
    COLL_ENTER("MPI_Ialltoallw");
    /* COLL_RUN would take a NULL request for a blocking call. */
    if (!request)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(request=NULL): no place for the request");
    if (c->inter) /* intercommunicator: inter_coll.c */
        return zm_mpi_inter_alltoallw(c, fn, comm, sbuf, scounts, sdispls, sdts, rbuf, rcounts,
                                      rdispls, rdts, request);
    rc = b_alltoallw(c, fn, &a, sbuf, scounts, sdispls, sdts, rbuf, rcounts, rdispls, rdts);
    return COLL_START(request);
}
ZM_WEAK(Ialltoallw)

int PMPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                MPI_Comm comm)
{
    COLL_ENTER("MPI_Reduce");
    if (c->inter) /* intercommunicator: inter_coll.c */
        return zm_mpi_inter_reduce(c, fn, comm, ZM_COLL_REDUCE, sbuf, rbuf, count, NULL, dt, op,
                                   root, ZM_INTER_BLOCKING);
    rc = b_reduce(c, fn, &a, ZM_COLL_REDUCE, sbuf, rbuf, count, NULL, dt, op, root);
    return COLL_RUN_BLOCKING;
}
ZM_WEAK(Reduce)

int PMPI_Ireduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                 MPI_Comm comm, MPI_Request *request)
{
    COLL_ENTER("MPI_Ireduce");
    if (c->inter) /* intercommunicator: inter_coll.c */
        return zm_mpi_inter_reduce(c, fn, comm, ZM_COLL_REDUCE, sbuf, rbuf, count, NULL, dt, op,
                                   root, request);
    rc = b_reduce(c, fn, &a, ZM_COLL_REDUCE, sbuf, rbuf, count, NULL, dt, op, root);
    return COLL_START(request);
}
ZM_WEAK(Ireduce)

int PMPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                   MPI_Comm comm)
{
    COLL_ENTER("MPI_Allreduce");
    if (c->inter) /* intercommunicator: inter_coll.c */
        return zm_mpi_inter_reduce(c, fn, comm, ZM_COLL_ALLREDUCE, sbuf, rbuf, count, NULL, dt, op,
                                   0, ZM_INTER_BLOCKING);
    rc = b_reduce(c, fn, &a, ZM_COLL_ALLREDUCE, sbuf, rbuf, count, NULL, dt, op, 0);
    return COLL_RUN_BLOCKING;
}
ZM_WEAK(Allreduce)

int PMPI_Iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                    MPI_Comm comm, MPI_Request *request)
{
    COLL_ENTER("MPI_Iallreduce");
    if (c->inter) /* intercommunicator: inter_coll.c */
        return zm_mpi_inter_reduce(c, fn, comm, ZM_COLL_ALLREDUCE, sbuf, rbuf, count, NULL, dt, op,
                                   0, request);
    rc = b_reduce(c, fn, &a, ZM_COLL_ALLREDUCE, sbuf, rbuf, count, NULL, dt, op, 0);
    return COLL_START(request);
}
ZM_WEAK(Iallreduce)

int PMPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype dt,
                        MPI_Op op, MPI_Comm comm)
{
    COLL_ENTER("MPI_Reduce_scatter");
    if (c->inter) /* intercommunicator: inter_coll.c */
        return zm_mpi_inter_reduce(c, fn, comm, ZM_COLL_REDUCE_SCATTER, sbuf, rbuf, 0, rcounts, dt,
                                   op, 0, ZM_INTER_BLOCKING);
    rc = b_reduce(c, fn, &a, ZM_COLL_REDUCE_SCATTER, sbuf, rbuf, 0, rcounts, dt, op, 0);
    return COLL_RUN_BLOCKING;
}
ZM_WEAK(Reduce_scatter)

int PMPI_Ireduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype dt,
                         MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    COLL_ENTER("MPI_Ireduce_scatter");
    if (c->inter) /* intercommunicator: inter_coll.c */
        return zm_mpi_inter_reduce(c, fn, comm, ZM_COLL_REDUCE_SCATTER, sbuf, rbuf, 0, rcounts, dt,
                                   op, 0, request);
    rc = b_reduce(c, fn, &a, ZM_COLL_REDUCE_SCATTER, sbuf, rbuf, 0, rcounts, dt, op, 0);
    return COLL_START(request);
}
ZM_WEAK(Ireduce_scatter)

int PMPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt,
                              MPI_Op op, MPI_Comm comm)
{
    COLL_ENTER("MPI_Reduce_scatter_block");
    if (c->inter) /* intercommunicator: inter_coll.c */
        return zm_mpi_inter_reduce(c, fn, comm, ZM_COLL_REDUCE_SCATTER_BLOCK, sbuf, rbuf, rcount,
                                   NULL, dt, op, 0, ZM_INTER_BLOCKING);
    rc = b_reduce(c, fn, &a, ZM_COLL_REDUCE_SCATTER_BLOCK, sbuf, rbuf, rcount, NULL, dt, op, 0);
    return COLL_RUN_BLOCKING;
}
ZM_WEAK(Reduce_scatter_block)

int PMPI_Ireduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt,
                               MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    COLL_ENTER("MPI_Ireduce_scatter_block");
    if (c->inter) /* intercommunicator: inter_coll.c */
        return zm_mpi_inter_reduce(c, fn, comm, ZM_COLL_REDUCE_SCATTER_BLOCK, sbuf, rbuf, rcount,
                                   NULL, dt, op, 0, request);
    rc = b_reduce(c, fn, &a, ZM_COLL_REDUCE_SCATTER_BLOCK, sbuf, rbuf, rcount, NULL, dt, op, 0);
    return COLL_START(request);
}
ZM_WEAK(Ireduce_scatter_block)

int PMPI_Scan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
              MPI_Comm comm)
{
    COLL_ENTER("MPI_Scan");
    if (c->inter) /* intercommunicator: inter_coll.c */
        return zm_mpi_inter_reduce(c, fn, comm, ZM_COLL_SCAN, sbuf, rbuf, count, NULL, dt, op, 0,
                                   ZM_INTER_BLOCKING);
    rc = b_reduce(c, fn, &a, ZM_COLL_SCAN, sbuf, rbuf, count, NULL, dt, op, 0);
    return COLL_RUN_BLOCKING;
}
ZM_WEAK(Scan)

int PMPI_Iscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
               MPI_Comm comm, MPI_Request *request)
{
    COLL_ENTER("MPI_Iscan");
    if (c->inter) /* intercommunicator: inter_coll.c */
        return zm_mpi_inter_reduce(c, fn, comm, ZM_COLL_SCAN, sbuf, rbuf, count, NULL, dt, op, 0,
                                   request);
    rc = b_reduce(c, fn, &a, ZM_COLL_SCAN, sbuf, rbuf, count, NULL, dt, op, 0);
    return COLL_START(request);
}
ZM_WEAK(Iscan)

int PMPI_Exscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                MPI_Comm comm)
{
    COLL_ENTER("MPI_Exscan");
    if (c->inter) /* intercommunicator: inter_coll.c */
        return zm_mpi_inter_reduce(c, fn, comm, ZM_COLL_EXSCAN, sbuf, rbuf, count, NULL, dt, op, 0,
                                   ZM_INTER_BLOCKING);
    rc = b_reduce(c, fn, &a, ZM_COLL_EXSCAN, sbuf, rbuf, count, NULL, dt, op, 0);
    return COLL_RUN_BLOCKING;
}
ZM_WEAK(Exscan)

int PMPI_Iexscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                 MPI_Comm comm, MPI_Request *request)
{
    COLL_ENTER("MPI_Iexscan");
    if (c->inter) /* intercommunicator: inter_coll.c */
        return zm_mpi_inter_reduce(c, fn, comm, ZM_COLL_EXSCAN, sbuf, rbuf, count, NULL, dt, op, 0,
                                   request);
    rc = b_reduce(c, fn, &a, ZM_COLL_EXSCAN, sbuf, rbuf, count, NULL, dt, op, 0);
    return COLL_START(request);
}
ZM_WEAK(Iexscan)

/* ---- Operations --------------------------------------------------------- */

int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype dt, MPI_Op op)
{
    const char *fn = "MPI_Reduce_local";
    zm_mpi_enter(fn);
    int rc = zm_mpi_check_buf(NULL, fn, inbuf, count, dt);
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_check_buf(NULL, fn, inoutbuf, count, dt);
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_check_op(NULL, fn, op, dt);
    if (rc != MPI_SUCCESS || count == 0)
        return rc;
    const zm_dt_t *basic = op->id == ZM_OP_USER ? dt : zm_dt_basic(dt);
    if (basic == dt) {
        zm_op_apply(op, inbuf, inoutbuf, (size_t)count, dt);
        return MPI_SUCCESS;
    }
    /* A derived type: reduce element-form copies, then write back. */
    size_t bytes = zm_dt_bytes(dt, (size_t)count), m = bytes / basic->size;
    char *t = malloc(2 * m * (size_t)basic->extent);
    if (!t)
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    char *u = t + m * (size_t)basic->extent;
    zm_dt_copy(t, m, basic, inbuf, (size_t)count, dt, bytes);
    zm_dt_copy(u, m, basic, inoutbuf, (size_t)count, dt, bytes);
    zm_op_apply(op, t, u, m, basic);
    zm_dt_copy(inoutbuf, (size_t)count, dt, u, m, basic, bytes);
    free(t);
    return MPI_SUCCESS;
}
ZM_WEAK(Reduce_local)

int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    const char *fn = "MPI_Op_create";
    zm_mpi_enter(fn);
    if (!user_fn || !op)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(%s=NULL): invalid argument",
                            user_fn ? "op" : "user_fn");
    zm_op_t *o = zm_op_create((zm_op_user_fn *)user_fn, commute != 0);
    if (!o)
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    *op = o;
    return MPI_SUCCESS;
}
ZM_WEAK(Op_create)

int PMPI_Op_free(MPI_Op *op)
{
    const char *fn = "MPI_Op_free";
    zm_mpi_enter(fn);
    if (!op || !zm_op_valid(*op))
        return zm_mpi_error(NULL, MPI_ERR_OP, fn, "(op): invalid operation");
    if ((*op)->predefined)
        return zm_mpi_error(NULL, MPI_ERR_OP, fn, "(op=%s): cannot free a predefined operation",
                            (*op)->name);
    zm_mpi_handle_forget(*op);
    zm_op_release(*op);
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}
ZM_WEAK(Op_free)

int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    const char *fn = "MPI_Op_commutative";
    zm_mpi_enter(fn);
    if (!zm_op_valid(op) || !commute)
        return zm_mpi_error(NULL, MPI_ERR_OP, fn, "(op): invalid operation");
    *commute = op->commutative;
    return MPI_SUCCESS;
}
ZM_WEAK(Op_commutative)
