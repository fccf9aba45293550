/*
 * ring.c: small messages for a receiver that polls, through per-worker
 * rings (issue 22, message rate).
 *
 * A send normally matches under the receiver's lock: it takes the lock,
 * walks the posted queue, writes the receive's status and buffer and
 * completes it.  Between two workers that is several cache lines moving
 * to the sender and back to the receiver for every message, and the lock
 * line moving between them when both post and send at once.  While the
 * receiver is polling in a wait anyway (wait.c, wait_poll), it can do the
 * matching itself: a sender on another worker then only writes one ring
 * entry (envelope and payload in one cache line) into a ring that belongs
 * to its worker and that receiver, and the receiver drains the ring into
 * its queues as if the sends had happened then.
 *
 * Order.  The entries of one ring are drained in order, and a rank's
 * messages to one receiver stay in order because:
 *   - every holder of the receiver's lock drains all its rings before it
 *     looks at the queues (zm_p2p_ring_drain), so a send through the lock
 *     comes after the ring entries pushed before it;
 *   - a sender whose earlier entries may still sit in another worker's
 *     ring (it migrated since) does not push, it takes the lock (which
 *     drains them first).
 * Only the holder of the receiver's lock consumes, so each ring has one
 * producer (the worker's thread: ULTs of a worker never run at once) and
 * one consumer at a time.
 *
 * Progress.  A rank that posts non-blocking receives or polls in a wait
 * says so in ring_poll (zm_p2p_ring_announce): it will look at its
 * receives again, and looking at a receive that is not complete drains
 * the rings (zm_p2p_req_done), as do all its receive calls.  Before the
 * rank parks, for whatever reason, it clears the flag, fences and drains
 * (the ult layer's park hook, ring_park).  A sender pushes only while it
 * sees the flag, then looks at it again after a full fence; so either the
 * rank's last drain sees the entry, or the sender sees the flag clear and
 * drains under the lock itself, completing and waking as a locked send
 * would.
 */
#include "p2p/p2p_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One ring entry: envelope and payload in one cache line. */
typedef struct ring_entry {
    _Atomic uint32_t seq;     /* 1 + its position once filled; else stale */
    uint32_t ctx;             /* communicator context */
    int src;                  /* sender's rank in the communicator */
    int tag;                  /* tag */
    uint32_t bytes;           /* payload bytes (at most ZM_P2P_RING_INLINE) */
    uint32_t pad;
    zm_req_t *sreq;           /* the send, for MPI_Cancel (may be reused by then) */
    unsigned char data[ZM_P2P_RING_INLINE];
} __attribute__((aligned(ZM_CACHE_LINE))) ring_entry_t;

#define RING_SLOTS 64u

struct zm_p2p_ring {
    /* The producer's line. */
    uint32_t tail;            /* next position to fill */
    uint32_t head_seen;       /* the consumer's head when last read */
    /* The consumer's line (written under the receiver's lock). */
    _Alignas(ZM_CACHE_LINE) _Atomic uint32_t head; /* next position to drain */
    ring_entry_t e[RING_SLOTS];
};

_Atomic int zm_p2p_rings_exist;

static int ring_workers;
/* Senders skip their fence: a parking rank forces one on them instead
 * (zm_arch_membarrier), which is rare next to the messages sent. */
static int ring_asym;

static void ring_park(zm_ult_t *u);

void zm_p2p_ring_init(int nworkers)
{
    ring_workers = nworkers;
    ring_asym = zm_core_asym_fence();
    zm_ult_set_park_hook(ring_park);
}

int zm_p2p_ring_rank_open(zm_p2p_rank_t *r)
{
    r->rings = calloc((size_t)ring_workers, sizeof(*r->rings));
    return r->rings ? 0 : -1;
}

/* The ring of worker w into r, made on first use by w itself. */
static struct zm_p2p_ring *ring_of(zm_p2p_rank_t *r, int w)
{
    if (ZM_UNLIKELY(!r->rings))
        return NULL;
    struct zm_p2p_ring *g = atomic_load_explicit(&r->rings[w], memory_order_relaxed);
    if (ZM_LIKELY(g != NULL))
        return g;
    g = aligned_alloc(ZM_CACHE_LINE, sizeof(*g));
    if (!g)
        return NULL;
    memset(g, 0, sizeof(*g));
    atomic_store_explicit(&r->rings[w], g, memory_order_release);
    atomic_store_explicit(&r->ring_used, 1, memory_order_release);
    if (!atomic_load_explicit(&zm_p2p_rings_exist, memory_order_relaxed))
        atomic_store_explicit(&zm_p2p_rings_exist, 1, memory_order_release);
    return g;
}

