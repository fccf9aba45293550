/*
 * io_xfer.c: moving bytes between packed data and the file.
 *
 * Independent accesses issue one system call per segment.  Collective
 * accesses are two-phase: every rank posts its segments and packed data
 * in the file's table, then each aggregator takes a contiguous domain of
 * the accessed region and, one window of cb_buffer_size bytes at a time,
 * gathers every rank's bytes of the window into one buffer and writes each
 * run of covered bytes with one pwrite (a read goes the other way); a run
 * that is a single rank's part is written from (read into) that rank's
 * data directly.  Inside a process holes are never written, so bytes no
 * rank accesses keep their contents.  Across processes (src/mpi/
 * file_xagg.c) an aggregator instead moves a window whose holes are small
 * as one extent, as ROMIO's data sieving does: one pread (and for a write
 * a pwrite of the extent, read-modify-write, the holes' bytes written
 * back unchanged).  A written window of 1 MiB or more starts its
 * write-back to the storage at once, and aggregators yield between
 * windows.
 */
#include "io/io.h"
#include "ult/ult.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Serialise an access of a file in atomic mode; 0 or -errno (the lock
 * is then not held). */
static int lock(zm_io_file_t *f, int atomic)
{
    if (!atomic)
        return 0;
    /* Held only across system calls of one rank, which never yields
     * inside them, so spinning cannot wait for a descheduled holder on
     * the same worker. */
    while (atomic_flag_test_and_set_explicit(&f->lock, memory_order_acquire))
        zm_arch_cpu_relax();
    /* Other processes' ranks are excluded by a record lock, which the
     * kernel keeps per process: the flag above orders this process's
     * ranks among themselves.  A file system that cannot lock fails the
     * access: atomic mode would otherwise promise what it cannot keep. */
    int rc = f->procs_lock ? zm_arch_file_lock(f->fd, 1) : 0;
    if (rc != 0)
        atomic_flag_clear_explicit(&f->lock, memory_order_release);
    return rc;
}

static void unlock(zm_io_file_t *f, int atomic)
{
    if (!atomic)
        return;
    if (f->procs_lock)
        zm_arch_file_lock(f->fd, 0);
    atomic_flag_clear_explicit(&f->lock, memory_order_release);
}

_Atomic uint64_t zm_io_pwrites, zm_io_preads;

/* Smallest written window whose write-back starts at once. */
#define ZM_IO_WRITEBACK_MIN (1 << 20)

/* pwrite and pread, counted for MPI_T. */
static int64_t io_pwrite(zm_io_file_t *f, const void *p, size_t n, int64_t off)
{
    atomic_fetch_add_explicit(&zm_io_pwrites, 1, memory_order_relaxed);
    return zm_arch_file_pwrite(f->fd, p, n, off);
}

static int64_t io_pread(zm_io_file_t *f, void *p, size_t n, int64_t off)
{
    atomic_fetch_add_explicit(&zm_io_preads, 1, memory_order_relaxed);
    return zm_arch_file_pread(f->fd, p, n, off);
}

int64_t zm_io_write_segs(zm_io_file_t *f, const zm_io_segs_t *s, const char *data, int atomic)
{
    int64_t rc = lock(f, atomic);
    if (rc < 0)
        return rc;
    for (size_t i = 0; i < s->n && rc >= 0; i++)
        rc = io_pwrite(f, data + s->v[i].pos, s->v[i].len, s->v[i].off);
    unlock(f, atomic);
    return rc < 0 ? rc : 0;
}

int64_t zm_io_read_segs(zm_io_file_t *f, const zm_io_segs_t *s, char *data, int atomic)
{
    int64_t got = lock(f, atomic);
    if (got < 0)
        return got;
    for (size_t i = 0; i < s->n; i++) {
        int64_t r = io_pread(f, data + s->v[i].pos, s->v[i].len, s->v[i].off);
        if (r < 0) {
            got = r;
            break;
        }
        got += r;
        if ((size_t)r < s->v[i].len)
            break;
    }
    unlock(f, atomic);
    return got;
}

/* The next segment of one rank in a window, for the merge in collect. */
typedef struct head {
    int64_t off;    /* its file offset (the heap key) */
    int rank;       /* whose */
    size_t idx;     /* its index in that rank's segments */
} head_t;

/* Restore the min-heap order of h[0..n) below position i. */
static void sift_down(head_t *h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < n && h[l].off < h[m].off)
            m = l;
        if (l + 1 < n && h[l + 1].off < h[m].off)
            m = l + 1;
        if (m == i)
            return;
        head_t t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

/* First segment of piece p that ends after `lo` (segments are sorted). */
static size_t first_seg(const zm_io_piece_t *p, int64_t lo)
{
    size_t a = 0, b = p->nsegs;
    while (a < b) {
        size_t m = (a + b) / 2;
        if (p->segs[m].off + (int64_t)p->segs[m].len <= lo)
            a = m + 1;
        else
            b = m;
    }
    return a;
}

