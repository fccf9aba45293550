/*
 * bench_common.h: helpers shared by the point-to-point benchmarks.
 *
 * The benchmarks are plain MPI programs: they build unchanged with zmpicc,
 * MPICH's mpicc and Open MPI's mpicc.  Under zmpi every rank is a thread of
 * one process, so nothing here keeps mutable global or static state: all
 * state lives in structures owned by the calling rank.
 */
#ifndef ZMPI_BENCH_COMMON_H
#define ZMPI_BENCH_COMMON_H

#include <stddef.h>

/* The number of messages in flight per window in the bandwidth tests. */
#define BENCH_WINDOW 64

/* The default largest message: 64 MiB. */
#define BENCH_DEFAULT_MAX ((size_t)64 << 20)

/* Options common to all benchmarks. */
struct bench_opts {
    size_t min_bytes;   /* Smallest message size (-M). */
    size_t max_bytes;   /* Largest message size (-m). */
    double iter_factor; /* Scales every iteration count (-x). */
};

/* How many iterations one message size gets. */
struct bench_iters {
    long warmup; /* Untimed iterations run first. */
    long timed;  /* Iterations inside the timed region. */
};

/*
 * The iteration policy of one benchmark: small messages get max_iters,
 * bigger ones get byte_budget / (size * bytes_per_iter_factor) clamped to
 * [min_iters, max_iters], so that large sizes cost about the same time each.
 */
struct bench_policy {
    long max_iters;
    long min_iters;
    double byte_budget;
    double bytes_per_iter; /* Messages per iteration (per byte of size). */
};

/*
 * Parses -m, -M, -x and -h into *opts; sizes accept K, M and G suffixes
 * (powers of 1024).  Returns 0 to go on, 1 if help was printed and the
 * program should end successfully, -1 on a usage error (already reported on
 * rank 0).  argv is only read, never changed: under zmpi it is shared by
 * all ranks.
 */
int bench_parse_args(int argc, char **argv, const char *what,
                     size_t default_min, struct bench_opts *opts, int rank);

/* Parses a size such as 4096, 64K, 1M or 2G (powers of 1024) into *out;
 * returns 0, or -1 for a malformed value or one above INT_MAX. */
int bench_parse_size(const char *text, size_t *out);

/* Returns the first size to run: 0 or a power of two >= opts->min_bytes. */
size_t bench_first_size(const struct bench_opts *opts);

/* Returns the size after size: 1 after 0, otherwise twice size. */
size_t bench_next_size(size_t size);

/* Computes the warm-up and timed iteration counts for one size. */
struct bench_iters bench_iters_for(const struct bench_policy *policy,
                                   size_t size, double factor);

/*
 * Allocates a page-aligned buffer of at least bytes bytes (at least one
 * page), fills it with a pattern so that every page is touched before any
 * timing, and returns it.  Calls MPI_Abort if memory runs out.
 */
unsigned char *bench_alloc(size_t bytes, unsigned char pattern);

/* The marker written to the first and last byte of a message from rank
 * sender for the size with index size_index; the receiver checks it. */
unsigned char bench_marker(int sender, int size_index);

/* Writes the marker of (sender, size_index) at both ends of buf[0..size). */
void bench_mark(unsigned char *buf, size_t size, int sender, int size_index);

/* Sets both ends of a receive buffer to a value that is not the marker. */
void bench_clear(unsigned char *buf, size_t size, int sender, int size_index);

/* Checks both ends of a received message; calls MPI_Abort on mismatch. */
void bench_check(const unsigned char *buf, size_t size, int sender,
                 int size_index, const char *what);

/* Prints the header lines (each starting with '#') on rank 0. */
void bench_header(const char *title, const char *column,
                  const struct bench_opts *opts, int nranks);

/*
 * Returns MPI_STATUSES_IGNORE.  Passing the constant straight to
 * MPI_Waitall makes GCC's -Wstringop-overflow warn with MPICH's mpi.h (it
 * sees a pointer to address 1); from another file the value is opaque.
 * The return type is void * because mpi.h is not included here.
 */
void *bench_statuses_ignore(void);

/* Checks that there are at least two ranks; calls MPI_Abort otherwise. */
void bench_require_two(int nranks, int rank);

/* Measures one message size: warm-up, timed run, checks, and the output
 * line on rank 0.  size_index numbers the sizes for the data check. */
typedef void (*bench_measure_fn)(unsigned char *sbuf, unsigned char *rbuf,
                                 size_t size, int size_index, int rank,
                                 double factor);

/*
 * The whole program around a benchmark: MPI_Init, options (what names it in
 * the usage text; sizes start at min_size or above), buffers, the header
 * (title, column), measure() for every size, MPI_Finalize.  Returns the
 * exit status for main.
 */
int bench_main(int argc, char **argv, const char *what, size_t min_size,
               const char *title, const char *column, bench_measure_fn measure);

#endif
