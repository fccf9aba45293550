/*
 * coll.c: blocking collectives on the shared control block.
 *
 * A rank publishes its arguments in its slot and arrives; the last rank to
 * arrive checks everyone's arguments once and decides how the collective
 * ends.  Then every rank does its own part of the work in parallel (its
 * copies, or its slice of a reduction) and the ranks finish: with nothing
 * more when no rank reads another's buffer any longer (small data copied
 * inline), with the root waiting for every part (rooted collectives), or
 * with a second phase.
 */
#include "coll/coll_impl.h"

#include <stdio.h>
#include <string.h>

extern zm_dt_t zmpi_dt_MPI_INT;

/* Whether every rank ran the same blocking collectives before this one
 * (zm_coll_hist_step); reports the first rank that did not as rank 0. */
static zm_status_t check_hist(const zm_coll_view_t *v, char *err, size_t errlen)
{
    uint32_t h0 = zm_coll_arg(v, 0)->hist;
    for (int q = 1; q < v->n; q++)
        if (zm_coll_arg(v, q)->hist != h0)
            return zm_coll_hist_error(zm_coll_arg(v, 0)->kind, 0, q, err, errlen);
    return ZM_OK;
}

/* First-phase hook: judge the arguments once for all ranks. */
static void arrive_hook(zm_coll_shm_t *s, void *arg)
{
    const zm_coll_view_t *v = arg;
    s->msg[0] = '\0';
    s->verdict = check_hist(v, s->msg, sizeof(s->msg));
    if (s->verdict == ZM_OK)
        s->verdict = zm_coll_check(v, s->msg, sizeof(s->msg));
    s->mode = s->verdict == ZM_OK ? zm_coll_sync(v) : ZM_SYNC_ALL;
}

/* The root waits until every rank's part is done; the others only count
 * themselves out, and the last one releases the root. */
static void root_wait(zm_coll_shm_t *s, int me, int root)
{
    coll_slot_t *rs = &s->slots[root];
    if (atomic_fetch_sub_explicit(&rs->pending, 1, memory_order_acq_rel) == 1) {
        if (me != root)
            zm_coll_flag_release(&rs->dgo, &rs->ult);
    } else if (me == root) {
        zm_coll_flag_wait(&rs->dgo, &rs->ult);
    }
}

/* A rank may leave the only phase of a collective without waiting when
 * its part needs nobody else's data and nobody reads its buffers after the
 * phase: the root of a small Bcast and the senders of a small Reduce.  It
 * waits at the start of its next collective instead (its slot's other half
 * must not be rewritten before everyone has finished reading it), so a
 * loop of these pipelines instead of paying a round trip each. */
static int may_defer(const zm_coll_args_t *a, int me)
{
    if (!a->inl || a->failed)
        return 0;
    return (a->kind == ZM_COLL_BCAST && a->root == me) ||
           (a->kind == ZM_COLL_REDUCE && a->root != me);
}

void zm_coll_settle(zm_coll_shm_t *s, int me)
{
    if (s->nx) /* across processes every collective completes in its call */
        return;
    coll_slot_t *sl = &s->slots[me];
    if (!sl->deferred)
        return;
    sl->deferred = 0;
    zm_coll_flag_wait(&sl->go, &sl->ult);
    /* The others found a mismatch and run a second phase: join it. */
    if (s->mode == ZM_SYNC_ALL)
        zm_coll_phase(s, me, NULL, NULL, 0);
    if (sl->deferred_op) {
        zm_op_release(sl->deferred_op);
        sl->deferred_op = NULL;
    }
}

void zm_coll_quiesce(zm_coll_shm_t *s, int me)
{
    if (s->nx) { /* nothing of this rank's is read after its calls return */
        zm_coll_net_hier_quiesce(s->nx);
        return;
    }
    zm_coll_settle(s, me);
    /* A rank that left a fast collective early (a Bcast root) may be the
     * only one attached so far; the others attach when they start it, so
     * once all have started our last collective the block stays alive
     * until they are done with it. */
    zm_coll_wait_all(s, me, s->slots[me].seq);
}

