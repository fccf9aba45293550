/*
 * rma_sync.c: waiting in window synchronization: the fair passive-target
 * lock and the post/start/complete/wait counters.
 *
 * Every wait goes through wait_until: the rank checks its condition, polls
 * a while if it is alone on its worker (nobody else could use the core),
 * and otherwise parks in its slot of the window.  Whoever changes what a
 * rank waits for calls slot_wake afterwards.  The slot's spinlock makes
 * the two meet: the waiter re-checks its condition with the lock held
 * after publishing itself as sleeper, and the park's commit releases the
 * lock only once the rank is marked parked, so a waker either changed the
 * condition before that re-check or finds the sleeper and wakes it.
 */
#include "rma.h"

#include <stdio.h>
#include <stdlib.h>

/* Polls before a rank alone on its worker parks (as p2p's waits). */
#define RMA_WAIT_SPINS 20000

typedef int cond_fn(zm_rma_win_t *w, int me, const void *arg);

static int commit_unlock(void *arg)
{
    zm_spin_unlock(arg);
    return 0;
}

/* Block until cond(w, me, arg) holds.  ULT context, rank `me`. */
static void wait_until(zm_rma_win_t *w, int me, cond_fn *cond, const void *arg,
                       const char *what)
{
    if (cond(w, me, arg))
        return;
    for (int i = 0; i < RMA_WAIT_SPINS && zm_ult_alone(); i++) {
        /* What a rank waits for may come from another process: a rank
         * alone on its worker drives the network itself (as p2p's waits). */
        if (ZM_UNLIKELY(w->proc != NULL))
            zm_net_poll();
        zm_arch_cpu_relax();
        if (cond(w, me, arg))
            return;
    }
    zm_rma_target_t *s = &w->t[me];
    zm_p2p_rank_t *pr = zm_p2p_self();
    const char *prev = pr->wait_call;
    for (;;) {
        zm_spin_lock(&s->slot_lk);
        s->sleeper = zm_ult_self();
        if (cond(w, me, arg)) {
            s->sleeper = NULL;
            zm_spin_unlock(&s->slot_lk);
            /* `what` is usually on the caller's stack: do not leave it
             * behind for a later report. */
            pr->wait_call = prev;
            return;
        }
        /* What the deadlock report prints if nobody ever wakes us. */
        pr->wait_call = what;
        pr->wait_req = NULL;
        zm_ult_park(commit_unlock, &s->slot_lk);
    }
}

/* Wake rank r if it is parked on this window.  Any ULT. */
static void slot_wake(zm_rma_win_t *w, int r)
{
    zm_rma_target_t *s = &w->t[r];
    zm_spin_lock(&s->slot_lk);
    zm_ult_t *u = s->sleeper;
    s->sleeper = NULL;
    zm_spin_unlock(&s->slot_lk);
    if (u)
        zm_ult_wake(u);
}

/* ---- Passive-target lock -------------------------------------------------
 * A reader-writer lock with a FIFO of waiters: a locker that finds the
 * lock busy, or anyone already queued, joins the queue, and a release
 * grants from the head only (one exclusive locker, or the run of shared
 * lockers up to the next exclusive one).  So a stream of shared lockers
 * cannot starve an exclusive one: they queue behind it. */

static int granted(zm_rma_win_t *w, int me, const void *arg)
{
    (void)w, (void)me;
    return atomic_load_explicit(&((zm_rma_locker_t *)arg)->granted, memory_order_acquire);
}

/* Direct windows: the node word's lock field of target t. */
static _Atomic uint64_t *node_lock(zm_rma_win_t *w, int t)
{
    return &w->node[t].lock;
}

/* Direct windows: take a shared lock on t with one atomic operation on
 * its node word, unless the word is closed (an exclusive lock is held or
 * someone queues: the locker must queue behind them, in t's process).
 * Returns 1 if taken. */
