/* zmpirun_copies.c: programs not linked with zmpi (hostname, a shell
 * script, a Python interpreter) run as one copy per rank, as mpirun runs
 * them; a wrapper of a zmpi program (valgrind ./app, env X=1 ./app) runs
 * once.  Split from zmpirun.c, whose child process calls these. */
#define _POSIX_C_SOURCE 200809L

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "zmpirun.h"

/* Finds the file execvp would run for `name`: itself when it has a slash,
 * else the first executable regular file of that name on PATH.  Returns 0
 * with the path in buf, or -1. */
static int find_program(const char *name, char *buf, size_t len)
{
    const char *path = getenv("PATH");
    struct stat st;

    if (strchr(name, '/') != NULL) {
        snprintf(buf, len, "%s", name);
        return stat(buf, &st) == 0 && S_ISREG(st.st_mode) ? 0 : -1;
    }
    if (path == NULL)
        path = "/usr/bin:/bin";
    for (;;) {
        size_t n = strcspn(path, ":");
        /* An empty entry is the current directory. */
        snprintf(buf, len, "%.*s/%s", n ? (int)n : 1, n ? path : ".", name);
        if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0)
            return 0;
        if (path[n] == '\0')
            return -1;
        path += n + 1;
    }
}

/* The file offset of virtual address `va` in the loadable segments. */
static long va_offset(const Elf64_Phdr *ph, int n, Elf64_Addr va)
{
    for (int i = 0; i < n; i++)
        if (ph[i].p_type == PT_LOAD && va >= ph[i].p_vaddr &&
            va < ph[i].p_vaddr + ph[i].p_filesz)
            return (long)(ph[i].p_offset + (va - ph[i].p_vaddr));
    return -1;
}

/* True if the ELF file at fd names libzmpi among the libraries it needs
 * (its dynamic section's DT_NEEDED entries). */
static int needs_libzmpi(int fd)
{
    Elf64_Ehdr eh;
    Elf64_Phdr ph[64];
    Elf64_Dyn dyn[512];
    long strtab = -1, ndyn = 0;
    int n, found = 0;

    if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh ||
        memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_phentsize != sizeof(Elf64_Phdr))
        return 0;
    n = eh.e_phnum < 64 ? eh.e_phnum : 64;
    if (pread(fd, ph, sizeof(Elf64_Phdr) * (size_t)n, (off_t)eh.e_phoff) !=
        (ssize_t)(sizeof(Elf64_Phdr) * (size_t)n))
        return 0;
    for (int i = 0; i < n; i++)
        if (ph[i].p_type == PT_DYNAMIC) {
            size_t bytes = ph[i].p_filesz < sizeof dyn ? ph[i].p_filesz : sizeof dyn;
            ssize_t got = pread(fd, dyn, bytes, (off_t)ph[i].p_offset);
            ndyn = got > 0 ? got / (long)sizeof(Elf64_Dyn) : 0;
        }
    for (long i = 0; i < ndyn && dyn[i].d_tag != DT_NULL; i++)
        if (dyn[i].d_tag == DT_STRTAB)
            strtab = va_offset(ph, n, dyn[i].d_un.d_ptr);
    for (long i = 0; strtab >= 0 && i < ndyn && dyn[i].d_tag != DT_NULL && !found; i++) {
        char name[16] = "";
        if (dyn[i].d_tag == DT_NEEDED &&
            pread(fd, name, sizeof name - 1, strtab + (off_t)dyn[i].d_un.d_val) > 0)
            found = strncmp(name, "libzmpi.so", 10) == 0;
    }
    return found;
}

/* True if zmpi's ranks will run inside this command: its program is linked
 * with libzmpi, or one of its arguments names a program that is (a
 * wrapper such as valgrind, env, time, nice, gdb --args).  A script or any
 * other program runs as one copy per rank instead, as mpirun runs it. */
int zr_runs_zmpi(char **argv)
{
    char path[PATH_MAX];

    for (int i = 0; argv[i] != NULL; i++) {
        int fd, linked;

        if (i > 0 && argv[i][0] == '-')
            continue;
        if (find_program(argv[i], path, sizeof path) != 0)
            continue;
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        linked = needs_libzmpi(fd);
        close(fd);
        if (linked)
            return 1;
    }
    return 0;
}

/* Runs in the forked child, the job's process group leader, for a program
 * not linked with zmpi: starts n copies, copy i with ZMPI_COPY=i and
 * ZMPI_COPIES=n and only copy 0 reading stdin, waits for all, and ends as
 * the job should: killed by the first signal that killed a copy, else
 * with the status of the first copy (in copy order) that failed.  The
 * leader keeps zmpirun's signals blocked, so it outlives its copies when
 * zmpirun forwards one to the group; the copies get the user's mask. */
void zr_run_copies(char **argv, long n, const sigset_t *orig_mask)
{
    pid_t *pids = calloc((size_t)n, sizeof *pids);
    int *status = calloc((size_t)n, sizeof *status);
    char v[24];
    long left = 0;
    pid_t leader = getpid();

    if (pids == NULL || status == NULL) {
        perror("zmpirun");
        _exit(1);
    }
    snprintf(v, sizeof v, "%ld", n);
    setenv("ZMPI_COPIES", v, 1);
    for (long i = 0; i < n; i++) {
        pids[i] = fork();
        if (pids[i] < 0) {
            perror("zmpirun: fork");
            break;
        }
        left++;
        if (pids[i] > 0)
            continue;
        zr_die_with_parent(leader, SIGKILL);
        snprintf(v, sizeof v, "%ld", i);
        setenv("ZMPI_COPY", v, 1);
        if (i > 0) {
            int fd = open("/dev/null", O_RDONLY);
            if (fd >= 0 && fd != STDIN_FILENO) {
                dup2(fd, STDIN_FILENO);
                close(fd);
            }
        }
        sigprocmask(SIG_SETMASK, orig_mask, NULL);
        execvp(argv[0], argv);
        if (i == 0)
            fprintf(stderr, "zmpirun: cannot run '%s': %s\n", argv[0], strerror(errno));
        _exit(errno == ENOENT ? 127 : 126);
    }
    while (left > 0) {
        int st;
        pid_t p = waitpid(-1, &st, 0);
        if (p < 0 && errno == EINTR)
            continue;
        if (p < 0)
            break;
        for (long i = 0; i < n; i++)
            if (pids[i] == p) {
                status[i] = st;
                left--;
            }
    }
    for (long i = 0; i < n; i++)
        if (WIFSIGNALED(status[i])) {
            sigset_t one;
            int sig = WTERMSIG(status[i]);
            signal(sig, SIG_DFL);
            sigemptyset(&one);
            sigaddset(&one, sig);
            sigprocmask(SIG_UNBLOCK, &one, NULL);
            raise(sig);
        }
    for (long i = 0; i < n; i++)
        if (WIFEXITED(status[i]) && WEXITSTATUS(status[i]) != 0)
            _exit(WEXITSTATUS(status[i]));
    _exit(0);
}

