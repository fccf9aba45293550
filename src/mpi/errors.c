/*
 * errors.c: raising errors through error handlers, argument checks shared
 * by the API calls, error handlers of communicators and windows, and error
 * classes (MPI 4.1 chapter 9); the classes, codes and strings themselves
 * are in errors_codes.c.
 *
 * An error is raised on the object the call works on: its communicator or
 * its window.  Errors that belong to no object (an invalid handle, a
 * datatype, group or info call, memory allocation) are raised on the
 * calling rank's MPI_COMM_SELF, as MPI 4.x says (MPI-3 used
 * MPI_COMM_WORLD).  Before MPI_Init, MPI_COMM_SELF's handler is the initial
 * error handler, MPI_ERRORS_ARE_FATAL; a call made on a thread that is not
 * a rank at all (a singleton program before MPI_Init) ends the job the same
 * way.

 */
#include "file_impl.h"
#include "session.h"
#include "threads.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct zmpi_errhandler zmpi_errhandler_fatal = { ZM_EH_MAGIC, ZM_EH_FATAL, NULL, 1 };
struct zmpi_errhandler zmpi_errhandler_return = { ZM_EH_MAGIC, ZM_EH_RETURN, NULL, 1 };
struct zmpi_errhandler zmpi_errhandler_abort = { ZM_EH_MAGIC, ZM_EH_ABORT, NULL, 1 };

/* User handlers made by MPI_Win_create_errhandler.  Their `fn` holds an
 * MPI_Win_errhandler_function, cast back before it is called.  ZM_EH_USER
 * is a communicator's handler; every kind from ZM_EH_USER up is a user
 * handler (zm_mpi_eh_unref frees those). */


/* The kinds of object an error is raised on. */
enum { OBJ_COMM, OBJ_WIN, OBJ_SESSION, OBJ_FILE };


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

/* ---- Raising errors ----------------------------------------------------- */

static void fatal_exit(void)
{
    fflush(NULL);
    _exit(1);
}

zm_mpi_rank_t *zm_mpi_enter_fail(const char *fn)
{
    zm_mpi_rank_t *me = zm_mpi_me();
    int foreign = !me;
    /* A thread that is no rank's ULT may act for the rank that created it
     * (threads.c). */
    if (foreign)
        me = zm_mpi_thread_rank();
    if (!me) {
        fflush(stdout);
        if (zm_ult_job_scheduled())
            fprintf(stderr, "zmpi: %s called from a thread that belongs to no MPI rank (only "
                    "a rank's own thread and the threads a rank creates, with pthread_create "
                    "or OpenMP, may call MPI; this one was created outside every rank, by the "
                    "process before the ranks started or by a library's own thread)\n", fn);
        else
            fprintf(stderr, "zmpi: %s called from a thread that is not an MPI rank "
                    "(call MPI_Init or MPI_Init_thread first)\n", fn);
        fatal_exit();
    }
    /* A rank that holds a session may call MPI outside MPI_Init ...
     * MPI_Finalize (the sessions model, session.c). */
    if ((me->initialized && !me->finalized) || zm_mpi_session_live(me)) {
        if (!foreign)
            return me;
        if (zm_mpi_thread_may(me)) {
            zm_mpi_thread_activate();
            return me;
        }
        fflush(stdout);
        fprintf(stderr, "zmpi: rank %d: %s called from a thread the rank created, but the "
                "rank's thread level is %s: only its main thread may call MPI (ask for "
                "MPI_THREAD_SERIALIZED or MPI_THREAD_MULTIPLE with MPI_Init_thread)\n",
                me->world_rank, fn, zm_mpi_thread_level_name(me->thread_max));
        fatal_exit();
    }
    fflush(stdout);
    fprintf(stderr, "zmpi: rank %d: %s called %s%s\n", me->world_rank, fn,
            me->finalized ? "after MPI_Finalize" : "before MPI_Init",
            foreign ? " (from a thread the rank created)" : "");
    fatal_exit();
    return me;
}

/* An error raised on a thread that is not a rank: a singleton program
 * before MPI_Init, calling one of the procedures allowed at any time.  The
 * initial error handler, MPI_ERRORS_ARE_FATAL, applies. */
