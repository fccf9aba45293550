/*
 * neighbor.c: distributed graph topologies and the neighbourhood
 * collectives (MPI 4.1 sections 8.5.4, 8.6 and 8.7), blocking,
 * non-blocking and persistent.
 *
 * A neighbourhood collective is one composite request (sched.c): a receive
 * per in-neighbour slot and a send per out-neighbour slot, on the
 * communicator's collective context.  Slots whose neighbour is
 * MPI_PROC_NULL get no message, so their part of the receive buffer is
 * left as it was.
 *
 * Matching.  On a Cartesian communicator both neighbours of a dimension
 * can be the same rank (a periodic dimension of size 1 or 2), so the
 * source rank alone cannot tell which slot a message is for.  The tag
 * does: receive slot k takes tag k, and the block for send slot k (the
 * -1 neighbour when k is even) goes to the neighbour's opposite slot k^1,
 * exactly as MPI 4.1's Sendrecv formulation of these calls pairs them.
 * On graph and distributed graph communicators every message has tag 0:
 * several edges between two ranks then match in list order, as
 * point-to-point order guarantees.
 */
#include "topo_impl.h"
#include "large.h"

#include <stdlib.h>
#include <string.h>

/* ---- Distributed graph topologies --------------------------------------- */

/* A private copy of an info object (MPI_INFO_NULL stays so), in the same
 * key order.  Returns MPI_SUCCESS or MPI_ERR_NO_MEM. */
static int info_copy(MPI_Info in, MPI_Info *out)
{
    *out = MPI_INFO_NULL;
    if (in == MPI_INFO_NULL)
        return MPI_SUCCESS;
    return PMPI_Info_dup(in, out) == MPI_SUCCESS ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

/* A distributed graph topology with room for nin sources and nout
 * destinations (and their weights when weighted), plus a copy of info.
 * NULL if out of memory. */
static struct zm_mpi_topo *dist_new(int nin, int nout, int weighted, MPI_Info info)
{
    size_t n = (size_t)nin + (size_t)nout;
    struct zm_mpi_topo *t = zm_mpi_topo_new(MPI_DIST_GRAPH, weighted ? 2 * n : n);
    if (!t)
        return NULL;
    t->nin = nin;
    t->nout = nout;
    t->in = zm_mpi_topo_take(t, (size_t)nin);
    t->out = zm_mpi_topo_take(t, (size_t)nout);
    t->weighted = weighted;
    if (weighted) {
        t->inw = zm_mpi_topo_take(t, (size_t)nin);
        t->outw = zm_mpi_topo_take(t, (size_t)nout);
    }
    if (info_copy(info, &t->info) != MPI_SUCCESS) {
        zm_mpi_topo_unref(t);
        return NULL;
    }
    return t;
}

/* Resolve comm_old of a distributed graph constructor and check info. */
static int dist_check_old(MPI_Comm comm_old, const char *fn, MPI_Info info, const void *out,
                          struct zmpi_comm **cp)
{
    int rc = zm_mpi_topo_check_old(comm_old, fn, out, "comm_dist_graph", cp);
    if (rc != MPI_SUCCESS || info == MPI_INFO_NULL)
        return rc;
    return zm_mpi_info_check(fn, info);
}

/* Check n ranks of a list (named what) and, when `w` is a weight array
 * (not MPI_UNWEIGHTED), their weights. */
static int dist_check_list(struct zmpi_comm *c, const char *fn, const char *what, int n,
                           const int *ranks, const char *wname, const int *w)
{
    if (n < 0)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(%s: degree %d): must be >= 0", what, n);
    if (n == 0)
        return MPI_SUCCESS;
    if (!ranks)
        return zm_mpi_topo_null_arg(c, fn, what);
    for (int i = 0; i < n; i++)
        if (ranks[i] < 0 || ranks[i] >= c->p.size)
            return zm_mpi_error(c, MPI_ERR_RANK, fn, "(%s[%d]=%d): invalid rank, communicator "
                                "%s has %d ranks", what, i, ranks[i], c->name, c->p.size);
    if (w == MPI_UNWEIGHTED)
        return MPI_SUCCESS;
    if (!w || w == MPI_WEIGHTS_EMPTY)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(%s=%s): %d weights are needed (or "
                            "MPI_UNWEIGHTED)", wname, w ? "MPI_WEIGHTS_EMPTY" : "NULL", n);
    for (int i = 0; i < n; i++)
        if (w[i] < 0)
            return zm_mpi_error(c, MPI_ERR_ARG, fn, "(%s[%d]=%d): weights must be >= 0", wname,
                                i, w[i]);
    return MPI_SUCCESS;
}

int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                    const int sourceweights[], int outdegree,
                                    const int destinations[], const int destweights[],
                                    MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
    const char *fn = "MPI_Dist_graph_create_adjacent";
    struct zmpi_comm *c;
    int rc = dist_check_old(comm_old, fn, info, comm_dist_graph, &c);
    if (rc == MPI_SUCCESS)
        rc = dist_check_list(c, fn, "sources", indegree, sources, "sourceweights", sourceweights);
    if (rc == MPI_SUCCESS)
        rc = dist_check_list(c, fn, "destinations", outdegree, destinations, "destweights",
                             destweights);
    if (rc != MPI_SUCCESS)
        return rc;
    /* MPI_UNWEIGHTED on one side makes the graph unweighted; the other
     * side must say so too unless it has no edges (MPI 4.1 section
     * 8.5.4). */
    int unw_in = sourceweights == MPI_UNWEIGHTED, unw_out = destweights == MPI_UNWEIGHTED;
    if ((unw_in && !unw_out && outdegree > 0) || (unw_out && !unw_in && indegree > 0))
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(%s=MPI_UNWEIGHTED): the other weight array "
                            "must be MPI_UNWEIGHTED too", unw_in ? "sourceweights"
                                                                 : "destweights");
    (void)reorder; /* identity mapping, see topo.c */
    int weighted = !unw_in && !unw_out;
    struct zm_mpi_topo *t = dist_new(indegree, outdegree, weighted, info);
    if (t) {
        memcpy(t->in, sources, sizeof(int) * (size_t)indegree);
        memcpy(t->out, destinations, sizeof(int) * (size_t)outdegree);
        if (weighted && indegree > 0)
            memcpy(t->inw, sourceweights, sizeof(int) * (size_t)indegree);
        if (weighted && outdegree > 0)
            memcpy(t->outw, destweights, sizeof(int) * (size_t)outdegree);
    }
    return zm_mpi_topo_make_comm(c, comm_old, fn, 0, t, comm_dist_graph);
}
ZM_WEAK(Dist_graph_create_adjacent)

