/*
 * rma_net.c: windows whose ranks live in several processes.
 *
 * Each process keeps its own zm_rma_win_t of such a window, registered
 * under the window communicator's context id (the same in every process).
 * Its targets of this process are the real ones: their segments, locks,
 * accumulate locks and PSCW counters.  Its targets of other processes
 * hold their segment geometry only (so an origin checks ranges before
 * sending, as in one process).
 *
 * An operation on a target of another process is an active message on
 * the network layer's envelope stream (kind >= ZM_NET_KIND_RMA, passed
 * on by p2p's arrival handler): a request carrying the target range as
 * runs of bytes (the origin's datatype engine flattens the target
 * datatype; the target needs no datatype) and the origin's data packed.
 * The target process's progress applies it under the network lock with
 * the same functions and locks the direct path uses (zm_rma_accumulate_
 * runs under the target's accumulate lock, the fair reader-writer lock
 * of rma_sync.c), then replies.  On a window that is not dynamic the
 * origin checked the range before sending, so a Put or an accumulate that
 * fetches nothing returns once the request is sent (its data packed into
 * it): a stream of them costs one send each, not one round trip each.
 * The reply uncounts the operation; the calls that end an epoch or flush
 * wait until the origin has nothing on its way (zm_rma_net_drain).  Gets,
 * fetching operations and everything on a dynamic window (where only the
 * target can check the range) wait for the reply like for a receive (the
 * origin polls when alone on its worker, else parks), so their results
 * are in place and the target's refusal reaches the call.  Lock requests that must queue are
 * answered by the unlock that grants them.
 *
 * On a direct window (memory in the node's segment, rma.h) data never
 * travels here: only lock requests that must queue, exclusive unlocks,
 * the rechecks of a lock whose last shared holder left while someone
 * queues, and PSCW notices do.  On the other windows with segments on
 * one node, Gets and large Puts copy straight between the processes
 * (zm_rma_net_cma, cross-memory attach) where the system allows it.
 *
 * Progress at the target comes from whoever polls the network there:
 * ranks waiting in any blocking call, idle workers, and a progress thread
 * that runs while the process holds windows spanning processes.
 */
#include "rma.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Message kinds (the envelope's kind word, net.h). */
enum {
    RMA_PUT = ZM_NET_KIND_RMA, RMA_GET, RMA_ACC, RMA_CAS, RMA_LOCK, RMA_UNLOCK, RMA_POST,
    RMA_COMPLETE, RMA_REPLY, RMA_RECHECK
};

/* Flags of a request. */
enum { RF_DYN = 1, RF_EXCL = 2, RF_FETCH = 4 };

/* The header of every one-sided message; `kind` sits where net.h says.
 * A request is followed by nruns runs { offset, bytes } (int64 pairs) of
 * the target range relative to its address, then by `bytes` bytes of
 * data; a reply by its data. */
typedef struct rma_hdr {
    uint32_t ctx;          /* window communicator's context */
    int32_t target;        /* target's window rank (POST: the origin posted to) */
    int32_t origin;        /* sender's window rank */
    int32_t opid;          /* accumulates: ZM_OP_* */
    uint64_t cookie;       /* the origin's call record, echoed by the reply */
    int32_t kind;          /* RMA_* */
    int32_t flags;         /* RF_* */
    int64_t disp;          /* target displacement (units) or address (dynamic) */
    uint64_t bytes;        /* data bytes after the runs */
    uint64_t nruns;        /* runs of the target range */
    int32_t basic;         /* accumulates: index of the element type in the type table */
    int32_t status;        /* reply: ZM_OK or ZM_ERR_ARG */
    uint64_t pad[2];       /* keeps what follows 16-byte aligned */
} rma_hdr_t;

_Static_assert(offsetof(rma_hdr_t, kind) == ZM_NET_KIND_AT, "kind sits where net.h says");
_Static_assert(sizeof(rma_hdr_t) % 16 == 0, "data after the header stays aligned");

typedef int64_t run_t[2];

