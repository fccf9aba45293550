/*
 * checkpoint.c: ZMPI_Checkpoint, and the restart of a checkpointed job
 * (issue 21; docs/checkpoint.md).
 *
 * With checkpoints on (zmpirun --checkpoint), every rank's stack, program
 * copy and heap lie in a region of their own at an address that is the
 * same in every run (src/core/rank_mem.c), and the shared libraries too,
 * since zmpirun turns address-space randomization off for the job.  A
 * checkpoint then is each rank's region written to a file, with the
 * rank's context saved at the point where it called ZMPI_Checkpoint
 * (zm_ult_capture).  A restart (zmpirun --restart DIR) maps every region
 * back at its address and makes each rank continue from that point, as
 * if its ZMPI_Checkpoint call returned: nothing in the ranks' memory
 * needs changing, because nothing moved.
 *
 * What a rank holds outside its region cannot come back: MPI objects
 * made off its own thread, messages in flight, requests, windows, files,
 * sessions, intercommunicators, memory that system libraries allocated
 * for it (open FILE streams), threads it created.  ZMPI_Checkpoint
 * checks the MPI part and fails, on every rank, with an error naming
 * what is in the way.  The communicators a rank made on its own thread
 * are in its heap and come back with it: a restart forgets their
 * collective state (attached again at the next collective, as after a
 * move across processes) and starts drawing context ids above the
 * highest one the checkpointed job had drawn (zm_mpi_ctx_floor).
 */
#include "mpi/mpi_impl.h"
#include "mpi/threads.h"
#include "mpi/migrate_net.h"
#include "mpi/session.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define JOB_MAGIC "zmpi-checkpoint 1"
/* A region's header takes one system page (src/core/rank_mem.c). */
#define PAGE zm_arch_page_size()

/* Read by the malloc wrappers linked into a privatized program
 * (src/mpi/launch_heap.c): whether ranks allocate from their regions. */
ZM_EXPORT int zmpi_heap_on;

static struct {
    int on;              /* checkpoints on for this job */
    const char *restart; /* directory of the checkpoint restarted from */
    void **images;       /* per world rank: its program copy */
    uintptr_t canary;    /* the canary this process's ranks were entered with */
    uintptr_t own_canary;/* this process's, put back after the job */
    int swapped;         /* the job runs with `canary` instead of its own */
    int argc;
    char **argv;         /* the job's command line, for the job file */
} C;

/* Where a checkpoint's content must be found again: one function of
 * libc's and one of libzmpi's.  A restart whose libraries load elsewhere
 * (another machine, an update, randomization on) cannot go on. */
static void anchors(uintptr_t a[2])
{
    a[0] = (uintptr_t)&fopen;
    a[1] = (uintptr_t)&PMPI_Init;
}

/* The build ids of the program and of libzmpi, "program library" ("-"
 * for one that has none): a rebuilt program or library may load at the
 * same addresses with another layout of its data, which anchors() cannot
 * see and a restart would fill with the old layout's content. */
static void build_ids(char *out, size_t n)
{
    char prog[130], lib[130];
    zm_arch_build_id(NULL, prog, sizeof prog);
    zm_arch_build_id((const void *)&PMPI_Init, lib, sizeof lib);
    snprintf(out, n, "%s %s", prog[0] ? prog : "-", lib[0] ? lib : "-");
}

/* ---- Setup and restart, at job start -------------------------------------- */

static int stack_at(int id, zm_arch_stack_t *st)
{
    zm_rank_mem_t *h = zm_core_rank_mem(id);
    return zm_arch_stack_at(h->stack_at, h->stack_size, st);
}

