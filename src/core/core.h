/*
 * core: status codes, intrusive lists, spinlocks and per-worker object pools
 * shared by the layers above.
 */
#ifndef ZM_CORE_H
#define ZM_CORE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "ult/ult.h"

/* The one internal status type: 0 is success, negative values are errors.
 * The API layer alone maps them to MPI error classes. */
typedef int zm_status_t;
enum {
    ZM_OK = 0,
    ZM_ERR_NOMEM = -1,     /* allocation failed */
    ZM_ERR_TRUNCATE = -2,  /* message longer than the receive buffer */
    ZM_ERR_BUFFER = -3,    /* attached Bsend buffer too small */
    ZM_ERR_ARG = -4,       /* invalid argument found below the API layer */
    ZM_ERR_PENDING = -5,   /* operation still pending */
    ZM_ERR_OTHER = -6      /* anything else */
};

/* Marks the few symbols outside mpi.h that the library exports. */
#define ZM_EXPORT __attribute__((visibility("default")))

#define ZM_CACHE_LINE 64
#define ZM_LIKELY(x) __builtin_expect(!!(x), 1)
#define ZM_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define zm_container_of(ptr, type, member) \
    ((type *)((char *)(ptr) - offsetof(type, member)))

/* ---- Intrusive doubly linked list with a sentinel head ------------------ */
typedef struct zm_dlink {
    struct zm_dlink *prev, *next;
} zm_dlink_t;

static inline void zm_dlist_init(zm_dlink_t *head)
{
    head->prev = head->next = head;
}

static inline int zm_dlist_empty(const zm_dlink_t *head)
{
    return head->next == head;
}

/* Append `link` at the tail of the list headed by `head`. */
static inline void zm_dlist_push(zm_dlink_t *head, zm_dlink_t *link)
{
    link->prev = head->prev;
    link->next = head;
    head->prev->next = link;
    head->prev = link;
}

static inline void zm_dlist_remove(zm_dlink_t *link)
{
    link->prev->next = link->next;
    link->next->prev = link->prev;
    link->prev = link->next = link;
}

/* Take `link` out of its list without writing to `link` itself, so a
 * remover on another core does not pull the element's line for nothing;
 * the caller tracks membership some other way. */
static inline void zm_dlist_unlink(zm_dlink_t *link)
{
    link->prev->next = link->next;
    link->next->prev = link->prev;
}

#define zm_dlist_for_each(pos, head) \
    for ((pos) = (head)->next; (pos) != (head); (pos) = (pos)->next)

/* ---- Spinlock ----------------------------------------------------------- */
/* Test-and-test-and-set: waiters spin on a shared read so the line is not
 * bounced between cores while the holder works. */
typedef struct zm_spinlock {
    _Atomic int locked; /* 1 while held */
} zm_spinlock_t;

/* Spinning this many times without getting a lock, a waiter leaves the
 * core once (zm_core_spin_yield): the holder may be a thread the kernel
 * preempted, when the threads that ranks create (MPI_THREAD_MULTIPLE)
 * are more than the cores.  Held locks are short, so this costs nothing
 * otherwise. */
#define ZM_SPIN_YIELD_AFTER 4096

void zm_core_spin_yield(void);

static inline void zm_spin_lock(zm_spinlock_t *l)
{
    for (;;) {
        if (!atomic_exchange_explicit(&l->locked, 1, memory_order_acquire))
            return;
        for (unsigned i = 0; atomic_load_explicit(&l->locked, memory_order_relaxed); i++) {
            zm_arch_cpu_relax();
            if (ZM_UNLIKELY(i == ZM_SPIN_YIELD_AFTER)) {
                zm_core_spin_yield();
                i = 0;
            }
        }
    }
}

/* Take the lock if it is free; returns nonzero when taken. */
static inline int zm_spin_trylock(zm_spinlock_t *l)
{
    return !atomic_load_explicit(&l->locked, memory_order_relaxed) &&
           !atomic_exchange_explicit(&l->locked, 1, memory_order_acquire);
}

static inline void zm_spin_unlock(zm_spinlock_t *l)
{
    atomic_store_explicit(&l->locked, 0, memory_order_release);
}

/* ---- Per-worker object pools -------------------------------------------- */
/* Objects of one size.  Each worker allocates from its own free list; an
 * object freed on another worker goes back to its home worker through a
 * lock-free "remote free" stack, so alloc and free never take a lock and
 * never call malloc once the pool is warm. */
typedef struct zm_pool zm_pool_t;

/* Create a pool of objects of `size` bytes for `nworkers` workers.
 * Main thread, before the job starts.  Returns NULL on failure. */