/* The entry at position h of ring g if its producer has filled it, else
 * NULL. */
static inline ring_entry_t *filled(struct zm_p2p_ring *g, uint32_t h)
{
    ring_entry_t *e = &g->e[h % RING_SLOTS];
    return atomic_load_explicit(&e->seq, memory_order_acquire) == h + 1 ? e : NULL;
}

/* Whether the entry at `pos` of ring g has been drained. */
static int drained(const struct zm_p2p_ring *g, uint32_t pos)
{
    return (int32_t)(atomic_load_explicit(&g->head, memory_order_acquire) - pos) > 0;
}

/* The record of the sending rank's last push to r, found or made in its
 * small table; NULL when r may not be pushed to from worker w now: the
 * rank's last entry to r sits undrained in another worker's ring (it
 * migrated since; draining in worker order could overtake it), or the
 * table is full of undrained entries (an evicted record could hide one). */
static struct zm_p2p_ring_sent *sent_slot(zm_p2p_rank_t *me, const zm_p2p_rank_t *r, int w)
{
    for (int i = 0; i < ZM_P2P_RING_DESTS; i++) {
        struct zm_p2p_ring_sent *s = &me->ring_sent[i];
        if (s->dest == r)
            return s->worker == w || drained(s->ring, s->pos) ? s : NULL;
    }
    /* A new receiver: a free record, or one whose entry was drained (its
     * ring's head is only read here, not on every push). */
    for (int i = 0; i < ZM_P2P_RING_DESTS; i++) {
        struct zm_p2p_ring_sent *s = &me->ring_sent[i];
        if (!s->dest || drained(s->ring, s->pos))
            return s;
    }
    return NULL;
}

int zm_p2p_ring_push(zm_p2p_rank_t *r, const zm_p2p_comm_t *c, const void *buf, size_t count,
                     const zm_dt_t *dt, size_t bytes, int tag, zm_req_t *req)
{
    /* Only a rank's ULT on a worker produces into that worker's ring
     * (threads acting for a rank, and threads of no rank, do not). */
    zm_ult_t *u = zm_ult_self();
    if (!u || u->worker_id < 0 || u->foreign)
        return 0;
    int w = u->worker_id;
    zm_p2p_rank_t *me = &zm_p2p_ranks[u->id];
    struct zm_p2p_ring_sent *s = sent_slot(me, r, w);
    struct zm_p2p_ring *g = s ? ring_of(r, w) : NULL;
    if (!g)
        return 0;
    uint32_t pos = g->tail;
    if (pos - g->head_seen >= RING_SLOTS) {
        g->head_seen = atomic_load_explicit(&g->head, memory_order_acquire);
        if (pos - g->head_seen >= RING_SLOTS)
            return 0; /* full: the locked path drains it */
    }
    ring_entry_t *e = &g->e[pos % RING_SLOTS];
    e->ctx = c->ctx;
    e->src = c->rank;
    e->tag = tag;
    e->bytes = (uint32_t)bytes;
    e->sreq = req;
    zm_dt_pack(e->data, buf, count, dt, bytes);
    atomic_store_explicit(&e->seq, pos + 1, memory_order_release);
    g->tail = pos + 1;
    *s = (struct zm_p2p_ring_sent){ r, g, pos, w };
    /* MPI_Cancel finds the message by the ring and position it had. */
    req->smsg = ZM_P2P_RING_MSG;
    req->msg.sbuf = (const void *)(uintptr_t)pos;
    req->msg.sdt = (const zm_dt_t *)(const void *)g;
    atomic_store_explicit(&req->cstate, ZM_REQ_DONE, memory_order_relaxed);
    /* Pairs with the barrier the receiver makes after clearing
     * ring_poll (ring_park). */
    if (ring_asym)
        atomic_signal_fence(memory_order_seq_cst);
    else
        atomic_thread_fence(memory_order_seq_cst);
    if (!atomic_load_explicit(&r->ring_poll, memory_order_relaxed)) {
        zm_spin_lock(&r->lock);
        zm_p2p_ring_drain(r);
        zm_spin_unlock(&r->lock);
    }
    return 1;
}

