/*
 * migrate_net.c: ranks moved between processes by ZMPI_Migrate keep their
 * whole state (tests/migrate.cmake; docs/migrate.md, "Across processes").
 *
 * Run with zmpirun --checkpoint -p 2 or 3.  Each of ITERS rounds calls
 * ZMPI_Migrate from the bottom of a recursion DEPTH frames deep whose
 * frames hold a pattern of the rank's, then checks byte for byte: every
 * frame on the way back up, its globals (initialized, .bss), heap blocks
 * of several sizes (malloc, calloc, realloc, posix_memalign) and a linked
 * list in its heap.  Right after each move it sends around a ring (a
 * message to a rank that just moved must reach it) and reduces over
 * MPI_COMM_WORLD (a collective right after a move), both checked.  Which
 * process a rank runs in is its getpid(); rank 0 prints how many moves
 * the ranks saw in all.  With MIG_CKPT=DIR the ranks take a checkpoint
 * after the rounds (tests/migrate_ckpt.sh restarts it).
 *
 * MIG_MODE (environment) selects what the test expects:
 *   rotate  every rank moves at every round (ZMPI_LB_PROC=rotate);
 *   auto    rank 0 states a load 10 times the others' (ZMPI_Set_load,
 *           seconds): the balancer moves ranks, once;
 *   autocheap  the same loads 10000 times smaller: each move would cost
 *           more than the load it evens out, nothing moves;
 *   autocost  ranks 2 and 4 would each even out 50 ms, but rank 2's heap
 *           is 256 MiB (some 170 ms to send): only rank 4 moves;
 *   comm    rank 1 keeps a window (on MPI_COMM_SELF), which still pins
 *           it: it stays, the others move (ZMPI_LB_PROC=rotate;
 *           --lb-report says why);
 *   comms   as rotate, every rank holding communicators made before its
 *           first move (MPI_Comm_dup of WORLD with a name, hints, a user
 *           error handler and a cached attribute; MPI_Comm_split in rows
 *           and columns; MPI_Comm_split_type; MPI_Comm_create and
 *           MPI_Comm_create_group of WORLD and of the duplicate), an
 *           attribute on MPI_COMM_WORLD and a user error handler on
 *           MPI_COMM_SELF: after every move point-to-point and collectives
 *           on each are checked, and the names, hints, attributes and
 *           error handlers; one is freed and one made after a move; all
 *           are used once more after the checkpoint of MIG_CKPT;
 *   topo    as rotate, every rank holding topologies made before its
 *           first move (MPI_Cart_create of WORLD, periodic in one of two
 *           dimensions; MPI_Comm_dup of it; MPI_Cart_sub; MPI_Graph_create
 *           of a ring; MPI_Dist_graph_create_adjacent with weights and
 *           MPI_Dist_graph_create), their neighbourhood collectives run
 *           once before (so that their cached schedules exist when it
 *           moves): after every move MPI_Cart_coords, MPI_Cart_shift,
 *           MPI_Cart_rank, the graph and distributed graph queries and
 *           blocking and non-blocking neighbourhood collectives on each
 *           are checked; the duplicate is freed and made again after a
 *           move; all are used once more after the checkpoint of
 *           MIG_CKPT;
 *   inter   as rotate, every rank holding intercommunicators made before
 *           its first move (MPI_Intercomm_create between the even and
 *           the odd ranks, MPI_Comm_dup of it, MPI_Intercomm_merge):
 *           after every move point-to-point across it, an intercommunicator
 *           MPI_Allreduce and MPI_Bcast and a reduction on the merged
 *           communicator are checked; the duplicate is freed and made
 *           again after a move; all are used once more after the
 *           checkpoint of MIG_CKPT;
 *   persist  as rotate, every rank holding persistent point-to-point
 *           requests made before its first move (a halo with both ring
 *           neighbours: MPI_Recv_init and MPI_Send_init on MPI_COMM_WORLD,
 *           MPI_Ssend_init of a strided type on a duplicate, MPI_Rsend_init
 *           with its receives started before a barrier), inactive in the
 *           call: after every move each is started and completed and the
 *           data checked element by element; a pair is freed and made
 *           again after a move; all are used once more after the
 *           checkpoint of MIG_CKPT;
 *   stay    no rank moves (a job without --checkpoint);
 *   inflight  as rotate, but rank 0 sends rank 1 a message just before
 *           each ZMPI_Migrate, which rank 1 receives after it: rank 1
 *           must not leave it behind (it stays while the message waits);
 *   pending  as rotate on 6 or more ranks, but before each ZMPI_Migrate
 *           rank 1 posts an MPI_Irecv that rank 0 matches after it,
 *           rank 2 starts an MPI_Isend of 64 KiB to rank 4, which rank 4
 *           receives after it, and (on 8 or more) rank 3 starts a
 *           persistent send (MPI_Send_init) to rank 5, which rank 5
 *           receives after it, rank 6 keeps a buffer attached
 *           (MPI_Buffer_attach) and sends rank 7 an MPI_Bsend after it,
 *           and rank 7 holds a generalized request it completes after it:
 *           ranks 1, 2, 4 (and 3, 5, 6, 7) stay (a receive posted, a
 *           request held, a message waiting, an active persistent request,
 *           an attached buffer, a generalized request), every other rank
 *           moves at every round, and the messages arrive whole;
 *   list    the moves ZMPI_LB_PROC lists happen (the count is checked
 *           by the test's regular expression);
 *   types   as rotate, with derived datatypes made before the first move
 *           (a vector, an indexed type of that vector, a struct, a
 *           resized struct, one named) sending the ring message and
 *           gathered with MPI_Allgather after every move, checked byte for
 *           byte with their envelopes and names; a type made after a move
 *           and one freed after a move; the types live on through the
 *           checkpoint of MIG_CKPT and are used once more after it.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include "comm_dup_util.h"
#include "migrate_net.h"
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEPTH 40

static int64_t data_init[256] = { 1, 2, 3 };
static int64_t bss_table[4096];
int me, np; /* shared with migrate_net_req.c (migrate_net.h) */
static char mode[32];
static char ckpt_dir[512];

