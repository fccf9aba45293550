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
#include "bind_hooks.h"
#include "coll_build.h"
#include "inter_impl.h"
#include "arch/tsan_shim.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

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
    zm_p2p_waiter()->wait_call = fn;
    /* Under ThreadSanitizer, what each rank did before a blocking
     * collective happens before what every rank does after it (the
     * communicator's shared block is the key). */
    zm_arch_tsan_release(s);
    zm_status_t st = zm_coll_run(s, c->p.rank, a, err, sizeof(err));
    zm_arch_tsan_acquire(s);
    return coll_result(c, fn, st, err);
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
    /* It uses the communicator's collective state, which a move of ranks
     * between processes drops: counted apart (migrate_net.c). */
    zm_p2p_req_mark_coll(req);
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

/* ---- Any collective from its call description ------------------------- */

int zm_mpi_coll(const char *fn, MPI_Comm comm, const zm_mpi_ccall_t *k, int form,
                MPI_Info info, MPI_Request *request)
{
    if (form == ZM_FORM_PERSISTENT)
        return zm_mpi_coll_pinit(fn, comm, info, k, request);
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    struct zmpi_comm *c;
    int rc = zm_mpi_check_comm(me, comm, fn, &c);
    if (rc != MPI_SUCCESS)
        return rc;
    if (c->inter) /* intercommunicator: large_coll.c, inter_coll.c */
        return zm_mpi_coll_inter(c, fn, comm, k,
                                 form == ZM_FORM_BLOCKING ? ZM_INTER_BLOCKING : request);
    zm_coll_args_t a;
    rc = zm_mpi_coll_cbuild(c, fn, k, &a);
    if (rc != MPI_SUCCESS)
        return rc;
    return form == ZM_FORM_BLOCKING ? coll_call(c, fn, &a) : coll_start(c, fn, &a, comm, request);
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
int zm_mpi_bcast(const char *fn, void *buf, MPI_Count count, MPI_Datatype dt, int root,
                 MPI_Comm comm)
{
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    struct zmpi_comm *c;
    int rc = zm_mpi_check_comm(me, comm, fn, &c);
    if (rc == MPI_SUCCESS && c->inter) { /* intercommunicator: large_coll.c, inter_coll.c */
        zm_mpi_ccall_t k = { .kind = ZM_COLL_BCAST, .rbuf = buf, .rcount = count, .rdt = dt,
                             .root = root };
        return zm_mpi_coll_inter(c, fn, comm, &k, ZM_INTER_BLOCKING);
    }
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_cb_check_bcast(c, fn, buf, count, dt, root);
    if (rc != MPI_SUCCESS)
        return rc;
    zm_coll_shm_t *s = zm_mpi_coll_shm(c);
    char err[200];
    if (!s)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    /* me already holds our rank: no second walk from the thread to it. */
    zm_p2p_waiter()->wait_call = fn;
    zm_arch_tsan_release(s); /* as in coll_call */
    zm_status_t st = zm_coll_bcast_run(s, c->p.rank, buf, (size_t)count, dt, root, err,
                                       sizeof(err));
    zm_arch_tsan_acquire(s);
    return coll_result(c, fn, st, err);
}

int PMPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    return zm_mpi_bcast("MPI_Bcast", buf, count, dt, root, comm);
}
ZM_WEAK(Bcast)

