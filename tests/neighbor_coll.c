/*
 * neighbor_coll.c: neighbourhood collectives (MPI 4.1 sections 8.6-8.8) in
 * their blocking, non-blocking and persistent forms, on Cartesian grids
 * (2-D and 3-D, periodic and not, with dimensions of size 1 and 2 where
 * both neighbours are the same rank), on a graph and on distributed graphs
 * with asymmetric and repeated edges.
 *
 * Every block carries a payload unique to its message: on a grid, (sender,
 * sender's slot), since the same two ranks may be neighbours twice; on a
 * graph, (sender, receiver, how many earlier edges join them).  The
 * receiver derives what each slot must hold from the neighbour lists that
 * MPI_Cart_shift, MPI_Graph_neighbors and MPI_Dist_graph_neighbors return,
 * and slots of MPI_PROC_NULL neighbours must keep their old contents.
 */
#include "zt.h"

#define SENTINEL (-7)

/* The calling rank's neighbourhood as the queries describe it. */
struct nbrs {
    int me;        /* rank in the communicator */
    int cart;      /* 1 for a Cartesian communicator */
    int nin, nout; /* slots */
    int *in, *out; /* neighbour of each slot (MPI_PROC_NULL possible) */
};

static void nbrs_get(MPI_Comm comm, struct nbrs *nb)
{
    int kind = -1, w;
    ZT_OK(MPI_Comm_rank(comm, &nb->me));
    ZT_OK(MPI_Topo_test(comm, &kind));
    nb->cart = kind == MPI_CART;
    if (kind == MPI_CART) {
        int nd;
        ZT_OK(MPI_Cartdim_get(comm, &nd));
        nb->nin = nb->nout = 2 * nd;
        nb->in = zt_malloc(sizeof(int) * (size_t)(2 * nd));
        for (int d = 0; d < nd; d++)
            ZT_OK(MPI_Cart_shift(comm, d, 1, &nb->in[2 * d], &nb->in[2 * d + 1]));
        nb->out = nb->in;
    } else if (kind == MPI_GRAPH) {
        ZT_OK(MPI_Graph_neighbors_count(comm, nb->me, &nb->nin));
        nb->nout = nb->nin;
        nb->in = nb->out = zt_malloc(sizeof(int) * (size_t)(nb->nin + 1));
        ZT_OK(MPI_Graph_neighbors(comm, nb->me, nb->nin, nb->in));
    } else {
        ZT_EQ(kind, MPI_DIST_GRAPH, "topology kind");
        ZT_OK(MPI_Dist_graph_neighbors_count(comm, &nb->nin, &nb->nout, &w));
        nb->in = zt_malloc(sizeof(int) * (size_t)(nb->nin + 1));
        nb->out = zt_malloc(sizeof(int) * (size_t)(nb->nout + 1));
        ZT_OK(MPI_Dist_graph_neighbors(comm, nb->nin, nb->in, MPI_UNWEIGHTED, nb->nout, nb->out,
                                       MPI_UNWEIGHTED));
    }
}

static void nbrs_free(struct nbrs *nb)
{
    if (nb->out != nb->in)
        free(nb->out);
    free(nb->in);
}

/* How many of list[0..k) equal list[k]. */
static int earlier(const int *list, int k)
{
    int m = 0;
    for (int i = 0; i < k; i++)
        m += list[i] == list[k];
    return m;
}

static unsigned mix(unsigned a, unsigned b, unsigned c)
{
    unsigned x = a * 2654435761u ^ (b + 0x9e37u) * 40503u ^ (c + 7u) * 2246822519u;
    return x ^ (x >> 13);
}

/* The key of the message sent from out-slot j / received in in-slot k. */
static unsigned key_send(const struct nbrs *nb, int j)
{
    if (nb->cart)
        return mix((unsigned)nb->me, (unsigned)j, 1);
    return mix((unsigned)nb->me, (unsigned)nb->out[j], (unsigned)earlier(nb->out, j) + 2);
}

static unsigned key_recv(const struct nbrs *nb, int k)
{
    /* On a grid, what the neighbour sent to its slot k^1 lands here. */
    if (nb->cart)
        return mix((unsigned)nb->in[k], (unsigned)(k ^ 1), 1);
    return mix((unsigned)nb->in[k], (unsigned)nb->me, (unsigned)earlier(nb->in, k) + 2);
}

