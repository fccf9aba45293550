/* zmpirun: start an MPI program built against zmpi.
 *
 * zmpi runs the virtual ranks of a job as user-level threads inside one OS
 * process, so "launching" a job only means describing its shape to the library
 * through the environment (ZMPI_NP, ZMPI_WORKERS, ZMPI_STACK_SIZE) and running
 * the program once.  A job of several processes (-p) runs the program through
 * the system MPI's own launcher (mpiexec.mpich by default), which starts the
 * processes; the library then connects them over the system MPI (src/net/).  What remains for the launcher is the part users expect
 * from mpiexec: argument checking, a clean exit status, a job time limit
 * (MPIEXEC_TIMEOUT) and passing Ctrl-C or a batch system's SIGTERM on to the
 * job.
 *
 * A program that is not linked with zmpi (hostname, a shell script, a
 * Python interpreter) runs as N copies, as mpirun runs it, unless it only
 * wraps one that is (valgrind ./app, env X=1 ./app): see zr_runs_zmpi().
 *
 * The program runs in a child process that leads its own process group, so
 * that a signal can reach everything the program started (helpers, shells)
 * and not only the program itself.  The parent blocks the signals it cares
 * about and waits for them with sigtimedwait(): no handlers, no sleep loops,
 * and the time limit is simply the wait's timeout.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/personality.h>
#include <sys/prctl.h>
#endif
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "zmpirun.h"

/* Exit status for bad usage, following the convention of most Unix tools. */
#define EXIT_USAGE 2
/* Exit status after the job ran out of time, as timeout(1) uses. */
#define EXIT_TIMEOUT 124
/* Seconds between SIGTERM and SIGKILL when the time limit ends a job: long
 * enough for a program to flush its output, short enough for a test suite. */
#define KILL_GRACE_SECONDS 2

/* What the command line asked for; NULL fields were not given. */
struct options {
    const char *np;          /* -n/-np value as typed. */
    const char *workers;     /* -w/--workers value as typed. */
    const char *stack_size;  /* --stack-size value as typed. */
    const char *procs;       /* -p/--procs value as typed. */
    const char *order;       /* --rank-order value (--interleave: "interleave"). */
    const char *net;         /* --net value. */
    int separate;            /* --separate-nodes: the network path only. */
    int tag;                 /* --tag-output (-l, -prepend-rank): "[rank] " lines. */
    const char *lb;          /* --lb value: ZMPI_Migrate's default strategy. */
    int lb_report;           /* --lb-report: print each migration step's loads. */
    const char *steal;       /* --steal "1" / --no-steal "0". */
    int checkpoint;          /* --checkpoint: ZMPI_Checkpoint may be called. */
    const char *restart;     /* --restart DIR: resume the checkpoint in DIR. */
    char **argv;             /* The program and its arguments. */
};

