/*
 * dt: datatypes and the copy engine.
 *
 * This layer describes how a (buffer, count, datatype) triple lays out its
 * bytes and moves them: pack into a contiguous buffer, unpack out of one, or
 * copy straight from one layout into another.  The point-to-point layer only
 * talks to datatypes through these calls.
 *
 * Every datatype carries a compiled layout (docs/datatypes.md): a small tree
 * of loops whose leaves are strided runs of contiguous bytes.  Its size
 * depends on how the type was described, never on how many elements it
 * holds.  The copy engine walks the layouts of both sides together and can
 * start at any byte offset of the data stream, which is what truncated
 * receives, partial unpacks and chunked (cooperative) copies need.
 */
#ifndef ZM_DT_H
#define ZM_DT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "core/core.h"

/* Basic element kinds, used by reductions to pick a kernel. */
typedef enum zm_dt_kind {
    ZM_DT_INT_SIGNED,    /* two's-complement integer of `size` bytes */
    ZM_DT_INT_UNSIGNED,  /* unsigned integer */
    ZM_DT_FLOAT,         /* floating point, C or Fortran (coll/op.c picks the kernel) */
    ZM_DT_COMPLEX,       /* complex: two floating-point numbers */
    ZM_DT_BOOL,          /* C _Bool */
    ZM_DT_BYTE,          /* MPI_BYTE: bits only */
    ZM_DT_CHAR,          /* text: MPI_CHAR (reduces as an extension), MPI_WCHAR, MPI_CHARACTER */
    ZM_DT_PACKED,        /* MPI_PACKED */
    ZM_DT_PAIR,          /* value/index pair for MINLOC/MAXLOC */
    ZM_DT_DERIVED,       /* a derived type: see zm_dt_basic for its elements */
    /* Fortran kinds that no C kind above has the operations of (MPI 4.1
     * section 6.9.2): Fortran integers lack the logical operations, and
     * LOGICAL is an integer-sized truth value with only those. */
    ZM_DT_FORTRAN_INT,   /* Fortran INTEGER of `size` bytes, two's complement */
    ZM_DT_LOGICAL        /* Fortran LOGICAL: 0 false, 1 true, `size` bytes */
} zm_dt_kind_t;

#define ZM_DT_MAGIC 0x7a6d6474u

/* Deepest layout the copy engine walks (levels left after simplification;
 * nesting that only adds contiguous or regular levels folds away). */
#define ZM_DT_MAX_DEPTH 24

/* Node kinds of a compiled layout. */
enum { ZM_DT_RUN, ZM_DT_LOOP, ZM_DT_LIST };

struct zm_dt_ent;

/* One node of a compiled layout.  A node sits at an origin: its parent's
 * base address plus `off`.  A RUN is `count` runs of `len` contiguous
 * bytes, `stride` apart; a LOOP repeats its child `count` times, `stride`
 * apart; a LIST places different children at their own displacements, in
 * data order.  No node holds zero bytes. */
typedef struct zm_dt_node {
    uint8_t kind;                  /* ZM_DT_RUN, ZM_DT_LOOP or ZM_DT_LIST */
    size_t count;                  /* runs, iterations or entries */
    ptrdiff_t off;                 /* origin relative to the parent's base */
    ptrdiff_t stride;              /* RUN, LOOP: distance between repetitions */
    size_t len;                    /* RUN: bytes per run; LOOP: bytes per child */
    size_t total;                  /* data bytes of the whole node */
    const struct zm_dt_node *child; /* LOOP: the repeated node */
    const struct zm_dt_ent *ent;   /* LIST: its entries */
} zm_dt_node_t;

/* An entry of a LIST node. */
typedef struct zm_dt_ent {
    ptrdiff_t disp;                /* child's base relative to the list origin */
    size_t start;                  /* data bytes of the entries before it */
    const zm_dt_node_t *node;      /* the child */
} zm_dt_ent_t;

/* A compiled layout, shared by a type and its duplicates. */
typedef struct zm_dt_layout {
    _Atomic int refs;              /* holders; < 0 for static layouts */
    int depth;                     /* levels of the tree */
    const zm_dt_node_t *root;      /* NULL if the type holds no data */
    const zm_dt_node_t *nodes;     /* derived: all nodes (NULL for static ones) */
    size_t nnodes;                 /* entries of nodes */
    const zm_dt_ent_t *ents;       /* derived: all list entries */
    size_t nents;                  /* entries of ents */
} zm_dt_layout_t;

struct zm_dt_derived;

/* A datatype.  Predefined ones are constant objects in dt_predef.c;
 * derived ones are made by the zm_dt_create_* calls and reference counted. */
