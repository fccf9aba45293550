/*
 * large.h: what the int and the large-count ("_c") forms of the MPI calls
 * share (MPI 4.1 section 2.5.8, "Large counts").
 *
 * Every call that has a _c twin is split in three: an internal function
 * zm_mpi_<object>_<verb> that takes MPI_Count counts (and does all the
 * work and every check), the int entry point (hand-written, in the file of
 * the internal, so the compiler may inline the internal into the int fast
 * path), and the _c entry point, generated into large_gen.c by
 * scripts/gen_large_count.py.  Each internal takes the name of the call
 * (`fn`) first, for error messages, then the call's arguments in order.
 *
 * Arrays of counts and displacements.  An int form passes int arrays, its
 * _c form MPI_Count / MPI_Aint arrays (both 64 bits here).  The internals
 * read either through zm_mpi_at with a width flag that travels next to the
 * pointer: one well-predicted branch per element.  Converting one width
 * into the other instead would cost a temporary array (a malloc for large
 * communicators) on one of the two paths, and a lifetime to manage for the
 * non-blocking and persistent forms that keep reading the arrays.
 *
 * Output values.  An int form whose result does not fit an int returns
 * MPI_UNDEFINED where the standard says so (MPI_Get_count,
 * MPI_Get_elements, MPI_Type_size) and raises MPI_ERR_VALUE_TOO_LARGE
 * otherwise (MPI_Pack_size, a position past 2^31 - 1, a detached buffer
 * size, a datatype envelope with large counts).
 */
#ifndef ZM_MPI_LARGE_H
#define ZM_MPI_LARGE_H

#include "mpi_impl.h"
#include "session.h"

/* Width of the count and displacement arrays a call passes. */
enum { ZM_W32 = 0, ZM_W64 = 1 };

/* Element i of array a of width `wide` (ZM_W32: int, ZM_W64: int64_t). */
static inline int64_t zm_mpi_at(const void *a, int wide, size_t i)
{
    return wide ? ((const int64_t *)a)[i] : (int64_t)((const int *)a)[i];
}

/* Nonzero if v fits an int (the int form of an output value). */
static inline int zm_mpi_fits_int(int64_t v)
{
    return v >= INT32_MIN && v <= INT32_MAX;
}

/* ---- Argument checks (large.c) ------------------------------------------ */

/* Slow path of zm_mpi_check_cbuf: raises the error and returns it. */
int zm_mpi_check_cbuf_fail(struct zmpi_comm *c, const char *fn, const void *buf,
                           MPI_Count count, MPI_Datatype dt);

/* zm_mpi_check_buf for an MPI_Count count: also refuses a count whose
 * bytes (count times the type's size) or span (count times its extent)
 * do not fit a signed 64-bit byte count.  Returns MPI_SUCCESS or the
 * error raised on c (NULL: MPI_COMM_SELF's handler).  ULT context. */
static inline int zm_mpi_check_cbuf(struct zmpi_comm *c, const char *fn, const void *buf,
                                    MPI_Count count, MPI_Datatype dt)
{
    /* The unsigned compare with the type's cmax also refuses a negative
     * count. */
    if (ZM_LIKELY(zm_dt_usable(dt) && (uint64_t)count <= (uint64_t)dt->cmax &&
                  (buf || count == 0 || dt->size == 0 || dt->d)))
        return MPI_SUCCESS;
    return zm_mpi_check_cbuf_fail(c, fn, buf, count, dt);
}

/* A counts array with its displacements, one entry per rank of c (its
 * remote group for an intercommunicator), of width `wide`: both given, no
 * count negative.  *any says whether some count is positive.  Raises the
 * error on c otherwise.  ULT context, the calling rank. */
int zm_mpi_check_ccounts(struct zmpi_comm *c, const char *fn, const char *what,
                         const void *counts, const void *displs, int wide, int *any);

/* Raise MPI_ERR_VALUE_TOO_LARGE from int form `fn` on c (NULL:
 * MPI_COMM_SELF's handler): output `what` would be v, which an int cannot
 * hold; the message points at the _c twin.  Returns the code.  ULT
 * context. */
int zm_mpi_too_large(struct zmpi_comm *c, const char *fn, const char *what, int64_t v);

/* If count does not fit an int, replace (count, dt) by one element of a
 * new contiguous type of count elements of dt (*tmp, committed; the
 * caller releases it with zm_dt_release once the call is made, operations
 * that keep it hold their own reference).  For the internal interfaces
 * that still take int counts (intercommunicator collectives).  Returns
 * MPI_SUCCESS or the raised MPI_ERR_NO_MEM.  ULT context. */
