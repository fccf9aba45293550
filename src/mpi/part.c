/*
 * part.c: partitioned point-to-point communication (MPI 4.1 chapter 4),
 * MPI_Psend_init, MPI_Precv_init, MPI_Pready(_range, _list), MPI_Parrived.
 *
 * Between two ranks of this process, a partition is ready for the
 * receiver the moment its bytes are in the receive buffer: MPI_Pready
 * copies the partition straight there when it can, and the receiver sees
 * it with MPI_Parrived at once, long before the whole message is complete.
 * A peer in another process is part_net.c's: its own matching and rounds
 * through the network, with the same requests, hooks and bookkeeping of
 * partitions as here.
 *
 * Matching.  A send and a receive match like persistent point-to-point
 * operations, by (communicator, sender, receiver, tag) and in init order,
 * once, at init time.  The first of the two to be initialised puts a
 * channel into a process-wide registry; the second finds it there, takes
 * it out and attaches to it.  The channel is the only state the two ranks
 * share; its spinlock guards both halves' round state.
 *
 * Rounds.  Each MPI_Start begins a round on its side.  A ready sender
 * partition may be copied only while both sides are in the same round: a
 * receiver that has not started the round may still be reading the last
 * one's data.  So MPI_Pready copies when the receiver is in the sender's
 * round and otherwise only marks the partition, and the receiver's
 * MPI_Start copies every partition marked for its new round.  The sender
 * completes when all its partitions are copied (its buffer is then free),
 * the receiver when all its bytes are in; whoever makes the last copy
 * completes the request concerned.
 *
 * Sender and receiver may cut the message into different numbers of
 * partitions: only the total size must agree.  A sender partition is a
 * byte range of the message's data stream, copied with zm_dt_copy_range
 * (so any datatypes work), and it adds its bytes to every receiver
 * partition it overlaps; a receiver partition has arrived when all its
 * bytes have.
 *
 * The user's request is a composite request (sched.c) with one child that
 * the copying side completes; waits, tests, MPI_Start and MPI_Request_free
 * go through the schedule's code, the hooks below do the rest.
 */
#include "bind_hooks.h"
#include "mpi_impl.h"
#include "part_impl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* An empty message has no bytes to count: its partitions arrive when
 * every sender partition has been readied (and "copied"), so
 * MPI_Parrived still waits for MPI_Pready. */
int zm_mpi_part_arrived(const struct part *r, int j)
{
    if (r->psize > 0)
        return r->got[j] == r->psize;
    return r->peer_parts > 0 && r->nsent == r->peer_parts;
}

/* The state two matched sides share, and the registry entry of an
 * unmatched one.  Freed when both sides have let go of it. */
struct pchan {
    struct pchan *next;          /* registry link while unmatched */
    zm_spinlock_t lock;          /* guards half[], the halves' rounds and progress */
    struct part *half[2];        /* [0] receive side, [1] send side, NULL if absent */
    int refs;                    /* sides attached (under the registry lock) */
    uint32_t ctx;                /* match key: communicator context, */
    int swr, rwr, tag;           /* sender's and receiver's world ranks, tag */
};

/* Unmatched channels of the whole job, oldest first.  One registry for
 * the process is right here: it holds what ranks have not matched yet,
 * which is shared by nature, not per-rank library state. */
static struct {
    zm_spinlock_t lock;
    struct pchan *head, *tail;
} registry;

/* Release hook: detach the side from its channel and free what it owns. */
static void part_release(zm_mpi_sched_t *s, void *arg)
{
    (void)s;
    struct part *p = arg;
    struct pchan *ch = p->ch;
    if (ch) {
        zm_spin_lock(&registry.lock);
        zm_spin_lock(&ch->lock);
        ch->half[p->send] = NULL;
        zm_spin_unlock(&ch->lock);
        int last = --ch->refs == 0;
        if (last) {
            /* Still waiting for a peer: take it out of the registry. */
            for (struct pchan **pp = &registry.head, *prev = NULL; *pp;
                 prev = *pp, pp = &(*pp)->next) {
                if (*pp != ch)
                    continue;
                *pp = ch->next;
                if (registry.tail == ch)
                    registry.tail = prev;
                break;
            }
        }
        zm_spin_unlock(&registry.lock);
        if (last)
            free(ch);
    }
    if (p->net)
        zm_mpi_part_net_release(p);
    if (p->dt && p->dt->d)
        zm_dt_release(p->dt);
    free(p->ready);
    free(p->copied);
    free(p->got);
}

