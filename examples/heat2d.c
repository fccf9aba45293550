/* heat2d: 2D heat diffusion by Jacobi iteration, the zmpi demo.
 *
 * The N x N interior of a plate is surrounded by a frame of fixed
 * temperatures.  Each iteration replaces every interior point by the mean of
 * its four neighbours.  The plate is cut into px x py blocks, one per rank;
 * before each iteration neighbours trade their edge rows and columns (the
 * halo) with nonblocking sends and receives, and every few iterations the
 * ranks agree on the global residual with MPI_Allreduce.
 *
 * Usage: heat2d [-n N] [-iters K] [-every R] [-check]
 *   -n N       interior grid size (default 512)
 *   -iters K   Jacobi iterations (default 1000)
 *   -every R   residual computed every R iterations (default 50)
 *   -check     rank 0 also runs the same iterations serially and the program
 *              fails unless both results agree bit for bit
 *
 * Plain MPI: it builds with any MPI's mpicc.  Under zmpi all ranks are
 * threads of one process and share global variables, so this program keeps
 * every piece of state on the heap or the stack of its own rank and has no
 * mutable globals (which is also why it parses argv by hand: getopt() keeps
 * its position in a global).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

/* Tags name the direction a message travels, so that a receive can never
 * match an edge meant for another side. */
enum { TAG_UP = 1, TAG_DOWN, TAG_LEFT, TAG_RIGHT, TAG_GATHER };

/* Fixed temperatures of the frame; unequal sides make a transposed or
 * mirrored block show up in the check. */
#define T_TOP 100.0
#define T_RIGHT 25.0
#define T_BOTTOM 0.0
#define T_LEFT_MAX 75.0

/* Command-line settings; the same in every rank. */
struct params {
    int n;      /* Interior points per side. */
    int iters;  /* Iterations to run. */
    int every;  /* Iterations between residual reductions. */
    int check;  /* Nonzero: compare with a serial run on rank 0. */
};

/* Where one rank's block lies.  Rows and columns are interior indices
 * (0..n-1); frame coordinates add one. */
struct layout {
    int prows, pcols;          /* Process grid: prows x pcols ranks. */
    int pr, pc;                /* This rank's place in the process grid. */
    int row0, nrows;           /* First interior row and number of rows. */
    int col0, ncols;           /* First interior column and number. */
    int north, south, west, east; /* Neighbour ranks, -1 at the plate edge. */
};

/* One rank's share of the plate: two (nrows+2) x (ncols+2) arrays, the
 * current and the next iterate, each with a one-point halo all round. */
struct field {
    double *u, *unew;   /* Row-major, leading dimension ld. */
    int ld;             /* ncols + 2. */
    double *col_buf[4]; /* Packed columns: send west/east, receive west/east. */
};

/* Reads the options; returns 0, or -1 after rank 0 printed the reason. */
static int parse_params(int argc, char **argv, int rank, struct params *p)
{
    int i;

    p->n = 512;
    p->iters = 1000;
    p->every = 50;
    p->check = 0;
    for (i = 1; i < argc; i++) {
        int *target = NULL;

        if (strcmp(argv[i], "-check") == 0)
            p->check = 1;
        else if (strcmp(argv[i], "-n") == 0)
            target = &p->n;
        else if (strcmp(argv[i], "-iters") == 0)
            target = &p->iters;
        else if (strcmp(argv[i], "-every") == 0)
            target = &p->every;
        else
            goto bad;
        if (target != NULL) {
            char *end;
            long v;

            if (i + 1 >= argc)
                goto bad;
            v = strtol(argv[++i], &end, 10);
            if (*end != '\0' || v < 0 || v > 1000000)
                goto bad;
            *target = (int)v;
        }
    }
    if (p->n >= 1 && p->every >= 1)
        return 0;
bad:
    if (rank == 0)
        fprintf(stderr, "usage: heat2d [-n N] [-iters K] [-every R] "
                "[-check]\n");
    return -1;
}

/* Splits size ranks into prows x pcols, as square as possible.  When the
 * two factors differ, the larger one counts rows, so that blocks are wider
 * than tall: their long edges are rows, which are sent in place, and only
 * the short edges are columns, which must be packed. */
static void choose_process_grid(int size, int *prows, int *pcols)
{
    int d, best = 1;

    for (d = 1; (long)d * d <= size; d++)
        if (size % d == 0)
            best = d;
    *pcols = best;
    *prows = size / best;
}

