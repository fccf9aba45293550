/*
 * handle.c: conversion between C handles and Fortran integer handles (MPI
 * 4.1 section 19.3.4), and between C, Fortran and Fortran 2008 statuses
 * (section 19.3.5).
 *
 * C handles are pointers; a Fortran handle is an MPI_Fint index into one
 * table per kind of handle.  The tables are job-wide: predefined handles
 * (MPI_INT, MPI_SUM, MPI_COMM_WORLD, which is the constant 1 in every rank)
 * are shared by all ranks and must have one value.  Index 0 is the NULL
 * handle of every kind and the predefined handles take the fixed indices
 * 1, 2, ... in the order documented in mpi.h, so a Fortran binding can
 * write them down as constants.  Any other handle gets the next index on
 * its first c2f.  Communicators and requests are objects of one rank: the
 * index of one is meaningful only in the rank that converted it, as in an
 * MPI of processes.
 *
 * f2c is the call on every Fortran binding's path, so it takes no lock:
 * the first FAST_SLOTS indices are a flat array inside the table (one
 * indexed acquire load, plus the inlined liveness check of a user handle),
 * and the slots above live in segments that never move (segment k holds
 * 64 << k slots), also read with acquire loads.  c2f finds a handle's
 * index in an open-addressing map keyed by the pointer, read without the
 * lock too: writers (holding the kind's spinlock) bracket each change with
 * a sequence count, and a reader whose count changed, or that did not find
 * the handle, asks again under the lock.  In front of the map, a small
 * table of hints (an index per hash of the pointer, written by c2f after
 * every lookup of the map) answers the handles converted again and again:
 * the requests of a Fortran program's nonblocking calls, which the pools
 * hand out at the same few addresses, get their index from the hint once
 * the flat array confirms it (the slot holds the same pointer).
 *
 * Freed objects.  A freed object's index stays mapped to its dead pointer
 * until the object's free path calls zm_mpi_handle_forget, which clears the
 * slot (f2c then returns the NULL handle) and lets the index be reused.
 * Without that call f2c checks the object itself, which tells reliably
 * only where freeing leaves a mark the compiler cannot drop:
 * communicators (kept on a free list with their magic cleared), datatypes
 * (flagged freed by MPI_Type_free) and operations (magic cleared by a
 * volatile store).  Other objects returned to malloc may keep their old
 * contents (the compiler drops a plain magic-clearing store just before
 * free()), so their stale index can still answer the dead pointer, and
 * f2c reads freed memory to find out; requests and messages
 * come from pools and carry no magic at all.  If a new object of the same
 * kind reuses a freed object's address, it answers to the old index, as
 * its C handle equals the old one.
 */
#include "mpi_impl.h"

#include "bind_hooks.h"

#include "file_impl.h"
#include "session.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- What differs between kinds ----------------------------------------- */

static int valid_comm(const void *h)
{
    return ((const struct zmpi_comm *)h)->magic == ZM_COMM_MAGIC;
}

static int valid_group(const void *h)
{
    return ((const struct zmpi_group *)h)->magic == ZM_GROUP_MAGIC;
}

static int valid_type(const void *h)
{
    return zm_dt_valid(h) && !((const zm_dt_t *)h)->freed;
}

static int valid_request(const void *h)
{
    int k = ((const zm_req_t *)h)->kind;
    return (k >= ZM_REQ_SEND && k <= ZM_REQ_DONE_ONLY) || k == ZM_REQ_SCHED;
}

static int valid_op(const void *h)
{
    return zm_op_valid(h);
}

static int valid_errhandler(const void *h)
{
    return ((const struct zmpi_errhandler *)h)->magic == ZM_EH_MAGIC;
}

static int valid_info(const void *h)
{
    return ((const struct zmpi_info *)h)->magic == ZM_INFO_MAGIC;
}

static int valid_win(const void *h)
{
    return ((const struct zmpi_win *)h)->magic == ZM_WIN_MAGIC;
}

static int valid_file(const void *h)
{
    return ((const struct zmpi_file *)h)->magic == ZM_FILE_MAGIC;
}

static int valid_message(const void *h)
{
    int k = ((const zm_msg_t *)h)->kind;
    return k >= ZM_MSG_EAGER && k <= ZM_MSG_MAIL;
}

