/*
 * io_util.h: helpers of the MPI-IO tests (tests/io_*.c): a private temp
 * directory shared by the job's ranks, whole-file reads for checking a
 * file byte for byte against a serial model, and error-class checks.
 */
#ifndef IO_UTIL_H
#define IO_UTIL_H

/* mkdtemp is POSIX 2008; the tests build as plain C11. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "zt.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#define IO_PATH_MAX 512

/* Rank 0 makes a fresh directory under ${TMPDIR:-/tmp} and every rank of
 * `comm` gets its name in dir. */
static inline void io_tmpdir(MPI_Comm comm, char dir[IO_PATH_MAX])
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) {
        const char *t = getenv("TMPDIR");
        snprintf(dir, IO_PATH_MAX, "%.400s/zmpi_io_XXXXXX", t && *t ? t : "/tmp");
        ZT_CHECK(mkdtemp(dir) != NULL, "mkdtemp(%s) failed", dir);
    }
    MPI_Bcast(dir, IO_PATH_MAX, MPI_CHAR, 0, comm);
}

/* Rank 0 removes the directory and whatever is left in it. */
static inline void io_rmdir(MPI_Comm comm, const char *dir)
{
    int rank;
    MPI_Barrier(comm);
    MPI_Comm_rank(comm, &rank);
    if (rank != 0)
        return;
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        char p[IO_PATH_MAX * 2];
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(p, sizeof(p), "%.500s/%.255s", dir, e->d_name);
            unlink(p);
        }
        closedir(d);
    }
    rmdir(dir);
}

/* path = dir/name. */
static inline void io_path(char *path, const char *dir, const char *name)
{
    snprintf(path, IO_PATH_MAX, "%.400s/%.100s", dir, name);
}

/* The whole file in a new buffer (size in *len); NULL if it is missing. */
static inline unsigned char *io_slurp(const char *path, long *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    *len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = zt_malloc((size_t)*len + 1);
    ZT_CHECK(fread(b, 1, (size_t)*len, f) == (size_t)*len, "short read of %s", path);
    fclose(f);
    return b;
}

/* Compare a file with the expected image; reports the first difference. */
static inline void io_expect_file(const char *path, const unsigned char *want, long n)
{
    long len = -1;
    unsigned char *got = io_slurp(path, &len);
    ZT_CHECK(got != NULL, "file %s is missing", path);
    ZT_EQ(len, n, "file size");
    for (long i = 0; i < n; i++)
        if (got[i] != want[i])
            ZT_CHECK(0, "%s: byte %ld is %d, expected %d", path, i, got[i], want[i]);
    free(got);
}

/* n zero bytes in a new buffer. */
static inline unsigned char *zt_calloc_bytes(long n)
{
    unsigned char *b = zt_malloc((size_t)n);
    memset(b, 0, (size_t)n);
    return b;
}

static inline int io_exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* The call must fail with error class `cls`. */
#define IO_ERR(call, cls)                                                    \
    do {                                                                     \
        int io_rc_ = (call), io_cls_ = -1;                                   \
        ZT_CHECK(io_rc_ != MPI_SUCCESS, "%s succeeded", #call);              \
        MPI_Error_class(io_rc_, &io_cls_);                                   \
        ZT_EQ(io_cls_, (cls), "error class of " #call);                      \
    } while (0)

#endif /* IO_UTIL_H */
