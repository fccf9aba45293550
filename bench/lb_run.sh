#!/bin/sh
# lb_run.sh: examples/particles.c (an imbalance that drifts from rank to
# rank) with and without ZMPI_Migrate under zmpi, and at the same rank
# count under MPICH and Open MPI (one process per rank, oversubscribed),
# RUNS times each, alternated.  Prints per configuration the median and
# the best time, the speed-up over the unbalanced zmpi run, and the
# median against perfect balance: the one-rank run's time (all the work,
# on one core) divided by the workers.  Every run's checksum must be the
# same (the result does not depend on the decomposition or the MPI).
#
#   lb_run.sh ZMPI_BINDIR [RUNS [NP [WORKERS]]]
#
# ZMPI_BINDIR holds zmpicc and zmpirun (<build>/tools or <prefix>/bin).
# Defaults: 5 runs, 32 ranks, 2 workers (16 ranks per core on 2 cores).
# LB_ARGS replaces the program's arguments (default
# "-n 200000 -steps 200 -work 60 -every 1": a balancing step at every
# step; bench/results/lb.md has runs with -every 10 too).  Configurations:
#   static    zmpi, ranks stay on their first worker (ZMPI_WAKE_MIGRATE=0,
#             --no-steal): the unbalanced run
#   default   zmpi's defaults without ZMPI_Migrate (wake-up migration and
#             work stealing)
#   steal     only work stealing (ZMPI_WAKE_MIGRATE=0 --steal)
#   greedy    ZMPI_Migrate every step (-every), --lb greedy --no-steal
#   refine    ZMPI_Migrate every step (-every), --lb refine --no-steal
#   stated    as greedy, but each rank states its load (-setload: the
#             particle-steps it computed) instead of its measured busy time
#   greedy_steal, stated_steal: greedy and stated with stealing on, as a
#             program calling ZMPI_Migrate runs by default
#   mpich, openmpi   the system MPIs (mpiexec.mpich; mpiexec.openmpi
#             --oversubscribe), when their compilers are installed
#   serial    zmpi, one rank on one worker (the work reference)
#   oneworker zmpi, the same NP ranks all on one worker: the same
#             decomposition's work (its halo exchanges, its per-rank
#             overheads) on one core, where no imbalance can exist; the
#             second reference for perfect balance
bin=$(cd "$1" 2>/dev/null && pwd) runs=${2:-5} np=${3:-32} nw=${4:-2}
[ -x "$bin/zmpirun" ] || { echo "usage: $0 ZMPI_BINDIR [RUNS [NP [WORKERS]]]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
src=$here/../examples/particles.c
args=${LB_ARGS:--n 200000 -steps 200 -work 60 -every 1}
work=$(mktemp -d "${TMPDIR:-/tmp}/zmpi-lb.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
"$bin/zmpicc" -O2 -o "$work/zmpi" "$src" || exit 1
confs="static default steal greedy refine stated greedy_steal stated_steal"
if command -v mpicc.mpich >/dev/null && mpicc.mpich -O2 -o "$work/mpich" "$src"; then
    confs="$confs mpich"
fi
if command -v mpicc.openmpi >/dev/null && mpicc.openmpi -O2 -o "$work/openmpi" "$src"; then
    confs="$confs openmpi"
fi
confs="$confs serial oneworker"
# LB_CONFS="static greedy_steal serial ..." runs only those (the checksum
# check and the table need static and serial).
confs=${LB_CONFS:-$confs}
run() {
    case $1 in
    static) ZMPI_WAKE_MIGRATE=0 "$bin/zmpirun" -n "$np" -w "$nw" --no-steal "$work/zmpi" \
                $args -nomigrate ;;
    default) "$bin/zmpirun" -n "$np" -w "$nw" "$work/zmpi" $args -nomigrate ;;
    steal) ZMPI_WAKE_MIGRATE=0 "$bin/zmpirun" -n "$np" -w "$nw" --steal "$work/zmpi" \
               $args -nomigrate ;;
    greedy|refine) "$bin/zmpirun" -n "$np" -w "$nw" --lb "$1" --no-steal "$work/zmpi" $args ;;
    stated) "$bin/zmpirun" -n "$np" -w "$nw" --lb greedy --no-steal "$work/zmpi" $args -setload ;;
    # ZMPI_Migrate with zmpi's defaults otherwise (stealing on): what a
    # program that calls it gets.
    greedy_steal) "$bin/zmpirun" -n "$np" -w "$nw" --lb greedy "$work/zmpi" $args ;;
    stated_steal) "$bin/zmpirun" -n "$np" -w "$nw" --lb greedy "$work/zmpi" $args -setload ;;
    mpich) mpiexec.mpich -n "$np" "$work/mpich" $args ;;
    openmpi) mpiexec.openmpi --oversubscribe --allow-run-as-root -n "$np" \
                 "$work/openmpi" $args ;;
    serial) "$bin/zmpirun" -n 1 -w 1 "$work/zmpi" $args ;;
    oneworker) ZMPI_WAKE_MIGRATE=0 "$bin/zmpirun" -n "$np" -w 1 --no-steal "$work/zmpi" \
                   $args -nomigrate ;;
    esac
}
i=0
while [ "$i" -lt "$runs" ]; do
    for c in $confs; do
        MPIEXEC_TIMEOUT=900 run "$c" 2>"$work/err" | sed "s/^/$c /" >>"$work/out" ||
            { echo "lb_run.sh: $c failed:" >&2; cat "$work/err" >&2; }
    done
    i=$((i + 1))
done
# Fields of a result line: conf, "particles", N, "steps", S, "ranks", R,
# "time", T, "s", "migrate", on/off, "max/mean", "rank", "work", W,
# "checksum", C.
sums=$(awk '$2 == "particles" { print $18 }' "$work/out" | sort -u | wc -l)
[ "$sums" -eq 1 ] || { echo "lb_run.sh: the runs disagree on the checksum:" >&2;
                       cat "$work/out" >&2; exit 1; }
med() { awk -v c="$1" '$1 == c && $2 == "particles" { print $9 }' "$work/out" | sort -g |
        awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
best() { awk -v c="$1" '$1 == c && $2 == "particles" { print $9 }' "$work/out" | sort -g |
         head -1; }
ref=$(med static) ser=$(med serial) one=$(med oneworker)
echo "particles $args; $np ranks, zmpi on $nw workers; $runs runs each; checksum ok"
printf "%-12s %5s %10s %10s %10s %12s %12s\n" conf runs "median s" "best s" "vs static" \
    "vs perfect" "vs perf. NP"
for c in $confs; do
    m=$(med "$c") b=$(best "$c")
    n=$(awk -v c="$c" '$1 == c && $2 == "particles"' "$work/out" | wc -l)
    [ -n "$m" ] || continue
    printf "%-12s %5d %10s %10s %10s %12s %12s\n" "$c" "$n" "$m" "$b" \
        "$(awk -v r="$ref" -v m="$m" 'BEGIN { printf "%.2fx", r / m }')" \
        "$(awk -v s="$ser" -v w="$nw" -v m="$m" 'BEGIN { printf "%.2f", m / (s / w) }')" \
        "$(awk -v s="$one" -v w="$nw" -v m="$m" \
               'BEGIN { if (s == "") print "-"; else printf "%.2f", m / (s / w) }')"
done
echo "(vs static: speed-up over the unbalanced run; vs perfect: median time over"
echo " serial/$nw, the time with the work spread evenly over $nw cores; 1.00 is perfect;"
echo " vs perf. NP: the same against oneworker/$nw, the $np ranks' own work spread evenly)"
