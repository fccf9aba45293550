/*
 * pt2pt.c: the send, receive and probe calls, and the buffers of buffered
 * mode.
 *
 * Blocking calls keep their request on the stack: the fast path allocates
 * nothing.  Non-blocking calls take a request from the per-worker pool.
 * Each call's work is an internal function in full width (MPI_Count
 * counts, large.h) that its int form here and its _c form (large_gen.c)
 * both call.
 */
#include "bind_hooks.h"
#include "large.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(MPI_BSEND_OVERHEAD == ZM_P2P_BSEND_OVERHEAD,
               "mpi.h and the p2p layer disagree on MPI_BSEND_OVERHEAD");

/* zm_mpi_check_cbuf, or, when `known` (a constant where it is inlined)
 * says dt is a predefined datatype, which is valid and usable, only the
 * count and buffer tests: the bindings' entries below know that from the
 * Fortran index they converted (zmpi_bind_send), so the conversion costs
 * no more than the test it saves. */
static inline __attribute__((always_inline)) int cbuf_check(struct zmpi_comm *c, const char *fn,
                                                            const void *buf, MPI_Count count,
                                                            MPI_Datatype dt, int known)
{
    if (!known)
        return zm_mpi_check_cbuf(c, fn, buf, count, dt);
    if (ZM_LIKELY((uint64_t)count <= (uint64_t)dt->cmax &&
                  (buf || count == 0 || dt->size == 0 || dt->d)))
        return MPI_SUCCESS;
    return zm_mpi_check_cbuf_fail(c, fn, buf, count, dt);
}

/* Validate the arguments shared by every send (dt known predefined:
 * cbuf_check); returns an MPI code.
 * Inlined: each check is one or two compares on the common path, and the
 * call with its nine arguments cost more than the checks (callgrind: 53
 * instructions a call, of an MPI_Isend's 414). */
static inline __attribute__((always_inline)) int send_check(zm_mpi_rank_t *me, const char *fn,
                                                            const void *buf, MPI_Count count,
                                                            MPI_Datatype dt, int dest, int tag,
                                                            MPI_Comm comm, struct zmpi_comm **c,
                                                            int known)
{
    int rc = zm_mpi_check_comm(me, comm, fn, c);
    if (rc == MPI_SUCCESS)
        rc = cbuf_check(*c, fn, buf, count, dt, known);
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_check_rank(*c, fn, "dest", dest, 0);
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_check_tag(*c, fn, tag, 0);
    return rc;
}

/* Validate the arguments shared by every receive (inlined, as
 * send_check); returns an MPI code. */
static inline __attribute__((always_inline)) int recv_check(zm_mpi_rank_t *me, const char *fn,
                                                            const void *buf, MPI_Count count,
                                                            MPI_Datatype dt, int src, int tag,
                                                            MPI_Comm comm, struct zmpi_comm **c,
                                                            int known)
{
    int rc = zm_mpi_check_comm(me, comm, fn, c);
    if (rc == MPI_SUCCESS)
        rc = cbuf_check(*c, fn, buf, count, dt, known);
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_check_rank(*c, fn, "source", src, 1);
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_check_tag(*c, fn, tag, 1);
    return rc;
}

static int bsend_error(struct zmpi_comm *c, const char *fn, MPI_Count count, MPI_Datatype dt)
{
    return zm_mpi_error(c, MPI_ERR_BUFFER, fn,
                        "attached buffer has no room for %zu bytes (attach a larger buffer; "
                        "each pending message needs MPI_BSEND_OVERHEAD=%d extra bytes)",
                        zm_dt_bytes(dt, (size_t)count), MPI_BSEND_OVERHEAD);
}

/* zm_p2p_isend; a buffered send first picks the buffer it uses
 * (zm_mpi_bsend_select). */
static inline zm_status_t isend_mode(struct zmpi_comm *c, const void *buf, MPI_Count count,
                                     MPI_Datatype dt, int dest, int tag, int mode, zm_req_t *req)
{
    if (ZM_LIKELY(mode != ZM_SEND_BUFFERED))
        return zm_p2p_isend(&c->p, buf, (size_t)count, dt, dest, tag, mode, req);
    zm_mpi_bsend_select(c);
    zm_status_t st = zm_p2p_isend(&c->p, buf, (size_t)count, dt, dest, tag, mode, req);
    zm_p2p_bsend_unselect();
    return st;
}

/* Wait for one request of the calling rank, recording the call for
 * deadlock reports. */
static void wait_req(const char *fn, zm_req_t *req)
{
    if (!zm_p2p_req_done(req)) {
        zm_p2p_waiter()->wait_call = fn;
        zm_p2p_wait(&req, 1, 1);
    }
}

/* The request and the wait of a blocking send whose arguments are
 * checked (send_body, send_net). */
static inline __attribute__((always_inline)) int send_req_body(const char *fn,
                                                               struct zmpi_comm *c,
                                                               const void *buf, MPI_Count count,
                                                               MPI_Datatype dt, int dest, int tag,
                                                               MPI_Comm comm, int mode)
{
    zm_req_t req;
    req.pooled = 0;
    req.comm = comm;
    zm_status_t st = isend_mode(c, buf, count, dt, dest, tag, mode, &req);
    if (ZM_UNLIKELY(st != ZM_OK))
        return st == ZM_ERR_BUFFER ? bsend_error(c, fn, count, dt)
                                   : zm_mpi_error(c, zm_mpi_class_of(st), fn, "send failed");
    wait_req(fn, &req);
    return MPI_SUCCESS;
}

