/*
 * mpit.c: the MPI_T tool information interface (MPI 4.1 chapter 15):
 * control variables for the ZMPI_* settings, performance variables for
 * the point-to-point protocols, the unexpected queue and the collective
 * fast path, categories and enumerations.
 *
 * MPI_T may be called before MPI_Init, after MPI_Finalize and from any
 * thread, so nothing here needs the caller to be a rank, and every call
 * takes one process-wide lock: tool calls are rare and short.  Under zmpi
 * an "MPI process" is a rank: MPI_T_init_thread and MPI_T_finalize count
 * per rank (threads that are not ranks share one count), and a
 * performance variable session belongs to the rank that creates it and
 * reads that rank's counters.  The counters themselves (p2p.h,
 * zm_p2p_stats_t) are plain per-rank increments on the send paths; every
 * variable is bound to MPI_T_BIND_NO_OBJECT.  Which variables exist and
 * how they are read is in mpit_vars.c.
 *
 * As MPI 4.1 section 15.3.10 says, MPI_T calls return their error class
 * and never call an error handler.
 */
#include "mpi/mpit_impl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- Objects and the lock -------------------------------------------- */

struct zmpi_t_cvar_handle {
    struct zmpi_t_cvar_handle *next;  /* in T.cvar_handles */
    int index;                        /* control variable */
};

struct zmpi_t_pvar_handle {
    struct zmpi_t_pvar_handle *next;  /* in its session's list */
    int index;                        /* performance variable */
    int started;                      /* counting (non-continuous variables) */
    uint64_t base;                    /* raw value when last started or reset */
    uint64_t acc;                     /* value accumulated while stopped */
};

struct zmpi_t_pvar_session {
    struct zmpi_t_pvar_session *next; /* in T.sessions */
    int rank;                         /* world rank whose counters it reads */
    struct zmpi_t_pvar_handle *handles;
};

static struct {
    zm_spinlock_t lock;                          /* guards everything here */
    int *rank_refs;                              /* MPI_T_init_thread count per rank */
    int nrank_refs;                              /* entries of rank_refs */
    int thread_refs;                             /* count of threads that are not ranks */
    struct zmpi_t_cvar_handle *cvar_handles;     /* live control variable handles */
    struct zmpi_t_pvar_session *sessions;        /* live sessions */
} T;

/* The caller's world rank, or -1 for a thread that is not a rank.  A
 * rank running an event callback on behalf of another rank (a message it
 * sent raised the receiver's event, mpit_events.c) acts as that rank. */
static int caller_rank(void)
{
    zm_ult_t *u = zm_mpit_job_up() ? zm_ult_self() : NULL;
    return u ? zm_mpit_event_acting_for(u->id) : -1;
}

/* The caller's init count (under T.lock); NULL if out of memory. */
static int *refs_of(int rank)
{
    if (rank < 0)
        return &T.thread_refs;
    if (rank >= T.nrank_refs) {
        int n = rank + 1 > zm_ult_count() ? rank + 1 : zm_ult_count();
        int *a = realloc(T.rank_refs, sizeof(int) * (size_t)n);
        if (!a)
            return NULL;
        memset(a + T.nrank_refs, 0, sizeof(int) * (size_t)(n - T.nrank_refs));
        T.rank_refs = a;
        T.nrank_refs = n;
    }
    return &T.rank_refs[rank];
}

/* Take the lock if MPI_T is initialized for the caller: by its rank, or
 * by some thread that is not a rank (such a tool thread serves every
 * rank).  Returns MPI_SUCCESS with the lock held, else the error. */
static int lock_initialized(void)
{
    int rank = caller_rank();
    zm_spin_lock(&T.lock);
    int ok = T.thread_refs > 0 || (rank >= 0 && rank < T.nrank_refs && T.rank_refs[rank] > 0);
    if (ok)
        return MPI_SUCCESS;
    zm_spin_unlock(&T.lock);
    return MPI_T_ERR_NOT_INITIALIZED;
}