static int raise_without_rank(int code, const char *fn, const char *detail)
{
    char what[MPI_MAX_ERROR_STRING + 64];
    zm_mpi_describe_code(code, what, sizeof(what));
    fflush(stdout);
    fprintf(stderr, "zmpi: %s%s%s (%s); the initial error handler MPI_ERRORS_ARE_FATAL "
            "ends the job\n", fn, detail[0] == '(' ? "" : ": ", detail, what);
    fatal_exit();
    return code;
}

/* Raise error `code` of call `fn` through handler `eh` of an object of
 * kind `obj` (OBJ_COMM, OBJ_WIN, OBJ_SESSION or OBJ_FILE) whose handle, as the program knows it,
 * is `handle`.  Records the message for MPI_Error_string, then calls the
 * handler: the fatal ones end the job, the others return `code`.
 * ULT context, `me` the calling rank. */
static int raise_error(zm_mpi_rank_t *me, struct zmpi_errhandler *eh, int obj, void *handle,
                       int code, const char *fn, const char *detail)
{
    /* A detail that starts with "(" names the argument: "MPI_Send(dest=9):".
     * Its first 200 characters are kept, whatever the object. */
    snprintf(me->last_msg, sizeof(me->last_msg), "%s%s%.200s", fn,
             detail[0] == '(' ? "" : ": ", detail);
    me->last_class = code;
    if (eh->kind == ZM_EH_RETURN)
        return code;
    if (eh->kind >= ZM_EH_USER) {
        /* The handler may replace itself on the object: hold it meanwhile. */
        int c = code;
        zm_mpi_eh_ref(eh);
        if (obj == OBJ_WIN) {
            MPI_Win w = handle;
            ((MPI_Win_errhandler_function *)(void (*)(void))eh->fn)(&w, &c);
        } else if (obj == OBJ_SESSION) {
            MPI_Session s = handle;
            ((MPI_Session_errhandler_function *)(void (*)(void))eh->fn)(&s, &c);
        } else if (obj == OBJ_FILE) {
            MPI_File f = handle;
            ((MPI_File_errhandler_function *)(void (*)(void))eh->fn)(&f, &c);
        } else {
            MPI_Comm h = handle;
            eh->fn(&h, &c);
        }
        zm_mpi_eh_unref(eh);
        return code;
    }
    char what[MPI_MAX_ERROR_STRING + 64];
    zm_mpi_describe_code(code, what, sizeof(what));
    fflush(stdout);
    fprintf(stderr, "zmpi: rank %d: %s (%s); error handler %s ends the job\n",
            me->world_rank, me->last_msg, what,
            eh->kind == ZM_EH_ABORT ? "MPI_ERRORS_ABORT" : "MPI_ERRORS_ARE_FATAL");
    fatal_exit();
    return code;
}

/* An object an error is raised on: its kind and its handle.  A
 * communicator is given by its internal object (NULL: MPI_COMM_SELF), the
 * others by their handle; a session also names the handler to use, since
 * MPI_Session_init raises errors before the session exists. */
typedef struct {
    int obj;                    /* OBJ_COMM, OBJ_WIN, OBJ_SESSION or OBJ_FILE */
    void *handle;               /* struct zmpi_comm *, MPI_Win, MPI_Session or MPI_File */
    struct zmpi_errhandler *eh; /* OBJ_SESSION only */
} eh_obj_t;

/* The handler in force on object `o`: a window whose handler was never set
 * has MPI_ERRORS_ARE_FATAL, MPI_FILE_NULL stands for the rank's default
 * file handler.  NULL only if that default cannot be allocated.  ULT
 * context, `me` the calling rank. */
static struct zmpi_errhandler *eh_in_force(zm_mpi_rank_t *me, const eh_obj_t *o)
{
    switch (o->obj) {
    case OBJ_COMM:
        return o->handle ? ((struct zmpi_comm *)o->handle)->eh : me->self.eh;
    case OBJ_WIN: {
        struct zmpi_errhandler *eh = ((MPI_Win)o->handle)->eh;
        return eh ? eh : MPI_ERRORS_ARE_FATAL;
    }
    case OBJ_SESSION:
        return o->eh;
    default:
        return o->handle ? ((MPI_File)o->handle)->eh : zm_mpi_file_default_eh();
    }
}

/* Format the detail of an error of call `fn` and raise class or code
 * `cls` on object `o`.  A file's message names the file; a user handler
 * gets the object's handle as the program knows it. */
