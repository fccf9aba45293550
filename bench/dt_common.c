/*
 * dt_common.c: reference layouts, the data pattern and its checks, and the
 * option parsing shared by the derived-datatype benchmarks.
 *
 * Only ISO C11 and basic MPI calls (MPI_Abort) are used here, so the file
 * builds with any MPI compiler wrapper, with or without derived datatypes.
 */
#include "dt_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

struct dt_layout dt_layout_block(size_t base, size_t block)
{
    struct dt_layout l;
    memset(&l, 0, sizeof(l));
    l.base = base;
    l.block = block;
    return l;
}

void dt_layout_loop(struct dt_layout *l, size_t count, size_t stride)
{
    if (l->nlevels >= DT_MAX_LEVELS) {
        fprintf(stderr, "bench: layout nested deeper than %d levels\n",
                DT_MAX_LEVELS);
        abort();
    }
    l->count[l->nlevels] = count;
    l->stride[l->nlevels] = stride;
    l->nlevels++;
}

size_t dt_layout_bytes(const struct dt_layout *l)
{
    size_t bytes = l->block;
    for (int i = 0; i < l->nlevels; i++)
        bytes *= l->count[i];
    return bytes;
}

size_t dt_layout_end(const struct dt_layout *l)
{
    if (dt_layout_bytes(l) == 0)
        return 0;
    /* Strides are never negative here, so the last block ends last. */
    size_t end = l->base + l->block;
    for (int i = 0; i < l->nlevels; i++)
        end += (l->count[i] - 1) * l->stride[i];
    return end;
}

unsigned char dt_pattern(size_t pos, unsigned seed)
{
    size_t mixed = pos ^ (pos >> 8) * 0x3b ^ (pos >> 16) * 0x6d ^
                   (pos >> 24) * 0x95;
    return (unsigned char)(mixed * 0x1d + seed);
}

unsigned dt_seed(int sender, int case_index)
{
    return (unsigned)(0x11 + (sender & 1) * 0x80 + case_index * 0x0b);
}

/* A position in the byte stream of a layout. */
struct cursor {
    const struct dt_layout *l;
    size_t idx[DT_MAX_LEVELS]; /* Loop indices, level 0 fastest. */
    size_t off;                /* Buffer offset of the next byte. */
    size_t left;               /* Bytes left in the current block. */
};

/* Places *c at the start of the block given by its indices. */
static void cursor_block(struct cursor *c)
{
    c->off = c->l->base;
    for (int i = 0; i < c->l->nlevels; i++)
        c->off += c->idx[i] * c->l->stride[i];
    c->left = c->l->block;
}

/* Starts a cursor at the first byte of l; left is 0 if l is empty. */
static void cursor_init(struct cursor *c, const struct dt_layout *l)
{
    memset(c, 0, sizeof(*c));
    c->l = l;
    if (dt_layout_bytes(l) != 0)
        cursor_block(c);
}

/* Moves *c on by n bytes, at most to the end of its block; when the block
 * ends, goes to the next one (left stays 0 after the last). */
static void cursor_advance(struct cursor *c, size_t n)
{
    c->off += n;
    c->left -= n;
    if (c->left != 0)
        return;
    /* Advance the indices like an odometer, level 0 fastest. */
    int level = 0;
    while (level < c->l->nlevels && ++c->idx[level] == c->l->count[level])
        c->idx[level++] = 0;
    if (level < c->l->nlevels)
        cursor_block(c);
}

void dt_fill(unsigned char *buf, const struct dt_layout *l, unsigned seed)
{
    struct cursor c;
    for (cursor_init(&c, l); c.left != 0; cursor_advance(&c, c.left))
        for (size_t i = 0; i < c.left; i++)
            buf[c.off + i] = dt_pattern(c.off + i, seed);
}

/* Reports a wrong byte and ends the program. */
static void report_wrong(const char *what, size_t roff, size_t pos,
                         unsigned char want, unsigned char found)
{
    fprintf(stderr, "%s: wrong data at receive buffer offset %zu (message "
            "byte %zu): want 0x%02x, found 0x%02x\n", what, roff, pos, want,
            found);
    MPI_Abort(MPI_COMM_WORLD, 3);
}

