/*
 * large_calls.c: every large-count (_c) call of zmpi, each checked against
 * its int twin (same arguments, same results), and the clear errors the
 * _c forms give for negative counts.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, fails;

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "rank %d: line %d: ", rank, __LINE__);            \
            fprintf(stderr, __VA_ARGS__);                                      \
            fprintf(stderr, "\n");                                             \
            fails++;                                                           \
        }                                                                      \
    } while (0)
#define OK(call) CHECK((call) == MPI_SUCCESS, "%s failed", #call)

/* ---- Point-to-point ------------------------------------------------------ */

static void p2p(void)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int out[8], in[8], in2[8];
    MPI_Status st, st2;
    MPI_Request rq[2];
    MPI_Count n;
    int ni;
    for (int i = 0; i < 8; i++)
        out[i] = rank * 100 + i;
    /* Every send mode, blocking and not, against its int twin. */
    typedef int (*send_fn)(const void *, MPI_Count, MPI_Datatype, int, int, MPI_Comm);
    typedef int (*isend_fn)(const void *, MPI_Count, MPI_Datatype, int, int, MPI_Comm,
                            MPI_Request *);
    send_fn sends[] = { MPI_Send_c, MPI_Ssend_c, MPI_Bsend_c };
    isend_fn isends[] = { MPI_Isend_c, MPI_Issend_c, MPI_Ibsend_c };
    static char bbuf[4096];
    OK(MPI_Buffer_attach_c(bbuf, (MPI_Count)sizeof bbuf));
    for (int m = 0; m < 3; m++) {
        OK(MPI_Irecv_c(in, 8, MPI_INT, prev, m, MPI_COMM_WORLD, &rq[0]));
        OK(sends[m](out, 8, MPI_INT, next, m, MPI_COMM_WORLD));
        OK(MPI_Wait(&rq[0], &st));
        CHECK(in[7] == prev * 100 + 7, "send mode %d", m);
        OK(MPI_Get_count_c(&st, MPI_INT, &n));
        OK(MPI_Get_count(&st, MPI_INT, &ni));
        CHECK(n == 8 && ni == 8, "Get_count_c %lld", (long long)n);
        OK(MPI_Get_elements_c(&st, MPI_SHORT, &n));
        CHECK(n == 16, "Get_elements_c %lld", (long long)n);
        OK(isends[m](out, 8, MPI_INT, next, 10 + m, MPI_COMM_WORLD, &rq[1]));
        OK(MPI_Recv_c(in2, 8, MPI_INT, prev, 10 + m, MPI_COMM_WORLD, &st2));
        OK(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
        CHECK(memcmp(in, in2, sizeof in) == 0, "isend mode %d", m);
    }
    void *bp;
    MPI_Count bs;
    OK(MPI_Buffer_detach_c(&bp, &bs));
    CHECK(bp == bbuf && bs == (MPI_Count)sizeof bbuf, "Buffer_detach_c gave %lld", (long long)bs);
    /* Ready mode: the receive is posted before a barrier. */
    OK(MPI_Irecv_c(in, 8, MPI_INT, prev, 20, MPI_COMM_WORLD, &rq[0]));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Rsend_c(out, 8, MPI_INT, next, 20, MPI_COMM_WORLD));
    OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    OK(MPI_Irecv_c(in, 8, MPI_INT, prev, 21, MPI_COMM_WORLD, &rq[0]));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Irsend_c(out, 8, MPI_INT, next, 21, MPI_COMM_WORLD, &rq[1]));
    OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    CHECK(in[3] == prev * 100 + 3, "rsend");
    /* Sendrecv, Sendrecv_replace, Isendrecv, Isendrecv_replace. */
    OK(MPI_Sendrecv_c(out, 8, MPI_INT, next, 30, in, 8, MPI_INT, prev, 30, MPI_COMM_WORLD, &st));
    CHECK(in[0] == prev * 100, "sendrecv_c");
    memcpy(in, out, sizeof in);
    OK(MPI_Sendrecv_replace_c(in, 8, MPI_INT, next, 31, prev, 31, MPI_COMM_WORLD, &st));
    CHECK(in[1] == prev * 100 + 1, "sendrecv_replace_c");
    OK(MPI_Isendrecv_c(out, 8, MPI_INT, next, 32, in2, 8, MPI_INT, prev, 32, MPI_COMM_WORLD,
                       &rq[0]));
    OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    CHECK(in2[2] == prev * 100 + 2, "isendrecv_c");
    memcpy(in, out, sizeof in);
    OK(MPI_Isendrecv_replace_c(in, 8, MPI_INT, next, 33, prev, 33, MPI_COMM_WORLD, &rq[0]));
    OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    CHECK(in[2] == prev * 100 + 2, "isendrecv_replace_c");
    /* Mprobe with Mrecv_c and Imrecv_c. */
    for (int k = 0; k < 2; k++) {
        MPI_Message msg;
        OK(MPI_Isend_c(out, 8, MPI_INT, next, 40 + k, MPI_COMM_WORLD, &rq[1]));
        OK(MPI_Mprobe(prev, 40 + k, MPI_COMM_WORLD, &msg, &st));
        memset(in, 0, sizeof in);
        if (k == 0) {
            OK(MPI_Mrecv_c(in, 8, MPI_INT, &msg, &st));
        } else {
            OK(MPI_Imrecv_c(in, 8, MPI_INT, &msg, &rq[0]));
            OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
        }
        OK(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
        CHECK(in[5] == prev * 100 + 5, "mrecv %d", k);
    }
    /* Persistent requests of every mode. */
    typedef int (*init_fn)(const void *, MPI_Count, MPI_Datatype, int, int, MPI_Comm,
                           MPI_Request *);
    init_fn inits[] = { MPI_Send_init_c, MPI_Ssend_init_c, MPI_Bsend_init_c };
    OK(MPI_Buffer_attach_c(bbuf, (MPI_Count)sizeof bbuf));
    for (int m = 0; m < 3; m++) {
        OK(MPI_Recv_init_c(in, 8, MPI_INT, prev, 50 + m, MPI_COMM_WORLD, &rq[0]));
        OK(inits[m](out, 8, MPI_INT, next, 50 + m, MPI_COMM_WORLD, &rq[1]));
        for (int round = 0; round < 2; round++) {
            memset(in, 0, sizeof in);
            OK(MPI_Startall(2, rq));
            OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
            CHECK(in[6] == prev * 100 + 6, "persistent mode %d", m);
        }
        MPI_Request_free(&rq[0]);
        MPI_Request_free(&rq[1]);
    }
    OK(MPI_Buffer_detach_c(&bp, &bs));
    OK(MPI_Recv_init_c(in, 8, MPI_INT, prev, 59, MPI_COMM_WORLD, &rq[0]));
    OK(MPI_Start(&rq[0]));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Rsend_init_c(out, 8, MPI_INT, next, 59, MPI_COMM_WORLD, &rq[1]));
    OK(MPI_Start(&rq[1]));
    OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    CHECK(in[6] == prev * 100 + 6, "rsend_init_c");
    MPI_Request_free(&rq[0]);
    MPI_Request_free(&rq[1]);
    /* Buffers of a communicator and of a session. */
    OK(MPI_Comm_attach_buffer_c(MPI_COMM_WORLD, bbuf, (MPI_Count)sizeof bbuf));
    OK(MPI_Bsend_c(out, 8, MPI_INT, next, 60, MPI_COMM_WORLD));
    OK(MPI_Recv_c(in, 8, MPI_INT, prev, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    OK(MPI_Comm_detach_buffer_c(MPI_COMM_WORLD, &bp, &bs));
    CHECK(bp == bbuf && bs == (MPI_Count)sizeof bbuf, "Comm_detach_buffer_c");
    MPI_Session ses;
    OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &ses));
    OK(MPI_Session_attach_buffer_c(ses, bbuf, (MPI_Count)sizeof bbuf));
    OK(MPI_Session_flush_buffer(ses));
    OK(MPI_Session_detach_buffer_c(ses, &bp, &bs));
    CHECK(bp == bbuf && bs == (MPI_Count)sizeof bbuf, "Session_detach_buffer_c");
    int is;
    OK(MPI_Session_attach_buffer(ses, bbuf, (int)sizeof bbuf));
    MPI_Request fr;
    OK(MPI_Session_iflush_buffer(ses, &fr));
    OK(MPI_Wait(&fr, MPI_STATUS_IGNORE));
    OK(MPI_Session_detach_buffer(ses, &bp, &is));
    CHECK(is == (int)sizeof bbuf, "Session_detach_buffer");
    OK(MPI_Session_finalize(&ses));
    /* Status_set_elements_c against its int twin. */
    OK(MPI_Status_set_elements_c(&st, MPI_INT, 5));
    OK(MPI_Status_set_elements(&st2, MPI_INT, 5));
    OK(MPI_Get_count_c(&st, MPI_INT, &n));
    OK(MPI_Get_count(&st2, MPI_INT, &ni));
    CHECK(n == 5 && ni == 5, "Status_set_elements_c");
}

