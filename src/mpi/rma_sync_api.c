/*
 * rma_sync_api.c: the API of one-sided synchronization: fence, post/start/
 * complete/wait (PSCW), and the passive-target lock, flush and sync calls.
 * The operations themselves are in rma_api.c, whose header comment says
 * how they complete; the synchronization calls wait for those of the
 * caller still on their way to other processes (zm_mpi_win_drain), then
 * order memory and, where an epoch needs it, meet the other ranks.
 */
#include "bind_hooks.h"
#include "rma_api.h"

#include "rma/rma.h"
#include "arch/tsan_shim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Fence ------------------------------------------------------------------ */

/* Raise MPI_ERR_ASSERT unless assert holds only bits of `allowed`. */
static int assert_check(struct zmpi_win *w, const char *fn, int assert, int allowed)
{
    if ((assert & ~allowed) == 0)
        return MPI_SUCCESS;
    return zm_mpi_win_error(w, MPI_ERR_ASSERT, fn, "(assert=%d): invalid assertion for this "
                            "call", assert);
}

/* The name of an open epoch that excludes `fn`'s epoch, or NULL. */
static const char *open_epoch(const struct zmpi_win *w)
{
    return w->started ? "MPI_Win_start" : w->posted ? "MPI_Win_post" : w->nlocks ?
           "MPI_Win_lock" : w->locked_all ? "MPI_Win_lock_all" : NULL;
}

static int epoch_conflict(struct zmpi_win *w, const char *fn, const char *other)
{
    return zm_mpi_win_error(w, MPI_ERR_RMA_SYNC, fn, "(win=%s): rank %d is inside an epoch "
                            "opened by %s, which must end first", wname(w), w->rank, other);
}

int PMPI_Win_fence(int assert, MPI_Win win)
{
    const char *fn = "MPI_Win_fence";
    int rc = win_enter(fn, win);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = assert_check(win, fn, assert, MPI_MODE_NOSTORE | MPI_MODE_NOPUT |
                           MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED)) != MPI_SUCCESS)
        return rc;
    const char *other = open_epoch(win);
    if (other)
        return epoch_conflict(win, fn, other);
    if ((rc = zm_mpi_win_drain(win, fn)) != MPI_SUCCESS)
        return rc;
    atomic_thread_fence(memory_order_seq_cst);
    win->fence_open = !(assert & MPI_MODE_NOSUCCEED);
    /* The barrier orders one epoch's accesses before the next's; with no
     * epoch on either side there is nothing to order. */
    if ((assert & MPI_MODE_NOPRECEDE) && (assert & MPI_MODE_NOSUCCEED))
        return MPI_SUCCESS;
    zm_p2p_self()->wait_call = fn;
    zm_p2p_self()->wait_req = NULL;
    if (win->rma->proc)
        return PMPI_Barrier(win->comm); /* remote operations are acknowledged: done */
    zm_coll_shm_t *s = zm_mpi_coll_shm(win->comm);
    if (!s)
        return zm_mpi_win_error(win, MPI_ERR_NO_MEM, fn, "out of memory");
    /* Under ThreadSanitizer, one epoch's accesses happen before the next
     * epoch's, as for a collective (coll_api.c). */
    zm_arch_tsan_release(s);
    zm_status_t st = zm_coll_barrier(s, win->rank);
    zm_arch_tsan_acquire(s);
    if (st != ZM_OK)
        return zm_mpi_win_error(win, MPI_ERR_NO_MEM, fn, "out of memory");
    return MPI_SUCCESS;
}
ZM_WEAK(Win_fence)

/* ---- Post, start, complete, wait ---------------------------------------------- */

/* The window ranks of the members of `group`, in a new array (*out, *n).
 * Raises MPI_ERR_GROUP for an invalid group or a member outside the
 * window. */