int zm_mpi_ckpt_setup(int argc, char **argv, int privatized, zm_ult_job_config_t *cfg)
{
    const char *on = getenv("ZMPI_CHECKPOINT"), *dir = getenv("ZMPI_RESTART");
    C.restart = dir && *dir ? dir : NULL;
    C.on = C.restart || (on && strcmp(on, "1") == 0);
    if (!C.on)
        return 0;
    const char *why = !privatized           ? "the program is not privatized (link it with zmpicc)"
                      : !zm_arch_aslr_off() ? "address-space randomization is on (start the job "
                                              "with zmpirun --checkpoint, which turns it off)"
                                            : zm_arch_clone_usable();
    char err[256];
    if (!why && zm_core_rank_mem_setup(cfg->nults, cfg->stack_size, zm_arch_clone_span(), err,
                                       sizeof err) != 0)
        why = err;
    for (int l = 0; !why && l < cfg->nlocal; l++)
        if (zm_core_rank_mem_init(cfg->local ? cfg->local[l] : l, 1) != 0)
            why = "cannot map the ranks' memory";
    C.images = why ? NULL : calloc((size_t)cfg->nults, sizeof *C.images);
    if (why || !C.images) {
        fprintf(stderr, "zmpi: checkpoints cannot be taken in this job: %s\n",
                why ? why : "out of memory");
        return -1;
    }
    C.argc = argc;
    C.argv = argv;
    cfg->stack_at = stack_at;
    zmpi_heap_on = 1;
    /* Derived datatypes made by a rank live in its heap from now on, so
     * that checkpoints save them and migration carries them. */
    zm_core_obj_ranks_enable();
    return 0;
}

/* Read a checkpoint file's sections into memory at their addresses.  The
 * first is the region's header: checked, then the program copy mapped
 * under the rest.  Returns 0 or -1 with a message in err. */
static int read_rank(int fd, int rank, char *err, size_t errlen)
{
    zm_rank_mem_t *h = zm_core_rank_mem(rank);
    for (int first = 1;; first = 0) {
        uint64_t sec[2];
        if (read(fd, sec, sizeof sec) != (ssize_t)sizeof sec) {
            snprintf(err, errlen, "truncated file");
            return -1;
        }
        if (sec[1] == 0)
            return first ? -1 : 0;
        /* Sections lie inside the rank's region (checked for the header
         * by its address; the others by the header's layout). */
        zm_rank_mem_t *owner = zm_core_rank_mem_owner((void *)(uintptr_t)sec[0]);
        if (owner != h || (first && sec[1] != PAGE) ||
            zm_arch_region_load(fd, (uintptr_t)sec[0], sec[1]) != 0) {
            snprintf(err, errlen, "damaged or truncated file");
            return -1;
        }
        if (!first)
            continue;
        if (sec[0] != (uintptr_t)h || !zm_core_rank_mem_valid(h, rank)) {
            snprintf(err, errlen, "it was written by a job of another shape (ranks, stack "
                     "size or program)");
            return -1;
        }
        C.images[rank] = zm_arch_image_clone(rank, h->copy_at, 1, err, errlen);
        if (!C.images[rank])
            return -1;
    }
}

/* Bring back rank `rank` from its file: memory, context, MPI state. */
/* What a checkpoint keeps of a rank's API state besides its error
 * handlers and thread level (h->user[1-4]): its attribute state and names
 * of predefined datatypes, both in its heap, and the address of its API
 * record, by which its attributes on MPI_COMM_WORLD and MPI_COMM_SELF are
 * filed.  In the rank's heap, pointed to by h->user[0]. */
struct ckpt_api {
    uintptr_t attr, type_names, rec;
    uint64_t ctx_high; /* above every context id of the job (zm_mpi_ctx_high) */
};

/* Keep what restore_api needs in the rank's heap; -1 if out of memory. */
static int save_api(zm_rank_mem_t *h, zm_mpi_rank_t *me)
{
    struct ckpt_api *a = (struct ckpt_api *)h->user[0];
    if (!a && !(a = zm_core_heap_alloc(h, sizeof(*a))))
        return -1;
    a->attr = (uintptr_t)me->attr;
    a->type_names = (uintptr_t)me->type_names;
    a->rec = (uintptr_t)me;
    h->user[0] = (uintptr_t)a;
    return 0;
}

void zm_mpi_ckpt_state_adopt(zm_mpi_rank_t *me, uintptr_t attr, uintptr_t type_names,
                             uintptr_t old_rec)
{
    me->attr = (struct zm_mpi_attr_state *)attr;
    me->type_names = (struct zm_mpi_type_names *)type_names;
    zm_mpi_attr_moved(me, (const void *)(old_rec + offsetof(zm_mpi_rank_t, world)),
                      (const void *)(old_rec + offsetof(zm_mpi_rank_t, self)));
}

