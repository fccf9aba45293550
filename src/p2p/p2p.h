/*
 * p2p: matching and message protocols between the virtual ranks of one
 * process.
 *
 * Every rank owns a posted-receive queue and an unexpected-message queue,
 * guarded by a per-rank spinlock (any rank may send to it from any worker).
 * A send looks straight into the receiver's posted queue: if a receive
 * matches, the sender copies its data into the receive buffer (one copy, any
 * size).  Otherwise small messages are copied into a pooled eager buffer and
 * large ones are queued as rendezvous descriptors pointing at the sender's
 * buffer; the receiver copies from there when it matches (one copy) and then
 * completes the sender.
 *
 * Requests complete through one atomic word (`cstate`); a rank waiting on
 * several requests registers itself in each and is woken once, when its
 * whole wait can end (Waitall wakes once, not once per request).
 */
#ifndef ZM_P2P_H
#define ZM_P2P_H

#include "net/net.h"

#include <string.h>

/* What p2p needs to know about a communicator. */
typedef struct zm_p2p_comm {
    uint32_t ctx;        /* context id carried by every message */
    int rank;            /* caller's rank in the communicator */
    int size;            /* number of ranks */
    const int *world;    /* comm rank -> world rank, NULL for identity */
    const char *name;    /* communicator name, for error reports */
    size_t net_eager;    /* largest message sent eagerly to another process;
                          * 0: the job's default (ZMPI_NET_EAGER_MAX) */
} zm_p2p_comm_t;

/* Wildcards, same values as the MPI ones. */
#define ZM_ANY_SOURCE (-1)
#define ZM_ANY_TAG (-1)

/* Bytes of an attached Bsend buffer used per message besides its data
 * (MPI_BSEND_OVERHEAD). */
#define ZM_P2P_BSEND_OVERHEAD 160

/* ZM_MSG_HEAP: a rendezvous message of a send cycle, copied to the heap
 * (cycle.c).  ZM_MSG_NET_EAGER and ZM_MSG_NET_RNDV arrived from another
 * process (remote.c): eager data, or the envelope of a rendezvous whose
 * payload waits in the sender's process. */
enum { ZM_MSG_EAGER, ZM_MSG_RNDV, ZM_MSG_BUFFERED, ZM_MSG_MAIL, ZM_MSG_HEAP, ZM_MSG_NET_EAGER,
       ZM_MSG_NET_RNDV };
enum { ZM_SEND_STD, ZM_SEND_SYNC, ZM_SEND_READY, ZM_SEND_BUFFERED };
/* Or'ed into a standard send's mode by MPI_Isend: the buffer is MPI's
 * until the request's wait, so a receiver on another worker may read it
 * in place (ring.c, "Loans").  Never set by sends that complete in the
 * call (MPI_Send, the library's own messages). */
#define ZM_SEND_LEND 0x10
/* Or'ed into the mode zm_p2p_remote_isend gets from zm_p2p_isend_batch:
 * an eager envelope to another process may wait in the batch to that
 * process (net.h, "Batches") although its request is not of the pool. */
#define ZM_SEND_BATCH 0x20
/* ZM_REQ_SCHED: a composite request of the API layer (src/mpi/sched.c),
 * completed by its owner once its point-to-point children are. */
enum { ZM_REQ_SEND = 1, ZM_REQ_RECV, ZM_REQ_DONE_ONLY, ZM_REQ_PROBE, ZM_REQ_SCHED };

/* cstate values below 3; any larger value is the waiting rank's address. */
#define ZM_REQ_PENDING ((uintptr_t)0)
#define ZM_REQ_DONE ((uintptr_t)1)
#define ZM_REQ_ORPHAN ((uintptr_t)2)

struct zm_p2p_rank;
struct zmpi_request;

/* A message that arrived before its receive (also MPI_Message). */
typedef struct zmpi_message {
    zm_dlink_t link;               /* in the receiver's unexpected queue */
    uint32_t ctx;                  /* communicator context */
    int src;                       /* sender's rank in the communicator */
    int tag;                       /* message tag */
    int kind;                      /* ZM_MSG_* */
    size_t bytes;                  /* payload bytes */
    _Atomic int ready;             /* eager data fully copied in */
    const void *sbuf;              /* rendezvous: sender's buffer */
    size_t scount;                 /* rendezvous: sender's count */
    const zm_dt_t *sdt;            /* rendezvous: sender's datatype */
    struct zmpi_request *sreq;     /* rendezvous: request to complete; eager,
                                    * buffered, mail: the request that sent it */
    void *data;                    /* eager/buffered: the payload copy */
    zm_pool_t *pool;               /* eager: pool the envelope came from */
    struct zm_p2p_rank *bowner;    /* buffered: whose Bsend area holds it */
} zm_msg_t;

/* A send or receive request (also MPI_Request).  The fields a sender
 * touches when it completes a posted receive (match fields, buffer,
 * status, cstate) are packed into the first two cache lines, since in a
 * cross-worker round trip each line touched is a transfer between cores. */
