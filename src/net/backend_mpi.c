/*
 * backend_mpi.c: the network backend over a system MPI (MPICH or Open MPI).
 *
 * Built once per installed system MPI, against its <mpi.h> and library,
 * into libzmpi_net_<name>.so (root CMakeLists.txt, "network layer").  This
 * is the only zmpi source that includes the system MPI's header: libzmpi
 * loads the module in a way that keeps the system MPI's MPI_* symbols and
 * zmpi's apart (net.c, docs/net.md).  Every call but abort runs under
 * libzmpi's network lock.
 */
#include <mpi.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net_backend.h"

#ifndef ZM_NET_BACKEND_NAME
#error "ZM_NET_BACKEND_NAME must name the system MPI (mpich, openmpi)"
#endif

static struct {
    MPI_Comm comm;              /* private duplicate of the world communicator */
    MPI_Request *reqs;          /* request slots */
    int nslots;                 /* their number */
    MPI_Request *posted;        /* preposted receives (envelopes) */
    int nposted;                /* their number */
    int *idx;                   /* Testsome's index output */
    int nidx;                   /* its room */
    int we_init;                /* we called MPI_Init_thread (so we finalize) */
    int count_direct;           /* the status's own count field is the byte count */
} B;

/* Messages over INT_MAX bytes go as whole blocks of a contiguous type and
 * a remainder; both the sender and the receiver build the same pair. */
#define BIG_BLOCK (1 << 30)

/* A datatype and count that describe `bytes` bytes; *owned is set when the
 * type must be freed after the call that uses it. */
static int byte_type(size_t bytes, MPI_Datatype *dt, int *count, int *owned)
{
    *owned = 0;
    if (bytes <= (size_t)INT_MAX) {
        *dt = MPI_BYTE;
        *count = (int)bytes;
        return 0;
    }
    MPI_Datatype blk, t;
    size_t nblk = bytes / BIG_BLOCK, rest = bytes % BIG_BLOCK;
    int lens[2] = { (int)nblk, (int)rest };
    MPI_Aint disps[2] = { 0, (MPI_Aint)(nblk * (size_t)BIG_BLOCK) };
    MPI_Datatype types[2];
    if (MPI_Type_contiguous(BIG_BLOCK, MPI_BYTE, &blk) != MPI_SUCCESS)
        return -1;
    types[0] = blk;
    types[1] = MPI_BYTE;
    int rc = MPI_Type_create_struct(rest ? 2 : 1, lens, disps, types, &t);
    MPI_Type_free(&blk);
    if (rc != MPI_SUCCESS || MPI_Type_commit(&t) != MPI_SUCCESS)
        return -1;
    *dt = t;
    *count = 1;
    *owned = 1;
    return 0;
}

/* The byte count of a completed receive of MPI_BYTE of at most INT_MAX
 * bytes, or -1.  MPI_Get_count costs 83 instructions with MPICH (44 with
 * Open MPI) on the path from an envelope's arrival to its handler; the
 * count sits in a field of the status of either library, whose name
 * mpi.h gives away (MPICH's count_lo, Open MPI's _ucount).  That field
 * is used only after status_check found it to agree with MPI_Get_count. */
static int status_bytes(const MPI_Status *st)
{
#if defined(MPICH)
    if (B.count_direct)
        return st->count_lo;
#elif defined(OPEN_MPI)
    if (B.count_direct)
        return (int)st->_ucount;
#endif
    int n = 0;
    if (MPI_Get_count(st, MPI_BYTE, &n) != MPI_SUCCESS || n == MPI_UNDEFINED)
        return -1;
    return n;
}

/* Check at start-up, with a message of 5 bytes to this process itself,
 * that the status's count field says what MPI_Get_count says; if it does
 * not (another version of the library), status_bytes keeps to
 * MPI_Get_count.  Runs in be_init, before libzmpi posts any receive on
 * the private communicator, and receives from this process only, so no
 * envelope of another process can be taken or lost. */
