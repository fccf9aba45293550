/*
 * p2p_impl.h: matching helpers shared by the files of the p2p layer: the
 * local protocols (p2p.c) and the injection of messages that arrive from
 * other processes (remote.c), which must match exactly as a local send
 * does.
 */
#ifndef ZM_P2P_IMPL_H
#define ZM_P2P_IMPL_H

#include "p2p/p2p.h"

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

/* ---- Messages of other processes (remote.c) ---- */

/* Start a send to world rank `wdest` of another process, as zm_p2p_isend
 * does for a local one (which has reset and filled `req`): eagerly up to
 * the communicator's network threshold, else by rendezvous.  ULT context,
 * the sending rank. */
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

#endif /* ZM_P2P_IMPL_H */