static void print_usage(FILE *out)
{
    fputs("usage: zmpirun [-n N] [-w W] [-p P] [--stack-size S] [--] prog [args...]\n"
          "\n"
          "Runs prog as an MPI job of N virtual ranks scheduled on W worker\n"
          "threads inside one process, or inside each of P processes.\n"
          "\n"
          "  -n, -np N          number of ranks (default: $ZMPI_NP, else 1)\n"
          "  -w, --workers W    worker threads per process (default: $ZMPI_WORKERS,\n"
          "                     else the CPUs the process may run on)\n"
          "  -p, --procs P      processes, started by the system MPI's launcher\n"
          "                     (default: $ZMPI_PROCS, else 1); N/P ranks each\n"
          "  --interleave       number ranks round-robin over the processes\n"
          "  --rank-order O     block (default) or interleave ($ZMPI_RANK_ORDER)\n"
          "  --net B            system MPI between processes: mpich (default) or\n"
          "                     openmpi ($ZMPI_NET); $ZMPI_LAUNCHER replaces the\n"
          "                     launcher command (mpiexec.mpich, mpiexec.openmpi)\n"
          "  --separate-nodes   processes talk as if on separate nodes (the system\n"
          "                     MPI over TCP only, no shared memory between them)\n"
          "  --stack-size S     stack bytes per rank; suffixes k, m, g (x1024)\n"
          "                     (default: $ZMPI_STACK_SIZE, else the library's)\n"
          "  --tag-output       start every output line with \"[rank] \" (also\n"
          "                     -l, -prepend-rank, --prepend-rank; privatized\n"
          "                     programs, $ZMPI_TAG_OUTPUT=1)\n"
          "  --lb STRATEGY      default strategy of ZMPI_Migrate: greedy (default),\n"
          "                     refine, rotate or none ($ZMPI_LB); given, the ranks'\n"
          "                     busy time is measured from the start (none: never)\n"
          "  --lb-report        print per-worker loads before and after each\n"
          "                     migration step to stderr ($ZMPI_LB_REPORT=1)\n"
          "  --steal, --no-steal  idle workers take ready ranks of busy ones (default\n"
          "                     on; $ZMPI_STEAL=1 or 0)\n"
          "  --checkpoint       let the program take checkpoints (ZMPI_Checkpoint);\n"
          "                     one process, privatized programs\n"
          "  --restart DIR      resume the job checkpointed in DIR (its program,\n"
          "                     arguments and ranks; -w, -p and\n"
          "                     --rank-order may differ)\n"
          "  -h, --help         show this help\n"
          "\n"
          "A program not linked with zmpi (hostname, a script, python) runs as N\n"
          "copies, each with ZMPI_COPY=0..N-1 and only the first reading stdin,\n"
          "unless it wraps one that is (valgrind ./app, env X=1 ./app): then it\n"
          "runs once and the N ranks run inside it.\n"
          "\n"
          "MPIEXEC_TIMEOUT=T in the environment ends the job after T seconds\n"
          "(exit status 124).\n",
          out);
}

/* Reports a usage error and exits; never returns. */
static void usage_error(const char *fmt, const char *arg)
{
    fputs("zmpirun: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\nTry 'zmpirun --help' for more information.\n", stderr);
    exit(EXIT_USAGE);
}

/* Parses a positive decimal int, rejecting signs, junk and overflow, since a
 * silently truncated rank count would start a job of the wrong size. */
static int parse_positive(const char *s, long *out)
{
    char *end;
    long v;

    if (s == NULL || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < 1 || v > INT_MAX)
        return -1;
    *out = v;
    return 0;
}

/* Parses a byte count with an optional binary suffix (k, m, g). */
static int parse_size(const char *s, unsigned long long *out)
{
    char *end;
    unsigned long long v, scale = 1;

    if (s == NULL || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno != 0)
        return -1;
    switch (*end) {
    case '\0': break;
    case 'k': case 'K': scale = 1ULL << 10; end++; break;
    case 'm': case 'M': scale = 1ULL << 20; end++; break;
    case 'g': case 'G': scale = 1ULL << 30; end++; break;
    default: return -1;
    }
    if (*end != '\0' || v == 0 || v > ULLONG_MAX / scale)
        return -1;
    *out = v * scale;
    return 0;
}

/* Returns the value of an option that takes one, from "--opt=value" or from
 * the next argument, advancing *i past what it consumed. */
static const char *option_value(char **argv, int *i, const char *name)
{
    const char *eq = strchr(argv[*i], '=');

    if (eq != NULL && argv[*i][0] == '-' && argv[*i][1] == '-')
        return eq + 1;
    if (argv[*i + 1] == NULL)
        usage_error("option '%s' needs a value", name);
    *i += 1;
    return argv[*i];
}

/* True if arg is the option name, alone or as "name=value" (long forms). */
static int is_opt(const char *arg, const char *name)
{
    size_t n = strlen(name);

    if (strncmp(arg, name, n) != 0)
        return 0;
    return arg[n] == '\0' || (name[1] == '-' && arg[n] == '=');
}

