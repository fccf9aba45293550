/*
 * net_p2p_small.c: small point-to-point messages between processes, where
 * the network backend sends envelopes of up to 1 KiB with a blocking
 * MPI_Send of the system MPI and larger ones with MPI_Isend, and where a
 * rank alone on its worker polls the system MPI itself while it waits
 * (docs/net.md, "Point-to-point" and "Progress").  Run across processes
 * (tests/net.cmake: 2 processes x 3 ranks interleaved, 3 processes x 1
 * rank, for each backend) and in one process.  At least 3 ranks.
 *
 * Usage: net_p2p_small <behaviour>
 *   order    every rank sends a stream of messages of sizes on both sides
 *            of the blocking send's limit, of the eager limit and of the
 *            rendezvous, to its right neighbour, all with one tag; the
 *            neighbour receives them with blocking receives (polling the
 *            network itself when alone on its worker) and checks that
 *            none overtook another and every byte;
 *   anysrc   rank 0 receives from MPI_ANY_SOURCE (and MPI_ANY_TAG for
 *            half of them) while ranks 1 and 2 both send to it: rank 2 is
 *            in rank 0's process with 2 x 3 interleaved, rank 1 in another;
 *            each sender's messages arrive in order and all of them
 *            arrive, whichever side's come first;
 *   cancel   rank 0 posts a receive from rank 1 (another process) that no
 *            message matches, cancels it while blocked in MPI_Wait on
 *            nothing else, and then receives rank 1's real message of that
 *            tag: the cancelled receive took nothing;
 *   probe    rank 0 probes (MPI_Probe, MPI_Iprobe, MPI_Mprobe) for rank
 *            1's messages of 8 bytes, 1000, 3000, 8000 and 12000 bytes
 *            from MPI_ANY_SOURCE and receives exactly what the probe saw;
 *   trunc    rank 1 sends messages on both sides of the eager limits to
 *            rank 0, which receives each into a buffer one byte too small
 *            (MPI_ERR_TRUNCATE, the bytes that fit delivered) and then a
 *            message of the same size whole;
 *   mixed    like order, with blocking MPI_Send for every other message
 *            (blocking sends of envelopes up to 512 bytes are built on the
 *            sender's stack, larger ones in a buffer of the network's pool;
 *            one that finds a batch of the non-blocking ones waiting joins
 *            it) and a non-contiguous blocking send each round, sizes on
 *            both sides of the stack's limit (484 bytes of data) and of the
 *            blocking send's (996);
 *   ssend    rank 1's MPI_Issend of messages whose data travels in pieces
 *            (and not) to rank 0 stays incomplete, however often tested,
 *            until rank 0, told so only afterwards, posts the receive;
 *   errors   MPI_Send and MPI_Rsend of a few bytes to the right neighbour
 *            (a rank of another process across processes: the path that
 *            sends without a request, docs/net.md "Fifth pass") with each
 *            bad argument in turn, on a communicator whose error handler
 *            counts its calls: each error reaches the handler once, with
 *            the class the argument calls for and a message naming the
 *            call; then a good message of each still arrives, in order;
 *   rsend    each rank pre-posts the receives of a stream from its left
 *            neighbour and says so; the neighbour then sends the stream
 *            with MPI_Rsend, MPI_Isend and MPI_Irsend in turn (sizes on
 *            both sides of the stack's limit and of the blocking send's),
 *            and every receive gets its message, in order.
 * The eager limit within a node is the backend's: 8 KiB + 32 with MPICH
 * (messages up to 8 224 bytes travel with their envelope), 2 KiB + 64
 * with Open MPI; above it, up to 16 KiB, a rendezvous's data travels in
 * pieces of 8 KiB (MPICH) or 4 032 bytes (Open MPI) (docs/net.md,
 * "Point-to-point"); the sizes cross all of these.
 */
#include "zt.h"

#include <stdlib.h>
#include <string.h>

/* Sizes of the order stream: around the blocking send's limit (1 KiB
 * envelopes: 996 bytes of data behind an eager envelope's 28-byte
 * header, src/p2p/remote.c), around 64 bytes (the system MPI's inline
 * sends: 92 bytes with MPICH), the eager limits within a node (2 KiB +
 * 64, 8 KiB + 32) and into the rendezvous; 0-3 bytes end an envelope
 * before where a rendezvous's data tag sits. */
