/* zf.h: helpers of zmpi's Fortran glue (docs/fortran.md).
 *
 * The glue (generated zf_glue.c and the hand-written files here) turns
 * gfortran's calling convention into calls of the C interface: every
 * argument by reference, handles as MPI_Fint indices, LOGICAL as 0/1,
 * strings with hidden lengths, mpi_f08 choice buffers as CFI descriptors.
 * It uses only the public interface (mpi.h) and the entries the library
 * offers the bindings (mpi/bind_hooks.h: completion hooks, and the
 * Fortran-handle entries of MPI_Send and MPI_Recv).  The glue is linked statically
 * into each Fortran program (libzmpi_fortran.a), so under privatization
 * every rank's copy of the program has its own copy of the glue, and the
 * sentinels it compares addresses with (MPI_BOTTOM, MPI_IN_PLACE, ...) are
 * that rank's own. */
#ifndef ZMPI_ZF_H
#define ZMPI_ZF_H

#include <mpi.h>
#include "mpi/bind_hooks.h"
#include <ISO_Fortran_binding.h>
#include <stddef.h>
#include <stdint.h>

/* gfortran's LOGICAL values. */
#define ZF_TRUE 1
#define ZF_FALSE 0
/* Elements converted on the stack before the glue allocates. */
#define ZF_SMALL 16
/* Bytes of a string argument copied on the stack before allocating. */
#define ZF_STR 256

/* MPI_X_ (and, for mpi_f08, MPI_X_f08ts) are weak aliases of the PMPI
 * forms, so a profiling library may replace the MPI names only. */
