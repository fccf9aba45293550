/*
 * migrate_net.c: ZMPI_Migrate across processes (issue 21; docs/migrate.md,
 * "Across processes").
 *
 * In a job of several processes whose ranks live in fixed regions (a
 * --checkpoint job: src/core/rank_mem.c), a rank can be sent whole to
 * another process: its stack, its program copy's writable segment and its
 * heap sit at the same addresses there, as in a restart (checkpoint.c),
 * and so do the communicators, groups, datatypes, error handlers, info
 * objects and attributes it made, which live in its heap in such jobs
 * (zm_core_obj_alloc).  The step, at every ZMPI_Migrate of the job's
 * MPI_COMM_WORLD:
 *
 * 1. Each rank drops the neighbourhood schedules its topologies cache
 *    (process memory, and live requests), says whether it may move
 *    (rank_why: nothing posted or waiting for it; no request of the pool
 *    made on its thread; no object that is its
 *    process's: intercommunicators to spawned ranks, windows, files,
 *    sessions, objects made off its own thread; no OpenMP state) and
 *    waits.  The last rank of the process to come coordinates the
 *    process from then on (it saves its context in place first,
 *    zm_ult_capture, since it runs on).
 * 2. The coordinators exchange, over the system MPI, their ranks' loads,
 *    the bytes each would send and whether each may move, plus what pins
 *    a whole process (objects in its own memory, Fortran indices) or the
 *    whole job (requests that may use collective state: job_why; other
 *    requests keep only the rank that made them), and their counts of messages sent to and
 *    received from other processes, until the sums agree: then nothing is
 *    in flight and nobody sends, since every rank waits here.
 * 3. Every process computes the same new placement from the same data
 *    (plan_*): a forced pattern for tests (zmpi_lb_proc=rotate or a list
 *    of moves), or moves from the most loaded process to the least while
 *    it is above the mean by more than the moved rank's load and the
 *    move gains more than it costs (move_pays).  No process is left
 *    without a rank (its job would end).
 * 4. The ranks that leave are woken to save their context in place and
 *    wait again.  The coordinators drop the collective state of every
 *    communicator of their ranks, which depends on the placement, send
 *    each moving rank (source) or receive it and map it at its addresses
 *    (destination), rewrite the placement tables, meet once more (so that
 *    no rank sends before every process knows the new placement and has
 *    its arrivals ready), and wake their ranks: an arrived rank returns
 *    from its zm_ult_capture with 1.
 *
 * The exchange goes over the network layer with one reserved tag
 * (zm_net_placement_tag); the system MPI keeps messages between two
 * processes with one tag in order, and every process posts its sends and
 * receives in the same order.
 */
#include "mpi/migrate_net.h"
#include "mpi/threads.h"
#include "mpi/session.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE zm_arch_page_size()
/* Largest piece of a rank sent in one message (the system MPIs count
 * bytes in an int). */
#define CHUNK ((size_t)1 << 30)

enum { MODE_AUTO, MODE_NONE, MODE_ROTATE, MODE_LIST };

/* What a waiting rank does when the coordinator wakes it: return (it
 * stays), or save its context and wait again to be sent; CMD_FAILED: it
 * could not save. */
enum { CMD_STAY, CMD_SAVE, CMD_FAILED };

/* What one process tells the others at each round; its ranks' loads
 * (double per world rank), the bytes a move of each would send (double
 * per world rank) and whether each may move (a byte per world rank)
 * follow, only its own ranks' entries meaningful. */
typedef struct rec_hdr {
    int64_t sent, arrived;          /* messages to and from other processes */
    int32_t block;                  /* job_why: nothing moves anywhere */
    int32_t pinned;                 /* its ranks stay (process_why) */
    char mode[ZM_MPI_LB_PROC_MAX];  /* world rank 0's zmpi_lb_proc, if it is here */
    double bw;                      /* bytes per second its last moves ran at, or 0 */
} rec_hdr_t;

/* What the destination needs besides a rank's memory. */
typedef struct meta {
    uint64_t stack_lo, stack_len, rw, rw_len, heap_len;
    uint64_t world_eh, self_eh;     /* predefined handlers are at the same address
                                     * everywhere, the rank's own ones in its heap */
    uint64_t attr, type_names;      /* its attribute state and names of predefined
                                     * types (in its heap), or 0 */
    uint64_t rec;                   /* its API record there (attributes of its WORLD
                                     * and SELF are keyed by their addresses) */
    int32_t initialized, finalized, thread_level, thread_max, last_class, pad;
    char world_name[MPI_MAX_OBJECT_NAME], self_name[MPI_MAX_OBJECT_NAME];
    char last_msg[256];
} meta_t;

