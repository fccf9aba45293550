/*
 * env.c: memory allocation (MPI_Alloc_mem, MPI_Free_mem) and the profiling
 * control MPI_Pcontrol (MPI 4.1 chapters 11 and 15).
 *
 * MPI_Alloc_mem's blocks are ordinary heap memory: all ranks of a zmpi job
 * share one address space, so no memory is more special than any other to
 * the one-copy transfers.  What the call adds is the alignment the standard
 * asks for (that of every predefined datatype, or the power of two that the
 * mpi_minimum_memory_alignment info key names) and a record of the blocks,
 * so that MPI_Free_mem can tell a base it handed out from any other pointer
 * (MPI_ERR_BASE) without reading memory that may not exist.
 */
#include "mpi_impl.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The default alignment: enough for a load or store of any predefined
 * datatype, long double complex included. */
#define DEFAULT_ALIGN ((size_t)_Alignof(max_align_t))

/* A block handed out by MPI_Alloc_mem. */
struct mem_block {
    struct mem_block *next;   /* next block in the same bucket */
    void *base;               /* address given to the program */
};

/* The blocks of the whole job: a rank may free a block that another rank
 * allocated (they share memory), so the record is not per rank.  A chained
 * hash table of base addresses, guarded by a spinlock that is never held
 * while an error is raised. */
static struct {
    zm_spinlock_t lock;          /* guards everything below */
    struct mem_block **bucket;   /* nbuckets chains */
    size_t nbuckets;             /* a power of two, or 0 before the first block */
    size_t count;                /* blocks recorded */
} mem;

static size_t mem_hash(const void *p, size_t nbuckets)
{
    uint64_t h = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull;
    return (size_t)(h ^ (h >> 32)) & (nbuckets - 1);
}

/* Double the table when chains grow past two blocks on average.  A failed
 * allocation only leaves the chains longer.  Lock held. */
static void mem_grow(void)
{
    size_t n = mem.nbuckets ? 2 * mem.nbuckets : 64;
    struct mem_block **b = calloc(n, sizeof(*b));
    if (!b)
        return;
    for (size_t i = 0; i < mem.nbuckets; i++) {
        while (mem.bucket[i]) {
            struct mem_block *e = mem.bucket[i];
            mem.bucket[i] = e->next;
            size_t h = mem_hash(e->base, n);
            e->next = b[h];
            b[h] = e;
        }
    }
    free(mem.bucket);
    mem.bucket = b;
    mem.nbuckets = n;
}

/* Record block `e`.  Returns 0, or -1 if there is no table and none can be
 * made. */
static int mem_insert(struct mem_block *e)
{
    int rc = 0;
    zm_spin_lock(&mem.lock);
    if (mem.count >= 2 * mem.nbuckets)
        mem_grow();
    if (mem.nbuckets) {
        size_t h = mem_hash(e->base, mem.nbuckets);
        e->next = mem.bucket[h];
        mem.bucket[h] = e;
        mem.count++;
    } else {
        rc = -1;
    }
    zm_spin_unlock(&mem.lock);
    return rc;
}

/* Take the record of the block at `base` out of the table; NULL if no
 * block starts there. */
static struct mem_block *mem_remove(void *base)
{
    struct mem_block *e = NULL;
    zm_spin_lock(&mem.lock);
    if (mem.nbuckets) {
        struct mem_block **pp = &mem.bucket[mem_hash(base, mem.nbuckets)];
        while (*pp && (*pp)->base != base)
            pp = &(*pp)->next;
        e = *pp;
        if (e) {
            *pp = e->next;
            mem.count--;
        }
    }
    zm_spin_unlock(&mem.lock);
    return e;
}

/* Read the mpi_minimum_memory_alignment key of `info` into *align (left
 * unchanged if the key is absent).  The value must be a power of two
 * written in decimal; values below the default alignment are raised to it,
 * as the standard allows.  Returns MPI_SUCCESS or the raised error. */
static int alignment_hint(const char *fn, MPI_Info info, size_t *align)
{
    char v[32];
    int len = (int)sizeof(v), flag = 0;
    int rc = PMPI_Info_get_string(info, "mpi_minimum_memory_alignment", &len, v, &flag);
    if (rc != MPI_SUCCESS || !flag)
        return rc;
    /* Leading and trailing spaces and a "+" sign are allowed in integer
     * values (MPI 4.1 chapter 10). */
    const char *s = v;
    while (*s == ' ')
        s++;
    if (*s == '+')
        s++;
    char *end = NULL;
    errno = 0;
    unsigned long long a = *s >= '0' && *s <= '9' ? strtoull(s, &end, 10) : 0;
    while (end && *end == ' ')
        end++;
    if (len > (int)sizeof(v) || errno || !end || *end || a == 0 || (a & (a - 1)) ||
        (unsigned long long)(size_t)a != a)
        return zm_mpi_error(NULL, MPI_ERR_INFO_VALUE, fn, "(info): mpi_minimum_memory_alignment"
                            "=\"%s%s\" is not a power of two", v, len > (int)sizeof(v) ? "..." : "");
    if ((size_t)a > *align)
        *align = (size_t)a;
    return MPI_SUCCESS;
}

int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    const char *fn = "MPI_Alloc_mem";
    zm_mpi_enter(fn);
    if (size < 0)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(size=%lld): must be >= 0", (long long)size);
    if (!baseptr)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(baseptr=NULL): invalid argument");
    size_t align = DEFAULT_ALIGN;
    int rc = info == MPI_INFO_NULL ? MPI_SUCCESS : zm_mpi_info_check(fn, info);
    if (rc == MPI_SUCCESS && info != MPI_INFO_NULL)
        rc = alignment_hint(fn, info, &align);
    if (rc != MPI_SUCCESS)
        return rc;
    void *p = NULL;
    struct mem_block *e = malloc(sizeof(*e));
    /* A block of size 0 still gets its own address, so MPI_Free_mem can
     * tell it from others. */
    if (e && posix_memalign(&p, align, size > 0 ? (size_t)size : 1) != 0)
        p = NULL;
    if (p) {
        e->base = p;
        if (mem_insert(e) != 0) {
            free(p);
            p = NULL;
        }
    }
    if (!p) {
        free(e);
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "(size=%lld): out of memory for a block "
                            "aligned to %zu bytes", (long long)size, align);
    }
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}
ZM_WEAK(Alloc_mem)

int PMPI_Free_mem(void *base)
{
    const char *fn = "MPI_Free_mem";
    zm_mpi_enter(fn);
    /* NULL frees nothing, as with free(). */
    if (!base)
        return MPI_SUCCESS;
    struct mem_block *e = mem_remove(base);
    if (!e)
        return zm_mpi_error(NULL, MPI_ERR_BASE, fn, "(base=%p): not the start of a block from "
                            "MPI_Alloc_mem, or freed already", base);
    free(e);
    free(base);
    return MPI_SUCCESS;
}
ZM_WEAK(Free_mem)

/* MPI_Pcontrol steers a profiling library that interposes on the MPI_
 * names (level 0 off, 1 on, 2 flush; MPI 4.1 section 15.2.4 leaves the
 * meaning to the tool).  zmpi itself profiles nothing, so the call does
 * nothing, for any level, at any time; a tool linked over PMPI sees every
 * call. */
int PMPI_Pcontrol(const int level, ...)
{
    (void)level;
    return MPI_SUCCESS;
}
ZM_WEAK(Pcontrol)

int zmpi_output_rank(void)
{
    zm_mpi_rank_t *me = zm_ult_self() ? zm_mpi_me() : NULL;
    return me ? me->world_rank : -1;
}
