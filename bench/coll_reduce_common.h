/*
 * coll_reduce_common.h: data and check of the reduction benchmarks
 * (coll_reduce.c, coll_allreduce.c): MPI_INT with MPI_SUM, so that the
 * result is exact.  Rank r contributes r + (i % 7) + index at element i;
 * the sum over n ranks is n (i % 7 + index) + n (n - 1) / 2.
 */
#ifndef ZMPI_BENCH_COLL_REDUCE_COMMON_H
#define ZMPI_BENCH_COLL_REDUCE_COMMON_H

#include <string.h>

#include "coll_common.h"

/* Writes this rank's contribution and spoils the result buffer. */
static inline void reduce_fill(const struct coll_ctx *c)
{
    int *s = (int *)c->sbuf;
    for (size_t i = 0; i < c->size / sizeof(int); i++)
        s[i] = c->rank + (int)(i % 7) + c->index;
    memset(c->rbuf, 0xff, c->size);
}

/* Counts the wrong elements of a reduced result in rbuf. */
static inline long reduce_check_result(const struct coll_ctx *c)
{
    const int *r = (const int *)c->rbuf;
    long n = c->nranks, bad = 0;
    for (size_t i = 0; i < c->size / sizeof(int); i++)
        bad += r[i] != (int)(n * ((long)(i % 7) + c->index) + n * (n - 1) / 2);
    return bad;
}

#endif
