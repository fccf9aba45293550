/*
 * win.c: the API of window objects: creation of every flavor, MPI_Win_free,
 * dynamic windows' attach/detach, MPI_Win_shared_query, group, name and
 * info.  Communication and synchronization calls are in rma_api.c; the
 * shared window state and its waits in src/rma/.
 *
 * A window's ranks share one zm_rma_win_t: rank 0 of the window's private
 * communicator makes it and broadcasts its address, each rank then writes
 * its own segment (base, size, displacement unit) into it, and a
 * reduction both publishes the table (it orders the writes before any
 * access) and tells every rank whether any rank failed, so all fail
 * together.  Win_allocate_shared instead lets rank 0 lay out all segments
 * in one block, contiguous in rank order as the standard requires, unless
 * the alloc_shared_noncontig hint asks for each on its own pages.
 *
 * A window whose ranks span processes has one state per process instead
 * (src/rma/rma_net.c), registered under the window communicator's
 * context id, and every rank's segment geometry is gathered into each so
 * that origins check ranges before sending.  A shared window across
 * processes of one node is one POSIX shared-memory segment that each
 * process maps (shared_spanning); across nodes it is refused.  Windows of
 * MPI_Win_allocate and MPI_Win_allocate_shared on processes of one node
 * are direct (src/rma/rma.h): the one-sided calls then load and store in
 * that segment instead of travelling to the target's process.
 */
#include "bind_hooks.h"
#include "mpi_impl.h"

#include "rma/rma.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int win_check(const char *fn, MPI_Win win)
{
    if (win && win->magic == ZM_WIN_MAGIC)
        return MPI_SUCCESS;
    return zm_mpi_error(NULL, MPI_ERR_WIN, fn, "(win=%s): invalid window",
                        win ? "freed or not a window" : "MPI_WIN_NULL");
}

/* ---- Info hints ---------------------------------------------------------- */

/* Hints a window answers in MPI_Win_get_info, with their defaults.  All
 * communication completes at once and in program order, so every
 * accumulate_ordering and accumulate_ops value is honoured as it is. */
static const char *const win_hints[][2] = {
    { "no_locks", "false" },
    { "accumulate_ordering", "rar,raw,war,waw" },
    { "accumulate_ops", "same_op_no_op" },
    { "same_size", "false" },
    { "same_disp_unit", "false" },
    { "mpi_accumulate_granularity", "0" },
};

/* Copy the recognized hints of `info` (MPI_INFO_NULL: none) into the
 * window's own info object.  Returns MPI_SUCCESS or an error class. */
static int win_info_apply(struct zmpi_win *w, MPI_Info info)
{
    if (info == MPI_INFO_NULL)
        return MPI_SUCCESS;
    char v[MPI_MAX_INFO_VAL + 1];
    for (size_t i = 0; i < sizeof(win_hints) / sizeof(win_hints[0]); i++) {
        int flag = 0;
        PMPI_Info_get(info, win_hints[i][0], MPI_MAX_INFO_VAL, v, &flag);
        if (flag && PMPI_Info_set(w->info, win_hints[i][0], v) != MPI_SUCCESS)
            return MPI_ERR_NO_MEM;
    }
    return MPI_SUCCESS;
}

static int info_true(MPI_Info info, const char *key)
{
    char v[16];
    int flag = 0;
    if (info == MPI_INFO_NULL)
        return 0;
    PMPI_Info_get(info, key, (int)sizeof(v) - 1, v, &flag);
    return flag && strcmp(v, "true") == 0;
}

/* ---- Creation ------------------------------------------------------------ */

/* Checks shared by the creation calls. */
static int create_check(const char *fn, MPI_Comm comm, MPI_Info info, MPI_Aint size,
                        int disp_unit, const void *out, MPI_Win *win, struct zmpi_comm **c)
{
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    int rc = zm_mpi_check_comm(me, comm, fn, c);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((*c)->inter)
        return zm_mpi_error(*c, MPI_ERR_COMM, fn, "(comm=%s): must be an intracommunicator",
                            (*c)->name);
    if (size < 0)
        return zm_mpi_error(*c, MPI_ERR_SIZE, fn, "(size=%lld): must be >= 0", (long long)size);
    if (disp_unit <= 0)
        return zm_mpi_error(*c, MPI_ERR_DISP, fn, "(disp_unit=%d): must be > 0", disp_unit);
    if (!out || !win)
        return zm_mpi_error(*c, MPI_ERR_ARG, fn, "(%s=NULL): invalid argument",
                            win ? "baseptr" : "win");
    if (info != MPI_INFO_NULL && (rc = zm_mpi_info_check(fn, info)) != MPI_SUCCESS)
        return rc;
    return MPI_SUCCESS;
}

