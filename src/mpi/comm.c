/*
 * comm.c: communicator construction, comparison, naming and freeing, for
 * intra- and intercommunicators (intercomm.c holds the intercommunicator
 * constructions these calls dispatch to).
 *
 * Each rank owns its own communicator objects; the ranks of one
 * communicator agree on its context id, which one rank draws from a
 * process-wide counter (comm_ctx.c) and distributes with the
 * construction's collective (or, for the calls that have no parent to
 * communicate on, through the rendezvous of intercomm.c).
 */
#include "inter_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Freed communicator objects, kept (with magic cleared) so that a stale
 * handle is recognised as invalid rather than read after free. */
static zm_spinlock_t free_lock;
static struct zmpi_comm *free_list;

/* Communicators in libc's memory made and not yet released
 * (zm_mpi_comm_live). */
static _Atomic int live_comms;

int zm_mpi_comm_live(void)
{
    return atomic_load_explicit(&live_comms, memory_order_relaxed);
}

/* Words of a rank's region header (zm_rank_mem_t.user; checkpoint.c has
 * 1-4) where comm.c keeps the rank's communicators in its heap: the live
 * ones, linked by rnext/rprev, and the freed ones, linked by rnext (kept,
 * magic cleared, so that a stale handle is still seen as invalid).  In the
 * header, they move with the rank.  Guarded by the region's lock. */
enum { RU_COMMS = 5, RU_FREE = 6 };

static struct zmpi_comm *rank_comm_alloc(zm_rank_mem_t *h)
{
    zm_spin_lock(&h->lock);
    struct zmpi_comm *c = (struct zmpi_comm *)h->user[RU_FREE];
    if (c)
        h->user[RU_FREE] = (uintptr_t)c->rnext;
    zm_spin_unlock(&h->lock);
    if (!c && !(c = zm_core_heap_alloc(h, sizeof(*c))))
        return NULL;
    memset(c, 0, sizeof(*c));
    zm_spin_lock(&h->lock);
    c->rnext = (struct zmpi_comm *)h->user[RU_COMMS];
    if (c->rnext)
        c->rnext->rprev = c;
    h->user[RU_COMMS] = (uintptr_t)c;
    zm_spin_unlock(&h->lock);
    return c;
}

static void rank_comm_release(zm_rank_mem_t *h, struct zmpi_comm *c)
{
    zm_spin_lock(&h->lock);
    if (c->rprev)
        c->rprev->rnext = c->rnext;
    else
        h->user[RU_COMMS] = (uintptr_t)c->rnext;
    if (c->rnext)
        c->rnext->rprev = c->rprev;
    c->rprev = NULL;
    c->rnext = (struct zmpi_comm *)h->user[RU_FREE];
    h->user[RU_FREE] = (uintptr_t)c;
    zm_spin_unlock(&h->lock);
}

static struct zmpi_comm *comm_alloc(void)
{
    struct zmpi_comm *c;
    zm_rank_mem_t *h = ZM_UNLIKELY(zm_core_obj_in_ranks) ? zm_core_obj_region() : NULL;
    if (h)
        return rank_comm_alloc(h);
    zm_spin_lock(&free_lock);
    c = free_list;
    if (c)
        free_list = *(struct zmpi_comm **)c->name;
    zm_spin_unlock(&free_lock);
    if (!c)
        c = malloc(sizeof(*c));
    if (c) {
        memset(c, 0, sizeof(*c));
        atomic_fetch_add_explicit(&live_comms, 1, memory_order_relaxed);
    }
    return c;
}

static void comm_release(struct zmpi_comm *c)
{
    zm_mpi_handle_forget(c);
    c->magic = 0;
    zm_rank_mem_t *h = ZM_UNLIKELY(zm_core_obj_in_ranks) ? zm_core_rank_mem_owner(c) : NULL;
    if (h) {
        rank_comm_release(h, c);
        return;
    }
    atomic_fetch_sub_explicit(&live_comms, 1, memory_order_relaxed);
    zm_spin_lock(&free_lock);
    *(struct zmpi_comm **)c->name = free_list;
    free_list = c;
    zm_spin_unlock(&free_lock);
}

/* Whether p is in region h, or a constant of the library (NULL too). */
static int own_or_const(zm_rank_mem_t *h, const void *p, int is_const)
{
    return !p || is_const || zm_core_rank_mem_owner(p) == h;
}

/* zm_mpi_topo_own's test: whether p is in region arg. */
static int in_region(const void *p, void *arg)
{
    return zm_core_rank_mem_owner(p) == arg;
}

/* Whether what communicator c (in region h) points to moves with it: its
 * groups (an intercommunicator's remote one too), error handler, hints,
 * topology and an intercommunicator's local communicator (which is on
 * the rank's list as well, its own parts checked there). */
