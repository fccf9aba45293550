/*
 * ult_busy.c: whether the host is busy, for the scheduler's hand-offs
 * (ult.c).  On a host whose cores other work keeps busy, a ULT woken for
 * a worker that sleeps or lags runs on the waker's worker instead, since
 * the sleeper would first have to be scheduled by the OS; on a quiet host
 * that move only stacks ranks on one worker.  This file keeps the score
 * that tells the two apart.
 */
#include "ult/ult_impl.h"

#define job zm_ult_job

/* A sleeping worker is passed over only while waking sleepers has been
 * slow (zm_ult_busy_wake): on a quiet host waking it costs tens of
 * microseconds, and moving the ULT instead put two ranks on one worker
 * until stealing spread them again, which made the bucket sort of
 * examples/isort.c 20-25 % slower at 8 ranks on 2 workers (alternated
 * runs, quiet host, 16.4 against 21 ms per iteration).  A running
 * worker that a hand-off waited for and that lost its core meanwhile
 * counts as a slow wake-up too (inbox_drain): on a busy host the workers
 * spin more than they sleep, and hand-offs to a spinning worker that the
 * host has descheduled wait a time slice each (bench/oversub.c: 200
 * communicator rounds took 0.2-0.8 s on 2 workers and 0.05 s on one
 * before this, 0.05-0.19 s after). */
#define SLOW_WAKE_TICKS 1000000ull
/* A running worker lost the core for this long (nanoseconds) between two
 * looks: about a time slice, which a host with more runnable threads than
 * cores takes from it, and far more than the kernel's own threads take
 * on a quiet one. */
#define SLOW_WAIT_NS 500000ull
/* One slow sample adds 64 to the score, each sample takes a quarter
 * off, and the score halves every SLOW_HALF_TICKS (about 40 ms at
 * 2.6 GHz): above 96 takes two slow samples close together. */
#define SLOW_WAKE_SCORE 96u
#define SLOW_HALF_TICKS 100000000ull

/* The slow-wake-up score now: job.slow_wakes halved for every
 * SLOW_HALF_TICKS since its last sample.  Samples come only with
 * hand-offs that waited, which may be rare on a quiet host; without the
 * decay, two slow ones at start-up (the launcher still loading ranks)
 * kept a job on the busy-host path for the rest of its run. */
static unsigned slow_score(uint64_t now)
{
    unsigned sc = atomic_load_explicit(&job.slow_wakes, memory_order_relaxed);
    uint64_t at = atomic_load_explicit(&job.slow_at, memory_order_relaxed);
    uint64_t halves = now > at ? (now - at) / SLOW_HALF_TICKS : 0;
    return halves >= 32 ? 0 : sc >> halves;
}

int zm_ult_host_busy(void)
{
    return job.migrate_always || slow_score(zm_arch_ticks()) > SLOW_WAKE_SCORE;
}

/* Fold one sample into job.slow_wakes, a score that stays above
 * SLOW_WAKE_SCORE while most recent samples were slow (a host whose cores
 * other work keeps busy).  Racy updates from several workers only blur a
 * heuristic. */
static void sample(int slow)
{
    uint64_t now = zm_arch_ticks();
    unsigned sc = slow_score(now);
    sc = sc - sc / 4 + (slow ? 64 : 0);
    atomic_store_explicit(&job.slow_wakes, sc, memory_order_relaxed);
    atomic_store_explicit(&job.slow_at, now, memory_order_relaxed);
}

void zm_ult_busy_wake(uint64_t ticks)
{
    sample(ticks > SLOW_WAKE_TICKS);
}

void zm_ult_busy_lost(uint64_t ns)
{
    sample(ns > SLOW_WAIT_NS);
}
