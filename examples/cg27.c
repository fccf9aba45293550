/* cg27: conjugate gradients on a 3-D 27-point stencil.
 *
 * Solves A x = b on an N x N x N grid, where A is the 27-point operator
 * (A x)(c) = 26 x(c) - (sum of the 26 neighbours of c inside the grid), a
 * symmetric positive definite matrix.  The right-hand side is b = A x* for
 * a known solution x* (a fixed function of the global point index, so every
 * decomposition solves the same problem); CG starts from x = 0 and runs a
 * fixed number of iterations.
 *
 * The grid is cut into px x py x pz blocks (MPI_Dims_create, a Cartesian
 * communicator), one per rank.  Before every matrix-vector product each
 * rank trades the surface of its block of the search direction with up to
 * 26 neighbours (6 faces, 12 edges, 8 corners) by MPI_Irecv / MPI_Isend,
 * and every iteration reduces two dot products of 8 bytes each with
 * MPI_Allreduce: the pattern of the HPCG-like solvers.
 *
 * Checks, all on every run (the program fails if one does not hold):
 *   - CG's recursively updated residual agrees with the true residual
 *     ||b - A x|| recomputed at the end (catches a wrong halo exchange);
 *   - the residual and the error against x* have fallen at least as far as
 *     the classical CG bound says for this matrix: with the extreme
 *     eigenvalues of A, known in closed form, kappa = lmax / lmin and
 *     rho = (sqrt(kappa) - 1) / (sqrt(kappa) + 1), both relative norms are
 *     at most 2 sqrt(kappa) rho^k after k iterations.
 *
 * Usage: cg27 [-n N] [-iters K] [-reps R]
 *   -n N      grid points per side (default 64)
 *   -iters K  CG iterations per solve (default 100)
 *   -reps R   solves, each from x = 0; the fastest is reported (default 1)
 * Rank 0 prints one line "cg27: ranks P procs AxBxC n N iters K time_s T
 * us_per_iter U comm_us_per_iter C ... check OK", C being the slowest
 * rank's time in the halo exchanges and the Allreduces (waits for slower
 * neighbours included); the exit status is 0 when every check passed.  Plain MPI: it builds with any MPI's mpicc.  No mutable globals
 * (zmpi ranks are threads of one process).
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

/* Directions to neighbours: (dx, dy, dz) in {-1, 0, 1}^3 numbered
 * (dx + 1) * 9 + (dy + 1) * 3 + (dz + 1); 13 is the block itself, and the
 * opposite of direction d is 26 - d.  A message carries the direction it
 * travels as its tag, so a receive can only match the surface meant for
 * its side. */
#define NDIRS 27
#define SELF_DIR 13

/* Options; the same in every rank. */
struct opts {
    int n;     /* Grid points per side. */
    int iters; /* CG iterations. */
    int reps;  /* Solves timed; the best is reported. */
};

/* One rank's block: interior points [lo[d], lo[d] + len[d]) of the global
 * grid in dimension d, stored with a one-point halo all round.  Point
 * (i, j, k), 0 <= i <= len[0] + 1 etc., is at (i * s0 + j * s1 + k). */
struct block {
    int rank, size;
    MPI_Comm cart;      /* Cartesian communicator of the decomposition. */
    int dims[3];        /* Process grid. */
    int coords[3];      /* This rank's place in it. */
    int lo[3], len[3];  /* Interior extent. */
    size_t s0, s1;      /* Strides of dimensions 0 and 1. */
    size_t points;      /* Stored points, halo included. */
};

/* The halo exchange of one block: neighbours, and one send and one receive
 * buffer holding all their surfaces back to back. */
struct halo {
    int nnb;               /* Neighbours. */
    int dir[26];           /* Direction of each. */
    int peer[26];          /* Its rank in the Cartesian communicator. */
    size_t off[26];        /* Where its surface starts in the buffers. */
    int count[26];         /* Points in its surface. */
    double *sbuf, *rbuf;
    MPI_Request req[52];
    MPI_Status st[52];
};

/* The vectors of CG, each stored like the block (halo included). */
struct vectors {
    double *x, *b, *r, *p, *ap, *xstar;
};

