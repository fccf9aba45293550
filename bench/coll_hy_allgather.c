/*
 * coll_hy_allgather.c: latency of zmpi_hy_allgather of size bytes per
 * rank (see coll_hy_common.h); every rank checks every byte of its node's
 * copy.
 */
#include "coll_hy_common.h"

/* Allgathers iters times. */
static void run(const struct coll_ctx *c, long iters)
{
    struct hy_state *s = c->state;
    for (long i = 0; i < iters; i++)
        zmpi_hy_allgather(&s->hy, &s->reg);
}

/* Writes this rank's pattern into its slice. */
static void fill(const struct coll_ctx *c)
{
    struct hy_state *s = c->state;
    for (size_t i = 0; i < c->size; i++)
        s->reg.slice[i] = coll_pattern(s->hy.rank, c->index, i);
}

/* Counts the bytes that differ from the ranks' patterns. */
static long check(const struct coll_ctx *c)
{
    const struct hy_state *s = c->state;
    long bad = 0;
    for (int r = 0; r < c->nranks; r++) {
        const unsigned char *block = s->reg.base + (size_t)r * c->size;
        for (size_t i = 0; i < c->size; i++)
            bad += block[i] != coll_pattern(r, c->index, i);
    }
    return bad;
}

int main(int argc, char **argv)
{
    static const struct coll_bench bench = {
        .name = "hy_allgather",
        .title = "zmpi_hy_allgather (one copy per node)",
        .unit = 1, .recv_blocks = 1, .run = run, .fill = fill,
        .check = check, .begin = hy_begin, .end = hy_end,
    };
    return coll_main(argc, argv, &bench);
}
