/*
 * arch: the only layer that knows the CPU and the operating system.
 *
 * Everything above it sees context switching, stacks, futexes, time and
 * fault handling through these functions; no other directory contains
 * assembly or OS-specific #ifdefs.
 */
#ifndef ZM_ARCH_H
#define ZM_ARCH_H

#include <signal.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>

/* A saved execution context is just its stack pointer; the registers live
 * on the context's own stack (see ctx_*.S). */
typedef struct zm_arch_ctx {
    void *sp; /* stack pointer saved by the last switch away */
} zm_arch_ctx_t;

/* A mapped stack with an inaccessible guard page below it. */
typedef struct zm_arch_stack {
    void *map;         /* start of the mapping (the guard page) */
    size_t map_size;   /* whole mapping, guard included */
    void *lo;          /* lowest usable byte (just above the guard) */
    void *hi;          /* one past the highest usable byte */
    unsigned vg_id;    /* valgrind's id of the stack (valgrind_shim.h) */
} zm_arch_stack_t;

/* Assembly entry (ctx_<arch>_*.S).  Saves the running context into *save_sp
 * and resumes the one saved at new_sp.  Any thread; both contexts must
 * belong to the calling thread's scheduler. */
void zm_arch_ctx_swap(void **save_sp, void *new_sp);

/* Switch from context `from` to context `to` on the calling thread. */
static inline void zm_arch_ctx_switch(zm_arch_ctx_t *from, zm_arch_ctx_t *to)
{
    zm_arch_ctx_swap(&from->sp, to->sp);
}

/* Prepare `ctx` so that switching to it calls entry(arg) on `stack`.
 * entry must never return.  Any thread; no allocation. */
void zm_arch_ctx_make(zm_arch_ctx_t *ctx, const zm_arch_stack_t *stack,
                      void (*entry)(void *), void *arg);

/* Map a stack of at least `size` usable bytes plus a guard page.  Memory is
 * committed lazily by the kernel.  Under valgrind the stack is registered
 * as one, so that switching to it is not taken for a huge frame.  Returns
 * 0, or -1 if the mapping failed.  Any thread; the caller owns the mapping
 * until zm_arch_stack_free. */
int zm_arch_stack_alloc(size_t size, zm_arch_stack_t *stack);

/* Unmap a stack made by zm_arch_stack_alloc (and withdraw it from
 * valgrind).  Any thread other than one running on the stack. */
void zm_arch_stack_free(zm_arch_stack_t *stack);

/* Sleep while *word == expected (or until woken / spuriously).  Any thread. */
void zm_arch_futex_wait(uint32_t *word, uint32_t expected);

/* zm_arch_futex_wait for at most ns nanoseconds; returns 1 if the time
 * ran out, 0 otherwise (woken, *word != expected, or interrupted).  Any
 * thread. */
int zm_arch_futex_wait_ns(uint32_t *word, uint32_t expected, uint64_t ns);

/* Wake up to `n` threads sleeping on word.  Any thread. */
void zm_arch_futex_wake(uint32_t *word, int n);

/* Asymmetric memory barrier (Linux membarrier, private expedited).
 * zm_arch_membarrier_init registers the process and returns 1 if the
 * system has it, else 0; call it once before any thread relies on it.
 * zm_arch_membarrier then makes every other running thread of the process
 * execute a full memory barrier before it returns, so that those threads
 * may order a store before a later load with a compiler barrier where
 * this rare caller pays the syscall.  Any thread. */
int zm_arch_membarrier_init(void);
void zm_arch_membarrier(void);

/* Monotonic time in nanoseconds.  Any thread, no syscall on Linux (vDSO). */
uint64_t zm_arch_time_ns(void);

/* An opaque, nonzero handle of the calling thread's CPU-time clock, which
 * any thread of the process may pass to zm_arch_thread_cpu_ns.  Any
 * thread. */
uint64_t zm_arch_thread_clock(void);

/* Nanoseconds of CPU time that the thread of `clock` has used so far; 0
 * for a zero handle or when the system cannot tell.  A system call: for
 * rare callers only.  Any thread. */
uint64_t zm_arch_thread_cpu_ns(uint64_t clock);

