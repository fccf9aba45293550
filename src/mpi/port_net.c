/*
 * port_net.c: ports and published names in a job of several processes
 * (docs/spawn.md).
 *
 * A port lives in the table of the process that opened it, and published
 * names in process 0's (port.c).  A root of Comm_accept or Comm_connect in
 * another process, and a name call outside process 0, send a request to
 * that process and wait for its reply like for a receive.  The request is
 * an envelope of kind ZM_NET_KIND_PORT; the network's progress hands it to
 * port_arrive in the target process, under the network lock, wherever
 * that process's ranks are: the table operations only take the table's
 * spinlock, so no rank of the target has to call in.  The reply carries
 * the outcome back to the waiting call, named by a cookie.
 */
#include "inter_impl.h"
#include "spawn.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OP_MEET = 1, OP_NAME, OP_JOIN, OP_REPLY, OP_DONE, OP_ALL_DONE };

/* One request or reply.  The kind sits where the network looks for it. */
typedef struct port_msg {
    uint64_t cookie;                  /* the waiting call (struct port_call *) */
    int32_t op;                       /* OP_* */
    int32_t status;                   /* reply: an MPI error class */
    int32_t arg;                      /* OP_MEET: accept; OP_NAME: ZM_NAME_*; OP_JOIN reply:
                                       * known */
    int32_t root;                     /* OP_MEET: the arriving root; reply: the other root;
                                       * OP_JOIN: the rank */
    int32_t kind;                     /* ZM_NET_KIND_PORT */
    uint32_t chan;                    /* OP_MEET: its context; reply: the other's */
    int32_t why;                      /* OP_NAME reply: the name exists */
    int32_t pad;
    uint64_t nonce;                   /* OP_JOIN: the nonce to look for */
    char name[MPI_MAX_PORT_NAME];     /* port name (OP_MEET) or service name */
    char port[MPI_MAX_PORT_NAME];     /* OP_NAME: the port published or found */
} port_msg_t;

_Static_assert(offsetof(port_msg_t, kind) == ZM_NET_KIND_AT, "kind where net looks");

/* A call waiting for its reply. */
struct port_call {
    zm_req_t *req;
    port_msg_t reply;
};

static void free_sent(void *arg)
{
    free(arg);
}

/* Send m to process proc; block (malloc'd, m itself or the block m lies
 * in) is freed once it is sent.  Network lock held. */
static void send_locked(port_msg_t *m, int proc, void *block)
{
    m->kind = ZM_NET_KIND_PORT;
    zm_net_send_locked(m, sizeof(*m), proc, ZM_NET_TAG_ENV, 0, free_sent, block);
}

/* Send request m (malloc'd, taken) to process proc and wait for the
 * reply, copied into *reply.  Returns MPI_SUCCESS or MPI_ERR_NO_MEM (the
 * request was not sent). */
static int call(port_msg_t *m, int proc, port_msg_t *reply)
{
    struct port_call c;
    c.req = zm_p2p_req_alloc();
    if (!c.req) {
        free(m);
        return MPI_ERR_NO_MEM;
    }
    zm_p2p_req_reset(c.req, ZM_REQ_DONE_ONLY);
    c.req->pcomm = NULL;
    m->cookie = (uint64_t)(uintptr_t)&c;
    zm_net_lock();
    send_locked(m, proc, m);
    zm_net_unlock();
    zm_p2p_wait(&c.req, 1, 1);
    zm_p2p_req_release(c.req);
    *reply = c.reply;
    return MPI_SUCCESS;
}

/* A zeroed message with a copy of `name` (checked shorter than
 * MPI_MAX_PORT_NAME by the caller); NULL if out of memory. */
static port_msg_t *msg_new(int op, const char *name)
{
    port_msg_t *m = calloc(1, sizeof(*m));
    if (m) {
        m->op = op;
        snprintf(m->name, sizeof m->name, "%s", name);
    }
    return m;
}

int zm_mpi_port_net_meet(int owner, const char *port_name, int accept, int root,
                         uint32_t chan, int *other, uint32_t *other_chan)
{
    /* A longer name cannot be a zmpi port's: no table holds it. */
    if (strlen(port_name) >= MPI_MAX_PORT_NAME)
        return MPI_ERR_PORT;
    port_msg_t *m = msg_new(OP_MEET, port_name), r;
    if (!m)
        return MPI_ERR_NO_MEM;
    m->arg = accept;
    m->root = root;
    m->chan = chan;
    int rc = call(m, owner, &r);
    if (rc != MPI_SUCCESS)
        return rc;
    *other = r.root;
    *other_chan = r.chan;
    return r.status;
}