/* Splits n points into parts blocks that differ by at most one point. */
static void block_range(int n, int parts, int idx, int *start, int *count)
{
    int base = n / parts, extra = n % parts;

    *count = base + (idx < extra ? 1 : 0);
    *start = idx * base + (idx < extra ? idx : extra);
}

/* Fills in where rank's block lies on an n x n plate shared by size ranks. */
static void make_layout(int size, int rank, int n, struct layout *l)
{
    choose_process_grid(size, &l->prows, &l->pcols);
    l->pr = rank / l->pcols;
    l->pc = rank % l->pcols;
    block_range(n, l->prows, l->pr, &l->row0, &l->nrows);
    block_range(n, l->pcols, l->pc, &l->col0, &l->ncols);
    l->north = l->pr > 0 ? rank - l->pcols : -1;
    l->south = l->pr < l->prows - 1 ? rank + l->pcols : -1;
    l->west = l->pc > 0 ? rank - 1 : -1;
    l->east = l->pc < l->pcols - 1 ? rank + 1 : -1;
}

/* Temperature of frame point (gi, gj) in frame coordinates (0..n+1); 0 for
 * interior points, which is where the iteration starts. */
static double initial_value(int gi, int gj, int n)
{
    if (gi == 0)
        return T_TOP;
    if (gi == n + 1)
        return T_BOTTOM;
    if (gj == 0)
        return T_LEFT_MAX * (double)(n + 1 - gi) / (double)(n + 1);
    if (gj == n + 1)
        return T_RIGHT;
    return 0.0;
}

/* Allocates and initialises the block described by l; returns 0 or -1 when
 * memory runs out.  Both iterates get the frame, since they swap roles. */
static int field_create(struct field *f, const struct layout *l, int n)
{
    size_t cells = (size_t)(l->nrows + 2) * (size_t)(l->ncols + 2);
    int i, j, k;

    f->ld = l->ncols + 2;
    f->u = malloc(cells * sizeof(double));
    f->unew = malloc(cells * sizeof(double));
    for (k = 0; k < 4; k++)
        f->col_buf[k] = malloc((size_t)l->nrows * sizeof(double));
    if (f->u == NULL || f->unew == NULL || f->col_buf[0] == NULL ||
        f->col_buf[1] == NULL || f->col_buf[2] == NULL ||
        f->col_buf[3] == NULL)
        return -1;
    for (i = 0; i < l->nrows + 2; i++)
        for (j = 0; j < l->ncols + 2; j++)
            f->u[i * f->ld + j] = f->unew[i * f->ld + j] =
                initial_value(l->row0 + i, l->col0 + j, n);
    return 0;
}

/* Frees what field_create allocated (also after it failed halfway). */
static void field_destroy(struct field *f)
{
    int k;

    free(f->u);
    free(f->unew);
    for (k = 0; k < 4; k++)
        free(f->col_buf[k]);
}

/* Copies column j of the current iterate to or from a contiguous buffer:
 * there are no derived datatypes to describe the strided column. */
static void copy_column(struct field *f, int nrows, int j, double *buf,
                        int to_buf)
{
    int i;

    for (i = 0; i < nrows; i++) {
        if (to_buf)
            buf[i] = f->u[(i + 1) * f->ld + j];
        else
            f->u[(i + 1) * f->ld + j] = buf[i];
    }
}

/* Brings the halo of the current iterate up to date from the neighbours. */
static void exchange_halos(struct field *f, const struct layout *l)
{
    MPI_Request req[8];
    /* Real statuses rather than MPI_STATUSES_IGNORE: GCC 12 misreads that
     * constant pointer as a zero-sized array and warns. */
    MPI_Status st[8];
    int nr = l->nrows, nc = l->ncols, k = 0;
    double *u = f->u;

    /* Receives first, so that messages find a posted buffer. */
    if (l->north >= 0)
        MPI_Irecv(&u[1], nc, MPI_DOUBLE, l->north, TAG_DOWN, MPI_COMM_WORLD,
                  &req[k++]);
    if (l->south >= 0)
        MPI_Irecv(&u[(nr + 1) * f->ld + 1], nc, MPI_DOUBLE, l->south, TAG_UP,
                  MPI_COMM_WORLD, &req[k++]);
    if (l->west >= 0)
        MPI_Irecv(f->col_buf[2], nr, MPI_DOUBLE, l->west, TAG_RIGHT,
                  MPI_COMM_WORLD, &req[k++]);
    if (l->east >= 0)
        MPI_Irecv(f->col_buf[3], nr, MPI_DOUBLE, l->east, TAG_LEFT,
                  MPI_COMM_WORLD, &req[k++]);
    if (l->north >= 0)
        MPI_Isend(&u[f->ld + 1], nc, MPI_DOUBLE, l->north, TAG_UP,
                  MPI_COMM_WORLD, &req[k++]);
    if (l->south >= 0)
        MPI_Isend(&u[nr * f->ld + 1], nc, MPI_DOUBLE, l->south, TAG_DOWN,
                  MPI_COMM_WORLD, &req[k++]);
    if (l->west >= 0) {
        copy_column(f, nr, 1, f->col_buf[0], 1);
        MPI_Isend(f->col_buf[0], nr, MPI_DOUBLE, l->west, TAG_LEFT,
                  MPI_COMM_WORLD, &req[k++]);
    }
    if (l->east >= 0) {
        copy_column(f, nr, nc, f->col_buf[1], 1);
        MPI_Isend(f->col_buf[1], nr, MPI_DOUBLE, l->east, TAG_RIGHT,
                  MPI_COMM_WORLD, &req[k++]);
    }
    MPI_Waitall(k, req, st);
    if (l->west >= 0)
        copy_column(f, nr, 0, f->col_buf[2], 0);
    if (l->east >= 0)
        copy_column(f, nr, nc + 1, f->col_buf[3], 0);
}

