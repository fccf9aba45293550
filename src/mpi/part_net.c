/*
 * part_net.c: partitioned communication between ranks of different
 * processes (MPI 4.1 chapter 4; part.c does it inside one process).
 *
 * The two sides share no memory, so each keeps its round state itself,
 * under the network lock, and they talk through envelopes of their own
 * kind (ZM_NET_KIND_PART) on the network's ordered stream of envelopes
 * between two processes, the one point-to-point messages travel on:
 *   - INIT, sender to receiver's process, at MPI_Psend_init: the match key
 *     (context, sender's and receiver's world ranks, tag), the message's
 *     size and partitions, and the sender's channel id;
 *   - CTS, receiver to sender, at each MPI_Start of the receive (or when
 *     it matches, if it started before): "round k may be written into my
 *     buffer now", with the receiver's channel id;
 *   - DATA, sender to receiver: a run of consecutive send partitions of
 *     round k, packed, addressed by the receiver's channel id, with the
 *     byte range of the message it covers;
 *   - BAD, receiver to sender, when the sizes of a matched pair differ.
 * A channel id names a side in its own process (slot and generation in a
 * table), so a message for a side freed meanwhile is recognised and
 * dropped.
 *
 * Matching in init order.  Tags carry no channel number, so INITs are
 * matched in the receiver's process, in the order they arrive, which is
 * the order the sender made them (one ordered stream per pair of
 * processes), against the receives of the same key in the order they
 * were made: the oldest unmatched announcement meets the oldest
 * unmatched receive, as persistent operations match.
 *
 * Rounds.  A sender partition may be written into the receive buffer only
 * once the receiver has started that round (it may still read the last
 * one's data before), so MPI_Pready sends at once when the receiver's CTS
 * for the round is in, and otherwise only marks the partition, which the
 * CTS's arrival then sends.  Partitions readied together (Pready_range,
 * neighbours in a Pready_list) and those a CTS releases go as one DATA
 * per run of consecutive partitions.  The data is packed into the
 * envelope (by MPI_Pready outside the network lock, by a CTS's arrival
 * under it), so the sender's round completes when its last partition is
 * sent; the receiver's when its last byte is unpacked (under the lock,
 * as remote.c unpacks eager messages).  Arrivals are
 * handled by whichever thread progresses the network: an idle worker, a
 * waiting rank, or the progress thread, which every request here holds
 * on, so partitions arrive while the receiving rank computes.
 */
#include "part_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PN_INIT = 1, PN_CTS, PN_DATA, PN_BAD };

/* A partitioned-communication envelope; DATA's payload follows it.  80
 * bytes, so the payload starts 16-byte aligned. */
typedef struct pn_hdr {
    uint32_t ctx;          /* INIT: communicator context */
    int32_t swr;           /* INIT: sender's world rank */
    int32_t rwr;           /* INIT: receiver's world rank */
    int32_t tag;           /* INIT: tag */
    uint64_t total;        /* INIT, BAD: the message's bytes at the envelope's sender */
    int32_t kind;          /* ZM_NET_KIND_PART */
    int32_t op;            /* PN_* */
    uint64_t to;           /* CTS, DATA, BAD: the addressee's channel id */
    uint64_t from;         /* INIT, CTS: the envelope's sender's channel id */
    uint64_t round;        /* CTS, DATA: the round it belongs to */
    uint64_t off;          /* DATA: first byte of the message it carries */
    uint64_t len;          /* DATA: bytes it carries */
    int32_t nparts;        /* DATA: send partitions it carries */
    int32_t sparts;        /* INIT, DATA: the sender's partitions */
} pn_hdr_t;

_Static_assert(offsetof(pn_hdr_t, kind) == ZM_NET_KIND_AT, "kinds sit where net.h says");
_Static_assert(sizeof(pn_hdr_t) % 16 == 0, "payload stays 16-byte aligned");

