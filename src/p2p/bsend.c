/*
 * bsend.c: the buffers of buffered-mode sends.
 *
 * A rank has one area for the process (MPI_Buffer_attach) and one per
 * communicator with a buffer attached (MPI_Comm_attach_buffer); a buffered
 * send uses its communicator's area if there is one, else the process's
 * (the API layer picks it with zm_p2p_bsend_select).  A buffered send that
 * finds no posted receive copies its envelope and data into the area.  In
 * a user buffer, segments are kept in address order and placed first-fit;
 * in an automatic area (MPI_BUFFER_AUTOMATIC) each message gets heap
 * memory of its own.  The receiver releases a segment when it has copied
 * the data out, so each area has a lock (sender and receiver may run on
 * different workers); the release also completes the non-blocking flushes
 * waiting for the area to empty.
 */
#include "p2p/p2p.h"

#include <stdlib.h>
#include <string.h>

/* One area.  Reached by its owner through the rank's list, and by the
 * receivers of its messages through the segment headers. */
typedef struct zm_p2p_barea {
    zm_dlink_t link;           /* in the owner's bsend_segs list */
    uint32_t key;              /* communicator context or ZM_BSEND_PROCESS */
    zm_spinlock_t lock;        /* guards segs, live and flushers */
    char *buf;                 /* the user's buffer; NULL when automatic */
    size_t size;               /* its size */
    int automatic;             /* MPI_BUFFER_AUTOMATIC */
    zm_dlink_t segs;           /* live segments of a user buffer, by address */
    int live;                  /* messages not yet received */
    zm_req_t **flushers;       /* requests of pending non-blocking flushes */
    int nflush, capflush;      /* their number and room */
} zm_p2p_barea_t;

/* Header of one segment; the envelope follows.  A segment of an
 * automatic area is in no list: its link's `prev` holds the area instead,
 * and bit 0 of its size (sizes are multiples of BSEG_ALIGN) marks it. */
typedef struct bseg {
    zm_dlink_t link;           /* in area->segs, by address (user buffers) */
    size_t size;               /* bytes used, header included; | 1 if automatic */
} bseg_t;

#define BSEG_ALIGN 16

/* A message of n bytes must fit in n + ZM_P2P_BSEND_OVERHEAD bytes of the
 * attached buffer, however the buffer is aligned: header, rounding of the
 * segment, and the alignment lost once at the start of the buffer. */
_Static_assert(sizeof(bseg_t) + sizeof(zm_msg_t) + 2 * (BSEG_ALIGN - 1)
                   <= ZM_P2P_BSEND_OVERHEAD,
               "ZM_P2P_BSEND_OVERHEAD is too small for the segment header");

static size_t bseg_size(size_t bytes)
{
    size_t n = sizeof(bseg_t) + sizeof(zm_msg_t) + bytes;
    return (n + BSEG_ALIGN - 1) & ~(size_t)(BSEG_ALIGN - 1);
}

/* The area of a segment sent by rank `owner`: an automatic one is in the
 * header; a user buffer is the owner's area that contains the segment
 * (it cannot be detached while the segment is live). */
static zm_p2p_barea_t *bseg_area(zm_p2p_rank_t *owner, bseg_t *s)
{
    if (s->size & 1)
        return (zm_p2p_barea_t *)(void *)s->link.prev;
    zm_p2p_barea_t *found = NULL;
    zm_dlink_t *pos;
    zm_spin_lock(&owner->bsend_lock);
    zm_dlist_for_each(pos, &owner->bsend_segs) {
        zm_p2p_barea_t *a = zm_container_of(pos, zm_p2p_barea_t, link);
        if (a->buf && (char *)s >= a->buf && (char *)s < a->buf + a->size) {
            found = a;
            break;
        }
    }
    zm_spin_unlock(&owner->bsend_lock);
    return found;
}

/* The caller's area of `key`, or NULL. */
static zm_p2p_barea_t *area_find(zm_p2p_rank_t *me, uint32_t key)
{
    zm_p2p_barea_t *found = NULL;
    zm_dlink_t *pos;
    zm_spin_lock(&me->bsend_lock);
    zm_dlist_for_each(pos, &me->bsend_segs) {
        zm_p2p_barea_t *a = zm_container_of(pos, zm_p2p_barea_t, link);
        if (a->key == key) {
            found = a;
            break;
        }
    }
    zm_spin_unlock(&me->bsend_lock);
    return found;
}

