/*
 * net_msg.c: the messages of collectives across processes, each behind
 * its sender's signature (coll_impl.h, coll_sig_t).
 *
 * In one process every rank of a collective reads every other rank's
 * arguments, so mismatched kinds, roots, operations or counts are found
 * before anything moves.  Across processes a rank only sees the messages
 * it receives; so each message says what its sender called (kind, root,
 * operation, element type, amount of data, and a digest of the blocking
 * collectives before it) and the receiver compares that with its own
 * call as the message arrives.  A disagreement fails the call with the
 * error, and the wording, of the one-process check, and the rank stops
 * waiting at once: its receives still posted are cancelled, and the
 * messages its peers sent to it, or will send late, that no receive takes
 * now are received and dropped (a data message that its sender sent on
 * its own, larger than ZM_COLL_PACK_MAX; a late peer's signature and
 * data), so that their senders are not left waiting either.
 *
 * Data of up to ZM_COLL_PACK_MAX bytes travels behind the signature in
 * one message (a copy of at most 2 KiB on each side, less than a second
 * message would cost); larger data follows in a message of its own, with
 * the same tag, straight from the sender's buffer into the receiver's.
 */
#include "coll/coll_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIG ZM_COLL_SIG_BYTES
#define ERR(...) (err ? (void)snprintf(err, errlen, __VA_ARGS__) : (void)0)

_Static_assert(sizeof(coll_sig_t) == ZM_COLL_SIG_BYTES, "signature size");

static const char *const op_names[] = {
    "MPI_MAX", "MPI_MIN", "MPI_SUM", "MPI_PROD", "MPI_LAND", "MPI_BAND", "MPI_LOR",
    "MPI_BOR", "MPI_LXOR", "MPI_BXOR", "MPI_MINLOC", "MPI_MAXLOC", "MPI_REPLACE",
    "MPI_NO_OP", "a user operation"
};

static const char *op_name(const coll_sig_t *g)
{
    return g->op >= 0 && g->op <= ZM_OP_USER ? op_names[g->op] : "no operation";
}

static int sig_rooted(int k)
{
    return k == ZM_COLL_BCAST || k == ZM_COLL_GATHER || k == ZM_COLL_GATHERV ||
           k == ZM_COLL_SCATTER || k == ZM_COLL_SCATTERV || k == ZM_COLL_REDUCE;
}

static int sig_reduction(int k)
{
    return k == ZM_COLL_REDUCE || k == ZM_COLL_ALLREDUCE || k == ZM_COLL_REDUCE_SCATTER ||
           k == ZM_COLL_REDUCE_SCATTER_BLOCK || k == ZM_COLL_SCAN || k == ZM_COLL_EXSCAN;
}

void zm_coll_sig_fill(coll_sig_t *g, const zm_coll_args_t *a, int hier, uint32_t hist)
{
    /* Field by field: every call fills one, and a memset call costs more
     * than these stores. */
    g->kind = (uint8_t)a->kind;
    g->hier = (uint8_t)hier;
    g->opcomm = 0;
    g->ekind = 0;
    g->op = -1;
    g->pad[0] = g->pad[1] = g->pad[2] = 0;
    g->root = sig_rooted(a->kind) ? a->root : 0;
    g->status = a->failed;
    g->hist = hist;
    g->esize = 0;
    g->units = 0;
    if (!sig_reduction(a->kind) || !a->op)
        return;
    g->op = (int8_t)a->op->id;
    g->opcomm = (uint8_t)a->op->commutative;
    /* The element type: the view prepared for the flat path, else (the
     * hierarchical path, which reduces predefined elements only) the
     * basic type of the receive type. */
    const zm_dt_t *e = a->edt ? a->edt : a->rdt ? zm_dt_basic(a->rdt) : NULL;
    if (e) {
        g->ekind = (uint8_t)e->kind;
        g->esize = (uint32_t)e->size;
    }
}

