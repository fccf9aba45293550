/*
 * p2p.c: matching, eager and rendezvous protocols, completion and waiting.
 */
#include "p2p/p2p.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Small eager messages use a compact cell so a flood of tiny messages does
 * not hold a large buffer each. */
#define SMALL_EAGER 256

zm_p2p_rank_t *zm_p2p_ranks;

static struct {
    int nranks;             /* entries in ranks */
    size_t eager_max;       /* largest eager payload */
    zm_pool_t *small_pool;  /* envelopes with SMALL_EAGER bytes of payload */
    zm_pool_t *large_pool;  /* envelopes with eager_max bytes of payload */
    zm_pool_t *req_pool;    /* request objects */
} p2p;

/* Small expected messages are copied while the receiver's lock is held, so
 * the receive can be completed with a plain store instead of an atomic
 * exchange: an exchange would first wait for the data's cache-line
 * transfer to drain from the store buffer, then transfer the request's
 * line, one after the other.  Waiters register on receive requests under
 * the same lock (wait.c), which is what makes the plain store safe. */
#define LOCKED_COPY_MAX 4096

/* Complete a receive request while holding its owner's lock.  Returns the
 * waiter to wake (or 0) once the lock is released. */
static inline uintptr_t complete_locked(zm_req_t *rr)
{
    uintptr_t old = atomic_load_explicit(&rr->cstate, memory_order_relaxed);
    atomic_store_explicit(&rr->cstate, ZM_REQ_DONE, memory_order_release);
    return old;
}

static inline void wake_waiter(uintptr_t old)
{
    if (old > ZM_REQ_ORPHAN) {
        zm_p2p_rank_t *w = (zm_p2p_rank_t *)old;
        if (atomic_fetch_sub_explicit(&w->pending, 1, memory_order_acq_rel) == 1)
            zm_ult_wake(w->ult);
    }
}

/* Copies of at least COOP_MIN contiguous bytes are split into COOP_CHUNK
 * pieces that the completer and the waiter take in turn: on two cores the
 * copy runs at the bandwidth of both.  Smaller copies are not worth the
 * extra cache-line traffic on the counters. */
#define COOP_MIN (96 * 1024)
#define COOP_CHUNK (32 * 1024)

/* Take and copy chunks of `req`'s cooperative copy until none is left.
 * Either side may call it; the caller holds a reference to req. */
static void coop_take(zm_req_t *req)
{
    size_t bytes = req->coop.bytes;
    for (;;) {
        size_t c = atomic_fetch_add_explicit(&req->coop.next, 1, memory_order_relaxed);
        size_t off = c * COOP_CHUNK;
        if (off >= bytes)
            return;
        size_t len = bytes - off < COOP_CHUNK ? bytes - off : COOP_CHUNK;
        memcpy(req->coop.dst + off, req->coop.src + off, len);
        atomic_fetch_add_explicit(&req->coop.done, len, memory_order_release);
    }
}

void zm_p2p_coop_help(zm_req_t *req)
{
    if (atomic_load_explicit(&req->coop.active, memory_order_acquire))
        coop_take(req);
}

/* Copy `n` bytes into the buffer of `req` (or out of it) before completing
 * it, letting req's waiter help.  The waiter owns req and only touches its
 * coop fields, which outlive the copy, so no lifetime race exists; the
 * completer waits for every taken chunk before it completes req. */
static void coop_copy(zm_req_t *req, void *dst, const void *src, size_t n)
{
    req->coop.dst = dst;
    req->coop.src = src;
    req->coop.bytes = n;
    atomic_store_explicit(&req->coop.next, 0, memory_order_relaxed);
    atomic_store_explicit(&req->coop.done, 0, memory_order_relaxed);
    atomic_store_explicit(&req->coop.active, 1, memory_order_release);
    coop_take(req);
    atomic_store_explicit(&req->coop.active, 0, memory_order_relaxed);
    while (atomic_load_explicit(&req->coop.done, memory_order_acquire) < n)
        zm_arch_cpu_relax();
}

/* Copy between two layouts on behalf of the request `req` that the copy
 * completes. */
static inline void copy_for(zm_req_t *req, void *dbuf, size_t dcount, const zm_dt_t *ddt,
                            const void *sbuf, size_t scount, const zm_dt_t *sdt, size_t n)
{
    if (n >= COOP_MIN && ddt->contig && sdt->contig)
        coop_copy(req, dbuf, sbuf, n);
    else
        zm_dt_copy(dbuf, dcount, ddt, sbuf, scount, sdt, n);
}

