/*
 * ult: user-level threads (one per virtual rank) scheduled on worker threads.
 *
 * A job is a fixed set of ULTs mapped in blocks onto W workers.  The main
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
    int state;                        /* ZM_ULT_* below */
    int exit_status;                  /* value passed to zm_ult_exit */
    void *user;                       /* upper layers' per-rank data */
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
    /* The inbox and sleep state are written by other threads, so they sit
     * on their own cache line. */
    _Alignas(64) _Atomic(zm_ult_t *) inbox; /* LIFO of ULTs from others */
    _Atomic uint32_t sleeping;        /* 1 while in or near futex wait */
    _Atomic uint32_t wake_seq;        /* futex word bumped by wakers */
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
} zm_ult_job_config_t;

/* Create the ULTs (with their stacks) and workers of a job, without
 * running anything, so upper layers can attach per-ULT data.  Returns 0,
 * or -1 after printing why.  Main thread only, once per process. */
int zm_ult_job_prepare(const zm_ult_job_config_t *cfg);

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

/* Nonzero when no other ULT is ready on the caller's worker, so a waiting
 * ULT may spin instead of parking.  ULT context. */
static inline int zm_ult_alone(void)
{
    zm_worker_t *w = zm_ult_tl_worker;
    return w && !w->rq_head && !atomic_load_explicit(&w->inbox, memory_order_relaxed);
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

/* End the calling ULT with an exit status.  Never returns.  ULT context
 * only; returns immediately (doing nothing) outside a job so the caller can
 * fall back to process exit. */
void zm_ult_exit(int status);

/* Nonzero if the current thread runs a ULT of a scheduled job (not an
 * adopted single-rank job). */
int zm_ult_in_job(void);

#endif /* ZM_ULT_H */