/* Check the edge lists of MPI_Dist_graph_create; the number of edges goes
 * to *nedges. */
static int dist_check_edges(struct zmpi_comm *c, const char *fn, int n, const int *sources,
                            const int *degrees, const int *dests, const int *weights,
                            int *nedges)
{
    int rc = dist_check_list(c, fn, "sources", n, sources, "", MPI_UNWEIGHTED);
    if (rc != MPI_SUCCESS)
        return rc;
    if (n > 0 && !degrees)
        return zm_mpi_topo_null_arg(c, fn, "degrees");
    long long total = 0;
    for (int i = 0; i < n; i++) {
        if (degrees[i] < 0)
            return zm_mpi_error(c, MPI_ERR_ARG, fn, "(degrees[%d]=%d): must be >= 0", i,
                                degrees[i]);
        total += degrees[i];
    }
    /* Each edge becomes two records of three ints in the exchange. */
    if (total > INT32_MAX / 8)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(degrees): %lld edges are too many", total);
    *nedges = (int)total;
    return dist_check_list(c, fn, "destinations", *nedges, dests, "weights", weights);
}

/* An edge record of the exchange: (1 for an in-edge / 0 for an out-edge
 * of the receiving rank, the other end, the weight or -1). */
enum { REC_INTS = 3 };

/* Every rank's records from the edges it was given: records for rank p go
 * to buf + displs[p], and counts[p] ints of them.  Returns the buffer, or
 * NULL if out of memory. */
static int *dist_pack(int size, int n, const int *sources, const int *degrees, const int *dests,
                      const int *weights, int *counts, int *displs)
{
    memset(counts, 0, sizeof(int) * (size_t)size);
    int k = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, k++) {
            counts[sources[i]] += REC_INTS;
            counts[dests[k]] += REC_INTS;
        }
    int *buf = malloc(sizeof(int) * ((size_t)k * 2 * REC_INTS + 1));
    if (!buf)
        return NULL;
    for (int p = 0, at = 0; p < size; p++) {
        displs[p] = at;
        at += counts[p];
    }
    int *fill = malloc(sizeof(int) * (size_t)size);
    if (!fill) {
        free(buf);
        return NULL;
    }
    memcpy(fill, displs, sizeof(int) * (size_t)size);
    k = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, k++) {
            int s = sources[i], d = dests[k], w = weights == MPI_UNWEIGHTED ? -1 : weights[k];
            int *o = buf + fill[s];
            fill[s] += REC_INTS;
            o[0] = 0, o[1] = d, o[2] = w;
            int *in = buf + fill[d];
            fill[d] += REC_INTS;
            in[0] = 1, in[1] = s, in[2] = w;
        }
    free(fill);
    return buf;
}

