/*
 * bsend.c: the buffer of MPI_Buffer_attach.
 *
 * A buffered send that finds no posted receive copies its envelope and data
 * into the sender's attached buffer.  Segments are kept in address order
 * and placed first-fit; the receiver releases a segment when it has copied
 * the data out, so the list is guarded by a lock (sender and receiver may
 * run on different workers).
 */
#include "p2p/p2p.h"

#include <string.h>

/* Header of one segment in the attached buffer; the envelope follows. */
typedef struct bseg {
    zm_dlink_t link;   /* in bsend_segs, by address */
    size_t size;       /* bytes used, header included */
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

/* Find room for `need` bytes; returns the offset or (size_t)-1. */
static size_t bsend_fit(zm_p2p_rank_t *me, size_t need)
{
    size_t start = (size_t)((-(uintptr_t)me->bsend_buf) & (BSEG_ALIGN - 1));
    zm_dlink_t *pos;
    zm_dlist_for_each(pos, &me->bsend_segs) {
        bseg_t *s = zm_container_of(pos, bseg_t, link);
        size_t off = (size_t)((char *)s - me->bsend_buf);
        if (off >= start + need)
            return start;
        start = off + s->size;
    }
    return start + need <= me->bsend_size ? start : (size_t)-1;
}

/* Reserve room for a buffered message of `bytes` bytes in the caller's
 * attached buffer.  Returns ZM_ERR_BUFFER if it does not fit.  ULT context
 * of the sender. */
zm_status_t zm_p2p_bsend_reserve(zm_p2p_rank_t *me, size_t bytes, zm_msg_t **out)
{
    size_t need = bseg_size(bytes), off;
    zm_spin_lock(&me->bsend_lock);
    off = me->bsend_buf ? bsend_fit(me, need) : (size_t)-1;
    if (off == (size_t)-1) {
        zm_spin_unlock(&me->bsend_lock);
        return ZM_ERR_BUFFER;
    }
    bseg_t *s = (bseg_t *)(me->bsend_buf + off);
    s->size = need;
    /* Insert in address order. */
    zm_dlink_t *pos;
    zm_dlist_for_each(pos, &me->bsend_segs) {
        if ((char *)pos > (char *)s)
            break;
    }
    zm_dlist_push(pos, &s->link);
    atomic_fetch_add(&me->bsend_live, 1);
    zm_spin_unlock(&me->bsend_lock);
    zm_msg_t *m = (zm_msg_t *)(s + 1);
    m->data = m + 1;
    m->bowner = me;
    *out = m;
    return ZM_OK;
}

/* Give back the segment of a received buffered message.  Any ULT. */
void zm_p2p_bsend_release(zm_msg_t *m)
{
    zm_p2p_rank_t *owner = m->bowner;
    bseg_t *s = (bseg_t *)m - 1;
    zm_spin_lock(&owner->bsend_lock);
    zm_dlist_remove(&s->link);
    zm_spin_unlock(&owner->bsend_lock);
    atomic_fetch_sub_explicit(&owner->bsend_live, 1, memory_order_release);
}

zm_status_t zm_p2p_bsend_attach(void *buf, size_t size)
{
    zm_p2p_rank_t *me = zm_p2p_self();
    if (me->bsend_buf)
        return ZM_ERR_BUFFER;
    zm_spin_lock(&me->bsend_lock);
    me->bsend_buf = buf;
    me->bsend_size = size;
    zm_spin_unlock(&me->bsend_lock);
    return ZM_OK;
}

zm_status_t zm_p2p_bsend_detach(void **buf, size_t *size)
{
    zm_p2p_rank_t *me = zm_p2p_self();
    if (!me->bsend_buf)
        return ZM_ERR_BUFFER;
    /* Detach waits for every buffered message to be received.  Receivers
     * free segments while running, so yielding lets them make progress. */
    while (atomic_load_explicit(&me->bsend_live, memory_order_acquire) > 0)
        zm_ult_yield();
    zm_spin_lock(&me->bsend_lock);
    *buf = me->bsend_buf;
    *size = me->bsend_size;
    me->bsend_buf = NULL;
    me->bsend_size = 0;
    zm_spin_unlock(&me->bsend_lock);
    return ZM_OK;
}
