/*
 * remote.c: point-to-point messages between processes.
 *
 * A send to a rank of another process becomes one or two messages of the
 * system MPI (net/) on its private communicator:
 *   - eager (up to the communicator's network threshold, not synchronous):
 *     one envelope message, header and packed data together; the send
 *     completes at once;
 *   - rendezvous: an envelope (RTS) that names a data tag, plus the data
 *     itself, sent straight from the user's buffer (packed first only when
 *     the datatype is not contiguous) with that tag.  The receiver, once a
 *     receive matches the envelope, posts a system MPI receive with the
 *     data tag straight into the user's buffer: no intermediate copy for
 *     contiguous data at either end.  A synchronous send's data goes by
 *     MPI_Issend, which completes only once that receive exists, that is
 *     once a receive matched: MPI_Ssend's semantics with no extra message.
 * The progress engine hands every arriving envelope to arrive(), which
 * matches it against the receiver's queues under the receiver's lock,
 * exactly as a local sender would (its armed slot, its posted receives,
 * else its unexpected queue).  Envelopes of one process to another travel
 * on one tag in order, and arrive() runs under the network lock, so
 * messages are matched in the order they were sent.
 */
#include "p2p/p2p_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Default network eager thresholds: above them a message to another
 * process goes by rendezvous.  To a process of another node, 16 KiB; to
 * one of the same node, what the backend says (zm_net_eager_node: 8 KiB +
 * 32 with MPICH, whose UCX copies messages up to 8 KiB through its shared
 * memory, 2 KiB + 64 with Open MPI), at least NET_EAGER_NODE_MIN and at
 * most what a preposted receive takes.  Beyond the system MPI's own
 * shared-memory eager limit an envelope would travel by its rendezvous,
 * which the receiver takes one message at a time (a window of 4-16 KiB
 * messages ran at 0.15-0.3 of the bare system MPI's bandwidth; by zmpi's
 * rendezvous, whose data receives are posted as envelopes match, at
 * 0.6-0.8; latencies equal or lower).  Over TCP the data as a second
 * message costs 30 % more latency at 4-8 KiB, hence the larger threshold
 * between nodes.  ZMPI_NET_EAGER_MAX overrides both for the job, the
 * info key zmpi_net_eager_max per communicator. */
#define NET_EAGER_DEFAULT (16 * 1024)
/* 2 KiB of data plus 64 bytes: a collective's message carries 2 KiB of a
 * rank's data behind its 32-byte signature (src/coll/net_msg.c) and stays
 * one eager message. */
#define NET_EAGER_NODE_MIN (2 * 1024 + 64)

/* HDR_RTS_PIECES: a rendezvous whose data travels in pieces (piece_for_locked). */
enum { HDR_EAGER = 1, HDR_RTS = 2, HDR_RTS_PIECES = 3 };

/* Header of an envelope on the wire, 32 bytes.  An eager envelope has
 * no data tag: its data starts at EAGER_HDR, where dtag would be. */
typedef struct net_hdr {
    uint32_t ctx;          /* communicator context */
    int32_t src;           /* sender's rank in the communicator */
    int32_t tag;           /* message tag */
    int32_t dst;           /* receiver's world rank */
    uint64_t bytes;        /* payload bytes */
    int32_t kind;          /* HDR_* */
    int32_t dtag;          /* HDR_RTS*: tag of the data message */
} net_hdr_t;

_Static_assert(offsetof(net_hdr_t, kind) == ZM_NET_KIND_AT, "kinds sit where net.h says");

/* Where an eager envelope's data starts: 28 bytes of header instead of
 * 32.  The system MPIs send small messages by a cheaper path up to a
 * size: MPICH's UCX copies up to 92 bytes of payload inline into its
 * shared-memory FIFO entry, and a bare 93-byte ping-pong took 0.24 us
 * against 0.17 at 92 (20 000 round trips, best of 5).  With 32 bytes of
 * header 61-64 bytes of data crossed that line (zmpi's 64-byte ping-pong
 * 0.30 us against 0.23 at 56).  Data copies are byte copies (zm_dt_pack,
 * zm_dt_unpack), which need no alignment. */
#define EAGER_HDR offsetof(net_hdr_t, dtag)

/* An eager envelope's data. */
static inline void *eager_data(net_hdr_t *h)
{
    return (char *)h + EAGER_HDR;
}

/* Room the engine leaves in front of each arriving envelope: the message
 * an unexpected arrival becomes. */
#define HEADROOM ((sizeof(zm_msg_t) + 15) & ~(size_t)15)

static size_t net_eager_default = NET_EAGER_DEFAULT;
static int net_eager_given;        /* ZMPI_NET_EAGER_MAX was set */
static size_t net_eager_node;      /* within a node; set by zm_p2p_remote_init */

/* The job's eager threshold for messages to process proc. */
static inline size_t net_eager_for(int proc)
{
    const zm_net_job_t *j = &zm_net_job;
    if (net_eager_given || !j->node)
        return net_eager_default;
    return j->node[proc] == j->node[j->proc] ? net_eager_node : NET_EAGER_DEFAULT;
}

