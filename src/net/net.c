/*
 * net.c: loading the network backend, zm_net_init (with net_job.c, the
 * job's shape), and the progress engine over the system MPI.
 *
 * The backend module is opened with dlmopen(LM_ID_NEWLM) by default (Open
 * MPI's with deep binding: see open_module): the
 * system MPI and everything it loads (libc aside, which the new namespace
 * gets its own copy of; Open MPI's components, UCX's transports) resolve
 * their symbols inside a link namespace of their own, so neither the
 * application's MPI_* calls nor the system MPI's own internal ones can
 * bind to the other library.  ZMPI_NET_LOAD=deepbind opens it with
 * dlopen(RTLD_LOCAL | RTLD_DEEPBIND) instead (docs/net.md: what each
 * does and why the first is the default).
 */
#include "net/net_impl.h"
#include "ult/ult.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

zm_net_job_t zm_net_job = { .nprocs = 1, .nranks = 1, .nlocal = 1, .nnodes = 1 };
const uint8_t *zm_net_remote;

/* An outstanding operation of the system MPI. */
typedef struct pend {
    zm_net_done_fn *done;       /* its completion callback */
    void *arg;
    int next_free;              /* free list link (slot index), -1 at the end */
} pend_t;

/* Deferred work (zm_net_defer). */
typedef struct defer {
    struct defer *next;
    int (*fn)(void *);
    void *arg;
} defer_t;

static struct {
    zm_spinlock_t lock;         /* serialises every call into the backend */
    _Atomic unsigned polls;     /* progress passes (written under lock, read by the thread) */
    const zm_net_backend_t *be; /* the loaded backend, NULL in a one-process job */
    zm_net_info_t info;         /* what its init reported */
    pend_t *pend;               /* slots */
    int cap;                    /* slots allocated */
    int hi;                     /* slots [0, hi) may be in use */
    int free_head;              /* first free slot, -1 if none */
    _Atomic int inuse;          /* slots in use */
    int *idx;                   /* scratch for testsome */
    int next_tag;               /* next data tag */
    zm_net_arrive_fn *arrive;   /* envelope handler */
    size_t headroom;            /* its bytes before each message */
    zm_spinlock_t defer_lock;   /* guards defers */
    defer_t *defers;            /* deferred work */
    _Atomic int ndefer;         /* entries in defers */
    zm_net_rma_fn *_Atomic rma; /* one-sided envelope handler, or NULL */
    zm_net_rma_fn *_Atomic part; /* partitioned-communication handler, or NULL */
    zm_net_rma_fn *_Atomic port; /* dynamic processes' handler (port.c), or NULL */
    zm_spinlock_t prog_lock;    /* guards prog_started */
    int prog_started;           /* the progress thread runs */
    pthread_t prog_thread;
    _Atomic int prog_holds;     /* zm_net_progress_hold minus release */
    _Atomic int prog_stop;      /* zm_net_finalize asks the thread to end */
    _Atomic unsigned rma_in;    /* one-sided envelopes arrived (progress thread reads it) */
    /* Job-wide deadlock detection (the end of this file); under the lock. */
    uint64_t env_sent;          /* envelopes sent, the detection's own left out */
    uint64_t env_arrived;       /* envelopes received, likewise */
    uint32_t dd_wave;           /* process 0: the wave asked for last */
    int dd_replies;             /* process 0: states of that wave received */
    int dd_quiet;               /* process 0: every one of them quiet */
    uint64_t dd_sent, dd_arrived, dd_act;   /* process 0: their sums */
    uint64_t dd_prev[3];        /* process 0: the sums of the last all-quiet wave */
    int dd_prev_ok;             /* process 0: dd_prev holds an all-quiet wave */
    int dd_on;                  /* detection runs (ZMPI_NET_DEADLOCK=0 turns it off) */
    int dd_done;                /* process 0: other processes whose report came */
    char **dd_text;             /* process 0, reporting: each process's report text */
    size_t *dd_len;             /* process 0, reporting: its length */
} net = { .free_head = -1 };

static __attribute__((noinline)) void dd_arrive(const void *msg, size_t bytes, int src);
static void progress_start(void);
static void part_arrive(void *pkt, size_t bytes, int src_proc, int32_t kind);

/* ---- Failures ------------------------------------------------------------ */

/* The system MPI failed under us: nothing sensible can go on. */
void zm_net_fatal(const char *what)
{
    fprintf(stderr, "zmpi: process %d: network: %s failed in the %s backend; ending the job\n",
            zm_net_job.proc, what, net.be ? net.be->name : "?");
    fflush(NULL);
    zm_net_abort(1);
}

