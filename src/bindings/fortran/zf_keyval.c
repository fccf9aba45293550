/* zf_keyval.c: keyvals with Fortran copy and delete procedures (also the
 * MPI-1 MPI_KEYVAL_CREATE), the predefined Fortran callbacks
 * (MPI_COMM_NULL_COPY_FN, ..., MPI_NULL_COPY_FN, ...) and generalized
 * requests with Fortran callbacks.
 *
 * A Fortran attribute value is an INTEGER(KIND=MPI_ADDRESS_KIND) stored as
 * the C attribute pointer itself.  The Fortran procedures and extra_state
 * travel in a record passed to C as extra_state; the record lives as long
 * as the program (MPI gives no hook when a keyval's last attribute goes
 * away after MPI_*_FREE_KEYVAL), a few bytes per keyval created.
 *
 * Contract of every pmpi_x_ here: MPI_X as a Fortran program calls it, on
 * the calling rank's thread; the records belong to MPI (keyvals, freed
 * never; generalized requests, freed by their free callback). */
#include "zf_glue_hand.h"

#include <stdlib.h>

typedef void zf_copy_fn(MPI_Fint *old, MPI_Fint *keyval, MPI_Aint *extra, MPI_Aint *in,
                        MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierror);
typedef void zf_delete_fn(MPI_Fint *h, MPI_Fint *keyval, MPI_Aint *val, MPI_Aint *extra,
                          MPI_Fint *ierror);

struct zf_kv {
    zf_copy_fn *copy;
    zf_delete_fn *del;
    MPI_Aint extra;
};

static int zf_kv_copy(MPI_Fint fold, int keyval, struct zf_kv *kv, void *in, void *out,
                      int *flag)
{
    MPI_Fint fkey = keyval, fflag = ZF_FALSE, ierr = MPI_SUCCESS;
    MPI_Aint ain = (MPI_Aint)(intptr_t)in, aout = 0;
    kv->copy(&fold, &fkey, &kv->extra, &ain, &aout, &fflag, &ierr);
    *flag = fflag != 0;
    if (*flag)
        *(void **)out = (void *)(intptr_t)aout;
    return ierr;
}

static int zf_kv_delete(MPI_Fint fh, int keyval, void *val, struct zf_kv *kv)
{
    MPI_Fint fkey = keyval, ierr = MPI_SUCCESS;
    MPI_Aint aval = (MPI_Aint)(intptr_t)val;
    kv->del(&fh, &fkey, &aval, &kv->extra, &ierr);
    return ierr;
}

