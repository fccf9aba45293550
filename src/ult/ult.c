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
#include "ult/ult_impl.h"
#include "arch/tsan_shim.h"

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
 * waited two periods of STEAL_AFTER_NS while its running ULT went on
 * without a switch and its thread used at least half the second period's
 * CPU time (a computing phase, not a worker the host had descheduled): it
 * asks that worker (hungry), which gives it one at its next switch.  A
 * sleeping worker looks every STEAL_CHECK_NS.
 * Such moves last for the busy spell: a ULT keeps its home worker, and
 * once waking sleepers is fast again (the score decays with time, and
 * sleeping workers sample their own wake-ups at each look) it goes back
 * there at its next wake-up (go_home).
 * Stealing can be turned off (ZMPI_STEAL=0, zmpirun --no-steal: lb.c).
 * Migration needs thread-local addresses that are never cached across a
 * switch (CAN_MIGRATE, ult_impl.h); elsewhere it is off. */
#define LAG_MIGRATE_TICKS 100000ull
#define STEAL_AFTER_NS 500000ull
#define STEAL_CHECK_NS 2000000ull

#define POLL_SLEEP_MIN 1000ull
#define POLL_SLEEP_MAX 50000ull

enum { ACT_NONE, ACT_YIELD, ACT_PARK, ACT_EXIT };

zm_ult_state_t zm_ult_job = { .poller = -1 };
#define job zm_ult_job

__thread zm_worker_t *zm_ult_tl_worker __attribute__((tls_model("initial-exec")));
__thread zm_ult_t *zm_ult_tl_adopted __attribute__((tls_model("initial-exec")));
#define tl_worker zm_ult_tl_worker
#define tl_adopted zm_ult_tl_adopted

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
     * which is the least): zm_ult_wake moves ULTs away from a slow one.
     * Right after a sleep the wait is the time the OS took to run the
     * woken worker: a sample of how busy the host is, not of this
     * worker's lag. */
    uint64_t waited = zm_arch_ticks() - list->pushed_at;
    if (w->woke) {
        w->woke = 0;
        zm_ult_busy_wake(waited);
        waited = 0;
    } else if (waited > LAG_MIGRATE_TICKS) {
        /* A hand-off to this running worker waited long: either its ULT
         * computed (a quiet host: nothing to do), or the host ran other
         * work on this core meanwhile (a busy one).  How long the thread
         * waited for a CPU since the last look tells the two apart; the
         * system calls are paid only after such a wait.  A count of
         * preemptions did not: on a quiet host a kernel thread takes the
         * core for microseconds now and then, and one such count put a
         * job on the busy-host path for the rest of its run (below). */
        uint64_t n = zm_arch_thread_wait_ns();
        zm_ult_busy_lost(n - w->waited_ns);
        w->waited_ns = n;
    }
    atomic_store_explicit(&w->lag, waited, memory_order_relaxed);
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

/* Push the chain first..last (linked by inbox_next) onto w's inbox in one
 * exchange, and wake w if it sleeps. */