/* Nanoseconds the calling thread has spent ready to run but waiting for a
 * CPU so far (the kernel's run delay; where the kernel does not keep it, 1
 * ms per involuntary context switch).  One system call (a read of a
 * descriptor the thread opens at its first call and keeps until
 * zm_arch_thread_wait_end): for rare callers only.  Any thread. */
uint64_t zm_arch_thread_wait_ns(void);

/* Closes the descriptor zm_arch_thread_wait_ns keeps for the calling
 * thread, if it opened one; a thread that samples its wait calls this
 * before it ends.  Any thread, for itself. */
void zm_arch_thread_wait_end(void);

/* Resolution of zm_arch_time_ns in seconds. */
double zm_arch_time_resolution(void);

/* The most memory maps the system lets this process hold (Linux:
 * vm.max_map_count), or -1 if unknown; *in_use is set to how many it holds
 * now (0 if unknown).  Reads files: start-up only.  Any thread. */
long zm_arch_map_budget(long *in_use);

/* Fixed-address memory for checkpoint/restart (region_linux.c).
 * zm_arch_region_reserve claims [base, base + len) without access, or
 * returns -1 if anything is mapped there; zm_arch_region_commit makes a
 * page-aligned part of it readable and writable (pages appear when
 * touched).  zm_arch_stack_at makes a stack of `size` bytes above a guard
 * page at addr, inside committed memory (freed with zm_arch_stack_free).
 * Any thread; the caller owns the memory. */
int zm_arch_region_reserve(uintptr_t base, size_t len);
int zm_arch_region_commit(uintptr_t addr, size_t len);
int zm_arch_stack_at(uintptr_t addr, size_t size, zm_arch_stack_t *stack);

/* Write len bytes of memory at addr to fd at its offset, leaving holes
 * for whole pages that were never touched or hold zeros; read them back
 * at addr from fd's offset, reading only the file's data, so that holes
 * leave the memory (zero, untouched) alone.  Both advance the offset by
 * len and return 0, or -1 with errno.  Any thread. */
int zm_arch_region_save(int fd, uintptr_t addr, size_t len);
int zm_arch_region_load(int fd, uintptr_t addr, size_t len);

/* Nonzero if this process runs with address-space randomization off, so
 * that shared libraries sit at the same addresses in every run of the
 * program (zmpirun --checkpoint turns it off for the job).  Any thread. */
int zm_arch_aslr_off(void);

/* The stack-protector canary of the calling thread (x86-64: its thread
 * block; AArch64: the process's).  A restarted rank's frames were entered
 * with the first process's canary, so the restart runs its job with it
 * (zm_arch_canary_set) and puts its own back before its earlier frames
 * return.  Threads created later inherit the calling thread's value. */
uintptr_t zm_arch_canary_get(void);
void zm_arch_canary_set(uintptr_t v);

/* Number of CPUs this process may run on (its affinity mask). */
int zm_arch_ncpus(void);

/* Page size in bytes. */
size_t zm_arch_page_size(void);

/* Copy n bytes with stores that bypass the caches, for copies far larger
 * than the last-level cache; the stores are complete (visible to other
 * cores in order with later stores) when it returns.  Any thread. */
void zm_arch_copy_stream(void *dst, const void *src, size_t n);

/* Copy k runs of len >= 64 bytes, the destination runs ds bytes apart and
 * the source runs ss bytes apart, with the widest vector moves the CPU
 * has (copy_wide.c).  Runs must not overlap each other's bytes.  Any
 * thread; the caller owns both buffers. */
void zm_arch_copy_runs(char *d, ptrdiff_t ds, const char *s, ptrdiff_t ss, size_t len,
                       size_t k);

/* As zm_arch_copy_runs, but the destination is written with 64-byte
 * streaming stores where the CPU has them (copy_wide.c): they do not read
 * the destination lines first and leave them out of the caches, for
 * outputs larger than the last-level cache.  Only the lines a run fills
 * whole are streamed, so runs should span several lines.  The stores are
 * fenced before it returns.  Any thread; the caller owns both buffers. */
void zm_arch_copy_runs_stream(char *d, ptrdiff_t ds, const char *s, ptrdiff_t ss, size_t len,
                              size_t k);

