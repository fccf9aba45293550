/*
 * dt_type.c: derived datatypes and the layout compiler.
 *
 * A constructor imports the layouts of its old types into a builder,
 * describes itself with three node makers (run, loop, list) that simplify
 * as they go, and compacts the result into one allocation.  The makers fold
 * a loop over a contiguous child into one run, a loop over an evenly spaced
 * child into one longer loop, runs that abut in data order into one run,
 * and a list of equal children at an even spacing into a loop.  So the
 * layout's size follows the type's description, never its element count,
 * and a regular type, however it was nested, becomes a few loop levels.
 * See docs/datatypes.md.
 *
 * Memory.  What a type keeps (its object, layout, typemap and envelope)
 * comes from zm_core_obj_*: in a job whose ranks have regions, from the
 * heap of the rank that made it, so that the type moves with the rank to
 * another process at the same address (docs/migrate.md); the builder's
 * temporaries, freed within the call, stay libc's.
 */
#include "dt/dt.h"

#include <stdlib.h>
#include <string.h>

/* ---- Builder ---------------------------------------------------------- */

#define NONE (-1)

typedef struct bnode {
    uint8_t kind;       /* ZM_DT_RUN, LOOP or LIST */
    size_t count;       /* as in zm_dt_node_t */
    ptrdiff_t off;      /* as in zm_dt_node_t */
    ptrdiff_t stride;   /* as in zm_dt_node_t */
    size_t len;         /* as in zm_dt_node_t */
    size_t total;       /* as in zm_dt_node_t */
    long child;         /* LOOP: child node index; LIST: first entry index */
} bnode_t;

typedef struct bent {
    ptrdiff_t disp;     /* child's base relative to the list origin */
    long node;          /* child node index */
} bent_t;

typedef struct bld {
    bnode_t *n;         /* nodes */
    long nn, capn;      /* used and allocated nodes */
    bent_t *e;          /* list entries */
    long ne, cape;      /* used and allocated entries */
    int nomem;          /* an allocation failed */
} bld_t;

static long add_node(bld_t *b, bnode_t v)
{
    if (b->nn == b->capn) {
        long cap = b->capn ? b->capn * 2 : 16;
        bnode_t *n = realloc(b->n, (size_t)cap * sizeof(*n));
        if (!n) {
            b->nomem = 1;
            return NONE;
        }
        b->n = n;
        b->capn = cap;
    }
    b->n[b->nn] = v;
    return b->nn++;
}

static long add_ents(bld_t *b, const bent_t *e, long k)
{
    if (b->ne + k > b->cape) {
        long cap = b->cape ? b->cape : 16;
        while (cap < b->ne + k)
            cap *= 2;
        bent_t *n = realloc(b->e, (size_t)cap * sizeof(*n));
        if (!n) {
            b->nomem = 1;
            return NONE;
        }
        b->e = n;
        b->cape = cap;
    }
    memcpy(b->e + b->ne, e, (size_t)k * sizeof(*e));
    long first = b->ne;
    b->ne += k;
    return first;
}

static long mk_run(bld_t *b, ptrdiff_t off, size_t count, ptrdiff_t stride, size_t len)
{
    return add_node(b, (bnode_t){ ZM_DT_RUN, count, off, count == 1 ? (ptrdiff_t)len : stride,
                                  len, count * len, 0 });
}

/* The node x with its origin moved by disp. */
static long shift(bld_t *b, long x, ptrdiff_t disp)
{
    if (x == NONE || disp == 0)
        return x;
    bnode_t v = b->n[x];
    v.off += disp;
    return add_node(b, v);
}

