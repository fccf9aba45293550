/*
 * coll_barrier.c: latency of MPI_Barrier over all ranks (see
 * coll_common.h).  There is no data, so there is nothing to check beyond
 * the calls returning.
 */
#include "coll_common.h"

/* Calls MPI_Barrier iters times. */
static void run(const struct coll_ctx *c, long iters)
{
    for (long i = 0; i < iters; i++)
        MPI_Barrier(c->comm);
}

/* A barrier has no data. */
static void fill(const struct coll_ctx *c)
{
    (void)c;
}

/* A barrier has no data. */
static long check(const struct coll_ctx *c)
{
    (void)c;
    return 0;
}

int main(int argc, char **argv)
{
    static const struct coll_bench bench = {
        .name = "Barrier", .unit = 0, .run = run, .fill = fill,
        .check = check,
    };
    return coll_main(argc, argv, &bench);
}
