/*
 * port.c: ports and names (MPI 4.1 sections 11.9 and 11.10): Open_port,
 * Close_port, Comm_accept, Comm_connect, Publish_name, Unpublish_name,
 * Lookup_name, between groups of ranks of the same job (Comm_join is in
 * join.c).
 *
 * A port is an entry of the table of the process that opened it, whose
 * index its name carries; published names live in process 0's table.
 * The roots of an accept and a connect on one port pair up in the port's
 * queue: the second to arrive learns the first's world rank and a private
 * context the first drew, and the two swap their groups with
 * point-to-point messages on that context, so a root that waits is an
 * ordinary blocked rank (the deadlock detector names it).  A root in
 * another process than the port's queues or pairs through a request to
 * that process (port_net.c), which answers which of the two it is.  Each
 * root then broadcasts the remote group in its own communicator.
 * Contexts of the intercommunicator: base (drawn by the second root),
 * base+2 for the accepting side's hidden local communicator, base+4 for
 * the connecting side's.
 */
#include "inter_impl.h"
#include "spawn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A root waiting on a port for the other side. */
struct arrival {
    struct arrival *next;
    int accept;                  /* 1: Comm_accept, 0: Comm_connect */
    int root;                    /* its world rank */
    uint32_t chan;               /* context it receives the other side's group on */
    int heap;                    /* a root of another process: malloc'd, freed when paired */
};

struct port {
    struct port *next;
    char name[MPI_MAX_PORT_NAME];
    struct arrival *queue;       /* unpaired arrivals, oldest first */
};

struct service {
    struct service *next;
    char *name;
    char port[MPI_MAX_PORT_NAME];
};

static zm_spinlock_t lock;       /* guards the two lists and the counter */
static struct port *ports;
static struct service *services;
static unsigned long port_seq;

static struct port **port_find(const char *name)
{
    struct port **pp;
    for (pp = &ports; *pp; pp = &(*pp)->next)
        if (strncmp((*pp)->name, name, MPI_MAX_PORT_NAME) == 0)
            break;
    return pp;
}

static struct service **service_find(const char *name)
{
    struct service **pp;
    for (pp = &services; *pp; pp = &(*pp)->next)
        if (strcmp((*pp)->name, name) == 0)
            break;
    return pp;
}

int PMPI_Open_port(MPI_Info info, char *port_name)
{
    const char *fn = "MPI_Open_port";
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    int rc;
    if (!port_name)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(port_name=NULL): invalid pointer");
    if (info != MPI_INFO_NULL && (rc = zm_mpi_info_check(fn, info)) != MPI_SUCCESS)
        return rc;
    struct port *p = calloc(1, sizeof(*p));
    if (!p)
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    zm_spin_lock(&lock);
    /* The process index first: a root elsewhere finds the table by it. */
    snprintf(p->name, sizeof p->name, "zmpi-port:%d:%d:%d:%lu", zm_net_job.proc, (int)getpid(),
             me->world_rank, ++port_seq);
    p->next = ports;
    ports = p;
    zm_spin_unlock(&lock);
    memcpy(port_name, p->name, strlen(p->name) + 1);
    return MPI_SUCCESS;
}
ZM_WEAK(Open_port)

int PMPI_Close_port(const char *port_name)
{
    const char *fn = "MPI_Close_port";
    zm_mpi_enter(fn);
    if (!port_name)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(port_name=NULL): invalid pointer");
    zm_spin_lock(&lock);
    struct port **pp = port_find(port_name), *p = *pp;
    int busy = p && p->queue;
    if (p && !busy)
        *pp = p->next;
    zm_spin_unlock(&lock);
    if (!p)
        return zm_mpi_error(NULL, MPI_ERR_PORT, fn, "(port_name=\"%.100s\"): not an open port",
                            port_name);
    if (busy)
        return zm_mpi_error(NULL, MPI_ERR_PORT, fn, "(port_name=\"%.100s\"): a root is still "
                            "waiting in Comm_accept or Comm_connect on it", port_name);
    free(p);
    return MPI_SUCCESS;
}
ZM_WEAK(Close_port)

/* ---- Publishing names ---------------------------------------------------- */

/* Process 0's table operations, for its own ranks and for requests of
 * other processes (port_net.c, under the network lock: they only take the
 * table's spinlock). */
