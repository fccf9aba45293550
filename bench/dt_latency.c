/*
 * dt_latency.c: ping-pong latency of messages described by derived
 * datatypes on both sides, between ranks 0 and 1.
 *
 * Each kernel is a communication pattern of a well-known application,
 * written here from its description (no code of the applications):
 *
 *   milc     MILC su3_zd: the z = 0 face of a 4D lattice whose sites hold
 *            four 3x3 complex double matrices (links); the face carries the
 *            z link of every site.  complex -> matrix -> x row -> xy plane
 *            -> t slices, built with contiguous types and nested hvectors.
 *   wrf      WRF y_vec: the y halo (2 rows, interior x, all levels) of four
 *            3D fields stored (x, level, y) with x fastest, sent as one
 *            struct whose members alternate subarray types and nested
 *            vectors (vector over levels inside an hvector over rows).
 *   mg       NAS MG z-face: the interior of one z plane of a 3D grid with
 *            z fastest, a vector of vectors with one double per block.
 *   stencil  3D 7-point stencil: all six faces of an (n+2)^3 double array
 *            with a ghost layer, each face a subarray type, six messages
 *            each way per round (interior faces to the ghost faces).
 *   vector   a simple vector of doubles, stride twice the block, blocks of
 *            8 B to 16 KiB and totals of 4 KiB to 16 MiB.
 *
 * Both ranks send and receive with derived types.  For every problem size
 * the data is checked against reference layouts described without MPI
 * (see dt_common.h): first the byte order of each message on its own (sent
 * with the type and received as bytes, then back), then after the warm-up
 * and after the timed loop every byte each receiver should have written,
 * and that no byte outside was written.  Printed per size: the series, the payload in bytes, half the
 * average round trip in microseconds and the problem shape.
 */
#include "dt_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

/* The most messages one round sends each way (the stencil's six faces). */
#define MAX_MSGS 6

/* Payloads run from about 1 KiB to about 16 MiB by default. */
#define DEFAULT_MIN ((size_t)1 << 10)
#define DEFAULT_MAX ((size_t)16 << 20)

/* Small payloads run 2000 round trips; from 32 KiB on the count falls so
 * that each size moves about 64 MiB per direction, but never below 5. */
static const struct bench_policy dt_policy = {
    .max_iters = 2000,
    .min_iters = 5,
    .byte_budget = 64.0 * 1024 * 1024,
    .bytes_per_iter = 1.0,
};

/* The timed loop of one size is also cut to about this many seconds (times
 * -x) and the warm-up to a fifth of it, judged from the first round trip
 * and the warm-up, but at least MIN_TIMED round trips are timed: some MPIs
 * take milliseconds per round trip for small strided payloads, which would
 * otherwise make one run last many minutes. */
#define SIZE_SECONDS 0.5
#define MIN_TIMED 3

/* One message of a round: its layout and MPI type on each side. */
struct dt_msg {
    struct dt_layout send; /* Reference layout in the send buffer. */
    struct dt_layout recv; /* Reference layout in the receive buffer. */
    size_t sptr, rptr;     /* Byte offsets passed to MPI as the buffer. */
    MPI_Datatype stype, rtype;
};

/* One problem size of one kernel. */
struct dt_case {
    char series[24];  /* The kernel, or vec-b<block> for the vector. */
    char shape[64];   /* The problem dimensions, for the output. */
    size_t buf_bytes; /* Bytes of each of the send and receive buffers. */
    long dims[4];     /* Kernel parameters used by its make_types. */
    int nmsgs;
    struct dt_msg msg[MAX_MSGS];
};

/* A kernel: plan fills the layouts and sizes for parameter n (no MPI
 * calls); make_types creates and commits the MPI types of a planned case. */
struct kernel {
    const char *name;
    long first_n;
    void (*plan)(long n, struct dt_case *c);
    void (*make_types)(struct dt_case *c);
};

/* Returns the payload of one round in one direction. */
static size_t case_payload(const struct dt_case *c)
{
    size_t bytes = 0;
    for (int m = 0; m < c->nmsgs; m++)
        bytes += dt_layout_bytes(&c->msg[m].send);
    return bytes;
}

