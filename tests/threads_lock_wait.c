/*
 * threads_lock_wait.c: a rank waits for a thread it created in a loop
 * that takes and drops a pthread mutex (as MPICH's test barrier does),
 * without calling MPI, while the thread waits in MPI_Recv for a message
 * that another rank sends only once it has run again.  That other rank
 * may be ready on the waiting rank's worker (a loaded host's wake-ups move
 * it there; ZMPI_WAKE_MIGRATE=always does so every time): an idle worker
 * must get it, or the job hangs (MPICH's threads/pt2pt/threads did, its
 * blocked rank's ready peer queued on the spinning rank's worker while
 * the other worker slept).
 *
 * Ranks pair up (0-1, 2-3, ...).  In each round the odd rank starts a
 * thread that receives from the even rank and then sets a flag under a
 * mutex; the odd rank sends "ready" to the even rank and polls the flag
 * under the mutex; the even rank, blocked in MPI_Recv for "ready" until
 * then, sends the thread's message.  A round that does not end within
 * ZT_LOCK_WAIT_S seconds fails the test.
 *
 * Usage: zt_threads_lock_wait [rounds (20)]
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "zt.h"

#include <pthread.h>
#include <time.h>

#define ZT_LOCK_WAIT_S 20

typedef struct {
    pthread_mutex_t lock;
    int done;  /* under lock */
    int peer, round, got;
} waiter_t;

static void *receiver(void *arg)
{
    waiter_t *w = arg;
    int v = -1;
    ZT_OK(MPI_Recv(&v, 1, MPI_INT, w->peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    pthread_mutex_lock(&w->lock);
    w->got = v;
    w->done = 1;
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

/* The odd rank's round: its thread receives while it polls under the lock. */
static void odd_round(waiter_t *w)
{
    pthread_t th;
    w->done = 0;
    w->got = -1;
    ZT_CHECK(pthread_create(&th, NULL, receiver, w) == 0, "pthread_create");
    int ready = w->round;
    ZT_OK(MPI_Send(&ready, 1, MPI_INT, w->peer, 0, MPI_COMM_WORLD));
    double end = zt_now_s() + ZT_LOCK_WAIT_S;
    int done = 0;
    while (!done) {
        pthread_mutex_lock(&w->lock);
        done = w->done;
        pthread_mutex_unlock(&w->lock);
        ZT_CHECK(done || zt_now_s() < end,
                 "round %d: the thread's message never came in %d s: the rank that sends "
                 "it never ran while this one polled a mutex", w->round, ZT_LOCK_WAIT_S);
    }
    ZT_CHECK(pthread_join(th, NULL) == 0, "pthread_join");
    ZT_EQ(w->got, w->round * 7 + 1, "the thread's message");
}

int main(int argc, char **argv)
{
    int rank, size;
    zt_init_multiple_pairs(&argc, &argv, &rank, &size);
    int rounds = argc > 1 ? atoi(argv[1]) : 20;
    waiter_t w = { .peer = rank ^ 1 };
    pthread_mutex_init(&w.lock, NULL);
    for (int r = 0; r < rounds; r++) {
        w.round = r;
        if (rank % 2) {
            odd_round(&w);
        } else {
            int ready = -1, v = r * 7 + 1;
            ZT_OK(MPI_Recv(&ready, 1, MPI_INT, w.peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            ZT_EQ(ready, r, "the ready message");
            ZT_OK(MPI_Send(&v, 1, MPI_INT, w.peer, 1, MPI_COMM_WORLD));
        }
    }
    pthread_mutex_destroy(&w.lock);
    ZT_OK(MPI_Finalize());
    if (rank == 0)
        printf("threads_lock_wait: OK on %d ranks, %d rounds\n", size, rounds);
    return 0;
}
