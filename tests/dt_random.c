/*
 * dt_random.c: random nested derived datatypes (up to four levels, negative
 * strides and displacements, resized bounds, zero counts), checked byte for
 * byte against the naive model in dt_ref.h:
 *   - MPI_Pack / MPI_Unpack of every type, whole and in two pieces;
 *   - send/receive between rank pairs, with a different random layout on
 *     each side (same signature: all MPI_INT), at eager and rendezvous sizes,
 *     through blocking, non-blocking (type freed before the wait),
 *     persistent, buffered, probe-then-receive and truncating receives;
 *   - rebuilding each type from MPI_Type_get_contents.
 * Usage: dt_random [seed [iterations]].
 */
#include "dt_ref.h"

typedef struct rng { uint64_t s; } rng_t;

static unsigned rnd(rng_t *g, unsigned n)
{
    g->s = g->s * 6364136223846793005ull + 1442695040888963407ull;
    return n ? (unsigned)((g->s >> 33) % n) : 0;
}

static ref_t ref_copy(const ref_t *b)
{
    ref_t r = *b;
    r.off = zt_malloc(b->n * sizeof(long) + 1);
    memcpy(r.off, b->off, b->n * sizeof(long));
    return r;
}

static ref_t gen(rng_t *g, int depth, const ref_t *bases, int nbases);

/* A struct or indexed form over random children. */
static ref_t gen_blocks(rng_t *g, int depth, const ref_t *bases, int nbases, char kind)
{
    int n = 1 + (int)rnd(g, 4), bl[4];
    MPI_Aint disp[4];
    ref_t sub[4];
    const ref_t *o[4];
    int nsub = kind == 's' ? n : 1;
    for (int i = 0; i < nsub; i++)
        sub[i] = gen(g, depth - 1, bases, nbases);
    int b0 = (int)rnd(g, 3);
    for (int i = 0; i < n; i++) {
        o[i] = &sub[kind == 's' ? i : 0];
        bl[i] = kind == 'b' || kind == 'k' ? b0 : (int)rnd(g, 3);
        long e = o[0]->extent ? o[0]->extent : 1;
        disp[i] = kind == 's' || kind == 'h' || kind == 'k' ? (MPI_Aint)rnd(g, 97) - 40
                                                            : ((MPI_Aint)rnd(g, 9) - 3) * e;
    }
    ref_t r = ref_blocks(kind, n, bl, disp, o);
    for (int i = 0; i < nsub; i++)
        ref_free(&sub[i]); /* the new type keeps what it needs */
    return r;
}

/* A random 1- to 3-dimensional subarray of o, C or Fortran order. */
static ref_t gen_subarray(rng_t *g, const ref_t *o)
{
    int nd = 1 + (int)rnd(g, 3), sz[3], sub[3], st[3], pitch[3], idx[3] = { 0, 0, 0 };
    int order = rnd(g, 2) ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
    size_t total = 1, whole = 1;
    for (int d = 0; d < nd; d++) {
        sz[d] = 1 + (int)rnd(g, 5);
        sub[d] = 1 + (int)rnd(g, (unsigned)sz[d]); /* Open MPI rejects 0 */
        st[d] = (int)rnd(g, (unsigned)(sz[d] - sub[d] + 1));
        total *= (size_t)sub[d];
        whole *= (size_t)sz[d];
    }
    for (int k = 0, p = 1; k < nd; k++) {
        int d = order == MPI_ORDER_C ? nd - 1 - k : k;
        pitch[d] = p;
        p *= sz[d];
    }
    MPI_Datatype t;
    ZT_OK(MPI_Type_create_subarray(nd, sz, sub, st, order, o->t, &t));
    long *off = zt_malloc(total * o->n * sizeof(long) + 1);
    size_t k = 0;
    for (size_t e = 0; e < total; e++) {
        long at = 0;
        for (int d = 0; d < nd; d++)
            at += (long)(st[d] + idx[d]) * pitch[d];
        ref_put(off, &k, o, at * o->extent);
        for (int j = 0; j < nd; j++) { /* next index, fastest dimension first */
            int d = order == MPI_ORDER_C ? nd - 1 - j : j;
            if (++idx[d] < sub[d])
                break;
            idx[d] = 0;
        }
    }
    ref_t r = ref_make(t, off, k);
    ZT_CHECK(r.lb == 0 && r.extent == (MPI_Aint)whole * o->extent, "subarray bounds");
    return r;
}

