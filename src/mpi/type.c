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
#include "mpi_impl.h"

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

static int check_count(const char *fn, const char *what, int v)
{
    if (v >= 0)
        return MPI_SUCCESS;
    return zm_mpi_error(NULL, MPI_ERR_COUNT, fn, "(%s=%d): must be >= 0", what, v);
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

/* Hand a new type to the user: record its envelope, name it after its
 * constructor, store the handle.  Consumes t on failure. */
static int type_out(const char *fn, zm_dt_t *t, zm_status_t st, int combiner, int ni,
                    const int *ints, int na, const MPI_Aint *aints, int nd,
                    const MPI_Datatype *types, MPI_Datatype *out)
{
    if (!t && st == ZM_ERR_ARG)
        return zm_mpi_error(NULL, MPI_ERR_TYPE, fn,
                            "datatype nested too deeply (more than %d levels that do not "
                            "simplify)", ZM_DT_MAX_DEPTH);
    if (!t)
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory for a datatype");
    if (zm_dt_set_envelope(t, combiner, ni, ints, na, (const ptrdiff_t *)aints, nd,
                           (const zm_dt_t *const *)types) != ZM_OK) {
        zm_dt_release(t);
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory for a datatype");
    }
    snprintf(t->d->name, sizeof t->d->name, "(datatype from %s)", combiner_names[combiner]);
    *out = t;
    return MPI_SUCCESS;
}

int PMPI_Type_contiguous(int count, MPI_Datatype old, MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_contiguous";
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
    return type_out(fn, t, st, MPI_COMBINER_CONTIGUOUS, 1, &count, 0, NULL, 1, &old, newtype);
}
ZM_WEAK(Type_contiguous)

/* Shared by the vector constructors: stride in bytes. */
static int vector_common(const char *fn, int count, int bl, MPI_Aint stride, MPI_Datatype old,
                         MPI_Datatype *newtype, zm_dt_t **t, zm_status_t *st)
{
    int rc = check_count(fn, "count", count);
    if (rc == MPI_SUCCESS)
        rc = check_count(fn, "blocklength", bl);
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_check_type(fn, "oldtype", old);
    if (rc == MPI_SUCCESS)
        rc = check_arg(fn, "newtype is NULL", newtype != NULL);
    if (rc == MPI_SUCCESS)
        rc = check_size(fn, (size_t)count * (size_t)bl, old);
    if (rc != MPI_SUCCESS)
        return rc;
    *t = zm_dt_create_hvector((size_t)count, (size_t)bl, stride, old, st);
    return MPI_SUCCESS;
}

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype old,
                     MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_vector";
    zm_dt_t *t;
    zm_status_t st;
    int rc = zm_mpi_check_type(fn, "oldtype", old);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = vector_common(fn, count, blocklength, (MPI_Aint)stride * old->extent, old, newtype,
                       &t, &st);
    if (rc != MPI_SUCCESS)
        return rc;
    int ints[3] = { count, blocklength, stride };
    return type_out(fn, t, st, MPI_COMBINER_VECTOR, 3, ints, 0, NULL, 1, &old, newtype);
}
ZM_WEAK(Type_vector)

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype old,
                             MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_hvector";
    zm_dt_t *t;
    zm_status_t st;
    int rc = vector_common(fn, count, blocklength, stride, old, newtype, &t, &st);
    if (rc != MPI_SUCCESS)
        return rc;
    int ints[2] = { count, blocklength };
    return type_out(fn, t, st, MPI_COMBINER_HVECTOR, 2, ints, 1, &stride, 1, &old, newtype);
}
ZM_WEAK(Type_create_hvector)

/* Shared by the indexed and struct constructors: bl[i] (or bl0 for all
 * if bl is NULL), byte displacements disp[i], types[i] (or types[0]). */
