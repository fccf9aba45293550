/*
 * threads.c: threads of a rank calling MPI (MPI_THREAD_SERIALIZED and
 * MPI_THREAD_MULTIPLE).  docs/threads.md describes the design.
 *
 * A rank is a user-level thread; an OS thread it creates is "foreign":
 * no worker runs it.  Such a thread acts for the rank that created it:
 *
 * - Binding.  zmpi defines pthread_create (libzmpi comes before libc in
 *   the program's libraries, so every library's calls reach it, libgomp's
 *   and libstdc++'s included): a thread created by a rank's ULT, or by a
 *   thread bound to a rank, is bound to that rank before its start
 *   routine runs.  A program not started by zmpirun is one rank, so every
 *   thread of it acts for that rank.
 *
 * - Activation.  A bound thread's first MPI call goes through
 *   zm_mpi_enter's slow path (zm_mpi_me() is NULL there): if the rank's
 *   thread level lets the thread call MPI (SERIALIZED or MULTIPLE granted
 *   by MPI_Init_thread or a session, or the thread runs an OpenMP region
 *   for the rank, threads_omp.c, and so stands for its main thread), its
 *   record (p2p.h's zm_p2p_thread_t: a ULT-layer record and a waiter) is
 *   bound in the ULT layer and zm_ult_self() returns it from then on.
 *   Every later call takes the ordinary fast path.  A rank's own ULT
 *   never sees any of this: single-threaded programs pay nothing.
 *
 * - What differs on a foreign thread: it waits on its own record (a
 *   futex, after a short spin, never a worker), allocates pooled objects
 *   from the pools' shared entry under a lock, and finds no worker to
 *   poll on; everything else (queues, matching, collectives) is the
 *   rank's, already safe against other ranks running on other workers.
 */
#include "session.h"
#include "net/net.h"

#include <errno.h>
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "threads.h"

/* The calling thread's record, if it acts for a rank (bound), or NULL.
 * initial-exec: libzmpi is never dlopen'ed (ult.c). */
static __thread zm_mpi_thread_t *tl_thread __attribute__((tls_model("initial-exec")));

static pthread_key_t thread_key;        /* destructor: a bound thread ends */
static pthread_once_t thread_key_once = PTHREAD_ONCE_INIT;

static void thread_end(void *p);
static void exit_signal(struct thread_exit *e);

static void thread_key_make(void)
{
    pthread_key_create(&thread_key, thread_end);
}

/* A zeroed thread record, or NULL if out of memory.  Made by the creator
 * of a new thread, not by the thread itself: under ThreadSanitizer the new
 * thread runs thread_start before TSan has set it up, and must not
 * allocate or call pthread_once (docs/debugging.md). */
static zm_mpi_thread_t *thread_record_new(void)
{
    zm_mpi_thread_t *t = aligned_alloc(ZM_CACHE_LINE, (sizeof(*t) + ZM_CACHE_LINE - 1) &
                                                          ~(size_t)(ZM_CACHE_LINE - 1));
    if (t)
        memset(t, 0, sizeof(*t));
    pthread_once(&thread_key_once, thread_key_make);
    return t;
}

/* Record t (thread_record_new) for the calling thread acting for world
 * rank `rank`, made current (tl_thread); NULL if t is. */
static zm_mpi_thread_t *thread_bind(zm_mpi_thread_t *t, int rank, int counted)
{
    if (!t)
        return NULL;
    zm_p2p_thread_init(&t->p, rank, zm_ult_get(rank)->user, counted);
    t->rank = rank;
    t->counted = counted;
    pthread_setspecific(thread_key, t);
    tl_thread = t;
    return t;
}

/* A bound thread ends (pthread key destructor, on that thread). */
static void thread_end(void *p)
{
    zm_mpi_thread_t *t = p;
    /* pthread_exit or cancellation: the start routine did not return. */
    if (t->exit) {
        exit_signal(t->exit);
        t->exit = NULL;
    }
    if (tl_thread == t) {
        if (t->active)
            zm_ult_foreign_bind(NULL);
        tl_thread = NULL;
    }
    if (t->counted)
        zm_ult_foreign_count(-1);
    free(t);
}