/* Commits *t after building it from parts, then frees the parts. */
static void commit_freeing(MPI_Datatype *t, MPI_Datatype *parts, int nparts)
{
    MPI_Type_commit(t);
    for (int i = 0; i < nparts; i++)
        MPI_Type_free(&parts[i]);
}

/* --- MILC su3_zd ------------------------------------------------------ */

#define SU3_BYTES (18 * sizeof(double))   /* A 3x3 complex matrix. */
#define MILC_LINKS 4                      /* Matrices per site. */
#define MILC_SITE (MILC_LINKS * SU3_BYTES)
#define MILC_ZLINK 2                      /* The link sent: z. */
#define MILC_NZ 2                         /* Planes in z: sent, received. */

/* Lattice n x n x 2 x n (x fastest, then y, z, t). */
static void milc_plan(long n, struct dt_case *c)
{
    size_t x = (size_t)n, plane = x * x * MILC_SITE;
    struct dt_msg *m = &c->msg[0];
    c->nmsgs = 1;
    c->buf_bytes = plane * MILC_NZ * x;
    c->dims[0] = n;
    snprintf(c->shape, sizeof(c->shape), "%ldx%ldx%dx%ld", n, n, MILC_NZ,
             n);
    for (int side = 0; side < 2; side++) {
        /* The sender's plane z = 0 lands in the receiver's plane z = 1. */
        struct dt_layout l =
            dt_layout_block(side * plane + MILC_ZLINK * SU3_BYTES, SU3_BYTES);
        dt_layout_loop(&l, x, MILC_SITE);
        dt_layout_loop(&l, x, x * MILC_SITE);
        dt_layout_loop(&l, x, MILC_NZ * plane);
        if (side == 0)
            m->send = l;
        else
            m->recv = l;
    }
    m->sptr = m->send.base;
    m->rptr = m->recv.base;
}

static void milc_make_types(struct dt_case *c)
{
    int n = (int)c->dims[0];
    MPI_Aint site = MILC_SITE, plane = (MPI_Aint)n * n * MILC_SITE;
    MPI_Datatype parts[4], face;
    MPI_Type_contiguous(2, MPI_DOUBLE, &parts[0]);        /* complex */
    MPI_Type_contiguous(9, parts[0], &parts[1]);          /* matrix */
    MPI_Type_create_hvector(n, 1, site, parts[1], &parts[2]);
    MPI_Type_create_hvector(n, 1, n * site, parts[2], &parts[3]);
    MPI_Type_create_hvector(n, 1, MILC_NZ * plane, parts[3], &face);
    commit_freeing(&face, parts, 4);
    c->msg[0].stype = c->msg[0].rtype = face;
}

/* --- WRF y_vec -------------------------------------------------------- */

#define WRF_FIELDS 4
#define WRF_HALO 2
#define WRF_NJ 8 /* Interior rows in y. */

/* The offset of field f: fields are separate arrays, 64 bytes apart. */
static size_t wrf_field_space(size_t ni, size_t nk)
{
    return (ni + 2 * WRF_HALO) * nk * (WRF_NJ + 2 * WRF_HALO) *
           sizeof(double) + 64;
}

/* Halo rows j0 .. j0 + WRF_HALO - 1 of every field, interior x. */
static struct dt_layout wrf_layout(size_t ni, size_t nk, size_t j0)
{
    size_t row = (ni + 2 * WRF_HALO) * sizeof(double);
    struct dt_layout l = dt_layout_block(
        j0 * nk * row + WRF_HALO * sizeof(double), ni * sizeof(double));
    dt_layout_loop(&l, nk, row);
    dt_layout_loop(&l, WRF_HALO, nk * row);
    dt_layout_loop(&l, WRF_FIELDS, wrf_field_space(ni, nk));
    return l;
}

