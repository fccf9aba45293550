/*
 * request.c: waiting, testing, persistent requests, cancel and status
 * queries.
 */
#include "bind_hooks.h"
#include "large.h"

#include <stdlib.h>

zm_msg_t zmpi_message_no_proc;

/* Status of a null or inactive request: the empty status of MPI 4.1
 * section 3.7.3, whose error field is MPI_SUCCESS. */
static void status_empty(MPI_Status *st)
{
    if (st == MPI_STATUS_IGNORE || !st)
        return;
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    st->MPI_ERROR = MPI_SUCCESS;
    st->zmpi_cancelled = 0;
    st->zmpi_bytes = 0;
}

/* A request that can still complete: not null, not an inactive
 * persistent one. */
static inline zm_req_t *req_live(MPI_Request r)
{
    return r && (!r->persistent || r->active) ? r : NULL;
}

static inline int req_valid(MPI_Request r)
{
    return r == MPI_REQUEST_NULL ||
           (r->kind >= ZM_REQ_SEND && r->kind <= ZM_REQ_DONE_ONLY) || r->kind == ZM_REQ_SCHED;
}

/* Nonzero once a live request is complete.  A composite request
 * (sched.c) completes when its owner sees its children complete. */
static inline int req_done(zm_req_t *r)
{
    if (ZM_UNLIKELY(r->kind == ZM_REQ_SCHED))
        return zm_mpi_sched_poll(r);
    return zm_p2p_req_done(r);
}

/* Block until any of `live` (NULL entries skipped) is complete. */
static void wait_any(zm_req_t *const *live, int count)
{
    for (int i = 0; i < count; i++)
        if (live[i] && live[i]->kind == ZM_REQ_SCHED) {
            zm_mpi_sched_wait_any(live, count);
            return;
        }
    zm_p2p_wait(live, count, 0);
}

/* Fill `st` from a completed request: a generalized request reports the
 * error code its query function set. */
static void req_status(MPI_Status *st, zm_req_t *r)
{
    zm_mpi_status_set(st, r);
    if (r->kind == ZM_REQ_SCHED && st != MPI_STATUS_IGNORE && st &&
        zm_mpi_sched_user_error(r) != MPI_SUCCESS)
        st->MPI_ERROR = zm_mpi_sched_user_error(r);
}

/* A completed request this call is about to free: a generalized
 * request's free function runs now, before its error is looked at, so
 * that an error it returns is this call's (MPI 4.1 section 13.2). */
static inline void req_before_free(zm_req_t *r)
{
    if (ZM_UNLIKELY(r->kind == ZM_REQ_SCHED) && !r->persistent)
        zm_mpi_sched_before_free(r);
}

/* Wrap up a completed request: fill the status, free or deactivate it.
 * Returns the request's MPI error class without raising it. */
static inline int req_finish(MPI_Request *handle, MPI_Status *st)
{
    zm_req_t *r = *handle;
    int cls = ZM_LIKELY(r->st_error == ZM_OK) ? MPI_SUCCESS : zm_mpi_class_of(r->st_error);
    /* Statuses the caller ignores are the rule in message-rate loops:
     * no call for them. */
    if (st != MPI_STATUS_IGNORE && st)
        req_status(st, r);
    /* A binding's copy of an array section is written back before the
     * completing call returns (bind_hooks.h). */
    if (ZM_UNLIKELY(atomic_load_explicit(&zm_mpi_hooks_n, memory_order_relaxed)))
        zm_mpi_hook_finish(r);
    if (r->persistent) {
        r->active = 0;
    } else {
        if (r->kind == ZM_REQ_SCHED)
            zm_mpi_sched_release(r);
        else
            zm_p2p_req_release(r);
        *handle = MPI_REQUEST_NULL;
    }
    return cls;
}

/* Report the error of a completed request through its handler, before
 * finishing it (the message needs its fields). */
static int req_raise(zm_req_t *r, const char *fn)
{
    int code = r->kind == ZM_REQ_SCHED ? zm_mpi_sched_user_error(r) : MPI_SUCCESS;
    if (code != MPI_SUCCESS)
        return zm_mpi_error(zm_mpi_comm(zm_mpi_me(), r->comm), code, fn,
                            "the generalized request's query or free function reported "
                            "error code %d", code);
    return zm_mpi_req_error(r, fn);
}