/* First half of every creation: the window object, its private
 * communicator and the shared state (made by rank 0).  On failure
 * everything is undone and the error raised on c; all ranks fail alike
 * (the shared state's address is broadcast, NULL if rank 0 failed, but a
 * rank failing on its own object still joins the broadcast). */
/* The predefined datatypes in the order every process shares: an
 * accumulate to another process names its element type by index. */
#define PREDEF_ADDR(name) name,
static const zm_dt_t *const predef_types[] = { ZMPI_DT_LIST(PREDEF_ADDR) };
#undef PREDEF_ADDR

static int win_begin(const char *fn, struct zmpi_comm *c, MPI_Comm comm, MPI_Info info,
                     int flavor, struct zmpi_win **out)
{
    struct zmpi_win *w = calloc(1, sizeof(*w));
    MPI_Comm dup = MPI_COMM_NULL;
    int rc = PMPI_Comm_dup(comm, &dup);
    if (rc != MPI_SUCCESS) {
        free(w);
        return rc;
    }
    struct zmpi_comm *d = dup;
    zm_mpi_comm_pin(d); /* the window is the process's: its rank stays */
    zm_rma_win_t *r = NULL;
    int net = zm_net_any_remote(d->p.world, d->p.size);
    if (net) {
        /* Ranks in several processes: each process has its own state of
         * the window, joined by its ranks (src/rma/rma_net.c). */
        zm_rma_net_set_types(predef_types, (int)(sizeof(predef_types) /
                                                  sizeof(predef_types[0])));
        r = zm_rma_net_win_get(d->p.ctx, d->p.size, d->p.world);
    } else {
        if (d->p.rank == 0)
            r = zm_rma_win_new(d->p.size);
        PMPI_Bcast(&r, (int)sizeof(r), MPI_BYTE, 0, dup);
    }
    if (w) {
        w->lock_type = calloc((size_t)d->p.size, 1);
        PMPI_Info_create(&w->info);
    }
    int ok = w && r && w->lock_type && w->info, all_ok = 0;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, dup);
    if (!all_ok) {
        if (r && net) {
            zm_rma_win_unref(r);
        } else if (r && d->p.rank == 0) {
            /* Nobody else took the state: drop it at once. */
            atomic_store(&r->refs, 1);
            zm_rma_win_unref(r);
        }
        if (w) {
            free(w->lock_type);
            if (w->info)
                PMPI_Info_free(&w->info);
            free(w);
        }
        PMPI_Comm_free(&dup);
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory for the window");
    }
    for (size_t i = 0; i < sizeof(win_hints) / sizeof(win_hints[0]); i++)
        PMPI_Info_set(w->info, win_hints[i][0], win_hints[i][1]);
    if (flavor == MPI_WIN_FLAVOR_SHARED)
        PMPI_Info_set(w->info, "alloc_shared_noncontig",
                      info_true(info, "alloc_shared_noncontig") ? "true" : "false");
    win_info_apply(w, info);
    w->comm = d;
    w->rma = r;
    w->rank = d->p.rank;
    w->size = d->p.size;
    w->attr_flavor = flavor;
    w->attr_model = MPI_WIN_UNIFIED;
    *out = w;
    return MPI_SUCCESS;
}

/* Undo win_begin on every rank (a later step failed somewhere). */
static void win_abandon(struct zmpi_win *w)
{
    zm_rma_win_unref(w->rma);
    MPI_Comm dup = w->comm;
    PMPI_Comm_free(&dup);
    PMPI_Info_free(&w->info);
    free(w->own_mem);
    free(w->lock_type);
    free(w);
}

/* The lowest window rank of the calling process in a window spanning
 * processes: it fills in what the process's ranks share. */
static int first_local(const zm_rma_win_t *r)
{
    int first = 0;
    while (first < r->n && r->proc[first] >= 0)
        first++;
    return first;
}

static int one_node(struct zmpi_comm *c);

/* Whether Puts and Gets of this window spanning processes may copy
 * straight between processes (cross-memory attach): a window with
 * segments that is not direct, on one node (not under --separate-nodes),
 * unless ZMPI_RMA_CMA=0. */
static int cma_wanted(struct zmpi_win *w)
{
    const char *env = getenv("ZMPI_RMA_CMA");
    return !w->rma->node && w->attr_flavor != MPI_WIN_FLAVOR_DYNAMIC && one_node(w->comm) &&
           !(env && strcmp(env, "0") == 0);
}