int zm_mpi_count_to_type(struct zmpi_comm *c, const char *fn, MPI_Count *count,
                         MPI_Datatype *dt, MPI_Datatype *tmp);

/* ---- Point-to-point (pt2pt.c, pt2pt_more.c, large.c) ------------------- */

int zm_mpi_send(const char *fn, const void *buf, MPI_Count count, MPI_Datatype dt, int dest,
                int tag, MPI_Comm comm, int mode);
int zm_mpi_isend(const char *fn, const void *buf, MPI_Count count, MPI_Datatype dt, int dest,
                 int tag, MPI_Comm comm, MPI_Request *request, int mode);
int zm_mpi_recv(const char *fn, void *buf, MPI_Count count, MPI_Datatype dt, int source,
                int tag, MPI_Comm comm, MPI_Status *status);
int zm_mpi_irecv(const char *fn, void *buf, MPI_Count count, MPI_Datatype dt, int source,
                 int tag, MPI_Comm comm, MPI_Request *request);
int zm_mpi_sendrecv(const char *fn, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                    int dest, int stag, void *rbuf, MPI_Count rcount, MPI_Datatype rdt,
                    int source, int rtag, MPI_Comm comm, MPI_Status *status);
int zm_mpi_sendrecv_replace(const char *fn, void *buf, MPI_Count count, MPI_Datatype dt,
                            int dest, int stag, int source, int rtag, MPI_Comm comm,
                            MPI_Status *status);
int zm_mpi_mrecv(const char *fn, void *buf, MPI_Count count, MPI_Datatype dt,
                 MPI_Message *message, MPI_Status *status);
int zm_mpi_imrecv(const char *fn, void *buf, MPI_Count count, MPI_Datatype dt,
                  MPI_Message *message, MPI_Request *request);
int zm_mpi_isendrecv(const char *fn, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                     int dest, int stag, void *rbuf, MPI_Count rcount, MPI_Datatype rdt,
                     int source, int rtag, MPI_Comm comm, MPI_Request *request);
int zm_mpi_isendrecv_replace(const char *fn, void *buf, MPI_Count count, MPI_Datatype dt,
                             int dest, int stag, int source, int rtag, MPI_Comm comm,
                             MPI_Request *request);
int zm_mpi_status_set_elements(const char *fn, MPI_Status *status, MPI_Datatype dt,
                               MPI_Count count);

/* A persistent send (kind ZM_REQ_SEND, send mode `mode`) or receive
 * (ZM_REQ_RECV) request: MPI_Send_init ... MPI_Recv_init.  MPI_Start runs
 * it (request.c). */
int zm_mpi_p2p_init(const char *fn, const void *buf, MPI_Count count, MPI_Datatype dt,
                    int peer, int tag, MPI_Comm comm, MPI_Request *request, int kind, int mode);

/* MPI_Get_count (elements = 0) and MPI_Get_elements (1) in full width:
 * MPI_UNDEFINED when the bytes are not a whole number of them. */
int zm_mpi_status_count(const char *fn, const MPI_Status *status, MPI_Datatype dt,
                        MPI_Count *count, int elements);

/* ---- Buffered mode (pt2pt.c, session.c) --------------------------------- */

int zm_mpi_buffer_attach(const char *fn, void *buffer, MPI_Count size);
int zm_mpi_buffer_detach(const char *fn, void *buffer_addr, MPI_Count *size);
int zm_mpi_comm_attach_buffer(const char *fn, MPI_Comm comm, void *buffer, MPI_Count size);
int zm_mpi_comm_detach_buffer(const char *fn, MPI_Comm comm, void *buffer_addr,
                              MPI_Count *size);
int zm_mpi_session_attach_buffer(const char *fn, MPI_Session session, void *buffer,
                                 MPI_Count size);
int zm_mpi_session_detach_buffer(const char *fn, MPI_Session session, void *buffer_addr,
                                 MPI_Count *size);

/* Attach (buffer, size) under bsend key `key`; detach, flush and start a
 * non-blocking flush (a request on `comm`) of the buffer of `key`.  Each
 * returns MPI_SUCCESS or an error class with what is wrong written to
 * why[len] (`owner` says whose buffer: "" for the process's, " to the
 * communicator", " to the session"), for the caller to raise through the right handler (a
 * communicator's or a session's).  Detach and flush wait for the
 * buffer's messages to be received; `fn` names the call in a deadlock
 * report.  ULT context, the calling rank (pt2pt.c). */
