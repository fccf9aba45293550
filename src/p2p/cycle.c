/*
 * cycle.c: buffering the messages of standard-mode send cycles.
 *
 * Two ranks that both MPI_Send a message above the eager threshold to each
 * other before receiving wait for each other forever: each rendezvous send
 * waits for a receive that its receiver posts only after its own send.  MPI
 * 4.1 section 3.5 calls such programs unsafe, since a standard-mode send
 * may or may not be buffered; they are common, and process-based MPIs
 * often get through them for small sizes only.  zmpi sees the whole job:
 * when the ult layer finds every rank parked (the deadlock detector), this
 * file looks for ranks each blocked in one standard-mode rendezvous send
 * whose receiver is itself such a rank, around a cycle.  It copies each of
 * those messages to the heap, where it becomes an ordinary message that the
 * receiver copies from, completes the senders, and the job goes on.  It
 * warns once, naming the ranks, the sizes and the rule.
 *
 * Everything else stays a deadlock: a synchronous send (it must meet its
 * receive), a rank blocked in a receive, a chain of senders that does not
 * close (its end waits for something else).  Buffered bytes are bounded by
 * ZMPI_CYCLE_BUFFER_MAX (default 1 GiB, counted while the messages wait);
 * a cycle beyond it is reported as a deadlock with a note that buffering
 * was refused.
 *
 * The breaker runs on a worker thread outside any rank while all ranks are
 * parked, so nothing changes under it; it still takes each receiver's
 * queue lock to rewrite the queue, as every other queue change does.  It
 * wakes the senders through the normal completion path (zm_ult_wake puts a
 * rank on its worker's queue; the ult layer keeps that worker awake).
 */
#include "p2p/p2p.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_MAX ((size_t)1 << 30)

/* Bytes of cycle messages not yet received, their limit, and whether the
 * warning was printed.  Job-wide: the limit bounds the process's memory. */
static _Atomic size_t live_bytes;
static size_t max_bytes = DEFAULT_MAX;
static _Atomic int warned;

/* The rendezvous send that world rank i is blocked in and that a cycle
 * may buffer, or NULL: a standard-mode send waited for alone, still
 * queued at its receiver. */
static zm_req_t *blocked_send(int i)
{
    const zm_p2p_rank_t *r = &zm_p2p_ranks[i];
    zm_req_t *q = r->wait_req;
    if (zm_ult_get(i)->state != ZM_ULT_PARKED || !q || r->wait_nreg != 1)
        return NULL;
    if (q->kind != ZM_REQ_SEND || q->mode != ZM_SEND_STD || zm_p2p_req_done(q) ||
        q->smsg != &q->msg || q->msg.kind != ZM_MSG_RNDV || q->msg.sreq != q)
        return NULL;
    return q;
}

/* Replace rendezvous send q's queued envelope by heap copy h of its data,
 * in the same place of the queue (message order is kept).  Returns 0 if
 * the envelope is no longer queued. */
static int swap_in(zm_req_t *q, zm_msg_t *h)
{
    zm_p2p_rank_t *r = &zm_p2p_ranks[q->owner];
    zm_msg_t *m = &q->msg;
    int ok;
    zm_spin_lock(&r->lock);
    ok = zm_p2p_unexp_holds(r, m);
    if (ok) {
        h->ctx = m->ctx;
        h->src = m->src;
        h->tag = m->tag;
        h->bytes = m->bytes;
        h->kind = ZM_MSG_HEAP;
        h->sreq = NULL;
        h->data = h + 1;
        zm_dt_pack(h->data, m->sbuf, m->scount, m->sdt, m->bytes);
        atomic_store_explicit(&h->ready, 1, memory_order_relaxed);
        zm_dlist_push(m->link.next, &h->link);
        zm_dlist_remove(&m->link);
    }
    zm_spin_unlock(&r->lock);
    return ok;
}

/* Write "ranks a, b and c" (or "rank a" when it sends to itself) for the
 * k ranks of cycle c, at most 16 named. */
static void name_ranks(char *buf, size_t len, const int *c, int k)
{
    size_t at = (size_t)snprintf(buf, len, k == 1 ? "rank %d" : "ranks %d", c[0]);
    for (int j = 1; j < k && j < 16 && at < len; j++)
        at += (size_t)snprintf(buf + at, len - at, "%s%d", j == k - 1 ? " and " : ", ", c[j]);
    if (k > 16 && at < len)
        snprintf(buf + at, len - at, " and %d more", k - 16);
}

/* The one-time warning for cycle c of k ranks, `total` bytes. */
static void warn(const int *c, int k, zm_req_t *const *q, size_t total)
{
    char who[512], sizes[512];
    size_t at = 0;
    name_ranks(who, sizeof(who), c, k);
    sizes[0] = '\0';
    for (int j = 0; j < k && j < 8 && at < sizeof(sizes); j++)
        at += (size_t)snprintf(sizes + at, sizeof(sizes) - at, "%s%d -> %d: %zu bytes",
                               j ? ", " : "", c[j], q[j]->owner, q[j]->msg.bytes);
    if (k > 8 && at < sizeof(sizes))
        snprintf(sizes + at, sizeof(sizes) - at, ", ...");
    fflush(stdout);
    fprintf(stderr, "zmpi: warning: %s %s blocked in a standard-mode send (MPI_Send) %s, of "
            "a message too large to be sent eagerly (%s), before receiving: a cycle that no "
            "receive could ever end.  zmpi buffered %s (%zu bytes) and the job goes on.  The "
            "program is unsafe: by MPI 4.1 section 3.5 a "
            "standard-mode send may wait until the matching receive is posted, so with "
            "another MPI library or larger messages it deadlocks.  (Warned once; later "
            "cycles are buffered silently, up to ZMPI_CYCLE_BUFFER_MAX=%zu bytes at a "
            "time.)\n", who, k == 1 ? "was" : "were each",
            k == 1 ? "to itself" : "to the next of them", sizes,
            k == 1 ? "the message" : "these messages", total, max_bytes);
    fflush(stderr);
}

