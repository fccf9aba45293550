/*
 * bench_common.c: option parsing, size and iteration policy, buffers and
 * the received-data sanity check shared by the point-to-point benchmarks.
 *
 * Only ISO C11 and MPI are used, so the file builds with any MPI compiler
 * wrapper in -std=c11 mode.
 */
#include "bench_common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

/* Buffers are aligned to (and sized in multiples of) this many bytes. */
#define BENCH_PAGE ((size_t)4096)

/* Parses a size such as 4096, 64K, 1M or 2G into *out; returns 0 on
 * success and -1 on a malformed or out-of-range value. */
static int parse_size(const char *text, size_t *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long value = strtoull(text, &end, 10);
    if (errno != 0 || end == text || text[0] == '-')
        return -1;
    unsigned shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: break;
    }
    if (*end != '\0' || value > (~0ULL >> shift))
        return -1;
    value <<= shift;
    /* MPI counts are ints: one message cannot exceed INT_MAX bytes. */
    if (value > 0x7fffffffULL)
        return -1;
    *out = (size_t)value;
    return 0;
}

int bench_parse_size(const char *text, size_t *out)
{
    return parse_size(text, out);
}

/* Prints the usage text of a benchmark. */
static void print_usage(const char *prog, const char *what)
{
    printf("Usage: %s [-M MINBYTES] [-m MAXBYTES] [-x FACTOR]\n"
           "  %s between ranks 0 and 1.\n"
           "  -M MINBYTES  smallest message size (K, M, G suffixes allowed)\n"
           "  -m MAXBYTES  largest message size (default 64M)\n"
           "  -x FACTOR    scale all iteration counts (e.g. 0.1 for a smoke"
           " run)\n",
           prog, what);
}

/* Applies one option with its value; returns 0 or -1 if it is bad. */
static int apply_option(char opt, const char *value, struct bench_opts *opts)
{
    char *end = NULL;
    switch (opt) {
    case 'm':
        return parse_size(value, &opts->max_bytes);
    case 'M':
        return parse_size(value, &opts->min_bytes);
    case 'x':
        errno = 0;
        opts->iter_factor = strtod(value, &end);
        if (errno != 0 || end == value || *end != '\0' ||
            !(opts->iter_factor > 0.0))
            return -1;
        return 0;
    default:
        return -1;
    }
}

int bench_parse_args(int argc, char **argv, const char *what,
                     size_t default_min, struct bench_opts *opts, int rank)
{
    opts->min_bytes = default_min;
    opts->max_bytes = BENCH_DEFAULT_MAX;
    opts->iter_factor = 1.0;
    const char *prog = argc > 0 ? argv[0] : "bench";
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            if (rank == 0)
                print_usage(prog, what);
            return 1;
        }
        int known = arg[0] == '-' && strchr("mMx", arg[1]) != NULL &&
                    arg[1] != '\0' && arg[2] == '\0';
        if (!known || i + 1 >= argc ||
            apply_option(arg[1], argv[i + 1], opts) != 0) {
            if (rank == 0) {
                fprintf(stderr, "%s: bad or incomplete option '%s'\n", prog,
                        arg);
                print_usage(prog, what);
            }
            return -1;
        }
        i++;
    }
    if (opts->min_bytes > opts->max_bytes) {
        if (rank == 0)
            fprintf(stderr, "%s: -M must not exceed -m\n", prog);
        return -1;
    }
    return 0;
}

size_t bench_first_size(const struct bench_opts *opts)
{
    if (opts->min_bytes == 0)
        return 0;
    size_t size = 1;
    while (size < opts->min_bytes)
        size *= 2;
    return size;
}

size_t bench_next_size(size_t size)
{
    return size == 0 ? 1 : size * 2;
}

