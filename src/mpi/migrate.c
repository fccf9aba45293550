/*
 * migrate.c: the zmpi extensions ZMPI_Migrate and ZMPI_Set_load
 * (include/mpi.h, docs/migrate.md): rank migration between the worker
 * threads of a process, at points the program chooses.
 *
 * ZMPI_Migrate is collective over the caller's MPI_COMM_WORLD.  The ranks
 * of that world that run in this process form one balancing step of the
 * ult layer (src/ult/lb.c), made on first use and kept for the job: each
 * rank joins it with its load, the last to join plans and moves, and
 * every rank returns on its new worker.  Ranks in other processes balance
 * their own process at the same call; nothing crosses processes (that is
 * not supported yet, docs/migrate.md).  A spawned group has a world of its
 * own, hence a step of its own.
 *
 * Nothing of the API layer's per-rank state depends on the worker, so
 * requests, communicators, windows, files and attributes need no change:
 * see docs/migrate.md for what stays valid and why.
 */
#include "mpi_impl.h"
#include "mpi/migrate_net.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* The balancing of one world in this process. */
typedef struct world_lb {
    struct world_lb *next;
    uint32_t ctx;              /* the world's context and first world rank */
    int world0;
    int n;                     /* its ranks in this process */
    int *local;                /* world communicator rank -> index among them, or
                                * NULL when all ranks are here (the identity) */
    zm_ult_lb_step_t *step;
    double *stated;            /* per index: ZMPI_Set_load's value, or -1 */
} world_lb_t;

/* The list only grows (an entry lives as long as the job), so lookups
 * read it without the lock; adding takes it. */
static struct {
    zm_spinlock_t lock;        /* taken to add an entry */
    world_lb_t *_Atomic head;
} worlds;

/* Make the balancing of world communicator c (NULL if out of memory). */
static world_lb_t *world_new(const struct zmpi_comm *c)
{
    world_lb_t *b = calloc(1, sizeof(*b));
    const int *wr = c->p.world;
    if (!b)
        return NULL;
    b->ctx = c->p.ctx;
    b->world0 = wr ? wr[0] : 0;
    b->n = c->p.size;
    if (zm_net_any_remote(wr, c->p.size)) {
        b->local = malloc(sizeof(int) * (size_t)c->p.size);
        if (!b->local) {
            free(b);
            return NULL;
        }
        b->n = 0;
        for (int r = 0; r < c->p.size; r++)
            b->local[r] = zm_net_is_remote(wr ? wr[r] : r) ? -1 : b->n++;
    }
    b->step = zm_ult_lb_step_new(b->n);
    b->stated = malloc(sizeof(double) * (size_t)b->n);
    if (!b->step || !b->stated) {
        free(b->local), free(b->stated), free(b);
        return NULL;
    }
    for (int i = 0; i < b->n; i++)
        b->stated[i] = -1;
    return b;
}

/* The balancing of the calling rank's world, made on first use; NULL if
 * out of memory. */
static world_lb_t *world_find(world_lb_t *b, uint32_t ctx, int world0)
{
    while (b && !(b->ctx == ctx && b->world0 == world0))
        b = b->next;
    return b;
}

static world_lb_t *world_of(const struct zmpi_comm *c)
{
    int world0 = c->p.world ? c->p.world[0] : 0;
    world_lb_t *b = world_find(atomic_load_explicit(&worlds.head, memory_order_acquire),
                               c->p.ctx, world0);
    if (b)
        return b;
    zm_spin_lock(&worlds.lock);
    b = world_find(atomic_load_explicit(&worlds.head, memory_order_relaxed), c->p.ctx, world0);
    if (!b && (b = world_new(c)) != NULL) {
        b->next = atomic_load_explicit(&worlds.head, memory_order_relaxed);
        atomic_store_explicit(&worlds.head, b, memory_order_release);
    }
    zm_spin_unlock(&worlds.lock);
    return b;
}

void zm_mpi_migrate_relocal(void)
{
    /* The job's world: context 0, first world rank 0. */
    world_lb_t *b = world_find(atomic_load_explicit(&worlds.head, memory_order_acquire), 0, 0);
    if (!b || !b->local)
        return;
    int n = 0, size = zm_net_job.nranks;
    for (int r = 0; r < size; r++)
        b->local[r] = zm_net_is_remote(r) ? -1 : n++;
    zm_ult_lb_step_t *step = zm_ult_lb_step_renew(b->step, n);
    double *stated = malloc(sizeof(double) * (size_t)n);
    if (!step || !stated) {
        fprintf(stderr, "zmpi: out of memory for the balancer's state after ranks moved\n");
        zm_net_abort(1);
    }
    for (int i = 0; i < n; i++)
        stated[i] = -1;
    /* The old step and loads are no one's now: every rank of the process
     * waits in the migration. */
    free(b->stated);
    b->stated = stated;
    b->step = step;
    b->n = n;
}

/* This rank's index among its world's ranks in this process. */
static int local_index(const world_lb_t *b, const struct zmpi_comm *c)
{
    return b->local ? b->local[c->p.rank] : c->p.rank;
}

