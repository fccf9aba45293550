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
 * entry (envelope and a small payload) into a ring that belongs to its
 * worker and that receiver, and the receiver drains the ring into its
 * queues as if the sends had happened then.
 *
 * Packing.  Between two cores a message costs the cache lines that
 * cross, not instructions (perf: the draining receiver stalled 94 % of
 * its time on the load of each entry's sequence word when every entry
 * had a line of its own).  So entries follow one another in a byte ring,
 * several to a line: a 4-byte word (size, flags), the 12-byte envelope
 * only when it differs from the ring's previous entry's, and the payload
 * rounded to 4 bytes; an 8-byte message of a stream takes 12 bytes, five
 * to a line.  The consumer looks at the word where the next entry will
 * start; the producer zeroes that word before it publishes the entry in
 * front of it, so the consumer finds 0 there until the next entry is in,
 * never the last lap's bytes.  (Lines of their own for entries above
 * 44 bytes, and a per-line stamp with a store closing each line, were
 * measured and were slower: bench/results/p2p.md.)
 *
 * Payloads.  Up to ZM_P2P_RING_INLINE bytes travel in the entry itself.
 * Larger ones, up to ZM_P2P_RING_MAX (and never above the eager
 * threshold), go into the ring's payload area, a byte ring of its own
 * that the producer fills in order and the consumer gives back in order
 * (dhead), each payload starting on a cache line; the entry then holds
 * the payload's position there.  The payload is written before the
 * entry, so that the entry's line, which the consumer may be reading, is
 * written in one go.  A 1 KiB message so moves its 16 lines once to the
 * receiver, as a copy straight into a posted receive would, without the
 * receiver's lock, its request's lines or its queue.  When the ring or
 * the area is full the send takes the locked path, which drains first.
 * The consumer publishes how far it drained once per drained ring, not
 * per entry: the producer reads it only when it finds no room.
 *
 * Loans.  A payload copied into the area crosses the cores twice: the
 * sender's copy pulls the area's lines to its core, the receiver's pulls
 * them back.  MPI_Isend's buffer is MPI's until the request's wait, so a
 * non-blocking send (ZM_SEND_LEND, from ZMPI_RING_LOAN_MIN bytes up to
 * the eager threshold, contiguous) leaves only a descriptor in its entry
 * (ENT_LOAN: size, buffer, request) and stays pending; whoever drains the
 * entry copies straight from the sender's buffer into the matching
 * receive (or an unexpected envelope) and then completes the send.  One
 * copy, and a buffer the sender does not write between sends stays in
 * the receiver's cache.  Draining needs the receiver's lock, so the
 * entry is read exactly once: by the receiver, or by its sender taking
 * it back (zm_p2p_ring_reclaim), which drains the receiver's rings under
 * that lock itself as a sender whose receiver stopped polling does.  A
 * sender takes back before it parks in a wait (wait.c, wait_reclaim) and
 * after LOAN_POLLS looks at a pending loan (MPI_Test loops), so a send
 * waited for before its receive is posted ends as an eager one would;
 * a parked receiver never holds loans (it drained when it parked, and
 * later pushes see its flag clear and drain at once).  A sender that
 * migrates meanwhile keeps its buffer (ranks share the process), and
 * MPI_Cancel finds the loan as any ring message: its drain turns an
 * unmatched loan into an unexpected envelope named by ring and number.
 * Blocking sends and the library's own messages never lend: they must
 * complete in the call.
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
 * one consumer at a time.  An entry that reuses the previous entry's
 * envelope reuses that of the ring's previous entry whichever rank of the
 * worker pushed it: the envelope holds the sender's rank and context, so
 * equal envelopes are the same sender's.
 *
 * Cancel.  Entries do not carry their send request (8 bytes more each):
 * producer and consumer both number a ring's messages (64 bits, never
 * wrapping), an unexpected message from a ring keeps its ring and number,
 * and MPI_Cancel finds its send's message by them (zm_p2p_ring_find).
 *
 * Progress.  A rank that posts non-blocking receives or polls in a wait
 * says so in ring_poll (zm_p2p_ring_announce): it will look at its
 * receives again, and looking at a receive that is not complete drains
 * the rings (zm_p2p_req_done), as do its receive calls (MPI_Irecv only
 * when no other receive is posted: behind one, what the rings hold
 * counts as arriving after the new receive, and the next test or wait
 * drains it, several entries to a line).  Before the
 * rank parks, for whatever reason, it clears the flag, fences and drains
 * (the ult layer's park hook, ring_park).  A sender pushes only while it
 * sees the flag, then looks at it again after a full fence; so either the
 * rank's last drain sees the entry, or the sender sees the flag clear and
 * drains under the lock itself, completing and waking as a locked send
 * would.
 *
 * Threads.  The flag promises only that the rank's own ULT looks again,
 * and it may not for long: between MPI calls it runs the program, which
 * may wait for one of the rank's threads (MPI_THREAD_MULTIPLE) without
 * calling MPI.  A thread that waits on the rank's receives meanwhile
 * would wait for an entry that nobody drains.  So while such a thread is
 * blocked (ring_blocked, zm_p2p_ring_block) the flag stays clear: the
 * thread counts itself, fences and withdraws the flag if set, and the
 * rank, after setting the flag, fences and withdraws it again if it sees
 * a blocked thread; one of the two sees the other.
 */
#include "p2p/p2p_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The ring's entries lie one after the other in a byte ring of
 * RING_BYTES, several to a cache line and crossing lines where they
 * fall.  An entry starts with a 32-bit word (ENT_VALID, flags, payload
 * bytes); then the envelope (ctx, src, tag) unless it is the ring's
 * previous entry's (ENT_ENV clear); then the payload rounded up to 4
 * bytes or, with ENT_AREA, its position in the payload area, or with
 * ENT_LOAN the loan's size, buffer and request (LOAN_SIZE).  An 8-byte
 * message of a stream so takes 12 bytes, five to a line.
 *
 * The consumer reads the word where the next entry will start.  Before
 * the producer publishes an entry (storing its word, release) it zeroes
 * the word after it, so that word is 0 until the next entry is there,
 * and the consumer never takes the last lap's bytes for an entry.  An
 * entry that would not fit before the ring's end is put at its start,
 * and ENT_WRAP, stored where it would have gone, sends the consumer
 * there. */
#define RING_BYTES 8192u
#define ENT_BYTES 0x07ffu
#define ENT_ENV 0x0800u
#define ENT_AREA 0x1000u
#define ENT_WRAP 0x2000u
#define ENT_VALID 0x4000u
#define ENT_LOAN 0x8000u
#define ENV_SIZE 12u
/* A loan's entry, after the envelope: payload bytes, the sender's buffer
 * and its request (see "Loans"). */
#define LOAN_SIZE 20u

_Static_assert(ZM_P2P_RING_MAX <= ENT_BYTES, "an entry's word holds a ring message's size");
_Static_assert(64 * (4 + ZM_P2P_RING_INLINE) + 4 <= RING_BYTES,
               "a window of 64 inline messages of one envelope fits");

/* Bytes of a ring's payload area: a whole window of 64 messages of
 * ZM_P2P_RING_MAX bytes fits.  Payloads start on a cache line, so that
 * the producer copies whole lines and each line of the area moves
 * between the two cores once per use. */
#define RING_DATA (64u * 1024u)

struct zm_p2p_ring {
    /* The producer's line. */
    uint32_t tail;            /* bytes of entries written (wraps) */
    uint32_t hpos_seen;       /* the consumer's hpos when last read */
    uint32_t msgs;            /* messages pushed (wraps) */
    uint64_t id;              /* messages pushed, naming them for MPI_Cancel */
    uint32_t dtail;           /* payload bytes handed out (wraps) */
    uint32_t dhead_seen;      /* the consumer's dhead when last read */
    uint32_t env[3];          /* envelope of the last entry pushed, if env_set */
    int env_set;
    unsigned char *area;      /* the payload area, made by the first large push */
    /* The consumer's line (written under the receiver's lock). */
    _Alignas(ZM_CACHE_LINE) _Atomic uint32_t hpos; /* bytes of entries drained (wraps) */
    _Atomic uint32_t head;    /* messages drained (wraps) */
    _Atomic uint32_t dhead;   /* payload bytes given back */
    uint64_t hid;             /* messages drained, as `id` names them */
    uint32_t henv[3];         /* envelope of the last entry drained */
    const unsigned char *harea; /* `area`, once read */
    _Alignas(ZM_CACHE_LINE) unsigned char bytes[RING_BYTES];
};

/* One drained entry, read out of the ring. */
typedef struct ring_msg {
    uint32_t ctx;
    int src, tag;
    uint32_t bytes;
    uint32_t dend;            /* with area: the area's tail after the payload */
    int area;                 /* the payload lies in the payload area */
    const unsigned char *p;   /* the payload (a loan's: the sender's buffer) */
    zm_req_t *loan;           /* a loan's send request, completed once read */
    uint64_t id;              /* its name for MPI_Cancel */
} ring_msg_t;

_Atomic int zm_p2p_rings_exist;

static int ring_workers;
/* Largest message sent through a ring: ZMPI_RING_MAX (default
 * ZM_P2P_RING_DEFAULT, at most ZM_P2P_RING_MAX; 0 turns rings off). */
static size_t ring_max;
/* Senders skip their fence: a parking rank forces one on them instead
 * (zm_arch_membarrier), which is rare next to the messages sent. */
static int ring_asym;
/* Smallest message a non-blocking send lends rather than copies:
 * ZMPI_RING_LOAN_MIN (default ZM_P2P_RING_LOAN_MIN). */
static size_t loan_min;

static void ring_park(zm_ult_t *u);

void zm_p2p_ring_init(int nworkers)
{
    ring_workers = nworkers;
    long m = zm_core_env_long("ZMPI_RING_MAX", ZM_P2P_RING_DEFAULT, 0);
    ring_max = m > ZM_P2P_RING_MAX ? ZM_P2P_RING_MAX : (size_t)m;
    ring_asym = zm_core_asym_fence();
    loan_min = (size_t)zm_core_env_long("ZMPI_RING_LOAN_MIN", ZM_P2P_RING_LOAN_MIN, 0);
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

/* The word at byte `pos` (wrapping) of ring g's entries. */
static inline _Atomic uint32_t *word_at(struct zm_p2p_ring *g, uint32_t pos)
{
    return (_Atomic uint32_t *)(void *)(g->bytes + pos % RING_BYTES);
}

/* Whether the message numbered `pos` of ring g has been drained. */
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

/* Largest payload copied with copy_small rather than memcpy. */
#define RING_SMALL 64

/* Copy n <= RING_SMALL bytes with at most two loads and stores
 * of one width that may overlap: a call to memcpy costs more than the
 * copy of an envelope-sized payload. */
static inline void copy_small(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (n >= 32) {
        unsigned char a[32], b[32];
        memcpy(a, s, 32);
        memcpy(b, s + n - 32, 32);
        memcpy(d, a, 32);
        memcpy(d + n - 32, b, 32);
    } else if (n >= 16) {
        unsigned char a[16], b[16];
        memcpy(a, s, 16);
        memcpy(b, s + n - 16, 16);
        memcpy(d, a, 16);
        memcpy(d + n - 16, b, 16);
    } else if (n >= 8) {
        uint64_t a, b;
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        memcpy(d, &a, 4);
        memcpy(d + n - 4, &b, 4);
    } else {
        for (size_t i = 0; i < n; i++)
            d[i] = s[i];
    }
}

static inline uint32_t round_line(uint32_t bytes)
{
    return (bytes + ZM_CACHE_LINE - 1) & ~(uint32_t)(ZM_CACHE_LINE - 1);
}

/* Room for a payload of `bytes` in g's payload area (made on first use),
 * or NULL if the consumer has not given enough back yet.  The payload's
 * position in the area (wrapping) goes to *start; the consumer gives it
 * back up to start + round_line(bytes).  Payloads never wrap: one that
 * would is put at the area's start, the rest of the area counted as used
 * by it.  The ring's producer only. */
static unsigned char *area_take(struct zm_p2p_ring *g, size_t bytes, uint32_t *start)
{
    if (ZM_UNLIKELY(!g->area)) {
        g->area = aligned_alloc(ZM_CACHE_LINE, RING_DATA);
        if (!g->area)
            return NULL;
    }
    uint32_t s = g->dtail, off = s % RING_DATA;
    if (off + round_line((uint32_t)bytes) > RING_DATA)
        s += RING_DATA - off;
    uint32_t end = s + round_line((uint32_t)bytes);
    if (end - g->dhead_seen > RING_DATA) {
        g->dhead_seen = atomic_load_explicit(&g->dhead, memory_order_acquire);
        if (end - g->dhead_seen > RING_DATA)
            return NULL;
    }
    g->dtail = end;
    *start = s;
    return g->area + s % RING_DATA;
}

/* Where the producer of g puts an entry of `need` bytes: its byte
 * position (wrapping), or 1 (never a position: they are multiples of 4)
 * when the consumer has not left room for it and for the zeroed word
 * after it. */
static uint32_t entry_room(struct zm_p2p_ring *g, uint32_t need)
{
    uint32_t at = g->tail, off = at % RING_BYTES;
    if (off + need + 4 > RING_BYTES)
        at += RING_BYTES - off; /* to the start, through a wrap word */
    uint32_t end = at + need + 4;
    if (end - g->hpos_seen > RING_BYTES) {
        g->hpos_seen = atomic_load_explicit(&g->hpos, memory_order_acquire);
        if (end - g->hpos_seen > RING_BYTES)
            return 1;
    }
    return at;
}

/* Write the entry of a message from envelope env at byte position `at`
 * of g (entry_room's), except its word: returns where an inline payload
 * goes, or NULL when it lies in the area at `start`. */
static inline unsigned char *entry_write(struct zm_p2p_ring *g, uint32_t at,
                                         const uint32_t env[3], int same, int area,
                                         uint32_t start)
{
    unsigned char *e = g->bytes + at % RING_BYTES;
    uint32_t len = 4;
    if (!same) {
        memcpy(e + len, env, ENV_SIZE);
        memcpy(g->env, env, ENV_SIZE);
        g->env_set = 1;
        len += ENV_SIZE;
    }
    if (area) {
        memcpy(e + len, &start, 4);
        return NULL;
    }
    return e + len;
}

/* Publish the entry of `need` bytes at `at` with word w: zero the word
 * after it, send the consumer over the ring's end if the entry went to
 * its start, then store the word (release: the entry and the zero come
 * before it). */
static inline void entry_publish(struct zm_p2p_ring *g, uint32_t at, uint32_t need, uint32_t w)
{
    atomic_store_explicit(word_at(g, at + need), 0, memory_order_relaxed);
    if (ZM_UNLIKELY(at != g->tail))
        atomic_store_explicit(word_at(g, g->tail), ENT_VALID | ENT_WRAP, memory_order_release);
    atomic_store_explicit(word_at(g, at), w, memory_order_release);
    g->tail = at + need;
}

/* Copy a message's payload into the ring (its entry or payload area).
 * Contiguous data (the common case) is copied here: the datatype
 * layer's call costs as much as the copy of a small message. */
static inline void ring_copy_in(unsigned char *p, const void *buf, size_t count,
                                const zm_dt_t *dt, size_t bytes)
{
    if (ZM_UNLIKELY(!dt->contig))
        zm_dt_pack(p, buf, count, dt, bytes);
    else if (bytes <= RING_SMALL)
        copy_small(p, buf, bytes);
    else
        memcpy(p, buf, bytes);
}

/* Whether a message of `bytes` may go through a ring at all, and whether
 * as a loan (*loan set): a non-blocking send (`lend`) of contiguous data
 * from loan_min bytes up to the eager threshold, whatever ring_max says
 * (its entry is small at any size).  Others above the eager threshold
 * (MPI_T may lower it) wait for their receive, as a locked send of them
 * would. */
static inline int ring_fits(size_t bytes, const zm_dt_t *dt, int lend, int *loan)
{
    *loan = lend && dt->contig && bytes >= loan_min && bytes <= zm_p2p_eager_max();
    return *loan ||
           (bytes <= ring_max && (bytes <= ZM_P2P_RING_INLINE || bytes <= zm_p2p_eager_max()));
}

/* Write message body of the entry at `at` of g: a loan's descriptor, an
 * inline payload, or the payload in the area (NULL if it has no room). */
static inline int entry_body(struct zm_p2p_ring *g, uint32_t at, const uint32_t env[3],
                             int same, int kind, const void *buf, size_t count,
                             const zm_dt_t *dt, size_t bytes, zm_req_t *req)
{
    uint32_t start = 0;
    if (kind == ENT_LOAN) {
        unsigned char *p = entry_write(g, at, env, same, 0, 0);
        uint32_t n = (uint32_t)bytes;
        memcpy(p, &n, 4);
        memcpy(p + 4, &buf, sizeof(void *));
        memcpy(p + 12, &req, sizeof(void *));
    } else if (kind == ENT_AREA) {
        unsigned char *p = area_take(g, bytes, &start);
        if (!p)
            return 0; /* no room: the locked path drains the ring */
        ring_copy_in(p, buf, count, dt, bytes);
        entry_write(g, at, env, same, 1, start);
    } else {
        ring_copy_in(entry_write(g, at, env, same, 0, 0), buf, count, dt, bytes);
    }
    return 1;
}

/* Leave the message in the calling worker's ring of r and count it as
 * sent (a loan stays pending until read); 0 if it cannot go that way now
 * (zm_p2p_ring_isend). */
static inline int ring_push(zm_p2p_rank_t *r, const zm_p2p_comm_t *c, const void *buf,
                            size_t count, const zm_dt_t *dt, size_t bytes, int tag,
                            zm_req_t *req, int lend)
{
    /* Only a rank's ULT on a worker produces into that worker's ring
     * (threads acting for a rank, and threads of no rank, do not). */
    zm_ult_t *u = zm_ult_self();
    int loan;
    if (!u || u->worker_id < 0 || u->foreign || !ring_fits(bytes, dt, lend, &loan))
        return 0;
    int w = u->worker_id;
    zm_p2p_rank_t *me = &zm_p2p_ranks[u->id];
    struct zm_p2p_ring_sent *s = sent_slot(me, r, w);
    struct zm_p2p_ring *g = s ? ring_of(r, w) : NULL;
    if (!g)
        return 0;
    uint32_t env[3] = { c->ctx, (uint32_t)c->rank, (uint32_t)tag };
    int same = g->env_set && g->env[0] == env[0] && g->env[1] == env[1] && g->env[2] == env[2];
    uint32_t kind = loan ? ENT_LOAN : bytes > ZM_P2P_RING_INLINE ? ENT_AREA : 0;
    uint32_t need = 4 + (same ? 0 : ENV_SIZE) +
                    (loan ? LOAN_SIZE : kind ? 4 : (((uint32_t)bytes + 3) & ~3u));
    uint32_t at = entry_room(g, need);
    if (at == 1)
        return 0; /* full: the locked path drains it */
    /* MPI_Cancel finds the message by the ring and the name it had; a
     * loan's request is the drainer's to complete from the publication
     * on, so it is written first. */
    req->smsg = loan ? ZM_P2P_RING_LOAN : ZM_P2P_RING_MSG;
    req->msg.sbuf = (const void *)(uintptr_t)g->id;
    req->msg.sdt = (const zm_dt_t *)(const void *)g;
    req->msg.scount = 0; /* a loan's polls (zm_p2p_ring_loan_poll) */
    if (!entry_body(g, at, env, same, (int)kind, buf, count, dt, bytes, req)) {
        req->smsg = NULL;
        return 0;
    }
    entry_publish(g, at, need,
                  ENT_VALID | kind | (loan ? 0 : (uint32_t)bytes) | (same ? 0 : ENT_ENV));
    *s = (struct zm_p2p_ring_sent){ r, g, g->msgs++, w };
    g->id++;
    if (!loan)
        atomic_store_explicit(&req->cstate, ZM_REQ_DONE, memory_order_relaxed);
    /* zm_p2p_count_sent, with the rank already at hand. */
    zm_p2p_stats_sent(&me->stats, ZM_PROTO_EAGER, bytes);
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

zm_status_t zm_p2p_ring_isend(const zm_p2p_comm_t *c, const void *buf, size_t count,
                              const zm_dt_t *dt, int dest, int tag, int mode, zm_req_t *req)
{
    size_t bytes = zm_dt_bytes(dt, count);
    int lend = mode & ZM_SEND_LEND;
    mode &= ~ZM_SEND_LEND;
    if (ring_push(&zm_p2p_ranks[req->owner], c, buf, count, dt, bytes, tag, req, lend))
        return ZM_OK;
    return zm_p2p_isend_locked(c, buf, count, dt, dest, tag, mode, req);
}

/* Read the entry at e (of ring g), whose word is w, into *m; returns
 * its size.  The ring's consumer only. */
static inline uint32_t entry_read(struct zm_p2p_ring *g, const unsigned char *e, uint32_t w,
                                  ring_msg_t *m)
{
    uint32_t at = 4;
    if (w & ENT_ENV) {
        memcpy(g->henv, e + at, ENV_SIZE);
        at += ENV_SIZE;
    }
    m->ctx = g->henv[0];
    m->src = (int)g->henv[1];
    m->tag = (int)g->henv[2];
    m->bytes = w & ENT_BYTES;
    m->id = g->hid++;
    m->loan = NULL;
    if (w & ENT_LOAN) {
        /* Lent: the payload is read straight from the sender's buffer,
         * which stays MPI's until the drainer completes the send. */
        memcpy(&m->bytes, e + at, 4);
        memcpy(&m->p, e + at + 4, sizeof(void *));
        memcpy(&m->loan, e + at + 12, sizeof(void *));
        m->area = 0;
        return at + LOAN_SIZE;
    }
    m->area = (w & ENT_AREA) != 0;
    if (m->area) {
        uint32_t start;
        memcpy(&start, e + at, 4);
        if (ZM_UNLIKELY(!g->harea))
            g->harea = g->area; /* written before the entry was published */
        m->p = g->harea + start % RING_DATA;
        m->dend = start + round_line(m->bytes);
        return at + 4;
    }
    m->p = e + at;
    return at + ((m->bytes + 3) & ~3u);
}

/* Copy message m's payload into receive rr and complete it. */
static inline void ring_deliver(const ring_msg_t *m, zm_req_t *rr)
{
    size_t n = recv_status(rr, m->src, m->tag, m->bytes);
    if (ZM_LIKELY(rr->dt->contig && n <= RING_SMALL))
        copy_small(rr->buf, m->p, n);
    else if (rr->dt->contig)
        memcpy(rr->buf, m->p, n);
    else
        zm_dt_unpack(rr->buf, rr->count, rr->dt, m->p, n);
    zm_p2p_req_complete_locked(rr);
}

/* Queue message m of ring g as an unexpected message. */
static void ring_queue(zm_p2p_rank_t *r, struct zm_p2p_ring *g, const ring_msg_t *e)
{
    zm_msg_t *m = zm_p2p_eager_envelope(e->bytes);
    if (!m) {
        /* No memory for an envelope: the message must not be lost
         * silently, and the entry cannot stay (later ones would overtake
         * it). */
        fprintf(stderr, "zmpi: rank %d: out of memory for an unexpected message from "
                "rank %d: ending the job\n", r->world_rank, e->src);
        abort();
    }
    memcpy(m->data, e->p, e->bytes);
    m->ctx = e->ctx;
    m->src = e->src;
    m->tag = e->tag;
    m->bytes = e->bytes;
    /* The send is named by its ring and number (zm_p2p_ring_find). */
    m->sreq = NULL;
    m->sbuf = (const void *)(uintptr_t)e->id;
    m->sdt = (const zm_dt_t *)(const void *)g;
    atomic_store_explicit(&m->ready, 1, memory_order_relaxed);
    unexp_push(r, &r->unexp, m);
}

/* Match one drained message as a send arriving now: into the receive slot
 * or the oldest matching posted receive, else into `want` (a receive being started, not
 * yet posted; set to NULL once it took one), else onto the unexpected
 * queue. */
static void ring_take(zm_p2p_rank_t *r, struct zm_p2p_ring *g, const ring_msg_t *e,
                      zm_req_t **want)
{
    zm_req_t *probes = NULL, *rr;
    /* A receive polling in MPI_Recv's slot is the oldest receive. */
    if (ZM_UNLIKELY(atomic_load_explicit(&r->slot_state, memory_order_relaxed) ==
                    ZM_SLOT_ARMED) &&
        zm_p2p_slot_offer_packed(r, e->ctx, e->src, e->tag, e->p, e->bytes)) {
        /* Taken by the slot. */
    } else if ((rr = find_posted(r, e->ctx, e->src, e->tag, &probes))) {
        zm_dlist_unlink(&rr->link);
        rr->in_posted = 0;
        ring_deliver(e, rr);
    } else if (*want && match((*want)->ctx, (*want)->peer, (*want)->tag, e->ctx, e->src,
                              e->tag)) {
        ring_deliver(e, *want);
        *want = NULL;
    } else {
        ring_queue(r, g, e);
    }
    /* The payload is copied out: the loan's buffer is its sender's again. */
    if (e->loan)
        zm_p2p_req_complete(e->loan);
    if (ZM_UNLIKELY(probes != NULL))
        wake_probes(probes);
}

/* Drain ring g of r, oldest entry first, as ring_drain_into_slow does;
 * returns 1 once `*want` took an entry (draining then stops).  How far
 * it drained is published once, at the end: the producer reads it only
 * when it finds the ring or its payload area full, and a store per entry
 * would pull the consumer's line away from it for nothing. */
static int ring_drain_one(zm_p2p_rank_t *r, struct zm_p2p_ring *g, zm_req_t **want)
{
    uint32_t h0 = atomic_load_explicit(&g->hpos, memory_order_relaxed), h = h0, n = 0, dend = 0;
    int stop = 0, large = 0;
    while (!stop) {
        uint32_t w = atomic_load_explicit(word_at(g, h), memory_order_acquire);
        if (!w)
            break;
        if (ZM_UNLIKELY(w & ENT_WRAP)) {
            h += RING_BYTES - h % RING_BYTES;
            continue;
        }
        ring_msg_t m;
        h += entry_read(g, g->bytes + h % RING_BYTES, w, &m);
        if (m.area) {
            large = 1;
            dend = m.dend;
        }
        int wanted = *want != NULL;
        ring_take(r, g, &m, want);
        n++;
        /* The entries left are newer than everything queued, so they may
         * wait for the next look: matched then, they go straight into
         * their receives instead of through envelopes. */
        stop = wanted && !*want;
    }
    if (h != h0) {
        /* Release: every payload copy above is done before the producer
         * may reuse its bytes or its room in the area. */
        if (large)
            atomic_store_explicit(&g->dhead, dend, memory_order_release);
        atomic_store_explicit(&g->hpos, h, memory_order_release);
        atomic_store_explicit(&g->head, atomic_load_explicit(&g->head, memory_order_relaxed) + n,
                              memory_order_release);
    }
    return stop;
}

int zm_p2p_ring_drain_into_slow(zm_p2p_rank_t *r, zm_req_t *want)
{
    if (!atomic_load_explicit(&r->ring_used, memory_order_acquire) || !r->rings)
        return 0;
    for (int w = 0; w < ring_workers; w++) {
        struct zm_p2p_ring *g = atomic_load_explicit(&r->rings[w], memory_order_acquire);
        if (g && ring_drain_one(r, g, &want))
            return 1;
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

void zm_p2p_ring_reclaim(zm_req_t *req)
{
    zm_p2p_rank_t *r = &zm_p2p_ranks[req->owner];
    /* The loan's entry was published before: draining under the lock
     * reads it (or waits for the drainer reading it now) and so
     * completes req. */
    zm_spin_lock(&r->lock);
    zm_p2p_ring_drain(r);
    zm_spin_unlock(&r->lock);
}

/* Polls of a pending loan (MPI_Test, a polling wait) before its sender
 * takes it back: about 0.2-0.5 ms of MPI_Test calls, in the order of a
 * polling wait's bound (ZM_P2P_WAIT_SPINS). */
#define LOAN_POLLS 8192

int zm_p2p_ring_loan_poll(const zm_req_t *req)
{
    /* The counter lives in the request's unused rendezvous envelope,
     * which only the sending rank touches. */
    zm_req_t *q = (zm_req_t *)req;
    if (++q->msg.scount >= LOAN_POLLS)
        zm_p2p_ring_reclaim(q);
    return zm_p2p_req_complete_now(q);
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
    int want = r->rings && r->ring_want && ring_max && zm_ult_alone() &&
               !atomic_load_explicit(&r->ring_blocked, memory_order_relaxed);
    int on = atomic_load_explicit(&r->ring_poll, memory_order_relaxed);
    if (want && !on) {
        atomic_store_explicit(&u->park_notify, 1, memory_order_relaxed);
        atomic_store_explicit(&r->ring_poll, 1, memory_order_relaxed);
        /* Pairs with the fence of a thread that blocks meanwhile
         * (zm_p2p_ring_block): it saw the flag, or we see it now. */
        atomic_thread_fence(memory_order_seq_cst);
        if (atomic_load_explicit(&r->ring_blocked, memory_order_relaxed))
            ring_withdraw(r);
    }
    else if (!want && on)
        ring_withdraw(r);
}

/* Make senders deliver to r through its lock again and drain what they
 * left, if they may push now.  Any thread not holding r's lock. */
static void ring_quiesce(zm_p2p_rank_t *r)
{
    if (atomic_load_explicit(&r->ring_poll, memory_order_relaxed))
        ring_withdraw(r);
}

void zm_p2p_ring_block(zm_p2p_rank_t *r)
{
    atomic_fetch_add_explicit(&r->ring_blocked, 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
    ring_quiesce(r);
}

void zm_p2p_ring_unblock(zm_p2p_rank_t *r)
{
    /* The rank turns its rings on again at its next receive or wait. */
    atomic_fetch_sub_explicit(&r->ring_blocked, 1, memory_order_relaxed);
}

/* The ult layer's park hook: the rank of ULT u stops running, so senders
 * must deliver through its lock again; whatever they left meanwhile is
 * drained now (see "Progress" above). */
static void ring_park(zm_ult_t *u)
{
    ring_quiesce(&zm_p2p_ranks[u->id]);
}

int zm_p2p_ring_ready(zm_p2p_rank_t *r)
{
    if (!r->rings)
        return 0;
    for (int w = 0; w < ring_workers; w++) {
        struct zm_p2p_ring *g = atomic_load_explicit(&r->rings[w], memory_order_acquire);
        if (!g)
            continue;
        if (atomic_load_explicit(word_at(g, atomic_load_explicit(&g->hpos,
                                                                 memory_order_relaxed)),
                                 memory_order_acquire))
            return 1;
    }
    return 0;
}

zm_msg_t *zm_p2p_ring_find(zm_p2p_rank_t *r, const zm_req_t *req)
{
    zm_dlink_t *pos;
    zm_dlist_for_each(pos, &r->unexp) {
        zm_msg_t *m = zm_container_of(pos, zm_msg_t, link);
        if (m->kind == ZM_MSG_EAGER && !m->sreq && m->sbuf == req->msg.sbuf &&
            m->sdt == req->msg.sdt) {
            /* The entry did not carry its send (8 bytes more per message):
             * the ring and the message's number name it, and from now on
             * the envelope names the send as other eager envelopes do. */
            m->sreq = (zm_req_t *)req;
            return m;
        }
    }
    return NULL;
}
