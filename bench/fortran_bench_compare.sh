#!/bin/sh
# fortran_bench_compare.sh: the cost of the mpi_f08 binding against C
# (issue 19).  Builds fortran_bench_f08.f90 with zmpifort and
# fortran_bench_c.c with zmpicc, runs them alternately RUNS times (each run
# prints the median of 7 timings) and prints, for an 8-byte ping-pong (half
# round trip) and an 8-byte MPI_Allreduce, the best run of each and the
# median of the runs, and the differences, then the spread of the runs.
#
#   fortran_bench_compare.sh BINDIR [RUNS [ITERS [NP [WORKERS]]]]
#
# BINDIR holds zmpifort, zmpicc and zmpirun (<build>/tools or <prefix>/bin).
# Defaults: 6 runs of 200000 iterations, 2 ranks on 1 worker (zmpi's
# shortest path, where the binding's cost shows most).
bin=$(cd "$1" 2>/dev/null && pwd) runs=${2:-6} iters=${3:-200000} np=${4:-2} nw=${5:-1}
[ -x "$bin/zmpifort" ] || { echo "usage: $0 BINDIR [RUNS [ITERS [NP [WORKERS]]]]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/zmpi-fbench.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
(cd "$work" && "$bin/zmpifort" -O2 -o f08 "$here/fortran_bench_f08.f90" &&
    "$bin/zmpicc" -O2 -o c "$here/fortran_bench_c.c") || exit 1
i=0
while [ "$i" -lt "$runs" ]; do
    "$bin/zmpirun" -n "$np" -w "$nw" "$work/c" "$iters" >>"$work/c.out" || exit 1
    "$bin/zmpirun" -n "$np" -w "$nw" "$work/f08" "$iters" >>"$work/f08.out" || exit 1
    i=$((i + 1))
done
# best FILE FIELD: the smallest value of field FIELD (5: ping-pong, 8:
# allreduce, counted after the label's words) over the runs in FILE.
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
cpp=$(best "$work/c.out" 5) car=$(best "$work/c.out" 8)
fpp=$(best "$work/f08.out" 5) far=$(best "$work/f08.out" 8)
mcpp=$(med "$work/c.out" 5) mcar=$(med "$work/c.out" 8)
mfpp=$(med "$work/f08.out" 5) mfar=$(med "$work/f08.out" 8)
awk -v cpp="$cpp" -v car="$car" -v fpp="$fpp" -v far="$far" -v r="$runs" -v np="$np" -v nw="$nw" 'BEGIN {
    printf "best of %d alternated runs, %d ranks on %d workers, 8 bytes (us per operation)\n", r, np, nw
    printf "              C     mpi_f08  difference\n"
    printf "ping-pong  %7.4f  %7.4f    %+5.1f %%\n", cpp, fpp, (fpp - cpp) / cpp * 100
    printf "allreduce  %7.4f  %7.4f    %+5.1f %%\n", car, far, (far - car) / car * 100 }'
awk -v cpp="$mcpp" -v car="$mcar" -v fpp="$mfpp" -v far="$mfar" 'BEGIN {
    printf "median of the runs\n"
    printf "ping-pong  %7.4f  %7.4f    %+5.1f %%\n", cpp, fpp, (fpp - cpp) / cpp * 100
    printf "allreduce  %7.4f  %7.4f    %+5.1f %%\n", car, far, (far - car) / car * 100 }'
printf 'spread (fastest-slowest run)\n'
printf 'ping-pong  C %s  mpi_f08 %s\n' "$(range "$work/c.out" 5)" "$(range "$work/f08.out" 5)"
printf 'allreduce  C %s  mpi_f08 %s\n' "$(range "$work/c.out" 8)" "$(range "$work/f08.out" 8)"
