/*
 * threads_p2p.c: MPI_THREAD_MULTIPLE, several threads per rank sending
 * and receiving at the same time (tests/threads.cmake).
 *
 * Thread t of every rank (t = 0 is the rank's main thread, the others are
 * pthreads it creates) sends, in each of `iters` rounds, one message with
 * tag t to every rank, and receives one message per rank with tag t from
 * MPI_ANY_SOURCE: so thread t of one rank talks to thread t of all ranks.
 * Messages take every size class (empty, tiny, eager, rendezvous, large
 * enough for the cooperative copy) and every byte is checked; the round
 * numbers from each source must arrive in order (MPI orders the messages
 * of one sending thread to one receiver on one tag).  Threads receive in
 * different ways: MPI_Recv, MPI_Mprobe + MPI_Mrecv (the matched probe
 * made for threads), MPI_Improbe polling + MPI_Imrecv, and MPI_Irecv +
 * MPI_Wait; sends are MPI_Isend, MPI_Issend or MPI_Send_init/MPI_Start
 * completed with MPI_Waitall.
 *
 * Usage: zt_threads_p2p [threads per rank (4)] [rounds (12)] [largest size (150000)]
 */
#include "zt.h"

#include <pthread.h>

typedef struct {
    int rank, size, t, iters;
    size_t maxbytes;
    MPI_Comm comm;
} job_t;

static const size_t size_classes[] = { 0, 1, 8, 100, 3000, 20000, 70000, 150000 };
#define NSIZES (sizeof size_classes / sizeof size_classes[0])

/* Bytes of round `seq` from (src, t), within the job's largest size. */
static size_t msg_bytes(const job_t *j, int src, int seq)
{
    size_t b = size_classes[(size_t)(seq + src) % NSIZES];
    return b > j->maxbytes ? j->maxbytes : b;
}

static unsigned char pattern(int src, int t, int seq, size_t k)
{
    return (unsigned char)(src * 131 + t * 31 + seq * 7 + (int)(k % 251) * 3 + (int)(k >> 10));
}

/* The first 8 bytes of a message name its source and round (when it has
 * that many); the rest is the pattern. */
static void fill(unsigned char *buf, size_t n, int src, int t, int seq)
{
    for (size_t k = 0; k < n; k++)
        buf[k] = pattern(src, t, seq, k);
    if (n >= 8) {
        memcpy(buf, &src, 4);
        memcpy(buf + 4, &seq, 4);
    }
}

/* Check a received message against the round expected next from its
 * source (which MPI_Status names). */
static void check(const job_t *j, const unsigned char *buf, const MPI_Status *st, int *next)
{
    int src = st->MPI_SOURCE, n;
    ZT_CHECK(src >= 0 && src < j->size, "thread %d: bad source %d", j->t, src);
    ZT_EQ(st->MPI_TAG, j->t, "tag of a message received by thread t");
    int seq = next[src]++;
    MPI_Get_count(st, MPI_BYTE, &n);
    size_t want = msg_bytes(j, src, seq);
    ZT_CHECK((size_t)n == want, "thread %d: round %d from rank %d has %d bytes, expected %zu "
             "(messages out of order?)", j->t, seq, src, n, want);
    if (n >= 8) {
        int s2, q2;
        memcpy(&s2, buf, 4);
        memcpy(&q2, buf + 4, 4);
        ZT_CHECK(s2 == src && q2 == seq, "thread %d: from rank %d expected round %d, got "
                 "rank %d round %d", j->t, src, seq, s2, q2);
    }
    for (size_t k = 8; k < (size_t)n; k++)
        ZT_CHECK(buf[k] == pattern(src, j->t, seq, k), "thread %d: byte %zu of round %d from "
                 "rank %d is %d, expected %d", j->t, k, seq, src, buf[k],
                 pattern(src, j->t, seq, k));
}