/* Read the hints of ZMPI_Migrate into a: zmpi_lb (the strategy) and
 * zmpi_lb_tolerance (accepted imbalance, a number >= 0), and zmpi_lb_proc
 * (moves across processes: migrate_net.c) into proc, which holds
 * ZM_MPI_LB_PROC_MAX bytes (ZMPI_LB_PROC, else empty: auto).  Other keys are
 * ignored, as MPI does with hints it does not know.  The entries are read
 * in place: this runs in every rank at every step.  Returns MPI_SUCCESS
 * or the error raised on the world communicator. */
static int read_hints(struct zmpi_comm *c, const char *fn, MPI_Info hints, zm_ult_lb_args_t *a,
                      char *proc)
{
    const char *env = getenv("ZMPI_LB_PROC");
    a->strategy = zm_ult_lb_default();
    a->tolerance = ZM_ULT_LB_TOLERANCE;
    proc[0] = 0;
    if (env && zm_mpi_lb_proc_valid(env))
        snprintf(proc, ZM_MPI_LB_PROC_MAX, "%s", env);
    if (hints == MPI_INFO_NULL)
        return MPI_SUCCESS;
    if (hints->magic != ZM_INFO_MAGIC)
        return zm_mpi_error(c, MPI_ERR_INFO, fn, "(hints): invalid info object (freed or not "
                            "an info object)");
    for (const struct zmpi_info_entry *e = hints->head; e; e = e->next) {
        const char *v = e->value;
        if (strcmp(e->key, "zmpi_lb") == 0) {
            a->strategy = zm_ult_lb_parse(v);
            if (a->strategy < 0)
                return zm_mpi_error(c, MPI_ERR_INFO_VALUE, fn, "(hints): invalid value "
                                    "\"%.40s\" of info key zmpi_lb (want greedy, refine, "
                                    "rotate or none)", v);
        } else if (strcmp(e->key, "zmpi_lb_tolerance") == 0) {
            char *end;
            double t = strtod(v, &end);
            if (end == v || *end || !isfinite(t) || t < 0)
                return zm_mpi_error(c, MPI_ERR_INFO_VALUE, fn, "(hints): invalid value "
                                    "\"%.40s\" of info key zmpi_lb_tolerance (want a number "
                                    ">= 0, e.g. 0.05)", v);
            a->tolerance = t;
        } else if (strcmp(e->key, "zmpi_lb_proc") == 0) {
            if (!zm_mpi_lb_proc_valid(v))
                return zm_mpi_error(c, MPI_ERR_INFO_VALUE, fn, "(hints): invalid value "
                                    "\"%.40s\" of info key zmpi_lb_proc (want auto, none, "
                                    "rotate or RANK:PROC[,RANK:PROC...])", v);
            snprintf(proc, ZM_MPI_LB_PROC_MAX, "%s", v);
        }
    }
    return MPI_SUCCESS;
}

int PZMPI_Migrate(MPI_Info hints)
{
    const char *fn = "ZMPI_Migrate";
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    struct zmpi_comm *c = &me->world;
    zm_ult_lb_args_t a;
    char proc[ZM_MPI_LB_PROC_MAX];
    int rc = read_hints(c, fn, hints, &a, proc);
    if (rc != MPI_SUCCESS)
        return rc;
    /* The rank itself must come: a thread it created cannot stand for it
     * (its ULT would be missing from the step, which would never end). */
    if (zm_ult_foreign_self())
        return zm_mpi_error(c, MPI_ERR_OTHER, fn, ": called from a thread the rank created; "
                            "call it from the rank's own thread (the one that runs its main)");
    /* A rank alone in its process without a scheduler (a program started
     * by a system launcher) has nowhere to go. */
    if (!zm_ult_in_job())
        return MPI_SUCCESS;
    world_lb_t *b = world_of(c);
    if (!b)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory for the balancer's state");
    int idx = local_index(b, c);
    /* A stated load, or (negative) the measured busy time. */
    a.load = b->stated[idx];
    b->stated[idx] = -1;
    /* A rank that never comes leaves the others parked here: a deadlock
     * report names the call. */
    zm_p2p_waiter()->wait_call = fn;
    zm_p2p_waiter()->wait_req = NULL;
    /* The job's world across processes: ranks may move to another process
     * first.  One that moved comes back here in its new process, where
     * the pointers above belonged to the old one: all are taken again. */
    if (ZM_UNLIKELY(zm_net_remote != NULL) && c->p.ctx == 0 && c->p.world == NULL &&
        c->p.size == zm_net_job.nranks) {
        zm_mpi_migrate_cross(a.load, proc);
        me = zm_mpi_me();
        c = &me->world;
        b = world_of(c);
        if (!b)
            return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory for the balancer's state");
        idx = local_index(b, c);
        zm_p2p_waiter()->wait_call = fn;
        zm_p2p_waiter()->wait_req = NULL;
    }
    zm_ult_lb_join(b->step, idx, &a);
    return MPI_SUCCESS;
}
#pragma weak ZMPI_Migrate = PZMPI_Migrate

int PZMPI_Set_load(double load)
{
    const char *fn = "ZMPI_Set_load";
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    struct zmpi_comm *c = &me->world;
    if (!isfinite(load) || load < 0)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(load=%g): invalid load (want a finite "
                            "number >= 0)", load);
    if (!zm_ult_in_job())
        return MPI_SUCCESS;
    world_lb_t *b = world_of(c);
    if (!b)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory for the balancer's state");
    b->stated[local_index(b, c)] = load;
    return MPI_SUCCESS;
}
#pragma weak ZMPI_Set_load = PZMPI_Set_load
