/*
 * intercomm.c: intercommunicators (MPI 4.1 section 7.6): creation from two
 * intracommunicators and a peer, from two groups, merging, and the
 * intercommunicator forms of Comm_dup, Comm_split and Comm_create; the
 * process-wide rendezvous that the constructions without a parent use.
 *
 * Two leaders agree for their groups: the local leaders exchange what
 * their groups need to know (contexts, group lists, colours) with one
 * message each way, then each broadcasts it in its local group.  Context
 * ids come from one process-wide counter, so two leaders that each draw
 * a block get distinct ones; the intercommunicator takes the lower of the
 * two drawn, which both sides compute alike.
 */
#include "inter_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Rendezvous ---------------------------------------------------------- */

/* One pending construction: the participants and the contexts drawn for
 * them by the first to arrive. */
struct rdv {
    struct rdv *next;           /* next pending construction */
    char *tag;                  /* the caller's key string */
    int na, nb;                 /* participants in each list */
    int *w;                     /* na + nb world ranks */
    char *taken;                /* per participant: has taken this entry */
    int left;                   /* participants still to take it */
    uint32_t base;              /* first context id drawn */
};

static zm_spinlock_t rdv_lock;
static struct rdv *rdv_head;

static int rdv_index(const struct rdv *e, int me)
{
    for (int i = 0; i < e->na + e->nb; i++)
        if (e->w[i] == me)
            return i;
    return -1;
}

static int rdv_same(const struct rdv *e, const char *tag, const int *wa, int na, const int *wb,
                    int nb)
{
    return e->na == na && e->nb == nb && strcmp(e->tag, tag) == 0 &&
           memcmp(e->w, wa, sizeof(int) * (size_t)na) == 0 &&
           (nb == 0 || memcmp(e->w + na, wb, sizeof(int) * (size_t)nb) == 0);
}

static struct rdv *rdv_make(const char *tag, const int *wa, int na, const int *wb, int nb,
                            uint32_t nctx)
{
    struct rdv *e = calloc(1, sizeof(*e));
    size_t n = (size_t)(na + nb);
    if (e) {
        e->tag = strdup(tag);
        e->w = malloc(sizeof(int) * (n ? n : 1));
        e->taken = calloc(n ? n : 1, 1);
    }
    if (!e || !e->tag || !e->w || !e->taken) {
        if (e) {
            free(e->tag);
            free(e->w);
            free(e->taken);
        }
        free(e);
        return NULL;
    }
    e->na = na;
    e->nb = nb;
    memcpy(e->w, wa, sizeof(int) * (size_t)na);
    if (nb)
        memcpy(e->w + na, wb, sizeof(int) * (size_t)nb);
    e->left = na + nb;
    e->base = zm_mpi_ctx_draw(nctx);
    return e;
}

/* The i-th participant of lists wa (na) and wb. */
static inline int rdv_who(const int *wa, int na, const int *wb, int i)
{
    return i < na ? wa[i] : wb[i - na];
}

/* A rendezvous whose participants live in several processes: the
 * participant with the lowest world rank draws the contexts and sends
 * the base to every other one, on MPI_COMM_WORLD's collective context
 * with a tag made from the key (the k-th calls pair up because messages
 * between two ranks are never overtaken).  ULT context, blocks. */
