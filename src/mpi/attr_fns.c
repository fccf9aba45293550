/*
 * attr_fns.c: the predefined attribute callbacks that mpi.h names
 * (MPI_COMM_NULL_COPY_FN, MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN and
 * their datatype and window twins).  Programs pass them to the
 * *_create_keyval calls of attr.c, which calls them like any other.
 */
#include "mpi_impl.h"

/* For each object kind, the null copy callback leaves the attribute out of
 * the duplicate, the dup callback gives the duplicate the same value, and
 * the null delete callback does nothing.  Any thread: they touch only their
 * arguments. */
#define ZM_PREDEFINED_CALLBACKS(obj, type)                                                      \
    int zmpi_##obj##_null_copy_fn(type old, int keyval, void *extra_state, void *in,            \
                                  void *out, int *flag)                                         \
    {                                                                                           \
        (void)old, (void)keyval, (void)extra_state, (void)in, (void)out;                        \
        *flag = 0;                                                                              \
        return MPI_SUCCESS;                                                                     \
    }                                                                                           \
    int zmpi_##obj##_dup_fn(type old, int keyval, void *extra_state, void *in, void *out,       \
                            int *flag)                                                          \
    {                                                                                           \
        (void)old, (void)keyval, (void)extra_state;                                             \
        *(void **)out = in;                                                                     \
        *flag = 1;                                                                              \
        return MPI_SUCCESS;                                                                     \
    }                                                                                           \
    int zmpi_##obj##_null_delete_fn(type h, int keyval, void *value, void *extra_state)         \
    {                                                                                           \
        (void)h, (void)keyval, (void)value, (void)extra_state;                                  \
        return MPI_SUCCESS;                                                                     \
    }

ZM_PREDEFINED_CALLBACKS(comm, MPI_Comm)
ZM_PREDEFINED_CALLBACKS(type, MPI_Datatype)
ZM_PREDEFINED_CALLBACKS(win, MPI_Win)
