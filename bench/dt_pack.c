/*
 * dt_pack.c: MPI_Pack and MPI_Unpack bandwidth of a vector against memcpy
 * of the same number of bytes.
 *
 * The vector holds total bytes in blocks of block bytes (doubles), two
 * blocks apart: MPI_Type_vector(total / block, block / 8, block / 4,
 * MPI_DOUBLE).  For each total and block size rank 0 measures, in
 * alternation within each of TRIALS trials so that drifts of a shared
 * machine hit all three alike:
 *
 *   memcpy  memcpy of total contiguous bytes,
 *   pack    MPI_Pack of one vector into a contiguous buffer,
 *   unpack  MPI_Unpack of that buffer into one vector,
 *
 * and prints the best of the trials in GB/s (1 GB = 1e9 bytes) of payload.
 *
 * Totals of COLD_MIN and more are timed from memory: one call per timing,
 * each after an untimed read of EVICT_BYTES that pushes every buffer out
 * of the caches.  Repeated back to back, such calls are not alike: on a
 * 32 MiB last-level cache a 16 MiB memcpy streams its output past the
 * cache (glibc does so above about 3/4 of it) and finds its source still
 * cached in the next call, while the 32 MiB span a pack of the same 16 MiB
 * reads cannot stay.  Measured on an AMD Zen 5 host, 16 MiB: memcpy
 * 22-30 GB/s back to back, 19-21 from memory.  Smaller totals are timed
 * back to back, in cache, as a halo packed every step would be.
 * The goal is pack and unpack at >= 80 % of memcpy for blocks of
 * 256 B and more.  Once per size the packed bytes and the unpacked layout
 * (including the gaps, which must stay untouched) are checked against a
 * reference layout described without MPI (dt_common.h).  Other ranks only
 * wait; run it with one rank.
 *
 * With -F the pack and unpack columns are the floor instead: the fastest
 * of the bare copy loops of dt_floor_vector (64-byte moves, a memcpy call
 * per block, 64-byte streaming stores) on the same buffers, timed the
 * same way, with no MPI call in the loop.
 */
#include "dt_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#define TRIALS 5
#define DEFAULT_MIN ((size_t)64 << 10)
#define DEFAULT_MAX ((size_t)16 << 20)
#define MIN_BLOCK ((size_t)8)
#define MAX_BLOCK ((size_t)64 << 10)

/* Bytes each operation moves per trial (times -x), at least one call. */
#define TRIAL_BYTES (32.0 * 1024 * 1024)

/* Totals timed from memory (see the top of the file), the bytes read to
 * evict the caches before each such call, and the trials they get: one
 * call each is short, so more trials for the same confidence. */
#define COLD_MIN ((size_t)4 << 20)
#define EVICT_BYTES ((size_t)128 << 20)
#define COLD_TRIALS 9

/* The buffers of one total size. */
struct pack_bufs {
    unsigned char *vec;    /* The vector's source, 2 * total bytes. */
    unsigned char *packed; /* The packed bytes, pack_size bytes. */
    unsigned char *out;    /* The unpacked vector, 2 * total bytes. */
    unsigned char *src;    /* memcpy source, total bytes. */
    unsigned char *dst;    /* memcpy destination, total bytes. */
    unsigned char *evict;  /* Read to empty the caches; NULL when unused. */
    int pack_size;
};

/* One measured size: the vector type and its reference layout. */
struct pack_case {
    size_t total, block;
    long reps;
    int cold; /* Evict the caches before each call (reps is then 1). */
    MPI_Datatype type;
    struct dt_layout layout;
};

/* Best seconds per call of each operation. */
struct pack_times {
    double copy, pack, unpack;
};

/* Reads the eviction buffer, one load per line, so that no buffer of the
 * case stays cached.  Reading (not writing) leaves no dirty lines to be
 * written back during the timed call. */
static void evict_caches(const struct pack_bufs *b)
{
    static volatile unsigned char sink __attribute__((unused));
    unsigned char acc = 0;
    for (size_t i = 0; i < EVICT_BYTES; i += 64)
        acc ^= b->evict[i];
    sink = acc;
}

/* Starts a timing of pc: empties the caches first when the case is timed
 * from memory, then returns MPI_Wtime(). */
static double timing_start(const struct pack_case *pc, const struct pack_bufs *b)
{
    if (pc->cold)
        evict_caches(b);
    return MPI_Wtime();
}

/* Returns the seconds of reps calls of memcpy.  The call goes through a
 * volatile pointer so that the compiler cannot drop repeated copies. */
static double time_memcpy(const struct pack_case *pc, struct pack_bufs *b)
{
    void *(*volatile copy)(void *, const void *, size_t) = memcpy;
    double start = timing_start(pc, b);
    for (long i = 0; i < pc->reps; i++)
        copy(b->dst, b->src, pc->total);
    return MPI_Wtime() - start;
}

/* Returns the seconds of reps calls of MPI_Pack. */
static double time_pack(const struct pack_case *pc, struct pack_bufs *b)
{
    double start = timing_start(pc, b);
    for (long i = 0; i < pc->reps; i++) {
        int pos = 0;
        MPI_Pack(b->vec, 1, pc->type, b->packed, b->pack_size, &pos,
                 MPI_COMM_SELF);
    }
    return MPI_Wtime() - start;
}