typedef struct zmpi_request {
    /* Line 0: what the completer writes and the waiter polls. */
    _Atomic uintptr_t cstate;      /* ZM_REQ_PENDING/DONE/ORPHAN or waiter */
    uint8_t kind;                  /* ZM_REQ_* */
    uint8_t mode;                  /* send mode (ZM_SEND_*) */
    uint8_t persistent;            /* made by *_init */
    uint8_t active;                /* persistent: started, not yet waited */
    uint8_t pooled;                /* allocated with zm_p2p_req_alloc */
    uint8_t in_posted;             /* sits in its owner's posted queue */
    uint8_t cancelled;             /* status: cancelled */
    uint8_t coll;                  /* a non-blocking collective's (zm_p2p_req_mark_coll) */
    zm_dlink_t link;               /* posted-queue link */
    uint32_t ctx;                  /* context to match / send on */
    int peer;                      /* source pattern / destination */
    int tag;                       /* tag pattern / tag */
    int st_source;                 /* status: source */
    int st_tag;                    /* status: tag */
    zm_status_t st_error;          /* status: ZM_OK or ZM_ERR_TRUNCATE */
    size_t st_bytes;               /* status: bytes received */
    /* Line 1: read-only for the completer. */
    void *buf;                     /* user buffer */
    size_t count;                  /* user count */
    const zm_dt_t *dt;             /* user datatype */
    int owner;                     /* world rank whose queue it is in */
    void *comm;                    /* API-layer communicator handle */
    const zm_p2p_comm_t *pcomm;    /* communicator (for reports) */
    const zm_dt_t *hold;           /* derived type released when the request is freed */
    zm_msg_t *smsg;                /* send: the message it queued at its receiver (msg,
                                    * an eager or buffered envelope, or the receiver's
                                    * mail), for MPI_Cancel; NULL if none */
    zm_msg_t msg;                  /* rendezvous envelope of a send */
    /* In the padding before the next line.  holder: the world rank whose
     * count the request is in (req_rank.c), or -1.  pnext: the next
     * persistent request in the same rank's heap (src/mpi/request_heap.c),
     * or the next free request of its rank's list (req_rank.c).  dropped:
     * a persistent request in a rank's heap freed while active. */
    int holder;
    uint8_t dropped;
    struct zmpi_request *pnext;
    /* Own line: a large copy that completes this request, split in chunks
     * so that the waiter, if it is polling on another worker, copies half
     * of it (coop.c, zm_p2p_coop_copy).  Written once per copy by the
     * completer. */
    struct {
        _Atomic int active;        /* chunks may still be taken */
        char *dst;                 /* destination buffer */
        const char *src;           /* source buffer */
        const zm_dt_t *ddt;        /* destination layout (dcount elements) */
        const zm_dt_t *sdt;        /* source layout (scount elements) */
        size_t dcount, scount;     /* element counts of both sides */
        size_t bytes;              /* total */
        int helper_back;           /* the waiter takes chunks from the back */
        _Atomic uint64_t ends;     /* chunks left: [low 32 bits, high 32 bits) */
        _Atomic size_t done;       /* bytes copied so far */
    } coop __attribute__((aligned(ZM_CACHE_LINE)));
} zm_req_t;

/* How long a waiting rank that is alone on its worker polls before it
 * parks (about 0.44 ms on Zen 5, where a pause takes 22 ns; its worker
 * then polls on before it sleeps, ult.c's IDLE_SPIN_NS).  Polling
 * keeps the completer off the wake path (no counter, no inbox, no context
 * switch), which is most of a cross-worker round trip. */
#define ZM_P2P_WAIT_SPINS 20000

/* Largest payload a ring entry carries next to its envelope (ring.c);
 * larger ones go into the ring's payload area, each on lines of its own.
 * 64-byte messages inline in the packed ring: 15.6-16.0 M/s between two
 * workers, against 13.9-15.4 with a line per entry and the payload in
 * the area (bench/results/p2p.md, "Packed rings"). */
#define ZM_P2P_RING_INLINE 64

/* Largest message a sender may leave in a ring for a polling receiver
 * (ring.c): payloads above ZM_P2P_RING_INLINE go through the ring's
 * payload area.  Messages above the eager threshold never do. */
#define ZM_P2P_RING_MAX 1024

/* What ZMPI_RING_MAX defaults to: every size a ring can carry.  Against
 * the locked path, in alternated p2p_rate runs between two workers of a
 * quiet 2-core VM (bench/results/p2p.md, "Rings up to 1 KiB"), 64 B went
 * from 5.4 to 13-16 M msgs/s and 256 B from 4.8 to 7.4-9.8 M.  The hang
 * of MPICH's threads/pt2pt/threads that had this reverted was no ring's
 * (a rank polling a mutex starved the rank its threads waited for,
 * ult.h, zm_ult_spin_point).  ZMPI_RING_MAX=32 gives the earlier
 * default. */
#define ZM_P2P_RING_DEFAULT ZM_P2P_RING_MAX

/* Smallest message an MPI_Isend to a polling receiver on another worker
 * lends (ring.c, "Loans"): the receiver copies it straight from the
 * sender's buffer into its receive, once, instead of out of a copy in
 * the ring's payload area.  ZMPI_RING_LOAN_MIN overrides it. */
#define ZM_P2P_RING_LOAN_MIN 64

