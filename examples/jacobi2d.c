/* jacobi2d: 2D Poisson equation by Jacobi iteration, pure MPI or MPI+MPI.
 *
 * Solves -(u_xx + u_yy) = f on the unit square with u = 0 on the border,
 * for the manufactured solution u = sin(pi x) sin(pi y), f = 2 pi^2 u, on
 * an N x N interior grid (h = 1/(N+1)).  The rows are split into blocks,
 * one per rank.  Every iteration replaces each point by the mean of its
 * four neighbours plus h^2 f / 4, and the ranks agree on the largest
 * change of any point with an allreduce (MPI_MAX) of 8 bytes, as in the
 * paper's Poisson kernel.
 *
 * Variants:
 *   pure MPI: halo rows are exchanged with MPI_Sendrecv, the largest
 *     change with MPI_Allreduce;
 *   -hy (MPI+MPI, zmpi_hy.h): both iterates of every rank live in one
 *     node-shared region, so a rank reads the edge rows of the neighbours
 *     on its node in place (no message, no copy), only neighbours on other
 *     nodes send rows; the largest change goes through zmpi_hy_allreduce,
 *     which also serves as the node barrier between iterations.
 * Both variants do the same arithmetic in the same order, so their results
 * are equal bit for bit.
 *
 * Checks: the largest change never grows from one iteration to the next
 * (Jacobi is a contraction in the maximum norm here); with -check rank 0
 * gathers the grid and compares it bit for bit with a serial run.  The
 * final largest change and the error against the exact solution are
 * printed with all digits so that runs can be compared across variants.
 *
 * Usage: jacobi2d [-n N] [-iters K] [-reps R] [-check] [-hy]
 * -reps R solves R times from the same start and reports the best time
 * (default 1); the checks apply to the last solve.
 * Prints "jacobi2d: variant ... time_s T ... check OK" on rank 0 and exits
 * 0 when every check passes.  No mutable globals (zmpi ranks are threads).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "zmpi_hy.h"

enum { TAG_DOWN = 1, TAG_UP, TAG_GATHER };

/* Options; the same in every rank. */
struct opts {
    int n;     /* Interior points per side. */
    int iters; /* Iterations. */
    int reps;  /* Solves timed; the best is reported. */
    int check; /* Nonzero: compare with a serial run on rank 0. */
    int hy;    /* Nonzero: MPI+MPI variant. */
};

/* One rank's rows and its storage.  Each iterate is (nr + 2) rows of
 * n + 2 points (a frame of halo/border points all round), row-major. */
struct part {
    int rank, size;   /* In comm. */
    MPI_Comm comm;    /* MPI_COMM_WORLD, or the hy context's comm. */
    int row0, nr;     /* First interior row and number of rows. */
    int ld;           /* n + 2. */
    double *u[2];     /* The two iterates (current = u[it % 2]). */
    double *f;        /* h^2 f / 4 at the nr x n interior points. */
    zmpi_hy_comm hy;  /* -hy only. */
    zmpi_hy_region grid, red; /* -hy only: iterates, and the reduction. */
    size_t iterate;   /* Doubles from u[0] to u[1] (staggered_doubles). */
};

/* Reads the options; returns 0, or -1 after rank 0 printed the usage. */
static int parse_opts(int argc, char **argv, int rank, struct opts *o)
{
    o->n = 256;
    o->iters = 1000;
    o->reps = 1;
    o->check = 0;
    o->hy = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-hy") == 0)
            o->hy = 1;
        else if (strcmp(argv[i], "-check") == 0)
            o->check = 1;
        else if (i + 1 < argc && strcmp(argv[i], "-n") == 0)
            o->n = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "-iters") == 0)
            o->iters = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "-reps") == 0)
            o->reps = atoi(argv[++i]);
        else {
            o->n = -1;
            break;
        }
    }
    if (o->n > 0 && o->iters > 0 && o->reps > 0)
        return 0;
    if (rank == 0)
        fprintf(stderr, "usage: jacobi2d [-n N] [-iters K] [-reps R] [-check] [-hy]\n");
    return -1;
}

/* Rows [*row0, *row0 + *nr) of n rows go to rank r of size. */
static void rows_of(int n, int size, int r, int *row0, int *nr)
{
    int base = n / size, extra = n % size;
    *nr = base + (r < extra ? 1 : 0);
    *row0 = r * base + (r < extra ? r : extra);
}

