/* summa: dense matrix multiply C = A B with SUMMA, pure MPI or MPI+MPI.
 *
 * The N x N matrices are cut into blocks on a prows x pcols process grid.
 * SUMMA walks over panels of w columns of A (rows of B): at step k the
 * ranks of the grid column that owns A's panel broadcast it along their
 * grid rows, the ranks of the grid row that owns B's panel broadcast it
 * down their grid columns, and every rank adds the product of the two
 * panels to its block of C.  w = N / lcm(prows, pcols), so that a panel
 * never straddles two blocks.
 *
 * Variants (-hy): the pure MPI one broadcasts each panel with MPI_Bcast
 * into a private buffer of every rank.  The MPI+MPI one keeps every block
 * of A and B in a node-shared region (zmpi_hy.h) and broadcasts with
 * zmpi_hy_bcast: on one node no byte moves at all, every rank multiplies
 * straight from the owner's block; across nodes one copy per node arrives.
 *
 * The entries are A(i,k) = i + 2k and B(k,j) = k - j, so that
 * C(i,j) = i S1 - N i j + 2 S2 - 2 j S1 with S1 = sum k, S2 = sum k^2
 * (k < N).  All values are integers below 2^53, so every rank checks every
 * entry of its block exactly.
 *
 * Usage: summa [-n N] [-reps R] [-hy]
 *   -n N     matrix size (default 512); N must be a multiple of prows and
 *            pcols
 *   -reps R  multiplications timed (default 3); the best is reported
 *   -hy      the MPI+MPI variant
 *
 * Prints one line "summa: variant ... time_s T check OK" on rank 0 and
 * exits 0 when the check passes.  No mutable globals: under zmpi ranks are
 * threads of one process.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "zmpi_hy.h"

/* Options; the same in every rank. */
struct opts {
    int n;    /* Matrix size. */
    int reps; /* Timed multiplications. */
    int hy;   /* Nonzero: MPI+MPI variant. */
};

/* The distribution of the matrices. */
struct grid {
    int prows, pcols; /* Process grid. */
    int pr, pc;       /* This rank's place. */
    int nr, nc;       /* Rows and columns of a block (N/prows, N/pcols). */
    int w;            /* Panel width. */
    MPI_Comm row, col; /* Ranks of this grid row / grid column. */
};

/* Storage and broadcast of the panels of one variant. */
struct panels {
    double *a, *b;       /* This rank's blocks of A and B. */
    double *abuf, *bbuf; /* Pure MPI: receive buffers for the panels. */
    zmpi_hy_comm hrow, hcol;   /* MPI+MPI: contexts of row and column. */
    zmpi_hy_region ra, rb;     /* MPI+MPI: regions holding the blocks. */
    int *row_root, *col_root;  /* MPI+MPI: hy rank of grid column c / row r. */
};

/* Reads the options; returns 0, or -1 after rank 0 printed the usage. */
static int parse_opts(int argc, char **argv, int rank, struct opts *o)
{
    o->n = 512;
    o->reps = 3;
    o->hy = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-hy") == 0) {
            o->hy = 1;
        } else if (i + 1 < argc && strcmp(argv[i], "-n") == 0) {
            o->n = atoi(argv[++i]);
        } else if (i + 1 < argc && strcmp(argv[i], "-reps") == 0) {
            o->reps = atoi(argv[++i]);
        } else {
            o->n = -1;
            break;
        }
    }
    if (o->n > 0 && o->reps > 0)
        return 0;
    if (rank == 0)
        fprintf(stderr, "usage: summa [-n N] [-reps R] [-hy]\n");
    return -1;
}