/* smsg of a send whose message went through a ring (ZM_P2P_RING_MSG, a
 * copy) or was lent (ZM_P2P_RING_LOAN, pending until read): MPI_Cancel
 * looks for it with zm_p2p_ring_find (never dereferenced). */
#define ZM_P2P_RING_MSG ((zm_msg_t *)(uintptr_t)1)
#define ZM_P2P_RING_LOAN ((zm_msg_t *)(uintptr_t)2)

/* Receivers a rank keeps track of its last ring entry to (ring.c). */
#define ZM_P2P_RING_DESTS 4

/* Largest message that may wait in a rank's slot as mail. */
#define ZM_P2P_SLOT_INLINE 16

/* States of a rank's slot.  ARMED, FILLED, NUDGED and COPYING belong to a
 * blocking receive that polls; MAIL holds a small unexpected message. */
enum { ZM_SLOT_EMPTY, ZM_SLOT_ARMED, ZM_SLOT_FILLED, ZM_SLOT_NUDGED,
       ZM_SLOT_COPYING, ZM_SLOT_MAIL };

/* How a send delivered its message, for the MPI_T counters: straight into
 * a posted receive, into a polling receiver's slot, as mail in the
 * receiver's slot, through a pooled eager envelope, by rendezvous, through
 * the attached Bsend buffer. */
enum { ZM_PROTO_DIRECT, ZM_PROTO_SLOT, ZM_PROTO_MAIL, ZM_PROTO_EAGER, ZM_PROTO_RNDV,
       ZM_PROTO_BUFFERED, ZM_PROTO_COUNT };

/* A rank's MPI_T performance counters (mpit.c reads them).  Plain
 * increments by the rank itself, in lines no other rank writes, so
 * counting costs no cache-line transfer. */
typedef struct zm_p2p_stats {
    struct {
        uint64_t msgs;             /* messages sent this way */
        uint64_t bytes;            /* their payload bytes */
    } sent[ZM_PROTO_COUNT];
    uint64_t coll_fast;            /* collectives that took the fast path */
} __attribute__((aligned(ZM_CACHE_LINE))) zm_p2p_stats_t;

/* Per-rank p2p state.  The first cache line is everything a sender touches
 * to deliver a small message: the lock, the posted queue head and the slot
 * (p2p.c, "receive slot").  One line moving to the sender and back is the
 * whole exchange. */
typedef struct zm_p2p_rank {
    zm_spinlock_t lock;            /* guards posted, unexp and the slot */
    _Atomic uint8_t slot_state;    /* ZM_SLOT_* */
    _Atomic uint8_t mail_busy;     /* mail_msg is in the unexpected queue */
    uint8_t unexp_nonempty;        /* unexp holds a message (under lock) */
    uint8_t local;                 /* the rank lives in this process (set at start) */
    zm_dlink_t posted;             /* posted receives, oldest first */
    uint32_t slot_ctx;             /* armed: context to match; mail: context */
    int slot_src;                  /* armed: source pattern; filled: source */
    int slot_tag;                  /* armed: tag pattern; filled: tag */
    uint32_t slot_bytes;           /* armed: capacity; filled: bytes */
    void *slot_buf;                /* armed: the contiguous receive buffer;
                                    * mail: the request that sent it */
    unsigned char slot_inline[ZM_P2P_SLOT_INLINE]; /* mail: payload */
    zm_dlink_t unexp;              /* unexpected messages, oldest first */
    int unexp_len;                 /* messages in unexp (under lock; MPI_T) */
    int unexp_hwm;                 /* most unexp ever held (under lock; MPI_T) */
    zm_ult_t *ult;                 /* the rank's ULT */
    int world_rank;                /* its index */
    _Atomic int pending;           /* wake counter of the current wait */
    const char *wait_call;         /* API call blocked in, for reports */
    zm_req_t *wait_req;            /* parked in zm_p2p_wait: a request it waits for
                                    * (reports, send cycles); else NULL */
    int wait_nreg;                 /* ... and how many pending requests it waits for */
    zm_spinlock_t bsend_lock;      /* guards bsend_segs */
    zm_dlink_t bsend_segs;         /* the rank's Bsend areas (bsend.c): the
                                    * process's and its communicators' */
    struct zm_p2p_barea *bsend_cur; /* area the buffered send being started
                                    * uses (zm_p2p_bsend_select), or NULL */
    zm_msg_t mail_msg;             /* the slot's mail, moved to the queue */
    unsigned char mail_data[ZM_P2P_SLOT_INLINE]; /* its payload */
    zm_p2p_stats_t stats;          /* MPI_T counters, written by this rank only */
    /* Rings (ring.c).  The first line is read by senders and written by
     * the rank when it starts or stops polling. */
    _Alignas(ZM_CACHE_LINE) _Atomic uint8_t ring_poll; /* polls in a wait: push to rings */
    _Atomic uint8_t ring_used;     /* some ring into this rank exists */
    struct zm_p2p_ring *_Atomic *rings; /* one per sending worker, made on first use */
    _Atomic int ring_blocked;      /* threads acting for it blocked in a wait: no rings */
    /* Written by this rank only, on a line of their own (senders read the
     * one above on every send): whether it mostly receives lately
     * (ring.c, zm_p2p_ring_decide), and, as a sender, its last entry to a
     * few receivers. */
    _Alignas(ZM_CACHE_LINE) uint32_t ring_nrecv; /* receives started */
    uint8_t ring_want;             /* last decision of zm_p2p_ring_decide */
    uint64_t ring_sent_mark;       /* sends counted (stats) at that decision */
    struct zm_p2p_ring_sent {
        const struct zm_p2p_rank *dest; /* the receiver, or NULL */
        struct zm_p2p_ring *ring;  /* the ring it went through */
        uint32_t pos;              /* its number there (ring.c's msgs) */
        int worker;                /* the worker that pushed it */
    } ring_sent[ZM_P2P_RING_DESTS];
} __attribute__((aligned(ZM_CACHE_LINE))) zm_p2p_rank_t;

