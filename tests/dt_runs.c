/*
 * dt_runs.c: the copy engine's inner loops for every run length class,
 * checked byte for byte against a naive model.
 *
 * The engine copies strided runs with loops specialised by run length
 * (exact moves for 1-64 bytes in steps of 8, two overlapping moves for
 * other lengths below 64, 128-byte moves and overlapping tails up to 256,
 * one memcpy per run above, memcpy calls of 2 KiB from 2 KiB on).  This
 * test runs every length from 1 to 300 bytes and some longer ones, at
 * several buffer misalignments and gaps, through:
 *   - MPI_Pack and MPI_Unpack of an hvector of MPI_BYTE runs (and that the
 *     gaps of the unpacked buffer stay untouched);
 *   - send/receive between ranks 0 and 1 with the same run length on both
 *     sides but different strides and offsets (runs against runs), and
 *     against a contiguous receive (runs against one long run), at eager,
 *     rendezvous and cooperative-copy sizes.
 * Packs and messages over 8 MiB (written with streaming stores) are
 * checked the same way.
 * Usage: dt_runs (2 ranks or more; ranks above 1 only join).
 */
#include "zt.h"

#define FILL 0xee

/* A byte pattern that differs between neighbouring positions and seeds. */
static unsigned char pat(size_t i, unsigned seed)
{
    return (unsigned char)(i * 131 + (i >> 8) * 7 + seed * 29 + 1);
}

/* Offset of data byte j of `count` runs of L bytes, stride apart, at base. */
static size_t model_off(size_t j, size_t L, size_t stride, size_t base)
{
    return base + (j / L) * stride + j % L;
}

static MPI_Datatype runs_type(int count, int L, MPI_Aint stride)
{
    MPI_Datatype t;
    ZT_OK(MPI_Type_create_hvector(count, L, stride, MPI_BYTE, &t));
    ZT_OK(MPI_Type_commit(&t));
    return t;
}

/* Check that buf (span bytes) holds the runs' data at their model offsets
 * and FILL everywhere else. */
static void check_runs(const unsigned char *buf, size_t span, size_t count, size_t L,
                       size_t stride, size_t base, unsigned seed, const char *what)
{
    size_t n = count * L, next = 0;
    for (size_t j = 0; j < n; j++) {
        size_t o = model_off(j, L, stride, base);
        for (; next < o; next++)
            ZT_CHECK(buf[next] == FILL, "%s: L=%zu: gap byte %zu written", what, L, next);
        ZT_CHECK(buf[o] == pat(j, seed), "%s: L=%zu stride=%zu base=%zu: data byte %zu "
                 "(offset %zu) is %#x, want %#x", what, L, stride, base, j, o, buf[o],
                 pat(j, seed));
        next = o + 1;
    }
    for (; next < span; next++)
        ZT_CHECK(buf[next] == FILL, "%s: L=%zu: byte %zu after the data written", what, L,
                 next);
}

/* Pack and unpack `count` runs of L bytes at gap `gap` and offset `base`. */
static void pack_case(size_t count, size_t L, size_t gap, size_t base, unsigned seed)
{
    size_t stride = L + gap, span = base + count * stride + 64, n = count * L;
    unsigned char *vec = zt_malloc(span), *packed = zt_malloc(n + 64);
    unsigned char *out = zt_malloc(span);
    MPI_Datatype t = runs_type((int)count, (int)L, (MPI_Aint)stride);
    memset(vec, FILL, span);
    for (size_t j = 0; j < n; j++)
        vec[model_off(j, L, stride, base)] = pat(j, seed);
    /* The packed buffer starts at a misaligned address too. */
    unsigned char *pk = packed + (base & 7);
    int pos = 0;
    ZT_OK(MPI_Pack(vec + base, 1, t, pk, (int)n, &pos, MPI_COMM_SELF));
    ZT_EQ(pos, n, "bytes packed");
    for (size_t j = 0; j < n; j++)
        ZT_CHECK(pk[j] == pat(j, seed), "pack L=%zu gap=%zu base=%zu: byte %zu is %#x, "
                 "want %#x", L, gap, base, j, pk[j], pat(j, seed));
    memset(out, FILL, span);
    pos = 0;
    ZT_OK(MPI_Unpack(pk, (int)n, &pos, out + base, 1, t, MPI_COMM_SELF));
    check_runs(out, span, count, L, stride, base, seed, "unpack");
    ZT_OK(MPI_Type_free(&t));
    free(vec);
    free(packed);
    free(out);
}

