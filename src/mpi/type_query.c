/*
 * type_query.c: datatype queries (size, extents, envelope, contents, names,
 * element counts, addresses), MPI_Pack/MPI_Unpack, their external32 forms,
 * and the deprecated MPI-1 datatype calls as thin wrappers.
 */
#include "large.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int zm_mpi_check_type(const char *fn, const char *what, MPI_Datatype dt);

static int check_ptr(const char *fn, const char *what, const void *p)
{
    if (p)
        return MPI_SUCCESS;
    return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(%s=NULL): invalid pointer", what);
}

int zm_mpi_type_size(const char *fn, MPI_Datatype dt, MPI_Count *size)
{
    int rc = zm_mpi_check_type(fn, "datatype", dt);
    if (rc == MPI_SUCCESS)
        rc = check_ptr(fn, "size", size);
    if (rc == MPI_SUCCESS)
        *size = (MPI_Count)dt->size;
    return rc;
}

int PMPI_Type_size_x(MPI_Datatype dt, MPI_Count *size)
{
    return zm_mpi_type_size("MPI_Type_size_x", dt, size);
}
ZM_WEAK(Type_size_x)

int PMPI_Type_size(MPI_Datatype dt, int *size)
{
    MPI_Count n;
    int rc = zm_mpi_type_size("MPI_Type_size", dt, size ? &n : NULL);
    /* MPI 4.1 section 5.1.5: a size an int cannot hold is MPI_UNDEFINED. */
    if (rc == MPI_SUCCESS)
        *size = zm_mpi_fits_int(n) ? (int)n : MPI_UNDEFINED;
    return rc;
}
ZM_WEAK(Type_size)

/* Bounds of dt: its lower bound and extent, or its true ones. */
static int extent_of(const char *fn, MPI_Datatype dt, MPI_Count *lb, MPI_Count *extent, int true_)
{
    int rc = zm_mpi_check_type(fn, "datatype", dt);
    if (rc == MPI_SUCCESS && (!lb || !extent))
        rc = check_ptr(fn, true_ ? "true_lb or true_extent" : "lb or extent", NULL);
    if (rc != MPI_SUCCESS)
        return rc;
    *lb = true_ ? dt->true_lb : dt->lb;
    *extent = true_ ? dt->true_ub - dt->true_lb : dt->extent;
    return MPI_SUCCESS;
}

int zm_mpi_type_get_extent(const char *fn, MPI_Datatype dt, MPI_Count *lb, MPI_Count *extent)
{
    return extent_of(fn, dt, lb, extent, 0);
}

int zm_mpi_type_get_true_extent(const char *fn, MPI_Datatype dt, MPI_Count *lb,
                                MPI_Count *extent)
{
    return extent_of(fn, dt, lb, extent, 1);
}

/* MPI_Aint and MPI_Count are both 64 bits here, so the int forms and the
 * _x forms write straight through. */
int PMPI_Type_get_extent(MPI_Datatype dt, MPI_Aint *lb, MPI_Aint *extent)
{
    return zm_mpi_type_get_extent("MPI_Type_get_extent", dt, lb, extent);
}
ZM_WEAK(Type_get_extent)

int PMPI_Type_get_extent_x(MPI_Datatype dt, MPI_Count *lb, MPI_Count *extent)
{
    return zm_mpi_type_get_extent("MPI_Type_get_extent_x", dt, lb, extent);
}
ZM_WEAK(Type_get_extent_x)

int PMPI_Type_get_true_extent(MPI_Datatype dt, MPI_Aint *lb, MPI_Aint *extent)
{
    return zm_mpi_type_get_true_extent("MPI_Type_get_true_extent", dt, lb, extent);
}
ZM_WEAK(Type_get_true_extent)

int PMPI_Type_get_true_extent_x(MPI_Datatype dt, MPI_Count *lb, MPI_Count *extent)
{
    return zm_mpi_type_get_true_extent("MPI_Type_get_true_extent_x", dt, lb, extent);
}
ZM_WEAK(Type_get_true_extent_x)

int zm_mpi_type_get_envelope(const char *fn, MPI_Datatype dt, MPI_Count *ni, MPI_Count *na,
                             MPI_Count *nc, MPI_Count *nd, int *combiner)
{
    int rc = zm_mpi_check_type(fn, "datatype", dt);
    if (rc == MPI_SUCCESS && (!ni || !na || !nc || !nd || !combiner))
        rc = check_ptr(fn, "an output argument", NULL);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!dt->d) {
        *ni = *na = *nc = *nd = 0;
        *combiner = MPI_COMBINER_NAMED;
        return MPI_SUCCESS;
    }
    *ni = dt->d->ni;
    *na = dt->d->na;
    *nc = (MPI_Count)dt->d->nc;
    *nd = dt->d->nd;
    *combiner = dt->d->combiner;
    return MPI_SUCCESS;
}

/* A type made by a _c constructor has large counts in its envelope, which
 * the int forms cannot return (MPI 4.1 section 5.1.13). */