/* One side's network channel. */
struct pnet {
    struct pnet *next;     /* receive: in the waiting list while unmatched */
    struct part *p;        /* the side */
    uint64_t id;           /* its id: generation << 32 | slot */
    uint64_t peer_id;      /* the peer side's id; 0 until known */
    int proc;              /* the peer's process */
    uint32_t ctx;          /* match key: context, */
    int swr, rwr;          /* sender's and receiver's world ranks (tag in p) */
    uint64_t peer_round;   /* send: the last round the receiver started (CTS) */
    int matched;           /* receive: met its sender's INIT */
};

/* An announcement no receive has met yet. */
struct pn_init {
    struct pn_init *next;  /* oldest first */
    void *pkt;             /* the envelope's block (freed with this) */
    const pn_hdr_t *h;     /* the INIT inside it */
};

/* The process's channels and unmatched announcements and receives, all
 * under the network lock.  One per process: it is what the network
 * delivers to, shared by nature. */
static struct {
    struct pnet **tab;     /* slot -> channel, NULL if free */
    uint32_t cap;          /* slots */
    uint32_t gen;          /* last generation handed out */
    struct pnet *wait_head, *wait_tail;    /* unmatched receives, oldest first */
    struct pn_init *init_head, *init_tail; /* unmatched INITs, oldest first */
} pn;

static void free_cb(void *arg)
{
    free(arg);
}

/* Out of memory for an envelope: the job ends, as remote.c's rendezvous
 * does, since most envelopes are made under the network lock (in a
 * handler, or where the call's outcome is already decided), where no
 * error can be given back to a caller. */
static __attribute__((noreturn)) void pn_oom(size_t bytes)
{
    fprintf(stderr, "zmpi: out of memory for a %zu-byte partitioned message\n", bytes);
    zm_net_abort(1);
}

/* The channel named id, or NULL if it is gone.  Network lock held. */
static struct pnet *pn_find(uint64_t id)
{
    uint32_t slot = (uint32_t)id;
    if (slot < pn.cap && pn.tab[slot] && pn.tab[slot]->id == id)
        return pn.tab[slot];
    return NULL;
}

/* Give n an id.  Returns 0, or -1 if out of memory.  Network lock held. */
static int pn_register(struct pnet *n)
{
    uint32_t slot = 0;
    while (slot < pn.cap && pn.tab[slot])
        slot++;
    if (slot == pn.cap) {
        uint32_t cap = pn.cap ? 2 * pn.cap : 16;
        struct pnet **t = realloc(pn.tab, cap * sizeof(*t));
        if (!t)
            return -1;
        memset(t + pn.cap, 0, (cap - pn.cap) * sizeof(*t));
        pn.tab = t;
        pn.cap = cap;
    }
    pn.tab[slot] = n;
    n->id = (uint64_t)++pn.gen << 32 | slot;
    return 0;
}

/* Send a copy of the header-only envelope tmpl (its op and fields set) to
 * process proc.  Network lock held. */
static void pn_send_ctl(const pn_hdr_t *tmpl, int proc)
{
    pn_hdr_t *h = malloc(sizeof(*h));
    if (!h)
        pn_oom(sizeof(*h));
    *h = *tmpl;
    h->kind = ZM_NET_KIND_PART;
    zm_net_send_locked(h, sizeof(*h), proc, ZM_NET_TAG_ENV, 0, free_cb, h);
}

/* Tell the sender of receive side n (matched) that round n->p->round may
 * be written.  Network lock held. */
static void pn_send_cts(struct pnet *n)
{
    pn_hdr_t h = { .op = PN_CTS, .to = n->peer_id, .from = n->id, .round = n->p->round };
    pn_send_ctl(&h, n->proc);
}

/* A DATA envelope for partitions [lo, hi] of send side p's round, the
 * data packed (the addressee is filled in when it is sent).  Needs no
 * lock: only p's rank changes what it reads. */
