/*
 * rma: the shared state of one-sided windows and the operations on it.
 *
 * All ranks of a zmpi process share one address space, so an origin reads
 * and writes a target's window memory itself: a Put or Get is one copy from
 * layout to layout with the datatype engine, finished before the call
 * returns, and a passive-target operation needs nothing from the target
 * rank (it may compute, sit in a receive or be parked in a collective).
 * The memory model is MPI_WIN_UNIFIED.
 *
 * A window is one zm_rma_win_t shared by the window objects of all its
 * ranks.  It holds per rank (a "target"): the segment (base, size,
 * displacement unit), the attached regions of a dynamic window, a fair
 * reader-writer lock for MPI_Win_lock, a spinlock that makes accumulates
 * to that target atomic, the rank's parking slot and its PSCW counters.
 *
 * Waiting ranks (a lock that is held, a Win_start before the matching
 * posts, a Win_wait before the completes) poll briefly when alone on their
 * worker, then park, so a rank that can never be woken is found by the
 * deadlock detector, which prints what the rank waits for.
 *
 * Across processes (rma_net.c, docs/net.md "Windows across processes"):
 * every process of a window keeps its own zm_rma_win_t for the window,
 * registered under the window communicator's context id, with the
 * segment table of all ranks (remote entries only for the origin's range
 * checks).  An operation on a target in another process is an active
 * message through the network layer: the target process's progress (its
 * idle workers, its waiting ranks, and a progress thread while windows
 * span processes) applies it to the target's memory with the same
 * functions and locks as the direct path, so accumulates stay atomic per
 * element between origins of every process, and replies when done.
 *
 * Windows whose memory zmpi allocates on processes of one node are
 * "direct" (docs/net.md): every segment is in one node-wide shared-memory
 * segment mapped by every process, headed by per-rank words (node) that
 * hold each target's accumulate lock and the shared holders of its
 * passive-target lock.  Origins of every process then move and combine
 * data with loads and stores, take shared locks with one atomic operation
 * on the target's word, and go to the target's process only for what
 * queues (an exclusive lock, a lock behind one) and for PSCW and fence.
 * Other windows with segments on one node (MPI_Win_create) copy Gets and
 * large Puts straight between processes with cross-memory attach (pid).
 */
#ifndef ZM_RMA_H
#define ZM_RMA_H

#include "coll/coll.h"
#include "net/net.h"

/* A region attached to a dynamic window (MPI_Win_attach). */
typedef struct zm_rma_region {
    zm_dlink_t link;               /* in the target's region list */
    uintptr_t base;                /* first byte */
    size_t size;                   /* bytes */
} zm_rma_region_t;

/* A rank waiting for a passive-target lock, in the target's FIFO. */
typedef struct zm_rma_locker {
    zm_dlink_t link;               /* in zm_rma_target_t.queue */
    int exclusive;                 /* wants an exclusive lock */
    int rank;                      /* waiting rank (window rank), to wake it */
    int proc;                      /* a locker in another process: its process, else -1 */
    uint64_t cookie;               /* that locker's reply cookie (rma_net.c) */
    _Atomic int granted;           /* set by the releaser that grants it */
} zm_rma_locker_t;

/* Per-rank part of the shared window state.  One cache line group per
 * rank so that ranks locking different targets do not share lines. */