/* The process's step: ranks count themselves in under the lock. */
static struct {
    zm_spinlock_t lock;
    int ready;                /* arrays below made */
    int arrived;              /* ranks of this process in the step */
    _Atomic int *flag;        /* per world rank: 0 running, 1 parked, 2 released */
    double *load;             /* per world rank: its load at this step */
    _Atomic int *cmd;         /* per world rank: CMD_*, what it does when woken */
    const char **why;         /* per world rank: why it may not move, or NULL */
    uint64_t *bytes;          /* per world rank: bytes sent when it left (reports) */
    char mode[ZM_MPI_LB_PROC_MAX]; /* world rank 0's mode, when it is here */
    int *oldp, *newp;         /* the placement before and after */
    unsigned char *rec, *all; /* this process's record; everyone's */
    size_t rec_bytes;
    unsigned long steps;
    int said_off;             /* reported once that nothing can cross */
    double bw;                /* bytes per second of this process's last moves, or 0 */
    double plan_bw;           /* the bandwidth the last plan assumed */
    int too_costly;           /* moves the last plan left out for their cost */
} X;

/* The cost of a move before any was measured (docs/migrate.md, "What it
 * costs": about 1.5 GB/s of rank memory, and some 0.1 ms per move), and
 * the stack bytes assumed for a rank whose context is not saved yet. */
#define MOVE_BW_DEFAULT 1.5e9
#define MOVE_OVERHEAD 1e-4
#define STACK_GUESS 16384.0

/* ---- Modes ---------------------------------------------------------------- */

/* Parse a list of moves "R:P,R:P" into newp (if given); 0 if valid. */
static int parse_list(const char *v, int *newp)
{
    const char *s = v;
    while (*s) {
        char *end;
        long r = strtol(s, &end, 10), p;
        if (end == s || *end != ':')
            return -1;
        s = end + 1;
        p = strtol(s, &end, 10);
        if (end == s || (*end && *end != ','))
            return -1;
        s = *end ? end + 1 : end;
        if (newp && r >= 0 && r < zm_net_job.nranks && p >= 0 && p < zm_net_job.nprocs)
            newp[r] = (int)p;
    }
    return 0;
}

static int mode_of(const char *v)
{
    if (!*v || strcmp(v, "auto") == 0)
        return MODE_AUTO;
    if (strcmp(v, "none") == 0)
        return MODE_NONE;
    if (strcmp(v, "rotate") == 0)
        return MODE_ROTATE;
    return MODE_LIST;
}

int zm_mpi_lb_proc_valid(const char *v)
{
    return strlen(v) < ZM_MPI_LB_PROC_MAX && (mode_of(v) != MODE_LIST || parse_list(v, NULL) == 0);
}

/* ---- Moving bytes between processes --------------------------------------- */

/* A failure half-way through a move: a rank's memory may be in neither
 * process, so the job ends. */
static __attribute__((noreturn)) void fail(const char *what)
{
    fprintf(stderr, "zmpi: process %d: moving ranks between processes failed: %s\n",
            zm_net_job.proc, what);
    fflush(stderr);
    zm_net_abort(1);
}

/* Operations of the coordinator in flight: it parks until the last one
 * completes, as a rank waits for a receive; whoever progresses the
 * network (an idle worker, usually) runs the callbacks and wakes it. */
typedef struct xwait {
    _Atomic int left;         /* operations not completed */
    _Atomic int state;        /* 0 running, 1 parked, 2 all done */
    zm_ult_t *u;              /* the coordinator */
} xwait_t;

static void done_cb(void *arg)
{
    xwait_t *x = arg;
    zm_ult_t *u = x->u; /* read first: the waiter's frame may end once state is 2 */
    if (atomic_fetch_sub_explicit(&x->left, 1, memory_order_acq_rel) == 1 &&
        atomic_exchange_explicit(&x->state, 2, memory_order_acq_rel) == 1)
        zm_ult_wake(u);
}

static int xwait_commit(void *arg)
{
    int expect = 0;
    return !atomic_compare_exchange_strong((_Atomic int *)arg, &expect, 1);
}

/* Wait until every operation of x completed: poll a little (the other
 * side is often there already), then park.  Parked, the coordinator
 * leaves the cores to the ranks of other processes that have yet to
 * come. */
static void xwait_done(xwait_t *x)
{
    for (int i = 0; i < 256 && atomic_load_explicit(&x->left, memory_order_acquire) > 0; i++)
        if (!zm_net_poll())
            zm_ult_yield();
    if (atomic_load_explicit(&x->left, memory_order_acquire) > 0)
        zm_ult_park(xwait_commit, (void *)&x->state);
    while (atomic_load_explicit(&x->state, memory_order_acquire) != 2)
        zm_ult_yield(); /* the last callback is between its two steps */
}

/* Send (send) or receive len bytes at buf to or from process proc. */
static void xfer(void *buf, size_t len, int proc, int send)
{
    int tag = zm_net_placement_tag();
    for (size_t off = 0; off < len; off += CHUNK) {
        size_t n = len - off < CHUNK ? len - off : CHUNK;
        xwait_t x = { 1, 0, zm_ult_self() };
        zm_net_lock();
        if (send)
            zm_net_send_locked((char *)buf + off, n, proc, tag, 0, done_cb, &x);
        else
            zm_net_recv_locked((char *)buf + off, n, proc, tag, done_cb, &x);
        zm_net_unlock();
        xwait_done(&x);
    }
}