const zm_net_backend_t *zm_net_be(void)
{
    return net.be;
}

/* The first process of a job to end it leaves its status in the file
 * zmpirun named (ZMPI_EXIT_FILE), so that zmpirun exits with it: the
 * launcher's own status is whichever process it saw fail first, and the
 * others, cut off from the one that ended, may fail with 1 or be killed
 * before it reports.  O_EXCL keeps the first writer's, the cause. */
static void record_exit(int code)
{
    const char *path = getenv("ZMPI_EXIT_FILE");
    if (code == 0 || !path || !*path)
        return;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    char buf[16];
    int n = snprintf(buf, sizeof buf, "%d\n", code);
    if (write(fd, buf, (size_t)n) != n) {
        /* Nothing to do: zmpirun falls back to the launcher's status. */
    }
    close(fd);
}

/* A process of a job across processes ends with _exit(code), not with the
 * system MPI's abort: both launchers (hydra, Open MPI's) end every other
 * process of a job in which one exits with a non-zero status before
 * MPI_Finalize, and they forward all of its output first, whereas after
 * MPI_Abort they kill the processes at once and the report just written
 * to stderr was often lost on the way (1 run in 10 with MPICH).  The
 * system MPI's abort stays for the launchers that do not (ZMPI_NET_ABORT=
 * mpi). */
void zm_net_abort(int code)
{
    fflush(NULL);
    record_exit(code);
    const char *how = getenv("ZMPI_NET_ABORT");
    if (net.be && how && strcmp(how, "mpi") == 0)
        net.be->abort(code);
    _exit(code);
}

/* ---- Loading the backend ------------------------------------------------- */

/* Directory of libzmpi itself: the modules are installed beside it. */
static void lib_dir(char *buf, size_t len)
{
    Dl_info di;
    buf[0] = '\0';
    if (dladdr((void *)&zm_net_init, &di) && di.dli_fname) {
        const char *slash = strrchr(di.dli_fname, '/');
        if (slash)
            snprintf(buf, len, "%.*s", (int)(slash - di.dli_fname), di.dli_fname);
    }
}

/* Open module `path` of backend `name`: in a new link namespace (dlmopen)
 * or with local, deep-bound lookup.  Open MPI's backend defaults to the
 * latter: libopen-pal dlopens its components with RTLD_GLOBAL, which a
 * namespace made by dlmopen does not support (glibc 2.36 crashes in the
 * loader, inside MPI_Init).  Returns the handle or NULL with dlerror's
 * text. */
static void *open_module(const char *name, const char *path, char *err, size_t errlen)
{
    const char *how = getenv("ZMPI_NET_LOAD");
    if ((!how || !*how) && strcmp(name, "openmpi") == 0)
        how = "deepbind";
    void *h;
    if (how && strcmp(how, "deepbind") == 0)
        h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    else if (!how || !*how || strcmp(how, "dlmopen") == 0)
        h = dlmopen(LM_ID_NEWLM, path, RTLD_NOW | RTLD_LOCAL);
    else {
        snprintf(err, errlen, "ZMPI_NET_LOAD=%s is neither dlmopen nor deepbind", how);
        return NULL;
    }
    if (!h) {
        const char *e = dlerror();
        snprintf(err, errlen, "%s", e ? e : "cannot open it");
    }
    return h;
}

/* Load backend `name`; returns its table or NULL with a reason. */
static const zm_net_backend_t *load_backend(const char *name, char *err, size_t errlen)
{
    char path[4096], dir[4000];
    const char *given = getenv("ZMPI_NET_MODULE");
    if (given && *given) {
        snprintf(path, sizeof(path), "%s", given);
    } else {
        lib_dir(dir, sizeof(dir));
        snprintf(path, sizeof(path), "%s%slibzmpi_net_%s.so", dir, dir[0] ? "/" : "", name);
    }
    void *h = open_module(name, path, err, errlen);
    if (!h)
        return NULL;
    zm_net_entry_fn entry = (zm_net_entry_fn)dlsym(h, ZM_NET_ENTRY);
    const zm_net_backend_t *be = entry ? entry() : NULL;
    if (!be || be->abi != ZM_NET_ABI) {
        snprintf(err, errlen, "%.400s is not a zmpi network backend of this version", path);
        return NULL;
    }
    return be;
}

/* ---- The job's shape (the rest is net_job.c) --------------------------- */

int zm_net_placement_tag(void)
{
    return net.info.tag_ub;
}

