/*
 * mpi_impl.h: internal header of the API layer (the top of the library).
 *
 * Handles are pointers to the objects below.  MPI_COMM_WORLD and
 * MPI_COMM_SELF are the constants 1 and 2, resolved to the calling rank's
 * own communicator objects, since each virtual rank has its own rank number
 * in them.  Every API function is defined as PMPI_x with MPI_x as a weak
 * alias, so profiling tools can interpose.
 */
#ifndef ZM_MPI_IMPL_H
#define ZM_MPI_IMPL_H

#include <mpi.h>

#include "coll/coll.h"

/* Largest tag (the value of the MPI_TAG_UB attribute). */
#define ZM_TAG_UB 2147483647

#define ZM_COMM_MAGIC 0x7a6d636du
#define ZM_GROUP_MAGIC 0x7a6d6772u
#define ZM_EH_MAGIC 0x7a6d6568u

/* Make MPI_name a weak alias of PMPI_name. */
#define ZM_WEAK(name) _Pragma(ZM_STR(weak MPI_##name = PMPI_##name))
#define ZM_STR(x) #x

/* A process group: world ranks in group order. */
struct zmpi_group {
    uint32_t magic;        /* ZM_GROUP_MAGIC while valid */
    int size;              /* members */
    _Atomic int refs;      /* handles and communicators using it */
    int predefined;        /* never freed */
    int world[];           /* world rank of each member */
};

/* An error handler. */
struct zmpi_errhandler {
    uint32_t magic;                     /* ZM_EH_MAGIC while valid */
    int kind;                           /* ZM_EH_* */
    MPI_Comm_errhandler_function *fn;   /* user function (ZM_EH_USER) */
    _Atomic int refs;                   /* handles and communicators */
};

/* Kinds from ZM_EH_USER up are user handlers (freed by zm_mpi_eh_unref),
 * one kind per object kind they are made for: communicators
 * (MPI_Comm_create_errhandler), windows, files and sessions. */
enum { ZM_EH_FATAL, ZM_EH_RETURN, ZM_EH_ABORT, ZM_EH_USER, ZM_EH_USER_WIN, ZM_EH_USER_FILE,
       ZM_EH_USER_SESSION };

/* A communicator as one rank sees it (each rank has its own object). */
struct zmpi_comm {
    uint32_t magic;                  /* ZM_COMM_MAGIC while valid */
    zm_p2p_comm_t p;                 /* context, rank, size, rank map */
    struct zmpi_group *group;        /* members (owns p.world's storage) */
    struct zmpi_errhandler *eh;      /* current error handler */
    int predefined;                  /* WORLD or SELF: never freed */
    char name[MPI_MAX_OBJECT_NAME];  /* MPI_Comm_set_name */
    struct zm_coll_shm *coll;        /* collectives' shared block, attached lazily */
    struct zm_mpi_topo *topo;        /* process topology or NULL (topo.c) */
    MPI_Info info;                   /* hints set by Comm_set_info etc., or NULL (info.c) */
    /* Intercommunicators (intercomm.c): p.world/p.size describe the remote
     * group, so point-to-point addresses remote ranks unchanged; `group`
     * stays the local group. */
    int inter;                       /* nonzero for an intercommunicator */
    struct zmpi_group *rgroup;       /* remote group (intercommunicators) */
    struct zmpi_comm *local;         /* local intracommunicator for collectives, or NULL */
    /* In a job whose ranks have regions (checkpoint.c), an object made on
     * its rank's own thread lives in the rank's heap, on the rank's list
     * of communicators (comm.c), so that it moves with the rank to another
     * process (docs/migrate.md).  `pin`: the rank may not move while the
     * communicator exists (windows and files hold one, and what is
     * derived from them). */
    struct zmpi_comm *rnext, *rprev;
    int pin;
};

#define ZM_INFO_MAGIC 0x7a6d696eu
#define ZM_WIN_MAGIC 0x7a6d7769u

/* An info object: key/value strings (info.c). */
struct zmpi_info_entry {
    struct zmpi_info_entry *next;
    char *key, *value;
};

struct zmpi_info {
    uint32_t magic;                   /* ZM_INFO_MAGIC while valid */
    struct zmpi_info_entry *head;     /* entries in the order their keys were first set */
};

/* One rank's window object (win.c, rma_api.c).  The memory and the
 * synchronization state every rank reaches are in the shared `rma`
 * (src/rma/rma.h); the epoch bookkeeping here is the calling rank's own. */
