/*
 * topo_cart.c: Cartesian topologies (MPI 4.1 section 8.5): MPI_Dims_create
 * factorisations, MPI_Cart_create / get / rank / coords / shift at the edges
 * with and without periods, MPI_Cart_sub, MPI_Cart_map, zero-dimensional
 * grids, Comm_dup keeping the topology, and argument errors through
 * MPI_ERRORS_RETURN.  Every answer is computed by hand or by an independent
 * formula here.
 */
#include "zt.h"

/* Calls MPI_Dims_create on a copy of `in` and compares with `want`. */
static void dims_case(int nnodes, int ndims, const int *in, const int *want)
{
    int d[8];

    for (int i = 0; i < ndims; i++)
        d[i] = in ? in[i] : 0;
    ZT_OK(MPI_Dims_create(nnodes, ndims, d));
    for (int i = 0; i < ndims; i++)
        ZT_CHECK(d[i] == want[i], "Dims_create(%d, %d): dims[%d] = %d, expected %d", nnodes,
                 ndims, i, d[i], want[i]);
}

/* The smallest spread of n as k non-increasing factors each <= cap, with
 * the current largest factor `top` (0: none chosen yet). */
static int spread_rec(int n, int k, int cap, int top)
{
    int best = -1;
    for (int f = 1; f <= cap && f <= n; f++) {
        if (n % f)
            continue;
        int t = top ? top : f;
        /* The last factor is the smallest: the spread is t minus it. */
        int s = k == 1 ? (n == f ? t - f : -1) : spread_rec(n / f, k - 1, f, t);
        if (s >= 0 && (best < 0 || s < best))
            best = s;
    }
    return best;
}

/* Dims_create gives non-increasing factors whose product is n and whose
 * spread is the smallest possible, for every n up to 130 and 1..4 dims. */
static void check_dims_balanced(void)
{
    for (int n = 1; n <= 130; n++)
        for (int k = 1; k <= 4; k++) {
            int d[4] = { 0, 0, 0, 0 }, prod = 1;
            ZT_OK(MPI_Dims_create(n, k, d));
            for (int i = 0; i < k; i++) {
                prod *= d[i];
                ZT_CHECK(i == 0 || d[i] <= d[i - 1], "Dims_create(%d, %d) not "
                         "non-increasing at %d", n, k, i);
            }
            ZT_EQ(prod, n, "product of Dims_create's dims");
            ZT_EQ(d[0] - d[k - 1], spread_rec(n, k, n, 0), "spread of Dims_create's dims");
        }
}

static void check_dims_create(void)
{
    dims_case(6, 2, NULL, (int[]){ 3, 2 });
    dims_case(7, 2, NULL, (int[]){ 7, 1 });
    dims_case(12, 3, NULL, (int[]){ 3, 2, 2 });
    dims_case(16, 3, (int[]){ 0, 0, 2 }, (int[]){ 4, 2, 2 });
    dims_case(6, 3, (int[]){ 0, 3, 0 }, (int[]){ 2, 3, 1 });
    dims_case(64, 3, NULL, (int[]){ 4, 4, 4 });
    dims_case(1, 3, NULL, (int[]){ 1, 1, 1 });
    dims_case(96, 2, NULL, (int[]){ 12, 8 });
    dims_case(16, 4, NULL, (int[]){ 2, 2, 2, 2 });
    dims_case(30, 3, NULL, (int[]){ 5, 3, 2 });
    dims_case(1024, 2, NULL, (int[]){ 32, 32 });
    dims_case(2147483647, 2, NULL, (int[]){ 2147483647, 1 });
    dims_case(1 << 30, 3, NULL, (int[]){ 1024, 1024, 1024 });
    dims_case(720720, 1, NULL, (int[]){ 720720 });
    dims_case(24, 3, (int[]){ 2, 3, 4 }, (int[]){ 2, 3, 4 });
    dims_case(1, 0, NULL, NULL);
    check_dims_balanced();
    /* Impossible products and bad entries (errors raised on
     * MPI_COMM_SELF, set to return them). */
    int d[3] = { 0, 3, 0 };
    ZT_EQ(zt_err_class(MPI_Dims_create(7, 3, d)), MPI_ERR_DIMS, "Dims_create(7, {0,3,0})");
    int e[2] = { 2, 4 };
    ZT_EQ(zt_err_class(MPI_Dims_create(6, 2, e)), MPI_ERR_DIMS, "Dims_create(6, {2,4})");
    int f[2] = { 0, -1 };
    ZT_EQ(zt_err_class(MPI_Dims_create(4, 2, f)), MPI_ERR_DIMS, "Dims_create(4, {0,-1})");
    ZT_EQ(zt_err_class(MPI_Dims_create(4, -1, f)), MPI_ERR_DIMS, "Dims_create(4, ndims -1)");
    ZT_EQ(zt_err_class(MPI_Dims_create(5, 0, f)), MPI_ERR_DIMS, "Dims_create(5, ndims 0)");
    ZT_EQ(zt_err_class(MPI_Dims_create(0, 2, f)), MPI_ERR_ARG, "Dims_create(0 nodes)");
}

