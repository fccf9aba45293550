/*
 * shm.c: the shared control block of each communicator, its phases and the
 * release flags.
 *
 * The ranks of a communicator find their common block in a process-wide
 * table keyed by (context, world rank of rank 0): the context alone is not
 * enough, because every rank's MPI_COMM_SELF has the same one.  The first
 * rank to look creates the block; each rank caches it in its communicator
 * object, so the table lock is taken once per rank and communicator.
 *
 * A phase is a counter and one flag per rank (a sense-reversing barrier
 * whose "sense" is each waiter's own flag): each rank resets its flag,
 * counts itself in, and waits on its flag; the last one resets the counter
 * and releases every flag, waking ranks that parked.  Per-rank flags let a
 * waiter park and be woken individually, which a single shared sense word
 * would not.
 */
#include "coll/coll_impl.h"

#include <stdlib.h>
#include <string.h>

#define TABLE_SIZE 256

static struct {
    zm_spinlock_t lock;             /* guards the table and refs */
    zm_coll_shm_t *table[TABLE_SIZE];
} shm_table;

static unsigned table_hash(uint32_t ctx, int world0)
{
    return (ctx * 2654435761u ^ (unsigned)world0 * 40503u) % TABLE_SIZE;
}

/* Bytes of inline data per rank and ring entry: small communicators get
 * room for the messages where a collective costs little more than its
 * synchronisation, large ones keep the block small. */
static size_t inl_cap_for(int n)
{
    if (n <= 2)
        return 4096; /* Bcast only beyond ZM_COLL_INLINE_MAX */
    if (n <= 4)
        return 1024;
    if (n <= 16)
        return 512;
    return n <= ZM_COLL_FAST_RANKS ? 256 : 128;
}

/* Ring entries per rank: deep enough that a Bcast root in a loop rarely
 * waits for its readers (16 ranks on 2 workers: 1.8 us per Bcast with 2
 * entries, 0.65 with 8, 0.36 with 32, 0.33 with 64), within about 1 MB
 * per communicator (one rank has nobody to run ahead of).  Two ranks take
 * 32 entries of twice the size (8 B Bcast 0.041 us with 32 entries of
 * 4 KiB, 0.042 with 64 of 2 KiB).
 * ZMPI_COLL_RING overrides it, for measurements. */
static unsigned ring_for(int n)
{
    const char *e = getenv("ZMPI_COLL_RING");
    int want = e ? atoi(e) : n == 1 ? 2 : n == 2 ? 32 : n <= 16 ? 64 : n <= 64 ? 16 : n <= 256 ? 8 : 4;
    unsigned r = 2; /* a power of two: entries are found with a mask */
    while (r < ZM_COLL_RING_MAX && (int)r < want)
        r *= 2;
    return r;
}

/* The worker that rank r of c runs on now.  Wake-ups may move a rank to
 * another worker later (ult.c): the groups below only save work when they
 * hold, the phase's counters are correct whatever runs where. */
static int rank_worker(const zm_p2p_comm_t *c, int r)
{
    return zm_ult_get(c->world ? c->world[r] : r)->worker_id;
}

/* Group the block's ranks by the worker they run on.  Returns 0, or -1 if
 * out of memory. */
