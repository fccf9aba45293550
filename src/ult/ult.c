/*
 * ult.c: workers, run queues, parking and deadlock detection.
 *
 * Deadlock detection stays off the message path: a worker only takes part
 * when, after spinning, it is about to sleep.  It then counts itself idle;
 * the worker that makes every worker idle checks that no inbox holds a ULT
 * and that no worker left the idle state meanwhile (the `gen` counter,
 * bumped by every worker before it leaves idle and drains its inbox).  If
 * so, no ULT runs or can run, only running ULTs wake others, and some ULT
 * is still alive: that is a deadlock, unless the upper layers' resolver
 * (p2p's send-cycle breaker) can end it by waking some ULTs itself.
 */
#include "ult/ult.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sched.h>
#include <unistd.h>

/* An idle worker polls its inbox this long before it sleeps.  A sleeping
 * worker's CPU halts, and under a hypervisor waking it again took
 * milliseconds: with 20000 polls (0.44 ms on Zen 5, where a pause takes
 * 22 ns) a hiccup of the other worker put one of them to sleep in 7-12 of
 * 20 runs of a 16-rank Bcast loop, each time adding 5-15 ms to the loop;
 * spinning 4.4 ms (200000 polls) none in 20, and 5 ms by the clock, as
 * here, 1 in 20.  Polls are counted in batches between clock reads, so
 * the time does not depend on the cost of a pause. */
#define IDLE_SPIN_NS 5000000ull
#define IDLE_POLLS_PER_CLOCK 256

/* How long a parked foreign thread (a thread a rank created, ult.h) polls
 * its state before it sleeps, and an idle worker while such threads run:
 * long enough for a round trip between a rank and a thread, short enough
 * not to hold a core the other may need. */
#define FOREIGN_SPIN_NS 20000ull

/* With a poll function (a job of several processes), an idle worker polls
 * the network every POLL_EVERY inbox polls, and the worker that keeps
 * polling once the others sleep sleeps between polls, from POLL_SLEEP_MIN
 * nanoseconds doubling up to POLL_SLEEP_MAX (ZMPI_NET_POLL_SLEEP_US
 * overrides the cap): a message that arrives while the whole process is
 * idle waits at most that long, and an idle process costs a few percent
 * of a core instead of a whole one. */
/* Hand-offs under a loaded host (issue 23): a ULT woken for a worker
 * that sleeps runs on the waker's worker instead (it migrates), since the
 * sleeper would have to be scheduled by the OS first, which on a host
 * whose cores are busy takes a time slice (milliseconds) per hand-off.
 * The ranks of a communicating phase so gather on the workers that run.
 * An idle worker gets work back when another worker's ready ULTs have
 * waited STEAL_AFTER_NS while its running ULT went on without a switch
 * (a computing phase): it asks that worker (hungry), which gives it one
 * at its next switch.  A sleeping worker looks every STEAL_CHECK_NS.
 * Migration needs thread-local addresses that are never cached across a
 * switch: on x86-64 every access goes through %fs; elsewhere it is off. */
#define LAG_MIGRATE_TICKS 100000ull
#define STEAL_AFTER_NS 1000000ull
#define STEAL_CHECK_NS 2000000ull
#if defined(__x86_64__)
#define CAN_MIGRATE 1
#else
#define CAN_MIGRATE 0
#endif

#define POLL_EVERY 16
#define POLL_SLEEP_MIN 1000ull
#define POLL_SLEEP_MAX 50000ull

enum { ACT_NONE, ACT_YIELD, ACT_PARK, ACT_EXIT };

static struct {
    zm_ult_job_config_t cfg;
    zm_ult_t *ults;
    zm_worker_t *workers;
    pthread_t *threads;     /* OS threads of workers 1.. */
    _Atomic int idle;       /* workers asleep or about to sleep */
    _Atomic unsigned gen;   /* bumped whenever a worker leaves idle */
    _Atomic int alive;      /* ULTs not yet finished */
    _Atomic int done;       /* set when alive reaches 0 */
    _Atomic int status;     /* first nonzero exit status */
    int adopted;            /* single-rank job on the caller's thread */
    zm_ult_t adopted_ult;   /* its ULT record */
    zm_ult_resolve_fn resolve; /* tried before reporting a deadlock, or NULL */
    _Atomic int checking;   /* a worker is in deadlock_check's verdict */
    int migrate;            /* wake-ups may move a ULT to the waker's worker */
    zm_ult_poll_fn poll;    /* network progress, or NULL (one-process job) */
    _Atomic int poller;     /* worker that polls while the others sleep, or -1 */
    uint64_t poll_sleep_max; /* cap of the poller's sleeps (ns) */
    int capacity;           /* ULT records, spare ones for zm_ult_spawn included */
    _Atomic int nids;       /* ids handed out: nults, then grown by zm_ult_reserve */
    _Atomic unsigned spread; /* next worker for a ULT started at run time */
    /* Foreign threads (the end of this file). */
    _Atomic int frunning;   /* threads that may act for a ULT and are not parked */
    _Atomic int threaded;   /* adopted job: other threads may wake the rank */
    zm_ult_t *fhead;        /* foreign records, for deadlock reports (under flock) */
    _Atomic int flock;      /* guards fhead */
} job = { .poller = -1 };