/* Bytes of data that the message signed g carries (or sends on its own). */
static size_t sig_bytes(const coll_sig_t *g)
{
    return g->esize ? (size_t)g->units * g->esize : (size_t)g->units;
}

/* What the elements of a reduction signed g are, for messages: the
 * signature has no room for the type's name. */
static const char *ekind_name(const coll_sig_t *g)
{
    static const char *const names[] = {
        [ZM_DT_INT_SIGNED] = "signed integer", [ZM_DT_INT_UNSIGNED] = "unsigned integer",
        [ZM_DT_FLOAT] = "floating-point", [ZM_DT_COMPLEX] = "complex",
        [ZM_DT_BOOL] = "boolean", [ZM_DT_BYTE] = "byte", [ZM_DT_CHAR] = "character",
        [ZM_DT_PACKED] = "packed", [ZM_DT_PAIR] = "value/index pair",
        [ZM_DT_DERIVED] = "user-typed", [ZM_DT_FORTRAN_INT] = "Fortran integer",
        [ZM_DT_LOGICAL] = "Fortran logical"
    };
    return g->ekind < sizeof(names) / sizeof(names[0]) && names[g->ekind] ? names[g->ekind]
                                                                         : "unknown";
}

/* Compare the signature g that rank `from` sent with what this rank
 * expects (w, its own side with the units it expects from `from`), in
 * the order of the one-process check (coll.c, algo.c). */
static zm_status_t sig_check(const coll_sig_t *g, int from, const coll_sig_t *w, int me,
                             char *err, size_t errlen)
{
    const char *call = zm_coll_name(w->kind);
    if (g->status != ZM_OK) {
        ERR("rank %d could not take part in %s: the ranks of its process disagree or ran "
            "out of memory (see its report)", from, call);
        return g->status;
    }
    if (g->hist != w->hist)
        return zm_coll_hist_error(w->kind, from, me, err, errlen);
    if (g->kind != w->kind) {
        ERR("rank %d called %s while rank %d called %s", from, zm_coll_name(g->kind), me, call);
        return ZM_COLL_ERR_KIND;
    }
    if (sig_rooted(w->kind) && g->root != w->root) {
        ERR("rank %d passed root=%d but rank %d passed root=%d", from, g->root, me, w->root);
        return ZM_COLL_ERR_ROOT;
    }
    if (sig_reduction(w->kind) &&
        (g->op != w->op || (w->op == ZM_OP_USER && g->opcomm != w->opcomm))) {
        ERR("rank %d passed op=%s%s but rank %d passed op=%s%s", from, op_name(g),
            g->op == ZM_OP_USER && !g->opcomm ? " (non-commutative)" : "", me, op_name(w),
            w->op == ZM_OP_USER && !w->opcomm ? " (non-commutative)" : "");
        return ZM_COLL_ERR_OP;
    }
    if (sig_reduction(w->kind) && (g->ekind != w->ekind || g->esize != w->esize)) {
        ERR("rank %d passed a datatype of %u-byte %s elements but rank %d passed %u-byte %s "
            "elements", from, g->esize, ekind_name(g), me, w->esize, ekind_name(w));
        return ZM_COLL_ERR_COUNT;
    }
    if (g->hier != w->hier) {
        ERR("ranks %d and %d combine %s in different orders: ZMPI_COLL_RANK_ORDER must be "
            "the same in every process", from, me, call);
        return ZM_COLL_ERR_KIND;
    }
    if (g->units == w->units)
        return ZM_OK;
    if (sig_reduction(w->kind))
        ERR("rank %d's count gives %llu elements but rank %d expects %llu", from,
            (unsigned long long)g->units, me, (unsigned long long)w->units);
    else
        ERR("rank %d sends %llu bytes to rank %d, which expects %llu", from,
            (unsigned long long)g->units, me, (unsigned long long)w->units);
    return ZM_COLL_ERR_COUNT;
}

