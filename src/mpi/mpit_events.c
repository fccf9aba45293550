/*
 * mpit_events.c: MPI_T events and their source (MPI 4.1 section 15.3.8)
 * and the category queries for events.
 *
 * Three event types, each bound to a communicator (MPI_T_BIND_MPI_COMM):
 * a message arrived at the rank before its receive (unexpected), a
 * receive of the rank was matched, a send of the rank started a
 * rendezvous.  A registration belongs to the rank that allocates it (the
 * MPI process, under zmpi) and hears that rank's events on that
 * communicator's context.
 *
 * The point-to-point layer reports through one global function pointer
 * (p2p.h, zm_p2p_event): NULL while no registration exists, so without a
 * tool the message path pays one predicted test per hook and nothing
 * else.  The hooks run with no rank's lock held, in the thread of the
 * rank that observes the event:
 *   - the registration's own rank (a receive taking an arrived message, a
 *     send starting a rendezvous): the callback runs in that rank's own
 *     user-level thread, inside the point-to-point layer, so it may call
 *     only MPI_T functions, MPI_Wtime and MPI_Wtick:
 *     MPI_T_CB_REQUIRE_MPI_RESTRICTED;
 *   - another rank (a send leaving its message at the receiver, or
 *     finding the receiver's receive posted): the callback runs in the
 *     sender's thread, concurrently with the owning rank's own code and
 *     with callbacks raised by other senders:
 *     MPI_T_CB_REQUIRE_THREAD_SAFE.
 * As the standard says, the callback chosen is the registered one with
 * the lowest safety level at or above the context's; with none the event
 * is dropped and counted for the registration's dropped handler, which is
 * called before the next event raised for that rank in a context where
 * the registration has a callback.
 *
 * One source, the zmpi clock (nanoseconds of the monotonic clock, as
 * MPI_Wtime), ordered per rank: a rank's events are raised under a lock
 * of that rank that is also held while the timestamp is read, so the
 * callbacks of one rank see non-decreasing timestamps.  Messages that
 * arrive from another process are reported when a receive takes them,
 * not when they arrive.
 */
#include "mpi/mpit_impl.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- Event types and their data -------------------------------------- */

enum { EV_UNEXPECTED, EV_MATCHED, EV_RNDV_START, EV_COUNT };

/* The data of every event type: peer is the source rank in the
 * communicator (the destination for a rendezvous start). */
typedef struct ev_data {
    int peer;
    int tag;
    unsigned long long bytes;
    unsigned ctx;                     /* the communicator's context id */
    int proto;                        /* an item of proto_enum */
} ev_data_t;

#define NELEM 5

static const MPI_Aint elem_disp[NELEM] = {
    offsetof(ev_data_t, peer), offsetof(ev_data_t, tag), offsetof(ev_data_t, bytes),
    offsetof(ev_data_t, ctx), offsetof(ev_data_t, proto),
};

static const size_t elem_size[NELEM] = { sizeof(int), sizeof(int),
                                         sizeof(unsigned long long), sizeof(unsigned),
                                         sizeof(int) };

/* Protocols: the ZM_PROTO_* values, then those of messages that a send
 * cycle buffered (cycle.c) or that came from another process. */
enum { PROTO_CYCLE = ZM_PROTO_COUNT, PROTO_NET_EAGER, PROTO_NET_RNDV };

static const struct zmpi_t_enum_item proto_items[] = {
    { ZM_PROTO_DIRECT, "direct" }, { ZM_PROTO_SLOT, "slot" }, { ZM_PROTO_MAIL, "mail" },
    { ZM_PROTO_EAGER, "eager" }, { ZM_PROTO_RNDV, "rndv" }, { ZM_PROTO_BUFFERED, "buffered" },
    { PROTO_CYCLE, "cycle" }, { PROTO_NET_EAGER, "net_eager" }, { PROTO_NET_RNDV, "net_rndv" },
};

static struct zmpi_t_enum proto_enum = { "zmpi_p2p_protocol", 9, proto_items };