/* Record what the full check needs of a fast call in the ring, for a
 * mismatch the fast path finds.  (A slow call leaves only its header:
 * writing a record there too cost the slow path measurably.) */
static inline void put_rec(coll_rec_t *r, const zm_coll_args_t *a)
{
    r->kind = a->kind;
    r->root = a->root;
    r->failed = a->failed;
    r->sbuf = a->sbuf;
    r->scount = a->scount;
    r->rcount = a->rcount;
    r->src_count = a->src_count;
    r->rm = a->rm;
    r->sdt = a->sdt;
    r->rdt = a->rdt;
    r->src_dt = a->src_dt;
    r->edt = a->edt;
    r->op = a->op;
}

/* Copy the public part of the arguments field by field: the caller has
 * just written them one by one, and a block copy's wide loads would not
 * be forwarded from those narrow stores (a stall on every call). */
static inline void copy_public(zm_coll_args_t *d, const zm_coll_args_t *a)
{
    d->kind = a->kind;
    d->root = a->root;
    d->wide = a->wide;
    d->sbuf = a->sbuf;
    d->scount = a->scount;
    d->sdt = a->sdt;
    d->rbuf = a->rbuf;
    d->rcount = a->rcount;
    d->rdt = a->rdt;
    d->scounts = a->scounts;
    d->sdispls = a->sdispls;
    d->rcounts = a->rcounts;
    d->rdispls = a->rdispls;
    d->sdts = a->sdts;
    d->rdts = a->rdts;
    d->op = a->op;
}

void zm_coll_wait_all(zm_coll_shm_t *s, int me, uint32_t want)
{
    coll_slot_t *sl = &s->slots[me];
    if (zm_coll_reached(sl->seen, want))
        return;
    for (;;) {
        /* One pass of independent loads (they overlap), remembering the
         * least value, so that the next calls usually need no look. */
        uint32_t ahead = 0x7fffffffu;
        int late = -1;
        for (int q = 0; q < s->size; q++) {
            uint32_t d = atomic_load_explicit(&s->slots[q].pseq, memory_order_acquire) - want;
            if (q == me)
                continue;
            if ((int32_t)d < 0)
                late = q;
            else if (d < ahead)
                ahead = d;
        }
        if (late < 0) {
            sl->seen = want + (s->size > 1 ? ahead : 0);
            return;
        }
        zm_coll_wait_seq(s, me, &s->slots[late].pseq, want);
    }
}

static zm_status_t run_slow(zm_coll_shm_t *s, int me, zm_coll_args_t *pa, coll_fhdr_t *h,
                            unsigned k, char *err, size_t errlen);

zm_status_t zm_coll_run(zm_coll_shm_t *s, int me, const zm_coll_args_t *a, char *err,
                        size_t errlen)
{
    if (ZM_UNLIKELY(s->nx != NULL)) /* across processes: net.c */
        return zm_coll_net_run(s, me, a, err, errlen);
    coll_slot_t *sl = &s->slots[me];
    unsigned k;
    /* A small Bcast, the commonest call, goes straight to its fast path:
     * it needs neither the generic preparation nor an argument entry. */
    if (a->kind == ZM_COLL_BCAST && zm_coll_fast_bcast_fits(s, zm_dt_bytes(a->rdt, a->rcount)))
        return zm_coll_bcast_run(s, me, a->rbuf, a->rcount, a->rdt, a->root, err, errlen);
    coll_fhdr_t *h = zm_coll_begin(s, me, &k);
    /* The arguments go to the slow path's entry for its next collective,
     * which no rank reads any more (see run_slow); a fast call only uses
     * it as scratch, others read its record. */
    zm_coll_args_t *pa = &s->spub[2 * (size_t)me + (sl->sseq & 1)];
    copy_public(pa, a);
    pa->hist = zm_coll_hist_step(sl, a->kind, a->root);
    pa->inl_buf = (unsigned char *)h + ZM_COLL_HDR;
    pa->inl_cap = s->inl_cap < ZM_COLL_INLINE_MAX ? s->inl_cap : ZM_COLL_INLINE_MAX;
    if (s->size > zm_coll_fast_ranks(a->kind) || !zm_coll_fast_prepare(pa, me, s->size))
        pa->failed = zm_coll_prepare(pa, me, s->size, 0);
    int fast = zm_coll_fast_sig(s, pa, h);
    h->hist = pa->hist;
    if (fast) {
        put_rec(zm_coll_rec(s, me, k), pa);
        return zm_coll_fast_run(s, me, pa, k, err, errlen);
    }
    return run_slow(s, me, pa, h, k, err, errlen);
}