/* Build the calling rank's topology from the records it received (nints
 * ints), in arrival order: by giving rank, then in its order.  `weighted`
 * is -1 when the rank cannot tell (it gave no edges and weights NULL):
 * the records say then, and with no records the graph is weighted, since
 * NULL is an empty array of weights, not MPI_UNWEIGHTED (as MPICH's
 * topo/distgraph1 expects).  NULL if out of memory; *mixed is set if
 * weighted and unweighted edges were mixed. */
static struct zm_mpi_topo *dist_unpack(const int *rec, int nints, int weighted, MPI_Info info,
                                       int *mixed)
{
    int nin = 0, nout = 0;
    *mixed = 0;
    if (weighted < 0)
        weighted = nints == 0 || rec[2] >= 0;
    for (int i = 0; i < nints; i += REC_INTS) {
        nin += rec[i] == 1;
        nout += rec[i] == 0;
        *mixed |= (rec[i + 2] < 0) == weighted;
    }
    struct zm_mpi_topo *t = dist_new(nin, nout, weighted, info);
    if (!t)
        return NULL;
    nin = nout = 0;
    for (int i = 0; i < nints; i += REC_INTS) {
        int *list = rec[i] ? t->in : t->out, *w = rec[i] ? t->inw : t->outw;
        int at = rec[i] ? nin++ : nout++;
        list[at] = rec[i + 1];
        if (weighted)
            w[at] = rec[i + 2] < 0 ? 0 : rec[i + 2];
    }
    return t;
}

/* Exchange the edge records over comm_old (Alltoall of counts, Alltoallv
 * of records) and build the topology.  *t is NULL if out of memory. */
static int dist_exchange(struct zmpi_comm *c, MPI_Comm comm_old, int n, const int *sources,
                         const int *degrees, const int *dests, const int *weights, int weighted,
                         MPI_Info info, struct zm_mpi_topo **t, int *mixed)
{
    int size = c->p.size, rc = MPI_SUCCESS;
    int *v = malloc(sizeof(int) * 4 * (size_t)size);
    int *sbuf = v ? dist_pack(size, n, sources, degrees, dests, weights, v, v + size) : NULL;
    *t = NULL;
    if (!sbuf) {
        free(v);
        return MPI_ERR_NO_MEM;
    }
    int *rcounts = v + 2 * size, *rdispls = v + 3 * size;
    rc = PMPI_Alltoall(v, 1, MPI_INT, rcounts, 1, MPI_INT, comm_old);
    long long total = 0;
    for (int p = 0; rc == MPI_SUCCESS && p < size; p++) {
        rdispls[p] = (int)total;
        total += rcounts[p];
    }
    int *rbuf = rc == MPI_SUCCESS ? malloc(sizeof(int) * (size_t)(total + 1)) : NULL;
    /* Every rank must have its receive buffer before any sends. */
    int ok = rbuf != NULL, all_ok = 0;
    if (rc == MPI_SUCCESS)
        rc = PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm_old);
    if (rc == MPI_SUCCESS && !all_ok)
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        rc = PMPI_Alltoallv(sbuf, v, v + size, MPI_INT, rbuf, rcounts, rdispls, MPI_INT,
                            comm_old);
    if (rc == MPI_SUCCESS)
        *t = dist_unpack(rbuf, (int)total, weighted, info, mixed);
    free(rbuf);
    free(sbuf);
    free(v);
    return rc;
}