int zm_mpit_event_enum_valid(MPI_T_enum e)
{
    return e == &proto_enum;
}

static const struct {
    const char *name, *desc;
} events[EV_COUNT] = {
    { "zmpi_p2p_unexpected",
      "A message reached this rank before a matching receive was posted and waits in its "
      "unexpected queue (a message of at most 16 bytes in its receive slot). Elements: source "
      "rank, tag, bytes, context id of the communicator, protocol (zmpi_p2p_protocol). Raised "
      "by the sender's thread (MPI_T_CB_REQUIRE_THREAD_SAFE; MPI_T_CB_REQUIRE_MPI_RESTRICTED "
      "for a message to itself). Messages from another process are not reported." },
    { "zmpi_p2p_matched",
      "A receive of this rank was matched with a message. Elements: source rank, tag, bytes, "
      "context id, protocol. Raised by this rank's thread when its receive takes an arrived "
      "message (MPI_T_CB_REQUIRE_MPI_RESTRICTED), by the sender's thread when the send finds "
      "the receive posted (MPI_T_CB_REQUIRE_THREAD_SAFE)." },
    { "zmpi_p2p_rndv_start",
      "A send of this rank found no matching receive and queued a rendezvous: the receiver "
      "will copy from the send buffer. Elements: destination rank, tag, bytes, context id, "
      "protocol (rndv). Raised by this rank's thread (MPI_T_CB_REQUIRE_MPI_RESTRICTED)." },
};

/* ---- Registrations, instances and state ------------------------------ */

#define NLEVELS 4
#define INST_MAGIC 0x7a6d6569u

struct zmpi_t_event_registration {
    struct zmpi_t_event_registration *next; /* in E.regs */
    int event;                        /* EV_* */
    int rank;                         /* owning world rank */
    uint32_t ctx;                     /* bound communicator's context id */
    int freed;                        /* MPI_T_event_handle_free was called */
    int active;                       /* raises using it now */
    struct {
        MPI_T_event_cb_function *fn;
        void *data;
    } cb[NLEVELS];                    /* callback per safety level, or NULL */
    MPI_T_event_dropped_cb_function *dropped_fn;
    MPI_Count dropped;                /* drops since the handler last ran */
    MPI_T_event_free_cb_function *free_fn;
    void *free_data;
};

/* Valid only during the callback it is passed to. */
struct zmpi_t_event_instance {
    uint32_t magic;                   /* INST_MAGIC while valid */
    MPI_Count ts;                     /* when the event was observed */
    const ev_data_t *d;
};

static struct {
    zm_spinlock_t lock;               /* guards regs, nlive and every registration */
    struct zmpi_t_event_registration *regs; /* live ones, and freed ones still in use */
    int nlive;                        /* not freed: the hook is set while > 0 */
    int nranks;                       /* entries of the arrays below (0 before any handle) */
    zm_spinlock_t *order;             /* per owner: held while its events are raised */
    int *acting;                      /* per rank: owner whose callback it runs, or -1 */
    signed char *level;               /* per rank: that callback's safety level, or -1 */
} E;

int zm_mpit_event_acting_for(int rank)
{
    int *acting = __atomic_load_n(&E.acting, __ATOMIC_ACQUIRE);
    return acting && rank < E.nranks && acting[rank] >= 0 ? acting[rank] : rank;
}

/* The safety level of the caller's context: that of the callback it
 * runs, or none (a plain call from the program). */
static int caller_level(void)
{
    zm_ult_t *u = zm_mpit_job_up() ? zm_ult_self() : NULL;
    signed char *level = __atomic_load_n(&E.level, __ATOMIC_ACQUIRE);
    return u && level && u->id < E.nranks && level[u->id] >= 0 ? level[u->id]
                                                                : MPI_T_CB_REQUIRE_NONE;
}

/* Under E.lock: the live registration h, or NULL. */
static struct zmpi_t_event_registration *reg_find(MPI_T_event_registration h)
{
    for (struct zmpi_t_event_registration *r = E.regs; r; r = r->next)
        if (r == h && !r->freed)
            return r;
    return NULL;
}

