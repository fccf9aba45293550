/*
 * spawn.c: MPI_Comm_spawn, MPI_Comm_spawn_multiple and MPI_Comm_get_parent
 * (MPI 4.1 section 11.8): spawned ranks are new virtual ranks (user-level
 * threads) of the running job, with their own MPI_COMM_WORLD.
 *
 * The root of the spawning communicator does all the work: it checks the
 * commands, reserves ULT ids (src/ult keeps spare records, so per-rank
 * arrays never move), draws the contexts, sets up each child's API state
 * and starts its ULT.  It then broadcasts the outcome to the other
 * parents, and every parent builds its side of the intercommunicator;
 * each child builds its side before its main runs.  Contexts drawn per
 * spawn (8, from the process-wide counter): base and base+1 for the
 * intercommunicator, base+2/3 the parents' hidden local communicator,
 * base+4/5 the children's, base+6/7 the children's MPI_COMM_WORLD.
 *
 * A command that is the running program gets new private copies of it
 * the way the launcher makes them; another program linked by zmpicc for
 * privatization is loaded the same way from its file; anything else is
 * refused with MPI_ERR_SPAWN and the reason (docs/spawn.md).
 */
#include "inter_impl.h"
#include "spawn.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What all the children of one spawn share.  Lives as long as the job
 * (the groups are marked predefined: the children's worlds use them). */
struct spawn_grp {
    struct zmpi_group *pgroup;   /* the parents, in rank order of the spawning comm */
    struct zmpi_group *cgroup;   /* the children, in their world's rank order */
    uint32_t base;               /* first of the 8 contexts (see above) */
};

/* One spawned rank.  Made by the parents' root before the ULT starts;
 * lives as long as the job. */
struct child {
    struct spawn_grp *g;
    int appnum;                  /* index of its command (MPI_APPNUM) */
    int argc;
    char **argv;                 /* command, then the arguments; owned */
    char *path;                  /* program file, or NULL: the running program */
    struct zmpi_comm *parent;    /* its side of the intercommunicator (Comm_get_parent) */
};

/* Children by ULT id (zm_ult_capacity entries), allocated at the first
 * spawn; an entry is written once, before that child runs. */
static struct child **_Atomic children;

static struct child **child_table(void)
{
    struct child **t = atomic_load(&children);
    if (t)
        return t;
    t = calloc((size_t)zm_ult_capacity(), sizeof(*t));
    struct child **expect = NULL;
    if (t && !atomic_compare_exchange_strong(&children, &expect, t)) {
        free(t);
        t = expect;
    }
    return t;
}

/* The calling rank's record if it was spawned, else NULL. */
static struct child *me_child(void)
{
    struct child **t = atomic_load(&children);
    zm_ult_t *u = zm_ult_self();
    return t && u ? t[u->id] : NULL;
}

int *zm_mpi_spawn_appnum(void)
{
    static int zero = 0;
    struct child *ch = me_child();
    return ch ? &ch->appnum : &zero;
}

/* ---- The children ----------------------------------------------------- */

/* Body of a spawned rank's ULT: its side of the parent intercommunicator,
 * then the program's main with its own argv (a copy: getopt and MPI_Init
 * may permute it). */
static void child_entry(zm_ult_t *u, void *arg)
{
    struct child *ch = arg;
    struct spawn_grp *g = ch->g;
    zm_mpi_group_ref(g->cgroup);
    zm_mpi_group_ref(g->pgroup);
    ch->parent = zm_mpi_intercomm_new(MPI_ERRORS_ARE_FATAL, g->cgroup, g->pgroup, g->base,
                                      g->base + 4, u->id);
    if (ch->parent)
        snprintf(ch->parent->name, sizeof ch->parent->name, "MPI_COMM_PARENT");
    char **argv = malloc(sizeof(char *) * (size_t)(ch->argc + 1));
    int (*main_fn)(int, char **, char **) = NULL;
    char **envp = NULL;
    const char *prog = NULL;
    char err[512];
    if (!argv || !ch->parent) {
        fprintf(stderr, "zmpi: rank %d: out of memory starting a spawned rank\n", u->id);
        zm_ult_exit(1);
    }
    memcpy(argv, ch->argv, sizeof(char *) * (size_t)(ch->argc + 1));
    zm_mpi_launch_body(&main_fn, &envp, &prog);
    if (!ch->path) {
        zm_ult_exit(main_fn(ch->argc, argv, envp));
        return;
    }
    void *img = zm_arch_image_load(ch->path, u->id, err, sizeof err);
    main_fn = img ? (int (*)(int, char **, char **))zm_arch_image_main(img) : NULL;
    if (!main_fn) {
        fprintf(stderr, "zmpi: rank %d (spawned %s): %s\n", u->id, ch->path,
                img ? "the program has no main function" : err);
        zm_ult_exit(1);
    }
    int status = main_fn(ch->argc, argv, envp);
    zm_arch_image_close(img);
    zm_ult_exit(status);
}

/* ---- Planning a spawn at the root -------------------------------------- */

/* One command of a spawn as the root resolved it. */
struct cmd {
    const char *given;           /* the command as passed */
    char **args;                 /* its argv (NULL-terminated) or NULL */
    int maxprocs;
    int n;                       /* ranks to start (soft may lower it) */
    char *path;                  /* resolved file; NULL: the running program */
    int cls;                     /* MPI_SUCCESS or why it cannot start */
    char why[512];
};

/* Nonzero if file `path` is the running program. */
static int same_as_self(const char *path)
{
    struct stat a, b;
    return stat(path, &a) == 0 && stat("/proc/self/exe", &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

/* Value of `key` in info (or NULL when absent); buf holds it. */
static const char *info_val(MPI_Info info, const char *key, char *buf, int len)
{
    int flag = 0;
    if (info == MPI_INFO_NULL || PMPI_Info_get(info, key, len - 1, buf, &flag) != MPI_SUCCESS ||
        !flag)
        return NULL;
    return buf;
}

/* Find command c->given: as a path if it has a slash, else in the info's
 * "path" directories, then in $PATH.  The running program counts as
 * itself only when zmpi's launcher started it: a program that loaded
 * libzmpi on its own (a Python interpreter running mpi4py, whose
 * sys.executable is the running program) is checked like any other file,
 * so spawning it fails at once with the reason instead of starting ranks
 * that cannot exist. */
static void cmd_resolve(struct cmd *c, MPI_Info info)
{
    char buf[MPI_MAX_INFO_VAL + 1], file[4096];
    const char *self_prog = NULL;
    int (*mf)(int, char **, char **);
    char **envp;
    int launched = zm_mpi_launch_body(&mf, &envp, &self_prog) == 0;
    if (launched && self_prog && strcmp(c->given, self_prog) == 0)
        return; /* argv[0]: the running program */
    const char *dirs[2] = { info_val(info, "path", buf, sizeof buf), getenv("PATH") };
    c->path = NULL;
    if (strchr(c->given, '/')) {
        c->path = strdup(c->given);
    } else {
        for (int d = 0; d < 2 && !c->path; d++) {
            for (const char *p = dirs[d]; p && *p && !c->path;) {
                size_t l = strcspn(p, ":");
                snprintf(file, sizeof file, "%.*s/%s", (int)l, l ? p : ".", c->given);
                if (access(file, X_OK) == 0)
                    c->path = strdup(file);
                p += l + (p[l] == ':');
            }
        }
        if (!c->path) {
            c->cls = MPI_ERR_SPAWN;
            snprintf(c->why, sizeof c->why, "command \"%s\": not found in the info key "
                     "\"path\" nor in PATH", c->given);
            return;
        }
    }
    int self = same_as_self(c->path);
    if (self && launched) {
        free(c->path);
        c->path = NULL;
        return;
    }
    char why[300];
    if (zm_arch_image_probe(c->path, why, sizeof why) != 0) {
        const char *note = self ? " (the running program, which loaded libzmpi itself)" : "";
        c->cls = MPI_ERR_SPAWN;
        if (strcmp(c->given, c->path) == 0)
            snprintf(c->why, sizeof c->why, "command \"%.240s\"%s: %.160s", c->given, note,
                     why);
        else
            snprintf(c->why, sizeof c->why, "command \"%.120s\" (%.120s)%s: %.160s", c->given,
                     c->path, note, why);
        free(c->path);
        c->path = NULL;
    }
}

/* The largest count the info's "soft" key allows that is at most `max`
 * (MPI 4.1 section 11.8.4: a list of a, a:b and a:b:c), or -1. */
static int soft_best(const char *soft, int max)
{
    int best = -1;
    for (const char *p = soft; p && *p;) {
        long a = strtol(p, (char **)&p, 10), b = a, st = 1;
        if (*p == ':') {
            b = strtol(p + 1, (char **)&p, 10);
            if (*p == ':')
                st = strtol(p + 1, (char **)&p, 10);
        }
        for (long v = a; st > 0 && v <= b; v += st)
            if (v >= 0 && v <= max && v > best)
                best = (int)v;
        if (*p != ',')
            break;
        p++;
    }
    return best;
}

/* Check the info keys the root honours: "wdir" must name the current
 * directory (the working directory is one per process, shared by every
 * rank), "soft" may lower the count when the spare ULT records do not
 * suffice.  Unknown keys ("host", "arch", "file", ...) are ignored, as
 * the standard allows. */
static void cmd_info(struct cmd *c, MPI_Info info)
{
    char buf[MPI_MAX_INFO_VAL + 1];
    const char *wdir = info_val(info, "wdir", buf, sizeof buf);
    struct stat a, b;
    if (wdir && (stat(wdir, &a) != 0 || stat(".", &b) != 0 || a.st_dev != b.st_dev ||
                 a.st_ino != b.st_ino)) {
        c->cls = MPI_ERR_SPAWN;
        snprintf(c->why, sizeof c->why, "command \"%s\": info key wdir=\"%.200s\" %s", c->given,
                 wdir, stat(wdir, &a) != 0 ? "does not exist"
                 : "is not the current directory: spawned ranks are threads of this process, "
                   "which has one working directory for all its ranks");
    }
}

/* Check and resolve the commands at the root and decide how many ranks
 * each gets.  Returns MPI_SUCCESS or an error class with the message in
 * msg; *nerr receives the number of error codes (the sum of maxprocs). */
static int root_plan(struct cmd *cmds, int count, char *cmdv[], char **argvs[],
                     const int maxprocs[], const MPI_Info infos[], int *nerr, char *msg,
                     size_t len)
{
    char buf[MPI_MAX_INFO_VAL + 1];
    int total = 0, cls = MPI_SUCCESS;
    *nerr = 0;
    for (int i = 0; i < count; i++) {
        struct cmd *c = &cmds[i];
        if (!cmdv[i] || maxprocs[i] < 0) {
            snprintf(msg, len, "(%s[%d]%s): %s", cmdv[i] ? "maxprocs" : "command", i,
                     cmdv[i] ? "" : "=NULL", cmdv[i] ? "negative count" : "invalid pointer");
            return MPI_ERR_ARG;
        }
        c->given = cmdv[i];
        c->args = argvs ? argvs[i] : NULL;
        c->maxprocs = c->n = maxprocs[i];
        MPI_Info info = infos ? infos[i] : MPI_INFO_NULL;
        const char *soft = info_val(info, "soft", buf, sizeof buf);
        if (soft && (c->n = soft_best(soft, c->maxprocs)) < 0) {
            c->cls = MPI_ERR_SPAWN;
            snprintf(c->why, sizeof c->why, "command \"%s\": the info key soft=\"%.100s\" allows "
                     "no count up to maxprocs=%d", c->given, soft, c->maxprocs);
        }
        if (c->cls == MPI_SUCCESS)
            cmd_resolve(c, info);
        if (c->cls == MPI_SUCCESS)
            cmd_info(c, info);
        if (c->cls != MPI_SUCCESS && cls == MPI_SUCCESS) {
            cls = c->cls;
            snprintf(msg, len, "%s", c->why);
        }
        *nerr += c->maxprocs;
        total += c->n;
    }
    if (cls != MPI_SUCCESS)
        return cls;
    if (total == 0) {
        snprintf(msg, len, "(maxprocs): nothing to spawn (every count is 0)");
        return MPI_ERR_ARG;
    }
    if (!zm_ult_in_job() && zm_ult_job_scheduled()) {
        /* New ranks join the caller's worker, which a thread the rank
         * created does not have. */
        snprintf(msg, len, "called from a thread the rank created: in zmpi only the rank's "
                 "own thread can start ranks");
        return MPI_ERR_UNSUPPORTED_OPERATION;
    }
    if (!zm_ult_in_job()) {
        snprintf(msg, len, "this program was not started by zmpi's launcher (Python, or "
                 "mpiexec): it is one rank on its own thread and cannot start ranks");
        return MPI_ERR_UNSUPPORTED_OPERATION;
    }
    /* Only "soft" may start fewer than asked. */
    int spare = zm_ult_spare_left();
    for (int i = 0; i < count && total > spare; i++) {
        const char *soft = info_val(infos ? infos[i] : MPI_INFO_NULL, "soft", buf, sizeof buf);
        int want = cmds[i].n - (total - spare);
        int best = soft ? soft_best(soft, want > 0 ? want : 0) : -1;
        if (best >= 0) {
            total -= cmds[i].n - best;
            cmds[i].n = best;
        }
    }
    if (total > spare) {
        snprintf(msg, len, "(maxprocs): %d more ranks asked, but only %d of the job's spare "
                 "rank records are left%s (set ZMPI_SPAWN_MAX, default %d for the whole job, to "
                 "allow more spawned ranks over the job's life)", total, spare,
                 zm_net_job.nprocs > 1 ? " in this process" : "", ZM_ULT_SPAWN_DEFAULT);
        return MPI_ERR_SPAWN;
    }
    return MPI_SUCCESS;
}

/* The group of the n ids one zm_ult_reserve returned from `first` (in a
 * job of several processes they are zm_ult_id_stride() apart). */
static struct zmpi_group *id_range(int first, int n)
{
    struct zmpi_group *g = zm_mpi_group_new(n);
    for (int i = 0; g && i < n; i++)
        g->world[i] = first + i * zm_ult_id_stride();
    return g;
}

/* A copy of a command's argv behind the command itself (the child's
 * argv[0]), NULL-terminated; *argc receives its length. */
static char **argv_copy(const char *cmd, char **args, int *argc)
{
    int n = 0;
    while (args && args[n])
        n++;
    char **v = malloc(sizeof(char *) * (size_t)(n + 2));
    if (!v)
        return NULL;
    v[0] = strdup(cmd);
    for (int i = 0; i < n; i++)
        v[i + 1] = strdup(args[i]);
    v[n + 1] = NULL;
    for (int i = 0; i <= n; i++)
        if (!v[i])
            return NULL;
    *argc = n + 1;
    return v;
}

/* Set up and start child `idx` of spawn g (ULT id), running command c.
 * Returns 0, or -1 if out of memory. */
static int child_start(struct spawn_grp *g, struct cmd *c, int appnum, int idx, int id)
{
    struct child **tab = child_table();
    struct child *ch = calloc(1, sizeof(*ch));
    zm_mpi_rank_t *m = calloc(1, sizeof(*m));
    if (!tab || !ch || !m || !(ch->argv = argv_copy(c->given, c->args, &ch->argc)) ||
        (c->path && !(ch->path = strdup(c->path)))) {
        free(ch);
        free(m);
        return -1;
    }
    ch->g = g;
    ch->appnum = appnum;
    m->world_rank = id;
    zm_mpi_comm_init_predef(&m->world, g->base + 6, idx, g->cgroup->size, g->cgroup->world,
                            "MPI_COMM_WORLD");
    m->world.group = g->cgroup;
    zm_mpi_comm_init_predef(&m->self, 2, 0, 1, &m->world_rank, "MPI_COMM_SELF");
    zm_ult_get(id)->user = m;
    zm_p2p_rank_open(id);
    tab[id] = ch;
    if (zm_ult_launch(id, child_entry, ch) != 0) {
        /* Its siblings may already run and would wait for it forever. */
        fprintf(stderr, "zmpi: rank %d: cannot map a stack for spawned rank %d; ending the "
                "job\n", zm_mpi_me()->world_rank, id);
        fflush(NULL);
        _exit(1);
    }
    return 0;
}

/* Start the planned children.  Returns MPI_SUCCESS (with *first and *base
 * set) or an error class with the message in msg. */
static int root_start(zm_mpi_rank_t *me, struct zmpi_comm *c, struct cmd *cmds, int count,
                      int *first, uint32_t *base, char *msg, size_t len)
{
    int total = 0;
    for (int i = 0; i < count; i++)
        total += cmds[i].n;
    struct spawn_grp *g = calloc(1, sizeof(*g));
    *first = zm_ult_reserve(total);
    if (*first < 0) {
        free(g);
        snprintf(msg, len, "(maxprocs): the job's spare rank records are used up (set "
                 "ZMPI_SPAWN_MAX to allow more)");
        return MPI_ERR_SPAWN;
    }
    if (g) {
        /* The process's, never freed (the spawned ranks' parent
         * communicators use them), also after the caller moves away. */
        g->pgroup = zm_mpi_group_share(zm_mpi_comm_members(me, c));
        g->cgroup = zm_mpi_group_share(id_range(*first, total));
    }
    if (!g || !g->pgroup || !g->cgroup) {
        snprintf(msg, len, "out of memory");
        return MPI_ERR_NO_MEM; /* the reserved ids stay unused */
    }
    g->base = *base = zm_mpi_ctx_draw(8);
    for (int i = 0, idx = 0; i < count; i++)
        for (int k = 0; k < cmds[i].n; k++, idx++)
            if (child_start(g, &cmds[i], i, idx, g->cgroup->world[idx]) != 0) {
                fprintf(stderr, "zmpi: rank %d: out of memory spawning rank %d; ending the "
                        "job\n", me->world_rank, g->cgroup->world[idx]);
                fflush(NULL);
                _exit(1);
            }
    return MPI_SUCCESS;
}

/* ---- The calls ------------------------------------------------------------ */

/* What the root tells the other parents. */
enum { H_CLS, H_FIRST, H_N, H_BASE, H_NERR, H_LEN };

/* The root's part: plan and start; fills hdr, *codes (malloc'd, hdr[H_NERR]
 * entries) and msg. */
static void root_part(zm_mpi_rank_t *me, struct zmpi_comm *c, int count, char *cmdv[],
                      char **argvs[], const int maxprocs[], const MPI_Info infos[], int *hdr,
                      int **codes, char *msg, size_t len)
{
    struct cmd *cmds = calloc((size_t)(count > 0 ? count : 1), sizeof(*cmds));
    int nerr = 0, cls = cmds ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    if (!cmds)
        snprintf(msg, len, "out of memory");
    if (cls == MPI_SUCCESS)
        cls = root_plan(cmds, count, cmdv, argvs, maxprocs, infos, &nerr, msg, len);
    *codes = malloc(sizeof(int) * (size_t)(nerr > 0 ? nerr : 1));
    if (!*codes && cls == MPI_SUCCESS) {
        cls = MPI_ERR_NO_MEM;
        snprintf(msg, len, "out of memory");
    }
    int first = 0;
    uint32_t base = 0;
    if (cls == MPI_SUCCESS)
        cls = root_start(me, c, cmds, count, &first, &base, msg, len);
    hdr[H_CLS] = cls;
    hdr[H_FIRST] = first;
    hdr[H_N] = 0;
    hdr[H_BASE] = (int)base;
    hdr[H_NERR] = *codes ? nerr : 0;
    for (int i = 0, e = 0; cmds && *codes && i < count; i++)
        for (int k = 0; k < cmds[i].maxprocs; k++, e++) {
            int started = cls == MPI_SUCCESS && k < cmds[i].n;
            (*codes)[e] = started ? MPI_SUCCESS : cmds[i].cls ? cmds[i].cls : cls ? cls
                                                                             : MPI_ERR_SPAWN;
            hdr[H_N] += started;
        }
    for (int i = 0; cmds && i < count; i++)
        free(cmds[i].path);
    free(cmds);
}

/* Give every parent the root's outcome: the header, the error codes
 * (*codes, malloc'd here except at the root) and, on failure, the
 * message. */
static zm_status_t share_outcome(struct zmpi_comm *c, int root, int *hdr, int **codes,
                                 char *msg, size_t len)
{
    struct zm_coll_shm *cs = zm_mpi_coll_shm(c);
    zm_status_t st = cs ? zm_coll_bcast(cs, c->p.rank, hdr, H_LEN, MPI_INT, root) : ZM_ERR_NOMEM;
    if (st == ZM_OK && c->p.rank != root)
        *codes = malloc(sizeof(int) * (size_t)(hdr[H_NERR] > 0 ? hdr[H_NERR] : 1));
    if (st == ZM_OK)
        st = *codes ? zm_coll_bcast(cs, c->p.rank, *codes, (size_t)hdr[H_NERR], MPI_INT, root)
                    : ZM_ERR_NOMEM;
    if (st == ZM_OK && hdr[H_CLS] != MPI_SUCCESS)
        st = zm_coll_bcast(cs, c->p.rank, msg, len, MPI_CHAR, root);
    return st;
}

int zm_mpi_dyn_root_check(struct zmpi_comm *c, const char *fn, int root)
{
    if (c->inter)
        return zm_mpi_error(c, MPI_ERR_COMM, fn, "(comm): must be an intracommunicator");
    if (root < 0 || root >= c->p.size)
        return zm_mpi_error(c, MPI_ERR_ROOT, fn, "(root=%d): invalid root, comm has %d ranks",
                            root, c->p.size);
    return MPI_SUCCESS;
}

/* Comm_spawn and Comm_spawn_multiple: collective over intracommunicator
 * comm; the arguments but root and comm are significant at the root only. */
static int spawn_common(const char *fn, int count, char *cmdv[], char **argvs[],
                        const int maxprocs[], const MPI_Info infos[], int root, MPI_Comm comm,
                        MPI_Comm *intercomm, int errcodes[])
{
    ENTER_COMM(fn, comm, c);
    if ((rc = zm_mpi_dyn_root_check(c, fn, root)) != MPI_SUCCESS)
        return rc;
    if (!intercomm)
        return zm_mpi_error(c, MPI_ERR_ARG, fn, "(intercomm=NULL): invalid pointer");
    *intercomm = MPI_COMM_NULL;
    int hdr[H_LEN] = { 0, 0, 0, 0, 0 }, *codes = NULL;
    char msg[512] = "";
    if (c->p.rank == root && (count <= 0 || !cmdv || !maxprocs)) {
        hdr[H_CLS] = MPI_ERR_ARG;
        snprintf(msg, sizeof msg, "(%s): %s", count <= 0 ? "count" : "commands/maxprocs",
                 count <= 0 ? "must be positive" : "NULL");
    } else if (c->p.rank == root) {
        root_part(me, c, count, cmdv, argvs, maxprocs, infos, hdr, &codes, msg, sizeof msg);
    }
    zm_p2p_self()->wait_call = fn;
    zm_status_t st = share_outcome(c, root, hdr, &codes, msg, sizeof msg);
    if (st == ZM_OK && errcodes && codes)
        memcpy(errcodes, codes, sizeof(int) * (size_t)hdr[H_NERR]);
    free(codes);
    if (st != ZM_OK)
        return zm_mpi_error(c, zm_mpi_class_of(st), fn, "distributing the outcome of the spawn "
                            "from the root failed");
    if (hdr[H_CLS] != MPI_SUCCESS)
        return zm_mpi_error(c, hdr[H_CLS], fn, "%s%s", c->p.rank == root ? "" : "at the root: ",
                            msg);
    struct zmpi_group *lg = zm_mpi_comm_members(me, c), *rg = id_range(hdr[H_FIRST], hdr[H_N]);
    struct zmpi_comm *n = lg && rg ? zm_mpi_intercomm_new(c->eh, lg, rg, (uint32_t)hdr[H_BASE],
                                                          (uint32_t)hdr[H_BASE] + 2,
                                                          me->world_rank)
                                   : NULL;
    if (!n) {
        if (!lg || !rg) {
            zm_mpi_group_unref(lg);
            zm_mpi_group_unref(rg);
        }
        return zm_mpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory (the children run)");
    }
    *intercomm = n;
    return MPI_SUCCESS;
}

int PMPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
                    MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[])
{
    char *cmdv[1] = { (char *)command };
    char **argvs[1] = { argv };
    return spawn_common("MPI_Comm_spawn", 1, cmdv, argvs, &maxprocs, &info, root, comm,
                        intercomm, array_of_errcodes);
}
ZM_WEAK(Comm_spawn)

int PMPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                             const int array_of_maxprocs[], const MPI_Info array_of_info[],
                             int root, MPI_Comm comm, MPI_Comm *intercomm,
                             int array_of_errcodes[])
{
    return spawn_common("MPI_Comm_spawn_multiple", count, array_of_commands, array_of_argv,
                        array_of_maxprocs, array_of_info, root, comm, intercomm,
                        array_of_errcodes);
}
ZM_WEAK(Comm_spawn_multiple)

int PMPI_Comm_get_parent(MPI_Comm *parent)
{
    const char *fn = "MPI_Comm_get_parent";
    zm_mpi_enter(fn);
    if (!parent)
        return zm_mpi_error(NULL, MPI_ERR_ARG, fn, "(parent=NULL): invalid pointer");
    struct child *ch = me_child();
    struct zmpi_comm *p = ch ? ch->parent : NULL;
    /* Freed or disconnected, it is MPI_COMM_NULL (MPI 4.1 section 11.8.2);
     * a recycled object has another context. */
    if (p && (p->magic != ZM_COMM_MAGIC || !p->inter || p->p.ctx != ch->g->base ||
              p->rgroup != ch->g->pgroup))
        p = NULL;
    *parent = p ? p : MPI_COMM_NULL;
    return MPI_SUCCESS;
}
ZM_WEAK(Comm_get_parent)
