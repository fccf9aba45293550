/*
 * net.c: the entry points of coll for communicators whose ranks live in
 * several processes (or all communicators, with ZMPI_COLL_NET=1).
 *
 * Such a communicator has no shared control block: its ranks cannot all
 * read each other's buffers.  Each rank gets a stand-in block of its own
 * (zm_coll_shm_t with `nx` set; the rest of it is unused) and runs its
 * collectives as point-to-point messages on the communicator's collective
 * context, tagged with the number of the collective (every rank starts the
 * blocking collectives of a communicator in the same order, and the
 * non-blocking and persistent ones, which are numbered apart, in the same
 * order too): hierarchically for Barrier, Bcast and Reduce and Allreduce
 * with operations that allow it (blocking: net_hier.c; non-blocking and
 * persistent: net_hnbc.c), else as one round of messages (net_algo.c).
 * Every message carries its sender's signature (net_msg.c), so that ranks
 * whose calls disagree get an error instead of waiting.
 *
 * A blocking collective posts its messages, waits for them like any
 * receive (parking, so the worker runs other ranks and the network's
 * progress) and finishes in its rank.  A non-blocking one on the flat path
 * posts its messages and leaves a check in the network's deferred work (zm_net_defer):
 * idle workers and waiting ranks poll it, and the poll that finds every
 * message complete finishes the collective (a reduction, the local
 * copies) and completes the request.  So it completes without its rank
 * calling in, as the single-process non-blocking collectives do; a user
 * reduction then runs on whichever thread made that poll.
 */
#include "coll/coll_impl.h"

#include <stdlib.h>
#include <string.h>


/* First tag of the collectives' messages: far above the tags the API's
 * own schedules put on the collective context (sched.c), so that neither
 * can take the other's messages.  Blocking collectives and non-blocking
 * (or persistent) ones are numbered apart, each in its own half of the
 * range, as in one process (nbc.c) and in MPICH: a rank may start a
 * non-blocking collective and then a blocking one while another rank
 * starts them the other way round (mpi4py's Iagree test does, through
 * its Comm_iagree fallback, an Iallreduce), and each still meets its
 * own kind. */
#define NET_TAG_BASE 0x40000000
#define NET_TAG_NB 0x20000000
#define NET_TAG_MASK 0x1fffffff

int zm_coll_net_forced(void)
{
    static _Atomic int forced = -1;
    return zm_core_env_flag("ZMPI_COLL_NET", &forced);
}

int zm_coll_net_spans(const zm_p2p_comm_t *c)
{
    if (c->size < 2)
        return 0;
    if (zm_net_remote)
        for (int q = 0; q < c->size; q++)
            if (zm_net_remote[c->world ? c->world[q] : q])
                return 1;
    return zm_coll_net_forced();
}

zm_coll_shm_t *zm_coll_net_attach(const zm_p2p_comm_t *c)
{
    zm_coll_shm_t *s = calloc(1, sizeof(*s));
    coll_net_t *nx = calloc(1, sizeof(*nx));
    if (!s || !nx) {
        free(s);
        free(nx);
        return NULL;
    }
    nx->pc = *c;
    nx->pc.ctx = c->ctx + 1;
    nx->n = c->size;
    nx->me = c->rank;
    if (zm_coll_net_hier_setup(nx, c) != 0) {
        zm_coll_net_hier_free(nx);
        free(nx);
        free(s);
        return NULL;
    }
    s->nx = nx;
    s->ctx = c->ctx;
    s->size = c->size;
    s->world0 = c->world ? c->world[0] : 0;
    s->refs = 1;
    return s;
}

