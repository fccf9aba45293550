/*
 * file_coll.c: collective MPI-IO data access (MPI 4.1 sections 14.4.2 to
 * 14.4.5): the _all forms, the ordered shared-pointer forms and the split
 * collectives.
 *
 * Two-phase I/O inside the process: every rank posts its segments and
 * packed data in the shared file's table; an allreduce then tells all
 * ranks that every piece is posted, the accessed region [lo, hi) and
 * whether any rank's arguments were wrong; the first cb_nodes ranks
 * aggregate one domain of the region each (src/io/io_xfer.c), and a last
 * allreduce gives everyone the aggregators' result, after which the
 * pieces may go.  When the file's ranks span processes, the posting is
 * the first phase of two-phase I/O across processes: each process's first
 * rank then exchanges the pieces with the other processes' and the
 * aggregators write or read one contiguous domain of the job's region
 * each (file_xagg.c), unless romio_cb_write / romio_cb_read disable it,
 * in which case every rank moves its own segments.  A rank with bad
 * arguments still takes part in the allreduces, so the others report an
 * error instead of waiting forever.
 */
#include "file_rw.h"

#include <stdlib.h>

int zm_mpi_file_naggr(const zm_io_file_t *io, int64_t lo, int64_t hi)
{
    int64_t n = (hi - lo + ZM_FILE_MIN_DOMAIN - 1) / ZM_FILE_MIN_DOMAIN;
    if (n > io->cb_nodes)
        n = io->cb_nodes;
    return n < 1 ? 1 : (int)n;
}

/* Phase two of a collective access whose pieces are posted: aggregate,
 * or let each rank move its own segments when collective buffering is
 * disabled.  Returns 0 or -errno (this rank's part). */
static int64_t phase_two(struct zmpi_file *fh, zm_mpi_access_t *a, int write, int64_t lo,
                         int64_t hi)
{
    zm_io_file_t *io = fh->io;
    if (!(write ? io->cb_write : io->cb_read)) {
        int64_t r = write ? zm_io_write_segs(io, &a->segs, a->data, fh->atomic)
                          : zm_io_read_segs(io, &a->segs, a->data, fh->atomic);
        return r < 0 ? r : 0;
    }
    /* No rank accesses anything (the region is then empty, lo > hi). */
    if (hi <= lo)
        return 0;
    /* Aggregators are spread over the ranks (rank a * size / naggr for
     * domain a): ranks sit on workers in blocks, so that puts them on
     * different workers. */
    int naggr = zm_mpi_file_naggr(io, lo, hi), dom;
    for (dom = 0; dom < naggr; dom++)
        if ((int)((int64_t)dom * fh->lsize / naggr) == fh->lrank)
            break;
    if (dom == naggr)
        return 0;
    if (write)
        return zm_io_aggr_write(io, io->pieces, dom, naggr, lo, hi, fh->atomic);
    return zm_io_aggr_read(io, io->pieces, dom, naggr, lo, hi, fh->atomic);
}

/* How a collective access on a file that spans processes aggregates. */
struct xplan {
    int on;          /* across processes (file_xagg.c) */
    int64_t cbsize;  /* window bytes */
    int64_t nodes;   /* most aggregating processes */
};

/* Agree job-wide on the error flag r[0], the region [-r[1], r[2]) and
 * whether and how to aggregate across processes: only if every process
 * has collective buffering on for this direction (romio_cb_write /
 * romio_cb_read), with the smallest cb_buffer_size and cb_nodes of any
 * process, so that all leaders plan the same exchange. */
static void job_plan(struct zmpi_file *fh, int write, int64_t r[3], struct xplan *x)
{
    zm_io_file_t *io = fh->io;
    int on = write ? io->cb_write : io->cb_read;
    int64_t v[6] = { r[0], r[1], r[2], !on, -io->cb_buffer_size,
                     io->cb_nodes_hint > 0 ? -(int64_t)io->cb_nodes_hint : -INT64_MAX }, g[6];
    PMPI_Allreduce(v, g, 6, MPI_INT64_T, MPI_MAX, fh->comm);
    r[0] = g[0];
    r[1] = g[1];
    r[2] = g[2];
    x->on = !g[3] && -g[1] < g[2];
    x->cbsize = -g[4];
    x->nodes = -g[5];
}