void dt_check(unsigned char *rbuf, const struct dt_layout *recv,
              const struct dt_layout *send, unsigned seed, int reset,
              const char *what)
{
    if (dt_layout_bytes(recv) != dt_layout_bytes(send)) {
        fprintf(stderr, "%s: layouts of %zu and %zu bytes\n", what,
                dt_layout_bytes(recv), dt_layout_bytes(send));
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    struct cursor r, s;
    size_t pos = 0;
    cursor_init(&r, recv);
    cursor_init(&s, send);
    while (r.left != 0) {
        size_t n = r.left < s.left ? r.left : s.left;
        unsigned char *run = rbuf + r.off;
        for (size_t i = 0; i < n; i++) {
            unsigned char want = dt_pattern(s.off + i, seed);
            if (run[i] != want)
                report_wrong(what, r.off + i, pos + i, want, run[i]);
        }
        if (reset)
            memset(run, DT_FILL, n);
        pos += n;
        cursor_advance(&r, n);
        cursor_advance(&s, n);
    }
}

void dt_check_untouched(const unsigned char *buf, size_t bytes,
                        const char *what)
{
    /* Compare whole chunks first (buffers reach hundreds of MiB), then
     * find the bad byte of a chunk that differs. */
    unsigned char fill[256];
    memset(fill, DT_FILL, sizeof(fill));
    for (size_t off = 0; off < bytes; off += sizeof(fill)) {
        size_t n = bytes - off < sizeof(fill) ? bytes - off : sizeof(fill);
        if (memcmp(buf + off, fill, n) == 0)
            continue;
        for (size_t i = off; i < off + n; i++) {
            if (buf[i] != DT_FILL) {
                fprintf(stderr, "%s: byte %zu outside the receive layout "
                        "was written (0x%02x)\n", what, i, buf[i]);
                MPI_Abort(MPI_COMM_WORLD, 3);
            }
        }
    }
}

/* Returns nonzero if arg is the option -<letter>. */
static int is_option(const char *arg, char letter)
{
    return arg[0] == '-' && arg[1] == letter && arg[2] == '\0';
}

/* Takes -k, -b and -F out of argv into *opts and the other arguments into
 * rest[0..*nrest).  Returns 0, or -1 on a missing or bad value. */
static int split_args(int argc, char **argv, char **rest, int *nrest,
                      struct dt_opts *opts, int *max_given)
{
    *nrest = 0;
    *max_given = 0;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (i > 0 && is_option(arg, 'F')) {
            opts->floor = 1;
            continue;
        }
        int ours = i > 0 && (is_option(arg, 'k') || is_option(arg, 'b'));
        if (!ours) {
            *max_given |= i > 0 && is_option(arg, 'm');
            rest[(*nrest)++] = argv[i];
            continue;
        }
        if (i + 1 >= argc)
            return -1;
        if (arg[1] == 'k')
            opts->kernel = argv[i + 1];
        else if (bench_parse_size(argv[i + 1], &opts->block) != 0 ||
                 opts->block == 0)
            return -1;
        i++;
    }
    rest[*nrest] = NULL;
    return 0;
}

int dt_parse_args(int argc, char **argv, const char *what,
                  size_t default_min, size_t default_max,
                  const char *extra_usage, struct dt_opts *opts, int rank)
{
    opts->kernel = NULL;
    opts->block = 0;
    opts->floor = 0;
    /* argv is shared by all ranks under zmpi: work on a copy of the
     * pointer array, never on argv itself. */
    char **rest = malloc(((size_t)argc + 1) * sizeof(*rest));
    if (rest == NULL)
        return -1;
    int nrest = 0, max_given = 0;
    int status = split_args(argc, argv, rest, &nrest, opts, &max_given);
    if (status != 0) {
        if (rank == 0)
            fprintf(stderr, "%s: bad or incomplete option -k or -b\n",
                    argc > 0 ? argv[0] : "bench");
    } else {
        status = bench_parse_args(nrest, rest, what, default_min,
                                  &opts->common, rank);
    }
    free(rest);
    if (status == 1 && rank == 0)
        printf("%s", extra_usage);
    if (status != 0)
        return status;
    if (!max_given)
        opts->common.max_bytes = default_max;
    if (opts->common.min_bytes > opts->common.max_bytes) {
        if (rank == 0)
            fprintf(stderr, "%s: -M must not exceed -m\n", argv[0]);
        return -1;
    }
    return 0;
}