/* Reads the options; returns 0, or -1 after rank 0 printed the usage. */
static int parse_opts(int argc, char **argv, int rank, struct opts *o)
{
    o->n = 64;
    o->iters = 100;
    o->reps = 1;
    for (int i = 1; i < argc; i++) {
        int *target = NULL;
        if (strcmp(argv[i], "-n") == 0)
            target = &o->n;
        else if (strcmp(argv[i], "-iters") == 0)
            target = &o->iters;
        else if (strcmp(argv[i], "-reps") == 0)
            target = &o->reps;
        if (target == NULL || i + 1 >= argc) {
            o->n = -1;
            break;
        }
        *target = atoi(argv[++i]);
    }
    if (o->n > 0 && o->n <= 2000 && o->iters > 0 && o->reps > 0)
        return 0;
    if (rank == 0)
        fprintf(stderr, "usage: cg27 [-n N] [-iters K] [-reps R]\n");
    return -1;
}

/* Points [*start, *start + *count) of n go to part idx of parts; the parts
 * differ by at most one point. */
static void block_range(int n, int parts, int idx, int *start, int *count)
{
    int base = n / parts, extra = n % parts;
    *count = base + (idx < extra ? 1 : 0);
    *start = idx * base + (idx < extra ? idx : extra);
}

/* Sets up the decomposition of an n^3 grid over MPI_COMM_WORLD; returns 0,
 * or -1 when some block would be empty. */
static int make_block(int n, struct block *bl)
{
    int periods[3] = {0, 0, 0};
    MPI_Comm_size(MPI_COMM_WORLD, &bl->size);
    bl->dims[0] = bl->dims[1] = bl->dims[2] = 0;
    MPI_Dims_create(bl->size, 3, bl->dims);
    if (bl->dims[0] > n || bl->dims[1] > n || bl->dims[2] > n)
        return -1;
    MPI_Cart_create(MPI_COMM_WORLD, 3, bl->dims, periods, 0, &bl->cart);
    MPI_Comm_rank(bl->cart, &bl->rank);
    MPI_Cart_coords(bl->cart, bl->rank, 3, bl->coords);
    for (int d = 0; d < 3; d++)
        block_range(n, bl->dims[d], bl->coords[d], &bl->lo[d], &bl->len[d]);
    bl->s1 = (size_t)bl->len[2] + 2;
    bl->s0 = bl->s1 * ((size_t)bl->len[1] + 2);
    bl->points = bl->s0 * ((size_t)bl->len[0] + 2);
    return 0;
}

/* The offset of direction dir along dimension d: -1, 0 or 1. */
static int dir_off(int dir, int d)
{
    static const int div[3] = {9, 3, 1};
    return dir / div[d] % 3 - 1;
}

/* The index range [from[d], to[d]] of the points of a block's surface that
 * goes to the neighbour in direction dir (ghost = 0), or of the halo that
 * receives from it (ghost = 1). */
static void region(const struct block *bl, int dir, int ghost, int from[3],
                   int to[3])
{
    for (int d = 0; d < 3; d++) {
        int o = dir_off(dir, d);
        if (o == 0) {
            from[d] = 1;
            to[d] = bl->len[d];
        } else if (o < 0) {
            from[d] = to[d] = ghost ? 0 : 1;
        } else {
            from[d] = to[d] = ghost ? bl->len[d] + 1 : bl->len[d];
        }
    }
}

/* Copies a region of v into buf (to_buf) or back. */
static void copy_region(const struct block *bl, double *v, const int from[3],
                        const int to[3], double *buf, int to_buf)
{
    size_t m = 0;
    for (int i = from[0]; i <= to[0]; i++)
        for (int j = from[1]; j <= to[1]; j++) {
            double *row = v + (size_t)i * bl->s0 + (size_t)j * bl->s1;
            size_t len = (size_t)(to[2] - from[2] + 1);
            if (to_buf)
                memcpy(buf + m, row + from[2], len * sizeof(double));
            else
                memcpy(row + from[2], buf + m, len * sizeof(double));
            m += len;
        }
}

/* Finds the neighbours of the block and sizes the buffers; returns 0, or
 * -1 when memory runs out. */
static int halo_create(const struct block *bl, struct halo *h)
{
    size_t total = 0;
    h->nnb = 0;
    for (int dir = 0; dir < NDIRS; dir++) {
        int c[3], from[3], to[3], inside = dir != SELF_DIR, count = 1;
        for (int d = 0; d < 3; d++) {
            c[d] = bl->coords[d] + dir_off(dir, d);
            inside = inside && c[d] >= 0 && c[d] < bl->dims[d];
        }
        if (!inside)
            continue;
        region(bl, dir, 0, from, to);
        for (int d = 0; d < 3; d++)
            count *= to[d] - from[d] + 1;
        MPI_Cart_rank(bl->cart, c, &h->peer[h->nnb]);
        h->dir[h->nnb] = dir;
        h->off[h->nnb] = total;
        h->count[h->nnb] = count;
        total += (size_t)count;
        h->nnb++;
    }
    h->sbuf = malloc((total + 1) * sizeof(double));
    h->rbuf = malloc((total + 1) * sizeof(double));
    return h->sbuf != NULL && h->rbuf != NULL ? 0 : -1;
}