/* Append one part to *parts (grown as needed); 0 or -ENOMEM. */
static int part_push(zm_io_part_t **parts, size_t *cap, size_t *n, zm_io_part_t p)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        zm_io_part_t *np = realloc(*parts, nc * sizeof(*np));
        if (!np)
            return -ENOMEM;
        *parts = np;
        *cap = nc;
    }
    (*parts)[(*n)++] = p;
    return 0;
}

/* Each piece's segments are sorted already, so a heap merges them in
 * O(parts * log pieces). */
int zm_io_collect(const zm_io_piece_t *pieces, int npieces, int64_t lo, int64_t hi,
                  zm_io_part_t **parts, size_t *cap, size_t *n)
{
    head_t *h = malloc((size_t)(npieces > 0 ? npieces : 1) * sizeof(*h));
    if (!h)
        return -ENOMEM;
    size_t nh = 0;
    for (int r = 0; r < npieces; r++) {
        size_t i = first_seg(&pieces[r], lo);
        if (i < pieces[r].nsegs && pieces[r].segs[i].off < hi)
            h[nh++] = (head_t){ pieces[r].segs[i].off, r, i };
    }
    for (size_t i = nh; i-- > 0;)
        sift_down(h, nh, i);
    while (nh > 0) {
        const zm_io_piece_t *p = &pieces[h[0].rank];
        const zm_io_seg_t *g = &p->segs[h[0].idx];
        int64_t a = g->off > lo ? g->off : lo;
        int64_t e = g->off + (int64_t)g->len;
        if (e > hi)
            e = hi;
        if (e > a && part_push(parts, cap, n, (zm_io_part_t){ a, (size_t)(e - a),
                                                               p->data + g->pos + (a - g->off) })
                         != 0) {
            free(h);
            return -ENOMEM;
        }
        size_t next = h[0].idx + 1;
        if (next < p->nsegs && p->segs[next].off < hi)
            h[0] = (head_t){ p->segs[next].off, h[0].rank, next };
        else
            h[0] = h[--nh];
        sift_down(h, nh, 0);
    }
    free(h);
    return 0;
}

int zm_io_touches(const zm_io_piece_t *pieces, int npieces, int64_t lo, int64_t hi)
{
    for (int r = 0; r < npieces; r++) {
        size_t i = first_seg(&pieces[r], lo);
        if (i < pieces[r].nsegs && pieces[r].segs[i].off < hi)
            return 1;
    }
    return 0;
}

/* The end of the run of parts from v[i] on that cover the file without a
 * gap; *j gets the index past it. */
static int64_t run_end(const zm_io_part_t *v, int64_t n, int64_t i, int64_t *j)
{
    int64_t end = v[i].off;
    for (*j = i; *j < n && v[*j].off <= end; (*j)++)
        if (v[*j].off + (int64_t)v[*j].len > end)
            end = v[*j].off + (int64_t)v[*j].len;
    return end;
}

/* Sieving: the parts v[0..n) moved as one extent through buf (whose first
 * byte is file offset lo), worth it when the holes between the runs are
 * no larger than the covered bytes, so one pread (and for a write one
 * pwrite, read-modify-write) replace a system call per run.  Returns 1 if
 * done (0 or -errno in *rc), 0 if the window should go run by run. */
static int sieve_window(zm_io_file_t *f, const zm_io_part_t *v, int64_t n, int write,
                        int64_t lo, char *buf, int atomic, int64_t *rc)
{
    /* Runs do not overlap: each starts past the end of the one before. */
    int64_t runs = 0, covered = 0, j, start = v[0].off, end = start;
    for (int64_t i = 0; i < n; i = j, runs++) {
        end = run_end(v, n, i, &j);
        covered += end - v[i].off;
    }
    if (runs < 2 || end - start - covered > covered)
        return 0;
    char *at = buf + (start - lo);
    if ((*rc = lock(f, atomic)) != 0)
        return 1;
    /* A write's holes keep their bytes: they are read first, and bytes
     * past the end of the file (zero-filled here) are beyond it only
     * until the write, after which the file reads them as zeros anyway.
     * A read's bytes past the end read as zeros too (the ranks count
     * what they got from the file's size afterwards). */
    *rc = io_pread(f, at, (size_t)(end - start), start);
    if (*rc >= 0 && *rc < end - start)
        memset(at + *rc, 0, (size_t)(end - start - *rc));
    for (int64_t k = 0; k < n && *rc >= 0; k++) {
        if (write)
            memcpy(buf + (v[k].off - lo), v[k].data, v[k].len);
        else
            memcpy(v[k].data, buf + (v[k].off - lo), v[k].len);
    }
    if (*rc >= 0 && write)
        *rc = io_pwrite(f, at, (size_t)(end - start), start);
    unlock(f, atomic);
    return 1;
}

