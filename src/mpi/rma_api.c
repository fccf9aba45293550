/*
 * rma_api.c: the API of one-sided communication: Put, Get, the
 * accumulate family and their request forms (the synchronization calls
 * are in rma_sync_api.c).
 *
 * Every operation is checked (window, buffers, datatypes, target rank,
 * epoch, and that the target range lies inside the target's window), then
 * done at once by the calling rank with direct copies (src/rma/), or, for
 * a target in another process, copied there with cross-memory attach
 * (Gets and large Puts on one node, zm_rma_net_cma) or sent there
 * (src/rma/rma_net.c): Puts and accumulates that fetch nothing return
 * once sent (not on dynamic windows), the others once the target's
 * process applied them, and every call that flushes or ends an epoch
 * first waits for the caller's operations on their way
 * (zm_mpi_win_drain).  On a direct window (zmpi's memory on processes of
 * one node, src/rma/rma.h) every target is reached with loads and stores
 * as in one process.  There, and in one
 * process, a flush has nothing to wait for: it is a memory fence, plus a
 * yield when other ranks share the worker, so that a rank spinning on a
 * flag with flush (the mpi4py.util.sync pattern) lets the rank that will
 * set the flag run.
 */
#include "bind_hooks.h"
#include "large.h"
#include "rma_api.h"

