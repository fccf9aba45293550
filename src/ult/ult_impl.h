/*
 * ult_impl.h: what the files of the ult layer share (ult.c, the scheduler;
 * ult_foreign.c, foreign threads; lb.c, the load balancer; ult_timer.c,
 * timed sleeps).  Not for other layers: they use ult.h.
 */
#ifndef ZM_ULT_IMPL_H
#define ZM_ULT_IMPL_H

#include "ult/ult.h"

#include <pthread.h>

/* Polls of a spin loop between two clock reads, and of an idle worker's
 * inbox between two network polls (ult.c explains both). */
#define IDLE_POLLS_PER_CLOCK 256
#define POLL_EVERY 16

/* How long a parked foreign thread (a thread a rank created, ult.h) polls
 * its state before it sleeps, and an idle worker while such threads run:
 * long enough for a round trip between a rank and a thread, short enough
 * not to hold a core the other may need. */
#define FOREIGN_SPIN_NS 20000ull

/* Whether a ULT may resume on another worker than the one it left.  It
 * needs thread-local addresses that are never cached across a switch: on
 * x86-64 every access goes through %fs; elsewhere a compiler may keep the
 * thread pointer in a register across a call, so nothing moves there. */
#if defined(__x86_64__)
#define CAN_MIGRATE 1
#else
#define CAN_MIGRATE 0
#endif

/* The state of the process's job.  Written by the main thread before the
 * job runs, then by workers and ULTs as each field's comment says. */
typedef struct zm_ult_state {
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
    int migrate;            /* wake-ups may move a ULT to the waker's worker
                             * (turned off by the first balancing step: lb.c) */
    int migrate_forced;     /* ZMPI_WAKE_MIGRATE=1: kept on even then */
    int migrate_always;     /* ZMPI_WAKE_MIGRATE=always: as on a busy host (slow_wakes) */
    int steal;              /* idle workers may take ready ULTs of busy ones */
    int measure;            /* switches add up each ULT's busy ticks (lb.c) */
    zm_ult_poll_fn poll;    /* network progress, or NULL (one-process job) */
    _Atomic int poller;     /* worker that polls while the others sleep, or -1 */
    uint64_t poll_sleep_max; /* cap of the poller's sleeps (ns) */
    int capacity;           /* ULT records, spare ones for zm_ult_spawn included */
    _Atomic int nids;       /* ids handed out: nults, then grown by zm_ult_reserve */
    _Atomic int nspawned;   /* spare ids this process handed out */
    int spawn_max;          /* spare ids this process may hand out */
    int id_first, id_stride; /* its first spare id, the distance between its ids */
    _Atomic unsigned spread; /* next worker for a ULT started at run time */
    _Atomic unsigned slow_wakes; /* score of slow wake-ups of sleeping workers (ult.c) */
    _Atomic uint64_t slow_at; /* ticks of its last sample: it decays with time */
    _Atomic int timed;      /* ULTs in a timed sleep (ult_timer.c): no deadlock while > 0 */
    /* Foreign threads (ult_foreign.c). */
    _Atomic int frunning;   /* threads that may act for a ULT and are not parked */
    _Atomic int threaded;   /* adopted job: other threads may wake the rank */
    zm_ult_t *fhead;        /* foreign records, for deadlock reports (under flock) */
    _Atomic int flock;      /* guards fhead */
} zm_ult_state_t;

extern zm_ult_state_t zm_ult_job;

/* What every context that a worker switched into does first: finish the
 * switch (requeue or park the ULT that left).  The ULT that landed. */
void zm_ult_finish_switch(void);

/* Whether the parked adopted rank or foreign record `arg` was woken.  Any
 * thread. */
int zm_ult_adopted_woken(void *arg);

/* Poll the network for a parked adopted rank or foreign record u, without
 * sleeping, for a short while after the last progress; returns nonzero
 * once u is woken.  u's own thread. */
int zm_ult_adopted_spin(zm_ult_t *u);

/* Poll the network with a growing back-off until ready(arg).  The calling
 * thread, which has nothing else to run. */
void zm_ult_poll_until(int (*ready)(void *), void *arg);

/* Park the foreign record or adopted rank u of the calling thread (no
 * worker runs it): as zm_ult_park, but spinning and then sleeping on a
 * futex until zm_ult_unsched_wake.  u's own thread. */
void zm_ult_unsched_park(zm_ult_t *u, int (*commit)(void *), void *arg);

/* End the wait of u, parked by zm_ult_unsched_park.  Any thread. */
void zm_ult_unsched_wake(zm_ult_t *u);

/* Print the parked foreign threads for a deadlock report (stderr).  A
 * worker thread, while every ULT is parked. */
void zm_ult_foreign_report(FILE *out);

/* Wake the ULTs of worker w whose timed sleep is over (zm_ult_wake
 * queues them on w); returns how many.  Only w's thread, outside any
 * park commit; cheap to skip: callers test w->tm_next first. */
int zm_ult_timer_fire(zm_worker_t *w);

/* Nanoseconds from now until w's earliest timed sleeper is due (0 if it
 * is due now), or ZM_ULT_NO_TIMER if w has none.  w's thread. */
uint64_t zm_ult_timer_left(zm_worker_t *w);

/* Read the balancer's settings from the environment (ZMPI_LB,
 * ZMPI_LB_REPORT, ZMPI_STEAL) into the job and lb.c.  Returns 0, or -1
 * after printing which variable holds what invalid value.  Main thread,
 * from zm_ult_job_prepare. */
int zm_ult_lb_setup(void);

/* Size the job's ULT records and set which spare ids this process hands
 * out (the config's spare, id_stride, id_offset; ult_job.c).  Main
 * thread, from zm_ult_job_prepare, before the records are allocated. */
void zm_ult_ids_setup(const zm_ult_job_config_t *cfg);

/* Whether waking sleeping workers has been slow lately (ult_busy.c): two
 * slow samples within about a tenth of a second, which one stray
 * preemption on a quiet host does not make.  Always with
 * ZMPI_WAKE_MIGRATE=always.  Any worker. */
int zm_ult_host_busy(void);

/* Sample the host with the ticks a sleeping worker took to run after its
 * wake-up (ult_busy.c).  The worker that woke, at its next drain. */
void zm_ult_busy_wake(uint64_t ticks);

/* Sample the host with the nanoseconds a worker waited for its core
 * (zm_arch_thread_wait_ns) since its last sample (ult_busy.c).  That
 * worker. */
void zm_ult_busy_lost(uint64_t ns);

/* The fault hook of zm_arch_fault_install: reports a fault in or just
 * below the running ULT's guard page as a stack overflow, naming the rank
 * and how to raise the stack size, and returns 1; 0 for any other fault.
 * Signal handler of the faulting thread: async-signal-safe (ult_job.c). */
int zm_ult_stack_fault(void *addr);

#endif /* ZM_ULT_IMPL_H */
