/*
 * type.c: datatype constructors, commit and free.
 *
 * Each constructor checks its arguments, converts element displacements to
 * bytes and calls the datatype layer, which compiles the layout at once
 * (its cost follows the length of the description, never the data).  The
 * envelope (the call and its arguments) is recorded for
 * MPI_Type_get_envelope / MPI_Type_get_contents.  Subarray and darray types
 * are built from hvector, hindexed, struct and resized types the way the
 * standard defines them; the layout compiler folds the levels away.
 */
#include "large.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Check a datatype argument that a constructor or query reads. */
int zm_mpi_check_type(const char *fn, const char *what, MPI_Datatype dt)
{
    if (ZM_LIKELY(zm_dt_valid(dt) && !dt->freed))
        return MPI_SUCCESS;
    return zm_mpi_error(NULL, MPI_ERR_TYPE, fn, "(%s=%s): invalid datatype", what,
                        dt == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL"
                        : zm_dt_valid(dt)       ? "a freed datatype"
                                                : "not a datatype");
}

static int check_count(const char *fn, const char *what, int64_t v)
{
    if (v >= 0)
        return MPI_SUCCESS;
    return zm_mpi_error(NULL, MPI_ERR_COUNT, fn, "(%s=%lld): must be >= 0", what, (long long)v);
}

static int check_arg(const char *fn, const char *what, int ok)
{
    if (ok)
        return MPI_SUCCESS;
    return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "invalid argument: %s", what);
}

/* Size of blocks: elements times old size must fit (and leave room for
 * counts of the type). */
static int check_size(const char *fn, size_t elems, const zm_dt_t *old)
{
    size_t bytes;
    if (!__builtin_mul_overflow(elems, old->size, &bytes) && bytes <= (size_t)INT64_MAX / 2)
        return MPI_SUCCESS;
    return zm_mpi_error(NULL, MPI_ERR_COUNT, fn,
                        "the new datatype would hold more than 2^62 bytes (%zu elements of %s)",
                        elems, old->name);
}

static const char *const combiner_names[] = {
    [MPI_COMBINER_DUP] = "MPI_Type_dup",
    [MPI_COMBINER_CONTIGUOUS] = "MPI_Type_contiguous",
    [MPI_COMBINER_VECTOR] = "MPI_Type_vector",
    [MPI_COMBINER_HVECTOR] = "MPI_Type_create_hvector",
    [MPI_COMBINER_INDEXED] = "MPI_Type_indexed",
    [MPI_COMBINER_HINDEXED] = "MPI_Type_create_hindexed",
    [MPI_COMBINER_INDEXED_BLOCK] = "MPI_Type_create_indexed_block",
    [MPI_COMBINER_HINDEXED_BLOCK] = "MPI_Type_create_hindexed_block",
    [MPI_COMBINER_STRUCT] = "MPI_Type_create_struct",
    [MPI_COMBINER_SUBARRAY] = "MPI_Type_create_subarray",
    [MPI_COMBINER_DARRAY] = "MPI_Type_create_darray",
    [MPI_COMBINER_RESIZED] = "MPI_Type_create_resized",
};

/* A constructor's envelope (MPI 4.1 section 5.1.13): the int form records
 * integers and addresses, the _c form large counts (and integers only for
 * the arguments that stay int in it: subarray's and darray's). */
typedef struct {
    int ni, na, nd;
    size_t nc;
    const int *ints;
    const MPI_Aint *aints;
    const int64_t *counts;
    const MPI_Datatype *types;
} env_t;

_Static_assert(sizeof(MPI_Aint) == sizeof(int64_t), "MPI_Aint and MPI_Count differ in width");

/* Hand a new type to the user: record its envelope, name it after its
 * constructor, store the handle.  Consumes t on failure. */
static int type_out(const char *fn, zm_dt_t *t, zm_status_t st, int combiner, const env_t *e,
                    MPI_Datatype *out)
{
    if (!t && st == ZM_ERR_ARG)
        return zm_mpi_error(NULL, MPI_ERR_TYPE, fn,
                            "datatype nested too deeply (more than %d levels that do not "
                            "simplify)", ZM_DT_MAX_DEPTH);
    if (!t)
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory for a datatype");
    if (zm_dt_set_envelope(t, combiner, e->ni, e->ints, e->na, (const ptrdiff_t *)e->aints,
                           e->nd, (const zm_dt_t *const *)e->types) != ZM_OK ||
        (e->nc && zm_dt_set_counts(t, e->nc, e->counts) != ZM_OK)) {
        zm_dt_release(t);
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory for a datatype");
    }
    snprintf(t->d->name, sizeof t->d->name, "(datatype from %s)", combiner_names[combiner]);
    *out = t;
    return MPI_SUCCESS;
}