zm_pool_t *zm_pool_create(size_t size, int nworkers);

/* Take an object.  Any ULT or foreign thread; returns NULL only if
 * malloc fails. */
void *zm_pool_alloc(zm_pool_t *pool);

/* Return an object taken from `pool`, from any thread. */
void zm_pool_free(zm_pool_t *pool, void *obj);

/* Objects of `pool` taken and not returned.  Walks every free list: only
 * while nothing else uses the pool (a checkpoint's ranks all wait in it). */
long zm_pool_in_use(zm_pool_t *pool);

/* The integer value of environment variable `name`, or `def` when it is
 * unset or empty.  A value that is not an integer >= `min` ends the
 * process with a message naming the variable (a mistyped setting must
 * never be ignored).  Main thread, at start. */
long zm_core_env_long(const char *name, long def, long min);

/* Whether environment variable `name` starts with '1', read once into
 * *cache (which starts at -1) and answered from it afterwards.  Any
 * thread. */
int zm_core_env_flag(const char *name, _Atomic int *cache);

/* Whether the frequent side of a store-then-load handshake between threads
 * may order it with a compiler barrier only, because the rare side calls
 * zm_arch_membarrier (collective publishers and their waiters, ring
 * senders and parking receivers).  Decided once per process: the system
 * must offer membarrier, and ZMPI_COLL_FENCE=1 keeps real fences, for
 * measurements.  Any thread; the first call registers with the system (a
 * slow system call: not under a lock). */
int zm_core_asym_fence(void);

/* ---- Rank memory at fixed addresses (rank_mem.c) -------------------------
 * With checkpoints enabled every rank's stack, program copy and heap lie
 * in a region of its own at an address that is the same in every process
 * of a job and of its restart.  The region starts with this header. */
/* [8 TiB, 72 TiB): below where Linux puts a program without address
 * randomization (0x555555554000 on x86-64, 0xaaaaaaaa0000 on AArch64) and
 * its brk heap, above anything mapped low, and far below the top-down
 * mmap area of a 47- or 48-bit address space. */
#define ZM_RANK_MEM_BASE ((uintptr_t)0x080000000000ull)
#define ZM_RANK_MEM_SPAN ((size_t)0x400000000000ull)
#define ZM_RANK_MEM_FRAME 256  /* bytes of a saved context kept in the header */
#define ZM_RANK_HEAP_MAX_SHIFT 16 /* the rank heap's largest small block: 2^16 bytes */

typedef struct zm_rank_mem {
    uint64_t magic;
    int rank;
    uintptr_t base;             /* region start (this header) */
    size_t stride;              /* region length */
    uintptr_t stack_at;         /* guard page, then the stack */
    size_t stack_size;          /* usable stack bytes */
    uintptr_t copy_at;          /* the program copy */
    uintptr_t heap_at, heap_end;/* heap part of the region */
    uintptr_t bump;             /* heap used up to here */
    void *free_small[ZM_RANK_HEAP_MAX_SHIFT + 1]; /* free blocks of 2^k bytes */
    void *free_large;           /* free page-multiple blocks */
    zm_spinlock_t lock;         /* guards the heap fields */
    /* A checkpoint's saved context (src/mpi/checkpoint.c): the stack
     * pointer and the bytes above it that the switch wrote. */
    void *ckpt_sp;
    unsigned char ckpt_frame[ZM_RANK_MEM_FRAME];
    int ckpt_resumed;           /* set by a restart before the rank runs */
    uintptr_t user[8];          /* the API layer's per-rank words */
} zm_rank_mem_t;

/* Whether ranks have fixed-address regions (zm_core_rank_mem_setup ran). */
int zm_core_rank_mem_on(void);

/* Reserve the regions of `nranks` ranks with stacks of stack_size bytes
 * and program copies of copy_span bytes; 0, or -1 with a message in err.
 * Main thread, before the job starts. */
int zm_core_rank_mem_setup(int nranks, size_t stack_size, size_t copy_span, char *err,
                           size_t errlen);

/* Whether rank `rank` has a region (ranks spawned at run time have none).
 * Any thread. */
int zm_core_rank_mem_has(int rank);

/* Header of rank `rank`'s region (a fixed address).  Any thread. */
zm_rank_mem_t *zm_core_rank_mem(int rank);

/* Make rank `rank`'s header, stack and heap usable; `fresh` also writes a
 * new header (a restart reads the saved one over it).  0 or -1.  Main
 * thread, before the job starts. */
int zm_core_rank_mem_init(int rank, int fresh);

/* Nonzero if h is a header this process's layout would write for `rank`
 * (a restart checks the saved one with it).  Any thread. */