/* Find room for `need` bytes in a user buffer; returns the offset or
 * (size_t)-1.  a->lock held. */
static size_t bsend_fit(zm_p2p_barea_t *a, size_t need)
{
    size_t start = (size_t)((-(uintptr_t)a->buf) & (BSEG_ALIGN - 1));
    zm_dlink_t *pos;
    zm_dlist_for_each(pos, &a->segs) {
        bseg_t *s = zm_container_of(pos, bseg_t, link);
        size_t off = (size_t)((char *)s - a->buf);
        if (off >= start + need)
            return start;
        start = off + s->size;
    }
    return start + need <= a->size ? start : (size_t)-1;
}

/* Place a segment of `need` bytes in user buffer area a; NULL if it does
 * not fit.  a->lock held. */
static bseg_t *bsend_place(zm_p2p_barea_t *a, size_t need)
{
    size_t off = bsend_fit(a, need);
    if (off == (size_t)-1)
        return NULL;
    bseg_t *s = (bseg_t *)(a->buf + off);
    /* Insert in address order. */
    zm_dlink_t *pos;
    zm_dlist_for_each(pos, &a->segs) {
        if ((char *)pos > (char *)s)
            break;
    }
    zm_dlist_push(pos, &s->link);
    return s;
}

/* Reserve room for a buffered message of `bytes` bytes in the area picked
 * by zm_p2p_bsend_select (the process's if none was).  Returns
 * ZM_ERR_BUFFER if it does not fit or no buffer is attached.  ULT context
 * of the sender. */
zm_status_t zm_p2p_bsend_reserve(zm_p2p_rank_t *me, size_t bytes, zm_msg_t **out)
{
    /* The selection is the calling thread's (a foreign thread's own at
     * MPI_THREAD_MULTIPLE: p2p.h); the areas are the rank's. */
    zm_p2p_barea_t *cur = zm_p2p_waiter()->bsend_cur;
    zm_p2p_barea_t *a = cur ? cur : area_find(me, ZM_BSEND_PROCESS);
    if (!a)
        return ZM_ERR_BUFFER;
    size_t need = bseg_size(bytes);
    bseg_t *s = NULL;
    if (a->automatic) {
        /* Heap memory aligned like a segment of a user buffer. */
        s = aligned_alloc(BSEG_ALIGN, need);
        if (!s)
            return ZM_ERR_BUFFER;
        s->size = need | 1;
        s->link.prev = (zm_dlink_t *)(void *)a;
        zm_spin_lock(&a->lock);
    } else {
        zm_spin_lock(&a->lock);
        s = bsend_place(a, need);
        if (!s) {
            zm_spin_unlock(&a->lock);
            return ZM_ERR_BUFFER;
        }
        s->size = need;
    }
    a->live++;
    zm_spin_unlock(&a->lock);
    zm_msg_t *m = (zm_msg_t *)(s + 1);
    m->data = m + 1;
    m->bowner = me;
    *out = m;
    return ZM_OK;
}

/* Give back the segment of a received buffered message, and complete the
 * flushes waiting for its area to empty.  Any ULT. */
void zm_p2p_bsend_release(zm_msg_t *m)
{
    bseg_t *s = (bseg_t *)m - 1;
    zm_p2p_barea_t *a = bseg_area(m->bowner, s);
    zm_req_t *small[4], **done = small;
    int ndone = 0;
    zm_spin_lock(&a->lock);
    if (!a->automatic)
        zm_dlist_remove(&s->link);
    if (--a->live == 0 && a->nflush > 0) {
        /* Hand the list over: the requests are completed after unlocking. */
        if (a->nflush <= 4) {
            memcpy(small, a->flushers, sizeof(*small) * (size_t)a->nflush);
        } else {
            done = a->flushers;
            a->flushers = NULL;
            a->capflush = 0;
        }
        ndone = a->nflush;
        a->nflush = 0;
    }
    zm_spin_unlock(&a->lock);
    if (a->automatic)
        free(s);
    for (int i = 0; i < ndone; i++)
        zm_p2p_req_complete(done[i]);
    if (done != small)
        free(done);
}