typedef struct zmpi_datatype {
    uint32_t magic;         /* ZM_DT_MAGIC while valid */
    zm_dt_kind_t kind;      /* element kind (ZM_DT_DERIVED for derived types) */
    size_t size;            /* bytes of data per element */
    ptrdiff_t lb;           /* lower bound */
    ptrdiff_t extent;       /* distance between consecutive elements */
    int contig;             /* 1 if data is one run of size bytes at 0 and extent == size */
    uint8_t usable;         /* committed and not freed: may be used to communicate */
    uint8_t committed;      /* MPI_Type_commit done (predefined: always) */
    uint8_t freed;          /* the user freed the handle (object kept for operations) */
    size_t val_size;        /* pair types: size of the value part */
    const char *name;       /* MPI name, for messages */
    const zm_dt_layout_t *layout;      /* compiled layout */
    const struct zmpi_datatype *basic; /* zm_dt_basic */
    ptrdiff_t true_lb;      /* lowest byte holding data */
    ptrdiff_t true_ub;      /* one past the highest byte holding data */
    size_t nbasic;          /* predefined elements per element (pairs count 2) */
    size_t align;           /* alignment used to pad struct extents */
    struct zm_dt_derived *d; /* derived types only, NULL for predefined ones */
    int64_t cmax;           /* largest count whose bytes and span fit an int64_t: one
                             * compare checks a count on the message path */
} zm_dt_t;

/* Typemap order of a derived type: `count` elements of `type` in a row. */
typedef struct zm_dt_seq {
    size_t count;           /* elements */
    const zm_dt_t *type;    /* their type (held) */
} zm_dt_seq_t;

/* The parts of a derived type that predefined types lack. */
struct zm_dt_derived {
    _Atomic int refs;        /* the user's handle plus operations holding it */
    zm_dt_layout_t *layout;  /* held reference to the layout */
    size_t nseq;             /* entries of seq */
    zm_dt_seq_t *seq;        /* children in typemap order */
    int combiner;            /* envelope: API-layer combiner code */
    int ni, na, nd;          /* envelope: numbers of ints, addresses, types */
    int *ints;               /* envelope: integer arguments */
    ptrdiff_t *aints;        /* envelope: address arguments */
    size_t nc;               /* envelope: number of large counts (the _c constructors) */
    int64_t *counts;         /* envelope: large-count arguments, or NULL */
    const zm_dt_t **types;   /* envelope: datatype arguments (held) */
    char name[128];          /* name set by the user, or a generated one */
    int named;               /* the user set the name */
};

/* Bytes of data in `count` elements. */
static inline size_t zm_dt_bytes(const zm_dt_t *dt, size_t count)
{
    return dt->size * count;
}

/* Pack the first `bytes` bytes of the data of (buf, count, dt) into `out`.
 * Any thread; no allocation. */
void zm_dt_pack(void *out, const void *buf, size_t count, const zm_dt_t *dt, size_t bytes);

/* Unpack `bytes` contiguous bytes from `in` into (buf, count, dt). */
void zm_dt_unpack(void *buf, size_t count, const zm_dt_t *dt, const void *in, size_t bytes);

/* Copy `bytes` bytes of data from one layout straight into another, with
 * no intermediate buffer.  Any thread; no allocation. */
void zm_dt_copy(void *dbuf, size_t dcount, const zm_dt_t *ddt,
                const void *sbuf, size_t scount, const zm_dt_t *sdt, size_t bytes);

/* Copy bytes [off, off + n) of the data stream of (sbuf, scount, sdt) to
 * the same bytes of the stream of (dbuf, dcount, ddt).  Finding `off`
 * costs one step per layout level, so a copy can be split into chunks
 * that different threads take.  Any thread; no allocation. */
void zm_dt_copy_range(void *dbuf, size_t dcount, const zm_dt_t *ddt,
                      const void *sbuf, size_t scount, const zm_dt_t *sdt,
                      size_t off, size_t n);

/* As zm_dt_copy_range, but the destination lines that runs of 256 bytes
 * and more (or of whole, aligned lines) fill whole are written with
 * streaming stores where the CPU has 64-byte ones: for copies whose
 * destination cannot stay in the caches.  For pairs of layouts of which
 * at least one is non-contiguous (two contiguous ones are a plain copy:
 * zm_arch_copy_stream).  Any thread; no allocation. */
void zm_dt_copy_range_stream(void *dbuf, size_t dcount, const zm_dt_t *ddt,
                             const void *sbuf, size_t scount, const zm_dt_t *sdt,
                             size_t off, size_t n);

/* Pack/unpack bytes [off, off + n) of the data stream of (buf, count, dt)
 * from/to the contiguous `packed`, which holds exactly those n bytes. */
void zm_dt_pack_range(void *packed, const void *buf, size_t count, const zm_dt_t *dt,
                      size_t off, size_t n);
void zm_dt_unpack_range(void *buf, size_t count, const zm_dt_t *dt, const void *packed,
                        size_t off, size_t n);

