/*
 * topo.c: process topologies (MPI 4.1 chapter 8): Cartesian and graph
 * topologies, MPI_Dims_create, MPI_Topo_test, and the topology objects
 * that communicators carry.  Distributed graphs and the neighbourhood
 * collectives are in neighbor.c.
 *
 * A topology communicator is made by MPI_Comm_split over the old
 * communicator (which gives it a fresh context and no attributes), then
 * the topology is attached to each member's object.  Reordering
 * (reorder = 1) keeps the identity: a rank's worker is fixed when the job
 * starts (ranks go to workers in blocks of consecutive world ranks), so
 * renumbering could not move a rank next to its neighbours, and
 * row-major grids already put most neighbours in the same block.
 */
#include "topo_impl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ---- Topology objects --------------------------------------------------- */

/* MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY: only their addresses matter. */
int zmpi_unweighted[1];
int zmpi_weights_empty[1];

struct zm_mpi_topo *zm_mpi_topo_new(int kind, size_t nints)
{
    /* In the rank's heap in a --checkpoint job, so that it moves with the
     * rank (docs/migrate.md, "Across processes"). */
    struct zm_mpi_topo *t = zm_core_obj_alloc(sizeof(*t) + nints * sizeof(int));
    if (!t)
        return NULL;
    memset(t, 0, sizeof(*t));
    atomic_init(&t->refs, 1);
    t->kind = kind;
    t->info = MPI_INFO_NULL;
    t->cap = nints;
    return t;
}

int *zm_mpi_topo_take(struct zm_mpi_topo *t, size_t n)
{
    int *p = t->ints + t->used;
    t->used += n;
    return p;
}

void zm_mpi_topo_unref(struct zm_mpi_topo *t)
{
    if (!t || atomic_fetch_sub(&t->refs, 1) != 1)
        return;
    if (t->info != MPI_INFO_NULL)
        PMPI_Info_free(&t->info);
    if (t->nb_cache)
        zm_mpi_sched_free(t->nb_cache);
    zm_core_obj_free(t);
}

int zm_mpi_topo_forget(struct zmpi_comm *c)
{
    struct zm_mpi_topo *t = c->topo;
    if (!t || !t->nb_cache)
        return 0;
    zm_mpi_sched_free(t->nb_cache);
    t->nb_cache = NULL;
    return 1;
}

int zm_mpi_topo_own(const struct zmpi_comm *c, int (*in)(const void *p, void *arg), void *arg)
{
    const struct zm_mpi_topo *t = c->topo;
    return !t || (in(t, arg) && (t->info == MPI_INFO_NULL || in(t->info, arg)));
}

int zm_mpi_topo_dup(struct zmpi_comm *old_comm, struct zmpi_comm *new_comm)
{
    /* Topologies never change after creation, so the duplicate shares it. */
    new_comm->topo = old_comm->topo;
    if (new_comm->topo)
        atomic_fetch_add(&new_comm->topo->refs, 1);
    return MPI_SUCCESS;
}

void zm_mpi_topo_free(struct zmpi_comm *c)
{
    zm_mpi_topo_unref(c->topo);
    c->topo = NULL;
}

static const char *const kind_names[] = {
    [MPI_GRAPH] = "a graph", [MPI_CART] = "a Cartesian", [MPI_DIST_GRAPH] = "a distributed graph",
};

int zm_mpi_topo_check(MPI_Comm comm, const char *fn, int kind, struct zmpi_comm **cp,
                      struct zm_mpi_topo **tp)
{
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    int rc = zm_mpi_check_comm(me, comm, fn, cp);
    if (rc != MPI_SUCCESS)
        return rc;
    struct zmpi_comm *c = *cp;
    struct zm_mpi_topo *t = c->topo;
    *tp = t;
    if (!t)
        return zm_mpi_error(c, MPI_ERR_TOPOLOGY, fn, "(comm=%s): the communicator has no "
                            "process topology", c->name);
    if (kind && t->kind != kind)
        return zm_mpi_error(c, MPI_ERR_TOPOLOGY, fn, "(comm=%s): the communicator has %s "
                            "topology, not %s one", c->name, kind_names[t->kind],
                            kind_names[kind]);
    return MPI_SUCCESS;
}