/* Whether `info` may be passed as hints (none is recognised: each call
 * ignores them, and the get_info calls return empty info objects). */
static int info_ok(MPI_Info info)
{
    return info == MPI_INFO_NULL || info->magic == ZM_INFO_MAGIC;
}

/* A new empty info object in *out, as the get_info calls return. */
static int new_info(MPI_Info *out)
{
    return PMPI_Info_create(out) == MPI_SUCCESS ? MPI_SUCCESS : MPI_T_ERR_MEMORY;
}

/* ---- Raising events -------------------------------------------------- */

enum { MAX_PICK = 32 };

/* What one raise does with one of the owner's registrations. */
typedef struct pick {
    struct zmpi_t_event_registration *reg;
    MPI_T_event_cb_function *fn;      /* callback for the event, or NULL */
    void *data;                       /* its user data (or the dropped handler's) */
    MPI_T_event_dropped_cb_function *dropped_fn; /* to call first, or NULL */
    MPI_Count dropped;                /* with this count */
} pick_t;

/* Under E.lock: reg's callback level for a context requiring `level`, the
 * lowest registered at or above it, or -1. */
static int cb_level(const struct zmpi_t_event_registration *reg, int level)
{
    for (int l = level; l < NLEVELS; l++)
        if (reg->cb[l].fn)
            return l;
    return -1;
}

static void count_drop(struct zmpi_t_event_registration *reg)
{
    if (reg->dropped_fn && reg->dropped < INT64_MAX)
        reg->dropped++;
}

/* Under E.lock: choose, among owner's registrations, those that hear event
 * ev on context ctx and those whose dropped handler is due, taking a
 * reference on each.  Events that no callback can take are dropped. */
static int collect(int owner, int ev, uint32_t ctx, int level, pick_t *picks)
{
    int n = 0;
    for (struct zmpi_t_event_registration *r = E.regs; r; r = r->next) {
        if (r->freed || r->rank != owner)
            continue;
        int l = cb_level(r, level);
        int hit = r->event == ev && r->ctx == ctx;
        int report = l >= 0 && r->dropped > 0 && r->dropped_fn;
        if ((hit && l < 0) || (n == MAX_PICK && (hit || report))) {
            if (hit)
                count_drop(r);
            continue;
        }
        if (!hit && !report)
            continue;
        picks[n] = (pick_t){ r, hit ? r->cb[l].fn : NULL, r->cb[l].data,
                             report ? r->dropped_fn : NULL, report ? r->dropped : 0 };
        if (report)
            r->dropped = 0;
        r->active++;
        n++;
    }
    return n;
}

/* Call the free callbacks of the registrations in `done` and free them. */
static void finish(struct zmpi_t_event_registration *done, int level)
{
    while (done) {
        struct zmpi_t_event_registration *r = done;
        done = r->next;
        if (r->free_fn)
            r->free_fn(r, (MPI_T_cb_safety)level, r->free_data);
        free(r);
    }
}

/* Under E.lock: take r out of E.regs. */
static void unlink_reg(struct zmpi_t_event_registration *r)
{
    for (struct zmpi_t_event_registration **p = &E.regs; *p; p = &(*p)->next)
        if (*p == r) {
            *p = r->next;
            return;
        }
}

/* Drop the references collect took; registrations freed meanwhile whose
 * last raise this was are finished. */
static void release(pick_t *picks, int n, int level)
{
    struct zmpi_t_event_registration *done = NULL;
    zm_spin_lock(&E.lock);
    for (int i = 0; i < n; i++) {
        struct zmpi_t_event_registration *r = picks[i].reg;
        if (--r->active == 0 && r->freed) {
            unlink_reg(r);
            r->next = done;
            done = r;
        }
    }
    zm_spin_unlock(&E.lock);
    finish(done, level);
}

/* Raise event ev with data d for world rank `owner`, from the calling
 * rank's thread. */
