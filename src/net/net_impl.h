/*
 * net_impl.h: what the network layer's own files share (net.c, the
 * progress engine and the job; net_env.c, the envelope channel).  Not for
 * other layers.  Everything here runs under the network lock unless it
 * says otherwise.
 */
#ifndef ZM_NET_IMPL_H
#define ZM_NET_IMPL_H

#include "net/net.h"

/* Kind of the network layer's announcement of an envelope too big for a
 * preposted receive (net_env.c): its body follows with a data tag. */
#define ZM_NET_KIND_BIG 60

/* Kind of a batch: several envelopes to one process in one message of the
 * system MPI (net_env.c, "Batches"). */
#define ZM_NET_KIND_BATCH 59

/* net_job.c, called by zm_net_init on the main thread before any rank
 * runs.  zm_net_job_launcher: the launcher that started this process and
 * the backend it implies, from the environment; returns the number of
 * processes it started (0: none).  zm_net_job_layout: number the world
 * ranks over the processes (ZMPI_NP, ZMPI_RANKS_PER_PROC,
 * ZMPI_RANK_ORDER) and fill the placement tables; -1 with a message on
 * bad settings.  zm_net_job_node_map: which processes share a node (a
 * collective of the backend); -1 when out of memory.
 * zm_net_job_no_backend: print why a job the launcher started cannot run
 * without its backend, and how to fix it.  The tables are the layer's,
 * freed never (they live as long as the job). */
int zm_net_job_launcher(const char **launcher, const char **backend);
int zm_net_job_layout(int np_env);
int zm_net_job_node_map(void);
void zm_net_job_no_backend(const char *launcher, int nprocs, const char *name, const char *why);

/* The loaded backend (NULL in a one-process job).  Any thread; written
 * once at start. */
const zm_net_backend_t *zm_net_be(void);

/* The system MPI failed under us: print what and end the job.  Any
 * thread. */
__attribute__((noreturn)) void zm_net_fatal(const char *what);

/* The index of a free request slot, growing the table if there is none;
 * the slot stays free until zm_net_slot_use_locked takes it. */
int zm_net_slot_free_locked(void);

/* Take free slot `s` (from zm_net_slot_free_locked, with no slot taken
 * since) for an operation the backend started in it. */
void zm_net_slot_use_locked(int s, zm_net_done_fn *done, void *arg);

/* Start a send in a new slot, not counted as an envelope (net.c). */
void zm_net_isend_locked(const void *buf, size_t bytes, int proc, int tag, int sync,
                         zm_net_done_fn *done, void *arg);

/* Count one envelope sent (the job-wide deadlock detection's sums). */
void zm_net_count_sent_locked(void);

/* Hand an arrived envelope (kind `kind`) to whoever takes it: the
 * deadlock detection, the partitioned or port handler, or p2p's handler.
 * `pkt` is valid only during the call (net.h, zm_net_keep).  Returns 0
 * for the deadlock detection's own envelopes, 1 for the others. */
int zm_net_deliver_locked(void *pkt, size_t bytes, int src, int32_t kind);

/* net_env.c: post again the preposted receives handled by the last call
 * (all of them at the first call), then hand on the next envelope if it
 * arrived: one per call, a few in a stream.  Returns nonzero if any
 * arrived that was not the deadlock detection's own. */
int zm_net_env_poll_locked(size_t headroom);

/* net_env.c: send an envelope of more than zm_net_env_room() bytes as an
 * announcement plus its body; done(arg) runs once buf may be reused.
 * Counted by the caller. */
void zm_net_env_big_locked(const void *buf, size_t bytes, int proc, zm_net_done_fn *done,
                           void *arg);

/* net_env.c: send every batch that holds an envelope (a poll, the
 * closing barrier, the progress thread). */
void zm_net_batch_flush_all_locked(void);

/* net_env.c: nonzero while some batch holds an envelope not sent yet.
 * Any thread (a snapshot, read without the lock by the progress thread). */
int zm_net_batch_pending(void);

/* net_env.c: cancel the preposted receives and free the buffers
 * (shut-down, after the closing barrier). */
void zm_net_env_stop_locked(void);

#endif /* ZM_NET_IMPL_H */