struct node {
    struct node *next;
    int64_t v;
};

void fail(const char *what, long at)
{
    fprintf(stderr, "rank %d: %s wrong (at %ld)\n", me, what, at);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

int64_t pat(int64_t salt, long i)
{
    return (int64_t)me * 1000003 + salt * 7919 + i;
}

/* One round's checks after the move: a ring message and a reduction. */
static void traffic(int iter)
{
    int right = (me + 1) % np, left = (me + np - 1) % np;
    int64_t out[64], in[64], sum = 0, want = 0;
    for (int i = 0; i < 64; i++)
        out[i] = pat(iter, i);
    MPI_Sendrecv(out, 64, MPI_INT64_T, right, iter, in, 64, MPI_INT64_T, left, iter,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < 64; i++)
        if (in[i] != (int64_t)left * 1000003 + iter * 7919 + i)
            fail("ring message", i);
    int64_t mine = me + iter;
    MPI_Allreduce(&mine, &sum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    for (int r = 0; r < np; r++)
        want += r + iter;
    if (sum != want)
        fail("allreduce", iter);
}

/* ---- MIG_MODE=types ---- */

/* A record sent whole with the struct type. */
struct rec {
    int32_t i;
    double d[3];
    char c;
};

static MPI_Datatype t_vec, t_nest, t_rec, t_rec_res, t_late;
static int have_types;

/* The types, made by the rank before its first move. */
static void types_make(void)
{
    int bl[3] = { 1, 3, 1 };
    MPI_Aint disp[3] = { offsetof(struct rec, i), offsetof(struct rec, d),
                         offsetof(struct rec, c) };
    MPI_Datatype ts[3] = { MPI_INT32_T, MPI_DOUBLE, MPI_CHAR };
    int ibl[3] = { 1, 2, 1 }, idisp[3] = { 0, 2, 7 };
    MPI_Type_vector(4, 2, 3, MPI_INT64_T, &t_vec);      /* 8 of 12 int64 */
    MPI_Type_indexed(3, ibl, idisp, t_vec, &t_nest);    /* nested: 4 vectors */
    MPI_Type_create_struct(3, bl, disp, ts, &t_rec);
    MPI_Type_create_resized(t_rec, 0, sizeof(struct rec), &t_rec_res);
    MPI_Type_commit(&t_nest);
    MPI_Type_commit(&t_rec_res);
    MPI_Type_set_name(t_nest, "nested vectors");
    have_types = 1;
}

/* int64 j of the span t_nest covers (8 vectors' extent = 8 * 11 int64):
 * whether t_nest holds it. */
static int nest_holds(long j)
{
    long v = j / 11, k = j % 11; /* vector v of the indexed type, element k */
    int in_vec = k < 11 && (k % 3) < 2;
    return in_vec && (v == 0 || v == 2 || v == 3 || v == 7);
}

/* Send the nested type and the record array around the ring, gather the
 * records of every rank, and check the types' envelopes and names. */
static void types_traffic(int iter)
{
    int right = (me + 1) % np, left = (me + np - 1) % np;
    enum { SPAN = 8 * 11, NREC = 5 };
    int64_t out[SPAN], in[SPAN];
    struct rec ro[NREC], *all = malloc(sizeof(struct rec) * NREC * (size_t)np);
    for (long j = 0; j < SPAN; j++)
        out[j] = pat(iter + 40, j), in[j] = -1;
    MPI_Sendrecv(out, 1, t_nest, right, 50 + iter, in, 1, t_nest, left, 50 + iter,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (long j = 0; j < SPAN; j++)
        if (in[j] != (nest_holds(j) ? (int64_t)left * 1000003 + (iter + 40) * 7919 + j : -1))
            fail("message of a nested derived type", j);
    memset(ro, 0x55, sizeof ro);
    for (int k = 0; k < NREC; k++) {
        ro[k].i = me * 100 + k + iter;
        for (int m = 0; m < 3; m++)
            ro[k].d[m] = me + k * 0.5 + m * 0.25 + iter;
        ro[k].c = (char)('a' + (me + k) % 26);
    }
    MPI_Allgather(ro, NREC, t_rec_res, all, NREC, t_rec_res, MPI_COMM_WORLD);
    for (int r = 0; r < np; r++)
        for (int k = 0; k < NREC; k++) {
            struct rec *x = &all[r * NREC + k];
            if (x->i != r * 100 + k + iter || x->c != (char)('a' + (r + k) % 26))
                fail("gathered struct", r * NREC + k);
            for (int m = 0; m < 3; m++)
                if (x->d[m] != r + k * 0.5 + m * 0.25 + iter)
                    fail("gathered struct's doubles", r * NREC + k);
        }
    free(all);
    int ni, na, nd, comb, ints[8];
    MPI_Aint aints[4];
    MPI_Datatype inner[4];
    MPI_Type_get_envelope(t_nest, &ni, &na, &nd, &comb);
    if (comb != MPI_COMBINER_INDEXED || ni != 7 || na != 0 || nd != 1)
        fail("envelope of the nested type", comb);
    MPI_Type_get_contents(t_nest, 8, 4, 4, ints, aints, inner);
    if (ints[0] != 3 || ints[2] != 2 || ints[6] != 7)
        fail("contents of the nested type", ints[0]);
    MPI_Type_get_envelope(inner[0], &ni, &na, &nd, &comb);
    if (comb != MPI_COMBINER_VECTOR || ni != 3)
        fail("envelope of the type inside the nested type", comb);
    MPI_Type_free(&inner[0]); /* a new handle (MPI 4.1 section 5.1.13) */
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Type_get_name(t_nest, name, &len);
    if (strcmp(name, "nested vectors") != 0)
        fail("name of a derived type", len);
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t_rec_res, &lb, &ext);
    if (lb != 0 || ext != (MPI_Aint)sizeof(struct rec))
        fail("extent of the resized type", (long)ext);
}

/* After the moves of round `iter`: a type made now, used and freed; at
 * round 2 the unresized struct is freed (t_rec_res keeps it inside). */
static void types_round(int iter)
{
    MPI_Type_contiguous(3 + iter, MPI_INT, &t_late);
    MPI_Type_commit(&t_late);
    int v[16], w[16];
    for (int k = 0; k < 16; k++)
        v[k] = me * 16 + k, w[k] = -1;
    MPI_Bcast(me == 0 ? v : w, 1, t_late, 0, MPI_COMM_WORLD);
    if (me != 0)
        for (int k = 0; k < 16; k++)
            if (w[k] != (k < 3 + iter ? k : -1))
                fail("broadcast of a type made after a move", k);
    MPI_Type_free(&t_late);
    if (iter == 2)
        MPI_Type_free(&t_rec);
    types_traffic(iter);
}

/* ---- MIG_MODE=comms ---- */

static MPI_Comm c_dup, c_row, c_col, c_shared, c_even, c_grp, c_late;
static int have_comms, eh_calls, key_world, key_dup, copies;
static int64_t attr_world, attr_dup;
static MPI_Op u_op;

/* A user operation (its handle made by the rank, so it moves with it):
 * a o b = a + b + 1, associative and commutative. */
static void sum_plus_one(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((int64_t *)inout)[i] += ((int64_t *)in)[i] + 1;
}

static void count_errors(MPI_Comm *comm, int *code, ...)
{
    (void)comm, (void)code;
    eh_calls++;
}

static int copy_attr(MPI_Comm old, int key, void *extra, void *in, void *out, int *flag)
{
    (void)old, (void)key, (void)extra;
    copies++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static void comms_make(void)
{
    MPI_Errhandler eh;
    MPI_Group wg, eg;
    c_dup = zt_dup_named();
    MPI_Comm_create_errhandler(count_errors, &eh);
    MPI_Comm_set_errhandler(c_dup, eh);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, eh);
    MPI_Errhandler_free(&eh);
    MPI_Comm_create_keyval(copy_attr, MPI_COMM_NULL_DELETE_FN, &key_dup, NULL);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &key_world, NULL);
    attr_dup = pat(60, 0);
    attr_world = pat(61, 0);
    MPI_Comm_set_attr(c_dup, key_dup, &attr_dup);
    MPI_Comm_set_attr(MPI_COMM_WORLD, key_world, &attr_world);
    MPI_Comm_split(MPI_COMM_WORLD, me / 2, me, &c_row);
    MPI_Comm_split(c_dup, me % 2, -me, &c_col);      /* of the duplicate, reversed */
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c_shared);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int evens[64], ne = 0;
    for (int r = 0; r < np && ne < 64; r += 2)
        evens[ne++] = r;
    MPI_Group_incl(wg, ne, evens, &eg);
    MPI_Comm_create(MPI_COMM_WORLD, eg, &c_even);
    if (me % 2 == 0)
        MPI_Comm_create_group(c_dup, eg, 7, &c_grp);
    else
        c_grp = MPI_COMM_NULL;
    MPI_Group_free(&eg);
    MPI_Group_free(&wg);
    MPI_Op_create(sum_plus_one, 1, &u_op);
    have_comms = 1;
}