/* A window spanning processes: every rank's segment geometry (and process
 * id) to every rank, so that origins check ranges before sending.  The first local
 * rank of the window writes the remote entries of its process's state;
 * the reduction in win_end orders that before any access. */
static int segments_share(struct zmpi_win *w, void *base, MPI_Aint size, int disp_unit)
{
    int64_t mine[4] = { (int64_t)(uintptr_t)base, (int64_t)size, disp_unit, getpid() };
    int64_t *all = malloc(sizeof(mine) * (size_t)w->size);
    int rc = PMPI_Allgather(mine, 4, MPI_INT64_T, all, all ? 4 : 0, MPI_INT64_T, w->comm);
    if (!all)
        return MPI_ERR_NO_MEM;
    zm_rma_win_t *r = w->rma;
    if (rc == MPI_SUCCESS && first_local(r) == w->rank) {
        if (cma_wanted(w) && !(r->pid = malloc(sizeof(int) * (size_t)r->n)))
            rc = MPI_ERR_NO_MEM;
        for (int i = 0; i < r->n && rc == MPI_SUCCESS; i++) {
            if (r->pid)
                r->pid[i] = (int)all[4 * i + 3];
            if (r->proc[i] < 0)
                continue;
            /* A direct window's origins reach the segment in their own
             * mapping of the node's memory; otherwise the address only
             * tells "inside the window" in range checks. */
            r->t[i].base = r->node ? r->shm + r->shm_off[i] : (char *)(uintptr_t)all[4 * i];
            r->t[i].size = (size_t)all[4 * i + 1];
            r->t[i].disp_unit = (int)all[4 * i + 2];
        }
    }
    free(all);
    return rc;
}

/* Second half: publish the caller's segment and agree that every rank
 * got this far (`ok`).  Returns MPI_SUCCESS, or raises MPI_ERR_NO_MEM on
 * c after undoing the window on every rank. */
static int win_end(const char *fn, struct zmpi_comm *c, struct zmpi_win *w, void *base,
                   MPI_Aint size, int disp_unit, int ok, MPI_Win *win)
{
    zm_rma_target_t *t = &w->rma->t[w->rank];
    if (w->attr_flavor != MPI_WIN_FLAVOR_SHARED) {
        t->base = base;
        t->size = (size_t)size;
        t->disp_unit = disp_unit;
    }
    if (w->rma->proc && segments_share(w, base, size, disp_unit) != MPI_SUCCESS)
        ok = 0;
    int all_ok = 0;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, w->comm);
    if (!all_ok) {
        win_abandon(w);
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory for the window");
    }
    w->attr_base = base;
    w->attr_size = size;
    w->attr_disp_unit = disp_unit;
    w->magic = ZM_WIN_MAGIC;
    *win = w;
    return MPI_SUCCESS;
}

int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                    MPI_Win *win)
{
    const char *fn = "MPI_Win_create";
    struct zmpi_comm *c;
    int rc = create_check(fn, comm, info, size, disp_unit, win, win, &c);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!base && size > 0)
        return zm_mpi_error(c, MPI_ERR_BASE, fn, "(base=NULL, size=%lld): a window of "
                            "non-zero size needs memory", (long long)size);
    struct zmpi_win *w;
    if ((rc = win_begin(fn, c, comm, info, MPI_WIN_FLAVOR_CREATE, &w)) != MPI_SUCCESS)
        return rc;
    return win_end(fn, c, w, base, size, disp_unit, 1, win);
}
ZM_WEAK(Win_create)

static int shared_spanning(struct zmpi_win *w, MPI_Aint size, int disp_unit, size_t align,
                           int require, int *direct, void **base);
static int direct_wanted(struct zmpi_win *w);

/* MPI_Win_allocate on processes of one node: the window's memory in the
 * node's segment, each rank's cache-line aligned, and the window direct.
 * Returns MPI_SUCCESS, an error raised on c, or -1 on every rank alike if
 * a process does not want it direct or the node's shared memory cannot
 * hold the window (the caller then allocates private memory, on the
 * message path). */
static int allocate_node(const char *fn, struct zmpi_comm *c, struct zmpi_win *w,
                         MPI_Aint size, int disp_unit, void *baseptr, MPI_Win *win)
{
    void *base = NULL;
    int direct = direct_wanted(w);
    if (shared_spanning(w, size, disp_unit, ZM_CACHE_LINE, 1, &direct, &base) != MPI_SUCCESS)
        return -1;
    int rc = win_end(fn, c, w, base, size, disp_unit, 1, win);
    if (rc == MPI_SUCCESS)
        *(void **)baseptr = base;
    return rc;
}

