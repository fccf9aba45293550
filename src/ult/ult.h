/*
 * ult: user-level threads (one per virtual rank) scheduled on worker threads.
 *
 * A job is a set of ULTs mapped in blocks onto W workers (more may be
 * started while it runs, for spawned ranks: zm_ult_launch).  The main
 * thread becomes worker 0.  Each worker runs its ULTs from a private FIFO;
 * other workers hand ULTs to it through a lock-free inbox.  A ULT that has
 * to wait parks itself; it runs again only when someone calls zm_ult_wake.
 * When every live ULT is parked the job is deadlocked: the layer reports it
 * and ends the process.
 */
#ifndef ZM_ULT_H
#define ZM_ULT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "arch/arch.h"

typedef struct zm_ult zm_ult_t;
typedef struct zm_worker zm_worker_t;

/* One user-level thread.  Owned by the job; lives until the job ends. */
struct zm_ult {
    zm_arch_ctx_t ctx;                /* saved context while not running */
    zm_arch_stack_t stack;            /* mmap'd stack with guard page */
    zm_worker_t *worker;              /* worker that runs this ULT */
    zm_ult_t *rq_next;                /* link in the worker's local FIFO */
    _Atomic(zm_ult_t *) inbox_next;   /* link in a worker's inbox stack */
    int id;                           /* index in the job (the world rank) */
    int worker_id;                    /* index of `worker` */
    int home_id;                      /* worker it was placed on (first, then by a
                                       * balancing step, lb.c, or a steal); a busy
                                       * host's wake-ups move it away for a while */
    int pinned;                       /* zm_ult_pin depth: not moved to another worker */
    int state;                        /* ZM_ULT_* below */
    int exit_status;                  /* value passed to zm_ult_exit */
    uint64_t pushed_at;               /* zm_arch_ticks when put in another worker's inbox */
    uint64_t busy;                    /* ticks run on workers since zm_ult_busy_take (lb.c) */
    uint64_t wake_at;                 /* zm_arch_time_ns deadline of a timed sleep
                                       * (ult_timer.c), while in its worker's heap */
    void *user;                       /* upper layers' per-rank data */
    /* A ULT started at run time (zm_ult_launch) runs its own body instead
     * of the job's entry. */
    void (*entry)(zm_ult_t *, void *);
    void *entry_arg;
    /* Nonzero for the record of a foreign OS thread acting for ULT `id`
     * (zm_ult_foreign_init): no worker runs it; it parks on a futex.
     * ZM_ULT_FOREIGN_COUNTED if the thread is counted (below). */
    int foreign;
    /* Set by the layer above while it needs its park hook called for
     * this ULT (zm_ult_set_park_hook); parks skip the call otherwise. */
    _Atomic uint8_t park_notify;
    void *tsan_fiber;                 /* ThreadSanitizer's state for this ULT, when
                                       * TSan is in the process (arch/tsan_shim.h) */
};

enum {
    ZM_ULT_NEW,      /* not started yet */
    ZM_ULT_READY,    /* runnable or running */
    ZM_ULT_PARKED,   /* waiting for zm_ult_wake */
    ZM_ULT_DONE      /* finished */
};

/* A worker thread.  Exposed here only so the hot inline helpers below can
 * read it; other layers must not touch its fields. */
