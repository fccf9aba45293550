/*
 * threads_coll.c: collectives and communicator creation from several
 * threads of every rank at MPI_THREAD_MULTIPLE (tests/threads.cmake).
 *
 * The main thread duplicates MPI_COMM_WORLD once per thread; thread t
 * (t = 0 is the main thread) then runs, on its own duplicate only, rounds
 * of Barrier, Bcast, Allreduce (small and large), Reduce, Allgather,
 * Alltoall, Scan, a non-blocking Iallreduce completed with Wait, and a
 * persistent Allreduce_init started twice, checking every result against
 * what it must be.  Every few rounds each thread also makes communicators
 * of its own from its duplicate (MPI_Comm_dup, MPI_Comm_split by parity,
 * MPI_Comm_create from a group), uses them and frees them, while the other
 * threads of the rank do the same on theirs.
 *
 * Usage: zt_threads_coll [threads per rank (3)] [rounds (20)]
 */
#include "zt.h"

#include <pthread.h>

typedef struct {
    int rank, size, t, rounds;
    MPI_Comm comm;
} job_t;

static void check_collectives(const job_t *j, MPI_Comm c, int round)
{
    int rank, size;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
    int salt = j->t * 1000 + round;

    MPI_Barrier(c);

    int root = round % size, v = rank == root ? salt + 5 : -1;
    MPI_Bcast(&v, 1, MPI_INT, root, c);
    ZT_EQ(v, salt + 5, "Bcast");

    long sum = -1, mine = rank + salt;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, c);
    ZT_EQ(sum, (long)size * (size - 1) / 2 + (long)size * salt, "Allreduce");

    enum { BIG = 3000 };
    double *in = malloc(sizeof(double) * BIG), *out = malloc(sizeof(double) * BIG);
    ZT_CHECK(in && out, "out of memory");
    for (int k = 0; k < BIG; k++)
        in[k] = rank + k + j->t;
    MPI_Allreduce(in, out, BIG, MPI_DOUBLE, MPI_MAX, c);
    for (int k = 0; k < BIG; k++)
        ZT_CHECK(out[k] == size - 1 + k + j->t, "large Allreduce element %d: %g", k, out[k]);
    free(in);
    free(out);

    int red = -1;
    MPI_Reduce(&rank, &red, 1, MPI_INT, MPI_SUM, root, c);
    if (rank == root)
        ZT_EQ(red, size * (size - 1) / 2, "Reduce");

    int *all = malloc(sizeof(int) * (size_t)size), *a2a_in = malloc(sizeof(int) * (size_t)size),
        *a2a_out = malloc(sizeof(int) * (size_t)size);
    ZT_CHECK(all && a2a_in && a2a_out, "out of memory");
    int me = rank * 10 + j->t;
    MPI_Allgather(&me, 1, MPI_INT, all, 1, MPI_INT, c);
    for (int q = 0; q < size; q++)
        ZT_EQ(all[q], q * 10 + j->t, "Allgather");
    for (int q = 0; q < size; q++)
        a2a_in[q] = rank * 1000 + q + salt;
    MPI_Alltoall(a2a_in, 1, MPI_INT, a2a_out, 1, MPI_INT, c);
    for (int q = 0; q < size; q++)
        ZT_EQ(a2a_out[q], q * 1000 + rank + salt, "Alltoall");
    free(all);
    free(a2a_in);
    free(a2a_out);

    int scan = -1, one = 1;
    MPI_Scan(&one, &scan, 1, MPI_INT, MPI_SUM, c);
    ZT_EQ(scan, rank + 1, "Scan");

    MPI_Request r;
    long isum = -1;
    MPI_Iallreduce(&mine, &isum, 1, MPI_LONG, MPI_SUM, c, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    ZT_EQ(isum, sum, "Iallreduce");

    long psum = -1, pin = mine;
    MPI_Allreduce_init(&pin, &psum, 1, MPI_LONG, MPI_SUM, c, MPI_INFO_NULL, &r);
    for (int k = 0; k < 2; k++) {
        MPI_Start(&r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        ZT_EQ(psum, sum, "persistent Allreduce");
    }
    MPI_Request_free(&r);
}

static void make_comms(const job_t *j, int round)
{
    MPI_Comm dup, half, fromg;
    MPI_Comm_dup(j->comm, &dup);
    check_collectives(j, dup, round);

    int rank, size;
    MPI_Comm_rank(j->comm, &rank);
    MPI_Comm_size(j->comm, &size);
    MPI_Comm_split(j->comm, rank % 2, -rank, &half);
    int hr, hs;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hs);
    ZT_EQ(hs, rank % 2 ? size / 2 : size - size / 2, "size of a split half");
    int maxr = (size - 1) % 2 == rank % 2 ? size - 1 : size - 2;
    ZT_EQ(hr, (maxr - rank) / 2, "rank in a split half (keys reverse the order)");
    check_collectives(j, half, round);

    MPI_Group g, first;
    MPI_Comm_group(j->comm, &g);
    int n = (size + 1) / 2, range[1][3] = { { 0, n - 1, 1 } };
    MPI_Group_range_incl(g, 1, range, &first);
    MPI_Comm_create(j->comm, first, &fromg);
    if (rank < n) {
        ZT_CHECK(fromg != MPI_COMM_NULL, "Comm_create left a member out");
        check_collectives(j, fromg, round);
        MPI_Comm_free(&fromg);
    } else {
        ZT_CHECK(fromg == MPI_COMM_NULL, "Comm_create gave a non-member a communicator");
    }
    MPI_Group_free(&first);
    MPI_Group_free(&g);
    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);
}

static void *run(void *arg)
{
    job_t *j = arg;
    for (int round = 0; round < j->rounds; round++) {
        check_collectives(j, j->comm, round);
        if (round % 5 == 0)
            make_comms(j, round);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    ZT_EQ(provided, MPI_THREAD_MULTIPLE, "provided");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int nthreads = argc > 1 ? atoi(argv[1]) : 3;
    int rounds = argc > 2 ? atoi(argv[2]) : 20;
    job_t *jobs = calloc((size_t)nthreads, sizeof(job_t));
    pthread_t *th = calloc((size_t)nthreads, sizeof(pthread_t));
    ZT_CHECK(jobs && th, "out of memory");
    for (int t = 0; t < nthreads; t++) {
        jobs[t] = (job_t){ rank, size, t, rounds, MPI_COMM_NULL };
        MPI_Comm_dup(MPI_COMM_WORLD, &jobs[t].comm);
    }
    for (int t = 1; t < nthreads; t++)
        ZT_EQ(pthread_create(&th[t], NULL, run, &jobs[t]), 0, "pthread_create");
    run(&jobs[0]);
    for (int t = 1; t < nthreads; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < nthreads; t++)
        MPI_Comm_free(&jobs[t].comm);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("threads_coll: %d ranks x %d threads, %d rounds: OK\n", size, nthreads, rounds);
    free(jobs);
    free(th);
    MPI_Finalize();
    return 0;
}