/* `count` copies of node c, `stride` bytes apart. */
static long mk_loop(bld_t *b, size_t count, ptrdiff_t stride, long c)
{
    if (c == NONE || count == 0)
        return NONE;
    if (count == 1)
        return c;
    bnode_t C = b->n[c];
    if (C.kind == ZM_DT_RUN) {
        if (C.count == 1 && stride == (ptrdiff_t)C.len)
            return mk_run(b, C.off, 1, 0, C.len * count);
        if (C.count == 1)
            return mk_run(b, C.off, count, stride, C.len);
        if (stride == (ptrdiff_t)C.count * C.stride)
            return mk_run(b, C.off, C.count * count, C.stride, C.len);
    } else if (C.kind == ZM_DT_LOOP && stride == (ptrdiff_t)C.count * C.stride) {
        return add_node(b, (bnode_t){ ZM_DT_LOOP, C.count * count, C.off, C.stride, C.len,
                                      C.total * count, C.child });
    }
    return add_node(b, (bnode_t){ ZM_DT_LOOP, count, 0, stride, C.total, C.total * count, c });
}

static int same_shape(const bld_t *b, long x, long y)
{
    if (x == y)
        return 1;
    const bnode_t *p = &b->n[x], *q = &b->n[y];
    return p->kind == q->kind && p->count == q->count && p->off == q->off &&
           p->stride == q->stride && p->len == q->len &&
           (p->kind == ZM_DT_RUN || p->child == q->child);
}

/* Whether `e` (k > 1 entries) is one child repeated at an even spacing. */
static int is_regular(const bld_t *b, const bent_t *e, long k)
{
    ptrdiff_t delta = e[1].disp - e[0].disp;
    for (long i = 1; i < k; i++)
        if (e[i].disp - e[i - 1].disp != delta || !same_shape(b, e[i].node, e[0].node))
            return 0;
    return 1;
}

/* Children at displacements, in data order.  `e` is scratch space the
 * call may overwrite. */
static long mk_list(bld_t *b, bent_t *e, long k)
{
    long m = 0;
    for (long i = 0; i < k; i++) {
        long x = e[i].node;
        if (x == NONE)
            continue;
        if (m > 0) {
            const bnode_t *P = &b->n[e[m - 1].node], *X = &b->n[x];
            ptrdiff_t pend = e[m - 1].disp + P->off + (ptrdiff_t)P->len;
            if (P->kind == ZM_DT_RUN && P->count == 1 && X->kind == ZM_DT_RUN &&
                X->count == 1 && pend == e[i].disp + X->off) {
                long r = mk_run(b, e[m - 1].disp + P->off, 1, 0, P->len + X->len);
                e[m - 1] = (bent_t){ 0, r };
                continue;
            }
        }
        e[m++] = (bent_t){ e[i].disp, x };
    }
    if (m == 0)
        return NONE;
    if (m == 1)
        return shift(b, e[0].node, e[0].disp);
    if (is_regular(b, e, m))
        return mk_loop(b, (size_t)m, e[1].disp - e[0].disp, shift(b, e[0].node, e[0].disp));
    size_t total = 0;
    for (long i = 0; i < m; i++)
        total += b->n[e[i].node].total;
    long first = add_ents(b, e, m);
    if (first == NONE)
        return NONE;
    return add_node(b, (bnode_t){ ZM_DT_LIST, (size_t)m, 0, 0, 0, total, first });
}

/* Copy a static (predefined) layout node into the builder. */
static long import_static(bld_t *b, const zm_dt_node_t *n)
{
    if (n->kind == ZM_DT_RUN)
        return mk_run(b, n->off, n->count, n->stride, n->len);
    bent_t e[2];
    for (size_t i = 0; i < n->count && i < 2; i++)
        e[i] = (bent_t){ n->ent[i].disp, import_static(b, n->ent[i].node) };
    long x = mk_list(b, e, (long)n->count);
    return shift(b, x, n->off);
}

/* Bring the layout of dt into the builder; returns its root (NONE if dt
 * holds no data). */
static long import(bld_t *b, const zm_dt_t *dt)
{
    const zm_dt_layout_t *L = dt->layout;
    if (!L->root)
        return NONE;
    if (!L->nodes)
        return import_static(b, L->root);
    long nb = b->nn, eb = b->ne;
    for (size_t i = 0; i < L->nnodes; i++) {
        const zm_dt_node_t *n = &L->nodes[i];
        long child = n->kind == ZM_DT_LOOP ? nb + (n->child - L->nodes)
                   : n->kind == ZM_DT_LIST ? eb + (n->ent - L->ents) : 0;
        if (add_node(b, (bnode_t){ n->kind, n->count, n->off, n->stride, n->len, n->total,
                                   child }) == NONE)
            return NONE;
    }
    for (size_t i = 0; i < L->nents; i++) {
        bent_t e = { L->ents[i].disp, nb + (L->ents[i].node - L->nodes) };
        if (add_ents(b, &e, 1) == NONE)
            return NONE;
    }
    return nb + (L->root - L->nodes);
}

