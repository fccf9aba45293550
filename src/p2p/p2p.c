/*
 * p2p.c: matching, eager and rendezvous protocols, completion and waiting.
 */
#include "p2p/p2p_impl.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Small eager messages use a compact cell so a flood of tiny messages does
 * not hold a large buffer each. */
#define SMALL_EAGER 256

_Static_assert(offsetof(zm_p2p_rank_t, unexp) == ZM_CACHE_LINE,
               "lock, posted queue and receive slot must share one cache line");

zm_p2p_rank_t *zm_p2p_ranks;
zm_p2p_event_fn_t zm_p2p_event_fn; /* MPI_T events (p2p.h) */

/* Whether an MPI_T event handle listens.  The hooks below test only this
 * and pass one pointer to an out-of-line reporter, so that no argument of
 * the event stays live on the message path (eight live values for an
 * inlined call cost 3-4 ns per 8-byte round trip, measured). */
#define EVENTS_ON() ZM_UNLIKELY(__atomic_load_n(&zm_p2p_event_fn, __ATOMIC_RELAXED) != NULL)

/* A send observed a receive or queued a message: the event's fields are
 * in the send request (owner, communicator, peer, tag). */
static __attribute__((noinline, cold)) void event_send(int ev, const zm_req_t *req,
                                                        size_t bytes, int how)
{
    zm_p2p_event(ev, req->owner, req->pcomm->ctx, req->pcomm->rank, req->peer, req->tag, bytes,
                 how);
}

/* A receive of `owner` took an arrived message m. */
static __attribute__((noinline, cold)) void event_taken(int owner, const zm_msg_t *m)
{
    zm_p2p_event(ZM_P2P_EV_TAKEN, owner, m->ctx, m->src, -1, m->tag, m->bytes, m->kind);
}

/* A receive took the mail of its slot: its status holds the fields. */
static __attribute__((noinline, cold)) void event_mail(const zm_p2p_rank_t *me,
                                                        const zm_req_t *req)
{
    zm_p2p_event(ZM_P2P_EV_TAKEN, me->world_rank, req->ctx, req->st_source, -1, req->st_tag,
                 req->st_bytes, ZM_MSG_MAIL);
}

static struct {
    int nranks;             /* entries in ranks */
    size_t eager_max;       /* largest eager payload (MPI_T may lower it: relaxed
                             * atomic accesses) */
    size_t eager_cap;       /* payload room of large_pool's envelopes */
    zm_pool_t *small_pool;  /* envelopes with SMALL_EAGER bytes of payload */
    zm_pool_t *large_pool;  /* envelopes with eager_max bytes of payload */
    zm_pool_t *req_pool;    /* request objects */
    int nworkers;           /* entries in zm_p2p_req_caches */
} p2p;

/* Free requests kept by each worker, in front of the pool.  Only code on
 * the worker's own thread touches its cache (the running ULT, or the
 * worker between ULTs), one at a time, so it needs no atomics.  The pool
 * costs a call, a look-up of the worker's slot and a test of who frees
 * (remote frees go through an atomic list) on every request: 47 of the 83
 * instructions a request took to get and give back in a window of
 * MPI_Isend (callgrind, bench/p2p_rate.c).  The common release is inlined
 * (p2p.h, zm_p2p_req_release).  A request freed on another
 * worker than the one it came from (a rank that moved) stays in the cache
 * of the worker that freed it; the pool sees it back only when that cache
 * overflows, and then frees it to its home worker as before.  Threads of
 * no worker (threads a rank created, an adopted single rank) use the pool
 * directly. */
zm_p2p_req_cache_t *zm_p2p_req_caches;

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

/* Give a request back to the pool, dropping the datatype it holds (the
 * API layer makes non-blocking requests hold derived types, which the user
 * may free while they run). */
static inline void req_free(zm_req_t *req)
{
    if (req->hold)
        zm_dt_release(req->hold);
    zm_p2p_req_cache_t *rc = zm_p2p_req_cache_here();
    if (ZM_LIKELY(rc != NULL) && ZM_LIKELY(zm_p2p_req_cache_put(rc, req)))
        return;
    /* A job that counts requests by rank has its caches full (req_rank.c),
     * so it always comes here: other jobs' common path never reads the
     * flag. */
    if (ZM_UNLIKELY(zm_p2p_by_rank) && zm_p2p_req_rank_free(req))
        return;
    zm_pool_free(p2p.req_pool, req);
}

zm_msg_t *zm_p2p_eager_envelope(size_t bytes)
{
    zm_pool_t *pool = bytes <= SMALL_EAGER ? p2p.small_pool : p2p.large_pool;
    zm_msg_t *m = zm_pool_alloc(pool);
    if (m) {
        m->kind = ZM_MSG_EAGER;
        m->pool = pool;
        m->data = m + 1;
    }
    return m;
}

