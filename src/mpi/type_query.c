/*
 * type_query.c: datatype queries (size, extents, envelope, contents, names,
 * element counts, addresses), MPI_Pack/MPI_Unpack, their external32 forms,
 * and the deprecated MPI-1 datatype calls as thin wrappers.
 */
#include "mpi_impl.h"

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

int PMPI_Type_size_x(MPI_Datatype dt, MPI_Count *size)
{
    int rc = zm_mpi_check_type("MPI_Type_size_x", "datatype", dt);
    if (rc == MPI_SUCCESS)
        rc = check_ptr("MPI_Type_size_x", "size", size);
    if (rc == MPI_SUCCESS)
        *size = (MPI_Count)dt->size;
    return rc;
}
ZM_WEAK(Type_size_x)

int PMPI_Type_size(MPI_Datatype dt, int *size)
{
    int rc = zm_mpi_check_type("MPI_Type_size", "datatype", dt);
    if (rc == MPI_SUCCESS)
        rc = check_ptr("MPI_Type_size", "size", size);
    if (rc == MPI_SUCCESS)
        *size = dt->size > INT32_MAX ? MPI_UNDEFINED : (int)dt->size;
    return rc;
}
ZM_WEAK(Type_size)

int PMPI_Type_get_extent(MPI_Datatype dt, MPI_Aint *lb, MPI_Aint *extent)
{
    int rc = zm_mpi_check_type("MPI_Type_get_extent", "datatype", dt);
    if (rc == MPI_SUCCESS && (!lb || !extent))
        rc = check_ptr("MPI_Type_get_extent", "lb or extent", NULL);
    if (rc == MPI_SUCCESS) {
        *lb = dt->lb;
        *extent = dt->extent;
    }
    return rc;
}
ZM_WEAK(Type_get_extent)

int PMPI_Type_get_extent_x(MPI_Datatype dt, MPI_Count *lb, MPI_Count *extent)
{
    MPI_Aint l, e;
    int rc = PMPI_Type_get_extent(dt, &l, &e);
    if (rc == MPI_SUCCESS && lb && extent) {
        *lb = l;
        *extent = e;
    }
    return rc;
}
ZM_WEAK(Type_get_extent_x)

int PMPI_Type_get_true_extent(MPI_Datatype dt, MPI_Aint *lb, MPI_Aint *extent)
{
    int rc = zm_mpi_check_type("MPI_Type_get_true_extent", "datatype", dt);
    if (rc == MPI_SUCCESS && (!lb || !extent))
        rc = check_ptr("MPI_Type_get_true_extent", "true_lb or true_extent", NULL);
    if (rc == MPI_SUCCESS) {
        *lb = dt->true_lb;
        *extent = dt->true_ub - dt->true_lb;
    }
    return rc;
}
ZM_WEAK(Type_get_true_extent)

int PMPI_Type_get_true_extent_x(MPI_Datatype dt, MPI_Count *lb, MPI_Count *extent)
{
    MPI_Aint l, e;
    int rc = PMPI_Type_get_true_extent(dt, &l, &e);
    if (rc == MPI_SUCCESS && lb && extent) {
        *lb = l;
        *extent = e;
    }
    return rc;
}
ZM_WEAK(Type_get_true_extent_x)

int PMPI_Type_get_envelope(MPI_Datatype dt, int *ni, int *na, int *nd, int *combiner)
{
    const char *fn = "MPI_Type_get_envelope";
    int rc = zm_mpi_check_type(fn, "datatype", dt);
    if (rc == MPI_SUCCESS && (!ni || !na || !nd || !combiner))
        rc = check_ptr(fn, "an output argument", NULL);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!dt->d) {
        *ni = *na = *nd = 0;
        *combiner = MPI_COMBINER_NAMED;
        return MPI_SUCCESS;
    }
    *ni = dt->d->ni;
    *na = dt->d->na;
    *nd = dt->d->nd;
    *combiner = dt->d->combiner;
    return MPI_SUCCESS;
}
ZM_WEAK(Type_get_envelope)

int PMPI_Type_get_contents(MPI_Datatype dt, int max_integers, int max_addresses,
                           int max_datatypes, int ints[], MPI_Aint aints[],
                           MPI_Datatype types[])
{
    const char *fn = "MPI_Type_get_contents";
    int rc = zm_mpi_check_type(fn, "datatype", dt);
    if (rc == MPI_SUCCESS && !dt->d)
        rc = zm_mpi_error(NULL, MPI_ERR_TYPE, fn, "(datatype=%s): predefined datatypes have "
                          "no contents (combiner MPI_COMBINER_NAMED)", dt->name);
    if (rc != MPI_SUCCESS)
        return rc;
    const struct zm_dt_derived *d = dt->d;
    if (max_integers < d->ni || max_addresses < d->na || max_datatypes < d->nd)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "arrays too small: need %d integers, %d "
                            "addresses, %d datatypes", d->ni, d->na, d->nd);
    if ((d->ni && !ints) || (d->na && !aints) || (d->nd && !types))
        return check_ptr(fn, "an output array", NULL);
    memcpy(ints, d->ints, (size_t)d->ni * sizeof(int));
    memcpy(aints, d->aints, (size_t)d->na * sizeof(MPI_Aint));
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
ZM_WEAK(Type_get_contents)

