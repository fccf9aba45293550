/* zf_hand.c: the hand-written Fortran glue of the calls whose Fortran form
 * a C prototype cannot describe (HANDWRITTEN in scripts/gen_fortran.py):
 * no argc/argv, attribute values as integers, Fortran string lengths.  The
 * prototypes come from the generated zf_glue_hand.h, so a definition that
 * drifts from the generated interfaces does not compile.  Callbacks are in
 * zf_callback.c.
 *
 * Contract of every pmpi_x_ here (and its weak alias mpi_x_): it is MPI_X
 * as a Fortran program calls it, run on the calling rank's thread; the
 * caller owns every argument, and nothing allocated here outlives the
 * call. */
#include "zf_glue_hand.h"

#include <string.h>

static void zf_set(MPI_Fint *ierror, int rc)
{
    if (ierror)
        *ierror = rc;
}

/* MPI_INIT: Fortran has no argc/argv to pass. */
void pmpi_init_(MPI_Fint *ierror)
{
    zf_set(ierror, PMPI_Init(NULL, NULL));
}
ZF_WEAK(pmpi_init_, mpi_init_)

void pmpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror)
{
    int p = 0;
    int rc = PMPI_Init_thread(NULL, NULL, (int)*required, &p);
    *provided = p;
    zf_set(ierror, rc);
}
ZF_WEAK(pmpi_init_thread_, mpi_init_thread_)

void pmpi_info_create_env_(MPI_Fint *info, MPI_Fint *ierror)
{
    MPI_Info c = MPI_INFO_NULL;
    int rc = PMPI_Info_create_env(0, NULL, &c);
    *info = PMPI_Info_c2f(c);
    zf_set(ierror, rc);
}
ZF_WEAK(pmpi_info_create_env_, mpi_info_create_env_)

/* MPI_PCONTROL: the C form is variadic; Fortran passes the level only. */
void pmpi_pcontrol_(MPI_Fint *level, MPI_Fint *ierror)
{
    zf_set(ierror, PMPI_Pcontrol((int)*level));
}
ZF_WEAK(pmpi_pcontrol_, mpi_pcontrol_)

/* Whether keyval is a predefined attribute whose C value is a pointer to
 * an int (the Fortran value is the int). */
static int zf_int_attr(int keyval, int win)
{
    if (win)
        return keyval == MPI_WIN_DISP_UNIT || keyval == MPI_WIN_CREATE_FLAVOR ||
               keyval == MPI_WIN_MODEL;
    return keyval == MPI_TAG_UB || keyval == MPI_HOST || keyval == MPI_IO ||
           keyval == MPI_WTIME_IS_GLOBAL || keyval == MPI_UNIVERSE_SIZE ||
           keyval == MPI_APPNUM || keyval == MPI_LASTUSEDCODE;
}

/* The Fortran value of a C attribute: user attributes hold the integer
 * itself (set through MPI_COMM_SET_ATTR); predefined ones point to it. */
static MPI_Aint zf_attr_value(void *v, int keyval, int win)
{
    if (zf_int_attr(keyval, win))
        return *(int *)v;
    if (win && keyval == MPI_WIN_SIZE)
        return *(MPI_Aint *)v;
    return (MPI_Aint)(intptr_t)v;
}

void pmpi_comm_get_attr_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *flag,
                         MPI_Fint *ierror)
{
    void *v = NULL;
    int f = 0;
    int rc = PMPI_Comm_get_attr(PMPI_Comm_f2c(*comm), (int)*keyval, &v, &f);
    if (rc == MPI_SUCCESS && f)
        *value = zf_attr_value(v, (int)*keyval, 0);
    *flag = f ? ZF_TRUE : ZF_FALSE;
    zf_set(ierror, rc);
}
ZF_WEAK(pmpi_comm_get_attr_, mpi_comm_get_attr_)

void pmpi_type_get_attr_(MPI_Fint *datatype, MPI_Fint *type_keyval, MPI_Aint *attribute_val,
                         MPI_Fint *flag, MPI_Fint *ierror)
{
    void *v = NULL;
    int f = 0;
    int rc = PMPI_Type_get_attr(PMPI_Type_f2c(*datatype), (int)*type_keyval, &v, &f);
    if (rc == MPI_SUCCESS && f)
        *attribute_val = (MPI_Aint)(intptr_t)v;
    *flag = f ? ZF_TRUE : ZF_FALSE;
    zf_set(ierror, rc);
}
ZF_WEAK(pmpi_type_get_attr_, mpi_type_get_attr_)

