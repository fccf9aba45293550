/*
 * io_shared.c: the shared file pointer.  Concurrent MPI_File_write_shared
 * calls of all ranks must leave every record in the file exactly once;
 * MPI_File_write_ordered must place the ranks' pieces in rank order (of
 * different sizes); read_shared must hand every record to exactly one
 * rank; read_ordered and the split ordered calls read in rank order;
 * seek_shared and get_position_shared move and report the pointer.
 */
#include "io_util.h"

#define K 9 /* records per rank */

typedef struct rec {
    int rank, seq, check, pad;
} rec_t;

static void shared_writes(const char *path, int rank, int size)
{
    MPI_File fh;
    MPI_Datatype rt;
    MPI_Type_contiguous(4, MPI_INT, &rt);
    MPI_Type_commit(&rt);
    ZT_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                        &fh));
    ZT_OK(MPI_File_set_view(fh, 0, rt, rt, "native", MPI_INFO_NULL));
    for (int k = 0; k < K; k++) {
        rec_t r = { rank, k, rank * 31 + k * 7, 0 };
        if (k % 3 == 2) {
            MPI_Request rq;
            ZT_OK(MPI_File_iwrite_shared(fh, &r, 1, rt, &rq));
            ZT_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        } else {
            ZT_OK(MPI_File_write_shared(fh, &r, 1, rt, MPI_STATUS_IGNORE));
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Offset pos;
    ZT_OK(MPI_File_get_position_shared(fh, &pos));
    ZT_EQ(pos, (MPI_Offset)size * K, "shared pointer after the writes");
    /* read_shared: every record goes to exactly one rank. */
    ZT_OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    int *seen = zt_malloc(sizeof(int) * size * K);
    memset(seen, 0, sizeof(int) * size * K);
    for (;;) {
        rec_t r;
        MPI_Status st;
        int n;
        ZT_OK(MPI_File_read_shared(fh, &r, 1, rt, &st));
        ZT_OK(MPI_Get_count(&st, rt, &n));
        if (n == 0)
            break;
        ZT_CHECK(r.rank >= 0 && r.rank < size && r.seq >= 0 && r.seq < K &&
                 r.check == r.rank * 31 + r.seq * 7, "bad record (%d, %d, %d)", r.rank, r.seq,
                 r.check);
        seen[r.rank * K + r.seq]++;
    }
    int *all = zt_malloc(sizeof(int) * size * K);
    MPI_Allreduce(seen, all, size * K, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < size * K; i++)
        ZT_EQ(all[i], 1, "times a record was read");
    ZT_OK(MPI_File_close(&fh));
    if (rank == 0) {
        long len = -1;
        unsigned char *f = io_slurp(path, &len);
        ZT_EQ(len, (long)sizeof(rec_t) * size * K, "file size");
        memset(seen, 0, sizeof(int) * size * K);
        rec_t *r = (rec_t *)f;
        for (int i = 0; i < size * K; i++) {
            ZT_CHECK(r[i].check == r[i].rank * 31 + r[i].seq * 7, "record %d corrupt", i);
            seen[r[i].rank * K + r[i].seq]++;
        }
        for (int i = 0; i < size * K; i++)
            ZT_EQ(seen[i], 1, "times a record is in the file");
        free(f);
    }
    free(seen);
    free(all);
    MPI_Type_free(&rt);
}

/* Rank r writes r % 4 + 1 ints of value r, in rank order, twice. */
static void ordered(const char *path, int rank, int size)
{
    MPI_File fh;
    int n = rank % 4 + 1, v[4] = { rank, rank, rank, rank };
    ZT_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                        &fh));
    ZT_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    ZT_OK(MPI_File_write_ordered(fh, v, n, MPI_INT, MPI_STATUS_IGNORE));
    ZT_OK(MPI_File_write_ordered_begin(fh, v, n, MPI_INT));
    ZT_OK(MPI_File_write_ordered_end(fh, v, MPI_STATUS_IGNORE));
    long total = 0;
    for (int r = 0; r < size; r++)
        total += r % 4 + 1;
    MPI_Offset pos;
    ZT_OK(MPI_File_get_position_shared(fh, &pos));
    ZT_EQ(pos, 2 * total, "shared pointer after ordered writes");
    /* Read back in rank order from the start. */
    ZT_OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    int got[4] = { -1, -1, -1, -1 };
    MPI_Status st;
    int cnt;
    ZT_OK(MPI_File_read_ordered(fh, got, n, MPI_INT, &st));
    ZT_OK(MPI_Get_count(&st, MPI_INT, &cnt));
    ZT_EQ(cnt, n, "ints read in order");
    for (int i = 0; i < n; i++)
        ZT_EQ(got[i], rank, "ordered read");
    ZT_OK(MPI_File_read_ordered_begin(fh, got, n, MPI_INT));
    ZT_OK(MPI_File_read_ordered_end(fh, got, &st));
    for (int i = 0; i < n; i++)
        ZT_EQ(got[i], rank, "split ordered read");
    ZT_OK(MPI_File_seek_shared(fh, -1, MPI_SEEK_END));
    ZT_OK(MPI_File_get_position_shared(fh, &pos));
    ZT_EQ(pos, 2 * total - 1, "shared pointer after SEEK_END");
    ZT_OK(MPI_File_close(&fh));
    if (rank == 0) {
        int *want = zt_malloc(sizeof(int) * 2 * total);
        long k = 0;
        for (int pass = 0; pass < 2; pass++)
            for (int r = 0; r < size; r++)
                for (int i = 0; i < r % 4 + 1; i++)
                    want[k++] = r;
        io_expect_file(path, (unsigned char *)want, (long)sizeof(int) * 2 * total);
        free(want);
    }
}

/* MPI_MODE_SEQUENTIAL allows only the shared pointer. */
static void sequential(const char *path)
{
    MPI_File fh;
    int x = 5;
    ZT_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY |
                        MPI_MODE_SEQUENTIAL, MPI_INFO_NULL, &fh));
    IO_ERR(MPI_File_write_at(fh, 0, &x, 1, MPI_INT, MPI_STATUS_IGNORE),
           MPI_ERR_UNSUPPORTED_OPERATION);
    IO_ERR(MPI_File_seek(fh, 0, MPI_SEEK_SET), MPI_ERR_UNSUPPORTED_OPERATION);
    ZT_OK(MPI_File_write_ordered(fh, &x, 1, MPI_INT, MPI_STATUS_IGNORE));
    ZT_OK(MPI_File_close(&fh));
}

int main(int argc, char **argv)
{
    int rank, size;
    char dir[IO_PATH_MAX], path[IO_PATH_MAX];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_tmpdir(MPI_COMM_WORLD, dir);
    io_path(path, dir, "shared.dat");
    shared_writes(path, rank, size);
    io_path(path, dir, "ordered.dat");
    ordered(path, rank, size);
    io_path(path, dir, "seq.dat");
    sequential(path);
    io_rmdir(MPI_COMM_WORLD, dir);
    MPI_Finalize();
    if (rank == 0)
        printf("io_shared: ok\n");
    return 0;
}
