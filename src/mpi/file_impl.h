/*
 * file_impl.h: MPI-IO in the API layer (file_api.c, file_rw.c, file_coll.c
 * and the file error handlers at the end of errors.c).
 *
 * Each rank has its own MPI_File object (its view, individual file
 * pointer, error handler and hints); all of them point to one shared
 * zm_io_file_t (src/io/io.h) holding the descriptor and the shared file
 * pointer.
 */
#ifndef ZM_MPI_FILE_IMPL_H
#define ZM_MPI_FILE_IMPL_H

#include "io/io.h"
#include "mpi_impl.h"

#define ZM_FILE_MAGIC 0x7a6d6669u

/* One rank's file handle. */
struct zmpi_file {
    uint32_t magic;                  /* ZM_FILE_MAGIC while open */
    zm_io_file_t *io;                /* the shared open file */
    MPI_Comm comm;                   /* private duplicate of the opening communicator */
    int rank, size;                  /* caller's rank in comm, ranks of comm */
    /* The ranks of comm in the caller's process share `io`; when comm
     * spans processes each process has its own (file_procs.c). */
    MPI_Comm lcomm;                  /* those ranks (comm itself if all are local) */
    int lrank, lsize;                /* caller's rank in lcomm, ranks of lcomm */
    int procs;                       /* comm spans several processes */
    MPI_Win sp_win;                  /* procs: window on comm rank 0's shared pointer */
    MPI_Comm xcomm;                  /* procs: the first rank of each process (lrank 0),
                                      * which exchange collective pieces; others
                                      * MPI_COMM_NULL */
    int amode;                       /* MPI_MODE_* bits given to open */
    struct zmpi_errhandler *eh;      /* error handler (held) */
    MPI_Info info;                   /* hints as set, owned; never NULL */
    int atomic;                      /* MPI_File_set_atomicity */
    /* The view (MPI_File_set_view). */
    MPI_Offset disp;                 /* displacement, bytes */
    MPI_Datatype etype;              /* elementary type (held) */
    MPI_Datatype filetype;           /* file type (held) */
    char datarep[MPI_MAX_DATAREP_STRING]; /* "native", "internal" or "external32" */
    int ext32;                       /* the view's data representation is external32 */
    const struct zm_mpi_datarep *urep; /* a representation of MPI_Register_datarep, or NULL */
    zm_io_view_t view;               /* the filetype flattened */
    MPI_Offset fp;                   /* individual file pointer, etypes of the view */
    /* Split collectives: the status of the access begun and not ended. */
    int split;                       /* 0, or the ZM_SPLIT_* kind of the pending access */
    MPI_Status split_status;         /* its status */
    uint64_t nbc_seq;                /* non-blocking collectives this rank started */
    char name[256];                  /* the file name, for messages */
};

/* Kinds of split collective access, to check that _end matches _begin. */
enum { ZM_SPLIT_NONE, ZM_SPLIT_READ_AT, ZM_SPLIT_WRITE_AT, ZM_SPLIT_READ, ZM_SPLIT_WRITE,
       ZM_SPLIT_READ_ORDERED, ZM_SPLIT_WRITE_ORDERED };

/* Raise error class `cls` from call `fn` through file fh's error handler
 * (fh NULL: the handler of MPI_FILE_NULL, which MPI_File_open and
 * MPI_File_delete use).  The message gets the file's name.  Returns the
 * code for the call to return.  ULT context (errors.c). */
int zm_mpi_file_error(struct zmpi_file *fh, int cls, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The calling rank's MPI_FILE_NULL error handler (MPI_ERRORS_RETURN until
 * MPI_File_set_errhandler(MPI_FILE_NULL, ...) changes it), and its
 * setter, which takes over the caller's reference.  Returns NULL only if
 * out of memory (the setter then leaves it unchanged and returns
 * MPI_ERR_NO_MEM).  ULT context, the calling rank (file_api.c). */
struct zmpi_errhandler *zm_mpi_file_default_eh(void);
int zm_mpi_file_set_default_eh(struct zmpi_errhandler *eh);

/* Check a file handle: MPI_SUCCESS, or MPI_ERR_FILE raised on the
 * MPI_FILE_NULL handler.  ULT context (file_api.c). */
int zm_mpi_file_check(const char *fn, MPI_File fh);

/* Prelude of a call on a file: enter call `fn` as the calling rank and
 * return the raised error if `fh` is not a valid file (declares `rc`).
 * ULT context, the calling rank. */