/* Sum over the members of c of f(world rank), by MPI_Allreduce on c, and
 * the same sum computed here from the ranks of c's group. */
static void check_sum(MPI_Comm c, const char *what, int iter)
{
    MPI_Group g, wg;
    int n, mine = me * 3 + iter, sum = 0, want = 0;
    MPI_Comm_size(c, &n);
    MPI_Comm_group(c, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    for (int i = 0; i < n; i++) {
        int w;
        MPI_Group_translate_ranks(g, 1, &i, wg, &w);
        want += w * 3 + iter;
    }
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, c);
    if (sum != want)
        fail(what, iter);
}

/* A ring on c: each member sends its world rank to the next. */
static void check_ring(MPI_Comm c, const char *what, int iter)
{
    int r, n, got = -1, left;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &n);
    MPI_Sendrecv(&me, 1, MPI_INT, (r + 1) % n, iter, &got, 1, MPI_INT, (r + n - 1) % n, iter, c,
                 MPI_STATUS_IGNORE);
    MPI_Group g, wg;
    MPI_Comm_group(c, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int lr = (r + n - 1) % n;
    MPI_Group_translate_ranks(g, 1, &lr, wg, &left);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    if (got != left)
        fail(what, iter);
}

/* What the communicators keep: names, hints, attributes, error handlers. */
static void check_extras(int iter)
{
    int flag, before = eh_calls;
    const char *lost = zt_dup_named_lost(c_dup);
    if (lost)
        fail(lost, iter);
    int64_t *v;
    MPI_Comm_get_attr(c_dup, key_dup, &v, &flag);
    if (!flag || v != &attr_dup || *v != pat(60, 0))
        fail("attribute of a duplicate", iter);
    MPI_Comm_get_attr(MPI_COMM_WORLD, key_world, &v, &flag);
    if (!flag || v != &attr_world || *v != pat(61, 0))
        fail("attribute of MPI_COMM_WORLD", iter);
    int *ub;
    MPI_Comm_get_attr(c_row, MPI_TAG_UB, &ub, &flag);
    if (!flag || *ub < 32767)
        fail("MPI_TAG_UB of a split", iter);
    /* Errors on the duplicate and on MPI_COMM_SELF go to the program's
     * handler, which counts them and returns. */
    MPI_Send(&flag, 1, MPI_INT, np + 5, 0, c_dup);
    MPI_Send(&flag, 1, MPI_INT, 9, 0, MPI_COMM_SELF);
    if (eh_calls != before + 2)
        fail("user error handler", eh_calls - before);
}