/* A sender's bytes [off, off + len) add to every receiver partition they
 * overlap. */
void zm_mpi_part_account(struct part *r, size_t off, size_t len, int nparts, int sparts)
{
    size_t end = off + len;
    r->nsent += nparts;
    r->peer_parts = sparts;
    for (size_t j = len ? off / r->psize : 0; off < end; j++) {
        size_t pend = (j + 1) * r->psize, m = (pend < end ? pend : end) - off;
        r->got[j] += m;
        r->gotall += m;
        off += m;
    }
}

/* Copy sender partition i of s into r's buffer and account for its bytes
 * in every receiver partition it overlaps.  Both sides are in the same
 * round; ch->lock held. */
static void part_copy(struct part *s, struct part *r, int i)
{
    size_t off = (size_t)i * s->psize;
    if (s->psize)
        zm_dt_copy_range(r->buf, r->count, r->dt, s->buf, s->count, s->dt, off, s->psize);
    s->copied[i] = 1;
    s->ncopied++;
    zm_mpi_part_account(r, off, s->psize, 1, s->parts);
}

/* Completion is collected, not done here, because the caller holds a
 * spinlock that waking a rank must not run under (in one process). */
void zm_mpi_part_round_reset(struct part *p)
{
    p->round++;
    p->done = 0;
    if (p->send) {
        memset(p->ready, 0, (size_t)p->parts);
        memset(p->copied, 0, (size_t)p->parts);
        p->ncopied = 0;
    } else {
        memset(p->got, 0, sizeof(*p->got) * (size_t)p->parts);
        p->gotall = 0;
        p->nsent = 0;
    }
}

void zm_mpi_part_settle(struct part *p, zm_req_t **fin, int *nfin)
{
    if (!p || p->round == 0 || p->done)
        return;
    int complete = p->bad || (p->send ? p->ncopied == p->parts
                              : p->gotall == p->total && (p->total > 0 || zm_mpi_part_arrived(p, 0)));
    if (!complete)
        return;
    p->done = 1;
    if (p->bad)
        p->kid->st_error = p->send ? ZM_ERR_ARG : ZM_ERR_TRUNCATE;
    fin[(*nfin)++] = p->kid;
}

static void part_complete(zm_req_t **fin, int nfin)
{
    for (int i = 0; i < nfin; i++)
        zm_p2p_req_complete(fin[i]);
}

/* Start hook: begin a new round on this side; a receiver takes in every
 * partition its sender already readied for this round. */
static int part_start(zm_mpi_sched_t *s, void *arg)
{
    (void)s;
    struct part *p = arg;
    zm_req_t *fin[2];
    int nfin = 0;
    zm_p2p_req_reset(p->kid, ZM_REQ_DONE_ONLY);
    if (!p->send) {
        /* What a wait reports: MPI_Get_count uses the request's type. */
        p->req->st_source = p->peer;
        p->req->st_tag = p->ch || p->net ? p->tag : MPI_ANY_TAG;
        p->req->st_bytes = p->bad ? p->peer_total : p->ch || p->net ? p->total : 0;
    }
    if (p->net) {
        zm_mpi_part_net_start(p);
        return MPI_SUCCESS;
    }
    if (!p->ch) {
        /* MPI_PROC_NULL: nothing to move. */
        if (p->send)
            memset(p->ready, 0, (size_t)p->parts);
        p->round++;
        p->done = 1;
        fin[nfin++] = p->kid;
        part_complete(fin, nfin);
        return MPI_SUCCESS;
    }
    struct pchan *ch = p->ch;
    zm_spin_lock(&ch->lock);
    zm_mpi_part_round_reset(p);
    if (!p->send) {
        struct part *q = ch->half[1];
        if (q && q->round == p->round && !p->bad)
            for (int i = 0; i < q->parts; i++)
                if (q->ready[i] && !q->copied[i])
                    part_copy(q, p, i);
        zm_mpi_part_settle(q, fin, &nfin);
    }
    zm_mpi_part_settle(p, fin, &nfin);
    zm_spin_unlock(&ch->lock);
    part_complete(fin, nfin);
    return MPI_SUCCESS;
}