static int node_shared_fast(zm_rma_win_t *w, int t)
{
    _Atomic uint64_t *lw = node_lock(w, t);
    uint64_t v = atomic_load_explicit(lw, memory_order_relaxed);
    while (!(v & ZM_RMA_LOCK_CLOSED))
        if (atomic_compare_exchange_weak_explicit(lw, &v, v + 1, memory_order_acquire,
                                                  memory_order_relaxed))
            return 1;
    return 0;
}

/* Direct windows, tg->lock_lk held by t's process: take t's lock if free
 * for this kind and no one queues before us.  Shared holders are counted
 * in the node word (fast ones and granted ones alike, so every shared
 * unlock is one decrement there); an exclusive locker closes the word
 * first, so that no shared locker slips in after it looked at the count:
 * the last shared holder to leave a closed word then asks for a recheck. */
static int node_take_free(zm_rma_win_t *w, zm_rma_target_t *tg, int t, int exclusive)
{
    _Atomic uint64_t *lw = node_lock(w, t);
    int ahead = !zm_dlist_empty(&tg->queue) || tg->writer;
    if (!exclusive) {
        if (ahead) {
            atomic_fetch_or(lw, ZM_RMA_LOCK_CLOSED);
            return 0;
        }
        atomic_fetch_add_explicit(lw, 1, memory_order_acquire);
        return 1;
    }
    uint64_t old = atomic_fetch_or(lw, ZM_RMA_LOCK_CLOSED);
    if (ahead || (old & ZM_RMA_LOCK_COUNT) != 0)
        return 0;
    tg->writer = 1;
    return 1;
}

/* Take target tg's lock (tg->lock_lk held) if it is free for this kind
 * and no one queues before us; returns 1 if taken. */
static int lock_take_free(zm_rma_win_t *w, zm_rma_target_t *tg, int t, int exclusive)
{
    if (ZM_UNLIKELY(w->node != NULL))
        return node_take_free(w, tg, t, exclusive);
    if (!zm_dlist_empty(&tg->queue) || tg->writer || (exclusive && tg->readers != 0))
        return 0;
    if (exclusive)
        tg->writer = 1;
    else
        tg->readers++;
    return 1;
}

/* Grant queued locker l of target t (tg->lock_lk held) if it is
 * compatible with the holders; returns 1 if granted. */
static int lock_grant_head(zm_rma_win_t *w, zm_rma_target_t *tg, int t, zm_rma_locker_t *l)
{
    if (tg->writer)
        return 0;
    if (ZM_UNLIKELY(w->node != NULL)) {
        _Atomic uint64_t *lw = node_lock(w, t);
        if (!l->exclusive)
            atomic_fetch_add(lw, 1);
        else if ((atomic_load(lw) & ZM_RMA_LOCK_COUNT) != 0)
            return 0;
        else
            tg->writer = 1;
        return 1;
    }
    if (l->exclusive && tg->readers > 0)
        return 0;
    if (l->exclusive)
        tg->writer = 1;
    else
        tg->readers++;
    return 1;
}

int zm_rma_lock_try(zm_rma_win_t *w, int t, int exclusive)
{
    if (ZM_UNLIKELY(w->node != NULL) && !exclusive && node_shared_fast(w, t))
        return 1;
    if (zm_rma_other_proc(w, t))
        return 0;
    zm_rma_target_t *tg = &w->t[t];
    zm_spin_lock(&tg->lock_lk);
    int taken = lock_take_free(w, tg, t, exclusive);
    zm_spin_unlock(&tg->lock_lk);
    return taken;
}

void zm_rma_lock(zm_rma_win_t *w, int me, int t, int exclusive, const char *what)
{
    if (ZM_UNLIKELY(w->node != NULL) && !exclusive && node_shared_fast(w, t))
        return;
    if (zm_rma_other_proc(w, t)) {
        zm_rma_net_lock(w, me, t, exclusive);
        return;
    }
    zm_rma_target_t *tg = &w->t[t];
    zm_rma_locker_t lk = { .exclusive = exclusive, .rank = me, .proc = -1 };
    zm_spin_lock(&tg->lock_lk);
    if (lock_take_free(w, tg, t, exclusive)) {
        zm_spin_unlock(&tg->lock_lk);
        return;
    }
    zm_dlist_push(&tg->queue, &lk.link);
    zm_spin_unlock(&tg->lock_lk);
    wait_until(w, me, granted, &lk, what);
}

