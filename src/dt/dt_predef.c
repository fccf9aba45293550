/*
 * dt_predef.c: the predefined datatypes and their (static) layouts.
 *
 * Each predefined type is one run of its size at offset 0, except value/index
 * pairs whose C struct has a gap between value and index: they are a list of
 * two runs.  Their layouts are constant objects, never reference counted.
 *
 * The Fortran types (MPI 4.1 section 19.3.6) have the sizes and alignments
 * gfortran gives them; their kinds tell the reductions which operations they
 * take, and coll/op.c maps each to the C type of the same representation.
 */
#include "dt/dt.h"

#include <complex.h>
#include <stdalign.h>
#include <stdbool.h>
#include <wchar.h>

/* A type that is one run of `size` bytes, aligned to `al`. */
#define SCALAR_N(sym, size_, al, k)                                              \
    static const zm_dt_node_t node_##sym = {                                    \
        .kind = ZM_DT_RUN, .count = 1, .stride = (size_), .len = (size_),        \
        .total = (size_) };                                                      \
    static const zm_dt_layout_t layout_##sym = { .refs = -1, .depth = 1,       \
                                                 .root = &node_##sym };          \
    ZM_EXPORT zm_dt_t zmpi_dt_##sym = {                                         \
        .magic = ZM_DT_MAGIC, .kind = k, .size = (size_), .lb = 0,               \
        .extent = (size_), .contig = 1, .usable = 1, .committed = 1,            \
        .val_size = (size_), .name = #sym, .layout = &layout_##sym,             \
        .basic = &zmpi_dt_##sym, .true_lb = 0, .true_ub = (size_), .nbasic = 1, \
        .align = (al), .cmax = INT64_MAX / (int64_t)(size_) };

/* A type that is one run of sizeof(type) bytes. */
#define SCALAR(sym, type, k) SCALAR_N(sym, sizeof(type), alignof(type), k)

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
 * describes, padding included: the value, then the index (an int for the C
 * pairs, the value's type for the Fortran ones).  The layout is a list of
 * the value run and the index run; when the index follows the value with no
 * gap, the copy engine still sees two adjacent runs, which costs one extra
 * step per element and only for the pair types with a gap in practice (the
 * others are contiguous and take the memcpy path). */
#define PAIR(sym, vtype, itype)                                                  \
    struct pair_##sym { vtype v; itype i; };                                     \
    static const zm_dt_node_t vnode_##sym = {                                   \
        .kind = ZM_DT_RUN, .count = 1, .stride = sizeof(vtype), .len = sizeof(vtype), \
        .total = sizeof(vtype) };                                                \
    static const zm_dt_node_t inode_##sym = {                                   \
        .kind = ZM_DT_RUN, .count = 1, .stride = sizeof(itype), .len = sizeof(itype), \
        .total = sizeof(itype) };                                                \
    static const zm_dt_ent_t ents_##sym[2] = {                                  \
        { 0, 0, &vnode_##sym },                                                  \
        { offsetof(struct pair_##sym, i), sizeof(vtype), &inode_##sym } };       \
    static const zm_dt_node_t node_##sym = {                                    \
        .kind = ZM_DT_LIST, .count = 2, .total = sizeof(vtype) + sizeof(itype), \
        .ent = ents_##sym };                                                     \
    static const zm_dt_layout_t layout_##sym = { .refs = -1, .depth = 2,       \
                                                 .root = &node_##sym };          \
    ZM_EXPORT zm_dt_t zmpi_dt_##sym = {                                         \
        .magic = ZM_DT_MAGIC, .kind = ZM_DT_PAIR, .size = sizeof(vtype) + sizeof(itype), \
        .lb = 0, .extent = sizeof(struct pair_##sym),                           \
        .contig = sizeof(vtype) + sizeof(itype) == sizeof(struct pair_##sym),   \
        .usable = 1, .committed = 1, .val_size = sizeof(vtype), .name = #sym,   \
        .layout = &layout_##sym, .basic = &zmpi_dt_##sym, .true_lb = 0,         \
        .true_ub = offsetof(struct pair_##sym, i) + sizeof(itype), .nbasic = 2, \
        .align = alignof(struct pair_##sym),                                    \
        .cmax = INT64_MAX / (int64_t)sizeof(struct pair_##sym) };

PAIR(MPI_FLOAT_INT, float, int)
PAIR(MPI_DOUBLE_INT, double, int)
PAIR(MPI_LONG_INT, long, int)
PAIR(MPI_2INT, int, int)
PAIR(MPI_SHORT_INT, short, int)
PAIR(MPI_LONG_DOUBLE_INT, long double, int)

/* Fortran types.  gfortran's INTEGER, REAL and LOGICAL are 4 bytes, DOUBLE
 * PRECISION 8; INTEGER16, REAL16 and COMPLEX32 are 16-byte aligned like
 * gfortran's kind 16.  REAL2 and COMPLEX4 are IEEE half precision, which
 * only communicates (coll/op.c). */
SCALAR(MPI_INTEGER, int32_t, ZM_DT_FORTRAN_INT)
SCALAR(MPI_REAL, float, ZM_DT_FLOAT)
SCALAR(MPI_DOUBLE_PRECISION, double, ZM_DT_FLOAT)
SCALAR(MPI_COMPLEX, float complex, ZM_DT_COMPLEX)
SCALAR(MPI_DOUBLE_COMPLEX, double complex, ZM_DT_COMPLEX)
SCALAR(MPI_LOGICAL, int32_t, ZM_DT_LOGICAL)
SCALAR(MPI_CHARACTER, char, ZM_DT_CHAR)
SCALAR(MPI_INTEGER1, int8_t, ZM_DT_FORTRAN_INT)
SCALAR(MPI_INTEGER2, int16_t, ZM_DT_FORTRAN_INT)
SCALAR(MPI_INTEGER4, int32_t, ZM_DT_FORTRAN_INT)
SCALAR(MPI_INTEGER8, int64_t, ZM_DT_FORTRAN_INT)
SCALAR_N(MPI_INTEGER16, 16, 16, ZM_DT_FORTRAN_INT)
SCALAR_N(MPI_REAL2, 2, 2, ZM_DT_FLOAT)
SCALAR(MPI_REAL4, float, ZM_DT_FLOAT)
SCALAR(MPI_REAL8, double, ZM_DT_FLOAT)
SCALAR_N(MPI_REAL16, 16, 16, ZM_DT_FLOAT)
SCALAR_N(MPI_COMPLEX4, 4, 2, ZM_DT_COMPLEX)
SCALAR(MPI_COMPLEX8, float complex, ZM_DT_COMPLEX)
SCALAR(MPI_COMPLEX16, double complex, ZM_DT_COMPLEX)
SCALAR_N(MPI_COMPLEX32, 32, 16, ZM_DT_COMPLEX)
PAIR(MPI_2INTEGER, int32_t, int32_t)
PAIR(MPI_2REAL, float, float)
PAIR(MPI_2DOUBLE_PRECISION, double, double)

/* C++ types: bool and std::complex<T> have the layout of C's _Bool and
 * T _Complex. */
SCALAR(MPI_CXX_BOOL, bool, ZM_DT_BOOL)
SCALAR(MPI_CXX_FLOAT_COMPLEX, float complex, ZM_DT_COMPLEX)
SCALAR(MPI_CXX_DOUBLE_COMPLEX, double complex, ZM_DT_COMPLEX)
SCALAR(MPI_CXX_LONG_DOUBLE_COMPLEX, long double complex, ZM_DT_COMPLEX)