static void comms_round(int iter)
{
    check_ring(c_dup, "ring on a duplicate", iter);
    check_sum(c_dup, "allreduce on a duplicate", iter);
    check_sum(c_row, "allreduce on a row split", iter);
    check_ring(c_col, "ring on a column split of the duplicate", iter);
    check_sum(c_col, "allreduce on a column split of the duplicate", iter);
    check_sum(c_shared, "allreduce on split_type", iter);
    if (me % 2 == 0) {
        check_sum(c_even, "allreduce on MPI_Comm_create", iter);
        check_ring(c_grp, "ring on MPI_Comm_create_group", iter);
        int b = me == 0 ? 1000 + iter : -1;
        MPI_Bcast(&b, 1, MPI_INT, 0, c_grp);
        if (b != 1000 + iter)
            fail("broadcast on MPI_Comm_create_group", iter);
    } else if (c_even != MPI_COMM_NULL) {
        fail("MPI_Comm_create gave an odd rank a communicator", iter);
    }
    MPI_Barrier(c_shared);
    check_extras(iter);
    /* The user operation made before the moves: the sum of the values
     * plus one per combination, np - 1. */
    int64_t v = me + iter, got = 0, want = np - 1;
    MPI_Allreduce(&v, &got, 1, MPI_INT64_T, u_op, c_dup);
    for (int r = 0; r < np; r++)
        want += r + iter;
    if (got != want)
        fail("allreduce with a user operation made before the moves", iter);
    /* A duplicate made after a move (its attribute copied), used and
     * freed; at round 3 the column split goes. */
    int before = copies;
    MPI_Comm_dup(c_dup, &c_late);
    if (copies != before + 1)
        fail("attribute copy callback", iter);
    check_sum(c_late, "allreduce on a duplicate made after a move", iter);
    MPI_Comm_free(&c_late);
    if (iter == 3) {
        MPI_Comm_free(&c_col);
        MPI_Comm_split(c_row, 0, me, &c_col);
    }
}

