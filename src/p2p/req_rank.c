/*
 * req_rank.c: requests of the pool counted by the rank that took them
 * (p2p.h, zm_p2p_rank_requests; docs/migrate.md, "Requests").
 *
 * In a job whose ranks move between processes every request of the pool is
 * counted for the rank on whose thread it was taken, so that a rank
 * holding one stays and the others may still move.  The count is kept
 * where requests come from and go back to the pool: the worker caches are
 * turned off in such jobs (their counts set to full, so nothing is ever
 * put on them and every request takes the slow paths), which leaves the
 * inlined fast paths of every other job as they were, without a test.  A
 * rank's own thread takes its requests and, but for orphaned ones and
 * those a thread it started frees, gives them back: those two counts have
 * one writer each and need no atomic operation (relaxed loads and stores,
 * read by the migration step while the rank is parked); the rest are
 * counted atomically.  One line per rank, as ranks of different workers
 * count at the same time.  In place of the worker caches each rank keeps a
 * few free requests of its own (HELD_FREE_MAX, linked through pnext),
 * which saves the pool's call and checks on most requests: a message-rate
 * loop in such a job ran some 35 % below its rate with the caches without
 * them.  The list stays with the process when the rank moves away, for its
 * return.
 */
#include "p2p/p2p_impl.h"

#include <stdlib.h>

#define HELD_FREE_MAX 64
typedef struct held {
    _Atomic long taken;     /* by the rank's thread only */
    _Atomic long given;     /* by the rank's thread only */
    _Atomic long given_elsewhere;
    zm_req_t *free;         /* the rank's free requests (its thread only) */
    int nfree;
} __attribute__((aligned(ZM_CACHE_LINE))) held_t;

int zm_p2p_by_rank;

static struct {
    zm_pool_t *pool;        /* the process's request pool */
    held_t *held;           /* per ULT id (world rank) */
    size_t cap;             /* entries in held */
    _Atomic long off;       /* taken on threads that are no rank's own */
    _Atomic long coll;      /* marked by zm_p2p_req_mark_coll */
} byrank;

/* The world rank whose own thread calls, or -1. */
static inline int held_self(void)
{
    zm_ult_t *u = zm_ult_self();
    return u && !u->foreign && zm_ult_tl_worker ? u->id : -1;
}

static inline void bump(_Atomic long *c)
{
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1,
                          memory_order_relaxed);
}

zm_req_t *zm_p2p_req_rank_alloc(void)
{
    int w = held_self();
    held_t *h = w >= 0 ? &byrank.held[w] : NULL;
    zm_req_t *req = h ? h->free : NULL;
    if (req) {
        h->free = req->pnext;
        h->nfree--;
    } else if (!(req = zm_pool_alloc(byrank.pool))) {
        return NULL;
    }
    zm_p2p_req_init(req);
    req->holder = w;
    if (h)
        bump(&h->taken);
    else
        atomic_fetch_add_explicit(&byrank.off, 1, memory_order_relaxed);
    return req;
}

int zm_p2p_req_rank_free(zm_req_t *req)
{
    if (req->coll)
        atomic_fetch_sub_explicit(&byrank.coll, 1, memory_order_relaxed);
    if (req->holder < 0) {
        atomic_fetch_sub_explicit(&byrank.off, 1, memory_order_relaxed);
        return 0;
    }
    held_t *h = &byrank.held[req->holder];
    if (held_self() != req->holder) {
        atomic_fetch_add_explicit(&h->given_elsewhere, 1, memory_order_relaxed);
        return 0;
    }
    bump(&h->given);
    if (h->nfree >= HELD_FREE_MAX)
        return 0;
    req->pnext = h->free;
    h->free = req;
    h->nfree++;
    return 1;
}

zm_status_t zm_p2p_req_rank_init(size_t cap, int nworkers, zm_pool_t *pool)
{
    /* As zm_p2p_ranks: calloc's fresh pages cost nothing until used (the
     * capacity counts ranks that may be spawned). */
    char *hb = calloc(1, cap * sizeof(*byrank.held) + ZM_CACHE_LINE);
    if (!hb)
        return ZM_ERR_NOMEM;
    byrank.held = (held_t *)(((uintptr_t)hb + ZM_CACHE_LINE - 1) & ~(uintptr_t)(ZM_CACHE_LINE - 1));
    byrank.cap = cap;
    byrank.pool = pool;
    for (int i = 0; i < nworkers; i++)
        zm_p2p_req_caches[i].n = ZM_P2P_REQ_CACHE_MAX;
    zm_p2p_by_rank = 1;
    return ZM_OK;
}

long zm_p2p_req_rank_spare(void)
{
    long n = 0;
    for (size_t i = 0; i < byrank.cap; i++)
        n += byrank.held[i].nfree;
    return n;
}

long zm_p2p_rank_requests(int w)
{
    if (!zm_p2p_by_rank)
        return -1;
    held_t *h = &byrank.held[w];
    return atomic_load_explicit(&h->taken, memory_order_relaxed) -
           atomic_load_explicit(&h->given, memory_order_relaxed) -
           atomic_load_explicit(&h->given_elsewhere, memory_order_relaxed);
}

long zm_p2p_requests_off_rank(void)
{
    return atomic_load_explicit(&byrank.off, memory_order_relaxed);
}

long zm_p2p_coll_requests(void)
{
    return atomic_load_explicit(&byrank.coll, memory_order_relaxed);
}

void zm_p2p_req_mark_coll(zm_req_t *req)
{
    req->coll = 1;
    if (zm_p2p_by_rank)
        atomic_fetch_add_explicit(&byrank.coll, 1, memory_order_relaxed);
}
