/*
 * threads_ring_wait.c: a thread a rank created waits in MPI_Recv for a
 * small message while the rank's own code, after a stream of receives
 * that made it ask senders for rings (src/p2p/ring.c), waits for that
 * thread without calling MPI.  A sender on another worker may leave a
 * small message in a ring only while someone will drain it: here only the
 * waiting thread could, so the message must reach it anyway.
 *
 * Two ranks, one per worker (2x2).  In each round rank 1's thread sends
 * "ready" to rank 0 and receives one message of `bytes` from it; rank 0
 * then streams STREAM small messages to rank 1's own code, which receives
 * them with non-blocking receives (it mostly receives: rings on), sends
 * "go", and polls the thread's done flag under a mutex; rank 0 sends the thread's
 * message after "go".  A round that does not end within ZT_RING_WAIT_S
 * seconds fails the test.
 *
 * Usage: zt_threads_ring_wait [rounds (20)] [bytes (8)]
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "zt.h"

#include <pthread.h>
#include <time.h>

#define ZT_RING_WAIT_S 20
#define STREAM 256
#define WINDOW 32
#define TAG_READY 1
#define TAG_STREAM 2
#define TAG_GO 3
#define TAG_THREAD 4

typedef struct {
    int round;
    size_t bytes;
    unsigned char *buf;
    pthread_mutex_t lock;
    int done; /* under lock */
} waiter_t;

/* Whether the thread is done.  Polled under a mutex, not as a bare flag:
 * a rank that spins without any call holds its worker, and the sender
 * may have been moved onto that worker (a loaded host's hand-offs). */
static int is_done(waiter_t *w)
{
    pthread_mutex_lock(&w->lock);
    int d = w->done;
    pthread_mutex_unlock(&w->lock);
    return d;
}

static void *receiver(void *arg)
{
    waiter_t *w = arg;
    int ready = w->round;
    ZT_OK(MPI_Send(&ready, 1, MPI_INT, 0, TAG_READY, MPI_COMM_WORLD));
    ZT_OK(MPI_Recv(w->buf, (int)w->bytes, MPI_BYTE, 0, TAG_THREAD, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE));
    pthread_mutex_lock(&w->lock);
    w->done = 1;
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

/* Rank 1: its thread receives while it takes the stream, then it polls
 * the thread's flag without calling MPI. */
static void receiving_round(waiter_t *w)
{
    pthread_t th;
    int v[WINDOW];
    MPI_Request q[WINDOW];
    w->done = 0;
    memset(w->buf, 0, w->bytes);
    ZT_CHECK(pthread_create(&th, NULL, receiver, w) == 0, "pthread_create");
    for (int i = 0; i < STREAM; i += WINDOW) {
        for (int k = 0; k < WINDOW; k++)
            ZT_OK(MPI_Irecv(&v[k], 1, MPI_INT, 0, TAG_STREAM, MPI_COMM_WORLD, &q[k]));
        ZT_OK(MPI_Waitall(WINDOW, q, MPI_STATUSES_IGNORE));
        for (int k = 0; k < WINDOW; k++)
            ZT_EQ(v[k], w->round * STREAM + i + k, "a stream message");
    }
    int go = w->round;
    ZT_OK(MPI_Send(&go, 1, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD));
    double end = zt_now_s() + ZT_RING_WAIT_S;
    while (!is_done(w))
        ZT_CHECK(zt_now_s() < end, "round %d: the thread's message never came in %d s while "
                 "this rank did not call MPI", w->round, ZT_RING_WAIT_S);
    ZT_CHECK(pthread_join(th, NULL) == 0, "pthread_join");
    ZT_CHECK_PAYLOAD(w->buf, w->bytes, 0, w->round);
}

/* Rank 0: "ready" from the thread, the stream, "go", the thread's message. */
static void sending_round(waiter_t *w)
{
    int ready = -1, go = -1, v[WINDOW];
    MPI_Request q[WINDOW];
    ZT_OK(MPI_Recv(&ready, 1, MPI_INT, 1, TAG_READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    ZT_EQ(ready, w->round, "the ready message");
    for (int i = 0; i < STREAM; i += WINDOW) {
        for (int k = 0; k < WINDOW; k++) {
            v[k] = w->round * STREAM + i + k;
            ZT_OK(MPI_Isend(&v[k], 1, MPI_INT, 1, TAG_STREAM, MPI_COMM_WORLD, &q[k]));
        }
        ZT_OK(MPI_Waitall(WINDOW, q, MPI_STATUSES_IGNORE));
    }
    ZT_OK(MPI_Recv(&go, 1, MPI_INT, 1, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    ZT_EQ(go, w->round, "the go message");
    zt_fill(w->buf, w->bytes, 0, w->round);
    ZT_OK(MPI_Send(w->buf, (int)w->bytes, MPI_BYTE, 1, TAG_THREAD, MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    int rank, size;
    zt_init_multiple_pairs(&argc, &argv, &rank, &size);
    ZT_CHECK(size == 2, "two ranks, not %d", size);
    int rounds = argc > 1 ? atoi(argv[1]) : 20;
    waiter_t w = { .bytes = argc > 2 ? (size_t)atol(argv[2]) : 8 };
    pthread_mutex_init(&w.lock, NULL);
    w.buf = zt_malloc(w.bytes);
    for (int r = 0; r < rounds; r++) {
        w.round = r;
        if (rank == 1)
            receiving_round(&w);
        else
            sending_round(&w);
    }
    free(w.buf);
    pthread_mutex_destroy(&w.lock);
    ZT_OK(MPI_Finalize());
    if (rank == 0)
        printf("threads_ring_wait: OK, %d rounds of %zu bytes\n", rounds, w.bytes);
    return 0;
}