int zm_mpi_name_op(int op, const char *service_name, char *port_name, int *why)
{
    *why = 0;
    if (op == ZM_NAME_PUBLISH) {
        struct service *s = calloc(1, sizeof(*s));
        if (!s || !(s->name = strdup(service_name))) {
            free(s);
            return MPI_ERR_NO_MEM;
        }
        snprintf(s->port, sizeof s->port, "%s", port_name);
        zm_spin_lock(&lock);
        int taken = *service_find(service_name) != NULL;
        if (!taken) {
            s->next = services;
            services = s;
        }
        zm_spin_unlock(&lock);
        if (taken) {
            free(s->name);
            free(s);
        }
        return taken ? MPI_ERR_SERVICE : MPI_SUCCESS;
    }
    zm_spin_lock(&lock);
    struct service **pp = service_find(service_name), *s = *pp;
    int match = s && (op == ZM_NAME_LOOKUP ||
                      strncmp(s->port, port_name, MPI_MAX_PORT_NAME) == 0);
    if (match && op == ZM_NAME_LOOKUP)
        memcpy(port_name, s->port, strlen(s->port) + 1);
    else if (match)
        *pp = s->next;
    zm_spin_unlock(&lock);
    *why = s != NULL;
    if (!match)
        return op == ZM_NAME_LOOKUP ? MPI_ERR_NAME : MPI_ERR_SERVICE;
    if (op == ZM_NAME_UNPUBLISH) {
        free(s->name);
        free(s);
    }
    return MPI_SUCCESS;
}

/* One of the three name calls: at process 0's table, directly or by a
 * request.  Raises the call's error (with the messages of MPI 4.1's
 * classes) and returns its class. */
static int name_call(const char *fn, int op, const char *service_name, MPI_Info info,
                     char *port_name)
{
    zm_mpi_enter(fn);
    if (!service_name || !port_name)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(%s=NULL): invalid pointer",
                            service_name ? "port_name" : "service_name");
    int rc = info != MPI_INFO_NULL ? zm_mpi_info_check(fn, info) : MPI_SUCCESS, why = 0;
    if (rc != MPI_SUCCESS)
        return rc;
    if (zm_net_job.proc == 0)
        rc = zm_mpi_name_op(op, service_name, port_name, &why);
    else if (strlen(service_name) >= MPI_MAX_PORT_NAME)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(service_name=\"%.100s...\"): names of "
                            "%d characters or more are not supported in a job of several "
                            "processes", service_name, MPI_MAX_PORT_NAME);
    else
        rc = zm_mpi_port_net_name(op, service_name, port_name, &why);
    if (rc == MPI_SUCCESS)
        return MPI_SUCCESS;
    if (rc == MPI_ERR_NO_MEM)
        return zm_mpi_error(NULL, rc, fn, "out of memory");
    if (op == ZM_NAME_PUBLISH)
        return zm_mpi_error(NULL, rc, fn, "(service_name=\"%.100s\"): already published "
                            "(unpublish it first)", service_name);
    return zm_mpi_error(NULL, rc, fn, "(service_name=\"%.100s\"): %s", service_name,
                        why && op == ZM_NAME_UNPUBLISH ? "published with another port_name"
                                                       : "not published");
}

int PMPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    return name_call("MPI_Publish_name", ZM_NAME_PUBLISH, service_name, info,
                     (char *)port_name);
}
ZM_WEAK(Publish_name)

int PMPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    return name_call("MPI_Unpublish_name", ZM_NAME_UNPUBLISH, service_name, info,
                     (char *)port_name);
}
ZM_WEAK(Unpublish_name)

int PMPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name)
{
    return name_call("MPI_Lookup_name", ZM_NAME_LOOKUP, service_name, info, port_name);
}
ZM_WEAK(Lookup_name)

/* ---- Accept and connect -------------------------------------------------- */

enum { TAG_HDR = 1, TAG_GRP = 2 };

/* Send n ints to world rank `dest` on wc and wait.  Returns 0 or -1 if out
 * of memory. */
static int send_ints(const zm_p2p_comm_t *wc, int dest, int tag, const int *buf, int n)
{
    zm_req_t *req = zm_p2p_req_alloc();
    if (!req)
        return -1;
    zm_p2p_isend(wc, buf, (size_t)n, MPI_INT, dest, tag, ZM_SEND_STD, req);
    zm_p2p_wait(&req, 1, 1);
    zm_p2p_req_release(req);
    return 0;
}

/* Receive up to n ints from world rank src (or any) on wc; returns the
 * sender, or -1 if out of memory. */
static int recv_ints(const zm_p2p_comm_t *wc, int src, int tag, int *buf, int n)
{
    zm_req_t *req = zm_p2p_req_alloc();
    if (!req)
        return -1;
    zm_p2p_recv(wc, buf, (size_t)n, MPI_INT, src, tag, req);
    int from = req->st_source;
    zm_p2p_req_release(req);
    return from;
}