/* Pieces of a rendezvous's data (docs/net.md, "Point-to-point").  Between
 * processes of one node whose system MPI copies messages up to a size
 * through its shared memory and moves larger ones by its own rendezvous,
 * a rendezvous's data of up to piece_max bytes goes as messages of at
 * most piece bytes each, all with the data tag, received in order at
 * their offsets straight into the user's buffer: the system MPI's eager
 * copies, as for messages of that size in a bare program, instead of its
 * rendezvous.  The sender decides and says so in the envelope's kind
 * (HDR_RTS_PIECES); the piece size is the backend's, the same at both
 * ends.  At most PIECES_FLIGHT pieces to one process are in flight (sent
 * and not yet seen complete), beyond which a rendezvous's data goes as
 * one message: without a limit two processes streaming pieces at each
 * other fell in 3 rounds of 5 to 2.4-3.3 GB/s against 5.9-6.8 for one
 * message each (windows of 64 16 KiB messages, MPICH), in 0 of 8 with
 * 128 (10.8-12.2 GB/s); a limit of 32 kept too few pieces for a one-way
 * stream to gain (Open MPI 4 KiB: 1.7 GB/s as with one message, 4.5
 * with 128).  0: one message.  A blocking collective's messages (`coll`:
 * its rank starts the rendezvous to all its peers at once) go in pieces
 * only up to half of piece_max: an Alltoall of 16 KiB blocks, 2 processes
 * x 4 ranks over Open MPI, took 108-132 us with pieces up to 16 KiB, 87
 * with 8 KiB, 87-89 with none (bare Open MPI 111-129); at 4 KiB 45-56 us
 * with pieces, 61-74 without (alternated runs). */
static size_t net_piece, net_piece_max;
static int *pieces_out;            /* per process: pieces in flight; network lock; kept to the end */

#define PIECES_FLIGHT 128

/* The pieces of `bytes` bytes, `piece` bytes each. */
static inline int pieces_of(size_t bytes, size_t piece)
{
    return (int)((bytes + piece - 1) / piece);
}

/* The size of the pieces in which to send a rendezvous of `bytes` bytes
 * to process proc now (a blocking collective's if coll), or 0 for one
 * message.  Network lock held. */
static size_t piece_for_locked(int proc, size_t bytes, int coll)
{
    const zm_net_job_t *j = &zm_net_job;
    if (net_piece == 0 || bytes > (coll ? net_piece_max / 2 : net_piece_max) ||
        bytes <= net_piece || !j->node ||
        j->node[proc] != j->node[j->proc])
        return 0;
    if (ZM_UNLIKELY(!pieces_out) && !(pieces_out = calloc((size_t)j->nprocs, sizeof(int))))
        return 0;
    int n = pieces_of(bytes, net_piece);
    if (pieces_out[proc] + n > PIECES_FLIGHT)
        return 0;
    pieces_out[proc] += n;
    return net_piece;
}

/* A rendezvous send in flight, freed once its data is out (its envelope
 * goes from a copy in the network's pool). */
typedef struct rsend {
    net_hdr_t hdr;         /* the envelope */
    zm_req_t *req;         /* the send to complete when the data is out, or NULL */
    void *tmp;             /* packed copy of non-contiguous data, or NULL */
    zm_msg_t *bmsg;        /* Bsend area segment to give back, or NULL */
    int left;              /* pieces of the data not yet out */
    int proc;              /* the destination process */
    int pieces;            /* the data's pieces counted in pieces_out, or 0 */
} rsend_t;

/* A rendezvous receive in flight. */
typedef struct rrecv {
    zm_req_t *rr;          /* the receive */
    void *tmp;             /* data lands here first when rr cannot take it as is */
    size_t n;              /* bytes that fit in rr */
    int left;              /* pieces of the data not yet in */
} rrecv_t;

/* ---- Sending ------------------------------------------------------------- */

static void free_cb(void *arg)
{
    free(arg);
}

/* A piece (or the whole) of a rendezvous's data is out.  Network lock
 * held (a completion callback of the progress engine). */
static void rsend_done(void *arg)
{
    rsend_t *rs = arg;
    if (rs->pieces)
        pieces_out[rs->proc]--;
    if (--rs->left > 0)
        return;
    if (rs->req)
        zm_p2p_req_complete(rs->req);
    if (rs->bmsg)
        zm_p2p_bsend_release(rs->bmsg);
    free(rs->tmp);
    free(rs);
}

static void hdr_fill(net_hdr_t *h, const zm_p2p_comm_t *c, int wdest, int tag, size_t bytes,
                     int kind)
{
    h->ctx = c->ctx;
    h->src = c->rank;
    h->tag = tag;
    h->dst = wdest;
    h->bytes = bytes;
    h->kind = kind;
}