static int vraise(const eh_obj_t *o, int cls, const char *fn, const char *fmt, va_list ap)
{
    char detail[200], full[480];
    vsnprintf(detail, sizeof(detail), fmt, ap);
    if (o->obj == OBJ_FILE && o->handle)
        snprintf(full, sizeof(full), "%s (file \"%s\")", detail, ((MPI_File)o->handle)->name);
    else
        snprintf(full, sizeof(full), "%s", detail);
    zm_mpi_rank_t *me = zm_mpi_me();
    if (!me)
        return raise_without_rank(cls, fn, full);
    struct zmpi_errhandler *eh = eh_in_force(me, o);
    void *h = o->handle;
    if (o->obj == OBJ_COMM) {
        struct zmpi_comm *comm = h ? h : &me->self;
        h = comm == &me->world ? MPI_COMM_WORLD : comm == &me->self ? MPI_COMM_SELF : comm;
    } else if (o->obj == OBJ_FILE && !eh) {
        eh = MPI_ERRORS_RETURN;
    }
    return raise_error(me, eh, o->obj, h, cls, fn, full);
}

/* vraise with the detail's arguments given in line. */
static int obj_error(const eh_obj_t *o, int cls, const char *fn, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vraise(o, cls, fn, fmt, ap);
    va_end(ap);
    return rc;
}

int zm_mpi_error(struct zmpi_comm *comm, int cls, const char *fn, const char *fmt, ...)
{
    eh_obj_t o = { OBJ_COMM, comm, NULL };
    va_list ap;
    va_start(ap, fmt);
    int rc = vraise(&o, cls, fn, fmt, ap);
    va_end(ap);
    return rc;
}

/* The window's counterpart of zm_mpi_error: a window whose handler was
 * never set (w->eh NULL) has MPI_ERRORS_ARE_FATAL, and a user handler gets
 * the window's handle. */
int zm_mpi_win_error(struct zmpi_win *w, int cls, const char *fn, const char *fmt, ...)
{
    eh_obj_t o = { OBJ_WIN, w, NULL };
    va_list ap;
    va_start(ap, fmt);
    int rc = vraise(&o, cls, fn, fmt, ap);
    va_end(ap);
    return rc;
}

int zm_mpi_check_comm_fail(MPI_Comm h, const char *fn)
{
    /* A rank of the sessions model outside MPI_Init ... MPI_Finalize. */
    if (h == MPI_COMM_WORLD || h == MPI_COMM_SELF)
        return zm_mpi_error(NULL, MPI_ERR_COMM, fn, "(comm=%s): valid only between MPI_Init "
                            "and MPI_Finalize; this rank uses the sessions model now",
                            h == MPI_COMM_WORLD ? "MPI_COMM_WORLD" : "MPI_COMM_SELF");
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
    /* A send's status is undefined but for its cancelled flag (MPI 4.1
     * section 3.7.3).  Its other fields keep what the caller had there, as
     * MPICH does: programs that pass one status to a Waitany over a
     * receive and a send rely on the send leaving the receive's fields. */
    if (req->kind == ZM_REQ_SEND) {
        st->zmpi_cancelled = req->cancelled;
        return;
    }
    st->MPI_SOURCE = req->st_source;
    st->MPI_TAG = req->st_tag;
    st->zmpi_cancelled = req->cancelled;
    st->zmpi_bytes = (MPI_Count)req->st_bytes;
}