struct zm_worker {
    zm_arch_ctx_t sched_ctx;          /* the scheduler loop's context */
    zm_ult_t *current;                /* ULT running now, or NULL */
    zm_ult_t *rq_head, *rq_tail;      /* local FIFO of ready ULTs */
    zm_ult_t *prev;                   /* ULT that switched away last */
    int action;                       /* what `prev` asked for */
    int (*commit)(void *);            /* park commit callback */
    void *commit_arg;                 /* its argument */
    int id;                           /* worker index */
    uint64_t since;                   /* zm_arch_ticks when `current` was switched in */
    /* Timed sleeps of ULTs parked on this worker (ult_timer.c), owned by
     * the worker's thread: a binary min-heap on wake_at. */
    uint64_t tm_next;                 /* earliest wake_at, or ZM_ULT_NO_TIMER */
    zm_ult_t **tm_heap;               /* the heap (malloc'd, grown by sleepers) */
    int tm_len, tm_cap;               /* entries used and allocated */
    /* The inbox and sleep state are written by other threads, so they sit
     * on their own cache line. */
    _Alignas(64) _Atomic(zm_ult_t *) inbox; /* LIFO of ULTs from others */
    _Atomic uint32_t sleeping;        /* 1 while in or near futex wait */
    _Atomic uint32_t wake_seq;        /* futex word bumped by wakers */
    _Atomic int hungry;               /* 1 + id of an idle worker asking for a ULT, or 0 */
    /* Written by the owner at every switch, read by idle workers that look
     * for one whose ready ULTs have waited long (ult.c, want_work). */
    _Alignas(64) _Atomic uint32_t nswitch; /* switches so far */
    _Atomic int rq_len;               /* ULTs in the local FIFO */
    _Atomic uint64_t lag;             /* ticks the last ULT drained from the inbox waited */
    int woke;                         /* back from a sleep: the next drain samples the delay */
    uint32_t *seen_sw;                /* per worker: its nswitch when last looked at */
    uint64_t *seen_ns;                /* per worker: when that count was first seen */
    uint64_t *seen_cpu;               /* per worker: its CPU time then, or 0 (want_work) */
    uint64_t waited_ns;               /* this thread's run delay when last read (zm_arch_thread_wait_ns) */
    _Atomic uint64_t cpu_clock;       /* this thread's CPU clock (zm_arch_thread_clock), or 0 */
};

/* Thread-local scheduler state.  initial-exec: libzmpi is linked into the
 * program, never dlopen'ed, so TLS is a fixed offset from the thread
 * pointer instead of a __tls_get_addr call on every MPI call. */
extern __thread zm_worker_t *zm_ult_tl_worker __attribute__((tls_model("initial-exec")));
extern __thread zm_ult_t *zm_ult_tl_adopted __attribute__((tls_model("initial-exec")));

/* Describes what a parked ULT waits for, for deadlock reports.  Called on a
 * worker thread while all ULTs are parked; writes at most len bytes. */
typedef void (*zm_ult_describe_fn)(zm_ult_t *ult, char *buf, size_t len);

/* Tries to end a deadlock before it is reported.  Called on a worker
 * thread, outside any ULT, once every live ULT is parked (one call at a
 * time).  It may wake parked ULTs with zm_ult_wake and return nonzero: the
 * job then goes on.  Returning 0, it may write a note of at most len bytes
 * that the report prints (why the deadlock could not be ended). */
typedef int (*zm_ult_resolve_fn)(char *note, size_t len);

/* Configuration of a job. */
typedef struct zm_ult_job_config {
    int nults;                         /* number of ULTs (world ranks of the job) */
    int nworkers;                      /* worker threads, main included */
    const int *local;                  /* ids of the ULTs this process runs, in order
                                        * (NULL: all of them) */
    int nlocal;                        /* entries of local */
    size_t stack_size;                 /* usable bytes per ULT stack */
    void (*entry)(zm_ult_t *, void *); /* body of each ULT */
    void *arg;                         /* passed to entry */
    zm_ult_describe_fn describe;       /* may be NULL */
    /* Places ULT id's stack (checkpoint/restart keeps it at a fixed
     * address); NULL: mapped anywhere.  Returns 0 or -1. */
    int (*stack_at)(int id, zm_arch_stack_t *stack);
    /* Ids for ULTs started at run time (zm_ult_reserve): the job keeps
     * `spare` records after its nults ranks, dealt to its processes in
     * turn, so that this process (index id_offset of id_stride) hands out
     * nults + id_offset, then + id_stride, ... and every process can tell
     * whose an id is.  id_stride 0: one process, every spare id is its. */
    int spare, id_stride, id_offset;
} zm_ult_job_config_t;

/* Create the ULTs (with their stacks) and workers of a job, without
 * running anything, so upper layers can attach per-ULT data.  Returns 0,
 * or -1 after printing why.  Main thread only, once per process. */
int zm_ult_job_prepare(const zm_ult_job_config_t *cfg);

/* Save the calling ULT's context without leaving it: *sp and the `len`
 * bytes at it (frame) are what zm_ult_resume_saved needs to make another
 * process's ULT of the same id continue from here, once its stack holds
 * the same contents.  Returns 0 after saving, and 1 in the ULT that a
 * restart resumed (*resumed, read when it lands here, tells which).
 * The calling ULT; values the caller keeps in registers across the call
 * come back as they were when it saved. */
int zm_ult_capture(void **sp, unsigned char *frame, size_t len, const int *resumed);

/* Make ULT u (prepared, not started) continue from a saved context: writes
 * `frame` back at sp on its stack and switches to it there when it first
 * runs.  Main thread, before the job starts. */
