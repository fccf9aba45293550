/*
 * req_grequest.c: generalized requests.  The query function is called when
 * a wait, a test or MPI_Request_get_status needs the status, and what it
 * sets (source, tag, elements, cancelled, error) is what they report; the
 * free function when the request is freed (by the wait or test that
 * completes it, or by MPI_Grequest_complete after an early
 * MPI_Request_free); the cancel function on MPI_Cancel, told whether the
 * request is complete.  Across ranks (zmpi's ranks share one address
 * space, so a handle may travel in a message): a rank parks in MPI_Wait
 * until another rank calls MPI_Grequest_complete.
 */
#include "zt.h"

struct state {
    int queries, frees, cancels, last_complete;
    int source, tag, elements, error, cancelled;
};

static int query_fn(void *extra, MPI_Status *st)
{
    struct state *s = extra;
    s->queries++;
    MPI_Status_set_source(st, s->source);
    MPI_Status_set_tag(st, s->tag);
    MPI_Status_set_elements(st, MPI_INT, s->elements);
    MPI_Status_set_cancelled(st, s->cancelled);
    return s->error;
}

static int free_fn(void *extra)
{
    ((struct state *)extra)->frees++;
    return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
    struct state *s = extra;
    s->cancels++;
    s->last_complete = complete;
    s->cancelled = 1;
    return MPI_SUCCESS;
}

static struct state state_of(int source, int tag, int elements)
{
    struct state s = { 0, 0, 0, -1, source, tag, elements, MPI_SUCCESS, 0 };
    return s;
}

/* Completed by the same rank: Test before and after, get_status, Wait. */
static void local(void)
{
    struct state s = state_of(3, 44, 5);
    MPI_Request r;
    MPI_Status st;
    int flag = -1, n = -1;
    ZT_OK(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &r));
    ZT_OK(MPI_Test(&r, &flag, &st));
    ZT_EQ(flag, 0, "incomplete generalized request");
    ZT_EQ(s.queries, 0, "no query before completion");
    ZT_OK(MPI_Grequest_complete(r));
    ZT_OK(MPI_Request_get_status(r, &flag, &st));
    ZT_EQ(flag, 1, "complete after Grequest_complete");
    ZT_EQ(st.MPI_TAG, 44, "tag from get_status");
    ZT_EQ(s.frees, 0, "get_status frees nothing");
    ZT_OK(MPI_Wait(&r, &st));
    ZT_CHECK(r == MPI_REQUEST_NULL, "Wait did not free");
    ZT_CHECK(s.queries >= 1, "query called");
    ZT_EQ(s.frees, 1, "free called once");
    ZT_EQ(st.MPI_SOURCE, 3, "source set by query");
    ZT_EQ(st.MPI_TAG, 44, "tag set by query");
    ZT_OK(MPI_Get_count(&st, MPI_INT, &n));
    ZT_EQ(n, 5, "elements set by query");
}

/* The query function's error reaches the status and the return code. */
static void query_error(void)
{
    struct state s = state_of(0, 1, 0), t = state_of(0, 2, 0);
    s.error = MPI_ERR_OTHER;
    MPI_Request r[2];
    MPI_Status st[2];
    ZT_OK(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &r[0]));
    ZT_OK(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &t, &r[1]));
    ZT_OK(MPI_Grequest_complete(r[0]));
    ZT_OK(MPI_Grequest_complete(r[1]));
    int rc = MPI_Waitall(2, r, st), cls = -1;
    MPI_Error_class(rc, &cls);
    ZT_EQ(cls, MPI_ERR_IN_STATUS, "Waitall with a failing query");
    ZT_EQ(st[0].MPI_ERROR, MPI_ERR_OTHER, "the query's error in the status");
    ZT_EQ(st[1].MPI_ERROR, MPI_SUCCESS, "the other status");
    ZT_EQ(s.frees + t.frees, 2, "both freed");

    struct state u = state_of(0, 1, 0);
    u.error = MPI_ERR_OTHER;
    MPI_Request q;
    ZT_OK(MPI_Grequest_start(query_fn, free_fn, NULL, &u, &q));
    ZT_OK(MPI_Grequest_complete(q));
    rc = MPI_Wait(&q, &st[0]);
    MPI_Error_class(rc, &cls);
    ZT_EQ(cls, MPI_ERR_OTHER, "Wait returns the query's error");

    /* The failing request last: the statuses before it get MPI_SUCCESS too. */
    struct state v = state_of(0, 1, 0), w = state_of(0, 2, 0);
    w.error = MPI_ERR_OTHER;
    ZT_OK(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &v, &r[0]));
    ZT_OK(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &w, &r[1]));
    ZT_OK(MPI_Grequest_complete(r[0]));
    ZT_OK(MPI_Grequest_complete(r[1]));
    st[0].MPI_ERROR = st[1].MPI_ERROR = 123;
    rc = MPI_Waitall(2, r, st);
    MPI_Error_class(rc, &cls);
    ZT_EQ(cls, MPI_ERR_IN_STATUS, "Waitall with the failing query last");
    ZT_EQ(st[0].MPI_ERROR, MPI_SUCCESS, "the earlier status");
    ZT_EQ(st[1].MPI_ERROR, MPI_ERR_OTHER, "the query's error in the last status");
}

