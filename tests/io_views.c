/*
 * io_views.c: file views of derived datatypes: an interleaved vector
 * view written collectively and independently from a strided memory
 * type, a 2-D subarray view from a haloed local array read back through a
 * cyclic darray view, and an indexed view with holes whose bytes must
 * stay untouched.  Every file is compared byte for byte with a serial
 * model.
 */
#include "io_util.h"

#define B 3 /* ints per block */
#define N 5 /* blocks per rank */

/* Vector view: rank r owns ints [B*(k*size + r), +B) for block k. */
static void interleaved(const char *dir, int rank, int size, int collective)
{
    char path[IO_PATH_MAX];
    io_path(path, dir, collective ? "vec_all.dat" : "vec_ind.dat");
    MPI_Datatype blk, ft, mem;
    MPI_Type_contiguous(B, MPI_INT, &blk);
    MPI_Type_create_resized(blk, 0, (MPI_Aint)size * B * 4, &ft);
    MPI_Type_commit(&ft);
    MPI_Type_vector(N * B, 1, 2, MPI_INT, &mem);
    MPI_Type_commit(&mem);
    int *buf = zt_malloc(sizeof(int) * 2 * N * B);
    for (int k = 0; k < N; k++)
        for (int i = 0; i < B; i++) {
            buf[2 * (k * B + i)] = B * (k * size + rank) + i;
            buf[2 * (k * B + i) + 1] = -1;
        }
    MPI_File fh;
    MPI_Status st;
    int n;
    ZT_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                        &fh));
    ZT_OK(MPI_File_set_view(fh, (MPI_Offset)rank * B * 4, MPI_INT, ft, "native",
                            MPI_INFO_NULL));
    if (collective)
        ZT_OK(MPI_File_write_all(fh, buf, 1, mem, &st));
    else
        ZT_OK(MPI_File_write(fh, buf, 1, mem, &st));
    ZT_OK(MPI_Get_count(&st, mem, &n));
    ZT_EQ(n, 1, "vector elements written");
    MPI_Offset pos, disp;
    ZT_OK(MPI_File_get_position(fh, &pos));
    ZT_EQ(pos, N * B, "position in etypes");
    ZT_OK(MPI_File_get_byte_offset(fh, B + 1, &disp));
    ZT_EQ(disp, (MPI_Offset)(rank * B + size * B + 1) * 4, "byte offset of etype B+1");
    MPI_Datatype et, ft2;
    char rep[MPI_MAX_DATAREP_STRING];
    ZT_OK(MPI_File_get_view(fh, &disp, &et, &ft2, rep));
    ZT_EQ(disp, (MPI_Offset)rank * B * 4, "view displacement");
    ZT_CHECK(et == MPI_INT && strcmp(rep, "native") == 0, "view etype and datarep");
    MPI_Aint lb, ext;
    MPI_Type_get_extent(ft2, &lb, &ext);
    ZT_EQ(ext, (MPI_Aint)size * B * 4, "view filetype extent");
    MPI_Type_free(&ft2);
    /* Read back through the same view into a contiguous buffer. */
    int *back = zt_malloc(sizeof(int) * N * B);
    MPI_Barrier(MPI_COMM_WORLD);
    ZT_OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    if (collective)
        ZT_OK(MPI_File_read_all(fh, back, N * B, MPI_INT, &st));
    else
        ZT_OK(MPI_File_read(fh, back, N * B, MPI_INT, &st));
    for (int k = 0; k < N * B; k++)
        ZT_EQ(back[k], buf[2 * k], "int read back through the view");
    ZT_OK(MPI_File_close(&fh));
    if (rank == 0) {
        int *want = zt_malloc(sizeof(int) * size * N * B);
        for (int k = 0; k < size * N * B; k++)
            want[k] = k;
        io_expect_file(path, (unsigned char *)want, (long)sizeof(int) * size * N * B);
        free(want);
    }
    free(back);
    free(buf);
    MPI_Type_free(&blk);
    MPI_Type_free(&ft);
    MPI_Type_free(&mem);
}

#define LR 3 /* local rows */
#define LC 5 /* local columns */

