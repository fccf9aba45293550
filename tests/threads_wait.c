/*
 * threads_wait.c: requests and blocking across the threads of a rank at
 * MPI_THREAD_MULTIPLE (tests/threads.cmake).
 *
 * 1. Handed-over requests: the main thread posts receives and sends, a
 *    thread it creates completes them with MPI_Waitany, MPI_Waitsome,
 *    MPI_Testany and MPI_Wait, and the other way round.
 * 2. Waits racing: two threads of a rank each wait (Waitany / Waitsome) on
 *    their own half of a set of receives that the other ranks' threads
 *    complete in random order.
 * 3. Blocked thread, working rank: a thread blocks in MPI_Recv for a
 *    message that its own rank's main thread (a ULT) sends only after
 *    computing for a while, and another for one that the next rank sends
 *    after computing; meanwhile every rank must keep running (with one
 *    worker, all ranks share it, so a thread that blocked the worker would
 *    stop them all).
 * 4. A request made by one thread and freed (MPI_Request_free) while
 *    pending by another, then a barrier; and MPI_Cancel of a receive
 *    posted by another thread.
 */
#include "zt.h"

#include <pthread.h>

#define N 64

typedef struct {
    int rank, size;
    MPI_Request reqs[N];
    int bufs[N];
    int mode;
    int got;
} hand_t;

static double now(void)
{
    return MPI_Wtime();
}

static unsigned next_rand(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 8;
}

/* Busy work for `secs` seconds, without MPI. */
static double compute(double secs)
{
    double x = 0, end = now() + secs;
    while (now() < end)
        for (int i = 0; i < 1000; i++)
            x += 1.0 / (i + 1.0);
    return x;
}

/* 1: complete the receives in reqs (sources: every rank, tag 100 + k). */
static void *complete_recvs(void *arg)
{
    hand_t *h = arg;
    int left = N, idx, out, idxs[N];
    MPI_Status st, sts[N];
    while (left > 0) {
        switch (h->mode++ % 3) {
        case 0:
            MPI_Waitany(N, h->reqs, &idx, &st);
            ZT_CHECK(idx != MPI_UNDEFINED, "Waitany found no request");
            ZT_EQ(h->bufs[idx], 1000 * st.MPI_SOURCE + idx, "payload of a handed-over receive");
            left--;
            break;
        case 1:
            MPI_Waitsome(N, h->reqs, &out, idxs, sts);
            ZT_CHECK(out > 0, "Waitsome returned %d", out);
            for (int i = 0; i < out; i++)
                ZT_EQ(h->bufs[idxs[i]], 1000 * sts[i].MPI_SOURCE + idxs[i],
                      "payload of a handed-over receive");
            left -= out;
            break;
        default: {
            int flag = 0;
            MPI_Testany(N, h->reqs, &idx, &flag, &st);
            if (flag && idx != MPI_UNDEFINED) {
                ZT_EQ(h->bufs[idx], 1000 * st.MPI_SOURCE + idx, "payload");
                left--;
            }
            break;
        }
        }
    }
    for (int k = 0; k < N; k++)
        ZT_CHECK(h->reqs[k] == MPI_REQUEST_NULL, "request %d left", k);
    return NULL;
}

/* 1, the other way: this thread posts, the main thread completes. */
static void *post_sends(void *arg)
{
    hand_t *h = arg;
    for (int k = 0; k < N; k++) {
        h->bufs[k] = 1000 * h->rank + k;
        MPI_Isend(&h->bufs[k], 1, MPI_INT, (h->rank + k) % h->size, 200 + k, MPI_COMM_WORLD,
                  &h->reqs[k]);
    }
    return NULL;
}

