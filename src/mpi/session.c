/*
 * session.c: the sessions model (MPI 4.1 section 11.3): sessions, their
 * process sets, groups from process sets and communicators from groups.
 *
 * A session is an object of the rank that made it.  zmpi has the two
 * process sets the standard requires: "mpi://WORLD" (every rank of the
 * job) and "mpi://SELF" (the calling rank).  Names are compared without
 * regard to case, as the URI scheme they are written in is.
 *
 * A rank with a live session may call MPI before MPI_Init and after
 * MPI_Finalize: zm_mpi_enter's slow path asks zm_mpi_session_live.  Each
 * rank counts its live sessions in its own slot of one table, which only
 * that rank writes.  MPI_Session_finalize is local: communicators made
 * from a session hold their own references to their groups and error
 * handlers, and messages between zmpi's ranks need no connection that a
 * finalize would have to wait for.
 *
 * MPI_Comm_create_from_group involves the group's members only: they meet
 * in the process-wide rendezvous of intercomm.c, keyed by the string tag
 * and the group, where the first to arrive draws the context ids.
 */
#include "large.h"
#include "inter_impl.h"
#include "threads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Live sessions of each rank, indexed by world rank; slot r is written
 * only by rank r. */
static int *live_count;

/* The process sets, in the order MPI_Session_get_nth_pset reports them. */
enum { PSET_WORLD, PSET_SELF, NPSETS };
static const char *const pset_names[NPSETS] = { "mpi://WORLD", "mpi://SELF" };

/* Buffered mode per session (the end of this file). */
static zm_status_t sbuf_setup(int nranks);
static struct zmpi_group *sbuf_group(zm_mpi_rank_t *me, struct zmpi_session *s, int pset);
static void sbuf_finalize(zm_mpi_rank_t *me, struct zmpi_session *s);