#include "rma/rma.h"
#include "arch/tsan_shim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A (count, datatype) argument that describes data. */
static int data_check(struct zmpi_win *w, const char *fn, const char *what, MPI_Count count,
                      MPI_Datatype dt)
{
    if (count < 0)
        return zm_mpi_win_error(w, MPI_ERR_COUNT, fn, "(%s_count=%lld): must be >= 0", what,
                                (long long)count);
    if (!zm_dt_valid(dt))
        return zm_mpi_win_error(w, MPI_ERR_TYPE, fn, "(%s_datatype=%s): invalid datatype", what,
                                dt == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL" : "not a type");
    if (!dt->usable)
        return zm_mpi_win_error(w, MPI_ERR_TYPE, fn, "(%s_datatype=%s): %s", what, dt->name,
                                dt->freed ? "freed" : "not committed (MPI_Type_commit)");
    return MPI_SUCCESS;
}

/* Where (count, dt) at displacement disp of target t lies, checked to be
 * inside the target's window.  Sets *addr, or raises MPI_ERR_RMA_RANGE. */
static int target_range(struct zmpi_win *w, const char *fn, int t, MPI_Aint disp,
                        MPI_Count count, MPI_Datatype dt, char **addr)
{
    ptrdiff_t lo = 0, hi = 0;
    if (count > 0 && dt->size > 0) {
        ptrdiff_t span = (ptrdiff_t)(count - 1) * dt->extent;
        lo = dt->true_lb + (span < 0 ? span : 0);
        hi = dt->true_ub + (span > 0 ? span : 0);
    }
    int dyn = w->attr_flavor == MPI_WIN_FLAVOR_DYNAMIC;
    if (dyn && zm_rma_is_remote(w->rma, t)) {
        /* Another process's attached regions are known there only: the
         * target checks the range (remote_error reports what it found).
         * Any non-NULL address means "something to do". */
        *addr = (char *)(uintptr_t)1;
        return MPI_SUCCESS;
    }
    *addr = zm_rma_target_addr(w->rma, t, dyn, disp, lo, hi);
    /* No data is never out of range, even at a window of size 0 whose
     * base is NULL (NULL then just means nothing to do). */
    if (*addr || lo == hi)
        return MPI_SUCCESS;
    if (dyn)
        return zm_mpi_win_error(w, MPI_ERR_RMA_RANGE, fn, "(target_rank=%d, target_disp=%lld, "
                                "target_count=%lld, target_datatype=%s): not inside memory "
                                "attached by the target to window %s", t, (long long)disp,
                                (long long)count, dt->name, wname(w));
    zm_rma_target_t *tg = &w->rma->t[t];
    return zm_mpi_win_error(w, MPI_ERR_RMA_RANGE, fn, "(target_rank=%d, target_disp=%lld, "
                            "target_count=%lld, target_datatype=%s): bytes [%lld, %lld) are "
                            "outside the target's window %s of %zu bytes (disp_unit %d)", t,
                            (long long)disp, (long long)count, dt->name,
                            (long long)(disp * tg->disp_unit + lo),
                            (long long)(disp * tg->disp_unit + hi), wname(w), tg->size,
                            tg->disp_unit);
}

/* The target side of every operation: rank, epoch, datatype and range.
 * *addr is NULL for MPI_PROC_NULL (nothing to do). */
static int target_check(struct zmpi_win *w, const char *fn, int t, MPI_Aint disp,
                        MPI_Count count, MPI_Datatype dt, int passive, char **addr)
{
    *addr = NULL;
    int rc = data_check(w, fn, "target", count, dt);
    if (rc != MPI_SUCCESS)
        return rc;
    if (t == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (t < 0 || t >= w->size)
        return zm_mpi_win_error(w, MPI_ERR_RANK, fn, "(target_rank=%d): invalid rank, window "
                                "%s has %d ranks", t, wname(w), w->size);
    if (passive ? !has_passive(w, t) : !has_access(w, t))
        return zm_mpi_win_error(w, MPI_ERR_RMA_SYNC, fn, "(target_rank=%d): no %saccess epoch "
                                "to this target on window %s (call MPI_Win_fence, "
                                "MPI_Win_start or MPI_Win_lock first)", t,
                                passive ? "passive-target " : "", wname(w));
    return target_range(w, fn, t, disp, count, dt, addr);
}

/* Origin and target must hold the same amount of data. */
static int match_check(struct zmpi_win *w, const char *fn, const char *what, MPI_Count count,
                       MPI_Datatype dt, MPI_Count tcount, MPI_Datatype tdt)
{
    size_t a = zm_dt_bytes(dt, (size_t)count), b = zm_dt_bytes(tdt, (size_t)tcount);
    if (a == b)
        return MPI_SUCCESS;
    return zm_mpi_win_error(w, MPI_ERR_TYPE, fn, "(%s_count=%lld, %s_datatype=%s: %zu bytes; "
                            "target_count=%lld, target_datatype=%s: %zu bytes): datatype "
                            "mismatch on window %s", what, (long long)count, what, dt->name, a,
                            (long long)tcount, tdt->name, b, wname(w));
}

/* The error of an operation on a target of another process that did not
 * return ZM_OK: the target found the range outside its attached memory,
 * the element type is unknown across processes, or memory ran out. */
static int remote_error(struct zmpi_win *w, const char *fn, zm_status_t st, int t,
                        MPI_Aint disp, MPI_Count count, MPI_Datatype dt)
{
    if (st == ZM_ERR_ARG)
        return zm_mpi_win_error(w, MPI_ERR_RMA_RANGE, fn, "(target_rank=%d, target_disp=%lld, "
                                "target_count=%lld, target_datatype=%s): not inside memory "
                                "attached by the target (in another process) to window %s", t,
                                (long long)disp, (long long)count, dt->name, wname(w));
    if (st == ZM_ERR_OTHER)
        return zm_mpi_win_error(w, MPI_ERR_TYPE, fn, "(target_datatype=%s): its element type "
                                "is not a predefined type zmpi can name to another process",
                                dt->name);
    return zm_mpi_win_error(w, MPI_ERR_NO_MEM, fn, "out of memory");
}

/* Whether the window is a dynamic one (target displacements are addresses). */
static int is_dyn(const struct zmpi_win *w)
{
    return w->attr_flavor == MPI_WIN_FLAVOR_DYNAMIC;
}

/* zm_mpi_win_drain's wait for the caller's operations on w. */
static inline int win_drain_ops(struct zmpi_win *w, const char *fn)
{
    /* A direct window's operations are done at return, like one
     * process's: nothing is ever on its way. */
    if (ZM_LIKELY(!w->rma->proc) || w->rma->node)
        return MPI_SUCCESS;
    zm_status_t st = zm_rma_net_drain(w->rma, w->rank);
    if (st == ZM_OK)
        return MPI_SUCCESS;
    return zm_mpi_win_error(w, st == ZM_ERR_NOMEM ? MPI_ERR_NO_MEM : MPI_ERR_RMA_RANGE, fn,
                            "(win=%s): a one-sided operation of rank %d to another process "
                            "failed there", wname(w), w->rank);
}

int zm_mpi_win_drain(struct zmpi_win *w, const char *fn)
{
    int rc = win_drain_ops(w, fn);
    /* Every operation of the caller on w is complete at the origin now:
     * a binding's copies of array sections are written back and freed
     * (bind_hooks.h). */
    if (ZM_UNLIKELY(atomic_load_explicit(&zm_mpi_hooks_n, memory_order_relaxed)) &&
        rc == MPI_SUCCESS)
        zm_mpi_hook_win(w);
    return rc;
}

/* ---- Put and Get ----------------------------------------------------------- */

/* Put or Get to a target of another process, checked.  Out of line, so
 * that the one-process path stays as short as it was. */
static __attribute__((noinline, cold)) int
put_get_remote(const char *fn, int get, void *obuf, MPI_Count ocount, MPI_Datatype odt, int t,
               MPI_Aint disp, MPI_Count tcount, MPI_Datatype tdt, MPI_Win win)
{
    zm_rma_win_t *r = win->rma;
    if (r->pid && !atomic_load_explicit(&r->cma_off, memory_order_relaxed) &&
        (get || zm_dt_bytes(odt, (size_t)ocount) >= ZM_RMA_CMA_PUT_MIN)) {
        /* Another process of this node: straight into or out of its
         * memory (the range is checked), unless the system refuses. */
        zm_status_t st = zm_rma_net_cma(r, t, !get, (size_t)disp * (size_t)r->t[t].disp_unit,
                                        obuf, (size_t)ocount, odt, (size_t)tcount, tdt);
        if (st != ZM_ERR_OTHER)
            return st == ZM_OK ? MPI_SUCCESS : remote_error(win, fn, st, t, disp, tcount, tdt);
    }
    zm_status_t st = get ? zm_rma_net_get(win->rma, win->rank, t, is_dyn(win), disp, obuf,
                                          (size_t)ocount, odt, (size_t)tcount, tdt)
                         : zm_rma_net_put(win->rma, win->rank, t, is_dyn(win), disp, obuf,
                                          (size_t)ocount, odt, (size_t)tcount, tdt);
    return st == ZM_OK ? MPI_SUCCESS : remote_error(win, fn, st, t, disp, tcount, tdt);
}

/* Put (get = 0) or Get (get = 1), checked and done; passive: the
 * request forms' epoch rule. */
static int put_get(const char *fn, int get, void *obuf, MPI_Count ocount, MPI_Datatype odt,
                   int t, MPI_Aint disp, MPI_Count tcount, MPI_Datatype tdt, MPI_Win win,
                   int passive)
{
    int rc = win_enter(fn, win);
    if (rc != MPI_SUCCESS)
        return rc;
    char *taddr;
    if ((rc = data_check(win, fn, "origin", ocount, odt)) != MPI_SUCCESS ||
        (rc = target_check(win, fn, t, disp, tcount, tdt, passive, &taddr)) != MPI_SUCCESS ||
        (rc = match_check(win, fn, "origin", ocount, odt, tcount, tdt)) != MPI_SUCCESS)
        return rc;
    size_t bytes = zm_dt_bytes(odt, (size_t)ocount);
    if (!taddr || bytes == 0)
        return MPI_SUCCESS;
    if (zm_rma_is_remote(win->rma, t))
        return put_get_remote(fn, get, obuf, ocount, odt, t, disp, tcount, tdt, win);
    if (get)
        zm_dt_copy(obuf, (size_t)ocount, odt, taddr, (size_t)tcount, tdt, bytes);
    else
        zm_dt_copy(taddr, (size_t)tcount, tdt, obuf, (size_t)ocount, odt, bytes);
    return MPI_SUCCESS;
}

static int done_request(struct zmpi_win *w, const char *fn, int rc, MPI_Request *request);
static int req_arg(const char *fn, MPI_Win win, MPI_Request *request);

/* What ZM_RMA_BLOCKING points at. */
const char zm_mpi_rma_blocking_mark;

int zm_mpi_put_get(const char *fn, int get, void *obuf, MPI_Count ocount, MPI_Datatype odt,
                   int t, MPI_Aint disp, MPI_Count tcount, MPI_Datatype tdt, MPI_Win win,
                   MPI_Request *request)
{
    if (request == ZM_RMA_BLOCKING)
        return put_get(fn, get, obuf, ocount, odt, t, disp, tcount, tdt, win, 0);
    int rc = req_arg(fn, win, request);
    if (rc == MPI_SUCCESS)
        rc = put_get(fn, get, obuf, ocount, odt, t, disp, tcount, tdt, win, 1);
    return done_request(win, fn, rc, request);
}

/* The target address of the common blocking one-sided call, checked
 * inline: the same contiguous datatype and count on both sides, a target
 * of this process (or of a direct window's node) inside an access epoch,
 * in a window that is not dynamic, the bytes inside its segment.  NULL
 * for everything else, errors included: the general path then checks
 * every argument again and reports.  These checks cost a few dozen
 * instructions against some 250 for the general ones (an 8-byte Put
 * went from 314 instructions to 56, callgrind). */
static inline __attribute__((always_inline)) char *fast_target(int count, MPI_Datatype dt, int t, MPI_Aint disp, int tcount,
                                MPI_Datatype tdt, MPI_Win win)
{
    if (ZM_UNLIKELY(!win_live(win) || dt != tdt || count != tcount || count <= 0 ||
                    !zm_dt_usable(dt) || !dt->contig || count > dt->cmax ||
                    (unsigned)t >= (unsigned)win->size || disp < 0 ||
                    win->attr_flavor == MPI_WIN_FLAVOR_DYNAMIC ||
                    zm_rma_is_remote(win->rma, t) || !has_access(win, t)))
        return NULL;
    const zm_rma_target_t *tg = &win->rma->t[t];
    /* A contiguous type's data is count * size bytes from offset 0; cmax
     * keeps that product inside an int64_t.  A wild displacement must not
     * wrap around: the multiplication reports overflow, and the offset is
     * compared with the room left after the data, which cannot wrap. */
    uint64_t bytes = (uint64_t)count * dt->size, off;
    if (ZM_UNLIKELY(__builtin_mul_overflow((uint64_t)disp, (uint64_t)tg->disp_unit, &off) ||
                    bytes > tg->size || off > tg->size - bytes))
        return NULL;
    return tg->base + (size_t)off;
}

int PMPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win)
{
    char *taddr = fast_target(origin_count, origin_datatype, target_rank, target_disp,
                              target_count, target_datatype, win);
    if (ZM_UNLIKELY(!taddr))
        return zm_mpi_put_get("MPI_Put", 0, (void *)origin_addr, origin_count, origin_datatype,
                              target_rank, target_disp, target_count, target_datatype, win,
                              ZM_RMA_BLOCKING);
    memcpy(taddr, origin_addr, (size_t)origin_count * origin_datatype->size);
    return MPI_SUCCESS;
}
ZM_WEAK(Put)

int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win)
{
    char *taddr = fast_target(origin_count, origin_datatype, target_rank, target_disp,
                              target_count, target_datatype, win);
    if (ZM_UNLIKELY(!taddr))
        return zm_mpi_put_get("MPI_Get", 1, origin_addr, origin_count, origin_datatype,
                              target_rank, target_disp, target_count, target_datatype, win,
                              ZM_RMA_BLOCKING);
    memcpy(origin_addr, taddr, (size_t)origin_count * origin_datatype->size);
    return MPI_SUCCESS;
}
ZM_WEAK(Get)