/* ---- Compaction into a layout ------------------------------------------ */

typedef struct compact {
    const bld_t *b;
    long *map;          /* builder node -> final node, or NONE */
    int *depth;         /* builder node -> depth */
    zm_dt_node_t *nodes;
    zm_dt_ent_t *ents;
    long nn, ne;        /* final nodes and entries used */
} compact_t;

/* Count the nodes and entries reachable from x (first visit only). */
static void reach(compact_t *c, long x, long *nn, long *ne)
{
    if (c->map[x] != NONE)
        return;
    c->map[x] = 0;
    (*nn)++;
    const bnode_t *v = &c->b->n[x];
    if (v->kind == ZM_DT_LOOP)
        reach(c, v->child, nn, ne);
    if (v->kind == ZM_DT_LIST) {
        *ne += (long)v->count;
        for (size_t i = 0; i < v->count; i++)
            reach(c, c->b->e[v->child + (long)i].node, nn, ne);
    }
}

/* Emit node x and what it reaches; returns its final index. */
static long emit(compact_t *c, long x)
{
    if (c->map[x] != NONE)
        return c->map[x];
    const bnode_t *v = &c->b->n[x];
    long me = c->nn++;
    c->map[x] = me;
    zm_dt_node_t *n = &c->nodes[me];
    *n = (zm_dt_node_t){ .kind = v->kind, .count = v->count, .off = v->off,
                         .stride = v->stride, .len = v->len, .total = v->total };
    int depth = 1;
    if (v->kind == ZM_DT_LOOP) {
        long ch = emit(c, v->child);
        c->nodes[me].child = &c->nodes[ch];
        depth = 1 + c->depth[v->child];
    } else if (v->kind == ZM_DT_LIST) {
        long first = c->ne;
        c->ne += (long)v->count;
        size_t start = 0;
        for (size_t i = 0; i < v->count; i++) {
            const bent_t *be = &c->b->e[v->child + (long)i];
            long ch = emit(c, be->node);
            c->ents[first + (long)i] = (zm_dt_ent_t){ be->disp, start, &c->nodes[ch] };
            start += c->b->n[be->node].total;
            if (1 + c->depth[be->node] > depth)
                depth = 1 + c->depth[be->node];
        }
        c->nodes[me].ent = &c->ents[first];
    }
    c->depth[x] = depth;
    return me;
}

/* Build the final layout of the tree at root.  NULL with *err set on
 * failure. */
static zm_dt_layout_t *finish(bld_t *b, long root, zm_status_t *err)
{
    zm_dt_layout_t *L;
    *err = b->nomem ? ZM_ERR_NOMEM : ZM_OK;
    if (b->nomem)
        return NULL;
    if (root == NONE) {
        L = zm_core_obj_calloc(1, sizeof(*L));
        if (!L)
            *err = ZM_ERR_NOMEM;
        else
            atomic_init(&L->refs, 1);
        return L;
    }
    compact_t c = { b, malloc((size_t)b->nn * sizeof(long)), malloc((size_t)b->nn * sizeof(int)),
                    NULL, NULL, 0, 0 };
    long nn = 0, ne = 0;
    L = NULL;
    if (!c.map || !c.depth)
        goto out_nomem;
    for (long i = 0; i < b->nn; i++)
        c.map[i] = NONE;
    reach(&c, root, &nn, &ne);
    for (long i = 0; i < b->nn; i++)
        c.map[i] = NONE;
    L = zm_core_obj_calloc(1, sizeof(*L) + (size_t)nn * sizeof(zm_dt_node_t) + (size_t)ne * sizeof(zm_dt_ent_t));
    if (!L)
        goto out_nomem;
    c.nodes = (zm_dt_node_t *)(L + 1);
    c.ents = (zm_dt_ent_t *)(c.nodes + nn);
    emit(&c, root);
    atomic_init(&L->refs, 1);
    L->depth = c.depth[root];
    L->root = &c.nodes[0];
    L->nodes = c.nodes;
    L->nnodes = (size_t)nn;
    L->ents = c.ents;
    L->nents = (size_t)ne;
    if (L->depth > ZM_DT_MAX_DEPTH) {
        zm_core_obj_free(L);
        L = NULL;
        *err = ZM_ERR_ARG;
    }
    goto out;
out_nomem:
    *err = ZM_ERR_NOMEM;
out:
    free(c.map);
    free(c.depth);
    return L;
}

