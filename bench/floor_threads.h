/*
 * floor_threads.h: what the memory-floor programs (coll_floor.c,
 * dt_floor.c) share: a spin barrier and running one function on several
 * POSIX threads.  Header only, so that coll_floor.c builds alone with any
 * C compiler.
 */
#ifndef ZMPI_BENCH_FLOOR_THREADS_H
#define ZMPI_BENCH_FLOOR_THREADS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define FLOOR_MAX_THREADS 64

/* A sense-reversing spin barrier of `threads` threads. */
struct floor_sync {
    int threads;
    atomic_int arrived, phase;
};

static inline void floor_sync_wait(struct floor_sync *b)
{
    int ph = atomic_load_explicit(&b->phase, memory_order_relaxed);
    if (atomic_fetch_add(&b->arrived, 1) == b->threads - 1) {
        atomic_store(&b->arrived, 0);
        atomic_store(&b->phase, ph + 1);
        return;
    }
    while (atomic_load_explicit(&b->phase, memory_order_acquire) == ph) {
#if defined(__x86_64__)
        __builtin_ia32_pause();
#endif
    }
}

struct floor_thread_arg {
    void (*body)(void *ctx, int me);
    void *ctx;
    int me;
};

static inline void *floor_thread_start(void *p)
{
    struct floor_thread_arg *a = p;
    a->body(a->ctx, a->me);
    return NULL;
}

/* Runs body(ctx, me) for me = 0 .. threads - 1, thread 0 on the caller,
 * and returns when all are done; exits the process if a thread cannot be
 * started (only a benchmark calls this). */
static inline void floor_run_threads(int threads, void (*body)(void *, int), void *ctx)
{
    pthread_t th[FLOOR_MAX_THREADS];
    struct floor_thread_arg args[FLOOR_MAX_THREADS];
    for (int i = 0; i < threads; i++)
        args[i] = (struct floor_thread_arg){ body, ctx, i };
    for (int i = 1; i < threads; i++)
        if (pthread_create(&th[i], NULL, floor_thread_start, &args[i]) != 0) {
            fprintf(stderr, "floor: cannot start a thread\n");
            exit(2);
        }
    body(ctx, 0);
    for (int i = 1; i < threads; i++)
        pthread_join(th[i], NULL);
}

#endif
