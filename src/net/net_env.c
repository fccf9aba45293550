/*
 * net_env.c: the envelope channel between processes (tag ZM_NET_TAG_ENV).
 *
 * Arrivals land in E.nring receives preposted from any process into fixed
 * buffers.  The system MPI matches arriving messages to receives of the
 * same source and tag in the order the receives were posted, so taking
 * the buffers strictly in posting order (a ring: the head is tested,
 * handled, posted again at the tail) hands envelopes on in the order the
 * system MPI matched them, which keeps every sender's envelopes in the
 * order they were sent.  This replaced a probe (MPI_Improbe), a malloc and
 * a matched receive (MPI_Mrecv) per envelope: docs/net.md, "Performance".
 *
 * A buffer takes an envelope of zm_net_env_room() bytes: the default
 * eager threshold plus room for a header (the same in every process, since
 * the sender decides).  A larger envelope (an eager threshold raised by
 * the program, a one-sided request carrying data) goes as an announcement
 * naming a data tag, then its body with that tag; the receiver posts the
 * body's receive into a malloc'd block and takes no further envelope until
 * the body is in, so the order holds for those too.
 *
 * Send buffers of envelopes come from a pool, and a send that the system
 * MPI completes inside MPI_Isend (small messages mostly do) costs no
 * request slot and no later completion test.
 *
 * Batches: the eager envelopes of non-blocking sends to one process are
 * gathered in a send buffer per destination process and travel as one
 * message of kind ZM_NET_KIND_BATCH (net.h, "Batches").  The rules, and why
 * they keep MPI's semantics:
 *   - a batch is sent when it could take no further envelope of the size
 *     just added, when a blocking send to its process comes (which joins
 *     it: one message), before any other envelope to its process leaves
 *     (env_send here, zm_net_isend_locked in net.c: a rendezvous's RTS,
 *     an Ssend, a Bsend, a collective's message, a one-sided, partitioned
 *     or port message, the deadlock detection's), at every poll of the
 *     network by any thread (zm_net_env_poll_locked: a rank that waits,
 *     tests or probes, an idle worker), by the progress thread when
 *     nobody else polls (net.c), and before the closing barrier;
 *   - so the envelopes to a process leave in the order they were made,
 *     whichever path each took, and the receiver hands a batch's
 *     envelopes on in that order before its next message: the
 *     non-overtaking order per (source, communicator, tag) holds as for
 *     single envelopes;
 *   - a batched send is an eager one, complete when it returns, as it was
 *     before (its data is copied): cancelling it finds it complete, as
 *     before; Ssend and Bsend go by rendezvous and are never batched;
 *   - each envelope counts as sent when it is added, so while a batch is
 *     unsent the job's envelopes sent exceed those received and the
 *     deadlock detection cannot conclude;
 *   - a batch waits at most until the next poll of any thread of its
 *     process: idle workers poll all the time, a rank that waits polls,
 *     and the progress thread polls when a batch is pending (at most its
 *     nap of 10 ms when every worker computes without MPI calls).
 *
 * Everything here runs under the network lock.
 */
#include "net/net_impl.h"

#include <stdlib.h>
#include <string.h>

/* Preposted receives: RING_N, or within a node the backend's choice
 * (posts_node) between RING_N and RING_MAX.  Not more between nodes:
 * UCX (under MPICH) keeps receives from any source in a list that every
 * arriving message not matching the first one walks, a rendezvous's data
 * among them: with 64 a 4 KiB ping-pong took 1.12 us, with 16 0.97 (0.88
 * before the preposted receives; measured when 4 KiB went by rendezvous
 * within a node too).  A burst beyond them waits in the system MPI's
 * unexpected queue, which costs it a copy more. */
#define RING_N 16
#define RING_MAX 64

/* Envelope room: within a node the eager threshold is 2 KiB + 64 bytes,
 * between nodes 16 KiB (src/p2p/remote.c), plus a header of at most 64
 * bytes. */
#define ENV_ROOM_NODE (2 * 1024 + 128)
#define ENV_ROOM_NET (16 * 1024 + 64)

/* Envelopes handed on per poll at most in a stream (zm_net_env_poll_locked);
 * at most half of RING_N, so most receives stay posted meanwhile. */
#define RING_BATCH 8

/* Free send buffers kept for reuse at most; more are freed. */
#define POOL_MAX 64