/* Element i of the block with key `key` in round `seq`. */
static int val(unsigned key, int seq, int i)
{
    return (int)((key + (unsigned)seq * 977u + (unsigned)i * 40503u) & 0x7fffffffu);
}

/* Per-message counts of the v and w forms: base plus 0..4. */
static int vcount(unsigned key, int base)
{
    return base + (int)(key % 5u);
}

static void fill(int *p, int n, unsigned key, int seq)
{
    for (int i = 0; i < n; i++)
        p[i] = val(key, seq, i);
}

/* Check a received block, or its untouched sentinel for MPI_PROC_NULL. */
static void check_block(const int *p, int n, int peer, unsigned key, int seq, const char *what,
                        int k)
{
    for (int i = 0; i < n; i++) {
        int want = peer == MPI_PROC_NULL ? SENTINEL : val(key, seq, i);
        ZT_CHECK(p[i] == want, "%s: slot %d (from %d) element %d of %d is %d, expected %d", what,
                 k, peer, i, n, p[i], want);
    }
}

static int *ints(size_t n, int v)
{
    int *p = zt_malloc(sizeof(int) * (n + 1));
    for (size_t i = 0; i <= n; i++)
        p[i] = v;
    return p;
}

/* Neighbor_alltoall: blocking (request NULL) or started on *req. */
struct a2a {
    int *sbuf, *rbuf;
};

static void a2a_prepare(const struct nbrs *nb, int n, int seq, struct a2a *a)
{
    a->sbuf = ints((size_t)nb->nout * (size_t)n, 0);
    a->rbuf = ints((size_t)nb->nin * (size_t)n, SENTINEL);
    for (int j = 0; j < nb->nout; j++)
        fill(a->sbuf + (size_t)j * (size_t)n, n, key_send(nb, j), seq);
}

static void a2a_check(const struct nbrs *nb, int n, int seq, struct a2a *a, const char *what)
{
    for (int k = 0; k < nb->nin; k++)
        check_block(a->rbuf + (size_t)k * (size_t)n, n, nb->in[k], key_recv(nb, k), seq, what,
                    k);
    free(a->sbuf);
    free(a->rbuf);
}

/* Neighbor_allgather: each rank's one block; slot k holds in[k]'s. */
static void allgather_prepare(const struct nbrs *nb, int n, int seq, struct a2a *a)
{
    a->sbuf = ints((size_t)n, 0);
    a->rbuf = ints((size_t)nb->nin * (size_t)n, SENTINEL);
    fill(a->sbuf, n, mix((unsigned)nb->me, 0, 0), seq);
}

static void allgather_check(const struct nbrs *nb, int n, int seq, struct a2a *a,
                            const char *what)
{
    for (int k = 0; k < nb->nin; k++)
        check_block(a->rbuf + (size_t)k * (size_t)n, n, nb->in[k],
                    mix((unsigned)nb->in[k], 0, 0), seq, what, k);
    free(a->sbuf);
    free(a->rbuf);
}

/* The v form: counts per message, receive blocks in reverse slot order
 * with a gap of one element between them. */
struct a2av {
    int *sbuf, *rbuf, *scounts, *sdispls, *rcounts, *rdispls;
};

static void a2av_prepare(const struct nbrs *nb, int base, int seq, struct a2av *a)
{
    a->scounts = ints((size_t)nb->nout, 0), a->sdispls = ints((size_t)nb->nout, 0);
    a->rcounts = ints((size_t)nb->nin, 0), a->rdispls = ints((size_t)nb->nin, 0);
    int at = 0;
    for (int j = 0; j < nb->nout; j++) {
        a->scounts[j] = vcount(key_send(nb, j), base);
        a->sdispls[j] = at;
        at += a->scounts[j];
    }
    a->sbuf = ints((size_t)at, 0);
    for (int j = 0; j < nb->nout; j++)
        fill(a->sbuf + a->sdispls[j], a->scounts[j], key_send(nb, j), seq);
    at = 0;
    for (int k = nb->nin - 1; k >= 0; k--) {
        a->rcounts[k] = vcount(key_recv(nb, k), base);
        a->rdispls[k] = at;
        at += a->rcounts[k] + 1;
    }
    a->rbuf = ints((size_t)at, SENTINEL);
}

