/*
 * dt_common.h: helpers shared by the derived-datatype benchmarks
 * (dt_latency.c, dt_pack.c).
 *
 * The benchmarks check what an MPI library's datatype engine delivers
 * against an independent description of the same layout: a block of
 * contiguous bytes repeated by up to DT_MAX_LEVELS nested loops, each with a
 * count and a byte stride.  That description is written here in plain C and
 * never goes through MPI, so a broken engine cannot also break the check.
 *
 * Nothing here calls an MPI_Type_* function: this file builds and links
 * with any MPI, including one without derived datatypes.  Like
 * bench_common, it keeps no mutable global or static state, because under
 * zmpi every rank is a thread of one process.
 */
#ifndef ZMPI_BENCH_DT_COMMON_H
#define ZMPI_BENCH_DT_COMMON_H

#include <stddef.h>

#include "bench_common.h"

/* The deepest nesting a reference layout describes. */
#define DT_MAX_LEVELS 4

/* The byte every receive buffer holds outside the bytes a message writes. */
#define DT_FILL 0x5a

/*
 * A layout: nlevels nested loops around a block of block bytes.  Level 0
 * varies fastest; item i of level l starts stride[l] * i bytes after item 0.
 * The first block starts base bytes into the buffer.  The order of the
 * blocks is the order of the bytes in the message (the type map order).
 */
struct dt_layout {
    size_t base;
    size_t block;
    int nlevels;
    size_t count[DT_MAX_LEVELS];
    size_t stride[DT_MAX_LEVELS];
};

/* Returns a layout of one block of block bytes at base, with no loops. */
struct dt_layout dt_layout_block(size_t base, size_t block);

/* Adds a loop of count items stride bytes apart around the loops already in
 * *l (the new loop varies slowest).  Calls abort on too many levels, which
 * only a programming error in a benchmark can cause. */
void dt_layout_loop(struct dt_layout *l, size_t count, size_t stride);

/* Returns the number of data bytes of a layout (block times all counts). */
size_t dt_layout_bytes(const struct dt_layout *l);

/* Returns one past the highest byte offset the layout touches; 0 if it has
 * no bytes. */
size_t dt_layout_end(const struct dt_layout *l);

/*
 * The byte a sender keeps at offset off of its send buffer for seed.  The
 * value mixes the higher bits of off in, so that data shifted by any
 * multiple of 256 bytes still reads differently.  Because the value depends
 * on the offset only, layouts that share bytes (the faces of a stencil
 * share edges) fill them alike.
 */
unsigned char dt_pattern(size_t off, unsigned seed);

/* The seed of the data that rank sender sends for the case with index
 * case_index; the receiver computes the same value to check. */
unsigned dt_seed(int sender, int case_index);

/* Writes dt_pattern(off, seed) to every byte buf[off] of layout l. */
void dt_fill(unsigned char *buf, const struct dt_layout *l, unsigned seed);

/*
 * Checks a message that went from layout send of a buffer filled by
 * dt_fill with seed to layout recv of rbuf: byte k of the message must sit
 * at the k-th byte of recv and equal the pattern of the offset of the k-th
 * byte of send.  Sets the checked bytes to DT_FILL when reset is nonzero.
 * On a mismatch prints what differs (naming what, the receive buffer
 * offset, the message byte, the wanted and the found value) to stderr and
 * calls MPI_Abort; also when the layouts differ in size.
 */
void dt_check(unsigned char *rbuf, const struct dt_layout *recv,
              const struct dt_layout *send, unsigned seed, int reset,
              const char *what);

/*
 * Checks that every byte of buf[0..bytes) is DT_FILL, i.e. that nothing was
 * written outside the layouts (whose bytes the caller has just reset).  On
 * a mismatch prints the first bad offset and calls MPI_Abort.
 */
void dt_check_untouched(const unsigned char *buf, size_t bytes,
                        const char *what);

/* The largest buffer one benchmark case may allocate (each of the send and
 * receive buffer of each rank): 256 MiB.  Cases needing more are skipped. */
#define DT_MAX_BUFFER ((size_t)256 << 20)

/* Options of the datatype benchmarks beyond bench_opts. */
struct dt_opts {
    struct bench_opts common; /* -M, -m, -x as for the p2p benchmarks. */
    const char *kernel;       /* -k NAME, or NULL for the default. */
    size_t block;             /* -b BYTES, or 0 for the default list. */
    int floor;                /* -F: measure the memory floor instead. */
};

/*
 * Parses -k NAME, -b BYTES and the common options (-M, -m, -x, -h) into
 * *opts.  default_min and default_max are the sizes used when -M or -m is
 * absent; extra_usage is printed after the common usage text on -h.
 * Returns 0 to go on, 1 if help was printed, -1 on a usage error (already
 * reported on rank 0).  argv is only read.
 */
int dt_parse_args(int argc, char **argv, const char *what,
                  size_t default_min, size_t default_max,
                  const char *extra_usage, struct dt_opts *opts, int rank);

/*
 * The memory floor of a ping-pong of nmsgs messages per direction
 * (dt_floor.c): two POSIX threads copy each message straight from layout
 * send[m] of one rank's send buffer to layout recv[m] of the other rank's
 * receive buffer, both buffers buf_bytes, half the blocks each, one spin
 * barrier per direction.  Each kind of store (ordinary, and for blocks of
 * 64 bytes and more streaming) is warmed up for 50 ms, then timed in
 * trials of at most max_iters round trips cut to about trial_seconds.
 * Returns the best time of one direction in microseconds.  Allocates and
 * frees its own buffers; calls no MPI function but MPI_Wtime and MPI_Abort.
 */
double dt_floor_usec(const struct dt_layout *send, const struct dt_layout *recv,
                     int nmsgs, size_t buf_bytes, long max_iters, double trial_seconds);

/* The kinds of bare copy of dt_floor_vector. */
enum {
    DT_FLOOR_WIDE,   /* 64-byte moves per block (memcpy under 64 B, from 4 KiB) */
    DT_FLOOR_MEMCPY, /* one memcpy call per block */
    DT_FLOOR_STREAM, /* 64-byte streaming stores (whole lines, AVX-512 only) */
    DT_FLOOR_STREAM_AHEAD, /* packs only: as STREAM, prefetching 4 KiB of data ahead */
    DT_FLOOR_KINDS
};

/*
 * The floor of dt_pack -F (dt_floor.c): packs (unpack == 0: dense <- vec)
 * or unpacks (vec <- dense) a vector of total bytes in blocks of block
 * bytes, two blocks apart in vec, with bare copies of the given kind on
 * the calling thread, no datatype engine.  Returns 0, copying nothing,
 * when the kind does not apply (streaming needs blocks of whole lines and
 * a CPU with 64-byte vectors), else 1.  Calls no MPI function.
 */
int dt_floor_vector(unsigned char *dense, unsigned char *vec, size_t total, size_t block,
                    int unpack, int kind);

/* Nonzero when dt_floor_vector copies blocks of this size in this
 * direction with kind (the streaming kinds need whole lines and 64-byte
 * vectors; the prefetching one packs only). */
int dt_floor_applies(size_t block, int unpack, int kind);

#endif