struct zmpi_win {
    uint32_t magic;                   /* ZM_WIN_MAGIC while valid */
    struct zmpi_comm *comm;           /* private duplicate of the communicator */
    struct zm_rma_win *rma;           /* state shared by the window's ranks */
    struct zmpi_errhandler *eh;       /* error handler (MPI_ERRORS_ARE_FATAL at creation) */
    char name[MPI_MAX_OBJECT_NAME];   /* MPI_Win_set_name */
    int rank;                         /* caller's rank in comm */
    int size;                         /* ranks of comm */
    void *own_mem;                    /* Win_allocate: this rank's segment, freed by Win_free */
    MPI_Info info;                    /* hints (Win_set_info), owned; never NULL */
    /* Epochs of this rank. */
    int fence_open;                   /* a fence opened access and exposure epochs */
    int locked_all;                   /* inside Win_lock_all */
    int nlocks;                       /* targets locked with Win_lock */
    unsigned char *lock_type;         /* per target: ZM_WIN_LOCK_* bits, 0 if not locked */
    int *start_ranks;                 /* Win_start group as window ranks, or NULL */
    int nstart;                       /* its size */
    int started;                      /* an access epoch of Win_start is open */
    int posted;                       /* an exposure epoch of Win_post is open */
    int npost;                        /* size of the Win_post group */
    /* Attribute values: the standard hands out pointers to them. */
    void *attr_base;
    MPI_Aint attr_size;
    int attr_disp_unit;
    int attr_flavor;
    int attr_model;
};

/* Bits of zmpi_win.lock_type: how the rank locked the target, and
 * whether the target is in its open Win_start group. */
enum { ZM_WIN_LOCK_SHARED = 1, ZM_WIN_LOCK_EXCL = 2, ZM_WIN_LOCK_NOCHECK = 4,
       ZM_WIN_IN_START = 8 };

/* A lock of a rank's API state that several of its threads may take at
 * MPI_THREAD_MULTIPLE (threads.h). */
typedef struct zm_mpi_rlock {
    _Atomic(zm_ult_t *) owner;   /* zm_ult_self() of the holder, or NULL */
    int depth;                   /* holder's nesting */
} zm_mpi_rlock_t;

/* Per-rank state of the API layer. */
typedef struct zm_mpi_rank {
    int initialized;                 /* MPI_Init done */
    int finalized;                   /* MPI_Finalize done */
    int thread_level;                /* level granted by Init_thread */
    int world_rank;                  /* this rank */
    struct zmpi_comm world;          /* this rank's MPI_COMM_WORLD */
    struct zmpi_comm self;           /* this rank's MPI_COMM_SELF */
    int last_class;                  /* class of the last error raised */
    char last_msg[256];              /* its message, for Error_string */
    struct zm_mpi_attr_state *attr;  /* keyvals and cached attributes (attr.c) */
    struct zm_mpi_type_names *type_names; /* names this rank gave predefined types (type_query.c) */
    int sched_capture;               /* sched.c: the next schedule started is kept
                                      * unstarted, as a persistent request */
    int thread_max;                  /* highest thread level granted, by Init_thread
                                      * or a session (threads.c) */
    zm_mpi_rlock_t attr_lock;        /* attr.c's state at MPI_THREAD_MULTIPLE */
    struct zm_mpi_omp *_Atomic omp;  /* OpenMP in the rank, made on first use
                                      * (threads_omp.c) */
    _Atomic long own_scheds;         /* its MPI_Isendrecv and generalized requests
                                      * (zm_mpi_sched_own) */
} zm_mpi_rank_t;

/* ---- Checkpoint/restart (checkpoint.c) ----
 * zm_mpi_ckpt_setup: with ZMPI_CHECKPOINT=1 or ZMPI_RESTART set, give
 * every rank its fixed-address region and place stacks there (cfg's
 * stack_at); 0, or -1 after printing why checkpoints cannot be taken.
 * zm_mpi_ckpt_restore: on a restart, bring every rank of the process back
 * from its file (after zm_ult_job_prepare and zm_mpi_setup); 0 or -1
 * after printing why.  zm_mpi_ckpt_job_begin/_end bracket
 * zm_ult_job_start (a restart runs the job with the first process's
 * stack-protector canary).  Main thread, at start.
 * zm_mpi_ckpt_clone loads rank `rank`'s program copy (in its region when
 * checkpoints are on); zm_mpi_ckpt_image returns the copy to close when
 * the rank's main returned (after a restart, not the one it loaded).  The
 * rank's ULT.  zmpi_heap_malloc/free: the rank heap or libc's. */
int zm_mpi_ckpt_setup(int argc, char **argv, int privatized, zm_ult_job_config_t *cfg);
int zm_mpi_ckpt_restore(void);
void zm_mpi_ckpt_job_begin(void);
void zm_mpi_ckpt_job_end(void);
void *zm_mpi_ckpt_clone(int rank, char *err, size_t errlen);
void *zm_mpi_ckpt_image(int rank, void *img);
void *zmpi_heap_malloc(size_t n);
void zmpi_heap_free(void *p);