static int comm_parts_own(zm_rank_mem_t *h, const struct zmpi_comm *c)
{
    const struct zmpi_group *g = c->group;
    return own_or_const(h, g, g && g->predefined && g->size == 0) &&
           own_or_const(h, c->rgroup, 0) && own_or_const(h, c->local, 0) &&
           own_or_const(h, c->eh, c->eh && c->eh->kind < ZM_EH_USER) &&
           own_or_const(h, c->info, 0) && zm_mpi_topo_own(c, in_region, h);
}

/* Whether every member of intercommunicator c, on both sides, is a rank
 * of the job with a region: not one of a world spawned at run time,
 * which neither moves nor is checkpointed, and whose placement a move
 * does not know. */
static int inter_in_job(const struct zmpi_comm *c)
{
    const struct zmpi_group *gs[2] = { c->group, c->rgroup };
    for (int k = 0; k < 2; k++)
        for (int i = 0; gs[k] && i < gs[k]->size; i++)
            if (!zm_core_rank_mem_has(gs[k]->world[i]))
                return 0;
    return 1;
}

/* The first of rank w's communicators in its heap (NULL in jobs whose
 * objects are libc's); the others follow by rnext. */
static struct zmpi_comm *rank_comms(int w)
{
    return zm_core_obj_in_ranks ? (struct zmpi_comm *)zm_core_rank_mem(w)->user[RU_COMMS] : NULL;
}

int zm_mpi_comm_held(int w, const char **why)
{
    int n = 0;
    const char *r = NULL;
    zm_rank_mem_t *h = zm_core_rank_mem(w);
    for (struct zmpi_comm *c = rank_comms(w); c; c = c->rnext, n++) {
        if (r)
            continue;
        if (c->inter && !inter_in_job(c))
            r = "it holds an intercommunicator to ranks spawned at run time";
        else if (c->pin)
            r = "it holds a window or a file (their objects are its process's)";
        else if (!comm_parts_own(h, c))
            r = "it holds a communicator whose group, error handler, info object or topology "
                "was made off its own thread";
    }
    if (why)
        *why = r;
    return n;
}

void zm_mpi_comm_drop_colls(int w)
{
    for (struct zmpi_comm *c = rank_comms(w); c; c = c->rnext)
        if (c->coll) {
            zm_coll_placement_drop(c->coll);
            c->coll = NULL;
        }
}

void zm_mpi_comm_restored(int w)
{
    /* Their collective state was the old process's memory: attached anew
     * at the next collective, as after a move (zm_mpi_comm_drop_colls). */
    for (struct zmpi_comm *c = rank_comms(w); c; c = c->rnext)
        c->coll = NULL;
}

void zm_mpi_comm_forget_caches(int w)
{
    for (struct zmpi_comm *c = rank_comms(w); c; c = c->rnext)
        zm_mpi_topo_forget(c);
}

struct zmpi_comm *zm_mpi_comm_new(struct zmpi_errhandler *eh, struct zmpi_group *g,
                                  uint32_t ctx, int my_world)
{
    struct zmpi_comm *c = comm_alloc();
    if (!c) {
        zm_mpi_group_unref(g);
        return NULL;
    }
    c->magic = ZM_COMM_MAGIC;
    c->group = g;
    c->p.ctx = ctx;
    c->p.size = g->size;
    c->p.world = g->world;
    c->p.name = c->name;
    for (int i = 0; i < g->size; i++)
        if (g->world[i] == my_world)
            c->p.rank = i;
    c->eh = eh;
    zm_mpi_eh_ref(c->eh);
    return c;
}

void zm_mpi_comm_destroy(struct zmpi_comm *c)
{
    zm_mpi_topo_free(c);
    if (c->coll) {
        zm_coll_quiesce(c->coll, c->p.rank);
        zm_coll_detach(c->coll);
    }
    if (c->local)
        zm_mpi_comm_destroy(c->local);
    if (c->info != MPI_INFO_NULL)
        PMPI_Info_free(&c->info);
    zm_mpi_group_unref(c->group);
    zm_mpi_group_unref(c->rgroup);
    zm_mpi_eh_unref(c->eh);
    comm_release(c);
}

/* The (local) group of a communicator, with a new reference. */
struct zmpi_group *zm_mpi_comm_members(zm_mpi_rank_t *me, struct zmpi_comm *c)
{
    struct zmpi_group *g = zm_mpi_group_new(c->p.size);
    for (int i = 0; g && i < c->p.size; i++)
        g->world[i] = c->p.world ? c->p.world[i] : (c == &me->self ? me->world_rank : i);
    return g;
}

static struct zmpi_group *comm_group(zm_mpi_rank_t *me, struct zmpi_comm *c)
{
    /* The world group is the process's: a rank whose objects live in its
     * heap takes a copy there, which moves with it (empty groups are a
     * constant of the library, the same everywhere). */
    if (c->group && !(ZM_UNLIKELY(zm_core_obj_in_ranks) && c->group->predefined &&
                      c->group->size > 0)) {
        zm_mpi_group_ref(c->group);
        return c->group;
    }
    return zm_mpi_comm_members(me, c);
}

