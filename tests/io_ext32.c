/*
 * io_ext32.c: the "external32" data representation.  Each rank writes an
 * int and a double (a struct etype with a hole in memory) through an
 * external32 view; the file must hold the big-endian IEEE image computed
 * here by hand, read back to the same values through external32, and to
 * the raw big-endian bytes through a native view.  A type external32
 * stores in a different size (long: 4 bytes there) is refused.  A
 * representation made with MPI_Register_datarep converts through the
 * program's functions.
 */
#include "io_util.h"

#include <stddef.h>
#include <stdint.h>

typedef struct pair {
    int i;
    double d;
} pair_t;

static void put_be(unsigned char *p, uint64_t v, int n)
{
    for (int k = 0; k < n; k++)
        p[k] = (unsigned char)(v >> (8 * (n - 1 - k)));
}

/* A representation that stores each byte of an int XORed with 0x42. */
static int xor_write(void *userbuf, MPI_Datatype dt, int count, void *filebuf,
                     MPI_Offset position, void *extra)
{
    int sz;
    MPI_Type_size(dt, &sz);
    const unsigned char *u = (const unsigned char *)userbuf + position * sz;
    unsigned char *f = filebuf;
    (*(int *)extra)++;
    for (long i = 0; i < (long)count * sz; i++)
        f[i] = u[i] ^ 0x42;
    return MPI_SUCCESS;
}

static int xor_read(void *userbuf, MPI_Datatype dt, int count, void *filebuf,
                    MPI_Offset position, void *extra)
{
    int sz;
    MPI_Type_size(dt, &sz);
    unsigned char *u = (unsigned char *)userbuf + position * sz;
    const unsigned char *f = filebuf;
    (*(int *)extra)++;
    for (long i = 0; i < (long)count * sz; i++)
        u[i] = f[i] ^ 0x42;
    return MPI_SUCCESS;
}

static int xor_extent(MPI_Datatype dt, MPI_Aint *extent, void *extra)
{
    int sz;
    (void)extra;
    MPI_Type_size(dt, &sz);
    *extent = sz;
    return MPI_SUCCESS;
}

/* MPI_Register_datarep: ints through the XOR representation. */
static void user_datarep(const char *dir, int rank, int size)
{
    char path[IO_PATH_MAX];
    int calls = 0;
    io_path(path, dir, "xor.dat");
    ZT_OK(MPI_Register_datarep("xor42", xor_read, xor_write, xor_extent, &calls));
    IO_ERR(MPI_Register_datarep("xor42", xor_read, xor_write, xor_extent, &calls),
           MPI_ERR_DUP_DATAREP);
    IO_ERR(MPI_Register_datarep("external32", xor_read, xor_write, xor_extent, &calls),
           MPI_ERR_DUP_DATAREP);
    MPI_File fh;
    int v[2] = { rank, -rank }, back[2] = { 7, 7 };
    ZT_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                        &fh));
    ZT_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "xor42", MPI_INFO_NULL));
    ZT_OK(MPI_File_write_at_all(fh, 2 * rank, v, 2, MPI_INT, MPI_STATUS_IGNORE));
    ZT_EQ(calls, 1, "write conversions");
    ZT_OK(MPI_File_sync(fh));
    ZT_OK(MPI_File_read_at(fh, 2 * ((rank + 1) % size), back, 2, MPI_INT, MPI_STATUS_IGNORE));
    ZT_EQ(calls, 2, "read conversions");
    ZT_EQ(back[0], (rank + 1) % size, "int through the user representation");
    ZT_EQ(back[1], -((rank + 1) % size), "second int through the user representation");
    ZT_OK(MPI_File_close(&fh));
    if (rank == 0) {
        unsigned char *want = zt_malloc((size_t)size * 8);
        for (int r = 0; r < size; r++) {
            int w[2] = { r, -r };
            memcpy(want + r * 8, w, 8);
        }
        for (int i = 0; i < size * 8; i++)
            want[i] ^= 0x42;
        io_expect_file(path, want, (long)size * 8);
        free(want);
    }
}

/* The large-count conversion functions of MPI_Register_datarep_c. */
static int xor_write_c(void *userbuf, MPI_Datatype dt, MPI_Count count, void *filebuf,
                       MPI_Offset position, void *extra)
{
    return xor_write(userbuf, dt, (int)count, filebuf, position, extra);
}

static int xor_read_c(void *userbuf, MPI_Datatype dt, MPI_Count count, void *filebuf,
                      MPI_Offset position, void *extra)
{
    return xor_read(userbuf, dt, (int)count, filebuf, position, extra);
}

/* MPI_Register_datarep_c: three ints per rank through the XOR
 * representation, one conversion call per access; names are shared with
 * the int form's registrations. */
