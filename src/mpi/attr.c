/*
 * attr.c: the per-rank keyval and attribute tables behind attribute
 * caching on communicators, datatypes and windows (MPI 4.1 section 7.7;
 * the API calls are in attr_api.c), and the predefined attributes of
 * communicators and windows.
 *
 * Every virtual rank is an MPI process, so keyvals and attributes are per
 * rank, in a struct zm_mpi_attr_state made on the rank's first use (its
 * blocks from zm_core_obj_alloc: in a job whose ranks have regions, the
 * rank's heap, so that they move with the rank to another process).
 * Predefined datatypes such as MPI_INT are shared by all ranks, so objects
 * hold no attributes: each rank has a hash table from object address to
 * that object's attributes, and sees only its own.
 *
 * A keyval handle is (generation << 16) | slot: slots of freed keyvals are
 * reused with the next generation, so the table stays as small as the
 * number of live keyvals and a stale handle is still recognised as freed.
 * Predefined keys are the small numbers in mpi.h; user keys are >= 65536.
 *
 * Order of callbacks (the standard leaves it open except at MPI_Finalize):
 * copy callbacks run in the order the attributes were set; delete callbacks
 * of a freed object run in the reverse order, as MPI_Finalize must do for
 * MPI_COMM_SELF.  Setting a key again deletes the old value (its callback
 * runs) and stores the new one as the newest attribute.
 *
 * Callbacks may call MPI, even the attribute calls on the same object, so
 * no pointer into the tables is kept across a callback but the attribute
 * being deleted, marked `dying` (invisible to lookups, freed only by the
 * call that marked it).
 */
#include "attr_impl.h"
#include "threads.h"
#include "spawn.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define KV_SLOT_BITS 16
#define KV_SLOTS_MAX (1 << KV_SLOT_BITS)   /* live keyvals per rank */
#define KV_GEN_MAX 32767                   /* keeps handles positive */
#define OBJ_BUCKETS_MIN 64

struct kv_slot {
    struct zm_mpi_keyval *kv;          /* the slot's live keyval, or NULL */
    int gen;                    /* generation of the slot's current (or next) keyval */
    int next_free;              /* next free slot, or -1 */
};

/* One attribute of one object. */
struct attr {
    struct attr *prev, *next;   /* the object's attributes, oldest first */
    struct attr_obj *owner;     /* the object entry holding it */
    struct zm_mpi_keyval *kv;          /* its key (holds a reference) */
    void *value;                /* the value set by the program */
    int dying;                  /* its delete callback is running */
};

/* The attributes of one object; exists only while it has some. */
struct attr_obj {
    struct attr_obj *chain;     /* next entry in the hash bucket */
    const void *obj;            /* the object (communicator, datatype or window) */
    int kind;                   /* ZM_ATTR_* */
    struct attr *first, *last;  /* attributes, oldest first */
};

/* One rank's keyvals and attributes. */
struct zm_mpi_attr_state {
    struct kv_slot *slots;      /* keyval table, indexed by slot */
    int nslots, cap;            /* slots in use (ever), allocated */
    int free_slot;              /* first reusable slot, or -1 */
    struct attr_obj **bucket;   /* objects with attributes, by address */
    size_t nbuckets, nobjs;
    /* Values of predefined attributes that change or differ between jobs;
     * the standard hands out pointers to them. */
    int lastused, universe;
};

/* Names by ZM_ATTR_* for messages. */
static const char *const kind_name[] = { "communicator", "datatype", "window" };
static const char *const kind_upper[] = { "COMM", "TYPE", "WIN" };
static const char *const kind_create[] = { "MPI_Comm_create_keyval", "MPI_Type_create_keyval",
                                           "MPI_Win_create_keyval" };

/* ---- State, keyvals and the object table ---------------------------------- */

/* A rank whose threads may call MPI at the same time (MPI_THREAD_MULTIPLE)
 * locks its attribute state in every call that uses it; the lock is
 * recursive, since callbacks run under it may call the attribute
 * functions.  Others pay one branch. */
static int attr_lock(zm_mpi_rank_t *me)
{
    if (me && zm_mpi_threads_concurrent(me)) {
        zm_mpi_rlock_take(&me->attr_lock);
        return 1;
    }
    return 0;
}