static int envelope_large(const char *fn, MPI_Datatype dt)
{
    return zm_mpi_error(NULL, MPI_ERR_VALUE_TOO_LARGE, fn, "(datatype=%s): made by a large-count "
                        "constructor, its envelope holds %zu large counts; call %s_c", dt->name,
                        dt->d->nc, fn);
}

int PMPI_Type_get_envelope(MPI_Datatype dt, int *ni, int *na, int *nd, int *combiner)
{
    const char *fn = "MPI_Type_get_envelope";
    MPI_Count i, a, c, d;
    int rc = zm_mpi_type_get_envelope(fn, dt, ni ? &i : NULL, na ? &a : NULL, &c,
                                      nd ? &d : NULL, combiner);
    if (rc != MPI_SUCCESS)
        return rc;
    if (c)
        return envelope_large(fn, dt);
    *ni = (int)i;
    *na = (int)a;
    *nd = (int)d;
    return MPI_SUCCESS;
}
ZM_WEAK(Type_get_envelope)

int zm_mpi_type_get_contents(const char *fn, MPI_Datatype dt, MPI_Count max_integers,
                             MPI_Count max_addresses, MPI_Count max_large_counts,
                             MPI_Count max_datatypes, int ints[], MPI_Aint aints[],
                             MPI_Count counts[], MPI_Datatype types[])
{
    int rc = zm_mpi_check_type(fn, "datatype", dt);
    if (rc == MPI_SUCCESS && !dt->d)
        rc = zm_mpi_error(NULL, MPI_ERR_TYPE, fn, "(datatype=%s): predefined datatypes have "
                          "no contents (combiner MPI_COMBINER_NAMED)", dt->name);
    if (rc != MPI_SUCCESS)
        return rc;
    const struct zm_dt_derived *d = dt->d;
    if (max_integers < d->ni || max_addresses < d->na || max_datatypes < d->nd ||
        max_large_counts < (MPI_Count)d->nc)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "arrays too small: need %d integers, %d "
                            "addresses, %zu large counts, %d datatypes", d->ni, d->na, d->nc,
                            d->nd);
    if ((d->ni && !ints) || (d->na && !aints) || (d->nd && !types) || (d->nc && !counts))
        return check_ptr(fn, "an output array", NULL);
    if (d->ni)
        memcpy(ints, d->ints, (size_t)d->ni * sizeof(int));
    if (d->na)
        memcpy(aints, d->aints, (size_t)d->na * sizeof(MPI_Aint));
    if (d->nc)
        memcpy(counts, d->counts, d->nc * sizeof(MPI_Count));
    /* Derived types come back as new handles the caller frees. */
    for (int i = 0; i < d->nd; i++) {
        const zm_dt_t *t = d->types[i];
        zm_status_t st;
        if (!t->d) {
            types[i] = (MPI_Datatype)t;
            continue;
        }
        zm_dt_t *c = zm_dt_create_clone(t, 1, &st);
        if (!c) {
            while (i-- > 0)
                if (types[i]->d)
                    zm_dt_release(types[i]);
            return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
        }
        memcpy(c->d->name, t->d->name, sizeof c->d->name);
        c->committed = t->committed;
        c->usable = t->committed;
        types[i] = c;
    }
    return MPI_SUCCESS;
}

int PMPI_Type_get_contents(MPI_Datatype dt, int max_integers, int max_addresses,
                           int max_datatypes, int ints[], MPI_Aint aints[],
                           MPI_Datatype types[])
{
    const char *fn = "MPI_Type_get_contents";
    if (zm_dt_valid(dt) && !dt->freed && dt->d && dt->d->nc)
        return envelope_large(fn, dt);
    return zm_mpi_type_get_contents(fn, dt, max_integers, max_addresses, 0, max_datatypes,
                                    ints, aints, NULL, types);
}
ZM_WEAK(Type_get_contents)

/*
 * Names of predefined datatypes.  Each virtual rank is an MPI process, so a
 * rank that renames MPI_INT changes what MPI_Type_get_name says in that
 * rank only, while the shared predefined object keeps its standard name
 * (which error messages go on using).  The names a rank gave live in a
 * small array in its API state, looked up by handle: programs rename a
 * few types at most.  The array lives as long as the process (in a job
 * whose ranks have regions, in the rank's heap, so that it moves with the
 * rank: zm_core_obj_alloc).
 */
struct zm_mpi_type_names {
    int n, cap;                      /* entries used and allocated */
    struct type_name {
        const zm_dt_t *dt;           /* a predefined datatype */
        char name[MPI_MAX_OBJECT_NAME];
    } *e;
};

/* The calling rank's name for predefined type dt, or NULL if it gave none. */
static struct type_name *type_name_find(const zm_mpi_rank_t *me, const zm_dt_t *dt)
{
    const struct zm_mpi_type_names *t = me ? me->type_names : NULL;
    for (int i = 0; t && i < t->n; i++)
        if (t->e[i].dt == dt)
            return &t->e[i];
    return NULL;
}

/* Record the calling rank's name for predefined type dt; returns
 * MPI_SUCCESS or the raised MPI_ERR_NO_MEM. */