static void a2av_check(const struct nbrs *nb, int seq, struct a2av *a, const char *what)
{
    for (int k = 0; k < nb->nin; k++) {
        check_block(a->rbuf + a->rdispls[k], a->rcounts[k], nb->in[k], key_recv(nb, k), seq,
                    what, k);
        ZT_EQ(a->rbuf[a->rdispls[k] + a->rcounts[k]], SENTINEL, "gap after a v block");
    }
    free(a->sbuf), free(a->rbuf), free(a->scounts), free(a->sdispls), free(a->rcounts),
        free(a->rdispls);
}

/* Blocking calls of all five operations. */
static void run_blocking(MPI_Comm comm, const struct nbrs *nb, int n, int seq)
{
    struct a2a a;
    a2a_prepare(nb, n, seq, &a);
    ZT_OK(MPI_Neighbor_alltoall(a.sbuf, n, MPI_INT, a.rbuf, n, MPI_INT, comm));
    a2a_check(nb, n, seq, &a, "Neighbor_alltoall");

    allgather_prepare(nb, n, seq + 1, &a);
    ZT_OK(MPI_Neighbor_allgather(a.sbuf, n, MPI_INT, a.rbuf, n, MPI_INT, comm));
    allgather_check(nb, n, seq + 1, &a, "Neighbor_allgather");

    /* Allgatherv: the sender's count is n + me % 3; slots in reverse. */
    int *rc = ints((size_t)nb->nin, 0), *rd = ints((size_t)nb->nin, 0), at = 0;
    for (int k = nb->nin - 1; k >= 0; k--) {
        rc[k] = nb->in[k] == MPI_PROC_NULL ? 2 : n + nb->in[k] % 3;
        rd[k] = at;
        at += rc[k] + 1;
    }
    int *sb = ints((size_t)(n + 3), 0), *rb = ints((size_t)at, SENTINEL);
    fill(sb, n + nb->me % 3, mix((unsigned)nb->me, 0, 0), seq + 2);
    ZT_OK(MPI_Neighbor_allgatherv(sb, n + nb->me % 3, MPI_INT, rb, rc, rd, MPI_INT, comm));
    for (int k = 0; k < nb->nin; k++)
        check_block(rb + rd[k], rc[k], nb->in[k], mix((unsigned)nb->in[k], 0, 0), seq + 2,
                    "Neighbor_allgatherv", k);
    free(rc), free(rd), free(sb), free(rb);

    struct a2av v;
    a2av_prepare(nb, n, seq + 3, &v);
    ZT_OK(MPI_Neighbor_alltoallv(v.sbuf, v.scounts, v.sdispls, MPI_INT, v.rbuf, v.rcounts,
                                 v.rdispls, MPI_INT, comm));
    a2av_check(nb, seq + 3, &v, "Neighbor_alltoallv");
}

/* Alltoallw: byte displacements; odd receive slots take one element of a
 * contiguous type of rcounts[k] ints, even ones rcounts[k] MPI_INTs. */
static void run_alltoallw(MPI_Comm comm, const struct nbrs *nb, int n, int seq)
{
    struct a2av v;
    a2av_prepare(nb, n, seq, &v);
    MPI_Aint *sd = zt_malloc(sizeof(MPI_Aint) * (size_t)(nb->nout + 1));
    MPI_Aint *rd = zt_malloc(sizeof(MPI_Aint) * (size_t)(nb->nin + 1));
    MPI_Datatype *st = zt_malloc(sizeof(MPI_Datatype) * (size_t)(nb->nout + 1));
    MPI_Datatype *rt = zt_malloc(sizeof(MPI_Datatype) * (size_t)(nb->nin + 1));
    int *rc = ints((size_t)nb->nin, 0);
    for (int j = 0; j < nb->nout; j++) {
        sd[j] = (MPI_Aint)v.sdispls[j] * (MPI_Aint)sizeof(int);
        st[j] = MPI_INT;
    }
    for (int k = 0; k < nb->nin; k++) {
        rd[k] = (MPI_Aint)v.rdispls[k] * (MPI_Aint)sizeof(int);
        rt[k] = MPI_INT;
        rc[k] = v.rcounts[k];
        if (k % 2) {
            ZT_OK(MPI_Type_contiguous(v.rcounts[k], MPI_INT, &rt[k]));
            ZT_OK(MPI_Type_commit(&rt[k]));
            rc[k] = 1;
        }
    }
    ZT_OK(MPI_Neighbor_alltoallw(v.sbuf, v.scounts, sd, st, v.rbuf, rc, rd, rt, comm));
    for (int k = 1; k < nb->nin; k += 2)
        ZT_OK(MPI_Type_free(&rt[k]));
    a2av_check(nb, seq, &v, "Neighbor_alltoallw");
    free(sd), free(rd), free(st), free(rt), free(rc);
}

