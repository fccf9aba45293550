/*
 * io_basic.c: MPI-IO file management and independent access on one
 * shared file: open modes (CREATE, EXCL, RDONLY, WRONLY, APPEND,
 * DELETE_ON_CLOSE), sizes, explicit offsets, individual file pointers,
 * seek, byte offsets, non-blocking calls, statuses with MPI_Get_count, a
 * read past the end, info, group, handle conversion, and the errors of bad
 * arguments through the files' default handler MPI_ERRORS_RETURN.
 */
#include "io_util.h"

#define REC 100 /* bytes each rank writes */

static void check_errors(const char *dir, int rank)
{
    char path[IO_PATH_MAX], msg[MPI_MAX_ERROR_STRING];
    MPI_File fh = MPI_FILE_NULL;
    int len;
    io_path(path, dir, "missing.dat");
    IO_ERR(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
           MPI_ERR_NO_SUCH_FILE);
    ZT_CHECK(fh == MPI_FILE_NULL, "fh set on failure");
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    MPI_Error_string(rc, msg, &len);
    (void)rank;
    IO_ERR(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_CREATE,
                         MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
    IO_ERR(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_WRONLY,
                         MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
    IO_ERR(MPI_File_open(MPI_COMM_WORLD, dir, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
           MPI_ERR_BAD_FILE);
    IO_ERR(MPI_File_delete(path, MPI_INFO_NULL), MPI_ERR_NO_SUCH_FILE);
    IO_ERR(MPI_File_close(&fh), MPI_ERR_FILE);
    MPI_Offset sz;
    IO_ERR(MPI_File_get_size(MPI_FILE_NULL, &sz), MPI_ERR_FILE);
}

/* Every rank writes its record at rank * REC and reads its neighbour's. */
static void explicit_offsets(const char *path, int rank, int size)
{
    MPI_File fh;
    MPI_Status st;
    int n;
    unsigned char *mine = zt_malloc(REC), *got = zt_malloc(REC);
    zt_fill(mine, REC, rank, 1);
    ZT_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR,
                        MPI_INFO_NULL, &fh));
    ZT_OK(MPI_File_write_at(fh, (MPI_Offset)rank * REC, mine, REC, MPI_BYTE, &st));
    ZT_OK(MPI_Get_count(&st, MPI_BYTE, &n));
    ZT_EQ(n, REC, "bytes written");
    ZT_OK(MPI_File_sync(fh));
    int peer = (rank + 1) % size;
    ZT_OK(MPI_File_read_at(fh, (MPI_Offset)peer * REC, got, REC, MPI_BYTE, &st));
    ZT_OK(MPI_Get_count(&st, MPI_BYTE, &n));
    ZT_EQ(n, REC, "bytes read");
    for (int i = 0; i < REC; i++)
        ZT_EQ(got[i], zt_byte(peer, 1, (size_t)i), "neighbour's byte");
    MPI_Offset sz;
    ZT_OK(MPI_File_get_size(fh, &sz));
    ZT_EQ(sz, (MPI_Offset)size * REC, "file size");
    /* Past the end: only the last 10 bytes exist. */
    ZT_OK(MPI_File_read_at(fh, sz - 10, got, REC, MPI_BYTE, &st));
    ZT_OK(MPI_Get_count(&st, MPI_BYTE, &n));
    ZT_EQ(n, 10, "bytes read at the end");
    ZT_OK(MPI_File_read_at(fh, sz + 5, got, REC, MPI_BYTE, &st));
    ZT_OK(MPI_Get_count(&st, MPI_BYTE, &n));
    ZT_EQ(n, 0, "bytes read past the end");
    /* In MPI_INT units a 10-byte tail is not whole elements. */
    ZT_OK(MPI_File_read_at(fh, sz - 10, got, 4, MPI_INT, &st));
    ZT_OK(MPI_Get_count(&st, MPI_INT, &n));
    ZT_EQ(n, MPI_UNDEFINED, "ints read at the end");
    ZT_OK(MPI_Get_elements(&st, MPI_BYTE, &n));
    ZT_EQ(n, 10, "elements read at the end");
    /* The same file cannot be created exclusively again. */
    MPI_File fh2;
    IO_ERR(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_EXCL |
                         MPI_MODE_WRONLY, MPI_INFO_NULL, &fh2), MPI_ERR_FILE_EXISTS);
    int amode;
    ZT_OK(MPI_File_get_amode(fh, &amode));
    ZT_EQ(amode, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR, "amode");
    MPI_Group g, wg;
    int cmp;
    ZT_OK(MPI_File_get_group(fh, &g));
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_compare(g, wg, &cmp);
    ZT_EQ(cmp, MPI_IDENT, "file group");
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    MPI_Fint fi = MPI_File_c2f(fh);
    ZT_CHECK(MPI_File_f2c(fi) == fh, "c2f/f2c round trip");
    ZT_OK(MPI_File_close(&fh));
    ZT_CHECK(fh == MPI_FILE_NULL, "close sets MPI_FILE_NULL");
    free(mine);
    free(got);
}