/* Brings the halo of v up to date from the neighbours; the halo at the
 * faces of the grid stays zero (no neighbour writes it). */
static void halo_exchange(const struct block *bl, struct halo *h, double *v)
{
    int from[3], to[3], k = 0;
    /* Receives first, so that messages find a posted buffer.  The surface
     * coming from the neighbour in direction dir travels in direction
     * 26 - dir. */
    for (int m = 0; m < h->nnb; m++)
        MPI_Irecv(h->rbuf + h->off[m], h->count[m], MPI_DOUBLE, h->peer[m],
                  NDIRS - 1 - h->dir[m], bl->cart, &h->req[k++]);
    for (int m = 0; m < h->nnb; m++) {
        region(bl, h->dir[m], 0, from, to);
        copy_region(bl, v, from, to, h->sbuf + h->off[m], 1);
        MPI_Isend(h->sbuf + h->off[m], h->count[m], MPI_DOUBLE, h->peer[m],
                  h->dir[m], bl->cart, &h->req[k++]);
    }
    MPI_Waitall(k, h->req, h->st);
    for (int m = 0; m < h->nnb; m++) {
        region(bl, h->dir[m], 1, from, to);
        copy_region(bl, v, from, to, h->rbuf + h->off[m], 0);
    }
}

/* y = A v over the interior; v's halo must be current.  The 27 points
 * around c are summed as three rows of three in each of three planes, and
 * A v = 27 v(c) - (that sum). */
static void matvec(const struct block *bl, const double *v, double *y)
{
    size_t s0 = bl->s0, s1 = bl->s1;
    for (int i = 1; i <= bl->len[0]; i++)
        for (int j = 1; j <= bl->len[1]; j++) {
            size_t c0 = (size_t)i * s0 + (size_t)j * s1;
            for (int k = 1; k <= bl->len[2]; k++) {
                size_t c = c0 + (size_t)k;
                double sum = 0.0;
                for (int di = -1; di <= 1; di++)
                    for (int dj = -1; dj <= 1; dj++) {
                        const double *q = v + c + (ptrdiff_t)di * (ptrdiff_t)s0 +
                                          (ptrdiff_t)dj * (ptrdiff_t)s1;
                        sum += q[-1] + q[0] + q[1];
                    }
                y[c] = 27.0 * v[c] - sum;
            }
        }
}

/* The local part of u . v over the interior. */
static double dot_local(const struct block *bl, const double *u,
                        const double *v)
{
    double sum = 0.0;
    for (int i = 1; i <= bl->len[0]; i++)
        for (int j = 1; j <= bl->len[1]; j++) {
            size_t c0 = (size_t)i * bl->s0 + (size_t)j * bl->s1;
            for (int k = 1; k <= bl->len[2]; k++)
                sum += u[c0 + (size_t)k] * v[c0 + (size_t)k];
        }
    return sum;
}

/* u . v over the whole grid: one 8-byte MPI_Allreduce, whose time is
 * added to *tcomm. */
static double dot(const struct block *bl, const double *u, const double *v,
                  double *tcomm)
{
    double local = dot_local(bl, u, v), global;
    double t0 = MPI_Wtime();
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, bl->cart);
    *tcomm += MPI_Wtime() - t0;
    return global;
}

/* The known solution at global point (gi, gj, gk): a value in [0.5, 1.5)
 * from an integer hash of the index, rough enough that every eigenvector
 * of A takes part. */
static double known_solution(int n, int gi, int gj, int gk)
{
    unsigned long long h = ((unsigned long long)gi * (unsigned)n + (unsigned)gj) *
                           (unsigned)n + (unsigned)gk;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 29;
    return 0.5 + (double)(h >> 11) / 9007199254740992.0;
}

