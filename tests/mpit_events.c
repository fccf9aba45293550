/*
 * mpit_events.c: the MPI_T events interface (sources, event types,
 * registration handles, callbacks, dropped handlers, event data).
 *
 * Enumerates the source and the event types with their layouts and
 * category; registers callbacks on MPI_COMM_WORLD for every event type and
 * checks, message by message, what they report: unexpected arrivals
 * (mail, eager, rendezvous), receives matched by the receiver and by the
 * sender, rendezvous starts, read element by element and copied whole,
 * with the safety level of the raising context and timestamps that never
 * go back.  Then: a handle bound to a duplicate hears only its traffic,
 * a freed handle hears nothing and its free callback runs, events a
 * callback's safety level cannot take are dropped and reported to the
 * dropped handler before the next event, and bad arguments give the
 * MPI_T error codes.  Ranks pair up (0-1, 2-3, ...); an odd last rank
 * sends to itself, where every event is raised in its own thread.
 */
#include "zt.h"

#define MAXREC 256
#define BIG 65536 /* above the default eager threshold: rendezvous */

enum { EV_UNEXP, EV_MATCH, EV_RNDV, NEV, EV_DROPPED = -1 };
static const char *ev_names[NEV] = { "zmpi_p2p_unexpected", "zmpi_p2p_matched",
                                     "zmpi_p2p_rndv_start" };

/* One callback invocation, or one dropped-handler call (ev EV_DROPPED,
 * count in bytes). */
typedef struct rec {
    int ev, level, peer, tag, proto, source;
    unsigned long long bytes;
    unsigned ctx;
    MPI_Count ts;
} rec_t;

typedef struct log {
    rec_t r[MAXREC];
    int n;
    int bad;                          /* a query inside a callback failed */
} log_t;

/* user_data of a callback: the log and which event type it hears. */
typedef struct cbdata {
    log_t *log;
    int ev;
    int freed;                        /* free callbacks run with this as user data */
} cbdata_t;

static MPI_Aint disp[5]; /* element displacements, from MPI_T_event_get_info */
static int proto_index[16]; /* protocol value by name: filled from the enumeration */
enum { P_DIRECT, P_SLOT, P_MAIL, P_EAGER, P_RNDV };

static void on_event(MPI_T_event_instance e, MPI_T_event_registration reg, MPI_T_cb_safety s,
                     void *ud)
{
    cbdata_t *cd = ud;
    log_t *L = cd->log;
    (void)reg;
    if (L->n >= MAXREC) {
        L->bad++;
        return;
    }
    rec_t *r = &L->r[L->n];
    unsigned char copy[64];
    MPI_Count now;
    r->ev = cd->ev;
    r->level = (int)s;
    int rc = MPI_T_event_read(e, 0, &r->peer) | MPI_T_event_read(e, 1, &r->tag) |
             MPI_T_event_read(e, 2, &r->bytes) | MPI_T_event_read(e, 3, &r->ctx) |
             MPI_T_event_read(e, 4, &r->proto) | MPI_T_event_copy(e, copy) |
             MPI_T_event_get_timestamp(e, &r->ts) | MPI_T_event_get_source(e, &r->source) |
             MPI_T_source_get_timestamp(0, &now);
    if (rc != MPI_SUCCESS || now < r->ts)
        L->bad++;
    /* The copy holds the same elements at the announced displacements. */
    if (memcmp(copy + disp[0], &r->peer, sizeof(int)) ||
        memcmp(copy + disp[1], &r->tag, sizeof(int)) || memcmp(copy + disp[2], &r->bytes, 8) ||
        memcmp(copy + disp[3], &r->ctx, sizeof(unsigned)) ||
        memcmp(copy + disp[4], &r->proto, sizeof(int)))
        L->bad++;
    if (MPI_T_event_read(e, 5, copy) != MPI_T_ERR_INVALID_INDEX ||
        MPI_T_event_read(e, 0, NULL) != MPI_T_ERR_INVALID)
        L->bad++;
    L->n++;
}

static void on_dropped(MPI_Count count, MPI_T_event_registration reg, int source,
                       MPI_T_cb_safety s, void *ud)
{
    cbdata_t *cd = ud;
    log_t *L = cd->log;
    (void)reg;
    if (L->n >= MAXREC) {
        L->bad++;
        return;
    }
    L->r[L->n++] = (rec_t){ .ev = EV_DROPPED, .level = (int)s, .source = source,
                            .bytes = (unsigned long long)count };
}