int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    ENTER_COMM("MPI_Comm_size", comm, c);
    if (!size)
        return zm_mpi_error(c, MPI_ERR_ARG, "MPI_Comm_size", "(size=NULL): invalid pointer");
    *size = c->inter ? c->group->size : c->p.size;
    return MPI_SUCCESS;
}
ZM_WEAK(Comm_size)

int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    ENTER_COMM("MPI_Comm_rank", comm, c);
    if (!rank)
        return zm_mpi_error(c, MPI_ERR_ARG, "MPI_Comm_rank", "(rank=NULL): invalid pointer");
    *rank = c->p.rank;
    return MPI_SUCCESS;
}
ZM_WEAK(Comm_rank)

/* Check an info argument that may be MPI_INFO_NULL. */
static int check_info(const char *fn, MPI_Info info)
{
    return info == MPI_INFO_NULL ? MPI_SUCCESS : zm_mpi_info_check(fn, info);
}

/* Give a new communicator what a duplicate keeps of its parent (MPI 4.1
 * section 7.4.2): the topology, the attributes (through the keyvals' copy
 * callbacks) and the hints, which the *_with_info forms (with_info set)
 * take from `info` instead.  On failure frees n and raises the error on
 * c. */
static int dup_extras(struct zmpi_comm *c, struct zmpi_comm *n, const char *fn, int with_info,
                      MPI_Info info)
{
    int cls = zm_mpi_topo_dup(c, n);
    if (cls == MPI_SUCCESS)
        cls = zm_mpi_attr_dup(ZM_ATTR_COMM, c, n);
    if (cls == MPI_SUCCESS && with_info)
        cls = zm_mpi_comm_info_apply(n, info);
    else if (cls == MPI_SUCCESS && c->info != MPI_INFO_NULL)
        cls = PMPI_Info_dup(c->info, &n->info);
    /* A plain duplicate keeps the hints, zmpi_net_eager_max included. */
    if (!with_info)
        n->p.net_eager = c->p.net_eager;
    n->pin = c->pin;
    if (cls == MPI_SUCCESS)
        return MPI_SUCCESS;
    MPI_Comm nh = n;
    PMPI_Comm_free(&nh);
    return zm_mpi_error(c, cls, fn, "copying the communicator's attributes, topology or hints "
                        "failed");
}

/* Comm_dup (with_info = 0) and Comm_dup_with_info. */
static int comm_dup(const char *fn, MPI_Comm comm, int with_info, MPI_Info info,
                    MPI_Comm *newcomm)
{
    ENTER_COMM(fn, comm, c);
    if ((rc = check_info(fn, info)) != MPI_SUCCESS)
        return rc;
    if (!newcomm)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(newcomm=NULL): invalid pointer");
    struct zmpi_comm *n = NULL;
    if (c->inter) {
        if ((rc = zm_mpi_inter_dup(c, comm, fn, &n)) != MPI_SUCCESS)
            return rc;
    } else {
        int ctx = 0;
        if (c->p.rank == 0)
            ctx = (int)zm_mpi_ctx_draw(2);
        zm_p2p_waiter()->wait_call = fn;
        struct zm_coll_shm *cs = zm_mpi_coll_shm(c);
        zm_status_t st = cs ? zm_coll_bcast(cs, c->p.rank, &ctx, 1, MPI_INT, 0) : ZM_ERR_NOMEM;
        struct zmpi_group *g = st == ZM_OK ? comm_group(me, c) : NULL;
        n = g ? zm_mpi_comm_new(c->eh, g, (uint32_t)ctx, me->world_rank) : NULL;
        if (!n)
            return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    if ((rc = dup_extras(c, n, fn, with_info, info)) != MPI_SUCCESS) {
        /* As MPICH and Open MPI do, so that a program that frees the
         * result unconditionally gets a clean refusal. */
        *newcomm = MPI_COMM_NULL;
        return rc;
    }
    *newcomm = n;
    return MPI_SUCCESS;
}

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    return comm_dup("MPI_Comm_dup", comm, 0, MPI_INFO_NULL, newcomm);
}
ZM_WEAK(Comm_dup)

int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    return comm_dup("MPI_Comm_dup_with_info", comm, 1, info, newcomm);
}
ZM_WEAK(Comm_dup_with_info)

/* ---- Non-blocking duplication ------------------------------------------ */

/* What the finishing step of an idup schedule fills in (kept in the
 * schedule's scratch space). */
struct idup_arg {
    struct zmpi_comm *n;    /* the new communicator, usable once this ran */
    uint32_t base;          /* context base drawn by the drawer (received or own) */
    uint32_t lctx_off;      /* intercomm: offset of our local context from base */
};

static int idup_finish(zm_mpi_sched_t *s, void *arg)
{
    (void)s;
    struct idup_arg *a = arg;
    a->n->p.ctx = a->base;
    if (a->n->local)
        a->n->local->p.ctx = a->base + a->lctx_off;
    return MPI_SUCCESS;
}

