/*
 * image_linux.c: private copies of the running program, one per rank.
 *
 * A program linked for privatization is a shared object that can also be
 * executed (docs/privatization.md).  Each rank gets its own copy of the file
 * loaded with dlopen, and with it its own global and static variables.  The
 * copies need distinct path names: glibc recognises an object it has loaded
 * by its name before it looks at the file.
 */
#include "arch/arch.h"

#include <dlfcn.h>
#include <link.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

/* Copy the running program's file to `path`; 0 on success. */
static int copy_self(const char *path)
{
    int src = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (src < 0)
        return -1;
    int dst = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0700);
    struct stat st;
    int rc = -1;
    if (dst >= 0 && fstat(src, &st) == 0) {
        off_t off = 0;
        while (off < st.st_size && sendfile(dst, src, &off, (size_t)(st.st_size - off)) > 0)
            ;
        rc = off == st.st_size ? 0 : -1;
    }
    if (dst >= 0)
        close(dst);
    close(src);
    return rc;
}

void *zm_arch_image_clone(int id, char *err, size_t errlen)
{
    char path[128];
    const char *dir = getenv("ZMPI_TMPDIR");
    snprintf(path, sizeof path, "%s/zmpi-%d-%d.so", dir ? dir : "/dev/shm", (int)getpid(), id);
    unlink(path);
    if (copy_self(path) != 0) {
        snprintf(err, errlen, "cannot copy the program to %s", path);
        unlink(path);
        return NULL;
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    /* The file stays while the copy is loaded, so that a debugger can read
     * its symbols; zm_arch_image_close removes it. */
    if (!h) {
        snprintf(err, errlen, "cannot load a copy of the program: %s", dlerror());
        unlink(path);
    }
    return h;
}

void *zm_arch_image_sym(void *image, const char *name)
{
    return dlsym(image, name);
}

void zm_arch_image_close(void *image)
{
    struct link_map *lm = NULL;
    if (dlinfo(image, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name)
        unlink(lm->l_name);
    dlclose(image);
}
