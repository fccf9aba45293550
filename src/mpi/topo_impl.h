/*
 * topo_impl.h: private header of the process topologies (topo.c) and the
 * neighbourhood collectives (neighbor.c).
 *
 * A topology is immutable once attached to a communicator, so MPI_Comm_dup
 * shares it by reference instead of copying it.  Every array lives in the
 * same allocation as the structure (the ints[] tail), so one free releases
 * it all.
 */
#ifndef ZM_MPI_TOPO_IMPL_H
#define ZM_MPI_TOPO_IMPL_H

#include "mpi_impl.h"

struct zm_mpi_topo {
    _Atomic int refs;   /* communicator objects sharing it (Comm_dup) */
    int kind;           /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */
    /* The neighbourhood of the calling rank, in the order the
     * neighbourhood collectives use (MPI 4.1 section 8.6): Cartesian
     * slots are (dim 0, -1), (dim 0, +1), (dim 1, -1), ... and may hold
     * MPI_PROC_NULL; graph slots are Graph_neighbors' list (in == out);
     * distributed graph slots are the sources and the destinations. */
    int nin, nout;      /* number of receive and send slots */
    int *in, *out;      /* ranks of the slots */
    /* Cartesian topologies. */
    int ndims;          /* number of dimensions (may be 0) */
    int *dims;          /* processes per dimension */
    int *periods;       /* 1 if the dimension is periodic */
    int *coords;        /* the calling rank's coordinates */
    /* Graph topologies (MPI_Graph_create): the whole graph. */
    int nnodes, nedges; /* nodes and directed edge entries */
    int *index;         /* cumulative degrees, as the user gave them */
    int *edges;         /* flattened adjacency lists */
    /* Distributed graph topologies. */
    int weighted;       /* weights were given (not MPI_UNWEIGHTED) */
    int *inw, *outw;    /* weights of the in and out edges (weighted only) */
    MPI_Info info;      /* copy of the creation's info, or MPI_INFO_NULL */
    /* The last blocking neighbourhood collective with one count and type
     * per side, kept for the next identical call (neighbor.c): a halo loop
     * repeats the same call, which then allocates nothing. */
    struct zm_mpi_sched *nb_cache;
    struct zm_mpi_nb_key {
        const void *comm;   /* communicator object and its context, since */
        uint32_t ctx;       /* freed objects are reused */
        int smode, rmode, scount, rcount;
        const void *sbuf, *rbuf, *sdt, *rdt;
    } nb_key;
    size_t used, cap;   /* ints[] taken so far and available */
    int ints[];         /* storage of every array above */
};

/* A new topology of `kind` with room for `nints` ints in its arrays (refs
 * = 1, every array NULL, info MPI_INFO_NULL).  NULL if out of memory.  The
 * caller owns it until zm_mpi_topo_attach takes it over.  Any thread. */
struct zm_mpi_topo *zm_mpi_topo_new(int kind, size_t nints);

/* Carve n ints out of t's storage (zm_mpi_topo_new reserved them). */
int *zm_mpi_topo_take(struct zm_mpi_topo *t, size_t n);

/* Release one reference to t (NULL does nothing); the last one frees it
 * and its info copy.  ULT context, the owning rank. */
void zm_mpi_topo_unref(struct zm_mpi_topo *t);

/* Make the calling rank's member of a communicator with the ranks of
 * comm_old (whose object is c) for which `member` is true, in the same
 * order, with no attributes or topology (MPI_COMM_NULL for non-members),
 * and attach t to it (taking over the caller's reference; t may be NULL
 * for non-members).  Collective over comm_old.  Returns MPI_SUCCESS or
 * the error raised on c as call `fn`.  ULT context, the calling rank. */
int zm_mpi_topo_make_comm(struct zmpi_comm *c, MPI_Comm comm_old, const char *fn, int member,
                          struct zm_mpi_topo *t, MPI_Comm *newcomm);

/* Resolve `comm` for call `fn` and check that it carries a topology, of
 * kind `kind` unless kind is 0.  On success *cp and *tp are set and
 * MPI_SUCCESS returned; otherwise the raised error (MPI_ERR_COMM,
 * MPI_ERR_TOPOLOGY) is returned.  ULT context, the calling rank. */
int zm_mpi_topo_check(MPI_Comm comm, const char *fn, int kind, struct zmpi_comm **cp,
                      struct zm_mpi_topo **tp);

/* Prelude of a call on a topology communicator: declares `fn` (set to
 * name), `c`, `t` and `rc`, the result of zm_mpi_topo_check on `comm` for
 * topologies of `kind` (0: any).  The caller tests rc. */
#define ZM_TOPO_ENTER(name, comm, kind)                                      \
    const char *fn = name;                                                   \
    struct zmpi_comm *c;                                                     \
    struct zm_mpi_topo *t;                                                   \
    int rc = zm_mpi_topo_check(comm, fn, kind, &c, &t)

/* Resolve comm_old for topology constructor or mapping call `fn`: it must
 * be an intracommunicator, and `out` (the argument named outname) a place
 * for the result.  On success *cp is set and MPI_SUCCESS returned;
 * otherwise the raised error.  ULT context, the calling rank. */
int zm_mpi_topo_check_old(MPI_Comm comm_old, const char *fn, const void *out,
                          const char *outname, struct zmpi_comm **cp);

/* Raise MPI_ERR_ARG on c (NULL: no object) for call `fn` whose pointer or
 * array argument `what` is NULL; returns the error.  ULT context, the
 * calling rank. */
int zm_mpi_topo_null_arg(struct zmpi_comm *c, const char *fn, const char *what);

#endif /* ZM_MPI_TOPO_IMPL_H */