/* Buffer the k blocked sends q of cycle c.  Returns 1 if it did (and
 * completed the senders), 0 with a note if it refused. */
static int buffer_cycle(const int *c, int k, zm_req_t *const *q, char *note, size_t len)
{
    char who[512];
    size_t total = 0;
    for (int j = 0; j < k; j++)
        total += q[j]->msg.bytes;
    zm_msg_t **h = calloc((size_t)k, sizeof(*h));
    int fits = atomic_load(&live_bytes) + total <= max_bytes && total <= max_bytes;
    for (int j = 0; h && fits && j < k; j++)
        if (!(h[j] = malloc(sizeof(zm_msg_t) + q[j]->msg.bytes)))
            fits = -1;
    if (!h || fits != 1) {
        name_ranks(who, sizeof(who), c, k);
        if (fits == 0)
            snprintf(note, len, "buffering the send cycle of %s (%zu bytes) was refused: it "
                     "would hold more than ZMPI_CYCLE_BUFFER_MAX=%zu bytes of buffered "
                     "messages", who, total, max_bytes);
        else
            snprintf(note, len, "buffering the send cycle of %s (%zu bytes) was refused: out "
                     "of memory", who, total);
        for (int j = 0; h && j < k; j++)
            free(h[j]);
        free(h);
        return 0;
    }
    if (!atomic_exchange(&warned, 1))
        warn(c, k, q, total);
    /* Every envelope leaves its queue before any sender is woken: a woken
     * rank goes on to receive, and would otherwise match (and complete)
     * the next rank's envelope while we are about to swap it. */
    for (int j = 0; j < k; j++) {
        if (swap_in(q[j], h[j])) {
            atomic_fetch_add(&live_bytes, q[j]->msg.bytes);
        } else {
            free(h[j]);
            h[j] = NULL;
        }
    }
    /* Each request lives on its sender's stack until that sender runs
     * again, which only its own completion allows. */
    for (int j = 0; j < k; j++) {
        if (!h[j])
            continue;
        q[j]->st_error = ZM_OK;
        zm_p2p_req_complete(q[j]);
    }
    free(h);
    return 1;
}

/* Follow the senders from rank `start` along next[] (the receiver of each
 * one's blocked send, -1 for ranks that are not blocked senders); mark
 * what it visits in seen[] (1: on this walk, 2: done).  If the walk closes
 * a cycle, buffer it.  Returns 1 if it buffered one, 0 if not, -1 if it
 * refused one (note written). */
static int walk(int start, const int *next, char *seen, int *path, zm_req_t **q, char *note,
                size_t len)
{
    int k = 0, x = start, rc = 0;
    while (x >= 0 && !seen[x]) {
        seen[x] = 1;
        path[k++] = x;
        x = next[x];
    }
    if (x >= 0 && seen[x] == 1) {
        int first = 0;
        while (path[first] != x)
            first++;
        for (int j = first; j < k; j++)
            q[j - first] = blocked_send(path[j]);
        rc = buffer_cycle(path + first, k - first, q, note, len) ? 1 : -1;
    }
    for (int j = 0; j < k; j++)
        seen[path[j]] = 2;
    return rc;
}

/* The resolver given to the ult layer (zm_ult_resolve_fn). */
static int resolve(char *note, size_t len)
{
    int n = zm_ult_count(), progress = 0;
    int *next = malloc(sizeof(int) * 2 * (size_t)n);
    char *seen = calloc((size_t)n, 1);
    zm_req_t **q = malloc(sizeof(*q) * (size_t)n);
    if (!next || !seen || !q) {
        snprintf(note, len, "send cycles could not be looked for: out of memory");
        free(next);
        free(seen);
        free(q);
        return 0;
    }
    int *path = next + n;
    for (int i = 0; i < n; i++) {
        zm_req_t *s = blocked_send(i);
        next[i] = s ? s->owner : -1;
    }
    for (int i = 0; i < n; i++)
        if (next[i] >= 0 && !seen[i] && walk(i, next, seen, path, q, note, len) > 0)
            progress = 1;
    free(next);
    free(seen);
    free(q);
    if (progress)
        note[0] = '\0';
    return progress;
}

void zm_p2p_cycle_init(void)
{
    const char *s = getenv("ZMPI_CYCLE_BUFFER_MAX");
    char *end;
    if (s && *s) {
        unsigned long long v = strtoull(s, &end, 10);
        if (*end == '\0')
            max_bytes = (size_t)v;
        else
            fprintf(stderr, "zmpi: ZMPI_CYCLE_BUFFER_MAX=%s is not a number of bytes; using "
                    "%zu\n", s, max_bytes);
    }
    zm_ult_set_resolver(resolve);
}

void zm_p2p_cycle_release(zm_msg_t *m)
{
    atomic_fetch_sub(&live_bytes, m->bytes);
    free(m);
}
