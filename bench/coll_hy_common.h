/*
 * coll_hy_common.h: the state of the benchmarks of the one-copy-per-node
 * primitives (coll_hy_bcast.c, coll_hy_allreduce.c, coll_hy_allgather.c),
 * which measure hy/zmpi_hy.h in the frame of coll_common.h.
 *
 * Unlike MPI_Bcast and friends, these calls leave one result per node that
 * every rank reads through a pointer, so they move less data by design;
 * they are here to compare the MPI+MPI approach with the standard
 * collectives of the same MPI.  For each size the hooks create a hybrid
 * context and a region of one slice of size bytes per rank (outside the
 * timing) and release them afterwards.
 */
#ifndef ZMPI_BENCH_COLL_HY_COMMON_H
#define ZMPI_BENCH_COLL_HY_COMMON_H

#include <stdlib.h>

#include "coll_common.h"
#include "zmpi_hy.h"

/* Per-size state of a hy benchmark (c->state). */
struct hy_state {
    zmpi_hy_comm hy;    /* Context over MPI_COMM_WORLD. */
    zmpi_hy_region reg; /* One slice of c->size bytes per rank. */
    void *result;       /* Where the last call left its result. */
};

/* Creates the context and the region of one size. */
static inline void hy_begin(struct coll_ctx *c)
{
    struct hy_state *s = calloc(1, sizeof(*s));
    if (s == NULL || zmpi_hy_comm_create(c->comm, &s->hy) != MPI_SUCCESS ||
        zmpi_hy_alloc(&s->hy, c->size, &s->reg) != MPI_SUCCESS)
        MPI_Abort(c->comm, 2);
    c->state = s;
}

/* Releases what hy_begin created. */
static inline void hy_end(struct coll_ctx *c)
{
    struct hy_state *s = c->state;
    zmpi_hy_free(&s->hy, &s->reg);
    zmpi_hy_comm_free(&s->hy);
    free(s);
    c->state = NULL;
}

#endif