/* Messages of the program (even contexts: not the collectives' own) this
 * process sent to and received from other processes, for a checkpoint's
 * check that none is in flight.  Written only under the network lock, so
 * a plain increment does: a locked instruction per message (some 20
 * cycles) is off the path. */
static _Atomic long net_sent, net_arrived;

/* Count a message on context ctx sent to (or arrived from) another process
 * in *n; collectives' own traffic, on odd contexts, is left out.  Network
 * lock held. */
static inline void count_locked(_Atomic long *n, uint32_t ctx)
{
    if (!(ctx & 1))
        atomic_store_explicit(n, atomic_load_explicit(n, memory_order_relaxed) + 1,
                              memory_order_relaxed);
}

/* memcpy for the few bytes of a small message, inline: the library's
 * call cost 28 instructions a message at 0-4 bytes (callgrind,
 * net_pingpong 8 200), of a blocking send's 630.  Up to 16 bytes in at
 * most two overlapping loads and stores per width; more by memcpy. */
static inline __attribute__((always_inline)) void copy_bytes(void *dst, const void *src, size_t n)
{
    char *d = dst;
    const char *s = src;
    if (n >= 8 && n <= 16) {
        uint64_t a, b;
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + n - 8, &b, 8);
    } else if (n >= 4 && n < 8) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        memcpy(d, &a, 4);
        memcpy(d + n - 4, &b, 4);
    } else if (n > 0 && n < 4) {
        d[0] = s[0];
        d[n / 2] = s[n / 2];
        d[n - 1] = s[n - 1];
    } else if (n > 16) {
        memcpy(d, s, n);
    }
}

/* The largest envelope (header and data) a blocking send builds on its
 * stack: what the backend sends with a blocking send of the system MPI
 * (zm_net_env_send_max), at most SEND_NOW_STACK.  0 until
 * zm_p2p_remote_init, and without a backend. */
#define SEND_NOW_STACK 512
static size_t net_send_now_max;

/* zm_p2p_net_now_lim (p2p.h): what send_now's envelope holds and at
 * most the job's eager threshold to any process, so that the threshold
 * need not be looked up per destination (16 instructions of a send:
 * docs/net.md, "Fifth pass").  A communicator with a threshold of its own
 * (c->net_eager) is also held to that. */
size_t zm_p2p_net_now_lim;

/* A blocking send's small envelope: header and data are put together on
 * the rank's stack before the network lock is taken, then handed to the
 * system MPI's blocking send, which is done with the memory when it
 * returns.  Against send_eager's pool buffer: no pool, shorter holds of
 * the lock, and one call layer less (docs/net.md, "Fourth pass").
 * Counted for the checkpoint, the deadlock detection and the rank's
 * statistics, as every eager send.
 * bytes <= eager and EAGER_HDR + bytes <= net_send_now_max. */
static inline __attribute__((always_inline)) void
send_now(const zm_p2p_comm_t *c, const void *buf, size_t count, const zm_dt_t *dt, size_t bytes,
         int wdest, int proc, int tag)
{
    union {
        net_hdr_t h;
        char b[SEND_NOW_STACK];
    } e;
    hdr_fill(&e.h, c, wdest, tag, bytes, HDR_EAGER);
    if (ZM_LIKELY(dt->contig))
        copy_bytes(eager_data(&e.h), buf, bytes); /* zm_dt_pack's copy, without the call */
    else
        zm_dt_pack(eager_data(&e.h), buf, count, dt, bytes);
    zm_net_lock();
    zm_net_env_send_copy_locked(&e, EAGER_HDR + bytes, proc);
    count_locked(&net_sent, c->ctx);
    zm_net_unlock();
    zm_p2p_count_sent(ZM_PROTO_EAGER, bytes);
}

int zm_p2p_remote_send(const zm_p2p_comm_t *c, const void *buf, size_t count, const zm_dt_t *dt,
                       int wdest, int tag)
{
    size_t bytes = zm_dt_bytes(dt, count); /* below zm_p2p_net_now_lim (the caller's test) */
    if (ZM_UNLIKELY(c->net_eager != 0 && bytes > c->net_eager))
        return 0;
    send_now(c, buf, count, dt, bytes, wdest, zm_net_proc_of(wdest), tag);
    return 1;
}

/* Envelope and data in one message; the data is copied, so the send is
 * complete when this returns.  An envelope that fits is packed straight
 * into a send buffer of the network's pool, under the network lock (a
 * copy of at most zm_net_env_room() bytes); a larger one (a threshold
 * raised by the program) is packed into a block of its own first.
 * `batch`: a non-blocking send, whose small envelope may wait in the
 * batch to its process (net.h, "Batches") until the next poll; a blocking one
 * is sent at once (joining the batch, and sending it, if one waits:
 * zm_net_env_send_locked), as before batches, at no extra cost. */