/* ---- Accumulate family ------------------------------------------------------ */

/* The arguments of an accumulate-family call. */
struct acc {
    const void *obuf;
    MPI_Count ocount;
    MPI_Datatype odt;
    void *rbuf;                    /* result (Get_accumulate), or NULL */
    MPI_Count rcount;
    MPI_Datatype rdt;
    int t;
    MPI_Aint disp;
    MPI_Count tcount;
    MPI_Datatype tdt;
    MPI_Op op;
};

/* The op and the element types of an accumulate: one predefined type on
 * every side, on which op is defined.  Sets *basic. */
static int acc_types(struct zmpi_win *w, const char *fn, const struct acc *a, int fetch,
                     const zm_dt_t **basic)
{
    MPI_Op op = a->op;
    if (!zm_op_valid(op) || op->id == ZM_OP_USER || (!fetch && op->id == ZM_OP_NO_OP))
        return zm_mpi_win_error(w, MPI_ERR_OP, fn, "(op=%s): %s", !zm_op_valid(op)
                                ? "invalid operation" : op->name, !zm_op_valid(op) ? "" :
                                op->id == ZM_OP_USER ? "one-sided accumulates take predefined "
                                "operations only" : "MPI_NO_OP is for MPI_Get_accumulate and "
                                "MPI_Fetch_and_op only");
    /* A side that carries no data (count 0, or a type of size 0) has no
     * elements that could disagree: MPICH accepts any types then. */
    *basic = zm_dt_basic(a->tdt);
    if (!*basic && zm_dt_bytes(a->tdt, (size_t)a->tcount) == 0)
        *basic = MPI_BYTE;
    const char *bad = NULL;
    if (!*basic)
        bad = "target";
    else if (op->id != ZM_OP_NO_OP && zm_dt_bytes(a->odt, (size_t)a->ocount) > 0 &&
             zm_dt_basic(a->odt) != *basic)
        bad = "origin";
    else if (a->rbuf && zm_dt_bytes(a->rdt, (size_t)a->rcount) > 0 &&
             zm_dt_basic(a->rdt) != *basic)
        bad = "result";
    if (bad)
        return zm_mpi_win_error(w, MPI_ERR_TYPE, fn, "(%s_datatype=%s, target_datatype=%s): "
                                "accumulate datatypes must all consist of the same single "
                                "predefined type", bad, !strcmp(bad, "origin") ? a->odt->name
                                : !strcmp(bad, "result") ? a->rdt->name : a->tdt->name,
                                a->tdt->name);
    /* An accumulate of no element applies the op to nothing: MPICH and Open
     * MPI accept any predefined op then, and mpi4py relies on it. */
    if (a->tcount > 0 && (*basic)->size > 0 && !zm_op_defined(op, *basic))
        return zm_mpi_win_error(w, MPI_ERR_OP, fn, "(op=%s): not defined for datatype %s",
                                op->name, (*basic)->name);
    return MPI_SUCCESS;
}