/* The announcement of an envelope too big for a preposted receive. */
typedef struct big_hdr {
    char pad[ZM_NET_KIND_AT];   /* where other envelopes keep their own fields */
    int32_t kind;               /* ZM_NET_KIND_BIG */
    int32_t dtag;               /* the body's data tag */
    uint64_t bytes;             /* the body's size */
} big_hdr_t;

/* A batch's header: its envelopes follow, each behind an entry header of
 * BATCH_ENT bytes (its length, 32 bits, then 4 unused) and padded to 8
 * bytes, so every envelope's header stays 8-byte aligned. */
typedef struct batch_hdr {
    char pad[ZM_NET_KIND_AT];   /* where other envelopes keep their own fields */
    int32_t kind;               /* ZM_NET_KIND_BATCH */
    int32_t n;                  /* envelopes in it */
} batch_hdr_t;

#define BATCH_ENT 8

/* The batch being filled for one destination process. */
typedef struct batch {
    char *buf;                  /* a pool buffer, or NULL when empty */
    size_t used;                /* bytes in it, header included */
    int n;                      /* envelopes in it */
    int at;                     /* its index in E.pend while not empty */
} batch_t;

/* A big envelope's body on its way. */
typedef struct big_recv {
    char *pkt;                  /* headroom + bytes, malloc'd */
    size_t bytes;
    int src;
} big_recv_t;

static struct {
    size_t headroom;            /* the handler's bytes in front of each envelope */
    char *ring[RING_MAX];       /* the preposted receives' buffers (headroom + room) */
    int nring;                  /* their number (ring_start) */
    int head;                   /* the receive to complete next */
    int tail;                   /* the next buffer to post again (tail..head: handled) */
    int unposted;               /* buffers handled and not posted again yet */
    int streak;                 /* the last call handed an envelope on */
    int on;                     /* posted */
    void *pool;                 /* free send buffers, linked through their first word */
    int npool;                  /* their number */
    int stall;                  /* a big envelope's body is on its way */
    const void *cur;            /* the envelope being handed on (zm_net_keep) */
    int cur_owned;              /* it is a malloc'd block the handler may take */
    int cur_taken;              /* and the handler took it */
    batch_t *batch;             /* per destination process (nprocs), NULL until used */
    int *pend;                  /* processes whose batch is not empty */
    _Atomic int npend;          /* their number (read without the lock: progress thread) */
    _Atomic unsigned gen;       /* times every waiting batch was sent (zm_net_batch_gen) */
    int quiet;                  /* the next poll may take the quiet path (env_quiet_update) */
    const zm_net_backend_t *be; /* the backend (set by ring_start or the first send) */
} E;

/* The room of a preposted receive (zm_net_env_room): between processes
 * of one node a batch as large as the backend likes (net_backend.h), at
 * least ENV_ROOM_NODE.  0 until the first call works it out; a race of
 * two first callers writes the same value twice. */
static _Atomic size_t env_room;

static size_t env_room_init(void)
{
    size_t r = ENV_ROOM_NET;
    if (zm_net_job.nnodes <= 1) {
        r = zm_net_be() ? zm_net_be()->batch_node : 0;
        if (r < ENV_ROOM_NODE)
            r = ENV_ROOM_NODE;
    }
    atomic_store_explicit(&env_room, r, memory_order_relaxed);
    return r;
}

size_t zm_net_env_room(void)
{
    size_t r = atomic_load_explicit(&env_room, memory_order_relaxed);
    return ZM_LIKELY(r != 0) ? r : env_room_init();
}

size_t zm_net_eager_node(void)
{
    return zm_net_be() ? zm_net_be()->eager_node : 0;
}

size_t zm_net_piece_node(size_t *max)
{
    const zm_net_backend_t *be = zm_net_be();
    /* ZMPI_NET_PIECE_MAX (bytes; 0: none) replaces the backend's largest
     * data sent in pieces, for measurements.  zmpirun gives every process
     * the same environment, and both ends must agree. */
    const char *e = getenv("ZMPI_NET_PIECE_MAX");
    *max = be ? be->piece_max_node : 0;
    if (e && *e) {
        char *end;
        unsigned long long v = strtoull(e, &end, 10);
        if (*end == '\0')
            *max = (size_t)v;
    }
    return be && be->piece_node > 0 && *max > be->piece_node ? be->piece_node : 0;
}

/* ---- Sending ------------------------------------------------------------- */

void *zm_net_env_buf_locked(void)
{
    void *b = E.pool;
    if (b) {
        E.pool = *(void **)b;
        E.npool--;
        return b;
    }
    if (!(b = malloc(zm_net_env_room())))
        zm_net_fatal("allocating a message buffer");
    return b;
}