static void parse_args(int argc, char **argv, struct options *o)
{
    int i;

    memset(o, 0, sizeof(*o));
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];

        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            print_usage(stdout);
            exit(0);
        } else if (strcmp(a, "-n") == 0 || strcmp(a, "-np") == 0 ||
                   is_opt(a, "--np")) {
            o->np = option_value(argv, &i, a);
        } else if (strcmp(a, "-w") == 0 || is_opt(a, "--workers")) {
            o->workers = option_value(argv, &i, "--workers");
        } else if (is_opt(a, "--stack-size")) {
            o->stack_size = option_value(argv, &i, "--stack-size");
        } else if (strcmp(a, "-p") == 0 || is_opt(a, "--procs")) {
            o->procs = option_value(argv, &i, "--procs");
        } else if (strcmp(a, "--interleave") == 0) {
            o->order = "interleave";
        } else if (is_opt(a, "--rank-order")) {
            o->order = option_value(argv, &i, "--rank-order");
        } else if (is_opt(a, "--net")) {
            o->net = option_value(argv, &i, "--net");
        } else if (strcmp(a, "--separate-nodes") == 0) {
            o->separate = 1;
        } else if (strcmp(a, "--tag-output") == 0 || strcmp(a, "-tag-output") == 0 ||
                   strcmp(a, "-l") == 0 || strcmp(a, "-prepend-rank") == 0 ||
                   strcmp(a, "--prepend-rank") == 0) {
            o->tag = 1;
        } else if (is_opt(a, "--lb")) {
            o->lb = option_value(argv, &i, "--lb");
        } else if (strcmp(a, "--lb-report") == 0) {
            o->lb_report = 1;
        } else if (strcmp(a, "--steal") == 0 || strcmp(a, "--no-steal") == 0) {
            o->steal = a[2] == 'n' ? "0" : "1";
        } else if (strcmp(a, "--checkpoint") == 0) {
            o->checkpoint = 1;
        } else if (is_opt(a, "--restart")) {
            o->restart = option_value(argv, &i, "--restart");
        } else if (strcmp(a, "--") == 0) {
            i++;
            break;
        } else if (a[0] == '-') {
            usage_error("unknown option '%s'", a);
        } else {
            break;
        }
    }
    if (i >= argc && !o->restart)
        usage_error("%s", "no program given");
    o->argv = argv + i;
}

static void put_env(const char *var, const char *value);

/* --restart DIR: the program, its arguments, the rank count and the stack
 * size come from the checkpoint (its files argv and job); the job runs
 * with ZMPI_RESTART=DIR.  A rank count given that differs is an error. */
static void restart_from(struct options *o)
{
    char path[PATH_MAX], line[256];
    static char np[32], stack[32], procs[32], order[32];
    snprintf(path, sizeof path, "%s/argv", o->restart);
    FILE *f = fopen(path, "r");
    if (!f)
        usage_error("cannot read the checkpoint in %s (no argv file there)", o->restart);
    static char buf[65536];
    size_t len = fread(buf, 1, sizeof buf - 1, f), n = 0;
    fclose(f);
    static char *args[1024];
    for (size_t at = 0; at < len && n + 1 < sizeof args / sizeof *args; at += strlen(buf + at) + 1)
        args[n++] = buf + at;
    if (n == 0)
        usage_error("the checkpoint in %s names no program", o->restart);
    args[n] = NULL;
    o->argv = args;
    snprintf(path, sizeof path, "%s/job", o->restart);
    f = fopen(path, "r");
    if (!f)
        usage_error("cannot read the checkpoint in %s (no job file)", o->restart);
    while (fgets(line, sizeof line, f)) {
        sscanf(line, "ranks %31s", np);
        sscanf(line, "stack %31s", stack);
        sscanf(line, "procs %31s", procs);
        sscanf(line, "order %31s", order);
    }
    fclose(f);
    /* A rank's memory lies at the same address in every process, so the
     * restarted job may spread the ranks over other processes than the
     * checkpointed one did (-p, --rank-order); by default it keeps them. */
    if (procs[0] && !o->procs)
        o->procs = strcmp(procs, "1") == 0 ? NULL : procs;
    if (order[0] && !o->order)
        o->order = order;
    if (o->np && strcmp(o->np, np) != 0)
        usage_error("the checkpoint has a different number of ranks than -n %s", o->np);
    o->np = np;
    if (stack[0])
        o->stack_size = stack;
    put_env("ZMPI_RESTART", o->restart);
    o->checkpoint = 1;
}

/* The stack-protector canary every process of a checkpointable job runs
 * its ranks with (ZMPI_CKPT_CANARY): a rank's saved frames were entered
 * with it, so a restart may put ranks of several processes into one.  The
 * lowest byte stays zero, as glibc's own canaries do. */
static void export_job_canary(void)
{
    unsigned long long v = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0 || read(fd, &v, sizeof v) != (ssize_t)sizeof v)
        usage_error("cannot read %s for the job's stack-protector canary", "/dev/urandom");
    close(fd);
    char hex[32];
    snprintf(hex, sizeof hex, "%llx", v & ~0xffULL);
    put_env("ZMPI_CKPT_CANARY", hex);
}