/* Individual file pointers with an int view, seek and byte offsets. */
static void pointers(const char *path, int rank, int size)
{
    MPI_File fh;
    MPI_Status st;
    int buf[REC / 4], n;
    MPI_Offset pos, off;
    ZT_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    ZT_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    ZT_OK(MPI_File_seek(fh, (MPI_Offset)rank * (REC / 4), MPI_SEEK_SET));
    ZT_OK(MPI_File_read(fh, buf, REC / 4, MPI_INT, &st));
    ZT_OK(MPI_Get_count(&st, MPI_INT, &n));
    ZT_EQ(n, REC / 4, "ints read");
    unsigned char *b = (unsigned char *)buf;
    for (int i = 0; i < REC; i++)
        ZT_EQ(b[i], zt_byte(rank, 1, (size_t)i), "own byte through the pointer");
    ZT_OK(MPI_File_get_position(fh, &pos));
    ZT_EQ(pos, (rank + 1) * (REC / 4), "position after the read");
    ZT_OK(MPI_File_seek(fh, -5, MPI_SEEK_CUR));
    ZT_OK(MPI_File_get_position(fh, &pos));
    ZT_EQ(pos, (rank + 1) * (REC / 4) - 5, "position after SEEK_CUR");
    ZT_OK(MPI_File_get_byte_offset(fh, 5, &off));
    ZT_EQ(off, 20, "byte offset of int 5");
    ZT_OK(MPI_File_seek(fh, 0, MPI_SEEK_END));
    ZT_OK(MPI_File_get_position(fh, &pos));
    ZT_EQ(pos, size * (REC / 4), "position at the end");
    IO_ERR(MPI_File_seek(fh, -1, MPI_SEEK_SET), MPI_ERR_ARG);
    IO_ERR(MPI_File_seek(fh, 0, 12345), MPI_ERR_ARG);
    IO_ERR(MPI_File_write_at(fh, 0, buf, 1, MPI_INT, &st), MPI_ERR_READ_ONLY);
    IO_ERR(MPI_File_read_at(fh, -1, buf, 1, MPI_INT, &st), MPI_ERR_ARG);
    IO_ERR(MPI_File_read_at(fh, 0, buf, -1, MPI_INT, &st), MPI_ERR_COUNT);
    IO_ERR(MPI_File_read_at(fh, 0, buf, 1, MPI_CHAR, &st), MPI_ERR_TYPE);
    IO_ERR(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "external64", MPI_INFO_NULL),
           MPI_ERR_UNSUPPORTED_DATAREP);
    IO_ERR(MPI_File_set_view(fh, 0, MPI_INT, MPI_SHORT, "native", MPI_INFO_NULL),
           MPI_ERR_TYPE);
    IO_ERR(MPI_File_set_size(fh, 10), MPI_ERR_READ_ONLY);
    /* Only rank 0 gives a bad view: it gets MPI_ERR_TYPE, the others are
     * told and none waits forever. */
    if (size > 1)
        IO_ERR(MPI_File_set_view(fh, 0, MPI_INT, rank == 0 ? MPI_SHORT : MPI_INT, "native",
                                 MPI_INFO_NULL), rank == 0 ? MPI_ERR_TYPE : MPI_ERR_ARG);
    ZT_OK(MPI_File_close(&fh));
    /* Different access modes on different ranks. */
    if (size > 1)
        IO_ERR(MPI_File_open(MPI_COMM_WORLD, path, rank == 0 ? MPI_MODE_RDWR : MPI_MODE_RDONLY,
                             MPI_INFO_NULL, &fh), MPI_ERR_NOT_SAME);
}