/* The names MPI_Session_get_info reports for the thread levels. */
static const char *const level_names[] = { "MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                           "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE" };

zm_status_t zm_mpi_session_setup(int nranks)
{
    free(live_count);
    /* Ranks spawned at run time have ids up to zm_ult_capacity(). */
    if (zm_ult_capacity() > nranks)
        nranks = zm_ult_capacity();
    live_count = calloc((size_t)nranks, sizeof(int));
    return live_count && sbuf_setup(nranks) == ZM_OK ? ZM_OK : ZM_ERR_NOMEM;
}

int zm_mpi_session_live(const zm_mpi_rank_t *me)
{
    return live_count && __atomic_load_n(&live_count[me->world_rank], __ATOMIC_RELAXED) > 0;
}

int zm_mpi_session_valid(const void *h)
{
    return ((const struct zmpi_session *)h)->magic == ZM_SESSION_MAGIC;
}

int zm_mpi_session_check(const char *fn, MPI_Session s)
{
    zm_mpi_rank_t *me = zm_mpi_me_thread();
    if (s == MPI_SESSION_NULL)
        return zm_mpi_error(NULL, MPI_ERR_SESSION, fn, "(session=MPI_SESSION_NULL): invalid "
                            "session");
    if (s->magic != ZM_SESSION_MAGIC)
        return zm_mpi_error(NULL, MPI_ERR_SESSION, fn, "(session): finalized or not a session");
    if (!me || s->owner != me->world_rank)
        return zm_mpi_error(NULL, MPI_ERR_SESSION, fn, "(session): made by rank %d; a session "
                            "belongs to the MPI process that made it", s->owner);
    return MPI_SUCCESS;
}

/* The index of process set `name`, or -1 if there is no such set. */
static int pset_find(const char *name)
{
    for (int i = 0; i < NPSETS; i++)
        if (strcasecmp(name, pset_names[i]) == 0)
            return i;
    return -1;
}

/* Check an optional info argument of a session call. */
static int check_opt_info(struct zmpi_session *s, const char *fn, MPI_Info info)
{
    if (info == MPI_INFO_NULL)
        return MPI_SUCCESS;
    if (info && info->magic == ZM_INFO_MAGIC)
        return MPI_SUCCESS;
    return zm_mpi_session_error(s->eh, s, MPI_ERR_INFO, fn, "(info): freed or not an info "
                                "object");
}

/* The thread level the "thread_level" hint of `info` asks for: the
 * default MPI_THREAD_SINGLE without one, -1 if the value names no level. */
static int requested_level(MPI_Info info, char *value, int len)
{
    int flag = 0;
    if (info == MPI_INFO_NULL)
        return MPI_THREAD_SINGLE;
    PMPI_Info_get(info, "thread_level", len - 1, value, &flag);
    if (!flag)
        return MPI_THREAD_SINGLE;
    for (int i = 0; i < 4; i++)
        if (strcasecmp(value, level_names[i]) == 0)
            return i;
    return -1;
}

/* The checks of MPI_Session_init, raised through the given handler (or
 * the initial one if that is unusable). */
static int init_check(const char *fn, MPI_Info info, MPI_Errhandler errhandler,
                      MPI_Session *session, int *level)
{
    const char *bad = zm_mpi_eh_unfit_session(errhandler);
    if (bad)
        return zm_mpi_error(NULL, MPI_ERR_ERRHANDLER, fn, "%s", bad);
    if (!session)
        return zm_mpi_session_error(errhandler, MPI_SESSION_NULL, MPI_ERR_ARG, fn,
                                    "(session=NULL): invalid pointer");
    if (info != MPI_INFO_NULL && (!info || info->magic != ZM_INFO_MAGIC))
        return zm_mpi_session_error(errhandler, MPI_SESSION_NULL, MPI_ERR_INFO, fn,
                                    "(info): freed or not an info object");
    char value[MPI_MAX_INFO_VAL + 1];
    *level = requested_level(info, value, (int)sizeof(value));
    if (*level < 0)
        return zm_mpi_session_error(errhandler, MPI_SESSION_NULL, MPI_ERR_INFO_VALUE, fn,
                                    "(info): thread_level=\"%.64s\" names no thread level "
                                    "(MPI_THREAD_SINGLE, _FUNNELED, _SERIALIZED or "
                                    "_MULTIPLE)", value);
    return MPI_SUCCESS;
}

int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
{
    const char *fn = "MPI_Session_init";
    zm_mpi_rank_t *me = zm_mpi_rank_attach();
    if (!me) {
        fprintf(stderr, "zmpi: %s: cannot set up a one-rank job\n", fn);
        exit(1);
    }
    int level;
    int rc = init_check(fn, info, errhandler, session, &level);
    if (rc != MPI_SUCCESS)
        return rc;
    struct zmpi_session *s = malloc(sizeof(*s));
    if (!s)
        return zm_mpi_session_error(errhandler, MPI_SESSION_NULL, MPI_ERR_NO_MEM, fn,
                                    "out of memory");
    s->magic = ZM_SESSION_MAGIC;
    s->owner = me->world_rank;
    /* Every level is provided, as in the world model (threads.c). */
    s->thread_level = level;
    zm_mpi_thread_grant(me, level);
    zm_mpi_thread_activate(); /* a thread the rank created may init a session */
    s->eh = errhandler;
    zm_mpi_eh_ref(errhandler);
    __atomic_fetch_add(&live_count[me->world_rank], 1, __ATOMIC_RELAXED);
    *session = s;
    return MPI_SUCCESS;
}
ZM_WEAK(Session_init)

int PMPI_Session_finalize(MPI_Session *session)
{
    const char *fn = "MPI_Session_finalize";
    zm_mpi_rank_t *me = zm_mpi_me_thread();
    if (!session)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(session=NULL): invalid pointer");
    int rc = zm_mpi_session_check(fn, *session);
    if (rc != MPI_SUCCESS)
        return rc;
    struct zmpi_session *s = *session;
    sbuf_finalize(me, s);
    __atomic_fetch_sub(&live_count[me->world_rank], 1, __ATOMIC_RELAXED);
    zm_mpi_eh_unref(s->eh);
    zm_mpi_handle_forget(s);
    zm_mpi_magic_clear(&s->magic);
    free(s);
    *session = MPI_SESSION_NULL;
    return MPI_SUCCESS;
}
ZM_WEAK(Session_finalize)

int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names)
{
    const char *fn = "MPI_Session_get_num_psets";
    int rc = zm_mpi_session_check(fn, session);
    if (rc == MPI_SUCCESS)
        rc = check_opt_info(session, fn, info);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!npset_names)
        return zm_mpi_session_error(session->eh, session, MPI_ERR_ARG, fn,
                                    "(npset_names=NULL): invalid pointer");
    *npset_names = NPSETS;
    return MPI_SUCCESS;
}
ZM_WEAK(Session_get_num_psets)