/* One Jacobi step from u into unew over the block's interior; returns the
 * sum of squared changes.  The serial check runs this same function, so
 * each point is computed by identical arithmetic in both runs. */
static double sweep(const double *u, double *unew, int nrows, int ncols,
                    int ld)
{
    double sum = 0.0;
    int i, j;

    for (i = 1; i <= nrows; i++) {
        for (j = 1; j <= ncols; j++) {
            int c = i * ld + j;
            double v = 0.25 * (u[c - ld] + u[c + ld] + u[c - 1] + u[c + 1]);
            double d = v - u[c];

            unew[c] = v;
            sum += d * d;
        }
    }
    return sum;
}

/* Exchanges the two iterates' roles after a step. */
static void swap_iterates(struct field *f)
{
    double *t = f->u;

    f->u = f->unew;
    f->unew = t;
}

/* Runs the parallel iteration; returns the last global residual (the root
 * of the summed squared changes of one step), or 0 when iters is 0. */
static double run_parallel(struct field *f, const struct layout *l,
                           const struct params *p)
{
    double residual = 0.0;
    int it;

    for (it = 1; it <= p->iters; it++) {
        double local;

        exchange_halos(f, l);
        local = sweep(f->u, f->unew, l->nrows, l->ncols, f->ld);
        swap_iterates(f);
        if (it % p->every == 0 || it == p->iters) {
            double global;

            MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM,
                          MPI_COMM_WORLD);
            residual = sqrt(global);
        }
    }
    return residual;
}

/* Copies the interior of a block into (to_packed) or out of a packed
 * nrows x ncols array. */
static void copy_block(struct field *f, const struct layout *l, double *packed,
                       int to_packed)
{
    int i;

    for (i = 0; i < l->nrows; i++) {
        double *row = &f->u[(i + 1) * f->ld + 1];
        double *p = &packed[(size_t)i * (size_t)l->ncols];

        if (to_packed)
            memcpy(p, row, (size_t)l->ncols * sizeof(double));
        else
            memcpy(row, p, (size_t)l->ncols * sizeof(double));
    }
}

/* Rank 0 only: puts every rank's block into the whole-plate field g, its own
 * from mine and the others as they arrive.  Returns 0 or -1 (no memory). */