/* Every kind of handle: its name in the API (MPI_<Name>_c2f), C type,
 * description, error class of an invalid handle, and the check of a
 * non-predefined handle.  MPI_File and MPI_Session, when they come, are
 * one line each here (with a check, and a case in predefined() if they
 * have predefined handles). */
#define HANDLE_KINDS(X)                                                          \
    X(Comm, MPI_Comm, "communicator", MPI_ERR_COMM, valid_comm)                 \
    X(Group, MPI_Group, "group", MPI_ERR_GROUP, valid_group)                    \
    X(Type, MPI_Datatype, "datatype", MPI_ERR_TYPE, valid_type)                 \
    X(Request, MPI_Request, "request", MPI_ERR_REQUEST, valid_request)          \
    X(Op, MPI_Op, "operation", MPI_ERR_OP, valid_op)                            \
    X(Errhandler, MPI_Errhandler, "error handler", MPI_ERR_ERRHANDLER, valid_errhandler) \
    X(Info, MPI_Info, "info object", MPI_ERR_INFO, valid_info)                  \
    X(Win, MPI_Win, "window", MPI_ERR_WIN, valid_win)                           \
    X(Message, MPI_Message, "message", MPI_ERR_REQUEST, valid_message)        \
    X(File, MPI_File, "file", MPI_ERR_FILE, valid_file)                        \
    X(Session, MPI_Session, "session", MPI_ERR_SESSION, zm_mpi_session_valid)

#define KIND_ENUM(Name, CType, what, err, valid) HK_##Name,
enum { HANDLE_KINDS(KIND_ENUM) HK_COUNT };

typedef struct kind_desc {
    const char *what;              /* the kind, for messages */
    int err;                       /* error class of an invalid handle */
    int (*valid)(const void *h);   /* whether a non-predefined h looks alive */
} kind_desc_t;

#define KIND_DESC(Name, CType, what, err, valid) [HK_##Name] = { what, err, valid },
static const kind_desc_t kinds[HK_COUNT] = { HANDLE_KINDS(KIND_DESC) };

#define COUNT_ONE(name) +1
enum { N_PREDEF_TYPES = 0 ZMPI_DT_LIST(COUNT_ONE), MAX_PREDEF = 128 };
_Static_assert(N_PREDEF_TYPES < MAX_PREDEF, "more predefined datatypes than MAX_PREDEF");

/* Fill `out` with the predefined handles of `kind` in the order of their
 * fixed Fortran values 1, 2, ...; returns how many.  Appending keeps the
 * values already handed out; inserting would change them. */
static int predefined(int kind, const void **out)
{
    int n = 0;
#define PUT(h) out[n++] = (const void *)(h);
    switch (kind) {
    case HK_Comm:
        PUT(MPI_COMM_WORLD) PUT(MPI_COMM_SELF)
        break;
    case HK_Group:
        PUT(MPI_GROUP_EMPTY)
        break;
    case HK_Type:
        ZMPI_DT_LIST(PUT)
        break;
    case HK_Op:
        ZMPI_OP_LIST(PUT)
        break;
    case HK_Errhandler:
        PUT(MPI_ERRORS_ARE_FATAL) PUT(MPI_ERRORS_RETURN) PUT(MPI_ERRORS_ABORT)
        break;
    case HK_Info:
#ifdef MPI_INFO_ENV
        PUT(MPI_INFO_ENV)
#endif
        break;
    case HK_Message:
        PUT(MPI_MESSAGE_NO_PROC)
        break;
    }
#undef PUT
    return n;
}

/* ---- The tables ----------------------------------------------------------- */

#define SEG0_BITS 6  /* segment 0 holds 64 slots, each next one twice as many */
#define NSEG 26      /* 64 * (2^26 - 1) slots: more than MPI_Fint can index */

typedef _Atomic(const void *) slot_t;

/* The first FAST_SLOTS indices of every kind are also kept in a flat array
 * inside the table (segments of the slots above), so that f2c of a usual
 * handle is one indexed load: no lock, no call, no allocation to wait for.
 * It holds the predefined datatypes (about 70) and a few hundred user
 * handles per kind. */
#define FAST_SLOTS 1024

/* Hints of c2f: an index per hash of the handle (HINT_BITS bits of it). */
#define HINT_BITS 8

