/*
 * type_extra.c: the Fortran 90 parameterised datatypes
 * (MPI_Type_create_f90_integer, _real, _complex; MPI 4.1 section 19.2.5),
 * MPI_Type_match_size, and MPI_Type_get_value_index (section 6.9.4).
 *
 * The f90 calls answer the type of the Fortran KIND that
 * selected_int_kind(r) or selected_real_kind(p, r) picks, for gfortran on
 * this machine.  Each such type is a clone of the predefined type of the
 * same representation (so it communicates and reduces exactly like it)
 * whose envelope records the combiner and the arguments, as
 * MPI_Type_get_envelope must report them.  The standard makes these types
 * predefined: the same arguments give the same handle, on every call and
 * in every rank, so they live in one job-wide cache and are never freed.
 */
#include "mpi_impl.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>

/* A gfortran kind: its decimal precision and exponent range (the
 * PRECISION and RANGE intrinsics) and the predefined types of its
 * representation. */
typedef struct fkind {
    int kind;               /* the KIND value */
    int p, r;               /* PRECISION (reals) and RANGE */
    MPI_Datatype type;      /* INTEGER or REAL of this kind */
    MPI_Datatype cplx;      /* COMPLEX of this kind (reals) */
} fkind_t;

static const fkind_t int_kinds[] = {
    { 1, 0, 2, MPI_INTEGER1, NULL },
    { 2, 0, 4, MPI_INTEGER2, NULL },
    { 4, 0, 9, MPI_INTEGER4, NULL },
    { 8, 0, 18, MPI_INTEGER8, NULL },
    { 16, 0, 38, MPI_INTEGER16, NULL },
};

/* gfortran has REAL(10), the x87 extended format, where C's long double
 * is that format; REAL(16) is IEEE binary128 everywhere. */
static const fkind_t real_kinds[] = {
    { 4, 6, 37, MPI_REAL4, MPI_COMPLEX8 },
    { 8, 15, 307, MPI_REAL8, MPI_COMPLEX16 },
#if LDBL_MANT_DIG == 64
    { 10, 18, 4931, MPI_LONG_DOUBLE, MPI_C_LONG_DOUBLE_COMPLEX },
#endif
    { 16, 33, 4931, MPI_REAL16, MPI_COMPLEX32 },
};

#define NKINDS(a) (sizeof(a) / sizeof(*(a)))

/* One cached f90 type: the call's combiner and arguments, and the type. */
typedef struct f90_entry {
    int combiner, p, r;     /* p is MPI_UNDEFINED for F90_INTEGER */
    zm_dt_t *type;          /* holds the cache's reference */
} f90_entry_t;

static zm_spinlock_t f90_lock;   /* guards the cache */
static f90_entry_t *f90_cache;   /* entries, in order of creation */
static size_t f90_n, f90_cap;    /* entries and capacity */

/* The cached type for (combiner, p, r), or NULL.  Lock held. */
static zm_dt_t *cache_find(int combiner, int p, int r)
{
    for (size_t i = 0; i < f90_n; i++)
        if (f90_cache[i].combiner == combiner && f90_cache[i].p == p && f90_cache[i].r == r)
            return f90_cache[i].type;
    return NULL;
}

/* A new type of the representation of `base` that answers the envelope
 * (combiner; ints) and the name "<NAME>(KIND=k)".  NULL if out of memory. */
static zm_dt_t *f90_make(MPI_Datatype base, int combiner, int ni, const int *ints,
                         const char *fname, int kind)
{
    zm_status_t st;
    zm_dt_t *t = zm_dt_create_clone(base, 0, &st);
    if (!t)
        return NULL;
    if (zm_dt_set_envelope(t, combiner, ni, ints, 0, NULL, 0, NULL) != ZM_OK) {
        zm_dt_release(t);
        return NULL;
    }
    snprintf(t->d->name, sizeof t->d->name, "%s(KIND=%d)", fname, kind);
    t->d->named = 1;
    t->committed = 1;
    t->usable = 1;
    return t;
}

/* The job's one type for (combiner, p, r), made on first use.  The cache
 * keeps a reference of its own, so the type outlives any (erroneous)
 * MPI_Type_free of it.  NULL if out of memory.  ULT context, any rank. */
