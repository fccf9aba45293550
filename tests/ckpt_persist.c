/*
 * ckpt_persist.c: persistent point-to-point requests a rank made survive
 * ZMPI_Checkpoint and a restart, inactive, and work after it
 * (tests/ckpt_restart.sh; docs/checkpoint.md).
 *
 * Before the loop every rank makes a halo exchange with its two ring
 * neighbours out of persistent requests: MPI_Recv_init and MPI_Send_init
 * of 64 int64 on MPI_COMM_WORLD to the right, MPI_Recv_init and
 * MPI_Ssend_init of a strided vector type on a duplicate of
 * MPI_COMM_WORLD to the left, and MPI_Recv_init with MPI_Rsend_init to
 * the right (the receives are started before a barrier, the ready sends
 * after it); the buffers are in the rank's heap.  Each of ITERS
 * iterations fills the send buffers, starts all (MPI_Startall and
 * MPI_Start), completes them (MPI_Waitall, MPI_Wait, MPI_Test in a loop),
 * checks every element received and folds them into a checksum; rank 0
 * prints the job's.  At iteration CK_AT, with every request inactive, the
 * ranks take a checkpoint in argv[1]; with CK_STOP=1 they end right after
 * it.  After the checkpoint one pair is freed and made again, and the
 * others are used as they were.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt_util.h"

#define CK_AT 2
#define ITERS 6
#define N 64

static int me, np, right, left;
static MPI_Comm c_dup;
static MPI_Datatype t_every2;
static MPI_Request rq[6]; /* recv right-in, recv left-in, recv ready; sends */
static int64_t *in_std, *in_vec, *in_rdy, *out_std, *out_vec, *out_rdy;

static void fail(const char *what, long at)
{
    printf("rank %d: %s wrong (at %ld)\n", me, what, at);
    MPI_Abort(MPI_COMM_WORLD, 5);
}

static int64_t pat(int rank, int it, int salt, long i)
{
    return (int64_t)rank * 1000003 + it * 7919 + salt * 131 + i;
}

static void make_vec_pair(void)
{
    MPI_Recv_init(in_vec, 1, t_every2, right, 71, c_dup, &rq[1]);
    MPI_Ssend_init(out_vec, 1, t_every2, left, 71, c_dup, &rq[4]);
}

static void make_requests(void)
{
    MPI_Comm_dup(MPI_COMM_WORLD, &c_dup);
    MPI_Type_vector(N / 2, 1, 2, MPI_INT64_T, &t_every2);
    MPI_Type_commit(&t_every2);
    in_std = calloc(N, sizeof(int64_t));
    in_vec = calloc(N, sizeof(int64_t));
    in_rdy = calloc(N, sizeof(int64_t));
    out_std = calloc(N, sizeof(int64_t));
    out_vec = calloc(N, sizeof(int64_t));
    out_rdy = calloc(N, sizeof(int64_t));
    if (!in_std || !in_vec || !in_rdy || !out_std || !out_vec || !out_rdy)
        fail("allocation", 0);
    MPI_Recv_init(in_std, N, MPI_INT64_T, left, 70, MPI_COMM_WORLD, &rq[0]);
    MPI_Recv_init(in_rdy, N, MPI_INT64_T, left, 72, MPI_COMM_WORLD, &rq[2]);
    MPI_Send_init(out_std, N, MPI_INT64_T, right, 70, MPI_COMM_WORLD, &rq[3]);
    MPI_Rsend_init(out_rdy, N, MPI_INT64_T, right, 72, MPI_COMM_WORLD, &rq[5]);
    make_vec_pair();
}

/* One halo exchange; returns what it received folded into a number. */
static uint64_t exchange(int it)
{
    for (long i = 0; i < N; i++) {
        out_std[i] = pat(me, it, 1, i);
        out_vec[i] = pat(me, it, 2, i);
        out_rdy[i] = pat(me, it, 3, i);
        in_std[i] = in_vec[i] = in_rdy[i] = -1;
    }
    MPI_Startall(3, rq);
    MPI_Barrier(MPI_COMM_WORLD); /* every ready send finds its receive */
    MPI_Start(&rq[3]);
    MPI_Startall(2, &rq[4]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    MPI_Wait(&rq[2], MPI_STATUS_IGNORE);
    for (int done = 0; !done;)
        MPI_Testall(3, &rq[3], &done, MPI_STATUSES_IGNORE);
    uint64_t sum = 0;
    for (long i = 0; i < N; i++) {
        if (in_std[i] != pat(left, it, 1, i))
            fail("standard message from the left", i);
        if (in_rdy[i] != pat(left, it, 3, i))
            fail("ready message from the left", i);
        if (in_vec[i] != (i % 2 ? -1 : pat(right, it, 2, i)))
            fail("strided message from the right", i);
        sum = sum * 31 + (uint64_t)in_std[i] + (uint64_t)in_rdy[i] * 7 + (uint64_t)in_vec[i];
    }
    return sum;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc < 2) {
        fprintf(stderr, "usage: ckpt_persist DIR\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    right = (me + 1) % np;
    left = (me + np - 1) % np;
    make_requests();
    uint64_t check = 0;
    for (int it = 0; it < ITERS; it++) {
        check = check * 1000003 + exchange(it);
        if (it != CK_AT)
            continue;
        if (zt_ckpt_take(argv[1], me))
            return 0;
        /* A pair freed and made again after the checkpoint. */
        MPI_Request_free(&rq[1]);
        MPI_Request_free(&rq[4]);
        if (rq[1] != MPI_REQUEST_NULL || rq[4] != MPI_REQUEST_NULL)
            fail("MPI_Request_free", 0);
        make_vec_pair();
    }
    uint64_t all = zt_ckpt_checksum(check);
    for (int i = 0; i < 6; i++)
        MPI_Request_free(&rq[i]);
    MPI_Type_free(&t_every2);
    MPI_Comm_free(&c_dup);
    zt_ckpt_print(all, me, np, argv[0]);
    MPI_Finalize();
    return 0;
}
