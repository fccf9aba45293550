/*
 * inter_coll.c: the collectives on intercommunicators (MPI 4.1 section
 * 6.2.2), blocking and non-blocking.
 *
 * Every collective is one schedule (sched.c) of direct messages between
 * the caller and the ranks of the remote group, on the intercommunicator's
 * collective context: the data of an intercommunicator collective always
 * crosses from one group to the other, so no local step is needed.  A
 * rooted collective moves data between the root (MPI_ROOT) and every rank
 * of the other group; the root's other local ranks (MPI_PROC_NULL) take no
 * part.  Reductions receive every remote rank's contribution and reduce
 * them in the finishing step, in remote rank order (so a non-commutative
 * operation gets rank order and results are the same on every rank), with
 * the operation kernels MPI_Reduce_local uses.
 *
 * The messages of successive collectives between two ranks match in start
 * order, which MPI requires to be the same on every rank; each collective
 * kind still has its own tag, so a mismatch shows as a wait that never
 * ends (which the deadlock detector reports) rather than mixed-up data.
 */
#include "inter_impl.h"

#include <stdlib.h>
#include <string.h>

const char zm_mpi_inter_blocking_mark;

#define ADD(call)                        \
    do {                                 \
        if (rc == MPI_SUCCESS)           \
            rc = (call);                 \
    } while (0)

/* Element i of a (count, dt) block array starting at buf. */
static inline char *block(const void *buf, ptrdiff_t i, ptrdiff_t count, const zm_dt_t *dt)
{
    return (char *)buf + i * count * dt->extent;
}

/* Start of the checks of every call: a non-blocking call needs a place
 * for its request. */
static int begin(struct zmpi_comm *c, const char *fn, MPI_Request *request)
{
    if (request)
        return MPI_SUCCESS;
    return zm_mpi_error(c, MPI_ERR_ARG, fn, "(request=NULL): no place for the request");
}

static int check_root(struct zmpi_comm *c, const char *fn, int root)
{
    if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < c->p.size))
        return MPI_SUCCESS;
    return zm_mpi_error(c, MPI_ERR_ROOT, fn, "(root=%d): invalid root on an intercommunicator "
                        "(MPI_ROOT, MPI_PROC_NULL, or a rank of the remote group: 0..%d)", root,
                        c->p.size - 1);
}

/* A buffer argument: MPI_IN_PLACE has no meaning on an intercommunicator. */
static int check_buf(struct zmpi_comm *c, const char *fn, const char *what, const void *buf,
                     long long count, MPI_Datatype dt)
{
    if (buf == MPI_IN_PLACE)
        return zm_mpi_error(c, MPI_ERR_BUFFER, fn, "(%s=MPI_IN_PLACE): not allowed on an "
                            "intercommunicator", what);
    if (count > 0x7fffffff)
        return zm_mpi_error(c, MPI_ERR_COUNT, fn, "(%s): count %lld too large", what, count);
    return zm_mpi_check_buf(c, fn, buf, (int)count, dt);
}

/* Per-remote-rank counts and displacements with one type. */
static int check_vbuf(struct zmpi_comm *c, const char *fn, const char *what, const void *buf,
                      const int *counts, const int *displs, MPI_Datatype dt)
{
    int any;
    int rc = zm_mpi_check_counts(c, fn, what, counts, displs, &any);
    return rc != MPI_SUCCESS ? rc : check_buf(c, fn, what, buf, any, dt);
}