/* send_req_body out of line, for send_net: its frame, which holds the
 * request (aligned to a cache line), is set up only when a request is
 * needed. */
static __attribute__((noinline)) int send_req(const char *fn, struct zmpi_comm *c,
                                              const void *buf, MPI_Count count, MPI_Datatype dt,
                                              int dest, int tag, MPI_Comm comm, int mode)
{
    return send_req_body(fn, c, buf, count, dt, dest, tag, comm, mode);
}

/* zm_mpi_send, dt known predefined or not (cbuf_check); `now`: try the
 * send without a request first (zm_p2p_send_now), which MPI_Send and
 * MPI_Rsend do in send_net instead. */
static inline __attribute__((always_inline)) int send_body(const char *fn, const void *buf,
                                                           MPI_Count count, MPI_Datatype dt,
                                                           int dest, int tag, MPI_Comm comm,
                                                           int mode, int known, int now)
{
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    struct zmpi_comm *c;
    int rc = send_check(me, fn, buf, count, dt, dest, tag, comm, &c, known);
    if (ZM_UNLIKELY(rc != MPI_SUCCESS) || dest == MPI_PROC_NULL)
        return rc;
    /* A small message to another process goes at once, without a request
     * or a wait (synchronous and buffered sends need theirs). */
    if (now && (mode == ZM_SEND_STD || mode == ZM_SEND_READY) &&
        zm_p2p_send_now(&c->p, buf, (size_t)count, dt, dest, tag))
        return MPI_SUCCESS;
    return send_req_body(fn, c, buf, count, dt, dest, tag, comm, mode);
}

/* Inlined into MPI_Send and its mode twins (as zm_mpi_recv into
 * MPI_Recv): a call frame and the moving of seven arguments less on the
 * message path; large.h's declaration without `inline` makes this the
 * external definition the _c twins call. */
__attribute__((always_inline)) inline int zm_mpi_send(const char *fn, const void *buf,
                                                      MPI_Count count, MPI_Datatype dt, int dest,
                                                      int tag, MPI_Comm comm, int mode)
{
    return send_body(fn, buf, count, dt, dest, tag, comm, mode, 0, 1);
}

/* MPI_Send or MPI_Rsend (fn, mode) in a job of several processes: the
 * argument checks, then a small message to a rank of another process
 * goes at once (zm_p2p_send_now), without the request and its frame,
 * which only the other sends set up (send_req).  Out of line with the
 * six arguments of the call, so that MPI_Send reaches it by a jump and
 * the one-process path keeps its code (docs/net.md, "Fifth pass"). */
static inline __attribute__((always_inline)) int send_net_body(const char *fn, const void *buf,
                                                               int count, MPI_Datatype dt,
                                                               int dest, int tag, MPI_Comm comm,
                                                               int mode)
{
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    struct zmpi_comm *c;
    int rc = send_check(me, fn, buf, count, dt, dest, tag, comm, &c, 0);
    if (ZM_UNLIKELY(rc != MPI_SUCCESS) || dest == MPI_PROC_NULL)
        return rc;
    if (zm_p2p_send_now(&c->p, buf, (size_t)count, dt, dest, tag))
        return MPI_SUCCESS;
    return send_req(fn, c, buf, count, dt, dest, tag, comm, mode);
}

static __attribute__((noinline)) int send_net(const void *buf, int count, MPI_Datatype dt,
                                              int dest, int tag, MPI_Comm comm)
{
    return send_net_body("MPI_Send", buf, count, dt, dest, tag, comm, ZM_SEND_STD);
}

static __attribute__((noinline)) int rsend_net(const void *buf, int count, MPI_Datatype dt,
                                               int dest, int tag, MPI_Comm comm)
{
    return send_net_body("MPI_Rsend", buf, count, dt, dest, tag, comm, ZM_SEND_READY);
}

/* MPI_Send in a job of one process: the code MPI_Send had before
 * send_net. */
static __attribute__((noinline)) int send_one(const void *buf, int count, MPI_Datatype dt,
                                              int dest, int tag, MPI_Comm comm)
{
    return send_body("MPI_Send", buf, count, dt, dest, tag, comm, ZM_SEND_STD, 0, 0);
}

static int send_pick(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                     MPI_Comm comm);

/* What MPI_Send jumps to: send_one or send_net, chosen at the first call
 * (send_pick), once the job's processes are known.  A jump through it
 * costs a one-process MPI_Send 2 instructions, against 6 for a test of
 * zm_net_remote in MPI_Send (which also moved its registers; callgrind,
 * net_pingpong in one process).  Every thread that picks stores the same
 * value: relaxed accesses do. */
static int (*_Atomic send_impl)(const void *, int, MPI_Datatype, int, int, MPI_Comm) = send_pick;

static int send_pick(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                     MPI_Comm comm)
{
    int (*fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm) =
        zm_net_remote != NULL ? send_net : send_one;
    atomic_store_explicit(&send_impl, fn, memory_order_relaxed);
    return fn(buf, count, dt, dest, tag, comm);
}

int PMPI_Send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    return atomic_load_explicit(&send_impl, memory_order_relaxed)(buf, count, dt, dest, tag,
                                                                   comm);
}
ZM_WEAK(Send)

