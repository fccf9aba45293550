/*
 * errors_codes.c: error classes, codes and strings (MPI 4.1 section 9.4 and
 * 9.5): the predefined classes' texts, and the classes and codes a program
 * adds, gives strings to and removes.  Split from errors.c, which raises
 * errors and describes them with zm_mpi_describe_code.
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
#include "mpi_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
int zm_mpi_code_class(int code)
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
    return cls > MPI_ERR_LASTCODE && zm_mpi_code_class(cls) == cls;
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
void zm_mpi_describe_code(int code, char *buf, size_t len)
{
    char str[MPI_MAX_ERROR_STRING];
    int cls = zm_mpi_code_class(code);
    if (code >= 0 && code < NCLASS_NAMES && class_names[code])
        snprintf(buf, len, "%s", class_names[code]);
    else if (cls < 0 || !ucode_string(code, str, sizeof(str)))
        snprintf(buf, len, "unknown error code %d", code);
    else if (cls == code)
        snprintf(buf, len, "error class %d%s%s", code, *str ? ": " : "", str);
    else
        snprintf(buf, len, "error code %d of class %d%s%s", code, cls, *str ? ": " : "", str);
}

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
    int cls = zm_mpi_code_class(errorcode);
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
