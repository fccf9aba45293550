/*
 * rma_api.h: checks shared by the one-sided API's two files, rma_api.c
 * (communication) and rma_sync_api.c (synchronization).  Internal to the
 * API layer (src/mpi/).
 */
#ifndef ZM_MPI_RMA_API_H
#define ZM_MPI_RMA_API_H

#include "mpi_impl.h"

static inline int win_check(const char *fn, MPI_Win win)
{
    if (win && win->magic == ZM_WIN_MAGIC)
        return MPI_SUCCESS;
    return zm_mpi_error(NULL, MPI_ERR_WIN, fn, "(win=%s): invalid window",
                        win ? "freed or not a window" : "MPI_WIN_NULL");
}

/* The window's name for messages. */
static inline const char *wname(const struct zmpi_win *w)
{
    return w->name[0] ? w->name : "(unnamed)";
}

/* Enter an API call on a window: the rank may call MPI and the handle is
 * a live window. */
static inline int win_enter(const char *fn, MPI_Win win)
{
    zm_mpi_enter(fn);
    return win_check(fn, win);
}

/* Whether the calling rank may call MPI and win is a live window: what
 * win_enter checks, without reporting (for the fast paths, whose general
 * path reports). */
static inline int win_live(MPI_Win win)
{
    return zm_mpi_live(zm_mpi_me()) && win && win->magic == ZM_WIN_MAGIC;
}

/* Nonzero if the rank has an access epoch to target t. */
static inline int has_access(const struct zmpi_win *w, int t)
{
    return w->fence_open || w->locked_all || w->lock_type[t];
}

/* Nonzero if the rank has a passive-target epoch to t (request forms). */
static inline int has_passive(const struct zmpi_win *w, int t)
{
    return w->locked_all || (w->lock_type[t] & (ZM_WIN_LOCK_SHARED | ZM_WIN_LOCK_EXCL));
}

#endif