int zm_mpi_topo_make_comm(struct zmpi_comm *c, MPI_Comm comm_old, const char *fn, int color,
                          struct zm_mpi_topo *t, MPI_Comm *newcomm)
{
    MPI_Comm nc = MPI_COMM_NULL;
    /* Key = old rank keeps the old order: the identity mapping. */
    int rc = PMPI_Comm_split(comm_old, color, c->p.rank, &nc);
    if (rc != MPI_SUCCESS) {
        zm_mpi_topo_unref(t);
        return rc;
    }
    if (nc != MPI_COMM_NULL && !t) {
        PMPI_Comm_free(&nc);
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory for the topology");
    }
    if (nc != MPI_COMM_NULL)
        nc->topo = t;
    else
        zm_mpi_topo_unref(t);
    *newcomm = nc;
    return MPI_SUCCESS;
}

int zm_mpi_topo_check_old(MPI_Comm comm_old, const char *fn, const void *out,
                          const char *outname, struct zmpi_comm **cp)
{
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    int rc = zm_mpi_check_comm(me, comm_old, fn, cp);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((*cp)->inter)
        return zm_mpi_error(*cp, MPI_ERR_COMM, fn, "(comm_old=%s): an intercommunicator cannot "
                            "carry a process topology", (*cp)->name);
    if (!out)
        return zm_mpi_error(*cp, MPI_ERR_ARG, fn, "(%s=NULL): no place for the result",
                            outname);
    return MPI_SUCCESS;
}

int zm_mpi_topo_null_arg(struct zmpi_comm *c, const char *fn, const char *what)
{
    return zm_mpi_error(c, MPI_ERR_ARG, fn, "(%s=NULL): invalid argument", what);
}

/* ---- Cartesian topologies ----------------------------------------------- */

/* Check ndims, dims and periods of a grid; its size goes to *n. */
static int check_grid(struct zmpi_comm *c, const char *fn, int ndims, const int *dims,
                      const int *periods, long long *n)
{
    if (ndims < 0)
        return zm_mpi_error(c, MPI_ERR_DIMS, fn, "(ndims=%d): must be >= 0", ndims);
    if (ndims > 0 && !dims)
        return zm_mpi_topo_null_arg(c, fn, "dims");
    if (ndims > 0 && !periods)
        return zm_mpi_topo_null_arg(c, fn, "periods");
    *n = 1;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return zm_mpi_error(c, MPI_ERR_DIMS, fn, "(dims[%d]=%d): must be > 0", i, dims[i]);
        *n *= dims[i];
        if (*n > INT_MAX)
            return zm_mpi_error(c, MPI_ERR_DIMS, fn, "(dims): the grid has more than %d "
                                "processes", INT_MAX);
    }
    if (*n > c->p.size)
        return zm_mpi_error(c, MPI_ERR_DIMS, fn, "(dims): the grid has %lld processes but "
                            "communicator %s has only %d", *n, c->name, c->p.size);
    return MPI_SUCCESS;
}

/* Coordinates of grid rank r, row-major (the last dimension varies
 * fastest, MPI 4.1 section 8.5.1). */
static void cart_coords_of(const struct zm_mpi_topo *t, int r, int *coords)
{
    for (int d = t->ndims - 1; d >= 0; d--) {
        coords[d] = r % t->dims[d];
        r /= t->dims[d];
    }
}

/* The rank `disp` steps from the calling rank along dimension d, or
 * MPI_PROC_NULL past the edge of a non-periodic dimension. */
static int cart_step(const struct zm_mpi_topo *t, int me, int d, long long disp)
{
    long long stride = 1;
    for (int i = d + 1; i < t->ndims; i++)
        stride *= t->dims[i];
    long long from = t->coords[d], to = from + disp, n = t->dims[d];
    if (t->periods[d])
        to = ((to % n) + n) % n;
    else if (to < 0 || to >= n)
        return MPI_PROC_NULL;
    return (int)(me + (to - from) * stride);
}

