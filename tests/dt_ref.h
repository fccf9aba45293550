/*
 * dt_ref.h: a naive reference model of derived datatypes for the tests.
 *
 * A reference type is the list of the byte offsets of its data bytes, in
 * typemap order, plus its extent: the most literal reading of the standard's
 * definitions, with no attempt at speed.  Each builder below makes the MPI
 * type and its reference together, so a test can check the library's pack,
 * unpack and send/receive byte for byte against the model.
 */
#ifndef DT_REF_H
#define DT_REF_H

#include "zt.h"

typedef struct ref {
    MPI_Datatype t;   /* the MPI type (committed by ref_commit) */
    long *off;        /* byte offset of each data byte, typemap order */
    size_t n;         /* data bytes (== MPI_Type_size) */
    MPI_Aint lb;      /* as MPI reports it */
    MPI_Aint extent;  /* as MPI reports it */
} ref_t;

/* Append `r`'s offsets shifted by `d` to out. */
static inline void ref_put(long *out, size_t *k, const ref_t *r, long d)
{
    for (size_t j = 0; j < r->n; j++)
        out[(*k)++] = d + r->off[j];
}

/* Finish a reference: read the MPI bounds and check the size. */
static inline ref_t ref_make(MPI_Datatype t, long *off, size_t n)
{
    ref_t r = { t, off, n, 0, 0 };
    int size;
    ZT_OK(MPI_Type_get_extent(t, &r.lb, &r.extent));
    ZT_OK(MPI_Type_size(t, &size));
    ZT_EQ(size, n, "MPI_Type_size against the reference");
    return r;
}

static inline ref_t ref_basic(MPI_Datatype t)
{
    int size;
    ZT_OK(MPI_Type_size(t, &size));
    long *off = zt_malloc((size_t)size * sizeof(long));
    for (int i = 0; i < size; i++)
        off[i] = i;
    return ref_make(t, off, (size_t)size);
}

static inline ref_t ref_hvector(int count, int bl, MPI_Aint stride, const ref_t *o)
{
    MPI_Datatype t;
    ZT_OK(MPI_Type_create_hvector(count, bl, stride, o->t, &t));
    long *off = zt_malloc((size_t)count * (size_t)bl * o->n * sizeof(long) + 1);
    size_t k = 0;
    for (int i = 0; i < count; i++)
        for (int b = 0; b < bl; b++)
            ref_put(off, &k, o, (long)i * stride + (long)b * o->extent);
    return ref_make(t, off, k);
}

static inline ref_t ref_vector(int count, int bl, int stride, const ref_t *o)
{
    MPI_Datatype t;
    ZT_OK(MPI_Type_vector(count, bl, stride, o->t, &t));
    long *off = zt_malloc((size_t)count * (size_t)bl * o->n * sizeof(long) + 1);
    size_t k = 0;
    for (int i = 0; i < count; i++)
        for (int b = 0; b < bl; b++)
            ref_put(off, &k, o, ((long)i * stride + b) * o->extent);
    return ref_make(t, off, k);
}

static inline ref_t ref_contig(int count, const ref_t *o)
{
    MPI_Datatype t;
    ZT_OK(MPI_Type_contiguous(count, o->t, &t));
    long *off = zt_malloc((size_t)count * o->n * sizeof(long) + 1);
    size_t k = 0;
    for (int i = 0; i < count; i++)
        ref_put(off, &k, o, (long)i * o->extent);
    return ref_make(t, off, k);
}

/* Struct of n blocks; `bytes` displacements.  With kind 'i' or 'b' the
 * indexed forms are used (element displacements = disp / extent). */
