/*
 * io_wrong.c: MPI-IO mistakes that must end the job with a clear message
 * once MPI_ERRORS_ARE_FATAL is the files' handler.  argv[1] names the
 * mistake:
 *   open_missing   open a file that does not exist (handler of MPI_FILE_NULL)
 *   write_rdonly   write to a file opened MPI_MODE_RDONLY (handler of the file)
 */
#include "io_util.h"

int main(int argc, char **argv)
{
    char dir[IO_PATH_MAX], path[IO_PATH_MAX];
    MPI_File fh;
    int x = 1;
    MPI_Init(&argc, &argv);
    ZT_CHECK(argc > 1, "usage: io_wrong <mistake>");
    io_tmpdir(MPI_COMM_WORLD, dir);
    io_path(path, dir, "no_such_file.dat");
    ZT_OK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_ARE_FATAL));
    if (strcmp(argv[1], "open_missing") == 0) {
        /* The directory is removed first so that the failing job leaves
         * nothing behind. */
        io_rmdir(MPI_COMM_WORLD, dir);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    } else if (strcmp(argv[1], "write_rdonly") == 0) {
        ZT_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY |
                            MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
        MPI_File fh2;
        ZT_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh2));
        ZT_OK(MPI_File_close(&fh));
        io_rmdir(MPI_COMM_WORLD, dir);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_File_write(fh2, &x, 1, MPI_INT, MPI_STATUS_IGNORE);
    }
    fprintf(stderr, "io_wrong: the mistake '%s' was not caught\n", argv[1]);
    MPI_Finalize();
    return 0;
}
