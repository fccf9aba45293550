/* zf_cbuf.c: mpi_f08 choice buffers given as CFI descriptors (zf.h):
 * array sections described by derived datatypes composed from the user's
 * (count, datatype) and the section's strides, or copied when no datatype
 * describes them (by the glue around a blocking call, through the
 * library's completion hooks for an asynchronous one). */
#include "zf.h"

#include "mpi/bind_hooks.h"

#include <stdalign.h>
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

/* ---- Sections composed with (count, datatype) ------------------------
 *
 * The user's (count, datatype) describes bytes of a virtual contiguous
 * buffer: the section's elements one after the other, as Fortran would
 * copy them in.  A byte at virtual offset v lives in element v / elem_len,
 * at v % elem_len inside it, and that element is somewhere in the real
 * array (the descriptor's strides).  The glue walks the user's type map
 * (through MPI_Type_get_contents), moves each predefined element to its
 * real address and describes the result as one struct of the same
 * predefined types, so the call's type signature is the user's.  Nothing
 * is copied, and nonblocking calls work: the type is freed after the call,
 * which MPI allows while an operation still uses it. */

/* Outcomes of the composition besides MPI_SUCCESS (zf_compose). */
enum { ZF_SEC_UNSUPPORTED = -1, ZF_SEC_RANGE = -2, ZF_SEC_NOMEM = -3 };

/* A section's layout: dimensions of extent 1 dropped, and a dimension
 * merged into the one before it when it continues it at the same stride
 * (a(1:4:2, :) of a(4, n) is one strided dimension). */
typedef struct {
    int rank;
    CFI_index_t ext[CFI_MAX_RANK], sm[CFI_MAX_RANK];
    MPI_Aint el;       /* bytes per array element */
    long long n;       /* elements */
} zf_lay_t;

static void zf_lay_init(zf_lay_t *l, const CFI_cdesc_t *d)
{
    l->rank = 0;
    l->el = (MPI_Aint)d->elem_len;
    l->n = 1;
    for (int i = 0; i < d->rank; i++) {
        CFI_index_t e = d->dim[i].extent, s = d->dim[i].sm;
        l->n *= e;
        if (e == 1)
            continue;
        int r = l->rank;
        if (r > 0 && s == l->sm[r - 1] * l->ext[r - 1]) {
            l->ext[r - 1] *= e;
            continue;
        }
        l->ext[r] = e;
        l->sm[r] = s;
        l->rank++;
    }
}

/* Byte offset, from the base address, of element j of the section. */
static MPI_Aint zf_lay_elem(const zf_lay_t *l, long long j)
{
    MPI_Aint off = 0;
    for (int i = 0; i < l->rank; i++) {
        off += (MPI_Aint)(j % l->ext[i]) * l->sm[i];
        j /= l->ext[i];
    }
    return off;
}

/* Whether moving by `bytes` in the virtual buffer moves every byte by the
 * same distance in memory (*real): whole elements, and along the last
 * dimension only when there are several (then by whole slices). */
static int zf_lay_shift(const zf_lay_t *l, MPI_Aint bytes, MPI_Aint *real)
{
    if (l->rank == 0 || bytes % l->el != 0)
        return 0;
    long long k = bytes / l->el, p = 1;
    for (int i = 0; i + 1 < l->rank; i++)
        p *= l->ext[i];
    if (k % p != 0)
        return 0;
    *real = (MPI_Aint)(k / p) * l->sm[l->rank - 1];
    return 1;
}

/* A datatype's constructor tree, decoded once (MPI_Type_get_contents). */
typedef struct zf_tnode {
    int comb;                 /* MPI_COMBINER_*; NAMED for predefined elements */
    MPI_Datatype type;        /* the type itself (NAMED: the element's type) */
    int own;                  /* type is a handle get_contents made, freed with the node */
    MPI_Aint ext;             /* its extent */
    int *ints;
    MPI_Aint *aints;
    int nkids;
    struct zf_tnode **kids;
} zf_tnode_t;

static void zf_tnode_free(zf_tnode_t *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->nkids; i++)
        zf_tnode_free(t->kids[i]);
    if (t->own)
        PMPI_Type_free(&t->type);
    free(t->kids);
    free(t->ints);
    free(t->aints);
    free(t);
}

/* Frees a handle MPI_Type_get_contents returned if it is a derived type
 * (predefined ones come back as themselves). */