int PMPI_Ibcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                MPI_Request *request)
{
    COLL_ENTER("MPI_Ibcast");
    if (c->inter) /* intercommunicator: inter_coll.c */
        return zm_mpi_inter_bcast(c, fn, comm, buf, count, dt, root, request);
    rc = zm_mpi_cb_bcast(c, fn, &a, buf, count, dt, root);
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
    rc = zm_mpi_cb_gather(c, fn, &a, 0, sbuf, scount, sdt, rbuf, rcount, NULL, NULL, rdt, root, ZM_W32);
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
    rc = zm_mpi_cb_gather(c, fn, &a, 0, sbuf, scount, sdt, rbuf, rcount, NULL, NULL, rdt, root, ZM_W32);
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
    rc = zm_mpi_cb_gather(c, fn, &a, 1, sbuf, scount, sdt, rbuf, 0, rcounts, displs, rdt, root, ZM_W32);
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
    rc = zm_mpi_cb_gather(c, fn, &a, 1, sbuf, scount, sdt, rbuf, 0, rcounts, displs, rdt, root, ZM_W32);
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
    rc = zm_mpi_cb_scatter(c, fn, &a, 0, sbuf, scount, NULL, NULL, sdt, rbuf, rcount, rdt, root, ZM_W32);
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
    rc = zm_mpi_cb_scatter(c, fn, &a, 0, sbuf, scount, NULL, NULL, sdt, rbuf, rcount, rdt, root, ZM_W32);
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
    rc = zm_mpi_cb_scatter(c, fn, &a, 1, sbuf, 0, scounts, displs, sdt, rbuf, rcount, rdt, root, ZM_W32);
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
    rc = zm_mpi_cb_scatter(c, fn, &a, 1, sbuf, 0, scounts, displs, sdt, rbuf, rcount, rdt, root, ZM_W32);
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
    rc = zm_mpi_cb_allgather(c, fn, &a, 0, sbuf, scount, sdt, rbuf, rcount, NULL, NULL, rdt, ZM_W32);
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
    rc = zm_mpi_cb_allgather(c, fn, &a, 0, sbuf, scount, sdt, rbuf, rcount, NULL, NULL, rdt, ZM_W32);
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
    rc = zm_mpi_cb_allgather(c, fn, &a, 1, sbuf, scount, sdt, rbuf, 0, rcounts, displs, rdt, ZM_W32);
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
    rc = zm_mpi_cb_allgather(c, fn, &a, 1, sbuf, scount, sdt, rbuf, 0, rcounts, displs, rdt, ZM_W32);
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
    rc = zm_mpi_cb_alltoall(c, fn, &a, sbuf, scount, sdt, rbuf, rcount, rdt);
    return COLL_RUN_BLOCKING;
}
ZM_WEAK(Alltoall)

int PMPI_Ialltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                   MPI_Datatype rdt, MPI_Comm comm, MPI_Request *request)
{
    COLL_ENTER("MPI_Ialltoall");
    if (c->inter) /* intercommunicator: inter_coll.c */
        return zm_mpi_inter_alltoall(c, fn, comm, sbuf, scount, sdt, rbuf, rcount, rdt, request);
    rc = zm_mpi_cb_alltoall(c, fn, &a, sbuf, scount, sdt, rbuf, rcount, rdt);
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
    rc = zm_mpi_cb_alltoallv(c, fn, &a, sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, ZM_W32);
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
    rc = zm_mpi_cb_alltoallv(c, fn, &a, sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, ZM_W32);
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
    rc = zm_mpi_cb_alltoallw(c, fn, &a, sbuf, scounts, sdispls, sdts, rbuf, rcounts, rdispls, rdts, ZM_W32);
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
    rc = zm_mpi_cb_alltoallw(c, fn, &a, sbuf, scounts, sdispls, sdts, rbuf, rcounts, rdispls, rdts, ZM_W32);
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
    rc = zm_mpi_cb_reduce(c, fn, &a, ZM_COLL_REDUCE, sbuf, rbuf, count, NULL, dt, op, root, ZM_W32);
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
    rc = zm_mpi_cb_reduce(c, fn, &a, ZM_COLL_REDUCE, sbuf, rbuf, count, NULL, dt, op, root, ZM_W32);
    return COLL_START(request);
}
ZM_WEAK(Ireduce)

/* MPI_Allreduce's body, inlined into it and into the bindings' entry. */
static inline __attribute__((always_inline)) int allreduce_body(const void *sbuf, void *rbuf,
                                                                int count, MPI_Datatype dt,
                                                                MPI_Op op, MPI_Comm comm)
{
    COLL_ENTER("MPI_Allreduce");
    if (c->inter) /* intercommunicator: inter_coll.c */
        return zm_mpi_inter_reduce(c, fn, comm, ZM_COLL_ALLREDUCE, sbuf, rbuf, count, NULL, dt, op,
                                   0, ZM_INTER_BLOCKING);
    rc = zm_mpi_cb_reduce(c, fn, &a, ZM_COLL_ALLREDUCE, sbuf, rbuf, count, NULL, dt, op, 0, ZM_W32);
    return COLL_RUN_BLOCKING;
}

int PMPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                   MPI_Comm comm)
{
    return allreduce_body(sbuf, rbuf, count, dt, op, comm);
}
ZM_WEAK(Allreduce)

/* zmpi_bind_allreduce's handles that are not all predefined, through
 * f2c and MPI_Allreduce, which reports them: out of line and cold, so
 * that what it keeps across its calls does not shape the common path's
 * registers (pt2pt.c's bind_send_f2c says what that saved). */
static __attribute__((noinline, cold)) int bind_allreduce_f2c(const void *sendbuf, void *recvbuf,
                                                               int count, MPI_Fint datatype,
                                                               MPI_Fint op, MPI_Fint comm)
{
    return PMPI_Allreduce(sendbuf, recvbuf, count, PMPI_Type_f2c(datatype), PMPI_Op_f2c(op),
                          PMPI_Comm_f2c(comm));
}

