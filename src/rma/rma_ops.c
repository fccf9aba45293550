/*
 * rma_ops.c: the accumulate family.
 *
 * Accumulates to one target are serialized by that target's accumulate
 * lock, so each element is updated atomically with respect to every other
 * accumulate, whatever the ops (the standard asks this only for the same
 * op, or op and MPI_NO_OP).  No accumulate uses hardware atomics, so none
 * can race with a locked one.  On a direct window the lock is a word of
 * the node's segment, taken alike by origins of every process of the
 * node.  Ops run on the predefined element type
 * with coll's kernels; a derived layout on either side is gathered into a
 * contiguous scratch copy first (the kernels want elements in a row), and
 * the result written back with the datatype engine.
 */
#include "rma.h"

#include <stdlib.h>
#include <string.h>

/* Scratch of up to this many bytes lives on the stack. */
#define RMA_STACK_SCRATCH 512

/* Nonzero if (count, dt) is just `count` elements of basic in a row. */
static int is_plain(size_t count, const zm_dt_t *dt, const zm_dt_t *basic)
{
    (void)count;
    return dt == basic || (dt->contig && dt->lb == 0 && zm_dt_basic(dt) == basic &&
                           dt->extent == (ptrdiff_t)dt->size &&
                           basic->extent == (ptrdiff_t)basic->size);
}

zm_status_t zm_rma_accumulate(zm_rma_win_t *w, int t, const zm_op_t *op, const zm_dt_t *basic,
                              const void *obuf, size_t ocount, const zm_dt_t *odt,
                              void *tbuf, size_t tcount, const zm_dt_t *tdt,
                              void *rbuf, size_t rcount, const zm_dt_t *rdt)
{
    size_t bytes = zm_dt_bytes(tdt, tcount), m = bytes / basic->size;
    int tplain = is_plain(tcount, tdt, basic);
    int oplain = op->id == ZM_OP_NO_OP || is_plain(ocount, odt, basic);
    unsigned char stack[RMA_STACK_SCRATCH];
    unsigned char *scratch = NULL;
    size_t need = (oplain ? 0 : bytes) + (tplain ? 0 : bytes);
    if (need > sizeof(stack)) {
        scratch = malloc(need);
        if (!scratch)
            return ZM_ERR_NOMEM;
    } else {
        scratch = stack;
    }
    /* The origin's elements in a row: gathered before taking the lock,
     * since the origin buffer is the caller's and nobody else writes it. */
    const void *in = obuf;
    unsigned char *tmp = scratch;
    if (!oplain) {
        zm_dt_copy(tmp, m, basic, obuf, ocount, odt, bytes);
        in = tmp;
        tmp += bytes;
    }
    zm_spin_lock(w->t[t].acc);
    if (rbuf)
        zm_dt_copy(rbuf, rcount, rdt, tbuf, tcount, tdt, bytes);
    if (op->id != ZM_OP_NO_OP) {
        if (tplain) {
            zm_op_apply(op, in, tbuf, m, basic);
        } else {
            zm_dt_copy(tmp, m, basic, tbuf, tcount, tdt, bytes);
            zm_op_apply(op, in, tmp, m, basic);
            zm_dt_copy(tbuf, tcount, tdt, tmp, m, basic, bytes);
        }
    }
    zm_spin_unlock(w->t[t].acc);
    if (scratch != stack)
        free(scratch);
    return ZM_OK;
}

void zm_rma_compare_and_swap(zm_rma_win_t *w, int t, const zm_dt_t *dt, const void *origin,
                             const void *compare, void *result, void *target)
{
    zm_spin_lock(w->t[t].acc);
    memcpy(result, target, dt->size);
    if (memcmp(result, compare, dt->size) == 0)
        memcpy(target, origin, dt->size);
    zm_spin_unlock(w->t[t].acc);
}

zm_status_t zm_rma_accumulate_runs(zm_rma_win_t *w, int t, const zm_op_t *op,
                                   const zm_dt_t *basic, const void *in, char *tbase,
                                   const int64_t (*runs)[2], size_t nruns, void *result)
{
    size_t bytes = 0;
    for (size_t i = 0; i < nruns; i++)
        bytes += (size_t)runs[i][1];
    size_t m = bytes / basic->size;
    /* One run is operated on in place; several are gathered into scratch
     * (the kernels want the elements in a row) and scattered back. */
    int one = nruns == 1;
    unsigned char stack[RMA_STACK_SCRATCH];
    unsigned char *tmp = stack;
    if (!one && bytes > sizeof(stack) && !(tmp = malloc(bytes)))
        return ZM_ERR_NOMEM;
    zm_spin_lock(w->t[t].acc);
    if (one) {
        char *a = tbase + runs[0][0];
        if (result)
            memcpy(result, a, bytes);
        if (op->id != ZM_OP_NO_OP)
            zm_op_apply(op, in, a, m, basic);
    } else {
        size_t at = 0;
        for (size_t i = 0; i < nruns; i++, at += (size_t)runs[i - 1][1])
            memcpy(tmp + at, tbase + runs[i][0], (size_t)runs[i][1]);
        if (result)
            memcpy(result, tmp, bytes);
        if (op->id != ZM_OP_NO_OP) {
            zm_op_apply(op, in, tmp, m, basic);
            at = 0;
            for (size_t i = 0; i < nruns; i++, at += (size_t)runs[i - 1][1])
                memcpy(tbase + runs[i][0], tmp + at, (size_t)runs[i][1]);
        }
    }
    zm_spin_unlock(w->t[t].acc);
    if (tmp != stack)
        free(tmp);
    return ZM_OK;
}