/* Copy entry e into receive rr and complete it. */
static void ring_deliver(const ring_entry_t *e, zm_req_t *rr)
{
    size_t n = recv_status(rr, e->src, e->tag, e->bytes);
    zm_dt_unpack(rr->buf, rr->count, rr->dt, e->data, n);
    zm_p2p_req_complete_locked(rr);
}

/* Match one drained entry as a send arriving now: into the receive slot
 * or the oldest matching posted receive, else into `want` (a receive being started, not
 * yet posted; set to NULL once it took one), else onto the unexpected
 * queue. */
static void ring_take(zm_p2p_rank_t *r, struct zm_p2p_ring *g, uint32_t pos, ring_entry_t *e,
                      zm_req_t **want)
{
    zm_req_t *probes = NULL;
    /* A receive polling in MPI_Recv's slot is the oldest receive. */
    if (zm_p2p_slot_offer_packed(r, e->ctx, e->src, e->tag, e->data, e->bytes))
        return;
    zm_req_t *rr = find_posted(r, e->ctx, e->src, e->tag, &probes);
    if (rr) {
        zm_dlist_unlink(&rr->link);
        rr->in_posted = 0;
        ring_deliver(e, rr);
    } else if (*want && match((*want)->ctx, (*want)->peer, (*want)->tag, e->ctx, e->src,
                              e->tag)) {
        ring_deliver(e, *want);
        *want = NULL;
    } else {
        zm_msg_t *m = zm_p2p_eager_envelope(e->bytes);
        if (!m) {
            /* No memory for an envelope: the message must not be lost
             * silently, and the entry cannot stay (later ones would
             * overtake it). */
            fprintf(stderr, "zmpi: rank %d: out of memory for an unexpected message from "
                    "rank %d: ending the job\n", r->world_rank, e->src);
            abort();
        }
        memcpy(m->data, e->data, e->bytes);
        m->ctx = e->ctx;
        m->src = e->src;
        m->tag = e->tag;
        m->bytes = e->bytes;
        m->sreq = e->sreq;
        m->sbuf = (const void *)(uintptr_t)pos;
        m->sdt = (const zm_dt_t *)(const void *)g;
        atomic_store_explicit(&m->ready, 1, memory_order_relaxed);
        unexp_push(r, &r->unexp, m);
    }
    wake_probes(probes);
}

int zm_p2p_ring_drain_into_slow(zm_p2p_rank_t *r, zm_req_t *want)
{
    if (!atomic_load_explicit(&r->ring_used, memory_order_acquire) || !r->rings)
        return 0;
    for (int w = 0; w < ring_workers; w++) {
        struct zm_p2p_ring *g = atomic_load_explicit(&r->rings[w], memory_order_acquire);
        if (!g)
            continue;
        uint32_t h = atomic_load_explicit(&g->head, memory_order_relaxed);
        for (;;) {
            ring_entry_t *e = filled(g, h);
            if (!e)
                break;
            int wanted = want != NULL;
            ring_take(r, g, h, e, &want);
            h++;
            atomic_store_explicit(&g->head, h, memory_order_release);
            /* The entries left are newer than everything queued, so they
             * may wait for the next look: matched then, they go straight
             * into their receives instead of through envelopes. */
            if (wanted && !want)
                return 1;
        }
    }
    return want == NULL;
}

void zm_p2p_ring_drain_slow(zm_p2p_rank_t *r)
{
    zm_p2p_ring_drain_into_slow(r, NULL);
}

void zm_p2p_ring_drain_sender_slow(zm_p2p_rank_t *r)
{
    zm_ult_t *u = zm_ult_self();
    if (!u)
        return;
    zm_p2p_rank_t *me = &zm_p2p_ranks[u->id];
    for (int i = 0; i < ZM_P2P_RING_DESTS; i++) {
        struct zm_p2p_ring_sent *s = &me->ring_sent[i];
        if (s->dest != r)
            continue;
        /* Forget the record once its entry is gone: later sends through
         * the lock then read nothing of the receiver's rings. */
        if (!drained(s->ring, s->pos))
            zm_p2p_ring_drain_slow(r);
        s->dest = NULL;
        return;
    }
}