/* Set up the per-rank state and pools for a job of `nranks` world ranks,
 * of which this process runs zm_net_job.nlocal, on `nworkers` workers.
 * eager_max is the largest message copied eagerly.  Main thread, before
 * the job starts. */
zm_status_t zm_p2p_init(int nranks, int nworkers, size_t eager_max);

/* Set up the state of rank `id`, a ULT reserved at run time for a
 * spawned rank (zm_ult_reserve), before it is launched, or a rank that
 * migration brings into this process.  The record was reserved zeroed by
 * zm_p2p_init.  ULT context: the spawning rank, or the coordinator of a
 * migration while every local rank waits in it. */
void zm_p2p_rank_open(int id);

/* Per-rank state, indexed by world rank (set by zm_p2p_init); only the
 * entries of this process's ranks are set up (`local`). */
extern zm_p2p_rank_t *zm_p2p_ranks;

/* The calling rank's state.  ULT context. */
static inline zm_p2p_rank_t *zm_p2p_self(void)
{
    return &zm_p2p_ranks[zm_ult_self()->id];
}

/* State of world rank `r`. */
static inline zm_p2p_rank_t *zm_p2p_rank(int r)
{
    return &zm_p2p_ranks[r];
}

/* ---- Foreign threads (MPI_THREAD_MULTIPLE, src/mpi/threads.c) ----
 * A thread acting for a rank uses the rank's queues (under the rank's
 * lock, as every sender does) but waits on its own: blocked requests name
 * their waiter in cstate, and the waiter's `pending`, `ult`, `wait_call`,
 * `wait_req`, `wait_nreg` and `bsend_cur` belong to one caller.  For the
 * rank's own ULT the waiter is the rank's state itself; a foreign thread
 * has this record, its ULT-layer record inside. */
typedef struct zm_p2p_thread {
    zm_p2p_rank_t w;               /* the thread's waiter (queues unused) */
    zm_ult_t ult;                  /* its record (ult.h), bound to the thread */
} zm_p2p_thread_t;

/* Set up `t` for a thread acting for world rank `rank`; `user` is the
 * upper layers' data of the rank (zm_ult_t.user), `counted` as for
 * zm_ult_foreign_init.  Any thread. */
void zm_p2p_thread_init(zm_p2p_thread_t *t, int rank, void *user, int counted);

/* The waiter of the caller that `u` (zm_ult_self()) stands for. */
static inline zm_p2p_rank_t *zm_p2p_waiter_of(zm_ult_t *u)
{
    if (ZM_LIKELY(!u->foreign))
        return &zm_p2p_ranks[u->id];
    return &zm_container_of(u, zm_p2p_thread_t, ult)->w;
}

/* The calling thread's waiter (the rank's state on its own ULT).  ULT
 * context or a foreign thread acting for a rank. */
static inline zm_p2p_rank_t *zm_p2p_waiter(void)
{
    return zm_p2p_waiter_of(zm_ult_self());
}

/* Whether m is in r's unexpected queue.  m may be a freed envelope, so it
 * is compared, never read.  Called with r's lock held. */
static inline int zm_p2p_unexp_holds(zm_p2p_rank_t *r, const zm_msg_t *m)
{
    zm_dlink_t *pos;
    zm_dlist_for_each(pos, &r->unexp)
        if (zm_container_of(pos, zm_msg_t, link) == m)
            return 1;
    return 0;
}

/* Reset a request for a new operation of `kind`. */
static inline void zm_p2p_req_reset(zm_req_t *req, int kind)
{
    atomic_store_explicit(&req->cstate, ZM_REQ_PENDING, memory_order_relaxed);
    req->kind = (uint8_t)kind;
    req->in_posted = 0;
    req->cancelled = 0;
    req->st_error = ZM_OK;
    req->smsg = NULL; /* a send's way is told by its smsg (zm_p2p_req_done) */
    atomic_store_explicit(&req->coop.active, 0, memory_order_relaxed);
}


/* Per worker, free requests kept in front of the request pool (p2p.c,
 * req_free, says why and who may touch them). */
#define ZM_P2P_REQ_CACHE_MAX 256
typedef struct zm_p2p_req_cache {
    zm_req_t *head;                /* linked through link.next (NULL ends it) */
    int n;                         /* requests in the list */
} __attribute__((aligned(ZM_CACHE_LINE))) zm_p2p_req_cache_t;
extern zm_p2p_req_cache_t *zm_p2p_req_caches;