static void status_check(void)
{
    char out[5] = "zmpi", in[8];
    int me = 0, n = -1;
    MPI_Status st;
    B.count_direct = 0;
    MPI_Comm_rank(B.comm, &me);
    if (MPI_Sendrecv(out, 5, MPI_BYTE, me, 0, in, 8, MPI_BYTE, me, 0, B.comm, &st) !=
            MPI_SUCCESS ||
        MPI_Get_count(&st, MPI_BYTE, &n) != MPI_SUCCESS || n != 5)
        return;
#if defined(MPICH)
    B.count_direct = st.count_lo == 5;
#elif defined(OPEN_MPI)
    B.count_direct = st._ucount == 5;
#endif
}

static int be_init(zm_net_info_t *info, char *err, size_t errlen)
{
    int flag = 0, provided = MPI_THREAD_SINGLE, len = 0, *ub = NULL;
    MPI_Initialized(&flag);
    if (!flag) {
#if defined(OPEN_MPI)
        /* On an oversubscribed node Open MPI turns mpi_yield_when_idle on,
         * and then every progress call that finds nothing (a poll's
         * MPI_Request_get_status) yields the CPU.  Here those calls run
         * under zmpi's network lock, so the thread gives its CPU away with
         * the lock held and the process's other threads spin on it: a
         * 7-rank job in 3 processes on 2 cores (net_openmpi_migrate_
         * topologies_7x3p) took 1.6-27 s against 1.1-1.5 s with it off.
         * zmpi's idle threads back off by themselves, outside the lock.  A
         * value the user set is kept. */
        setenv("OMPI_MCA_mpi_yield_when_idle", "0", 0);
        /* Nor does this backend need Open MPI to check the arguments of
         * each call: they are made here, valid by construction, and the
         * checks cost every call, MPI_Testsome a loop over all the slots
         * (callgrind, p2p_bibw at 2 KiB: 364 -> 26 instructions of its
         * own per call, MPI_Isend and MPI_Irecv 76 and 81 -> 40; docs/
         * net.md, "Performance").  Errors the system MPI finds while
         * communicating still come back as codes.  A value the user set
         * is kept. */
        setenv("OMPI_MCA_mpi_param_check", "0", 0);
#endif
        /* SERIALIZED is what libzmpi needs: its workers take turns under
         * one lock.  MULTIPLE costs the system MPI locks of its own. */
        if (MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) {
            snprintf(err, errlen, "MPI_Init_thread of the system MPI failed");
            return -1;
        }
        B.we_init = 1;
    } else {
        MPI_Query_thread(&provided);
    }
    if (provided < MPI_THREAD_SERIALIZED) {
        snprintf(err, errlen, "the system MPI grants thread level %d, below "
                 "MPI_THREAD_SERIALIZED, which zmpi's worker threads need", provided);
        return -1;
    }
    if (MPI_Comm_dup(MPI_COMM_WORLD, &B.comm) != MPI_SUCCESS) {
        snprintf(err, errlen, "MPI_Comm_dup of the system MPI's world failed");
        return -1;
    }
    /* Errors come back as codes, which libzmpi turns into its own reports. */
    MPI_Comm_set_errhandler(B.comm, MPI_ERRORS_RETURN);
    MPI_Comm_size(B.comm, &info->nprocs);
    MPI_Comm_rank(B.comm, &info->proc);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
    info->tag_ub = flag && ub ? *ub : 32767;
    info->thread_level = provided;
    status_check();
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Get_library_version(v, &len);
    v[strcspn(v, "\n")] = '\0';
    snprintf(info->version, sizeof(info->version), "%.120s", v);
    return 0;
}

static void be_finalize(void)
{
    free(B.reqs);
    free(B.idx);
    free(B.posted);
    B.reqs = NULL;
    B.idx = NULL;
    B.posted = NULL;
    B.nslots = B.nidx = B.nposted = 0;
    if (B.comm != MPI_COMM_NULL)
        MPI_Comm_free(&B.comm);
    if (B.we_init)
        MPI_Finalize();
}

static void be_abort(int code)
{
    MPI_Abort(MPI_COMM_WORLD, code);
    exit(code);
}