/* Freed before completion: the free function runs at completion. */
static void early_free(void)
{
    struct state s = state_of(0, 0, 0);
    MPI_Request r, keep;
    ZT_OK(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &r));
    keep = r;
    ZT_OK(MPI_Request_free(&r));
    ZT_CHECK(r == MPI_REQUEST_NULL, "Request_free did not null the handle");
    ZT_EQ(s.frees, 0, "not freed before completion");
    ZT_OK(MPI_Grequest_complete(keep));
    ZT_EQ(s.frees, 1, "freed at completion");
    ZT_EQ(s.queries, 0, "nobody needed the status");
}

/* Cancel before and after completion. */
static void cancel(void)
{
    struct state s = state_of(0, 0, 0);
    MPI_Request r;
    MPI_Status st;
    int flag = -1;
    ZT_OK(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &r));
    ZT_OK(MPI_Cancel(&r));
    ZT_EQ(s.cancels, 1, "cancel called");
    ZT_EQ(s.last_complete, 0, "not complete at cancel");
    ZT_OK(MPI_Grequest_complete(r));
    ZT_OK(MPI_Cancel(&r));
    ZT_EQ(s.last_complete, 1, "complete at the second cancel");
    ZT_OK(MPI_Wait(&r, &st));
    ZT_OK(MPI_Test_cancelled(&st, &flag));
    ZT_EQ(flag, 1, "cancelled, as the query said");
}

/* Rank 2k starts requests that rank 2k+1 completes; Waitany and Wait park
 * until then.  Odd rank out (or a single rank) completes its own. */
static void cross_rank(int rank, int size)
{
    struct state s[2] = { state_of(rank, 1, 1), state_of(rank, 2, 2) };
    MPI_Request r[3];
    int partner = rank ^ 1, token = -1;
    if (partner >= size) {
        ZT_OK(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s[0], &r[0]));
        ZT_OK(MPI_Grequest_complete(r[0]));
        ZT_OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
        return;
    }
    if (rank % 2 == 0) {
        for (int i = 0; i < 2; i++)
            ZT_OK(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s[i], &r[i]));
        ZT_OK(MPI_Send(r, (int)(2 * sizeof(MPI_Request)), MPI_BYTE, partner, 5,
                       MPI_COMM_WORLD));
        ZT_OK(MPI_Irecv(&token, 1, MPI_INT, partner, 6, MPI_COMM_WORLD, &r[2]));
        int idx = -1;
        MPI_Status st;
        ZT_OK(MPI_Waitany(2, r, &idx, &st));
        ZT_CHECK(idx == 0 || idx == 1, "Waitany index %d", idx);
        ZT_EQ(st.MPI_TAG, idx + 1, "its tag");
        ZT_OK(MPI_Wait(&r[1 - idx], &st));
        ZT_EQ(st.MPI_TAG, 2 - idx, "the other request's tag");
        ZT_OK(MPI_Wait(&r[2], MPI_STATUS_IGNORE));
        ZT_EQ(token, 42, "token");
        ZT_EQ(s[0].frees + s[1].frees, 2, "both freed");
    } else {
        MPI_Request theirs[2];
        ZT_OK(MPI_Recv(theirs, (int)(2 * sizeof(MPI_Request)), MPI_BYTE, partner, 5,
                       MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        ZT_OK(MPI_Grequest_complete(theirs[1]));
        ZT_OK(MPI_Grequest_complete(theirs[0]));
        token = 42;
        ZT_OK(MPI_Send(&token, 1, MPI_INT, partner, 6, MPI_COMM_WORLD));
    }
}

static void bad_args(void)
{
    int cls = -1, x = 0;
    int rc = MPI_Grequest_start(query_fn, free_fn, cancel_fn, NULL, NULL);
    MPI_Error_class(rc, &cls);
    ZT_EQ(cls, MPI_ERR_ARG, "NULL request");
    MPI_Request r;
    ZT_OK(MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r));
    rc = MPI_Grequest_complete(r);
    MPI_Error_class(rc, &cls);
    ZT_EQ(cls, MPI_ERR_REQUEST, "not a generalized request");
    ZT_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    struct state s = state_of(0, 0, 0);
    ZT_OK(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &r));
    ZT_OK(MPI_Grequest_complete(r));
    rc = MPI_Grequest_complete(r);
    MPI_Error_class(rc, &cls);
    ZT_EQ(cls, MPI_ERR_REQUEST, "completed twice");
    ZT_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
}

int main(int argc, char **argv)
{
    int rank, size;
    zt_init_errors_return(&argc, &argv, &rank, &size);
    for (int i = 0; i < 3; i++) {
        local();
        query_error();
        early_free();
        cancel();
        cross_rank(rank, size);
    }
    bad_args();
    ZT_OK(MPI_Finalize());
    if (rank == 0)
        printf("req_grequest: OK on %d ranks\n", size);
    return 0;
}