/* Give a send buffer back to the pool. */
static void env_put(void *b)
{
    if (E.npool >= POOL_MAX) {
        free(b);
        return;
    }
    *(void **)b = E.pool;
    E.pool = b;
    E.npool++;
}

/* Send pool buffer `buf` (`bytes` bytes) now and look at once whether the
 * send completed (no slot then); it returns to the pool when the system
 * MPI is done with it.  Not counted; the batch to proc must be empty. */
static inline void env_send_now(void *buf, size_t bytes, int proc)
{
    if (ZM_UNLIKELY(!E.be))
        E.be = zm_net_be();
    /* The blocking send of a small envelope needs no slot and no look at
     * a request: about 20 instructions less per message than isend_now
     * (docs/net.md, "Performance"). */
    if (ZM_LIKELY(bytes <= E.be->send_max)) {
        if (E.be->send(buf, bytes, proc, ZM_NET_TAG_ENV) != 0)
            zm_net_fatal("a send");
        env_put(buf);
        return;
    }
    int s = zm_net_slot_free_locked();
    int r = E.be->isend_now(buf, bytes, proc, ZM_NET_TAG_ENV, s);
    if (r < 0)
        zm_net_fatal("a send");
    if (r == 1)
        env_put(buf);
    else
        zm_net_slot_use_locked(s, env_put, buf);
}

/* Send pool buffer `buf` (`bytes` bytes) after the batch to proc, if one
 * waits.  `now`: env_send_now; else leave the look at its completion to
 * a later poll, so that a send that follows at once (a rendezvous's data)
 * is not delayed by it (some 300 instructions with MPICH).  Not
 * counted. */
static void env_send(void *buf, size_t bytes, int proc, int now)
{
    zm_net_batch_flush_locked(proc); /* the batch's envelopes came first */
    if (now)
        env_send_now(buf, bytes, proc);
    else
        zm_net_isend_locked(buf, bytes, proc, ZM_NET_TAG_ENV, 0, env_put, buf);
}

/* ---- Batches (see the top of the file) --------------------------------- */

/* The bytes an envelope of `bytes` bytes takes in a batch. */
static inline size_t batch_ent(size_t bytes)
{
    return BATCH_ENT + ((bytes + 7) & ~(size_t)7);
}

/* The largest batch: the room of a preposted receive, or less between
 * nodes if the backend says so (net_backend.h).  Any thread; worked out
 * once, like env_room. */
static size_t batch_cap(void)
{
    static _Atomic size_t cap;
    size_t c = atomic_load_explicit(&cap, memory_order_relaxed);
    if (ZM_UNLIKELY(c == 0)) {
        c = zm_net_env_room();
        if (zm_net_job.nnodes > 1 && zm_net_be() && zm_net_be()->batch_net < c)
            c = zm_net_be()->batch_net;
        atomic_store_explicit(&cap, c, memory_order_relaxed);
    }
    return c;
}

size_t zm_net_batch_max(void)
{
    return (batch_cap() - sizeof(batch_hdr_t)) / 2 - BATCH_ENT;
}

int zm_net_batch_pending(void)
{
    return atomic_load_explicit(&E.npend, memory_order_relaxed) > 0;
}

/* Send process proc's batch (not empty) and leave it empty. */
static void batch_send(int proc)
{
    batch_t *b = &E.batch[proc];
    batch_hdr_t *h = (batch_hdr_t *)b->buf;
    size_t bytes = b->used;
    h->kind = ZM_NET_KIND_BATCH;
    h->n = b->n;
    int last = atomic_load_explicit(&E.npend, memory_order_relaxed) - 1;
    E.pend[b->at] = E.pend[last];
    E.batch[E.pend[last]].at = b->at;
    atomic_store_explicit(&E.npend, last, memory_order_relaxed);
    b->buf = NULL;
    b->n = 0;
    env_send_now(h, bytes, proc); /* not counted: its envelopes were */
}

void zm_net_batch_flush_locked(int proc)
{
    if (ZM_UNLIKELY(E.batch != NULL) && E.batch[proc].n > 0)
        batch_send(proc);
}

void zm_net_batch_flush_all_locked(void)
{
    int n;
    while ((n = atomic_load_explicit(&E.npend, memory_order_relaxed)) > 0)
        batch_send(E.pend[n - 1]);
    atomic_store_explicit(&E.gen, atomic_load_explicit(&E.gen, memory_order_relaxed) + 1,
                          memory_order_release);
}

