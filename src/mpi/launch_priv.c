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

void __wrap_exit(int status)
{
    zmpi_rank_exit(status);
    __real_exit(status);
}
