/*
 * tsan_linux.c: finding ThreadSanitizer's fiber interface at run time, and
 * the out-of-line halves of tsan_shim.h.
 */
#include "arch/tsan_shim.h"

#include <dlfcn.h>

zm_arch_tsan_t zm_arch_tsan;

/* The worker thread's own TSan state, for its switches back to its
 * scheduler context. */
static __thread void *sched_fiber;

/* Switches without TSan's implicit synchronization: ranks that share a
 * worker are ordered by nothing but zmpi's scheduling, which a program
 * must not count on, so TSan reports races between them as it does
 * between ranks on different workers. */
enum { SWITCH_NO_SYNC = 1 };

/* Looks TSan's interface up when libzmpi is loaded: a program built with
 * -fsanitize=thread has TSan's run time among its first libraries, so it
 * is in the process by then, and no rank has run yet.  All functions or
 * none, so that a partial interface is never used. */
__attribute__((constructor)) static void tsan_find(void)
{
    zm_arch_tsan_t t;
    t.get_current_fiber = (void *(*)(void))dlsym(RTLD_DEFAULT, "__tsan_get_current_fiber");
    t.create_fiber = (void *(*)(unsigned))dlsym(RTLD_DEFAULT, "__tsan_create_fiber");
    t.destroy_fiber = (void (*)(void *))dlsym(RTLD_DEFAULT, "__tsan_destroy_fiber");
    t.switch_to_fiber = (void (*)(void *, unsigned))dlsym(RTLD_DEFAULT, "__tsan_switch_to_fiber");
    t.acquire = (void (*)(void *))dlsym(RTLD_DEFAULT, "__tsan_acquire");
    t.release = (void (*)(void *))dlsym(RTLD_DEFAULT, "__tsan_release");
    if (t.get_current_fiber && t.create_fiber && t.destroy_fiber && t.switch_to_fiber &&
        t.acquire && t.release)
        zm_arch_tsan = t;
}

void zm_arch_tsan_thread_start(void)
{
    sched_fiber = zm_arch_tsan.get_current_fiber();
}

void zm_arch_tsan_enter(void **fiber)
{
    if (!*fiber)
        *fiber = zm_arch_tsan.create_fiber(0);
    zm_arch_tsan.switch_to_fiber(*fiber, SWITCH_NO_SYNC);
}

void zm_arch_tsan_enter_sched(void)
{
    zm_arch_tsan.switch_to_fiber(sched_fiber, SWITCH_NO_SYNC);
}

void zm_arch_tsan_forget(void **fiber)
{
    if (*fiber) {
        zm_arch_tsan.destroy_fiber(*fiber);
        *fiber = NULL;
    }
}