/* type_out for the constructors whose arguments are all counts and
 * addresses: v[0..n) in the standard's order.  The int form records the
 * first nint as integers and the rest as addresses, the _c form all as
 * large counts.  Consumes t on failure. */
static int type_out_vals(const char *fn, zm_dt_t *t, zm_status_t st, int combiner, int wide,
                         const int64_t *v, size_t n, size_t nint, int nd,
                         const MPI_Datatype *types, MPI_Datatype *out)
{
    env_t e = { .nd = nd, .types = types };
    int *ints = NULL;
    if (wide) {
        e.nc = n;
        e.counts = v;
    } else {
        ints = malloc((nint ? nint : 1) * sizeof(int));
        if (!ints) {
            if (t)
                zm_dt_release(t);
            return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
        }
        for (size_t i = 0; i < nint; i++)
            ints[i] = (int)v[i]; /* they came from int arguments */
        e.ni = (int)nint;
        e.ints = ints;
        e.na = (int)(n - nint);
        e.aints = (const MPI_Aint *)v + nint;
    }
    int rc = type_out(fn, t, st, combiner, &e, out);
    free(ints);
    return rc;
}

int zm_mpi_type_contiguous(const char *fn, MPI_Count count, MPI_Datatype old,
                           MPI_Datatype *newtype, int wide)
{
    zm_status_t st;
    int rc = check_count(fn, "count", count);
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_check_type(fn, "oldtype", old);
    if (rc == MPI_SUCCESS)
        rc = check_arg(fn, "newtype is NULL", newtype != NULL);
    if (rc == MPI_SUCCESS)
        rc = check_size(fn, (size_t)count, old);
    if (rc != MPI_SUCCESS)
        return rc;
    zm_dt_t *t = zm_dt_create_hvector(1, (size_t)count, 0, old, &st);
    int64_t v[1] = { count };
    return type_out_vals(fn, t, st, MPI_COMBINER_CONTIGUOUS, wide, v, 1, 1, 1, &old, newtype);
}

int PMPI_Type_contiguous(int count, MPI_Datatype old, MPI_Datatype *newtype)
{
    return zm_mpi_type_contiguous("MPI_Type_contiguous", count, old, newtype, ZM_W32);
}
ZM_WEAK(Type_contiguous)

/* Shared by the vector constructors: stride in bytes. */
static int vector_common(const char *fn, MPI_Count count, MPI_Count bl, MPI_Aint stride,
                         MPI_Datatype old, MPI_Datatype *newtype, zm_dt_t **t, zm_status_t *st)
{
    size_t elems;
    int rc = check_count(fn, "count", count);
    if (rc == MPI_SUCCESS)
        rc = check_count(fn, "blocklength", bl);
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_check_type(fn, "oldtype", old);
    if (rc == MPI_SUCCESS)
        rc = check_arg(fn, "newtype is NULL", newtype != NULL);
    if (rc == MPI_SUCCESS)
        rc = check_arg(fn, "count * blocklength overflows",
                       !__builtin_mul_overflow((size_t)count, (size_t)bl, &elems));
    if (rc == MPI_SUCCESS)
        rc = check_size(fn, elems, old);
    if (rc != MPI_SUCCESS)
        return rc;
    *t = zm_dt_create_hvector((size_t)count, (size_t)bl, stride, old, st);
    return MPI_SUCCESS;
}

int zm_mpi_type_vector(const char *fn, MPI_Count count, MPI_Count bl, MPI_Count stride,
                       MPI_Datatype old, MPI_Datatype *newtype, int wide)
{
    zm_dt_t *t;
    zm_status_t st;
    MPI_Aint bytes;
    int rc = zm_mpi_check_type(fn, "oldtype", old);
    if (rc == MPI_SUCCESS)
        rc = check_arg(fn, "stride * extent of oldtype overflows",
                       !__builtin_mul_overflow(stride, (MPI_Aint)old->extent, &bytes));
    if (rc == MPI_SUCCESS)
        rc = vector_common(fn, count, bl, bytes, old, newtype, &t, &st);
    if (rc != MPI_SUCCESS)
        return rc;
    int64_t v[3] = { count, bl, stride };
    return type_out_vals(fn, t, st, MPI_COMBINER_VECTOR, wide, v, 3, 3, 1, &old, newtype);
}

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype old,
                     MPI_Datatype *newtype)
{
    return zm_mpi_type_vector("MPI_Type_vector", count, blocklength, stride, old, newtype,
                              ZM_W32);
}
ZM_WEAK(Type_vector)