void zm_mpi_status_null(MPI_Status *st)
{
    if (st == MPI_STATUS_IGNORE || !st)
        return;
    st->MPI_SOURCE = MPI_PROC_NULL;
    st->MPI_TAG = MPI_ANY_TAG;
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

/* ---- Error handler objects ---------------------------------------------- */

void zm_mpi_eh_ref(struct zmpi_errhandler *eh)
{
    atomic_fetch_add(&eh->refs, 1);
}

void zm_mpi_eh_unref(struct zmpi_errhandler *eh)
{
    if (eh->kind < ZM_EH_USER)
        return;
    if (atomic_fetch_sub(&eh->refs, 1) == 1) {
        zm_mpi_handle_forget(eh);
        zm_mpi_magic_clear(&eh->magic);
        zm_core_obj_free(eh);
    }
}

/* Check that `eh` is an error handler that may be attached to an object of
 * kind `obj`: the predefined handlers fit every object, a user handler
 * only the kind it was made for.  Returns NULL if so, else what is wrong. */
static const char *eh_unfit(MPI_Errhandler eh, int obj)
{
    if (eh == MPI_ERRHANDLER_NULL)
        return "(errhandler=MPI_ERRHANDLER_NULL): invalid error handler";
    if (eh->magic != ZM_EH_MAGIC)
        return "(errhandler): freed or not an error handler";
    /* A user handler is called with its object's handle type, so it fits
     * only the kind of object it was made for. */
    static const struct { int kind, obj; const char *why; } made_for[] = {
        { ZM_EH_USER, OBJ_COMM, "(errhandler): made by MPI_Comm_create_errhandler, so it is "
                                "for communicators only" },
        { ZM_EH_USER_WIN, OBJ_WIN, "(errhandler): made by MPI_Win_create_errhandler, so it is "
                                   "for windows only" },
        { ZM_EH_USER_FILE, OBJ_FILE, "(errhandler): made by MPI_File_create_errhandler, so it "
                                     "is for files only" },
        { ZM_EH_USER_SESSION, OBJ_SESSION, "(errhandler): made by "
                                           "MPI_Session_create_errhandler, so it is for "
                                           "sessions only" },
    };
    for (size_t i = 0; i < sizeof(made_for) / sizeof(made_for[0]); i++)
        if (eh->kind == made_for[i].kind && obj != made_for[i].obj)
            return made_for[i].why;
    return NULL;
}

/* Make a user error handler of kind `kind` calling `f`.  Errors are raised
 * on MPI_COMM_SELF, since no object is involved yet. */
static int eh_create(const char *fn, int kind, MPI_Comm_errhandler_function *f,
                     MPI_Errhandler *errhandler)
{
    /* A session's handler is made before the session, even before
     * MPI_Init (MPI 4.1 section 11.4.1). */
    if (kind != ZM_EH_USER_SESSION)
        zm_mpi_enter(fn);
    else if (!zm_mpi_rank_attach())
        return zm_mpi_error(NULL, MPI_ERR_OTHER, fn, "cannot set up a one-rank job");
    if (!f)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(function=NULL): invalid argument");
    if (!errhandler)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(errhandler=NULL): invalid argument");
    /* In the rank's heap in a job whose ranks have regions: it moves with
     * the rank (docs/migrate.md). */
    struct zmpi_errhandler *eh = zm_core_obj_alloc(sizeof(*eh));
    if (!eh)
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    eh->magic = ZM_EH_MAGIC;
    eh->kind = kind;
    eh->fn = f;
    atomic_init(&eh->refs, 1);
    *errhandler = eh;
    return MPI_SUCCESS;
}

/* Check a window handle; raises MPI_ERR_WIN on MPI_COMM_SELF if invalid. */
static int win_check(const char *fn, MPI_Win win)
{
    if (win && win->magic == ZM_WIN_MAGIC)
        return MPI_SUCCESS;
    return zm_mpi_error(NULL, MPI_ERR_WIN, fn, "(win=%s): invalid window",
                        win ? "freed or not a window" : "MPI_WIN_NULL");
}

/* Start call `fn` on the kind-`obj` object `handle` of the set, get and
 * call families: check the handle (raising its error on MPI_COMM_SELF or
 * the session's rules) and describe the object in *o.  MPI_FILE_NULL is
 * valid: it stands for the default file handler. */
static int eh_obj(const char *fn, int obj, void *handle, eh_obj_t *o)
{
    *o = (eh_obj_t){ obj, handle, NULL };
    switch (obj) {
    case OBJ_COMM: {
        zm_mpi_rank_t *me = zm_mpi_enter(fn);
        struct zmpi_comm *c = NULL;
        int rc = zm_mpi_check_comm(me, handle, fn, &c);
        o->handle = c;
        return rc;
    }
    case OBJ_WIN:
        zm_mpi_enter(fn);
        return win_check(fn, handle);
    case OBJ_SESSION: {
        /* The session's own handler raises its errors once it is known good. */
        int rc = zm_mpi_session_check(fn, handle);
        if (rc == MPI_SUCCESS)
            o->eh = ((MPI_Session)handle)->eh;
        return rc;
    }
    default:
        zm_mpi_enter(fn);
        return handle ? zm_mpi_file_check(fn, handle) : MPI_SUCCESS;
    }
}

/* Body of MPI_{Comm,Win,File,Session}_set_errhandler and MPI_Errhandler_set:
 * the object keeps a reference to its new handler and drops the old one. */
static int eh_set(const char *fn, int obj, void *handle, MPI_Errhandler errhandler)
{
    eh_obj_t o;
    int rc = eh_obj(fn, obj, handle, &o);
    if (rc != MPI_SUCCESS)
        return rc;
    const char *bad = eh_unfit(errhandler, obj);
    if (bad)
        return obj_error(&o, MPI_ERR_ARG, fn, "%s", bad);
    zm_mpi_eh_ref(errhandler);
    struct zmpi_errhandler **slot;
    switch (obj) {
    case OBJ_COMM:
        slot = &((struct zmpi_comm *)o.handle)->eh;
        break;
    case OBJ_WIN:
        slot = &((MPI_Win)handle)->eh;
        break;
    case OBJ_SESSION:
        slot = &((MPI_Session)handle)->eh;
        break;
    default:
        if (!handle)
            return zm_mpi_file_set_default_eh(errhandler);
        slot = &((MPI_File)handle)->eh;
    }
    if (*slot)
        zm_mpi_eh_unref(*slot);
    *slot = errhandler;
    return MPI_SUCCESS;
}

/* Body of MPI_{Comm,Win,File,Session}_get_errhandler and
 * MPI_Errhandler_get: the caller gets a reference to the handler in force,
 * to free with MPI_Errhandler_free. */
static int eh_get(const char *fn, int obj, void *handle, MPI_Errhandler *errhandler)
{
    eh_obj_t o;
    int rc = eh_obj(fn, obj, handle, &o);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!errhandler)
        return obj_error(&o, MPI_ERR_ARG, fn, "(errhandler=NULL): invalid argument");
    struct zmpi_errhandler *eh = eh_in_force(zm_mpi_me(), &o);
    if (!eh)
        return obj_error(&o, MPI_ERR_NO_MEM, fn, "out of memory");
    zm_mpi_eh_ref(eh);
    *errhandler = eh;
    return MPI_SUCCESS;
}

