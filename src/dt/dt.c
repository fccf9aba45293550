/*
 * dt.c: the predefined datatypes and a copy engine for layouts made of one
 * or two runs per element.  Derived datatypes will replace the engine's
 * internals behind the same three calls.
 */
#include "dt/dt.h"

#include <complex.h>
#include <stdbool.h>
#include <string.h>
#include <wchar.h>

#define SCALAR(sym, type, k) \
    ZM_EXPORT zm_dt_t zmpi_dt_##sym = { ZM_DT_MAGIC, k, sizeof(type), 0, sizeof(type), 1, 1, \
                              { 0, 0 }, { sizeof(type), 0 }, sizeof(type), #sym };

SCALAR(MPI_CHAR, char, ZM_DT_CHAR)
SCALAR(MPI_SIGNED_CHAR, signed char, ZM_DT_INT_SIGNED)
SCALAR(MPI_UNSIGNED_CHAR, unsigned char, ZM_DT_INT_UNSIGNED)
SCALAR(MPI_BYTE, unsigned char, ZM_DT_BYTE)
SCALAR(MPI_WCHAR, wchar_t, ZM_DT_CHAR)
SCALAR(MPI_SHORT, short, ZM_DT_INT_SIGNED)
SCALAR(MPI_UNSIGNED_SHORT, unsigned short, ZM_DT_INT_UNSIGNED)
SCALAR(MPI_INT, int, ZM_DT_INT_SIGNED)
SCALAR(MPI_UNSIGNED, unsigned, ZM_DT_INT_UNSIGNED)
SCALAR(MPI_LONG, long, ZM_DT_INT_SIGNED)
SCALAR(MPI_UNSIGNED_LONG, unsigned long, ZM_DT_INT_UNSIGNED)
SCALAR(MPI_LONG_LONG_INT, long long, ZM_DT_INT_SIGNED)
SCALAR(MPI_UNSIGNED_LONG_LONG, unsigned long long, ZM_DT_INT_UNSIGNED)
SCALAR(MPI_FLOAT, float, ZM_DT_FLOAT)
SCALAR(MPI_DOUBLE, double, ZM_DT_FLOAT)
SCALAR(MPI_LONG_DOUBLE, long double, ZM_DT_FLOAT)
SCALAR(MPI_C_BOOL, bool, ZM_DT_BOOL)
SCALAR(MPI_INT8_T, int8_t, ZM_DT_INT_SIGNED)
SCALAR(MPI_INT16_T, int16_t, ZM_DT_INT_SIGNED)
SCALAR(MPI_INT32_T, int32_t, ZM_DT_INT_SIGNED)
SCALAR(MPI_INT64_T, int64_t, ZM_DT_INT_SIGNED)
SCALAR(MPI_UINT8_T, uint8_t, ZM_DT_INT_UNSIGNED)
SCALAR(MPI_UINT16_T, uint16_t, ZM_DT_INT_UNSIGNED)
SCALAR(MPI_UINT32_T, uint32_t, ZM_DT_INT_UNSIGNED)
SCALAR(MPI_UINT64_T, uint64_t, ZM_DT_INT_UNSIGNED)
SCALAR(MPI_C_FLOAT_COMPLEX, float complex, ZM_DT_COMPLEX)
SCALAR(MPI_C_DOUBLE_COMPLEX, double complex, ZM_DT_COMPLEX)
SCALAR(MPI_C_LONG_DOUBLE_COMPLEX, long double complex, ZM_DT_COMPLEX)
SCALAR(MPI_AINT, int64_t, ZM_DT_INT_SIGNED)
SCALAR(MPI_OFFSET, int64_t, ZM_DT_INT_SIGNED)
SCALAR(MPI_COUNT, int64_t, ZM_DT_INT_SIGNED)
SCALAR(MPI_PACKED, unsigned char, ZM_DT_PACKED)

/* Value/index pairs laid out exactly like the C structs the standard
 * describes, padding included.  When the index follows the value with no
 * gap, the two parts form one run. */