int zm_mpi_type_hvector(const char *fn, MPI_Count count, MPI_Count bl, MPI_Count stride,
                        MPI_Datatype old, MPI_Datatype *newtype, int wide)
{
    zm_dt_t *t;
    zm_status_t st;
    int rc = vector_common(fn, count, bl, stride, old, newtype, &t, &st);
    if (rc != MPI_SUCCESS)
        return rc;
    int64_t v[3] = { count, bl, stride };
    return type_out_vals(fn, t, st, MPI_COMBINER_HVECTOR, wide, v, 3, 2, 1, &old, newtype);
}

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype old,
                             MPI_Datatype *newtype)
{
    return zm_mpi_type_hvector("MPI_Type_create_hvector", count, blocklength, stride, old,
                               newtype, ZM_W32);
}
ZM_WEAK(Type_create_hvector)

/* Shared by the indexed and struct constructors: block lengths bl[i] of
 * width `wide` (or bl0 for all if bl is NULL), byte displacements
 * disp[i], types[i] (or types[0]). */
static int blocks_common(const char *fn, MPI_Count count, const void *bl, int wide, int64_t bl0,
                         const MPI_Aint *disp, const MPI_Datatype *types, int one_type,
                         int pad, MPI_Datatype *newtype, zm_dt_t **t, zm_status_t *st)
{
    int rc = check_count(fn, "count", count);
    if (rc == MPI_SUCCESS)
        rc = check_arg(fn, "newtype is NULL", newtype != NULL);
    if (rc == MPI_SUCCESS && count > 0)
        rc = check_arg(fn, "array argument is NULL", disp && types);
    if (rc != MPI_SUCCESS)
        return rc;
    size_t *b = malloc((count > 0 ? (size_t)count : 1) * sizeof(size_t));
    if (!b)
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    for (MPI_Count i = 0; i < count && rc == MPI_SUCCESS; i++) {
        MPI_Datatype T = types[one_type ? 0 : i];
        int64_t v = bl ? zm_mpi_at(bl, wide, (size_t)i) : bl0;
        if (v < 0)
            rc = zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(blocklength[%lld]=%lld): must be >= 0",
                              (long long)i, (long long)v);
        else if (i == 0 || !one_type)
            rc = zm_mpi_check_type(fn, one_type ? "oldtype" : "array_of_types[i]", T);
        if (rc == MPI_SUCCESS)
            rc = check_size(fn, (size_t)v, T);
        b[i] = (size_t)v;
    }
    if (rc == MPI_SUCCESS)
        *t = zm_dt_create_struct((size_t)count, b, (const ptrdiff_t *)disp,
                                 (const zm_dt_t *const *)types, one_type, pad, st);
    free(b);
    return rc;
}

/* The envelope values of the indexed and struct forms: count, then n1
 * values of a (width wa; one value a0 if a is NULL), then n2 of b (width
 * wb), in a new array of *n (NULL if out of memory). */
static int64_t *pack_vals(MPI_Count count, const void *a, int wa, int64_t a0, size_t n1,
                          const void *b, int wb, size_t n2, size_t *n)
{
    int64_t *v = malloc((1 + n1 + n2) * sizeof(int64_t));
    if (!v)
        return NULL;
    v[0] = count;
    for (size_t i = 0; i < n1; i++)
        v[1 + i] = a ? zm_mpi_at(a, wa, i) : a0;
    for (size_t i = 0; i < n2; i++)
        v[1 + n1 + i] = zm_mpi_at(b, wb, i);
    *n = 1 + n1 + n2;
    return v;
}

/* The array and block-length arguments of the four indexed constructors:
 * the *_block ones take one blocklength, the others an array of them. */
static int indexed_args(const char *fn, int block, MPI_Count count, const void *bl, int64_t bl0,
                        const void *displs)
{
    if (!block) {
        if (count > 0 && (!bl || !displs))
            return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "array argument is NULL");
        return MPI_SUCCESS;
    }
    if (bl0 < 0)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(blocklength=%lld): must be >= 0",
                            (long long)bl0);
    if (count > 0 && !displs)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "array_of_displacements is NULL");
    return MPI_SUCCESS;
}

/* The four indexed constructors.  bl NULL: one block length bl0.
 * Displacements in elements (width `wide`) for MPI_COMBINER_INDEXED(_BLOCK),
 * in bytes (64-bit) for the h forms. */