/* Return rc, dropping the lock taken by lock_initialized. */
static int unlock_ret(int rc)
{
    zm_spin_unlock(&T.lock);
    return rc;
}

/* Copy string s out as MPI_T does: *len is the buffer's size on entry (0
 * or a NULL buf: only ask the length) and what was stored, terminator
 * included, on return. */
static void put_str(const char *s, char *buf, int *len)
{
    if (!len)
        return;
    int need = (int)strlen(s) + 1;
    if (!buf || *len <= 0) {
        *len = need;
        return;
    }
    int n = need < *len ? need : *len;
    memcpy(buf, s, (size_t)n - 1);
    buf[n - 1] = '\0';
    *len = n;
}

/* ---- Shared with mpit_events.c (mpit_impl.h) ------------------------- */

int zm_mpit_lock(void)
{
    return lock_initialized();
}

int zm_mpit_unlock_ret(int rc)
{
    return unlock_ret(rc);
}

void zm_mpit_put_str(const char *s, char *buf, int *len)
{
    put_str(s, buf, len);
}

int zm_mpit_caller_rank(void)
{
    return caller_rank();
}

/* ---- Setup and enumerations ------------------------------------------ */

int PMPI_T_init_thread(int required, int *provided)
{
    if (!provided || required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE)
        return MPI_T_ERR_INVALID;
    int rank = caller_rank();
    zm_spin_lock(&T.lock);
    int *r = refs_of(rank);
    if (r)
        ++*r;
    zm_spin_unlock(&T.lock);
    if (!r)
        return MPI_T_ERR_MEMORY;
    /* Every call is serialised by the lock, from any thread. */
    *provided = MPI_THREAD_MULTIPLE;
    return MPI_SUCCESS;
}
ZM_WEAK(T_init_thread)

int PMPI_T_finalize(void)
{
    int rank = caller_rank();
    zm_spin_lock(&T.lock);
    int *r = rank >= 0 && rank < T.nrank_refs && T.rank_refs[rank] > 0 ? &T.rank_refs[rank]
                                                                        : &T.thread_refs;
    int rc = *r > 0 ? MPI_SUCCESS : MPI_T_ERR_NOT_INITIALIZED;
    if (*r > 0)
        --*r;
    zm_spin_unlock(&T.lock);
    return rc;
}
ZM_WEAK(T_finalize)

int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
{
    int rc = lock_initialized();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!zm_mpit_enum_valid(enumtype))
        return unlock_ret(MPI_T_ERR_INVALID_HANDLE);
    if (num)
        *num = enumtype->num;
    put_str(enumtype->name, name, name_len);
    return unlock_ret(MPI_SUCCESS);
}
ZM_WEAK(T_enum_get_info)

int PMPI_T_enum_get_item(MPI_T_enum enumtype, int index, int *value, char *name, int *name_len)
{
    int rc = lock_initialized();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!zm_mpit_enum_valid(enumtype))
        return unlock_ret(MPI_T_ERR_INVALID_HANDLE);
    if (index < 0 || index >= enumtype->num)
        return unlock_ret(MPI_T_ERR_INVALID_ITEM);
    if (value)
        *value = enumtype->items[index].value;
    put_str(enumtype->items[index].name, name, name_len);
    return unlock_ret(MPI_SUCCESS);
}
ZM_WEAK(T_enum_get_item)

/* ---- Control variables ----------------------------------------------- */

int PMPI_T_cvar_get_num(int *num_cvar)
{
    int rc = lock_initialized();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!num_cvar)
        return unlock_ret(MPI_T_ERR_INVALID);
    *num_cvar = zm_mpit_ncvars;
    return unlock_ret(MPI_SUCCESS);
}
ZM_WEAK(T_cvar_get_num)

static MPI_Datatype vt_type(int vt)
{
    return vt == ZM_MPIT_INT ? MPI_INT : vt == ZM_MPIT_ULL ? MPI_UNSIGNED_LONG_LONG : MPI_CHAR;
}

int PMPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc,
                         int *desc_len, int *bind, int *scope)
{
    int rc = lock_initialized();
    if (rc != MPI_SUCCESS)
        return rc;
    if (cvar_index < 0 || cvar_index >= zm_mpit_ncvars)
        return unlock_ret(MPI_T_ERR_INVALID_INDEX);
    const zm_mpit_cvar_t *d = &zm_mpit_cvars[cvar_index];
    put_str(d->name, name, name_len);
    put_str(d->desc, desc, desc_len);
    if (verbosity)
        *verbosity = d->verbosity;
    if (datatype)
        *datatype = vt_type(d->type);
    if (enumtype)
        *enumtype = d->en ? d->en : MPI_T_ENUM_NULL;
    if (bind)
        *bind = MPI_T_BIND_NO_OBJECT;
    if (scope)
        *scope = d->scope;
    return unlock_ret(MPI_SUCCESS);
}
ZM_WEAK(T_cvar_get_info)

int PMPI_T_cvar_get_index(const char *name, int *cvar_index)
{
    int rc = lock_initialized();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!name || !cvar_index)
        return unlock_ret(MPI_T_ERR_INVALID);
    for (int i = 0; i < zm_mpit_ncvars; i++)
        if (strcmp(zm_mpit_cvars[i].name, name) == 0) {
            *cvar_index = i;
            return unlock_ret(MPI_SUCCESS);
        }
    return unlock_ret(MPI_T_ERR_INVALID_NAME);
}
ZM_WEAK(T_cvar_get_index)

int PMPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle,
                             int *count)
{
    (void)obj_handle; /* every variable is bound to no object */
    int rc = lock_initialized();
    if (rc != MPI_SUCCESS)
        return rc;
    if (cvar_index < 0 || cvar_index >= zm_mpit_ncvars)
        return unlock_ret(MPI_T_ERR_INVALID_INDEX);
    if (!handle || !count)
        return unlock_ret(MPI_T_ERR_INVALID);
    struct zmpi_t_cvar_handle *h = malloc(sizeof *h);
    if (!h)
        return unlock_ret(MPI_T_ERR_OUT_OF_HANDLES);
    h->index = cvar_index;
    h->next = T.cvar_handles;
    T.cvar_handles = h;
    *handle = h;
    *count = zm_mpit_cvars[cvar_index].count ? zm_mpit_cvars[cvar_index].count() : 1;
    return unlock_ret(MPI_SUCCESS);
}
ZM_WEAK(T_cvar_handle_alloc)

/* Where live handle h sits in T.cvar_handles, or NULL.  Under T.lock. */
static struct zmpi_t_cvar_handle **cvar_handle_find(MPI_T_cvar_handle h)
{
    for (struct zmpi_t_cvar_handle **p = &T.cvar_handles; *p; p = &(*p)->next)
        if (*p == h)
            return p;
    return NULL;
}

int PMPI_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    int rc = lock_initialized();
    if (rc != MPI_SUCCESS)
        return rc;
    struct zmpi_t_cvar_handle **p = handle ? cvar_handle_find(*handle) : NULL;
    if (!p)
        return unlock_ret(MPI_T_ERR_INVALID_HANDLE);
    struct zmpi_t_cvar_handle *h = *p;
    *p = h->next;
    free(h);
    *handle = MPI_T_CVAR_HANDLE_NULL;
    return unlock_ret(MPI_SUCCESS);
}
ZM_WEAK(T_cvar_handle_free)

int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
    int rc = lock_initialized();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!cvar_handle_find(handle))
        return unlock_ret(MPI_T_ERR_INVALID_HANDLE);
    if (!buf)
        return unlock_ret(MPI_T_ERR_INVALID);
    zm_mpit_cvars[handle->index].get(buf);
    return unlock_ret(MPI_SUCCESS);
}
ZM_WEAK(T_cvar_read)

