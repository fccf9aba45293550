/*
 * pt2pt_more.c: the MPI 4 additions to point-to-point communication:
 * MPI_Isendrecv(_replace), and the calls that read and set the fields of a
 * status (generalized requests' query functions fill one).
 *
 * An Isendrecv is a composite request (sched.c) of one receive and one
 * send on the communicator's point-to-point context; it completes when
 * both have.  The replace form packs the outgoing data into the request's
 * own scratch space at the call, so the incoming message can land straight
 * in the user's buffer.
 */
#include "large.h"

#include <string.h>

extern struct zmpi_datatype zmpi_dt_MPI_BYTE;

/* Checks shared by both forms (the send side, then the receive side). */
static int sr_check(zm_mpi_rank_t *me, const char *fn, const void *sbuf, MPI_Count scount,
                    MPI_Datatype sdt, int dest, int stag, const void *rbuf, MPI_Count rcount,
                    MPI_Datatype rdt, int src, int rtag, MPI_Comm comm, MPI_Request *request,
                    struct zmpi_comm **c)
{
    int rc = zm_mpi_check_comm(me, comm, fn, c);
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_check_cbuf(*c, fn, sbuf, scount, sdt);
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_check_rank(*c, fn, "dest", dest, 0);
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_check_tag(*c, fn, stag, 0);
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_check_cbuf(*c, fn, rbuf, rcount, rdt);
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_check_rank(*c, fn, "source", src, 1);
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_check_tag(*c, fn, rtag, 1);
    if (rc == MPI_SUCCESS && !request)
        rc = zm_mpi_error(*c, MPI_ERR_ARG, fn, "(request=NULL): no place for the request");
    return rc;
}

/* Build and start the request; `scratch` bytes are for the replace form's
 * packed copy of buf (sbuf is then ignored). */
static int sr_start(struct zmpi_comm *c, const char *fn, MPI_Comm comm, const void *sbuf,
                    MPI_Count scount, MPI_Datatype sdt, int dest, int stag, void *rbuf,
                    MPI_Count rcount,
                    MPI_Datatype rdt, int src, int rtag, size_t scratch, MPI_Request *request)
{
    zm_mpi_sched_t *s = zm_mpi_sched_new_p2p(c, comm, 2, scratch);
    if (!s)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory for the request");
    if (scratch) {
        zm_dt_pack(zm_mpi_sched_scratch(s), sbuf, (size_t)scount, sdt, scratch);
        sbuf = zm_mpi_sched_scratch(s);
        scount = (MPI_Count)scratch;
        sdt = &zmpi_dt_MPI_BYTE;
    }
    /* The receive goes first so that a partner doing the same finds it. */
    int cls = zm_mpi_sched_recv(s, rbuf, (size_t)rcount, rdt, src, rtag);
    if (cls == MPI_SUCCESS)
        cls = zm_mpi_sched_send(s, sbuf, (size_t)scount, sdt, dest, stag);
    if (cls != MPI_SUCCESS) {
        zm_mpi_sched_free(s);
        return zm_mpi_error(c, cls, fn, "out of memory for the request");
    }
    cls = zm_mpi_sched_start(s);
    if (cls != MPI_SUCCESS) {
        /* Whatever was started must finish before the request goes. */
        zm_mpi_sched_wait(zm_mpi_sched_request(s, 0));
        zm_mpi_sched_free(s);
        return zm_mpi_error(c, cls, fn, "could not start the operation");
    }
    *request = zm_mpi_sched_request(s, 0);
    return MPI_SUCCESS;
}

int zm_mpi_isendrecv(const char *fn, const void *sendbuf, MPI_Count sendcount,
                     MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                     MPI_Comm comm, MPI_Request *request)
{
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    struct zmpi_comm *c;
    int rc = sr_check(me, fn, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                      recvtype, source, recvtag, comm, request, &c);
    if (rc != MPI_SUCCESS)
        return rc;
    return sr_start(c, fn, comm, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                    recvcount, recvtype, source, recvtag, 0, request);
}

int PMPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                   int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                   int recvtag, MPI_Comm comm, MPI_Request *request)
{
    return zm_mpi_isendrecv("MPI_Isendrecv", sendbuf, sendcount, sendtype, dest, sendtag,
                            recvbuf, recvcount, recvtype, source, recvtag, comm, request);
}
ZM_WEAK(Isendrecv)

int zm_mpi_isendrecv_replace(const char *fn, void *buf, MPI_Count count, MPI_Datatype dt,
                             int dest, int sendtag, int source, int recvtag, MPI_Comm comm,
                             MPI_Request *request)
{
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    struct zmpi_comm *c;
    int rc = sr_check(me, fn, buf, count, dt, dest, sendtag, buf, count, dt, source, recvtag,
                      comm, request, &c);
    if (rc != MPI_SUCCESS)
        return rc;
    /* The packed copy lives in the request's scratch space, whatever its
     * size (the schedule's counts are size_t). */
    size_t bytes = dest == MPI_PROC_NULL ? 0 : zm_dt_bytes(dt, (size_t)count);
    if (bytes == 0)
        return sr_start(c, fn, comm, buf, dest == MPI_PROC_NULL ? 0 : count, dt, dest, sendtag,
                        buf, count, dt, source, recvtag, 0, request);
    return sr_start(c, fn, comm, buf, count, dt, dest, sendtag, buf, count, dt, source, recvtag,
                    bytes, request);
}

