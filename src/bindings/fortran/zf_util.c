/* zf_util.c: helpers of the Fortran glue (zf.h).  Only the public
 * interface (mpi.h) is used. */
#include "zf.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The sentinels of mpif.h, module mpi and module mpi_f08, all in section
 * zf_sentinels (zf.h: zf_is_sentinel).  A program that includes mpif.h has
 * the COMMON block as a common symbol, which the definition of
 * zmpi_fsent_ (of the same size) absorbs at link time; the modules' BIND(C)
 * variables are common symbols too, absorbed the same way; a program that
 * uses none of them still gets them, so the glue always links.  GCC
 * aligns them as gfortran does its common symbols (the linker warns
 * otherwise), so the section has gaps: its end is the linker's
 * __stop_zf_sentinels. */
#define ZF_SENTINEL __attribute__((section("zf_sentinels")))
ZF_SENTINEL struct zf_fsent zmpi_fsent_;
ZF_SENTINEL MPI_Fint zmpi_mpi_bottom, zmpi_mpi_in_place, zmpi_mpi_buffer_automatic;
ZF_SENTINEL MPI_Fint zmpi_mpi_status_ignore[MPI_STATUS_SIZE];
ZF_SENTINEL MPI_Fint zmpi_mpi_statuses_ignore[MPI_STATUS_SIZE];
ZF_SENTINEL MPI_Fint zmpi_mpi_errcodes_ignore[1], zmpi_mpi_unweighted[1];
ZF_SENTINEL MPI_Fint zmpi_mpi_weights_empty[1];
ZF_SENTINEL MPI_Fint zmpi_f08s_bottom, zmpi_f08s_in_place, zmpi_f08s_buffer_automatic;
/* At least as aligned as module mpi_f08's BIND(C) variables of
 * TYPE(MPI_Status) (its byte count is one 8-byte integer,
 * gen_fortran_f90.py), which gfortran makes common symbols aligned to 16
 * bytes: the linker warns when a definition absorbing them is less. */
ZF_SENTINEL _Alignas(16) MPI_F08_status zmpi_f08s_status_ignore;
ZF_SENTINEL _Alignas(16) MPI_F08_status zmpi_f08s_statuses_ignore[1];
ZF_SENTINEL MPI_Fint zmpi_f08s_errcodes_ignore[1], zmpi_f08s_unweighted[1];
ZF_SENTINEL MPI_Fint zmpi_f08s_weights_empty[1];
uintptr_t zf_sent_lo = 0, zf_sent_span = UINTPTR_MAX;

/* Sets zf_sent_lo and zf_sent_span (zf.h) when the program starts, in each
 * copy of a privatized program as its other constructors. */
__attribute__((constructor)) static void zf_sent_init(void)
{
    zf_sent_lo = (uintptr_t)__start_zf_sentinels;
    zf_sent_span = (uintptr_t)__stop_zf_sentinels - (uintptr_t)__start_zf_sentinels;
}

/* mpif.h's MPI_ARGV_NULL and MPI_ARGVS_NULL, the same way, aligned at
 * least as gfortran aligns the COMMON block (16 bytes on x86-64; the
 * linker warns about a definition aligned less). */
__attribute__((aligned(32))) struct zf_fsentc zmpi_fsentc_;

int *zf_weights(MPI_Fint *w)
{
    if (w == zmpi_fsent_.unweighted || w == zmpi_mpi_unweighted || w == zmpi_f08s_unweighted)
        return MPI_UNWEIGHTED;
    if (w == zmpi_fsent_.weights_empty || w == zmpi_mpi_weights_empty ||
        w == zmpi_f08s_weights_empty)
        return MPI_WEIGHTS_EMPTY;
    return w;
}

void *zf_tmp(void *small, size_t small_size, long n, size_t el)
{
    if (n <= 0)
        return small;
    if ((size_t)n * el <= small_size)
        return small;
    return malloc((size_t)n * el);
}

void zf_tmp_free(void *p, void *small)
{
    if (p != small)
        free(p);
}