static zm_status_t send_eager(const zm_p2p_comm_t *c, const void *buf, size_t count,
                              const zm_dt_t *dt, size_t bytes, int wdest, int proc, int tag,
                              int batch)
{
    size_t len = EAGER_HDR + bytes;
    if (batch && len <= zm_net_batch_max()) {
        zm_net_lock();
        net_hdr_t *h = zm_net_batch_add_locked(proc, len);
        hdr_fill(h, c, wdest, tag, bytes, HDR_EAGER);
        zm_dt_pack(eager_data(h), buf, count, dt, bytes);
        zm_net_batch_done_locked(proc);
        count_locked(&net_sent, c->ctx);
        zm_net_unlock();
        return ZM_OK;
    }
    if (ZM_LIKELY(len <= zm_net_env_room())) {
        zm_net_lock();
        net_hdr_t *h = zm_net_env_buf_locked();
        hdr_fill(h, c, wdest, tag, bytes, HDR_EAGER);
        zm_dt_pack(eager_data(h), buf, count, dt, bytes);
        zm_net_env_send_locked(h, len, proc);
        count_locked(&net_sent, c->ctx);
        zm_net_unlock();
        return ZM_OK;
    }
    net_hdr_t *h = malloc(len);
    if (!h)
        return ZM_ERR_NOMEM;
    hdr_fill(h, c, wdest, tag, bytes, HDR_EAGER);
    zm_dt_pack(eager_data(h), buf, count, dt, bytes);
    zm_net_lock();
    zm_net_send_locked(h, len, proc, ZM_NET_TAG_ENV, 0, free_cb, h);
    count_locked(&net_sent, c->ctx);
    zm_net_unlock();
    return ZM_OK;
}

/* Envelope first (a copy of rs->hdr, from the network's pool), then the
 * contiguous data `data` with a fresh data tag, to process proc.  rs
 * (filled but for the header's data tag) completes what it names once the
 * data is out.  coll: a blocking collective's message (piece_for_locked). */
static void send_rndv(rsend_t *rs, const void *data, int proc, int sync, int coll)
{
    size_t bytes = rs->hdr.bytes;
    zm_net_lock();
    size_t piece = piece_for_locked(proc, bytes, coll);
    rs->proc = proc;
    rs->pieces = piece ? pieces_of(bytes, piece) : 0;
    if (piece)
        rs->hdr.kind = HDR_RTS_PIECES;
    rs->hdr.dtag = zm_net_data_tag_locked();
    net_hdr_t *h = zm_net_env_buf_locked();
    *h = rs->hdr;
    zm_net_env_send_first_locked(h, sizeof(*h), proc);
    count_locked(&net_sent, rs->hdr.ctx);
    if (piece == 0) {
        rs->left = 1;
        zm_net_send_locked(data, bytes, proc, rs->hdr.dtag, sync, rsend_done, rs);
    } else {
        /* Every piece counted before the first is sent, so that rs is
         * freed after the last one whatever the order of their
         * completions.  A synchronous send's
         * first piece goes synchronously: it completes once the receiver
         * posted its receives, that is once a receive matched. */
        int dtag = rs->hdr.dtag;
        rs->left = rs->pieces;
        for (size_t off = 0; off < bytes; off += piece)
            zm_net_send_locked((const char *)data + off, bytes - off < piece ? bytes - off : piece,
                               proc, dtag, sync && off == 0, rsend_done, rs);
    }
    zm_net_unlock();
}

/* A buffered send: the data goes to the attached buffer first (so a send
 * that does not fit fails as it would locally), and the segment is given
 * back once the system MPI is done with it. */
static zm_status_t send_buffered(const zm_p2p_comm_t *c, const void *buf, size_t count,
                                 const zm_dt_t *dt, size_t bytes, int wdest, int tag)
{
    zm_msg_t *m;
    zm_status_t rc = zm_p2p_bsend_reserve(zm_p2p_self(), bytes, &m);
    /* An earlier buffered message's segment comes back when a poll sees
     * the system MPI done with its data, and that can come after the
     * receiver's answer to it (Open MPI sees a sent fragment done only
     * when the receiver hands it back): a program that waited for the
     * answer rightly expects the room.  So it polls (zm_ult_yield runs
     * the network's poll), up to 10 ms, before a send that does not fit
     * is refused (net_openmpi_p2p_persistent failed with MPI_ERR_BUFFER
     * about once in 20 runs under load). */
    uint64_t until = 0;
    while (rc == ZM_ERR_BUFFER) {
        uint64_t now = zm_arch_time_ns();
        if (!until)
            until = now + 10 * 1000 * 1000;
        else if (now > until)
            break;
        zm_ult_yield();
        rc = zm_p2p_bsend_reserve(zm_p2p_self(), bytes, &m);
    }
    if (rc != ZM_OK)
        return rc;
    m->kind = ZM_MSG_BUFFERED;
    zm_dt_pack(m->data, buf, count, dt, bytes);
    rsend_t *rs = calloc(1, sizeof(*rs));
    if (!rs) {
        zm_p2p_bsend_release(m);
        return ZM_ERR_NOMEM;
    }
    hdr_fill(&rs->hdr, c, wdest, tag, bytes, HDR_RTS);
    rs->bmsg = m;
    send_rndv(rs, m->data, zm_net_proc_of(wdest), 0, 0);
    return ZM_OK;
}