static void bld_free(bld_t *b)
{
    free(b->n);
    free(b->e);
}

static void layout_release(const zm_dt_layout_t *L)
{
    zm_dt_layout_t *l = (zm_dt_layout_t *)L;
    if (atomic_load_explicit(&l->refs, memory_order_relaxed) < 0)
        return;
    if (atomic_fetch_sub_explicit(&l->refs, 1, memory_order_acq_rel) == 1)
        zm_core_obj_free(l);
}

static void layout_retain(const zm_dt_layout_t *L)
{
    zm_dt_layout_t *l = (zm_dt_layout_t *)L;
    if (atomic_load_explicit(&l->refs, memory_order_relaxed) >= 0)
        atomic_fetch_add_explicit(&l->refs, 1, memory_order_relaxed);
}

/* ---- Type objects -------------------------------------------------------- */

void zm_dt_retain(const zm_dt_t *dt)
{
    if (dt->d)
        atomic_fetch_add_explicit(&dt->d->refs, 1, memory_order_relaxed);
}

/* Derived datatypes in libc's memory, allocated and not yet freed
 * (zm_dt_live).  Those in a rank's heap are left out: they belong to the
 * rank, which takes them along when it moves or is checkpointed, and a
 * count per process would not follow them. */
static _Atomic long live_derived;

long zm_dt_live(void)
{
    return atomic_load_explicit(&live_derived, memory_order_relaxed);
}

void zm_dt_release(const zm_dt_t *dt)
{
    struct zm_dt_derived *d = dt->d;
    if (!d || atomic_fetch_sub_explicit(&d->refs, 1, memory_order_acq_rel) != 1)
        return;
    for (size_t i = 0; i < d->nseq; i++)
        zm_dt_release(d->seq[i].type);
    for (int i = 0; i < d->nd; i++)
        zm_dt_release(d->types[i]);
    layout_release(d->layout);
    zm_core_obj_free(d->seq);
    zm_core_obj_free(d->ints);
    zm_core_obj_free(d->aints);
    zm_core_obj_free(d->counts);
    zm_core_obj_free(d->types);
    ((zm_dt_t *)dt)->magic = 0;
    zm_core_obj_count_process(&live_derived, dt, -1);
    zm_core_obj_free((void *)dt);
}

const zm_dt_t *zm_dt_basic(const zm_dt_t *dt)
{
    return dt->basic;
}

/* A new derived type object with layout L (taken over) and typemap seq
 * (taken over; its types are retained here).  Bounds and size are filled
 * in by the caller before it calls type_finish. */
static zm_dt_t *type_new(zm_dt_layout_t *L, zm_dt_seq_t *seq, size_t nseq)
{
    zm_dt_t *t = zm_core_obj_calloc(1, sizeof(zm_dt_t) + sizeof(struct zm_dt_derived));
    if (!t) {
        layout_release(L);
        zm_core_obj_free(seq);
        return NULL;
    }
    zm_core_obj_count_process(&live_derived, t, 1);
    struct zm_dt_derived *d = (struct zm_dt_derived *)(t + 1);
    t->d = d;
    atomic_init(&d->refs, 1);
    d->layout = L;
    d->seq = seq;
    d->nseq = nseq;
    for (size_t i = 0; i < nseq; i++)
        zm_dt_retain(seq[i].type);
    strcpy(d->name, "(derived datatype)");
    t->magic = ZM_DT_MAGIC;
    t->kind = ZM_DT_DERIVED;
    t->name = d->name;
    t->layout = L;
    return t;
}

