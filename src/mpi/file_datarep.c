/*
 * file_datarep.c: user-defined data representations (MPI 4.1 section
 * 14.5.3, MPI_Register_datarep).
 *
 * A registered representation names conversion functions between memory
 * and the file, and a function giving each type's extent in the file.
 * zmpi uses one only for types whose file extents equal their sizes in
 * memory, so that views keep their layout and only each element's bytes
 * are converted (by the program's functions).  Registrations belong to
 * the rank that made them (an MPI process registers for itself); the
 * table is job-wide, guarded by a spinlock never held across a callback.
 * Errors go through MPI_FILE_NULL's handler, as for the other I/O calls
 * tied to no file.  Registrations last until the process ends.
 */
#include "file_rw.h"

#include <stdlib.h>
#include <string.h>

struct zm_mpi_datarep {
    struct zm_mpi_datarep *next;
    int owner;                                   /* world rank that registered it */
    char name[MPI_MAX_DATAREP_STRING];           /* its name */
    MPI_Datarep_conversion_function *read_fn;    /* file to memory, or NULL */
    MPI_Datarep_conversion_function *write_fn;   /* memory to file, or NULL */
    MPI_Datarep_conversion_function_c *read_c;   /* the same, MPI_Register_datarep_c's */
    MPI_Datarep_conversion_function_c *write_c;
    MPI_Datarep_extent_function *extent_fn;      /* file extents */
    void *extra;                                 /* the program's state for them */
};

static struct zm_mpi_datarep *reps;
static atomic_flag reps_lock = ATOMIC_FLAG_INIT;

static void lock(void)
{
    while (atomic_flag_test_and_set_explicit(&reps_lock, memory_order_acquire))
        zm_arch_cpu_relax();
}

static void unlock(void)
{
    atomic_flag_clear_explicit(&reps_lock, memory_order_release);
}

const struct zm_mpi_datarep *zm_mpi_datarep_find(const char *name)
{
    int me = zm_mpi_me()->world_rank;
    const struct zm_mpi_datarep *r;
    lock();
    for (r = reps; r; r = r->next)
        if (r->owner == me && strcmp(r->name, name) == 0)
            break;
    unlock();
    return r;
}

/* Nonzero if every predefined type in `dt` has a file extent equal to its
 * size in memory under representation `rep`. */
static int same_extents(const struct zm_mpi_datarep *rep, MPI_Datatype dt)
{
    if (dt->d) {
        for (size_t i = 0; i < dt->d->nseq; i++)
            if (!same_extents(rep, (MPI_Datatype)dt->d->seq[i].type))
                return 0;
        return 1;
    }
    MPI_Aint ext = -1;
    if (rep->extent_fn(dt, &ext, rep->extra) != MPI_SUCCESS)
        return 0;
    return ext == (MPI_Aint)dt->size;
}

int zm_mpi_datarep_fits(const struct zm_mpi_datarep *rep, MPI_Datatype dt)
{
    return same_extents(rep, dt);
}

int zm_mpi_datarep_write(const struct zm_mpi_datarep *rep, void *buf, MPI_Datatype dt,
                         MPI_Count count, void *filebuf)
{
    if (rep->write_c)
        return rep->write_c(buf, dt, count, filebuf, 0, rep->extra);
    if (!rep->write_fn) {
        zm_dt_pack(filebuf, buf, (size_t)count, dt, dt->size * (size_t)count);
        return MPI_SUCCESS;
    }
    /* The conversion functions take an int count; larger accesses go in
     * pieces, `position` saying where each starts. */
    for (MPI_Count done = 0; done < count;) {
        int n = count - done > 0x7fffffff ? 0x7fffffff : (int)(count - done);
        int rc = rep->write_fn(buf, dt, n, (char *)filebuf + done * (MPI_Count)dt->size, done,
                               rep->extra);
        if (rc != MPI_SUCCESS)
            return rc;
        done += n;
    }
    return MPI_SUCCESS;
}

