/*
 * stress.c: randomised point-to-point traffic, deterministic from a seed.
 * Every rank sends messages to random peers with random tags and sizes
 * (empty up to a maximum, many near any eager threshold), and receives what
 * is meant for it with a random mix of blocking, nonblocking, polling and
 * wildcard receives.  Each rank can recompute every rank's sending plan, so
 * it knows which message each receive must match under the non-overtaking
 * rule, and checks source, tag, size and every byte.
 * Usage: stress [seed] [messages per rank] [max bytes]
 */
#include "zt.h"

/* One message: the sender, its sending sequence number, tag and size. */
typedef struct msg {
    int src, seq, tag, size, dest, sync, done;
} msg;

typedef struct params {
    uint64_t seed;
    int nmsg, max_bytes, rank, size;
} params;

/* A size drawn so that about half the messages are tiny, many sit close to
 * 16 KiB (zmpi's default eager limit) and some are large. */
static int draw_size(zt_rng *r, int max_bytes)
{
    long p = zt_rng_below(r, 100), n;

    if (p < 40)
        n = zt_rng_below(r, 65);
    else if (p < 70)
        n = 65 + zt_rng_below(r, 4032);
    else if (p < 85)
        n = 16384 - 512 + zt_rng_below(r, 1025);
    else if (p < 95)
        n = 16384 + zt_rng_below(r, 49153);
    else
        n = zt_rng_below(r, max_bytes + 1L);
    return (int)(n < max_bytes ? n : max_bytes);
}

/* The k-th message of src's plan; the same on every rank. */
static void plan_of(const params *p, int src, msg *out)
{
    zt_rng r = zt_rng_make(p->seed, (uint64_t)src);

    for (int k = 0; k < p->nmsg; k++) {
        msg *m = &out[k];
        m->src = src;
        m->seq = k;
        m->dest = (src + 1 + (int)zt_rng_below(&r, p->size - 1)) % p->size;
        m->tag = (int)zt_rng_below(&r, 4);
        m->size = draw_size(&r, p->max_bytes);
        m->sync = (int)zt_rng_below(&r, 4) == 0;
        m->done = 0;
    }
}

/* Posts every send of this rank as Isend or Issend. */
static void post_sends(const params *p, msg *plan, unsigned char **bufs,
                       MPI_Request *reqs)
{
    for (int k = 0; k < p->nmsg; k++) {
        msg *m = &plan[k];
        bufs[k] = zt_malloc((size_t)m->size);
        zt_fill(bufs[k], (size_t)m->size, m->src, m->seq);
        if (m->sync)
            ZT_OK(MPI_Issend(bufs[k], m->size, MPI_BYTE, m->dest, m->tag,
                             MPI_COMM_WORLD, &reqs[k]));
        else
            ZT_OK(MPI_Isend(bufs[k], m->size, MPI_BYTE, m->dest, m->tag,
                            MPI_COMM_WORLD, &reqs[k]));
    }
}

/* Collects, in sending order per source, the messages meant for this rank.
 * first[s] is the index of source s's first message in the result. */
static msg *incoming(const params *p, int *first, int *total)
{
    msg *plan = zt_malloc((size_t)p->nmsg * sizeof *plan);
    msg *in = zt_malloc((size_t)p->nmsg * (size_t)p->size * sizeof *in);
    int n = 0;

    for (int s = 0; s < p->size; s++) {
        first[s] = n;
        plan_of(p, s, plan);
        for (int k = 0; k < p->nmsg; k++)
            if (plan[k].dest == p->rank)
                in[n++] = plan[k];
    }
    first[p->size] = n;
    *total = n;
    free(plan);
    return in;
}

/* The earliest message from src not yet claimed that a receive with tag
 * (or MPI_ANY_TAG) matches: what the non-overtaking rule says it gets. */
static msg *expected(msg *in, const int *first, int src, int tag)
{
    for (int i = first[src]; i < first[src + 1]; i++)
        if (!in[i].done && (tag == MPI_ANY_TAG || in[i].tag == tag))
            return &in[i];
    return NULL;
}

/* Checks a completed receive against the message it had to match. */
static void check_recv(msg *in, const int *first, const MPI_Status *st,
                       const unsigned char *buf, int want_tag)
{
    int src = st->MPI_SOURCE;

    ZT_CHECK(src >= 0 && first[src] < first[src + 1], "message from rank %d, "
             "which has nothing for this rank", src);
    msg *m = expected(in, first, src, want_tag);
    ZT_CHECK(m != NULL, "extra message from %d tag %d", src, st->MPI_TAG);
    ZT_CHECK_STATUS(*st, src, m->tag, m->size);
    ZT_CHECK_PAYLOAD(buf, (size_t)m->size, src, m->seq);
    m->done = 1;
}