int PMPI_Ssend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    return zm_mpi_send("MPI_Ssend", buf, count, dt, dest, tag, comm, ZM_SEND_SYNC);
}
ZM_WEAK(Ssend)

int PMPI_Rsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    if (ZM_UNLIKELY(zm_net_remote != NULL))
        return rsend_net(buf, count, dt, dest, tag, comm);
    return zm_mpi_send("MPI_Rsend", buf, count, dt, dest, tag, comm, ZM_SEND_READY);
}
ZM_WEAK(Rsend)

int PMPI_Bsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    return zm_mpi_send("MPI_Bsend", buf, count, dt, dest, tag, comm, ZM_SEND_BUFFERED);
}
ZM_WEAK(Bsend)

/* A request that is complete from the start, for operations on
 * MPI_PROC_NULL. */
static zm_req_t *req_null(MPI_Comm comm)
{
    zm_req_t *req = zm_p2p_req_alloc();
    if (!req)
        return NULL;
    req->kind = ZM_REQ_DONE_ONLY;
    req->comm = comm;
    req->st_source = MPI_PROC_NULL;
    req->st_tag = MPI_ANY_TAG;
    atomic_store(&req->cstate, ZM_REQ_DONE);
    return req;
}

/* zm_mpi_isend, dt known predefined or not (cbuf_check). */
static inline __attribute__((always_inline)) int isend_body(const char *fn, const void *buf,
                                                            MPI_Count count, MPI_Datatype dt,
                                                            int dest, int tag, MPI_Comm comm,
                                                            MPI_Request *request, int mode,
                                                            int known)
{
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    struct zmpi_comm *c;
    int rc = send_check(me, fn, buf, count, dt, dest, tag, comm, &c, known);
    if (ZM_UNLIKELY(rc != MPI_SUCCESS))
        return rc;
    if (!request)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "request pointer is NULL");
    zm_req_t *req = dest == MPI_PROC_NULL ? req_null(comm) : zm_p2p_req_alloc();
    if (ZM_UNLIKELY(!req))
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory for a request");
    if (dest != MPI_PROC_NULL) {
        req->comm = comm;
        zm_status_t st = isend_mode(c, buf, count, dt, dest, tag, mode, req);
        if (ZM_UNLIKELY(st != ZM_OK)) {
            atomic_store(&req->cstate, ZM_REQ_DONE);
            zm_p2p_req_release(req);
            return st == ZM_ERR_BUFFER ? bsend_error(c, fn, count, dt)
                                       : zm_mpi_error(c, zm_mpi_class_of(st), fn, "send failed");
        }
        /* A send that completed in the call (copied into a posted receive
         * or an eager buffer) no longer reads its type, so only a pending
         * one holds it.  Nobody can free the type or the request while
         * this rank is inside the call, and holding after a completion
         * that races with this test is harmless (the free drops it).
         * Predefined types are never held (zm_mpi_req_hold), so their
         * sends skip the completion test. */
        if (ZM_UNLIKELY(dt->d != NULL) && !zm_p2p_req_done(req))
            zm_mpi_req_hold(req, dt);
    }
    *request = req;
    return MPI_SUCCESS;
}

/* Inlined into each MPI_I*send (the call name and mode are constants
 * there, which drops the buffered-mode test and a call frame from the
 * message path); large.h's declaration without `inline` makes this the
 * external definition the _c twins call. */
__attribute__((always_inline)) inline int zm_mpi_isend(const char *fn, const void *buf,
                                                       MPI_Count count, MPI_Datatype dt,
                                                       int dest, int tag, MPI_Comm comm,
                                                       MPI_Request *request, int mode)
{
    return isend_body(fn, buf, count, dt, dest, tag, comm, request, mode, 0);
}

int PMPI_Isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    return zm_mpi_isend("MPI_Isend", buf, count, dt, dest, tag, comm, request,
                        ZM_SEND_STD | ZM_SEND_LEND);
}
ZM_WEAK(Isend)

int PMPI_Issend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    return zm_mpi_isend("MPI_Issend", buf, count, dt, dest, tag, comm, request, ZM_SEND_SYNC);
}
ZM_WEAK(Issend)

int PMPI_Irsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    return zm_mpi_isend("MPI_Irsend", buf, count, dt, dest, tag, comm, request, ZM_SEND_READY);
}
ZM_WEAK(Irsend)

int PMPI_Ibsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    return zm_mpi_isend("MPI_Ibsend", buf, count, dt, dest, tag, comm, request,
                        ZM_SEND_BUFFERED);
}
ZM_WEAK(Ibsend)

/* zm_mpi_recv, dt known predefined or not (cbuf_check). */
static inline __attribute__((always_inline)) int recv_body(const char *fn, void *buf,
                                                           MPI_Count count, MPI_Datatype dt,
                                                           int source, int tag, MPI_Comm comm,
                                                           MPI_Status *status, int known)
{
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    struct zmpi_comm *c;
    zm_req_t req;
    int rc = recv_check(me, fn, buf, count, dt, source, tag, comm, &c, known);
    if (ZM_UNLIKELY(rc != MPI_SUCCESS))
        return rc;
    if (source == MPI_PROC_NULL) {
        zm_mpi_status_null(status);
        return MPI_SUCCESS;
    }
    req.pooled = 0;
    req.comm = comm;
    zm_p2p_waiter()->wait_call = fn;
    zm_p2p_recv(&c->p, buf, (size_t)count, dt, source, tag, &req);
    zm_mpi_status_set(status, &req);
    return zm_mpi_req_error(&req, fn);
}

