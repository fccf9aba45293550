/*
 * op.c: reduction operations: the predefined ones on predefined datatypes,
 * and user functions (MPI_Op_create).
 *
 * Which predefined operation takes which type follows the groups of MPI 4.1
 * section 6.9.2 (C integer, Fortran integer, floating point, logical,
 * complex, byte, and the value/index pairs for MINLOC and MAXLOC).  Every
 * type reduces with the kernel of the C type of the same representation,
 * so the Fortran types share the C kernels.  A type with no such C type
 * here (MPI_REAL2 and MPI_COMPLEX4: half precision) communicates but takes
 * no operation other than MPI_REPLACE and MPI_NO_OP.
 *
 * Extension: MPI_CHAR takes the operations of the C integers, computed as
 * on the C type char (signed on x86-64, unsigned on AArch64), as MPICH and
 * Open MPI accept it; the standard defines none on MPI_CHAR.  MPI_WCHAR,
 * MPI_CHARACTER and (outside the bitwise operations) MPI_BYTE stay
 * rejected, as in MPICH.
 */
#include "coll/coll.h"
#include "arch/arch.h"

#include <complex.h>
#include <float.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define OP(sym, code)                                                                   \
    ZM_EXPORT zm_op_t zmpi_op_##sym = { .magic = ZM_OP_MAGIC, .id = code, .commutative = 1, \
                                        .name = #sym, .predefined = 1 };
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

/* 16-byte integers (MPI_INTEGER16) and IEEE binary128 (MPI_REAL16,
 * MPI_COMPLEX32), where the compiler has them: binary128 is long double on
 * AArch64 and __float128 (computed in software) on x86-64, whose long
 * double is the 80-bit x87 format instead. */
#ifdef __SIZEOF_INT128__
INT_FN(op_i128, __int128)
#define OP_I128 op_i128
#else
#define OP_I128 NULL
#endif
#if LDBL_MANT_DIG == 113
#define OP_QUAD op_f128
#define OP_CQUAD op_c256
#elif defined(__SIZEOF_FLOAT128__)
typedef _Complex float complex_quad __attribute__((mode(TC)));
REAL_FN(op_quad, __float128)
CPLX_FN(op_cquad, complex_quad)
#define OP_QUAD op_quad
#define OP_CQUAD op_cquad
#else
#define OP_QUAD NULL
#define OP_CQUAD NULL
#endif

/* MINLOC/MAXLOC: the better value wins; on a tie the lower index.  The
 * index is an int for the C pairs and of the value's type for the Fortran
 * ones (MPI_2REAL holds two REALs). */
#define PAIR_FN(name, VT, IT)                                                   \
    static void name(int id, const void *in, void *inout, size_t count)        \
    {                                                                           \
        struct p { VT v; IT i; };                                               \
        const struct p *a = in;                                                 \
        struct p *b = inout;                                                    \
        for (size_t k = 0; k < count; k++) {                                    \
            int better = id == ZM_OP_MINLOC ? a[k].v < b[k].v : a[k].v > b[k].v; \
            if (better || (a[k].v == b[k].v && a[k].i < b[k].i))                \
                b[k] = a[k];                                                    \
        }                                                                       \
    }
PAIR_FN(op_pair_f, float, int)
PAIR_FN(op_pair_d, double, int)
PAIR_FN(op_pair_l, long, int)
PAIR_FN(op_pair_i, int, int)
PAIR_FN(op_pair_s, short, int)
PAIR_FN(op_pair_ld, long double, int)
PAIR_FN(op_pair_ff, float, float)
PAIR_FN(op_pair_dd, double, double)

typedef void (*kernel_fn)(int, const void *, void *, size_t);

extern zm_dt_t zmpi_dt_MPI_FLOAT_INT, zmpi_dt_MPI_DOUBLE_INT, zmpi_dt_MPI_LONG_INT,
    zmpi_dt_MPI_2INT, zmpi_dt_MPI_SHORT_INT, zmpi_dt_MPI_LONG_DOUBLE_INT, zmpi_dt_MPI_2INTEGER,
    zmpi_dt_MPI_2REAL, zmpi_dt_MPI_2DOUBLE_PRECISION, zmpi_dt_MPI_CHAR, zmpi_dt_MPI_REAL16,
    zmpi_dt_MPI_COMPLEX32;

static kernel_fn pick_pair(const zm_dt_t *dt)
{
    if (dt == &zmpi_dt_MPI_FLOAT_INT) return op_pair_f;
    if (dt == &zmpi_dt_MPI_DOUBLE_INT) return op_pair_d;
    if (dt == &zmpi_dt_MPI_LONG_INT) return op_pair_l;
    if (dt == &zmpi_dt_MPI_2INT || dt == &zmpi_dt_MPI_2INTEGER) return op_pair_i;
    if (dt == &zmpi_dt_MPI_SHORT_INT) return op_pair_s;
    if (dt == &zmpi_dt_MPI_LONG_DOUBLE_INT) return op_pair_ld;
    if (dt == &zmpi_dt_MPI_2REAL) return op_pair_ff;
    if (dt == &zmpi_dt_MPI_2DOUBLE_PRECISION) return op_pair_dd;
    return NULL;
}