static int type_name_set(zm_mpi_rank_t *me, const char *fn, const zm_dt_t *dt, const char *name)
{
    struct type_name *e = type_name_find(me, dt);
    struct zm_mpi_type_names *t = me->type_names;
    if (!e) {
        if (!t && !(t = me->type_names = zm_core_obj_calloc(1, sizeof(*t))))
            return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
        if (t->n == t->cap) {
            int cap = t->cap ? 2 * t->cap : 8;
            struct type_name *ne = zm_core_obj_realloc(t->e, (size_t)cap * sizeof(*ne));
            if (!ne)
                return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
            t->e = ne;
            t->cap = cap;
        }
        e = &t->e[t->n++];
        e->dt = dt;
    }
    snprintf(e->name, sizeof e->name, "%s", name);
    return MPI_SUCCESS;
}

int PMPI_Type_set_name(MPI_Datatype dt, const char *name)
{
    const char *fn = "MPI_Type_set_name";
    int rc = zm_mpi_check_type(fn, "datatype", dt);
    if (rc == MPI_SUCCESS)
        rc = check_ptr(fn, "type_name", name);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!dt->d)
        return type_name_set(zm_mpi_enter(fn), fn, dt, name);
    snprintf(dt->d->name, sizeof dt->d->name, "%s", name);
    dt->d->named = 1;
    return MPI_SUCCESS;
}
ZM_WEAK(Type_set_name)

int PMPI_Type_get_name(MPI_Datatype dt, char *name, int *resultlen)
{
    const char *fn = "MPI_Type_get_name";
    /* MPI 4.1 section 7.8: MPI_DATATYPE_NULL may be asked too. */
    if (dt == MPI_DATATYPE_NULL && name && resultlen) {
        zm_mpi_enter(fn);
        *resultlen = snprintf(name, MPI_MAX_OBJECT_NAME, "MPI_DATATYPE_NULL");
        return MPI_SUCCESS;
    }
    int rc = zm_mpi_check_type(fn, "datatype", dt);
    if (rc == MPI_SUCCESS && (!name || !resultlen))
        rc = check_ptr(fn, "type_name or resultlen", NULL);
    if (rc != MPI_SUCCESS)
        return rc;
    /* An unnamed derived type has the empty name; a predefined one the
     * name this rank gave it, else its standard name. */
    const char *s = dt->name;
    if (dt->d && !dt->d->named) {
        s = "";
    } else if (!dt->d) {
        const struct type_name *e = type_name_find(zm_mpi_me(), dt);
        if (e)
            s = e->name;
    }
    snprintf(name, MPI_MAX_OBJECT_NAME, "%s", s);
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}
ZM_WEAK(Type_get_name)

int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype dt, MPI_Count *count)
{
    return zm_mpi_status_count("MPI_Get_elements_x", status, dt, count, 1);
}
ZM_WEAK(Get_elements_x)

int PMPI_Get_address(const void *location, MPI_Aint *address)
{
    int rc = check_ptr("MPI_Get_address", "address", address);
    if (rc == MPI_SUCCESS)
        *address = (MPI_Aint)(uintptr_t)location;
    return rc;
}
ZM_WEAK(Get_address)

MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}
ZM_WEAK(Aint_add)

MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}
ZM_WEAK(Aint_diff)

/* ---- Deprecated MPI-1 calls (removed in MPI-3; kept for old codes such
 * as HPL/HPCC).  Each is its modern replacement under the old name. ---- */

int PMPI_Address(void *location, MPI_Aint *address)
{
    return PMPI_Get_address(location, address);
}
ZM_WEAK(Address)

int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype old,
                      MPI_Datatype *newtype)
{
    return PMPI_Type_create_hvector(count, blocklength, stride, old, newtype);
}
ZM_WEAK(Type_hvector)

int PMPI_Type_hindexed(int count, int bl[], MPI_Aint displs[], MPI_Datatype old,
                       MPI_Datatype *newtype)
{
    return PMPI_Type_create_hindexed(count, bl, displs, old, newtype);
}
ZM_WEAK(Type_hindexed)

int PMPI_Type_struct(int count, int bl[], MPI_Aint displs[], MPI_Datatype types[],
                     MPI_Datatype *newtype)
{
    return PMPI_Type_create_struct(count, bl, displs, types, newtype);
}
ZM_WEAK(Type_struct)

int PMPI_Type_extent(MPI_Datatype dt, MPI_Aint *extent)
{
    MPI_Aint lb;
    return PMPI_Type_get_extent(dt, &lb, extent);
}
ZM_WEAK(Type_extent)

int PMPI_Type_lb(MPI_Datatype dt, MPI_Aint *lb)
{
    MPI_Aint extent;
    return PMPI_Type_get_extent(dt, lb, &extent);
}
ZM_WEAK(Type_lb)

int PMPI_Type_ub(MPI_Datatype dt, MPI_Aint *ub)
{
    MPI_Aint lb, extent;
    int rc = PMPI_Type_get_extent(dt, &lb, &extent);
    if (rc == MPI_SUCCESS)
        *ub = lb + extent;
    return rc;
}
ZM_WEAK(Type_ub)