void zm_ult_resume_saved(zm_ult_t *u, void *sp, const unsigned char *frame, size_t len);

/* Run the prepared job to completion on the calling thread (which becomes
 * worker 0) and W-1 new threads.  Returns the job's exit status: the first
 * nonzero status of any ULT, or 0.  Main thread only. */
int zm_ult_job_start(void);

/* Set the function tried before a deadlock is reported (NULL for none).
 * Main thread, before the job runs. */
void zm_ult_set_resolver(zm_ult_resolve_fn fn);

/* Progress of work outside this process (the network layer): returns
 * nonzero if it did something.  Called by idle workers, by ULTs that
 * yield (polling loops) and by an adopted rank while it waits. */
typedef int (*zm_ult_poll_fn)(void);

/* Install the poll function.  With one installed, idle workers never all
 * sleep: one of them (the poller) keeps polling, backing off to short
 * sleeps, since nothing else would wake the job when a message arrives;
 * and the deadlock detector never runs, since the ranks of other
 * processes may still send.  Main thread, before the job runs. */
void zm_ult_set_poll(zm_ult_poll_fn fn);

/* Make the calling OS thread the single ULT of this process, without a
 * scheduler (a program started without the zmpi launcher): ULT `id` of a
 * job of `nults` (the others run in other processes).  Parking then only
 * succeeds if the wait is already over, or, with a poll function, once
 * polling woke the rank; otherwise it is a deadlock. */
void zm_ult_job_adopt(zm_ult_describe_fn describe, int id, int nults);

/* The ULT running on the calling thread, or NULL outside any job. */
static inline zm_ult_t *zm_ult_self(void)
{
    zm_worker_t *w = zm_ult_tl_worker;
    return w ? w->current : zm_ult_tl_adopted;
}

/* Keep the calling ULT on its worker until the matching zm_ult_unpin
 * (nestable): wake-ups and idle workers otherwise may move a parked or
 * ready ULT to another worker (ult.c), and code that holds state of its
 * worker's OS thread across a switch (an OpenMP region run in place, whose
 * libgomp state is that thread's) must resume on that thread.  ULT
 * context; a no-op elsewhere. */
static inline void zm_ult_pin(void)
{
    zm_ult_t *u = zm_ult_self();
    if (u)
        __atomic_add_fetch(&u->pinned, 1, __ATOMIC_RELAXED);
}

static inline void zm_ult_unpin(void)
{
    zm_ult_t *u = zm_ult_self();
    if (u)
        __atomic_sub_fetch(&u->pinned, 1, __ATOMIC_RELAXED);
}

/* Nonzero when no other ULT is ready on the caller's worker, so a waiting
 * ULT may spin instead of parking.  ULT context. */
static inline int zm_ult_alone(void)
{
    zm_worker_t *w = zm_ult_tl_worker;
    return w && !w->rq_head && !atomic_load_explicit(&w->inbox, memory_order_relaxed);
}

/* Hand one ready ULT of the caller's worker to the idle worker that asked
 * for one (zm_ult_spin_point).  ULT context. */
void zm_ult_hand_over(void);

/* A point where the running ULT may be busy-waiting in the program's own
 * code: a loop that takes and drops a pthread mutex until another thread
 * changed something (MPICH's test barrier does).  Such a ULT never
 * switches by itself, and ready ranks of its worker are handed to an idle
 * worker that asked for one (hungry, ult.c) only at a switch: one of
 * them may be the rank its threads wait for.  So an idle worker's request
 * is served here, without a switch: the caller may be inside a library
 * that holds a lock of zmpi's (the network layer calls its MPI, which
 * takes mutexes), and a switch there could run a rank that spins on that
 * lock.  Costs a thread-local load and a test.  Any thread; a no-op but
 * on a ULT. */
static inline void zm_ult_spin_point(void)
{
    zm_worker_t *w = zm_ult_tl_worker;
    if (__builtin_expect(w && w->current &&
                             atomic_load_explicit(&w->hungry, memory_order_relaxed), 0))
        zm_ult_hand_over();
}

/* ULT number `id` of the current job. */
zm_ult_t *zm_ult_get(int id);

/* Number of ULTs and of workers in the current job. */
int zm_ult_count(void);
int zm_ult_nworkers(void);

/* Let other ready ULTs of this worker run.  ULT context only. */
void zm_ult_yield(void);