static int check_reqs(const char *fn, int count, MPI_Request reqs[])
{
    if (count < 0)
        return zm_mpi_error(NULL, MPI_ERR_COUNT, fn, "invalid count %d", count);
    if (count > 0 && !reqs)
        return zm_mpi_error(NULL, MPI_ERR_REQUEST, fn, "array of requests is NULL");
    for (int i = 0; i < count; i++)
        if (!req_valid(reqs[i]))
            return zm_mpi_error(NULL, MPI_ERR_REQUEST, fn, "request %d is not a valid request", i);
    return MPI_SUCCESS;
}

/* MPI_Wait's body, inlined into it and into the bindings' entry. */
static inline __attribute__((always_inline)) int wait_body(MPI_Request *request,
                                                           MPI_Status *status)
{
    const char *fn = "MPI_Wait";
    zm_mpi_enter(fn);
    if (!request || !req_valid(*request))
        return zm_mpi_error(NULL, MPI_ERR_REQUEST, fn, "invalid request");
    zm_req_t *r = req_live(*request);
    if (!r) {
        status_empty(status);
        return MPI_SUCCESS;
    }
    if (!req_done(r)) {
        zm_p2p_waiter()->wait_call = fn;
        if (r->kind == ZM_REQ_SCHED)
            zm_mpi_sched_wait(r);
        else
            zm_p2p_wait(&r, 1, 1);
    }
    req_before_free(r);
    int rc = r->st_error == ZM_OK ? MPI_SUCCESS : req_raise(r, fn);
    req_finish(request, status);
    return rc;
}

int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    return wait_body(request, status);
}
ZM_WEAK(Wait)

/* MPI_Wait on a Fortran request for the bindings (bind_hooks.h): the
 * glue's conversions, with MPI_Wait's body inlined.  A status keeps its
 * MPI_ERROR, as a call completing one request leaves it in Fortran
 * (MPI 4.1 section 3.2.5).  The calling rank's thread; the caller owns
 * request, status and ierror. */
int zmpi_bind_wait(MPI_Fint *request, MPI_Status *status, MPI_Fint *ierror)
{
    MPI_Request r = zm_mpi_request_f2c(*request), r0 = r;
    int keep = status != MPI_STATUS_IGNORE ? status->MPI_ERROR : 0;
    int rc = wait_body(&r, status);
    if (r != r0)
        *request = r == MPI_REQUEST_NULL ? 0 : zm_mpi_request_c2f(r);
    if (status != MPI_STATUS_IGNORE)
        status->MPI_ERROR = keep;
    if (ierror)
        *ierror = rc;
    return rc;
}

/* The MPI_ERROR field of a status a multiple-completion call returns:
 * written only once one of its requests failed (`any` nonzero; the
 * statuses before it are set by errors_begin), then for every status it
 * returns (MPI 4.1 section 3.2.5). */
static void status_error(MPI_Status *st, int any, zm_req_t *r)
{
    if (!any || st == MPI_STATUS_IGNORE || !st)
        return;
    /* A generalized request's code, set by its query function, stays. */
    if (r && r->kind == ZM_REQ_SCHED && zm_mpi_sched_user_error(r) != MPI_SUCCESS)
        return;
    st->MPI_ERROR = r ? zm_mpi_class_of(r->st_error) : MPI_SUCCESS;
}

/* Nonzero if the completed request r reports an error in its status. */
static int req_failed(zm_req_t *r)
{
    return r->st_error != ZM_OK ||
           (r->kind == ZM_REQ_SCHED && zm_mpi_sched_user_error(r) != MPI_SUCCESS);
}

/* The first failed request of a multiple-completion call: the `n`
 * statuses it already returned are of operations that succeeded, and from
 * now on every status carries its error field.  Called once per call, only
 * on failure, so a call whose requests all succeed makes one pass. */
static void errors_begin(MPI_Status sts[], int n)
{
    if (sts == MPI_STATUSES_IGNORE || !sts)
        return;
    for (int i = 0; i < n; i++)
        sts[i].MPI_ERROR = MPI_SUCCESS;
}

