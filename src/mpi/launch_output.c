/*
 * launch_output.c: whole lines per rank on stdout and stderr, optionally
 * tagged with the rank (libzmpi_priv.a).
 *
 * All ranks of a process write through libc's one stdout and stderr.
 * libc keeps each call whole, but a line a rank builds from several calls
 * (printf("x = "); printf("%d\n", x)) can have another rank's text in the
 * middle when the ranks run on different workers.  The program's calls to
 * the stdio output functions are redirected here (the linker's --wrap,
 * for the program's own objects): each rank collects its text in a line
 * buffer of its own (this file is privatized with the program, so the
 * buffers are per rank) and hands libc complete lines only, each in one
 * locked write.  With ZMPI_TAG_OUTPUT=1 (zmpirun --tag-output) every line
 * starts with "[rank] ".  A rank's stdout lines are pushed out before each
 * of its stderr lines, so the two streams keep their order when they go to
 * the same file.  fflush() of stdout or stderr hands a partial line over
 * as it is, for programs that draw progress on one line.  Other streams
 * (files) go straight to libc.
 */
#define _GNU_SOURCE /* memrchr, fwrite_unlocked */
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int zmpi_output_rank(void);

/* --wrap redirects this file's own calls too: libc is reached through
 * the __real_ names only. */
int __real_vfprintf(FILE *f, const char *fmt, va_list ap);
int __real_fprintf(FILE *f, const char *fmt, ...);
int __real_fputs(const char *s, FILE *f);
int __real_fputc(int c, FILE *f);
size_t __real_fwrite(const void *p, size_t size, size_t n, FILE *f);
int __real_fflush(FILE *f);

/* The text of the line a rank is writing to stdout (0) or stderr (1). */
typedef struct {
    char *buf;
    size_t len, cap;
    int mid;   /* the last text handed over did not end a line */
} line_t;

static line_t lines[2];
static int tag = -1; /* ZMPI_TAG_OUTPUT, read once per rank */

/* The threads a rank creates share its lines (MPI_THREAD_MULTIPLE,
 * docs/threads.md): each call's text goes in whole, under this lock.  It
 * is never held across anything that waits. */
static atomic_flag out_lock = ATOMIC_FLAG_INIT;

static void out_take(void)
{
    for (unsigned i = 1; atomic_flag_test_and_set_explicit(&out_lock, memory_order_acquire); i++)
        if (i % 1024 == 0)
            sched_yield();
}

static void out_drop(void)
{
    atomic_flag_clear_explicit(&out_lock, memory_order_release);
}

static int stream_index(FILE *f)
{
    return f == stdout ? 0 : f == stderr ? 1 : -1;
}

/* Hands libc the first n bytes of stream w's line, with the tag, in one
 * locked write, and keeps the rest. */
static void hand_over(int w, size_t n)
{
    FILE *f = w ? stderr : stdout;
    line_t *l = &lines[w];
    if (w == 1)
        __real_fflush(stdout);
    flockfile(f);
    if (tag > 0 && !l->mid)
        __real_fprintf(f, "[%d] ", zmpi_output_rank());
    fwrite_unlocked(l->buf, 1, n, f);
    funlockfile(f);
    l->mid = l->buf[n - 1] != '\n';
    memmove(l->buf, l->buf + n, l->len - n);
    l->len -= n;
}

/* Appends n bytes of text to stream w and hands over every line it
 * completes.  Returns 0, or EOF if out of memory (the text then goes to
 * libc directly, so nothing is lost).  Under out_lock. */
static int append_locked(int w, const char *s, size_t n)
{
    line_t *l = &lines[w];
    if (tag < 0) {
        const char *t = getenv("ZMPI_TAG_OUTPUT");
        tag = t && *t && strcmp(t, "0") != 0;
    }
    if (l->len + n > l->cap) {
        size_t cap = l->cap ? l->cap : 256;
        while (cap < l->len + n)
            cap *= 2;
        char *b = realloc(l->buf, cap);
        if (!b) {
            if (l->len)
                hand_over(w, l->len);
            return __real_fwrite(s, 1, n, w ? stderr : stdout) == n ? 0 : EOF;
        }
        l->buf = b;
        l->cap = cap;
    }
    memcpy(l->buf + l->len, s, n);
    size_t from = l->len;
    l->len += n;
    const char *nl = memrchr(l->buf + from, '\n', n);
    if (nl)
        hand_over(w, (size_t)(nl - l->buf) + 1);
    return 0;
}