static const zm_mpi_sched_hooks_t part_hooks = { part_start, NULL, NULL, part_release, NULL };

/* Attach side p to channel ch, which the registry just gave up, unless
 * the waiting side's size differs: then that side is marked bad (its
 * rounds fail; a running one is completed in fin[]) and p stays
 * unattached.  Returns MPI_SUCCESS or MPI_ERR_TRUNCATE.  The registry lock
 * is held. */
static int part_attach(struct part *p, struct pchan *ch, size_t *peer_total, zm_req_t **fin,
                       int *nfin)
{
    int rc = MPI_SUCCESS;
    zm_spin_lock(&ch->lock);
    struct part *q = ch->half[!p->send];
    if (q->total != p->total) {
        q->bad = 1;
        q->peer_total = p->total;
        *peer_total = q->total;
        zm_mpi_part_settle(q, fin, nfin);
        rc = MPI_ERR_TRUNCATE;
    } else {
        ch->half[p->send] = p;
        ch->refs++;
        p->ch = ch;
    }
    zm_spin_unlock(&ch->lock);
    return rc;
}

/* Attach side p to the oldest unmatched channel of its key, or register a
 * new one.  Returns MPI_SUCCESS, MPI_ERR_NO_MEM, or MPI_ERR_TRUNCATE when
 * the matched peer's size differs (then both sides are marked bad and p is
 * not attached; *peer_total is the peer's size). */
static int part_match(struct part *p, uint32_t ctx, int swr, int rwr, size_t *peer_total)
{
    struct pchan *new_ch = malloc(sizeof(*new_ch)), *ch, *prev = NULL;
    zm_req_t *fin[1];
    int nfin = 0, rc = MPI_SUCCESS;
    zm_spin_lock(&registry.lock);
    for (ch = registry.head; ch; prev = ch, ch = ch->next)
        if (ch->ctx == ctx && ch->swr == swr && ch->rwr == rwr && ch->tag == p->tag &&
            ch->half[p->send] == NULL && ch->half[!p->send] != NULL)
            break;
    if (ch) {
        /* Matched: the channel leaves the registry whatever happens. */
        if (prev)
            prev->next = ch->next;
        else
            registry.head = ch->next;
        if (registry.tail == ch)
            registry.tail = prev;
        rc = part_attach(p, ch, peer_total, fin, &nfin);
    } else if (new_ch) {
        *new_ch = (struct pchan){ .ctx = ctx, .swr = swr, .rwr = rwr, .tag = p->tag,
                                  .refs = 1 };
        new_ch->half[p->send] = p;
        if (registry.tail)
            registry.tail->next = new_ch;
        else
            registry.head = new_ch;
        registry.tail = new_ch;
        p->ch = new_ch;
        new_ch = NULL;
    } else {
        rc = MPI_ERR_NO_MEM;
    }
    zm_spin_unlock(&registry.lock);
    free(new_ch);
    part_complete(fin, nfin);
    return rc;
}

/* The arguments both inits take, as the user passed them. */
struct pinit_args {
    const char *fn;
    void *buf;
    int partitions;
    MPI_Count count;
    MPI_Datatype dt;
    int peer, tag;
    MPI_Comm comm;
    MPI_Info info;
    MPI_Request *request;
};

