/*
 * topo_graph.c: graph and distributed graph topologies (MPI 4.1 sections
 * 8.5.3 and 8.5.4): the standard's four-node graph example, graph queries,
 * distributed graphs with and without weights made by both constructors
 * (adjacent, and with edges given by other ranks), info arguments, and
 * argument errors through MPI_ERRORS_RETURN.
 */
#include "zt.h"

/* The graph example of MPI 4.1 section 8.5.3 (four nodes):
 *   node 0: 1, 3   node 1: 0   node 2: 3   node 3: 0, 2 */
static void check_graph_example(int rank, int size)
{
    const int index[4] = { 2, 3, 4, 6 }, edges[6] = { 1, 3, 0, 3, 0, 2 };
    static const int nbr[4][2] = { { 1, 3 }, { 0, -1 }, { 3, -1 }, { 0, 2 } };
    static const int deg[4] = { 2, 1, 1, 2 };
    MPI_Comm g;
    int r = -1;
    if (size < 4) {
        ZT_EQ(zt_err_class(MPI_Graph_create(MPI_COMM_WORLD, 4, index, edges, 0, &g)), MPI_ERR_ARG,
              "Graph_create of 4 nodes on fewer ranks");
        return;
    }
    ZT_OK(MPI_Graph_map(MPI_COMM_WORLD, 4, index, edges, &r));
    ZT_EQ(r, rank < 4 ? rank : MPI_UNDEFINED, "Graph_map");
    ZT_OK(MPI_Graph_create(MPI_COMM_WORLD, 4, index, edges, 1, &g));
    if (rank >= 4) {
        ZT_CHECK(g == MPI_COMM_NULL, "rank %d outside the graph got a communicator", rank);
        return;
    }
    int status = -1, nn = -1, ne = -1, gi[4], ge[6], n = -1, v[2] = { -1, -1 };
    ZT_OK(MPI_Topo_test(g, &status));
    ZT_EQ(status, MPI_GRAPH, "Topo_test of a graph communicator");
    ZT_OK(MPI_Graphdims_get(g, &nn, &ne));
    ZT_CHECK(nn == 4 && ne == 6, "Graphdims_get: %d nodes, %d edges", nn, ne);
    ZT_OK(MPI_Graph_get(g, 4, 6, gi, ge));
    for (int i = 0; i < 4; i++)
        ZT_EQ(gi[i], index[i], "Graph_get index");
    for (int i = 0; i < 6; i++)
        ZT_EQ(ge[i], edges[i], "Graph_get edges");
    for (int node = 0; node < 4; node++) {
        ZT_OK(MPI_Graph_neighbors_count(g, node, &n));
        ZT_EQ(n, deg[node], "Graph_neighbors_count");
        ZT_OK(MPI_Graph_neighbors(g, node, 2, v));
        for (int i = 0; i < n; i++)
            ZT_EQ(v[i], nbr[node][i], "Graph_neighbors");
    }
    /* A short array gets only what fits. */
    v[1] = -9;
    ZT_OK(MPI_Graph_neighbors(g, 3, 1, v));
    ZT_CHECK(v[0] == 0 && v[1] == -9, "Graph_neighbors with maxneighbors 1");
    ZT_EQ(zt_err_class(MPI_Graph_neighbors_count(g, 4, &n)), MPI_ERR_RANK, "Graph_neighbors_count(4)");
    ZT_EQ(zt_err_class(MPI_Cart_shift(g, 0, 1, &n, &n)), MPI_ERR_TOPOLOGY, "Cart_shift on a graph");
    ZT_EQ(zt_err_class(MPI_Dist_graph_neighbors_count(g, &n, &n, &n)), MPI_ERR_TOPOLOGY,
          "Dist_graph_neighbors_count on a graph");
    ZT_OK(MPI_Comm_free(&g));
}