zm_mpi_thread_t *zm_mpi_thread_self(void)
{
    return tl_thread;
}

/* The world rank of the adopted single-rank job. */
static int adopted_rank(void)
{
    return zm_net_local_world(0);
}

zm_mpi_rank_t *zm_mpi_thread_rank(void)
{
    zm_mpi_thread_t *t = tl_thread;
    if (!t && zm_ult_job_adopted())
        t = thread_bind(thread_record_new(), adopted_rank(), 0);
    return t ? (zm_mpi_rank_t *)zm_ult_get(t->rank)->user : NULL;
}

int zm_mpi_thread_may(const zm_mpi_rank_t *me)
{
    zm_mpi_thread_t *t = tl_thread;
    return t && (t->main_like ||
                 __atomic_load_n(&me->thread_max, __ATOMIC_ACQUIRE) >= MPI_THREAD_SERIALIZED);
}

void zm_mpi_thread_activate(void)
{
    zm_mpi_thread_t *t = tl_thread;
    if (t && !t->active) {
        t->active = 1;
        zm_ult_foreign_bind(&t->p.ult);
    }
}

zm_mpi_rank_t *zm_mpi_me_thread(void)
{
    zm_mpi_rank_t *me = zm_mpi_me();
    if (me)
        return me;
    me = zm_mpi_thread_rank();
    if (!me || !zm_mpi_thread_may(me))
        return NULL;
    zm_mpi_thread_activate();
    return me;
}

int zm_mpi_thread_is_main(void)
{
    zm_ult_t *u = zm_ult_self();
    if (u && !u->foreign)
        return 1;
    zm_mpi_thread_t *t = tl_thread;
    return t && t->main_like;
}

void zm_mpi_thread_grant(zm_mpi_rank_t *me, int level)
{
    int cur = __atomic_load_n(&me->thread_max, __ATOMIC_RELAXED);
    while (level > cur &&
           !__atomic_compare_exchange_n(&me->thread_max, &cur, level, 1, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED))
        ;
    /* A program started alone is one rank whose other threads may now
     * wake it: it must wait for them instead of being called deadlocked. */
    if (level >= MPI_THREAD_SERIALIZED && zm_ult_job_adopted())
        zm_ult_set_threaded();
}