/* A random message not yet received (it exists while any remain). */
static msg *random_pending(zt_rng *r, msg *in, int total)
{
    int i = (int)zt_rng_below(r, total);

    while (in[i].done)
        i = (i + 1) % total;
    return &in[i];
}

/* Receives up to 4 messages with preposted specific receives, completed
 * by MPI_Waitall; the receives claim messages in posting order. */
static int recv_batch(zt_rng *r, msg *in, const int *first, int total,
                      int remaining)
{
    MPI_Request reqs[4];
    MPI_Status st[4];
    unsigned char *bufs[4];
    msg *claim[4];
    int n = 1 + (int)zt_rng_below(r, 4);

    n = n < remaining ? n : remaining;
    for (int k = 0; k < n; k++) {
        msg *pick = random_pending(r, in, total);
        claim[k] = expected(in, first, pick->src, pick->tag);
        claim[k]->done = 1; /* Claimed, so the next receive skips it. */
        bufs[k] = zt_malloc((size_t)claim[k]->size + 16);
        ZT_OK(MPI_Irecv(bufs[k], claim[k]->size + 16, MPI_BYTE, pick->src,
                        pick->tag, MPI_COMM_WORLD, &reqs[k]));
    }
    ZT_OK(MPI_Waitall(n, reqs, st));
    for (int k = 0; k < n; k++) {
        claim[k]->done = 0;
        check_recv(in, first, &st[k], bufs[k], claim[k]->tag);
        ZT_CHECK(claim[k]->done, "batch receive %d matched message seq %d of "
                 "rank %d out of order", k, claim[k]->seq, claim[k]->src);
        free(bufs[k]);
    }
    return n;
}

/* One receive of a randomly chosen kind; returns how many completed. */
static int recv_one(zt_rng *r, msg *in, const int *first, int total,
                    int remaining, unsigned char *buf, int max_bytes)
{
    long kind = zt_rng_below(r, 6);
    msg *pick = random_pending(r, in, total);
    int src = MPI_ANY_SOURCE, tag = MPI_ANY_TAG, flag = 0;
    MPI_Request req;
    MPI_Status st;

    if (kind == 3)
        return recv_batch(r, in, first, total, remaining);
    if (kind == 1 || kind == 2)
        src = pick->src;
    if (kind == 2 || kind == 4)
        tag = pick->tag;
    if (kind == 5) {
        ZT_OK(MPI_Irecv(buf, max_bytes, MPI_BYTE, src, tag, MPI_COMM_WORLD, &req));
        while (!flag)
            ZT_OK(MPI_Test(&req, &flag, &st));
    } else {
        ZT_OK(MPI_Recv(buf, max_bytes, MPI_BYTE, src, tag, MPI_COMM_WORLD, &st));
    }
    check_recv(in, first, &st, buf, tag);
    return 1;
}

int main(int argc, char **argv)
{
    params p;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &p.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p.size);
    p.seed = argc > 1 ? strtoull(argv[1], NULL, 10) : 1;
    p.nmsg = argc > 2 ? atoi(argv[2]) : 40;
    p.max_bytes = argc > 3 ? atoi(argv[3]) : 256 * 1024;
    ZT_CHECK(p.size >= 2 && p.nmsg >= 0 && p.max_bytes >= 0,
             "bad arguments or fewer than 2 ranks");
    msg *plan = zt_malloc((size_t)p.nmsg * sizeof *plan);
    unsigned char **bufs = zt_malloc((size_t)p.nmsg * sizeof *bufs);
    MPI_Request *reqs = zt_malloc((size_t)p.nmsg * sizeof *reqs);
    int *first = zt_malloc(((size_t)p.size + 1) * sizeof *first), total;
    unsigned char *buf = zt_malloc((size_t)p.max_bytes);
    plan_of(&p, p.rank, plan);
    post_sends(&p, plan, bufs, reqs);
    msg *in = incoming(&p, first, &total);
    zt_rng r = zt_rng_make(p.seed, 1000000u + (uint64_t)p.rank);
    for (int left = total; left > 0;)
        left -= recv_one(&r, in, first, total, left, buf, p.max_bytes);
    ZT_OK(MPI_Waitall(p.nmsg, reqs, ZT_STATUSES_IGNORE));
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int k = 0; k < p.nmsg; k++)
        free(bufs[k]);
    free(plan), free(bufs), free(reqs), free(first), free(buf), free(in);
    MPI_Finalize();
    return 0;
}
