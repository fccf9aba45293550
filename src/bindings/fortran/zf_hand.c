/* zf_hand.c: the hand-written Fortran glue of the calls whose Fortran form
 * a C prototype cannot describe (HANDWRITTEN in scripts/gen_fortran.py):
 * no argc/argv, attribute values as integers, Fortran string lengths and
 * string arrays (the spawn calls' argument lists).  The
 * prototypes come from the generated zf_glue_hand.h, so a definition that
 * drifts from the generated interfaces does not compile.  Callbacks are in
 * zf_callback.c.
 *
 * Contract of every pmpi_x_ here (and its weak alias mpi_x_): it is MPI_X
 * as a Fortran program calls it, run on the calling rank's thread; the
 * caller owns every argument, and nothing allocated here outlives the
 * call. */
#include "zf_glue_hand.h"

#include <stdlib.h>
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

/* ---- MPI_COMM_SPAWN and MPI_COMM_SPAWN_MULTIPLE ----------------------
 * The Fortran form of an argument list is an array of blank-padded
 * strings ended by an all-blank one (MPI 4.1 section 11.8.2); the glue
 * builds the C argv from it, without the trailing blanks of each string.
 * The lists, commands, counts and infos are significant at the root only,
 * so the other ranks' arrays are not read (they may hold anything, with
 * no blank entry to stop at). */

/* MPI_ERRCODES_IGNORE of any binding as the C constant. */
static int *zf_errcodes(MPI_Fint *e)
{
    if (e == zmpi_fsent_.errcodes_ignore || e == zmpi_mpi_errcodes_ignore ||
        e == zmpi_f08s_errcodes_ignore)
        return MPI_ERRCODES_IGNORE;
    return e;
}

/* Whether the caller is the root of comm, where the C call reads the
 * lists.  A call it cannot tell for (MPI not initialized, an invalid
 * communicator) counts as at the root: the C call then reports what is
 * wrong, naming itself. */
static int zf_spawn_at_root(MPI_Fint comm, MPI_Fint root)
{
    int init = 0, fini = 0, rank = -1;
    MPI_Comm c = PMPI_Comm_f2c(comm);
    PMPI_Initialized(&init);
    PMPI_Finalized(&fini);
    if (!init || fini || c == MPI_COMM_NULL)
        return 1;
    return PMPI_Comm_rank(c, &rank) != MPI_SUCCESS || rank == (int)root;
}

