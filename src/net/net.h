/*
 * net: the network layer.  A job may span several OS processes, started by
 * the system MPI's launcher; the system MPI (MPICH or Open MPI) carries
 * every byte that leaves a process, through a backend module loaded at
 * start (net_backend.h, net.c).  This layer knows processes, bytes and
 * tags; p2p and coll build zmpi's messages and collectives on it.
 *
 * World ranks are numbered across the job: in blocks of consecutive ranks
 * per process (default), or round-robin over the processes (interleave).
 * A rank's local index is its position among its process's ranks; the
 * ULT and the p2p state of world rank w live at index w in arrays of the
 * world's size that only hold entries for this process's ranks.
 *
 * Threads: the system MPI is called under one lock (zm_net_lock); any
 * worker or rank may progress the network with zm_net_poll, which only
 * tries the lock.  Completion callbacks and the arrival handler run under
 * the lock, in whatever thread progressed.
 */
#ifndef ZM_NET_H
#define ZM_NET_H

#include "dt/dt.h"
#include "net/net_backend.h"

/* Rank orders. */
enum { ZM_NET_ORDER_BLOCK, ZM_NET_ORDER_INTERLEAVE };

/* The job's shape.  Written at start (zm_net_init), read-only after.  Which
 * process holds which rank is a table, not a formula, so that a later
 * change of placement (ranks moving between processes) can rewrite it at
 * one collective point. */
typedef struct zm_net_job {
    int nprocs;            /* processes (1: a one-process job, no backend) */
    int proc;              /* this process's index */
    int nranks;            /* world ranks in the job */
    int nlocal;            /* ranks of this process */
    int order;             /* ZM_NET_ORDER_* of the start */
    const int *proc_of;    /* per world rank: its process (NULL in a one-process job) */
    const int *local;      /* this process's world ranks, ascending (NULL: 0..nranks-1) */
    int spare;             /* ids after the world's for ranks spawned at run time, all
                            * processes together: id nranks + k belongs to process
                            * k % nprocs (ZMPI_SPAWN_MAX) */
    int nnodes;            /* distinct host names among the processes */
    const int *node;       /* per process: its node's index (hosts in order of first process) */
    const char *backend;   /* backend name, or NULL */
    const char *launcher;  /* who started the processes (for messages) */
} zm_net_job_t;

extern zm_net_job_t zm_net_job;

/* NULL in a one-process job; otherwise one byte per world rank and spare
 * id (zm_net_job's spare), 1 for the ranks of other processes.  The one test on the fast paths: a NULL check
 * that single-process jobs always pass. */
extern const uint8_t *zm_net_remote;

/* Whether world rank w lives in another process.  Any thread. */
static inline int zm_net_is_remote(int w)
{
    return ZM_UNLIKELY(zm_net_remote != NULL) && zm_net_remote[w];
}

/* Whether a communicator of n ranks with world ranks world[] (NULL: the
 * identity) has ranks in another process than the caller's.  A
 * communicator of one rank never has.  Any thread. */
static inline int zm_net_any_remote(const int *world, int n)
{
    if (ZM_LIKELY(zm_net_remote == NULL) || n < 2)
        return 0;
    for (int q = 0; q < n; q++)
        if (zm_net_remote[world ? world[q] : q])
            return 1;
    return 0;
}

/* The process that holds world rank w (or spawned rank w: zm_net_job's
 * spare).  Any thread. */
static inline int zm_net_proc_of(int w)
{
    const zm_net_job_t *j = &zm_net_job;
    if (ZM_UNLIKELY(w >= j->nranks))
        return (w - j->nranks) % j->nprocs;
    return j->proc_of ? j->proc_of[w] : 0;
}

/* World rank of this process's l-th rank (0 <= l < zm_net_job.nlocal, in
 * ascending order).  Any thread. */
static inline int zm_net_local_world(int l)
{
    return zm_net_job.local ? zm_net_job.local[l] : l;
}

