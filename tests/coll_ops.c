/*
 * coll_ops.c: reduction operations.
 *   - a non-commutative user operation (2x2 matrix product modulo 251,
 *     one matrix packed in each uint64 element) through Reduce, Allreduce,
 *     Scan, Exscan and Reduce_scatter_block must follow rank order;
 *   - a commutative user operation, MPI_Op_commutative, MPI_Reduce_local;
 *   - MINLOC/MAXLOC on the pair types, ties going to the lower index;
 *   - a floating-point Allreduce gives the same bits on every rank and on
 *     a second run;
 *   - a user operation on a datatype with holes writes the result only
 *     where the type has data (Reduce, Allreduce, Scan, Iallreduce).
 * Counts go from one element to a few thousand (split in slices).
 */
#include "zt.h"

#include <stdint.h>

#define P 251u

/* A 2x2 matrix of entries below P, packed in 16-bit fields. */
static uint64_t mat(unsigned a, unsigned b, unsigned c, unsigned d)
{
    return (uint64_t)a | (uint64_t)b << 16 | (uint64_t)c << 32 | (uint64_t)d << 48;
}

static unsigned ent(uint64_t m, int k)
{
    return (unsigned)(m >> (16 * k)) & 0xffffu;
}

/* x * y (matrix product), modulo P. */
static uint64_t mul(uint64_t x, uint64_t y)
{
    unsigned a = ent(x, 0), b = ent(x, 1), c = ent(x, 2), d = ent(x, 3);
    unsigned e = ent(y, 0), f = ent(y, 1), g = ent(y, 2), h = ent(y, 3);
    return mat((a * e + b * g) % P, (a * f + b * h) % P, (c * e + d * g) % P, (c * f + d * h) % P);
}

/* MPI semantics: inout[i] = in[i] op inout[i], "in" from the lower ranks. */
static void matmul_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    uint64_t *a = in, *b = inout;
    (void)dt;
    for (int i = 0; i < *len; i++)
        b[i] = mul(a[i], b[i]);
}

static void isum_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int *a = in, *b = inout;
    (void)dt;
    for (int i = 0; i < *len; i++)
        b[i] += a[i];
}

/* Rank r's matrix for element i: products in different orders differ. */
static uint64_t m_of(int r, int i)
{
    return mat((unsigned)(r % 5 + 1), 1, (unsigned)((r + i) % 3), (unsigned)(i % 7 + 2));
}

/* Product m_of(lo, i) * ... * m_of(hi - 1, i); identity if empty. */
static uint64_t prod(int lo, int hi, int i)
{
    uint64_t m = mat(1, 0, 0, 1);
    for (int q = lo; q < hi; q++)
        m = mul(m, m_of(q, i));
    return m;
}

static void check_matrices(MPI_Comm comm, int c)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    MPI_Op op;
    ZT_OK(MPI_Op_create(matmul_op, 0, &op));
    int commute = -1;
    ZT_OK(MPI_Op_commutative(op, &commute));
    ZT_EQ(commute, 0, "MPI_Op_commutative of a non-commutative op");
    uint64_t *s = zt_malloc(sizeof(uint64_t) * (size_t)c * (size_t)n);
    uint64_t *r = zt_malloc(sizeof(uint64_t) * (size_t)c * (size_t)n);
    for (int i = 0; i < c * n; i++)
        s[i] = m_of(rank, i);
    ZT_OK(MPI_Reduce(s, r, c, MPI_UINT64_T, op, n - 1, comm));
    for (int i = 0; i < c && rank == n - 1; i++)
        ZT_CHECK(r[i] == prod(0, n, i), "Reduce(matmul) element %d of %d: wrong order", i, c);
    ZT_OK(MPI_Allreduce(s, r, c, MPI_UINT64_T, op, comm));
    for (int i = 0; i < c; i++)
        ZT_CHECK(r[i] == prod(0, n, i), "Allreduce(matmul) element %d of %d", i, c);
    memcpy(r, s, sizeof(uint64_t) * (size_t)c);
    ZT_OK(MPI_Allreduce(MPI_IN_PLACE, r, c, MPI_UINT64_T, op, comm));
    for (int i = 0; i < c; i++)
        ZT_CHECK(r[i] == prod(0, n, i), "Allreduce(matmul, in place) element %d", i);
    ZT_OK(MPI_Scan(s, r, c, MPI_UINT64_T, op, comm));
    for (int i = 0; i < c; i++)
        ZT_CHECK(r[i] == prod(0, rank + 1, i), "Scan(matmul) element %d", i);
    ZT_OK(MPI_Exscan(s, r, c, MPI_UINT64_T, op, comm));
    for (int i = 0; i < c && rank > 0; i++)
        ZT_CHECK(r[i] == prod(0, rank, i), "Exscan(matmul) element %d", i);
    ZT_OK(MPI_Reduce_scatter_block(s, r, c, MPI_UINT64_T, op, comm));
    for (int i = 0; i < c; i++)
        ZT_CHECK(r[i] == prod(0, n, rank * c + i), "Reduce_scatter_block(matmul) element %d", i);
    /* Non-blocking, same results. */
    MPI_Request q;
    ZT_OK(MPI_Iallreduce(s, r, c, MPI_UINT64_T, op, comm, &q));
    ZT_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    for (int i = 0; i < c; i++)
        ZT_CHECK(r[i] == prod(0, n, i), "Iallreduce(matmul) element %d", i);
    ZT_OK(MPI_Iscan(s, r, c, MPI_UINT64_T, op, comm, &q));
    ZT_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    for (int i = 0; i < c; i++)
        ZT_CHECK(r[i] == prod(0, rank + 1, i), "Iscan(matmul) element %d", i);
    ZT_OK(MPI_Op_free(&op));
    ZT_CHECK(op == MPI_OP_NULL, "MPI_Op_free sets the handle to MPI_OP_NULL");
    free(s), free(r);
}