int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
    int rc = lock_initialized();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!cvar_handle_find(handle))
        return unlock_ret(MPI_T_ERR_INVALID_HANDLE);
    const zm_mpit_cvar_t *d = &zm_mpit_cvars[handle->index];
    if (!d->set)
        return unlock_ret(MPI_T_ERR_CVAR_SET_NEVER);
    if (!buf)
        return unlock_ret(MPI_T_ERR_INVALID);
    return unlock_ret(d->set(buf));
}
ZM_WEAK(T_cvar_write)

/* ---- Performance variables: queries ---------------------------------- */

int PMPI_T_pvar_get_num(int *num_pvar)
{
    int rc = lock_initialized();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!num_pvar)
        return unlock_ret(MPI_T_ERR_INVALID);
    *num_pvar = zm_mpit_npvars;
    return unlock_ret(MPI_SUCCESS);
}
ZM_WEAK(T_pvar_get_num)

int PMPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity,
                         int *var_class, MPI_Datatype *datatype, MPI_T_enum *enumtype,
                         char *desc, int *desc_len, int *bind, int *readonly,
                         int *continuous, int *atomic)
{
    int rc = lock_initialized();
    if (rc != MPI_SUCCESS)
        return rc;
    if (pvar_index < 0 || pvar_index >= zm_mpit_npvars)
        return unlock_ret(MPI_T_ERR_INVALID_INDEX);
    const zm_mpit_pvar_t *d = &zm_mpit_pvars[pvar_index];
    put_str(d->name, name, name_len);
    put_str(d->desc, desc, desc_len);
    if (verbosity)
        *verbosity = d->verbosity;
    if (var_class)
        *var_class = d->cls;
    if (datatype)
        *datatype = MPI_UNSIGNED_LONG_LONG;
    if (enumtype)
        *enumtype = MPI_T_ENUM_NULL;
    if (bind)
        *bind = MPI_T_BIND_NO_OBJECT;
    if (readonly)
        *readonly = d->readonly;
    if (continuous)
        *continuous = d->continuous;
    /* Only the rank itself changes its counters, so its own readreset is
     * atomic (pvar_readreset refuses other threads). */
    if (atomic)
        *atomic = !d->readonly;
    return unlock_ret(MPI_SUCCESS);
}
ZM_WEAK(T_pvar_get_info)

int PMPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
    int rc = lock_initialized();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!name || !pvar_index)
        return unlock_ret(MPI_T_ERR_INVALID);
    for (int i = 0; i < zm_mpit_npvars; i++)
        if (zm_mpit_pvars[i].cls == var_class && strcmp(zm_mpit_pvars[i].name, name) == 0) {
            *pvar_index = i;
            return unlock_ret(MPI_SUCCESS);
        }
    return unlock_ret(MPI_T_ERR_INVALID_NAME);
}
ZM_WEAK(T_pvar_get_index)

/* ---- Performance variables: sessions and handles --------------------- */

/* Where live session s sits in T.sessions, or NULL.  Under T.lock. */
static struct zmpi_t_pvar_session **session_find(MPI_T_pvar_session s)
{
    for (struct zmpi_t_pvar_session **p = &T.sessions; *p; p = &(*p)->next)
        if (*p == s)
            return p;
    return NULL;
}

/* Where live handle h sits in session s's list, or NULL.  Under T.lock. */
static struct zmpi_t_pvar_handle **handle_find(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    for (struct zmpi_t_pvar_handle **p = &s->handles; *p; p = &(*p)->next)
        if (*p == h)
            return p;
    return NULL;
}

int PMPI_T_pvar_session_create(MPI_T_pvar_session *session)
{
    int rc = lock_initialized();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!session)
        return unlock_ret(MPI_T_ERR_INVALID);
    /* The counters are the calling rank's: a thread that is not a rank has
     * none to measure. */
    int rank = caller_rank();
    if (rank < 0)
        return unlock_ret(MPI_T_ERR_NOT_ACCESSIBLE);
    struct zmpi_t_pvar_session *s = calloc(1, sizeof *s);
    if (!s)
        return unlock_ret(MPI_T_ERR_OUT_OF_SESSIONS);
    s->rank = rank;
    s->next = T.sessions;
    T.sessions = s;
    *session = s;
    return unlock_ret(MPI_SUCCESS);
}
ZM_WEAK(T_pvar_session_create)

