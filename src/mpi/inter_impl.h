/*
 * inter_impl.h: private header shared by comm.c, intercomm.c, inter_coll.c
 * and the intercommunicator dispatches of coll_api.c.
 *
 * An intercommunicator's struct zmpi_comm keeps p.world/p.size for the
 * REMOTE group and p.rank for the caller's rank in its LOCAL group, so the
 * point-to-point layer addresses remote ranks and stamps local ranks
 * unchanged.  `group` is the local group, `rgroup` the remote one (it owns
 * the storage p.world points to), and `local` a hidden intracommunicator
 * over the local group for the local steps of constructions.
 */
#ifndef ZM_MPI_INTER_IMPL_H
#define ZM_MPI_INTER_IMPL_H

#include "mpi_impl.h"

/* Tags of the internal messages that communicator constructions exchange
 * on a communicator's collective context.  They are negative, so they
 * never match the non-negative tags the collective schedules use. */
enum {
    ZM_ITAG_DUP = -10,
    ZM_ITAG_SPLIT = -11,
    ZM_ITAG_CREATE = -12,
    ZM_ITAG_MERGE = -13,
    ZM_ITAG_IDUP = -14
};

/* ---- Communicator objects (comm.c) ---- */

/* Draw n consecutive context ids from the process-wide counter
 * (comm_ctx.c; each communicator takes two: point-to-point and
 * collective).  Any thread. */
uint32_t zm_mpi_ctx_draw(uint32_t n);

/* Make the calling rank's object for an intracommunicator over group g
 * with context ctx and error handler eh, for the rank of world rank
 * my_world.  Takes over the caller's reference to g (dropped on failure).
 * Returns NULL if out of memory.  ULT context, the calling rank. */
struct zmpi_comm *zm_mpi_comm_new(struct zmpi_errhandler *eh, struct zmpi_group *g,
                                  uint32_t ctx, int my_world);

/* Release everything a communicator object holds (shared collective
 * block, topology, groups, error handler, info, hidden local
 * communicator) without running attribute callbacks, and recycle it.
 * ULT context, the owning rank. */
void zm_mpi_comm_destroy(struct zmpi_comm *c);

/* The members of colour `color` among n ranks whose (colour, key) pairs
 * are all[stride*r], all[stride*r + 1], sorted by key then rank, as world
 * ranks through `world` (NULL: identity).  *first receives the lowest
 * rank of that colour (n if none).  Returns a group with one reference, or
 * NULL if out of memory.  Any thread. */
struct zmpi_group *zm_mpi_split_members(const int *all, int stride, int n, const int *world,
                                        int color, int *first);

/* ---- Intercommunicators (intercomm.c) ---- */

/* Make the calling rank's object for an intercommunicator with local group
 * lg and remote group rg (taking over the caller's references to both),
 * context ctx and a hidden local intracommunicator on context lctx.
 * Returns NULL if out of memory.  ULT context, the calling rank. */
struct zmpi_comm *zm_mpi_intercomm_new(struct zmpi_errhandler *eh, struct zmpi_group *lg,
                                       struct zmpi_group *rg, uint32_t ctx, uint32_t lctx,
                                       int my_world);

/* Nonzero if the calling rank's group is the "first" of the intercomm's
 * two groups: the one whose leader (local rank 0) has the lower world
 * rank.  Both groups agree on it without communication. */
static inline int zm_mpi_inter_first(const struct zmpi_comm *c)
{
    return c->group->world[0] < c->rgroup->world[0];
}

/* Process-wide rendezvous of the calls that build a communicator without
 * a parent to communicate on (Intercomm_create_from_groups,
 * Comm_create_group): the participants are the na + nb world ranks of wa
 * and wb; the k-th call of each with the same (tag, wa, wb) gets the same
 * base of nctx fresh context ids, drawn by the first caller.  `me` must be
 * one of the participants.  Returns MPI_SUCCESS or MPI_ERR_NO_MEM.  ULT
 * context, the calling rank; no waiting. */
int zm_mpi_rdv_take(const char *tag, const int *wa, int na, const int *wb, int nb,
                    uint32_t nctx, int me, uint32_t *base);