/* Load a private copy of the running program (which must be linked as an
 * executable shared object) for rank `id`; returns its handle, or NULL with
 * a message in err.  The copy has its own global variables; its
 * constructors run on the calling thread.  `at` nonzero: zmpi's loader
 * places it there, and with `restore` leaves its data for the caller to
 * fill and runs no constructors (zm_arch_clone_load).  Any thread; the
 * caller owns the handle until zm_arch_image_close. */
void *zm_arch_image_clone(int id, uintptr_t at, int restore, char *err, size_t errlen);

/* The zmpi-loader copy behind an image (NULL for a dlopen'ed one). */
struct zm_arch_clone *zm_arch_image_own(void *image);

/* Check that the running program can be copied per rank: code built
 * without -fPIC reads data of system libraries (std::cout, say) through
 * copy relocations, which a copy cannot share.  Returns 0 if it can, or
 * -1 with a message naming the symbols and the fix in err.  Main thread,
 * before the first clone. */
int zm_arch_image_check(const char *prog, char *err, size_t errlen);

/* The GNU build id (hex) of the loaded object that contains `addr`, or of
 * the program itself when addr is NULL, into out (at most n bytes with
 * the terminating zero); "" when the object has none.  Any thread; the
 * caller owns out. */
void zm_arch_build_id(const void *addr, char *out, size_t n);

/* Run the destructors of the process's shared libraries, last loaded
 * first, as the dynamic loader does at exit for a program started by
 * libc's start code (a privatized program starts at zmpi's own entry, so
 * the loader's exit handler is never registered).  Once per process; at
 * exit, on the thread calling exit. */
void zm_arch_libs_fini(void);

/* Load a private copy of program file `prog` (a PIE linked by zmpicc for
 * privatization; zm_arch_image_probe checks it) for ULT `id`, as
 * zm_arch_image_clone does for the running program.  Any thread; the
 * caller owns the handle until zm_arch_image_close. */
void *zm_arch_image_load(const char *prog, int id, char *err, size_t errlen);

/* Check, without loading it, that file `prog` is a program that
 * zm_arch_image_load can run as virtual ranks: a 64-bit ELF PIE of this
 * machine that needs libzmpi.so and exports main (zmpicc's privatized
 * link).  Returns 0, or -1 with the reason in `why`.  Any thread. */
int zm_arch_image_probe(const char *prog, char *why, size_t whylen);

/* Address of the function `main` in a copy made by zm_arch_image_clone
 * or zm_arch_image_load, or NULL. */
void *zm_arch_image_main(void *image);

/* Unload a copy: its destructors run on the calling thread. */
void zm_arch_image_close(void *image);

/* The arguments a copy's constructors receive (argc, argv, envp, as the
 * dynamic loader passes them).  Main thread, before the first clone; the
 * caller keeps the strings alive. */
void zm_arch_clone_args(int argc, char **argv, char **envp);

/* zmpi's own loader of rank copies (image_clone_linux.c), used by
 * zm_arch_image_clone.  zm_arch_clone_usable reads the program once (any
 * thread, first call builds) and returns NULL if copies can be made, else
 * why not.  zm_arch_clone_load maps one copy (see below for its `at` and
 * `restore`) and runs its constructors on
 * the calling thread (NULL and err on failure); zm_arch_clone_main gives
 * its main; zm_arch_clone_close runs its destructors and releases its
 * writable memory.  zm_arch_clone_locate turns a program counter inside
 * a copy into an address of the program file (for symbolizing; async-
 * signal-safe); returns 0 when pc is in no copy. */
struct zm_arch_clone;
const char *zm_arch_clone_usable(void);
struct zm_arch_clone *zm_arch_clone_load(uintptr_t at, int restore, char *err, size_t errlen);
void *zm_arch_clone_main(struct zm_arch_clone *c);
void zm_arch_clone_close(struct zm_arch_clone *c);
int zm_arch_clone_locate(uintptr_t pc, uintptr_t *off);
int zm_arch_clone_maps(void);
/* For checkpoint/restart: zm_arch_clone_load's `at` places the copy at
 * that address (0: anywhere), inside memory the caller reserved for
 * zm_arch_clone_span() bytes; `restore` leaves its writable segment zero
 * and runs no constructors, for the caller to write saved contents.
 * zm_arch_clone_rw gives that segment's place and length. */