static zm_dt_t *f90_get(int combiner, int p, int r, const fkind_t *k, const char *fname)
{
    zm_spin_lock(&f90_lock);
    zm_dt_t *t = cache_find(combiner, p, r);
    zm_spin_unlock(&f90_lock);
    if (t)
        return t;
    /* Made outside the lock: allocation may be slow, and another rank
     * making the same type at the same time only costs a discarded copy. */
    int ints[2] = { p, r }, ni = combiner == MPI_COMBINER_F90_INTEGER ? 1 : 2;
    MPI_Datatype base = combiner == MPI_COMBINER_F90_COMPLEX ? k->cplx : k->type;
    zm_dt_t *mine = f90_make(base, combiner, ni, ni == 1 ? &r : ints, fname, k->kind);
    if (!mine)
        return NULL;
    zm_spin_lock(&f90_lock);
    t = cache_find(combiner, p, r);
    if (!t && f90_n == f90_cap) {
        size_t ncap = f90_cap ? 2 * f90_cap : 16;
        f90_entry_t *nc = realloc(f90_cache, ncap * sizeof(*nc));
        if (nc) {
            f90_cache = nc;
            f90_cap = ncap;
        }
    }
    if (!t && f90_n < f90_cap) {
        f90_cache[f90_n++] = (f90_entry_t){ combiner, p, r, mine };
        t = mine;
        mine = NULL;
    }
    zm_spin_unlock(&f90_lock);
    if (mine)
        zm_dt_release(mine);
    return t;
}

/* Check a precision or range argument: >= 0, or MPI_UNDEFINED if allowed. */
static int check_pr(const char *fn, const char *what, int v, int undefined_ok)
{
    if (v >= 0 || (undefined_ok && v == MPI_UNDEFINED))
        return MPI_SUCCESS;
    return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(%s=%d): must be >= 0%s", what, v,
                        undefined_ok ? " or MPI_UNDEFINED" : "");
}

static int check_out(const char *fn, const char *what, const void *p)
{
    if (p)
        return MPI_SUCCESS;
    return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(%s=NULL): invalid pointer", what);
}

/* Shared by the real and complex calls: selected_real_kind(p, r). */
static int f90_real_common(const char *fn, int combiner, int p, int r, MPI_Datatype *newtype)
{
    zm_mpi_enter(fn);
    int rc = check_pr(fn, "p", p, 1);
    if (rc == MPI_SUCCESS)
        rc = check_pr(fn, "r", r, 1);
    if (rc == MPI_SUCCESS && p == MPI_UNDEFINED && r == MPI_UNDEFINED)
        rc = zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(p=MPI_UNDEFINED, r=MPI_UNDEFINED): at most "
                          "one of p and r may be MPI_UNDEFINED");
    if (rc == MPI_SUCCESS)
        rc = check_out(fn, "newtype", newtype);
    if (rc != MPI_SUCCESS)
        return rc;
    /* The kinds are in increasing precision: the first that is enough in
     * both respects is the one selected_real_kind picks. */
    const fkind_t *k = NULL;
    for (size_t i = 0; i < NKINDS(real_kinds) && !k; i++)
        if ((p == MPI_UNDEFINED || real_kinds[i].p >= p) &&
            (r == MPI_UNDEFINED || real_kinds[i].r >= r))
            k = &real_kinds[i];
    const fkind_t *top = &real_kinds[NKINDS(real_kinds) - 1];
    if (!k)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(p=%d, r=%d): no REAL kind has that "
                            "precision and range (the largest has p=%d, r=%d)", p, r, top->p,
                            top->r);
    const char *name = combiner == MPI_COMBINER_F90_REAL ? "REAL" : "COMPLEX";
    zm_dt_t *t = f90_get(combiner, p, r, k, name);
    if (!t)
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory for a datatype");
    *newtype = t;
    return MPI_SUCCESS;
}

int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    return f90_real_common("MPI_Type_create_f90_real", MPI_COMBINER_F90_REAL, p, r, newtype);
}
ZM_WEAK(Type_create_f90_real)

int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    return f90_real_common("MPI_Type_create_f90_complex", MPI_COMBINER_F90_COMPLEX, p, r,
                           newtype);
}
ZM_WEAK(Type_create_f90_complex)

int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_f90_integer";
    zm_mpi_enter(fn);
    int rc = check_pr(fn, "r", r, 0);
    if (rc == MPI_SUCCESS)
        rc = check_out(fn, "newtype", newtype);
    if (rc != MPI_SUCCESS)
        return rc;
    const fkind_t *k = NULL;
    for (size_t i = 0; i < NKINDS(int_kinds) && !k; i++)
        if (int_kinds[i].r >= r)
            k = &int_kinds[i];
    if (!k)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(r=%d): no INTEGER kind has that range "
                            "(the largest has r=%d)", r, int_kinds[NKINDS(int_kinds) - 1].r);
    zm_dt_t *t = f90_get(MPI_COMBINER_F90_INTEGER, MPI_UNDEFINED, r, k, "INTEGER");
    if (!t)
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory for a datatype");
    *newtype = t;
    return MPI_SUCCESS;
}
ZM_WEAK(Type_create_f90_integer)