static const int sizes[] = { 0,    8,  995,   996,   997, 1000, 2112,  2113,  8,
                             5000, 1, 4096,  8224,  8225,   64, 12000, 16384, 16385,
                             3,    65, 992,   993 };
#define NSIZES ((int)(sizeof(sizes) / sizeof(sizes[0])))
/* Enough that more than 128 pieces are in flight to one process with
 * either backend (src/p2p/remote.c; checked by hand with a print in all
 * four layouts): the stream takes both paths. */
#define ROUNDS 40
#define BIG 16385

static void b_order(int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size, n = ROUNDS * NSIZES;
    char *out = zt_malloc((size_t)n * BIG), *in = zt_malloc(BIG + 16);
    MPI_Request *rq = zt_malloc(sizeof(MPI_Request) * (size_t)n);
    for (int i = 0; i < n; i++) {
        int b = sizes[i % NSIZES];
        zt_fill(out + (size_t)i * BIG, (size_t)b, rank, i);
        ZT_OK(MPI_Isend(out + (size_t)i * BIG, b, MPI_BYTE, right, 5, MPI_COMM_WORLD, &rq[i]));
    }
    for (int i = 0; i < n; i++) {
        MPI_Status st;
        int b = sizes[i % NSIZES];
        ZT_OK(MPI_Recv(in, BIG + 16, MPI_BYTE, left, 5, MPI_COMM_WORLD, &st));
        ZT_CHECK_STATUS(st, left, 5, b);
        ZT_CHECK_PAYLOAD(in, (size_t)b, left, i);
    }
    ZT_OK(MPI_Waitall(n, rq, ZT_STATUSES_IGNORE));
    free(rq);
    free(in);
    free(out);
}

/* Sizes of the mixed stream: 484 bytes of data make a 512-byte envelope,
 * the largest a blocking send builds on its stack (src/p2p/remote.c,
 * SEND_NOW_STACK); 228/229 and 256 around Open MPI's 256-byte inline send
 * with the header. */
static const int msizes[] = { 0, 8, 483, 484, 485, 486, 228, 229, 256, 995, 996, 997, 1 };
#define NMSIZES ((int)(sizeof(msizes) / sizeof(msizes[0])))
/* The non-contiguous message of each round: VEC_N bytes, every other one
 * of a buffer of 2 * VEC_N. */
#define VEC_N 100

static void b_mixed(int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int per = NMSIZES + 1, n = ROUNDS * per;
    char *out = zt_malloc((size_t)n * 1024), *in = zt_malloc(1024 + 16);
    char *spread = zt_malloc(2 * VEC_N);
    MPI_Request *rq = zt_malloc(sizeof(MPI_Request) * (size_t)n);
    MPI_Datatype vec;
    ZT_OK(MPI_Type_vector(VEC_N, 1, 2, MPI_BYTE, &vec));
    ZT_OK(MPI_Type_commit(&vec));
    for (int i = 0; i < n; i++) {
        char *p = out + (size_t)i * 1024;
        rq[i] = MPI_REQUEST_NULL;
        if (i % per == NMSIZES) { /* the round's non-contiguous message */
            zt_fill(p, VEC_N, rank, i);
            for (int k = 0; k < VEC_N; k++)
                spread[2 * k] = p[k];
            ZT_OK(MPI_Send(spread, 1, vec, right, 5, MPI_COMM_WORLD));
            continue;
        }
        int b = msizes[i % per];
        zt_fill(p, (size_t)b, rank, i);
        if (i % 2 == 0)
            ZT_OK(MPI_Send(p, b, MPI_BYTE, right, 5, MPI_COMM_WORLD));
        else
            ZT_OK(MPI_Isend(p, b, MPI_BYTE, right, 5, MPI_COMM_WORLD, &rq[i]));
    }
    for (int i = 0; i < n; i++) {
        MPI_Status st;
        int b = i % per == NMSIZES ? VEC_N : msizes[i % per];
        ZT_OK(MPI_Recv(in, 1024 + 16, MPI_BYTE, left, 5, MPI_COMM_WORLD, &st));
        ZT_CHECK_STATUS(st, left, 5, b);
        ZT_CHECK_PAYLOAD(in, (size_t)b, left, i);
    }
    ZT_OK(MPI_Waitall(n, rq, ZT_STATUSES_IGNORE));
    ZT_OK(MPI_Type_free(&vec));
    free(rq);
    free(spread);
    free(in);
    free(out);
}

