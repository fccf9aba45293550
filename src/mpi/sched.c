/*
 * sched.c: composite requests, for non-blocking operations built from
 * point-to-point messages (neighbourhood collectives, collectives on
 * intercommunicators) and their persistent forms.
 *
 * A schedule is a list of sends and receives on the communicator's
 * collective context (its context id + 1, which no user message carries),
 * plus an optional finishing step (a reduction of what arrived).  Starting
 * it posts every receive first, so that senders find them and copy once,
 * then every send.  The children progress without their owner, as all
 * zmpi messages do; the schedule itself completes when its owner observes
 * every child complete (in a wait or test call), which is also when the
 * finishing step runs, in the owner's context: a user reduction then sees
 * the owner's privatized globals.
 *
 * Three other kinds of request reuse the machinery.  MPI_Isendrecv's
 * schedule (zm_mpi_sched_new_p2p) puts its two messages on the
 * point-to-point context and reports its receive's status.  A persistent
 * collective (coll_persist.c) and a generalized request (grequest.c) each
 * have one child request that someone else completes (zm_mpi_sched_child)
 * and hooks that start it, cancel it, or free what the schedule stands for.
 *
 * Messages of successive schedules between the same two ranks match in
 * start order (point-to-point order), and MPI requires every rank to start
 * the collectives of a communicator in the same order, so schedules need no
 * sequence numbers.
 */
#include "threads.h"

#include <stdlib.h>
#include <string.h>

extern struct zmpi_datatype zmpi_dt_MPI_BYTE;

/* What an operation of a schedule is. */
enum { OP_RECV, OP_SEND, OP_CHILD };

struct sched_op {
    uint8_t send;                   /* OP_RECV, OP_SEND or OP_CHILD */
    void *buf;                      /* user or scratch buffer */
    size_t count;                   /* elements of dt */
    MPI_Datatype dt;                /* held until the schedule is freed */
    int peer;                       /* rank in the remote (or only) group */
    int tag;                        /* caller's tag, on the collective context */
    zm_req_t *kid;                  /* its request, reused on every start */
};

struct zm_mpi_sched {
    zm_req_t req;                   /* the user's handle (kind ZM_REQ_SCHED) */
    zm_p2p_comm_t pc;               /* the communicator on its collective context */
    int n, cap;                     /* operations */
    int finished;                   /* the finishing step ran for this start */
    struct sched_op *ops;
    zm_mpi_sched_fn *finish;        /* finishing step, or NULL */
    void *arg;                      /* its argument */
    void *scratch;                  /* scratch space owned by the schedule */
    int p2p;                        /* messages on the point-to-point context */
    int user_error;                 /* error code set by zm_mpi_sched_set_status, or 0 */
    int captured;                   /* built under zm_mpi_sched_capture: persistent */
    const zm_mpi_sched_hooks_t *hooks; /* start/cancel/release hooks, or NULL */
    void *hooks_arg;                /* their argument */
    _Atomic long *own;              /* its rank's count (zm_mpi_sched_own), or NULL */
};

/* The schedule a request handle belongs to. */
static inline zm_mpi_sched_t *sched_of(zm_req_t *r)
{
    return (zm_mpi_sched_t *)r;
}

/* Schedules made and not yet freed (zm_mpi_sched_live). */
static _Atomic long live_scheds;

long zm_mpi_sched_live(void)
{
    return atomic_load_explicit(&live_scheds, memory_order_relaxed);
}

/* Of those, the ones counted by their rank too (zm_mpi_sched_own). */
static _Atomic long own_scheds;

long zm_mpi_sched_live_shared(void)
{
    return atomic_load_explicit(&live_scheds, memory_order_relaxed) -
           atomic_load_explicit(&own_scheds, memory_order_relaxed);
}

void zm_mpi_sched_own(zm_mpi_sched_t *s, zm_mpi_rank_t *me)
{
    s->own = &me->own_scheds;
    atomic_fetch_add_explicit(s->own, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&own_scheds, 1, memory_order_relaxed);
}

