/*
 * attr_impl.h: what the attribute calls of the API (attr_api.c) share with
 * the keyval and attribute tables behind them (attr.c).
 *
 * The tables are per rank (every virtual rank is an MPI process): each
 * call below works on the calling rank's tables, takes the rank's
 * attribute lock itself, and raises its errors through the target's
 * handler, naming `fn`.
 */
#ifndef ZM_MPI_ATTR_IMPL_H
#define ZM_MPI_ATTR_IMPL_H

#include "mpi_impl.h"

/* A key: callbacks and extra state, as MPI_*_create_keyval made it. */
struct zm_mpi_keyval {
    int kind;                   /* ZM_ATTR_* of the objects it applies to */
    int id;                     /* the handle given to the program */
    int refs;                   /* the program's handle until freed, plus one per attribute */
    int freed;                  /* MPI_*_free_keyval was called */
    union {
        MPI_Comm_copy_attr_function *comm;
        MPI_Type_copy_attr_function *type;
        MPI_Win_copy_attr_function *win;
    } copy;                     /* called when the object is duplicated */
    union {
        MPI_Comm_delete_attr_function *comm;
        MPI_Type_delete_attr_function *type;
        MPI_Win_delete_attr_function *win;
    } del;                      /* called when the attribute goes */
    void *extra;                /* extra_state passed to both */
};

/* Where an attribute call applies.  Errors go to the window's handler for
 * windows, else to errc's (NULL: that of calls without an object). */
struct zm_mpi_attr_target {
    int kind;                   /* ZM_ATTR_* */
    const void *obj;            /* the object (not its handle), or NULL */
    struct zmpi_comm *errc;     /* the communicator, or NULL */
};

/* MPI_*_set_attr on t's object: a user key only (predefined ones are
 * refused); an old value of the key is deleted first, its callback run.
 * The rank's thread only; the value stays the program's. */
int zm_mpi_attr_set(const struct zm_mpi_attr_target *t, const char *fn, int keyval,
                    void *value);

/* MPI_*_get_attr on t's object, predefined keys of communicators and
 * windows included; `value` receives the stored pointer.  The rank's
 * thread only; nothing is allocated for the caller. */
int zm_mpi_attr_get(const struct zm_mpi_attr_target *t, const char *fn, int keyval, void *value,
                    int *flag);

/* MPI_*_delete_attr on t's object (its delete callback runs); deleting a
 * key the object has no attribute for does nothing.  The rank's thread. */
int zm_mpi_attr_delete(const struct zm_mpi_attr_target *t, const char *fn, int keyval);

/* Make a key from `proto` (kind, callbacks, extra state); `copy` and
 * `del` are its callbacks as generic pointers, checked here.  The rank's
 * thread; the key lives in the rank's tables until freed. */
int zm_mpi_attr_keyval_create(const char *fn, struct zm_mpi_keyval *proto, const void *copy,
                              const void *del, int *keyval);

/* MPI_*_free_keyval: marks the key freed and sets *keyval to
 * MPI_KEYVAL_INVALID; attributes still using it keep it alive.  The
 * rank's thread. */
int zm_mpi_attr_keyval_free(const char *fn, int kind, int *keyval);

#endif
