/*
 * errors.c: raising errors through error handlers, argument checks shared
 * by the API calls, error handlers of communicators and windows, and error
 * classes, codes and strings (MPI 4.1 chapter 9).
 *
 * An error is raised on the object the call works on: its communicator or
 * its window.  Errors that belong to no object (an invalid handle, a
 * datatype, group or info call, memory allocation) are raised on the
 * calling rank's MPI_COMM_SELF, as MPI 4.x says (MPI-3 used
 * MPI_COMM_WORLD).  Before MPI_Init, MPI_COMM_SELF's handler is the initial
 * error handler, MPI_ERRORS_ARE_FATAL; a call made on a thread that is not
 * a rank at all (a singleton program before MPI_Init) ends the job the same
 * way.
 *
 * Error classes and codes that a program adds (MPI_Add_error_class,
 * MPI_Add_error_code) live in one table for the whole job, not one per
 * rank.  An error code is a plain int that ranks hand to each other (in
 * messages, or through a library's error handler), so under zmpi any rank
 * can ask what any added code means.  The standard lets values differ
 * between processes, and they do: each rank's calls get values of their
 * own, so no two ranks share a code by accident.  Only the rank that added
 * a code may give it a string or remove it, as in a process-based MPI where
 * no other process could name it.  A rank sees its own additions at once
 * (the table is guarded by a spinlock, never held across a handler call).
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
    [MPI_T_ERR_MEMORY] = "MPI_T_ERR_MEMORY: out of memory",
    [MPI_T_ERR_NOT_INITIALIZED] = "MPI_T_ERR_NOT_INITIALIZED: MPI_T not initialized",
    [MPI_T_ERR_CANNOT_INIT] = "MPI_T_ERR_CANNOT_INIT: MPI_T cannot be initialized",
    [MPI_T_ERR_INVALID_INDEX] = "MPI_T_ERR_INVALID_INDEX: invalid index",
    [MPI_T_ERR_INVALID_ITEM] = "MPI_T_ERR_INVALID_ITEM: invalid item index",
    [MPI_T_ERR_INVALID_HANDLE] = "MPI_T_ERR_INVALID_HANDLE: invalid handle",
    [MPI_T_ERR_OUT_OF_HANDLES] = "MPI_T_ERR_OUT_OF_HANDLES: no more handles",
    [MPI_T_ERR_OUT_OF_SESSIONS] = "MPI_T_ERR_OUT_OF_SESSIONS: no more sessions",
    [MPI_T_ERR_INVALID_SESSION] = "MPI_T_ERR_INVALID_SESSION: invalid session",
    [MPI_T_ERR_CVAR_SET_NOT_NOW] = "MPI_T_ERR_CVAR_SET_NOT_NOW: control variable cannot be set now",
    [MPI_T_ERR_CVAR_SET_NEVER] = "MPI_T_ERR_CVAR_SET_NEVER: control variable can never be set",
    [MPI_T_ERR_PVAR_NO_STARTSTOP] = "MPI_T_ERR_PVAR_NO_STARTSTOP: performance variable cannot be started or stopped",
    [MPI_T_ERR_PVAR_NO_WRITE] = "MPI_T_ERR_PVAR_NO_WRITE: performance variable cannot be written or reset",
    [MPI_T_ERR_PVAR_NO_ATOMIC] = "MPI_T_ERR_PVAR_NO_ATOMIC: performance variable cannot be read and reset atomically",
    [MPI_T_ERR_INVALID_NAME] = "MPI_T_ERR_INVALID_NAME: invalid name",
    [MPI_T_ERR_INVALID] = "MPI_T_ERR_INVALID: invalid use of the interface",
    [MPI_T_ERR_NOT_SUPPORTED] = "MPI_T_ERR_NOT_SUPPORTED: not supported",
    [MPI_T_ERR_NOT_ACCESSIBLE] = "MPI_T_ERR_NOT_ACCESSIBLE: not accessible from this thread or rank",
};

#define NCLASS_NAMES ((int)(sizeof(class_names) / sizeof(*class_names)))

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

/* ---- Added error classes and codes ------------------------------------ */