static ref_t gen(rng_t *g, int depth, const ref_t *bases, int nbases)
{
    if (depth == 0 || rnd(g, 5) == 0)
        return ref_copy(&bases[rnd(g, (unsigned)nbases)]);
    ref_t r, sub;
    unsigned k = rnd(g, 11);
    if (k >= 5 && k <= 8)
        return gen_blocks(g, depth, bases, nbases, "shibk"[k - 4]);
    if (k == 4)
        return gen_blocks(g, depth, bases, nbases, 's');
    sub = gen(g, depth - 1, bases, nbases);
    switch (k) {
    case 0:
        r = ref_contig((int)rnd(g, 4), &sub);
        break;
    case 1:
        r = ref_vector((int)rnd(g, 4), (int)rnd(g, 3), (int)rnd(g, 9) - 4, &sub);
        break;
    case 2:
        r = ref_hvector((int)rnd(g, 4), (int)rnd(g, 3), (MPI_Aint)rnd(g, 81) - 40, &sub);
        break;
    case 3:
        r = ref_resized(&sub, (MPI_Aint)rnd(g, 17) - 8, sub.extent + (MPI_Aint)rnd(g, 9));
        break;
    case 10:
        r = gen_subarray(g, &sub);
        break;
    default: {
        MPI_Datatype d;
        ZT_OK(MPI_Type_dup(sub.t, &d));
        r = ref_copy(&sub);
        r.t = d;
        break;
    }
    }
    ref_free(&sub);
    return r;
}

static int overlaps(const ref_t *r, int count)
{
    long lo, hi;
    ref_span(r, count, &lo, &hi);
    unsigned char *seen = calloc((size_t)(hi - lo), 1);
    int bad = 0;
    for (int i = 0; i < count && !bad; i++)
        for (size_t j = 0; j < r->n && !bad; j++) {
            long o = (long)i * r->extent + r->off[j] - lo;
            bad = seen[o]++;
        }
    free(seen);
    return bad;
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(seed * 131 + i * 7 + (i >> 8));
}

/* Pack and unpack (whole and in two pieces) against the model. */
static void check_pack(const ref_t *r, int count)
{
    unsigned char *mem, *mem2;
    size_t len;
    long lo;
    unsigned char *base = ref_buffer(r, count, &mem, &len, &lo);
    size_t bytes = r->n * (size_t)count;
    unsigned char *got = zt_malloc(bytes), *want = zt_malloc(bytes);
    fill(mem, len, (unsigned)count);
    int pos = 0, psize;
    ZT_OK(MPI_Pack_size(count, r->t, MPI_COMM_WORLD, &psize));
    ZT_EQ(psize, bytes, "MPI_Pack_size");
    ZT_OK(MPI_Pack(base, count, r->t, got, (int)bytes, &pos, MPI_COMM_WORLD));
    ZT_EQ(pos, bytes, "position after MPI_Pack");
    ref_pack(want, base, count, r, bytes);
    ZT_CHECK(memcmp(got, want, bytes) == 0, "MPI_Pack differs from the model (%zu bytes)", bytes);
    if (overlaps(r, count))
        goto out;
    /* Unpack into a zeroed buffer: data lands where the model says and
     * nothing else is touched. */
    unsigned char *base2 = ref_buffer(r, count, &mem2, &len, &lo);
    memset(mem2, 0, len);
    memset(mem, 0, len);
    pos = 0;
    int half = count / 2;
    ZT_OK(MPI_Unpack(got, (int)bytes, &pos, base2, half, r->t, MPI_COMM_WORLD));
    ZT_OK(MPI_Unpack(got, (int)bytes, &pos, base2 + (long)half * r->extent, count - half, r->t,
                     MPI_COMM_WORLD));
    ref_unpack(base, count, r, want, bytes);
    ZT_CHECK(memcmp(mem, mem2, len) == 0, "MPI_Unpack differs from the model");
    free(mem2);
out:
    free(mem);
    free(got);
    free(want);
}

