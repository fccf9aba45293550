/*
 * rma_win.c: the shared window state, its address checks, the attached
 * regions of dynamic windows and the node words of direct windows.
 */
#include "rma.h"

#include <stdlib.h>
#include <string.h>

zm_rma_win_t *zm_rma_win_new(int n)
{
    zm_rma_win_t *w = calloc(1, sizeof(*w));
    if (!w)
        return NULL;
    w->t = aligned_alloc(ZM_CACHE_LINE, sizeof(zm_rma_target_t) * (size_t)n);
    /* The post matrix has n * n counters: 16 KiB at 64 ranks.  Per pair
     * because a target may post for a later epoch while the origin still
     * waits for an earlier target; one counter per origin would let that
     * early post open the wrong epoch. */
    w->posted = calloc((size_t)n * (size_t)n, sizeof(*w->posted));
    if (!w->t || !w->posted) {
        free(w->t);
        free(w->posted);
        free(w);
        return NULL;
    }
    memset(w->t, 0, sizeof(zm_rma_target_t) * (size_t)n);
    for (int i = 0; i < n; i++) {
        zm_dlist_init(&w->t[i].queue);
        zm_dlist_init(&w->t[i].regions);
        w->t[i].acc = &w->t[i].acc_lk;
    }
    w->n = n;
    atomic_store(&w->refs, n);
    return w;
}

size_t zm_rma_node_header(int n)
{
    return (sizeof(zm_rma_node_word_t) * (size_t)n + 4095) & ~(size_t)4095;
}

void zm_rma_node_attach(zm_rma_win_t *w, void *words)
{
    /* Accumulates from every process of the node then meet at the same
     * lock word, whichever process the origin is in. */
    w->node = words;
    for (int i = 0; i < w->n; i++)
        w->t[i].acc = &w->node[i].acc;
}

void zm_rma_win_unref(zm_rma_win_t *w)
{
    if (atomic_fetch_sub(&w->refs, 1) != 1)
        return;
    if (w->proc) {
        zm_rma_net_forget(w);
        free(w->proc);
    }
    for (int i = 0; i < w->n; i++) {
        /* A program may free a dynamic window with regions still attached;
         * the regions' memory is the program's, only the records are ours. */
        while (!zm_dlist_empty(&w->t[i].regions)) {
            zm_dlink_t *l = w->t[i].regions.next;
            zm_dlist_remove(l);
            free(zm_container_of(l, zm_rma_region_t, link));
        }
    }
    free(w->pid);
    free(w->block);
    zm_arch_shm_unmap(w->shm, w->shm_bytes);
    free(w->shm_off);
    free(w->t);
    free((void *)w->posted);
    free(w);
}

/* Nonzero if [a, a + len) lies in memory target t attached, in one region
 * or across regions that meet end to end (MPI asks only that the target
 * memory be attached; programs attach the halves of one array).  Regions
 * never overlap (zm_rma_attach), so at each step at most one holds the
 * next byte.  Under reg_lk. */
static int region_covers(zm_rma_target_t *t, uintptr_t a, size_t len)
{
    uintptr_t end = a + len;
    if (end < a)
        return 0;
    while (a < end) {
        zm_rma_region_t *hit = NULL;
        zm_dlink_t *l;
        zm_dlist_for_each(l, &t->regions) {
            zm_rma_region_t *r = zm_container_of(l, zm_rma_region_t, link);
            if (a >= r->base && a - r->base < r->size) {
                hit = r;
                break;
            }
        }
        if (!hit)
            return 0;
        a = hit->base + hit->size;
    }
    return 1;
}

char *zm_rma_target_addr(zm_rma_win_t *w, int t, int dynamic, int64_t disp, ptrdiff_t lo,
                         ptrdiff_t hi)
{
    zm_rma_target_t *tg = &w->t[t];
    if (dynamic) {
        uintptr_t a = (uintptr_t)disp;
        if (hi == lo)
            return (char *)a;
        zm_spin_lock(&tg->reg_lk);
        int ok = region_covers(tg, a + (uintptr_t)lo, (size_t)(hi - lo));
        zm_spin_unlock(&tg->reg_lk);
        return ok ? (char *)a : NULL;
    }
    if (disp < 0)
        return NULL;
    /* Work in unsigned 128-bit-safe steps: disp * disp_unit may overflow
     * for a wild displacement, which must be refused, not wrapped. */
    unsigned __int128 off = (unsigned __int128)(uint64_t)disp * (uint64_t)tg->disp_unit;
    if (hi == lo)
        return off <= tg->size ? tg->base + (size_t)off : tg->base;
    __int128 first = (__int128)off + lo, end = (__int128)off + hi;
    if (first < 0 || end > (__int128)tg->size)
        return NULL;
    return tg->base + (size_t)off;
}

zm_status_t zm_rma_attach(zm_rma_win_t *w, int t, void *base, size_t size)
{
    zm_rma_target_t *tg = &w->t[t];
    zm_rma_region_t *r = malloc(sizeof(*r));
    if (!r)
        return ZM_ERR_NOMEM;
    r->base = (uintptr_t)base;
    r->size = size;
    zm_spin_lock(&tg->reg_lk);
    zm_dlink_t *l;
    zm_dlist_for_each(l, &tg->regions) {
        zm_rma_region_t *o = zm_container_of(l, zm_rma_region_t, link);
        if (r->base < o->base + o->size && o->base < r->base + size) {
            zm_spin_unlock(&tg->reg_lk);
            free(r);
            return ZM_ERR_ARG;
        }
    }
    zm_dlist_push(&tg->regions, &r->link);
    zm_spin_unlock(&tg->reg_lk);
    return ZM_OK;
}

zm_status_t zm_rma_detach(zm_rma_win_t *w, int t, const void *base)
{
    zm_rma_target_t *tg = &w->t[t];
    zm_rma_region_t *found = NULL;
    zm_spin_lock(&tg->reg_lk);
    zm_dlink_t *l;
    zm_dlist_for_each(l, &tg->regions) {
        zm_rma_region_t *r = zm_container_of(l, zm_rma_region_t, link);
        if (r->base == (uintptr_t)base) {
            found = r;
            break;
        }
    }
    if (found)
        zm_dlist_remove(&found->link);
    zm_spin_unlock(&tg->reg_lk);
    free(found);
    return found ? ZM_OK : ZM_ERR_ARG;
}