/* An origin's outstanding call: where the reply's data goes. */
typedef struct rma_call {
    zm_req_t *req;         /* completed by the reply (NULL: an operation on its way) */
    void *rbuf;            /* reply data: unpacked into (rbuf, rcount, rdt), or NULL */
    size_t rcount;
    const zm_dt_t *rdt;
    int status;            /* the reply's status */
    zm_rma_target_t *origin; /* on its way: the origin's entry that counts it */
} rma_call_t;

/* Operations one origin may have on their way before it waits for them
 * all: their packed data is held until sent, so this bounds the memory a
 * stream of Puts takes. */
#define RMA_INFLIGHT_MAX 512

/* The registry of this process's windows spanning processes. */
static struct {
    zm_spinlock_t lock;
    zm_rma_win_t *head;
    const zm_dt_t *const *types;   /* predefined types, in a fixed order (API layer) */
    int ntypes;
} reg;

static void arrive(void *pkt, void *msg, size_t bytes, int src_proc);

/* ---- Windows ---------------------------------------------------------------- */

void zm_rma_net_set_types(const zm_dt_t *const *types, int n)
{
    /* Every window creation passes the same table: set it once. */
    zm_spin_lock(&reg.lock);
    if (!reg.types) {
        reg.types = types;
        reg.ntypes = n;
    }
    zm_spin_unlock(&reg.lock);
}

zm_rma_win_t *zm_rma_net_win_get(uint32_t ctx, int n, const int *world)
{
    int nlocal = 0, me = zm_net_job.proc;
    for (int i = 0; i < n; i++)
        nlocal += zm_net_proc_of(world ? world[i] : i) == me;
    zm_spin_lock(&reg.lock);
    zm_rma_win_t *w = reg.head;
    /* A full entry of the same context is a window whose last local ranks
     * are still inside MPI_Win_free: not ours. */
    while (w && (w->ctx != ctx || w->joined == w->nlocal))
        w = w->next;
    if (!w) {
        w = zm_rma_win_new(n);
        int *proc = w ? malloc(sizeof(int) * (size_t)n) : NULL;
        if (!proc) {
            if (w) {
                atomic_store(&w->refs, 1);
                zm_rma_win_unref(w);
            }
            zm_spin_unlock(&reg.lock);
            return NULL;
        }
        for (int i = 0; i < n; i++) {
            int p = zm_net_proc_of(world ? world[i] : i);
            proc[i] = p == me ? -1 : p;
        }
        w->proc = proc;
        w->ctx = ctx;
        w->nlocal = nlocal;
        atomic_store(&w->refs, nlocal);
        w->next = reg.head;
        reg.head = w;
        zm_net_set_rma_handler(arrive);
        zm_net_progress_hold();
    }
    w->joined++;
    zm_spin_unlock(&reg.lock);
    return w;
}

void zm_rma_net_forget(zm_rma_win_t *w)
{
    zm_spin_lock(&reg.lock);
    zm_rma_win_t **p = &reg.head;
    while (*p && *p != w)
        p = &(*p)->next;
    if (*p)
        *p = w->next;
    zm_spin_unlock(&reg.lock);
    zm_net_progress_release();
}

/* The window of context ctx that is being used (not one being freed). */
static zm_rma_win_t *lookup(uint32_t ctx)
{
    zm_spin_lock(&reg.lock);
    zm_rma_win_t *w = reg.head;
    while (w && w->ctx != ctx)
        w = w->next;
    zm_spin_unlock(&reg.lock);
    return w;
}

/* Index of predefined type dt in the type table, or -1. */
static int type_index(const zm_dt_t *dt)
{
    for (int i = 0; i < reg.ntypes; i++)
        if (reg.types[i] == dt)
            return i;
    return -1;
}

/* ---- Target ranges as runs ---------------------------------------------------- */

typedef struct runs {
    run_t *v;
    size_t n, cap;
} runs_t;

static int runs_push(runs_t *r, int64_t off, size_t len)
{
    if (r->n && r->v[r->n - 1][0] + r->v[r->n - 1][1] == off) {
        r->v[r->n - 1][1] += (int64_t)len;
        return 0;
    }
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 8;
        run_t *v = realloc(r->v, cap * sizeof(run_t));
        if (!v)
            return -1;
        r->v = v;
        r->cap = cap;
    }
    r->v[r->n][0] = off;
    r->v[r->n][1] = (int64_t)len;
    r->n++;
    return 0;
}

