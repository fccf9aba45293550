/*
 * session.h: private header of the sessions model (MPI 4.1 section 11.3),
 * shared by session.c, init.c, errors.c and handle.c.
 *
 * A session belongs to the rank that made it.  While a rank has a live
 * session it may call MPI even if it never called MPI_Init, or after
 * MPI_Finalize (zm_mpi_enter's slow path asks zm_mpi_session_live).
 */
#ifndef ZM_MPI_SESSION_H
#define ZM_MPI_SESSION_H

#include "mpi_impl.h"

#define ZM_SESSION_MAGIC 0x7a6d7365u

/* A session object (MPI_Session handles point to one). */
struct zmpi_session {
    uint32_t magic;              /* ZM_SESSION_MAGIC while valid */
    int owner;                   /* world rank that made it; only it may use the handle */
    int thread_level;            /* level granted from the "thread_level" hint */
    struct zmpi_errhandler *eh;  /* error handler, one reference held */
};

/* Allocate the per-rank session counts of a job of `nranks` ranks.
 * Returns ZM_OK or ZM_ERR_NOMEM.  Main thread, from zm_mpi_setup. */
zm_status_t zm_mpi_session_setup(int nranks);

/* Nonzero if rank `me` has at least one session it has not finalized.
 * ULT context, the rank `me`. */
int zm_mpi_session_live(const zm_mpi_rank_t *me);

/* Nonzero if h looks like a live session (for MPI_Session_f2c).  Any
 * thread. */
int zm_mpi_session_valid(const void *h);

/* Check a session handle passed to call `fn` by the calling rank: it must
 * be a live session the rank made.  Raises MPI_ERR_SESSION through the
 * initial error handler (MPI_COMM_SELF's) if not.  Returns MPI_SUCCESS or
 * the raised code.  ULT context, the calling rank. */
int zm_mpi_session_check(const char *fn, MPI_Session s);

/* Raise error class `cls` of call `fn` through error handler `eh` of the
 * session whose handle is `handle` (MPI_SESSION_NULL while MPI_Session_init
 * has not made it yet).  Returns the code for the call to return; fatal
 * handlers end the job.  ULT context, the calling rank (errors.c). */
int zm_mpi_session_error(struct zmpi_errhandler *eh, MPI_Session handle, int cls,
                         const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* What is wrong with attaching error handler `eh` to a session, or to a
 * communicator; NULL if it fits (errors.c). */
const char *zm_mpi_eh_unfit_session(MPI_Errhandler eh);
const char *zm_mpi_eh_unfit_comm(MPI_Errhandler eh);

/* The calling rank's API state.  A thread that is not a rank yet (a
 * program not started by zmpirun, before MPI_Init or MPI_Session_init)
 * becomes the only rank of a one-rank job; NULL if that fails.  ULT
 * context or the program's main thread (init.c). */
zm_mpi_rank_t *zm_mpi_rank_attach(void);

#endif /* ZM_MPI_SESSION_H */