const char *zm_mpi_thread_level_name(int level)
{
    static const char *const names[] = { "MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                         "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE" };
    return level >= 0 && level <= 3 ? names[level] : "?";
}

/* ---- pthread_create ------------------------------------------------------
 * Defined here so that threads a rank creates, by any library, are bound
 * to it (see the top).  The real one is libc's, the next definition after
 * libzmpi. */

typedef int create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

static create_fn *real_create(void)
{
    static create_fn *_Atomic fn;
    create_fn *f = atomic_load_explicit(&fn, memory_order_acquire);
    if (!f) {
        f = (create_fn *)dlsym(RTLD_NEXT, "pthread_create");
        if (!f) {
            fprintf(stderr, "zmpi: cannot find the C library's pthread_create: %s\n", dlerror());
            abort();
        }
        atomic_store_explicit(&fn, f, memory_order_release);
    }
    return f;
}

/* The end of a thread a rank created, for a rank's ULT joining it
 * (pthread_join below): it parks until the thread signals its end instead
 * of holding its worker.  Kept in a table by thread id until joined or
 * detached; freed by whichever of the thread and its joiner (or detacher)
 * lets go of it last. */
typedef struct thread_exit {
    struct thread_exit *next;       /* in its table bucket */
    pthread_t th;
    _Atomic uint32_t flag;          /* 0 running, 1 ended, 2 a ULT parked on it */
    zm_ult_t *waiter;               /* the parked ULT */
    _Atomic int refs;               /* the thread's and the table's */
} thread_exit_t;

#define EXIT_BUCKETS 64

static struct {
    zm_spinlock_t lock;
    thread_exit_t *bucket[EXIT_BUCKETS];
} exits;

static unsigned exit_hash(pthread_t th)
{
    return (unsigned)(((uintptr_t)th >> 12) ^ ((uintptr_t)th >> 4)) % EXIT_BUCKETS;
}

static void exit_put(thread_exit_t *e)
{
    if (atomic_fetch_sub_explicit(&e->refs, 1, memory_order_acq_rel) == 1)
        free(e);
}

/* Take th's record out of the table (the caller now holds the table's
 * reference), or NULL. */
static thread_exit_t *exit_take(pthread_t th)
{
    zm_spin_lock(&exits.lock);
    thread_exit_t **pp = &exits.bucket[exit_hash(th)], *e;
    while ((e = *pp) && !pthread_equal(e->th, th))
        pp = &e->next;
    if (e)
        *pp = e->next;
    zm_spin_unlock(&exits.lock);
    return e;
}

/* The thread of e ends: wake its joiner if parked, let go of e. */
static void exit_signal(thread_exit_t *e)
{
    /* The joiner wrote `waiter` before parking: read it only once the flag
     * says it parked (it stays parked, and e alive, until woken). */
    if (atomic_exchange_explicit(&e->flag, 1, memory_order_acq_rel) == 2)
        zm_ult_wake(e->waiter);
    exit_put(e);
}

static int exit_commit(void *arg)
{
    thread_exit_t *e = arg;
    uint32_t expect = 0;
    return !atomic_compare_exchange_strong_explicit(&e->flag, &expect, 2, memory_order_acq_rel,
                                                    memory_order_acquire);
}

struct thread_start {
    void *(*fn)(void *);
    void *arg;
    int rank;
    int main_like;
    int counted;
    thread_exit_t *exit;
    zm_mpi_thread_t *rec;   /* the thread's record, made by its creator */
};

static void *thread_start(void *p)
{
    struct thread_start s = *(struct thread_start *)p;
    free(p);
    zm_mpi_thread_t *t = thread_bind(s.rec, s.rank, s.counted);
    if (t) {
        t->main_like = s.main_like;
        t->exit = s.exit; /* signalled by thread_end if the thread exits early */
    } else if (s.counted) {
        zm_ult_foreign_count(-1); /* out of memory: the thread acts for no rank */
    }
    void *ret = s.fn(s.arg);
    if (t)
        s.exit = t->exit, t->exit = NULL;
    if (s.exit)
        exit_signal(s.exit);
    return ret;
}

int zm_mpi_thread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
                         void *arg, int main_like)
{
    /* The creator's rank: a rank's ULT, or a thread bound to a rank. */
    zm_ult_t *u = zm_ult_self();
    int rank = u ? u->id : tl_thread ? tl_thread->rank : -1;
    if (rank < 0 || !zm_ult_job_scheduled())
        return real_create()(th, attr, fn, arg);
    struct thread_start *s = malloc(sizeof(*s));
    if (!s)
        return EAGAIN;
    s->fn = fn;
    s->arg = arg;
    s->rank = rank;
    s->main_like = main_like;
    s->rec = thread_record_new();
    /* A thread that may be joined gets an exit record. */
    int detached = 0;
    if (attr)
        pthread_attr_getdetachstate(attr, &detached);
    thread_exit_t *e = NULL;
    if (detached != PTHREAD_CREATE_DETACHED && (e = calloc(1, sizeof(*e))) != NULL)
        atomic_store_explicit(&e->refs, 2, memory_order_relaxed);
    s->exit = e;
    /* Counted from now on, so that the deadlock detector never sees the
     * rank's ULT waiting for it as a deadlock (ult.h).  An OpenMP team's
     * threads are not: they work only while their master, counted, is in
     * the region (zm_mpi_omp_in_fork). */
    s->counted = !zm_mpi_omp_in_fork() &&
                 ((u && !u->foreign) || (tl_thread && tl_thread->counted));
    if (s->counted)
        zm_ult_foreign_count(1);
    int counted = s->counted;
    int rc = real_create()(th, attr, thread_start, s);
    if (rc != 0) {
        if (counted)
            zm_ult_foreign_count(-1);
        free(s->rec);
        free(s);
        free(e);
        return rc;
    }
    if (e) {
        e->th = *th;
        zm_spin_lock(&exits.lock);
        thread_exit_t **b = &exits.bucket[exit_hash(*th)];
        e->next = *b;
        *b = e;
        zm_spin_unlock(&exits.lock);
    }
    return 0;
}

