/*
 * win.c: MPI-3 shared-memory windows and the info objects they take.
 *
 * All ranks of a zmpi process share one address space, so a shared window
 * is one allocation: rank 0 of the communicator allocates the segments of
 * all ranks (contiguous in rank order, unless alloc_shared_noncontig asks
 * for each segment on its own cache lines) and broadcasts the table of
 * segments.  Loads and stores are ordinary memory accesses; Win_sync is a
 * full memory barrier, Win_fence a barrier with one.  Info objects are in
 * info.c.
 */
#include "mpi_impl.h"

#include <stdlib.h>
#include <string.h>


/* ---- Shared windows ----------------------------------------------------- */

/* The memory of a window, shared by its ranks' window objects. */
struct win_mem {
    _Atomic int refs;                 /* ranks that have not freed the window */
    void *block;                      /* the one allocation */
    int n;                            /* ranks */
    struct win_seg {
        char *base;                   /* start of the rank's segment */
        MPI_Aint size;                /* its size */
        int disp_unit;                /* its displacement unit */
    } seg[];
};

static int win_check(const char *fn, MPI_Win win)
{
    if (win && win->magic == ZM_WIN_MAGIC)
        return MPI_SUCCESS;
    return zm_mpi_error(NULL, MPI_ERR_WIN, fn, "(win=%s): invalid window",
                        win ? "freed or not a window" : "MPI_WIN_NULL");
}

/* Rank 0's half of Win_allocate_shared: one block for all segments.
 * sizes/units hold every rank's arguments.  Returns NULL if out of memory. */
static struct win_mem *win_mem_new(int n, const MPI_Aint *sizes, const int *units, int noncontig)
{
    struct win_mem *m = calloc(1, sizeof(*m) + sizeof(m->seg[0]) * (size_t)n);
    if (!m)
        return NULL;
    /* Contiguous (the default): each segment starts where the previous
     * one ends, as the standard requires. */
    size_t total = 0, align = noncontig ? 4096 : 1;
    for (int i = 0; i < n; i++)
        total += ((size_t)sizes[i] + align - 1) & ~(align - 1);
    m->block = aligned_alloc(4096, (total + 4095) & ~(size_t)4095);
    if (!m->block) {
        free(m);
        return NULL;
    }
    memset(m->block, 0, total);
    atomic_store(&m->refs, n);
    m->n = n;
    char *p = m->block;
    for (int i = 0; i < n; i++) {
        m->seg[i].base = p;
        m->seg[i].size = sizes[i];
        m->seg[i].disp_unit = units[i];
        p += ((size_t)sizes[i] + align - 1) & ~(align - 1);
    }
    return m;
}

static int info_noncontig(MPI_Info info)
{
    char v[16];
    int flag = 0;
    if (!info || info->magic != ZM_INFO_MAGIC)
        return 0;
    PMPI_Info_get(info, "alloc_shared_noncontig", (int)sizeof(v) - 1, v, &flag);
    return flag && strcmp(v, "true") == 0;
}

int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                             void *baseptr, MPI_Win *win)
{
    const char *fn = "MPI_Win_allocate_shared";
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    struct zmpi_comm *c;
    int rc = zm_mpi_check_comm(me, comm, fn, &c);
    if (rc != MPI_SUCCESS)
        return rc;
    if (c->inter)
        return zm_mpi_error(c, MPI_ERR_COMM, fn, "(comm=%s): must be an intracommunicator",
                            c->name);
    if (size < 0)
        return zm_mpi_error(c, MPI_ERR_SIZE, fn, "(size=%lld): must be >= 0", (long long)size);
    if (disp_unit <= 0)
        return zm_mpi_error(c, MPI_ERR_DISP, fn, "(disp_unit=%d): must be > 0", disp_unit);
    if (!baseptr || !win)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "baseptr or win is NULL");
    if (info != MPI_INFO_NULL && (rc = zm_mpi_info_check(fn, info)) != MPI_SUCCESS)
        return rc;
    struct zmpi_win *w = calloc(1, sizeof(*w));
    MPI_Comm dup = MPI_COMM_NULL;
    if (!w)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    if ((rc = PMPI_Comm_dup(comm, &dup)) != MPI_SUCCESS)
        goto err_free_win;
    struct zmpi_comm *d = dup;
    int n = d->p.size;
    /* Everyone's size and unit to rank 0, which allocates; then the table
     * pointer to all. */
    MPI_Aint *sizes = d->p.rank == 0 ? malloc(sizeof(MPI_Aint) * (size_t)n) : NULL;
    int *units = d->p.rank == 0 ? malloc(sizeof(int) * (size_t)n) : NULL;
    struct win_mem *m = NULL;
    PMPI_Gather(&size, 1, MPI_AINT, sizes, 1, MPI_AINT, 0, dup);
    PMPI_Gather(&disp_unit, 1, MPI_INT, units, 1, MPI_INT, 0, dup);
    if (d->p.rank == 0 && sizes && units)
        m = win_mem_new(n, sizes, units, info_noncontig(info));
    free(sizes);
    free(units);
    PMPI_Bcast(&m, (int)sizeof(m), MPI_BYTE, 0, dup);
    if (!m) {
        rc = zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory for the window");
        goto err_free_comm;
    }
    w->magic = ZM_WIN_MAGIC;
    w->comm = d;
    w->mem = m;
    w->rank = d->p.rank;
    w->attr_base = m->seg[w->rank].base;
    w->attr_size = size;
    w->attr_disp_unit = disp_unit;
    w->attr_flavor = MPI_WIN_FLAVOR_SHARED;
    w->attr_model = MPI_WIN_UNIFIED;
    *(void **)baseptr = w->attr_base;
    *win = w;
    return MPI_SUCCESS;