int zm_mpi_bsend_attach(uint32_t key, const char *owner, void *buffer, MPI_Count size,
                        char *why, size_t len);
int zm_mpi_bsend_detach(const char *fn, uint32_t key, const char *owner, void *buffer_addr,
                        MPI_Count *size, char *why, size_t len);
int zm_mpi_bsend_flush(const char *fn, uint32_t key, const char *owner, char *why, size_t len);
int zm_mpi_bsend_iflush(uint32_t key, const char *owner, MPI_Comm comm, MPI_Request *request,
                        char *why, size_t len);

/* Pick the buffer a buffered send on c uses (MPI 4.1 section 3.6): c's
 * own, else that of the session c was made from (session.c), else the
 * process's.  Call zm_p2p_bsend_unselect after the send.  ULT context,
 * the rank owning c. */
void zm_mpi_bsend_select(struct zmpi_comm *c);

/* The bsend key of the buffer attached to the session communicator c was
 * made from, or ZM_BSEND_PROCESS if c comes from no session or its
 * session has no buffer (session.c).  ULT context, the rank owning c. */
uint32_t zm_mpi_session_bsend_key(const struct zmpi_comm *c);

/* ---- Datatypes (type.c, type_query.c, type_pack.c) ---------------------- */

/* Each does what its MPI call does (MPI 4.1 chapter 5), raising errors on
 * MPI_COMM_SELF's handler (the pack calls: comm's) as `fn`.  The
 * constructors take arrays of width `wide` (ZM_W32 from the int calls,
 * ZM_W64 from the _c calls, which also record their arguments as large
 * counts in the envelope); a new type belongs to the caller.  Any rank,
 * ULT context. */

int zm_mpi_type_contiguous(const char *fn, MPI_Count count, MPI_Datatype old,
                           MPI_Datatype *newtype, int wide);
int zm_mpi_type_vector(const char *fn, MPI_Count count, MPI_Count bl, MPI_Count stride,
                       MPI_Datatype old, MPI_Datatype *newtype, int wide);
int zm_mpi_type_hvector(const char *fn, MPI_Count count, MPI_Count bl, MPI_Count stride,
                        MPI_Datatype old, MPI_Datatype *newtype, int wide);
/* The indexed family: block lengths of width `wide`; displacements of
 * width `wide` for the element forms, always 64-bit (MPI_Aint or
 * MPI_Count) for the byte forms. */
int zm_mpi_type_indexed(const char *fn, MPI_Count count, const void *bl, const void *displs,
                        MPI_Datatype old, MPI_Datatype *newtype, int wide);
int zm_mpi_type_hindexed(const char *fn, MPI_Count count, const void *bl, const void *displs,
                         MPI_Datatype old, MPI_Datatype *newtype, int wide);
int zm_mpi_type_indexed_block(const char *fn, MPI_Count count, MPI_Count bl,
                              const void *displs, MPI_Datatype old, MPI_Datatype *newtype,
                              int wide);
int zm_mpi_type_hindexed_block(const char *fn, MPI_Count count, MPI_Count bl,
                               const void *displs, MPI_Datatype old, MPI_Datatype *newtype,
                               int wide);
int zm_mpi_type_struct(const char *fn, MPI_Count count, const void *bl, const void *displs,
                       const MPI_Datatype *types, MPI_Datatype *newtype, int wide);
int zm_mpi_type_subarray(const char *fn, int ndims, const void *sizes, const void *subsizes,
                         const void *starts, int order, MPI_Datatype old,
                         MPI_Datatype *newtype, int wide);
int zm_mpi_type_darray(const char *fn, int size, int rank, int ndims, const void *gsizes,
                       const int *distribs, const int *dargs, const int *psizes, int order,
                       MPI_Datatype old, MPI_Datatype *newtype, int wide);
int zm_mpi_type_resized(const char *fn, MPI_Datatype old, MPI_Count lb, MPI_Count extent,
                        MPI_Datatype *newtype, int wide);

int zm_mpi_type_size(const char *fn, MPI_Datatype dt, MPI_Count *size);
int zm_mpi_type_get_extent(const char *fn, MPI_Datatype dt, MPI_Count *lb, MPI_Count *extent);
int zm_mpi_type_get_true_extent(const char *fn, MPI_Datatype dt, MPI_Count *lb,
                                MPI_Count *extent);
int zm_mpi_type_get_envelope(const char *fn, MPI_Datatype dt, MPI_Count *ni, MPI_Count *na,
                             MPI_Count *nc, MPI_Count *nd, int *combiner);