static int shm_groups(zm_coll_shm_t *s, const zm_p2p_comm_t *c)
{
    int n = c->size, nw = zm_ult_nworkers();
    int *count = calloc((size_t)nw, sizeof(int)), *first = calloc((size_t)nw, sizeof(int));
    int *index = malloc(sizeof(int) * (size_t)nw), *wk = malloc(sizeof(int) * (size_t)n);
    s->group_ranks = malloc(sizeof(int) * (size_t)n);
    s->groups = aligned_alloc(ZM_CACHE_LINE, sizeof(coll_group_t) * (size_t)(n < nw ? n : nw));
    if (!count || !first || !index || !wk || !s->group_ranks || !s->groups) {
        free(count), free(first), free(index), free(wk);
        return -1;
    }
    /* Each rank's worker is read once: a wake-up may move a rank between
     * two reads, and a group counted on one worker and filled on another
     * wrote past its room (heap corruption or SIGSEGV below, seen in
     * net_io_agg across processes about once in 300 runs). */
    for (int r = 0; r < n; r++)
        count[wk[r] = rank_worker(c, r)]++;
    s->ngroups = 0;
    for (int w = 0, at = 0; w < nw; w++) {
        index[w] = count[w] ? s->ngroups++ : -1;
        first[w] = at;
        at += count[w];
    }
    memset(s->groups, 0, sizeof(coll_group_t) * (size_t)s->ngroups);
    for (int r = 0; r < n; r++) {
        int w = wk[r];
        coll_group_t *g = &s->groups[index[w]];
        g->rank = s->group_ranks + first[w];
        s->group_ranks[first[w] + g->members++] = r;
        s->slots[r].group = g;
    }
    free(count), free(first), free(index), free(wk);
    return 0;
}

static void shm_free(zm_coll_shm_t *s)
{
    for (int q = 0; q < s->size; q++)
        for (int j = 0; j < ZM_COLL_STAGES; j++)
            free(s->slots[q].stage[j]);
    free(s->groups);
    free(s->group_ranks);
    free(s);
}

static zm_coll_shm_t *shm_new(const zm_p2p_comm_t *c, int world0, int asym)
{
    size_t n = (size_t)c->size, cap = inl_cap_for(c->size);
    unsigned ring = ring_for(c->size);
    size_t slots = sizeof(zm_coll_shm_t) + sizeof(coll_slot_t) * n;
    size_t pubs = (sizeof(coll_rec_t) * ring * n + sizeof(zm_coll_args_t) * 2 * n +
                   ZM_CACHE_LINE - 1) & ~(size_t)(ZM_CACHE_LINE - 1);
    size_t bytes = slots + pubs + (cap + ZM_COLL_AREA_PAD) * ring * n;
    zm_coll_shm_t *s = aligned_alloc(ZM_CACHE_LINE, (bytes + ZM_CACHE_LINE - 1) &
                                     ~(size_t)(ZM_CACHE_LINE - 1));
    if (!s)
        return NULL;
    memset(s, 0, bytes);
    s->ctx = c->ctx;
    s->world0 = world0;
    s->size = c->size;
    s->ring = ring;
    s->asym = asym;
    s->spub = (zm_coll_args_t *)((char *)s + slots);
    s->rec = (coll_rec_t *)(s->spub + 2 * n);
    s->inl_cap = cap;
    s->rank_bytes = (cap + ZM_COLL_AREA_PAD) * ring;
    s->bcast_lim = c->size <= ZM_COLL_FAST_RANKS && cap <= ZM_COLL_FAST_MAX ? cap + 1 : 0;
    if (s->bcast_lim && c->size >= ZM_COLL_STAGE_RANKS) {
        size_t lim = ZM_COLL_STAGE_PER_RANK * n;
        s->stage_lim = (lim < ZM_COLL_STAGE_MAX ? lim : ZM_COLL_STAGE_MAX) + 1;
    }
    s->inl = (unsigned char *)s + slots + pubs;
    if (shm_groups(s, c) != 0) {
        shm_free(s);
        return NULL;
    }
    return s;
}

zm_coll_shm_t *zm_coll_attach(const zm_p2p_comm_t *c)
{
    /* A communicator across processes runs its collectives as messages
     * (net.c); each rank gets a stand-in of its own. */
    if (c->size > 1 && zm_coll_net_spans(c))
        return zm_coll_net_attach(c);
    return zm_coll_attach_block(c);
}

