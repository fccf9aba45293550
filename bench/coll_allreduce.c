/*
 * coll_allreduce.c: latency of MPI_Allreduce (MPI_INT, MPI_SUM) of size
 * bytes (see coll_common.h); every rank checks every element.
 */
#include "coll_reduce_common.h"

/* Allreduces iters times. */
static void run(const struct coll_ctx *c, long iters)
{
    int count = (int)(c->size / sizeof(int));
    for (long i = 0; i < iters; i++)
        MPI_Allreduce(c->sbuf, c->rbuf, count, MPI_INT, MPI_SUM, c->comm);
}

int main(int argc, char **argv)
{
    static const struct coll_bench bench = {
        .name = "Allreduce", .unit = sizeof(int), .run = run,
        .fill = reduce_fill, .check = reduce_check_result,
    };
    return coll_main(argc, argv, &bench);
}