int zm_net_init(int np_env)
{
    const char *launcher, *implied;
    int nprocs = zm_net_job_launcher(&launcher, &implied);
    const char *choice = getenv("ZMPI_NET");
    char err[512];
    if (choice && *choice && strcmp(choice, "mpich") != 0 && strcmp(choice, "openmpi") != 0 &&
        strcmp(choice, "none") != 0) {
        fprintf(stderr, "zmpi: ZMPI_NET=%s is none of mpich, openmpi, none\n", choice);
        return -1;
    }
    /* No launcher, one process, or independent processes on purpose:
     * nothing to connect. */
    if (nprocs <= 1 || (choice && strcmp(choice, "none") == 0))
        return zm_net_job_layout(np_env);
    const char *name = choice && *choice ? choice : implied;
    net.be = load_backend(name, err, sizeof(err));
    if (!net.be) {
        zm_net_job_no_backend(launcher, nprocs, name, err);
        return -1;
    }
    if (net.be->init(&net.info, err, sizeof(err)) != 0) {
        fprintf(stderr, "zmpi: the %s network backend could not start (%s); started by %s\n",
                name, err, launcher);
        return -1;
    }
    zm_net_job.nprocs = net.info.nprocs;
    zm_net_job.proc = net.info.proc;
    zm_net_job.backend = net.be->name;
    zm_net_job.launcher = launcher;
    if (net.info.nprocs != nprocs)
        fprintf(stderr, "zmpi: warning: %s announced %d processes, the system MPI has %d\n",
                launcher, nprocs, net.info.nprocs);
    net.next_tag = 1;
    if (net.info.nprocs == 1)
        return zm_net_job_layout(np_env);
    if (zm_net_job_layout(np_env) != 0 || zm_net_job_node_map() != 0)
        return -1;
    /* The progress thread also looks for deadlocks spanning the job. */
    const char *dd = getenv("ZMPI_NET_DEADLOCK");
    net.dd_on = !(dd && strcmp(dd, "0") == 0);
    if (net.dd_on)
        progress_start();
    return 0;
}

__thread int zm_net_held __attribute__((tls_model("initial-exec")));

/* The network lock, marking the OS thread that holds it (zm_net_held). */
static inline void net_lock(void)
{
    zm_spin_lock(&net.lock);
    zm_net_held = 1;
}

static inline int net_trylock(void)
{
    if (!zm_spin_trylock(&net.lock))
        return 0;
    zm_net_held = 1;
    return 1;
}

static inline void net_unlock(void)
{
    zm_net_held = 0;
    zm_spin_unlock(&net.lock);
}

static void progress_stop(void);

void zm_net_finalize(void)
{
    if (!net.be)
        return;
    progress_stop();
    net_lock();
    zm_net_batch_flush_all_locked();
    if (zm_net_job.nprocs > 1 && net.be->barrier() != 0)
        zm_net_fatal("the closing barrier");
    zm_net_env_stop_locked();
    net.be->finalize();
    net_unlock();
}

/* ---- The progress engine ------------------------------------------------- */

void zm_net_set_handler(zm_net_arrive_fn *fn, size_t headroom)
{
    net.arrive = fn;
    net.headroom = headroom;
}

void zm_net_lock(void)
{
    net_lock();
}

void zm_net_unlock(void)
{
    net_unlock();
}

/* A free slot for a new operation; grows the table when full. */
static int slot_take(zm_net_done_fn *done, void *arg)
{
    if (net.free_head < 0) {
        int ncap = net.cap ? 2 * net.cap : 64;
        pend_t *p = realloc(net.pend, sizeof(pend_t) * (size_t)ncap);
        int *x = p ? realloc(net.idx, sizeof(int) * (size_t)ncap) : NULL;
        if (p)
            net.pend = p;
        if (!p || !x || net.be->slots(ncap) != 0)
            zm_net_fatal("allocating request slots");
        net.idx = x;
        /* Lowest slots first, so the used ones stay packed below hi. */
        for (int i = ncap - 1; i >= net.cap; i--) {
            net.pend[i].next_free = net.free_head;
            net.free_head = i;
        }
        net.cap = ncap;
    }
    int s = net.free_head;
    net.free_head = net.pend[s].next_free;
    net.pend[s].done = done;
    net.pend[s].arg = arg;
    if (s >= net.hi)
        net.hi = s + 1;
    atomic_fetch_add_explicit(&net.inuse, 1, memory_order_relaxed);
    return s;
}

