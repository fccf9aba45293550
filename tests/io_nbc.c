/*
 * io_nbc.c: non-blocking collective access and the non-blocking
 * independent calls.  Rank 0 starts MPI_File_iwrite_at_all and then waits
 * for a message that the last rank sends only before starting its own
 * iwrite_at_all: the calls must not wait for each other.  Two
 * non-blocking collectives are outstanding at once, with a strided view
 * and a non-contiguous memory type; the file is compared with a serial
 * model and read back with iread_all.
 */
#include "io_util.h"

#define NI 6 /* ints per rank per access */

int main(int argc, char **argv)
{
    int rank, size;
    char dir[IO_PATH_MAX], path[IO_PATH_MAX];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_tmpdir(MPI_COMM_WORLD, dir);
    io_path(path, dir, "nbc.dat");
    MPI_Datatype ft, mem;
    MPI_Type_create_resized(MPI_INT, 0, (MPI_Aint)size * 4, &ft);
    MPI_Type_commit(&ft);
    MPI_Type_vector(NI, 1, 3, MPI_INT, &mem);
    MPI_Type_commit(&mem);
    int a[3 * NI], b[3 * NI];
    for (int i = 0; i < 3 * NI; i++) {
        a[i] = i % 3 == 0 ? (i / 3) * size + rank : -7;
        b[i] = i % 3 == 0 ? (NI + i / 3) * size + rank : -7;
    }
    MPI_File fh;
    ZT_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                        &fh));
    ZT_OK(MPI_File_set_view(fh, (MPI_Offset)rank * 4, MPI_INT, ft, "native", MPI_INFO_NULL));
    MPI_Request rq[2];
    int token = 42;
    if (rank == size - 1 && size > 1)
        MPI_Send(&token, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
    ZT_OK(MPI_File_iwrite_at_all(fh, 0, a, 1, mem, &rq[0]));
    if (rank == 0 && size > 1) {
        token = 0;
        MPI_Recv(&token, 1, MPI_INT, size - 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        ZT_EQ(token, 42, "token");
    }
    ZT_OK(MPI_File_seek(fh, NI, MPI_SEEK_SET));
    ZT_OK(MPI_File_iwrite_all(fh, b, 1, mem, &rq[1]));
    MPI_Offset pos;
    ZT_OK(MPI_File_get_position(fh, &pos));
    ZT_EQ(pos, 2 * NI, "individual pointer moved at the start");
    MPI_Status st[2];
    ZT_OK(MPI_Waitall(2, rq, st));
    int n;
    ZT_OK(MPI_Get_count(&st[0], MPI_INT, &n));
    ZT_EQ(n, NI, "ints of the first write");
    ZT_OK(MPI_File_sync(fh));
    if (rank == 0) {
        int *want = zt_malloc(sizeof(int) * 2 * NI * size);
        for (int i = 0; i < 2 * NI * size; i++)
            want[i] = i;
        io_expect_file(path, (unsigned char *)want, (long)sizeof(int) * 2 * NI * size);
        free(want);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* Read back: both halves at once. */
    int r1[NI], r2[NI];
    ZT_OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    ZT_OK(MPI_File_iread_all(fh, r1, NI, MPI_INT, &rq[0]));
    ZT_OK(MPI_File_iread_at_all(fh, NI, r2, NI, MPI_INT, &rq[1]));
    ZT_OK(MPI_Waitall(2, rq, st));
    ZT_OK(MPI_Get_count(&st[1], MPI_INT, &n));
    ZT_EQ(n, NI, "ints of the second read");
    for (int i = 0; i < NI; i++) {
        ZT_EQ(r1[i], i * size + rank, "first half read back");
        ZT_EQ(r2[i], (NI + i) * size + rank, "second half read back");
    }
    /* The large-count forms. */
    MPI_Count ext = 0;
    ZT_OK(MPI_File_get_type_extent_c(fh, MPI_INT, &ext));
    ZT_EQ(ext, 4, "large-count type extent");
    memset(r1, 0, sizeof(r1));
    ZT_OK(MPI_File_read_at_all_c(fh, 0, r1, (MPI_Count)NI, MPI_INT, &st[0]));
    int cn = 0;
    ZT_OK(MPI_Get_count(&st[0], MPI_INT, &cn));
    ZT_EQ(cn, NI, "ints of the large-count read");
    for (int i = 0; i < NI; i++)
        ZT_EQ(r1[i], i * size + rank, "large-count read");
    ZT_OK(MPI_File_close(&fh));
    MPI_Type_free(&ft);
    MPI_Type_free(&mem);
    io_rmdir(MPI_COMM_WORLD, dir);
    MPI_Finalize();
    if (rank == 0)
        printf("io_nbc: ok\n");
    return 0;
}
