/*
 * arch_linux.c: Linux implementation of the arch layer (stacks, futexes,
 * time, fault handling) and the per-CPU frame set-up for new contexts.
 */
#include "arch/arch.h"
#include "arch/valgrind_shim.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

void zm_arch_ctx_trampoline(void);

void zm_arch_ctx_make(zm_arch_ctx_t *ctx, const zm_arch_stack_t *stack,
                      void (*entry)(void *), void *arg)
{
    uintptr_t top = (uintptr_t)stack->hi & ~(uintptr_t)15;
#if defined(__x86_64__)
    /* After the trampoline's `ret` target is popped, rsp must be 16-byte
     * aligned so that the `call` inside the trampoline keeps the ABI. */
    uint64_t *sp = (uint64_t *)(top - 16);
    *--sp = (uint64_t)(uintptr_t)zm_arch_ctx_trampoline; /* return address */
    *--sp = 0;                                           /* rbp */
    *--sp = 0;                                           /* rbx */
    *--sp = (uint64_t)(uintptr_t)arg;                    /* r12 */
    *--sp = (uint64_t)(uintptr_t)entry;                  /* r13 */
    *--sp = 0;                                           /* r14 */
    *--sp = 0;                                           /* r15 */
    /* Default MXCSR (all exceptions masked) and x87 control word. */
    *--sp = (uint64_t)0x1F80u | ((uint64_t)0x037Fu << 32);
    ctx->sp = sp;
#elif defined(__aarch64__)
    uint64_t *frame = (uint64_t *)(top - 176);
    memset(frame, 0, 176);
    frame[0] = (uint64_t)(uintptr_t)arg;                     /* x19 */
    frame[1] = (uint64_t)(uintptr_t)entry;                   /* x20 */
    frame[11] = (uint64_t)(uintptr_t)zm_arch_ctx_trampoline; /* x30 */
    ctx->sp = frame;
#else
#error "zmpi: no context frame layout for this CPU"
#endif
}

size_t zm_arch_page_size(void)
{
    static size_t page;
    if (!page)
        page = (size_t)sysconf(_SC_PAGESIZE);
    return page;
}

int zm_arch_stack_alloc(size_t size, zm_arch_stack_t *stack)
{
    size_t page = zm_arch_page_size();
    size_t usable = (size + page - 1) & ~(page - 1);
    size_t total = usable + page;
    /* MAP_NORESERVE: ten thousand ranks must not commit ten thousand full
     * stacks; pages appear as the rank touches them. */
    void *map = mmap(NULL, total, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (map == MAP_FAILED)
        return -1;
    if (mprotect(map, page, PROT_NONE) != 0) {
        munmap(map, total);
        return -1;
    }
    stack->map = map;
    stack->map_size = total;
    stack->lo = (char *)map + page;
    stack->hi = (char *)map + total;
    stack->vg_id = zm_arch_vg_stack_note(stack->lo, stack->hi);
    return 0;
}

void zm_arch_stack_free(zm_arch_stack_t *stack)
{
    if (stack->map) {
        zm_arch_vg_stack_forget(stack->vg_id);
        munmap(stack->map, stack->map_size);
    }
    stack->map = NULL;
}

void zm_arch_futex_wait(uint32_t *word, uint32_t expected)
{
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

int zm_arch_futex_wait_ns(uint32_t *word, uint32_t expected, uint64_t ns)
{
    struct timespec ts = { (time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull) };
    long r = syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, &ts, NULL, 0);
    return r < 0 && errno == ETIMEDOUT;
}

void zm_arch_futex_wake(uint32_t *word, int n)
{
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

int zm_arch_membarrier_init(void)
{
    long cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0);
    if (cmds < 0 || !(cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED))
        return 0;
    return syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0) == 0;
}

void zm_arch_membarrier(void)
{
    syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0);
}

uint64_t zm_arch_time_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t zm_arch_thread_clock(void)
{
    clockid_t id;
    if (pthread_getcpuclockid(pthread_self(), &id) != 0)
        return 0;
    /* clockid_t values of threads are negative: keep the 32 bits and mark
     * the handle nonzero with bit 32. */
    return (uint64_t)(uint32_t)id | (1ull << 32);
}

