#!/bin/sh
# fortran_bench_compare.sh: the cost of the mpi_f08 binding against C
# (issue 19).  Builds fortran_bench_f08.f90 with zmpifort and
# fortran_bench_c.c with zmpicc, runs them alternately RUNS times (each run
# prints the median of 7 timings) and prints, for an 8-byte ping-pong (half
# round trip), an 8-byte MPI_Allreduce and an 8-byte nonblocking exchange
# (Irecv, Isend, then two Waits or one Waitall per rank), the best run of each and the median
# of the runs, and the differences, then the spread of the runs.
#
#   fortran_bench_compare.sh BINDIR [RUNS [ITERS [NP [WORKERS]]]]
#
# BINDIR holds zmpifort, zmpicc and zmpirun (<build>/tools or <prefix>/bin).
# Defaults: 6 runs of 200000 iterations, 2 ranks on 1 worker (zmpi's
# shortest path, where the binding's cost shows most).
#
# Two things move these loops by more than the binding does, and are held
# the same for both programs:
# - where the loops' stack lies: run i of each program puts (i * 576) mod
#   4096 bytes of stack below main (the programs' PAD argument), so that
#   both are measured over the same spread of offsets (a C ping-pong alone
#   takes 0.056 to 0.060 us depending on it);
# - on more than one worker, which worker each rank runs on: wake-up
#   migration may gather the two ranks on one worker for some of the 7
#   timings and not for others (0.057 against 0.114 us per half round trip
#   on 2 workers), so ZMPI_WAKE_MIGRATE=0 keeps each rank on its worker
#   unless the caller sets it.  (That gathering came mostly from a flaw
#   fixed in 4c27c71, which switched the busy-host policy on for good on
#   a quiet host; the setting stays so that series remain comparable.)
bin=$(cd "$1" 2>/dev/null && pwd) runs=${2:-6} iters=${3:-200000} np=${4:-2} nw=${5:-1}
[ -x "$bin/zmpifort" ] || { echo "usage: $0 BINDIR [RUNS [ITERS [NP [WORKERS]]]]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/zmpi-fbench.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
[ "$nw" -gt 1 ] && [ -z "${ZMPI_WAKE_MIGRATE+set}" ] && export ZMPI_WAKE_MIGRATE=0
# -fstack-arrays: the pad, an automatic array, on the stack as in C.
# -fno-inline-functions-called-once: the loops stay in a routine of their
# own below the pad, as in C (noinline there).  gfortran -O2 otherwise
# inlines both internal routines into the main program, whose frame then
# holds the loops' variables and the buffers' descriptors above the pad:
# only the library's frames moved from one run to the next, and every
# mpi_f08 run measured one placement of the loop's own stack data against
# C's eight.
(cd "$work" && "$bin/zmpifort" -O2 -fstack-arrays -fno-inline-functions-called-once \
        -o f08 "$here/fortran_bench_f08.f90" &&
    "$bin/zmpicc" -O2 -o c "$here/fortran_bench_c.c") || exit 1
i=0
while [ "$i" -lt "$runs" ]; do
    pad=$((i * 576 % 4096))
    "$bin/zmpirun" -n "$np" -w "$nw" "$work/c" "$iters" both "$pad" >>"$work/c.out" || exit 1
    "$bin/zmpirun" -n "$np" -w "$nw" "$work/f08" "$iters" both "$pad" >>"$work/f08.out" || exit 1
    i=$((i + 1))
done
# best FILE FIELD: the smallest value of field FIELD (5: ping-pong, 8:
# allreduce, 11: nonblocking, 14: waitall, counted after the label's
# words) over the runs in FILE.
best() {
    awk -v f="$2" '{ sub(/^[^:]*: */, ""); v = $(f) + 0; if (!n++ || v < m) m = v }
                   END { printf "%.4f", m }' "$1"
}
# med FILE FIELD: the median of that field over the runs.
med() {
    awk -v f="$2" '{ sub(/^[^:]*: */, ""); print $(f) + 0 }' "$1" | sort -g |
        awk '{ v[++n] = $1 } END { printf "%.4f", n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }'
}
# range FILE FIELD: the smallest and the largest value of that field, the
# spread of the runs.
range() {
    awk -v f="$2" '{ sub(/^[^:]*: */, ""); v = $(f) + 0; if (!n++ || v < lo) lo = v; if (n == 1 || v > hi) hi = v }
                   END { printf "%.4f-%.4f", lo, hi }' "$1"
}
cpp=$(best "$work/c.out" 5) car=$(best "$work/c.out" 8) cnb=$(best "$work/c.out" 11)
fpp=$(best "$work/f08.out" 5) far=$(best "$work/f08.out" 8) fnb=$(best "$work/f08.out" 11)
cwa=$(best "$work/c.out" 14) fwa=$(best "$work/f08.out" 14)
mcpp=$(med "$work/c.out" 5) mcar=$(med "$work/c.out" 8) mcnb=$(med "$work/c.out" 11)
mfpp=$(med "$work/f08.out" 5) mfar=$(med "$work/f08.out" 8) mfnb=$(med "$work/f08.out" 11)
mcwa=$(med "$work/c.out" 14) mfwa=$(med "$work/f08.out" 14)
# table TITLE C-PP F-PP C-AR F-AR C-NB F-NB C-WA F-WA: four lines of C,
# mpi_f08 and their difference.
table() {
    awk -v t="$1" -v cpp="$2" -v fpp="$3" -v car="$4" -v far="$5" -v cnb="$6" -v fnb="$7" \
        -v cwa="$8" -v fwa="$9" 'BEGIN {
        printf "%s\n", t
        printf "ping-pong    %7.4f  %7.4f    %+5.1f %%\n", cpp, fpp, (fpp - cpp) / cpp * 100
        printf "allreduce    %7.4f  %7.4f    %+5.1f %%\n", car, far, (far - car) / car * 100
        printf "nonblocking  %7.4f  %7.4f    %+5.1f %%\n", cnb, fnb, (fnb - cnb) / cnb * 100
        printf "waitall      %7.4f  %7.4f    %+5.1f %%\n", cwa, fwa, (fwa - cwa) / cwa * 100 }'
}
printf 'best of %d alternated runs, %d ranks on %d workers, 8 bytes (us per operation)\n' \
    "$runs" "$np" "$nw"
