/*
 * coll_impl.h: internals shared by the files of the coll layer: the shared
 * control block, phases and flags (shm.c), and the algorithms (algo.c) that
 * the blocking (coll.c) and non-blocking (nbc.c) drivers run.
 */
#ifndef ZM_COLL_IMPL_H
#define ZM_COLL_IMPL_H

#include "coll/coll.h"

/* The arguments of all ranks of one collective: rank q's are at
 * base + q * stride (slots for blocking, an array for non-blocking). */
typedef struct zm_coll_view {
    char *base;
    size_t stride;
    int n;                          /* ranks */
    int nbc;                        /* non-blocking: no inline data */
} zm_coll_view_t;

static inline zm_coll_args_t *zm_coll_arg(const zm_coll_view_t *v, int q)
{
    return (zm_coll_args_t *)(v->base + (size_t)q * v->stride);
}

/* A release flag: 0 while its owner waits, 1 once released, 2 while the
 * owner is parked on it (so the releaser must wake it). */
typedef _Atomic uint32_t zm_coll_flag_t;

/* Wait until `f` is released: poll while alone on the worker, else park
 * until the releaser wakes us.  The owner reset it to 0 before the event
 * that releases it could happen.  *owner (the slot's `ult`) is set to the
 * caller before it parks.  ULT context or a foreign thread acting for the
 * rank (owner only). */
void zm_coll_flag_wait(zm_coll_flag_t *f, zm_ult_t **owner);

/* Release `f` and wake *owner if it parked on it.  *owner is read only
 * then: the waiter sets it before parking (a foreign thread may run the
 * rank's collective).  Any ULT. */
static inline void zm_coll_flag_release(zm_coll_flag_t *f, zm_ult_t *const *owner)
{
    if (atomic_exchange_explicit(f, 1, memory_order_acq_rel) == 2)
        zm_ult_wake(*owner);
}

/* A non-blocking collective being matched: the arguments of the ranks that
 * started it so far.  Lives in its block's list until the last rank starts
 * it; that rank runs it and frees it. */
typedef struct coll_nbc {
    struct coll_nbc *next;          /* in the block's list, oldest first */
    unsigned seq;                   /* which non-blocking collective */
    int arrived;                    /* ranks that started it */
    zm_req_t **reqs;                /* each rank's request */
    zm_coll_args_t *args;           /* each rank's arguments */
    /* Persistent collectives (made by zm_coll_pinit): the instance stays
     * after its ranks have all arrived and runs once per round. */
    int persistent;                 /* made by *_init */
    _Atomic int started;            /* ranks that started the current round */
    _Atomic int refs;               /* ranks that have not freed their request */
    zm_coll_shm_t *shm;             /* the block it belongs to */
} coll_nbc_t;

/* Calls published per rank (a header and inline data, a record): a ring,
 * entry k mod ring for the
 * rank's k-th blocking collective.  A rank rewrites an entry that others
 * read in their call only when every other rank has started the
 * collective after the one that used it (the guard in zm_coll_run), so a
 * rank may run ring - 1 collectives ahead of the slowest reader of
 * its data (a Bcast root in a loop). */
#define ZM_COLL_RING_MAX 64        /* ring entries at most */

/* Communicators up to this size run small collectives on the fast path
 * (coll.c), where every rank reads the arguments of the ranks it needs
 * itself; beyond it the last arriver checks them once for all. */
#define ZM_COLL_FAST_RANKS 64

/* The fast path's own limit for collective `kind`.  Every rank of a fast
 * Barrier or reduction reads every other rank's header, n^2 reads per
 * call, while the slow path's last arriver checks once for all: measured
 * with 2 workers (8 B, alternated runs), the slow Barrier is faster from
 * 24 ranks (24: 2.5 vs 3.9 us, 32: 3.5-4.2 vs 6.0-6.8 us, 64: 15 vs
 * 21 us) and the slow Allreduce from about 48 (48: 24 vs 30 us, 64: 38 vs
 * 50 us), whereas Bcast, Allgather and Alltoall stay faster on the fast
 * path up to 64 ranks (Bcast 64 ranks: 2 vs 9 us). */
static inline int zm_coll_fast_ranks(int kind)
{
    if (kind == ZM_COLL_BARRIER)
        return 16;
    if (kind == ZM_COLL_ALLREDUCE || kind == ZM_COLL_REDUCE)
        return 32;
    return ZM_COLL_FAST_RANKS;
}

/* Nonzero if counter value v has reached `want` (counters only grow,
 * modulo 2^32). */
static inline int zm_coll_reached(uint32_t v, uint32_t want)
{
    return (int32_t)(v - want) >= 0;
}

/* The head of a ring entry's inline area, on the same cache line as the
 * first ZM_COLL_HDR_DATA bytes of data, which follow it: what the fast path
 * compares between the ranks, as plain values (a rank may have returned
 * and freed its types and operation when another reads them), and the
 * stamp the readers poll.  One line brings a small call's everything. */