/* ---- Datatypes ----------------------------------------------------------- */

/* Two types made by the int and _c constructors: same size, extent and
 * packed bytes of a test buffer. */
static void same_type(const char *what, MPI_Datatype a, MPI_Datatype b)
{
    MPI_Count sa, sb, la, lb, ea, eb;
    OK(MPI_Type_commit(&a));
    OK(MPI_Type_commit(&b));
    OK(MPI_Type_size_c(a, &sa));
    OK(MPI_Type_size_c(b, &sb));
    OK(MPI_Type_get_extent_c(a, &la, &ea));
    OK(MPI_Type_get_extent_c(b, &lb, &eb));
    CHECK(sa == sb && la == lb && ea == eb, "%s: size %lld/%lld extent %lld/%lld", what,
          (long long)sa, (long long)sb, (long long)ea, (long long)eb);
    OK(MPI_Type_get_true_extent_c(a, &la, &ea));
    OK(MPI_Type_get_true_extent_c(b, &lb, &eb));
    CHECK(la == lb && ea == eb, "%s: true extent", what);
    int src[256], pa[256], pb[256];
    for (int i = 0; i < 256; i++)
        src[i] = i;
    MPI_Count pos_a = 0, pos_b = 0;
    OK(MPI_Pack_c(src, 1, a, pa, sizeof pa, &pos_a, MPI_COMM_WORLD));
    OK(MPI_Pack_c(src, 1, b, pb, sizeof pb, &pos_b, MPI_COMM_WORLD));
    CHECK(pos_a == pos_b && memcmp(pa, pb, (size_t)pos_a) == 0, "%s: packed bytes", what);
    /* The _c envelope: the _c type has large counts, the int one none. */
    MPI_Count ni, na, nc, nd;
    int comb_a, comb_b;
    OK(MPI_Type_get_envelope_c(a, &ni, &na, &nc, &nd, &comb_a));
    CHECK(nc == 0, "%s: int type has %lld large counts", what, (long long)nc);
    OK(MPI_Type_get_envelope_c(b, &ni, &na, &nc, &nd, &comb_b));
    CHECK(comb_a == comb_b && nc > 0, "%s: combiner %d/%d, %lld large counts", what, comb_a,
          comb_b, (long long)nc);
    int ints[16];
    MPI_Aint aints[16];
    MPI_Count counts[64];
    MPI_Datatype types[4];
    OK(MPI_Type_get_contents_c(b, 16, 16, 64, 4, ints, aints, counts, types));
    for (int i = 0; i < nd; i++) {
        int c2;
        MPI_Count x1, x2, x3, x4;
        MPI_Type_get_envelope_c(types[i], &x1, &x2, &x3, &x4, &c2);
        if (c2 != MPI_COMBINER_NAMED)
            MPI_Type_free(&types[i]);
    }
    /* The int envelope calls cannot return large counts. */
    int i1, i2, i3, i4;
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int rc = MPI_Type_get_envelope(b, &i1, &i2, &i3, &i4);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_VALUE_TOO_LARGE, "%s: int envelope of a _c type gave %d", what, cls);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    MPI_Type_free(&a);
    MPI_Type_free(&b);
}

