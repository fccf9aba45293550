/*
 * ckpt_comm.c: communicators a rank made survive ZMPI_Checkpoint and a
 * restart (tests/ckpt_restart.sh; docs/checkpoint.md).
 *
 * Before the loop every rank makes a duplicate of MPI_COMM_WORLD (with a
 * name, a hint, an error handler of its own and a cached attribute), a
 * split in two halves of reversed order, a split_type by shared memory,
 * a Cartesian grid (periodic in one of two dimensions) and a row of it
 * (MPI_Cart_sub).  Each of ITERS iterations runs point-to-point messages
 * and collectives on all of them (a ring, reductions, a broadcast, a
 * neighbourhood all-to-all, MPI_Cart_shift), and folds the results into
 * a checksum; rank 0 prints the job's.  At iteration CK_AT the ranks take
 * a checkpoint in argv[1]; with CK_STOP=1 they end right after it.
 *
 * After the checkpoint (in the first run and in every restart) each rank
 * makes a new duplicate of MPI_COMM_WORLD and sends its right neighbour
 * one message on it and then one on the restored duplicate, with the
 * same tag: if the new one had taken a restored communicator's context
 * id, the receive on the restored one would match the first message.
 * The names, hints, error handler and attribute are checked at the end.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt_util.h"
#include "comm_dup_util.h"

#define CK_AT 2
#define ITERS 6

static int me, np, eh_calls, dims[2];
static MPI_Comm c_dup, c_half, c_node, c_cart, c_row;
static int key;
static int64_t attr_val;

static void fail(const char *what, long at)
{
    printf("rank %d: %s wrong (at %ld)\n", me, what, at);
    MPI_Abort(MPI_COMM_WORLD, 5);
}

static void count_errors(MPI_Comm *comm, int *code, ...)
{
    (void)comm, (void)code;
    eh_calls++;
}

static void make_comms(void)
{
    MPI_Errhandler eh;
    c_dup = zt_dup_named();
    MPI_Comm_create_errhandler(count_errors, &eh);
    MPI_Comm_set_errhandler(c_dup, eh);
    MPI_Errhandler_free(&eh);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &key, NULL);
    attr_val = 9000 + me;
    MPI_Comm_set_attr(c_dup, key, &attr_val);
    MPI_Comm_split(MPI_COMM_WORLD, me < np / 2, -me, &c_half);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &c_node);
    int periods[2] = { 1, 0 }, remain[2] = { 0, 1 };
    MPI_Dims_create(np, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &c_cart);
    MPI_Cart_sub(c_cart, remain, &c_row);
}

/* The world rank at grid coordinates (a, b), or MPI_PROC_NULL off the
 * open dimension 1. */
static int grid_rank(int a, int b)
{
    return b < 0 || b >= dims[1] ? MPI_PROC_NULL : ((a + dims[0]) % dims[0]) * dims[1] + b;
}

/* One iteration's traffic on every communicator; the values folded into
 * the rank's part of the checksum. */