int zm_mpi_port_owner(const char *port_name)
{
    static const char prefix[] = "zmpi-port:";
    char *end;
    if (strncmp(port_name, prefix, sizeof prefix - 1) != 0)
        return zm_net_job.proc;
    long p = strtol(port_name + sizeof prefix - 1, &end, 10);
    return *end == ':' && p >= 0 && p < zm_net_job.nprocs ? (int)p : zm_net_job.proc;
}

int zm_mpi_port_meet(const char *port_name, int accept, int root, uint32_t chan,
                     void *mine, int *other, uint32_t *other_chan)
{
    struct arrival **aa, *a = NULL, *m = mine;
    *other = -1;
    zm_spin_lock(&lock);
    struct port *p = *port_find(port_name);
    if (p) {
        for (aa = &p->queue; (a = *aa) != NULL; aa = &a->next)
            if (a->accept != accept)
                break;
        if (a) {
            *aa = a->next;
            *other = a->root;
            *other_chan = a->chan;
        } else if (m || (m = calloc(1, sizeof(*m))) != NULL) {
            m->heap = mine == NULL;
            m->accept = accept;
            m->root = root;
            m->chan = chan;
            m->next = NULL;
            *aa = m; /* the tail: arrivals pair in order */
        }
    }
    zm_spin_unlock(&lock);
    if (a && a->heap)
        free(a);
    if (!p)
        return MPI_ERR_PORT;
    return a || m ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

/* The root's part of accept/connect: pair with the other side's root on
 * the port (at the port's process) and swap groups.  On success *base and
 * the remote group (*rw, malloc'd, *nr entries) are set.  Returns an
 * error class, with the message in msg. */
static int root_pair(zm_mpi_rank_t *me, const char *port_name, int accept,
                     const struct zmpi_group *lg, int *base, int **rw, int *nr, char *msg,
                     size_t len)
{
    zm_p2p_comm_t wc = { 0, me->world_rank, zm_ult_capacity(), NULL, "(port)", 0 };
    struct arrival mine = { NULL, accept, me->world_rank, 0, 0 };
    int other = -1, hdr[2], owner = zm_mpi_port_owner(port_name), rc;
    uint32_t chan = zm_mpi_ctx_draw(2), ochan = 0;
    if (owner == zm_net_job.proc)
        rc = zm_mpi_port_meet(port_name, accept, me->world_rank, chan, &mine, &other, &ochan);
    else
        rc = zm_mpi_port_net_meet(owner, port_name, accept, me->world_rank, chan, &other,
                                  &ochan);
    if (rc == MPI_ERR_PORT)
        snprintf(msg, len, "(port_name=\"%.100s\"): not an open port", port_name);
    else if (rc != MPI_SUCCESS)
        snprintf(msg, len, "out of memory");
    if (rc != MPI_SUCCESS)
        return rc;
    wc.ctx = other >= 0 ? ochan : chan;
    if (other >= 0) {
        /* Second to arrive: send first, then hear the other group. */
        hdr[0] = lg->size;
        hdr[1] = (int)zm_mpi_ctx_draw(6);
        *base = hdr[1];
        if (send_ints(&wc, other, TAG_HDR, hdr, 2) || send_ints(&wc, other, TAG_GRP, lg->world,
                                                                lg->size) ||
            recv_ints(&wc, other, TAG_HDR, nr, 1) < 0 || !(*rw = malloc(sizeof(int) * (size_t)*nr)))
            goto nomem;
        recv_ints(&wc, other, TAG_GRP, *rw, *nr);
        return MPI_SUCCESS;
    }
    /* First: wait for the other root (a blocked rank, as in MPI_Recv). */
    if ((other = recv_ints(&wc, ZM_ANY_SOURCE, TAG_HDR, hdr, 2)) < 0 ||
        !(*rw = malloc(sizeof(int) * (size_t)hdr[0])))
        goto nomem;
    *nr = hdr[0];
    *base = hdr[1];
    recv_ints(&wc, other, TAG_GRP, *rw, *nr);
    if (send_ints(&wc, other, TAG_HDR, &lg->size, 1) ||
        send_ints(&wc, other, TAG_GRP, lg->world, lg->size))
        goto nomem;
    return MPI_SUCCESS;
nomem:
    snprintf(msg, len, "out of memory");
    return MPI_ERR_NO_MEM;
}

enum { X_CLS, X_BASE, X_N, X_LEN };

/* Give every rank of c the root's outcome (hdr, and on failure msg) and
 * the remote group, which the root holds in rw (freed here).  Returns the
 * remote group, or NULL with *st set on a failed broadcast (hdr[X_CLS]
 * says whether the root failed). */
static struct zmpi_group *share_remote(struct zmpi_comm *c, int root, int *hdr, int *rw,
                                       char *msg, size_t len, zm_status_t *st)
{
    struct zm_coll_shm *cs = zm_mpi_coll_shm(c);
    *st = cs ? zm_coll_bcast(cs, c->p.rank, hdr, X_LEN, MPI_INT, root) : ZM_ERR_NOMEM;
    if (*st == ZM_OK && hdr[X_CLS] != MPI_SUCCESS)
        *st = zm_coll_bcast(cs, c->p.rank, msg, len, MPI_CHAR, root);
    else if (*st == ZM_OK && !rw && !(rw = malloc(sizeof(int) * (size_t)hdr[X_N])))
        *st = ZM_ERR_NOMEM;
    if (*st == ZM_OK && hdr[X_CLS] == MPI_SUCCESS)
        *st = zm_coll_bcast(cs, c->p.rank, rw, (size_t)hdr[X_N], MPI_INT, root);
    struct zmpi_group *rg = *st == ZM_OK && hdr[X_CLS] == MPI_SUCCESS
                            ? zm_mpi_group_new(hdr[X_N]) : NULL;
    if (rg)
        memcpy(rg->world, rw, sizeof(int) * (size_t)hdr[X_N]);
    else if (*st == ZM_OK && hdr[X_CLS] == MPI_SUCCESS) {
        hdr[X_CLS] = MPI_ERR_NO_MEM;
        snprintf(msg, len, "out of memory");
    }
    free(rw);
    return rg;
}

/* Comm_accept (accept = 1) and Comm_connect: collective over comm; the
 * port name and info are significant at the root only. */
static int accept_connect(const char *fn, int accept, const char *port_name, MPI_Info info,
                          int root, MPI_Comm comm, MPI_Comm *newcomm)
{
    ENTER_COMM(fn, comm, c);
    if ((rc = zm_mpi_dyn_root_check(c, fn, root)) != MPI_SUCCESS)
        return rc;
    if (!newcomm)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(newcomm=NULL): invalid pointer");
    *newcomm = MPI_COMM_NULL;
    struct zmpi_group *lg = zm_mpi_comm_members(me, c);
    if (!lg)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    int hdr[X_LEN] = { 0, 0, 0 }, *rw = NULL;
    char msg[256] = "";
    if (c->p.rank == root) {
        if (!port_name) {
            hdr[X_CLS] = MPI_ERR_ARG;
            snprintf(msg, sizeof msg, "(port_name=NULL): invalid pointer");
        } else if (info != MPI_INFO_NULL && (rc = zm_mpi_info_check(fn, info)) != MPI_SUCCESS) {
            hdr[X_CLS] = rc;
            snprintf(msg, sizeof msg, "(info): invalid info");
        } else {
            zm_p2p_self()->wait_call = fn;
            hdr[X_CLS] = root_pair(me, port_name, accept, lg, &hdr[X_BASE], &rw, &hdr[X_N], msg,
                                   sizeof msg);
        }
    }
    zm_p2p_self()->wait_call = fn;
    zm_status_t st = ZM_OK;
    struct zmpi_group *rg = share_remote(c, root, hdr, rw, msg, sizeof msg, &st);
    if (!rg) {
        zm_mpi_group_unref(lg);
        if (st != ZM_OK)
            return zm_mpi_error(c, zm_mpi_class_of(st), fn, "distributing the remote group "
                                "from the root failed");
        return zm_mpi_error(c, hdr[X_CLS], fn, "%s%s", c->p.rank == root ? "" : "at the root: ",
                            msg);
    }
    struct zmpi_comm *n = zm_mpi_intercomm_new(c->eh, lg, rg, (uint32_t)hdr[X_BASE],
                                               (uint32_t)hdr[X_BASE] + (accept ? 2 : 4),
                                               me->world_rank);
    if (!n)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    *newcomm = n;
    return MPI_SUCCESS;
}

int PMPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                     MPI_Comm *newcomm)
{
    return accept_connect("MPI_Comm_accept", 1, port_name, info, root, comm, newcomm);
}
ZM_WEAK(Comm_accept)

int PMPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                      MPI_Comm *newcomm)
{
    return accept_connect("MPI_Comm_connect", 0, port_name, info, root, comm, newcomm);
}
ZM_WEAK(Comm_connect)