err_free_comm:
    PMPI_Comm_free(&dup);
err_free_win:
    free(w);
    return rc;
}
ZM_WEAK(Win_allocate_shared)

int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    const char *fn = "MPI_Win_shared_query";
    zm_mpi_enter(fn);
    int rc = win_check(fn, win);
    if (rc != MPI_SUCCESS)
        return rc;
    struct win_mem *m = win->mem;
    if (rank != MPI_PROC_NULL && (rank < 0 || rank >= m->n))
        return zm_mpi_win_error(win, MPI_ERR_RANK, fn, "(rank=%d): invalid rank, the window "
                            "has %d ranks", rank, m->n);
    if (!size || !disp_unit || !baseptr)
        return zm_mpi_win_error(win, MPI_ERR_ARG, fn, "size, disp_unit or baseptr is NULL");
    if (rank == MPI_PROC_NULL) {
        /* The first segment of non-zero size. */
        for (rank = 0; rank < m->n - 1 && m->seg[rank].size == 0; rank++)
            ;
    }
    *size = m->seg[rank].size;
    *disp_unit = m->seg[rank].disp_unit;
    *(void **)baseptr = m->seg[rank].base;
    return MPI_SUCCESS;
}
ZM_WEAK(Win_shared_query)

int PMPI_Win_sync(MPI_Win win)
{
    zm_mpi_enter("MPI_Win_sync");
    int rc = win_check("MPI_Win_sync", win);
    /* Stores of this rank before the call are visible to loads of other
     * ranks that synchronise with it afterwards (and the other way). */
    atomic_thread_fence(memory_order_seq_cst);
    return rc;
}
ZM_WEAK(Win_sync)

int PMPI_Win_fence(int assert, MPI_Win win)
{
    const char *fn = "MPI_Win_fence";
    zm_mpi_enter(fn);
    int rc = win_check(fn, win);
    if (rc != MPI_SUCCESS)
        return rc;
    atomic_thread_fence(memory_order_seq_cst);
    /* The barrier orders one epoch's loads and stores before the next's;
     * with no epoch on either side there is nothing to order. */
    if ((assert & MPI_MODE_NOPRECEDE) && (assert & MPI_MODE_NOSUCCEED))
        return MPI_SUCCESS;
    zm_p2p_self()->wait_call = fn;
    zm_coll_shm_t *s = zm_mpi_coll_shm(win->comm);
    if (!s || zm_coll_barrier(s, win->rank) != ZM_OK)
        return zm_mpi_win_error(win, MPI_ERR_NO_MEM, fn, "out of memory");
    return MPI_SUCCESS;
}
ZM_WEAK(Win_fence)

int PMPI_Win_lock_all(int assert, MPI_Win win)
{
    const char *fn = "MPI_Win_lock_all";
    zm_mpi_enter(fn);
    (void)assert;
    int rc = win_check(fn, win);
    if (rc != MPI_SUCCESS)
        return rc;
    if (win->locked_all)
        return zm_mpi_win_error(win, MPI_ERR_RMA_SYNC, fn, "the window is already locked");
    /* A shared lock on every rank: nothing to wait for, since no rank
     * takes exclusive locks on a shared window here. */
    win->locked_all = 1;
    return MPI_SUCCESS;
}
ZM_WEAK(Win_lock_all)

int PMPI_Win_unlock_all(MPI_Win win)
{
    const char *fn = "MPI_Win_unlock_all";
    zm_mpi_enter(fn);
    int rc = win_check(fn, win);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!win->locked_all)
        return zm_mpi_win_error(win, MPI_ERR_RMA_SYNC, fn, "the window is not locked");
    win->locked_all = 0;
    atomic_thread_fence(memory_order_seq_cst);
    return MPI_SUCCESS;
}
ZM_WEAK(Win_unlock_all)

int PMPI_Win_free(MPI_Win *win)
{
    const char *fn = "MPI_Win_free";
    zm_mpi_enter(fn);
    int rc = win ? win_check(fn, *win) : win_check(fn, NULL);
    if (rc != MPI_SUCCESS)
        return rc;
    struct zmpi_win *w = *win;
    /* Delete callbacks run while the window is still whole; one that fails
     * leaves the window as it is (MPI 4.1 section 7.7.3). */
    int cls = zm_mpi_attr_free_all(ZM_ATTR_WIN, w);
    if (cls != MPI_SUCCESS)
        return zm_mpi_win_error(w, cls, fn, "an attribute's delete callback failed");
    /* Collective: nobody frees the memory while another rank still uses it. */
    zm_p2p_self()->wait_call = fn;
    zm_coll_shm_t *s = zm_mpi_coll_shm(w->comm);
    if (s)
        zm_coll_barrier(s, w->rank);
    if (atomic_fetch_sub(&w->mem->refs, 1) == 1) {
        free(w->mem->block);
        free(w->mem);
    }
    MPI_Comm dup = w->comm;
    PMPI_Comm_free(&dup);
    if (w->eh)
        zm_mpi_eh_unref(w->eh);
    zm_mpi_handle_forget(w);
    zm_mpi_magic_clear(&w->magic);
    free(w);
    *win = MPI_WIN_NULL;
    return MPI_SUCCESS;
}
ZM_WEAK(Win_free)
