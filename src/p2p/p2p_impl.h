/*
 * p2p_impl.h: matching helpers shared by the files of the p2p layer: the
 * local protocols (p2p.c) and the injection of messages that arrive from
 * other processes (remote.c), which must match exactly as a local send
 * does.
 */
#ifndef ZM_P2P_IMPL_H
#define ZM_P2P_IMPL_H

#include "p2p/p2p.h"

/* ---- Requests by rank (req_rank.c) ----
 * zm_p2p_by_rank: nonzero in a job that counts requests by rank (a
 * --checkpoint job of several processes; set once at start).
 * zm_p2p_req_rank_init: turn it on; the worker caches are emptied for good.
 * Main thread, at start.
 * zm_p2p_req_rank_alloc: zm_p2p_req_alloc_slow of such a job (the
 * caller's rank's own free requests, else the pool), counted for the
 * calling rank.  Any thread; the caller owns the request.
 * zm_p2p_req_rank_free: count req, being freed, off its holder; 1 if it
 * went onto the caller's own free list (the caller is its holder), 0 if
 * the caller is still to free it.  Any thread.
 * zm_p2p_req_rank_spare: the requests on the ranks' free lists (in use
 * for the pool).  While every rank waits in one call. */
extern int zm_p2p_by_rank __attribute__((visibility("hidden")));
zm_status_t zm_p2p_req_rank_init(size_t cap, int nworkers, zm_pool_t *pool);
zm_req_t *zm_p2p_req_rank_alloc(void);
int zm_p2p_req_rank_free(zm_req_t *req);
long zm_p2p_req_rank_spare(void);

static inline int match(uint32_t ctx, int src, int tag, uint32_t mctx, int msrc, int mtag)
{
    return ctx == mctx && (src == ZM_ANY_SOURCE || src == msrc) &&
           (tag == ZM_ANY_TAG || tag == mtag);
}

/* First posted receive of `r` that matches an incoming message.  Blocked
 * probes that match on the way are taken out and chained on *probes, to be
 * woken once the message is queued. */