/* zm_mpi_status_set inlined, for finish_all's common case. */
static inline void status_fill(MPI_Status *st, const zm_req_t *r)
{
    if (st == MPI_STATUS_IGNORE)
        return;
    st->zmpi_cancelled = r->cancelled;
    /* A send's other fields keep what the caller had there (errors.c). */
    if (r->kind == ZM_REQ_RECV) {
        st->MPI_SOURCE = r->st_source;
        st->MPI_TAG = r->st_tag;
        st->zmpi_bytes = (MPI_Count)r->st_bytes;
    }
}

/* Finish every completed request of an array; returns MPI_ERR_IN_STATUS
 * (raised) if any failed. */
static int finish_all(const char *fn, int count, MPI_Request reqs[], MPI_Status sts[])
{
    int failed = -1, any = 0;
    /* A binding's hooks (bind_hooks.h) need the full path. */
    int plain = !atomic_load_explicit(&zm_mpi_hooks_n, memory_order_relaxed);
    /* The worker's request cache, looked up once, and again after the full
     * path, whose error handler may switch to other ranks and resume this
     * one on another worker. */
    zm_p2p_req_cache_t *rc = zm_p2p_req_cache_here();
    for (int i = 0; i < count; i++) {
        zm_req_t *r = reqs[i];
        MPI_Status *st = sts == MPI_STATUSES_IGNORE || !sts ? MPI_STATUS_IGNORE : &sts[i];
        /* The message-rate case: a send or receive that succeeded, not
         * persistent, and no failure so far (so no MPI_ERROR field to
         * write).  The full path below then only fills the status and
         * releases the request. */
        if (ZM_LIKELY(plain && !any && r && !r->persistent && r->st_error == ZM_OK &&
                      (r->kind == ZM_REQ_SEND || r->kind == ZM_REQ_RECV))) {
            status_fill(st, r);
            if (ZM_UNLIKELY(!rc))
                rc = zm_p2p_req_cache_here();
            zm_p2p_req_release_to(rc, r);
            reqs[i] = MPI_REQUEST_NULL;
            continue;
        }
        rc = NULL;
        if (!req_live(reqs[i])) {
            status_empty(st);
            status_error(st, any, NULL);
            continue;
        }
        req_before_free(reqs[i]);
        if (!any && req_failed(reqs[i])) {
            any = 1;
            errors_begin(sts, i);
        }
        if (reqs[i]->st_error != ZM_OK && failed < 0)
            failed = i;
        if (failed == i)
            req_raise(reqs[i], fn);
        status_error(st, any, reqs[i]);
        req_finish(&reqs[i], st);
    }
    if (failed < 0)
        return MPI_SUCCESS;
    return zm_mpi_error(NULL, MPI_ERR_IN_STATUS, fn,
                        "request %d failed; see the MPI_ERROR field of each status", failed);
}

/* MPI_Waitall's array of live requests (NULL for null and inactive
 * ones), in `small` when it fits, else allocated (NULL if out of memory). */
static zm_req_t **live_array(int count, MPI_Request reqs[], zm_req_t **small, int nsmall)
{
    zm_req_t **live = count <= nsmall ? small : malloc(sizeof(*live) * (size_t)count);
    for (int i = 0; live && i < count; i++)
        live[i] = req_live(reqs[i]);
    return live;
}

/* MPI_Waitall's body, inlined into it and into the bindings' entry. */
static inline __attribute__((always_inline)) int waitall_body(int count, MPI_Request reqs[],
                                                              MPI_Status sts[])
{
    const char *fn = "MPI_Waitall";
    zm_mpi_enter(fn);
    /* The request checks of check_reqs, made in one pass that also finds
     * whether every request is live: the common case, in which the array
     * itself is what the wait takes, with no copy. */
    if (count < 0 || (count > 0 && !reqs))
        return check_reqs(fn, count, reqs);
    int sched = 0, all_live = 1;
    for (int i = 0; i < count; i++) {
        zm_req_t *r = reqs[i];
        if (ZM_UNLIKELY(!req_valid(r)))
            return check_reqs(fn, count, reqs);
        all_live &= req_live(r) != NULL;
        sched |= r && r->kind == ZM_REQ_SCHED;
    }
    zm_req_t *small[16], **copy = NULL;
    if (!all_live && !(copy = live_array(count, reqs, small, 16)))
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    zm_req_t *const *live = copy ? copy : reqs;
    zm_p2p_waiter()->wait_call = fn;
    /* A composite request is waited for through its children. */
    for (int i = 0; sched && i < count; i++)
        if (live[i] && live[i]->kind == ZM_REQ_SCHED && !req_done(live[i]))
            zm_mpi_sched_wait(live[i]);
    zm_p2p_wait(live, count, 1);
    if (copy && copy != small)
        free(copy);
    return finish_all(fn, count, reqs, sts);
}