int PMPI_Isendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int sendtag,
                           int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    return zm_mpi_isendrecv_replace("MPI_Isendrecv_replace", buf, count, dt, dest, sendtag,
                                    source, recvtag, comm, request);
}
ZM_WEAK(Isendrecv_replace)

/* ---- Status fields ------------------------------------------------------ */

static int check_status(const char *fn, const MPI_Status *st)
{
    if (!st || st == MPI_STATUS_IGNORE)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(status=%s): not a status object",
                            st ? "MPI_STATUS_IGNORE" : "NULL");
    return MPI_SUCCESS;
}

/* Record `count` elements of `dt` as received: MPI_Get_elements and
 * MPI_Get_count then report them (count is in basic elements, so a
 * derived type's count is the bytes of that many basic elements). */
int zm_mpi_status_set_elements(const char *fn, MPI_Status *st, MPI_Datatype dt,
                               MPI_Count count)
{
    zm_mpi_enter(fn);
    int rc = check_status(fn, st);
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_check_type(fn, "datatype", dt);
    if (rc != MPI_SUCCESS)
        return rc;
    if (count < 0)
        return zm_mpi_error(NULL, MPI_ERR_COUNT, fn, "(count=%lld): invalid count, must be >= 0",
                            (long long)count);
    const zm_dt_t *basic = dt->size ? zm_dt_basic(dt) : NULL;
    /* A type mixing basic types has no single element size: whole copies
     * of the type only. */
    MPI_Count esize = basic ? (MPI_Count)basic->size : (MPI_Count)dt->size;
    if (!basic && dt->size) {
        int64_t per = zm_dt_elements(dt, dt->size);
        if (per <= 0 || count % per)
            return zm_mpi_error(NULL, MPI_ERR_COUNT, fn, "(count=%lld): datatype %s mixes "
                                "basic types; the count must be a multiple of its %lld elements",
                                (long long)count, dt->name, (long long)per);
        esize = (MPI_Count)dt->size / per;
    }
    MPI_Count bytes;
    if (__builtin_mul_overflow(count, esize, &bytes))
        return zm_mpi_error(NULL, MPI_ERR_COUNT, fn, "(count=%lld): %lld elements of %lld "
                            "bytes overflow a 64-bit byte count", (long long)count,
                            (long long)count, (long long)esize);
    st->zmpi_bytes = bytes;
    return MPI_SUCCESS;
}

int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype dt, int count)
{
    return zm_mpi_status_set_elements("MPI_Status_set_elements", status, dt, count);
}
ZM_WEAK(Status_set_elements)

int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype dt, MPI_Count count)
{
    return zm_mpi_status_set_elements("MPI_Status_set_elements_x", status, dt, count);
}
ZM_WEAK(Status_set_elements_x)

int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    int rc = check_status("MPI_Status_set_cancelled", status);
    if (rc == MPI_SUCCESS)
        status->zmpi_cancelled = flag != 0;
    return rc;
}
ZM_WEAK(Status_set_cancelled)

int PMPI_Status_set_source(MPI_Status *status, int source)
{
    int rc = check_status("MPI_Status_set_source", status);
    if (rc == MPI_SUCCESS)
        status->MPI_SOURCE = source;
    return rc;
}
ZM_WEAK(Status_set_source)

int PMPI_Status_set_tag(MPI_Status *status, int tag)
{
    int rc = check_status("MPI_Status_set_tag", status);
    if (rc == MPI_SUCCESS)
        status->MPI_TAG = tag;
    return rc;
}
ZM_WEAK(Status_set_tag)

int PMPI_Status_set_error(MPI_Status *status, int err)
{
    int rc = check_status("MPI_Status_set_error", status);
    if (rc == MPI_SUCCESS)
        status->MPI_ERROR = err;
    return rc;
}
ZM_WEAK(Status_set_error)

/* The getters: `what` names the output argument for the message. */
static int get_field(const char *fn, const MPI_Status *status, int *out, const char *what,
                     int value)
{
    int rc = check_status(fn, status);
    if (rc == MPI_SUCCESS && !out)
        rc = zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(%s=NULL): no place for the result", what);
    if (rc == MPI_SUCCESS)
        *out = value;
    return rc;
}

int PMPI_Status_get_source(const MPI_Status *status, int *source)
{
    return get_field("MPI_Status_get_source", status, source, "source",
                     status && status != MPI_STATUS_IGNORE ? status->MPI_SOURCE : 0);
}
ZM_WEAK(Status_get_source)

int PMPI_Status_get_tag(const MPI_Status *status, int *tag)
{
    return get_field("MPI_Status_get_tag", status, tag, "tag",
                     status && status != MPI_STATUS_IGNORE ? status->MPI_TAG : 0);
}
ZM_WEAK(Status_get_tag)

int PMPI_Status_get_error(const MPI_Status *status, int *err)
{
    return get_field("MPI_Status_get_error", status, err, "err",
                     status && status != MPI_STATUS_IGNORE ? status->MPI_ERROR : 0);
}
ZM_WEAK(Status_get_error)