/* Append the runs of layout node n placed at `base`, in data order. */
static int flatten(const zm_dt_node_t *n, int64_t base, runs_t *r)
{
    int64_t org = base + n->off;
    int rc = 0;
    if (n->kind == ZM_DT_RUN) {
        for (size_t i = 0; i < n->count && rc == 0; i++)
            rc = runs_push(r, org + (int64_t)i * n->stride, n->len);
    } else if (n->kind == ZM_DT_LOOP) {
        for (size_t i = 0; i < n->count && rc == 0; i++)
            rc = flatten(n->child, org + (int64_t)i * n->stride, r);
    } else {
        for (size_t i = 0; i < n->count && rc == 0; i++)
            rc = flatten(n->ent[i].node, org + n->ent[i].disp, r);
    }
    return rc;
}

/* The runs of (count, dt) relative to its buffer.  0 or -1 (memory). */
static int runs_of(size_t count, const zm_dt_t *dt, runs_t *r)
{
    *r = (runs_t){ 0 };
    if (!dt->layout || !dt->layout->root || dt->size == 0 || count == 0)
        return 0;
    /* A contiguous type is one run whatever the count (flattening element
     * by element would cost a call per byte of MPI_BYTE). */
    if (dt->contig)
        return runs_push(r, 0, count * dt->size);
    for (size_t i = 0; i < count; i++)
        if (flatten(dt->layout->root, (int64_t)i * dt->extent, r) != 0) {
            free(r->v);
            return -1;
        }
    return 0;
}

/* ---- Origin side -------------------------------------------------------------- */

static void free_cb(void *arg)
{
    free(arg);
}

/* A request to target t with room for `nr` runs and `bytes` of data
 * (zeroed header, kind and addressing filled).  NULL if out of memory. */
static rma_hdr_t *req_new(zm_rma_win_t *w, int me, int t, int kind, size_t nr, size_t bytes)
{
    rma_hdr_t *h = calloc(1, sizeof(*h) + nr * sizeof(run_t) + bytes);
    if (!h)
        return NULL;
    h->ctx = w->ctx;
    h->target = t;
    h->origin = me;
    h->kind = kind;
    h->nruns = nr;
    h->bytes = bytes;
    return h;
}

/* Data area of a request. */
static void *req_data(rma_hdr_t *h)
{
    return (char *)(h + 1) + h->nruns * sizeof(run_t);
}

/* Send a message to process `proc` (the network frees it once sent). */
static void send_msg(rma_hdr_t *h, int proc)
{
    size_t len = sizeof(*h) + h->nruns * sizeof(run_t) + h->bytes;
    zm_net_lock();
    zm_net_send_locked(h, len, proc, ZM_NET_TAG_ENV, 0, free_cb, h);
    zm_net_unlock();
}

/* Send request h to target t's process and block until its reply has
 * come (its data unpacked into c's buffer).  Returns the reply's status. */
static zm_status_t call(zm_rma_win_t *w, int t, rma_hdr_t *h, rma_call_t *c)
{
    c->req = zm_p2p_req_alloc();
    if (!c->req) {
        free(h);
        return ZM_ERR_NOMEM;
    }
    zm_p2p_req_reset(c->req, ZM_REQ_DONE_ONLY);
    c->req->pcomm = NULL;
    c->status = ZM_OK;
    h->cookie = (uint64_t)(uintptr_t)c;
    send_msg(h, w->proc[t]);
    zm_p2p_wait(&c->req, 1, 1);
    zm_p2p_req_release(c->req);
    return c->status;
}