/* Every process's record into X.all (in process order), X.rec ours. */
static void exchange(void)
{
    int np = zm_net_job.nprocs, me = zm_net_job.proc, tag = zm_net_placement_tag();
    size_t rb = X.rec_bytes;
    xwait_t x = { 2 * (np - 1), 0, zm_ult_self() };
    memcpy(X.all + (size_t)me * rb, X.rec, rb);
    zm_net_lock();
    for (int p = 0; p < np; p++)
        if (p != me)
            zm_net_recv_locked(X.all + (size_t)p * rb, rb, p, tag, done_cb, &x);
    for (int p = 0; p < np; p++)
        if (p != me)
            zm_net_send_locked(X.rec, rb, p, tag, 0, done_cb, &x);
    zm_net_unlock();
    xwait_done(&x);
}

static rec_hdr_t *hdr_of(unsigned char *rec)
{
    return (rec_hdr_t *)(void *)rec;
}

static double *loads_of(unsigned char *rec)
{
    return (double *)(void *)(rec + sizeof(rec_hdr_t));
}

static double *bytes_of(unsigned char *rec)
{
    return loads_of(rec) + zm_net_job.nranks;
}

static unsigned char *movable_of(unsigned char *rec)
{
    return rec + sizeof(rec_hdr_t) + 2 * sizeof(double) * (size_t)zm_net_job.nranks;
}

/* ---- Planning (the same in every process) --------------------------------- */

/* The bandwidth plans assume, the same in every process: the lowest the
 * processes measured at their last moves, or the default. */
static double plan_bandwidth(void)
{
    double bw = 0;
    for (int p = 0; p < zm_net_job.nprocs; p++) {
        double b = hdr_of(X.all + (size_t)p * X.rec_bytes)->bw;
        if (b > 0 && (bw == 0 || b < bw))
            bw = b;
    }
    return bw > 0 ? bw : MOVE_BW_DEFAULT;
}

/* Whether moving rank w (load lw, bytes b) from a process of total hi to
 * one of total lo pays: the load it takes off the larger of the two over
 * the next interval (loads are seconds per interval) exceeds the time the
 * move takes, which every rank of the job waits for. */
static int move_pays(double hi, double lo, double lw, double b, double bw)
{
    double after = hi - lw > lo + lw ? hi - lw : lo + lw;
    return hi - after > b / bw + MOVE_OVERHEAD;
}

/* Moves from the most loaded process to the least loaded one, the
 * heaviest rank that fits first, while the source is above the mean by
 * more than that rank's load, the move lowers the larger of the two, and
 * it gains more than it costs (move_pays). */
static void plan_auto(const double *load, const double *bytes, const unsigned char *mov)
{
    int n = zm_net_job.nranks, np = zm_net_job.nprocs;
    double *tot = calloc((size_t)np, sizeof(double)), sum = 0;
    if (!tot)
        return;
    for (int w = 0; w < n; w++)
        tot[X.oldp[w]] += load[w], sum += load[w];
    double mean = sum / np;
    for (int step = 0; step < n; step++) {
        int hi = 0, lo = 0, best = -1, costly = 0;
        for (int p = 1; p < np; p++) {
            hi = tot[p] > tot[hi] ? p : hi;
            lo = tot[p] < tot[lo] ? p : lo;
        }
        for (int w = 0; w < n; w++) {
            if (X.newp[w] != hi || X.oldp[w] != hi || !mov[w] || load[w] <= 0 ||
                tot[hi] - mean <= load[w] || tot[lo] + load[w] >= tot[hi])
                continue;
            if (!move_pays(tot[hi], tot[lo], load[w], bytes[w], X.plan_bw))
                costly++;
            else if (best < 0 || load[w] > load[best])
                best = w;
        }
        if (best < 0) {
            X.too_costly = costly;
            break;
        }
        X.newp[best] = lo;
        tot[hi] -= load[best];
        tot[lo] += load[best];
    }
    free(tot);
}

/* Send back to its process a rank leaving a process that would have none
 * left, until none is empty. */
static void keep_nonempty(void)
{
    int n = zm_net_job.nranks, np = zm_net_job.nprocs;
    int *count = calloc((size_t)np, sizeof(int));
    if (!count) {
        memcpy(X.newp, X.oldp, sizeof(int) * (size_t)n);
        return;
    }
    for (int again = 1; again;) {
        again = 0;
        memset(count, 0, sizeof(int) * (size_t)np);
        for (int w = 0; w < n; w++)
            count[X.newp[w]]++;
        for (int p = 0; p < np && !again; p++)
            for (int w = 0; w < n && count[p] == 0; w++)
                if (X.oldp[w] == p && X.newp[w] != p)
                    X.newp[w] = p, count[p]++, again = 1;
    }
    free(count);
}

/* The new placement into X.newp; returns the number of ranks that move,
 * or 0 (all stay) when some process holds requests that may use
 * collective state (job_why). */