static int rdv_net(const char *tag, const int *wa, int na, const int *wb, int nb,
                   uint32_t nctx, int me, uint32_t *base)
{
    int lead = INT32_MAX;
    uint32_t h = 2166136261u, b = 0;
    for (int i = 0; i < na + nb; i++)
        if (rdv_who(wa, na, wb, i) < lead)
            lead = rdv_who(wa, na, wb, i);
    for (const char *k = tag; *k; k++)
        h = (h ^ (unsigned char)*k) * 16777619u;
    int t = 0x20000000 | (int)(h & 0x0fffffffu);
    zm_p2p_comm_t wc = { 1, me, zm_net_job.nranks, NULL, "MPI_COMM_WORLD", 0 };
    zm_req_t *req = zm_p2p_req_alloc();
    if (!req)
        return MPI_ERR_NO_MEM;
    if (me == lead) {
        b = zm_mpi_ctx_draw(nctx);
        for (int i = 0; i < na + nb; i++) {
            int w = rdv_who(wa, na, wb, i), seen = w == me;
            for (int j = 0; j < i && !seen; j++)
                seen = rdv_who(wa, na, wb, j) == w;
            if (seen)
                continue;
            zm_p2p_isend(&wc, &b, sizeof(b), MPI_BYTE, w, t, ZM_SEND_STD, req);
            zm_p2p_wait(&req, 1, 1);
        }
    } else {
        zm_p2p_recv(&wc, &b, sizeof(b), MPI_BYTE, lead, t, req);
    }
    zm_p2p_req_release(req);
    *base = b;
    return MPI_SUCCESS;
}

int zm_mpi_rdv_take(const char *tag, const int *wa, int na, const int *wb, int nb,
                    uint32_t nctx, int me, uint32_t *base)
{
    if (ZM_UNLIKELY(zm_net_remote != NULL))
        for (int i = 0; i < na + nb; i++)
            if (zm_net_remote[rdv_who(wa, na, wb, i)])
                return rdv_net(tag, wa, na, wb, nb, nctx, me, base);
    struct rdv **pp, *e;
    int i = -1;
    zm_spin_lock(&rdv_lock);
    /* The k-th call of a participant takes the first entry of its key it
     * has not taken yet, so repeated constructions pair up in order. */
    for (pp = &rdv_head; (e = *pp) != NULL; pp = &e->next)
        if (rdv_same(e, tag, wa, na, wb, nb) && (i = rdv_index(e, me)) >= 0 && !e->taken[i])
            break;
    if (!e) {
        e = rdv_make(tag, wa, na, wb, nb, nctx);
        if (!e) {
            zm_spin_unlock(&rdv_lock);
            return MPI_ERR_NO_MEM;
        }
        *pp = e;
        i = rdv_index(e, me);
    }
    e->taken[i] = 1;
    *base = e->base;
    if (--e->left == 0)
        *pp = e->next;
    else
        e = NULL;
    zm_spin_unlock(&rdv_lock);
    if (e) {
        free(e->tag);
        free(e->w);
        free(e->taken);
        free(e);
    }
    return MPI_SUCCESS;
}

/* ---- Objects and queries ---------------------------------------------- */

struct zmpi_comm *zm_mpi_intercomm_new(struct zmpi_errhandler *eh, struct zmpi_group *lg,
                                       struct zmpi_group *rg, uint32_t ctx, uint32_t lctx,
                                       int my_world)
{
    zm_mpi_group_ref(lg);
    struct zmpi_comm *loc = zm_mpi_comm_new(eh, lg, lctx, my_world);
    struct zmpi_comm *c = loc ? zm_mpi_comm_new(eh, lg, ctx, my_world) : NULL;
    if (!c) {
        if (loc)
            zm_mpi_comm_destroy(loc);
        else
            zm_mpi_group_unref(lg);
        zm_mpi_group_unref(rg);
        return NULL;
    }
    snprintf(loc->name, sizeof(loc->name), "(local group of an intercommunicator)");
    c->inter = 1;
    c->rgroup = rg;
    c->p.world = rg->world;
    c->p.size = rg->size;
    c->local = loc;
    return c;
}

static int not_inter(struct zmpi_comm *c, const char *fn)
{
    return zm_mpi_error(c, MPI_ERR_COMM, fn, "(comm%s%s): not an intercommunicator",
                        c->name[0] ? "=" : "", c->name);
}