/* The first value MPI_Add_error_class/code hand out: every predefined code
 * is at most MPI_ERR_LASTCODE. */
#define FIRST_USER_CODE (MPI_ERR_LASTCODE + 1)

/* Most added codes in use at once.  Programs add a few per library; the
 * bound keeps values far from INT_MAX. */
#define MAX_USER_CODES (1 << 20)

/* A code added by MPI_Add_error_class (then cls is the code itself) or by
 * MPI_Add_error_code. */
struct user_code {
    int used;    /* nonzero while the code exists */
    int cls;     /* its error class */
    int owner;   /* world rank that added it */
    char *str;   /* text from MPI_Add_error_string, or NULL */
};

/* The job's added codes (see the top of the file). */
static struct {
    zm_spinlock_t lock;     /* guards everything below */
    struct user_code *v;    /* v[i] describes code FIRST_USER_CODE + i */
    int n;                  /* entries up to the highest code in use */
    int cap;                /* entries allocated */
} ucodes;

/* The entry of code `code` (caller holds the lock), or NULL if the code was
 * not added or was removed. */
static struct user_code *ucode_at(int code)
{
    long i = (long)code - FIRST_USER_CODE;
    if (i < 0 || i >= ucodes.n || !ucodes.v[i].used)
        return NULL;
    return &ucodes.v[i];
}

/* The class of error code `code`, or -1 if `code` is no error code.  The
 * predefined codes are their own classes.  Any thread. */
static int code_class(int code)
{
    if (code >= 0 && code <= MPI_ERR_LASTCODE)
        return code;
    zm_spin_lock(&ucodes.lock);
    struct user_code *e = ucode_at(code);
    int cls = e ? e->cls : -1;
    zm_spin_unlock(&ucodes.lock);
    return cls;
}

/* Nonzero if `cls` is an error class a code can be added to: a named
 * predefined class other than MPI_SUCCESS, or an added class. */
static int is_error_class(int cls)
{
    if (cls > 0 && cls < NCLASS_NAMES)
        return class_names[cls] != NULL;
    return cls > MPI_ERR_LASTCODE && code_class(cls) == cls;
}

/* Copy the string of added code `code` into buf (empty if it has none).
 * Returns 0 if `code` is not an added code.  Any thread. */
static int ucode_string(int code, char *buf, size_t len)
{
    zm_spin_lock(&ucodes.lock);
    struct user_code *e = ucode_at(code);
    if (e)
        snprintf(buf, len, "%s", e->str ? e->str : "");
    zm_spin_unlock(&ucodes.lock);
    return e != NULL;
}

/* Add a code of class `cls`, or a new class if cls < 0, owned by world rank
 * `owner`.  Returns the new value, or -1 if out of memory or of values. */
static int ucode_add(int cls, int owner)
{
    int code = -1;
    zm_spin_lock(&ucodes.lock);
    if (ucodes.n == ucodes.cap && ucodes.cap < MAX_USER_CODES) {
        int cap = ucodes.cap ? 2 * ucodes.cap : 16;
        struct user_code *v = realloc(ucodes.v, sizeof(*v) * (size_t)cap);
        if (v) {
            ucodes.v = v;
            ucodes.cap = cap;
        }
    }
    if (ucodes.n < ucodes.cap) {
        code = FIRST_USER_CODE + ucodes.n;
        ucodes.v[ucodes.n++] = (struct user_code){ 1, cls < 0 ? code : cls, owner, NULL };
    }
    zm_spin_unlock(&ucodes.lock);
    return code;
}

/* The entry of added code `code` if it exists and belongs to world rank
 * `rank`, who may then change it; else NULL, with the reason in why.  Lock
 * held. */
static struct user_code *ucode_owned(int code, int rank, char *why, size_t len)
{
    struct user_code *e = ucode_at(code);
    if (!e && code >= 0 && code <= MPI_ERR_LASTCODE)
        snprintf(why, len, "predefined error codes and classes cannot be changed");
    else if (!e)
        snprintf(why, len, "not a code or class added by MPI_Add_error_class/code");
    else if (e->owner != rank)
        snprintf(why, len, "added by rank %d, so only that rank may change it", e->owner);
    else
        return e;
    return NULL;
}