static void slot_put(int s)
{
    net.pend[s].next_free = net.free_head;
    net.free_head = s;
    atomic_fetch_sub_explicit(&net.inuse, 1, memory_order_relaxed);
    if (atomic_load_explicit(&net.inuse, memory_order_relaxed) == 0)
        net.hi = 0;
}

int zm_net_slot_free_locked(void)
{
    if (net.free_head < 0) {
        /* Grow: take a slot and give it back at once. */
        int s = slot_take(NULL, NULL);
        slot_put(s);
    }
    return net.free_head;
}

void zm_net_slot_use_locked(int s, zm_net_done_fn *done, void *arg)
{
    /* The free list's head is s, as the caller was told, unless a slot
     * was taken in between: the backend's request would sit in the wrong
     * slot. */
    if (slot_take(done, arg) != s)
        zm_net_fatal("keeping request slots in order");
}

void zm_net_isend_locked(const void *buf, size_t bytes, int proc, int tag, int sync,
                         zm_net_done_fn *done, void *arg)
{
    if (tag == ZM_NET_TAG_ENV)
        zm_net_batch_flush_locked(proc); /* batched envelopes first (net_env.c) */
    int s = slot_take(done, arg);
    if (net.be->isend(buf, bytes, proc, tag, sync, s) != 0)
        zm_net_fatal("a send");
}

void zm_net_count_sent_locked(void)
{
    net.env_sent++;
}

void zm_net_send_locked(const void *buf, size_t bytes, int proc, int tag, int sync,
                        zm_net_done_fn *done, void *arg)
{
    if (tag == ZM_NET_TAG_ENV) {
        net.env_sent++;
        if (bytes > zm_net_env_room()) {
            zm_net_env_big_locked(buf, bytes, proc, done, arg);
            return;
        }
    }
    zm_net_isend_locked(buf, bytes, proc, tag, sync, done, arg);
}

void zm_net_recv_locked(void *buf, size_t bytes, int proc, int tag, zm_net_done_fn *done,
                        void *arg)
{
    int s = slot_take(done, arg);
    if (net.be->irecv(buf, bytes, proc, tag, s) != 0)
        zm_net_fatal("a receive");
}

int zm_net_data_tag_locked(void)
{
    int t = net.next_tag++;
    /* tag_ub itself is kept for moving ranks (zm_net_placement_tag). */
    if (net.next_tag >= net.info.tag_ub || net.next_tag <= 0)
        net.next_tag = 1;
    return t;
}

int zm_net_deliver_locked(void *pkt, size_t bytes, int src, int32_t kind)
{
    /* Point-to-point and one-sided kinds (below ZM_NET_KIND_PORT, from
     * ZM_NET_KIND_RMA on, or none) in one test: the arrival of every
     * message of the program. */
    _Static_assert(ZM_NET_KIND_PORT < ZM_NET_KIND_PART && ZM_NET_KIND_PART < ZM_NET_KIND_NET &&
                   ZM_NET_KIND_NET < ZM_NET_KIND_RMA, "the library's own kinds sit together");
    if (ZM_LIKELY((uint32_t)(kind - ZM_NET_KIND_PORT) > ZM_NET_KIND_NET - ZM_NET_KIND_PORT)) {
        net.env_arrived++;
        net.arrive(pkt, bytes, src);
        return 1;
    }
    if (kind == ZM_NET_KIND_NET) {
        dd_arrive((char *)pkt + net.headroom, bytes, src);
        return 0; /* not an arrival that can wake a rank */
    }
    net.env_arrived++; /* ZM_NET_KIND_PART or ZM_NET_KIND_PORT */
    part_arrive(zm_net_keep(pkt, bytes), bytes, src, kind);
    return 1;
}

/* Receive the envelopes that arrived (net_env.c), then complete what
 * finished.  In this order: a completion that came before an envelope
 * (a buffered send's data, then the receiver's next message) is seen
 * in the same poll as the envelope, so the program that the envelope
 * lets go on finds its attached buffer free again.  Inlined: it is the
 * body of every poll, and a waiting rank polls in a loop. */
static int finish_locked(void);

static inline __attribute__((always_inline)) int progress_locked(void)
{
    int did = zm_net_env_poll_locked(net.headroom);
    if (atomic_load_explicit(&net.inuse, memory_order_relaxed) > 0)
        did |= finish_locked();
    return did;
}

/* Complete the operations of the system MPI that finished; returns
 * whether there were any.  Network lock held.  Out of line (as
 * run_deferred), so that a poll with none in flight, a waiting rank's,
 * keeps a small frame. */