static void on_free(MPI_T_event_registration reg, MPI_T_cb_safety s, void *ud)
{
    (void)reg;
    ((cbdata_t *)ud)->freed += s == MPI_T_CB_REQUIRE_NONE ? 1 : 100;
}

/* A callback that frees its own handle on its first call. */
static void free_self(MPI_T_event_instance e, MPI_T_event_registration reg, MPI_T_cb_safety s,
                      void *ud)
{
    cbdata_t *cd = ud;
    (void)e;
    (void)s;
    cd->log->n++;
    if (MPI_T_event_handle_free(reg, cd, on_free) != MPI_SUCCESS)
        cd->log->bad++;
}

/* Records of log L of event ev with tag `tag`: how many, and the last. */
static int find(const log_t *L, int ev, int tag, const rec_t **out)
{
    int n = 0;
    for (int i = 0; i < L->n; i++)
        if (L->r[i].ev == ev && L->r[i].tag == tag) {
            n++;
            *out = &L->r[i];
        }
    return n;
}

/* Exactly one record of (ev, tag) with this peer, bytes and level;
 * returns its protocol. */
static int expect(const log_t *L, int ev, int tag, int peer, unsigned long long bytes, int level)
{
    const rec_t *r = NULL;
    int n = find(L, ev, tag, &r);
    ZT_CHECK(n == 1, "event %s tag %d: %d records", ev_names[ev], tag, n);
    ZT_EQ(r->peer, peer, "event peer");
    ZT_CHECK(r->bytes == bytes, "event %s tag %d: %llu bytes, expected %llu", ev_names[ev], tag,
             r->bytes, bytes);
    ZT_EQ(r->level, level, "callback safety level of the raising context");
    ZT_EQ(r->source, 0, "event source");
    return r->proto;
}

/* The one source: the zmpi clock, ordered, in nanoseconds. */
static void enumerate_source(void)
{
    int n, len;
    char name[64], desc[512];
    MPI_T_source_order order;
    MPI_Count tps, maxt, t0, t1;
    ZT_OK(MPI_T_source_get_num(&n));
    ZT_EQ(n, 1, "sources");
    len = sizeof name;
    int dlen = sizeof desc;
    ZT_OK(MPI_T_source_get_info(0, name, &len, desc, &dlen, &order, &tps, &maxt, NULL));
    ZT_CHECK(strcmp(name, "zmpi_clock") == 0 && dlen > 10, "source name %s", name);
    ZT_EQ(order, MPI_T_SOURCE_ORDERED, "source ordering");
    ZT_CHECK(tps == 1000000000 && maxt > 0, "ticks per second %lld", (long long)tps);
    ZT_OK(MPI_T_source_get_timestamp(0, &t0));
    ZT_OK(MPI_T_source_get_timestamp(0, &t1));
    ZT_CHECK(t1 >= t0 && t0 > 0, "source timestamps %lld %lld", (long long)t0, (long long)t1);
}