static void zf_type_drop(MPI_Datatype dt)
{
    MPI_Count ni, na, nc, nd;
    int comb;
    if (PMPI_Type_get_envelope_c(dt, &ni, &na, &nc, &nd, &comb) == MPI_SUCCESS &&
        comb != MPI_COMBINER_NAMED)
        PMPI_Type_free(&dt);
}

/* Whether a combiner is one zf_walk knows; the F90 ones are predefined
 * elements (MPI 4.1 section 19.1.9), walked as NAMED. */
static int zf_comb_known(int comb)
{
    return comb != MPI_COMBINER_DARRAY && comb >= MPI_COMBINER_NAMED &&
           comb <= MPI_COMBINER_F90_INTEGER;
}

static int zf_decode(MPI_Datatype dt, int own, int depth, zf_tnode_t **out);

/* Fills in the contents and children of derived node t (ni integers, na
 * addresses, nd datatypes): MPI_SUCCESS, ZF_SEC_UNSUPPORTED or
 * ZF_SEC_NOMEM.  The children own the handles get_contents made. */
static int zf_decode_kids(zf_tnode_t *t, MPI_Count ni, MPI_Count na, MPI_Count nd, int depth)
{
    MPI_Datatype *kt = malloc((size_t)nd * sizeof *kt + 1);
    t->ints = malloc((size_t)ni * sizeof *t->ints + 1);
    t->aints = malloc((size_t)na * sizeof *t->aints + 1);
    t->kids = calloc((size_t)nd + 1, sizeof *t->kids);
    int rc = kt && t->ints && t->aints && t->kids ? MPI_SUCCESS : ZF_SEC_NOMEM;
    if (rc == MPI_SUCCESS && PMPI_Type_get_contents_c(t->type, ni, na, 0, nd, t->ints,
                                                      t->aints, NULL, kt) != MPI_SUCCESS)
        rc = ZF_SEC_UNSUPPORTED;
    for (int i = 0; rc == MPI_SUCCESS && i < (int)nd; i++) {
        rc = zf_decode(kt[i], 1, depth + 1, &t->kids[i]);
        t->nkids = i + 1;
        /* After a failure the handles not decoded yet are still ours. */
        for (int k = i + 1; rc != MPI_SUCCESS && k < (int)nd; k++)
            zf_type_drop(kt[k]);
    }
    free(kt);
    return rc;
}

/* Decodes dt into a tree (*out); ZF_SEC_UNSUPPORTED for a combiner zf_walk
 * does not know (MPI_COMBINER_DARRAY) or a large-count constructor,
 * ZF_SEC_NOMEM.  own: dt is a handle of get_contents, which the tree
 * frees (or this call, when it fails). */
static int zf_decode(MPI_Datatype dt, int own, int depth, zf_tnode_t **out)
{
    MPI_Count ni, na, nc, nd;
    MPI_Aint lb;
    int comb;
    *out = NULL;
    if (PMPI_Type_get_envelope_c(dt, &ni, &na, &nc, &nd, &comb) != MPI_SUCCESS)
        return ZF_SEC_UNSUPPORTED;
    zf_tnode_t *t = NULL;
    int rc = depth > 64 || nc != 0 || !zf_comb_known(comb) ? ZF_SEC_UNSUPPORTED : MPI_SUCCESS;
    if (rc == MPI_SUCCESS && !(t = calloc(1, sizeof *t)))
        rc = ZF_SEC_NOMEM;
    if (rc != MPI_SUCCESS) {
        if (own && comb != MPI_COMBINER_NAMED)
            PMPI_Type_free(&dt);
        return rc;
    }
    t->type = dt;
    t->own = own && comb != MPI_COMBINER_NAMED;
    t->comb = comb >= MPI_COMBINER_F90_REAL ? MPI_COMBINER_NAMED : comb;
    PMPI_Type_get_extent(dt, &lb, &t->ext);
    if (t->comb != MPI_COMBINER_NAMED)
        rc = zf_decode_kids(t, ni, na, nd, depth);
    if (rc != MPI_SUCCESS)
        zf_tnode_free(t);
    else
        *out = t;
    return rc;
}

/* The composed type under construction: runs of one predefined type,
 * each n elements at disp (from the base address), in type map order. */
typedef struct {
    MPI_Aint disp, pext;      /* pext: the element type's extent */
    MPI_Datatype type;
    MPI_Count n;
} zf_run_t;

