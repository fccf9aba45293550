/*
 * errors.c: raising errors through error handlers, argument checks shared
 * by the API calls, and the error-handler API.
 */
#include "mpi_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct zmpi_errhandler zmpi_errhandler_fatal = { ZM_EH_MAGIC, ZM_EH_FATAL, NULL, 1 };
struct zmpi_errhandler zmpi_errhandler_return = { ZM_EH_MAGIC, ZM_EH_RETURN, NULL, 1 };
struct zmpi_errhandler zmpi_errhandler_abort = { ZM_EH_MAGIC, ZM_EH_ABORT, NULL, 1 };

static const char *const class_names[] = {
    [MPI_SUCCESS] = "MPI_SUCCESS: no error",
    [MPI_ERR_BUFFER] = "MPI_ERR_BUFFER: invalid buffer pointer",
    [MPI_ERR_COUNT] = "MPI_ERR_COUNT: invalid count argument",
    [MPI_ERR_TYPE] = "MPI_ERR_TYPE: invalid datatype",
    [MPI_ERR_TAG] = "MPI_ERR_TAG: invalid tag",
    [MPI_ERR_COMM] = "MPI_ERR_COMM: invalid communicator",
    [MPI_ERR_RANK] = "MPI_ERR_RANK: invalid rank",
    [MPI_ERR_REQUEST] = "MPI_ERR_REQUEST: invalid request",
    [MPI_ERR_ROOT] = "MPI_ERR_ROOT: invalid root",
    [MPI_ERR_GROUP] = "MPI_ERR_GROUP: invalid group",
    [MPI_ERR_OP] = "MPI_ERR_OP: invalid operation",
    [MPI_ERR_TOPOLOGY] = "MPI_ERR_TOPOLOGY: invalid topology",
    [MPI_ERR_DIMS] = "MPI_ERR_DIMS: invalid dimension argument",
    [MPI_ERR_ARG] = "MPI_ERR_ARG: invalid argument",
    [MPI_ERR_UNKNOWN] = "MPI_ERR_UNKNOWN: unknown error",
    [MPI_ERR_TRUNCATE] = "MPI_ERR_TRUNCATE: message truncated on receive",
    [MPI_ERR_OTHER] = "MPI_ERR_OTHER: other error",
    [MPI_ERR_INTERN] = "MPI_ERR_INTERN: internal error",
    [MPI_ERR_IN_STATUS] = "MPI_ERR_IN_STATUS: error code is in status",
    [MPI_ERR_PENDING] = "MPI_ERR_PENDING: pending request",
    [MPI_ERR_KEYVAL] = "MPI_ERR_KEYVAL: invalid attribute key",
    [MPI_ERR_NO_MEM] = "MPI_ERR_NO_MEM: out of memory",
    [MPI_ERR_ERRHANDLER] = "MPI_ERR_ERRHANDLER: invalid error handler",
    [MPI_ERR_NOT_SAME] = "MPI_ERR_NOT_SAME: arguments differ between ranks",
    [MPI_ERR_UNSUPPORTED_OPERATION] = "MPI_ERR_UNSUPPORTED_OPERATION: unsupported operation",
    /* Shared-memory windows and info objects. */
    [MPI_ERR_WIN] = "MPI_ERR_WIN: invalid window",
    [MPI_ERR_INFO_KEY] = "MPI_ERR_INFO_KEY: invalid info key",
    [MPI_ERR_INFO_VALUE] = "MPI_ERR_INFO_VALUE: invalid info value",
    [MPI_ERR_INFO_NOKEY] = "MPI_ERR_INFO_NOKEY: no such info key",
    [MPI_ERR_SIZE] = "MPI_ERR_SIZE: invalid size",
    [MPI_ERR_DISP] = "MPI_ERR_DISP: invalid displacement unit",
    [MPI_ERR_RMA_SYNC] = "MPI_ERR_RMA_SYNC: wrong window synchronisation",
    [MPI_ERR_FILE] = "MPI_ERR_FILE: invalid file handle",
    [MPI_ERR_AMODE] = "MPI_ERR_AMODE: invalid access mode",
    [MPI_ERR_BAD_FILE] = "MPI_ERR_BAD_FILE: invalid file name",
    [MPI_ERR_CONVERSION] = "MPI_ERR_CONVERSION: data conversion failed",
    [MPI_ERR_DUP_DATAREP] = "MPI_ERR_DUP_DATAREP: data representation already registered",
    [MPI_ERR_FILE_EXISTS] = "MPI_ERR_FILE_EXISTS: file exists",
    [MPI_ERR_FILE_IN_USE] = "MPI_ERR_FILE_IN_USE: file in use",
    [MPI_ERR_IO] = "MPI_ERR_IO: input/output error",
    [MPI_ERR_NO_SPACE] = "MPI_ERR_NO_SPACE: no space left",
    [MPI_ERR_NO_SUCH_FILE] = "MPI_ERR_NO_SUCH_FILE: no such file",
    [MPI_ERR_QUOTA] = "MPI_ERR_QUOTA: quota exceeded",
    [MPI_ERR_READ_ONLY] = "MPI_ERR_READ_ONLY: read-only file or file system",
    [MPI_ERR_UNSUPPORTED_DATAREP] = "MPI_ERR_UNSUPPORTED_DATAREP: unsupported data representation",
    [MPI_ERR_ACCESS] = "MPI_ERR_ACCESS: permission denied",
    [MPI_ERR_BASE] = "MPI_ERR_BASE: invalid base address",
    [MPI_ERR_LOCKTYPE] = "MPI_ERR_LOCKTYPE: invalid lock type",
    [MPI_ERR_RMA_CONFLICT] = "MPI_ERR_RMA_CONFLICT: conflicting window accesses",
    [MPI_ERR_RMA_RANGE] = "MPI_ERR_RMA_RANGE: target outside the window",
    [MPI_ERR_RMA_ATTACH] = "MPI_ERR_RMA_ATTACH: memory cannot be attached",
    [MPI_ERR_RMA_SHARED] = "MPI_ERR_RMA_SHARED: memory cannot be shared",
    [MPI_ERR_RMA_FLAVOR] = "MPI_ERR_RMA_FLAVOR: wrong window flavor",
    [MPI_ERR_ASSERT] = "MPI_ERR_ASSERT: invalid assertion",
    [MPI_ERR_PORT] = "MPI_ERR_PORT: invalid port name",
    [MPI_ERR_SERVICE] = "MPI_ERR_SERVICE: invalid service name",
    [MPI_ERR_NAME] = "MPI_ERR_NAME: service name not published",
    [MPI_ERR_SPAWN] = "MPI_ERR_SPAWN: could not spawn processes",
    [MPI_ERR_INFO] = "MPI_ERR_INFO: invalid info object",
    [MPI_ERR_SESSION] = "MPI_ERR_SESSION: invalid session",
    [MPI_ERR_PROC_ABORTED] = "MPI_ERR_PROC_ABORTED: operation on an aborted process",
    [MPI_ERR_VALUE_TOO_LARGE] = "MPI_ERR_VALUE_TOO_LARGE: value too large for its output",
};

