/*
 * threads_omp.c: OpenMP inside ranks (docs/threads.md).
 *
 * GCC's OpenMP runtime, libgomp, keeps its state per OS thread: the team
 * a thread works in, its worksharing constructs, its pool of team
 * threads.  A rank's ULT shares its worker's OS thread with the other
 * ranks of that worker, so two ranks opening parallel regions on one
 * worker shared one state: the second one's region became a nested region
 * of the first's (measured before this file: 4 ranks on one worker saw
 * omp_get_level() 1, 2, 3, 4), a master that blocked in MPI inside a
 * region left its team to the next rank, and every rank got a team as
 * large as the machine (4 ranks on 2 cores made 8 threads).
 *
 * zmpi defines the entry points that compiled parallel regions call
 * (GOMP_parallel and its loop, sections, reductions and teams forms),
 * libzmpi coming before libgomp in the program's libraries, and runs a
 * region that a ULT opens in one of two ways:
 *
 * - In place, when the region has one thread (the default when the ranks
 *   are at least the cores) and no other ULT of the worker is inside a
 *   region run in place: the ULT then owns its worker's libgomp state
 *   until the region ends, even while it blocks in MPI inside it.  Other
 *   ranks of the worker run their regions the second way meanwhile.
 * - On the rank's OpenMP host: an OS thread per rank, made on first need,
 *   bound to the rank and standing for its main thread (MPI calls from it
 *   are the main thread's, at every thread level).  The ULT parks while
 *   the host runs the region with its own libgomp state and team threads
 *   (created by the host, so bound to the rank), and the worker runs the
 *   other ranks meanwhile.
 *
 * The number of threads of a rank's regions (its nthreads-var) is the
 * rank's own: omp_set_num_threads and omp_get_max_threads called by a ULT
 * act on it.  It starts at OMP_NUM_THREADS when that is set, else at the
 * CPUs the process may use divided by its ranks, at least 1, so that
 * ranks x threads do not oversubscribe the machine.  Threads that are not
 * ULTs (a rank's pthreads) get the same default for their outermost
 * regions unless they set their own.
 *
 * Unnamed and named critical sections are per rank (each rank is an MPI
 * process of its own), with locks that a ULT waits for without blocking
 * its worker, and omp_set_lock on a ULT waits the same way.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "threads.h"

typedef void region_fn(void *);

/* ---- The runtime's own entry points ------------------------------------- */

typedef void par_fn(region_fn *, void *, unsigned, unsigned);
typedef unsigned par_red_fn(region_fn *, void *, unsigned, unsigned);
typedef void par_sec_fn(region_fn *, void *, unsigned, unsigned, unsigned);
typedef void par_loop_fn(region_fn *, void *, unsigned, long, long, long, long, unsigned);
typedef void par_loop_rt_fn(region_fn *, void *, unsigned, long, long, long, unsigned);
typedef void teams_fn(region_fn *, void *, unsigned, unsigned, unsigned);
typedef void void_fn(void);
typedef void ptr_fn(void **);
typedef void set_n_fn(int);
typedef int get_n_fn(void);
typedef int test_lock_fn(void *);
typedef void set_lock_fn(void *);

/* libgomp's definition of `name` (the next after libzmpi's); ends the
 * process if there is none, which cannot happen when a program calls it. */
static void *gomp_sym(void *_Atomic *cache, const char *name)
{
    void *f = atomic_load_explicit(cache, memory_order_acquire);
    if (!f) {
        f = dlsym(RTLD_NEXT, name);
        if (!f) {
            fprintf(stderr, "zmpi: the OpenMP runtime has no %s (zmpi works with GCC's "
                    "libgomp)\n", name);
            abort();
        }
        atomic_store_explicit(cache, f, memory_order_release);
    }
    return f;
}

