/*
 * coll_build.h: the collective builders shared by the int and large-count
 * forms of the collective calls (coll_build.c).
 *
 * Each zm_mpi_cb_<collective> checks the calling rank's arguments on the
 * intracommunicator c (raising the error as `fn`) and fills the argument
 * block `a`, which then points into the caller's buffers and arrays.
 * Arrays of counts and displacements are of width `wide` (large.h).
 * Returns an MPI error code.  ULT context, the rank owning c.
 */
#ifndef ZM_MPI_COLL_BUILD_H
#define ZM_MPI_COLL_BUILD_H

#include "large.h"

/* Bcast's argument checks, shared by MPI_Bcast's direct path too. */
int zm_mpi_cb_check_bcast(struct zmpi_comm *c, const char *fn, const void *buf, MPI_Count count,
                          MPI_Datatype dt, int root);

int zm_mpi_cb_bcast(struct zmpi_comm *c, const char *fn, zm_coll_args_t *a, void *buf,
                    MPI_Count count, MPI_Datatype dt, int root);
/* v: the v form (rcounts and displs), else rcount. */
int zm_mpi_cb_gather(struct zmpi_comm *c, const char *fn, zm_coll_args_t *a, int v,
                     const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                     MPI_Count rcount, const void *rcounts, const void *displs, MPI_Datatype rdt,
                     int root, int wide);
int zm_mpi_cb_scatter(struct zmpi_comm *c, const char *fn, zm_coll_args_t *a, int v,
                      const void *sbuf, MPI_Count scount, const void *scounts,
                      const void *displs, MPI_Datatype sdt, void *rbuf, MPI_Count rcount,
                      MPI_Datatype rdt, int root, int wide);
int zm_mpi_cb_allgather(struct zmpi_comm *c, const char *fn, zm_coll_args_t *a, int v,
                        const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                        MPI_Count rcount, const void *rcounts, const void *displs,
                        MPI_Datatype rdt, int wide);
int zm_mpi_cb_alltoall(struct zmpi_comm *c, const char *fn, zm_coll_args_t *a,
                       const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                       MPI_Count rcount, MPI_Datatype rdt);
int zm_mpi_cb_alltoallv(struct zmpi_comm *c, const char *fn, zm_coll_args_t *a,
                        const void *sbuf, const void *scounts, const void *sdispls,
                        MPI_Datatype sdt, void *rbuf, const void *rcounts, const void *rdispls,
                        MPI_Datatype rdt, int wide);
/* Alltoallw's displacements are in bytes, of width `wide` as the counts. */
int zm_mpi_cb_alltoallw(struct zmpi_comm *c, const char *fn, zm_coll_args_t *a,
                        const void *sbuf, const void *scounts, const void *sdispls,
                        const MPI_Datatype *sdts, void *rbuf, const void *rcounts,
                        const void *rdispls, const MPI_Datatype *rdts, int wide);
/* Reductions: Reduce (root), Allreduce, Scan, Exscan, Reduce_scatter
 * (rcounts) and Reduce_scatter_block (count per rank). */
int zm_mpi_cb_reduce(struct zmpi_comm *c, const char *fn, zm_coll_args_t *a, int kind,
                     const void *sbuf, void *rbuf, MPI_Count count, const void *rcounts,
                     MPI_Datatype dt, MPI_Op op, int root, int wide);

#endif /* ZM_MPI_COLL_BUILD_H */