static void test_handover(int rank, int size)
{
    hand_t h = { rank, size, { 0 }, { 0 }, 0, 0 };
    pthread_t th;
    /* Receives of the messages sent below, one per k, from rank - k. */
    for (int k = 0; k < N; k++)
        MPI_Irecv(&h.bufs[k], 1, MPI_INT, (rank - k % size + size) % size, 100 + k,
                  MPI_COMM_WORLD, &h.reqs[k]);
    ZT_EQ(pthread_create(&th, NULL, complete_recvs, &h), 0, "pthread_create");
    int vals[N];
    MPI_Request sreq[N];
    for (int k = 0; k < N; k++) {
        vals[k] = 1000 * rank + k;
        MPI_Isend(&vals[k], 1, MPI_INT, (rank + k % size) % size, 100 + k, MPI_COMM_WORLD,
                  &sreq[k]);
    }
    MPI_Waitall(N, sreq, MPI_STATUSES_IGNORE);
    pthread_join(th, NULL);

    /* The other way: a thread posts sends, the main thread completes. */
    hand_t s = { rank, size, { 0 }, { 0 }, 0, 0 };
    ZT_EQ(pthread_create(&th, NULL, post_sends, &s), 0, "pthread_create");
    pthread_join(th, NULL);
    int in[N];
    MPI_Request rreq[N];
    for (int k = 0; k < N; k++)
        MPI_Irecv(&in[k], 1, MPI_INT, (rank - k % size + size) % size, 200 + k, MPI_COMM_WORLD,
                  &rreq[k]);
    MPI_Waitall(N, s.reqs, MPI_STATUSES_IGNORE);
    MPI_Waitall(N, rreq, MPI_STATUSES_IGNORE);
    for (int k = 0; k < N; k++)
        ZT_EQ(in[k], 1000 * ((rank - k % size + size) % size) + k, "payload of a handed send");
}

/* 2: two threads of a rank wait on halves of one set of receives. */
typedef struct {
    MPI_Request *reqs;
    int *bufs;
    int n, any;
} half_t;

static void *wait_half(void *arg)
{
    half_t *h = arg;
    int left = h->n;
    while (left > 0) {
        if (h->any) {
            int idx;
            MPI_Status st;
            MPI_Waitany(h->n, h->reqs, &idx, &st);
            ZT_EQ(h->bufs[idx], st.MPI_TAG * 7 + st.MPI_SOURCE, "payload (Waitany half)");
            left--;
        } else {
            int out, *idx = malloc(sizeof(int) * (size_t)h->n);
            MPI_Status *st = malloc(sizeof(MPI_Status) * (size_t)h->n);
            ZT_CHECK(idx && st, "out of memory");
            MPI_Waitsome(h->n, h->reqs, &out, idx, st);
            for (int i = 0; i < out; i++)
                ZT_EQ(h->bufs[idx[i]], st[i].MPI_TAG * 7 + st[i].MPI_SOURCE,
                      "payload (Waitsome half)");
            left -= out;
            free(idx);
            free(st);
        }
    }
    return NULL;
}

typedef struct {
    int rank, size, tag0;
    unsigned seed;
} sender_t;

/* Messages per pair of ranks: a wait for any of n requests costs O(n), so
 * large jobs send fewer. */
static int ntags(int size)
{
    return size <= 8 ? 32 : 256 / size > 2 ? 256 / size : 2;
}

/* Sends one int to every rank for tags tag0 .. tag0+ntags-1, in a shuffled
 * order, with small pauses. */
static void *send_shuffled(void *arg)
{
    sender_t *s = arg;
    int n = ntags(s->size) * s->size, *order = malloc(sizeof(int) * (size_t)n);
    ZT_CHECK(order != NULL, "out of memory");
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(next_rand(&s->seed) % (unsigned)(i + 1)), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int i = 0; i < n; i++) {
        int dest = order[i] % s->size, tag = s->tag0 + order[i] / s->size;
        int v = tag * 7 + s->rank;
        MPI_Send(&v, 1, MPI_INT, dest, tag, MPI_COMM_WORLD);
        if (i % 16 == 0)
            compute(0.0002);
    }
    free(order);
    return NULL;
}

static void test_halves(int rank, int size)
{
    int n = ntags(size) * size;
    MPI_Request *reqs = malloc(sizeof(*reqs) * (size_t)n);
    int *bufs = malloc(sizeof(int) * (size_t)n);
    ZT_CHECK(reqs && bufs, "out of memory");
    for (int i = 0; i < n; i++)
        MPI_Irecv(&bufs[i], 1, MPI_INT, i % size, 1000 + i / size, MPI_COMM_WORLD, &reqs[i]);
    MPI_Barrier(MPI_COMM_WORLD);
    half_t a = { reqs, bufs, n / 2, 1 }, b = { reqs + n / 2, bufs + n / 2, n - n / 2, 0 };
    sender_t s = { rank, size, 1000, 12345u + (unsigned)rank };
    pthread_t ta, tb, ts;
    ZT_EQ(pthread_create(&ta, NULL, wait_half, &a), 0, "pthread_create");
    ZT_EQ(pthread_create(&tb, NULL, wait_half, &b), 0, "pthread_create");
    ZT_EQ(pthread_create(&ts, NULL, send_shuffled, &s), 0, "pthread_create");
    pthread_join(ts, NULL);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    free(reqs);
    free(bufs);
}

