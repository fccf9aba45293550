/*
 * launch_main.c: the stub every MPI program is linked with (libzmpi_main.a).
 *
 * zmpicc links programs with -Wl,--wrap=main -Wl,--wrap=exit, so the C
 * runtime calls __wrap_main instead of the program's main, after all global
 * constructors have run.  The stub hands the real main to the library,
 * which runs it once per virtual rank.  exit() called by a rank ends only
 * that rank, as it would end only that process under a process-based MPI.
 */
int __real_main(int argc, char **argv, char **envp);
void __real_exit(int status) __attribute__((noreturn));

int zmpi_launch(int argc, char **argv, char **envp, int (*main_fn)(int, char **, char **),
                int shared_by_choice);

/* Defined (by launch_optout.c) only in programs linked with
 * -zmpi-no-privatize, which share their globals between ranks knowingly. */
extern const int zmpi_globals_shared_by_choice __attribute__((weak));
void zmpi_rank_exit(int status);

int __wrap_main(int argc, char **argv, char **envp)
{
    return zmpi_launch(argc, argv, envp, __real_main, &zmpi_globals_shared_by_choice != 0);
}

void __wrap_exit(int status)
{
    zmpi_rank_exit(status);
    __real_exit(status);
}
