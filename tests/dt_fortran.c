/*
 * dt_fortran.c: the Fortran-named and C++ predefined datatypes used from C,
 * reductions on MPI_CHAR (a zmpi extension, as in MPICH and Open MPI), the
 * Fortran 90 parameterised types, MPI_Type_match_size and
 * MPI_Type_get_value_index.
 *
 * For every such type: size, extent, name, envelope, external32 size, and
 * a ring exchange of five elements checked byte by byte.  Then Allreduce
 * with every class of operation the standard allows on it, against
 * hand-computed results, and operations it does not allow, which must
 * return MPI_ERR_OP through MPI_ERRORS_RETURN.
 *
 * With the argument "fatal_land_integer" the program reduces MPI_INTEGER
 * with MPI_LAND (not defined on Fortran integers) under
 * MPI_ERRORS_ARE_FATAL, which must end the job with a message naming the
 * call, the operation and the datatype.
 */
#include "zt.h"

#include <complex.h>
#include <float.h>

/* The C type of IEEE binary128, when the compiler has one. */
#if LDBL_MANT_DIG == 113
typedef long double quad_t;
typedef long double _Complex cquad_t;
#define HAVE_QUAD 1
#elif defined(__SIZEOF_FLOAT128__)
typedef __float128 quad_t;
typedef _Complex float cquad_t __attribute__((mode(TC)));
#define HAVE_QUAD 1
#endif

typedef struct tinfo {
    MPI_Datatype t;
    const char *name;
    int size;
} tinfo_t;

static int type_count(void)
{
    return 27;
}