typedef struct zm_rma_target {
    char *base;                    /* segment start (not dynamic windows) */
    size_t size;                   /* segment bytes */
    int disp_unit;                 /* displacement unit */
    zm_spinlock_t lock_lk;         /* guards readers, writer and queue */
    int readers;                   /* shared locks held on this target */
    int writer;                    /* an exclusive lock is held */
    zm_dlink_t queue;              /* waiting lockers, oldest first */
    zm_spinlock_t acc_lk;          /* makes accumulates to this target atomic */
    zm_spinlock_t *acc;            /* the accumulate lock in use: &acc_lk, or the
                                    * node word's on a direct window */
    zm_spinlock_t slot_lk;         /* guards sleeper */
    zm_ult_t *sleeper;             /* this rank, while parked on this window */
    _Atomic int completes;         /* Win_complete calls aimed at this rank */
    zm_spinlock_t reg_lk;          /* guards regions */
    zm_dlink_t regions;            /* dynamic windows: attached regions */
    /* This rank as an origin of operations to other processes that are
     * on their way (rma_net.c; under the network lock). */
    int inflight;                  /* sent, not yet acknowledged */
    int async_err;                 /* first error an acknowledgement brought */
    zm_req_t *drain;               /* completed when inflight drops to 0 */
} __attribute__((aligned(ZM_CACHE_LINE))) zm_rma_target_t;

/* Per-rank words at the head of a direct window's node-wide segment,
 * shared by every process of the node (zeroed: lock open and free). */
typedef struct zm_rma_node_word {
    _Atomic uint64_t lock;         /* shared-lock holders (low 32 bits) | ZM_RMA_LOCK_CLOSED */
    zm_spinlock_t acc;             /* the target's accumulate lock, for every origin */
} __attribute__((aligned(ZM_CACHE_LINE))) zm_rma_node_word_t;

/* Set in a node word's lock while an exclusive lock is held or anyone
 * queues for the target's lock: shared lockers then queue too. */
#define ZM_RMA_LOCK_CLOSED ((uint64_t)1 << 32)
#define ZM_RMA_LOCK_COUNT 0xffffffffu

/* The shared state of one window. */
typedef struct zm_rma_win {
    _Atomic int refs;              /* ranks that have not freed the window */
    int n;                         /* ranks */
    void *block;                   /* shared windows: the one allocation, or NULL */
    /* Shared windows spanning processes of one node: the node's segment
     * as mapped in this process (set by the API layer), or NULL. */
    char *shm;                     /* the mapping */
    size_t shm_bytes;              /* its length */
    size_t *shm_off;               /* per rank: where its segment starts in it */
    /* Direct windows (memory of all ranks in the node's segment): the
     * per-rank words at the segment's head, or NULL. */
    zm_rma_node_word_t *node;
    /* Other windows with segments on processes of one node: per rank its
     * process id, for Puts and Gets straight into and out of another
     * process's memory (cross-memory attach), or NULL; cma_off is set once
     * the system refused it (the message path then serves). */
    int *pid;
    _Atomic int cma_off;
    zm_rma_target_t *t;            /* n targets */
    _Atomic int *posted;           /* posted[o * n + t]: Win_posts of t to o not yet started */
    /* Windows spanning processes (rma_net.c); proc is NULL otherwise. */
    int *proc;                     /* per rank: its process, or -1 for this process's ranks */
    uint32_t ctx;                  /* registry key: the window communicator's context */
    int nlocal;                    /* ranks of this process in the window */
    int joined;                    /* of those, how many took the state (under the registry lock) */
    struct zm_rma_win *next;       /* in the process's registry */
} zm_rma_win_t;

/* Nonzero if operations on window rank t travel to its process (it lives
 * in another process and the window is not direct).  Any thread. */
static inline int zm_rma_is_remote(const zm_rma_win_t *w, int t)
{
    return ZM_UNLIKELY(w->proc != NULL) && w->proc[t] >= 0 && !w->node;
}

/* Nonzero if window rank t lives in another process (direct window or
 * not): its lock queue and PSCW counters are there.  Any thread. */
static inline int zm_rma_other_proc(const zm_rma_win_t *w, int t)
{
    return ZM_UNLIKELY(w->proc != NULL) && w->proc[t] >= 0;
}

/* A new window state for n ranks, refs = n (every rank drops one).  NULL
 * if out of memory.  ULT context, one rank of the window. */
zm_rma_win_t *zm_rma_win_new(int n);