/* h^2 f(x, y) / 4 at interior point (i, j) of the whole grid. */
static double source(int n, int i, int j)
{
    const double pi = 3.14159265358979323846;
    double h = 1.0 / (n + 1);
    double x = (j + 1) * h, y = (i + 1) * h;
    return h * h * 2 * pi * pi * sin(pi * x) * sin(pi * y) / 4;
}

/* One Jacobi sweep over rows of width n: out = (up + down + left + right)
 * / 4 + f, rows given by pointers (mid rows have a border point at each
 * end).  Returns the largest |out - mid|. */
static double sweep_row(int n, const double *up, const double *mid,
                        const double *down, const double *f, double *out)
{
    double most = 0;
    for (int j = 1; j <= n; j++) {
        double v = 0.25 * (up[j] + down[j] + mid[j - 1] + mid[j + 1]) +
                   f[j - 1];
        double d = fabs(v - mid[j]);
        most = d > most ? d : most;
        out[j] = v;
    }
    return most;
}

/* The smallest count of doubles, at least `want`, that spans an odd
 * multiple of 2 KiB.  The two iterates lie this far apart in both
 * variants, so a row's stores never share their low 12 address bits with
 * the loads of the rows read just after them: a processor may then take a
 * load for a reload of the recent store ("4K aliasing") and stall it.  With
 * the iterates an arbitrary distance apart, as separate callocs left them,
 * the variants compared different layouts: 48 bytes apart modulo 4 KiB
 * the sweep ran 2-5 % slower (2 ranks, Zen 5), as much as the MPI+MPI
 * variant saves at 2 ranks. */
static size_t staggered_doubles(size_t want)
{
    size_t bytes = want * sizeof(double);
    bytes = (bytes + 2048 + 4095) / 4096 * 4096 - 2048;
    return bytes / sizeof(double);
}

/* Allocates the iterates (zeroed: the initial guess and the border) and f. */
static void setup_part(const struct opts *o, struct part *p)
{
    int n = o->n;
    p->comm = MPI_COMM_WORLD;
    if (o->hy) {
        zmpi_hy_comm_create(MPI_COMM_WORLD, &p->hy);
        p->comm = p->hy.comm;
    }
    MPI_Comm_rank(p->comm, &p->rank);
    MPI_Comm_size(p->comm, &p->size);
    rows_of(n, p->size, p->rank, &p->row0, &p->nr);
    p->ld = n + 2;
    /* Every slice holds the largest block, so slices are all alike. */
    p->iterate = staggered_doubles((size_t)(n / p->size + 3) * p->ld);
    if (o->hy) {
        zmpi_hy_alloc(&p->hy, 2 * p->iterate * sizeof(double), &p->grid);
        zmpi_hy_alloc(&p->hy, sizeof(double), &p->red);
        p->u[0] = (double *)p->grid.slice;
    } else {
        p->u[0] = calloc(2 * p->iterate, sizeof(double));
    }
    p->u[1] = p->u[0] ? p->u[0] + p->iterate : NULL;
    p->f = malloc((size_t)p->nr * n * sizeof(double));
    if (!p->u[0] || !p->u[1] || !p->f)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (int i = 0; i < p->nr; i++)
        for (int j = 0; j < n; j++)
            p->f[(size_t)i * n + j] = source(n, p->row0 + i, j);
}

/* Releases what setup_part allocated. */
static void free_part(const struct opts *o, struct part *p)
{
    free(p->f);
    if (o->hy) {
        zmpi_hy_free(&p->hy, &p->red);
        zmpi_hy_free(&p->hy, &p->grid);
        zmpi_hy_comm_free(&p->hy);
    } else {
        free(p->u[0]);
    }
}

/* Returns nonzero when rank r (in comm) shares this rank's node in -hy. */
static int on_my_node(const struct opts *o, const struct part *p, int r)
{
    if (!o->hy)
        return 0;
    const int *first = p->hy.node_first;
    return r >= first[p->hy.node_index] && r < first[p->hy.node_index + 1];
}

