/*
 * ult_foreign.c: foreign threads (ult.h), OS threads that are no worker
 * but act for a ULT (a thread a rank created calls MPI for the rank), and
 * the waits of an adopted single rank that other threads may end.
 *
 * A foreign record's state word is also its futex: READY, PARKED while its
 * thread spins, UNSCHED_SLEEPING once it sleeps.  The waker exchanges
 * READY in and calls the kernel only if the thread sleeps; it touches the
 * record no more after the exchange but for that wake (a woken thread may
 * leave and free its record at once, and waking a futex word that was
 * freed meanwhile is harmless). */
#include "ult/ult_impl.h"

#include <stdio.h>
#include <string.h>

#define job zm_ult_job
#define tl_adopted zm_ult_tl_adopted

#define UNSCHED_SLEEPING 16

static void flock_take(void)
{
    while (atomic_exchange_explicit(&job.flock, 1, memory_order_acquire))
        zm_arch_cpu_relax();
}

static void flock_drop(void)
{
    atomic_store_explicit(&job.flock, 0, memory_order_release);
}

void zm_ult_foreign_init(zm_ult_t *rec, int id, void *user, int counted)
{
    memset(rec, 0, sizeof(*rec));
    rec->id = id;
    rec->worker_id = -1;
    rec->home_id = -1;
    rec->user = user;
    rec->foreign = counted ? ZM_ULT_FOREIGN_COUNTED : ZM_ULT_FOREIGN_UNCOUNTED;
    rec->state = ZM_ULT_READY;
}

void zm_ult_foreign_bind(zm_ult_t *rec)
{
    zm_ult_t *old = tl_adopted && tl_adopted->foreign ? tl_adopted : NULL;
    if (old == rec)
        return;
    /* Listed while bound, for deadlock reports (rq_next links them). */
    flock_take();
    if (old) {
        zm_ult_t **pp = &job.fhead;
        while (*pp && *pp != old)
            pp = &(*pp)->rq_next;
        if (*pp)
            *pp = old->rq_next;
    }
    if (rec) {
        rec->rq_next = job.fhead;
        job.fhead = rec;
    }
    flock_drop();
    tl_adopted = rec;
}

zm_ult_t *zm_ult_foreign_self(void)
{
    return tl_adopted && tl_adopted->foreign ? tl_adopted : NULL;
}

/* The thread counts of foreign threads fell by one: if none runs any more
 * and every worker is idle, wake one so that it looks for a deadlock
 * again as it goes back to sleep (only the last worker to go idle looks,
 * and they may all be asleep already). */
static void foreign_stopped(void)
{
    if (atomic_fetch_sub(&job.frunning, 1) != 1 || !job.ults || job.poll)
        return;
    if (atomic_load(&job.idle) == job.cfg.nworkers && !atomic_load(&job.done)) {
        atomic_fetch_add_explicit(&job.workers[0].wake_seq, 1, memory_order_release);
        zm_arch_futex_wake((uint32_t *)&job.workers[0].wake_seq, 1);
    }
}

void zm_ult_foreign_count(int delta)
{
    if (delta > 0)
        atomic_fetch_add(&job.frunning, delta);
    else
        while (delta++ < 0)
            foreign_stopped();
}

void zm_ult_set_threaded(void)
{
    atomic_store(&job.threaded, 1);
}

/* Longest sleep between two network polls of a sleeping foreign thread. */
#define FOREIGN_POLL_MAX_NS (1000ull * 1000)

/* Sleep until woken, polling the network between sleeps that grow from
 * 50 us to 1 ms.  What u waits for may need the network to move even
 * after its first answer: the rest of a large message, the sender's side
 * of a rendezvous.  The workers poll it only while idle, and a rank whose
 * own code spins on a flag this thread will set keeps its worker busy, so
 * a thread that just slept could wait forever (MPICH's
 * threads/pt2pt/threaded_sr across processes). */
static void foreign_sleep_polling(zm_ult_t *u)
{
    uint64_t ns = 50 * 1000;
    while (__atomic_load_n(&u->state, __ATOMIC_ACQUIRE) == UNSCHED_SLEEPING) {
        if (!zm_arch_futex_wait_ns((uint32_t *)&u->state, UNSCHED_SLEEPING, ns))
            continue;
        job.poll();
        if (ns < FOREIGN_POLL_MAX_NS)
            ns *= 2;
    }
}

void zm_ult_unsched_park(zm_ult_t *u, int (*commit)(void *), void *arg)
{
    __atomic_store_n(&u->state, ZM_ULT_PARKED, __ATOMIC_RELAXED);
    if (commit(arg)) {
        __atomic_store_n(&u->state, ZM_ULT_READY, __ATOMIC_RELAXED);
        return;
    }
    if (u->foreign == ZM_ULT_FOREIGN_COUNTED)
        foreign_stopped();
    if (job.poll && job.adopted) {
        /* A process started by a system launcher has no worker to poll
         * the network while its threads wait: they poll it themselves. */
        if (!zm_ult_adopted_spin(u))
            zm_ult_poll_until(zm_ult_adopted_woken, u);
        return;
    }
    uint64_t end = zm_arch_time_ns() + FOREIGN_SPIN_NS;
    for (unsigned i = 1;; i++) {
        if (__atomic_load_n(&u->state, __ATOMIC_ACQUIRE) != ZM_ULT_PARKED)
            return;
        /* What it waits for may come from another process. */
        if (job.poll && i % POLL_EVERY == 0)
            job.poll();
        zm_arch_cpu_relax();
        if (i % IDLE_POLLS_PER_CLOCK == 0 && zm_arch_time_ns() >= end)
            break;
    }
    int expect = ZM_ULT_PARKED;
    if (!__atomic_compare_exchange_n(&u->state, &expect, UNSCHED_SLEEPING, 0,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return;
    if (job.poll) {
        foreign_sleep_polling(u);
        return;
    }
    while (__atomic_load_n(&u->state, __ATOMIC_ACQUIRE) == UNSCHED_SLEEPING)
        zm_arch_futex_wait((uint32_t *)&u->state, UNSCHED_SLEEPING);
}

void zm_ult_unsched_wake(zm_ult_t *u)
{
    /* Counted running again before it can run (foreign_stopped's
     * opposite), so no deadlock check sees everyone stopped meanwhile. */
    if (u->foreign == ZM_ULT_FOREIGN_COUNTED)
        atomic_fetch_add(&job.frunning, 1);
    int old = __atomic_exchange_n(&u->state, ZM_ULT_READY, __ATOMIC_ACQ_REL);
    if (old == UNSCHED_SLEEPING)
        zm_arch_futex_wake((uint32_t *)&u->state, 1);
}

void zm_ult_foreign_report(FILE *out)
{
    char line[512];
    flock_take();
    for (zm_ult_t *u = job.fhead; u; u = u->rq_next) {
        int st = __atomic_load_n(&u->state, __ATOMIC_ACQUIRE);
        if (st != ZM_ULT_PARKED && st != UNSCHED_SLEEPING)
            continue;
        line[0] = '\0';
        if (job.cfg.describe)
            job.cfg.describe(u, line, sizeof(line));
        fprintf(out, "zmpi:   a thread of rank %d: %s\n", u->id, line[0] ? line : "blocked");
    }
    flock_drop();
}