static inline void wake_waiter(uintptr_t old)
{
    if (old > ZM_REQ_ORPHAN) {
        zm_p2p_rank_t *w = (zm_p2p_rank_t *)old;
        if (atomic_fetch_sub_explicit(&w->pending, 1, memory_order_acq_rel) == 1)
            zm_ult_wake(w->ult);
    }
}

void zm_p2p_req_complete_locked(zm_req_t *rr)
{
    uintptr_t waiter = complete_locked(rr);
    if (waiter == ZM_REQ_ORPHAN)
        req_free(rr);
    else
        wake_waiter(waiter);
}

/* Copy between two layouts on behalf of the request `req` that the copy
 * completes. */
static inline void copy_for(zm_req_t *req, void *dbuf, size_t dcount, const zm_dt_t *ddt,
                            const void *sbuf, size_t scount, const zm_dt_t *sdt, size_t n)
{
    if (coop_worth(n, ddt->contig && sdt->contig))
        zm_p2p_coop_copy(req, dbuf, dcount, ddt, sbuf, scount, sdt, n);
    else
        zm_dt_copy(dbuf, dcount, ddt, sbuf, scount, sdt, n);
}

zm_status_t zm_p2p_init(int nranks, int nworkers, size_t eager_max)
{
    p2p.nranks = nranks;
    p2p.eager_max = eager_max < SMALL_EAGER ? SMALL_EAGER : eager_max;
    p2p.eager_cap = p2p.eager_max;
    /* Indexed by world rank, but only this process's entries are ever
     * touched: calloc's fresh pages of a large block cost nothing until
     * then (a job of many processes).  Aligned by hand, one line spare. */
    /* Records for ranks spawned at run time too (zm_ult_capacity). */
    size_t cap = (size_t)(zm_ult_capacity() > nranks ? zm_ult_capacity() : nranks);
    char *block = calloc(1, sizeof(zm_p2p_rank_t) * cap + ZM_CACHE_LINE);
    zm_p2p_ranks = block ? (zm_p2p_rank_t *)(((uintptr_t)block + ZM_CACHE_LINE - 1) &
                                             ~(uintptr_t)(ZM_CACHE_LINE - 1))
                         : NULL;
    p2p.small_pool = zm_pool_create(sizeof(zm_msg_t) + SMALL_EAGER, nworkers);
    p2p.large_pool = zm_pool_create(sizeof(zm_msg_t) + p2p.eager_max, nworkers);
    p2p.req_pool = zm_pool_create(sizeof(zm_req_t), nworkers);
    p2p.nworkers = nworkers;
    zm_p2p_req_caches = aligned_alloc(ZM_CACHE_LINE, sizeof(zm_p2p_req_cache_t) * (size_t)nworkers);
    if (!zm_p2p_ranks || !p2p.small_pool || !p2p.large_pool || !p2p.req_pool ||
        !zm_p2p_req_caches)
        return ZM_ERR_NOMEM;
    memset(zm_p2p_req_caches, 0, sizeof(zm_p2p_req_cache_t) * (size_t)nworkers);
    /* Ranks move between processes: requests counted by rank (req_rank.c). */
    if (zm_core_rank_mem_on() && zm_net_job.nprocs > 1 &&
        zm_p2p_req_rank_init(cap, nworkers, p2p.req_pool) != ZM_OK)
        return ZM_ERR_NOMEM;
    zm_p2p_ring_init(nworkers);
    for (int l = 0; l < zm_net_job.nlocal; l++) {
        int i = zm_net_local_world(l);
        zm_p2p_rank_t *r = &zm_p2p_ranks[i];
        r->local = 1;
        zm_dlist_init(&r->posted);
        zm_dlist_init(&r->unexp);
        zm_dlist_init(&r->bsend_segs);
        r->ult = zm_ult_get(i);
        r->world_rank = i;
        if (zm_p2p_ring_rank_open(r) != 0)
            return ZM_ERR_NOMEM;
    }
    zm_p2p_cycle_init();
    if (zm_net_job.nprocs > 1) {
        zm_p2p_remote_init();
    } else if (getenv("ZMPI_COLL_NET") && getenv("ZMPI_COLL_NET")[0] == '1') {
        /* Collectives forced onto their message path (a test switch) finish
         * their non-blocking rounds in the network's deferred work, which
         * only a poll function runs.  It also silences the deadlock
         * detector, as in a job across processes. */
        zm_ult_set_poll(zm_net_poll);
    }
    return ZM_OK;
}

void zm_p2p_rank_open(int id)
{
    zm_p2p_rank_t *r = &zm_p2p_ranks[id];
    r->local = 1;
    zm_dlist_init(&r->posted);
    zm_dlist_init(&r->unexp);
    zm_dlist_init(&r->bsend_segs);
    r->ult = zm_ult_get(id);
    r->world_rank = id;
    /* Without its ring table (out of memory) the rank is sent to through
     * its lock only.  A rank back from another process keeps its drained
     * rings, to which senders' records may still point. */
    if (!r->rings)
        (void)zm_p2p_ring_rank_open(r);
}