/* An accumulate to a target of another process, checked.  Out of line,
 * as put_get_remote. */
static __attribute__((noinline, cold)) int
accumulate_remote(const char *fn, const struct acc *a, MPI_Win win, int fetch,
                  const zm_dt_t *basic)
{
    zm_status_t st = zm_rma_net_acc(win->rma, win->rank, a->t, is_dyn(win), a->disp, a->op,
                                    basic, a->obuf, (size_t)a->ocount, a->odt,
                                    (size_t)a->tcount, a->tdt, fetch ? a->rbuf : NULL,
                                    (size_t)a->rcount, a->rdt);
    return st == ZM_OK ? MPI_SUCCESS : remote_error(win, fn, st, a->t, a->disp, a->tcount,
                                                     a->tdt);
}

/* Accumulate (a->rbuf NULL) or Get_accumulate, checked and done. */
static int accumulate(const char *fn, const struct acc *a, MPI_Win win, int passive)
{
    int rc = win_enter(fn, win);
    if (rc != MPI_SUCCESS)
        return rc;
    int fetch = a->rbuf != NULL || a->rdt != NULL, no_op = zm_op_valid(a->op) &&
                a->op->id == ZM_OP_NO_OP;
    const zm_dt_t *basic = NULL;
    char *taddr;
    if ((!no_op && (rc = data_check(win, fn, "origin", a->ocount, a->odt)) != MPI_SUCCESS) ||
        (fetch && (rc = data_check(win, fn, "result", a->rcount, a->rdt)) != MPI_SUCCESS) ||
        (rc = target_check(win, fn, a->t, a->disp, a->tcount, a->tdt, passive, &taddr)) !=
            MPI_SUCCESS ||
        (!no_op && (rc = match_check(win, fn, "origin", a->ocount, a->odt, a->tcount,
                                     a->tdt)) != MPI_SUCCESS) ||
        (fetch && (rc = match_check(win, fn, "result", a->rcount, a->rdt, a->tcount,
                                    a->tdt)) != MPI_SUCCESS) ||
        (rc = acc_types(win, fn, a, fetch, &basic)) != MPI_SUCCESS)
        return rc;
    if (!taddr || zm_dt_bytes(a->tdt, (size_t)a->tcount) == 0)
        return MPI_SUCCESS;
    if (zm_rma_is_remote(win->rma, a->t))
        return accumulate_remote(fn, a, win, fetch, basic);
    if (zm_rma_accumulate(win->rma, a->t, a->op, basic, a->obuf, (size_t)a->ocount, a->odt,
                          taddr, (size_t)a->tcount, a->tdt, fetch ? a->rbuf : NULL,
                          (size_t)a->rcount, a->rdt) != ZM_OK)
        return zm_mpi_win_error(win, MPI_ERR_NO_MEM, fn, "out of memory");
    return MPI_SUCCESS;
}