int zm_coll_nmsgs_init(coll_nmsgs_t *ms, const zm_p2p_comm_t *pc, int tag, int me, int cap)
{
    ms->pc = pc;
    ms->tag = tag;
    ms->me = me;
    ms->n = ms->left = 0;
    ms->batch = 0;
    ms->ended = ZM_OK;
    ms->cap = cap;
    ms->reqs = NULL;
    ms->blk = NULL;
    ms->m = malloc(sizeof(coll_nmsg_t) * (size_t)(cap ? cap : 1));
    return ms->m ? 0 : -1;
}

void zm_coll_nmsgs_add(coll_nmsgs_t *ms, int send, int peer, void *buf, size_t count,
                       const zm_dt_t *dt, size_t units)
{
    coll_nmsg_t *o = &ms->m[ms->n++];
    const zm_dt_t *t = dt ? dt : &zmpi_dt_MPI_BYTE;
    o->send = (uint8_t)send;
    o->peer = peer;
    o->buf = buf;
    o->count = count;
    o->dt = t;
    o->bytes = zm_dt_bytes(t, count);
    o->units = units;
    o->split = o->bytes > ZM_COLL_PACK_MAX;
    o->checked = 0;
    if (!send)
        ms->left++;
}

/* Bytes of message o's signature area, a whole number of lines. */
static size_t area_of(const coll_nmsg_t *o)
{
    size_t b = SIG + (o->split ? 0 : o->bytes);
    return (b + ZM_CACHE_LINE - 1) & ~(size_t)(ZM_CACHE_LINE - 1);
}

/* Send (buf, count, dt) of message o of set ms with request req: in a
 * batch to another process when the set's rank waits next (ms->batch). */
static void nsend(coll_nmsgs_t *ms, const coll_nmsg_t *o, const void *buf, size_t count,
                  const zm_dt_t *dt, zm_req_t *req)
{
    if (ms->batch)
        zm_p2p_isend_batch(ms->pc, buf, count, dt, o->peer, ms->tag, req);
    else
        zm_p2p_isend(ms->pc, buf, count, dt, o->peer, ms->tag, ZM_SEND_STD, req);
}

int zm_coll_nmsgs_post(coll_nmsgs_t *ms)
{
    /* One block: two requests per message (only those used are cleared),
     * then the signature areas. */
    size_t rb = sizeof(zm_req_t) * 2 * (size_t)ms->n, total = rb;
    for (int i = 0; i < ms->n; i++)
        total += area_of(&ms->m[i]);
    /* malloc and align by hand: glibc's aligned_alloc took about 900
     * instructions here, a fifth of an 8-byte Allreduce's own work. */
    if (!(ms->blk = malloc(total + ZM_CACHE_LINE)))
        return -1;
    ms->reqs = (zm_req_t *)(((uintptr_t)ms->blk + ZM_CACHE_LINE - 1) &
                            ~(uintptr_t)(ZM_CACHE_LINE - 1));
    unsigned char *p = (unsigned char *)ms->reqs + rb;
    for (int i = 0; i < ms->n; i++) {
        ms->m[i].hb = p;
        p += area_of(&ms->m[i]);
        memset(&ms->reqs[2 * i], 0, sizeof(zm_req_t) * (ms->m[i].split ? 2 : 1));
    }
    /* Receives first, so that senders find them and copy once. */
    for (int i = 0; i < ms->n; i++) {
        coll_nmsg_t *o = &ms->m[i];
        if (o->send)
            continue;
        zm_p2p_irecv(ms->pc, o->hb, SIG + (o->split ? 0 : o->bytes), &zmpi_dt_MPI_BYTE,
                     o->peer, ms->tag, &ms->reqs[2 * i]);
        if (o->split)
            zm_p2p_irecv(ms->pc, o->buf, o->count, o->dt, o->peer, ms->tag,
                         &ms->reqs[2 * i + 1]);
    }
    for (int i = 0; i < ms->n; i++) {
        coll_nmsg_t *o = &ms->m[i];
        if (!o->send)
            continue;
        coll_sig_t *g = (coll_sig_t *)o->hb;
        *g = ms->sig;
        g->units = o->units;
        if (!o->split && o->bytes)
            zm_dt_pack(o->hb + SIG, o->buf, o->count, o->dt, o->bytes);
        nsend(ms, o, o->hb, SIG + (o->split ? 0 : o->bytes), &zmpi_dt_MPI_BYTE,
              &ms->reqs[2 * i]);
        if (o->split)
            nsend(ms, o, o->buf, o->count, o->dt, &ms->reqs[2 * i + 1]);
    }
    if (ms->batch)
        ms->gen = zm_net_batch_gen();
    return 0;
}