const char *zm_mpi_ckpt_state_why(zm_mpi_rank_t *me)
{
    zm_rank_mem_t *h = zm_core_rank_mem(me->world_rank);
    /* The handlers of WORLD and SELF come back by address (h->user[2-3]
     * in a checkpoint, the record's copy in a move): predefined ones are
     * the library's, at the same address everywhere; the program's must
     * be in the rank's heap. */
    if ((me->world.eh->kind >= ZM_EH_USER && zm_core_rank_mem_owner(me->world.eh) != h) ||
        (me->self.eh->kind >= ZM_EH_USER && zm_core_rank_mem_owner(me->self.eh) != h))
        return "MPI_COMM_WORLD or MPI_COMM_SELF has an error handler made off its own thread "
               "(set a predefined one first)";
    /* Buffers attached for buffered sends are recorded in the process's
     * record of the rank (src/p2p/bsend.c), which neither a move nor a
     * restart carries: read on the rank's thread, the one that attaches. */
    if (!zm_dlist_empty(&zm_p2p_ranks[me->world_rank].bsend_segs))
        return "it has a buffer attached for buffered sends (MPI_Buffer_attach or "
               "MPI_Comm_attach_buffer: its process keeps the record; detach it first)";
    if (me->attr && zm_core_rank_mem_owner(me->attr) != h)
        return "it made attribute keys or cached attributes off its own thread";
    if (me->type_names && zm_core_rank_mem_owner(me->type_names) != h)
        return "it named a predefined datatype off its own thread";
    return NULL;
}

/* Give the restored rank's new API record what save_api kept. */
static void restore_api(zm_rank_mem_t *h, zm_mpi_rank_t *me)
{
    const struct ckpt_api *a = (const struct ckpt_api *)h->user[0];
    if (a) {
        zm_mpi_ckpt_state_adopt(me, a->attr, a->type_names, a->rec);
        zm_mpi_ctx_floor((uint32_t)a->ctx_high);
    }
    zm_mpi_comm_restored(me->world_rank);
}

static int restore_rank(int rank, char *err, size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/rank-%d.ckpt", C.restart, rank);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    char why[300];
    int rc = read_rank(fd, rank, why, sizeof why);
    close(fd);
    if (rc != 0) {
        snprintf(err, errlen, "%s: %s", path, why);
        return -1;
    }
    zm_rank_mem_t *h = zm_core_rank_mem(rank);
    h->ckpt_resumed = 1;
    zm_ult_resume_saved(zm_ult_get(rank), h->ckpt_sp, h->ckpt_frame, ZM_RANK_MEM_FRAME);
    zm_mpi_rank_t *me = zm_ult_get(rank)->user;
    me->thread_level = (int)h->user[1];
    zm_mpi_thread_grant(me, me->thread_level);
    me->world.eh = (struct zmpi_errhandler *)h->user[2];
    me->self.eh = (struct zmpi_errhandler *)h->user[3];
    restore_api(h, me);
    me->initialized = 1;
    return 0;
}

/* The job file's values this restart needs; 0 or -1 with err. */
static int read_job(char *err, size_t errlen)
{
    char path[4096], line[256];
    snprintf(path, sizeof path, "%s/job", C.restart);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    unsigned long long a0 = 0, a1 = 0;
    char was[300] = "", now[300];
    int np = -1, ok = fgets(line, sizeof line, f) && strncmp(line, JOB_MAGIC, strlen(JOB_MAGIC)) == 0;
    while (ok && fgets(line, sizeof line, f)) {
        sscanf(line, "ranks %d", &np);
        sscanf(line, "anchors %llx %llx", &a0, &a1);
        if (strncmp(line, "build ", 6) == 0)
            snprintf(was, sizeof was, "%.*s", (int)strcspn(line + 6, "\n"), line + 6);
    }
    fclose(f);
    uintptr_t a[2];
    anchors(a);
    build_ids(now, sizeof now);
    if (!ok || np != zm_net_job.nranks) {
        snprintf(err, errlen, "%s is not a checkpoint of %d ranks", path, zm_net_job.nranks);
        return -1;
    }
    if (strcmp(was, now) != 0) {
        snprintf(err, errlen, "%s was written by another build of the program or of zmpi (build "
                 "ids \"%s\", now \"%s\": program, then libzmpi); a checkpoint restarts only "
                 "with the binaries that wrote it", path, was[0] ? was : "none recorded", now);
        return -1;
    }
    if (a0 != a[0] || a1 != a[1]) {
        snprintf(err, errlen, "the shared libraries are not where they were when %s was "
                 "written (libc's fopen %#llx, was %#llx; libzmpi's %#llx, was %#llx: another "
                 "machine or library version, or randomization on)", path,
                 (unsigned long long)a[0], a0, (unsigned long long)a[1], a1);
        return -1;
    }
    return 0;
}

