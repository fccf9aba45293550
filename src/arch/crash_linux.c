/*
 * crash_linux.c: the report of a rank that dies of a fatal signal.
 *
 * A crash in one rank ends the whole process (all ranks share it), so the
 * report must say which rank died, of what, where, and how it got there:
 * "zmpi: rank 3: SIGSEGV (address 0x10)" and a backtrace symbolized with
 * file and line where the code has debug information.  Output the ranks
 * wrote before the crash is pushed out first, since with stdout going to
 * a file it would otherwise sit in libc's buffer and die with the process.
 * Then the signal's default action ends the process, so the launcher and
 * the shell see the conventional "killed by signal" status.
 *
 * The handler runs after memory may have been corrupted.  It takes only
 * what it prepared at install time (the program's path, a warmed-up
 * unwinder), uses write(2) for its own text and runs addr2line (binutils)
 * in a child process to turn addresses into file:line; without addr2line
 * it prints object+offset.  Frames in a rank's private copy of the program
 * are mapped back to the program's own file, which the copy duplicates.
 */
#include "arch/arch.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#define MAX_FRAMES 48

static int (*rank_of_caller)(void);
static char exe_path[1024];
static char addr2line[64];

static void say(const char *s)
{
    size_t n = strlen(s);
    while (n > 0) {
        ssize_t w = write(STDERR_FILENO, s, n);
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

/* The file to symbolize a frame of object `name` from: a rank's copy of
 * the program (a deleted file zmpi-PID-N.so) is the program itself. */
static const char *object_file(const char *name)
{
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    if (strncmp(base, "zmpi-", 5) == 0 && access(name, R_OK) != 0 && exe_path[0])
        return exe_path;
    return name;
}

/* Runs addr2line on one address and writes "function at file:line" to
 * out; returns 0 when it said something useful. */
static int symbolize(const char *file, uintptr_t off, char *out, size_t len)
{
    int fd[2];
    if (!addr2line[0] || pipe(fd) != 0)
        return -1;
    char hex[32];
    snprintf(hex, sizeof hex, "0x%lx", (unsigned long)off);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], STDOUT_FILENO);
        close(fd[0]);
        close(fd[1]);
        execl(addr2line, "addr2line", "-C", "-f", "-e", file, hex, (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    char buf[1024];
    size_t got = 0;
    ssize_t r;
    while (pid > 0 && got < sizeof buf - 1 && (r = read(fd[0], buf + got, sizeof buf - 1 - got)) > 0)
        got += (size_t)r;
    close(fd[0]);
    if (pid > 0)
        waitpid(pid, NULL, 0);
    buf[got] = '\0';
    char *nl = strchr(buf, '\n');
    if (!nl || strncmp(nl + 1, "??:", 3) == 0)
        return -1;
    *nl = '\0';
    char *line = nl + 1;
    line[strcspn(line, "\n (")] = '\0';
    snprintf(out, len, "%s at %s", buf, line);
    return 0;
}

/* The instruction that faulted, from the signal's saved context. */
static uintptr_t fault_pc(const void *uctx)
{
    const ucontext_t *uc = uctx;
    if (!uc)
        return 0;
#if defined(__x86_64__)
    return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (uintptr_t)uc->uc_mcontext.pc;
#else
    return 0;
#endif
}

__attribute__((noinline)) static void report_frames(uintptr_t pc0)
{
    void *frames[MAX_FRAMES];
    int n = backtrace(frames, MAX_FRAMES);
    char line[1400], sym[1200];
    /* The unwinder starts in this handler: the crashed code begins at the
     * frame holding the faulting instruction (after the signal
     * trampoline); for a signal that was sent (abort), after the frames
     * of the handler itself. */
    int first = 3;
    for (int i = 0; i < n; i++)
        if ((uintptr_t)frames[i] == pc0)
            first = i;
    for (int i = first; i < n; i++) {
        Dl_info di;
        /* A return address lies after its call: look at the call. */
        uintptr_t pc = (uintptr_t)frames[i] - ((uintptr_t)frames[i] != pc0);
        uintptr_t coff;
        /* A rank's copy that zmpi loaded itself is the program file, at
         * the same offset (image_clone_linux.c). */
        if (exe_path[0] && zm_arch_clone_locate(pc, &coff)) {
            if (symbolize(exe_path, coff, sym, sizeof sym) == 0)
                snprintf(line, sizeof line, "  #%d %s\n", i - first, sym);
            else
                snprintf(line, sizeof line, "  #%d %s+0x%lx\n", i - first, exe_path,
                         (unsigned long)coff);
            say(line);
            continue;
        }
        if (!dladdr((void *)pc, &di) || !di.dli_fname) {
            snprintf(line, sizeof line, "  #%d %p\n", i - first, frames[i]);
            say(line);
            continue;
        }
        const char *file = object_file(di.dli_fname);
        uintptr_t off = pc - (uintptr_t)di.dli_fbase;
        if (symbolize(file, off, sym, sizeof sym) == 0)
            snprintf(line, sizeof line, "  #%d %s\n", i - first, sym);
        else
            snprintf(line, sizeof line, "  #%d %s in %s+0x%lx\n", i - first,
                     di.dli_sname ? di.dli_sname : "??", file, (unsigned long)off);
        say(line);
    }
}

/* The signal being reported, for the watchdog. */
static volatile sig_atomic_t crash_sig;

/* The report could not finish: the crashed code held a lock the report
 * needs (an abort inside malloc, whose lock fork and the unwinder take).
 * End the process with the crash's own signal instead of hanging. */
static void watchdog(int s)
{
    (void)s;
    say("zmpi: the crash report did not finish (the crash left a lock held); ending the "
        "job\n");
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, crash_sig);
    signal(crash_sig, SIG_DFL);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(crash_sig);
    _exit(128 + crash_sig);
}

void zm_arch_crash_report(int sig, const siginfo_t *info, const void *uctx)
{
    static atomic_flag reporting = ATOMIC_FLAG_INIT;
    if (atomic_flag_test_and_set(&reporting)) {
        /* Another thread is reporting its crash and will end the process. */
        for (;;)
            pause();
    }
    crash_sig = sig;
    signal(SIGALRM, watchdog);
    alarm(5);
    /* Output the ranks already wrote comes first.  The lock may be held by
     * the crashed thread itself; a recursive lock lets us in then. */
    if (ftrylockfile(stdout) == 0) {
        fflush_unlocked(stdout);
        funlockfile(stdout);
    }
    int rank = rank_of_caller ? rank_of_caller() : -1;
    char head[256], who[32] = "";
    if (rank >= 0)
        snprintf(who, sizeof who, "rank %d: ", rank);
    const char *name = sigabbrev_np(sig);
    if (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE)
        snprintf(head, sizeof head, "zmpi: %sSIG%s (%s at address %p); backtrace:\n", who,
                 name ? name : "?", strsignal(sig), info->si_addr);
    else
        snprintf(head, sizeof head, "zmpi: %sSIG%s (%s); backtrace:\n", who,
                 name ? name : "?", strsignal(sig));
    say(head);
    report_frames(info->si_code > 0 ? fault_pc(uctx) : 0);
}

void zm_arch_crash_install(int (*rank_fn)(void))
{
    rank_of_caller = rank_fn;
    ssize_t n = readlink("/proc/self/exe", exe_path, sizeof exe_path - 1);
    exe_path[n > 0 ? n : 0] = '\0';
    const char *cands[] = {"/usr/bin/addr2line", "/bin/addr2line"};
    for (size_t i = 0; i < sizeof cands / sizeof *cands; i++)
        if (access(cands[i], X_OK) == 0) {
            snprintf(addr2line, sizeof addr2line, "%s", cands[i]);
            break;
        }
    /* The first backtrace loads the unwinder (a malloc and a dlopen): do
     * it now, not in a handler. */
    void *warm[2];
    backtrace(warm, 2);
    zm_arch_crash_signals();
}