/* Look at the signature of receive i, which has arrived; unpack packed
 * data when it agrees. */
static zm_status_t check_one(coll_nmsgs_t *ms, int i, char *err, size_t errlen)
{
    coll_nmsg_t *o = &ms->m[i];
    const zm_req_t *r = &ms->reqs[2 * i];
    o->checked = 1;
    ms->left--;
    if (r->st_bytes < SIG) {
        ERR("rank %d sent rank %d a message of %zu bytes that is not part of %s", r->st_source,
            ms->me, r->st_bytes, zm_coll_name(ms->sig.kind));
        return ZM_COLL_ERR_KIND;
    }
    const coll_sig_t *g = (const coll_sig_t *)o->hb;
    coll_sig_t w = ms->sig;
    w.units = o->units;
    zm_status_t st = sig_check(g, r->st_source, &w, ms->me, err, errlen);
    if (st == ZM_OK && sig_bytes(g) != o->bytes) {
        /* Same units of another layout (a user type of another size). */
        ERR("rank %d sends %zu bytes to rank %d, which expects %zu", r->st_source,
            sig_bytes(g), ms->me, o->bytes);
        st = ZM_COLL_ERR_COUNT;
    }
    if (st == ZM_OK && !o->split && o->bytes)
        zm_dt_unpack(o->buf, o->count, o->dt, o->hb + SIG, o->bytes);
    return st;
}

/* Check every receive whose signature arrived and was not looked at. */
static zm_status_t check_arrived(coll_nmsgs_t *ms, char *err, size_t errlen)
{
    for (int i = 0; i < ms->n && ms->left > 0; i++) {
        coll_nmsg_t *o = &ms->m[i];
        if (o->send || o->checked || !zm_p2p_req_done(&ms->reqs[2 * i]))
            continue;
        zm_status_t st = check_one(ms, i, err, errlen);
        if (st != ZM_OK)
            return st;
    }
    return ZM_OK;
}

/* Receive and drop the data message that rank src sent on its own
 * (bytes bytes) to a receive that expected it packed.  ULT context. */
static void drop_data(coll_nmsgs_t *ms, int src, size_t bytes)
{
    void *scratch = malloc(bytes ? bytes : 1);
    zm_req_t r, *rp = &r;
    memset(&r, 0, sizeof(r));
    zm_p2p_irecv(ms->pc, scratch ? scratch : &r, scratch ? bytes : 0, &zmpi_dt_MPI_BYTE, src,
                 ms->tag, &r);
    zm_p2p_wait(&rp, 1, 1);
    free(scratch);
}

/* Whether receive i's sender sent its data in a message of its own that
 * no receive of this set takes any more: none was posted for it (this
 * rank expected the data packed), or it was cancelled before the data
 * matched it.  The sender's signature has arrived. */
static int data_stranded(coll_nmsgs_t *ms, int i)
{
    const coll_nmsg_t *o = &ms->m[i];
    if (ms->reqs[2 * i].st_bytes < SIG ||
        sig_bytes((const coll_sig_t *)o->hb) <= ZM_COLL_PACK_MAX)
        return 0;
    if (!o->split)
        return 1;
    zm_req_t *d = &ms->reqs[2 * i + 1];
    return !zm_p2p_req_done(d) && zm_p2p_cancel(d);
}