typedef struct htable {
    slot_t fast[FAST_SLOTS];       /* copies of slots 0..FAST_SLOTS-1 (f2c's) */
    /* c2f's hints: the index (below FAST_SLOTS) a handle of this hash had
     * last, 0 for none; right only when fast[] confirms it.  Any thread
     * writes them, relaxed, without the lock. */
    _Atomic uint32_t hint[1u << HINT_BITS];
    uint32_t npredef_f2c;          /* npredef, written before the slots */
    zm_spinlock_t lock;            /* guards everything f2c does not read */
    _Atomic int ready;             /* predefined handles entered (acquire) */
    uint32_t npredef;              /* indices 1..npredef are predefined */
    uint32_t next;                 /* next index never handed out */
    _Atomic(slot_t *) seg[NSEG];   /* slot segments, allocated on demand */
    uintptr_t *keys;               /* c2f map: handle, 0 for an empty entry */
    uint32_t *vals;                /* c2f map: index of keys[i] */
    size_t cap, used;              /* map capacity (a power of two), entries */
    /* c2f's lock-free reads: keys as published (its block also holds cap
     * and vals, see map_alloc) and a sequence count, odd while a writer
     * changes the map.  Replaced blocks are kept (retired), never freed,
     * as a reader may still probe them; they total less than the live
     * one, as each is half the size of the next. */
    _Atomic(uintptr_t *) pub_keys;
    _Atomic unsigned seq;
    uintptr_t *retired[40];
    int nretired;
    uint32_t *spare;               /* indices of forgotten handles, for reuse */
    size_t nspare, capspare;       /* entries and capacity of spare */
    _Atomic int nuser;             /* non-predefined handles mapped */
} htable_t;

static htable_t tables[HK_COUNT];

/* Nonzero once any table maps a non-predefined handle: until then
 * zm_mpi_handle_forget, which every free path may call, costs one load. */
static _Atomic int any_user;

static void locate(uint32_t i, uint32_t *k, uint32_t *off)
{
    uint32_t j = (i >> SEG0_BITS) + 1;
    *k = 31u - (uint32_t)__builtin_clz(j);
    *off = i - (((1u << *k) - 1u) << SEG0_BITS);
}

/* The handle in slot i, or NULL.  Any thread, no lock. */
static const void *slot_get(htable_t *t, uint32_t i)
{
    if (i < FAST_SLOTS)
        return atomic_load_explicit(&t->fast[i], memory_order_acquire);
    uint32_t k, off;
    locate(i, &k, &off);
    if (k >= NSEG)
        return NULL;
    slot_t *s = atomic_load_explicit(&t->seg[k], memory_order_acquire);
    return s ? atomic_load_explicit(&s[off], memory_order_acquire) : NULL;
}

/* Store h in slot i, allocating its segment.  Returns 0 if out of memory.
 * Lock held. */
static int slot_put(htable_t *t, uint32_t i, const void *h)
{
    if (i < FAST_SLOTS) {
        atomic_store_explicit(&t->fast[i], h, memory_order_release);
        return 1;
    }
    uint32_t k, off;
    locate(i, &k, &off);
    slot_t *s = atomic_load_explicit(&t->seg[k], memory_order_relaxed);
    if (!s) {
        s = calloc((size_t)1 << (SEG0_BITS + k), sizeof(slot_t));
        if (!s)
            return 0;
        atomic_store_explicit(&t->seg[k], s, memory_order_release);
    }
    atomic_store_explicit(&s[off], h, memory_order_release);
    return 1;
}

static size_t hash_cap(size_t cap, uintptr_t key)
{
    return (size_t)(((uint64_t)key * 0x9E3779B97F4A7C15ull) >> 17) & (cap - 1);
}

static size_t map_hash(const htable_t *t, uintptr_t key)
{
    return hash_cap(t->cap, key);
}

/* Writers bracket every change of the map (lock held) so that a lock-free
 * reader can tell that what it read may be torn. */