int PMPI_T_pvar_session_free(MPI_T_pvar_session *session)
{
    int rc = lock_initialized();
    if (rc != MPI_SUCCESS)
        return rc;
    struct zmpi_t_pvar_session **p = session ? session_find(*session) : NULL;
    if (!p)
        return unlock_ret(MPI_T_ERR_INVALID_SESSION);
    struct zmpi_t_pvar_session *s = *p;
    *p = s->next;
    while (s->handles) {
        struct zmpi_t_pvar_handle *h = s->handles;
        s->handles = h->next;
        free(h);
    }
    free(s);
    *session = MPI_T_PVAR_SESSION_NULL;
    return unlock_ret(MPI_SUCCESS);
}
ZM_WEAK(T_pvar_session_free)

int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                             MPI_T_pvar_handle *handle, int *count)
{
    (void)obj_handle; /* every variable is bound to no object */
    int rc = lock_initialized();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!session_find(session))
        return unlock_ret(MPI_T_ERR_INVALID_SESSION);
    if (pvar_index < 0 || pvar_index >= zm_mpit_npvars)
        return unlock_ret(MPI_T_ERR_INVALID_INDEX);
    if (!handle || !count)
        return unlock_ret(MPI_T_ERR_INVALID);
    struct zmpi_t_pvar_handle *h = calloc(1, sizeof *h);
    if (!h)
        return unlock_ret(MPI_T_ERR_OUT_OF_HANDLES);
    h->index = pvar_index;
    /* Continuous variables count from the start of the job; the others
     * are stopped at zero until started. */
    h->started = zm_mpit_pvars[pvar_index].continuous;
    h->next = session->handles;
    session->handles = h;
    *handle = h;
    *count = 1;
    return unlock_ret(MPI_SUCCESS);
}
ZM_WEAK(T_pvar_handle_alloc)

int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    int rc = lock_initialized();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!session_find(session))
        return unlock_ret(MPI_T_ERR_INVALID_SESSION);
    struct zmpi_t_pvar_handle **p = handle ? handle_find(session, *handle) : NULL;
    if (!p)
        return unlock_ret(MPI_T_ERR_INVALID_HANDLE);
    struct zmpi_t_pvar_handle *h = *p;
    *p = h->next;
    free(h);
    *handle = MPI_T_PVAR_HANDLE_NULL;
    return unlock_ret(MPI_SUCCESS);
}
ZM_WEAK(T_pvar_handle_free)

/* ---- Performance variables: values ----------------------------------- */

/* Handle h's value in session s. */
static uint64_t handle_value(const struct zmpi_t_pvar_session *s,
                             const struct zmpi_t_pvar_handle *h)
{
    const zm_mpit_pvar_t *d = &zm_mpit_pvars[h->index];
    if (d->continuous)
        return zm_mpit_pvar_raw(d, s->rank);
    return h->started ? h->acc + (zm_mpit_pvar_raw(d, s->rank) - h->base) : h->acc;
}

/* Set handle h's value to v (write, reset). */
static void handle_set(const struct zmpi_t_pvar_session *s, struct zmpi_t_pvar_handle *h,
                       uint64_t v)
{
    h->acc = v;
    h->base = zm_mpit_pvar_raw(&zm_mpit_pvars[h->index], s->rank);
}

enum { OP_START, OP_STOP, OP_RESET };

