/*
 * io_file.c: the shared open-file object.
 *
 * One rank opens the file for the whole communicator and hands the object
 * to the others (they share the process's descriptor table); each rank
 * that closes drops a reference, and the last one syncs and closes.
 */
#include "io/io.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Default aggregation: 16 MiB per system call, and at most 4 aggregators
 * (more would only compete for the same few cores and the same disk). */
#define ZM_IO_CB_BUFFER (16 << 20)
#define ZM_IO_CB_NODES 4

zm_io_file_t *zm_io_file_open(const char *path, int flags, int nranks, int *err)
{
    zm_io_file_t *f = calloc(1, sizeof(*f));
    char *p = strdup(path);
    zm_io_piece_t *pieces = calloc((size_t)nranks, sizeof(*pieces));
    if (!f || !p || !pieces) {
        free(f);
        free(p);
        free(pieces);
        *err = -ENOMEM;
        return NULL;
    }
    int fd = zm_arch_file_open(path, flags);
    if (fd < 0) {
        free(f);
        free(p);
        free(pieces);
        *err = fd;
        return NULL;
    }
    f->fd = fd;
    f->readable = (flags & ZM_ARCH_FILE_WRONLY) == 0;
    atomic_init(&f->refs, 1);
    f->path = p;
    atomic_init(&f->shared_fp, 0);
    atomic_flag_clear(&f->lock);
    atomic_flag_clear(&f->nbc_lock);
    f->nranks = nranks;
    f->pieces = pieces;
    f->cb_buffer_size = ZM_IO_CB_BUFFER;
    f->cb_nodes = nranks < ZM_IO_CB_NODES ? nranks : ZM_IO_CB_NODES;
    f->cb_write = 1;
    f->cb_read = 1;
    f->writeback = 1;
    *err = 0;
    return f;
}

int zm_io_file_release(zm_io_file_t *f, int unlink_it)
{
    if (atomic_fetch_sub(&f->refs, 1) != 1)
        return 0;
    /* MPI_File_close first synchronises the file (MPI 4.1 section 14.2.2). */
    int rc = zm_arch_file_sync(f->fd);
    int rc2 = zm_arch_file_close(f->fd);
    if (rc == 0)
        rc = rc2;
    if (unlink_it) {
        rc2 = zm_arch_file_unlink(f->path);
        if (rc == 0)
            rc = rc2;
    }
    free(f->path);
    free(f->pieces);
    free(f);
    return rc;
}