int zm_mpi_accumulate(const char *fn, const void *obuf, MPI_Count ocount, MPI_Datatype odt,
                      void *rbuf, MPI_Count rcount, MPI_Datatype rdt, int t, MPI_Aint disp,
                      MPI_Count tcount, MPI_Datatype tdt, MPI_Op op, MPI_Win win,
                      MPI_Request *request)
{
    struct acc a = { obuf, ocount, odt, rbuf, rcount, rdt, t, disp, tcount, tdt, op };
    if (request == ZM_RMA_BLOCKING)
        return accumulate(fn, &a, win, 0);
    int rc = req_arg(fn, win, request);
    if (rc == MPI_SUCCESS)
        rc = accumulate(fn, &a, win, 1);
    return done_request(win, fn, rc, request);
}

/* The common blocking accumulate (Accumulate, Get_accumulate,
 * Fetch_and_op) through fast_target: one predefined type, no padding,
 * on every side with one count, and a predefined op defined on it
 * (MPI_NO_OP only when fetching: rbuf not NULL).  The elements then need
 * no gathering and the op runs in place under the target's accumulate
 * lock (zm_rma_accumulate_plain).  Returns 1 when done, 0 for the
 * general path. */
static inline int acc_fast(const void *obuf, void *rbuf, int count, MPI_Datatype dt, int t,
                           MPI_Aint disp, int tcount, MPI_Datatype tdt, MPI_Op op, MPI_Win win)
{
    char *taddr = fast_target(count, dt, t, disp, tcount, tdt, win);
    if (!taddr || dt->d || !zm_op_valid(op) || op->id == ZM_OP_USER ||
        (op->id == ZM_OP_NO_OP && !rbuf) || !zm_op_defined(op, dt))
        return 0;
    zm_rma_accumulate_plain(win->rma, t, op, dt, obuf, taddr, rbuf, (size_t)count);
    return 1;
}

int PMPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    if (acc_fast(origin_addr, NULL, origin_count, origin_datatype, target_rank, target_disp,
                 target_count, target_datatype, op, win))
        return MPI_SUCCESS;
    return zm_mpi_accumulate("MPI_Accumulate", origin_addr, origin_count, origin_datatype, NULL,
                             0, MPI_DATATYPE_NULL, target_rank, target_disp, target_count,
                             target_datatype, op, win, ZM_RMA_BLOCKING);
}
ZM_WEAK(Accumulate)

int PMPI_Get_accumulate(const void *origin_addr, int origin_count,
                        MPI_Datatype origin_datatype, void *result_addr, int result_count,
                        MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                        int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    if (result_datatype == origin_datatype && result_count == origin_count &&
        acc_fast(origin_addr, result_addr, origin_count, origin_datatype, target_rank,
                 target_disp, target_count, target_datatype, op, win))
        return MPI_SUCCESS;
    return zm_mpi_accumulate("MPI_Get_accumulate", origin_addr, origin_count, origin_datatype,
                             result_addr, result_count, result_datatype, target_rank,
                             target_disp, target_count, target_datatype, op, win, ZM_RMA_BLOCKING);
}
ZM_WEAK(Get_accumulate)

/* Fetch_and_op and Compare_and_swap take one element of a predefined
 * type. */