/* The event types, their layout, enumeration and category. */
static void enumerate(void)
{
    int n, len, dlen;
    char name[64], desc[512];
    enumerate_source();
    ZT_OK(MPI_T_event_get_num(&n));
    ZT_EQ(n, NEV, "event types");
    for (int i = 0; i < NEV; i++) {
        int verb, bind, ne = 0, idx = -1;
        MPI_Datatype types[8];
        MPI_Aint d[8];
        MPI_T_enum en;
        len = sizeof name;
        dlen = sizeof desc;
        ZT_OK(MPI_T_event_get_info(i, NULL, NULL, NULL, NULL, NULL, &ne, NULL, NULL, NULL, NULL,
                                   NULL));
        ZT_EQ(ne, 5, "elements of an event (queried)");
        ne = 8;
        ZT_OK(MPI_T_event_get_info(i, name, &len, &verb, types, d, &ne, &en, NULL, desc, &dlen,
                                   &bind));
        ZT_EQ(ne, 5, "elements of an event");
        ZT_CHECK(strcmp(name, ev_names[i]) == 0 && dlen > 20, "event %d is %s", i, name);
        ZT_EQ(bind, MPI_T_BIND_MPI_COMM, "events are bound to communicators");
        ZT_CHECK(types[0] == MPI_INT && types[1] == MPI_INT && types[2] == MPI_UNSIGNED_LONG_LONG &&
                 types[4] == MPI_INT, "element types");
        ZT_CHECK(d[0] == 0 && d[1] > d[0] && d[2] > d[1] && d[3] > d[2] && d[4] > d[3],
                 "displacements ascend from 0");
        memcpy(disp, d, sizeof disp);
        ZT_OK(MPI_T_event_get_index(name, &idx));
        ZT_EQ(idx, i, "event index by name");
        int nitems;
        ZT_OK(MPI_T_enum_get_info(en, &nitems, NULL, NULL));
        for (int k = 0; k < nitems; k++) {
            int v, nl = sizeof name;
            ZT_OK(MPI_T_enum_get_item(en, k, &v, name, &nl));
            const char *want[] = { "direct", "slot", "mail", "eager", "rndv" };
            for (int p = 0; p < 5; p++)
                if (strcmp(name, want[p]) == 0)
                    proto_index[p] = v;
        }
    }
    /* One short entry: arrays truncated to the count given. */
    MPI_Datatype one[1];
    int ne = 1;
    ZT_OK(MPI_T_event_get_info(0, NULL, NULL, NULL, one, NULL, &ne, NULL, NULL, NULL, NULL, NULL));
    ZT_CHECK(ne == 5 && one[0] == MPI_INT, "truncated layout");
    int cat = -1, idx[8] = { -1, -1, -1 };
    ZT_OK(MPI_T_category_get_index("zmpi_p2p", &cat));
    ZT_OK(MPI_T_category_get_num_events(cat, &n));
    ZT_EQ(n, NEV, "events in zmpi_p2p");
    ZT_OK(MPI_T_category_get_events(cat, 8, idx));
    ZT_CHECK(idx[0] == 0 && idx[1] == 1 && idx[2] == 2, "category's events");
    ZT_OK(MPI_T_category_get_index("zmpi_job", &cat));
    ZT_OK(MPI_T_category_get_num_events(cat, &n));
    ZT_EQ(n, 0, "events in zmpi_job");
}

/* Errors of bad indices, names, handles and arguments. */
static void errors(void)
{
    MPI_T_event_registration reg;
    MPI_Comm null = MPI_COMM_NULL;
    int n;
    MPI_Count t;
    ZT_EQ(MPI_T_source_get_timestamp(1, &t), MPI_T_ERR_INVALID_INDEX, "source 1");
    ZT_EQ(MPI_T_source_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
          MPI_T_ERR_INVALID_INDEX, "source -1");
    ZT_EQ(MPI_T_event_get_info(NEV, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                               NULL), MPI_T_ERR_INVALID_INDEX, "event info past the end");
    ZT_EQ(MPI_T_event_get_index("no_such_event", &n), MPI_T_ERR_INVALID_NAME, "event name");
    ZT_EQ(MPI_T_event_get_num(NULL), MPI_T_ERR_INVALID, "event_get_num(NULL)");
    ZT_EQ(MPI_T_category_get_num_events(999, &n), MPI_T_ERR_INVALID_INDEX, "category 999");
    ZT_EQ(MPI_T_category_get_events(0, 2, NULL), MPI_T_ERR_INVALID, "get_events(NULL)");
    ZT_EQ(MPI_T_event_handle_alloc(-1, NULL, MPI_INFO_NULL, &reg), MPI_T_ERR_INVALID_INDEX,
          "alloc index -1");
    ZT_EQ(MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, &reg), MPI_T_ERR_INVALID_HANDLE,
          "alloc without an object");
    ZT_EQ(MPI_T_event_handle_alloc(0, &null, MPI_INFO_NULL, &reg), MPI_T_ERR_INVALID_HANDLE,
          "alloc on MPI_COMM_NULL");
    MPI_Comm world = MPI_COMM_WORLD;
    ZT_EQ(MPI_T_event_handle_alloc(0, &world, MPI_INFO_NULL, NULL), MPI_T_ERR_INVALID,
          "alloc into NULL");
    ZT_OK(MPI_T_event_handle_alloc(0, &world, MPI_INFO_NULL, &reg));
    ZT_EQ(MPI_T_event_register_callback(reg, (MPI_T_cb_safety)7, MPI_INFO_NULL, NULL, on_event),
          MPI_T_ERR_INVALID, "safety level 7");
    ZT_EQ(MPI_T_event_callback_set_info(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL),
          MPI_T_ERR_INVALID, "callback info of a level without callback");
    MPI_Info info;
    int nkeys = -1;
    ZT_OK(MPI_T_event_handle_get_info(reg, &info));
    ZT_OK(MPI_Info_get_nkeys(info, &nkeys));
    ZT_EQ(nkeys, 0, "hints of a handle");
    ZT_OK(MPI_T_event_handle_set_info(reg, info));
    ZT_OK(MPI_Info_free(&info));
    ZT_OK(MPI_T_event_handle_free(reg, NULL, NULL));
    ZT_EQ(MPI_T_event_handle_free(reg, NULL, NULL), MPI_T_ERR_INVALID_HANDLE, "double free");
    ZT_EQ(MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL,
                                        on_event), MPI_T_ERR_INVALID_HANDLE, "freed handle");
    ZT_EQ(MPI_T_event_set_dropped_handler(NULL, on_dropped), MPI_T_ERR_INVALID_HANDLE,
          "dropped handler on NULL");
    ZT_EQ(MPI_T_event_read(NULL, 0, &n), MPI_T_ERR_INVALID_HANDLE, "read without instance");
    ZT_EQ(MPI_T_event_copy(NULL, &n), MPI_T_ERR_INVALID_HANDLE, "copy without instance");
}