/* Communicator calls on an intercommunicator `c` (handle h), with
 * standard semantics (MPI 4.1 section 7.4.2).  Each raises its errors on c
 * under the name fn and returns the code.  ULT context, the calling
 * rank. */
int zm_mpi_inter_dup(struct zmpi_comm *c, MPI_Comm h, const char *fn, struct zmpi_comm **out);
int zm_mpi_inter_split(struct zmpi_comm *c, MPI_Comm h, const char *fn, int color, int key,
                       MPI_Comm *newcomm);
int zm_mpi_inter_create(struct zmpi_comm *c, MPI_Comm h, const char *fn, MPI_Group group,
                        MPI_Comm *newcomm);

/* ---- Collectives on intercommunicators (inter_coll.c) ----
 * Each checks its arguments as MPI 4.1 section 6.2.2 defines them for
 * intercommunicators (roots MPI_ROOT / MPI_PROC_NULL / a rank of the
 * remote group; MPI_IN_PLACE refused) and builds one schedule of direct
 * messages to and from the remote group.  request == ZM_INTER_BLOCKING:
 * the blocking form (runs and waits); otherwise *request receives the
 * operation (a NULL request is an error of the non-blocking call).
 * Errors are raised on c under the name fn.  ULT context, the calling
 * rank. */
extern const char zm_mpi_inter_blocking_mark;
#define ZM_INTER_BLOCKING ((MPI_Request *)(uintptr_t)&zm_mpi_inter_blocking_mark)

int zm_mpi_inter_barrier(struct zmpi_comm *c, const char *fn, MPI_Comm h, MPI_Request *request);
int zm_mpi_inter_bcast(struct zmpi_comm *c, const char *fn, MPI_Comm h, void *buf, int count,
                       MPI_Datatype dt, int root, MPI_Request *request);
/* Gather (v = 0) and Gatherv (v = 1). */
int zm_mpi_inter_gather(struct zmpi_comm *c, const char *fn, MPI_Comm h, int v,
                        const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                        const int *rcounts, const int *displs, MPI_Datatype rdt, int root,
                        MPI_Request *request);
/* Scatter (v = 0) and Scatterv (v = 1). */
int zm_mpi_inter_scatter(struct zmpi_comm *c, const char *fn, MPI_Comm h, int v,
                         const void *sbuf, int scount, const int *scounts, const int *displs,
                         MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt, int root,
                         MPI_Request *request);
/* Allgather (v = 0) and Allgatherv (v = 1). */
int zm_mpi_inter_allgather(struct zmpi_comm *c, const char *fn, MPI_Comm h, int v,
                           const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                           int rcount, const int *rcounts, const int *displs, MPI_Datatype rdt,
                           MPI_Request *request);
int zm_mpi_inter_alltoall(struct zmpi_comm *c, const char *fn, MPI_Comm h, const void *sbuf,
                          int scount, MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt,
                          MPI_Request *request);
int zm_mpi_inter_alltoallv(struct zmpi_comm *c, const char *fn, MPI_Comm h, const void *sbuf,
                           const int *scounts, const int *sdispls, MPI_Datatype sdt, void *rbuf,
                           const int *rcounts, const int *rdispls, MPI_Datatype rdt,
                           MPI_Request *request);
int zm_mpi_inter_alltoallw(struct zmpi_comm *c, const char *fn, MPI_Comm h, const void *sbuf,
                           const int *scounts, const int *sdispls, const MPI_Datatype *sdts,
                           void *rbuf, const int *rcounts, const int *rdispls,
                           const MPI_Datatype *rdts, MPI_Request *request);
/* Reductions: kind is ZM_COLL_REDUCE, _ALLREDUCE, _REDUCE_SCATTER (rcounts)
 * or _REDUCE_SCATTER_BLOCK (count per rank); ZM_COLL_SCAN and _EXSCAN are
 * not defined on intercommunicators and raise MPI_ERR_COMM. */
int zm_mpi_inter_reduce(struct zmpi_comm *c, const char *fn, MPI_Comm h, int kind,
                        const void *sbuf, void *rbuf, int count, const int *rcounts,
                        MPI_Datatype dt, MPI_Op op, int root, MPI_Request *request);

#endif /* ZM_MPI_INTER_IMPL_H */