int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                           const int destinations[], const int weights[], MPI_Info info,
                           int reorder, MPI_Comm *comm_dist_graph)
{
    const char *fn = "MPI_Dist_graph_create";
    struct zmpi_comm *c;
    int nedges = 0, mixed = 0;
    int rc = dist_check_old(comm_old, fn, info, comm_dist_graph, &c);
    if (rc == MPI_SUCCESS)
        rc = dist_check_edges(c, fn, n, sources, degrees, destinations, weights, &nedges);
    if (rc != MPI_SUCCESS)
        return rc;
    (void)reorder; /* identity mapping, see topo.c */
    struct zm_mpi_topo *t;
    zm_p2p_waiter()->wait_call = fn;
    /* A rank that gives no edges may pass anything as weights; NULL then
     * leaves the graph's weightedness to the ranks that give edges. */
    int weighted = weights == MPI_UNWEIGHTED ? 0 : nedges == 0 && !weights ? -1 : 1;
    rc = dist_exchange(c, comm_old, n, sources, degrees, destinations, weights, weighted, info,
                       &t, &mixed);
    if (rc != MPI_SUCCESS)
        return zm_mpi_error(c, rc, fn, "exchanging the edges failed");
    rc = zm_mpi_topo_make_comm(c, comm_old, fn, 0, t, comm_dist_graph);
    if (rc == MPI_SUCCESS && mixed) {
        PMPI_Comm_free(comm_dist_graph);
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(weights%s): some ranks gave MPI_UNWEIGHTED "
                            "and others weights; all must do the same",
                            weights == MPI_UNWEIGHTED ? "=MPI_UNWEIGHTED" : "");
    }
    return rc;
}
ZM_WEAK(Dist_graph_create)

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted)
{
    ZM_TOPO_ENTER("MPI_Dist_graph_neighbors_count", comm, MPI_DIST_GRAPH);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!indegree || !outdegree || !weighted)
        return zm_mpi_topo_null_arg(c, fn, !indegree ? "indegree"
                                           : !outdegree ? "outdegree" : "weighted");
    *indegree = t->nin;
    *outdegree = t->nout;
    *weighted = t->weighted;
    return MPI_SUCCESS;
}
ZM_WEAK(Dist_graph_neighbors_count)

/* Copy up to max entries of one neighbour list and, for a weighted graph
 * and a weight array (not MPI_UNWEIGHTED), their weights. */
static int copy_list(struct zmpi_comm *c, const char *fn, const char *what, int max, int *out,
                     int *wout, const int *list, const int *w, int n)
{
    if (max < 0)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(max%s=%d): must be >= 0", what, max);
    int k = max < n ? max : n;
    if (k > 0 && !out)
        return zm_mpi_topo_null_arg(c, fn, what[0] == 'i' ? "sources" : "destinations");
    int want_w = w && wout && wout != MPI_UNWEIGHTED && wout != MPI_WEIGHTS_EMPTY;
    if (k > 0)
        memcpy(out, list, sizeof(int) * (size_t)k);
    if (k > 0 && want_w)
        memcpy(wout, w, sizeof(int) * (size_t)k);
    return MPI_SUCCESS;
}

int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                              int maxoutdegree, int destinations[], int destweights[])
{
    ZM_TOPO_ENTER("MPI_Dist_graph_neighbors", comm, MPI_DIST_GRAPH);
    if (rc == MPI_SUCCESS)
        rc = copy_list(c, fn, "indegree", maxindegree, sources, sourceweights, t->in, t->inw,
                       t->nin);
    if (rc == MPI_SUCCESS)
        rc = copy_list(c, fn, "outdegree", maxoutdegree, destinations, destweights, t->out,
                       t->outw, t->nout);
    return rc;
}
ZM_WEAK(Dist_graph_neighbors)

/* ---- Neighbourhood collectives ------------------------------------------ */

/* How one side (send or receive) of a call lays out its slots: one block
 * for every slot (allgather's send), consecutive blocks of one count,
 * per-slot counts and displacements in extents (v), or per-slot counts,
 * byte displacements and types (w). */
enum { NB_SAME, NB_BLOCK, NB_V, NB_W };

struct nb_side {
    int mode;                 /* NB_* */
    int send;                 /* 1 for the send side (for messages) */
    char *buf;                /* the user's buffer */
    MPI_Count count;          /* NB_SAME, NB_BLOCK */
    const void *counts;       /* NB_V, NB_W: of width `wide` (large.h) */
    const void *displs;       /* NB_V, in extents of dt, of width `wide` */
    int wide;                 /* ZM_W64: the _c forms' MPI_Count / MPI_Aint arrays */
    const MPI_Aint *bdispls;  /* NB_W, in bytes */
    MPI_Datatype dt;          /* NB_SAME, NB_BLOCK, NB_V */
    const MPI_Datatype *dts;  /* NB_W */
};

enum { NB_BLOCKING = ZM_FORM_BLOCKING, NB_NONBLOCKING = ZM_FORM_NONBLOCKING,
       NB_PERSISTENT = ZM_FORM_PERSISTENT };