/*
 * Names of predefined datatypes.  Each virtual rank is an MPI process, so a
 * rank that renames MPI_INT changes what MPI_Type_get_name says in that
 * rank only, while the shared predefined object keeps its standard name
 * (which error messages go on using).  The names a rank gave live in a
 * small array in its API state, looked up by handle: programs rename a
 * few types at most.  The array lives as long as the process.
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
        if (!t && !(t = me->type_names = calloc(1, sizeof(*t))))
            return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
        if (t->n == t->cap) {
            int cap = t->cap ? 2 * t->cap : 8;
            struct type_name *ne = realloc(t->e, (size_t)cap * sizeof(*ne));
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
    const char *fn = "MPI_Get_elements_x";
    if (!status || status == MPI_STATUS_IGNORE)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "status is not a status");
    int rc = zm_mpi_check_type(fn, "datatype", dt);
    if (rc == MPI_SUCCESS)
        rc = check_ptr(fn, "count", count);
    if (rc != MPI_SUCCESS)
        return rc;
    int64_t n = zm_dt_elements(dt, (size_t)status->zmpi_bytes);
    if (dt->size == 0 && status->zmpi_bytes != 0)
        n = -1;
    *count = n < 0 ? MPI_UNDEFINED : n;
    return MPI_SUCCESS;
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

/* ---- Pack and unpack --------------------------------------------------- */

/* Checks shared by the pack calls: a communicator (if any), a buffer of
 * count elements of a committed type.  comm MPI_COMM_NULL-free variants
 * (external32) pass check_comm = 0. */
static int pack_check(const char *fn, MPI_Comm comm, int check_comm, const void *buf,
                      int count, MPI_Datatype dt, struct zmpi_comm **c)
{
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    *c = NULL;
    int rc = check_comm ? zm_mpi_check_comm(me, comm, fn, c) : MPI_SUCCESS;
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_check_buf(*c, fn, buf, count, dt);
    return rc;
}

int PMPI_Pack_size(int incount, MPI_Datatype dt, MPI_Comm comm, int *size)
{
    const char *fn = "MPI_Pack_size";
    struct zmpi_comm *c;
    int rc = pack_check(fn, comm, 1, NULL, 0, dt, &c);
    if (rc == MPI_SUCCESS && incount < 0)
        rc = zm_mpi_error(c, MPI_ERR_COUNT, fn, "(incount=%d): must be >= 0", incount);
    if (rc == MPI_SUCCESS)
        rc = check_ptr(fn, "size", size);
    if (rc != MPI_SUCCESS)
        return rc;
    size_t n = zm_dt_bytes(dt, (size_t)incount);
    if (n > INT32_MAX)
        return zm_mpi_error(c, MPI_ERR_COUNT, fn, "packed size %zu does not fit in an int", n);
    *size = (int)n;
    return MPI_SUCCESS;
}
ZM_WEAK(Pack_size)

int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype dt, void *outbuf, int outsize,
              int *position, MPI_Comm comm)
{
    const char *fn = "MPI_Pack";
    struct zmpi_comm *c;
    int rc = pack_check(fn, comm, 1, inbuf, incount, dt, &c);
    if (rc == MPI_SUCCESS)
        rc = check_ptr(fn, "position", position);
    if (rc != MPI_SUCCESS)
        return rc;
    size_t n = zm_dt_bytes(dt, (size_t)incount);
    if (*position < 0 || outsize < *position || (size_t)(outsize - *position) < n)
        return zm_mpi_error(c, MPI_ERR_TRUNCATE, fn, "(outsize=%d, position=%d): no room for "
                            "%zu packed bytes", outsize, *position, n);
    if (n && !outbuf)
        return check_ptr(fn, "outbuf", NULL);
    zm_dt_pack((char *)outbuf + *position, inbuf, (size_t)incount, dt, n);
    *position += (int)n;
    return MPI_SUCCESS;
}
ZM_WEAK(Pack)

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                MPI_Datatype dt, MPI_Comm comm)
{
    const char *fn = "MPI_Unpack";
    struct zmpi_comm *c;
    int rc = pack_check(fn, comm, 1, outbuf, outcount, dt, &c);
    if (rc == MPI_SUCCESS)
        rc = check_ptr(fn, "position", position);
    if (rc != MPI_SUCCESS)
        return rc;
    size_t n = zm_dt_bytes(dt, (size_t)outcount);
    if (*position < 0 || insize < *position || (size_t)(insize - *position) < n)
        return zm_mpi_error(c, MPI_ERR_TRUNCATE, fn, "(insize=%d, position=%d): fewer than the "
                            "%zu bytes to unpack", insize, *position, n);
    if (n && !inbuf)
        return check_ptr(fn, "inbuf", NULL);
    zm_dt_unpack(outbuf, (size_t)outcount, dt, (const char *)inbuf + *position, n);
    *position += (int)n;
    return MPI_SUCCESS;
}
ZM_WEAK(Unpack)