#define PAIR(sym, vtype)                                                        \
    struct pair_##sym { vtype v; int i; };                                      \
    ZM_EXPORT zm_dt_t zmpi_dt_##sym = {                                         \
        ZM_DT_MAGIC, ZM_DT_PAIR, sizeof(vtype) + sizeof(int), 0,                \
        sizeof(struct pair_##sym),                                              \
        sizeof(vtype) + sizeof(int) == sizeof(struct pair_##sym),               \
        offsetof(struct pair_##sym, i) == sizeof(vtype) ? 1 : 2,                \
        { 0, offsetof(struct pair_##sym, i) },                                  \
        { offsetof(struct pair_##sym, i) == sizeof(vtype) ? sizeof(vtype) + sizeof(int) \
                                                          : sizeof(vtype),      \
          sizeof(int) },                                                        \
        sizeof(vtype), #sym };

PAIR(MPI_FLOAT_INT, float)
PAIR(MPI_DOUBLE_INT, double)
PAIR(MPI_LONG_INT, long)
PAIR(MPI_2INT, int)
PAIR(MPI_SHORT_INT, short)
PAIR(MPI_LONG_DOUBLE_INT, long double)


/* A cursor over the runs of a layout, so copy can walk two layouts at once
 * without packing either. */
typedef struct dt_cursor {
    const zm_dt_t *dt;
    char *base;     /* buffer address */
    size_t elem;    /* current element */
    int block;      /* current run inside the element */
    size_t done;    /* bytes consumed inside the current run */
} dt_cursor_t;

/* Address and remaining length of the cursor's current run. */
static inline char *cursor_run(const dt_cursor_t *c, size_t *avail)
{
    const zm_dt_t *dt = c->dt;
    *avail = dt->len[c->block] - c->done;
    return c->base + dt->lb + (ptrdiff_t)c->elem * dt->extent +
           (ptrdiff_t)dt->off[c->block] + (ptrdiff_t)c->done;
}

static inline void cursor_advance(dt_cursor_t *c, size_t n)
{
    c->done += n;
    if (c->done == c->dt->len[c->block]) {
        c->done = 0;
        if (++c->block == c->dt->nblocks) {
            c->block = 0;
            c->elem++;
        }
    }
}

void zm_dt_copy(void *dbuf, size_t dcount, const zm_dt_t *ddt,
                const void *sbuf, size_t scount, const zm_dt_t *sdt, size_t bytes)
{
    (void)dcount;
    (void)scount;
    if (ZM_LIKELY(ddt->contig && sdt->contig)) {
        memcpy(dbuf, sbuf, bytes);
        return;
    }
    dt_cursor_t d = { ddt, dbuf, 0, 0, 0 }, s = { sdt, (char *)sbuf, 0, 0, 0 };
    while (bytes) {
        size_t da, sa;
        char *dp = cursor_run(&d, &da);
        char *sp = cursor_run(&s, &sa);
        size_t n = da < sa ? da : sa;
        if (n > bytes)
            n = bytes;
        memcpy(dp, sp, n);
        cursor_advance(&d, n);
        cursor_advance(&s, n);
        bytes -= n;
    }
}

void zm_dt_pack(void *out, const void *buf, size_t count, const zm_dt_t *dt, size_t bytes)
{
    zm_dt_copy(out, bytes, &zmpi_dt_MPI_BYTE, buf, count, dt, bytes);
}

void zm_dt_unpack(void *buf, size_t count, const zm_dt_t *dt, const void *in, size_t bytes)
{
    zm_dt_copy(buf, count, dt, in, bytes, &zmpi_dt_MPI_BYTE, bytes);
}

const zm_dt_t *zm_dt_basic(const zm_dt_t *dt)
{
    /* Every datatype is predefined until derived datatypes exist. */
    return dt;
}

void zm_dt_retain(const zm_dt_t *dt)
{
    (void)dt; /* predefined types live for the whole job */
}

void zm_dt_release(const zm_dt_t *dt)
{
    (void)dt;
}