/* The schedule of an idup: one rank (the drawer: rank 0 of an
 * intracommunicator, the leader of the first group of an intercomm) draws
 * the contexts and sends the base to every other participant, whose
 * finishing step fills it in; nobody waits for anybody inside the call.
 * The messages go by world rank on the parent's collective context, with a
 * tag no collective uses. */
static zm_mpi_sched_t *idup_sched(zm_mpi_rank_t *me, struct zmpi_comm *c, MPI_Comm h,
                                  struct zmpi_comm *n)
{
    const struct zmpi_group *lg = c->group, *rg = c->rgroup;
    int nl = lg ? lg->size : c->p.size, nr = c->inter ? rg->size : 0;
    int first = !c->inter || zm_mpi_inter_first(c);
    int drawer = c->inter ? (first ? lg->world[0] : rg->world[0])
                          : (c->p.world ? c->p.world[0] : (c == &me->self ? me->world_rank : 0));
    struct zmpi_comm pseudo;
    memset(&pseudo, 0, sizeof(pseudo));
    pseudo.p = (zm_p2p_comm_t){ c->p.ctx, me->world_rank, me->world.p.size, NULL, c->name,
                                c->p.net_eager };
    int self_draws = drawer == me->world_rank;
    zm_mpi_sched_t *s = zm_mpi_sched_new(&pseudo, h, self_draws ? nl + nr : 1,
                                         sizeof(struct idup_arg));
    if (!s)
        return NULL;
    struct idup_arg *a = zm_mpi_sched_scratch(s);
    a->n = n;
    a->lctx_off = first ? 2 : 4;
    if (self_draws) {
        a->base = zm_mpi_ctx_draw(c->inter ? 6 : 2);
        for (int i = 0; i < nl + nr; i++) {
            int w = i < nl ? (lg ? lg->world[i] : c->p.world ? c->p.world[i] : i)
                           : rg->world[i - nl];
            if (w != me->world_rank &&
                zm_mpi_sched_send(s, &a->base, 1, MPI_UINT32_T, w, ZM_ITAG_IDUP) != MPI_SUCCESS)
                goto fail;
        }
    } else if (zm_mpi_sched_recv(s, &a->base, 1, MPI_UINT32_T, drawer, ZM_ITAG_IDUP) !=
               MPI_SUCCESS) {
        goto fail;
    }
    zm_mpi_sched_finish_with(s, idup_finish, a);
    return s;
fail:
    zm_mpi_sched_free(s);
    return NULL;
}

static int comm_idup(const char *fn, MPI_Comm comm, int with_info, MPI_Info info,
                     MPI_Comm *newcomm, MPI_Request *request)
{
    ENTER_COMM(fn, comm, c);
    if ((rc = check_info(fn, info)) != MPI_SUCCESS)
        return rc;
    if (!newcomm || !request)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(%s=NULL): invalid pointer",
                            newcomm ? "request" : "newcomm");
    /* The object exists at once, without its context: MPI forbids using
     * it before the request completes, and the finishing step sets it. */
    struct zmpi_group *g = comm_group(me, c);
    struct zmpi_comm *n = NULL;
    if (g && c->inter) {
        zm_mpi_group_ref(c->rgroup);
        n = zm_mpi_intercomm_new(c->eh, g, c->rgroup, 0, 0, me->world_rank);
    } else if (g) {
        n = zm_mpi_comm_new(c->eh, g, 0, me->world_rank);
    }
    zm_mpi_sched_t *s = n ? idup_sched(me, c, comm, n) : NULL;
    if (!s) {
        if (n)
            zm_mpi_comm_destroy(n);
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    if ((rc = dup_extras(c, n, fn, with_info, info)) != MPI_SUCCESS) {
        zm_mpi_sched_free(s);
        *newcomm = MPI_COMM_NULL;
        *request = MPI_REQUEST_NULL;
        return rc;
    }
    if ((rc = zm_mpi_sched_start(s)) != MPI_SUCCESS) {
        zm_mpi_sched_wait(zm_mpi_sched_request(s, 0));
        zm_mpi_sched_free(s);
        return zm_mpi_error(c, rc, fn, "starting the duplication failed");
    }
    *newcomm = n;
    *request = zm_mpi_sched_request(s, 0);
    return MPI_SUCCESS;
}

int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    return comm_idup("MPI_Comm_idup", comm, 0, MPI_INFO_NULL, newcomm, request);
}
ZM_WEAK(Comm_idup)

int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
                             MPI_Request *request)
{
    return comm_idup("MPI_Comm_idup_with_info", comm, 1, info, newcomm, request);
}
ZM_WEAK(Comm_idup_with_info)

/* ---- Splitting ---------------------------------------------------------- */