void pmpi_win_get_attr_(MPI_Fint *win, MPI_Fint *keyval, MPI_Aint *attribute_val,
                        MPI_Fint *flag, MPI_Fint *ierror)
{
    void *v = NULL;
    int f = 0;
    int rc = PMPI_Win_get_attr(PMPI_Win_f2c(*win), (int)*keyval, &v, &f);
    if (rc == MPI_SUCCESS && f)
        *attribute_val = zf_attr_value(v, (int)*keyval, 1);
    *flag = f ? ZF_TRUE : ZF_FALSE;
    zf_set(ierror, rc);
}
ZF_WEAK(pmpi_win_get_attr_, mpi_win_get_attr_)

/* MPI_ATTR_GET (deprecated): the value is a default INTEGER. */
void pmpi_attr_get_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *attribute_val, MPI_Fint *flag,
                    MPI_Fint *ierror)
{
    void *v = NULL;
    int f = 0;
    int rc = PMPI_Attr_get(PMPI_Comm_f2c(*comm), (int)*keyval, &v, &f);
    if (rc == MPI_SUCCESS && f)
        *attribute_val = (MPI_Fint)zf_attr_value(v, (int)*keyval, 0);
    *flag = f ? ZF_TRUE : ZF_FALSE;
    zf_set(ierror, rc);
}
ZF_WEAK(pmpi_attr_get_, mpi_attr_get_)

/* MPI_BUFFER_DETACH in mpif.h and module mpi: the address is not returned
 * (the buffer argument is the user's own variable, MPI 4.1 section 3.6). */
void pmpi_buffer_detach_(void *buffer_addr, MPI_Fint *size, MPI_Fint *ierror)
{
    void *p = NULL;
    int n = 0;
    (void)buffer_addr;
    int rc = PMPI_Buffer_detach(&p, &n);
    *size = n;
    zf_set(ierror, rc);
}
ZF_WEAK(pmpi_buffer_detach_, mpi_buffer_detach_)

void pmpi_comm_detach_buffer_(MPI_Fint *comm, void *buffer_addr, MPI_Fint *size,
                              MPI_Fint *ierror)
{
    void *p = NULL;
    int n = 0;
    (void)buffer_addr;
    int rc = PMPI_Comm_detach_buffer(PMPI_Comm_f2c(*comm), &p, &n);
    *size = n;
    zf_set(ierror, rc);
}
ZF_WEAK(pmpi_comm_detach_buffer_, mpi_comm_detach_buffer_)

/* MPI_SESSION_DETACH_BUFFER is newer than the rest of mpi.h's buffer calls. */
#ifdef ZF_HAVE_Session_detach_buffer
void pmpi_session_detach_buffer_(MPI_Fint *session, void *buffer_addr, MPI_Fint *size,
                                 MPI_Fint *ierror)
{
    void *p = NULL;
    int n = 0;
    (void)buffer_addr;
    int rc = PMPI_Session_detach_buffer(PMPI_Session_f2c(*session), &p, &n);
    *size = n;
    zf_set(ierror, rc);
}
ZF_WEAK(pmpi_session_detach_buffer_, mpi_session_detach_buffer_)
#endif

/* The mpi_f08 forms return the address as TYPE(C_PTR) (BIND(C) names). */
void PMPI_Buffer_detach_f08(void **buffer_addr, MPI_Fint *size, MPI_Fint *ierror)
{
    int n = 0;
    int rc = PMPI_Buffer_detach(buffer_addr, &n);
    *size = n;
    zf_set(ierror, rc);
}
ZF_WEAK(PMPI_Buffer_detach_f08, MPI_Buffer_detach_f08)

void PMPI_Comm_detach_buffer_f08(MPI_Fint *comm, void **buffer_addr, MPI_Fint *size,
                                 MPI_Fint *ierror)
{
    int n = 0;
    int rc = PMPI_Comm_detach_buffer(PMPI_Comm_f2c(*comm), buffer_addr, &n);
    *size = n;
    zf_set(ierror, rc);
}
ZF_WEAK(PMPI_Comm_detach_buffer_f08, MPI_Comm_detach_buffer_f08)

#ifdef ZF_HAVE_Session_detach_buffer
void PMPI_Session_detach_buffer_f08(MPI_Fint *session, void **buffer_addr, MPI_Fint *size,
                                    MPI_Fint *ierror)
{
    int n = 0;
    int rc = PMPI_Session_detach_buffer(PMPI_Session_f2c(*session), buffer_addr, &n);
    *size = n;
    zf_set(ierror, rc);
}
ZF_WEAK(PMPI_Session_detach_buffer_f08, MPI_Session_detach_buffer_f08)
#endif