/* One run [start, end) of the parts v[i..j): a write copies them into buf
 * and writes the run, a read reads it and copies them out.  A run that is
 * one part moves straight between that part's data and the file. */
static int64_t run_xfer(zm_io_file_t *f, const zm_io_part_t *v, int64_t i, int64_t j,
                        int64_t start, int64_t end, int write, int64_t lo, char *buf,
                        int atomic)
{
    char *at = j == i + 1 ? v[i].data : buf + (start - lo);
    int64_t rc;
    if (write)
        for (int64_t k = i; k < j && j > i + 1; k++)
            memcpy(buf + (v[k].off - lo), v[k].data, v[k].len);
    if ((rc = lock(f, atomic)) != 0)
        return rc;
    rc = write ? io_pwrite(f, at, (size_t)(end - start), start)
               : io_pread(f, at, (size_t)(end - start), start);
    unlock(f, atomic);
    if (write || rc < 0)
        return rc;
    /* Bytes past the end of the file read as nothing: the ranks count
     * what they got from the file's size afterwards. */
    if (rc < end - start)
        memset(at + rc, 0, (size_t)(end - start - rc));
    for (int64_t k = i; k < j && j > i + 1; k++)
        memcpy(v[k].data, buf + (v[k].off - lo), v[k].len);
    return rc;
}

int zm_io_window(zm_io_file_t *f, const zm_io_piece_t *pieces, int npieces, int write,
                 int64_t lo, int64_t hi, char *buf, int rmw, int atomic)
{
    zm_io_part_t *v = NULL;
    size_t cap = 0, nparts = 0;
    int64_t rc = zm_io_collect(pieces, npieces, lo, hi, &v, &cap, &nparts), n = (int64_t)nparts;
    if (rc < 0) {
        free(v);
        return (int)rc;
    }
    if (n == 0 || !(rmw && f->readable && sieve_window(f, v, n, write, lo, buf, atomic, &rc))) {
        for (int64_t i = 0, j; i < n && rc >= 0; i = j) {
            int64_t end = run_end(v, n, i, &j);
            rc = run_xfer(f, v, i, j, v[i].off, end, write, lo, buf, atomic);
        }
    }
    free(v);
    /* The aggregated data is written back now, while the aggregators go
     * on with the next windows, instead of all at once in the fsync of
     * MPI_File_sync or MPI_File_close (zmpi's close always syncs).  Small
     * windows are left to the kernel.  A hint only: its errors change
     * nothing. */
    if (rc >= 0 && write && f->writeback && hi - lo >= ZM_IO_WRITEBACK_MIN)
        zm_arch_file_writeback(f->fd, lo, hi - lo);
    return rc < 0 ? (int)rc : 0;
}

static int aggr(zm_io_file_t *f, const zm_io_piece_t *pieces, int write, int a, int naggr,
                int64_t lo, int64_t hi, int atomic)
{
    if (hi <= lo)
        return 0;
    /* Equal domains, rounded to 4 KiB so that aggregators do not share
     * file system blocks where avoidable. */
    int64_t span = hi - lo;
    int64_t dom = (span + naggr - 1) / naggr;
    dom = (dom + 4095) & ~(int64_t)4095;
    int64_t dlo = lo + dom * a, dhi = dlo + dom;
    if (dhi > hi)
        dhi = hi;
    if (dlo >= dhi)
        return 0;
    int64_t wsize = f->cb_buffer_size;
    if (wsize > dhi - dlo)
        wsize = dhi - dlo;
    char *buf = malloc((size_t)wsize);
    if (!buf)
        return -ENOMEM;
    int rc = 0;
    for (int64_t w = dlo; w < dhi && rc == 0; w += wsize) {
        rc = zm_io_window(f, pieces, f->nranks, write, w, w + wsize < dhi ? w + wsize : dhi,
                          buf, 0, atomic);
        /* A switch point between windows: another aggregator woken onto
         * this worker (a hand-off to a sleeping worker migrates the woken
         * rank) would otherwise wait until this whole domain is done,
         * since an idle worker takes a ready rank only at a switch of its
         * worker (src/ult/ult.c).  Two aggregators of a 2-rank access then
         * ran one after the other instead of on two workers. */
        zm_ult_yield();
    }
    free(buf);
    return rc;
}

int zm_io_aggr_write(zm_io_file_t *f, const zm_io_piece_t *pieces, int a, int naggr,
                     int64_t lo, int64_t hi, int atomic)
{
    return aggr(f, pieces, 1, a, naggr, lo, hi, atomic);
}

int zm_io_aggr_read(zm_io_file_t *f, const zm_io_piece_t *pieces, int a, int naggr,
                    int64_t lo, int64_t hi, int atomic)
{
    return aggr(f, pieces, 0, a, naggr, lo, hi, atomic);
}