static int plan(void)
{
    int n = zm_net_job.nranks, np = zm_net_job.nprocs, block = 0, moved = 0;
    double *load = malloc(sizeof(double) * 2 * (size_t)n), *bytes;
    unsigned char *mov = malloc((size_t)n);
    memcpy(X.newp, X.oldp, sizeof(int) * (size_t)n);
    X.too_costly = 0;
    X.plan_bw = plan_bandwidth();
    for (int p = 0; p < np; p++)
        block |= hdr_of(X.all + (size_t)p * X.rec_bytes)->block;
    if (!load || !mov || block) {
        free(load), free(mov);
        return 0;
    }
    bytes = load + n;
    for (int w = 0; w < n; w++) {
        unsigned char *r = X.all + (size_t)X.oldp[w] * X.rec_bytes;
        load[w] = loads_of(r)[w];
        bytes[w] = bytes_of(r)[w];
        mov[w] = movable_of(r)[w] && !hdr_of(r)->pinned;
    }
    const char *mode = hdr_of(X.all + (size_t)X.oldp[0] * X.rec_bytes)->mode;
    int m = mode_of(mode);
    if (m == MODE_AUTO)
        plan_auto(load, bytes, mov);
    else if (m == MODE_ROTATE)
        for (int w = 0; w < n; w++)
            X.newp[w] = (X.oldp[w] + 1) % np;
    else if (m == MODE_LIST)
        parse_list(mode, X.newp);
    for (int w = 0; w < n; w++)
        if (!mov[w])
            X.newp[w] = X.oldp[w];
    keep_nonempty();
    for (int w = 0; w < n; w++)
        moved += X.newp[w] != X.oldp[w];
    free(load), free(mov);
    return moved;
}

/* ---- The move ---------------------------------------------------------------- */

/* Send rank w, saved in place and not running (or the caller itself, whose
 * frames below its saved context are not sent), to process dst. */
static uint64_t send_rank(int w, int dst)
{
    zm_rank_mem_t *h = zm_core_rank_mem(w);
    zm_mpi_rank_t *m = zm_ult_get(w)->user;
    meta_t mt;
    void *rw;
    size_t rwlen;
    memset(&mt, 0, sizeof mt);
    zm_mpi_ckpt_rw(w, &rw, &rwlen);
    uintptr_t sp = (uintptr_t)h->ckpt_sp & ~(uintptr_t)(PAGE - 1);
    mt.stack_lo = sp;
    mt.stack_len = h->stack_at + PAGE + h->stack_size - sp;
    mt.rw = (uintptr_t)rw;
    mt.rw_len = rwlen;
    mt.heap_len = h->bump - h->heap_at;
    mt.world_eh = (uintptr_t)m->world.eh;
    mt.self_eh = (uintptr_t)m->self.eh;
    mt.attr = (uintptr_t)m->attr;
    mt.type_names = (uintptr_t)m->type_names;
    mt.rec = (uintptr_t)m;
    mt.initialized = m->initialized;
    mt.finalized = m->finalized;
    mt.thread_level = m->thread_level;
    mt.thread_max = m->thread_max;
    mt.last_class = m->last_class;
    memcpy(mt.world_name, m->world.name, sizeof mt.world_name);
    memcpy(mt.self_name, m->self.name, sizeof mt.self_name);
    memcpy(mt.last_msg, m->last_msg, sizeof mt.last_msg);
    xfer(&mt, sizeof mt, dst, 1);
    xfer(h, PAGE, dst, 1);
    xfer((void *)sp, mt.stack_len, dst, 1);
    xfer(rw, rwlen, dst, 1);
    xfer((void *)h->heap_at, mt.heap_len, dst, 1);
    return sizeof mt + PAGE + mt.stack_len + mt.rw_len + mt.heap_len;
}

/* The arriving rank's API state: its predefined communicators made here
 * (what a restart makes), with what the source said of them. */
static void mpi_arrive(int w, const meta_t *mt, struct zmpi_group *wg)
{
    zm_ult_t *u = zm_ult_get(w);
    /* A rank that ran here before keeps its record (the start's, or one
     * made when it first came). */
    zm_mpi_rank_t *m = u->user ? u->user : malloc(sizeof *m);
    if (!m)
        fail("out of memory");
    memset(m, 0, sizeof *m);
    m->world_rank = w;
    zm_mpi_comm_init_predef(&m->world, 0, w, zm_net_job.nranks, NULL, "MPI_COMM_WORLD");
    m->world.group = wg;
    zm_mpi_comm_init_predef(&m->self, 2, 0, 1, &m->world_rank, "MPI_COMM_SELF");
    memcpy(m->world.name, mt->world_name, sizeof m->world.name);
    memcpy(m->self.name, mt->self_name, sizeof m->self.name);
    m->world.eh = (struct zmpi_errhandler *)(uintptr_t)mt->world_eh;
    m->self.eh = (struct zmpi_errhandler *)(uintptr_t)mt->self_eh;
    m->initialized = mt->initialized;
    m->finalized = mt->finalized;
    m->thread_level = mt->thread_level;
    zm_mpi_thread_grant(m, mt->thread_max);
    m->last_class = mt->last_class;
    memcpy(m->last_msg, mt->last_msg, sizeof m->last_msg);
    u->user = m;
    zm_mpi_ckpt_state_adopt(m, (uintptr_t)mt->attr, (uintptr_t)mt->type_names,
                            (uintptr_t)mt->rec);
}

/* Receive rank w from process src into its region here, ready to run;
 * returns the bytes received. */