/* Slot k of a side: its buffer, count and type. */
static void nb_slot(const struct nb_side *s, int k, char **buf, MPI_Count *count,
                    MPI_Datatype *dt)
{
    switch (s->mode) {
    case NB_SAME:
        *buf = s->buf, *count = s->count, *dt = s->dt;
        break;
    case NB_BLOCK:
        *buf = s->buf + (ptrdiff_t)k * s->count * s->dt->extent, *count = s->count, *dt = s->dt;
        break;
    case NB_V:
        *buf = s->buf + zm_mpi_at(s->displs, s->wide, (size_t)k) * s->dt->extent;
        *count = zm_mpi_at(s->counts, s->wide, (size_t)k), *dt = s->dt;
        break;
    default:
        /* Byte displacements may be absolute addresses (buf MPI_BOTTOM). */
        *buf = (char *)((uintptr_t)s->buf + (uintptr_t)s->bdispls[k]);
        *count = zm_mpi_at(s->counts, s->wide, (size_t)k), *dt = s->dts[k];
        break;
    }
}

/* The address of slot k of a v or w side: with MPI_BOTTOM as buffer, the
 * displacements are absolute addresses, so the slot's own address is what
 * must not be NULL.  Integer arithmetic: NULL + offset is undefined in C. */
static const void *slot_addr(const struct nb_side *s, int k, MPI_Datatype dt)
{
    intptr_t off = 0;
    if (s->mode == NB_W)
        off = (intptr_t)s->bdispls[k];
    else if (zm_dt_usable(dt))
        off = (intptr_t)zm_mpi_at(s->displs, s->wide, (size_t)k) * (intptr_t)dt->extent;
    return (const void *)((uintptr_t)s->buf + (uintptr_t)off);
}