/* Per-remote-rank counts, byte displacements and types (Alltoallw). */
static int check_wbuf(struct zmpi_comm *c, const char *fn, const char *what, const void *buf,
                      const int *counts, const int *displs, const MPI_Datatype *dts)
{
    if (!counts || !displs || !dts)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(%s): counts, displacements or types is NULL",
                            what);
    for (int i = 0; i < c->p.size; i++) {
        if (counts[i] < 0)
            return zm_mpi_error(c, MPI_ERR_COUNT, fn, "(%s[%d]=%d): invalid count, must be >= 0",
                                what, i, counts[i]);
        int rc = check_buf(c, fn, what, buf, counts[i], dts[i]);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* A new schedule for up to n messages and `scratch` bytes. */
static zm_mpi_sched_t *sched(struct zmpi_comm *c, MPI_Comm h, int n, size_t scratch)
{
    return zm_mpi_sched_new(c, h, n, scratch);
}

/* Run (blocking) or start (non-blocking) a built schedule; rc is the
 * result of building it.  Raises what fails. */
static int go(struct zmpi_comm *c, const char *fn, zm_mpi_sched_t *s, int rc,
              MPI_Request *request)
{
    if (!s)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    if (rc != MPI_SUCCESS) {
        zm_mpi_sched_free(s);
        return zm_mpi_error(c, rc, fn, "building the operation failed");
    }
    if (request == ZM_INTER_BLOCKING) {
        zm_p2p_waiter()->wait_call = fn;
        rc = zm_mpi_sched_run(s);
    } else if ((rc = zm_mpi_sched_start(s)) == MPI_SUCCESS) {
        *request = zm_mpi_sched_request(s, 0);
    } else {
        zm_mpi_sched_wait(zm_mpi_sched_request(s, 0));
        zm_mpi_sched_free(s);
    }
    if (rc == MPI_SUCCESS)
        return MPI_SUCCESS;
    return zm_mpi_error(c, rc, fn, "%s on intercommunicator %s", rc == MPI_ERR_TRUNCATE
                        ? "a message from the remote group was longer than its receive buffer"
                        : "the operation failed", c->name);
}

int zm_mpi_inter_barrier(struct zmpi_comm *c, const char *fn, MPI_Comm h, MPI_Request *request)
{
    int rc = begin(c, fn, request), nr = c->p.size;
    if (rc != MPI_SUCCESS)
        return rc;
    zm_mpi_sched_t *s = sched(c, h, 2 * nr, 0);
    for (int i = 0; s && i < nr; i++) {
        ADD(zm_mpi_sched_send(s, NULL, 0, MPI_BYTE, i, ZM_COLL_BARRIER));
        ADD(zm_mpi_sched_recv(s, NULL, 0, MPI_BYTE, i, ZM_COLL_BARRIER));
    }
    return go(c, fn, s, rc, request);
}

int zm_mpi_inter_bcast(struct zmpi_comm *c, const char *fn, MPI_Comm h, void *buf, int count,
                       MPI_Datatype dt, int root, MPI_Request *request)
{
    int rc = begin(c, fn, request), nr = c->p.size;
    if (rc == MPI_SUCCESS)
        rc = check_root(c, fn, root);
    if (rc == MPI_SUCCESS && root != MPI_PROC_NULL)
        rc = check_buf(c, fn, "buffer", buf, count, dt);
    if (rc != MPI_SUCCESS)
        return rc;
    zm_mpi_sched_t *s = sched(c, h, root == MPI_ROOT ? nr : 1, 0);
    for (int i = 0; s && root == MPI_ROOT && i < nr; i++)
        ADD(zm_mpi_sched_send(s, buf, (size_t)count, dt, i, ZM_COLL_BCAST));
    if (s && root >= 0)
        ADD(zm_mpi_sched_recv(s, buf, (size_t)count, dt, root, ZM_COLL_BCAST));
    return go(c, fn, s, rc, request);
}

/* The root's side of a Gather(v) or Scatter(v): one block per remote rank
 * (count elements each, or counts[i] at displs[i] for the v-forms). */
struct rooted_side {
    char *buf;
    int count;
    const int *counts, *displs;
    MPI_Datatype dt;
};

/* Gather(v) (gather = 1: the root receives a block from every remote
 * rank) or Scatter(v) (gather = 0: it sends one to each); the other
 * group's ranks send or receive (buf, count, dt) once. */
static int rooted(struct zmpi_comm *c, const char *fn, MPI_Comm h, int gather, int v,
                  const struct rooted_side *all, void *buf, int count, MPI_Datatype dt,
                  int root, MPI_Request *request)
{
    int rc = begin(c, fn, request), nr = c->p.size;
    int tag = gather ? (v ? ZM_COLL_GATHERV : ZM_COLL_GATHER)
                     : (v ? ZM_COLL_SCATTERV : ZM_COLL_SCATTER);
    if (rc == MPI_SUCCESS)
        rc = check_root(c, fn, root);
    /* Only one of the two checks below applies to a rank. */
    if (rc == MPI_SUCCESS && root >= 0)
        rc = check_buf(c, fn, gather ? "sendbuf" : "recvbuf", buf, count, dt);
    if (rc == MPI_SUCCESS && root == MPI_ROOT)
        rc = v ? check_vbuf(c, fn, gather ? "recvcounts" : "sendcounts", all->buf, all->counts,
                            all->displs, all->dt)
             : check_buf(c, fn, gather ? "recvbuf" : "sendbuf", all->buf, all->count, all->dt);
    if (rc != MPI_SUCCESS)
        return rc;
    zm_mpi_sched_t *s = sched(c, h, root == MPI_ROOT ? nr : 1, 0);
    for (int i = 0; s && root == MPI_ROOT && i < nr; i++) {
        char *b = v ? block(all->buf, all->displs[i], 1, all->dt)
                    : block(all->buf, i, all->count, all->dt);
        size_t n = (size_t)(v ? all->counts[i] : all->count);
        ADD(gather ? zm_mpi_sched_recv(s, b, n, all->dt, i, tag)
                   : zm_mpi_sched_send(s, b, n, all->dt, i, tag));
    }
    if (s && root >= 0)
        ADD(gather ? zm_mpi_sched_send(s, buf, (size_t)count, dt, root, tag)
                   : zm_mpi_sched_recv(s, buf, (size_t)count, dt, root, tag));
    return go(c, fn, s, rc, request);
}

int zm_mpi_inter_gather(struct zmpi_comm *c, const char *fn, MPI_Comm h, int v,
                        const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                        const int *rcounts, const int *displs, MPI_Datatype rdt, int root,
                        MPI_Request *request)
{
    struct rooted_side all = { rbuf, rcount, rcounts, displs, rdt };
    return rooted(c, fn, h, 1, v, &all, (void *)sbuf, scount, sdt, root, request);
}

int zm_mpi_inter_scatter(struct zmpi_comm *c, const char *fn, MPI_Comm h, int v,
                         const void *sbuf, int scount, const int *scounts, const int *displs,
                         MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt, int root,
                         MPI_Request *request)
{
    struct rooted_side all = { (char *)sbuf, scount, scounts, displs, sdt };
    return rooted(c, fn, h, 0, v, &all, rbuf, rcount, rdt, root, request);
}

int zm_mpi_inter_allgather(struct zmpi_comm *c, const char *fn, MPI_Comm h, int v,
                           const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                           int rcount, const int *rcounts, const int *displs, MPI_Datatype rdt,
                           MPI_Request *request)
{
    int rc = begin(c, fn, request), nr = c->p.size;
    int tag = v ? ZM_COLL_ALLGATHERV : ZM_COLL_ALLGATHER;
    if (rc == MPI_SUCCESS)
        rc = check_buf(c, fn, "sendbuf", sbuf, scount, sdt);
    if (rc == MPI_SUCCESS)
        rc = v ? check_vbuf(c, fn, "recvcounts", rbuf, rcounts, displs, rdt)
             : check_buf(c, fn, "recvbuf", rbuf, rcount, rdt);
    if (rc != MPI_SUCCESS)
        return rc;
    zm_mpi_sched_t *s = sched(c, h, 2 * nr, 0);
    for (int i = 0; s && i < nr; i++) {
        ADD(zm_mpi_sched_send(s, sbuf, (size_t)scount, sdt, i, tag));
        ADD(v ? zm_mpi_sched_recv(s, block(rbuf, displs[i], 1, rdt), (size_t)rcounts[i],
                                  rdt, i, tag)
              : zm_mpi_sched_recv(s, block(rbuf, i, rcount, rdt), (size_t)rcount,
                                  rdt, i, tag));
    }
    return go(c, fn, s, rc, request);
}

int zm_mpi_inter_alltoall(struct zmpi_comm *c, const char *fn, MPI_Comm h, const void *sbuf,
                          int scount, MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt,
                          MPI_Request *request)
{
    int rc = begin(c, fn, request), nr = c->p.size;
    if (rc == MPI_SUCCESS)
        rc = check_buf(c, fn, "sendbuf", sbuf, scount, sdt);
    if (rc == MPI_SUCCESS)
        rc = check_buf(c, fn, "recvbuf", rbuf, rcount, rdt);
    if (rc != MPI_SUCCESS)
        return rc;
    zm_mpi_sched_t *s = sched(c, h, 2 * nr, 0);
    for (int i = 0; s && i < nr; i++) {
        ADD(zm_mpi_sched_send(s, block(sbuf, i, scount, sdt), (size_t)scount,
                              sdt, i, ZM_COLL_ALLTOALL));
        ADD(zm_mpi_sched_recv(s, block(rbuf, i, rcount, rdt), (size_t)rcount,
                              rdt, i, ZM_COLL_ALLTOALL));
    }
    return go(c, fn, s, rc, request);
}

int zm_mpi_inter_alltoallv(struct zmpi_comm *c, const char *fn, MPI_Comm h, const void *sbuf,
                           const int *scounts, const int *sdispls, MPI_Datatype sdt, void *rbuf,
                           const int *rcounts, const int *rdispls, MPI_Datatype rdt,
                           MPI_Request *request)
{
    int rc = begin(c, fn, request), nr = c->p.size;
    if (rc == MPI_SUCCESS)
        rc = check_vbuf(c, fn, "sendcounts", sbuf, scounts, sdispls, sdt);
    if (rc == MPI_SUCCESS)
        rc = check_vbuf(c, fn, "recvcounts", rbuf, rcounts, rdispls, rdt);
    if (rc != MPI_SUCCESS)
        return rc;
    zm_mpi_sched_t *s = sched(c, h, 2 * nr, 0);
    for (int i = 0; s && i < nr; i++) {
        ADD(zm_mpi_sched_send(s, block(sbuf, sdispls[i], 1, sdt), (size_t)scounts[i],
                              sdt, i, ZM_COLL_ALLTOALLV));
        ADD(zm_mpi_sched_recv(s, block(rbuf, rdispls[i], 1, rdt), (size_t)rcounts[i],
                              rdt, i, ZM_COLL_ALLTOALLV));
    }
    return go(c, fn, s, rc, request);
}

int zm_mpi_inter_alltoallw(struct zmpi_comm *c, const char *fn, MPI_Comm h, const void *sbuf,
                           const int *scounts, const int *sdispls, const MPI_Datatype *sdts,
                           void *rbuf, const int *rcounts, const int *rdispls,
                           const MPI_Datatype *rdts, MPI_Request *request)
{
    int rc = begin(c, fn, request), nr = c->p.size;
    if (rc == MPI_SUCCESS)
        rc = check_wbuf(c, fn, "sendcounts", sbuf, scounts, sdispls, sdts);
    if (rc == MPI_SUCCESS)
        rc = check_wbuf(c, fn, "recvcounts", rbuf, rcounts, rdispls, rdts);
    if (rc != MPI_SUCCESS)
        return rc;
    zm_mpi_sched_t *s = sched(c, h, 2 * nr, 0);
    /* Alltoallw's displacements are in bytes. */
    for (int i = 0; s && i < nr; i++) {
        ADD(zm_mpi_sched_send(s, (const char *)sbuf + sdispls[i], (size_t)scounts[i], sdts[i], i,
                              ZM_COLL_ALLTOALLW));
        ADD(zm_mpi_sched_recv(s, (char *)rbuf + rdispls[i], (size_t)rcounts[i], rdts[i], i,
                              ZM_COLL_ALLTOALLW));
    }
    return go(c, fn, s, rc, request);
}

/* ---- Reductions ---------------------------------------------------------- */

/* A reduction's finishing step and its data, at the start of the
 * schedule's scratch space; the remote ranks' contributions follow, one
 * per remote rank, each `stride` bytes, in the element view (the
 * predefined type a predefined operation works on, or the user's type for
 * a user operation). */
struct red {
    const zm_op_t *op;          /* the operation (held until the schedule goes) */
    const zm_dt_t *dt;          /* the user's type (held until the schedule goes) */
    const zm_dt_t *elem;        /* element view type */
    void *rbuf;                 /* where the result goes */
    size_t out;                 /* result elements of dt */
    size_t eoff, en;            /* the result's slice, in elements of elem */
    int m;                      /* contributions (remote ranks) */
    size_t stride;              /* bytes between contributions */
    char *bufs;                 /* contribution 0, at its type's origin */
};

static char *red_buf(const struct red *r, int i)
{
    return r->bufs + (size_t)i * r->stride;
}

static int red_finish(zm_mpi_sched_t *s, void *arg)
{
    (void)s;
    struct red *r = arg;
    size_t off = r->eoff * (size_t)r->elem->extent;
    char *acc = red_buf(r, r->m - 1) + off;
    /* acc = c[i] op acc from the last contribution down: rank order. */
    for (int i = r->m - 2; i >= 0 && r->en; i--)
        zm_op_apply(r->op, red_buf(r, i) + off, acc, r->en, r->elem);
    if (r->en)
        zm_dt_copy(r->rbuf, r->out, r->dt, acc, r->en, r->elem, zm_dt_bytes(r->dt, r->out));
    return MPI_SUCCESS;
}

/* The schedule goes (after its one run, or when a persistent reduction's
 * request is freed after any number of starts): let go of the operation
 * and type the program may have freed meanwhile. */
static void red_release(zm_mpi_sched_t *s, void *arg)
{
    (void)s;
    struct red *r = arg;
    zm_op_release(r->op);
    zm_dt_release(r->dt);
}

static const zm_mpi_sched_hooks_t red_hooks = { NULL, NULL, NULL, red_release, NULL };

/* Build the receiving side of a reduction: every remote rank's `total`
 * elements into scratch, reduced into `out` elements of rbuf from element
 * `off` of the result on. */
static zm_mpi_sched_t *red_sched(struct zmpi_comm *c, MPI_Comm h, int nsend, void *rbuf,
                                 size_t total, size_t off, size_t out, MPI_Datatype dt,
                                 MPI_Op op, int tag)
{
    int m = c->p.size;
    const zm_dt_t *elem = op->id == ZM_OP_USER ? dt : zm_dt_basic(dt);
    size_t unit = elem == dt ? 1 : dt->size / elem->size, n = total * unit;
    size_t span = n ? (n - 1) * (size_t)elem->extent + (size_t)(elem->true_ub - elem->true_lb) : 0;
    size_t stride = (span + ZM_CACHE_LINE - 1) & ~(size_t)(ZM_CACHE_LINE - 1);
    size_t head = (sizeof(struct red) + ZM_CACHE_LINE - 1) & ~(size_t)(ZM_CACHE_LINE - 1);
    zm_mpi_sched_t *s = sched(c, h, m + nsend, head + stride * (size_t)m + ZM_CACHE_LINE);
    if (!s)
        return NULL;
    struct red *r = zm_mpi_sched_scratch(s);
    *r = (struct red){ op, dt, elem, rbuf, out, off * unit, out * unit, m, stride, NULL };
    r->bufs = (char *)r + head - elem->true_lb;
    int rc = MPI_SUCCESS;
    for (int i = 0; i < m; i++)
        ADD(zm_mpi_sched_recv(s, red_buf(r, i), n, (MPI_Datatype)elem, i, tag));
    if (rc != MPI_SUCCESS) {
        zm_mpi_sched_free(s);
        return NULL;
    }
    zm_op_retain(op);
    zm_dt_retain(dt);
    zm_mpi_sched_finish_with(s, red_finish, r);
    zm_mpi_sched_set_hooks(s, &red_hooks, r);
    return s;
}

/* The amounts of a reduction kind: every contribution's `total`
 * elements, this rank's `out` result elements from element `off`.
 * Returns MPI_SUCCESS or the raised error. */
static int red_amounts(struct zmpi_comm *c, const char *fn, int kind, int count,
                       const int *rcounts, size_t *total, size_t *off, size_t *out)
{
    int nl = c->group->size, me = c->p.rank;
    if (kind == ZM_COLL_REDUCE_SCATTER) {
        if (!rcounts)
            return zm_mpi_error(c, MPI_ERR_ARG, fn, "(recvcounts=NULL): invalid array");
        *total = 0;
        for (int i = 0; i < nl; i++) {
            if (rcounts[i] < 0)
                return zm_mpi_error(c, MPI_ERR_COUNT, fn, "(recvcounts[%d]=%d): invalid count",
                                    i, rcounts[i]);
            if (i == me)
                *off = *total;
            *total += (size_t)rcounts[i];
        }
        *out = (size_t)rcounts[me];
        return MPI_SUCCESS;
    }
    if (count < 0)
        return zm_mpi_error(c, MPI_ERR_COUNT, fn, "(count=%d): invalid count, must be >= 0",
                            count);
    int block = kind == ZM_COLL_REDUCE_SCATTER_BLOCK;
    *total = (size_t)count * (size_t)(block ? nl : 1);
    *off = block ? (size_t)count * (size_t)me : 0;
    *out = (size_t)count;
    return MPI_SUCCESS;
}

int zm_mpi_inter_reduce(struct zmpi_comm *c, const char *fn, MPI_Comm h, int kind,
                        const void *sbuf, void *rbuf, int count, const int *rcounts,
                        MPI_Datatype dt, MPI_Op op, int root, MPI_Request *request)
{
    if (kind == ZM_COLL_SCAN || kind == ZM_COLL_EXSCAN)
        return zm_mpi_error(c, MPI_ERR_COMM, fn, "(comm): %s is not defined on "
                            "intercommunicators", kind == ZM_COLL_SCAN ? "a scan" : "an exscan");
    size_t total = 0, off = 0, out = 0;
    int rc = begin(c, fn, request), nr = c->p.size, reduce = kind == ZM_COLL_REDUCE;
    if (rc == MPI_SUCCESS && reduce)
        rc = check_root(c, fn, root);
    if (rc == MPI_SUCCESS)
        rc = red_amounts(c, fn, kind, count, rcounts, &total, &off, &out);
    if (rc != MPI_SUCCESS)
        return rc;
    /* Who sends to whom: a Reduce's other group sends to the root, which
     * receives; the all-forms send to and receive from every remote rank. */
    int sends = reduce ? (root >= 0 ? 1 : 0) : nr, receives = !reduce || root == MPI_ROOT;
    if (sends)
        rc = check_buf(c, fn, "sendbuf", sbuf, (long long)total, dt);
    if (rc == MPI_SUCCESS && receives)
        rc = check_buf(c, fn, "recvbuf", rbuf, (long long)out, dt);
    if (rc == MPI_SUCCESS && (sends || receives))
        rc = zm_mpi_check_op(c, fn, op, dt);
    if (rc != MPI_SUCCESS)
        return rc;
    zm_mpi_sched_t *s = receives ? red_sched(c, h, sends, rbuf, total, off, out, dt, op, kind)
                                 : sched(c, h, sends, 0);
    for (int i = 0; s && i < sends; i++)
        ADD(zm_mpi_sched_send(s, sbuf, total, dt, reduce ? root : i, kind));
    return go(c, fn, s, rc, request);
}
