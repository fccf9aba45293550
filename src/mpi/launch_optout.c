/*
 * launch_optout.c: the mark of a program linked with -zmpi-no-privatize
 * (part of libzmpi_main.a).  The linker pulls this object in only when told
 * to (-Wl,-u,zmpi_globals_shared_by_choice); launch_main.c refers to the
 * mark weakly, so without it the mark's address is null and zmpi warns that
 * the ranks share the program's globals.
 */
const int zmpi_globals_shared_by_choice = 1;