/* Inlined into MPI_Recv itself, one call frame less on the message path
 * (13 instructions of a round trip's ~1800); large.h's declaration
 * without `inline` makes this the external definition its _c twin calls. */
__attribute__((always_inline)) inline int zm_mpi_recv(const char *fn, void *buf,
                                                      MPI_Count count, MPI_Datatype dt,
                                                      int source, int tag, MPI_Comm comm,
                                                      MPI_Status *status)
{
    return recv_body(fn, buf, count, dt, source, tag, comm, status, 0);
}

int PMPI_Recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
              MPI_Status *status)
{
    return zm_mpi_recv("MPI_Recv", buf, count, dt, source, tag, comm, status);
}
ZM_WEAK(Recv)

/* zm_mpi_irecv, dt known predefined or not (cbuf_check). */
static inline __attribute__((always_inline)) int irecv_body(const char *fn, void *buf,
                                                            MPI_Count count, MPI_Datatype dt,
                                                            int source, int tag, MPI_Comm comm,
                                                            MPI_Request *request, int known)
{
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    struct zmpi_comm *c;
    int rc = recv_check(me, fn, buf, count, dt, source, tag, comm, &c, known);
    if (ZM_UNLIKELY(rc != MPI_SUCCESS))
        return rc;
    if (!request)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "request pointer is NULL");
    zm_req_t *req = source == MPI_PROC_NULL ? req_null(comm) : zm_p2p_req_alloc();
    if (ZM_UNLIKELY(!req))
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory for a request");
    if (source != MPI_PROC_NULL) {
        req->comm = comm;
        zm_mpi_req_hold(req, dt);
        zm_p2p_irecv(&c->p, buf, (size_t)count, dt, source, tag, req);
    }
    *request = req;
    return MPI_SUCCESS;
}

/* Inlined into MPI_Irecv, as zm_mpi_isend into MPI_Isend; the external
 * definition serves MPI_Irecv_c. */
__attribute__((always_inline)) inline int zm_mpi_irecv(const char *fn, void *buf,
                                                       MPI_Count count, MPI_Datatype dt,
                                                       int source, int tag, MPI_Comm comm,
                                                       MPI_Request *request)
{
    return irecv_body(fn, buf, count, dt, source, tag, comm, request, 0);
}

int PMPI_Irecv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    return zm_mpi_irecv("MPI_Irecv", buf, count, dt, source, tag, comm, request);
}
ZM_WEAK(Irecv)

int zm_mpi_sendrecv(const char *fn, const void *sendbuf, MPI_Count sendcount,
                    MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                    MPI_Comm comm, MPI_Status *status)
{
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    struct zmpi_comm *c;
    zm_req_t sreq, rreq;
    int rc = send_check(me, fn, sendbuf, sendcount, sendtype, dest, sendtag, comm, &c, 0);
    if (rc == MPI_SUCCESS)
        rc = recv_check(me, fn, recvbuf, recvcount, recvtype, source, recvtag, comm, &c, 0);
    if (ZM_UNLIKELY(rc != MPI_SUCCESS))
        return rc;
    sreq.pooled = rreq.pooled = 0;
    sreq.comm = rreq.comm = comm;
    /* Post the receive first so a partner doing the same finds it. */
    if (source != MPI_PROC_NULL)
        zm_p2p_irecv(&c->p, recvbuf, (size_t)recvcount, recvtype, source, recvtag, &rreq);
    if (dest != MPI_PROC_NULL)
        zm_p2p_isend(&c->p, sendbuf, (size_t)sendcount, sendtype, dest, sendtag,
                     ZM_SEND_STD, &sreq);
    zm_req_t *reqs[2] = { dest != MPI_PROC_NULL ? &sreq : NULL,
                          source != MPI_PROC_NULL ? &rreq : NULL };
    zm_p2p_waiter()->wait_call = fn;
    zm_p2p_wait(reqs, 2, 1);
    if (source == MPI_PROC_NULL) {
        zm_mpi_status_null(status);
        return MPI_SUCCESS;
    }
    zm_mpi_status_set(status, &rreq);
    return zm_mpi_req_error(&rreq, fn);
}

int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                  int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                  int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return zm_mpi_sendrecv("MPI_Sendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                           recvcount, recvtype, source, recvtag, comm, status);
}
ZM_WEAK(Sendrecv)

int zm_mpi_sendrecv_replace(const char *fn, void *buf, MPI_Count count, MPI_Datatype dt,
                            int dest, int sendtag, int source, int recvtag, MPI_Comm comm,
                            MPI_Status *status)
{
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    struct zmpi_comm *c;
    int rc = send_check(me, fn, buf, count, dt, dest, sendtag, comm, &c, 0);
    if (rc == MPI_SUCCESS)
        rc = recv_check(me, fn, buf, count, dt, source, recvtag, comm, &c, 0);
    if (ZM_UNLIKELY(rc != MPI_SUCCESS))
        return rc;
    /* The outgoing data must survive the incoming overwrite: send from a
     * packed copy (its byte count may exceed an int: the internal call
     * takes it in full width). */
    size_t bytes = dest == MPI_PROC_NULL ? 0 : zm_dt_bytes(dt, (size_t)count);
    void *tmp = malloc(bytes ? bytes : 1);
    if (!tmp)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory for %zu bytes", bytes);
    zm_dt_pack(tmp, buf, (size_t)count, dt, bytes);
    rc = zm_mpi_sendrecv(fn, tmp, (MPI_Count)bytes, MPI_BYTE, dest, sendtag, buf, count, dt,
                         source, recvtag, comm, status);
    free(tmp);
    return rc;
}

