/*
 * large.c: the argument checks of the large-count calls, and the internals
 * of the large-count point-to-point calls whose int forms live in
 * request.c: the persistent send and receive inits and MPI_Get_count /
 * MPI_Get_elements in full width.
 */
#include "large.h"

#include <stdlib.h>

int zm_mpi_check_cbuf_fail(struct zmpi_comm *c, const char *fn, const void *buf,
                           MPI_Count count, MPI_Datatype dt)
{
    if (count < 0)
        return zm_mpi_error(c, MPI_ERR_COUNT, fn, "(count=%lld): invalid count, must be >= 0",
                            (long long)count);
    if (zm_dt_usable(dt)) {
        if (count > dt->cmax)
            return zm_mpi_error(c, MPI_ERR_COUNT, fn, "(count=%lld): %lld elements of %s "
                                "(size %zu, extent %lld bytes) overflow a 64-bit byte count",
                                (long long)count, (long long)count, dt->name, dt->size,
                                (long long)dt->extent);
        return zm_mpi_error(c, MPI_ERR_BUFFER, fn, "(buf=NULL): invalid buffer for count "
                            "%lld of %s", (long long)count, dt->name);
    }
    /* The type's own faults: the int check says them the same way. */
    return zm_mpi_check_buf_fail(c, fn, buf, 0, dt);
}

int zm_mpi_check_ccounts(struct zmpi_comm *c, const char *fn, const char *what,
                         const void *counts, const void *displs, int wide, int *any)
{
    if (!counts || !displs)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(%s): counts or displacements array is NULL",
                            what);
    *any = 0;
    for (int i = 0; i < c->p.size; i++) {
        int64_t n = zm_mpi_at(counts, wide, (size_t)i);
        if (n < 0)
            return zm_mpi_error(c, MPI_ERR_COUNT, fn, "(%s[%d]=%lld): invalid count, must be "
                                ">= 0", what, i, (long long)n);
        *any |= n > 0;
    }
    return MPI_SUCCESS;
}

int zm_mpi_too_large(struct zmpi_comm *c, const char *fn, const char *what, int64_t v)
{
    return zm_mpi_error(c, MPI_ERR_VALUE_TOO_LARGE, fn, "(%s): the result %lld does not fit "
                        "an int; call %s_c, which returns an MPI_Count", what, (long long)v,
                        fn);
}

int zm_mpi_count_to_type(struct zmpi_comm *c, const char *fn, MPI_Count *count,
                         MPI_Datatype *dt, MPI_Datatype *tmp)
{
    *tmp = MPI_DATATYPE_NULL;
    if (zm_mpi_fits_int(*count))
        return MPI_SUCCESS;
    zm_status_t st;
    zm_dt_t *t = zm_dt_create_hvector(1, (size_t)*count, 0, *dt, &st);
    if (!t)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory for a datatype of %lld "
                            "elements", (long long)*count);
    t->committed = t->usable = 1;
    *tmp = t;
    *dt = t;
    *count = 1;
    return MPI_SUCCESS;
}

/* ---- Persistent point-to-point ------------------------------------------ */

int zm_mpi_p2p_init(const char *fn, const void *buf, MPI_Count count, MPI_Datatype dt,
                    int peer, int tag, MPI_Comm comm, MPI_Request *request, int kind, int mode)
{
    int recv = kind == ZM_REQ_RECV;
    ENTER_COMM(fn, comm, c);
    rc = zm_mpi_check_cbuf(c, fn, buf, count, dt);
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_check_rank(c, fn, recv ? "source" : "dest", peer, recv);
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_check_tag(c, fn, tag, recv);
    if (rc == MPI_SUCCESS && !request)
        rc = zm_mpi_error(c, MPI_ERR_ARG, fn, "(request=NULL): no place for the request");
    if (rc != MPI_SUCCESS)
        return rc;
    /* In the rank's heap in a --checkpoint job (request_heap.c). */
    zm_req_t *r = zm_mpi_preq_new();
    if (!r)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory for a request");
    /* The request MPI_Start (request.c) runs: inactive and complete. */
    r->kind = (uint8_t)kind;
    r->mode = (uint8_t)mode;
    r->persistent = 1;
    r->active = 0;
    r->buf = (void *)buf;
    r->count = (size_t)count;
    r->dt = dt;
    zm_mpi_req_hold(r, dt);
    r->peer = peer;
    r->tag = tag;
    r->comm = comm;
    atomic_store(&r->cstate, ZM_REQ_DONE);
    *request = r;
    return MPI_SUCCESS;
}

/* ---- Counts of a status ------------------------------------------------- */

int zm_mpi_status_count(const char *fn, const MPI_Status *status, MPI_Datatype dt,
                        MPI_Count *count, int elements)
{
    if (!status || status == MPI_STATUS_IGNORE)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(status=%s): not a status object",
                            status ? "MPI_STATUS_IGNORE" : "NULL");
    int rc = zm_mpi_check_type(fn, "datatype", dt);
    if (rc == MPI_SUCCESS && !count)
        rc = zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(count=NULL): no place for the result");
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Count bytes = status->zmpi_bytes;
    if (dt->size == 0) {
        *count = bytes == 0 ? 0 : MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    if (elements) {
        int64_t n = zm_dt_elements(dt, (size_t)bytes);
        *count = n < 0 ? MPI_UNDEFINED : n;
        return MPI_SUCCESS;
    }
    MPI_Count whole = bytes / (MPI_Count)dt->size, rest = bytes % (MPI_Count)dt->size;
    *count = rest ? MPI_UNDEFINED : whole;
    return MPI_SUCCESS;
}