/* Three non-blocking operations in flight together, then the persistent
 * alltoall and allgatherv started three times each. */
static void run_nonblocking(MPI_Comm comm, const struct nbrs *nb, int n, int seq)
{
    struct a2a a, g;
    struct a2av v;
    MPI_Request req[3];
    a2a_prepare(nb, n, seq, &a);
    allgather_prepare(nb, n, seq + 1, &g);
    a2av_prepare(nb, n, seq + 2, &v);
    ZT_OK(MPI_Ineighbor_alltoall(a.sbuf, n, MPI_INT, a.rbuf, n, MPI_INT, comm, &req[0]));
    ZT_OK(MPI_Ineighbor_allgather(g.sbuf, n, MPI_INT, g.rbuf, n, MPI_INT, comm, &req[1]));
    ZT_OK(MPI_Ineighbor_alltoallv(v.sbuf, v.scounts, v.sdispls, MPI_INT, v.rbuf, v.rcounts,
                                  v.rdispls, MPI_INT, comm, &req[2]));
    ZT_OK(MPI_Waitall(3, req, ZT_STATUSES_IGNORE));
    a2a_check(nb, n, seq, &a, "Ineighbor_alltoall");
    allgather_check(nb, n, seq + 1, &g, "Ineighbor_allgather");
    a2av_check(nb, seq + 2, &v, "Ineighbor_alltoallv");

    /* Persistent: the buffers stay; their contents change per round. */
    a2a_prepare(nb, n, 0, &a);
    MPI_Request p;
    ZT_OK(MPI_Neighbor_alltoall_init(a.sbuf, n, MPI_INT, a.rbuf, n, MPI_INT, comm,
                                     MPI_INFO_NULL, &p));
    for (int round = 0; round < 3; round++) {
        for (int j = 0; j < nb->nout; j++)
            fill(a.sbuf + (size_t)j * (size_t)n, n, key_send(nb, j), seq + 10 + round);
        for (int k = 0; k < nb->nin * n; k++)
            a.rbuf[k] = SENTINEL;
        ZT_OK(MPI_Start(&p));
        ZT_OK(MPI_Wait(&p, MPI_STATUS_IGNORE));
        ZT_CHECK(p != MPI_REQUEST_NULL, "a persistent request was freed by MPI_Wait");
        for (int k = 0; k < nb->nin; k++)
            check_block(a.rbuf + (size_t)k * (size_t)n, n, nb->in[k], key_recv(nb, k),
                        seq + 10 + round, "Neighbor_alltoall_init", k);
    }
    ZT_OK(MPI_Request_free(&p));
    free(a.sbuf), free(a.rbuf);

    a2av_prepare(nb, n, 0, &v);
    ZT_OK(MPI_Neighbor_alltoallv_init(v.sbuf, v.scounts, v.sdispls, MPI_INT, v.rbuf, v.rcounts,
                                      v.rdispls, MPI_INT, comm, MPI_INFO_NULL, &p));
    for (int round = 0; round < 3; round++) {
        for (int j = 0; j < nb->nout; j++)
            fill(v.sbuf + v.sdispls[j], v.scounts[j], key_send(nb, j), seq + 20 + round);
        ZT_OK(MPI_Start(&p));
        ZT_OK(MPI_Wait(&p, MPI_STATUS_IGNORE));
        for (int k = 0; k < nb->nin; k++)
            check_block(v.rbuf + v.rdispls[k], v.rcounts[k], nb->in[k], key_recv(nb, k),
                        seq + 20 + round, "Neighbor_alltoallv_init", k);
    }
    ZT_OK(MPI_Request_free(&p));
    a2av_check(nb, seq + 22, &v, "Neighbor_alltoallv_init (last round)");
}

/* Every operation and form on one topology communicator, with small
 * messages and with messages past the eager limit. */
/* A halo loop: the same blocking call on the same buffers, whose contents
 * change every round, then on duplicates of the communicator (same
 * topology, new context; a freed duplicate's object is reused by the next
 * one).  zmpi keeps the schedule of a repeated call: every round must
 * still deliver the round's data, on the right communicator. */