int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len,
                              char *pset_name)
{
    const char *fn = "MPI_Session_get_nth_pset";
    int rc = zm_mpi_session_check(fn, session);
    if (rc == MPI_SUCCESS)
        rc = check_opt_info(session, fn, info);
    if (rc != MPI_SUCCESS)
        return rc;
    if (n < 0 || n >= NPSETS)
        return zm_mpi_session_error(session->eh, session, MPI_ERR_ARG, fn, "(n=%d): no such "
                                    "process set, the session has %d (0..%d)", n, NPSETS,
                                    NPSETS - 1);
    if (!pset_len || *pset_len < 0 || (*pset_len > 0 && !pset_name))
        return zm_mpi_session_error(session->eh, session, MPI_ERR_ARG, fn, "(%s): invalid "
                                    "argument", !pset_len ? "pset_len=NULL"
                                    : *pset_len < 0 ? "pset_len < 0" : "pset_name=NULL");
    /* A length of 0 only asks for the size; a short buffer gets the name
     * cut, always terminated (MPI 4.1 section 11.3.2). */
    size_t need = strlen(pset_names[n]) + 1;
    if (*pset_len > 0)
        snprintf(pset_name, (size_t)*pset_len, "%s", pset_names[n]);
    *pset_len = (int)need;
    return MPI_SUCCESS;
}
ZM_WEAK(Session_get_nth_pset)

/* Check a process set name argument; *idx receives the set's index. */
static int check_pset(struct zmpi_session *s, const char *fn, const char *name, int *idx)
{
    if (!name)
        return zm_mpi_session_error(s->eh, s, MPI_ERR_ARG, fn, "(pset_name=NULL): invalid "
                                    "pointer");
    *idx = pset_find(name);
    if (*idx < 0)
        return zm_mpi_session_error(s->eh, s, MPI_ERR_ARG, fn, "(pset_name=\"%.64s\"): no such "
                                    "process set; zmpi has \"mpi://WORLD\" and \"mpi://SELF\"",
                                    name);
    return MPI_SUCCESS;
}

int PMPI_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info)
{
    const char *fn = "MPI_Session_get_pset_info";
    int idx, rc = zm_mpi_session_check(fn, session);
    if (rc == MPI_SUCCESS)
        rc = check_pset(session, fn, pset_name, &idx);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!info)
        return zm_mpi_session_error(session->eh, session, MPI_ERR_ARG, fn,
                                    "(info=NULL): invalid pointer");
    zm_mpi_rank_t *me = zm_mpi_me();
    char size[16];
    snprintf(size, sizeof(size), "%d", idx == PSET_WORLD ? me->world.p.size : 1);
    MPI_Info n;
    if (PMPI_Info_create(&n) != MPI_SUCCESS)
        return MPI_ERR_NO_MEM;
    if (PMPI_Info_set(n, "mpi_size", size) != MPI_SUCCESS) {
        PMPI_Info_free(&n);
        return MPI_ERR_NO_MEM;
    }
    *info = n;
    return MPI_SUCCESS;
}
ZM_WEAK(Session_get_pset_info)

int PMPI_Session_get_info(MPI_Session session, MPI_Info *info_used)
{
    const char *fn = "MPI_Session_get_info";
    int rc = zm_mpi_session_check(fn, session);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!info_used)
        return zm_mpi_session_error(session->eh, session, MPI_ERR_ARG, fn,
                                    "(info_used=NULL): invalid pointer");
    MPI_Info n;
    if (PMPI_Info_create(&n) != MPI_SUCCESS)
        return MPI_ERR_NO_MEM;
    if (PMPI_Info_set(n, "thread_level", level_names[session->thread_level]) != MPI_SUCCESS) {
        PMPI_Info_free(&n);
        return MPI_ERR_NO_MEM;
    }
    *info_used = n;
    return MPI_SUCCESS;
}
ZM_WEAK(Session_get_info)

int PMPI_Group_from_session_pset(MPI_Session session, const char *pset_name,
                                 MPI_Group *newgroup)
{
    const char *fn = "MPI_Group_from_session_pset";
    int idx, rc = zm_mpi_session_check(fn, session);
    if (rc == MPI_SUCCESS)
        rc = check_pset(session, fn, pset_name, &idx);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!newgroup)
        return zm_mpi_session_error(session->eh, session, MPI_ERR_ARG, fn,
                                    "(newgroup=NULL): invalid pointer");
    /* Each session hands out groups of its own (one per process set,
     * made on first use), so that a communicator made from one can be
     * told to come from this session: buffered sends on it use the
     * session's buffer (MPI 4.1 section 3.6). */
    struct zmpi_group *g = sbuf_group(zm_mpi_me(), session, idx);
    if (!g)
        return zm_mpi_session_error(session->eh, session, MPI_ERR_NO_MEM, fn, "out of memory");
    *newgroup = g;
    return MPI_SUCCESS;
}
ZM_WEAK(Group_from_session_pset)