/* MPI_INFO_GET_STRING: on input buflen is how many characters to store in
 * value (at most its length; 0: query only, value untouched); value gets
 * that many of the info value's characters, blank-padded, and buflen the
 * whole value's length without C's terminating NUL. */
void pmpi_info_get_string_(MPI_Fint *info, const char *key, MPI_Fint *buflen, char *value,
                           MPI_Fint *flag, MPI_Fint *ierror, size_t key_len, size_t value_len)
{
    char zs_key[ZF_STR], zs_val[ZF_STR];
    int f = 0, rc;
    char *c_key = zf_info_str_in(key, key_len, zs_key, sizeof zs_key);
    /* A negative buflen goes to C as it is, which reports it. */
    int want = *buflen < (MPI_Fint)value_len ? (int)*buflen : (int)value_len;
    int c_len = want <= 0 ? want : want + 1;
    char *c_val = zf_tmp(zs_val, sizeof zs_val, c_len > 0 ? c_len : 1, 1);
    if (!c_key || !c_val) {
        rc = zf_oom("MPI_Info_get_string");
        goto out;
    }
    c_val[0] = 0;
    rc = PMPI_Info_get_string(PMPI_Info_f2c(*info), c_key, &c_len, c_val, &f);
    if (rc == MPI_SUCCESS) {
        *flag = f ? ZF_TRUE : ZF_FALSE;
        if (f) {
            *buflen = c_len > 0 ? c_len - 1 : 0;
            if (want > 0)
                zf_str_out(value, value_len, c_val);
        }
    }
out:
    if (c_key)
        zf_tmp_free(c_key, zs_key);
    if (c_val)
        zf_tmp_free(c_val, zs_val);
    zf_set(ierror, rc);
}
ZF_WEAK(pmpi_info_get_string_, mpi_info_get_string_)

void pmpi_session_get_nth_pset_(MPI_Fint *session, MPI_Fint *info, MPI_Fint *n,
                                MPI_Fint *pset_len, char *pset_name, MPI_Fint *ierror,
                                size_t pset_name_len)
{
    char zs[ZF_STR];
    int c_len = *pset_len == 0 ? 0 : (int)pset_name_len + 1;
    char *c = zf_tmp(zs, sizeof zs, c_len, 1);
    if (!c) {
        zf_set(ierror, zf_oom("MPI_Session_get_nth_pset"));
        return;
    }
    c[0] = 0;
    int rc = PMPI_Session_get_nth_pset(PMPI_Session_f2c(*session), PMPI_Info_f2c(*info),
                                       (int)*n, &c_len, c);
    if (rc == MPI_SUCCESS) {
        if (*pset_len != 0)
            zf_str_out(pset_name, pset_name_len, c);
        *pset_len = c_len > 0 ? c_len - 1 : 0;
    }
    zf_tmp_free(c, zs);
    zf_set(ierror, rc);
}
ZF_WEAK(pmpi_session_get_nth_pset_, mpi_session_get_nth_pset_)

/* MPI_F_SYNC_REG: an external call the compiler cannot see into, which is
 * all it is for (MPI 4.1 section 19.1.20): registers holding buf are
 * written back before and reloaded after it. */
void mpi_f_sync_reg_(void *buf)
{
    __asm__ __volatile__("" : : "r"(buf) : "memory");
}

void MPI_F_sync_reg_f08ts(CFI_cdesc_t *buf)
{
    __asm__ __volatile__("" : : "r"(buf) : "memory");
}

/* libgfortran's FLUSH statement; a NULL unit flushes every unit. */
extern void _gfortran_flush_i4(int *unit);

/* MPI_ABORT: the ranks' Fortran output (buffered by libgfortran when it
 * goes to a file) is written before the job ends, so a program's last
 * words before aborting are not lost. */
void pmpi_abort_(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierror)
{
    _gfortran_flush_i4(NULL);
    zf_set(ierror, PMPI_Abort(PMPI_Comm_f2c(*comm), (int)*errorcode));
}
ZF_WEAK(pmpi_abort_, mpi_abort_)

/* When a rank's copy of a privatized program is unloaded (its main has
 * returned), or a non-privatized program exits: libgfortran's own flush
 * at exit does not run when zmpi ends the process after the ranks, so
 * buffered output would be lost. */
__attribute__((destructor)) static void zf_flush_at_end(void)
{
    _gfortran_flush_i4(NULL);
}