void zm_p2p_remote_counts(long *sent, long *arrived)
{
    *sent = atomic_load_explicit(&net_sent, memory_order_relaxed);
    *arrived = atomic_load_explicit(&net_arrived, memory_order_relaxed);
}

/* zm_p2p_remote_isend but for the blocking send of a few bytes: the
 * other protocols, kept out of line so that the common send's frame
 * stays small. */
static __attribute__((noinline)) zm_status_t
remote_isend_other(const zm_p2p_comm_t *c, const void *buf, size_t count, const zm_dt_t *dt,
                   int wdest, int tag, int mode, zm_req_t *req)
{
    size_t bytes = zm_dt_bytes(dt, count);
    int proc = zm_net_proc_of(wdest);
    size_t eager = c->net_eager ? c->net_eager : net_eager_for(proc);
    zm_status_t rc;
    /* A request of the pool is a non-blocking send's (MPI_Isend, a
     * persistent send's start); blocking sends use requests of their own
     * (pooled 0), which are sent at once, and so do collectives but for
     * the blocking ones' (zm_p2p_isend_batch), whose rank polls next. */
    int coll = (mode & ZM_SEND_BATCH) != 0, batch = req->pooled || coll;
    mode &= ~ZM_SEND_BATCH;
    if (mode == ZM_SEND_BUFFERED) {
        if ((rc = send_buffered(c, buf, count, dt, bytes, wdest, tag)) != ZM_OK)
            return rc;
        zm_p2p_count_sent(ZM_PROTO_BUFFERED, bytes);
        atomic_store_explicit(&req->cstate, ZM_REQ_DONE, memory_order_relaxed);
        return ZM_OK;
    }
    if (bytes <= eager && mode != ZM_SEND_SYNC) {
        if ((rc = send_eager(c, buf, count, dt, bytes, wdest, proc, tag, batch)) != ZM_OK)
            return rc;
        zm_p2p_count_sent(ZM_PROTO_EAGER, bytes);
        atomic_store_explicit(&req->cstate, ZM_REQ_DONE, memory_order_relaxed);
        return ZM_OK;
    }
    rsend_t *rs = calloc(1, sizeof(*rs));
    if (!rs)
        return ZM_ERR_NOMEM;
    hdr_fill(&rs->hdr, c, wdest, tag, bytes, HDR_RTS);
    rs->req = req;
    const void *data = buf;
    if (!dt->contig && bytes > 0) {
        /* Packed: measured against the system MPI's own derived types
         * built from the layout (docs/net.md). */
        if (!(rs->tmp = malloc(bytes))) {
            free(rs);
            return ZM_ERR_NOMEM;
        }
        zm_dt_pack(rs->tmp, buf, count, dt, bytes);
        data = rs->tmp;
    }
    zm_p2p_count_sent(ZM_PROTO_RNDV, bytes);
    send_rndv(rs, data, proc, mode == ZM_SEND_SYNC, coll);
    return ZM_OK;
}

zm_status_t zm_p2p_remote_isend(const zm_p2p_comm_t *c, const void *buf, size_t count,
                                const zm_dt_t *dt, int wdest, int tag, int mode, zm_req_t *req)
{
    /* The common blocking send of a few bytes first (MPI_Send, MPI_Rsend;
     * a request of the pool, or ZM_SEND_BATCH, is a non-blocking send's or
     * a collective's, which may join a batch). */
    if (ZM_LIKELY(!req->pooled && (mode == ZM_SEND_STD || mode == ZM_SEND_READY))) {
        size_t bytes = zm_dt_bytes(dt, count);
        if (ZM_LIKELY(EAGER_HDR + bytes <= net_send_now_max)) {
            int proc = zm_net_proc_of(wdest);
            if (bytes <= (c->net_eager ? c->net_eager : net_eager_for(proc))) {
                send_now(c, buf, count, dt, bytes, wdest, proc, tag);
                atomic_store_explicit(&req->cstate, ZM_REQ_DONE, memory_order_relaxed);
                return ZM_OK;
            }
        }
    }
    return remote_isend_other(c, buf, count, dt, wdest, tag, mode, req);
}

/* ---- Receiving ----------------------------------------------------------- */

static void rrecv_done(void *arg)
{
    rrecv_t *rv = arg;
    if (--rv->left > 0)
        return;
    zm_req_t *rr = rv->rr;
    if (rv->tmp) {
        zm_dt_unpack(rr->buf, rr->count, rr->dt, rv->tmp, rv->n);
        free(rv->tmp);
    }
    free(rv);
    zm_p2p_req_complete(rr);
}