zm_status_t zm_rma_net_drain(zm_rma_win_t *w, int me)
{
    zm_rma_target_t *o = &w->t[me];
    zm_net_lock();
    if (o->inflight > 0) {
        zm_req_t *req = zm_p2p_req_alloc();
        if (!req) {
            zm_net_unlock();
            fprintf(stderr, "zmpi: out of memory waiting for one-sided operations\n");
            zm_net_abort(1);
        }
        zm_p2p_req_reset(req, ZM_REQ_DONE_ONLY);
        req->pcomm = NULL;
        o->drain = req;
        zm_net_unlock();
        zm_p2p_wait(&req, 1, 1);
        zm_p2p_req_release(req);
        zm_net_lock();
    }
    zm_status_t st = o->async_err;
    o->async_err = ZM_OK;
    zm_net_unlock();
    return st;
}

/* Send request h to target t's process and return: the reply, which the
 * network's progress brings, unpacks c's result (if any) and uncounts
 * the operation (zm_rma_net_drain waits for that).  Takes h and c. */
static zm_status_t launch(zm_rma_win_t *w, int me, int t, rma_hdr_t *h, rma_call_t *c)
{
    zm_rma_target_t *o = &w->t[me];
    if (__atomic_load_n(&o->inflight, __ATOMIC_RELAXED) >= RMA_INFLIGHT_MAX) {
        zm_status_t st = zm_rma_net_drain(w, me);
        if (st != ZM_OK) {
            free(h);
            free(c);
            return st;
        }
    }
    c->origin = o;
    c->status = ZM_OK;
    h->cookie = (uint64_t)(uintptr_t)c;
    size_t len = sizeof(*h) + h->nruns * sizeof(run_t) + h->bytes;
    zm_net_lock();
    o->inflight++;
    zm_net_send_locked(h, len, w->proc[t], ZM_NET_TAG_ENV, 0, free_cb, h);
    zm_net_unlock();
    return ZM_OK;
}

/* Start request h and return once sent, or call it and wait: on a
 * dynamic window, where only the target knows its attached regions and
 * its refusal must reach the call, and for an operation that brings a
 * result back (Get, the fetching accumulates): the standard lets its
 * buffer fill as late as the next flush, but programs commonly read it
 * right after the call, which works in one process and under the
 * process-based MPIs on one node, so it is kept complete at return.  The
 * result goes to (rbuf, rcount, rdt). */
static zm_status_t start(zm_rma_win_t *w, int me, int t, int dyn, rma_hdr_t *h, void *rbuf,
                         size_t rcount, const zm_dt_t *rdt)
{
    if (dyn || rdt) {
        rma_call_t c = { .rbuf = rbuf, .rcount = rcount, .rdt = rdt };
        return call(w, t, h, &c);
    }
    rma_call_t *c = calloc(1, sizeof(*c));
    if (!c) {
        free(h);
        return ZM_ERR_NOMEM;
    }
    c->rbuf = rbuf;
    c->rcount = rcount;
    c->rdt = rdt;
    return launch(w, me, t, h, c);
}

/* A request whose target side is (tcount, tdt) at disp, with `bytes` of
 * data room.  NULL if out of memory. */
static rma_hdr_t *ranged_req(zm_rma_win_t *w, int me, int t, int kind, int dyn, int64_t disp,
                             size_t tcount, const zm_dt_t *tdt, size_t bytes)
{
    runs_t r;
    if (runs_of(tcount, tdt, &r) != 0)
        return NULL;
    rma_hdr_t *h = req_new(w, me, t, kind, r.n, bytes);
    if (h) {
        memcpy(h + 1, r.v, r.n * sizeof(run_t));
        h->disp = disp;
        h->flags = dyn ? RF_DYN : 0;
    }
    free(r.v);
    return h;
}

zm_status_t zm_rma_net_put(zm_rma_win_t *w, int me, int t, int dyn, int64_t disp,
                           const void *obuf, size_t ocount, const zm_dt_t *odt,
                           size_t tcount, const zm_dt_t *tdt)
{
    size_t bytes = zm_dt_bytes(odt, ocount);
    rma_hdr_t *h = ranged_req(w, me, t, RMA_PUT, dyn, disp, tcount, tdt, bytes);
    if (!h)
        return ZM_ERR_NOMEM;
    zm_dt_pack(req_data(h), obuf, ocount, odt, bytes);
    return start(w, me, t, dyn, h, NULL, 0, NULL);
}

