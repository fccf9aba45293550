/*
 * launch_heap.c: the malloc family of a privatized program (libzmpi_priv.a;
 * zmpicc links the program with --wrap for each, docs/checkpoint.md).
 *
 * In a job started with checkpoints on (zmpirun --checkpoint), a rank's
 * allocations come from its own region at a fixed address (the rank heap,
 * src/core/rank_mem.c), so that a checkpoint saves them and a restart puts
 * them back where the rank's pointers expect them.  Otherwise, and on
 * threads that are no rank's, every call goes to libc unchanged: the only
 * cost is one test of zmpi_heap_on.  free and realloc look at the address:
 * memory a system library allocated for the program (strdup, getline)
 * stays libc's, and is freed by libc.  Only the calls in the program's
 * own objects are redirected (--wrap); memory that libraries allocate for
 * themselves is libc's and is not part of a checkpoint.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <unistd.h>
#include <stdint.h>
#include <string.h>

extern int zmpi_heap_on;
void *zmpi_heap_malloc(size_t n);
void *zmpi_heap_calloc(size_t m, size_t n);
void zmpi_heap_free(void *p);
void *zmpi_heap_realloc(void *p, size_t n);
void *zmpi_heap_aligned(size_t align, size_t n);
int zmpi_heap_owns(const void *p);
size_t zmpi_heap_usable(void *p);

void *__real_malloc(size_t n);
void __real_free(void *p);
void *__real_calloc(size_t m, size_t n);
void *__real_realloc(void *p, size_t n);
int __real_posix_memalign(void **out, size_t align, size_t n);
void *__real_aligned_alloc(size_t align, size_t n);
void *__real_memalign(size_t align, size_t n);
void *__real_valloc(size_t n);
size_t __real_malloc_usable_size(void *p);

void *__wrap_malloc(size_t n)
{
    return zmpi_heap_on ? zmpi_heap_malloc(n) : __real_malloc(n);
}

void __wrap_free(void *p)
{
    if (zmpi_heap_on)
        zmpi_heap_free(p);
    else
        __real_free(p);
}

void *__wrap_calloc(size_t m, size_t n)
{
    return zmpi_heap_on ? zmpi_heap_calloc(m, n) : __real_calloc(m, n);
}

void *__wrap_realloc(void *p, size_t n)
{
    return zmpi_heap_on ? zmpi_heap_realloc(p, n) : __real_realloc(p, n);
}

/* Alignments must be powers of two (and, for posix_memalign, multiples of
 * a pointer's size), as libc requires. */
static int bad_align(size_t align)
{
    return align == 0 || (align & (align - 1)) != 0;
}

int __wrap_posix_memalign(void **out, size_t align, size_t n)
{
    if (!zmpi_heap_on)
        return __real_posix_memalign(out, align, n);
    if (bad_align(align) || align % sizeof(void *) != 0)
        return EINVAL;
    void *p = zmpi_heap_aligned(align, n);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

/* aligned_alloc and memalign from the rank heap: EINVAL for an alignment
 * that is no power of two. */
static void *heap_aligned_checked(size_t align, size_t n)
{
    if (bad_align(align)) {
        errno = EINVAL;
        return NULL;
    }
    return zmpi_heap_aligned(align, n);
}

void *__wrap_aligned_alloc(size_t align, size_t n)
{
    return zmpi_heap_on ? heap_aligned_checked(align, n) : __real_aligned_alloc(align, n);
}

void *__wrap_memalign(size_t align, size_t n)
{
    return zmpi_heap_on ? heap_aligned_checked(align, n) : __real_memalign(align, n);
}

void *__wrap_valloc(size_t n)
{
    return zmpi_heap_on ? zmpi_heap_aligned((size_t)sysconf(_SC_PAGESIZE), n) : __real_valloc(n);
}

size_t __wrap_malloc_usable_size(void *p)
{
    if (!p)
        return 0;
    return zmpi_heap_on && zmpi_heap_owns(p) ? zmpi_heap_usable(p) : __real_malloc_usable_size(p);
}

/* Functions of libc that return memory the program frees, or that grow a
 * buffer the program allocated: with the rank heap on, they must use it
 * (libc's realloc cannot take a rank heap block, and a libc block would
 * not be in a checkpoint). */
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
ssize_t __real_getdelim(char **line, size_t *cap, int delim, FILE *f);
ssize_t __real_getline(char **line, size_t *cap, FILE *f);

char *__wrap_strdup(const char *s)
{
    if (!zmpi_heap_on)
        return __real_strdup(s);
    size_t n = strlen(s) + 1;
    char *d = zmpi_heap_malloc(n);
    return d ? memcpy(d, s, n) : NULL;
}

char *__wrap_strndup(const char *s, size_t n)
{
    if (!zmpi_heap_on)
        return __real_strndup(s, n);
    size_t len = strnlen(s, n);
    char *d = zmpi_heap_malloc(len + 1);
    if (!d)
        return NULL;
    memcpy(d, s, len);
    d[len] = '\0';
    return d;
}

/* getdelim with the buffer grown by the rank heap; libc's semantics:
 * returns the bytes read (delimiter included, NUL added) or -1 at end of
 * file or on error, with errno set. */
ssize_t __wrap_getdelim(char **line, size_t *cap, int delim, FILE *f)
{
    if (!zmpi_heap_on)
        return __real_getdelim(line, cap, delim, f);
    if (!line || !cap || !f) {
        errno = EINVAL;
        return -1;
    }
    size_t len = 0;
    flockfile(f);
    for (;;) {
        int c = getc_unlocked(f);
        if (c == EOF)
            break;
        if (len + 2 > *cap || !*line) {
            size_t want = *cap < 120 ? 120 : *cap * 2;
            char *p = zmpi_heap_realloc(*line, want);
            if (!p) {
                funlockfile(f);
                errno = ENOMEM;
                return -1;
            }
            *line = p;
            *cap = want;
        }
        (*line)[len++] = (char)c;
        if (c == delim)
            break;
    }
    funlockfile(f);
    if (len == 0)
        return -1;
    (*line)[len] = '\0';
    return (ssize_t)len;
}

ssize_t __wrap_getline(char **line, size_t *cap, FILE *f)
{
    return zmpi_heap_on ? __wrap_getdelim(line, cap, '\n', f) : __real_getline(line, cap, f);
}