size_t zm_p2p_eager_max(void)
{
    return __atomic_load_n(&p2p.eager_max, __ATOMIC_RELAXED);
}

size_t zm_p2p_eager_cap(void)
{
    return p2p.eager_cap;
}

zm_status_t zm_p2p_set_eager_max(size_t bytes)
{
    if (bytes > p2p.eager_cap)
        return ZM_ERR_ARG;
    __atomic_store_n(&p2p.eager_max, bytes, __ATOMIC_RELAXED);
    return ZM_OK;
}


long zm_p2p_requests_live(void)
{
    if (!p2p.req_pool)
        return 0;
    /* Cached requests are free: the pool counts them as in use.  The
     * caches of a job that counts by rank are empty (their counts full),
     * and its ranks keep free requests of their own. */
    long n = zm_pool_in_use(p2p.req_pool);
    for (int i = 0; i < p2p.nworkers && !zm_p2p_by_rank; i++)
        n -= zm_p2p_req_caches[i].n;
    if (zm_p2p_by_rank)
        n -= zm_p2p_req_rank_spare();
    return n;
}

zm_req_t *zm_p2p_req_alloc_slow(void)
{
    if (ZM_UNLIKELY(zm_p2p_by_rank))
        return zm_p2p_req_rank_alloc();
    zm_req_t *req = zm_pool_alloc(p2p.req_pool);
    if (req)
        zm_p2p_req_init(req);
    return req;
}

/* zm_p2p_req_release of a request that may still be pending: out of the
 * common path, which then keeps no registers to save. */
static __attribute__((noinline)) void req_release_pending(zm_req_t *req)
{
    uintptr_t expect = ZM_REQ_PENDING;
    /* A pending request cannot be freed yet: its completer may still write
     * it.  Mark it orphaned and let the completer free it.  A receive may be
     * completed under its owner's lock with a plain store, so the mark is
     * made under that lock too. */
    zm_spinlock_t *l = req->kind == ZM_REQ_RECV ? &zm_p2p_ranks[req->owner].lock : NULL;
    if (l)
        zm_spin_lock(l);
    int orphaned = atomic_compare_exchange_strong(&req->cstate, &expect, ZM_REQ_ORPHAN);
    if (l)
        zm_spin_unlock(l);
    if (!orphaned)
        req_free(req);
}

void zm_p2p_req_release_slow(zm_req_t *req)
{
    if (atomic_load_explicit(&req->cstate, memory_order_acquire) == ZM_REQ_DONE)
        req_free(req);
    else
        req_release_pending(req);
}

void zm_p2p_req_complete(zm_req_t *req)
{
    uintptr_t old = atomic_exchange_explicit(&req->cstate, ZM_REQ_DONE, memory_order_acq_rel);
    /* From here on the owner may reuse or free req: touch only `old`. */
    if (old == ZM_REQ_ORPHAN)
        req_free(req);
    else
        wake_waiter(old);
}

void zm_p2p_msg_release(zm_msg_t *m)
{
    if (m->kind == ZM_MSG_EAGER)
        zm_pool_free(m->pool, m);
    else if (m->kind == ZM_MSG_BUFFERED)
        zm_p2p_bsend_release(m);
    else if (m->kind == ZM_MSG_MAIL)
        atomic_store_explicit(&m->bowner->mail_busy, 0, memory_order_release);
    else if (m->kind == ZM_MSG_HEAP)
        zm_p2p_cycle_release(m);
    else if (m->kind == ZM_MSG_NET_EAGER)
        free(m); /* the arrived packet, envelope and data in one block */
}

/* Receiver side: move a matched unexpected message into receive rr. */
static void deliver(zm_msg_t *m, zm_req_t *rr)
{
    size_t n = recv_status(rr, m->src, m->tag, m->bytes);
    if (ZM_UNLIKELY(m->kind == ZM_MSG_NET_RNDV)) {
        zm_p2p_remote_deliver(m, rr); /* rr completes once the data is in */
        return;
    }
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
        zm_p2p_msg_release(m);
    }
    zm_p2p_req_complete(rr);
}


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
        zm_p2p_count_sent(ZM_PROTO_BUFFERED, bytes);
    } else if (bytes <= zm_p2p_eager_max() && mode != ZM_SEND_SYNC) {
        zm_pool_t *pool = bytes <= SMALL_EAGER ? p2p.small_pool : p2p.large_pool;
        m = zm_pool_alloc(pool);
        if (!m)
            return ZM_ERR_NOMEM;
        m->kind = ZM_MSG_EAGER;
        m->pool = pool;
        m->data = m + 1;
        *fill = m;
        zm_p2p_count_sent(ZM_PROTO_EAGER, bytes);
    }
    if (!*fill) {
        m = &req->msg;
        m->kind = ZM_MSG_RNDV;
        zm_p2p_count_sent(ZM_PROTO_RNDV, bytes);
        m->sbuf = buf;
        m->scount = count;
        m->sdt = dt;
    }
    /* A rendezvous completes this request; MPI_Cancel finds any message
     * from its request and checks it back through sreq (the request may
     * be complete and an eager envelope reused by then). */
    m->sreq = req;
    m->ctx = c->ctx;
    m->src = c->rank;
    m->tag = tag;
    m->bytes = bytes;
    atomic_store_explicit(&m->ready, m->kind == ZM_MSG_RNDV, memory_order_relaxed);
    unexp_push(r, &r->unexp, m);
    req->smsg = m;
    return ZM_OK;
}