zm_status_t zm_rma_net_get(zm_rma_win_t *w, int me, int t, int dyn, int64_t disp,
                           void *obuf, size_t ocount, const zm_dt_t *odt,
                           size_t tcount, const zm_dt_t *tdt)
{
    rma_hdr_t *h = ranged_req(w, me, t, RMA_GET, dyn, disp, tcount, tdt, 0);
    if (!h)
        return ZM_ERR_NOMEM;
    return start(w, me, t, dyn, h, obuf, ocount, odt);
}

zm_status_t zm_rma_net_acc(zm_rma_win_t *w, int me, int t, int dyn, int64_t disp,
                           const zm_op_t *op, const zm_dt_t *basic,
                           const void *obuf, size_t ocount, const zm_dt_t *odt,
                           size_t tcount, const zm_dt_t *tdt,
                           void *rbuf, size_t rcount, const zm_dt_t *rdt)
{
    int bi = type_index(basic);
    if (bi < 0)
        return ZM_ERR_OTHER; /* not a predefined type every process knows */
    size_t bytes = op->id == ZM_OP_NO_OP ? 0 : zm_dt_bytes(odt, ocount);
    rma_hdr_t *h = ranged_req(w, me, t, RMA_ACC, dyn, disp, tcount, tdt, bytes);
    if (!h)
        return ZM_ERR_NOMEM;
    if (bytes) /* MPI_NO_OP sends no origin data (its type may be MPI_DATATYPE_NULL) */
        zm_dt_pack(req_data(h), obuf, ocount, odt, bytes);
    h->opid = op->id;
    h->basic = bi;
    if (rbuf || rdt)
        h->flags |= RF_FETCH;
    return start(w, me, t, dyn, h, rbuf, rcount, rdt);
}

zm_status_t zm_rma_net_cas(zm_rma_win_t *w, int me, int t, int dyn, int64_t disp,
                           const zm_dt_t *dt, const void *origin, const void *compare,
                           void *result)
{
    rma_hdr_t *h = ranged_req(w, me, t, RMA_CAS, dyn, disp, 1, dt, 2 * dt->size);
    if (!h)
        return ZM_ERR_NOMEM;
    memcpy(req_data(h), origin, dt->size);
    memcpy((char *)req_data(h) + dt->size, compare, dt->size);
    return start(w, me, t, dyn, h, result, 1, dt);
}

zm_status_t zm_rma_net_cma(zm_rma_win_t *w, int t, int write, size_t off, void *obuf,
                           size_t ocount, const zm_dt_t *odt, size_t tcount, const zm_dt_t *tdt)
{
    size_t bytes = zm_dt_bytes(odt, ocount);
    runs_t r;
    if (runs_of(tcount, tdt, &r) != 0)
        return ZM_ERR_NOMEM;
    /* A contiguous origin is copied in place, another one through a
     * packed copy. */
    void *buf = obuf;
    if (!odt->contig && !(buf = malloc(bytes))) {
        free(r.v);
        return ZM_ERR_NOMEM;
    }
    if (write && buf != obuf)
        zm_dt_pack(buf, obuf, ocount, odt, bytes);
    int rc = zm_arch_cma_copy(w->pid[t], write, buf, (uintptr_t)w->t[t].base + off,
                              (const int64_t (*)[2])r.v, r.n);
    if (rc == 0 && !write && buf != obuf)
        zm_dt_unpack(obuf, ocount, odt, buf, bytes);
    if (buf != obuf)
        free(buf);
    free(r.v);
    if (rc == 0)
        return ZM_OK;
    /* Refused (a security policy, a kernel without it): the target's
     * process serves this window's Puts and Gets from now on. */
    atomic_store(&w->cma_off, 1);
    return ZM_ERR_OTHER;
}

/* Lock or unlock messages; out of memory here cannot be reported (the
 * epoch's state would be unknown), so it ends the job. */
static void lock_call(zm_rma_win_t *w, int me, int t, int kind, int exclusive)
{
    rma_hdr_t *h = req_new(w, me, t, kind, 0, 0);
    rma_call_t c = { 0 };
    if (h) {
        h->flags = exclusive ? RF_EXCL : 0;
        if (call(w, t, h, &c) == ZM_OK)
            return;
    }
    fprintf(stderr, "zmpi: out of memory for a window lock request\n");
    zm_net_abort(1);
}

