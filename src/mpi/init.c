/*
 * init.c: job launch, MPI_Init/Finalize and the environment calls.
 *
 * A rank may use the world model (MPI_Init ... MPI_Finalize), the sessions
 * model (session.c) or both: MPI_Finalize ends only the world model, and
 * MPI_Initialized/MPI_Finalized speak of it alone, as MPI 4.1 section
 * 11.4 says.
 */
#include "session.h"
#include "spawn.h"
#include "threads.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Defaults.  The eager threshold is where copying twice through a pooled
 * buffer stops being cheaper than waiting for the receiver to copy once;
 * see README for the measurement. */
#define DEFAULT_STACK_SIZE ((size_t)8 << 20)
#define DEFAULT_EAGER_MAX ((size_t)16 << 10)

static struct {
    zm_mpi_rank_t *ranks;   /* API state of every rank */
    int nranks;             /* job size */
    int argc;               /* program arguments */
    char **argv;
    char **envp;
    int (*main_fn)(int, char **, char **);
} L;


void zm_mpi_comm_init_predef(struct zmpi_comm *c, uint32_t ctx, int rank, int size,
                             const int *world, const char *name)
{
    memset(c, 0, sizeof(*c));
    c->magic = ZM_COMM_MAGIC;
    c->p.ctx = ctx;
    c->p.rank = rank;
    c->p.size = size;
    c->p.world = world;
    c->p.name = c->name;
    c->eh = MPI_ERRORS_ARE_FATAL;
    c->predefined = 1;
    snprintf(c->name, sizeof(c->name), "%s", name);
}

zm_status_t zm_mpi_setup(int nranks)
{
    L.nranks = nranks;
    /* Indexed by world rank; only this process's ranks are set up, and
     * calloc'd pages nobody touches cost nothing. */
    L.ranks = calloc((size_t)nranks, sizeof(zm_mpi_rank_t));
    /* One group object for MPI_COMM_WORLD, shared by all ranks, so that
     * duplicating the world costs no O(ranks) memory per rank. */
    struct zmpi_group *wg = zm_mpi_group_new(nranks);
    if (!L.ranks || !wg || zm_mpi_session_setup(nranks) != ZM_OK)
        return ZM_ERR_NOMEM;
    wg->predefined = 1;
    for (int i = 0; i < nranks; i++)
        wg->world[i] = i;
    for (int l = 0; l < zm_net_job.nlocal; l++) {
        int i = zm_net_local_world(l);
        zm_mpi_rank_t *m = &L.ranks[i];
        m->world_rank = i;
        zm_ult_get(i)->user = m;
        /* World uses contexts 0/1, self 2/3; new communicators get theirs
         * from a process-wide counter starting at 4. */
        zm_mpi_comm_init_predef(&m->world, 0, i, nranks, NULL, "MPI_COMM_WORLD");
        m->world.group = wg;
        zm_mpi_comm_init_predef(&m->self, 2, 0, 1, &m->world_rank, "MPI_COMM_SELF");
    }
    return ZM_OK;
}

static int priv_main(int argc, char **argv, char **envp);

/* The rank's own argv array (in its heap: a checkpoint saves it, with
 * the strings, which the process's start-up area would not keep). */
static char **rank_argv(void)
{
    size_t bytes = sizeof(char *) * (size_t)(L.argc + 1);
    for (int i = 0; i < L.argc; i++)
        bytes += strlen(L.argv[i]) + 1;
    char **argv = zmpi_heap_malloc(bytes);
    if (!argv)
        return NULL;
    char *s = (char *)(argv + L.argc + 1);
    for (int i = 0; i < L.argc; i++) {
        size_t n = strlen(L.argv[i]) + 1;
        argv[i] = memcpy(s, L.argv[i], n);
        s += n;
    }
    argv[L.argc] = NULL;
    return argv;
}

static void rank_main(zm_ult_t *u, void *arg)
{
    (void)arg;
    /* Each rank gets its own argv array: getopt and MPI_Init may permute
     * or shorten it. */
    char **argv = rank_argv();
    if (!argv) {
        zm_ult_exit(1);
        return;
    }
    int status = L.main_fn(L.argc, argv, L.envp);
    zmpi_heap_free(argv);
    (void)u;
    zm_ult_exit(status);
}

/* The job runs an unprivatized program on several ranks: say so, since
 * globals shared by accident make programs compute garbage silently. */