static int indexed_common(const char *fn, int combiner, MPI_Count count, const void *bl,
                          int64_t bl0, const void *displs, MPI_Datatype old,
                          MPI_Datatype *newtype, int wide)
{
    zm_dt_t *t = NULL;
    zm_status_t st = ZM_OK;
    int block = combiner == MPI_COMBINER_INDEXED_BLOCK || combiner == MPI_COMBINER_HINDEXED_BLOCK;
    int bytes = combiner == MPI_COMBINER_HINDEXED || combiner == MPI_COMBINER_HINDEXED_BLOCK;
    int rc = indexed_args(fn, block, count, bl, bl0, displs);
    if (rc == MPI_SUCCESS)
        rc = check_count(fn, "count", count);
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_check_type(fn, "oldtype", old);
    if (rc != MPI_SUCCESS)
        return rc;
    /* Byte displacements are used as they are; element ones are scaled
     * into a new array.  With count 0 both may be NULL (an empty type):
     * an empty array stands in for them. */
    int owned = !bytes || !displs;
    MPI_Aint *disp = owned ? malloc((size_t)(count ? count : 1) * sizeof(MPI_Aint))
                           : (MPI_Aint *)displs;
    if (!disp)
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    for (MPI_Count i = 0; owned && i < count; i++)
        disp[i] = zm_mpi_at(displs, wide, (size_t)i) * old->extent;
    rc = blocks_common(fn, count, bl, wide, bl0, disp, &old, 1, 0, newtype, &t, &st);
    if (rc == MPI_SUCCESS) {
        size_t n, nb = block ? 1 : (size_t)count;
        int64_t *v = pack_vals(count, bl, wide, bl0, nb, displs, bytes ? 1 : wide,
                               (size_t)count, &n);
        if (!v) {
            if (t)
                zm_dt_release(t);
            rc = zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
        } else {
            rc = type_out_vals(fn, t, st, combiner, wide, v, n, bytes ? 1 + nb : n, 1, &old,
                               newtype);
        }
        free(v);
    }
    if (owned)
        free(disp);
    return rc;
}

int zm_mpi_type_indexed(const char *fn, MPI_Count count, const void *bl, const void *displs,
                        MPI_Datatype old, MPI_Datatype *newtype, int wide)
{
    return indexed_common(fn, MPI_COMBINER_INDEXED, count, bl, 0, displs, old, newtype, wide);
}

int PMPI_Type_indexed(int count, const int bl[], const int displs[], MPI_Datatype old,
                      MPI_Datatype *newtype)
{
    return zm_mpi_type_indexed("MPI_Type_indexed", count, bl, displs, old, newtype, ZM_W32);
}
ZM_WEAK(Type_indexed)

int zm_mpi_type_hindexed(const char *fn, MPI_Count count, const void *bl, const void *displs,
                         MPI_Datatype old, MPI_Datatype *newtype, int wide)
{
    return indexed_common(fn, MPI_COMBINER_HINDEXED, count, bl, 0, displs, old, newtype, wide);
}

int PMPI_Type_create_hindexed(int count, const int bl[], const MPI_Aint displs[],
                              MPI_Datatype old, MPI_Datatype *newtype)
{
    return zm_mpi_type_hindexed("MPI_Type_create_hindexed", count, bl, displs, old, newtype,
                                ZM_W32);
}
ZM_WEAK(Type_create_hindexed)

int zm_mpi_type_indexed_block(const char *fn, MPI_Count count, MPI_Count bl,
                              const void *displs, MPI_Datatype old, MPI_Datatype *newtype,
                              int wide)
{
    return indexed_common(fn, MPI_COMBINER_INDEXED_BLOCK, count, NULL, bl, displs, old, newtype,
                          wide);
}

int PMPI_Type_create_indexed_block(int count, int blocklength, const int displs[],
                                   MPI_Datatype old, MPI_Datatype *newtype)
{
    return zm_mpi_type_indexed_block("MPI_Type_create_indexed_block", count, blocklength,
                                     displs, old, newtype, ZM_W32);
}
ZM_WEAK(Type_create_indexed_block)

int zm_mpi_type_hindexed_block(const char *fn, MPI_Count count, MPI_Count bl,
                               const void *displs, MPI_Datatype old, MPI_Datatype *newtype,
                               int wide)
{
    return indexed_common(fn, MPI_COMBINER_HINDEXED_BLOCK, count, NULL, bl, displs, old,
                          newtype, wide);
}

int PMPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint displs[],
                                    MPI_Datatype old, MPI_Datatype *newtype)
{
    return zm_mpi_type_hindexed_block("MPI_Type_create_hindexed_block", count, blocklength,
                                      displs, old, newtype, ZM_W32);
}
ZM_WEAK(Type_create_hindexed_block)