static void types(void)
{
    MPI_Datatype a, b;
    int bl[3] = { 2, 1, 3 }, dis[3] = { 0, 5, 9 };
    MPI_Count blc[3] = { 2, 1, 3 }, disc[3] = { 0, 5, 9 };
    MPI_Aint hd[3] = { 0, 20, 36 };
    MPI_Count hdc[3] = { 0, 20, 36 };
    OK(MPI_Type_contiguous(7, MPI_INT, &a));
    OK(MPI_Type_contiguous_c(7, MPI_INT, &b));
    same_type("contiguous", a, b);
    OK(MPI_Type_vector(3, 2, 5, MPI_INT, &a));
    OK(MPI_Type_vector_c(3, 2, 5, MPI_INT, &b));
    same_type("vector", a, b);
    OK(MPI_Type_create_hvector(3, 2, 24, MPI_INT, &a));
    OK(MPI_Type_create_hvector_c(3, 2, 24, MPI_INT, &b));
    same_type("hvector", a, b);
    OK(MPI_Type_indexed(3, bl, dis, MPI_INT, &a));
    OK(MPI_Type_indexed_c(3, blc, disc, MPI_INT, &b));
    same_type("indexed", a, b);
    OK(MPI_Type_create_hindexed(3, bl, hd, MPI_INT, &a));
    OK(MPI_Type_create_hindexed_c(3, blc, hdc, MPI_INT, &b));
    same_type("hindexed", a, b);
    OK(MPI_Type_create_indexed_block(3, 2, dis, MPI_INT, &a));
    OK(MPI_Type_create_indexed_block_c(3, 2, disc, MPI_INT, &b));
    same_type("indexed_block", a, b);
    OK(MPI_Type_create_hindexed_block(3, 2, hd, MPI_INT, &a));
    OK(MPI_Type_create_hindexed_block_c(3, 2, hdc, MPI_INT, &b));
    same_type("hindexed_block", a, b);
    MPI_Datatype ts[3] = { MPI_INT, MPI_SHORT, MPI_INT };
    OK(MPI_Type_create_struct(3, bl, hd, ts, &a));
    OK(MPI_Type_create_struct_c(3, blc, hdc, ts, &b));
    same_type("struct", a, b);
    int sz[2] = { 8, 10 }, sub[2] = { 3, 4 }, st[2] = { 2, 5 };
    MPI_Count szc[2] = { 8, 10 }, subc[2] = { 3, 4 }, stc[2] = { 2, 5 };
    OK(MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_C, MPI_INT, &a));
    OK(MPI_Type_create_subarray_c(2, szc, subc, stc, MPI_ORDER_C, MPI_INT, &b));
    same_type("subarray", a, b);
    int gs[2] = { 8, 10 }, dist[2] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC },
        darg[2] = { MPI_DISTRIBUTE_DFLT_DARG, 2 }, ps[2] = { 2, 2 };
    MPI_Count gsc[2] = { 8, 10 };
    OK(MPI_Type_create_darray(4, 3, 2, gs, dist, darg, ps, MPI_ORDER_C, MPI_INT, &a));
    OK(MPI_Type_create_darray_c(4, 3, 2, gsc, dist, darg, ps, MPI_ORDER_C, MPI_INT, &b));
    same_type("darray", a, b);
    OK(MPI_Type_create_resized(MPI_INT, -4, 16, &a));
    OK(MPI_Type_create_resized_c(MPI_INT, -4, 16, &b));
    same_type("resized", a, b);
    /* Pack, Unpack, sizes and external32 against the int forms. */
    double d[4] = { 1.5, -2.25, 3.0, 1e300 }, e[4];
    char p1[64], p2[64];
    int pos1 = 0;
    MPI_Count pos2 = 0, s2;
    int s1;
    OK(MPI_Pack_size(4, MPI_DOUBLE, MPI_COMM_WORLD, &s1));
    OK(MPI_Pack_size_c(4, MPI_DOUBLE, MPI_COMM_WORLD, &s2));
    CHECK(s1 == s2, "pack_size %d/%lld", s1, (long long)s2);
    OK(MPI_Pack(d, 4, MPI_DOUBLE, p1, 64, &pos1, MPI_COMM_WORLD));
    OK(MPI_Pack_c(d, 4, MPI_DOUBLE, p2, 64, &pos2, MPI_COMM_WORLD));
    CHECK(pos1 == pos2 && memcmp(p1, p2, (size_t)pos1) == 0, "pack_c");
    pos2 = 0;
    OK(MPI_Unpack_c(p2, 64, &pos2, e, 4, MPI_DOUBLE, MPI_COMM_WORLD));
    CHECK(memcmp(d, e, sizeof d) == 0 && pos2 == 32, "unpack_c");
    MPI_Aint xs1, xp1 = 0;
    MPI_Count xs2, xp2 = 0;
    OK(MPI_Pack_external_size("external32", 4, MPI_DOUBLE, &xs1));
    OK(MPI_Pack_external_size_c("external32", 4, MPI_DOUBLE, &xs2));
    CHECK(xs1 == xs2, "pack_external_size_c");
    OK(MPI_Pack_external("external32", d, 4, MPI_DOUBLE, p1, 64, &xp1));
    OK(MPI_Pack_external_c("external32", d, 4, MPI_DOUBLE, p2, 64, &xp2));
    CHECK(xp1 == xp2 && memcmp(p1, p2, (size_t)xp1) == 0, "pack_external_c");
    xp2 = 0;
    memset(e, 0, sizeof e);
    OK(MPI_Unpack_external_c("external32", p2, 64, &xp2, e, 4, MPI_DOUBLE));
    CHECK(memcmp(d, e, sizeof d) == 0, "unpack_external_c");
}