/* Expected rank `disp` steps along dimension d from coords c, by hand. */
static int expect_shift(const int *dims, const int *periods, int ndims, const int *c, int d,
                        int disp)
{
    int x = c[d] + disp, r = 0;
    if (periods[d])
        x = ((x % dims[d]) + dims[d]) % dims[d];
    else if (x < 0 || x >= dims[d])
        return MPI_PROC_NULL;
    for (int i = 0; i < ndims; i++)
        r = r * dims[i] + (i == d ? x : c[i]);
    return r;
}

/* A 2-D grid over the whole world, dimension 0 periodic, 1 not. */
static void check_cart_2d(int rank, int size)
{
    int dims[2] = { 0, 0 }, periods[2] = { 1, 0 };
    MPI_Comm cart;
    ZT_OK(MPI_Dims_create(size, 2, dims));
    ZT_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart));
    int status = -1, nd = -1, crank = -1;
    ZT_OK(MPI_Topo_test(cart, &status));
    ZT_EQ(status, MPI_CART, "Topo_test of a Cartesian communicator");
    ZT_OK(MPI_Cartdim_get(cart, &nd));
    ZT_EQ(nd, 2, "Cartdim_get");
    ZT_OK(MPI_Comm_rank(cart, &crank));
    ZT_EQ(crank, rank, "rank in the grid (identity mapping)");
    int gd[2], gp[2], gc[2];
    ZT_OK(MPI_Cart_get(cart, 2, gd, gp, gc));
    ZT_CHECK(gd[0] == dims[0] && gd[1] == dims[1] && gp[0] == 1 && gp[1] == 0,
             "Cart_get dims (%d,%d) periods (%d,%d)", gd[0], gd[1], gp[0], gp[1]);
    ZT_CHECK(gc[0] == rank / dims[1] && gc[1] == rank % dims[1], "Cart_get coords (%d,%d)",
             gc[0], gc[1]);
    for (int r = 0; r < size; r++) {
        int c[2], back = -1;
        ZT_OK(MPI_Cart_coords(cart, r, 2, c));
        ZT_CHECK(c[0] == r / dims[1] && c[1] == r % dims[1], "Cart_coords(%d)", r);
        ZT_OK(MPI_Cart_rank(cart, c, &back));
        ZT_EQ(back, r, "Cart_rank(Cart_coords(r))");
    }
    /* Shifts by 1, -1, 3 and -5 along both dimensions. */
    const int disps[4] = { 1, -1, 3, -5 };
    for (int d = 0; d < 2; d++)
        for (int i = 0; i < 4; i++) {
            int src, dst;
            ZT_OK(MPI_Cart_shift(cart, d, disps[i], &src, &dst));
            ZT_EQ(src, expect_shift(dims, periods, 2, gc, d, -disps[i]), "Cart_shift source");
            ZT_EQ(dst, expect_shift(dims, periods, 2, gc, d, disps[i]), "Cart_shift dest");
        }
    /* The periodic dimension wraps coordinates; the other does not. */
    int wrap[2] = { gc[0] + 2 * dims[0], gc[1] }, r = -1;
    ZT_OK(MPI_Cart_rank(cart, wrap, &r));
    ZT_EQ(r, rank, "Cart_rank with a wrapped periodic coordinate");
    wrap[0] = -1;
    ZT_OK(MPI_Cart_rank(cart, wrap, &r));
    ZT_EQ(r, (dims[0] - 1) * dims[1] + gc[1], "Cart_rank with coordinate -1 (periodic)");
    int bad[2] = { 0, dims[1] };
    ZT_EQ(zt_err_class(MPI_Cart_rank(cart, bad, &r)), MPI_ERR_ARG, "Cart_rank outside a non-periodic dim");
    ZT_EQ(zt_err_class(MPI_Cart_shift(cart, 2, 1, &r, &r)), MPI_ERR_DIMS, "Cart_shift direction 2");
    ZT_EQ(zt_err_class(MPI_Cart_shift(cart, -1, 1, &r, &r)), MPI_ERR_DIMS, "Cart_shift direction -1");
    ZT_EQ(zt_err_class(MPI_Cart_coords(cart, size, 2, gc)), MPI_ERR_RANK, "Cart_coords(size)");
    ZT_EQ(zt_err_class(MPI_Graph_neighbors_count(cart, 0, &r)), MPI_ERR_TOPOLOGY, "Graph call on a grid");
    /* A duplicate keeps the topology. */
    MPI_Comm dup;
    ZT_OK(MPI_Comm_dup(cart, &dup));
    ZT_OK(MPI_Topo_test(dup, &status));
    ZT_EQ(status, MPI_CART, "Topo_test of a duplicate");
    ZT_OK(MPI_Comm_free(&cart));
    ZT_OK(MPI_Cart_get(dup, 2, gd, gp, gc));
    ZT_CHECK(gd[0] == dims[0] && gp[0] == 1, "duplicate's Cart_get after freeing the original");
    ZT_OK(MPI_Comm_free(&dup));
}