static uint64_t round_on_comms(int it)
{
    uint64_t h = (uint64_t)it;
    int r, n, got = -1, v = me * 3 + it, sum = 0;
    MPI_Comm_rank(c_dup, &r);
    MPI_Comm_size(c_dup, &n);
    MPI_Sendrecv(&v, 1, MPI_INT, (r + 1) % n, it, &got, 1, MPI_INT, (r + n - 1) % n, it, c_dup,
                 MPI_STATUS_IGNORE);
    if (got != ((me + np - 1) % np) * 3 + it)
        fail("ring on the duplicate", it);
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c_half);
    h = h * 31 + (uint64_t)sum;
    MPI_Comm_rank(c_half, &r);
    MPI_Comm_size(c_half, &n);
    int half_first = me < np / 2 ? np / 2 - 1 : np - 1; /* reversed order: rank 0 */
    if (r != half_first - me)
        fail("rank in the split", r);
    int b = r == 0 ? 100 + me + it : -1;
    MPI_Bcast(&b, 1, MPI_INT, 0, c_half);
    if (b != 100 + half_first + it)
        fail("broadcast on the split", b);
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c_node);
    MPI_Comm_size(c_node, &n);
    h = h * 31 + (uint64_t)sum + (uint64_t)n;
    int a = me / dims[1], c = me % dims[1], src, dst, out[4], in[4];
    MPI_Cart_shift(c_cart, 0, 1, &src, &dst);
    if (src != grid_rank(a - 1, c) || dst != grid_rank(a + 1, c))
        fail("MPI_Cart_shift", it);
    int nb[4] = { grid_rank(a - 1, c), grid_rank(a + 1, c), grid_rank(a, c - 1),
                  grid_rank(a, c + 1) };
    for (int k = 0; k < 4; k++)
        out[k] = me * 100 + k * 10 + it, in[k] = -1;
    MPI_Neighbor_alltoall(out, 1, MPI_INT, in, 1, MPI_INT, c_cart);
    for (int k = 0; k < 4; k++) {
        if (in[k] != (nb[k] == MPI_PROC_NULL ? -1 : nb[k] * 100 + (k ^ 1) * 10 + it))
            fail("MPI_Neighbor_alltoall", k);
        h = h * 31 + (uint64_t)(int64_t)in[k];
    }
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c_row);
    return h * 31 + (uint64_t)sum;
}

/* A communicator made after the checkpoint must not share a context id
 * with a restored one (see the top of the file). */
static void check_new_comm(void)
{
    MPI_Comm c_new;
    MPI_Request req[2];
    int first = 1000 + me, second = 2000 + me, got = -1, got2 = -1;
    int right = (me + 1) % np, left = (me + np - 1) % np;
    MPI_Comm_dup(MPI_COMM_WORLD, &c_new);
    MPI_Isend(&first, 1, MPI_INT, right, 77, c_new, &req[0]);
    MPI_Isend(&second, 1, MPI_INT, right, 77, c_dup, &req[1]);
    MPI_Recv(&got, 1, MPI_INT, left, 77, c_dup, MPI_STATUS_IGNORE);
    MPI_Recv(&got2, 1, MPI_INT, left, 77, c_new, MPI_STATUS_IGNORE);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    if (got != 2000 + left || got2 != 1000 + left)
        fail("context of a communicator made after the checkpoint", got);
    MPI_Comm_free(&c_new);
}

/* What the duplicate keeps besides its messages. */
static void check_extras(void)
{
    int flag, before = eh_calls;
    const char *lost = zt_dup_named_lost(c_dup);
    if (lost)
        fail(lost, 0);
    int64_t *p;
    MPI_Comm_get_attr(c_dup, key, &p, &flag);
    if (!flag || p != &attr_val || *p != 9000 + me)
        fail("attribute of the duplicate", flag);
    MPI_Send(&flag, 1, MPI_INT, np + 5, 0, c_dup);
    if (eh_calls != before + 1)
        fail("error handler of the duplicate", eh_calls - before);
    int topo;
    MPI_Topo_test(c_row, &topo);
    if (topo != MPI_CART)
        fail("topology of the grid's row", topo);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc < 2) {
        fprintf(stderr, "usage: ckpt_comm DIR\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    make_comms();
    uint64_t check = 0;
    for (int it = 0; it < ITERS; it++) {
        check = check * 1000003 + round_on_comms(it);
        if (it != CK_AT)
            continue;
        if (zt_ckpt_take(argv[1], me))
            return 0;
        check_new_comm();
    }
    check_extras();
    uint64_t all = zt_ckpt_checksum(check);
    MPI_Comm *comms[] = { &c_dup, &c_half, &c_node, &c_cart, &c_row };
    for (size_t i = 0; i < sizeof comms / sizeof comms[0]; i++)
        MPI_Comm_free(comms[i]);
    MPI_Comm_free_keyval(&key);
    zt_ckpt_print(all, me, np, argv[0]);
    MPI_Finalize();
    return 0;
}