static uint64_t recv_rank(int w, int src, struct zmpi_group *wg)
{
    zm_rank_mem_t *h = zm_core_rank_mem(w);
    meta_t mt;
    char err[512];
    xfer(&mt, sizeof mt, src, 0);
    /* Fresh pages: what the rank left here last time is gone, and its
     * heap beyond the highest block used reads as zeros, as it must. */
    if (zm_core_rank_mem_init(w, 0) != 0)
        fail("cannot map an arriving rank's memory");
    xfer(h, PAGE, src, 0);
    if (!zm_core_rank_mem_valid(h, w))
        fail("an arriving rank's memory has another layout (a job of another shape)");
    if (zm_mpi_ckpt_adopt(w, err, sizeof err) != 0)
        fail(err);
    xfer((void *)(uintptr_t)mt.stack_lo, mt.stack_len, src, 0);
    xfer((void *)(uintptr_t)mt.rw, mt.rw_len, src, 0);
    xfer((void *)h->heap_at, mt.heap_len, src, 0);
    h->ckpt_resumed = 1;
    mpi_arrive(w, &mt, wg);
    zm_p2p_rank_open(w);
    return sizeof mt + PAGE + mt.stack_len + mt.rw_len + mt.heap_len;
}

/* Rank w has left: it no longer runs here.  The caller (self) leaves
 * later, from its own park. */
static void left(int w, int self)
{
    zm_mpi_rank_t *m = zm_ult_get(w)->user;
    if (m->self.coll) {
        zm_coll_placement_drop(m->self.coll);
        m->self.coll = NULL;
    }
    zm_p2p_rank(w)->local = 0;
    if (w == self)
        return;
    zm_ult_depart(zm_ult_get(w));
    /* Give its pages back (the region stays reserved for its return). */
    (void)zm_core_rank_mem_init(w, 0);
}

/* The collective state of WORLD and of every communicator in the heaps
 * of the ranks here (the leaving ones too, before their bytes go) depends
 * on the placement: dropped in every process, attached again at the next
 * collective, numbered from 0 in all members alike. */
static void drop_colls(void)
{
    for (int l = 0; l < zm_net_job.nlocal; l++) {
        int w = zm_net_local_world(l);
        zm_mpi_rank_t *m = zm_ult_get(w)->user;
        if (m->world.coll) {
            zm_coll_placement_drop(m->world.coll);
            m->world.coll = NULL;
        }
        zm_mpi_comm_drop_colls(w);
    }
}

/* Wait until rank w, counted in, has parked (its context saved). */
static void wait_parked(int w)
{
    while (atomic_load_explicit(&X.flag[w], memory_order_acquire) != 1)
        zm_ult_yield();
}

/* Have the ranks of this process that leave (but the caller, saved
 * already) save their context in place, and wait until they wait again.
 * Saving costs a small stack mapped and unmapped, so only ranks that
 * move pay it. */
static void save_leaving(int self)
{
    int me = zm_net_job.proc;
    for (int w = 0; w < zm_net_job.nranks; w++) {
        if (X.oldp[w] != me || X.newp[w] == me || w == self)
            continue;
        atomic_store_explicit(&X.cmd[w], CMD_SAVE, memory_order_relaxed);
        atomic_store_explicit(&X.flag[w], 0, memory_order_release);
        zm_ult_wake(zm_ult_get(w));
    }
    for (int w = 0; w < zm_net_job.nranks; w++) {
        if (X.oldp[w] != me || X.newp[w] == me || w == self)
            continue;
        wait_parked(w);
        if (atomic_load_explicit(&X.cmd[w], memory_order_acquire) == CMD_FAILED)
            fail("out of memory to save a leaving rank's context");
    }
}

/* Send and receive the moving ranks, in world rank order in every
 * process; then the tables.  Returns whether the caller left. */
static int move_all(int self)
{
    int n = zm_net_job.nranks, me = zm_net_job.proc, gone = 0;
    /* Every rank of the process is parked (coordinate). */
    struct zmpi_group *wg = ((zm_mpi_rank_t *)zm_ult_get(self)->user)->world.group;
    save_leaving(self);
    drop_colls();
    uint64_t t0 = zm_arch_time_ns(), moved = 0;
    for (int w = 0; w < n; w++) {
        if (X.oldp[w] == X.newp[w])
            continue;
        if (X.oldp[w] == me) {
            X.bytes[w] = send_rank(w, X.newp[w]);
            moved += X.bytes[w];
            left(w, self);
            gone |= w == self;
        } else if (X.newp[w] == me) {
            moved += recv_rank(w, X.oldp[w], wg);
        }
    }
    /* The bandwidth of this process's moves, for the next plans: moves
     * of a few pages say little about it. */
    uint64_t dt = zm_arch_time_ns() - t0;
    if (moved >= ((uint64_t)1 << 20) && dt > 0)
        X.bw = (double)moved * 1e9 / (double)dt;
    zm_net_placement_set(X.newp);
    zm_mpi_migrate_relocal();
    return gone;
}


/* ---- The step ------------------------------------------------------------------ */

/* What keeps the calling rank from moving, or NULL: the checkpoint's
 * test of a rank (checkpoint.c), plus the API state a move does not
 * carry (attributes, type names, OpenMP) and a pin to its worker. */