/* Check one side with n slots. */
static int nb_check_side(struct zmpi_comm *c, const char *fn, const struct nb_side *s, int n)
{
    const char *dir = s->send ? "send" : "recv";
    if (s->buf == MPI_IN_PLACE)
        return zm_mpi_error(c, MPI_ERR_BUFFER, fn, "(%sbuf=MPI_IN_PLACE): not allowed in "
                            "neighbourhood collectives", dir);
    if (s->mode == NB_SAME || s->mode == NB_BLOCK) {
        if (s->count < 0)
            return zm_mpi_error(c, MPI_ERR_COUNT, fn, "(%scount=%lld): must be >= 0", dir,
                                (long long)s->count);
        return zm_mpi_check_cbuf(c, fn, s->buf, n > 0 ? s->count : 0, s->dt);
    }
    if (n > 0 && (!s->counts || (s->mode == NB_V ? !s->displs : !s->bdispls) ||
                  (s->mode == NB_W && !s->dts)))
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(%scounts, %sdispls%s): NULL array for %d "
                            "neighbours", dir, s->send ? "s" : "r",
                            s->mode == NB_W ? " or types" : "", n);
    if (s->mode == NB_V && !zm_dt_usable(s->dt))
        return zm_mpi_check_cbuf(c, fn, s->buf, 0, s->dt);
    for (int k = 0; k < n; k++) {
        MPI_Count cnt = zm_mpi_at(s->counts, s->wide, (size_t)k);
        if (cnt < 0)
            return zm_mpi_error(c, MPI_ERR_COUNT, fn, "(%scounts[%d]=%lld): must be >= 0", dir,
                                k, (long long)cnt);
        MPI_Datatype dt = s->mode == NB_W ? s->dts[k] : s->dt;
        int rc = zm_mpi_check_cbuf(c, fn, slot_addr(s, k, dt), cnt, dt);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* The schedule of one call: a receive per in-slot, a send per out-slot
 * (tags as the top of the file says).  NULL if out of memory. */
static zm_mpi_sched_t *nb_build(struct zmpi_comm *c, MPI_Comm comm, const struct zm_mpi_topo *t,
                                const struct nb_side *snd, const struct nb_side *rcv)
{
    zm_mpi_sched_t *s = zm_mpi_sched_new(c, comm, t->nin + t->nout, 0);
    int cart = t->kind == MPI_CART, rc = s ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    char *buf;
    MPI_Count count;
    MPI_Datatype dt;
    for (int k = 0; rc == MPI_SUCCESS && k < t->nin; k++) {
        nb_slot(rcv, k, &buf, &count, &dt);
        rc = zm_mpi_sched_recv(s, buf, (size_t)count, dt, t->in[k], cart ? k : 0);
    }
    for (int k = 0; rc == MPI_SUCCESS && k < t->nout; k++) {
        nb_slot(snd, k, &buf, &count, &dt);
        rc = zm_mpi_sched_send(s, buf, (size_t)count, dt, t->out[k], cart ? k ^ 1 : 0);
    }
    if (rc != MPI_SUCCESS && s) {
        zm_mpi_sched_free(s);
        s = NULL;
    }
    return s;
}

/* Run a blocking call with one count and type per side through the
 * topology's cached schedule, building it on a miss.  The cached schedule
 * holds its datatypes, so a type in the key cannot be freed and its
 * address reused while the entry lives. */
static int nb_run_cached(struct zmpi_comm *c, MPI_Comm comm, struct zm_mpi_topo *t,
                         const struct nb_side *snd, const struct nb_side *rcv, const char *fn)
{
    struct zm_mpi_nb_key k;
    memset(&k, 0, sizeof(k)); /* padding too: keys are compared with memcmp */
    k.comm = c;
    k.ctx = c->p.ctx;
    k.smode = snd->mode;
    k.rmode = rcv->mode;
    k.scount = (int)snd->count;
    k.rcount = (int)rcv->count;
    k.sbuf = snd->buf;
    k.rbuf = rcv->buf;
    k.sdt = snd->dt;
    k.rdt = rcv->dt;
    if (!t->nb_cache || memcmp(&k, &t->nb_key, sizeof(k)) != 0) {
        zm_mpi_sched_t *s = nb_build(c, comm, t, snd, rcv);
        if (!s)
            return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
        if (t->nb_cache)
            zm_mpi_sched_free(t->nb_cache);
        t->nb_cache = s;
        t->nb_key = k;
    }
    int rc = zm_mpi_sched_run_keep(t->nb_cache);
    return rc == MPI_SUCCESS ? rc : zm_mpi_error(c, rc, fn, "failed (communicator %s)", c->name);
}

/* Check, build and run (form NB_BLOCKING), start (NB_NONBLOCKING) or
 * prepare (NB_PERSISTENT) a neighbourhood collective. */
static int nb_call(const char *fn, MPI_Comm comm, const struct nb_side *snd,
                   const struct nb_side *rcv, int form, MPI_Info info, MPI_Request *request)
{
    struct zmpi_comm *c;
    struct zm_mpi_topo *t;
    int rc = zm_mpi_topo_check(comm, fn, 0, &c, &t);
    if (rc != MPI_SUCCESS)
        return rc;
    if (form != NB_BLOCKING && !request)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(request=NULL): no place for the request");
    if (form == NB_PERSISTENT && info != MPI_INFO_NULL &&
        (rc = zm_mpi_info_check(fn, info)) != MPI_SUCCESS)
        return rc;
    if ((rc = nb_check_side(c, fn, snd, t->nout)) != MPI_SUCCESS ||
        (rc = nb_check_side(c, fn, rcv, t->nin)) != MPI_SUCCESS)
        return rc;
    zm_p2p_waiter()->wait_call = fn;
    /* The cache's key holds int counts: larger ones are never cached. */
    if (form == NB_BLOCKING && snd->mode <= NB_BLOCK && rcv->mode <= NB_BLOCK &&
        zm_mpi_fits_int(snd->count) && zm_mpi_fits_int(rcv->count))
        return nb_run_cached(c, comm, t, snd, rcv, fn);
    zm_mpi_sched_t *s = nb_build(c, comm, t, snd, rcv);
    if (!s)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    if (form == NB_BLOCKING) {
        rc = zm_mpi_sched_run(s);
        return rc == MPI_SUCCESS ? rc : zm_mpi_error(c, rc, fn, "failed (communicator %s)",
                                                     c->name);
    }
    MPI_Request r = zm_mpi_sched_request(s, form == NB_PERSISTENT);
    if (form == NB_NONBLOCKING && (rc = zm_mpi_sched_start(s)) != MPI_SUCCESS) {
        /* What did start must finish before the schedule goes. */
        zm_mpi_sched_wait(r);
        zm_mpi_sched_free(s);
        return zm_mpi_error(c, rc, fn, "starting failed (communicator %s)", c->name);
    }
    *request = r;
    return MPI_SUCCESS;
}

/* Side constructors for the fifteen calls below. */
static struct nb_side side_block(int mode, int send, const void *buf, MPI_Count count,
                                 MPI_Datatype dt)
{
    return (struct nb_side){ .mode = mode, .send = send, .buf = (char *)buf, .count = count,
                             .dt = dt };
}

static struct nb_side side_v(int send, const void *buf, const void *counts, const void *displs,
                             MPI_Datatype dt, int wide)
{
    return (struct nb_side){ .mode = NB_V, .send = send, .buf = (char *)buf, .counts = counts,
                             .displs = displs, .dt = dt, .wide = wide };
}

static struct nb_side side_w(int send, const void *buf, const void *counts,
                             const MPI_Aint *bdispls, const MPI_Datatype *dts, int wide)
{
    return (struct nb_side){ .mode = NB_W, .send = send, .buf = (char *)buf, .counts = counts,
                             .bdispls = bdispls, .dts = dts, .wide = wide };
}

/* The five operations, each in the three forms (form ZM_FORM_*), in full
 * width: the int calls below and the _c calls (large_gen.c) share them. */
int zm_mpi_nb_allgather(const char *fn, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                        void *rbuf, MPI_Count rcount, MPI_Datatype rdt, MPI_Comm comm,
                        int form, MPI_Info info, MPI_Request *request)
{
    struct nb_side s = side_block(NB_SAME, 1, sbuf, scount, sdt);
    struct nb_side r = side_block(NB_BLOCK, 0, rbuf, rcount, rdt);
    return nb_call(fn, comm, &s, &r, form, info, request);
}

int zm_mpi_nb_allgatherv(const char *fn, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                         void *rbuf, const void *rcounts, const void *displs, MPI_Datatype rdt,
                         MPI_Comm comm, int form, MPI_Info info, MPI_Request *request,
                         int wide)
{
    struct nb_side s = side_block(NB_SAME, 1, sbuf, scount, sdt);
    struct nb_side r = side_v(0, rbuf, rcounts, displs, rdt, wide);
    return nb_call(fn, comm, &s, &r, form, info, request);
}

int zm_mpi_nb_alltoall(const char *fn, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                       void *rbuf, MPI_Count rcount, MPI_Datatype rdt, MPI_Comm comm, int form,
                       MPI_Info info, MPI_Request *request)
{
    struct nb_side s = side_block(NB_BLOCK, 1, sbuf, scount, sdt);
    struct nb_side r = side_block(NB_BLOCK, 0, rbuf, rcount, rdt);
    return nb_call(fn, comm, &s, &r, form, info, request);
}

int zm_mpi_nb_alltoallv(const char *fn, const void *sbuf, const void *scounts,
                        const void *sdispls, MPI_Datatype sdt, void *rbuf, const void *rcounts,
                        const void *rdispls, MPI_Datatype rdt, MPI_Comm comm, int form,
                        MPI_Info info, MPI_Request *request, int wide)
{
    struct nb_side s = side_v(1, sbuf, scounts, sdispls, sdt, wide);
    struct nb_side r = side_v(0, rbuf, rcounts, rdispls, rdt, wide);
    return nb_call(fn, comm, &s, &r, form, info, request);
}

int zm_mpi_nb_alltoallw(const char *fn, const void *sbuf, const void *scounts,
                        const MPI_Aint *sdispls, const MPI_Datatype *sdts, void *rbuf,
                        const void *rcounts, const MPI_Aint *rdispls, const MPI_Datatype *rdts,
                        MPI_Comm comm, int form, MPI_Info info, MPI_Request *request,
                        int wide)
{
    struct nb_side s = side_w(1, sbuf, scounts, sdispls, sdts, wide);
    struct nb_side r = side_w(0, rbuf, rcounts, rdispls, rdts, wide);
    return nb_call(fn, comm, &s, &r, form, info, request);
}

int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return zm_mpi_nb_allgather("MPI_Neighbor_allgather", sendbuf, sendcount, sendtype, recvbuf,
                        recvcount, recvtype, comm, NB_BLOCKING, MPI_INFO_NULL, NULL);
}
ZM_WEAK(Neighbor_allgather)