static int be_slots(int n)
{
    if (n <= B.nslots)
        return 0;
    MPI_Request *r = realloc(B.reqs, sizeof(MPI_Request) * (size_t)n);
    int *x = realloc(B.idx, sizeof(int) * (size_t)n);
    if (r)
        B.reqs = r;
    if (x)
        B.idx = x;
    if (!r || !x)
        return -1;
    for (int i = B.nslots; i < n; i++)
        B.reqs[i] = MPI_REQUEST_NULL;
    B.nslots = B.nidx = n;
    return 0;
}

static int be_isend(const void *buf, size_t bytes, int dest, int tag, int sync, int slot)
{
    MPI_Datatype dt;
    int count, owned, rc;
    if (byte_type(bytes, &dt, &count, &owned) != 0)
        return -1;
    if (sync)
        rc = MPI_Issend(buf, count, dt, dest, tag, B.comm, &B.reqs[slot]);
    else
        rc = MPI_Isend(buf, count, dt, dest, tag, B.comm, &B.reqs[slot]);
    if (owned)
        MPI_Type_free(&dt);
    return rc == MPI_SUCCESS ? 0 : -1;
}

/* Envelopes up to this size are sent with a blocking MPI_Send: both
 * system MPIs send them eagerly, so the call returns once the data is
 * out, whatever the receiver does (measured: 64 blocking sends to a rank
 * that receives only afterwards complete up to 2 KiB with MPICH over UCX
 * on TCP, whose rendezvous starts below 3 000 bytes, and up to 3 500
 * bytes with Open MPI on shared memory, whose eager limit is 4 KiB; more
 * elsewhere), and it costs less than
 * MPI_Isend with a look at the request: with MPICH 397 instructions
 * against 689 for an 8-byte message, with Open MPI 577 against 735
 * (docs/net.md, "Performance").  Above it a send that waited for its
 * receiver under the network lock could wait on a process that waits
 * for us. */
#define SEND_NOW_BLOCKING_MAX 1024