static void warn_shared_globals(const char *prog, int np)
{
    fprintf(stderr,
            "zmpi: warning: %s was not linked for privatization, so its %d ranks share "
            "its global and static variables; link it with zmpicc/zmpicxx (which "
            "privatize by default), or with -zmpi-no-privatize if it keeps no state in "
            "globals, to silence this warning\n", prog ? prog : "the program", np);
}

/* The world ranks this process runs, in local order; NULL if out of
 * memory. */
static int *local_ranks(void)
{
    int *ids = malloc(sizeof(int) * (size_t)zm_net_job.nlocal);
    for (int l = 0; ids && l < zm_net_job.nlocal; l++)
        ids[l] = zm_net_local_world(l);
    return ids;
}

static int priv_main(int argc, char **argv, char **envp);

/* Each rank's stack takes two memory maps (the stack and its guard page)
 * and a privatized rank's copy of the program two or three more; the kernel caps
 * the maps of a process.  Check the cap before any rank starts, so that a
 * job too large for it fails with the limit to raise instead of a rank
 * failing half-way through start-up.  Returns 0 if the job fits. */
static int map_budget_check(int nl, int privatized)
{
    long in_use, max = zm_arch_map_budget(&in_use);
    long per_rank = 2 + (privatized ? zm_arch_image_maps() : 0);
    /* Room for what starts later: the network module, files, windows. */
    long need = in_use + (long)nl * per_rank + 512;
    if (max < 0 || need <= max)
        return 0;
    fprintf(stderr,
            "zmpi: %d %sranks in this process need about %ld memory maps (%ld per rank), more "
            "than the kernel's limit vm.max_map_count = %ld.  Raise the limit before starting "
            "(as root: sysctl -w vm.max_map_count=%ld), run the ranks in several processes "
            "(zmpirun -p), or%s use fewer ranks\n",
            nl, privatized ? "privatized " : "", need, per_rank, max, need + need / 4,
            privatized ? " link with -zmpi-no-privatize (2 maps per rank) if the program keeps "
                         "no state in globals, or"
                       : "");
    return -1;
}

int zmpi_launch(int argc, char **argv, char **envp, int (*main_fn)(int, char **, char **),
                int shared_by_choice)
{
    int np_env = (int)zm_core_env_long("ZMPI_NP", 0, 1);
    size_t stack = (size_t)zm_core_env_long("ZMPI_STACK_SIZE", (long)DEFAULT_STACK_SIZE, 16384);
    size_t eager = (size_t)zm_core_env_long("ZMPI_EAGER_MAX", (long)DEFAULT_EAGER_MAX, 0);
    /* A system launcher may have started several processes: the network
     * layer decides how many ranks the job has and which are ours. */
    if (zm_net_init(np_env) != 0)
        return 1;
    int np = zm_net_job.nranks, nl = zm_net_job.nlocal;
    int nw = (int)zm_core_env_long("ZMPI_WORKERS", zm_arch_ncpus(), 1);
    if (nw > nl)
        nw = nl;
    if (np > 1 && !shared_by_choice)
        warn_shared_globals(argc > 0 ? argv[0] : NULL, np);
    if (map_budget_check(nl, main_fn == priv_main) != 0) {
        if (zm_net_job.nprocs > 1)
            zm_net_abort(1);
        return 1;
    }
    L.argc = argc;
    L.argv = argv;
    L.envp = envp;
    L.main_fn = main_fn;
    zm_mpi_info_env_args(argc, argv);
    int *ids = local_ranks();
    zm_ult_job_config_t cfg = { np, nw, ids, nl, stack, rank_main, NULL, zm_p2p_describe, NULL,
                                zm_net_job.spare, zm_net_job.nprocs, zm_net_job.proc };
    if (ids && zm_mpi_ckpt_setup(argc, argv, main_fn == priv_main, &cfg) != 0)
        return 1;
    /* zm_ult_job_run creates the ULT records that the setups below fill in,
     * so they are made first with the job's sizes. */
    if (!ids || zm_ult_job_prepare(&cfg) != 0 || zm_p2p_init(np, nw, eager) != ZM_OK ||
        zm_mpi_setup(np) != ZM_OK) {
        fprintf(stderr, "zmpi: cannot set up a job of %d ranks on %d workers\n", nl, nw);
        if (zm_net_job.nprocs > 1)
            zm_net_abort(1);
        return 1;
    }
    if (zm_mpi_ckpt_restore() != 0)
        return 1;
    zm_arch_crash_install(zmpi_output_rank);
    zm_mpi_ckpt_job_begin();
    int status = zm_ult_job_start();
    zm_mpi_ckpt_job_end();
    fflush(NULL);
    zm_mpi_port_net_quiesce();
    zm_net_finalize();
    return status;
}