/* Fill in what follows from size, bounds, layout and typemap. */
static void type_finish(zm_dt_t *t)
{
    const zm_dt_node_t *r = t->layout->root;
    struct zm_dt_derived *d = t->d;
    uint64_t span = t->extent < 0 ? 0 - (uint64_t)t->extent : (uint64_t)t->extent;
    uint64_t widest = span > t->size ? span : (uint64_t)t->size;
    t->cmax = widest ? (int64_t)((uint64_t)INT64_MAX / widest) : INT64_MAX;
    t->contig = t->lb == 0 && t->extent == (ptrdiff_t)t->size &&
                (t->size == 0 || (r->kind == ZM_DT_RUN && r->count == 1 && r->off == 0));
    t->basic = NULL;
    t->nbasic = 0;
    for (size_t i = 0; i < d->nseq; i++) {
        const zm_dt_t *b = d->seq[i].type->basic;
        if (i == 0)
            t->basic = b;
        else if (b != t->basic)
            t->basic = NULL;
        t->nbasic += d->seq[i].count * d->seq[i].type->nbasic;
    }
    if (t->basic && t->basic->kind == ZM_DT_PAIR)
        t->val_size = t->basic->val_size;
}

/* Bounds of `bl` elements of T placed at disp; true bounds only if T
 * holds data. */
typedef struct bounds {
    int any, any_true;
    ptrdiff_t lb, ub, tlb, tub;
} bounds_t;

static void bounds_add(bounds_t *b, size_t bl, const zm_dt_t *T, ptrdiff_t disp)
{
    if (bl == 0)
        return;
    ptrdiff_t span = (ptrdiff_t)(bl - 1) * T->extent;
    ptrdiff_t lo = span < 0 ? span : 0, hi = span > 0 ? span : 0;
    ptrdiff_t lb = disp + T->lb + lo, ub = disp + T->lb + T->extent + hi;
    if (!b->any || lb < b->lb)
        b->lb = lb;
    if (!b->any || ub > b->ub)
        b->ub = ub;
    b->any = 1;
    if (T->size == 0)
        return;
    ptrdiff_t tlb = disp + T->true_lb + lo, tub = disp + T->true_ub + hi;
    if (!b->any_true || tlb < b->tlb)
        b->tlb = tlb;
    if (!b->any_true || tub > b->tub)
        b->tub = tub;
    b->any_true = 1;
}

static void bounds_set(zm_dt_t *t, const bounds_t *b)
{
    t->lb = b->any ? b->lb : 0;
    t->extent = b->any ? b->ub - b->lb : 0;
    t->true_lb = b->any_true ? b->tlb : 0;
    t->true_ub = b->any_true ? b->tub : 0;
}

zm_dt_t *zm_dt_create_hvector(size_t count, size_t blocklen, ptrdiff_t stride,
                              const zm_dt_t *old, zm_status_t *err)
{
    bld_t b = { 0 };
    long r = import(&b, old);
    r = mk_loop(&b, blocklen, old->extent, r);
    r = mk_loop(&b, count, stride, r);
    zm_dt_layout_t *L = finish(&b, r, err);
    bld_free(&b);
    zm_dt_seq_t *seq = zm_core_obj_alloc(sizeof(*seq));
    if (!L || !seq) {
        if (L)
            layout_release(L);
        zm_core_obj_free(seq);
        *err = L ? ZM_ERR_NOMEM : *err;
        return NULL;
    }
    seq[0] = (zm_dt_seq_t){ count * blocklen, old };
    zm_dt_t *t = type_new(L, seq, 1);
    if (!t) {
        *err = ZM_ERR_NOMEM;
        return NULL;
    }
    bounds_t bd = { 0 };
    if (count > 0) {
        bounds_add(&bd, blocklen, old, 0);
        bounds_add(&bd, blocklen, old, (ptrdiff_t)(count - 1) * stride);
    }
    bounds_set(t, &bd);
    t->size = count * blocklen * old->size;
    t->align = old->align;
    type_finish(t);
    return t;
}

