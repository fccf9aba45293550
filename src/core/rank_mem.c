/*
 * rank_mem.c: each rank's memory at a fixed address, for checkpoint/restart
 * (issue 21).
 *
 * With checkpoints enabled, rank r owns the region
 *   [ZM_RANK_MEM_BASE + r * stride, ... + stride)
 * laid out as: a header page (this file's bookkeeping and the saved
 * context of a checkpoint), the rank's stack above a guard page, the
 * rank's copy of the program, and its heap: the program's own malloc,
 * calloc, realloc, free and aligned allocations, routed here by the
 * wrappers linked into a privatized program (src/mpi/launch_heap.c).
 * Everything a rank's pointers can reach in its own memory is then inside
 * its region, which a checkpoint writes out and a restart maps back at the
 * same address.
 *
 * The heap is simple on purpose: blocks of a power of two up to 64 KiB
 * from per-size free lists, larger ones in whole pages from a first-fit
 * list, all carved from the region by a bump pointer.  It is used by one
 * rank at a time plus the threads that rank creates, so one spinlock per
 * rank is uncontended in practice.
 */
#include "core/core.h"
#include "arch/arch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HDR_MAGIC 0x7a6d6b6370743031ull /* "zmkcpt01" */
#define BLK_SMALL 1
#define BLK_LARGE 2
#define BLK_ALIGNED 3
#define MIN_SHIFT 5  /* smallest block 32 bytes (16 of header) */
#define MAX_SHIFT ZM_RANK_HEAP_MAX_SHIFT /* largest small block 64 KiB */

/* The system's page: the layout's unit, so that guard pages and the
 * program copy's mappings fall on page boundaries (4 KiB, or 16 or 64 KiB
 * on some AArch64 systems). */
#define PAGE zm_arch_page_size()

/* Every block starts with this header; the payload follows, 16-aligned. */
typedef struct blk {
    size_t bytes; /* block size (BLK_SMALL, BLK_LARGE); distance back to the
                   * real payload (BLK_ALIGNED) */
    size_t kind;  /* BLK_* */
} blk_t;

/* A free large block: its size and the next one. */
typedef struct big_free {
    size_t bytes;
    struct big_free *next;
} big_free_t;

static struct {
    int on;            /* regions in use (checkpoints enabled) */
    int nranks;
    size_t stride;     /* bytes per rank region */
    size_t stack_size; /* usable stack bytes */
    size_t copy_span;  /* bytes for the program copy */
} M;

int zm_core_rank_mem_on(void)
{
    return M.on;
}

/* Region layout offsets, the same in every process of a restart. */
static size_t stack_off(void)
{
    return PAGE; /* guard page here, stack above it */
}

static size_t copy_off(void)
{
    return PAGE + PAGE + ((M.stack_size + PAGE - 1) & ~(size_t)(PAGE - 1));
}

static size_t heap_off(void)
{
    return (copy_off() + M.copy_span + PAGE - 1) & ~(size_t)(PAGE - 1);
}

int zm_core_rank_mem_setup(int nranks, size_t stack_size, size_t copy_span, char *err,
                           size_t errlen)
{
    M.nranks = nranks;
    M.stack_size = stack_size;
    M.copy_span = copy_span;
    /* Share the address space between ranks, 64 GiB each at most; each
     * rank's heap is what its region has left. */
    size_t stride = ZM_RANK_MEM_SPAN / (size_t)nranks;
    if (stride > ((size_t)64 << 30))
        stride = (size_t)64 << 30;
    stride &= ~(((size_t)2 << 20) - 1);
    M.stride = stride;
    if (stride < heap_off() + ((size_t)16 << 20)) {
        snprintf(err, errlen, "%d ranks leave each rank %zu bytes of fixed-address memory, "
                 "too little for its stack, program copy and heap", nranks, stride);
        return -1;
    }
    if (zm_arch_region_reserve(ZM_RANK_MEM_BASE, stride * (size_t)nranks) != 0) {
        snprintf(err, errlen, "cannot reserve the ranks' memory at %#lx (%zu bytes): "
                 "something is mapped there", (unsigned long)ZM_RANK_MEM_BASE,
                 stride * (size_t)nranks);
        return -1;
    }
    M.on = 1;
    return 0;
}

int zm_core_rank_mem_has(int rank)
{
    return M.on && rank >= 0 && rank < M.nranks;
}