struct zmpi_group *zm_mpi_split_members(const int *all, int stride, int n, const int *world,
                                        int color, int *first)
{
    int k = 0, m = 0;
    for (int r = 0; r < n; r++)
        m += all[stride * r] == color;
    struct zmpi_group *g = zm_mpi_group_new(m);
    int *order = malloc(sizeof(int) * (size_t)(m ? m : 1));
    if (!g || !order) {
        zm_mpi_group_unref(g);
        free(order);
        return NULL;
    }
    for (int r = 0; r < n; r++) {
        if (all[stride * r] != color)
            continue;
        /* Insertion sort: stable in rank for equal keys. */
        int j = k++;
        while (j > 0 && all[stride * order[j - 1] + 1] > all[stride * r + 1]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = r;
    }
    *first = n;
    for (int i = 0; i < m; i++) {
        g->world[i] = world ? world[order[i]] : order[i];
        if (order[i] < *first)
            *first = order[i];
    }
    free(order);
    return g;
}

/* Split intracommunicator c by (color, key), for Comm_split and
 * Comm_split_type (fn names the call).  The new communicator gets `info`
 * (owned by it from then on) unless it is MPI_INFO_NULL. */
static int split_intra(zm_mpi_rank_t *me, struct zmpi_comm *c, const char *fn, int color,
                       int key, MPI_Comm *newcomm)
{
    int mine[3] = { color, key, 0 };
    if (c->p.rank == 0)
        mine[2] = (int)zm_mpi_ctx_draw(2u * (uint32_t)c->p.size);
    int *all = malloc(sizeof(int) * 3 * (size_t)c->p.size);
    if (!all)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    zm_p2p_waiter()->wait_call = fn;
    struct zm_coll_shm *cs = zm_mpi_coll_shm(c);
    zm_status_t st = cs ? zm_coll_allgather_int(cs, c->p.rank, mine, 3, all) : ZM_ERR_NOMEM;
    if (st != ZM_OK || color == MPI_UNDEFINED) {
        free(all);
        *newcomm = MPI_COMM_NULL;
        return st == ZM_OK ? MPI_SUCCESS : zm_mpi_error(c, zm_mpi_class_of(st), fn, "failed");
    }
    int first;
    const int *world = c->p.world ? c->p.world : c == &me->self ? &me->world_rank : NULL;
    struct zmpi_group *g = zm_mpi_split_members(all, 3, c->p.size, world, color, &first);
    /* A colour's context comes from its lowest parent rank: distinct per
     * colour and agreed by all its members without more messages. */
    uint32_t ctx = (uint32_t)all[2] + 2u * (uint32_t)first;
    free(all);
    struct zmpi_comm *n = g ? zm_mpi_comm_new(c->eh, g, ctx, me->world_rank) : NULL;
    if (!n)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    n->pin = c->pin;
    *newcomm = n;
    return MPI_SUCCESS;
}

static int split_any(zm_mpi_rank_t *me, struct zmpi_comm *c, MPI_Comm comm, const char *fn,
                     int color, int key, MPI_Comm *newcomm)
{
    if (!newcomm)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(newcomm=NULL): invalid pointer");
    return c->inter ? zm_mpi_inter_split(c, comm, fn, color, key, newcomm)
                    : split_intra(me, c, fn, color, key, newcomm);
}

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    const char *fn = "MPI_Comm_split";
    ENTER_COMM(fn, comm, c);
    if (color < 0 && color != MPI_UNDEFINED)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(color=%d): invalid colour (must be >= 0 or "
                            "MPI_UNDEFINED)", color);
    return split_any(me, c, comm, fn, color, key, newcomm);
}
ZM_WEAK(Comm_split)

/* The worker thread world rank w was placed on: wake-ups may run a rank
 * on another worker for a while (ult.c), so its home worker is the one
 * stable answer every rank agrees on, until a ZMPI_Migrate step moves it
 * (src/ult/lb.c): a communicator split by worker before then keeps its
 * members and stays correct, but describes the old placement. */
static int worker_of(int w)
{
    return zm_ult_get(w)->home_id;
}

/* A colour for the worker of local world rank w that no worker of another
 * process shares. */
static int worker_color(int w)
{
    return zm_net_proc_of(w) * 4096 + worker_of(w);
}

/* The node of world rank w: processes of one node can share memory
 * (shared windows map one segment of it, win.c). */
static int node_of(int w)
{
    return zm_net_job.node ? zm_net_job.node[zm_net_proc_of(w)] : 0;
}

/* Hardware levels, largest first: the node (shared memory, between the
 * processes on it too), the process (one address space), and one worker
 * thread, which runs on one core at a time (a core-like level).  Returns
 * the colour of world rank w at the level named `name` and sets *level to
 * that name, or returns MPI_UNDEFINED if zmpi does not know the level. */
static int hw_color(const char *name, int w, const char **level)
{
    if (strcmp(name, "mpi_shared_memory") == 0) {
        *level = "mpi_shared_memory";
        return node_of(w);
    }
    if (strcmp(name, "zmpi_process") == 0) {
        *level = "zmpi_process";
        return zm_net_proc_of(w);
    }
    if (strcmp(name, "zmpi_worker") == 0) {
        *level = "zmpi_worker";
        return worker_color(w);
    }
    return MPI_UNDEFINED;
}

