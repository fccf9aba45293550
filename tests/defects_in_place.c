/*
 * defects_in_place.c: every collective that accepts MPI_IN_PLACE ignores
 * the arguments that MPI_IN_PLACE replaces (issue 23, item 1).
 *
 * The standard says the send count and type (for Scatter(v) at the root:
 * the receive count and type; for Alltoallv/w: the send counts,
 * displacements and types) are ignored with MPI_IN_PLACE, so programs pass
 * anything there: here -1 with MPI_DATATYPE_NULL, -1 with a freed type, a
 * huge count with a freed type, a wild handle, and NULL arrays.  Each collective runs
 * blocking and non-blocking, with blocks of 1, 3 and 700 ints (small ones
 * take the fast path, large ones the general one), and every result is
 * compared with the value computed by hand.
 */
#include "zt.h"

#include <limits.h>

/* The int that rank `a` holds for rank `b` at index i. */
static int val(int a, int b, int i)
{
    return a * 1000003 + b * 1009 + i;
}

/* Ignored send arguments. */
typedef struct junk {
    int count;
    MPI_Datatype type;
} junk_t;

/* Run a collective blocking (req == NULL) or start it and wait. */
static void finish(MPI_Request *req)
{
    if (req)
        ZT_OK(MPI_Wait(req, MPI_STATUS_IGNORE));
}