static int gather_blocks(struct field *g, struct field *mine,
                         const struct layout *ml, int size, int n)
{
    /* Rank 0's block is the largest: block_range gives the spare rows and
     * columns to the first blocks. */
    double *buf = malloc((size_t)ml->nrows * (size_t)ml->ncols *
                         sizeof(double));
    int r;

    if (buf == NULL)
        return -1;
    for (r = 0; r < size; r++) {
        struct layout l;
        struct field view;

        make_layout(size, r, n, &l);
        if (r == 0)
            copy_block(mine, ml, buf, 1);
        else
            MPI_Recv(buf, l.nrows * l.ncols, MPI_DOUBLE, r, TAG_GATHER,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        /* A window onto g whose first interior point is the block's. */
        view.u = &g->u[l.row0 * g->ld + l.col0];
        view.ld = g->ld;
        copy_block(&view, &l, buf, 0);
    }
    free(buf);
    return 0;
}

/* Rank 0 only: runs the same iterations serially on the whole plate and
 * compares them with the gathered parallel result g, bit for bit.  Returns
 * 0 on a match, 1 on a mismatch, -1 when memory runs out. */
static int serial_compare(const struct field *g, const struct params *p)
{
    struct layout whole;
    struct field s;
    int it, i, j, n = p->n, bad = 0;

    make_layout(1, 0, n, &whole);
    if (field_create(&s, &whole, n) != 0) {
        field_destroy(&s);
        return -1;
    }
    for (it = 0; it < p->iters; it++) {
        sweep(s.u, s.unew, n, n, s.ld);
        swap_iterates(&s);
    }
    for (i = 1; i <= n && !bad; i++) {
        for (j = 1; j <= n; j++) {
            int c = i * s.ld + j;

            if (memcmp(&s.u[c], &g->u[c], sizeof(double)) != 0) {
                printf("heat2d: check FAILED at row %d column %d: parallel "
                       "%.17g, serial %.17g\n", i - 1, j - 1, g->u[c],
                       s.u[c]);
                bad = 1;
                break;
            }
        }
    }
    field_destroy(&s);
    return bad;
}

/* Compares the distributed result with a serial run on rank 0; returns the
 * same verdict on every rank: 0 match, 1 mismatch, -1 out of memory. */
static int check_against_serial(struct field *f, const struct layout *l,
                                const struct params *p, int rank, int size)
{
    int verdict = 0;

    if (rank != 0) {
        double *buf = malloc((size_t)l->nrows * (size_t)l->ncols *
                             sizeof(double));

        if (buf == NULL)
            MPI_Abort(MPI_COMM_WORLD, 3);
        copy_block(f, l, buf, 1);
        MPI_Send(buf, l->nrows * l->ncols, MPI_DOUBLE, 0, TAG_GATHER,
                 MPI_COMM_WORLD);
        free(buf);
    } else {
        struct layout whole;
        struct field g;

        make_layout(1, 0, p->n, &whole);
        if (field_create(&g, &whole, p->n) != 0 ||
            gather_blocks(&g, f, l, size, p->n) != 0)
            verdict = -1;
        else
            verdict = serial_compare(&g, p);
        field_destroy(&g);
    }
    MPI_Bcast(&verdict, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return verdict;
}

/* Rank 0 only: prints the run's summary. */
static void report(const struct layout *l, const struct params *p, int size,
                   double residual, double seconds)
{
    const char *workers = getenv("ZMPI_WORKERS");
    double updates = (double)p->n * (double)p->n * (double)p->iters;

    printf("heat2d: %d ranks, workers %s, process grid %d x %d\n", size,
           workers != NULL ? workers : "(default)", l->prows, l->pcols);
    printf("heat2d: grid %d x %d, %d iterations, residual %.6e\n", p->n, p->n,
           p->iters, residual);
    printf("heat2d: time %.3f s, %.1f Mpoint-updates/s\n", seconds,
           seconds > 0.0 ? updates / seconds / 1e6 : 0.0);
}

/* Entry point of every rank: parses the options, iterates, reports, and
 * optionally checks.  Exit status: 0 success, 1 check mismatch, 2 usage,
 * 3 out of memory. */
int main(int argc, char **argv)
{
    struct params p;
    struct layout l;
    struct field f;
    int rank, size, verdict = 0;
    double t0, t, seconds, residual;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (parse_params(argc, argv, rank, &p) != 0) {
        MPI_Finalize();
        return 2;
    }
    make_layout(size, rank, p.n, &l);
    if (l.prows > p.n || l.pcols > p.n) {
        if (rank == 0)
            fprintf(stderr, "heat2d: %d x %d grid is too small for a %d x %d "
                    "process grid\n", p.n, p.n, l.prows, l.pcols);
        MPI_Finalize();
        return 2;
    }
    if (field_create(&f, &l, p.n) != 0) {
        fprintf(stderr, "heat2d: rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }

    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    residual = run_parallel(&f, &l, &p);
    t = MPI_Wtime() - t0;
    /* The job takes as long as its slowest rank. */
    MPI_Allreduce(&t, &seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        report(&l, &p, size, residual, seconds);

    if (p.check) {
        verdict = check_against_serial(&f, &l, &p, rank, size);
        if (rank == 0 && verdict == 0)
            printf("heat2d: check passed: equals a serial run bit for bit\n");
        else if (rank == 0 && verdict < 0)
            fprintf(stderr, "heat2d: check: out of memory\n");
    }
    field_destroy(&f);
    MPI_Finalize();
    return verdict == 0 ? 0 : verdict > 0 ? 1 : 3;
}