typedef struct coll_fhdr {
    _Atomic uint32_t stamp;         /* k + 1 once the entry holds collective k */
    uint8_t kind;                   /* ZM_COLL_* */
    uint8_t fast;                   /* 0: slow path; 1: fast path, with a record;
                                     * ZM_COLL_FAST_HDR_ONLY: a fast Bcast */
    uint8_t opcomm;                 /* reductions: op commutative */
    uint8_t ekind;                  /* reductions: element kind */
    int32_t root;
    int32_t opid;                   /* reductions: op id */
    uint32_t esize;                 /* reductions: element size */
    uint32_t sbytes, rbytes;        /* bytes sent / received per rank; elements
                                     * for reductions */
    uint32_t hist;                  /* zm_coll_hist_step: the earlier calls */
} coll_fhdr_t;

#define ZM_COLL_HDR 32              /* data starts this far into the area */

/* What the full check (zm_coll_check) reads of a rank's call, kept per
 * ring entry for a mismatch found on the fast path: the call's arguments
 * themselves stay on the rank's stack. */
typedef struct coll_rec {
    int kind, root;
    zm_status_t failed;
    const void *sbuf;
    size_t scount, rcount, src_count, rm;
    const zm_dt_t *sdt, *rdt, *src_dt, *edt;
    const zm_op_t *op;
} coll_rec_t;
#define ZM_COLL_AREA_PAD 64         /* area = inl_cap + this, line aligned */

/* Staging buffers per rank for Bcasts too large for the inline ring
 * (fast.c, bcast_staged): a root runs at most this many staged Bcasts
 * ahead of its slowest receiver (4: 1 KiB 0.92 us, 2: 1.25-1.36 us). */
#define ZM_COLL_STAGES 4

/* The ranks of a block that run on one worker: a phase counts its
 * arrivals here first, so only the last of them touches the block's
 * counter and only it is released from another worker (shm.c). */
typedef struct coll_group {
    _Alignas(ZM_CACHE_LINE) _Atomic int arrived; /* members in the current phase */
    int leader;                     /* the member that arrived last (it waits for all) */
    int members;                    /* ranks of the block on this worker */
    const int *rank;                /* those ranks */
} coll_group_t;

/* One rank's slot. */
typedef struct coll_slot {
    zm_coll_flag_t go;              /* phase release, written by the last arriver */
    zm_coll_flag_t dgo;             /* root: released when every part is done */
    _Atomic int pending;            /* root: parts not yet done */
    zm_ult_t *ult;                  /* the rank's ULT, to wake it */
    coll_group_t *group;            /* the ranks on its worker */
    /* The owner's own counters, away from the line the others write
     * (pending above took a hit from every call's seq++ there). */
    _Alignas(ZM_CACHE_LINE) unsigned seq; /* blocking collectives run (owner only) */
    unsigned nbc_seq;               /* non-blocking ones started (owner only) */
    unsigned sseq;                  /* blocking ones on the slow path (owner only) */
    int deferred;                   /* left its last phase without waiting (owner only) */
    const zm_op_t *deferred_op;     /* the op that deferred collective holds (owner only) */
    uint32_t seen;                  /* every other rank's pseq has reached this (owner only) */
    int rseen_q;                    /* rank rseen_q's pseq has reached rseen (owner only): */
    uint32_t rseen;                 /* a Bcast receiver's look at its root */
    uint32_t hist;                  /* zm_coll_hist_step's digest (owner only) */
    unsigned stage_next;            /* staged Bcasts rooted here (owner only) */
    /* Staging buffers of the Bcasts this rank roots (fast.c, bcast_staged):
     * written by the owner, read by the receivers of the call that used
     * them, freed with the block. */
    unsigned char *stage[ZM_COLL_STAGES];
    size_t stage_cap[ZM_COLL_STAGES];   /* bytes allocated (owner only) */
    uint32_t stage_k[ZM_COLL_STAGES];   /* collective that last used it (owner only) */
    /* Blocking collectives started (their arguments are published), read
     * by everyone; on its own line with the flag that wakes the rank when
     * it parked waiting for another rank's pseq. */
    _Alignas(ZM_CACHE_LINE) _Atomic uint32_t pseq;
    zm_coll_flag_t pwake;
} __attribute__((aligned(ZM_CACHE_LINE))) coll_slot_t;

