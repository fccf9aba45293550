/*
 * net_io_cross.c: what a file opened by ranks of several processes must
 * keep job-wide (docs/net.md, "Files across processes"), checked with
 * every rank's neighbours in another process (zmpirun --interleave).  It
 * also runs in one process, where the same must hold.
 *
 * - MPI_MODE_EXCL: one process creates the file, none of the others then
 *   reports that it exists; a second exclusive open fails everywhere.
 * - Atomic mode: writers rewrite a strided region (one system call per
 *   block) while readers read it; every read sees one writer's complete
 *   data, never a mix.
 * - The shared file pointer: records of every rank written at the shared
 *   pointer land once each, without overlap, and the pointer's position
 *   is the same everywhere.
 * - MPI_File_set_size, MPI_MODE_DELETE_ON_CLOSE.
 */
#include "io_util.h"

#define BLOCKS 64
#define BLOCK 256
#define ROUNDS 40

/* Writers (even ranks) and readers (odd ranks) hit the same strided
 * region in atomic mode; a reader must see one writer's bytes in every
 * block of one read. */
static void check_atomic(MPI_Comm comm, const char *dir, int rank, int size)
{
    char path[IO_PATH_MAX];
    io_path(path, dir, "atomic.dat");
    MPI_File fh;
    ZT_OK(MPI_File_open(comm, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MPI_Datatype ft;
    ZT_OK(MPI_Type_vector(BLOCKS, BLOCK, 2 * BLOCK, MPI_BYTE, &ft));
    ZT_OK(MPI_Type_commit(&ft));
    ZT_OK(MPI_File_set_view(fh, 0, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    ZT_OK(MPI_File_set_atomicity(fh, 1));
    unsigned char *buf = zt_malloc(BLOCKS * BLOCK);
    memset(buf, 1, BLOCKS * BLOCK);
    if (rank == 0)
        ZT_OK(MPI_File_write_at(fh, 0, buf, BLOCKS * BLOCK, MPI_BYTE, MPI_STATUS_IGNORE));
    ZT_OK(MPI_Barrier(comm));
    for (int r = 0; r < ROUNDS; r++) {
        if (rank % 2 == 0 || size == 1) {
            memset(buf, 2 + rank % 200, BLOCKS * BLOCK);
            ZT_OK(MPI_File_write_at(fh, 0, buf, BLOCKS * BLOCK, MPI_BYTE, MPI_STATUS_IGNORE));
        } else {
            ZT_OK(MPI_File_read_at(fh, 0, buf, BLOCKS * BLOCK, MPI_BYTE, MPI_STATUS_IGNORE));
            for (int i = 1; i < BLOCKS * BLOCK; i++)
                ZT_CHECK(buf[i] == buf[0], "round %d: atomic read saw byte %d = %d after %d: "
                         "two writers' data mixed", r, i, buf[i], buf[0]);
        }
    }
    free(buf);
    ZT_OK(MPI_Type_free(&ft));
    ZT_OK(MPI_File_close(&fh));
}

/* Every rank writes rank + 1 records of 8 bytes at the shared pointer;
 * afterwards each rank's records appear exactly rank + 1 times. */
static void check_shared(MPI_Comm comm, const char *dir, int rank, int size)
{
    char path[IO_PATH_MAX];
    io_path(path, dir, "shared.dat");
    MPI_File fh;
    ZT_OK(MPI_File_open(comm, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    int64_t rec = rank;
    for (int i = 0; i <= rank; i++)
        ZT_OK(MPI_File_write_shared(fh, &rec, 8, MPI_BYTE, MPI_STATUS_IGNORE));
    ZT_OK(MPI_Barrier(comm));
    MPI_Offset pos, want = 8 * (MPI_Offset)size * (size + 1) / 2;
    ZT_OK(MPI_File_get_position_shared(fh, &pos));
    ZT_EQ((long long)pos, (long long)want, "shared pointer after every rank's writes");
    ZT_OK(MPI_File_sync(fh));
    ZT_OK(MPI_Barrier(comm));
    if (rank == 0) {
        long len = 0;
        unsigned char *b = io_slurp(path, &len);
        ZT_EQ((long long)len, (long long)want, "file size");
        int *seen = calloc((size_t)size, sizeof(int));
        for (long i = 0; i < len / 8; i++) {
            int64_t v;
            memcpy(&v, b + 8 * i, 8);
            ZT_CHECK(v >= 0 && v < size, "record %ld holds %lld", i, (long long)v);
            seen[v]++;
        }
        for (int r = 0; r < size; r++)
            ZT_EQ(seen[r], r + 1, "records of a rank");
        free(seen);
        free(b);
    }
    /* Collective seek, then the ordered form continues from there. */
    ZT_OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    ZT_OK(MPI_File_write_ordered(fh, &rec, 8, MPI_BYTE, MPI_STATUS_IGNORE));
    ZT_OK(MPI_File_get_position_shared(fh, &pos));
    ZT_EQ((long long)pos, 8LL * size, "shared pointer after the ordered write");
    rec = -1;
    ZT_OK(MPI_File_read_at_all(fh, 8 * rank, &rec, 8, MPI_BYTE, MPI_STATUS_IGNORE));
    ZT_EQ((long long)rec, (long long)rank, "ordered record");
    ZT_OK(MPI_File_close(&fh));
}

/* Exclusive creation, sizes and deletion on close. */
static void check_open_close(MPI_Comm comm, const char *dir, int rank)
{
    char path[IO_PATH_MAX];
    io_path(path, dir, "excl.dat");
    MPI_File fh;
    ZT_OK(MPI_File_open(comm, path, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY |
                        MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    MPI_File fh2 = MPI_FILE_NULL;
    IO_ERR(MPI_File_open(comm, path, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY,
                         MPI_INFO_NULL, &fh2), MPI_ERR_FILE_EXISTS);
    ZT_CHECK(fh2 == MPI_FILE_NULL, "a failed open returned a handle");
    ZT_OK(MPI_File_set_size(fh, 12345));
    MPI_Offset sz = 0;
    ZT_OK(MPI_File_get_size(fh, &sz));
    ZT_EQ((long long)sz, 12345LL, "size after MPI_File_set_size");
    ZT_OK(MPI_File_close(&fh));
    ZT_CHECK(!io_exists(path), "rank %d: %s still exists after closing it "
             "MPI_MODE_DELETE_ON_CLOSE", rank, path);
}

int main(int argc, char **argv)
{
    int rank, size;
    zt_init_errors_return(&argc, &argv, &rank, &size);
    char dir[IO_PATH_MAX];
    io_tmpdir(MPI_COMM_WORLD, dir);
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    check_open_close(MPI_COMM_WORLD, dir, rank);
    check_shared(MPI_COMM_WORLD, dir, rank, size);
    check_atomic(MPI_COMM_WORLD, dir, rank, size);
    io_rmdir(MPI_COMM_WORLD, dir);
    if (rank == 0)
        printf("net_io_cross: %d ranks passed\n", size);
    MPI_Finalize();
    return 0;
}
