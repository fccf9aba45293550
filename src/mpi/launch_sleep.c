/*
 * launch_sleep.c: sleep, usleep, nanosleep and clock_nanosleep of a
 * privatized program (libzmpi_priv.a; zmpicc links the program with
 * --wrap for each, docs/privatization.md).
 *
 * Called on a rank (a ULT), the sleep parks only that rank until the
 * deadline (zmpi_rank_sleep_until, src/ult/ult_timer.c) while its worker
 * runs the other ranks; libc's sleep would block the worker's thread and
 * every rank on it.  Called on any other thread (one the program created,
 * or before the job runs), or with arguments libc rejects or a clock
 * other than CLOCK_REALTIME and CLOCK_MONOTONIC, the call goes to libc
 * unchanged, which also gives libc's errors.  A rank's sleep ends only at
 * its deadline: no signal interrupts it (EINTR never happens), and the
 * remaining time a relative nanosleep or clock_nanosleep writes is then
 * always zero.  A CLOCK_REALTIME deadline is turned into a monotonic one
 * when the sleep starts: later changes of the system clock do not move it.
 * Only the calls in the program's own objects are redirected (--wrap); a
 * library's own sleeps (C11 thrd_sleep) block.  gfortran's SLEEP
 * intrinsic, which calls libgfortran, is redirected by name (zmpifort
 * wraps its two entry points).
 */

#define _DEFAULT_SOURCE /* usleep */
#include <stdint.h>
#include <time.h>
#include <unistd.h>

int zmpi_rank_sleep_until(uint64_t deadline_ns);

unsigned int __real_sleep(unsigned int seconds);
int __real_usleep(useconds_t usec);
int __real_nanosleep(const struct timespec *req, struct timespec *rem);
int __real_clock_nanosleep(clockid_t clk, int flags, const struct timespec *req,
                           struct timespec *rem);

unsigned int __wrap_sleep(unsigned int seconds);
int __wrap_usleep(useconds_t usec);
int __wrap_nanosleep(const struct timespec *req, struct timespec *rem);
int __wrap_clock_nanosleep(clockid_t clk, int flags, const struct timespec *req,
                           struct timespec *rem);

#define NS_PER_S 1000000000ull

static uint64_t clock_ns(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

/* now + ns, saturated: a request of centuries never wraps round into the
 * past. */
static uint64_t after(uint64_t now, uint64_t ns)
{
    return ns > UINT64_MAX - now ? UINT64_MAX : now + ns;
}

/* A timespec's nanoseconds, saturated.  ts is valid (valid_ts). */
static uint64_t ts_ns(const struct timespec *ts)
{
    uint64_t s = (uint64_t)ts->tv_sec;
    if (s > (UINT64_MAX - NS_PER_S) / NS_PER_S)
        return UINT64_MAX;
    return s * NS_PER_S + (uint64_t)ts->tv_nsec;
}

/* Whether libc (the kernel) accepts ts: not negative, nanoseconds below a
 * second.  Invalid requests go to libc, which reports them. */
static int valid_ts(const struct timespec *ts)
{
    return ts && ts->tv_sec >= 0 && ts->tv_nsec >= 0 && (uint64_t)ts->tv_nsec < NS_PER_S;
}

/* Sleep the calling rank for ns nanoseconds; 0 if done, -1 if the caller
 * is no rank (nothing was done: it must call libc). */
static int rank_sleep_ns(uint64_t ns)
{
    return zmpi_rank_sleep_until(after(clock_ns(CLOCK_MONOTONIC), ns));
}

unsigned int __wrap_sleep(unsigned int seconds)
{
    if (rank_sleep_ns((uint64_t)seconds * NS_PER_S) == 0)
        return 0;
    return __real_sleep(seconds);
}

int __wrap_usleep(useconds_t usec)
{
    if (rank_sleep_ns((uint64_t)usec * 1000ull) == 0)
        return 0;
    return __real_usleep(usec);
}

int __wrap_nanosleep(const struct timespec *req, struct timespec *rem)
{
    if (!valid_ts(req) || rank_sleep_ns(ts_ns(req)) != 0)
        return __real_nanosleep(req, rem);
    if (rem)
        *rem = (struct timespec){ 0, 0 };
    return 0;
}

/* The monotonic deadline of an absolute clock_nanosleep on clk. */
static uint64_t abs_deadline(clockid_t clk, const struct timespec *req)
{
    uint64_t want = ts_ns(req), mono = clock_ns(CLOCK_MONOTONIC);
    if (clk == CLOCK_MONOTONIC)
        return want;
    uint64_t real = clock_ns(CLOCK_REALTIME);
    return want > real ? after(mono, want - real) : mono;
}

int __wrap_clock_nanosleep(clockid_t clk, int flags, const struct timespec *req,
                           struct timespec *rem)
{
    int abs = (flags & TIMER_ABSTIME) != 0;
    if ((clk != CLOCK_MONOTONIC && clk != CLOCK_REALTIME) || !valid_ts(req))
        return __real_clock_nanosleep(clk, flags, req, rem);
    uint64_t deadline = abs ? abs_deadline(clk, req)
                            : after(clock_ns(CLOCK_MONOTONIC), ts_ns(req));
    if (zmpi_rank_sleep_until(deadline) != 0)
        return __real_clock_nanosleep(clk, flags, req, rem);
    if (rem && !abs)
        *rem = (struct timespec){ 0, 0 };
    return 0;
}

/* gfortran's SLEEP intrinsic (CALL SLEEP(n) with a 4- or 8-byte integer),
 * wrapped by zmpifort only.  libgfortran's own version is never called,
 * so that C programs, which have no libgfortran, can link this file: off
 * a rank, the sleep goes to libc's sleep as libgfortran's would.  A
 * negative time does not sleep. */
void __wrap__gfortran_sleep_i4_sub(const int32_t *seconds);
void __wrap__gfortran_sleep_i8_sub(const int64_t *seconds);

static void fortran_sleep(int64_t seconds)
{
    if (seconds <= 0)
        return;
    if (seconds > UINT32_MAX)
        seconds = UINT32_MAX;
    __wrap_sleep((unsigned int)seconds);
}

void __wrap__gfortran_sleep_i4_sub(const int32_t *seconds)
{
    fortran_sleep(*seconds);
}

void __wrap__gfortran_sleep_i8_sub(const int64_t *seconds)
{
    fortran_sleep(*seconds);
}