/* Returns the greatest common divisor of a and b. */
static int gcd(int a, int b)
{
    while (b != 0) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Sets up the process grid on comm; returns -1 (reported by rank 0) if n
 * does not split evenly. */
static int make_grid(MPI_Comm comm, int n, struct grid *g)
{
    int size, rank;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    g->prows = 1;
    for (int d = 1; d * d <= size; d++)
        if (size % d == 0)
            g->prows = d;
    g->pcols = size / g->prows;
    if (n % g->prows != 0 || n % g->pcols != 0) {
        if (rank == 0)
            fprintf(stderr, "summa: N = %d is not a multiple of the %d x %d "
                    "grid\n", n, g->prows, g->pcols);
        return -1;
    }
    g->pr = rank / g->pcols;
    g->pc = rank % g->pcols;
    g->nr = n / g->prows;
    g->nc = n / g->pcols;
    g->w = gcd(g->nr, g->nc);
    MPI_Comm_split(comm, g->pr, g->pc, &g->row);
    MPI_Comm_split(comm, g->pc, g->pr, &g->col);
    return 0;
}

/* Fills this rank's blocks.  A's block is stored panel by panel (each
 * panel nr x w, row-major) so that a panel is contiguous; B's block is
 * row-major, where a panel of w rows is contiguous anyway. */
static void fill_blocks(const struct grid *g, double *a, double *b)
{
    int panels = g->nc / g->w;
    for (int p = 0; p < panels; p++)
        for (int i = 0; i < g->nr; i++)
            for (int j = 0; j < g->w; j++) {
                long gi = (long)g->pr * g->nr + i;
                long gk = (long)g->pc * g->nc + (long)p * g->w + j;
                a[((long)p * g->nr + i) * g->w + j] = (double)(gi + 2 * gk);
            }
    for (int i = 0; i < g->nr; i++)
        for (int j = 0; j < g->nc; j++) {
            long gk = (long)g->pr * g->nr + i;
            long gj = (long)g->pc * g->nc + j;
            b[(long)i * g->nc + j] = (double)(gk - gj);
        }
}

/* Returns the hy rank of every rank of comm in hy's comm, in a new array
 * owned by the caller. */
static int *translate(MPI_Comm comm, const zmpi_hy_comm *hy)
{
    int size;
    MPI_Comm_size(comm, &size);
    int *from = malloc(2 * (size_t)size * sizeof(int));
    if (from == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Group g1, g2;
    MPI_Comm_group(comm, &g1);
    MPI_Comm_group(hy->comm, &g2);
    for (int i = 0; i < size; i++)
        from[i] = i;
    MPI_Group_translate_ranks(g1, size, from, g2, from + size);
    MPI_Group_free(&g1);
    MPI_Group_free(&g2);
    memmove(from, from + size, (size_t)size * sizeof(int));
    return from;
}

/* Allocates the blocks and buffers of the chosen variant. */
static void setup_panels(const struct opts *o, const struct grid *g,
                         struct panels *s)
{
    size_t abytes = (size_t)g->nr * g->nc * sizeof(double);
    size_t bbytes = abytes;
    memset(s, 0, sizeof(*s));
    if (o->hy) {
        zmpi_hy_comm_create(g->row, &s->hrow);
        zmpi_hy_comm_create(g->col, &s->hcol);
        zmpi_hy_alloc(&s->hrow, abytes, &s->ra);
        zmpi_hy_alloc(&s->hcol, bbytes, &s->rb);
        s->a = (double *)s->ra.slice;
        s->b = (double *)s->rb.slice;
        s->row_root = translate(g->row, &s->hrow);
        s->col_root = translate(g->col, &s->hcol);
    } else {
        s->a = malloc(abytes);
        s->b = malloc(bbytes);
        s->abuf = malloc((size_t)g->nr * g->w * sizeof(double));
        s->bbuf = malloc((size_t)g->w * g->nc * sizeof(double));
        if (!s->a || !s->b || !s->abuf || !s->bbuf)
            MPI_Abort(MPI_COMM_WORLD, 2);
    }
    fill_blocks(g, s->a, s->b);
    if (o->hy) {
        /* Nobody reads a block before its owner has filled it. */
        zmpi_hy_node_sync(&s->hrow);
        zmpi_hy_node_sync(&s->hcol);
    }
}

/* Releases what setup_panels allocated. */
static void free_panels(const struct opts *o, struct panels *s)
{
    if (o->hy) {
        zmpi_hy_free(&s->hrow, &s->ra);
        zmpi_hy_free(&s->hcol, &s->rb);
        zmpi_hy_comm_free(&s->hrow);
        zmpi_hy_comm_free(&s->hcol);
        free(s->row_root);
        free(s->col_root);
    } else {
        free(s->a);
        free(s->b);
        free(s->abuf);
        free(s->bbuf);
    }
}

/* c (nr x nc) += a (nr x w) * b (w x nc), all row-major.  Four columns of
 * a at a time: each row of c is loaded and stored once per four rows of b,
 * which also keeps the kernel's speed from depending on whether b and c
 * happen to lie a multiple of 4 KiB apart (loads that follow a store to
 * the same address modulo 4 KiB wait for it on x86). */
static void gemm_panel(int nr, int nc, int w, const double *restrict a,
                       const double *restrict b, double *restrict c)
{
    for (int i = 0; i < nr; i++) {
        double *restrict ci = c + (long)i * nc;
        const double *ai = a + (long)i * w;
        int k = 0;
        for (; k + 4 <= w; k += 4) {
            double a0 = ai[k], a1 = ai[k + 1], a2 = ai[k + 2], a3 = ai[k + 3];
            const double *restrict b0 = b + (long)k * nc, *restrict b1 = b0 + nc;
            const double *restrict b2 = b1 + nc, *restrict b3 = b2 + nc;
            for (int j = 0; j < nc; j++)
                ci[j] += a0 * b0[j] + a1 * b1[j] + a2 * b2[j] + a3 * b3[j];
        }
        for (; k < w; k++) {
            double aik = ai[k];
            const double *restrict bk = b + (long)k * nc;
            for (int j = 0; j < nc; j++)
                ci[j] += aik * bk[j];
        }
    }
}

/* Broadcasts panel k of A along the grid row and of B down the grid
 * column; returns where this rank reads them. */
static void get_panels(const struct opts *o, const struct grid *g,
                       struct panels *s, int k, const double **ap,
                       const double **bp)
{
    int acol = (int)((long)k * g->w / g->nc);   /* Grid column owning A. */
    int arow = (int)((long)k * g->w / g->nr);   /* Grid row owning B. */
    size_t apos = (size_t)((long)k * g->w % g->nc) / g->w * g->nr * g->w;
    size_t bpos = (size_t)((long)k * g->w % g->nr) * g->nc;
    size_t alen = (size_t)g->nr * g->w, blen = (size_t)g->w * g->nc;
    if (o->hy) {
        void *pa, *pb;
        zmpi_hy_bcast(&s->hrow, &s->ra, apos * sizeof(double),
                      alen * sizeof(double), s->row_root[acol], &pa);
        zmpi_hy_bcast(&s->hcol, &s->rb, bpos * sizeof(double),
                      blen * sizeof(double), s->col_root[arow], &pb);
        *ap = pa;
        *bp = pb;
        return;
    }
    /* The owner broadcasts straight from its block. */
    double *abuf = g->pc == acol ? s->a + apos : s->abuf;
    double *bbuf = g->pr == arow ? s->b + bpos : s->bbuf;
    MPI_Bcast(abuf, (int)alen, MPI_DOUBLE, acol, g->row);
    MPI_Bcast(bbuf, (int)blen, MPI_DOUBLE, arow, g->col);
    *ap = abuf;
    *bp = bbuf;
}

/* Runs one multiplication into c (zeroed here). */
static void summa(const struct opts *o, const struct grid *g,
                  struct panels *s, double *c)
{
    memset(c, 0, (size_t)g->nr * g->nc * sizeof(double));
    for (int k = 0; k < o->n / g->w; k++) {
        const double *ap, *bp;
        get_panels(o, g, s, k, &ap, &bp);
        gemm_panel(g->nr, g->nc, g->w, ap, bp, c);
    }
}

/* Returns the number of entries of this rank's block of C that differ
 * from the closed form. */
static long check_block(int n, const struct grid *g, const double *c)
{
    double s1 = (double)n * (n - 1) / 2;
    double s2 = (double)(n - 1) * n * (2.0 * n - 1) / 6;
    long bad = 0;
    for (int i = 0; i < g->nr; i++)
        for (int j = 0; j < g->nc; j++) {
            double gi = (double)g->pr * g->nr + i;
            double gj = (double)g->pc * g->nc + j;
            double want = gi * s1 - n * gi * gj + 2 * s2 - 2 * gj * s1;
            if (c[(long)i * g->nc + j] != want)
                bad++;
        }
    return bad;
}

int main(int argc, char **argv)
{
    struct opts o;
    struct grid g;
    struct panels s;
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (parse_opts(argc, argv, rank, &o) != 0 ||
        make_grid(MPI_COMM_WORLD, o.n, &g) != 0) {
        MPI_Finalize();
        return 1;
    }
    setup_panels(&o, &g, &s);
    double *c = malloc((size_t)g.nr * g.nc * sizeof(double));
    if (c == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    double best = 1e30;
    for (int r = 0; r < o.reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        summa(&o, &g, &s, c);
        double t = MPI_Wtime() - t0, tmax;
        MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (tmax < best)
            best = tmax;
    }
    long bad = check_block(o.n, &g, c), allbad = 0;
    MPI_Allreduce(&bad, &allbad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("summa: variant %s ranks %d grid %dx%d n %d panel %d "
               "time_s %.6f gflops %.3f check %s\n", o.hy ? "hy" : "mpi",
               size, g.prows, g.pcols, o.n, g.w, best,
               2.0 * o.n * o.n * (double)o.n / best * 1e-9,
               allbad == 0 ? "OK" : "FAILED");
    if (allbad != 0 && rank == 0)
        fprintf(stderr, "summa: %ld wrong entries\n", allbad);
    free(c);
    free_panels(&o, &s);
    MPI_Comm_free(&g.row);
    MPI_Comm_free(&g.col);
    MPI_Finalize();
    return allbad == 0 ? 0 : 1;
}