#define CALL(nb, blocking, nonblocking, ...)                    \
    do {                                                        \
        MPI_Request req_;                                       \
        if (nb) {                                               \
            ZT_OK(MPI_##nonblocking(__VA_ARGS__, &req_));       \
            finish(&req_);                                      \
        } else {                                                \
            ZT_OK(MPI_##blocking(__VA_ARGS__));                 \
        }                                                       \
    } while (0)

typedef struct ctx {
    MPI_Comm comm;
    int me, n;
    int c;        /* ints per block */
    int nb;       /* non-blocking forms */
    junk_t j;     /* the ignored arguments */
    int *buf;     /* n * (c + 1) ints */
    int *cnt, *dsp, *bdsp;
    MPI_Datatype *types;
} ctx_t;

static void alltoall(ctx_t *x)
{
    int n = x->n, c = x->c, me = x->me;
    for (int q = 0; q < n; q++)
        for (int i = 0; i < c; i++)
            x->buf[q * c + i] = val(me, q, i);
    CALL(x->nb, Alltoall, Ialltoall, MPI_IN_PLACE, x->j.count, x->j.type, x->buf, c, MPI_INT, x->comm);
    for (int q = 0; q < n; q++)
        for (int i = 0; i < c; i++)
            ZT_EQ(x->buf[q * c + i], val(q, me, i), "Alltoall in place");
}

/* Alltoallv with a gap of one int between the blocks, and Alltoallw. */
static void alltoallv(ctx_t *x)
{
    int n = x->n, c = x->c, me = x->me;
    for (int q = 0; q < n; q++) {
        x->cnt[q] = c;
        x->dsp[q] = q * (c + 1);
        x->bdsp[q] = x->dsp[q] * (int)sizeof(int);
        x->types[q] = MPI_INT;
        for (int i = 0; i < c; i++)
            x->buf[x->dsp[q] + i] = val(me, q, i);
        x->buf[x->dsp[q] + c] = -7;
    }
    CALL(x->nb, Alltoallv, Ialltoallv, MPI_IN_PLACE, NULL, NULL, x->j.type, x->buf, x->cnt, x->dsp,
         MPI_INT, x->comm);
    for (int q = 0; q < n; q++) {
        for (int i = 0; i < c; i++)
            ZT_EQ(x->buf[x->dsp[q] + i], val(q, me, i), "Alltoallv in place");
        ZT_EQ(x->buf[x->dsp[q] + c], -7, "Alltoallv in place: the gap");
    }
    if (x->nb)
        return; /* no MPI_Ialltoallw */
    for (int q = 0; q < n; q++)
        for (int i = 0; i < c; i++)
            x->buf[x->dsp[q] + i] = val(me, q, i) + 1;
    ZT_OK(MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, x->buf, x->cnt, x->bdsp, x->types,
                        x->comm));
    for (int q = 0; q < n; q++) {
        for (int i = 0; i < c; i++)
            ZT_EQ(x->buf[x->dsp[q] + i], val(q, me, i) + 1, "Alltoallw in place");
        ZT_EQ(x->buf[x->dsp[q] + c], -7, "Alltoallw in place: the gap");
    }
}

static void allgather(ctx_t *x)
{
    int n = x->n, c = x->c, me = x->me;
    for (int i = 0; i < n * (c + 1); i++)
        x->buf[i] = -1;
    for (int i = 0; i < c; i++)
        x->buf[me * c + i] = val(me, 0, i);
    CALL(x->nb, Allgather, Iallgather, MPI_IN_PLACE, x->j.count, x->j.type, x->buf, c, MPI_INT, x->comm);
    for (int q = 0; q < n; q++)
        for (int i = 0; i < c; i++)
            ZT_EQ(x->buf[q * c + i], val(q, 0, i), "Allgather in place");
    for (int q = 0; q < n; q++) {
        x->cnt[q] = c;
        x->dsp[q] = q * (c + 1);
        x->buf[x->dsp[q] + c] = -7;
    }
    for (int i = 0; i < c; i++)
        x->buf[x->dsp[me] + i] = val(me, 1, i);
    CALL(x->nb, Allgatherv, Iallgatherv, MPI_IN_PLACE, x->j.count, x->j.type, x->buf, x->cnt, x->dsp,
         MPI_INT, x->comm);
    for (int q = 0; q < n; q++) {
        for (int i = 0; i < c; i++)
            ZT_EQ(x->buf[x->dsp[q] + i], val(q, 1, i), "Allgatherv in place");
        ZT_EQ(x->buf[x->dsp[q] + c], -7, "Allgatherv in place: the gap");
    }
}

/* Gather(v) and Scatter(v) with the root's ignored arguments garbage. */
static void rooted(ctx_t *x, int root)
{
    int n = x->n, c = x->c, me = x->me, *mine = x->buf + n * (c + 1) - c;
    int at_root = me == root;
    /* Gather: the root's own block is already in place. */
    for (int i = 0; i < n * c; i++)
        x->buf[i] = -1;
    if (at_root)
        for (int i = 0; i < c; i++)
            x->buf[root * c + i] = val(root, 2, i);
    else
        for (int i = 0; i < c; i++)
            mine[i] = val(me, 2, i);
    if (at_root)
        CALL(x->nb, Gather, Igather, MPI_IN_PLACE, x->j.count, x->j.type, x->buf, c, MPI_INT, root,
             x->comm);
    else
        CALL(x->nb, Gather, Igather, mine, c, MPI_INT, NULL, x->j.count, x->j.type, root, x->comm);
    for (int q = 0; q < n && at_root; q++)
        for (int i = 0; i < c; i++)
            ZT_EQ(x->buf[q * c + i], val(q, 2, i), "Gather in place");
    for (int q = 0; q < n; q++) {
        x->cnt[q] = c;
        x->dsp[q] = (n - 1 - q) * c; /* reversed order */
    }
    if (at_root)
        for (int i = 0; i < c; i++)
            x->buf[x->dsp[root] + i] = val(root, 3, i);
    else
        for (int i = 0; i < c; i++)
            mine[i] = val(me, 3, i);
    if (at_root)
        CALL(x->nb, Gatherv, Igatherv, MPI_IN_PLACE, x->j.count, x->j.type, x->buf, x->cnt, x->dsp,
             MPI_INT, root, x->comm);
    else
        CALL(x->nb, Gatherv, Igatherv, mine, c, MPI_INT, NULL, NULL, NULL, x->j.type, root, x->comm);
    for (int q = 0; q < n && at_root; q++)
        for (int i = 0; i < c; i++)
            ZT_EQ(x->buf[x->dsp[q] + i], val(q, 3, i), "Gatherv in place");

    /* Scatter: the root keeps its block where it is. */
    if (at_root)
        for (int q = 0; q < n; q++)
            for (int i = 0; i < c; i++)
                x->buf[q * c + i] = val(root, q, i);
    for (int i = 0; i < c && !at_root; i++)
        mine[i] = -1;
    if (at_root)
        CALL(x->nb, Scatter, Iscatter, x->buf, c, MPI_INT, MPI_IN_PLACE, x->j.count, x->j.type, root,
             x->comm);
    else
        CALL(x->nb, Scatter, Iscatter, NULL, x->j.count, x->j.type, mine, c, MPI_INT, root, x->comm);
    for (int i = 0; i < c; i++)
        ZT_EQ(at_root ? x->buf[root * c + i] : mine[i], val(root, me, i), "Scatter in place");
    if (at_root)
        for (int q = 0; q < n; q++)
            for (int i = 0; i < c; i++)
                x->buf[x->dsp[q] + i] = val(root, q, i) + 5;
    if (at_root)
        CALL(x->nb, Scatterv, Iscatterv, x->buf, x->cnt, x->dsp, MPI_INT, MPI_IN_PLACE, x->j.count,
             x->j.type, root, x->comm);
    else
        CALL(x->nb, Scatterv, Iscatterv, NULL, NULL, NULL, x->j.type, mine, c, MPI_INT, root, x->comm);
    for (int i = 0; i < c; i++)
        ZT_EQ(at_root ? x->buf[x->dsp[root] + i] : mine[i], val(root, me, i) + 5,
              "Scatterv in place");
}

/* The reductions with MPI_IN_PLACE (they have no separate send type). */
static void reductions(ctx_t *x, int root)
{
    int n = x->n, c = x->c, me = x->me;
    long long tot = 0; /* sum over the ranks of val(q, 0, 0) */
    for (int q = 0; q < n; q++)
        tot += val(q, 0, 0);
    for (int i = 0; i < c; i++)
        x->buf[i] = val(me, 0, i);
    if (me == root)
        CALL(x->nb, Reduce, Ireduce, MPI_IN_PLACE, x->buf, c, MPI_INT, MPI_SUM, root, x->comm);
    else
        CALL(x->nb, Reduce, Ireduce, x->buf, NULL, c, MPI_INT, MPI_SUM, root, x->comm);
    for (int i = 0; i < c && me == root; i++)
        ZT_EQ(x->buf[i], tot + (long long)n * i, "Reduce in place");

    for (int i = 0; i < c; i++)
        x->buf[i] = val(me, 0, i);
    CALL(x->nb, Allreduce, Iallreduce, MPI_IN_PLACE, x->buf, c, MPI_INT, MPI_SUM, x->comm);
    for (int i = 0; i < c; i++)
        ZT_EQ(x->buf[i], tot + (long long)n * i, "Allreduce in place");

    for (int i = 0; i < n * c; i++)
        x->buf[i] = val(me, 0, i);
    CALL(x->nb, Reduce_scatter_block, Ireduce_scatter_block, MPI_IN_PLACE, x->buf, c, MPI_INT, MPI_SUM, x->comm);
    for (int i = 0; i < c; i++)
        ZT_EQ(x->buf[i], tot + (long long)n * (me * c + i), "Reduce_scatter_block in place");

    /* Rank q gets q % 3 elements. */
    int total = 0, first = 0;
    for (int q = 0; q < n; q++) {
        x->cnt[q] = q % 3;
        if (q < me)
            first += x->cnt[q];
        total += x->cnt[q];
    }
    for (int i = 0; i < total; i++)
        x->buf[i] = val(me, 0, i);
    CALL(x->nb, Reduce_scatter, Ireduce_scatter, MPI_IN_PLACE, x->buf, x->cnt, MPI_INT, MPI_SUM, x->comm);
    for (int i = 0; i < x->cnt[me]; i++)
        ZT_EQ(x->buf[i], tot + (long long)n * (first + i), "Reduce_scatter in place");

    for (int i = 0; i < c; i++)
        x->buf[i] = val(me, 0, i);
    CALL(x->nb, Scan, Iscan, MPI_IN_PLACE, x->buf, c, MPI_INT, MPI_SUM, x->comm);
    long long pre = 0;
    for (int q = 0; q <= me; q++)
        pre += val(q, 0, 0);
    for (int i = 0; i < c; i++)
        ZT_EQ(x->buf[i], pre + (long long)(me + 1) * i, "Scan in place");

    for (int i = 0; i < c; i++)
        x->buf[i] = val(me, 0, i);
    CALL(x->nb, Exscan, Iexscan, MPI_IN_PLACE, x->buf, c, MPI_INT, MPI_SUM, x->comm);
    pre -= val(me, 0, 0);
    for (int i = 0; i < c && me > 0; i++)
        ZT_EQ(x->buf[i], pre + (long long)me * i, "Exscan in place");
}

/* Without MPI_IN_PLACE the same send arguments are errors again. */
static void not_ignored_otherwise(ctx_t *x)
{
    int *s = zt_malloc(sizeof(int) * (size_t)x->n);
    MPI_Comm_set_errhandler(x->comm, MPI_ERRORS_RETURN);
    int rc = MPI_Alltoall(s, -1, MPI_INT, x->buf, 1, MPI_INT, x->comm);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    ZT_EQ(cls, MPI_ERR_COUNT, "Alltoall(sendcount=-1) without MPI_IN_PLACE");
    rc = MPI_Allgather(s, 1, MPI_DATATYPE_NULL, x->buf, 1, MPI_INT, x->comm);
    MPI_Error_class(rc, &cls);
    ZT_EQ(cls, MPI_ERR_TYPE, "Allgather(sendtype=MPI_DATATYPE_NULL) without MPI_IN_PLACE");
    /* MPI_IN_PLACE where the standard does not allow it. */
    if (x->me != 0) {
        rc = MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, NULL, 1, MPI_INT, 0, x->comm);
        MPI_Error_class(rc, &cls);
        ZT_EQ(cls, MPI_ERR_BUFFER, "Gather(MPI_IN_PLACE) at a non-root");
    }
    MPI_Comm_set_errhandler(x->comm, MPI_ERRORS_ARE_FATAL);
    free(s);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ctx_t x;
    memset(&x, 0, sizeof(x));
    x.comm = MPI_COMM_WORLD;
    MPI_Comm_rank(x.comm, &x.me);
    MPI_Comm_size(x.comm, &x.n);
    MPI_Datatype t, freed;
    MPI_Type_contiguous(2, MPI_INT, &t);
    MPI_Type_commit(&t);
    freed = t;
    MPI_Type_free(&t);
    /* A wild handle too: a datatype that was never one. */
    MPI_Datatype wild = (MPI_Datatype)(intptr_t)16;
    const junk_t junks[] = { { -1, MPI_DATATYPE_NULL }, { -1, freed }, { INT_MAX, freed },
                             { 0, MPI_DATATYPE_NULL }, { -5, wild } };
    const int sizes[] = { 1, 3, 700 };
    x.cnt = zt_malloc(sizeof(int) * (size_t)x.n);
    x.dsp = zt_malloc(sizeof(int) * (size_t)x.n);
    x.bdsp = zt_malloc(sizeof(int) * (size_t)x.n);
    x.types = zt_malloc(sizeof(MPI_Datatype) * (size_t)x.n);
    x.buf = zt_malloc(sizeof(int) * (size_t)x.n * (700 + 1));
    for (int s = 0; s < 3; s++) {
        x.c = sizes[s];
        for (int j = 0; j < 5; j++) {
            x.j = junks[j];
            for (x.nb = 0; x.nb < 2; x.nb++) {
                alltoall(&x);
                alltoallv(&x);
                allgather(&x);
                rooted(&x, 0);
                rooted(&x, x.n - 1);
                reductions(&x, x.n / 2);
            }
        }
    }
    not_ignored_otherwise(&x);
    free(x.buf);
    free(x.cnt);
    free(x.dsp);
    free(x.bdsp);
    free(x.types);
    if (x.me == 0)
        printf("defects_in_place: %d ranks ok\n", x.n);
    MPI_Finalize();
    return 0;
}