/* A Cartesian topology for grid rank `me`: coordinates, and the
 * neighbourhood (-1 then +1 neighbour of each dimension, for receives and
 * sends alike).  NULL if out of memory. */
static struct zm_mpi_topo *cart_new(int ndims, const int *dims, const int *periods, int me)
{
    size_t nd = (size_t)ndims;
    struct zm_mpi_topo *t = zm_mpi_topo_new(MPI_CART, 5 * nd);
    if (!t)
        return NULL;
    t->ndims = ndims;
    t->dims = zm_mpi_topo_take(t, nd);
    t->periods = zm_mpi_topo_take(t, nd);
    t->coords = zm_mpi_topo_take(t, nd);
    t->in = t->out = zm_mpi_topo_take(t, 2 * nd);
    t->nin = t->nout = 2 * ndims;
    for (int d = 0; d < ndims; d++) {
        t->dims[d] = dims[d];
        t->periods[d] = periods[d] != 0;
    }
    cart_coords_of(t, me, t->coords);
    for (int d = 0; d < ndims; d++) {
        t->in[2 * d] = cart_step(t, me, d, -1);
        t->in[2 * d + 1] = cart_step(t, me, d, 1);
    }
    return t;
}

int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                     int reorder, MPI_Comm *comm_cart)
{
    const char *fn = "MPI_Cart_create";
    struct zmpi_comm *c;
    long long n = 0;
    int rc = zm_mpi_topo_check_old(comm_old, fn, comm_cart, "comm_cart", &c);
    if (rc == MPI_SUCCESS)
        rc = check_grid(c, fn, ndims, dims, periods, &n);
    if (rc != MPI_SUCCESS)
        return rc;
    (void)reorder; /* identity mapping, see the top of the file */
    int member = c->p.rank < n;
    struct zm_mpi_topo *t = member ? cart_new(ndims, dims, periods, c->p.rank) : NULL;
    return zm_mpi_topo_make_comm(c, comm_old, fn, member ? 0 : MPI_UNDEFINED, t, comm_cart);
}
ZM_WEAK(Cart_create)

int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    ZM_TOPO_ENTER("MPI_Cartdim_get", comm, MPI_CART);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!ndims)
        return zm_mpi_topo_null_arg(c, fn, "ndims");
    *ndims = t->ndims;
    return MPI_SUCCESS;
}
ZM_WEAK(Cartdim_get)

/* Check a caller's array length `max` (0 or more) and its array, needed
 * when anything is to be written to it. */
static int check_out(struct zmpi_comm *c, const char *fn, const char *maxname, int max,
                     const char *what, const void *arr, int n)
{
    if (max < 0)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(%s=%d): must be >= 0", maxname, max);
    if (!arr && max > 0 && n > 0)
        return zm_mpi_topo_null_arg(c, fn, what);
    return MPI_SUCCESS;
}

static int min_int(int a, int b)
{
    return a < b ? a : b;
}

int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    ZM_TOPO_ENTER("MPI_Cart_get", comm, MPI_CART);
    if (rc == MPI_SUCCESS)
        rc = check_out(c, fn, "maxdims", maxdims, "dims", dims, t->ndims);
    if (rc == MPI_SUCCESS)
        rc = check_out(c, fn, "maxdims", maxdims, "periods", periods, t->ndims);
    if (rc == MPI_SUCCESS)
        rc = check_out(c, fn, "maxdims", maxdims, "coords", coords, t->ndims);
    if (rc != MPI_SUCCESS)
        return rc;
    /* maxdims is the length of the caller's arrays: never write past it. */
    for (int d = 0; d < min_int(maxdims, t->ndims); d++) {
        dims[d] = t->dims[d];
        periods[d] = t->periods[d];
        coords[d] = t->coords[d];
    }
    return MPI_SUCCESS;
}
ZM_WEAK(Cart_get)