static const char *rank_why(zm_mpi_rank_t *me)
{
    if (!zm_ult_lb_can_move())
        return "this architecture cannot move ranks (a ULT may not resume on another "
               "thread)";
    if (!zm_p2p_rank_quiet(me->world_rank))
        return "a message to it is still unreceived, or it has a receive posted";
    /* A schedule first: its children are requests of the pool too. */
    if (atomic_load_explicit(&me->own_scheds, memory_order_relaxed) > 0)
        return "it holds an MPI_Isendrecv or generalized request (its process's memory)";
    if (zm_p2p_rank_requests(me->world_rank) > 0)
        return "it holds requests in its process's memory (pending, or complete and not "
               "yet freed)";
    const char *cwhy = zm_mpi_preq_why(me->world_rank);
    if (cwhy)
        return cwhy;
    cwhy = zm_mpi_ckpt_state_why(me);
    if (cwhy)
        return cwhy;
    zm_mpi_comm_held(me->world_rank, &cwhy);
    if (cwhy)
        return cwhy;
    if (zm_mpi_session_live(me))
        return "it has a session open (sessions are its process's)";
    if (atomic_load_explicit(&me->omp, memory_order_relaxed))
        return "it ran OpenMP regions";
    if (__atomic_load_n(&zm_ult_self()->pinned, __ATOMIC_RELAXED))
        return "it is pinned to its worker thread";
    return NULL;
}

/* What keeps every rank of this process where it is, or NULL.  Counts of
 * the process: which rank holds the object is not known. */
static const char *process_why(void)
{
    if (zm_p2p_requests_off_rank() > 0)
        return "requests made off the ranks' own threads exist in its process";
    if (zm_mpi_comm_live() > 0)
        return "communicators made off the ranks' own threads exist in its process";
    if (zm_dt_live() > 0)
        return "derived datatypes made off a rank's own thread exist in its process";
    if (zm_op_live() > 0)
        return "user operations made off a rank's own thread exist in its process";
    if (zm_mpi_handles_mapped())
        return "Fortran indices of communicators, groups, datatypes, error handlers or "
               "info objects exist in its process (the index tables are the process's)";
    return NULL;
}

/* What keeps every rank of the job where it is, or NULL: requests that
 * may use the collective state of a communicator, which every process
 * drops when any rank moves (move_all).  Non-blocking collectives; and
 * schedules (persistent collectives, non-blocking neighbourhood and
 * intercommunicator collectives, partitioned requests), whose messages
 * also travel on collective contexts, which the agreement's counts leave
 * out.  Point-to-point requests, MPI_Isendrecv's and generalized ones keep
 * only their rank (rank_why). */
static const char *job_why(void)
{
    if (zm_p2p_coll_requests() > 0)
        return "non-blocking collective requests exist in its process (collective state of "
               "communicators, which every process drops when ranks move)";
    if (zm_mpi_sched_live_shared() > 0)
        return "persistent, neighbourhood or intercommunicator collectives or partitioned "
               "requests exist in its process (they may use collective state, which every "
               "process drops when ranks move)";
    return NULL;
}

/* The step's arrays, made by the first rank to come. */
static void step_ready(void)
{
    int n = zm_net_job.nranks, np = zm_net_job.nprocs;
    zm_spin_lock(&X.lock);
    if (!X.ready) {
        X.rec_bytes = (sizeof(rec_hdr_t) + (2 * sizeof(double) + 1) * (size_t)n + 7) & ~(size_t)7;
        X.flag = calloc((size_t)n, sizeof(*X.flag));
        X.cmd = calloc((size_t)n, sizeof(*X.cmd));
        X.load = calloc((size_t)n, sizeof(double));
        X.why = calloc((size_t)n, sizeof(*X.why));
        X.bytes = calloc((size_t)n, sizeof(*X.bytes));
        X.oldp = malloc(sizeof(int) * (size_t)n);
        X.newp = malloc(sizeof(int) * (size_t)n);
        X.rec = malloc(X.rec_bytes);
        X.all = malloc(X.rec_bytes * (size_t)np);
        X.ready = X.flag && X.cmd && X.load && X.why && X.bytes && X.oldp && X.newp && X.rec && X.all;
    }
    int ok = X.ready;
    zm_spin_unlock(&X.lock);
    if (!ok)
        fail("out of memory");
}

/* What a move of rank w (here, waiting in the step) would send: its
 * header page, live stack, program copy's writable segment and heap. */
static double rank_bytes(int w)
{
    zm_rank_mem_t *h = zm_core_rank_mem(w);
    void *rw;
    size_t rwlen;
    zm_mpi_ckpt_rw(w, &rw, &rwlen);
    uintptr_t top = h->stack_at + PAGE + h->stack_size, sp = (uintptr_t)zm_ult_get(w)->ctx.sp;
    double stack = sp > h->stack_at && sp < top ? (double)(top - sp) : STACK_GUESS;
    return (double)PAGE + stack + (double)rwlen + (double)(h->bump - h->heap_at);
}

/* This process's record for the next exchange.  A message that arrived
 * for a rank since it came (it was on its way) keeps the rank here: the
 * counts are read first, and the network lock taken once, so that every
 * arrival they count is in its receiver's queue when the queues are
 * looked at. */