int PMPI_Waitall(int count, MPI_Request reqs[], MPI_Status sts[])
{
    return waitall_body(count, reqs, sts);
}
ZM_WEAK(Waitall)

/* MPI_Waitall on Fortran requests for the bindings (bind_hooks.h): the
 * requests converted into an array on the stack (up to 16; more are
 * allocated), MPI_Waitall's body, and 0 written back for each request
 * that became MPI_REQUEST_NULL.  The calling rank's thread; the caller
 * owns requests, statuses and ierror. */
int zmpi_bind_waitall(int count, MPI_Fint *requests, MPI_Status *statuses, MPI_Fint *ierror)
{
    MPI_Request small[16], *r = small;
    int rc;
    if (count > 16 && !(r = malloc((size_t)count * sizeof *r))) {
        rc = zm_mpi_error(NULL, MPI_ERR_NO_MEM, "MPI_Waitall", "out of memory");
    } else {
        for (int i = 0; i < count; i++)
            r[i] = zm_mpi_request_f2c(requests[i]);
        rc = waitall_body(count, r, statuses);
        /* A wait only ever sets a request to MPI_REQUEST_NULL (a persistent
         * one keeps its handle, and its index). */
        for (int i = 0; i < count; i++)
            if (r[i] == MPI_REQUEST_NULL)
                requests[i] = 0;
        if (r != small)
            free(r);
    }
    if (ierror)
        *ierror = rc;
    return rc;
}

/* Index of the first complete live request, or -1; *nlive counts live. */
static int first_done(int count, MPI_Request reqs[], int *nlive)
{
    *nlive = 0;
    for (int i = 0; i < count; i++) {
        zm_req_t *r = req_live(reqs[i]);
        if (!r)
            continue;
        (*nlive)++;
        if (req_done(r))
            return i;
    }
    return -1;
}

static int any_common(const char *fn, int count, MPI_Request reqs[], int *index, int *flag,
                      MPI_Status *status, int block)
{
    zm_mpi_enter(fn);
    int rc = check_reqs(fn, count, reqs), nlive;
    if (rc != MPI_SUCCESS)
        return rc;
    int i = first_done(count, reqs, &nlive);
    if (i < 0 && nlive > 0 && block) {
        zm_req_t *small[16], **live = count <= 16 ? small : malloc(sizeof(*live) * (size_t)count);
        if (!live)
            return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
        for (int k = 0; k < count; k++)
            live[k] = req_live(reqs[k]);
        zm_p2p_waiter()->wait_call = fn;
        wait_any(live, count);
        if (live != small)
            free(live);
        i = first_done(count, reqs, &nlive);
    }
    if (flag)
        *flag = i >= 0 || nlive == 0;
    if (i < 0) {
        *index = MPI_UNDEFINED;
        if (nlive == 0)
            status_empty(status);
        else
            zm_ult_yield();
        return MPI_SUCCESS;
    }
    *index = i;
    req_before_free(reqs[i]);
    rc = reqs[i]->st_error == ZM_OK ? MPI_SUCCESS : req_raise(reqs[i], fn);
    req_finish(&reqs[i], status);
    return rc;
}

int PMPI_Waitany(int count, MPI_Request reqs[], int *index, MPI_Status *status)
{
    return any_common("MPI_Waitany", count, reqs, index, NULL, status, 1);
}
ZM_WEAK(Waitany)

int PMPI_Testany(int count, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    return any_common("MPI_Testany", count, reqs, index, flag, status, 0);
}
ZM_WEAK(Testany)

