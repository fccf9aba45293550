/*
 * env.c: reading the ZMPI_* settings from the environment.
 */
#include "core/core.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

long zm_core_env_long(const char *name, long def, long min)
{
    const char *s = getenv(name);
    char *end;
    if (!s || !*s)
        return def;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < min) {
        fprintf(stderr, "zmpi: invalid %s=%s (need an integer >= %ld)\n", name, s, min);
        exit(2);
    }
    return v;
}

int zm_core_env_flag(const char *name, _Atomic int *cache)
{
    int f = atomic_load_explicit(cache, memory_order_relaxed);
    if (f < 0) {
        const char *e = getenv(name);
        f = e && *e == '1';
        atomic_store_explicit(cache, f, memory_order_relaxed);
    }
    return f;
}

int zm_core_asym_fence(void)
{
    static _Atomic int state; /* 0: not decided yet, 1: fences, 2: asymmetric */
    int s = atomic_load_explicit(&state, memory_order_acquire);
    if (s)
        return s == 2;
    /* Two first callers both register, which the system allows. */
    const char *f = getenv("ZMPI_COLL_FENCE");
    int asym = f && *f == '1' ? 0 : zm_arch_membarrier_init();
    atomic_store_explicit(&state, asym ? 2 : 1, memory_order_release);
    return asym;
}