void zm_coll_net_detach(zm_coll_shm_t *s)
{
    /* The local block went in zm_coll_net_quiesce, which the owner calls
     * before it drops its reference (a request may drop the last one,
     * outside the owner's ULT).  Late messages of its collectives that
     * stopped are no longer dropped: the context may be given to another
     * communicator. */
    const coll_net_t *nx = s->nx;
    zm_p2p_remote_undrop(nx->pc.world ? nx->pc.world[nx->me] : nx->me, nx->pc.ctx);
    zm_coll_net_hier_free(s->nx);
    free(s->nx);
    free(s);
}

void zm_coll_placement_drop(zm_coll_shm_t *s)
{
    /* Every rank of the process waits in the migration call, done with
     * its collectives on the block: nothing to wait for (as the quiesce
     * of a communicator's free would). */
    if (s->nx && s->nx->local) {
        zm_coll_detach(s->nx->local);
        s->nx->local = NULL;
    }
    zm_coll_detach(s);
}

/* The tag of rank me's next blocking collective on s. */
static int next_tag(zm_coll_shm_t *s)
{
    return NET_TAG_BASE | (int)(s->nx->seq++ & NET_TAG_MASK);
}

/* The tag of the non-blocking collective number seq on a communicator. */
static int nb_tag(unsigned seq)
{
    return NET_TAG_BASE | NET_TAG_NB | (int)(seq & NET_TAG_MASK);
}

/* The tag of rank me's next non-blocking collective on s. */
static int next_nb_tag(zm_coll_shm_t *s)
{
    return nb_tag(s->nx->nbseq++);
}

/* The public part of a, ready for zm_coll_prepare as a non-blocking call
 * (no inline data: every rank's buffers stay valid until its messages are
 * complete). */
static zm_coll_args_t prepared(const zm_coll_args_t *a, int me, int n)
{
    zm_coll_args_t p;
    memset(&p, 0, sizeof(p));
    memcpy(&p, a, offsetof(zm_coll_args_t, src));
    p.failed = zm_coll_prepare(&p, me, n, 1);
    return p;
}

zm_status_t zm_coll_net_run(zm_coll_shm_t *s, int me, const zm_coll_args_t *a, char *err,
                            size_t errlen)
{
    int tag = next_tag(s);
    zm_status_t st;
    /* The digest of the blocking collectives before this one, which its
     * messages carry (net_msg.c). */
    uint32_t hist = s->nx->hist;
    s->nx->hist = zm_coll_hist_mix(hist, a->kind, a->root);
    if (zm_coll_net_hier_run(s, me, a, tag, hist, &st, err, errlen))
        return st;
    zm_coll_args_t p = prepared(a, me, s->size);
    coll_nsched_t *x = zm_coll_nsched_start(s, me, &p, tag, 0, hist, 1);
    if (!x) {
        free(p.tmp);
        return ZM_ERR_NOMEM;
    }
    st = zm_coll_nsched_wait(x, err, errlen);
    return zm_coll_nsched_finish(x, st, err, errlen);
}

/* A non-blocking (or persistent) round in flight: its messages and the
 * request that completes when they are done and finished. */
typedef struct net_nbc {
    coll_nsched_t *x;
    zm_req_t *req;
    zm_coll_shm_t *s;               /* held until completion */
} net_nbc_t;

static void nbc_complete(net_nbc_t *t, zm_status_t st)
{
    t->req->st_error = zm_coll_nsched_finish(t->x, st, NULL, 0);
    zm_coll_shm_t *s = t->s;
    zm_req_t *req = t->req;
    free(t);
    zm_coll_detach(s);
    zm_p2p_req_complete(req);
}

/* Deferred work (net.c of the net layer): check signatures as they
 * arrive, finish once every message is complete or one disagreed.  Any
 * thread. */
static int nbc_poll(void *arg)
{
    net_nbc_t *t = arg;
    int done;
    zm_status_t st = zm_coll_nsched_poll(t->x, &done);
    if (!done)
        return 0;
    nbc_complete(t, st);
    return 1;
}

/* Post the prepared call p on tag with request req; hold: see
 * nsched_start. */
