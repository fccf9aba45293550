/*
 * io_bench.c: MPI-IO collective bandwidth (issue 18).  Plain MPI, so it
 * builds with zmpicc, mpicc.mpich and mpicc.openmpi alike.
 *
 * Two patterns, each written with MPI_File_write_all and read back with
 * MPI_File_read_all (the read is checked):
 *   block3d  a 3-D array of doubles, block-distributed over a
 *            MPI_Dims_create grid of the ranks, each rank's block given by
 *            a subarray file view;
 *   strided  64-byte records, rank r writing records r, r + P, r + 2P, ...
 *            (each rank's records interleaved with all the others').
 * Options: -m MiB (total bytes per pattern, default 64), -i iterations
 * (default 3, best time reported), -d directory (default ${TMPDIR:-/tmp}),
 * -p block3d|strided (one pattern only; default both).
 * Output: one line per pattern with the bandwidths in MB/s (10^6 bytes).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REC 64

typedef struct opts {
    long mib;        /* total MiB per pattern */
    int iters;       /* repetitions */
    char dir[256];   /* directory of the files */
    char only[16];   /* the one pattern to run, or "" for both */
} opts_t;

static void parse(int argc, char **argv, opts_t *o)
{
    const char *t = getenv("TMPDIR");
    o->mib = 64;
    o->iters = 3;
    o->only[0] = '\0';
    snprintf(o->dir, sizeof(o->dir), "%s", t && *t ? t : "/tmp");
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "-m") == 0)
            o->mib = atol(argv[i + 1]);
        else if (strcmp(argv[i], "-i") == 0)
            o->iters = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "-d") == 0)
            snprintf(o->dir, sizeof(o->dir), "%s", argv[i + 1]);
        else if (strcmp(argv[i], "-p") == 0)
            snprintf(o->only, sizeof(o->only), "%s", argv[i + 1]);
    }
    if (o->mib < 1)
        o->mib = 1;
    if (o->iters < 1)
        o->iters = 1;
}

/* Time one collective write and one read of `count` elements of `mem`
 * through view (disp, ft); keeps the best of o->iters.  Returns 0 if the
 * data read back matches. */