/* Non-blocking independent calls, sizes and the WRONLY/APPEND modes. */
static void nonblocking_and_sizes(const char *path, int rank, int size)
{
    MPI_File fh;
    MPI_Status st;
    MPI_Request rq;
    int v = rank * 7 + 1, got = -1, n;
    ZT_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    ZT_OK(MPI_File_iwrite_at(fh, (MPI_Offset)rank * 4, &v, 1, MPI_INT, &rq));
    ZT_OK(MPI_Wait(&rq, &st));
    ZT_OK(MPI_Get_count(&st, MPI_INT, &n));
    ZT_EQ(n, 1, "ints written without blocking");
    IO_ERR(MPI_File_read_at(fh, 0, &got, 1, MPI_INT, &st), MPI_ERR_ACCESS);
    ZT_OK(MPI_File_set_size(fh, (MPI_Offset)size * 4));
    MPI_Offset sz;
    ZT_OK(MPI_File_get_size(fh, &sz));
    ZT_EQ(sz, size * 4, "size after set_size");
    ZT_OK(MPI_File_preallocate(fh, 4096));
    ZT_OK(MPI_File_get_size(fh, &sz));
    ZT_EQ(sz, 4096, "size after preallocate");
    ZT_OK(MPI_File_set_size(fh, (MPI_Offset)size * 4));
    ZT_OK(MPI_File_close(&fh));
    ZT_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    ZT_OK(MPI_File_iread_at(fh, (MPI_Offset)((rank + 1) % size) * 4, &got, 1, MPI_INT, &rq));
    ZT_OK(MPI_Wait(&rq, &st));
    ZT_EQ(got, ((rank + 1) % size) * 7 + 1, "int read without blocking");
    ZT_OK(MPI_File_close(&fh));
    /* APPEND: both pointers start at the end. */
    ZT_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY | MPI_MODE_APPEND, MPI_INFO_NULL,
                        &fh));
    MPI_Offset pos;
    ZT_OK(MPI_File_get_position(fh, &pos));
    ZT_EQ(pos, size * 4, "individual pointer after APPEND");
    ZT_OK(MPI_File_get_position_shared(fh, &pos));
    ZT_EQ(pos, size * 4, "shared pointer after APPEND");
    ZT_OK(MPI_File_write_at_all(fh, pos + rank * 4, &v, 1, MPI_INT, &st));
    ZT_OK(MPI_File_close(&fh));
    if (rank == 0) {
        unsigned char *want = zt_malloc((size_t)size * 8);
        for (int r = 0; r < size; r++) {
            int x = r * 7 + 1;
            memcpy(want + r * 4, &x, 4);
            memcpy(want + (size + r) * 4, &x, 4);
        }
        io_expect_file(path, want, size * 8L);
        free(want);
    }
}

static void delete_on_close(const char *dir, int rank)
{
    char path[IO_PATH_MAX];
    MPI_File fh;
    io_path(path, dir, "temp.dat");
    ZT_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR |
                        MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN, MPI_INFO_NULL, &fh));
    ZT_OK(MPI_File_write_at(fh, rank, "x", 1, MPI_CHAR, MPI_STATUS_IGNORE));
    if (rank == 0)
        ZT_CHECK(io_exists(path), "file exists while open");
    ZT_OK(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    ZT_CHECK(!io_exists(path), "DELETE_ON_CLOSE left %s", path);
    /* A file made and deleted by name. */
    ZT_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                        &fh));
    ZT_OK(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        ZT_OK(MPI_File_delete(path, MPI_INFO_NULL));
    MPI_Barrier(MPI_COMM_WORLD);
    ZT_CHECK(!io_exists(path), "MPI_File_delete left %s", path);
}

