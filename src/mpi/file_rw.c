/*
 * file_rw.c: MPI-IO data access (MPI 4.1 section 14.4): explicit offsets,
 * individual and shared file pointers, blocking, non-blocking, collective
 * and split collective.
 *
 * Every access becomes a list of file segments (the view mapped from the
 * access's position) and a packed buffer (the user's own when its type is
 * contiguous).  Independent accesses issue one system call per segment;
 * collective ones post their segments for the aggregators (file_coll.c).
 * The non-blocking independent calls do the transfer at once and return a
 * complete request, which the standard allows.  The split collectives do
 * the collective access in _begin and hand its status out at _end, as the
 * standard allows too.
 */
#include "file_rw.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *zm_mpi_file_reason(int err)
{
    return strerror(err < 0 ? -err : err);
}

/* What each kind of access may do with the file. */
static int access_mode_check(struct zmpi_file *fh, const char *fn, int write, int how)
{
    if (write && (fh->amode & MPI_MODE_RDONLY))
        return zm_mpi_file_error(fh, MPI_ERR_READ_ONLY, fn, "the file is open MPI_MODE_RDONLY");
    if (!write && (fh->amode & MPI_MODE_WRONLY))
        return zm_mpi_file_error(fh, MPI_ERR_ACCESS, fn, "the file is open MPI_MODE_WRONLY");
    if (how != ZM_AT_SHARED && (fh->amode & MPI_MODE_SEQUENTIAL))
        return zm_mpi_file_error(fh, MPI_ERR_UNSUPPORTED_OPERATION, fn, "only shared file "
                                 "pointer calls are allowed on a file opened "
                                 "MPI_MODE_SEQUENTIAL");
    return MPI_SUCCESS;
}

int zm_mpi_file_access_check(struct zmpi_file *fh, const char *fn, const void *buf, MPI_Count count,
                             MPI_Datatype dt, int write, int how, MPI_Offset offset)
{
    if (count < 0)
        return zm_mpi_file_error(fh, MPI_ERR_COUNT, fn, "(count=%lld): negative count",
                                 (long long)count);
    if (!zm_dt_usable(dt))
        return zm_mpi_file_error(fh, MPI_ERR_TYPE, fn, "(datatype): %s",
                                 zm_dt_valid(dt) ? "not committed or freed" : "not a datatype");
    if (!buf && count > 0 && dt->size > 0 && !dt->d)
        return zm_mpi_file_error(fh, MPI_ERR_BUFFER, fn, "(buf=NULL): invalid buffer");
    if (dt->size % fh->etype->size != 0)
        return zm_mpi_file_error(fh, MPI_ERR_TYPE, fn, "(datatype=%s): its size %zu is not a "
                                 "multiple of the view's etype size %zu", dt->name, dt->size,
                                 fh->etype->size);
    int rc = access_mode_check(fh, fn, write, how);
    if (rc == MPI_SUCCESS && how == ZM_AT_EXPLICIT && offset < 0)
        rc = zm_mpi_file_error(fh, MPI_ERR_ARG, fn, "(offset=%lld): negative offset",
                               (long long)offset);
    return rc;
}

/* Fill a->data with the data of (buf, a->count, a->dt) as the file holds
 * it: packed, and converted to external32 if the view says so.  Returns 0
 * or -1 if out of memory or the conversion fails. */
static int pack_for_file(zm_mpi_access_t *a, const void *buf)
{
    if (a->urep)
        return zm_mpi_datarep_write(a->urep, (void *)buf, a->dt, (MPI_Count)a->count, a->data)
                       == MPI_SUCCESS ? 0 : -1;
    if (!a->ext32) {
        zm_dt_pack(a->data, buf, a->count, a->dt, a->bytes);
        return 0;
    }
    char *tmp = malloc(a->bytes);
    if (!tmp)
        return -1;
    zm_dt_pack(tmp, buf, a->count, a->dt, a->bytes);
    int rc = zm_dt_ext32_encode(a->data, tmp, a->count, a->dt);
    free(tmp);
    return rc;
}