typedef struct {
    const zf_lay_t *lay;
    zf_run_t *runs;
    size_t nruns, cap;
} zf_build_t;

/* Appends one predefined element (type of extent pext) at virtual offset
 * v, merged with the run before it when it continues it in memory. */
static int zf_emit(zf_build_t *b, MPI_Aint v, MPI_Datatype type, MPI_Aint pext)
{
    const zf_lay_t *l = b->lay;
    if (v < 0 || v + pext > (MPI_Aint)l->n * l->el)
        return ZF_SEC_RANGE;
    long long j = v / l->el;
    MPI_Aint w = v % l->el, at = zf_lay_elem(l, j) + w;
    /* An element of the datatype across array elements that are not
     * adjacent in memory has no address (an 8-byte real over a section of
     * 4-byte integers): no type describes it. */
    for (long long k = 1; w + pext > k * l->el; k++)
        if (zf_lay_elem(l, j + k) != zf_lay_elem(l, j) + k * l->el)
            return ZF_SEC_UNSUPPORTED;
    zf_run_t *r = b->nruns ? &b->runs[b->nruns - 1] : NULL;
    if (r && r->type == type && r->disp + (MPI_Aint)r->n * r->pext == at) {
        r->n++;
        return MPI_SUCCESS;
    }
    if (b->nruns == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 16;
        zf_run_t *p = realloc(b->runs, cap * sizeof *p);
        if (!p)
            return ZF_SEC_NOMEM;
        b->runs = p;
        b->cap = cap;
    }
    b->runs[b->nruns++] = (zf_run_t){.disp = at, .pext = pext, .type = type, .n = 1};
    return MPI_SUCCESS;
}

static int zf_walk(zf_build_t *b, const zf_tnode_t *t, MPI_Aint v);

/* n elements of t in a row from virtual offset v. */
static int zf_walk_n(zf_build_t *b, const zf_tnode_t *t, MPI_Aint v, MPI_Count n)
{
    int rc = MPI_SUCCESS;
    for (MPI_Count i = 0; rc == MPI_SUCCESS && i < n; i++)
        rc = zf_walk(b, t, v + (MPI_Aint)i * t->ext);
    return rc;
}

/* A subarray's elements in type map order (MPI 4.1 section 5.1.3): the
 * first dimension varies fastest in Fortran order, the last in C order. */
static int zf_walk_subarray(zf_build_t *b, const zf_tnode_t *t, MPI_Aint v)
{
    const int *in = t->ints;
    int nd = in[0], order = in[1 + 3 * nd];
    const int *sizes = in + 1, *sub = in + 1 + nd, *starts = in + 1 + 2 * nd;
    MPI_Aint stride[32];
    int idx[32] = {0};
    if (nd > 32)
        return ZF_SEC_UNSUPPORTED;
    /* dim(k): the k-th dimension from the fastest. */
#define ZF_DIM(k) (order == MPI_ORDER_FORTRAN ? (k) : nd - 1 - (k))
    MPI_Aint s = t->kids[0]->ext;
    for (int k = 0; k < nd; k++) {
        stride[ZF_DIM(k)] = s;
        s *= sizes[ZF_DIM(k)];
        if (sub[ZF_DIM(k)] == 0)
            return MPI_SUCCESS;
    }
    for (;;) {
        MPI_Aint at = v;
        for (int k = 0; k < nd; k++)
            at += (MPI_Aint)(starts[k] + idx[k]) * stride[k];
        int rc = zf_walk(b, t->kids[0], at);
        int k = 0;
        while (rc == MPI_SUCCESS && k < nd && ++idx[ZF_DIM(k)] == sub[ZF_DIM(k)])
            idx[ZF_DIM(k++)] = 0;
        if (rc != MPI_SUCCESS || k == nd)
            return rc;
    }
#undef ZF_DIM
}

/* Emits the predefined elements of one element of t placed at virtual
 * offset v, in type map order. */
