/*
 * launch_priv.c: the start code of a privatized program (libzmpi_priv.a).
 *
 * `zmpicc -zmpi-privatize` links the program as a position-independent
 * executable (whose copies zmpi loads with dlopen, src/arch/image_linux.c),
 * with zm_arch_entry as its entry point instead of the C runtime's, so that the
 * program's own constructors do not run in the launcher.  The entry hands
 * the command line to the library, which loads one private copy of the
 * program per rank and runs each copy's main (docs/privatization.md).
 * exit() called by a rank ends only that rank, as with libzmpi_main.a.
 */

#define _DEFAULT_SOURCE /* random_r and friends */
#include <stdint.h>
#include <stdlib.h>

int zmpi_launch_privatized(int argc, char **argv, char **envp);
void zmpi_rank_exit(int status);
void __real_exit(int status) __attribute__((noreturn));
void zmpi_priv_entry(long *sp) __attribute__((noreturn));

/* Called by zm_arch_entry with the initial stack: argc, argv..., NULL,
 * envp..., NULL.  libc is already initialised, being a dependency. */
void zmpi_priv_entry(long *sp)
{
    int argc = (int)sp[0];
    char **argv = (char **)(sp + 1);
    char **envp = argv + argc + 1;
    /* The real exit: this is the process, not a rank. */
    __real_exit(zmpi_launch_privatized(argc, argv, envp));
}

void __wrap_srandom(unsigned seed);
long __wrap_random(void);
void __wrap_srand(unsigned seed);
int __wrap_rand(void);

void zmpi_output_flush_rank(void);
void __cxa_finalize(void *dso);
void zm_mpi_priv_exiting(int status) __attribute__((visibility("hidden")));
extern void *__dso_handle __attribute__((visibility("hidden")));

void __wrap_exit(int status)
{
    /* As exit ends a process: this rank's atexit and on_exit handlers
     * and C++ static destructors (registered with its copy's
     * __dso_handle) run now, in the rank, before its output is flushed;
     * the other ranks' stay. */
    zm_mpi_priv_exiting(status);
    __cxa_finalize(__dso_handle);
    zmpi_output_flush_rank();
    zmpi_rank_exit(status);
    __real_exit(status);
}

/*
 * Per-rank random numbers.  rand() and random() keep their state inside
 * libc, which all ranks of the process share: two ranks that seed and draw
 * at the same time on different workers would interleave one sequence
 * (HPCC's DGEMM check regenerates a matrix from its seed and got another
 * one).  This file is linked into the program, so the state below is
 * privatized with the program's other globals: each rank draws the exact
 * sequence glibc would give a process, from the same default seed (1).
 * Only the calls in the user's own objects are redirected (--wrap); a
 * system library's calls still use libc's shared state.
 */
static struct random_data rand_data;
static char rand_state[128]; /* glibc's default TYPE_3 state */
static int rand_ready;

static struct random_data *rank_random(void)
{
    if (!rand_ready) {
        initstate_r(1, rand_state, sizeof rand_state, &rand_data);
        rand_ready = 1;
    }
    return &rand_data;
}

void __wrap_srandom(unsigned seed)
{
    srandom_r(seed, rank_random());
}

long __wrap_random(void)
{
    int32_t r;
    random_r(rank_random(), &r);
    return r;
}

void __wrap_srand(unsigned seed)
{
    __wrap_srandom(seed);
}

int __wrap_rand(void)
{
    return (int)__wrap_random();
}

/*
 * ThreadSanitizer's default suppressions for a program built with
 * -fsanitize=thread (TSan asks the executable for them when it starts):
 * libc calls made inside libzmpi (memcpy of message data, malloc, locks)
 * are not checked.  libzmpi is not instrumented, so TSan cannot see the
 * atomics that order those calls between ranks and would report every
 * message copied between ranks on different workers as a race; the
 * program's own accesses are all still checked (docs/debugging.md).  Weak,
 * so that a program's own definition replaces it.
 */
__attribute__((weak)) const char *__tsan_default_suppressions(void);

__attribute__((weak)) const char *__tsan_default_suppressions(void)
{
    return "called_from_lib:libzmpi.so\n"
           "called_from_lib:libzmpi_net_\n";
}