/* Communicators made by the program and not freed, in this process's own
 * memory (a checkpoint needs none, and a rank moves to another process
 * only if there are none): those not in a rank's heap.  Any thread. */
int zm_mpi_comm_live(void);

/* The communicators in rank w's heap (its list, comm.c): how many, and in
 * *why (if not NULL) the reason one of them keeps the rank in its
 * process, or NULL.  zm_mpi_comm_drop_colls drops their collective state
 * (zm_coll_placement_drop) when ranks moved between processes.  Only
 * while rank w waits in ZMPI_Migrate or ZMPI_Checkpoint (or is w). */
int zm_mpi_comm_held(int w, const char **why);
void zm_mpi_comm_drop_colls(int w);

/* Free the cached neighbourhood schedules of the topologies of rank w's
 * communicators (zm_mpi_topo_forget), before a move or a checkpoint
 * looks for live requests.  Rank w's own thread. */
void zm_mpi_comm_forget_caches(int w);

/* After a restart brought rank w back: forget the collective state of
 * its communicators (pointers into a process that is gone); each
 * attaches again at its next collective.  Main thread, before the job
 * runs. */
void zm_mpi_comm_restored(int w);

/* Context ids (comm_ctx.c): zm_mpi_ctx_high is the first id above every one
 * this process has drawn; zm_mpi_ctx_floor makes every later draw of the
 * process lie above `floor` (a restart passes the highest of its
 * checkpoint's, the same in every process, so that new communicators
 * never take a restored one's id).  high: any thread; floor: main
 * thread, before the job runs. */
uint32_t zm_mpi_ctx_high(void);
void zm_mpi_ctx_floor(uint32_t floor);

/* Mark communicator c as keeping its rank in its process (a window's or a
 * file's); what is made from it inherits the mark.  The rank's thread. */
static inline void zm_mpi_comm_pin(struct zmpi_comm *c)
{
    c->pin = 1;
}

/* Set up the API layer for a job of `nranks` ranks.  Main thread. */
zm_status_t zm_mpi_setup(int nranks);

/* Fill c as a predefined communicator (MPI_COMM_WORLD, MPI_COMM_SELF, a
 * spawned group's world) of `size` ranks with world ranks `world` (NULL:
 * the identity), context ctx, the caller's rank and name; the object is
 * the rank's own and never freed.  The rank's thread (or the launcher,
 * before the job runs). */
void zm_mpi_comm_init_predef(struct zmpi_comm *c, uint32_t ctx, int rank, int size,
                             const int *world, const char *name);

/* The world ranks of intracommunicator c's members, as a new group the
 * caller owns (NULL if out of memory), even when c records a group.  ULT
 * context, a rank of c (me). */
struct zmpi_group *zm_mpi_comm_members(zm_mpi_rank_t *me, struct zmpi_comm *c);

/* The calling rank's API state, or NULL if the thread is not a rank. */
static inline zm_mpi_rank_t *zm_mpi_me(void)
{
    zm_ult_t *u = zm_ult_self();
    return u ? (zm_mpi_rank_t *)u->user : NULL;
}

/* Resolve a communicator handle for the calling rank; NULL if invalid. */
static inline struct zmpi_comm *zm_mpi_comm(zm_mpi_rank_t *me, MPI_Comm h)
{
    uintptr_t v = (uintptr_t)h;
    /* The predefined communicators belong to the world model: a rank that
     * only opened sessions has none (MPI 4.1 section 11.3). */
    if (v == 1 || v == 2)
        return ZM_LIKELY(me->initialized && !me->finalized) ? (v == 1 ? &me->world : &me->self)
                                                           : NULL;
    if (v == 0 || h->magic != ZM_COMM_MAGIC)
        return NULL;
    return h;
}

/* Raise error class `cls` from API call `fn` on communicator `comm` (NULL:
 * use MPI_COMM_SELF's handler, as MPI 4.1 says for errors tied to no
 * object).  Formats the message, records it for MPI_Error_string, then
 * calls the error handler: fatal handlers end the job, others return.  Returns the error code for the call to return.
 * ULT context. */
