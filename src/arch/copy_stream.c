/*
 * copy_stream.c: a copy whose stores bypass the caches.
 *
 * Messages larger than the last-level cache gain nothing from leaving their
 * destination in cache: it is evicted before anyone reads it.  Ordinary
 * stores first read every destination line from memory (read for
 * ownership); streaming stores do not, so a huge copy moves two streams
 * through memory instead of three.
 */
#include "arch/arch.h"

#include <string.h>

#if defined(__x86_64__)
#include <emmintrin.h>

void zm_arch_copy_stream(void *dst, const void *src, size_t n)
{
    char *d = dst;
    const char *s = src;
    /* Align the destination to 16 bytes with an ordinary copy. */
    size_t head = (size_t)(-(uintptr_t)d & 15);
    if (head > n)
        head = n;
    memcpy(d, s, head);
    d += head;
    s += head;
    n -= head;
    for (; n >= 64; n -= 64, d += 64, s += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)s);
        __m128i b = _mm_loadu_si128((const __m128i *)(s + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(s + 32));
        __m128i e = _mm_loadu_si128((const __m128i *)(s + 48));
        _mm_stream_si128((__m128i *)d, a);
        _mm_stream_si128((__m128i *)(d + 16), b);
        _mm_stream_si128((__m128i *)(d + 32), c);
        _mm_stream_si128((__m128i *)(d + 48), e);
    }
    memcpy(d, s, n);
    /* Streaming stores are weakly ordered: make them visible before any
     * later store (the caller's completion flag). */
    _mm_sfence();
}

#else

void zm_arch_copy_stream(void *dst, const void *src, size_t n)
{
    memcpy(dst, src, n);
}

#endif