static int blocks_common(const char *fn, int count, const int *bl, int bl0,
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
    for (int i = 0; i < count && rc == MPI_SUCCESS; i++) {
        MPI_Datatype T = types[one_type ? 0 : i];
        int v = bl ? bl[i] : bl0;
        if (v < 0)
            rc = zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(blocklength[%d]=%d): must be >= 0", i, v);
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

/* Element displacements times the old extent, in a new array (raises the
 * error and returns NULL if out of memory).  displs may be NULL when count
 * is 0. */
static MPI_Aint *scale_displs(const char *fn, int count, const int *displs, MPI_Aint ext)
{
    MPI_Aint *d = malloc((size_t)(count ? count : 1) * sizeof(MPI_Aint));
    if (!d) {
        zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
        return NULL;
    }
    for (int i = 0; i < count; i++)
        d[i] = (MPI_Aint)displs[i] * ext;
    return d;
}

/* Envelope ints of the indexed forms: count, then a[], then b[]. */
static int *pack_ints(int count, const int *a, int na, const int *b, int nb, int *n)
{
    int *v = malloc((size_t)(1 + na + nb) * sizeof(int));
    if (!v)
        return NULL;
    v[0] = count;
    /* With count 0 the arrays may be NULL, which memcpy must not see. */
    if (na)
        memcpy(v + 1, a, (size_t)na * sizeof(int));
    if (nb)
        memcpy(v + 1 + na, b, (size_t)nb * sizeof(int));
    *n = 1 + na + nb;
    return v;
}

/* The four indexed constructors.  bl NULL: one block length bl0.  Either
 * idispl (element units) or adispl (bytes). */
/* The array and block-length arguments of the four indexed constructors:
 * the *_block ones take one blocklength, the others an array of them. */
static int indexed_args(const char *fn, int combiner, int count, const int *bl, int bl0,
                        const void *displs)
{
    int block = combiner == MPI_COMBINER_INDEXED_BLOCK || combiner == MPI_COMBINER_HINDEXED_BLOCK;
    if (!block) {
        if (count > 0 && (!bl || !displs))
            return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "array argument is NULL");
        return MPI_SUCCESS;
    }
    if (bl0 < 0)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(blocklength=%d): must be >= 0", bl0);
    if (count > 0 && !displs)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "array_of_displacements is NULL");
    return MPI_SUCCESS;
}

static int indexed_common(const char *fn, int combiner, int count, const int *bl, int bl0,
                          const int *idispl, const MPI_Aint *adispl, MPI_Datatype old,
                          MPI_Datatype *newtype)
{
    zm_dt_t *t = NULL;
    zm_status_t st = ZM_OK;
    int rc = indexed_args(fn, combiner, count, bl, bl0,
                          idispl ? (const void *)idispl : (const void *)adispl);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = check_count(fn, "count", count);
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_check_type(fn, "oldtype", old);
    if (rc != MPI_SUCCESS)
        return rc;
    /* Byte displacements are used as they are; element ones are scaled
     * into a new array.  With count 0 both may be NULL (an empty type):
     * an empty array stands in for them. */
    int owned = idispl || !adispl;
    MPI_Aint *disp = owned ? scale_displs(fn, count, idispl, old->extent) : (MPI_Aint *)adispl;
    if (!disp)
        return MPI_ERR_NO_MEM; /* raised by scale_displs */
    rc = blocks_common(fn, count, bl, bl0, disp, &old, 1, 0, newtype, &t, &st);
    int ni = 0, *ints = NULL;
    if (rc == MPI_SUCCESS) {
        /* The *_block forms record their one blocklength, the others an
         * array of count (which may be NULL when count is 0). */
        int block = combiner == MPI_COMBINER_INDEXED_BLOCK ||
                    combiner == MPI_COMBINER_HINDEXED_BLOCK;
        ints = pack_ints(count, block ? &bl0 : bl, block ? 1 : count, idispl,
                         idispl ? count : 0, &ni);
        if (!ints)
            st = ZM_ERR_NOMEM;
        if (!ints && t)
            zm_dt_release(t);
        rc = type_out(fn, ints ? t : NULL, st, combiner, ni, ints, idispl ? 0 : count, adispl,
                      1, &old, newtype);
    }
    free(ints);
    if (owned)
        free(disp);
    return rc;
}

int PMPI_Type_indexed(int count, const int bl[], const int displs[], MPI_Datatype old,
                      MPI_Datatype *newtype)
{
    return indexed_common("MPI_Type_indexed", MPI_COMBINER_INDEXED, count, bl, 0, displs, NULL,
                          old, newtype);
}
ZM_WEAK(Type_indexed)