struct zm_coll_shm {
    zm_coll_shm_t *hnext;           /* chain in the process-wide table */
    struct coll_net *nx;            /* a communicator across processes (net.c):
                                     * everything else here is unused; NULL for a
                                     * block of one process's communicator */
    uint32_t ctx;                   /* communicator context */
    int world0;                     /* world rank of its rank 0 */
    int size;                       /* ranks */
    int refs;                       /* attached ranks + pending requests (table lock) */
    unsigned ring;                  /* ring entries per rank, a power of two */
    int asym;                       /* publishers need no fence (zm_arch_membarrier) */
    coll_rec_t *rec;                /* call records: rank, then ring entry */
    zm_coll_args_t *spub;           /* the slow path's arguments: rank, then sseq & 1 */
    size_t inl_cap;                 /* bytes of inline data per ring entry */
    size_t bcast_lim;               /* a Bcast of fewer bytes takes its fast path */
    size_t stage_lim;               /* ... or its staged one, below this many bytes */
    size_t rank_bytes;              /* bytes of one rank's ring of inline areas */
    unsigned char *inl;             /* inline areas: rank, then ring entry */
    zm_spinlock_t nbc_lock;         /* guards nbc_head and hnb_head */
    coll_nbc_t *nbc_head;           /* non-blocking collectives being matched */
    void *hnb_head;                 /* the block of a communicator's members in one
                                     * process: its hierarchical non-blocking
                                     * collectives being matched (net_hnbc.c) */
    /* Verdict on the current blocking collective, written by the last rank
     * to arrive in its first phase: every rank reads it after that phase,
     * before anyone can arrive in the next collective's first phase. */
    zm_status_t verdict;            /* ZM_OK or the mismatch found */
    int mode;                       /* ZM_SYNC_* */
    char msg[256];                  /* message of a mismatch */
    int ngroups;                    /* workers the ranks run on */
    coll_group_t *groups;           /* one per worker that has ranks of the block */
    int *group_ranks;               /* every group's ranks, group after group */
    _Alignas(ZM_CACHE_LINE) _Atomic int arrived; /* groups in the current phase */
    /* Ranks parked in zm_coll_wait_seq: a publisher wakes them. */
    _Alignas(ZM_CACHE_LINE) _Atomic int sleepers;
    coll_slot_t slots[];            /* one per rank */
};

/*
 * Returns the digest of the blocking collectives rank `sl` ran on this
 * communicator before the one of `kind` and `root` it is starting, and
 * adds that one.  Headers carry the digest, so the ranks compare their
 * whole history whenever they compare headers.  A rank that nobody reads
 * in a call (a fast Bcast "root" whom the others do not take for the
 * root) is then caught at the next call in which someone reads it,
 * instead of returning with a wrong result unnoticed.  Rootless kinds add
 * no root: their root argument is not defined.  Owner only.
 * zm_coll_hist_mix is the step itself: the digest h followed by that call
 * (communicators across processes keep their digest in coll_net_t).
 */
static inline uint32_t zm_coll_hist_mix(uint32_t h, int kind, int root)
{
    int rooted = kind == ZM_COLL_BCAST || kind == ZM_COLL_REDUCE || kind == ZM_COLL_GATHER ||
                 kind == ZM_COLL_GATHERV || kind == ZM_COLL_SCATTER || kind == ZM_COLL_SCATTERV;
    uint32_t call = (uint32_t)kind | (rooted ? (uint32_t)(root + 1) << 8 : 0);
    return (h ^ call) * 0x9e3779b1u + 0x7f4a7c15u;
}

static inline uint32_t zm_coll_hist_step(coll_slot_t *sl, int kind, int root)
{
    uint32_t h = sl->hist;
    sl->hist = zm_coll_hist_mix(h, kind, root);
    return h;
}

/* Largest reduction input copied inline, where every rank then reduces
 * all n inputs itself: n times the work of the slow path's slices, which
 * share it, so the limit falls with n (2 ranks: 1 KiB, 2 KiB Allreduce
 * 0.58 us against 0.9 inline; 16 ranks: 128 bytes, 512-byte Allreduce
 * 4 us in slices against 10-20 inline). */
static inline size_t zm_coll_red_inline(size_t inl_cap, int n)
{
    size_t lim = 2048 / (size_t)(n > 2 ? n : 2);
    return inl_cap < lim ? inl_cap : lim;
}

/* Rank q's record of its collective number k. */
static inline coll_rec_t *zm_coll_rec(const zm_coll_shm_t *s, int q, unsigned k)
{
    return &s->rec[(size_t)q * s->ring + (k & (s->ring - 1))];
}

/* Rank q's inline area for its collective number k. */
static inline coll_fhdr_t *zm_coll_fhdr(const zm_coll_shm_t *s, int q, unsigned k)
{
    size_t i = (size_t)q * s->ring + (k & (s->ring - 1));
    return (coll_fhdr_t *)(s->inl + i * (s->inl_cap + ZM_COLL_AREA_PAD));
}

/* Wake the ranks parked waiting for a publication (shm.c).  ULT context. */
void zm_coll_wake_sleepers(zm_coll_shm_t *s, int me);

/* Publish that rank `me` has started its collective number v - 1 (its
 * arguments are in its ring entry, h its header), and wake ranks parked
 * waiting for any publication.  Inline: every fast call publishes once.
 * ULT context. */