/* A pack and an unpack big enough (over 8 MiB) to write their output with
 * streaming stores: runs of L bytes, `gap` apart, into a packed buffer
 * `mis` bytes past a 64-byte boundary (runs from 256 bytes stream the
 * lines they fill whole; shorter ones only when they are whole aligned
 * lines, else they fall back; a streamed gather prefetches its source).
 * Checks every packed byte, then unpacks into a fresh buffer and checks
 * its runs and that its gaps stay untouched. */
static void big_pack_case(size_t L, size_t gap, size_t mis, unsigned seed)
{
    size_t count = ((size_t)9 << 20) / L + 1, stride = L + gap, n = count * L;
    size_t span = count * stride + 64;
    unsigned char *vec = zt_malloc(span), *out = zt_malloc(span);
    unsigned char *packed = aligned_alloc(64, (n + 64 + 63) / 64 * 64);
    ZT_CHECK(packed != NULL, "out of memory");
    MPI_Datatype t = runs_type((int)count, (int)L, (MPI_Aint)stride);
    memset(vec, FILL, span);
    for (size_t j = 0; j < n; j++)
        vec[model_off(j, L, stride, 0)] = pat(j, seed);
    unsigned char *pk = packed + mis;
    int pos = 0;
    ZT_OK(MPI_Pack(vec, 1, t, pk, (int)n, &pos, MPI_COMM_SELF));
    ZT_EQ(pos, n, "bytes packed");
    for (size_t j = 0; j < n; j++)
        ZT_CHECK(pk[j] == pat(j, seed), "big pack L=%zu mis=%zu: byte %zu is %#x, want %#x",
                 L, mis, j, pk[j], pat(j, seed));
    memset(out, FILL, span);
    pos = 0;
    ZT_OK(MPI_Unpack(pk, (int)n, &pos, out, 1, t, MPI_COMM_SELF));
    check_runs(out, span, count, L, stride, 0, seed, "big unpack");
    ZT_OK(MPI_Type_free(&t));
    free(vec);
    free(packed);
    free(out);
}

/* Rank 0 sends `count` runs of L bytes (gap gs, offset bs) to rank 1,
 * which receives them as runs (gap gr, offset br), or contiguously when
 * gr is -1.  Rank 1 checks, then returns the data to rank 0 the other way
 * round, which checks too. */
