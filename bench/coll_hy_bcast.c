/*
 * coll_hy_bcast.c: latency of zmpi_hy_bcast of size bytes from rank 0
 * (see coll_hy_common.h); every rank checks every byte it can read.
 */
#include "coll_hy_common.h"

/* Broadcasts iters times. */
static void run(const struct coll_ctx *c, long iters)
{
    struct hy_state *s = c->state;
    for (long i = 0; i < iters; i++)
        zmpi_hy_bcast(&s->hy, &s->reg, 0, c->size, 0, &s->result);
}

/* The root writes the pattern into its slice. */
static void fill(const struct coll_ctx *c)
{
    struct hy_state *s = c->state;
    if (s->hy.rank == 0)
        for (size_t i = 0; i < c->size; i++)
            s->reg.slice[i] = coll_pattern(0, c->index, i);
}

/* Counts the bytes that differ from the root's pattern. */
static long check(const struct coll_ctx *c)
{
    const struct hy_state *s = c->state;
    const unsigned char *data = s->result;
    long bad = 0;
    for (size_t i = 0; i < c->size; i++)
        bad += data[i] != coll_pattern(0, c->index, i);
    return bad;
}

int main(int argc, char **argv)
{
    static const struct coll_bench bench = {
        .name = "hy_bcast", .title = "zmpi_hy_bcast (one copy per node)",
        .unit = 1, .run = run, .fill = fill, .check = check,
        .begin = hy_begin, .end = hy_end,
    };
    return coll_main(argc, argv, &bench);
}