zm_status_t zm_p2p_init(int nranks, int nworkers, size_t eager_max)
{
    p2p.nranks = nranks;
    p2p.eager_max = eager_max < SMALL_EAGER ? SMALL_EAGER : eager_max;
    zm_p2p_ranks = aligned_alloc(ZM_CACHE_LINE, sizeof(zm_p2p_rank_t) * (size_t)nranks);
    p2p.small_pool = zm_pool_create(sizeof(zm_msg_t) + SMALL_EAGER, nworkers);
    p2p.large_pool = zm_pool_create(sizeof(zm_msg_t) + p2p.eager_max, nworkers);
    p2p.req_pool = zm_pool_create(sizeof(zm_req_t), nworkers);
    if (!zm_p2p_ranks || !p2p.small_pool || !p2p.large_pool || !p2p.req_pool)
        return ZM_ERR_NOMEM;
    memset(zm_p2p_ranks, 0, sizeof(zm_p2p_rank_t) * (size_t)nranks);
    for (int i = 0; i < nranks; i++) {
        zm_p2p_rank_t *r = &zm_p2p_ranks[i];
        zm_dlist_init(&r->posted);
        zm_dlist_init(&r->unexp);
        zm_dlist_init(&r->bsend_segs);
        r->ult = zm_ult_get(i);
        r->world_rank = i;
    }
    return ZM_OK;
}


zm_req_t *zm_p2p_req_alloc(void)
{
    zm_req_t *req = zm_pool_alloc(p2p.req_pool);
    if (req) {
        memset(req, 0, sizeof(*req));
        req->pooled = 1;
    }
    return req;
}

void zm_p2p_req_release(zm_req_t *req)
{
    uintptr_t expect = ZM_REQ_PENDING;
    int orphaned;
    if (!req->pooled)
        return;
    /* A pending request cannot be freed yet: its completer may still write
     * it.  Mark it orphaned and let the completer free it.  A receive may be
     * completed under its owner's lock with a plain store, so the mark is
     * made under that lock too. */
    zm_spinlock_t *l = req->kind == ZM_REQ_RECV ? &zm_p2p_ranks[req->owner].lock : NULL;
    if (l)
        zm_spin_lock(l);
    orphaned = atomic_compare_exchange_strong(&req->cstate, &expect, ZM_REQ_ORPHAN);
    if (l)
        zm_spin_unlock(l);
    if (!orphaned)
        zm_pool_free(p2p.req_pool, req);
}

void zm_p2p_req_complete(zm_req_t *req)
{
    uintptr_t old = atomic_exchange_explicit(&req->cstate, ZM_REQ_DONE, memory_order_acq_rel);
    /* From here on the owner may reuse or free req: touch only `old`. */
    if (old == ZM_REQ_ORPHAN)
        zm_pool_free(p2p.req_pool, req);
    else
        wake_waiter(old);
}

static inline int match(uint32_t ctx, int src, int tag, uint32_t mctx, int msrc, int mtag)
{
    return ctx == mctx && (src == ZM_ANY_SOURCE || src == msrc) &&
           (tag == ZM_ANY_TAG || tag == mtag);
}

/* First posted receive of `r` that matches an incoming message.  Blocked
 * probes that match on the way are taken out and chained on *probes, to be
 * woken once the message is queued. */
static zm_req_t *find_posted(zm_p2p_rank_t *r, uint32_t ctx, int src, int tag,
                             zm_req_t **probes)
{
    zm_dlink_t *pos, *next;
    for (pos = r->posted.next; pos != &r->posted; pos = next) {
        zm_req_t *q = zm_container_of(pos, zm_req_t, link);
        next = pos->next;
        if (!match(q->ctx, q->peer, q->tag, ctx, src, tag))
            continue;
        if (ZM_LIKELY(q->kind != ZM_REQ_PROBE))
            return q;
        zm_dlist_unlink(&q->link);
        q->in_posted = 0;
        q->msg.sreq = *probes;
        *probes = q;
    }
    return NULL;
}

static void wake_probes(zm_req_t *p)
{
    while (p) {
        zm_req_t *next = p->msg.sreq;
        zm_p2p_req_complete(p);
        p = next;
    }
}

/* First unexpected message of `r` that a receive (src, tag) matches. */
static zm_msg_t *find_unexp(zm_p2p_rank_t *r, uint32_t ctx, int src, int tag)
{
    zm_dlink_t *pos;
    zm_dlist_for_each(pos, &r->unexp) {
        zm_msg_t *m = zm_container_of(pos, zm_msg_t, link);
        if (match(ctx, src, tag, m->ctx, m->src, m->tag))
            return m;
    }
    return NULL;
}

/* Fill a receive's status for `bytes` arriving; returns bytes that fit. */
static size_t recv_status(zm_req_t *rr, int src, int tag, size_t bytes)
{
    size_t cap = zm_dt_bytes(rr->dt, rr->count);
    rr->st_source = src;
    rr->st_tag = tag;
    rr->st_error = ZM_OK;
    if (bytes > cap) {
        rr->st_error = ZM_ERR_TRUNCATE;
        rr->st_bytes = bytes; /* reported to the user as the arrived size */
        return cap;
    }
    rr->st_bytes = bytes;
    return bytes;
}