static int append(int w, const char *s, size_t n)
{
    out_take();
    int rc = append_locked(w, s, n);
    out_drop();
    return rc;
}

/* The wrapped calls.  Each returns what libc's would. */
int __wrap_vfprintf(FILE *f, const char *fmt, va_list ap)
{
    int w = stream_index(f);
    if (w < 0)
        return __real_vfprintf(f, fmt, ap);
    char small[512];
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n >= 0 && (size_t)n < sizeof small) {
        if (append(w, small, (size_t)n))
            n = -1;
    } else if (n >= 0) {
        char *big = malloc((size_t)n + 1);
        if (big) {
            vsnprintf(big, (size_t)n + 1, fmt, again);
            if (append(w, big, (size_t)n))
                n = -1;
            free(big);
        } else {
            n = __real_vfprintf(f, fmt, again);
        }
    }
    va_end(again);
    return n;
}

int __wrap_vprintf(const char *fmt, va_list ap)
{
    return __wrap_vfprintf(stdout, fmt, ap);
}

int __wrap_fprintf(FILE *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = __wrap_vfprintf(f, fmt, ap);
    va_end(ap);
    return n;
}

int __wrap_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = __wrap_vfprintf(stdout, fmt, ap);
    va_end(ap);
    return n;
}

/* The _FORTIFY_SOURCE variants check %n placement; vsnprintf does the
 * formatting here, so the flag is not needed. */
int __wrap___vfprintf_chk(FILE *f, int flag, const char *fmt, va_list ap)
{
    (void)flag;
    return __wrap_vfprintf(f, fmt, ap);
}

int __wrap___vprintf_chk(int flag, const char *fmt, va_list ap)
{
    (void)flag;
    return __wrap_vfprintf(stdout, fmt, ap);
}

int __wrap___fprintf_chk(FILE *f, int flag, const char *fmt, ...)
{
    va_list ap;
    (void)flag;
    va_start(ap, fmt);
    int n = __wrap_vfprintf(f, fmt, ap);
    va_end(ap);
    return n;
}

int __wrap___printf_chk(int flag, const char *fmt, ...)
{
    va_list ap;
    (void)flag;
    va_start(ap, fmt);
    int n = __wrap_vfprintf(stdout, fmt, ap);
    va_end(ap);
    return n;
}

int __wrap_fputs(const char *s, FILE *f)
{
    int w = stream_index(f);
    if (w < 0)
        return __real_fputs(s, f);
    return append(w, s, strlen(s)) ? EOF : 1;
}

int __wrap_puts(const char *s)
{
    out_take();
    int rc = append_locked(0, s, strlen(s)) || append_locked(0, "\n", 1);
    out_drop();
    return rc ? EOF : 1;
}

int __wrap_fputc(int c, FILE *f)
{
    int w = stream_index(f);
    if (w < 0)
        return __real_fputc(c, f);
    char ch = (char)c;
    return append(w, &ch, 1) ? EOF : (unsigned char)c;
}

int __wrap_putc(int c, FILE *f)
{
    return __wrap_fputc(c, f);
}

int __wrap_putchar(int c)
{
    return __wrap_fputc(c, stdout);
}

size_t __wrap_fwrite(const void *p, size_t size, size_t n, FILE *f)
{
    int w = stream_index(f);
    if (w < 0 || size == 0 || n == 0)
        return __real_fwrite(p, size, n, f);
    return append(w, p, size * n) ? 0 : n;
}

int __wrap_fflush(FILE *f)
{
    out_take();
    for (int w = 0; w < 2; w++)
        if ((!f || stream_index(f) == w) && lines[w].len)
            hand_over(w, lines[w].len);
    out_drop();
    return __real_fflush(f);
}

/* Hands over what a rank left without a newline when it ends: called when
 * the rank exits (launch_priv.c) and when its copy of the program is
 * unloaded after main returns. */
void zmpi_output_flush_rank(void)
{
    __wrap_fflush(NULL);
}

/* The copy is going away with its rank: nothing writes through these
 * buffers any more once they are flushed. */
__attribute__((destructor)) static void flush_at_unload(void)
{
    zmpi_output_flush_rank();
    for (int w = 0; w < 2; w++) {
        free(lines[w].buf);
        lines[w].buf = NULL;
        lines[w].len = lines[w].cap = 0;
    }
}