static void check_user_sum(MPI_Comm comm, int c)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    MPI_Op op;
    int commute = -1;
    ZT_OK(MPI_Op_create(isum_op, 1, &op));
    ZT_OK(MPI_Op_commutative(op, &commute));
    ZT_EQ(commute, 1, "MPI_Op_commutative of a commutative op");
    ZT_OK(MPI_Op_commutative(MPI_SUM, &commute));
    ZT_EQ(commute, 1, "MPI_Op_commutative(MPI_SUM)");
    int *s = zt_malloc(sizeof(int) * (size_t)c), *r = zt_malloc(sizeof(int) * (size_t)c);
    for (int i = 0; i < c; i++)
        s[i] = rank + i;
    ZT_OK(MPI_Allreduce(s, r, c, MPI_INT, op, comm));
    for (int i = 0; i < c; i++)
        ZT_EQ(r[i], n * (n - 1) / 2 + n * i, "Allreduce(user sum)");
    /* Reduce_local: inout = in op inout. */
    for (int i = 0; i < c; i++)
        r[i] = 2 * i;
    ZT_OK(MPI_Reduce_local(s, r, c, MPI_INT, op));
    for (int i = 0; i < c; i++)
        ZT_EQ(r[i], rank + 3 * i, "Reduce_local(user sum)");
    ZT_OK(MPI_Reduce_local(s, r, c, MPI_INT, MPI_SUM));
    for (int i = 0; i < c; i++)
        ZT_EQ(r[i], 2 * rank + 4 * i, "Reduce_local(MPI_SUM)");
    ZT_OK(MPI_Op_free(&op));
    free(s), free(r);
}

/* MINLOC/MAXLOC: value (r * 7 + i) % 5 repeats across ranks, so ties
 * happen and the lowest index must win. */
#define LOC_TEST(comm, T, MPIT, c)                                                  \
    do {                                                                            \
        struct { T v; int i; } *s_ = zt_malloc(sizeof(*s_) * (size_t)(c));         \
        __typeof__(s_) mn_ = zt_malloc(sizeof(*s_) * (size_t)(c));                  \
        __typeof__(s_) mx_ = zt_malloc(sizeof(*s_) * (size_t)(c));                  \
        for (int k = 0; k < (c); k++) {                                             \
            s_[k].v = (T)((rank * 7 + k) % 5);                                      \
            s_[k].i = rank;                                                         \
        }                                                                           \
        ZT_OK(MPI_Allreduce(s_, mn_, (c), MPIT, MPI_MINLOC, comm));                 \
        ZT_OK(MPI_Allreduce(s_, mx_, (c), MPIT, MPI_MAXLOC, comm));                 \
        for (int k = 0; k < (c); k++) {                                             \
            int bmin = 0, bmax = 0;                                                 \
            for (int q = 1; q < n; q++) {                                           \
                if ((q * 7 + k) % 5 < (bmin * 7 + k) % 5) bmin = q;                 \
                if ((q * 7 + k) % 5 > (bmax * 7 + k) % 5) bmax = q;                 \
            }                                                                       \
            ZT_CHECK(mn_[k].i == bmin && mn_[k].v == (T)((bmin * 7 + k) % 5),       \
                     "MINLOC " #MPIT " element %d: got (%g, %d), expected index %d", \
                     k, (double)mn_[k].v, mn_[k].i, bmin);                          \
            ZT_CHECK(mx_[k].i == bmax && mx_[k].v == (T)((bmax * 7 + k) % 5),       \
                     "MAXLOC " #MPIT " element %d: got (%g, %d), expected index %d", \
                     k, (double)mx_[k].v, mx_[k].i, bmax);                          \
        }                                                                           \
        free(s_), free(mn_), free(mx_);                                             \
    } while (0)

static void check_loc(MPI_Comm comm, int c)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    LOC_TEST(comm, double, MPI_DOUBLE_INT, c);
    LOC_TEST(comm, float, MPI_FLOAT_INT, c);
    LOC_TEST(comm, int, MPI_2INT, c);
    LOC_TEST(comm, long, MPI_LONG_INT, c);
    LOC_TEST(comm, short, MPI_SHORT_INT, c);
    LOC_TEST(comm, long double, MPI_LONG_DOUBLE_INT, c);
}