int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    ZM_TOPO_ENTER("MPI_Cart_rank", comm, MPI_CART);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!rank)
        return zm_mpi_topo_null_arg(c, fn, "rank");
    if (t->ndims > 0 && !coords)
        return zm_mpi_topo_null_arg(c, fn, "coords");
    long long r = 0;
    for (int d = 0; d < t->ndims; d++) {
        long long x = coords[d], n = t->dims[d];
        /* A periodic dimension wraps any coordinate; a non-periodic one
         * has no processes outside 0..n-1 (MPI 4.1 section 8.5.5). */
        if (t->periods[d])
            x = ((x % n) + n) % n;
        else if (x < 0 || x >= n)
            return zm_mpi_error(c, MPI_ERR_ARG, fn, "(coords[%d]=%d): outside 0..%lld of the "
                                "non-periodic dimension %d", d, coords[d], n - 1, d);
        r = r * n + x;
    }
    *rank = (int)r;
    return MPI_SUCCESS;
}
ZM_WEAK(Cart_rank)

int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    ZM_TOPO_ENTER("MPI_Cart_coords", comm, MPI_CART);
    if (rc != MPI_SUCCESS)
        return rc;
    if (rank < 0 || rank >= c->p.size)
        return zm_mpi_check_rank_fail(c, fn, "rank", rank);
    rc = check_out(c, fn, "maxdims", maxdims, "coords", coords, t->ndims);
    if (rc != MPI_SUCCESS)
        return rc;
    int *all = t->ndims > 0 ? malloc(sizeof(int) * (size_t)t->ndims) : NULL;
    if (t->ndims > 0 && !all)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    cart_coords_of(t, rank, all);
    for (int d = 0; d < min_int(maxdims, t->ndims); d++)
        coords[d] = all[d];
    free(all);
    return MPI_SUCCESS;
}
ZM_WEAK(Cart_coords)

int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
{
    ZM_TOPO_ENTER("MPI_Cart_shift", comm, MPI_CART);
    if (rc != MPI_SUCCESS)
        return rc;
    if (direction < 0 || direction >= t->ndims)
        return zm_mpi_error(c, MPI_ERR_DIMS, fn, "(direction=%d): the grid has %d "
                            "dimension%s", direction, t->ndims, t->ndims == 1 ? "" : "s");
    if (!rank_source || !rank_dest)
        return zm_mpi_topo_null_arg(c, fn, !rank_source ? "rank_source" : "rank_dest");
    *rank_source = cart_step(t, c->p.rank, direction, -(long long)disp);
    *rank_dest = cart_step(t, c->p.rank, direction, disp);
    return MPI_SUCCESS;
}
ZM_WEAK(Cart_shift)

int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    ZM_TOPO_ENTER("MPI_Cart_sub", comm, MPI_CART);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!newcomm)
        return zm_mpi_topo_null_arg(c, fn, "newcomm");
    if (t->ndims > 0 && !remain_dims)
        return zm_mpi_topo_null_arg(c, fn, "remain_dims");
    int *keep = malloc(sizeof(int) * 2 * (size_t)(t->ndims + 1)), nk = 0;
    if (!keep)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    int *kperiods = keep + t->ndims + 1;
    /* The colour numbers the dropped coordinates, the new rank the kept
     * ones, both row-major: the subgrids come out in the old order. */
    int color = 0, newrank = 0;
    for (int d = 0; d < t->ndims; d++) {
        if (remain_dims[d]) {
            newrank = newrank * t->dims[d] + t->coords[d];
            kperiods[nk] = t->periods[d];
            keep[nk++] = t->dims[d];
        } else {
            color = color * t->dims[d] + t->coords[d];
        }
    }
    struct zm_mpi_topo *nt = cart_new(nk, keep, kperiods, newrank);
    free(keep);
    return zm_mpi_topo_make_comm(c, comm, fn, color, nt, newcomm);
}
ZM_WEAK(Cart_sub)