/* Start, stop or reset one handle. */
static int handle_op(const struct zmpi_t_pvar_session *s, struct zmpi_t_pvar_handle *h, int op)
{
    const zm_mpit_pvar_t *d = &zm_mpit_pvars[h->index];
    if (op == OP_RESET) {
        if (d->readonly)
            return MPI_T_ERR_PVAR_NO_WRITE;
        handle_set(s, h, 0);
        return MPI_SUCCESS;
    }
    if (d->continuous)
        return MPI_T_ERR_PVAR_NO_STARTSTOP;
    if (op == OP_START && !h->started) {
        h->base = zm_mpit_pvar_raw(d, s->rank);
        h->started = 1;
    } else if (op == OP_STOP && h->started) {
        h->acc += zm_mpit_pvar_raw(d, s->rank) - h->base;
        h->started = 0;
    }
    return MPI_SUCCESS;
}

/* Start, stop or reset `handle`, or every handle of the session it may
 * apply to for MPI_T_PVAR_ALL_HANDLES (MPI 4.1 section 15.3.7). */
static int session_op(MPI_T_pvar_session session, MPI_T_pvar_handle handle, int op)
{
    int rc = lock_initialized();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!session_find(session))
        return unlock_ret(MPI_T_ERR_INVALID_SESSION);
    if (handle == MPI_T_PVAR_ALL_HANDLES) {
        for (struct zmpi_t_pvar_handle *h = session->handles; h; h = h->next) {
            const zm_mpit_pvar_t *d = &zm_mpit_pvars[h->index];
            if (op == OP_RESET ? !d->readonly : !d->continuous)
                handle_op(session, h, op);
        }
        return unlock_ret(MPI_SUCCESS);
    }
    if (!handle_find(session, handle))
        return unlock_ret(MPI_T_ERR_INVALID_HANDLE);
    return unlock_ret(handle_op(session, handle, op));
}

int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return session_op(session, handle, OP_START);
}
ZM_WEAK(T_pvar_start)

int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return session_op(session, handle, OP_STOP);
}
ZM_WEAK(T_pvar_stop)

int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return session_op(session, handle, OP_RESET);
}
ZM_WEAK(T_pvar_reset)

/* Check session and handle for a read or write (not ALL_HANDLES); takes
 * the lock on success. */
static int lock_handle(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
    int rc = lock_initialized();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!session_find(session))
        return unlock_ret(MPI_T_ERR_INVALID_SESSION);
    if (handle == MPI_T_PVAR_ALL_HANDLES || !handle_find(session, handle))
        return unlock_ret(MPI_T_ERR_INVALID_HANDLE);
    if (!buf)
        return unlock_ret(MPI_T_ERR_INVALID);
    return MPI_SUCCESS;
}

int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    int rc = lock_handle(session, handle, buf);
    if (rc != MPI_SUCCESS)
        return rc;
    *(unsigned long long *)buf = handle_value(session, handle);
    return unlock_ret(MPI_SUCCESS);
}
ZM_WEAK(T_pvar_read)

int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
    int rc = lock_handle(session, handle, buf);
    if (rc != MPI_SUCCESS)
        return rc;
    if (zm_mpit_pvars[handle->index].readonly)
        return unlock_ret(MPI_T_ERR_PVAR_NO_WRITE);
    handle_set(session, handle, *(const unsigned long long *)buf);
    return unlock_ret(MPI_SUCCESS);
}
ZM_WEAK(T_pvar_write)

int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    int rc = lock_handle(session, handle, buf);
    if (rc != MPI_SUCCESS)
        return rc;
    if (zm_mpit_pvars[handle->index].readonly)
        return unlock_ret(MPI_T_ERR_PVAR_NO_WRITE);
    /* The rank may be counting on another worker while another thread
     * reads: nothing would make the read and the reset one step. */
    if (caller_rank() != session->rank)
        return unlock_ret(MPI_T_ERR_PVAR_NO_ATOMIC);
    *(unsigned long long *)buf = handle_value(session, handle);
    handle_set(session, handle, 0);
    return unlock_ret(MPI_SUCCESS);
}
ZM_WEAK(T_pvar_readreset)

/* ---- Categories ------------------------------------------------------ */

int PMPI_T_category_get_num(int *num_cat)
{
    int rc = lock_initialized();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!num_cat)
        return unlock_ret(MPI_T_ERR_INVALID);
    *num_cat = ZM_MPIT_NCATS;
    return unlock_ret(MPI_SUCCESS);
}
ZM_WEAK(T_category_get_num)