static void check_graph_errors(int size)
{
    MPI_Comm g;
    int index[2] = { 1, 2 }, edges[2] = { 1, 0 }, r;
    if (size >= 2) {
        edges[0] = 2;
        ZT_EQ(zt_err_class(MPI_Graph_create(MPI_COMM_WORLD, 2, index, edges, 0, &g)), MPI_ERR_ARG,
              "Graph_create with an edge to node 2 of 2");
        edges[0] = 1;
        index[1] = 0;
        ZT_EQ(zt_err_class(MPI_Graph_create(MPI_COMM_WORLD, 2, index, edges, 0, &g)), MPI_ERR_ARG,
              "Graph_create with decreasing index");
    }
    ZT_EQ(zt_err_class(MPI_Graph_create(MPI_COMM_WORLD, -1, index, edges, 0, &g)), MPI_ERR_ARG,
          "Graph_create with -1 nodes");
    ZT_EQ(zt_err_class(MPI_Graph_create(MPI_COMM_WORLD, 1, NULL, edges, 0, &g)), MPI_ERR_ARG,
          "Graph_create with index NULL");
    ZT_EQ(zt_err_class(MPI_Graphdims_get(MPI_COMM_WORLD, &r, &r)), MPI_ERR_TOPOLOGY,
          "Graphdims_get on the world");
    /* Zero nodes: every rank gets MPI_COMM_NULL. */
    ZT_OK(MPI_Graph_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &g));
    ZT_CHECK(g == MPI_COMM_NULL, "an empty graph gave a communicator");
}

static int mod(int a, int n)
{
    return ((a % n) + n) % n;
}

/* Adjacent constructor: in-edges from r-1 and r-2, out-edges to r+1 and
 * r+2 (mod size), weighted, then unweighted; the lists come back as
 * given. */
static void check_dist_adjacent(int rank, int size)
{
    int src[2] = { mod(rank - 1, size), mod(rank - 2, size) };
    int dst[2] = { mod(rank + 1, size), mod(rank + 2, size) };
    int sw[2] = { 10 * rank + 1, 10 * rank + 2 }, dw[2] = { 7, 0 };
    MPI_Info info;
    MPI_Comm d, u;
    ZT_OK(MPI_Info_create(&info));
    ZT_OK(MPI_Info_set(info, "no_hints", "true"));
    ZT_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, sw, 2, dst, dw, info, 0, &d));
    ZT_OK(MPI_Info_free(&info));
    int in = -1, out = -1, wtd = -1, s[2], w[2], t[2], x[2], status = -1;
    ZT_OK(MPI_Topo_test(d, &status));
    ZT_EQ(status, MPI_DIST_GRAPH, "Topo_test of a distributed graph");
    ZT_OK(MPI_Dist_graph_neighbors_count(d, &in, &out, &wtd));
    ZT_CHECK(in == 2 && out == 2 && wtd == 1, "counts %d %d weighted %d", in, out, wtd);
    ZT_OK(MPI_Dist_graph_neighbors(d, 2, s, w, 2, t, x));
    for (int i = 0; i < 2; i++) {
        ZT_EQ(s[i], src[i], "source");
        ZT_EQ(w[i], sw[i], "source weight");
        ZT_EQ(t[i], dst[i], "destination");
        ZT_EQ(x[i], dw[i], "destination weight");
    }
    ZT_OK(MPI_Comm_free(&d));
    ZT_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, MPI_UNWEIGHTED, 1, dst,
                                         MPI_UNWEIGHTED, MPI_INFO_NULL, 1, &u));
    ZT_OK(MPI_Dist_graph_neighbors_count(u, &in, &out, &wtd));
    ZT_CHECK(in == 2 && out == 1 && wtd == 0, "unweighted counts %d %d weighted %d", in, out,
             wtd);
    w[0] = w[1] = -5;
    ZT_OK(MPI_Dist_graph_neighbors(u, 2, s, w, 1, t, MPI_UNWEIGHTED));
    ZT_CHECK(s[0] == src[0] && s[1] == src[1] && t[0] == dst[0], "unweighted lists");
    ZT_CHECK(w[0] == -5 && w[1] == -5, "weights written for an unweighted graph");
    ZT_OK(MPI_Comm_free(&u));
    /* No edges at all, with MPI_WEIGHTS_EMPTY. */
    ZT_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_WEIGHTS_EMPTY, 0, NULL,
                                         MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &u));
    ZT_OK(MPI_Dist_graph_neighbors_count(u, &in, &out, &wtd));
    ZT_CHECK(in == 0 && out == 0 && wtd == 1, "empty graph: %d %d %d", in, out, wtd);
    ZT_OK(MPI_Comm_free(&u));
}