static void attr_unlock(zm_mpi_rank_t *me, int held)
{
    if (held)
        zm_mpi_rlock_drop(&me->attr_lock);
}

/* Define the internal call `name` (declared in attr_impl.h) as
 * `name`_unlocked called under the rank's attribute lock. */
#define LOCKED(ret, name, params, args)                                    \
    static ret name##_unlocked params;                                     \
    ret name params                                                        \
    {                                                                      \
        zm_mpi_rank_t *me_ = zm_mpi_me();                                  \
        int held_ = attr_lock(me_);                                        \
        ret r_ = name##_unlocked args;                                     \
        attr_unlock(me_, held_);                                           \
        return r_;                                                         \
    }

static struct zm_mpi_attr_state *state_get(zm_mpi_rank_t *me)
{
    if (ZM_LIKELY(me->attr != NULL))
        return me->attr;
    struct zm_mpi_attr_state *st = zm_core_obj_calloc(1, sizeof(*st));
    if (st)
        st->bucket = zm_core_obj_calloc(OBJ_BUCKETS_MIN, sizeof(*st->bucket));
    if (!st || !st->bucket) {
        zm_core_obj_free(st);
        return NULL;
    }
    st->nbuckets = OBJ_BUCKETS_MIN;
    st->free_slot = -1;
    me->attr = st;
    return st;
}

/* Make a keyval; returns its handle, or -1 if out of memory or handles. */
static int kv_new(struct zm_mpi_attr_state *st, const struct zm_mpi_keyval *proto)
{
    struct zm_mpi_keyval *kv = zm_core_obj_alloc(sizeof(*kv));
    if (!kv)
        return -1;
    int s = st->free_slot;
    if (s >= 0) {
        st->free_slot = st->slots[s].next_free;
    } else {
        if (st->nslots == KV_SLOTS_MAX)
            goto err_free_kv;
        if (st->nslots == st->cap) {
            int cap = st->cap ? 2 * st->cap : 16;
            struct kv_slot *n = zm_core_obj_realloc(st->slots, sizeof(*n) * (size_t)cap);
            if (!n)
                goto err_free_kv;
            st->slots = n;
            st->cap = cap;
        }
        s = st->nslots++;
        st->slots[s].gen = 1;
    }
    *kv = *proto;
    kv->id = (st->slots[s].gen << KV_SLOT_BITS) | s;
    kv->refs = 1;
    kv->freed = 0;
    st->slots[s].kv = kv;
    return kv->id;
err_free_kv:
    zm_core_obj_free(kv);
    return -1;
}

static void kv_unref(struct zm_mpi_attr_state *st, struct zm_mpi_keyval *kv)
{
    if (--kv->refs > 0)
        return;
    int s = kv->id & (KV_SLOTS_MAX - 1);
    st->slots[s].kv = NULL;
    /* A slot whose generations are used up is retired, never reused. */
    if (++st->slots[s].gen <= KV_GEN_MAX) {
        st->slots[s].next_free = st->free_slot;
        st->free_slot = s;
    }
    zm_core_obj_free(kv);
}

/* The live keyval with handle `id`, or NULL; *why says what is wrong. */
static struct zm_mpi_keyval *kv_lookup(struct zm_mpi_attr_state *st, int id, const char **why)
{
    int s = id & (KV_SLOTS_MAX - 1), gen = id >> KV_SLOT_BITS;
    if (id < KV_SLOTS_MAX || !st || s >= st->nslots || gen > st->slots[s].gen) {
        *why = id == MPI_KEYVAL_INVALID ? "MPI_KEYVAL_INVALID is not a key"
                                        : "not a key made by MPI_Comm/Type/Win_create_keyval";
        return NULL;
    }
    *why = "the key was freed and no attribute uses it any more";
    return gen == st->slots[s].gen ? st->slots[s].kv : NULL;
}

static size_t obj_hash(const void *obj, size_t nbuckets)
{
    uint64_t h = (uint64_t)(uintptr_t)obj * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 32) & (nbuckets - 1);
}