#define ENTER_FILE(fn, fh)                                         \
    zm_mpi_enter(fn);                                              \
    int rc = zm_mpi_file_check(fn, fh);                            \
    if (rc != MPI_SUCCESS)                                         \
        return rc

/* Nonzero if external32 stores `dt` in as many bytes as memory does, so
 * that a view or buffer of it keeps its layout in external32 and only its
 * bytes are converted (file_view.c). */
int zm_mpi_file_ext32_same_size(MPI_Datatype dt);

/* ---- User-defined data representations (file_datarep.c) ---- */

struct zm_mpi_datarep;

/* The calling rank's registered representation `name`, or NULL. */
const struct zm_mpi_datarep *zm_mpi_datarep_find(const char *name);

/* Nonzero if every predefined type in dt has, in the file, an extent equal
 * to its size in memory (the only case zmpi supports). */
int zm_mpi_datarep_fits(const struct zm_mpi_datarep *rep, MPI_Datatype dt);

/* Convert count elements of (buf, dt) to the file representation in the
 * packed `filebuf` (write), or the first `bytes` bytes of filebuf back into
 * (buf, dt) (read), through the program's functions (pack/unpack when a
 * function is MPI_CONVERSION_FN_NULL).  Return MPI_SUCCESS or the
 * function's error code.  ULT context, the calling rank. */
int zm_mpi_datarep_write(const struct zm_mpi_datarep *rep, void *buf, MPI_Datatype dt,
                         MPI_Count count, void *filebuf);
int zm_mpi_datarep_read(const struct zm_mpi_datarep *rep, void *buf, MPI_Datatype dt,
                        MPI_Count count, void *filebuf, size_t bytes);

/* ---- Files whose communicator spans processes (file_procs.c) ---- */

/* Open `path` for the calling rank of `dup` (collective over dup): the
 * process of dup's rank 0 opens it with every flag of `amode`, then one
 * rank of each other process opens the same file without creating it, and
 * the ranks of each process share their process's object (refs set to the
 * local ranks).  Fills fh-less state: *lcomm, *lrank, *lsize, *procs.
 * Returns the object, or NULL with *err = -errno on every rank when any
 * process failed.  ULT context, every rank of dup. */
zm_io_file_t *zm_mpi_file_open_shared(MPI_Comm dup, const char *path, int amode, int *err,
                                      MPI_Comm *lcomm, int *lrank, int *lsize, int *procs);

/* Set up (collective) and free (collective, before comm is freed) the
 * job-wide state of a file that spans processes: the shared file pointer,
 * a window over comm whose only memory is rank 0's io->shared_fp, and
 * fh->xcomm, the communicator of the processes' first ranks.  Setup returns
 * MPI_SUCCESS or an MPI error class (nothing raised).  No-ops on a file of
 * one process.  ULT context, every rank of fh->comm. */
int zm_mpi_file_sp_setup(struct zmpi_file *fh);
void zm_mpi_file_sp_free(struct zmpi_file *fh);

/* The shared file pointer (etypes): read it, add `n` to it returning the
 * old value, or set it (only one rank sets it, inside a collective call
 * whose barriers order the store against every rank's reads).  Local
 * atomics on a file of one process; one-sided operations on rank 0's value
 * when the file spans processes.  ULT context, a rank of the file. */
int64_t zm_mpi_file_sp_load(struct zmpi_file *fh);
int64_t zm_mpi_file_sp_add(struct zmpi_file *fh, int64_t n);
void zm_mpi_file_sp_store(struct zmpi_file *fh, int64_t v);

/* Phase two of a collective access on a file that spans processes
 * (file_xagg.c), run by each process's first rank (fh->xcomm) once every
 * rank of the process posted its piece in fh->io->pieces: the accessed
 * region [lo, hi) of the whole job is split into one contiguous domain per
 * aggregating process (at most `nodes`; windows of `cbsize` bytes), the
 * pieces of each window travel to its aggregator over xcomm (a read's data
 * comes back), and the aggregator moves each window with few large system
 * calls.  Returns 0 or the first -errno of any process (the same on every
 * leader).  ULT context, lrank 0 of every process, collectively. */
int64_t zm_mpi_file_xaggr(struct zmpi_file *fh, int write, int64_t lo, int64_t hi,
                          int64_t cbsize, int64_t nodes);

/* The MPI error class for -errno `err` of a file operation (file_api.c). */
int zm_mpi_file_errclass(int err);

#endif /* ZM_MPI_FILE_IMPL_H */