unsigned zm_net_batch_gen(void)
{
    return atomic_load_explicit(&E.gen, memory_order_acquire);
}

void zm_net_batch_flush_all(void)
{
    if (!zm_net_batch_pending())
        return;
    zm_net_lock();
    zm_net_batch_flush_all_locked();
    zm_net_unlock();
}

/* Room for an envelope of `bytes` bytes at the end of process proc's
 * batch, sending the batch first if it has no room left.  Not counted. */
static void *batch_reserve(int proc, size_t bytes)
{
    if (ZM_UNLIKELY(!E.batch)) {
        int np = zm_net_job.nprocs;
        E.batch = calloc((size_t)np, sizeof(batch_t));
        E.pend = malloc(sizeof(int) * (size_t)np);
        if (!E.batch || !E.pend)
            zm_net_fatal("allocating send batches");
    }
    batch_t *b = &E.batch[proc];
    size_t need = batch_ent(bytes);
    if (b->n > 0 && b->used + need > batch_cap())
        batch_send(proc);
    if (b->n == 0) {
        int n = atomic_load_explicit(&E.npend, memory_order_relaxed);
        b->buf = zm_net_env_buf_locked();
        b->used = sizeof(batch_hdr_t);
        b->at = n;
        E.pend[n] = proc;
        atomic_store_explicit(&E.npend, n + 1, memory_order_relaxed);
        E.quiet = 0; /* the next poll sends it */
    }
    char *e = b->buf + b->used;
    uint32_t len = (uint32_t)bytes;
    memcpy(e, &len, sizeof(len));
    b->used += need;
    b->n++;
    return e + BATCH_ENT;
}

void *zm_net_batch_add_locked(int proc, size_t bytes)
{
    zm_net_count_sent_locked();
    return batch_reserve(proc, bytes);
}

void zm_net_batch_done_locked(int proc)
{
    batch_t *b = &E.batch[proc];
    /* Full for another envelope of the size just added: out now, so a
     * stream's batches leave while the sender makes the next. */
    size_t last = b->used - sizeof(batch_hdr_t);
    if (b->used + last / (size_t)b->n > batch_cap())
        batch_send(proc);
}

/* A blocking send's envelope in `buf` while a batch to proc waits: it
 * joins the batch if it fits and they leave as one message, else it
 * leaves right after the batch.  Not counted. */
static __attribute__((noinline)) void env_join(void *buf, size_t bytes, int proc)
{
    if (bytes > zm_net_batch_max()) {
        env_send(buf, bytes, proc, 1);
        return;
    }
    memcpy(batch_reserve(proc, bytes), buf, bytes);
    env_put(buf);
    batch_send(proc);
}

void zm_net_env_send_locked(void *buf, size_t bytes, int proc)
{
    zm_net_count_sent_locked();
    if (ZM_UNLIKELY(E.batch != NULL) && E.batch[proc].n > 0) {
        env_join(buf, bytes, proc);
        return;
    }
    env_send_now(buf, bytes, proc);
}

size_t zm_net_env_send_max(void)
{
    const zm_net_backend_t *be = zm_net_be();
    return be ? be->send_max : 0;
}

void zm_net_env_send_copy_locked(const void *buf, size_t bytes, int proc)
{
    zm_net_count_sent_locked();
    if (ZM_UNLIKELY(E.batch != NULL) && E.batch[proc].n > 0) {
        void *b = zm_net_env_buf_locked();
        memcpy(b, buf, bytes);
        env_join(b, bytes, proc);
        return;
    }
    if (ZM_UNLIKELY(!E.be))
        E.be = zm_net_be();
    if (E.be->send(buf, bytes, proc, ZM_NET_TAG_ENV) != 0)
        zm_net_fatal("a send");
}

void zm_net_env_send_first_locked(void *buf, size_t bytes, int proc)
{
    zm_net_count_sent_locked();
    env_send(buf, bytes, proc, 0);
}

void zm_net_env_big_locked(const void *buf, size_t bytes, int proc, zm_net_done_fn *done,
                           void *arg)
{
    big_hdr_t *a = zm_net_env_buf_locked();
    memset(a, 0, sizeof(*a));
    a->kind = ZM_NET_KIND_BIG;
    a->dtag = zm_net_data_tag_locked();
    a->bytes = bytes;
    int dtag = a->dtag; /* a may be back in the pool once sent */
    env_send(a, sizeof(*a), proc, 0);
    zm_net_isend_locked(buf, bytes, proc, dtag, 0, done, arg);
}