/* With the network lock held: post the receives of a rendezvous's data
 * from process `proc` (tag dtag, `bytes` bytes) into dst, in pieces of
 * `piece` bytes if the sender sent it so (0: one message), done(arg) once
 * per piece. */
static void rndv_post_locked(void *dst, size_t bytes, int proc, int dtag, size_t piece,
                             zm_net_done_fn *done, void *arg)
{
    if (piece == 0) {
        zm_net_recv_locked(dst, bytes, proc, dtag, done, arg);
        return;
    }
    for (size_t off = 0; off < bytes; off += piece)
        zm_net_recv_locked((char *)dst + off, bytes - off < piece ? bytes - off : piece, proc,
                           dtag, done, arg);
}

/* The pieces rndv_post_locked posts for `bytes` bytes in pieces of
 * `piece` bytes. */
static int rndv_pieces(size_t bytes, size_t piece)
{
    return piece == 0 ? 1 : pieces_of(bytes, piece);
}

/* Where an unexpected rendezvous's data comes from, kept in its message's
 * scount: the process (bits 0-31), the data tag (32-62, a positive
 * int32) and whether it travels in pieces (63). */
static inline uint64_t rndv_where(int proc, int dtag, int pieces)
{
    return (uint64_t)(uint32_t)proc | ((uint64_t)(uint32_t)dtag << 32) |
           ((uint64_t)(pieces != 0) << 63);
}

/* The piece size of a rendezvous whose envelope had kind `kind`. */
static inline size_t rndv_piece(int kind)
{
    return kind == HDR_RTS_PIECES ? net_piece : 0;
}

/* With the network lock held: receive the data of a rendezvous from
 * process `proc` (tag dtag, `bytes` bytes) into rr, whose status says how
 * many fit.  Straight into the buffer when it is contiguous and the whole
 * message fits; else through a temporary block. */
static void rndv_recv_locked(zm_req_t *rr, int proc, int dtag, size_t bytes, size_t piece)
{
    rrecv_t *rv = malloc(sizeof(*rv));
    size_t n = rr->st_error == ZM_ERR_TRUNCATE ? zm_dt_bytes(rr->dt, rr->count) : bytes;
    void *dst = rr->buf;
    int staged = !rr->dt->contig || n != bytes;
    if (rv)
        rv->tmp = NULL;
    if (rv && staged)
        dst = rv->tmp = malloc(bytes ? bytes : 1);
    /* A contiguous buffer may well be NULL (zero bytes, e.g. an empty
     * synchronous send): only a failed allocation is an error. */
    if (!rv || (staged && !dst)) {
        fprintf(stderr, "zmpi: out of memory receiving a %zu-byte message\n", bytes);
        zm_net_abort(1);
    }
    rv->rr = rr;
    rv->n = n;
    rv->left = rndv_pieces(bytes, piece);
    rndv_post_locked(dst, bytes, proc, dtag, piece, rrecv_done, rv);
}

void zm_p2p_remote_deliver(zm_msg_t *m, zm_req_t *rr)
{
    uint64_t where = m->scount;
    zm_net_lock();
    rndv_recv_locked(rr, (int)(where & 0xffffffffu), (int)((where >> 32) & 0x7fffffffu),
                     m->bytes, where >> 63 ? net_piece : 0);
    zm_net_unlock();
    free(m);
}

/* An eager message for r's armed slot: copy it there if it fits.  Returns
 * 1 if taken; otherwise nudges a matching slot (the poller looks in the
 * queue then) and returns 0.  With r's lock held. */
static int slot_fill(zm_p2p_rank_t *r, const net_hdr_t *h, const void *data)
{
    if (ZM_LIKELY(atomic_load_explicit(&r->slot_state, memory_order_relaxed) != ZM_SLOT_ARMED))
        return 0;
    if (!match(r->slot_ctx, r->slot_src, r->slot_tag, h->ctx, h->src, h->tag))
        return 0;
    if (h->kind != HDR_EAGER || h->bytes > r->slot_bytes) {
        atomic_store_explicit(&r->slot_state, ZM_SLOT_NUDGED, memory_order_relaxed);
        return 0;
    }
    copy_bytes(r->slot_buf, data, h->bytes);
    r->slot_src = h->src;
    r->slot_tag = h->tag;
    r->slot_bytes = (uint32_t)h->bytes;
    atomic_store_explicit(&r->slot_state, ZM_SLOT_FILLED, memory_order_release);
    return 1;
}

/* ---- Messages of collectives that stopped ------------------------------
 *
 * A collective that stops at a mismatch (src/coll/net_msg.c) cancels its
 * receives, but its peers in other processes may still send to it: a
 * late peer sends its signature, and its data by rendezvous when it is
 * large, after the receiver stopped.  Such a rendezvous would stay
 * pending in the sender's process forever (and keep the job-wide
 * deadlock detection from seeing the sender wait).  So the stopped rank
 * names its collective here, and every message of it that reaches the
 * rank without meeting a posted receive, or that already waits in its
 * unexpected queue, is taken in and dropped: an eager one at once, a
 * rendezvous by receiving its data into a scratch block.  The
 * collective's tag is its number on the communicator, which no other
 * collective of it reuses (for 2^29 collectives); the entries of a
 * communicator go when it is freed. */

