/*
 * dt_ext32.c: the "external32" data representation (MPI-4 section 13.5.2):
 * big-endian, IEEE formats, fixed sizes.  Used by MPI_Pack_external.
 *
 * Conversion works on natively packed data (zm_dt_pack's output, which has
 * no gaps) and walks the typemap order of the type (its seq entries), one
 * predefined element at a time.  It is not a fast path: external32 exists
 * for portable files and heterogeneous systems, which zmpi never is.
 */
#include "dt/dt.h"

#include <float.h>
#include <string.h>

extern zm_dt_t zmpi_dt_MPI_LONG, zmpi_dt_MPI_UNSIGNED_LONG, zmpi_dt_MPI_FLOAT_INT,
    zmpi_dt_MPI_DOUBLE_INT, zmpi_dt_MPI_LONG_INT, zmpi_dt_MPI_2INT, zmpi_dt_MPI_SHORT_INT,
    zmpi_dt_MPI_LONG_DOUBLE_INT, zmpi_dt_MPI_LONG_DOUBLE, zmpi_dt_MPI_C_LONG_DOUBLE_COMPLEX,
    zmpi_dt_MPI_FLOAT, zmpi_dt_MPI_DOUBLE, zmpi_dt_MPI_INT, zmpi_dt_MPI_SHORT,
    zmpi_dt_MPI_CXX_LONG_DOUBLE_COMPLEX;

/* How one predefined scalar is converted. */
enum { CV_SWAP, CV_LONG, CV_LDOUBLE };

/* Scalar conversion of n native bytes <-> e external bytes. */
typedef struct cv {
    int how;        /* CV_* */
    size_t n, e;    /* native and external sizes */
    int sign;       /* CV_LONG: sign-extend when decoding */
} cv_t;

static void swap_copy(unsigned char *d, const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        d[i] = s[n - 1 - i];
}

/* x86 80-bit extended <-> IEEE binary128, big-endian.  The 64-bit
 * significand (with its explicit integer bit) becomes the top 63 bits of
 * the 112-bit fraction; decoding truncates the 49 bits it cannot hold. */
static void ld_encode(unsigned char *e, const unsigned char *n)
{
    uint64_t m;
    uint16_t se;
    memcpy(&m, n, 8);
    memcpy(&se, n + 8, 2);
    m <<= 1;
    e[0] = (unsigned char)(se >> 8);
    e[1] = (unsigned char)se;
    for (int i = 0; i < 8; i++)
        e[2 + i] = (unsigned char)(m >> (56 - 8 * i));
    memset(e + 10, 0, 6);
}

static void ld_decode(unsigned char *n, const unsigned char *e)
{
    uint16_t se = (uint16_t)(e[0] << 8 | e[1]);
    uint64_t m = 0;
    for (int i = 0; i < 8; i++)
        m = m << 8 | e[2 + i];
    m >>= 1;
    if (se & 0x7fff)
        m |= (uint64_t)1 << 63;
    memset(n, 0, sizeof(long double));
    memcpy(n, &m, 8);
    memcpy(n + 8, &se, 2);
}

static void cv_one(const cv_t *c, unsigned char *ext, unsigned char *nat, int enc)
{
    if (c->how == CV_SWAP) {
        if (enc)
            swap_copy(ext, nat, c->n);
        else
            swap_copy(nat, ext, c->n);
    } else if (c->how == CV_LONG) {
        /* external32 MPI_LONG is 4 bytes: values outside 32 bits do not fit. */
        long v;
        if (enc) {
            memcpy(&v, nat, sizeof v);
            uint32_t w = (uint32_t)v;
            swap_copy(ext, (unsigned char *)&w, 4);
        } else {
            uint32_t w;
            swap_copy((unsigned char *)&w, ext, 4);
            v = c->sign ? (long)(int32_t)w : (long)w;
            memcpy(nat, &v, sizeof v);
        }
    } else if (enc) {
        ld_encode(ext, nat);
    } else {
        ld_decode(nat, ext);
    }
}

static int ld_supported(void)
{
    return (LDBL_MANT_DIG == 64 && sizeof(long double) == 16) ||
           (LDBL_MANT_DIG == 113 && sizeof(long double) == 16);
}