/* World rank of comm rank r of the set's communicator. */
static int world_of(const coll_nmsgs_t *ms, int r)
{
    return ms->pc->world ? ms->pc->world[r] : r;
}

/* End the set after a mismatch: cancel what is still posted, and take in
 * the messages that peers sent or will send to it, else they would wait
 * for them forever.  A peer whose signature has not arrived is not waited
 * for: it may never send (it called another collective), or send late.
 * A peer of another process is released by the network (remote.c drops
 * every message of this collective that no receive takes, queued or
 * late), after the receives are cancelled so that none slips in between.
 * A peer of this process that sent its data in a message of its own that
 * no receive takes now is released by receiving that message; outside
 * the rank's ULT no receive can be posted: then the job ends, with a
 * report. */
static void end_set(coll_nmsgs_t *ms, const char *why, int ult)
{
    for (int i = 0; i < ms->n; i++) {
        coll_nmsg_t *o = &ms->m[i];
        zm_req_t *h = &ms->reqs[2 * i];
        if (o->send)
            continue;
        if (!zm_p2p_req_done(h)) {
            zm_p2p_cancel(h);
        } else if (h->st_source >= 0 && !zm_net_is_remote(world_of(ms, h->st_source)) &&
                   data_stranded(ms, i)) {
            if (!ult) {
                fprintf(stderr, "zmpi: rank %d of communicator %s: %s: %s; the job ends: rank "
                        "%d's data message cannot be taken in without this rank\n",
                        ms->me, ms->pc->name ? ms->pc->name : "?", zm_coll_name(ms->sig.kind),
                        why, h->st_source);
                fflush(stderr);
                zm_net_abort(1);
            }
            drop_data(ms, h->st_source, sig_bytes((const coll_sig_t *)o->hb));
        }
        if (o->split && !zm_p2p_req_done(&ms->reqs[2 * i + 1]))
            zm_p2p_cancel(&ms->reqs[2 * i + 1]);
    }
    zm_p2p_remote_drop(world_of(ms, ms->me), ms->pc->ctx, ms->tag);
}

/* Nonzero once every receive of the set is complete (or cancelled): a
 * receive that was matched before it could be cancelled is still writing
 * into its buffer, which the caller gets back when the call returns. */
static int recvs_done(const coll_nmsgs_t *ms)
{
    for (int i = 0; i < ms->n; i++) {
        if (ms->m[i].send)
            continue;
        if (!zm_p2p_req_done(&ms->reqs[2 * i]) ||
            (ms->m[i].split && !zm_p2p_req_done(&ms->reqs[2 * i + 1])))
            return 0;
    }
    return 1;
}

/* Wait for the set's requests not complete yet (only the receives:
 * after end_set, for those it could not cancel), with list as room for
 * them.  ULT context. */
static void wait_pending(coll_nmsgs_t *ms, zm_req_t **list, int recvs_only)
{
    int k = 0;
    for (int i = 0; i < ms->n; i++) {
        if (recvs_only && ms->m[i].send)
            continue;
        if (!zm_p2p_req_done(&ms->reqs[2 * i]))
            list[k++] = &ms->reqs[2 * i];
        if (ms->m[i].split && !zm_p2p_req_done(&ms->reqs[2 * i + 1]))
            list[k++] = &ms->reqs[2 * i + 1];
    }
    if (k > 0)
        zm_p2p_wait(list, k, 1);
}

/* After every signature agreed and every message is complete: the data
 * messages of their own must have brought what their signatures said. */
static zm_status_t check_data(const coll_nmsgs_t *ms, char *err, size_t errlen)
{
    for (int i = 0; i < ms->n; i++) {
        const coll_nmsg_t *o = &ms->m[i];
        const zm_req_t *d = &ms->reqs[2 * i + 1];
        if (o->send || !o->split || (d->st_error == ZM_OK && d->st_bytes == o->bytes))
            continue;
        ERR("rank %d sends %zu bytes to rank %d, which expects %zu", d->st_source, d->st_bytes,
            ms->me, o->bytes);
        return ZM_COLL_ERR_COUNT;
    }
    return ZM_OK;
}

