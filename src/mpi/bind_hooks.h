/*
 * bind_hooks.h: completion hooks of the API layer for zmpi's language
 * bindings (docs/fortran.md, "array sections").
 *
 * An mpi_f08 array section that no datatype describes reaches a
 * nonblocking, persistent or one-sided call as a contiguous copy.  The
 * copy must be filled at every start of a persistent request, written
 * back when the operation completes (in whichever wait or test, from
 * Fortran or from C), and freed only once the operation is complete.
 * Only the library sees those moments, so the binding attaches a hook to
 * the request, or to the window of a one-sided call without one, and the
 * library calls it then.
 *
 * This is the one internal header the bindings may include
 * (scripts/check_layers.sh names it): it needs nothing but mpi.h, and its
 * entry points are zmpi-internal (no MPI or MPIX name), so that programs
 * see no new interface.  An MPIX extension in mpi.h would have worked as
 * well but would have made the hooks part of zmpi's public interface,
 * which they are not meant to be.
 */
#ifndef ZM_MPI_BIND_HOOKS_H
#define ZM_MPI_BIND_HOOKS_H

#include <mpi.h>

/* What a hook hears.  START: a persistent request is about to start
 * (MPI_Start, MPI_Startall), or partitions of a partitioned send are
 * about to go (each MPI_Pready*).  DONE: a wait or test completed the
 * operation, before that call returns (at every completion of a
 * persistent request; for a window, at the next synchronisation that
 * completes the call's operations at the origin), or an MPI_Parrived of
 * a partitioned receive is about to return true.  CANCELLED: as DONE for
 * an operation that was cancelled.  FREE: the last event; the request or
 * window is being freed, or its operation is complete after the user
 * freed it, and the hook is no longer linked: the binding frees it. */
enum { ZMPI_HOOK_START = 1, ZMPI_HOOK_DONE, ZMPI_HOOK_CANCELLED, ZMPI_HOOK_FREE };

typedef struct zmpi_hook zmpi_hook_t;
/* A hook's function: event is a ZMPI_HOOK_* value.  It runs on the thread
 * of the MPI call that sees the event, holding no lock of the library,
 * and must not call MPI on the same request or window. */
typedef void zmpi_hook_fn(zmpi_hook_t *h, int event);

/* A hook, allocated and owned by the binding; while it is attached the
 * library owns its fields (it links it in a list). */
struct zmpi_hook {
    zmpi_hook_t *next;       /* library: next hook */
    void *key;               /* library: the request or window */
    zmpi_hook_fn *fn;        /* library: the function */
    int zombie;              /* library: request freed by the user while active */
    void *owner;             /* library: the rank that attached it */
};

/* Attaches h (fn) to request req, which the calling rank just made:
 * START, DONE or CANCELLED events follow as the request is started and
 * completed, FREE when it is freed (after its operation completes, if the
 * user freed it while active).  Several hooks may share a request.
 * Returns MPI_ERR_REQUEST (without raising it) for MPI_REQUEST_NULL: the
 * caller then keeps h.  Any thread of the rank that owns req. */
ZMPI_EXPORT int zmpi_request_hook(MPI_Request req, zmpi_hook_t *h, zmpi_hook_fn *fn);

/* Attaches h (fn) to window win: DONE then FREE at the next
 * synchronisation of the calling rank that completes its operations on
 * win at the origin (fence, complete, unlock, unlock_all, the flushes, or
 * MPI_Win_free).  Returns MPI_ERR_WIN (not raised) for MPI_WIN_NULL.  The
 * calling rank's thread. */
ZMPI_EXPORT int zmpi_win_hook(MPI_Win win, zmpi_hook_t *h, zmpi_hook_fn *fn);

/* ---- The library's side (request.c, rma_api.c, win.c) ------------------ */

/* Hooks attached, zombies included: the library's paths test it (one
 * load and a branch that is never taken while no hook exists). */
extern _Atomic int zm_mpi_hooks_n __attribute__((visibility("hidden")));

/* Request r, live and complete, is being finished by a wait or test:
 * DONE (CANCELLED) to its hooks, then, unless r is persistent, FREE.
 * The caller's thread, before it frees or deactivates r. */
void zm_mpi_hook_finish(MPI_Request r) __attribute__((visibility("hidden")));

/* Persistent request r is about to start: START to its hooks. */
void zm_mpi_hook_start(MPI_Request r) __attribute__((visibility("hidden")));

/* MPI_Request_free of r: FREE to its hooks and 0 when r's operation is
 * not pending (the caller frees r); when it is, r's hooks become zombies
 * and 1 is returned: the caller forgets r without freeing it, and the
 * library frees it once it is complete (zm_mpi_hook_sweep). */
int zm_mpi_hook_free(MPI_Request r, int pending) __attribute__((visibility("hidden")));

/* The operations of window w are complete at the origin: DONE and FREE to
 * its hooks.  The calling rank's thread. */
void zm_mpi_hook_win(MPI_Win w) __attribute__((visibility("hidden")));