int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank)
{
    const char *fn = "MPI_Cart_map";
    struct zmpi_comm *c;
    long long n = 0;
    int rc = zm_mpi_topo_check_old(comm, fn, newrank, "newrank", &c);
    if (rc == MPI_SUCCESS)
        rc = check_grid(c, fn, ndims, dims, periods, &n);
    if (rc != MPI_SUCCESS)
        return rc;
    /* The identity mapping, as MPI_Cart_create uses. */
    *newrank = c->p.rank < n ? c->p.rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
ZM_WEAK(Cart_map)

/* ---- MPI_Dims_create ---------------------------------------------------- */

/* Search for the most balanced way to write a product as k factors in
 * non-increasing order: the smallest difference between the largest and
 * the smallest factor, then the smallest largest factor. */
struct dims_search {
    int k;          /* factors wanted */
    const int *div; /* divisors of the product, ascending */
    int ndiv;
    int *cur;       /* factors chosen so far */
    int *best;      /* best complete choice */
    long long diff; /* its largest minus smallest factor (LLONG_MAX: none yet) */
};

/* Nonzero if f^e >= m, without overflow. */
static int pow_reaches(long long f, int e, long long m)
{
    long long p = 1;
    for (int i = 0; i < e && p < m; i++)
        p *= f;
    return p >= m;
}

/* Choose factors pos.. (each at most maxf) whose product is rem. */
static void dims_rec(struct dims_search *s, int pos, long long rem, long long maxf)
{
    if (pos == s->k - 1 || rem == 1) {
        if (rem > maxf)
            return;
        for (int i = pos; i < s->k; i++)
            s->cur[i] = i == pos ? (int)rem : 1;
        long long diff = (long long)s->cur[0] - (s->k - 1 > pos ? 1 : rem);
        if (diff < s->diff) {
            s->diff = diff;
            memcpy(s->best, s->cur, sizeof(int) * (size_t)s->k);
        }
        return;
    }
    /* Largest factors first: the balanced choices come early and the
     * bound below then cuts the rest. */
    for (int i = s->ndiv - 1; i >= 0; i--) {
        long long f = s->div[i];
        if (f > maxf || rem % f)
            continue;
        if (s->cur[0] - f >= s->diff || !pow_reaches(f, s->k - pos, rem))
            break;
        s->cur[pos] = (int)f;
        dims_rec(s, pos + 1, rem / f, f);
    }
}

/* No positive int has more divisors (2095133040 has exactly 1600). */
#define DIMS_MAX_DIVISORS 1600

/* Write m (>= 1) as k (>= 1) balanced factors, non-increasing, into out.
 * Returns 0, or -1 if out of memory. */
static int dims_balance(int m, int k, int *out)
{
    if (k == 1) {
        out[0] = m;
        return 0;
    }
    int *div = malloc(sizeof(int) * (DIMS_MAX_DIVISORS + 2 * (size_t)k));
    if (!div)
        return -1;
    /* Divisors ascending: those up to sqrt(m) from the front, their
     * cofactors from the back, then closed up. */
    int lo = 0, hi = DIMS_MAX_DIVISORS;
    for (long long d = 1; d * d <= m; d++) {
        if (m % d)
            continue;
        div[lo++] = (int)d;
        if (d * d != m)
            div[--hi] = (int)(m / d);
    }
    memmove(div + lo, div + hi, sizeof(int) * (size_t)(DIMS_MAX_DIVISORS - hi));
    int *cur = div + DIMS_MAX_DIVISORS;
    struct dims_search s = { k, div, lo + DIMS_MAX_DIVISORS - hi, cur, cur + k, LLONG_MAX };
    /* Some factor is at most the k-th root of m, so a largest factor f
     * cannot give a difference below f - root. */
    long long root = 1;
    while (!pow_reaches(root + 1, k, (long long)m + 1))
        root++;
    for (int i = 0; i < s.ndiv; i++) {
        long long f = div[i];
        if (!pow_reaches(f, k, m))
            continue;
        if (f - root >= s.diff)
            break;
        cur[0] = (int)f;
        dims_rec(&s, 1, m / f, f);
    }
    memcpy(out, s.best, sizeof(int) * (size_t)k);
    free(div);
    return 0;
}

int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    const char *fn = "MPI_Dims_create";
    zm_mpi_enter(fn);
    if (ndims < 0)
        return zm_mpi_error(NULL, MPI_ERR_DIMS, fn, "(ndims=%d): must be >= 0", ndims);
    if (nnodes <= 0)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(nnodes=%d): must be > 0", nnodes);
    if (ndims > 0 && !dims)
        return zm_mpi_topo_null_arg(NULL, fn, "dims");
    long long fixed = 1;
    int nfree = 0;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0)
            return zm_mpi_error(NULL, MPI_ERR_DIMS, fn, "(dims[%d]=%d): must be >= 0 (0: "
                                "let MPI choose)", i, dims[i]);
        nfree += dims[i] == 0;
        fixed *= dims[i] ? dims[i] : 1;
        if (fixed > nnodes)
            break;
    }
    if (nnodes % fixed != 0 || (nfree == 0 && fixed != nnodes))
        return zm_mpi_error(NULL, MPI_ERR_DIMS, fn, "(nnodes=%d): not the product of the "
                            "nonzero entries of dims times whole numbers for the zero ones",
                            nnodes);
    if (nfree == 0)
        return MPI_SUCCESS;
    int *f = malloc(sizeof(int) * (size_t)nfree);
    if (!f || dims_balance((int)(nnodes / fixed), nfree, f) != 0) {
        free(f);
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    for (int i = 0, j = 0; i < ndims; i++)
        if (dims[i] == 0)
            dims[i] = f[j++];
    free(f);
    return MPI_SUCCESS;
}
ZM_WEAK(Dims_create)

