/*
 * coll_allgather.c: latency of MPI_Allgather of size bytes per rank (see
 * coll_common.h); every rank checks every received byte.
 */
#include "coll_common.h"

#include <string.h>

/* Allgathers iters times. */
static void run(const struct coll_ctx *c, long iters)
{
    for (long i = 0; i < iters; i++)
        MPI_Allgather(c->sbuf, (int)c->size, MPI_BYTE, c->rbuf,
                      (int)c->size, MPI_BYTE, c->comm);
}

/* Writes this rank's pattern and spoils the receive buffer. */
static void fill(const struct coll_ctx *c)
{
    for (size_t i = 0; i < c->size; i++)
        c->sbuf[i] = coll_pattern(c->rank, c->index, i);
    memset(c->rbuf, 0, c->size * (size_t)c->nranks);
}

/* Counts the bytes that differ from the senders' patterns. */
static long check(const struct coll_ctx *c)
{
    long bad = 0;
    for (int r = 0; r < c->nranks; r++) {
        const unsigned char *block = c->rbuf + (size_t)r * c->size;
        for (size_t i = 0; i < c->size; i++)
            bad += block[i] != coll_pattern(r, c->index, i);
    }
    return bad;
}

int main(int argc, char **argv)
{
    static const struct coll_bench bench = {
        .name = "Allgather", .unit = 1, .recv_blocks = 1, .run = run,
        .fill = fill, .check = check,
    };
    return coll_main(argc, argv, &bench);
}
