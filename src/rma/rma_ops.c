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

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Scratch of up to this many bytes lives on the stack. */
#define RMA_STACK_SCRATCH 512

/* Scratch rows hold elements as laid out in memory, and the kernels may
 * use aligned vector moves on them (a long double pair is copied with
 * 16-byte moves), so every row starts at this alignment. */
#define RMA_ROW_ALIGN _Alignof(max_align_t)

static size_t row_round(size_t bytes)
{
    return (bytes + RMA_ROW_ALIGN - 1) / RMA_ROW_ALIGN * RMA_ROW_ALIGN;
}

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
    /* A row of m elements takes m extents: more than `bytes` for the
     * value/index pairs, whose extent has padding beyond their data. */
    size_t row = row_round(m * (size_t)basic->extent);
    int tplain = is_plain(tcount, tdt, basic);
    int oplain = op->id == ZM_OP_NO_OP || is_plain(ocount, odt, basic);
    _Alignas(RMA_ROW_ALIGN) unsigned char stack[RMA_STACK_SCRATCH];
    unsigned char *scratch = NULL;
    size_t need = (oplain ? 0 : row) + (tplain ? 0 : row);
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
        tmp += row;
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

void zm_rma_accumulate_plain(zm_rma_win_t *w, int t, const zm_op_t *op, const zm_dt_t *dt,
                             const void *obuf, void *tbuf, void *rbuf, size_t count)
{
    zm_spin_lock(w->t[t].acc);
    if (rbuf)
        memcpy(rbuf, tbuf, count * dt->size);
    if (op->id != ZM_OP_NO_OP)
        zm_op_apply(op, obuf, tbuf, count, dt);
    zm_spin_unlock(w->t[t].acc);
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

/* Apply op to the m packed elements of `packed` with the m packed origin
 * elements `in`.  Elements with padding (the value/index pairs) travel
 * packed, but the kernels work on them laid out as in memory, so they are
 * unpacked into two rows of m extents at `row` first and the result
 * packed again. */
static void apply_packed(const zm_op_t *op, const zm_dt_t *basic, const void *in,
                         unsigned char *packed, size_t m, unsigned char *row)
{
    size_t bytes = m * basic->size, e = (size_t)basic->extent;
    if (e == basic->size) {
        zm_op_apply(op, in, packed, m, basic);
        return;
    }
    zm_dt_unpack(row, m, basic, in, bytes);
    zm_dt_unpack(row + m * e, m, basic, packed, bytes);
    zm_op_apply(op, row, row + m * e, m, basic);
    zm_dt_pack(packed, row + m * e, m, basic, bytes);
}

zm_status_t zm_rma_accumulate_runs(zm_rma_win_t *w, int t, const zm_op_t *op,
                                   const zm_dt_t *basic, const void *in, char *tbase,
                                   const int64_t (*runs)[2], size_t nruns, void *result)
{
    size_t bytes = 0;
    for (size_t i = 0; i < nruns; i++)
        bytes += (size_t)runs[i][1];
    size_t m = bytes / basic->size;
    /* One run of elements without padding is operated on in place; other
     * runs are gathered into scratch (the kernels want the elements in a
     * row) and scattered back.  Elements with padding (the value/index
     * pairs) arrive packed and are operated on at their extent, in two
     * more rows of scratch. */
    int padded = basic->extent != (ptrdiff_t)basic->size;
    int one = nruns == 1 && !padded;
    size_t need = one ? 0 : row_round(bytes) + (padded ? 2 * m * (size_t)basic->extent : 0);
    _Alignas(RMA_ROW_ALIGN) unsigned char stack[RMA_STACK_SCRATCH];
    unsigned char *tmp = stack;
    if (need > sizeof(stack) && !(tmp = malloc(need)))
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
            apply_packed(op, basic, in, tmp, m, tmp + row_round(bytes));
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
