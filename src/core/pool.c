/*
 * pool.c: per-worker free lists of fixed-size objects.
 */
#include "core/core.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

/* Objects are carved from chunks of this many, so a cold pool calls malloc
 * once per CHUNK_OBJS allocations. */
#define CHUNK_OBJS 64

/* Header in front of every object: the home worker and the free-list link.
 * It fills a cache line so that objects start on one: their users lay out
 * fields by cache line (the request's completion line, for one). */
typedef struct pool_obj {
    struct pool_obj *next;           /* free-list link while free */
    _Atomic(struct pool_obj *) rnext; /* remote-free stack link */
    int home;                        /* worker whose lists own it */
} __attribute__((aligned(ZM_CACHE_LINE))) pool_obj_t;

typedef struct pool_worker {
    pool_obj_t *free;                       /* owned by the worker */
    _Alignas(ZM_CACHE_LINE) _Atomic(pool_obj_t *) remote; /* pushed by others */
    char pad[ZM_CACHE_LINE - sizeof(void *)];
} pool_worker_t;

struct zm_pool {
    size_t obj_size;      /* user bytes per object, header excluded */
    size_t stride;        /* header + object, rounded to a cache line */
    int nworkers;         /* entries in `w`, the foreign threads' one excluded */
    pool_worker_t *w;     /* one entry per worker, then one for foreign threads */
    zm_spinlock_t flock;  /* guards the foreign threads' free list */
    _Atomic long nobjs;   /* objects ever made (refills only: zm_pool_in_use) */
};

zm_pool_t *zm_pool_create(size_t size, int nworkers)
{
    zm_pool_t *p = calloc(1, sizeof(*p));
    if (!p)
        return NULL;
    p->obj_size = size;
    p->stride = (sizeof(pool_obj_t) + size + ZM_CACHE_LINE - 1) & ~(size_t)(ZM_CACHE_LINE - 1);
    p->nworkers = nworkers;
    /* Threads that are not workers (MPI_THREAD_MULTIPLE) share one more
     * entry, under a lock (pool_alloc_foreign). */
    p->w = aligned_alloc(ZM_CACHE_LINE, sizeof(pool_worker_t) * (size_t)(nworkers + 1));
    if (!p->w) {
        free(p);
        return NULL;
    }
    memset(p->w, 0, sizeof(pool_worker_t) * (size_t)(nworkers + 1));
    return p;
}

static int pool_refill(zm_pool_t *p, pool_worker_t *pw, int home)
{
    char *chunk = aligned_alloc(ZM_CACHE_LINE,
                                (p->stride * CHUNK_OBJS + ZM_CACHE_LINE - 1) & ~(size_t)(ZM_CACHE_LINE - 1));
    if (!chunk)
        return -1;
    atomic_fetch_add_explicit(&p->nobjs, CHUNK_OBJS, memory_order_relaxed);
    for (int i = 0; i < CHUNK_OBJS; i++) {
        pool_obj_t *o = (pool_obj_t *)(chunk + (size_t)i * p->stride);
        o->home = home;
        o->next = pw->free;
        pw->free = o;
    }
    return 0;
}

/* Allocation by a foreign thread (worker index -1): the shared entry after
 * the workers', under its lock.  Its objects are freed through the entry's
 * remote stack, by foreign threads too (no worker index matches theirs). */
static __attribute__((noinline)) void *pool_alloc_foreign(zm_pool_t *p)
{
    int home = p->nworkers;
    pool_worker_t *pw = &p->w[home];
    zm_spin_lock(&p->flock);
    pool_obj_t *o = pw->free;
    if (!o) {
        o = atomic_exchange_explicit(&pw->remote, NULL, memory_order_acquire);
        for (pool_obj_t *r = o; r; r = atomic_load_explicit(&r->rnext, memory_order_relaxed))
            r->next = atomic_load_explicit(&r->rnext, memory_order_relaxed);
        if (!o && pool_refill(p, pw, home) != 0) {
            zm_spin_unlock(&p->flock);
            return NULL;
        }
        if (!o)
            o = pw->free;
    }
    pw->free = o->next;
    zm_spin_unlock(&p->flock);
    return o + 1;
}

void *zm_pool_alloc(zm_pool_t *p)
{
    int home = zm_core_worker_index();
    if (ZM_UNLIKELY(home < 0))
        return pool_alloc_foreign(p);
    pool_worker_t *pw = &p->w[home];
    pool_obj_t *o = pw->free;
    if (ZM_UNLIKELY(!o)) {
        /* Take back everything other workers freed, in one exchange. */
        o = atomic_exchange_explicit(&pw->remote, NULL, memory_order_acquire);
        for (pool_obj_t *r = o; r; r = atomic_load_explicit(&r->rnext, memory_order_relaxed))
            r->next = atomic_load_explicit(&r->rnext, memory_order_relaxed);
        if (!o && pool_refill(p, pw, home) != 0)
            return NULL;
        if (!o)
            o = pw->free;
    }
    pw->free = o->next;
    return o + 1;
}

void zm_pool_free(zm_pool_t *p, void *obj)
{
    pool_obj_t *o = (pool_obj_t *)obj - 1;
    pool_worker_t *pw = &p->w[o->home];
    if (o->home == zm_core_worker_index() && zm_ult_self()) {
        o->next = pw->free;
        pw->free = o;
        return;
    }
    pool_obj_t *head = atomic_load_explicit(&pw->remote, memory_order_relaxed);
    do {
        atomic_store_explicit(&o->rnext, head, memory_order_relaxed);
    } while (!atomic_compare_exchange_weak_explicit(&pw->remote, &head, o,
                                                    memory_order_release,
                                                    memory_order_relaxed));
}

void zm_core_spin_yield(void)
{
    sched_yield();
}

long zm_pool_in_use(zm_pool_t *p)
{
    long n = atomic_load_explicit(&p->nobjs, memory_order_relaxed);
    for (int i = 0; i <= p->nworkers; i++) {
        for (pool_obj_t *o = p->w[i].free; o; o = o->next)
            n--;
        for (pool_obj_t *o = atomic_load_explicit(&p->w[i].remote, memory_order_acquire); o;
             o = atomic_load_explicit(&o->rnext, memory_order_relaxed))
            n--;
    }
    return n;
}