static zm_status_t nbc_post(zm_coll_shm_t *s, int me, zm_coll_args_t *p, int tag,
                            zm_req_t *req, int hold)
{
    net_nbc_t *t = malloc(sizeof(*t));
    coll_nsched_t *x = t ? zm_coll_nsched_start(s, me, p, tag, hold, 0, 0) : NULL;
    if (!x) {
        free(t);
        free(p->tmp);
        return ZM_ERR_NOMEM;
    }
    zm_coll_req_start(req);
    zm_coll_shm_retain(s);
    t->x = x;
    t->req = req;
    t->s = s;
    if (!nbc_poll(t))
        zm_net_defer(nbc_poll, t);
    return ZM_OK;
}

zm_status_t zm_coll_net_start(zm_coll_shm_t *s, int me, const zm_coll_args_t *a,
                              zm_req_t *req)
{
    if (zm_coll_net_hier_fits(s->nx, a))
        return zm_coll_net_hnbc_start(s, me, a, next_nb_tag(s), req);
    zm_coll_args_t p = prepared(a, me, s->size);
    return nbc_post(s, me, &p, next_nb_tag(s), req, 1);
}

/* ---- Persistent collectives --------------------------------------------
 * The instance keeps the rank's arguments (args[0]) and request (reqs[0]);
 * each start posts one round.  The API layer holds the types; the
 * instance holds the operation.
 *
 * The ranks may start persistent collectives in different orders (MPI 4.1
 * section 6.13: they match in the order of their init calls), so an
 * instance takes its number in the non-blocking sequence at init and
 * every round uses that tag.  Rounds of one instance cannot mix: a rank
 * starts round k + 1 only after its round k completed, and the messages
 * between two ranks on one tag are received in the order they were sent.
 * The sequence wraps after 2^29 non-blocking calls on the communicator;
 * an instance alive that long could then share its tag with a newer one. */

zm_status_t zm_coll_net_pinit(zm_coll_shm_t *s, int me, const zm_coll_args_t *a,
                              zm_req_t *req, zm_coll_pers_t **out)
{
    coll_nbc_t *x = calloc(1, sizeof(*x));
    (void)me;
    if (x) {
        x->args = malloc(sizeof(*x->args));
        x->reqs = malloc(sizeof(*x->reqs));
    }
    if (!x || !x->args || !x->reqs) {
        if (x) {
            free(x->args);
            free(x->reqs);
        }
        free(x);
        return ZM_ERR_NOMEM;
    }
    x->persistent = 1;
    x->seq = s->nx->nbseq++;
    x->shm = s;
    x->args[0] = *a;
    x->reqs[0] = req;
    if (a->op)
        zm_op_retain(a->op);
    zm_coll_shm_retain(s);
    *out = x;
    return ZM_OK;
}

void zm_coll_net_pstart(zm_coll_pers_t *x, int me)
{
    zm_status_t st;
    if (zm_coll_net_hier_fits(x->shm->nx, &x->args[0])) {
        st = zm_coll_net_hnbc_start(x->shm, me, &x->args[0], nb_tag(x->seq), x->reqs[0]);
    } else {
        zm_coll_args_t p = prepared(&x->args[0], me, x->shm->size);
        st = nbc_post(x->shm, me, &p, nb_tag(x->seq), x->reqs[0], 0);
    }
    if (st != ZM_OK) {
        /* No memory for the round: it fails, and says so. */
        zm_coll_req_start(x->reqs[0]);
        x->reqs[0]->st_error = ZM_ERR_NOMEM;
        zm_p2p_req_complete(x->reqs[0]);
    }
}

void zm_coll_net_pfree(zm_coll_pers_t *x, int me)
{
    zm_coll_shm_t *s = x->shm;
    (void)me;
    if (x->args[0].op)
        zm_op_release(x->args[0].op);
    free(x->args);
    free(x->reqs);
    free(x);
    zm_coll_detach(s);
}
