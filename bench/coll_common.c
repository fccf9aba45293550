/*
 * coll_common.c: options, iteration policy, timing and checks shared by
 * the collective latency benchmarks (see coll_common.h).
 */
#include "coll_common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

/* Sizes up to this many bytes count as small (OSU's boundary). */
#define SMALL_LIMIT ((size_t)8192)

/* Options of a collective benchmark. */
struct coll_opts {
    size_t min_bytes;  /* Smallest size (-M). */
    size_t max_bytes;  /* Largest size (-m). */
    double factor;     /* Scales the iteration counts (-x). */
    double budget;     /* Seconds one size should take at most (-t). */
    size_t buf_cap;    /* Largest buffer per rank (-B); larger sizes of
                        * allgather and alltoall are left out. */
};

/* Iteration counts of one size. */
struct coll_iters {
    long warmup, timed;
};

unsigned char coll_pattern(long src, int index, size_t i)
{
    return (unsigned char)(src * 29 + index * 7 + (long)(i % 251) * 3 + 1);
}

/* Prints the usage text. */
static void usage(const char *prog, const char *name)
{
    printf("Usage: %s [-M MIN] [-m MAX] [-x FACTOR] [-t SECONDS] [-B CAP]\n"
           "  Latency of MPI_%s over MPI_COMM_WORLD (OSU style: the largest\n"
           "  of the ranks' average times per call, in microseconds).\n"
           "  -M MIN      smallest size in bytes (default 4)\n"
           "  -m MAX      largest size (default 1M); K, M, G suffixes\n"
           "  -x FACTOR   scale the iteration counts (1000 per size up to 8K,\n"
           "              100 above)\n"
           "  -t SECONDS  cut the iterations so one size takes about this\n"
           "              long (default 0.5)\n"
           "  -B CAP      skip sizes whose buffers exceed CAP bytes per rank\n"
           "              (default 8M)\n", prog, name);
}

/* Applies option opt with value; returns 0 or -1 when the value is bad. */
static int apply(char opt, const char *value, struct coll_opts *o)
{
    char *end = NULL;
    double *target = NULL;
    switch (opt) {
    case 'm':
        return bench_parse_size(value, &o->max_bytes);
    case 'M':
        return bench_parse_size(value, &o->min_bytes);
    case 'B':
        return bench_parse_size(value, &o->buf_cap);
    case 'x':
        target = &o->factor;
        break;
    case 't':
        target = &o->budget;
        break;
    default:
        return -1;
    }
    errno = 0;
    *target = strtod(value, &end);
    if (errno != 0 || end == value || *end != '\0' || !(*target > 0.0))
        return -1;
    return 0;
}

/* Parses the options; returns 0 to run, 1 after help, -1 on error. */
static int parse(int argc, char **argv, const char *name, int rank,
                 struct coll_opts *o)
{
    o->min_bytes = 4;
    o->max_bytes = (size_t)1 << 20;
    o->factor = 1.0;
    o->budget = 0.5;
    o->buf_cap = (size_t)8 << 20;
    const char *prog = argc > 0 ? argv[0] : "coll";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            if (rank == 0)
                usage(prog, name);
            return 1;
        }
        int known = a[0] == '-' && a[1] != '\0' && a[2] == '\0' &&
                    strchr("mMxtB", a[1]) != NULL;
        if (!known || i + 1 >= argc || apply(a[1], argv[i + 1], o) != 0) {
            if (rank == 0) {
                fprintf(stderr, "%s: bad or incomplete option '%s'\n", prog,
                        a);
                usage(prog, name);
            }
            return -1;
        }
        i++;
    }
    if (o->min_bytes > o->max_bytes) {
        if (rank == 0)
            fprintf(stderr, "%s: -M must not exceed -m\n", prog);
        return -1;
    }
    return 0;
}

/* Returns the largest time over all ranks of iters calls, per call. */
static double max_time(const struct coll_bench *b, const struct coll_ctx *c,
                       long iters)
{
    MPI_Barrier(c->comm);
    double start = MPI_Wtime();
    b->run(c, iters);
    double mine = (MPI_Wtime() - start) / (double)iters, most = 0;
    MPI_Allreduce(&mine, &most, 1, MPI_DOUBLE, MPI_MAX, c->comm);
    return most;
}

/*
 * Chooses the iteration counts of one size: OSU's counts scaled by the
 * factor, cut to the time budget as estimated from one call and then from
 * the warm-up.  Runs the warm-up.  Every rank gets the same counts because
 * the estimates are maxima over all ranks.
 */
static struct coll_iters warm_up(const struct coll_bench *b,
                                 const struct coll_ctx *c,
                                 const struct coll_opts *o)
{
    struct coll_iters it;
    int small = c->size <= SMALL_LIMIT;
    double timed = (small ? 1000.0 : 100.0) * o->factor;
    double warm = timed / 10;
    double one = max_time(b, c, 1);
    if (one > 0 && warm > 0.2 * o->budget / one)
        warm = 0.2 * o->budget / one;
    it.warmup = warm < 1 ? 1 : (long)warm;
    double per_call = max_time(b, c, it.warmup);
    if (per_call > 0 && timed > o->budget / per_call)
        timed = o->budget / per_call;
    it.timed = timed < 2 ? 2 : (long)timed;
    return it;
}

