/*
 * attr.c: attribute caching on communicators, datatypes and windows
 * (MPI 4.1 section 7.7).  Placeholder being written this session.
 */
#include "mpi_impl.h"

#include <stddef.h>

int zm_mpi_attr_dup(int kind, void *old_obj, void *new_obj)
{
    (void)kind;
    (void)old_obj;
    (void)new_obj;
    return MPI_SUCCESS;
}

int zm_mpi_attr_free_all(int kind, void *obj)
{
    (void)kind;
    (void)obj;
    return MPI_SUCCESS;
}

int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void *value, int *flag)
{
    /* Values live as long as the library; the standard hands out pointers. */
    static int tag_ub = ZM_TAG_UB, host = MPI_PROC_NULL, io = MPI_ANY_SOURCE, global = 1,
               appnum = 0;
    static int universe;
    zm_mpi_rank_t *me = zm_mpi_enter("MPI_Comm_get_attr");
    struct zmpi_comm *c;
    int rc = zm_mpi_check_comm(me, comm, "MPI_Comm_get_attr", &c);
    if (rc != MPI_SUCCESS)
        return rc;
    int *v = NULL;
    switch (keyval) {
    case MPI_TAG_UB: v = &tag_ub; break;
    case MPI_HOST: v = &host; break;
    case MPI_IO: v = &io; break;
    case MPI_WTIME_IS_GLOBAL: v = &global; break;
    case MPI_APPNUM: v = &appnum; break;
    case MPI_UNIVERSE_SIZE:
        universe = zm_ult_count();
        v = &universe;
        break;
    default:
        return zm_mpi_error(c, MPI_ERR_KEYVAL, "MPI_Comm_get_attr", "keyval=%d: unknown key",
                            keyval);
    }
    *(int **)value = v;
    *flag = 1;
    return MPI_SUCCESS;
}
ZM_WEAK(Comm_get_attr)

int PMPI_Win_get_attr(MPI_Win win, int keyval, void *value, int *flag)
{
    const char *fn = "MPI_Win_get_attr";
    zm_mpi_enter(fn);
    int rc = (win && win->magic == ZM_WIN_MAGIC) ? MPI_SUCCESS : zm_mpi_error(NULL, MPI_ERR_WIN, fn, "(win): invalid window");
    if (rc != MPI_SUCCESS)
        return rc;
    if (!value || !flag)
        return zm_mpi_error(win->comm, MPI_ERR_ARG, fn, "value or flag is NULL");
    void *v;
    switch (keyval) {
    case MPI_WIN_BASE: v = win->attr_base; break; /* the base itself, not a pointer to it */
    case MPI_WIN_SIZE: v = &win->attr_size; break;
    case MPI_WIN_DISP_UNIT: v = &win->attr_disp_unit; break;
    case MPI_WIN_CREATE_FLAVOR: v = &win->attr_flavor; break;
    case MPI_WIN_MODEL: v = &win->attr_model; break;
    default:
        return zm_mpi_error(win->comm, MPI_ERR_KEYVAL, fn, "(keyval=%d): unknown key", keyval);
    }
    *(void **)value = v;
    *flag = 1;
    return MPI_SUCCESS;
}
ZM_WEAK(Win_get_attr)