int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return zm_mpi_sendrecv_replace("MPI_Sendrecv_replace", buf, count, dt, dest, sendtag,
                                   source, recvtag, comm, status);
}
ZM_WEAK(Sendrecv_replace)

/* Status of a message still in the queue. */
static void status_of_msg(MPI_Status *st, const zm_msg_t *m)
{
    if (st == MPI_STATUS_IGNORE || !st)
        return;
    st->MPI_SOURCE = m->src;
    st->MPI_TAG = m->tag;
    st->zmpi_cancelled = 0;
    st->zmpi_bytes = (MPI_Count)m->bytes;
}

static int probe_common(const char *fn, int source, int tag, MPI_Comm comm, int block,
                        int take, int *flag, MPI_Message *message, MPI_Status *status)
{
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    struct zmpi_comm *c;
    int rc = zm_mpi_check_comm(me, comm, fn, &c);
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_check_rank(c, fn, "source", source, 1);
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_check_tag(c, fn, tag, 1);
    if (ZM_UNLIKELY(rc != MPI_SUCCESS))
        return rc;
    if (source == MPI_PROC_NULL) {
        zm_mpi_status_null(status);
        if (flag)
            *flag = 1;
        if (message)
            *message = MPI_MESSAGE_NO_PROC;
        return MPI_SUCCESS;
    }
    zm_msg_t *m;
    if (block) {
        zm_p2p_waiter()->wait_call = fn;
        m = zm_p2p_probe_wait(&c->p, source, tag, take);
    } else {
        m = zm_p2p_probe(&c->p, source, tag, take);
    }
    if (flag)
        *flag = m != NULL;
    if (!m) {
        /* A polling loop must let the other ranks of this worker run. */
        zm_ult_yield();
        return MPI_SUCCESS;
    }
    status_of_msg(status, m);
    if (message)
        *message = m;
    return MPI_SUCCESS;
}

int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    return probe_common("MPI_Probe", source, tag, comm, 1, 0, NULL, NULL, status);
}
ZM_WEAK(Probe)

int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    return probe_common("MPI_Iprobe", source, tag, comm, 0, 0, flag, NULL, status);
}
ZM_WEAK(Iprobe)

int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    return probe_common("MPI_Mprobe", source, tag, comm, 1, 1, NULL, message, status);
}
ZM_WEAK(Mprobe)

int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                 MPI_Status *status)
{
    int rc = probe_common("MPI_Improbe", source, tag, comm, 0, 1, flag, message, status);
    if (rc == MPI_SUCCESS && !*flag)
        *message = MPI_MESSAGE_NULL;
    return rc;
}
ZM_WEAK(Improbe)

/* Validate a matched-message receive; returns an MPI code. */
static int mrecv_check(const char *fn, void *buf, MPI_Count count, MPI_Datatype dt,
                       MPI_Message *message)
{
    zm_mpi_enter(fn);
    int rc = zm_mpi_check_cbuf(NULL, fn, buf, count, dt);
    if (rc == MPI_SUCCESS && (!message || *message == MPI_MESSAGE_NULL))
        rc = zm_mpi_error(NULL, MPI_ERR_REQUEST, fn, "invalid message handle %s",
                          message ? "MPI_MESSAGE_NULL" : "pointer (NULL)");
    return rc;
}

int zm_mpi_mrecv(const char *fn, void *buf, MPI_Count count, MPI_Datatype dt,
                 MPI_Message *message, MPI_Status *status)
{
    int rc = mrecv_check(fn, buf, count, dt, message);
    if (rc != MPI_SUCCESS)
        return rc;
    if (*message == MPI_MESSAGE_NO_PROC) {
        zm_mpi_status_null(status);
        *message = MPI_MESSAGE_NULL;
        return MPI_SUCCESS;
    }
    zm_req_t req;
    req.pooled = 0;
    req.comm = NULL;
    zm_p2p_mrecv(*message, buf, (size_t)count, dt, &req);
    *message = MPI_MESSAGE_NULL;
    zm_mpi_status_set(status, &req);
    return zm_mpi_req_error(&req, fn);
}

int PMPI_Mrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message, MPI_Status *status)
{
    return zm_mpi_mrecv("MPI_Mrecv", buf, count, dt, message, status);
}
ZM_WEAK(Mrecv)

int zm_mpi_imrecv(const char *fn, void *buf, MPI_Count count, MPI_Datatype dt,
                  MPI_Message *message, MPI_Request *request)
{
    int rc = mrecv_check(fn, buf, count, dt, message);
    if (rc == MPI_SUCCESS && !request)
        rc = zm_mpi_error(NULL, MPI_ERR_ARG, fn, "request pointer is NULL");
    if (rc != MPI_SUCCESS)
        return rc;
    zm_req_t *req = *message == MPI_MESSAGE_NO_PROC ? req_null(NULL) : zm_p2p_req_alloc();
    if (!req)
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory for a request");
    if (*message != MPI_MESSAGE_NO_PROC) {
        zm_mpi_req_hold(req, dt);
        zm_p2p_mrecv(*message, buf, (size_t)count, dt, req);
    }
    *message = MPI_MESSAGE_NULL;
    *request = req;
    return MPI_SUCCESS;
}