static __attribute__((noinline)) int finish_locked(void)
{
    int n = net.be->testsome(net.hi, net.idx, net.cap);
    if (n < 0)
        zm_net_fatal("testing requests");
    for (int i = 0; i < n; i++) {
        int s = net.idx[i];
        zm_net_done_fn *done = net.pend[s].done;
        void *arg = net.pend[s].arg;
        slot_put(s);
        if (done)
            done(arg);
    }
    return n > 0;
}

/* Run deferred work once; drop the entries that are done.  Out of line:
 * inlined into zm_net_poll, its loop made every poll save and restore
 * five registers (docs/net.md, "Fifth pass"). */
static __attribute__((noinline)) int run_deferred(void)
{
    int did = 0;
    zm_spin_lock(&net.defer_lock);
    defer_t *list = net.defers;
    net.defers = NULL;
    zm_spin_unlock(&net.defer_lock);
    defer_t *keep = NULL, **tail = &keep;
    while (list) {
        defer_t *d = list;
        list = d->next;
        if (d->fn(d->arg)) {
            free(d);
            atomic_fetch_sub_explicit(&net.ndefer, 1, memory_order_relaxed);
            did = 1;
        } else {
            d->next = NULL;
            *tail = d;
            tail = &d->next;
        }
    }
    if (keep) {
        zm_spin_lock(&net.defer_lock);
        *tail = net.defers;
        net.defers = keep;
        zm_spin_unlock(&net.defer_lock);
    }
    return did;
}

int zm_net_poll(void)
{
    int did = 0;
    /* Without a backend only deferred work can be pending (collectives
     * forced onto their message path in one process: coll's net.c). */
    if (net.be && net_trylock()) {
        /* Written under the lock, on the lock's line: no extra sharing. */
        atomic_store_explicit(&net.polls, atomic_load_explicit(&net.polls,
                              memory_order_relaxed) + 1, memory_order_relaxed);
        did = progress_locked();
        net_unlock();
    }
    if (atomic_load_explicit(&net.ndefer, memory_order_relaxed) > 0)
        did |= run_deferred();
    return did;
}

void zm_net_defer(int (*fn)(void *), void *arg)
{
    defer_t *d = malloc(sizeof(*d));
    if (!d)
        zm_net_fatal("queueing deferred work");
    d->fn = fn;
    d->arg = arg;
    zm_spin_lock(&net.defer_lock);
    d->next = net.defers;
    net.defers = d;
    zm_spin_unlock(&net.defer_lock);
    atomic_fetch_add_explicit(&net.ndefer, 1, memory_order_relaxed);
}

int zm_net_busy(void)
{
    return atomic_load_explicit(&net.inuse, memory_order_relaxed) +
           atomic_load_explicit(&net.ndefer, memory_order_relaxed);
}

/* ---- One-sided envelopes and passive-target progress --------------------- */

void zm_net_set_rma_handler(zm_net_rma_fn *fn)
{
    atomic_store(&net.rma, fn);
}

void zm_net_arrive_rma(void *pkt, size_t bytes, int src_proc)
{
    zm_net_rma_fn *fn = atomic_load(&net.rma);
    /* A process makes its part of a window (and installs the handler)
     * before the window's creation completes anywhere, so an origin can
     * never reach a process without it. */
    if (!fn)
        zm_net_fatal("delivering a one-sided request to a process without windows");
    atomic_store_explicit(&net.rma_in, atomic_load_explicit(&net.rma_in, memory_order_relaxed) + 1,
                          memory_order_relaxed); /* under the lock */
    pkt = zm_net_keep(pkt, bytes);
    fn(pkt, (char *)pkt + net.headroom, bytes, src_proc);
}

void zm_net_set_part_handler(zm_net_rma_fn *fn)
{
    atomic_store(&net.part, fn);
}

void zm_net_set_port_handler(zm_net_rma_fn *fn)
{
    atomic_store(&net.port, fn);
}

/* A partitioned-communication or port envelope (under the lock).  It
 * counts as one-sided traffic for the progress thread's hot phase: the
 * partitions of a round follow each other within microseconds, and the
 * receiver may be computing, leaving the thread to take them in. */
static void part_arrive(void *pkt, size_t bytes, int src_proc, int32_t kind)
{
    zm_net_rma_fn *fn = atomic_load(kind == ZM_NET_KIND_PART ? &net.part : &net.port);
    if (!fn)
        zm_net_fatal("delivering a partitioned or port message to a process without its "
                  "handler");
    atomic_store_explicit(&net.rma_in, atomic_load_explicit(&net.rma_in, memory_order_relaxed) + 1,
                          memory_order_relaxed); /* under the lock */
    fn(pkt, (char *)pkt + net.headroom, bytes, src_proc);
}