/* bind_hooks.h.  The calling rank's thread; the caller owns the buffers
 * and ierror. */
int zmpi_bind_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Fint datatype,
                        MPI_Fint op, MPI_Fint comm, MPI_Fint *ierror)
{
    int rc;
    if (ZM_LIKELY(zm_mpi_bind_type_ok(datatype) && zm_mpi_bind_op_ok(op) &&
                  zm_mpi_bind_comm_ok(comm)))
        rc = allreduce_body(sendbuf, recvbuf, count, zm_mpi_bind_types[(unsigned)datatype],
                            zm_mpi_bind_ops[(unsigned)op], (MPI_Comm)(uintptr_t)(unsigned)comm);
    else
        rc = bind_allreduce_f2c(sendbuf, recvbuf, count, datatype, op, comm);
    if (ierror)
        *ierror = rc;
    return rc;
}

int PMPI_Iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                    MPI_Comm comm, MPI_Request *request)
{
    COLL_ENTER("MPI_Iallreduce");
    if (c->inter) /* intercommunicator: inter_coll.c */
        return zm_mpi_inter_reduce(c, fn, comm, ZM_COLL_ALLREDUCE, sbuf, rbuf, count, NULL, dt, op,
                                   0, request);
    rc = zm_mpi_cb_reduce(c, fn, &a, ZM_COLL_ALLREDUCE, sbuf, rbuf, count, NULL, dt, op, 0, ZM_W32);
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
    rc = zm_mpi_cb_reduce(c, fn, &a, ZM_COLL_REDUCE_SCATTER, sbuf, rbuf, 0, rcounts, dt, op, 0, ZM_W32);
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
    rc = zm_mpi_cb_reduce(c, fn, &a, ZM_COLL_REDUCE_SCATTER, sbuf, rbuf, 0, rcounts, dt, op, 0, ZM_W32);
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
    rc = zm_mpi_cb_reduce(c, fn, &a, ZM_COLL_REDUCE_SCATTER_BLOCK, sbuf, rbuf, rcount, NULL, dt, op, 0, ZM_W32);
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
    rc = zm_mpi_cb_reduce(c, fn, &a, ZM_COLL_REDUCE_SCATTER_BLOCK, sbuf, rbuf, rcount, NULL, dt, op, 0, ZM_W32);
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
    rc = zm_mpi_cb_reduce(c, fn, &a, ZM_COLL_SCAN, sbuf, rbuf, count, NULL, dt, op, 0, ZM_W32);
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
    rc = zm_mpi_cb_reduce(c, fn, &a, ZM_COLL_SCAN, sbuf, rbuf, count, NULL, dt, op, 0, ZM_W32);
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
    rc = zm_mpi_cb_reduce(c, fn, &a, ZM_COLL_EXSCAN, sbuf, rbuf, count, NULL, dt, op, 0, ZM_W32);
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
    rc = zm_mpi_cb_reduce(c, fn, &a, ZM_COLL_EXSCAN, sbuf, rbuf, count, NULL, dt, op, 0, ZM_W32);
    return COLL_START(request);
}
ZM_WEAK(Iexscan)

/* ---- Operations --------------------------------------------------------- */

int zm_mpi_reduce_local(const char *fn, const void *inbuf, void *inoutbuf, MPI_Count count,
                        MPI_Datatype dt, MPI_Op op)
{
    zm_mpi_enter(fn);
    int rc = zm_mpi_check_cbuf(NULL, fn, inbuf, count, dt);
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_check_cbuf(NULL, fn, inoutbuf, count, dt);
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

int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype dt, MPI_Op op)
{
    return zm_mpi_reduce_local("MPI_Reduce_local", inbuf, inoutbuf, count, dt, op);
}
ZM_WEAK(Reduce_local)

int zm_mpi_op_create(const char *fn, MPI_User_function_c *user_fn_c, int commute, MPI_Op *op,
                     MPI_User_function *user_fn)
{
    zm_mpi_enter(fn);
    if ((!user_fn && !user_fn_c) || !op)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(%s=NULL): invalid argument",
                            op ? "user_fn" : "op");
    zm_op_t *o = zm_op_create((zm_op_user_fn *)user_fn, (zm_op_user_large_fn *)user_fn_c,
                              commute != 0);
    if (!o)
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    *op = o;
    return MPI_SUCCESS;
}

int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    return zm_mpi_op_create("MPI_Op_create", NULL, commute, op, user_fn);
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