zm_rank_mem_t *zm_core_rank_mem(int rank)
{
    return (zm_rank_mem_t *)(ZM_RANK_MEM_BASE + (uintptr_t)rank * M.stride);
}

int zm_core_rank_mem_init(int rank, int fresh)
{
    uintptr_t base = ZM_RANK_MEM_BASE + (uintptr_t)rank * M.stride;
    /* The header and the stack with its guard page, then the heap; the
     * copy's part stays reserved for the loader. */
    if (zm_arch_region_commit(base, copy_off()) != 0 ||
        zm_arch_region_commit(base + heap_off(), M.stride - heap_off()) != 0)
        return -1;
    if (!fresh)
        return 0;
    zm_rank_mem_t *h = (zm_rank_mem_t *)base;
    memset(h, 0, sizeof *h);
    h->magic = HDR_MAGIC;
    h->rank = rank;
    h->base = base;
    h->stride = M.stride;
    h->stack_at = base + stack_off();
    h->stack_size = (M.stack_size + PAGE - 1) & ~(size_t)(PAGE - 1);
    h->copy_at = base + copy_off();
    h->heap_at = h->bump = base + heap_off();
    h->heap_end = base + M.stride;
    return 0;
}

int zm_core_rank_mem_valid(const zm_rank_mem_t *h, int rank)
{
    return h->magic == HDR_MAGIC && h->rank == rank && h->stride == M.stride &&
           h->base == ZM_RANK_MEM_BASE + (uintptr_t)rank * M.stride &&
           h->copy_at == h->base + copy_off() && h->heap_at == h->base + heap_off();
}

zm_rank_mem_t *zm_core_rank_mem_owner(const void *p)
{
    uintptr_t a = (uintptr_t)p;
    if (!M.on || a < ZM_RANK_MEM_BASE || a >= ZM_RANK_MEM_BASE + M.stride * (size_t)M.nranks)
        return NULL;
    return zm_core_rank_mem((int)((a - ZM_RANK_MEM_BASE) / M.stride));
}

/* ---- The heap ------------------------------------------------------------ */

/* Carve `bytes` from the region's unused part; NULL when it is full. */
static void *bump(zm_rank_mem_t *h, size_t bytes)
{
    if (h->heap_end - h->bump < bytes)
        return NULL;
    void *p = (void *)h->bump;
    h->bump += bytes;
    return p;
}

static void *take_large(zm_rank_mem_t *h, size_t bytes)
{
    for (big_free_t **pp = (big_free_t **)&h->free_large; *pp; pp = &(*pp)->next) {
        big_free_t *f = *pp;
        if (f->bytes < bytes)
            continue;
        *pp = f->next;
        size_t left = f->bytes - bytes;
        /* Split off a tail worth keeping as a block of its own. */
        if (left >= ((size_t)64 << 10)) {
            big_free_t *t = (big_free_t *)((char *)f + bytes);
            t->bytes = left;
            t->next = h->free_large;
            h->free_large = t;
        } else {
            bytes = f->bytes;
        }
        ((blk_t *)f)->bytes = bytes;
        return f;
    }
    blk_t *b = bump(h, bytes);
    if (b)
        b->bytes = bytes;
    return b;
}

void *zm_core_heap_alloc(zm_rank_mem_t *h, size_t n)
{
    return zm_core_heap_alloc2(h, n, NULL);
}

void *zm_core_heap_calloc(zm_rank_mem_t *h, size_t n)
{
    int fresh = 0;
    void *p = zm_core_heap_alloc2(h, n, &fresh);
    /* Memory never handed out before is still the kernel's zeros: not
     * writing it keeps its pages untouched (and out of checkpoints). */
    if (p && !fresh)
        memset(p, 0, n);
    return p;
}

void *zm_core_heap_alloc2(zm_rank_mem_t *h, size_t n, int *fresh)
{
    if (n > h->heap_end - h->heap_at)
        return NULL;
    uintptr_t top = h->bump;
    blk_t *b;
    zm_spin_lock(&h->lock);
    if (n + sizeof(blk_t) <= ((size_t)1 << MAX_SHIFT)) {
        int k = MIN_SHIFT;
        while (((size_t)1 << k) < n + sizeof(blk_t))
            k++;
        b = h->free_small[k];
        if (b)
            h->free_small[k] = *(void **)(void *)(b + 1);
        else
            b = bump(h, (size_t)1 << k);
        if (b) {
            b->bytes = (size_t)1 << k;
            b->kind = BLK_SMALL;
        }
    } else {
        b = take_large(h, (n + sizeof(blk_t) + PAGE - 1) & ~(size_t)(PAGE - 1));
        if (b)
            b->kind = BLK_LARGE;
    }
    zm_spin_unlock(&h->lock);
    if (fresh)
        *fresh = b && (uintptr_t)b >= top;
    return b ? b + 1 : NULL;
}