/* Allocates the vectors zeroed; returns 0 or -1 when memory runs out. */
static int vectors_create(const struct block *bl, struct vectors *v)
{
    double **all[6] = {&v->x, &v->b, &v->r, &v->p, &v->ap, &v->xstar};
    int ok = 1;
    for (int m = 0; m < 6; m++) {
        *all[m] = calloc(bl->points, sizeof(double));
        ok = ok && *all[m] != NULL;
    }
    return ok ? 0 : -1;
}

/* Frees what vectors_create allocated. */
static void vectors_destroy(struct vectors *v)
{
    free(v->x);
    free(v->b);
    free(v->r);
    free(v->p);
    free(v->ap);
    free(v->xstar);
}

/* x* at global point (gi, gj, gk), 0 outside the grid. */
static double xstar_at(int n, int gi, int gj, int gk)
{
    if (gi < 0 || gj < 0 || gk < 0 || gi >= n || gj >= n || gk >= n)
        return 0.0;
    return known_solution(n, gi, gj, gk);
}

/* Fills x* and b = A x*.  b is summed from x* at the global indices, not
 * through the halo exchange: an exchange that delivers wrong surfaces then
 * makes CG converge to something other than x*, which the error check
 * sees. */
static void make_problem(const struct block *bl, int n, struct vectors *v)
{
    for (int i = 1; i <= bl->len[0]; i++)
        for (int j = 1; j <= bl->len[1]; j++)
            for (int k = 1; k <= bl->len[2]; k++) {
                int g[3] = {bl->lo[0] + i - 1, bl->lo[1] + j - 1, bl->lo[2] + k - 1};
                size_t c = (size_t)i * bl->s0 + (size_t)j * bl->s1 + (size_t)k;
                double sum = 0.0;
                for (int dir = 0; dir < NDIRS; dir++)
                    sum += xstar_at(n, g[0] + dir_off(dir, 0), g[1] + dir_off(dir, 1),
                                    g[2] + dir_off(dir, 2));
                v->xstar[c] = known_solution(n, g[0], g[1], g[2]);
                v->b[c] = 27.0 * v->xstar[c] - sum;
            }
}

/* Runs `iters` CG iterations from x = 0; returns rr = r . r at the end,
 * stores r0 . r0 in *rr0 and adds the time spent in MPI to *tcomm. */
static double cg_solve(const struct block *bl, struct halo *h, int iters,
                       struct vectors *v, double *rr0, double *tcomm)
{
    size_t npts = bl->points;
    memset(v->x, 0, npts * sizeof(double));
    memcpy(v->r, v->b, npts * sizeof(double));
    memcpy(v->p, v->b, npts * sizeof(double));
    double rr = dot(bl, v->r, v->r, tcomm);
    *rr0 = rr;
    for (int it = 0; it < iters && rr > 0.0; it++) {
        double t0 = MPI_Wtime();
        halo_exchange(bl, h, v->p);
        *tcomm += MPI_Wtime() - t0;
        matvec(bl, v->p, v->ap);
        double alpha = rr / dot(bl, v->p, v->ap, tcomm);
        /* The halo points take part too: harmless, and the loops stay
         * simple and vectorizable.  The next exchange rewrites p's halo. */
        for (size_t c = 0; c < npts; c++) {
            v->x[c] += alpha * v->p[c];
            v->r[c] -= alpha * v->ap[c];
        }
        double rrnew = dot(bl, v->r, v->r, tcomm);
        double beta = rrnew / rr;
        for (size_t c = 0; c < npts; c++)
            v->p[c] = v->r[c] + beta * v->p[c];
        rr = rrnew;
    }
    return rr;
}

/* The CG bound after `iters` iterations for the n^3 grid: 2 sqrt(kappa)
 * rho^iters, from the extreme eigenvalues of A = 27 I - T (x) T (x) T,
 * T = tridiag(1, 1, 1) of order n with eigenvalues 1 + 2 cos(j pi/(n+1)). */
static double cg_bound(int n, int iters)
{
    const double pi = 3.14159265358979323846;
    double tmax = 1.0 + 2.0 * cos(pi / (n + 1));
    double tmin = 1.0 + 2.0 * cos(n * pi / (n + 1));
    double lmin = 27.0 - tmax * tmax * tmax;
    /* The most negative product of three eigenvalues of T, if any is
     * negative; else the smallest positive one. */
    double pmin = tmin < 0.0 ? tmin * tmax * tmax : tmin * tmin * tmin;
    double lmax = 27.0 - pmin;
    double sk = sqrt(lmax / lmin);
    return 2.0 * sk * pow((sk - 1.0) / (sk + 1.0), iters);
}