int zm_mpi_file_access_prepare(struct zmpi_file *fh, const char *fn, const void *buf,
                               MPI_Count count, MPI_Datatype dt, MPI_Offset pos, int write,
                               zm_mpi_access_t *a)
{
    memset(a, 0, sizeof(*a));
    a->buf = (void *)buf;
    a->count = (size_t)count;
    a->dt = dt;
    a->bytes = dt->size * (size_t)count;
    if (pos < 0)
        return zm_mpi_file_error(fh, MPI_ERR_ARG, fn, "(offset=%lld): negative offset",
                                 (long long)pos);
    a->ext32 = fh->ext32;
    if (a->ext32 && !zm_mpi_file_ext32_same_size(dt))
        return zm_mpi_file_error(fh, MPI_ERR_UNSUPPORTED_DATAREP, fn, "(datatype=%s): its "
                                 "external32 size differs from its size in memory; not supported",
                                 dt->name);
    a->urep = fh->urep;
    if (a->urep && !zm_mpi_datarep_fits(a->urep, dt))
        return zm_mpi_file_error(fh, MPI_ERR_UNSUPPORTED_DATAREP, fn, "(datatype=%s): its "
                                 "file extent differs from its size in memory; not supported",
                                 dt->name);
    if (dt->contig && !a->ext32 && !a->urep) {
        a->data = (char *)buf;
    } else if (a->bytes) {
        a->data = malloc(a->bytes);
        if (!a->data)
            return zm_mpi_file_error(fh, MPI_ERR_NO_MEM, fn, "out of memory (%zu bytes)",
                                     a->bytes);
        a->packed = 1;
        if (write && pack_for_file(a, buf) != 0) {
            free(a->data);
            return zm_mpi_file_error(fh, MPI_ERR_CONVERSION, fn, "(datatype=%s): the "
                                     "conversion to the file's representation failed",
                                     dt->name);
        }
    }
    int err = zm_io_view_map(&fh->view, pos * (MPI_Offset)fh->etype->size, a->bytes, 0,
                             &a->segs);
    if (err != 0) {
        zm_mpi_file_access_done(a, 0, 0);
        return zm_mpi_file_error(fh, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    return MPI_SUCCESS;
}

void zm_mpi_file_access_done(zm_mpi_access_t *a, int read, int64_t got)
{
    if (a->packed) {
        if (read && got > 0 && a->urep) {
            zm_mpi_datarep_read(a->urep, a->buf, a->dt, (MPI_Count)a->count, a->data,
                                (size_t)got);
        } else if (read && got > 0 && a->ext32) {
            /* Decode whole elements in place of a native copy; bytes past
             * `got` were zeroed or never read and are not unpacked. */
            char *tmp = malloc(a->bytes);
            if (tmp && zm_dt_ext32_decode(tmp, a->data, a->count, a->dt) == 0)
                zm_dt_unpack(a->buf, a->count, a->dt, tmp, (size_t)got);
            free(tmp);
        } else if (read && got > 0) {
            zm_dt_unpack(a->buf, a->count, a->dt, a->data, (size_t)got);
        }
        free(a->data);
    }
    zm_io_segs_free(&a->segs);
    a->packed = 0;
    a->data = NULL;
}

void zm_mpi_file_status(MPI_Status *st, int64_t bytes)
{
    if (st == MPI_STATUS_IGNORE || !st)
        return;
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    st->zmpi_cancelled = 0;
    st->zmpi_bytes = bytes;
}

/* An independent access at `pos` (etypes); the bytes moved in *got. */
static int independent(struct zmpi_file *fh, const char *fn, void *buf, MPI_Count count,
                       MPI_Datatype dt, MPI_Offset pos, int write, int64_t *got)
{
    zm_mpi_access_t a;
    int rc = zm_mpi_file_access_prepare(fh, fn, buf, count, dt, pos, write, &a);
    if (rc != MPI_SUCCESS)
        return rc;
    int64_t r = write ? zm_io_write_segs(fh->io, &a.segs, a.data, fh->atomic)
                      : zm_io_read_segs(fh->io, &a.segs, a.data, fh->atomic);
    if (write && r == 0)
        r = (int64_t)a.bytes;
    zm_mpi_file_access_done(&a, !write, r);
    if (r < 0)
        return zm_mpi_file_error(fh, zm_mpi_file_errclass((int)r), fn, "%s at offset %lld: %s",
                                 write ? "writing" : "reading", (long long)pos,
                                 zm_mpi_file_reason((int)r));
    *got = r;
    return MPI_SUCCESS;
}

/* Where an access of `how` starts, advancing the pointer it uses by the
 * etypes of (count, dt); `offset` is the explicit offset. */
static MPI_Offset claim(struct zmpi_file *fh, int how, MPI_Offset offset, MPI_Count count,
                        MPI_Datatype dt)
{
    MPI_Offset n = (MPI_Offset)(dt->size / fh->etype->size) * count;
    MPI_Offset pos;
    switch (how) {
    case ZM_AT_EXPLICIT:
        return offset;
    case ZM_AT_INDIVIDUAL:
        pos = fh->fp;
        fh->fp += n;
        return pos;
    default:
        return zm_mpi_file_sp_add(fh, n);
    }
}

int zm_mpi_file_indep(const char *fn, MPI_File fh, int how, MPI_Offset offset, void *buf,
                      MPI_Count count, MPI_Datatype dt, int write, MPI_Status *status)
{
    ENTER_FILE(fn, fh);
    rc = zm_mpi_file_access_check(fh, fn, buf, count, dt, write, how, offset);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Offset pos = claim(fh, how, offset, count, dt);
    int64_t got = 0;
    rc = independent(fh, fn, buf, count, dt, pos, write, &got);
    if (rc != MPI_SUCCESS)
        return rc;
    if (how == ZM_AT_INDIVIDUAL && !write && got < (int64_t)(dt->size * (size_t)count))
        fh->fp = pos + got / (int64_t)fh->etype->size;
    zm_mpi_file_status(status, got);
    return MPI_SUCCESS;
}

/* A request that is already complete, reporting `bytes` moved. */
static int done_request(struct zmpi_file *fh, const char *fn, int64_t bytes,
                        MPI_Request *request)
{
    zm_req_t *req = zm_p2p_req_alloc();
    if (!req)
        return zm_mpi_file_error(fh, MPI_ERR_NO_MEM, fn, "out of memory");
    req->kind = ZM_REQ_DONE_ONLY;
    req->comm = MPI_COMM_SELF;
    req->st_source = MPI_ANY_SOURCE;
    req->st_tag = MPI_ANY_TAG;
    req->st_bytes = (size_t)bytes;
    atomic_store(&req->cstate, ZM_REQ_DONE);
    *request = req;
    return MPI_SUCCESS;
}

int zm_mpi_file_inonblock(const char *fn, MPI_File fh, int how, MPI_Offset offset, void *buf,
                          MPI_Count count, MPI_Datatype dt, int write, MPI_Request *request)
{
    zm_mpi_enter(fn);
    if (!request) {
        int rc = zm_mpi_file_check(fn, fh);
        return rc != MPI_SUCCESS ? rc : zm_mpi_file_error(fh, MPI_ERR_ARG, fn,
                                                          "(request=NULL): invalid argument");
    }
    *request = MPI_REQUEST_NULL;
    MPI_Status st;
    int rc = zm_mpi_file_indep(fn, fh, how, offset, buf, count, dt, write, &st);
    if (rc != MPI_SUCCESS)
        return rc;
    return done_request(fh, fn, st.zmpi_bytes, request);
}

/* ---- The API calls ------------------------------------------------------ */

#define IND(CountT, Name, how, write, Const) \
    ZM_FILE_API(zm_mpi_file_indep, CountT, Name, how, write, Const, MPI_Status *)
#define IND_AT(CountT, Name, write, Const) \
    ZM_FILE_API_AT(zm_mpi_file_indep, CountT, Name, write, Const, MPI_Status *)
#define INB(CountT, Name, how, write, Const) \
    ZM_FILE_API(zm_mpi_file_inonblock, CountT, Name, how, write, Const, MPI_Request *)
#define INB_AT(CountT, Name, write, Const) \
    ZM_FILE_API_AT(zm_mpi_file_inonblock, CountT, Name, write, Const, MPI_Request *)

IND_AT(int, read_at, 0, ZM_NOCONST)
IND_AT(MPI_Count, read_at_c, 0, ZM_NOCONST)
IND_AT(int, write_at, 1, const)
IND_AT(MPI_Count, write_at_c, 1, const)
INB_AT(int, iread_at, 0, ZM_NOCONST)
INB_AT(MPI_Count, iread_at_c, 0, ZM_NOCONST)
INB_AT(int, iwrite_at, 1, const)
INB_AT(MPI_Count, iwrite_at_c, 1, const)
IND(int, read, ZM_AT_INDIVIDUAL, 0, ZM_NOCONST)
IND(MPI_Count, read_c, ZM_AT_INDIVIDUAL, 0, ZM_NOCONST)
IND(int, write, ZM_AT_INDIVIDUAL, 1, const)
IND(MPI_Count, write_c, ZM_AT_INDIVIDUAL, 1, const)
INB(int, iread, ZM_AT_INDIVIDUAL, 0, ZM_NOCONST)
INB(MPI_Count, iread_c, ZM_AT_INDIVIDUAL, 0, ZM_NOCONST)
INB(int, iwrite, ZM_AT_INDIVIDUAL, 1, const)
INB(MPI_Count, iwrite_c, ZM_AT_INDIVIDUAL, 1, const)
IND(int, read_shared, ZM_AT_SHARED, 0, ZM_NOCONST)
IND(MPI_Count, read_shared_c, ZM_AT_SHARED, 0, ZM_NOCONST)
IND(int, write_shared, ZM_AT_SHARED, 1, const)
IND(MPI_Count, write_shared_c, ZM_AT_SHARED, 1, const)
INB(int, iread_shared, ZM_AT_SHARED, 0, ZM_NOCONST)
INB(MPI_Count, iread_shared_c, ZM_AT_SHARED, 0, ZM_NOCONST)
INB(int, iwrite_shared, ZM_AT_SHARED, 1, const)
INB(MPI_Count, iwrite_shared_c, ZM_AT_SHARED, 1, const)
