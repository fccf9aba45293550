/*
 * ult_timer.c: timed sleeps of ULTs (the sleep wrappers of privatized
 * programs, src/mpi/launch_sleep.c, end here).
 *
 * A sleeping ULT parks; the commit of its park, which runs on its worker
 * once its context is saved, puts it in that worker's binary min-heap on
 * its deadline.  Only that worker's thread touches the heap, so it needs
 * no lock, and the ULT cannot be moved meanwhile: nothing but the heap
 * knows it, and wake-ups, stealing and balancing act on ready ULTs or on
 * ULTs someone woke.  The worker fires due timers at its switches and in
 * its idle loop (ult.c), which sleeps no longer than the next deadline;
 * each fire wakes the ULT through zm_ult_wake, which, the waker being its
 * own worker, queues it there.
 *
 * The fast path pays one compare: worker->tm_next is ZM_ULT_NO_TIMER
 * while the worker has no sleeper, and only otherwise is the clock read.
 */
#include "ult/ult_impl.h"

#include <stdlib.h>

#define job zm_ult_job

/* Heap order: the earlier deadline first. */
static inline int before(const zm_ult_t *a, const zm_ult_t *b)
{
    return a->wake_at < b->wake_at;
}

static void heap_up(zm_ult_t **h, int i)
{
    zm_ult_t *u = h[i];
    while (i > 0) {
        int p = (i - 1) / 2;
        if (!before(u, h[p]))
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = u;
}

static void heap_down(zm_ult_t **h, int n, int i)
{
    zm_ult_t *u = h[i];
    for (;;) {
        int c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && before(h[c + 1], h[c]))
            c++;
        if (!before(h[c], u))
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = u;
}

/* Make room for one more sleeper in w's heap.  Runs on the sleeper
 * before it parks, so the commit (inside the scheduler's switch) never
 * allocates and cannot fail.  Returns 0, or -1 if memory is short. */
static int heap_reserve(zm_worker_t *w)
{
    if (w->tm_len < w->tm_cap)
        return 0;
    int cap = w->tm_cap ? w->tm_cap * 2 : 16;
    zm_ult_t **h = realloc(w->tm_heap, (size_t)cap * sizeof(*h));
    if (!h)
        return -1;
    w->tm_heap = h;
    w->tm_cap = cap;
    return 0;
}

/* The park commit of a sleeper (arg): on its worker's thread, after its
 * context is saved.  Counted in job.timed before the worker can go idle,
 * so the deadlock check never sees a sleeper uncounted. */
static int sleep_commit(void *arg)
{
    zm_ult_t *u = arg;
    zm_worker_t *w = zm_ult_tl_worker;
    atomic_fetch_add(&job.timed, 1);
    w->tm_heap[w->tm_len] = u;
    heap_up(w->tm_heap, w->tm_len++);
    w->tm_next = w->tm_heap[0]->wake_at;
    return 0;
}

int zm_ult_sleep_until(uint64_t deadline_ns)
{
    zm_worker_t *w = zm_ult_tl_worker;
    if (!w || !w->current)
        return -1;
    if (deadline_ns <= zm_arch_time_ns()) {
        zm_ult_yield();
        return 0;
    }
    if (heap_reserve(w) != 0)
        return -1;
    zm_ult_t *u = w->current;
    /* ZM_ULT_NO_TIMER means "none": a deadline that far (centuries) is
     * kept one below it. */
    u->wake_at = deadline_ns < ZM_ULT_NO_TIMER ? deadline_ns : ZM_ULT_NO_TIMER - 1;
    zm_ult_park(sleep_commit, u);
    return 0;
}

int zm_ult_timer_fire(zm_worker_t *w)
{
    int n = 0;
    uint64_t now = zm_arch_time_ns();
    while (w->tm_len > 0 && w->tm_heap[0]->wake_at <= now) {
        zm_ult_t *u = w->tm_heap[0];
        w->tm_heap[0] = w->tm_heap[--w->tm_len];
        if (w->tm_len > 0)
            heap_down(w->tm_heap, w->tm_len, 0);
        /* Ready before uncounted: the deadlock check that sees timed
         * drop also sees the ULT in this worker's queue or this worker
         * busy (the caller is not idle). */
        zm_ult_wake(u);
        atomic_fetch_sub(&job.timed, 1);
        n++;
    }
    w->tm_next = w->tm_len > 0 ? w->tm_heap[0]->wake_at : ZM_ULT_NO_TIMER;
    return n;
}

uint64_t zm_ult_timer_left(zm_worker_t *w)
{
    if (w->tm_next == ZM_ULT_NO_TIMER)
        return ZM_ULT_NO_TIMER;
    uint64_t now = zm_arch_time_ns();
    return w->tm_next > now ? w->tm_next - now : 0;
}

/* The sleep wrappers of a privatized program (src/mpi/launch_sleep.c)
 * are linked into the program, which reaches libzmpi only through
 * exported names: this is zm_ult_sleep_until under such a name, with
 * the same contract (deadline on CLOCK_MONOTONIC in nanoseconds). */
__attribute__((visibility("default"))) int zmpi_rank_sleep_until(uint64_t deadline_ns);

int zmpi_rank_sleep_until(uint64_t deadline_ns)
{
    return zm_ult_sleep_until(deadline_ns);
}