/* ---- Receiving ----------------------------------------------------------- */

void *zm_net_keep(void *pkt, size_t bytes)
{
    if (pkt == E.cur && E.cur_owned && !E.cur_taken) {
        E.cur_taken = 1;
        return pkt;
    }
    char *b = malloc(E.headroom + (bytes ? bytes : 1));
    if (!b)
        zm_net_fatal("allocating an arriving message");
    memcpy(b + E.headroom, (const char *)pkt + E.headroom, bytes);
    return b;
}

static int arrival(char *pkt, size_t bytes, int src, int owned);

/* A batch in `pkt` (behind the headroom, `bytes` bytes): hand its
 * envelopes on one by one, in order.  Each is given to the handler as a
 * block whose headroom is the bytes in front of it (the batch's own):
 * handlers only read what they are given and copy what they keep
 * (zm_net_keep), so nothing there is written. */
static int batch_arrival(char *pkt, size_t bytes, int src)
{
    char *p = pkt + E.headroom + sizeof(batch_hdr_t), *end = pkt + E.headroom + bytes;
    int did = 0;
    while (end - p >= BATCH_ENT) {
        uint32_t len;
        memcpy(&len, p, sizeof(len));
        char *env = p + BATCH_ENT;
        if (len > (size_t)(end - env))
            zm_net_fatal("unpacking a batch of messages");
        did |= arrival(env - E.headroom, len, src, 0);
        p += batch_ent(len);
    }
    return did;
}

/* A big envelope's body is in: hand it on, and let the ring go on. */
static void big_done(void *arg)
{
    big_recv_t *b = arg;
    E.stall = 0;
    (void)arrival(b->pkt, b->bytes, b->src, 1);
    free(b);
}

/* An announcement: receive the body before any later envelope. */
static void big_start(const big_hdr_t *a, int src)
{
    big_recv_t *b = malloc(sizeof(*b));
    char *pkt = malloc(E.headroom + (a->bytes ? a->bytes : 1));
    if (!b || !pkt)
        zm_net_fatal("allocating an arriving message");
    b->pkt = pkt;
    b->bytes = a->bytes;
    b->src = src;
    E.stall = 1;
    zm_net_recv_locked(pkt + E.headroom, a->bytes, src, a->dtag, big_done, b);
}

/* Hand on the envelope in `pkt` (behind the headroom); `owned`: pkt is a
 * malloc'd block, freed here unless the handler kept it.  Returns what
 * zm_net_deliver_locked says (1 for an announcement). */
static int arrival(char *pkt, size_t bytes, int src, int owned)
{
    int32_t kind = -1;
    if (bytes >= ZM_NET_KIND_AT + sizeof(kind))
        memcpy(&kind, pkt + E.headroom + ZM_NET_KIND_AT, sizeof(kind));
    if (kind == ZM_NET_KIND_BIG) {
        big_start((const big_hdr_t *)(pkt + E.headroom), src);
        return 1;
    }
    if (kind == ZM_NET_KIND_BATCH) {
        int real = batch_arrival(pkt, bytes, src);
        if (owned)
            free(pkt);
        return real;
    }
    E.cur = pkt;
    E.cur_owned = owned;
    E.cur_taken = 0;
    int real = zm_net_deliver_locked(pkt, bytes, src, kind);
    E.cur = NULL;
    if (owned && !E.cur_taken)
        free(pkt);
    return real;
}

/* Post receive i of the ring into its buffer. */
static void ring_post(int i)
{
    if (zm_net_be()->post(i, E.ring[i] + E.headroom, zm_net_env_room(), ZM_NET_TAG_ENV) != 0)
        zm_net_fatal("posting a receive");
}

/* The number of preposted receives: within a node the backend's, or
 * ZMPI_NET_POSTS (for measurements), kept between RING_N and RING_MAX;
 * between nodes RING_N.  Processes need not agree on it: only the
 * receiver uses its own. */
static int ring_count(void)
{
    int n = RING_N;
    if (zm_net_job.nnodes <= 1) {
        const char *e = getenv("ZMPI_NET_POSTS");
        n = e && *e ? atoi(e) : E.be->posts_node;
    }
    return n < RING_N ? RING_N : n > RING_MAX ? RING_MAX : n;
}

/* Post every receive of the ring (first poll: the handler's headroom is
 * known by then). */