static pn_hdr_t *pn_build(struct part *p, int lo, int hi)
{
    size_t off = (size_t)lo * p->psize, len = (size_t)(hi - lo + 1) * p->psize;
    pn_hdr_t *h = malloc(sizeof(*h) + len);
    if (!h)
        pn_oom(len);
    *h = (pn_hdr_t){ .kind = ZM_NET_KIND_PART, .op = PN_DATA, .round = p->round, .off = off,
                     .len = len, .nparts = hi - lo + 1, .sparts = p->parts };
    if (len)
        zm_dt_pack_range(h + 1, p->buf, p->count, p->dt, off, len);
    return h;
}

/* Send h, built by pn_build for partitions from lo on, and count them as
 * sent; the receiver has started the round.  Network lock held. */
static void pn_post(struct part *p, pn_hdr_t *h, int lo)
{
    for (int i = lo; i < lo + h->nparts; i++)
        p->copied[i] = 1;
    p->ncopied += h->nparts;
    h->to = p->net->peer_id;
    zm_net_send_locked(h, sizeof(*h) + h->len, p->net->proc, ZM_NET_TAG_ENV, 0, free_cb, h);
}

/* Send every partition of send side p that is ready and not yet sent, a
 * run of consecutive ones per envelope.  Network lock held. */
static void pn_send_ready(struct part *p)
{
    for (int i = 0; i < p->parts; i++) {
        if (!p->ready[i] || p->copied[i])
            continue;
        int j = i;
        while (j + 1 < p->parts && p->ready[j + 1] && !p->copied[j + 1])
            j++;
        pn_post(p, pn_build(p, i, j), i);
        i = j;
    }
}

/* Complete the children collected by zm_mpi_part_settle. */
static void pn_complete(zm_req_t **fin, int nfin)
{
    for (int i = 0; i < nfin; i++)
        zm_p2p_req_complete(fin[i]);
}

/* Receive side n meets the sender's announcement h.  On a size mismatch
 * both sides' rounds fail: n is marked bad and the sender told.  Network
 * lock held. */
static void pn_match(struct pnet *n, const pn_hdr_t *h, zm_req_t **fin, int *nfin)
{
    struct part *p = n->p;
    n->matched = 1;
    n->peer_id = h->from;
    if (h->total != p->total) {
        pn_hdr_t b = { .op = PN_BAD, .to = h->from, .total = p->total };
        pn_send_ctl(&b, n->proc);
        p->bad = 1;
        p->peer_total = h->total;
        zm_mpi_part_settle(p, fin, nfin);
        return;
    }
    /* A receive started before its sender announced itself. */
    if (p->round > 0)
        pn_send_cts(n);
}

/* Whether announcement h is for receive side n. */
static int pn_key_eq(const struct pnet *n, const pn_hdr_t *h)
{
    return n->ctx == h->ctx && n->swr == h->swr && n->rwr == h->rwr && n->p->tag == h->tag;
}

/* INIT arrived: the oldest waiting receive of its key takes it, or it
 * waits for one.  Owns pkt.  Network lock held. */
static void pn_on_init(void *pkt, const pn_hdr_t *h)
{
    struct pnet *n, *prev = NULL;
    for (n = pn.wait_head; n && !pn_key_eq(n, h); prev = n, n = n->next)
        ;
    if (!n) {
        struct pn_init *e = malloc(sizeof(*e));
        if (!e)
            pn_oom(sizeof(*e));
        *e = (struct pn_init){ NULL, pkt, h };
        if (pn.init_tail)
            pn.init_tail->next = e;
        else
            pn.init_head = e;
        pn.init_tail = e;
        return;
    }
    if (prev)
        prev->next = n->next;
    else
        pn.wait_head = n->next;
    if (pn.wait_tail == n)
        pn.wait_tail = prev;
    n->next = NULL;
    zm_req_t *fin[1];
    int nfin = 0;
    pn_match(n, h, fin, &nfin);
    pn_complete(fin, nfin);
    free(pkt);
}

/* DATA arrived for a receive side: unpack it into the user's buffer and
 * count it.  Network lock held. */