static void raise_at(int owner, int ev, const ev_data_t *d)
{
    int self = zm_ult_self()->id;
    int level = self == owner ? MPI_T_CB_REQUIRE_MPI_RESTRICTED : MPI_T_CB_REQUIRE_THREAD_SAFE;
    pick_t picks[MAX_PICK];
    zm_spin_lock(&E.lock);
    /* The per-rank arrays exist once a handle was allocated (under the lock). */
    int n = self < E.nranks && owner < E.nranks ? collect(owner, ev, d->ctx, level, picks) : 0;
    zm_spin_unlock(&E.lock);
    if (n == 0)
        return;
    zm_spin_lock(&E.order[owner]);
    struct zmpi_t_event_instance inst = { INST_MAGIC, (MPI_Count)zm_arch_time_ns(), d };
    int was_acting = E.acting[self], was_level = E.level[self];
    E.acting[self] = owner;
    E.level[self] = (signed char)level;
    for (int i = 0; i < n; i++)
        if (picks[i].dropped_fn)
            picks[i].dropped_fn(picks[i].dropped, picks[i].reg, 0, (MPI_T_cb_safety)level,
                                picks[i].data);
    for (int i = 0; i < n; i++)
        if (picks[i].fn)
            picks[i].fn(&inst, picks[i].reg, (MPI_T_cb_safety)level, picks[i].data);
    E.acting[self] = was_acting;
    E.level[self] = (signed char)was_level;
    inst.magic = 0;
    zm_spin_unlock(&E.order[owner]);
    release(picks, n, level);
}

static int proto_of_kind(int kind)
{
    switch (kind) {
    case ZM_MSG_EAGER: return ZM_PROTO_EAGER;
    case ZM_MSG_RNDV: return ZM_PROTO_RNDV;
    case ZM_MSG_BUFFERED: return ZM_PROTO_BUFFERED;
    case ZM_MSG_MAIL: return ZM_PROTO_MAIL;
    case ZM_MSG_HEAP: return PROTO_CYCLE;
    case ZM_MSG_NET_EAGER: return PROTO_NET_EAGER;
    default: return PROTO_NET_RNDV;
    }
}

/* The point-to-point layer's report (p2p.h, zm_p2p_event_fn). */
static void event_hook(int ev, int owner, uint32_t ctx, int src, int dst, int tag, size_t bytes,
                       int how)
{
    ev_data_t d = { src, tag, bytes, ctx, how };
    if (ev == ZM_P2P_EV_TAKEN) {
        d.proto = proto_of_kind(how);
        raise_at(owner, EV_MATCHED, &d);
        return;
    }
    raise_at(owner, ev == ZM_P2P_EV_QUEUED ? EV_UNEXPECTED : EV_MATCHED, &d);
    if (ev == ZM_P2P_EV_QUEUED && how == ZM_PROTO_RNDV) {
        d.peer = dst;
        raise_at(zm_ult_self()->id, EV_RNDV_START, &d);
    }
}

/* Under E.lock: size the per-rank arrays for world rank `rank`, once.
 * They live as long as the process: the hook may read them at any time. */
static int arrays_ready(int rank)
{
    if (E.order)
        return rank < E.nranks;
    /* Indexed by world rank, like the ULTs and the p2p state. */
    int n = zm_net_job.nranks > zm_ult_count() ? zm_net_job.nranks : zm_ult_count();
    n = n > rank ? n : rank + 1;
    zm_spinlock_t *order = calloc((size_t)n, sizeof *order);
    int *acting = malloc(sizeof(int) * (size_t)n);
    signed char *level = malloc((size_t)n);
    if (!order || !acting || !level) {
        free(order);
        free(acting);
        free(level);
        return 0;
    }
    for (int i = 0; i < n; i++) {
        acting[i] = -1;
        level[i] = -1;
    }
    E.nranks = n;
    E.order = order;
    __atomic_store_n(&E.level, level, __ATOMIC_RELEASE);
    __atomic_store_n(&E.acting, acting, __ATOMIC_RELEASE);
    return 1;
}

/* ---- Sources ----------------------------------------------------------- */

