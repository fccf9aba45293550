/*
 * type_pack.c: MPI_Pack, MPI_Unpack, MPI_Pack_size and their external32
 * forms.  Each call's work is an internal function in full width
 * (MPI_Count counts and positions, large.h) that its int form here and its
 * _c form (large_gen.c) both call; an int form whose position or size
 * would not fit an int raises MPI_ERR_VALUE_TOO_LARGE.
 */
#include "large.h"

#include <stdlib.h>
#include <string.h>

static int check_ptr(const char *fn, const char *what, const void *p)
{
    if (p)
        return MPI_SUCCESS;
    return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(%s=NULL): invalid pointer", what);
}

/* Checks shared by the pack calls: a communicator (if any), a buffer of
 * count elements of a committed type.  The external32 calls, which take
 * no communicator, pass check_comm = 0. */
static int pack_check(const char *fn, MPI_Comm comm, int check_comm, const void *buf,
                      MPI_Count count, MPI_Datatype dt, struct zmpi_comm **c)
{
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    *c = NULL;
    int rc = check_comm ? zm_mpi_check_comm(me, comm, fn, c) : MPI_SUCCESS;
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_check_cbuf(*c, fn, buf, count, dt);
    return rc;
}

/* Room for n bytes at *position in a buffer of `size` bytes. */
static int check_room(struct zmpi_comm *c, const char *fn, MPI_Count size, MPI_Count pos,
                      size_t n, const char *what)
{
    if (pos >= 0 && size >= pos && (size_t)(size - pos) >= n)
        return MPI_SUCCESS;
    return zm_mpi_error(c, MPI_ERR_TRUNCATE, fn, "(%s=%lld, position=%lld): no room for %zu "
                        "packed bytes", what, (long long)size, (long long)pos, n);
}

/* The int form of a position or size: the value, or MPI_ERR_VALUE_TOO_LARGE. */
static int narrow(struct zmpi_comm *c, const char *fn, const char *what, MPI_Count v, int *out)
{
    if (!zm_mpi_fits_int(v))
        return zm_mpi_too_large(c, fn, what, v);
    *out = (int)v;
    return MPI_SUCCESS;
}

int zm_mpi_pack_size(const char *fn, MPI_Count incount, MPI_Datatype dt, MPI_Comm comm,
                     MPI_Count *size)
{
    struct zmpi_comm *c;
    int rc = pack_check(fn, comm, 1, NULL, 0, dt, &c);
    if (rc == MPI_SUCCESS && incount < 0)
        rc = zm_mpi_error(c, MPI_ERR_COUNT, fn, "(incount=%lld): must be >= 0",
                          (long long)incount);
    if (rc == MPI_SUCCESS)
        rc = zm_mpi_check_cbuf(c, fn, (void *)1, incount, dt);
    if (rc == MPI_SUCCESS)
        rc = check_ptr(fn, "size", size);
    if (rc == MPI_SUCCESS)
        *size = (MPI_Count)zm_dt_bytes(dt, (size_t)incount);
    return rc;
}

int PMPI_Pack_size(int incount, MPI_Datatype dt, MPI_Comm comm, int *size)
{
    const char *fn = "MPI_Pack_size";
    MPI_Count n;
    int rc = zm_mpi_pack_size(fn, incount, dt, comm, size ? &n : NULL);
    return rc != MPI_SUCCESS ? rc : narrow(NULL, fn, "size", n, size);
}
ZM_WEAK(Pack_size)

int zm_mpi_pack(const char *fn, const void *inbuf, MPI_Count incount, MPI_Datatype dt,
                void *outbuf, MPI_Count outsize, MPI_Count *position, MPI_Comm comm)
{
    struct zmpi_comm *c;
    int rc = pack_check(fn, comm, 1, inbuf, incount, dt, &c);
    if (rc == MPI_SUCCESS)
        rc = check_ptr(fn, "position", position);
    if (rc != MPI_SUCCESS)
        return rc;
    size_t n = zm_dt_bytes(dt, (size_t)incount);
    rc = check_room(c, fn, outsize, *position, n, "outsize");
    if (rc == MPI_SUCCESS && n && !outbuf)
        rc = check_ptr(fn, "outbuf", NULL);
    if (rc != MPI_SUCCESS)
        return rc;
    zm_dt_pack((char *)outbuf + *position, inbuf, (size_t)incount, dt, n);
    *position += (MPI_Count)n;
    return MPI_SUCCESS;
}

int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype dt, void *outbuf, int outsize,
              int *position, MPI_Comm comm)
{
    const char *fn = "MPI_Pack";
    MPI_Count pos = position ? *position : 0;
    int rc = zm_mpi_pack(fn, inbuf, incount, dt, outbuf, outsize, position ? &pos : NULL, comm);
    return rc != MPI_SUCCESS ? rc : narrow(NULL, fn, "position", pos, position);
}
ZM_WEAK(Pack)