ZM_EXPORT int pthread_create(pthread_t *restrict th, const pthread_attr_t *restrict attr,
                             void *(*fn)(void *), void *restrict arg)
{
    return zm_mpi_thread_create(th, attr, fn, arg, 0);
}

/* ---- A rank's lock (threads.h) ------------------------------------------ */

void zm_mpi_rlock_take(zm_mpi_rlock_t *l)
{
    zm_ult_t *self = zm_ult_self();
    if (atomic_load_explicit(&l->owner, memory_order_relaxed) == self) {
        l->depth++;
        return;
    }
    for (unsigned i = 0;; i++) {
        zm_ult_t *expect = NULL;
        if (atomic_compare_exchange_weak_explicit(&l->owner, &expect, self,
                                                  memory_order_acquire, memory_order_relaxed))
            break;
        /* A ULT lets its worker run the others (the holder may be one of
         * them, or wait for one); a foreign thread leaves the core. */
        if (self && !self->foreign)
            zm_ult_yield();
        else if (i % 64 == 63)
            sched_yield();
        zm_arch_cpu_relax();
    }
    l->depth = 1;
}

void zm_mpi_rlock_drop(zm_mpi_rlock_t *l)
{
    if (--l->depth == 0)
        atomic_store_explicit(&l->owner, NULL, memory_order_release);
}

/* ---- Blocking calls of a rank's own thread --------------------------------
 * A rank's ULT that blocks in the kernel stops its worker, and with it
 * every other rank of the worker: joining a thread that waits for a
 * message from such a rank would never end.  So pthread_join,
 * pthread_mutex_lock, pthread_cond_wait and _timedwait and sem_wait,
 * called on a ULT, try without blocking and let the worker's other ranks
 * run in between (zm_ult_yield); alone on its worker, the ULT naps a few
 * microseconds at a time instead.  A condition wait returns after one
 * slice as if woken spuriously (POSIX allows it: callers loop on their
 * predicate).  On any other thread these calls are libc's own. */

#define NAP_MIN_NS 2000L
#define NAP_MAX_NS 200000L

/* Turns a waiting ULT gives the ready ranks of its worker before it naps
 * anyway: they may be waiting the same way (ranks joining their threads),
 * and a worker that only yields round them holds a core the threads they
 * wait for need. */
#define YIELD_TURNS 32

void zm_mpi_ult_wait_step(zm_mpi_wait_t *w)
{
    zm_ult_yield(); /* lets ready ranks run; polls the network across processes */
    if (!zm_ult_alone() && ++w->turns < YIELD_TURNS)
        return;
    w->turns = 0;
    if (w->nap == 0) {
        w->nap = NAP_MIN_NS;
        return;
    }
    struct timespec ts = { 0, w->nap };
    nanosleep(&ts, NULL);
    w->nap = w->nap * 2 > NAP_MAX_NS ? NAP_MAX_NS : w->nap * 2;
}

/* Whether the caller is a ULT (a rank's own thread on a worker). */
static inline int on_ult(void)
{
    return ZM_UNLIKELY(zm_ult_in_job());
}

/* libc's definition of `name`, the next after libzmpi's. */
static void *real_sym(void *_Atomic *cache, const char *name)
{
    void *f = atomic_load_explicit(cache, memory_order_acquire);
    if (!f) {
        f = dlsym(RTLD_NEXT, name);
        if (!f) {
            fprintf(stderr, "zmpi: cannot find the C library's %s: %s\n", name, dlerror());
            abort();
        }
        atomic_store_explicit(cache, f, memory_order_release);
    }
    return f;
}