/* Post the calling rank's access `a` (NULL: its arguments were wrong) in
 * its slot p of the file's table, and fill v with what the ranks reduce:
 * the error flag and the accessed region as { -lo, hi }. */
static void post(zm_io_piece_t *p, const zm_mpi_access_t *a, int64_t v[3])
{
    v[0] = a == NULL;
    v[1] = v[2] = -INT64_MAX;
    if (!a) {
        *p = (zm_io_piece_t){ 0 };
        return;
    }
    *p = (zm_io_piece_t){ a->segs.v, a->segs.n, a->data };
    if (a->segs.n) {
        v[1] = -a->segs.v[0].off;
        v[2] = a->segs.v[a->segs.n - 1].off + (int64_t)a->segs.v[a->segs.n - 1].len;
    }
}

/* The collective access of every rank at its position `pos` (etypes),
 * after the arguments were checked locally with result `argrc`.  Returns
 * MPI_SUCCESS or the raised error; *got is the bytes moved. */
static int coll_access(struct zmpi_file *fh, const char *fn, void *buf, MPI_Count count,
                       MPI_Datatype dt, MPI_Offset pos, int write, int argrc, int64_t *got)
{
    zm_mpi_access_t a;
    int rc = argrc;
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_file_access_prepare(fh, fn, buf, count, dt, pos, write, &a);
    zm_io_piece_t *p = &fh->io->pieces[fh->lrank];
    int64_t v[3], r[3];
    post(p, rc == MPI_SUCCESS ? &a : NULL, v);
    /* The region of the process's ranks (a wrong argument anywhere fails
     * the call everywhere), then across processes the job's.  Pinned, the
     * ranks that wait here for the last one are woken on their own workers
     * instead of joining the waker's (a hand-off to a sleeping worker
     * otherwise moves them, src/ult/ult.c): the aggregators of phase two
     * then run on different workers, since an aggregator writes for a
     * long time without a switch, during which no idle worker can take a
     * rank from its worker. */
    zm_ult_pin();
    PMPI_Allreduce(v, r, 3, MPI_INT64_T, MPI_MAX, fh->lcomm);
    zm_ult_unpin();
    struct xplan x = { 0 };
    if (fh->procs)
        job_plan(fh, write, r, &x);
    if (r[0]) {
        if (rc != MPI_SUCCESS)
            return rc;
        zm_mpi_file_access_done(&a, 0, 0);
        return zm_mpi_file_error(fh, MPI_ERR_ARG, fn, "another rank of the collective call "
                                 "gave invalid arguments");
    }
    int64_t err, gerr;
    if (x.on)
        err = fh->lrank == 0 ? zm_mpi_file_xaggr(fh, write, -r[1], r[2], x.cbsize, x.nodes) : 0;
    else
        err = phase_two(fh, &a, write, -r[1], r[2]);
    /* The smallest -errno of all aggregators, and the barrier after which
     * no aggregator reads a piece any more. */
    PMPI_Allreduce(&err, &gerr, 1, MPI_INT64_T, MPI_MIN, fh->comm);
    *p = (zm_io_piece_t){ 0 };
    int64_t n = (int64_t)a.bytes;
    if (gerr == 0 && !write) {
        int64_t size = zm_arch_file_size(fh->io->fd);
        n = size < 0 ? 0 : zm_io_segs_avail(&a.segs, size);
    }
    zm_mpi_file_access_done(&a, !write, gerr == 0 ? n : 0);
    if (gerr != 0)
        return zm_mpi_file_error(fh, zm_mpi_file_errclass((int)gerr), fn, "%s: %s",
                                 write ? "collective write" : "collective read",
                                 zm_mpi_file_reason((int)gerr));
    *got = n;
    return MPI_SUCCESS;
}

/* Body of the explicit-offset and individual-pointer _all calls. */
static int coll_call(const char *fn, MPI_File fh, int how, MPI_Offset offset, void *buf,
                     MPI_Count count, MPI_Datatype dt, int write, MPI_Status *status)
{
    ENTER_FILE(fn, fh);
    rc = zm_mpi_file_access_check(fh, fn, buf, count, dt, write, how, offset);
    MPI_Offset pos = how == ZM_AT_EXPLICIT ? offset : fh->fp;
    int64_t got = 0;
    rc = coll_access(fh, fn, buf, count, dt, pos, write, rc, &got);
    if (rc != MPI_SUCCESS)
        return rc;
    if (how == ZM_AT_INDIVIDUAL)
        fh->fp = pos + got / (int64_t)fh->etype->size;
    zm_mpi_file_status(status, got);
    return MPI_SUCCESS;
}

