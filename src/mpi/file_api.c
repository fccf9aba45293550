/*
 * file_api.c: MPI-IO file management (MPI 4.1 sections 14.2, 14.3, 14.4.1
 * and 14.4.4 to 14.4.5's pointer calls): open, close, delete, sizes, hints,
 * views, atomicity, sync and file pointer positioning.  Data access is in
 * file_rw.c.
 *
 * MPI_File_open is collective: rank 0 of the communicator opens the file
 * and broadcasts the shared object (src/io), so every rank of the process
 * uses one descriptor.  Each rank keeps its own handle with its view and
 * individual file pointer.  Errors go through the file's error handler,
 * MPI_ERRORS_RETURN unless the program sets another (the default handler
 * of files, MPI_FILE_NULL's, is per rank).
 */
#include "file_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *reason(int err)
{
    return strerror(err < 0 ? -err : err);
}

int zm_mpi_file_errclass(int err)
{
    switch (err < 0 ? -err : err) {
    case ENOENT: return MPI_ERR_NO_SUCH_FILE;
    case EEXIST: return MPI_ERR_FILE_EXISTS;
    case EACCES:
    case EPERM: return MPI_ERR_ACCESS;
    case EROFS: return MPI_ERR_READ_ONLY;
    case ENOSPC: return MPI_ERR_NO_SPACE;
    case EDQUOT: return MPI_ERR_QUOTA;
    case EISDIR:
    case ENOTDIR:
    case ENAMETOOLONG:
    case ELOOP: return MPI_ERR_BAD_FILE;
    case ETXTBSY:
    case EBUSY: return MPI_ERR_FILE_IN_USE;
    case ENOMEM: return MPI_ERR_NO_MEM;
    default: return MPI_ERR_IO;
    }
}

/* ---- Default file error handler, one per rank ---------------------------- */

/* Indexed by world rank; allocated by the first rank that needs it.  An
 * entry NULL means MPI_ERRORS_RETURN. */
static struct zmpi_errhandler *_Atomic *_Atomic default_eh;

static struct zmpi_errhandler *_Atomic *default_table(void)
{
    struct zmpi_errhandler *_Atomic *t = atomic_load(&default_eh);
    if (t)
        return t;
    zm_mpi_rank_t *me = zm_mpi_me();
    /* Spawned ranks (spawn.c) have ids up to zm_ult_capacity(). */
    int n = zm_ult_capacity() > me->world.p.size ? zm_ult_capacity() : me->world.p.size;
    t = calloc((size_t)n, sizeof(*t));
    if (!t)
        return NULL;
    struct zmpi_errhandler *_Atomic *expect = NULL;
    if (!atomic_compare_exchange_strong(&default_eh, &expect, t)) {
        free(t);
        t = expect;
    }
    return t;
}

struct zmpi_errhandler *zm_mpi_file_default_eh(void)
{
    struct zmpi_errhandler *_Atomic *t = default_table();
    if (!t)
        return NULL;
    struct zmpi_errhandler *eh = atomic_load(&t[zm_mpi_me()->world_rank]);
    return eh ? eh : MPI_ERRORS_RETURN;
}

int zm_mpi_file_set_default_eh(struct zmpi_errhandler *eh)
{
    struct zmpi_errhandler *_Atomic *t = default_table();
    if (!t) {
        zm_mpi_eh_unref(eh);
        return zm_mpi_file_error(NULL, MPI_ERR_NO_MEM, "MPI_File_set_errhandler",
                                 "out of memory");
    }
    struct zmpi_errhandler *old = atomic_exchange(&t[zm_mpi_me()->world_rank], eh);
    if (old)
        zm_mpi_eh_unref(old);
    return MPI_SUCCESS;
}

int zm_mpi_file_check(const char *fn, MPI_File fh)
{
    if (fh && fh->magic == ZM_FILE_MAGIC)
        return MPI_SUCCESS;
    return zm_mpi_file_error(NULL, MPI_ERR_FILE, fn, "(fh=%s): invalid file handle",
                             fh ? "closed or not a file" : "MPI_FILE_NULL");
}

/* ---- Hints ---------------------------------------------------------------- */

