/*
 * part_impl.h: what part.c (partitioned communication, one process) and
 * part_net.c (the same between ranks of different processes) share: one
 * side of a partitioned operation and the round bookkeeping both paths
 * use.
 */
#ifndef ZM_MPI_PART_IMPL_H
#define ZM_MPI_PART_IMPL_H

#include "mpi_impl.h"

#include <stdint.h>

struct pchan;
struct pnet;

/* One side of a partitioned operation (the schedule's scratch space).
 * The round state is guarded by ch->lock when the peer is in this
 * process, by the network lock when it is in another (net != NULL). */
struct part {
    struct pchan *ch;            /* shared channel; NULL for MPI_PROC_NULL or a remote peer */
    struct pnet *net;            /* remote peer: this side's network channel, else NULL */
    int send;                    /* 1: the send side, 0: the receive side */
    void *buf;                   /* the user's buffer */
    size_t count;                /* elements of dt in the whole buffer */
    const zm_dt_t *dt;           /* held until the request is freed */
    int parts;                   /* partitions */
    size_t psize;                /* bytes per partition */
    size_t total;                /* bytes of the whole message */
    int peer, tag;               /* as given (the receiver reports them) */
    zm_req_t *req;               /* the user's request (the schedule's) */
    zm_req_t *kid;               /* the child the copying side completes */
    uint64_t round;              /* starts so far; under the lock once matched */
    int done;                    /* this round's child is completed */
    int bad;                     /* the peer's size differs: rounds fail */
    size_t peer_total;           /* the peer's size, for the error report */
    unsigned char *ready;        /* send: partition readied this round */
    unsigned char *copied;       /* send: partition copied (remote: sent) this round */
    int ncopied;                 /* send: partitions copied this round */
    size_t *got;                 /* receive: bytes arrived per partition */
    size_t gotall;               /* receive: bytes arrived this round */
    int nsent;                   /* receive: sender partitions copied this round */
    int peer_parts;              /* receive: the sender's partitions (once one came) */
};

/* Whether receive partition j of r has arrived.  Caller holds r's lock. */
int zm_mpi_part_arrived(const struct part *r, int j);

/* Account bytes [off, off + len) of the message, carried by `nparts` of
 * the sender's `sparts` partitions, as arrived at receive side r.  Caller
 * holds r's lock. */
void zm_mpi_part_account(struct part *r, size_t off, size_t len, int nparts, int sparts);

/* Start a new round of side p: nothing ready, copied or arrived yet.
 * Caller holds p's lock (the channel's, or the network lock). */
void zm_mpi_part_round_reset(struct part *p);

/* If side p's round is now complete, mark it done and add its child to
 * fin[] (*nfin grows by one); the caller completes fin[] once it has
 * dropped p's lock, or at once under the network lock.  Caller holds p's
 * lock. */
void zm_mpi_part_settle(struct part *p, zm_req_t **fin, int *nfin);

/* ---- Peers in another process (part_net.c) ------------------------------
 * Every function below is called from a rank's ULT (the API calls of
 * part.c) and takes the network lock itself. */

/* Set up side p (filled, not yet matched) whose peer lives in another
 * process: a send announces itself to the receiver's process; a receive
 * matches the oldest announcement of its (context, sender, receiver, tag)
 * there, or waits for one.  Returns MPI_SUCCESS, MPI_ERR_NO_MEM, or
 * MPI_ERR_TRUNCATE when the announced send has another size (*peer_total;
 * p is then not set up and the sender's rounds fail). */
int zm_mpi_part_net_init(struct part *p, uint32_t ctx, int swr, int rwr, size_t *peer_total);

/* Begin a new round on side p (MPI_Start). */
void zm_mpi_part_net_start(struct part *p);

/* Mark send partitions [lo, hi] (list[lo..hi] when list is given) ready
 * and send them now if the receiver has started this round. */
void zm_mpi_part_net_ready(struct part *p, int lo, int hi, const int *list);

/* Whether receive partition j has arrived (progresses the network first). */
int zm_mpi_part_net_arrived(struct part *p, int j);

/* Let go of side p's channel (the request is being freed); later
 * messages for it are dropped. */
void zm_mpi_part_net_release(struct part *p);

#endif /* ZM_MPI_PART_IMPL_H */
