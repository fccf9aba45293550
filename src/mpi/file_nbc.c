/*
 * file_nbc.c: non-blocking collective data access (MPI 4.1 section
 * 14.4.5: MPI_File_iread_all, iwrite_all, iread_at_all, iwrite_at_all).
 *
 * No rank waits for the others when it starts one.  The n-th non-blocking
 * collective of each rank on a file meets the others' n-th in a "round"
 * kept in the shared file's list: each rank posts its segments, packed
 * data and request there and returns at once.  The rank that arrives last
 * does the whole two-phase access for everyone (every aggregator domain in
 * turn), unpacks what was read into each rank's buffer (all ranks share
 * the process's memory, and the buffers stay valid until the requests
 * complete), and completes every rank's request.  A rank whose arguments
 * are wrong raises its error and posts an empty piece, so the round still
 * completes: the others' requests then end with an error.  When the
 * file's ranks span processes, a round holds the ranks of one process
 * (file_procs.c), so a wrong argument fails the requests of its own
 * process only.
 */
#include "file_rw.h"

#include <stdlib.h>

/* One non-blocking collective access of all ranks of a file. */
typedef struct round {
    struct round *next;        /* next round of the file */
    uint64_t seq;              /* which collective of each rank it is */
    int arrived;               /* ranks that posted */
    int bad;                   /* some rank's arguments were wrong */
    zm_io_piece_t *pieces;     /* per rank: its segments and data */
    zm_mpi_access_t **acc;     /* per rank: its access (NULL if bad) */
    zm_req_t **req;            /* per rank: its request (NULL if bad) */
} round_t;

static void nbc_lock(zm_io_file_t *io)
{
    while (atomic_flag_test_and_set_explicit(&io->nbc_lock, memory_order_acquire))
        zm_arch_cpu_relax();
}

static void nbc_unlock(zm_io_file_t *io)
{
    atomic_flag_clear_explicit(&io->nbc_lock, memory_order_release);
}

static round_t *round_new(uint64_t seq, int n)
{
    round_t *r = calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    r->seq = seq;
    r->pieces = calloc((size_t)n, sizeof(*r->pieces));
    r->acc = calloc((size_t)n, sizeof(*r->acc));
    r->req = calloc((size_t)n, sizeof(*r->req));
    if (!r->pieces || !r->acc || !r->req) {
        free(r->pieces);
        free(r->acc);
        free(r->req);
        free(r);
        return NULL;
    }
    return r;
}

/* Post the caller's part of its next round; returns the round if the
 * caller is the last to arrive (it is then off the list), NULL otherwise.
 * *nomem is set if the round could not be made. */
static round_t *arrive(struct zmpi_file *fh, zm_mpi_access_t *acc, zm_req_t *req, int *nomem)
{
    zm_io_file_t *io = fh->io;
    uint64_t seq = fh->nbc_seq++;
    round_t *mine = NULL, **link;
    *nomem = 0;
    nbc_lock(io);
    for (link = (round_t **)&io->nbc_rounds; *link; link = &(*link)->next)
        if ((*link)->seq == seq)
            break;
    if (!*link) {
        *link = round_new(seq, fh->lsize);
        if (!*link) {
            nbc_unlock(io);
            *nomem = 1;
            return NULL;
        }
    }
    round_t *r = *link;
    if (acc) {
        r->acc[fh->lrank] = acc;
        r->req[fh->lrank] = req;
        r->pieces[fh->lrank] = (zm_io_piece_t){ acc->segs.v, acc->segs.n, acc->data };
    } else {
        r->bad = 1;
    }
    if (++r->arrived == fh->lsize) {
        *link = r->next;
        mine = r;
    }
    nbc_unlock(io);
    return mine;
}

/* The accessed region [lo, hi) of a round. */
static void region(const round_t *r, int n, int64_t *lo, int64_t *hi)
{
    *lo = INT64_MAX;
    *hi = 0;
    for (int i = 0; i < n; i++) {
        const zm_io_piece_t *p = &r->pieces[i];
        if (p->nsegs == 0)
            continue;
        if (p->segs[0].off < *lo)
            *lo = p->segs[0].off;
        int64_t e = p->segs[p->nsegs - 1].off + (int64_t)p->segs[p->nsegs - 1].len;
        if (e > *hi)
            *hi = e;
    }
    if (*lo > *hi)
        *lo = *hi;
}

/* Run a complete round for everyone and complete every request. */
static void run_round(struct zmpi_file *fh, round_t *r, int write)
{
    zm_io_file_t *io = fh->io;
    int64_t lo, hi, err = 0, size = 0;
    region(r, fh->lsize, &lo, &hi);
    if (!r->bad) {
        int naggr = zm_mpi_file_naggr(io, lo, hi);
        for (int a = 0; a < naggr && err == 0; a++)
            err = write ? zm_io_aggr_write(io, r->pieces, a, naggr, lo, hi, fh->atomic)
                        : zm_io_aggr_read(io, r->pieces, a, naggr, lo, hi, fh->atomic);
        if (!write && err == 0)
            size = zm_arch_file_size(io->fd);
    }
    for (int i = 0; i < fh->lsize; i++) {
        zm_mpi_access_t *acc = r->acc[i];
        zm_req_t *req = r->req[i];
        if (!acc)
            continue;
        int64_t got = (int64_t)acc->bytes;
        if (!write)
            got = size > 0 ? zm_io_segs_avail(&acc->segs, size) : 0;
        int ok = !r->bad && err == 0;
        zm_mpi_file_access_done(acc, !write, ok ? got : 0);
        zm_dt_release(acc->dt);
        free(acc);
        req->st_bytes = ok ? (size_t)got : 0;
        req->st_error = r->bad ? ZM_ERR_ARG : err ? ZM_ERR_OTHER : ZM_OK;
        zm_p2p_req_complete(req);
    }
    free(r->pieces);
    free(r->acc);
    free(r->req);
    free(r);
}