int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                      MPI_Win *win)
{
    const char *fn = "MPI_Win_allocate";
    struct zmpi_comm *c;
    int rc = create_check(fn, comm, info, size, disp_unit, baseptr, win, &c);
    if (rc != MPI_SUCCESS)
        return rc;
    struct zmpi_win *w;
    if ((rc = win_begin(fn, c, comm, info, MPI_WIN_FLAVOR_ALLOCATE, &w)) != MPI_SUCCESS)
        return rc;
    if (w->rma->proc && one_node(w->comm) &&
        (rc = allocate_node(fn, c, w, size, disp_unit, baseptr, win)) != -1)
        return rc;
    /* Cache-line aligned, so no two ranks' segments share a line. */
    size_t bytes = ((size_t)size + ZM_CACHE_LINE - 1) & ~(size_t)(ZM_CACHE_LINE - 1);
    w->own_mem = size > 0 ? aligned_alloc(ZM_CACHE_LINE, bytes) : NULL;
    rc = win_end(fn, c, w, w->own_mem, size, disp_unit, size == 0 || w->own_mem, win);
    if (rc == MPI_SUCCESS)
        *(void **)baseptr = w->own_mem;
    return rc;
}
ZM_WEAK(Win_allocate)

int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    const char *fn = "MPI_Win_create_dynamic";
    struct zmpi_comm *c;
    int rc = create_check(fn, comm, info, 0, 1, win, win, &c);
    if (rc != MPI_SUCCESS)
        return rc;
    struct zmpi_win *w;
    if ((rc = win_begin(fn, c, comm, info, MPI_WIN_FLAVOR_DYNAMIC, &w)) != MPI_SUCCESS)
        return rc;
    return win_end(fn, c, w, MPI_BOTTOM, 0, 1, 1, win);
}
ZM_WEAK(Win_create_dynamic)

/* Rank 0's layout of a shared window: one zeroed block holding every
 * segment.  Returns 0 if out of memory. */
static int shared_layout(zm_rma_win_t *r, const MPI_Aint *sizes, const int *units, int noncontig)
{
    size_t total = 0, align = noncontig ? 4096 : 1;
    for (int i = 0; i < r->n; i++)
        total += ((size_t)sizes[i] + align - 1) & ~(align - 1);
    r->block = aligned_alloc(4096, (total + 4095) & ~(size_t)4095);
    if (!r->block)
        return 0;
    memset(r->block, 0, total);
    char *p = r->block;
    for (int i = 0; i < r->n; i++) {
        r->t[i].base = p;
        r->t[i].size = (size_t)sizes[i];
        r->t[i].disp_unit = units[i];
        p += ((size_t)sizes[i] + align - 1) & ~(align - 1);
    }
    return 1;
}

/* Whether every rank of c lives on the caller's node. */
static int one_node(struct zmpi_comm *c)
{
    const int *node = zm_net_job.node;
    int mine = node[zm_net_job.proc];
    for (int i = 0; i < c->p.size; i++)
        if (node[zm_net_proc_of(c->p.world ? c->p.world[i] : i)] != mine)
            return 0;
    return 1;
}

/* Offsets of every rank's segment in the node's segment, after the
 * per-rank words (zm_rma_node_header) and each aligned to `align` bytes
 * (1: contiguous, as shared_layout does), from everyone's (size, unit)
 * pairs in `su`; returns the total bytes. */
static size_t shared_offsets(const int64_t *su, int n, size_t align, size_t *off)
{
    size_t total = zm_rma_node_header(n);
    for (int i = 0; i < n; i++) {
        off[i] = total;
        total += ((size_t)su[2 * i] + align - 1) & ~(align - 1);
    }
    return total;
}

/* Map the node's segment named `name` of `bytes` bytes in the calling
 * process, once: the window's first rank of the process maps it (rank 0,
 * the first of its process, creates it) and keeps it in the process's
 * window state with the offsets `off` (taken over).  Returns 0 or -errno;
 * the other local ranks do nothing. */
static int shared_map(struct zmpi_win *w, const char *name, size_t bytes, size_t *off)
{
    zm_rma_win_t *r = w->rma;
    if (first_local(r) != w->rank) {
        free(off);
        return 0;
    }
    int err;
    char *p = zm_arch_shm_map(name, bytes, w->rank == 0, &err);
    if (!p) {
        free(off);
        return err;
    }
    r->shm = p;
    r->shm_bytes = bytes;
    r->shm_off = off;
    return 0;
}

