/*
 * shm_linux.c: memory shared between the processes of one node, for
 * shared windows whose ranks live in several processes (src/mpi/win.c).
 *
 * One process creates a named POSIX shared-memory object, the others open
 * it by name, everyone maps it, and the creator removes the name as soon
 * as all have mapped it, so nothing is left in /dev/shm once the window
 * exists, even if the job is killed later.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "arch/arch.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
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
     * freshly allocated window memory does here too. */
    if (create && ftruncate(fd, (off_t)bytes) != 0) {
        *err = -errno;
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
