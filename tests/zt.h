/*
 * zt.h: small helpers shared by the zmpi test programs.
 *
 * Every test program is plain standard MPI C, so it builds against zmpi and
 * against any other MPI library.  Under zmpi all ranks of a job are threads of
 * one process and share every global variable, so the helpers (and the tests)
 * keep all mutable state in locals or heap blocks owned by one rank.
 */
#ifndef ZT_H
#define ZT_H

#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Returns the caller's rank in MPI_COMM_WORLD, or -1 before MPI_Init. */
static inline int zt_rank(void)
{
    int init = 0, fin = 0, rank = -1;

    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

/* Prints where and why a check failed, then aborts the whole job. */
static inline void zt_fail(const char *file, int line, const char *what,
                           const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "FAIL rank %d: %s:%d: check '%s' failed: %s\n",
            zt_rank(), file, line, what, msg);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    abort(); /* MPI_Abort does not return; this keeps the compiler sure. */
}

/* ZT_CHECK(cond, fmt, ...): on a false condition, report and abort. */
#define ZT_CHECK(cond, ...)                                              \
    do {                                                                 \
        if (!(cond))                                                     \
            zt_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);             \
    } while (0)

/* ZT_EQ(got, expected, what): compare two integers and report both. */
#define ZT_EQ(got, expected, what)                                       \
    do {                                                                 \
        long long zt_g_ = (long long)(got), zt_e_ = (long long)(expected); \
        if (zt_g_ != zt_e_)                                              \
            zt_fail(__FILE__, __LINE__, #got " == " #expected,           \
                    "%s: expected %lld, got %lld", (what), zt_e_, zt_g_); \
    } while (0)

/* ZT_OK(call): the MPI call must return MPI_SUCCESS. */
#define ZT_OK(call) ZT_EQ((call), MPI_SUCCESS, "return code of " #call)

/* Allocates or aborts; test buffers come from the heap because ranks may run
 * on small stacks. */
static inline void *zt_malloc(size_t n)
{
    void *p = malloc(n > 0 ? n : 1);

    if (p == NULL)
        zt_fail(__FILE__, __LINE__, "malloc", "out of memory (%zu bytes)", n);
    return p;
}

/* The payload byte at index i of message number seq sent by rank src.  Any
 * misplaced, stale or mixed-up byte is very likely to differ. */
static inline unsigned char zt_byte(int src, long seq, size_t i)
{
    uint32_t x = (uint32_t)src * 2654435761u ^ (uint32_t)seq * 40503u;

    x += (uint32_t)i * 7u + (uint32_t)(i >> 8) * 13u;
    return (unsigned char)(x ^ (x >> 11));
}

/* Fills a buffer with the payload of message (src, seq). */
static inline void zt_fill(void *buf, size_t n, int src, long seq)
{
    unsigned char *b = buf;

    for (size_t i = 0; i < n; i++)
        b[i] = zt_byte(src, seq, i);
}

/* Returns the index of the first byte that is not the payload of message
 * (src, seq), or n if all n bytes are right. */
static inline size_t zt_mismatch(const void *buf, size_t n, int src, long seq)
{
    const unsigned char *b = buf;

    for (size_t i = 0; i < n; i++)
        if (b[i] != zt_byte(src, seq, i))
            return i;
    return n;
}

/* Checks every byte of message (src, seq) and aborts on the first error. */
#define ZT_CHECK_PAYLOAD(buf, n, src, seq)                                 \
    do {                                                                   \
        size_t zt_at_ = zt_mismatch((buf), (n), (src), (seq));             \
        if (zt_at_ != (size_t)(n))                                         \
            zt_fail(__FILE__, __LINE__, "payload",                         \
                    "message (src %d, seq %ld, %zu bytes): byte %zu is "   \
                    "0x%02x, expected 0x%02x", (int)(src), (long)(seq),    \
                    (size_t)(n), zt_at_,                                   \
                    ((const unsigned char *)(buf))[zt_at_],                \
                    zt_byte((src), (seq), zt_at_));                        \
    } while (0)

/* A small deterministic random generator (splitmix64) with explicit state,
 * so that no rank touches shared state such as rand()'s. */
typedef struct zt_rng {
    uint64_t s;
} zt_rng;

static inline zt_rng zt_rng_make(uint64_t seed, uint64_t stream)
{
    zt_rng r = { seed * 0x9E3779B97F4A7C15ull ^ (stream + 1) * 0xD1B54A32D192ED03ull };
    return r;
}

static inline uint64_t zt_rng_next(zt_rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);

    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Returns a value in [0, n). */
static inline long zt_rng_below(zt_rng *r, long n)
{
    return n > 0 ? (long)(zt_rng_next(r) % (uint64_t)n) : 0;
}

/* MPI_STATUSES_IGNORE is a fake pointer constant; passed straight to a
 * function whose parameter is an array, some compilers warn that the array
 * has size zero.  Reading it through a volatile hides the constant. */
static inline MPI_Status *zt_statuses_ignore(void)
{
    MPI_Status *volatile p = MPI_STATUSES_IGNORE;
    return p;
}
#define ZT_STATUSES_IGNORE (zt_statuses_ignore())

/* Checks a status against an expected source, tag and byte count. */
#define ZT_CHECK_STATUS(st, src, tag, bytes)                               \
    do {                                                                   \
        int zt_n_ = -1;                                                    \
        MPI_Get_count(&(st), MPI_BYTE, &zt_n_);                            \
        ZT_EQ((st).MPI_SOURCE, (src), "status.MPI_SOURCE");               \
        ZT_EQ((st).MPI_TAG, (tag), "status.MPI_TAG");                      \
        ZT_EQ(zt_n_, (bytes), "byte count of status");                     \
    } while (0)

/* The error class of return code rc (-1 if it is not an error code): other
 * MPIs return codes that are not classes themselves. */
static inline int zt_err_class(int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

/* MPI_Init, then the caller's rank and the job's size, and MPI_ERRORS_RETURN
 * on MPI_COMM_WORLD and MPI_COMM_SELF: errors of calls on no communicator
 * (or an invalid one) are raised on MPI_COMM_SELF (MPI 4.1 section 9.3;
 * MPI_COMM_WORLD before MPI 4.0), so a test of bad arguments sets both. */
static inline void zt_init_errors_return(int *argc, char ***argv, int *rank, int *size)
{
    ZT_OK(MPI_Init(argc, argv));
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    ZT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    ZT_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
}

#if defined(_POSIX_C_SOURCE) && _POSIX_C_SOURCE >= 199309L
/* Seconds on the monotonic clock: the deadlines after which a test reports
 * a wait that never ended (never a synchronization).  For tests that ask
 * for POSIX (clock_gettime) before including this header. */
static inline double zt_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
#endif

/* MPI_Init_thread with MPI_THREAD_MULTIPLE, which the calling test needs,
 * on an even number of ranks (the test pairs rank r with r ^ 1); sets
 * *rank and *size. */
static inline void zt_init_multiple_pairs(int *argc, char ***argv, int *rank, int *size)
{
    int provided;
    ZT_OK(MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided));
    ZT_CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    ZT_OK(MPI_Comm_rank(MPI_COMM_WORLD, rank));
    ZT_OK(MPI_Comm_size(MPI_COMM_WORLD, size));
    ZT_CHECK(*size % 2 == 0, "an even number of ranks, not %d", *size);
}

#endif /* ZT_H */