static void ring_start(size_t headroom)
{
    E.headroom = headroom;
    E.be = zm_net_be();
    E.nring = ring_count();
    if (zm_net_be()->posts(E.nring) != 0)
        zm_net_fatal("allocating receives");
    for (int i = 0; i < E.nring; i++) {
        if (!(E.ring[i] = malloc(headroom + zm_net_env_room())))
            zm_net_fatal("allocating receive buffers");
        ring_post(i);
    }
    E.on = 1;
}

/* Post again the buffers handed on since the last call, in ring order
 * (which keeps the posting order the ring's order). */
static void ring_repost(void)
{
    while (E.unposted > 0) {
        ring_post(E.tail);
        E.tail = E.tail + 1 == E.nring ? 0 : E.tail + 1;
        E.unposted--;
    }
}

static int poll_slow(size_t headroom);

/* Whether the next poll may take the quiet path (zm_net_env_poll_locked):
 * set at the end of a slow poll, cleared by whatever makes the slow path
 * needed (an envelope handed on, a batch started, a big envelope's
 * announcement).  npend is read here under the network lock, which its
 * writers hold. */
static inline void env_quiet_update(void)
{
    E.quiet = E.on && !E.unposted && !E.streak && !E.stall &&
              atomic_load_explicit(&E.npend, memory_order_relaxed) == 0;
}

/* One envelope per call, its buffer posted again at the next call: the
 * thread that handed it on (often the very rank it completed, polling
 * in its wait) returns to notice the completion at once, and the repost
 * (some 630 instructions of MPI_Wait and MPI_Irecv with MPICH) and the
 * next test (a pass of the system MPI's progress) happen in its next
 * poll, while it waits for its next message anyway.  In a stream (the
 * last call found one too) up to RING_BATCH per call: one envelope per
 * poll cost a stream of 256-byte to 1 KiB messages 15 % of its bandwidth
 * (a waiting rank's poll loop does more than poll: zm_p2p's wait). */
int zm_net_env_poll_locked(size_t headroom)
{
    /* The common poll of a rank waiting for its next message: ring
     * posted, nothing to repost, no batch waiting, not in a stream.  One
     * test, and no more of this function's bookkeeping than needed (a
     * poll that finds nothing is the period at which a waiting rank
     * notices an arrival). */
    if (ZM_LIKELY(E.quiet)) {
        int src;
        size_t bytes;
        int r = E.be->post_test(E.head, &src, &bytes);
        if (ZM_LIKELY(r == 0))
            return 0;
        if (r < 0)
            zm_net_fatal("receiving a message");
        char *buf = E.ring[E.head];
        E.head = E.head + 1 == E.nring ? 0 : E.head + 1;
        E.unposted++;
        E.streak = 1;
        E.quiet = 0;
        return arrival(buf, bytes, src, 0);
    }
    return poll_slow(headroom);
}

/* zm_net_env_poll_locked when not quiet: the first poll, reposts, batches
 * to send, a stream or a big envelope's body on its way. */
static int poll_slow(size_t headroom)
{
    const zm_net_backend_t *be = zm_net_be();
    if (ZM_UNLIKELY(!E.on))
        ring_start(headroom);
    if (atomic_load_explicit(&E.npend, memory_order_relaxed) > 0)
        zm_net_batch_flush_all_locked();
    if (E.unposted)
        ring_repost();
    int did = 0, n = 0, max = E.streak ? RING_BATCH : 1;
    while (n < max && !E.stall) {
        int src;
        size_t bytes;
        int r = be->post_test(E.head, &src, &bytes);
        if (r < 0)
            zm_net_fatal("receiving a message");
        if (r == 0)
            break;
        char *buf = E.ring[E.head];
        E.head = E.head + 1 == E.nring ? 0 : E.head + 1;
        E.unposted++;
        did |= arrival(buf, bytes, src, 0);
        n++;
    }
    E.streak = n > 0;
    env_quiet_update();
    return did;
}

void zm_net_env_stop_locked(void)
{
    /* Buffers not posted again hold no request: post_cancel skips them. */
    for (int i = 0; E.on && i < E.nring; i++) {
        if (zm_net_be()->post_cancel(i) != 0)
            zm_net_fatal("cancelling a receive at shut-down");
        free(E.ring[i]);
        E.ring[i] = NULL;
    }
    E.on = 0;
    E.quiet = 0;
    free(E.batch);
    free(E.pend);
    E.batch = NULL;
    E.pend = NULL;
    while (E.pool) {
        void *b = E.pool;
        E.pool = *(void **)b;
        free(b);
    }
    E.npool = 0;
}