zm_mpi_sched_t *zm_mpi_sched_new(struct zmpi_comm *c, MPI_Comm handle, int max_ops,
                                 size_t scratch)
{
    size_t sz = (sizeof(zm_mpi_sched_t) + ZM_CACHE_LINE - 1) & ~(size_t)(ZM_CACHE_LINE - 1);
    zm_mpi_sched_t *s = aligned_alloc(ZM_CACHE_LINE, sz);
    if (!s)
        return NULL;
    memset(s, 0, sizeof(*s));
    s->pc = c->p;
    s->pc.ctx = c->p.ctx + 1;
    s->cap = max_ops;
    s->ops = calloc((size_t)(max_ops > 0 ? max_ops : 1), sizeof(*s->ops));
    s->scratch = scratch ? malloc(scratch) : NULL;
    if (!s->ops || (scratch && !s->scratch)) {
        free(s->ops);
        free(s->scratch);
        free(s);
        return NULL;
    }
    atomic_fetch_add_explicit(&live_scheds, 1, memory_order_relaxed);
    s->req.kind = ZM_REQ_SCHED;
    s->req.comm = handle;
    s->req.pcomm = &s->pc;
    s->req.dt = &zmpi_dt_MPI_BYTE;
    s->req.owner = zm_p2p_self()->world_rank;
    atomic_store_explicit(&s->req.cstate, ZM_REQ_DONE, memory_order_relaxed);
    return s;
}

zm_mpi_sched_t *zm_mpi_sched_new_p2p(struct zmpi_comm *c, MPI_Comm handle, int max_ops,
                                     size_t scratch)
{
    zm_mpi_sched_t *s = zm_mpi_sched_new(c, handle, max_ops, scratch);
    if (s) {
        s->pc.ctx = c->p.ctx;
        s->p2p = 1;
        /* Messages on the point-to-point context, no collective state. */
        zm_mpi_rank_t *me = zm_mpi_me();
        if (me)
            zm_mpi_sched_own(s, me);
    }
    return s;
}

void zm_mpi_sched_set_hooks(zm_mpi_sched_t *s, const zm_mpi_sched_hooks_t *hooks, void *arg)
{
    s->hooks = hooks;
    s->hooks_arg = arg;
}

int zm_mpi_sched_child(zm_mpi_sched_t *s, zm_req_t **kid)
{
    if (s->n == s->cap)
        return MPI_ERR_INTERN;
    zm_req_t *k = zm_p2p_req_alloc();
    if (!k)
        return MPI_ERR_NO_MEM;
    k->kind = ZM_REQ_DONE_ONLY;
    k->comm = s->req.comm;
    k->dt = &zmpi_dt_MPI_BYTE;
    k->count = 0;
    atomic_store_explicit(&k->cstate, ZM_REQ_DONE, memory_order_relaxed);
    s->ops[s->n++] = (struct sched_op){ OP_CHILD, NULL, 0, NULL, MPI_PROC_NULL, 0, k };
    *kid = k;
    return MPI_SUCCESS;
}

void zm_mpi_sched_set_status(zm_mpi_sched_t *s, const MPI_Status *st)
{
    zm_req_t *r = &s->req;
    r->st_source = st->MPI_SOURCE;
    r->st_tag = st->MPI_TAG;
    r->st_bytes = (size_t)st->zmpi_bytes;
    r->cancelled = (uint8_t)(st->zmpi_cancelled != 0);
    s->user_error = st->MPI_ERROR;
}

int zm_mpi_sched_user_error(zm_req_t *r)
{
    return sched_of(r)->user_error;
}

void zm_mpi_sched_before_free(zm_req_t *r)
{
    zm_mpi_sched_t *s = sched_of(r);
    if (!s->hooks || !s->hooks->before_free)
        return;
    int code = s->hooks->before_free(s, s->hooks_arg);
    if (code != MPI_SUCCESS && s->user_error == MPI_SUCCESS) {
        s->user_error = code;
        if (r->st_error == ZM_OK)
            r->st_error = ZM_ERR_OTHER;
    }
}

int zm_mpi_sched_cancel(zm_req_t *r)
{
    zm_mpi_sched_t *s = sched_of(r);
    if (s->hooks && s->hooks->cancel)
        return s->hooks->cancel(s, s->hooks_arg);
    if (!s->p2p)
        return MPI_ERR_REQUEST;
    /* Isendrecv: withdraw whichever half has not matched yet. */
    for (int i = 0; i < s->n; i++)
        zm_p2p_cancel(s->ops[i].kid);
    return MPI_SUCCESS;
}

void *zm_mpi_sched_hooks_arg(zm_req_t *r, const zm_mpi_sched_hooks_t *hooks)
{
    if (r->kind != ZM_REQ_SCHED || sched_of(r)->hooks != hooks)
        return NULL;
    return sched_of(r)->hooks_arg;
}

int zm_mpi_sched_free_active(zm_req_t *r)
{
    zm_mpi_sched_t *s = sched_of(r);
    if (s->hooks && s->hooks->free_active)
        return s->hooks->free_active(s, s->hooks_arg);
    return MPI_ERR_REQUEST;
}

int zm_mpi_sched_is_p2p(zm_req_t *r)
{
    zm_mpi_sched_t *s = sched_of(r);
    return s->p2p || (s->hooks && s->hooks->cancel);
}

