/*
 * comm.c: communicator construction, comparison, naming and attributes.
 *
 * Each rank owns its own communicator objects; the ranks of one
 * communicator agree on its context id, which rank 0 draws from a
 * process-wide counter and distributes with the construction's collective.
 */
#include "mpi_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Contexts 0-3 belong to MPI_COMM_WORLD and MPI_COMM_SELF; each
 * communicator takes two (point-to-point and collective). */
static _Atomic uint32_t next_ctx = 4;

/* Freed communicator objects, kept (with magic cleared) so that a stale
 * handle is recognised as invalid rather than read after free. */
static zm_spinlock_t free_lock;
static struct zmpi_comm *free_list;

static struct zmpi_comm *comm_alloc(void)
{
    struct zmpi_comm *c;
    zm_spin_lock(&free_lock);
    c = free_list;
    if (c)
        free_list = *(struct zmpi_comm **)c->name;
    zm_spin_unlock(&free_lock);
    if (!c)
        c = malloc(sizeof(*c));
    if (c)
        memset(c, 0, sizeof(*c));
    return c;
}

static void comm_release(struct zmpi_comm *c)
{
    c->magic = 0;
    zm_spin_lock(&free_lock);
    *(struct zmpi_comm **)c->name = free_list;
    free_list = c;
    zm_spin_unlock(&free_lock);
}

/* Make this rank's object for a new communicator over group `g` (this
 * function takes over the caller's reference to g). */
static struct zmpi_comm *comm_new(struct zmpi_comm *parent, struct zmpi_group *g,
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
    c->eh = parent->eh;
    zm_mpi_eh_ref(c->eh);
    return c;
}

/* The group of a communicator, with a new reference. */
static struct zmpi_group *comm_group(zm_mpi_rank_t *me, struct zmpi_comm *c)
{
    if (c->group) {
        zm_mpi_group_ref(c->group);
        return c->group;
    }
    struct zmpi_group *g = zm_mpi_group_new(c->p.size);
    if (!g)
        return NULL;
    for (int i = 0; i < c->p.size; i++)
        g->world[i] = c->p.world ? c->p.world[i] : (c == &me->self ? me->world_rank : i);
    return g;
}

#define ENTER_COMM(fn, comm, c)                                    \
    zm_mpi_rank_t *me = zm_mpi_enter(fn);                          \
    struct zmpi_comm *c;                                           \
    int rc = zm_mpi_check_comm(me, comm, fn, &c);                  \
    if (rc != MPI_SUCCESS)                                         \
        return rc

int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    ENTER_COMM("MPI_Comm_size", comm, c);
    *size = c->p.size;
    return MPI_SUCCESS;
}
ZM_WEAK(Comm_size)

int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    ENTER_COMM("MPI_Comm_rank", comm, c);
    *rank = c->p.rank;
    return MPI_SUCCESS;
}
ZM_WEAK(Comm_rank)

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    const char *fn = "MPI_Comm_dup";
    ENTER_COMM(fn, comm, c);
    int ctx = 0;
    if (c->p.rank == 0)
        ctx = (int)atomic_fetch_add(&next_ctx, 2);
    zm_p2p_self()->wait_call = fn;
    struct zm_coll_shm *cs = zm_mpi_coll_shm(c);
    zm_status_t st = cs ? zm_coll_bcast(cs, c->p.rank, &ctx, 1, MPI_INT, 0) : ZM_ERR_NOMEM;
    struct zmpi_group *g = st == ZM_OK ? comm_group(me, c) : NULL;
    struct zmpi_comm *n = g ? comm_new(c, g, (uint32_t)ctx, me->world_rank) : NULL;
    if (!n)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    /* The new communicator keeps the topology and, through the keyvals'
     * copy callbacks, the attributes (MPI 4.1 section 7.4.2). */
    int cls = zm_mpi_topo_dup(c, n);
    if (cls == MPI_SUCCESS)
        cls = zm_mpi_attr_dup(ZM_ATTR_COMM, c, n);
    if (cls != MPI_SUCCESS) {
        MPI_Comm nh = n;
        PMPI_Comm_free(&nh);
        return zm_mpi_error(c, cls, fn, "copying the communicator's attributes or topology failed");
    }
    *newcomm = n;
    return MPI_SUCCESS;
}
ZM_WEAK(Comm_dup)