/* Fill in a receive request. */
static inline void recv_prepare(zm_p2p_rank_t *me, const zm_p2p_comm_t *c, void *buf,
                                size_t count, const zm_dt_t *dt, int src, int tag,
                                zm_req_t *req)
{
    zm_p2p_req_reset(req, ZM_REQ_RECV);
    req->ctx = c->ctx;
    req->pcomm = c;
    req->peer = src;
    req->tag = tag;
    req->buf = buf;
    req->count = count;
    req->dt = dt;
    req->owner = me->world_rank;
}

/* ---- Receive slot ----------------------------------------------------
 *
 * A rank that blocks in MPI_Recv while alone on its worker polls instead of
 * parking.  Rather than a request in its posted queue, it offers the
 * receive in its slot: match pattern, capacity and buffer in the same cache
 * line as its lock.  A sender that matches it copies the payload into the
 * buffer, writes the status over the pattern and marks the slot filled, all
 * in the line it already holds for the lock; the poller reads that line and
 * the buffer's back.  The request's lines never travel, which halves a
 * cross-worker round trip.  (Putting tiny payloads into the slot line too
 * was measured slower: the filled mark then arrives before the sender has
 * armed its own slot for the reply.)
 *
 * The slot is armed only while the posted queue is empty, so it is always
 * the oldest posted receive and matching order is kept.  A matching message
 * the slot cannot take (too large, truncated) goes to the unexpected queue
 * as usual and "nudges" the slot, so the poller looks there. */

/* Sender side, with r's lock held: offer the message to r's armed slot.
 * Returns 0 if the slot did not take it, 1 if it is delivered, and 2 if
 * the caller must copy it into *copy_to after unlocking, then store
 * ZM_SLOT_FILLED: medium messages are copied outside the lock so that other
 * senders are not held up, and large ones go through the queue, where the
 * receiver's cooperative copy pays off. */
static int slot_offer(zm_p2p_rank_t *r, const zm_p2p_comm_t *c, const void *buf,
                      size_t count, const zm_dt_t *dt, size_t bytes, int tag,
                      void **copy_to)
{
    if (ZM_LIKELY(atomic_load_explicit(&r->slot_state, memory_order_relaxed) != ZM_SLOT_ARMED))
        return 0;
    if (!match(r->slot_ctx, r->slot_src, r->slot_tag, c->ctx, c->rank, tag))
        return 0;
    if (bytes > r->slot_bytes || coop_worth(bytes, dt->contig)) {
        atomic_store_explicit(&r->slot_state, ZM_SLOT_NUDGED, memory_order_relaxed);
        return 0;
    }
    r->slot_src = c->rank;
    r->slot_tag = tag;
    r->slot_bytes = (uint32_t)bytes;
    if (bytes > LOCKED_COPY_MAX) {
        *copy_to = r->slot_buf;
        atomic_store_explicit(&r->slot_state, ZM_SLOT_COPYING, memory_order_relaxed);
        return 2;
    }
    zm_dt_pack(r->slot_buf, buf, count, dt, bytes);
    atomic_store_explicit(&r->slot_state, ZM_SLOT_FILLED, memory_order_release);
    return 1;
}

int zm_p2p_slot_offer_packed(zm_p2p_rank_t *r, uint32_t ctx, int src, int tag,
                             const void *data, size_t bytes)
{
    if (atomic_load_explicit(&r->slot_state, memory_order_relaxed) != ZM_SLOT_ARMED ||
        !match(r->slot_ctx, r->slot_src, r->slot_tag, ctx, src, tag))
        return 0;
    if (bytes > r->slot_bytes) {
        atomic_store_explicit(&r->slot_state, ZM_SLOT_NUDGED, memory_order_relaxed);
        return 0;
    }
    r->slot_src = src;
    r->slot_tag = tag;
    r->slot_bytes = (uint32_t)bytes;
    memcpy(r->slot_buf, data, bytes);
    atomic_store_explicit(&r->slot_state, ZM_SLOT_FILLED, memory_order_release);
    return 1;
}