/* Sorts n (rank, weight) pairs. */
static void sort_pairs(int *p, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && (p[2 * j - 2] > p[2 * j] ||
                                  (p[2 * j - 2] == p[2 * j] && p[2 * j - 1] > p[2 * j + 1]));
             j--) {
            int a = p[2 * j], b = p[2 * j + 1];
            p[2 * j] = p[2 * j - 2], p[2 * j + 1] = p[2 * j - 1];
            p[2 * j - 2] = a, p[2 * j - 1] = b;
        }
}

/* General constructor: rank g gives the edge g -> g+1 (weight g) and the
 * edge 3g -> g (weight 1000 + g), so most edges are given by a rank that
 * is not their source.  Checked as sets (the standard leaves the order
 * open), and twice the same order. */
static void check_dist_general(int rank, int size)
{
    int sources[2] = { rank, mod(3 * rank, size) }, degrees[2] = { 1, 1 };
    int dests[2] = { mod(rank + 1, size), rank }, weights[2] = { rank, 1000 + rank };
    MPI_Comm d;
    ZT_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, 2, sources, degrees, dests, weights,
                                MPI_INFO_NULL, 0, &d));
    int *want_in = zt_malloc(sizeof(int) * 4 * (size_t)size), nwi = 0;
    int *want_out = zt_malloc(sizeof(int) * 4 * (size_t)size), nwo = 0;
    for (int g = 0; g < size; g++) {
        /* Edge g -> g+1, weight g; edge 3g -> g, weight 1000 + g. */
        const int e[2][3] = { { g, mod(g + 1, size), g }, { mod(3 * g, size), g, 1000 + g } };
        for (int i = 0; i < 2; i++) {
            if (e[i][0] == rank)
                want_out[2 * nwo] = e[i][1], want_out[2 * nwo++ + 1] = e[i][2];
            if (e[i][1] == rank)
                want_in[2 * nwi] = e[i][0], want_in[2 * nwi++ + 1] = e[i][2];
        }
    }
    int in = -1, out = -1, wtd = -1;
    ZT_OK(MPI_Dist_graph_neighbors_count(d, &in, &out, &wtd));
    ZT_CHECK(in == nwi && out == nwo && wtd == 1, "general: %d/%d in, %d/%d out, weighted %d",
             in, nwi, out, nwo, wtd);
    int *s = zt_malloc(sizeof(int) * (size_t)(in + 1)), *sw = zt_malloc(sizeof(int) * (size_t)(in + 1));
    int *t = zt_malloc(sizeof(int) * (size_t)(out + 1)), *tw = zt_malloc(sizeof(int) * (size_t)(out + 1));
    int *got = zt_malloc(sizeof(int) * 2 * (size_t)(in + out + 1));
    ZT_OK(MPI_Dist_graph_neighbors(d, in, s, sw, out, t, tw));
    for (int i = 0; i < in; i++)
        got[2 * i] = s[i], got[2 * i + 1] = sw[i];
    sort_pairs(got, in);
    sort_pairs(want_in, nwi);
    for (int i = 0; i < 2 * in; i++)
        ZT_EQ(got[i], want_in[i], "sorted in-edges (rank, weight)");
    for (int i = 0; i < out; i++)
        got[2 * i] = t[i], got[2 * i + 1] = tw[i];
    sort_pairs(got, out);
    sort_pairs(want_out, nwo);
    for (int i = 0; i < 2 * out; i++)
        ZT_EQ(got[i], want_out[i], "sorted out-edges (rank, weight)");
    /* Same order on a second query. */
    int *s2 = zt_malloc(sizeof(int) * (size_t)(in + 1)), *t2 = zt_malloc(sizeof(int) * (size_t)(out + 1));
    ZT_OK(MPI_Dist_graph_neighbors(d, in, s2, MPI_UNWEIGHTED, out, t2, MPI_UNWEIGHTED));
    ZT_CHECK(memcmp(s, s2, sizeof(int) * (size_t)in) == 0 &&
             memcmp(t, t2, sizeof(int) * (size_t)out) == 0, "second query differs");
    ZT_OK(MPI_Comm_free(&d));
    free(want_in), free(want_out), free(s), free(sw), free(t), free(tw), free(got), free(s2),
        free(t2);
}