__thread zm_worker_t *zm_ult_tl_worker __attribute__((tls_model("initial-exec")));
__thread zm_ult_t *zm_ult_tl_adopted __attribute__((tls_model("initial-exec")));
#define tl_worker zm_ult_tl_worker
#define tl_adopted zm_ult_tl_adopted

zm_ult_t *zm_ult_get(int id)
{
    /* An adopted job's other ULTs are in other processes: a record that
     * never runs stands for them. */
    static zm_ult_t elsewhere;
    if (job.adopted)
        return id == job.adopted_ult.id ? &job.adopted_ult : &elsewhere;
    return &job.ults[id];
}

int zm_ult_count(void)
{
    return atomic_load_explicit(&job.nids, memory_order_acquire);
}

int zm_ult_nworkers(void)
{
    return job.adopted ? 1 : job.cfg.nworkers;
}

int zm_ult_in_job(void)
{
    return tl_worker != NULL && tl_worker->current != NULL;
}

/* The FIFO's length is written by its owner only; idle workers read it. */
static inline void rq_count(zm_worker_t *w, int d)
{
    atomic_store_explicit(&w->rq_len, atomic_load_explicit(&w->rq_len, memory_order_relaxed) + d,
                          memory_order_relaxed);
}

static void rq_push(zm_worker_t *w, zm_ult_t *u)
{
    u->rq_next = NULL;
    if (w->rq_tail)
        w->rq_tail->rq_next = u;
    else
        w->rq_head = u;
    w->rq_tail = u;
    rq_count(w, 1);
}

static zm_ult_t *rq_pop(zm_worker_t *w)
{
    zm_ult_t *u = w->rq_head;
    if (u) {
        w->rq_head = u->rq_next;
        if (!w->rq_head)
            w->rq_tail = NULL;
        rq_count(w, -1);
    }
    return u;
}

/* Move everything other workers handed us into the local FIFO, oldest
 * first.  Taking the whole stack with one exchange makes the consumer side
 * immune to ABA. */
static int inbox_drain(zm_worker_t *w)
{
    zm_ult_t *list, *rev = NULL;
    if (!atomic_load_explicit(&w->inbox, memory_order_relaxed))
        return 0;
    list = atomic_exchange_explicit(&w->inbox, NULL, memory_order_acquire);
    /* How long hand-offs to this worker wait (its newest arrival's wait,
     * which is the least): zm_ult_wake moves ULTs away from a slow one. */
    atomic_store_explicit(&w->lag, zm_arch_ticks() - list->pushed_at, memory_order_relaxed);
    while (list) {
        zm_ult_t *next = atomic_load_explicit(&list->inbox_next, memory_order_relaxed);
        atomic_store_explicit(&list->inbox_next, rev, memory_order_relaxed);
        rev = list;
        list = next;
    }
    while (rev) {
        zm_ult_t *next = atomic_load_explicit(&rev->inbox_next, memory_order_relaxed);
        rq_push(w, rev);
        rev = next;
    }
    return 1;
}

static void worker_kick(zm_worker_t *w)
{
    /* Pairs with the seq_cst store of `sleeping` in worker_sleep: either the
     * sleeper sees our inbox push, or we see it sleeping and bump the word. */
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&w->sleeping, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&w->wake_seq, 1, memory_order_release);
        zm_arch_futex_wake((uint32_t *)&w->wake_seq, 1);
    }
}

static void wake_unscheduled(zm_ult_t *u);

/* Push u onto worker w's inbox (any thread) and wake w if it sleeps. */
static void inbox_push(zm_worker_t *w, zm_ult_t *u)
{
    u->pushed_at = zm_arch_ticks();
    zm_ult_t *head = atomic_load_explicit(&w->inbox, memory_order_relaxed);
    do {
        atomic_store_explicit(&u->inbox_next, head, memory_order_relaxed);
    } while (!atomic_compare_exchange_weak_explicit(&w->inbox, &head, u,
                                                    memory_order_release,
                                                    memory_order_relaxed));
    worker_kick(w);
}

/* Make worker w run ULT u from now on (u is parked or ready, on no queue). */
static inline void ult_move(zm_ult_t *u, zm_worker_t *w)
{
    u->worker = w;
    u->worker_id = w->id;
}