static inline zm_req_t *find_posted(zm_p2p_rank_t *r, uint32_t ctx, int src, int tag,
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

static inline void wake_probes(zm_req_t *p)
{
    while (p) {
        zm_req_t *next = p->msg.sreq;
        zm_p2p_req_complete(p);
        p = next;
    }
}

/* The unexpected queue changes only through these two, which keep
 * unexp_nonempty (in the rank's first cache line, where senders look)
 * in step with it.  Callers hold r's lock. */
static inline void unexp_push(zm_p2p_rank_t *r, zm_dlink_t *before, zm_msg_t *m)
{
    zm_dlist_push(before, &m->link);
    r->unexp_nonempty = 1;
    /* The queue head's line is written just above: counting is free. */
    if (++r->unexp_len > r->unexp_hwm)
        r->unexp_hwm = r->unexp_len;
}

static inline void unexp_take(zm_p2p_rank_t *r, zm_msg_t *m)
{
    zm_dlist_remove(&m->link);
    r->unexp_nonempty = !zm_dlist_empty(&r->unexp);
    r->unexp_len--;
}

/* First unexpected message of `r` that a receive (src, tag) matches. */
static inline zm_msg_t *find_unexp(zm_p2p_rank_t *r, uint32_t ctx, int src, int tag)
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
static inline size_t recv_status(zm_req_t *rr, int src, int tag, size_t bytes)
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

/* Bsend areas (bsend.c): take room for a message of `bytes` bytes in the
 * calling rank's current area (ZM_ERR_BUFFER if it does not fit), and
 * give it back once the message left.  Reserve: ULT context, the sending
 * rank; release: any thread. */
zm_status_t zm_p2p_bsend_reserve(zm_p2p_rank_t *me, size_t bytes, zm_msg_t **out);
void zm_p2p_bsend_release(zm_msg_t *m);

/* Give back what holds a delivered or withdrawn message's payload (an
 * eager envelope, Bsend space, the mail slot, a heap copy, a network
 * packet).  Any thread. */
void zm_p2p_msg_release(zm_msg_t *m);

/* Receiver side, with its own lock held: move the slot's mail to the
 * head of the unexpected queue, for the calls that need a queued message
 * (probes, matched probes). */
void zm_p2p_mail_spill(zm_p2p_rank_t *me);

/* ---- Rings of small messages for polling receivers (ring.c) ---- */


/* Size the rings' tables for `nworkers` workers and read ZMPI_RING_MAX,
 * the largest message sent through a ring (default ZM_P2P_RING_DEFAULT,
 * at most ZM_P2P_RING_MAX; 0 turns rings off).  Main thread, from
 * zm_p2p_init. */
void zm_p2p_ring_init(int nworkers);

/* Give rank r its (empty) table of rings; 0 or -1 when out of memory.
 * Whoever sets the rank up, before it runs. */
int zm_p2p_ring_rank_open(zm_p2p_rank_t *r);

/* zm_p2p_isend's ways on, once it has set up req as a send to world rank
 * req->owner (same arguments, so that its calls are jumps).  The locked
 * one (p2p.c) takes that rank's lock.  The ring one (ring.c), for a small
 * standard- or ready-mode message to a rank that polls, leaves it in the
 * calling worker's ring and completes req (the message is copied), or
 * takes the locked way if it cannot go through the ring now.  ULT, the
 * sending rank, without the receiver's lock. */
zm_status_t zm_p2p_isend_locked(const zm_p2p_comm_t *c, const void *buf, size_t count,
                                const zm_dt_t *dt, int dest, int tag, int mode, zm_req_t *req);
zm_status_t zm_p2p_ring_isend(const zm_p2p_comm_t *c, const void *buf, size_t count,
                              const zm_dt_t *dt, int dest, int tag, int mode, zm_req_t *req);

/* Match everything r's rings hold, oldest first per ring, as sends that
 * arrive now.  Any thread holding r's lock. */
void zm_p2p_ring_drain_slow(zm_p2p_rank_t *r);

/* The same, for a receive `want` of r being started (not yet posted):
 * the first entry that no posted receive takes and that `want` matches
 * completes it, and draining stops there.  Returns 1 if it did.  Any
 * thread holding r's lock. */
int zm_p2p_ring_drain_into_slow(zm_p2p_rank_t *r, zm_req_t *want);

static inline int zm_p2p_ring_drain_into(zm_p2p_rank_t *r, zm_req_t *want)
{
    if (ZM_LIKELY(!atomic_load_explicit(&zm_p2p_rings_exist, memory_order_relaxed)) ||
        !atomic_load_explicit(&r->ring_used, memory_order_relaxed))
        return 0;
    return zm_p2p_ring_drain_into_slow(r, want);
}

static inline void zm_p2p_ring_drain(zm_p2p_rank_t *r)
{
    (void)zm_p2p_ring_drain_into(r, NULL);
}

/* Every ZM_P2P_RING_PERIOD receives a rank starts, it decides from the
 * sends it started meanwhile whether it mostly receives
 * (zm_p2p_ring_decide).  ULT context, the rank itself. */
#define ZM_P2P_RING_PERIOD 64
void zm_p2p_ring_decide(zm_p2p_rank_t *me);

static inline void zm_p2p_ring_count_recv(zm_p2p_rank_t *me)
{
    if (ZM_UNLIKELY(++me->ring_nrecv % ZM_P2P_RING_PERIOD == 0))
        zm_p2p_ring_decide(me);
}

/* The calling rank will look at its receives again before it parks:
 * senders on other workers may leave small messages in rings for it.
 * ULT context, the rank itself (ignored on foreign threads). */
void zm_p2p_ring_announce(void);

/* Before a send through r's lock (held): drain r's rings if the calling
 * rank may have an entry there still, which this send must not overtake.
 * Costs nothing once the rank's last entry to r is known drained.  ULT
 * context, the sending rank. */
void zm_p2p_ring_drain_sender_slow(zm_p2p_rank_t *r);

static inline void zm_p2p_ring_drain_sender(zm_p2p_rank_t *r)
{
    if (ZM_UNLIKELY(atomic_load_explicit(&zm_p2p_rings_exist, memory_order_relaxed)) &&
        atomic_load_explicit(&r->ring_used, memory_order_relaxed))
        zm_p2p_ring_drain_sender_slow(r);
}

/* A thread acting for rank r is about to block on r's receives (block)
 * or is back (unblock).  Meanwhile r takes no ring entries (ring.c,
 * "Progress"): they would wait for the rank's own ULT to look, which may
 * be busy outside MPI until this very thread is done.  A thread acting
 * for r, not holding r's lock, once each around its wait. */
void zm_p2p_ring_block(zm_p2p_rank_t *r);
void zm_p2p_ring_unblock(zm_p2p_rank_t *r);

/* Take back lent send req (ring.c, "Loans") if still unread: drain its
 * receiver's rings under the receiver's lock, as the receiver would,
 * which copies the payload into the matching receive or an unexpected
 * envelope and completes req.  Its sender, before it parks in a wait or
 * after many looks at req; any thread not holding that lock. */
void zm_p2p_ring_reclaim(zm_req_t *req);

/* Whether some ring of r holds an entry (a cheap look, no lock).  Any
 * thread. */
int zm_p2p_ring_ready(zm_p2p_rank_t *r);

/* The unexpected message of r that ring send req left, or NULL (matched
 * already).  Called with r's lock held, after zm_p2p_ring_drain. */
zm_msg_t *zm_p2p_ring_find(zm_p2p_rank_t *r, const zm_req_t *req);

/* Offer `bytes` of packed data from (ctx, src, tag) to r's armed receive
 * slot, the oldest receive of r when armed: returns 1 if the slot took
 * it (then filled), 0 if not (a matching message too large nudges the
 * poller to look in the queue).  Any thread holding r's lock. */
int zm_p2p_slot_offer_packed(zm_p2p_rank_t *r, uint32_t ctx, int src, int tag,
                             const void *data, size_t bytes);

/* Complete receive rr, whose status is filled in, while holding its
 * owner's lock (a plain store: waiters register under that lock), and
 * wake its waiter or free it if orphaned.  Any thread holding the lock. */
void zm_p2p_req_complete_locked(zm_req_t *rr);

/* A pooled eager envelope for `bytes` of payload (kind, pool and data
 * set), or NULL when out of memory.  Any thread. */
zm_msg_t *zm_p2p_eager_envelope(size_t bytes);

/* ---- Messages of other processes (remote.c) ---- */

/* Start a send to world rank `wdest` of another process, as zm_p2p_isend
 * does for a local one (which has reset and filled `req`): eagerly up to
 * the communicator's network threshold, else by rendezvous; mode may carry
 * ZM_SEND_BATCH (zm_p2p_isend_batch).  ULT context, the sending rank. */
zm_status_t zm_p2p_remote_isend(const zm_p2p_comm_t *c, const void *buf, size_t count,
                                const zm_dt_t *dt, int wdest, int tag, int mode,
                                zm_req_t *req);

/* Receive rendezvous message `m` (ZM_MSG_NET_RNDV, taken from the queue)
 * into receive `rr`, whose status is filled in: posts the system MPI
 * receive straight into rr's buffer; rr completes later.  Frees m.  ULT
 * context, the receiving rank. */
void zm_p2p_remote_deliver(zm_msg_t *m, zm_req_t *rr);

/* Set up the network side of p2p (the arrival handler, the poll hook).
 * Main thread, from zm_p2p_init. */
void zm_p2p_remote_init(void);

/* Copies of at least COOP_MIN bytes are split into pieces that the
 * completer and the waiter take in turn: on two cores the copy runs at
 * the bandwidth of both.  Smaller copies are not worth the extra
 * cache-line traffic on the counters.  Non-contiguous layouts are split
 * the same way, by byte offset of the data stream: the copy engine finds
 * a chunk's start in one step per layout level.  They copy at a third to
 * a half of memcpy's speed, so their split pays from COOP_NC_MIN on, in
 * chunks of a quarter of the message between COOP_NC_CHUNK_MIN and
 * COOP_CHUNK so that both sides get work (measured, 2 workers: a 32 KiB
 * vector of 144-byte blocks 4.3 -> 1.5-1.8 us, the 72 KiB MILC face 5.8 ->
 * 2.7-3.3 us; 1 MiB messages gain nothing from other chunk sizes). */
#define COOP_MIN (96 * 1024)
#define COOP_CHUNK (32 * 1024)
#define COOP_NC_MIN (16 * 1024)
#define COOP_NC_CHUNK_MIN (8 * 1024)

/* Whether a copy of n bytes between layouts of these contiguity is split. */
static inline int coop_worth(size_t n, int contig)
{
    return n >= (contig ? COOP_MIN : COOP_NC_MIN);
}

/* Copy the first n data bytes of (src, scount, sdt) into (dst, dcount,
 * ddt), a copy coop_worth splits, with the help of req's waiter, before
 * the caller completes req (coop.c).  The completer's thread; the
 * buffers and datatypes belong to the two requests, which outlive it. */
void zm_p2p_coop_copy(zm_req_t *req, void *dst, size_t dcount, const zm_dt_t *ddt,
                      const void *src, size_t scount, const zm_dt_t *sdt, size_t n);

#endif /* ZM_P2P_IMPL_H */