int zm_mpi_datarep_read(const struct zm_mpi_datarep *rep, void *buf, MPI_Datatype dt,
                        MPI_Count count, void *filebuf, size_t bytes)
{
    /* Only whole elements were read; convert those. */
    MPI_Count whole = dt->size ? (MPI_Count)(bytes / dt->size) : 0;
    if (rep->read_c)
        return whole ? rep->read_c(buf, dt, whole, filebuf, 0, rep->extra) : MPI_SUCCESS;
    if (!rep->read_fn) {
        zm_dt_unpack(buf, (size_t)count, dt, filebuf, bytes);
        return MPI_SUCCESS;
    }
    for (MPI_Count done = 0; done < whole;) {
        int n = whole - done > 0x7fffffff ? 0x7fffffff : (int)(whole - done);
        int rc = rep->read_fn(buf, dt, n, (char *)filebuf + done * (MPI_Count)dt->size, done,
                              rep->extra);
        if (rc != MPI_SUCCESS)
            return rc;
        done += n;
    }
    return MPI_SUCCESS;
}

/* Register `r` (filled but for owner and name) as `datarep` for the
 * calling rank; `fn` names the call for errors.  Frees r on failure. */
static int register_rep(const char *fn, const char *datarep, struct zm_mpi_datarep *r)
{
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    int rc = MPI_SUCCESS;
    if (!datarep || !*datarep || strlen(datarep) >= MPI_MAX_DATAREP_STRING)
        rc = zm_mpi_file_error(NULL, MPI_ERR_ARG, fn, "(datarep): %s", !datarep ? "NULL" :
                               *datarep ? "longer than MPI_MAX_DATAREP_STRING - 1" : "empty");
    else if (!r)
        rc = zm_mpi_file_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    else if (!r->extent_fn)
        rc = zm_mpi_file_error(NULL, MPI_ERR_ARG, fn, "(dtype_file_extent_fn=NULL): invalid "
                               "argument");
    else if (!strcmp(datarep, "native") || !strcmp(datarep, "internal") ||
             !strcmp(datarep, "external32") || zm_mpi_datarep_find(datarep))
        rc = zm_mpi_file_error(NULL, MPI_ERR_DUP_DATAREP, fn, "(datarep=\"%s\"): already "
                               "defined", datarep);
    if (rc != MPI_SUCCESS) {
        free(r);
        return rc;
    }
    r->owner = me->world_rank;
    strcpy(r->name, datarep);
    lock();
    r->next = reps;
    reps = r;
    unlock();
    return MPI_SUCCESS;
}

int PMPI_Register_datarep(const char *datarep,
                          MPI_Datarep_conversion_function *read_conversion_fn,
                          MPI_Datarep_conversion_function *write_conversion_fn,
                          MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    struct zm_mpi_datarep *r = calloc(1, sizeof(*r));
    if (r) {
        r->read_fn = read_conversion_fn;
        r->write_fn = write_conversion_fn;
        r->extent_fn = dtype_file_extent_fn;
        r->extra = extra_state;
    }
    return register_rep("MPI_Register_datarep", datarep, r);
}
ZM_WEAK(Register_datarep)

/* The large-count form: the conversion functions take an MPI_Count, so an
 * access of any size is converted in one call. */
int PMPI_Register_datarep_c(const char *datarep,
                            MPI_Datarep_conversion_function_c *read_conversion_fn,
                            MPI_Datarep_conversion_function_c *write_conversion_fn,
                            MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    struct zm_mpi_datarep *r = calloc(1, sizeof(*r));
    if (r) {
        r->read_c = read_conversion_fn;
        r->write_c = write_conversion_fn;
        r->extent_fn = dtype_file_extent_fn;
        r->extra = extra_state;
    }
    return register_rep("MPI_Register_datarep_c", datarep, r);
}
ZM_WEAK(Register_datarep_c)