/* The slow path: publish the prepared call pa, arrive, let the last
 * arriver judge every rank's arguments, do our part, finish as the
 * collective needs. */
static zm_status_t run_slow(zm_coll_shm_t *s, int me, zm_coll_args_t *pa, coll_fhdr_t *h,
                            unsigned k, char *err, size_t errlen)
{
    coll_slot_t *sl = &s->slots[me];
    /* Ranks that disagree on a Bcast's amount may split between its fast
     * path and this one: they must not wait for each other (fast.c). */
    if (ZM_UNLIKELY(pa->kind == ZM_COLL_BCAST)) {
        zm_status_t split = zm_coll_bcast_split(s, me, pa, h, k, err, errlen);
        if (split != ZM_OK)
            return split;
    }
    /* The slow path publishes its arguments in a ring of two, pa being
     * entry sseq & 1: its phases keep every rank within one slow
     * collective of the others, so when a rank starts slow collective j
     * everyone has finished j - 2, the last one that used the entry. */
    sl->sseq++;
    zm_coll_view_t v = { (char *)pa - (size_t)me * 2 * sizeof(*pa), 2 * sizeof(*pa), s->size, 0 };
    atomic_store_explicit(&sl->pending, s->size, memory_order_relaxed);
    atomic_store_explicit(&sl->dgo, 0, memory_order_relaxed);
    /* A rank that leaves before the others have read its arguments may
     * free its operation at once (MPI allows it), while the last arriver
     * still checks it: the deferred collective holds a reference. */
    int defer = may_defer(pa, me);
    if (defer && pa->op)
        zm_op_retain(pa->op);
    zm_coll_publish(s, me, h, k + 1);
    if (zm_coll_phase(s, me, arrive_hook, &v, defer)) {
        sl->deferred = 1;
        sl->deferred_op = pa->op;
        zm_coll_finish(&v, me);
        return ZM_OK;
    }
    /* Everyone has arrived, so everyone has started collective k. */
    if (!zm_coll_reached(sl->seen, k + 1))
        sl->seen = k + 1;
    if (defer && pa->op)
        zm_op_release(pa->op);
    zm_status_t st = s->verdict;
    int mode = s->mode;
    if (st != ZM_OK) {
        if (err)
            snprintf(err, errlen, "%s", s->msg);
    } else {
        st = zm_coll_part(&v, me, err, errlen);
    }
    if (mode == ZM_SYNC_ALL)
        zm_coll_phase(s, me, NULL, NULL, 0);
    else if (mode == ZM_SYNC_ROOT)
        root_wait(s, me, zm_coll_arg(&v, 0)->root);
    zm_coll_finish(&v, me);
    return st;
}

zm_status_t zm_coll_barrier(zm_coll_shm_t *s, int me)
{
    zm_coll_args_t a = { .kind = ZM_COLL_BARRIER };
    return zm_coll_run(s, me, &a, NULL, 0);
}

zm_status_t zm_coll_bcast(zm_coll_shm_t *s, int me, void *buf, size_t count,
                          const zm_dt_t *dt, int root)
{
    zm_coll_args_t a = { .kind = ZM_COLL_BCAST, .root = root, .rbuf = buf, .rcount = count,
                         .rdt = dt };
    return zm_coll_run(s, me, &a, NULL, 0);
}

zm_status_t zm_coll_allgather_int(zm_coll_shm_t *s, int me, const int *in, int n, int *out)
{
    zm_coll_args_t a = { .kind = ZM_COLL_ALLGATHER, .sbuf = in, .scount = (size_t)n,
                         .sdt = &zmpi_dt_MPI_INT, .rbuf = out, .rcount = (size_t)n,
                         .rdt = &zmpi_dt_MPI_INT };
    return zm_coll_run(s, me, &a, NULL, 0);
}