/* User reductions: the same sum with an int length and an MPI_Count one. */
static void sum_int(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

static void sum_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
    (void)dt;
    for (MPI_Count i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

/* ---- Collectives --------------------------------------------------------- */

#define N 3 /* elements per rank */

/* Run one collective call in its int form (into ri) and its _c form (into
 * rc), blocking, non-blocking and persistent, and compare. */
#define FORMS(what, INT_CALL, C_CALL, ICALL, INIT_CALL)                         \
    do {                                                                       \
        MPI_Request q;                                                         \
        memset(ri, 0x5a, bytes);                                               \
        OK(INT_CALL);                                                          \
        for (int form = 0; form < 3; form++) {                                 \
            memset(rc, 0x5a, bytes);                                           \
            if (form == 0) {                                                   \
                OK(C_CALL);                                                    \
            } else if (form == 1) {                                            \
                OK(ICALL);                                                     \
                OK(MPI_Wait(&q, MPI_STATUS_IGNORE));                           \
            } else {                                                           \
                OK(INIT_CALL);                                                 \
                OK(MPI_Start(&q));                                             \
                OK(MPI_Wait(&q, MPI_STATUS_IGNORE));                           \
                OK(MPI_Request_free(&q));                                      \
            }                                                                  \
            CHECK(memcmp(ri, rc, bytes) == 0, "%s form %d differs", what, form); \
        }                                                                      \
    } while (0)

static void collectives(MPI_Comm comm)
{
    int n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    size_t bytes = sizeof(int) * N * (size_t)n;
    int *sb = malloc(bytes), *ri = malloc(bytes), *rc = malloc(bytes);
    int *cnt = malloc(sizeof(int) * (size_t)n), *dsp = malloc(sizeof(int) * (size_t)n);
    MPI_Count *ccnt = malloc(sizeof(MPI_Count) * (size_t)n);
    MPI_Aint *cdsp = malloc(sizeof(MPI_Aint) * (size_t)n);
    int *bdsp = malloc(sizeof(int) * (size_t)n);
    MPI_Aint *cbdsp = malloc(sizeof(MPI_Aint) * (size_t)n);
    MPI_Datatype *ty = malloc(sizeof(MPI_Datatype) * (size_t)n);
    for (int i = 0; i < N * n; i++)
        sb[i] = me * 1000 + i;
    for (int q = 0; q < n; q++) {
        /* Reversed layout, so displacements matter. */
        cnt[q] = N;
        ccnt[q] = N;
        dsp[q] = (n - 1 - q) * N;
        cdsp[q] = dsp[q];
        bdsp[q] = dsp[q] * (int)sizeof(int);
        cbdsp[q] = bdsp[q];
        ty[q] = MPI_INT;
    }
    int root = n - 1;
    MPI_Info I = MPI_INFO_NULL;
    FORMS("bcast", (memcpy(ri, sb, bytes), MPI_Bcast(ri, N, MPI_INT, root, comm)),
          (memcpy(rc, sb, bytes), MPI_Bcast_c(rc, N, MPI_INT, root, comm)),
          (memcpy(rc, sb, bytes), MPI_Ibcast_c(rc, N, MPI_INT, root, comm, &q)),
          (memcpy(rc, sb, bytes), MPI_Bcast_init_c(rc, N, MPI_INT, root, comm, I, &q)));
    FORMS("gather", MPI_Gather(sb, N, MPI_INT, ri, N, MPI_INT, root, comm),
          MPI_Gather_c(sb, N, MPI_INT, rc, N, MPI_INT, root, comm),
          MPI_Igather_c(sb, N, MPI_INT, rc, N, MPI_INT, root, comm, &q),
          MPI_Gather_init_c(sb, N, MPI_INT, rc, N, MPI_INT, root, comm, I, &q));
    FORMS("gatherv", MPI_Gatherv(sb, N, MPI_INT, ri, cnt, dsp, MPI_INT, root, comm),
          MPI_Gatherv_c(sb, N, MPI_INT, rc, ccnt, cdsp, MPI_INT, root, comm),
          MPI_Igatherv_c(sb, N, MPI_INT, rc, ccnt, cdsp, MPI_INT, root, comm, &q),
          MPI_Gatherv_init_c(sb, N, MPI_INT, rc, ccnt, cdsp, MPI_INT, root, comm, I, &q));
    FORMS("scatter", MPI_Scatter(sb, N, MPI_INT, ri, N, MPI_INT, root, comm),
          MPI_Scatter_c(sb, N, MPI_INT, rc, N, MPI_INT, root, comm),
          MPI_Iscatter_c(sb, N, MPI_INT, rc, N, MPI_INT, root, comm, &q),
          MPI_Scatter_init_c(sb, N, MPI_INT, rc, N, MPI_INT, root, comm, I, &q));
    FORMS("scatterv", MPI_Scatterv(sb, cnt, dsp, MPI_INT, ri, N, MPI_INT, root, comm),
          MPI_Scatterv_c(sb, ccnt, cdsp, MPI_INT, rc, N, MPI_INT, root, comm),
          MPI_Iscatterv_c(sb, ccnt, cdsp, MPI_INT, rc, N, MPI_INT, root, comm, &q),
          MPI_Scatterv_init_c(sb, ccnt, cdsp, MPI_INT, rc, N, MPI_INT, root, comm, I, &q));
    FORMS("allgather", MPI_Allgather(sb, N, MPI_INT, ri, N, MPI_INT, comm),
          MPI_Allgather_c(sb, N, MPI_INT, rc, N, MPI_INT, comm),
          MPI_Iallgather_c(sb, N, MPI_INT, rc, N, MPI_INT, comm, &q),
          MPI_Allgather_init_c(sb, N, MPI_INT, rc, N, MPI_INT, comm, I, &q));
    FORMS("allgatherv", MPI_Allgatherv(sb, N, MPI_INT, ri, cnt, dsp, MPI_INT, comm),
          MPI_Allgatherv_c(sb, N, MPI_INT, rc, ccnt, cdsp, MPI_INT, comm),
          MPI_Iallgatherv_c(sb, N, MPI_INT, rc, ccnt, cdsp, MPI_INT, comm, &q),
          MPI_Allgatherv_init_c(sb, N, MPI_INT, rc, ccnt, cdsp, MPI_INT, comm, I, &q));
    FORMS("alltoall", MPI_Alltoall(sb, N, MPI_INT, ri, N, MPI_INT, comm),
          MPI_Alltoall_c(sb, N, MPI_INT, rc, N, MPI_INT, comm),
          MPI_Ialltoall_c(sb, N, MPI_INT, rc, N, MPI_INT, comm, &q),
          MPI_Alltoall_init_c(sb, N, MPI_INT, rc, N, MPI_INT, comm, I, &q));
    FORMS("alltoallv",
          MPI_Alltoallv(sb, cnt, dsp, MPI_INT, ri, cnt, dsp, MPI_INT, comm),
          MPI_Alltoallv_c(sb, ccnt, cdsp, MPI_INT, rc, ccnt, cdsp, MPI_INT, comm),
          MPI_Ialltoallv_c(sb, ccnt, cdsp, MPI_INT, rc, ccnt, cdsp, MPI_INT, comm, &q),
          MPI_Alltoallv_init_c(sb, ccnt, cdsp, MPI_INT, rc, ccnt, cdsp, MPI_INT, comm, I, &q));
    FORMS("alltoallw",
          MPI_Alltoallw(sb, cnt, bdsp, ty, ri, cnt, bdsp, ty, comm),
          MPI_Alltoallw_c(sb, ccnt, cbdsp, ty, rc, ccnt, cbdsp, ty, comm),
          MPI_Ialltoallw_c(sb, ccnt, cbdsp, ty, rc, ccnt, cbdsp, ty, comm, &q),
          MPI_Alltoallw_init_c(sb, ccnt, cbdsp, ty, rc, ccnt, cbdsp, ty, comm, I, &q));
    MPI_Op op = MPI_SUM;
    FORMS("reduce", MPI_Reduce(sb, ri, N, MPI_INT, op, root, comm),
          MPI_Reduce_c(sb, rc, N, MPI_INT, op, root, comm),
          MPI_Ireduce_c(sb, rc, N, MPI_INT, op, root, comm, &q),
          MPI_Reduce_init_c(sb, rc, N, MPI_INT, op, root, comm, I, &q));
    FORMS("allreduce", MPI_Allreduce(sb, ri, N, MPI_INT, op, comm),
          MPI_Allreduce_c(sb, rc, N, MPI_INT, op, comm),
          MPI_Iallreduce_c(sb, rc, N, MPI_INT, op, comm, &q),
          MPI_Allreduce_init_c(sb, rc, N, MPI_INT, op, comm, I, &q));
    FORMS("reduce_scatter", MPI_Reduce_scatter(sb, ri, cnt, MPI_INT, op, comm),
          MPI_Reduce_scatter_c(sb, rc, ccnt, MPI_INT, op, comm),
          MPI_Ireduce_scatter_c(sb, rc, ccnt, MPI_INT, op, comm, &q),
          MPI_Reduce_scatter_init_c(sb, rc, ccnt, MPI_INT, op, comm, I, &q));
    FORMS("reduce_scatter_block", MPI_Reduce_scatter_block(sb, ri, N, MPI_INT, op, comm),
          MPI_Reduce_scatter_block_c(sb, rc, N, MPI_INT, op, comm),
          MPI_Ireduce_scatter_block_c(sb, rc, N, MPI_INT, op, comm, &q),
          MPI_Reduce_scatter_block_init_c(sb, rc, N, MPI_INT, op, comm, I, &q));
    FORMS("scan", MPI_Scan(sb, ri, N, MPI_INT, op, comm),
          MPI_Scan_c(sb, rc, N, MPI_INT, op, comm),
          MPI_Iscan_c(sb, rc, N, MPI_INT, op, comm, &q),
          MPI_Scan_init_c(sb, rc, N, MPI_INT, op, comm, I, &q));
    FORMS("exscan", MPI_Exscan(sb, ri, N, MPI_INT, op, comm),
          MPI_Exscan_c(sb, rc, N, MPI_INT, op, comm),
          MPI_Iexscan_c(sb, rc, N, MPI_INT, op, comm, &q),
          MPI_Exscan_init_c(sb, rc, N, MPI_INT, op, comm, I, &q));
    MPI_Op uop, uop_c;
    OK(MPI_Op_create(sum_int, 1, &uop));
    OK(MPI_Op_create_c(sum_c, 0, &uop_c));
    int commute = -1;
    OK(MPI_Op_commutative(uop_c, &commute));
    CHECK(commute == 0, "Op_create_c: commute %d", commute);
    FORMS("allreduce with MPI_Op_create_c", MPI_Allreduce(sb, ri, N * n, MPI_INT, uop, comm),
          MPI_Allreduce_c(sb, rc, N * n, MPI_INT, uop_c, comm),
          MPI_Iallreduce_c(sb, rc, N * n, MPI_INT, uop_c, comm, &q),
          MPI_Allreduce_init_c(sb, rc, N * n, MPI_INT, uop_c, comm, I, &q));
    memcpy(ri, sb, bytes);
    memcpy(rc, sb, bytes);
    OK(MPI_Reduce_local(sb, ri, N * n, MPI_INT, uop));
    OK(MPI_Reduce_local_c(sb, rc, N * n, MPI_INT, uop_c));
    CHECK(memcmp(ri, rc, bytes) == 0, "reduce_local_c with a user op");
    MPI_Op_free(&uop);
    MPI_Op_free(&uop_c);
    memcpy(ri, sb, bytes);
    memcpy(rc, sb, bytes);
    OK(MPI_Reduce_local(sb, ri, N * n, MPI_INT, MPI_PROD));
    OK(MPI_Reduce_local_c(sb, rc, N * n, MPI_INT, MPI_PROD));
    CHECK(memcmp(ri, rc, bytes) == 0, "reduce_local_c");
    free(sb), free(ri), free(rc), free(cnt), free(dsp), free(ccnt), free(cdsp), free(bdsp);
    free(cbdsp), free(ty);
}

/* Neighbourhood collectives on a periodic ring (2 neighbours each). */
static void neighbours(void)
{
    MPI_Comm ring;
    int dims[1] = { size }, per[1] = { 1 };
    OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &ring));
    size_t bytes = sizeof(int) * 2 * N;
    int sb[2 * N], ri[2 * N], rc[2 * N], cnt[2] = { N, N }, dsp[2] = { N, 0 };
    int bdsp[2] = { N * (int)sizeof(int), 0 };
    MPI_Count ccnt[2] = { N, N };
    MPI_Aint cdsp[2] = { N, 0 }, adsp[2] = { N * sizeof(int), 0 };
    MPI_Datatype ty[2] = { MPI_INT, MPI_INT };
    MPI_Info I = MPI_INFO_NULL;
    (void)bdsp;
    for (int i = 0; i < 2 * N; i++)
        sb[i] = rank * 100 + i;
    FORMS("neighbor_allgather", MPI_Neighbor_allgather(sb, N, MPI_INT, ri, N, MPI_INT, ring),
          MPI_Neighbor_allgather_c(sb, N, MPI_INT, rc, N, MPI_INT, ring),
          MPI_Ineighbor_allgather_c(sb, N, MPI_INT, rc, N, MPI_INT, ring, &q),
          MPI_Neighbor_allgather_init_c(sb, N, MPI_INT, rc, N, MPI_INT, ring, I, &q));
    FORMS("neighbor_allgatherv",
          MPI_Neighbor_allgatherv(sb, N, MPI_INT, ri, cnt, dsp, MPI_INT, ring),
          MPI_Neighbor_allgatherv_c(sb, N, MPI_INT, rc, ccnt, cdsp, MPI_INT, ring),
          MPI_Ineighbor_allgatherv_c(sb, N, MPI_INT, rc, ccnt, cdsp, MPI_INT, ring, &q),
          MPI_Neighbor_allgatherv_init_c(sb, N, MPI_INT, rc, ccnt, cdsp, MPI_INT, ring, I, &q));
    FORMS("neighbor_alltoall", MPI_Neighbor_alltoall(sb, N, MPI_INT, ri, N, MPI_INT, ring),
          MPI_Neighbor_alltoall_c(sb, N, MPI_INT, rc, N, MPI_INT, ring),
          MPI_Ineighbor_alltoall_c(sb, N, MPI_INT, rc, N, MPI_INT, ring, &q),
          MPI_Neighbor_alltoall_init_c(sb, N, MPI_INT, rc, N, MPI_INT, ring, I, &q));
    FORMS("neighbor_alltoallv",
          MPI_Neighbor_alltoallv(sb, cnt, dsp, MPI_INT, ri, cnt, dsp, MPI_INT, ring),
          MPI_Neighbor_alltoallv_c(sb, ccnt, cdsp, MPI_INT, rc, ccnt, cdsp, MPI_INT, ring),
          MPI_Ineighbor_alltoallv_c(sb, ccnt, cdsp, MPI_INT, rc, ccnt, cdsp, MPI_INT, ring, &q),
          MPI_Neighbor_alltoallv_init_c(sb, ccnt, cdsp, MPI_INT, rc, ccnt, cdsp, MPI_INT, ring,
                                        I, &q));
    FORMS("neighbor_alltoallw",
          MPI_Neighbor_alltoallw(sb, cnt, adsp, ty, ri, cnt, adsp, ty, ring),
          MPI_Neighbor_alltoallw_c(sb, ccnt, adsp, ty, rc, ccnt, adsp, ty, ring),
          MPI_Ineighbor_alltoallw_c(sb, ccnt, adsp, ty, rc, ccnt, adsp, ty, ring, &q),
          MPI_Neighbor_alltoallw_init_c(sb, ccnt, adsp, ty, rc, ccnt, adsp, ty, ring, I, &q));
    MPI_Comm_free(&ring);
}