/* 16 bytes held in a vector register (plain SSE2 or NEON stores). */
typedef long long zm_p2p_v16_t __attribute__((vector_size(16)));

/* A request is 6 cache lines, but only the first two (match fields,
 * status, buffer, datatype, holds) need zeroing for a new operation:
 * clearing all of it cost a `rep stos` of 384 bytes per request, 14 % of
 * the time of a six-face halo exchange (stencil, 1.2 KiB), and pulled the
 * envelope and cooperative-copy lines into the cache for nothing.  The
 * rendezvous envelope is written in full whenever it is queued, and only
 * read (zm_p2p_cancel) when smsg, zeroed here, points at it; of the
 * cooperative copy only `active` is read before zm_p2p_coop_copy sets the
 * rest.  The head is zeroed with vector
 * stores: for a size like this the compiler's memset is a `rep stos`,
 * whose start-up alone costs tens of cycles. */
static inline void zm_p2p_req_init(zm_req_t *req)
{
    enum { HEAD = offsetof(zm_req_t, msg) };
    _Static_assert(HEAD >= 16 && HEAD <= 128, "request head: adjust the stores below");
    const zm_p2p_v16_t z = {0, 0};
    char *p = (char *)req;
    memcpy(p, &z, 16);
    memcpy(p + 16, &z, 16);
    memcpy(p + 32, &z, 16);
    memcpy(p + 48, &z, 16);
    if (HEAD > 64) {
        memcpy(p + 64, &z, 16);
        memcpy(p + 80, &z, 16);
        memcpy(p + 96, &z, 16);
    }
    memcpy(p + HEAD - 16, &z, 16);
    req->pooled = 1;
    atomic_store_explicit(&req->coop.active, 0, memory_order_relaxed);
}

/* zm_p2p_req_alloc from the pool itself (p2p.c). */
zm_req_t *zm_p2p_req_alloc_slow(void);

/* Take a request object from the caller's worker's cache or the pool (NULL
 * if out of memory).  The caller owns it until zm_p2p_req_release.  Any
 * thread. */
static inline zm_req_t *zm_p2p_req_alloc(void)
{
    zm_worker_t *w = zm_ult_tl_worker;
    zm_p2p_req_cache_t *rc;
    zm_req_t *req;
    if (ZM_UNLIKELY(w == NULL) || !(req = (rc = &zm_p2p_req_caches[w->id])->head))
        return zm_p2p_req_alloc_slow();
    rc->head = req->link.next ? zm_container_of(req->link.next, zm_req_t, link) : NULL;
    rc->n--;
    zm_p2p_req_init(req);
    return req;
}

/* Put free request req on cache rc; 0 (and nothing done) if rc is full.
 * rc's worker's thread only. */
static inline int zm_p2p_req_cache_put(zm_p2p_req_cache_t *rc, zm_req_t *req)
{
    if (rc->n >= ZM_P2P_REQ_CACHE_MAX)
        return 0;
    req->link.next = rc->head ? &rc->head->link : NULL;
    rc->head = req;
    rc->n++;
    return 1;
}

/* zm_p2p_req_release of a request that is pending, holds a type, or has
 * no room in the caller's cache (p2p.c). */
void zm_p2p_req_release_slow(zm_req_t *req);

/* The calling thread's request cache, NULL on a thread of no worker.
 * Valid until the calling ULT next switches (it may resume on another
 * worker). */
static inline zm_p2p_req_cache_t *zm_p2p_req_cache_here(void)
{
    zm_worker_t *w = zm_ult_tl_worker;
    return w ? &zm_p2p_req_caches[w->id] : NULL;
}

/* zm_p2p_req_release with the caller's cache rc (zm_p2p_req_cache_here),
 * for callers that give back many requests without switching. */
static inline void zm_p2p_req_release_to(zm_p2p_req_cache_t *rc, zm_req_t *req)
{
    if (!req->pooled)
        return;
    /* A completer stores DONE last and touches req no more, so a request
     * seen DONE is ours alone. */
    if (ZM_LIKELY(rc != NULL && !req->hold &&
                  atomic_load_explicit(&req->cstate, memory_order_acquire) == ZM_REQ_DONE &&
                  zm_p2p_req_cache_put(rc, req)))
        return;
    zm_p2p_req_release_slow(req);
}

/* Give a request back.  If it is still pending it is orphaned and freed by
 * whoever completes it.  Any ULT.  Inlined: a completed request, the case
 * after every wait, goes onto the worker's cache in a few instructions. */
static inline void zm_p2p_req_release(zm_req_t *req)
{
    zm_p2p_req_release_to(zm_p2p_req_cache_here(), req);
}

/* Nonzero once any rank of this process has a ring (ring.c): until then
 * the paths that would look at rings skip them with this one load. */
extern _Atomic int zm_p2p_rings_exist;

/* For zm_p2p_req_done (ring.c): drain the rings of receive req's owner
 * if they hold something and its lock is free; nonzero if req is complete
 * afterwards.  Any thread not holding that lock. */
int zm_p2p_ring_settle(const zm_req_t *req);