/* A stopped collective: rank `dst`'s messages on (ctx, tag). */
typedef struct drop {
    struct drop *next;
    int dst;               /* the receiving rank's world rank */
    uint32_t ctx;          /* the communicator's collective context */
    int tag;               /* the collective's tag */
} drop_t;

static drop_t *drops;          /* under the network lock */
static _Atomic int ndrops;     /* its entries, read without the lock */

/* Whether rank dst's message (ctx, tag) belongs to a stopped collective.
 * Network lock held. */
static int drop_wanted(int dst, uint32_t ctx, int tag)
{
    for (const drop_t *d = drops; d; d = d->next)
        if (d->dst == dst && d->ctx == ctx && d->tag == tag)
            return 1;
    return 0;
}

/* A dropped rendezvous's data is in (every piece): free it. */
static void drop_done(void *arg)
{
    rrecv_t *rv = arg;
    if (--rv->left > 0)
        return;
    free(rv->tmp);
    free(rv);
}

/* Take in and drop the data of a rendezvous from process `proc` (data tag
 * dtag, `bytes` bytes): its sender then completes.  Network lock held. */
static void drop_rndv_locked(int proc, int dtag, size_t bytes, size_t piece)
{
    rrecv_t *rv = malloc(sizeof(*rv));
    void *scratch = malloc(bytes ? bytes : 1);
    if (!rv || !scratch) {
        fprintf(stderr, "zmpi: out of memory dropping a %zu-byte message\n", bytes);
        zm_net_abort(1);
    }
    rv->tmp = scratch;
    rv->left = rndv_pieces(bytes, piece);
    rndv_post_locked(scratch, bytes, proc, dtag, piece, drop_done, rv);
}

/* Drop the messages of (ctx, tag) that already wait in r's unexpected
 * queue, from other processes (those of its own process have senders that
 * this file cannot release).  Network lock held. */
static void drop_queued_locked(zm_p2p_rank_t *r, uint32_t ctx, int tag)
{
    zm_spin_lock(&r->lock);
    zm_dlink_t *pos = r->unexp.next;
    while (pos != &r->unexp) {
        zm_msg_t *m = zm_container_of(pos, zm_msg_t, link);
        pos = pos->next;
        if (m->ctx != ctx || m->tag != tag ||
            (m->kind != ZM_MSG_NET_EAGER && m->kind != ZM_MSG_NET_RNDV))
            continue;
        unexp_take(r, m);
        if (m->kind == ZM_MSG_NET_RNDV)
            drop_rndv_locked((int)(m->scount & 0xffffffffu),
                             (int)((m->scount >> 32) & 0x7fffffffu), m->bytes,
                             m->scount >> 63 ? net_piece : 0);
        free(m); /* the arrived packet, envelope and data in one block */
    }
    zm_spin_unlock(&r->lock);
}

void zm_p2p_remote_drop(int wrank, uint32_t ctx, int tag)
{
    if (!zm_net_remote)
        return; /* one process: nothing arrives through the network */
    drop_t *d = malloc(sizeof(*d));
    zm_net_lock();
    if (d) {
        *d = (drop_t){ drops, wrank, ctx, tag };
        drops = d;
        atomic_fetch_add_explicit(&ndrops, 1, memory_order_relaxed);
    }
    /* Without memory for the entry, late arrivals wait as before; what
     * is queued already still goes. */
    drop_queued_locked(&zm_p2p_ranks[wrank], ctx, tag);
    zm_net_unlock();
}

void zm_p2p_remote_undrop(int wrank, uint32_t ctx)
{
    /* Entries are only added by the collectives of the communicator that
     * is being freed here, which have all ended: a count of 0 seen here
     * is not stale for them. */
    if (atomic_load_explicit(&ndrops, memory_order_relaxed) == 0)
        return;
    zm_net_lock();
    for (drop_t **pp = &drops; *pp;) {
        drop_t *d = *pp;
        if (d->dst != wrank || d->ctx != ctx) {
            pp = &d->next;
            continue;
        }
        *pp = d->next;
        free(d);
        atomic_fetch_sub_explicit(&ndrops, 1, memory_order_relaxed);
    }
    zm_net_unlock();
}

/* arrive() for an envelope that no armed slot took, r->lock held (and
 * released here): a posted receive, a dropped collective's message or
 * the unexpected queue.  Out of line, so that the slot's path, the
 * common one of a rank waiting in a receive, keeps a small frame. */