int PMPI_Imrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message,
                MPI_Request *request)
{
    return zm_mpi_imrecv("MPI_Imrecv", buf, count, dt, message, request);
}
ZM_WEAK(Imrecv)

/* ---- Buffered-mode buffers (MPI 4.1 section 3.6) ------------------------
 * The process's buffer (key ZM_BSEND_PROCESS), each communicator's (key:
 * its context id) and each session's (session.c) are areas of the calling
 * rank (src/p2p/bsend.c). */

void zm_mpi_bsend_select(struct zmpi_comm *c)
{
    zm_p2p_bsend_select(c->p.ctx);
    /* No buffer of its own: the session's, if c comes from one that has a
     * buffer; otherwise the selection stays empty, which means the
     * process's. */
    if (!zm_p2p_waiter()->bsend_cur) {
        uint32_t key = zm_mpi_session_bsend_key(c);
        if (key != ZM_BSEND_PROCESS)
            zm_p2p_bsend_select(key);
    }
}

int zm_mpi_bsend_attach(uint32_t key, const char *owner, void *buffer, MPI_Count size, char *why,
                        size_t len)
{
    int automatic = buffer == MPI_BUFFER_AUTOMATIC;
    if (!automatic && (size < 0 || (!buffer && size > 0))) {
        snprintf(why, len, "(buffer=%p, size=%lld): invalid buffer", buffer, (long long)size);
        return MPI_ERR_ARG;
    }
    zm_status_t st = zm_p2p_bsend_attach_key(key, automatic ? ZM_BSEND_AUTO_BUF : buffer,
                                             automatic ? 0 : (size_t)size);
    if (st == ZM_ERR_NOMEM) {
        snprintf(why, len, "out of memory");
        return MPI_ERR_NO_MEM;
    }
    if (st != ZM_OK) {
        snprintf(why, len, "a buffer is already attached%s (detach it first)", owner);
        return MPI_ERR_BUFFER;
    }
    return MPI_SUCCESS;
}

int zm_mpi_bsend_detach(const char *fn, uint32_t key, const char *owner, void *buffer_addr,
                        MPI_Count *size, char *why, size_t len)
{
    if (!buffer_addr || !size) {
        snprintf(why, len, "(buffer_addr=%p, size=%p): invalid pointer", buffer_addr,
                 (void *)size);
        return MPI_ERR_ARG;
    }
    void *buf;
    size_t sz;
    zm_p2p_waiter()->wait_call = fn;
    if (zm_p2p_bsend_detach_key(key, &buf, &sz) != ZM_OK) {
        snprintf(why, len, "no buffer is attached%s", owner);
        return MPI_ERR_BUFFER;
    }
    *(void **)buffer_addr = buf == ZM_BSEND_AUTO_BUF ? MPI_BUFFER_AUTOMATIC : buf;
    *size = (MPI_Count)sz;
    return MPI_SUCCESS;
}

/* The int forms of the detach calls: the size detached must fit.  The
 * buffer is detached either way (the call cannot be undone), so a size
 * that does not fit is reported after the fact. */
static int detach_int(struct zmpi_comm *c, const char *fn, int rc, MPI_Count sz, int *size)
{
    if (rc != MPI_SUCCESS)
        return rc;
    if (!zm_mpi_fits_int(sz))
        return zm_mpi_too_large(c, fn, "size", sz);
    *size = (int)sz;
    return MPI_SUCCESS;
}

int zm_mpi_bsend_flush(const char *fn, uint32_t key, const char *owner, char *why, size_t len)
{
    zm_p2p_waiter()->wait_call = fn;
    if (zm_p2p_bsend_flush_key(key) == ZM_OK)
        return MPI_SUCCESS;
    snprintf(why, len, "no buffer is attached%s", owner);
    return MPI_ERR_BUFFER;
}

int zm_mpi_bsend_iflush(uint32_t key, const char *owner, MPI_Comm comm, MPI_Request *request,
                        char *why, size_t len)
{
    if (!request) {
        snprintf(why, len, "(request=NULL): no place for the request");
        return MPI_ERR_ARG;
    }
    zm_req_t *req = zm_p2p_req_alloc();
    if (!req) {
        snprintf(why, len, "out of memory for a request");
        return MPI_ERR_NO_MEM;
    }
    req->comm = comm;
    req->st_source = MPI_ANY_SOURCE;
    req->st_tag = MPI_ANY_TAG;
    req->st_bytes = 0;
    zm_status_t st = zm_p2p_bsend_iflush_key(key, req);
    if (st != ZM_OK) {
        atomic_store(&req->cstate, ZM_REQ_DONE);
        zm_p2p_req_release(req);
        if (st == ZM_ERR_NOMEM)
            snprintf(why, len, "out of memory");
        else
            snprintf(why, len, "no buffer is attached%s", owner);
        return st == ZM_ERR_NOMEM ? MPI_ERR_NO_MEM : MPI_ERR_BUFFER;
    }
    *request = req;
    return MPI_SUCCESS;
}

/* Raise what a zm_mpi_bsend_* call returned, on c (NULL: MPI_COMM_SELF's
 * handler). */