/* Rebuild t from MPI_Type_get_envelope/get_contents with the constructor
 * they name; the caller compares the two. */
static MPI_Datatype rebuild(MPI_Datatype t)
{
    int ni, na, nd, c;
    ZT_OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &c));
    if (c == MPI_COMBINER_NAMED)
        return t;
    int *I = zt_malloc((size_t)ni * sizeof(int) + 1);
    MPI_Aint *A = zt_malloc((size_t)na * sizeof(MPI_Aint) + 1);
    MPI_Datatype *D = zt_malloc((size_t)nd * sizeof(MPI_Datatype) + 1), r;
    ZT_OK(MPI_Type_get_contents(t, ni, na, nd, I, A, D));
    int n = ni > 0 ? I[0] : 0;
    switch (c) {
    case MPI_COMBINER_DUP: ZT_OK(MPI_Type_dup(D[0], &r)); break;
    case MPI_COMBINER_CONTIGUOUS: ZT_OK(MPI_Type_contiguous(n, D[0], &r)); break;
    case MPI_COMBINER_VECTOR: ZT_OK(MPI_Type_vector(n, I[1], I[2], D[0], &r)); break;
    case MPI_COMBINER_HVECTOR: ZT_OK(MPI_Type_create_hvector(n, I[1], A[0], D[0], &r)); break;
    case MPI_COMBINER_INDEXED: ZT_OK(MPI_Type_indexed(n, I + 1, I + 1 + n, D[0], &r)); break;
    case MPI_COMBINER_HINDEXED: ZT_OK(MPI_Type_create_hindexed(n, I + 1, A, D[0], &r)); break;
    case MPI_COMBINER_INDEXED_BLOCK:
        ZT_OK(MPI_Type_create_indexed_block(n, I[1], I + 2, D[0], &r));
        break;
    case MPI_COMBINER_HINDEXED_BLOCK:
        ZT_OK(MPI_Type_create_hindexed_block(n, I[1], A, D[0], &r));
        break;
    case MPI_COMBINER_STRUCT: ZT_OK(MPI_Type_create_struct(n, I + 1, A, D, &r)); break;
    case MPI_COMBINER_RESIZED: ZT_OK(MPI_Type_create_resized(D[0], A[0], A[1], &r)); break;
    case MPI_COMBINER_SUBARRAY:
        ZT_OK(MPI_Type_create_subarray(n, I + 1, I + 1 + n, I + 1 + 2 * n, I[1 + 3 * n], D[0],
                                       &r));
        break;
    default: ZT_CHECK(0, "unexpected combiner %d", c); r = MPI_DATATYPE_NULL;
    }
    for (int i = 0; i < nd; i++) {
        int a, b, e, cc;
        ZT_OK(MPI_Type_get_envelope(D[i], &a, &b, &e, &cc));
        if (cc != MPI_COMBINER_NAMED)
            ZT_OK(MPI_Type_free(&D[i]));
    }
    free(I);
    free(A);
    free(D);
    return r;
}

/* The rebuilt type has the same size, bounds and packed bytes. */
static void check_contents(const ref_t *p)
{
    MPI_Datatype r = rebuild(p->t);
    if (r == p->t)
        return;
    ZT_OK(MPI_Type_commit(&r));
    int s1, s2;
    MPI_Aint lb, ext;
    ZT_OK(MPI_Type_size(r, &s1));
    ZT_OK(MPI_Type_size(p->t, &s2));
    ZT_EQ(s1, s2, "size of the type rebuilt from its contents");
    ZT_OK(MPI_Type_get_extent(r, &lb, &ext));
    ZT_CHECK(lb == p->lb && ext == p->extent, "bounds of the rebuilt type");
    unsigned char *mem, *a = zt_malloc(p->n * 2 + 1), *b = zt_malloc(p->n * 2 + 1);
    size_t len;
    long lo;
    unsigned char *base = ref_buffer(p, 2, &mem, &len, &lo);
    fill(mem, len, 9);
    int pa = 0, pb = 0;
    ZT_OK(MPI_Pack(base, 2, r, a, (int)p->n * 2, &pa, MPI_COMM_WORLD));
    ZT_OK(MPI_Pack(base, 2, p->t, b, (int)p->n * 2, &pb, MPI_COMM_WORLD));
    ZT_CHECK(pa == pb && memcmp(a, b, (size_t)pa) == 0, "rebuilt type packs differently");
    ZT_OK(MPI_Type_free(&r));
    free(mem);
    free(a);
    free(b);
}