/* The checks of MPI_Comm_create_from_group, raised on the stand-in `ec`. */
static int from_group_check(zm_mpi_rank_t *me, struct zmpi_comm *ec, const char *fn,
                            MPI_Group group, const char *stringtag, MPI_Info info,
                            MPI_Comm *newcomm)
{
    if (!group || group->magic != ZM_GROUP_MAGIC)
        return zm_mpi_error(ec, MPI_ERR_GROUP, fn, "(group=%s): invalid group",
                            group ? "freed or not a group" : "MPI_GROUP_NULL");
    int member = 0;
    for (int i = 0; i < group->size && !member; i++)
        member = group->world[i] == me->world_rank;
    if (!member)
        return zm_mpi_error(ec, MPI_ERR_GROUP, fn, "(group): the calling rank is not a member "
                            "(the group has %d ranks)", group->size);
    if (!stringtag)
        return zm_mpi_error(ec, MPI_ERR_ARG, fn, "(stringtag=NULL): invalid pointer");
    size_t len = strlen(stringtag);
    if (len >= MPI_MAX_STRINGTAG_LEN)
        return zm_mpi_error(ec, MPI_ERR_ARG, fn, "(stringtag=\"%.32s...\"): %zu characters, "
                            "more than MPI_MAX_STRINGTAG_LEN - 1 = %d", stringtag, len,
                            MPI_MAX_STRINGTAG_LEN - 1);
    if (info != MPI_INFO_NULL && (!info || info->magic != ZM_INFO_MAGIC))
        return zm_mpi_error(ec, MPI_ERR_INFO, fn, "(info): freed or not an info object");
    if (!newcomm)
        return zm_mpi_error(ec, MPI_ERR_ARG, fn, "(newcomm=NULL): invalid pointer");
    return MPI_SUCCESS;
}

/* Errors go to `errhandler`, which the new communicator gets, through a
 * stand-in communicator object that lives for the call only (MPI 4.1
 * section 7.4.2). */
int PMPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info,
                                MPI_Errhandler errhandler, MPI_Comm *newcomm)
{
    const char *fn = "MPI_Comm_create_from_group";
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    const char *bad = zm_mpi_eh_unfit_comm(errhandler);
    if (bad)
        return zm_mpi_error(NULL, MPI_ERR_ERRHANDLER, fn, "%s", bad);
    struct zmpi_comm ec;
    memset(&ec, 0, sizeof(ec));
    ec.eh = errhandler;
    snprintf(ec.name, sizeof(ec.name), "(communicator being created)");
    int rc = from_group_check(me, &ec, fn, group, stringtag, info, newcomm);
    if (rc != MPI_SUCCESS)
        return rc;
    size_t len = strlen(stringtag);
    char *key = malloc(len + 2);
    uint32_t base;
    if (!key)
        return zm_mpi_error(&ec, MPI_ERR_NO_MEM, fn, "out of memory");
    key[0] = '\003'; /* keeps these keys apart from the other constructions' */
    memcpy(key + 1, stringtag, len + 1);
    rc = zm_mpi_rdv_take(key, group->world, group->size, NULL, 0, 2, me->world_rank, &base);
    free(key);
    if (rc != MPI_SUCCESS)
        return zm_mpi_error(&ec, rc, fn, "out of memory");
    zm_mpi_group_ref(group);
    struct zmpi_comm *n = zm_mpi_comm_new(errhandler, group, base, me->world_rank);
    if (!n)
        return zm_mpi_error(&ec, MPI_ERR_NO_MEM, fn, "out of memory");
    if ((rc = zm_mpi_comm_info_apply(n, info)) != MPI_SUCCESS) {
        zm_mpi_comm_destroy(n);
        return zm_mpi_error(&ec, rc, fn, "cannot apply the info hints");
    }
    *newcomm = n;
    return MPI_SUCCESS;
}
ZM_WEAK(Comm_create_from_group)

