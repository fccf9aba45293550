/*
 * wait.c: blocking on requests.
 *
 * A waiting rank stores its own address in the cstate word of every request
 * it waits for and counts them in `pending`.  A completer swaps DONE into
 * cstate; if it finds the waiter there it decrements `pending`, and the one
 * that brings it to zero wakes the rank.  A guard unit in `pending`, dropped
 * only after the rank's context is saved (zm_ult_park's commit), keeps a
 * completion that races with registration from waking a rank that is still
 * running.
 */
#include "p2p/p2p_impl.h"

#include <stdio.h>
#include <string.h>

static int wait_commit(void *arg)
{
    zm_p2p_rank_t *me = arg;
    return atomic_fetch_sub_explicit(&me->pending, 1, memory_order_acq_rel) == 1;
}

/* Waiting for any, `pending` starts at ANY_GUARD + 1 and every completer
 * that takes a registration subtracts 1, waking the rank if it saw exactly
 * 1.  Completers alone can never bring it that low while the guard is in;
 * dropping the guard (on parking, or on finding a request already complete)
 * leaves 1 if nobody completed yet, so exactly one later completer wakes
 * the rank, and 0 or less otherwise, so none does. */
#define ANY_GUARD (1 << 30)

/* Park commit waiting for any: drop the guard; stay running if a completer
 * already came. */
static int wait_commit_any(void *arg)
{
    zm_p2p_rank_t *me = arg;
    return atomic_fetch_sub_explicit(&me->pending, ANY_GUARD, memory_order_acq_rel) -
           ANY_GUARD <= 0;
}

/* Register `me` in every pending request; returns how many registered and
 * how many were found already complete. */
static int wait_register(zm_p2p_rank_t *me, zm_req_t *const *reqs, int n, int need_all,
                         int *n_done)
{
    int reg = 0;
    *n_done = 0;
    for (int i = 0; i < n; i++) {
        zm_req_t *r = reqs[i];
        uintptr_t expect = ZM_REQ_PENDING;
        if (!r)
            continue;
        if (need_all)
            atomic_fetch_add_explicit(&me->pending, 1, memory_order_relaxed);
        if (atomic_compare_exchange_strong_explicit(&r->cstate, &expect, (uintptr_t)me,
                                                    memory_order_acq_rel,
                                                    memory_order_acquire)) {
            reg++;
            if (!me->wait_req)
                me->wait_req = r;
        } else {
            /* Already complete: it no longer counts (all), or it is the
             * completion we needed (any; counted once by the caller). */
            if (need_all)
                atomic_fetch_sub_explicit(&me->pending, 1, memory_order_relaxed);
            (*n_done)++;
        }
    }
    return reg;
}

/* Take `me` back out of requests that did not complete; returns how many
 * registrations were withdrawn.  The others were taken by completers. */
static int wait_unregister(zm_p2p_rank_t *me, zm_req_t *const *reqs, int n)
{
    int withdrawn = 0;
    for (int i = 0; i < n; i++) {
        zm_req_t *r = reqs[i];
        uintptr_t expect = (uintptr_t)me;
        if (!r)
            continue;
        withdrawn += atomic_compare_exchange_strong_explicit(&r->cstate, &expect,
                                                             ZM_REQ_PENDING,
                                                             memory_order_acq_rel,
                                                             memory_order_acquire);
    }
    return withdrawn;
}

/* Drain the rings of the owner of the first pending receive among reqs
 * (the waiting rank's: its receives all have it as owner).  The waits
 * that do not poll drain when they register (zm_p2p_wait). */
static __attribute__((noinline)) void wait_settle(zm_req_t *const *reqs, int n)
{
    for (int i = 0; i < n; i++)
        if (reqs[i] && reqs[i]->kind == ZM_REQ_RECV && !zm_p2p_req_complete_now(reqs[i])) {
            zm_p2p_ring_settle(reqs[i]);
            return;
        }
}

static int wait_satisfied(zm_req_t *const *reqs, int n, int need_all)
{
    int active = 0, done = 0;
    for (int i = 0; i < n; i++) {
        if (!reqs[i])
            continue;
        active++;
        done += zm_p2p_req_complete_now(reqs[i]);
    }
    return active == 0 || (need_all ? done == active : done > 0);
}