static int group_ranks(struct zmpi_win *w, const char *fn, MPI_Group group, int **out, int *n)
{
    if (!group || group->magic != ZM_GROUP_MAGIC)
        return zm_mpi_win_error(w, MPI_ERR_GROUP, fn, "(group=%s): invalid group",
                                group ? "freed or not a group" : "MPI_GROUP_NULL");
    int *r = malloc(sizeof(int) * (size_t)(group->size ? group->size : 1));
    if (!r)
        return zm_mpi_win_error(w, MPI_ERR_NO_MEM, fn, "out of memory");
    const int *map = w->comm->p.world;
    for (int i = 0; i < group->size; i++) {
        int j = 0;
        while (j < w->size && (map ? map[j] : j) != group->world[i])
            j++;
        if (j == w->size) {
            free(r);
            return zm_mpi_win_error(w, MPI_ERR_GROUP, fn, "(group): member %d (world rank %d) "
                                    "is not in window %s", i, group->world[i], wname(w));
        }
        r[i] = j;
    }
    *out = r;
    *n = group->size;
    return MPI_SUCCESS;
}

int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    const char *fn = "MPI_Win_post";
    int rc = win_enter(fn, win);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = assert_check(win, fn, assert, MPI_MODE_NOCHECK | MPI_MODE_NOSTORE |
                           MPI_MODE_NOPUT)) != MPI_SUCCESS)
        return rc;
    if (win->posted || win->nlocks || win->locked_all)
        return epoch_conflict(win, fn, win->posted ? "MPI_Win_post" : win->nlocks ?
                              "MPI_Win_lock" : "MPI_Win_lock_all");
    int *ranks, n;
    if ((rc = group_ranks(win, fn, group, &ranks, &n)) != MPI_SUCCESS)
        return rc;
    win->fence_open = 0;
    zm_rma_post(win->rma, win->rank, ranks, n);
    free(ranks);
    win->posted = 1;
    win->npost = n;
    return MPI_SUCCESS;
}
ZM_WEAK(Win_post)

int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    const char *fn = "MPI_Win_start";
    int rc = win_enter(fn, win);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = assert_check(win, fn, assert, MPI_MODE_NOCHECK)) != MPI_SUCCESS)
        return rc;
    if (win->started || win->nlocks || win->locked_all)
        return epoch_conflict(win, fn, win->started ? "MPI_Win_start" : win->nlocks ?
                              "MPI_Win_lock" : "MPI_Win_lock_all");
    int *ranks, n;
    if ((rc = group_ranks(win, fn, group, &ranks, &n)) != MPI_SUCCESS)
        return rc;
    char what[320];
    snprintf(what, sizeof(what), "MPI_Win_start waiting for MPI_Win_post of the %d target%s "
             "of window %s", n, n == 1 ? "" : "s", wname(win));
    win->fence_open = 0;
    zm_rma_start(win->rma, win->rank, ranks, n, what);
    for (int i = 0; i < n; i++)
        win->lock_type[ranks[i]] |= ZM_WIN_IN_START;
    win->start_ranks = ranks;
    win->nstart = n;
    win->started = 1;
    return MPI_SUCCESS;
}
ZM_WEAK(Win_start)

int PMPI_Win_complete(MPI_Win win)
{
    const char *fn = "MPI_Win_complete";
    int rc = win_enter(fn, win);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!win->started)
        return zm_mpi_win_error(win, MPI_ERR_RMA_SYNC, fn, "(win=%s): no access epoch opened "
                                "by MPI_Win_start", wname(win));
    if ((rc = zm_mpi_win_drain(win, fn)) != MPI_SUCCESS)
        return rc;
    zm_rma_complete(win->rma, win->rank, win->start_ranks, win->nstart);
    for (int i = 0; i < win->nstart; i++)
        win->lock_type[win->start_ranks[i]] &= (unsigned char)~ZM_WIN_IN_START;
    free(win->start_ranks);
    win->start_ranks = NULL;
    win->nstart = 0;
    win->started = 0;
    return MPI_SUCCESS;
}
ZM_WEAK(Win_complete)