#define REAL(type, name)                                                   \
    static type *real_##name(void)                                         \
    {                                                                      \
        static void *_Atomic cache;                                        \
        return (type *)real_sym(&cache, #name);                            \
    }

typedef int join_fn(pthread_t, void **);
typedef int lock_fn(pthread_mutex_t *);
typedef int cwait_fn(pthread_cond_t *, pthread_mutex_t *);
typedef int ctwait_fn(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
typedef int semw_fn(sem_t *);
REAL(join_fn, pthread_join)
REAL(lock_fn, pthread_mutex_lock)
REAL(cwait_fn, pthread_cond_wait)
REAL(ctwait_fn, pthread_cond_timedwait)
REAL(semw_fn, sem_wait)
typedef int detach_fn(pthread_t);
REAL(detach_fn, pthread_detach)

/* Resolve them before any thread could need them (dlsym inside a lock
 * call could come back here). */
__attribute__((constructor)) static void threads_resolve(void)
{
    real_create();
    real_pthread_join();
    real_pthread_mutex_lock();
    real_pthread_cond_wait();
    real_pthread_cond_timedwait();
    real_sem_wait();
    real_pthread_detach();
}

ZM_EXPORT int pthread_join(pthread_t th, void **ret)
{
    thread_exit_t *e = exit_take(th);
    if (!on_ult()) {
        if (e)
            exit_put(e);
        return real_pthread_join()(th, ret);
    }
    if (e) {
        /* A thread a rank created: park until it ends; the join then only
         * waits for its last few instructions. */
        e->waiter = zm_ult_self();
        zm_p2p_waiter()->wait_call = "pthread_join";
        zm_p2p_waiter()->wait_req = NULL;
        zm_ult_park(exit_commit, e);
        exit_put(e);
        return real_pthread_join()(th, ret);
    }
    zm_mpi_wait_t w = { 0, 0 };
    int rc;
    while ((rc = pthread_tryjoin_np(th, ret)) == EBUSY)
        zm_mpi_ult_wait_step(&w);
    return rc;
}

ZM_EXPORT int pthread_detach(pthread_t th)
{
    thread_exit_t *e = exit_take(th);
    if (e)
        exit_put(e);
    return real_pthread_detach()(th);
}

ZM_EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
    /* Inside the system MPI (its thread holds the network lock): the
     * system MPI's own short-held mutexes (src/net/net.h, zm_net_held). */
    if (zm_net_held || !on_ult())
        return real_pthread_mutex_lock()(m);
    /* A lock taken at once may be a turn of a busy-wait loop (ult.h). */
    zm_ult_spin_point();
    zm_mpi_wait_t w = { 0, 0 };
    int rc;
    while ((rc = pthread_mutex_trylock(m)) == EBUSY)
        zm_mpi_ult_wait_step(&w);
    return rc;
}

/* The time `ns` from now on the clock of a default condition variable. */
static struct timespec after_ns(long ns)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += ns;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}

/* One slice of a condition wait on a ULT, until `until` at the latest
 * (NULL: no limit).  Returns 0 (woken, or a spurious return after the
 * slice) or ETIMEDOUT once `until` has passed. */
static int ult_cond_slice(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *until)
{
    if (!zm_ult_alone()) {
        /* Let the worker's other ranks run, without the mutex. */
        pthread_mutex_unlock(m);
        zm_ult_yield();
        pthread_mutex_lock(m);
    } else {
        struct timespec slice = after_ns(NAP_MAX_NS);
        if (until && (until->tv_sec < slice.tv_sec ||
                      (until->tv_sec == slice.tv_sec && until->tv_nsec < slice.tv_nsec)))
            slice = *until;
        int rc = real_pthread_cond_timedwait()(c, m, &slice);
        if (rc != 0 && rc != ETIMEDOUT)
            return rc;
    }
    if (until) {
        struct timespec now = after_ns(0);
        if (now.tv_sec > until->tv_sec ||
            (now.tv_sec == until->tv_sec && now.tv_nsec >= until->tv_nsec))
            return ETIMEDOUT;
    }
    return 0;
}

ZM_EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
    if (!on_ult())
        return real_pthread_cond_wait()(c, m);
    return ult_cond_slice(c, m, NULL);
}

ZM_EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
                                     const struct timespec *abstime)
{
    if (!on_ult())
        return real_pthread_cond_timedwait()(c, m, abstime);
    return ult_cond_slice(c, m, abstime);
}

ZM_EXPORT int sem_wait(sem_t *s)
{
    if (!on_ult())
        return real_sem_wait()(s);
    zm_ult_spin_point(); /* as in pthread_mutex_lock */
    zm_mpi_wait_t w = { 0, 0 };
    while (sem_trywait(s) != 0) {
        if (errno != EAGAIN)
            return -1;
        zm_mpi_ult_wait_step(&w);
    }
    return 0;
}