/* Members of colour `color` sorted by (key, parent rank), as world ranks. */
static struct zmpi_group *split_members(struct zmpi_comm *c, const int *all, int color,
                                        int *first)
{
    int n = 0, size = c->p.size;
    for (int r = 0; r < size; r++)
        n += all[3 * r] == color;
    struct zmpi_group *g = zm_mpi_group_new(n);
    if (!g)
        return NULL;
    int *order = malloc(sizeof(int) * (size_t)(n ? n : 1)), k = 0;
    if (!order) {
        zm_mpi_group_unref(g);
        return NULL;
    }
    for (int r = 0; r < size; r++) {
        if (all[3 * r] != color)
            continue;
        /* Insertion sort: stable in parent rank for equal keys. */
        int j = k++;
        while (j > 0 && all[3 * order[j - 1] + 1] > all[3 * r + 1]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = r;
    }
    *first = size;
    for (int i = 0; i < n; i++) {
        g->world[i] = c->p.world ? c->p.world[order[i]] : order[i];
        if (order[i] < *first)
            *first = order[i];
    }
    free(order);
    return g;
}

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    const char *fn = "MPI_Comm_split";
    ENTER_COMM(fn, comm, c);
    if (color < 0 && color != MPI_UNDEFINED)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "color=%d: invalid colour (must be >= 0 or "
                            "MPI_UNDEFINED)", color);
    int mine[3] = { color, key, 0 };
    if (c->p.rank == 0)
        mine[2] = (int)atomic_fetch_add(&next_ctx, 2u * (uint32_t)c->p.size);
    int *all = malloc(sizeof(int) * 3 * (size_t)c->p.size);
    if (!all)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    zm_p2p_self()->wait_call = fn;
    struct zm_coll_shm *cs = zm_mpi_coll_shm(c);
    zm_status_t st = cs ? zm_coll_allgather_int(cs, c->p.rank, mine, 3, all) : ZM_ERR_NOMEM;
    if (st != ZM_OK || color == MPI_UNDEFINED) {
        free(all);
        *newcomm = MPI_COMM_NULL;
        return st == ZM_OK ? MPI_SUCCESS : zm_mpi_error(c, zm_mpi_class_of(st), fn, "failed");
    }
    int first;
    struct zmpi_group *g = split_members(c, all, color, &first);
    /* A colour's context comes from its lowest parent rank: distinct per
     * colour and agreed by all its members without more messages. */
    uint32_t ctx = (uint32_t)all[2] + 2u * (uint32_t)first;
    free(all);
    struct zmpi_comm *n = g ? comm_new(c, g, ctx, me->world_rank) : NULL;
    if (!n)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    *newcomm = n;
    return MPI_SUCCESS;
}
ZM_WEAK(Comm_split)

int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                         MPI_Comm *newcomm)
{
    const char *fn = "MPI_Comm_split_type";
    ENTER_COMM(fn, comm, c);
    (void)info;
    if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "split_type=%d: unknown split type", split_type);
    /* All ranks of a zmpi process share one address space. */
    return PMPI_Comm_split(comm, split_type == MPI_UNDEFINED ? MPI_UNDEFINED : 0, key, newcomm);
}
ZM_WEAK(Comm_split_type)