/* Rewrite the placement (zm_net_job's proc_of, local, nlocal and
 * zm_net_remote) from proc_of[w], the new process of every world rank w,
 * at a point where every process does the same (a cross-process
 * migration, src/mpi/migrate_net.c) and nothing reads the tables: every
 * rank of the process waits in that call and no message is in flight.
 * A job of several processes only; the caller keeps its array. */
void zm_net_placement_set(const int *proc_of);

/* The tag that carries a moving rank's bytes between processes: the
 * system MPI's largest, which rendezvous data tags never take.  Any
 * thread, in a job of several processes. */
int zm_net_placement_tag(void);

/* Decide the job's shape from the environment and, when a launcher
 * started several processes, load the network backend and start the
 * system MPI.  `np_env` is the ZMPI_NP value (0 if unset).  On failure
 * prints why (naming the launcher, what is missing and how to fix it) and
 * returns -1.  Main thread, once, before the job starts. */
int zm_net_init(int np_env);

/* Shut the network down after the job (all processes meet in a barrier
 * first, so no process exits while another may still send to it).  Main
 * thread. */
void zm_net_finalize(void);

/* End every process of the job with exit status `code` (the system MPI's
 * abort), or just this process in a one-process job.  Any thread; does
 * not return. */
__attribute__((noreturn)) void zm_net_abort(int code);

/* ---- Messages ------------------------------------------------------------
 * Tag ZM_NET_TAG_ENV carries zmpi envelopes (with eager data); every other
 * tag is a data tag, drawn by the sender for one rendezvous payload. */
#define ZM_NET_TAG_ENV 0

/* Called under the lock when an operation completes. */
typedef void zm_net_done_fn(void *arg);

/* Called under the lock for each envelope message that arrives: `pkt` is
 * a block whose first `headroom` bytes are free for the handler and whose
 * message (`bytes` bytes) follows.  The block is the network layer's and
 * valid only during the call (mostly a preposted receive's buffer, posted
 * again after it): a handler that keeps the envelope calls zm_net_keep. */
typedef void zm_net_arrive_fn(void *pkt, size_t bytes, int src_proc);

/* From an envelope handler, for the envelope `pkt` (`bytes` bytes) it was
 * given: a malloc'd block of the same layout (headroom, then the message)
 * that the caller owns and frees with free().  The block itself when the
 * network layer had malloc'd it (an envelope too big for a preposted
 * receive), else a copy.  Under the lock. */
void *zm_net_keep(void *pkt, size_t bytes);

/* Install the envelope handler (p2p).  Main thread, at start. */
void zm_net_set_handler(zm_net_arrive_fn *fn, size_t headroom);

/* Take / release the network lock.  Lock order: the network lock first,
 * then a rank's lock (the arrival handler takes receivers' locks). */
void zm_net_lock(void);
void zm_net_unlock(void);

/* Nonzero on the OS thread that holds the network lock, so inside the
 * system MPI's calls.  Read by libzmpi's pthread_mutex_lock
 * (src/mpi/threads.c): the system MPI's own mutexes, which Open MPI takes
 * on every send once its thread level is above MPI_THREAD_SINGLE, are
 * then libc's plain lock, not the wait that lets a rank's other ULTs run
 * (72 instructions a lock instead of about 20, four locks a message;
 * and a ULT that switched away holding the network lock could stall its
 * worker's other ranks at the lock). */
extern __thread int zm_net_held __attribute__((tls_model("initial-exec")));

/* With the lock held: start a send (sync: completes only once matched) or
 * a receive of exactly `bytes` bytes; `done(arg)` runs when it completes.
 * Failures of the system MPI end the job with a message. */
void zm_net_send_locked(const void *buf, size_t bytes, int proc, int tag, int sync,
                        zm_net_done_fn *done, void *arg);
void zm_net_recv_locked(void *buf, size_t bytes, int proc, int tag, zm_net_done_fn *done,
                        void *arg);

/* With the lock held: a data tag for one rendezvous payload, unique among
 * this process's outstanding ones. */
int zm_net_data_tag_locked(void);