int zm_mpi_error(struct zmpi_comm *comm, int cls, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Map an internal status to an MPI error class. */
int zm_mpi_class_of(zm_status_t st);

/* Slow paths of the checks below: they raise the error and return it. */
zm_mpi_rank_t *zm_mpi_enter_fail(const char *fn);
int zm_mpi_check_comm_fail(MPI_Comm h, const char *fn);
int zm_mpi_check_buf_fail(struct zmpi_comm *c, const char *fn, const void *buf, int count,
                          MPI_Datatype dt);
int zm_mpi_check_rank_fail(struct zmpi_comm *c, const char *fn, const char *what, int r);
int zm_mpi_check_tag_fail(struct zmpi_comm *c, const char *fn, int tag, int allow_any);

/* Whether the rank whose state is `me` (NULL: the thread is no rank) may
 * call MPI now: between its MPI_Init and MPI_Finalize.  Any thread. */
static inline int zm_mpi_live(const zm_mpi_rank_t *me)
{
    return me && me->initialized && !me->finalized;
}

/* Check that the library is usable from this thread; returns the rank
 * state or ends the job with a message naming `fn`.  ULT context. */
static inline zm_mpi_rank_t *zm_mpi_enter(const char *fn)
{
    zm_mpi_rank_t *me = zm_mpi_me();
    if (ZM_LIKELY(zm_mpi_live(me)))
        return me;
    return zm_mpi_enter_fail(fn);
}

/* Argument checks shared by the API calls.  Each returns MPI_SUCCESS or
 * the code of the error it raised on the communicator. */
static inline int zm_mpi_check_comm(zm_mpi_rank_t *me, MPI_Comm h, const char *fn,
                                    struct zmpi_comm **out)
{
    struct zmpi_comm *c = zm_mpi_comm(me, h);
    *out = c;
    if (ZM_UNLIKELY(!c))
        return zm_mpi_check_comm_fail(h, fn);
    return MPI_SUCCESS;
}

/* Prelude of a call on a communicator: enter call `fn` as the calling rank
 * (declares `me`), resolve `comm` into `c` and return the raised error if
 * it is not a valid communicator (declares `rc`).  ULT context, the
 * calling rank. */
#define ENTER_COMM(fn, comm, c)                                    \
    zm_mpi_rank_t *me = zm_mpi_enter(fn);                          \
    struct zmpi_comm *c;                                           \
    int rc = zm_mpi_check_comm(me, comm, fn, &c);                  \
    if (rc != MPI_SUCCESS)                                         \
        return rc

static inline int zm_mpi_check_buf(struct zmpi_comm *c, const char *fn, const void *buf,
                                   int count, MPI_Datatype dt)
{
    /* A NULL buffer is MPI_BOTTOM, which derived types with absolute
     * addresses use. */
    if (ZM_LIKELY(count >= 0 && zm_dt_usable(dt) && (buf || count == 0 || dt->size == 0 || dt->d)))
        return MPI_SUCCESS;
    return zm_mpi_check_buf_fail(c, fn, buf, count, dt);
}

static inline int zm_mpi_check_rank(struct zmpi_comm *c, const char *fn, const char *what,
                                    int r, int allow_any)
{
    if (ZM_LIKELY((unsigned)r < (unsigned)c->p.size || r == MPI_PROC_NULL ||
                  (allow_any && r == MPI_ANY_SOURCE)))
        return MPI_SUCCESS;
    return zm_mpi_check_rank_fail(c, fn, what, r);
}

static inline int zm_mpi_check_tag(struct zmpi_comm *c, const char *fn, int tag, int allow_any)
{
    if (ZM_LIKELY(tag >= 0 || (allow_any && tag == MPI_ANY_TAG)))
        return MPI_SUCCESS;
    return zm_mpi_check_tag_fail(c, fn, tag, allow_any);
}

/* An operation valid for datatype dt of a reduction: user operations take
 * any type, predefined ones the types of MPI 4.1 section 6.9.2, derived
 * types by the one predefined type they are made of.  Raises MPI_ERR_OP on
 * c otherwise.  ULT context, the calling rank. */
int zm_mpi_check_op(struct zmpi_comm *c, const char *fn, MPI_Op op, MPI_Datatype dt);

/* A counts array with its displacements, one entry per rank of c (the
 * remote group of an intercommunicator): both given, no count negative.
 * Sets *any to whether some count is positive, which is when the buffer
 * must be valid.  Raises the error on c otherwise.  ULT context, the
 * calling rank. */
int zm_mpi_check_counts(struct zmpi_comm *c, const char *fn, const char *what, const int *counts,
                        const int *displs, int *any);

/* ---- Datatypes (type.c, type_query.c) ---- */

/* Check a datatype argument that a constructor or query reads (it need
 * not be committed).  Returns MPI_SUCCESS or the raised error. */
int zm_mpi_check_type(const char *fn, const char *what, MPI_Datatype dt);

/* Make request `req` hold datatype dt until the request is freed, so the
 * user may free the type while the operation runs. */
static inline void zm_mpi_req_hold(zm_req_t *req, MPI_Datatype dt)
{
    if (dt->d) {
        zm_dt_retain(dt);
        req->hold = dt;
    }
}

/* ---- Collectives -------------------------------------------------------- */

/* The communicator's shared collective block, attached on first use (NULL
 * if out of memory).  ULT context, the rank owning `c`. */
static inline struct zm_coll_shm *zm_mpi_coll_shm(struct zmpi_comm *c)
{
    if (ZM_LIKELY(c->coll != NULL))
        return c->coll;
    /* An intercommunicator's p describes the remote group: its collectives
     * go through inter_coll.c, never through a shared block. */
    if (c->inter)
        return NULL;
    c->coll = zm_coll_attach(&c->p);
    return c->coll;
}

/* A collective call's arguments as the user passed them, in full width,
 * and the builders that check them: zm_mpi_ccall_t and zm_mpi_coll_cbuild
 * (large.h, coll_build.c). */

/* Fill an MPI_Status from a completed request (handles STATUS_IGNORE).
 * Like every status setter it leaves MPI_ERROR alone: MPI 4.1 section
 * 3.2.5 lets only the multiple-completion calls write that field, and
 * only when they return MPI_ERR_IN_STATUS (request.c does that). */
void zm_mpi_status_set(MPI_Status *st, const zm_req_t *req);

/* Status of an operation on MPI_PROC_NULL. */
void zm_mpi_status_null(MPI_Status *st);

/* The MPI error class for a completed request, and raise it if needed. */
int zm_mpi_req_error(zm_req_t *req, const char *fn);

/* Take/release a reference to a group or error handler. */
void zm_mpi_group_ref(struct zmpi_group *g);
void zm_mpi_group_unref(struct zmpi_group *g);
void zm_mpi_eh_ref(struct zmpi_errhandler *eh);
void zm_mpi_eh_unref(struct zmpi_errhandler *eh);

/* Allocate a group of n members (refs = 1), in the calling rank's heap in
 * a job whose ranks have regions (zm_core_obj_alloc).  NULL if out of
 * memory. */
struct zmpi_group *zm_mpi_group_new(int n);

/* Make g (from zm_mpi_group_new) a group of the process, never freed: a
 * copy in the process's memory when g is in the calling rank's heap (a
 * job whose ranks have regions: the rank may move away, the group must
 * stay); g itself otherwise.  Returns the group, or NULL if out of memory
 * (g is gone then).  The calling rank's thread. */
struct zmpi_group *zm_mpi_group_share(struct zmpi_group *g);

/* ---- Handles ---- */

/* Mark an object's handle dead before the object is freed.  The store is
 * volatile: the compiler drops a plain store to memory freed right after,
 * and a stale handle would then still pass its magic check. */
static inline void zm_mpi_magic_clear(uint32_t *magic)
{
    *(volatile uint32_t *)magic = 0;
}

/* Forget the Fortran index of handle h, if it has one, so MPI_*_f2c of a
 * freed object gives the null handle (handle.c).  Costs one load until some
 * handle has been converted.  Any thread; call before freeing the object. */
void zm_mpi_handle_forget(const void *h);

/* Whether Fortran indices of communicators, groups, derived datatypes,
 * error handlers or info objects are mapped in this process (MPI_*_c2f,
 * the Fortran bindings): the index tables are the process's, so a rank
 * holding such an index must not move to another process.  Indices of
 * datatypes stay mapped after MPI_Type_free.  Any thread (handle.c). */
int zm_mpi_handles_mapped(void);

/* Nonzero while Fortran indices of requests are mapped in this process
 * (request_heap.c: a rank holding persistent requests in its heap then
 * stays).  Any thread (a snapshot). */
int zm_mpi_request_handles_mapped(void);

/* ---- Persistent point-to-point requests in the rank's heap (request_heap.c) */

/* A request for MPI_*send_init / MPI_Recv_init: in a job whose ranks have
 * fixed-address regions, on a rank's own thread, a zeroed request in that
 * rank's heap (not pooled) on the rank's list; otherwise one of the pool
 * (zm_p2p_req_alloc).  NULL if out of memory.  The caller's rank owns it
 * until zm_mpi_preq_free. */
zm_req_t *zm_mpi_preq_new(void);

/* Nonzero if r is a request of zm_mpi_preq_new from a rank's heap. */
int zm_mpi_preq_in_heap(const zm_req_t *r);

/* MPI_Request_free of such a request: freed now, or once complete if it is
 * active (its completer may still write it).  The owning rank's thread or
 * a thread it started. */
void zm_mpi_preq_free(zm_req_t *r);

/* Why rank w may not move to another process or be checkpointed because
 * of the persistent requests in its heap, or NULL: one is active (in its
 * process's queues), or hooks or Fortran indices of the process refer to
 * them.  Frees the ones freed while active that have completed since.
 * Rank w's thread. */
const char *zm_mpi_preq_why(int w);

/* ---- Info objects (info.c) ---- */

/* Check an info handle; returns MPI_SUCCESS or the raised error. */
int zm_mpi_info_check(const char *fn, MPI_Info info);

/* Record the program's arguments for MPI_INFO_ENV.  Main thread, before
 * the job starts (or the singleton's MPI_Init); the arrays stay the
 * caller's. */
void zm_mpi_info_env_args(int argc, char **argv);

/* Update the hints of communicator `c` from `info` (MPI_INFO_NULL: none),
 * as MPI_Comm_set_info does and as the constructors that take an info
 * (MPI_Comm_dup_with_info, MPI_Comm_split_type, ...) should.  Recognised
 * keys with a boolean value replace the communicator's setting; others
 * leave it unchanged.  Returns MPI_SUCCESS, MPI_ERR_INFO for an invalid
 * info handle or MPI_ERR_NO_MEM, not yet raised.  c->info is an info
 * object owned by the communicator (freed with it); besides these hints it
 * may hold keys zmpi sets itself, such as the "mpi_hw_resource_type" of
 * MPI_Comm_split_type.  ULT context, the rank owning `c`. */
int zm_mpi_comm_info_apply(struct zmpi_comm *c, MPI_Info info);

/* ---- Error classes and codes (errors_codes.c) ---- */

/* The largest error code in use: MPI_ERR_LASTCODE until a program adds
 * classes or codes (the value of the MPI_LASTUSEDCODE attribute).  Any
 * thread. */
int zm_mpi_last_used_code(void);

/* The class of error code `code` (predefined or added by the program), or
 * -1 if no such code exists.  Any thread; takes the codes' spinlock. */
int zm_mpi_code_class(int code);

/* Writes the text of error code `code` into buf (len bytes, caller's):
 * its class's text, or the string the program gave it.  Any thread. */
void zm_mpi_describe_code(int code, char *buf, size_t len);

/* ---- Attribute caching (attr.c) ---- */

enum { ZM_ATTR_COMM, ZM_ATTR_TYPE, ZM_ATTR_WIN };

/* Copy the attributes of `old` to `new` through their copy callbacks, as
 * MPI_Comm_dup / MPI_Type_dup do.  `kind` is ZM_ATTR_*; `obj` pointers are
 * the handles.  Returns MPI_SUCCESS or an error class (not yet raised).
 * ULT context, the rank owning both objects. */
int zm_mpi_attr_dup(int kind, void *old_obj, void *new_obj);

/* Rank me arrived from another process (migrate_net.c) with its attribute
 * state (in its heap), which keys the attributes of its MPI_COMM_WORLD and
 * MPI_COMM_SELF by the addresses those objects had there: key them by
 * me's.  The coordinator, while the rank waits. */
void zm_mpi_attr_moved(zm_mpi_rank_t *me, const void *old_world, const void *old_self);

/* Delete every attribute of `obj` through its delete callback, as freeing
 * the object does.  Returns MPI_SUCCESS or the first callback's error
 * class.  ULT context, the owning rank. */
int zm_mpi_attr_free_all(int kind, void *obj);

/* ---- Composite requests (sched.c) ---- */

/* A non-blocking operation made of point-to-point messages on a
 * communicator's collective context, with an optional finishing step run
 * by the owner when every message is complete.  Neighbourhood collectives
 * and intercommunicator collectives are built on it; the blocking forms
 * run one and wait (zm_mpi_sched_run).  All calls: ULT context, the rank
 * owning the schedule.  The schedule owns its scratch space; buffers and
 * datatypes given to send/recv stay the caller's (datatypes are held). */
typedef struct zm_mpi_sched zm_mpi_sched_t;

/* Finishing step: runs once all messages of a start are complete; returns
 * an MPI error class. */
typedef int zm_mpi_sched_fn(zm_mpi_sched_t *s, void *arg);

/* A new schedule on communicator `c` (handle `handle`, as the user passed
 * it) for at most max_ops messages, with `scratch` bytes of scratch space.
 * NULL if out of memory. */
zm_mpi_sched_t *zm_mpi_sched_new(struct zmpi_comm *c, MPI_Comm handle, int max_ops,
                                 size_t scratch);

/* The schedule's scratch space (NULL if none was asked for). */
void *zm_mpi_sched_scratch(zm_mpi_sched_t *s);

/* Add a send to / receive from rank `peer` of the communicator's remote
 * group (its only group for an intracommunicator); MPI_PROC_NULL adds
 * nothing.  Returns an MPI error class. */
int zm_mpi_sched_send(zm_mpi_sched_t *s, const void *buf, size_t count, MPI_Datatype dt,
                      int dest, int tag);
int zm_mpi_sched_recv(zm_mpi_sched_t *s, void *buf, size_t count, MPI_Datatype dt, int src,
                      int tag);

/* Set the finishing step. */
void zm_mpi_sched_finish_with(zm_mpi_sched_t *s, zm_mpi_sched_fn *fn, void *arg);

/* Post every receive, then every send.  Returns an MPI error class. */
int zm_mpi_sched_start(zm_mpi_sched_t *s);

/* The schedule as an MPI request: freed by the wait or test that completes
 * it, or kept for MPI_Start when persistent (then freed by Request_free). */
MPI_Request zm_mpi_sched_request(zm_mpi_sched_t *s, int persistent);

/* Blocking form: start, wait, free.  Returns an MPI error class. */
int zm_mpi_sched_run(zm_mpi_sched_t *s);

/* Blocking form that keeps the schedule for another run (a cache of
 * repeated calls).  Returns an MPI error class. */
int zm_mpi_sched_run_keep(zm_mpi_sched_t *s);

/* Capture mode of the calling rank, for persistent collectives built by
 * the non-blocking code (intercommunicators): while on, the next
 * zm_mpi_sched_start does not start its schedule but marks it, and
 * zm_mpi_sched_request then hands it out as an inactive persistent
 * request; that start turns the mode off. */
void zm_mpi_sched_capture(int on);

/* Free a schedule that is not running. */
void zm_mpi_sched_free(zm_mpi_sched_t *s);

/* Composite requests (schedules) made and not yet freed in this process:
 * non-blocking neighbourhood and intercommunicator collectives,
 * generalized requests.  Any thread. */
long zm_mpi_sched_live(void);

/* Count schedule s, which uses no collective state (MPI_Isendrecv's, a
 * generalized request's), for rank me as well (me->own_scheds), so that a
 * move between processes keeps only that rank (migrate_net.c); the
 * process's count less those is zm_mpi_sched_live_shared.  The creating
 * call's thread; any thread reads the counts (snapshots). */
void zm_mpi_sched_own(zm_mpi_sched_t *s, zm_mpi_rank_t *me);
long zm_mpi_sched_live_shared(void);

/* Nonzero while any request object of the process's pool exists
 * (pending, persistent, or complete and not yet freed), a schedule's
 * included: what a checkpoint cannot carry.  Persistent point-to-point
 * requests in a rank's heap are not counted (zm_mpi_preq_why).  Any
 * thread (a snapshot). */
static inline int zm_mpi_requests_exist(void)
{
    return zm_p2p_requests_live() > 0 || zm_mpi_sched_live() > 0;
}

/* Like zm_mpi_sched_new, but the messages go on the communicator's
 * point-to-point context (MPI_Isendrecv): they match the user's receives
 * and sends, and the request's status is its receive's.  NULL if out of
 * memory. */
zm_mpi_sched_t *zm_mpi_sched_new_p2p(struct zmpi_comm *c, MPI_Comm handle, int max_ops,
                                     size_t scratch);

/* What a schedule with children started elsewhere does at start, on
 * MPI_Cancel (NULL: it cannot be cancelled), on MPI_Request_free while
 * active (NULL: refused; else the hook takes over freeing it), when it
 * is freed (release runs first, before the schedule's memory goes), and,
 * optionally, in the completion call that is about to free it, before
 * that call looks at its error (before_free: an error code it returns
 * fails the request, as a finishing step's status error does). */
typedef struct zm_mpi_sched_hooks {
    zm_mpi_sched_fn *start;
    zm_mpi_sched_fn *cancel;
    zm_mpi_sched_fn *free_active;
    void (*release)(zm_mpi_sched_t *s, void *arg);
    zm_mpi_sched_fn *before_free;
} zm_mpi_sched_hooks_t;

/* Attach hooks (static storage, kept by pointer) and their argument. */
void zm_mpi_sched_set_hooks(zm_mpi_sched_t *s, const zm_mpi_sched_hooks_t *hooks, void *arg);

/* The hooks' argument if r is a schedule with exactly these hooks (so
 * identifying what kind of schedule it is), else NULL. */
void *zm_mpi_sched_hooks_arg(zm_req_t *r, const zm_mpi_sched_hooks_t *hooks);

/* Add a child request (kind ZM_REQ_DONE_ONLY) that the start hook starts
 * and someone else completes with zm_p2p_req_complete (a persistent
 * collective's round, MPI_Grequest_complete).  The schedule owns it.
 * Returns an MPI error class. */
int zm_mpi_sched_child(zm_mpi_sched_t *s, zm_req_t **kid);

/* From a finishing step: the status the request reports (a generalized
 * request's query function); a non-zero MPI_ERROR fails the request with
 * that code. */
void zm_mpi_sched_set_status(zm_mpi_sched_t *s, const MPI_Status *st);

/* For request.c: the error code set by zm_mpi_sched_set_status (0 if
 * none); MPI_Cancel of a schedule (an MPI error class, MPI_ERR_REQUEST if
 * it cannot be cancelled); nonzero for a schedule that is no collective
 * (Isendrecv, generalized requests). */
int zm_mpi_sched_user_error(zm_req_t *r);
int zm_mpi_sched_cancel(zm_req_t *r);
int zm_mpi_sched_is_p2p(zm_req_t *r);

/* For MPI_Request_free of an active schedule: MPI_SUCCESS if its
 * free_active hook took it over, else MPI_ERR_REQUEST. */
int zm_mpi_sched_free_active(zm_req_t *r);

/* For request.c: complete `r` (kind ZM_REQ_SCHED) if all its children are
 * (returns 1 when complete); block until it is; block until any of
 * `reqs` (plain or composite, NULL entries skipped) is; free it. */
int zm_mpi_sched_poll(zm_req_t *r);
void zm_mpi_sched_wait(zm_req_t *r);
/* For request.c: run the before_free hook of completed schedule r, whose
 * completion call is about to free it (a generalized request's free
 * function); an error code it returns fails r unless r failed already.
 * The owning rank, once. */
void zm_mpi_sched_before_free(zm_req_t *r);
int zm_mpi_sched_wait_any(zm_req_t *const *reqs, int n);
void zm_mpi_sched_release(zm_req_t *r);

/* Run the delete callbacks of the attributes on MPI_COMM_SELF (newest
 * first, as MPI 4.1 section 11.2.4 requires) and then on MPI_COMM_WORLD,
 * and release all of the calling rank's keyvals and attributes.  Returns
 * MPI_SUCCESS or the first failing callback's error code (not raised).
 * MPI_Finalize must call it first, while MPI is still usable, since the
 * callbacks may call MPI.  ULT context, the calling rank. */
int zm_mpi_attr_finalize(void);

/* ---- Windows (win.c, errors.c) ---- */

/* Raise error class `cls` from API call `fn` through window w's error
 * handler (MPI_ERRORS_ARE_FATAL when none was set).  Returns the code for
 * the call to return.  ULT context. */
int zm_mpi_win_error(struct zmpi_win *w, int cls, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Wait until the calling rank's one-sided operations to other processes
 * on w are complete (src/rma/rma_net.c) and raise on w what one of them
 * met; MPI_SUCCESS at once on a window of one process.  ULT context, a
 * rank of w (rma_api.c). */
int zm_mpi_win_drain(struct zmpi_win *w, const char *fn);

/* ---- Process topologies (topo.c) ---- */

/* Give `new` a copy of `old`'s topology (Comm_dup keeps it).  Returns
 * MPI_SUCCESS or MPI_ERR_NO_MEM.  ULT context, the owning rank. */
int zm_mpi_topo_dup(struct zmpi_comm *old_comm, struct zmpi_comm *new_comm);

/* Release a communicator's topology, if any.  ULT context. */
void zm_mpi_topo_free(struct zmpi_comm *c);

/* Free the schedule c's topology keeps for its next neighbourhood
 * collective (neighbor.c), if any: it is the process's memory and counts
 * as a live request, which neither a move across processes nor a
 * checkpoint can carry; the next call builds it again.  Returns whether
 * there was one.  The rank's own thread, no neighbourhood collective of
 * it running. */
int zm_mpi_topo_forget(struct zmpi_comm *c);

/* Whether c's topology (none counts as yes) and its info copy satisfy
 * in(p, arg): the rank heap test of a move or a checkpoint.  Any thread
 * while c's rank waits. */
int zm_mpi_topo_own(const struct zmpi_comm *c, int (*in)(const void *p, void *arg), void *arg);

/* Launcher entry used by the zmpi_main stub: runs main_fn on every virtual
 * rank and returns the job's exit status.  Unless shared_by_choice is set,
 * a job of several ranks warns that they share the program's globals.
 * Main thread. */
ZMPI_EXPORT int zmpi_launch(int argc, char **argv, char **envp,
                            int (*main_fn)(int, char **, char **), int shared_by_choice);

/* Called by the exit() wrapper: ends only the calling rank when called from
 * a rank; returns when not in a job. */
ZMPI_EXPORT void zmpi_rank_exit(int status);

/* The calling rank's number in MPI_COMM_WORLD, for the rank tags of
 * output lines (launch_output.c); -1 outside a rank.  Any thread. */
ZMPI_EXPORT int zmpi_output_rank(void);

/* Launcher entry used by libzmpi_priv.a (privatized programs): runs every
 * rank in its own copy of the program.  Main thread. */
ZMPI_EXPORT int zmpi_launch_privatized(int argc, char **argv, char **envp);

#endif /* ZM_MPI_IMPL_H */
