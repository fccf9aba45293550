/*
 * file_procs.c: files opened by a communicator whose ranks live in several
 * processes (the network layer, docs/net.md).
 *
 * Inside a process the ranks of a file share one object (src/io): one
 * descriptor, the collective-access table and the atomic-mode lock.  A
 * communicator that spans processes gets one such object per process, so
 * everything that stays inside a process (the first phase of collective
 * accesses, non-blocking collective rounds) works unchanged on the local
 * ranks, and these things become job-wide:
 * - opening: the process of rank 0 creates the file (MPI_MODE_CREATE,
 *   MPI_MODE_EXCL) before the others open it, and a failure anywhere
 *   fails the open everywhere;
 * - the shared file pointer: one value, in rank 0's object, which the
 *   other processes reach through a one-sided window (fetch-and-add);
 * - atomic mode: a whole-file record lock excludes the other processes
 *   (src/io/io_xfer.c), next to the process's own lock;
 * - blocking collective accesses aggregate across processes
 *   (file_xagg.c) over a communicator of each process's first rank.
 */
#include "file_impl.h"

#include <errno.h>

/* ZM_ARCH_FILE_* flags of an access mode. */
static int open_flags(int amode)
{
    int f = amode & MPI_MODE_RDONLY ? ZM_ARCH_FILE_RDONLY
          : amode & MPI_MODE_WRONLY ? ZM_ARCH_FILE_WRONLY : ZM_ARCH_FILE_RDWR;
    if (amode & MPI_MODE_CREATE)
        f |= ZM_ARCH_FILE_CREATE;
    if (amode & MPI_MODE_EXCL)
        f |= ZM_ARCH_FILE_EXCL | ZM_ARCH_FILE_CREATE;
    return f;
}

/* Open the file in the calling process: with `flags` by rank 0, without
 * creating by the first local rank of every other process.  Returns the
 * local rank 0's object (others: NULL) and 0 or -errno in *err. */
static zm_io_file_t *open_local(int rank, int lrank, int lsize, const char *path, int amode,
                                int *err)
{
    *err = 0;
    if (lrank != 0)
        return NULL;
    int flags = open_flags(amode);
    if (rank != 0)
        flags &= ~(ZM_ARCH_FILE_CREATE | ZM_ARCH_FILE_EXCL);
    zm_io_file_t *io = zm_io_file_open(path, flags, lsize, err);
    /* The job's shared pointer is rank 0's; in append mode it starts at
     * the end of the file. */
    if (io && rank == 0 && (amode & MPI_MODE_APPEND)) {
        int64_t sz = zm_arch_file_size(io->fd);
        atomic_store(&io->shared_fp, sz > 0 ? sz : 0);
    }
    return io;
}

/* Local rank 0 hands its object and error to the process's other ranks. */
static zm_io_file_t *share_local(MPI_Comm lcomm, zm_io_file_t *io, int *err)
{
    int64_t msg[2] = { (int64_t)(intptr_t)io, *err };
    PMPI_Bcast(msg, 2, MPI_INT64_T, 0, lcomm);
    *err = (int)msg[1];
    return (zm_io_file_t *)(intptr_t)msg[0];
}

/* Rank 0's process opens first (it may create the file, or find it
 * exists under MPI_MODE_EXCL); the others follow once it succeeded.  The
 * smallest error of any process (they are negative) is everyone's. */
static zm_io_file_t *open_spanning(MPI_Comm dup, MPI_Comm lcomm, int rank, int lrank,
                                   int lsize, const char *path, int amode, int *err)
{
    zm_io_file_t *io = NULL;
    int e = 0;
    if (rank == 0)
        io = open_local(rank, lrank, lsize, path, amode, &e);
    PMPI_Bcast(&e, 1, MPI_INT, 0, dup);
    if (e == 0 && rank != 0)
        io = open_local(rank, lrank, lsize, path, amode, &e);
    int all = 0;
    PMPI_Allreduce(&e, &all, 1, MPI_INT, MPI_MIN, dup);
    if (all != 0 && io) {
        zm_io_file_release(io, 0);
        io = NULL;
    }
    *err = all;
    if (all != 0)
        return NULL;
    if (io) {
        atomic_store(&io->refs, lsize);
        io->procs_lock = (amode & MPI_MODE_RDONLY) == 0;
    }
    return share_local(lcomm, io, err);
}