/* Body of every rank of a privatized program: load the rank's own copy of
 * the program and run its main. */
static int priv_main(int argc, char **argv, char **envp)
{
    char err[256];
    int id = zm_ult_self()->id;
    void *img = zm_mpi_ckpt_clone(id, err, sizeof err);
    if (!img) {
        /* A job with a rank missing cannot run: end it with one message
         * (the other ranks fail the same way) instead of a deadlock. */
        static atomic_flag reported = ATOMIC_FLAG_INIT;
        if (!atomic_flag_test_and_set(&reported))
            fprintf(stderr,
                    "zmpi: rank %d: %s\nzmpi: each privatized rank holds a copy of the "
                    "program (about 4 memory maps with its stack; the kernel allows "
                    "vm.max_map_count in all): use fewer ranks per process, raise "
                    "vm.max_map_count, or link with -zmpi-no-privatize if the program "
                    "keeps no state in globals\n", id, err);
        fflush(NULL);
        _exit(1);
    }
    int (*main_fn)(int, char **, char **) =
        (int (*)(int, char **, char **))zm_arch_image_main(img);
    if (!main_fn) {
        fprintf(stderr, "zmpi: rank %d: the program has no main function\n", id);
        return 1;
    }
    int status = main_fn(argc, argv, envp);
    zm_arch_image_close(zm_mpi_ckpt_image(id, img));
    return status;
}

int zmpi_launch_privatized(int argc, char **argv, char **envp)
{
    /* A privatized program starts at zmpi's own entry point, not through
     * libc's start code, so the loader never registered the libraries'
     * destructors for exit: libgfortran did not flush its units when a
     * rank ended the job from inside it (ERROR STOP, a runtime error), and
     * WRITE(*,*) lines still buffered for a file were lost. */
    atexit(zm_arch_libs_fini);
    char err[1024];
    if (zm_arch_image_check(argc > 0 ? argv[0] : "the program", err, sizeof err) != 0) {
        fprintf(stderr, "zmpi: %s\n", err);
        return 1;
    }
    zm_arch_clone_args(argc, argv, envp);
    return zmpi_launch(argc, argv, envp, priv_main, 1);
}

/* For spawn.c (declared in spawn.h): the body the launcher runs per rank
 * (a privatized program's loads the rank's own copy first), the
 * environment and the program's path as started.  Returns -1 in a job
 * zmpi's launcher did not start (a singleton).  Any thread, once the job
 * runs; the strings stay the launcher's. */
int zm_mpi_launch_body(int (**main_fn)(int, char **, char **), char ***envp, const char **prog)
{
    if (!L.main_fn)
        return -1;
    *main_fn = L.main_fn;
    *envp = L.envp;
    *prog = L.argc > 0 ? L.argv[0] : NULL;
    return 0;
}

void zmpi_rank_exit(int status)
{
    /* A rank that fails between MPI_Init and MPI_Finalize ends the job,
     * as under mpiexec, instead of leaving the ranks that wait for it to
     * be reported as deadlocked without a word about it. */
    zm_mpi_rank_t *me = zm_ult_self() ? zm_mpi_me() : NULL;
    if (status != 0 && zm_mpi_live(me)) {
        fflush(stdout);
        fprintf(stderr, "zmpi: rank %d called exit(%d) before MPI_Finalize: ending the job\n",
                me->world_rank, status);
        zm_net_abort(status & 255 ? status & 255 : 1);
    }
    zm_ult_exit(status);
}

/* A program not linked by zmpicc calls MPI_Init on its own main thread:
 * make that thread the only rank of a one-rank job. */
static int singleton_setup(void)
{
    size_t eager = (size_t)zm_core_env_long("ZMPI_EAGER_MAX", (long)DEFAULT_EAGER_MAX, 0);
    /* Started by a system launcher (mpiexec -n 4 python ...), each
     * process is one rank of a job over the network. */
    if (zm_net_init(0) != 0)
        exit(1);
    /* zmpirun ran copies of a program it did not find linked with zmpi
     * (python with mpi4py): each would be a one-rank job, silently. */
    long copies = zm_core_env_long("ZMPI_COPIES", 1, 1);
    if (zm_net_job.nprocs == 1 && copies > 1) {
        fprintf(stderr, "zmpi: zmpirun started %ld copies of this program, as of one that is "
                "not linked with zmpi (a script interpreter), so each copy would be a "
                "one-rank job of its own.  Run it as one job of %ld processes with one rank "
                "each: zmpirun -n %ld -p %ld (through the system MPI's launcher), or "
                "mpiexec -n %ld\n", copies, copies, copies, copies, copies);
        exit(1);
    }
    if (zm_net_job.nlocal != 1) {
        fprintf(stderr, "zmpi: a program not started through zmpi's launcher runs one rank "
                "per process (it asked for %d: unset ZMPI_NP and ZMPI_RANKS_PER_PROC, or "
                "link the program with zmpicc)\n", zm_net_job.nlocal);
        zm_net_abort(1);
    }
    zm_ult_job_adopt(zm_p2p_describe, zm_net_local_world(0), zm_net_job.nranks);
    if (zm_p2p_init(zm_net_job.nranks, 1, eager) != ZM_OK ||
        zm_mpi_setup(zm_net_job.nranks) != ZM_OK)
        return -1;
    return 0;
}

