/*
 * coll_reduce.c: latency of MPI_Reduce (MPI_INT, MPI_SUM, root 0) of size
 * bytes (see coll_common.h); the root checks every element.
 */
#include "coll_reduce_common.h"

/* Reduces to rank 0 iters times. */
static void run(const struct coll_ctx *c, long iters)
{
    int count = (int)(c->size / sizeof(int));
    for (long i = 0; i < iters; i++)
        MPI_Reduce(c->sbuf, c->rbuf, count, MPI_INT, MPI_SUM, 0, c->comm);
}

/* Only the root has a result. */
static long check(const struct coll_ctx *c)
{
    return c->rank == 0 ? reduce_check_result(c) : 0;
}

int main(int argc, char **argv)
{
    static const struct coll_bench bench = {
        .name = "Reduce", .unit = sizeof(int), .run = run,
        .fill = reduce_fill, .check = check,
    };
    return coll_main(argc, argv, &bench);
}
