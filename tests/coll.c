/*
 * coll.c: MPI_Barrier, MPI_Bcast from several roots and sizes, and
 * MPI_Reduce/MPI_Allreduce with every predefined operation on the types it
 * applies to, compared with a reference computed locally; MPI_IN_PLACE for
 * Allreduce and for Reduce at the root.
 */
#include "zt.h"

#include <stdbool.h>

#define NELEM 1000

enum { OP_SUM, OP_PROD, OP_MIN, OP_MAX, OP_LAND, OP_LOR, OP_LXOR,
       OP_BAND, OP_BOR, OP_BXOR, NOPS };

static const char *const op_names[NOPS] = {
    "SUM", "PROD", "MIN", "MAX", "LAND", "LOR", "LXOR", "BAND", "BOR", "BXOR"
};

#define ARITH ((1u << OP_SUM) | (1u << OP_PROD) | (1u << OP_MIN) | (1u << OP_MAX))
#define LOGIC ((1u << OP_LAND) | (1u << OP_LOR) | (1u << OP_LXOR))
#define BITS ((1u << OP_BAND) | (1u << OP_BOR) | (1u << OP_BXOR))

static MPI_Op op_handle(int op)
{
    switch (op) {
    case OP_SUM: return MPI_SUM;
    case OP_PROD: return MPI_PROD;
    case OP_MIN: return MPI_MIN;
    case OP_MAX: return MPI_MAX;
    case OP_LAND: return MPI_LAND;
    case OP_LOR: return MPI_LOR;
    case OP_LXOR: return MPI_LXOR;
    case OP_BAND: return MPI_BAND;
    case OP_BOR: return MPI_BOR;
    default: return MPI_BXOR;
    }
}

/* Input of element i at a rank, chosen so that results fit every type
 * (sums stay below 128 for up to 127 ranks, products are 1 or 2) and so
 * that floating point results are exact. */
static long long input(int op, int rank, int size, int i, int is_signed)
{
    switch (op) {
    case OP_SUM: return (rank + i) % 2;
    case OP_PROD: return rank == i % size ? 2 : 1;
    case OP_MIN:
    case OP_MAX: return (rank * 37 + i * 11) % 101 - (is_signed ? 50 : 0);
    case OP_LAND:
    case OP_LOR:
    case OP_LXOR: return i % 4 == 0 ? 1 + rank % 2 : ((rank + i) % 3 == 0) * 2;
    default: return ((rank * 7 + i * 3) & 0x3f) | (1 << (rank % 6));
    }
}

/* MPICH 4.0 crashes in an in-place MPI_Reduce of a few KiB to a root other
 * than 0; with it, the in-place Reduce uses root 0.  Other libraries (Open
 * MPI, zmpi) get the rotating root. */
#ifdef MPICH_NUMVERSION
#define INPLACE_ROOT(root) 0
#else
#define INPLACE_ROOT(root) (root)
#endif

#define INT_BITS(T, op, a, b) \
    (T)((op) == OP_BAND ? ((a) & (b)) : (op) == OP_BOR ? ((a) | (b)) : ((a) ^ (b)))
#define NO_BITS(T, op, a, b) (a)

/* Defines apply_SUF(op, a, b), the serial reference of one operation. */
#define DEFINE_APPLY(T, SUF, BITFN)                                      \
    static T apply_##SUF(int op, T a, T b)                               \
    {                                                                    \
        switch (op) {                                                    \
        case OP_SUM: return (T)(a + b);                                  \
        case OP_PROD: return (T)(a * b + 0);                             \
        case OP_MIN: return a < b ? a : b;                               \
        case OP_MAX: return a > b ? a : b;                               \
        case OP_LAND: return (T)(a && b);                                \
        case OP_LOR: return (T)(a || b);                                 \
        case OP_LXOR: return (T)(!a != !b);                              \
        default: return BITFN(T, op, a, b);                              \
        }                                                                \
    }

/* Defines run_SUF: for each selected op, Allreduce (plain and in place)
 * and Reduce to a root (plain and in place) against the reference. */