int PMPI_T_source_get_num(int *num_sources)
{
    int rc = zm_mpit_lock();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!num_sources)
        return zm_mpit_unlock_ret(MPI_T_ERR_INVALID);
    *num_sources = 1;
    return zm_mpit_unlock_ret(MPI_SUCCESS);
}
ZM_WEAK(T_source_get_num)

int PMPI_T_source_get_info(int source_index, char *name, int *name_len, char *desc,
                           int *desc_len, MPI_T_source_order *ordering,
                           MPI_Count *ticks_per_second, MPI_Count *max_ticks, MPI_Info *info)
{
    int rc = zm_mpit_lock();
    if (rc != MPI_SUCCESS)
        return rc;
    if (source_index != 0)
        return zm_mpit_unlock_ret(MPI_T_ERR_INVALID_INDEX);
    zm_mpit_put_str("zmpi_clock", name, name_len);
    zm_mpit_put_str("The zmpi clock (monotonic, nanoseconds, as MPI_Wtime). Events of one rank "
                    "are raised in the order of their timestamps.", desc, desc_len);
    if (ordering)
        *ordering = MPI_T_SOURCE_ORDERED;
    if (ticks_per_second)
        *ticks_per_second = 1000000000;
    if (max_ticks)
        *max_ticks = INT64_MAX;
    zm_mpit_unlock_ret(MPI_SUCCESS);
    return info ? new_info(info) : MPI_SUCCESS;
}
ZM_WEAK(T_source_get_info)

int PMPI_T_source_get_timestamp(int source_index, MPI_Count *timestamp)
{
    int rc = zm_mpit_lock();
    if (rc != MPI_SUCCESS)
        return rc;
    if (source_index != 0)
        return zm_mpit_unlock_ret(MPI_T_ERR_INVALID_INDEX);
    if (!timestamp)
        return zm_mpit_unlock_ret(MPI_T_ERR_INVALID);
    *timestamp = (MPI_Count)zm_arch_time_ns();
    return zm_mpit_unlock_ret(MPI_SUCCESS);
}
ZM_WEAK(T_source_get_timestamp)

/* ---- Event type queries ---------------------------------------------- */

int PMPI_T_event_get_num(int *num_events)
{
    int rc = zm_mpit_lock();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!num_events)
        return zm_mpit_unlock_ret(MPI_T_ERR_INVALID);
    *num_events = EV_COUNT;
    return zm_mpit_unlock_ret(MPI_SUCCESS);
}
ZM_WEAK(T_event_get_num)

/* The element types and displacements of the event data, the first
 * *num_elements of them (MPI 4.1: the arrays may be NULL, and so may
 * num_elements, which then makes the call ignore all three). */
static void put_layout(MPI_Datatype *types, MPI_Aint *disps, int *num_elements)
{
    const MPI_Datatype t[NELEM] = { MPI_INT, MPI_INT, MPI_UNSIGNED_LONG_LONG, MPI_UNSIGNED,
                                    MPI_INT };
    if (!num_elements)
        return;
    int n = *num_elements < NELEM ? *num_elements : NELEM;
    for (int i = 0; i < n; i++) {
        if (types)
            types[i] = t[i];
        if (disps)
            disps[i] = elem_disp[i];
    }
    *num_elements = NELEM;
}

int PMPI_T_event_get_info(int event_index, char *name, int *name_len, int *verbosity,
                          MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],
                          int *num_elements, MPI_T_enum *enumtype, MPI_Info *info, char *desc,
                          int *desc_len, int *bind)
{
    int rc = zm_mpit_lock();
    if (rc != MPI_SUCCESS)
        return rc;
    if (event_index < 0 || event_index >= EV_COUNT)
        return zm_mpit_unlock_ret(MPI_T_ERR_INVALID_INDEX);
    if (num_elements && *num_elements < 0)
        return zm_mpit_unlock_ret(MPI_T_ERR_INVALID);
    zm_mpit_put_str(events[event_index].name, name, name_len);
    zm_mpit_put_str(events[event_index].desc, desc, desc_len);
    if (verbosity)
        *verbosity = MPI_T_VERBOSITY_USER_DETAIL;
    put_layout(array_of_datatypes, array_of_displacements, num_elements);
    /* The enumeration describes the last element, the protocol. */
    if (enumtype)
        *enumtype = &proto_enum;
    if (bind)
        *bind = MPI_T_BIND_MPI_COMM;
    zm_mpit_unlock_ret(MPI_SUCCESS);
    return info ? new_info(info) : MPI_SUCCESS;
}
ZM_WEAK(T_event_get_info)