/* Body of MPI_{Comm,Win,File,Session}_call_errhandler.  The handler gets
 * the code itself: a predefined code or an added one.  The call succeeds
 * once the handler returns. */
static int eh_call(const char *fn, int obj, void *handle, int errorcode)
{
    eh_obj_t o;
    int rc = eh_obj(fn, obj, handle, &o);
    if (rc != MPI_SUCCESS)
        return rc;
    if (zm_mpi_code_class(errorcode) < 0)
        return obj_error(&o, MPI_ERR_ARG, fn, "(errorcode=%d): not an MPI error code",
                         errorcode);
    obj_error(&o, errorcode, fn, "error code %d raised by the program", errorcode);
    return MPI_SUCCESS;
}

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *function,
                                MPI_Errhandler *errhandler)
{
    return eh_create("MPI_Comm_create_errhandler", ZM_EH_USER, function, errhandler);
}
ZM_WEAK(Comm_create_errhandler)

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    return eh_set("MPI_Comm_set_errhandler", OBJ_COMM, comm, errhandler);
}
ZM_WEAK(Comm_set_errhandler)

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    return eh_get("MPI_Comm_get_errhandler", OBJ_COMM, comm, errhandler);
}
ZM_WEAK(Comm_get_errhandler)

/* The MPI-1 names (removed in MPI-3), kept for old codes: each is its
 * replacement under the old name. */
int PMPI_Errhandler_create(MPI_Handler_function *function, MPI_Errhandler *errhandler)
{
    return eh_create("MPI_Errhandler_create", ZM_EH_USER, function, errhandler);
}
ZM_WEAK(Errhandler_create)

int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler)
{
    return eh_set("MPI_Errhandler_set", OBJ_COMM, comm, errhandler);
}
ZM_WEAK(Errhandler_set)

int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    return eh_get("MPI_Errhandler_get", OBJ_COMM, comm, errhandler);
}
ZM_WEAK(Errhandler_get)

int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    return eh_call("MPI_Comm_call_errhandler", OBJ_COMM, comm, errorcode);
}
ZM_WEAK(Comm_call_errhandler)

int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn,
                               MPI_Errhandler *errhandler)
{
    return eh_create("MPI_Win_create_errhandler", ZM_EH_USER_WIN,
                     (MPI_Comm_errhandler_function *)(void (*)(void))win_errhandler_fn,
                     errhandler);
}
ZM_WEAK(Win_create_errhandler)

int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    return eh_set("MPI_Win_set_errhandler", OBJ_WIN, win, errhandler);
}
ZM_WEAK(Win_set_errhandler)

