/*
 * net_backend.h: the interface between libzmpi and a network backend
 * module (libzmpi_net_<name>.so), the only code that sees the system MPI.
 *
 * A backend is built against one system MPI's headers and library and
 * exports one symbol, zmpi_net_backend(), which returns its table.  The
 * table speaks in bytes, process numbers and tags on a private duplicate
 * of the system MPI's world communicator; it knows nothing of zmpi's
 * ranks, communicators or datatypes.  This header includes nothing of
 * zmpi, so the backend compiles against the system <mpi.h> alone.
 *
 * Threading: libzmpi calls every function but `abort` under its network
 * lock, so the system MPI sees one thread at a time (MPI_THREAD_SERIALIZED
 * is enough).  Outstanding operations live in slots of a request array the
 * backend owns; libzmpi picks the slot numbers.
 */
#ifndef ZM_NET_BACKEND_H
#define ZM_NET_BACKEND_H

#include <stddef.h>
#include <stdint.h>

/* Bumped whenever the table changes: a module built for another version
 * is refused. */
#define ZM_NET_ABI 6

/* The export every backend module defines. */
#define ZM_NET_ENTRY "zmpi_net_backend"

/* What init reports about the job of processes. */
typedef struct zm_net_info {
    int nprocs;                 /* processes in the job */
    int proc;                   /* this process's index */
    int thread_level;           /* level the system MPI granted (its MPI_THREAD_*) */
    int tag_ub;                 /* largest tag usable on the private communicator */
    char version[128];          /* the system MPI's library version, first line */
} zm_net_info_t;

typedef struct zm_net_backend {
    int abi;                    /* ZM_NET_ABI */
    const char *name;           /* "mpich" or "openmpi" */

    /* Initialise the system MPI (asking for MPI_THREAD_SERIALIZED at
     * least) and duplicate its world communicator.  Returns 0, or -1 with
     * a message in err. */
    int (*init)(zm_net_info_t *info, char *err, size_t errlen);

    /* Free the private communicator and finalise the system MPI. */
    void (*finalize)(void);

    /* End the whole job with exit status `code` (MPI_Abort).  May be
     * called without the lock, from any thread; does not return. */
    void (*abort)(int code);

    /* Make room for `n` request slots (all empty).  Returns 0 or -1. */
    int (*slots)(int n);

    /* Start a send of `bytes` bytes to process `dest` with `tag` into slot
     * `slot` (synchronous mode when `sync`: completes only once matched).
     * Returns 0 or -1. */
    int (*isend)(const void *buf, size_t bytes, int dest, int tag, int sync, int slot);

    /* Start a send like isend (standard mode) and test it at once: returns
     * 1 if it completed already (slot `slot` stays empty and buf may be
     * reused), 0 if it is pending in slot `slot`, -1 on an error.  For
     * small messages, which the system MPIs mostly complete inside the
     * send; the smallest may be sent by a blocking eager send, which
     * only waits for the data to leave (backend_mpi.c). */
    int (*isend_now)(const void *buf, size_t bytes, int dest, int tag, int slot);

    /* Send `bytes` bytes (at most send_max) to process `dest` with `tag`,
     * blocking until buf may be reused: a send the system MPI makes
     * eagerly, which therefore never waits for the receiver.  Returns 0
     * or -1.  The cheapest send of both system MPIs (no request). */
    int (*send)(const void *buf, size_t bytes, int dest, int tag);

    /* Start a receive of exactly `bytes` bytes from process `src` with
     * `tag` into slot `slot`.  Returns 0 or -1. */
    int (*irecv)(void *buf, size_t bytes, int src, int tag, int slot);

    /* Completed slots: writes up to `max` indices to `idx` and empties
     * those slots.  Returns their number, or -1 on an error. */
    int (*testsome)(int nslots, int *idx, int max);

    /* Preposted receives, kept apart from the slots: make room for `n`
     * of them (all empty).  Returns 0 or -1. */
    int (*posts)(int n);

    /* Post receive `i`: from any process, with `tag`, of at most `cap`
     * bytes into buf (releasing first the receive that completed there).
     * Returns 0 or -1. */
    int (*post)(int i, void *buf, size_t cap, int tag);

    /* Test posted receive `i`: returns 1 and the message's source and size
     * if it completed (then test it no more until it is posted again), 0
     * if not, -1 on an error.
     * (One at a time: MPICH's MPI_Testsome over 8 of them cost 3.5 times
     * its MPI_Test over one, some 1 560 instructions.) */
    int (*post_test)(int i, int *src, size_t *bytes);

    /* Cancel posted receive `i` if it is pending and wait until it is
     * empty (shut-down).  Returns 0 or -1. */
    int (*post_cancel)(int i);

    /* Collective over all processes, blocking (start-up only): every
     * process contributes `bytes` bytes, `out` receives them in process
     * order.  Returns 0 or -1. */
    int (*allgather)(const void *in, size_t bytes, void *out);

    /* Blocking barrier over all processes (start-up and shut-down only). */
    int (*barrier)(void);

    /* The largest message of batched envelopes (net_env.c, "Batches") to
     * send between processes of one node: up to the system MPI's
     * shared-memory eager limit, past which its rendezvous made a batch
     * slower than the envelopes one by one. */
    size_t batch_node;

    /* The same between processes of different nodes (the system MPI on
     * TCP): up to its eager limit there. */
    size_t batch_net;

    /* The largest point-to-point message (data bytes, the envelope's
     * header not counted) sent eagerly, envelope and data as one message,
     * to a process of the same node; larger ones go by zmpi's rendezvous
     * (src/p2p/remote.c).  Up to the size the system MPI itself sends by
     * copies through its shared memory: above it its own single-copy
     * rendezvous moves the data, which zmpi's rendezvous lets it do
     * straight into the user's buffer. */
    size_t eager_node;

    /* Between processes of one node, a rendezvous's data of at most
     * piece_max_node bytes travels as messages of at most piece_node
     * bytes (src/p2p/remote.c): the sizes the system MPI copies through
     * its shared memory, where that beats its own rendezvous.  0: one
     * message. */
    size_t piece_node;
    size_t piece_max_node;

    /* The largest message `send` takes (the system MPIs' eager sizes with
     * a factor of 2 to spare: backend_mpi.c). */
    size_t send_max;

    /* Receives of envelopes preposted from any process (net_env.c) when
     * every process is on one node: as many as the system MPI can keep
     * without slowing its matching, so that a stream of envelopes lands
     * in them rather than in its unexpected queue (a copy more). */
    int posts_node;
} zm_net_backend_t;

typedef const zm_net_backend_t *(*zm_net_entry_fn)(void);

#endif /* ZM_NET_BACKEND_H */