/* The predefined datatype that all data of `dt` is made of, or NULL when
 * `dt` mixes different predefined types.  Reductions use it to pick a
 * kernel: (buf, count, dt) then holds zm_dt_bytes(dt, count) /
 * basic->size elements of `basic`.  Any thread; the result is owned by the
 * datatype layer and lives as long as `dt`. */
const zm_dt_t *zm_dt_basic(const zm_dt_t *dt);

/* Keep `dt` alive while an operation (a request, a non-blocking
 * collective) still uses it, even if the user frees it; release drops that
 * hold.  Predefined types are never freed, so both are no-ops for them.
 * Any thread. */
void zm_dt_retain(const zm_dt_t *dt);
void zm_dt_release(const zm_dt_t *dt);

/* Derived datatypes in existence in this process's own memory (a
 * checkpoint, and a move of its ranks to another process, need none):
 * not those in a rank's heap (zm_core_obj_alloc), which the rank takes
 * along.  Any thread. */
long zm_dt_live(void);

/* Nonzero if `dt` looks like a datatype object (it may be uncommitted or
 * freed by the user but still held by an operation). */
static inline int zm_dt_valid(const zm_dt_t *dt)
{
    return dt != NULL && dt->magic == ZM_DT_MAGIC;
}

/* Nonzero if `dt` may be used to communicate: valid, committed, not freed. */
static inline int zm_dt_usable(const zm_dt_t *dt)
{
    return dt != NULL && dt->magic == ZM_DT_MAGIC && dt->usable;
}

/* ---- Derived types (dt_type.c) ----------------------------------------
 * Each constructor returns a new type holding one reference (the caller's
 * handle), uncommitted, or NULL if out of memory or if its layout would be
 * deeper than ZM_DT_MAX_DEPTH (*err says which: ZM_ERR_NOMEM or
 * ZM_ERR_ARG).  The new type holds references to the types it was made
 * from, so those may be released at once.  Displacements and strides are
 * in bytes.  ULT or any thread; allocates. */

/* `count` blocks of `blocklen` elements of old, `stride` bytes apart. */
zm_dt_t *zm_dt_create_hvector(size_t count, size_t blocklen, ptrdiff_t stride,
                              const zm_dt_t *old, zm_status_t *err);

/* n blocks: blocklen[i] elements of types[i] (types[0] for all if
 * one_type) at displacement disp[i].  `pad` rounds the extent up to the
 * alignment of the members, as for MPI_Type_create_struct. */
zm_dt_t *zm_dt_create_struct(size_t n, const size_t *blocklen, const ptrdiff_t *disp,
                             const zm_dt_t *const *types, int one_type, int pad,
                             zm_status_t *err);

/* old with its lower bound and extent replaced. */
zm_dt_t *zm_dt_create_resized(const zm_dt_t *old, ptrdiff_t lb, ptrdiff_t extent,
                              zm_status_t *err);

/* A new type equal to old in layout, bounds and typemap, sharing its
 * compiled layout.  If `copy_envelope`, it also answers the same envelope
 * (for MPI_Type_get_contents); otherwise its envelope is empty and the
 * caller sets one. */
zm_dt_t *zm_dt_create_clone(const zm_dt_t *old, int copy_envelope, zm_status_t *err);

/* Record the constructor call that made dt (copied; types are held).
 * Returns ZM_ERR_NOMEM on failure.  Before the type is shared. */
zm_status_t zm_dt_set_envelope(zm_dt_t *dt, int combiner, int ni, const int *ints, int na,
                               const ptrdiff_t *aints, int nd, const zm_dt_t *const *types);

/* Record the large-count arguments of the _c constructor that made dt
 * (copied), after zm_dt_set_envelope.  Returns ZM_ERR_NOMEM on failure.
 * Before the type is shared. */
zm_status_t zm_dt_set_counts(zm_dt_t *dt, size_t nc, const int64_t *counts);

/* Number of predefined elements in the first `bytes` bytes of data of
 * (count elements of) dt, or -1 if those bytes end inside an element.
 * Any thread. */
int64_t zm_dt_elements(const zm_dt_t *dt, size_t bytes);

/* ---- external32 (dt_ext32.c) ------------------------------------------ */

/* Bytes of `count` elements of dt in the external32 representation, or 0
 * with *ok = 0 if dt holds a type external32 cannot represent here. */
size_t zm_dt_ext32_size(const zm_dt_t *dt, size_t count, int *ok);

/* Convert `count` elements of dt between native packed data (the output
 * of zm_dt_pack) and external32.  Returns 0 on success, -1 if dt holds a
 * type that cannot be converted.  Any thread. */
int zm_dt_ext32_encode(void *ext, const void *native, size_t count, const zm_dt_t *dt);
int zm_dt_ext32_decode(void *native, const void *ext, size_t count, const zm_dt_t *dt);

#endif /* ZM_DT_H */