static void pn_on_data(struct part *p, const pn_hdr_t *h)
{
    /* Only a receiver in the round its CTS opened gets data; anything
     * else belongs to a side that failed or was reset: drop it. */
    if (p->bad || p->done || h->round != p->round || h->off + h->len > p->total)
        return;
    if (h->len)
        zm_dt_unpack_range(p->buf, p->count, p->dt, h + 1, h->off, h->len);
    zm_mpi_part_account(p, h->off, h->len, h->nparts, h->sparts);
}

/* The network's handler for ZM_NET_KIND_PART envelopes (network lock
 * held, any thread).  Owns pkt. */
static void pn_arrive(void *pkt, void *msg, size_t bytes, int src_proc)
{
    (void)bytes;
    (void)src_proc;
    const pn_hdr_t *h = msg;
    if (h->op == PN_INIT) {
        pn_on_init(pkt, h);
        return;
    }
    struct pnet *n = pn_find(h->to);
    zm_req_t *fin[1];
    int nfin = 0;
    if (n && h->op == PN_DATA && !n->p->send) {
        pn_on_data(n->p, h);
    } else if (n && h->op == PN_CTS && n->p->send) {
        n->peer_id = h->from;
        n->peer_round = h->round;
        if (n->p->round == h->round && !n->p->bad)
            pn_send_ready(n->p);
    } else if (n && h->op == PN_BAD && n->p->send) {
        n->p->bad = 1;
        n->p->peer_total = h->total;
    }
    if (n)
        zm_mpi_part_settle(n->p, fin, &nfin);
    pn_complete(fin, nfin);
    free(pkt);
}

/* Installed when the library is loaded: an INIT may reach a process
 * before any of its ranks made a partitioned request. */
__attribute__((constructor)) static void pn_install(void)
{
    zm_net_set_part_handler(pn_arrive);
}

/* A receive side looks for its announcement; none: it waits in the list.
 * Returns MPI_SUCCESS or MPI_ERR_TRUNCATE (see zm_mpi_part_net_init).
 * Network lock held. */
static int pn_init_recv(struct pnet *n, size_t *peer_total)
{
    struct pn_init *e, *prev = NULL;
    for (e = pn.init_head; e && !pn_key_eq(n, e->h); prev = e, e = e->next)
        ;
    if (!e) {
        if (pn.wait_tail)
            pn.wait_tail->next = n;
        else
            pn.wait_head = n;
        pn.wait_tail = n;
        return MPI_SUCCESS;
    }
    if (prev)
        prev->next = e->next;
    else
        pn.init_head = e->next;
    if (pn.init_tail == e)
        pn.init_tail = prev;
    int rc = MPI_SUCCESS;
    if (e->h->total != n->p->total) {
        /* As in one process: the second side's init fails, the first
         * side's rounds fail. */
        pn_hdr_t b = { .op = PN_BAD, .to = e->h->from, .total = n->p->total };
        pn_send_ctl(&b, n->proc);
        *peer_total = e->h->total;
        rc = MPI_ERR_TRUNCATE;
    } else {
        n->matched = 1;
        n->peer_id = e->h->from;
    }
    free(e->pkt);
    free(e);
    return rc;
}

/* A send announces itself; a receive matches or waits.  The progress
 * thread is held for the request's life, so partitions arrive while the
 * receiving rank computes. */
int zm_mpi_part_net_init(struct part *p, uint32_t ctx, int swr, int rwr, size_t *peer_total)
{
    struct pnet *n = malloc(sizeof(*n));
    if (!n)
        return MPI_ERR_NO_MEM;
    *n = (struct pnet){ .p = p, .ctx = ctx, .swr = swr, .rwr = rwr,
                        .proc = zm_net_proc_of(p->send ? rwr : swr) };
    int rc = MPI_SUCCESS;
    zm_net_lock();
    if (pn_register(n) != 0) {
        rc = MPI_ERR_NO_MEM;
    } else if (p->send) {
        pn_hdr_t h = { .op = PN_INIT, .ctx = ctx, .swr = swr, .rwr = rwr, .tag = p->tag,
                       .total = p->total, .from = n->id, .sparts = p->parts };
        pn_send_ctl(&h, n->proc);
    } else {
        rc = pn_init_recv(n, peer_total);
    }
    if (rc == MPI_SUCCESS)
        p->net = n;
    else if (n->id)
        pn.tab[(uint32_t)n->id] = NULL;
    zm_net_unlock();
    if (rc != MPI_SUCCESS) {
        free(n);
        return rc;
    }
    zm_net_progress_hold();
    return MPI_SUCCESS;
}