static void comms_free(void)
{
    MPI_Comm_free(&c_dup);
    MPI_Comm_free(&c_row);
    MPI_Comm_free(&c_col);
    MPI_Comm_free(&c_shared);
    if (c_even != MPI_COMM_NULL)
        MPI_Comm_free(&c_even);
    if (c_grp != MPI_COMM_NULL)
        MPI_Comm_free(&c_grp);
    MPI_Comm_delete_attr(MPI_COMM_WORLD, key_world);
    MPI_Comm_free_keyval(&key_world);
    MPI_Comm_free_keyval(&key_dup);
    MPI_Op_free(&u_op);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
}

/* ---- MIG_MODE=topo ---- */

static MPI_Comm t_cart, t_cdup, t_sub, t_graph, t_adj, t_dist;
static int have_topo, t_dims[2];

static void topo_make(void)
{
    int periods[2] = { 1, 0 }, remain[2] = { 1, 0 };
    MPI_Dims_create(np, 2, t_dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, t_dims, periods, 0, &t_cart);
    MPI_Comm_dup(t_cart, &t_cdup);
    MPI_Cart_sub(t_cart, remain, &t_sub);
    int *index = malloc(sizeof(int) * (size_t)np), *edges = malloc(sizeof(int) * 2 * (size_t)np);
    for (int i = 0; i < np; i++) {
        index[i] = 2 * (i + 1);
        edges[2 * i] = (i + np - 1) % np;
        edges[2 * i + 1] = (i + 1) % np;
    }
    MPI_Graph_create(MPI_COMM_WORLD, np, index, edges, 0, &t_graph);
    free(index);
    free(edges);
    int src[2] = { (me + np - 1) % np, (me + np - 2) % np };
    int dst[2] = { (me + 1) % np, (me + 2) % np };
    int sw[2] = { 10 + src[0], 20 + src[1] }, dw[2] = { 10 + me, 20 + me };
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "note", "adjacent");
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, sw, 2, dst, dw, info, 0, &t_adj);
    MPI_Info_free(&info);
    int one = 1, to = (me + 1) % np;
    MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &me, &one, &to, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                          &t_dist);
    have_topo = 1;
}

/* The world rank at coordinates (a, b) of the grid, or MPI_PROC_NULL
 * off the edge of the non-periodic dimension 1. */
static int grid_rank(int a, int b)
{
    if (b < 0 || b >= t_dims[1])
        return MPI_PROC_NULL;
    return ((a + t_dims[0]) % t_dims[0]) * t_dims[1] + b;
}

/* Cartesian queries and a neighbourhood all-to-all on comm (the grid or
 * its duplicate): slot 2d receives from the neighbour at -1 in dimension
 * d, which sent it from its slot 2d + 1. */
static void topo_cart(MPI_Comm comm, int iter)
{
    int co[2], a = me / t_dims[1], b = me % t_dims[1], src, dst, r;
    MPI_Cart_coords(comm, me, 2, co);
    if (co[0] != a || co[1] != b)
        fail("MPI_Cart_coords", iter);
    MPI_Cart_rank(comm, co, &r);
    if (r != me)
        fail("MPI_Cart_rank", iter);
    MPI_Cart_shift(comm, 0, 1, &src, &dst);
    if (src != grid_rank(a - 1, b) || dst != grid_rank(a + 1, b))
        fail("MPI_Cart_shift in the periodic dimension", iter);
    MPI_Cart_shift(comm, 1, 1, &src, &dst);
    if (src != grid_rank(a, b - 1) || dst != grid_rank(a, b + 1))
        fail("MPI_Cart_shift in the open dimension", iter);
    int out[4], in[4], nb[4] = { grid_rank(a - 1, b), grid_rank(a + 1, b), grid_rank(a, b - 1),
                                 grid_rank(a, b + 1) };
    for (int k = 0; k < 4; k++)
        out[k] = me * 100 + k * 10 + iter, in[k] = -1;
    MPI_Neighbor_alltoall(out, 1, MPI_INT, in, 1, MPI_INT, comm);
    for (int k = 0; k < 4; k++)
        if (in[k] != (nb[k] == MPI_PROC_NULL ? -1 : nb[k] * 100 + (k ^ 1) * 10 + iter))
            fail("MPI_Neighbor_alltoall on a Cartesian communicator", k);
}