/* Hand-computed 2x3 grids on the first six ranks (the rest get
 * MPI_COMM_NULL): non-periodic, then periodic in dimension 1. */
static void check_cart_2x3(int rank, int size)
{
    if (size < 6)
        return;
    int dims[2] = { 2, 3 }, open[2] = { 0, 0 }, ring[2] = { 0, 1 }, src, dst;
    MPI_Comm a, b;
    ZT_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, open, 0, &a));
    ZT_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, ring, 0, &b));
    if (rank >= 6) {
        ZT_CHECK(a == MPI_COMM_NULL && b == MPI_COMM_NULL, "rank %d outside the grid got a "
                 "communicator", rank);
        return;
    }
    /* Layout:  0 1 2
     *          3 4 5 */
    static const int open_d1[6][2] = { { MPI_PROC_NULL, 1 }, { 0, 2 }, { 1, MPI_PROC_NULL },
                                       { MPI_PROC_NULL, 4 }, { 3, 5 }, { 4, MPI_PROC_NULL } };
    static const int ring_d1[6][2] = { { 2, 1 }, { 0, 2 }, { 1, 0 },
                                       { 5, 4 }, { 3, 5 }, { 4, 3 } };
    static const int d0[6][2] = { { MPI_PROC_NULL, 3 }, { MPI_PROC_NULL, 4 },
                                  { MPI_PROC_NULL, 5 }, { 0, MPI_PROC_NULL },
                                  { 1, MPI_PROC_NULL }, { 2, MPI_PROC_NULL } };
    ZT_OK(MPI_Cart_shift(a, 1, 1, &src, &dst));
    ZT_CHECK(src == open_d1[rank][0] && dst == open_d1[rank][1], "open dim 1: %d %d", src, dst);
    ZT_OK(MPI_Cart_shift(b, 1, 1, &src, &dst));
    ZT_CHECK(src == ring_d1[rank][0] && dst == ring_d1[rank][1], "ring dim 1: %d %d", src, dst);
    ZT_OK(MPI_Cart_shift(a, 0, 1, &src, &dst));
    ZT_CHECK(src == d0[rank][0] && dst == d0[rank][1], "open dim 0: %d %d", src, dst);
    ZT_OK(MPI_Cart_shift(b, 0, -1, &src, &dst));
    ZT_CHECK(src == d0[rank][1] && dst == d0[rank][0], "dim 0 by -1: %d %d", src, dst);
    ZT_OK(MPI_Cart_shift(b, 1, 4, &src, &dst)); /* 4 = 1 around a ring of 3 */
    ZT_CHECK(src == ring_d1[rank][0] && dst == ring_d1[rank][1], "ring dim 1 by 4");
    ZT_OK(MPI_Cart_shift(a, 1, 3, &src, &dst));
    ZT_CHECK(src == MPI_PROC_NULL && dst == MPI_PROC_NULL, "open dim 1 by 3");
    ZT_OK(MPI_Comm_free(&a));
    ZT_OK(MPI_Comm_free(&b));
}