static tinfo_t type_at(int i)
{
    const tinfo_t all[] = {
        { MPI_INTEGER, "MPI_INTEGER", 4 },
        { MPI_REAL, "MPI_REAL", 4 },
        { MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", 8 },
        { MPI_COMPLEX, "MPI_COMPLEX", 8 },
        { MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", 16 },
        { MPI_LOGICAL, "MPI_LOGICAL", 4 },
        { MPI_CHARACTER, "MPI_CHARACTER", 1 },
        { MPI_INTEGER1, "MPI_INTEGER1", 1 },
        { MPI_INTEGER2, "MPI_INTEGER2", 2 },
        { MPI_INTEGER4, "MPI_INTEGER4", 4 },
        { MPI_INTEGER8, "MPI_INTEGER8", 8 },
        { MPI_INTEGER16, "MPI_INTEGER16", 16 },
        { MPI_REAL2, "MPI_REAL2", 2 },
        { MPI_REAL4, "MPI_REAL4", 4 },
        { MPI_REAL8, "MPI_REAL8", 8 },
        { MPI_REAL16, "MPI_REAL16", 16 },
        { MPI_COMPLEX4, "MPI_COMPLEX4", 4 },
        { MPI_COMPLEX8, "MPI_COMPLEX8", 8 },
        { MPI_COMPLEX16, "MPI_COMPLEX16", 16 },
        { MPI_COMPLEX32, "MPI_COMPLEX32", 32 },
        { MPI_2INTEGER, "MPI_2INTEGER", 8 },
        { MPI_2REAL, "MPI_2REAL", 8 },
        { MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", 16 },
        { MPI_CXX_BOOL, "MPI_CXX_BOOL", 1 },
        { MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX", 8 },
        { MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX", 16 },
        { MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX",
          (int)sizeof(long double _Complex) },
    };
    return all[i];
}

/* The reduction must be refused with MPI_ERR_OP. */
#define ZT_BAD_OP(buf, dt, op)                                                    \
    do {                                                                          \
        char out_[64];                                                            \
        ZT_EQ(zt_err_class(MPI_Allreduce(buf, out_, 1, dt, op, MPI_COMM_WORLD)),     \
              MPI_ERR_OP, #op " on " #dt " must be MPI_ERR_OP");                  \
    } while (0)

/* Size, bounds, name, envelope and external32 size of every type, and a
 * ring exchange of five elements of each. */
static void check_basics(int rank, int size)
{
    for (int i = 0; i < type_count(); i++) {
        tinfo_t ti = type_at(i);
        int sz = -1, len = 0, ni = -1, na = -1, nd = -1, comb = -1;
        MPI_Aint lb = -1, ext = -1, ext32 = -1;
        char name[MPI_MAX_OBJECT_NAME];
        ZT_OK(MPI_Type_size(ti.t, &sz));
        ZT_EQ(sz, ti.size, ti.name);
        ZT_OK(MPI_Type_get_extent(ti.t, &lb, &ext));
        ZT_EQ(lb, 0, ti.name);
        ZT_EQ(ext, ti.size, ti.name);
        ZT_OK(MPI_Type_get_true_extent(ti.t, &lb, &ext));
        ZT_EQ(ext, ti.size, ti.name);
        ZT_OK(MPI_Type_get_name(ti.t, name, &len));
        ZT_CHECK(strcmp(name, ti.name) == 0, "name of %s is '%s'", ti.name, name);
        ZT_OK(MPI_Type_get_envelope(ti.t, &ni, &na, &nd, &comb));
        ZT_EQ(comb, MPI_COMBINER_NAMED, ti.name);
        ZT_EQ(ni + na + nd, 0, ti.name);
        ZT_OK(MPI_Pack_external_size("external32", 1, ti.t, &ext32));
        ZT_EQ(ext32, ti.size, ti.name);

        size_t bytes = 5 * (size_t)ti.size;
        unsigned char *out = zt_malloc(bytes), *in = zt_malloc(bytes);
        int right = (rank + 1) % size, left = (rank + size - 1) % size;
        zt_fill(out, bytes, rank, i);
        ZT_OK(MPI_Sendrecv(out, 5, ti.t, right, i, in, 5, ti.t, left, i, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
        ZT_CHECK_PAYLOAD(in, bytes, left, i);
        free(out);
        free(in);
    }
}

static long long sum_mod(int size, int m)
{
    long long s = 0;
    for (int q = 0; q < size; q++)
        s += q % m;
    return s;
}

/* Fortran integers: the arithmetic and bitwise operations, not the logical
 * ones nor MINLOC. */
#define CHECK_FINT(T, dt)                                                         \
    do {                                                                          \
        T v = (T)(rank % 5), r = 0;                                               \
        ZT_OK(MPI_Allreduce(&v, &r, 1, dt, MPI_SUM, MPI_COMM_WORLD));             \
        ZT_EQ(r, sum_mod(size, 5), #dt " SUM");                                   \
        ZT_OK(MPI_Allreduce(&v, &r, 1, dt, MPI_MAX, MPI_COMM_WORLD));             \
        ZT_EQ(r, size - 1 < 4 ? size - 1 : 4, #dt " MAX");                        \
        ZT_OK(MPI_Allreduce(&v, &r, 1, dt, MPI_MIN, MPI_COMM_WORLD));             \
        ZT_EQ(r, 0, #dt " MIN");                                                  \
        v = (T)(rank == 1 ? 3 : 1);                                               \
        ZT_OK(MPI_Allreduce(&v, &r, 1, dt, MPI_PROD, MPI_COMM_WORLD));            \
        ZT_EQ(r, size > 1 ? 3 : 1, #dt " PROD");                                  \
        v = (T)(1 << (rank % 7));                                                 \
        ZT_OK(MPI_Allreduce(&v, &r, 1, dt, MPI_BOR, MPI_COMM_WORLD));             \
        ZT_EQ(r, (1 << (size < 7 ? size : 7)) - 1, #dt " BOR");                   \
        ZT_BAD_OP(&v, dt, MPI_LAND);                                              \
        ZT_BAD_OP(&v, dt, MPI_LXOR);                                              \
        ZT_BAD_OP(&v, dt, MPI_MINLOC);                                            \
    } while (0)

static void check_integers(int rank, int size)
{
    CHECK_FINT(int32_t, MPI_INTEGER);
    CHECK_FINT(int8_t, MPI_INTEGER1);
    CHECK_FINT(int16_t, MPI_INTEGER2);
    CHECK_FINT(int32_t, MPI_INTEGER4);
    CHECK_FINT(int64_t, MPI_INTEGER8);
    long long s = (long long)size * (size - 1) / 2;
    int64_t big = (int64_t)rank << 33, bigsum = 0;
    ZT_OK(MPI_Allreduce(&big, &bigsum, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD));
    ZT_EQ(bigsum, s << 33, "MPI_INTEGER8 SUM above 2^32");
#ifdef __SIZEOF_INT128__
    __int128 w = ((__int128)rank << 80) + rank, wr = 0;
    __int128 want = ((__int128)s << 80) + s;
    ZT_OK(MPI_Allreduce(&w, &wr, 1, MPI_INTEGER16, MPI_SUM, MPI_COMM_WORLD));
    ZT_EQ((int64_t)(wr >> 64), (int64_t)(want >> 64), "MPI_INTEGER16 SUM, high half");
    ZT_EQ((int64_t)wr, (int64_t)want, "MPI_INTEGER16 SUM, low half");
    ZT_OK(MPI_Allreduce(&w, &wr, 1, MPI_INTEGER16, MPI_MAX, MPI_COMM_WORLD));
    want = ((__int128)(size - 1) << 80) + size - 1;
    ZT_CHECK(wr == want, "MPI_INTEGER16 MAX");
    ZT_BAD_OP(&w, MPI_INTEGER16, MPI_LAND);
#else
    char w[16] = { 0 };
    ZT_BAD_OP(w, MPI_INTEGER16, MPI_SUM);
#endif
}

/* Floating point: MAX, MIN, SUM, PROD; no logical or bitwise operation. */
#define CHECK_REAL(T, dt)                                                         \
    do {                                                                          \
        T v = (T)rank + (T)0.5, r = 0;                                            \
        ZT_OK(MPI_Allreduce(&v, &r, 1, dt, MPI_SUM, MPI_COMM_WORLD));             \
        ZT_CHECK(r == (T)size * (T)size / 2, #dt " SUM is %g", (double)r);        \
        ZT_OK(MPI_Allreduce(&v, &r, 1, dt, MPI_MAX, MPI_COMM_WORLD));             \
        ZT_CHECK(r == (T)size - (T)0.5, #dt " MAX is %g", (double)r);             \
        ZT_OK(MPI_Allreduce(&v, &r, 1, dt, MPI_MIN, MPI_COMM_WORLD));             \
        ZT_CHECK(r == (T)0.5, #dt " MIN is %g", (double)r);                       \
        v = (T)(rank % 2 ? 2 : 1);                                                \
        ZT_OK(MPI_Allreduce(&v, &r, 1, dt, MPI_PROD, MPI_COMM_WORLD));            \
        ZT_CHECK(r == (T)(1ull << (size / 2)), #dt " PROD is %g", (double)r);     \
        ZT_BAD_OP(&v, dt, MPI_LAND);                                              \
        ZT_BAD_OP(&v, dt, MPI_BAND);                                              \
        ZT_BAD_OP(&v, dt, MPI_MAXLOC);                                            \
    } while (0)

static void check_reals(int rank, int size)
{
    CHECK_REAL(float, MPI_REAL);
    CHECK_REAL(float, MPI_REAL4);
    CHECK_REAL(double, MPI_DOUBLE_PRECISION);
    CHECK_REAL(double, MPI_REAL8);
#ifdef HAVE_QUAD
    CHECK_REAL(quad_t, MPI_REAL16);
    /* 1 + 2^-100 needs binary128: a double or an x87 long double would
     * lose the small part, and reading the bits as another format would
     * give nonsense. */
    quad_t tiny = 1;
    for (int i = 0; i < 100; i++)
        tiny /= 2;
    quad_t q = 1 + tiny, qr = 0;
    ZT_OK(MPI_Allreduce(&q, &qr, 1, MPI_REAL16, MPI_SUM, MPI_COMM_WORLD));
    ZT_CHECK(qr - size == size * tiny, "MPI_REAL16 SUM lost precision");
#else
    char q[16] = { 0 };
    ZT_BAD_OP(q, MPI_REAL16, MPI_SUM);
#endif
    /* Half precision communicates but has no C type to compute in. */
    uint16_t h = 0x3c00;
    ZT_BAD_OP(&h, MPI_REAL2, MPI_SUM);
    ZT_BAD_OP(&h, MPI_REAL2, MPI_MAX);
}

/* Complex: SUM and PROD only.  (1+i)^k is exact in every format. */
#define CHECK_COMPLEX(T, dt)                                                      \
    do {                                                                          \
        T v = (T)rank + (T)(2 * rank) * I, r = 0, want = 1;                       \
        long long s_ = (long long)size * (size - 1) / 2;                          \
        ZT_OK(MPI_Allreduce(&v, &r, 1, dt, MPI_SUM, MPI_COMM_WORLD));             \
        ZT_CHECK(creall(r) == s_ && cimagl(r) == 2 * s_, #dt " SUM");             \
        v = rank % 4 == 1 ? 1 + I : 1;                                            \
        for (int q_ = 0; q_ < size; q_++)                                         \
            if (q_ % 4 == 1)                                                      \
                want *= 1 + I;                                                    \
        ZT_OK(MPI_Allreduce(&v, &r, 1, dt, MPI_PROD, MPI_COMM_WORLD));            \
        ZT_CHECK(r == want, #dt " PROD is %g%+gi", (double)creall(r), (double)cimagl(r)); \
        ZT_BAD_OP(&v, dt, MPI_MAX);                                               \
        ZT_BAD_OP(&v, dt, MPI_LOR);                                               \
    } while (0)

static void check_complex(int rank, int size)
{
    CHECK_COMPLEX(float _Complex, MPI_COMPLEX);
    CHECK_COMPLEX(float _Complex, MPI_COMPLEX8);
    CHECK_COMPLEX(float _Complex, MPI_CXX_FLOAT_COMPLEX);
    CHECK_COMPLEX(double _Complex, MPI_DOUBLE_COMPLEX);
    CHECK_COMPLEX(double _Complex, MPI_COMPLEX16);
    CHECK_COMPLEX(double _Complex, MPI_CXX_DOUBLE_COMPLEX);
    CHECK_COMPLEX(long double _Complex, MPI_CXX_LONG_DOUBLE_COMPLEX);
#ifdef HAVE_QUAD
    cquad_t c = (quad_t)rank, cr = 0, cwant = 1;
    __imag__ c = (quad_t)(3 * rank);
    ZT_OK(MPI_Allreduce(&c, &cr, 1, MPI_COMPLEX32, MPI_SUM, MPI_COMM_WORLD));
    long long s = (long long)size * (size - 1) / 2;
    ZT_CHECK(__real__ cr == (quad_t)s && __imag__ cr == (quad_t)(3 * s), "MPI_COMPLEX32 SUM");
    c = 1;
    if (rank % 4 == 1)
        __imag__ c = 1;
    for (int q = 0; q < size; q++)
        if (q % 4 == 1) {
            cquad_t f = 1;
            __imag__ f = 1;
            cwant *= f;
        }
    ZT_OK(MPI_Allreduce(&c, &cr, 1, MPI_COMPLEX32, MPI_PROD, MPI_COMM_WORLD));
    ZT_CHECK(cr == cwant, "MPI_COMPLEX32 PROD");
    ZT_BAD_OP(&c, MPI_COMPLEX32, MPI_MIN);
#else
    char c[32] = { 0 };
    ZT_BAD_OP(c, MPI_COMPLEX32, MPI_SUM);
#endif
    uint16_t h[2] = { 0x3c00, 0 };
    ZT_BAD_OP(h, MPI_COMPLEX4, MPI_SUM);
}

/* LOGICAL and C++ bool: the logical operations only, with 1 for true. */
static void check_logical(int rank, int size)
{
    int32_t v = rank != 1, r = -1;
    ZT_OK(MPI_Allreduce(&v, &r, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD));
    ZT_EQ(r, size == 1, "MPI_LOGICAL LAND");
    v = rank == size - 1;
    ZT_OK(MPI_Allreduce(&v, &r, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD));
    ZT_EQ(r, 1, "MPI_LOGICAL LOR");
    v = 1;
    ZT_OK(MPI_Allreduce(&v, &r, 1, MPI_LOGICAL, MPI_LXOR, MPI_COMM_WORLD));
    ZT_EQ(r, size % 2, "MPI_LOGICAL LXOR");
    ZT_BAD_OP(&v, MPI_LOGICAL, MPI_SUM);
    ZT_BAD_OP(&v, MPI_LOGICAL, MPI_MAX);
    ZT_BAD_OP(&v, MPI_LOGICAL, MPI_BAND);

    _Bool b = rank != 1, br = 0;
    ZT_OK(MPI_Allreduce(&b, &br, 1, MPI_CXX_BOOL, MPI_LAND, MPI_COMM_WORLD));
    ZT_EQ(br, size == 1, "MPI_CXX_BOOL LAND");
    b = rank == size - 1;
    ZT_OK(MPI_Allreduce(&b, &br, 1, MPI_CXX_BOOL, MPI_LOR, MPI_COMM_WORLD));
    ZT_EQ(br, 1, "MPI_CXX_BOOL LOR");
    ZT_BAD_OP(&b, MPI_CXX_BOOL, MPI_SUM);
}

/* MINLOC and MAXLOC on the Fortran pairs, whose index has the value's
 * type.  Values (rank - size/2)^2: the minimum is at size/2 alone, the
 * maximum at rank 0 (tied with rank size-1 for odd sizes: lower index). */
#define CHECK_PAIR(T, dt)                                                         \
    do {                                                                          \
        struct { T v, i; } p = { (T)((rank - size / 2) * (rank - size / 2)), (T)rank }, r; \
        ZT_OK(MPI_Allreduce(&p, &r, 1, dt, MPI_MINLOC, MPI_COMM_WORLD));          \
        ZT_CHECK(r.v == 0 && r.i == (T)(size / 2), #dt " MINLOC (%g, %g)",        \
                 (double)r.v, (double)r.i);                                       \
        ZT_OK(MPI_Allreduce(&p, &r, 1, dt, MPI_MAXLOC, MPI_COMM_WORLD));          \
        ZT_CHECK(r.v == (T)((size / 2) * (size / 2)) && r.i == 0, #dt " MAXLOC (%g, %g)", \
                 (double)r.v, (double)r.i);                                       \
        ZT_BAD_OP(&p, dt, MPI_SUM);                                               \
    } while (0)

static void check_pairs(int rank, int size)
{
    CHECK_PAIR(int32_t, MPI_2INTEGER);
    CHECK_PAIR(float, MPI_2REAL);
    CHECK_PAIR(double, MPI_2DOUBLE_PRECISION);
}

/* Text: MPI_CHAR reduces as the C type char (extension); MPI_CHARACTER and
 * MPI_WCHAR do not, nor MPI_BYTE arithmetically. */
static void check_text(int rank, int size)
{
    char v = (char)(rank % 3), r = 0, want = 0;
    ZT_OK(MPI_Allreduce(&v, &r, 1, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD));
    ZT_EQ(r, sum_mod(size, 3), "MPI_CHAR SUM");
    ZT_OK(MPI_Allreduce(&v, &r, 1, MPI_CHAR, MPI_MAX, MPI_COMM_WORLD));
    ZT_EQ(r, size < 3 ? size - 1 : 2, "MPI_CHAR MAX");
    v = (char)(rank == 1 ? 3 : 1);
    ZT_OK(MPI_Allreduce(&v, &r, 1, MPI_CHAR, MPI_PROD, MPI_COMM_WORLD));
    ZT_EQ(r, size > 1 ? 3 : 1, "MPI_CHAR PROD");
    v = (char)(1 << (rank % 7));
    for (int q = 0; q < size; q++)
        want ^= (char)(1 << (q % 7));
    ZT_OK(MPI_Allreduce(&v, &r, 1, MPI_CHAR, MPI_BXOR, MPI_COMM_WORLD));
    ZT_EQ(r, want, "MPI_CHAR BXOR");
    v = rank != 1;
    ZT_OK(MPI_Allreduce(&v, &r, 1, MPI_CHAR, MPI_LAND, MPI_COMM_WORLD));
    ZT_EQ(r, size == 1, "MPI_CHAR LAND");
    ZT_BAD_OP(&v, MPI_CHAR, MPI_MINLOC);
    ZT_BAD_OP(&v, MPI_CHARACTER, MPI_SUM);
    ZT_BAD_OP(&v, MPI_CHARACTER, MPI_MAX);
    wchar_t wc = 1;
    ZT_BAD_OP(&wc, MPI_WCHAR, MPI_SUM);
    ZT_BAD_OP(&v, MPI_BYTE, MPI_SUM);
    unsigned char by = (unsigned char)(1 << (rank % 8)), byr = 0;
    ZT_OK(MPI_Allreduce(&by, &byr, 1, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD));
    ZT_EQ(byr, (1 << (size < 8 ? size : 8)) - 1, "MPI_BYTE BOR");
}

/* external32 keeps each number of a Fortran pair on its own. */
static void check_external32(void)
{
    float pr[2] = { 1.5f, 3.0f };
    unsigned char ext[8];
    const unsigned char want[8] = { 0x3f, 0xc0, 0, 0, 0x40, 0x40, 0, 0 };
    MPI_Aint pos = 0;
    ZT_OK(MPI_Pack_external("external32", pr, 1, MPI_2REAL, ext, sizeof ext, &pos));
    ZT_EQ(pos, 8, "external32 bytes of MPI_2REAL");
    ZT_CHECK(memcmp(ext, want, 8) == 0, "external32 MPI_2REAL bytes");
    float back[2] = { 0, 0 };
    pos = 0;
    ZT_OK(MPI_Unpack_external("external32", ext, sizeof ext, &pos, back, 1, MPI_2REAL));
    ZT_CHECK(back[0] == 1.5f && back[1] == 3.0f, "external32 MPI_2REAL round trip");
#ifdef HAVE_QUAD
    quad_t one = 1;
    unsigned char qe[16];
    pos = 0;
    ZT_OK(MPI_Pack_external("external32", &one, 1, MPI_REAL16, qe, sizeof qe, &pos));
    ZT_CHECK(qe[0] == 0x3f && qe[1] == 0xff && qe[2] == 0 && qe[15] == 0,
             "external32 MPI_REAL16 1.0 is %02x %02x", qe[0], qe[1]);
#endif
}

/* The envelope of an f90 type: its combiner and integer arguments. */
static void check_envelope(MPI_Datatype t, int combiner, int ni, int i0, int i1)
{
    int n_i = -1, n_a = -1, n_d = -1, comb = -1, ints[2] = { -7, -7 };
    MPI_Aint a[1];
    MPI_Datatype d[1];
    ZT_OK(MPI_Type_get_envelope(t, &n_i, &n_a, &n_d, &comb));
    ZT_EQ(comb, combiner, "f90 combiner");
    ZT_EQ(n_i, ni, "f90 envelope integers");
    ZT_EQ(n_a + n_d, 0, "f90 envelope addresses and types");
    ZT_OK(MPI_Type_get_contents(t, 2, 0, 0, ints, a, d));
    ZT_EQ(ints[0], i0, "first f90 argument");
    if (ni == 2)
        ZT_EQ(ints[1], i1, "second f90 argument");
}

static int type_size(MPI_Datatype t)
{
    int s = -1;
    ZT_OK(MPI_Type_size(t, &s));
    return s;
}

static void check_f90(int rank, int size)
{
    MPI_Datatype t, u;
    ZT_OK(MPI_Type_create_f90_real(6, MPI_UNDEFINED, &t));
    ZT_OK(MPI_Type_create_f90_real(6, MPI_UNDEFINED, &u));
    ZT_CHECK(t == u, "two calls with the same (p, r) gave different handles");
    ZT_EQ(type_size(t), 4, "f90 real p=6");
    check_envelope(t, MPI_COMBINER_F90_REAL, 2, 6, MPI_UNDEFINED);
#ifdef ZMPI
    /* zmpi names an f90 type after the Fortran kind it selected. */
    char name[MPI_MAX_OBJECT_NAME];
    int len = 0;
    ZT_OK(MPI_Type_get_name(t, name, &len));
    ZT_CHECK(strcmp(name, "REAL(KIND=4)") == 0, "name of f90 real p=6 is '%s'", name);
#endif
    float f = (float)rank + 0.5f, fr = 0;
    ZT_OK(MPI_Allreduce(&f, &fr, 1, t, MPI_SUM, MPI_COMM_WORLD));
    ZT_CHECK(fr == (float)size * (float)size / 2, "SUM on f90 real is %g", (double)fr);
#ifdef ZMPI
    /* One handle for the whole job. */
    MPI_Fint mine = MPI_Type_c2f(t), *all = zt_malloc(sizeof(MPI_Fint) * (size_t)size);
    ZT_OK(MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD));
    for (int i = 0; i < size; i++)
        ZT_EQ(all[i], mine, "Fortran value of one f90 type in every rank");
    free(all);
#endif
    MPI_Datatype d;
    int ni, na, nd, comb;
    ZT_OK(MPI_Type_dup(t, &d));
    ZT_OK(MPI_Type_get_envelope(d, &ni, &na, &nd, &comb));
    ZT_EQ(comb, MPI_COMBINER_DUP, "duplicate of an f90 type");
    ZT_OK(MPI_Type_free(&d));

    ZT_OK(MPI_Type_create_f90_real(15, 300, &t));
    ZT_EQ(type_size(t), 8, "f90 real p=15 r=300");
    ZT_OK(MPI_Type_create_f90_real(MPI_UNDEFINED, 400, &t));
    ZT_EQ(type_size(t), 16, "f90 real r=400");
    ZT_OK(MPI_Type_create_f90_real(16, MPI_UNDEFINED, &t));
    ZT_EQ(type_size(t), 16, "f90 real p=16");
    ZT_OK(MPI_Type_create_f90_real(33, 4931, &t));
    ZT_EQ(type_size(t), 16, "f90 real p=33");
    ZT_EQ(zt_err_class(MPI_Type_create_f90_real(34, MPI_UNDEFINED, &t)), MPI_ERR_ARG, "p=34");
    ZT_EQ(zt_err_class(MPI_Type_create_f90_real(MPI_UNDEFINED, MPI_UNDEFINED, &t)), MPI_ERR_ARG,
          "p and r MPI_UNDEFINED");
    ZT_EQ(zt_err_class(MPI_Type_create_f90_real(-2, 5, &t)), MPI_ERR_ARG, "p=-2");
    ZT_EQ(zt_err_class(MPI_Type_create_f90_real(6, 37, NULL)), MPI_ERR_ARG, "newtype NULL");

    ZT_OK(MPI_Type_create_f90_complex(6, 37, &t));
    ZT_EQ(type_size(t), 8, "f90 complex p=6 r=37");
    check_envelope(t, MPI_COMBINER_F90_COMPLEX, 2, 6, 37);
    float _Complex c = (float)rank + (float)rank * I, cr = 0;
    ZT_OK(MPI_Allreduce(&c, &cr, 1, t, MPI_SUM, MPI_COMM_WORLD));
    ZT_CHECK(crealf(cr) == (float)size * (size - 1) / 2 && cimagf(cr) == crealf(cr),
             "SUM on f90 complex");
    ZT_OK(MPI_Type_create_f90_complex(15, MPI_UNDEFINED, &t));
    ZT_EQ(type_size(t), 16, "f90 complex p=15");

    const int rs[] = { 2, 3, 9, 10, 18, 38 }, sizes[] = { 1, 2, 4, 8, 8, 16 };
    for (int i = 0; i < 6; i++) {
        ZT_OK(MPI_Type_create_f90_integer(rs[i], &t));
        ZT_EQ(type_size(t), sizes[i], "f90 integer size");
        check_envelope(t, MPI_COMBINER_F90_INTEGER, 1, rs[i], 0);
    }
    ZT_EQ(zt_err_class(MPI_Type_create_f90_integer(39, &t)), MPI_ERR_ARG, "r=39");
    ZT_EQ(zt_err_class(MPI_Type_create_f90_integer(-1, &t)), MPI_ERR_ARG, "r=-1");
    ZT_OK(MPI_Type_create_f90_integer(9, &t));
    int32_t iv = rank, ir = 0;
    ZT_OK(MPI_Allreduce(&iv, &ir, 1, t, MPI_SUM, MPI_COMM_WORLD));
    ZT_EQ(ir, size * (size - 1) / 2, "SUM on f90 integer");
    ZT_BAD_OP(&iv, t, MPI_LAND);
}

static void check_match_and_pairs(void)
{
    MPI_Datatype t;
    ZT_OK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &t));
    ZT_CHECK(t == MPI_INTEGER4, "match_size(INTEGER, 4)");
    ZT_OK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 1, &t));
    ZT_CHECK(t == MPI_INTEGER1, "match_size(INTEGER, 1)");
    ZT_OK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &t));
    ZT_CHECK(t == MPI_REAL8, "match_size(REAL, 8)");
    ZT_OK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 16, &t));
    ZT_CHECK(t == MPI_REAL16, "match_size(REAL, 16)");
    ZT_OK(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 16, &t));
    ZT_CHECK(t == MPI_COMPLEX16, "match_size(COMPLEX, 16)");
    ZT_EQ(zt_err_class(MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &t)), MPI_ERR_ARG, "REAL 3");
    ZT_EQ(zt_err_class(MPI_Type_match_size(99, 4, &t)), MPI_ERR_ARG, "typeclass 99");

    ZT_OK(MPI_Type_get_value_index(MPI_FLOAT, MPI_INT, &t));
    ZT_CHECK(t == MPI_FLOAT_INT, "value_index(FLOAT, INT)");
    ZT_OK(MPI_Type_get_value_index(MPI_LONG_DOUBLE, MPI_INT, &t));
    ZT_CHECK(t == MPI_LONG_DOUBLE_INT, "value_index(LONG_DOUBLE, INT)");
    ZT_OK(MPI_Type_get_value_index(MPI_INT, MPI_INT, &t));
    ZT_CHECK(t == MPI_2INT, "value_index(INT, INT)");
    ZT_OK(MPI_Type_get_value_index(MPI_REAL, MPI_REAL, &t));
    ZT_CHECK(t == MPI_2REAL, "value_index(REAL, REAL)");
    ZT_OK(MPI_Type_get_value_index(MPI_INTEGER, MPI_INTEGER, &t));
    ZT_CHECK(t == MPI_2INTEGER, "value_index(INTEGER, INTEGER)");
    ZT_OK(MPI_Type_get_value_index(MPI_FLOAT, MPI_FLOAT, &t));
    ZT_CHECK(t == MPI_DATATYPE_NULL, "value_index(FLOAT, FLOAT) is not MPI_DATATYPE_NULL");
    ZT_OK(MPI_Type_get_value_index(MPI_DOUBLE_PRECISION, MPI_INT, &t));
    ZT_CHECK(t == MPI_DATATYPE_NULL, "value_index(DOUBLE_PRECISION, INT)");
    ZT_EQ(zt_err_class(MPI_Type_get_value_index(MPI_DATATYPE_NULL, MPI_INT, &t)), MPI_ERR_TYPE,
          "value_index(MPI_DATATYPE_NULL, ...)");
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && strcmp(argv[1], "fatal_land_integer") == 0) {
        int32_t v = 1, r = 0;
        MPI_Allreduce(&v, &r, 1, MPI_INTEGER, MPI_LAND, MPI_COMM_WORLD);
        ZT_CHECK(0, "MPI_LAND on MPI_INTEGER returned under MPI_ERRORS_ARE_FATAL");
    }
    /* Errors tied to no communicator go to MPI_COMM_SELF's handler. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    check_basics(rank, size);
    check_integers(rank, size);
    check_reals(rank, size);
    check_complex(rank, size);
    check_logical(rank, size);
    check_pairs(rank, size);
    check_text(rank, size);
    check_external32();
    check_f90(rank, size);
    check_match_and_pairs();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("dt_fortran: %d ranks OK\n", size);
    MPI_Finalize();
    return 0;
}