zm_status_t zm_coll_nmsgs_wait(coll_nmsgs_t *ms, char *err, size_t errlen)
{
    zm_req_t *one[8], **list = 2 * ms->n <= 8 ? one : malloc(sizeof(zm_req_t *) * 2 * (size_t)ms->n);
    char why[200];
    zm_status_t st = ZM_OK;
    int waited = 0;
    if (!list)
        return ZM_ERR_NOMEM;
    /* Signatures first, one arrival at a time: a mismatch must not leave
     * this rank waiting for messages its peers will never send. */
    while ((st = check_arrived(ms, why, sizeof(why))) == ZM_OK && ms->left > 0) {
        int k = 0;
        for (int i = 0; i < ms->n; i++)
            if (!ms->m[i].send && !ms->m[i].checked)
                list[k++] = &ms->reqs[2 * i];
        zm_p2p_wait(list, k, 0);
        waited = 1;
    }
    if (st != ZM_OK) {
        if (err)
            snprintf(err, errlen, "%s", why);
        end_set(ms, why, 1);
        wait_pending(ms, list, 1);
    } else {
        wait_pending(ms, list, 0);
        st = check_data(ms, err, errlen);
    }
    if (list != one)
        free(list);
    /* Sends that batched (ms->batch) leave with the next poll of the
     * network by any thread of the process, which also sends every batch
     * waiting.  A rank that waited for a message from another process saw
     * such a poll after its sends were added, and so its batches leave.
     * One whose receives had all completed before it looked, or whose
     * last ones came from ranks of its own process (no poll needed), may
     * compute next while its envelopes wait for the progress thread (a
     * peer waited 1.5 s for one: net_<mpi>_batch_coll_2px2i): it sends
     * them here unless a poll sent every batch since it posted
     * (zm_net_batch_gen changed).  (Sending them at the end of every call
     * cost up to 40 % of a small Alltoall of 2 processes x 4 ranks over
     * Open MPI: ranks of one worker that post one after another no longer
     * shared a batch.) */
    if (ms->batch && (!waited || zm_net_batch_gen() == ms->gen))
        zm_net_batch_flush_all();
    return st;
}

int zm_coll_nmsgs_done(const coll_nmsgs_t *ms)
{
    for (int i = ms->n - 1; i >= 0; i--) {
        if (!zm_p2p_req_done(&ms->reqs[2 * i]))
            return 0;
        if (ms->m[i].split && !zm_p2p_req_done(&ms->reqs[2 * i + 1]))
            return 0;
    }
    return 1;
}

zm_status_t zm_coll_nmsgs_poll(coll_nmsgs_t *ms, int *done, char *err, size_t errlen)
{
    char why[200];
    zm_status_t st = ms->ended || ms->left == 0 ? ZM_OK : check_arrived(ms, why, sizeof(why));
    if (st != ZM_OK) {
        if (err)
            snprintf(err, errlen, "%s", why);
        ms->ended = st;
        end_set(ms, why, 0);
    }
    if (ms->ended) {
        *done = recvs_done(ms);
        return ms->ended;
    }
    /* A receive that completed after check_arrived looked at it is not
     * unpacked yet: the set is done only once every signature was seen. */
    *done = ms->left == 0 && zm_coll_nmsgs_done(ms);
    return *done ? check_data(ms, err, errlen) : ZM_OK;
}

int zm_coll_nmsgs_free(coll_nmsgs_t *ms)
{
    /* A send of an ended set may still wait for its receiver (or never
     * be received at all): its request and data must then outlive the
     * call, so they are left allocated. */
    if (ms->reqs && !zm_coll_nmsgs_done(ms))
        return 0;
    free(ms->m);
    free(ms->blk);
    ms->m = NULL;
    ms->reqs = NULL;
    return 1;
}