/* The removals of MPI 4.1: a class, a code, or a string. */
enum { RM_CLASS, RM_CODE, RM_STRING };

/* Nonzero if an added code other than the class itself has class `cls`.
 * Lock held. */
static int class_has_codes(int cls)
{
    for (int i = 0; i < ucodes.n; i++)
        if (ucodes.v[i].used && ucodes.v[i].cls == cls && FIRST_USER_CODE + i != cls)
            return 1;
    return 0;
}

/* Remove what `what` says from added code `code` on behalf of world rank
 * `rank`.  Returns 0, or -1 with the reason in why (nothing changed). */
static int ucode_remove(int code, int what, int rank, char *why, size_t len)
{
    char *str = NULL;
    int rc = -1;
    zm_spin_lock(&ucodes.lock);
    struct user_code *e = ucode_owned(code, rank, why, len);
    if (!e)
        ;
    else if (what == RM_STRING && !e->str)
        snprintf(why, len, "it has no string added by MPI_Add_error_string");
    else if (what == RM_CLASS && e->cls != code)
        snprintf(why, len, "it is an error code of class %d, not a class", e->cls);
    else if (what == RM_CLASS && class_has_codes(code))
        snprintf(why, len, "error codes of this class still exist; remove them first");
    else if (what == RM_CODE && e->cls == code)
        snprintf(why, len, "it is an error class, not a code");
    else if (what != RM_STRING && e->str)
        snprintf(why, len, "it still has a string; remove it first with MPI_Remove_error_string");
    else {
        /* Classes and codes alike must lose their strings first (MPI 4.1
         * section 9.5; MPICH and mpi4py's tests agree). */
        str = e->str;
        e->str = NULL;
        if (what != RM_STRING)
            e->used = 0;
        while (ucodes.n > 0 && !ucodes.v[ucodes.n - 1].used)
            ucodes.n--;
        rc = 0;
    }
    zm_spin_unlock(&ucodes.lock);
    free(str);
    return rc;
}

int zm_mpi_last_used_code(void)
{
    zm_spin_lock(&ucodes.lock);
    int last = FIRST_USER_CODE - 1 + ucodes.n;
    zm_spin_unlock(&ucodes.lock);
    return last;
}

/* A description of error code `code` for messages. */
static void describe_code(int code, char *buf, size_t len)
{
    char str[MPI_MAX_ERROR_STRING];
    int cls = code_class(code);
    if (code >= 0 && code < NCLASS_NAMES && class_names[code])
        snprintf(buf, len, "%s", class_names[code]);
    else if (cls < 0 || !ucode_string(code, str, sizeof(str)))
        snprintf(buf, len, "unknown error code %d", code);
    else if (cls == code)
        snprintf(buf, len, "error class %d%s%s", code, *str ? ": " : "", str);
    else
        snprintf(buf, len, "error code %d of class %d%s%s", code, cls, *str ? ": " : "", str);
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
    describe_code(code, what, sizeof(what));
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
    describe_code(code, what, sizeof(what));
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
        free(eh);
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
    struct zmpi_errhandler *eh = malloc(sizeof(*eh));
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
    if (code_class(errorcode) < 0)
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

/* ---- Error classes, codes and strings ----------------------------------- */

/* MPI_Error_string and MPI_Error_class may be called at any time, even
 * before MPI_Init (MPI 4.1 section 11.2.1), so they need no rank. */
int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    const char *fn = "MPI_Error_string";
    zm_mpi_rank_t *me = zm_mpi_me();
    if (!string || !resultlen)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(%s=NULL): invalid argument",
                            string ? "resultlen" : "string");
    int n, known = 1;
    const char *base = errorcode >= 0 && errorcode < NCLASS_NAMES ? class_names[errorcode] : NULL;
    if (base && me && errorcode != MPI_SUCCESS && me->last_class == errorcode && me->last_msg[0])
        n = snprintf(string, MPI_MAX_ERROR_STRING, "%s (last: %s)", base, me->last_msg);
    else if (base)
        n = snprintf(string, MPI_MAX_ERROR_STRING, "%s", base);
    else if (ucode_string(errorcode, string, MPI_MAX_ERROR_STRING))
        /* An added code says what MPI_Add_error_string gave it, or nothing
         * (MPI 4.1 section 9.5). */
        n = (int)strlen(string);
    else {
        n = snprintf(string, MPI_MAX_ERROR_STRING, "unknown error code %d", errorcode);
        known = 0;
    }
    *resultlen = n < MPI_MAX_ERROR_STRING ? n : MPI_MAX_ERROR_STRING - 1;
    if (!known)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(errorcode=%d): not an MPI error code",
                            errorcode);
    return MPI_SUCCESS;
}
ZM_WEAK(Error_string)