static inline ref_t ref_blocks(char kind, int n, const int *bl, const MPI_Aint *disp,
                               const ref_t *const *o)
{
    MPI_Datatype t, *types = zt_malloc((size_t)n * sizeof(MPI_Datatype) + 1);
    int *idisp = zt_malloc((size_t)n * sizeof(int) + 1);
    size_t total = 0;
    for (int i = 0; i < n; i++) {
        types[i] = o[i]->t;
        idisp[i] = o[0]->extent ? (int)(disp[i] / o[0]->extent) : 0;
        total += (size_t)bl[i] * o[i]->n;
    }
    if (kind == 's')
        ZT_OK(MPI_Type_create_struct(n, bl, disp, types, &t));
    else if (kind == 'h')
        ZT_OK(MPI_Type_create_hindexed(n, bl, disp, o[0]->t, &t));
    else if (kind == 'i')
        ZT_OK(MPI_Type_indexed(n, bl, idisp, o[0]->t, &t));
    else if (kind == 'b')
        ZT_OK(MPI_Type_create_indexed_block(n, bl[0], idisp, o[0]->t, &t));
    else
        ZT_OK(MPI_Type_create_hindexed_block(n, bl[0], disp, o[0]->t, &t));
    long *off = zt_malloc(total * sizeof(long) + 1);
    size_t k = 0;
    for (int i = 0; i < n; i++)
        for (int b = 0; b < bl[i]; b++)
            ref_put(off, &k, o[i], (long)disp[i] + (long)b * o[i]->extent);
    free(types);
    free(idisp);
    return ref_make(t, off, k);
}

static inline ref_t ref_resized(const ref_t *o, MPI_Aint lb, MPI_Aint extent)
{
    MPI_Datatype t;
    ZT_OK(MPI_Type_create_resized(o->t, lb, extent, &t));
    long *off = zt_malloc(o->n * sizeof(long) + 1);
    memcpy(off, o->off, o->n * sizeof(long));
    ref_t r = ref_make(t, off, o->n);
    ZT_EQ(r.lb, lb, "lb of a resized type");
    ZT_EQ(r.extent, extent, "extent of a resized type");
    return r;
}

static inline void ref_free(ref_t *r)
{
    int combiner, ni, na, nd;
    ZT_OK(MPI_Type_get_envelope(r->t, &ni, &na, &nd, &combiner));
    if (combiner != MPI_COMBINER_NAMED)
        ZT_OK(MPI_Type_free(&r->t));
    free(r->off);
    r->off = NULL;
}

/* Lowest and one-past-highest byte offsets that `count` elements touch. */
static inline void ref_span(const ref_t *r, int count, long *lo, long *hi)
{
    *lo = 0;
    *hi = 1;
    for (int i = 0; i < count; i++)
        for (size_t j = 0; j < r->n; j++) {
            long o = (long)i * r->extent + r->off[j];
            if (o < *lo)
                *lo = o;
            if (o + 1 > *hi)
                *hi = o + 1;
        }
}

/* Reference pack of the first `bytes` data bytes of (base, count, r). */
static inline void ref_pack(unsigned char *out, const unsigned char *base, int count,
                            const ref_t *r, size_t bytes)
{
    size_t k = 0;
    for (int i = 0; i < count && k < bytes; i++)
        for (size_t j = 0; j < r->n && k < bytes; j++)
            out[k++] = base[(long)i * r->extent + r->off[j]];
}

static inline void ref_unpack(unsigned char *base, int count, const ref_t *r,
                              const unsigned char *in, size_t bytes)
{
    size_t k = 0;
    for (int i = 0; i < count && k < bytes; i++)
        for (size_t j = 0; j < r->n && k < bytes; j++)
            base[(long)i * r->extent + r->off[j]] = in[k++];
}

/* A buffer for count elements of r: *mem to free, returns the base. */
static inline unsigned char *ref_buffer(const ref_t *r, int count, unsigned char **mem,
                                        size_t *len, long *lo)
{
    long hi;
    ref_span(r, count, lo, &hi);
    *len = (size_t)(hi - *lo);
    *mem = zt_malloc(*len);
    return *mem - *lo;
}

#endif /* DT_REF_H */
