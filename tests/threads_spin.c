/*
 * threads_spin.c: a thread a rank created sends and receives while the
 * rank's own code spins on a flag without calling MPI, so the rank's
 * worker never gets back to its scheduler.  Across processes with one
 * worker each (tests/threads.cmake), nothing but the waiting thread
 * itself can move the network for it: MPI's progress rule still says its
 * call must complete once the peer's matching call is made.
 *
 * Ranks pair up (0-1, 2-3, ...).  In each round the even rank's thread
 * sends a large and a small message to its partner and then receives one
 * back, while the even rank spins on the thread's done flag; the odd rank
 * receives and answers from its main code.  Every byte is checked.
 *
 * Usage: zt_threads_spin [rounds (3)] [large bytes (1 MiB)]
 */
#include "zt.h"

#include <pthread.h>
#include <stdatomic.h>

typedef struct {
    int peer, rounds;
    size_t bytes;
    atomic_int done;
    int errors;
} spin_t;

static unsigned char pattern(int round, size_t k)
{
    return (unsigned char)(k * 7 + (size_t)round * 13);
}

static void fill(unsigned char *b, size_t n, int round)
{
    for (size_t k = 0; k < n; k++)
        b[k] = pattern(round, k);
}

static int bad(const unsigned char *b, size_t n, int round)
{
    for (size_t k = 0; k < n; k++)
        if (b[k] != pattern(round, k))
            return 1;
    return 0;
}

/* The even rank's thread: one round of send large, send small, receive. */
static void *sender(void *arg)
{
    spin_t *s = arg;
    unsigned char *big = zt_malloc(s->bytes);
    for (int r = 0; r < s->rounds; r++) {
        int small = r, back = -1;
        fill(big, s->bytes, r);
        ZT_OK(MPI_Send(big, (int)s->bytes, MPI_BYTE, s->peer, 1, MPI_COMM_WORLD));
        ZT_OK(MPI_Send(&small, 1, MPI_INT, s->peer, 2, MPI_COMM_WORLD));
        ZT_OK(MPI_Recv(big, (int)s->bytes, MPI_BYTE, s->peer, 3, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE));
        ZT_OK(MPI_Recv(&back, 1, MPI_INT, s->peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        s->errors += bad(big, s->bytes, r + 100) + (back != r + 100);
    }
    free(big);
    atomic_store(&s->done, 1);
    return NULL;
}

/* The odd rank: receive both, answer with a large and a small message. */
static int answer(int peer, int rounds, size_t bytes)
{
    unsigned char *big = zt_malloc(bytes);
    int errors = 0;
    for (int r = 0; r < rounds; r++) {
        int small = -1, back = r + 100;
        ZT_OK(MPI_Recv(big, (int)bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        ZT_OK(MPI_Recv(&small, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        errors += bad(big, bytes, r) + (small != r);
        fill(big, bytes, r + 100);
        ZT_OK(MPI_Send(big, (int)bytes, MPI_BYTE, peer, 3, MPI_COMM_WORLD));
        ZT_OK(MPI_Send(&back, 1, MPI_INT, peer, 4, MPI_COMM_WORLD));
    }
    free(big);
    return errors;
}

int main(int argc, char **argv)
{
    int rank, size;
    zt_init_multiple_pairs(&argc, &argv, &rank, &size);
    spin_t s = { .peer = rank ^ 1, .rounds = argc > 1 ? atoi(argv[1]) : 3,
                 .bytes = argc > 2 ? (size_t)atol(argv[2]) : 1 << 20 };
    int errors;
    if (rank % 2 == 0) {
        pthread_t th;
        ZT_CHECK(pthread_create(&th, NULL, sender, &s) == 0, "pthread_create");
        /* No MPI call until the thread is done: only it can progress. */
        while (!atomic_load(&s.done))
            ;
        ZT_CHECK(pthread_join(th, NULL) == 0, "pthread_join");
        errors = s.errors;
    } else {
        errors = answer(s.peer, s.rounds, s.bytes);
    }
    ZT_CHECK(errors == 0, "rank %d: %d messages differ", rank, errors);
    int all = 0;
    ZT_OK(MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    ZT_OK(MPI_Finalize());
    if (rank == 0)
        printf("threads_spin: OK on %d ranks, %d rounds of %zu bytes\n", size, s.rounds,
               s.bytes);
    return all != 0;
}
