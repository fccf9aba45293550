#!/bin/sh
# fortran_bench_count.sh: the cost of the mpi_f08 binding against C in
# instructions (issue 19), which a shared machine does not disturb.  Builds
# fortran_bench_f08.f90 with zmpifort and fortran_bench_c.c with zmpicc,
# runs each loop (ping-pong, allreduce, nonblocking exchange) of each under
# callgrind with ITERS and 2*ITERS iterations, 2 ranks on 1 worker, and
# prints the instructions per iteration (the difference of the two totals
# over 7*ITERS: each program times 7 runs of ITERS), which leave out
# start-up and finalize.  A ping-pong iteration is two sends and two
# receives, an allreduce one MPI_Allreduce in each rank, a nonblocking
# iteration an MPI_Irecv, an MPI_Isend and two MPI_Waits (waitall: one
# MPI_Waitall) in each rank.
#
#   fortran_bench_count.sh BINDIR [ITERS [BUILD-FLAG]]
#
# BINDIR holds zmpifort and zmpicc (<build>/tools or <prefix>/bin).
# Defaults: 20000 iterations, programs built with -zmpi-no-privatize (pass
# "" to count privatized programs).  Needs valgrind.
bin=$(cd "$1" 2>/dev/null && pwd) iters=${2:-20000} flag=${3--zmpi-no-privatize}
[ -x "$bin/zmpifort" ] || { echo "usage: $0 BINDIR [ITERS [BUILD-FLAG]]" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "$0: needs valgrind" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/zmpi-fcount.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
# The loops in a routine of their own, as fortran_bench_compare.sh builds
# them (and as the C program's noinline bench).
(cd "$work" && "$bin/zmpifort" $flag -O2 -fno-inline-functions-called-once \
        -o f08 "$here/fortran_bench_f08.f90" &&
    "$bin/zmpicc" $flag -O2 -o c "$here/fortran_bench_c.c") || exit 1
# total PROG N LOOP: the instructions of a whole run of PROG.
total() {
    ZMPI_NP=2 ZMPI_WORKERS=1 valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" \
        "$work/$1" "$2" "$3" >/dev/null 2>"$work/cg.err" || { cat "$work/cg.err" >&2; exit 1; }
    awk '/^(summary|totals):/ { print $2; exit }' "$work/cg.out"
}
# per PROG LOOP: instructions per iteration of LOOP in PROG.
per() {
    a=$(total "$1" "$iters" "$2") || exit 1
    b=$(total "$1" $((2 * iters)) "$2") || exit 1
    awk -v a="$a" -v b="$b" -v n="$iters" 'BEGIN { printf "%.1f", (b - a) / (7 * n) }'
}
cpp=$(per c pp) && fpp=$(per f08 pp) && car=$(per c ar) && far=$(per f08 ar) &&
    cnb=$(per c nb) && fnb=$(per f08 nb) && cwa=$(per c wa) && fwa=$(per f08 wa) || exit 1
awk -v cpp="$cpp" -v fpp="$fpp" -v car="$car" -v far="$far" -v cnb="$cnb" -v fnb="$fnb" \
    -v cwa="$cwa" -v fwa="$fwa" 'BEGIN {
    printf "instructions per iteration, 2 ranks on 1 worker, 8 bytes\n"
    printf "                    C   mpi_f08  difference\n"
    printf "ping-pong     %7.1f   %7.1f    %+5.1f %%\n", cpp, fpp, (fpp - cpp) / cpp * 100
    printf "allreduce     %7.1f   %7.1f    %+5.1f %%\n", car, far, (far - car) / car * 100
    printf "nonblocking   %7.1f   %7.1f    %+5.1f %%\n", cnb, fnb, (fnb - cnb) / cnb * 100
    printf "waitall       %7.1f   %7.1f    %+5.1f %%\n", cwa, fwa, (fwa - cwa) / cwa * 100 }'