/* Cart_sub of a 3-D grid keeping dimensions 0 and 2, then none. */
static void check_cart_sub(int rank, int size)
{
    int dims[3] = { 0, 0, 0 }, periods[3] = { 0, 1, 1 }, keep[3] = { 1, 0, 1 }, none[3] = { 0 };
    MPI_Comm cart, sub, point;
    ZT_OK(MPI_Dims_create(size, 3, dims));
    ZT_OK(MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart));
    int c0 = rank / (dims[1] * dims[2]), c1 = rank / dims[2] % dims[1], c2 = rank % dims[2];
    ZT_OK(MPI_Cart_sub(cart, keep, &sub));
    int ssize = -1, srank = -1, nd = -1, sd[2], sp[2], sc[2];
    ZT_OK(MPI_Comm_size(sub, &ssize));
    ZT_OK(MPI_Comm_rank(sub, &srank));
    ZT_EQ(ssize, dims[0] * dims[2], "size of the subgrid");
    ZT_EQ(srank, c0 * dims[2] + c2, "rank in the subgrid");
    ZT_OK(MPI_Cartdim_get(sub, &nd));
    ZT_EQ(nd, 2, "subgrid dimensions");
    ZT_OK(MPI_Cart_get(sub, 2, sd, sp, sc));
    ZT_CHECK(sd[0] == dims[0] && sd[1] == dims[2] && sp[0] == 0 && sp[1] == 1 && sc[0] == c0 &&
             sc[1] == c2, "subgrid Cart_get");
    /* Members: the world ranks with the same c1. */
    int sum = 0, want = 0;
    ZT_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, sub));
    for (int r = 0; r < size; r++)
        want += (r / dims[2] % dims[1] == c1) ? r : 0;
    ZT_EQ(sum, want, "sum of world ranks in the subgrid");
    ZT_OK(MPI_Cart_sub(cart, none, &point));
    ZT_OK(MPI_Comm_size(point, &ssize));
    ZT_OK(MPI_Cartdim_get(point, &nd));
    ZT_CHECK(ssize == 1 && nd == 0, "Cart_sub keeping nothing: size %d, ndims %d", ssize, nd);
    ZT_OK(MPI_Comm_free(&point));
    ZT_OK(MPI_Comm_free(&sub));
    ZT_OK(MPI_Comm_free(&cart));
}

/* Zero-dimensional grids, Cart_map, and constructor errors. */
static void check_cart_misc(int rank, int size)
{
    MPI_Comm z;
    int nd = -1, r = -1, dims[2] = { size, 2 }, periods[2] = { 0, 0 };
    ZT_OK(MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &z));
    if (rank == 0) {
        ZT_OK(MPI_Cartdim_get(z, &nd));
        ZT_OK(MPI_Comm_size(z, &r));
        ZT_CHECK(nd == 0 && r == 1, "0-d grid: ndims %d size %d", nd, r);
        ZT_OK(MPI_Cart_rank(z, NULL, &r));
        ZT_EQ(r, 0, "Cart_rank in a 0-d grid");
        ZT_OK(MPI_Comm_free(&z));
    } else {
        ZT_CHECK(z == MPI_COMM_NULL, "rank %d got a 0-d grid", rank);
    }
    int one[1] = { size > 1 ? size - 1 : 1 };
    ZT_OK(MPI_Cart_map(MPI_COMM_WORLD, 1, one, periods, &r));
    ZT_EQ(r, rank < one[0] ? rank : MPI_UNDEFINED, "Cart_map");
    ZT_EQ(zt_err_class(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &z)), MPI_ERR_DIMS,
          "Cart_create of a grid larger than the communicator");
    dims[1] = 0;
    ZT_EQ(zt_err_class(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &z)), MPI_ERR_DIMS,
          "Cart_create with dims[1] = 0");
    ZT_EQ(zt_err_class(MPI_Cart_create(MPI_COMM_WORLD, -1, dims, periods, 0, &z)), MPI_ERR_DIMS,
          "Cart_create with ndims -1");
    ZT_EQ(zt_err_class(MPI_Cart_create(MPI_COMM_WORLD, 1, NULL, periods, 0, &z)), MPI_ERR_ARG,
          "Cart_create with dims NULL");
    ZT_EQ(zt_err_class(MPI_Cart_create(MPI_COMM_NULL, 1, one, periods, 0, &z)), MPI_ERR_COMM,
          "Cart_create on MPI_COMM_NULL");
    ZT_EQ(zt_err_class(MPI_Cartdim_get(MPI_COMM_WORLD, &nd)), MPI_ERR_TOPOLOGY, "Cartdim_get on the world");
    ZT_EQ(zt_err_class(MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &r, &r)), MPI_ERR_TOPOLOGY,
          "Cart_shift on the world");
    ZT_OK(MPI_Topo_test(MPI_COMM_WORLD, &r));
    ZT_EQ(r, MPI_UNDEFINED, "Topo_test of the world");
}

int main(int argc, char **argv)
{
    int rank, size;
    zt_init_errors_return(&argc, &argv, &rank, &size);
    check_dims_create();
    check_cart_2d(rank, size);
    check_cart_2x3(rank, size);
    check_cart_sub(rank, size);
    check_cart_misc(rank, size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("topo_cart: %d ranks OK\n", size);
    MPI_Finalize();
    return 0;
}
