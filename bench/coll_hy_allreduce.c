/*
 * coll_hy_allreduce.c: latency of zmpi_hy_allreduce (MPI_INT, MPI_SUM) of
 * size bytes (see coll_hy_common.h); every rank checks every element of
 * its node's result, with the data of coll_reduce_common.h.
 */
#include "coll_hy_common.h"

/* Allreduces iters times. */
static void run(const struct coll_ctx *c, long iters)
{
    struct hy_state *s = c->state;
    int count = (int)(c->size / sizeof(int));
    for (long i = 0; i < iters; i++)
        zmpi_hy_allreduce(&s->hy, &s->reg, count, MPI_INT, MPI_SUM,
                          &s->result);
}

/* Writes this rank's contribution into its slice. */
static void fill(const struct coll_ctx *c)
{
    struct hy_state *s = c->state;
    int *in = (int *)s->reg.slice;
    for (size_t i = 0; i < c->size / sizeof(int); i++)
        in[i] = s->hy.rank + (int)(i % 7) + c->index;
}

/* Counts the wrong elements of the node's result. */
static long check(const struct coll_ctx *c)
{
    const struct hy_state *s = c->state;
    const int *r = s->result;
    long n = c->nranks, bad = 0;
    for (size_t i = 0; i < c->size / sizeof(int); i++)
        bad += r[i] != (int)(n * ((long)(i % 7) + c->index) + n * (n - 1) / 2);
    return bad;
}

int main(int argc, char **argv)
{
    static const struct coll_bench bench = {
        .name = "hy_allreduce",
        .title = "zmpi_hy_allreduce (one result per node)",
        .unit = sizeof(int), .run = run, .fill = fill, .check = check,
        .begin = hy_begin, .end = hy_end,
    };
    return coll_main(argc, argv, &bench);
}