void zm_rma_net_lock(zm_rma_win_t *w, int me, int t, int exclusive)
{
    lock_call(w, me, t, RMA_LOCK, exclusive);
}

void zm_rma_net_unlock(zm_rma_win_t *w, int me, int t, int exclusive)
{
    lock_call(w, me, t, RMA_UNLOCK, exclusive);
}

/* A notice that needs no reply: everything the sender did in the epoch
 * was acknowledged before, so the notice cannot overtake it. */
static void notice(zm_rma_win_t *w, int me, int to, int kind)
{
    rma_hdr_t *h = req_new(w, me, to, kind, 0, 0);
    if (!h) {
        fprintf(stderr, "zmpi: out of memory for a window synchronization notice\n");
        zm_net_abort(1);
    }
    send_msg(h, w->proc[to]);
}

void zm_rma_net_post(zm_rma_win_t *w, int me, int o)
{
    notice(w, me, o, RMA_POST);
}

void zm_rma_net_complete(zm_rma_win_t *w, int me, int t)
{
    notice(w, me, t, RMA_COMPLETE);
}

void zm_rma_net_recheck(zm_rma_win_t *w, int t)
{
    notice(w, -1, t, RMA_RECHECK);
}

/* ---- Target side (arrival handler, network lock held) --------------------------- */

/* A reply to request q with `bytes` bytes of data room. */
static rma_hdr_t *reply_new(const rma_hdr_t *q, size_t bytes)
{
    rma_hdr_t *h = calloc(1, sizeof(*h) + bytes);
    if (!h) {
        fprintf(stderr, "zmpi: out of memory replying to a one-sided request\n");
        zm_net_abort(1);
    }
    h->ctx = q->ctx;
    h->target = q->target;
    h->origin = q->origin;
    h->cookie = q->cookie;
    h->kind = RMA_REPLY;
    h->bytes = bytes;
    return h;
}

static void reply_send_locked(rma_hdr_t *h, int proc)
{
    zm_net_send_locked(h, sizeof(*h) + h->bytes, proc, ZM_NET_TAG_ENV, 0, free_cb, h);
}

void zm_rma_net_grant(int proc, uint64_t cookie, int net_locked)
{
    rma_hdr_t q = { .cookie = cookie };
    rma_hdr_t *h = reply_new(&q, 0);
    if (!net_locked)
        zm_net_lock();
    reply_send_locked(h, proc);
    if (!net_locked)
        zm_net_unlock();
}

/* The target address of request q, checked against the window (NULL:
 * outside it), and the data bytes its runs cover. */
static char *resolve(zm_rma_win_t *w, const rma_hdr_t *q, size_t *bytes)
{
    const run_t *r = (const run_t *)(q + 1);
    int64_t lo = 0, hi = 0;
    *bytes = 0;
    for (uint64_t i = 0; i < q->nruns; i++) {
        if (i == 0 || r[i][0] < lo)
            lo = r[i][0];
        if (i == 0 || r[i][0] + r[i][1] > hi)
            hi = r[i][0] + r[i][1];
        *bytes += (size_t)r[i][1];
    }
    return zm_rma_target_addr(w, q->target, q->flags & RF_DYN, q->disp, lo, hi);
}

/* Apply a Put, Get, accumulate or compare-and-swap; the reply's data is
 * what the origin asked to get back. */