/* Typemap of a struct: its non-empty blocks, neighbours of one type merged. */
static zm_dt_seq_t *struct_seq(size_t n, const size_t *bl, const zm_dt_t *const *types,
                               int one_type, size_t *nseq)
{
    zm_dt_seq_t *seq = zm_core_obj_alloc((n ? n : 1) * sizeof(*seq));
    size_t m = 0;
    if (!seq)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        const zm_dt_t *T = types[one_type ? 0 : i];
        if (bl[i] == 0)
            continue;
        if (m > 0 && seq[m - 1].type == T)
            seq[m - 1].count += bl[i];
        else
            seq[m++] = (zm_dt_seq_t){ bl[i], T };
    }
    *nseq = m;
    return seq;
}

/* Compile the layout of a struct-like type. */
static zm_dt_layout_t *struct_layout(size_t n, const size_t *bl, const ptrdiff_t *disp,
                                     const zm_dt_t *const *types, int one_type,
                                     zm_status_t *err)
{
    bld_t b = { 0 };
    bent_t *e = malloc((n ? n : 1) * sizeof(*e));
    const zm_dt_t *last_t = NULL;
    long last_root = NONE, last_blk = NONE;
    size_t last_bl = 0;
    if (!e) {
        *err = ZM_ERR_NOMEM;
        return NULL;
    }
    for (size_t i = 0; i < n && !b.nomem; i++) {
        const zm_dt_t *T = types[one_type ? 0 : i];
        if (T != last_t) {
            last_root = import(&b, T);
            last_t = T;
            last_bl = 0;
            last_blk = NONE;
        }
        if (bl[i] != last_bl || last_blk == NONE) {
            last_blk = mk_loop(&b, bl[i], T->extent, last_root);
            last_bl = bl[i];
        }
        e[i] = (bent_t){ disp[i], last_blk };
    }
    long r = b.nomem ? NONE : mk_list(&b, e, (long)n);
    free(e);
    zm_dt_layout_t *L = finish(&b, r, err);
    bld_free(&b);
    return L;
}

zm_dt_t *zm_dt_create_struct(size_t n, const size_t *bl, const ptrdiff_t *disp,
                             const zm_dt_t *const *types, int one_type, int pad,
                             zm_status_t *err)
{
    size_t nseq = 0;
    zm_dt_layout_t *L = struct_layout(n, bl, disp, types, one_type, err);
    if (!L)
        return NULL;
    zm_dt_seq_t *seq = struct_seq(n, bl, types, one_type, &nseq);
    zm_dt_t *t = seq ? type_new(L, seq, nseq) : NULL;
    if (!t) {
        if (!seq)
            layout_release(L);
        *err = ZM_ERR_NOMEM;
        return NULL;
    }
    bounds_t bd = { 0 };
    size_t align = 1;
    t->size = 0;
    for (size_t i = 0; i < n; i++) {
        const zm_dt_t *T = types[one_type ? 0 : i];
        bounds_add(&bd, bl[i], T, disp[i]);
        t->size += bl[i] * T->size;
        if (bl[i] && T->align > align)
            align = T->align;
    }
    bounds_set(t, &bd);
    t->align = align;
    if (pad && t->extent % (ptrdiff_t)align)
        t->extent += (ptrdiff_t)align - t->extent % (ptrdiff_t)align;
    type_finish(t);
    return t;
}

zm_dt_t *zm_dt_create_resized(const zm_dt_t *old, ptrdiff_t lb, ptrdiff_t extent,
                              zm_status_t *err)
{
    zm_dt_seq_t *seq = zm_core_obj_alloc(sizeof(*seq));
    if (!seq) {
        *err = ZM_ERR_NOMEM;
        return NULL;
    }
    seq[0] = (zm_dt_seq_t){ 1, old };
    layout_retain(old->layout);
    zm_dt_t *t = type_new((zm_dt_layout_t *)old->layout, seq, 1);
    if (!t) {
        *err = ZM_ERR_NOMEM;
        return NULL;
    }
    t->size = old->size;
    t->lb = lb;
    t->extent = extent;
    t->true_lb = old->true_lb;
    t->true_ub = old->true_ub;
    t->align = 1;
    type_finish(t);
    return t;
}