/* ---- Buffered mode per session (MPI 4.1 section 3.6) ---------------------
 * A session's buffer is an area of its rank under a bsend key of its own
 * (src/p2p/bsend.c).  A buffered send on a communicator that has no buffer
 * of its own uses the buffer of the session the communicator was made
 * from, before the process's (zm_mpi_bsend_select): a communicator made by
 * MPI_Comm_create_from_group or MPI_Comm_create from a group this session
 * handed out (MPI_Group_from_session_pset), or a duplicate of one.  The
 * session's groups are objects of its own, held while it lives, so the
 * group of such a communicator (shared by its duplicates) names the
 * session and no freed group's address can be mistaken for one.  Groups
 * made from them by the group calls and communicators split from them are
 * not traced back to the session: their buffered sends use the process's
 * buffer.
 *
 * Keys count down from ZM_BSEND_PROCESS - 1 per rank, while context ids
 * (the communicators' keys) count up from 4 process-wide: they would meet
 * after about 2^32 contexts. */

/* A session's side of buffered mode, in its rank's list. */
struct sbuf {
    struct sbuf *next;
    struct zmpi_session *s;             /* the session (live) */
    struct zmpi_group *group[NPSETS];   /* groups it handed out (one reference held) */
    uint32_t key;                       /* bsend key of its buffer */
};

/* Per world rank: its sessions' entries and the next key.  Slot r is used
 * only by rank r. */
struct sbuf_rank {
    struct sbuf *head;
    uint32_t next_key;
};
static struct sbuf_rank *sbuf_tab;

static zm_status_t sbuf_setup(int nranks)
{
    free(sbuf_tab);
    sbuf_tab = calloc((size_t)nranks, sizeof(*sbuf_tab));
    return sbuf_tab ? ZM_OK : ZM_ERR_NOMEM;
}

/* The entry of session s of rank me; made if `make` (NULL if out of
 * memory), else NULL when there is none. */
static struct sbuf *sbuf_of(zm_mpi_rank_t *me, struct zmpi_session *s, int make)
{
    struct sbuf_rank *r = &sbuf_tab[me->world_rank];
    for (struct sbuf *b = r->head; b; b = b->next)
        if (b->s == s)
            return b;
    struct sbuf *b = make ? calloc(1, sizeof(*b)) : NULL;
    if (!b)
        return NULL;
    if (r->next_key == 0)
        r->next_key = ZM_BSEND_PROCESS - 1;
    b->s = s;
    b->key = r->next_key--;
    b->next = r->head;
    r->head = b;
    return b;
}

/* The session's group of process set `pset`, with a new reference for
 * the caller; NULL if out of memory. */
static struct zmpi_group *sbuf_group(zm_mpi_rank_t *me, struct zmpi_session *s, int pset)
{
    struct sbuf *b = sbuf_of(me, s, 1);
    if (!b)
        return NULL;
    if (!b->group[pset]) {
        const struct zmpi_group *w = me->world.group;
        int n = pset == PSET_WORLD ? w->size : 1;
        struct zmpi_group *g = zm_mpi_group_new(n);
        if (!g)
            return NULL;
        if (pset == PSET_WORLD)
            memcpy(g->world, w->world, sizeof(int) * (size_t)n);
        else
            g->world[0] = me->world_rank;
        b->group[pset] = g;
    }
    zm_mpi_group_ref(b->group[pset]);
    return b->group[pset];
}

/* Session s ends: its buffer is detached once every message in it has
 * been received (as MPI_Session_detach_buffer would), and its groups are
 * released. */
static void sbuf_finalize(zm_mpi_rank_t *me, struct zmpi_session *s)
{
    struct sbuf **pp = &sbuf_tab[me->world_rank].head;
    while (*pp && (*pp)->s != s)
        pp = &(*pp)->next;
    struct sbuf *b = *pp;
    if (!b)
        return;
    void *buf;
    size_t size;
    zm_p2p_bsend_detach_key(b->key, &buf, &size);
    for (int i = 0; i < NPSETS; i++)
        if (b->group[i])
            zm_mpi_group_unref(b->group[i]);
    *pp = b->next;
    free(b);
}

uint32_t zm_mpi_session_bsend_key(const struct zmpi_comm *c)
{
    zm_mpi_rank_t *me = zm_mpi_me();
    if (!sbuf_tab || !me || !c->group)
        return ZM_BSEND_PROCESS;
    for (struct sbuf *b = sbuf_tab[me->world_rank].head; b; b = b->next)
        for (int i = 0; i < NPSETS; i++)
            if (b->group[i] == c->group)
                return b->key;
    return ZM_BSEND_PROCESS;
}