/* The largest envelope a preposted receive takes (the same in every
 * process of a job; larger ones cost the receiver a second message).  Any
 * thread, after zm_net_init. */
size_t zm_net_env_room(void);

/* The largest point-to-point message (data bytes) the backend would have
 * sent eagerly to a process of the same node (net_backend.h), or 0 without
 * a backend.  Any thread, after zm_net_init. */
size_t zm_net_eager_node(void);

/* The pieces in which a rendezvous's data travels between processes of one
 * node (net_backend.h): returns the size of a piece and sets *max to the
 * largest data sent so, or returns 0 (one message).  Any thread, after
 * zm_net_init. */
size_t zm_net_piece_node(size_t *max);

/* With the lock held: a buffer of zm_net_env_room() bytes for an envelope,
 * from a pool; fill it and pass it to zm_net_env_send_locked, which takes
 * it back. */
void *zm_net_env_buf_locked(void);

/* With the lock held: send the envelope in `buf` (from
 * zm_net_env_buf_locked, `bytes` bytes) to process `proc`; the buffer
 * returns to the pool once the system MPI is done with it, often at
 * once.  The cheap path for small envelopes: no completion callback. */
void zm_net_env_send_locked(void *buf, size_t bytes, int proc);

/* The largest envelope zm_net_env_send_copy_locked takes: what the
 * backend sends with a blocking send of the system MPI (net_backend.h,
 * send_max), 0 without a backend.  Any thread, after zm_net_init. */
size_t zm_net_env_send_max(void);

/* With the lock held: send the envelope of `bytes` bytes (at most
 * zm_net_env_send_max()) at `buf`, the caller's memory (a rank's stack),
 * to process `proc` now; the system MPI is done with the memory when this
 * returns.  An envelope that finds a batch to proc waiting joins it, as
 * in zm_net_env_send_locked. */
void zm_net_env_send_copy_locked(const void *buf, size_t bytes, int proc);

/* With the lock held: zm_net_env_send_locked for an envelope that another
 * send follows at once (a rendezvous's request to send, then its data):
 * whether it completed is looked at in a later poll, not before the next
 * send starts. */
void zm_net_env_send_first_locked(void *buf, size_t bytes, int proc);

/* Progress the network if nobody else is: receive what arrived, run the
 * callbacks of completed operations, poll deferred work.  Returns nonzero
 * if anything happened.  Any thread, but not with a rank's lock held. */
int zm_net_poll(void);

/* Deferred work: fn(arg) is called from zm_net_poll (outside the lock)
 * until it returns nonzero.  Any thread. */
void zm_net_defer(int (*fn)(void *), void *arg);

/* ---- Other layers' envelopes ---------------------------------------------
 * Every envelope holds a 32-bit kind at byte offset ZM_NET_KIND_AT.  p2p's
 * kinds are small; kinds from ZM_NET_KIND_RMA on are one-sided requests
 * and replies (src/rma/rma_net.c), which p2p's handler passes on to
 * zm_net_arrive_rma.  One tag for both keeps every envelope between two
 * processes in one ordered stream and costs the p2p path no extra probe. */
#define ZM_NET_KIND_AT 24
#define ZM_NET_KIND_RMA 64
/* The network layer's own envelopes (job-wide deadlock detection, net.c),
 * taken out before any handler sees them. */
#define ZM_NET_KIND_NET 63

/* Partitioned communication's envelopes (src/mpi/part_net.c): taken out
 * before p2p's handler sees them, like the network's own, and passed to
 * the handler installed with zm_net_set_part_handler (same signature as
 * the one-sided handler below). */
#define ZM_NET_KIND_PART 62

/* Dynamic processes' envelopes across processes (src/mpi/port.c: ports
 * paired at the process that opened them, names published at process 0),
 * taken out the same way and passed to the handler installed with
 * zm_net_set_port_handler. */
#define ZM_NET_KIND_PORT 61

/* Kind 60 is the network layer's own too (net_impl.h: an announcement of
 * an envelope too big for a preposted receive). */

