/* zf_cbuf.c: mpi_f08 choice buffers given as CFI descriptors (zf.h). */
#include "zf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether the descriptor's elements follow each other without gaps. */
static int zf_contiguous(const CFI_cdesc_t *d)
{
    ptrdiff_t want = (ptrdiff_t)d->elem_len;
    for (int i = 0; i < d->rank; i++) {
        if (d->dim[i].extent <= 1)
            continue;
        if (d->dim[i].sm != want)
            return 0;
        want *= d->dim[i].extent;
    }
    return 1;
}

/* The datatype describing every element of section d as per elements of
 * the contiguous datatype dt (per * extent(dt) == elem_len): nested
 * hvectors, innermost dimension first. */
static int zf_section_type(const CFI_cdesc_t *d, MPI_Datatype dt, int per, MPI_Datatype *out)
{
    MPI_Datatype t = MPI_DATATYPE_NULL, next;
    int rc = PMPI_Type_contiguous(per, dt, &t);
    for (int i = 0; rc == MPI_SUCCESS && i < d->rank; i++) {
        rc = PMPI_Type_create_hvector((int)d->dim[i].extent, 1, (MPI_Aint)d->dim[i].sm, t, &next);
        PMPI_Type_free(&t);
        t = next;
    }
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_commit(&t);
    if (rc != MPI_SUCCESS && t != MPI_DATATYPE_NULL)
        PMPI_Type_free(&t);
    *out = t;
    return rc;
}

/* Copies the elements of section d to (to_tmp) or from the contiguous
 * buffer tmp, in Fortran array element order. */
static void zf_copy_section(const CFI_cdesc_t *d, char *tmp, int to_tmp)
{
    CFI_index_t idx[CFI_MAX_RANK] = {0};
    size_t el = d->elem_len;
    for (;;) {
        char *p = (char *)d->base_addr;
        for (int i = 0; i < d->rank; i++)
            p += idx[i] * d->dim[i].sm;
        if (to_tmp)
            memcpy(tmp, p, el);
        else
            memcpy(p, tmp, el);
        tmp += el;
        int i = 0;
        while (i < d->rank && ++idx[i] == d->dim[i].extent)
            idx[i++] = 0;
        if (i == d->rank)
            return;
    }
}

/* Whether count elements of datatype fill section d exactly with
 * contiguous elements (per of them in each array element). */
static int zf_section_exact(const CFI_cdesc_t *d, long long n, long long count,
                            MPI_Datatype datatype, int *per)
{
    MPI_Aint lb = 0, extent = 0, tlb = 0, textent = 0;
    int size = 0;
    if (count < 0 || datatype == MPI_DATATYPE_NULL ||
        PMPI_Type_get_extent(datatype, &lb, &extent) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent(datatype, &tlb, &textent) != MPI_SUCCESS ||
        PMPI_Type_size(datatype, &size) != MPI_SUCCESS || lb != 0 || tlb != 0 ||
        size != extent || extent <= 0 || (size_t)d->elem_len % (size_t)extent != 0)
        return 0;
    *per = (int)((size_t)d->elem_len / (size_t)extent);
    return count == n * *per;
}

int zf_cbuf_section(zf_cbuf_t *cb, CFI_cdesc_t *d, int async, long long count,
                    MPI_Datatype datatype, int on, MPI_Fint h, const char *fn, const char *arg)
{
    char why[300];
    int per = 0;
    if (zf_contiguous(d))
        return MPI_SUCCESS;
    long long n = 1;
    for (int i = 0; i < d->rank; i++)
        n *= d->dim[i].extent;
    /* Exactly filled: a datatype describes the section, no copy. */
    if (zf_section_exact(d, n, count, datatype, &per)) {
        int rc = zf_section_type(d, datatype, per, &cb->sec);
        if (rc != MPI_SUCCESS)
            return zf_error_on(on, h, rc, fn, "cannot describe the array section");
        return MPI_SUCCESS;
    }
    /* Otherwise a blocking call works on a contiguous copy, written back
     * after the call if the buffer may have changed. */
    if (!async) {
        cb->tmp = malloc((size_t)n * d->elem_len + 1);
        if (!cb->tmp)
            return zf_error_on(on, h, MPI_ERR_NO_MEM, fn, "no memory to copy an array section");
        zf_copy_section(d, cb->tmp, 1);
        cb->ptr = cb->tmp;
        return MPI_SUCCESS;
    }
    snprintf(why, sizeof why, "argument %s of this nonblocking or persistent call is a "
             "non-contiguous array section that the count and datatype do not exactly fill "
             "with contiguous elements (pass a contiguous array or describe the layout with "
             "a derived datatype)", arg);
    return zf_error_on(on, h, MPI_ERR_BUFFER, fn, why);
}

void zf_cbuf_free(zf_cbuf_t *cb, int rc)
{
    if (cb->sec != MPI_DATATYPE_NULL)
        PMPI_Type_free(&cb->sec);
    if (cb->tmp) {
        if (cb->mode == ZF_INOUT && rc == MPI_SUCCESS)
            zf_copy_section(cb->d, cb->tmp, 0);
        free(cb->tmp);
    }
}