/* The colour of the calling rank for split_type, and in *level the
 * hardware level the new communicator stands for (NULL if none). */
static int split_type_color(zm_mpi_rank_t *me, struct zmpi_comm *c, int type, MPI_Info info,
                            const char **level)
{
    char val[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    *level = NULL;
    /* Shared memory is the node's: the processes on one node share
     * windows' memory with each other (docs/net.md). */
    if (type == MPI_COMM_TYPE_SHARED) {
        *level = "mpi_shared_memory";
        return node_of(me->world_rank);
    }
    if (type == MPI_COMM_TYPE_HW_UNGUIDED) {
        /* The largest level that makes a strict subset: the node, when the
         * (local) group spans several; else the process; else the worker;
         * else there is none. */
        struct zmpi_group *g = comm_group(me, c);
        int spans = 0;
        for (int i = 1; g && i < g->size && !spans; i++)
            spans = node_of(g->world[i]) != node_of(g->world[0]);
        if (spans) {
            zm_mpi_group_unref(g);
            *level = "mpi_shared_memory";
            return node_of(me->world_rank);
        }
        for (int i = 1; g && i < g->size && !spans; i++)
            spans = zm_net_proc_of(g->world[i]) != zm_net_proc_of(g->world[0]);
        if (spans) {
            zm_mpi_group_unref(g);
            *level = "zmpi_process";
            return zm_net_proc_of(me->world_rank);
        }
        for (int i = 1; g && i < g->size && !spans; i++)
            spans = worker_of(g->world[i]) != worker_of(g->world[0]);
        zm_mpi_group_unref(g);
        *level = spans ? "zmpi_worker" : NULL;
        return spans ? worker_color(me->world_rank) : MPI_UNDEFINED;
    }
    if (info != MPI_INFO_NULL &&
        PMPI_Info_get(info, "mpi_hw_resource_type", MPI_MAX_INFO_VAL, val, &flag) ==
            MPI_SUCCESS && flag) {
        return hw_color(val, me->world_rank, level);
    }
    /* Process sets: the two every MPI process has. */
    if (type == MPI_COMM_TYPE_RESOURCE_GUIDED && info != MPI_INFO_NULL &&
        PMPI_Info_get(info, "mpi_pset_name", MPI_MAX_INFO_VAL, val, &flag) == MPI_SUCCESS &&
        flag)
        return strcmp(val, "mpi://WORLD") == 0 ? 0
               : strcmp(val, "mpi://SELF") == 0 ? me->world_rank : MPI_UNDEFINED;
    return MPI_UNDEFINED;
}

int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                         MPI_Comm *newcomm)
{
    const char *fn = "MPI_Comm_split_type";
    ENTER_COMM(fn, comm, c);
    if ((rc = check_info(fn, info)) != MPI_SUCCESS)
        return rc;
    if (split_type != MPI_UNDEFINED && split_type != MPI_COMM_TYPE_SHARED &&
        split_type != MPI_COMM_TYPE_HW_GUIDED && split_type != MPI_COMM_TYPE_HW_UNGUIDED &&
        split_type != MPI_COMM_TYPE_RESOURCE_GUIDED)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(split_type=%d): unknown split type",
                            split_type);
    const char *level = NULL;
    int color = split_type == MPI_UNDEFINED ? MPI_UNDEFINED
                : split_type_color(me, c, split_type, info, &level);
    if ((rc = split_any(me, c, comm, fn, color, key, newcomm)) != MPI_SUCCESS)
        return rc;
    if (*newcomm == MPI_COMM_NULL)
        return MPI_SUCCESS;
    /* The new communicator takes the hints and says which hardware level
     * it stands for (MPI 4.1 section 7.4.2), through its info. */
    struct zmpi_comm *n = *newcomm;
    int cls = zm_mpi_comm_info_apply(n, info);
    if (cls == MPI_SUCCESS && level && n->info == MPI_INFO_NULL)
        cls = PMPI_Info_create(&n->info);
    if (cls == MPI_SUCCESS && level)
        cls = PMPI_Info_set(n->info, "mpi_hw_resource_type", level);
    /* MPI_COMM_TYPE_HW_UNGUIDED also tells the caller through the info it
     * passed (MPI 4.1 section 7.4.2). */
    if (cls == MPI_SUCCESS && level && split_type == MPI_COMM_TYPE_HW_UNGUIDED &&
        info != MPI_INFO_NULL)
        cls = PMPI_Info_set(info, "mpi_hw_resource_type", level);
    if (cls != MPI_SUCCESS) {
        PMPI_Comm_free(newcomm);
        return zm_mpi_error(c, cls, fn, "setting the new communicator's info failed");
    }
    return MPI_SUCCESS;
}
ZM_WEAK(Comm_split_type)

