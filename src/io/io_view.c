/*
 * io_view.c: file views as lists of runs, and accesses as lists of file
 * segments.
 *
 * A view tiles the file with its filetype from `disp` on; the data of an
 * access is the stream of the tiles' data bytes.  The filetype's compiled
 * layout (src/dt) is walked once, when the view is set, into the runs of
 * one tile; mapping an access then costs a binary search plus one step per
 * run it touches.
 */
#include "io/io.h"

#include <errno.h>
#include <stdlib.h>

/* Append a segment, merging it with the last one when they touch both in
 * the file and in the data. */
static int segs_push(zm_io_segs_t *s, int64_t off, size_t len, size_t pos)
{
    if (len == 0)
        return 0;
    if (s->n) {
        zm_io_seg_t *l = &s->v[s->n - 1];
        if (l->off + (int64_t)l->len == off && l->pos + l->len == pos) {
            l->len += len;
            s->bytes += len;
            return 0;
        }
    }
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        zm_io_seg_t *v = realloc(s->v, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = (zm_io_seg_t){ off, len, pos };
    s->bytes += len;
    return 0;
}

void zm_io_segs_free(zm_io_segs_t *s)
{
    free(s->v);
    *s = (zm_io_segs_t){ 0 };
}

/* Walk layout node n placed at `base` and append its runs in data order. */
static int flatten(const zm_dt_node_t *n, int64_t base, zm_io_segs_t *out)
{
    int64_t org = base + n->off;
    int rc = 0;
    if (n->kind == ZM_DT_RUN) {
        for (size_t i = 0; i < n->count && rc == 0; i++)
            rc = segs_push(out, org + (int64_t)i * n->stride, n->len, out->bytes);
    } else if (n->kind == ZM_DT_LOOP) {
        for (size_t i = 0; i < n->count && rc == 0; i++)
            rc = flatten(n->child, org + (int64_t)i * n->stride, out);
    } else {
        for (size_t i = 0; i < n->count && rc == 0; i++)
            rc = flatten(n->ent[i].node, org + n->ent[i].disp, out);
    }
    return rc;
}

int zm_io_view_set(zm_io_view_t *v, int64_t disp, const zm_dt_t *ft)
{
    zm_io_segs_t runs = { 0 };
    int rc = 0;
    if (ft->layout->root)
        rc = flatten(ft->layout->root, 0, &runs);
    if (rc == 0) {
        /* The runs must not go backwards or below the tile's start, or
         * the file would not be a sequence of the tiles' data. */
        for (size_t i = 0; i < runs.n && rc == 0; i++)
            if (runs.v[i].off < 0 || (i && runs.v[i].off < runs.v[i - 1].off +
                                                              (int64_t)runs.v[i - 1].len))
                rc = -EINVAL;
    }
    if (rc == 0 && runs.n && ft->extent <= 0)
        rc = -EINVAL;
    if (rc != 0) {
        zm_io_segs_free(&runs);
        return rc;
    }
    zm_io_view_free(v);
    v->disp = disp;
    v->tile_size = ft->size;
    v->tile_extent = ft->extent;
    v->runs = runs.v;
    v->nruns = runs.n;
    return 0;
}

void zm_io_view_free(zm_io_view_t *v)
{
    free(v->runs);
    v->runs = NULL;
    v->nruns = 0;
}

/* Index of the run of one tile that holds data byte `in` of the tile. */
static size_t run_at(const zm_io_view_t *v, size_t in)
{
    size_t lo = 0, hi = v->nruns;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (v->runs[mid].pos <= in)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

int64_t zm_io_view_offset(const zm_io_view_t *v, int64_t pos)
{
    if (v->tile_size == 0 || v->nruns == 0)
        return v->disp;
    int64_t tile = pos / (int64_t)v->tile_size;
    size_t in = (size_t)(pos % (int64_t)v->tile_size);
    const zm_io_seg_t *r = &v->runs[run_at(v, in)];
    return v->disp + tile * v->tile_extent + r->off + (int64_t)(in - r->pos);
}

int zm_io_view_map(const zm_io_view_t *v, int64_t pos, size_t n, size_t data_pos,
                   zm_io_segs_t *out)
{
    if (n == 0 || v->tile_size == 0)
        return 0;
    int64_t ts = (int64_t)v->tile_size;
    /* A contiguous filetype (the default view's MPI_BYTE among them) maps
     * any access to one segment, however many tiles it spans. */
    if (v->nruns == 1 && v->runs[0].off == 0 && v->runs[0].len == v->tile_size &&
        v->tile_extent == ts)
        return segs_push(out, v->disp + pos, n, data_pos);
    int64_t tile = pos / ts;
    size_t in = (size_t)(pos % ts);
    size_t r = run_at(v, in);
    while (n > 0) {
        const zm_io_seg_t *run = &v->runs[r];
        size_t skip = in - run->pos;
        size_t len = run->len - skip;
        if (len > n)
            len = n;
        int64_t off = v->disp + tile * v->tile_extent + run->off + (int64_t)skip;
        int rc = segs_push(out, off, len, data_pos);
        if (rc != 0)
            return rc;
        n -= len;
        data_pos += len;
        in += len;
        if (++r == v->nruns) {
            r = 0;
            in = 0;
            tile++;
        }
    }
    return 0;
}

int64_t zm_io_segs_avail(const zm_io_segs_t *s, int64_t size)
{
    int64_t got = 0;
    for (size_t i = 0; i < s->n; i++) {
        const zm_io_seg_t *g = &s->v[i];
        if (g->off + (int64_t)g->len <= size) {
            got += (int64_t)g->len;
            continue;
        }
        if (g->off < size)
            got += size - g->off;
        break;
    }
    return got;
}

int64_t zm_io_view_pos_of(const zm_io_view_t *v, int64_t off)
{
    if (off <= v->disp || v->tile_size == 0 || v->nruns == 0)
        return 0;
    int64_t rel = off - v->disp;
    int64_t tile = rel / v->tile_extent;
    int64_t in = rel % v->tile_extent;
    int64_t pos = tile * (int64_t)v->tile_size;
    for (size_t i = 0; i < v->nruns; i++) {
        const zm_io_seg_t *r = &v->runs[i];
        if (r->off + (int64_t)r->len <= in)
            continue;
        return pos + (int64_t)r->pos + (in > r->off ? in - r->off : 0);
    }
    return pos + (int64_t)v->tile_size;
}