/* Poll while alone on the worker; returns 1 once the wait is satisfied.
 * Waiting for all, only the last request not yet seen complete is polled:
 * completions mostly come in the order the requests were started, so the
 * completer writes the earlier ones without this rank pulling their lines
 * away in between (polling the first pending one cost a line transfer per
 * request of a six-face halo exchange).  Once the last is complete, the
 * ones before it are usually complete too. */
static int wait_poll(zm_req_t *const *reqs, int n, int need_all)
{
    int last = n - 1;
    if (!zm_ult_alone())
        return 0;
    /* Senders on other workers may leave small messages in rings for us
     * meanwhile if we mostly receive: looking at a receive drains them
     * (zm_p2p_req_done).  Only a change of that is worth a call. */
    zm_ult_t *u = zm_ult_self();
    if (u && !u->foreign) {
        zm_p2p_rank_t *me = &zm_p2p_ranks[u->id];
        if (ZM_UNLIKELY(me->ring_want !=
                        atomic_load_explicit(&me->ring_poll, memory_order_relaxed)))
            zm_p2p_ring_announce();
    }
    for (int i = 0; i < ZM_P2P_WAIT_SPINS && zm_ult_alone(); i++) {
        /* A completion from another process comes only through the
         * network's progress, which a polling waiter drives itself. */
        if (ZM_UNLIKELY(zm_net_remote != NULL))
            zm_net_poll();
        /* The first polls skip the pause instruction (~25 ns on this
         * machine's CPUs): it would delay noticing a completion that is
         * only a cache-line transfer away. */
        if (i > 256 || (n > 1 && !need_all))
            zm_arch_cpu_relax();
        if (need_all) {
            while (last >= 0 && (!reqs[last] || zm_p2p_req_done(reqs[last])))
                last--;
            if (last < 0)
                return 1;
            /* A cooperative copy is most likely under way for an earlier
             * request.  Looking at a request's coop line does not disturb
             * its completer, which writes that line only for a copy it
             * shares. */
            for (int k = 0; k <= last; k++)
                if (reqs[k])
                    zm_p2p_coop_help(reqs[k]);
            continue;
        }
        /* Receives that messages left in the waiting rank's rings would
         * complete (ring.c); waiting for all, zm_p2p_req_done above
         * drains them. */
        if (ZM_UNLIKELY(atomic_load_explicit(&zm_p2p_rings_exist, memory_order_relaxed)))
            wait_settle(reqs, n);
        if (wait_satisfied(reqs, n, need_all))
            return 1;
        for (int k = 0; k < n; k++)
            if (reqs[k])
                zm_p2p_coop_help(reqs[k]);
    }
    return 0;
}


/* Before the caller parks: take back every lent send among reqs that its
 * receiver has not read yet (ring.c, "Loans").  Their receivers might
 * only receive once this rank goes on (a send waited for before its
 * receive is posted), and a parked rank never takes back, so the wait
 * would never end.  Returns 1 if the wait is satisfied afterwards. */
static __attribute__((noinline)) int wait_reclaim(zm_req_t *const *reqs, int n, int need_all)
{
    int any = 0;
    for (int i = 0; i < n; i++) {
        zm_req_t *q = reqs[i];
        if (q && q->kind == ZM_REQ_SEND && q->smsg == ZM_P2P_RING_LOAN &&
            !zm_p2p_req_complete_now(q)) {
            zm_p2p_ring_reclaim(q);
            any = 1;
        }
    }
    return any && wait_satisfied(reqs, n, need_all);
}