/* Bytes of the per-rank words heading a direct window's segment for n
 * ranks (whole pages, so the segments after them stay page aligned).
 * Any thread. */
size_t zm_rma_node_header(int n);

/* Make w direct: `words` (zm_rma_node_header(w->n) bytes at the head of
 * the node's segment, as mapped in this process) become its per-rank
 * words, and every target's accumulate lock the one in its word.  ULT
 * context, the first local rank of the window, before the window's
 * creation ends. */
void zm_rma_node_attach(zm_rma_win_t *w, void *words);

/* Drop the caller's reference; the last one frees the state (and the
 * block and any regions still attached).  Any ULT. */
void zm_rma_win_unref(zm_rma_win_t *w);

/* Where [disp + lo, disp + hi) of target `t` lies, or NULL if outside the
 * window: for a segment, disp counts disp_unit units from its base; for a
 * dynamic window (dynamic nonzero) disp is an absolute address that must
 * fall inside one attached region.  lo <= hi; an empty range always
 * succeeds.  Any ULT. */
char *zm_rma_target_addr(zm_rma_win_t *w, int t, int dynamic, int64_t disp, ptrdiff_t lo,
                         ptrdiff_t hi);

/* Attach / detach [base, base + size) to the caller's target `t` of a
 * dynamic window.  Attach returns ZM_ERR_NOMEM or ZM_ERR_ARG (overlaps an
 * attached region); detach returns ZM_ERR_ARG if no region starts at
 * base.  ULT context, the rank owning t. */
zm_status_t zm_rma_attach(zm_rma_win_t *w, int t, void *base, size_t size);
zm_status_t zm_rma_detach(zm_rma_win_t *w, int t, const void *base);

/* ---- Across processes (rma_net.c) -------------------------------------- */

/* This process's state of the window whose communicator has context
 * `ctx`, n ranks, world ranks world[] (NULL: identity), made by the first
 * of its local ranks to ask and registered (refs = the local ranks).
 * NULL if out of memory.  ULT context, every local rank of the window,
 * before the window's first collective completes. */
zm_rma_win_t *zm_rma_net_win_get(uint32_t ctx, int n, const int *world);

/* The predefined datatypes in an order every process shares (the API
 * layer's ZMPI_DT_LIST): accumulates name their element type by index.
 * Main thread or the first window creation, before any use. */
void zm_rma_net_set_types(const zm_dt_t *const *types, int n);

/* Remote operations: each sends a request to the target's process.  A
 * Put or an accumulate that fetches nothing on a window that is not
 * dynamic returns once sent, and zm_rma_net_drain completes it; the
 * others block until the reply came (on a dynamic window, `dyn`, disp is
 * an address the target checks against its attached regions).  The target side is
 * (count, dt) at disp, described to the target as its runs of bytes.
 * Return ZM_OK, ZM_ERR_ARG when the target found the range outside its
 * window (dynamic windows), ZM_ERR_NOMEM, ZM_ERR_OTHER (an accumulate's
 * element type is not in the type table).  ULT context, rank `me`. */
zm_status_t zm_rma_net_put(zm_rma_win_t *w, int me, int t, int dyn, int64_t disp,
                           const void *obuf, size_t ocount, const zm_dt_t *odt,
                           size_t tcount, const zm_dt_t *tdt);
zm_status_t zm_rma_net_get(zm_rma_win_t *w, int me, int t, int dyn, int64_t disp,
                           void *obuf, size_t ocount, const zm_dt_t *odt,
                           size_t tcount, const zm_dt_t *tdt);
/* Accumulate-family (rbuf NULL: no result); basic as for zm_rma_accumulate. */
zm_status_t zm_rma_net_acc(zm_rma_win_t *w, int me, int t, int dyn, int64_t disp,
                           const zm_op_t *op, const zm_dt_t *basic,
                           const void *obuf, size_t ocount, const zm_dt_t *odt,
                           size_t tcount, const zm_dt_t *tdt,
                           void *rbuf, size_t rcount, const zm_dt_t *rdt);