static void fill_record(void)
{
    rec_hdr_t *h = hdr_of(X.rec);
    long sent, arrived;
    memset(X.rec, 0, X.rec_bytes);
    /* Their only writers hold the network lock: under it the two counts
     * are of one moment. */
    zm_net_lock();
    zm_p2p_remote_counts(&sent, &arrived);
    zm_net_unlock();
    h->sent = sent;
    h->arrived = arrived;
    h->block = job_why() != NULL;
    h->pinned = process_why() != NULL;
    h->bw = X.bw;
    if (zm_net_proc_of(0) == zm_net_job.proc)
        memcpy(h->mode, X.mode, sizeof h->mode);
    for (int l = 0; l < zm_net_job.nlocal; l++) {
        int w = zm_net_local_world(l);
        loads_of(X.rec)[w] = X.load[w];
        bytes_of(X.rec)[w] = rank_bytes(w);
        if (!X.why[w] && !zm_p2p_rank_quiet(w))
            X.why[w] = "a message to it arrived while it waited to move";
        movable_of(X.rec)[w] = X.why[w] == NULL;
    }
}

/* Exchange records until no message between processes is in flight:
 * every rank of the job waits here, so the counts only catch up.
 * Returns the number of exchanges. */
static int agree(void)
{
    for (int rounds = 1;; rounds++) {
        fill_record();
        exchange();
        int64_t s = 0, a = 0;
        for (int p = 0; p < zm_net_job.nprocs; p++) {
            s += hdr_of(X.all + (size_t)p * X.rec_bytes)->sent;
            a += hdr_of(X.all + (size_t)p * X.rec_bytes)->arrived;
        }
        if (s == a)
            return rounds;
        for (int i = 0; i < 1000 && !zm_net_poll(); i++)
            zm_ult_yield();
    }
}

/* The loads of the ranks placed by `where` in process p, and their count. */
static double proc_load(const int *where, int p, int *count)
{
    double sum = 0;
    *count = 0;
    for (int w = 0; w < zm_net_job.nranks; w++)
        if (where[w] == p) {
            unsigned char *r = X.all + (size_t)X.oldp[w] * X.rec_bytes;
            sum += loads_of(r)[w];
            ++*count;
        }
    return sum;
}

/* --lb-report: the process of world rank 0 prints the step (the
 * agreement's exchanges and time, which includes waiting for the other
 * processes' ranks to come, and the moves' time), every
 * process why its ranks stayed (the first few) and what it sent. */
static void report(int moved, int rounds, uint64_t agree_ns, uint64_t move_ns)
{
    int me = zm_net_job.proc, n = zm_net_job.nranks, shown = 0;
    const char *pwhy = process_why();
    const rec_hdr_t *h0 = hdr_of(X.all + (size_t)X.oldp[0] * X.rec_bytes);
    if (X.oldp[0] == me) {
        fprintf(stderr, "zmpi: lb across processes, step %lu (%s): %d ranks in %d processes, "
                "%d moved; agreed in %d exchanges, %.3f ms; moved in %.3f ms\n", X.steps,
                h0->mode[0] ? h0->mode : "auto", n, zm_net_job.nprocs, moved, rounds,
                (double)agree_ns * 1e-6, (double)move_ns * 1e-6);
        for (int p = 0; p < zm_net_job.nprocs; p++) {
            int nb, na;
            double lb = proc_load(X.oldp, p, &nb), la = proc_load(X.newp, p, &na);
            fprintf(stderr, "zmpi:   process %d: load %.6g, %d ranks -> %.6g, %d ranks\n", p,
                    lb, nb, la, na);
        }
    }
    if (X.oldp[0] == me && X.too_costly)
        fprintf(stderr, "zmpi:   %d move%s left out: each would cost more than the load it "
                "evens out (its bytes at %.3g GB/s + %.1f ms)\n", X.too_costly,
                X.too_costly == 1 ? "" : "s", X.plan_bw * 1e-9, MOVE_OVERHEAD * 1e3);
    const char *jwhy = job_why();
    if (jwhy)
        fprintf(stderr, "zmpi:   no rank of the job moves: %s\n", jwhy);
    if (pwhy)
        fprintf(stderr, "zmpi:   process %d keeps its ranks: %s\n", me, pwhy);
    for (int w = 0; w < n; w++) {
        if (X.oldp[w] == me && X.why[w] && shown++ < 8)
            fprintf(stderr, "zmpi:   rank %d stays in process %d: %s\n", w, me, X.why[w]);
        if (X.oldp[w] == me && X.newp[w] != me)
            fprintf(stderr, "zmpi:   rank %d: process %d -> %d (%llu bytes)\n", w, me,
                    X.newp[w], (unsigned long long)X.bytes[w]);
    }
    fflush(stderr);
}

static int stay_commit(void *arg)
{
    int expect = 0;
    return !atomic_compare_exchange_strong((_Atomic int *)arg, &expect, 1);
}

/* The coordinator, moved away, leaves once its context is saved. */
static int leave_commit(void *arg)
{
    zm_ult_t *u = arg;
    zm_ult_depart(u);
    (void)zm_core_rank_mem_init(u->id, 0);
    return 0;
}