/* ---- One-sided ----------------------------------------------------------- */

/* Each operation on the next rank's window, int form then _c form on two
 * halves of the window, compared. */
static void rma(void)
{
    int next = (rank + 1) % size;
    int *mem, *shm, org[4] = { 1, 2, 3, 4 }, res1[4], res2[4];
    MPI_Win w, wa, ws;
    MPI_Request q;
    int local[8] = { 0 };
    OK(MPI_Win_create_c(local, sizeof local, (MPI_Aint)sizeof(int), MPI_INFO_NULL,
                        MPI_COMM_WORLD, &w));
    OK(MPI_Win_allocate_c(8 * sizeof(int), (MPI_Aint)sizeof(int), MPI_INFO_NULL,
                          MPI_COMM_WORLD, &mem, &wa));
    OK(MPI_Win_allocate_shared_c(8 * sizeof(int), (MPI_Aint)sizeof(int), MPI_INFO_NULL,
                                 MPI_COMM_WORLD, &shm, &ws));
    MPI_Aint qsize, qunit;
    int *qbase;
    OK(MPI_Win_shared_query_c(ws, rank, &qsize, &qunit, &qbase));
    CHECK(qsize == 8 * (MPI_Aint)sizeof(int) && qunit == sizeof(int) && qbase == shm,
          "Win_shared_query_c: size %lld unit %lld", (long long)qsize, (long long)qunit);
    MPI_Win_free(&ws);
    MPI_Win_free(&wa);
    OK(MPI_Win_fence(0, w));
    OK(MPI_Put(org, 4, MPI_INT, next, 0, 4, MPI_INT, w));
    OK(MPI_Put_c(org, 4, MPI_INT, next, 4, 4, MPI_INT, w));
    OK(MPI_Win_fence(0, w));
    CHECK(memcmp(local, local + 4, 4 * sizeof(int)) == 0 && local[3] == 4,
          "Put_c: %d %d %d %d / %d %d %d %d", local[0], local[1], local[2], local[3], local[4],
          local[5], local[6], local[7]);
    /* The next accumulate writes this memory at once: check first. */
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Accumulate(org, 4, MPI_INT, next, 0, 4, MPI_INT, MPI_SUM, w));
    OK(MPI_Accumulate_c(org, 4, MPI_INT, next, 4, 4, MPI_INT, MPI_SUM, w));
    OK(MPI_Win_fence(0, w));
    CHECK(memcmp(local, local + 4, 4 * sizeof(int)) == 0 && local[3] == 8, "Accumulate_c");
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Get(res1, 4, MPI_INT, next, 0, 4, MPI_INT, w));
    OK(MPI_Get_c(res2, 4, MPI_INT, next, 4, 4, MPI_INT, w));
    OK(MPI_Win_fence(0, w));
    CHECK(memcmp(res1, res2, sizeof res1) == 0 && res1[3] == 8, "Get_c");
    OK(MPI_Get_accumulate(org, 4, MPI_INT, res1, 4, MPI_INT, next, 0, 4, MPI_INT, MPI_SUM, w));
    OK(MPI_Get_accumulate_c(org, 4, MPI_INT, res2, 4, MPI_INT, next, 4, 4, MPI_INT, MPI_SUM,
                            w));
    OK(MPI_Win_fence(0, w));
    CHECK(memcmp(res1, res2, sizeof res1) == 0 && memcmp(local, local + 4, 16) == 0,
          "Get_accumulate_c");
    OK(MPI_Barrier(MPI_COMM_WORLD));
    /* The request forms in a passive-target epoch. */
    OK(MPI_Win_lock_all(0, w));
    OK(MPI_Rput_c(org, 4, MPI_INT, next, 4, 4, MPI_INT, w, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    OK(MPI_Rput(org, 4, MPI_INT, next, 0, 4, MPI_INT, w, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    OK(MPI_Raccumulate(org, 4, MPI_INT, next, 0, 4, MPI_INT, MPI_PROD, w, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    OK(MPI_Raccumulate_c(org, 4, MPI_INT, next, 4, 4, MPI_INT, MPI_PROD, w, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    OK(MPI_Rget_accumulate(org, 4, MPI_INT, res1, 4, MPI_INT, next, 0, 4, MPI_INT, MPI_NO_OP,
                           w, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    OK(MPI_Rget_accumulate_c(org, 4, MPI_INT, res2, 4, MPI_INT, next, 4, 4, MPI_INT, MPI_NO_OP,
                             w, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    CHECK(memcmp(res1, res2, sizeof res1) == 0 && res1[3] == 16, "Rget_accumulate_c");
    OK(MPI_Rget(res1, 4, MPI_INT, next, 0, 4, MPI_INT, w, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    OK(MPI_Rget_c(res2, 4, MPI_INT, next, 4, 4, MPI_INT, w, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    CHECK(memcmp(res1, res2, sizeof res1) == 0, "Rget_c");
    OK(MPI_Win_unlock_all(w));
    /* A request form outside a passive-target epoch is an error. */
    MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
    int rc = MPI_Rput_c(org, 4, MPI_INT, next, 4, 4, MPI_INT, w, &q), cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RMA_SYNC, "Rput_c outside an epoch gave class %d", cls);
    MPI_Win_free(&w);
}

/* Intercommunicator collectives in their _c forms (two halves of the
 * world), against the int forms. */
static void inter(void)
{
    if (size < 2)
        return;
    MPI_Comm half, ic;
    int lo = rank < size / 2;
    OK(MPI_Comm_split(MPI_COMM_WORLD, lo, rank, &half));
    OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, lo ? size / 2 : 0, 7, &ic));
    int rn;
    MPI_Comm_remote_size(ic, &rn);
    size_t bytes = sizeof(int) * N * (size_t)rn;
    int sb[N * 8], *ri = malloc(bytes), *rc = malloc(bytes);
    int *cnt = malloc(sizeof(int) * (size_t)rn), *dsp = malloc(sizeof(int) * (size_t)rn);
    MPI_Count *ccnt = malloc(sizeof(MPI_Count) * (size_t)rn);
    MPI_Aint *cdsp = malloc(sizeof(MPI_Aint) * (size_t)rn);
    for (int i = 0; i < N * 8; i++)
        sb[i] = rank * 10 + i;
    for (int q = 0; q < rn; q++) {
        cnt[q] = ccnt[q] = N;
        dsp[q] = cdsp[q] = (rn - 1 - q) * N;
    }
    MPI_Info I = MPI_INFO_NULL;
    FORMS("inter allgather", MPI_Allgather(sb, N, MPI_INT, ri, N, MPI_INT, ic),
          MPI_Allgather_c(sb, N, MPI_INT, rc, N, MPI_INT, ic),
          MPI_Iallgather_c(sb, N, MPI_INT, rc, N, MPI_INT, ic, &q),
          MPI_Allgather_init_c(sb, N, MPI_INT, rc, N, MPI_INT, ic, I, &q));
    FORMS("inter allgatherv", MPI_Allgatherv(sb, N, MPI_INT, ri, cnt, dsp, MPI_INT, ic),
          MPI_Allgatherv_c(sb, N, MPI_INT, rc, ccnt, cdsp, MPI_INT, ic),
          MPI_Iallgatherv_c(sb, N, MPI_INT, rc, ccnt, cdsp, MPI_INT, ic, &q),
          MPI_Allgatherv_init_c(sb, N, MPI_INT, rc, ccnt, cdsp, MPI_INT, ic, I, &q));
    if (rn <= 8)
        FORMS("inter alltoallv",
              MPI_Alltoallv(sb, cnt, dsp, MPI_INT, ri, cnt, dsp, MPI_INT, ic),
              MPI_Alltoallv_c(sb, ccnt, cdsp, MPI_INT, rc, ccnt, cdsp, MPI_INT, ic),
              MPI_Ialltoallv_c(sb, ccnt, cdsp, MPI_INT, rc, ccnt, cdsp, MPI_INT, ic, &q),
              MPI_Alltoallv_init_c(sb, ccnt, cdsp, MPI_INT, rc, ccnt, cdsp, MPI_INT, ic, I, &q));
    memset(ri, 0, bytes);
    memset(rc, 0, bytes);
    OK(MPI_Allreduce(sb, ri, N, MPI_INT, MPI_SUM, ic));
    OK(MPI_Allreduce_c(sb, rc, N, MPI_INT, MPI_SUM, ic));
    CHECK(memcmp(ri, rc, bytes) == 0, "inter allreduce_c");
    int root = lo ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    memcpy(ri, sb, N * sizeof(int));
    memcpy(rc, sb, N * sizeof(int));
    OK(MPI_Bcast(ri, N, MPI_INT, root, ic));
    OK(MPI_Bcast_c(rc, N, MPI_INT, root, ic));
    CHECK(memcmp(ri, rc, N * sizeof(int)) == 0, "inter bcast_c");
    free(ri), free(rc), free(cnt), free(dsp), free(ccnt), free(cdsp);
    MPI_Comm_free(&ic);
    MPI_Comm_free(&half);
}

/* ---- Errors -------------------------------------------------------------- */

/* A negative count is refused with MPI_ERR_COUNT, naming the _c call. */
static void errors(void)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len, cls, x = 0;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int rc = MPI_Send_c(&x, -5, MPI_INT, 0, 0, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, msg, &len);
    CHECK(cls == MPI_ERR_COUNT && strstr(msg, "MPI_Send_c") && strstr(msg, "-5"),
          "Send_c(count=-5): class %d, \"%s\"", cls, msg);
    MPI_Datatype t;
    rc = MPI_Type_contiguous_c(-1, MPI_INT, &t);
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, msg, &len);
    CHECK(cls == MPI_ERR_COUNT && strstr(msg, "MPI_Type_contiguous_c"),
          "Type_contiguous_c(-1): class %d, \"%s\"", cls, msg);
    rc = MPI_Allreduce_c(&x, &len, -2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, msg, &len);
    CHECK(cls == MPI_ERR_COUNT && strstr(msg, "MPI_Allreduce_c"),
          "Allreduce_c(-2): class %d, \"%s\"", cls, msg);
    /* A count whose bytes do not fit a 64-bit byte count, with a type of
     * positive and one of negative extent: refused before any byte moves. */
    MPI_Datatype neg;
    MPI_Type_create_resized(MPI_INT, 0, -4096, &neg);
    MPI_Type_commit(&neg);
    MPI_Datatype kinds[2] = { MPI_DOUBLE, neg };
    for (int k = 0; k < 2; k++) {
        MPI_Count big = (MPI_Count)(INT64_MAX / (k ? 4096 : 8)) + 1;
        rc = MPI_Send_c(&x, big, kinds[k], 0, 0, MPI_COMM_SELF);
        MPI_Error_class(rc, &cls);
        MPI_Error_string(rc, msg, &len);
        CHECK(cls == MPI_ERR_COUNT && strstr(msg, "MPI_Send_c") && strstr(msg, "overflow"),
              "Send_c(count=%lld, type %d): class %d, \"%s\"", (long long)big, k, cls, msg);
    }
    MPI_Type_free(&neg);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    p2p();
    types();
    collectives(MPI_COMM_WORLD);
    neighbours();
    rma();
    inter();
    errors();
    int all;
    MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("large_calls: %s (%d failures)\n", all ? "FAILED" : "ok", all);
    MPI_Finalize();
    return all != 0;
}