int zm_mpi_type_struct(const char *fn, MPI_Count count, const void *bl, const void *displs,
                       const MPI_Datatype *types, MPI_Datatype *newtype, int wide)
{
    zm_dt_t *t = NULL;
    zm_status_t st = ZM_OK;
    if (count > 0 && (!bl || !displs || !types))
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "array argument is NULL");
    int rc = blocks_common(fn, count, bl, wide, 0, displs, types, 0, 1, newtype, &t, &st);
    if (rc != MPI_SUCCESS)
        return rc;
    size_t n;
    int64_t *v = pack_vals(count, bl, wide, 0, (size_t)count, displs, 1, (size_t)count, &n);
    if (!v) {
        zm_dt_release(t);
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    rc = type_out_vals(fn, t, st, MPI_COMBINER_STRUCT, wide, v, n, 1 + (size_t)count,
                       (int)count, types, newtype);
    free(v);
    return rc;
}

int PMPI_Type_create_struct(int count, const int bl[], const MPI_Aint displs[],
                            const MPI_Datatype types[], MPI_Datatype *newtype)
{
    return zm_mpi_type_struct("MPI_Type_create_struct", count, bl, displs, types, newtype,
                              ZM_W32);
}
ZM_WEAK(Type_create_struct)

int zm_mpi_type_resized(const char *fn, MPI_Datatype old, MPI_Count lb, MPI_Count extent,
                        MPI_Datatype *newtype, int wide)
{
    zm_status_t st;
    int rc = zm_mpi_check_type(fn, "oldtype", old);
    if (rc == MPI_SUCCESS)
        rc = check_arg(fn, "newtype is NULL", newtype != NULL);
    if (rc != MPI_SUCCESS)
        return rc;
    zm_dt_t *t = zm_dt_create_resized(old, lb, extent, &st);
    int64_t v[2] = { lb, extent };
    return type_out_vals(fn, t, st, MPI_COMBINER_RESIZED, wide, v, 2, 0, 1, &old, newtype);
}

int PMPI_Type_create_resized(MPI_Datatype old, MPI_Aint lb, MPI_Aint extent,
                             MPI_Datatype *newtype)
{
    return zm_mpi_type_resized("MPI_Type_create_resized", old, lb, extent, newtype, ZM_W32);
}
ZM_WEAK(Type_create_resized)

int PMPI_Type_dup(MPI_Datatype old, MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_dup";
    zm_status_t st;
    int rc = zm_mpi_check_type(fn, "oldtype", old);
    if (rc == MPI_SUCCESS)
        rc = check_arg(fn, "newtype is NULL", newtype != NULL);
    if (rc != MPI_SUCCESS)
        return rc;
    zm_dt_t *t = zm_dt_create_clone(old, 0, &st);
    env_t e = { .nd = 1, .types = &old };
    rc = type_out(fn, t, st, MPI_COMBINER_DUP, &e, newtype);
    if (rc == MPI_SUCCESS) {
        /* A duplicate of a committed type is committed (MPI-4 5.1.10). */
        t->committed = old->committed;
        t->usable = old->committed;
        /* Attributes follow through their keyvals' copy callbacks. */
        int cls = zm_mpi_attr_dup(ZM_ATTR_TYPE, old, t);
        if (cls != MPI_SUCCESS) {
            PMPI_Type_free(newtype);
            return zm_mpi_error(NULL, cls, fn, "copying the datatype's attributes failed");
        }
    }
    return rc;
}
ZM_WEAK(Type_dup)

int PMPI_Type_commit(MPI_Datatype *dt)
{
    const char *fn = "MPI_Type_commit";
    int rc = check_arg(fn, "datatype pointer is NULL", dt != NULL);
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_check_type(fn, "datatype", *dt);
    if (rc != MPI_SUCCESS)
        return rc;
    /* The layout was compiled by the constructor; commit only allows use. */
    if ((*dt)->d) {
        (*dt)->committed = 1;
        (*dt)->usable = 1;
    }
    return MPI_SUCCESS;
}
ZM_WEAK(Type_commit)

int PMPI_Type_free(MPI_Datatype *dt)
{
    const char *fn = "MPI_Type_free";
    int rc = check_arg(fn, "datatype pointer is NULL", dt != NULL);
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_check_type(fn, "datatype", *dt);
    if (rc == MPI_SUCCESS && !(*dt)->d)
        rc = zm_mpi_error(NULL, MPI_ERR_TYPE, fn, "(datatype=%s): predefined datatypes cannot "
                          "be freed", (*dt)->name);
    if (rc != MPI_SUCCESS)
        return rc;
    int cls = zm_mpi_attr_free_all(ZM_ATTR_TYPE, *dt);
    if (cls != MPI_SUCCESS)
        return zm_mpi_error(NULL, cls, fn, "an attribute's delete callback failed");
    /* Operations still using the type hold references: the object lives
     * on for them, but the handle is dead for the user. */
    (*dt)->freed = 1;
    (*dt)->usable = 0;
    zm_dt_release(*dt);
    *dt = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}
