/*
 * coll_alltoall.c: latency of MPI_Alltoall of size bytes per pair of
 * ranks (see coll_common.h); every rank checks every received byte.
 */
#include "coll_common.h"

#include <string.h>

/* Exchanges iters times. */
static void run(const struct coll_ctx *c, long iters)
{
    for (long i = 0; i < iters; i++)
        MPI_Alltoall(c->sbuf, (int)c->size, MPI_BYTE, c->rbuf, (int)c->size,
                     MPI_BYTE, c->comm);
}

/* Writes the block for every destination and spoils the receive buffer;
 * the block from src to dst carries the pattern of src * nranks + dst. */
static void fill(const struct coll_ctx *c)
{
    for (int d = 0; d < c->nranks; d++) {
        unsigned char *block = c->sbuf + (size_t)d * c->size;
        long id = (long)c->rank * c->nranks + d;
        for (size_t i = 0; i < c->size; i++)
            block[i] = coll_pattern(id, c->index, i);
    }
    memset(c->rbuf, 0, c->size * (size_t)c->nranks);
}

/* Counts the bytes that differ from what each source sent here. */
static long check(const struct coll_ctx *c)
{
    long bad = 0;
    for (int s = 0; s < c->nranks; s++) {
        const unsigned char *block = c->rbuf + (size_t)s * c->size;
        long id = (long)s * c->nranks + c->rank;
        for (size_t i = 0; i < c->size; i++)
            bad += block[i] != coll_pattern(id, c->index, i);
    }
    return bad;
}

int main(int argc, char **argv)
{
    static const struct coll_bench bench = {
        .name = "Alltoall", .unit = 1, .send_blocks = 1, .recv_blocks = 1,
        .run = run, .fill = fill, .check = check,
    };
    return coll_main(argc, argv, &bench);
}