/* Win_wait (test = 0) or Win_test (test = 1, sets *flag). */
static int wait_or_test(const char *fn, MPI_Win win, int test, int *flag)
{
    int rc = win_enter(fn, win);
    if (rc != MPI_SUCCESS)
        return rc;
    if (test && !flag)
        return zm_mpi_win_error(win, MPI_ERR_ARG, fn, "(flag=NULL): invalid argument");
    if (!win->posted)
        return zm_mpi_win_error(win, MPI_ERR_RMA_SYNC, fn, "(win=%s): no exposure epoch "
                                "opened by MPI_Win_post", wname(win));
    if (test) {
        /* Completes from other processes arrive through the network: a
         * rank polling Win_test drives it. */
        if (win->rma->proc)
            zm_net_poll();
        *flag = zm_rma_test_completes(win->rma, win->rank, win->npost);
        if (!*flag) {
            /* A rank polling Win_test lets the origins on its worker run. */
            zm_ult_yield();
            return MPI_SUCCESS;
        }
    } else {
        char what[320];
        snprintf(what, sizeof(what), "MPI_Win_wait waiting for MPI_Win_complete of %d "
                 "origin%s of window %s", win->npost, win->npost == 1 ? "" : "s", wname(win));
        zm_rma_wait_completes(win->rma, win->rank, win->npost, what);
    }
    atomic_thread_fence(memory_order_seq_cst);
    win->posted = 0;
    win->npost = 0;
    return MPI_SUCCESS;
}

int PMPI_Win_wait(MPI_Win win)
{
    return wait_or_test("MPI_Win_wait", win, 0, NULL);
}
ZM_WEAK(Win_wait)

int PMPI_Win_test(MPI_Win win, int *flag)
{
    return wait_or_test("MPI_Win_test", win, 1, flag);
}
ZM_WEAK(Win_test)

/* ---- Passive target ------------------------------------------------------------ */

/* Check a target rank of a lock call; MPI_PROC_NULL is valid (no-op). */
static int lock_rank_check(struct zmpi_win *w, const char *fn, int rank)
{
    if (rank == MPI_PROC_NULL || (rank >= 0 && rank < w->size))
        return MPI_SUCCESS;
    return zm_mpi_win_error(w, MPI_ERR_RANK, fn, "(rank=%d): invalid rank, window %s has %d "
                            "ranks", rank, wname(w), w->size);
}

/* Take the passive-target lock of target t (exclusive or shared) for the
 * calling rank, for fn.  The wait's description (for deadlock reports)
 * costs more than an uncontended lock, so it is written only when the
 * lock is busy. */
static void lock_target(MPI_Win win, const char *fn, int t, int excl)
{
    if (zm_rma_lock_try(win->rma, t, excl))
        return;
    char what[320];
    snprintf(what, sizeof(what), "%s waiting for %s lock on rank %d of window %s", fn,
             excl ? "an exclusive" : "a shared", t, wname(win));
    zm_rma_lock(win->rma, win->rank, t, excl, what);
}

int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    const char *fn = "MPI_Win_lock";
    int rc = win_enter(fn, win);
    if (rc != MPI_SUCCESS)
        return rc;
    if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE)
        return zm_mpi_win_error(win, MPI_ERR_LOCKTYPE, fn, "(lock_type=%d): must be "
                                "MPI_LOCK_SHARED or MPI_LOCK_EXCLUSIVE", lock_type);
    if ((rc = lock_rank_check(win, fn, rank)) != MPI_SUCCESS ||
        (rc = assert_check(win, fn, assert, MPI_MODE_NOCHECK)) != MPI_SUCCESS)
        return rc;
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (win->locked_all || (win->lock_type[rank] & (ZM_WIN_LOCK_SHARED | ZM_WIN_LOCK_EXCL)))
        return zm_mpi_win_error(win, MPI_ERR_RMA_SYNC, fn, "(rank=%d): rank %d already holds "
                                "a lock on this target of window %s", rank, win->rank,
                                wname(win));
    if (win->started)
        return epoch_conflict(win, fn, "MPI_Win_start");
    int excl = lock_type == MPI_LOCK_EXCLUSIVE;
    if (!(assert & MPI_MODE_NOCHECK)) {
        lock_target(win, fn, rank, excl);
        /* Under ThreadSanitizer: after the previous holders' epochs. */
        zm_arch_tsan_acquire(win->rma);
    }
    win->lock_type[rank] = (unsigned char)((excl ? ZM_WIN_LOCK_EXCL : ZM_WIN_LOCK_SHARED) |
                                           (assert & MPI_MODE_NOCHECK ? ZM_WIN_LOCK_NOCHECK : 0));
    win->nlocks++;
    win->fence_open = 0;
    return MPI_SUCCESS;
}
ZM_WEAK(Win_lock)