/* Agree on the geometry of a node's segment: everyone's (size, unit) into
 * off[] (segment offsets) and *bytes, and whether the window is direct
 * (*direct: in, the caller's wish; out, everyone's).  Returns
 * MPI_SUCCESS, MPI_ERR_NO_MEM (on every rank alike), or -1 if `require`
 * and not every rank wants it direct.  Takes off on failure. */
static int node_geometry(struct zmpi_win *w, MPI_Aint size, int disp_unit, size_t align,
                         int require, int *direct, size_t *off, size_t *bytes)
{
    int64_t mine[2] = { size, disp_unit };
    int64_t *su = malloc(sizeof(mine) * (size_t)w->size);
    /* One reduction for both: everyone's memory and everyone's wish. */
    int v[2] = { su && off, *direct }, all[2] = { 0, 0 };
    PMPI_Allreduce(v, all, 2, MPI_INT, MPI_MIN, w->comm);
    *direct = all[1];
    if (!all[0] || (require && !all[1])) {
        free(su);
        free(off);
        return all[0] ? -1 : MPI_ERR_NO_MEM;
    }
    PMPI_Allgather(mine, 2, MPI_INT64_T, su, 2, MPI_INT64_T, w->comm);
    *bytes = (shared_offsets(su, w->size, align, off) + 4095) & ~(size_t)4095;
    free(su);
    return MPI_SUCCESS;
}

/* A window whose ranks live in several processes of one node, with its
 * memory in one POSIX shared-memory segment: the per-rank words of a
 * direct window (src/rma/rma.h), then the segments laid out as in one
 * process, each aligned to `align` bytes; mapped once per process, the
 * name gone as soon as every process has mapped it.  Loads and stores
 * reach every rank's segment directly.  *direct as for node_geometry: if
 * direct, the one-sided calls are too (zm_rma_node_attach); else they
 * travel to the target's process as for any window across processes.
 * Returns MPI_SUCCESS with the caller's segment in *base, -1 as
 * node_geometry, or an error class (nothing raised) on every rank alike. */
static int shared_spanning(struct zmpi_win *w, MPI_Aint size, int disp_unit, size_t align,
                           int require, int *direct, void **base)
{
    static _Atomic unsigned seq;
    size_t *off = malloc(sizeof(size_t) * (size_t)w->size), bytes = 0;
    int rc = node_geometry(w, size, disp_unit, align, require, direct, off, &bytes);
    if (rc != MPI_SUCCESS)
        return rc;
    /* Rank 0 creates the segment before anyone else opens it, and tells
     * its name and how that went in one broadcast. */
    struct {
        char name[64];
        int err;
    } ann = { { 0 }, 0 };
    size_t mypos = off[w->rank];
    if (w->rank == 0) {
        snprintf(ann.name, sizeof(ann.name), "/zmpi-win-%d-%u", (int)getpid(),
                 atomic_fetch_add(&seq, 1));
        ann.err = shared_map(w, ann.name, bytes, off);
    }
    PMPI_Bcast(&ann, (int)sizeof(ann), MPI_BYTE, 0, w->comm);
    int e = ann.err, err = 0;
    if (ann.err == 0 && w->rank != 0)
        e = shared_map(w, ann.name, bytes, off);
    else if (w->rank != 0)
        free(off);
    PMPI_Allreduce(&e, &err, 1, MPI_INT, MPI_MIN, w->comm);
    if (w->rank == 0 && ann.err == 0)
        zm_arch_shm_unlink(ann.name);
    if (err != 0) {
        /* Processes that did map drop it, so that the window's state is
         * as before (MPI_Win_allocate then does without). */
        zm_rma_win_t *r = w->rma;
        if (first_local(r) == w->rank && r->shm) {
            zm_arch_shm_unmap(r->shm, r->shm_bytes);
            free(r->shm_off);
            r->shm = NULL;
            r->shm_off = NULL;
        }
        return require ? -1 : err == -ENOMEM || err == -ENOSPC ? MPI_ERR_NO_MEM
                                                                 : MPI_ERR_OTHER;
    }
    zm_rma_target_t *t = &w->rma->t[w->rank];
    /* The first local rank attaches for the process; win_end's reduction
     * orders that before any rank's first operation. */
    if (*direct && first_local(w->rma) == w->rank)
        zm_rma_node_attach(w->rma, w->rma->shm);
    *base = w->rma->shm + mypos;
    t->base = *base;
    t->size = (size_t)size;
    t->disp_unit = disp_unit;
    return MPI_SUCCESS;
}