/* Fields of n (x) x n (levels) x WRF_NJ (y) plus halos. */
static void wrf_plan(long n, struct dt_case *c)
{
    size_t ni = (size_t)n, nk = (size_t)n;
    struct dt_msg *m = &c->msg[0];
    c->nmsgs = 1;
    c->buf_bytes = WRF_FIELDS * wrf_field_space(ni, nk);
    c->dims[0] = n;
    snprintf(c->shape, sizeof(c->shape), "%dx(%ldx%ldx%d)", WRF_FIELDS, n,
             n, WRF_NJ);
    /* The first interior rows go to the receiver's upper halo rows. */
    m->send = wrf_layout(ni, nk, WRF_HALO);
    m->recv = wrf_layout(ni, nk, WRF_HALO + WRF_NJ);
    m->sptr = m->rptr = 0;
}

/* The struct type of the halo rows starting at row j0 of every field. */
static MPI_Datatype wrf_type(int n, int j0)
{
    int ni = n, nk = n, ri = ni + 2 * WRF_HALO, rj = WRF_NJ + 2 * WRF_HALO;
    MPI_Aint space = (MPI_Aint)wrf_field_space((size_t)ni, (size_t)nk);
    MPI_Aint row = (MPI_Aint)ri * (MPI_Aint)sizeof(double);
    MPI_Datatype fields[WRF_FIELDS], inner[WRF_FIELDS / 2], halo;
    MPI_Aint disps[WRF_FIELDS];
    int blocks[WRF_FIELDS];
    for (int f = 0; f < WRF_FIELDS; f++) {
        blocks[f] = 1;
        disps[f] = f * space;
        if (f % 2 == 0) {
            int sizes[3] = {rj, nk, ri}, sub[3] = {WRF_HALO, nk, ni};
            int starts[3] = {j0, 0, WRF_HALO};
            MPI_Type_create_subarray(3, sizes, sub, starts, MPI_ORDER_C,
                                     MPI_DOUBLE, &fields[f]);
        } else {
            MPI_Type_vector(nk, ni, ri, MPI_DOUBLE, &inner[f / 2]);
            MPI_Type_create_hvector(WRF_HALO, 1, nk * row, inner[f / 2],
                                    &fields[f]);
            disps[f] += j0 * nk * row + WRF_HALO * (MPI_Aint)sizeof(double);
        }
    }
    MPI_Type_create_struct(WRF_FIELDS, blocks, disps, fields, &halo);
    commit_freeing(&halo, fields, WRF_FIELDS);
    for (int i = 0; i < WRF_FIELDS / 2; i++)
        MPI_Type_free(&inner[i]);
    return halo;
}

static void wrf_make_types(struct dt_case *c)
{
    int n = (int)c->dims[0];
    c->msg[0].stype = wrf_type(n, WRF_HALO);
    c->msg[0].rtype = wrf_type(n, WRF_HALO + WRF_NJ);
}

/* --- NAS MG z-face ---------------------------------------------------- */

#define MG_NZ 8 /* Planes in z: a slab, so that big faces fit in memory. */

/* The interior of plane k0 of an n x n x MG_NZ grid, z fastest. */
static struct dt_layout mg_layout(size_t n, size_t k0)
{
    size_t zrow = MG_NZ * sizeof(double);
    struct dt_layout l =
        dt_layout_block((n + 1) * zrow + k0 * sizeof(double), sizeof(double));
    dt_layout_loop(&l, n - 2, zrow);
    dt_layout_loop(&l, n - 2, n * zrow);
    return l;
}

static void mg_plan(long n, struct dt_case *c)
{
    struct dt_msg *m = &c->msg[0];
    c->nmsgs = 1;
    c->buf_bytes = (size_t)n * (size_t)n * MG_NZ * sizeof(double);
    c->dims[0] = n;
    snprintf(c->shape, sizeof(c->shape), "%ldx%ldx%d", n, n, MG_NZ);
    /* The first interior plane goes to the receiver's upper ghost plane. */
    m->send = mg_layout((size_t)n, 1);
    m->recv = mg_layout((size_t)n, MG_NZ - 1);
    m->sptr = m->send.base;
    m->rptr = m->recv.base;
}