/* Check the session of a buffer call; *b receives its entry (made if
 * needed).  Raises through the session's handler. */
static int sbuf_enter(const char *fn, MPI_Session session, struct sbuf **b)
{
    int rc = zm_mpi_session_check(fn, session);
    if (rc != MPI_SUCCESS)
        return rc;
    *b = sbuf_of(zm_mpi_me(), session, 1);
    if (!*b)
        return zm_mpi_session_error(session->eh, session, MPI_ERR_NO_MEM, fn, "out of memory");
    return MPI_SUCCESS;
}

/* Raise what a zm_mpi_bsend_* call returned through the session's
 * handler. */
static int sbuf_raise(MPI_Session session, const char *fn, int cls, const char *why)
{
    if (cls == MPI_SUCCESS)
        return cls;
    return zm_mpi_session_error(session->eh, session, cls, fn, "%s", why);
}

int zm_mpi_session_attach_buffer(const char *fn, MPI_Session session, void *buffer,
                                 MPI_Count size)
{
    struct sbuf *b;
    char why[128];
    int rc = sbuf_enter(fn, session, &b);
    if (rc == MPI_SUCCESS)
        rc = sbuf_raise(session, fn, zm_mpi_bsend_attach(b->key, " to the session", buffer,
                                                         size, why, sizeof(why)), why);
    return rc;
}

int PMPI_Session_attach_buffer(MPI_Session session, void *buffer, int size)
{
    return zm_mpi_session_attach_buffer("MPI_Session_attach_buffer", session, buffer, size);
}
ZM_WEAK(Session_attach_buffer)

int zm_mpi_session_detach_buffer(const char *fn, MPI_Session session, void *buffer_addr,
                                 MPI_Count *size)
{
    struct sbuf *b;
    char why[128];
    int rc = sbuf_enter(fn, session, &b);
    if (rc == MPI_SUCCESS)
        rc = sbuf_raise(session, fn, zm_mpi_bsend_detach(fn, b->key, " to the session",
                                                         buffer_addr, size, why, sizeof(why)),
                        why);
    return rc;
}

int PMPI_Session_detach_buffer(MPI_Session session, void *buffer_addr, int *size)
{
    const char *fn = "MPI_Session_detach_buffer";
    MPI_Count sz = 0;
    int rc = zm_mpi_session_detach_buffer(fn, session, buffer_addr, size ? &sz : NULL);
    if (rc != MPI_SUCCESS)
        return rc;
    /* The buffer is detached whatever its size: a size an int cannot hold
     * is reported after the fact. */
    if (!zm_mpi_fits_int(sz))
        return zm_mpi_session_error(session->eh, session, MPI_ERR_VALUE_TOO_LARGE, fn,
                                    "(size): the result %lld does not fit an int; call "
                                    "%s_c, which returns an MPI_Count", (long long)sz, fn);
    *size = (int)sz;
    return MPI_SUCCESS;
}
ZM_WEAK(Session_detach_buffer)

int PMPI_Session_flush_buffer(MPI_Session session)
{
    const char *fn = "MPI_Session_flush_buffer";
    struct sbuf *b;
    char why[128];
    int rc = sbuf_enter(fn, session, &b);
    if (rc == MPI_SUCCESS)
        rc = sbuf_raise(session, fn, zm_mpi_bsend_flush(fn, b->key, " to the session", why,
                                                        sizeof(why)), why);
    return rc;
}
ZM_WEAK(Session_flush_buffer)

/* The request completes once every message now in the session's buffer
 * has been received.  It belongs to no communicator: its status is
 * empty, and errors on it go through MPI_COMM_SELF's handler. */
int PMPI_Session_iflush_buffer(MPI_Session session, MPI_Request *request)
{
    const char *fn = "MPI_Session_iflush_buffer";
    struct sbuf *b;
    char why[128];
    int rc = sbuf_enter(fn, session, &b);
    if (rc == MPI_SUCCESS)
        rc = sbuf_raise(session, fn, zm_mpi_bsend_iflush(b->key, " to the session",
                                                         MPI_COMM_SELF, request, why,
                                                         sizeof(why)), why);
    return rc;
}
ZM_WEAK(Session_iflush_buffer)