#define PER_SENDER 200

/* Sizes of the MPI_ANY_SOURCE stream, in ints: eager below both limits,
 * eager with MPICH only (4 096 and 8 224 bytes), rendezvous. */
static const int anysizes[] = { 2, 1024, 2056, 2057, 3000 };
#define NANY ((int)(sizeof(anysizes) / sizeof(anysizes[0])))

static void b_anysrc(int rank)
{
    int *msg = zt_malloc(3000 * sizeof(int));
    if (rank == 1 || rank == 2) {
        for (int i = 0; i < PER_SENDER; i++) {
            int n = anysizes[(i + rank) % NANY];
            for (int k = 0; k < n; k++)
                msg[k] = rank * 1000000 + i + k;
            ZT_OK(MPI_Send(msg, n, MPI_INT, 0, 10, MPI_COMM_WORLD));
        }
    } else if (rank == 0) {
        int next[3] = { 0, 0, 0 };
        for (int i = 0; i < 2 * PER_SENDER; i++) {
            MPI_Status st;
            int n = -1;
            ZT_OK(MPI_Recv(msg, 3000, MPI_INT, MPI_ANY_SOURCE, i % 2 ? MPI_ANY_TAG : 10,
                           MPI_COMM_WORLD, &st));
            int s = st.MPI_SOURCE;
            ZT_CHECK(s == 1 || s == 2, "message from rank %d", s);
            MPI_Get_count(&st, MPI_INT, &n);
            ZT_EQ(n, anysizes[(next[s] + s) % NANY], "size (non-overtaking)");
            for (int k = 0; k < n; k++)
                ZT_EQ(msg[k], s * 1000000 + next[s] + k, "sender and sequence number");
            ZT_EQ(st.MPI_TAG, 10, "tag");
            next[s]++;
        }
        ZT_EQ(next[1], PER_SENDER, "messages from rank 1");
        ZT_EQ(next[2], PER_SENDER, "messages from rank 2");
    }
    free(msg);
}

/* The message after the cancelled receive: eager within a node with
 * MPICH, a rendezvous with Open MPI. */
#define CANCEL_N 2000

static void b_cancel(int rank)
{
    int *big = zt_malloc(CANCEL_N * sizeof(int));
    if (rank == 0) {
        int v = -1, cancelled = 0;
        MPI_Request r;
        MPI_Status st;
        ZT_OK(MPI_Irecv(&v, 1, MPI_INT, 1, 77, MPI_COMM_WORLD, &r));
        ZT_OK(MPI_Cancel(&r));
        ZT_OK(MPI_Wait(&r, &st));
        ZT_OK(MPI_Test_cancelled(&st, &cancelled));
        ZT_CHECK(cancelled, "a receive that nothing matched was not cancelled");
        /* Only now may rank 1 send the message of that tag. */
        ZT_OK(MPI_Send(&cancelled, 1, MPI_INT, 1, 78, MPI_COMM_WORLD));
        ZT_OK(MPI_Recv(big, CANCEL_N, MPI_INT, 1, 77, MPI_COMM_WORLD, &st));
        for (int k = 0; k < CANCEL_N; k++)
            ZT_EQ(big[k], 4242 + k, "the message after the cancelled receive");
        ZT_EQ(v, -1, "the cancelled receive's buffer");
    } else if (rank == 1) {
        int go = 0;
        for (int k = 0; k < CANCEL_N; k++)
            big[k] = 4242 + k;
        ZT_OK(MPI_Recv(&go, 1, MPI_INT, 0, 78, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        ZT_OK(MPI_Send(big, CANCEL_N, MPI_INT, 0, 77, MPI_COMM_WORLD));
    }
    free(big);
}

static void b_probe(int rank)
{
    static const int psizes[] = { 8, 1000, 3000, 8000, 12000 };
    enum { NP = 5, ROOM = 12000 };
    char *buf = zt_malloc(ROOM);
    if (rank == 1) {
        for (int round = 0; round < 3; round++)
            for (int i = 0; i < NP; i++) {
                zt_fill(buf, (size_t)psizes[i], rank, round * NP + i);
                ZT_OK(MPI_Send(buf, psizes[i], MPI_BYTE, 0, 30 + i, MPI_COMM_WORLD));
            }
    } else if (rank == 0) {
        for (int round = 0; round < 3; round++)
            for (int i = 0; i < NP; i++) {
                MPI_Status st;
                MPI_Message m;
                int n = -1, flag = 0;
                if (round == 0) {
                    ZT_OK(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                } else if (round == 1) {
                    while (!flag)
                        ZT_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag,
                                         &st));
                } else {
                    ZT_OK(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &m, &st));
                }
                ZT_CHECK_STATUS(st, 1, 30 + i, psizes[i]);
                MPI_Get_count(&st, MPI_BYTE, &n);
                memset(buf, 0, ROOM);
                if (round == 2)
                    ZT_OK(MPI_Mrecv(buf, n, MPI_BYTE, &m, &st));
                else
                    ZT_OK(MPI_Recv(buf, n, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
                                   &st));
                ZT_CHECK_STATUS(st, 1, 30 + i, psizes[i]);
                ZT_CHECK_PAYLOAD(buf, (size_t)psizes[i], 1, round * NP + i);
            }
    }
    free(buf);
}