/* Checks one call's result on every rank; aborts on a mismatch. */
static void check_size(const struct coll_bench *b, const struct coll_ctx *c)
{
    b->fill(c);
    b->run(c, 1);
    long bad = b->check(c), all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_LONG, MPI_SUM, c->comm);
    if (all == 0)
        return;
    if (bad != 0)
        fprintf(stderr, "coll_%s: rank %d: %ld wrong values at size %zu\n",
                b->name, c->rank, bad, c->size);
    MPI_Abort(c->comm, 3);
}

/* Measures one size and prints its line on rank 0. */
static void measure(const struct coll_bench *b, const struct coll_ctx *c,
                    const struct coll_opts *o)
{
    struct coll_iters it = warm_up(b, c, o);
    MPI_Barrier(c->comm);
    double start = MPI_Wtime();
    b->run(c, it.timed);
    double mine = (MPI_Wtime() - start) / (double)it.timed * 1e6;
    double most = 0, least = 0, sum = 0;
    MPI_Reduce(&mine, &most, 1, MPI_DOUBLE, MPI_MAX, 0, c->comm);
    MPI_Reduce(&mine, &least, 1, MPI_DOUBLE, MPI_MIN, 0, c->comm);
    MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, c->comm);
    if (b->unit != 0)
        check_size(b, c);
    if (c->rank == 0) {
        printf("%-10zu %14.3f %14.3f %14.3f %10ld\n", c->size, most, least,
               sum / c->nranks, it.timed);
        fflush(stdout);
    }
}

/* Returns the buffer bytes a size needs per rank for blocks. */
static size_t buf_bytes(size_t size, int blocks, int nranks)
{
    return size * (blocks ? (size_t)nranks : 1);
}

/* Returns the largest size to run: at most max_bytes, a multiple of the
 * unit, and within the buffer cap. */
static size_t last_size(const struct coll_bench *b, const struct coll_opts *o,
                        int nranks)
{
    size_t size = b->unit;
    while (size * 2 <= o->max_bytes &&
           buf_bytes(size * 2, b->send_blocks, nranks) <= o->buf_cap &&
           buf_bytes(size * 2, b->recv_blocks, nranks) <= o->buf_cap)
        size *= 2;
    return size;
}

/* Prints the header lines on rank 0. */
static void header(const struct coll_bench *b, const struct coll_opts *o,
                   int nranks, size_t first, size_t last)
{
    if (b->title != NULL)
        printf("# zmpi bench: %s latency (max over ranks of the average)\n",
               b->title);
    else
        printf("# zmpi bench: MPI_%s latency (max over ranks of the "
               "average)\n", b->name);
    printf("# ranks: %d\n", nranks);
    if (b->unit != 0)
        printf("# sizes: %zu to %zu bytes (asked up to %zu, buffer cap %zu)"
               "\n", first, last, o->max_bytes, o->buf_cap);
    printf("# iteration factor %g, time budget %g s per size\n", o->factor,
           o->budget);
    printf("# %-8s %14s %14s %14s %10s\n", "size", "max_us", "min_us",
           "avg_us", "iters");
    fflush(stdout);
}

int coll_main(int argc, char **argv, const struct coll_bench *b)
{
    struct coll_opts o;
    struct coll_ctx c;

    MPI_Init(&argc, &argv);
    memset(&c, 0, sizeof(c));
    c.comm = MPI_COMM_WORLD;
    MPI_Comm_rank(c.comm, &c.rank);
    MPI_Comm_size(c.comm, &c.nranks);
    int status = parse(argc, argv, b->name, c.rank, &o);
    if (status != 0) {
        MPI_Finalize();
        return status < 0 ? 1 : 0;
    }
    size_t first = b->unit, last = b->unit;
    if (b->unit != 0) {
        while (first < o.min_bytes)
            first *= 2;
        last = last_size(b, &o, c.nranks);
        c.sbuf = bench_alloc(buf_bytes(last, b->send_blocks, c.nranks), 0xa5);
        c.rbuf = bench_alloc(buf_bytes(last, b->recv_blocks, c.nranks), 0x5a);
    }
    if (c.rank == 0)
        header(b, &o, c.nranks, first, last);
    for (size_t size = first; size <= last; size *= 2, c.index++) {
        c.size = size;
        if (b->begin != NULL)
            b->begin(&c);
        measure(b, &c, &o);
        if (b->end != NULL)
            b->end(&c);
        if (size == 0)
            break;
    }
    free(c.sbuf);
    free(c.rbuf);
    MPI_Finalize();
    return 0;
}