/* --checkpoint: ranks get memory at fixed addresses, which a restart finds
 * again only if the shared libraries load where they did: the job runs
 * with address-space randomization off (as setarch -R does). */
static void enable_checkpoints(const struct options *o)
{
    if (!o->checkpoint)
        return;
    put_env("ZMPI_CHECKPOINT", "1");
    if (!o->restart)
        export_job_canary();
    int p = personality(0xffffffff);
    if (p == -1 || personality((unsigned long)p | ADDR_NO_RANDOMIZE) == -1)
        fprintf(stderr, "zmpirun: cannot turn address-space randomization off; checkpoints "
                "will be refused\n");
}

/* Puts one count into the environment: the flag wins, an inherited value is
 * kept, and either is checked so that the library never sees garbage. */
static void export_count(const char *var, const char *flag, const char *what)
{
    const char *v = flag != NULL ? flag : getenv(var);
    long n;

    if (v == NULL)
        return;
    if (parse_positive(v, &n) != 0)
        usage_error(what, v);
    if (flag != NULL && setenv(var, flag, 1) != 0) {
        perror("zmpirun: setenv");
        exit(EXIT_USAGE);
    }
}

/* Like export_count for the stack size, which is normalised to plain bytes
 * because the library reads only a decimal number. */
static void export_stack_size(const char *flag)
{
    const char *v = flag != NULL ? flag : getenv("ZMPI_STACK_SIZE");
    unsigned long long bytes;
    char buf[32];

    if (v == NULL)
        return;
    if (parse_size(v, &bytes) != 0)
        usage_error("invalid stack size '%s' (want bytes > 0, optional "
                    "suffix k, m or g)", v);
    snprintf(buf, sizeof(buf), "%llu", bytes);
    if (setenv("ZMPI_STACK_SIZE", buf, 1) != 0) {
        perror("zmpirun: setenv");
        exit(EXIT_USAGE);
    }
}

/* Exports the balancer's switches (docs/migrate.md): the flags win; an
 * inherited ZMPI_LB is checked here too, so that a typo is reported before
 * the job starts. */
static void export_lb(const struct options *o)
{
    static const char *const names[] = { "greedy", "refine", "rotate", "none" };
    const char *v = o->lb != NULL ? o->lb : getenv("ZMPI_LB");
    size_t i;

    if (v != NULL && *v != '\0') {
        for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
            if (strcmp(v, names[i]) == 0)
                break;
        if (i == sizeof(names) / sizeof(names[0]))
            usage_error("invalid load-balancing strategy '%s' (--lb / ZMPI_LB: want greedy, "
                        "refine, rotate or none)", v);
        if (setenv("ZMPI_LB", v, 1) != 0) {
            perror("zmpirun: setenv");
            exit(EXIT_USAGE);
        }
    }
    if (o->lb_report && setenv("ZMPI_LB_REPORT", "1", 1) != 0) {
        perror("zmpirun: setenv");
        exit(EXIT_USAGE);
    }
    if (o->steal != NULL && setenv("ZMPI_STEAL", o->steal, 1) != 0) {
        perror("zmpirun: setenv");
        exit(EXIT_USAGE);
    }
}

/* Reads MPIEXEC_TIMEOUT; 0 means no limit (also when unset or empty). */
static long read_timeout(void)
{
    const char *v = getenv("MPIEXEC_TIMEOUT");
    long t;

    if (v == NULL || *v == '\0' || strcmp(v, "0") == 0)
        return 0;
    if (parse_positive(v, &t) != 0)
        usage_error("invalid MPIEXEC_TIMEOUT '%s' (want whole seconds)", v);
    return t;
}

/* Returns "SIGxxx" for the common signals so messages read like the shell's;
 * the number is printed for the rest. */