int zm_mpi_type_get_contents(const char *fn, MPI_Datatype dt, MPI_Count max_integers,
                             MPI_Count max_addresses, MPI_Count max_large_counts,
                             MPI_Count max_datatypes, int ints[], MPI_Aint aints[],
                             MPI_Count counts[], MPI_Datatype types[]);
int zm_mpi_pack(const char *fn, const void *inbuf, MPI_Count incount, MPI_Datatype dt,
                void *outbuf, MPI_Count outsize, MPI_Count *position, MPI_Comm comm);
int zm_mpi_unpack(const char *fn, const void *inbuf, MPI_Count insize, MPI_Count *position,
                  void *outbuf, MPI_Count outcount, MPI_Datatype dt, MPI_Comm comm);
int zm_mpi_pack_size(const char *fn, MPI_Count incount, MPI_Datatype dt, MPI_Comm comm,
                     MPI_Count *size);
int zm_mpi_pack_external(const char *fn, const char *datarep, const void *inbuf,
                         MPI_Count incount, MPI_Datatype dt, void *outbuf, MPI_Count outsize,
                         MPI_Count *position);
int zm_mpi_unpack_external(const char *fn, const char *datarep, const void *inbuf,
                           MPI_Count insize, MPI_Count *position, void *outbuf,
                           MPI_Count outcount, MPI_Datatype dt);
int zm_mpi_pack_external_size(const char *fn, const char *datarep, MPI_Count incount,
                              MPI_Datatype dt, MPI_Count *size);

/* ---- Collectives (coll_api.c, coll_persist.c) ---------------------------- */

/* How a collective call is made: blocking, non-blocking (I...), or
 * persistent (..._init). */
enum { ZM_FORM_BLOCKING, ZM_FORM_NONBLOCKING, ZM_FORM_PERSISTENT };

/* A collective call's arguments as the user passed them, in full width
 * (the fields its kind does not take are ignored; reductions use rcount
 * and rdt).  The arrays are of width `wide`. */
typedef struct zm_mpi_ccall {
    int kind, root;                    /* ZM_COLL_*; rooted collectives */
    int wide;                          /* ZM_W64: the arrays are MPI_Count / MPI_Aint */
    const void *sbuf;                  /* send side */
    MPI_Count scount;
    const void *scounts, *sdispls;
    MPI_Datatype sdt;
    const MPI_Datatype *sdts;
    void *rbuf;                        /* receive side */
    MPI_Count rcount;
    const void *rcounts, *rdispls;
    MPI_Datatype rdt;
    const MPI_Datatype *rdts;
    MPI_Op op;                         /* reductions */
} zm_mpi_ccall_t;

/* Check and run call k on communicator `comm` in `form` (info and request
 * for the forms that take them).  Returns an MPI error code.  ULT
 * context, the calling rank (coll_api.c). */
int zm_mpi_coll(const char *fn, MPI_Comm comm, const zm_mpi_ccall_t *k, int form,
                MPI_Info info, MPI_Request *request);
/* The int forms of the collectives call the builders of coll_build.h
 * directly (one switch less on their fast paths); the _c forms go through
 * zm_mpi_coll, which reaches the same builders. */

/* MPI_Bcast's direct path in full width (coll_api.c). */
int zm_mpi_bcast(const char *fn, void *buf, MPI_Count count, MPI_Datatype dt, int root,
                 MPI_Comm comm);

/* Check call k (as the blocking call of its kind does) and fill `a`.
 * Intracommunicators only.  Returns an MPI error code.  ULT context, the
 * rank owning c (coll_build.c). */
int zm_mpi_coll_cbuild(struct zmpi_comm *c, const char *fn, const zm_mpi_ccall_t *k,
                       zm_coll_args_t *a);

/* Run call k on intercommunicator c (inter_coll.c's schedules, which take
 * int counts: large_coll.c narrows them).  request: ZM_INTER_BLOCKING for
 * the blocking form.  Returns an MPI error code.  ULT context, the rank
 * owning c. */
int zm_mpi_coll_inter(struct zmpi_comm *c, const char *fn, MPI_Comm h, const zm_mpi_ccall_t *k,
                      MPI_Request *request);

/* Make the persistent request of call k (coll_persist.c). */
int zm_mpi_coll_pinit(const char *fn, MPI_Comm comm, MPI_Info info, const zm_mpi_ccall_t *k,
                      MPI_Request *request);