static void inbox_push_chain(zm_worker_t *w, zm_ult_t *first, zm_ult_t *last)
{
    first->pushed_at = zm_arch_ticks();
    zm_ult_t *head = atomic_load_explicit(&w->inbox, memory_order_relaxed);
    do {
        atomic_store_explicit(&last->inbox_next, head, memory_order_relaxed);
    } while (!atomic_compare_exchange_weak_explicit(&w->inbox, &head, first,
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

/* Send ULT u, which a busy spell moved off its home worker (zm_ult_wake),
 * back there once the host is quiet again: left where they went, such
 * moves stacked ranks on one worker for good (5 of 8 on one of 2 workers
 * made examples/cg27.c 1.5x slower).  Homes are the placements of
 * ZMPI_Migrate, of stealing and of the start.  Returns 1 when u went. */
static int go_home(zm_ult_t *u, zm_worker_t *me)
{
    if (!CAN_MIGRATE || u->home_id < 0 || !__atomic_load_n(&job.migrate, __ATOMIC_RELAXED) ||
        __atomic_load_n(&u->pinned, __ATOMIC_RELAXED) || zm_ult_host_busy())
        return 0;
    zm_worker_t *h = &job.workers[u->home_id];
    ult_move(u, h);
    if (h == me)
        rq_push(h, u);
    else
        inbox_push(h, u);
    return 1;
}

void zm_ult_wake(zm_ult_t *u)
{
    zm_worker_t *w = u->worker, *me = tl_worker;
    if (__builtin_expect(!w, 0)) {
        /* No worker: a foreign thread's record, or the adopted single
         * rank (woken by a resolver or the network on its own thread, or
         * by its other threads). */
        zm_ult_unsched_wake(u);
        return;
    }
    u->state = ZM_ULT_READY;
    if (__builtin_expect(u->home_id != u->worker_id, 0) && go_home(u, me))
        return;
    if (w == me) {
        rq_push(w, u);
        return;
    }
    /* Its worker sleeps, or its hand-offs wait long (a busy host): run it
     * here (see STEAL_AFTER_NS), unless either ULT is pinned (a pinned
     * waker may hold this thread in an OpenMP region until others move).
     * A pair with a worker each is gathered too: kept apart, a two-rank
     * stream needs both cores at once, and bench/p2p_rate.c ran 15x
     * slower and more on a loaded host (bench/results/p2p.md).  Such a
     * move is for the busy spell only: the ULT keeps its home. */
    if (CAN_MIGRATE && me && __atomic_load_n(&job.migrate, __ATOMIC_RELAXED) &&
        !__atomic_load_n(&u->pinned, __ATOMIC_RELAXED) &&
        !(me->current && __atomic_load_n(&me->current->pinned, __ATOMIC_RELAXED)) &&
        (atomic_load_explicit(&w->sleeping, memory_order_relaxed) ||
         atomic_load_explicit(&w->lag, memory_order_relaxed) > LAG_MIGRATE_TICKS) &&
        zm_ult_host_busy()) {
        ult_move(u, me);
        rq_push(me, u);
        return;
    }
    inbox_push(w, u);
}

void zm_ult_wake_on(zm_ult_t *u, int worker)
{
    zm_worker_t *w = &job.workers[worker];
    ult_move(u, w);
    u->home_id = worker;
    u->state = ZM_ULT_READY;
    if (w == tl_worker)
        rq_push(w, u);
    else
        inbox_push(w, u);
}

void zm_ult_wake_all_on(zm_ult_t *const *us, const int *worker, int n, int skip)
{
    int nw = job.cfg.nworkers;
    zm_ult_t **first = calloc((size_t)nw * 2, sizeof(zm_ult_t *)), **last = first + nw;
    for (int i = 0; i < n; i++) {
        if (i == skip)
            continue;
        zm_ult_t *u = us[i];
        zm_worker_t *w = &job.workers[worker[i]];
        if (!first || w == tl_worker) {
            zm_ult_wake_on(u, worker[i]);
            continue;
        }
        ult_move(u, w);
        u->home_id = worker[i];
        u->state = ZM_ULT_READY;
        atomic_store_explicit(&u->inbox_next, first[w->id], memory_order_relaxed);
        if (!first[w->id])
            last[w->id] = u;
        first[w->id] = u;
    }
    for (int k = 0; first && k < nw; k++)
        if (first[k])
            inbox_push_chain(&job.workers[k], first[k], last[k]);
    free(first);
}

/* zm_ult_move_self's park: the ULT's context is saved, so it may be
 * queued on its new worker at once.  Nothing of `arg` (the mover's stack)
 * is read after that: the ULT may already run there. */
typedef struct {
    zm_ult_t *u;
    int worker;
} move_arg_t;

static int move_commit(void *arg)
{
    move_arg_t *m = arg;
    zm_ult_t *u = m->u;
    zm_ult_wake_on(u, m->worker);
    return 0;
}

void zm_ult_move_self(int worker)
{
    zm_worker_t *w = tl_worker;
    if (!w || !w->current)
        return;
    w->current->home_id = worker;
    if (worker == w->id)
        return;
    move_arg_t m = { w->current, worker };
    zm_ult_park(move_commit, &m);
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
            w->seen_cpu[i] = 0;
        } else if (now - w->seen_ns[i] >= STEAL_AFTER_NS) {
            /* A count that stands still may mean a computing ULT, or a
             * worker the host has descheduled (its cores busy with other
             * work).  Taking a ULT from the latter only spreads ranks that
             * communicate over workers the host runs in turns, which cost
             * a time slice per hand-off: ask only a worker whose thread
             * used most of the last period's CPU time. */
            uint64_t cpu = zm_arch_thread_cpu_ns(atomic_load_explicit(&o->cpu_clock,
                                                                      memory_order_relaxed));
            int ran = w->seen_cpu[i] && cpu - w->seen_cpu[i] >= STEAL_AFTER_NS / 2;
            w->seen_cpu[i] = cpu;
            w->seen_ns[i] = now;
            if (!ran)
                continue;
            int none = 0;
            atomic_compare_exchange_strong(&o->hungry, &none, w->id + 1);
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
    u->home_id = h - 1;
    inbox_push(u->worker, u);
}

static void deadlock_report(const char *note)
{
    zm_ult_report_blocked(stderr, -1);
    if (note && note[0])
        fprintf(stderr, "zmpi: %s\n", note);
    fflush(stderr);
    _exit(1);
}

static void job_finish_one(zm_ult_t *u)
{
    int zero = 0;
    u->state = ZM_ULT_DONE;
    /* The stack is unmapped when the whole job has ended (zm_ult_job_start):
     * an munmap while the other workers run costs every one of them an
     * interrupt to flush its TLB, and ten thousand ranks ending together
     * spent most of the job's end in those. */
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
        if (zm_arch_tsan_on())
            zm_arch_tsan_forget(&u->tsan_fiber);
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
        /* A foreign thread still running may wake anyone (ult.h), and a
         * ULT in a timed sleep will run again (ult_timer.c). */
        if (atomic_load(&job.frunning) > 0 || atomic_load(&job.timed) > 0)
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

/* The futex wait of a sleeping worker, until woken.  It wakes now and
 * then to see whether another worker's ready ULTs wait for a computing
 * one (want_work), still idle meanwhile, and, with ULTs of its own in a
 * timed sleep, no later than the first of them is due.  Returns 1 if it
 * ended for that (its own timer, not a waker), else 0. */
static int idle_wait(zm_worker_t *w, uint32_t seq)
{
    int steal = job.cfg.nworkers > 1 && CAN_MIGRATE && job.steal;
    for (;;) {
        uint64_t ns = zm_ult_timer_left(w);
        if (ns == 0)
            return 1;
        if (steal && ns > STEAL_CHECK_NS)
            ns = STEAL_CHECK_NS;
        if (ns == ZM_ULT_NO_TIMER) {
            zm_arch_futex_wait((uint32_t *)&w->wake_seq, seq);
            return 0;
        }
        /* While it sleeps in steps, the worker also samples the host:
         * how long it waited for its core after each step (zm_ult_busy_wake).
         * That keeps the score true while no hand-off samples it, as when
         * a busy spell gathered every rank on the other worker. */
        uint64_t waited = steal ? zm_arch_thread_wait_ns() : 0;
        if (!zm_arch_futex_wait_ns((uint32_t *)&w->wake_seq, seq, ns) ||
            atomic_load_explicit(&w->inbox, memory_order_relaxed) || atomic_load(&job.done))
            return 0;
        if (steal) {
            zm_ult_busy_lost(zm_arch_thread_wait_ns() - waited);
            want_work(w, zm_arch_time_ns());
        }
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
        /* A wake-up by its own timer says nothing of how fast the host
         * runs a woken worker (zm_ult_busy_wake): only others' count. */
        if (!idle_wait(w, seq))
            w->woke = 1;
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
        if (now >= w->tm_next) /* a timed sleeper is due (ult_timer.c) */
            return 1;
        if (CAN_MIGRATE && job.steal && job.cfg.nworkers > 1)
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
void zm_ult_poll_until(int (*ready)(void *), void *arg)
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
           atomic_load_explicit(&job.done, memory_order_relaxed) ||
           zm_ult_timer_left(w) == 0;
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
    zm_ult_poll_until(worker_has_work, w);
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
        if (w->tm_next != ZM_ULT_NO_TIMER && zm_ult_timer_fire(w))
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
    atomic_store_explicit(&w->cpu_clock, zm_arch_thread_clock(), memory_order_relaxed);
    w->waited_ns = zm_arch_thread_wait_ns();
    if (zm_arch_tsan_on())
        zm_arch_tsan_thread_start();
    while ((u = worker_next(w)) != NULL) {
        w->current = u;
        if (__atomic_load_n(&job.measure, __ATOMIC_RELAXED))
            w->since = zm_arch_ticks();
        /* ThreadSanitizer (tsan_shim.h): here and in switch_away, TSan
         * learns of each switch right before it is made. */
        if (zm_arch_tsan_on())
            zm_arch_tsan_enter(&u->tsan_fiber);
        zm_arch_ctx_switch(&w->sched_ctx, &u->ctx);
        finish_switch(w);
    }
}

static void *worker_thread(void *arg)
{
    zm_arch_fault_thread_init();
    worker_loop(arg);
    zm_arch_thread_wait_end();
    return NULL;
}

void zm_ult_finish_switch(void)
{
    finish_switch(tl_worker);
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
    if (__builtin_expect(w->tm_next != ZM_ULT_NO_TIMER, 0))
        zm_ult_timer_fire(w);
    if (__builtin_expect(atomic_load_explicit(&w->hungry, memory_order_relaxed) != 0, 0))
        give_one(w, action == ACT_YIELD ? 1 : 2);
    /* The balancer's busy time (lb.c): the slice ends here, and the next
     * one starts now if a ULT follows directly (else worker_loop starts
     * it).  One tick read per switch, and only when asked for.  A slice
     * begun before measuring started has no start (0) and is not counted. */
    if (__atomic_load_n(&job.measure, __ATOMIC_RELAXED)) {
        uint64_t t = zm_arch_ticks();
        u->busy += w->since ? t - w->since : 0;
        w->since = t;
    }
    next = rq_pop(w);
    if (next) {
        w->current = next;
        if (zm_arch_tsan_on())
            zm_arch_tsan_enter(&next->tsan_fiber);
        zm_arch_ctx_switch(&u->ctx, &next->ctx);
    } else {
        w->current = NULL;
        if (zm_arch_tsan_on())
            zm_arch_tsan_enter_sched();
        zm_arch_ctx_switch(&u->ctx, &w->sched_ctx);
    }
    /* Resumed, maybe on another worker (zm_ult_wake, give_one): the
     * thread-local read is made after the switch. */
    finish_switch(tl_worker);
}

void zm_ult_hand_over(void)
{
    zm_worker_t *w = tl_worker;
    if (!w || !w->current)
        return;
    /* Ranks woken from other workers wait in the inbox until a switch. */
    inbox_drain(w);
    give_one(w, 0);
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
    /* Nothing else ready: go on, unless a timed sleeper of this worker
     * is due (ult_timer.c), which a polling loop must not starve. */
    if (!w->rq_head && !atomic_load_explicit(&w->inbox, memory_order_relaxed) &&
        (__builtin_expect(w->tm_next == ZM_ULT_NO_TIMER, 1) || !zm_ult_timer_fire(w)))
        return;
    switch_away(ACT_YIELD);
}

int zm_ult_adopted_woken(void *arg)
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

int zm_ult_adopted_spin(zm_ult_t *u)
{
    uint64_t end = zm_arch_time_ns() + ADOPTED_SPIN_NS;
    do {
        for (int i = 0; i < IDLE_POLLS_PER_CLOCK; i++) {
            if (zm_ult_adopted_woken(u))
                return 1;
            if (job.poll())
                end = zm_arch_time_ns() + ADOPTED_SPIN_NS;
        }
        sched_yield();
    } while (zm_arch_time_ns() < end);
    return zm_ult_adopted_woken(u);
}

static void (*park_hook)(zm_ult_t *);

void zm_ult_set_park_hook(void (*fn)(zm_ult_t *u))
{
    park_hook = fn;
}

/* Call the park hook for u if the layer above asked for it. */
static inline void park_notify(zm_ult_t *u)
{
    if (__builtin_expect(atomic_load_explicit(&u->park_notify, memory_order_relaxed), 0))
        park_hook(u);
}

/* zm_ult_park of a worker's ULT whose park hook is wanted: kept out of
 * line so that the common park saves no registers for the call. */
static __attribute__((noinline, cold)) void park_hooked(zm_worker_t *w, int (*commit)(void *),
                                                       void *arg)
{
    park_hook(w->current);
    w->commit = commit;
    w->commit_arg = arg;
    switch_away(ACT_PARK);
}

void zm_ult_park(int (*commit)(void *), void *arg)
{
    zm_worker_t *w = tl_worker;
    if (!w || !w->current) {
        zm_ult_t *u = tl_adopted ? tl_adopted : &job.adopted_ult;
        park_notify(u);
        /* A foreign thread, or an adopted rank that other threads may
         * wake: sleep until woken (zm_ult_unsched_park, ult_foreign.c). */
        if (u->foreign || (atomic_load_explicit(&job.threaded, memory_order_relaxed) &&
                           !job.poll)) {
            zm_ult_unsched_park(u, commit, arg);
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
                if (!zm_ult_adopted_spin(u))
                    zm_ult_poll_until(zm_ult_adopted_woken, u);
                return;
            }
            if (job.resolve && job.resolve(note, sizeof(note)) && u->state == ZM_ULT_READY)
                return;
            deadlock_report(note);
        }
        return;
    }
    if (__builtin_expect(atomic_load_explicit(&w->current->park_notify, memory_order_relaxed),
                         0)) {
        park_hooked(w, commit, arg);
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

int zm_ult_job_prepare(const zm_ult_job_config_t *cfg)
{
    int n = cfg->nults, nw = cfg->nworkers, nl = cfg->local ? cfg->nlocal : n;
    job.cfg = *cfg;
    zm_ult_ids_setup(cfg);
    job.ults = calloc((size_t)job.capacity, sizeof(zm_ult_t));
    job.workers = aligned_alloc(64, sizeof(zm_worker_t) * (size_t)nw);
    job.threads = calloc((size_t)nw, sizeof(pthread_t));
    if (!job.ults || !job.workers || !job.threads)
        return -1;
    memset(job.workers, 0, sizeof(zm_worker_t) * (size_t)nw);
    for (int i = 0; i < nw; i++) {
        job.workers[i].id = i;
        job.workers[i].tm_next = ZM_ULT_NO_TIMER;
        job.workers[i].seen_sw = calloc((size_t)nw, sizeof(uint32_t));
        job.workers[i].seen_ns = calloc((size_t)nw, sizeof(uint64_t));
        job.workers[i].seen_cpu = calloc((size_t)nw, sizeof(uint64_t));
        if (!job.workers[i].seen_sw || !job.workers[i].seen_ns || !job.workers[i].seen_cpu)
            return -1;
    }
    /* ZMPI_WAKE_MIGRATE=0 keeps every ULT on its first worker (and turns
     * stealing off too, unless ZMPI_STEAL says otherwise: lb.c). */
    const char *mig = getenv("ZMPI_WAKE_MIGRATE");
    job.migrate = !(mig && strcmp(mig, "0") == 0);
    /* ZMPI_WAKE_MIGRATE=always moves woken ULTs as if the host were busy
     * (every wake-up slow), so that tests and A/B runs on a quiet host
     * take the decisions of a loaded one. */
    job.migrate_always = mig && strcmp(mig, "always") == 0;
    if (zm_ult_lb_setup() != 0)
        return -1;
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
        if (cfg->stack_at ? cfg->stack_at(i, &u->stack) != 0
                          : zm_arch_stack_alloc(cfg->stack_size, &u->stack) != 0) {
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
    zm_arch_fault_install(zm_ult_stack_fault);
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
    for (int i = 0, n = atomic_load(&job.nids); i < n; i++)
        zm_arch_stack_free(&job.ults[i].stack);
    return atomic_load(&job.status);
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