uint64_t zm_arch_thread_cpu_ns(uint64_t clock)
{
    struct timespec ts;
    if (!clock || clock_gettime((clockid_t)(int32_t)(uint32_t)clock, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Each thread's descriptor of its own /proc/thread-self/schedstat, opened
 * at its first sample and kept, so that a sample is one pread instead of
 * open, read and close (a worker samples after each long hand-off and at
 * each step of a stepped sleep).  The value stored is the descriptor plus
 * one, so that 0 means not opened yet.  zm_arch_thread_wait_end closes it.
 * (Not a pthread key with a destructor: a key made by zmpi before MPICH's
 * UCX made its own crashed UCX's profile clean-up at exit, in a rank that
 * calls exit with MPICH as the network: test net_mpich_fault_exit3.) */
static __thread int sched_fd1;

/* The calling thread's schedstat descriptor, or -1 where there is none
 * (no CONFIG_SCHED_INFO, no /proc): tried once per thread. */
static int sched_fd(void)
{
    if (sched_fd1 == 0)
        sched_fd1 = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC) + 1;
    return sched_fd1 - 1;
}

void zm_arch_thread_wait_end(void)
{
    if (sched_fd1 > 0)
        close(sched_fd1 - 1);
    sched_fd1 = 0;
}

uint64_t zm_arch_thread_wait_ns(void)
{
    /* The scheduler's own account (CONFIG_SCHED_INFO): run time, time
     * spent runnable on a run queue, time slices.  A brief preemption by a
     * kernel thread adds microseconds here, a host whose cores other work
     * keeps busy adds whole time slices. */
    char buf[96];
    int fd = sched_fd();
    if (fd >= 0) {
        ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
        unsigned long long run, delay;
        if (n > 0) {
            buf[n] = 0;
            if (sscanf(buf, "%llu %llu", &run, &delay) == 2)
                return (uint64_t)delay;
        }
    }
    /* Without it, count each involuntary switch as a time slice lost. */
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) != 0)
        return 0;
    return (uint64_t)ru.ru_nivcsw * 1000000u;
}

double zm_arch_time_resolution(void)
{
    struct timespec ts;
    if (clock_getres(CLOCK_MONOTONIC, &ts) != 0)
        return 1e-9;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

long zm_arch_map_budget(long *in_use)
{
    long max = -1;
    *in_use = 0;
    FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
    if (f) {
        if (fscanf(f, "%ld", &max) != 1)
            max = -1;
        fclose(f);
    }
    f = fopen("/proc/self/maps", "r");
    if (f) {
        int c;
        while ((c = getc(f)) != EOF)
            *in_use += c == '\n';
        fclose(f);
    }
    return max;
}

int zm_arch_ncpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n > 0)
            return n;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

void zm_arch_hostname(char *buf, size_t len)
{
    if (gethostname(buf, len) != 0)
        strncpy(buf, "localhost", len);
    buf[len - 1] = '\0';
}

long zm_arch_sock_try(int fd, void *buf, size_t len, int out)
{
    ssize_t n = out ? send(fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL)
                    : recv(fd, buf, len, MSG_DONTWAIT);
    if (n > 0)
        return (long)n;
    if (n == 0)
        return len == 0 ? 0 : -EPIPE; /* an orderly shutdown of the other end */
    return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -errno;
}

void zm_arch_sock_wait(int fd, int out, int ms)
{
    struct pollfd p = { fd, (short)(out ? POLLOUT : POLLIN), 0 };
    (void)poll(&p, 1, ms);
}

uint64_t zm_arch_random64(void)
{
    uint64_t v;
    if (getrandom(&v, sizeof(v), GRND_NONBLOCK) == (ssize_t)sizeof(v))
        return v;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return ((uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec) ^
           ((uint64_t)getpid() << 32);
}

static zm_arch_fault_fn fault_fn;

static void fault_handler(int sig, siginfo_t *info, void *uctx)
{
    if ((sig == SIGSEGV || sig == SIGBUS) && fault_fn && fault_fn(info->si_addr))
        _exit(139);
    /* Not a fault we know: report the crash, restore the default action
     * and return, so the faulting instruction runs again and the process
     * dies with the signal (and a core dump, if enabled).  A signal sent
     * by kill or raise (abort included) would not come again by itself. */
    zm_arch_crash_report(sig, info, uctx);
    signal(sig, SIG_DFL);
    if (info->si_code <= 0)
        raise(sig);
}

void zm_arch_crash_signals(void)
{
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = fault_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        sigaction(sigs[i], &sa, NULL);
}

void zm_arch_fault_install(zm_arch_fault_fn fn)
{
    fault_fn = fn;
    zm_arch_crash_signals();
}

int zm_arch_fault_thread_init(void)
{
    stack_t ss;
    size_t size = 64 * 1024;
    ss.ss_sp = mmap(NULL, size, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (ss.ss_sp == MAP_FAILED)
        return -1;
    ss.ss_size = size;
    ss.ss_flags = 0;
    return sigaltstack(&ss, NULL);
}