zm_mpi_rank_t *zm_mpi_rank_attach(void)
{
    if (zm_ult_self())
        return zm_mpi_me();
    /* A thread that is no rank's ULT in a running job: the rank it acts
     * for, if any (threads.c); it is not made the rank's thread. */
    if (zm_ult_job_scheduled() || zm_ult_job_adopted())
        return zm_mpi_thread_rank();
    if (singleton_setup() != 0)
        return NULL;
    return zm_mpi_me();
}

static int init_common(const char *fn, int *argc, char ***argv, int required, int *provided)
{
    zm_mpi_rank_t *me = zm_mpi_rank_attach();
    if (!me) {
        if (zm_ult_job_scheduled())
            zm_mpi_enter_fail(fn); /* a thread of no rank: says so and ends the job */
        fprintf(stderr, "zmpi: %s: cannot set up a one-rank job\n", fn);
        exit(1);
    }
    if (me->initialized)
        return zm_mpi_error(NULL, MPI_ERR_OTHER, fn, "MPI is already %s on this rank",
                            me->finalized ? "finalized" : "initialized");
    /* The thread that initializes MPI is the rank's main thread: its ULT,
     * or the thread running an OpenMP region for it (threads_omp.c). */
    if (!zm_mpi_thread_is_main()) {
        fflush(stdout);
        fprintf(stderr, "zmpi: rank %d: %s called from a thread the rank created: call it from "
                "the rank's own thread (the one that runs its main)\n", me->world_rank, fn);
        fflush(NULL);
        _exit(1);
    }
    zm_mpi_thread_activate();
    /* Every level is provided: threads a rank creates may call MPI for it
     * from SERIALIZED on (threads.c, docs/threads.md). */
    int level = required < MPI_THREAD_SINGLE     ? MPI_THREAD_SINGLE
                : required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE
                                                 : required;
    me->thread_level = level;
    zm_mpi_thread_grant(me, level);
    if (provided)
        *provided = me->thread_level;
    /* A singleton's arguments come from MPI_Init. */
    if (zm_ult_job_adopted() && argc && argv && *argc > 0 && *argv)
        zm_mpi_info_env_args(*argc, *argv);
    me->initialized = 1;
    return MPI_SUCCESS;
}

int PMPI_Init(int *argc, char ***argv)
{
    return init_common("MPI_Init", argc, argv, MPI_THREAD_SINGLE, NULL);
}
ZM_WEAK(Init)

int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    return init_common("MPI_Init_thread", argc, argv, required, provided);
}
ZM_WEAK(Init_thread)

int PMPI_Initialized(int *flag)
{
    zm_mpi_rank_t *me = zm_mpi_me() ? zm_mpi_me() : zm_mpi_thread_rank();
    *flag = me && me->initialized;
    return MPI_SUCCESS;
}
ZM_WEAK(Initialized)

int PMPI_Finalized(int *flag)
{
    zm_mpi_rank_t *me = zm_mpi_me() ? zm_mpi_me() : zm_mpi_thread_rank();
    *flag = me && me->finalized;
    return MPI_SUCCESS;
}
ZM_WEAK(Finalized)