int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    ENTER_COMM("MPI_Comm_test_inter", comm, c);
    if (!flag)
        return zm_mpi_error(c, MPI_ERR_ARG, "MPI_Comm_test_inter", "(flag=NULL): invalid pointer");
    *flag = c->inter != 0;
    return MPI_SUCCESS;
}
ZM_WEAK(Comm_test_inter)

int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    const char *fn = "MPI_Comm_remote_size";
    ENTER_COMM(fn, comm, c);
    if (!c->inter)
        return not_inter(c, fn);
    if (!size)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(size=NULL): invalid pointer");
    *size = c->rgroup->size;
    return MPI_SUCCESS;
}
ZM_WEAK(Comm_remote_size)

int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    const char *fn = "MPI_Comm_remote_group";
    ENTER_COMM(fn, comm, c);
    if (!c->inter)
        return not_inter(c, fn);
    if (!group)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(group=NULL): invalid pointer");
    zm_mpi_group_ref(c->rgroup);
    *group = c->rgroup;
    return MPI_SUCCESS;
}
ZM_WEAK(Comm_remote_group)

/* ---- Leader exchange on an intercommunicator ----------------------------- */

/* The two leaders (local rank 0 of each group) swap nmine ints for
 * ntheirs over the intercommunicator's collective context, then every rank
 * of the local group receives both from its leader: on return buf holds
 * the leader's nmine ints followed by the remote leader's ntheirs.  buf is
 * significant at the leader only on entry.  Returns an MPI error class
 * (not raised). */
static int inter_swap(struct zmpi_comm *c, MPI_Comm h, const char *fn, int *buf, int nmine,
                      int ntheirs, int tag)
{
    int n = 1 + nmine + ntheirs;
    int *t = malloc(sizeof(int) * (size_t)n);
    if (!t)
        return MPI_ERR_NO_MEM;
    t[0] = MPI_SUCCESS;
    zm_p2p_waiter()->wait_call = fn;
    if (c->p.rank == 0) {
        memcpy(t + 1, buf, sizeof(int) * (size_t)nmine);
        zm_mpi_sched_t *s = zm_mpi_sched_new(c, h, 2, 0);
        if (!s)
            t[0] = MPI_ERR_NO_MEM;
        else if ((t[0] = zm_mpi_sched_send(s, t + 1, (size_t)nmine, MPI_INT, 0, tag)) ||
                 (t[0] = zm_mpi_sched_recv(s, t + 1 + nmine, (size_t)ntheirs, MPI_INT, 0, tag)))
            zm_mpi_sched_free(s);
        else
            t[0] = zm_mpi_sched_run(s);
    }
    struct zm_coll_shm *cs = zm_mpi_coll_shm(c->local);
    zm_status_t st = cs ? zm_coll_bcast(cs, c->local->p.rank, t, (size_t)n, MPI_INT, 0)
                        : ZM_ERR_NOMEM;
    int cls = st != ZM_OK ? zm_mpi_class_of(st) : t[0];
    if (cls == MPI_SUCCESS)
        memcpy(buf, t + 1, sizeof(int) * (size_t)(nmine + ntheirs));
    free(t);
    return cls;
}

int zm_mpi_inter_dup(struct zmpi_comm *c, MPI_Comm h, const char *fn, struct zmpi_comm **out)
{
    zm_mpi_rank_t *me = zm_mpi_me();
    int buf[2] = { c->p.rank == 0 ? (int)zm_mpi_ctx_draw(4) : 0, 0 };
    int cls = inter_swap(c, h, fn, buf, 1, 1, ZM_ITAG_DUP);
    if (cls != MPI_SUCCESS)
        return zm_mpi_error(c, cls, fn, "agreeing on a context with the remote group failed");
    uint32_t mine = (uint32_t)buf[0], theirs = (uint32_t)buf[1];
    zm_mpi_group_ref(c->group);
    zm_mpi_group_ref(c->rgroup);
    *out = zm_mpi_intercomm_new(c->eh, c->group, c->rgroup, mine < theirs ? mine : theirs,
                                mine + 2, me->world_rank);
    return *out ? MPI_SUCCESS : zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
}

