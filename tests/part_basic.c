/*
 * part_basic.c: partitioned communication (MPI_Psend_init, MPI_Precv_init,
 * MPI_Pready, _range, _list, MPI_Parrived) around a ring: every rank sends
 * to the next and receives from the previous one (itself on one rank).
 *
 * Each case runs several rounds with new data.  In each round the sender
 * readies half its partitions (one by one in reverse order, as a random
 * list, or as a range, depending on the round), then a barrier; the
 * receiver must then see exactly the partitions whose bytes all lie in
 * readied sender partitions (computed by hand from the sender's choice,
 * which both sides derive from the sender's rank and the round), and
 * no other.  Then the rest is readied, and after a second barrier every
 * partition must have arrived before any wait.  Every byte is checked, in
 * place, and with the receive side spread by a strided datatype.
 */
#include "zt.h"

enum { ROUNDS = 5, MAXP = 64 };

/* One case: sender sp partitions of sc elements, receiver rp partitions of
 * rc elements, of elem-byte elements given as MPI_BYTE multiples. */
typedef struct pcase {
    int sp, sc, rp, rc;
    int strided; /* receive side uses a vector type, every other int */
} pcase;

/* The sender's ready order for round `round`: method 0 reverse, 1 random,
 * 2 identity (ranges). */
static void ready_order(int src, int round, int n, int *order)
{
    for (int i = 0; i < n; i++)
        order[i] = round % 3 == 0 ? n - 1 - i : i;
    if (round % 3 == 1) {
        zt_rng g = zt_rng_make((uint64_t)src * 977u + 13u, (uint64_t)round);
        for (int i = n - 1; i > 0; i--) {
            int j = (int)zt_rng_below(&g, i + 1), t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
    }
}

/* Ready order[lo..hi) with the round's method. */
static void ready_some(MPI_Request r, int round, const int *order, int lo, int hi)
{
    if (hi <= lo)
        return;
    if (round % 3 == 0) {
        for (int i = lo; i < hi; i++)
            ZT_OK(MPI_Pready(order[i], r));
    } else if (round % 3 == 1) {
        ZT_OK(MPI_Pready_list(hi - lo, order + lo, r));
    } else {
        ZT_OK(MPI_Pready_range(order[lo], order[hi - 1], r));
    }
}

static void run_case(const pcase *k, int rank, int size, MPI_Comm comm)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, tag = 7;
    size_t sbytes = (size_t)k->sp * (size_t)k->sc * sizeof(int);
    size_t rbytes = (size_t)k->rp * (size_t)k->rc * sizeof(int);
    ZT_EQ(sbytes, rbytes, "case sizes");
    size_t nint = sbytes / sizeof(int), rlen = k->strided ? 2 * nint : nint;
    int *sbuf = zt_malloc(sbytes), *rbuf = zt_malloc(rlen * sizeof(int));
    int order[MAXP], porder[MAXP], sready[MAXP];
    MPI_Datatype rtype = MPI_INT;
    if (k->strided) {
        MPI_Datatype v;
        ZT_OK(MPI_Type_vector(1, 1, 2, MPI_INT, &v));
        ZT_OK(MPI_Type_create_resized(v, 0, 2 * sizeof(int), &rtype));
        ZT_OK(MPI_Type_commit(&rtype));
        MPI_Type_free(&v);
    }
    MPI_Request req[2];
    ZT_OK(MPI_Precv_init(rbuf, k->rp, k->rc, rtype, prev, tag, comm, MPI_INFO_NULL, &req[0]));
    ZT_OK(MPI_Psend_init(sbuf, k->sp, k->sc, MPI_INT, next, tag, comm, MPI_INFO_NULL, &req[1]));
    if (k->strided)
        MPI_Type_free(&rtype); /* the request holds it */
    for (int round = 0; round < ROUNDS; round++) {
        zt_fill(sbuf, sbytes, rank, round);
        for (size_t i = 0; i < rlen; i++)
            rbuf[i] = -1;
        if (round % 2)
            ZT_OK(MPI_Startall(2, req));
        else {
            ZT_OK(MPI_Start(&req[0]));
            ZT_OK(MPI_Start(&req[1]));
        }
        ZT_OK(MPI_Barrier(comm));
        for (int j = 0; j < k->rp; j++) {
            int flag = -1;
            ZT_OK(MPI_Parrived(req[0], j, &flag));
            ZT_CHECK(flag == 0 || k->rc == 0, "partition %d arrived before any Pready", j);
        }
        ZT_OK(MPI_Barrier(comm));
        int h = k->sp / 2;
        ready_order(rank, round, k->sp, order);
        ready_some(req[1], round, order, 0, h);
        ZT_OK(MPI_Barrier(comm));
        /* What the previous rank readied, and so which of my partitions
         * must be complete now. */
        ready_order(prev, round, k->sp, porder);
        for (int i = 0; i < k->sp; i++)
            sready[i] = 0;
        for (int i = 0; i < h; i++)
            sready[porder[i]] = 1;
        size_t spb = (size_t)k->sc * sizeof(int), rpb = (size_t)k->rc * sizeof(int);
        for (int j = 0; j < k->rp; j++) {
            int want = 1, flag = -1;
            for (size_t b = j * rpb; b < (j + 1) * rpb; b++)
                want &= sready[b / spb];
            ZT_OK(MPI_Parrived(req[0], j, &flag));
            ZT_CHECK(flag == want, "round %d: partition %d Parrived %d, expected %d", round, j,
                     flag, want);
        }
        ZT_OK(MPI_Barrier(comm));
        ready_some(req[1], round, order, h, k->sp);
        ZT_OK(MPI_Barrier(comm));
        for (int j = 0; j < k->rp; j++) {
            int flag = -1;
            ZT_OK(MPI_Parrived(req[0], j, &flag));
            ZT_CHECK(flag == 1, "round %d: partition %d not arrived after all Pready", round, j);
        }
        MPI_Status st[2];
        if (round % 2) {
            int done = 0;
            while (!done)
                ZT_OK(MPI_Testall(2, req, &done, st));
        } else {
            ZT_OK(MPI_Waitall(2, req, st));
        }
        int cnt = -1;
        ZT_OK(MPI_Get_count(&st[0], k->strided ? MPI_BYTE : MPI_INT, &cnt));
        ZT_CHECK(st[0].MPI_SOURCE == prev && st[0].MPI_TAG == tag,
                 "status source %d tag %d", st[0].MPI_SOURCE, st[0].MPI_TAG);
        ZT_EQ(cnt, k->strided ? (int)rbytes : (int)nint, "received count");
        if (k->strided) {
            int *packed = zt_malloc(rbytes);
            for (size_t i = 0; i < nint; i++) {
                packed[i] = rbuf[2 * i];
                ZT_CHECK(rbuf[2 * i + 1] == -1, "gap int %zu overwritten", 2 * i + 1);
            }
            ZT_CHECK_PAYLOAD(packed, rbytes, prev, round);
            free(packed);
        } else {
            ZT_CHECK_PAYLOAD(rbuf, rbytes, prev, round);
        }
        ZT_CHECK_PAYLOAD(sbuf, sbytes, rank, round);
        /* After completion (inactive) every partition reads as arrived. */
        int flag = 0;
        ZT_OK(MPI_Parrived(req[0], 0, &flag));
        ZT_EQ(flag, 1, "Parrived on the inactive request");
    }
    ZT_OK(MPI_Request_free(&req[0]));
    ZT_OK(MPI_Request_free(&req[1]));
    ZT_CHECK(req[0] == MPI_REQUEST_NULL && req[1] == MPI_REQUEST_NULL, "freed requests");
    free(sbuf);
    free(rbuf);
}

