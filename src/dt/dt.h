/*
 * dt: datatypes and the copy engine.
 *
 * This layer describes how a (buffer, count, datatype) triple lays out its
 * bytes and moves them: pack into a contiguous buffer, unpack out of one, or
 * copy straight from one layout into another.  The point-to-point layer only
 * talks to datatypes through these calls, so the derived-datatype engine can
 * replace the internals without touching p2p.
 */
#ifndef ZM_DT_H
#define ZM_DT_H

#include <stddef.h>
#include <stdint.h>

#include "core/core.h"

/* Basic element kinds, used by reductions to pick a kernel. */
typedef enum zm_dt_kind {
    ZM_DT_INT_SIGNED,    /* two's-complement integer of `size` bytes */
    ZM_DT_INT_UNSIGNED,  /* unsigned integer */
    ZM_DT_FLOAT,         /* float, double or long double by size */
    ZM_DT_COMPLEX,       /* C complex of two floats by size */
    ZM_DT_BOOL,          /* C _Bool */
    ZM_DT_BYTE,          /* MPI_BYTE: bits only */
    ZM_DT_CHAR,          /* MPI_CHAR / MPI_WCHAR: text, no arithmetic */
    ZM_DT_PACKED,        /* MPI_PACKED */
    ZM_DT_PAIR           /* value/index pair for MINLOC/MAXLOC */
} zm_dt_kind_t;

#define ZM_DT_MAGIC 0x7a6d6474u

/* A datatype.  Predefined ones are constant objects in dt.c. */
typedef struct zmpi_datatype {
    uint32_t magic;         /* ZM_DT_MAGIC while valid */
    zm_dt_kind_t kind;      /* element kind */
    size_t size;            /* bytes of data per element */
    ptrdiff_t lb;           /* lower bound */
    ptrdiff_t extent;       /* distance between consecutive elements */
    int contig;             /* 1 if size == extent and lb == 0 */
    int nblocks;            /* 1 or 2 contiguous runs per element */
    size_t off[2];          /* offset of each run inside an element */
    size_t len[2];          /* length of each run */
    size_t val_size;        /* pair types: size of the value part */
    const char *name;       /* MPI name, for messages */
} zm_dt_t;

/* Bytes of data in `count` elements. */
static inline size_t zm_dt_bytes(const zm_dt_t *dt, size_t count)
{
    return dt->size * count;
}

/* Pack the first `bytes` bytes of the data of (buf, count, dt) into `out`.
 * Any thread; no allocation. */
void zm_dt_pack(void *out, const void *buf, size_t count, const zm_dt_t *dt, size_t bytes);

/* Unpack `bytes` contiguous bytes from `in` into (buf, count, dt). */
void zm_dt_unpack(void *buf, size_t count, const zm_dt_t *dt, const void *in, size_t bytes);

/* Copy `bytes` bytes of data from one layout straight into another, with
 * no intermediate buffer.  Any thread; no allocation. */
void zm_dt_copy(void *dbuf, size_t dcount, const zm_dt_t *ddt,
                const void *sbuf, size_t scount, const zm_dt_t *sdt, size_t bytes);

/* The predefined datatype that all data of `dt` is made of, or NULL when
 * `dt` mixes different predefined types.  Reductions use it to pick a
 * kernel: (buf, count, dt) then holds zm_dt_bytes(dt, count) /
 * basic->size elements of `basic`.  Any thread; the result is owned by the
 * datatype layer and lives as long as `dt`. */
const zm_dt_t *zm_dt_basic(const zm_dt_t *dt);

/* Keep `dt` alive while an operation (a request, a non-blocking
 * collective) still uses it, even if the user frees it; release drops that
 * hold.  Predefined types are never freed, so both are no-ops for them.
 * Any thread. */
void zm_dt_retain(const zm_dt_t *dt);
void zm_dt_release(const zm_dt_t *dt);

/* Nonzero if `dt` looks like a valid datatype object. */
static inline int zm_dt_valid(const zm_dt_t *dt)
{
    return dt != NULL && dt->magic == ZM_DT_MAGIC;
}

#endif /* ZM_DT_H */