int zm_mpi_port_net_name(int op, const char *service_name, char *port_name, int *why)
{
    port_msg_t *m = msg_new(OP_NAME, service_name), r;
    if (!m)
        return MPI_ERR_NO_MEM;
    m->arg = op;
    if (op != ZM_NAME_LOOKUP)
        snprintf(m->port, sizeof m->port, "%.*s", MPI_MAX_PORT_NAME - 1, port_name);
    int rc = call(m, 0, &r);
    if (rc != MPI_SUCCESS)
        return rc;
    *why = r.why;
    if (r.status == MPI_SUCCESS && op == ZM_NAME_LOOKUP)
        memcpy(port_name, r.port, strnlen(r.port, MPI_MAX_PORT_NAME - 1) + 1);
    return r.status;
}

int zm_mpi_port_net_join(int proc, uint64_t nonce, int rank)
{
    port_msg_t *m = msg_new(OP_JOIN, ""), r;
    if (!m)
        return -1;
    m->nonce = nonce;
    m->root = rank;
    if (call(m, proc, &r) != MPI_SUCCESS)
        return -1;
    return r.arg;
}

/* Serve request q from process src in place and send it back as the
 * reply; block is the arrived envelope q lies in, freed once sent.
 * Network lock held. */
static void serve_locked(port_msg_t *q, int src, void *block)
{
    int other = -1;
    uint32_t ochan = 0;
    q->name[MPI_MAX_PORT_NAME - 1] = '\0';
    q->port[MPI_MAX_PORT_NAME - 1] = '\0';
    if (q->op == OP_MEET) {
        q->status = zm_mpi_port_meet(q->name, q->arg, q->root, q->chan, NULL, &other, &ochan);
        q->root = other;
        q->chan = ochan;
    } else if (q->op == OP_JOIN) {
        q->arg = zm_mpi_join_known(q->nonce, q->root);
        q->status = MPI_SUCCESS;
    } else {
        q->status = zm_mpi_name_op(q->arg, q->name, q->port, &q->why);
    }
    q->op = OP_REPLY;
    send_locked(q, src, block);
}

/* ---- The end of the job ----------------------------------------------------
 * A process whose ranks have all ended may still hold the job's names
 * (process 0) or ports that roots elsewhere pair at: it keeps serving
 * until every process is done.  Each tells process 0, which tells all
 * once all have. */

static _Atomic uint32_t all_done;  /* this process may leave */
static _Atomic int ndone;          /* process 0: processes done */

/* Send the notice op (OP_DONE, OP_ALL_DONE) to process proc; out of
 * memory ends the job.  Network lock held. */
static void notice_locked(int op, int proc)
{
    port_msg_t *m = msg_new(op, "");
    if (!m) {
        fprintf(stderr, "zmpi: out of memory ending the job\n");
        zm_net_abort(1);
    }
    send_locked(m, proc, m);
}

/* Let this process leave: wake its main thread in zm_mpi_port_net_quiesce. */
static void set_all_done(void)
{
    atomic_store(&all_done, 1);
    zm_arch_futex_wake((uint32_t *)&all_done, 1);
}

/* Count one more process done (process 0); the last tells everyone.
 * Network lock held. */
static void count_done_locked(void)
{
    if (atomic_fetch_add(&ndone, 1) + 1 != zm_net_job.nprocs)
        return;
    for (int p = 1; p < zm_net_job.nprocs; p++)
        notice_locked(OP_ALL_DONE, p);
    set_all_done();
}

void zm_mpi_port_net_quiesce(void)
{
    if (zm_net_job.nprocs < 2)
        return;
    zm_net_lock();
    if (zm_net_job.proc == 0)
        count_done_locked();
    else
        notice_locked(OP_DONE, 0);
    zm_net_unlock();
    uint64_t nap = 5000;
    while (!atomic_load(&all_done)) {
        if (zm_net_poll()) {
            nap = 5000;
            continue;
        }
        zm_arch_futex_wait_ns((uint32_t *)&all_done, 0, nap);
        nap = nap < 500000 ? nap * 2 : nap;
    }
}

/* The network's handler of port envelopes (under its lock); owns pkt. */
static void port_arrive(void *pkt, void *msg, size_t bytes, int src_proc)
{
    if (bytes < sizeof(port_msg_t)) {
        fprintf(stderr, "zmpi: a port request of %zu bytes from process %d is too short; "
                "ending the job\n", bytes, src_proc);
        zm_net_abort(1);
    }
    port_msg_t *m = msg;
    switch (m->op) {
    case OP_DONE:
        count_done_locked();
        break;
    case OP_ALL_DONE:
        set_all_done();
        break;
    case OP_REPLY: {
        struct port_call *c = (struct port_call *)(uintptr_t)m->cookie;
        c->reply = *m;
        zm_p2p_req_complete(c->req);
        break;
    }
    default:
        serve_locked(m, src_proc, pkt); /* the reply takes pkt */
        return;
    }
    free(pkt);
}

/* Installed when the library is loaded: a request may reach a process
 * before any of its ranks touched a port. */
__attribute__((constructor)) static void port_net_install(void)
{
    zm_net_set_port_handler(port_arrive);
}