static struct attr_obj *obj_find(struct zm_mpi_attr_state *st, int kind, const void *obj)
{
    struct attr_obj *o = st->bucket[obj_hash(obj, st->nbuckets)];
    while (o && (o->obj != obj || o->kind != kind))
        o = o->chain;
    return o;
}

/* Take object entry o out of its bucket (it stays allocated). */
static void obj_unlink(struct zm_mpi_attr_state *st, struct attr_obj *o)
{
    struct attr_obj **p = &st->bucket[obj_hash(o->obj, st->nbuckets)];
    while (*p != o)
        p = &(*p)->chain;
    *p = o->chain;
}

void zm_mpi_attr_moved(zm_mpi_rank_t *me, const void *old_world, const void *old_self)
{
    struct zm_mpi_attr_state *st = me->attr;
    if (!st)
        return;
    /* Both out first: an old address may be a new one here. */
    struct attr_obj *w = obj_find(st, ZM_ATTR_COMM, old_world);
    if (w)
        obj_unlink(st, w);
    struct attr_obj *s = obj_find(st, ZM_ATTR_COMM, old_self);
    if (s)
        obj_unlink(st, s);
    struct attr_obj *o[2] = { w, s };
    const void *to[2] = { &me->world, &me->self };
    for (int i = 0; i < 2; i++) {
        if (!o[i])
            continue;
        o[i]->obj = to[i];
        size_t h = obj_hash(to[i], st->nbuckets);
        o[i]->chain = st->bucket[h];
        st->bucket[h] = o[i];
    }
}

/* Double the hash table when it holds twice as many objects as buckets;
 * if that fails the chains just grow longer. */
static void obj_grow(struct zm_mpi_attr_state *st)
{
    size_t n = st->nbuckets * 2;
    struct attr_obj **b = zm_core_obj_calloc(n, sizeof(*b));
    if (!b)
        return;
    for (size_t i = 0; i < st->nbuckets; i++) {
        struct attr_obj *o = st->bucket[i], *next;
        for (; o; o = next) {
            next = o->chain;
            size_t h = obj_hash(o->obj, n);
            o->chain = b[h];
            b[h] = o;
        }
    }
    zm_core_obj_free(st->bucket);
    st->bucket = b;
    st->nbuckets = n;
}

/* The entry of an object, made if it has none; NULL if out of memory. */
static struct attr_obj *obj_get(struct zm_mpi_attr_state *st, int kind, const void *obj)
{
    struct attr_obj *o = obj_find(st, kind, obj);
    if (o)
        return o;
    if (st->nobjs >= 2 * st->nbuckets)
        obj_grow(st);
    o = zm_core_obj_calloc(1, sizeof(*o));
    if (!o)
        return NULL;
    o->obj = obj;
    o->kind = kind;
    size_t h = obj_hash(obj, st->nbuckets);
    o->chain = st->bucket[h];
    st->bucket[h] = o;
    st->nobjs++;
    return o;
}

static void obj_remove(struct zm_mpi_attr_state *st, struct attr_obj *o)
{
    struct attr_obj **p = &st->bucket[obj_hash(o->obj, st->nbuckets)];
    while (*p != o)
        p = &(*p)->chain;
    *p = o->chain;
    st->nobjs--;
    zm_core_obj_free(o);
}

/* ---- Attributes ------------------------------------------------------------- */

static struct attr *attr_find(struct attr_obj *o, const struct zm_mpi_keyval *kv)
{
    struct attr *a = o ? o->first : NULL;
    while (a && (a->kv != kv || a->dying))
        a = a->next;
    return a;
}

/* The newest attribute of an object whose delete is not running. */
static struct attr *attr_newest(struct zm_mpi_attr_state *st, int kind, const void *obj)
{
    struct attr_obj *o = obj_find(st, kind, obj);
    struct attr *a = o ? o->last : NULL;
    while (a && a->dying)
        a = a->prev;
    return a;
}

/* Link `a` (allocated by the caller) as the newest attribute of o. */
static void attr_link(struct attr_obj *o, struct attr *a, struct zm_mpi_keyval *kv, void *value)
{
    a->owner = o;
    a->kv = kv;
    a->value = value;
    a->dying = 0;
    a->next = NULL;
    a->prev = o->last;
    if (o->last)
        o->last->next = a;
    else
        o->first = a;
    o->last = a;
    kv->refs++;
}