void *zm_mpi_sched_scratch(zm_mpi_sched_t *s)
{
    return s->scratch;
}

/* Record one operation; a peer of MPI_PROC_NULL records nothing. */
static int sched_add(zm_mpi_sched_t *s, int send, void *buf, size_t count, MPI_Datatype dt,
                     int peer, int tag)
{
    if (peer == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (s->n == s->cap)
        return MPI_ERR_INTERN;
    zm_req_t *kid = zm_p2p_req_alloc();
    if (!kid)
        return MPI_ERR_NO_MEM;
    struct sched_op *op = &s->ops[s->n++];
    *op = (struct sched_op){ (uint8_t)send, buf, count, dt, peer, tag, kid };
    /* The request holds a derived type until it is freed, as any request
     * does, so the user may free the type meanwhile. */
    zm_mpi_req_hold(kid, dt);
    kid->comm = s->req.comm;
    atomic_store_explicit(&kid->cstate, ZM_REQ_DONE, memory_order_relaxed);
    return MPI_SUCCESS;
}

int zm_mpi_sched_send(zm_mpi_sched_t *s, const void *buf, size_t count, MPI_Datatype dt,
                      int dest, int tag)
{
    return sched_add(s, 1, (void *)buf, count, dt, dest, tag);
}

int zm_mpi_sched_recv(zm_mpi_sched_t *s, void *buf, size_t count, MPI_Datatype dt, int src,
                      int tag)
{
    return sched_add(s, 0, buf, count, dt, src, tag);
}

void zm_mpi_sched_finish_with(zm_mpi_sched_t *s, zm_mpi_sched_fn *fn, void *arg)
{
    s->finish = fn;
    s->arg = arg;
}

/* The capture flag of the calling thread: the rank's, or a foreign
 * thread's own (threads.c), since two threads of a rank may build
 * schedules at the same time. */
static int *capture_flag(void)
{
    zm_ult_t *u = zm_ult_self();
    if (ZM_UNLIKELY(u->foreign))
        return &zm_mpi_thread_self()->sched_capture;
    return &((zm_mpi_rank_t *)u->user)->sched_capture;
}

void zm_mpi_sched_capture(int on)
{
    *capture_flag() = on;
}

int zm_mpi_sched_start(zm_mpi_sched_t *s)
{
    zm_req_t *r = &s->req;
    int *capture = capture_flag();
    if (ZM_UNLIKELY(*capture)) {
        /* A persistent init: keep it inactive for MPI_Start. */
        *capture = 0;
        s->captured = 1;
        return MPI_SUCCESS;
    }
    zm_p2p_req_reset(r, ZM_REQ_SCHED);
    r->st_source = MPI_ANY_SOURCE;
    r->st_tag = MPI_ANY_TAG;
    r->st_bytes = 0;
    r->active = 1;
    s->finished = 0;
    s->user_error = 0;
    /* Receives first: a sender that finds its receive posted copies
     * straight into it. */
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < s->n; i++) {
            struct sched_op *op = &s->ops[i];
            if (op->send != pass)
                continue; /* children (OP_CHILD) are started by the start hook */
            if (!op->send) {
                zm_p2p_irecv(&s->pc, op->buf, op->count, op->dt, op->peer, op->tag, op->kid);
                continue;
            }
            zm_status_t st = zm_p2p_isend(&s->pc, op->buf, op->count, op->dt, op->peer,
                                          op->tag, ZM_SEND_STD, op->kid);
            if (st != ZM_OK)
                return zm_mpi_class_of(st);
        }
    }
    if (s->hooks && s->hooks->start) {
        int cls = s->hooks->start(s, s->hooks_arg);
        if (cls != MPI_SUCCESS)
            return cls;
    }
    zm_mpi_sched_poll(r);
    return MPI_SUCCESS;
}

MPI_Request zm_mpi_sched_request(zm_mpi_sched_t *s, int persistent)
{
    s->req.persistent = (uint8_t)(persistent != 0 || s->captured);
    return &s->req;
}

/* A point-to-point schedule (Isendrecv) reports its receive's status, or
 * that of a receive from MPI_PROC_NULL if it has none; it was cancelled if
 * one of its halves was. */
static void p2p_status(zm_mpi_sched_t *s)
{
    zm_req_t *r = &s->req;
    r->st_source = MPI_PROC_NULL;
    r->st_tag = MPI_ANY_TAG;
    r->st_bytes = 0;
    for (int i = 0; i < s->n; i++) {
        zm_req_t *k = s->ops[i].kid;
        r->cancelled |= k->cancelled;
        if (s->ops[i].send != OP_RECV)
            continue;
        r->st_source = k->st_source;
        r->st_tag = k->st_tag;
        r->st_bytes = k->st_bytes;
        r->dt = s->ops[i].dt;
        r->count = s->ops[i].count;
    }
}