/* For zm_p2p_req_done: a lent send req is still pending; after a bounded
 * number of such looks take it back (zm_p2p_ring_reclaim).  Nonzero if
 * req is complete.  The sending rank (or a thread acting for it). */
int zm_p2p_ring_loan_poll(const zm_req_t *req);

/* Nonzero if the request's completion word says complete (no ring is
 * looked at: zm_p2p_req_done does that). */
static inline int zm_p2p_req_complete_now(const zm_req_t *req)
{
    return atomic_load_explicit((_Atomic uintptr_t *)&req->cstate, memory_order_acquire) ==
           ZM_REQ_DONE;
}

/* Nonzero once the request is complete.  A receive may be matched by a
 * message still waiting in its owner's rings (ring.c), which looking at
 * it drains. */
static inline int zm_p2p_req_done(const zm_req_t *req)
{
    if (atomic_load_explicit((_Atomic uintptr_t *)&req->cstate, memory_order_acquire) ==
        ZM_REQ_DONE)
        return 1;
    if (ZM_UNLIKELY(atomic_load_explicit(&zm_p2p_rings_exist, memory_order_relaxed))) {
        if (req->kind == ZM_REQ_RECV)
            return zm_p2p_ring_settle(req);
        if (req->kind == ZM_REQ_SEND && req->smsg == ZM_P2P_RING_LOAN)
            return zm_p2p_ring_loan_poll(req);
    }
    return 0;
}

/* Mark a request complete with its status already filled in, and wake its
 * waiter if this completes the waiter's wait.  Any ULT. */
void zm_p2p_req_complete(zm_req_t *req);

/* Start a send of (buf, count, dt) to comm rank `dest` with `mode`.  `req`
 * is initialised by the call; it may complete before the call returns.
 * Returns ZM_ERR_BUFFER if a buffered send does not fit.  ULT context. */
zm_status_t zm_p2p_isend(const zm_p2p_comm_t *comm, const void *buf, size_t count,
                         const zm_dt_t *dt, int dest, int tag, int mode, zm_req_t *req);

/* A blocking standard or ready send of (buf, count, dt) to world rank
 * `wdest` of another process, of fewer than zm_p2p_net_now_lim bytes
 * (the caller tests that), done in the call if the communicator's own
 * threshold allows (remote.c, send_now): returns 1 when sent, 0 when the
 * caller must take zm_p2p_isend's path instead.
 * No request: the send is complete when it returns.  ULT context, the
 * sending rank. */
int zm_p2p_remote_send(const zm_p2p_comm_t *c, const void *buf, size_t count, const zm_dt_t *dt,
                       int wdest, int tag);

/* One more than the most data zm_p2p_remote_send takes to any process
 * (remote.c); 0 (none) until zm_p2p_remote_init, and without a backend.
 * Set once at start; read by any thread. */
extern size_t zm_p2p_net_now_lim;

/* MPI_Send's and MPI_Rsend's first try (docs/net.md, "Fifth pass"): a
 * small message to a rank of another process needs no request, no
 * matching here and no wait, so it goes at once (zm_p2p_remote_send).
 * Returns 1 when sent, 0 otherwise (a rank of this process, a larger
 * message, or a job of one process, whose sends pay the one test of
 * zm_net_remote).  ULT context, the sending rank. */
static inline __attribute__((always_inline)) int zm_p2p_send_now(const zm_p2p_comm_t *c,
                                                                 const void *buf, size_t count,
                                                                 const zm_dt_t *dt, int dest,
                                                                 int tag)
{
    if (ZM_LIKELY(zm_net_remote == NULL))
        return 0;
    int w = c->world ? c->world[dest] : dest;
    /* Larger messages do not pay the call (a blocking send of 1 KiB took
     * 65 instructions more with it than before this path). */
    return zm_net_remote[w] && zm_dt_bytes(dt, count) < zm_p2p_net_now_lim &&
           zm_p2p_remote_send(c, buf, count, dt, w, tag);
}

/* zm_p2p_isend in standard mode for a sender that waits for the request
 * right after it posted its messages (a blocking collective): an eager
 * envelope to a rank of another process may wait in the batch to that
 * process until the next poll of the network, which the wait makes, so
 * that the messages several ranks of a process send to another process
 * in one collective travel as one message of the system MPI instead of
 * one each.  A rank of this process gets zm_p2p_isend's send.  ULT
 * context; the caller must wait (or test until done) before it computes. */
zm_status_t zm_p2p_isend_batch(const zm_p2p_comm_t *comm, const void *buf, size_t count,
                               const zm_dt_t *dt, int dest, int tag, zm_req_t *req);

/* Receive into `req` and block until it completes (MPI_Recv).  A rank
 * alone on its worker offers its receive in its slot while it polls, so a
 * small matching send completes it with one cache line exchanged.  The
 * caller records the blocking call in wait_call.  ULT context. */
void zm_p2p_recv(const zm_p2p_comm_t *comm, void *buf, size_t count,
                 const zm_dt_t *dt, int src, int tag, zm_req_t *req);