/* Check the arguments of either init on communicator c. */
static int pinit_check(struct zmpi_comm *c, const struct pinit_args *a, int send)
{
    const char *fn = a->fn, *who = send ? "dest" : "source";
    int rc;
    if (a->info != MPI_INFO_NULL && (rc = zm_mpi_info_check(fn, a->info)) != MPI_SUCCESS)
        return rc;
    if (!a->request)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(request=NULL): no place for the request");
    if (a->partitions < 0)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(partitions=%d): must not be negative",
                            a->partitions);
    if (a->count < 0 || a->count > INT64_MAX / (a->partitions ? a->partitions : 1))
        return zm_mpi_error(c, MPI_ERR_COUNT, fn, "(count=%lld): invalid count for %d "
                            "partitions", (long long)a->count, a->partitions);
    int64_t n = a->count * a->partitions;
    if ((rc = zm_mpi_check_buf(c, fn, a->buf, n > INT32_MAX ? INT32_MAX : (int)n, a->dt)) !=
        MPI_SUCCESS)
        return rc;
    if (a->dt->size && (uint64_t)n > SIZE_MAX / a->dt->size)
        return zm_mpi_error(c, MPI_ERR_COUNT, fn, "(count=%lld): the message is larger than "
                            "memory", (long long)a->count);
    if (a->peer == MPI_ANY_SOURCE)
        return zm_mpi_error(c, MPI_ERR_RANK, fn, "(source=MPI_ANY_SOURCE): partitioned "
                            "receives need a specific source");
    if ((rc = zm_mpi_check_rank(c, fn, who, a->peer, 0)) != MPI_SUCCESS)
        return rc;
    if (a->tag == MPI_ANY_TAG)
        return zm_mpi_error(c, MPI_ERR_TAG, fn, "(tag=MPI_ANY_TAG): partitioned receives need "
                            "a specific tag");
    return zm_mpi_check_tag(c, fn, a->tag, 0);
}

/* Fill side p from the checked arguments and allocate its arrays.
 * Returns 0, or -1 if out of memory. */
static int pinit_fill(struct part *p, const struct pinit_args *a, int send)
{
    size_t np = a->partitions ? (size_t)a->partitions : 1;
    p->send = send;
    p->buf = a->buf;
    p->parts = a->partitions;
    p->count = (size_t)a->count * (size_t)a->partitions;
    p->dt = a->dt;
    p->psize = a->dt->size * (size_t)a->count;
    p->total = p->psize * (size_t)a->partitions;
    p->peer = a->peer;
    p->tag = a->tag;
    if (a->dt->d)
        zm_dt_retain(a->dt);
    p->ready = calloc(np, 1);
    if (send)
        p->copied = calloc(np, 1);
    else
        p->got = calloc(np, sizeof(*p->got));
    return p->ready && (p->copied || p->got) ? 0 : -1;
}

/* Both inits: check, build the request, match it. */
static int pinit(const struct pinit_args *a, int send)
{
    ENTER_COMM(a->fn, a->comm, c);
    if ((rc = pinit_check(c, a, send)) != MPI_SUCCESS)
        return rc;
    zm_mpi_sched_t *s = zm_mpi_sched_new(c, a->comm, 1, sizeof(struct part));
    struct part *p = s ? zm_mpi_sched_scratch(s) : NULL;
    if (!p) {
        if (s)
            zm_mpi_sched_free(s);
        return zm_mpi_error(c, MPI_ERR_NO_MEM, a->fn, "out of memory for the request");
    }
    memset(p, 0, sizeof(*p));
    zm_mpi_sched_set_hooks(s, &part_hooks, p);
    if (pinit_fill(p, a, send) != 0 || zm_mpi_sched_child(s, &p->kid) != MPI_SUCCESS) {
        zm_mpi_sched_free(s);
        return zm_mpi_error(c, MPI_ERR_NO_MEM, a->fn, "out of memory for the request");
    }
    p->kid->pcomm = &c->p;
    p->req = zm_mpi_sched_request(s, 1);
    /* Get_count and truncation reports describe the receive buffer. */
    p->req->dt = p->dt;
    p->req->count = p->count;
    if (a->peer != MPI_PROC_NULL) {
        int me_w = zm_p2p_self()->world_rank;
        int peer_w = c->p.world ? c->p.world[a->peer] : a->peer;
        size_t peer_total = 0;
        /* A peer in another process cannot reach this process's
         * registry: part_net.c matches through the network instead. */
        if (zm_net_is_remote(peer_w))
            rc = zm_mpi_part_net_init(p, c->p.ctx, send ? me_w : peer_w, send ? peer_w : me_w,
                                      &peer_total);
        else
            rc = part_match(p, c->p.ctx, send ? me_w : peer_w, send ? peer_w : me_w,
                            &peer_total);
        if (rc != MPI_SUCCESS) {
            zm_mpi_sched_free(s);
            if (rc == MPI_ERR_NO_MEM)
                return zm_mpi_error(c, rc, a->fn, "out of memory for the request");
            return zm_mpi_error(c, rc, a->fn, "(%s=%d, tag=%d): matched a partitioned %s of "
                                "%zu bytes, but this one has %zu bytes (%d partitions of "
                                "%lld elements); the sizes must be equal",
                                send ? "dest" : "source", a->peer, a->tag,
                                send ? "receive" : "send", peer_total, p->total,
                                a->partitions, (long long)a->count);
        }
    }
    *a->request = p->req;
    return MPI_SUCCESS;
}