static void mg_make_types(struct dt_case *c)
{
    int n = (int)c->dims[0];
    MPI_Aint plane = (MPI_Aint)n * MG_NZ * (MPI_Aint)sizeof(double);
    MPI_Datatype inner, face;
    MPI_Type_vector(n - 2, 1, MG_NZ, MPI_DOUBLE, &inner);
    MPI_Type_create_hvector(n - 2, 1, plane, inner, &face);
    commit_freeing(&face, &inner, 1);
    c->msg[0].stype = c->msg[0].rtype = face;
}

/* --- 3D 7-point stencil ----------------------------------------------- */

/* The face at index idx of dimension d (0 slowest) of an (n+2)^3 array,
 * without edges and corners. */
static struct dt_layout stencil_layout(size_t n, int d, size_t idx)
{
    size_t dn = n + 2, e = sizeof(double);
    size_t start[3] = {1, 1, 1};
    start[d] = idx;
    size_t base = ((start[0] * dn + start[1]) * dn + start[2]) * e;
    struct dt_layout l;
    if (d == 2) {
        l = dt_layout_block(base, e);
        dt_layout_loop(&l, n, dn * e);
    } else {
        l = dt_layout_block(base, n * e);
    }
    dt_layout_loop(&l, n, d == 0 ? dn * e : dn * dn * e);
    return l;
}

/* Message 2d + s carries the low (s = 0) or high (s = 1) interior face of
 * dimension d into the receiver's opposite ghost face. */
static void stencil_plan(long n, struct dt_case *c)
{
    size_t dn = (size_t)n + 2;
    c->nmsgs = 6;
    c->buf_bytes = dn * dn * dn * sizeof(double);
    c->dims[0] = n;
    snprintf(c->shape, sizeof(c->shape), "%ld^3+ghosts", n);
    for (int m = 0; m < 6; m++) {
        int d = m / 2, high = m % 2;
        c->msg[m].send = stencil_layout((size_t)n, d, high ? (size_t)n : 1);
        c->msg[m].recv = stencil_layout((size_t)n, d, high ? 0 : dn - 1);
        c->msg[m].sptr = c->msg[m].rptr = 0;
    }
}

/* The subarray type of the face at index idx of dimension d. */
static MPI_Datatype stencil_type(int n, int d, int idx)
{
    int sizes[3] = {n + 2, n + 2, n + 2}, sub[3] = {n, n, n};
    int starts[3] = {1, 1, 1};
    MPI_Datatype t;
    sub[d] = 1;
    starts[d] = idx;
    MPI_Type_create_subarray(3, sizes, sub, starts, MPI_ORDER_C, MPI_DOUBLE,
                             &t);
    MPI_Type_commit(&t);
    return t;
}

static void stencil_make_types(struct dt_case *c)
{
    int n = (int)c->dims[0];
    for (int m = 0; m < 6; m++) {
        int d = m / 2, high = m % 2;
        c->msg[m].stype = stencil_type(n, d, high ? n : 1);
        c->msg[m].rtype = stencil_type(n, d, high ? 0 : n + 1);
    }
}

/* --- simple vector ---------------------------------------------------- */

/* dims[0] blocks of dims[1] bytes, 2 * dims[1] bytes apart. */
static void vector_plan_blocks(size_t block, size_t count, struct dt_case *c)
{
    struct dt_msg *m = &c->msg[0];
    c->nmsgs = 1;
    c->buf_bytes = 2 * block * count;
    c->dims[0] = (long)count;
    c->dims[1] = (long)block;
    snprintf(c->series, sizeof(c->series), "vec-b%zu", block);
    snprintf(c->shape, sizeof(c->shape), "%zux%zuB/%zuB", count, block,
             2 * block);
    m->send = dt_layout_block(0, block);
    dt_layout_loop(&m->send, count, 2 * block);
    m->recv = m->send;
    m->sptr = m->rptr = 0;
}