/* The block header of payload p, past an aligned allocation's redirect. */
static blk_t *block_of(void *p)
{
    blk_t *b = (blk_t *)p - 1;
    if (b->kind == BLK_ALIGNED)
        b = (blk_t *)((char *)p - b->bytes) - 1;
    return b;
}

void zm_core_heap_free(zm_rank_mem_t *h, void *p)
{
    blk_t *b = block_of(p);
    zm_spin_lock(&h->lock);
    if (b->kind == BLK_SMALL) {
        int k = MIN_SHIFT;
        while (((size_t)1 << k) < b->bytes)
            k++;
        *(void **)(b + 1) = h->free_small[k];
        h->free_small[k] = b;
    } else {
        big_free_t *f = (big_free_t *)b;
        f->bytes = b->bytes;
        f->next = h->free_large;
        h->free_large = f;
    }
    zm_spin_unlock(&h->lock);
}

size_t zm_core_heap_usable(void *p)
{
    blk_t *b = block_of(p);
    return b->bytes - sizeof(blk_t) - (size_t)((char *)p - (char *)(b + 1));
}

void *zm_core_heap_aligned(zm_rank_mem_t *h, size_t align, size_t n)
{
    if (align <= sizeof(blk_t))
        return zm_core_heap_alloc(h, n);
    if (n > SIZE_MAX - align - sizeof(blk_t))
        return NULL;
    char *p = zm_core_heap_alloc(h, n + align + sizeof(blk_t));
    if (!p)
        return NULL;
    char *q = (char *)(((uintptr_t)p + sizeof(blk_t) + align - 1) & ~(uintptr_t)(align - 1));
    blk_t *r = (blk_t *)q - 1;
    r->bytes = (size_t)(q - p);
    r->kind = BLK_ALIGNED;
    return q;
}

/* ---- Library objects in the rank heaps (core.h) ----------------------------- */

int zm_core_obj_in_ranks;

void zm_core_obj_ranks_enable(void)
{
    zm_core_obj_in_ranks = M.on;
}

zm_rank_mem_t *zm_core_obj_region(void)
{
    zm_ult_t *u = zm_ult_self();
    if (!zm_core_obj_in_ranks || !u || u->foreign || !zm_core_rank_mem_has(u->id))
        return NULL;
    return zm_core_rank_mem(u->id);
}

void *zm_core_obj_alloc_slow(size_t n, int zero)
{
    zm_rank_mem_t *h = zm_core_obj_region();
    if (!h)
        return zero ? calloc(1, n) : malloc(n);
    return zero ? zm_core_heap_calloc(h, n ? n : 1) : zm_core_heap_alloc(h, n ? n : 1);
}

void zm_core_obj_free_slow(void *p)
{
    zm_core_mem_free(p);
}

void *zm_core_obj_realloc_slow(void *p, size_t n)
{
    return zm_core_mem_realloc(zm_core_obj_region(), p, n);
}

/* ---- Either kind of block (core.h) ------------------------------------------ */

void zm_core_mem_free(void *p)
{
    zm_rank_mem_t *h = p ? zm_core_rank_mem_owner(p) : NULL;
    if (h)
        zm_core_heap_free(h, p);
    else
        free(p);
}

/* Blocks keep their kind of memory: a libc block grows in libc, a rank
 * heap block moves to `h`'s heap (or libc's when h is NULL: the caller is
 * no rank's own ULT) when it has to grow. */
void *zm_core_mem_realloc(zm_rank_mem_t *h, void *p, size_t n)
{
    if (p && !zm_core_rank_mem_owner(p))
        return realloc(p, n);
    if (p && n == 0) {
        zm_core_mem_free(p);
        return NULL;
    }
    size_t have = p ? zm_core_heap_usable(p) : 0;
    if (p && n <= have)
        return p;
    void *q = h ? zm_core_heap_alloc(h, n ? n : 1) : malloc(n);
    if (!q) {
        errno = ENOMEM; /* malloc's contract, which the program's wrappers keep */
        return NULL;
    }
    if (p) {
        memcpy(q, p, have);
        zm_core_mem_free(p);
    }
    return q;
}
