/*
 * large_coll.c: the large-count collectives on intercommunicators.
 *
 * Intercommunicator collectives (inter_coll.c) are schedules of messages
 * built with int counts; the schedule copies every count and displacement
 * when it is built, so the large-count forms hand them narrowed copies
 * that live for the call only.  A scalar count above 2^31 - 1 travels as
 * one element of a contiguous type of that many elements
 * (zm_mpi_count_to_type); a count or displacement in an array that an int
 * cannot hold is refused with MPI_ERR_COUNT, naming the entry.
 */
#include "large.h"
#include "inter_impl.h"

#include <stdlib.h>

/* The int copy of array arr (n entries of width `wide`) in *out: arr
 * itself if it is int already, else a new array the caller frees (*own).
 * Returns MPI_SUCCESS or the error raised on c. */
static int narrow_array(struct zmpi_comm *c, const char *fn, const char *what, const void *arr,
                        int wide, int n, const int **out, int **own)
{
    *own = NULL;
    *out = arr;
    if (!wide || !arr)
        return MPI_SUCCESS;
    int *v = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    if (!v)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    for (int i = 0; i < n; i++) {
        int64_t x = zm_mpi_at(arr, 1, (size_t)i);
        if (!zm_mpi_fits_int(x)) {
            free(v);
            return zm_mpi_error(c, MPI_ERR_COUNT, fn, "(%s[%d]=%lld): intercommunicator "
                                "collectives take counts and displacements up to 2^31 - 1",
                                what, i, (long long)x);
        }
        v[i] = (int)x;
    }
    *out = v;
    *own = v;
    return MPI_SUCCESS;
}

/* The narrowed arguments of one call: arrays and scalar (count, type)
 * pairs, with what to free afterwards. */
typedef struct {
    const int *sc, *sd, *rc, *rd;
    int *own[4];
    MPI_Count scount, rcount;
    MPI_Datatype sdt, rdt, tmp[2];
} narrow_t;

static int narrow_call(struct zmpi_comm *c, const char *fn, const zm_mpi_ccall_t *k,
                       narrow_t *x)
{
    int n = c->p.size;
    *x = (narrow_t){ .scount = k->scount, .rcount = k->rcount, .sdt = k->sdt, .rdt = k->rdt };
    x->tmp[0] = x->tmp[1] = MPI_DATATYPE_NULL;
    int rc = narrow_array(c, fn, "sendcounts", k->scounts, k->wide, n, &x->sc, &x->own[0]);
    if (rc == MPI_SUCCESS)
        rc = narrow_array(c, fn, "sdispls", k->sdispls, k->wide, n, &x->sd, &x->own[1]);
    if (rc == MPI_SUCCESS)
        rc = narrow_array(c, fn, "recvcounts", k->rcounts, k->wide, n, &x->rc, &x->own[2]);
    if (rc == MPI_SUCCESS)
        rc = narrow_array(c, fn, "rdispls", k->rdispls, k->wide, n, &x->rd, &x->own[3]);
    if (rc == MPI_SUCCESS && !zm_mpi_fits_int(x->scount))
        rc = zm_mpi_count_to_type(c, fn, &x->scount, &x->sdt, &x->tmp[0]);
    if (rc == MPI_SUCCESS && !zm_mpi_fits_int(x->rcount))
        rc = zm_mpi_count_to_type(c, fn, &x->rcount, &x->rdt, &x->tmp[1]);
    return rc;
}

static void narrow_free(narrow_t *x)
{
    for (int i = 0; i < 4; i++)
        free(x->own[i]);
    for (int i = 0; i < 2; i++)
        if (x->tmp[i] != MPI_DATATYPE_NULL)
            zm_dt_release(x->tmp[i]);
}

/* Run call k on intercommunicator c with the narrowed arguments x. */
static int inter_run(struct zmpi_comm *c, const char *fn, MPI_Comm h, const zm_mpi_ccall_t *k,
                     const narrow_t *x, MPI_Request *request)
{
    int v = k->kind == ZM_COLL_GATHERV || k->kind == ZM_COLL_SCATTERV ||
            k->kind == ZM_COLL_ALLGATHERV;
    int sc = (int)x->scount, rcnt = (int)x->rcount;
    switch (k->kind) {
    case ZM_COLL_BARRIER:
        return zm_mpi_inter_barrier(c, fn, h, request);
    case ZM_COLL_BCAST:
        return zm_mpi_inter_bcast(c, fn, h, k->rbuf, rcnt, x->rdt, k->root, request);
    case ZM_COLL_GATHER:
    case ZM_COLL_GATHERV:
        return zm_mpi_inter_gather(c, fn, h, v, k->sbuf, sc, x->sdt, k->rbuf, rcnt, x->rc, x->rd,
                                   x->rdt, k->root, request);
    case ZM_COLL_SCATTER:
    case ZM_COLL_SCATTERV:
        return zm_mpi_inter_scatter(c, fn, h, v, k->sbuf, sc, x->sc, x->sd, x->sdt, k->rbuf,
                                    rcnt, x->rdt, k->root, request);
    case ZM_COLL_ALLGATHER:
    case ZM_COLL_ALLGATHERV:
        return zm_mpi_inter_allgather(c, fn, h, v, k->sbuf, sc, x->sdt, k->rbuf, rcnt, x->rc,
                                      x->rd, x->rdt, request);
    case ZM_COLL_ALLTOALL:
        return zm_mpi_inter_alltoall(c, fn, h, k->sbuf, sc, x->sdt, k->rbuf, rcnt, x->rdt,
                                     request);
    case ZM_COLL_ALLTOALLV:
        return zm_mpi_inter_alltoallv(c, fn, h, k->sbuf, x->sc, x->sd, x->sdt, k->rbuf, x->rc,
                                      x->rd, x->rdt, request);
    case ZM_COLL_ALLTOALLW:
        return zm_mpi_inter_alltoallw(c, fn, h, k->sbuf, x->sc, x->sd, k->sdts, k->rbuf, x->rc,
                                      x->rd, k->rdts, request);
    default:
        return zm_mpi_inter_reduce(c, fn, h, k->kind, k->sbuf, k->rbuf, rcnt, x->rc, x->rdt,
                                   k->op, k->root, request);
    }
}

int zm_mpi_coll_inter(struct zmpi_comm *c, const char *fn, MPI_Comm h, const zm_mpi_ccall_t *k,
                      MPI_Request *request)
{
    narrow_t x;
    int rc = narrow_call(c, fn, k, &x);
    if (rc == MPI_SUCCESS)
        rc = inter_run(c, fn, h, k, &x, request);
    narrow_free(&x);
    return rc;
}