void zm_mpi_part_net_start(struct part *p)
{
    struct pnet *n = p->net;
    zm_req_t *fin[1];
    int nfin = 0;
    zm_net_lock();
    zm_mpi_part_round_reset(p);
    if (!p->send && n->matched && !p->bad)
        pn_send_cts(n);
    zm_mpi_part_settle(p, fin, &nfin);
    zm_net_unlock();
    pn_complete(fin, nfin);
}

/* The last index of the run of list[] that starts at k and goes on with
 * consecutive partitions (list[k] + 1, list[k] + 2, ...), up to hi. */
static int pn_run_end(const int *list, int k, int hi)
{
    while (k < hi && list[k + 1] == list[k] + 1)
        k++;
    return k;
}

/* The packing happens outside the network lock, so that other ranks'
 * messages are not held up behind a large copy: once the receiver's CTS
 * for this round is in it stays in (only this rank starts rounds), and
 * the partitions are marked ready only when they are sent, so the CTS
 * handler cannot send them meanwhile. */
void zm_mpi_part_net_ready(struct part *p, int lo, int hi, const int *list)
{
    zm_req_t *fin[1];
    int nfin = 0, nruns = 0;
    zm_net_lock();
    int go = p->net->peer_round >= p->round && !p->bad;
    zm_net_unlock();
    struct { int lo; pn_hdr_t *h; } *runs = go ? malloc(sizeof(*runs) * (size_t)(hi - lo + 1))
                                              : NULL;
    for (int k = lo; runs && k <= hi; k++) {
        int e = list ? pn_run_end(list, k, hi) : hi;
        int first = list ? list[k] : k, last = list ? list[e] : hi;
        runs[nruns].lo = first;
        runs[nruns++].h = pn_build(p, first, last);
        k = e;
    }
    zm_net_lock();
    for (int k = lo; k <= hi; k++)
        p->ready[list ? list[k] : k] = 1;
    for (int r = 0; r < nruns; r++) {
        if (p->bad)
            free(runs[r].h); /* the round failed meanwhile: nothing to send */
        else
            pn_post(p, runs[r].h, runs[r].lo);
    }
    /* Not packed above (no CTS then, or no memory for the list): send
     * what may go now under the lock. */
    if (!runs && p->net->peer_round >= p->round && !p->bad)
        pn_send_ready(p);
    zm_mpi_part_settle(p, fin, &nfin);
    zm_net_unlock();
    free(runs);
    pn_complete(fin, nfin);
}

int zm_mpi_part_net_arrived(struct part *p, int j)
{
    /* A polling loop of MPI_Parrived must move the network itself when no
     * other thread does (the rank may hold its process's only worker). */
    zm_net_poll();
    zm_net_lock();
    int flag = p->bad || zm_mpi_part_arrived(p, j);
    zm_net_unlock();
    return flag;
}

void zm_mpi_part_net_release(struct part *p)
{
    struct pnet *n = p->net;
    zm_net_lock();
    pn.tab[(uint32_t)n->id] = NULL;
    struct pnet **pp = &pn.wait_head, *prev = NULL;
    for (; *pp; prev = *pp, pp = &(*pp)->next) {
        if (*pp != n)
            continue;
        *pp = n->next;
        if (pn.wait_tail == n)
            pn.wait_tail = prev;
        break;
    }
    zm_net_unlock();
    p->net = NULL;
    free(n);
    zm_net_progress_release();
}