void zm_ult_wake(zm_ult_t *u)
{
    zm_worker_t *w = u->worker, *me = tl_worker;
    if (__builtin_expect(!w, 0)) {
        /* No worker: a foreign thread's record, or the adopted single
         * rank (woken by a resolver or the network on its own thread, or
         * by its other threads). */
        wake_unscheduled(u);
        return;
    }
    u->state = ZM_ULT_READY;
    if (w == me) {
        rq_push(w, u);
        return;
    }
    /* Its worker sleeps, or its hand-offs wait long (a busy host): run it
     * here (see STEAL_AFTER_NS), unless either ULT is pinned (a pinned
     * waker may hold this thread in an OpenMP region until others move). */
    if (CAN_MIGRATE && me && job.migrate && !__atomic_load_n(&u->pinned, __ATOMIC_RELAXED) &&
        !(me->current && __atomic_load_n(&me->current->pinned, __ATOMIC_RELAXED)) &&
        (atomic_load_explicit(&w->sleeping, memory_order_relaxed) ||
         atomic_load_explicit(&w->lag, memory_order_relaxed) > LAG_MIGRATE_TICKS)) {
        ult_move(u, me);
        rq_push(me, u);
        return;
    }
    inbox_push(w, u);
}

/* An idle worker w asks for work: some other worker has had ready ULTs
 * (queued or in its inbox) while its switch count stayed the same for
 * STEAL_AFTER_NS, i.e. its running ULT computes while others wait. */
static void want_work(zm_worker_t *w, uint64_t now)
{
    for (int i = 0; i < job.cfg.nworkers; i++) {
        zm_worker_t *o = &job.workers[i];
        if (o == w)
            continue;
        uint32_t sw = atomic_load_explicit(&o->nswitch, memory_order_relaxed);
        int ready = atomic_load_explicit(&o->rq_len, memory_order_relaxed) > 0 ||
                    atomic_load_explicit(&o->inbox, memory_order_relaxed) != NULL;
        if (sw != w->seen_sw[i] || !ready) {
            w->seen_sw[i] = sw;
            w->seen_ns[i] = now;
        } else if (now - w->seen_ns[i] >= STEAL_AFTER_NS) {
            int none = 0;
            atomic_compare_exchange_strong(&o->hungry, &none, w->id + 1);
            w->seen_ns[i] = now;
            return;
        }
    }
}

/* At a switch of worker w: hand one of its ready ULTs to the idle worker
 * that asked, keeping `keep` of them to run here. */
static void give_one(zm_worker_t *w, int keep)
{
    int h = atomic_exchange_explicit(&w->hungry, 0, memory_order_relaxed);
    if (!h || atomic_load_explicit(&w->rq_len, memory_order_relaxed) < keep)
        return;
    /* The first ready ULT that may move (not pinned). */
    zm_ult_t *u = w->rq_head, *prev = NULL;
    while (u && __atomic_load_n(&u->pinned, __ATOMIC_RELAXED)) {
        prev = u;
        u = u->rq_next;
    }
    if (!u)
        return;
    if (prev) {
        prev->rq_next = u->rq_next;
        if (w->rq_tail == u)
            w->rq_tail = prev;
        rq_count(w, -1);
    } else {
        rq_pop(w);
    }
    ult_move(u, &job.workers[h - 1]);
    inbox_push(u->worker, u);
}

static void foreign_report(void);

static void deadlock_report(const char *note)
{
    int n = zm_ult_count(), shown = 0, blocked = 0;
    char line[512];
    fflush(stdout);
    for (int i = 0; i < n; i++)
        blocked += zm_ult_get(i)->state == ZM_ULT_PARKED;
    fprintf(stderr, "zmpi: deadlock: all %d live ranks are blocked and nothing in "
            "flight can wake them\n", blocked);
    for (int i = 0; i < n; i++) {
        zm_ult_t *u = zm_ult_get(i);
        if (u->state != ZM_ULT_PARKED)
            continue;
        if (shown++ == 100) {
            fprintf(stderr, "zmpi:   ... and %d more blocked ranks\n", blocked - 100);
            break;
        }
        line[0] = '\0';
        if (job.cfg.describe)
            job.cfg.describe(u, line, sizeof(line));
        fprintf(stderr, "zmpi:   rank %d: %s\n", i, line[0] ? line : "blocked");
    }
    foreign_report();
    if (note && note[0])
        fprintf(stderr, "zmpi: %s\n", note);
    fflush(stderr);
    _exit(1);
}