/* Returns the seconds of reps calls of MPI_Unpack. */
static double time_unpack(const struct pack_case *pc, struct pack_bufs *b)
{
    double start = timing_start(pc, b);
    for (long i = 0; i < pc->reps; i++) {
        int pos = 0;
        MPI_Unpack(b->packed, b->pack_size, &pos, b->out, 1, pc->type,
                   MPI_COMM_SELF);
    }
    return MPI_Wtime() - start;
}

/* Returns the seconds of reps bare packs (or unpacks) of kind, or -1 when
 * the kind does not apply to the case (dt_floor_vector). */
static double time_floor(const struct pack_case *pc, struct pack_bufs *b, int unpack,
                         int kind)
{
    if (!dt_floor_applies(pc->block, unpack, kind))
        return -1.0; /* before evicting: no 128 MiB read for nothing */
    double start = timing_start(pc, b);
    for (long i = 0; i < pc->reps; i++)
        dt_floor_vector(b->packed, unpack ? b->out : b->vec, pc->total, pc->block, unpack,
                        kind);
    return MPI_Wtime() - start;
}

/* Runs every kind of bare copy once and checks its result as check_case
 * does; calls MPI_Abort on any difference. */
static void check_floor(const struct pack_case *pc, struct pack_bufs *b, unsigned seed)
{
    char what[96];
    struct dt_layout flat = dt_layout_block(0, pc->total);
    for (int kind = 0; kind < DT_FLOOR_KINDS; kind++) {
        snprintf(what, sizeof(what), "dt_pack -F total %zu block %zu kind %d", pc->total,
                 pc->block, kind);
        memset(b->packed, DT_FILL, pc->total);
        memset(b->out, DT_FILL, 2 * pc->total);
        if (dt_floor_vector(b->packed, b->vec, pc->total, pc->block, 0, kind))
            dt_check(b->packed, &flat, &pc->layout, seed, 0, what);
        else
            /* Not a pack of this kind: unpack the right bytes. */
            dt_floor_vector(b->packed, b->vec, pc->total, pc->block, 0, DT_FLOOR_MEMCPY);
        if (!dt_floor_vector(b->packed, b->out, pc->total, pc->block, 1, kind))
            continue;
        dt_check(b->out, &pc->layout, &pc->layout, seed, 1, what);
        dt_check_untouched(b->out, 2 * pc->total, what);
    }
}

/* Keeps in *best the shortest of its value and t, ignoring t < 0. */
static void keep_best(double *best, double t)
{
    if (t >= 0.0 && t < *best)
        *best = t;
}

/* One trial of the floor: every kind, pack and unpack. */
static void trial_floor(const struct pack_case *pc, struct pack_bufs *b,
                        struct pack_times *best)
{
    keep_best(&best->copy, time_memcpy(pc, b));
    for (int kind = 0; kind < DT_FLOOR_KINDS; kind++) {
        keep_best(&best->pack, time_floor(pc, b, 0, kind));
        keep_best(&best->unpack, time_floor(pc, b, 1, kind));
    }
}

/* Packs and unpacks once and checks both results byte by byte, and that
 * MPI agrees on the packed size; calls MPI_Abort on any difference. */
