/*
 * file_linux.c: the system calls of MPI-IO (src/io/) on Linux.
 *
 * Every call returns a non-negative result or -errno, so the layers above
 * never read errno (which is per worker thread, not per rank).  Transfers
 * loop over short counts and EINTR: a pwrite of n bytes writes all n or
 * fails; a pread stops early only at the end of the file.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "arch/arch.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

int zm_arch_file_open(const char *path, int flags)
{
    int o = O_CLOEXEC;
    if (flags & ZM_ARCH_FILE_RDWR)
        o |= O_RDWR;
    else if (flags & ZM_ARCH_FILE_WRONLY)
        o |= O_WRONLY;
    else
        o |= O_RDONLY;
    if (flags & ZM_ARCH_FILE_CREATE)
        o |= O_CREAT;
    if (flags & ZM_ARCH_FILE_EXCL)
        o |= O_EXCL;
    int fd;
    do
        fd = open(path, o, 0666);
    while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return -errno;
    /* open() accepts a directory for reading; MPI wants a file. */
    struct stat sb;
    if (fstat(fd, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        close(fd);
        return -EISDIR;
    }
    return fd;
}

int zm_arch_file_close(int fd)
{
    return close(fd) == 0 ? 0 : -errno;
}

int64_t zm_arch_file_pread(int fd, void *buf, size_t n, int64_t off)
{
    size_t done = 0;
    while (done < n) {
        ssize_t r = pread(fd, (char *)buf + done, n - done, (off_t)(off + (int64_t)done));
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (r == 0)
            break;
        done += (size_t)r;
    }
    return (int64_t)done;
}

int64_t zm_arch_file_pwrite(int fd, const void *buf, size_t n, int64_t off)
{
    size_t done = 0;
    while (done < n) {
        ssize_t r = pwrite(fd, (const char *)buf + done, n - done,
                           (off_t)(off + (int64_t)done));
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        done += (size_t)r;
    }
    return (int64_t)done;
}

int zm_arch_file_sync(int fd)
{
    /* fsync fails with EINVAL on files that cannot be synced (pipes,
     * some special files): nothing is lost there, so that is success. */
    if (fsync(fd) == 0 || errno == EINVAL)
        return 0;
    return -errno;
}

int zm_arch_file_writeback(int fd, int64_t off, int64_t n)
{
    return sync_file_range(fd, off, n, SYNC_FILE_RANGE_WRITE) == 0 ? 0 : -errno;
}

int zm_arch_file_truncate(int fd, int64_t size)
{
    int r;
    do
        r = ftruncate(fd, (off_t)size);
    while (r < 0 && errno == EINTR);
    return r == 0 ? 0 : -errno;
}

int zm_arch_file_allocate(int fd, int64_t size)
{
    if (size <= 0)
        return 0;
    /* posix_fallocate returns the error rather than setting errno; it
     * never shrinks the file. */
    int r = posix_fallocate(fd, 0, (off_t)size);
    return -r;
}

int64_t zm_arch_file_size(int fd)
{
    struct stat sb;
    if (fstat(fd, &sb) != 0)
        return -errno;
    return (int64_t)sb.st_size;
}

int zm_arch_file_unlink(const char *path)
{
    return unlink(path) == 0 ? 0 : -errno;
}

int zm_arch_file_lock(int fd, int on)
{
    /* A record lock from offset 0 with length 0 covers the whole file,
     * bytes written past its current end included. */
    struct flock fl = { 0 };
    fl.l_type = on ? F_WRLCK : F_UNLCK;
    fl.l_whence = SEEK_SET;
    int r;
    do
        r = fcntl(fd, F_SETLKW, &fl);
    while (r < 0 && errno == EINTR);
    return r < 0 ? -errno : 0;
}