/* Receive one message by the thread's method. */
static void recv_one(const job_t *j, unsigned char *buf, int *next)
{
    MPI_Status st;
    switch (j->t % 4) {
    case 0:
        MPI_Recv(buf, (int)j->maxbytes, MPI_BYTE, MPI_ANY_SOURCE, j->t, j->comm, &st);
        break;
    case 1: {
        MPI_Message m;
        MPI_Mprobe(MPI_ANY_SOURCE, j->t, j->comm, &m, &st);
        int n;
        MPI_Get_count(&st, MPI_BYTE, &n);
        ZT_CHECK((size_t)n <= j->maxbytes, "probed %d bytes", n);
        MPI_Mrecv(buf, n, MPI_BYTE, &m, &st);
        break;
    }
    case 2: {
        MPI_Message m;
        MPI_Request r;
        int flag = 0;
        while (!flag)
            MPI_Improbe(MPI_ANY_SOURCE, j->t, j->comm, &flag, &m, &st);
        MPI_Imrecv(buf, (int)j->maxbytes, MPI_BYTE, &m, &r);
        MPI_Wait(&r, &st);
        break;
    }
    default: {
        MPI_Request r;
        MPI_Irecv(buf, (int)j->maxbytes, MPI_BYTE, MPI_ANY_SOURCE, j->t, j->comm, &r);
        MPI_Wait(&r, &st);
        break;
    }
    }
    check(j, buf, &st, next);
}

static void *run(void *arg)
{
    job_t *j = arg;
    int flag = -1;
    MPI_Is_thread_main(&flag);
    ZT_EQ(flag, j->t == 0, "MPI_Is_thread_main");
    MPI_Query_thread(&flag);
    ZT_EQ(flag, MPI_THREAD_MULTIPLE, "MPI_Query_thread in a thread");
    unsigned char *rbuf = malloc(j->maxbytes + 1);
    unsigned char **sbuf = malloc(sizeof(*sbuf) * (size_t)j->size);
    MPI_Request *reqs = malloc(sizeof(*reqs) * (size_t)j->size);
    int *next = calloc((size_t)j->size, sizeof(int));
    ZT_CHECK(rbuf && sbuf && reqs && next, "out of memory");
    for (int q = 0; q < j->size; q++) {
        sbuf[q] = malloc(j->maxbytes + 1);
        ZT_CHECK(sbuf[q] != NULL, "out of memory");
    }
    for (int seq = 0; seq < j->iters; seq++) {
        size_t n = msg_bytes(j, j->rank, seq);
        for (int i = 0; i < j->size; i++) {
            int q = (j->rank + i) % j->size;
            fill(sbuf[q], n, j->rank, j->t, seq);
            switch ((j->t + seq) % 3) {
            case 0:
                MPI_Isend(sbuf[q], (int)n, MPI_BYTE, q, j->t, j->comm, &reqs[q]);
                break;
            case 1:
                MPI_Issend(sbuf[q], (int)n, MPI_BYTE, q, j->t, j->comm, &reqs[q]);
                break;
            default:
                MPI_Send_init(sbuf[q], (int)n, MPI_BYTE, q, j->t, j->comm, &reqs[q]);
                MPI_Start(&reqs[q]);
                break;
            }
        }
        for (int i = 0; i < j->size; i++)
            recv_one(j, rbuf, next);
        MPI_Waitall(j->size, reqs, MPI_STATUSES_IGNORE);
        for (int q = 0; q < j->size; q++)
            if (reqs[q] != MPI_REQUEST_NULL)
                MPI_Request_free(&reqs[q]);
    }
    for (int q = 0; q < j->size; q++) {
        ZT_EQ(next[q], j->iters, "rounds received from a rank");
        free(sbuf[q]);
    }
    free(rbuf);
    free(sbuf);
    free(reqs);
    free(next);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = -1, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    ZT_EQ(provided, MPI_THREAD_MULTIPLE, "provided thread level");
    int level = -1;
    MPI_Query_thread(&level);
    ZT_EQ(level, MPI_THREAD_MULTIPLE, "MPI_Query_thread");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int nthreads = argc > 1 ? atoi(argv[1]) : 4;
    int iters = argc > 2 ? atoi(argv[2]) : 12;
    size_t maxbytes = argc > 3 ? (size_t)atol(argv[3]) : 150000;
    if (maxbytes < 8)
        maxbytes = 8;
    job_t *jobs = calloc((size_t)nthreads, sizeof(job_t));
    pthread_t *th = calloc((size_t)nthreads, sizeof(pthread_t));
    ZT_CHECK(jobs && th, "out of memory");
    for (int t = 0; t < nthreads; t++)
        jobs[t] = (job_t){ rank, size, t, iters, maxbytes, MPI_COMM_WORLD };
    for (int t = 1; t < nthreads; t++)
        ZT_EQ(pthread_create(&th[t], NULL, run, &jobs[t]), 0, "pthread_create");
    run(&jobs[0]);
    for (int t = 1; t < nthreads; t++)
        pthread_join(th[t], NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("threads_p2p: %d ranks x %d threads, %d rounds: OK\n", size, nthreads, iters);
    free(jobs);
    free(th);
    MPI_Finalize();
    return 0;
}