/* Park the calling ULT.  After its context is saved, the worker calls
 * commit(arg): if commit returns nonzero the wait is already over and the
 * ULT is made ready again at once; if it returns 0 the ULT stays parked
 * until zm_ult_wake.  commit publishes "I am parked" to wakers, so no wake
 * can be lost.  ULT context only. */
void zm_ult_park(int (*commit)(void *), void *arg);

/* Make a parked ULT ready.  Any thread, any ULT; each park is ended by
 * exactly one wake. */
void zm_ult_wake(zm_ult_t *ult);

/* ---- Timed sleeps (ult_timer.c) ----
 * A ULT may sleep until a deadline while its worker runs the others: it
 * parks, and its worker wakes it (zm_ult_wake) at the first switch or
 * idle moment after the deadline.  Only the deadline ends the sleep
 * (nothing emulates the signals that end libc's sleeps early).  The
 * sleeper stays on the worker that parked it, in that worker's heap, and
 * while any ULT sleeps this way no deadlock is reported: it will run
 * again. */

/* tm_next of a worker with no timed sleeper. */
#define ZM_ULT_NO_TIMER UINT64_MAX

/* Park the calling ULT until zm_arch_time_ns() >= deadline_ns (a
 * deadline already past only yields).  Returns 0 once the deadline has
 * passed, or -1 at once, having done nothing, if the calling thread runs
 * no ULT of a scheduled job (a foreign thread, an adopted rank, the main
 * thread outside the job) or the worker's heap cannot grow: the caller
 * then blocks its thread instead.  Any thread. */
int zm_ult_sleep_until(uint64_t deadline_ns);

/* End the calling ULT with an exit status.  Never returns.  ULT context
 * only; returns immediately (doing nothing) outside a job so the caller can
 * fall back to process exit. */
void zm_ult_exit(int status);

/* Nonzero if the current thread runs a ULT of a scheduled job (not an
 * adopted single-rank job). */
int zm_ult_in_job(void);

/* ---- ULTs started at run time (dynamic processes, src/mpi/spawn.c) ----
 * A scheduled job keeps spare ULT records after its nults ranks (the
 * config's `spare`: ZMPI_SPAWN_MAX, default ZM_ULT_SPAWN_DEFAULT, for the
 * whole job), so that per-rank arrays indexed by ULT id (here, in p2p and
 * the API layer) are sized once at start and never move.  Untouched
 * records cost no memory.  Ids are never reused: a finished ULT keeps its
 * record.  In a job of several processes the spare ids are dealt to the
 * processes in turn (see the config), so the ids one reservation returns
 * are zm_ult_id_stride() apart. */
#define ZM_ULT_SPAWN_DEFAULT 16384

/* Number of ULT records of the job, spare ones included: every id ever
 * handed out is below it.  Any thread. */
int zm_ult_capacity(void);

/* Reserve n new ULT ids, first, first + s, ..., first + (n - 1) * s with
 * s = zm_ult_id_stride(); returns first, or -1 if this process's spare
 * records are used up or the job cannot start ULTs at run time (an
 * adopted rank).  zm_ult_count() covers them from now on; records stay in
 * ZM_ULT_NEW until zm_ult_launch.  ULT context. */
int zm_ult_reserve(int n);

/* The distance between consecutive ids of one zm_ult_reserve: 1 in a job
 * of one process, the number of processes otherwise.  Any thread. */
int zm_ult_id_stride(void);

/* How many more ids zm_ult_reserve can hand out in this process (0 for an
 * adopted rank).  Any thread (a snapshot). */
int zm_ult_spare_left(void);

/* Start reserved ULT `id` running entry(u, arg) on a stack of the job's
 * size, on the next worker in turn (new ULTs are spread round-robin).
 * The job does not end before it finishes.  Returns 0, or -1 if its stack
 * cannot be mapped (the record then stays unused).  ULT context. */
int zm_ult_launch(int id, void (*entry)(zm_ult_t *, void *), void *arg);

/* ---- Foreign threads (MPI_THREAD_MULTIPLE, src/mpi/threads.c) ----
 * An OS thread that is no worker may act for a ULT (a thread a rank
 * created calls MPI for the rank).  It gets a record of its own, bound to
 * the thread, that zm_ult_self() returns there: same id and user data as
 * the ULT, no worker (worker_id -1).  Parking such a record spins
 * briefly, then sleeps on a futex until zm_ult_wake; waking it from any
 * thread ends the sleep.  Nothing else of the scheduler changes, so ULTs
 * pay nothing for it.
 *
 * The deadlock detector must not report a job whose ULTs all wait while
 * a foreign thread still runs (it may send what they wait for): threads
 * that may act for a ULT are counted from their creation
 * (zm_ult_foreign_count), and a counted thread parked in a record does
 * not count while it waits. */