/* A pending request that run_round completes. */
static zm_req_t *pending_request(void)
{
    zm_req_t *req = zm_p2p_req_alloc();
    if (!req)
        return NULL;
    req->kind = ZM_REQ_DONE_ONLY;
    req->comm = MPI_COMM_SELF;
    req->st_source = MPI_ANY_SOURCE;
    req->st_tag = MPI_ANY_TAG;
    req->st_bytes = 0;
    req->st_error = ZM_OK;
    atomic_store(&req->cstate, ZM_REQ_PENDING);
    return req;
}

/* Check and prepare the caller's access; NULL after raising the error
 * (the caller then posts an empty piece). */
static zm_mpi_access_t *start_access(const char *fn, struct zmpi_file *fh, int how,
                                     MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype dt,
                                     int write, int *rc)
{
    *rc = zm_mpi_file_access_check(fh, fn, buf, count, dt, write, how, offset);
    if (*rc != MPI_SUCCESS)
        return NULL;
    zm_mpi_access_t *a = malloc(sizeof(*a));
    if (!a) {
        *rc = zm_mpi_file_error(fh, MPI_ERR_NO_MEM, fn, "out of memory");
        return NULL;
    }
    MPI_Offset pos = how == ZM_AT_EXPLICIT ? offset : fh->fp;
    *rc = zm_mpi_file_access_prepare(fh, fn, buf, count, dt, pos, write, a);
    if (*rc != MPI_SUCCESS) {
        free(a);
        return NULL;
    }
    zm_dt_retain(dt);
    if (how == ZM_AT_INDIVIDUAL)
        fh->fp = pos + (MPI_Offset)(dt->size / fh->etype->size) * count;
    return a;
}

static int nbc_call(const char *fn, MPI_File fh, int how, MPI_Offset offset, void *buf,
                    MPI_Count count, MPI_Datatype dt, int write, MPI_Request *request)
{
    ENTER_FILE(fn, fh);
    if (!request)
        return zm_mpi_file_error(fh, MPI_ERR_ARG, fn, "(request=NULL): invalid argument");
    *request = MPI_REQUEST_NULL;
    zm_mpi_access_t *a = start_access(fn, fh, how, offset, buf, count, dt, write, &rc);
    zm_req_t *req = a ? pending_request() : NULL;
    if (a && !req) {
        zm_mpi_file_access_done(a, 0, 0);
        zm_dt_release(dt);
        free(a);
        a = NULL;
        rc = zm_mpi_file_error(fh, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    int nomem;
    round_t *r = arrive(fh, a, req, &nomem);
    if (nomem)
        return zm_mpi_file_error(fh, MPI_ERR_NO_MEM, fn, "out of memory");
    if (r)
        run_round(fh, r, write);
    if (rc != MPI_SUCCESS)
        return rc;
    *request = req;
    return MPI_SUCCESS;
}

int PMPI_File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                        MPI_Request *request)
{
    return nbc_call("MPI_File_iread_all", fh, ZM_AT_INDIVIDUAL, 0, buf, count, datatype, 0,
                    request);
}
ZM_WEAK(File_iread_all)

int PMPI_File_iwrite_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                         MPI_Request *request)
{
    return nbc_call("MPI_File_iwrite_all", fh, ZM_AT_INDIVIDUAL, 0, (void *)buf, count,
                    datatype, 1, request);
}
ZM_WEAK(File_iwrite_all)

int PMPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,
                           MPI_Datatype datatype, MPI_Request *request)
{
    return nbc_call("MPI_File_iread_at_all", fh, ZM_AT_EXPLICIT, offset, buf, count, datatype,
                    0, request);
}
ZM_WEAK(File_iread_at_all)

int PMPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                            MPI_Datatype datatype, MPI_Request *request)
{
    return nbc_call("MPI_File_iwrite_at_all", fh, ZM_AT_EXPLICIT, offset, (void *)buf, count,
                    datatype, 1, request);
}
ZM_WEAK(File_iwrite_at_all)

/* The large-count forms. */
int PMPI_File_iread_all_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                          MPI_Request *request)
{
    return nbc_call("MPI_File_iread_all_c", fh, ZM_AT_INDIVIDUAL, 0, buf, count, datatype, 0,
                    request);
}
ZM_WEAK(File_iread_all_c)

int PMPI_File_iwrite_all_c(MPI_File fh, const void *buf, MPI_Count count,
                           MPI_Datatype datatype, MPI_Request *request)
{
    return nbc_call("MPI_File_iwrite_all_c", fh, ZM_AT_INDIVIDUAL, 0, (void *)buf, count,
                    datatype, 1, request);
}
ZM_WEAK(File_iwrite_all_c)

int PMPI_File_iread_at_all_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Request *request)
{
    return nbc_call("MPI_File_iread_at_all_c", fh, ZM_AT_EXPLICIT, offset, buf, count,
                    datatype, 0, request);
}
ZM_WEAK(File_iread_at_all_c)

int PMPI_File_iwrite_at_all_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                              MPI_Datatype datatype, MPI_Request *request)
{
    return nbc_call("MPI_File_iwrite_at_all_c", fh, ZM_AT_EXPLICIT, offset, (void *)buf, count,
                    datatype, 1, request);
}
ZM_WEAK(File_iwrite_at_all_c)