static int zf_walk(zf_build_t *b, const zf_tnode_t *t, MPI_Aint v)
{
    const int *in = t->ints;
    const MPI_Aint *ad = t->aints;
    const zf_tnode_t *k0 = t->nkids ? t->kids[0] : NULL;
    int rc = MPI_SUCCESS, n = in ? in[0] : 0;
    switch (t->comb) {
    case MPI_COMBINER_NAMED:
        return zf_emit(b, v, t->type, t->ext);
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
        return zf_walk(b, k0, v);
    case MPI_COMBINER_CONTIGUOUS:
        return zf_walk_n(b, k0, v, n);
    case MPI_COMBINER_SUBARRAY:
        return zf_walk_subarray(b, t, v);
    }
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++) {
        switch (t->comb) {
        case MPI_COMBINER_VECTOR:
            rc = zf_walk_n(b, k0, v + (MPI_Aint)i * in[2] * k0->ext, in[1]);
            break;
        case MPI_COMBINER_HVECTOR:
            rc = zf_walk_n(b, k0, v + (MPI_Aint)i * ad[0], in[1]);
            break;
        case MPI_COMBINER_INDEXED:
            rc = zf_walk_n(b, k0, v + (MPI_Aint)in[1 + n + i] * k0->ext, in[1 + i]);
            break;
        case MPI_COMBINER_HINDEXED:
            rc = zf_walk_n(b, k0, v + ad[i], in[1 + i]);
            break;
        case MPI_COMBINER_INDEXED_BLOCK:
            rc = zf_walk_n(b, k0, v + (MPI_Aint)in[2 + i] * k0->ext, in[1]);
            break;
        case MPI_COMBINER_HINDEXED_BLOCK:
            rc = zf_walk_n(b, k0, v + ad[i], in[1]);
            break;
        case MPI_COMBINER_STRUCT:
            rc = zf_walk_n(b, t->kids[i], v + ad[i], in[1 + i]);
            break;
        default:
            return ZF_SEC_UNSUPPORTED;
        }
    }
    return rc;
}

/* How many runs from runs[i] on repeat runs[i] (same type and length) at
 * one stride (*stride): they become one hvector. */
static size_t zf_runs_regular(const zf_run_t *runs, size_t nruns, size_t i, MPI_Aint *stride)
{
    size_t k = i + 1;
    if (k == nruns || runs[k].type != runs[i].type || runs[k].n != runs[i].n)
        return 1;
    *stride = runs[k].disp - runs[i].disp;
    while (k < nruns && runs[k].type == runs[i].type && runs[k].n == runs[i].n &&
           runs[k].disp - runs[k - 1].disp == *stride)
        k++;
    return k - i;
}

/* The struct type of b's runs, repeated runs as hvectors (a vector
 * datatype over a(1:n:3) is one hvector, not n/2 blocks). */
static int zf_build_type(const zf_build_t *b, MPI_Datatype *out)
{
    MPI_Count *len = malloc(b->nruns * sizeof *len + 1);
    MPI_Aint *disp = malloc(b->nruns * sizeof *disp + 1);
    MPI_Datatype *types = malloc(b->nruns * sizeof *types + 1);
    char *made = calloc(b->nruns + 1, 1);
    size_t m = 0, i = 0;
    int rc = len && disp && types && made ? MPI_SUCCESS : ZF_SEC_NOMEM;
    while (rc == MPI_SUCCESS && i < b->nruns) {
        MPI_Aint stride = 0;
        size_t k = zf_runs_regular(b->runs, b->nruns, i, &stride);
        disp[m] = b->runs[i].disp;
        len[m] = k > 1 ? 1 : b->runs[i].n;
        types[m] = b->runs[i].type;
        if (k > 1 && PMPI_Type_create_hvector_c((MPI_Count)k, b->runs[i].n, stride,
                                                b->runs[i].type, &types[m]) != MPI_SUCCESS)
            rc = ZF_SEC_UNSUPPORTED;
        made[m] = k > 1 && rc == MPI_SUCCESS;
        m += rc == MPI_SUCCESS;
        i += k;
    }
    if (rc == MPI_SUCCESS &&
        PMPI_Type_create_struct_c((MPI_Count)m, len, disp, types, out) != MPI_SUCCESS)
        rc = ZF_SEC_UNSUPPORTED;
    for (size_t j = 0; made && j < m; j++)
        if (made[j])
            PMPI_Type_free(&types[j]);
    free(len);
    free(disp);
    free(types);
    free(made);
    return rc;
}

/* Whether count elements of dt, from virtual offset 0, stay inside the
 * section (first and last element; the ones between lie between). */
static int zf_in_section(const zf_lay_t *l, long long count, MPI_Datatype dt, MPI_Aint ext)
{
    MPI_Aint tlb, text, end = (MPI_Aint)l->n * l->el, last = (MPI_Aint)(count - 1) * ext;
    PMPI_Type_get_true_extent(dt, &tlb, &text);
    return tlb >= 0 && tlb + text <= end && last + tlb >= 0 && last + tlb + text <= end;
}

