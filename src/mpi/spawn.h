/*
 * spawn.h: dynamic processes (spawn.c, port.c) as the rest of the API
 * layer sees them (docs/spawn.md).
 */
#ifndef ZM_MPI_SPAWN_H
#define ZM_MPI_SPAWN_H

#include <stdint.h>

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

/* ---- Ports and names across processes (port.c, port_net.c) ---- */

/* The three operations on published names. */
enum { ZM_NAME_PUBLISH = 1, ZM_NAME_UNPUBLISH, ZM_NAME_LOOKUP };

/* Apply a name operation to this process's table (process 0's is the
 * job's): publish service_name as port_name, unpublish it (port_name must
 * match), or look it up into port_name (MPI_MAX_PORT_NAME bytes).  Returns
 * MPI_SUCCESS, MPI_ERR_SERVICE, MPI_ERR_NAME or MPI_ERR_NO_MEM; *why is 1
 * when the name exists (an unpublish with another port).  Any thread,
 * also under the network lock (it takes only the table's spinlock). */
int zm_mpi_name_op(int op, const char *service_name, char *port_name, int *why);

/* The same at process 0, from another process: a request and its reply
 * through the network.  ULT context. */
int zm_mpi_port_net_name(int op, const char *service_name, char *port_name, int *why);

/* The process whose table holds port port_name (its name says; this
 * process for a name that is not a zmpi port's).  Any thread. */
int zm_mpi_port_owner(const char *port_name);

/* Pair a root arriving at port port_name of this process's table with the
 * other side's, or queue it: on pairing, *other and *other_chan receive
 * the waiting root's world rank and context (it is then the caller's
 * turn to send); queued, *other is -1 and the root waits for a message on
 * `chan`.  `mine` is the caller's own queue record (it lives until the
 * root is paired), or NULL for a root of another process (a record is
 * allocated).  Returns MPI_SUCCESS, MPI_ERR_PORT (no such open port) or
 * MPI_ERR_NO_MEM.  Any thread, also under the network lock. */
int zm_mpi_port_meet(const char *port_name, int accept, int root, uint32_t chan, void *mine,
                     int *other, uint32_t *other_chan);

/* zm_mpi_port_meet at process `owner`, through a request and its reply.
 * ULT context. */
int zm_mpi_port_net_meet(int owner, const char *port_name, int accept, int root,
                         uint32_t chan, int *other, uint32_t *other_chan);

/* Whether world rank `rank` of this process is in MPI_Comm_join with
 * `nonce` (join.c).  Any thread, also under the network lock. */
int zm_mpi_join_known(uint64_t nonce, int rank);

/* zm_mpi_join_known at process `proc`, through a request and its reply:
 * 1, 0, or -1 if out of memory.  ULT context (or an adopted rank). */
int zm_mpi_port_net_join(int proc, uint64_t nonce, int rank);

/* Wait until every process of the job has ended its ranks, serving the
 * others' port, name and join requests meanwhile (children spawned in one
 * process may still use process 0's names after all of another's ranks
 * ended).  Nothing in a job of one process.  Main thread, after the job's
 * ranks ended, before zm_net_finalize. */
void zm_mpi_port_net_quiesce(void);

#endif /* ZM_MPI_SPAWN_H */