#define DEFINE_RUN(T, SUF)                                               \
    static void check_##SUF(const T *got, const T *ref, const char *what, \
                            const char *tn, int op)                      \
    {                                                                    \
        for (int i = 0; i < NELEM; i++)                                  \
            ZT_CHECK(got[i] == ref[i], "%s %s MPI_%s element %d: "       \
                     "expected %g, got %g", what, tn, op_names[op], i,   \
                     (double)ref[i], (double)got[i]);                    \
    }                                                                    \
    static void run_##SUF(MPI_Datatype dt, const char *tn, unsigned ops, \
                          MPI_Comm comm)                                 \
    {                                                                    \
        int rank, size, sg = (T)-1 < (T)1;                               \
        T *in = zt_malloc(3 * NELEM * sizeof(T));                        \
        T *out = in + NELEM, *ref = in + 2 * NELEM;                      \
        MPI_Comm_rank(comm, &rank);                                      \
        MPI_Comm_size(comm, &size);                                      \
        for (int op = 0; op < NOPS; op++) {                              \
            if (!((ops >> op) & 1u))                                     \
                continue;                                                \
            int root = op % size;                                        \
            for (int i = 0; i < NELEM; i++) {                            \
                in[i] = (T)input(op, rank, size, i, sg);                 \
                ref[i] = (T)input(op, 0, size, i, sg);                   \
                for (int r = 1; r < size; r++)                           \
                    ref[i] = apply_##SUF(op, ref[i],                     \
                                         (T)input(op, r, size, i, sg));  \
            }                                                            \
            ZT_OK(MPI_Allreduce(in, out, NELEM, dt, op_handle(op), comm)); \
            check_##SUF(out, ref, "Allreduce", tn, op);                  \
            memcpy(out, in, NELEM * sizeof(T));                          \
            ZT_OK(MPI_Allreduce(MPI_IN_PLACE, out, NELEM, dt, op_handle(op), comm)); \
            check_##SUF(out, ref, "Allreduce in place", tn, op);         \
            ZT_OK(MPI_Reduce(in, out, NELEM, dt, op_handle(op), root, comm)); \
            if (rank == root)                                            \
                check_##SUF(out, ref, "Reduce", tn, op);                 \
            memcpy(out, in, NELEM * sizeof(T));                          \
            root = INPLACE_ROOT(root);                                   \
            ZT_OK(MPI_Reduce(rank == root ? MPI_IN_PLACE : in, out, NELEM, \
                             dt, op_handle(op), root, comm));            \
            if (rank == root)                                            \
                check_##SUF(out, ref, "Reduce in place", tn, op);        \
        }                                                                \
        free(in);                                                        \
    }

#define DEFINE_INT(T, SUF) DEFINE_APPLY(T, SUF, INT_BITS) DEFINE_RUN(T, SUF)
#define DEFINE_FLT(T, SUF) DEFINE_APPLY(T, SUF, NO_BITS) DEFINE_RUN(T, SUF)

DEFINE_INT(signed char, schar)
DEFINE_INT(unsigned char, uchar)
DEFINE_INT(short, short)
DEFINE_INT(unsigned short, ushort)
DEFINE_INT(int, int)
DEFINE_INT(unsigned, uint)
DEFINE_INT(long, long)
DEFINE_INT(unsigned long, ulong)
DEFINE_INT(long long, llong)
DEFINE_INT(unsigned long long, ullong)
DEFINE_INT(int8_t, i8)
DEFINE_INT(int16_t, i16)
DEFINE_INT(int32_t, i32)
DEFINE_INT(int64_t, i64)
DEFINE_INT(uint8_t, u8)
DEFINE_INT(uint16_t, u16)
DEFINE_INT(uint32_t, u32)
DEFINE_INT(uint64_t, u64)
DEFINE_INT(bool, cbool)
DEFINE_FLT(float, float)
DEFINE_FLT(double, double)
DEFINE_FLT(long double, ldouble)