/* Sender side, with r's lock held and no posted receive matching: leave a
 * tiny message in r's slot as mail if the slot is free and nothing older
 * is queued, so the receiver finds it in the line it locks anyway.
 * Synchronous sends need a matching receive to complete, and buffered ones
 * must be checked against the attached buffer, so both take the queue. */
static int mail_offer(zm_p2p_rank_t *r, const zm_p2p_comm_t *c, const void *buf,
                      size_t count, const zm_dt_t *dt, size_t bytes, int tag, int mode,
                      zm_req_t *req)
{
    if (bytes > ZM_P2P_SLOT_INLINE || mode == ZM_SEND_SYNC || mode == ZM_SEND_BUFFERED ||
        r->unexp_nonempty ||
        atomic_load_explicit(&r->slot_state, memory_order_relaxed) != ZM_SLOT_EMPTY ||
        atomic_load_explicit(&r->mail_busy, memory_order_acquire))
        return 0;
    zm_dt_pack(r->slot_inline, buf, count, dt, bytes);
    r->slot_ctx = c->ctx;
    r->slot_src = c->rank;
    r->slot_tag = tag;
    r->slot_bytes = (uint32_t)bytes;
    /* The buffer pointer is unused while the slot holds mail: it names the
     * sending request, for MPI_Cancel (both stores go to lines the call
     * writes anyway). */
    r->slot_buf = req;
    req->smsg = &r->mail_msg;
    atomic_store_explicit(&r->slot_state, ZM_SLOT_MAIL, memory_order_relaxed);
    return 1;
}

/* Receiver side, with its own lock held: complete req from the slot's mail
 * if req matches it.  The mail is older than anything in the queue. */
static int mail_take(zm_p2p_rank_t *me, zm_req_t *req)
{
    if (ZM_LIKELY(atomic_load_explicit(&me->slot_state, memory_order_relaxed) != ZM_SLOT_MAIL))
        return 0;
    if (!match(req->ctx, req->peer, req->tag, me->slot_ctx, me->slot_src, me->slot_tag))
        return 0;
    size_t n = recv_status(req, me->slot_src, me->slot_tag, me->slot_bytes);
    zm_dt_unpack(req->buf, req->count, req->dt, me->slot_inline, n);
    atomic_store_explicit(&me->slot_state, ZM_SLOT_EMPTY, memory_order_relaxed);
    atomic_store_explicit(&req->cstate, ZM_REQ_DONE, memory_order_relaxed);
    return 1;
}

/* Receiver side, with its own lock held: move the slot's mail to the head
 * of the unexpected queue, for the calls that need a queued message
 * (probes, matched probes). */
void zm_p2p_mail_spill(zm_p2p_rank_t *me)
{
    if (ZM_LIKELY(atomic_load_explicit(&me->slot_state, memory_order_relaxed) != ZM_SLOT_MAIL))
        return;
    zm_msg_t *m = &me->mail_msg;
    m->kind = ZM_MSG_MAIL;
    m->ctx = me->slot_ctx;
    m->src = me->slot_src;
    m->tag = me->slot_tag;
    m->bytes = me->slot_bytes;
    m->data = me->mail_data;
    m->bowner = me;
    m->sreq = me->slot_buf;
    memcpy(me->mail_data, me->slot_inline, m->bytes);
    atomic_store_explicit(&m->ready, 1, memory_order_relaxed);
    atomic_store_explicit(&me->mail_busy, 1, memory_order_relaxed);
    unexp_push(me, me->unexp.next, m);
    atomic_store_explicit(&me->slot_state, ZM_SLOT_EMPTY, memory_order_relaxed);
}

/* recv_arrived once something has arrived. */
static __attribute__((noinline)) int recv_arrived_slow(zm_p2p_rank_t *me, zm_req_t *req)
{
    if (mail_take(me, req)) {
        zm_spin_unlock(&me->lock);
        if (EVENTS_ON())
            event_mail(me, req);
        return 1;
    }
    zm_msg_t *m = find_unexp(me, req->ctx, req->peer, req->tag);
    if (!m)
        return 0;
    unexp_take(me, m);
    zm_spin_unlock(&me->lock);
    if (EVENTS_ON())
        event_taken(me->world_rank, m);
    deliver(m, req);
    return 1;
}

/* Receiver side, with its own lock held: complete req from a message that
 * has already arrived (the slot's mail, then the unexpected queue).
 * Returns 1 with the lock released if one matched, 0 with it still held.
 * The test for nothing arrived, the rule in a window of pre-posted
 * receives, is inlined (a call and the search cost ~20 instructions per
 * MPI_Irecv). */
static inline int recv_arrived(zm_p2p_rank_t *me, zm_req_t *req)
{
    if (ZM_LIKELY(atomic_load_explicit(&me->slot_state, memory_order_relaxed) != ZM_SLOT_MAIL) &&
        zm_dlist_empty(&me->unexp))
        return 0;
    return recv_arrived_slow(me, req);
}

/* Receiver side, with its own lock held: queue req as a posted receive and
 * release the lock. */