int zm_mpi_class_of(zm_status_t st)
{
    switch (st) {
    case ZM_OK: return MPI_SUCCESS;
    case ZM_ERR_NOMEM: return MPI_ERR_NO_MEM;
    case ZM_ERR_TRUNCATE: return MPI_ERR_TRUNCATE;
    case ZM_ERR_BUFFER: return MPI_ERR_BUFFER;
    case ZM_ERR_ARG: return MPI_ERR_ARG;
    case ZM_ERR_PENDING: return MPI_ERR_PENDING;
    case ZM_COLL_ERR_KIND: return MPI_ERR_NOT_SAME;
    case ZM_COLL_ERR_ROOT: return MPI_ERR_ROOT;
    case ZM_COLL_ERR_OP: return MPI_ERR_OP;
    case ZM_COLL_ERR_COUNT: return MPI_ERR_TRUNCATE;
    default: return MPI_ERR_OTHER;
    }
}

static void fatal_exit(void)
{
    fflush(NULL);
    _exit(1);
}

zm_mpi_rank_t *zm_mpi_enter_fail(const char *fn)
{
    zm_mpi_rank_t *me = zm_mpi_me();
    if (!me) {
        fprintf(stderr, "zmpi: %s called from a thread that is not an MPI rank "
                "(call MPI only from the rank's own thread, or call MPI_Init first)\n", fn);
        fatal_exit();
    }
    fprintf(stderr, "zmpi: rank %d: %s called %s\n", me->world_rank, fn,
            me->finalized ? "after MPI_Finalize" : "before MPI_Init");
    fatal_exit();
    return me;
}

