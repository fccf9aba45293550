/* zf_callback.c: Fortran procedures as MPI callbacks.
 *
 * Keyval callbacks carry an extra_state, so one C trampoline serves every
 * keyval: the Fortran procedures and the Fortran extra_state travel in a
 * small record passed as the C extra_state.  User operations and error
 * handlers carry no state, so each Fortran procedure gets a slot with a
 * trampoline of its own: ZF_SLOTS distinct procedures per kind (the same
 * procedure registered again reuses its slot).  Under privatization this
 * file is in every rank's copy of the program, so each rank has its own
 * slots; without it ranks share them, hence the lock.
 *
 * Contract of every pmpi_x_ here: MPI_X as a Fortran program calls it, on
 * the calling rank's thread; a slot, once taken, stays with its procedure
 * for the life of the program (it holds no memory). */
#include "zf_glue_hand.h"

#include <pthread.h>
#include <stdlib.h>

#define ZF_SLOTS 64

static pthread_mutex_t zf_slot_lock = PTHREAD_MUTEX_INITIALIZER;

/* The slot of procedure f in table (of ZF_SLOTS), taken if new; -1 when
 * every slot holds another procedure. */
static int zf_slot(void (**table)(void), void (*f)(void))
{
    int found = -1;
    pthread_mutex_lock(&zf_slot_lock);
    for (int i = 0; i < ZF_SLOTS && found < 0; i++) {
        if (table[i] == f || !table[i]) {
            table[i] = f;
            found = i;
        }
    }
    pthread_mutex_unlock(&zf_slot_lock);
    return found;
}

#define ZF_REP8(M, b) M(b##0) M(b##1) M(b##2) M(b##3) M(b##4) M(b##5) M(b##6) M(b##7)
#define ZF_REP64(M) ZF_REP8(M, 0) ZF_REP8(M, 1) ZF_REP8(M, 2) ZF_REP8(M, 3) \
    ZF_REP8(M, 4) ZF_REP8(M, 5) ZF_REP8(M, 6) ZF_REP8(M, 7)
/* Octal slot numbers 000..077 make 64 distinct names. */
#define ZF_IDX(n) (0##n)

/* ---- User operations ---- */

typedef void zf_user_fn(void *invec, void *inoutvec, MPI_Fint *len, MPI_Fint *datatype);
static void (*zf_op_fns[ZF_SLOTS])(void);

#define ZF_OP_TRAMP(n) \
    static void zf_op_##n(void *in, void *inout, int *len, MPI_Datatype *dt) \
    { \
        MPI_Fint fdt = PMPI_Type_c2f(*dt), flen = *len; \
        ((zf_user_fn *)zf_op_fns[ZF_IDX(n)])(in, inout, &flen, &fdt); \
    }
ZF_REP64(ZF_OP_TRAMP)
#define ZF_OP_ENTRY(n) zf_op_##n,
static MPI_User_function *const zf_op_tramps[ZF_SLOTS] = {ZF_REP64(ZF_OP_ENTRY)};

void pmpi_op_create_(void (*user_fn)(void), MPI_Fint *commute, MPI_Fint *op, MPI_Fint *ierror)
{
    MPI_Op c = MPI_OP_NULL;
    int rc, slot = zf_slot(zf_op_fns, user_fn);
    if (slot < 0)
        rc = zf_error(MPI_ERR_OTHER, "MPI_Op_create", "more than 64 distinct Fortran "
                      "user functions in one rank");
    else
        rc = PMPI_Op_create(zf_op_tramps[slot], *commute != 0, &c);
    *op = PMPI_Op_c2f(c);
    if (ierror)
        *ierror = rc;
}
ZF_WEAK(pmpi_op_create_, mpi_op_create_)

/* Large-count user operations (MPI_Op_create_c, mpi_f08 only): the length
 * is an INTEGER(KIND=MPI_COUNT_KIND).  Compiled only when mpi.h has it. */
#ifdef ZF_HAVE_Op_create_c
typedef void zf_user_fn_c(void *invec, void *inoutvec, MPI_Count *len, MPI_Fint *datatype);
static void (*zf_op_c_fns[ZF_SLOTS])(void);

#define ZF_OP_C_TRAMP(n) \
    static void zf_op_c_##n(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt) \
    { \
        MPI_Fint fdt = PMPI_Type_c2f(*dt); \
        MPI_Count flen = *len; \
        ((zf_user_fn_c *)zf_op_c_fns[ZF_IDX(n)])(in, inout, &flen, &fdt); \
    }
ZF_REP64(ZF_OP_C_TRAMP)
#define ZF_OP_C_ENTRY(n) zf_op_c_##n,
static MPI_User_function_c *const zf_op_c_tramps[ZF_SLOTS] = {ZF_REP64(ZF_OP_C_ENTRY)};