/* Sizes of the truncation test: a few bytes and both sides of 484 (sent
 * without a request, on the stack), 64 bytes (MPICH's inline sends), both
 * sides of the blocking send's limit (996 bytes of data) and of both
 * eager limits, data in pieces and not. */
static const int tsizes[] = { 1,    8,    64,   100,  484,   485,   996,  997,
                              3000, 8000, 8224, 8225, 12000, 16384, 16385 };
#define NT ((int)(sizeof(tsizes) / sizeof(tsizes[0])))

static void b_trunc(int rank)
{
    enum { ROOM = 16385 };
    char *buf = zt_malloc(ROOM);
    if (rank == 1) {
        for (int i = 0; i < 2 * NT; i++) {
            int b = tsizes[i / 2];
            zt_fill(buf, (size_t)b, rank, i);
            ZT_OK(MPI_Send(buf, b, MPI_BYTE, 0, 40, MPI_COMM_WORLD));
        }
    } else if (rank == 0) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        for (int i = 0; i < 2 * NT; i++) {
            int b = tsizes[i / 2], cls = -1, n = -1;
            MPI_Status st;
            memset(buf, 0, ROOM);
            if (i % 2 == 0) {
                /* One byte too small: the error, and the bytes that fit. */
                int rc = MPI_Recv(buf, b - 1, MPI_BYTE, 1, 40, MPI_COMM_WORLD, &st);
                MPI_Error_class(rc, &cls);
                ZT_EQ(cls, MPI_ERR_TRUNCATE, "a receive one byte too small");
                ZT_CHECK_PAYLOAD(buf, (size_t)b - 1, 1, i);
            } else {
                ZT_OK(MPI_Recv(buf, ROOM, MPI_BYTE, MPI_ANY_SOURCE, 40, MPI_COMM_WORLD, &st));
                MPI_Get_count(&st, MPI_BYTE, &n);
                ZT_EQ(n, b, "the message after a truncated one");
                ZT_CHECK_PAYLOAD(buf, (size_t)b, 1, i);
            }
        }
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }
    free(buf);
}

/* Sizes of the synchronous sends: pieces with both backends (12 000,
 * 16 384), pieces with Open MPI only (4 096), one message (20 000). */
static const int ssizes[] = { 4096, 12000, 16384, 20000 };
#define NS ((int)(sizeof(ssizes) / sizeof(ssizes[0])))
#define SSEND_TESTS 2000