int PMPI_T_event_get_index(const char *name, int *event_index)
{
    int rc = zm_mpit_lock();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!name || !event_index)
        return zm_mpit_unlock_ret(MPI_T_ERR_INVALID);
    for (int i = 0; i < EV_COUNT; i++)
        if (strcmp(events[i].name, name) == 0) {
            *event_index = i;
            return zm_mpit_unlock_ret(MPI_SUCCESS);
        }
    return zm_mpit_unlock_ret(MPI_T_ERR_INVALID_NAME);
}
ZM_WEAK(T_event_get_index)

/* ---- Registration handles -------------------------------------------- */

/* The context id of the communicator *obj as world rank `rank` knows it,
 * or 0 with *ok clear if obj is not a valid communicator of that rank. */
static uint32_t comm_ctx(int rank, void *obj, int *ok)
{
    zm_ult_t *u = zm_ult_get(rank);
    zm_mpi_rank_t *me = u ? u->user : NULL;
    struct zmpi_comm *c = me && obj ? zm_mpi_comm(me, *(MPI_Comm *)obj) : NULL;
    *ok = c != NULL;
    return c ? c->p.ctx : 0;
}

/* Under E.lock: link a new registration of `rank` and set the hook. */
static int reg_add(int event, int rank, uint32_t ctx, MPI_T_event_registration *out)
{
    if (!arrays_ready(rank))
        return MPI_T_ERR_MEMORY;
    struct zmpi_t_event_registration *r = calloc(1, sizeof *r);
    if (!r)
        return MPI_T_ERR_OUT_OF_HANDLES;
    r->event = event;
    r->rank = rank;
    r->ctx = ctx;
    r->next = E.regs;
    E.regs = r;
    if (E.nlive++ == 0)
        __atomic_store_n(&zm_p2p_event_fn, event_hook, __ATOMIC_RELEASE);
    *out = r;
    return MPI_SUCCESS;
}

int PMPI_T_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
                              MPI_T_event_registration *event_registration)
{
    int rc = zm_mpit_lock();
    if (rc != MPI_SUCCESS)
        return rc;
    if (event_index < 0 || event_index >= EV_COUNT)
        return zm_mpit_unlock_ret(MPI_T_ERR_INVALID_INDEX);
    if (!event_registration || !info_ok(info))
        return zm_mpit_unlock_ret(MPI_T_ERR_INVALID);
    /* The events are a rank's: a thread that is not one has none. */
    int rank = zm_mpit_caller_rank();
    if (rank < 0)
        return zm_mpit_unlock_ret(MPI_T_ERR_NOT_ACCESSIBLE);
    int ok;
    uint32_t ctx = comm_ctx(rank, obj_handle, &ok);
    if (!ok)
        return zm_mpit_unlock_ret(MPI_T_ERR_INVALID_HANDLE);
    zm_spin_lock(&E.lock);
    rc = reg_add(event_index, rank, ctx, event_registration);
    zm_spin_unlock(&E.lock);
    return zm_mpit_unlock_ret(rc);
}
ZM_WEAK(T_event_handle_alloc)

/* Take both locks and find live registration h: MPI_SUCCESS with both
 * held and *out set, or the error with neither. */
static int lock_reg(MPI_T_event_registration h, struct zmpi_t_event_registration **out)
{
    int rc = zm_mpit_lock();
    if (rc != MPI_SUCCESS)
        return rc;
    zm_spin_lock(&E.lock);
    *out = reg_find(h);
    if (*out)
        return MPI_SUCCESS;
    zm_spin_unlock(&E.lock);
    return zm_mpit_unlock_ret(MPI_T_ERR_INVALID_HANDLE);
}