/* Wake the ranks of this process but the caller: the ones that arrived
 * start on the workers in turn (the in-process step that follows places
 * them), the others return from their park. */
static void release(int self)
{
    int me = zm_net_job.proc, nw = zm_ult_nworkers(), k = 0;
    for (int w = 0; w < zm_net_job.nranks; w++) {
        if (X.newp[w] != me || w == self)
            continue;
        if (X.oldp[w] != me) {
            zm_rank_mem_t *h = zm_core_rank_mem(w);
            if (zm_ult_arrive(w, h->ckpt_sp, h->ckpt_frame, ZM_RANK_MEM_FRAME, k++ % nw) != 0)
                fail("cannot place an arriving rank's stack");
        } else if (atomic_exchange(&X.flag[w], 2) == 1) {
            zm_ult_wake(zm_ult_get(w));
        }
    }
}

/* The last rank of the process to come: agree, plan, move, wake.
 * Returns 0 (it stays), or does not return (it moved). */
static int coordinate(int self)
{
    uint64_t t0 = zm_arch_time_ns();
    /* The others park after counting in: their queues are looked at, and
     * their stacks may be sent, once they have. */
    for (int l = 0; l < zm_net_job.nlocal; l++)
        if (zm_net_local_world(l) != self)
            wait_parked(zm_net_local_world(l));
    memcpy(X.oldp, zm_net_job.proc_of, sizeof(int) * (size_t)zm_net_job.nranks);
    int rounds = agree();
    uint64_t t1 = zm_arch_time_ns();
    int moved = plan(), gone = 0;
    if (moved) {
        gone = move_all(self);
        /* Nobody may send before every process knows the new placement
         * and has its arrivals ready. */
        exchange();
    }
    zm_spin_lock(&X.lock);
    X.arrived = 0;
    X.steps++;
    zm_spin_unlock(&X.lock);
    if (zm_ult_lb_reporting())
        report(moved, rounds, t1 - t0, zm_arch_time_ns() - t1);
    release(self);
    if (gone) {
        zm_ult_park(leave_commit, zm_ult_get(self));
        abort(); /* never woken here */
    }
    return 0;
}

/* In a job without fixed-address ranks: say once why nothing crosses. */
static void say_off(int w)
{
    if (w != 0 || !zm_ult_lb_reporting() || X.said_off)
        return;
    X.said_off = 1;
    fprintf(stderr, "zmpi: lb across processes: ranks stay in their processes: the job does "
            "not keep ranks at fixed addresses (start it with zmpirun --checkpoint)\n");
    fflush(stderr);
}

/* Save the calling rank's context in place, as ZMPI_Checkpoint does: 1 in
 * the process it moved to, 0 here after saving, -1 if out of memory.
 * Inlined into its one caller, so that the save is made in that caller's
 * frame, to which a moved rank returns (see zm_ult_capture). */
static inline __attribute__((always_inline)) int save_here(int w)
{
    zm_rank_mem_t *h = zm_core_rank_mem(w);
    int r = zm_ult_capture(&h->ckpt_sp, h->ckpt_frame, ZM_RANK_MEM_FRAME, &h->ckpt_resumed);
    if (r > 0)
        zm_core_rank_mem(zm_ult_self()->id)->ckpt_resumed = 0;
    return r;
}

int zm_mpi_migrate_cross(double load, const char *mode)
{
    zm_mpi_rank_t *me = zm_mpi_me();
    int w = me->world_rank;
    if (!zm_core_rank_mem_on()) {
        say_off(w);
        return 0;
    }
    step_ready();
    atomic_store_explicit(&X.flag[w], 0, memory_order_relaxed);
    atomic_store_explicit(&X.cmd[w], CMD_STAY, memory_order_relaxed);
    X.load[w] = load >= 0 ? load : zm_ult_lb_busy_peek();
    /* Before the coordinator looks for live schedules (job_why). */
    zm_mpi_comm_forget_caches(w);
    X.why[w] = rank_why(me);
    if (w == 0)
        snprintf(X.mode, sizeof X.mode, "%s", mode);
    zm_spin_lock(&X.lock);
    int last = ++X.arrived == zm_net_job.nlocal;
    zm_spin_unlock(&X.lock);
    if (!last) {
        zm_ult_park(stay_commit, (void *)&X.flag[w]);
        if (atomic_load_explicit(&X.cmd[w], memory_order_acquire) != CMD_SAVE)
            return 0;
        /* Chosen to move: save, then wait to be sent (never woken here).
         * A rank that moved comes back from this call in its new process,
         * where only the call's result is to be trusted. */
        int r = save_here(w);
        if (r > 0)
            return 1;
        if (r < 0)
            atomic_store_explicit(&X.cmd[w], CMD_FAILED, memory_order_relaxed);
        zm_ult_park(stay_commit, (void *)&X.flag[w]);
        return 0;
    }
    /* The coordinator saves itself before it knows whether it moves: it
     * runs on until the move is done, in frames below this one. */
    if (!X.why[w]) {
        int r = save_here(w);
        if (r > 0)
            return 1;
        if (r < 0)
            X.why[w] = "out of memory to save its context";
    }
    return coordinate(w);
}