static int bsend_raise(struct zmpi_comm *c, const char *fn, int cls, const char *why)
{
    if (cls == MPI_SUCCESS)
        return cls;
    return zm_mpi_error(c, cls, fn, "%s", why);
}

int zm_mpi_buffer_attach(const char *fn, void *buffer, MPI_Count size)
{
    char why[128];
    zm_mpi_enter(fn);
    return bsend_raise(NULL, fn, zm_mpi_bsend_attach(ZM_BSEND_PROCESS, "", buffer, size, why,
                                                     sizeof(why)), why);
}

int PMPI_Buffer_attach(void *buffer, int size)
{
    return zm_mpi_buffer_attach("MPI_Buffer_attach", buffer, size);
}
ZM_WEAK(Buffer_attach)

int zm_mpi_buffer_detach(const char *fn, void *buffer_addr, MPI_Count *size)
{
    char why[128];
    zm_mpi_enter(fn);
    return bsend_raise(NULL, fn, zm_mpi_bsend_detach(fn, ZM_BSEND_PROCESS, "", buffer_addr, size,
                                                     why, sizeof(why)), why);
}

int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    const char *fn = "MPI_Buffer_detach";
    MPI_Count sz = 0;
    int rc = zm_mpi_buffer_detach(fn, buffer_addr, size ? &sz : NULL);
    return detach_int(NULL, fn, rc, sz, size);
}
ZM_WEAK(Buffer_detach)

int PMPI_Buffer_flush(void)
{
    const char *fn = "MPI_Buffer_flush";
    char why[128];
    zm_mpi_enter(fn);
    return bsend_raise(NULL, fn,
                       zm_mpi_bsend_flush(fn, ZM_BSEND_PROCESS, "", why, sizeof(why)), why);
}
ZM_WEAK(Buffer_flush)

int PMPI_Buffer_iflush(MPI_Request *request)
{
    const char *fn = "MPI_Buffer_iflush";
    char why[128];
    zm_mpi_enter(fn);
    return bsend_raise(NULL, fn, zm_mpi_bsend_iflush(ZM_BSEND_PROCESS, "", MPI_COMM_SELF, request,
                                                     why, sizeof(why)), why);
}
ZM_WEAK(Buffer_iflush)

int zm_mpi_comm_attach_buffer(const char *fn, MPI_Comm comm, void *buffer, MPI_Count size)
{
    char why[128];
    ENTER_COMM(fn, comm, c);
    rc = zm_mpi_bsend_attach(c->p.ctx, " to the communicator", buffer, size, why, sizeof(why));
    return bsend_raise(c, fn, rc, why);
}

int PMPI_Comm_attach_buffer(MPI_Comm comm, void *buffer, int size)
{
    return zm_mpi_comm_attach_buffer("MPI_Comm_attach_buffer", comm, buffer, size);
}
ZM_WEAK(Comm_attach_buffer)

int zm_mpi_comm_detach_buffer(const char *fn, MPI_Comm comm, void *buffer_addr,
                              MPI_Count *size)
{
    char why[128];
    ENTER_COMM(fn, comm, c);
    rc = zm_mpi_bsend_detach(fn, c->p.ctx, " to the communicator", buffer_addr, size, why,
                             sizeof(why));
    return bsend_raise(c, fn, rc, why);
}

int PMPI_Comm_detach_buffer(MPI_Comm comm, void *buffer_addr, int *size)
{
    const char *fn = "MPI_Comm_detach_buffer";
    MPI_Count sz = 0;
    int rc = zm_mpi_comm_detach_buffer(fn, comm, buffer_addr, size ? &sz : NULL);
    return detach_int(rc == MPI_SUCCESS ? zm_mpi_comm(zm_mpi_me(), comm) : NULL, fn, rc, sz,
                      size);
}
ZM_WEAK(Comm_detach_buffer)

int PMPI_Comm_flush_buffer(MPI_Comm comm)
{
    const char *fn = "MPI_Comm_flush_buffer";
    char why[128];
    ENTER_COMM(fn, comm, c);
    rc = zm_mpi_bsend_flush(fn, c->p.ctx, " to the communicator", why, sizeof(why));
    return bsend_raise(c, fn, rc, why);
}
ZM_WEAK(Comm_flush_buffer)

int PMPI_Comm_iflush_buffer(MPI_Comm comm, MPI_Request *request)
{
    const char *fn = "MPI_Comm_iflush_buffer";
    char why[128];
    ENTER_COMM(fn, comm, c);
    rc = zm_mpi_bsend_iflush(c->p.ctx, " to the communicator", comm, request, why, sizeof(why));
    return bsend_raise(c, fn, rc, why);
}
ZM_WEAK(Comm_iflush_buffer)

/* ---- Entries of the Fortran bindings (bind_hooks.h) ----------------------- */

/* Whether Fortran handles dt and comm are a predefined datatype and
 * MPI_COMM_WORLD or MPI_COMM_SELF, whose C handles are
 * zm_mpi_bind_types[dt] and the index itself (mpi.h).  Anything else is
 * converted by MPI_*_f2c. */
static inline int bind_predef(MPI_Fint dt, MPI_Fint comm)
{
    return zm_mpi_bind_type_ok(dt) && zm_mpi_bind_comm_ok(comm);
}