size_t zm_arch_clone_span(void);
void zm_arch_clone_rw(const struct zm_arch_clone *c, void **start, size_t *len);

/* Memory maps each rank's copy of the running program takes (the kernel
 * caps a process's maps), with the loader zm_arch_image_clone will use.
 * Main thread, before the first clone. */
int zm_arch_image_maps(void);

/* ZM_ARCH_WIDE on a function compiles it once per vector width (AVX-512,
 * AVX2 and the x86-64 baseline's SSE2) and lets the dynamic loader pick
 * the widest version the CPU runs (a GNU ifunc), so that element loops
 * such as reductions and run copies use the CPU's full vector width while
 * the library still runs on any x86-64.  Elsewhere it expands to nothing. */
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__)
#define ZM_ARCH_WIDE __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define ZM_ARCH_WIDE
#endif

/* A cheap, monotonic-enough tick count for measuring short delays (the
 * time-stamp counter on x86-64, the virtual counter on AArch64); units
 * are the CPU's, about a nanosecond.  Any thread. */
static inline uint64_t zm_arch_ticks(void)
{
#if defined(__x86_64__)
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t)hi << 32 | lo;
#elif defined(__aarch64__)
    uint64_t v;
    __asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
    return v;
#else
    return zm_arch_time_ns();
#endif
}

/* A full fence for ordinary memory: stores before it become visible to
 * other threads before loads after it are performed, as
 * atomic_thread_fence(memory_order_seq_cst).  On x86-64 a locked no-op on
 * the stack does that in about half the cycles of MFENCE, which also
 * orders non-temporal stores and device memory; every copy of this
 * library and of glibc that streams ends with SFENCE, so no such store is
 * open when this runs.  Any thread. */
static inline void zm_arch_full_fence(void)
{
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
    __asm__ __volatile__("lock orq $0, (%%rsp)" ::: "memory", "cc");
#else
    atomic_thread_fence(memory_order_seq_cst);
#endif
}