static const char *signal_name(int sig, char *buf, size_t len)
{
    static const struct { int sig; const char *name; } names[] = {
        { SIGHUP, "SIGHUP" },   { SIGINT, "SIGINT" },   { SIGQUIT, "SIGQUIT" },
        { SIGILL, "SIGILL" },   { SIGTRAP, "SIGTRAP" }, { SIGABRT, "SIGABRT" },
        { SIGBUS, "SIGBUS" },   { SIGFPE, "SIGFPE" },   { SIGKILL, "SIGKILL" },
        { SIGUSR1, "SIGUSR1" }, { SIGSEGV, "SIGSEGV" }, { SIGUSR2, "SIGUSR2" },
        { SIGPIPE, "SIGPIPE" }, { SIGALRM, "SIGALRM" }, { SIGTERM, "SIGTERM" },
        { SIGXCPU, "SIGXCPU" }, { SIGXFSZ, "SIGXFSZ" }, { SIGSYS, "SIGSYS" },
    };
    size_t i;

    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (names[i].sig == sig)
            return names[i].name;
    snprintf(buf, len, "%d", sig);
    return buf;
}


/* The running job as the parent sees it. */
struct job {
    pid_t pid;          /* The child, also the id of its process group. */
    const char *prog;   /* Program name for messages (argv[0]). */
    int owns_tty;       /* Whether the job holds the terminal's foreground. */
};

/* The signals the parent waits for instead of handling them. */
static void waited_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGCHLD);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
    sigaddset(set, SIGQUIT);
}

/* True if zmpirun runs in the foreground of the terminal on stdin.  Only then
 * is the terminal handed to the job: a program in a background group that
 * reads the terminal (rank 0 reading stdin) would be stopped by SIGTTIN and
 * the job would hang. */
static int in_tty_foreground(void)
{
    return isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp();
}

/* Makes the calling child die with `sig` when its parent dies, so that a
 * zmpirun killed by SIGKILL (which cannot forward anything) takes its job
 * along instead of leaving it running as an orphan.  The parent may have
 * died already: then act at once. */
void zr_die_with_parent(pid_t parent, int sig)
{
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, sig);
#endif
    if (getppid() != parent)
        raise(sig);
}

/* Runs in the forked child: becomes a process group leader (and the
 * terminal's foreground group if the job owns it; SIGTTOU is still blocked
 * here, so that call cannot stop us), restores the signal mask the user gave
 * zmpirun, and replaces itself with the program (or, with copies > 1,
 * runs that many copies of it).  Exits 127 (not found) or 126 (not
 * runnable) like a shell if exec fails. */
static void exec_child(char **argv, const sigset_t *orig_mask, int owns_tty, long copies,
                       pid_t parent, int launcher)
{
    int err;

    /* A system launcher cleans up its processes on SIGTERM, not on SIGKILL. */
    zr_die_with_parent(parent, launcher ? SIGTERM : SIGKILL);
    setpgid(0, 0);
    if (owns_tty)
        tcsetpgrp(STDIN_FILENO, getpid());
    if (copies > 1)
        zr_run_copies(argv, copies, orig_mask);
    sigprocmask(SIG_SETMASK, orig_mask, NULL);
    execvp(argv[0], argv);
    err = errno;
    fprintf(stderr, "zmpirun: cannot run '%s': %s\n", argv[0], strerror(err));
    _exit(err == ENOENT ? 127 : 126);
}

/* Turns a wait status into zmpirun's exit status, reporting death by signal. */
static int child_exit_code(const char *prog, int status)
{
    char buf[16];

    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);

        fprintf(stderr, "zmpirun: %s killed by signal %s\n", prog,
                signal_name(sig, buf, sizeof(buf)));
        return 128 + sig;
    }
    return 1;
}

/* Sets *deadline to now + seconds on the monotonic clock, which wall-clock
 * changes cannot move. */
static void deadline_in(struct timespec *deadline, long seconds)
{
    clock_gettime(CLOCK_MONOTONIC, deadline);
    deadline->tv_sec += seconds;
}

/* Stores the time until *deadline in *left; returns 0 once it has passed. */
static int time_left(const struct timespec *deadline, struct timespec *left)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    left->tv_sec = deadline->tv_sec - now.tv_sec;
    left->tv_nsec = deadline->tv_nsec - now.tv_nsec;
    if (left->tv_nsec < 0) {
        left->tv_nsec += 1000000000L;
        left->tv_sec -= 1;
    }
    return left->tv_sec > 0 || (left->tv_sec == 0 && left->tv_nsec > 0);
}

/* Mirrors a terminal stop (Ctrl-Z) of the job onto zmpirun, so the user's
 * shell sees the job as stopped, then resumes the job when zmpirun is
 * continued (fg/bg). */