/* ---- Graph topologies --------------------------------------------------- */

/* Check a graph description: nnodes nodes (at most the communicator's
 * size), cumulative degrees `index`, neighbours `edges`. */
static int check_graph(struct zmpi_comm *c, const char *fn, int nnodes, const int *index,
                       const int *edges)
{
    if (nnodes < 0 || nnodes > c->p.size)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(nnodes=%d): must be in 0..%d, the size of "
                            "communicator %s", nnodes, c->p.size, c->name);
    if (nnodes == 0)
        return MPI_SUCCESS;
    if (!index)
        return zm_mpi_topo_null_arg(c, fn, "index");
    for (int i = 0; i < nnodes; i++)
        if (index[i] < (i ? index[i - 1] : 0))
            return zm_mpi_error(c, MPI_ERR_ARG, fn, "(index[%d]=%d): the cumulative degrees "
                                "must not decrease nor start below 0", i, index[i]);
    if (index[nnodes - 1] > 0 && !edges)
        return zm_mpi_topo_null_arg(c, fn, "edges");
    for (int j = 0; j < index[nnodes - 1]; j++)
        if (edges[j] < 0 || edges[j] >= nnodes)
            return zm_mpi_error(c, MPI_ERR_ARG, fn, "(edges[%d]=%d): not a node of the graph "
                                "(0..%d)", j, edges[j], nnodes - 1);
    return MPI_SUCCESS;
}

/* A graph topology for node `me`: the whole graph, and me's neighbours as
 * its neighbourhood for receives and sends alike.  NULL if out of memory. */
static struct zm_mpi_topo *graph_new(int nnodes, const int *index, const int *edges, int me)
{
    int nedges = index[nnodes - 1];
    struct zm_mpi_topo *t = zm_mpi_topo_new(MPI_GRAPH, (size_t)nnodes + (size_t)nedges);
    if (!t)
        return NULL;
    t->nnodes = nnodes;
    t->nedges = nedges;
    t->index = zm_mpi_topo_take(t, (size_t)nnodes);
    t->edges = zm_mpi_topo_take(t, (size_t)nedges);
    memcpy(t->index, index, sizeof(int) * (size_t)nnodes);
    memcpy(t->edges, edges, sizeof(int) * (size_t)nedges);
    int first = me ? index[me - 1] : 0;
    t->in = t->out = t->edges + first;
    t->nin = t->nout = index[me] - first;
    return t;
}

int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                      int reorder, MPI_Comm *comm_graph)
{
    const char *fn = "MPI_Graph_create";
    struct zmpi_comm *c;
    int rc = zm_mpi_topo_check_old(comm_old, fn, comm_graph, "comm_graph", &c);
    if (rc == MPI_SUCCESS)
        rc = check_graph(c, fn, nnodes, index, edges);
    if (rc != MPI_SUCCESS)
        return rc;
    (void)reorder; /* identity mapping, see the top of the file */
    int member = c->p.rank < nnodes;
    struct zm_mpi_topo *t = member ? graph_new(nnodes, index, edges, c->p.rank) : NULL;
    return zm_mpi_topo_make_comm(c, comm_old, fn, member ? 0 : MPI_UNDEFINED, t, comm_graph);
}
ZM_WEAK(Graph_create)