/* Hints, atomicity, and a user error handler on a file. */
static void count_error(MPI_File *fh, int *code, ...)
{
    (void)fh;
    (void)code;
}

static void handlers_and_info(const char *path)
{
    MPI_File fh;
    MPI_Info info, used;
    MPI_Errhandler eh, got;
    char v[64];
    int flag;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_nodes", "1");
    MPI_Info_set(info, "my_hint", "kept");
    MPI_Info_set(info, "zmpi_writeback", "disable");
    ZT_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh));
    ZT_OK(MPI_File_get_info(fh, &used));
    MPI_Info_get(used, "zmpi_writeback", 63, v, &flag);
    ZT_CHECK(flag && strcmp(v, "disable") == 0, "zmpi_writeback hint %s", flag ? v : "missing");
    MPI_Info_get(used, "cb_nodes", 63, v, &flag);
    ZT_CHECK(flag && strcmp(v, "1") == 0, "cb_nodes hint %s", flag ? v : "missing");
    MPI_Info_get(used, "my_hint", 63, v, &flag);
    ZT_CHECK(flag && strcmp(v, "kept") == 0, "my_hint kept");
    MPI_Info_free(&used);
    MPI_Info_free(&info);
    ZT_OK(MPI_File_set_atomicity(fh, 1));
    ZT_OK(MPI_File_get_atomicity(fh, &flag));
    ZT_EQ(flag, 1, "atomicity");
    ZT_OK(MPI_File_get_errhandler(fh, &got));
    ZT_CHECK(got == MPI_ERRORS_RETURN, "files start with MPI_ERRORS_RETURN");
    MPI_Errhandler_free(&got);
    ZT_OK(MPI_File_create_errhandler(count_error, &eh));
    ZT_OK(MPI_File_set_errhandler(fh, eh));
    IO_ERR(MPI_File_seek(fh, -3, MPI_SEEK_SET), MPI_ERR_ARG);
    ZT_OK(MPI_File_call_errhandler(fh, MPI_ERR_IO));
    MPI_Errhandler ceh;
    MPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)count_error, &ceh);
    IO_ERR(MPI_File_set_errhandler(fh, ceh), MPI_ERR_ARG);
    MPI_Errhandler_free(&ceh);
    MPI_Errhandler_free(&eh);
    ZT_OK(MPI_File_close(&fh));
    /* MPI_FILE_NULL's handler is what MPI_File_open uses. */
    ZT_OK(MPI_File_get_errhandler(MPI_FILE_NULL, &got));
    ZT_CHECK(got == MPI_ERRORS_RETURN, "MPI_FILE_NULL has MPI_ERRORS_RETURN");
    MPI_Errhandler_free(&got);
}

int main(int argc, char **argv)
{
    int rank, size;
    char dir[IO_PATH_MAX], path[IO_PATH_MAX];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_tmpdir(MPI_COMM_WORLD, dir);
    check_errors(dir, rank);
    io_path(path, dir, "basic.dat");
    explicit_offsets(path, rank, size);
    if (rank == 0) {
        unsigned char *want = zt_malloc((size_t)size * REC);
        for (int r = 0; r < size; r++)
            zt_fill(want + (size_t)r * REC, REC, r, 1);
        io_expect_file(path, want, (long)size * REC);
        free(want);
    }
    pointers(path, rank, size);
    nonblocking_and_sizes(path, rank, size);
    delete_on_close(dir, rank);
    handlers_and_info(path);
    io_rmdir(MPI_COMM_WORLD, dir);
    MPI_Finalize();
    if (rank == 0)
        printf("io_basic: ok\n");
    return 0;
}
