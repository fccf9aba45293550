/*
 * mpit_basic.c: the MPI_T tool information interface.
 *
 * Enumerates the control and performance variables, categories and
 * enumerations with their names and descriptions; reads and writes the
 * eager threshold and watches the per-protocol send counters follow it;
 * checks the unexpected-queue level and high-water mark after sends made
 * before their receives, the collective fast-path counter with start and
 * stop, and the MPI_T_ERR_* codes of bad indices, handles and sessions.
 * Ranks pair up (0-1, 2-3, ...); an odd last rank sends to itself.
 */
#include "zt.h"

#include <pthread.h>

/* Index of a variable by name: cvar (var_class < 0) or pvar. */
static int cvar_index(const char *name)
{
    int i = -1;
    ZT_OK(MPI_T_cvar_get_index(name, &i));
    return i;
}

static int pvar_index(const char *name, int var_class)
{
    int i = -1;
    ZT_OK(MPI_T_pvar_get_index(name, var_class, &i));
    return i;
}

/* Every cvar, pvar and category has a name and a description, and its
 * index is found again by its name; categories hold every variable once. */
static void enumerate(int *ncvar_out, int *npvar_out)
{
    int ncvar, npvar, ncat;
    ZT_OK(MPI_T_cvar_get_num(&ncvar));
    ZT_OK(MPI_T_pvar_get_num(&npvar));
    ZT_OK(MPI_T_category_get_num(&ncat));
    ZT_CHECK(ncvar >= 8 && npvar >= 15 && ncat >= 4, "%d cvars %d pvars %d categories",
             ncvar, npvar, ncat);
    for (int i = 0; i < ncvar; i++) {
        char name[128], desc[1024];
        int nlen = sizeof name, dlen = sizeof desc, verb, bind, scope, qlen = 0;
        MPI_Datatype dt;
        MPI_T_enum en;
        ZT_OK(MPI_T_cvar_get_info(i, NULL, &qlen, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
        ZT_OK(MPI_T_cvar_get_info(i, name, &nlen, &verb, &dt, &en, desc, &dlen, &bind, &scope));
        ZT_EQ(qlen, (int)strlen(name) + 1, "queried name length");
        ZT_EQ(nlen, (int)strlen(name) + 1, "returned name length");
        ZT_CHECK(strncmp(name, "ZMPI_", 5) == 0 && dlen > 10, "cvar %d: %s: %s", i, name, desc);
        ZT_EQ(bind, MPI_T_BIND_NO_OBJECT, "cvar bind");
        ZT_CHECK(dt == MPI_INT || dt == MPI_UNSIGNED_LONG_LONG || dt == MPI_CHAR, "cvar type");
        ZT_EQ(cvar_index(name), i, "cvar index by name");
    }
    for (int i = 0; i < npvar; i++) {
        char name[128], desc[1024];
        int nlen = sizeof name, dlen = sizeof desc, verb, cls, bind, ro, cont, at;
        MPI_Datatype dt;
        MPI_T_enum en;
        ZT_OK(MPI_T_pvar_get_info(i, name, &nlen, &verb, &cls, &dt, &en, desc, &dlen, &bind,
                                  &ro, &cont, &at));
        ZT_CHECK(strncmp(name, "zmpi_", 5) == 0 && dlen > 10, "pvar %d: %s: %s", i, name, desc);
        ZT_CHECK(dt == MPI_UNSIGNED_LONG_LONG && en == MPI_T_ENUM_NULL, "pvar %s type", name);
        ZT_EQ(pvar_index(name, cls), i, "pvar index by name and class");
    }
    int cv = 0, pv = 0, root = -1, sub = 0;
    for (int i = 0; i < ncat; i++) {
        char name[128], desc[1024];
        int nlen = sizeof name, dlen = sizeof desc, nc, np, ns;
        ZT_OK(MPI_T_category_get_info(i, name, &nlen, desc, &dlen, &nc, &np, &ns));
        ZT_CHECK(dlen > 10, "category %s has a description", name);
        int idx = -1;
        ZT_OK(MPI_T_category_get_index(name, &idx));
        ZT_EQ(idx, i, "category index by name");
        int ids[64];
        ZT_OK(MPI_T_category_get_cvars(i, 64, ids));
        for (int k = 0; k < nc; k++)
            ZT_CHECK(ids[k] >= 0 && ids[k] < ncvar, "cvar member %d", ids[k]);
        ZT_OK(MPI_T_category_get_pvars(i, 64, ids));
        for (int k = 0; k < np; k++)
            ZT_CHECK(ids[k] >= 0 && ids[k] < npvar, "pvar member %d", ids[k]);
        if (strcmp(name, "zmpi") == 0) {
            root = i;
            sub = ns;
            ZT_OK(MPI_T_category_get_categories(i, 64, ids));
            for (int k = 0; k < ns; k++)
                ZT_CHECK(ids[k] != i && ids[k] >= 0 && ids[k] < ncat, "subcategory %d", ids[k]);
        }
        cv += nc;
        pv += np;
    }
    ZT_CHECK(root >= 0 && sub == ncat - 1, "root category with %d subcategories", sub);
    ZT_EQ(cv, ncvar, "cvars in categories");
    ZT_EQ(pv, npvar, "pvars in categories");
    int upd = -1;
    ZT_OK(MPI_T_category_changed(&upd));
    ZT_EQ(upd, 0, "category update number");
    *ncvar_out = ncvar;
    *npvar_out = npvar;
}

/* The ZMPI_COLL_FENCE cvar's enumeration: auto = 0, always = 1. */
static void check_enum(void)
{
    MPI_T_enum en;
    MPI_Datatype dt;
    ZT_OK(MPI_T_cvar_get_info(cvar_index("ZMPI_COLL_FENCE"), NULL, NULL, NULL, &dt, &en, NULL,
                              NULL, NULL, NULL));
    ZT_CHECK(en != MPI_T_ENUM_NULL && dt == MPI_INT, "ZMPI_COLL_FENCE is an enumeration");
    int num, value, len = 64;
    char name[64];
    ZT_OK(MPI_T_enum_get_info(en, &num, name, &len));
    ZT_EQ(num, 2, "enumeration items");
    len = 64;
    ZT_OK(MPI_T_enum_get_item(en, 1, &value, name, &len));
    ZT_CHECK(value == 1 && strcmp(name, "always") == 0, "item 1 is %d %s", value, name);
    ZT_EQ(MPI_T_enum_get_item(en, 2, &value, name, &len), MPI_T_ERR_INVALID_ITEM, "bad item");
}

/* An int cvar's value, read through a fresh handle. */
static int cvar_int(const char *name)
{
    MPI_T_cvar_handle ch;
    int count, v = -1;
    ZT_OK(MPI_T_cvar_handle_alloc(cvar_index(name), NULL, &ch, &count));
    ZT_CHECK(count == 1, "%s count %d", name, count);
    ZT_OK(MPI_T_cvar_read(ch, &v));
    ZT_OK(MPI_T_cvar_handle_free(&ch));
    return v;
}

/* The balancing settings as the job took them (the test runs with none of
 * ZMPI_LB, ZMPI_LB_REPORT, ZMPI_STEAL set): greedy, no report, stealing. */
static void check_lb_cvars(void)
{
    MPI_T_enum en;
    MPI_Datatype dt;
    ZT_OK(MPI_T_cvar_get_info(cvar_index("ZMPI_LB"), NULL, NULL, NULL, &dt, &en, NULL, NULL,
                              NULL, NULL));
    ZT_CHECK(en != MPI_T_ENUM_NULL && dt == MPI_INT, "ZMPI_LB is an enumeration");
    int v = cvar_int("ZMPI_LB"), num, value = -1, len = 64, found = 0;
    char name[64];
    ZT_OK(MPI_T_enum_get_info(en, &num, name, &len));
    ZT_EQ(num, 4, "ZMPI_LB strategies");
    for (int i = 0; i < num; i++) {
        len = 64;
        ZT_OK(MPI_T_enum_get_item(en, i, &value, name, &len));
        if (value == v)
            found = strcmp(name, "greedy") == 0;
    }
    ZT_CHECK(found, "ZMPI_LB is greedy (value %d)", v);
    ZT_EQ(cvar_int("ZMPI_LB_REPORT"), 0, "ZMPI_LB_REPORT");
    ZT_EQ(cvar_int("ZMPI_STEAL"), 1, "ZMPI_STEAL");
}

typedef struct counters {
    MPI_T_pvar_session s;
    MPI_T_pvar_handle eager_msgs, eager_bytes, rndv_msgs, rndv_bytes, len, hwm;
} counters_t;

static unsigned long long rd(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    unsigned long long v = 0;
    ZT_OK(MPI_T_pvar_read(s, h, &v));
    return v;
}

static MPI_T_pvar_handle alloc(MPI_T_pvar_session s, const char *name, int cls, int start)
{
    MPI_T_pvar_handle h;
    int count = 0;
    ZT_OK(MPI_T_pvar_handle_alloc(s, pvar_index(name, cls), NULL, &h, &count));
    ZT_EQ(count, 1, "pvar count");
    if (start)
        ZT_OK(MPI_T_pvar_start(s, h));
    return h;
}

/* Send `bytes` to the partner before it posts its receive (a barrier in
 * between), and receive the partner's message the same way. */
static void exchange_unexpected(int partner, size_t bytes, long seq)
{
    char *out = zt_malloc(bytes), *in = zt_malloc(bytes);
    int rank;
    MPI_Request rq;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    zt_fill(out, bytes, rank, seq);
    ZT_OK(MPI_Isend(out, (int)bytes, MPI_CHAR, partner, 7, MPI_COMM_WORLD, &rq));
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    ZT_OK(MPI_Recv(in, (int)bytes, MPI_CHAR, partner, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    ZT_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    ZT_CHECK_PAYLOAD(in, bytes, partner, seq);
    free(out);
    free(in);
}

/* Messages below the threshold go eagerly, above it by rendezvous; after
 * lowering the threshold the same size goes by rendezvous. */
static void eager_threshold(counters_t *c, int partner)
{
    MPI_T_cvar_handle eh;
    int count;
    unsigned long long eager = 0, low = 512, high;
    ZT_OK(MPI_T_cvar_handle_alloc(cvar_index("ZMPI_EAGER_MAX"), NULL, &eh, &count));
    ZT_EQ(count, 1, "eager cvar count");
    ZT_OK(MPI_T_cvar_read(eh, &eager));
    ZT_CHECK(eager >= 1000, "eager threshold %llu", eager);

    exchange_unexpected(partner, 1000, 1);
    ZT_EQ(rd(c->s, c->eager_msgs), 1, "eager messages");
    ZT_EQ(rd(c->s, c->eager_bytes), 1000, "eager bytes");
    ZT_EQ(rd(c->s, c->rndv_msgs), 0, "rendezvous messages");
    exchange_unexpected(partner, (size_t)eager + 1, 2);
    ZT_EQ(rd(c->s, c->eager_msgs), 1, "eager messages");
    ZT_EQ(rd(c->s, c->rndv_msgs), 1, "rendezvous messages");
    ZT_EQ(rd(c->s, c->rndv_bytes), eager + 1, "rendezvous bytes");

    /* Every rank lowers it (a rank's write is everyone's: wait for all). */
    ZT_OK(MPI_T_cvar_write(eh, &low));
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    ZT_OK(MPI_T_cvar_read(eh, &high));
    ZT_EQ(high, low, "eager threshold after the write");
    exchange_unexpected(partner, 1000, 3);
    ZT_EQ(rd(c->s, c->eager_msgs), 1, "eager messages after lowering");
    ZT_EQ(rd(c->s, c->rndv_msgs), 2, "rendezvous messages after lowering");
    ZT_EQ(rd(c->s, c->rndv_bytes), eager + 1 + 1000, "rendezvous bytes after lowering");
    high = eager + 1;
    ZT_EQ(MPI_T_cvar_write(eh, &high), MPI_T_ERR_INVALID, "raise above the start value");
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    ZT_OK(MPI_T_cvar_write(eh, &eager));
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    ZT_OK(MPI_T_cvar_handle_free(&eh));
    ZT_CHECK(eh == MPI_T_CVAR_HANDLE_NULL, "freed handle is set to null");

    /* Readreset by the rank itself: the value, then zero. */
    unsigned long long v = 0;
    ZT_OK(MPI_T_pvar_readreset(c->s, c->rndv_msgs, &v));
    ZT_EQ(v, 2, "readreset value");
    ZT_EQ(rd(c->s, c->rndv_msgs), 0, "after readreset");
    v = 40;
    ZT_OK(MPI_T_pvar_write(c->s, c->rndv_msgs, &v));
    ZT_EQ(rd(c->s, c->rndv_msgs), 40, "after write");
}

/* Five 100-byte messages (eager, not mail) to the partner before its
 * receives: its queue holds five, and its high-water mark says so. */
static void unexpected_queue(counters_t *c, int rank, int partner)
{
    enum { N = 5 };
    char out[N][100], in[100];
    MPI_Request rq[N];
    for (int i = 0; i < N; i++) {
        zt_fill(out[i], 100, rank, 10 + i);
        ZT_OK(MPI_Isend(out[i], 100, MPI_CHAR, partner, 8, MPI_COMM_WORLD, &rq[i]));
    }
    ZT_OK(MPI_Barrier(MPI_COMM_WORLD));
    ZT_EQ(rd(c->s, c->len), N, "unexpected queue length before the receives");
    ZT_EQ(rd(c->s, c->hwm), N, "unexpected queue high-water mark");
    for (int i = 0; i < N; i++) {
        ZT_OK(MPI_Recv(in, 100, MPI_CHAR, partner, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        ZT_CHECK_PAYLOAD(in, 100, partner, 10 + i);
    }
    ZT_OK(MPI_Waitall(N, rq, MPI_STATUSES_IGNORE));
    ZT_EQ(rd(c->s, c->len), 0, "unexpected queue length after the receives");
    ZT_EQ(rd(c->s, c->hwm), N, "high-water mark after the receives");
}

/* Ten small Bcasts while the fast-path counter runs, one while stopped. */
static void coll_fast(MPI_T_pvar_session s)
{
    MPI_T_pvar_handle h = alloc(s, "zmpi_coll_fast_hits", MPI_T_PVAR_CLASS_COUNTER, 0);
    int x = 0;
    ZT_OK(MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD));
    ZT_EQ(rd(s, h), 0, "fast hits before start");
    ZT_OK(MPI_T_pvar_start(s, h));
    for (int i = 0; i < 10; i++)
        ZT_OK(MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD));
    ZT_OK(MPI_T_pvar_stop(s, h));
    ZT_EQ(rd(s, h), 10, "fast hits of ten Bcasts");
    ZT_OK(MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD));
    ZT_EQ(rd(s, h), 10, "stopped handle does not count");
    ZT_OK(MPI_T_pvar_reset(s, MPI_T_PVAR_ALL_HANDLES));
    ZT_EQ(rd(s, h), 0, "after reset of all handles");
    ZT_OK(MPI_T_pvar_handle_free(s, &h));
    ZT_CHECK(h == MPI_T_PVAR_HANDLE_NULL, "freed pvar handle is set to null");
}

/* Bad indices, handles and sessions, and what read-only variables refuse. */
static void errors(counters_t *c, int ncvar, int npvar)
{
    MPI_T_cvar_handle ch;
    MPI_T_pvar_handle ph;
    MPI_T_pvar_session s2;
    int count, idx;
    unsigned long long v = 1;
    ZT_EQ(MPI_T_cvar_get_info(ncvar, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
          MPI_T_ERR_INVALID_INDEX, "cvar index past the end");
    ZT_EQ(MPI_T_pvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                              NULL, NULL), MPI_T_ERR_INVALID_INDEX, "negative pvar index");
    ZT_EQ(MPI_T_category_get_info(99, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
          MPI_T_ERR_INVALID_INDEX, "category index");
    ZT_EQ(MPI_T_cvar_handle_alloc(-3, NULL, &ch, &count), MPI_T_ERR_INVALID_INDEX,
          "cvar handle of a bad index");
    ZT_EQ(MPI_T_pvar_handle_alloc(c->s, npvar, NULL, &ph, &count), MPI_T_ERR_INVALID_INDEX,
          "pvar handle of a bad index");
    ZT_EQ(MPI_T_cvar_get_index("ZMPI_NO_SUCH", &idx), MPI_T_ERR_INVALID_NAME, "cvar name");
    ZT_EQ(MPI_T_pvar_get_index("zmpi_coll_fast_hits", MPI_T_PVAR_CLASS_TIMER, &idx),
          MPI_T_ERR_INVALID_NAME, "pvar of another class");
    ZT_EQ(MPI_T_category_get_index("nope", &idx), MPI_T_ERR_INVALID_NAME, "category name");

    /* Constant and read-only control variables. */
    int np = 0;
    ZT_OK(MPI_T_cvar_handle_alloc(cvar_index("ZMPI_NP"), NULL, &ch, &count));
    ZT_OK(MPI_T_cvar_read(ch, &np));
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ZT_EQ(np, size, "ZMPI_NP is the job size");
    ZT_EQ(MPI_T_cvar_write(ch, &np), MPI_T_ERR_CVAR_SET_NEVER, "write a constant");
    MPI_T_cvar_handle stale = ch;
    ZT_OK(MPI_T_cvar_handle_free(&ch));
    ZT_EQ(MPI_T_cvar_read(stale, &np), MPI_T_ERR_INVALID_HANDLE, "read a freed cvar handle");
    ZT_EQ(MPI_T_cvar_handle_free(&stale), MPI_T_ERR_INVALID_HANDLE, "free it again");
    ZT_OK(MPI_T_cvar_handle_alloc(cvar_index("ZMPI_TMPDIR"), NULL, &ch, &count));
    char dir[4096];
    ZT_CHECK(count > 1 && count <= (int)sizeof dir, "ZMPI_TMPDIR count %d", count);
    ZT_OK(MPI_T_cvar_read(ch, dir));
    ZT_EQ((int)strlen(dir) + 1, count, "ZMPI_TMPDIR length");
    ZT_OK(MPI_T_cvar_handle_free(&ch));

    /* Continuous, read-only performance variables. */
    ZT_EQ(MPI_T_pvar_start(c->s, c->hwm), MPI_T_ERR_PVAR_NO_STARTSTOP, "start continuous");
    ZT_EQ(MPI_T_pvar_write(c->s, c->hwm, &v), MPI_T_ERR_PVAR_NO_WRITE, "write read-only");
    ZT_EQ(MPI_T_pvar_reset(c->s, c->len), MPI_T_ERR_PVAR_NO_WRITE, "reset read-only");
    ZT_EQ(MPI_T_pvar_read(c->s, MPI_T_PVAR_ALL_HANDLES, &v), MPI_T_ERR_INVALID_HANDLE,
          "read all handles");

    /* A handle of another session, then a freed session. */
    ZT_OK(MPI_T_pvar_session_create(&s2));
    ZT_EQ(MPI_T_pvar_read(s2, c->hwm, &v), MPI_T_ERR_INVALID_HANDLE, "handle of another session");
    ph = alloc(s2, "zmpi_p2p_eager_msgs", MPI_T_PVAR_CLASS_COUNTER, 1);
    MPI_T_pvar_session stale_s = s2;
    ZT_OK(MPI_T_pvar_session_free(&s2));
    ZT_CHECK(s2 == MPI_T_PVAR_SESSION_NULL, "freed session is set to null");
    ZT_EQ(MPI_T_pvar_read(stale_s, ph, &v), MPI_T_ERR_INVALID_SESSION, "read in freed session");
    ZT_EQ(MPI_T_pvar_start(MPI_T_PVAR_SESSION_NULL, c->hwm), MPI_T_ERR_INVALID_SESSION,
          "null session");
    ZT_EQ(MPI_T_pvar_session_free(&stale_s), MPI_T_ERR_INVALID_SESSION, "free it again");
}

/* A thread that is not a rank may use MPI_T (its own init count), read
 * control variables, and has no counters to open a session on. */
static void *tool_thread(void *arg)
{
    int provided, np = 0, count, *ok = arg;
    MPI_T_cvar_handle ch;
    MPI_T_pvar_session s;
    *ok = MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided) == MPI_SUCCESS &&
          provided == MPI_THREAD_MULTIPLE &&
          MPI_T_cvar_handle_alloc(cvar_index("ZMPI_NP"), NULL, &ch, &count) == MPI_SUCCESS &&
          MPI_T_cvar_read(ch, &np) == MPI_SUCCESS && np > 0 &&
          MPI_T_cvar_handle_free(&ch) == MPI_SUCCESS &&
          MPI_T_pvar_session_create(&s) == MPI_T_ERR_NOT_ACCESSIBLE &&
          MPI_T_finalize() == MPI_SUCCESS;
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = -1, rank, size, ncvar, npvar, n;
    /* MPI_T works before MPI_Init, once MPI_T_init_thread has been called. */
    ZT_EQ(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED, "before MPI_T_init_thread");
    ZT_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    ZT_CHECK(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE, "provided");
    enumerate(&ncvar, &npvar);
    check_enum();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int partner = (rank ^ 1) < size ? rank ^ 1 : rank;
    check_lb_cvars();
    /* A second init is counted; the first finalize leaves MPI_T usable. */
    ZT_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));

    counters_t c;
    ZT_OK(MPI_T_pvar_session_create(&c.s));
    c.eager_msgs = alloc(c.s, "zmpi_p2p_eager_msgs", MPI_T_PVAR_CLASS_COUNTER, 1);
    c.eager_bytes = alloc(c.s, "zmpi_p2p_eager_bytes", MPI_T_PVAR_CLASS_COUNTER, 1);
    c.rndv_msgs = alloc(c.s, "zmpi_p2p_rndv_msgs", MPI_T_PVAR_CLASS_COUNTER, 1);
    c.rndv_bytes = alloc(c.s, "zmpi_p2p_rndv_bytes", MPI_T_PVAR_CLASS_COUNTER, 1);
    c.len = alloc(c.s, "zmpi_unexp_queue_len", MPI_T_PVAR_CLASS_LEVEL, 0);
    c.hwm = alloc(c.s, "zmpi_unexp_queue_hwm", MPI_T_PVAR_CLASS_HIGHWATERMARK, 0);

    eager_threshold(&c, partner);
    unexpected_queue(&c, rank, partner);
    coll_fast(c.s);
    errors(&c, ncvar, npvar);
    if (rank == 0) {
        pthread_t t;
        int ok = 0;
        ZT_EQ(pthread_create(&t, NULL, tool_thread, &ok), 0, "pthread_create");
        ZT_EQ(pthread_join(t, NULL), 0, "pthread_join");
        ZT_EQ(ok, 1, "MPI_T from a thread that is not a rank");
    }
    /* A tool thread's MPI_T_init_thread serves every rank until its
     * MPI_T_finalize: the checks below, that MPI_T is closed for this rank
     * once its own count drops to zero, need that thread gone first. */
    MPI_Barrier(MPI_COMM_WORLD);

    ZT_OK(MPI_T_pvar_session_free(&c.s));
    ZT_OK(MPI_T_finalize());
    ZT_OK(MPI_T_cvar_get_num(&n));
    ZT_OK(MPI_T_finalize());
    ZT_EQ(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED, "after the last MPI_T_finalize");
    ZT_EQ(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED, "finalize once too often");
    MPI_Finalize();
    if (rank == 0)
        printf("mpit_basic: %d ranks, %d cvars, %d pvars: OK\n", size, ncvar, npvar);
    return 0;
}