/* Returns the pointer to the edge row of neighbour r in iterate cur that
 * this rank needs (its last row if r is above, its first row if below):
 * in the neighbour's own slice when it is on this node, otherwise in this
 * rank's halo row after MPI_Sendrecv has filled it. */
static const double *edge_row(const struct opts *o, const struct part *p,
                              int r, int cur, int above)
{
    double *u = p->u[cur];
    if (r < 0 || r >= p->size)
        return above ? u : u + (size_t)(p->nr + 1) * p->ld;
    if (!on_my_node(o, p, r))
        return above ? u : u + (size_t)(p->nr + 1) * p->ld;
    int row0, nr;
    rows_of(o->n, p->size, r, &row0, &nr);
    const double *theirs = (const double *)(p->grid.base +
                                            (size_t)r * p->grid.slice_bytes);
    theirs += (size_t)cur * p->iterate;
    return theirs + (size_t)(above ? nr : 1) * p->ld;
}

/* Sends this rank's edge rows of iterate cur to the neighbours that need a
 * message and receives theirs into the halo rows. */
static void exchange_halos(const struct opts *o, struct part *p, int cur)
{
    double *u = p->u[cur];
    int up = p->rank - 1, down = p->rank + 1, ld = p->ld;
    if (up < 0 || on_my_node(o, p, up))
        up = MPI_PROC_NULL;
    if (down >= p->size || on_my_node(o, p, down))
        down = MPI_PROC_NULL;
    MPI_Sendrecv(u + ld, ld, MPI_DOUBLE, up, TAG_UP,
                 u + (size_t)(p->nr + 1) * ld, ld, MPI_DOUBLE, down, TAG_UP,
                 p->comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(u + (size_t)p->nr * ld, ld, MPI_DOUBLE, down, TAG_DOWN, u,
                 ld, MPI_DOUBLE, up, TAG_DOWN, p->comm, MPI_STATUS_IGNORE);
}

/* Runs one iteration from iterate cur into the other one and returns the
 * largest change over all ranks. */
static double iterate_once(const struct opts *o, struct part *p, int cur)
{
    exchange_halos(o, p, cur);
    const double *above = edge_row(o, p, p->rank - 1, cur, 1);
    const double *below = edge_row(o, p, p->rank + 1, cur, 0);
    const double *u = p->u[cur];
    double *unew = p->u[1 - cur];
    double most = 0;
    for (int i = 1; i <= p->nr; i++) {
        const double *up = i == 1 ? above : u + (size_t)(i - 1) * p->ld;
        const double *down = i == p->nr ? below : u + (size_t)(i + 1) * p->ld;
        double d = sweep_row(o->n, up, u + (size_t)i * p->ld, down,
                             p->f + (size_t)(i - 1) * o->n,
                             unew + (size_t)i * p->ld);
        most = d > most ? d : most;
    }
    if (!o->hy) {
        double all;
        MPI_Allreduce(&most, &all, 1, MPI_DOUBLE, MPI_MAX, p->comm);
        return all;
    }
    void *res;
    *(double *)p->red.slice = most;
    zmpi_hy_allreduce(&p->hy, &p->red, 1, MPI_DOUBLE, MPI_MAX, &res);
    /* The allreduce is a node barrier: every rank has written its new
     * iterate and read the neighbours' old one.  Order the grid window's
     * stores and loads behind it as well. */
    MPI_Win_sync(p->grid.win);
    return *(double *)res;
}

/* Returns the largest |u - exact| over all ranks for iterate cur. */
static double max_error(const struct opts *o, const struct part *p, int cur)
{
    const double pi = 3.14159265358979323846;
    double h = 1.0 / (o->n + 1), most = 0, all = 0;
    for (int i = 1; i <= p->nr; i++)
        for (int j = 1; j <= o->n; j++) {
            double exact = sin(pi * j * h) * sin(pi * (p->row0 + i) * h);
            double d = fabs(p->u[cur][(size_t)i * p->ld + j] - exact);
            most = d > most ? d : most;
        }
    MPI_Allreduce(&most, &all, 1, MPI_DOUBLE, MPI_MAX, p->comm);
    return all;
}

/* Rank 0 collects the grid (iterate cur) and compares it with a serial
 * run of the same iterations; returns 1 when equal bit for bit on rank 0
 * (other ranks return 1). */
static int check_serial(const struct opts *o, const struct part *p, int cur)
{
    int n = o->n, ld = p->ld;
    if (p->rank != 0) {
        MPI_Send(p->u[cur] + ld, p->nr * ld, MPI_DOUBLE, 0, TAG_GATHER,
                 p->comm);
        return 1;
    }
    double *all = calloc((size_t)(n + 2) * ld, sizeof(double));
    double *s[2] = {calloc((size_t)(n + 2) * ld, sizeof(double)),
                    calloc((size_t)(n + 2) * ld, sizeof(double))};
    double *f = malloc((size_t)n * n * sizeof(double));
    if (!all || !s[0] || !s[1] || !f)
        MPI_Abort(MPI_COMM_WORLD, 2);
    memcpy(all + ld, p->u[cur] + ld, (size_t)p->nr * ld * sizeof(double));
    for (int r = 1; r < p->size; r++) {
        int row0, nr;
        rows_of(n, p->size, r, &row0, &nr);
        MPI_Recv(all + (size_t)(row0 + 1) * ld, nr * ld, MPI_DOUBLE, r,
                 TAG_GATHER, p->comm, MPI_STATUS_IGNORE);
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            f[(size_t)i * n + j] = source(n, i, j);
    for (int it = 0; it < o->iters; it++)
        for (int i = 1; i <= n; i++)
            sweep_row(n, s[it % 2] + (size_t)(i - 1) * ld,
                      s[it % 2] + (size_t)i * ld, s[it % 2] + (size_t)(i + 1) * ld,
                      f + (size_t)(i - 1) * n, s[1 - it % 2] + (size_t)i * ld);
    int same = memcmp(all, s[o->iters % 2],
                      (size_t)(n + 2) * ld * sizeof(double)) == 0;
    free(all);
    free(s[0]);
    free(s[1]);
    free(f);
    return same;
}

/* Runs o->iters iterations from a zero grid; sets *grew if the largest
 * change ever grew and *change to the last one.  Returns the time of the
 * slowest rank. */
static double solve(const struct opts *o, struct part *p, int *grew,
                    double *change)
{
    double prev = INFINITY, t, tmax = 0;
    /* Nobody may still read a halo of the previous solve while we zero. */
    MPI_Barrier(MPI_COMM_WORLD);
    memset(p->u[0], 0, p->iterate * sizeof(double));
    memset(p->u[1], 0, p->iterate * sizeof(double));
    if (o->hy)
        MPI_Win_sync(p->grid.win); /* Our zeros before the neighbours read. */
    MPI_Barrier(MPI_COMM_WORLD);
    t = MPI_Wtime();
    for (int it = 0; it < o->iters; it++) {
        *change = iterate_once(o, p, it % 2);
        /* Rounding may let a converged change wobble by an ulp or so. */
        if (*change > prev * (1 + 1e-12) + 1e-15)
            *grew = 1;
        prev = *change;
    }
    t = MPI_Wtime() - t;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return tmax;
}

int main(int argc, char **argv)
{
    struct opts o;
    struct part p;
    int world;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world);
    if (parse_opts(argc, argv, world, &o) != 0) {
        MPI_Finalize();
        return 1;
    }
    memset(&p, 0, sizeof(p));
    setup_part(&o, &p);
    if (p.nr < 1) {
        if (world == 0)
            fprintf(stderr, "jacobi2d: fewer rows than ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int grew = 0;
    double change = 0, tmax = INFINITY;
    for (int r = 0; r < o.reps; r++) {
        double t = solve(&o, &p, &grew, &change);
        tmax = t < tmax ? t : tmax;
    }
    int cur = o.iters % 2;
    double err = max_error(&o, &p, cur);
    int ok = !grew && (!o.check || check_serial(&o, &p, cur));
    int allok = 0;
    MPI_Allreduce(&ok, &allok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (world == 0)
        printf("jacobi2d: variant %s ranks %d n %d iters %d time_s %.6f "
               "change %.17g error %.17g check %s%s\n", o.hy ? "hy" : "mpi",
               p.size, o.n, o.iters, tmax, change, err,
               allok ? "OK" : "FAILED", o.check ? " (serial bit for bit)" : "");
    free_part(&o, &p);
    MPI_Finalize();
    return allok ? 0 : 1;
}