enum { ZM_ULT_FOREIGN_COUNTED = 1, ZM_ULT_FOREIGN_UNCOUNTED = 2 };

/* Set up `rec` as the record of a foreign thread acting for ULT `id`,
 * with upper-layer data `user`; `counted` if the thread was counted by
 * zm_ult_foreign_count (its waits then count too).  Any thread. */
void zm_ult_foreign_init(zm_ult_t *rec, int id, void *user, int counted);

/* Make zm_ult_self() return `rec` on the calling thread from now on
 * (NULL: no record any more).  The calling thread must not be a worker. */
void zm_ult_foreign_bind(zm_ult_t *rec);

/* The calling thread's bound foreign record, or NULL. */
zm_ult_t *zm_ult_foreign_self(void);

/* A thread that may act for a ULT starts (+1) or ends (-1).  Any
 * thread. */
void zm_ult_foreign_count(int delta);

/* An adopted single-rank job (a program not started by zmpirun) whose
 * other threads may call MPI: its rank, parked, sleeps until one of them
 * wakes it instead of being reported deadlocked.  Any thread. */
void zm_ult_set_threaded(void);

/* Have fn(u) called by every ULT u (or thread acting for it) about to
 * park while u->park_notify is set, in its own context, before anything
 * else of the park: the layer above hands off what only a running rank
 * would pick up (p2p's rings).  Main thread, before the job starts. */
void zm_ult_set_park_hook(void (*fn)(zm_ult_t *u));

/* Nonzero in an adopted single-rank job. */
int zm_ult_job_adopted(void);

/* Nonzero once this process runs a scheduled job (zm_ult_job_prepare). */
int zm_ult_job_scheduled(void);

/* Job-wide deadlock detection (src/net/net.c; ult_quiet.c).  zm_ult_quiet:
 * nonzero if every live rank of this process is parked, none is ready to
 * run and no thread a rank created runs; *activity is a count that moves
 * whenever a rank is switched to, so two equal readings of a quiet
 * process mean nothing ran in between.  zm_ult_report_blocked prints
 * this process's (number `proc`) blocked ranks and threads to `out`
 * (stderr, or a memory stream whose text the job-wide report sends to
 * process 0), under the heading of a one-process deadlock when proc < 0.
 * Any thread. */
int zm_ult_quiet(uint64_t *activity);
void zm_ult_report_blocked(FILE *out, int proc);

/* ---- Migration between workers and load balancing (lb.c) ----
 * A ULT parked in a balancing step (zm_ult_lb_join) may be given another
 * home worker: it resumes there, and wake-ups send it there from then on.
 * Everything a ULT owns (stack, heap data, upper layers' per-rank state)
 * is reached through pointers that do not depend on the worker, so moving
 * it is changing two fields; the code of the layers above that looks at
 * worker ids uses them only as hints (docs/migrate.md).  A pinned ULT
 * (zm_ult_pin) never moves, and on architectures where a thread-local
 * address may be kept across a switch (CAN_MIGRATE, ult_impl.h) nothing
 * moves.  The first step with a strategy other than none turns wake-up
 * migration off (unless ZMPI_WAKE_MIGRATE=1), since it would undo the
 * placement. */

/* Strategies of a balancing step. */
enum { ZM_ULT_LB_NONE, ZM_ULT_LB_GREEDY, ZM_ULT_LB_REFINE, ZM_ULT_LB_ROTATE };

/* Accepted imbalance of greedy and refine unless the caller says: the
 * largest worker load may exceed the mean by this fraction before a step
 * moves anything. */
#define ZM_ULT_LB_TOLERANCE 0.05

/* The strategy named `name` ("greedy", "refine", "rotate", "none"), or -1
 * if there is none of that name.  Any thread. */
int zm_ult_lb_parse(const char *name);

/* Name of strategy s.  Any thread. */
const char *zm_ult_lb_name(int s);

/* The job's default strategy (ZMPI_LB, zmpirun --lb; greedy when unset).
 * Steps print their loads when ZMPI_LB_REPORT=1 (zmpirun --lb-report).
 * Any thread, once the job is prepared. */
int zm_ult_lb_default(void);