/* Conversions of the (up to two) members of predefined type dt. */
static int cv_of(const zm_dt_t *dt, cv_t c[2])
{
    const zm_dt_t *v = NULL;
    if (dt == &zmpi_dt_MPI_FLOAT_INT)
        v = &zmpi_dt_MPI_FLOAT;
    else if (dt == &zmpi_dt_MPI_DOUBLE_INT)
        v = &zmpi_dt_MPI_DOUBLE;
    else if (dt == &zmpi_dt_MPI_LONG_INT)
        v = &zmpi_dt_MPI_LONG;
    else if (dt == &zmpi_dt_MPI_2INT)
        v = &zmpi_dt_MPI_INT;
    else if (dt == &zmpi_dt_MPI_SHORT_INT)
        v = &zmpi_dt_MPI_SHORT;
    else if (dt == &zmpi_dt_MPI_LONG_DOUBLE_INT)
        v = &zmpi_dt_MPI_LONG_DOUBLE;
    if (v) {
        cv_t pair[2];
        if (cv_of(v, pair) != 1)
            return -1;
        c[0] = pair[0];
        c[1] = (cv_t){ CV_SWAP, sizeof(int), 4, 1 };
        return 2;
    }
    if (dt->kind == ZM_DT_PAIR) {
        /* The Fortran pairs (MPI_2INTEGER, MPI_2REAL, MPI_2DOUBLE_PRECISION)
         * hold two numbers of one type, each converted on its own. */
        size_t iv = dt->size - dt->val_size;
        c[0] = (cv_t){ CV_SWAP, dt->val_size, dt->val_size, 0 };
        c[1] = (cv_t){ CV_SWAP, iv, iv, 0 };
        return 2;
    }
    if (dt == &zmpi_dt_MPI_LONG || dt == &zmpi_dt_MPI_UNSIGNED_LONG) {
        c[0] = (cv_t){ CV_LONG, sizeof(long), 4, dt == &zmpi_dt_MPI_LONG };
        return 1;
    }
    if (dt == &zmpi_dt_MPI_LONG_DOUBLE || dt == &zmpi_dt_MPI_C_LONG_DOUBLE_COMPLEX ||
        dt == &zmpi_dt_MPI_CXX_LONG_DOUBLE_COMPLEX) {
        if (!ld_supported())
            return -1;
        cv_t one = { LDBL_MANT_DIG == 64 ? CV_LDOUBLE : CV_SWAP, 16, 16, 0 };
        c[0] = c[1] = one;
        return dt == &zmpi_dt_MPI_LONG_DOUBLE ? 1 : 2;
    }
    /* Everything else, the Fortran types included, has the same size in
     * external32 as here (MPI 4.1 section 13.5.2's table): REAL16 and
     * COMPLEX32 are binary128 in both, so they only change byte order. */
    if (dt->kind == ZM_DT_COMPLEX) {
        c[0] = c[1] = (cv_t){ CV_SWAP, dt->size / 2, dt->size / 2, 0 };
        return 2;
    }
    c[0] = (cv_t){ CV_SWAP, dt->size, dt->size, 0 };
    return 1;
}

size_t zm_dt_ext32_size(const zm_dt_t *dt, size_t count, int *ok)
{
    *ok = 1;
    if (dt->d) {
        size_t one = 0;
        for (size_t i = 0; i < dt->d->nseq && *ok; i++)
            one += zm_dt_ext32_size(dt->d->seq[i].type, dt->d->seq[i].count, ok);
        return *ok ? one * count : 0;
    }
    cv_t c[2];
    int k = cv_of(dt, c);
    if (k < 0) {
        *ok = 0;
        return 0;
    }
    return count * (c[0].e + (k == 2 ? c[1].e : 0));
}

/* Convert count elements of dt, advancing both cursors. */
static int walk(const zm_dt_t *dt, size_t count, unsigned char **ext, unsigned char **nat,
                int enc)
{
    if (dt->d) {
        for (size_t j = 0; j < count; j++)
            for (size_t i = 0; i < dt->d->nseq; i++)
                if (walk(dt->d->seq[i].type, dt->d->seq[i].count, ext, nat, enc) < 0)
                    return -1;
        return 0;
    }
    cv_t c[2];
    int k = cv_of(dt, c);
    if (k < 0)
        return -1;
    for (size_t j = 0; j < count; j++) {
        for (int m = 0; m < k; m++) {
            cv_one(&c[m], *ext, *nat, enc);
            *ext += c[m].e;
            *nat += c[m].n;
        }
    }
    return 0;
}

int zm_dt_ext32_encode(void *ext, const void *native, size_t count, const zm_dt_t *dt)
{
    unsigned char *e = ext, *n = (unsigned char *)native;
    return walk(dt, count, &e, &n, 1);
}

int zm_dt_ext32_decode(void *native, const void *ext, size_t count, const zm_dt_t *dt)
{
    unsigned char *e = (unsigned char *)ext, *n = native;
    return walk(dt, count, &e, &n, 0);
}