/* Body of MPI_File_read_ordered / write_ordered: the ranks' pieces go one
 * after the other in rank order from the shared pointer, which ends past
 * all of them. */
static int ordered_call(const char *fn, MPI_File fh, void *buf, MPI_Count count, MPI_Datatype dt,
                        int write, MPI_Status *status)
{
    ENTER_FILE(fn, fh);
    rc = zm_mpi_file_access_check(fh, fn, buf, count, dt, write, ZM_AT_SHARED, 0);
    int64_t n = rc == MPI_SUCCESS ? (int64_t)(dt->size / fh->etype->size) * count : 0;
    int64_t before = 0, total = 0, base = 0;
    PMPI_Exscan(&n, &before, 1, MPI_INT64_T, MPI_SUM, fh->comm);
    if (fh->rank == 0)
        before = 0;
    PMPI_Allreduce(&n, &total, 1, MPI_INT64_T, MPI_SUM, fh->comm);
    /* Rank 0 moves the shared pointer before it broadcasts the old value,
     * so no rank returns before the pointer is past this access. */
    if (fh->rank == 0)
        base = zm_mpi_file_sp_add(fh, total);
    PMPI_Bcast(&base, 1, MPI_INT64_T, 0, fh->comm);
    int64_t got = 0;
    rc = coll_access(fh, fn, buf, count, dt, base + before, write, rc, &got);
    if (rc != MPI_SUCCESS)
        return rc;
    zm_mpi_file_status(status, got);
    return MPI_SUCCESS;
}

#define COLL_AT(CountT, Name, write, Const) \
    ZM_FILE_API_AT(coll_call, CountT, Name, write, Const, MPI_Status *)
#define COLL(CountT, Name, write, Const) \
    ZM_FILE_API(coll_call, CountT, Name, ZM_AT_INDIVIDUAL, write, Const, MPI_Status *)

COLL_AT(int, read_at_all, 0, ZM_NOCONST)
COLL_AT(MPI_Count, read_at_all_c, 0, ZM_NOCONST)
COLL_AT(int, write_at_all, 1, const)
COLL_AT(MPI_Count, write_at_all_c, 1, const)
COLL(int, read_all, 0, ZM_NOCONST)
COLL(MPI_Count, read_all_c, 0, ZM_NOCONST)
COLL(int, write_all, 1, const)
COLL(MPI_Count, write_all_c, 1, const)

int PMPI_File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                           MPI_Status *status)
{
    return ordered_call("MPI_File_read_ordered", fh, buf, count, datatype, 0, status);
}
ZM_WEAK(File_read_ordered)

int PMPI_File_write_ordered(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                            MPI_Status *status)
{
    return ordered_call("MPI_File_write_ordered", fh, (void *)buf, count, datatype, 1, status);
}
ZM_WEAK(File_write_ordered)

int PMPI_File_read_ordered_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Status *status)
{
    return ordered_call("MPI_File_read_ordered_c", fh, buf, count, datatype, 0, status);
}
ZM_WEAK(File_read_ordered_c)

int PMPI_File_write_ordered_c(MPI_File fh, const void *buf, MPI_Count count,
                              MPI_Datatype datatype, MPI_Status *status)
{
    return ordered_call("MPI_File_write_ordered_c", fh, (void *)buf, count, datatype, 1,
                        status);
}
ZM_WEAK(File_write_ordered_c)

/* ---- Split collectives ---------------------------------------------------- */

/* _begin: refuse a second open split access on the handle, then run the
 * whole collective access and keep its status for _end. */