zm_dt_t *zm_dt_create_clone(const zm_dt_t *old, int copy_envelope, zm_status_t *err)
{
    zm_dt_t *t = zm_dt_create_resized(old, old->lb, old->extent, err);
    if (!t)
        return NULL;
    t->align = old->align;
    if (copy_envelope && old->d) {
        const struct zm_dt_derived *o = old->d;
        *err = zm_dt_set_envelope(t, o->combiner, o->ni, o->ints, o->na, o->aints, o->nd,
                                  o->types);
        if (*err == ZM_OK && o->nc)
            *err = zm_dt_set_counts(t, o->nc, o->counts);
        if (*err != ZM_OK) {
            zm_dt_release(t);
            return NULL;
        }
    }
    return t;
}

zm_status_t zm_dt_set_envelope(zm_dt_t *dt, int combiner, int ni, const int *ints, int na,
                               const ptrdiff_t *aints, int nd, const zm_dt_t *const *types)
{
    struct zm_dt_derived *d = dt->d;
    int *ci = zm_core_obj_alloc((size_t)(ni ? ni : 1) * sizeof(int));
    ptrdiff_t *ca = zm_core_obj_alloc((size_t)(na ? na : 1) * sizeof(ptrdiff_t));
    const zm_dt_t **ct = zm_core_obj_alloc((size_t)(nd ? nd : 1) * sizeof(*ct));
    if (!ci || !ca || !ct) {
        zm_core_obj_free(ci);
        zm_core_obj_free(ca);
        zm_core_obj_free(ct);
        return ZM_ERR_NOMEM;
    }
    if (ni)
        memcpy(ci, ints, (size_t)ni * sizeof(int));
    if (na)
        memcpy(ca, aints, (size_t)na * sizeof(ptrdiff_t));
    for (int i = 0; i < nd; i++) {
        ct[i] = types[i];
        zm_dt_retain(types[i]);
    }
    for (int i = 0; i < d->nd; i++)
        zm_dt_release(d->types[i]);
    zm_core_obj_free(d->ints);
    zm_core_obj_free(d->aints);
    zm_core_obj_free(d->types);
    d->combiner = combiner;
    d->ni = ni;
    d->na = na;
    d->nd = nd;
    d->ints = ci;
    d->aints = ca;
    d->types = ct;
    return ZM_OK;
}

zm_status_t zm_dt_set_counts(zm_dt_t *dt, size_t nc, const int64_t *counts)
{
    struct zm_dt_derived *d = dt->d;
    int64_t *c = zm_core_obj_alloc((nc ? nc : 1) * sizeof(int64_t));
    if (!c)
        return ZM_ERR_NOMEM;
    if (nc)
        memcpy(c, counts, nc * sizeof(int64_t));
    zm_core_obj_free(d->counts);
    d->nc = nc;
    d->counts = c;
    return ZM_OK;
}

int64_t zm_dt_elements(const zm_dt_t *dt, size_t bytes)
{
    if (dt->size == 0)
        return 0;
    size_t whole = bytes / dt->size, rem = bytes % dt->size;
    int64_t r = (int64_t)(whole * dt->nbasic);
    if (rem == 0)
        return r;
    if (!dt->d) {
        /* Only a pair can end between its two members. */
        return dt->kind == ZM_DT_PAIR && rem == dt->val_size ? r + 1 : -1;
    }
    for (size_t i = 0; i < dt->d->nseq; i++) {
        const zm_dt_seq_t *s = &dt->d->seq[i];
        size_t tb = s->count * s->type->size;
        if (rem >= tb) {
            r += (int64_t)(s->count * s->type->nbasic);
            rem -= tb;
            if (rem == 0)
                return r;
            continue;
        }
        size_t k = rem / s->type->size;
        int64_t sub = zm_dt_elements(s->type, rem % s->type->size);
        return sub < 0 ? -1 : r + (int64_t)(k * s->type->nbasic) + sub;
    }
    return -1;
}