static void follow_stop(const struct job *job)
{
    tcsetpgrp(STDIN_FILENO, getpgrp());
    raise(SIGTSTP);
    if (in_tty_foreground())
        tcsetpgrp(STDIN_FILENO, job->pid);
    kill(-job->pid, SIGCONT);
}

/* Collects the child if it has ended; returns 1 and its status then.  Stops
 * are reported only while the job owns the terminal, because only then is a
 * stop the user's Ctrl-Z rather than, say, a debugger. */
static int reap(const struct job *job, int *status)
{
    pid_t r;

    r = waitpid(job->pid, status, WNOHANG | (job->owns_tty ? WUNTRACED : 0));
    if (r != job->pid)
        return 0;
    if (WIFSTOPPED(*status)) {
        follow_stop(job);
        return 0;
    }
    return 1;
}

/* Waits for the job to end, forwarding termination signals to its process
 * group and enforcing the time limit (timeout 0 = none): SIGTERM at the
 * limit, SIGKILL KILL_GRACE_SECONDS later.  Returns zmpirun's exit status. */
static int supervise(const struct job *job, long timeout)
{
    struct timespec deadline, left;
    int phase = 0; /* 0: running, 1: SIGTERM sent, 2: SIGKILL sent. */
    int status;
    sigset_t set;

    waited_signals(&set);
    if (timeout > 0)
        deadline_in(&deadline, timeout);
    for (;;) {
        int limited = timeout > 0 && phase < 2;
        int sig;

        if (limited && !time_left(&deadline, &left)) {
            if (phase == 0)
                fprintf(stderr, "zmpirun: job timed out after %ld s "
                        "(MPIEXEC_TIMEOUT)\n", timeout);
            kill(-job->pid, phase == 0 ? SIGTERM : SIGKILL);
            phase++;
            deadline_in(&deadline, KILL_GRACE_SECONDS);
            continue;
        }
        /* EINTR and EAGAIN both lead back to the clock check above. */
        sig = sigtimedwait(&set, NULL, limited ? &left : NULL);
        if (sig < 0)
            continue;
        if (sig != SIGCHLD) {
            kill(-job->pid, sig);
            continue;
        }
        if (reap(job, &status))
            break;
    }
    if (phase > 0) {
        /* Helpers left in the group would outlive a timed-out job. */
        kill(-job->pid, SIGKILL);
        return EXIT_TIMEOUT;
    }
    return child_exit_code(job->prog, status);
}

/* Sets an environment variable or exits. */
static void put_env(const char *var, const char *value)
{
    if (setenv(var, value, 1) != 0) {
        perror("zmpirun: setenv");
        exit(EXIT_USAGE);
    }
}

/* The system MPI that carries a job of several processes: the flag, else
 * $ZMPI_NET, else MPICH. */
static const char *net_choice(const struct options *o)
{
    const char *n = o->net != NULL ? o->net : getenv("ZMPI_NET");

    if (n == NULL || *n == '\0')
        return "mpich";
    if (strcmp(n, "mpich") != 0 && strcmp(n, "openmpi") != 0)
        usage_error("invalid --net / ZMPI_NET '%s' (want mpich or openmpi)", n);
    return n;
}

/* Appends the words of a command line (split at blanks) to v. */
static int split_words(char *cmd, char **v, int n)
{
    for (char *w = strtok(cmd, " \t"); w != NULL; w = strtok(NULL, " \t"))
        v[n++] = w;
    return n;
}

/* Exports the job's shape for a run of P processes and returns the command
 * that starts them: the system launcher, its options, the program.
 * Open MPI's launcher is told to pass zmpi's variables on (it only
 * inherits the environment on this node), to allow more processes than
 * cores, and, as root, to run at all. */