int PMPI_Finalize(void)
{
    zm_mpi_rank_t *me = zm_mpi_enter("MPI_Finalize");
    /* MPI 4.1 section 11.2.2: the thread that initialized MPI finalizes. */
    if (!zm_mpi_thread_is_main())
        return zm_mpi_error(NULL, MPI_ERR_OTHER, "MPI_Finalize", "called from a thread the rank "
                            "created; call it from the rank's main thread, the one that called "
                            "MPI_Init");
    /* Attributes on MPI_COMM_SELF go first, while MPI is still usable: their
     * delete callbacks may call MPI (MPI 4.1 section 11.2.4). */
    int attr_cls = zm_mpi_attr_finalize();
    if (attr_cls != MPI_SUCCESS)
        zm_mpi_error(NULL, attr_cls, "MPI_Finalize", "an attribute's delete callback failed");
    zm_p2p_waiter()->wait_call = "MPI_Finalize";
    /* Finalize is collective over the job: no rank leaves while another can
     * still need it. */
    struct zm_coll_shm *cs = zm_mpi_coll_shm(&me->world);
    zm_status_t rc = cs ? zm_coll_barrier(cs, me->world.p.rank) : ZM_ERR_NOMEM;
    me->finalized = 1;
    fflush(stdout);
    /* A program not started by zmpirun (one rank per process) ends its
     * network here: nothing else runs after its main. */
    if (zm_ult_job_adopted() && rc == ZM_OK)
        zm_net_finalize();
    return rc == ZM_OK ? MPI_SUCCESS : zm_mpi_error(NULL, zm_mpi_class_of(rc), "MPI_Finalize", "barrier failed");
}
ZM_WEAK(Finalize)

int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    zm_mpi_rank_t *me = zm_mpi_me() ? zm_mpi_me() : zm_mpi_thread_rank();
    (void)comm;
    fflush(stdout);
    fprintf(stderr, "zmpi: rank %d called MPI_Abort with error code %d: ending the job\n",
            me ? me->world_rank : 0, errorcode);
    fflush(NULL);
    /* A job that aborts must fail even when the code is 0.  Across
     * processes the system MPI's abort ends every one of them. */
    zm_net_abort((errorcode & 255) ? (errorcode & 255) : 1);
}
ZM_WEAK(Abort)

int PMPI_Query_thread(int *provided)
{
    /* Any thread of the rank may ask, whatever the level. */
    zm_mpi_rank_t *me = zm_mpi_me() ? zm_mpi_me() : zm_mpi_thread_rank();
    if (!me || !me->initialized || me->finalized)
        me = zm_mpi_enter("MPI_Query_thread");
    *provided = me->thread_level;
    return MPI_SUCCESS;
}
ZM_WEAK(Query_thread)

int PMPI_Is_thread_main(int *flag)
{
    zm_mpi_rank_t *me = zm_mpi_me() ? zm_mpi_me() : zm_mpi_thread_rank();
    if (!me || !me->initialized || me->finalized)
        zm_mpi_enter("MPI_Is_thread_main");
    /* The rank's ULT called MPI_Init (or the thread running an OpenMP
     * region for it stands in for it). */
    *flag = zm_mpi_thread_is_main();
    return MPI_SUCCESS;
}
ZM_WEAK(Is_thread_main)

double PMPI_Wtime(void)
{
    return (double)zm_arch_time_ns() * 1e-9;
}
ZM_WEAK(Wtime)

double PMPI_Wtick(void)
{
    return zm_arch_time_resolution();
}
ZM_WEAK(Wtick)

int PMPI_Get_processor_name(char *name, int *resultlen)
{
    zm_arch_hostname(name, MPI_MAX_PROCESSOR_NAME);
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}
ZM_WEAK(Get_processor_name)

int PMPI_Get_version(int *version, int *subversion)
{
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}
ZM_WEAK(Get_version)

int PMPI_Get_library_version(char *version, int *resultlen)
{
    /* What is there and what is not: MPI_VERSION can only name the highest
     * level whose every function exists (mpi.h). */
    int n = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
                     "zmpi %s: virtual ranks as user-level threads, in one process or several "
                     "over the system MPI. Every C function of MPI 4.1: point-to-point, "
                     "partitioned, collectives, communicators, topologies, caching, info, "
                     "errors, sessions, dynamic processes (spawned ranks are new virtual "
                     "ranks of the job), one-sided, MPI-IO, large counts, "
                     "MPI_T with events, MPI_THREAD_MULTIPLE (threads the ranks create, "
                     "OpenMP inside ranks); Fortran mpif.h, mpi and mpi_f08 when built with "
                     "gfortran. Across processes: files, windows, partitioned communication, "
                     "spawning, ports and joins, shared windows between the processes of a "
                     "node, job-wide deadlock reports; refused: shared windows across nodes.",
                     ZMPI_VERSION_STRING);
    *resultlen = n < MPI_MAX_LIBRARY_VERSION_STRING ? n : MPI_MAX_LIBRARY_VERSION_STRING - 1;
    return MPI_SUCCESS;
}
ZM_WEAK(Get_library_version)