/* Handler of one-sided envelopes: `msg` (`bytes` bytes) lies inside the
 * malloc'd block `pkt`, which the handler owns.  Called under the lock. */
typedef void zm_net_rma_fn(void *pkt, void *msg, size_t bytes, int src_proc);

/* Install the one-sided handler (rma, when its first window spanning
 * processes is made).  Any thread. */
void zm_net_set_rma_handler(zm_net_rma_fn *fn);

/* Install the handler of ZM_NET_KIND_PART envelopes.  The mpi layer
 * installs it when the library is loaded, so that a process that has not
 * made a partitioned request yet still takes in its peers' announcements.
 * Any thread. */
void zm_net_set_part_handler(zm_net_rma_fn *fn);

/* Install the handler of ZM_NET_KIND_PORT envelopes (the mpi layer, when
 * the library is loaded, like the partitioned one).  Any thread. */
void zm_net_set_port_handler(zm_net_rma_fn *fn);

/* Called by the envelope handler (under the lock) for an envelope `pkt`
 * of kind ZM_NET_KIND_RMA or above, as the handler was given it (valid
 * during the call; the one-sided handler receives a block of its own).
 * An envelope of that kind with no handler installed ends the job. */
void zm_net_arrive_rma(void *pkt, size_t bytes, int src_proc);

/* Passive-target progress: while at least one hold is taken, a progress
 * thread of this process polls the network (without sleeping for 5 ms
 * after each one-sided envelope, else backing off to sleeps of at most
 * 1 ms when nobody else polls), so one-sided requests to ranks that are
 * busy computing (their workers never idle) are still served.  Any
 * thread; release drops a hold taken by hold.  The thread ends in
 * zm_net_finalize. */
void zm_net_progress_hold(void);
void zm_net_progress_release(void);

/* Operations started and not yet completed, plus deferred work: nonzero
 * while something is in flight.  Any thread (a snapshot). */
int zm_net_busy(void);

/* Batches of small envelopes (net_env.c, "Batches").  Several small
 * envelopes to the same process travel in one message of the system MPI,
 * so that its per-message cost (MPI_Send, the receiver's test and repost:
 * some 1 300 instructions with MPICH) is paid once per batch.  p2p puts
 * the eager envelopes of non-blocking sends here; every other envelope to
 * the process sends the batch first, so all envelopes between two
 * processes stay in one ordered stream.  Everything here runs under the
 * network lock. */

/* The largest envelope a batch takes (bytes, header included): half of a
 * preposted receive's room less the batch's own bytes, so that a batch
 * carries at least two.  Any thread, after zm_net_init. */
size_t zm_net_batch_max(void);

/* With the network lock held: room for an envelope of `bytes` bytes (at
 * most zm_net_batch_max()) at the end of the batch to process `proc`,
 * which the caller fills before it releases the lock.  Counted as one
 * envelope sent.  A batch that has no room left is sent first; one that
 * could take no further envelope of this size is sent when the next
 * envelope comes, at the latest at the next poll of any thread. */
void *zm_net_batch_add_locked(int proc, size_t bytes);

/* With the network lock held: the envelope from zm_net_batch_add_locked
 * is filled.  Sends the batch if it could take no further envelope of
 * this size. */
void zm_net_batch_done_locked(int proc);

/* With the network lock held: send the batch to `proc` now if it holds
 * an envelope. */
void zm_net_batch_flush_locked(int proc);

/* Send every batch that holds an envelope now; one relaxed load when none
 * does.  For a sender that batched envelopes and may leave the library
 * without polling the network (a blocking collective whose receives had
 * all arrived).  Any thread that holds neither the network lock nor a
 * rank's lock. */
void zm_net_batch_flush_all(void);

/* How many times every waiting batch was sent so far (each poll that
 * found batches waiting, zm_net_batch_flush_all): a sender that read it
 * after batching sees it change only once its envelopes have left.  Any
 * thread; one load. */
unsigned zm_net_batch_gen(void);

#endif /* ZM_NET_H */