static int some_common(const char *fn, int count, MPI_Request reqs[], int *outcount,
                       int indices[], MPI_Status sts[], int block)
{
    zm_mpi_enter(fn);
    int rc = check_reqs(fn, count, reqs), nlive, failed = -1, n = 0;
    if (rc != MPI_SUCCESS)
        return rc;
    if (block) {
        zm_req_t *small[16], **live = count <= 16 ? small : malloc(sizeof(*live) * (size_t)count);
        if (!live)
            return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
        for (int k = 0; k < count; k++)
            live[k] = req_live(reqs[k]);
        zm_p2p_waiter()->wait_call = fn;
        wait_any(live, count);
        if (live != small)
            free(live);
    }
    first_done(count, reqs, &nlive);
    if (nlive == 0) {
        *outcount = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    int any = 0;
    for (int i = 0; i < count; i++) {
        zm_req_t *r = req_live(reqs[i]);
        if (!r || !req_done(r))
            continue;
        MPI_Status *st = sts == MPI_STATUSES_IGNORE || !sts ? MPI_STATUS_IGNORE : &sts[n];
        req_before_free(r);
        if (!any && req_failed(r)) {
            any = 1;
            errors_begin(sts, n);
        }
        if (r->st_error != ZM_OK && failed < 0) {
            failed = i;
            req_raise(r, fn);
        }
        indices[n++] = i;
        status_error(st, any, r);
        req_finish(&reqs[i], st);
    }
    *outcount = n;
    if (n == 0)
        zm_ult_yield();
    if (failed >= 0)
        return zm_mpi_error(NULL, MPI_ERR_IN_STATUS, fn, "request %d failed", failed);
    return MPI_SUCCESS;
}

int PMPI_Waitsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
                  MPI_Status sts[])
{
    return some_common("MPI_Waitsome", incount, reqs, outcount, indices, sts, 1);
}
ZM_WEAK(Waitsome)

int PMPI_Testsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
                  MPI_Status sts[])
{
    return some_common("MPI_Testsome", incount, reqs, outcount, indices, sts, 0);
}
ZM_WEAK(Testsome)

int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    const char *fn = "MPI_Test";
    zm_mpi_enter(fn);
    if (!request || !req_valid(*request))
        return zm_mpi_error(NULL, MPI_ERR_REQUEST, fn, "invalid request");
    zm_req_t *r = req_live(*request);
    if (!r) {
        *flag = 1;
        status_empty(status);
        return MPI_SUCCESS;
    }
    if (!req_done(r)) {
        *flag = 0;
        zm_ult_yield();
        return MPI_SUCCESS;
    }
    *flag = 1;
    req_before_free(r);
    int rc = r->st_error == ZM_OK ? MPI_SUCCESS : req_raise(r, fn);
    req_finish(request, status);
    return rc;
}
ZM_WEAK(Test)

int PMPI_Testall(int count, MPI_Request reqs[], int *flag, MPI_Status sts[])
{
    const char *fn = "MPI_Testall";
    zm_mpi_enter(fn);
    int rc = check_reqs(fn, count, reqs);
    if (rc != MPI_SUCCESS)
        return rc;
    for (int i = 0; i < count; i++) {
        zm_req_t *r = req_live(reqs[i]);
        if (r && !req_done(r)) {
            *flag = 0;
            zm_ult_yield();
            return MPI_SUCCESS;
        }
    }
    *flag = 1;
    return finish_all(fn, count, reqs, sts);
}
ZM_WEAK(Testall)