int zm_core_rank_mem_valid(const zm_rank_mem_t *h, int rank);

/* The header of the region holding p, or NULL if p is in none.  Any thread. */
zm_rank_mem_t *zm_core_rank_mem_owner(const void *p);

/* The rank heap: allocate n bytes (16-aligned) in h's region, free what
 * it returned, the usable size of a block, and an allocation aligned to a
 * power of two.  NULL when the region is full.  Any thread (one lock per
 * region); the caller owns the blocks. */
void *zm_core_heap_alloc(zm_rank_mem_t *h, size_t n);
void *zm_core_heap_calloc(zm_rank_mem_t *h, size_t n);
/* zm_core_heap_alloc that also says whether the block is memory never
 * used before (still zero).  Used by zm_core_heap_calloc. */
void *zm_core_heap_alloc2(zm_rank_mem_t *h, size_t n, int *fresh);
void zm_core_heap_free(zm_rank_mem_t *h, void *p);
size_t zm_core_heap_usable(void *p);
void *zm_core_heap_aligned(zm_rank_mem_t *h, size_t align, size_t n);

/* Library objects a rank keeps between calls (derived datatypes, their
 * layouts and envelopes: src/dt/dt_type.c).  In a job whose ranks have
 * regions (zm_core_obj_ranks_enable ran) an object made on a rank's own
 * ULT comes from that rank's heap, so that it moves with the rank to
 * another process (docs/migrate.md, "Across processes, second version")
 * and its handle stays valid there; on any other thread, and in every
 * other job, from libc.  zm_core_obj_free and zm_core_obj_realloc take
 * either kind (they look at the address).  Other jobs pay one test of a
 * flag per call.  Any thread; the caller owns the memory. */
extern int zm_core_obj_in_ranks;
void zm_core_obj_ranks_enable(void);
/* The region whose heap zm_core_obj_alloc uses on the calling thread: the
 * calling rank's, or NULL (other jobs; a thread that is no rank's own,
 * such as a foreign thread acting for a rank). */
zm_rank_mem_t *zm_core_obj_region(void);
void *zm_core_obj_alloc_slow(size_t n, int zero);
void zm_core_obj_free_slow(void *p);
void *zm_core_obj_realloc_slow(void *p, size_t n);

/* Free a block of either kind: a rank heap's (found by its address) or
 * libc's.  Resize one: a libc block with realloc; a rank heap block in
 * place when it fits, else copied into a new block from h's heap (libc's
 * when h is NULL); NULL with errno ENOMEM when none is left, p then still
 * valid.  Shared by the library's objects (zm_core_obj_*) and the
 * program's malloc wrappers (zmpi_heap_*).  Any thread; the caller owns
 * the result. */
void zm_core_mem_free(void *p);
void *zm_core_mem_realloc(zm_rank_mem_t *h, void *p, size_t n);

static inline void *zm_core_obj_alloc(size_t n)
{
    return ZM_LIKELY(!zm_core_obj_in_ranks) ? malloc(n) : zm_core_obj_alloc_slow(n, 0);
}

static inline void *zm_core_obj_calloc(size_t m, size_t n)
{
    if (ZM_LIKELY(!zm_core_obj_in_ranks))
        return calloc(m, n);
    return n && m > SIZE_MAX / n ? NULL : zm_core_obj_alloc_slow(m * n, 1);
}

static inline void *zm_core_obj_realloc(void *p, size_t n)
{
    return ZM_LIKELY(!zm_core_obj_in_ranks) ? realloc(p, n) : zm_core_obj_realloc_slow(p, n);
}

static inline void zm_core_obj_free(void *p)
{
    if (ZM_LIKELY(!zm_core_obj_in_ranks))
        free(p);
    else
        zm_core_obj_free_slow(p);
}

/* Add `by` (+1 made, -1 released) to the count *n of a kind of library
 * object when obj lies in the process's own memory (libc's: every job
 * without rank regions, and objects made off a rank's own thread) rather
 * than in a rank's heap: those cannot move with a rank or be checkpointed,
 * while a rank takes its heap's along (zm_dt_live, zm_op_live).  Any
 * thread. */
static inline void zm_core_obj_count_process(_Atomic long *n, const void *obj, long by)
{
    if (!zm_core_obj_in_ranks || !zm_core_rank_mem_owner(obj))
        atomic_fetch_add_explicit(n, by, memory_order_relaxed);
}

/* Index of the worker running the caller (0 outside a job, -1 on a
 * foreign thread acting for a rank: ult.h). */
static inline int zm_core_worker_index(void)
{
    zm_ult_t *u = zm_ult_self();
    return u ? u->worker_id : 0;
}

#endif /* ZM_CORE_H */