int PMPI_Error_class(int errorcode, int *errorclass)
{
    const char *fn = "MPI_Error_class";
    if (!errorclass)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(errorclass=NULL): invalid argument");
    int cls = code_class(errorcode);
    if (cls < 0)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(errorcode=%d): not an MPI error code",
                            errorcode);
    *errorclass = cls;
    return MPI_SUCCESS;
}
ZM_WEAK(Error_class)

int PMPI_Add_error_class(int *errorclass)
{
    const char *fn = "MPI_Add_error_class";
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    if (!errorclass)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(errorclass=NULL): invalid argument");
    int cls = ucode_add(-1, me->world_rank);
    if (cls < 0)
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory or of error codes "
                            "(%d added codes in use)", MAX_USER_CODES);
    *errorclass = cls;
    return MPI_SUCCESS;
}
ZM_WEAK(Add_error_class)

int PMPI_Add_error_code(int errorclass, int *errorcode)
{
    const char *fn = "MPI_Add_error_code";
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    if (!errorcode)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(errorcode=NULL): invalid argument");
    if (!is_error_class(errorclass))
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(errorclass=%d): not an error class "
                            "(a predefined class other than MPI_SUCCESS, or one from "
                            "MPI_Add_error_class)", errorclass);
    int code = ucode_add(errorclass, me->world_rank);
    if (code < 0)
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory or of error codes "
                            "(%d added codes in use)", MAX_USER_CODES);
    *errorcode = code;
    return MPI_SUCCESS;
}
ZM_WEAK(Add_error_code)

int PMPI_Add_error_string(int errorcode, const char *string)
{
    const char *fn = "MPI_Add_error_string";
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    if (!string)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(string=NULL): invalid argument");
    size_t len = strlen(string);
    if (len >= MPI_MAX_ERROR_STRING)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(string): %zu characters, more than "
                            "MPI_MAX_ERROR_STRING - 1 = %d", len, MPI_MAX_ERROR_STRING - 1);
    char *copy = strdup(string), why[120], *old = NULL;
    if (!copy)
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    /* A second call replaces the string (MPI 4.1 section 9.5). */
    zm_spin_lock(&ucodes.lock);
    struct user_code *e = ucode_owned(errorcode, me->world_rank, why, sizeof(why));
    if (e) {
        old = e->str;
        e->str = copy;
    }
    zm_spin_unlock(&ucodes.lock);
    free(e ? old : copy);
    if (!e)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(errorcode=%d): %s", errorcode, why);
    return MPI_SUCCESS;
}
ZM_WEAK(Add_error_string)

/* Body of the three MPI 4.1 removals. */
static int remove_code(const char *fn, int value, int what)
{
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    char why[120];
    if (ucode_remove(value, what, me->world_rank, why, sizeof(why)) != 0)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(%s=%d): %s",
                            what == RM_CLASS ? "errorclass" : "errorcode", value, why);
    return MPI_SUCCESS;
}

int PMPI_Remove_error_class(int errorclass)
{
    return remove_code("MPI_Remove_error_class", errorclass, RM_CLASS);
}
ZM_WEAK(Remove_error_class)

int PMPI_Remove_error_code(int errorcode)
{
    return remove_code("MPI_Remove_error_code", errorcode, RM_CODE);
}
ZM_WEAK(Remove_error_code)

int PMPI_Remove_error_string(int errorcode)
{
    return remove_code("MPI_Remove_error_string", errorcode, RM_STRING);
}
ZM_WEAK(Remove_error_string)

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