static int single_type(struct zmpi_win *w, const char *fn, MPI_Datatype dt, int cas)
{
    if (!zm_dt_valid(dt) || dt->d)
        return zm_mpi_win_error(w, MPI_ERR_TYPE, fn, "(datatype=%s): must be a predefined "
                                "datatype", zm_dt_valid(dt) ? dt->name : "invalid");
    int k = dt->kind;
    if (cas && k != ZM_DT_INT_SIGNED && k != ZM_DT_INT_UNSIGNED && k != ZM_DT_BYTE &&
        k != ZM_DT_BOOL && k != ZM_DT_FORTRAN_INT && k != ZM_DT_LOGICAL && k != ZM_DT_CHAR)
        return zm_mpi_win_error(w, MPI_ERR_TYPE, fn, "(datatype=%s): must be an integer, "
                                "logical or byte type", dt->name);
    return MPI_SUCCESS;
}

int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    if (acc_fast(origin_addr, result_addr, 1, datatype, target_rank, target_disp, 1, datatype,
                 op, win))
        return MPI_SUCCESS;
    const char *fn = "MPI_Fetch_and_op";
    int rc = win_enter(fn, win);
    if (rc != MPI_SUCCESS || (rc = single_type(win, fn, datatype, 0)) != MPI_SUCCESS)
        return rc;
    struct acc a = { origin_addr, 1, datatype, result_addr, 1, datatype, target_rank,
                     target_disp, 1, datatype, op };
    return accumulate(fn, &a, win, 0);
}
ZM_WEAK(Fetch_and_op)

int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                          MPI_Datatype datatype, int target_rank, MPI_Aint target_disp,
                          MPI_Win win)
{
    const char *fn = "MPI_Compare_and_swap";
    int rc = win_enter(fn, win);
    if (rc != MPI_SUCCESS || (rc = single_type(win, fn, datatype, 1)) != MPI_SUCCESS)
        return rc;
    char *taddr;
    if ((rc = target_check(win, fn, target_rank, target_disp, 1, datatype, 0, &taddr)) !=
        MPI_SUCCESS)
        return rc;
    if (!taddr)
        return MPI_SUCCESS;
    if (!origin_addr || !compare_addr || !result_addr)
        return zm_mpi_win_error(win, MPI_ERR_BUFFER, fn, "origin_addr, compare_addr or "
                                "result_addr is NULL");
    if (zm_rma_is_remote(win->rma, target_rank)) {
        zm_status_t st = zm_rma_net_cas(win->rma, win->rank, target_rank, is_dyn(win),
                                        target_disp, datatype, origin_addr, compare_addr,
                                        result_addr);
        return st == ZM_OK ? MPI_SUCCESS : remote_error(win, fn, st, target_rank, target_disp,
                                                         1, datatype);
    }
    zm_rma_compare_and_swap(win->rma, target_rank, datatype, origin_addr, compare_addr,
                            result_addr, taddr);
    return MPI_SUCCESS;
}
ZM_WEAK(Compare_and_swap)

/* ---- Request forms -----------------------------------------------------------
 * The operation is complete when the call returns, so the request is made
 * complete (a ZM_REQ_DONE_ONLY request, freed by the wait or test that
 * sees it). */

static int done_request(struct zmpi_win *w, const char *fn, int rc, MPI_Request *request)
{
    if (rc != MPI_SUCCESS)
        return rc;
    zm_req_t *req = zm_p2p_req_alloc();
    if (!req)
        return zm_mpi_win_error(w, MPI_ERR_NO_MEM, fn, "out of memory for the request");
    req->kind = ZM_REQ_DONE_ONLY;
    req->comm = w->comm;
    req->st_source = MPI_ANY_SOURCE;
    req->st_tag = MPI_ANY_TAG;
    req->st_bytes = 0;
    atomic_store(&req->cstate, ZM_REQ_DONE);
    *request = req;
    return MPI_SUCCESS;
}

