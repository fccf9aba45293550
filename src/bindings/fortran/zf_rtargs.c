/* zf_rtargs.c: libgfortran's command line and runtime options come back
 * after a checkpoint (docs/checkpoint.md, docs/fortran.md).
 *
 * A gfortran main program hands its argc/argv to libgfortran
 * (_gfortran_set_args, read by GET_COMMAND_ARGUMENT, COMMAND_ARGUMENT_COUNT
 * and GET_COMMAND) and its compile-time runtime options
 * (_gfortran_set_options: backtraces, bounds checks, signed zeros) before
 * it runs.  libgfortran keeps both in its own memory, outside every rank's
 * region, so a job restarted from a checkpoint, whose ranks never run main
 * again, would answer GET_COMMAND_ARGUMENT with blanks.  A privatized
 * program is linked with --wrap for the two calls (ZMPI_PRIV_WRAPS_FORTRAN
 * in CMakeLists.txt): the wrappers keep what main passes in this rank's
 * copy of the glue, which a checkpoint saves with the rank, and
 * zf_rt_restore hands it to libgfortran again when ZMPI_CHECKPOINT
 * returns, in the job that wrote the checkpoint and in every job restarted
 * from it.  The argv strings are the rank's own copy (in its heap, saved
 * too).  libgfortran keeps one command line per process, as before. */
#include "zf.h"

/* libgfortran's entry points, reached through the linker's --wrap names.
 * Weak: a program linked without the wraps (not privatized, hence never
 * checkpointed) has neither, and zf_rt_restore does nothing there. */
void __real__gfortran_set_args(int argc, char **argv) __attribute__((weak));
void __real__gfortran_set_options(int n, int options[]) __attribute__((weak));
void __wrap__gfortran_set_args(int argc, char **argv);
void __wrap__gfortran_set_options(int n, int options[]);

/* gfortran passes 7 to 9 options (GCC 8 to 14); more are kept up to this. */
#define ZF_RT_MAX_OPTIONS 16

/* What this rank's main passed; per rank under privatization (the glue is
 * linked into each copy of the program). */
static int zf_rt_argc = -1;           /* -1: main has not called set_args */
static char **zf_rt_argv;             /* the rank's argv (its heap) */
static int zf_rt_nopt = -1;           /* -1: main has not called set_options */
static int zf_rt_opt[ZF_RT_MAX_OPTIONS]; /* the option values, copied */

/* _gfortran_set_args as main calls it: keeps the arguments, then passes
 * them on.  Called once, by the rank's main, on the rank's thread. */
void __wrap__gfortran_set_args(int argc, char **argv)
{
    zf_rt_argc = argc;
    zf_rt_argv = argv;
    __real__gfortran_set_args(argc, argv);
}

/* _gfortran_set_options as main calls it: keeps a copy of the option
 * values (main's array is constant data), then passes them on. */
void __wrap__gfortran_set_options(int n, int options[])
{
    if (n >= 0 && n <= ZF_RT_MAX_OPTIONS) {
        for (int i = 0; i < n; i++)
            zf_rt_opt[i] = options[i];
        zf_rt_nopt = n;
    }
    __real__gfortran_set_options(n, options);
}

/* Hands libgfortran the command line and options this rank's main passed
 * (nothing if it passed none or the program was linked without the
 * wraps).  Called by the glue of ZMPI_CHECKPOINT after it succeeded, on
 * the rank's thread; libgfortran copies nothing, so the argv stays the
 * rank's. */
void zf_rt_restore(void)
{
    if (zf_rt_nopt >= 0 && __real__gfortran_set_options)
        __real__gfortran_set_options(zf_rt_nopt, zf_rt_opt);
    if (zf_rt_argc >= 0 && __real__gfortran_set_args)
        __real__gfortran_set_args(zf_rt_argc, zf_rt_argv);
}