int zf_error_on(int on, MPI_Fint h, int rc, const char *fn, const char *what)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    int got;
    if (on == ZF_ON_COMM)
        got = PMPI_Comm_get_errhandler(PMPI_Comm_f2c(h), &eh);
    else if (on == ZF_ON_WIN)
        got = PMPI_Win_get_errhandler(PMPI_Win_f2c(h), &eh);
    else if (on == ZF_ON_FILE)
        got = PMPI_File_get_errhandler(PMPI_File_f2c(h), &eh);
    else
        got = PMPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    /* The text goes to stderr only when the error may end the job: a
     * program that asked for MPI_ERRORS_RETURN handles the code itself. */
    if (got != MPI_SUCCESS || eh != MPI_ERRORS_RETURN)
        fprintf(stderr, "zmpi: %s: %s\n", fn, what);
    if (eh != MPI_ERRHANDLER_NULL)
        PMPI_Errhandler_free(&eh);
    if (on == ZF_ON_COMM)
        PMPI_Comm_call_errhandler(PMPI_Comm_f2c(h), rc);
    else if (on == ZF_ON_WIN)
        PMPI_Win_call_errhandler(PMPI_Win_f2c(h), rc);
    else if (on == ZF_ON_FILE)
        PMPI_File_call_errhandler(PMPI_File_f2c(h), rc);
    else
        PMPI_Comm_call_errhandler(MPI_COMM_WORLD, rc);
    return rc;
}

int zf_error(int rc, const char *fn, const char *what)
{
    return zf_error_on(ZF_ON_WORLD, 0, rc, fn, what);
}

int zf_oom(const char *fn)
{
    return zf_error(MPI_ERR_NO_MEM, fn, "out of memory converting Fortran arguments");
}

/* Arrays kept with their nonblocking requests (zf_keep).  Few calls need
 * it (the w-collectives with many ranks), so a locked list suffices. */
struct zf_kept {
    MPI_Fint req;
    void *p;
    struct zf_kept *next;
};
static pthread_mutex_t zf_kept_lock = PTHREAD_MUTEX_INITIALIZER;
static struct zf_kept *zf_kept_list;
/* The length of zf_kept_list, read without the lock by zf_nkept (zf.h). */
int zf_kept_n;

void zf_keep(MPI_Fint req, void *p)
{
    struct zf_kept *k = malloc(sizeof *k);
    if (!k) {
        /* Leaking p is the safe choice: the request may still read it. */
        return;
    }
    k->req = req;
    k->p = p;
    pthread_mutex_lock(&zf_kept_lock);
    k->next = zf_kept_list;
    zf_kept_list = k;
    __atomic_store_n(&zf_kept_n, zf_kept_n + 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&zf_kept_lock);
}

void zf_release(MPI_Fint req)
{
    pthread_mutex_lock(&zf_kept_lock);
    for (struct zf_kept **pp = &zf_kept_list; *pp;) {
        struct zf_kept *k = *pp;
        if (k->req == req) {
            *pp = k->next;
            free(k->p);
            free(k);
            __atomic_store_n(&zf_kept_n, zf_kept_n - 1, __ATOMIC_RELAXED);
        } else {
            pp = &k->next;
        }
    }
    pthread_mutex_unlock(&zf_kept_lock);
}

char *zf_str_in(const char *fstr, size_t flen, char *small, size_t size)
{
    while (flen > 0 && fstr[flen - 1] == ' ')
        flen--;
    char *c = flen + 1 <= size ? small : malloc(flen + 1);
    if (!c)
        return NULL;
    memcpy(c, fstr, flen);
    c[flen] = 0;
    return c;
}

char *zf_info_str_in(const char *fstr, size_t flen, char *small, size_t size)
{
    while (flen > 0 && fstr[0] == ' ') {
        fstr++;
        flen--;
    }
    return zf_str_in(fstr, flen, small, size);
}

void zf_str_out(char *fstr, size_t flen, const char *c)
{
    size_t n = strlen(c);
    if (n > flen)
        n = flen;
    memcpy(fstr, c, n);
    memset(fstr + n, ' ', flen - n);
}

void zf_shift_indices(MPI_Fint *idx, const MPI_Fint *outcount)
{
    if (*outcount == MPI_UNDEFINED)
        return;
    for (int i = 0; i < *outcount; i++)
        idx[i] += 1;
}

int zf_coll_size(MPI_Comm comm)
{
    int inter = 0, n = 0;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        return 0;
    if (inter)
        PMPI_Comm_remote_size(comm, &n);
    else
        PMPI_Comm_size(comm, &n);
    return n;
}

int zf_nbr_degree(MPI_Comm comm, int out)
{
    int topo = MPI_UNDEFINED, n = 0;
    if (PMPI_Topo_test(comm, &topo) != MPI_SUCCESS)
        return 0;
    if (topo == MPI_CART) {
        PMPI_Cartdim_get(comm, &n);
        return 2 * n;
    }
    if (topo == MPI_GRAPH) {
        int rank = 0;
        PMPI_Comm_rank(comm, &rank);
        PMPI_Graph_neighbors_count(comm, rank, &n);
        return n;
    }
    if (topo == MPI_DIST_GRAPH) {
        int indeg = 0, outdeg = 0, weighted = 0;
        PMPI_Dist_graph_neighbors_count(comm, &indeg, &outdeg, &weighted);
        return out ? outdeg : indeg;
    }
    return 0;
}