static inline void zm_coll_publish(zm_coll_shm_t *s, int me, coll_fhdr_t *h, uint32_t v)
{
    atomic_store_explicit(&h->stamp, v, memory_order_release);
    atomic_store_explicit(&s->slots[me].pseq, v, memory_order_release);
    /* Pairs with the waiter's increment of sleepers before its last look
     * at our stamp: either it sees v, or we see it registered.  With
     * membarrier the waiter forces the barrier on us when it registers
     * (rare), so we need none; a real fence here stalls until the lines
     * the readers hold are ours again, on every call. */
    if (s->asym)
        atomic_signal_fence(memory_order_seq_cst);
    else
        atomic_thread_fence(memory_order_seq_cst);
    if (ZM_UNLIKELY(atomic_load_explicit(&s->sleepers, memory_order_acquire)))
        zm_coll_wake_sleepers(s, me);
}

/* Wait until the counter *p (a pseq or a stamp) reaches `want`: poll
 * while alone on the worker, else let the worker's other ranks run; after
 * a while park until a publisher wakes us (so the deadlock detector sees a
 * rank whose peer never comes).  ULT context, rank `me`. */
void zm_coll_wait_seq(zm_coll_shm_t *s, int me, _Atomic uint32_t *p, uint32_t want);

/* Wait until every other rank's pseq has reached `want` (coll.c). */
void zm_coll_wait_all(zm_coll_shm_t *s, int me, uint32_t want);

/* Start rank me's next blocking collective: settle a deferred one, take
 * its number k, wait until its ring entry is free, mark the entry stale
 * and return its header.  Inline, with the waits out of line: in a loop
 * of small calls neither is usually needed.  ULT context. */