/* The graph ring, the weighted adjacent graph and the distributed one. */
static void topo_graphs(int iter)
{
    int nn, nb[2], in[2] = { -1, -1 }, v = me * 7 + iter;
    MPI_Graph_neighbors_count(t_graph, me, &nn);
    MPI_Graph_neighbors(t_graph, me, 2, nb);
    if (nn != 2 || nb[0] != (me + np - 1) % np || nb[1] != (me + 1) % np)
        fail("MPI_Graph_neighbors", iter);
    MPI_Neighbor_allgather(&v, 1, MPI_INT, in, 1, MPI_INT, t_graph);
    for (int k = 0; k < 2; k++)
        if (in[k] != nb[k] * 7 + iter)
            fail("MPI_Neighbor_allgather on a graph", k);
    int src[2], dst[2], sw[2], dw[2], indeg, outdeg, wtd;
    MPI_Dist_graph_neighbors_count(t_adj, &indeg, &outdeg, &wtd);
    MPI_Dist_graph_neighbors(t_adj, 2, src, sw, 2, dst, dw);
    if (indeg != 2 || outdeg != 2 || !wtd || src[1] != (me + np - 2) % np ||
        sw[1] != 20 + src[1] || dst[0] != (me + 1) % np || dw[0] != 10 + me)
        fail("MPI_Dist_graph_neighbors", iter);
    int out[2] = { me * 1000 + iter, me * 1000 + 500 + iter };
    MPI_Request req;
    MPI_Ineighbor_alltoall(out, 1, MPI_INT, in, 1, MPI_INT, t_adj, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    /* In-neighbour k = me - 1 - k sent to its out slot k (me = it + 1 + k). */
    for (int k = 0; k < 2; k++)
        if (in[k] != src[k] * 1000 + 500 * k + iter)
            fail("MPI_Ineighbor_alltoall on a distributed graph", k);
    MPI_Neighbor_alltoall(out, 1, MPI_INT, in, 1, MPI_INT, t_adj);
    for (int k = 0; k < 2; k++)
        if (in[k] != src[k] * 1000 + 500 * k + iter)
            fail("MPI_Neighbor_alltoall on a distributed graph", k);
    MPI_Neighbor_allgather(&v, 1, MPI_INT, in, 1, MPI_INT, t_dist);
    if (in[0] != ((me + np - 1) % np) * 7 + iter)
        fail("MPI_Neighbor_allgather on MPI_Dist_graph_create's graph", iter);
}

/* Everything on the topologies; after round 2's, the duplicate is made
 * again. */
static void topo_round(int iter)
{
    int kind, sum = 0, want = 0, c1;
    topo_cart(t_cart, iter);
    topo_cart(t_cdup, iter);
    MPI_Cart_coords(t_sub, me / t_dims[1], 1, &c1);
    MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, t_sub);
    for (int r = me % t_dims[1]; r < np; r += t_dims[1])
        want += r;
    if (sum != want || c1 != me / t_dims[1])
        fail("MPI_Cart_sub's communicator", iter);
    MPI_Topo_test(t_sub, &kind);
    if (kind != MPI_CART)
        fail("MPI_Topo_test of MPI_Cart_sub's communicator", kind);
    topo_graphs(iter);
    if (iter == 2) {
        MPI_Comm_free(&t_cdup);
        MPI_Comm_dup(t_cart, &t_cdup);
    }
}

static void topo_free(void)
{
    MPI_Comm *all[] = { &t_cart, &t_cdup, &t_sub, &t_graph, &t_adj, &t_dist };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        MPI_Comm_free(all[i]);
}

/* ---- MIG_MODE=inter ---- */

static MPI_Comm i_half, i_inter, i_dup, i_merged;
static int have_inter;

static void inter_make(void)
{
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &i_half);
    MPI_Intercomm_create(i_half, 0, MPI_COMM_WORLD, me % 2 ? 0 : 1, 33, &i_inter);
    MPI_Comm_dup(i_inter, &i_dup);
    MPI_Intercomm_merge(i_inter, me % 2, &i_merged);
    have_inter = 1;
}

/* Traffic across the intercommunicators; the duplicate is made again
 * after round 2's. */