/* Sleep `ns` nanoseconds. */
static void progress_nap(uint64_t ns)
{
    struct timespec ts = { (time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull) };
    nanosleep(&ts, NULL);
}

static void dd_tick(void);

/* Polling without sleeping this long after the last one-sided envelope
 * arrived: requests of one origin follow each other within microseconds,
 * and a napping poller (Linux sleeps at least some 50 us) would add a
 * sleep to each (measured: 150-250 us per Put/flush across 2 processes
 * whose target rank sat parked in MPI_Barrier, against a few us). */
#define PROG_HOT_NS (5ull * 1000 * 1000)

/* The progress thread.  While one-sided traffic is recent it polls
 * without sleeping, yielding the CPU between polls (such processes often
 * outnumber the cores).  Otherwise it polls only when nobody else did
 * since its last look, backing off from 2 us to sleeps of 1 ms: waiting
 * ranks and idle workers poll far more often, and on an oversubscribed
 * machine a thread competing with them for the lock and the cores only
 * slowed them down (mpi4py's RMA tests on 4 processes and 2 cores).
 * Without holds it sleeps 10 ms at a time until it is stopped. */
static void *progress_main(void *arg)
{
    (void)arg;
    uint64_t pause = 2000, hot_until = 0;
    unsigned seen = atomic_load_explicit(&net.polls, memory_order_relaxed), rma_seen = 0;
    while (!atomic_load_explicit(&net.prog_stop, memory_order_acquire)) {
        dd_tick();
        if (zm_net_batch_pending())
            zm_net_poll(); /* sends it (net_env.c, "Batches") */
        if (atomic_load_explicit(&net.prog_holds, memory_order_relaxed) <= 0) {
            progress_nap(10 * 1000 * 1000);
            continue;
        }
        unsigned rin = atomic_load_explicit(&net.rma_in, memory_order_relaxed);
        uint64_t now_ns = zm_arch_time_ns();
        if (rin != rma_seen) {
            rma_seen = rin;
            hot_until = now_ns + PROG_HOT_NS;
        }
        if (now_ns < hot_until) {
            zm_net_poll();
            sched_yield();
            pause = 2000;
            continue;
        }
        unsigned now = atomic_load_explicit(&net.polls, memory_order_relaxed);
        if (now != seen) {
            seen = now; /* someone else progresses the network */
            progress_nap(pause);
            if (pause < 1000 * 1000)
                pause *= 2;
            continue;
        }
        if (zm_net_poll()) {
            pause = 2000;
            seen = atomic_load_explicit(&net.polls, memory_order_relaxed);
            continue;
        }
        seen = atomic_load_explicit(&net.polls, memory_order_relaxed);
        progress_nap(pause);
        if (pause < 1000 * 1000)
            pause *= 2;
    }
    return NULL;
}

/* Start the progress thread if it does not run yet. */
static void progress_start(void)
{
    zm_spin_lock(&net.prog_lock);
    if (!net.prog_started) {
        if (pthread_create(&net.prog_thread, NULL, progress_main, NULL) != 0)
            zm_net_fatal("starting the progress thread");
        net.prog_started = 1;
    }
    zm_spin_unlock(&net.prog_lock);
}

void zm_net_progress_hold(void)
{
    atomic_fetch_add(&net.prog_holds, 1);
    if (net.be)
        progress_start();
}

void zm_net_progress_release(void)
{
    atomic_fetch_sub(&net.prog_holds, 1);
}

/* End the progress thread (zm_net_finalize, main thread). */
static void progress_stop(void)
{
    if (!net.prog_started)
        return;
    atomic_store_explicit(&net.prog_stop, 1, memory_order_release);
    pthread_join(net.prog_thread, NULL);
    net.prog_started = 0;
}

/* ---- Job-wide deadlock detection -----------------------------------------
 *
 * In one process a deadlock is every worker idle with every rank parked
 * (src/ult/ult.c).  Across processes a parked rank may still be woken by a
 * message on its way from another process, so the processes are asked
 * together.  Process 0's progress thread, while its own ranks are all
 * parked, starts a "wave" every DD_PERIOD_NS: every other process answers
 * whether it is quiet (every live rank parked, none ready, no thread of a
 * rank running, no system-MPI operation pending), how many envelopes it
 * has sent and received, and a count that changes whenever one of its
 * ranks ran.  Two consecutive waves in which every process is quiet, the
 * job's envelopes sent equal those received (nothing in flight), and no
 * count moved mean nothing ran between them and nothing can: a deadlock.
 * Process 0 then asks every process for the list of its blocked ranks,
 * waits for them (at most DD_REPORT_NS), prints them and its own and ends
 * the job.  The other processes send their lists as text (DD_TEXT pieces,
 * then DD_PRINTED) rather than print them: process 0's _exit ends the
 * job, and the launcher, which then kills the other processes, did not
 * always forward what they had written just before (seen once in a full
 * test run on a loaded machine: the report without process 1's part).
 * The detection's own envelopes are left out of the counts. */