int PMPI_Request_free(MPI_Request *request)
{
    const char *fn = "MPI_Request_free";
    zm_mpi_enter(fn);
    if (!request || !*request || !req_valid(*request))
        return zm_mpi_error(NULL, MPI_ERR_REQUEST, fn, "invalid request");
    if ((*request)->kind == ZM_REQ_SCHED) {
        /* MPI 4.1 section 6.12: freeing an active collective request is
         * erroneous; an inactive persistent one may be freed. */
        if (req_live(*request) && zm_mpi_sched_free_active(*request) == MPI_SUCCESS) {
            *request = MPI_REQUEST_NULL; /* a generalized request: freed at completion */
            return MPI_SUCCESS;
        }
        if (req_live(*request))
            return zm_mpi_error(NULL, MPI_ERR_REQUEST, fn, "the request is an active %s; "
                                "complete it with a wait or test first",
                                zm_mpi_sched_is_p2p(*request)
                                    ? "MPI_Isendrecv(_replace)"
                                    : "collective or partitioned operation");
        if (ZM_UNLIKELY(atomic_load_explicit(&zm_mpi_hooks_n, memory_order_relaxed)))
            zm_mpi_hook_free(*request, 0);
        zm_mpi_sched_release(*request);
        *request = MPI_REQUEST_NULL;
        return MPI_SUCCESS;
    }
    /* A persistent request in the rank's heap (request_heap.c). */
    if (ZM_UNLIKELY(!(*request)->pooled) && zm_mpi_preq_in_heap(*request)) {
        zm_mpi_preq_free(*request);
        *request = MPI_REQUEST_NULL;
        return MPI_SUCCESS;
    }
    /* A request with hooks whose operation is still pending stays with
     * them until it completes (bind_hooks.c frees both then). */
    if (ZM_UNLIKELY(atomic_load_explicit(&zm_mpi_hooks_n, memory_order_relaxed)) &&
        zm_mpi_hook_free(*request, req_live(*request) && !zm_p2p_req_complete_now(*request))) {
        *request = MPI_REQUEST_NULL;
        return MPI_SUCCESS;
    }
    zm_p2p_req_release(*request);
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}
ZM_WEAK(Request_free)

int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    const char *fn = "MPI_Request_get_status";
    zm_mpi_enter(fn);
    if (!req_valid(request))
        return zm_mpi_error(NULL, MPI_ERR_REQUEST, fn, "invalid request");
    zm_req_t *r = req_live(request);
    if (!r) {
        *flag = 1;
        status_empty(status);
        return MPI_SUCCESS;
    }
    *flag = req_done(r);
    if (*flag)
        req_status(status, r);
    else
        zm_ult_yield();
    return MPI_SUCCESS;
}
ZM_WEAK(Request_get_status)

int PMPI_Cancel(MPI_Request *request)
{
    const char *fn = "MPI_Cancel";
    zm_mpi_enter(fn);
    if (!request || !*request || !req_valid(*request))
        return zm_mpi_error(NULL, MPI_ERR_REQUEST, fn, "invalid request");
    zm_req_t *r = req_live(*request);
    if (r && r->kind == ZM_REQ_SCHED) {
        int cls = zm_mpi_sched_cancel(r);
        if (cls == MPI_ERR_REQUEST)
            return zm_mpi_error(NULL, MPI_ERR_REQUEST, fn, "a collective operation cannot be "
                                "cancelled (MPI 4.1 section 6.12)");
        return cls == MPI_SUCCESS ? MPI_SUCCESS
                                  : zm_mpi_error(NULL, cls, fn, "the cancel function failed");
    }
    /* A send may be complete (its data copied into an eager or buffered
     * message) and still withdrawable: p2p decides. */
    if (r)
        zm_p2p_cancel(r);
    return MPI_SUCCESS;
}
ZM_WEAK(Cancel)

int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    if (!status || status == MPI_STATUS_IGNORE)
        return zm_mpi_error(NULL, MPI_ERR_ARG, "MPI_Test_cancelled", "status is not a status");
    *flag = status->zmpi_cancelled;
    return MPI_SUCCESS;
}
ZM_WEAK(Test_cancelled)

/* The int form of a count of MPI_Get_count or MPI_Get_elements (the
 * internal's status rc, full-width count n): MPI_UNDEFINED where an int
 * cannot hold it (MPI 4.1 section 3.2.5). */
static int count_narrow(int rc, MPI_Count n, int *count)
{
    if (rc == MPI_SUCCESS)
        *count = zm_mpi_fits_int(n) ? (int)n : MPI_UNDEFINED;
    return rc;
}

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype dt, int *count)
{
    MPI_Count n;
    int rc = zm_mpi_status_count("MPI_Get_count", status, dt, count ? &n : NULL, 0);
    return count_narrow(rc, n, count);
}
ZM_WEAK(Get_count)

int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype dt, int *count)
{
    MPI_Count n;
    int rc = zm_mpi_status_count("MPI_Get_elements", status, dt, count ? &n : NULL, 1);
    return count_narrow(rc, n, count);
}
ZM_WEAK(Get_elements)

