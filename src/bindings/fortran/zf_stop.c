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
 * The signatures are gfortran's since GCC 8 (the QUIET= specifier). */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

extern void _gfortran_flush_i4(int *unit);
void _gfortran_stop_numeric(int code, bool quiet);
void _gfortran_stop_string(const char *string, size_t len, bool quiet);

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