/* One message from rank `from` to rank `to` with layouts s and d; mode
 * picks the calls.  Receive capacity cap_bytes may be smaller (truncation). */
static void exchange(int me, int from, int to, const ref_t *s, int sc, const ref_t *d, int dc,
                     int mode, MPI_Comm comm)
{
    size_t sbytes = s->n * (size_t)sc, dbytes = d->n * (size_t)dc;
    size_t n = sbytes < dbytes ? sbytes : dbytes;
    unsigned char *mem, *stream = zt_malloc(sbytes);
    size_t len;
    long lo;
    if (me == from) {
        unsigned char *base = ref_buffer(s, sc, &mem, &len, &lo);
        fill(mem, len, (unsigned)mode + 3);
        MPI_Datatype t;
        ZT_OK(MPI_Type_dup(s->t, &t));
        if (mode == 0) {
            ZT_OK(MPI_Send(base, sc, t, to, 5, comm));
        } else if (mode == 1 || mode == 4) {
            MPI_Request q;
            ZT_OK(MPI_Isend(base, sc, t, to, 5, comm, &q));
            ZT_OK(MPI_Type_free(&t)); /* the request keeps the type alive */
            ZT_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
        } else if (mode == 2) {
            MPI_Request q;
            ZT_OK(MPI_Send_init(base, sc, t, to, 5, comm, &q));
            ZT_OK(MPI_Type_free(&t));
            for (int rep = 0; rep < 2; rep++) {
                ZT_OK(MPI_Start(&q));
                ZT_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
            }
            ZT_OK(MPI_Request_free(&q));
        } else {
            int bsize = (int)sbytes + MPI_BSEND_OVERHEAD + 64;
            void *bbuf = zt_malloc((size_t)bsize), *ret;
            ZT_OK(MPI_Buffer_attach(bbuf, bsize));
            ZT_OK(MPI_Bsend(base, sc, t, to, 5, comm));
            ZT_OK(MPI_Buffer_detach(&ret, &bsize));
            free(bbuf);
        }
        if (t != MPI_DATATYPE_NULL)
            ZT_OK(MPI_Type_free(&t));
        free(mem);
        free(stream);
        return;
    }
    /* Receiver: what the model says the buffer must hold. */
    unsigned char *mem2, *base2 = ref_buffer(d, dc, &mem2, &len, &lo);
    unsigned char *smem;
    size_t slen;
    long slo;
    unsigned char *sbase = ref_buffer(s, sc, &smem, &slen, &slo);
    fill(smem, slen, (unsigned)mode + 3);
    ref_pack(stream, sbase, sc, s, sbytes);
    unsigned char *base = ref_buffer(d, dc, &mem, &len, &lo);
    memset(mem, 0, len);
    memset(mem2, 0, len);
    ref_unpack(base2, dc, d, stream, n);
    int reps = mode == 2 ? 2 : 1;
    for (int rep = 0; rep < reps; rep++) {
        MPI_Status st;
        int rc;
        if (mode == 4) {
            ZT_OK(MPI_Probe(from, 5, comm, &st));
            int cnt;
            ZT_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
            ZT_EQ(cnt, sbytes, "probed size");
        }
        if (mode == 1) {
            MPI_Request q;
            ZT_OK(MPI_Irecv(base, dc, d->t, from, 5, comm, &q));
            rc = MPI_Wait(&q, &st);
        } else {
            rc = MPI_Recv(base, dc, d->t, from, 5, comm, &st);
        }
        int cls = rc;
        MPI_Error_class(rc, &cls); /* other MPIs return codes, not classes */
        ZT_EQ(cls, sbytes > dbytes ? MPI_ERR_TRUNCATE : MPI_SUCCESS, "receive error class");
        if (rc == MPI_SUCCESS) {
            MPI_Count elems;
            ZT_OK(MPI_Get_elements_x(&st, MPI_INT, &elems));
            ZT_EQ(elems, sbytes / sizeof(int), "MPI_Get_elements_x");
        }
#ifndef ZMPI
        if (cls != MPI_SUCCESS)
            continue; /* only zmpi promises the bytes that fit on truncation */
#endif
        ZT_CHECK(memcmp(mem, mem2, len) == 0,
                 "received data differs from the model (mode %d, %zu bytes into %zu)", mode,
                 sbytes, dbytes);
    }
    free(mem);
    free(mem2);
    free(smem);
    free(stream);
}