/* Split semantics on an intercommunicator (MPI 4.1 section 7.4.2): the
 * new local group holds the local ranks of my colour, the new remote
 * group the remote ranks of my colour, each ordered by key then rank; a
 * colour with no member on the other side gives MPI_COMM_NULL.  Each
 * leader draws 4 contexts per local rank, so a colour's contexts can be
 * indexed by its lowest member on either side. */
int zm_mpi_inter_split(struct zmpi_comm *c, MPI_Comm h, const char *fn, int color, int key,
                       MPI_Comm *newcomm)
{
    zm_mpi_rank_t *me = zm_mpi_me();
    int nl = c->group->size, nr = c->rgroup->size, mine[2] = { color, key };
    int *buf = malloc(sizeof(int) * (size_t)(2 + 2 * nl + 2 * nr));
    if (!buf)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    zm_p2p_waiter()->wait_call = fn;
    struct zm_coll_shm *cs = zm_mpi_coll_shm(c->local);
    zm_status_t st = cs ? zm_coll_allgather_int(cs, c->p.rank, mine, 2, buf + 1) : ZM_ERR_NOMEM;
    int cls = st == ZM_OK ? MPI_SUCCESS : zm_mpi_class_of(st);
    if (cls == MPI_SUCCESS) {
        buf[0] = c->p.rank == 0 ? (int)zm_mpi_ctx_draw(4u * (uint32_t)nl) : 0;
        cls = inter_swap(c, h, fn, buf, 1 + 2 * nl, 1 + 2 * nr, ZM_ITAG_SPLIT);
    }
    *newcomm = MPI_COMM_NULL;
    if (cls != MPI_SUCCESS || color == MPI_UNDEFINED) {
        free(buf);
        return cls == MPI_SUCCESS ? MPI_SUCCESS : zm_mpi_error(c, cls, fn, "exchanging colours "
                                                               "with the remote group failed");
    }
    const int *rbuf = buf + 1 + 2 * nl;
    int fl, fr;
    struct zmpi_group *lg = zm_mpi_split_members(buf + 1, 2, nl, c->group->world, color, &fl);
    struct zmpi_group *rg = zm_mpi_split_members(rbuf + 1, 2, nr, c->rgroup->world, color, &fr);
    uint32_t base = (uint32_t)buf[0], rbase = (uint32_t)rbuf[0];
    free(buf);
    if (!lg || !rg || rg->size == 0) {
        zm_mpi_group_unref(lg);
        zm_mpi_group_unref(rg);
        return lg && rg ? MPI_SUCCESS : zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    uint32_t ctx = zm_mpi_inter_first(c) ? base + 4u * (uint32_t)fl : rbase + 4u * (uint32_t)fr;
    struct zmpi_comm *n = zm_mpi_intercomm_new(c->eh, lg, rg, ctx, base + 4u * (uint32_t)fl + 2,
                                               me->world_rank);
    if (!n)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    *newcomm = n;
    return MPI_SUCCESS;
}

/* A group made of n world ranks. */
static struct zmpi_group *group_of(const int *w, int n)
{
    struct zmpi_group *g = zm_mpi_group_new(n);
    if (g)
        memcpy(g->world, w, sizeof(int) * (size_t)n);
    return g;
}

/* Comm_create on an intercommunicator: every local group passes a subgroup
 * of itself (the leader's is used); the result joins the two subgroups,
 * or is MPI_COMM_NULL where either is empty or the caller is outside. */
int zm_mpi_inter_create(struct zmpi_comm *c, MPI_Comm h, const char *fn, MPI_Group group,
                        MPI_Comm *newcomm)
{
    zm_mpi_rank_t *me = zm_mpi_me();
    int nl = c->group->size, nr = c->rgroup->size;
    int *buf = malloc(sizeof(int) * (size_t)(4 + nl + nr));
    if (!buf)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    if (c->p.rank == 0) {
        buf[0] = (int)zm_mpi_ctx_draw(4);
        buf[1] = group->size;
        memcpy(buf + 2, group->world, sizeof(int) * (size_t)group->size);
    }
    int cls = inter_swap(c, h, fn, buf, 2 + nl, 2 + nr, ZM_ITAG_CREATE);
    *newcomm = MPI_COMM_NULL;
    if (cls != MPI_SUCCESS) {
        free(buf);
        return zm_mpi_error(c, cls, fn, "exchanging groups with the remote group failed");
    }
    const int *rbuf = buf + 2 + nl;
    int member = 0;
    for (int i = 0; i < buf[1]; i++)
        member |= buf[2 + i] == me->world_rank;
    if (!member || rbuf[1] == 0) {
        free(buf);
        return MPI_SUCCESS;
    }
    struct zmpi_group *lg = group_of(buf + 2, buf[1]), *rg = group_of(rbuf + 2, rbuf[1]);
    uint32_t base = (uint32_t)buf[0], rbase = (uint32_t)rbuf[0];
    free(buf);
    if (!lg || !rg) {
        zm_mpi_group_unref(lg);
        zm_mpi_group_unref(rg);
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    struct zmpi_comm *n = zm_mpi_intercomm_new(c->eh, lg, rg, zm_mpi_inter_first(c) ? base : rbase,
                                               base + 2, me->world_rank);
    if (!n)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    *newcomm = n;
    return MPI_SUCCESS;
}

/* ---- MPI_Intercomm_create ---------------------------------------------- */

/* What a leader tells its local group: an error class (raised at the
 * leader already), the remote group's size, the two contexts. */
enum { HDR_ERR, HDR_RSIZE, HDR_CTX, HDR_LCTX, HDR_N };

/* Send n ints to / receive up to n ints from rank `peer` of peer comm pc
 * on its point-to-point context, both at once.  Returns the ints
 * received. */
static size_t peer_swap(const zm_p2p_comm_t *pc, MPI_Comm ph, int peer, int tag,
                        const int *out, size_t nout, int *in, size_t nin)
{
    zm_req_t sreq, rreq;
    zm_req_t *both[2] = { &sreq, &rreq };
    sreq.pooled = rreq.pooled = 0;
    sreq.comm = rreq.comm = ph;
    zm_p2p_irecv(pc, in, nin, MPI_INT, peer, tag, &rreq);
    if (zm_p2p_isend(pc, out, nout, MPI_INT, peer, tag, ZM_SEND_STD, &sreq) != ZM_OK)
        both[0] = NULL;
    zm_p2p_wait(both, 2, 1);
    return rreq.st_bytes / sizeof(int);
}

/* Nonzero if world rank w is among the n of list l. */
static int in_list(const int *l, int n, int w)
{
    for (int i = 0; i < n; i++)
        if (l[i] == w)
            return 1;
    return 0;
}

/* The local leader's part of Intercomm_create: check the peer-side
 * arguments, swap group sizes, drawn contexts and group lists with the
 * remote leader, check that the groups are disjoint, and fill hdr.  On an
 * error raises it on c and returns it; hdr[HDR_ERR] tells the group. */
static int leader_part(zm_mpi_rank_t *me, struct zmpi_comm *c, const char *fn,
                       const struct zmpi_group *lg, MPI_Comm peer_comm, int remote_leader,
                       int tag, int *hdr, int **rw)
{
    struct zmpi_comm *pc;
    int rc = zm_mpi_check_comm(me, peer_comm, fn, &pc);
    if (rc != MPI_SUCCESS)
        return rc;
    if (pc->inter)
        return zm_mpi_error(c, MPI_ERR_COMM, fn, "(peer_comm): must be an intracommunicator");
    if (remote_leader < 0 || remote_leader >= pc->p.size)
        return zm_mpi_error(c, MPI_ERR_RANK, fn, "(remote_leader=%d): invalid rank, peer_comm "
                            "has %d ranks", remote_leader, pc->p.size);
    if ((rc = zm_mpi_check_tag(c, fn, tag, 0)) != MPI_SUCCESS)
        return rc;
    int rl = pc->p.world ? pc->p.world[remote_leader] : remote_leader;
    if (in_list(lg->world, lg->size, rl))
        return zm_mpi_error(c, MPI_ERR_RANK, fn, "(remote_leader=%d): is a member of local_comm "
                            "(world rank %d); the two groups must be disjoint", remote_leader, rl);
    zm_p2p_waiter()->wait_call = fn;
    int out[2] = { lg->size, (int)zm_mpi_ctx_draw(4) }, in[2] = { 0, 0 };
    if (peer_swap(&pc->p, peer_comm, remote_leader, tag, out, 2, in, 2) != 2 || in[0] <= 0)
        return zm_mpi_error(c, MPI_ERR_OTHER, fn, "(remote_leader=%d): unexpected reply from the "
                            "remote leader (is tag=%d used by other messages on peer_comm?)",
                            remote_leader, tag);
    *rw = malloc(sizeof(int) * (size_t)in[0]);
    if (!*rw)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    peer_swap(&pc->p, peer_comm, remote_leader, tag, lg->world, (size_t)lg->size, *rw,
              (size_t)in[0]);
    for (int i = 0; i < in[0]; i++)
        if (in_list(lg->world, lg->size, (*rw)[i]))
            return zm_mpi_error(c, MPI_ERR_COMM, fn, "(local_comm): its group and the remote "
                                "group overlap (world rank %d is in both)", (*rw)[i]);
    hdr[HDR_RSIZE] = in[0];
    hdr[HDR_CTX] = (uint32_t)out[1] < (uint32_t)in[1] ? out[1] : in[1];
    hdr[HDR_LCTX] = out[1] + 2;
    return MPI_SUCCESS;
}

int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                          int remote_leader, int tag, MPI_Comm *newintercomm)
{
    const char *fn = "MPI_Intercomm_create";
    ENTER_COMM(fn, local_comm, c);
    if (c->inter)
        return zm_mpi_error(c, MPI_ERR_COMM, fn, "(local_comm): must be an intracommunicator");
    if (local_leader < 0 || local_leader >= c->p.size)
        return zm_mpi_error(c, MPI_ERR_RANK, fn, "(local_leader=%d): invalid rank, local_comm "
                            "has %d ranks", local_leader, c->p.size);
    if (!newintercomm)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(newintercomm=NULL): invalid pointer");
    MPI_Group lg;
    if ((rc = PMPI_Comm_group(local_comm, &lg)) != MPI_SUCCESS)
        return rc;
    int hdr[HDR_N] = { 0, 0, 0, 0 }, *rw = NULL;
    if (c->p.rank == local_leader)
        hdr[HDR_ERR] = leader_part(me, c, fn, lg, peer_comm, remote_leader, tag, hdr, &rw);
    zm_p2p_waiter()->wait_call = fn;
    struct zm_coll_shm *cs = zm_mpi_coll_shm(c);
    zm_status_t st = cs ? zm_coll_bcast(cs, c->p.rank, hdr, HDR_N, MPI_INT, local_leader)
                        : ZM_ERR_NOMEM;
    if (st == ZM_OK && hdr[HDR_ERR] == MPI_SUCCESS && !rw)
        rw = malloc(sizeof(int) * (size_t)hdr[HDR_RSIZE]);
    if (st == ZM_OK && hdr[HDR_ERR] == MPI_SUCCESS)
        st = rw ? zm_coll_bcast(cs, c->p.rank, rw, (size_t)hdr[HDR_RSIZE], MPI_INT, local_leader)
                : ZM_ERR_NOMEM;
    struct zmpi_group *rg = st == ZM_OK && hdr[HDR_ERR] == MPI_SUCCESS
                            ? group_of(rw, hdr[HDR_RSIZE]) : NULL;
    free(rw);
    if (!rg) {
        PMPI_Group_free(&lg);
        if (st != ZM_OK)
            return zm_mpi_error(c, zm_mpi_class_of(st), fn, "distributing the remote group failed");
        if (hdr[HDR_ERR] != MPI_SUCCESS)
            return c->p.rank == local_leader ? hdr[HDR_ERR]
                   : zm_mpi_error(c, hdr[HDR_ERR], fn, "the local leader (rank %d) failed to "
                                  "connect to the remote group", local_leader);
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    struct zmpi_comm *n = zm_mpi_intercomm_new(c->eh, lg, rg, (uint32_t)hdr[HDR_CTX],
                                               (uint32_t)hdr[HDR_LCTX], me->world_rank);
    if (!n)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    *newintercomm = n;
    return MPI_SUCCESS;
}
ZM_WEAK(Intercomm_create)

/* ---- MPI_Intercomm_create_from_groups ------------------------------------ */

static int check_group_arg(struct zmpi_comm *ec, const char *fn, const char *what, MPI_Group g)
{
    if (!g || g->magic != ZM_GROUP_MAGIC)
        return zm_mpi_error(ec, MPI_ERR_GROUP, fn, "(%s): invalid group %s", what,
                            g ? "(freed or not a group)" : "MPI_GROUP_NULL");
    if (g->size == 0)
        return zm_mpi_error(ec, MPI_ERR_GROUP, fn, "(%s): empty group", what);
    return MPI_SUCCESS;
}

/* The checks of Intercomm_create_from_groups, raised on ec. */
static int from_groups_check(zm_mpi_rank_t *me, struct zmpi_comm *ec, const char *fn,
                             MPI_Group lg, int local_leader, MPI_Group rg, int remote_leader,
                             const char *stringtag, MPI_Info info, MPI_Comm *out)
{
    int rc = check_group_arg(ec, fn, "local_group", lg);
    if (rc == MPI_SUCCESS)
        rc = check_group_arg(ec, fn, "remote_group", rg);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!in_list(lg->world, lg->size, me->world_rank))
        return zm_mpi_error(ec, MPI_ERR_GROUP, fn, "(local_group): the calling rank is not a "
                            "member");
    if (local_leader < 0 || local_leader >= lg->size)
        return zm_mpi_error(ec, MPI_ERR_RANK, fn, "(local_leader=%d): invalid rank, local_group "
                            "has %d ranks", local_leader, lg->size);
    if (remote_leader < 0 || remote_leader >= rg->size)
        return zm_mpi_error(ec, MPI_ERR_RANK, fn, "(remote_leader=%d): invalid rank, "
                            "remote_group has %d ranks", remote_leader, rg->size);
    if (!stringtag || !out)
        return zm_mpi_error(ec, MPI_ERR_ARG, fn, "(%s=NULL): invalid pointer",
                            stringtag ? "newintercomm" : "stringtag");
    if (info != MPI_INFO_NULL && (rc = zm_mpi_info_check(fn, info)) != MPI_SUCCESS)
        return rc;
    for (int i = 0; i < rg->size; i++)
        if (in_list(lg->world, lg->size, rg->world[i]))
            return zm_mpi_error(ec, MPI_ERR_GROUP, fn, "(remote_group): overlaps local_group "
                                "(world rank %d is in both)", rg->world[i]);
    return MPI_SUCCESS;
}

/* Both groups are known to every caller, so no message is needed: the
 * participants meet in the rendezvous keyed by the string tag and the two
 * groups (first the one with the lower leading world rank), where the
 * first to arrive draws the contexts.  Errors go to `errhandler`, through
 * a stand-in communicator object that lives for the call only. */
int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader,
                                      MPI_Group remote_group, int remote_leader,
                                      const char *stringtag, MPI_Info info,
                                      MPI_Errhandler errhandler, MPI_Comm *newintercomm)
{
    const char *fn = "MPI_Intercomm_create_from_groups";
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    if (!errhandler || errhandler->magic != ZM_EH_MAGIC)
        return zm_mpi_error(NULL, MPI_ERR_ERRHANDLER, fn, "(errhandler): invalid error handler");
    struct zmpi_comm ec;
    memset(&ec, 0, sizeof(ec));
    ec.eh = errhandler;
    int rc = from_groups_check(me, &ec, fn, local_group, local_leader, remote_group,
                               remote_leader, stringtag, info, newintercomm);
    if (rc != MPI_SUCCESS)
        return rc;
    int first = local_group->world[0] < remote_group->world[0];
    MPI_Group ga = first ? local_group : remote_group, gb = first ? remote_group : local_group;
    size_t len = strlen(stringtag);
    char *key = malloc(len + 2);
    uint32_t base;
    if (!key)
        return zm_mpi_error(&ec, MPI_ERR_NO_MEM, fn, "out of memory");
    key[0] = '\002'; /* keeps these keys apart from Comm_create_group's */
    memcpy(key + 1, stringtag, len + 1);
    rc = zm_mpi_rdv_take(key, ga->world, ga->size, gb->world, gb->size, 6, me->world_rank,
                         &base);
    free(key);
    if (rc != MPI_SUCCESS)
        return zm_mpi_error(&ec, rc, fn, "out of memory");
    zm_mpi_group_ref(local_group);
    zm_mpi_group_ref(remote_group);
    struct zmpi_comm *n = zm_mpi_intercomm_new(errhandler, local_group, remote_group, base,
                                               base + (first ? 2 : 4), me->world_rank);
    if (!n)
        return zm_mpi_error(&ec, MPI_ERR_NO_MEM, fn, "out of memory");
    *newintercomm = n;
    return MPI_SUCCESS;
}
ZM_WEAK(Intercomm_create_from_groups)

