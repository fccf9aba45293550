/*
 * net_job.c: the job's shape at start: who launched this process, how
 * many ranks each process holds and in which order (the placement
 * tables of net.h, also rewritten by a move across processes), which
 * processes share a node, and the message when a launcher started
 * several processes but no backend loads.  zm_net_init (net.c) calls
 * these once, on the main thread, before any rank runs.
 */
#include "net/net_impl.h"
#include "ult/ult.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Who started this process, from the environment: the launcher's name,
 * the backend it implies, and the number of processes it says it started
 * (0 when no launcher's variables are there). */
int zm_net_job_launcher(const char **launcher, const char **backend)
{
    static const struct { const char *var, *launcher, *backend; } known[] = {
        { "PMI_SIZE", "MPICH's mpiexec (hydra)", "mpich" },
        { "OMPI_COMM_WORLD_SIZE", "Open MPI's mpiexec", "openmpi" },
        { "PMIX_SIZE", "a PMIx launcher", "openmpi" },
        { "SLURM_NTASKS", "Slurm's srun", "mpich" },
    };
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        const char *v = getenv(known[i].var);
        if (v && *v) {
            *launcher = known[i].launcher;
            *backend = known[i].backend;
            return atoi(v);
        }
    }
    *launcher = NULL;
    *backend = NULL;
    return 0;
}

/* The process of world rank w at the start: blocks of n / nprocs ranks (the
 * first n % nprocs processes one more), or dealt in turn. */
static int start_proc_of(const zm_net_job_t *j, int w)
{
    int q = j->nranks / j->nprocs, rem = j->nranks % j->nprocs;
    if (j->order == ZM_NET_ORDER_INTERLEAVE)
        return w % j->nprocs;
    int big = rem * (q + 1);
    return w < big ? w / (q + 1) : rem + (w - big) / q;
}

/* Fill the placement tables of a job of several processes (zm_net_job's
 * proc_of, local, nlocal and zm_net_remote, spare ids included) from the
 * start order.  Returns -1 when out of memory. */
static int placement_start(zm_net_job_t *j, long spare)
{
    int n = j->nranks;
    int *proc = malloc(sizeof(int) * (size_t)n), *local = malloc(sizeof(int) * (size_t)n);
    uint8_t *rm = malloc((size_t)(n + spare));
    if (!proc || !local || !rm) {
        free(proc);
        free(local);
        free(rm);
        return -1;
    }
    j->nlocal = 0;
    for (int w = 0; w < n; w++) {
        proc[w] = start_proc_of(j, w);
        if (proc[w] == j->proc)
            local[j->nlocal++] = w;
    }
    j->proc_of = proc;
    j->local = local;
    for (long w = 0; w < n + spare; w++)
        rm[w] = zm_net_proc_of((int)w) != j->proc;
    zm_net_remote = rm;
    return 0;
}

void zm_net_placement_set(const int *proc_of)
{
    zm_net_job_t *j = &zm_net_job;
    /* The tables are this file's own malloc'd arrays (placement_start):
     * const only to the readers. */
    int *proc = (int *)j->proc_of, *local = (int *)j->local;
    uint8_t *rm = (uint8_t *)zm_net_remote;
    j->nlocal = 0;
    for (int w = 0; w < j->nranks; w++) {
        proc[w] = proc_of[w];
        rm[w] = proc[w] != j->proc;
        if (!rm[w])
            local[j->nlocal++] = w;
    }
}