/* The canary the restored ranks of this process were entered with: each
 * rank's header has the one its job ran ranks with; all must agree.  A
 * job zmpirun started has one canary in all its processes
 * (ZMPI_CKPT_CANARY), so only a job started otherwise can trip this. */
static int local_canary(char *err, size_t errlen)
{
    for (int l = 0; l < zm_net_job.nlocal; l++) {
        uintptr_t c = zm_core_rank_mem(zm_net_local_world(l))->user[4];
        if (l == 0)
            C.canary = c;
        else if (c != C.canary) {
            snprintf(err, errlen, "the ranks of process %d came from processes that ran with "
                     "different stack-protector canaries when the checkpoint was written (a "
                     "job not started by zmpirun --checkpoint): restart with the same -p and "
                     "rank order", zm_net_job.proc);
            return -1;
        }
    }
    return 0;
}

int zm_mpi_ckpt_restore(void)
{
    if (!C.restart)
        return 0;
    char err[4600];
    int rc = read_job(err, sizeof err);
    for (int l = 0; rc == 0 && l < zm_net_job.nlocal; l++)
        rc = restore_rank(zm_net_local_world(l), err, sizeof err);
    if (rc == 0)
        rc = local_canary(err, sizeof err);
    if (rc != 0) {
        fprintf(stderr, "zmpi: cannot restart from %s: %s\n", C.restart, err);
        return -1;
    }
    return 0;
}

void zm_mpi_ckpt_job_begin(void)
{
    if (!C.on)
        return;
    if (!C.restart) {
        /* Every process of the job enters its ranks with the job's canary,
         * so that any process can resume any of them later. */
        const char *v = getenv("ZMPI_CKPT_CANARY");
        if (!v || !*v)
            return;
        C.canary = (uintptr_t)strtoull(v, NULL, 16);
    }
    /* Workers created from here on inherit the canary; the launcher's own
     * frames get theirs back in zm_mpi_ckpt_job_end. */
    C.own_canary = zm_arch_canary_get();
    C.swapped = 1;
    zm_arch_canary_set(C.canary);
}

void zm_mpi_ckpt_job_end(void)
{
    if (C.swapped)
        zm_arch_canary_set(C.own_canary);
}

void *zm_mpi_ckpt_image(int rank, void *img)
{
    return C.on && zm_core_rank_mem_has(rank) ? C.images[rank] : img;
}

void *zm_mpi_ckpt_clone(int rank, char *err, size_t errlen)
{
    /* Ranks spawned at run time have no region: their copy goes anywhere. */
    if (!C.on || !zm_core_rank_mem_has(rank))
        return zm_arch_image_clone(rank, 0, 0, err, errlen);
    C.images[rank] = zm_arch_image_clone(rank, zm_core_rank_mem(rank)->copy_at, 0, err, errlen);
    return C.images[rank];
}

void zm_mpi_ckpt_rw(int rank, void **start, size_t *len)
{
    zm_arch_clone_rw(zm_arch_image_own(C.images[rank]), start, len);
}

int zm_mpi_ckpt_adopt(int rank, char *err, size_t errlen)
{
    /* A rank that ran here before left its copy mapped at its place (a
     * copy is never unmapped, src/arch/image_clone_linux.c): its writable
     * segment is overwritten by what arrives. */
    if (C.images[rank])
        return 0;
    C.images[rank] = zm_arch_image_clone(rank, zm_core_rank_mem(rank)->copy_at, 1, err, errlen);
    return C.images[rank] ? 0 : -1;
}