int PMPI_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                    int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    struct pinit_args a = { "MPI_Psend_init", (void *)buf, partitions, count, datatype,
                            dest, tag, comm, info, request };
    return pinit(&a, 1);
}
ZM_WEAK(Psend_init)

int PMPI_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                    int source, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    struct pinit_args a = { "MPI_Precv_init", buf, partitions, count, datatype,
                            source, tag, comm, info, request };
    return pinit(&a, 0);
}
ZM_WEAK(Precv_init)

/* The side behind request handle r for call fn, which needs a send side
 * (send = 1) or a receive side (0) that is active; raises the error and
 * returns NULL otherwise (*rc is the code).  ULT context. */
static struct part *part_of(const char *fn, MPI_Request r, int send, int *rc)
{
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    struct part *p = r ? zm_mpi_sched_hooks_arg(r, &part_hooks) : NULL;
    if (!p || p->send != send) {
        *rc = zm_mpi_error(NULL, MPI_ERR_REQUEST, fn, "(request=%p): not a partitioned %s "
                           "request", (void *)r, send ? "send" : "receive");
        return NULL;
    }
    struct zmpi_comm *c = zm_mpi_comm(me, r->comm);
    if (send && !r->active) {
        *rc = zm_mpi_error(c, MPI_ERR_REQUEST, fn, "(request=%p): the request is not active "
                           "(call MPI_Start first)", (void *)r);
        return NULL;
    }
    return p;
}

/* Check that sender partition i may be readied now. */
static int pready_check(const char *fn, struct part *p, int i)
{
    struct zmpi_comm *c = zm_mpi_comm(zm_mpi_me(), p->req->comm);
    if (i < 0 || i >= p->parts)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(partition=%d): out of range, the request "
                            "has %d partitions", i, p->parts);
    if (p->ready[i])
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(partition=%d): already marked ready in "
                            "this round", i);
    if (p->bad)
        return zm_mpi_error(c, MPI_ERR_TRUNCATE, fn, "the matched partitioned receive has "
                            "%zu bytes, this send %zu", p->peer_total, p->total);
    return MPI_SUCCESS;
}

/* Mark sender partitions [lo, hi] (or list[0..n) when list is given)
 * ready; each is copied now if the receiver is in the same round. */
static void pready_apply(struct part *p, int lo, int hi, const int *list)
{
    zm_req_t *fin[2];
    int nfin = 0;
    struct pchan *ch = p->ch;
    /* A binding that works on a copy of the program's buffer (an mpi_f08
     * array section, bind_hooks.h) refreshes it before partitions go. */
    if (ZM_UNLIKELY(atomic_load_explicit(&zm_mpi_hooks_n, memory_order_relaxed)))
        zm_mpi_hook_start(p->req);
    if (p->net) {
        zm_mpi_part_net_ready(p, lo, hi, list);
        return;
    }
    if (ch)
        zm_spin_lock(&ch->lock);
    struct part *r = ch ? ch->half[0] : NULL;
    for (int k = lo; k <= hi; k++) {
        int i = list ? list[k] : k;
        p->ready[i] = 1;
        if (r && r->round == p->round)
            part_copy(p, r, i);
    }
    if (r && r->round == p->round)
        zm_mpi_part_settle(r, fin, &nfin);
    if (ch) {
        zm_mpi_part_settle(p, fin, &nfin);
        zm_spin_unlock(&ch->lock);
    }
    part_complete(fin, nfin);
}

