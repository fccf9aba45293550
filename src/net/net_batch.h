/*
 * net_batch.h: batches of small envelopes (src/net/net_env.c, "Batches").
 *
 * Several small envelopes to the same process travel in one message of
 * the system MPI, so that its per-message cost (MPI_Send, the receiver's
 * test and repost: some 1 300 instructions with MPICH) is paid once per
 * batch.  p2p puts the eager envelopes of non-blocking sends here; every
 * other envelope to the process sends the batch first (net_env.c,
 * net.c), so all envelopes between two processes stay in one ordered
 * stream.  Everything here runs under the network lock.
 */
#ifndef ZM_NET_BATCH_H
#define ZM_NET_BATCH_H

#include "net/net.h"

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

#endif /* ZM_NET_BATCH_H */