ZM_WEAK(Type_free)

/* Replace *t by `nt` (made from it), dropping the reference to the old
 * one; returns 0 if nt is NULL (then *t is already released). */
static int step(zm_dt_t **t, zm_dt_t *nt)
{
    zm_dt_release(*t);
    *t = nt;
    return nt != NULL;
}

static int check_array(const char *fn, const char *what, int ok, int i, int64_t v)
{
    if (ok)
        return MPI_SUCCESS;
    return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(%s[%d]=%lld): invalid value", what, i,
                        (long long)v);
}

static int subarray_check(const char *fn, int ndims, const void *sizes, const void *subsizes,
                          const void *starts, int order, MPI_Datatype old,
                          MPI_Datatype *newtype, int wide)
{
    int rc = check_arg(fn, "ndims must be > 0", ndims > 0);
    if (rc == MPI_SUCCESS)
        rc = check_arg(fn, "array argument is NULL", sizes && subsizes && starts && newtype);
    if (rc == MPI_SUCCESS)
        rc = check_arg(fn, "order must be MPI_ORDER_C or MPI_ORDER_FORTRAN",
                       order == MPI_ORDER_C || order == MPI_ORDER_FORTRAN);
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_check_type(fn, "oldtype", old);
    for (int i = 0; rc == MPI_SUCCESS && i < ndims; i++) {
        int64_t n = zm_mpi_at(sizes, wide, (size_t)i), sub = zm_mpi_at(subsizes, wide, (size_t)i);
        int64_t start = zm_mpi_at(starts, wide, (size_t)i);
        rc = check_array(fn, "array_of_sizes", n > 0, i, n);
        if (rc == MPI_SUCCESS)
            rc = check_array(fn, "array_of_subsizes", sub >= 0 && sub <= n, i, sub);
        if (rc == MPI_SUCCESS)
            rc = check_array(fn, "array_of_starts", start >= 0 && start <= n - sub, i, start);
    }
    return rc;
}

/* The envelope of a subarray type: integers ndims and order; sizes,
 * subsizes and starts among the integers (int form) or as large counts
 * (_c form). */