/* Start a receive; `src` and `tag` may be wildcards.  ULT context. */
void zm_p2p_irecv(const zm_p2p_comm_t *comm, void *buf, size_t count,
                  const zm_dt_t *dt, int src, int tag, zm_req_t *req);

/* Look for a matching unexpected message.  Returns it (and removes it from
 * the queue when `take` is set: the caller then owns it until
 * zm_p2p_mrecv) or NULL.  ULT context. */
zm_msg_t *zm_p2p_probe(const zm_p2p_comm_t *comm, int src, int tag, int take);

/* Like zm_p2p_probe, but block until a matching message arrives.
 * ULT context. */
zm_msg_t *zm_p2p_probe_wait(const zm_p2p_comm_t *comm, int src, int tag, int take);

/* Receive a message taken by zm_p2p_probe into (buf, count, dt); completes
 * `req`.  ULT context. */
void zm_p2p_mrecv(zm_msg_t *msg, void *buf, size_t count, const zm_dt_t *dt, zm_req_t *req);

/* Take chunks of the cooperative copy that will complete `req`, if one is
 * under way, and copy them.  Called by the rank waiting for `req`, which
 * owns it.  ULT context. */
void zm_p2p_coop_help(zm_req_t *req);

/* Block until all (need_all) or at least one of the non-NULL requests are
 * complete.  ULT context. */
void zm_p2p_wait(zm_req_t *const *reqs, int n, int need_all);

/* Cancel a receive still in its queue, or withdraw a send whose message
 * no receive has matched yet, whatever its protocol (rendezvous, eager,
 * buffered, mail), returning a buffered message's space.  Returns 1 if
 * cancelled (req then completes with its cancelled flag set).  Safe
 * against a receiver matching at the same time on another worker: both
 * decide under the receiver's lock.  ULT context (owner only). */
int zm_p2p_cancel(zm_req_t *req);

/* Bsend buffers (bsend.c).  A rank has one area for the process
 * (MPI_Buffer_attach, key ZM_BSEND_PROCESS) and one per communicator that
 * has a buffer attached (MPI_Comm_attach_buffer, key: the communicator's
 * context id, which no other communicator of the rank has).  An area is a
 * user buffer, or automatic (ZM_BSEND_AUTO_BUF): messages then get heap
 * memory of their own and never run out of room.  All calls: ULT context,
 * the calling rank (for its own areas). */
#define ZM_BSEND_PROCESS UINT32_MAX
#define ZM_BSEND_AUTO_BUF ((void *)-2)

/* Attach buffer (buf, size) (or ZM_BSEND_AUTO_BUF) under key `key`.
 * Returns ZM_ERR_BUFFER if one is attached there already, ZM_ERR_NOMEM. */
zm_status_t zm_p2p_bsend_attach_key(uint32_t key, void *buf, size_t size);

/* Detach the buffer of `key` once every message in it has been received
 * (blocks until then); returns it (ZM_BSEND_AUTO_BUF for automatic) or
 * ZM_ERR_BUFFER if none is attached. */
zm_status_t zm_p2p_bsend_detach_key(uint32_t key, void **buf, size_t *size);

/* Block until every message in the buffer of `key` has been received.
 * Returns ZM_ERR_BUFFER if none is attached. */
zm_status_t zm_p2p_bsend_flush_key(uint32_t key);

/* Non-blocking flush: `req` (kind ZM_REQ_DONE_ONLY, owned by the caller)
 * is completed once every message now in the buffer of `key` has been
 * received, possibly before the call returns.  ZM_ERR_BUFFER if none is
 * attached. */
zm_status_t zm_p2p_bsend_iflush_key(uint32_t key, zm_req_t *req);

/* Pick the area the next buffered send uses: the buffer of communicator
 * context `ctx` if it has one, else the process's.  The API layer calls it
 * before zm_p2p_isend in buffered mode and zm_p2p_bsend_unselect after. */
void zm_p2p_bsend_select(uint32_t ctx);
void zm_p2p_bsend_unselect(void);

/* Attach / detach the calling rank's process buffer (key
 * ZM_BSEND_PROCESS).  Detach blocks until every buffered message has been
 * received. */
zm_status_t zm_p2p_bsend_attach(void *buf, size_t size);
zm_status_t zm_p2p_bsend_detach(void **buf, size_t *size);

/* Describe what a blocked rank waits for (deadlock reports). */
void zm_p2p_describe(zm_ult_t *ult, char *buf, size_t len);

/* The eager threshold in bytes (0 before zm_p2p_init).  Any thread. */
size_t zm_p2p_eager_max(void);

/* Largest eager threshold the pooled envelopes can hold (the value set
 * at start); 0 before zm_p2p_init.  Any thread. */
size_t zm_p2p_eager_cap(void);

/* Change the eager threshold at run time (MPI_T).  Sends started after
 * the call use it.  ZM_ERR_ARG if larger than zm_p2p_eager_cap().  Any
 * thread. */
zm_status_t zm_p2p_set_eager_max(size_t bytes);

/* Count a send of `bytes` by protocol ZM_PROTO_* in the sending rank's
 * counters st (written by that rank only). */
static inline void zm_p2p_stats_sent(zm_p2p_stats_t *st, int proto, size_t bytes)
{
    st->sent[proto].msgs++;
    st->sent[proto].bytes += bytes;
}