static char **launch_argv(const struct options *o, long procs)
{
    extern char **environ;
    const char *net = net_choice(o);
    const char *given = getenv("ZMPI_LAUNCHER");
    int openmpi = strcmp(net, "openmpi") == 0, n = 0, nenv = 0;
    char *cmd = strdup(given != NULL && *given ? given
                                               : openmpi ? "mpiexec.openmpi" : "mpiexec.mpich");
    static char np[32];
    char **v;

    for (char **e = environ; *e != NULL; e++)
        nenv++;
    v = calloc((size_t)(2 * nenv + 64) + strlen(cmd), sizeof(char *));
    if (cmd == NULL || v == NULL) {
        perror("zmpirun");
        exit(EXIT_USAGE);
    }
    put_env("ZMPI_NET", net);
    /* Every process a node of its own: no memory shared between them
     * either (src/net/net.c). */
    if (o->separate)
        put_env("ZMPI_NET_SEPARATE", "1");
    if (o->separate && !openmpi) {
        /* MPICH (ch4 over UCX): no shared-memory path between processes,
         * UCX's TCP transport between them. */
        put_env("MPIR_CVAR_NOLOCAL", "1");
        put_env("UCX_TLS", "tcp,self");
    }
    n = split_words(cmd, v, 0);
    snprintf(np, sizeof(np), "%ld", procs);
    v[n++] = "-n";
    v[n++] = np;
    if (openmpi) {
        v[n++] = "--oversubscribe";
        if (geteuid() == 0)
            v[n++] = "--allow-run-as-root";
        if (o->separate) {
            v[n++] = "--mca";
            v[n++] = "pml";
            v[n++] = "ob1";
            v[n++] = "--mca";
            v[n++] = "btl";
            v[n++] = "tcp,self";
        }
        for (char **e = environ; *e != NULL; e++) {
            if (strncmp(*e, "ZMPI_", 5) != 0 && strncmp(*e, "MPIEXEC_", 8) != 0)
                continue;
            v[n++] = "-x";
            v[n++] = strndup(*e, strcspn(*e, "="));
        }
    }
    for (char **a = o->argv; *a != NULL; a++)
        v[n++] = *a;
    v[n] = NULL;
    return v;
}

/* Exports the process count and rank order; returns the processes asked
 * for (1 when none were). */
static long export_procs(const struct options *o)
{
    const char *v = o->procs != NULL ? o->procs : getenv("ZMPI_PROCS");
    const char *np = getenv("ZMPI_NP");
    long p = 1, n = 1;

    if (v != NULL && parse_positive(v, &p) != 0)
        usage_error("invalid number of processes '%s' (want an integer >= 1)", v);
    if (o->order != NULL) {
        if (strcmp(o->order, "block") != 0 && strcmp(o->order, "interleave") != 0)
            usage_error("invalid rank order '%s' (want block or interleave)", o->order);
        put_env("ZMPI_RANK_ORDER", o->order);
    }
    if (np != NULL && parse_positive(np, &n) == 0 && p > n)
        usage_error("more processes than ranks (-p %s)", v);
    return p;
}

/* After a job of several processes failed: which ranks each process held,
 * since the launcher's report names processes (by index or PID) and a
 * process killed by a signal could not say it.  Same numbering as
 * src/net/net.h (blocks, or round-robin with --interleave). */
static void report_layout(long procs, int code)
{
    const char *np = getenv("ZMPI_NP"), *ord = getenv("ZMPI_RANK_ORDER");
    long n = 0;
    if (np == NULL || parse_positive(np, &n) != 0 || n < procs)
        return;
    if (ord != NULL && strcmp(ord, "interleave") == 0) {
        fprintf(stderr, "zmpirun: the job failed (status %d); process p of %ld held ranks p, "
                "p + %ld, p + %ld, ...\n", code, procs, procs, 2 * procs);
        return;
    }
    fprintf(stderr, "zmpirun: the job failed (status %d); ranks by process:", code);
    for (long p = 0, first = 0; p < procs; p++) {
        long cnt = n / procs + (p < n % procs);
        fprintf(stderr, " %ld: %ld-%ld%s", p, first, first + cnt - 1, p + 1 < procs ? "," : "\n");
        first += cnt;
    }
}

/* Remove the copies of a privatized program that the job `pid` left
 * behind: the library deletes each as soon as it is loaded, except under a
 * debugger, which may end the job before the library can (src/arch/
 * image_linux.c names them <dir>/zmpi-<pid>-<rank>.so). */
/* Where the library puts a job's files: ZMPI_TMPDIR, else /dev/shm. */
static const char *job_files_dir(void)
{
    const char *dir = getenv("ZMPI_TMPDIR");
    return dir ? dir : "/dev/shm";
}

