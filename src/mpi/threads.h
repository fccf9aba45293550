/*
 * threads.h: private header of the thread support (threads.c,
 * threads_omp.c), shared with init.c, errors.c, session.c and attr.c.
 */
#ifndef ZM_MPI_THREADS_H
#define ZM_MPI_THREADS_H

#include <pthread.h>

#include "mpi_impl.h"

/* A foreign thread acting for a rank (threads.c). */
typedef struct zm_mpi_thread {
    zm_p2p_thread_t p;        /* its waiter and ULT-layer record (first: aligned) */
    int rank;                 /* world rank it acts for */
    int active;               /* its record is bound in the ULT layer */
    int counted;              /* counted by zm_ult_foreign_count */
    int main_like;            /* runs an OpenMP region for the rank's parked ULT:
                               * it stands for the rank's main thread */
    int sched_capture;        /* sched.c's capture flag, this thread's own */
    struct thread_exit *exit; /* its end, for a ULT joining it (threads.c) */
    void *omp;                /* threads_omp.c's state of the thread */
} zm_mpi_thread_t;

/* The calling thread's record if it is bound to a rank, else NULL. */
zm_mpi_thread_t *zm_mpi_thread_self(void);

/* The rank the calling thread, which is no rank's ULT, acts for (bound,
 * not necessarily active), or NULL if it acts for none.  In a program
 * started alone every thread acts for its one rank. */
zm_mpi_rank_t *zm_mpi_thread_rank(void);

/* Nonzero if the calling foreign thread may call MPI for rank `me` now:
 * the rank was granted MPI_THREAD_SERIALIZED or MULTIPLE, or the thread
 * stands for its main thread. */
int zm_mpi_thread_may(const zm_mpi_rank_t *me);

/* Make zm_ult_self() (and so zm_mpi_me()) answer for the calling bound
 * thread from now on. */
void zm_mpi_thread_activate(void);

/* zm_mpi_me(), or for a foreign thread that may call MPI its rank
 * (activating it); NULL otherwise.  For calls that do not go through
 * zm_mpi_enter. */
zm_mpi_rank_t *zm_mpi_me_thread(void);

/* Whether the caller is its rank's main thread (MPI_Is_thread_main). */
int zm_mpi_thread_is_main(void);

/* Record that rank `me` was granted thread level `level` (MPI_Init_thread
 * or a session).  Its threads may call MPI from SERIALIZED on. */
void zm_mpi_thread_grant(zm_mpi_rank_t *me, int level);

/* "MPI_THREAD_MULTIPLE" etc. */
const char *zm_mpi_thread_level_name(int level);

/* pthread_create for zmpi's own threads: binds the new thread to the
 * caller's rank like the exported one, and marks it main_like if asked
 * (an OpenMP host, threads_omp.c). */
int zm_mpi_thread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
                         void *arg, int main_like);

/* One step of a wait that a rank's ULT does without blocking its worker:
 * lets the worker's other ranks run, and naps briefly when none is ready
 * (or after a few turns of theirs).  *w starts zeroed. */
typedef struct zm_mpi_wait {
    int turns;                /* yields since the last nap */
    long nap;                 /* next nap in ns (0: none yet) */
} zm_mpi_wait_t;

void zm_mpi_ult_wait_step(zm_mpi_wait_t *w);

/* Nonzero while the calling thread is inside an OpenMP fork
 * (threads_omp.c): the team threads it creates are not counted by the
 * deadlock detector, since they run only while the region's master runs,
 * which is counted. */
int zm_mpi_omp_in_fork(void);

/* Take / drop a rank lock (zm_mpi_rlock_t, mpi_impl.h): recursive, since
 * callbacks run under it may call MPI on the same thread.  A ULT waiting
 * for it yields to the other ULTs of its worker. */
void zm_mpi_rlock_take(zm_mpi_rlock_t *l);
void zm_mpi_rlock_drop(zm_mpi_rlock_t *l);

/* Whether rank `me` needs its locks: some of its threads may call MPI at
 * the same time.  One predictable branch for single-threaded programs. */
static inline int zm_mpi_threads_concurrent(const zm_mpi_rank_t *me)
{
    return ZM_UNLIKELY(__atomic_load_n(&me->thread_max, __ATOMIC_RELAXED) ==
                       MPI_THREAD_MULTIPLE);
}

#endif /* ZM_MPI_THREADS_H */