static int be_isend_now(const void *buf, size_t bytes, int dest, int tag, int slot)
{
    MPI_Request r;
    int flag = 0;
    if (bytes > (size_t)INT_MAX)
        return -1;
    if (bytes <= SEND_NOW_BLOCKING_MAX)
        return MPI_Send(buf, (int)bytes, MPI_BYTE, dest, tag, B.comm) == MPI_SUCCESS ? 1 : -1;
    /* MPI_Request_get_status, not MPI_Test: MPICH's MPI_Test runs its
     * progress engine before it looks (some 460 instructions, more than
     * the send itself), get_status only when the request is not complete
     * yet, and the system MPIs complete most small sends inside Isend. */
    if (MPI_Isend(buf, (int)bytes, MPI_BYTE, dest, tag, B.comm, &r) != MPI_SUCCESS ||
        MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return -1;
    if (flag)
        return MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS ? 1 : -1;
    B.reqs[slot] = r; /* a handle: pending from here on in the slot */
    return 0;
}

static int be_send(const void *buf, size_t bytes, int dest, int tag)
{
    /* bytes <= SEND_NOW_BLOCKING_MAX (send_max), far below INT_MAX. */
    return MPI_Send(buf, (int)bytes, MPI_BYTE, dest, tag, B.comm) == MPI_SUCCESS ? 0 : -1;
}

static int be_irecv(void *buf, size_t bytes, int src, int tag, int slot)
{
    MPI_Datatype dt;
    int count, owned, rc;
    if (byte_type(bytes, &dt, &count, &owned) != 0)
        return -1;
    rc = MPI_Irecv(buf, count, dt, src, tag, B.comm, &B.reqs[slot]);
    if (owned)
        MPI_Type_free(&dt);
    return rc == MPI_SUCCESS ? 0 : -1;
}

static int be_testsome(int nslots, int *idx, int max)
{
    int out = 0;
    if (nslots > B.nslots)
        nslots = B.nslots;
    if (nslots == 0)
        return 0;
    /* GCC takes MPI_STATUSES_IGNORE for an array of no room. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
    int rc = MPI_Testsome(nslots, B.reqs, &out, B.idx, MPI_STATUSES_IGNORE);
#pragma GCC diagnostic pop
    if (rc != MPI_SUCCESS)
        return -1;
    if (out == MPI_UNDEFINED)
        return 0;
    /* Testsome frees what it completes: the slots are empty again.  More
     * than `max` cannot complete, since at most `max` slots are in use. */
    if (out > max)
        out = max;
    memcpy(idx, B.idx, sizeof(int) * (size_t)out);
    return out;
}

static int be_posts(int n)
{
    if (n <= B.nposted)
        return 0;
    MPI_Request *r = realloc(B.posted, sizeof(MPI_Request) * (size_t)n);
    if (!r)
        return -1;
    B.posted = r;
    for (int i = B.nposted; i < n; i++)
        B.posted[i] = MPI_REQUEST_NULL;
    B.nposted = n;
    return 0;
}

static int be_post(int i, void *buf, size_t cap, int tag)
{
    if (cap > (size_t)INT_MAX)
        return -1;
    /* The receive that completed in this place is released first (it is
     * complete: MPI_Wait returns at once). */
    if (B.posted[i] != MPI_REQUEST_NULL &&
        MPI_Wait(&B.posted[i], MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return -1;
    return MPI_Irecv(buf, (int)cap, MPI_BYTE, MPI_ANY_SOURCE, tag, B.comm, &B.posted[i]) ==
                   MPI_SUCCESS ? 0 : -1;
}

static int be_post_test(int i, int *src, size_t *bytes)
{
    int flag = 0, n;
    MPI_Status st;
    /* MPI_Request_get_status, not MPI_Test: a poll that finds nothing
     * cost 330 instructions against 469 with MPICH.  The completed
     * request is released by MPI_Wait in be_post, at the next poll, off
     * the path from the message's arrival to its handler. */
    if (MPI_Request_get_status(B.posted[i], &flag, &st) != MPI_SUCCESS)
        return -1;
    if (!flag)
        return 0;
    /* Envelopes are at most INT_MAX bytes (be_post). */
    if ((n = status_bytes(&st)) < 0)
        return -1;
    *src = st.MPI_SOURCE;
    *bytes = (size_t)n;
    return 1;
}

static int be_post_cancel(int i)
{
    if (B.posted[i] == MPI_REQUEST_NULL)
        return 0;
    if (MPI_Cancel(&B.posted[i]) != MPI_SUCCESS)
        return -1;
    return MPI_Wait(&B.posted[i], MPI_STATUS_IGNORE) == MPI_SUCCESS ? 0 : -1;
}

static int be_allgather(const void *in, size_t bytes, void *out)
{
    if (bytes > (size_t)INT_MAX)
        return -1;
    return MPI_Allgather(in, (int)bytes, MPI_BYTE, out, (int)bytes, MPI_BYTE, B.comm) ==
                   MPI_SUCCESS ? 0 : -1;
}

static int be_barrier(void)
{
    return MPI_Barrier(B.comm) == MPI_SUCCESS ? 0 : -1;
}

/* Batches within a node (net_backend.h).  Open MPI's shared-memory
 * transport sends up to 4 KiB eagerly (btl_vader_eager_limit), its match
 * header included: a stream of 2 KiB messages in batches of 4 208 bytes
 * ran at 1.6 GB/s against 5.5 one by one.  MPICH over UCX took batches of
 * 8 KiB at the best rate of those tried (2, 4, 8 and 16 KiB: 512 B-1 KiB
 * streams 10-20 % faster with 8 KiB than with 2 KiB). */
/* Between nodes, MPICH over UCX's TCP transport goes by rendezvous from
 * below 3 000 bytes (see SEND_NOW_BLOCKING_MAX): a stream of 4 KiB
 * messages in batches of up to 16 KiB ran at 0.3 GB/s against 0.6 one by
 * one.  Open MPI's TCP transport sends 64 KiB eagerly: batches as large
 * as a preposted receive takes (net_env.c). */
/* Eager messages within a node (net_backend.h).  MPICH over UCX copies
 * messages of up to 8 KiB through its shared-memory FIFO (UCX 1.13's
 * eager bcopy; its own rendezvous starts above): zmpi's rendezvous there
 * cost a second message (the envelope) per message and left the data to
 * arrive before its receive was posted.  Eager up to 8 KiB + 32 (an
 * envelope of the 8 256 bytes a batch may take): a window of 4 KiB
 * messages 5.6 -> 7.3 GB/s (bare 8.5), the 4 KiB ping-pong 1.02 -> 0.90
 * us (docs/net.md, "Performance").  Open MPI's shared-memory transport
 * sends only up to 4 KiB eagerly: 2 KiB + 64 (a collective's 2 KiB block
 * behind its 32-byte signature, src/coll/net_msg.c).
 *
 * Pieces of a rendezvous within a node (net_backend.h): up to 16 KiB the
 * data goes as messages of the size each system MPI still copies through
 * its shared memory, which beat its own rendezvous there.  Alternated
 * runs, pieces against one message against bare: MPICH 16 KiB window
 * 7.0 / 4.7 / 5.3 GB/s, ping-pong 2.7 / 4.1 / 3.5 us; Open MPI (pieces of
 * 4 032 bytes) 4 KiB window 4.5 / 1.7 / 2.2 GB/s, ping-pong 1.0 / 3.1 /
 * 2.1 us, 16 KiB 5.3 / 4.9 / 5.7 GB/s (docs/net.md, "Performance").  At 32 KiB neither gained (MPICH
 * 7.2 against 7.3 GB/s, Open MPI bi-bandwidth 9.0 against 11.2), and
 * from 64 KiB the system MPIs' single-copy rendezvous wins. */
/* Preposted receives within a node (net_backend.h).  MPICH: 64.  With 16,
 * a window of 64 envelopes overflowed them and the rest waited in UCX's
 * unexpected queue, copied once more there; with 64, five alternated
 * rounds, the bi-bandwidth at 64 B-1 KiB and 4 KiB went from 0.74-1.00
 * of the bare MPICH's to 1.00-1.65 (docs/net.md, "Performance").  UCX
 * compares a message of another tag (a rendezvous's data, above 8 KiB
 * within a node here) with every receive from any source posted before
 * its own: 2 200 instructions more per 16 KiB message, not seen in its
 * latency.  Open MPI: 16; 64 saved instructions (ob1 took the stream
 * without its unexpected copies) but its bi-bandwidth at 4-16 KiB, whose
 * data goes in pieces, read 0.72-1.01 of bare against 0.76-1.20. */
#if defined(OPEN_MPI)
#define POSTS_NODE 16
#define BATCH_NODE (4096 - 64)
#define BATCH_NET (16 * 1024 + 64)
#define EAGER_NODE (2 * 1024 + 64)
#define PIECE_NODE (4096 - 64)
#define PIECE_MAX_NODE (16 * 1024)
#else
#define POSTS_NODE 64
#define BATCH_NODE (8192 + 64)
#define BATCH_NET (2 * 1024 + 128)
#define EAGER_NODE (8192 + 32)
#define PIECE_NODE 8192
#define PIECE_MAX_NODE (16 * 1024)
#endif

static const zm_net_backend_t table = {
    .abi = ZM_NET_ABI,
    .name = ZM_NET_BACKEND_NAME,
    .init = be_init,
    .finalize = be_finalize,
    .abort = be_abort,
    .slots = be_slots,
    .isend = be_isend,
    .isend_now = be_isend_now,
    .send = be_send,
    .irecv = be_irecv,
    .testsome = be_testsome,
    .posts = be_posts,
    .post = be_post,
    .post_test = be_post_test,
    .post_cancel = be_post_cancel,
    .allgather = be_allgather,
    .barrier = be_barrier,
    .batch_node = BATCH_NODE,
    .batch_net = BATCH_NET,
    .eager_node = EAGER_NODE,
    .piece_node = PIECE_NODE,
    .piece_max_node = PIECE_MAX_NODE,
    .send_max = SEND_NOW_BLOCKING_MAX,
    .posts_node = POSTS_NODE,
};

/* The module's only export. */
__attribute__((visibility("default"))) const zm_net_backend_t *zmpi_net_backend(void)
{
    B.comm = MPI_COMM_NULL;
    return &table;
}