static __attribute__((noinline)) void arrive_other(zm_p2p_rank_t *r, void *pkt, size_t bytes,
                                                   int src_proc)
{
    net_hdr_t *h = (net_hdr_t *)((char *)pkt + HEADROOM);
    void *data = eager_data(h); /* read only for eager envelopes */
    zm_req_t *probes = NULL;
    zm_req_t *rr = find_posted(r, h->ctx, h->src, h->tag, &probes);
    if (rr) {
        zm_dlist_unlink(&rr->link);
        rr->in_posted = 0;
        size_t n = recv_status(rr, h->src, h->tag, h->bytes);
        zm_spin_unlock(&r->lock);
        if (h->kind == HDR_EAGER) {
            zm_dt_unpack(rr->buf, rr->count, rr->dt, data, n);
            zm_p2p_req_complete(rr);
        } else {
            rndv_recv_locked(rr, src_proc, h->dtag, h->bytes, rndv_piece(h->kind));
        }
        wake_probes(probes);
        return;
    }
    /* A late message of a collective that stopped: dropped. */
    if (ZM_UNLIKELY(atomic_load_explicit(&ndrops, memory_order_relaxed) > 0) &&
        drop_wanted(h->dst, h->ctx, h->tag)) {
        zm_spin_unlock(&r->lock);
        if (h->kind != HDR_EAGER)
            drop_rndv_locked(src_proc, h->dtag, h->bytes, rndv_piece(h->kind));
        wake_probes(probes);
        return;
    }
    /* Unexpected: the envelope outlives this call (pkt is the network's
     * receive buffer, posted again after it), so it gets a block of its
     * own, sized to it: a malloc and a copy of at most zm_net_env_room()
     * bytes under the receiver's lock, which the engine paid for every
     * envelope before the preposted receives. */
    zm_msg_t *m = zm_net_keep(pkt, bytes);
    h = (net_hdr_t *)((char *)m + HEADROOM);
    m->kind = h->kind == HDR_EAGER ? ZM_MSG_NET_EAGER : ZM_MSG_NET_RNDV;
    m->ctx = h->ctx;
    m->src = h->src;
    m->tag = h->tag;
    m->bytes = h->bytes;
    m->data = eager_data(h);
    m->sreq = NULL;
    m->sbuf = NULL;
    /* An eager envelope has no dtag (EAGER_HDR), and its block may end
     * before where it would be. */
    m->scount = h->kind == HDR_EAGER ? 0 : rndv_where(src_proc, h->dtag, h->kind == HDR_RTS_PIECES);
    atomic_store_explicit(&m->ready, 1, memory_order_relaxed);
    unexp_push(r, &r->unexp, m);
    zm_spin_unlock(&r->lock);
    wake_probes(probes);
}

/* The engine's handler (network lock held): match an arrived envelope at
 * its receiver, or queue it there as unexpected (a block of its own:
 * zm_net_keep).  pkt is the network's, valid during the call only. */
static void arrive(void *pkt, size_t bytes, int src_proc)
{
    net_hdr_t *h = (net_hdr_t *)((char *)pkt + HEADROOM);
    if (ZM_UNLIKELY(h->kind >= ZM_NET_KIND_RMA)) {
        zm_net_arrive_rma(pkt, bytes, src_proc); /* a one-sided request or reply */
        return;
    }
    zm_p2p_rank_t *r = &zm_p2p_ranks[h->dst];
    count_locked(&net_arrived, h->ctx);
    zm_spin_lock(&r->lock);
    if (slot_fill(r, h, eager_data(h))) {
        zm_spin_unlock(&r->lock);
        return;
    }
    arrive_other(r, pkt, bytes, src_proc);
}

void zm_p2p_remote_init(void)
{
    const char *e = getenv("ZMPI_NET_EAGER_MAX");
    if (e && *e) {
        char *end;
        unsigned long long v = strtoull(e, &end, 10);
        if (*end == '\0') {
            net_eager_default = (size_t)v;
            net_eager_given = 1;
        }
    }
    /* The backend's threshold within a node, kept to what one preposted
     * receive takes: a larger eager envelope would cost the receiver an
     * announcement and a second message (net_env.c). */
    size_t node = zm_net_eager_node(), room = zm_net_env_room() - EAGER_HDR;
    net_eager_node = node < NET_EAGER_NODE_MIN ? NET_EAGER_NODE_MIN : node;
    if (net_eager_node > room)
        net_eager_node = room;
    net_piece = zm_net_piece_node(&net_piece_max);
    net_send_now_max = zm_net_env_send_max();
    if (net_send_now_max > SEND_NOW_STACK)
        net_send_now_max = SEND_NOW_STACK;
    /* The least threshold of any destination: the job's, or the smaller
     * of the node's and the default between nodes. */
    size_t least = net_eager_given ? net_eager_default
                   : net_eager_node < NET_EAGER_DEFAULT ? net_eager_node : NET_EAGER_DEFAULT;
    if (net_send_now_max >= EAGER_HDR) {
        size_t most = net_send_now_max - EAGER_HDR;
        zm_p2p_net_now_lim = (most < least ? most : least) + 1;
    }
    zm_net_set_handler(arrive, HEADROOM);
    zm_ult_set_poll(zm_net_poll);
}