/* 2-D block distribution through subarray views, from haloed arrays. */
static void subarray_darray(const char *dir, int rank, int size)
{
    char path[IO_PATH_MAX];
    io_path(path, dir, "grid.dat");
    int dims[2] = { 0, 0 };
    MPI_Dims_create(size, 2, dims);
    int py = rank / dims[1], px = rank % dims[1];
    int gsz[2] = { dims[0] * LR, dims[1] * LC }, lsz[2] = { LR, LC };
    int start[2] = { py * LR, px * LC };
    MPI_Datatype ft, mem;
    MPI_Type_create_subarray(2, gsz, lsz, start, MPI_ORDER_C, MPI_DOUBLE, &ft);
    MPI_Type_commit(&ft);
    int hsz[2] = { LR + 2, LC + 2 }, one[2] = { 1, 1 };
    MPI_Type_create_subarray(2, hsz, lsz, one, MPI_ORDER_C, MPI_DOUBLE, &mem);
    MPI_Type_commit(&mem);
    double *a = zt_malloc(sizeof(double) * (LR + 2) * (LC + 2));
    for (int i = 0; i < LR + 2; i++)
        for (int j = 0; j < LC + 2; j++)
            a[i * (LC + 2) + j] = (i == 0 || j == 0 || i == LR + 1 || j == LC + 1)
                                      ? -1.0 : (start[0] + i - 1) * 1000.0 + start[1] + j - 1;
    MPI_File fh;
    ZT_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                        &fh));
    ZT_OK(MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL));
    ZT_OK(MPI_File_write_at_all(fh, 0, a, 1, mem, MPI_STATUS_IGNORE));
    /* Read it back through a cyclic darray over the array as 1-D. */
    int total = gsz[0] * gsz[1], g1[1] = { total }, distr[1] = { MPI_DISTRIBUTE_CYCLIC };
    int darg[1] = { 7 }, psz[1] = { size };
    MPI_Datatype dft;
    MPI_Type_create_darray(size, rank, 1, g1, distr, darg, psz, MPI_ORDER_C, MPI_DOUBLE, &dft);
    MPI_Type_commit(&dft);
    int mine = 0;
    for (int e = 0; e < total; e++)
        mine += (e / 7) % size == rank;
    double *back = zt_malloc(sizeof(double) * (size_t)(mine + 1));
    ZT_OK(MPI_File_set_view(fh, 0, MPI_DOUBLE, dft, "native", MPI_INFO_NULL));
    MPI_Status st;
    int n;
    ZT_OK(MPI_File_read_at_all(fh, 0, back, mine, MPI_DOUBLE, &st));
    ZT_OK(MPI_Get_count(&st, MPI_DOUBLE, &n));
    ZT_EQ(n, mine, "doubles read through the darray view");
    for (int e = 0, k = 0; e < total; e++)
        if ((e / 7) % size == rank) {
            double want = (e / gsz[1]) * 1000.0 + e % gsz[1];
            ZT_CHECK(back[k] == want, "element %d: %g, expected %g", e, back[k], want);
            k++;
        }
    ZT_OK(MPI_File_close(&fh));
    if (rank == 0) {
        double *want = zt_malloc(sizeof(double) * (size_t)total);
        for (int e = 0; e < total; e++)
            want[e] = (e / gsz[1]) * 1000.0 + e % gsz[1];
        io_expect_file(path, (unsigned char *)want, (long)sizeof(double) * total);
        free(want);
    }
    free(back);
    free(a);
    MPI_Type_free(&ft);
    MPI_Type_free(&mem);
    MPI_Type_free(&dft);
}

#define T 4 /* tiles per rank */

/* An indexed view with holes: the holes keep the file's old bytes. */
static void holes(const char *dir, int rank, int size, int collective)
{
    char path[IO_PATH_MAX];
    io_path(path, dir, collective ? "holes_all.dat" : "holes_ind.dat");
    long len = (long)size * 24 * T;
    MPI_File fh;
    ZT_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                        &fh));
    if (rank == 0) {
        unsigned char *fill = zt_malloc((size_t)len);
        memset(fill, 0xEE, (size_t)len);
        ZT_OK(MPI_File_write_at(fh, 0, fill, (int)len, MPI_BYTE, MPI_STATUS_IGNORE));
        free(fill);
    }
    ZT_OK(MPI_File_sync(fh));
    int bl[2] = { 1, 2 }, dp[2] = { 0, 3 };
    MPI_Datatype idx, ft;
    MPI_Type_indexed(2, bl, dp, MPI_INT, &idx);
    MPI_Type_create_resized(idx, 0, (MPI_Aint)size * 24, &ft);
    MPI_Type_commit(&ft);
    int v[3 * T];
    for (int k = 0; k < 3 * T; k++)
        v[k] = rank * 100 + k;
    ZT_OK(MPI_File_set_view(fh, (MPI_Offset)rank * 24, MPI_INT, ft, "native", MPI_INFO_NULL));
    if (collective)
        ZT_OK(MPI_File_write_all(fh, v, 3 * T, MPI_INT, MPI_STATUS_IGNORE));
    else
        ZT_OK(MPI_File_write(fh, v, 3 * T, MPI_INT, MPI_STATUS_IGNORE));
    ZT_OK(MPI_File_close(&fh));
    if (rank == 0) {
        unsigned char *want = zt_malloc((size_t)len);
        memset(want, 0xEE, (size_t)len);
        int at[3] = { 0, 3, 4 };
        for (int r = 0; r < size; r++)
            for (int t = 0; t < T; t++)
                for (int i = 0; i < 3; i++) {
                    int x = r * 100 + t * 3 + i;
                    memcpy(want + ((long)(t * size + r) * 6 + at[i]) * 4, &x, 4);
                }
        io_expect_file(path, want, len);
        free(want);
    }
    MPI_Type_free(&idx);
    MPI_Type_free(&ft);
}

int main(int argc, char **argv)
{
    int rank, size;
    char dir[IO_PATH_MAX];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_tmpdir(MPI_COMM_WORLD, dir);
    interleaved(dir, rank, size, 1);
    interleaved(dir, rank, size, 0);
    subarray_darray(dir, rank, size);
    holes(dir, rank, size, 1);
    holes(dir, rank, size, 0);
    io_rmdir(MPI_COMM_WORLD, dir);
    MPI_Finalize();
    if (rank == 0)
        printf("io_views: ok\n");
    return 0;
}