zm_status_t zm_rma_net_cas(zm_rma_win_t *w, int me, int t, int dyn, int64_t disp,
                           const zm_dt_t *dt, const void *origin, const void *compare,
                           void *result);

/* Puts smaller than this stay on the message path even where the system
 * allows cross-memory attach: they are pipelined there (0.6-1 us each in
 * a stream), while a system call cost about 1.7 us where measured
 * (docs/net.md).  Gets of any size copy directly. */
#define ZM_RMA_CMA_PUT_MIN 512

/* Put (write nonzero) or Get between (obuf, ocount, odt) and the
 * segment of target t of another process of this node at byte offset
 * `off`, (tcount, tdt) there, with cross-memory attach (w->pid set):
 * complete at return, nothing asked of the target process.  Returns
 * ZM_OK, ZM_ERR_NOMEM, or ZM_ERR_OTHER if the system refused (w->cma_off
 * is then set, and the caller takes the message path).  ULT context. */
zm_status_t zm_rma_net_cma(zm_rma_win_t *w, int t, int write, size_t off, void *obuf,
                           size_t ocount, const zm_dt_t *odt, size_t tcount, const zm_dt_t *tdt);

/* Passive-target lock / unlock of remote target t for rank me (blocks
 * until granted / released).  ULT context. */
/* Block until every operation rank `me` started to other processes on w
 * has been applied there; returns the first error one of them met (ZM_OK
 * if none).  Every call that ends an epoch or flushes drains first.  ULT
 * context, rank me. */
zm_status_t zm_rma_net_drain(zm_rma_win_t *w, int me);

void zm_rma_net_lock(zm_rma_win_t *w, int me, int t, int exclusive);
void zm_rma_net_unlock(zm_rma_win_t *w, int me, int t, int exclusive);

/* PSCW notices to another process: rank me posted to origin o / completed
 * its access to target t.  ULT context. */
void zm_rma_net_post(zm_rma_win_t *w, int me, int o);
void zm_rma_net_complete(zm_rma_win_t *w, int me, int t);

/* Direct windows: tell target t's process that the shared holders of t's
 * lock are gone while someone queues for it (no reply).  ULT context. */
void zm_rma_net_recheck(zm_rma_win_t *w, int t);

/* Grant a remote locker (proc, cookie) its lock.  net_locked: the caller
 * holds the network lock (the arrival handler).  Any thread, no rma lock
 * held. */
void zm_rma_net_grant(int proc, uint64_t cookie, int net_locked);

/* Drop the window from the registry (its last local reference is gone).
 * Any thread. */
void zm_rma_net_forget(zm_rma_win_t *w);

/* Accumulate into the target's runs at tbase: runs[i] = { offset, bytes }
 * in data order, n elements of basic in all; `in` holds the origin's n
 * elements (unused for MPI_NO_OP), `result` receives the old ones (NULL:
 * none).  Atomic under t's accumulate lock like zm_rma_accumulate.
 * Returns ZM_OK or ZM_ERR_NOMEM.  Any thread. */
zm_status_t zm_rma_accumulate_runs(zm_rma_win_t *w, int t, const zm_op_t *op,
                                   const zm_dt_t *basic, const void *in, char *tbase,
                                   const int64_t (*runs)[2], size_t nruns, void *result);

/* Target side of remote lock requests and PSCW notices (rma_sync.c), from
 * the arrival handler with the network lock held.  lock_remote returns 1
 * if granted at once (else the grant is sent later by an unlock).  On a
 * direct window, unlock_target of a shared lock only grants what the
 * departed shared holders (counted in the node word) made grantable. */
int zm_rma_lock_remote(zm_rma_win_t *w, int t, int exclusive, int proc, uint64_t cookie);
void zm_rma_unlock_target(zm_rma_win_t *w, int t, int exclusive, int net_locked);
void zm_rma_post_arrived(zm_rma_win_t *w, int o, int t);
void zm_rma_complete_arrived(zm_rma_win_t *w, int t);