/* Frees a C argv of zf_argv_in. */
static void zf_argv_free(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

/* A Fortran string (len bytes) as a new C string without its trailing
 * blanks; the caller owns it.  NULL when out of memory. */
static char *zf_str_dup(const char *f, size_t len)
{
    while (len > 0 && f[len - 1] == ' ')
        len--;
    char *c = malloc(len + 1);
    if (c) {
        memcpy(c, f, len);
        c[len] = 0;
    }
    return c;
}

/* Whether the Fortran string e (len bytes) is all blanks. */
static int zf_blank(const char *e, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (e[i] != ' ')
            return 0;
    return 1;
}

/* The C argv of a Fortran argument list: the elements (len bytes each)
 * of f that are `stride` elements apart (1 for MPI_COMM_SPAWN, the row
 * count for a row of MPI_COMM_SPAWN_MULTIPLE's array_of_argv) up to the
 * first all-blank one.  NULL-terminated; the caller owns it (zf_argv_free).
 * NULL when out of memory. */
static char **zf_argv_in(const char *f, size_t len, size_t stride)
{
    size_t n = 0, cap = 8;
    char **v = malloc(cap * sizeof *v);
    for (const char *e = f; v; e += stride * len) {
        v[n] = NULL; /* there is always room for the terminator */
        if (zf_blank(e, len))
            return v;
        if (n + 2 > cap) {
            char **w = realloc(v, (cap *= 2) * sizeof *v);
            if (!w)
                break;
            v = w;
        }
        if (!(v[n] = zf_str_dup(e, len)))
            break;
        n++;
    }
    zf_argv_free(v);
    return NULL;
}

/* MPI_COMM_SPAWN: the command, and at the root the argument list, as C
 * strings; the rest as it is. */
void pmpi_comm_spawn_(const char *command, const char *argv, MPI_Fint *maxprocs, MPI_Fint *info,
                      MPI_Fint *root, MPI_Fint *comm, MPI_Fint *intercomm,
                      MPI_Fint *array_of_errcodes, MPI_Fint *ierror, size_t command_len,
                      size_t argv_len)
{
    char zs[ZF_STR], **c_argv = MPI_ARGV_NULL;
    char *c_cmd = zf_str_in(command, command_len, zs, sizeof zs);
    MPI_Comm c_inter = MPI_COMM_NULL;
    int rc, oom = !c_cmd;
    int null = argv == zmpi_fsentc_.argv_null || argv == zmpi_mpi_argv_null ||
               argv == zmpi_f08s_argv_null;
    if (!oom && !null && zf_spawn_at_root(*comm, *root))
        oom = !(c_argv = zf_argv_in(argv, argv_len, 1));
    if (oom) {
        rc = zf_oom("MPI_Comm_spawn");
    } else {
        rc = PMPI_Comm_spawn(c_cmd, c_argv, (int)*maxprocs, PMPI_Info_f2c(*info), (int)*root,
                             PMPI_Comm_f2c(*comm), &c_inter, zf_errcodes(array_of_errcodes));
        *intercomm = PMPI_Comm_c2f(c_inter);
    }
    if (c_cmd)
        zf_tmp_free(c_cmd, zs);
    zf_argv_free(c_argv);
    zf_set(ierror, rc);
}
ZF_WEAK(pmpi_comm_spawn_, mpi_comm_spawn_)

/* The C arguments of MPI_COMM_SPAWN_MULTIPLE at the root: n commands,
 * argument lists (NULL: MPI_ARGVS_NULL) and infos, in one allocation
 * with the strings owned by it (zf_multi_free). */
struct zf_multi {
    int n;
    char **cmds;
    char ***argvs;
    MPI_Info *infos;
};

static void zf_multi_free(struct zf_multi *m)
{
    for (int i = 0; i < m->n; i++) {
        if (m->cmds)
            free(m->cmds[i]);
        if (m->argvs)
            zf_argv_free(m->argvs[i]);
    }
    free(m->cmds);
    free(m->argvs);
    free(m->infos);
}

/* Fills m from the Fortran arrays; 0, or -1 when out of memory. */
static int zf_multi_in(struct zf_multi *m, int n, const char *cmds, size_t cmds_len,
                       const char *argvs, size_t argvs_len, const MPI_Fint *infos)
{
    m->n = n;
    m->cmds = calloc((size_t)n, sizeof *m->cmds);
    m->infos = calloc((size_t)n, sizeof *m->infos);
    m->argvs = argvs ? calloc((size_t)n, sizeof *m->argvs) : NULL;
    if (!m->cmds || !m->infos || (argvs && !m->argvs))
        return -1;
    for (int i = 0; i < n; i++) {
        m->cmds[i] = zf_str_dup(cmds + (size_t)i * cmds_len, cmds_len);
        m->infos[i] = PMPI_Info_f2c(infos[i]);
        if (!m->cmds[i])
            return -1;
        if (argvs && !(m->argvs[i] = zf_argv_in(argvs + (size_t)i * argvs_len, argvs_len,
                                                 (size_t)n)))
            return -1;
    }
    return 0;
}

/* MPI_COMM_SPAWN_MULTIPLE: at the root, the commands, argument lists and
 * infos converted (zf_multi); elsewhere they are not read. */
void pmpi_comm_spawn_multiple_(MPI_Fint *count, const char *array_of_commands,
                               const char *array_of_argv, MPI_Fint *array_of_maxprocs,
                               MPI_Fint *array_of_info, MPI_Fint *root, MPI_Fint *comm,
                               MPI_Fint *intercomm, MPI_Fint *array_of_errcodes,
                               MPI_Fint *ierror, size_t array_of_commands_len,
                               size_t array_of_argv_len)
{
    struct zf_multi m = { 0, NULL, NULL, NULL };
    MPI_Comm c_inter = MPI_COMM_NULL;
    int rc = MPI_SUCCESS;
    int null = array_of_argv == zmpi_fsentc_.argvs_null || array_of_argv == zmpi_mpi_argvs_null ||
               array_of_argv == zmpi_f08s_argvs_null;
    /* A count that is not positive goes to C as it is, which reports it. */
    if (*count > 0 && zf_spawn_at_root(*comm, *root) &&
        zf_multi_in(&m, (int)*count, array_of_commands, array_of_commands_len,
                    null ? NULL : array_of_argv, array_of_argv_len, array_of_info) != 0)
        rc = zf_oom("MPI_Comm_spawn_multiple");
    if (rc == MPI_SUCCESS) {
        rc = PMPI_Comm_spawn_multiple((int)*count, m.cmds, m.argvs, array_of_maxprocs, m.infos,
                                      (int)*root, PMPI_Comm_f2c(*comm), &c_inter,
                                      zf_errcodes(array_of_errcodes));
        *intercomm = PMPI_Comm_c2f(c_inter);
    }
    zf_multi_free(&m);
    zf_set(ierror, rc);
}
ZF_WEAK(pmpi_comm_spawn_multiple_, mpi_comm_spawn_multiple_)

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