static void recv_post(zm_p2p_rank_t *me, zm_req_t *req)
{
    req->in_posted = 1;
    zm_dlist_push(&me->posted, &req->link);
    zm_spin_unlock(&me->lock);
}

/* Receiver side: the slot was filled; complete req from it. */
static void slot_take(zm_p2p_rank_t *me, zm_req_t *req)
{
    size_t bytes = me->slot_bytes;
    req->st_source = me->slot_src;
    req->st_tag = me->slot_tag;
    req->st_bytes = bytes;
    req->st_error = ZM_OK;
    /* Senders only act on an armed slot, so no lock is needed to empty it. */
    atomic_store_explicit(&me->slot_state, ZM_SLOT_EMPTY, memory_order_relaxed);
    atomic_store_explicit(&req->cstate, ZM_REQ_DONE, memory_order_relaxed);
}

/* Poll the armed slot; returns ZM_SLOT_FILLED or ZM_SLOT_NUDGED, or
 * ZM_SLOT_ARMED when polling should stop (the slot may then be COPYING). */
static uint8_t slot_poll(zm_p2p_rank_t *me)
{
    for (int i = 0; i < ZM_P2P_WAIT_SPINS && zm_ult_alone(); i++) {
        uint8_t st = atomic_load_explicit(&me->slot_state, memory_order_acquire);
        if (st == ZM_SLOT_FILLED || st == ZM_SLOT_NUDGED)
            return st;
        /* A sender left the message in a ring instead (ring.c): looked
         * at now and then only, this loop's length is a ping-pong's
         * latency. */
        if (ZM_UNLIKELY(i % 64 == 63) &&
            atomic_load_explicit(&me->ring_used, memory_order_relaxed) && zm_p2p_ring_ready(me))
            return ZM_SLOT_ARMED;
        if (ZM_UNLIKELY(zm_net_remote != NULL))
            zm_net_poll(); /* the sender may be in another process */
        if (i > 256)
            zm_arch_cpu_relax();
    }
    return ZM_SLOT_ARMED;
}

/* Arm the slot for req, poll it, and fall back to the posted queue. */
static void recv_slot(zm_p2p_rank_t *me, zm_req_t *req)
{
    me->slot_ctx = req->ctx;
    me->slot_src = req->peer;
    me->slot_tag = req->tag;
    size_t cap = zm_dt_bytes(req->dt, req->count);
    me->slot_bytes = cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
    me->slot_buf = req->buf;
    atomic_store_explicit(&me->slot_state, ZM_SLOT_ARMED, memory_order_relaxed);
    zm_spin_unlock(&me->lock);
    if (slot_poll(me) == ZM_SLOT_FILLED) {
        slot_take(me, req);
        return;
    }
    zm_spin_lock(&me->lock);
    uint8_t st = atomic_load_explicit(&me->slot_state, memory_order_relaxed);
    if (st == ZM_SLOT_FILLED || st == ZM_SLOT_COPYING) {
        zm_spin_unlock(&me->lock);
        /* A sender is copying into the buffer right now: wait for it. */
        while (atomic_load_explicit(&me->slot_state, memory_order_acquire) != ZM_SLOT_FILLED)
            zm_arch_cpu_relax();
        slot_take(me, req);
        return;
    }
    atomic_store_explicit(&me->slot_state, ZM_SLOT_EMPTY, memory_order_relaxed);
    if (!recv_arrived(me, req)) {
        /* A sender that saw this rank announce rings (ring.c) left it there. */
        if (zm_p2p_ring_drain_into(me, req))
            zm_spin_unlock(&me->lock);
        else
            recv_post(me, req);
    }
    zm_p2p_wait(&req, 1, 1);
}

void zm_p2p_recv(const zm_p2p_comm_t *c, void *buf, size_t count,
                 const zm_dt_t *dt, int src, int tag, zm_req_t *req)
{
    zm_p2p_rank_t *me = zm_p2p_self();
    recv_prepare(me, c, buf, count, dt, src, tag, req);
    zm_spin_lock(&me->lock);
    if (recv_arrived(me, req)) {
        /* A rendezvous from another process is still on its way. */
        if (ZM_UNLIKELY(!zm_p2p_req_done(req)))
            zm_p2p_wait(&req, 1, 1);
        return;
    }
    if (zm_p2p_ring_drain_into(me, req)) {
        zm_spin_unlock(&me->lock);
        return;
    }
    if (dt->contig && zm_dlist_empty(&me->posted) && zm_ult_alone() &&
        atomic_load_explicit(&me->slot_state, memory_order_relaxed) == ZM_SLOT_EMPTY) {
        recv_slot(me, req);
        return;
    }
    recv_post(me, req);
    zm_p2p_wait(&req, 1, 1);
}

/* Expected send: one copy straight into the matched receive rr, which has
 * been found under r's lock; returns with the lock released. */