static int split_begin(const char *fn, MPI_File fh, int kind, MPI_Offset offset, void *buf,
                       MPI_Count count, MPI_Datatype dt)
{
    ENTER_FILE(fn, fh);
    if (fh->split)
        return zm_mpi_file_error(fh, MPI_ERR_OTHER, fn, "another split collective access is "
                                 "open on this file (call its _end first)");
    int write = kind == ZM_SPLIT_WRITE_AT || kind == ZM_SPLIT_WRITE ||
                kind == ZM_SPLIT_WRITE_ORDERED;
    MPI_Status st;
    if (kind == ZM_SPLIT_READ_ORDERED || kind == ZM_SPLIT_WRITE_ORDERED)
        rc = ordered_call(fn, fh, buf, count, dt, write, &st);
    else
        rc = coll_call(fn, fh, kind == ZM_SPLIT_READ_AT || kind == ZM_SPLIT_WRITE_AT ?
                       ZM_AT_EXPLICIT : ZM_AT_INDIVIDUAL, offset, buf, count, dt, write, &st);
    if (rc != MPI_SUCCESS)
        return rc;
    fh->split = kind;
    fh->split_status = st;
    return MPI_SUCCESS;
}

static int split_end(const char *fn, MPI_File fh, int kind, MPI_Status *status)
{
    ENTER_FILE(fn, fh);
    if (fh->split != kind)
        return zm_mpi_file_error(fh, MPI_ERR_OTHER, fn, "no matching _begin call is open on "
                                 "this file");
    fh->split = ZM_SPLIT_NONE;
    if (status != MPI_STATUS_IGNORE && status)
        *status = fh->split_status;
    return MPI_SUCCESS;
}

/* A _begin call with count type CountT, named MPI_File_<Name><Sfx> (Sfx
 * _begin or, for the large-count form, _begin_c), at an explicit offset
 * (SPLIT_BEGIN_AT) or at the file's pointer (SPLIT_BEGIN). */
#define SPLIT_BEGIN_AT(CountT, Name, Sfx, kind, Const)                                           \
    int PMPI_File_##Name##Sfx(MPI_File fh, MPI_Offset offset, Const void *buf, CountT count,     \
                              MPI_Datatype datatype)                                             \
    {                                                                                            \
        return split_begin("MPI_File_" #Name #Sfx, fh, kind, offset, (void *)buf, count,         \
                           datatype);                                                            \
    }                                                                                            \
    ZM_WEAK(File_##Name##Sfx)

#define SPLIT_BEGIN(CountT, Name, Sfx, kind, Const)                                              \
    int PMPI_File_##Name##Sfx(MPI_File fh, Const void *buf, CountT count,                        \
                              MPI_Datatype datatype)                                             \
    {                                                                                            \
        return split_begin("MPI_File_" #Name #Sfx, fh, kind, 0, (void *)buf, count, datatype);   \
    }                                                                                            \
    ZM_WEAK(File_##Name##Sfx)

/* The _end call, one for both counts. */
#define SPLIT_END(Name, kind, Const)                                                             \
    int PMPI_File_##Name##_end(MPI_File fh, Const void *buf, MPI_Status *status)                 \
    {                                                                                            \
        (void)buf;                                                                               \
        return split_end("MPI_File_" #Name "_end", fh, kind, status);                            \
    }                                                                                            \
    ZM_WEAK(File_##Name##_end)

#define SPLIT_AT(Name, kind, Const)                                                              \
    SPLIT_BEGIN_AT(int, Name, _begin, kind, Const)                                               \
    SPLIT_BEGIN_AT(MPI_Count, Name, _begin_c, kind, Const)                                       \
    SPLIT_END(Name, kind, Const)

#define SPLIT(Name, kind, Const)                                                                 \
    SPLIT_BEGIN(int, Name, _begin, kind, Const)                                                  \
    SPLIT_BEGIN(MPI_Count, Name, _begin_c, kind, Const)                                          \
    SPLIT_END(Name, kind, Const)

SPLIT_AT(read_at_all, ZM_SPLIT_READ_AT, ZM_NOCONST)
SPLIT_AT(write_at_all, ZM_SPLIT_WRITE_AT, const)
SPLIT(read_all, ZM_SPLIT_READ, ZM_NOCONST)
SPLIT(write_all, ZM_SPLIT_WRITE, const)
SPLIT(read_ordered, ZM_SPLIT_READ_ORDERED, ZM_NOCONST)
SPLIT(write_ordered, ZM_SPLIT_WRITE_ORDERED, const)