int zm_mpi_unpack(const char *fn, const void *inbuf, MPI_Count insize, MPI_Count *position,
                  void *outbuf, MPI_Count outcount, MPI_Datatype dt, MPI_Comm comm)
{
    struct zmpi_comm *c;
    int rc = pack_check(fn, comm, 1, outbuf, outcount, dt, &c);
    if (rc == MPI_SUCCESS)
        rc = check_ptr(fn, "position", position);
    if (rc != MPI_SUCCESS)
        return rc;
    size_t n = zm_dt_bytes(dt, (size_t)outcount);
    rc = check_room(c, fn, insize, *position, n, "insize");
    if (rc == MPI_SUCCESS && n && !inbuf)
        rc = check_ptr(fn, "inbuf", NULL);
    if (rc != MPI_SUCCESS)
        return rc;
    zm_dt_unpack(outbuf, (size_t)outcount, dt, (const char *)inbuf + *position, n);
    *position += (MPI_Count)n;
    return MPI_SUCCESS;
}

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                MPI_Datatype dt, MPI_Comm comm)
{
    const char *fn = "MPI_Unpack";
    MPI_Count pos = position ? *position : 0;
    int rc = zm_mpi_unpack(fn, inbuf, insize, position ? &pos : NULL, outbuf, outcount, dt,
                           comm);
    return rc != MPI_SUCCESS ? rc : narrow(NULL, fn, "position", pos, position);
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
static int ext32_size(const char *fn, MPI_Datatype dt, MPI_Count count, size_t *n)
{
    int ok;
    *n = zm_dt_ext32_size(dt, (size_t)count, &ok);
    if (ok)
        return MPI_SUCCESS;
    return zm_mpi_error(NULL, MPI_ERR_TYPE, fn, "(datatype=%s): holds a type that has no "
                        "external32 form on this machine", dt->name);
}

int zm_mpi_pack_external_size(const char *fn, const char *datarep, MPI_Count incount,
                              MPI_Datatype dt, MPI_Count *size)
{
    struct zmpi_comm *c;
    size_t n;
    int rc = check_datarep(fn, datarep);
    if (rc == MPI_SUCCESS)
        rc = pack_check(fn, MPI_COMM_NULL, 0, (void *)1, incount, dt, &c);
    if (rc == MPI_SUCCESS)
        rc = check_ptr(fn, "size", size);
    if (rc == MPI_SUCCESS)
        rc = ext32_size(fn, dt, incount, &n);
    if (rc == MPI_SUCCESS)
        *size = (MPI_Count)n;
    return rc;
}

int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype dt,
                            MPI_Aint *size)
{
    return zm_mpi_pack_external_size("MPI_Pack_external_size", datarep, incount, dt, size);
}
ZM_WEAK(Pack_external_size)

int zm_mpi_pack_external(const char *fn, const char *datarep, const void *inbuf,
                         MPI_Count incount, MPI_Datatype dt, void *outbuf, MPI_Count outsize,
                         MPI_Count *position)
{
    struct zmpi_comm *c;
    size_t n;
    int rc = check_datarep(fn, datarep);
    if (rc == MPI_SUCCESS)
        rc = pack_check(fn, MPI_COMM_NULL, 0, inbuf, incount, dt, &c);
    if (rc == MPI_SUCCESS)
        rc = check_ptr(fn, "position", position);
    if (rc == MPI_SUCCESS)
        rc = ext32_size(fn, dt, incount, &n);
    if (rc == MPI_SUCCESS)
        rc = check_room(NULL, fn, outsize, *position, n, "outsize");
    if (rc != MPI_SUCCESS)
        return rc;
    /* Native packing first, then conversion in place of the copy. */
    size_t nat = zm_dt_bytes(dt, (size_t)incount);
    void *tmp = malloc(nat ? nat : 1);
    if (!tmp)
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory for %zu bytes", nat);
    zm_dt_pack(tmp, inbuf, (size_t)incount, dt, nat);
    zm_dt_ext32_encode((char *)outbuf + *position, tmp, (size_t)incount, dt);
    free(tmp);
    *position += (MPI_Count)n;
    return MPI_SUCCESS;
}

int PMPI_Pack_external(const char datarep[], const void *inbuf, int incount, MPI_Datatype dt,
                       void *outbuf, MPI_Aint outsize, MPI_Aint *position)
{
    return zm_mpi_pack_external("MPI_Pack_external", datarep, inbuf, incount, dt, outbuf,
                                outsize, position);
}
ZM_WEAK(Pack_external)

int zm_mpi_unpack_external(const char *fn, const char *datarep, const void *inbuf,
                           MPI_Count insize, MPI_Count *position, void *outbuf,
                           MPI_Count outcount, MPI_Datatype dt)
{
    struct zmpi_comm *c;
    size_t n;
    int rc = check_datarep(fn, datarep);
    if (rc == MPI_SUCCESS)
        rc = pack_check(fn, MPI_COMM_NULL, 0, outbuf, outcount, dt, &c);
    if (rc == MPI_SUCCESS)
        rc = check_ptr(fn, "position", position);
    if (rc == MPI_SUCCESS)
        rc = ext32_size(fn, dt, outcount, &n);
    if (rc == MPI_SUCCESS)
        rc = check_room(NULL, fn, insize, *position, n, "insize");
    if (rc != MPI_SUCCESS)
        return rc;
    size_t nat = zm_dt_bytes(dt, (size_t)outcount);
    void *tmp = malloc(nat ? nat : 1);
    if (!tmp)
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory for %zu bytes", nat);
    zm_dt_ext32_decode(tmp, (const char *)inbuf + *position, (size_t)outcount, dt);
    zm_dt_unpack(outbuf, (size_t)outcount, dt, tmp, nat);
    free(tmp);
    *position += (MPI_Count)n;
    return MPI_SUCCESS;
}

int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                         MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype dt)
{
    return zm_mpi_unpack_external("MPI_Unpack_external", datarep, inbuf, insize, position,
                                  outbuf, outcount, dt);
}
ZM_WEAK(Unpack_external)