zm_coll_shm_t *zm_coll_attach_block(const zm_p2p_comm_t *c)
{
    int world0 = c->world ? c->world[0] : 0;
    if (c->size == 1)
        world0 = zm_ult_self()->id; /* every MPI_COMM_SELF shares one context */
    unsigned h = table_hash(c->ctx, world0);
    zm_coll_shm_t *s;
    /* Whether publishers may skip their fence, decided before the lock
     * (the first decision is a slow system call). */
    int asym = zm_core_asym_fence();
    zm_spin_lock(&shm_table.lock);
    for (s = shm_table.table[h]; s; s = s->hnext)
        if (s->ctx == c->ctx && s->world0 == world0 && s->size == c->size)
            break;
    if (!s && (s = shm_new(c, world0, asym)) != NULL) {
        s->hnext = shm_table.table[h];
        shm_table.table[h] = s;
    }
    if (s) {
        s->refs++;
        s->slots[c->rank].ult = zm_ult_self();
    }
    zm_spin_unlock(&shm_table.lock);
    return s;
}

void zm_coll_shm_retain(zm_coll_shm_t *s)
{
    zm_spin_lock(&shm_table.lock);
    s->refs++;
    zm_spin_unlock(&shm_table.lock);
}

void zm_coll_detach(zm_coll_shm_t *s)
{
    int last;
    zm_spin_lock(&shm_table.lock);
    last = --s->refs == 0;
    if (s->nx) { /* a stand-in (net.c): in no table */
        zm_spin_unlock(&shm_table.lock);
        if (last)
            zm_coll_net_detach(s);
        return;
    }
    if (last) {
        zm_coll_shm_t **pp = &shm_table.table[table_hash(s->ctx, s->world0)];
        while (*pp != s)
            pp = &(*pp)->hnext;
        *pp = s->hnext;
    }
    zm_spin_unlock(&shm_table.lock);
    if (last)
        shm_free(s);
}

void zm_coll_wake_sleepers(zm_coll_shm_t *s, int me)
{
    for (int q = 0; q < s->size; q++)
        if (q != me && atomic_load_explicit(&s->slots[q].pwake, memory_order_relaxed) != 1)
            zm_coll_flag_release(&s->slots[q].pwake, &s->slots[q].ult);
}

/* Polls (or yields, counted as YIELD_COST polls) before a waiter parks. */
#define YIELD_COST 16

/* A spinning waiter of a job across processes also drives the network
 * now and then: the flag may wait for a message from another process
 * (a hierarchical collective's leader, parked on this worker, waits for
 * it), and while this rank spins its worker polls nothing, so with one
 * worker the message waited for the whole spin (measured: 0.5 ms per
 * Allreduce of 2 ranks per process on one worker instead of 5 us). */
static inline void spin_poll(int i)
{
    if (ZM_UNLIKELY(zm_net_remote != NULL) && (i & 15) == 0)
        zm_net_poll();
}

void zm_coll_wait_seq(zm_coll_shm_t *s, int me, _Atomic uint32_t *p, uint32_t want)
{
    for (int i = 0; i < ZM_P2P_WAIT_SPINS; i++) {
        if (zm_coll_reached(atomic_load_explicit(p, memory_order_acquire), want))
            return;
        spin_poll(i);
        if (zm_ult_alone()) {
            zm_arch_cpu_relax();
        } else {
            zm_ult_yield();
            i += YIELD_COST;
        }
    }
    coll_slot_t *sl = &s->slots[me];
    for (;;) {
        /* Register, then look once more: a publisher that missed us in
         * sleepers stored its pseq before we look. */
        atomic_store_explicit(&sl->pwake, 0, memory_order_relaxed);
        atomic_fetch_add_explicit(&s->sleepers, 1, memory_order_seq_cst);
        if (s->asym)
            zm_arch_membarrier();
        if (!zm_coll_reached(atomic_load_explicit(p, memory_order_seq_cst), want))
            zm_coll_flag_wait(&sl->pwake, &sl->ult);
        atomic_fetch_sub_explicit(&s->sleepers, 1, memory_order_relaxed);
        if (zm_coll_reached(atomic_load_explicit(p, memory_order_acquire), want))
            return;
    }
}