int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    return zm_mpi_nb_allgather("MPI_Ineighbor_allgather", sendbuf, sendcount, sendtype, recvbuf,
                        recvcount, recvtype, comm, NB_NONBLOCKING, MPI_INFO_NULL, request);
}
ZM_WEAK(Ineighbor_allgather)

int PMPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                 MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return zm_mpi_nb_allgather("MPI_Neighbor_allgather_init", sendbuf, sendcount, sendtype, recvbuf,
                        recvcount, recvtype, comm, NB_PERSISTENT, info, request);
}
ZM_WEAK(Neighbor_allgather_init)

int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm)
{
    return zm_mpi_nb_allgatherv("MPI_Neighbor_allgatherv", sendbuf, sendcount, sendtype, recvbuf,
                         recvcounts, displs, recvtype, comm, NB_BLOCKING, MPI_INFO_NULL, NULL, ZM_W32);
}
ZM_WEAK(Neighbor_allgatherv)

int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return zm_mpi_nb_allgatherv("MPI_Ineighbor_allgatherv", sendbuf, sendcount, sendtype, recvbuf,
                         recvcounts, displs, recvtype, comm, NB_NONBLOCKING, MPI_INFO_NULL,
                         request, ZM_W32);
}
ZM_WEAK(Ineighbor_allgatherv)

int PMPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, const int recvcounts[], const int displs[],
                                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request)
{
    return zm_mpi_nb_allgatherv("MPI_Neighbor_allgatherv_init", sendbuf, sendcount, sendtype, recvbuf,
                         recvcounts, displs, recvtype, comm, NB_PERSISTENT, info, request, ZM_W32);
}
ZM_WEAK(Neighbor_allgatherv_init)

int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return zm_mpi_nb_alltoall("MPI_Neighbor_alltoall", sendbuf, sendcount, sendtype, recvbuf,
                       recvcount, recvtype, comm, NB_BLOCKING, MPI_INFO_NULL, NULL);
}
ZM_WEAK(Neighbor_alltoall)

int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request)
{
    return zm_mpi_nb_alltoall("MPI_Ineighbor_alltoall", sendbuf, sendcount, sendtype, recvbuf,
                       recvcount, recvtype, comm, NB_NONBLOCKING, MPI_INFO_NULL, request);
}
ZM_WEAK(Ineighbor_alltoall)

int PMPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return zm_mpi_nb_alltoall("MPI_Neighbor_alltoall_init", sendbuf, sendcount, sendtype, recvbuf,
                       recvcount, recvtype, comm, NB_PERSISTENT, info, request);
}
ZM_WEAK(Neighbor_alltoall_init)

int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return zm_mpi_nb_alltoallv("MPI_Neighbor_alltoallv", sendbuf, sendcounts, sdispls, sendtype,
                        recvbuf, recvcounts, rdispls, recvtype, comm, NB_BLOCKING,
                        MPI_INFO_NULL, NULL, ZM_W32);
}
ZM_WEAK(Neighbor_alltoallv)

int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    return zm_mpi_nb_alltoallv("MPI_Ineighbor_alltoallv", sendbuf, sendcounts, sdispls, sendtype,
                        recvbuf, recvcounts, rdispls, recvtype, comm, NB_NONBLOCKING,
                        MPI_INFO_NULL, request, ZM_W32);
}
ZM_WEAK(Ineighbor_alltoallv)

int PMPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[],
                                 const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                 const int recvcounts[], const int rdispls[],
                                 MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request)
{
    return zm_mpi_nb_alltoallv("MPI_Neighbor_alltoallv_init", sendbuf, sendcounts, sdispls, sendtype,
                        recvbuf, recvcounts, rdispls, recvtype, comm, NB_PERSISTENT, info,
                        request, ZM_W32);
}
ZM_WEAK(Neighbor_alltoallv_init)

int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf,
                            const int recvcounts[], const MPI_Aint rdispls[],
                            const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return zm_mpi_nb_alltoallw("MPI_Neighbor_alltoallw", sendbuf, sendcounts, sdispls, sendtypes,
                        recvbuf, recvcounts, rdispls, recvtypes, comm, NB_BLOCKING,
                        MPI_INFO_NULL, NULL, ZM_W32);
}
ZM_WEAK(Neighbor_alltoallw)

int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                             const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                             void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                             const MPI_Datatype recvtypes[], MPI_Comm comm,
                             MPI_Request *request)
{
    return zm_mpi_nb_alltoallw("MPI_Ineighbor_alltoallw", sendbuf, sendcounts, sdispls, sendtypes,
                        recvbuf, recvcounts, rdispls, recvtypes, comm, NB_NONBLOCKING,
                        MPI_INFO_NULL, request, ZM_W32);
}
ZM_WEAK(Ineighbor_alltoallw)

int PMPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                 const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                 void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                 const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request)
{
    return zm_mpi_nb_alltoallw("MPI_Neighbor_alltoallw_init", sendbuf, sendcounts, sdispls, sendtypes,
                        recvbuf, recvcounts, rdispls, recvtypes, comm, NB_PERSISTENT, info,
                        request, ZM_W32);
}
ZM_WEAK(Neighbor_alltoallw_init)