zm_io_file_t *zm_mpi_file_open_shared(MPI_Comm dup, const char *path, int amode, int *err,
                                      MPI_Comm *lcomm, int *lrank, int *lsize, int *procs)
{
    int rank, size;
    PMPI_Comm_rank(dup, &rank);
    PMPI_Comm_size(dup, &size);
    *procs = zm_net_any_remote(dup->p.world, dup->p.size);
    *lcomm = dup;
    if (*procs && PMPI_Comm_split(dup, zm_net_proc_of(zm_mpi_me()->world_rank), rank, lcomm) !=
                      MPI_SUCCESS) {
        *err = -ENOMEM;
        return NULL;
    }
    PMPI_Comm_rank(*lcomm, lrank);
    PMPI_Comm_size(*lcomm, lsize);
    zm_io_file_t *io;
    if (*procs) {
        io = open_spanning(dup, *lcomm, rank, *lrank, *lsize, path, amode, err);
    } else {
        io = open_local(rank, *lrank, *lsize, path, amode, err);
        if (io)
            atomic_store(&io->refs, size);
        io = share_local(dup, io, err);
    }
    if (!io && *procs)
        PMPI_Comm_free(lcomm);
    return io;
}

/* ---- The shared file pointer across processes ---------------------------- */

int zm_mpi_file_sp_setup(struct zmpi_file *fh)
{
    fh->sp_win = MPI_WIN_NULL;
    fh->xcomm = MPI_COMM_NULL;
    if (!fh->procs)
        return MPI_SUCCESS;
    /* The processes' first ranks exchange the pieces of collective
     * accesses (file_xagg.c). */
    int rc = PMPI_Comm_split(fh->comm, fh->lrank == 0 ? 0 : MPI_UNDEFINED, fh->rank,
                             &fh->xcomm);
    if (rc != MPI_SUCCESS)
        return rc;
    void *base = fh->rank == 0 ? (void *)&fh->io->shared_fp : NULL;
    MPI_Aint bytes = fh->rank == 0 ? (MPI_Aint)sizeof(int64_t) : 0;
    rc = PMPI_Win_create(base, bytes, (int)sizeof(int64_t), MPI_INFO_NULL, fh->comm,
                         &fh->sp_win);
    if (rc != MPI_SUCCESS) {
        if (fh->xcomm != MPI_COMM_NULL)
            PMPI_Comm_free(&fh->xcomm);
        return rc;
    }
    /* Errors of the window's calls come back to the file's calls, which
     * raise them on the file. */
    PMPI_Win_set_errhandler(fh->sp_win, MPI_ERRORS_RETURN);
    return MPI_SUCCESS;
}

void zm_mpi_file_sp_free(struct zmpi_file *fh)
{
    if (fh->procs && fh->sp_win != MPI_WIN_NULL)
        PMPI_Win_free(&fh->sp_win);
    if (fh->procs && fh->xcomm != MPI_COMM_NULL)
        PMPI_Comm_free(&fh->xcomm);
}

/* One atomic operation `op` with operand `v` on rank 0's pointer; returns
 * the value before it. */
static int64_t sp_rmw(struct zmpi_file *fh, int64_t v, MPI_Op op)
{
    int64_t old = 0;
    PMPI_Win_lock(MPI_LOCK_SHARED, 0, 0, fh->sp_win);
    PMPI_Fetch_and_op(&v, &old, MPI_INT64_T, 0, 0, op, fh->sp_win);
    PMPI_Win_unlock(0, fh->sp_win);
    return old;
}

int64_t zm_mpi_file_sp_load(struct zmpi_file *fh)
{
    if (!fh->procs)
        return atomic_load(&fh->io->shared_fp);
    return sp_rmw(fh, 0, MPI_NO_OP);
}

int64_t zm_mpi_file_sp_add(struct zmpi_file *fh, int64_t n)
{
    if (!fh->procs)
        return atomic_fetch_add(&fh->io->shared_fp, n);
    return sp_rmw(fh, n, MPI_SUM);
}

void zm_mpi_file_sp_store(struct zmpi_file *fh, int64_t v)
{
    if (!fh->procs)
        atomic_store(&fh->io->shared_fp, v);
    else
        sp_rmw(fh, v, MPI_REPLACE);
}
