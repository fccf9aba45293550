/*
 * dt_predef.c: the predefined datatypes and their (static) layouts.
 *
 * Each predefined type is one run of its size at offset 0, except value/index
 * pairs whose C struct has a gap between value and index: they are a list of
 * two runs.  Their layouts are constant objects, never reference counted.
 */
#include "dt/dt.h"

#include <complex.h>
#include <stdalign.h>
#include <stdbool.h>
#include <wchar.h>

/* A type that is one run of sizeof(type) bytes. */
#define SCALAR(sym, type, k)                                                     \
    static const zm_dt_node_t node_##sym = {                                    \
        .kind = ZM_DT_RUN, .count = 1, .stride = sizeof(type), .len = sizeof(type), \
        .total = sizeof(type) };                                                 \
    static const zm_dt_layout_t layout_##sym = { .refs = -1, .depth = 1,       \
                                                 .root = &node_##sym };          \
    ZM_EXPORT zm_dt_t zmpi_dt_##sym = {                                         \
        .magic = ZM_DT_MAGIC, .kind = k, .size = sizeof(type), .lb = 0,          \
        .extent = sizeof(type), .contig = 1, .usable = 1, .committed = 1,       \
        .val_size = sizeof(type), .name = #sym, .layout = &layout_##sym,        \
        .basic = &zmpi_dt_##sym, .true_lb = 0, .true_ub = sizeof(type), .nbasic = 1, \
        .align = alignof(type) };

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
 * describes, padding included.  The layout is a list of the value run and
 * the index run; when the index follows the value with no gap, the copy
 * engine still sees two adjacent runs, which costs one extra step per
 * element and only for the pair types with a gap in practice (the others
 * are contiguous and take the memcpy path). */
#define PAIR(sym, vtype)                                                         \
    struct pair_##sym { vtype v; int i; };                                       \
    static const zm_dt_node_t vnode_##sym = {                                   \
        .kind = ZM_DT_RUN, .count = 1, .stride = sizeof(vtype), .len = sizeof(vtype), \
        .total = sizeof(vtype) };                                                \
    static const zm_dt_node_t inode_##sym = {                                   \
        .kind = ZM_DT_RUN, .count = 1, .stride = sizeof(int), .len = sizeof(int), \
        .total = sizeof(int) };                                                  \
    static const zm_dt_ent_t ents_##sym[2] = {                                  \
        { 0, 0, &vnode_##sym },                                                  \
        { offsetof(struct pair_##sym, i), sizeof(vtype), &inode_##sym } };       \
    static const zm_dt_node_t node_##sym = {                                    \
        .kind = ZM_DT_LIST, .count = 2, .total = sizeof(vtype) + sizeof(int),   \
        .ent = ents_##sym };                                                     \
    static const zm_dt_layout_t layout_##sym = { .refs = -1, .depth = 2,       \
                                                 .root = &node_##sym };          \
    ZM_EXPORT zm_dt_t zmpi_dt_##sym = {                                         \
        .magic = ZM_DT_MAGIC, .kind = ZM_DT_PAIR, .size = sizeof(vtype) + sizeof(int), \
        .lb = 0, .extent = sizeof(struct pair_##sym),                           \
        .contig = sizeof(vtype) + sizeof(int) == sizeof(struct pair_##sym),     \
        .usable = 1, .committed = 1, .val_size = sizeof(vtype), .name = #sym,   \
        .layout = &layout_##sym, .basic = &zmpi_dt_##sym, .true_lb = 0,         \
        .true_ub = offsetof(struct pair_##sym, i) + sizeof(int), .nbasic = 2,   \
        .align = alignof(struct pair_##sym) };

PAIR(MPI_FLOAT_INT, float)
PAIR(MPI_DOUBLE_INT, double)
PAIR(MPI_LONG_INT, long)
PAIR(MPI_2INT, int)
PAIR(MPI_SHORT_INT, short)
PAIR(MPI_LONG_DOUBLE_INT, long double)