[ "$nw" -gt 1 ] && printf 'ZMPI_WAKE_MIGRATE=%s\n' "${ZMPI_WAKE_MIGRATE-}"
table "                C     mpi_f08  difference" "$cpp" "$fpp" "$car" "$far" "$cnb" "$fnb" \
    "$cwa" "$fwa"
table "median of the runs" "$mcpp" "$mfpp" "$mcar" "$mfar" "$mcnb" "$mfnb" "$mcwa" "$mfwa"
# ratio FIELD: the median over the pairs of runs of mpi_f08's time over
# C's, each mpi_f08 run against the C run just before it.  Runs next to
# each other share the host's state (on a VM, where it placed the two
# virtual CPUs: 2-worker round trips of 0.11 us or 0.43 us for minutes
# at a time), which the medians above mix.
ratio() {
    paste -d '|' "$work/c.out" "$work/f08.out" | awk -v f="$1" -F '|' '{
        a = $1; b = $2; sub(/^[^:]*: */, "", a); sub(/^[^:]*: */, "", b)
        split(a, x, " "); split(b, y, " "); print (y[f] / x[f] - 1) * 100 }' | sort -g |
        awk '{ v[++n] = $1 } END { printf "%+5.1f %%", n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }'
}
printf 'median of the pairs (mpi_f08 against the C run before it)\n'
printf 'ping-pong    %s\nallreduce    %s\nnonblocking  %s\nwaitall      %s\n' \
    "$(ratio 5)" "$(ratio 8)" "$(ratio 11)" "$(ratio 14)"
printf 'spread (fastest-slowest run)\n'
printf 'ping-pong    C %s  mpi_f08 %s\n' "$(range "$work/c.out" 5)" "$(range "$work/f08.out" 5)"
printf 'allreduce    C %s  mpi_f08 %s\n' "$(range "$work/c.out" 8)" "$(range "$work/f08.out" 8)"
printf 'nonblocking  C %s  mpi_f08 %s\n' "$(range "$work/c.out" 11)" "$(range "$work/f08.out" 11)"
printf 'waitall      C %s  mpi_f08 %s\n' "$(range "$work/c.out" 14)" "$(range "$work/f08.out" 14)"