/* MPI_Op_create_c (user_fn_c, whose length is an MPI_Count) and
 * MPI_Op_create (user_fn): a user operation of the one given, the other
 * NULL (coll_api.c). */
int zm_mpi_op_create(const char *fn, MPI_User_function_c *user_fn_c, int commute, MPI_Op *op,
                     MPI_User_function *user_fn);

/* MPI_Reduce_local in full width (coll_api.c).  ULT context. */
int zm_mpi_reduce_local(const char *fn, const void *inbuf, void *inoutbuf, MPI_Count count,
                        MPI_Datatype dt, MPI_Op op);

/* ---- Neighbourhood collectives (neighbor.c) ----------------------------- */

/* The five neighbourhood collectives in form ZM_FORM_* (info and request
 * for the forms that take them), counts in full width and arrays of width
 * `wide`.  Returns an MPI error code.  ULT context, the calling rank. */

int zm_mpi_nb_allgather(const char *fn, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                        void *rbuf, MPI_Count rcount, MPI_Datatype rdt, MPI_Comm comm,
                        int form, MPI_Info info, MPI_Request *request);
int zm_mpi_nb_allgatherv(const char *fn, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                         void *rbuf, const void *rcounts, const void *displs, MPI_Datatype rdt,
                         MPI_Comm comm, int form, MPI_Info info, MPI_Request *request,
                         int wide);
int zm_mpi_nb_alltoall(const char *fn, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                       void *rbuf, MPI_Count rcount, MPI_Datatype rdt, MPI_Comm comm, int form,
                       MPI_Info info, MPI_Request *request);
int zm_mpi_nb_alltoallv(const char *fn, const void *sbuf, const void *scounts,
                        const void *sdispls, MPI_Datatype sdt, void *rbuf, const void *rcounts,
                        const void *rdispls, MPI_Datatype rdt, MPI_Comm comm, int form,
                        MPI_Info info, MPI_Request *request, int wide);
/* Alltoallw's byte displacements are MPI_Aint in both forms. */
int zm_mpi_nb_alltoallw(const char *fn, const void *sbuf, const void *scounts,
                        const MPI_Aint *sdispls, const MPI_Datatype *sdts, void *rbuf,
                        const void *rcounts, const MPI_Aint *rdispls, const MPI_Datatype *rdts,
                        MPI_Comm comm, int form, MPI_Info info, MPI_Request *request,
                        int wide);

/* ---- One-sided communication (rma_api.c) ------------------------------- */

/* The request argument of the blocking forms (Put, Get, Accumulate,
 * Get_accumulate); the request forms pass the user's request pointer. */
extern const char zm_mpi_rma_blocking_mark;
#define ZM_RMA_BLOCKING ((MPI_Request *)(uintptr_t)&zm_mpi_rma_blocking_mark)

/* Put (get = 0) or Get (1), and the accumulate family (rbuf NULL and rdt
 * MPI_DATATYPE_NULL: no result), in full width; done when they return.
 * Errors are raised on the window's handler as `fn`.  ULT context. */
int zm_mpi_put_get(const char *fn, int get, void *obuf, MPI_Count ocount, MPI_Datatype odt,
                   int t, MPI_Aint disp, MPI_Count tcount, MPI_Datatype tdt, MPI_Win win,
                   MPI_Request *request);
int zm_mpi_accumulate(const char *fn, const void *obuf, MPI_Count ocount, MPI_Datatype odt,
                      void *rbuf, MPI_Count rcount, MPI_Datatype rdt, int t, MPI_Aint disp,
                      MPI_Count tcount, MPI_Datatype tdt, MPI_Op op, MPI_Win win,
                      MPI_Request *request);
/* The _c forms of the window constructors and MPI_Win_shared_query, whose
 * displacement unit is an MPI_Aint.  Windows keep it in an int (win.c),
 * so these check that it fits and call the int twin, whose checks then
 * name the int call. */
int zm_mpi_win_create(const char *fn, void *base, MPI_Aint size, MPI_Aint disp_unit,
                      MPI_Info info, MPI_Comm comm, MPI_Win *win);
int zm_mpi_win_allocate(const char *fn, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                        MPI_Comm comm, void *baseptr, MPI_Win *win);
int zm_mpi_win_allocate_shared(const char *fn, MPI_Aint size, MPI_Aint disp_unit,
                               MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win);
int zm_mpi_win_shared_query(const char *fn, MPI_Win win, int rank, MPI_Aint *size,
                            MPI_Aint *disp_unit, void *baseptr);

#endif /* ZM_MPI_LARGE_H */