int PMPI_Type_create_hindexed(int count, const int bl[], const MPI_Aint displs[],
                              MPI_Datatype old, MPI_Datatype *newtype)
{
    return indexed_common("MPI_Type_create_hindexed", MPI_COMBINER_HINDEXED, count, bl, 0, NULL,
                          displs, old, newtype);
}
ZM_WEAK(Type_create_hindexed)

int PMPI_Type_create_indexed_block(int count, int blocklength, const int displs[],
                                   MPI_Datatype old, MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_indexed_block";
    return indexed_common(fn, MPI_COMBINER_INDEXED_BLOCK, count, NULL, blocklength, displs, NULL,
                          old, newtype);
}
ZM_WEAK(Type_create_indexed_block)

int PMPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint displs[],
                                    MPI_Datatype old, MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_hindexed_block";
    return indexed_common(fn, MPI_COMBINER_HINDEXED_BLOCK, count, NULL, blocklength, NULL,
                          displs, old, newtype);
}
ZM_WEAK(Type_create_hindexed_block)

int PMPI_Type_create_struct(int count, const int bl[], const MPI_Aint displs[],
                            const MPI_Datatype types[], MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_struct";
    zm_dt_t *t = NULL;
    zm_status_t st = ZM_OK;
    if (count > 0 && (!bl || !displs || !types))
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "array argument is NULL");
    int rc = blocks_common(fn, count, bl, 0, displs, types, 0, 1, newtype, &t, &st);
    if (rc != MPI_SUCCESS)
        return rc;
    int ni = 0, *ints = pack_ints(count, bl, count, NULL, 0, &ni);
    if (!ints) {
        zm_dt_release(t);
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    rc = type_out(fn, t, st, MPI_COMBINER_STRUCT, ni, ints, count, displs, count, types,
                  newtype);
    free(ints);
    return rc;
}
ZM_WEAK(Type_create_struct)

int PMPI_Type_create_resized(MPI_Datatype old, MPI_Aint lb, MPI_Aint extent,
                             MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_resized";
    zm_status_t st;
    int rc = zm_mpi_check_type(fn, "oldtype", old);
    if (rc == MPI_SUCCESS)
        rc = check_arg(fn, "newtype is NULL", newtype != NULL);
    if (rc != MPI_SUCCESS)
        return rc;
    zm_dt_t *t = zm_dt_create_resized(old, lb, extent, &st);
    MPI_Aint a[2] = { lb, extent };
    return type_out(fn, t, st, MPI_COMBINER_RESIZED, 0, NULL, 2, a, 1, &old, newtype);
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
    rc = type_out(fn, t, st, MPI_COMBINER_DUP, 0, NULL, 0, NULL, 1, &old, newtype);
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

static int check_array(const char *fn, const char *what, int ok, int i, int v)
{
    if (ok)
        return MPI_SUCCESS;
    return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(%s[%d]=%d): invalid value", what, i, v);
}

static int subarray_check(const char *fn, int ndims, const int sizes[], const int subsizes[],
                          const int starts[], int order, MPI_Datatype old,
                          MPI_Datatype *newtype)
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
        rc = check_array(fn, "array_of_sizes", sizes[i] > 0, i, sizes[i]);
        if (rc == MPI_SUCCESS)
            rc = check_array(fn, "array_of_subsizes", subsizes[i] >= 0 && subsizes[i] <= sizes[i],
                             i, subsizes[i]);
        if (rc == MPI_SUCCESS)
            rc = check_array(fn, "array_of_starts",
                             starts[i] >= 0 && starts[i] <= sizes[i] - subsizes[i], i, starts[i]);
    }
    return rc;
}