#define GOMP(type, name)                                                   \
    static type *real_##name(void)                                         \
    {                                                                      \
        static void *_Atomic cache;                                        \
        return (type *)gomp_sym(&cache, #name);                            \
    }

GOMP(par_fn, GOMP_parallel)
GOMP(par_red_fn, GOMP_parallel_reductions)
GOMP(par_sec_fn, GOMP_parallel_sections)
GOMP(par_loop_fn, GOMP_parallel_loop_static)
GOMP(par_loop_fn, GOMP_parallel_loop_dynamic)
GOMP(par_loop_fn, GOMP_parallel_loop_guided)
GOMP(par_loop_fn, GOMP_parallel_loop_nonmonotonic_dynamic)
GOMP(par_loop_fn, GOMP_parallel_loop_nonmonotonic_guided)
GOMP(par_loop_rt_fn, GOMP_parallel_loop_runtime)
GOMP(par_loop_rt_fn, GOMP_parallel_loop_nonmonotonic_runtime)
GOMP(par_loop_rt_fn, GOMP_parallel_loop_maybe_nonmonotonic_runtime)
GOMP(teams_fn, GOMP_teams_reg)
GOMP(void_fn, GOMP_critical_start)
GOMP(void_fn, GOMP_critical_end)
GOMP(ptr_fn, GOMP_critical_name_start)
GOMP(ptr_fn, GOMP_critical_name_end)
GOMP(set_n_fn, omp_set_num_threads)
GOMP(get_n_fn, omp_get_max_threads)
GOMP(get_n_fn, omp_get_level)
GOMP(test_lock_fn, omp_test_lock)
GOMP(set_lock_fn, omp_set_lock)

/* One call of a parallel construct, as the compiled code made it. */
enum { K_PAR, K_RED, K_SEC, K_LOOP, K_LOOP_RT, K_TEAMS };

typedef struct omp_call {
    int kind;
    void *real;                     /* the runtime's function */
    region_fn *fn;
    void *data;
    unsigned n;                     /* num_threads (0: the nthreads-var) */
    unsigned flags;
    unsigned count;                 /* sections */
    long start, end, incr, chunk;   /* loops */
    unsigned teams, limit;          /* teams */
    unsigned ret;                   /* reductions: the runtime's result */
} omp_call_t;

static __thread int tl_in_fork;     /* inside a fork made through here (OS threads) */
static __thread int tl_user_n;      /* a non-ULT thread set its own nthreads-var */

static int *fork_flag(void);

int zm_mpi_omp_in_fork(void)
{
    return *fork_flag();
}

/* Run call c with the runtime on the calling thread. */
static void call_real(omp_call_t *c)
{
    int *flag = fork_flag();
    int was = *flag;
    *flag = 1;
    switch (c->kind) {
    case K_PAR:
        ((par_fn *)c->real)(c->fn, c->data, c->n, c->flags);
        break;
    case K_RED:
        c->ret = ((par_red_fn *)c->real)(c->fn, c->data, c->n, c->flags);
        break;
    case K_SEC:
        ((par_sec_fn *)c->real)(c->fn, c->data, c->n, c->count, c->flags);
        break;
    case K_LOOP:
        ((par_loop_fn *)c->real)(c->fn, c->data, c->n, c->start, c->end, c->incr, c->chunk,
                                 c->flags);
        break;
    case K_LOOP_RT:
        ((par_loop_rt_fn *)c->real)(c->fn, c->data, c->n, c->start, c->end, c->incr, c->flags);
        break;
    default:
        ((teams_fn *)c->real)(c->fn, c->data, c->teams, c->limit, c->flags);
        break;
    }
    *flag = was;
}

/* ---- Per-rank state ------------------------------------------------------ */

/* A lock for critical sections: 0 free, 1 held, 2 held with sleepers.
 * OS threads sleep on it; a ULT waits without blocking its worker. */
typedef struct {
    _Atomic uint32_t word;
} omp_lock_t_;

typedef struct named_crit {
    struct named_crit *next;
    void **name;                    /* the address the compiled code passes */
    omp_lock_t_ lock;
} named_crit_t;

/* The rank's OpenMP host (see the top). */
typedef struct omp_host {
    _Atomic uint32_t seq;           /* bumped per call posted (futex word) */
    _Atomic uint32_t flag;          /* 0 running, 1 done, 2 the ULT parked */
    omp_call_t *call;               /* the call to run */
    zm_ult_t *ult;                  /* who posted it */
    int icv_n;                      /* nthreads-var the host last set on itself */
    struct zm_mpi_omp *rank;
} omp_host_t;

struct zm_mpi_omp {
    int nthreads;                   /* the rank's nthreads-var */
    int in_fork;                    /* the rank's ULT is inside a region it runs in place */
    omp_host_t *host;               /* made by the rank's ULT on first need */
    omp_lock_t_ crit;               /* unnamed critical sections */
    named_crit_t *_Atomic named;    /* named ones, newest first */
    zm_spinlock_t named_lock;       /* serializes additions to `named` */
};

/* The default nthreads-var (see the top). */
static int default_threads(void)
{
    static _Atomic int def;
    int d = atomic_load_explicit(&def, memory_order_relaxed);
    if (d > 0)
        return d;
    const char *e = getenv("OMP_NUM_THREADS");
    if (e && *e >= '1' && *e <= '9') {
        d = atoi(e);
    } else {
        int nl = zm_net_job.nlocal > 0 ? zm_net_job.nlocal : 1;
        d = zm_arch_ncpus() / nl;
    }
    if (d < 1)
        d = 1;
    atomic_store_explicit(&def, d, memory_order_relaxed);
    return d;
}

static struct zm_mpi_omp *omp_of(zm_mpi_rank_t *me)
{
    struct zm_mpi_omp *o = atomic_load_explicit(&me->omp, memory_order_acquire);
    if (o)
        return o;
    struct zm_mpi_omp *n = calloc(1, sizeof(*n));
    if (!n) {
        fprintf(stderr, "zmpi: rank %d: out of memory for OpenMP state\n", me->world_rank);
        abort();
    }
    n->nthreads = default_threads();
    if (atomic_compare_exchange_strong(&me->omp, &o, n))
        return n;
    free(n);
    return o;
}

/* Where "inside a fork made through here" is kept for the caller: per
 * rank on a ULT, per OS thread elsewhere.  A worker's OS thread runs
 * other ranks while a region run in place blocks in MPI inside it, so a
 * thread-local flag would leak into them: a rank that then started its
 * OpenMP host had it taken for a team thread, not counted as running,
 * and the deadlock detector's count of running threads went below zero
 * (a false deadlock report, seen about once in 30 runs of threads_omp). */
static int *fork_flag(void)
{
    if (zm_ult_in_job())
        return &omp_of(zm_ult_self()->user)->in_fork;
    return &tl_in_fork;
}

/* The rank the caller belongs to (its ULT or a thread bound to it), or
 * NULL. */
static zm_mpi_rank_t *caller_rank(void)
{
    zm_ult_t *u = zm_ult_self();
    if (u)
        return u->user;
    zm_mpi_thread_t *t = zm_mpi_thread_self();
    return t ? zm_ult_get(t->rank)->user : NULL;
}

static void lock_take(omp_lock_t_ *l)
{
    uint32_t expect = 0;
    if (atomic_compare_exchange_strong_explicit(&l->word, &expect, 1, memory_order_acquire,
                                                memory_order_relaxed))
        return;
    if (zm_ult_in_job()) {
        zm_mpi_wait_t w = { 0, 0 };
        for (;;) {
            zm_mpi_ult_wait_step(&w);
            expect = 0;
            if (atomic_compare_exchange_strong_explicit(&l->word, &expect, 1,
                                                        memory_order_acquire,
                                                        memory_order_relaxed))
                return;
        }
    }
    while (atomic_exchange_explicit(&l->word, 2, memory_order_acquire) != 0)
        zm_arch_futex_wait((uint32_t *)&l->word, 2);
}

static void lock_drop(omp_lock_t_ *l)
{
    if (atomic_exchange_explicit(&l->word, 0, memory_order_release) == 2)
        zm_arch_futex_wake((uint32_t *)&l->word, 1);
}

/* ---- The host ------------------------------------------------------------- */

#define HOST_SPIN_NS 20000ull

static void *host_main(void *arg)
{
    omp_host_t *h = arg;
    uint32_t seen = 0;
    /* Idle: not counted as a thread that may wake a rank (host_run counts
     * it for each call). */
    zm_ult_foreign_count(-1);
    for (;;) {
        /* A rank often opens regions one after another: poll a while
         * before sleeping, as a blocked foreign thread does. */
        uint64_t end = zm_arch_time_ns() + HOST_SPIN_NS;
        for (unsigned i = 1; atomic_load_explicit(&h->seq, memory_order_acquire) == seen; i++) {
            zm_arch_cpu_relax();
            if (i % 256 == 0 && zm_arch_time_ns() >= end)
                break;
        }
        while (atomic_load_explicit(&h->seq, memory_order_acquire) == seen)
            zm_arch_futex_wait((uint32_t *)&h->seq, seen);
        seen = atomic_load_explicit(&h->seq, memory_order_acquire);
        omp_call_t *c = h->call;
        /* The team's implicit tasks inherit the rank's nthreads-var. */
        if (h->icv_n != h->rank->nthreads) {
            h->icv_n = h->rank->nthreads;
            real_omp_set_num_threads()(h->icv_n);
        }
        call_real(c);
        zm_ult_t *u = h->ult;
        if (atomic_exchange_explicit(&h->flag, 1, memory_order_acq_rel) == 2)
            zm_ult_wake(u);
        zm_ult_foreign_count(-1);
    }
    return NULL;
}

static int host_commit(void *arg)
{
    omp_host_t *h = arg;
    uint32_t expect = 0;
    return !atomic_compare_exchange_strong_explicit(&h->flag, &expect, 2, memory_order_acq_rel,
                                                    memory_order_acquire);
}

/* Run c on the rank's host while the calling ULT parks.  Returns 0, or -1
 * if the host cannot be started. */
static int host_run(zm_mpi_rank_t *me, struct zm_mpi_omp *o, omp_call_t *c)
{
    omp_host_t *h = o->host;
    if (!h) {
        h = calloc(1, sizeof(*h));
        if (!h)
            return -1;
        h->rank = o;
        pthread_t th;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        int rc = zm_mpi_thread_create(&th, &attr, host_main, h, 1);
        pthread_attr_destroy(&attr);
        if (rc != 0) {
            free(h);
            fprintf(stderr, "zmpi: rank %d: cannot start the thread that runs its OpenMP "
                    "regions; running them on the rank's own thread\n", me->world_rank);
            return -1;
        }
        o->host = h;
    }
    h->call = c;
    h->ult = zm_ult_self();
    atomic_store_explicit(&h->flag, 0, memory_order_relaxed);
    zm_ult_foreign_count(1); /* the host runs for the rank until the region ends */
    atomic_fetch_add_explicit(&h->seq, 1, memory_order_release);
    zm_arch_futex_wake((uint32_t *)&h->seq, 1);
    zm_p2p_waiter()->wait_call = "an OpenMP parallel region";
    zm_p2p_waiter()->wait_req = NULL;
    zm_ult_park(host_commit, h);
    return 0;
}

/* A worker's libgomp state: the ULT running a region in place on it
 * (owning that state until the region ends), and the rank whose team
 * threads the worker's libgomp pool holds (they act for that rank), or -1.
 * Only that worker's ULTs read or write their entry. */
typedef struct {
    zm_ult_t *owner;
    int pool_rank;
} worker_omp_t;

static worker_omp_t *worker_omp;

static worker_omp_t *worker_slot(zm_ult_t *u)
{
    worker_omp_t *t = __atomic_load_n(&worker_omp, __ATOMIC_ACQUIRE);
    if (!t) {
        int nw = zm_ult_nworkers();
        worker_omp_t *n = calloc((size_t)nw, sizeof(*n));
        if (!n)
            return NULL;
        for (int i = 0; i < nw; i++)
            n[i].pool_rank = -1;
        if (!__atomic_compare_exchange_n(&worker_omp, &t, n, 0, __ATOMIC_ACQ_REL,
                                         __ATOMIC_ACQUIRE))
            free(n);
        else
            t = n;
    }
    return &t[u->worker_id];
}

/* Whether u is the only live ULT of its worker.  Looked at only in small
 * jobs: in large ones a rank hardly ever has a worker to itself. */
#define ALONE_SCAN_MAX 64

static int worker_alone(zm_ult_t *u)
{
    int n = zm_ult_count();
    if (n > ALONE_SCAN_MAX)
        return 0;
    for (int i = 0; i < n; i++) {
        zm_ult_t *o = zm_ult_get(i);
        if (o != u && o->worker == u->worker && o->state != ZM_ULT_DONE &&
            o->state != ZM_ULT_NEW)
            return 0;
    }
    return 1;
}

/* Every parallel construct comes here. */
static void dispatch(omp_call_t *c)
{
    if (!zm_ult_in_job()) {
        /* An OS thread (a rank's pthread, a host, a team thread, a program
         * started alone): its own libgomp state is safe.  Its outermost
         * regions get the default size unless it chose one. */
        if (c->n == 0 && c->kind != K_TEAMS && !tl_user_n && zm_ult_job_scheduled() &&
            real_omp_get_level()() == 0)
            c->n = (unsigned)default_threads();
        call_real(c);
        return;
    }
    zm_ult_t *u = zm_ult_self();
    zm_mpi_rank_t *me = u->user;
    struct zm_mpi_omp *o = omp_of(me);
    unsigned n = c->n ? c->n : (unsigned)o->nthreads;
    worker_omp_t *wo = worker_slot(u);
    if (wo && wo->owner == u) {
        /* Nested in its own region run in place: one thread, in place. */
        c->n = 1;
        call_real(c);
        return;
    }
    /* In place: a region of one thread, or a team when the rank has its
     * worker to itself (its team threads then wait at barriers on that
     * worker's thread, which no other rank needs, and the worker's pool
     * is the rank's). */
    if (wo && !wo->owner && c->kind != K_TEAMS &&
        (n == 1 || ((wo->pool_rank < 0 || wo->pool_rank == u->id) && worker_alone(u)))) {
        wo->owner = u;
        if (n > 1)
            wo->pool_rank = u->id;
        c->n = n;
        /* The region's libgomp state is this worker thread's: the rank
         * must resume here whenever it blocks in MPI inside it. */
        zm_ult_pin();
        call_real(c);
        zm_ult_unpin();
        wo->owner = NULL;
        return;
    }
    c->n = n;
    if (host_run(me, o, c) != 0)
        call_real(c);
}

/* ---- The exported entry points ------------------------------------------- */

ZM_EXPORT void GOMP_parallel(region_fn *fn, void *data, unsigned n, unsigned flags)
{
    omp_call_t c = { .kind = K_PAR, .real = (void *)real_GOMP_parallel(), .fn = fn,
                     .data = data, .n = n, .flags = flags };
    dispatch(&c);
}

ZM_EXPORT unsigned GOMP_parallel_reductions(region_fn *fn, void *data, unsigned n,
                                            unsigned flags)
{
    omp_call_t c = { .kind = K_RED, .real = (void *)real_GOMP_parallel_reductions(), .fn = fn,
                     .data = data, .n = n, .flags = flags };
    dispatch(&c);
    return c.ret;
}

ZM_EXPORT void GOMP_parallel_sections(region_fn *fn, void *data, unsigned n, unsigned count,
                                      unsigned flags)
{
    omp_call_t c = { .kind = K_SEC, .real = (void *)real_GOMP_parallel_sections(), .fn = fn,
                     .data = data, .n = n, .count = count, .flags = flags };
    dispatch(&c);
}

#define LOOP(name)                                                                       \
    ZM_EXPORT void name(region_fn *fn, void *data, unsigned n, long start, long end,     \
                        long incr, long chunk, unsigned flags)                           \
    {                                                                                    \
        omp_call_t c = { .kind = K_LOOP, .real = (void *)real_##name(), .fn = fn,        \
                         .data = data, .n = n, .start = start, .end = end, .incr = incr, \
                         .chunk = chunk, .flags = flags };                               \
        dispatch(&c);                                                                    \
    }
#define LOOP_RT(name)                                                                    \
    ZM_EXPORT void name(region_fn *fn, void *data, unsigned n, long start, long end,     \
                        long incr, unsigned flags)                                       \
    {                                                                                    \
        omp_call_t c = { .kind = K_LOOP_RT, .real = (void *)real_##name(), .fn = fn,     \
                         .data = data, .n = n, .start = start, .end = end, .incr = incr, \
                         .flags = flags };                                               \
        dispatch(&c);                                                                    \
    }

LOOP(GOMP_parallel_loop_static)
LOOP(GOMP_parallel_loop_dynamic)
LOOP(GOMP_parallel_loop_guided)
LOOP(GOMP_parallel_loop_nonmonotonic_dynamic)
LOOP(GOMP_parallel_loop_nonmonotonic_guided)
LOOP_RT(GOMP_parallel_loop_runtime)
LOOP_RT(GOMP_parallel_loop_nonmonotonic_runtime)
LOOP_RT(GOMP_parallel_loop_maybe_nonmonotonic_runtime)

ZM_EXPORT void GOMP_teams_reg(region_fn *fn, void *data, unsigned teams, unsigned limit,
                              unsigned flags)
{
    omp_call_t c = { .kind = K_TEAMS, .real = (void *)real_GOMP_teams_reg(), .fn = fn,
                     .data = data, .teams = teams, .limit = limit, .flags = flags };
    dispatch(&c);
}

/* The fork of GCC before 4.9 runs the region's master part in the caller
 * between these two calls, which zmpi cannot move off a ULT. */
typedef void par_start_fn(region_fn *, void *, unsigned);
GOMP(par_start_fn, GOMP_parallel_start)

ZM_EXPORT void GOMP_parallel_start(region_fn *fn, void *data, unsigned n)
{
    if (zm_ult_in_job()) {
        fprintf(stderr, "zmpi: rank %d: an OpenMP region compiled by GCC older than 4.9 "
                "(GOMP_parallel_start) cannot run in a rank: recompile the program\n",
                zm_ult_self()->id);
        fflush(NULL);
        _exit(1);
    }
    real_GOMP_parallel_start()(fn, data, n);
}

/* ---- The rank's nthreads-var --------------------------------------------- */

ZM_EXPORT void omp_set_num_threads(int n)
{
    if (zm_ult_in_job()) {
        if (n > 0)
            omp_of(zm_ult_self()->user)->nthreads = n;
        return;
    }
    tl_user_n = 1;
    real_omp_set_num_threads()(n);
}

ZM_EXPORT int omp_get_max_threads(void)
{
    if (zm_ult_in_job()) {
        zm_ult_t *u = zm_ult_self();
        worker_omp_t *wo = worker_slot(u);
        /* Inside its own region run in place: the runtime's answer. */
        if (wo && wo->owner == u)
            return real_omp_get_max_threads()();
        return omp_of(u->user)->nthreads;
    }
    if (!tl_user_n && zm_ult_job_scheduled() && real_omp_get_level()() == 0)
        return default_threads();
    return real_omp_get_max_threads()();
}

/* Fortran's names: libgomp's own call its C functions directly, past
 * these definitions. */
ZM_EXPORT void omp_set_num_threads_(const int32_t *n)
{
    omp_set_num_threads((int)*n);
}

ZM_EXPORT void omp_set_num_threads_8_(const int64_t *n)
{
    omp_set_num_threads((int)*n);
}

ZM_EXPORT int32_t omp_get_max_threads_(void)
{
    return omp_get_max_threads();
}

/* ---- Critical sections and locks ----------------------------------------- */

ZM_EXPORT void GOMP_critical_start(void)
{
    zm_mpi_rank_t *me = caller_rank();
    if (me)
        lock_take(&omp_of(me)->crit);
    else
        real_GOMP_critical_start()();
}

ZM_EXPORT void GOMP_critical_end(void)
{
    zm_mpi_rank_t *me = caller_rank();
    if (me)
        lock_drop(&omp_of(me)->crit);
    else
        real_GOMP_critical_end()();
}

static omp_lock_t_ *named_lock(struct zm_mpi_omp *o, void **name)
{
    for (named_crit_t *c = atomic_load_explicit(&o->named, memory_order_acquire); c; c = c->next)
        if (c->name == name)
            return &c->lock;
    zm_spin_lock(&o->named_lock);
    named_crit_t *c;
    for (c = atomic_load_explicit(&o->named, memory_order_acquire); c; c = c->next)
        if (c->name == name)
            break;
    if (!c) {
        c = calloc(1, sizeof(*c));
        if (!c) {
            zm_spin_unlock(&o->named_lock);
            fprintf(stderr, "zmpi: out of memory for an OpenMP critical section\n");
            abort();
        }
        c->name = name;
        c->next = atomic_load_explicit(&o->named, memory_order_relaxed);
        atomic_store_explicit(&o->named, c, memory_order_release);
    }
    zm_spin_unlock(&o->named_lock);
    return &c->lock;
}

ZM_EXPORT void GOMP_critical_name_start(void **name)
{
    zm_mpi_rank_t *me = caller_rank();
    if (me)
        lock_take(named_lock(omp_of(me), name));
    else
        real_GOMP_critical_name_start()(name);
}

ZM_EXPORT void GOMP_critical_name_end(void **name)
{
    zm_mpi_rank_t *me = caller_rank();
    if (me)
        lock_drop(named_lock(omp_of(me), name));
    else
        real_GOMP_critical_name_end()(name);
}

ZM_EXPORT void omp_set_lock(void *lock)
{
    if (!zm_ult_in_job()) {
        real_omp_set_lock()(lock);
        return;
    }
    zm_ult_spin_point(); /* as in pthread_mutex_lock (threads.c) */
    zm_mpi_wait_t w = { 0, 0 };
    while (!real_omp_test_lock()(lock))
        zm_mpi_ult_wait_step(&w);
}

/* A program whose libgomp comes before libzmpi calls the runtime
 * directly, and its ranks share it as described at the top: say so. */
__attribute__((constructor)) static void omp_order_check(void)
{
    Dl_info here, there, mpi;
    if (!dladdr((void *)omp_order_check, &here))
        return;
    /* Only for a program linked with libzmpi: loaded by dlopen (Python's
     * mpi4py), libzmpi is in nobody's way and the program has one rank. */
    void *init = dlsym(RTLD_DEFAULT, "PMPI_Init");
    if (!init || !dladdr(init, &mpi) || mpi.dli_fbase != here.dli_fbase)
        return;
    void *first = dlsym(RTLD_DEFAULT, "GOMP_parallel");
    if (first && dladdr(first, &there) && here.dli_fbase != there.dli_fbase)
        fprintf(stderr, "zmpi: warning: the program's OpenMP runtime (libgomp) comes before "
                "libzmpi among its libraries, so its ranks' parallel regions share their "
                "workers' OpenMP state; link -lzmpi before -fopenmp/-lgomp (zmpicc does)\n");
}