/* Count a send of `bytes` by protocol ZM_PROTO_* for the calling rank.
 * ULT context. */
static inline void zm_p2p_count_sent(int proto, size_t bytes)
{
    zm_p2p_stats_sent(&zm_p2p_self()->stats, proto, bytes);
}

/* ---- MPI_T events (src/mpi/mpit_events.c) ----
 * What a point-to-point path reports while a tool holds an event handle,
 * always with no rank's lock held: ZM_P2P_EV_QUEUED, a send left its
 * message at world rank `owner` before any matching receive (how: the
 * ZM_PROTO_* it took, MAIL, EAGER, RNDV or BUFFERED); ZM_P2P_EV_MATCHED, a
 * send found owner's receive waiting (how: ZM_PROTO_DIRECT or SLOT);
 * ZM_P2P_EV_TAKEN, owner's receive took an arrived message (how: its
 * ZM_MSG_* kind).  src and dst are communicator ranks (dst -1 if unknown),
 * ctx the communicator's context id. */
enum { ZM_P2P_EV_QUEUED, ZM_P2P_EV_MATCHED, ZM_P2P_EV_TAKEN };

typedef void (*zm_p2p_event_fn_t)(int ev, int owner, uint32_t ctx, int src, int dst, int tag,
                                  size_t bytes, int how);

/* Nonzero if rank `rank` has no posted receive and no message waiting
 * for it (its rings drained first): what a checkpoint requires of a rank,
 * since neither could be carried into a restarted job.  Any ULT on a
 * worker: it takes the rank's lock (migration asks it of parked ranks). */
int zm_p2p_rank_quiet(int rank);

/* Request objects of the process taken and not freed (pending, persistent
 * or not yet waited for).  Only while every rank waits in one collective
 * call (a checkpoint). */
long zm_p2p_requests_live(void);

/* Requests by rank (req_rank.c), kept only in a job of several processes
 * whose ranks have fixed-address regions (a --checkpoint job), where ranks move
 * between processes and a request of the pool, which is the process's
 * memory, must keep its rank in place.
 * zm_p2p_rank_requests: requests of the pool made on world rank w's own
 * thread and not yet given back (pending, complete and not freed, or
 * persistent), or -1 when the process does not count them.
 * zm_p2p_requests_off_rank: those made on other threads (threads a rank
 * started, foreign threads), which no rank can be told to hold.
 * zm_p2p_coll_requests: those marked by zm_p2p_req_mark_coll (non-blocking
 * collectives, which use their communicator's collective state).  Any
 * thread; snapshots, exact while the ranks that could change them wait in
 * one call. */
long zm_p2p_rank_requests(int w);
long zm_p2p_requests_off_rank(void);
long zm_p2p_coll_requests(void);

/* Mark req, just taken with zm_p2p_req_alloc by the caller, as a
 * non-blocking collective's, counted by zm_p2p_coll_requests until it is
 * given back.  The caller's thread. */
void zm_p2p_req_mark_coll(zm_req_t *req);

/* Messages this process sent to other processes and received from them
 * so far (counted when sent and when their envelope arrived).  Any
 * thread. */
void zm_p2p_remote_counts(long *sent, long *arrived);

/* A collective of world rank wrank on collective context ctx, tag tag,
 * stopped (remote.c, "Messages of collectives that stopped"): its messages
 * from other processes that no receive takes are dropped from now on, and
 * those queued already too.  Undrop forgets the context's entries of
 * wrank when the communicator goes.  Any thread, network lock not held. */
void zm_p2p_remote_drop(int wrank, uint32_t ctx, int tag);
void zm_p2p_remote_undrop(int wrank, uint32_t ctx);

/* The MPI_T layer's receiver while an event handle exists, else NULL
 * (defined in p2p.c, set by mpit_events.c). */
extern zm_p2p_event_fn_t zm_p2p_event_fn;

/* Report an event.  Costs one predicted-not-taken test of a global
 * pointer when no tool listens.  ULT context. */
static inline void zm_p2p_event(int ev, int owner, uint32_t ctx, int src, int dst, int tag,
                                size_t bytes, int how)
{
    zm_p2p_event_fn_t fn = __atomic_load_n(&zm_p2p_event_fn, __ATOMIC_RELAXED);
    if (ZM_UNLIKELY(fn != NULL))
        fn(ev, owner, ctx, src, dst, tag, bytes, how);
}

/* ---- Send cycles (cycle.c) ----
 * Ranks blocked in standard-mode sends of rendezvous messages to each other
 * in a cycle can never move: each waits for a receive that the next one
 * will only post after its own send.  The standard lets an implementation
 * buffer standard-mode sends, so when the job is otherwise deadlocked the
 * ult layer's detector asks p2p to buffer such cycles. */

/* Read ZMPI_CYCLE_BUFFER_MAX and register the cycle breaker with the ult
 * layer.  Main thread, from zm_p2p_init. */
void zm_p2p_cycle_init(void);

/* Free a ZM_MSG_HEAP message once received.  Any ULT. */
void zm_p2p_cycle_release(zm_msg_t *m);

#endif /* ZM_P2P_H */