/* ---- Entries of the Fortran bindings' fast paths (bind_entry in pt2pt.c) --
 * MPI_Send and MPI_Recv with the datatype and the communicator given by
 * their Fortran handles (indices, as MPI_Type_f2c and MPI_Comm_f2c take
 * them), setting *ierror to the result when ierror is not NULL.  The
 * library checks a predefined datatype's index where it would check the
 * datatype, so the conversion costs the binding nothing: the generated
 * mpi_f08 glue of MPI_Send and MPI_Recv calls these once it has the C
 * buffer.  Every other handle is converted with MPI_*_f2c and checked as
 * from C; errors name MPI_Send or MPI_Recv as the C calls do.  The
 * calling rank's thread (ULT context), as the C calls. */
ZMPI_EXPORT int zmpi_bind_send(const void *buf, int count, MPI_Fint datatype, int dest, int tag,
                               MPI_Fint comm, MPI_Fint *ierror);
ZMPI_EXPORT int zmpi_bind_recv(void *buf, int count, MPI_Fint datatype, int source, int tag,
                               MPI_Fint comm, MPI_Status *status, MPI_Fint *ierror);
/* MPI_Isend and MPI_Irecv likewise, storing the new request's Fortran
 * index (MPI_Request_c2f's; 0 if the call failed) in *request, which the
 * caller owns. */
ZMPI_EXPORT int zmpi_bind_isend(const void *buf, int count, MPI_Fint datatype, int dest, int tag,
                                MPI_Fint comm, MPI_Fint *request, MPI_Fint *ierror);
ZMPI_EXPORT int zmpi_bind_irecv(void *buf, int count, MPI_Fint datatype, int source, int tag,
                                MPI_Fint comm, MPI_Fint *request, MPI_Fint *ierror);

/* MPI_Wait on the request whose Fortran index *request holds, writing
 * back its new index (0 once it is freed); status is a C status or
 * MPI_STATUS_IGNORE and keeps its MPI_ERROR.  The caller owns request,
 * status and ierror and has no array-section copy kept for a request. */
ZMPI_EXPORT int zmpi_bind_wait(MPI_Fint *request, MPI_Status *status, MPI_Fint *ierror);
/* MPI_Waitall likewise on count Fortran requests; statuses is an array of
 * count C statuses or MPI_STATUSES_IGNORE. */
ZMPI_EXPORT int zmpi_bind_waitall(int count, MPI_Fint *requests, MPI_Status *statuses,
                                  MPI_Fint *ierror);

/* MPI_Allreduce with Fortran handles, as zmpi_bind_send: a predefined
 * datatype and operation and MPI_COMM_WORLD or MPI_COMM_SELF are taken
 * from tables, anything else converted by MPI_*_f2c and checked by
 * MPI_Allreduce, which reports it.  The caller owns the buffers and
 * ierror. */
ZMPI_EXPORT int zmpi_bind_allreduce(const void *sendbuf, void *recvbuf, int count,
                                    MPI_Fint datatype, MPI_Fint op, MPI_Fint comm,
                                    MPI_Fint *ierror);

/* The predefined datatypes and operations by Fortran index (handle.c
 * gives them 1, 2, ... in ZMPI_DT_LIST's and ZMPI_OP_LIST's order; index
 * 0, the null handle, is no entry): the entries' conversions
 * (bind_hooks.c).  The zm_mpi_bind_*_ok tests say whether an index is one
 * of them (MPI_COMM_WORLD's and MPI_COMM_SELF's C handles are their
 * indices, mpi.h). */
#define ZM_MPI_BIND_ONE(h) +1
enum { ZM_MPI_BIND_NTYPES = 1 ZMPI_DT_LIST(ZM_MPI_BIND_ONE),
       ZM_MPI_BIND_NOPS = 1 ZMPI_OP_LIST(ZM_MPI_BIND_ONE) };
#undef ZM_MPI_BIND_ONE
extern const MPI_Datatype zm_mpi_bind_types[ZM_MPI_BIND_NTYPES]
    __attribute__((visibility("hidden")));
extern const MPI_Op zm_mpi_bind_ops[ZM_MPI_BIND_NOPS] __attribute__((visibility("hidden")));

static inline int zm_mpi_bind_type_ok(MPI_Fint dt)
{
    return (unsigned)dt - 1u < (unsigned)ZM_MPI_BIND_NTYPES - 1u;
}

static inline int zm_mpi_bind_op_ok(MPI_Fint op)
{
    return (unsigned)op - 1u < (unsigned)ZM_MPI_BIND_NOPS - 1u;
}

static inline int zm_mpi_bind_comm_ok(MPI_Fint comm)
{
    return (unsigned)comm - 1u < 2u;
}

/* MPI_Request_c2f and MPI_Request_f2c inside the library (handle.c),
 * without the exported calls' indirection.  Any thread. */
MPI_Fint zm_mpi_request_c2f(MPI_Request r) __attribute__((visibility("hidden")));
MPI_Request zm_mpi_request_f2c(MPI_Fint f) __attribute__((visibility("hidden")));

#endif