static void remove_rank_copies(pid_t pid)
{
    const char *dir = job_files_dir();
    char prefix[64], path[PATH_MAX];
    struct dirent *e;
    DIR *d;

    d = opendir(dir);
    if (!d)
        return;
    snprintf(prefix, sizeof prefix, "zmpi-%ld-", (long)pid);
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, prefix, strlen(prefix)) != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
}

/* Where the processes of a job across processes leave the status of the
 * first one that ends it (src/net/net.c, record_exit): named before the
 * launch, in the directory of the rank copies.  Only processes on this
 * node can write it; elsewhere the launcher's status stands. */
static void exit_file_path(char *path, size_t len)
{
    const char *dir = job_files_dir();
    if (!getenv("ZMPI_TMPDIR") && access(dir, W_OK) != 0)
        dir = "/tmp";
    snprintf(path, len, "%s/zmpi-run-%ld-exit", dir, (long)getpid());
}

/* The status a failed job across processes ends with: the one the process
 * that ended it recorded, when there is one, else the launcher's.  A
 * timeout stays a timeout.  Removes the file. */
static int job_status(const char *path, int code)
{
    FILE *f = fopen(path, "r");
    int recorded = 0;
    if (!f)
        return code;
    if (fscanf(f, "%d", &recorded) != 1)
        recorded = 0;
    fclose(f);
    unlink(path);
    if (code == 0 || code == EXIT_TIMEOUT || recorded <= 0 || recorded > 255)
        return code;
    return recorded;
}

/* Entry point: parses the command line, exports the job shape, runs the
 * program (or the system launcher that runs it in each process) and exits
 * with its status. */
int main(int argc, char **argv)
{
    struct options o;
    struct job job;
    sigset_t set, orig_mask;
    long timeout, procs, copies = 1;
    pid_t parent;
    char **run;
    char exit_file[PATH_MAX];
    int code;

    parse_args(argc, argv, &o);
    if (o.restart)
        restart_from(&o);
    enable_checkpoints(&o);
    export_count("ZMPI_NP", o.np, "invalid number of ranks '%s' (want an "
                 "integer >= 1)");
    export_count("ZMPI_WORKERS", o.workers, "invalid number of workers '%s' "
                 "(want an integer >= 1)");
    export_stack_size(o.stack_size);
    export_lb(&o);
    procs = export_procs(&o);
    timeout = read_timeout();
    if (o.tag)
        put_env("ZMPI_TAG_OUTPUT", "1");
    /* mpirun runs N copies of a program that is not an MPI program. */
    if (procs == 1 && getenv("ZMPI_NP") != NULL && atol(getenv("ZMPI_NP")) > 1 &&
        !zr_runs_zmpi(o.argv))
        copies = atol(getenv("ZMPI_NP"));

    /* An inherited SIG_IGN for SIGCHLD would make the kernel reap the child
     * for us and waitpid() would never see its status. */
    signal(SIGCHLD, SIG_DFL);
    /* Block before fork so that no signal can slip in between the fork and
     * the first sigtimedwait().  SIGTTOU is blocked too, because giving the
     * terminal back from a background group would otherwise stop us. */
    waited_signals(&set);
    sigaddset(&set, SIGTTOU);
    sigprocmask(SIG_BLOCK, &set, &orig_mask);
    fflush(NULL);

    if (procs > 1) {
        exit_file_path(exit_file, sizeof exit_file);
        unlink(exit_file);
        put_env("ZMPI_EXIT_FILE", exit_file);
    }
    job.prog = o.argv[0];
    job.owns_tty = in_tty_foreground();
    run = procs > 1 ? launch_argv(&o, procs) : o.argv;
    parent = getpid();
    job.pid = fork();
    if (job.pid < 0) {
        perror("zmpirun: fork");
        return 1;
    }
    if (job.pid == 0)
        exec_child(run, &orig_mask, job.owns_tty, copies, parent, procs > 1);
    /* Also set the group (and terminal) here: whichever of parent and child
     * runs first, the group exists before the parent may signal it. */
    setpgid(job.pid, job.pid);
    if (job.owns_tty)
        tcsetpgrp(STDIN_FILENO, job.pid);
    code = supervise(&job, timeout);
    remove_rank_copies(job.pid);
    if (procs > 1)
        code = job_status(exit_file, code);
    if (procs > 1 && code != 0)
        report_layout(procs, code);
    if (job.owns_tty)
        tcsetpgrp(STDIN_FILENO, getpgrp());
    return code;
}