int PMPI_Send_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    return zm_mpi_p2p_init("MPI_Send_init", buf, count, dt, dest, tag, comm, request,
                           ZM_REQ_SEND, ZM_SEND_STD);
}
ZM_WEAK(Send_init)

int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    return zm_mpi_p2p_init("MPI_Ssend_init", buf, count, dt, dest, tag, comm, request,
                           ZM_REQ_SEND, ZM_SEND_SYNC);
}
ZM_WEAK(Ssend_init)

int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    /* Each start copies the message into the attached buffer, as MPI_Ibsend
     * does; a start that does not fit fails with MPI_ERR_BUFFER. */
    return zm_mpi_p2p_init("MPI_Bsend_init", buf, count, dt, dest, tag, comm, request,
                           ZM_REQ_SEND, ZM_SEND_BUFFERED);
}
ZM_WEAK(Bsend_init)

int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    return zm_mpi_p2p_init("MPI_Rsend_init", buf, count, dt, dest, tag, comm, request,
                           ZM_REQ_SEND, ZM_SEND_READY);
}
ZM_WEAK(Rsend_init)

int PMPI_Recv_init(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                   MPI_Request *request)
{
    return zm_mpi_p2p_init("MPI_Recv_init", buf, count, dt, source, tag, comm, request,
                           ZM_REQ_RECV, ZM_SEND_STD);
}
ZM_WEAK(Recv_init)

static int start_one(const char *fn, zm_req_t *r)
{
    zm_mpi_rank_t *me = zm_mpi_me();
    struct zmpi_comm *c = zm_mpi_comm(me, r->comm);
    if (!r->persistent || r->active)
        return zm_mpi_error(c, MPI_ERR_REQUEST, fn, "%s",
                            r->persistent ? "request is already active"
                                          : "request is not a persistent request");
    if (!c)
        return zm_mpi_error(NULL, MPI_ERR_COMM, fn, "the request's communicator was freed");
    /* A binding's copy of an array section takes the data of this start. */
    if (ZM_UNLIKELY(atomic_load_explicit(&zm_mpi_hooks_n, memory_order_relaxed)))
        zm_mpi_hook_start(r);
    if (r->kind == ZM_REQ_SCHED) {
        int cls = zm_mpi_sched_start((zm_mpi_sched_t *)r);
        return cls == MPI_SUCCESS ? MPI_SUCCESS : zm_mpi_error(c, cls, fn, "start failed");
    }
    r->active = 1;
    if (r->peer == MPI_PROC_NULL) {
        r->st_source = MPI_PROC_NULL;
        r->st_tag = MPI_ANY_TAG;
        r->st_bytes = 0;
        r->st_error = ZM_OK;
        atomic_store(&r->cstate, ZM_REQ_DONE);
        return MPI_SUCCESS;
    }
    if (r->kind == ZM_REQ_RECV) {
        zm_p2p_irecv(&c->p, r->buf, r->count, r->dt, r->peer, r->tag, r);
        return MPI_SUCCESS;
    }
    /* Bsend_init: the communicator's attached buffer, if any, else the
     * process's (MPI 4.1 section 3.6). */
    if (r->mode == ZM_SEND_BUFFERED)
        zm_p2p_bsend_select(c->p.ctx);
    zm_status_t st = zm_p2p_isend(&c->p, r->buf, r->count, r->dt, r->peer, r->tag, r->mode, r);
    if (r->mode == ZM_SEND_BUFFERED)
        zm_p2p_bsend_unselect();
    r->kind = ZM_REQ_SEND;
    return st == ZM_OK ? MPI_SUCCESS : zm_mpi_error(c, zm_mpi_class_of(st), fn, "send failed");
}

int PMPI_Start(MPI_Request *request)
{
    const char *fn = "MPI_Start";
    zm_mpi_enter(fn);
    if (!request || !*request || !req_valid(*request))
        return zm_mpi_error(NULL, MPI_ERR_REQUEST, fn, "invalid request");
    return start_one(fn, *request);
}
ZM_WEAK(Start)

