#!/bin/sh
# startup_run.sh: start-up time and memory of bench/startup.c against the
# rank count (issue 20), for privatized programs with zmpi's own loader of
# rank copies (the default), with the dlopen path (ZMPI_LOADER=dl, which
# grows faster than linearly: only up to DL_MAX ranks), and unprivatized
# (-zmpi-no-privatize).  Each point is the median of RUNS runs, the three
# variants alternated; wall time is the whole zmpirun, start to exit.
# Then the same program built as a 50 MB binary (-DBIG: 48 MiB of
# constants, 2 MiB of data) at BIG_RANKS, privatized with zmpi's loader
# (variant big) and unprivatized (big_shared).
# Prints one tab-separated line per run: variant, ranks, run, seconds,
# Pss kB, maps, Pss kB per rank.
#
#   startup_run.sh ZMPI_BINDIR [RUNS] [RANKS...]
#
# More than about 16 000 ranks need a larger vm.max_map_count (4 maps per
# rank): as root, the script raises it for the run and restores it.
bin=$(cd "$1" 2>/dev/null && pwd) runs=${2:-3}
[ -x "$bin/zmpirun" ] || { echo "usage: $0 ZMPI_BINDIR [RUNS] [RANKS...]" >&2; exit 2; }
shift; [ $# -gt 0 ] && shift
ranks=${*:-"1000 2000 5000 10000 20000 50000 100000"}
dl_max=${DL_MAX:-10000}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/zmpi-startup.XXXXXX") || exit 1
maps_file=/proc/sys/vm/max_map_count
old_maps=$(cat "$maps_file")
restore() { [ -w "$maps_file" ] && echo "$old_maps" >"$maps_file"; rm -rf "$work"; }
trap restore EXIT
[ -w "$maps_file" ] && echo 1000000 >"$maps_file"
"$bin/zmpicc" -O2 -o "$work/priv" "$here/startup.c" || exit 1
"$bin/zmpicc" -O2 -zmpi-no-privatize -o "$work/shared" "$here/startup.c" || exit 1
"$bin/zmpicc" -O2 -DBIG -o "$work/big" "$here/startup.c" || exit 1
"$bin/zmpicc" -O2 -DBIG -zmpi-no-privatize -o "$work/big_shared" "$here/startup.c" || exit 1
now() { date +%s.%N; }
# one VARIANT PROGRAM LOADER RANKS RUN: one timed run, one line.
one() {
    t0=$(now)
    out=$(ZMPI_LOADER=$3 "$bin/zmpirun" -n "$4" -w 2 "$2" 2>&1) || {
        echo "startup_run.sh: $1 at $4 ranks failed: $out" >&2; return; }
    t1=$(now)
    set -- "$1" "$4" "$5" "$(echo "$t1 - $t0" | bc)" $out
    printf '%s\t%s\t%s\t%.3f\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "${10}" "${12}" "${14}"
}
printf 'variant\tranks\trun\tseconds\tpss_kb\tmaps\tpss_per_rank_kb\n'
for n in $ranks; do
    for r in $(seq 1 "$runs"); do
        one own "$work/priv" zmpi "$n" "$r"
        [ "$n" -le "$dl_max" ] && one dl "$work/priv" dl "$n" "$r"
        one shared "$work/shared" zmpi "$n" "$r"
    done
done
for n in ${BIG_RANKS:-100 1000}; do
    for r in $(seq 1 "$runs"); do
        one big "$work/big" zmpi "$n" "$r"
        one big_shared "$work/big_shared" zmpi "$n" "$r"
    done
done
