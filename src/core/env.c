/*
 * env.c: reading the ZMPI_* settings from the environment.
 */
#include "core/core.h"

#include <errno.h>
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