int zm_rma_lock_remote(zm_rma_win_t *w, int t, int exclusive, int proc, uint64_t cookie)
{
    zm_rma_target_t *tg = &w->t[t];
    zm_spin_lock(&tg->lock_lk);
    if (lock_take_free(w, tg, t, exclusive)) {
        zm_spin_unlock(&tg->lock_lk);
        return 1;
    }
    /* The locker waits in another process: its record lives on the heap
     * until the unlock that grants it (a failed allocation cannot be
     * reported to the origin, which waits for the grant). */
    zm_rma_locker_t *lk = calloc(1, sizeof(*lk));
    if (!lk) {
        zm_spin_unlock(&tg->lock_lk);
        fprintf(stderr, "zmpi: out of memory queueing a lock request from process %d\n", proc);
        zm_net_abort(1);
    }
    lk->exclusive = exclusive;
    lk->rank = -1;
    lk->proc = proc;
    lk->cookie = cookie;
    zm_dlist_push(&tg->queue, &lk->link);
    zm_spin_unlock(&tg->lock_lk);
    return 0;
}

/* A granted locker to tell: a local rank to wake, or a remote one. */
struct grant {
    int rank, proc;
    uint64_t cookie;
};

/* Grant from the head of t's queue while the head is compatible, at most
 * `max` lockers (tg->lock_lk held), into wake[]; returns how many.  A
 * direct window's word opens again once nobody holds it exclusively and
 * nobody queues. */
static int lock_grant_run(zm_rma_win_t *w, zm_rma_target_t *tg, int t, struct grant *wake,
                          int max)
{
    int nwake = 0;
    while (!zm_dlist_empty(&tg->queue) && nwake < max) {
        zm_rma_locker_t *l = zm_container_of(tg->queue.next, zm_rma_locker_t, link);
        if (!lock_grant_head(w, tg, t, l))
            break;
        zm_dlist_remove(&l->link);
        wake[nwake++] = (struct grant){ l->rank, l->proc, l->cookie };
        if (l->proc >= 0) {
            free(l); /* a remote locker's record: ours */
            continue;
        }
        /* After this store the locker may return and its record (on its
         * stack) vanish: nothing below touches l. */
        atomic_store_explicit(&l->granted, 1, memory_order_release);
    }
    if (ZM_UNLIKELY(w->node != NULL) && zm_dlist_empty(&tg->queue) && !tg->writer)
        atomic_fetch_and(node_lock(w, t), ~ZM_RMA_LOCK_CLOSED);
    return nwake;
}

void zm_rma_unlock_target(zm_rma_win_t *w, int t, int exclusive, int net_locked)
{
    zm_rma_target_t *tg = &w->t[t];
    struct grant wake[64];
    zm_spin_lock(&tg->lock_lk);
    /* A direct window's shared holders are counted in its node word: a
     * shared "unlock" here is a recheck after the last of them left. */
    if (exclusive)
        tg->writer = 0;
    else if (!w->node)
        tg->readers--;
    /* At most 64 grants per round here, the rest in the next round. */
    for (;;) {
        int nwake = lock_grant_run(w, tg, t, wake, 64);
        zm_spin_unlock(&tg->lock_lk);
        /* Grants are sent with no rma lock held: the network lock comes
         * first in the lock order. */
        for (int i = 0; i < nwake; i++) {
            if (wake[i].proc >= 0)
                zm_rma_net_grant(wake[i].proc, wake[i].cookie, net_locked);
            else
                slot_wake(w, wake[i].rank);
        }
        if (nwake < 64)
            return;
        zm_spin_lock(&tg->lock_lk);
    }
}

