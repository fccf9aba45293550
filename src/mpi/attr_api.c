/*
 * attr_api.c: the attribute calls of MPI 4.1 section 7.7 on communicators,
 * datatypes and windows, and the deprecated MPI-1 names of the
 * communicator calls.  Each call checks its object and hands over to the
 * per-rank tables of attr.c (attr_impl.h).
 */
#include "attr_impl.h"

/* ---- Communicators ---------------------------------------------------------- */

static int comm_target(const char *fn, MPI_Comm comm, struct zm_mpi_attr_target *t)
{
    ENTER_COMM(fn, comm, c);
    *t = (struct zm_mpi_attr_target){ ZM_ATTR_COMM, c, c };
    return MPI_SUCCESS;
}

static int comm_create_keyval(const char *fn, MPI_Comm_copy_attr_function *copy,
                              MPI_Comm_delete_attr_function *del, int *keyval, void *extra)
{
    struct zm_mpi_keyval proto = { .kind = ZM_ATTR_COMM, .extra = extra };
    proto.copy.comm = copy;
    proto.del.comm = del;
    return zm_mpi_attr_keyval_create(fn, &proto, (const void *)copy, (const void *)del, keyval);
}

static int comm_set(const char *fn, MPI_Comm comm, int keyval, void *value)
{
    struct zm_mpi_attr_target t;
    int rc = comm_target(fn, comm, &t);
    return rc != MPI_SUCCESS ? rc : zm_mpi_attr_set(&t, fn, keyval, value);
}

static int comm_get(const char *fn, MPI_Comm comm, int keyval, void *value, int *flag)
{
    struct zm_mpi_attr_target t;
    int rc = comm_target(fn, comm, &t);
    return rc != MPI_SUCCESS ? rc : zm_mpi_attr_get(&t, fn, keyval, value, flag);
}

static int comm_delete(const char *fn, MPI_Comm comm, int keyval)
{
    struct zm_mpi_attr_target t;
    int rc = comm_target(fn, comm, &t);
    return rc != MPI_SUCCESS ? rc : zm_mpi_attr_delete(&t, fn, keyval);
}

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                            MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
                            void *extra_state)
{
    return comm_create_keyval("MPI_Comm_create_keyval", comm_copy_attr_fn, comm_delete_attr_fn,
                              comm_keyval, extra_state);
}
ZM_WEAK(Comm_create_keyval)

int PMPI_Comm_free_keyval(int *comm_keyval)
{
    return zm_mpi_attr_keyval_free("MPI_Comm_free_keyval", ZM_ATTR_COMM, comm_keyval);
}
ZM_WEAK(Comm_free_keyval)

int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    return comm_set("MPI_Comm_set_attr", comm, comm_keyval, attribute_val);
}
ZM_WEAK(Comm_set_attr)

int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    return comm_get("MPI_Comm_get_attr", comm, comm_keyval, attribute_val, flag);
}
ZM_WEAK(Comm_get_attr)

int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    return comm_delete("MPI_Comm_delete_attr", comm, comm_keyval);
}
ZM_WEAK(Comm_delete_attr)

/* The deprecated MPI-1 names: the same calls on communicators. */
int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                       void *extra_state)
{
    return comm_create_keyval("MPI_Keyval_create", copy_fn, delete_fn, keyval, extra_state);
}
ZM_WEAK(Keyval_create)

int PMPI_Keyval_free(int *keyval)
{
    return zm_mpi_attr_keyval_free("MPI_Keyval_free", ZM_ATTR_COMM, keyval);
}
ZM_WEAK(Keyval_free)

int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    return comm_set("MPI_Attr_put", comm, keyval, attribute_val);
}
ZM_WEAK(Attr_put)

int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return comm_get("MPI_Attr_get", comm, keyval, attribute_val, flag);
}
ZM_WEAK(Attr_get)

int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
    return comm_delete("MPI_Attr_delete", comm, keyval);
}
ZM_WEAK(Attr_delete)

/* ---- Datatypes -------------------------------------------------------------- */

/* Datatypes have no error handler: errors go to that of calls without an
 * object. */
