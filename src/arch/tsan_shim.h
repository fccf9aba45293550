/*
 * tsan_shim.h: what the arch layer tells ThreadSanitizer about zmpi's
 * stack switches (docs/debugging.md, "Sanitizers").
 *
 * TSan keeps a shadow call stack and a vector clock per thread.  Ranks are
 * user-level threads that zmpi switches between on a few worker threads,
 * so without help TSan would take every rank a worker runs for one thread
 * and mix their call stacks and histories.  TSan's fiber interface gives
 * each ULT a state of its own: zm_arch_tsan_enter before every switch to a
 * ULT, zm_arch_tsan_enter_sched before every switch back to a worker's
 * scheduler context.  libzmpi is not built with -fsanitize=thread and so
 * does not link TSan: the interface is looked up with dlsym when libzmpi
 * is loaded, and the calls are made only when a program built with
 * -fsanitize=thread brought TSan's run time into the process.  Without it
 * a switch pays one load and one predictable branch.
 */
#ifndef ZM_ARCH_TSAN_SHIM_H
#define ZM_ARCH_TSAN_SHIM_H

#include <stddef.h>

/* TSan's fiber interface (its tsan_interface.h), or all NULL when TSan's
 * run time is not in the process.  Set once, before main. */
typedef struct zm_arch_tsan {
    void *(*get_current_fiber)(void);
    void *(*create_fiber)(unsigned flags);
    void (*destroy_fiber)(void *fiber);
    void (*switch_to_fiber)(void *fiber, unsigned flags);
    void (*acquire)(void *addr);
    void (*release)(void *addr);
} zm_arch_tsan_t;

extern zm_arch_tsan_t zm_arch_tsan;

/* Nonzero when TSan's run time is in the process.  Any thread. */
static inline int zm_arch_tsan_on(void)
{
    return __builtin_expect(zm_arch_tsan.switch_to_fiber != NULL, 0);
}

/* Happens-before that TSan cannot see, because libzmpi is not
 * instrumented: what the calling rank did before zm_arch_tsan_release(key)
 * happens before what any rank does after a later
 * zm_arch_tsan_acquire(key) of the same key (an address in memory the
 * ranks share).  For the synchronizing MPI calls, around the internal
 * synchronization they make.  Any thread; nothing without TSan. */
static inline void zm_arch_tsan_release(void *key)
{
    if (zm_arch_tsan_on())
        zm_arch_tsan.release(key);
}

static inline void zm_arch_tsan_acquire(void *key)
{
    if (zm_arch_tsan_on())
        zm_arch_tsan.acquire(key);
}

/* Records the calling thread's own TSan state as the one its scheduler
 * context runs on.  Called by a worker thread before its first switch;
 * only when zm_arch_tsan_on(). */
void zm_arch_tsan_thread_start(void);

/* Tells TSan that the calling thread switches to the context whose fiber
 * is *fiber (made on its first use, owned by the caller's record until
 * zm_arch_tsan_forget).  Called right before the switch; only when
 * zm_arch_tsan_on(). */
void zm_arch_tsan_enter(void **fiber);

/* The same for a switch back to the calling worker thread's scheduler
 * context (the thread's own state, zm_arch_tsan_thread_start). */
void zm_arch_tsan_enter_sched(void);

/* Frees the fiber of a context that has finished and will not run again,
 * from another context.  Any thread, only when zm_arch_tsan_on(); *fiber
 * becomes NULL. */
void zm_arch_tsan_forget(void **fiber);

#endif /* ZM_ARCH_TSAN_SHIM_H */
