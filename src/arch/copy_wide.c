/*
 * copy_wide.c: copies of runs of 64 bytes and more in the widest vector
 * moves the CPU has.
 *
 * The library is built for the x86-64 baseline, whose vectors are 16
 * bytes wide, so a loop written in C moves 16 bytes per instruction even
 * on a CPU that moves 64 (measured on an AMD Zen 5: packing 512-byte to
 * 2 KiB blocks of a vector held in L2 ran at 70-78 GB/s through memcpy
 * calls per block and at 100-107 GB/s with 64-byte moves).  The function
 * is compiled once per vector width (ZM_ARCH_WIDE) and the loader picks
 * the widest the CPU runs.
 */
#include "arch/arch.h"

#include <string.h>

/* 64 bytes in one vector register where the CPU has one that wide, in two
 * or four otherwise.  Loads and stores go through memcpy, so no alignment
 * is assumed; they are macros because a function returning such a vector
 * would have a different calling convention in each version. */
typedef char v64_t __attribute__((vector_size(64)));
#define LOAD64(v, p) memcpy(&(v), (p), sizeof(v64_t))
#define STORE64(p, v) memcpy((p), &(v), sizeof(v64_t))

/* Copy one run of len >= 64 bytes: 64 bytes at a time, then the last 64
 * bytes of the run again, overlapping what was already copied (source and
 * destination never overlap, so rewriting a few bytes with the same values
 * is harmless).  One load and one store per step: unrolling by four with
 * all loads before the stores measured 20-30 % slower on Zen 5 (1 KiB
 * blocks of a vector in L2: 77-87 against 102-106 GB/s). */
static inline void copy_one(char *d, const char *s, size_t len)
{
    v64_t a;
    size_t i = 0;
    for (; i + 64 <= len; i += 64) {
        LOAD64(a, s + i);
        STORE64(d + i, a);
    }
    if (i < len) {
        LOAD64(a, s + len - 64);
        STORE64(d + len - 64, a);
    }
}

ZM_ARCH_WIDE void zm_arch_copy_runs(char *d, ptrdiff_t ds, const char *s, ptrdiff_t ss,
                                    size_t len, size_t k)
{
    for (size_t j = 0; j < k; j++, d += ds, s += ss)
        copy_one(d, s, len);
}