void zm_p2p_wait(zm_req_t *const *reqs, int n, int need_all)
{
    zm_p2p_rank_t *me, *rank;
    int n_done, reg;
    if (wait_satisfied(reqs, n, need_all) || wait_poll(reqs, n, need_all))
        return;
    if (ZM_UNLIKELY(atomic_load_explicit(&zm_p2p_rings_exist, memory_order_relaxed)) &&
        wait_reclaim(reqs, n, need_all))
        return;
    /* `me` waits: the rank on its own ULT, or a foreign thread acting for
     * it (p2p.h); the receives are the rank's, under its lock. */
    zm_ult_t *u = zm_ult_self();
    rank = &zm_p2p_ranks[u->id];
    me = zm_p2p_waiter_of(u);
    if (u->foreign)
        zm_p2p_ring_block(rank);
    me->wait_req = NULL;
    atomic_store_explicit(&me->pending, need_all ? 1 : ANY_GUARD + 1, memory_order_relaxed);
    /* Receives may be completed by a sender holding our lock with a plain
     * store (p2p.c, complete_locked), so we register under that lock. */
    zm_spin_lock(&rank->lock);
    zm_p2p_ring_drain(rank);
    reg = wait_register(me, reqs, n, need_all, &n_done);
    zm_spin_unlock(&rank->lock);
    me->wait_nreg = reg;
    if (!need_all && n_done > 0) {
        /* Take the needed unit ourselves together with the guard: no
         * completer can see 1 afterwards, so none wakes a running rank. */
        atomic_fetch_sub_explicit(&me->pending, ANY_GUARD + 1, memory_order_acq_rel);
    } else if (need_all && atomic_load_explicit(&me->pending, memory_order_acquire) == 1) {
        atomic_store_explicit(&me->pending, 0, memory_order_relaxed); /* all done already */
    } else {
        zm_ult_park(need_all ? wait_commit : wait_commit_any, me);
    }
    if (u->foreign)
        zm_p2p_ring_unblock(rank);
    /* What the rank waited for is over: reports and the send-cycle
     * breaker (cycle.c) must not look at requests that may be gone. */
    me->wait_req = NULL;
    me->wait_nreg = 0;
    if (need_all)
        return; /* every registration was consumed by a completer */
    /* Waiting for any: withdraw from the rest, then let completers that
     * already took a registration finish their decrement, so `pending` is
     * quiet before the next wait reuses it.  A request found DONE here may
     * have been DONE before we registered (counted in n_done); only the
     * registrations we could not withdraw were taken by completers. */
    zm_spin_lock(&rank->lock);
    int taken = reg - wait_unregister(me, reqs, n);
    zm_spin_unlock(&rank->lock);
    int expect = 1 - (n_done > 0) - taken;
    while (atomic_load_explicit(&me->pending, memory_order_acquire) != expect)
        zm_arch_cpu_relax();
}

void zm_p2p_describe(zm_ult_t *ult, char *buf, size_t len)
{
    zm_p2p_rank_t *r = zm_p2p_waiter_of(ult);
    const char *call = r->wait_call ? r->wait_call : "a blocking MPI call";
    zm_req_t *q = r->wait_req;
    if (!q || zm_p2p_req_done(q)) {
        snprintf(buf, len, "%s", call);
        return;
    }
    const char *comm = q->pcomm && q->pcomm->name ? q->pcomm->name : "?";
    if (q->kind == ZM_REQ_DONE_ONLY && !q->pcomm)
        snprintf(buf, len, "%s waiting for an operation that only another rank can complete",
                 call);
    else if (q->kind == ZM_REQ_DONE_ONLY)
        snprintf(buf, len, "%s waiting for an operation on comm=%s that other ranks have not "
                 "joined (a non-blocking collective)", call, comm);
    else if (q->kind == ZM_REQ_RECV)
        snprintf(buf, len, "%s waiting for a receive (source=%d, tag=%d, comm=%s)",
                 call, q->peer, q->tag, comm);
    else
        snprintf(buf, len, "%s waiting for a send to be received (dest=%d, tag=%d, comm=%s)",
                 call, q->peer, q->tag, comm);
}

void zm_p2p_thread_init(zm_p2p_thread_t *t, int rank, void *user, int counted)
{
    memset(&t->w, 0, sizeof(t->w));
    zm_dlist_init(&t->w.posted);
    zm_dlist_init(&t->w.unexp);
    zm_dlist_init(&t->w.bsend_segs);
    zm_ult_foreign_init(&t->ult, rank, user, counted);
    t->w.ult = &t->ult;
    t->w.world_rank = rank;
}