/* ---- Data movement (rma_ops.c) -----------------------------------------
 * Every call moves or combines data at once.  Addresses are already
 * checked.  Accumulate-family calls take target t's accumulate lock, so
 * concurrent accumulates to a target are atomic per element whatever
 * their op.  `basic` is the predefined type both sides consist of
 * (zm_dt_basic).  Return ZM_OK or ZM_ERR_NOMEM (large derived layouts need
 * scratch space).  ULT context, any rank of the window. */

/* result = target (if result is not NULL); then target = origin op target.
 * op may be MPI_REPLACE or MPI_NO_OP. */
zm_status_t zm_rma_accumulate(zm_rma_win_t *w, int t, const zm_op_t *op, const zm_dt_t *basic,
                              const void *obuf, size_t ocount, const zm_dt_t *odt,
                              void *tbuf, size_t tcount, const zm_dt_t *tdt,
                              void *rbuf, size_t rcount, const zm_dt_t *rdt);

/* zm_rma_accumulate for `count` elements of predefined type dt lying in a
 * row (extent equal to size) on every side: origin, target and result
 * (rbuf, or NULL).  Needs no scratch, so it cannot fail. */
void zm_rma_accumulate_plain(zm_rma_win_t *w, int t, const zm_op_t *op, const zm_dt_t *dt,
                             const void *obuf, void *tbuf, void *rbuf, size_t count);

/* result = target; if target equals compare (bitwise), target = origin.
 * One element of predefined type dt. */
void zm_rma_compare_and_swap(zm_rma_win_t *w, int t, const zm_dt_t *dt, const void *origin,
                             const void *compare, void *result, void *target);

/* ---- Synchronization (rma_sync.c) ---------------------------------------
 * `me` is the caller's rank in the window; `what` describes the wait for
 * deadlock reports ("MPI_Win_lock waiting for ..."), and must stay valid
 * while the caller waits.  ULT context, the calling rank. */

/* Block until the passive-target lock of target t is granted (shared or
 * exclusive), in arrival order.  A target in another process is locked
 * through rma_net.c (same queue, in the target's process). */
void zm_rma_lock(zm_rma_win_t *w, int me, int t, int exclusive, const char *what);

/* Take the lock of target t if that needs no wait (it is free, or shared
 * with shared holders and nobody queued); 1 if taken, then released by
 * zm_rma_unlock as zm_rma_lock's.  A target of another process is never
 * taken here (0).  Lets the caller describe a wait only when there is one. */
int zm_rma_lock_try(zm_rma_win_t *w, int t, int exclusive);

/* Release a lock on t taken by zm_rma_lock and grant the next waiters
 * (locally, or in t's process when t is remote). */
void zm_rma_unlock(zm_rma_win_t *w, int t, int exclusive);

/* Win_post: tell each of the n origins in `ranks` that the caller's
 * window is exposed to it (origins in other processes by a notice). */
void zm_rma_post(zm_rma_win_t *w, int me, const int *ranks, int n);

/* Win_start: block until every target in `ranks` has posted to the
 * caller, then consume those posts. */
void zm_rma_start(zm_rma_win_t *w, int me, const int *ranks, int n, const char *what);

/* Win_complete: tell each target in `ranks` that the caller (rank me)
 * is done (targets in other processes by a notice). */
void zm_rma_complete(zm_rma_win_t *w, int me, const int *ranks, int n);

/* Win_wait / Win_test: wait until (or check whether) n origins have
 * completed their access to the caller, then consume them.  Test returns
 * nonzero if they had. */
void zm_rma_wait_completes(zm_rma_win_t *w, int me, int n, const char *what);
int zm_rma_test_completes(zm_rma_win_t *w, int me, int n);

#endif /* ZM_RMA_H */