static void map_write_begin(htable_t *t)
{
    unsigned s = atomic_load_explicit(&t->seq, memory_order_relaxed);
    atomic_store_explicit(&t->seq, s + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
}

static void map_write_end(htable_t *t)
{
    unsigned s = atomic_load_explicit(&t->seq, memory_order_relaxed);
    atomic_store_explicit(&t->seq, s + 1, memory_order_release);
}

/* Entries are stored with atomic stores: lock-free readers load them. */
static void map_set(htable_t *t, size_t i, uintptr_t key, uint32_t val)
{
    __atomic_store_n(&t->vals[i], val, __ATOMIC_RELAXED);
    __atomic_store_n(&t->keys[i], key, __ATOMIC_RELAXED);
}

/* c2f's lookup without the lock: 1 and the index of key (0: not mapped)
 * in *idx if no writer changed the map meanwhile, else 0 (the caller then
 * takes the lock).  Any thread. */
static int map_get_nolock(htable_t *t, uintptr_t key, uint32_t *idx)
{
    unsigned s0 = atomic_load_explicit(&t->seq, memory_order_acquire);
    uintptr_t *keys = atomic_load_explicit(&t->pub_keys, memory_order_acquire);
    if ((s0 & 1) || !keys)
        return 0;
    size_t cap = keys[-1];
    const uint32_t *vals = (const uint32_t *)(keys + cap);
    uint32_t v = 0;
    for (size_t i = hash_cap(cap, key), n = 0; n < cap; i = (i + 1) & (cap - 1), n++) {
        uintptr_t k = __atomic_load_n(&keys[i], __ATOMIC_RELAXED);
        if (k == key) {
            v = __atomic_load_n(&vals[i], __ATOMIC_RELAXED);
            break;
        }
        if (!k)
            break;
    }
    atomic_thread_fence(memory_order_acquire);
    if (atomic_load_explicit(&t->seq, memory_order_relaxed) != s0)
        return 0;
    *idx = v;
    return 1;
}

/* Index of handle key, or 0.  Lock held. */
static uint32_t map_get(const htable_t *t, uintptr_t key)
{
    if (!t->cap)
        return 0;
    for (size_t i = map_hash(t, key);; i = (i + 1) & (t->cap - 1)) {
        if (t->keys[i] == key)
            return t->vals[i];
        if (!t->keys[i])
            return 0;
    }
}

static void map_insert(htable_t *t, uintptr_t key, uint32_t val)
{
    size_t i = map_hash(t, key);
    while (t->keys[i])
        i = (i + 1) & (t->cap - 1);
    map_set(t, i, key, val);
    t->used++;
}

/* Map key to val, growing the map to keep it at most half full.  Returns
 * 0 if out of memory.  Lock held. */
static int map_put(htable_t *t, uintptr_t key, uint32_t val)
{
    map_write_begin(t);
    if (2 * (t->used + 1) > t->cap) {
        size_t ocap = t->cap, ncap = ocap ? 2 * ocap : 256;
        /* One block: cap, then the keys (published), then the values. */
        uintptr_t *block = calloc(1, (1 + ncap) * sizeof(uintptr_t) + ncap * sizeof(uint32_t));
        if (!block || t->nretired == (int)(sizeof t->retired / sizeof *t->retired)) {
            free(block);
            map_write_end(t);
            return 0;
        }
        block[0] = ncap;
        uintptr_t *okeys = t->keys;
        uint32_t *ovals = t->vals;
        t->keys = block + 1;
        t->vals = (uint32_t *)(t->keys + ncap);
        t->cap = ncap;
        t->used = 0;
        for (size_t i = 0; i < ocap; i++)
            if (okeys[i])
                map_insert(t, okeys[i], ovals[i]);
        atomic_store_explicit(&t->pub_keys, t->keys, memory_order_release);
        if (okeys)
            t->retired[t->nretired++] = okeys - 1;
    }
    map_insert(t, key, val);
    map_write_end(t);
    return 1;
}

/* Remove key (present) from the map, shifting later entries of its probe
 * run back so that lookups need no tombstones.  Lock held. */
static void map_del(htable_t *t, uintptr_t key)
{
    map_write_begin(t);
    size_t mask = t->cap - 1, i = map_hash(t, key);
    while (t->keys[i] != key)
        i = (i + 1) & mask;
    for (size_t j = (i + 1) & mask; t->keys[j]; j = (j + 1) & mask) {
        size_t home = map_hash(t, t->keys[j]);
        /* Entry j may move to the hole at i unless its home lies
         * cyclically in (i, j]. */
        if (((j - home) & mask) >= ((j - i) & mask)) {
            map_set(t, i, t->keys[j], t->vals[j]);
            i = j;
        }
    }
    map_set(t, i, 0, 0);
    t->used--;
    map_write_end(t);
}

/* table_ready's first call for a kind: enters its predefined handles.
 * Kept out of line, as its buffer of handles would cost every call of
 * table_ready a stack frame. */
static __attribute__((noinline)) htable_t *table_fill(int kind)
{
    htable_t *t = &tables[kind];
    zm_spin_lock(&t->lock);
    if (!atomic_load_explicit(&t->ready, memory_order_relaxed)) {
        const void *pre[MAX_PREDEF];
        int n = predefined(kind, pre), ok = 1;
        /* Before any slot is filled: see handle_f2c. */
        t->npredef_f2c = (uint32_t)n;
        for (int i = 0; i < n && ok; i++)
            ok = slot_put(t, (uint32_t)i + 1, pre[i]) &&
                 map_put(t, (uintptr_t)pre[i], (uint32_t)i + 1);
        if (ok) {
            t->npredef = (uint32_t)n;
            t->next = (uint32_t)n + 1;
            atomic_store_explicit(&t->ready, 1, memory_order_release);
        }
    }
    zm_spin_unlock(&t->lock);
    return atomic_load_explicit(&t->ready, memory_order_relaxed) ? t : NULL;
}

/* The table of `kind` with its predefined handles entered, or NULL if
 * that ran out of memory.  Any thread. */
static inline htable_t *table_ready(int kind)
{
    htable_t *t = &tables[kind];
    if (ZM_LIKELY(atomic_load_explicit(&t->ready, memory_order_acquire)))
        return t;
    return table_fill(kind);
}

/* Make room in t->spare for n indices.  Returns 0 if out of memory.
 * Lock held. */
static int spare_reserve(htable_t *t, size_t n)
{
    if (n <= t->capspare)
        return 1;
    size_t ncap = t->capspare ? 2 * t->capspare : 64;
    while (ncap < n)
        ncap *= 2;
    uint32_t *ns = realloc(t->spare, ncap * sizeof(*ns));
    if (!ns)
        return 0;
    t->spare = ns;
    t->capspare = ncap;
    return 1;
}

/* Give the user handle h an index: a forgotten one or the next new one.
 * Returns 0 if out of memory or out of indices.  Lock held. */
static uint32_t assign(htable_t *t, const void *h)
{
    uint32_t idx;
    if (t->nspare) {
        idx = t->spare[--t->nspare];
    } else {
        /* Keep room in spare for every user index handed out, so that
         * forgetting one (on an object's free path) never allocates. */
        if (t->next > (uint32_t)INT32_MAX || !spare_reserve(t, t->next - t->npredef))
            return 0;
        idx = t->next++;
    }
    if (!slot_put(t, idx, h) || !map_put(t, (uintptr_t)h, idx)) {
        slot_put(t, idx, NULL);
        t->spare[t->nspare++] = idx;
        return 0;
    }
    atomic_fetch_add_explicit(&t->nuser, 1, memory_order_relaxed);
    atomic_store_explicit(&any_user, 1, memory_order_relaxed);
    return idx;
}

/* ---- Conversions ----------------------------------------------------------- */

/* Raise error class cls from call fn when called from an initialized
 * rank (these conversions also work outside one, e.g. before MPI_Init,
 * and then only return the class).  Returns cls. */
static int conv_error(int cls, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int conv_error(int cls, const char *fn, const char *fmt, ...)
{
    zm_mpi_rank_t *me = zm_mpi_me();
    if (!me || !me->initialized || me->finalized)
        return cls;
    char msg[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return zm_mpi_error(NULL, cls, fn, "%s", msg);
}

static size_t hint_hash(const void *h)
{
    return (size_t)(((uint64_t)(uintptr_t)h * 0x9E3779B97F4A7C15ull) >> (64 - HINT_BITS));
}

/* c2f through the map; records the index found or given as h's hint. */
static __attribute__((noinline)) MPI_Fint handle_c2f_map(int kind, const void *h, const char *fn)
{
    htable_t *t = table_ready(kind);
    if (!t) {
        conv_error(MPI_ERR_NO_MEM, fn, "out of memory for the handle table");
        return 0;
    }
    uint32_t idx;
    if (!map_get_nolock(t, (uintptr_t)h, &idx)) {
        zm_spin_lock(&t->lock);
        idx = map_get(t, (uintptr_t)h);
        zm_spin_unlock(&t->lock);
    }
    /* Predefined handles need no check (some, such as MPI_COMM_WORLD, are
     * small constants); a mapped user handle may have been freed since. */
    if (ZM_LIKELY(idx && (idx <= t->npredef || kinds[kind].valid(h)))) {
        if (idx < FAST_SLOTS)
            atomic_store_explicit(&t->hint[hint_hash(h)], idx, memory_order_relaxed);
        return (MPI_Fint)idx;
    }
    if (!kinds[kind].valid(h)) {
        conv_error(kinds[kind].err, fn, "(handle=%p): not a valid %s (freed, or never one)", h,
              kinds[kind].what);
        return 0;
    }
    zm_spin_lock(&t->lock);
    /* Another thread may have converted h in the meantime. */
    idx = map_get(t, (uintptr_t)h);
    if (!idx)
        idx = assign(t, h);
    zm_spin_unlock(&t->lock);
    if (!idx)
        conv_error(MPI_ERR_NO_MEM, fn, "no Fortran handle left for this %s (out of memory or "
              "2^31 handles in use)", kinds[kind].what);
    else if (idx < FAST_SLOTS)
        atomic_store_explicit(&t->hint[hint_hash(h)], idx, memory_order_relaxed);
    return (MPI_Fint)idx;
}

/* c2f: the hint of h's hash, if the flat array confirms it (slot and map
 * change together under the lock, so a slot holding h is h's index) and
 * h passes the check the map's path makes; else the map.  A hint read
 * before the table is ready is 0 and its slot NULL. */
static inline __attribute__((always_inline)) MPI_Fint handle_c2f(int kind, const void *h,
                                                                 const char *fn)
{
    if (!h)
        return 0;
    htable_t *t = &tables[kind];
    uint32_t idx = atomic_load_explicit(&t->hint[hint_hash(h)], memory_order_relaxed);
    if (ZM_LIKELY(idx - 1u < FAST_SLOTS - 1u) &&
        atomic_load_explicit(&t->fast[idx], memory_order_acquire) == h &&
        (idx <= t->npredef_f2c || kinds[kind].valid(h)))
        return (MPI_Fint)idx;
    return handle_c2f_map(kind, h, fn);
}

/* f2c of an index that is not in the flat array, or before the table is
 * ready (its flat slots are all NULL until then). */
/* What f2c answers for a Fortran index that names no live object.  For
 * most kinds the null handle, which the C calls refuse (MPI_COMM_NULL,
 * MPI_DATATYPE_NULL ...).  Not for requests: MPI_REQUEST_NULL is a valid
 * argument of MPI_Wait and MPI_Test, so a stale or made-up request index
 * would complete at once with an empty status.  It gets a request whose
 * kind is none, which the request calls report as invalid
 * (MPI_ERR_REQUEST, naming the call). */
static zm_req_t bad_request;

static const void *f2c_invalid(int kind, MPI_Fint f)
{
    return kind == HK_Request && f != 0 ? (const void *)&bad_request : NULL;
}

static const void *handle_f2c_slow(int kind, MPI_Fint f)
{
    if (f <= 0)
        return f2c_invalid(kind, f);
    htable_t *t = table_ready(kind);
    if (!t)
        return f2c_invalid(kind, f);
    const void *h = slot_get(t, (uint32_t)f);
    if (!h || ((uint32_t)f > t->npredef && !kinds[kind].valid(h)))
        return f2c_invalid(kind, f);
    return h;
}

/* The fast path: one load from the flat array and, for a user handle, the
 * inlined check that the object is alive.  A NULL slot (index 0, an index
 * never handed out or forgotten, or the table not ready yet) and indices
 * outside the array go the slow way, which answers the same. */
static inline __attribute__((always_inline)) const void *handle_f2c(int kind, MPI_Fint f)
{
    htable_t *t = &tables[kind];
    if (ZM_LIKELY((uint32_t)f < FAST_SLOTS)) {
        const void *h = atomic_load_explicit(&t->fast[f], memory_order_acquire);
        if (ZM_LIKELY(h != NULL)) {
            /* npredef_f2c was written before any slot was filled, and the
             * acquire load of the slot orders this read after it. */
            if ((uint32_t)f <= t->npredef_f2c || kinds[kind].valid(h))
                return h;
            return f2c_invalid(kind, f);
        }
    }
    return handle_f2c_slow(kind, f);
}

/* Forget the Fortran index of the object at h, which is being freed: its
 * slot then answers the NULL handle and the index may be handed out again.
 * Free paths of every kind of object call it (a no-op until some handle
 * has been converted).  Any thread; takes the tables' locks. */
void zm_mpi_handle_forget(const void *h);

void zm_mpi_handle_forget(const void *h)
{
    if (ZM_LIKELY(!atomic_load_explicit(&any_user, memory_order_relaxed)) || !h)
        return;
    /* An address holds one live object, so an entry for it in another
     * kind's table is stale too: forget it everywhere. */
    for (int k = 0; k < HK_COUNT; k++) {
        htable_t *t = &tables[k];
        if (!atomic_load_explicit(&t->nuser, memory_order_relaxed))
            continue;
        zm_spin_lock(&t->lock);
        uint32_t idx = map_get(t, (uintptr_t)h);
        if (idx > t->npredef) {
            map_del(t, (uintptr_t)h);
            slot_put(t, idx, NULL);
            /* assign() reserved room for this index when it handed it out. */
            t->spare[t->nspare++] = idx;
            atomic_fetch_sub_explicit(&t->nuser, 1, memory_order_relaxed);
        }
        zm_spin_unlock(&t->lock);
    }
}

int zm_mpi_handles_mapped(void)
{
    static const int moving[] = { HK_Comm, HK_Group, HK_Type, HK_Errhandler, HK_Info };
    for (size_t i = 0; i < sizeof moving / sizeof moving[0]; i++)
        if (atomic_load_explicit(&tables[moving[i]].nuser, memory_order_relaxed) > 0)
            return 1;
    return 0;
}

int zm_mpi_request_handles_mapped(void)
{
    return atomic_load_explicit(&tables[HK_Request].nuser, memory_order_relaxed) > 0;
}

/* MPI_<Name>_c2f and MPI_<Name>_f2c for every kind of handle. */
#define HANDLE_API(Name, CType, what, err, valid)                              \
    MPI_Fint PMPI_##Name##_c2f(CType h)                                         \
    {                                                                           \
        return handle_c2f(HK_##Name, (const void *)h, "MPI_" #Name "_c2f");     \
    }                                                                           \
    ZM_WEAK(Name##_c2f)                                                         \
    CType PMPI_##Name##_f2c(MPI_Fint f)                                         \
    {                                                                           \
        return (CType)handle_f2c(HK_##Name, f);                                 \
    }                                                                           \
    ZM_WEAK(Name##_f2c)

HANDLE_KINDS(HANDLE_API)

/* bind_hooks.h: the bindings' entries convert their requests here. */
MPI_Fint zm_mpi_request_c2f(MPI_Request r)
{
    return handle_c2f(HK_Request, (const void *)r, "MPI_Request_c2f");
}

MPI_Request zm_mpi_request_f2c(MPI_Fint f)
{
    return (MPI_Request)handle_f2c(HK_Request, f);
}

/* ---- Statuses -------------------------------------------------------------- */

/* The IGNORE constants of the Fortran statuses: objects whose addresses
 * the conversions recognise (and a Fortran binding can alias). */
ZM_EXPORT MPI_Fint zmpi_f_status_ignore[MPI_STATUS_SIZE];
ZM_EXPORT MPI_Fint zmpi_f_statuses_ignore[MPI_STATUS_SIZE];
ZM_EXPORT MPI_F08_status zmpi_f08_status_ignore;
ZM_EXPORT MPI_F08_status zmpi_f08_statuses_ignore;

/* Check a status argument: not NULL and not one of the IGNORE constants
 * (which hold no status, so converting from or to one is erroneous). */
static int check_status(const char *fn, const char *what, const void *p, const void *ignore,
                        const void *ignores, const char *ignore_name)
{
    if (!p)
        return conv_error(MPI_ERR_ARG, fn, "(%s=NULL): invalid status pointer", what);
    if (p == ignore || p == ignores)
        return conv_error(MPI_ERR_ARG, fn, "(%s=%s%s): an ignored status cannot be converted", what,
                     ignore_name, p == ignore ? "STATUS_IGNORE" : "STATUSES_IGNORE");
    return MPI_SUCCESS;
}

#define CHECK_C(fn, what, p) \
    check_status(fn, what, p, MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE, "MPI_")
#define CHECK_F(fn, what, p) \
    check_status(fn, what, p, MPI_F_STATUS_IGNORE, MPI_F_STATUSES_IGNORE, "MPI_F_")
#define CHECK_F08(fn, what, p) \
    check_status(fn, what, p, MPI_F08_STATUS_IGNORE, MPI_F08_STATUSES_IGNORE, "MPI_F08_")

/* The layout mpi.h documents: source, tag, error, cancelled, bytes. */
static void status_to_f(const MPI_Status *c, MPI_Fint *f)
{
    uint64_t bytes = (uint64_t)c->zmpi_bytes;
    f[0] = c->MPI_SOURCE;
    f[1] = c->MPI_TAG;
    f[2] = c->MPI_ERROR;
    f[3] = c->zmpi_cancelled;
    f[4] = (MPI_Fint)(uint32_t)bytes;
    f[5] = (MPI_Fint)(uint32_t)(bytes >> 32);
}

static void status_from_f(const MPI_Fint *f, MPI_Status *c)
{
    c->MPI_SOURCE = f[0];
    c->MPI_TAG = f[1];
    c->MPI_ERROR = f[2];
    c->zmpi_cancelled = f[3];
    c->zmpi_bytes = (MPI_Count)((uint64_t)(uint32_t)f[4] | (uint64_t)(uint32_t)f[5] << 32);
}

static void f08_to_f(const MPI_F08_status *s, MPI_Fint *f)
{
    f[0] = s->MPI_SOURCE;
    f[1] = s->MPI_TAG;
    f[2] = s->MPI_ERROR;
    for (int i = 3; i < MPI_STATUS_SIZE; i++)
        f[i] = s->zmpi_internal[i - 3];
}

static void f_to_f08(const MPI_Fint *f, MPI_F08_status *s)
{
    s->MPI_SOURCE = f[0];
    s->MPI_TAG = f[1];
    s->MPI_ERROR = f[2];
    for (int i = 3; i < MPI_STATUS_SIZE; i++)
        s->zmpi_internal[i - 3] = f[i];
}

int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
    const char *fn = "MPI_Status_c2f";
    int rc = CHECK_C(fn, "c_status", c_status);
    if (rc == MPI_SUCCESS)
        rc = CHECK_F(fn, "f_status", f_status);
    if (rc == MPI_SUCCESS)
        status_to_f(c_status, f_status);
    return rc;
}
ZM_WEAK(Status_c2f)

int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
    const char *fn = "MPI_Status_f2c";
    int rc = CHECK_F(fn, "f_status", f_status);
    if (rc == MPI_SUCCESS)
        rc = CHECK_C(fn, "c_status", c_status);
    if (rc == MPI_SUCCESS)
        status_from_f(f_status, c_status);
    return rc;
}
ZM_WEAK(Status_f2c)

int PMPI_Status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status)
{
    const char *fn = "MPI_Status_c2f08";
    int rc = CHECK_C(fn, "c_status", c_status);
    if (rc == MPI_SUCCESS)
        rc = CHECK_F08(fn, "f08_status", f08_status);
    if (rc == MPI_SUCCESS) {
        MPI_Fint f[MPI_STATUS_SIZE];
        status_to_f(c_status, f);
        f_to_f08(f, f08_status);
    }
    return rc;
}
ZM_WEAK(Status_c2f08)

int PMPI_Status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status)
{
    const char *fn = "MPI_Status_f082c";
    int rc = CHECK_F08(fn, "f08_status", f08_status);
    if (rc == MPI_SUCCESS)
        rc = CHECK_C(fn, "c_status", c_status);
    if (rc == MPI_SUCCESS) {
        MPI_Fint f[MPI_STATUS_SIZE];
        f08_to_f(f08_status, f);
        status_from_f(f, c_status);
    }
    return rc;
}
ZM_WEAK(Status_f082c)

int PMPI_Status_f2f08(const MPI_Fint *f_status, MPI_F08_status *f08_status)
{
    const char *fn = "MPI_Status_f2f08";
    int rc = CHECK_F(fn, "f_status", f_status);
    if (rc == MPI_SUCCESS)
        rc = CHECK_F08(fn, "f08_status", f08_status);
    if (rc == MPI_SUCCESS)
        f_to_f08(f_status, f08_status);
    return rc;
}
ZM_WEAK(Status_f2f08)

int PMPI_Status_f082f(const MPI_F08_status *f08_status, MPI_Fint *f_status)
{
    const char *fn = "MPI_Status_f082f";
    int rc = CHECK_F08(fn, "f08_status", f08_status);
    if (rc == MPI_SUCCESS)
        rc = CHECK_F(fn, "f_status", f_status);
    if (rc == MPI_SUCCESS)
        f08_to_f(f08_status, f_status);
    return rc;
}
ZM_WEAK(Status_f082f)