int PMPI_Startall(int count, MPI_Request reqs[])
{
    const char *fn = "MPI_Startall";
    zm_mpi_enter(fn);
    int rc = check_reqs(fn, count, reqs);
    for (int i = 0; i < count && rc == MPI_SUCCESS; i++) {
        if (!reqs[i])
            return zm_mpi_error(NULL, MPI_ERR_REQUEST, fn, "request %d is MPI_REQUEST_NULL", i);
        rc = start_one(fn, reqs[i]);
    }
    return rc;
}
ZM_WEAK(Startall)

/* ---- MPI 4.1 status queries that free nothing -------------------------- */

int PMPI_Request_get_status_any(int count, MPI_Request reqs[], int *index, int *flag,
                                MPI_Status *status)
{
    const char *fn = "MPI_Request_get_status_any";
    zm_mpi_enter(fn);
    int rc = check_reqs(fn, count, reqs), nlive;
    if (rc != MPI_SUCCESS)
        return rc;
    if (!index || !flag)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(%s=NULL): no place for the result",
                            index ? "flag" : "index");
    int i = first_done(count, reqs, &nlive);
    *flag = i >= 0 || nlive == 0;
    *index = i >= 0 ? i : MPI_UNDEFINED;
    if (i >= 0)
        req_status(status, reqs[i]);
    else if (nlive == 0)
        status_empty(status);
    else
        zm_ult_yield();
    return MPI_SUCCESS;
}
ZM_WEAK(Request_get_status_any)

int PMPI_Request_get_status_all(int count, MPI_Request reqs[], int *flag, MPI_Status sts[])
{
    const char *fn = "MPI_Request_get_status_all";
    zm_mpi_enter(fn);
    int rc = check_reqs(fn, count, reqs);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!flag)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(flag=NULL): no place for the result");
    for (int i = 0; i < count; i++) {
        zm_req_t *r = req_live(reqs[i]);
        if (r && !req_done(r)) {
            *flag = 0;
            zm_ult_yield();
            return MPI_SUCCESS;
        }
    }
    *flag = 1;
    int failed = -1, any = 0;
    for (int i = 0; i < count; i++) {
        MPI_Status *st = sts == MPI_STATUSES_IGNORE || !sts ? MPI_STATUS_IGNORE : &sts[i];
        zm_req_t *r = req_live(reqs[i]);
        if (!r) {
            status_empty(st);
            status_error(st, any, NULL);
            continue;
        }
        if (!any && req_failed(r)) {
            any = 1;
            errors_begin(sts, i);
        }
        req_status(st, r);
        status_error(st, any, r);
        if (r->st_error != ZM_OK && failed < 0)
            failed = i;
    }
    if (failed < 0)
        return MPI_SUCCESS;
    return zm_mpi_error(NULL, MPI_ERR_IN_STATUS, fn,
                        "request %d failed; see the MPI_ERROR field of each status", failed);
}
ZM_WEAK(Request_get_status_all)

int PMPI_Request_get_status_some(int incount, MPI_Request reqs[], int *outcount, int indices[],
                                 MPI_Status sts[])
{
    const char *fn = "MPI_Request_get_status_some";
    zm_mpi_enter(fn);
    int rc = check_reqs(fn, incount, reqs), nlive, n = 0, failed = -1;
    if (rc != MPI_SUCCESS)
        return rc;
    if (!outcount || (incount > 0 && !indices))
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(%s=NULL): no place for the result",
                            outcount ? "array_of_indices" : "outcount");
    first_done(incount, reqs, &nlive);
    if (nlive == 0) {
        *outcount = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    int any = 0;
    for (int i = 0; i < incount; i++) {
        zm_req_t *r = req_live(reqs[i]);
        if (!r || !req_done(r))
            continue;
        MPI_Status *st = sts == MPI_STATUSES_IGNORE || !sts ? MPI_STATUS_IGNORE : &sts[n];
        if (!any && req_failed(r)) {
            any = 1;
            errors_begin(sts, n);
        }
        req_status(st, r);
        status_error(st, any, r);
        if (r->st_error != ZM_OK && failed < 0)
            failed = i;
        indices[n++] = i;
    }
    *outcount = n;
    if (n == 0)
        zm_ult_yield();
    if (failed >= 0)
        return zm_mpi_error(NULL, MPI_ERR_IN_STATUS, fn,
                            "request %d failed; see the MPI_ERROR field of each status", failed);
    return MPI_SUCCESS;
}
ZM_WEAK(Request_get_status_some)