#define DD_PERIOD_NS (500ull * 1000 * 1000)
/* Long: a process that answered the last two waves is alive, and on an
 * overloaded machine its threads may wait a while for a core. */
#define DD_REPORT_NS (10000ull * 1000 * 1000)

enum { DD_QUERY = 1, DD_STATE, DD_REPORT, DD_TEXT, DD_PRINTED };

typedef struct dd_msg {
    char pad[ZM_NET_KIND_AT];   /* where other envelopes keep their own fields */
    int32_t kind;               /* ZM_NET_KIND_NET */
    int32_t op;                 /* DD_* */
    uint32_t wave;              /* the wave asked for or answered */
    int32_t quiet;              /* DD_STATE: the process is quiet */
    uint64_t sent, arrived;     /* DD_STATE: its envelopes sent and received */
    uint64_t activity;          /* DD_STATE: its activity count */
    char text[];                /* DD_TEXT: a piece of the report, whole lines */
} dd_msg_t;

/* The text of a DD_TEXT piece at most: well within the smallest room of
 * a preposted envelope (ENV_ROOM_NODE, net_env.c). */
#define DD_TEXT_MAX 1536

static void dd_free(void *arg)
{
    free(arg);
}

/* This process is quiet: its ranks all parked, no system-MPI operation
 * pending and no deferred work that could wake one without a message. */
static int dd_local_quiet(uint64_t *act)
{
    int q = zm_ult_quiet(act);
    return q && atomic_load(&net.inuse) == 0 && atomic_load(&net.ndefer) == 0;
}

/* Send a detection envelope (lock held) with `len` bytes of text;
 * not counted as traffic. */
static void dd_send_text(int op, uint32_t wave, int proc, const char *text, size_t len)
{
    dd_msg_t *m = calloc(1, sizeof(*m) + len);
    if (!m)
        zm_net_fatal("allocating a deadlock-detection message");
    m->kind = ZM_NET_KIND_NET;
    m->op = op;
    m->wave = wave;
    memcpy(m->text, text, len);
    if (op == DD_STATE) {
        uint64_t act;
        m->quiet = dd_local_quiet(&act);
        m->sent = net.env_sent;
        m->arrived = net.env_arrived;
        m->activity = act;
    }
    zm_net_isend_locked(m, sizeof(*m) + len, proc, ZM_NET_TAG_ENV, 0, dd_free, m);
}

static void dd_send(int op, uint32_t wave, int proc)
{
    dd_send_text(op, wave, proc, "", 0);
}

/* Another process (lock held): send process `to` the list of this
 * process's blocked ranks in pieces of whole lines, then DD_PRINTED.
 * Envelopes from one process arrive in order, so the pieces come before
 * it and in order. */
static void dd_send_report(uint32_t wave, int to)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f) {
        zm_ult_report_blocked(f, zm_net_job.proc);
        fclose(f);
    }
    for (size_t at = 0; text && at < len;) {
        size_t n = len - at;
        if (n > DD_TEXT_MAX) {
            n = DD_TEXT_MAX;
            while (n > 1 && text[at + n - 1] != '\n')
                n--; /* a line longer than a piece is cut, else whole lines */
            if (n == 1)
                n = DD_TEXT_MAX;
        }
        dd_send_text(DD_TEXT, wave, to, text + at, n);
        at += n;
    }
    free(text);
    dd_send(DD_PRINTED, wave, to);
}

/* Process 0, reporting: keep a piece of process src's text. */
static void dd_keep_text(int src, const char *text, size_t n)
{
    if (!net.dd_text || src <= 0 || src >= zm_net_job.nprocs)
        return;
    char *t = realloc(net.dd_text[src], net.dd_len[src] + n + 1);
    if (!t)
        return; /* the report goes without it */
    memcpy(t + net.dd_len[src], text, n);
    net.dd_len[src] += n;
    t[net.dd_len[src]] = '\0';
    net.dd_text[src] = t;
}