void pmpi_op_create_c_(void (*user_fn)(void), MPI_Fint *commute, MPI_Fint *op,
                       MPI_Fint *ierror)
{
    MPI_Op c = MPI_OP_NULL;
    int rc, slot = zf_slot(zf_op_c_fns, user_fn);
    if (slot < 0)
        rc = zf_error(MPI_ERR_OTHER, "MPI_Op_create_c", "more than 64 distinct Fortran "
                      "large-count user functions in one rank");
    else
        rc = PMPI_Op_create_c(zf_op_c_tramps[slot], *commute != 0, &c);
    *op = PMPI_Op_c2f(c);
    if (ierror)
        *ierror = rc;
}
ZF_WEAK(pmpi_op_create_c_, mpi_op_create_c_)
#endif

/* ---- Error handlers: Fortran's (handle, error_code) ---- */

typedef void zf_eh_fn(MPI_Fint *handle, MPI_Fint *code);

#define ZF_EH_KIND(kind, ctype, c2f) \
    static void (*zf_eh_##kind##_fns[ZF_SLOTS])(void); \
    ZF_REP64(ZF_EH_TRAMP_##kind) \
    static void (*const zf_eh_##kind##_tramps[ZF_SLOTS])(ctype *, int *, ...) = { \
        ZF_REP64(ZF_EH_ENTRY_##kind)};
#define ZF_EH_TRAMP(kind, ctype, c2f, n) \
    static void zf_eh_##kind##_##n(ctype *h, int *code, ...) \
    { \
        MPI_Fint fh = c2f(*h), fc = *code; \
        ((zf_eh_fn *)zf_eh_##kind##_fns[ZF_IDX(n)])(&fh, &fc); \
    }
#define ZF_EH_TRAMP_comm(n) ZF_EH_TRAMP(comm, MPI_Comm, PMPI_Comm_c2f, n)
#define ZF_EH_ENTRY_comm(n) zf_eh_comm_##n,
#define ZF_EH_TRAMP_win(n) ZF_EH_TRAMP(win, MPI_Win, PMPI_Win_c2f, n)
#define ZF_EH_ENTRY_win(n) zf_eh_win_##n,
#define ZF_EH_TRAMP_file(n) ZF_EH_TRAMP(file, MPI_File, PMPI_File_c2f, n)
#define ZF_EH_ENTRY_file(n) zf_eh_file_##n,
#define ZF_EH_TRAMP_session(n) ZF_EH_TRAMP(session, MPI_Session, PMPI_Session_c2f, n)
#define ZF_EH_ENTRY_session(n) zf_eh_session_##n,
ZF_EH_KIND(comm, MPI_Comm, PMPI_Comm_c2f)
ZF_EH_KIND(win, MPI_Win, PMPI_Win_c2f)
ZF_EH_KIND(file, MPI_File, PMPI_File_c2f)
ZF_EH_KIND(session, MPI_Session, PMPI_Session_c2f)

/* The errhandler-creating calls differ only in kind. */
#define ZF_EH_CREATE(fname, cname, kind, ctype) \
    void fname(void (*fn)(void), MPI_Fint *errhandler, MPI_Fint *ierror) \
    { \
        MPI_Errhandler c = MPI_ERRHANDLER_NULL; \
        int rc, slot = zf_slot(zf_eh_##kind##_fns, fn); \
        if (slot < 0) \
            rc = zf_error(MPI_ERR_OTHER, "MPI_" #cname, "more than 64 distinct Fortran " \
                          "error handler procedures in one rank"); \
        else \
            rc = PMPI_##cname(zf_eh_##kind##_tramps[slot], &c); \
        *errhandler = PMPI_Errhandler_c2f(c); \
        if (ierror) \
            *ierror = rc; \
    }
ZF_EH_CREATE(pmpi_comm_create_errhandler_, Comm_create_errhandler, comm, MPI_Comm)
ZF_WEAK(pmpi_comm_create_errhandler_, mpi_comm_create_errhandler_)
ZF_EH_CREATE(pmpi_errhandler_create_, Errhandler_create, comm, MPI_Comm)
ZF_WEAK(pmpi_errhandler_create_, mpi_errhandler_create_)
ZF_EH_CREATE(pmpi_win_create_errhandler_, Win_create_errhandler, win, MPI_Win)
ZF_WEAK(pmpi_win_create_errhandler_, mpi_win_create_errhandler_)
ZF_EH_CREATE(pmpi_file_create_errhandler_, File_create_errhandler, file, MPI_File)
ZF_WEAK(pmpi_file_create_errhandler_, mpi_file_create_errhandler_)
ZF_EH_CREATE(pmpi_session_create_errhandler_, Session_create_errhandler, session, MPI_Session)
ZF_WEAK(pmpi_session_create_errhandler_, mpi_session_create_errhandler_)