/* Direct windows: drop a shared lock on t from its node word; the last
 * holder to leave while the word is closed has t's process grant what
 * queues (locally, or by a notice). */
static void node_unlock_shared(zm_rma_win_t *w, int t)
{
    uint64_t old = atomic_fetch_sub_explicit(node_lock(w, t), 1, memory_order_release);
    if ((old & ZM_RMA_LOCK_COUNT) != 1 || !(old & ZM_RMA_LOCK_CLOSED))
        return;
    if (zm_rma_other_proc(w, t))
        zm_rma_net_recheck(w, t);
    else
        zm_rma_unlock_target(w, t, 0, 0);
}

void zm_rma_unlock(zm_rma_win_t *w, int t, int exclusive)
{
    if (ZM_UNLIKELY(w->node != NULL) && !exclusive)
        node_unlock_shared(w, t);
    else if (zm_rma_other_proc(w, t))
        zm_rma_net_unlock(w, -1, t, exclusive);
    else
        zm_rma_unlock_target(w, t, exclusive, 0);
}

/* ---- Post / start / complete / wait ------------------------------------- */

struct start_arg {
    const int *ranks;
    int n;
};

static int all_posted(zm_rma_win_t *w, int me, const void *arg)
{
    const struct start_arg *a = arg;
    for (int i = 0; i < a->n; i++)
        if (atomic_load(&w->posted[(size_t)me * (size_t)w->n + (size_t)a->ranks[i]]) <= 0)
            return 0;
    return 1;
}

void zm_rma_post(zm_rma_win_t *w, int me, const int *ranks, int n)
{
    atomic_thread_fence(memory_order_seq_cst);
    for (int i = 0; i < n; i++) {
        if (zm_rma_other_proc(w, ranks[i])) {
            zm_rma_net_post(w, me, ranks[i]);
            continue;
        }
        atomic_fetch_add(&w->posted[(size_t)ranks[i] * (size_t)w->n + (size_t)me], 1);
        slot_wake(w, ranks[i]);
    }
}

void zm_rma_post_arrived(zm_rma_win_t *w, int o, int t)
{
    atomic_fetch_add(&w->posted[(size_t)o * (size_t)w->n + (size_t)t], 1);
    slot_wake(w, o);
}

void zm_rma_complete_arrived(zm_rma_win_t *w, int t)
{
    atomic_fetch_add(&w->t[t].completes, 1);
    slot_wake(w, t);
}

void zm_rma_start(zm_rma_win_t *w, int me, const int *ranks, int n, const char *what)
{
    struct start_arg a = { ranks, n };
    wait_until(w, me, all_posted, &a, what);
    for (int i = 0; i < n; i++)
        atomic_fetch_sub(&w->posted[(size_t)me * (size_t)w->n + (size_t)ranks[i]], 1);
}

void zm_rma_complete(zm_rma_win_t *w, int me, const int *ranks, int n)
{
    /* The epoch's copies are done; make them visible before the target
     * learns that they are. */
    atomic_thread_fence(memory_order_seq_cst);
    for (int i = 0; i < n; i++) {
        if (zm_rma_other_proc(w, ranks[i])) {
            zm_rma_net_complete(w, me, ranks[i]);
            continue;
        }
        atomic_fetch_add(&w->t[ranks[i]].completes, 1);
        slot_wake(w, ranks[i]);
    }
}

static int enough_completes(zm_rma_win_t *w, int me, const void *arg)
{
    return atomic_load(&w->t[me].completes) >= *(const int *)arg;
}

void zm_rma_wait_completes(zm_rma_win_t *w, int me, int n, const char *what)
{
    wait_until(w, me, enough_completes, &n, what);
    atomic_fetch_sub(&w->t[me].completes, n);
}

int zm_rma_test_completes(zm_rma_win_t *w, int me, int n)
{
    if (!enough_completes(w, me, &n))
        return 0;
    atomic_fetch_sub(&w->t[me].completes, n);
    return 1;
}