static int type_target(const char *fn, MPI_Datatype dt, struct zm_mpi_attr_target *t)
{
    zm_mpi_enter(fn);
    int rc = zm_mpi_check_type(fn, "datatype", dt);
    *t = (struct zm_mpi_attr_target){ ZM_ATTR_TYPE, dt, NULL };
    return rc;
}

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                            MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
                            void *extra_state)
{
    struct zm_mpi_keyval proto = { .kind = ZM_ATTR_TYPE, .extra = extra_state };
    proto.copy.type = type_copy_attr_fn;
    proto.del.type = type_delete_attr_fn;
    return zm_mpi_attr_keyval_create("MPI_Type_create_keyval", &proto,
                                     (const void *)type_copy_attr_fn,
                                     (const void *)type_delete_attr_fn, type_keyval);
}
ZM_WEAK(Type_create_keyval)

int PMPI_Type_free_keyval(int *type_keyval)
{
    return zm_mpi_attr_keyval_free("MPI_Type_free_keyval", ZM_ATTR_TYPE, type_keyval);
}
ZM_WEAK(Type_free_keyval)

int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val)
{
    struct zm_mpi_attr_target t;
    const char *fn = "MPI_Type_set_attr";
    int rc = type_target(fn, datatype, &t);
    return rc != MPI_SUCCESS ? rc : zm_mpi_attr_set(&t, fn, type_keyval, attribute_val);
}
ZM_WEAK(Type_set_attr)

int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag)
{
    const char *fn = "MPI_Type_get_attr";
    struct zm_mpi_attr_target t;
    int rc = type_target(fn, datatype, &t);
    return rc != MPI_SUCCESS ? rc : zm_mpi_attr_get(&t, fn, type_keyval, attribute_val, flag);
}
ZM_WEAK(Type_get_attr)

int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval)
{
    struct zm_mpi_attr_target t;
    int rc = type_target("MPI_Type_delete_attr", datatype, &t);
    return rc != MPI_SUCCESS ? rc : zm_mpi_attr_delete(&t, "MPI_Type_delete_attr", type_keyval);
}
ZM_WEAK(Type_delete_attr)

/* ---- Windows ---------------------------------------------------------------- */

static int win_target(const char *fn, MPI_Win win, struct zm_mpi_attr_target *t)
{
    zm_mpi_enter(fn);
    if (!win || win->magic != ZM_WIN_MAGIC)
        return zm_mpi_error(NULL, MPI_ERR_WIN, fn, "(win=%s): invalid window",
                            win ? "freed or not a window" : "MPI_WIN_NULL");
    *t = (struct zm_mpi_attr_target){ ZM_ATTR_WIN, win, NULL };
    return MPI_SUCCESS;
}

int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                           MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                           void *extra_state)
{
    struct zm_mpi_keyval proto = { .kind = ZM_ATTR_WIN, .extra = extra_state };
    proto.copy.win = win_copy_attr_fn;
    proto.del.win = win_delete_attr_fn;
    return zm_mpi_attr_keyval_create("MPI_Win_create_keyval", &proto,
                                     (const void *)win_copy_attr_fn,
                                     (const void *)win_delete_attr_fn, win_keyval);
}
ZM_WEAK(Win_create_keyval)

int PMPI_Win_free_keyval(int *win_keyval)
{
    return zm_mpi_attr_keyval_free("MPI_Win_free_keyval", ZM_ATTR_WIN, win_keyval);
}
ZM_WEAK(Win_free_keyval)

int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val)
{
    struct zm_mpi_attr_target t;
    const char *fn = "MPI_Win_set_attr";
    int rc = win_target(fn, win, &t);
    return rc != MPI_SUCCESS ? rc : zm_mpi_attr_set(&t, fn, win_keyval, attribute_val);
}
ZM_WEAK(Win_set_attr)

int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag)
{
    const char *fn = "MPI_Win_get_attr";
    struct zm_mpi_attr_target t;
    int rc = win_target(fn, win, &t);
    return rc != MPI_SUCCESS ? rc : zm_mpi_attr_get(&t, fn, win_keyval, attribute_val, flag);
}
ZM_WEAK(Win_get_attr)

int PMPI_Win_delete_attr(MPI_Win win, int win_keyval)
{
    struct zm_mpi_attr_target t;
    int rc = win_target("MPI_Win_delete_attr", win, &t);
    return rc != MPI_SUCCESS ? rc : zm_mpi_attr_delete(&t, "MPI_Win_delete_attr", win_keyval);
}
ZM_WEAK(Win_delete_attr)