/* The composition of (count, dt) with section layout l (*out, committed,
 * used with count 1), or MPI_DATATYPE_NULL when they hold no data.
 * Elements that the section's strides move all alike (zf_lay_shift) are
 * walked once and repeated by an hvector.  peer: the buffer holds one such
 * block per peer (MPI_Gather's recvbuf), the next one count * extent(dt)
 * bytes on in the virtual buffer; *out's extent is then that distance in
 * memory, which exists only when zf_lay_shift finds it. */
static int zf_compose(const zf_lay_t *l, long long count, MPI_Datatype dt, int peer,
                      MPI_Datatype *out)
{
    MPI_Aint lb, ext, shift = 0, step = 0;
    MPI_Count size = 0;
    zf_tnode_t *t = NULL;
    zf_build_t b = {.lay = l};
    *out = MPI_DATATYPE_NULL;
    PMPI_Type_get_extent(dt, &lb, &ext);
    PMPI_Type_size_c(dt, &size);
    if (count == 0 || size == 0)
        return MPI_SUCCESS;
    if (!zf_in_section(l, count, dt, ext))
        return ZF_SEC_RANGE;
    if (peer && (!zf_lay_shift(l, (MPI_Aint)count * ext, &step) || step == 0))
        return ZF_SEC_UNSUPPORTED;
    int rep = count > 1 && zf_lay_shift(l, ext, &shift);
    int rc = zf_decode(dt, 0, 0, &t);
    if (rc == MPI_SUCCESS)
        rc = zf_walk_n(&b, t, 0, rep ? 1 : count);
    MPI_Datatype one = MPI_DATATYPE_NULL, next = MPI_DATATYPE_NULL;
    if (rc == MPI_SUCCESS)
        rc = zf_build_type(&b, &one);
    /* Only now: the runs name the F90 types of the tree. */
    zf_tnode_free(t);
    free(b.runs);
    if (rc == MPI_SUCCESS && rep) {
        rc = PMPI_Type_create_hvector_c(count, 1, shift, one, &next) == MPI_SUCCESS
                 ? MPI_SUCCESS : ZF_SEC_UNSUPPORTED;
        PMPI_Type_free(&one);
        one = next;
    }
    if (rc == MPI_SUCCESS && peer) {
        PMPI_Type_get_extent(one, &lb, &ext);
        rc = PMPI_Type_create_resized(one, lb, step, &next) == MPI_SUCCESS
                 ? MPI_SUCCESS : ZF_SEC_UNSUPPORTED;
        PMPI_Type_free(&one);
        one = next;
    }
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_commit(&one) == MPI_SUCCESS ? MPI_SUCCESS : ZF_SEC_UNSUPPORTED;
    if (rc != MPI_SUCCESS && one != MPI_DATATYPE_NULL)
        PMPI_Type_free(&one);
    else
        *out = one;
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

/* The error of a section the composition refused (zf_compose's rc:
 * ZF_SEC_NOMEM or ZF_SEC_RANGE). */
static int zf_section_error(int rc, const CFI_cdesc_t *d, long long n, long long count,
                            int on, MPI_Fint h, const char *fn, const char *arg)
{
    char why[400];
    if (rc == ZF_SEC_NOMEM)
        return zf_error_on(on, h, MPI_ERR_NO_MEM, fn, "no memory to describe an array section");
    snprintf(why, sizeof why, "argument %s: count %lld of the datatype reaches outside its "
             "array section (%lld elements of %zu bytes)", arg, count, n, d->elem_len);
    return zf_error_on(on, h, MPI_ERR_BUFFER, fn, why);
}

/* ---- Copies of sections for asynchronous calls ------------------------
 *
 * A nonblocking, persistent or one-sided call with a section that no
 * datatype describes works on a contiguous copy, as a blocking one does,
 * but the copy must outlive the call: it is filled at the call (and at
 * every MPI_Start of a persistent request, since the program may change
 * the data between starts), written back when the operation completes,
 * and freed once the operation is over.  The record below holds the copy
 * and what is needed to find the section again (a copy of its
 * descriptor: the caller's is gone when the call returns, the array is
 * not, MPI requires it to stay until completion).  The library calls the
 * record's hook at those moments (mpi/bind_hooks.h), from whichever wait,
 * test, start or synchronisation sees them, in Fortran or in C. */
typedef struct {
    zmpi_hook_t hook;         /* first: the library hands it back */
    int mode;                 /* ZF_IN or ZF_INOUT */
    char *tmp;                /* the copy, after the descriptor */
    CFI_cdesc_t d;            /* the section's descriptor; its dim[] follow */
} zf_hold_t;

/* The library's events for a record (zmpi_hook_fn): fill the copy at a
 * start, write it back at a completion of an operation that may have
 * written it (not after a cancel: the receive wrote nothing), free the
 * record at the end. */
static void zf_hold_event(zmpi_hook_t *hook, int event)
{
    zf_hold_t *k = (zf_hold_t *)hook;
    if (event == ZMPI_HOOK_START)
        zf_copy_section(&k->d, k->tmp, 1);
    else if (event == ZMPI_HOOK_DONE && k->mode == ZF_INOUT)
        zf_copy_section(&k->d, k->tmp, 0);
    else if (event == ZMPI_HOOK_FREE)
        free(k);
}

/* A record with a copy of section d (n elements) for an asynchronous
 * call, filled from the section now: cb->hold, and cb->ptr the copy. */
static int zf_hold_new(zf_cbuf_t *cb, CFI_cdesc_t *d, long long n, int on, MPI_Fint h,
                       const char *fn, const char *arg)
{
    size_t al = alignof(max_align_t);
    size_t head = sizeof(zf_hold_t) + (size_t)d->rank * sizeof(CFI_dim_t);
    head = (head + al - 1) / al * al;
    zf_hold_t *k = malloc(head + (size_t)n * d->elem_len + 1);
    if (!k) {
        char why[200];
        snprintf(why, sizeof why, "argument %s: no memory to copy an array section that no "
                 "datatype describes (%lld elements of %zu bytes)", arg, n, d->elem_len);
        return zf_error_on(on, h, MPI_ERR_NO_MEM, fn, why);
    }
    memcpy(&k->d, d, sizeof(CFI_cdesc_t) + (size_t)d->rank * sizeof(CFI_dim_t));
    k->mode = cb->mode;
    k->tmp = (char *)k + head;
    zf_copy_section(d, k->tmp, 1);
    cb->hold = k;
    cb->tmp = k->tmp;
    cb->ptr = k->tmp;
    return MPI_SUCCESS;
}

void zf_cbuf_keep(zf_cbuf_t *cb, int rc, int how, void *handle)
{
    zf_hold_t *k = cb->hold;
    if (!k || rc != MPI_SUCCESS)
        return;
    cb->hold = NULL;
    cb->tmp = NULL;
    int got = how == ZF_KEEP_WIN ? zmpi_win_hook((MPI_Win)handle, &k->hook, zf_hold_event)
                                 : zmpi_request_hook((MPI_Request)handle, &k->hook,
                                                     zf_hold_event);
    /* No request (a call may complete at once without one): the
     * operation is over, so the copy is written back now. */
    if (got != MPI_SUCCESS) {
        zf_hold_event(&k->hook, ZMPI_HOOK_DONE);
        zf_hold_event(&k->hook, ZMPI_HOOK_FREE);
    }
}

int zf_cbuf_section(zf_cbuf_t *cb, CFI_cdesc_t *d, int flags, long long count,
                    MPI_Datatype datatype, int on, MPI_Fint h, const char *fn, const char *arg)
{
    int per = 0, rc = ZF_SEC_UNSUPPORTED;
    if (zf_contiguous(d))
        return MPI_SUCCESS;
    long long n = 1;
    for (int i = 0; i < d->rank; i++)
        n *= d->dim[i].extent;
    /* Exactly filled by a contiguous datatype: nested hvectors. */
    if (!(flags & ZF_PEER) && zf_section_exact(d, n, count, datatype, &per)) {
        rc = zf_section_type(d, datatype, per, &cb->sec);
        if (rc != MPI_SUCCESS)
            return zf_error_on(on, h, rc, fn, "cannot describe the array section");
        return MPI_SUCCESS;
    }
    /* Any other (count, datatype): composed with the section's layout. */
    if (count >= 0 && datatype != MPI_DATATYPE_NULL) {
        zf_lay_t l;
        zf_lay_init(&l, d);
        rc = zf_compose(&l, count, datatype, flags & ZF_PEER, &cb->sec);
        if (rc == MPI_SUCCESS || rc == ZF_SEC_RANGE || rc == ZF_SEC_NOMEM)
            return rc == MPI_SUCCESS ? rc : zf_section_error(rc, d, n, count, on, h, fn, arg);
    }
    /* What no datatype describes (a buffer without a count and datatype,
     * MPI_Gatherv's recvbuf, ...) a call works on as a contiguous copy,
     * which (count, datatype) describe as the buffer Fortran would have
     * copied in: written back after a blocking call if the buffer may
     * have changed, or handed to the library with an asynchronous call's
     * request or window (zf_cbuf_keep). */
    if (flags & ZF_ASYNC)
        return zf_hold_new(cb, d, n, on, h, fn, arg);
    cb->tmp = malloc((size_t)n * d->elem_len + 1);
    if (!cb->tmp)
        return zf_error_on(on, h, MPI_ERR_NO_MEM, fn, "no memory to copy an array section");
    zf_copy_section(d, cb->tmp, 1);
    cb->ptr = cb->tmp;
    return MPI_SUCCESS;
}

void zf_cbuf_free(zf_cbuf_t *cb, int rc)
{
    if (cb->sec != MPI_DATATYPE_NULL)
        PMPI_Type_free(&cb->sec);
    /* An asynchronous call's copy still here: the call failed (or copied
     * it elsewhere, zf_pair_inplace), so no operation uses it. */
    if (cb->hold) {
        free(cb->hold);
        cb->hold = NULL;
        cb->tmp = NULL;
    }
    if (cb->tmp) {
        if (cb->mode == ZF_INOUT && rc == MPI_SUCCESS)
            zf_copy_section(cb->d, cb->tmp, 0);
        free(cb->tmp);
    }
}

/* Whether buffer d needs nothing from zf_cbuf_section: a scalar or a
 * contiguous array (zf_cbuf_in passes its address as it is). */
static int zf_cbuf_plain(const CFI_cdesc_t *d)
{
    return d->rank == 0 || zf_contiguous(d);
}

/* Whether sections d and e have the same element size and strides: one
 * datatype then describes both from their own base addresses. */
static int zf_same_layout(const CFI_cdesc_t *d, const CFI_cdesc_t *e)
{
    zf_lay_t a, b;
    zf_lay_init(&a, d);
    zf_lay_init(&b, e);
    if (a.el != b.el || a.rank != b.rank || a.n != b.n)
        return 0;
    for (int i = 0; i < a.rank; i++)
        if (a.ext[i] != b.ext[i] || a.sm[i] != b.sm[i])
            return 0;
    return 1;
}

/* Copies count elements of datatype from (a, ta) to (b, tb), each type
 * MPI_DATATYPE_NULL for (count, datatype) itself: through a packed
 * buffer, since the two layouts differ. */
static int zf_copy_typed(const zf_cbuf_t *a, const zf_cbuf_t *b, long long count,
                         MPI_Datatype datatype, MPI_Comm comm)
{
    MPI_Count ca = a->sec ? 1 : count, cb = b->sec ? 1 : count, size = 0, pos = 0;
    MPI_Datatype ta = a->sec ? a->sec : datatype, tb = b->sec ? b->sec : datatype;
    if (PMPI_Pack_size_c(ca, ta, comm, &size) != MPI_SUCCESS)
        return MPI_ERR_TYPE;
    char *tmp = malloc((size_t)size + 1);
    if (!tmp)
        return ZF_SEC_NOMEM;
    int rc = PMPI_Pack_c(a->ptr, ca, ta, tmp, size, &pos, comm);
    pos = 0;
    if (rc == MPI_SUCCESS)
        rc = PMPI_Unpack_c(tmp, size, &pos, b->ptr, cb, tb, comm);
    free(tmp);
    return rc;
}

/* zf_cbuf_pair's way for a sendbuf (a) and recvbuf (b) laid out
 * differently, when the call has an in-place form that means the same
 * (ZF_INPLACE): the recvbuf first receives the sendbuf's data (at the
 * root only, ZF_ROOTED: elsewhere the recvbuf is not used), then the call
 * runs in place, each buffer described by its own datatype. */
static int zf_pair_inplace(zf_cbuf_t *ca, zf_cbuf_t *cb, int flags, long long count,
                           MPI_Datatype datatype, MPI_Comm comm, int root, int on, MPI_Fint h,
                           const char *fn, const char *names[2])
{
    int me = -1;
    if ((flags & ZF_ROOTED) && PMPI_Comm_rank(comm, &me) == MPI_SUCCESS && me != root)
        return zf_cbuf_plain(ca->d) ? MPI_SUCCESS
                                    : zf_cbuf_section(ca, ca->d, flags, count, datatype, on, h,
                                                      fn, names[0]);
    int rc = zf_cbuf_plain(ca->d) ? MPI_SUCCESS
                                  : zf_cbuf_section(ca, ca->d, flags, count, datatype, on, h,
                                                    fn, names[0]);
    if (rc == MPI_SUCCESS && !zf_cbuf_plain(cb->d))
        rc = zf_cbuf_section(cb, cb->d, flags, count, datatype, on, h, fn, names[1]);
    if (rc == MPI_SUCCESS)
        rc = zf_copy_typed(ca, cb, count, datatype, comm);
    if (rc == ZF_SEC_NOMEM)
        rc = zf_error_on(on, h, MPI_ERR_NO_MEM, fn, "no memory to copy an array section");
    zf_cbuf_done(ca, MPI_ERR_OTHER);
    *ca = (zf_cbuf_t){.ptr = MPI_IN_PLACE, .sec = MPI_DATATYPE_NULL, .d = ca->d};
    if (rc != MPI_SUCCESS)
        zf_cbuf_done(cb, rc);
    return rc;
}

int zf_cbuf_pair(zf_cbuf_t *ca, CFI_cdesc_t *a, int amode, zf_cbuf_t *cb, CFI_cdesc_t *b,
                 int bmode, int flags, long long count, MPI_Datatype datatype, MPI_Comm comm,
                 int root, int on, MPI_Fint h, const char *fn, const char *aname,
                 const char *bname)
{
    zf_cbuf_t *cs[2] = {ca, cb};
    CFI_cdesc_t *ds[2] = {a, b};
    const char *names[2] = {aname, bname};
    int modes[2] = {amode, bmode}, need[2], rc = MPI_SUCCESS, inter = 0;
    /* Sentinels and contiguous arrays need no type; MPI_IN_PLACE uses
     * none, so the other buffer may have its own. */
    for (int i = 0; i < 2; i++) {
        *cs[i] = (zf_cbuf_t){.ptr = zf_buf(ds[i]->base_addr), .sec = MPI_DATATYPE_NULL,
                             .d = ds[i], .mode = modes[i]};
        need[i] = cs[i]->ptr == ds[i]->base_addr && !zf_cbuf_plain(ds[i]);
    }
    if (!need[0] && !need[1])
        return MPI_SUCCESS;
    int alone = ca->ptr == MPI_IN_PLACE || cb->ptr == MPI_IN_PLACE;
    if (alone || (need[0] && need[1] && zf_same_layout(a, b))) {
        int i = need[0] ? 0 : 1;
        rc = zf_cbuf_section(cs[i], ds[i], flags, count, datatype, on, h, fn, names[i]);
        /* Copied, not described: the other section is copied too, so
         * that (count, datatype) describes both. */
        if (rc == MPI_SUCCESS && cs[i]->tmp && need[1 - i])
            rc = zf_cbuf_section(cs[1 - i], ds[1 - i], flags, -1, MPI_DATATYPE_NULL, on, h, fn,
                                 names[1 - i]);
        if (rc != MPI_SUCCESS)
            zf_cbuf_done(cs[i], rc);
        return rc;
    }
    /* Layouts that no one datatype describes from both base addresses. */
    int real = ca->ptr == a->base_addr && cb->ptr == b->base_addr;
    if ((flags & ZF_INPLACE) && real && count >= 0 && datatype != MPI_DATATYPE_NULL &&
        comm != MPI_COMM_NULL && PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && !inter)
        return zf_pair_inplace(ca, cb, flags, count, datatype, comm, root, on, h, fn, names);
    /* The call copies the sections (count -1: no composition); an
     * asynchronous one hands its copies to the library (zf_cbuf_keep). */
    for (int i = 0; rc == MPI_SUCCESS && i < 2; i++)
        if (need[i])
            rc = zf_cbuf_section(cs[i], ds[i], flags, -1, MPI_DATATYPE_NULL, on, h, fn,
                                 names[i]);
    if (rc != MPI_SUCCESS)
        zf_cbuf_done(ca, rc);
    return rc;
}