static inline coll_fhdr_t *zm_coll_begin(zm_coll_shm_t *s, int me, unsigned *kp)
{
    coll_slot_t *sl = &s->slots[me];
    if (ZM_UNLIKELY(sl->deferred))
        zm_coll_settle(s, me);
    unsigned k = sl->seq++;
    /* Our ring entry for k was last used by collective k - ring: every
     * rank must have started k - ring + 1, so none still reads it.  (Also
     * a Bcast receiver's entry, which only a mismatch check reads: the
     * guard keeps the receivers in step, which measured faster.) */
    uint32_t want = k - s->ring + 2;
    if (!zm_coll_reached(sl->seen, want))
        zm_coll_wait_all(s, me, want);
    coll_fhdr_t *h = zm_coll_fhdr(s, me, k);
    /* A mismatch check may be copying the header (fast.c): mark the entry
     * stale before rewriting it. */
    atomic_store_explicit(&h->stamp, 0, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    *kp = k;
    return h;
}

/* Prepare rank me's arguments for the fast path's common cases (what
 * zm_coll_prepare would do, without its generality); returns 0, having
 * decided nothing, when zm_coll_prepare must do it. */
int zm_coll_fast_prepare(zm_coll_args_t *a, int me, int n);

/* Largest inline area the fast path works with (shm.c picks at most
 * this much per entry). */
#define ZM_COLL_FAST_MAX 4096
/* Largest inline data of any collective but the small Bcast (whose limit
 * is the whole area): on 2 ranks a 4 KiB Bcast gains from being inline
 * (root and reader no longer meet: 0.70 -> 0.23-0.50 us in alternated
 * runs), while a 4 KiB Allgather inline was slower than direct copies
 * between the buffers (0.6 -> 1.0 us). */
#define ZM_COLL_INLINE_MAX 2048

/* Largest Bcast that the root stages (fast.c, bcast_staged).  Staging
 * costs one more copy, by the root, and memory (ZM_COLL_STAGES buffers
 * per rooting rank), but the root no longer waits for its receivers and
 * they no longer wait for each other.  Measured with 16 ranks on 2
 * workers against the direct copies of the generic path (alternated
 * runs, in the host's fast and slow phases): 1-2 KiB 1.2-1.5 -> 0.25-0.32
 * us (slow phase 4.7-5.1 -> 0.9-1.2), 4-8 KiB 1.5-1.8 -> 0.7-0.9 us, 16
 * KiB 1.9-2.2 -> 1.7-1.8 us; 32 KiB 2.8-3.1 -> 3.3 us (slow phase 6.3-6.7
 * -> 4.8-5.1), 64 KiB about equal, and from 128 KiB on slower (1 MiB
 * 142-148 -> 310-390 us): the receivers then read a different staging
 * buffer in each call, which does not stay in the caches the way the
 * root's one buffer does.  With fewer ranks the root's copy weighs more:
 * 4 ranks, 2-4 KiB 0.43 -> 0.14-0.32 us, 8 KiB equal, 16 KiB 0.57 ->
 * 0.81 us; so a block stages at most ZM_COLL_STAGE_PER_RANK bytes per
 * rank (shm.c).  Tried for the other fast collectives and dropped:
 * staging each rank's Allgather block (1/n more copying) made 16 ranks
 * faster at 1-2 KiB blocks (3.9 -> 2.5 us) but 4 ranks slower from 4 KiB
 * (16 KiB 1.7 -> 3.7 us) and 64 ranks from 8 KiB; staging Alltoall send
 * buffers doubles the copies (4 KiB blocks, 16 ranks: 9 -> 18.5 us).
 * Nor did reading Allgather/Alltoall blocks straight from the senders'
 * buffers on the fast path, each owner then waiting for its n - 1 readers
 * instead of the generic path's two phases: 16 ranks, 2-32 KiB blocks 5-10 %
 * faster, Alltoall of 64-256 B blocks 25 % slower; the wait for the readers
 * costs about what the phases do. */
#define ZM_COLL_STAGE_MAX ((size_t)16 << 10)
#define ZM_COLL_STAGE_PER_RANK ((size_t)1 << 10)

/* Smallest communicator whose large Bcasts are staged: with fewer
 * receivers the root's extra copy is a large share of the work (2 ranks:
 * twice the bytes of the direct copy). */
#define ZM_COLL_STAGE_RANKS 4

/* Whether a Bcast of `bytes` bytes takes its own fast path
 * (zm_coll_bcast_run in fast.c), inline or staged: the decision depends
 * only on what the ranks of a correct program agree on, so either all
 * take it or none.  The block's limits (shm.c): bcast_lim is inl_cap + 1
 * on communicators of up to ZM_COLL_FAST_RANKS ranks whose areas are at
 * most ZM_COLL_FAST_MAX bytes, else 0; stage_lim, on those of them with
 * ZM_COLL_STAGE_RANKS ranks or more, is one more than ZM_COLL_STAGE_PER_RANK
 * bytes per rank up to ZM_COLL_STAGE_MAX, else 0. */
static inline int zm_coll_fast_bcast_fits(const zm_coll_shm_t *s, size_t bytes)
{
    return bytes < s->bcast_lim || bytes < s->stage_lim;
}

/* The `fast` value of a fast Bcast's header: the header holds all that a
 * mismatch check needs of the call (kind, root and bytes), so the call
 * writes no record. */
#define ZM_COLL_FAST_HDR_ONLY 2

/* A Bcast on the slow path (coll.c's run_slow, header h of collective k
 * filled, before its phase): on a communicator where some amounts take the
 * fast Bcast, publish h, wait until every rank has published collective k,
 * and fail (ZM_COLL_ERR_COUNT, message in err) if some rank took the fast
 * Bcast, which never joins the phase.  ZM_OK: go on.  ULT context. */
zm_status_t zm_coll_bcast_split(zm_coll_shm_t *s, int me, zm_coll_args_t *pa, coll_fhdr_t *h,
                                unsigned k, char *err, size_t errlen);

/* The fast path (fast.c): fill rank me's header h for its prepared call
 * pa and return nonzero if the call runs on the fast path; then run it. */
int zm_coll_fast_sig(const zm_coll_shm_t *s, const zm_coll_args_t *pa, coll_fhdr_t *h);
zm_status_t zm_coll_fast_run(zm_coll_shm_t *s, int me, zm_coll_args_t *pa, unsigned k,
                             char *err, size_t errlen);

/* One phase: arrive, and wait until every rank of the block has arrived.
 * If `hook` is not NULL the last rank to arrive calls hook(s, arg) before
 * it releases the others.  With `defer` set the caller does not wait: it
 * returns 1 if it still has to (zm_coll_settle does it later), else 0
 * (the last of several ranks of a worker always waits: it releases the
 * others).  ULT context. */
int zm_coll_phase(zm_coll_shm_t *s, int me, void (*hook)(zm_coll_shm_t *, void *), void *arg,
                  int defer);

/* Take one more reference to an attached block (a pending request). */
void zm_coll_shm_retain(zm_coll_shm_t *s);

/* How the ranks finish a collective after their parts: nothing more, the
 * root waits until every part is done, or a full phase. */
enum { ZM_SYNC_NONE, ZM_SYNC_ROOT, ZM_SYNC_ALL };

/* Algorithms (algo.c).  prepare resolves MPI_IN_PLACE, makes temporary
 * copies and inline data for rank me's own arguments before they are
 * published.  check compares all ranks' published arguments (every rank
 * reaches the same verdict).  sync says how the ranks finish.  part does
 * rank r's share of the work; finish copies results out of temporaries and
 * frees them. */
zm_status_t zm_coll_prepare(zm_coll_args_t *a, int me, int n, int nbc);
zm_status_t zm_coll_check(const zm_coll_view_t *v, char *err, size_t errlen);

/* Writes to err the report of ranks a and b having run different blocking
 * collectives (or roots) before this one of `kind`, and returns the status
 * for it.  Any thread; err is the caller's. */
zm_status_t zm_coll_hist_error(int kind, int a, int b, char *err, size_t errlen);
int zm_coll_sync(const zm_coll_view_t *v);
zm_status_t zm_coll_part(const zm_coll_view_t *v, int r, char *err, size_t errlen);
void zm_coll_finish(const zm_coll_view_t *v, int r);

/* Write `len` result elements of type edt from `from` (laid out like the
 * buffer, holes included) to `out`, only where the type has data: a user
 * operation's type may have holes, which the result must leave alone. */
void zm_coll_put_elems(void *out, const void *from, size_t len, const zm_dt_t *edt);

/* ---- Communicators across processes (net*.c) ---------------------------
 * A communicator with ranks in several processes gets no shared block:
 * zm_coll_attach returns, to each of its ranks, a stand-in of its own
 * whose `nx` describes the communicator, and every entry point of coll
 * hands it to the functions below.  Barrier, Bcast and Reduce and
 * Allreduce with predefined operations on integer-like, floating-point
 * and complex elements run hierarchically (net_hier.c, non-blocking ones
 * net_hnbc.c: the in-process phase on the
 * shared block of this process's members, leaders over messages, the
 * in-process fan-out); everything else runs as one round of point-to-point
 * messages on the communicator's collective context (net_algo.c): each
 * rank posts all its receives, then all its sends, and finishes
 * (reductions in rank order, exactly as algo.c orders them) once they are
 * complete.  ZMPI_COLL_NET=1 forces these paths for every communicator of
 * more than one rank inside one process (pseudo processes: world rank mod
 * 2), so the single-process test suite checks them without a system MPI. */

/* What a rank of a communicator across processes needs.  Owned by the
 * rank (its stand-in block). */
typedef struct coll_net {
    zm_p2p_comm_t pc;               /* the communicator on its collective context */
    int n;                          /* ranks */
    int me;                         /* the owner's rank */
    unsigned seq;                   /* blocking collectives started (message tags) */
    unsigned nbseq;                 /* non-blocking and persistent ones started */
    /* The hierarchy (net_hier.c). */
    int hier;                       /* blocking Barrier/Bcast/(All)reduce go hierarchical */
    int np;                         /* processes the communicator spans */
    int me_p;                       /* this process's index among them */
    int *pof;                       /* comm rank -> process index (order of first rank) */
    int *lead;                      /* process index -> its first member's comm rank */
    int nl;                         /* members in this process */
    int lme;                        /* the owner's index among them */
    int *lworld;                    /* their world ranks, in comm rank order */
    zm_p2p_comm_t lc;               /* their sub-communicator */
    zm_coll_shm_t *local;           /* its shared block, attached on first use */
    uint32_t hist;                  /* zm_coll_hist_mix over the blocking collectives
                                     * started so far (signatures carry it) */
} coll_net_t;

/* ---- Signatures (net_msg.c) ---------------------------------------------
 * Every message of a collective across processes starts with the
 * sender's signature: what the receiver checks against its own call, so
 * that ranks which disagree on the kind, root, operation, element type or
 * amount of data get the error a one-process job reports instead of
 * waiting for messages that never come.  Up to ZM_COLL_PACK_MAX bytes of
 * data travel in the same message behind it (copied in and out); larger
 * data follows in a message of its own, straight between the buffers. */
#define ZM_COLL_SIG_BYTES 32
#define ZM_COLL_PACK_MAX 2048

/* Kept to 32 bytes: with 8 bytes of data the message still fits the
 * system MPIs' shortest send path (a 96-byte signature with the element
 * type's name doubled the cost of MPICH's send of an 8-byte Allreduce). */
typedef struct coll_sig {
    uint8_t kind;                   /* ZM_COLL_* */
    uint8_t hier;                   /* sent by a leader of the hierarchical path */
    uint8_t opcomm;                 /* reductions: the operation is commutative */
    uint8_t ekind;                  /* reductions: zm_dt_kind_t of the elements */
    int8_t op;                      /* reductions: ZM_OP_*, else -1 */
    uint8_t pad[3];
    int32_t root;                   /* rooted kinds, else 0 */
    int32_t status;                 /* ZM_OK, or why the sender's side failed */
    uint32_t hist;                  /* blocking: digest of the earlier ones */
    uint32_t esize;                 /* reductions: bytes per element, else 0 */
    uint64_t units;                 /* this message's data: elements for reductions,
                                     * else bytes */
} coll_sig_t;

/* Fill g with rank me's side of call a (prepared), hierarchical or not,
 * with history digest hist (0 for non-blocking calls).  Any thread. */
void zm_coll_sig_fill(coll_sig_t *g, const zm_coll_args_t *a, int hier, uint32_t hist);

/* One message of a set. */
typedef struct coll_nmsg {
    uint8_t send;                   /* 1: send, 0: receive */
    uint8_t split;                  /* data in a message of its own */
    uint8_t checked;                /* receive: its signature was looked at */
    int peer;                       /* comm rank, or ZM_ANY_SOURCE (from "the root") */
    void *buf;
    size_t count;
    const zm_dt_t *dt;
    size_t bytes, units;            /* data bytes; what the signature counts */
    unsigned char *hb;              /* signature and packed data */
} coll_nmsg_t;

/* The messages of one rank's part of a collective (or of one round of
 * it), all with one tag: built with add, posted together (receives
 * first), then waited for (ULT) or polled (any thread).  A signature that
 * disagrees ends the set at once: the receives still posted are
 * cancelled, and the caller gets the error; the set's memory stays until
 * its sends are complete (zm_coll_nmsgs_free). */
typedef struct coll_nmsgs {
    coll_sig_t sig;                 /* this rank's side (units and bytes per message) */
    const zm_p2p_comm_t *pc;        /* communicator (collective context) */
    int tag, me;
    int n, cap;                     /* messages, room */
    int left;                       /* receives whose signature is not checked yet */
    int batch;                      /* the rank waits right after posting: sends may
                                     * batch (zm_p2p_isend_batch) */
    unsigned gen;                   /* zm_net_batch_gen once they were posted */
    zm_status_t ended;              /* poll: the mismatch that ended the set */
    coll_nmsg_t *m;                 /* the messages */
    zm_req_t *reqs;                 /* two per message: signature (or all), data;
                                     * the signature areas follow them */
    void *blk;                      /* the allocation holding them */
} coll_nmsgs_t;

/* Make set ms empty with room for cap messages, on communicator pc and
 * tag, for rank me; 0, or -1 if out of memory.  ULT context. */
int zm_coll_nmsgs_init(coll_nmsgs_t *ms, const zm_p2p_comm_t *pc, int tag, int me, int cap);

/* Add a send or receive of (buf, count, dt); `units` is what the
 * signature counts (elements of a reduction's element type, else bytes).
 * peer may be ZM_ANY_SOURCE for a receive.  ULT context. */
void zm_coll_nmsgs_add(coll_nmsgs_t *ms, int send, int peer, void *buf, size_t count,
                       const zm_dt_t *dt, size_t units);

/* Post every message; 0, or -1 if out of memory (nothing posted).
 * ULT context, rank me. */
int zm_coll_nmsgs_post(coll_nmsgs_t *ms);

/* Wait until every message is complete, checking each signature as it
 * arrives; on a mismatch stop at once (see coll_nmsgs_t) and return its
 * status with the message in err.  ULT context, rank me. */
zm_status_t zm_coll_nmsgs_wait(coll_nmsgs_t *ms, char *err, size_t errlen);

/* Check the signatures that arrived; *done tells whether every message is
 * complete.  On a mismatch the set is ended as by wait (a rank whose data
 * message then cannot be received without its rank ends the job with a
 * report) and its status returned, then and at every later poll; *done
 * once no receive writes into its buffer any more.  Any thread. */
zm_status_t zm_coll_nmsgs_poll(coll_nmsgs_t *ms, int *done, char *err, size_t errlen);

/* Nonzero once every message is complete.  Any thread. */
int zm_coll_nmsgs_done(const coll_nmsgs_t *ms);

/* Free the set's memory if every message is complete and return 1; else
 * (sends of an ended set still pending) leave it to the requests and
 * return 0.  Any thread. */
int zm_coll_nmsgs_free(coll_nmsgs_t *ms);

/* zm_coll_attach without the check for processes: the shared block of
 * communicator c, all of whose ranks live in this process (shm.c). */
zm_coll_shm_t *zm_coll_attach_block(const zm_p2p_comm_t *c);

/* Fill the hierarchy fields of nx for communicator c (caller's rank);
 * 0, or -1 if out of memory.  Free them with zm_coll_net_hier_free. */
int zm_coll_net_hier_setup(coll_net_t *nx, const zm_p2p_comm_t *c);
void zm_coll_net_hier_free(coll_net_t *nx);

/* Before the owner frees the communicator: settle and drop the local
 * block.  ULT context, the owner. */
void zm_coll_net_hier_quiesce(coll_net_t *nx);

/* Run blocking call a hierarchically if it qualifies (see net_hier.c):
 * returns 1 with the status in *st, or 0 (nothing done).  hist: the
 * digest of the blocking collectives before it, which the leaders'
 * messages carry.  ULT context, rank me. */
int zm_coll_net_hier_run(zm_coll_shm_t *s, int me, const zm_coll_args_t *a, int tag,
                         uint32_t hist, zm_status_t *st, char *err, size_t errlen);

/* Whether call a on nx runs hierarchically: Barrier, Bcast, and Reduce
 * and Allreduce with operations that may combine each process's inputs
 * first (net_hier.c).  Any thread. */
int zm_coll_net_hier_fits(const coll_net_t *nx, const zm_coll_args_t *a);

/* Combine np processes' partial results (m elements of e each, process
 * p's at parts + p * stride) with op in process order, the one order of
 * every hierarchical reduction, blocking or not, so that all give the
 * same bits.  Returns where the result is (inside parts).  Any thread
 * (net_hier.c). */
char *zm_coll_net_combine_parts(const zm_op_t *op, char *parts, size_t stride, int np,
                                size_t m, const zm_dt_t *e);

/* The shared block of nx's members in this process, attached on first
 * use; NULL if out of memory.  ULT context, nx's owner. */
zm_coll_shm_t *zm_coll_net_local(coll_net_t *nx);

/* Start call a (public part) hierarchically as non-blocking collective
 * `tag` of rank me (net_hnbc.c); req completes when it is done, without
 * the rank calling in.  ZM_ERR_NOMEM if out of memory (nothing started).
 * ULT context, rank me. */
zm_status_t zm_coll_net_hnbc_start(zm_coll_shm_t *s, int me, const zm_coll_args_t *a,
                                   int tag, zm_req_t *req);

/* Whether ZMPI_COLL_NET=1 forces the message path (read once).  Any
 * thread. */
int zm_coll_net_forced(void);

/* Whether communicator c has ranks in other processes (or the message
 * path is forced).  Any ULT. */
int zm_coll_net_spans(const zm_p2p_comm_t *c);

/* zm_coll_attach / zm_coll_detach for such a communicator: the stand-in
 * belongs to the calling rank (refs: the rank plus pending requests). */
zm_coll_shm_t *zm_coll_net_attach(const zm_p2p_comm_t *c);
void zm_coll_net_detach(zm_coll_shm_t *s);

/* The entry points of coll.h for such a communicator (same contracts). */
zm_status_t zm_coll_net_run(zm_coll_shm_t *s, int me, const zm_coll_args_t *a, char *err,
                            size_t errlen);
zm_status_t zm_coll_net_start(zm_coll_shm_t *s, int me, const zm_coll_args_t *a,
                              zm_req_t *req);
zm_status_t zm_coll_net_pinit(zm_coll_shm_t *s, int me, const zm_coll_args_t *a,
                              zm_req_t *req, zm_coll_pers_t **out);
void zm_coll_net_pstart(zm_coll_pers_t *x, int me);
void zm_coll_net_pfree(zm_coll_pers_t *x, int me);

/* A collective run as point-to-point messages (net_algo.c). */
typedef struct coll_nsched coll_nsched_t;

/* Build the messages of call `a` (prepared by zm_coll_prepare as for a
 * non-blocking call; copied) for rank me of s with message tag `tag`, and
 * post them, behind signatures with history digest hist (0 for
 * non-blocking calls).  With `hold` set the schedule holds a's operation
 * and derived types until it is freed (non-blocking calls: the user may
 * free them).  `blocking`: the caller waits for the schedule right after
 * (zm_coll_nsched_wait), so its sends to other processes may batch.  NULL
 * if out of memory.  ULT context, rank me. */
coll_nsched_t *zm_coll_nsched_start(zm_coll_shm_t *s, int me, const zm_coll_args_t *a,
                                    int tag, int hold, uint32_t hist, int blocking);

/* Nonzero once every message is complete.  Any thread. */
int zm_coll_nsched_done(const coll_nsched_t *x);

/* Block until every message is complete, or a signature disagrees (its
 * status returned, message in err).  ULT context, rank me. */
zm_status_t zm_coll_nsched_wait(coll_nsched_t *x, char *err, size_t errlen);

/* Check what arrived; *done once nothing is left to wait for (every
 * message complete, or a mismatch, whose status is returned).  Any
 * thread. */
zm_status_t zm_coll_nsched_poll(coll_nsched_t *x, int *done);

/* Finish (reductions, local copies, checks), free, and return the status,
 * st if it is an error already (from wait or poll); err receives the
 * message of a mismatch.  Any thread, once wait or poll is done. */
zm_status_t zm_coll_nsched_finish(coll_nsched_t *x, zm_status_t st, char *err, size_t errlen);

/* The predefined MPI_BYTE (src/dt/dt_predef.c), for copies of raw bytes. */
extern zm_dt_t zmpi_dt_MPI_BYTE;

/* Make req the request of a collective just started: it completes with an
 * empty status (no source, tag or bytes) when the collective does.
 * ULT context, the rank owning req. */
static inline void zm_coll_req_start(zm_req_t *req)
{
    zm_p2p_req_reset(req, ZM_REQ_DONE_ONLY);
    req->st_source = -1;
    req->st_tag = -1;
    req->st_bytes = 0;
    req->dt = &zmpi_dt_MPI_BYTE;
    req->count = 0;
}

#endif /* ZM_COLL_IMPL_H */