int zm_mpi_error(struct zmpi_comm *comm, int cls, const char *fn, const char *fmt, ...)
{
    zm_mpi_rank_t *me = zm_mpi_me();
    char detail[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    if (!comm)
        comm = &me->world;
    /* A detail that starts with "(" names the argument: "MPI_Send(dest=9):". */
    snprintf(me->last_msg, sizeof(me->last_msg), "%s%s%s", fn, detail[0] == '(' ? "" : ": ",
             detail);
    me->last_class = cls;
    struct zmpi_errhandler *eh = comm->eh;
    if (eh->kind == ZM_EH_RETURN)
        return cls;
    if (eh->kind == ZM_EH_USER) {
        MPI_Comm h = comm == &me->world ? MPI_COMM_WORLD
                     : comm == &me->self ? MPI_COMM_SELF : comm;
        int code = cls;
        eh->fn(&h, &code);
        return cls;
    }
    fflush(stdout);
    fprintf(stderr, "zmpi: rank %d: %s (%s); error handler %s ends the job\n",
            me->world_rank, me->last_msg, class_names[cls] ? class_names[cls] : "error",
            eh->kind == ZM_EH_ABORT ? "MPI_ERRORS_ABORT" : "MPI_ERRORS_ARE_FATAL");
    fatal_exit();
    return cls;
}

int zm_mpi_check_comm_fail(MPI_Comm h, const char *fn)
{
    return zm_mpi_error(NULL, MPI_ERR_COMM, fn, "(comm=%s): invalid communicator",
                        h == MPI_COMM_NULL ? "MPI_COMM_NULL" : "freed or not a communicator");
}

int zm_mpi_check_buf_fail(struct zmpi_comm *c, const char *fn, const void *buf, int count,
                          MPI_Datatype dt)
{
    (void)buf;
    if (count < 0)
        return zm_mpi_error(c, MPI_ERR_COUNT, fn, "(count=%d): invalid count, must be >= 0", count);
    if (!zm_dt_valid(dt))
        return zm_mpi_error(c, MPI_ERR_TYPE, fn, "(datatype=%s): invalid datatype",
                            dt == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL" : "(not a datatype)");
    if (dt->freed)
        return zm_mpi_error(c, MPI_ERR_TYPE, fn, "(datatype=%s): the datatype was freed "
                            "(MPI_Type_free)", dt->name);
    if (!dt->committed)
        return zm_mpi_error(c, MPI_ERR_TYPE, fn, "(datatype=%s): the datatype is not "
                            "committed; call MPI_Type_commit before using it to communicate",
                            dt->name);
    return zm_mpi_error(c, MPI_ERR_BUFFER, fn, "(buf=NULL): invalid buffer for count %d of %s",
                        count, dt->name);
}

int zm_mpi_check_rank_fail(struct zmpi_comm *c, const char *fn, const char *what, int r)
{
    return zm_mpi_error(c, MPI_ERR_RANK, fn, "(%s=%d): invalid rank, communicator %s has %d ranks",
                        what, r, c->name, c->p.size);
}

int zm_mpi_check_tag_fail(struct zmpi_comm *c, const char *fn, int tag, int allow_any)
{
    return zm_mpi_error(c, MPI_ERR_TAG, fn, "(tag=%d): invalid tag, valid tags are 0..%d%s", tag,
                        ZM_TAG_UB, allow_any ? " or MPI_ANY_TAG" : "");
}

void zm_mpi_status_set(MPI_Status *st, const zm_req_t *req)
{
    if (st == MPI_STATUS_IGNORE || !st)
        return;
    st->MPI_SOURCE = req->st_source;
    st->MPI_TAG = req->st_tag;
    st->MPI_ERROR = zm_mpi_class_of(req->st_error);
    st->zmpi_cancelled = req->cancelled;
    st->zmpi_bytes = (MPI_Count)req->st_bytes;
}

void zm_mpi_status_null(MPI_Status *st)
{
    if (st == MPI_STATUS_IGNORE || !st)
        return;
    st->MPI_SOURCE = MPI_PROC_NULL;
    st->MPI_TAG = MPI_ANY_TAG;
    st->MPI_ERROR = MPI_SUCCESS;
    st->zmpi_cancelled = 0;
    st->zmpi_bytes = 0;
}

int zm_mpi_req_error(zm_req_t *req, const char *fn)
{
    if (ZM_LIKELY(req->st_error == ZM_OK))
        return MPI_SUCCESS;
    struct zmpi_comm *c = req->comm ? zm_mpi_comm(zm_mpi_me(), req->comm) : NULL;
    if (req->st_error == ZM_ERR_TRUNCATE) {
        size_t cap = zm_dt_bytes(req->dt, req->count);
        return zm_mpi_error(c, MPI_ERR_TRUNCATE, fn,
                            "message truncated: %zu bytes arrived from rank %d (tag %d), "
                            "buffer holds %zu bytes", req->st_bytes, req->st_source,
                            req->st_tag, cap);
    }
    return zm_mpi_error(c, zm_mpi_class_of(req->st_error), fn, "operation failed");
}

void zm_mpi_eh_ref(struct zmpi_errhandler *eh)
{
    atomic_fetch_add(&eh->refs, 1);
}

void zm_mpi_eh_unref(struct zmpi_errhandler *eh)
{
    if (eh->kind != ZM_EH_USER)
        return;
    if (atomic_fetch_sub(&eh->refs, 1) == 1) {
        eh->magic = 0;
        free(eh);
    }
}

static int check_eh(struct zmpi_comm *c, const char *fn, MPI_Errhandler eh)
{
    if (eh && eh->magic == ZM_EH_MAGIC)
        return MPI_SUCCESS;
    return zm_mpi_error(c, MPI_ERR_ARG, fn, "invalid error handler");
}

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    const char *fn = "MPI_Comm_set_errhandler";
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    struct zmpi_comm *c;
    int rc = zm_mpi_check_comm(me, comm, fn, &c);
    if (rc == MPI_SUCCESS)
        rc = check_eh(c, fn, errhandler);
    if (rc != MPI_SUCCESS)
        return rc;
    zm_mpi_eh_ref(errhandler);
    zm_mpi_eh_unref(c->eh);
    c->eh = errhandler;
    return MPI_SUCCESS;
}
ZM_WEAK(Comm_set_errhandler)

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    const char *fn = "MPI_Comm_get_errhandler";
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    struct zmpi_comm *c;
    int rc = zm_mpi_check_comm(me, comm, fn, &c);
    if (rc != MPI_SUCCESS)
        return rc;
    zm_mpi_eh_ref(c->eh);
    *errhandler = c->eh;
    return MPI_SUCCESS;
}
ZM_WEAK(Comm_get_errhandler)

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *function,
                                MPI_Errhandler *errhandler)
{
    const char *fn = "MPI_Comm_create_errhandler";
    zm_mpi_enter(fn);
    if (!function)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "function is NULL");
    struct zmpi_errhandler *eh = malloc(sizeof(*eh));
    if (!eh)
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    eh->magic = ZM_EH_MAGIC;
    eh->kind = ZM_EH_USER;
    eh->fn = function;
    atomic_init(&eh->refs, 1);
    *errhandler = eh;
    return MPI_SUCCESS;
}
ZM_WEAK(Comm_create_errhandler)