/* Count of elements of r that makes about `target` bytes. */
static int count_for(const ref_t *r, size_t target)
{
    if (r->n == 0)
        return 3;
    size_t c = target / r->n;
    return c < 1 ? 1 : c > 1000000 ? 1000000 : (int)c;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    unsigned seed = argc > 1 ? (unsigned)atoi(argv[1]) : 1;
    int iters = argc > 2 ? atoi(argv[2]) : 200;
    int rank, size;
    MPI_Comm comm;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ZT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    ZT_OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    /* Some MPIs raise request errors on MPI_COMM_WORLD's handler. */
    ZT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    ref_t mixed[4] = { ref_basic(MPI_INT), ref_basic(MPI_DOUBLE), ref_basic(MPI_CHAR),
                       ref_basic(MPI_SHORT) };
    ref_t ints[1] = { ref_basic(MPI_INT) };
    static const size_t sizes[] = { 40, 300, 5000, 20000, 150000 };
    for (int it = 0; it < iters; it++) {
        rng_t g = { seed * 1000003ull + (uint64_t)it };
        ref_t p = gen(&g, 4, mixed, 4);
        ZT_OK(MPI_Type_commit(&p.t));
        check_pack(&p, 1 + (int)rnd(&g, 5));
        check_contents(&p);
        ref_free(&p);
        /* Both ranks of a pair build the same two int layouts. */
        ref_t s = gen(&g, 4, ints, 1), d;
        do {
            d = gen(&g, 4, ints, 1);
            if (d.n > 0 && !overlaps(&d, 2))
                break;
            ref_free(&d);
        } while (1);
        ZT_OK(MPI_Type_commit(&s.t));
        ZT_OK(MPI_Type_commit(&d.t));
        size_t target = sizes[rnd(&g, 5)];
        int sc = count_for(&s, target);
        int dc = (int)((s.n * (size_t)sc + d.n - 1) / d.n);
        int mode = (int)rnd(&g, 5);
        int trunc = rnd(&g, 6) == 0 && dc > 1;
#ifdef OPEN_MPI
        trunc = 0; /* Open MPI 4.1 writes past a truncated derived-type receive */
#endif
        if (trunc)
            dc -= 1 + (int)rnd(&g, (unsigned)dc - 1); /* truncating receive */
        if (mode == 2 && s.n * (size_t)sc > d.n * (size_t)dc)
            mode = 0; /* a persistent truncation is covered by the plain one */
        while (overlaps(&d, dc) && dc > 1)
            dc--;
        int peer = rank ^ 1;
        if (peer < size) {
            int even = (rank & 1) == 0;
            exchange(rank, even ? rank : peer, even ? peer : rank, &s, sc, &d, dc, mode, comm);
            exchange(rank, even ? peer : rank, even ? rank : peer, &s, sc, &d, dc, mode, comm);
        }
        ref_free(&s);
        ref_free(&d);
    }
    ZT_OK(MPI_Comm_free(&comm));
    for (int i = 0; i < 4; i++)
        free(mixed[i].off);
    free(ints[0].off);
    MPI_Finalize();
    if (rank == 0)
        printf("dt_random: %d iterations passed\n", iters);
    return 0;
}
