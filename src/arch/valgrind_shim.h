/*
 * valgrind_shim.h: what the arch layer tells valgrind, and how it finds
 * out that valgrind runs it.  Private to src/arch/.
 *
 * Ranks run on stacks that zmpi maps itself and switches between without
 * the kernel's knowledge.  Memcheck, seeing the stack pointer jump, must
 * otherwise guess whether the jump is a switch or a huge frame: a guess of
 * "frame" marks the memory between the two stacks undefined or
 * inaccessible and then reports false errors.  Registering every ULT
 * stack (a client request) removes the guess.
 *
 * The client requests come from valgrind's own header (Debian package
 * valgrind, /usr/include/valgrind/valgrind.h): they are a few no-op
 * instructions when the program runs natively.  Without the header the
 * requests compile to nothing, and zm_arch_vg_running falls back to
 * looking for valgrind's preloaded library in LD_PRELOAD, which valgrind
 * sets for the programs it runs.
 */
#ifndef ZM_ARCH_VALGRIND_SHIM_H
#define ZM_ARCH_VALGRIND_SHIM_H

#include <stdlib.h>
#include <string.h>

/* -DZM_ARCH_HAVE_VALGRIND=0 builds without the header even where it is
 * installed (to test that build). */
#ifndef ZM_ARCH_HAVE_VALGRIND
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#define ZM_ARCH_HAVE_VALGRIND 1
#endif
#endif
#endif
#ifndef ZM_ARCH_HAVE_VALGRIND
#define ZM_ARCH_HAVE_VALGRIND 0
#endif
#if ZM_ARCH_HAVE_VALGRIND
#include <valgrind/valgrind.h>
#endif

/* Nonzero if the process runs under valgrind (any tool).  Any thread. */
static inline int zm_arch_vg_running(void)
{
#if ZM_ARCH_HAVE_VALGRIND
    if (RUNNING_ON_VALGRIND)
        return 1;
#endif
    const char *pre = getenv("LD_PRELOAD");
    return pre && strstr(pre, "/vgpreload_") != NULL;
}

/* Tell valgrind that [lo, hi) is a stack; returns its id for
 * zm_arch_vg_stack_forget (natively 0, and forgetting it does nothing).
 * Any thread. */
static inline unsigned zm_arch_vg_stack_note(void *lo, void *hi)
{
#if ZM_ARCH_HAVE_VALGRIND
    /* Valgrind takes the highest byte of the stack, not the end. */
    return (unsigned)VALGRIND_STACK_REGISTER(lo, (char *)hi - 1);
#else
    (void)lo;
    (void)hi;
    return 0;
#endif
}

/* Withdraw stack `id` of zm_arch_vg_stack_note, before its memory goes.
 * Any thread. */
static inline void zm_arch_vg_stack_forget(unsigned id)
{
#if ZM_ARCH_HAVE_VALGRIND
    VALGRIND_STACK_DEREGISTER(id);
#else
    (void)id;
#endif
}

#endif /* ZM_ARCH_VALGRIND_SHIM_H */