/* FNV-1a over the bytes of a buffer. */
static uint64_t hash_bytes(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static void check_float_bits(MPI_Comm comm, int c)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    double *s = zt_malloc(sizeof(double) * (size_t)c), *r = zt_malloc(sizeof(double) * (size_t)c);
    zt_rng g = zt_rng_make(42, (uint64_t)rank);
    for (int i = 0; i < c; i++)
        s[i] = (double)zt_rng_next(&g) / 3e17 * ((i & 1) ? -1.0 : 1.0) / (rank + 1.0);
    ZT_OK(MPI_Allreduce(s, r, c, MPI_DOUBLE, MPI_SUM, comm));
    uint64_t h = hash_bytes(r, sizeof(double) * (size_t)c), h2;
    uint64_t *all = zt_malloc(sizeof(uint64_t) * (size_t)n);
    ZT_OK(MPI_Allgather(&h, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, comm));
    for (int q = 0; q < n; q++)
        ZT_CHECK(all[q] == h, "Allreduce(double) c=%d: rank %d's result bits differ from "
                 "rank %d's", c, q, rank);
    ZT_OK(MPI_Allreduce(s, r, c, MPI_DOUBLE, MPI_SUM, comm));
    h2 = hash_bytes(r, sizeof(double) * (size_t)c);
    ZT_CHECK(h2 == h, "Allreduce(double) c=%d: a second run gives other bits", c);
    free(s), free(r), free(all);
}

/* Each element of the holey type: ints at 0 and 2, a hole at 1. */
#define HOLE (-7)

/* Sum of the two ints of each element; never touches the hole. */
static void holey_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const int *a = in;
    int *b = inout;
    for (int i = 0; i < *len; i++) {
        b[3 * i] += a[3 * i];
        b[3 * i + 2] += a[3 * i + 2];
    }
}

/* Count ints of r (c elements of the holey type) that are wrong: data must
 * be `want` (if nonzero), holes must still hold HOLE. */
static int holey_bad(const int *r, int c, int want)
{
    int bad = 0;
    for (int i = 0; i < c; i++)
        bad += r[3 * i + 1] != HOLE ||
               (want && (r[3 * i] != want || r[3 * i + 2] != 2 * want));
    return bad;
}

static void check_holes(MPI_Comm comm, int c)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Datatype vec;
    MPI_Op op;
    ZT_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
    ZT_OK(MPI_Type_commit(&vec));
    ZT_OK(MPI_Op_create(holey_sum, 1, &op));
    int *s = malloc(sizeof(int) * 3 * (size_t)c), *r = malloc(sizeof(int) * 3 * (size_t)c);
    ZT_CHECK(s && r, "out of memory");
    for (int i = 0; i < c; i++) {
        s[3 * i] = rank + 1;
        s[3 * i + 1] = 1000 + rank; /* hole of the send buffer: never read */
        s[3 * i + 2] = 2 * (rank + 1);
    }
    int all = size * (size + 1) / 2, upto = (rank + 1) * (rank + 2) / 2;
    for (int kind = 0; kind < 4; kind++) {
        for (int i = 0; i < 3 * c; i++)
            r[i] = HOLE;
        int want = kind == 2 ? upto : kind == 0 && rank != 0 ? 0 : all;
        if (kind == 0) {
            ZT_OK(MPI_Reduce(s, r, c, vec, op, 0, comm));
        } else if (kind == 1) {
            ZT_OK(MPI_Allreduce(s, r, c, vec, op, comm));
        } else if (kind == 2) {
            ZT_OK(MPI_Scan(s, r, c, vec, op, comm));
        } else {
            MPI_Request q;
            ZT_OK(MPI_Iallreduce(s, r, c, vec, op, comm, &q));
            ZT_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
        }
        ZT_CHECK(holey_bad(r, c, want) == 0,
                 "rank %d: user op on a type with holes (call %d, count %d): %d elements "
                 "wrong or with a hole overwritten (first: %d %d %d)", rank, kind, c,
                 holey_bad(r, c, want), r[0], r[1], r[2]);
    }
    free(s);
    free(r);
    ZT_OK(MPI_Op_free(&op));
    ZT_OK(MPI_Type_free(&vec));
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int counts[] = { 1, 7, 3000 };
    MPI_Comm half;
    ZT_OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
    for (int k = 0; k < 3; k++) {
        check_matrices(MPI_COMM_WORLD, counts[k]);
        check_matrices(half, counts[k]);
        check_user_sum(MPI_COMM_WORLD, counts[k]);
        check_loc(MPI_COMM_WORLD, counts[k]);
        check_float_bits(MPI_COMM_WORLD, counts[k] * 3);
        check_holes(MPI_COMM_WORLD, counts[k]);
    }
    ZT_OK(MPI_Comm_free(&half));
    if (rank == 0)
        printf("coll_ops: %d ranks ok\n", size);
    MPI_Finalize();
    return 0;
}