int PMPI_Win_unlock(int rank, MPI_Win win)
{
    const char *fn = "MPI_Win_unlock";
    int rc = win_enter(fn, win);
    if (rc != MPI_SUCCESS || (rc = lock_rank_check(win, fn, rank)) != MPI_SUCCESS ||
        rank == MPI_PROC_NULL)
        return rc;
    unsigned char lt = win->lock_type[rank];
    if (!(lt & (ZM_WIN_LOCK_SHARED | ZM_WIN_LOCK_EXCL)))
        return zm_mpi_win_error(win, MPI_ERR_RMA_SYNC, fn, "(rank=%d): rank %d holds no lock "
                                "on this target of window %s (unlock without lock)", rank,
                                win->rank, wname(win));
    if ((rc = zm_mpi_win_drain(win, fn)) != MPI_SUCCESS)
        return rc;
    /* The epoch's accesses are complete; publish them before the next
     * holder of the lock can look. */
    atomic_thread_fence(memory_order_seq_cst);
    if (!(lt & ZM_WIN_LOCK_NOCHECK)) {
        zm_arch_tsan_release(win->rma); /* for the next holder's MPI_Win_lock */
        zm_rma_unlock(win->rma, rank, (lt & ZM_WIN_LOCK_EXCL) != 0);
    }
    win->lock_type[rank] = 0;
    win->nlocks--;
    /* A rank that polls window memory in lock, access, unlock epochs (a
     * linked-list append waiting for a neighbour's element) lets the ranks
     * of its worker run, as flush does: the one it waits for may be one. */
    zm_ult_yield();
    return MPI_SUCCESS;
}
ZM_WEAK(Win_unlock)

int PMPI_Win_lock_all(int assert, MPI_Win win)
{
    const char *fn = "MPI_Win_lock_all";
    int rc = win_enter(fn, win);
    if (rc != MPI_SUCCESS ||
        (rc = assert_check(win, fn, assert, MPI_MODE_NOCHECK)) != MPI_SUCCESS)
        return rc;
    if (win->locked_all || win->nlocks)
        return zm_mpi_win_error(win, MPI_ERR_RMA_SYNC, fn, "(win=%s): rank %d already holds "
                                "%s", wname(win), win->rank, win->locked_all ?
                                "MPI_Win_lock_all" : "a lock from MPI_Win_lock");
    if (win->started)
        return epoch_conflict(win, fn, "MPI_Win_start");
    if (!(assert & MPI_MODE_NOCHECK)) {
        /* A shared lock on every target, in rank order. */
        for (int t = 0; t < win->size; t++)
            lock_target(win, fn, t, 0);
        zm_arch_tsan_acquire(win->rma); /* as in MPI_Win_lock */
    }
    win->locked_all = assert & MPI_MODE_NOCHECK ? 2 : 1;
    win->fence_open = 0;
    return MPI_SUCCESS;
}
ZM_WEAK(Win_lock_all)