/* The entries' handles that are not all predefined go through f2c and the
 * C call, which reports them.  These calls are out of line and cold: kept
 * inline, what they need across their calls (the buffer, count, rank and
 * tag in callee-saved registers) shaped the register allocation of the
 * common path too, which spilled more (callgrind, 8-byte ping-pong:
 * zmpi_bind_send 104 -> 101 instructions a call, zmpi_bind_recv 115 ->
 * 111, MPI_Recv's own 111, with the tables indexed by the handle as
 * unsigned, which bind_predef has checked: a 32-bit value is
 * zero-extended for free, a signed one needs its own instruction). */
static __attribute__((noinline, cold)) int bind_send_f2c(const void *buf, int count,
                                                          MPI_Fint datatype, int dest, int tag,
                                                          MPI_Fint comm)
{
    return PMPI_Send(buf, count, PMPI_Type_f2c(datatype), dest, tag, PMPI_Comm_f2c(comm));
}

static __attribute__((noinline, cold)) int bind_recv_f2c(void *buf, int count, MPI_Fint datatype,
                                                          int source, int tag, MPI_Fint comm,
                                                          MPI_Status *status)
{
    return PMPI_Recv(buf, count, PMPI_Type_f2c(datatype), source, tag, PMPI_Comm_f2c(comm),
                     status);
}

static __attribute__((noinline, cold)) int bind_isend_f2c(const void *buf, int count,
                                                           MPI_Fint datatype, int dest, int tag,
                                                           MPI_Fint comm, MPI_Request *r)
{
    return PMPI_Isend(buf, count, PMPI_Type_f2c(datatype), dest, tag, PMPI_Comm_f2c(comm), r);
}

static __attribute__((noinline, cold)) int bind_irecv_f2c(void *buf, int count, MPI_Fint datatype,
                                                           int source, int tag, MPI_Fint comm,
                                                           MPI_Request *r)
{
    return PMPI_Irecv(buf, count, PMPI_Type_f2c(datatype), source, tag, PMPI_Comm_f2c(comm), r);
}

/* MPI_Send with Fortran handles for the bindings (bind_hooks.h): a
 * predefined datatype and communicator go through send_body with the
 * datatype known valid; anything else through MPI_Send after f2c.  The
 * calling rank's thread; the caller owns buf and ierror. */
int zmpi_bind_send(const void *buf, int count, MPI_Fint datatype, int dest, int tag,
                   MPI_Fint comm, MPI_Fint *ierror)
{
    int rc;
    if (ZM_LIKELY(bind_predef(datatype, comm)))
        rc = send_body("MPI_Send", buf, count, zm_mpi_bind_types[(unsigned)datatype], dest, tag,
                       (MPI_Comm)(uintptr_t)(unsigned)comm, ZM_SEND_STD, 1, 0);
    else
        rc = bind_send_f2c(buf, count, datatype, dest, tag, comm);
    if (ierror)
        *ierror = rc;
    return rc;
}

/* MPI_Recv with Fortran handles for the bindings, as zmpi_bind_send. */
int zmpi_bind_recv(void *buf, int count, MPI_Fint datatype, int source, int tag, MPI_Fint comm,
                   MPI_Status *status, MPI_Fint *ierror)
{
    int rc;
    if (ZM_LIKELY(bind_predef(datatype, comm)))
        rc = recv_body("MPI_Recv", buf, count, zm_mpi_bind_types[(unsigned)datatype], source, tag,
                       (MPI_Comm)(uintptr_t)(unsigned)comm, status, 1);
    else
        rc = bind_recv_f2c(buf, count, datatype, source, tag, comm, status);
    if (ierror)
        *ierror = rc;
    return rc;
}

/* MPI_Isend with Fortran handles for the bindings, as zmpi_bind_send;
 * the new request's Fortran index (0 when the call failed) goes to
 * *request, as the glue's MPI_Request_c2f would give it. */
int zmpi_bind_isend(const void *buf, int count, MPI_Fint datatype, int dest, int tag,
                    MPI_Fint comm, MPI_Fint *request, MPI_Fint *ierror)
{
    MPI_Request r = MPI_REQUEST_NULL;
    int rc;
    if (ZM_LIKELY(bind_predef(datatype, comm)))
        rc = isend_body("MPI_Isend", buf, count, zm_mpi_bind_types[(unsigned)datatype], dest,
                        tag, (MPI_Comm)(uintptr_t)(unsigned)comm, &r, ZM_SEND_STD, 1);
    else
        rc = bind_isend_f2c(buf, count, datatype, dest, tag, comm, &r);
    *request = zm_mpi_request_c2f(r);
    if (ierror)
        *ierror = rc;
    return rc;
}

/* MPI_Irecv with Fortran handles for the bindings, as zmpi_bind_isend. */
int zmpi_bind_irecv(void *buf, int count, MPI_Fint datatype, int source, int tag, MPI_Fint comm,
                    MPI_Fint *request, MPI_Fint *ierror)
{
    MPI_Request r = MPI_REQUEST_NULL;
    int rc;
    if (ZM_LIKELY(bind_predef(datatype, comm)))
        rc = irecv_body("MPI_Irecv", buf, count, zm_mpi_bind_types[(unsigned)datatype], source,
                        tag, (MPI_Comm)(uintptr_t)(unsigned)comm, &r, 1);
    else
        rc = bind_irecv_f2c(buf, count, datatype, source, tag, comm, &r);
    *request = zm_mpi_request_c2f(r);
    if (ierror)
        *ierror = rc;
    return rc;
}