/* Drop both locks and return rc. */
static int unlock_reg(int rc)
{
    zm_spin_unlock(&E.lock);
    return zm_mpit_unlock_ret(rc);
}

int PMPI_T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info)
{
    struct zmpi_t_event_registration *r;
    int rc = lock_reg(event_registration, &r);
    if (rc != MPI_SUCCESS)
        return rc;
    /* No hint is recognised, so none changes anything. */
    return unlock_reg(info_ok(info) ? MPI_SUCCESS : MPI_T_ERR_INVALID);
}
ZM_WEAK(T_event_handle_set_info)

int PMPI_T_event_handle_get_info(MPI_T_event_registration event_registration,
                                 MPI_Info *info_used)
{
    struct zmpi_t_event_registration *r;
    int rc = lock_reg(event_registration, &r);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = unlock_reg(info_used ? MPI_SUCCESS : MPI_T_ERR_INVALID);
    return rc == MPI_SUCCESS ? new_info(info_used) : rc;
}
ZM_WEAK(T_event_handle_get_info)

static int level_ok(MPI_T_cb_safety s)
{
    return (int)s >= MPI_T_CB_REQUIRE_NONE && (int)s <= MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE;
}

int PMPI_T_event_register_callback(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info, void *user_data,
                                   MPI_T_event_cb_function event_cb_function)
{
    struct zmpi_t_event_registration *r;
    int rc = lock_reg(event_registration, &r);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!level_ok(cb_safety) || !info_ok(info))
        return unlock_reg(MPI_T_ERR_INVALID);
    /* A NULL function removes the level's callback (MPI 4.1). */
    r->cb[cb_safety].fn = event_cb_function;
    r->cb[cb_safety].data = event_cb_function ? user_data : NULL;
    return unlock_reg(MPI_SUCCESS);
}
ZM_WEAK(T_event_register_callback)

int PMPI_T_event_callback_set_info(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info)
{
    struct zmpi_t_event_registration *r;
    int rc = lock_reg(event_registration, &r);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!level_ok(cb_safety) || !r->cb[cb_safety].fn || !info_ok(info))
        return unlock_reg(MPI_T_ERR_INVALID);
    return unlock_reg(MPI_SUCCESS);
}
ZM_WEAK(T_event_callback_set_info)

int PMPI_T_event_callback_get_info(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info *info_used)
{
    struct zmpi_t_event_registration *r;
    int rc = lock_reg(event_registration, &r);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!level_ok(cb_safety) || !r->cb[cb_safety].fn || !info_used)
        return unlock_reg(MPI_T_ERR_INVALID);
    unlock_reg(MPI_SUCCESS);
    return new_info(info_used);
}
ZM_WEAK(T_event_callback_get_info)

int PMPI_T_event_handle_free(MPI_T_event_registration event_registration, void *user_data,
                             MPI_T_event_free_cb_function free_cb_function)
{
    struct zmpi_t_event_registration *r;
    int rc = lock_reg(event_registration, &r);
    if (rc != MPI_SUCCESS)
        return rc;
    r->freed = 1;
    r->free_fn = free_cb_function;
    r->free_data = user_data;
    if (--E.nlive == 0)
        __atomic_store_n(&zm_p2p_event_fn, NULL, __ATOMIC_RELEASE);
    /* A raise holding it (this may be one of its callbacks) finishes it
     * when done; the free callback then runs in that raise's context. */
    int now = r->active == 0;
    if (now) {
        unlink_reg(r);
        r->next = NULL;
    }
    unlock_reg(MPI_SUCCESS);
    if (now)
        finish(r, caller_level());
    return MPI_SUCCESS;
}
ZM_WEAK(T_event_handle_free)