int PMPI_Win_unlock_all(MPI_Win win)
{
    const char *fn = "MPI_Win_unlock_all";
    int rc = win_enter(fn, win);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!win->locked_all)
        return zm_mpi_win_error(win, MPI_ERR_RMA_SYNC, fn, "(win=%s): rank %d did not call "
                                "MPI_Win_lock_all", wname(win), win->rank);
    if ((rc = zm_mpi_win_drain(win, fn)) != MPI_SUCCESS)
        return rc;
    atomic_thread_fence(memory_order_seq_cst);
    if (win->locked_all == 1) {
        zm_arch_tsan_release(win->rma); /* as in MPI_Win_unlock */
        for (int t = 0; t < win->size; t++)
            zm_rma_unlock(win->rma, t, 0);
    }
    win->locked_all = 0;
    return MPI_SUCCESS;
}
ZM_WEAK(Win_unlock_all)

/* Flush and sync: every operation in one process is already complete, so
 * they wait for the caller's operations to other processes (all of them,
 * whatever target a flush names), then are a memory fence, and a yield
 * when other ranks share the worker so that a rank spinning on a window
 * flag cannot starve the one that sets it. */
/* `all`: every target (rank ignored); need_epoch: the call is valid in
 * passive-target epochs only. */
static int flush(const char *fn, MPI_Win win, int rank, int all, int need_epoch)
{
    int rc = win_enter(fn, win);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!all && (rc = lock_rank_check(win, fn, rank)) != MPI_SUCCESS)
        return rc;
    int ok = !need_epoch || win->locked_all || (all ? win->nlocks > 0 : rank ==
             MPI_PROC_NULL || has_passive(win, rank));
    if (!ok)
        return zm_mpi_win_error(win, MPI_ERR_RMA_SYNC, fn, "(win=%s): rank %d has no "
                                "passive-target epoch%s (MPI_Win_lock or MPI_Win_lock_all)",
                                wname(win), win->rank, all ? "" : " to this target");
    if ((rc = zm_mpi_win_drain(win, fn)) != MPI_SUCCESS)
        return rc;
    atomic_thread_fence(memory_order_seq_cst);
    /* A rank spinning on its own window memory with flush or sync waits
     * for origins; those of other processes reach it through the
     * network, which it then drives too.  (zm_net_remote first: a
     * one-process job then reads no more than before.) */
    if (ZM_UNLIKELY(zm_net_remote != NULL) && win->rma->proc && !win->rma->node)
        zm_net_poll();
    zm_ult_yield();
    return MPI_SUCCESS;
}

/* MPI_Win_flush and MPI_Win_flush_local in the common case, inline: a
 * valid target inside a passive-target epoch of a window whose ranks all
 * live in this process, no binding hook pending.  Nothing is on its way
 * then (every operation was done at its call), so what is left of flush
 * is its fence and yield.  Returns 1 when done, 0 for everything else
 * (flush checks again and reports). */
static inline int flush_fast(int rank, MPI_Win win)
{
    if (ZM_UNLIKELY(!win_live(win) || (unsigned)rank >= (unsigned)win->size ||
                    win->rma->proc ||
                    atomic_load_explicit(&zm_mpi_hooks_n, memory_order_relaxed) ||
                    !has_passive(win, rank)))
        return 0;
    zm_arch_full_fence();
    zm_ult_yield();
    return 1;
}

int PMPI_Win_flush(int rank, MPI_Win win)
{
    if (flush_fast(rank, win))
        return MPI_SUCCESS;
    return flush("MPI_Win_flush", win, rank, 0, 1);
}
ZM_WEAK(Win_flush)

int PMPI_Win_flush_local(int rank, MPI_Win win)
{
    if (flush_fast(rank, win))
        return MPI_SUCCESS;
    return flush("MPI_Win_flush_local", win, rank, 0, 1);
}
ZM_WEAK(Win_flush_local)

int PMPI_Win_flush_all(MPI_Win win)
{
    return flush("MPI_Win_flush_all", win, 0, 1, 1);
}
ZM_WEAK(Win_flush_all)

int PMPI_Win_flush_local_all(MPI_Win win)
{
    return flush("MPI_Win_flush_local_all", win, 0, 1, 1);
}
ZM_WEAK(Win_flush_local_all)

int PMPI_Win_sync(MPI_Win win)
{
    return flush("MPI_Win_sync", win, 0, 1, 0);
}
ZM_WEAK(Win_sync)

