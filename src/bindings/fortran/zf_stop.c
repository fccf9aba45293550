/* zf_stop.c: Fortran's STOP in a rank ends that rank only, as exit() in a
 * C rank does.
 *
 * gfortran compiles STOP into calls of libgfortran's _gfortran_stop_numeric
 * and _gfortran_stop_string, which call exit() inside libgfortran, out of
 * reach of zmpi's --wrap=exit: the whole job would end with the first rank
 * that stops.  These definitions, linked into the program from
 * libzmpi_fortran.a, take precedence over libgfortran's (the program binds
 * its own symbols) and call exit() from the program, which zmpi's wrapper
 * turns into the end of the rank.  ERROR STOP keeps libgfortran's
 * behaviour: it ends the whole job with its code, as MPI users expect.
 * The signatures are gfortran's since GCC 8 (the QUIET= specifier).
 *
 * ERROR STOP goes through here too, only to flush the units first: its
 * exit() comes from a worker thread while the other ranks' workers still
 * run, and libgfortran's own flush at exit then leaves buffered output
 * (WRITE(*,*) to a file) unwritten; the job ended with its lines lost.
 * libgfortran's own routine still reports and ends the job. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

extern void _gfortran_flush_i4(int *unit);
void _gfortran_stop_numeric(int code, bool quiet);
void _gfortran_stop_string(const char *string, size_t len, bool quiet);
void _gfortran_error_stop_numeric(int code, bool quiet);
void _gfortran_error_stop_string(const char *string, size_t len, bool quiet);

/* STOP <integer>: gfortran reports the code on stderr. */
void _gfortran_stop_numeric(int code, bool quiet)
{
    _gfortran_flush_i4(NULL);
    if (!quiet)
        fprintf(stderr, "STOP %d\n", code);
    exit(code);
}

/* STOP and STOP '<text>': the text (if any) goes to stderr; status 0. */
void _gfortran_stop_string(const char *string, size_t len, bool quiet)
{
    _gfortran_flush_i4(NULL);
    if (string && !quiet)
        fprintf(stderr, "STOP %.*s\n", (int)len, string);
    exit(0);
}

/* libgfortran's definition of `name` (the program's own is the one above,
 * so the library is asked by handle), or NULL. */
static void *gfortran_fn(const char *name)
{
    void *lib = dlopen("libgfortran.so.5", RTLD_LAZY | RTLD_NOLOAD);
    return lib ? dlsym(lib, name) : NULL;
}

/* ERROR STOP <integer>: flush, then libgfortran's report and job end. */
void _gfortran_error_stop_numeric(int code, bool quiet)
{
    _gfortran_flush_i4(NULL);
    fflush(NULL);
    void (*real)(int, bool) = (void (*)(int, bool))gfortran_fn("_gfortran_error_stop_numeric");
    if (real)
        real(code, quiet);
    if (!quiet)
        fprintf(stderr, "ERROR STOP %d\n", code);
    _Exit(code);
}

/* ERROR STOP and ERROR STOP '<text>': the same, status 1. */
void _gfortran_error_stop_string(const char *string, size_t len, bool quiet)
{
    _gfortran_flush_i4(NULL);
    fflush(NULL);
    void (*real)(const char *, size_t, bool) =
        (void (*)(const char *, size_t, bool))gfortran_fn("_gfortran_error_stop_string");
    if (real)
        real(string, len, quiet);
    if (string && !quiet)
        fprintf(stderr, "ERROR STOP %.*s\n", (int)len, string);
    _Exit(1);
}