/* Pause hint for spin loops. */
static inline void zm_arch_cpu_relax(void)
{
#if defined(__x86_64__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

/* Called from the SIGSEGV/SIGBUS handler with the faulting address.  It may
 * only use async-signal-safe calls (write(2)).  It returns nonzero when it
 * recognised and reported the fault, after which the process exits; 0 when
 * the fault is not one it understands (the default action then follows). */
typedef int (*zm_arch_fault_fn)(void *addr);

/* Install the process-wide SIGSEGV/SIGBUS handler that first asks `fn`
 * whether the fault is a known one (a stack guard page).  Call once, from
 * the main thread, before any worker starts. */
void zm_arch_fault_install(zm_arch_fault_fn fn);

/* Report a crash of the calling thread (fatal signal `sig`) on stderr:
 * the rank (as the function given to zm_arch_crash_install names it), the
 * signal and a symbolized backtrace, after pushing out buffered stdout.
 * uctx is the handler's saved context.
 * Called from the fatal-signal handler; the first crashing thread reports,
 * any other waits for the process to end. */
void zm_arch_crash_report(int sig, const siginfo_t *info, const void *uctx);

/* Prepare crash reports (the program's path, the unwinder, addr2line) and
 * install the fatal-signal handler for SIGSEGV, SIGBUS, SIGILL, SIGFPE and
 * SIGABRT.  rank_fn names the rank running on the calling thread (-1 for
 * none).  Main thread, once, before the ranks start. */
void zm_arch_crash_install(int (*rank_fn)(void));

/* Install the fatal-signal handler (also done by the two calls above). */
void zm_arch_crash_signals(void);

/* Give the calling thread an alternate signal stack so a stack overflow can
 * still be reported.  Call once on every worker thread.  Returns 0 or -1. */
int zm_arch_fault_thread_init(void);

/* Host name of this machine into buf (always terminated). */
void zm_arch_hostname(char *buf, size_t len);

/* Move up to len bytes through connected socket fd without blocking:
 * send them (out != 0) or receive them.  Returns the bytes moved (0 when
 * the socket is not ready), or -errno (-EPIPE when the other end closed
 * it).  The socket's own blocking mode is left alone.  Any thread. */
long zm_arch_sock_try(int fd, void *buf, size_t len, int out);

/* Block the calling thread until socket fd is ready to send (out) or to
 * receive, or ms milliseconds have passed.  Any thread. */
void zm_arch_sock_wait(int fd, int out, int ms);

/* 64 bits from the kernel's random source (or, failing that, from the
 * clock and the process id).  Any thread. */
uint64_t zm_arch_random64(void);

/* ---- Files (file_linux.c), for MPI-IO ------------------------------------
 * Each call returns a non-negative result or -errno (never sets a rank's
 * state).  Any thread; the calls may block in the kernel. */

/* Open flags of zm_arch_file_open. */
enum {
    ZM_ARCH_FILE_RDONLY = 1,  /* read only */
    ZM_ARCH_FILE_WRONLY = 2,  /* write only */
    ZM_ARCH_FILE_RDWR = 4,    /* read and write */
    ZM_ARCH_FILE_CREATE = 8,  /* create if missing */
    ZM_ARCH_FILE_EXCL = 16    /* fail if it exists (with CREATE) */
};

/* Open `path` (created with mode 0666 less the umask); returns the file
 * descriptor or -errno (-EISDIR for a directory). */
int zm_arch_file_open(const char *path, int flags);

/* Close a descriptor; 0 or -errno. */
int zm_arch_file_close(int fd);

/* Read up to n bytes at `off`; returns the bytes read (fewer only at the
 * end of the file) or -errno. */
int64_t zm_arch_file_pread(int fd, void *buf, size_t n, int64_t off);

/* Write all n bytes at `off`; returns n or -errno. */
int64_t zm_arch_file_pwrite(int fd, const void *buf, size_t n, int64_t off);

/* Make the file's data and metadata durable; 0 or -errno. */
int zm_arch_file_sync(int fd);

/* Start writing bytes [off, off + n) back to the storage without waiting
 * for it (a later zm_arch_file_sync then has less to do); 0 or -errno. */
int zm_arch_file_writeback(int fd, int64_t off, int64_t n);

/* Set the file's size (truncate or extend with zeros); 0 or -errno. */
int zm_arch_file_truncate(int fd, int64_t size);

/* Reserve storage for the first `size` bytes (the file grows to at least
 * `size`, never shrinks); 0 or -errno. */
int zm_arch_file_allocate(int fd, int64_t size);

/* The file's size in bytes, or -errno. */
int64_t zm_arch_file_size(int fd);

/* Remove the name `path`; 0 or -errno. */
int zm_arch_file_unlink(const char *path);

/* Take (`on` nonzero, waiting while another process holds it) or drop
 * this process's exclusive lock on the whole file, an advisory record
 * lock that excludes other processes only (threads of one process share
 * it, so callers serialise them first); 0 or -errno. */
int zm_arch_file_lock(int fd, int on);

/* ---- Memory shared between processes of one node (shm_linux.c) ----------
 * For windows across the processes of one node.  Any thread. */

/* Map the shared-memory object `name` ("/..." as for shm_open) of `bytes`
 * bytes: create it (failing if it exists, its pages reserved: -ENOSPC if
 * the node's shared memory cannot hold them) when `create`, else open the
 * one another process created.  Returns the mapping, or NULL with *err =
 * -errno.  The caller unmaps it with zm_arch_shm_unmap. */
void *zm_arch_shm_map(const char *name, size_t bytes, int create, int *err);

/* Unmap a mapping of zm_arch_shm_map (NULL: nothing). */
void zm_arch_shm_unmap(void *p, size_t bytes);

/* Remove the name of a shared-memory object (its memory stays while
 * mapped); 0 or -errno. */
int zm_arch_shm_unlink(const char *name);

/* Copy between the contiguous local `buf` and process `pid`'s memory at
 * the n runs { offset from base, bytes } (in data order): write nonzero
 * copies buf there, else from there into buf.  Returns 0, or -errno
 * (-EPERM or -ENOSYS where the system forbids cross-memory attach,
 * -EFAULT if part of the range is not mapped there).  Any thread. */
int zm_arch_cma_copy(int pid, int write, void *buf, uintptr_t base, const int64_t (*runs)[2],
                     size_t n);

#endif /* ZM_ARCH_H */