int PMPI_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                     MPI_T_event_dropped_cb_function dropped_cb_function)
{
    struct zmpi_t_event_registration *r;
    int rc = lock_reg(event_registration, &r);
    if (rc != MPI_SUCCESS)
        return rc;
    /* Counting starts afresh with the new handler; none: nothing counted. */
    r->dropped_fn = dropped_cb_function;
    r->dropped = 0;
    return unlock_reg(MPI_SUCCESS);
}
ZM_WEAK(T_event_set_dropped_handler)

/* ---- Event instances --------------------------------------------------
 * Called from inside callbacks, where MPI_T is initialized for the owner;
 * they take no lock, and never return MPI_T_ERR_NOT_ACCESSIBLE. */

static int inst_ok(MPI_T_event_instance e)
{
    return e && e->magic == INST_MAGIC;
}

int PMPI_T_event_read(MPI_T_event_instance event_instance, int element_index, void *buffer)
{
    if (!inst_ok(event_instance))
        return MPI_T_ERR_INVALID_HANDLE;
    if (element_index < 0 || element_index >= NELEM)
        return MPI_T_ERR_INVALID_INDEX;
    if (!buffer)
        return MPI_T_ERR_INVALID;
    memcpy(buffer, (const char *)event_instance->d + elem_disp[element_index],
           elem_size[element_index]);
    return MPI_SUCCESS;
}
ZM_WEAK(T_event_read)

int PMPI_T_event_copy(MPI_T_event_instance event_instance, void *buffer)
{
    if (!inst_ok(event_instance))
        return MPI_T_ERR_INVALID_HANDLE;
    if (!buffer)
        return MPI_T_ERR_INVALID;
    /* The displacements of MPI_T_event_get_info are those of ev_data_t. */
    memcpy(buffer, event_instance->d, sizeof(ev_data_t));
    return MPI_SUCCESS;
}
ZM_WEAK(T_event_copy)

int PMPI_T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count *event_timestamp)
{
    if (!inst_ok(event_instance))
        return MPI_T_ERR_INVALID_HANDLE;
    if (!event_timestamp)
        return MPI_T_ERR_INVALID;
    *event_timestamp = event_instance->ts;
    return MPI_SUCCESS;
}
ZM_WEAK(T_event_get_timestamp)

int PMPI_T_event_get_source(MPI_T_event_instance event_instance, int *source_index)
{
    if (!inst_ok(event_instance))
        return MPI_T_ERR_INVALID_HANDLE;
    if (!source_index)
        return MPI_T_ERR_INVALID;
    *source_index = 0;
    return MPI_SUCCESS;
}
ZM_WEAK(T_event_get_source)

/* ---- Categories ------------------------------------------------------ */

/* Every event type is in the point-to-point category. */
static int events_in(int cat)
{
    return cat == ZM_MPIT_CAT_P2P ? EV_COUNT : 0;
}

int PMPI_T_category_get_num_events(int cat_index, int *num_events)
{
    int rc = zm_mpit_lock();
    if (rc != MPI_SUCCESS)
        return rc;
    if (cat_index < 0 || cat_index >= ZM_MPIT_NCATS)
        return zm_mpit_unlock_ret(MPI_T_ERR_INVALID_INDEX);
    if (!num_events)
        return zm_mpit_unlock_ret(MPI_T_ERR_INVALID);
    *num_events = events_in(cat_index);
    return zm_mpit_unlock_ret(MPI_SUCCESS);
}
ZM_WEAK(T_category_get_num_events)

int PMPI_T_category_get_events(int cat_index, int len, int indices[])
{
    int rc = zm_mpit_lock();
    if (rc != MPI_SUCCESS)
        return rc;
    if (cat_index < 0 || cat_index >= ZM_MPIT_NCATS)
        return zm_mpit_unlock_ret(MPI_T_ERR_INVALID_INDEX);
    if (len < 0 || (len > 0 && !indices))
        return zm_mpit_unlock_ret(MPI_T_ERR_INVALID);
    int n = events_in(cat_index);
    for (int i = 0; i < n && i < len; i++)
        indices[i] = i;
    return zm_mpit_unlock_ret(MPI_SUCCESS);
}
ZM_WEAK(T_category_get_events)
