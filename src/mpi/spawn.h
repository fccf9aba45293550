/*
 * spawn.h: dynamic processes (spawn.c, port.c) as the rest of the API
 * layer sees them (docs/spawn.md).
 */
#ifndef ZM_MPI_SPAWN_H
#define ZM_MPI_SPAWN_H

/* The body the launcher runs per rank (a privatized program's loads the
 * rank's own copy of the program first, then calls its main), the
 * program's environment and its path as started (argv[0]).  Returns -1 in
 * a job that zmpi's launcher did not start (a singleton such as a Python
 * interpreter).  Defined in init.c.  Any thread once the job runs; the
 * strings stay the launcher's. */
int zm_mpi_launch_body(int (**main_fn)(int, char **, char **), char ***envp, const char **prog);

/* The value of the calling rank's MPI_APPNUM attribute: the index of its
 * command in the Comm_spawn_multiple that started it, 0 for the ranks
 * started by zmpirun and by Comm_spawn.  The storage lives as long as the
 * job.  ULT context, the calling rank. */
int *zm_mpi_spawn_appnum(void);

struct zmpi_comm;

/* The checks the collective calls of dynamic processes (Comm_spawn,
 * Comm_spawn_multiple, Comm_accept, Comm_connect) share: comm an
 * intracommunicator, root one of its ranks.  MPI_SUCCESS or the error
 * raised on comm.  ULT context, a rank of comm (spawn.c). */
int zm_mpi_dyn_root_check(struct zmpi_comm *c, const char *fn, int root);

#endif /* ZM_MPI_SPAWN_H */
