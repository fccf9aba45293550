/* zmpirun.h: what the files of the zmpirun launcher share.  zmpirun is a
 * single-threaded command-line tool; none of this is part of libzmpi. */
#ifndef ZMPIRUN_H
#define ZMPIRUN_H

#include <signal.h>
#include <sys/types.h>

/* True if zmpi's ranks will run inside the command argv: its program, or
 * one that a wrapper in it names, is linked with libzmpi.  Reads the
 * programs' ELF headers; allocates nothing. */
int zr_runs_zmpi(char **argv);

/* In the job's forked child: runs n copies of argv (ZMPI_COPY / ZMPI_COPIES
 * set, stdin to copy 0 only) and ends the calling process as the first
 * failing copy ended.  Never returns. */
void zr_run_copies(char **argv, long n, const sigset_t *orig_mask);

/* Asks the kernel to send sig to the calling process when `parent` (the
 * process that forked it) dies; exits at once if it already has. */
void zr_die_with_parent(pid_t parent, int sig);

#endif