/* A handle on `comm` for event ev with callback at `level` into cd. */
static MPI_T_event_registration reg_on(MPI_Comm comm, int ev, int level, cbdata_t *cd)
{
    MPI_T_event_registration reg;
    ZT_OK(MPI_T_event_handle_alloc(ev, &comm, MPI_INFO_NULL, &reg));
    ZT_OK(MPI_T_event_register_callback(reg, (MPI_T_cb_safety)level, MPI_INFO_NULL, cd,
                                        on_event));
    return reg;
}

/* Messages sent before their receives: unexpected arrivals, matches taken
 * by the receiver, and a rendezvous start. */
static void unexpected_round(log_t *L, int partner, int other_level, char *big)
{
    char small[3][8] = { "a", "b", "c" };
    MPI_Request rq[4];
    for (int i = 0; i < 3; i++)
        MPI_Isend(small[i], 8, MPI_CHAR, partner, 10 + i, MPI_COMM_WORLD, &rq[i]);
    MPI_Isend(big, BIG, MPI_CHAR, partner, 20, MPI_COMM_WORLD, &rq[3]);
    MPI_Barrier(MPI_COMM_WORLD);
    char in[8], *bin = malloc(BIG);
    for (int i = 0; i < 3; i++)
        MPI_Recv(in, 8, MPI_CHAR, partner, 10 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(bin, BIG, MPI_CHAR, partner, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    free(bin);
    for (int i = 0; i < 3; i++) {
        int p = expect(L, EV_UNEXP, 10 + i, partner, 8, other_level);
        ZT_CHECK(p == proto_index[P_MAIL] || p == proto_index[P_EAGER], "small: protocol %d", p);
        int q = expect(L, EV_MATCH, 10 + i, partner, 8, MPI_T_CB_REQUIRE_MPI_RESTRICTED);
        ZT_EQ(q, p, "matched with the protocol it arrived by");
    }
    ZT_EQ(expect(L, EV_UNEXP, 20, partner, BIG, other_level), proto_index[P_RNDV], "big: rndv");
    ZT_EQ(expect(L, EV_MATCH, 20, partner, BIG, MPI_T_CB_REQUIRE_MPI_RESTRICTED),
          proto_index[P_RNDV], "big matched: rndv");
    ZT_EQ(expect(L, EV_RNDV, 20, partner, BIG, MPI_T_CB_REQUIRE_MPI_RESTRICTED),
          proto_index[P_RNDV], "rendezvous start");
}

/* Receives posted before their sends: the sender matches them. */
static void posted_round(MPI_Comm comm, int partner, int tag0, char *big)
{
    char in[8], small[8] = "x", *bin = malloc(BIG);
    MPI_Request rq[2];
    MPI_Irecv(in, 8, MPI_CHAR, partner, tag0, comm, &rq[0]);
    MPI_Irecv(bin, BIG, MPI_CHAR, partner, tag0 + 1, comm, &rq[1]);
    MPI_Barrier(comm);
    MPI_Send(small, 8, MPI_CHAR, partner, tag0, comm);
    MPI_Send(big, BIG, MPI_CHAR, partner, tag0 + 1, comm);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    MPI_Barrier(comm);
    free(bin);
}

/* Timestamps of one rank's callbacks never go back. */
static void monotone(const log_t *L)
{
    MPI_Count last = 0;
    for (int i = 0; i < L->n; i++) {
        if (L->r[i].ev == EV_DROPPED)
            continue;
        ZT_CHECK(L->r[i].ts >= last, "timestamp %d went back", i);
        last = L->r[i].ts;
    }
    ZT_EQ(L->bad, 0, "queries inside callbacks");
}

/* Events a callback's level cannot take are dropped, and the dropped
 * handler reports them before the next event it can take. */
static void dropped(int partner, char *big, int alone)
{
    log_t *L2p = calloc(1, sizeof *L2p), L2 = { .n = 0 };
    cbdata_t cd2 = { L2p, EV_MATCH, 0 };
    MPI_T_event_registration reg = reg_on(MPI_COMM_WORLD, EV_MATCH,
                                          MPI_T_CB_REQUIRE_MPI_RESTRICTED, &cd2);
    ZT_OK(MPI_T_event_set_dropped_handler(reg, on_dropped));
    MPI_Barrier(MPI_COMM_WORLD);
    posted_round(MPI_COMM_WORLD, partner, 50, big); /* matched by the sender */
    char small[8] = "y", in[8];
    MPI_Request rq;
    MPI_Isend(small, 8, MPI_CHAR, partner, 52, MPI_COMM_WORLD, &rq);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Recv(in, 8, MPI_CHAR, partner, 52, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    const rec_t *r;
    L2 = *L2p;
    if (alone) {
        /* Every event of a rank sending to itself is raised in its own
         * thread: nothing is dropped. */
        ZT_EQ(find(&L2, EV_DROPPED, 0, &r), 0, "no drops sending to itself");
        ZT_EQ(find(&L2, EV_MATCH, 50, &r), 1, "tag 50 heard");
    } else {
        ZT_EQ(L2.n, 2, "records of the restricted-level handle");
        ZT_EQ(L2.r[0].ev, EV_DROPPED, "dropped handler first");
        ZT_CHECK(L2.r[0].bytes == 2, "dropped count %llu", L2.r[0].bytes);
        ZT_EQ(L2.r[0].level, MPI_T_CB_REQUIRE_MPI_RESTRICTED, "dropped handler's level");
        ZT_EQ(L2.r[1].ev, EV_MATCH, "then the event");
        ZT_EQ(L2.r[1].tag, 52, "the event's tag");
    }
    ZT_OK(MPI_T_event_handle_free(reg, NULL, NULL));
    monotone(&L2);
    free(L2p);
}

/* A handle freed by its own callback hears no more, and its free
 * callback runs once that callback has returned, at its level. */
static void free_in_callback(int partner)
{
    log_t *L4 = calloc(1, sizeof *L4);
    cbdata_t cd4 = { L4, EV_MATCH, 0 };
    MPI_T_event_registration reg4;
    MPI_Comm world = MPI_COMM_WORLD;
    ZT_OK(MPI_T_event_handle_alloc(EV_MATCH, &world, MPI_INFO_NULL, &reg4));
    ZT_OK(MPI_T_event_register_callback(reg4, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &cd4,
                                        free_self));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Request r2[2];
    char s2[2][8] = { "p", "q" }, in2[8];
    MPI_Isend(s2[0], 8, MPI_CHAR, partner, 80, MPI_COMM_WORLD, &r2[0]);
    MPI_Isend(s2[1], 8, MPI_CHAR, partner, 81, MPI_COMM_WORLD, &r2[1]);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Recv(in2, 8, MPI_CHAR, partner, 80, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(in2, 8, MPI_CHAR, partner, 81, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Waitall(2, r2, MPI_STATUSES_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    ZT_EQ(L4->n, 1, "calls of a callback that freed its handle");
    ZT_EQ(L4->bad, 0, "handle_free inside a callback");
    ZT_EQ(cd4.freed, 100, "free callback after the callback, at the raise's level");
    free(L4);
}

static void events(int rank, int partner)
{
    log_t *Lp = calloc(2, sizeof *Lp);
    log_t *const L_ = Lp, *const L3_ = Lp + 1;
#define L (*L_)
#define L3 (*L3_)
    cbdata_t cd[NEV], cd3;
    int alone = partner == rank;
    int other = alone ? MPI_T_CB_REQUIRE_MPI_RESTRICTED : MPI_T_CB_REQUIRE_THREAD_SAFE;
    char *big = malloc(BIG);
    memset(big, 7, BIG);
    MPI_T_event_registration reg[NEV];
    for (int i = 0; i < NEV; i++) {
        cd[i] = (cbdata_t){ &L, i, 0 };
        reg[i] = reg_on(MPI_COMM_WORLD, i, MPI_T_CB_REQUIRE_THREAD_SAFE, &cd[i]);
    }
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    cd3 = (cbdata_t){ &L3, EV_MATCH, 0 };
    MPI_T_event_registration reg3 = reg_on(dup, EV_MATCH, MPI_T_CB_REQUIRE_THREAD_SAFE, &cd3);
    /* Every rank listens before anyone sends. */
    MPI_Barrier(MPI_COMM_WORLD);

    unexpected_round(&L, partner, other, big);
    posted_round(MPI_COMM_WORLD, partner, 30, big);
    ZT_EQ(expect(&L, EV_MATCH, 30, partner, 8, other), proto_index[P_DIRECT], "posted: direct");
    ZT_EQ(expect(&L, EV_MATCH, 31, partner, BIG, other), proto_index[P_DIRECT], "posted big");
    ZT_EQ(L3.n, 0, "a handle on a duplicate hears nothing of MPI_COMM_WORLD");
    posted_round(dup, partner, 60, big);
    ZT_EQ(L3.n, 2, "the duplicate's handle hears its receives");
    ZT_CHECK(L3.r[0].ctx != L.r[0].ctx, "contexts of world and duplicate differ");

    /* A freed handle hears nothing more; its free callback runs once. */
    int before = find(&L, EV_UNEXP, 10, &(const rec_t *){ NULL });
    /* No event of this rank is being raised now (the last round ended
     * with a barrier), so the free callback runs at once, at level NONE:
     * had a sender been raising one, it would run when that raise ends. */
    ZT_OK(MPI_T_event_handle_free(reg[EV_UNEXP], &cd[EV_UNEXP], on_free));
    ZT_EQ(cd[EV_UNEXP].freed, 1, "free callback, with its user data, at level NONE");
    MPI_Barrier(MPI_COMM_WORLD);
    int n0 = L.n;
    char s[8] = "z", in[8];
    MPI_Request rq;
    MPI_Isend(s, 8, MPI_CHAR, partner, 10, MPI_COMM_WORLD, &rq);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Recv(in, 8, MPI_CHAR, partner, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    ZT_EQ(find(&L, EV_UNEXP, 10, &(const rec_t *){ NULL }), before, "freed: no new events");
    ZT_EQ(L.n, n0 + 1, "only the match of the last message");
    monotone(&L);
    dropped(partner, big, alone);

    free_in_callback(partner);

    /* With every handle freed the hook is off: nothing is recorded. */
    ZT_OK(MPI_T_event_handle_free(reg[EV_MATCH], NULL, NULL));
    ZT_OK(MPI_T_event_handle_free(reg[EV_RNDV], NULL, NULL));
    ZT_OK(MPI_T_event_handle_free(reg3, NULL, NULL));
    n0 = L.n;
    posted_round(MPI_COMM_WORLD, partner, 70, big);
    ZT_EQ(L.n, n0, "no events after every handle is freed");
    MPI_Comm_free(&dup);
    free(big);
    free(Lp);
#undef L
#undef L3
}

int main(int argc, char **argv)
{
    int provided, rank, size, n;
    ZT_EQ(MPI_T_event_get_num(&n), MPI_T_ERR_NOT_INITIALIZED, "before MPI_T_init_thread");
    ZT_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    enumerate();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int partner = (rank ^ 1) < size ? rank ^ 1 : rank;
    errors();
    MPI_Info info;
    ZT_OK(MPI_T_event_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &info, NULL, NULL,
                               NULL));
    ZT_OK(MPI_Info_free(&info));
    events(rank, partner);
    ZT_OK(MPI_T_finalize());
    MPI_Finalize();
    if (rank == 0)
        printf("mpit_events: %d ranks: OK\n", size);
    return 0;
}