/* ---- Creation from groups ----------------------------------------------- */

/* Nonzero if every member of `sub` is in `g`. */
static int group_within(const struct zmpi_group *sub, const struct zmpi_group *g)
{
    for (int i = 0; i < sub->size; i++) {
        int found = 0;
        for (int j = 0; j < g->size && !found; j++)
            found = g->world[j] == sub->world[i];
        if (!found)
            return 0;
    }
    return 1;
}

/* Position of world rank w in g, or -1. */
static int group_find(const struct zmpi_group *g, int w)
{
    for (int i = 0; i < g->size; i++)
        if (g->world[i] == w)
            return i;
    return -1;
}

/* Check a group argument that must lie within c's (local) group. */
static int check_subgroup(zm_mpi_rank_t *me, struct zmpi_comm *c, const char *fn, MPI_Group group)
{
    if (!group || group->magic != ZM_GROUP_MAGIC)
        return zm_mpi_error(c, MPI_ERR_GROUP, fn, "(group): invalid group %s",
                            group ? "(freed or not a group)" : "MPI_GROUP_NULL");
    struct zmpi_group *cg = comm_group(me, c);
    if (!cg)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    int ok = group_within(group, cg);
    zm_mpi_group_unref(cg);
    return ok ? MPI_SUCCESS
              : zm_mpi_error(c, MPI_ERR_GROUP, fn, "(group): not a subset of the communicator's "
                             "%sgroup", c->inter ? "local " : "");
}

int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    const char *fn = "MPI_Comm_create";
    ENTER_COMM(fn, comm, c);
    if ((rc = check_subgroup(me, c, fn, group)) != MPI_SUCCESS)
        return rc;
    if (!newcomm)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(newcomm=NULL): invalid pointer");
    if (c->inter)
        return zm_mpi_inter_create(c, comm, fn, group, newcomm);
    int ctx = 0;
    if (c->p.rank == 0)
        ctx = (int)zm_mpi_ctx_draw(2);
    zm_p2p_waiter()->wait_call = fn;
    struct zm_coll_shm *cs = zm_mpi_coll_shm(c);
    if (!cs || zm_coll_bcast(cs, c->p.rank, &ctx, 1, MPI_INT, 0) != ZM_OK)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    if (group_find(group, me->world_rank) < 0) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    zm_mpi_group_ref(group);
    struct zmpi_comm *n = zm_mpi_comm_new(c->eh, group, (uint32_t)ctx, me->world_rank);
    if (!n)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    n->pin = c->pin;
    *newcomm = n;
    return MPI_SUCCESS;
}
ZM_WEAK(Comm_create)

/* Only the members of `group` call it, so there is no collective of the
 * parent to agree on a context: the members meet in the process-wide
 * rendezvous, keyed by the parent's context, the tag and the group. */
int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    const char *fn = "MPI_Comm_create_group";
    ENTER_COMM(fn, comm, c);
    if (c->inter)
        return zm_mpi_error(c, MPI_ERR_COMM, fn, "(comm): must be an intracommunicator");
    if ((rc = check_subgroup(me, c, fn, group)) != MPI_SUCCESS)
        return rc;
    if ((rc = zm_mpi_check_tag(c, fn, tag, 0)) != MPI_SUCCESS)
        return rc;
    if (!newcomm)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(newcomm=NULL): invalid pointer");
    if (group_find(group, me->world_rank) < 0) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    char key[64];
    uint32_t base;
    int world0 = c->p.world ? c->p.world[0] : 0;
    snprintf(key, sizeof(key), "\001create_group %u %d %d", (unsigned)c->p.ctx, world0, tag);
    if (zm_mpi_rdv_take(key, group->world, group->size, NULL, 0, 2, me->world_rank, &base) !=
        MPI_SUCCESS)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    zm_mpi_group_ref(group);
    struct zmpi_comm *n = zm_mpi_comm_new(c->eh, group, base, me->world_rank);
    if (!n)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    n->pin = c->pin;
    *newcomm = n;
    return MPI_SUCCESS;
}
ZM_WEAK(Comm_create_group)

/* ---- Comparison, freeing, names ----------------------------------------- */