static void job_finish_one(zm_ult_t *u)
{
    int zero = 0;
    u->state = ZM_ULT_DONE;
    zm_arch_stack_free(&u->stack);
    if (u->exit_status)
        atomic_compare_exchange_strong(&job.status, &zero, u->exit_status);
    if (atomic_fetch_sub(&job.alive, 1) == 1) {
        atomic_store(&job.done, 1);
        /* Every worker must notice the end, sleeping or not.  A worker
         * about to sleep reads wake_seq before checking `done`, so the bump
         * makes its futex wait return at once. */
        for (int i = 0; i < job.cfg.nworkers; i++) {
            atomic_fetch_add(&job.workers[i].wake_seq, 1);
            zm_arch_futex_wake((uint32_t *)&job.workers[i].wake_seq, 1);
        }
    }
}

/* Carry out what the ULT that switched away last asked for.  Runs in
 * whatever context resumed next (another ULT or the scheduler), after the
 * old context is fully saved, which is what makes parking race-free. */
static void finish_switch(zm_worker_t *w)
{
    zm_ult_t *u = w->prev;
    int action = w->action;
    w->action = ACT_NONE;
    atomic_store_explicit(&w->nswitch,
                          atomic_load_explicit(&w->nswitch, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    switch (action) {
    case ACT_YIELD:
        rq_push(w, u);
        break;
    case ACT_PARK:
        u->state = ZM_ULT_PARKED;
        if (w->commit(w->commit_arg)) {
            u->state = ZM_ULT_READY;
            rq_push(w, u);
        }
        break;
    case ACT_EXIT:
        job_finish_one(u);
        break;
    }
}

/* Called by worker w when it made all workers idle.  Reports a deadlock
 * (and ends the process) only if nothing moved while it looked and the
 * resolver could not end it.  A worker that wakes spuriously, or runs
 * ranks the resolver woke, may come back idle while another is still
 * deciding: `checking` lets one decide at a time and turns the other away,
 * so the decider, done, decides again if everyone is idle by then (the
 * seq_cst accesses to `idle` and `checking` make sure that a worker turned
 * away is seen idle). */
static void deadlock_check(zm_worker_t *w)
{
    char note[1024];
    for (;;) {
        unsigned g = atomic_load(&job.gen);
        if (atomic_load(&job.done) || atomic_load(&job.alive) == 0)
            return;
        /* A foreign thread still running may wake anyone (ult.h). */
        if (atomic_load(&job.frunning) > 0)
            return;
        for (int i = 0; i < job.cfg.nworkers; i++)
            if (atomic_load(&job.workers[i].inbox))
                return;
        if (atomic_load(&job.idle) != job.cfg.nworkers || atomic_load(&job.gen) != g)
            return;
        if (atomic_exchange(&job.checking, 1))
            return;
        note[0] = '\0';
        if (!job.resolve || !job.resolve(note, sizeof(note)))
            deadlock_report(note);
        atomic_store(&job.checking, 0);
        if (w->rq_head || atomic_load(&job.idle) != job.cfg.nworkers)
            return;
    }
}

static void worker_sleep(zm_worker_t *w)
{
    uint32_t seq = atomic_load_explicit(&w->wake_seq, memory_order_acquire);
    atomic_store_explicit(&w->sleeping, 1, memory_order_seq_cst);
    if (job.poll && atomic_load(&job.poller) < 0) {
        /* The poller left to run ranks after we found its post taken:
         * take it over instead of sleeping (see poll_duty). */
        atomic_store_explicit(&w->sleeping, 0, memory_order_relaxed);
        return;
    }
    /* With a network, ranks of other processes may still send: no
     * deadlock can be decided here (the poller is never idle anyway). */
    if (atomic_fetch_add(&job.idle, 1) + 1 == job.cfg.nworkers && !job.poll)
        deadlock_check(w);
    /* The resolver may have made ULTs of this worker ready: do not sleep
     * on them. */
    if (!w->rq_head && !atomic_load_explicit(&w->inbox, memory_order_seq_cst) &&
        !atomic_load(&job.done)) {
        if (job.cfg.nworkers == 1 || !CAN_MIGRATE || !job.migrate)
            zm_arch_futex_wait((uint32_t *)&w->wake_seq, seq);
        /* Wake now and then to see whether another worker's ready ULTs
         * wait for a computing one (want_work); still idle meanwhile. */
        else
            while (zm_arch_futex_wait_ns((uint32_t *)&w->wake_seq, seq, STEAL_CHECK_NS) &&
                   !atomic_load_explicit(&w->inbox, memory_order_relaxed) &&
                   !atomic_load(&job.done))
                want_work(w, zm_arch_time_ns());
    }
    /* Leave idle before draining, so a checker that saw us idle and our
     * inbox full cannot miss that we took the ULT (see deadlock_check). */
    atomic_fetch_add(&job.gen, 1);
    atomic_fetch_sub(&job.idle, 1);
    atomic_store_explicit(&w->sleeping, 0, memory_order_relaxed);
}

/* Poll w's inbox for IDLE_SPIN_NS; returns nonzero as soon as a ULT
 * arrives or the job ends, 0 if the worker should sleep. */
static int idle_spin(zm_worker_t *w)
{
    /* While threads that ranks created run (ult.h, foreign threads), they
     * need the cores an idle worker would spin on: spin as briefly as
     * they do. */
    int threads = atomic_load_explicit(&job.frunning, memory_order_relaxed) > 0;
    uint64_t now, end = zm_arch_time_ns() + (__builtin_expect(threads, 0) ? FOREIGN_SPIN_NS
                                                                         : IDLE_SPIN_NS);
    do {
        for (int i = 0; i < IDLE_POLLS_PER_CLOCK; i++) {
            if (atomic_load_explicit(&w->inbox, memory_order_relaxed) ||
                atomic_load_explicit(&job.done, memory_order_relaxed))
                return 1;
            if (job.poll && i % POLL_EVERY == 0 && job.poll()) {
                /* The network woke ranks of this worker, or may soon:
                 * stay awake a full period. */
                if (w->rq_head)
                    return 1;
                end = zm_arch_time_ns() + IDLE_SPIN_NS;
            }
            zm_arch_cpu_relax();
        }
        now = zm_arch_time_ns();
        if (CAN_MIGRATE && job.migrate && job.cfg.nworkers > 1)
            want_work(w, now);
    } while (now < end);
    return atomic_load_explicit(&w->inbox, memory_order_relaxed) != NULL || w->rq_head;
}

/* Sleep `ns` nanoseconds (the poller's back-off). */
static void nap(uint64_t ns)
{
    struct timespec ts = { (time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull) };
    nanosleep(&ts, NULL);
}

/* Poll the network with a growing back-off; returns once `ready` says
 * there is something to do. */
static void poll_until(int (*ready)(void *), void *arg)
{
    uint64_t pause = POLL_SLEEP_MIN;
    while (!ready(arg)) {
        if (job.poll()) {
            pause = POLL_SLEEP_MIN;
            continue;
        }
        nap(pause);
        pause = pause * 2 > job.poll_sleep_max ? job.poll_sleep_max : pause * 2;
    }
}

static int worker_has_work(void *arg)
{
    zm_worker_t *w = arg;
    return w->rq_head || atomic_load_explicit(&w->inbox, memory_order_relaxed) ||
           atomic_load_explicit(&job.done, memory_order_relaxed);
}

/* With a network, the last idle worker must not sleep on its futex: only
 * polling notices an arriving message.  Returns 0 if another worker holds
 * the poller's post (this one may sleep); otherwise polls until this
 * worker has work, gives the post up, and wakes a sleeping worker to take
 * it over (or to find it free and sleep again), then returns 1. */
static int poll_duty(zm_worker_t *w)
{
    int free_post = -1;
    if (!atomic_compare_exchange_strong(&job.poller, &free_post, w->id))
        return 0;
    poll_until(worker_has_work, w);
    atomic_store(&job.poller, -1);
    for (int i = 0; i < job.cfg.nworkers; i++) {
        zm_worker_t *o = &job.workers[i];
        if (o != w && atomic_load(&o->sleeping)) {
            atomic_fetch_add_explicit(&o->wake_seq, 1, memory_order_release);
            zm_arch_futex_wake((uint32_t *)&o->wake_seq, 1);
            break;
        }
    }
    return 1;
}

/* Next ULT to run, or NULL when the job is over.  Spins, then sleeps. */
static zm_ult_t *worker_next(zm_worker_t *w)
{
    for (;;) {
        zm_ult_t *u = rq_pop(w);
        if (u)
            return u;
        if (inbox_drain(w))
            continue;
        if (atomic_load_explicit(&job.done, memory_order_acquire))
            return NULL;
        if (idle_spin(w))
            continue;
        if (!job.poll || !poll_duty(w))
            worker_sleep(w);
    }
}

static void worker_loop(zm_worker_t *w)
{
    zm_ult_t *u;
    tl_worker = w;
    while ((u = worker_next(w)) != NULL) {
        w->current = u;
        zm_arch_ctx_switch(&w->sched_ctx, &u->ctx);
        finish_switch(w);
    }
}

static void *worker_thread(void *arg)
{
    zm_arch_fault_thread_init();
    worker_loop(arg);
    return NULL;
}

static void ult_entry(void *arg)
{
    zm_ult_t *u = arg;
    finish_switch(tl_worker);
    if (u->entry)
        u->entry(u, u->entry_arg);
    else
        job.cfg.entry(u, job.cfg.arg);
    zm_ult_exit(0);
}

/* Leave the running ULT with an action for finish_switch.  The next ready
 * ULT of this worker is entered directly, without a round trip through the
 * scheduler; the scheduler runs only when nothing else is ready. */
static void switch_away(int action)
{
    zm_worker_t *w = tl_worker;
    zm_ult_t *u = w->current, *next;
    w->prev = u;
    w->action = action;
    /* ULTs woken from other workers join the FIFO before we pick the next
     * one.  Draining only when the FIFO is empty starved them: two ranks
     * polling MPI_Iprobe on one worker kept the FIFO non-empty forever, so
     * a rank woken from the other worker never ran (HPL and the zmpi_hy
     * examples live-locked on 2 workers).  The check is one relaxed load. */
    inbox_drain(w);
    if (__builtin_expect(atomic_load_explicit(&w->hungry, memory_order_relaxed) != 0, 0))
        give_one(w, action == ACT_YIELD ? 1 : 2);
    next = rq_pop(w);
    if (next) {
        w->current = next;
        zm_arch_ctx_switch(&u->ctx, &next->ctx);
    } else {
        w->current = NULL;
        zm_arch_ctx_switch(&u->ctx, &w->sched_ctx);
    }
    /* Resumed, maybe on another worker (zm_ult_wake, give_one): the
     * thread-local read is made after the switch. */
    finish_switch(tl_worker);
}

void zm_ult_yield(void)
{
    zm_worker_t *w = tl_worker;
    /* A rank polling in a loop (MPI_Test, MPI_Iprobe) drives the network
     * too: on a busy worker nobody else would. */
    if (__builtin_expect(job.poll != NULL, 0))
        job.poll();
    if (!w || !w->current)
        return;
    if (!w->rq_head && !atomic_load_explicit(&w->inbox, memory_order_relaxed))
        return;
    switch_away(ACT_YIELD);
}

static int adopted_woken(void *arg)
{
    return __atomic_load_n(&((zm_ult_t *)arg)->state, __ATOMIC_ACQUIRE) != ZM_ULT_PARKED;
}

/* The adopted rank of a process started by a system launcher, parked:
 * poll the network without sleeping for ADOPTED_SPIN_NS after the last
 * progress, before poll_until's naps.  A nap of even 1 us takes some
 * 50 us on Linux (timer slack), and without this spin every blocking
 * receive of such a rank (mpi4py's) took one: 120 us per message instead
 * of under a microsecond.  The spin is short and yields the CPU between
 * batches because such processes are often more than the cores (mpi4py's
 * suite as 4 processes on 2 cores: spinning 5 ms without yielding made
 * it several times slower).  Returns nonzero once the rank is woken. */
#define ADOPTED_SPIN_NS 200000ull

static int adopted_spin(zm_ult_t *u)
{
    uint64_t end = zm_arch_time_ns() + ADOPTED_SPIN_NS;
    do {
        for (int i = 0; i < IDLE_POLLS_PER_CLOCK; i++) {
            if (adopted_woken(u))
                return 1;
            if (job.poll())
                end = zm_arch_time_ns() + ADOPTED_SPIN_NS;
        }
        sched_yield();
    } while (zm_arch_time_ns() < end);
    return adopted_woken(u);
}

static void unscheduled_park(zm_ult_t *u, int (*commit)(void *), void *arg);

void zm_ult_park(int (*commit)(void *), void *arg)
{
    zm_worker_t *w = tl_worker;
    if (!w || !w->current) {
        zm_ult_t *u = tl_adopted ? tl_adopted : &job.adopted_ult;
        /* A foreign thread, or an adopted rank that other threads may
         * wake: sleep until woken (unscheduled_park). */
        if (u->foreign || (atomic_load_explicit(&job.threaded, memory_order_relaxed) &&
                           !job.poll)) {
            unscheduled_park(u, commit, arg);
            return;
        }
        /* Adopted single-rank job: nobody else can end the wait, but the
         * resolver may (it wakes the rank synchronously, see zm_ult_wake).
         * Parked before the commit publishes the wait: once it has, the
         * rank's other threads (MPI_THREAD_MULTIPLE) may wake it. */
        __atomic_store_n(&u->state, ZM_ULT_PARKED, __ATOMIC_RELAXED);
        if (commit(arg)) {
            __atomic_store_n(&u->state, ZM_ULT_READY, __ATOMIC_RELAXED);
        } else {
            char note[1024] = "";
            if (job.poll) {
                /* One rank per process (a program started by a system
                 * launcher): the network wakes it, on this thread. */
                if (!adopted_spin(u))
                    poll_until(adopted_woken, u);
                return;
            }
            if (job.resolve && job.resolve(note, sizeof(note)) && u->state == ZM_ULT_READY)
                return;
            deadlock_report(note);
        }
        return;
    }
    w->commit = commit;
    w->commit_arg = arg;
    switch_away(ACT_PARK);
}

void zm_ult_exit(int status)
{
    zm_worker_t *w = tl_worker;
    if (!w || !w->current)
        return;
    w->current->exit_status = status;
    switch_away(ACT_EXIT);
    abort(); /* A finished ULT is never resumed. */
}

/* Format an unsigned number into buf (async-signal-safe); returns length. */
static size_t fmt_u(char *buf, unsigned long v)
{
    char tmp[24];
    size_t n = 0, i;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (i = 0; i < n; i++)
        buf[i] = tmp[n - 1 - i];
    return n;
}

/* SIGSEGV hook: a fault in (or up to 1 MiB below) the running ULT's guard
 * page is a stack overflow, since a large frame can jump over one page. */
static int stack_fault(void *addr)
{
    zm_worker_t *w = tl_worker;
    zm_ult_t *u = w ? w->current : NULL;
    char msg[256];
    size_t n = 0;
    if (!u || !u->stack.map)
        return 0;
    uintptr_t a = (uintptr_t)addr, lo = (uintptr_t)u->stack.lo;
    if (a >= lo || a + (1u << 20) < (uintptr_t)u->stack.map)
        return 0;
#define PUT(s) do { size_t l_ = strlen(s); memcpy(msg + n, s, l_); n += l_; } while (0)
    PUT("zmpi: rank ");
    n += fmt_u(msg + n, (unsigned long)u->id);
    PUT(": stack overflow (stack size ");
    n += fmt_u(msg + n, (unsigned long)((uintptr_t)u->stack.hi - lo));
    PUT(" bytes); raise it with zmpirun --stack-size or ZMPI_STACK_SIZE\n");
#undef PUT
    if (write(2, msg, n) < 0)
        return 1;
    return 1;
}

int zm_ult_job_prepare(const zm_ult_job_config_t *cfg)
{
    int n = cfg->nults, nw = cfg->nworkers, nl = cfg->local ? cfg->nlocal : n;
    job.cfg = *cfg;
    /* Spare records for ranks spawned at run time, only in a job of one
     * process (across processes the ids would collide). */
    long spare = 0;
    if (nl == n) {
        const char *e = getenv("ZMPI_SPAWN_MAX");
        spare = e && *e ? atol(e) : ZM_ULT_SPAWN_DEFAULT;
        if (spare < 0)
            spare = 0;
        if (spare > 0x7fffffffL - n)
            spare = 0x7fffffffL - n;
    }
    job.capacity = n + (int)spare;
    atomic_store(&job.nids, n);
    job.ults = calloc((size_t)job.capacity, sizeof(zm_ult_t));
    job.workers = aligned_alloc(64, sizeof(zm_worker_t) * (size_t)nw);
    job.threads = calloc((size_t)nw, sizeof(pthread_t));
    if (!job.ults || !job.workers || !job.threads)
        return -1;
    memset(job.workers, 0, sizeof(zm_worker_t) * (size_t)nw);
    for (int i = 0; i < nw; i++) {
        job.workers[i].id = i;
        job.workers[i].seen_sw = calloc((size_t)nw, sizeof(uint32_t));
        job.workers[i].seen_ns = calloc((size_t)nw, sizeof(uint64_t));
        if (!job.workers[i].seen_sw || !job.workers[i].seen_ns)
            return -1;
    }
    /* ZMPI_WAKE_MIGRATE=0 keeps every ULT on its first worker. */
    const char *mig = getenv("ZMPI_WAKE_MIGRATE");
    job.migrate = !(mig && strcmp(mig, "0") == 0);
    /* Only this process's ULTs get a record: the array is indexed by
     * world rank, and calloc'd memory nobody touches costs nothing. */
    for (int l = 0; l < nl; l++) {
        int i = cfg->local ? cfg->local[l] : l;
        zm_ult_t *u = &job.ults[i];
        u->id = i;
        /* Block mapping: consecutive ranks share a worker, so neighbour
         * exchanges mostly stay on one worker. */
        u->worker_id = (int)((long long)l * nw / nl);
        u->home_id = u->worker_id;
        u->worker = &job.workers[u->worker_id];
        if (zm_arch_stack_alloc(cfg->stack_size, &u->stack) != 0) {
            fprintf(stderr, "zmpi: cannot map a %zu-byte stack for rank %d of %d "
                    "(lower ZMPI_STACK_SIZE or the rank count)\n", cfg->stack_size, i, n);
            return -1;
        }
        zm_arch_ctx_make(&u->ctx, &u->stack, ult_entry, u);
        u->state = ZM_ULT_READY;
        rq_push(u->worker, u);
    }
    atomic_store(&job.alive, nl);
    return 0;
}

int zm_ult_job_start(void)
{
    const zm_ult_job_config_t *cfg = &job.cfg;
    zm_arch_fault_install(stack_fault);
    zm_arch_fault_thread_init();
    for (int i = 1; i < cfg->nworkers; i++) {
        if (pthread_create(&job.threads[i], NULL, worker_thread, &job.workers[i]) != 0) {
            fprintf(stderr, "zmpi: cannot start worker thread %d\n", i);
            return 1;
        }
    }
    worker_loop(&job.workers[0]);
    for (int i = 1; i < cfg->nworkers; i++)
        pthread_join(job.threads[i], NULL);
    tl_worker = NULL;
    return atomic_load(&job.status);
}

void zm_ult_set_resolver(zm_ult_resolve_fn fn)
{
    job.resolve = fn;
}

void zm_ult_set_poll(zm_ult_poll_fn fn)
{
    const char *e = getenv("ZMPI_NET_POLL_SLEEP_US");
    long us = e && *e ? atol(e) : 0;
    job.poll_sleep_max = us > 0 ? (uint64_t)us * 1000ull : POLL_SLEEP_MAX;
    if (job.poll_sleep_max < POLL_SLEEP_MIN)
        job.poll_sleep_max = POLL_SLEEP_MIN;
    job.poll = fn;
}

void zm_ult_job_adopt(zm_ult_describe_fn describe, int id, int nults)
{
    job.adopted = 1;
    job.capacity = nults;
    atomic_store(&job.nids, nults);
    job.adopted_ult.id = id;
    job.cfg.nults = nults;
    job.cfg.nworkers = 1;
    job.cfg.describe = describe;
    job.adopted_ult.state = ZM_ULT_READY;
    atomic_store(&job.alive, 1);
    tl_adopted = &job.adopted_ult;
}

int zm_ult_capacity(void)
{
    return job.capacity;
}

int zm_ult_reserve(int n)
{
    if (job.adopted || !tl_worker || n < 0)
        return -1;
    int first = atomic_load(&job.nids);
    do {
        if (n > job.capacity - first)
            return -1;
    } while (!atomic_compare_exchange_weak(&job.nids, &first, first + n));
    return first;
}

int zm_ult_launch(int id, void (*entry)(zm_ult_t *, void *), void *arg)
{
    zm_ult_t *u = &job.ults[id];
    int nw = job.cfg.nworkers;
    u->id = id;
    u->entry = entry;
    u->entry_arg = arg;
    u->worker_id = (int)(atomic_fetch_add(&job.spread, 1) % (unsigned)nw);
    u->home_id = u->worker_id;
    u->worker = &job.workers[u->worker_id];
    if (zm_arch_stack_alloc(job.cfg.stack_size, &u->stack) != 0)
        return -1;
    zm_arch_ctx_make(&u->ctx, &u->stack, ult_entry, u);
    /* Counted alive before it is runnable: the caller runs, so the job
     * cannot have ended, and the deadlock check sees the new ULT either
     * in an inbox or running. */
    atomic_fetch_add(&job.alive, 1);
    zm_ult_wake(u);
    return 0;
}

/* ---- Foreign threads (ult.h) ---------------------------------------------
 * A foreign record's state word is also its futex: READY, PARKED while its
 * thread spins, UNSCHED_SLEEPING once it sleeps.  The waker exchanges
 * READY in and calls the kernel only if the thread sleeps; it touches the
 * record no more after the exchange but for that wake (a woken thread may
 * leave and free its record at once, and waking a futex word that was
 * freed meanwhile is harmless). */
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

int zm_ult_job_adopted(void)
{
    return job.adopted;
}

int zm_ult_job_scheduled(void)
{
    return job.ults != NULL;
}

static void unscheduled_park(zm_ult_t *u, int (*commit)(void *), void *arg)
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
        if (!adopted_spin(u))
            poll_until(adopted_woken, u);
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
    while (__atomic_load_n(&u->state, __ATOMIC_ACQUIRE) == UNSCHED_SLEEPING)
        zm_arch_futex_wait((uint32_t *)&u->state, UNSCHED_SLEEPING);
}

static void wake_unscheduled(zm_ult_t *u)
{
    /* Counted running again before it can run (foreign_stopped's
     * opposite), so no deadlock check sees everyone stopped meanwhile. */
    if (u->foreign == ZM_ULT_FOREIGN_COUNTED)
        atomic_fetch_add(&job.frunning, 1);
    int old = __atomic_exchange_n(&u->state, ZM_ULT_READY, __ATOMIC_ACQ_REL);
    if (old == UNSCHED_SLEEPING)
        zm_arch_futex_wake((uint32_t *)&u->state, 1);
}

/* Add the parked foreign threads to a deadlock report. */
static void foreign_report(void)
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
        fprintf(stderr, "zmpi:   a thread of rank %d: %s\n", u->id, line[0] ? line : "blocked");
    }
    flock_drop();
}