/* Check the request pointer before anything is done. */
static int req_arg(const char *fn, MPI_Win win, MPI_Request *request)
{
    int rc = win_enter(fn, win);
    if (rc == MPI_SUCCESS && !request)
        rc = zm_mpi_win_error(win, MPI_ERR_ARG, fn, "(request=NULL): invalid argument");
    return rc;
}

int PMPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count,
              MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    return zm_mpi_put_get("MPI_Rput", 0, (void *)origin_addr, origin_count, origin_datatype,
                          target_rank, target_disp, target_count, target_datatype, win,
                          request);
}
ZM_WEAK(Rput)

int PMPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count,
              MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    return zm_mpi_put_get("MPI_Rget", 1, origin_addr, origin_count, origin_datatype,
                          target_rank, target_disp, target_count, target_datatype, win,
                          request);
}
ZM_WEAK(Rget)

int PMPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, int target_count,
                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                     MPI_Request *request)
{
    return zm_mpi_accumulate("MPI_Raccumulate", origin_addr, origin_count, origin_datatype,
                             NULL, 0, MPI_DATATYPE_NULL, target_rank, target_disp,
                             target_count, target_datatype, op, win,
                             request);
}
ZM_WEAK(Raccumulate)

int PMPI_Rget_accumulate(const void *origin_addr, int origin_count,
                         MPI_Datatype origin_datatype, void *result_addr, int result_count,
                         MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                         int target_count, MPI_Datatype target_datatype, MPI_Op op,
                         MPI_Win win, MPI_Request *request)
{
    return zm_mpi_accumulate("MPI_Rget_accumulate", origin_addr, origin_count,
                             origin_datatype, result_addr, result_count, result_datatype,
                             target_rank, target_disp, target_count, target_datatype, op, win,
                             request);
}
ZM_WEAK(Rget_accumulate)

/* ---- Window constructors with an MPI_Aint displacement unit ---------------- */

/* Windows keep their displacement unit in an int (win.c, src/rma/): a
 * larger one is refused, naming the _c call. */
static int unit_check(const char *fn, MPI_Comm comm, MPI_Aint disp_unit)
{
    if (disp_unit > 0 && disp_unit <= INT32_MAX)
        return MPI_SUCCESS;
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    struct zmpi_comm *c = NULL;
    if (zm_mpi_check_comm(me, comm, fn, &c) != MPI_SUCCESS)
        c = NULL;
    return zm_mpi_error(c, MPI_ERR_DISP, fn, "(disp_unit=%lld): must be > 0 and at most "
                        "2^31 - 1", (long long)disp_unit);
}

int zm_mpi_win_create(const char *fn, void *base, MPI_Aint size, MPI_Aint disp_unit,
                      MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    int rc = unit_check(fn, comm, disp_unit);
    return rc != MPI_SUCCESS ? rc : PMPI_Win_create(base, size, (int)disp_unit, info, comm, win);
}

int zm_mpi_win_allocate(const char *fn, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                        MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    int rc = unit_check(fn, comm, disp_unit);
    return rc != MPI_SUCCESS ? rc
                             : PMPI_Win_allocate(size, (int)disp_unit, info, comm, baseptr, win);
}

int zm_mpi_win_allocate_shared(const char *fn, MPI_Aint size, MPI_Aint disp_unit,
                               MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    int rc = unit_check(fn, comm, disp_unit);
    return rc != MPI_SUCCESS ? rc : PMPI_Win_allocate_shared(size, (int)disp_unit, info, comm,
                                                             baseptr, win);
}

int zm_mpi_win_shared_query(const char *fn, MPI_Win win, int rank, MPI_Aint *size,
                            MPI_Aint *disp_unit, void *baseptr)
{
    (void)fn;
    int unit;
    int rc = PMPI_Win_shared_query(win, rank, size, disp_unit ? &unit : NULL, baseptr);
    if (rc == MPI_SUCCESS)
        *disp_unit = unit;
    return rc;
}