/* 3: blocked threads while the ranks compute. */
typedef struct {
    int src, tag, expect;
    double waited;
} blocked_t;

static void *recv_blocked(void *arg)
{
    blocked_t *b = arg;
    int v = -1;
    double t0 = now();
    MPI_Recv(&v, 1, MPI_INT, b->src, b->tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    b->waited = now() - t0;
    ZT_EQ(v, b->expect, "payload received by a blocked thread");
    return NULL;
}

static void test_blocked(int rank, int size)
{
    int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
    blocked_t own = { rank, 7, 4242 + rank, 0 }, far = { next, 8, 5353 + next, 0 };
    pthread_t t1, t2;
    ZT_EQ(pthread_create(&t1, NULL, recv_blocked, &own), 0, "pthread_create");
    ZT_EQ(pthread_create(&t2, NULL, recv_blocked, &far), 0, "pthread_create");
    /* Every rank must get here and through the barrier while the threads
     * are blocked: a thread that held a worker would stop some ranks. */
    MPI_Barrier(MPI_COMM_WORLD);
    compute(0.05);
    int v = 4242 + rank;
    MPI_Send(&v, 1, MPI_INT, rank, 7, MPI_COMM_WORLD);
    v = 5353 + rank;
    MPI_Send(&v, 1, MPI_INT, prev, 8, MPI_COMM_WORLD);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
}

/* 4: a pending request freed by another thread; a receive cancelled by
 * another thread. */
typedef struct {
    MPI_Request *req;
} reqarg_t;

static void *free_req(void *arg)
{
    MPI_Request_free(((reqarg_t *)arg)->req);
    return NULL;
}

static void *cancel_req(void *arg)
{
    MPI_Cancel(((reqarg_t *)arg)->req);
    return NULL;
}

static void test_free_cancel(int rank, int size)
{
    int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
    int out = 77 + rank, in = -1;
    MPI_Request sr;
    MPI_Isend(&out, 1, MPI_INT, next, 300, MPI_COMM_WORLD, &sr);
    reqarg_t a = { &sr };
    pthread_t th;
    ZT_EQ(pthread_create(&th, NULL, free_req, &a), 0, "pthread_create");
    pthread_join(th, NULL);
    ZT_CHECK(sr == MPI_REQUEST_NULL, "freed request not null");
    MPI_Recv(&in, 1, MPI_INT, prev, 300, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    ZT_EQ(in, 77 + prev, "message of a freed send request");

    MPI_Request rr;
    MPI_Irecv(&in, 1, MPI_INT, MPI_ANY_SOURCE, 301, MPI_COMM_WORLD, &rr);
    a.req = &rr;
    ZT_EQ(pthread_create(&th, NULL, cancel_req, &a), 0, "pthread_create");
    pthread_join(th, NULL);
    MPI_Status st;
    MPI_Wait(&rr, &st);
    int cancelled = 0;
    MPI_Test_cancelled(&st, &cancelled);
    ZT_CHECK(cancelled, "a receive nobody sends to was not cancelled");
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    ZT_EQ(provided, MPI_THREAD_MULTIPLE, "provided");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int reps = argc > 1 ? atoi(argv[1]) : 3;
    int verbose = getenv("ZT_VERBOSE") != NULL;
    for (int r = 0; r < reps; r++) {
        double t0 = MPI_Wtime();
        test_handover(rank, size);
        double t1 = MPI_Wtime();
        test_halves(rank, size);
        double t2 = MPI_Wtime();
        test_blocked(rank, size);
        double t3 = MPI_Wtime();
        test_free_cancel(rank, size);
        double t4 = MPI_Wtime();
        if (verbose && rank == 0)
            printf("handover %.3f halves %.3f blocked %.3f free/cancel %.3f s\n", t1 - t0,
                   t2 - t1, t3 - t2, t4 - t3), fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("threads_wait: %d ranks, %d repetitions: OK\n", size, reps);
    MPI_Finalize();
    return 0;
}
