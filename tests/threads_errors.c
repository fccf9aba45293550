/*
 * threads_errors.c: thread levels and threads that may not call MPI
 * (tests/threads.cmake).  The argument picks the case:
 *
 *   serialized  MPI_THREAD_SERIALIZED: threads take turns calling MPI
 *               (one at a time, joined in between); must succeed.
 *   funneled    MPI_THREAD_FUNNELED: only the main thread calls MPI; must
 *               succeed, and Query_thread / Is_thread_main answer from any
 *               thread.
 *   norank      a thread created outside every rank (through the C
 *               library directly, as a library's own thread would be)
 *               calls MPI_Send: fails naming the call.
 *   level       a thread the rank created calls MPI_Barrier at
 *               MPI_THREAD_FUNNELED: fails naming the call and the level.
 *   finalize    a thread calls MPI_Finalize: fails naming the call.
 *   init        a thread the rank created calls MPI_Init: fails.
 *   deadlock    the rank's ULT and a thread it created both wait for
 *               messages nobody sends: reported as a deadlock naming both.
 *   spawn       a thread the rank created calls MPI_Comm_spawn: refused,
 *               saying that only the rank's own thread can start ranks.
 */
#include "zt.h"

#include <dlfcn.h>
#include <pthread.h>

typedef int create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

/* In-tree tests are not privatized: ranks share globals, so each passes
 * its own numbers to its threads. */
typedef struct {
    int rank, size, k;
} turn_t;

static void *turn(void *arg)
{
    turn_t *a = arg;
    int k = a->k, v = a->rank * 100 + k, got = -1;
    int next = (a->rank + 1) % a->size, prev = (a->rank - 1 + a->size) % a->size;
    MPI_Sendrecv(&v, 1, MPI_INT, next, k, &got, 1, MPI_INT, prev, k, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    ZT_EQ(got, prev * 100 + k, "Sendrecv in a serialized thread");
    int flag = -1;
    MPI_Is_thread_main(&flag);
    ZT_EQ(flag, 0, "Is_thread_main in a thread");
    return NULL;
}

static void *ask(void *arg)
{
    int level = -1, flag = -1, init = 0;
    MPI_Query_thread(&level);
    ZT_EQ(level, *(int *)arg, "Query_thread from a thread");
    MPI_Is_thread_main(&flag);
    ZT_EQ(flag, 0, "Is_thread_main from a thread");
    MPI_Initialized(&init);
    ZT_EQ(init, 1, "Initialized from a thread");
    return NULL;
}

static void *send_one(void *arg)
{
    (void)arg;
    int v = 1;
    MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    return NULL;
}

static void *barrier(void *arg)
{
    (void)arg;
    MPI_Barrier(MPI_COMM_WORLD);
    return NULL;
}

static void *finalize(void *arg)
{
    (void)arg;
    MPI_Finalize();
    return NULL;
}

static void *init(void *arg)
{
    (void)arg;
    MPI_Init(NULL, NULL);
    return NULL;
}

static void *spawn(void *arg)
{
    MPI_Comm kids;
    MPI_Comm_spawn((const char *)arg, MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &kids,
                   MPI_ERRCODES_IGNORE);
    return NULL;
}

static void *recv_never(void *arg)
{
    (void)arg;
    int v;
    MPI_Recv(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "serialized";
    pthread_t th;
    int provided = -1;
    if (strcmp(what, "init") == 0) {
        ZT_EQ(pthread_create(&th, NULL, init, NULL), 0, "pthread_create");
        pthread_join(th, NULL);
        return 0;
    }
    int want = strcmp(what, "serialized") == 0 ? MPI_THREAD_SERIALIZED
               : strcmp(what, "funneled") == 0 || strcmp(what, "level") == 0
                   ? MPI_THREAD_FUNNELED
                   : MPI_THREAD_MULTIPLE;
    MPI_Init_thread(&argc, &argv, want, &provided);
    ZT_EQ(provided, want, "provided level");
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (strcmp(what, "serialized") == 0) {
        for (int k = 0; k < 20; k++) {
            turn_t a = { rank, size, k };
            ZT_EQ(pthread_create(&th, NULL, turn, &a), 0, "pthread_create");
            pthread_join(th, NULL);
            int flag = 0;
            MPI_Is_thread_main(&flag);
            ZT_EQ(flag, 1, "Is_thread_main on the main thread");
            MPI_Barrier(MPI_COMM_WORLD);
        }
    } else if (strcmp(what, "funneled") == 0) {
        ZT_EQ(pthread_create(&th, NULL, ask, &provided), 0, "pthread_create");
        pthread_join(th, NULL);
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (strcmp(what, "norank") == 0) {
        /* The C library's own pthread_create: zmpi does not see the thread
         * being created, as for a thread a system library starts. */
        void *libc = dlopen("libc.so.6", RTLD_LAZY);
        create_fn *create = libc ? (create_fn *)dlsym(libc, "pthread_create") : NULL;
        ZT_CHECK(create != NULL, "no libc pthread_create: %s", dlerror());
        ZT_EQ(create(&th, NULL, send_one, NULL), 0, "libc's pthread_create");
        pthread_join(th, NULL);
    } else if (strcmp(what, "level") == 0) {
        ZT_EQ(pthread_create(&th, NULL, barrier, NULL), 0, "pthread_create");
        pthread_join(th, NULL);
    } else if (strcmp(what, "finalize") == 0) {
        ZT_EQ(pthread_create(&th, NULL, finalize, NULL), 0, "pthread_create");
        pthread_join(th, NULL);
    } else if (strcmp(what, "spawn") == 0) {
        ZT_EQ(pthread_create(&th, NULL, spawn, argv[0]), 0, "pthread_create");
        pthread_join(th, NULL);
    } else if (strcmp(what, "deadlock") == 0) {
        if (rank == 0) {
            ZT_EQ(pthread_create(&th, NULL, recv_never, NULL), 0, "pthread_create");
            int v;
            MPI_Recv(&v, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            pthread_join(th, NULL);
        }
    }
    MPI_Finalize();
    return 0;
}
