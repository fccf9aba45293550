/*
 * io_coll.c: collective access with in-process aggregation: each rank
 * writes 64-byte records interleaved with all the others' (the strided
 * small-record pattern), under several hint settings (default, one
 * aggregator with a 4 KiB buffer so the domain takes many windows,
 * collective buffering disabled), with split collectives, and with ranks
 * that write nothing.  The file is compared with a serial model and read
 * back with another layout (contiguous chunks per rank).
 */
#include "io_util.h"

#define RECSZ 64
#define NREC 37

static unsigned char rec_byte(int rank, int k, int i)
{
    return zt_byte(rank, k, (size_t)i);
}

static void check_file(const char *path, int rank, int size)
{
    if (rank != 0)
        return;
    long len = (long)size * NREC * RECSZ;
    unsigned char *want = zt_malloc((size_t)len);
    for (int k = 0; k < NREC; k++)
        for (int r = 0; r < size; r++)
            for (int i = 0; i < RECSZ; i++)
                want[((long)k * size + r) * RECSZ + i] = rec_byte(r, k, i);
    io_expect_file(path, want, len);
    free(want);
}

/* Each rank reads a contiguous share of the file and checks it. */
static void read_chunks(MPI_File fh, int rank, int size)
{
    long nrec = (long)size * NREC, per = (nrec + size - 1) / size;
    long first = per * rank, cnt = first >= nrec ? 0 : (first + per > nrec ? nrec - first : per);
    unsigned char *b = zt_malloc((size_t)(per * RECSZ));
    MPI_Status st;
    int n;
    ZT_OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    ZT_OK(MPI_File_read_at_all(fh, first * RECSZ, b, (int)(cnt * RECSZ), MPI_BYTE, &st));
    ZT_OK(MPI_Get_count(&st, MPI_BYTE, &n));
    ZT_EQ(n, cnt * RECSZ, "bytes of the chunk");
    for (long q = 0; q < cnt; q++) {
        long g = first + q;
        int r = (int)(g % size), k = (int)(g / size);
        for (int i = 0; i < RECSZ; i++)
            ZT_EQ(b[q * RECSZ + i], rec_byte(r, k, i), "byte of a record read back");
    }
    free(b);
}

/* Write the interleaved records with the given hints (NULL: none); `how`
 * 0 = write_at_all, 1 = write_all, 2 = split write_all_begin/end. */
static void strided(const char *dir, const char *name, int rank, int size, MPI_Info info,
                    int how)
{
    char path[IO_PATH_MAX];
    io_path(path, dir, name);
    MPI_Datatype rec, ft;
    MPI_Type_contiguous(RECSZ, MPI_BYTE, &rec);
    MPI_Type_create_resized(rec, 0, (MPI_Aint)size * RECSZ, &ft);
    MPI_Type_commit(&ft);
    unsigned char *buf = zt_malloc(NREC * RECSZ);
    for (int k = 0; k < NREC; k++)
        for (int i = 0; i < RECSZ; i++)
            buf[k * RECSZ + i] = rec_byte(rank, k, i);
    MPI_File fh;
    MPI_Status st;
    int n;
    ZT_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    ZT_OK(MPI_File_set_view(fh, (MPI_Offset)rank * RECSZ, MPI_BYTE, ft, "native", info));
    if (how == 0) {
        ZT_OK(MPI_File_write_at_all(fh, 0, buf, NREC * RECSZ, MPI_BYTE, &st));
    } else if (how == 1) {
        ZT_OK(MPI_File_write_all(fh, buf, NREC * RECSZ, MPI_BYTE, &st));
    } else {
        ZT_OK(MPI_File_write_all_begin(fh, buf, NREC * RECSZ, MPI_BYTE));
        IO_ERR(MPI_File_write_all_begin(fh, buf, NREC * RECSZ, MPI_BYTE), MPI_ERR_OTHER);
        ZT_OK(MPI_File_write_all_end(fh, buf, &st));
    }
    ZT_OK(MPI_Get_count(&st, MPI_BYTE, &n));
    ZT_EQ(n, NREC * RECSZ, "bytes written collectively");
    /* Read own records back through the view, collectively. */
    unsigned char *back = zt_malloc(NREC * RECSZ);
    if (how == 2) {
        ZT_OK(MPI_File_read_at_all_begin(fh, 0, back, NREC * RECSZ, MPI_BYTE));
        ZT_OK(MPI_File_read_at_all_end(fh, back, &st));
    } else {
        ZT_OK(MPI_File_read_at_all(fh, 0, back, NREC * RECSZ, MPI_BYTE, &st));
    }
    ZT_CHECK(memcmp(back, buf, NREC * RECSZ) == 0, "own records read back");
    read_chunks(fh, rank, size);
    ZT_OK(MPI_File_close(&fh));
    check_file(path, rank, size);
    free(back);
    free(buf);
    MPI_Type_free(&rec);
    MPI_Type_free(&ft);
}

/* Only even ranks write; odd ones take part with count 0. */
static void some_empty(const char *dir, int rank, int size)
{
    char path[IO_PATH_MAX];
    io_path(path, dir, "sparse.dat");
    MPI_File fh;
    int v[4] = { rank, rank + 1, rank + 2, rank + 3 };
    ZT_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                        &fh));
    ZT_OK(MPI_File_write_at_all(fh, (MPI_Offset)rank * 16, v, rank % 2 ? 0 : 4, MPI_INT,
                                MPI_STATUS_IGNORE));
    /* Nobody writes anything. */
    ZT_OK(MPI_File_write_at_all(fh, 0, v, 0, MPI_INT, MPI_STATUS_IGNORE));
    ZT_OK(MPI_File_close(&fh));
    if (rank == 0) {
        int last = (size - 1) / 2 * 2;
        long len = (long)(last + 1) * 16;
        unsigned char *want = zt_calloc_bytes(len);
        for (int r = 0; r <= last; r += 2)
            for (int i = 0; i < 4; i++) {
                int x = r + i;
                memcpy(want + r * 16 + i * 4, &x, 4);
            }
        io_expect_file(path, want, len);
        free(want);
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    char dir[IO_PATH_MAX];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_tmpdir(MPI_COMM_WORLD, dir);
    strided(dir, "rec_default.dat", rank, size, MPI_INFO_NULL, 0);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_nodes", "1");
    MPI_Info_set(info, "cb_buffer_size", "4096");
    strided(dir, "rec_small.dat", rank, size, info, 1);
    MPI_Info_set(info, "romio_cb_write", "disable");
    MPI_Info_set(info, "romio_cb_read", "disable");
    strided(dir, "rec_nocb.dat", rank, size, info, 2);
    MPI_Info_free(&info);
    some_empty(dir, rank, size);
    io_rmdir(MPI_COMM_WORLD, dir);
    MPI_Finalize();
    if (rank == 0)
        printf("io_coll: ok\n");
    return 0;
}