void zm_p2p_bsend_release(zm_msg_t *m);

static void msg_release(zm_msg_t *m)
{
    if (m->kind == ZM_MSG_EAGER)
        zm_pool_free(m->pool, m);
    else if (m->kind == ZM_MSG_BUFFERED)
        zm_p2p_bsend_release(m);
}

/* Receiver side: move a matched unexpected message into receive rr. */
static void deliver(zm_msg_t *m, zm_req_t *rr)
{
    size_t n = recv_status(rr, m->src, m->tag, m->bytes);
    if (m->kind == ZM_MSG_RNDV) {
        zm_req_t *sr = m->sreq;
        copy_for(sr, rr->buf, rr->count, rr->dt, m->sbuf, m->scount, m->sdt, n);
        sr->st_error = ZM_OK;
        zm_p2p_req_complete(sr); /* m lives inside sr: not used after this */
    } else {
        /* The sender queues eager envelopes before filling them, so its
         * lock hold stays short; wait for the fill to finish. */
        while (!atomic_load_explicit(&m->ready, memory_order_acquire))
            zm_arch_cpu_relax();
        zm_dt_unpack(rr->buf, rr->count, rr->dt, m->data, n);
        msg_release(m);
    }
    zm_p2p_req_complete(rr);
}

zm_status_t zm_p2p_bsend_reserve(zm_p2p_rank_t *me, size_t bytes, zm_msg_t **out);

/* Queue an unexpected envelope for a send that found no posted receive.
 * Called with the receiver's lock held; returns the envelope to fill (NULL
 * for rendezvous, which needs no fill). */
static zm_status_t queue_unexpected(zm_p2p_rank_t *r, const zm_p2p_comm_t *c,
                                    const void *buf, size_t count, const zm_dt_t *dt,
                                    size_t bytes, int tag, int mode, zm_req_t *req,
                                    zm_msg_t **fill)
{
    zm_msg_t *m;
    *fill = NULL;
    if (mode == ZM_SEND_BUFFERED) {
        zm_status_t rc = zm_p2p_bsend_reserve(zm_p2p_self(), bytes, &m);
        if (rc != ZM_OK)
            return rc;
        m->kind = ZM_MSG_BUFFERED;
        *fill = m;
    } else if (bytes <= p2p.eager_max && mode != ZM_SEND_SYNC) {
        zm_pool_t *pool = bytes <= SMALL_EAGER ? p2p.small_pool : p2p.large_pool;
        m = zm_pool_alloc(pool);
        if (!m)
            return ZM_ERR_NOMEM;
        m->kind = ZM_MSG_EAGER;
        m->pool = pool;
        m->data = m + 1;
        *fill = m;
    } else {
        m = &req->msg;
        m->kind = ZM_MSG_RNDV;
        m->sbuf = buf;
        m->scount = count;
        m->sdt = dt;
        m->sreq = req;
    }
    m->ctx = c->ctx;
    m->src = c->rank;
    m->tag = tag;
    m->bytes = bytes;
    atomic_store_explicit(&m->ready, m->kind == ZM_MSG_RNDV, memory_order_relaxed);
    zm_dlist_push(&r->unexp, &m->link);
    return ZM_OK;
}

zm_status_t zm_p2p_isend(const zm_p2p_comm_t *c, const void *buf, size_t count,
                         const zm_dt_t *dt, int dest, int tag, int mode, zm_req_t *req)
{
    int wdest = c->world ? c->world[dest] : dest;
    zm_p2p_rank_t *r = &zm_p2p_ranks[wdest];
    size_t bytes = zm_dt_bytes(dt, count);
    zm_msg_t *fill;
    zm_req_t *probes = NULL;
    zm_status_t rc;

    zm_p2p_req_reset(req, ZM_REQ_SEND);
    req->owner = wdest;
    req->pcomm = c;
    req->peer = dest;
    req->tag = tag;
    req->mode = (uint8_t)mode;
    zm_spin_lock(&r->lock);
    zm_req_t *rr = find_posted(r, c->ctx, c->rank, tag, &probes);
    if (rr) {
        /* Expected: one copy straight into the receive buffer. */
        zm_dlist_unlink(&rr->link);
        rr->in_posted = 0;
        size_t n = recv_status(rr, c->rank, tag, bytes);
        if (n <= LOCKED_COPY_MAX) {
            zm_dt_copy(rr->buf, rr->count, rr->dt, buf, count, dt, n);
            uintptr_t waiter = complete_locked(rr);
            zm_spin_unlock(&r->lock);
            if (waiter == ZM_REQ_ORPHAN)
                zm_pool_free(p2p.req_pool, rr);
            else
                wake_waiter(waiter);
        } else {
            zm_spin_unlock(&r->lock);
            copy_for(rr, rr->buf, rr->count, rr->dt, buf, count, dt, n);
            zm_p2p_req_complete(rr);
        }
        wake_probes(probes);
        atomic_store_explicit(&req->cstate, ZM_REQ_DONE, memory_order_relaxed);
        return ZM_OK;
    }
    rc = queue_unexpected(r, c, buf, count, dt, bytes, tag, mode, req, &fill);
    zm_spin_unlock(&r->lock);
    wake_probes(probes);
    if (rc != ZM_OK)
        return rc;
    if (fill) {
        zm_dt_pack(fill->data, buf, count, dt, bytes);
        atomic_store_explicit(&fill->ready, 1, memory_order_release);
        zm_p2p_req_complete(req);
    }
    return ZM_OK;
}