static void check_case(const struct pack_case *pc, struct pack_bufs *b,
                       unsigned seed)
{
    char what[96];
    snprintf(what, sizeof(what), "dt_pack total %zu block %zu", pc->total,
             pc->block);
    struct dt_layout flat = dt_layout_block(0, pc->total);
    int pos = 0, size = 0;
    MPI_Pack_size(1, pc->type, MPI_COMM_SELF, &size);
    memset(b->packed, DT_FILL, (size_t)b->pack_size);
    /* The timed unpacks of the previous size wrote another layout here. */
    memset(b->out, DT_FILL, 2 * pc->total);
    MPI_Pack(b->vec, 1, pc->type, b->packed, b->pack_size, &pos,
             MPI_COMM_SELF);
    if ((size_t)pos != pc->total || size < pos) {
        fprintf(stderr, "%s: MPI_Pack wrote %d bytes, MPI_Pack_size says "
                "%d\n", what, pos, size);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    dt_check(b->packed, &flat, &pc->layout, seed, 0, what);
    pos = 0;
    MPI_Unpack(b->packed, b->pack_size, &pos, b->out, 1, pc->type,
               MPI_COMM_SELF);
    dt_check(b->out, &pc->layout, &pc->layout, seed, 1, what);
    dt_check_untouched(b->out, 2 * pc->total, what);
}

/* Measures one total and block size and prints its line. */
static void run_case(size_t total, size_t block, struct pack_bufs *b,
                     double factor, int index, int floor)
{
    struct pack_case pc;
    pc.total = total;
    pc.block = block;
    double reps = TRIAL_BYTES * factor / (double)total;
    pc.cold = total >= COLD_MIN;
    pc.reps = reps < 1.0 || pc.cold ? 1 : (long)reps;
    int trials = pc.cold ? COLD_TRIALS : TRIALS;
    pc.layout = dt_layout_block(0, block);
    dt_layout_loop(&pc.layout, total / block, 2 * block);
    int doubles = (int)(block / sizeof(double));
    MPI_Type_vector((int)(total / block), doubles, 2 * doubles, MPI_DOUBLE,
                    &pc.type);
    MPI_Type_commit(&pc.type);

    unsigned seed = dt_seed(0, index);
    dt_fill(b->vec, &pc.layout, seed);
    check_case(&pc, b, seed);
    if (floor)
        check_floor(&pc, b, seed);
    struct pack_times best = {1e30, 1e30, 1e30};
    for (int t = 0; t < trials; t++) {
        if (floor) {
            trial_floor(&pc, b, &best);
            continue;
        }
        keep_best(&best.copy, time_memcpy(&pc, b));
        keep_best(&best.pack, time_pack(&pc, b));
        keep_best(&best.unpack, time_unpack(&pc, b));
    }
    double bytes = (double)total * (double)pc.reps / 1e9;
    printf("pack %10zu %8zu %10.3f %10.3f %10.3f\n", total, block,
           bytes / best.copy, bytes / best.pack, bytes / best.unpack);
    fflush(stdout);
    MPI_Type_free(&pc.type);
}

/* Allocates the buffers for totals up to max_total; the packed buffer is
 * sized by MPI_Pack_size of the largest vector. */
static void alloc_bufs(struct pack_bufs *b, size_t max_total)
{
    MPI_Datatype t;
    MPI_Type_vector((int)(max_total / MIN_BLOCK), 1, 2, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    MPI_Pack_size(1, t, MPI_COMM_SELF, &b->pack_size);
    MPI_Type_free(&t);
    b->vec = bench_alloc(2 * max_total, 0xa5);
    b->packed = bench_alloc((size_t)b->pack_size, DT_FILL);
    b->out = bench_alloc(2 * max_total, DT_FILL);
    b->src = bench_alloc(max_total, 0xa5);
    b->dst = bench_alloc(max_total, 0x5a);
    b->evict = max_total >= COLD_MIN ? bench_alloc(EVICT_BYTES, 0x3c) : NULL;
}

static void free_bufs(struct pack_bufs *b)
{
    free(b->vec);
    free(b->packed);
    free(b->out);
    free(b->src);
    free(b->dst);
    free(b->evict);
}

/* Runs every total (powers of 16 from -M, at least 1 KiB) and block size
 * (powers of two from 8 B to 64 KiB, or -b) on rank 0. */
static void run_all(const struct dt_opts *o)
{
    struct pack_bufs b;
    size_t max = o->common.max_bytes;
    alloc_bufs(&b, max);
    int index = 0;
    size_t total = bench_first_size(&o->common);
    if (total < 1024)
        total = 1024;
    for (; total <= max; total *= 16) {
        for (size_t block = MIN_BLOCK; block <= MAX_BLOCK && block <= total;
             block *= 2) {
            if (o->block != 0 && block != o->block)
                continue;
            run_case(total, block, &b, o->common.iter_factor, index++, o->floor);
        }
    }
    free_bufs(&b);
}

static const char extra_usage[] =
    "  -b BLOCK     only this block size (a power of two, 8 to 64K)\n"
    "  -F           print the floor instead: the fastest bare copy loops\n"
    "               (dt_floor.c) pack and unpack the same vector\n"
    "  Sizes are the vector's data bytes (totals step by 16); here -M\n"
    "  defaults to 64K and -m to 16M.  Only rank 0 measures.\n";

int main(int argc, char **argv)
{
    int rank;
    struct dt_opts o;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int status = dt_parse_args(argc, argv, "Pack/unpack bandwidth",
                               DEFAULT_MIN, DEFAULT_MAX, extra_usage, &o,
                               rank);
    if (status == 0 && o.block != 0 &&
        (o.block < MIN_BLOCK || o.block > MAX_BLOCK ||
         (o.block & (o.block - 1)) != 0)) {
        if (rank == 0)
            fprintf(stderr, "dt_pack: -b must be a power of two from 8 to "
                    "64K\n");
        status = -1;
    }
    if (status != 0) {
        MPI_Finalize();
        return status < 0 ? 1 : 0;
    }
    if (rank == 0) {
        printf("# zmpi bench: %s of a vector (stride 2 blocks) against "
               "memcpy, best of %d trials (%d, from memory, for totals from "
               "%zu bytes)\n"
               "# totals from %zu to %zu bytes, iteration factor %g\n"
               "# %-3s %10s %8s %10s %10s %10s\n",
               o.floor ? "the floor (bare loops, -F)" : "MPI_Pack/MPI_Unpack", TRIALS, COLD_TRIALS,
               COLD_MIN,
               bench_first_size(&o.common), o.common.max_bytes,
               o.common.iter_factor, "op", "total", "block", "memcpy_GBs",
               "pack_GBs", "unpack_GBs");
        fflush(stdout);
        run_all(&o);
    }
    MPI_Finalize();
    return 0;
}
