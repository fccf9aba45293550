/*
 * coop.c: the cooperative copy of large messages between ranks of one
 * process: the completer of a request and its waiter copy the message's
 * chunks together, each from its own end (p2p_impl.h: when a copy is
 * split; p2p.c: who starts one).
 */
#include "p2p/p2p_impl.h"

#include <string.h>

/* From this size on the cooperative copy streams past the caches
 * (zm_arch_copy_stream): source and destination together no longer fit
 * in a typical last-level cache. */
#define COOP_STREAM_MIN (16 * 1024 * 1024)

/* A non-contiguous layout spreads its data over more lines than it fills
 * (a vector of blocks one gap apart touches twice its bytes), so its
 * copies stream from half that size: the destination lines that runs of
 * 256 bytes and more (or of whole aligned lines) fill whole
 * (zm_dt_copy_range_stream).  Measured on Zen 5, alternated runs: vectors
 * of 512 B blocks 8 MiB 267-314 -> 142-245 us, of 64 B blocks 368-466 ->
 * 212-306 us. */
#define COOP_NC_STREAM_MIN (8 * 1024 * 1024)

/* Past 1 MiB a copy is split into about this many chunks (their size is
 * rounded down to 64 bytes, so a short one may follow), no longer 32 KiB
 * ones.  Each chunk costs a claim on the line both sides write (and,
 * streamed, a store fence that waits for its streaming stores to drain),
 * and the sides need only a few chunks each to balance.  Alternated runs
 * on Zen 5, 2 workers, medians of 5-9, against 32 KiB chunks: contiguous
 * ping-pong 2-8 MiB 13-18 % faster, 16-64 MiB 3.5-7 % (p2p_bw 3-7 %
 * higher); vectors of 4 KiB blocks 8 MiB 260 -> 252 us, of 512 B blocks
 * 294 -> 275, the MILC face 593 -> 564 (4 MiB 134 -> 129), NAS MG 2 MiB
 * 290 -> 270.  16 and 64 chunks were slower than 32. */
#define COOP_MAX_CHUNKS 32

/* Chunk size of req's cooperative copy; both sides compute the same. */
static inline size_t coop_chunk_size(const zm_req_t *req)
{
    size_t n = req->coop.bytes, c;
    if (req->coop.ddt->contig && req->coop.sdt->contig)
        c = COOP_CHUNK;
    else
        c = n / 4 < COOP_NC_CHUNK_MIN ? COOP_NC_CHUNK_MIN : n / 4 > COOP_CHUNK ? COOP_CHUNK : n / 4;
    /* No more than about COOP_MAX_CHUNKS chunks, each then a multiple of
     * 64 bytes: in a contiguous copy only the message's ends can leave a
     * cache line to both writers. */
    size_t few = (n / COOP_MAX_CHUNKS) & ~(size_t)63;
    return few > c ? few : c;
}

/* Copy chunk [off, off + len) of `req`'s cooperative copy. */
static void coop_chunk(zm_req_t *req, size_t off, size_t len)
{
    if (req->coop.ddt->contig && req->coop.sdt->contig) {
        if (req->coop.bytes >= COOP_STREAM_MIN)
            zm_arch_copy_stream(req->coop.dst + off, req->coop.src + off, len);
        else
            memcpy(req->coop.dst + off, req->coop.src + off, len);
        return;
    }
    if (req->coop.bytes >= COOP_NC_STREAM_MIN)
        zm_dt_copy_range_stream(req->coop.dst, req->coop.dcount, req->coop.ddt,
                                req->coop.src, req->coop.scount, req->coop.sdt, off, len);
    else
        zm_dt_copy_range(req->coop.dst, req->coop.dcount, req->coop.ddt, req->coop.src,
                         req->coop.scount, req->coop.sdt, off, len);
}

/* Claim the next chunk of `req`'s cooperative copy from the front or
 * (back != 0) from the back; returns its index, or SIZE_MAX when none is
 * left.  The two ends share one word so that a compare-and-swap sees both:
 * a chunk is taken only while the front is below the back. */
static size_t coop_claim(zm_req_t *req, int back)
{
    uint64_t w = atomic_load_explicit(&req->coop.ends, memory_order_relaxed);
    for (;;) {
        uint32_t f = (uint32_t)w, b = (uint32_t)(w >> 32);
        if (f >= b)
            return SIZE_MAX;
        uint64_t nw = back ? w - ((uint64_t)1 << 32) : w + 1;
        if (atomic_compare_exchange_weak_explicit(&req->coop.ends, &w, nw,
                                                  memory_order_relaxed, memory_order_relaxed))
            return back ? (size_t)b - 1 : f;
    }
}

/* Take and copy chunks of `req`'s cooperative copy until none is left,
 * from the front or (back != 0) from the back.  Either side may call it;
 * the caller holds a reference to req. */
static void coop_take(zm_req_t *req, int back)
{
    size_t bytes = req->coop.bytes, chunk = coop_chunk_size(req);
    for (;;) {
        size_t c = coop_claim(req, back);
        if (c == SIZE_MAX)
            return;
        size_t off = c * chunk;
        size_t len = bytes - off < chunk ? bytes - off : chunk;
        coop_chunk(req, off, len);
        atomic_fetch_add_explicit(&req->coop.done, len, memory_order_release);
    }
}

void zm_p2p_coop_help(zm_req_t *req)
{
    if (atomic_load_explicit(&req->coop.active, memory_order_acquire))
        coop_take(req, req->coop.helper_back);
}

/* Copy the first n data bytes of (src, scount, sdt) into (dst, dcount,
 * ddt) before completing `req`, letting req's waiter help.  The waiter
 * owns req and only touches its coop fields, which outlive the copy, so no
 * lifetime race exists; the completer waits for every taken chunk before
 * it completes req.  The datatypes stay alive: the sender's request and
 * the receive request hold them until they complete.
 *
 * The receiving rank's side takes chunks from the front and the sending
 * rank's side from the back, whichever of them completes: in a repeated
 * exchange each side then copies about the same bytes every time, so the
 * lines of both buffers stay in the cache of the core that last wrote
 * them instead of moving between the cores' caches.  Taking chunks in
 * turn from one counter gave a side different chunks from message to
 * message, depending on which side completed and on timing. */
void zm_p2p_coop_copy(zm_req_t *req, void *dst, size_t dcount, const zm_dt_t *ddt,
                      const void *src, size_t scount, const zm_dt_t *sdt, size_t n)
{
    req->coop.dst = dst;
    req->coop.src = src;
    req->coop.ddt = ddt;
    req->coop.sdt = sdt;
    req->coop.dcount = dcount;
    req->coop.scount = scount;
    req->coop.bytes = n;
    /* A receive request is completed by the sender and waited for by the
     * receiver; a send request the other way round. */
    int completer_back = req->kind == ZM_REQ_RECV;
    req->coop.helper_back = !completer_back;
    size_t chunk = coop_chunk_size(req), nchunks = (n + chunk - 1) / chunk;
    atomic_store_explicit(&req->coop.ends, (uint64_t)nchunks << 32, memory_order_relaxed);
    atomic_store_explicit(&req->coop.done, 0, memory_order_relaxed);
    atomic_store_explicit(&req->coop.active, 1, memory_order_release);
    coop_take(req, completer_back);
    atomic_store_explicit(&req->coop.active, 0, memory_order_relaxed);
    while (atomic_load_explicit(&req->coop.done, memory_order_acquire) < n)
        zm_arch_cpu_relax();
}