int zm_p2p_ring_settle(const zm_req_t *req)
{
    zm_p2p_rank_t *r = &zm_p2p_ranks[req->owner];
    if (zm_p2p_ring_ready(r) && zm_spin_trylock(&r->lock)) {
        zm_p2p_ring_drain_slow(r);
        zm_spin_unlock(&r->lock);
    }
    return atomic_load_explicit((_Atomic uintptr_t *)&req->cstate, memory_order_acquire) ==
           ZM_REQ_DONE;
}

/* Stop the senders' pushes to r and drain what they left (see
 * "Progress" above).  The rank itself, or a thread acting for it. */
static void ring_withdraw(zm_p2p_rank_t *r)
{
    atomic_store_explicit(&r->ring_poll, 0, memory_order_relaxed);
    atomic_store_explicit(&zm_ult_get(r->world_rank)->park_notify, 0, memory_order_relaxed);
    if (ring_asym)
        zm_arch_membarrier();
    else
        atomic_thread_fence(memory_order_seq_cst);
    zm_spin_lock(&r->lock);
    zm_p2p_ring_drain_slow(r);
    zm_spin_unlock(&r->lock);
}

void zm_p2p_ring_decide(zm_p2p_rank_t *me)
{
    uint64_t sent = 0;
    for (int p = 0; p < ZM_PROTO_COUNT; p++)
        sent += me->stats.sent[p].msgs;
    /* A period of receives against fewer than a quarter as many sends. */
    me->ring_want = sent - me->ring_sent_mark < ZM_P2P_RING_PERIOD / 4;
    me->ring_sent_mark = sent;
}

void zm_p2p_ring_announce(void)
{
    zm_ult_t *u = zm_ult_self();
    if (!u || u->worker_id < 0 || u->foreign)
        return;
    zm_p2p_rank_t *r = &zm_p2p_ranks[u->id];
    /* Rings move the matching from the sender's core to the receiver's.
     * That pays when the receiver's core would otherwise only wait (a
     * rank that mostly receives: a stream, a gather); a rank that sends
     * as much as it receives (halo exchanges, bidirectional streams,
     * ping-pongs) keeps its core busy with its own sends, and its
     * messages were measured slower through rings (p2p_bibw 8 B: 0.6x).
     * A rank that shares its worker with ready ones will soon park: its
     * senders keep the locked path too (and its park needs no barrier). */
    int want = r->rings && r->ring_want && zm_ult_alone();
    int on = atomic_load_explicit(&r->ring_poll, memory_order_relaxed);
    if (want && !on) {
        atomic_store_explicit(&u->park_notify, 1, memory_order_relaxed);
        atomic_store_explicit(&r->ring_poll, 1, memory_order_relaxed);
    }
    else if (!want && on)
        ring_withdraw(r);
}

void zm_p2p_ring_quiesce(zm_p2p_rank_t *r)
{
    if (atomic_load_explicit(&r->ring_poll, memory_order_relaxed))
        ring_withdraw(r);
}

/* The ult layer's park hook: the rank of ULT u stops running, so senders
 * must deliver through its lock again; whatever they left meanwhile is
 * drained now (see "Progress" above). */
static void ring_park(zm_ult_t *u)
{
    zm_p2p_ring_quiesce(&zm_p2p_ranks[u->id]);
}

int zm_p2p_ring_ready(zm_p2p_rank_t *r)
{
    if (!r->rings)
        return 0;
    for (int w = 0; w < ring_workers; w++) {
        struct zm_p2p_ring *g = atomic_load_explicit(&r->rings[w], memory_order_acquire);
        if (!g)
            continue;
        if (filled(g, atomic_load_explicit(&g->head, memory_order_relaxed)))
            return 1;
    }
    return 0;
}

zm_msg_t *zm_p2p_ring_find(zm_p2p_rank_t *r, const zm_req_t *req)
{
    zm_dlink_t *pos;
    zm_dlist_for_each(pos, &r->unexp) {
        zm_msg_t *m = zm_container_of(pos, zm_msg_t, link);
        if (m->kind == ZM_MSG_EAGER && m->sreq == req && m->sbuf == req->msg.sbuf &&
            m->sdt == req->msg.sdt)
            return m;
    }
    return NULL;
}