static void send_expected(zm_p2p_rank_t *r, zm_req_t *rr, const zm_p2p_comm_t *c,
                          const void *buf, size_t count, const zm_dt_t *dt,
                          size_t bytes, int tag)
{
    zm_dlist_unlink(&rr->link);
    rr->in_posted = 0;
    size_t n = recv_status(rr, c->rank, tag, bytes);
    if (n <= LOCKED_COPY_MAX) {
        zm_dt_copy(rr->buf, rr->count, rr->dt, buf, count, dt, n);
        uintptr_t waiter = complete_locked(rr);
        zm_spin_unlock(&r->lock);
        if (waiter == ZM_REQ_ORPHAN)
            req_free(rr);
        else
            wake_waiter(waiter);
    } else {
        zm_spin_unlock(&r->lock);
        copy_for(rr, rr->buf, rr->count, rr->dt, buf, count, dt, n);
        zm_p2p_req_complete(rr);
    }
}

/* After a rendezvous-sized message was copied straight into a posted
 * receive of a rank on the sender's own worker, let that rank run first.
 * Without this the receiver, woken into our run queue, waits until the
 * sender blocks, however long the sender computes meanwhile: a 2-rank
 * ping-pong on one worker charged the sender's work after its last send
 * (checking 8 MB of buffers) to the receiver's last round trip, several
 * milliseconds.  Process-based MPIs give each rank its own core, so the
 * receiver would have gone on at once there.  Eager-sized messages do not
 * hand off: the receiver's reply would then find no posted receive and
 * take the two-copy eager path. */
static inline void handoff(const zm_p2p_rank_t *r, size_t bytes)
{
    if (ZM_LIKELY(bytes <= zm_p2p_eager_max()))
        return;
    const zm_p2p_rank_t *me = zm_p2p_self();
    if (r != me && r->ult->worker == me->ult->worker)
        zm_ult_yield();
}

/* Make req a send of communicator c to comm rank dest (world rank wdest)
 * with tag and mode (its flags left out). */
static inline void send_req_fill(zm_req_t *req, const zm_p2p_comm_t *c, int wdest, int dest,
                                 int tag, int mode)
{
    zm_p2p_req_reset(req, ZM_REQ_SEND);
    req->owner = wdest;
    req->pcomm = c;
    req->peer = dest;
    req->tag = tag;
    req->mode = (uint8_t)(mode & ~ZM_SEND_LEND);
}

zm_status_t zm_p2p_isend(const zm_p2p_comm_t *c, const void *buf, size_t count,
                         const zm_dt_t *dt, int dest, int tag, int mode, zm_req_t *req)
{
    int wdest = c->world ? c->world[dest] : dest;
    zm_p2p_rank_t *r = &zm_p2p_ranks[wdest];

    send_req_fill(req, c, wdest, dest, tag, mode);
    /* A receiver polling in a wait matches small messages itself, from
     * the ring of the sender's worker (ring.c).  Only local ranks set
     * ring_poll, and its line is not the lock's, which the receiver
     * writes meanwhile: checked first.  Both ways on are calls with this
     * function's arguments, which the compiler makes jumps: this frame,
     * and the eight arguments set up again, cost some 40 instructions of
     * a ring send's ~200. */
    if (ZM_UNLIKELY(atomic_load_explicit(&r->ring_poll, memory_order_relaxed)) &&
        (zm_dt_bytes(dt, count) <= ZM_P2P_RING_MAX || mode == (ZM_SEND_STD | ZM_SEND_LEND)) &&
        (req->mode == ZM_SEND_STD || req->mode == ZM_SEND_READY) && !EVENTS_ON())
        return zm_p2p_ring_isend(c, buf, count, dt, dest, tag, mode, req);
    return zm_p2p_isend_locked(c, buf, count, dt, dest, tag, req->mode, req);
}

zm_status_t zm_p2p_isend_batch(const zm_p2p_comm_t *c, const void *buf, size_t count,
                               const zm_dt_t *dt, int dest, int tag, zm_req_t *req)
{
    int wdest = c->world ? c->world[dest] : dest;
    if (zm_p2p_ranks[wdest].local)
        return zm_p2p_isend(c, buf, count, dt, dest, tag, ZM_SEND_STD, req);
    send_req_fill(req, c, wdest, dest, tag, ZM_SEND_STD);
    return zm_p2p_remote_isend(c, buf, count, dt, wdest, tag, ZM_SEND_STD | ZM_SEND_BATCH, req);
}