/* Rank 0 gives every edge of a ring r -> r+1 (weight 100 + r); the other
 * ranks give none, with MPI_WEIGHTS_EMPTY, then (unweighted) with NULL. */
static void check_dist_from_root(int rank, int size)
{
    int n = rank == 0 ? size : 0;
    int *src = zt_malloc(sizeof(int) * (size_t)size), *deg = zt_malloc(sizeof(int) * (size_t)size);
    int *dst = zt_malloc(sizeof(int) * (size_t)size), *w = zt_malloc(sizeof(int) * (size_t)size);
    for (int r = 0; r < size; r++)
        src[r] = r, deg[r] = 1, dst[r] = mod(r + 1, size), w[r] = 100 + r;
    for (int weighted = 1; weighted >= 0; weighted--) {
        const int *wts = rank == 0 ? (weighted ? w : MPI_UNWEIGHTED)
                                   : (weighted ? MPI_WEIGHTS_EMPTY : NULL);
        MPI_Comm d;
        ZT_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, n, src, deg, dst, wts, MPI_INFO_NULL, 0, &d));
        int in = -1, out = -1, wtd = -1, s[2] = { -1, -1 }, sw[2] = { -1, -1 }, t[2], tw[2];
        ZT_OK(MPI_Dist_graph_neighbors_count(d, &in, &out, &wtd));
        ZT_CHECK(in == 1 && out == 1 && wtd == weighted, "from root: %d %d %d", in, out, wtd);
        ZT_OK(MPI_Dist_graph_neighbors(d, 1, s, sw, 1, t, tw));
        ZT_CHECK(s[0] == mod(rank - 1, size) && t[0] == mod(rank + 1, size),
                 "from root: source %d destination %d", s[0], t[0]);
        if (weighted)
            ZT_CHECK(sw[0] == 100 + mod(rank - 1, size) && tw[0] == 100 + rank,
                     "from root: weights %d %d", sw[0], tw[0]);
        ZT_OK(MPI_Comm_free(&d));
    }
    /* No edges anywhere and weights NULL everywhere: NULL is an empty
     * array of weights, not MPI_UNWEIGHTED, so the graph is weighted. */
    MPI_Comm e;
    int in = -1, out = -1, wtd = -1;
    ZT_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, 0, NULL, NULL, NULL, NULL, MPI_INFO_NULL, 0, &e));
    ZT_OK(MPI_Dist_graph_neighbors_count(e, &in, &out, &wtd));
    ZT_CHECK(in == 0 && out == 0 && wtd == 1, "empty graph, NULL weights: %d %d %d", in, out,
             wtd);
    ZT_OK(MPI_Comm_free(&e));
    free(src), free(deg), free(dst), free(w);
}

