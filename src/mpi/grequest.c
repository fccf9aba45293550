/*
 * grequest.c: generalized requests (MPI 4.1 section 13.2).
 *
 * A generalized request is a composite request (sched.c) with one child
 * of kind ZM_REQ_DONE_ONLY, which MPI_Grequest_complete completes with
 * zm_p2p_req_complete.  Every wait path then works unchanged: a rank
 * waiting for it parks on the child until whoever completes it (another
 * rank, under zmpi) wakes it.  The query function is the schedule's
 * finishing step, run by the owner when it first sees the child complete
 * (in a wait, a test or MPI_Request_get_status).  The free function runs
 * in the wait or test that completes and frees the request, after the
 * query function (MPI 4.1 section 13.2), so that an error it returns is
 * that call's error (the before_free hook); a request freed by
 * MPI_Request_free runs it when the schedule is freed.
 *
 * MPI_Request_free may come before MPI_Grequest_complete: the request is
 * then freed by MPI_Grequest_complete.  Both set a bit in `state`; the one
 * that sets the second bit frees, so neither order nor a race between two
 * ranks can free twice or never.
 */
#include "mpi_impl.h"

#include <stdlib.h>

enum { GR_COMPLETED = 1, GR_FREED = 2 };

struct grequest {
    MPI_Grequest_query_function *query;   /* fills the status */
    MPI_Grequest_free_function *free_fn;  /* releases the user's state */
    MPI_Grequest_cancel_function *cancel; /* MPI_Cancel */
    void *extra;                          /* the user's state */
    zm_req_t *kid;                        /* completed by MPI_Grequest_complete */
    zm_mpi_sched_t *sched;                /* the request */
    _Atomic int state;                    /* GR_COMPLETED | GR_FREED */
    int free_done;                        /* free_fn was called */
};

/* Finishing step: ask the query function for the status.  Its error goes
 * into the status and so becomes the request's error. */
static int gr_query(zm_mpi_sched_t *s, void *arg)
{
    struct grequest *g = arg;
    MPI_Status st = { MPI_UNDEFINED, MPI_UNDEFINED, MPI_SUCCESS, 0, 0 };
    int rc = g->query ? g->query(g->extra, &st) : MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        st.MPI_ERROR = rc;
    zm_mpi_sched_set_status(s, &st);
    return MPI_SUCCESS;
}

static int gr_cancel(zm_mpi_sched_t *s, void *arg)
{
    (void)s;
    struct grequest *g = arg;
    int complete = (atomic_load(&g->state) & GR_COMPLETED) != 0;
    return g->cancel ? g->cancel(g->extra, complete) : MPI_SUCCESS;
}

/* MPI_Request_free before completion: MPI_Grequest_complete frees it. */
static int gr_free_active(zm_mpi_sched_t *s, void *arg)
{
    struct grequest *g = arg;
    if (atomic_fetch_or(&g->state, GR_FREED) & GR_COMPLETED)
        zm_mpi_sched_free(s); /* completed meanwhile: ours to free */
    return MPI_SUCCESS;
}

/* Call the free function once; returns its error code.  MPI_Grequest_
 * complete completes the child, then marks the state: a waiter woken by
 * the first must not free before the second. */
static int gr_call_free(zm_mpi_sched_t *s, void *arg)
{
    (void)s;
    struct grequest *g = arg;
    while (!(atomic_load(&g->state) & GR_COMPLETED))
        zm_ult_yield();
    if (g->free_done || !g->free_fn)
        return MPI_SUCCESS;
    g->free_done = 1;
    return g->free_fn(g->extra);
}

static void gr_release(zm_mpi_sched_t *s, void *arg)
{
    gr_call_free(s, arg);
    free(arg);
}

static const zm_mpi_sched_hooks_t gr_hooks = { NULL, gr_cancel, gr_free_active, gr_release,
                                               gr_call_free };

int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn,
                        MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                        MPI_Request *request)
{
    const char *fn = "MPI_Grequest_start";
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    if (!request)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(request=NULL): no place for the request");
    struct grequest *g = calloc(1, sizeof(*g));
    zm_mpi_sched_t *s = g ? zm_mpi_sched_new(&me->self, MPI_COMM_SELF, 1, 0) : NULL;
    if (s)
        zm_mpi_sched_own(s, me); /* no messages, no collective state */
    if (!s || zm_mpi_sched_child(s, &g->kid) != MPI_SUCCESS) {
        if (s)
            zm_mpi_sched_free(s);
        free(g);
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory for the request");
    }
    *g = (struct grequest){ query_fn, free_fn, cancel_fn, extra_state, g->kid, s, 0, 0 };
    zm_mpi_sched_finish_with(s, gr_query, g);
    zm_mpi_sched_set_hooks(s, &gr_hooks, g);
    /* Arm the child before the request becomes visible: from now on only
     * MPI_Grequest_complete completes it. */
    zm_p2p_req_reset(g->kid, ZM_REQ_DONE_ONLY);
    g->kid->st_source = MPI_ANY_SOURCE;
    g->kid->st_tag = MPI_ANY_TAG;
    g->kid->st_bytes = 0;
    zm_mpi_sched_start(s);
    *request = zm_mpi_sched_request(s, 0);
    return MPI_SUCCESS;
}
ZM_WEAK(Grequest_start)

/* The generalized request behind handle r, or NULL. */
static struct grequest *gr_of(MPI_Request r)
{
    return r == MPI_REQUEST_NULL ? NULL : zm_mpi_sched_hooks_arg(r, &gr_hooks);
}

int PMPI_Grequest_complete(MPI_Request request)
{
    const char *fn = "MPI_Grequest_complete";
    zm_mpi_enter(fn);
    struct grequest *g = gr_of(request);
    if (!g)
        return zm_mpi_error(NULL, MPI_ERR_REQUEST, fn, "(request): not a generalized request");
    if (atomic_load(&g->state) & GR_COMPLETED)
        return zm_mpi_error(NULL, MPI_ERR_REQUEST, fn, "(request): already completed");
    zm_p2p_req_complete(g->kid);
    /* Freed by MPI_Request_free already: nobody waits, free it here. */
    if (atomic_fetch_or(&g->state, GR_COMPLETED) & GR_FREED)
        zm_mpi_sched_free(g->sched);
    return MPI_SUCCESS;
}
ZM_WEAK(Grequest_complete)
