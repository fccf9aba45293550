/*
 * shm_linux.c: memory shared between the processes of one node, for
 * windows whose ranks live in several processes of one node (shared
 * windows, and the direct windows of MPI_Win_allocate; src/mpi/win.c).
 *
 * One process creates a named POSIX shared-memory object, the others open
 * it by name, everyone maps it, and the creator removes the name as soon
 * as all have mapped it, so nothing is left in /dev/shm once the window
 * exists, even if the job is killed later.
 *
 * Windows of the program's own memory cannot move into such a segment:
 * zm_arch_cma_copy reads or writes another process's memory directly
 * (cross-memory attach), for their Puts and Gets between the processes of
 * a node.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "arch/arch.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

void *zm_arch_shm_map(const char *name, size_t bytes, int create, int *err)
{
    int fd;
    *err = 0;
    do
        fd = shm_open(name, O_RDWR | O_CLOEXEC | (create ? O_CREAT | O_EXCL : 0), 0600);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        *err = -errno;
        return NULL;
    }
    /* The creator sizes it; the pages read as zeros, as the standard's
     * freshly allocated window memory does here too.  It also reserves
     * them: a size beyond what /dev/shm holds would otherwise map fine
     * and kill the first process to touch a page past the limit (SIGBUS),
     * where failing here lets the caller report it or do without. */
    int rc = 0;
    if (create && ftruncate(fd, (off_t)bytes) != 0)
        rc = -errno;
    if (create && rc == 0 && bytes > 0)
        rc = -posix_fallocate(fd, 0, (off_t)bytes);
    if (rc != 0) {
        *err = rc;
        close(fd);
        shm_unlink(name);
        return NULL;
    }
    void *p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int e = errno;
    close(fd);
    if (p == MAP_FAILED) {
        *err = -e;
        if (create)
            shm_unlink(name);
        return NULL;
    }
    return p;
}

void zm_arch_shm_unmap(void *p, size_t bytes)
{
    if (p)
        munmap(p, bytes ? bytes : 1);
}

int zm_arch_shm_unlink(const char *name)
{
    return shm_unlink(name) == 0 ? 0 : -errno;
}

/* Remote runs per system call: the kernel takes at most IOV_MAX (1024). */
#define CMA_IOV 1024

int zm_arch_cma_copy(int pid, int write, void *buf, uintptr_t base, const int64_t (*runs)[2],
                     size_t n)
{
    struct iovec remote[CMA_IOV];
    char *at = buf;
    for (size_t i = 0; i < n;) {
        size_t k = 0, bytes = 0;
        for (; k < CMA_IOV && i < n; k++, i++) {
            remote[k].iov_base = (void *)(base + (uintptr_t)runs[i][0]);
            remote[k].iov_len = (size_t)runs[i][1];
            bytes += (size_t)runs[i][1];
        }
        struct iovec local = { at, bytes };
        ssize_t got;
        do
            got = write ? process_vm_writev(pid, &local, 1, remote, k, 0)
                        : process_vm_readv(pid, &local, 1, remote, k, 0);
        while (got < 0 && errno == EINTR);
        if (got < 0)
            return -errno;
        /* A short copy means a page of the range is not mapped there. */
        if ((size_t)got != bytes)
            return -EFAULT;
        at += bytes;
    }
    return 0;
}
