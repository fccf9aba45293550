/*
 * coll_bcast.c: latency of MPI_Bcast of size bytes from rank 0 (see
 * coll_common.h).  The check compares every received byte.
 */
#include "coll_common.h"

#include <string.h>

/* Broadcasts the buffer iters times; rank 0 sends from sbuf, the others
 * receive into rbuf. */
static void run(const struct coll_ctx *c, long iters)
{
    unsigned char *buf = c->rank == 0 ? c->sbuf : c->rbuf;
    for (long i = 0; i < iters; i++)
        MPI_Bcast(buf, (int)c->size, MPI_BYTE, 0, c->comm);
}

/* The root writes the pattern; the others spoil their buffers. */
static void fill(const struct coll_ctx *c)
{
    for (size_t i = 0; i < c->size; i++)
        c->sbuf[i] = coll_pattern(0, c->index, i);
    memset(c->rbuf, 0, c->size);
}

/* Counts the bytes that differ from the root's pattern. */
static long check(const struct coll_ctx *c)
{
    long bad = 0;
    if (c->rank == 0)
        return 0;
    for (size_t i = 0; i < c->size; i++)
        bad += c->rbuf[i] != coll_pattern(0, c->index, i);
    return bad;
}

int main(int argc, char **argv)
{
    static const struct coll_bench bench = {
        .name = "Bcast", .unit = 1, .run = run, .fill = fill, .check = check,
    };
    return coll_main(argc, argv, &bench);
}