static int check_datarep(const char *fn, const char *datarep)
{
    if (datarep && strcmp(datarep, "external32") == 0)
        return MPI_SUCCESS;
    return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(datarep=\"%s\"): only \"external32\" is "
                        "supported", datarep ? datarep : "(null)");
}

/* external32 size of count elements, or raise an error. */
static int ext32_size(const char *fn, MPI_Datatype dt, int count, size_t *n)
{
    int ok;
    *n = zm_dt_ext32_size(dt, (size_t)count, &ok);
    if (ok)
        return MPI_SUCCESS;
    return zm_mpi_error(NULL, MPI_ERR_TYPE, fn, "(datatype=%s): holds a type that has no "
                        "external32 form on this machine", dt->name);
}

int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype dt,
                            MPI_Aint *size)
{
    const char *fn = "MPI_Pack_external_size";
    struct zmpi_comm *c;
    size_t n;
    int rc = check_datarep(fn, datarep);
    if (rc == MPI_SUCCESS)
        rc = pack_check(fn, MPI_COMM_NULL, 0, NULL, 0, dt, &c);
    if (rc == MPI_SUCCESS && incount < 0)
        rc = zm_mpi_error(NULL, MPI_ERR_COUNT, fn, "(incount=%d): must be >= 0", incount);
    if (rc == MPI_SUCCESS)
        rc = check_ptr(fn, "size", size);
    if (rc == MPI_SUCCESS)
        rc = ext32_size(fn, dt, incount, &n);
    if (rc == MPI_SUCCESS)
        *size = (MPI_Aint)n;
    return rc;
}
ZM_WEAK(Pack_external_size)

int PMPI_Pack_external(const char datarep[], const void *inbuf, int incount, MPI_Datatype dt,
                       void *outbuf, MPI_Aint outsize, MPI_Aint *position)
{
    const char *fn = "MPI_Pack_external";
    struct zmpi_comm *c;
    size_t n;
    int rc = check_datarep(fn, datarep);
    if (rc == MPI_SUCCESS)
        rc = pack_check(fn, MPI_COMM_NULL, 0, inbuf, incount, dt, &c);
    if (rc == MPI_SUCCESS)
        rc = check_ptr(fn, "position", position);
    if (rc == MPI_SUCCESS)
        rc = ext32_size(fn, dt, incount, &n);
    if (rc != MPI_SUCCESS)
        return rc;
    if (*position < 0 || outsize < *position || (size_t)(outsize - *position) < n)
        return zm_mpi_error(NULL, MPI_ERR_TRUNCATE, fn, "no room for %zu packed bytes", n);
    size_t nat = zm_dt_bytes(dt, (size_t)incount);
    void *tmp = malloc(nat ? nat : 1);
    if (!tmp)
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory for %zu bytes", nat);
    zm_dt_pack(tmp, inbuf, (size_t)incount, dt, nat);
    zm_dt_ext32_encode((char *)outbuf + *position, tmp, (size_t)incount, dt);
    free(tmp);
    *position += (MPI_Aint)n;
    return MPI_SUCCESS;
}
ZM_WEAK(Pack_external)

int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                         MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype dt)
{
    const char *fn = "MPI_Unpack_external";
    struct zmpi_comm *c;
    size_t n;
    int rc = check_datarep(fn, datarep);
    if (rc == MPI_SUCCESS)
        rc = pack_check(fn, MPI_COMM_NULL, 0, outbuf, outcount, dt, &c);
    if (rc == MPI_SUCCESS)
        rc = check_ptr(fn, "position", position);
    if (rc == MPI_SUCCESS)
        rc = ext32_size(fn, dt, outcount, &n);
    if (rc != MPI_SUCCESS)
        return rc;
    if (*position < 0 || insize < *position || (size_t)(insize - *position) < n)
        return zm_mpi_error(NULL, MPI_ERR_TRUNCATE, fn, "fewer than the %zu bytes to unpack", n);
    size_t nat = zm_dt_bytes(dt, (size_t)outcount);
    void *tmp = malloc(nat ? nat : 1);
    if (!tmp)
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory for %zu bytes", nat);
    zm_dt_ext32_decode(tmp, (const char *)inbuf + *position, (size_t)outcount, dt);
    zm_dt_unpack(outbuf, (size_t)outcount, dt, tmp, nat);
    free(tmp);
    *position += (MPI_Aint)n;
    return MPI_SUCCESS;
}
ZM_WEAK(Unpack_external)

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