/* Park commit: stay parked unless the flag was released meanwhile. */
static int flag_commit(void *arg)
{
    zm_coll_flag_t *f = arg;
    uint32_t expect = 0;
    return !atomic_compare_exchange_strong_explicit(f, &expect, 2, memory_order_acq_rel,
                                                    memory_order_acquire);
}

void zm_coll_flag_wait(zm_coll_flag_t *f, zm_ult_t **ult)
{
    for (int i = 0; i < ZM_P2P_WAIT_SPINS && zm_ult_alone(); i++) {
        if (atomic_load_explicit(f, memory_order_acquire) == 1)
            return;
        spin_poll(i);
        if (i > 256)
            zm_arch_cpu_relax();
    }
    if (atomic_load_explicit(f, memory_order_acquire) == 1)
        return;
    /* A stale request would make a deadlock report describe an old wait. */
    zm_p2p_waiter()->wait_req = NULL;
    /* The owner's slot names who to wake: the rank's ULT, or a foreign
     * thread running this collective for it (MPI_THREAD_MULTIPLE).  Set
     * before the commit publishes the wait; releasers read it after
     * seeing the flag at 2 (zm_coll_flag_release). */
    zm_ult_t *self = zm_ult_self();
    if (ZM_UNLIKELY(*ult != self))
        *ult = self;
    zm_ult_park(flag_commit, (void *)f);
}

/* Release the ranks of group g other than me (they wait on their go
 * flags).  They run on this worker, so the releases only queue them. */
static void release_group(zm_coll_shm_t *s, const coll_group_t *g, int me)
{
    for (int i = 0; i < g->members; i++) {
        int r = g->rank[i];
        if (r != me)
            zm_coll_flag_release(&s->slots[r].go, &s->slots[r].ult);
    }
}

/*
 * A phase in two levels: the ranks of one worker count themselves in
 * their group; the last of them (the group's leader for this phase)
 * counts the group in the block and waits; the last leader runs the hook
 * and releases the other leaders, and every leader releases its group.
 * Only one rank per worker touches the block's counter and only one is
 * woken from another worker, where all ranks counting on one line and
 * each woken by the last arriver cost a cache-line transfer per rank and
 * a cross-worker wake-up per remote rank.
 */
int zm_coll_phase(zm_coll_shm_t *s, int me, void (*hook)(zm_coll_shm_t *, void *), void *arg,
                  int defer)
{
    coll_slot_t *sl = &s->slots[me];
    coll_group_t *g = sl->group;
    atomic_store_explicit(&sl->go, 0, memory_order_relaxed);
    /* acq_rel: the last arriver of the group, and then of the block, sees
     * every rank's published arguments and flag reset; the counter resets
     * are ordered before the releases. */
    if (g->members > 1) {
        if (atomic_fetch_add_explicit(&g->arrived, 1, memory_order_acq_rel) !=
            g->members - 1) {
            if (defer)
                return 1;
            zm_coll_flag_wait(&sl->go, &sl->ult);
            return 0;
        }
        atomic_store_explicit(&g->arrived, 0, memory_order_relaxed);
        g->leader = me;
    }
    if (atomic_fetch_add_explicit(&s->arrived, 1, memory_order_acq_rel) != s->ngroups - 1) {
        /* Alone on its worker, the rank releases nobody: it may defer. */
        if (defer && g->members == 1)
            return 1;
        zm_coll_flag_wait(&sl->go, &sl->ult);
    } else {
        atomic_store_explicit(&s->arrived, 0, memory_order_relaxed);
        if (hook)
            hook(s, arg);
        /* Other workers first: they run in parallel with the wake-ups of
         * this worker's ranks, which only queue them. */
        for (int i = 0; i < s->ngroups; i++) {
            const coll_group_t *o = &s->groups[i];
            /* A rank alone on its worker leads its group without writing
             * it down (2 ranks on 2 workers: no line more per phase). */
            int r = o->members == 1 ? o->rank[0] : o->leader;
            if (o != g)
                zm_coll_flag_release(&s->slots[r].go, &s->slots[r].ult);
        }
    }
    release_group(s, g, me);
    return 0;
}