#define ZF_WEAK(target, name) \
    __typeof(target) name __attribute__((weak, alias(#target)));

/* The helpers on every call's path.  always_inline because zf_glue.c is
 * one very large unit: GCC's inliner stops at its unit-growth limit there
 * and would call even one-line helpers out of line (measured: about ten
 * calls per MPI_Allreduce through mpi_f08). */
#define ZF_INLINE static inline __attribute__((always_inline))

/* The sentinels of mpif.h: the COMMON block /ZMPI_FSENT/ (gfortran names
 * it zmpi_fsent_).  The same layout is written out by gen_fortran.py. */
struct zf_fsent {
    MPI_Fint bottom, in_place, buffer_automatic;
    MPI_Fint status_ignore[MPI_STATUS_SIZE];
    MPI_Fint statuses_ignore[MPI_STATUS_SIZE];
    MPI_Fint errcodes_ignore[1], unweighted[1], weights_empty[1];
};

/* The sentinels of mpif.h, module mpi and module mpi_f08 (the modules'
 * BIND(C) names), all defined in zf_util.c.  Hidden: they are always
 * linked into the same program or library as the glue, so their
 * addresses are PC-relative constants instead of loads from the GOT (nine
 * of them per choice buffer, in zf_buf). */
#pragma GCC visibility push(hidden)
extern struct zf_fsent zmpi_fsent_;
extern MPI_Fint zmpi_mpi_bottom, zmpi_mpi_in_place, zmpi_mpi_buffer_automatic;
extern MPI_Fint zmpi_mpi_status_ignore[MPI_STATUS_SIZE];
extern MPI_Fint zmpi_mpi_statuses_ignore[MPI_STATUS_SIZE];
extern MPI_Fint zmpi_mpi_unweighted[1], zmpi_mpi_weights_empty[1];
extern MPI_Fint zmpi_f08s_bottom, zmpi_f08s_in_place, zmpi_f08s_buffer_automatic;
extern MPI_F08_status zmpi_f08s_status_ignore;
extern MPI_F08_status zmpi_f08s_statuses_ignore[1];
extern MPI_Fint zmpi_f08s_unweighted[1], zmpi_f08s_weights_empty[1];
/* MPI_ARGV_NULL and MPI_ARGVS_NULL (CHARACTER arrays): mpif.h's COMMON
 * block /ZMPI_FSENTC/ (defined in zf_util.c as zmpi_fsent_ is) and the
 * modules' BIND(C) names; MPI_ERRCODES_IGNORE of the modules. */
struct zf_fsentc {
    char argv_null[1], argvs_null[1];
};
extern struct zf_fsentc zmpi_fsentc_;
extern char zmpi_mpi_argv_null[1], zmpi_mpi_argvs_null[1];
extern char zmpi_f08s_argv_null[1], zmpi_f08s_argvs_null[1];
extern MPI_Fint zmpi_mpi_errcodes_ignore[1], zmpi_f08s_errcodes_ignore[1];
#pragma GCC visibility pop

/* Every sentinel above except the CHARACTER ones is defined in zf_util.c
 * in section zf_sentinels, so that whether an address is any of them is
 * one range check between the linker's __start_zf_sentinels and
 * __stop_zf_sentinels: the fast paths of the glue (zf_is_sentinel) look at
 * nothing else before passing an address on.  The modules' BIND(C)
 * variables are common symbols that these definitions absorb at link
 * time, as zmpi_fsent_ absorbs mpif.h's COMMON block. */
#pragma GCC visibility push(hidden)
extern char __start_zf_sentinels[], __stop_zf_sentinels[];
#pragma GCC visibility pop

/* The start and size of section zf_sentinels (__start_zf_sentinels, and
 * __stop_zf_sentinels minus it), set by a constructor of zf_util.c: read
 * from memory they cost the fast paths one register and two instructions
 * less than the addresses' lea and subtraction (measured: GCC then needs
 * no callee-saved register there).  Until they are set, every address is
 * a sentinel, so a program whose constructors had not run would take the
 * general paths (correct, only slower). */
extern uintptr_t zf_sent_lo __attribute__((visibility("hidden")));
extern uintptr_t zf_sent_span __attribute__((visibility("hidden")));

/* Whether p is (inside) one of the sentinels of the three bindings, or in
 * the gaps of their alignment.  Any thread. */
ZF_INLINE int zf_is_sentinel(const void *p)
{
    return (uintptr_t)p - zf_sent_lo < zf_sent_span;
}

/* The C pointer a Fortran choice or address argument stands for: the
 * sentinels of the three bindings become MPI_BOTTOM, MPI_IN_PLACE and
 * MPI_BUFFER_AUTOMATIC, anything else is itself.  Inline: every call with
 * a buffer asks.  Any thread; no ownership. */
ZF_INLINE void *zf_buf(void *p)
{
    if (!zf_is_sentinel(p))
        return p;
    if (p == &zmpi_fsent_.bottom || p == &zmpi_mpi_bottom || p == &zmpi_f08s_bottom)
        return MPI_BOTTOM;
    if (p == &zmpi_fsent_.in_place || p == &zmpi_mpi_in_place || p == &zmpi_f08s_in_place)
        return MPI_IN_PLACE;
    if (p == &zmpi_fsent_.buffer_automatic || p == &zmpi_mpi_buffer_automatic ||
        p == &zmpi_f08s_buffer_automatic)
        return MPI_BUFFER_AUTOMATIC;
    return p;
}

/* Whether a Fortran status (array) argument is MPI_STATUS_IGNORE
 * (MPI_STATUSES_IGNORE) of one of the bindings, or the C library's
 * MPI_F_STATUS(ES)_IGNORE / MPI_F08_STATUS(ES)_IGNORE. */
ZF_INLINE int zf_status_ignored(const void *p)
{
    return p == zmpi_fsent_.status_ignore || p == zmpi_mpi_status_ignore ||
           p == &zmpi_f08s_status_ignore || p == MPI_F_STATUS_IGNORE ||
           p == MPI_F08_STATUS_IGNORE;
}

ZF_INLINE int zf_statuses_ignored(const void *p)
{
    return p == zmpi_fsent_.statuses_ignore || p == zmpi_mpi_statuses_ignore ||
           p == zmpi_f08s_statuses_ignore || p == MPI_F_STATUSES_IGNORE ||
           p == MPI_F08_STATUSES_IGNORE;
}

/* PMPI_Status_c2f without its call and checks, for the statuses every
 * receive and wait returns: the layout is the one mpi.h documents for
 * Fortran statuses (source, tag, error, cancelled, bytes low, bytes high).
 * c and f are the caller's, valid and not ignored. */
_Static_assert(MPI_STATUS_SIZE == 6, "zf_status_c2f: Fortran status layout changed");
ZF_INLINE void zf_status_c2f(const MPI_Status *c, MPI_Fint *f)
{
    unsigned long long bytes = (unsigned long long)c->zmpi_bytes;
    f[0] = c->MPI_SOURCE;
    f[1] = c->MPI_TAG;
    f[2] = c->MPI_ERROR;
    f[3] = c->zmpi_cancelled;
    f[4] = (MPI_Fint)(unsigned)bytes;
    f[5] = (MPI_Fint)(unsigned)(bytes >> 32);
}

/* The reverse of zf_status_c2f: the statuses a call receives start as
 * the caller's Fortran values, so that fields it leaves alone keep them. */
ZF_INLINE void zf_status_f2c(const MPI_Fint *f, MPI_Status *c)
{
    c->MPI_SOURCE = f[0];
    c->MPI_TAG = f[1];
    c->MPI_ERROR = f[2];
    c->zmpi_cancelled = f[3];
    c->zmpi_bytes = (MPI_Count)((unsigned long long)(unsigned)f[4] |
                                (unsigned long long)(unsigned)f[5] << 32);
}

/* zf_status_c2f for the status of a call that completes one operation:
 * the Fortran status's MPI_ERROR stays as it was (MPI 4.1 section 3.2.5;
 * the third integer in both Fortran layouts). */
ZF_INLINE void zf_status_c2f_keep_error(const MPI_Status *c, MPI_Fint *f)
{
    MPI_Fint err = f[2];
    zf_status_c2f(c, f);
    f[2] = err;
}

/* ---- Fast paths of the generated glue (gen_fortran_glue.py) ---------- */

#define ZF_LIKELY(x) __builtin_expect(!!(x), 1)
/* The general form of a glue function that has a fast path: out of line,
 * so that the fast path saves no registers for it. */
#define ZF_SLOW static __attribute__((noinline))

/* Whether mpi_f08 choice buffer d is the common case: no sentinel, and a
 * scalar or a contiguous rank-1 array, so that its base address is the C
 * buffer (what zf_cbuf_in finds for it, without its other cases).  Module
 * mpi_f08's choice sentinels (MPI_BOTTOM, MPI_IN_PLACE,
 * MPI_BUFFER_AUTOMATIC) are arrays of one element of a derived type of
 * their own (gen_fortran_f90.py), so a scalar is never one, and the
 * descriptor's type tells them apart from rank-1 arrays without comparing
 * addresses: every rank-1 structure takes the general path, which looks
 * at the address.  Any thread. */
ZF_INLINE int zf_cdesc_plain(const CFI_cdesc_t *d)
{
    if (d->rank == 0)
        return 1;
    return d->rank == 1 && d->type != CFI_type_struct &&
           d->dim[0].sm == (CFI_index_t)d->elem_len;
}

/* The base address of descriptor d, read again where the C call takes it
 * (a volatile read GCC does not merge with zf_cdesc_plain's): kept from the
 * test instead, it takes one register more than the fast paths have
 * without saving callee-saved ones (measured).  Any thread. */
ZF_INLINE void *zf_cdesc_addr(const CFI_cdesc_t *d)
{
    return *(void *const volatile *)&d->base_addr;
}

/* The fast path of the glue of the functions with library entries
 * (MPI_Send, MPI_Recv, MPI_Isend, MPI_Irecv, MPI_Allreduce), in assembly
 * where src/arch/f08_stub.h has it (x86-64 ELF); elsewhere, or with
 * ZF_NO_ASM, the glue keeps its C form. */
#include "arch/f08_stub.h"
#ifndef ZF_FAST_ASM
#define ZF_SLOW_ASM ZF_SLOW
#define ZF_FAST_ASM_FN(name, alias, entry, slow)
#define ZF_FAST_ASM_FN2(name, alias, entry, slow)
#endif

/* On a little-endian machine a Fortran status (mpif.h, mpi, mpi_f08) has
 * the layout of the C one (its bytes at index 4 and 5 are the 64-bit
 * count), so a C call can write it directly when it is as aligned as a
 * C status. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ZF_STATUS_DIRECT 1
_Static_assert(offsetof(MPI_Status, MPI_SOURCE) == 0 && offsetof(MPI_Status, MPI_TAG) == 4 &&
                   offsetof(MPI_Status, MPI_ERROR) == 8 &&
                   offsetof(MPI_Status, zmpi_cancelled) == 12 &&
                   offsetof(MPI_Status, zmpi_bytes) == 16 &&
                   sizeof(MPI_Status) == MPI_STATUS_SIZE * sizeof(MPI_Fint),
               "zf_status_fast: the C status no longer has the Fortran layout");
#else
#define ZF_STATUS_DIRECT 0
#endif

/* Whether Fortran status f can be passed to a C call on the fast path
 * (zf_status_c gives the C status then): a MPI_STATUS_IGNORE of the
 * bindings, or a status that can be written as a C one.  0 otherwise (the
 * C library's MPI_F_STATUS_IGNORE, another sentinel, a misaligned status,
 * a big-endian machine): the general path converts it then.  f08 nonzero:
 * the status of an MPI_X_f08ts function, a TYPE(MPI_Status), which module
 * mpi_f08 aligns as a C status (its byte count is one 8-byte integer), so
 * that nothing needs testing: see zf_status_c.  The other glue (mpif.h
 * and module mpi, and the mpi_f08 calls without buffers, which share it)
 * may get any sentinel. */
ZF_INLINE int zf_status_fast(const void *f, int f08)
{
    if (!ZF_STATUS_DIRECT)
        return 0;
    if (f08)
        return 1;
    if (zf_is_sentinel(f))
        return f == (const void *)&zmpi_f08s_status_ignore ||
               f == (const void *)zmpi_fsent_.status_ignore ||
               f == (const void *)zmpi_mpi_status_ignore;
    if (((uintptr_t)f & (_Alignof(MPI_Status) - 1)) != 0 ||
        f == (const void *)MPI_F08_STATUS_IGNORE)
        return 0;
    return f != (const void *)MPI_F_STATUS_IGNORE;
}

/* The C status for Fortran status f of an mpi_f08 call (f08 nonzero) or
 * not, zf_status_fast(f, f08) being true.  In mpi_f08 it is f itself, even
 * for the module's MPI_STATUS_IGNORE: that is a variable of the program
 * (zf_util.c) that nothing reads, so the C call may as well write it as a
 * status, which saves the fast path of every receive its test and
 * conversion (about 6 instructions, measured).  The C library's
 * MPI_F08_STATUS_IGNORE, which a Fortran program cannot name, passed from
 * C, is likewise a library variable written as a status.  Programs built
 * without privatization share the variable between ranks: their writes to
 * it race, harmlessly, since it is never read.  In the other bindings a
 * sentinel becomes MPI_STATUS_IGNORE. */
ZF_INLINE MPI_Status *zf_status_c(void *f, int f08)
{
    if (!f08 && zf_is_sentinel(f))
        return MPI_STATUS_IGNORE;
    return (MPI_Status *)f;
}

/* zf_status_fast and zf_status_c for an array of statuses (a call's
 * array_of_statuses): the bindings' MPI_STATUSES_IGNORE (the C one on the
 * fast path), or an array aligned as C statuses, which the C call writes
 * directly (each Fortran status has the C layout and size: above).  0
 * for anything else (another sentinel, a misaligned array). */
ZF_INLINE int zf_statuses_fast(const void *f)
{
    if (!ZF_STATUS_DIRECT)
        return 0;
    if (zf_statuses_ignored(f))
        return 1;
    return !zf_is_sentinel(f) && ((uintptr_t)f & (_Alignof(MPI_Status) - 1)) == 0;
}

ZF_INLINE MPI_Status *zf_statuses_c(void *f)
{
    return zf_statuses_ignored(f) ? MPI_STATUSES_IGNORE : (MPI_Status *)f;
}

/* The MPI_ERROR of a status from zf_status_fast before the call, and
 * putting it back after: a call that completes one operation leaves it
 * alone in Fortran (MPI 4.1 section 3.2.5), whatever the C side wrote. */
ZF_INLINE MPI_Fint zf_status_error(const MPI_Status *c)
{
    return c != MPI_STATUS_IGNORE ? c->MPI_ERROR : 0;
}

ZF_INLINE void zf_status_set_error(MPI_Status *c, MPI_Fint err)
{
    if (c != MPI_STATUS_IGNORE)
        c->MPI_ERROR = err;
}

/* Weights of the distributed-graph calls: MPI_UNWEIGHTED and
 * MPI_WEIGHTS_EMPTY sentinels become the C constants. */
int *zf_weights(MPI_Fint *w);

/* Temporary array of n elements of size el: small (of small_size bytes)
 * when it fits, else malloc'ed (NULL when that fails).  zf_tmp_free frees
 * what zf_tmp allocated.  The caller owns the result. */
void *zf_tmp(void *small, size_t small_size, long n, size_t el);
void zf_tmp_free(void *p, void *small);
/* Reports MPI_ERR_NO_MEM for the named function (returns the code). */
int zf_oom(const char *fn);

/* Converted arrays a nonblocking call's C side may still read (the
 * datatypes of MPI_Ialltoallw, ...) are kept (and owned) under the
 * request's Fortran index and freed once the glue sees that request
 * complete or freed.  Any rank; the list is locked. */
void zf_keep(MPI_Fint req, void *p);
void zf_release(MPI_Fint req);
/* How many arrays are kept (zf_util.c): every wait and test asks, so it
 * is read inline, without the lock (zf_release takes it). */
extern int zf_kept_n __attribute__((visibility("hidden")));
ZF_INLINE int zf_nkept(void)
{
    return __atomic_load_n(&zf_kept_n, __ATOMIC_RELAXED);
}

/* A Fortran string (fstr, flen bytes, blank padded) as a C string without
 * the trailing blanks: in small (size bytes) or malloc'ed; NULL if out of
 * memory.  Free with zf_tmp_free(result, small). */
char *zf_str_in(const char *fstr, size_t flen, char *small, size_t size);
/* zf_str_in for info keys and values: leading blanks are dropped too. */
char *zf_info_str_in(const char *fstr, size_t flen, char *small, size_t size);
/* Copies C string c into the Fortran string fstr of flen bytes, blank
 * padded, truncated to flen. */
void zf_str_out(char *fstr, size_t flen, const char *c);

/* 0-based C indices to 1-based Fortran ones (MPI_Waitsome, ...). */
void zf_shift_indices(MPI_Fint *idx, const MPI_Fint *outcount);
/* Number of ranks of comm's group (remote group of an intercommunicator). */
int zf_coll_size(MPI_Comm comm);
/* Number of in (out nonzero: out) neighbours of a topology communicator. */
int zf_nbr_degree(MPI_Comm comm, int out);

/* Whose error handler an error of the glue goes to (with its Fortran
 * handle): the call's communicator, window or file, else MPI_COMM_WORLD. */
enum { ZF_ON_WORLD, ZF_ON_COMM, ZF_ON_WIN, ZF_ON_FILE };

/* mpi_f08 choice buffers.  zf_cbuf_in looks at the descriptor d: a
 * sentinel gives its C constant, a contiguous array its address.  A
 * non-contiguous section gets a derived datatype (sec) used with count 1
 * in place of (count, datatype): the user's (count, datatype) describes
 * bytes of the section's elements as if they were contiguous, and sec the
 * same predefined elements at their real addresses (zf_cbuf.c), so no copy
 * is made and nonblocking, persistent and one-sided calls work.  flags:
 * ZF_ASYNC for a call that may use the buffer after it returns, ZF_PEER
 * for a buffer holding one (count, datatype) block per peer (MPI_Gather's
 * recvbuf: sec's extent is then the distance between blocks in memory;
 * the v collectives pass count 1, one element of datatype per block).
 * What no datatype describes (no count and datatype with the buffer, an
 * element of the datatype across array elements apart in memory, ...) a
 * call gets as a contiguous copy (tmp) of the section's elements.  A
 * blocking call's copy zf_cbuf_done writes back (ZF_INOUT) and frees; a
 * ZF_ASYNC call's lives in a record (hold) that zf_cbuf_keep hands to the
 * library with the call's request or window once the call has started
 * the operation (zf_cbuf.c: copied in at every start, back at every
 * completion; partitioned requests also at every MPI_Pready* and every
 * MPI_Parrived that says yes).  A count reaching outside the section fails
 * with MPI_ERR_BUFFER, reported to the error handler of (on, h) naming fn
 * and argument arg.
 * zf_cbuf_done frees sec (MPI allows freeing a datatype an operation
 * still uses: the operation keeps it until it completes).  The calling
 * rank's thread; cb is the caller's. */
enum { ZF_ASYNC = 1, ZF_PEER = 2 };
enum { ZF_IN, ZF_INOUT, ZF_ADDR };
typedef struct {
    void *ptr;
    MPI_Datatype sec;
    void *tmp;
    CFI_cdesc_t *d;
    int mode;
    void *hold;     /* ZF_ASYNC copy not yet handed over (zf_cbuf_keep) */
} zf_cbuf_t;
/* zf_cbuf_in's path for arrays (zf_cbuf.c); zf_cbuf_free is zf_cbuf_done's
 * when there is something to free or write back. */
int zf_cbuf_section(zf_cbuf_t *cb, CFI_cdesc_t *d, int flags, long long count,
                    MPI_Datatype datatype, int on, MPI_Fint h, const char *fn, const char *arg);

ZF_INLINE int zf_cbuf_in(zf_cbuf_t *cb, CFI_cdesc_t *d, int mode, int flags,
                             long long count, MPI_Datatype datatype, int on, MPI_Fint h,
                             const char *fn, const char *arg)
{
    cb->sec = MPI_DATATYPE_NULL;
    cb->tmp = NULL;
    cb->hold = NULL;
    cb->d = d;
    cb->mode = mode;
    cb->ptr = zf_buf(d->base_addr);
    /* Sentinels, addresses and scalars as they are; arrays are looked at
     * by zf_cbuf_section (contiguous ones as they are, too). */
    if (cb->ptr != d->base_addr || mode == ZF_ADDR || d->rank == 0)
        return MPI_SUCCESS;
    return zf_cbuf_section(cb, d, flags, count, datatype, on, h, fn, arg);
}
void zf_cbuf_free(zf_cbuf_t *cb, int rc);

/* zf_cbuf_in for two buffers that share one (count, datatype), as the
 * reductions' sendbuf (a) and recvbuf (b): one datatype must describe
 * both from their own base addresses, so sections are composed when the
 * other buffer is MPI_IN_PLACE or laid out alike.  Otherwise (a contiguous
 * sendbuf with a section recvbuf, say), with ZF_INPLACE (a call whose
 * in-place form means the same on an intracommunicator: Allreduce, Scan,
 * Exscan, and Reduce at the root, ZF_ROOTED, root being the root's rank
 * in comm) the sendbuf's data are copied into the recvbuf and the call
 * runs in place; without it the sections are copied (a ZF_ASYNC call's
 * copies go to the library with zf_cbuf_keep).  Sections laid out alike
 * that no datatype describes are copied both.  On failure neither buffer
 * holds anything to free.  The calling rank's thread. */
enum { ZF_INPLACE = 4, ZF_ROOTED = 8 };
int zf_cbuf_pair(zf_cbuf_t *ca, CFI_cdesc_t *a, int amode, zf_cbuf_t *cb, CFI_cdesc_t *b,
                 int bmode, int flags, long long count, MPI_Datatype datatype, MPI_Comm comm,
                 int root, int on, MPI_Fint h, const char *fn, const char *aname,
                 const char *bname);

ZF_INLINE void zf_cbuf_done(zf_cbuf_t *cb, int rc)
{
    if (cb->sec != MPI_DATATYPE_NULL || cb->tmp)
        zf_cbuf_free(cb, rc);
}

/* After the C call of a ZF_ASYNC function (rc its result): the copy of
 * buffer cb, if it has one, goes to the library with the call's request
 * (ZF_KEEP_REQ; nonblocking and persistent calls) or window (ZF_KEEP_WIN;
 * one-sided calls without a request), handle being the C handle.  From
 * then on the library tells the copy when to fill, write back and free
 * itself (mpi/bind_hooks.h).  A failed call keeps its copy for
 * zf_cbuf_done to free.  The calling rank's thread. */
enum { ZF_KEEP_REQ, ZF_KEEP_WIN };
void zf_cbuf_keep(zf_cbuf_t *cb, int rc, int how, void *handle);

/* Reports error code rc with text for the named function through the
 * error handler of (on, h) (zf_error: MPI_COMM_WORLD's) and returns the
 * code the handler leaves.  The text goes to stderr unless that handler is
 * MPI_ERRORS_RETURN. */
int zf_error_on(int on, MPI_Fint h, int rc, const char *fn, const char *what);
int zf_error(int rc, const char *fn, const char *what);

/* Gives libgfortran back the command line and runtime options the rank's
 * main passed it, which a job restarted from a checkpoint does not have
 * (zf_rtargs.c).  Called by the glue of ZMPI_CHECKPOINT on success, on the
 * rank's thread. */
void zf_rt_restore(void);

#endif