static void check_dist_errors(int rank, int size)
{
    MPI_Comm d;
    int src[1] = { size }, w[1] = { -1 }, ok[1] = { rank }, one[1] = { 1 };
    ZT_EQ(zt_err_class(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, MPI_UNWEIGHTED, 0, NULL,
                                         MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &d)),
          MPI_ERR_RANK, "adjacent: source rank = size");
    ZT_EQ(zt_err_class(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, ok, w, 0, NULL, MPI_WEIGHTS_EMPTY,
                                         MPI_INFO_NULL, 0, &d)),
          MPI_ERR_ARG, "adjacent: negative weight");
    ZT_EQ(zt_err_class(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, -1, ok, MPI_UNWEIGHTED, 0, NULL,
                                         MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &d)),
          MPI_ERR_ARG, "adjacent: indegree -1");
    ZT_EQ(zt_err_class(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, ok, NULL, 0, NULL, NULL,
                                         MPI_INFO_NULL, 0, &d)),
          MPI_ERR_ARG, "adjacent: NULL weights");
    ZT_EQ(zt_err_class(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, ok, one, src, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                0, &d)),
          MPI_ERR_RANK, "general: destination rank = size");
    ZT_EQ(zt_err_class(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, ok, w, ok, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                &d)),
          MPI_ERR_ARG, "general: degree -1");
    ZT_EQ(zt_err_class(MPI_Dist_graph_neighbors_count(MPI_COMM_WORLD, ok, ok, ok)), MPI_ERR_TOPOLOGY,
          "Dist_graph_neighbors_count on the world");
    ZT_EQ(zt_err_class(MPI_Dist_graph_neighbors(MPI_COMM_WORLD, 0, NULL, NULL, 0, NULL, NULL)),
          MPI_ERR_TOPOLOGY, "Dist_graph_neighbors on the world");
    ZT_EQ(zt_err_class(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_UNWEIGHTED, 0,
                                                   NULL, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                                   NULL)),
          MPI_ERR_ARG, "adjacent: no place for the new communicator");
    ZT_EQ(zt_err_class(MPI_Dist_graph_create(MPI_COMM_NULL, 0, NULL, NULL, NULL, MPI_UNWEIGHTED,
                                          MPI_INFO_NULL, 0, &d)),
          MPI_ERR_COMM, "general: MPI_COMM_NULL");
    ZT_EQ(zt_err_class(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, ok, NULL, ok, MPI_UNWEIGHTED,
                                          MPI_INFO_NULL, 0, &d)),
          MPI_ERR_ARG, "general: NULL degrees");
    /* Queries on a distributed graph (one self edge each) with missing
     * output arguments, and the Cartesian and graph queries on it. */
    ZT_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, ok, MPI_UNWEIGHTED, 1, ok,
                                         MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &d));
    MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN);
    int in, out, wtd, got[1] = { -1 };
    ZT_EQ(zt_err_class(MPI_Dist_graph_neighbors_count(d, &in, NULL, &wtd)), MPI_ERR_ARG,
          "Dist_graph_neighbors_count: NULL outdegree");
    ZT_EQ(zt_err_class(MPI_Dist_graph_neighbors(d, 1, NULL, MPI_UNWEIGHTED, 1, got, MPI_UNWEIGHTED)),
          MPI_ERR_ARG, "Dist_graph_neighbors: NULL sources");
    ZT_EQ(zt_err_class(MPI_Cartdim_get(d, &in)), MPI_ERR_TOPOLOGY, "Cartdim_get on a dist graph");
    ZT_EQ(zt_err_class(MPI_Graphdims_get(d, &in, &out)), MPI_ERR_TOPOLOGY,
          "Graphdims_get on a dist graph");
    ZT_OK(MPI_Dist_graph_neighbors_count(d, &in, &out, &wtd));
    ZT_EQ(in * 100 + out * 10 + wtd, 110, "self edge: one in, one out, unweighted");
    ZT_OK(MPI_Dist_graph_neighbors(d, 1, got, MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED));
    ZT_EQ(got[0], rank, "self edge: the source is the rank itself");
    ZT_OK(MPI_Comm_free(&d));
}

int main(int argc, char **argv)
{
    int rank, size;
    zt_init_errors_return(&argc, &argv, &rank, &size);
    check_graph_example(rank, size);
    check_graph_errors(size);
    check_dist_adjacent(rank, size);
    check_dist_general(rank, size);
    check_dist_from_root(rank, size);
    check_dist_errors(rank, size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("topo_graph: %d ranks OK\n", size);
    MPI_Finalize();
    return 0;
}