static int run(const opts_t *o, const char *path, MPI_Offset disp, MPI_Datatype et,
               MPI_Datatype ft, void *buf, void *back, int count, MPI_Datatype mem,
               size_t bytes, double *tw, double *tr)
{
    MPI_File fh;
    *tw = *tr = 1e30;
    int bad = 0;
    for (int it = 0; it < o->iters; it++) {
        /* Files return their errors (MPI_ERRORS_RETURN): a directory that
         * does not exist must stop the run, not time nothing. */
        int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
                               MPI_INFO_NULL, &fh);
        if (rc != MPI_SUCCESS) {
            char msg[MPI_MAX_ERROR_STRING];
            int len = 0;
            MPI_Error_string(rc, msg, &len);
            fprintf(stderr, "io_bench: cannot open %s: %s\n", path, msg);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        MPI_File_set_view(fh, disp, et, ft, "native", MPI_INFO_NULL);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        MPI_File_write_all(fh, buf, count, mem, MPI_STATUS_IGNORE);
        MPI_File_sync(fh);
        double t1 = MPI_Wtime();
        MPI_File_seek(fh, 0, MPI_SEEK_SET);
        memset(back, 0, bytes);
        MPI_Barrier(MPI_COMM_WORLD);
        double t2 = MPI_Wtime();
        MPI_File_read_all(fh, back, count, mem, MPI_STATUS_IGNORE);
        double t3 = MPI_Wtime();
        MPI_File_close(&fh);
        double w = t1 - t0, r = t3 - t2, mw, mr;
        MPI_Allreduce(&w, &mw, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        MPI_Allreduce(&r, &mr, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (mw < *tw)
            *tw = mw;
        if (mr < *tr)
            *tr = mr;
        bad |= memcmp(buf, back, bytes) != 0;
    }
    int rank, anybad;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_File_delete(path, MPI_INFO_NULL);
    return anybad;
}

static void report(const char *name, int size, double total, double tw, double tr, int bad)
{
    printf("%-8s ranks %4d  MiB %8.1f  write %9.1f MB/s  read %9.1f MB/s%s\n", name, size,
           total / 1048576.0, total / tw / 1e6, total / tr / 1e6, bad ? "  READ MISMATCH" : "");
}

static int block3d(const opts_t *o, int rank, int size)
{
    int dims[3] = { 0, 0, 0 }, per[3] = { 0, 0, 0 }, coords[3];
    MPI_Dims_create(size, 3, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, per, 0, &cart);
    MPI_Cart_coords(cart, rank, 3, coords);
    /* A cube edge n per dimension multiple of the grid, about o->mib. */
    double want = (double)o->mib * 1048576.0 / 8.0;
    int n = 1;
    while ((double)(n + 1) * (n + 1) * (n + 1) <= want)
        n++;
    int g[3], l[3], s[3];
    for (int d = 0; d < 3; d++) {
        l[d] = n / dims[d] > 0 ? n / dims[d] : 1;
        g[d] = l[d] * dims[d];
        s[d] = coords[d] * l[d];
    }
    MPI_Datatype ft;
    MPI_Type_create_subarray(3, g, l, s, MPI_ORDER_C, MPI_DOUBLE, &ft);
    MPI_Type_commit(&ft);
    size_t cnt = (size_t)l[0] * l[1] * l[2];
    double *a = malloc(cnt * 8), *b = malloc(cnt * 8);
    for (size_t i = 0; i < cnt; i++)
        a[i] = rank * 1e9 + (double)i;
    char path[512];
    snprintf(path, sizeof(path), "%s/io_bench_block3d.dat", o->dir);
    double tw, tr;
    int bad = run(o, path, 0, MPI_DOUBLE, ft, a, b, (int)cnt, MPI_DOUBLE, cnt * 8, &tw, &tr);
    if (rank == 0)
        report("block3d", size, (double)g[0] * g[1] * g[2] * 8, tw, tr, bad);
    free(a);
    free(b);
    MPI_Type_free(&ft);
    MPI_Comm_free(&cart);
    return bad;
}

static int strided(const opts_t *o, int rank, int size)
{
    long nrec = o->mib * 1048576L / REC / size;
    if (nrec < 1)
        nrec = 1;
    MPI_Datatype rec, ft;
    MPI_Type_contiguous(REC, MPI_BYTE, &rec);
    MPI_Type_create_resized(rec, 0, (MPI_Aint)size * REC, &ft);
    MPI_Type_commit(&ft);
    size_t bytes = (size_t)nrec * REC;
    unsigned char *a = malloc(bytes), *b = malloc(bytes);
    for (size_t i = 0; i < bytes; i++)
        a[i] = (unsigned char)(rank * 7 + i * 13);
    char path[512];
    snprintf(path, sizeof(path), "%s/io_bench_strided.dat", o->dir);
    double tw, tr;
    int bad = run(o, path, (MPI_Offset)rank * REC, MPI_BYTE, ft, a, b, (int)bytes, MPI_BYTE,
                  bytes, &tw, &tr);
    if (rank == 0)
        report("strided", size, (double)bytes * size, tw, tr, bad);
    free(a);
    free(b);
    MPI_Type_free(&rec);
    MPI_Type_free(&ft);
    return bad;
}

int main(int argc, char **argv)
{
    int rank, size;
    opts_t o;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    parse(argc, argv, &o);
    int bad = 0;
    if (!o.only[0] || strcmp(o.only, "block3d") == 0)
        bad |= block3d(&o, rank, size);
    if (!o.only[0] || strcmp(o.only, "strided") == 0)
        bad |= strided(&o, rank, size);
    MPI_Finalize();
    return bad;
}
