/*
 * file_rw.h: shared pieces of MPI-IO data access (file_rw.c, file_coll.c).
 */
#ifndef ZM_MPI_FILE_RW_H
#define ZM_MPI_FILE_RW_H

#include "file_impl.h"

/* Which position an access uses. */
enum { ZM_AT_EXPLICIT, ZM_AT_INDIVIDUAL, ZM_AT_SHARED };

/* One rank's access, ready for the transfer. */
typedef struct zm_mpi_access {
    void *buf;          /* the user's buffer */
    size_t count;       /* the user's count */
    MPI_Datatype dt;    /* the user's datatype */
    size_t bytes;       /* data bytes */
    char *data;         /* packed data: buf itself when dt is contiguous */
    int packed;         /* data is a buffer of ours */
    int ext32;          /* data is in external32 (converted from / to the buffer) */
    const struct zm_mpi_datarep *urep; /* data is in this user representation, or NULL */
    zm_io_segs_t segs;  /* where the data goes in the file */
} zm_mpi_access_t;

/* Text for -errno `err`. */
const char *zm_mpi_file_reason(int err);

/* Check the arguments of an access (`how` is ZM_AT_*; `offset` is read
 * only for ZM_AT_EXPLICIT) and the file's mode; MPI_SUCCESS or the raised
 * error.  ULT context, the file's rank. */
int zm_mpi_file_access_check(struct zmpi_file *fh, const char *fn, const void *buf, MPI_Count count,
                             MPI_Datatype dt, int write, int how, MPI_Offset offset);

/* Map an access at view position `pos` (etypes) and pack the data of a
 * write.  MPI_SUCCESS or the raised error (nothing left to free then). */
int zm_mpi_file_access_prepare(struct zmpi_file *fh, const char *fn, const void *buf,
                               MPI_Count count, MPI_Datatype dt, MPI_Offset pos, int write,
                               zm_mpi_access_t *a);

/* Finish an access: unpack the `got` bytes a read brought, free what
 * prepare allocated. */
void zm_mpi_file_access_done(zm_mpi_access_t *a, int read, int64_t got);

/* Fill the status of an access that moved `bytes` bytes. */
void zm_mpi_file_status(MPI_Status *st, int64_t bytes);

/* Bodies of the independent blocking and non-blocking calls. */
int zm_mpi_file_indep(const char *fn, MPI_File fh, int how, MPI_Offset offset, void *buf,
                      MPI_Count count, MPI_Datatype dt, int write, MPI_Status *status);
int zm_mpi_file_inonblock(const char *fn, MPI_File fh, int how, MPI_Offset offset, void *buf,
                          MPI_Count count, MPI_Datatype dt, int write, MPI_Request *request);

/* The read/write API calls are generated: ZM_FILE_API defines
 * MPI_File_<Name> (with its weak alias) at the file's own position `how`
 * (ZM_AT_INDIVIDUAL or ZM_AT_SHARED), ZM_FILE_API_AT at an explicit offset.
 * The buffer is `Const void *` (ZM_NOCONST for reads), the count CountT,
 * the last argument LastT (MPI_Status * or MPI_Request *), and the body
 * impl(fn, fh, how, offset, buf, count, datatype, write, last). */
#define ZM_NOCONST

#define ZM_FILE_API(impl, CountT, Name, how, write, Const, LastT)                                \
    int PMPI_File_##Name(MPI_File fh, Const void *buf, CountT count, MPI_Datatype datatype,      \
                         LastT last)                                                             \
    {                                                                                            \
        return impl("MPI_File_" #Name, fh, how, 0, (void *)buf, count, datatype, write, last);   \
    }                                                                                            \
    ZM_WEAK(File_##Name)

#define ZM_FILE_API_AT(impl, CountT, Name, write, Const, LastT)                                  \
    int PMPI_File_##Name(MPI_File fh, MPI_Offset offset, Const void *buf, CountT count,          \
                         MPI_Datatype datatype, LastT last)                                      \
    {                                                                                            \
        return impl("MPI_File_" #Name, fh, ZM_AT_EXPLICIT, offset, (void *)buf, count,           \
                    datatype, write, last);                                                      \
    }                                                                                            \
    ZM_WEAK(File_##Name)

/* Smallest domain an aggregator is given: fewer aggregators for small
 * accesses, since each costs a buffer and system calls. */
#define ZM_FILE_MIN_DOMAIN (1 << 20)

/* How many aggregators a collective access of region [lo, hi) gets. */
int zm_mpi_file_naggr(const zm_io_file_t *io, int64_t lo, int64_t hi);

#endif /* ZM_MPI_FILE_RW_H */