void zm_p2p_irecv(const zm_p2p_comm_t *c, void *buf, size_t count,
                  const zm_dt_t *dt, int src, int tag, zm_req_t *req)
{
    zm_p2p_rank_t *me = zm_p2p_self();
    zm_p2p_req_reset(req, ZM_REQ_RECV);
    req->ctx = c->ctx;
    req->pcomm = c;
    req->peer = src;
    req->tag = tag;
    req->buf = buf;
    req->count = count;
    req->dt = dt;
    req->owner = me->world_rank;
    zm_spin_lock(&me->lock);
    zm_msg_t *m = find_unexp(me, c->ctx, src, tag);
    if (m) {
        zm_dlist_remove(&m->link);
        zm_spin_unlock(&me->lock);
        deliver(m, req);
        return;
    }
    req->in_posted = 1;
    zm_dlist_push(&me->posted, &req->link);
    zm_spin_unlock(&me->lock);
}

zm_msg_t *zm_p2p_probe(const zm_p2p_comm_t *c, int src, int tag, int take)
{
    zm_p2p_rank_t *me = zm_p2p_self();
    zm_spin_lock(&me->lock);
    zm_msg_t *m = find_unexp(me, c->ctx, src, tag);
    if (m && take)
        zm_dlist_remove(&m->link);
    zm_spin_unlock(&me->lock);
    return m;
}

zm_msg_t *zm_p2p_probe_wait(const zm_p2p_comm_t *c, int src, int tag, int take)
{
    zm_p2p_rank_t *me = zm_p2p_self();
    for (;;) {
        zm_req_t pr, *prp = &pr;
        zm_spin_lock(&me->lock);
        zm_msg_t *m = find_unexp(me, c->ctx, src, tag);
        if (m) {
            if (take)
                zm_dlist_remove(&m->link);
            zm_spin_unlock(&me->lock);
            return m;
        }
        /* Sit in the posted queue as a probe: a matching sender wakes us
         * after queueing its message, and we look again. */
        zm_p2p_req_reset(&pr, ZM_REQ_PROBE);
        pr.pooled = 0;
        pr.ctx = c->ctx;
        pr.pcomm = c;
        pr.peer = src;
        pr.tag = tag;
        pr.owner = me->world_rank;
        pr.in_posted = 1;
        zm_dlist_push(&me->posted, &pr.link);
        zm_spin_unlock(&me->lock);
        zm_p2p_wait(&prp, 1, 1);
    }
}

void zm_p2p_mrecv(zm_msg_t *m, void *buf, size_t count, const zm_dt_t *dt, zm_req_t *req)
{
    zm_p2p_req_reset(req, ZM_REQ_RECV);
    req->buf = buf;
    req->count = count;
    req->dt = dt;
    req->owner = zm_p2p_self()->world_rank;
    deliver(m, req);
}

int zm_p2p_cancel(zm_req_t *req)
{
    int done = 0;
    if (req->kind == ZM_REQ_RECV) {
        zm_p2p_rank_t *me = &zm_p2p_ranks[req->owner];
        zm_spin_lock(&me->lock);
        if (req->in_posted) {
            zm_dlist_remove(&req->link);
            req->in_posted = 0;
            done = 1;
        }
        zm_spin_unlock(&me->lock);
    } else if (req->kind == ZM_REQ_SEND && !zm_p2p_req_done(req) &&
               req->msg.kind == ZM_MSG_RNDV && req->msg.sreq == req) {
        zm_p2p_rank_t *r = &zm_p2p_ranks[req->owner];
        zm_spin_lock(&r->lock);
        /* Still unmatched if no receiver has completed it. */
        if (!zm_p2p_req_done(req) && req->msg.link.next != &req->msg.link) {
            zm_dlist_remove(&req->msg.link);
            done = 1;
        }
        zm_spin_unlock(&r->lock);
    }
    if (done) {
        req->cancelled = 1;
        req->st_bytes = 0;
        zm_p2p_req_complete(req);
    }
    return done;
}