/* Unlink and free an attribute, dropping its key and, when it was the
 * last one, the object's entry. */
static void attr_unlink_free(struct zm_mpi_attr_state *st, struct attr *a)
{
    struct attr_obj *o = a->owner;
    if (a->prev)
        a->prev->next = a->next;
    else
        o->first = a->next;
    if (a->next)
        a->next->prev = a->prev;
    else
        o->last = a->prev;
    kv_unref(st, a->kv);
    zm_core_obj_free(a);
    if (!o->first)
        obj_remove(st, o);
}

/* The handle a callback gets for an object: MPI_COMM_WORLD and
 * MPI_COMM_SELF are constants, not the rank's communicator objects. */
static void *obj_handle(zm_mpi_rank_t *me, int kind, const void *obj)
{
    if (kind == ZM_ATTR_COMM && obj == &me->world)
        return MPI_COMM_WORLD;
    if (kind == ZM_ATTR_COMM && obj == &me->self)
        return MPI_COMM_SELF;
    return (void *)obj;
}

/* The error code an MPI call returns for a callback's failure `rc`: the
 * callback's own code when it is a valid error code, else MPI_ERR_OTHER. */
static int callback_code(int rc)
{
    return rc > 0 && rc <= zm_mpi_last_used_code() ? rc : MPI_ERR_OTHER;
}

static int call_delete(void *h, const struct zm_mpi_keyval *kv, void *value)
{
    switch (kv->kind) {
    case ZM_ATTR_COMM: return kv->del.comm((MPI_Comm)h, kv->id, value, kv->extra);
    case ZM_ATTR_TYPE: return kv->del.type((MPI_Datatype)h, kv->id, value, kv->extra);
    default: return kv->del.win((MPI_Win)h, kv->id, value, kv->extra);
    }
}

static int call_copy(void *h, const struct zm_mpi_keyval *kv, void *in, void *out, int *flag)
{
    switch (kv->kind) {
    case ZM_ATTR_COMM: return kv->copy.comm((MPI_Comm)h, kv->id, kv->extra, in, out, flag);
    case ZM_ATTR_TYPE: return kv->copy.type((MPI_Datatype)h, kv->id, kv->extra, in, out, flag);
    default: return kv->copy.win((MPI_Win)h, kv->id, kv->extra, in, out, flag);
    }
}

/* Delete one attribute through its callback.  On failure the attribute
 * stays, and the callback's code (made valid) is returned. */
static int attr_delete_one(zm_mpi_rank_t *me, struct zm_mpi_attr_state *st, struct attr *a)
{
    a->dying = 1;
    int rc = call_delete(obj_handle(me, a->owner->kind, a->owner->obj), a->kv, a->value);
    if (rc != MPI_SUCCESS) {
        a->dying = 0;
        return callback_code(rc);
    }
    attr_unlink_free(st, a);
    return MPI_SUCCESS;
}

/* Contract in mpi_impl.h. */
static int attr_free_all_unlocked(int kind, void *obj);

int zm_mpi_attr_free_all(int kind, void *obj)
{
    zm_mpi_rank_t *me = zm_mpi_me();
    int held = attr_lock(me);
    int rc = attr_free_all_unlocked(kind, obj);
    attr_unlock(me, held);
    return rc;
}