/* ---- Writing a checkpoint ------------------------------------------------- */

/* Append one section (address, length, bytes) to fd, leaving holes for
 * pages of zeros (a rank's untouched .bss and heap read as zeros). */
static int put_section(int fd, uintptr_t addr, size_t len)
{
    uint64_t sec[2] = { addr, len };
    if (write(fd, sec, sizeof sec) != (ssize_t)sizeof sec)
        return -1;
    return zm_arch_region_save(fd, addr, len);
}

/* Write rank `rank`'s file: its header, the live part of its stack, its
 * copy's writable segment and its heap.  0 or an errno value. */
static int write_rank(const char *dir, int rank)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/rank-%d.ckpt", dir, rank);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return errno;
    zm_rank_mem_t *h = zm_core_rank_mem(rank);
    void *rw;
    size_t rwlen;
    zm_arch_clone_rw(zm_arch_image_own(C.images[rank]), &rw, &rwlen);
    uintptr_t sp = (uintptr_t)h->ckpt_sp & ~(uintptr_t)(PAGE - 1);
    uint64_t end[2] = { 0, 0 };
    int rc = put_section(fd, (uintptr_t)h, PAGE) || put_section(fd, sp, h->stack_at + PAGE +
                                                                h->stack_size - sp) ||
             put_section(fd, (uintptr_t)rw, rwlen) ||
             put_section(fd, h->heap_at, h->bump - h->heap_at) ||
             write(fd, end, sizeof end) != (ssize_t)sizeof end;
    int e = rc ? errno : 0;
    if (close(fd) != 0 && !e)
        e = errno;
    return e;
}

/* Rank 0's part: the job file (what a restart checks) and the command
 * line zmpirun --restart runs again. */