zm_status_t zm_p2p_isend_locked(const zm_p2p_comm_t *c, const void *buf, size_t count,
                                const zm_dt_t *dt, int dest, int tag, int mode, zm_req_t *req)
{
    int wdest = req->owner; /* dest translated (zm_p2p_isend) */
    zm_p2p_rank_t *r = &zm_p2p_ranks[wdest];
    size_t bytes = zm_dt_bytes(dt, count);
    zm_msg_t *fill;
    (void)dest;
    zm_req_t *probes = NULL;
    zm_status_t rc;

    /* r->local, not zm_net_is_remote: the line is the one locked next. */
    if (ZM_UNLIKELY(!r->local))
        return zm_p2p_remote_isend(c, buf, count, dt, wdest, tag, mode, req);
    zm_spin_lock(&r->lock);
    zm_p2p_ring_drain_sender(r);
    void *copy_to;
    int taken = slot_offer(r, c, buf, count, dt, bytes, tag, &copy_to);
    if (taken) {
        zm_spin_unlock(&r->lock);
        if (taken == 2) {
            zm_dt_pack(copy_to, buf, count, dt, bytes);
            atomic_store_explicit(&r->slot_state, ZM_SLOT_FILLED, memory_order_release);
        }
        atomic_store_explicit(&req->cstate, ZM_REQ_DONE, memory_order_relaxed);
        zm_p2p_count_sent(ZM_PROTO_SLOT, bytes);
        if (EVENTS_ON())
            event_send(ZM_P2P_EV_MATCHED, req, bytes, ZM_PROTO_SLOT);
        return ZM_OK;
    }
    zm_req_t *rr = find_posted(r, c->ctx, c->rank, tag, &probes);
    if (rr) {
        send_expected(r, rr, c, buf, count, dt, bytes, tag);
        wake_probes(probes);
        atomic_store_explicit(&req->cstate, ZM_REQ_DONE, memory_order_relaxed);
        zm_p2p_count_sent(ZM_PROTO_DIRECT, bytes);
        if (EVENTS_ON())
            event_send(ZM_P2P_EV_MATCHED, req, bytes, ZM_PROTO_DIRECT);
        handoff(r, bytes);
        return ZM_OK;
    }
    if (!probes && mail_offer(r, c, buf, count, dt, bytes, tag, mode, req)) {
        zm_spin_unlock(&r->lock);
        atomic_store_explicit(&req->cstate, ZM_REQ_DONE, memory_order_relaxed);
        zm_p2p_count_sent(ZM_PROTO_MAIL, bytes);
        if (EVENTS_ON())
            event_send(ZM_P2P_EV_QUEUED, req, bytes, ZM_PROTO_MAIL);
        return ZM_OK;
    }
    rc = queue_unexpected(r, c, buf, count, dt, bytes, tag, mode, req, &fill);
    zm_spin_unlock(&r->lock);
    wake_probes(probes);
    if (rc != ZM_OK)
        return rc;
    if (EVENTS_ON())
        event_send(ZM_P2P_EV_QUEUED, req, bytes,
                   mode == ZM_SEND_BUFFERED ? ZM_PROTO_BUFFERED
                   : fill                   ? ZM_PROTO_EAGER : ZM_PROTO_RNDV);
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
    recv_prepare(me, c, buf, count, dt, src, tag, req);
    zm_p2p_ring_count_recv(me);
    zm_spin_lock(&me->lock);
    if (recv_arrived(me, req))
        return;
    /* Behind another posted receive, this one is posted without a look
     * at the rings: what they hold counts as arriving just after it
     * (each sender's entries still match in order, and receives in the
     * order posted), and the rank's next test or wait drains them in
     * one go, several to a line, instead of one line per receive while
     * the sender is still writing it (p2p_rate on two workers, median
     * of 6 rounds: 8 B 24.9 -> 28.3 M msgs/s, 64 B 16.2 -> 17.8). */
    if (zm_dlist_empty(&me->posted) && zm_p2p_ring_drain_into(me, req)) {
        zm_spin_unlock(&me->lock);
        return;
    }
    recv_post(me, req);
    /* The rank will test or wait for this receive: senders on other
     * workers may leave small messages in rings meanwhile, if it mostly
     * receives (ring.c).  Only a change of that is worth a call; a rank
     * that shares its worker with ready ones keeps its rings off, so
     * the call is skipped then too (a receiving rank of a crowded worker
     * made it on every receive). */
    uint8_t on = atomic_load_explicit(&me->ring_poll, memory_order_relaxed);
    if (ZM_UNLIKELY(me->ring_want != on) && (on || zm_ult_alone()))
        zm_p2p_ring_announce();
}

void zm_p2p_mrecv(zm_msg_t *m, void *buf, size_t count, const zm_dt_t *dt, zm_req_t *req)
{
    zm_p2p_req_reset(req, ZM_REQ_RECV);
    req->buf = buf;
    req->count = count;
    req->dt = dt;
    req->owner = zm_p2p_self()->world_rank;
    if (EVENTS_ON())
        event_taken(req->owner, m);
    deliver(m, req);
    /* A blocking MPI_Mrecv (its request is not pooled) of a rendezvous
     * from another process waits for the data here. */
    if (ZM_UNLIKELY(!req->pooled && !zm_p2p_req_done(req)))
        zm_p2p_wait(&req, 1, 1);
}