/* Apply the hints of `info` that steer the shared object; the process's
 * first rank only, so one rank writes them.  Unknown keys are kept in fh->info and ignored. */
static void hints_apply(struct zmpi_file *fh, MPI_Info info)
{
    char v[64];
    int flag;
    if (info == MPI_INFO_NULL || fh->lrank != 0)
        return;
    PMPI_Info_get(info, "cb_buffer_size", sizeof(v) - 1, v, &flag);
    if (flag && atoll(v) >= 4096)
        fh->io->cb_buffer_size = atoll(v);
    PMPI_Info_get(info, "cb_nodes", sizeof(v) - 1, v, &flag);
    if (flag && atoi(v) >= 1) {
        fh->io->cb_nodes = atoi(v) < fh->lsize ? atoi(v) : fh->lsize;
        fh->io->cb_nodes_hint = atoi(v);
    }
    PMPI_Info_get(info, "romio_cb_write", sizeof(v) - 1, v, &flag);
    if (flag)
        fh->io->cb_write = strcmp(v, "disable") != 0;
    PMPI_Info_get(info, "romio_cb_read", sizeof(v) - 1, v, &flag);
    if (flag)
        fh->io->cb_read = strcmp(v, "disable") != 0;
    PMPI_Info_get(info, "zmpi_writeback", sizeof(v) - 1, v, &flag);
    if (flag)
        fh->io->writeback = strcmp(v, "disable") != 0;
}

/* Merge `info` into the handle's hints and apply them.  MPI error class. */
static int hints_set(struct zmpi_file *fh, MPI_Info info)
{
    int n = 0;
    char key[MPI_MAX_INFO_KEY + 1], val[1024];
    if (info != MPI_INFO_NULL && PMPI_Info_get_nkeys(info, &n) != MPI_SUCCESS)
        return MPI_ERR_INFO;
    for (int i = 0; i < n; i++) {
        int flag = 0;
        PMPI_Info_get_nthkey(info, i, key);
        PMPI_Info_get(info, key, sizeof(val) - 1, val, &flag);
        if (flag && PMPI_Info_set(fh->info, key, val) != MPI_SUCCESS)
            return MPI_ERR_NO_MEM;
    }
    hints_apply(fh, info);
    return MPI_SUCCESS;
}

/* ---- Open, close, delete ------------------------------------------------- */