int PMPI_Type_create_subarray(int ndims, const int sizes[], const int subsizes[],
                              const int starts[], int order, MPI_Datatype old,
                              MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_subarray";
    zm_status_t st = ZM_OK;
    int rc = subarray_check(fn, ndims, sizes, subsizes, starts, order, old, newtype);
    if (rc != MPI_SUCCESS)
        return rc;
    /* Innermost dimension first: each level is subsizes[d] copies of the
     * level inside it, one row pitch apart. */
    zm_dt_t *t = old;
    MPI_Aint pitch = old->extent, offset = 0;
    zm_dt_retain(t);
    int ok = 1;
    for (int k = 0; k < ndims && ok; k++) {
        int d = order == MPI_ORDER_C ? ndims - 1 - k : k;
        ok = step(&t, zm_dt_create_hvector((size_t)subsizes[d], 1, pitch, t, &st));
        offset += (MPI_Aint)starts[d] * pitch;
        pitch *= sizes[d];
    }
    size_t one = 1;
    const zm_dt_t *tt = t;
    if (ok)
        ok = step(&t, zm_dt_create_struct(1, &one, &offset, &tt, 1, 0, &st));
    if (ok)
        step(&t, zm_dt_create_resized(t, 0, pitch, &st));
    int *ints = malloc((size_t)(3 * ndims + 2) * sizeof(int));
    if (!ints) {
        if (t)
            zm_dt_release(t);
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    ints[0] = ndims;
    memcpy(ints + 1, sizes, (size_t)ndims * sizeof(int));
    memcpy(ints + 1 + ndims, subsizes, (size_t)ndims * sizeof(int));
    memcpy(ints + 1 + 2 * ndims, starts, (size_t)ndims * sizeof(int));
    ints[1 + 3 * ndims] = order;
    rc = type_out(fn, t, st, MPI_COMBINER_SUBARRAY, 3 * ndims + 2, ints, 0, NULL, 1, &old,
                  newtype);
    free(ints);
    return rc;
}
ZM_WEAK(Type_create_subarray)

static int darray_check(const char *fn, int size, int rank, int ndims, const int gsizes[],
                        const int distribs[], const int dargs[], const int psizes[], int order,
                        MPI_Datatype old, MPI_Datatype *newtype)
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
        int g = gsizes[i], p = psizes[i], a = dargs[i], dist = distribs[i];
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
static long darray_blocks(int g, int dist, int darg, int p, int c, size_t **len, ptrdiff_t **start)
{
    long b, step_, n;
    if (dist == MPI_DISTRIBUTE_NONE) {
        b = g;
        step_ = g;
    } else if (dist == MPI_DISTRIBUTE_BLOCK) {
        b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
        step_ = (long)g + b * p; /* one block only */
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
static zm_dt_t *darray_level(zm_dt_t *t, MPI_Aint pitch, int g, int dist, int darg, int p,
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

int PMPI_Type_create_darray(int size, int rank, int ndims, const int gsizes[],
                            const int distribs[], const int dargs[], const int psizes[],
                            int order, MPI_Datatype old, MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_darray";
    zm_status_t st = ZM_OK;
    int rc = darray_check(fn, size, rank, ndims, gsizes, distribs, dargs, psizes, order, old,
                          newtype);
    if (rc != MPI_SUCCESS)
        return rc;
    int *ints = malloc((size_t)(4 * ndims + 4) * sizeof(int));
    int *coord = malloc((size_t)ndims * sizeof(int));
    if (!ints || !coord) {
        free(ints);
        free(coord);
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    }
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
        ok = step(&t, darray_level(t, pitch, gsizes[d], distribs[d], dargs[d], psizes[d],
                                   coord[d], &st));
        pitch *= gsizes[d];
    }
    if (ok)
        step(&t, zm_dt_create_resized(t, 0, pitch, &st));
    ints[0] = size;
    ints[1] = rank;
    ints[2] = ndims;
    memcpy(ints + 3, gsizes, (size_t)ndims * sizeof(int));
    memcpy(ints + 3 + ndims, distribs, (size_t)ndims * sizeof(int));
    memcpy(ints + 3 + 2 * ndims, dargs, (size_t)ndims * sizeof(int));
    memcpy(ints + 3 + 3 * ndims, psizes, (size_t)ndims * sizeof(int));
    ints[3 + 4 * ndims] = order;
    rc = type_out(fn, t, st, MPI_COMBINER_DARRAY, 4 * ndims + 4, ints, 0, NULL, 1, &old,
                  newtype);
    free(ints);
    free(coord);
    return rc;
}
ZM_WEAK(Type_create_darray)