static void run_repeated(MPI_Comm comm, const struct nbrs *nb, int n)
{
    int *sbuf = ints((size_t)nb->nout * (size_t)n, 0);
    int *rbuf = ints((size_t)nb->nin * (size_t)n, SENTINEL);
    for (int round = 0; round < 12; round++) {
        MPI_Comm use = comm;
        if (round >= 4)
            ZT_OK(MPI_Comm_dup(comm, &use));
        for (int j = 0; j < nb->nout; j++)
            fill(sbuf + (size_t)j * (size_t)n, n, key_send(nb, j), 700 + round);
        /* A message on the duplicate must not be taken by the original. */
        ZT_OK(MPI_Neighbor_alltoall(sbuf, n, MPI_INT, rbuf, n, MPI_INT, use));
        for (int k = 0; k < nb->nin; k++)
            check_block(rbuf + (size_t)k * (size_t)n, n, nb->in[k], key_recv(nb, k),
                        700 + round, "repeated Neighbor_alltoall", k);
        if (use != comm)
            ZT_OK(MPI_Comm_free(&use));
    }
    free(sbuf);
    free(rbuf);
}

static void run_all(MPI_Comm comm, const char *name)
{
    if (comm == MPI_COMM_NULL)
        return;
    struct nbrs nb;
    nbrs_get(comm, &nb);
    const int sizes[2] = { 3, 5000 };
    for (int i = 0; i < 2; i++) {
        run_blocking(comm, &nb, sizes[i], 100 * i);
        run_alltoallw(comm, &nb, sizes[i], 100 * i + 50);
        run_nonblocking(comm, &nb, sizes[i], 100 * i + 60);
        run_repeated(comm, &nb, sizes[i]);
    }
    nbrs_free(&nb);
    (void)name;
}

static void cart(int size, int ndims, const int *fixed, const int *periods, const char *name)
{
    int dims[3] = { 0, 0, 0 };
    MPI_Comm c;
    for (int i = 0; i < ndims; i++)
        dims[i] = fixed ? fixed[i] : 0;
    ZT_OK(MPI_Dims_create(size, ndims, dims));
    ZT_OK(MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 1, &c));
    run_all(c, name);
    if (c != MPI_COMM_NULL)
        ZT_OK(MPI_Comm_free(&c));
}

static int mod(int a, int n)
{
    return ((a % n) + n) % n;
}

/* A ring as a graph: neighbours r-1 then r+1 (one rank: itself twice; two
 * ranks: the other one twice). */
static void ring_graph(int size)
{
    int *index = zt_malloc(sizeof(int) * (size_t)size);
    int *edges = zt_malloc(sizeof(int) * 2 * (size_t)size);
    for (int r = 0; r < size; r++) {
        index[r] = 2 * (r + 1);
        edges[2 * r] = mod(r - 1, size);
        edges[2 * r + 1] = mod(r + 1, size);
    }
    MPI_Comm g;
    ZT_OK(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &g));
    run_all(g, "ring graph");
    ZT_OK(MPI_Comm_free(&g));
    free(index), free(edges);
}

/* Asymmetric distributed graphs: out-edges r -> r+1 and r -> 5r+2 (which
 * may repeat r+1 or be r itself), made adjacent (each rank lists its
 * sources by hand, in ascending order) and by MPI_Dist_graph_create with
 * every edge given by its destination. */
static void dist_graphs(int rank, int size)
{
    int out[2] = { mod(rank + 1, size), mod(5 * rank + 2, size) };
    int *in = zt_malloc(sizeof(int) * 2 * (size_t)size), nin = 0;
    for (int s = 0; s < size; s++) {
        nin += mod(s + 1, size) == rank ? (in[nin] = s, 1) : 0;
        nin += mod(5 * s + 2, size) == rank ? (in[nin] = s, 1) : 0;
    }
    MPI_Comm d;
    ZT_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nin, in, MPI_UNWEIGHTED, 2, out,
                                         MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &d));
    run_all(d, "adjacent dist graph");
    ZT_OK(MPI_Comm_free(&d));
    int *deg = zt_malloc(sizeof(int) * (size_t)(nin + 1)), *me = zt_malloc(sizeof(int) * (size_t)(nin + 1));
    for (int i = 0; i < nin; i++)
        deg[i] = 1, me[i] = rank;
    ZT_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, nin, in, deg, me, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                0, &d));
    run_all(d, "general dist graph");
    ZT_OK(MPI_Comm_free(&d));
    free(in), free(deg), free(me);
}

/* Argument errors, through MPI_ERRORS_RETURN (the topology communicators
 * inherit it from MPI_COMM_WORLD), and truncation on every rank. */