/* ---- MPI_Intercomm_merge ------------------------------------------------- */

/* The group that passed high = false comes first; if both passed the same
 * value, the first group of the intercommunicator (lower leading world
 * rank) does.  Each leader draws a context; the first group's is used. */
int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    const char *fn = "MPI_Intercomm_merge";
    ENTER_COMM(fn, intercomm, c);
    if (!c->inter)
        return not_inter(c, fn);
    if (!newintracomm)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(newintracomm=NULL): invalid pointer");
    int buf[4] = { high != 0, c->p.rank == 0 ? (int)zm_mpi_ctx_draw(2) : 0, 0, 0 };
    int cls = inter_swap(c, intercomm, fn, buf, 2, 2, ZM_ITAG_MERGE);
    if (cls != MPI_SUCCESS)
        return zm_mpi_error(c, cls, fn, "exchanging the high flags failed");
    int local_first = buf[0] != buf[2] ? !buf[0] : zm_mpi_inter_first(c);
    const struct zmpi_group *g1 = local_first ? c->group : c->rgroup;
    const struct zmpi_group *g2 = local_first ? c->rgroup : c->group;
    struct zmpi_group *g = zm_mpi_group_new(g1->size + g2->size);
    if (!g)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    memcpy(g->world, g1->world, sizeof(int) * (size_t)g1->size);
    memcpy(g->world + g1->size, g2->world, sizeof(int) * (size_t)g2->size);
    struct zmpi_comm *n = zm_mpi_comm_new(c->eh, g, (uint32_t)(local_first ? buf[1] : buf[3]),
                                          me->world_rank);
    if (!n)
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    *newintracomm = n;
    return MPI_SUCCESS;
}
ZM_WEAK(Intercomm_merge)