/* The kernel for predefined type dt, or NULL if it has none.  Sizes 2 and
 * 4 of the floating and complex kinds are half precision (REAL2,
 * COMPLEX4), which has no C type here. */
static kernel_fn pick(const zm_dt_t *dt)
{
    size_t s = dt->size;
    switch (dt->kind) {
    case ZM_DT_CHAR:
        if (dt != &zmpi_dt_MPI_CHAR)
            return NULL;
        return CHAR_MIN < 0 ? op_i8 : op_u8;
    case ZM_DT_INT_SIGNED:
    case ZM_DT_FORTRAN_INT:
        return s == 1 ? op_i8 : s == 2 ? op_i16 : s == 4 ? op_i32 : s == 8 ? op_i64 : OP_I128;
    case ZM_DT_INT_UNSIGNED:
    case ZM_DT_BYTE:
    case ZM_DT_BOOL:
    case ZM_DT_LOGICAL:
        return s == 1 ? op_u8 : s == 2 ? op_u16 : s == 4 ? op_u32 : s == 8 ? op_u64 : NULL;
    case ZM_DT_FLOAT:
        if (dt == &zmpi_dt_MPI_REAL16)
            return OP_QUAD;
        return s == 4 ? op_f32 : s == 8 ? op_f64 : s == sizeof(long double) ? op_f128 : NULL;
    case ZM_DT_COMPLEX:
        if (dt == &zmpi_dt_MPI_COMPLEX32)
            return OP_CQUAD;
        return s == 8 ? op_c64 : s == 16 ? op_c128
               : s == sizeof(long double complex) ? op_c256 : NULL;
    case ZM_DT_PAIR:
        return pick_pair(dt);
    default:
        return NULL;
    }
}

/* Whether predefined operation `id` is defined on the group of dt (MPI 4.1
 * section 6.9.2), before asking whether a kernel exists. */
static int in_group(int id, const zm_dt_t *dt)
{
    zm_dt_kind_t k = dt->kind;
    int c_integer = k == ZM_DT_INT_SIGNED || k == ZM_DT_INT_UNSIGNED || dt == &zmpi_dt_MPI_CHAR;
    int integer = c_integer || k == ZM_DT_FORTRAN_INT;
    switch (id) {
    case ZM_OP_MAX:
    case ZM_OP_MIN:
        return integer || k == ZM_DT_FLOAT;
    case ZM_OP_SUM:
    case ZM_OP_PROD:
        return integer || k == ZM_DT_FLOAT || k == ZM_DT_COMPLEX;
    case ZM_OP_LAND:
    case ZM_OP_LOR:
    case ZM_OP_LXOR:
        return c_integer || k == ZM_DT_BOOL || k == ZM_DT_LOGICAL;
    case ZM_OP_BAND:
    case ZM_OP_BOR:
    case ZM_OP_BXOR:
        return integer || k == ZM_DT_BYTE;
    case ZM_OP_MINLOC:
    case ZM_OP_MAXLOC:
        return k == ZM_DT_PAIR;
    }
    return 0;
}

int zm_op_defined(const zm_op_t *op, const zm_dt_t *dt)
{
    if (op->id == ZM_OP_USER)
        return 1;
    if (!dt)
        return 0; /* a derived type mixing basic types */
    if (op->id == ZM_OP_REPLACE || op->id == ZM_OP_NO_OP)
        return 1;
    return in_group(op->id, dt) && pick(dt) != NULL;
}

void zm_op_apply(const zm_op_t *op, const void *in, void *inout, size_t count,
                 const zm_dt_t *dt)
{
    if (op->id == ZM_OP_USER && op->lfn) {
        /* MPI_User_function_c takes the whole count at once. */
        int64_t len = (int64_t)count;
        struct zmpi_datatype *h = (zm_dt_t *)dt;
        if (count)
            op->lfn((void *)in, inout, &len, &h);
        return;
    }
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

/* User operations in libc's memory, created and not yet released
 * (zm_op_live): made off a rank's own thread, or in a job whose ranks
 * have no regions.  Those in a rank's heap move with it and are left
 * out, as for datatypes (zm_dt_live). */
static _Atomic long live_user;

long zm_op_live(void)
{
    return atomic_load_explicit(&live_user, memory_order_relaxed);
}

zm_op_t *zm_op_create(zm_op_user_fn *fn, zm_op_user_large_fn *lfn, int commutative)
{
    /* From the calling rank's heap in a job whose ranks have regions, so
     * that the handle moves with the rank to another process
     * (docs/migrate.md); its function is in the rank's program copy,
     * which lies at the same address there. */
    zm_op_t *op = zm_core_obj_calloc(1, sizeof(*op));
    if (!op)
        return NULL;
    op->magic = ZM_OP_MAGIC;
    op->id = ZM_OP_USER;
    op->commutative = commutative;
    op->name = "a user operation";
    op->fn = fn;
    op->lfn = lfn;
    atomic_store(&op->refs, 1);
    zm_core_obj_count_process(&live_user, op, 1);
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
    /* Through a volatile store: a plain one just before free() is dead to
     * the compiler, which drops it, and a stale handle would still pass
     * zm_op_valid while the block stays unused. */
    *(volatile uint32_t *)&o->magic = 0;
    zm_core_obj_count_process(&live_user, o, -1);
    zm_core_obj_free(o);
}