struct bench_iters bench_iters_for(const struct bench_policy *policy,
                                   size_t size, double factor)
{
    double bytes = (size == 0 ? 1.0 : (double)size) * policy->bytes_per_iter;
    double n = policy->byte_budget / bytes;
    if (n > (double)policy->max_iters)
        n = (double)policy->max_iters;
    if (n < (double)policy->min_iters)
        n = (double)policy->min_iters;
    n *= factor;
    struct bench_iters it;
    it.timed = n < 1.0 ? 1 : (long)n;
    /* A tenth as many warm-up iterations, but always at least one so that
     * connections, pages and any registration caches are set up. */
    it.warmup = it.timed / 10 < 1 ? 1 : it.timed / 10;
    return it;
}

unsigned char *bench_alloc(size_t bytes, unsigned char pattern)
{
    size_t rounded = (bytes + BENCH_PAGE - 1) / BENCH_PAGE * BENCH_PAGE;
    if (rounded == 0)
        rounded = BENCH_PAGE;
    unsigned char *buf = aligned_alloc(BENCH_PAGE, rounded);
    if (buf == NULL) {
        fprintf(stderr, "bench: cannot allocate %zu bytes\n", rounded);
        MPI_Abort(MPI_COMM_WORLD, 2);
        return NULL;
    }
    /* Writing every byte faults in every page before timing starts. */
    memset(buf, pattern, rounded);
    return buf;
}

unsigned char bench_marker(int sender, int size_index)
{
    /* Never equal to the fill patterns (0x00, 0xa5, 0x5a) for a sane
     * index; the exact value only has to differ between sizes and senders. */
    return (unsigned char)(0x10 + (size_index & 0x3f) + (sender & 1) * 0x80);
}

void bench_mark(unsigned char *buf, size_t size, int sender, int size_index)
{
    if (size == 0)
        return;
    buf[0] = bench_marker(sender, size_index);
    buf[size - 1] = bench_marker(sender, size_index);
}

void bench_clear(unsigned char *buf, size_t size, int sender, int size_index)
{
    if (size == 0)
        return;
    unsigned char wrong = (unsigned char)~bench_marker(sender, size_index);
    buf[0] = wrong;
    buf[size - 1] = wrong;
}

void bench_check(const unsigned char *buf, size_t size, int sender,
                 int size_index, const char *what)
{
    if (size == 0)
        return;
    unsigned char want = bench_marker(sender, size_index);
    if (buf[0] != want || buf[size - 1] != want) {
        fprintf(stderr,
                "%s: bad data at size %zu from rank %d: first 0x%02x, last "
                "0x%02x, expected 0x%02x\n",
                what, size, sender, buf[0], buf[size - 1], want);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

void bench_header(const char *title, const char *column,
                  const struct bench_opts *opts, int nranks)
{
    printf("# %s\n", title);
    printf("# ranks: %d (only ranks 0 and 1 take part)\n", nranks);
    printf("# sizes: %zu to %zu bytes, iteration factor %g\n",
           bench_first_size(opts), opts->max_bytes, opts->iter_factor);
    printf("# %-10s %14s\n", "size", column);
    fflush(stdout);
}

void bench_require_two(int nranks, int rank)
{
    if (nranks >= 2)
        return;
    if (rank == 0)
        fprintf(stderr, "bench: needs at least 2 ranks, got %d\n", nranks);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

void *bench_statuses_ignore(void)
{
    return MPI_STATUSES_IGNORE;
}

int bench_main(int argc, char **argv, const char *what, size_t min_size,
               const char *title, const char *column, bench_measure_fn measure)
{
    int rank, nranks;
    struct bench_opts opts;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int status = bench_parse_args(argc, argv, what, min_size, &opts, rank);
    if (status == 0 && opts.min_bytes < min_size)
        opts.min_bytes = min_size;
    if (status != 0) {
        MPI_Finalize();
        return status < 0 ? 1 : 0;
    }
    bench_require_two(nranks, rank);

    unsigned char *sbuf = bench_alloc(opts.max_bytes, 0xa5);
    unsigned char *rbuf = bench_alloc(opts.max_bytes, 0x5a);
    if (rank == 0)
        bench_header(title, column, &opts, nranks);

    int index = 0;
    for (size_t size = bench_first_size(&opts); size <= opts.max_bytes;
         size = bench_next_size(size), index++)
        measure(sbuf, rbuf, size, index, rank, opts.iter_factor);

    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