int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    const char *fn = "MPI_Comm_create";
    ENTER_COMM(fn, comm, c);
    if (!group || group->magic != ZM_GROUP_MAGIC)
        return zm_mpi_error(c, MPI_ERR_GROUP, fn, "invalid group");
    struct zmpi_group *cg = comm_group(me, c);
    int ok = cg != NULL, member = 0;
    for (int i = 0; ok && i < group->size; i++) {
        int found = 0;
        for (int j = 0; j < cg->size && !found; j++)
            found = cg->world[j] == group->world[i];
        ok = found;
        member |= group->world[i] == me->world_rank;
    }
    if (cg)
        zm_mpi_group_unref(cg);
    if (!ok)
        return zm_mpi_error(c, MPI_ERR_GROUP, fn, "group is not a subset of the communicator's group");
    int ctx = 0;
    if (c->p.rank == 0)
        ctx = (int)atomic_fetch_add(&next_ctx, 2);
    zm_p2p_self()->wait_call = fn;
    struct zm_coll_shm *cs = zm_mpi_coll_shm(c);
    if (!cs || zm_coll_bcast(cs, c->p.rank, &ctx, 1, MPI_INT, 0) != ZM_OK)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    if (!member) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    zm_mpi_group_ref(group);
    struct zmpi_comm *n = comm_new(c, group, (uint32_t)ctx, me->world_rank);
    if (!n)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    *newcomm = n;
    return MPI_SUCCESS;
}
ZM_WEAK(Comm_create)

int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    const char *fn = "MPI_Comm_compare";
    ENTER_COMM(fn, comm1, c1);
    struct zmpi_comm *c2;
    rc = zm_mpi_check_comm(me, comm2, fn, &c2);
    if (rc != MPI_SUCCESS)
        return rc;
    if (c1 == c2) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    struct zmpi_group *g1 = comm_group(me, c1), *g2 = comm_group(me, c2);
    if (!g1 || !g2)
        return zm_mpi_error(c1, MPI_ERR_NO_MEM, fn, "out of memory");
    PMPI_Group_compare(g1, g2, result);
    if (*result == MPI_IDENT)
        *result = MPI_CONGRUENT;
    zm_mpi_group_unref(g1);
    zm_mpi_group_unref(g2);
    return MPI_SUCCESS;
}
ZM_WEAK(Comm_compare)

int PMPI_Comm_free(MPI_Comm *comm)
{
    const char *fn = "MPI_Comm_free";
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    struct zmpi_comm *c;
    if (!comm)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "comm pointer is NULL");
    int rc = zm_mpi_check_comm(me, *comm, fn, &c);
    if (rc != MPI_SUCCESS)
        return rc;
    if (c->predefined)
        return zm_mpi_error(c, MPI_ERR_COMM, fn, "cannot free %s", c->name);
    /* Delete callbacks run first, while the communicator is still usable
     * (MPI 4.1 section 7.7.1). */
    int cls = zm_mpi_attr_free_all(ZM_ATTR_COMM, c);
    if (cls != MPI_SUCCESS)
        return zm_mpi_error(c, cls, fn, "an attribute's delete callback failed");
    zm_mpi_topo_free(c);
    if (c->coll) {
        zm_p2p_self()->wait_call = fn;
        zm_coll_quiesce(c->coll, c->p.rank);
        zm_coll_detach(c->coll);
    }
    zm_mpi_group_unref(c->group);
    zm_mpi_eh_unref(c->eh);
    comm_release(c);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}
ZM_WEAK(Comm_free)

int PMPI_Comm_set_name(MPI_Comm comm, const char *name)
{
    ENTER_COMM("MPI_Comm_set_name", comm, c);
    if (!name)
        return zm_mpi_error(c, MPI_ERR_ARG, "MPI_Comm_set_name", "name is NULL");
    snprintf(c->name, sizeof(c->name), "%s", name);
    return MPI_SUCCESS;
}
ZM_WEAK(Comm_set_name)

int PMPI_Comm_get_name(MPI_Comm comm, char *name, int *resultlen)
{
    ENTER_COMM("MPI_Comm_get_name", comm, c);
    snprintf(name, MPI_MAX_OBJECT_NAME, "%s", c->name);
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}
ZM_WEAK(Comm_get_name)

int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    ENTER_COMM("MPI_Comm_group", comm, c);
    struct zmpi_group *g = comm_group(me, c);
    if (!g)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, "MPI_Comm_group", "out of memory");
    *group = g;
    return MPI_SUCCESS;
}
ZM_WEAK(Comm_group)