/* Number the world ranks over the processes and mark the remote ones. */
int zm_net_job_layout(int np_env)
{
    zm_net_job_t *j = &zm_net_job;
    long per = zm_core_env_long("ZMPI_RANKS_PER_PROC", 0, 1);
    long n = np_env > 0 ? np_env : (per ? per : 1) * (long)j->nprocs;
    if (per && np_env > 0 && n != per * (long)j->nprocs) {
        fprintf(stderr, "zmpi: ZMPI_NP=%d and ZMPI_RANKS_PER_PROC=%ld disagree for %d "
                "processes (set one of them)\n", np_env, per, j->nprocs);
        return -1;
    }
    if (n < j->nprocs) {
        fprintf(stderr, "zmpi: %ld ranks cannot fill %d processes: give each process a rank "
                "at least (ZMPI_NP or ZMPI_RANKS_PER_PROC)\n", n, j->nprocs);
        return -1;
    }
    const char *ord = getenv("ZMPI_RANK_ORDER");
    if (ord && *ord && strcmp(ord, "block") != 0 && strcmp(ord, "interleave") != 0) {
        fprintf(stderr, "zmpi: ZMPI_RANK_ORDER=%s is neither block nor interleave\n", ord);
        return -1;
    }
    j->order = ord && strcmp(ord, "interleave") == 0 ? ZM_NET_ORDER_INTERLEAVE
                                                     : ZM_NET_ORDER_BLOCK;
    j->nranks = (int)n;
    /* Spare ids for spawned ranks, dealt to the processes in turn. */
    long spare = zm_core_env_long("ZMPI_SPAWN_MAX", ZM_ULT_SPAWN_DEFAULT, 0);
    if (spare > 0x7fffffffL - n)
        spare = 0x7fffffffL - n;
    j->spare = (int)spare;
    if (j->nprocs == 1) {
        j->nlocal = j->nranks;
        return 0;
    }
    return placement_start(j, spare);
}

/* Which processes share a node: the same host name (ZMPI_NET_SEPARATE=1:
 * none). */
int zm_net_job_node_map(void)
{
    enum { HOST = 256 };
    zm_net_job_t *j = &zm_net_job;
    char mine[HOST];
    char *all = malloc((size_t)HOST * (size_t)j->nprocs);
    int *node = malloc(sizeof(int) * (size_t)j->nprocs);
    if (!all || !node)
        return -1;
    memset(mine, 0, sizeof(mine));
    zm_arch_hostname(mine, sizeof(mine) - 1);
    /* zmpirun --separate-nodes: every process is a node of its own, so
     * nothing is shared between processes, as between real nodes. */
    const char *sep = getenv("ZMPI_NET_SEPARATE");
    if (sep && atoi(sep) > 0) {
        size_t len = strlen(mine);
        snprintf(mine + len, sizeof(mine) - len, "#%d", j->proc);
    }
    if (zm_net_be()->allgather(mine, HOST, all) != 0)
        zm_net_fatal("the start-up exchange of host names");
    j->nnodes = 0;
    for (int p = 0; p < j->nprocs; p++) {
        node[p] = -1;
        for (int q = 0; q < p && node[p] < 0; q++)
            if (strcmp(all + (size_t)q * HOST, all + (size_t)p * HOST) == 0)
                node[p] = node[q];
        if (node[p] < 0)
            node[p] = j->nnodes++;
    }
    free(all);
    j->node = node;
    return 0;
}

/* A launcher started several processes but no backend could be loaded. */
void zm_net_job_no_backend(const char *launcher, int nprocs, const char *name, const char *why)
{
    fprintf(stderr,
            "zmpi: this program was started by %s as one of %d processes, but zmpi's "
            "network backend for %s could not be loaded: %s\n"
            "zmpi: without it the processes would run as %d separate one-rank jobs, so "
            "zmpi stops here.  Fix: build zmpi where the system MPI's development files "
            "are installed (Debian: libmpich-dev or libopenmpi-dev), so that "
            "libzmpi_net_%s.so is built and installed beside libzmpi; or point "
            "ZMPI_NET_MODULE at it; or choose the backend of the launcher you used with "
            "ZMPI_NET=mpich|openmpi; or set ZMPI_NET=none to run %d independent jobs on "
            "purpose.\n",
            launcher, nprocs, name, why, nprocs, name, nprocs);
}