/* Whether this rank wants a window of zmpi's memory on w->comm, whose
 * ranks span processes, direct: all on one node (never under
 * --separate-nodes, where every process is a node), unless its process
 * sets ZMPI_RMA_DIRECT=0.  node_geometry makes everyone agree. */
static int direct_wanted(struct zmpi_win *w)
{
    const char *env = getenv("ZMPI_RMA_DIRECT");
    return one_node(w->comm) && !(env && strcmp(env, "0") == 0);
}

int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                             void *baseptr, MPI_Win *win)
{
    const char *fn = "MPI_Win_allocate_shared";
    struct zmpi_comm *c;
    int rc = create_check(fn, comm, info, size, disp_unit, baseptr, win, &c);
    if (rc != MPI_SUCCESS)
        return rc;
    /* Processes of one node share a segment of the node's memory; ranks
     * on several nodes cannot.  Every rank finds the same, so all refuse. */
    int spans = zm_net_any_remote(c->p.world, c->p.size);
    if (spans && !one_node(c))
        return zm_mpi_error(c, MPI_ERR_COMM, fn, "(comm=%s): the communicator's ranks live "
                            "on several nodes, which share no memory; use a communicator "
                            "from MPI_Comm_split_type(MPI_COMM_TYPE_SHARED), whose ranks "
                            "share one node (docs/net.md)", c->name);
    struct zmpi_win *w;
    if ((rc = win_begin(fn, c, comm, info, MPI_WIN_FLAVOR_SHARED, &w)) != MPI_SUCCESS)
        return rc;
    if (spans) {
        void *base = NULL;
        int direct = direct_wanted(w);
        int cls = shared_spanning(w, size, disp_unit, info_true(info, "alloc_shared_noncontig")
                                  ? 4096 : 1, 0, &direct, &base);
        if (cls != MPI_SUCCESS) {
            win_abandon(w);
            return zm_mpi_error(c, cls, fn, "cannot share %lld bytes between the node's "
                                "processes", (long long)size);
        }
        rc = win_end(fn, c, w, base, size, disp_unit, 1, win);
        if (rc == MPI_SUCCESS)
            *(void **)baseptr = base;
        return rc;
    }
    /* Everyone's size and unit to rank 0, which lays out the block. */
    int n = w->size, ok = 1;
    MPI_Aint *sizes = w->rank == 0 ? malloc(sizeof(MPI_Aint) * (size_t)n) : NULL;
    int *units = w->rank == 0 ? malloc(sizeof(int) * (size_t)n) : NULL;
    PMPI_Gather(&size, 1, MPI_AINT, sizes, 1, MPI_AINT, 0, w->comm);
    PMPI_Gather(&disp_unit, 1, MPI_INT, units, 1, MPI_INT, 0, w->comm);
    if (w->rank == 0)
        ok = sizes && units && shared_layout(w->rma, sizes, units, info_true(info,
                                             "alloc_shared_noncontig"));
    free(sizes);
    free(units);
    PMPI_Bcast(&ok, 1, MPI_INT, 0, w->comm);
    void *base = ok ? w->rma->t[w->rank].base : NULL;
    rc = win_end(fn, c, w, base, size, disp_unit, ok, win);
    if (rc == MPI_SUCCESS)
        *(void **)baseptr = base;
    return rc;
}
ZM_WEAK(Win_allocate_shared)

/* ---- Free ---------------------------------------------------------------- */