static int write_job(const char *dir)
{
    char path[4096];
    uintptr_t a[2];
    char ids[300];
    anchors(a);
    build_ids(ids, sizeof ids);
    snprintf(path, sizeof path, "%s/job", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return errno;
    fprintf(f, "%s\nranks %d\nprocs %d\norder %s\nstack %zu\nanchors %llx %llx\nbuild %s\n",
            JOB_MAGIC, zm_net_job.nranks, zm_net_job.nprocs,
            zm_net_job.order == ZM_NET_ORDER_INTERLEAVE ? "interleave" : "block",
            zm_core_rank_mem(0)->stack_size, (unsigned long long)a[0],
            (unsigned long long)a[1], ids);
    int e = fclose(f) ? errno : 0;
    snprintf(path, sizeof path, "%s/argv", dir);
    f = fopen(path, "w");
    if (!f)
        return errno;
    for (int i = 0; i < C.argc; i++)
        fwrite(C.argv[i], 1, strlen(C.argv[i]) + 1, f);
    return fclose(f) ? errno : e;
}

/* What keeps the calling rank from being checkpointed, or NULL. */
static const char *obstacle(zm_mpi_rank_t *me)
{
    if (!zm_p2p_rank_quiet(me->world_rank))
        return "a message to it is still unreceived, or it has a receive posted";
    if (zm_mpi_requests_exist())
        return "requests exist (pending, persistent ones not in a rank's heap, or complete "
               "but not freed by a wait, test or MPI_Request_free)";
    /* Inactive persistent point-to-point requests in its heap come back
     * with it; active ones are in its process's queues. */
    const char *pwhy = zm_mpi_preq_why(me->world_rank);
    if (pwhy)
        return pwhy;
    /* Communicators in the rank's heap come back with it; those in the
     * process's memory, and what holds process state, cannot. */
    const char *cwhy = NULL;
    zm_mpi_comm_held(me->world_rank, &cwhy);
    if (cwhy)
        return cwhy;
    if (zm_mpi_comm_live() > 0)
        return "communicators in its process's own memory exist (made by threads other than "
               "the ranks' own, or by ranks spawned at run time)";
    if (zm_mpi_session_live(me))
        return "it has a session open (sessions are its process's)";
    if (zm_dt_live() > 0)
        return "derived datatypes made by threads other than the ranks' own exist (free "
               "them first)";
    if (zm_op_live() > 0)
        return "user operations made by threads other than the ranks' own exist (free them "
               "first)";
    if (zm_mpi_handles_mapped())
        return "Fortran indices of communicators, groups, datatypes, error handlers or info "
               "objects exist (the index tables are not saved)";
    /* Its error handlers, attribute state and type names are saved with
     * its heap, where they are when the rank made them on its own
     * thread. */
    return zm_mpi_ckpt_state_why(me);
}

/* Checks and agreement before the save; MPI_SUCCESS or the error raised. */
static int ckpt_begin(const char *fn, const char *dir)
{
    zm_mpi_rank_t *me = zm_mpi_enter(fn);
    /* Collective over MPI_COMM_WORLD: its error handler reports. */
    struct zmpi_comm *world = &me->world;
    if (!C.on)
        return zm_mpi_error(world, MPI_ERR_OTHER, fn, "rank %d: checkpoints are off in this job: "
                            "start it with zmpirun --checkpoint", me->world_rank);
    /* A spawned world's ranks all lack one: they fail together. */
    if (!zm_core_rank_mem_has(zm_ult_self()->id))
        return zm_mpi_error(world, MPI_ERR_OTHER, fn, "rank %d was spawned at run time and "
                            "has no fixed-address memory: it cannot be checkpointed",
                            me->world_rank);
    if (!dir || !*dir)
        return zm_mpi_error(world, MPI_ERR_ARG, fn, "rank %d: no directory given (dir)",
                            me->world_rank);
    if (me->world_rank == 0 && mkdir(dir, 0700) != 0 && errno != EEXIST)
        return zm_mpi_error(world, MPI_ERR_FILE, fn, "rank 0: cannot create %s: %s", dir,
                            strerror(errno));
    /* Cached neighbourhood schedules are live requests in process memory:
     * gone before any rank of the process looks for requests. */
    zm_mpi_comm_forget_caches(me->world_rank);
    PMPI_Barrier(MPI_COMM_WORLD);
    const char *why = obstacle(me);
    if (!why && save_api(zm_core_rank_mem(me->world_rank), me) != 0)
        why = "out of memory in its heap";
    int bad = why != NULL, any = 0;
    PMPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    /* The restart draws context ids above every one drawn so far. */
    unsigned high = zm_mpi_ctx_high(), top = 0;
    PMPI_Allreduce(&high, &top, 1, MPI_UNSIGNED, MPI_MAX, MPI_COMM_WORLD);
    if (!why)
        ((struct ckpt_api *)zm_core_rank_mem(me->world_rank)->user[0])->ctx_high = top;
    /* Between processes: every message sent must have arrived (one rank
     * per process counts its process's; each took its count after its own
     * barrier, when its part of the barrier's traffic was done). */
    long n[2] = { 0, 0 }, all[2] = { 0, 0 };
    if (me->world_rank == zm_net_local_world(0))
        zm_p2p_remote_counts(&n[0], &n[1]);
    PMPI_Allreduce(n, all, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (!why && !any && all[0] != all[1])
        return zm_mpi_error(world, MPI_ERR_OTHER, fn, "rank %d cannot be checkpointed: %ld "
                            "messages between processes are still in flight (sent, not yet "
                            "received)", me->world_rank, all[0] - all[1]);
    if (why)
        return zm_mpi_error(world, MPI_ERR_OTHER, fn, "rank %d cannot be checkpointed: %s",
                            me->world_rank, why);
    if (any)
        return zm_mpi_error(world, MPI_ERR_OTHER, fn, "rank %d: another rank cannot be "
                            "checkpointed (its error says why)", me->world_rank);
    zm_rank_mem_t *h = zm_core_rank_mem(me->world_rank);
    h->user[1] = (uintptr_t)me->thread_level;
    /* Predefined error handlers are the library's own objects, at the same
     * address in a restarted job; the program's are in the rank's heap. */
    h->user[2] = (uintptr_t)me->world.eh;
    h->user[3] = (uintptr_t)me->self.eh;
    h->user[4] = zm_arch_canary_get();
    return MPI_SUCCESS;
}

/* After the save: write the files (first run) or nothing (restarted),
 * then meet the other ranks. */
static int ckpt_end(const char *fn, const char *dir, int resumed)
{
    zm_mpi_rank_t *me = zm_mpi_me();
    struct zmpi_comm *world = &me->world;
    zm_rank_mem_t *h = zm_core_rank_mem(me->world_rank);
    int e = 0, any = 0;
    if (resumed) {
        h->ckpt_resumed = 0;
    } else {
        e = me->world_rank == 0 ? write_job(dir) : 0;
        if (!e)
            e = write_rank(dir, me->world_rank);
    }
    PMPI_Allreduce(&e, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (e)
        return zm_mpi_error(world, MPI_ERR_FILE, fn, "rank %d: cannot write its checkpoint "
                            "in %s: %s", me->world_rank, dir, strerror(e));
    if (any)
        return zm_mpi_error(world, MPI_ERR_FILE, fn, "rank %d: another rank could not write "
                            "its checkpoint in %s", me->world_rank, dir);
    return MPI_SUCCESS;
}

int PZMPI_Checkpoint(const char *dir)
{
    int rc = ckpt_begin("ZMPI_Checkpoint", dir);
    if (rc != MPI_SUCCESS)
        return rc;
    zm_rank_mem_t *h = zm_core_rank_mem(zm_ult_self()->id);
    /* From here on only `dir` (the caller's) may be used across the save:
     * a restarted rank comes back here in another process. */
    int resumed = zm_ult_capture(&h->ckpt_sp, h->ckpt_frame, ZM_RANK_MEM_FRAME,
                                 &h->ckpt_resumed);
    if (resumed < 0)
        return zm_mpi_error(NULL, MPI_ERR_NO_MEM, "ZMPI_Checkpoint", "rank %d: out of memory",
                            zm_ult_self()->id);
    return ckpt_end("ZMPI_Checkpoint", dir, resumed);
}
#pragma weak ZMPI_Checkpoint = PZMPI_Checkpoint

/* ---- The rank heap, for the program's malloc wrappers --------------------- */

/* The calling rank's region, or NULL on a thread that is no rank's ULT
 * (their memory comes from libc and is not checkpointed). */
static zm_rank_mem_t *my_region(void)
{
    zm_ult_t *u = zm_ult_self();
    return u && !u->foreign && zmpi_heap_on && zm_core_rank_mem_has(u->id)
               ? zm_core_rank_mem(u->id)
               : NULL;
}

ZM_EXPORT void *zmpi_heap_malloc(size_t n)
{
    zm_rank_mem_t *h = my_region();
    if (!h)
        return malloc(n);
    void *p = zm_core_heap_alloc(h, n ? n : 1);
    if (!p)
        errno = ENOMEM;
    return p;
}

ZM_EXPORT void *zmpi_heap_calloc(size_t m, size_t n)
{
    if (n && m > SIZE_MAX / n) {
        errno = ENOMEM;
        return NULL;
    }
    zm_rank_mem_t *h = my_region();
    if (!h)
        return calloc(m, n);
    size_t bytes = m * n;
    void *p = zm_core_heap_calloc(h, bytes ? bytes : 1);
    if (!p)
        errno = ENOMEM;
    return p;
}

ZM_EXPORT void zmpi_heap_free(void *p)
{
    zm_core_mem_free(p);
}

ZM_EXPORT void *zmpi_heap_realloc(void *p, size_t n)
{
    return zm_core_mem_realloc(my_region(), p, n);
}

ZM_EXPORT void *zmpi_heap_aligned(size_t align, size_t n)
{
    zm_rank_mem_t *h = my_region();
    if (!h) {
        void *p = NULL;
        return posix_memalign(&p, align, n) == 0 ? p : NULL;
    }
    void *p = zm_core_heap_aligned(h, align, n ? n : 1);
    if (!p)
        errno = ENOMEM;
    return p;
}

ZM_EXPORT int zmpi_heap_owns(const void *p)
{
    return zm_core_rank_mem_owner(p) != NULL;
}

ZM_EXPORT size_t zmpi_heap_usable(void *p)
{
    return zm_core_heap_usable(p);
}