static void p2p_case(int rank, size_t count, size_t L, size_t gs, size_t bs, long gr,
                     size_t br, unsigned seed)
{
    size_t n = count * L;
    size_t ss = L + gs, sr = gr < 0 ? L : L + (size_t)gr;
    size_t spans = bs + count * ss + 64, spanr = br + count * sr + 64;
    MPI_Datatype ts = runs_type((int)count, (int)L, (MPI_Aint)ss);
    MPI_Datatype tr = gr < 0 ? MPI_BYTE : runs_type((int)count, (int)L, (MPI_Aint)sr);
    int cr = gr < 0 ? (int)n : 1;
    unsigned char *bufs = zt_malloc(spans), *bufr = zt_malloc(spanr);
    memset(bufs, FILL, spans);
    memset(bufr, FILL, spanr);
    if (rank == 0) {
        for (size_t j = 0; j < n; j++)
            bufs[model_off(j, L, ss, bs)] = pat(j, seed);
        ZT_OK(MPI_Send(bufs + bs, 1, ts, 1, 7, MPI_COMM_WORLD));
        memset(bufs, FILL, spans);
        ZT_OK(MPI_Recv(bufs + bs, 1, ts, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        check_runs(bufs, spans, count, L, ss, bs, seed, "p2p reply");
    } else {
        ZT_OK(MPI_Recv(bufr + br, cr, tr, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        check_runs(bufr, spanr, count, L, sr, br, seed, "p2p receive");
        ZT_OK(MPI_Send(bufr + br, cr, tr, 0, 8, MPI_COMM_WORLD));
    }
    ZT_OK(MPI_Type_free(&ts));
    if (gr >= 0)
        ZT_OK(MPI_Type_free(&tr));
    free(bufs);
    free(bufr);
}

/* Run lengths past the short ones: around the thresholds of the engine's
 * loops and of memcpy's strategies. */
static const size_t long_lengths[] = { 301, 383, 511, 512, 513, 1000, 2047, 2048, 2049,
                                        4093, 4096, 16384, 70001 };
#define NLONG (sizeof(long_lengths) / sizeof(long_lengths[0]))

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ZT_CHECK(size >= 2, "needs 2 ranks, got %d", size);
    unsigned seed = 1;
    if (rank == 0) {
        for (size_t L = 1; L <= 300; L++)
            for (size_t base = 0; base < 4; base++)
                pack_case(7, L, base == 3 ? 1 : L % 13 + 3, base * 5, seed++);
        for (size_t i = 0; i < NLONG; i++)
            pack_case(5, long_lengths[i], 3 + i, i % 8, seed++);
        /* Streamed whole (aligned runs of 256 B, 128 B, 4 KiB, 8 KiB), streamed
         * with partial end lines (misaligned output) and fallen back
         * (200-byte runs). */
        big_pack_case(256, 256, 0, seed++);
        big_pack_case(128, 128, 0, seed++);
        big_pack_case(4096, 64, 0, seed++);
        big_pack_case(8192, 8, 0, seed++);
        big_pack_case(256, 256, 8, seed++);
        big_pack_case(200, 56, 0, seed++);
    }
    seed = 1000; /* both ranks from here on */
    for (size_t L = 1; L <= 300; L++) {
        size_t big = (20 * 1024) / L + 1; /* past the eager limit */
        p2p_case(rank, 3, L, L % 5 + 1, L % 8, (long)(L % 3), L % 7, seed++);
        p2p_case(rank, big, L, L % 11 + 1, L % 5, (long)(L % 9 + 2), 3, seed++);
        if (L % 37 == 0)
            p2p_case(rank, big, L, 8, 1, -1, 5, seed++);
    }
    for (size_t i = 0; i < NLONG; i++) {
        size_t L = long_lengths[i];
        size_t count = (160 * 1024) / L + 2; /* past the cooperative-copy limit */
        p2p_case(rank, count, L, 64 + i, i, (long)(i * 3), 8 - i % 8, seed++);
        p2p_case(rank, count, L, 5, 2, -1, 1, seed++);
    }
    /* Messages over 8 MiB, whose cooperative copies stream their whole
     * destination lines: aligned runs, runs at odd offsets and gaps,
     * short runs of whole lines, and a contiguous receive. */
    p2p_case(rank, ((size_t)9 << 20) / 512 + 1, 512, 512, 0, 512, 0, seed++);
    p2p_case(rank, ((size_t)9 << 20) / 4096 + 1, 4096, 32, 8, 40, 24, seed++);
    p2p_case(rank, ((size_t)9 << 20) / 64 + 1, 64, 64, 0, 64, 0, seed++);
    p2p_case(rank, ((size_t)9 << 20) / 1000 + 1, 1000, 24, 3, -1, 5, seed++);
    /* Many short runs at cooperative sizes: chunks start inside runs. */
    p2p_case(rank, 200000 / 24, 24, 40, 0, 8, 3, seed++);
    p2p_case(rank, 200000 / 144, 144, 432, 288, 432, 32, seed++);
    /* Over 1 MiB: at most 32 chunks, each larger than 32 KiB, starting
     * inside runs; a contiguous message of an odd size too. */
    p2p_case(rank, ((size_t)3 << 20) / 144 + 7, 144, 432, 288, 432, 32, seed++);
    p2p_case(rank, 1, ((size_t)3 << 20) + 40, 0, 0, 0, 0, seed++);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("dt_runs: ok\n");
    MPI_Finalize();
    return 0;
}