#define ZF_KV_KIND(kind, ctype, c2f, cname, fname) \
    static int zf_kv_copy_##kind(ctype old, int keyval, void *extra, void *in, void *out, \
                                 int *flag) \
    { \
        return zf_kv_copy(c2f(old), keyval, extra, in, out, flag); \
    } \
    static int zf_kv_delete_##kind(ctype h, int keyval, void *val, void *extra) \
    { \
        return zf_kv_delete(c2f(h), keyval, val, extra); \
    } \
    void fname(void (*copy_fn)(void), void (*delete_fn)(void), MPI_Fint *keyval, \
               MPI_Aint *extra_state, MPI_Fint *ierror) \
    { \
        int k = MPI_KEYVAL_INVALID, rc; \
        struct zf_kv *kv = malloc(sizeof *kv); \
        if (!kv) { \
            rc = zf_oom("MPI_" #cname); \
        } else { \
            kv->copy = (zf_copy_fn *)copy_fn; \
            kv->del = (zf_delete_fn *)delete_fn; \
            kv->extra = *extra_state; \
            rc = PMPI_##cname(zf_kv_copy_##kind, zf_kv_delete_##kind, &k, kv); \
            if (rc != MPI_SUCCESS) \
                free(kv); \
        } \
        *keyval = k; \
        if (ierror) \
            *ierror = rc; \
    }
ZF_KV_KIND(comm, MPI_Comm, PMPI_Comm_c2f, Comm_create_keyval, pmpi_comm_create_keyval_)
ZF_WEAK(pmpi_comm_create_keyval_, mpi_comm_create_keyval_)
ZF_KV_KIND(type, MPI_Datatype, PMPI_Type_c2f, Type_create_keyval, pmpi_type_create_keyval_)
ZF_WEAK(pmpi_type_create_keyval_, mpi_type_create_keyval_)
ZF_KV_KIND(win, MPI_Win, PMPI_Win_c2f, Win_create_keyval, pmpi_win_create_keyval_)
ZF_WEAK(pmpi_win_create_keyval_, mpi_win_create_keyval_)

/* MPI_KEYVAL_CREATE, the deprecated MPI-1 form: its callbacks take
 * default INTEGERs for the extra state and the attribute values (the
 * value MPI_ATTR_PUT stored as the C attribute pointer). */
typedef void zf_copy1_fn(MPI_Fint *old, MPI_Fint *keyval, MPI_Fint *extra, MPI_Fint *in,
                         MPI_Fint *out, MPI_Fint *flag, MPI_Fint *ierror);
typedef void zf_delete1_fn(MPI_Fint *h, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *extra,
                           MPI_Fint *ierror);

struct zf_kv1 {
    zf_copy1_fn *copy;
    zf_delete1_fn *del;
    MPI_Fint extra;
};

static int zf_kv1_copy(MPI_Comm old, int keyval, void *extra, void *in, void *out, int *flag)
{
    struct zf_kv1 *kv = extra;
    MPI_Fint fold = PMPI_Comm_c2f(old), fkey = keyval, fflag = ZF_FALSE, ierr = MPI_SUCCESS;
    MPI_Fint fin = (MPI_Fint)(intptr_t)in, fout = 0;
    kv->copy(&fold, &fkey, &kv->extra, &fin, &fout, &fflag, &ierr);
    *flag = fflag != 0;
    if (*flag)
        *(void **)out = (void *)(intptr_t)fout;
    return ierr;
}

static int zf_kv1_delete(MPI_Comm h, int keyval, void *val, void *extra)
{
    struct zf_kv1 *kv = extra;
    MPI_Fint fh = PMPI_Comm_c2f(h), fkey = keyval, ierr = MPI_SUCCESS;
    MPI_Fint fval = (MPI_Fint)(intptr_t)val;
    kv->del(&fh, &fkey, &fval, &kv->extra, &ierr);
    return ierr;
}

void pmpi_keyval_create_(void (*copy_fn)(void), void (*delete_fn)(void), MPI_Fint *keyval,
                         MPI_Fint *extra_state, MPI_Fint *ierror)
{
    int k = MPI_KEYVAL_INVALID, rc;
    struct zf_kv1 *kv = malloc(sizeof *kv);
    if (!kv) {
        rc = zf_oom("MPI_Keyval_create");
    } else {
        kv->copy = (zf_copy1_fn *)copy_fn;
        kv->del = (zf_delete1_fn *)delete_fn;
        kv->extra = *extra_state;
        rc = PMPI_Keyval_create(zf_kv1_copy, zf_kv1_delete, &k, kv);
        if (rc != MPI_SUCCESS)
            free(kv);
    }
    *keyval = k;
    if (ierror)
        *ierror = rc;
}
ZF_WEAK(pmpi_keyval_create_, mpi_keyval_create_)

/* The predefined callbacks as Fortran procedures (MPI 4.1 section 7.7.2):
 * NULL_COPY copies nothing, DUP copies the value, NULL_DELETE does
 * nothing.  Their symbols are what mpif.h's and the modules' EXTERNAL
 * names resolve to. */
void zf_null_copy_fn(MPI_Fint *old, MPI_Fint *keyval, MPI_Aint *extra, MPI_Aint *in,
                     MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierror);
void zf_dup_fn(MPI_Fint *old, MPI_Fint *keyval, MPI_Aint *extra, MPI_Aint *in,
               MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierror);
void zf_null_delete_fn(MPI_Fint *h, MPI_Fint *keyval, MPI_Aint *val, MPI_Aint *extra,
                       MPI_Fint *ierror);

void zf_null_copy_fn(MPI_Fint *old, MPI_Fint *keyval, MPI_Aint *extra, MPI_Aint *in,
                     MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierror)
{
    (void)old, (void)keyval, (void)extra, (void)in, (void)out;
    *flag = ZF_FALSE;
    *ierror = MPI_SUCCESS;
}

void zf_dup_fn(MPI_Fint *old, MPI_Fint *keyval, MPI_Aint *extra, MPI_Aint *in,
               MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierror)
{
    (void)old, (void)keyval, (void)extra;
    *out = *in;
    *flag = ZF_TRUE;
    *ierror = MPI_SUCCESS;
}

void zf_null_delete_fn(MPI_Fint *h, MPI_Fint *keyval, MPI_Aint *val, MPI_Aint *extra,
                       MPI_Fint *ierror)
{
    (void)h, (void)keyval, (void)val, (void)extra;
    *ierror = MPI_SUCCESS;
}

/* Their MPI-1 forms, for MPI_KEYVAL_CREATE: default INTEGER values. */
void zf_null_copy1_fn(MPI_Fint *old, MPI_Fint *keyval, MPI_Fint *extra, MPI_Fint *in,
                      MPI_Fint *out, MPI_Fint *flag, MPI_Fint *ierror);
void zf_dup1_fn(MPI_Fint *old, MPI_Fint *keyval, MPI_Fint *extra, MPI_Fint *in, MPI_Fint *out,
                MPI_Fint *flag, MPI_Fint *ierror);
void zf_null_delete1_fn(MPI_Fint *h, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *extra,
                        MPI_Fint *ierror);

void zf_null_copy1_fn(MPI_Fint *old, MPI_Fint *keyval, MPI_Fint *extra, MPI_Fint *in,
                      MPI_Fint *out, MPI_Fint *flag, MPI_Fint *ierror)
{
    (void)old, (void)keyval, (void)extra, (void)in, (void)out;
    *flag = ZF_FALSE;
    *ierror = MPI_SUCCESS;
}

void zf_dup1_fn(MPI_Fint *old, MPI_Fint *keyval, MPI_Fint *extra, MPI_Fint *in, MPI_Fint *out,
                MPI_Fint *flag, MPI_Fint *ierror)
{
    (void)old, (void)keyval, (void)extra;
    *out = *in;
    *flag = ZF_TRUE;
    *ierror = MPI_SUCCESS;
}

void zf_null_delete1_fn(MPI_Fint *h, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *extra,
                        MPI_Fint *ierror)
{
    (void)h, (void)keyval, (void)val, (void)extra;
    *ierror = MPI_SUCCESS;
}

ZF_WEAK(zf_null_copy1_fn, mpi_null_copy_fn_)
ZF_WEAK(zf_dup1_fn, mpi_dup_fn_)
ZF_WEAK(zf_null_delete1_fn, mpi_null_delete_fn_)
ZF_WEAK(zf_null_copy_fn, mpi_comm_null_copy_fn_)
ZF_WEAK(zf_dup_fn, mpi_comm_dup_fn_)
ZF_WEAK(zf_null_delete_fn, mpi_comm_null_delete_fn_)
ZF_WEAK(zf_null_copy_fn, mpi_type_null_copy_fn_)
ZF_WEAK(zf_dup_fn, mpi_type_dup_fn_)
ZF_WEAK(zf_null_delete_fn, mpi_type_null_delete_fn_)
ZF_WEAK(zf_null_copy_fn, mpi_win_null_copy_fn_)
ZF_WEAK(zf_dup_fn, mpi_win_dup_fn_)
ZF_WEAK(zf_null_delete_fn, mpi_win_null_delete_fn_)

/* ---- Generalized requests: Fortran query, free and cancel procedures ---- */

typedef void zf_query_fn(MPI_Aint *extra, MPI_Fint *status, MPI_Fint *ierror);
typedef void zf_free_fn(MPI_Aint *extra, MPI_Fint *ierror);
typedef void zf_cancel_fn(MPI_Aint *extra, MPI_Fint *complete, MPI_Fint *ierror);

/* The record a generalized request carries as its C extra_state; freed by
 * the free callback, which MPI calls exactly once. */
struct zf_greq {
    zf_query_fn *query;
    zf_free_fn *free;
    zf_cancel_fn *cancel;
    MPI_Aint extra;
};

static int zf_greq_query(void *extra, MPI_Status *status)
{
    struct zf_greq *g = extra;
    MPI_Fint fs[MPI_STATUS_SIZE] = {0}, ierr = MPI_SUCCESS;
    PMPI_Status_c2f(status, fs);
    g->query(&g->extra, fs, &ierr);
    PMPI_Status_f2c(fs, status);
    return ierr;
}

static int zf_greq_free(void *extra)
{
    struct zf_greq *g = extra;
    MPI_Fint ierr = MPI_SUCCESS;
    g->free(&g->extra, &ierr);
    free(g);
    return ierr;
}

static int zf_greq_cancel(void *extra, int complete)
{
    struct zf_greq *g = extra;
    MPI_Fint c = complete ? ZF_TRUE : ZF_FALSE, ierr = MPI_SUCCESS;
    g->cancel(&g->extra, &c, &ierr);
    return ierr;
}

void pmpi_grequest_start_(void (*query_fn)(void), void (*free_fn)(void),
                          void (*cancel_fn)(void), MPI_Aint *extra_state, MPI_Fint *request,
                          MPI_Fint *ierror)
{
    MPI_Request r = MPI_REQUEST_NULL;
    int rc;
    struct zf_greq *g = malloc(sizeof *g);
    if (!g) {
        rc = zf_oom("MPI_Grequest_start");
    } else {
        g->query = (zf_query_fn *)query_fn;
        g->free = (zf_free_fn *)free_fn;
        g->cancel = (zf_cancel_fn *)cancel_fn;
        g->extra = *extra_state;
        rc = PMPI_Grequest_start(zf_greq_query, zf_greq_free, zf_greq_cancel, g, &r);
        if (rc != MPI_SUCCESS)
            free(g);
    }
    *request = PMPI_Request_c2f(r);
    if (ierror)
        *ierror = rc;
}
ZF_WEAK(pmpi_grequest_start_, mpi_grequest_start_)
