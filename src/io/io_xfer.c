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
 * data directly.  Holes are never written, so bytes no rank accesses keep
 * their contents.
 */
#include "io/io.h"

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

int64_t zm_io_write_segs(zm_io_file_t *f, const zm_io_segs_t *s, const char *data, int atomic)
{
    int64_t rc = lock(f, atomic);
    if (rc < 0)
        return rc;
    for (size_t i = 0; i < s->n && rc >= 0; i++)
        rc = zm_arch_file_pwrite(f->fd, data + s->v[i].pos, s->v[i].len, s->v[i].off);
    unlock(f, atomic);
    return rc < 0 ? rc : 0;
}

int64_t zm_io_read_segs(zm_io_file_t *f, const zm_io_segs_t *s, char *data, int atomic)
{
    int64_t got = lock(f, atomic);
    if (got < 0)
        return got;
    for (size_t i = 0; i < s->n; i++) {
        int64_t r = zm_arch_file_pread(f->fd, data + s->v[i].pos, s->v[i].len, s->v[i].off);
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

/* A piece of one rank's segment that falls in the current window. */
typedef struct part {
    int64_t off;    /* file offset */
    size_t len;     /* bytes */
    char *data;     /* the rank's packed bytes for it */
} part_t;

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
static int part_push(part_t **parts, size_t *cap, size_t *n, part_t p)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        part_t *np = realloc(*parts, nc * sizeof(*np));
        if (!np)
            return -ENOMEM;
        *parts = np;
        *cap = nc;
    }
    (*parts)[(*n)++] = p;
    return 0;
}

/* Collect every rank's parts in [lo, hi) into *parts, sorted by offset.
 * Each rank's segments are sorted already, so a heap merges them in
 * O(parts * log ranks).  Returns the count or -ENOMEM. */
static int64_t collect(zm_io_file_t *f, const zm_io_piece_t *pieces, int64_t lo, int64_t hi,
                       part_t **parts, size_t *cap)
{
    head_t *h = malloc((size_t)f->nranks * sizeof(*h));
    if (!h)
        return -ENOMEM;
    size_t nh = 0, n = 0;
    for (int r = 0; r < f->nranks; r++) {
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
        if (part_push(parts, cap, &n,
                      (part_t){ a, (size_t)(e - a), p->data + g->pos + (a - g->off) }) != 0) {
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
    return (int64_t)n;
}

/* Move one window [lo, hi) through `buf`: for a write, copy the parts in
 * and write each covered run; for a read, read each covered run and copy
 * the parts out. */
static int window(zm_io_file_t *f, const zm_io_piece_t *pieces, int write, int64_t lo,
                  int64_t hi, char *buf, part_t **parts, size_t *cap, int atomic)
{
    int64_t n = collect(f, pieces, lo, hi, parts, cap);
    if (n < 0)
        return (int)n;
    part_t *v = *parts;
    int64_t rc = 0;
    for (int64_t i = 0; i < n && rc >= 0;) {
        /* A run of parts that cover the file without a gap. */
        int64_t start = v[i].off, end = start;
        int64_t j = i;
        while (j < n && v[j].off <= end) {
            if (v[j].off + (int64_t)v[j].len > end)
                end = v[j].off + (int64_t)v[j].len;
            j++;
        }
        /* A run that is one rank's part moves straight between that
         * rank's data and the file: no copy through buf. */
        char *at = j == i + 1 ? v[i].data : buf + (start - lo);
        if (write) {
            for (int64_t k = i; k < j && j > i + 1; k++)
                memcpy(buf + (v[k].off - lo), v[k].data, v[k].len);
            if ((rc = lock(f, atomic)) == 0) {
                rc = zm_arch_file_pwrite(f->fd, at, (size_t)(end - start), start);
                unlock(f, atomic);
            }
        } else if (j == i + 1) {
            if ((rc = lock(f, atomic)) == 0) {
                rc = zm_arch_file_pread(f->fd, at, (size_t)(end - start), start);
                unlock(f, atomic);
            }
            if (rc >= 0 && rc < end - start)
                memset(at + rc, 0, (size_t)(end - start - rc));
        } else {
            if ((rc = lock(f, atomic)) == 0) {
                rc = zm_arch_file_pread(f->fd, buf + (start - lo), (size_t)(end - start),
                                        start);
                unlock(f, atomic);
            }
            /* Bytes past the end of the file read as nothing: the ranks
             * count what they got from the file's size afterwards. */
            if (rc >= 0 && rc < end - start)
                memset(buf + (start - lo) + rc, 0, (size_t)(end - start - rc));
            for (int64_t k = i; k < j && rc >= 0; k++)
                memcpy(v[k].data, buf + (v[k].off - lo), v[k].len);
        }
        i = j;
    }
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
    part_t *parts = NULL;
    size_t cap = 0;
    int rc = 0;
    for (int64_t w = dlo; w < dhi && rc == 0; w += wsize)
        rc = window(f, pieces, write, w, w + wsize < dhi ? w + wsize : dhi, buf, &parts, &cap,
                    atomic);
    free(parts);
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