/* Whether balancing steps print their loads (ZMPI_LB_REPORT) and whether
 * idle workers take ranks from computing ones (ZMPI_STEAL), as decided
 * when the job was prepared.  Any thread, once the job is prepared. */
int zm_ult_lb_reporting(void);
int zm_ult_stealing(void);

/* One balancing step of a fixed set of n ULTs of this process, reused
 * from step to step (the ranks of one MPI_COMM_WORLD: src/mpi/migrate.c).
 * Made by zm_ult_lb_step_new, owned by its maker, never freed while the
 * job runs. */
typedef struct zm_ult_lb_step zm_ult_lb_step_t;

/* A step for n participants, or NULL if out of memory.  Any thread. */
zm_ult_lb_step_t *zm_ult_lb_step_new(int n);

/* A step for n participants that replaces `old` (freed), numbered on from
 * it, or NULL (old kept) if out of memory: the ranks of the step's world
 * in this process changed (ranks moved between processes).  No ULT may be
 * in `old`.  Any thread. */
zm_ult_lb_step_t *zm_ult_lb_step_renew(zm_ult_lb_step_t *old, int n);

/* What a participant brings to a step. */
typedef struct zm_ult_lb_args {
    int strategy;       /* ZM_ULT_LB_*; participant 0's is the step's */
    double tolerance;   /* accepted imbalance: max worker load / mean - 1 */
    double load;        /* its load since the last step in seconds (or any
                         * unit all participants share), or < 0 for its
                         * measured busy time: the time it ran on a worker
                         * (waits and other ULTs' turns excluded), measured
                         * from the job's start when ZMPI_LB names a
                         * strategy, else from the first step (it costs a
                         * tick read per switch), 0 before */
} zm_ult_lb_args_t;

/* The calling ULT joins step s as participant `idx` (0 <= idx < n, each
 * once per step) and parks until all n have joined; the last to join
 * plans the placement, reports it if asked (stderr), gives every moved
 * participant its new home worker and wakes them all there.  Returns
 * when the caller runs on its new (or old) worker.  ULT context of a
 * scheduled job. */
void zm_ult_lb_join(zm_ult_lb_step_t *s, int idx, const zm_ult_lb_args_t *a);

/* Make parked ULT u ready on worker `worker`, which becomes its home
 * (wake-ups will bring it back there).  Ends u's park like zm_ult_wake,
 * but always queues it on that worker.  Any ULT of a scheduled job. */
void zm_ult_wake_on(zm_ult_t *u, int worker);

/* zm_ult_wake_on for the n parked ULTs us[i] onto workers worker[i],
 * but us[skip] (-1: none): the ULTs for each other worker go to it in one
 * hand-off, the caller's own are queued here.  The arrays are the
 * caller's.  ULT context of a scheduled job. */
void zm_ult_wake_all_on(zm_ult_t *const *us, const int *worker, int n, int skip);

/* Move the calling ULT to worker `worker` (its new home): it returns
 * running there.  ULT context of a scheduled job. */
void zm_ult_move_self(int worker);

/* Whether a ULT may resume on another OS thread than the one it left on
 * this architecture (x86-64: yes; elsewhere a compiler may keep the
 * thread pointer across a call), so whether ranks may move at all.  Any
 * thread. */
int zm_ult_lb_can_move(void);

/* The calling ULT's busy seconds since its last balancing step, without
 * starting a new interval (0 while not measuring).  ULT context. */
double zm_ult_lb_busy_peek(void);

/* ---- Moving ULTs across processes (ult_lbproc.c) ----
 * zm_ult_depart: parked ULT u leaves this process for good (its rank
 * moved to another): it is no longer counted live and is never woken
 * here; its record stays, as a record of another process's rank.  Its
 * stack (in its rank's region) is the caller's to send.  A ULT of this
 * process other than u must call it (the job keeps a live ULT).
 * zm_ult_arrive: ULT `id`, whose stack the caller has written at its
 * fixed address (the job's stack_at) with a context saved by
 * zm_ult_capture at sp (frame: the len bytes saved there), becomes live
 * here and ready on worker `worker`; it returns from zm_ult_capture with
 * 1.  Returns 0, or -1 if the job places no stacks (not a checkpoint
 * job).  Both: a ULT of a scheduled job. */
void zm_ult_depart(zm_ult_t *u);
int zm_ult_arrive(int id, void *sp, const unsigned char *frame, size_t len, int worker);

#endif /* ZM_ULT_H */