/* ||u - w|| over the whole grid. */
static double dist(const struct block *bl, const double *u, const double *w)
{
    double sum = 0.0;
    for (int i = 1; i <= bl->len[0]; i++)
        for (int j = 1; j <= bl->len[1]; j++)
            for (int k = 1; k <= bl->len[2]; k++) {
                size_t c = (size_t)i * bl->s0 + (size_t)j * bl->s1 + (size_t)k;
                sum += (u[c] - w[c]) * (u[c] - w[c]);
            }
    double global;
    MPI_Allreduce(&sum, &global, 1, MPI_DOUBLE, MPI_SUM, bl->cart);
    return sqrt(global);
}

/* The outcome of the checks. */
struct verdict {
    double relres;  /* ||r_k|| / ||r_0|| of the recursion. */
    double truerel; /* ||b - A x_k|| / ||r_0||, recomputed. */
    double relerr;  /* ||x_k - x*|| / ||x*||. */
    double bound;   /* The CG bound both relative norms must meet. */
    int ok;
};

/* Runs the checks described at the top of the file on the last solve. */
static void verify(const struct block *bl, struct halo *h, const struct opts *o,
                   struct vectors *v, double rr, double rr0, struct verdict *vd)
{
    double *zero = v->r; /* r is no longer needed: reuse it. */
    halo_exchange(bl, h, v->x);
    matvec(bl, v->x, v->ap);
    memset(zero, 0, bl->points * sizeof(double));
    double r0 = sqrt(rr0);
    vd->relres = sqrt(rr) / r0;
    vd->truerel = dist(bl, v->b, v->ap) / r0;
    vd->relerr = dist(bl, v->x, v->xstar) / dist(bl, v->xstar, zero);
    vd->bound = cg_bound(o->n, o->iters);
    /* The recursion drifts from the true residual by rounding only: a few
     * ulps of ||b|| per iteration. */
    double drift = fabs(vd->truerel - vd->relres);
    vd->ok = drift <= 1e-9 && vd->relres <= vd->bound &&
             vd->relerr <= vd->bound && vd->relres < 1.0;
}

/* Entry point of every rank.  Exit status: 0 every check passed, 1 a check
 * failed, 2 usage, 3 out of memory. */
int main(int argc, char **argv)
{
    struct opts o;
    struct block bl;
    struct halo h;
    struct vectors v;
    int world;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world);
    if (parse_opts(argc, argv, world, &o) != 0 || make_block(o.n, &bl) != 0) {
        if (o.n > 0 && world == 0)
            fprintf(stderr, "cg27: n = %d is too small for the ranks\n", o.n);
        MPI_Finalize();
        return 2;
    }
    if (halo_create(&bl, &h) != 0 || vectors_create(&bl, &v) != 0) {
        fprintf(stderr, "cg27: rank %d: out of memory\n", world);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    make_problem(&bl, o.n, &v);
    double best = INFINITY, comm = 0.0, rr = 0.0, rr0 = 0.0;
    for (int rep = 0; rep < o.reps; rep++) {
        double tcomm = 0.0, tt[2], tmax[2];
        MPI_Barrier(bl.cart);
        double t0 = MPI_Wtime();
        rr = cg_solve(&bl, &h, o.iters, &v, &rr0, &tcomm);
        tt[0] = MPI_Wtime() - t0;
        tt[1] = tcomm;
        /* A solve takes as long as its slowest rank. */
        MPI_Allreduce(tt, tmax, 2, MPI_DOUBLE, MPI_MAX, bl.cart);
        if (tmax[0] < best) {
            best = tmax[0];
            comm = tmax[1];
        }
    }
    struct verdict vd;
    verify(&bl, &h, &o, &v, rr, rr0, &vd);
    if (bl.rank == 0)
        printf("cg27: ranks %d procs %dx%dx%d n %d iters %d time_s %.6f "
               "us_per_iter %.3f comm_us_per_iter %.3f relres %.3e true %.3e "
               "error %.3e bound %.3e check %s\n", bl.size, bl.dims[0],
               bl.dims[1], bl.dims[2], o.n, o.iters, best,
               best / o.iters * 1e6, comm / o.iters * 1e6, vd.relres, vd.truerel,
               vd.relerr, vd.bound, vd.ok ? "OK" : "FAILED");
    free(h.sbuf);
    free(h.rbuf);
    vectors_destroy(&v);
    MPI_Comm_free(&bl.cart);
    MPI_Finalize();
    return vd.ok ? 0 : 1;
}