static void check_errors(int size)
{
    int dims[1] = { size }, periods[1] = { 1 }, buf[8] = { 0 }, cnt[2] = { 1, 1 };
    int neg[2] = { -1, 1 }, dsp[2] = { 0, 1 };
    MPI_Comm c;
    MPI_Request r;
    ZT_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &c));
    ZT_EQ(zt_err_class(MPI_Neighbor_alltoall(buf, 1, MPI_INT, buf + 4, 1, MPI_INT, MPI_COMM_WORLD)),
          MPI_ERR_TOPOLOGY, "Neighbor_alltoall on the world");
    ZT_EQ(zt_err_class(MPI_Neighbor_alltoall(buf, -1, MPI_INT, buf + 4, 1, MPI_INT, c)), MPI_ERR_COUNT,
          "sendcount -1");
    ZT_EQ(zt_err_class(MPI_Neighbor_allgather(MPI_IN_PLACE, 1, MPI_INT, buf, 1, MPI_INT, c)), MPI_ERR_BUFFER,
          "MPI_IN_PLACE");
    ZT_EQ(zt_err_class(MPI_Neighbor_alltoall(buf, 1, MPI_DATATYPE_NULL, buf + 4, 1, MPI_INT, c)),
          MPI_ERR_TYPE, "MPI_DATATYPE_NULL");
    ZT_EQ(zt_err_class(MPI_Neighbor_alltoallv(buf, NULL, dsp, MPI_INT, buf + 4, cnt, dsp, MPI_INT, c)),
          MPI_ERR_ARG, "sendcounts NULL");
    ZT_EQ(zt_err_class(MPI_Neighbor_alltoallv(buf, cnt, dsp, MPI_INT, buf + 4, neg, dsp, MPI_INT, c)),
          MPI_ERR_COUNT, "recvcounts[0] -1");
    ZT_EQ(zt_err_class(MPI_Neighbor_alltoall(NULL, 1, MPI_INT, buf + 4, 1, MPI_INT, c)), MPI_ERR_BUFFER,
          "sendbuf NULL");
    ZT_EQ(zt_err_class(MPI_Ineighbor_alltoall(buf, 1, MPI_INT, buf + 4, 1, MPI_INT, c, NULL)), MPI_ERR_ARG,
          "request NULL");
    ZT_EQ(zt_err_class(MPI_Neighbor_alltoall_init(buf, 1, MPI_INT, buf + 4, 1, MPI_INT, c, MPI_INFO_NULL,
                                     NULL)), MPI_ERR_ARG, "persistent request NULL");
    ZT_EQ(zt_err_class(MPI_Ineighbor_allgather(buf, 1, MPI_INT, buf + 4, 1, MPI_INT, MPI_COMM_NULL, &r)),
          MPI_ERR_COMM, "MPI_COMM_NULL");
    /* Two ints sent where one is expected: truncated on every rank. */
    ZT_EQ(zt_err_class(MPI_Neighbor_alltoall(buf, 2, MPI_INT, buf + 4, 1, MPI_INT, c)), MPI_ERR_TRUNCATE,
          "two ints into one");
    ZT_OK(MPI_Comm_free(&c));
}

int main(int argc, char **argv)
{
    int rank, size;
    zt_init_errors_return(&argc, &argv, &rank, &size);
    const int per2[2] = { 1, 1 }, open2[2] = { 0, 0 }, per3[3] = { 1, 1, 1 };
    const int mixed3[3] = { 1, 0, 1 }, one_by[2] = { 1, 0 }, two_by[2] = { 2, 0 };
    cart(size, 2, NULL, per2, "2-D periodic");
    cart(size, 2, NULL, open2, "2-D open");
    cart(size, 3, NULL, per3, "3-D periodic");
    cart(size, 3, NULL, mixed3, "3-D mixed");
    /* Rings with a dimension of size 1 (itself on both sides) and of size
     * 2 (the same neighbour on both sides). */
    cart(size, 2, one_by, per2, "1 x n periodic");
    if (size % 2 == 0)
        cart(size, 2, two_by, per2, "2 x n/2 periodic");
    else if (size > 1)
        cart(size - 1, 2, two_by, per2, "2 x (n-1)/2 periodic");
    ring_graph(size);
    dist_graphs(rank, size);
    check_errors(size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("neighbor_coll: %d ranks OK\n", size);
    MPI_Finalize();
    return 0;
}