/* Partitioned operations with MPI_PROC_NULL complete at once. */
static void run_proc_null(void)
{
    int buf[8] = { 0 };
    MPI_Request r[2];
    MPI_Status st;
    ZT_OK(MPI_Psend_init(buf, 4, 2, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                         &r[0]));
    ZT_OK(MPI_Precv_init(buf, 2, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                         &r[1]));
    for (int round = 0; round < 2; round++) {
        ZT_OK(MPI_Startall(2, r));
        ZT_OK(MPI_Pready_range(0, 3, r[0]));
        ZT_OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
        ZT_OK(MPI_Wait(&r[1], &st));
        ZT_EQ(st.MPI_SOURCE, MPI_PROC_NULL, "source of a receive from MPI_PROC_NULL");
    }
    MPI_Request_free(&r[0]);
    MPI_Request_free(&r[1]);
}

/* Several operations between the same pair with the same tag match in
 * init order: the receiver inits its two in the sender's order. */
static void run_order(int rank, int size)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int s1[4], s2[6], r1[4], r2[6];
    MPI_Request r[4];
    for (int i = 0; i < 4; i++)
        s1[i] = rank * 100 + i;
    for (int i = 0; i < 6; i++)
        s2[i] = rank * 1000 + i;
    ZT_OK(MPI_Psend_init(s1, 2, 2, MPI_INT, next, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]));
    ZT_OK(MPI_Psend_init(s2, 3, 2, MPI_INT, next, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]));
    ZT_OK(MPI_Precv_init(r1, 4, 1, MPI_INT, prev, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &r[2]));
    ZT_OK(MPI_Precv_init(r2, 1, 6, MPI_INT, prev, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &r[3]));
    ZT_OK(MPI_Startall(4, r));
    ZT_OK(MPI_Pready_range(0, 2, r[1]));
    ZT_OK(MPI_Pready_range(0, 1, r[0]));
    ZT_OK(MPI_Waitall(4, r, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 4; i++)
        ZT_EQ(r1[i], prev * 100 + i, "first operation's data");
    for (int i = 0; i < 6; i++)
        ZT_EQ(r2[i], prev * 1000 + i, "second operation's data");
    for (int i = 0; i < 4; i++)
        MPI_Request_free(&r[i]);
}

int main(int argc, char **argv)
{
    int rank, size;
    ZT_OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const pcase cases[] = {
        { 8, 64, 8, 64, 0 },   /* equal partitions */
        { 6, 10, 4, 15, 0 },   /* unequal, partitions overlap two peers */
        { 3, 7, 7, 3, 0 },     /* fewer sender partitions */
        { 16, 1, 2, 8, 0 },    /* many small sender partitions */
        { 6, 4, 4, 6, 1 },     /* strided receive datatype */
        { 1, 5000, 50, 100, 0 }, /* one sender partition, 50 receiver ones */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        run_case(&cases[i], rank, size, MPI_COMM_WORLD);
    MPI_Comm dup;
    ZT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    run_case(&cases[1], rank, size, dup);
    MPI_Comm_free(&dup);
    run_proc_null();
    run_order(rank, size);
    MPI_Finalize();
    return 0;
}
