/*
 * probe.c: looking at arrived messages without receiving them (MPI_Probe,
 * MPI_Iprobe and the matched probes), and taking back a send that no
 * receive has matched yet (MPI_Cancel).  The queues and protocols they
 * look at are p2p.c's and ring.c's.
 */
#include "p2p/p2p_impl.h"

zm_msg_t *zm_p2p_probe(const zm_p2p_comm_t *c, int src, int tag, int take)
{
    zm_p2p_rank_t *me = zm_p2p_self();
    zm_spin_lock(&me->lock);
    zm_p2p_ring_drain(me);
    zm_p2p_mail_spill(me);
    zm_msg_t *m = find_unexp(me, c->ctx, src, tag);
    if (m && take)
        unexp_take(me, m);
    zm_spin_unlock(&me->lock);
    return m;
}

zm_msg_t *zm_p2p_probe_wait(const zm_p2p_comm_t *c, int src, int tag, int take)
{
    zm_p2p_rank_t *me = zm_p2p_self();
    for (;;) {
        zm_req_t pr, *prp = &pr;
        zm_spin_lock(&me->lock);
        zm_p2p_ring_drain(me);
        zm_p2p_mail_spill(me);
        zm_msg_t *m = find_unexp(me, c->ctx, src, tag);
        if (m) {
            if (take)
                unexp_take(me, m);
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

/* Withdraw send req's message from its receiver r if no receive has
 * matched it.  Returns 0 (not withdrawn), 1 (a rendezvous: req is still
 * pending) or 2 (req completed when it queued its data, which is now
 * dropped).  Called with r's lock held; *drop receives an envelope to
 * release once the lock is dropped. */
static int send_withdraw(zm_p2p_rank_t *r, zm_req_t *req, zm_msg_t **drop)
{
    zm_msg_t *m = req->smsg;
    *drop = NULL;
    if ((m == ZM_P2P_RING_MSG || m == ZM_P2P_RING_LOAN) && !(m = zm_p2p_ring_find(r, req)))
        return 0;
    if (m == &req->msg) {
        if (zm_p2p_req_done(req) || m->link.next == &m->link || !zm_p2p_unexp_holds(r, m))
            return 0;
        unexp_take(r, m);
        return 1;
    }
    if (m == &r->mail_msg &&
        atomic_load_explicit(&r->slot_state, memory_order_relaxed) == ZM_SLOT_MAIL &&
        r->slot_buf == req) {
        atomic_store_explicit(&r->slot_state, ZM_SLOT_EMPTY, memory_order_relaxed);
        return 2;
    }
    /* An eager or buffered envelope, or spilled mail: still ours if it is
     * queued and names req (an envelope matched and reused by another
     * send names that one). */
    if (!zm_p2p_unexp_holds(r, m) || m->sreq != req)
        return 0;
    unexp_take(r, m);
    *drop = m;
    return 2;
}

int zm_p2p_cancel(zm_req_t *req)
{
    int done = 0;
    if (req->kind == ZM_REQ_RECV) {
        zm_p2p_rank_t *me = &zm_p2p_ranks[req->owner];
        zm_spin_lock(&me->lock);
        zm_p2p_ring_drain(me);
        if (req->in_posted) {
            zm_dlist_remove(&req->link);
            req->in_posted = 0;
            done = 1;
        }
        zm_spin_unlock(&me->lock);
    } else if (req->kind == ZM_REQ_SEND && req->smsg) {
        zm_p2p_rank_t *r = &zm_p2p_ranks[req->owner];
        zm_msg_t *drop;
        zm_spin_lock(&r->lock);
        zm_p2p_ring_drain(r);
        done = send_withdraw(r, req, &drop);
        zm_spin_unlock(&r->lock);
        if (drop)
            zm_p2p_msg_release(drop);
        req->smsg = NULL;
    }
    if (!done)
        return 0;
    req->cancelled = 1;
    req->st_bytes = 0;
    /* A withdrawn eager, buffered or mail send completed long ago. */
    if (done == 1)
        zm_p2p_req_complete(req);
    return 1;
}

int zm_p2p_rank_quiet(int rank)
{
    zm_p2p_rank_t *r = zm_p2p_rank(rank);
    zm_spin_lock(&r->lock);
    /* Messages a ring still holds count as received: move them to the
     * queue first, where the check below sees them (draining needs the
     * lock: a sender falling back to the locked path drains too). */
    zm_p2p_ring_drain(r);
    /* Odd contexts are the collectives' own traffic: a faster rank's next
     * collective may already have sent to this one, legitimately. */
    int quiet = zm_dlist_empty(&r->posted);
    for (zm_dlink_t *l = r->unexp.next; quiet && l != &r->unexp; l = l->next)
        quiet = zm_container_of(l, zm_msg_t, link)->ctx & 1;
    uint8_t slot = atomic_load_explicit(&r->slot_state, memory_order_acquire);
    if (slot != ZM_SLOT_EMPTY && !(r->slot_ctx & 1))
        quiet = 0;
    zm_spin_unlock(&r->lock);
    return quiet;
}