static int attr_free_all_unlocked(int kind, void *obj)
{
    zm_mpi_rank_t *me = zm_mpi_me();
    struct zm_mpi_attr_state *st = me ? me->attr : NULL;
    if (!st)
        return MPI_SUCCESS;
    /* Newest first; looked up afresh each time, since a callback may add or
     * delete attributes of the object. */
    struct attr *a;
    while ((a = attr_newest(st, kind, obj)) != NULL) {
        int rc = attr_delete_one(me, st, a);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* Undo a failed duplication: delete what was copied to `obj`, calling the
 * delete callbacks (copied values may own memory) and ignoring their
 * errors, since the object is about to be freed anyway. */
static void attr_rollback(zm_mpi_rank_t *me, struct zm_mpi_attr_state *st, int kind,
                          const void *obj)
{
    struct attr *a;
    while ((a = attr_newest(st, kind, obj)) != NULL) {
        a->dying = 1;
        call_delete(obj_handle(me, kind, obj), a->kv, a->value);
        attr_unlink_free(st, a);
    }
}

/* A snapshot of an object's attributes, oldest first, each key held. */
static int attr_snapshot(struct attr_obj *o, struct attr **out)
{
    int n = 0;
    for (struct attr *a = o->first; a; a = a->next)
        n += !a->dying;
    struct attr *snap = zm_core_obj_alloc(sizeof(*snap) * (size_t)(n ? n : 1));
    if (!snap)
        return -1;
    n = 0;
    for (struct attr *a = o->first; a; a = a->next) {
        if (a->dying)
            continue;
        snap[n].kv = a->kv;
        snap[n].value = a->value;
        a->kv->refs++;
        n++;
    }
    *out = snap;
    return n;
}

/* Contract in mpi_impl.h. */
static int attr_dup_unlocked(int kind, void *old_obj, void *new_obj);

int zm_mpi_attr_dup(int kind, void *old_obj, void *new_obj)
{
    zm_mpi_rank_t *me = zm_mpi_me();
    int held = attr_lock(me);
    int rc = attr_dup_unlocked(kind, old_obj, new_obj);
    attr_unlock(me, held);
    return rc;
}

static int attr_dup_unlocked(int kind, void *old_obj, void *new_obj)
{
    zm_mpi_rank_t *me = zm_mpi_me();
    struct zm_mpi_attr_state *st = me ? me->attr : NULL;
    struct attr_obj *o = st ? obj_find(st, kind, old_obj) : NULL;
    if (!o)
        return MPI_SUCCESS;
    /* Callbacks run on a snapshot, so that one changing the old object's
     * attributes does not disturb the walk. */
    struct attr *snap;
    int n = attr_snapshot(o, &snap), rc = n < 0 ? MPI_ERR_NO_MEM : MPI_SUCCESS;
    void *h = obj_handle(me, kind, old_obj);
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        struct attr *a = zm_core_obj_alloc(sizeof(*a));
        void *out = NULL;
        int flag = 0;
        if (!a) {
            rc = MPI_ERR_NO_MEM;
            break;
        }
        rc = call_copy(h, snap[i].kv, snap[i].value, &out, &flag);
        struct attr_obj *no = rc == MPI_SUCCESS && flag ? obj_get(st, kind, new_obj) : NULL;
        if (no)
            attr_link(no, a, snap[i].kv, out);
        else
            zm_core_obj_free(a);
        if (rc != MPI_SUCCESS)
            rc = callback_code(rc);
        else if (flag && !no)
            rc = MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < n; i++)
        kv_unref(st, snap[i].kv);
    if (n >= 0)
        zm_core_obj_free(snap);
    if (rc != MPI_SUCCESS)
        attr_rollback(me, st, kind, new_obj);
    return rc;
}

/* ---- Predefined attributes -------------------------------------------------- */

/* Value of a predefined communicator attribute, or NULL if `keyval` is not
 * one.  They are attached to every communicator, not only MPI_COMM_WORLD:
 * portable codes ask their own communicators for MPI_TAG_UB. */
static void *comm_predefined(struct zm_mpi_attr_state *st, int keyval)
{
    /* Constants of the job, the same for every rank (the standard hands
     * out pointers, so they need storage). */
    static int tag_ub = ZM_TAG_UB, host = MPI_PROC_NULL, io = MPI_ANY_SOURCE, wtime_global = 1;
    switch (keyval) {
    case MPI_TAG_UB: return &tag_ub;
    case MPI_HOST: return &host;
    /* Every rank can do C and Fortran I/O. */
    case MPI_IO: return &io;
    /* All ranks read one clock, that of the process. */
    case MPI_WTIME_IS_GLOBAL: return &wtime_global;
    /* One program started by zmpirun (no MPMD): application number 0;
     * a spawned rank's is its command's index (spawn.c). */
    case MPI_APPNUM: return zm_mpi_spawn_appnum();
    case MPI_UNIVERSE_SIZE:
        st->universe = zm_ult_count();
        return &st->universe;
    case MPI_LASTUSEDCODE:
        st->lastused = zm_mpi_last_used_code();
        return &st->lastused;
    default: return NULL;
    }
}

/* Value of a predefined window attribute; *found says whether `keyval` is
 * one.  MPI_WIN_BASE's value is the base itself, the others point to the
 * value. */
static void *win_predefined(struct zmpi_win *w, int keyval, int *found)
{
    *found = 1;
    switch (keyval) {
    case MPI_WIN_BASE: return w->attr_base;
    case MPI_WIN_SIZE: return &w->attr_size;
    case MPI_WIN_DISP_UNIT: return &w->attr_disp_unit;
    case MPI_WIN_CREATE_FLAVOR: return &w->attr_flavor;
    case MPI_WIN_MODEL: return &w->attr_model;
    default: *found = 0; return NULL;
    }
}

static int is_predefined(int kind, int keyval)
{
    if (kind == ZM_ATTR_COMM)
        return keyval >= MPI_TAG_UB && keyval <= MPI_LASTUSEDCODE;
    return kind == ZM_ATTR_WIN && keyval >= MPI_WIN_BASE && keyval <= MPI_WIN_MODEL;
}

/* ---- The generic calls, shared by the three object kinds ------------------ */

/* Raise an error on the target's handler. */
__attribute__((format(printf, 4, 5)))
static int t_error(const struct zm_mpi_attr_target *t, int cls, const char *fn,
                   const char *fmt, ...)
{
    char msg[180];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (t->kind == ZM_ATTR_WIN && t->obj)
        return zm_mpi_win_error((struct zmpi_win *)t->obj, cls, fn, "%s", msg);
    return zm_mpi_error(t->errc, cls, fn, "%s", msg);
}

/* Resolve a user key for a call on t.  `for_new` refuses a key the program
 * already freed (it may still read and delete the attributes that keep
 * such a key alive, but not add any or free it twice).  Returns
 * MPI_SUCCESS with *kv set, or the raised error. */
static int check_keyval(const struct zm_mpi_attr_target *t, const char *fn, int keyval, int for_new,
                        struct zm_mpi_keyval **kv)
{
    const char *why;
    *kv = kv_lookup(zm_mpi_me()->attr, keyval, &why);
    if (!*kv)
        return t_error(t, MPI_ERR_KEYVAL, fn, "(keyval=%d): %s", keyval, why);
    int k = (*kv)->kind;
    if (k != t->kind)
        return t_error(t, MPI_ERR_KEYVAL, fn, "(keyval=%d): a %s key (made by %s), not a %s key",
                       keyval, kind_name[k], kind_create[k], kind_name[t->kind]);
    if (for_new && (*kv)->freed)
        return t_error(t, MPI_ERR_KEYVAL, fn, "(keyval=%d): the key was freed", keyval);
    return MPI_SUCCESS;
}

static int refuse_predefined(const struct zm_mpi_attr_target *t, const char *fn, int keyval)
{
    return t_error(t, MPI_ERR_KEYVAL, fn, "(keyval=%d): predefined attributes cannot be set, "
                   "deleted or freed", keyval);
}

/* Delete the object's attribute of kv before a new value is stored, as if
 * MPI_*_delete_attr were called (MPI 4.1 section 7.7.2).  The key is held
 * across the callback, which may free it or set the key again.  Returns
 * MPI_SUCCESS or the raised error. */
static int attr_clear_for_set(const struct zm_mpi_attr_target *t, const char *fn, int keyval,
                              struct zm_mpi_keyval *kv)
{
    zm_mpi_rank_t *me = zm_mpi_me();
    struct zm_mpi_attr_state *st = me->attr;
    struct attr *old;
    int rc = MPI_SUCCESS;
    kv->refs++;
    while (rc == MPI_SUCCESS && (old = attr_find(obj_find(st, t->kind, t->obj), kv)) != NULL) {
        rc = attr_delete_one(me, st, old);
        if (rc != MPI_SUCCESS)
            rc = t_error(t, rc, fn, "(keyval=%d): the delete callback of the old value "
                         "failed with error %d; the old value stays", keyval, rc);
    }
    if (rc == MPI_SUCCESS && kv->freed)
        rc = t_error(t, MPI_ERR_KEYVAL, fn, "(keyval=%d): the delete callback freed the key",
                     keyval);
    kv_unref(st, kv);
    return rc;
}

LOCKED(int, zm_mpi_attr_set,
       (const struct zm_mpi_attr_target *t, const char *fn, int keyval, void *value),
       (t, fn, keyval, value))

static int zm_mpi_attr_set_unlocked(const struct zm_mpi_attr_target *t, const char *fn,
                                    int keyval, void *value)
{
    if (is_predefined(t->kind, keyval))
        return refuse_predefined(t, fn, keyval);
    struct zm_mpi_keyval *kv;
    int rc = check_keyval(t, fn, keyval, 1, &kv);
    if (rc == MPI_SUCCESS)
        rc = attr_clear_for_set(t, fn, keyval, kv);
    if (rc != MPI_SUCCESS)
        return rc;
    struct zm_mpi_attr_state *st = zm_mpi_me()->attr;
    struct attr *a = zm_core_obj_alloc(sizeof(*a));
    struct attr_obj *o = a ? obj_get(st, t->kind, t->obj) : NULL;
    if (!o) {
        zm_core_obj_free(a);
        return t_error(t, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    attr_link(o, a, kv, value);
    return MPI_SUCCESS;
}

static int check_get_args(const struct zm_mpi_attr_target *t, const char *fn, void *value,
                          int *flag)
{
    if (value && flag)
        return MPI_SUCCESS;
    return t_error(t, MPI_ERR_ARG, fn, "(%s=NULL): output argument is NULL",
                   value ? "flag" : "attribute_val");
}

/* A user key's attribute; the caller holds the rank's attribute lock. */
static int get_user(const struct zm_mpi_attr_target *t, const char *fn, int keyval, void *value,
                    int *flag)
{
    struct zm_mpi_keyval *kv;
    int rc = check_keyval(t, fn, keyval, 0, &kv);
    if (rc != MPI_SUCCESS)
        return rc;
    struct attr *a = attr_find(obj_find(zm_mpi_me()->attr, t->kind, t->obj), kv);
    *flag = a != NULL;
    if (a)
        *(void **)value = a->value;
    return MPI_SUCCESS;
}

int zm_mpi_attr_get(const struct zm_mpi_attr_target *t, const char *fn, int keyval, void *value,
                    int *flag)
{
    int rc = check_get_args(t, fn, value, flag);
    if (rc != MPI_SUCCESS)
        return rc;
    int found = 0;
    if (t->kind == ZM_ATTR_WIN) {
        void *v = win_predefined((struct zmpi_win *)t->obj, keyval, &found);
        if (found) {
            *(void **)value = v;
            *flag = 1;
            return MPI_SUCCESS;
        }
    }
    zm_mpi_rank_t *me = zm_mpi_me();
    int held = attr_lock(me);
    if (!is_predefined(t->kind, keyval)) {
        rc = get_user(t, fn, keyval, value, flag);
    } else {
        struct zm_mpi_attr_state *st = state_get(me);
        if (st) {
            *(void **)value = comm_predefined(st, keyval);
            *flag = 1;
        } else {
            rc = t_error(t, MPI_ERR_NO_MEM, fn, "out of memory");
        }
    }
    attr_unlock(me, held);
    return rc;
}

/* Deleting a key the object has no attribute for does nothing: the
 * standard does not make it an error. */
LOCKED(int, zm_mpi_attr_delete, (const struct zm_mpi_attr_target *t, const char *fn, int keyval),
       (t, fn, keyval))

static int zm_mpi_attr_delete_unlocked(const struct zm_mpi_attr_target *t, const char *fn,
                                       int keyval)
{
    zm_mpi_rank_t *me = zm_mpi_me();
    if (is_predefined(t->kind, keyval))
        return refuse_predefined(t, fn, keyval);
    struct zm_mpi_keyval *kv;
    int rc = check_keyval(t, fn, keyval, 0, &kv);
    if (rc != MPI_SUCCESS)
        return rc;
    struct attr *a = attr_find(obj_find(me->attr, t->kind, t->obj), kv);
    if (a && (rc = attr_delete_one(me, me->attr, a)) != MPI_SUCCESS)
        return t_error(t, rc, fn, "(keyval=%d): the delete callback failed with error %d; the "
                       "attribute stays", keyval, rc);
    return MPI_SUCCESS;
}

/* Make a key of `kind`; `copy`/`del` are the callbacks as generic pointers,
 * checked here and stored by the caller's `proto`. */
LOCKED(int, zm_mpi_attr_keyval_create,
       (const char *fn, struct zm_mpi_keyval *proto, const void *copy, const void *del,
        int *keyval),
       (fn, proto, copy, del, keyval))

static int zm_mpi_attr_keyval_create_unlocked(const char *fn, struct zm_mpi_keyval *proto,
                                              const void *copy, const void *del, int *keyval)
{
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    if (!copy || !del)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(%s=NULL): use MPI_%s_NULL_%s_FN for no "
                            "callback", copy ? "delete_fn" : "copy_fn", kind_upper[proto->kind],
                            copy ? "DELETE" : "COPY");
    if (!keyval)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(keyval=NULL): output argument is NULL");
    struct zm_mpi_attr_state *st = state_get(me);
    int id = st ? kv_new(st, proto) : -1;
    if (id < 0)
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory (or %d keys in use)",
                            KV_SLOTS_MAX);
    *keyval = id;
    return MPI_SUCCESS;
}

LOCKED(int, zm_mpi_attr_keyval_free, (const char *fn, int kind, int *keyval), (fn, kind, keyval))

static int zm_mpi_attr_keyval_free_unlocked(const char *fn, int kind, int *keyval)
{
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    struct zm_mpi_attr_target t = { kind, NULL, NULL };
    if (!keyval)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(keyval=NULL): argument is NULL");
    if (is_predefined(kind, *keyval))
        return refuse_predefined(&t, fn, *keyval);
    struct zm_mpi_keyval *kv;
    int rc = check_keyval(&t, fn, *keyval, 1, &kv);
    if (rc != MPI_SUCCESS)
        return rc;
    /* Attributes still using the key keep it alive (MPI 4.1 section 7.7.2). */
    kv->freed = 1;
    *keyval = MPI_KEYVAL_INVALID;
    kv_unref(me->attr, kv);
    return MPI_SUCCESS;
}

/* ---- MPI_Finalize ----------------------------------------------------------- */

/* Free everything left without callbacks: attributes of objects the
 * program never freed can no longer be read once MPI is finalized. */
static void state_destroy(zm_mpi_rank_t *me)
{
    struct zm_mpi_attr_state *st = me->attr;
    for (size_t i = 0; i < st->nbuckets; i++) {
        struct attr_obj *o = st->bucket[i], *next_o;
        for (; o; o = next_o) {
            next_o = o->chain;
            struct attr *a = o->first, *next_a;
            for (; a; a = next_a) {
                next_a = a->next;
                zm_core_obj_free(a);
            }
            zm_core_obj_free(o);
        }
    }
    for (int s = 0; s < st->nslots; s++)
        zm_core_obj_free(st->slots[s].kv);
    zm_core_obj_free(st->slots);
    zm_core_obj_free(st->bucket);
    zm_core_obj_free(st);
    me->attr = NULL;
}

int zm_mpi_attr_finalize(void)
{
    zm_mpi_rank_t *me = zm_mpi_me();
    if (!me || !me->attr)
        return MPI_SUCCESS;
    /* MPI_COMM_SELF first, as if freed (MPI 4.1 section 11.2.4); then
     * MPI_COMM_WORLD, as MPICH does, so that values cached there can
     * release what they own. */
    int rc = zm_mpi_attr_free_all(ZM_ATTR_COMM, &me->self);
    int rc_world = zm_mpi_attr_free_all(ZM_ATTR_COMM, &me->world);
    state_destroy(me);
    return rc != MPI_SUCCESS ? rc : rc_world;
}
