/*
 * launch_libc.c: per-rank versions of the libc functions that keep hidden
 * state, for privatized programs (libzmpi_priv.a).
 *
 * strtok and the drand48 family keep their state inside libc, once per
 * process: ranks tokenizing or drawing at the same time on different
 * workers would take each other's position or numbers.  A privatized
 * program is linked with -Wl,--wrap=NAME for each function below (the
 * list ZMPI_PRIV_WRAPS in CMakeLists.txt), so its calls come here; this
 * file is linked into the program itself, so the state below is part of
 * the program's writable data and every rank's copy has its own.  Each
 * function calls glibc's reentrant variant on that state, so a rank gets
 * exactly the results a process would, including the unseeded drand48
 * sequence (glibc starts from a zeroed state, as the static one here is).
 * Only the program's own objects are redirected: a system library that
 * calls strtok or drand48 itself still uses libc's shared state.
 *
 * on_exit is here for another reason: libc runs its handlers when the
 * process ends, after the rank's copy of the program may be gone (the
 * dlopen path closes it when the rank's main returns), so they are
 * registered as the copy's own handlers instead, which run in the rank at
 * its end with its atexit handlers, in reverse order of registration.
 *
 * Every function here may be called by any rank (or by a thread the rank
 * started, which then shares the rank's state, as threads of a process
 * share libc's); none allocates memory.
 */

#define _DEFAULT_SOURCE /* drand48_r and friends */
#include <stdlib.h>
#include <string.h>

char *__wrap_strtok(char *s, const char *delim);
double __wrap_drand48(void);
double __wrap_erand48(unsigned short xsubi[3]);
long __wrap_lrand48(void);
long __wrap_nrand48(unsigned short xsubi[3]);
long __wrap_mrand48(void);
long __wrap_jrand48(unsigned short xsubi[3]);
void __wrap_srand48(long seed);
unsigned short *__wrap_seed48(unsigned short seed16v[3]);
void __wrap_lcong48(unsigned short param[7]);
int __wrap_on_exit(void (*fn)(int, void *), void *arg);
void zm_mpi_priv_exiting(int status) __attribute__((visibility("hidden")));
int __cxa_atexit(void (*fn)(void *), void *arg, void *dso);
extern void *__dso_handle __attribute__((visibility("hidden")));

/* strtok's position in the string it is splitting, per rank. */
static char *strtok_next;

/* strtok on the rank's own position; the returned token lies in s. */
char *__wrap_strtok(char *s, const char *delim)
{
    return strtok_r(s, delim, &strtok_next);
}

/* The drand48 family's state per rank: the last value, and the multiplier
 * and addend that lcong48 may change (which erand48, nrand48 and jrand48
 * use too, though their value is the caller's).  Zeroed, it is glibc's
 * unseeded state: the first call sets the standard multiplier. */
static struct drand48_data rand48;

/* The drand48 family on the rank's own state (drand48(3)). */
double __wrap_drand48(void)
{
    double r;
    drand48_r(&rand48, &r);
    return r;
}

/* erand48, nrand48, jrand48: the caller's value, the rank's multiplier. */
double __wrap_erand48(unsigned short xsubi[3])
{
    double r;
    erand48_r(xsubi, &rand48, &r);
    return r;
}

/* lrand48 and mrand48: the next value of the rank's sequence. */
long __wrap_lrand48(void)
{
    long r;
    lrand48_r(&rand48, &r);
    return r;
}

long __wrap_nrand48(unsigned short xsubi[3])
{
    long r;
    nrand48_r(xsubi, &rand48, &r);
    return r;
}

long __wrap_mrand48(void)
{
    long r;
    mrand48_r(&rand48, &r);
    return r;
}

long __wrap_jrand48(unsigned short xsubi[3])
{
    long r;
    jrand48_r(xsubi, &rand48, &r);
    return r;
}

/* srand48: seeds the rank's sequence only. */
void __wrap_srand48(long seed)
{
    srand48_r(seed, &rand48);
}

/* Returns the previous value, in the rank's state as glibc returns it in
 * its own: valid until the rank's next seed48. */
unsigned short *__wrap_seed48(unsigned short seed16v[3])
{
    seed48_r(seed16v, &rand48);
    return rand48.__old_x;
}

/* lcong48: value, multiplier and addend of the rank's sequence. */
void __wrap_lcong48(unsigned short param[7])
{
    lcong48_r(param, &rand48);
}

/* ---- on_exit ---- */

/* The status the rank passed to exit, which on_exit handlers receive; 0
 * when its main returns (zmpi runs the handlers after main, without its
 * return value). */
static int exit_status;

/* One handler registered by on_exit, freed when it has run. */
typedef struct {
    void (*fn)(int, void *);
    void *arg;
} on_exit_t;

static void run_on_exit(void *p)
{
    on_exit_t h = *(on_exit_t *)p;
    free(p);
    h.fn(exit_status, h.arg);
}

/* Records the status of the rank's exit for its on_exit handlers; called
 * by __wrap_exit (launch_priv.c) on the rank, before its handlers run. */
void zm_mpi_priv_exiting(int status)
{
    exit_status = status;
}

/* on_exit as a handler of the rank's copy (see the top of the file);
 * returns -1 without registering if memory runs out, as libc does. */
int __wrap_on_exit(void (*fn)(int, void *), void *arg)
{
    on_exit_t *h = malloc(sizeof *h);
    if (!h)
        return -1;
    h->fn = fn;
    h->arg = arg;
    if (__cxa_atexit(run_on_exit, h, __dso_handle) != 0) {
        free(h);
        return -1;
    }
    return 0;
}