int PMPI_Win_free(MPI_Win *win)
{
    const char *fn = "MPI_Win_free";
    zm_mpi_enter(fn);
    int rc = win_check(fn, win ? *win : NULL);
    if (rc != MPI_SUCCESS)
        return rc;
    struct zmpi_win *w = *win;
    if (w->nlocks || w->locked_all || w->started || w->posted)
        return zm_mpi_win_error(w, MPI_ERR_RMA_SYNC, fn, "(win=%s): rank %d still has an "
                                "open epoch (%s); close it before freeing the window",
                                w->name[0] ? w->name : "unnamed", w->rank,
                                w->nlocks ? "MPI_Win_lock" : w->locked_all ? "MPI_Win_lock_all"
                                : w->started ? "MPI_Win_start" : "MPI_Win_post");
    /* Delete callbacks run while the window is still whole; one that fails
     * leaves the window as it is (MPI 4.1 section 7.7.3). */
    int cls = zm_mpi_attr_free_all(ZM_ATTR_WIN, w);
    if (cls != MPI_SUCCESS)
        return zm_mpi_win_error(w, cls, fn, "an attribute's delete callback failed");
    /* Collective: after the barrier every rank has ended its epochs on
     * this window (another rank's lock on ours included), so nobody
     * touches our memory any more. */
    zm_p2p_self()->wait_call = fn;
    zm_p2p_self()->wait_req = NULL;
    if (w->rma->proc) {
        /* Across processes every rank waits for its operations to be
         * acknowledged: after this barrier none is on its way to us. */
        zm_mpi_win_drain(w, fn);
        PMPI_Barrier(w->comm);
    } else {
        zm_coll_shm_t *s = zm_mpi_coll_shm(w->comm);
        if (s)
            zm_coll_barrier(s, w->rank);
    }
    /* A binding's copies of array sections for this window's operations
     * go now, at the latest (bind_hooks.h). */
    if (atomic_load_explicit(&zm_mpi_hooks_n, memory_order_relaxed))
        zm_mpi_hook_win(w);
    zm_rma_win_unref(w->rma);
    MPI_Comm dup = w->comm;
    PMPI_Comm_free(&dup);
    PMPI_Info_free(&w->info);
    if (w->eh)
        zm_mpi_eh_unref(w->eh);
    free(w->own_mem);
    free(w->lock_type);
    free(w->start_ranks);
    zm_mpi_handle_forget(w);
    zm_mpi_magic_clear(&w->magic);
    free(w);
    *win = MPI_WIN_NULL;
    return MPI_SUCCESS;
}
ZM_WEAK(Win_free)

/* ---- Dynamic windows ----------------------------------------------------- */

int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    const char *fn = "MPI_Win_attach";
    zm_mpi_enter(fn);
    int rc = win_check(fn, win);
    if (rc != MPI_SUCCESS)
        return rc;
    if (win->attr_flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return zm_mpi_win_error(win, MPI_ERR_RMA_FLAVOR, fn, "(win=%s): only windows made by "
                                "MPI_Win_create_dynamic take attached memory",
                                win->name[0] ? win->name : "unnamed");
    if (size < 0)
        return zm_mpi_win_error(win, MPI_ERR_SIZE, fn, "(size=%lld): must be >= 0",
                                (long long)size);
    if (!base && size > 0)
        return zm_mpi_win_error(win, MPI_ERR_BASE, fn, "(base=NULL, size=%lld): invalid "
                                "memory", (long long)size);
    zm_status_t st = zm_rma_attach(win->rma, win->rank, base, (size_t)size);
    if (st == ZM_ERR_NOMEM)
        return zm_mpi_win_error(win, MPI_ERR_NO_MEM, fn, "out of memory");
    if (st != ZM_OK)
        return zm_mpi_win_error(win, MPI_ERR_RMA_ATTACH, fn, "(base=%p, size=%lld): overlaps "
                                "memory already attached to window %s", base, (long long)size,
                                win->name[0] ? win->name : "unnamed");
    return MPI_SUCCESS;
}
ZM_WEAK(Win_attach)