int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    ZM_TOPO_ENTER("MPI_Graphdims_get", comm, MPI_GRAPH);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!nnodes || !nedges)
        return zm_mpi_topo_null_arg(c, fn, !nnodes ? "nnodes" : "nedges");
    *nnodes = t->nnodes;
    *nedges = t->nedges;
    return MPI_SUCCESS;
}
ZM_WEAK(Graphdims_get)

int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[])
{
    ZM_TOPO_ENTER("MPI_Graph_get", comm, MPI_GRAPH);
    if (rc == MPI_SUCCESS)
        rc = check_out(c, fn, "maxindex", maxindex, "index", index, t->nnodes);
    if (rc == MPI_SUCCESS)
        rc = check_out(c, fn, "maxedges", maxedges, "edges", edges, t->nedges);
    if (rc != MPI_SUCCESS)
        return rc;
    if (maxindex > 0)
        memcpy(index, t->index, sizeof(int) * (size_t)min_int(maxindex, t->nnodes));
    if (maxedges > 0)
        memcpy(edges, t->edges, sizeof(int) * (size_t)min_int(maxedges, t->nedges));
    return MPI_SUCCESS;
}
ZM_WEAK(Graph_get)

/* Check a node number of a graph communicator; its neighbours are
 * edges[*first .. *first + *n). */
static int graph_node(struct zmpi_comm *c, const char *fn, const struct zm_mpi_topo *t, int rank,
                      int *first, int *n)
{
    if (rank < 0 || rank >= t->nnodes)
        return zm_mpi_check_rank_fail(c, fn, "rank", rank);
    *first = rank ? t->index[rank - 1] : 0;
    *n = t->index[rank] - *first;
    return MPI_SUCCESS;
}

int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    ZM_TOPO_ENTER("MPI_Graph_neighbors_count", comm, MPI_GRAPH);
    int first, n;
    if (rc == MPI_SUCCESS)
        rc = graph_node(c, fn, t, rank, &first, &n);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!nneighbors)
        return zm_mpi_topo_null_arg(c, fn, "nneighbors");
    *nneighbors = n;
    return MPI_SUCCESS;
}
ZM_WEAK(Graph_neighbors_count)

int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    ZM_TOPO_ENTER("MPI_Graph_neighbors", comm, MPI_GRAPH);
    int first, n;
    if (rc == MPI_SUCCESS)
        rc = graph_node(c, fn, t, rank, &first, &n);
    if (rc == MPI_SUCCESS)
        rc = check_out(c, fn, "maxneighbors", maxneighbors, "neighbors", neighbors, n);
    if (rc != MPI_SUCCESS)
        return rc;
    if (maxneighbors > 0)
        memcpy(neighbors, t->edges + first, sizeof(int) * (size_t)min_int(maxneighbors, n));
    return MPI_SUCCESS;
}
ZM_WEAK(Graph_neighbors)

int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank)
{
    const char *fn = "MPI_Graph_map";
    struct zmpi_comm *c;
    int rc = zm_mpi_topo_check_old(comm, fn, newrank, "newrank", &c);
    if (rc == MPI_SUCCESS)
        rc = check_graph(c, fn, nnodes, index, edges);
    if (rc != MPI_SUCCESS)
        return rc;
    /* The identity mapping, as MPI_Graph_create uses. */
    *newrank = c->p.rank < nnodes ? c->p.rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
ZM_WEAK(Graph_map)

/* ---- MPI_Topo_test ------------------------------------------------------ */

int PMPI_Topo_test(MPI_Comm comm, int *status)
{
    const char *fn = "MPI_Topo_test";
    ENTER_COMM(fn, comm, c);
    if (!status)
        return zm_mpi_topo_null_arg(c, fn, "status");
    *status = c->topo ? c->topo->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
ZM_WEAK(Topo_test)