/* Process 0: count a state in the current wave. */
static void dd_count(int quiet, uint64_t sent, uint64_t arrived, uint64_t act)
{
    net.dd_replies++;
    net.dd_quiet &= quiet;
    net.dd_sent += sent;
    net.dd_arrived += arrived;
    net.dd_act += act;
}

/* A detection envelope of `bytes` bytes arrived (lock held).  Out of
 * line: inlined, it made zm_net_deliver_locked's frame, on every
 * message's path, 8 instructions longer. */
static __attribute__((noinline)) void dd_arrive(const void *msg, size_t bytes, int src)
{
    const dd_msg_t *m = msg;
    switch (m->op) {
    case DD_QUERY:
        dd_send(DD_STATE, m->wave, src);
        break;
    case DD_STATE:
        if (m->wave == net.dd_wave)
            dd_count(m->quiet, m->sent, m->arrived, m->activity);
        break;
    case DD_REPORT:
        dd_send_report(m->wave, src);
        break;
    case DD_TEXT:
        if (bytes > sizeof(*m))
            dd_keep_text(src, m->text, bytes - sizeof(*m));
        break;
    case DD_PRINTED:
        net.dd_done++;
        break;
    }
}

/* Process 0, lock held: judge the finished wave.  Nonzero if it makes
 * the second quiet wave in a row with nothing moved. */
static int dd_judge(void)
{
    if (!net.dd_quiet || net.dd_sent != net.dd_arrived) {
        net.dd_prev_ok = 0;
        return 0;
    }
    uint64_t now[3] = { net.dd_sent, net.dd_arrived, net.dd_act };
    int same = net.dd_prev_ok && memcmp(now, net.dd_prev, sizeof(now)) == 0;
    memcpy(net.dd_prev, now, sizeof(now));
    net.dd_prev_ok = 1;
    return same;
}

/* Process 0: every process prints its blocked ranks, then the job ends. */
static __attribute__((noreturn)) void dd_report(void)
{
    int n = zm_net_job.nprocs;
    fflush(stdout);
    fprintf(stderr, "zmpi: deadlock across the job's %d processes: every rank is blocked and "
            "no message is on its way\n", n);
    fflush(stderr);
    net_lock();
    net.dd_done = 0;
    net.dd_text = calloc((size_t)n, sizeof(*net.dd_text));
    net.dd_len = calloc((size_t)n, sizeof(*net.dd_len));
    if (!net.dd_text || !net.dd_len) {
        free(net.dd_text); /* the report goes without the others' lists */
        net.dd_text = NULL;
    }
    for (int p = 1; p < n; p++)
        dd_send(DD_REPORT, net.dd_wave, p);
    net_unlock();
    uint64_t end = zm_arch_time_ns() + DD_REPORT_NS;
    while (zm_arch_time_ns() < end) {
        net_lock();
        progress_locked();
        int done = net.dd_done;
        net_unlock();
        if (done >= n - 1)
            break;
        progress_nap(1000 * 1000);
    }
    net_lock(); /* a late piece must not change the texts while we print */
    for (int p = 1; p < n; p++) {
        if (net.dd_text && net.dd_text[p])
            fputs(net.dd_text[p], stderr);
        else
            fprintf(stderr, "zmpi:   process %d: no list of its blocked ranks within %llu s\n", p,
                    (unsigned long long)(DD_REPORT_NS / 1000000000ull));
    }
    zm_ult_report_blocked(stderr, 0);
    zm_net_abort(1);
}

/* Process 0's progress thread: start a wave when due and this process is
 * quiet, judging the previous one first. */
static void dd_tick(void)
{
    static uint64_t next;
    if (!net.dd_on || zm_net_job.proc != 0 || zm_net_job.nprocs < 2)
        return;
    uint64_t now = zm_arch_time_ns();
    if (now < next)
        return;
    next = now + DD_PERIOD_NS;
    net_lock();
    int dead = net.dd_wave && net.dd_replies == zm_net_job.nprocs && dd_judge();
    uint64_t act;
    int quiet = !dead && dd_local_quiet(&act);
    if (quiet) {
        net.dd_wave++;
        net.dd_replies = 0;
        net.dd_quiet = 1;
        net.dd_sent = net.dd_arrived = net.dd_act = 0;
        dd_count(1, net.env_sent, net.env_arrived, act);
        for (int p = 1; p < zm_net_job.nprocs; p++)
            dd_send(DD_QUERY, net.dd_wave, p);
    } else if (!dead) {
        net.dd_prev_ok = 0;
    }
    net_unlock();
    if (dead)
        dd_report();
}