int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    const char *fn = "MPI_Comm_compare";
    ENTER_COMM(fn, comm1, c1);
    struct zmpi_comm *c2;
    rc = zm_mpi_check_comm(me, comm2, fn, &c2);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!result)
        return zm_mpi_error(c1, MPI_ERR_ARG, fn, "(result=NULL): invalid pointer");
    if (c1 == c2) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    if (!c1->inter != !c2->inter) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    struct zmpi_group *g1 = comm_group(me, c1), *g2 = comm_group(me, c2);
    if (!g1 || !g2) {
        zm_mpi_group_unref(g1);
        zm_mpi_group_unref(g2);
        return zm_mpi_error(c1, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    PMPI_Group_compare(g1, g2, result);
    /* Intercommunicators compare both groups; the weaker result wins
     * (MPI_IDENT < MPI_CONGRUENT < MPI_SIMILAR < MPI_UNEQUAL). */
    if (c1->inter) {
        int r2;
        PMPI_Group_compare(c1->rgroup, c2->rgroup, &r2);
        if (r2 > *result)
            *result = r2;
    }
    if (*result == MPI_IDENT)
        *result = MPI_CONGRUENT;
    zm_mpi_group_unref(g1);
    zm_mpi_group_unref(g2);
    return MPI_SUCCESS;
}
ZM_WEAK(Comm_compare)

/* Enter Comm_free / Comm_disconnect (call `fn`) and check its handle; *c
 * receives the object. */
static int check_freeable(const char *fn, MPI_Comm *comm, struct zmpi_comm **c)
{
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    if (!comm)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(comm=NULL): invalid pointer");
    int rc = zm_mpi_check_comm(me, *comm, fn, c);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((*c)->predefined)
        return zm_mpi_error(*c, MPI_ERR_COMM, fn, "(comm=%s): cannot free a predefined "
                            "communicator", (*c)->name);
    return MPI_SUCCESS;
}

int PMPI_Comm_free(MPI_Comm *comm)
{
    const char *fn = "MPI_Comm_free";
    struct zmpi_comm *c;
    int rc = check_freeable(fn, comm, &c);
    if (rc != MPI_SUCCESS)
        return rc;
    /* Delete callbacks run first, while the communicator is still usable
     * (MPI 4.1 section 7.7.1). */
    int cls = zm_mpi_attr_free_all(ZM_ATTR_COMM, c);
    if (cls != MPI_SUCCESS)
        return zm_mpi_error(c, cls, fn, "an attribute's delete callback failed");
    zm_p2p_waiter()->wait_call = fn;
    zm_mpi_comm_destroy(c);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}
ZM_WEAK(Comm_free)

/* Collective: a barrier over the communicator (both groups of an
 * intercommunicator) makes every rank's sends and receives on it matched,
 * and in one process a matched operation completes within the call that
 * matched it, so nothing is pending on the communicator afterwards when
 * the program is correct; then it is freed. */
int PMPI_Comm_disconnect(MPI_Comm *comm)
{
    const char *fn = "MPI_Comm_disconnect";
    struct zmpi_comm *c;
    int rc = check_freeable(fn, comm, &c);
    if (rc != MPI_SUCCESS)
        return rc;
    if (c->inter) {
        rc = zm_mpi_inter_barrier(c, fn, *comm, ZM_INTER_BLOCKING);
    } else {
        zm_p2p_waiter()->wait_call = fn;
        struct zm_coll_shm *cs = zm_mpi_coll_shm(c);
        zm_status_t st = cs ? zm_coll_barrier(cs, c->p.rank) : ZM_ERR_NOMEM;
        rc = st == ZM_OK ? MPI_SUCCESS : zm_mpi_error(c, zm_mpi_class_of(st), fn, "barrier failed");
    }
    return rc == MPI_SUCCESS ? PMPI_Comm_free(comm) : rc;
}
ZM_WEAK(Comm_disconnect)

int PMPI_Comm_set_name(MPI_Comm comm, const char *name)
{
    ENTER_COMM("MPI_Comm_set_name", comm, c);
    if (!name)
        return zm_mpi_error(c, MPI_ERR_ARG, "MPI_Comm_set_name", "(name=NULL): invalid pointer");
    snprintf(c->name, sizeof(c->name), "%s", name);
    return MPI_SUCCESS;
}
ZM_WEAK(Comm_set_name)

int PMPI_Comm_get_name(MPI_Comm comm, char *name, int *resultlen)
{
    /* MPI 4.1 section 7.8: MPI_COMM_NULL may be asked too; its name is
     * "MPI_COMM_NULL". */
    if (comm == MPI_COMM_NULL && name && resultlen) {
        zm_mpi_enter("MPI_Comm_get_name");
        *resultlen = snprintf(name, MPI_MAX_OBJECT_NAME, "MPI_COMM_NULL");
        return MPI_SUCCESS;
    }
    ENTER_COMM("MPI_Comm_get_name", comm, c);
    if (!name || !resultlen)
        return zm_mpi_error(c, MPI_ERR_ARG, "MPI_Comm_get_name", "(%s=NULL): invalid pointer",
                            name ? "resultlen" : "name");
    snprintf(name, MPI_MAX_OBJECT_NAME, "%s", c->name);
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}
ZM_WEAK(Comm_get_name)

int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    ENTER_COMM("MPI_Comm_group", comm, c);
    if (!group)
        return zm_mpi_error(c, MPI_ERR_ARG, "MPI_Comm_group", "(group=NULL): invalid pointer");
    struct zmpi_group *g = comm_group(me, c);
    if (!g)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, "MPI_Comm_group", "out of memory");
    *group = g;
    return MPI_SUCCESS;
}
ZM_WEAK(Comm_group)