static void vector_make_types(struct dt_case *c)
{
    int count = (int)c->dims[0], doubles = (int)(c->dims[1] / 8);
    MPI_Datatype t;
    MPI_Type_vector(count, doubles, 2 * doubles, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    c->msg[0].stype = c->msg[0].rtype = t;
}

/* The kernels swept by problem size; the vector has its own sweep. */
static const struct kernel kernels[] = {
    {"milc", 1, milc_plan, milc_make_types},
    {"wrf", 1, wrf_plan, wrf_make_types},
    {"mg", 3, mg_plan, mg_make_types},
    {"stencil", 1, stencil_plan, stencil_make_types},
};
#define NKERNELS ((int)(sizeof(kernels) / sizeof(kernels[0])))

/* The vector's default block sizes. */
static const size_t vector_blocks[] = {8, 64, 512, 4096, 16384};
#define NVECTOR_BLOCKS ((int)(sizeof(vector_blocks) / sizeof(size_t)))
#define VECTOR_MIN_TOTAL ((size_t)4 << 10)

/* --- running one case ------------------------------------------------- */

/* Sends every message of c from buf to peer. */
static void send_all(const struct dt_case *c, unsigned char *buf, int peer)
{
    MPI_Request reqs[MAX_MSGS];
    if (c->nmsgs == 1) {
        MPI_Send(buf + c->msg[0].sptr, 1, c->msg[0].stype, peer, 0,
                 MPI_COMM_WORLD);
        return;
    }
    for (int m = 0; m < c->nmsgs; m++)
        MPI_Isend(buf + c->msg[m].sptr, 1, c->msg[m].stype, peer, m,
                  MPI_COMM_WORLD, &reqs[m]);
    MPI_Waitall(c->nmsgs, reqs, bench_statuses_ignore());
}

/* Receives every message of c from peer into buf. */
static void recv_all(const struct dt_case *c, unsigned char *buf, int peer)
{
    MPI_Request reqs[MAX_MSGS];
    if (c->nmsgs == 1) {
        MPI_Recv(buf + c->msg[0].rptr, 1, c->msg[0].rtype, peer, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        return;
    }
    for (int m = 0; m < c->nmsgs; m++)
        MPI_Irecv(buf + c->msg[m].rptr, 1, c->msg[m].rtype, peer, m,
                  MPI_COMM_WORLD, &reqs[m]);
    MPI_Waitall(c->nmsgs, reqs, bench_statuses_ignore());
}

/* Runs iters round trips and returns the seconds rank 0 measured.  With
 * several messages rank 0 posts the receives of the reply first, as a
 * halo exchange does. */
static double ping_pong(const struct dt_case *c, unsigned char *sbuf,
                        unsigned char *rbuf, long iters, int rank)
{
    MPI_Request reqs[2 * MAX_MSGS];
    int n = c->nmsgs;
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    for (long i = 0; i < iters; i++) {
        if (rank == 0 && n == 1) {
            send_all(c, sbuf, 1);
            recv_all(c, rbuf, 1);
        } else if (rank == 0) {
            for (int m = 0; m < n; m++)
                MPI_Irecv(rbuf + c->msg[m].rptr, 1, c->msg[m].rtype, 1, m,
                          MPI_COMM_WORLD, &reqs[m]);
            for (int m = 0; m < n; m++)
                MPI_Isend(sbuf + c->msg[m].sptr, 1, c->msg[m].stype, 1, m,
                          MPI_COMM_WORLD, &reqs[n + m]);
            MPI_Waitall(2 * n, reqs, bench_statuses_ignore());
        } else if (rank == 1) {
            recv_all(c, rbuf, 0);
            send_all(c, sbuf, 0);
        }
    }
    return MPI_Wtime() - start;
}

/* Checks the received data of every message of c in rbuf (sent by peer)
 * and that nothing else in rbuf was written; leaves rbuf all DT_FILL. */
static void check_received(const struct dt_case *c, unsigned char *rbuf,
                           int peer, int index)
{
    char what[128];
    snprintf(what, sizeof(what), "dt_latency %s %s", c->series, c->shape);
    for (int m = 0; m < c->nmsgs; m++)
        dt_check(rbuf, &c->msg[m].recv, &c->msg[m].send, dt_seed(peer, index),
                 1, what);
    dt_check_untouched(rbuf, c->buf_bytes, what);
}

/*
 * Checks the order of the bytes in each message independently of the
 * other side's type, which a ping-pong with matching types on both sides
 * cannot do (an engine that permutes both the same way would pass): rank 0
 * sends with its send type and rank 1 receives plain bytes and compares
 * them with the reference order; rank 1 sends those bytes back and rank 0
 * receives them with its receive type and checks its buffer.  Leaves rbuf
 * all DT_FILL on rank 0.
 */
static void check_order(const struct dt_case *c, unsigned char *sbuf,
                        unsigned char *rbuf, int rank, int index)
{
    char what[128];
    snprintf(what, sizeof(what), "dt_latency %s %s (order)", c->series,
             c->shape);
    for (int m = 0; m < c->nmsgs && rank < 2; m++) {
        const struct dt_msg *msg = &c->msg[m];
        size_t bytes = dt_layout_bytes(&msg->send);
        struct dt_layout flat = dt_layout_block(0, bytes);
        if (rank == 0) {
            MPI_Send(sbuf + msg->sptr, 1, msg->stype, 1, m, MPI_COMM_WORLD);
            MPI_Recv(rbuf + msg->rptr, 1, msg->rtype, 1, m, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            dt_check(rbuf, &msg->recv, &msg->send, dt_seed(0, index), 1,
                     what);
            continue;
        }
        unsigned char *flat_buf = bench_alloc(bytes, DT_FILL);
        MPI_Recv(flat_buf, (int)bytes, MPI_BYTE, 0, m, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        dt_check(flat_buf, &flat, &msg->send, dt_seed(0, index), 0, what);
        MPI_Send(flat_buf, (int)bytes, MPI_BYTE, 0, m, MPI_COMM_WORLD);
        free(flat_buf);
    }
    if (rank == 0)
        dt_check_untouched(rbuf, c->buf_bytes, what);
}

/* Checks that MPI sees the types as the reference layouts do (size and a
 * true extent inside the buffer); calls MPI_Abort otherwise. */
static void check_types(const struct dt_case *c)
{
    for (int m = 0; m < c->nmsgs; m++) {
        const struct dt_msg *msg = &c->msg[m];
        int ssize = -1, rsize = -1;
        MPI_Aint lb, extent;
        MPI_Type_size(msg->stype, &ssize);
        MPI_Type_size(msg->rtype, &rsize);
        MPI_Type_get_true_extent(msg->rtype, &lb, &extent);
        if ((size_t)ssize != dt_layout_bytes(&msg->send) ||
            (size_t)rsize != dt_layout_bytes(&msg->recv) ||
            (size_t)lb + msg->rptr != msg->recv.base ||
            (size_t)(lb + extent) + msg->rptr != dt_layout_end(&msg->recv)) {
            fprintf(stderr, "dt_latency %s %s: message %d: MPI type size %d/"
                    "%d or true extent [%ld, +%ld) differ from the layout\n",
                    c->series, c->shape, m, ssize, rsize, (long)lb,
                    (long)extent);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
    }
}

/* Frees the types of c. */
static void free_types(struct dt_case *c)
{
    for (int m = 0; m < c->nmsgs; m++) {
        if (c->msg[m].rtype != c->msg[m].stype)
            MPI_Type_free(&c->msg[m].rtype);
        MPI_Type_free(&c->msg[m].stype);
    }
}

/* Returns count cut to what fits in seconds when one round trip takes
 * per_iter seconds, but not below floor (or count if smaller).  Only rank
 * 0's value counts; the caller broadcasts it. */
static long fit_iters(long count, double per_iter, double seconds,
                      long floor)
{
    if (floor > count)
        floor = count;
    if (!(per_iter > 0.0) || seconds / per_iter >= (double)count)
        return count;
    long fit = (long)(seconds / per_iter);
    return fit > floor ? fit : floor;
}

/*
 * Runs the warm-up of a case and returns the number of timed round trips:
 * one round trip first, then the rest of it.warmup cut to a fifth of
 * SIZE_SECONDS * factor, and it.timed cut to SIZE_SECONDS * factor, both
 * judged from rank 0's clock and broadcast so that both ranks agree.
 */
static long warm_up(const struct dt_case *c, unsigned char *sbuf,
                    unsigned char *rbuf, struct bench_iters it, int rank,
                    double factor)
{
    double first = ping_pong(c, sbuf, rbuf, 1, rank);
    long more = fit_iters(it.warmup - 1, first, SIZE_SECONDS * factor / 5,
                          0);
    MPI_Bcast(&more, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    double rest = ping_pong(c, sbuf, rbuf, more, rank);
    double per_iter = more > 0 ? rest / (double)more : first;
    long timed = fit_iters(it.timed, per_iter, SIZE_SECONDS * factor,
                           MIN_TIMED);
    MPI_Bcast(&timed, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    return timed;
}

static void run_floor(const struct dt_case *c, long iters, int rank);

/* Measures one planned case: types, buffers, warm-up, check, timed run,
 * check, and the output line on rank 0.  Ranks above 1 only take part in
 * the barriers. */
static void run_case(struct dt_case *c, void (*make_types)(struct dt_case *),
                     int index, int rank, const struct dt_opts *o)
{
    int active = rank < 2, peer = rank == 0 ? 1 : 0;
    size_t payload = case_payload(c);
    double factor = o->common.iter_factor;
    struct bench_iters it = bench_iters_for(&dt_policy, payload, factor);
    unsigned char *sbuf = NULL, *rbuf = NULL;

    if (o->floor) {
        run_floor(c, it.timed, rank);
        return;
    }

    make_types(c);
    if (active) {
        check_types(c);
        sbuf = bench_alloc(c->buf_bytes, 0xa5);
        rbuf = bench_alloc(c->buf_bytes, DT_FILL);
        for (int m = 0; m < c->nmsgs; m++)
            dt_fill(sbuf, &c->msg[m].send, dt_seed(rank, index));
    }
    check_order(c, sbuf, rbuf, rank, index);
    it.timed = warm_up(c, sbuf, rbuf, it, rank, factor);
    if (active)
        check_received(c, rbuf, peer, index);
    double elapsed = ping_pong(c, sbuf, rbuf, it.timed, rank);
    if (active)
        check_received(c, rbuf, peer, index);
    if (rank == 0) {
        double usec = elapsed * 1e6 / (2.0 * (double)it.timed);
        printf("%-10s %12zu %14.3f  %s\n", c->series, payload, usec,
               c->shape);
        fflush(stdout);
    }
    free(sbuf);
    free(rbuf);
    free_types(c);
}

/* Prints the memory floor of case c (dt_floor.c) on rank 0, measured
 * with at most `iters` round trips per trial. */
static void run_floor(const struct dt_case *c, long iters, int rank)
{
    struct dt_layout send[MAX_MSGS], recv[MAX_MSGS];
    if (rank != 0)
        return;
    for (int m = 0; m < c->nmsgs; m++) {
        send[m] = c->msg[m].send;
        recv[m] = c->msg[m].recv;
    }
    /* Each trial gets a fifth of SIZE_SECONDS: the floor runs up to nine
     * timed trials per case (three per kind of store). */
    double usec = dt_floor_usec(send, recv, c->nmsgs, c->buf_bytes, iters, SIZE_SECONDS / 5);
    printf("%-10s %12zu %14.3f  %s\n", c->series, case_payload(c), usec,
           c->shape);
    fflush(stdout);
}

/* Returns how far apart two payloads are, as a factor (>= 1). */
static double size_distance(double a, double b)
{
    return a > b ? a / b : b / a;
}

/*
 * Runs kernel k for payloads near every power of two from the first size
 * to the largest one: for each target the problem parameter whose payload
 * is nearest (as a factor).  Payloads may exceed -m by up to a quarter;
 * cases whose buffers would exceed DT_MAX_BUFFER are left out.  Returns
 * the next case index.
 */
static int sweep_kernel(const struct kernel *k, const struct dt_opts *o,
                        int index, int rank)
{
    long n = k->first_n, last = 0;
    size_t max = o->common.max_bytes;
    for (size_t target = bench_first_size(&o->common); target <= max;
         target = bench_next_size(target)) {
        struct dt_case c, next;
        memset(&c, 0, sizeof(c));
        memset(&next, 0, sizeof(next));
        k->plan(n, &c);
        k->plan(n + 1, &next);
        while (case_payload(&next) <= target) {
            c = next;
            n++;
            k->plan(n + 1, &next);
        }
        if (size_distance((double)case_payload(&next), (double)target) <
            size_distance((double)case_payload(&c), (double)target))
            c = next;
        long chosen = c.dims[0];
        if (chosen == last || case_payload(&c) > max + max / 4 ||
            4 * case_payload(&c) < 3 * o->common.min_bytes ||
            c.buf_bytes > DT_MAX_BUFFER)
            continue;
        last = chosen;
        snprintf(c.series, sizeof(c.series), "%s", k->name);
        run_case(&c, k->make_types, index++, rank, o);
    }
    return index;
}

/* Runs the vector for each block size and every power-of-two total from
 * max(4 KiB, block, -M) to -m.  Returns the next case index. */
static int sweep_vector(const struct dt_opts *o, int index, int rank)
{
    for (int b = 0; b < NVECTOR_BLOCKS; b++) {
        size_t block = o->block ? o->block : vector_blocks[b];
        size_t total = bench_first_size(&o->common);
        while (total < VECTOR_MIN_TOTAL || total < block)
            total *= 2;
        for (; total <= o->common.max_bytes; total *= 2) {
            struct dt_case c;
            memset(&c, 0, sizeof(c));
            vector_plan_blocks(block, total / block, &c);
            run_case(&c, vector_make_types, index++, rank, o);
        }
        if (o->block)
            break;
    }
    return index;
}

static const char extra_usage[] =
    "  -k KERNEL    milc, wrf, mg, stencil, vector or all (default all)\n"
    "  -b BLOCK     vector block size in bytes, a multiple of 8 (default:\n"
    "               8, 64, 512, 4K and 16K)\n"
    "  -F           print the memory floor instead: two threads of this rank\n"
    "               copy each message layout to layout, no MPI (dt_floor.c);\n"
    "               run it on one rank\n"
    "  Sizes are payload bytes per round and direction; here -M defaults\n"
    "  to 1K and -m to 16M.\n";

/* Returns nonzero if the options name a known kernel and a valid block. */
static int valid_selection(const struct dt_opts *o, int rank)
{
    const char *k = o->kernel ? o->kernel : "all";
    int known = strcmp(k, "all") == 0 || strcmp(k, "vector") == 0;
    for (int i = 0; i < NKERNELS; i++)
        known |= strcmp(k, kernels[i].name) == 0;
    if (!known && rank == 0)
        fprintf(stderr, "dt_latency: unknown kernel '%s'\n", k);
    if (o->block % 8 != 0 && rank == 0)
        fprintf(stderr, "dt_latency: -b must be a multiple of 8\n");
    return known && o->block % 8 == 0;
}

int main(int argc, char **argv)
{
    int rank, nranks;
    struct dt_opts o;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int status = dt_parse_args(argc, argv, "Derived-datatype ping-pong",
                               DEFAULT_MIN, DEFAULT_MAX, extra_usage, &o,
                               rank);
    if (status == 0 && !valid_selection(&o, rank))
        status = -1;
    if (status != 0) {
        MPI_Finalize();
        return status < 0 ? 1 : 0;
    }
    if (!o.floor)
        bench_require_two(nranks, rank);
    const char *k = o.kernel ? o.kernel : "all";
    if (rank == 0) {
        printf("# zmpi bench: derived-datatype ping-pong (half round trip)\n"
               "# ranks: %d (only ranks 0 and 1 take part), kernel %s\n"
               "# payloads near %zu to %zu bytes, iteration factor %g\n"
               "# %-8s %12s %14s  %s\n", nranks, k,
               bench_first_size(&o.common), o.common.max_bytes,
               o.common.iter_factor, "series", "payload", "latency_us",
               "shape");
        fflush(stdout);
    }
    int index = 0;
    for (int i = 0; i < NKERNELS; i++)
        if (strcmp(k, "all") == 0 || strcmp(k, kernels[i].name) == 0)
            index = sweep_kernel(&kernels[i], &o, index, rank);
    if (strcmp(k, "all") == 0 || strcmp(k, "vector") == 0)
        sweep_vector(&o, index, rank);
    MPI_Finalize();
    return 0;
}