static void inter_round(int iter)
{
    int neven = (np + 1) / 2, nodd = np / 2, rsize, r = me / 2;
    MPI_Comm_remote_size(i_inter, &rsize);
    if (rsize != (me % 2 ? neven : nodd))
        fail("MPI_Comm_remote_size", rsize);
    int peer = me % 2 ? 2 * r : 2 * r + 1, got = -1, v = me * 5 + iter;
    if (peer < np) {
        MPI_Sendrecv(&v, 1, MPI_INT, r, iter, &got, 1, MPI_INT, r, iter, i_inter,
                     MPI_STATUS_IGNORE);
        if (got != peer * 5 + iter)
            fail("message across an intercommunicator", iter);
    }
    int sum = 0, want = 0;
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, i_inter);
    for (int w = 1 - me % 2; w < np; w += 2)
        want += w * 5 + iter;
    if (sum != want)
        fail("MPI_Allreduce on an intercommunicator", iter);
    int b = me == 0 ? 700 + iter : -1;
    MPI_Bcast(&b, 1, MPI_INT, me % 2 ? 0 : me == 0 ? MPI_ROOT : MPI_PROC_NULL, i_dup);
    if (b != (me % 2 ? 700 + iter : me == 0 ? 700 + iter : -1))
        fail("MPI_Bcast on a duplicate of an intercommunicator", b);
    int mr;
    MPI_Comm_rank(i_merged, &mr);
    MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, i_merged);
    if (mr != (me % 2 ? neven + r : r) || sum != np * (np - 1) / 2)
        fail("the merged intercommunicator", mr);
    if (iter == 2) {
        MPI_Comm_free(&i_dup);
        MPI_Comm_dup(i_inter, &i_dup);
    }
}

static void inter_free(void)
{
    MPI_Comm *all[] = { &i_half, &i_inter, &i_dup, &i_merged };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        MPI_Comm_free(all[i]);
}