int zm_mpi_sched_poll(zm_req_t *r)
{
    zm_mpi_sched_t *s = sched_of(r);
    if (s->finished || zm_p2p_req_done(r))
        return 1;
    for (int i = 0; i < s->n; i++)
        if (!zm_p2p_req_done(s->ops[i].kid))
            return 0;
    /* Every child is complete: a truncated receive fails the operation,
     * then the finishing step runs. */
    zm_status_t err = ZM_OK;
    for (int i = 0; i < s->n && err == ZM_OK; i++)
        err = s->ops[i].kid->st_error;
    s->finished = 1;
    if (err == ZM_OK && s->finish) {
        int cls = s->finish(s, s->arg);
        if (cls != MPI_SUCCESS)
            err = ZM_ERR_ARG;
    }
    if (s->p2p)
        p2p_status(s);
    if (err == ZM_OK && s->user_error != MPI_SUCCESS)
        err = ZM_ERR_OTHER;
    r->st_error = err;
    atomic_store_explicit(&r->cstate, ZM_REQ_DONE, memory_order_release);
    return 1;
}

void zm_mpi_sched_wait(zm_req_t *r)
{
    zm_mpi_sched_t *s = sched_of(r);
    if (s->n == 0) {
        zm_mpi_sched_poll(r);
        return;
    }
    zm_req_t *small[16] = { 0 }, **kids = s->n <= 16 ? small : malloc(sizeof(*kids) * (size_t)s->n);
    if (kids) {
        for (int i = 0; i < s->n; i++)
            kids[i] = s->ops[i].kid;
        zm_p2p_wait(kids, s->n, 1);
        if (kids != small)
            free(kids);
    } else {
        /* Out of memory for the list: wait for the children one by one. */
        for (int i = 0; i < s->n; i++)
            zm_p2p_wait(&s->ops[i].kid, 1, 1);
    }
    zm_mpi_sched_poll(r);
}

int zm_mpi_sched_wait_any(zm_req_t *const *reqs, int n)
{
    for (;;) {
        int total = 0;
        for (int i = 0; i < n; i++) {
            zm_req_t *r = reqs[i];
            if (!r)
                continue;
            if (r->kind == ZM_REQ_SCHED ? zm_mpi_sched_poll(r) : zm_p2p_req_done(r))
                return MPI_SUCCESS;
            total += r->kind == ZM_REQ_SCHED ? sched_of(r)->n : 1;
        }
        if (total == 0)
            return MPI_SUCCESS;
        /* Wait for any child or plain request, then look again: a child
         * completing need not complete its schedule. */
        zm_req_t **flat = malloc(sizeof(*flat) * (size_t)total);
        if (!flat)
            return MPI_ERR_NO_MEM;
        int k = 0;
        for (int i = 0; i < n; i++) {
            zm_req_t *r = reqs[i];
            if (r && r->kind == ZM_REQ_SCHED) {
                for (int j = 0; j < sched_of(r)->n; j++)
                    if (!zm_p2p_req_done(sched_of(r)->ops[j].kid))
                        flat[k++] = sched_of(r)->ops[j].kid;
            } else if (r) {
                flat[k++] = r;
            }
        }
        zm_p2p_wait(flat, k, 0);
        free(flat);
    }
}

void zm_mpi_sched_free(zm_mpi_sched_t *s)
{
    if (s->hooks && s->hooks->release)
        s->hooks->release(s, s->hooks_arg);
    for (int i = 0; i < s->n; i++)
        zm_p2p_req_release(s->ops[i].kid);
    free(s->ops);
    free(s->scratch);
    if (s->own) {
        atomic_fetch_sub_explicit(s->own, 1, memory_order_relaxed);
        atomic_fetch_sub_explicit(&own_scheds, 1, memory_order_relaxed);
    }
    free(s);
    atomic_fetch_sub_explicit(&live_scheds, 1, memory_order_relaxed);
}

void zm_mpi_sched_release(zm_req_t *r)
{
    zm_mpi_sched_free(sched_of(r));
}

int zm_mpi_sched_run_keep(zm_mpi_sched_t *s)
{
    int cls = zm_mpi_sched_start(s);
    /* Whatever was started must finish before the buffers go away. */
    zm_mpi_sched_wait(&s->req);
    return cls == MPI_SUCCESS ? zm_mpi_class_of(s->req.st_error) : cls;
}

int zm_mpi_sched_run(zm_mpi_sched_t *s)
{
    int cls = zm_mpi_sched_run_keep(s);
    zm_mpi_sched_free(s);
    return cls;
}