int PMPI_Win_detach(MPI_Win win, const void *base)
{
    const char *fn = "MPI_Win_detach";
    zm_mpi_enter(fn);
    int rc = win_check(fn, win);
    if (rc != MPI_SUCCESS)
        return rc;
    if (win->attr_flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return zm_mpi_win_error(win, MPI_ERR_RMA_FLAVOR, fn, "(win=%s): not a dynamic window",
                                win->name[0] ? win->name : "unnamed");
    if (zm_rma_detach(win->rma, win->rank, base) != ZM_OK)
        return zm_mpi_win_error(win, MPI_ERR_RMA_ATTACH, fn, "(base=%p): no memory attached "
                                "at this address on rank %d", base, win->rank);
    return MPI_SUCCESS;
}
ZM_WEAK(Win_detach)

/* ---- Queries ------------------------------------------------------------- */

int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    const char *fn = "MPI_Win_shared_query";
    zm_mpi_enter(fn);
    int rc = win_check(fn, win);
    if (rc != MPI_SUCCESS)
        return rc;
    zm_rma_win_t *r = win->rma;
    if (rank != MPI_PROC_NULL && (rank < 0 || rank >= r->n))
        return zm_mpi_win_error(win, MPI_ERR_RANK, fn, "(rank=%d): invalid rank, the window "
                                "has %d ranks", rank, r->n);
    if (!size || !disp_unit || !baseptr)
        return zm_mpi_win_error(win, MPI_ERR_ARG, fn, "size, disp_unit or baseptr is NULL");
    if (rank == MPI_PROC_NULL) {
        /* The lowest rank's segment of non-zero size (MPI 4.1 section
         * 12.2.3), as a query of that rank: size 0 if it is in a process
         * whose memory this one cannot reach. */
        for (rank = 0; rank < r->n - 1 && r->t[rank].size == 0; rank++)
            ;
    }
    if (r->shm) {
        /* A shared window across the node's processes: every segment is
         * in this process's mapping of the node's memory. */
        *size = (MPI_Aint)r->t[rank].size;
        *disp_unit = r->t[rank].disp_unit ? r->t[rank].disp_unit : 1;
        *(void **)baseptr = r->shm + r->shm_off[rank];
        return MPI_SUCCESS;
    }
    if (zm_rma_is_remote(r, rank)) {
        /* Memory of another process cannot be shared (MPI 4.1 section
         * 12.2.3: no base, size 0, for ranks whose memory is not
         * accessible). */
        *size = 0;
        *disp_unit = r->t[rank].disp_unit ? r->t[rank].disp_unit : 1;
        *(void **)baseptr = NULL;
        return MPI_SUCCESS;
    }
    /* Every flavor's memory is shared by all ranks of a process (MPI 4.1
     * lets Win_shared_query answer for any flavor); a dynamic window has
     * no segment. */
    *size = (MPI_Aint)r->t[rank].size;
    *disp_unit = r->t[rank].disp_unit ? r->t[rank].disp_unit : 1;
    *(void **)baseptr = r->t[rank].base;
    return MPI_SUCCESS;
}
ZM_WEAK(Win_shared_query)

int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    const char *fn = "MPI_Win_get_group";
    zm_mpi_enter(fn);
    int rc = win_check(fn, win);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!group)
        return zm_mpi_win_error(win, MPI_ERR_ARG, fn, "(group=NULL): invalid argument");
    return PMPI_Comm_group(win->comm, group);
}
ZM_WEAK(Win_get_group)

int PMPI_Win_set_name(MPI_Win win, const char *win_name)
{
    const char *fn = "MPI_Win_set_name";
    zm_mpi_enter(fn);
    int rc = win_check(fn, win);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!win_name)
        return zm_mpi_win_error(win, MPI_ERR_ARG, fn, "(win_name=NULL): invalid argument");
    snprintf(win->name, sizeof(win->name), "%s", win_name);
    return MPI_SUCCESS;
}
ZM_WEAK(Win_set_name)

int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen)
{
    const char *fn = "MPI_Win_get_name";
    zm_mpi_enter(fn);
    /* MPI 4.1 section 7.8: MPI_WIN_NULL may be asked too. */
    if (win == MPI_WIN_NULL && win_name && resultlen) {
        *resultlen = snprintf(win_name, MPI_MAX_OBJECT_NAME, "MPI_WIN_NULL");
        return MPI_SUCCESS;
    }
    int rc = win_check(fn, win);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!win_name || !resultlen)
        return zm_mpi_win_error(win, MPI_ERR_ARG, fn, "win_name or resultlen is NULL");
    size_t n = strlen(win->name);
    memcpy(win_name, win->name, n + 1);
    *resultlen = (int)n;
    return MPI_SUCCESS;
}
ZM_WEAK(Win_get_name)

int PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    const char *fn = "MPI_Win_set_info";
    zm_mpi_enter(fn);
    int rc = win_check(fn, win);
    if (rc != MPI_SUCCESS)
        return rc;
    if (info != MPI_INFO_NULL && (rc = zm_mpi_info_check(fn, info)) != MPI_SUCCESS)
        return rc;
    if (win_info_apply(win, info) != MPI_SUCCESS)
        return zm_mpi_win_error(win, MPI_ERR_NO_MEM, fn, "out of memory");
    return MPI_SUCCESS;
}
ZM_WEAK(Win_set_info)

int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    const char *fn = "MPI_Win_get_info";
    zm_mpi_enter(fn);
    int rc = win_check(fn, win);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!info_used)
        return zm_mpi_win_error(win, MPI_ERR_ARG, fn, "(info_used=NULL): invalid argument");
    if (PMPI_Info_dup(win->info, info_used) != MPI_SUCCESS)
        return zm_mpi_win_error(win, MPI_ERR_NO_MEM, fn, "out of memory");
    return MPI_SUCCESS;
}
ZM_WEAK(Win_get_info)