/* Every predefined C type with the operations the standard allows on it. */
static void check_reductions(MPI_Comm comm)
{
    unsigned all_int = ARITH | LOGIC | BITS;

    run_schar(MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", all_int, comm);
    run_uchar(MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", all_int, comm);
    run_uchar(MPI_BYTE, "MPI_BYTE", BITS, comm);
    run_short(MPI_SHORT, "MPI_SHORT", all_int, comm);
    run_ushort(MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", all_int, comm);
    run_int(MPI_INT, "MPI_INT", all_int, comm);
    run_uint(MPI_UNSIGNED, "MPI_UNSIGNED", all_int, comm);
    run_long(MPI_LONG, "MPI_LONG", all_int, comm);
    run_ulong(MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", all_int, comm);
    run_llong(MPI_LONG_LONG, "MPI_LONG_LONG", all_int, comm);
    run_ullong(MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", all_int, comm);
    run_i8(MPI_INT8_T, "MPI_INT8_T", all_int, comm);
    run_i16(MPI_INT16_T, "MPI_INT16_T", all_int, comm);
    run_i32(MPI_INT32_T, "MPI_INT32_T", all_int, comm);
    run_i64(MPI_INT64_T, "MPI_INT64_T", all_int, comm);
    run_u8(MPI_UINT8_T, "MPI_UINT8_T", all_int, comm);
    run_u16(MPI_UINT16_T, "MPI_UINT16_T", all_int, comm);
    run_u32(MPI_UINT32_T, "MPI_UINT32_T", all_int, comm);
    run_u64(MPI_UINT64_T, "MPI_UINT64_T", all_int, comm);
    run_cbool(MPI_C_BOOL, "MPI_C_BOOL", LOGIC, comm);
    run_float(MPI_FLOAT, "MPI_FLOAT", ARITH, comm);
    run_double(MPI_DOUBLE, "MPI_DOUBLE", ARITH, comm);
    run_ldouble(MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", ARITH, comm);
}

/* MPI_MINLOC and MPI_MAXLOC on MPI_2INT: ties go to the lowest index. */
static void check_minmaxloc(MPI_Comm comm)
{
    int rank, size;
    struct { int v, i; } in[4], out[4];

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (int k = 0; k < 4; k++) {
        in[k].v = k == 3 ? 5 : (rank * 37 + k * 11) % 101;
        in[k].i = rank;
    }
    for (int pass = 0; pass < 2; pass++) {
        ZT_OK(MPI_Allreduce(in, out, 4, MPI_2INT, pass ? MPI_MAXLOC : MPI_MINLOC, comm));
        for (int k = 0; k < 4; k++) {
            int best = in[k].v, at = 0;
            for (int r = 0; r < size; r++) {
                int v = k == 3 ? 5 : (r * 37 + k * 11) % 101;
                if (r == 0 || (pass ? v > best : v < best))
                    best = v, at = r;
            }
            ZT_CHECK(out[k].v == best && out[k].i == at, "%s element %d: "
                     "expected (%d, %d), got (%d, %d)", pass ? "MAXLOC" :
                     "MINLOC", k, best, at, out[k].v, out[k].i);
        }
    }
}

/* Bcast from several roots, sizes across any eager threshold. */
static void check_bcast(MPI_Comm comm)
{
    static const int sizes[] = { 0, 1, 1000, 16385, 1 << 20 };
    int rank, size;
    unsigned char *buf = zt_malloc(1 << 20);

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int roots[3] = { 0, size - 1, size / 2 };
    for (int r = 0; r < 3; r++) {
        for (int s = 0; s < 5; s++) {
            int n = sizes[s], root = roots[r];
            if (rank == root)
                zt_fill(buf, (size_t)n, root, s);
            else
                memset(buf, 0, (size_t)n);
            ZT_OK(MPI_Bcast(buf, n, MPI_BYTE, root, comm));
            ZT_CHECK_PAYLOAD(buf, (size_t)n, root, s);
        }
    }
    free(buf);
}

/* Bcasts large enough for the root to stage them (beyond the inline ring,
 * up to 16 KiB on 4 ranks or more), many in a row with rotating roots, so
 * that the ring and the root's staging buffers are reused many times.  The
 * root overwrites its buffer as soon as the call returns, which a staged
 * Bcast allows (its receivers read the root's copy); every third call
 * uses a vector type on both sides. */
static void check_bcast_staged(MPI_Comm comm)
{
    static const int sizes[] = { 700, 1000, 4000, 7000, 16000, 16384 };
    int rank, size;
    unsigned char *buf = zt_malloc(2 * 16384), *want = zt_malloc(16384);

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (int it = 0; it < 300; it++) {
        int root = it % size, n = sizes[it % 6], derived = it % 3 == 0;
        /* With the vector, n bytes are n / 8 blocks of 8 at stride 16. */
        if (derived)
            n &= ~7;
        zt_fill(want, (size_t)n, root, it);
        memset(buf, 0x5a, 2 * 16384);
        if (rank == root) {
            for (int i = 0; i < n; i++)
                buf[derived ? i / 8 * 16 + i % 8 : i] = want[i];
        }
        if (derived) {
            MPI_Datatype t;
            ZT_OK(MPI_Type_vector(n / 8, 8, 16, MPI_BYTE, &t));
            ZT_OK(MPI_Type_commit(&t));
            ZT_OK(MPI_Bcast(buf, 1, t, root, comm));
            ZT_OK(MPI_Type_free(&t));
        } else {
            ZT_OK(MPI_Bcast(buf, n, MPI_BYTE, root, comm));
        }
        if (rank == root) {
            memset(buf, 0xee, 2 * 16384);
            continue;
        }
        for (int i = 0; i < n; i++) {
            size_t at = derived ? (size_t)(i / 8 * 16 + i % 8) : (size_t)i;
            ZT_CHECK(buf[at] == want[i], "staged Bcast %d (%d bytes, root %d%s): byte %d is "
                     "%#x, want %#x", it, n, root, derived ? ", vector" : "", i, buf[at],
                     want[i]);
        }
        /* The gaps of the vector stay untouched. */
        for (int i = 0; derived && i < n / 8; i++)
            ZT_CHECK(buf[i * 16 + 8] == 0x5a, "staged Bcast %d wrote a gap at %d", it,
                     i * 16 + 8);
    }
    free(buf);
    free(want);
}

int main(int argc, char **argv)
{
    MPI_Comm halves;
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ZT_CHECK(size <= 127, "sums overflow 8-bit types above 127 ranks");
    for (int i = 0; i < 100; i++)
        ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    check_bcast(MPI_COMM_WORLD);
    check_bcast_staged(MPI_COMM_WORLD);
    check_reductions(MPI_COMM_WORLD);
    check_minmaxloc(MPI_COMM_WORLD);
    /* The same on two halves at once, which must not interfere. */
    ZT_OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &halves));
    ZT_OK(MPI_Barrier(halves));
    check_bcast(halves);
    check_bcast_staged(halves);
    check_reductions(halves);
    ZT_OK(MPI_Comm_free(&halves));
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Finalize();
    return 0;
}