int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    const char *fn = "MPI_Comm_call_errhandler";
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    struct zmpi_comm *c;
    int rc = zm_mpi_check_comm(me, comm, fn, &c);
    if (rc != MPI_SUCCESS)
        return rc;
    int cls = errorcode >= 0 && errorcode <= MPI_ERR_LASTCODE ? errorcode : MPI_ERR_OTHER;
    zm_mpi_error(c, cls, fn, "error code %d raised by the program", errorcode);
    return MPI_SUCCESS;
}
ZM_WEAK(Comm_call_errhandler)

int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    const char *fn = "MPI_Errhandler_free";
    zm_mpi_enter(fn);
    if (!errhandler || check_eh(NULL, fn, *errhandler) != MPI_SUCCESS)
        return MPI_ERR_ARG;
    zm_mpi_eh_unref(*errhandler);
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}
ZM_WEAK(Errhandler_free)

int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    zm_mpi_rank_t *me = zm_mpi_me();
    const char *base = errorcode >= 0 && errorcode < (int)(sizeof(class_names) / sizeof(*class_names)) &&
                       class_names[errorcode] ? class_names[errorcode] : NULL;
    int n;
    if (!base)
        n = snprintf(string, MPI_MAX_ERROR_STRING, "unknown error code %d", errorcode);
    else if (me && errorcode != MPI_SUCCESS && me->last_class == errorcode && me->last_msg[0])
        n = snprintf(string, MPI_MAX_ERROR_STRING, "%s (last: %s)", base, me->last_msg);
    else
        n = snprintf(string, MPI_MAX_ERROR_STRING, "%s", base);
    *resultlen = n < MPI_MAX_ERROR_STRING ? n : MPI_MAX_ERROR_STRING - 1;
    return MPI_SUCCESS;
}
ZM_WEAK(Error_string)

int PMPI_Error_class(int errorcode, int *errorclass)
{
    if ((errorcode < 0 || errorcode > MPI_ERR_LASTCODE) && zm_mpi_me())
        return zm_mpi_error(NULL, MPI_ERR_ARG, "MPI_Error_class", "invalid error code %d",
                            errorcode);
    if (errorcode < 0 || errorcode > MPI_ERR_LASTCODE)
        return MPI_ERR_ARG;
    *errorclass = errorcode;
    return MPI_SUCCESS;
}
ZM_WEAK(Error_class)

int zm_mpi_last_used_code(void)
{
    return MPI_ERR_LASTCODE;
}