zm_status_t zm_p2p_bsend_attach_key(uint32_t key, void *buf, size_t size)
{
    zm_p2p_rank_t *me = zm_p2p_self();
    if (area_find(me, key))
        return ZM_ERR_BUFFER;
    zm_p2p_barea_t *a = calloc(1, sizeof(*a));
    if (!a)
        return ZM_ERR_NOMEM;
    a->key = key;
    a->automatic = buf == ZM_BSEND_AUTO_BUF;
    a->buf = a->automatic ? NULL : buf;
    a->size = a->automatic ? 0 : size;
    zm_dlist_init(&a->segs);
    zm_spin_lock(&me->bsend_lock);
    zm_dlist_push(&me->bsend_segs, &a->link);
    zm_spin_unlock(&me->bsend_lock);
    return ZM_OK;
}

/* Wait until area a holds no message.  The rank parks on a request that
 * the release of the area's last segment completes, as a non-blocking
 * flush would, so that a detach or flush no receive will ever satisfy is
 * seen by the deadlock detection instead of spinning forever.  Only when
 * there is no room to note the request does it fall back to yielding. */
static void area_drain(zm_p2p_barea_t *a)
{
    zm_req_t req, *rp = &req;
    memset(&req, 0, sizeof(req));
    for (;;) {
        if (zm_p2p_bsend_iflush_key(a->key, &req) == ZM_OK) {
            zm_p2p_wait(&rp, 1, 1);
            return;
        }
        zm_spin_lock(&a->lock);
        int live = a->live;
        zm_spin_unlock(&a->lock);
        if (live == 0)
            return;
        zm_ult_yield();
    }
}

zm_status_t zm_p2p_bsend_detach_key(uint32_t key, void **buf, size_t *size)
{
    zm_p2p_rank_t *me = zm_p2p_self();
    zm_p2p_barea_t *a = area_find(me, key);
    if (!a)
        return ZM_ERR_BUFFER;
    area_drain(a);
    zm_spin_lock(&me->bsend_lock);
    zm_dlist_remove(&a->link);
    zm_spin_unlock(&me->bsend_lock);
    *buf = a->automatic ? ZM_BSEND_AUTO_BUF : a->buf;
    *size = a->size;
    /* No flush can be pending: the area is empty and only its owner,
     * who is here, starts flushes. */
    free(a->flushers);
    free(a);
    return ZM_OK;
}

zm_status_t zm_p2p_bsend_flush_key(uint32_t key)
{
    zm_p2p_barea_t *a = area_find(zm_p2p_self(), key);
    if (!a)
        return ZM_ERR_BUFFER;
    area_drain(a);
    return ZM_OK;
}

zm_status_t zm_p2p_bsend_iflush_key(uint32_t key, zm_req_t *req)
{
    zm_p2p_barea_t *a = area_find(zm_p2p_self(), key);
    if (!a)
        return ZM_ERR_BUFFER;
    zm_p2p_req_reset(req, ZM_REQ_DONE_ONLY);
    zm_spin_lock(&a->lock);
    if (a->live > 0 && a->nflush == a->capflush) {
        int cap = a->capflush ? 2 * a->capflush : 4;
        zm_req_t **n = realloc(a->flushers, sizeof(*n) * (size_t)cap);
        if (!n) {
            zm_spin_unlock(&a->lock);
            return ZM_ERR_NOMEM;
        }
        a->flushers = n;
        a->capflush = cap;
    }
    int now = a->live == 0;
    if (!now)
        a->flushers[a->nflush++] = req;
    zm_spin_unlock(&a->lock);
    if (now)
        zm_p2p_req_complete(req);
    return ZM_OK;
}

void zm_p2p_bsend_select(uint32_t ctx)
{
    zm_p2p_waiter()->bsend_cur = area_find(zm_p2p_self(), ctx);
}

void zm_p2p_bsend_unselect(void)
{
    zm_p2p_waiter()->bsend_cur = NULL;
}

zm_status_t zm_p2p_bsend_attach(void *buf, size_t size)
{
    return zm_p2p_bsend_attach_key(ZM_BSEND_PROCESS, buf, size);
}

zm_status_t zm_p2p_bsend_detach(void **buf, size_t *size)
{
    return zm_p2p_bsend_detach_key(ZM_BSEND_PROCESS, buf, size);
}
