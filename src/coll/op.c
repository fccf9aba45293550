/*
 * op.c: reduction operations: the predefined ones on predefined datatypes,
 * and user functions (MPI_Op_create).
 */
#include "coll/coll.h"
#include "arch/arch.h"

#include <complex.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define OP(sym, id) ZM_EXPORT zm_op_t zmpi_op_##sym = { ZM_OP_MAGIC, id, 1, #sym, NULL, 1, 0 };
OP(MPI_MAX, ZM_OP_MAX)
OP(MPI_MIN, ZM_OP_MIN)
OP(MPI_SUM, ZM_OP_SUM)
OP(MPI_PROD, ZM_OP_PROD)
OP(MPI_LAND, ZM_OP_LAND)
OP(MPI_BAND, ZM_OP_BAND)
OP(MPI_LOR, ZM_OP_LOR)
OP(MPI_BOR, ZM_OP_BOR)
OP(MPI_LXOR, ZM_OP_LXOR)
OP(MPI_BXOR, ZM_OP_BXOR)
OP(MPI_MINLOC, ZM_OP_MINLOC)
OP(MPI_MAXLOC, ZM_OP_MAXLOC)
OP(MPI_REPLACE, ZM_OP_REPLACE)
OP(MPI_NO_OP, ZM_OP_NO_OP)

int zm_op_valid(const zm_op_t *op)
{
    return op != NULL && op->magic == ZM_OP_MAGIC;
}

int zm_op_defined(const zm_op_t *op, const zm_dt_t *dt)
{
    if (op->id == ZM_OP_USER)
        return 1;
    if (!dt)
        return 0; /* a derived type mixing basic types */
    zm_dt_kind_t k = dt->kind;
    int integer = k == ZM_DT_INT_SIGNED || k == ZM_DT_INT_UNSIGNED;
    switch (op->id) {
    case ZM_OP_MAX:
    case ZM_OP_MIN:
        return integer || k == ZM_DT_FLOAT;
    case ZM_OP_SUM:
    case ZM_OP_PROD:
        return integer || k == ZM_DT_FLOAT || k == ZM_DT_COMPLEX;
    case ZM_OP_LAND:
    case ZM_OP_LOR:
    case ZM_OP_LXOR:
        return integer || k == ZM_DT_BOOL;
    case ZM_OP_BAND:
    case ZM_OP_BOR:
    case ZM_OP_BXOR:
        return integer || k == ZM_DT_BYTE;
    case ZM_OP_MINLOC:
    case ZM_OP_MAXLOC:
        return k == ZM_DT_PAIR;
    case ZM_OP_REPLACE:
    case ZM_OP_NO_OP:
        return 1;
    }
    return 0;
}

/* Element-wise loops for one C type.  ARITH covers the operations defined
 * on every real type; BITS adds the bitwise ones for integers.
 *
 * The loops are vectorized (op.c is built with -O3) in the widest vectors
 * the CPU has (ZM_ARCH_WIDE): an 8-byte double sum went from one addsd
 * per element to eight per vaddpd.  Every element is still computed alone
 * and in the same order of operands, so results are bit for bit those of
 * the scalar loop, whichever version runs.  `restrict` is sound because
 * the standard forbids the two buffers to overlap; the identical buffer
 * that MPI_Reduce_local might still be handed stays correct too, since
 * element i is only ever combined with element i. */
#define LOOP(T, EXPR) \
    do { const T *restrict a = in; T *restrict b = inout; \
         for (size_t i = 0; i < count; i++) b[i] = (EXPR); } while (0)

#define ARITH(T)                                                   \
    case ZM_OP_MAX: LOOP(T, a[i] > b[i] ? a[i] : b[i]); return;    \
    case ZM_OP_MIN: LOOP(T, a[i] < b[i] ? a[i] : b[i]); return;    \
    case ZM_OP_SUM: LOOP(T, b[i] + a[i]); return;                  \
    case ZM_OP_PROD: LOOP(T, b[i] * a[i]); return;                 \
    case ZM_OP_LAND: LOOP(T, (T)(a[i] && b[i])); return;           \
    case ZM_OP_LOR: LOOP(T, (T)(a[i] || b[i])); return;            \
    case ZM_OP_LXOR: LOOP(T, (T)(!a[i] != !b[i])); return;

#define BITS(T)                                                    \
    case ZM_OP_BAND: LOOP(T, b[i] & a[i]); return;                 \
    case ZM_OP_BOR: LOOP(T, b[i] | a[i]); return;                  \
    case ZM_OP_BXOR: LOOP(T, b[i] ^ a[i]); return;

#define INT_FN(name, T) \
    ZM_ARCH_WIDE static void name(int id, const void *in, void *inout, size_t count) \
    { switch (id) { ARITH(T) BITS(T) } }
#define REAL_FN(name, T) \
    ZM_ARCH_WIDE static void name(int id, const void *in, void *inout, size_t count) \
    { switch (id) { ARITH(T) } }
#define CPLX_FN(name, T) \
    ZM_ARCH_WIDE static void name(int id, const void *in, void *inout, size_t count) \
    { switch (id) { case ZM_OP_SUM: LOOP(T, b[i] + a[i]); return; \
                    case ZM_OP_PROD: LOOP(T, b[i] * a[i]); return; } }

