/*
 * migrate_net.h: ZMPI_Migrate across processes (migrate_net.c), and what
 * it needs of checkpoint.c and migrate.c.  Internal to the mpi layer.
 */
#ifndef ZM_MPI_MIGRATE_NET_H
#define ZM_MPI_MIGRATE_NET_H

#include "mpi/mpi_impl.h"

/* Longest value of the zmpi_lb_proc hint (and ZMPI_LB_PROC). */
#define ZM_MPI_LB_PROC_MAX 128

/* Whether `v` is a valid zmpi_lb_proc value: auto, none, rotate, or a
 * list of moves "RANK:PROC[,RANK:PROC...]".  Any thread. */
int zm_mpi_lb_proc_valid(const char *v);

/* The cross-process part of ZMPI_Migrate, for the calling rank of the
 * job's MPI_COMM_WORLD in a job of several processes: every rank of the
 * job meets here; in a job whose ranks live in fixed regions
 * (--checkpoint) the ranks that hold nothing in library memory may move
 * to another process, by `mode` (world rank 0's zmpi_lb_proc decides)
 * and the loads (`load`: stated, or < 0 for the measured busy time).
 * Returns 0 when the caller stays, 1 when it was moved and now runs in
 * another process: the caller must then take every pointer into library
 * memory afresh (zm_mpi_me), since the values it held came from the old
 * process.  The rank's ULT. */
int zm_mpi_migrate_cross(double load, const char *mode);

/* Rebuild the in-process balancing of the job's world after its ranks
 * moved between processes (migrate.c): the local ranks and the step.
 * The migration's coordinating rank, while the others wait in it. */
void zm_mpi_migrate_relocal(void);

/* checkpoint.c: zm_mpi_ckpt_rw gives the place and length of rank
 * `rank`'s program copy's writable segment (a rank of this process);
 * zm_mpi_ckpt_adopt maps the copy of a rank arriving here at its place
 * in its region, the writable segment left for the caller to fill (0, or
 * -1 with a message in err).  The migration's coordinating rank. */
void zm_mpi_ckpt_rw(int rank, void **start, size_t *len);
int zm_mpi_ckpt_adopt(int rank, char *err, size_t errlen);

/* checkpoint.c: why rank me's error handlers on MPI_COMM_WORLD and
 * MPI_COMM_SELF, attribute state or names of predefined datatypes would
 * not travel with its region (made on a thread it started, in libc's
 * memory), or NULL.  Checkpoints and moves refuse such
 * a rank.  The rank's ULT. */
const char *zm_mpi_ckpt_state_why(zm_mpi_rank_t *me);

/* checkpoint.c: give rank record `me`, new in this process (a restart, an
 * arrival), the attribute state and type names the rank kept in its heap,
 * and file its attributes on MPI_COMM_WORLD and MPI_COMM_SELF, kept under
 * its old record `old_rec`'s objects, under its own.  Before the rank
 * runs; the thread that makes the record. */
void zm_mpi_ckpt_state_adopt(zm_mpi_rank_t *me, uintptr_t attr, uintptr_t type_names,
                             uintptr_t old_rec);

#endif /* ZM_MPI_MIGRATE_NET_H */