int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    return eh_get("MPI_Win_get_errhandler", OBJ_WIN, win, errhandler);
}
ZM_WEAK(Win_get_errhandler)

int PMPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
    return eh_call("MPI_Win_call_errhandler", OBJ_WIN, win, errorcode);
}
ZM_WEAK(Win_call_errhandler)

int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    const char *fn = "MPI_Errhandler_free";
    zm_mpi_enter(fn);
    if (!errhandler)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(errhandler=NULL): invalid argument");
    if (*errhandler == MPI_ERRHANDLER_NULL || (*errhandler)->magic != ZM_EH_MAGIC)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(errhandler=%s): invalid error handler",
                            *errhandler ? "freed or not an error handler"
                                        : "MPI_ERRHANDLER_NULL");
    zm_mpi_eh_unref(*errhandler);
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}
ZM_WEAK(Errhandler_free)

/* ---- Session error handlers (MPI 4.1 section 9.3.4) ----------------------- */

int zm_mpi_session_error(struct zmpi_errhandler *eh, MPI_Session handle, int cls,
                         const char *fn, const char *fmt, ...)
{
    eh_obj_t o = { OBJ_SESSION, handle, eh };
    va_list ap;
    va_start(ap, fmt);
    int rc = vraise(&o, cls, fn, fmt, ap);
    va_end(ap);
    return rc;
}

const char *zm_mpi_eh_unfit_session(MPI_Errhandler eh)
{
    return eh_unfit(eh, OBJ_SESSION);
}

const char *zm_mpi_eh_unfit_comm(MPI_Errhandler eh)
{
    return eh_unfit(eh, OBJ_COMM);
}

/* A session's errors are raised on it, so a bad argument of these calls
 * goes through the session's own handler once the session is known good. */
int PMPI_Session_create_errhandler(MPI_Session_errhandler_function *session_errhandler_fn,
                                   MPI_Errhandler *errhandler)
{
    return eh_create("MPI_Session_create_errhandler", ZM_EH_USER_SESSION,
                     (MPI_Comm_errhandler_function *)(void (*)(void))session_errhandler_fn,
                     errhandler);
}
ZM_WEAK(Session_create_errhandler)

int PMPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler)
{
    return eh_set("MPI_Session_set_errhandler", OBJ_SESSION, session, errhandler);
}
ZM_WEAK(Session_set_errhandler)

int PMPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler)
{
    return eh_get("MPI_Session_get_errhandler", OBJ_SESSION, session, errhandler);
}
ZM_WEAK(Session_get_errhandler)

int PMPI_Session_call_errhandler(MPI_Session session, int errorcode)
{
    return eh_call("MPI_Session_call_errhandler", OBJ_SESSION, session, errorcode);
}
ZM_WEAK(Session_call_errhandler)

/* ---- Files (MPI-IO) ------------------------------------------------------ */

/* The file's counterpart of zm_mpi_error: a user handler gets the file's
 * handle (MPI_FILE_NULL for errors of MPI_File_open/delete), and the
 * message names the file. */
int zm_mpi_file_error(struct zmpi_file *fh, int cls, const char *fn, const char *fmt, ...)
{
    eh_obj_t o = { OBJ_FILE, fh, NULL };
    va_list ap;
    va_start(ap, fmt);
    int rc = vraise(&o, cls, fn, fmt, ap);
    va_end(ap);
    return rc;
}

int PMPI_File_create_errhandler(MPI_File_errhandler_function *file_errhandler_fn,
                                MPI_Errhandler *errhandler)
{
    return eh_create("MPI_File_create_errhandler", ZM_EH_USER_FILE,
                     (MPI_Comm_errhandler_function *)(void (*)(void))file_errhandler_fn,
                     errhandler);
}
ZM_WEAK(File_create_errhandler)

int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler)
{
    return eh_set("MPI_File_set_errhandler", OBJ_FILE, file, errhandler);
}
ZM_WEAK(File_set_errhandler)

int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler)
{
    return eh_get("MPI_File_get_errhandler", OBJ_FILE, file, errhandler);
}
ZM_WEAK(File_get_errhandler)

int PMPI_File_call_errhandler(MPI_File fh, int errorcode)
{
    return eh_call("MPI_File_call_errhandler", OBJ_FILE, fh, errorcode);
}
ZM_WEAK(File_call_errhandler)