static void user_datarep_c(const char *dir, int rank, int size)
{
    char path[IO_PATH_MAX];
    int calls = 0;
    io_path(path, dir, "xorc.dat");
    ZT_OK(MPI_Register_datarep_c("xor42c", xor_read_c, xor_write_c, xor_extent, &calls));
    IO_ERR(MPI_Register_datarep_c("xor42", xor_read_c, xor_write_c, xor_extent, &calls),
           MPI_ERR_DUP_DATAREP);
    IO_ERR(MPI_Register_datarep_c("xor42d", xor_read_c, xor_write_c, NULL, &calls),
           MPI_ERR_ARG);
    MPI_File fh;
    int v[3] = { rank, -rank, 3 * rank + 1 }, back[3] = { 7, 7, 7 };
    ZT_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                        &fh));
    ZT_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "xor42c", MPI_INFO_NULL));
    ZT_OK(MPI_File_write_at_all(fh, 3 * rank, v, 3, MPI_INT, MPI_STATUS_IGNORE));
    ZT_EQ(calls, 1, "write conversions (_c)");
    ZT_OK(MPI_File_sync(fh));
    int peer = (rank + 1) % size;
    ZT_OK(MPI_File_read_at(fh, 3 * peer, back, 3, MPI_INT, MPI_STATUS_IGNORE));
    ZT_EQ(calls, 2, "read conversions (_c)");
    for (int i = 0; i < 3; i++)
        ZT_EQ(back[i], i == 0 ? peer : i == 1 ? -peer : 3 * peer + 1,
              "int through the _c user representation");
    ZT_OK(MPI_File_close(&fh));
    if (rank == 0) {
        unsigned char *want = zt_malloc((size_t)size * 12);
        for (int r = 0; r < size; r++) {
            int w[3] = { r, -r, 3 * r + 1 };
            memcpy(want + r * 12, w, 12);
        }
        for (int i = 0; i < size * 12; i++)
            want[i] ^= 0x42;
        io_expect_file(path, want, (long)size * 12);
        free(want);
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    char dir[IO_PATH_MAX], path[IO_PATH_MAX];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_tmpdir(MPI_COMM_WORLD, dir);
    io_path(path, dir, "ext32.dat");
    int bl[2] = { 1, 1 };
    MPI_Aint dp[2] = { offsetof(pair_t, i), offsetof(pair_t, d) };
    MPI_Datatype tys[2] = { MPI_INT, MPI_DOUBLE }, pt;
    MPI_Type_create_struct(2, bl, dp, tys, &pt);
    MPI_Type_commit(&pt);
    pair_t v = { rank * 1000 - 3, rank + 0.25 };
    MPI_File fh;
    ZT_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                        &fh));
    ZT_OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL));
    MPI_Aint ext;
    ZT_OK(MPI_File_get_type_extent(fh, MPI_INT, &ext));
    ZT_EQ(ext, 4, "external32 extent of MPI_INT");
    /* 12 data bytes per rank: int then double, no hole in the file. */
    ZT_OK(MPI_File_write_at_all(fh, (MPI_Offset)rank * 12, &v, 1, pt, MPI_STATUS_IGNORE));
    ZT_OK(MPI_File_sync(fh));
    if (rank == 0) {
        unsigned char *want = zt_malloc((size_t)size * 12);
        for (int r = 0; r < size; r++) {
            double d = r + 0.25;
            uint64_t bits;
            memcpy(&bits, &d, 8);
            put_be(want + r * 12, (uint32_t)(r * 1000 - 3), 4);
            put_be(want + r * 12 + 4, bits, 8);
        }
        io_expect_file(path, want, (long)size * 12);
        free(want);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int peer = (rank + 1) % size;
    pair_t back = { 0, 0 };
    ZT_OK(MPI_File_read_at(fh, (MPI_Offset)peer * 12, &back, 1, pt, MPI_STATUS_IGNORE));
    ZT_EQ(back.i, peer * 1000 - 3, "int read through external32");
    ZT_CHECK(back.d == peer + 0.25, "double read through external32: %g", back.d);
    /* The same bytes through a native view are big-endian. */
    ZT_OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    unsigned char raw[4];
    ZT_OK(MPI_File_read_at(fh, (MPI_Offset)peer * 12, raw, 4, MPI_BYTE, MPI_STATUS_IGNORE));
    uint32_t be = (uint32_t)raw[0] << 24 | (uint32_t)raw[1] << 16 | (uint32_t)raw[2] << 8 | raw[3];
    ZT_EQ((int32_t)be, peer * 1000 - 3, "big-endian int in the file");
    IO_ERR(MPI_File_set_view(fh, 0, MPI_LONG, MPI_LONG, "external32",
                             MPI_INFO_NULL), MPI_ERR_UNSUPPORTED_DATAREP);
    ZT_OK(MPI_File_close(&fh));
    MPI_Type_free(&pt);
    user_datarep(dir, rank, size);
    user_datarep_c(dir, rank, size);
    io_rmdir(MPI_COMM_WORLD, dir);
    MPI_Finalize();
    if (rank == 0)
        printf("io_ext32: ok\n");
    return 0;
}