/* MPI_Type_match_size answers the Fortran sized types (INTEGER*n, REAL*n,
 * COMPLEX*n), which is what the call exists for: the predefined type of
 * that class and size.  Half precision (MPI_REAL2, MPI_COMPLEX4) is
 * answered too: no gfortran kind has it and it does not reduce, but it is
 * a predefined type of this library that communicates, so a program
 * asking for a 2-byte REAL gets it rather than an error for a type that
 * exists. */
int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    const char *fn = "MPI_Type_match_size";
    zm_mpi_enter(fn);
    static const struct { int cls, size; MPI_Datatype type; } sized[] = {
        { MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1 }, { MPI_TYPECLASS_INTEGER, 2, MPI_INTEGER2 },
        { MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER4 }, { MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8 },
        { MPI_TYPECLASS_INTEGER, 16, MPI_INTEGER16 }, { MPI_TYPECLASS_REAL, 2, MPI_REAL2 },
        { MPI_TYPECLASS_REAL, 4, MPI_REAL4 }, { MPI_TYPECLASS_COMPLEX, 4, MPI_COMPLEX4 },
        { MPI_TYPECLASS_REAL, 8, MPI_REAL8 }, { MPI_TYPECLASS_REAL, 16, MPI_REAL16 },
        { MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX8 }, { MPI_TYPECLASS_COMPLEX, 16, MPI_COMPLEX16 },
        { MPI_TYPECLASS_COMPLEX, 32, MPI_COMPLEX32 },
    };
    static const char *const class_names[] = {
        [MPI_TYPECLASS_REAL] = "MPI_TYPECLASS_REAL",
        [MPI_TYPECLASS_INTEGER] = "MPI_TYPECLASS_INTEGER",
        [MPI_TYPECLASS_COMPLEX] = "MPI_TYPECLASS_COMPLEX",
    };
    int rc = check_out(fn, "datatype", datatype);
    if (rc == MPI_SUCCESS && (typeclass < MPI_TYPECLASS_REAL || typeclass > MPI_TYPECLASS_COMPLEX))
        rc = zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(typeclass=%d): not MPI_TYPECLASS_INTEGER, "
                          "_REAL or _COMPLEX", typeclass);
    if (rc != MPI_SUCCESS)
        return rc;
    for (size_t i = 0; i < NKINDS(sized); i++)
        if (sized[i].cls == typeclass && sized[i].size == size) {
            *datatype = sized[i].type;
            return MPI_SUCCESS;
        }
    return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(typeclass=%s, size=%d): no predefined type "
                        "of that class has that size", class_names[typeclass], size);
}
ZM_WEAK(Type_match_size)

/* MPI 4.1: the predefined pair type for MINLOC/MAXLOC of a value type and
 * an index type, or MPI_DATATYPE_NULL.  The C pairs take an MPI_INT index,
 * the Fortran ones an index of the value's own type. */
int PMPI_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type,
                              MPI_Datatype *pair_type)
{
    const char *fn = "MPI_Type_get_value_index";
    zm_mpi_enter(fn);
    static const struct { MPI_Datatype value, index, pair; } pairs[] = {
        { MPI_FLOAT, MPI_INT, MPI_FLOAT_INT },
        { MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT },
        { MPI_LONG, MPI_INT, MPI_LONG_INT },
        { MPI_INT, MPI_INT, MPI_2INT },
        { MPI_SHORT, MPI_INT, MPI_SHORT_INT },
        { MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT },
        { MPI_REAL, MPI_REAL, MPI_2REAL },
        { MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION },
        { MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER },
    };
    int rc = zm_mpi_check_type(fn, "value_type", value_type);
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_check_type(fn, "index_type", index_type);
    if (rc == MPI_SUCCESS)
        rc = check_out(fn, "pair_type", pair_type);
    if (rc != MPI_SUCCESS)
        return rc;
    *pair_type = MPI_DATATYPE_NULL;
    for (size_t i = 0; i < NKINDS(pairs); i++)
        if (pairs[i].value == value_type && pairs[i].index == index_type)
            *pair_type = pairs[i].pair;
    return MPI_SUCCESS;
}
ZM_WEAK(Type_get_value_index)