/* DEPTH frames, each with a pattern; migrate at the bottom. */
static long dive(int depth, int iter, int *moved)
{
    volatile int64_t frame[64];
    for (int i = 0; i < 64; i++)
        frame[i] = pat(depth * 100 + iter, i);
    long r;
    if (depth == 0) {
        pid_t before = getpid();
        int inflight = strcmp(mode, "inflight") == 0 && np > 1;
        int64_t msg[32];
        if (inflight && me == 0) {
            for (int i = 0; i < 32; i++)
                msg[i] = pat(iter + 77, i);
            MPI_Send(msg, 32, MPI_INT64_T, 1, 900 + iter, MPI_COMM_WORLD);
        }
        int pending = strcmp(mode, "pending") == 0 && np >= 6;
        if (pending)
            pend_before(iter);
        ZMPI_Migrate(MPI_INFO_NULL);
        *moved = getpid() != before;
        if (pending)
            pend_after(iter);
        if (inflight && me == 1) {
            MPI_Recv(msg, 32, MPI_INT64_T, 0, 900 + iter, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = 0; i < 32; i++)
                if (msg[i] != (int64_t)iter * 7919 + 77 * 7919 + i)
                    fail("message sent before the move", i);
        }
        traffic(iter);
        if (have_types)
            types_round(iter);
        if (have_comms)
            comms_round(iter);
        if (have_topo)
            topo_round(iter);
        if (have_inter)
            inter_round(iter);
        if (have_persist)
            persist_round(iter);
        r = 0;
    } else {
        r = dive(depth - 1, iter, moved) + 1;
    }
    for (int i = 0; i < 64; i++)
        if (frame[i] != pat(depth * 100 + iter, i))
            fail("stack frame", depth);
    return r;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    /* Copied: getenv's string is in the process's environment, which is
     * not the rank's (another process has its own at that address). */
    snprintf(mode, sizeof mode, "%s", getenv("MIG_MODE") ? getenv("MIG_MODE") : "rotate");
    snprintf(ckpt_dir, sizeof ckpt_dir, "%s", getenv("MIG_CKPT") ? getenv("MIG_CKPT") : "");
    MPI_Win kept = MPI_WIN_NULL;
    static int64_t exposed[8];
    if (strcmp(mode, "comm") == 0 && me == 1)
        MPI_Win_create(exposed, sizeof exposed, 8, MPI_INFO_NULL, MPI_COMM_SELF, &kept);
    if (strcmp(mode, "comms") == 0)
        comms_make();
    if (strcmp(mode, "topo") == 0) {
        topo_make();
        topo_round(-1); /* their schedules cached before the first move */
    }
    if (strcmp(mode, "inter") == 0)
        inter_make();
    if (strcmp(mode, "persist") == 0)
        persist_make();
    char *huge = NULL;
    if (strcmp(mode, "autocost") == 0 && me == 2 && !(huge = malloc((size_t)256 << 20)))
        fail("allocation of 256 MiB", 0);
    if (huge)
        huge[0] = 1; /* the heap's extent counts, not the pages touched */
    if (strcmp(mode, "types") == 0)
        types_make();
    int64_t *small = malloc(100 * sizeof *small), *big = calloc(300000, sizeof *big);
    char *grown = malloc(16);
    void *aligned = NULL;
    struct node *list = NULL;
    if (!small || !big || !grown || posix_memalign(&aligned, 4096, 8192) != 0)
        fail("allocation", 0);
    grown = realloc(grown, 200000);
    for (long i = 0; i < 100; i++)
        small[i] = pat(1, i);
    for (long i = 0; i < 300000; i += 997)
        big[i] = pat(2, i);
    memset(grown, me & 0x7f, 200000);
    memset(aligned, (me + 1) & 0x7f, 8192);
    for (long i = 0; i < 500; i++) {
        struct node *n = malloc(sizeof *n);
        n->v = pat(3, i);
        n->next = list;
        list = n;
    }
    for (long i = 0; i < 4096; i++)
        bss_table[i] = pat(4, i);
    data_init[255] = pat(5, 0);
    if (strcmp(mode, "pending") == 0 && np >= 8)
        pend_attach(1);
    int moves = 0;
    for (int iter = 0; iter < ITERS; iter++) {
        if (strcmp(mode, "auto") == 0)
            ZMPI_Set_load(me % np == 0 && iter == 0 ? 10.0 : 1.0);
        if (strcmp(mode, "autocheap") == 0)
            ZMPI_Set_load(me % np == 0 && iter == 0 ? 1e-3 : 1e-4);
        if (strcmp(mode, "autocost") == 0)
            ZMPI_Set_load(iter > 0 ? 0.01 : me == 0 ? 0.3 : me == 2 || me == 4 ? 0.05 : 0.01);
        int moved = 0;
        if (dive(DEPTH, iter, &moved) != DEPTH)
            fail("recursion", iter);
        moves += moved;
        if ((strcmp(mode, "rotate") == 0 || strcmp(mode, "types") == 0 ||
             strcmp(mode, "comms") == 0 || strcmp(mode, "topo") == 0 ||
             strcmp(mode, "inter") == 0 || strcmp(mode, "persist") == 0) && !moved)
            fail("a move (rotate moves every rank)", iter);
        if (strcmp(mode, "pending") == 0 && np >= 6 && moved == pend_holds(me))
            fail(moved ? "no move (it held a request or a message)" : "a move", iter);
        if (strcmp(mode, "stay") == 0 && moved)
            fail("no move (the job keeps its ranks in their processes)", iter);
        if (kept != MPI_WIN_NULL && moved)
            fail("a rank holding a window stays", iter);
        for (long i = 0; i < 100; i++)
            if (small[i] != pat(1, i))
                fail("malloc block", i);
        for (long i = 0; i < 300000; i++)
            if (big[i] != (i % 997 == 0 ? pat(2, i) : 0))
                fail("calloc block", i);
        for (long i = 0; i < 200000; i++)
            if (grown[i] != (char)(me & 0x7f))
                fail("realloc block", i);
        for (long i = 0; i < 8192; i++)
            if (((char *)aligned)[i] != (char)((me + 1) & 0x7f))
                fail("aligned block", i);
        long k = 500;
        for (struct node *n = list; n; n = n->next)
            if (n->v != pat(3, --k))
                fail("heap list", k);
        if (k != 0)
            fail("heap list length", k);
        for (long i = 0; i < 4096; i++)
            if (bss_table[i] != pat(4, i))
                fail(".bss global", i);
        if (data_init[0] != 1 || data_init[2] != 3 || data_init[255] != pat(5, 0))
            fail(".data global", 0);
    }
#ifdef ZMPI_HAS_CHECKPOINT
    /* MIG_CKPT=DIR: a checkpoint of the moved ranks, from which
     * zmpirun --restart DIR resumes here and ends as the job would. */
    if (ckpt_dir[0] && ZMPI_Checkpoint(ckpt_dir) != MPI_SUCCESS)
        fail("checkpoint after the moves", 0);
#endif
    if (have_types) {
        /* The types outlived the moves and the checkpoint: once more. */
        types_traffic(ITERS);
        MPI_Type_free(&t_nest);
        MPI_Type_free(&t_vec);
        MPI_Type_free(&t_rec_res);
    }
    if (have_comms) {
        comms_round(ITERS); /* after the checkpoint of MIG_CKPT too */
        comms_free();
    }
    if (have_topo) {
        topo_round(ITERS); /* after the checkpoint of MIG_CKPT too */
        topo_free();
    }
    if (have_inter) {
        inter_round(ITERS);
        inter_free();
    }
    if (have_persist) {
        persist_round(ITERS); /* after the checkpoint of MIG_CKPT too */
        persist_free();
    }
    free(huge);
    if (strcmp(mode, "pending") == 0 && np >= 8)
        pend_attach(0);
    int all = 0;
    MPI_Reduce(&moves, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (kept != MPI_WIN_NULL)
        MPI_Win_free(&kept);
    if (me == 0)
        printf("migrate_net %s: %d ranks, %d moves, ok\n", mode, np, all);
    MPI_Finalize();
    return 0;
}