enum { MEM_CVAR, MEM_PVAR, MEM_CAT };

/* Members of category cat of one kind, in index order: their number, and
 * the first `len` of them in out (if not NULL). */
static int members(int cat, int kind, int len, int *out)
{
    int n = 0;
    int total = kind == MEM_CVAR ? zm_mpit_ncvars
              : kind == MEM_PVAR ? zm_mpit_npvars : ZM_MPIT_NCATS;
    for (int i = 0; i < total; i++) {
        int in = kind == MEM_CVAR ? zm_mpit_cvars[i].cat
               : kind == MEM_PVAR ? zm_mpit_pvars[i].cat : zm_mpit_cats[i].parent;
        if (in != cat)
            continue;
        if (out && n < len)
            out[n] = i;
        n++;
    }
    return n;
}

int PMPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc,
                             int *desc_len, int *num_cvars, int *num_pvars,
                             int *num_categories)
{
    int rc = lock_initialized();
    if (rc != MPI_SUCCESS)
        return rc;
    if (cat_index < 0 || cat_index >= ZM_MPIT_NCATS)
        return unlock_ret(MPI_T_ERR_INVALID_INDEX);
    put_str(zm_mpit_cats[cat_index].name, name, name_len);
    put_str(zm_mpit_cats[cat_index].desc, desc, desc_len);
    if (num_cvars)
        *num_cvars = members(cat_index, MEM_CVAR, 0, NULL);
    if (num_pvars)
        *num_pvars = members(cat_index, MEM_PVAR, 0, NULL);
    if (num_categories)
        *num_categories = members(cat_index, MEM_CAT, 0, NULL);
    return unlock_ret(MPI_SUCCESS);
}
ZM_WEAK(T_category_get_info)

int PMPI_T_category_get_index(const char *name, int *cat_index)
{
    int rc = lock_initialized();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!name || !cat_index)
        return unlock_ret(MPI_T_ERR_INVALID);
    for (int i = 0; i < ZM_MPIT_NCATS; i++)
        if (strcmp(zm_mpit_cats[i].name, name) == 0) {
            *cat_index = i;
            return unlock_ret(MPI_SUCCESS);
        }
    return unlock_ret(MPI_T_ERR_INVALID_NAME);
}
ZM_WEAK(T_category_get_index)

/* The three MPI_T_category_get_cvars/pvars/categories calls. */
static int category_get(int cat_index, int len, int *indices, int kind)
{
    int rc = lock_initialized();
    if (rc != MPI_SUCCESS)
        return rc;
    if (cat_index < 0 || cat_index >= ZM_MPIT_NCATS)
        return unlock_ret(MPI_T_ERR_INVALID_INDEX);
    if (len < 0 || (len > 0 && !indices))
        return unlock_ret(MPI_T_ERR_INVALID);
    members(cat_index, kind, len, indices);
    return unlock_ret(MPI_SUCCESS);
}

int PMPI_T_category_get_cvars(int cat_index, int len, int indices[])
{
    return category_get(cat_index, len, indices, MEM_CVAR);
}
ZM_WEAK(T_category_get_cvars)

int PMPI_T_category_get_pvars(int cat_index, int len, int indices[])
{
    return category_get(cat_index, len, indices, MEM_PVAR);
}
ZM_WEAK(T_category_get_pvars)

int PMPI_T_category_get_categories(int cat_index, int len, int indices[])
{
    return category_get(cat_index, len, indices, MEM_CAT);
}
ZM_WEAK(T_category_get_categories)

int PMPI_T_category_changed(int *update_number)
{
    int rc = lock_initialized();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!update_number)
        return unlock_ret(MPI_T_ERR_INVALID);
    /* The variables and categories are fixed when the library is built. */
    *update_number = 0;
    return unlock_ret(MPI_SUCCESS);
}
ZM_WEAK(T_category_changed)