static void b_ssend(int rank)
{
    char *buf = zt_malloc(20000);
    for (int i = 0; i < NS; i++) {
        int b = ssizes[i], go = 1;
        if (rank == 1) {
            MPI_Request r;
            int flag = 0;
            zt_fill(buf, (size_t)b, rank, i);
            ZT_OK(MPI_Issend(buf, b, MPI_BYTE, 0, 50, MPI_COMM_WORLD, &r));
            for (int t = 0; t < SSEND_TESTS && !flag; t++)
                ZT_OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
            ZT_CHECK(!flag, "MPI_Issend of %d bytes completed before its receive existed", b);
            ZT_OK(MPI_Send(&go, 1, MPI_INT, 0, 51, MPI_COMM_WORLD));
            ZT_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        } else if (rank == 0) {
            MPI_Status st;
            ZT_OK(MPI_Recv(&go, 1, MPI_INT, 1, 51, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            memset(buf, 0, 20000);
            ZT_OK(MPI_Recv(buf, 20000, MPI_BYTE, 1, 50, MPI_COMM_WORLD, &st));
            ZT_CHECK_STATUS(st, 1, 50, b);
            ZT_CHECK_PAYLOAD(buf, (size_t)b, 1, i);
        }
    }
    free(buf);
}

/* Calls of count_errors by each rank and the last code it saw (a rank's
 * entry is written by that rank only: the ranks of a process may share
 * the program's globals). */
#define MAX_RANKS 64
static int eh_calls_of[MAX_RANKS], eh_code_of[MAX_RANKS];
#define eh_calls (eh_calls_of[zt_rank()])
#define eh_code (eh_code_of[zt_rank()])

static void count_errors(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    eh_calls++;
    eh_code = *code;
}

/* rc is one error, of class cls, raised by `fn` through the handler. */
static void check_error(int rc, int cls, const char *fn, int calls_before, const char *what)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    ZT_EQ(zt_err_class(rc), cls, what);
    ZT_EQ(eh_calls, calls_before + 1, "calls of the error handler");
    ZT_EQ(eh_code, rc, "the code the error handler saw");
    ZT_OK(MPI_Error_string(rc, text, &len));
    ZT_CHECK(strstr(text, fn) != NULL, "%s: the message \"%s\" names %s", what, text, fn);
}

typedef int send_fn(const void *, int, MPI_Datatype, int, int, MPI_Comm);

static void b_errors(int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    static send_fn *const fns[] = { MPI_Send, MPI_Rsend };
    static const char *const names[] = { "MPI_Send", "MPI_Rsend" };
    int v[2] = { 0, 0 }, in[2] = { -1, -1 };
    MPI_Comm c;
    MPI_Errhandler eh;
    ZT_CHECK(size <= MAX_RANKS, "at most %d ranks", MAX_RANKS);
    ZT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    ZT_OK(MPI_Comm_create_errhandler(count_errors, &eh));
    ZT_OK(MPI_Comm_set_errhandler(c, eh));
    for (int f = 0; f < 2; f++) {
        int n = eh_calls;
        check_error(fns[f](v, 1, MPI_INT, right, -5, c), MPI_ERR_TAG, names[f], n, "bad tag");
        n = eh_calls;
        check_error(fns[f](v, -1, MPI_INT, right, 1, c), MPI_ERR_COUNT, names[f], n, "count -1");
        n = eh_calls;
        check_error(fns[f](v, 1, MPI_INT, size, 1, c), MPI_ERR_RANK, names[f], n, "rank = size");
        n = eh_calls;
        check_error(fns[f](v, 1, MPI_DATATYPE_NULL, right, 1, c), MPI_ERR_TYPE, names[f], n,
                    "MPI_DATATYPE_NULL");
        n = eh_calls;
        check_error(fns[f](NULL, 2, MPI_INT, right, 1, c), MPI_ERR_BUFFER, names[f], n,
                    "NULL buffer");
    }
    /* An invalid communicator's error goes to MPI_COMM_SELF's handler. */
    ZT_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    ZT_EQ(zt_err_class(MPI_Send(v, 1, MPI_INT, right, 1, MPI_COMM_NULL)), MPI_ERR_COMM,
          "MPI_COMM_NULL");
    ZT_EQ(eh_calls, 10, "calls of the error handler");
    /* Nothing went: the good messages are the first to arrive.  Every
     * rank posts its receives first, so that MPI_Rsend finds them. */
    MPI_Request rq[2];
    for (int f = 0; f < 2; f++)
        ZT_OK(MPI_Irecv(&in[f], 1, MPI_INT, left, 1, c, &rq[f]));
    ZT_OK(MPI_Barrier(c));
    for (int f = 0; f < 2; f++) {
        v[f] = 10 * rank + f;
        ZT_OK(fns[f](&v[f], 1, MPI_INT, right, 1, c));
    }
    ZT_OK(MPI_Waitall(2, rq, ZT_STATUSES_IGNORE));
    ZT_EQ(in[0], 10 * left, "the good message of MPI_Send");
    ZT_EQ(in[1], 10 * left + 1, "the good message of MPI_Rsend");
    ZT_EQ(eh_calls, 10, "calls of the error handler");
    ZT_OK(MPI_Comm_free(&c));
    ZT_OK(MPI_Errhandler_free(&eh));
}

/* Sizes of the ready-mode stream: sent without a request up to 484 bytes,
 * on the stack's limit, and beyond to the blocking send's limit. */
static const int rsizes[] = { 0, 8, 4, 484, 485, 100, 996, 997, 1, 64 };
#define NRS ((int)(sizeof(rsizes) / sizeof(rsizes[0])))

static void b_rsend(int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size, n = ROUNDS * NRS;
    char *out = zt_malloc((size_t)n * 1024), *in = zt_malloc((size_t)n * 1024);
    MPI_Request *rr = zt_malloc(sizeof(MPI_Request) * (size_t)n);
    MPI_Request *sr = zt_malloc(sizeof(MPI_Request) * (size_t)n);
    int go = 0;
    for (int i = 0; i < n; i++)
        ZT_OK(MPI_Irecv(in + (size_t)i * 1024, 1024, MPI_BYTE, left, 6, MPI_COMM_WORLD, &rr[i]));
    /* The receives are posted: the left neighbour may send in ready mode. */
    ZT_OK(MPI_Sendrecv(&go, 1, MPI_INT, left, 7, &go, 1, MPI_INT, right, 7, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE));
    for (int i = 0; i < n; i++) {
        char *p = out + (size_t)i * 1024;
        int b = rsizes[i % NRS];
        zt_fill(p, (size_t)b, rank, i);
        sr[i] = MPI_REQUEST_NULL;
        if (i % 3 == 0)
            ZT_OK(MPI_Rsend(p, b, MPI_BYTE, right, 6, MPI_COMM_WORLD));
        else if (i % 3 == 1)
            ZT_OK(MPI_Isend(p, b, MPI_BYTE, right, 6, MPI_COMM_WORLD, &sr[i]));
        else
            ZT_OK(MPI_Irsend(p, b, MPI_BYTE, right, 6, MPI_COMM_WORLD, &sr[i]));
    }
    for (int i = 0; i < n; i++) {
        MPI_Status st;
        ZT_OK(MPI_Wait(&rr[i], &st));
        ZT_CHECK_STATUS(st, left, 6, rsizes[i % NRS]);
        ZT_CHECK_PAYLOAD(in + (size_t)i * 1024, (size_t)rsizes[i % NRS], left, i);
    }
    ZT_OK(MPI_Waitall(n, sr, ZT_STATUSES_IGNORE));
    free(sr);
    free(rr);
    free(in);
    free(out);
}

int main(int argc, char **argv)
{
    int rank, size;
    ZT_OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ZT_CHECK(argc > 1 && size >= 3,
             "usage: net_p2p_small order|mixed|anysrc|cancel|probe|trunc|ssend|errors|rsend, 3 "
             "ranks or more");
    if (!strcmp(argv[1], "order"))
        b_order(rank, size);
    else if (!strcmp(argv[1], "mixed"))
        b_mixed(rank, size);
    else if (!strcmp(argv[1], "anysrc"))
        b_anysrc(rank);
    else if (!strcmp(argv[1], "cancel"))
        b_cancel(rank);
    else if (!strcmp(argv[1], "probe"))
        b_probe(rank);
    else if (!strcmp(argv[1], "trunc"))
        b_trunc(rank);
    else if (!strcmp(argv[1], "ssend"))
        b_ssend(rank);
    else if (!strcmp(argv[1], "errors"))
        b_errors(rank, size);
    else if (!strcmp(argv[1], "rsend"))
        b_rsend(rank, size);
    else
        ZT_CHECK(0, "unknown behaviour %s", argv[1]);
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Finalize();
    return 0;
}