int PMPI_Pready(int partition, MPI_Request request)
{
    const char *fn = "MPI_Pready";
    int rc;
    struct part *p = part_of(fn, request, 1, &rc);
    if (!p)
        return rc;
    if ((rc = pready_check(fn, p, partition)) != MPI_SUCCESS)
        return rc;
    pready_apply(p, 0, 0, &partition);
    return MPI_SUCCESS;
}
ZM_WEAK(Pready)

int PMPI_Pready_range(int partition_low, int partition_high, MPI_Request request)
{
    const char *fn = "MPI_Pready_range";
    int rc;
    struct part *p = part_of(fn, request, 1, &rc);
    if (!p)
        return rc;
    if (partition_low > partition_high)
        return zm_mpi_error(zm_mpi_comm(zm_mpi_me(), request->comm), MPI_ERR_ARG, fn,
                            "(partition_low=%d, partition_high=%d): empty range",
                            partition_low, partition_high);
    for (int i = partition_low; i <= partition_high; i++)
        if ((rc = pready_check(fn, p, i)) != MPI_SUCCESS)
            return rc;
    pready_apply(p, partition_low, partition_high, NULL);
    return MPI_SUCCESS;
}
ZM_WEAK(Pready_range)

int PMPI_Pready_list(int length, const int array_of_partitions[], MPI_Request request)
{
    const char *fn = "MPI_Pready_list";
    int rc;
    struct part *p = part_of(fn, request, 1, &rc);
    if (!p)
        return rc;
    struct zmpi_comm *c = zm_mpi_comm(zm_mpi_me(), request->comm);
    if (length < 0 || (length > 0 && !array_of_partitions))
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(length=%d, array_of_partitions=%p): "
                            "invalid list", length, (const void *)array_of_partitions);
    for (int k = 0; k < length; k++) {
        if ((rc = pready_check(fn, p, array_of_partitions[k])) != MPI_SUCCESS)
            return rc;
        /* A partition listed twice is readied twice: find it before
         * changing anything. */
        for (int j = 0; j < k; j++)
            if (array_of_partitions[j] == array_of_partitions[k])
                return zm_mpi_error(c, MPI_ERR_ARG, fn, "(array_of_partitions[%d]=%d): "
                                    "partition listed twice", k, array_of_partitions[k]);
    }
    if (length > 0)
        pready_apply(p, 0, length - 1, array_of_partitions);
    return MPI_SUCCESS;
}
ZM_WEAK(Pready_list)

int PMPI_Parrived(MPI_Request request, int partition, int *flag)
{
    const char *fn = "MPI_Parrived";
    int rc;
    struct part *p = part_of(fn, request, 0, &rc);
    if (!p)
        return rc;
    struct zmpi_comm *c = zm_mpi_comm(zm_mpi_me(), request->comm);
    if (!flag)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(flag=NULL): no place for the answer");
    if (partition < 0 || partition >= p->parts)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(partition=%d): out of range, the request "
                            "has %d partitions", partition, p->parts);
    /* An inactive request has no transfer pending: whatever it received
     * is there (as MPI_Test of an inactive request says true). */
    if (!request->active || (!p->ch && !p->net)) {
        *flag = 1;
        return MPI_SUCCESS;
    }
    if (p->net) {
        *flag = zm_mpi_part_net_arrived(p, partition);
    } else {
        /* The lock orders the copy before the caller's reads of the data. */
        zm_spin_lock(&p->ch->lock);
        *flag = p->bad || zm_mpi_part_arrived(p, partition);
        zm_spin_unlock(&p->ch->lock);
    }
    /* As MPI_Test: a polling loop must let the sender (maybe a rank of
     * the same worker) run. */
    if (!*flag)
        zm_ult_yield();
    /* A binding working on a copy writes what arrived back now: the
     * partition is the program's from here on. */
    else if (ZM_UNLIKELY(atomic_load_explicit(&zm_mpi_hooks_n, memory_order_relaxed)))
        zm_mpi_hook_finish(request);
    return MPI_SUCCESS;
}
ZM_WEAK(Parrived)