INT_FN(op_i8, int8_t)
INT_FN(op_i16, int16_t)
INT_FN(op_i32, int32_t)
INT_FN(op_i64, int64_t)
INT_FN(op_u8, uint8_t)
INT_FN(op_u16, uint16_t)
INT_FN(op_u32, uint32_t)
INT_FN(op_u64, uint64_t)
REAL_FN(op_f32, float)
REAL_FN(op_f64, double)
REAL_FN(op_f128, long double)
CPLX_FN(op_c64, float complex)
CPLX_FN(op_c128, double complex)
CPLX_FN(op_c256, long double complex)

/* MINLOC/MAXLOC: the better value wins; on a tie the lower index. */
#define PAIR_FN(name, VT)                                                       \
    static void name(int id, const void *in, void *inout, size_t count)        \
    {                                                                           \
        struct p { VT v; int i; };                                              \
        const struct p *a = in;                                                 \
        struct p *b = inout;                                                    \
        for (size_t k = 0; k < count; k++) {                                    \
            int better = id == ZM_OP_MINLOC ? a[k].v < b[k].v : a[k].v > b[k].v; \
            if (better || (a[k].v == b[k].v && a[k].i < b[k].i))                \
                b[k] = a[k];                                                    \
        }                                                                       \
    }
PAIR_FN(op_pair_f, float)
PAIR_FN(op_pair_d, double)
PAIR_FN(op_pair_l, long)
PAIR_FN(op_pair_i, int)
PAIR_FN(op_pair_s, short)
PAIR_FN(op_pair_ld, long double)

typedef void (*kernel_fn)(int, const void *, void *, size_t);

extern zm_dt_t zmpi_dt_MPI_FLOAT_INT, zmpi_dt_MPI_DOUBLE_INT, zmpi_dt_MPI_LONG_INT,
    zmpi_dt_MPI_2INT, zmpi_dt_MPI_SHORT_INT, zmpi_dt_MPI_LONG_DOUBLE_INT;

static kernel_fn pick_pair(const zm_dt_t *dt)
{
    if (dt == &zmpi_dt_MPI_FLOAT_INT) return op_pair_f;
    if (dt == &zmpi_dt_MPI_DOUBLE_INT) return op_pair_d;
    if (dt == &zmpi_dt_MPI_LONG_INT) return op_pair_l;
    if (dt == &zmpi_dt_MPI_2INT) return op_pair_i;
    if (dt == &zmpi_dt_MPI_SHORT_INT) return op_pair_s;
    return op_pair_ld;
}

static kernel_fn pick(const zm_dt_t *dt)
{
    size_t s = dt->size;
    switch (dt->kind) {
    case ZM_DT_INT_SIGNED:
        return s == 1 ? op_i8 : s == 2 ? op_i16 : s == 4 ? op_i32 : op_i64;
    case ZM_DT_INT_UNSIGNED:
    case ZM_DT_BYTE:
    case ZM_DT_BOOL:
        return s == 1 ? op_u8 : s == 2 ? op_u16 : s == 4 ? op_u32 : op_u64;
    case ZM_DT_FLOAT:
        return s == 4 ? op_f32 : s == 8 ? op_f64 : op_f128;
    case ZM_DT_COMPLEX:
        return s == 8 ? op_c64 : s == 16 ? op_c128 : op_c256;
    case ZM_DT_PAIR:
        return pick_pair(dt);
    default:
        return NULL;
    }
}

void zm_op_apply(const zm_op_t *op, const void *in, void *inout, size_t count,
                 const zm_dt_t *dt)
{
    if (op->id == ZM_OP_USER) {
        /* The standard's len is an int: hand over large counts in pieces. */
        while (count) {
            int len = count > (size_t)1 << 30 ? 1 << 30 : (int)count;
            struct zmpi_datatype *h = (zm_dt_t *)dt;
            op->fn((void *)in, inout, &len, &h);
            in = (const char *)in + (size_t)len * (size_t)dt->extent;
            inout = (char *)inout + (size_t)len * (size_t)dt->extent;
            count -= (size_t)len;
        }
        return;
    }
    if (op->id == ZM_OP_NO_OP)
        return;
    if (op->id == ZM_OP_REPLACE) {
        memcpy(inout, in, count * (size_t)dt->extent);
        return;
    }
    kernel_fn fn = pick(dt);
    if (fn)
        fn(op->id, in, inout, count);
}

zm_op_t *zm_op_create(zm_op_user_fn *fn, int commutative)
{
    zm_op_t *op = calloc(1, sizeof(*op));
    if (!op)
        return NULL;
    op->magic = ZM_OP_MAGIC;
    op->id = ZM_OP_USER;
    op->commutative = commutative;
    op->name = "a user operation";
    op->fn = fn;
    atomic_store(&op->refs, 1);
    return op;
}

void zm_op_retain(const zm_op_t *op)
{
    if (!op->predefined)
        atomic_fetch_add(&((zm_op_t *)op)->refs, 1);
}

void zm_op_release(const zm_op_t *op)
{
    zm_op_t *o = (zm_op_t *)op;
    if (op->predefined || atomic_fetch_sub(&o->refs, 1) != 1)
        return;
    o->magic = 0;
    free(o);
}
