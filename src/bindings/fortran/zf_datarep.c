/* zf_datarep.c: MPI_REGISTER_DATAREP and MPI_REGISTER_DATAREP_C with
 * Fortran conversion and extent procedures, and MPI_CONVERSION_FN_NULL.
 *
 * The Fortran procedures and extra_state travel in a record passed to C as
 * extra_state; C calls the trampolines below, which call them with
 * Fortran's conventions: every argument by reference but the two buffers,
 * whose address is what both a `<type> BUF(*)` dummy (mpif.h, use mpi) and
 * a `TYPE(C_PTR), VALUE` one (mpi_f08) receive.  A data representation
 * lives as long as the program, and so does its record.
 *
 * Contract of every pmpi_x_ here: MPI_X as a Fortran program calls it, on
 * the calling rank's thread. */
#include "zf_glue_hand.h"

#include <stdlib.h>

typedef void zf_conv_fn(void *userbuf, MPI_Fint *datatype, MPI_Fint *count, void *filebuf,
                        MPI_Offset *position, MPI_Aint *extra, MPI_Fint *ierror);
typedef void zf_conv_c_fn(void *userbuf, MPI_Fint *datatype, MPI_Count *count, void *filebuf,
                          MPI_Offset *position, MPI_Aint *extra, MPI_Fint *ierror);
typedef void zf_extent_fn(MPI_Fint *datatype, MPI_Aint *extent, MPI_Aint *extra,
                          MPI_Fint *ierror);

struct zf_drep {
    void (*read)(void), (*write)(void); /* zf_conv_fn or zf_conv_c_fn */
    zf_extent_fn *extent;
    MPI_Aint extra;
};

/* The procedure MPI_CONVERSION_FN_NULL (and _C) names: never called, only
 * recognised by its address. */
void zf_conversion_fn_null(void);
void zf_conversion_fn_null(void)
{
}
ZF_WEAK(zf_conversion_fn_null, mpi_conversion_fn_null_)
ZF_WEAK(zf_conversion_fn_null, mpi_conversion_fn_null_c_)

static int zf_conv(void (*f)(void), void *ubuf, MPI_Datatype dt, int count, void *fbuf,
                   MPI_Offset pos, MPI_Aint *extra)
{
    MPI_Fint fdt = PMPI_Type_c2f(dt), fcount = count, ierr = MPI_SUCCESS;
    ((zf_conv_fn *)f)(ubuf, &fdt, &fcount, fbuf, &pos, extra, &ierr);
    return ierr;
}

static int zf_conv_c(void (*f)(void), void *ubuf, MPI_Datatype dt, MPI_Count count, void *fbuf,
                     MPI_Offset pos, MPI_Aint *extra)
{
    MPI_Fint fdt = PMPI_Type_c2f(dt), ierr = MPI_SUCCESS;
    ((zf_conv_c_fn *)f)(ubuf, &fdt, &count, fbuf, &pos, extra, &ierr);
    return ierr;
}

static int zf_drep_read(void *ubuf, MPI_Datatype dt, int count, void *fbuf, MPI_Offset pos,
                        void *extra)
{
    struct zf_drep *d = extra;
    return zf_conv(d->read, ubuf, dt, count, fbuf, pos, &d->extra);
}

static int zf_drep_write(void *ubuf, MPI_Datatype dt, int count, void *fbuf, MPI_Offset pos,
                         void *extra)
{
    struct zf_drep *d = extra;
    return zf_conv(d->write, ubuf, dt, count, fbuf, pos, &d->extra);
}

static int zf_drep_read_c(void *ubuf, MPI_Datatype dt, MPI_Count count, void *fbuf,
                          MPI_Offset pos, void *extra)
{
    struct zf_drep *d = extra;
    return zf_conv_c(d->read, ubuf, dt, count, fbuf, pos, &d->extra);
}

static int zf_drep_write_c(void *ubuf, MPI_Datatype dt, MPI_Count count, void *fbuf,
                           MPI_Offset pos, void *extra)
{
    struct zf_drep *d = extra;
    return zf_conv_c(d->write, ubuf, dt, count, fbuf, pos, &d->extra);
}

static int zf_drep_extent(MPI_Datatype dt, MPI_Aint *extent, void *extra)
{
    struct zf_drep *d = extra;
    MPI_Fint fdt = PMPI_Type_c2f(dt), ierr = MPI_SUCCESS;
    d->extent(&fdt, extent, &d->extra, &ierr);
    return ierr;
}

/* The record for one registration, or NULL if out of memory. */
static struct zf_drep *zf_drep_new(void (*rd)(void), void (*wr)(void), void (*ext)(void),
                                   const MPI_Aint *extra)
{
    struct zf_drep *d = malloc(sizeof *d);
    if (d) {
        d->read = rd;
        d->write = wr;
        d->extent = (zf_extent_fn *)ext;
        d->extra = *extra;
    }
    return d;
}

/* Both registrations: large selects the _c form. */
static void zf_register(const char *fn, int large, const char *datarep, size_t len,
                        void (*rd)(void), void (*wr)(void), void (*ext)(void),
                        const MPI_Aint *extra, MPI_Fint *ierror)
{
    char small[MPI_MAX_DATAREP_STRING + 1];
    char *name = zf_str_in(datarep, len, small, sizeof small);
    struct zf_drep *d = name ? zf_drep_new(rd, wr, ext, extra) : NULL;
    int rc, rnull = rd == zf_conversion_fn_null, wnull = wr == zf_conversion_fn_null;
    if (!d) {
        rc = zf_oom(fn);
    } else if (large) {
        rc = PMPI_Register_datarep_c(name, rnull ? MPI_CONVERSION_FN_NULL_C : zf_drep_read_c,
                                     wnull ? MPI_CONVERSION_FN_NULL_C : zf_drep_write_c,
                                     zf_drep_extent, d);
    } else {
        rc = PMPI_Register_datarep(name, rnull ? MPI_CONVERSION_FN_NULL : zf_drep_read,
                                   wnull ? MPI_CONVERSION_FN_NULL : zf_drep_write,
                                   zf_drep_extent, d);
    }
    if (d && rc != MPI_SUCCESS)
        free(d);
    if (name)
        zf_tmp_free(name, small);
    if (ierror)
        *ierror = rc;
}

void pmpi_register_datarep_(const char *datarep, void (*read_conversion_fn)(void),
                            void (*write_conversion_fn)(void),
                            void (*dtype_file_extent_fn)(void), MPI_Aint *extra_state,
                            MPI_Fint *ierror, size_t datarep_len)
{
    zf_register("MPI_Register_datarep", 0, datarep, datarep_len, read_conversion_fn,
                write_conversion_fn, dtype_file_extent_fn, extra_state, ierror);
}
ZF_WEAK(pmpi_register_datarep_, mpi_register_datarep_)

void pmpi_register_datarep_c_(const char *datarep, void (*read_conversion_fn)(void),
                              void (*write_conversion_fn)(void),
                              void (*dtype_file_extent_fn)(void), MPI_Aint *extra_state,
                              MPI_Fint *ierror, size_t datarep_len)
{
    zf_register("MPI_Register_datarep_c", 1, datarep, datarep_len, read_conversion_fn,
                write_conversion_fn, dtype_file_extent_fn, extra_state, ierror);
}
ZF_WEAK(pmpi_register_datarep_c_, mpi_register_datarep_c_)