static int amode_check(int amode, const char **why)
{
    int all = MPI_MODE_CREATE | MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR |
              MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN | MPI_MODE_EXCL |
              MPI_MODE_APPEND | MPI_MODE_SEQUENTIAL;
    int acc = amode & (MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR);
    *why = NULL;
    if (amode & ~all)
        *why = "holds bits that are no MPI_MODE_* constant";
    else if (acc != MPI_MODE_RDONLY && acc != MPI_MODE_WRONLY && acc != MPI_MODE_RDWR)
        *why = "needs exactly one of MPI_MODE_RDONLY, MPI_MODE_WRONLY, MPI_MODE_RDWR";
    else if (acc == MPI_MODE_RDONLY && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
        *why = "MPI_MODE_RDONLY with MPI_MODE_CREATE or MPI_MODE_EXCL";
    else if (acc == MPI_MODE_RDWR && (amode & MPI_MODE_SEQUENTIAL))
        *why = "MPI_MODE_SEQUENTIAL with MPI_MODE_RDWR";
    return *why ? MPI_ERR_AMODE : MPI_SUCCESS;
}

/* Make the calling rank's handle for the shared object `io`.  NULL if out
 * of memory. */
static struct zmpi_file *handle_new(zm_io_file_t *io, MPI_Comm dup, int amode, const char *name)
{
    struct zmpi_file *fh = calloc(1, sizeof(*fh));
    if (!fh)
        return NULL;
    if (PMPI_Info_create(&fh->info) != MPI_SUCCESS) {
        free(fh);
        return NULL;
    }
    fh->io = io;
    fh->comm = dup;
    fh->xcomm = MPI_COMM_NULL;
    fh->sp_win = MPI_WIN_NULL;
    PMPI_Comm_rank(dup, &fh->rank);
    PMPI_Comm_size(dup, &fh->size);
    fh->amode = amode;
    fh->eh = zm_mpi_file_default_eh();
    zm_mpi_eh_ref(fh->eh);
    fh->etype = MPI_BYTE;
    fh->filetype = MPI_BYTE;
    fh->disp = 0;
    strcpy(fh->datarep, "native");
    snprintf(fh->name, sizeof(fh->name), "%s", name);
    if (zm_io_view_set(&fh->view, 0, MPI_BYTE) != 0) {
        PMPI_Info_free(&fh->info);
        free(fh);
        return NULL;
    }
    fh->magic = ZM_FILE_MAGIC;
    return fh;
}

static void handle_free(struct zmpi_file *fh)
{
    zm_mpi_file_sp_free(fh);
    if (fh->procs)
        PMPI_Comm_free(&fh->lcomm);
    zm_mpi_handle_forget(fh);
    zm_mpi_magic_clear(&fh->magic);
    zm_io_view_free(&fh->view);
    zm_dt_release(fh->etype);
    zm_dt_release(fh->filetype);
    zm_mpi_eh_unref(fh->eh);
    PMPI_Info_free(&fh->info);
    PMPI_Comm_free(&fh->comm);
    free(fh);
}

/* The local checks of MPI_File_open's arguments; MPI_SUCCESS or the
 * raised error. */
static int open_args_check(const char *fn, const char *filename, int amode, MPI_Info info,
                           MPI_File *fh)
{
    const char *why;
    if (!fh)
        return zm_mpi_file_error(NULL, MPI_ERR_ARG, fn, "(fh=NULL): invalid argument");
    *fh = MPI_FILE_NULL;
    if (!filename || !*filename)
        return zm_mpi_file_error(NULL, MPI_ERR_BAD_FILE, fn, "(filename=%s): no file name",
                                 filename ? "\"\"" : "NULL");
    if (amode_check(amode, &why) != MPI_SUCCESS)
        return zm_mpi_file_error(NULL, MPI_ERR_AMODE, fn, "(amode=%#x): %s (file \"%s\")",
                                 (unsigned)amode, why, filename);
    if (info != MPI_INFO_NULL)
        return zm_mpi_info_check(fn, info);
    return MPI_SUCCESS;
}

int PMPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)
{
    const char *fn = "MPI_File_open";
    ENTER_COMM(fn, comm, c);
    if (c->inter)
        return zm_mpi_error(c, MPI_ERR_COMM, fn, "(comm): an intercommunicator; files are "
                            "opened by intracommunicators");
    /* A rank with bad arguments still takes part in the allreduce, so the
     * others fail too instead of waiting for it. */
    rc = open_args_check(fn, filename, amode, info, fh);
    int mm[3] = { amode, -amode, rc != MPI_SUCCESS }, rmm[3];
    PMPI_Allreduce(mm, rmm, 3, MPI_INT, MPI_MAX, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (rmm[2])
        return zm_mpi_file_error(NULL, MPI_ERR_ARG, fn, "another rank of the communicator "
                                 "gave invalid arguments (file \"%s\")", filename);
    /* All ranks must give the same mode: compare the largest and smallest. */
    if (rmm[0] != -rmm[1])
        return zm_mpi_file_error(NULL, MPI_ERR_NOT_SAME, fn, "(amode=%#x): the ranks of the "
                                 "communicator gave different access modes (file \"%s\")",
                                 (unsigned)amode, filename);
    MPI_Comm dup;
    rc = PMPI_Comm_dup(comm, &dup);
    if (rc != MPI_SUCCESS)
        return rc;
    zm_mpi_comm_pin(dup); /* the file is the process's: its rank stays */
    int err, lrank, lsize, procs;
    MPI_Comm lcomm;
    zm_io_file_t *io = zm_mpi_file_open_shared(dup, filename, amode, &err, &lcomm, &lrank,
                                               &lsize, &procs);
    if (!io) {
        PMPI_Comm_free(&dup);
        return zm_mpi_file_error(NULL, zm_mpi_file_errclass(err), fn, "cannot open \"%s\": %s",
                                 filename, reason(err));
    }
    struct zmpi_file *f = handle_new(io, dup, amode, filename);
    if (f) {
        f->lcomm = lcomm;
        f->lrank = lrank;
        f->lsize = lsize;
        f->procs = procs;
    }
    /* The window of the shared pointer is collective: every rank learns
     * first whether all have a handle to hang it on. */
    int ok = f != NULL, allok = 0, sprc = MPI_SUCCESS;
    PMPI_Allreduce(&ok, &allok, 1, MPI_INT, MPI_MIN, dup);
    if (allok) {
        rc = hints_set(f, info);
        if (amode & MPI_MODE_APPEND) {
            int64_t sz = zm_arch_file_size(io->fd);
            f->fp = sz > 0 ? sz : 0;
        }
        sprc = zm_mpi_file_sp_setup(f);
    }
    /* The shared pointer and hints are set before any rank returns. */
    PMPI_Barrier(dup);
    if (!allok || sprc != MPI_SUCCESS) {
        if (f) {
            handle_free(f);
        } else {
            if (procs)
                PMPI_Comm_free(&lcomm);
            PMPI_Comm_free(&dup);
        }
        zm_io_file_release(io, 0);
        return zm_mpi_file_error(NULL, allok ? sprc : MPI_ERR_NO_MEM, fn, "%s (file \"%s\")",
                                 allok ? "cannot set up the shared file pointer"
                                       : "out of memory on some rank", filename);
    }
    /* The file is open even if its hints could not be kept: the program
     * gets the handle to close it. */
    *fh = f;
    if (rc != MPI_SUCCESS)
        return zm_mpi_file_error(f, rc, fn, "(info): cannot record the hints");
    return MPI_SUCCESS;
}
ZM_WEAK(File_open)

int PMPI_File_close(MPI_File *fh)
{
    const char *fn = "MPI_File_close";
    zm_mpi_enter(fn);
    if (!fh)
        return zm_mpi_file_error(NULL, MPI_ERR_ARG, fn, "(fh=NULL): invalid argument");
    int rc = zm_mpi_file_check(fn, *fh);
    if (rc != MPI_SUCCESS)
        return rc;
    struct zmpi_file *f = *fh;
    if (f->split)
        return zm_mpi_file_error(f, MPI_ERR_OTHER, fn, "a split collective access is still "
                                 "open (call its _end first)");
    /* Every rank's accesses are done before the last reference closes. */
    PMPI_Barrier(f->comm);
    int del = (f->amode & MPI_MODE_DELETE_ON_CLOSE) != 0;
    /* Across processes the name goes once every process has closed it;
     * rank 0 keeps it (the object that holds it goes with the last local
     * reference). */
    char *path = f->procs && del && f->rank == 0 ? strdup(f->io->path) : NULL;
    int err = zm_io_file_release(f->io, del && !f->procs);
    /* A deleted file is gone for every rank once the close returns. */
    if (del)
        PMPI_Barrier(f->comm);
    if (f->procs && del && f->rank == 0) {
        if (err == 0)
            err = path ? zm_arch_file_unlink(path) : -ENOMEM;
        free(path);
        PMPI_Barrier(f->comm);
    } else if (f->procs && del) {
        PMPI_Barrier(f->comm);
    }
    if (err != 0) {
        rc = zm_mpi_file_error(f, zm_mpi_file_errclass(err), fn, "closing: %s", reason(err));
    }
    handle_free(f);
    *fh = MPI_FILE_NULL;
    return rc;
}
ZM_WEAK(File_close)

int PMPI_File_delete(const char *filename, MPI_Info info)
{
    const char *fn = "MPI_File_delete";
    zm_mpi_enter(fn);
    if (!filename)
        return zm_mpi_file_error(NULL, MPI_ERR_ARG, fn, "(filename=NULL): invalid argument");
    int rc;
    if (info != MPI_INFO_NULL && (rc = zm_mpi_info_check(fn, info)) != MPI_SUCCESS)
        return rc;
    int err = zm_arch_file_unlink(filename);
    if (err != 0)
        return zm_mpi_file_error(NULL, zm_mpi_file_errclass(err), fn,
                                 "cannot delete \"%s\": %s", filename, reason(err));
    return MPI_SUCCESS;
}
ZM_WEAK(File_delete)

/* ---- Sizes, sync, hints, atomicity ---------------------------------------- */

/* Run `op` on the first rank of each process of the file's communicator
 * and give every rank the first error (0 or -errno): the collective calls
 * that change the file do it once per descriptor (once per job on one
 * process; syncing every process's descriptor matters on file systems
 * that cache per client). */
static int leaders_op(struct zmpi_file *fh, int (*op)(int fd, int64_t arg), int64_t arg)
{
    int err = 0, all = 0;
    PMPI_Barrier(fh->comm);
    if (fh->lrank == 0)
        err = op(fh->io->fd, arg);
    PMPI_Allreduce(&err, &all, 1, MPI_INT, MPI_MIN, fh->comm);
    return all;
}

static int do_sync(int fd, int64_t arg)
{
    (void)arg;
    return zm_arch_file_sync(fd);
}

/* Body of MPI_File_set_size and MPI_File_preallocate. */
static int size_call(const char *fn, MPI_File fh, MPI_Offset size,
                     int (*op)(int fd, int64_t size))
{
    ENTER_FILE(fn, fh);
    if (size < 0)
        rc = zm_mpi_file_error(fh, MPI_ERR_ARG, fn, "(size=%lld): negative size",
                               (long long)size);
    else if (fh->amode & MPI_MODE_RDONLY)
        rc = zm_mpi_file_error(fh, MPI_ERR_READ_ONLY, fn, "(size=%lld): the file is open "
                               "MPI_MODE_RDONLY", (long long)size);
    else if (fh->amode & MPI_MODE_SEQUENTIAL)
        rc = zm_mpi_file_error(fh, MPI_ERR_UNSUPPORTED_OPERATION, fn, "not allowed on a "
                               "file opened MPI_MODE_SEQUENTIAL");
    /* Every rank takes part even after an error, so none waits forever. */
    MPI_Offset mm[3] = { size, -size, rc != MPI_SUCCESS }, rmm[3];
    PMPI_Allreduce(mm, rmm, 3, MPI_INT64_T, MPI_MAX, fh->comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (rmm[2])
        return zm_mpi_file_error(fh, MPI_ERR_ARG, fn, "another rank gave invalid arguments");
    if (rmm[0] != -rmm[1])
        return zm_mpi_file_error(fh, MPI_ERR_NOT_SAME, fn, "(size=%lld): the ranks gave "
                                 "different sizes", (long long)size);
    int err = leaders_op(fh, op, size);
    if (err != 0)
        return zm_mpi_file_error(fh, zm_mpi_file_errclass(err), fn, "(size=%lld): %s",
                                 (long long)size, reason(err));
    return MPI_SUCCESS;
}

int PMPI_File_set_size(MPI_File fh, MPI_Offset size)
{
    return size_call("MPI_File_set_size", fh, size, zm_arch_file_truncate);
}
ZM_WEAK(File_set_size)

int PMPI_File_preallocate(MPI_File fh, MPI_Offset size)
{
    return size_call("MPI_File_preallocate", fh, size, zm_arch_file_allocate);
}
ZM_WEAK(File_preallocate)

int PMPI_File_get_size(MPI_File fh, MPI_Offset *size)
{
    const char *fn = "MPI_File_get_size";
    ENTER_FILE(fn, fh);
    if (!size)
        return zm_mpi_file_error(fh, MPI_ERR_ARG, fn, "(size=NULL): invalid argument");
    int64_t s = zm_arch_file_size(fh->io->fd);
    if (s < 0)
        return zm_mpi_file_error(fh, zm_mpi_file_errclass((int)s), fn, "%s", reason((int)s));
    *size = s;
    return MPI_SUCCESS;
}
ZM_WEAK(File_get_size)

int PMPI_File_get_group(MPI_File fh, MPI_Group *group)
{
    const char *fn = "MPI_File_get_group";
    ENTER_FILE(fn, fh);
    if (!group)
        return zm_mpi_file_error(fh, MPI_ERR_ARG, fn, "(group=NULL): invalid argument");
    return PMPI_Comm_group(fh->comm, group);
}
ZM_WEAK(File_get_group)

int PMPI_File_get_amode(MPI_File fh, int *amode)
{
    const char *fn = "MPI_File_get_amode";
    ENTER_FILE(fn, fh);
    if (!amode)
        return zm_mpi_file_error(fh, MPI_ERR_ARG, fn, "(amode=NULL): invalid argument");
    *amode = fh->amode;
    return MPI_SUCCESS;
}
ZM_WEAK(File_get_amode)

int PMPI_File_set_info(MPI_File fh, MPI_Info info)
{
    const char *fn = "MPI_File_set_info";
    ENTER_FILE(fn, fh);
    if (info != MPI_INFO_NULL && (rc = zm_mpi_info_check(fn, info)) != MPI_SUCCESS)
        return rc;
    /* Collective: rank 0 changes the shared settings while the others
     * wait, so no collective access sees half of them. */
    PMPI_Barrier(fh->comm);
    rc = hints_set(fh, info);
    PMPI_Barrier(fh->comm);
    if (rc != MPI_SUCCESS)
        return zm_mpi_file_error(fh, rc, fn, "(info): cannot record the hints");
    return MPI_SUCCESS;
}
ZM_WEAK(File_set_info)

int PMPI_File_get_info(MPI_File fh, MPI_Info *info_used)
{
    const char *fn = "MPI_File_get_info";
    ENTER_FILE(fn, fh);
    if (!info_used)
        return zm_mpi_file_error(fh, MPI_ERR_ARG, fn, "(info_used=NULL): invalid argument");
    MPI_Info out;
    if (PMPI_Info_dup(fh->info, &out) != MPI_SUCCESS)
        return zm_mpi_file_error(fh, MPI_ERR_NO_MEM, fn, "out of memory");
    /* The hints in effect, whether or not the program set them. */
    char v[32];
    snprintf(v, sizeof(v), "%lld", (long long)fh->io->cb_buffer_size);
    PMPI_Info_set(out, "cb_buffer_size", v);
    snprintf(v, sizeof(v), "%d", fh->io->cb_nodes);
    PMPI_Info_set(out, "cb_nodes", v);
    PMPI_Info_set(out, "romio_cb_write", fh->io->cb_write ? "enable" : "disable");
    PMPI_Info_set(out, "romio_cb_read", fh->io->cb_read ? "enable" : "disable");
    PMPI_Info_set(out, "zmpi_writeback", fh->io->writeback ? "enable" : "disable");
    *info_used = out;
    return MPI_SUCCESS;
}
ZM_WEAK(File_get_info)

int PMPI_File_sync(MPI_File fh)
{
    const char *fn = "MPI_File_sync";
    ENTER_FILE(fn, fh);
    if (fh->split)
        return zm_mpi_file_error(fh, MPI_ERR_OTHER, fn, "a split collective access is open");
    /* All ranks' writes are in the file before the one fsync. */
    int err = leaders_op(fh, do_sync, 0);
    PMPI_Barrier(fh->comm);
    if (err != 0)
        return zm_mpi_file_error(fh, zm_mpi_file_errclass(err), fn, "%s", reason(err));
    return MPI_SUCCESS;
}
ZM_WEAK(File_sync)

int PMPI_File_set_atomicity(MPI_File fh, int flag)
{
    const char *fn = "MPI_File_set_atomicity";
    ENTER_FILE(fn, fh);
    int mm[2] = { !!flag, -!!flag }, rmm[2];
    PMPI_Allreduce(mm, rmm, 2, MPI_INT, MPI_MAX, fh->comm);
    if (rmm[0] != -rmm[1])
        return zm_mpi_file_error(fh, MPI_ERR_NOT_SAME, fn, "(flag=%d): the ranks gave "
                                 "different values", flag);
    fh->atomic = !!flag;
    return MPI_SUCCESS;
}
ZM_WEAK(File_set_atomicity)

int PMPI_File_get_atomicity(MPI_File fh, int *flag)
{
    const char *fn = "MPI_File_get_atomicity";
    ENTER_FILE(fn, fh);
    if (!flag)
        return zm_mpi_file_error(fh, MPI_ERR_ARG, fn, "(flag=NULL): invalid argument");
    *flag = fh->atomic;
    return MPI_SUCCESS;
}
ZM_WEAK(File_get_atomicity)