static int subarray_out(const char *fn, zm_dt_t *t, zm_status_t st, int ndims,
                        const void *const arrays[3], int order, MPI_Datatype old,
                        MPI_Datatype *newtype, int wide)
{
    size_t nd = (size_t)ndims;
    int *ints = malloc((3 * nd + 2) * sizeof(int));
    int64_t *counts = malloc(3 * nd * sizeof(int64_t));
    if (!ints || !counts) {
        free(ints);
        free(counts);
        if (t)
            zm_dt_release(t);
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    env_t e = { .nd = 1, .types = &old, .ints = ints };
    ints[0] = ndims;
    for (size_t k = 0; k < 3; k++)
        for (size_t i = 0; i < nd; i++) {
            counts[k * nd + i] = zm_mpi_at(arrays[k], wide, i);
            ints[1 + k * nd + i] = (int)counts[k * nd + i];
        }
    if (wide) {
        ints[1] = order;
        e.ni = 2;
        e.nc = 3 * nd;
        e.counts = counts;
    } else {
        ints[1 + 3 * nd] = order;
        e.ni = 3 * ndims + 2;
    }
    int rc = type_out(fn, t, st, MPI_COMBINER_SUBARRAY, &e, newtype);
    free(ints);
    free(counts);
    return rc;
}

int zm_mpi_type_subarray(const char *fn, int ndims, const void *sizes, const void *subsizes,
                         const void *starts, int order, MPI_Datatype old,
                         MPI_Datatype *newtype, int wide)
{
    zm_status_t st = ZM_OK;
    int rc = subarray_check(fn, ndims, sizes, subsizes, starts, order, old, newtype, wide);
    if (rc != MPI_SUCCESS)
        return rc;
    /* Innermost dimension first: each level is subsizes[d] copies of the
     * level inside it, one row pitch apart. */
    zm_dt_t *t = old;
    MPI_Aint pitch = old->extent, offset = 0;
    zm_dt_retain(t);
    int ok = 1;
    for (int k = 0; k < ndims && ok; k++) {
        size_t d = (size_t)(order == MPI_ORDER_C ? ndims - 1 - k : k);
        ok = step(&t, zm_dt_create_hvector((size_t)zm_mpi_at(subsizes, wide, d), 1, pitch, t,
                                           &st));
        offset += zm_mpi_at(starts, wide, d) * pitch;
        pitch *= zm_mpi_at(sizes, wide, d);
    }
    size_t one = 1;
    const zm_dt_t *tt = t;
    if (ok)
        ok = step(&t, zm_dt_create_struct(1, &one, &offset, &tt, 1, 0, &st));
    if (ok)
        step(&t, zm_dt_create_resized(t, 0, pitch, &st));
    const void *const arrays[3] = { sizes, subsizes, starts };
    return subarray_out(fn, t, st, ndims, arrays, order, old, newtype, wide);
}

int PMPI_Type_create_subarray(int ndims, const int sizes[], const int subsizes[],
                              const int starts[], int order, MPI_Datatype old,
                              MPI_Datatype *newtype)
{
    return zm_mpi_type_subarray("MPI_Type_create_subarray", ndims, sizes, subsizes, starts,
                                order, old, newtype, ZM_W32);
}
ZM_WEAK(Type_create_subarray)

static int darray_check(const char *fn, int size, int rank, int ndims, const void *gsizes,
                        const int distribs[], const int dargs[], const int psizes[], int order,
                        MPI_Datatype old, MPI_Datatype *newtype, int wide)
{
    int rc = check_arg(fn, "size must be > 0 and 0 <= rank < size", size > 0 && rank >= 0 &&
                       rank < size);
    if (rc == MPI_SUCCESS)
        rc = check_arg(fn, "ndims must be > 0", ndims > 0);
    if (rc == MPI_SUCCESS)
        rc = check_arg(fn, "array argument is NULL",
                       gsizes && distribs && dargs && psizes && newtype);
    if (rc == MPI_SUCCESS)
        rc = check_arg(fn, "order must be MPI_ORDER_C or MPI_ORDER_FORTRAN",
                       order == MPI_ORDER_C || order == MPI_ORDER_FORTRAN);
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_check_type(fn, "oldtype", old);
    long procs = 1;
    for (int i = 0; rc == MPI_SUCCESS && i < ndims; i++) {
        int64_t g = zm_mpi_at(gsizes, wide, (size_t)i);
        int p = psizes[i], a = dargs[i], dist = distribs[i];
        procs *= p > 0 ? p : 1;
        rc = check_array(fn, "array_of_gsizes", g > 0, i, g);
        if (rc == MPI_SUCCESS)
            rc = check_array(fn, "array_of_psizes", p > 0, i, p);
        if (rc == MPI_SUCCESS)
            rc = check_array(fn, "array_of_distribs", dist == MPI_DISTRIBUTE_BLOCK ||
                             dist == MPI_DISTRIBUTE_CYCLIC || dist == MPI_DISTRIBUTE_NONE, i, dist);
        if (rc == MPI_SUCCESS)
            rc = check_array(fn, "array_of_dargs", a > 0 || a == MPI_DISTRIBUTE_DFLT_DARG, i, a);
        if (rc == MPI_SUCCESS && dist == MPI_DISTRIBUTE_NONE)
            rc = check_array(fn, "array_of_psizes (MPI_DISTRIBUTE_NONE needs 1)", p == 1, i, p);
        if (rc == MPI_SUCCESS && dist == MPI_DISTRIBUTE_BLOCK && a != MPI_DISTRIBUTE_DFLT_DARG)
            rc = check_array(fn, "array_of_dargs (block * psize < gsize)", (long)a * p >= g, i, a);
    }
    if (rc == MPI_SUCCESS)
        rc = check_arg(fn, "the product of array_of_psizes must equal size", procs == size);
    return rc;
}

/* The blocks of one dimension that process coordinate c owns: starts and
 * lengths in elements.  Returns the number of blocks, -1 if out of memory. */
static long darray_blocks(long g, int dist, int darg, int p, int c, size_t **len,
                          ptrdiff_t **start)
{
    long b, step_, n;
    if (dist == MPI_DISTRIBUTE_NONE) {
        b = g;
        step_ = g;
    } else if (dist == MPI_DISTRIBUTE_BLOCK) {
        b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
        step_ = g + b * p; /* one block only */
    } else {
        b = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
        step_ = b * p;
    }
    long first = dist == MPI_DISTRIBUTE_NONE ? 0 : (long)c * b;
    n = first < g ? (g - first + step_ - 1) / step_ : 0;
    *len = malloc((size_t)(n ? n : 1) * sizeof(size_t));
    *start = malloc((size_t)(n ? n : 1) * sizeof(ptrdiff_t));
    if (!*len || !*start)
        return -1;
    for (long i = 0; i < n; i++) {
        long s = first + i * step_;
        (*start)[i] = s;
        (*len)[i] = (size_t)(g - s < b ? g - s : b);
    }
    return n;
}

/* One level of a darray: the blocks of dimension d over type t. */
static zm_dt_t *darray_level(zm_dt_t *t, MPI_Aint pitch, long g, int dist, int darg, int p,
                             int c, zm_status_t *st)
{
    size_t *len;
    ptrdiff_t *start;
    long n = darray_blocks(g, dist, darg, p, c, &len, &start);
    zm_dt_t *inner = t->extent == pitch ? (zm_dt_retain(t), t)
                                        : zm_dt_create_resized(t, 0, pitch, st);
    zm_dt_t *nt = NULL;
    if (n >= 0 && inner) {
        for (long i = 0; i < n; i++)
            start[i] *= pitch;
        const zm_dt_t *it = inner;
        nt = zm_dt_create_struct((size_t)n, len, start, &it, 1, 0, st);
    } else if (n < 0) {
        *st = ZM_ERR_NOMEM;
    }
    if (inner)
        zm_dt_release(inner);
    free(len);
    free(start);
    return nt;
}

/* The envelope of a darray type: gsizes among the integers (int form) or
 * as the large counts (_c form), the other arguments as integers. */
static int darray_out(const char *fn, zm_dt_t *t, zm_status_t st, const int head[3],
                      const void *gsizes, const int *const arrays[3], int order,
                      MPI_Datatype old, MPI_Datatype *newtype, int wide)
{
    size_t nd = (size_t)head[2], at = 3;
    int *ints = malloc((4 * nd + 4) * sizeof(int));
    int64_t *counts = malloc(nd * sizeof(int64_t));
    if (!ints || !counts) {
        free(ints);
        free(counts);
        if (t)
            zm_dt_release(t);
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    memcpy(ints, head, 3 * sizeof(int));
    for (size_t i = 0; i < nd; i++) {
        counts[i] = zm_mpi_at(gsizes, wide, i);
        if (!wide)
            ints[at++] = (int)counts[i];
    }
    for (size_t k = 0; k < 3; k++, at += nd)
        memcpy(ints + at, arrays[k], nd * sizeof(int));
    ints[at++] = order;
    env_t e = { .ni = (int)at, .ints = ints, .nc = wide ? nd : 0, .counts = counts, .nd = 1,
                .types = &old };
    int rc = type_out(fn, t, st, MPI_COMBINER_DARRAY, &e, newtype);
    free(ints);
    free(counts);
    return rc;
}

int zm_mpi_type_darray(const char *fn, int size, int rank, int ndims, const void *gsizes,
                       const int *distribs, const int *dargs, const int *psizes, int order,
                       MPI_Datatype old, MPI_Datatype *newtype, int wide)
{
    zm_status_t st = ZM_OK;
    int rc = darray_check(fn, size, rank, ndims, gsizes, distribs, dargs, psizes, order, old,
                          newtype, wide);
    if (rc != MPI_SUCCESS)
        return rc;
    int *coord = malloc((size_t)ndims * sizeof(int));
    if (!coord)
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    /* The process grid is row-major whatever the array order. */
    for (int i = ndims - 1, r = rank; i >= 0; i--) {
        coord[i] = r % psizes[i];
        r /= psizes[i];
    }
    zm_dt_t *t = old;
    MPI_Aint pitch = old->extent;
    zm_dt_retain(t);
    int ok = 1;
    for (int k = 0; k < ndims && ok; k++) {
        int d = order == MPI_ORDER_C ? ndims - 1 - k : k;
        long g = (long)zm_mpi_at(gsizes, wide, (size_t)d);
        ok = step(&t, darray_level(t, pitch, g, distribs[d], dargs[d], psizes[d], coord[d],
                                   &st));
        pitch *= g;
    }
    if (ok)
        step(&t, zm_dt_create_resized(t, 0, pitch, &st));
    free(coord);
    const int head[3] = { size, rank, ndims };
    const int *const arrays[3] = { distribs, dargs, psizes };
    return darray_out(fn, t, st, head, gsizes, arrays, order, old, newtype, wide);
}

int PMPI_Type_create_darray(int size, int rank, int ndims, const int gsizes[],
                            const int distribs[], const int dargs[], const int psizes[],
                            int order, MPI_Datatype old, MPI_Datatype *newtype)
{
    return zm_mpi_type_darray("MPI_Type_create_darray", size, rank, ndims, gsizes, distribs,
                              dargs, psizes, order, old, newtype, ZM_W32);
}
ZM_WEAK(Type_create_darray)