static rma_hdr_t *serve_data(zm_rma_win_t *w, const rma_hdr_t *q)
{
    const run_t *r = (const run_t *)(q + 1);
    const char *in = (const char *)(r + q->nruns);
    size_t bytes;
    char *a = resolve(w, q, &bytes);
    if (!a) {
        rma_hdr_t *h = reply_new(q, 0);
        h->status = ZM_ERR_ARG;
        return h;
    }
    int fetch = q->kind == RMA_GET || q->kind == RMA_CAS || (q->flags & RF_FETCH);
    size_t back = q->kind == RMA_CAS ? (size_t)r[0][1] : fetch ? bytes : 0;
    rma_hdr_t *h = reply_new(q, back);
    char *out = (char *)(h + 1);
    size_t at = 0;
    if (q->kind == RMA_PUT) {
        for (uint64_t i = 0; i < q->nruns; at += (size_t)r[i][1], i++)
            memcpy(a + r[i][0], in + at, (size_t)r[i][1]);
    } else if (q->kind == RMA_GET) {
        for (uint64_t i = 0; i < q->nruns; at += (size_t)r[i][1], i++)
            memcpy(out + at, a + r[i][0], (size_t)r[i][1]);
    } else if (q->kind == RMA_CAS) {
        zm_spin_lock(w->t[q->target].acc);
        memcpy(out, a + r[0][0], back);
        if (memcmp(out, in + back, back) == 0)
            memcpy(a + r[0][0], in, back);
        zm_spin_unlock(w->t[q->target].acc);
    } else {
        zm_op_t op = { .magic = ZM_OP_MAGIC, .id = q->opid };
        const zm_dt_t *basic = q->basic >= 0 && q->basic < reg.ntypes ? reg.types[q->basic]
                                                                        : NULL;
        if (!basic || zm_rma_accumulate_runs(w, q->target, &op, basic, in, a, r, q->nruns,
                                             fetch ? out : NULL) != ZM_OK) {
            fprintf(stderr, "zmpi: cannot apply an accumulate from another process\n");
            zm_net_abort(1);
        }
    }
    return h;
}

/* Serve request q from process src of window w. */
static void serve(zm_rma_win_t *w, const rma_hdr_t *q, int src)
{
    switch (q->kind) {
    case RMA_PUT:
    case RMA_GET:
    case RMA_ACC:
    case RMA_CAS:
        reply_send_locked(serve_data(w, q), src);
        return;
    case RMA_LOCK:
        if (zm_rma_lock_remote(w, q->target, q->flags & RF_EXCL, src, q->cookie))
            reply_send_locked(reply_new(q, 0), src);
        return;
    case RMA_UNLOCK:
        zm_rma_unlock_target(w, q->target, (q->flags & RF_EXCL) != 0, 1);
        reply_send_locked(reply_new(q, 0), src);
        return;
    case RMA_POST:
        zm_rma_post_arrived(w, q->target, q->origin);
        return;
    case RMA_COMPLETE:
        zm_rma_complete_arrived(w, q->target);
        return;
    case RMA_RECHECK:
        /* A direct window's last shared holder left while someone
         * queues: grant what is grantable now. */
        zm_rma_unlock_target(w, q->target, 0, 1);
        return;
    }
}

/* The reply to one of this process's calls (network lock held). */
static void replied(const rma_hdr_t *h)
{
    rma_call_t *c = (rma_call_t *)(uintptr_t)h->cookie;
    c->status = h->status;
    if (h->status == ZM_OK && h->bytes && c->rbuf)
        zm_dt_unpack(c->rbuf, c->rcount, c->rdt, h + 1, h->bytes);
    if (c->req) {
        zm_p2p_req_complete(c->req);
        return;
    }
    /* An operation that was on its way: count it done. */
    zm_rma_target_t *o = c->origin;
    if (h->status != ZM_OK && o->async_err == ZM_OK)
        o->async_err = h->status;
    if (--o->inflight == 0 && o->drain) {
        zm_req_t *d = o->drain;
        o->drain = NULL;
        zm_p2p_req_complete(d);
    }
    free(c);
}

static void arrive(void *pkt, void *msg, size_t bytes, int src_proc)
{
    const rma_hdr_t *h = msg;
    (void)bytes;
    if (h->kind == RMA_REPLY) {
        replied(h);
    } else {
        zm_rma_win_t *w = lookup(h->ctx);
        if (!w) {
            fprintf(stderr, "zmpi: process %d: a one-sided request from process %d names a "
                    "window this process does not have\n", zm_net_job.proc, src_proc);
            zm_net_abort(1);
        }
        serve(w, h, src_proc);
    }
    free(pkt);
}
