#!/bin/sh
# apps_run.sh: the application patterns of issue 22 on zmpi, MPICH and
# Open MPI: examples/cg27.c (CG on a 3-D 27-point stencil: halo exchange
# with up to 26 neighbours, two 8-byte Allreduces per iteration) and
# examples/isort.c (bucket sort: Alltoall of counts, Alltoallv of keys).
#
# Builds both from the same source with zmpicc, mpicc.mpich and
# mpicc.openmpi, runs them at every rank count with every MPI, one run
# each per round, alternating the MPIs run by run so that slow drifts of a
# shared machine hit all of them alike, and writes bench/results/apps.md
# (medians over the rounds, with the min-max spread) and one plot per
# application (apps_cg27.png, apps_isort.png: time per iteration against
# ranks) through bench/apps_plot.py.  Every run checks its own result; a
# run whose check fails, that fails or times out is recorded as such.
#
# Usage: bench/apps_run.sh [options]
#   -r ROUNDS     rounds (default 3)
#   -n "RANKS"    rank counts (default "2 8 16 64")
#   -m "MPIS"     subset of "zmpi mpich openmpi" (default all three)
#   -w WORKERS    zmpi workers (default 2, the cores of the test machine)
#   -g EDGE       cg27 grid points per side (default 48)
#   -k KEYS       isort keys in total (default 4194304)
#   -t SECONDS    timeout of one run (default 120)
#   -o DIR        output directory (default bench/results)
#   -z ZMPICC     zmpi compiler wrapper (default build/tools/zmpicc; zmpirun
#                 is taken from beside it)
#   -q            quick smoke run: one round, ranks "2 8" (unless -n), small
#                 problems
# Iterations per run fall with the rank count (CG_ITERS and SORT_ITERS in
# the environment override them: "2:100 8:50 16:30 64:10" style lists), so
# that MPICH, whose oversubscribed ranks spin, stays within the run time:
# a run reports time per iteration, which does not depend on the count.
# The default run takes about 5-8 minutes on 2 cores.
# Open MPI runs with the transport the other comparisons use (run_p2p.py:
# ob1 and vader without the single-copy mechanism); OMPI_MCA in the
# environment replaces those options ("" for Open MPI's defaults).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
rounds=3
ranks="2 8 16 64"
mpis="zmpi mpich openmpi"
workers=2
edge=48
keys=4194304
tmo=120
out="$here/results"
zmpicc="$repo/build/tools/zmpicc"
quick=0
ranks_set=0
while getopts r:n:m:w:g:k:t:o:z:qh opt; do
    case $opt in
    r) rounds=$OPTARG ;;
    n) ranks=$OPTARG; ranks_set=1 ;;
    m) mpis=$OPTARG ;;
    w) workers=$OPTARG ;;
    g) edge=$OPTARG ;;
    k) keys=$OPTARG ;;
    t) tmo=$OPTARG ;;
    o) out=$OPTARG ;;
    z) zmpicc=$OPTARG ;;
    q) quick=1 ;;
    *) sed -n '2,/^set -eu/p' "$0" | sed 's/^# \{0,1\}//;/^set -eu/d'
       exit 2 ;;
    esac
done
if [ $quick = 1 ]; then
    rounds=1
    [ $ranks_set = 1 ] || ranks="2 8"
    edge=24
    keys=262144
fi
cg_iters=${CG_ITERS:-"2:100 8:50 16:30 64:10"}
sort_iters=${SORT_ITERS:-"2:10 8:6 16:4 64:2"}
ompi_mca=${OMPI_MCA-"--mca pml ob1 --mca btl self,vader --mca btl_vader_single_copy_mechanism none"}
zmpirun=$(dirname "$zmpicc")/zmpirun
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# iters LIST N: the count LIST gives for N ranks (the entry of the largest
# rank count not above N, else the first entry).
iters() {
    echo "$1" | tr ' ' '\n' | awk -F: -v n="$2" '
        NR == 1 { best = $2 } $1 <= n && $1 >= bestn { best = $2; bestn = $1 }
        END { print best }'
}

bin=$(mktemp -d /tmp/zmpi-apps-XXXXXX)
trap 'rm -rf "$bin"' EXIT
mkdir -p "$out"
raw="$out/apps_raw.txt"
: >"$raw"
: >"$raw.cmds"
log="$bin/build.log"

# Build every application with every MPI; a failed build leaves that MPI
# out of the runs (and says so).
built=""
for mpi in $mpis; do
    case $mpi in
    zmpi) cc=$zmpicc ;;
    mpich) cc=mpicc.mpich ;;
    openmpi) cc=mpicc.openmpi ;;
    *) echo "unknown MPI $mpi" >&2; exit 2 ;;
    esac
    ok=1
    for app in cg27 isort; do
        if ! "$cc" -std=c11 -O2 -o "$bin/${app}_$mpi" "$repo/examples/$app.c" -lm \
            >>"$log" 2>&1; then
            echo "build of $app with $mpi failed: left out" >&2
            ok=0
        fi
        echo "$cc -std=c11 -O2 -o $bin/${app}_$mpi examples/$app.c -lm" >>"$raw.cmds"
    done
    [ $ok = 1 ] && built="$built $mpi"
done
[ -n "$built" ] || { cat "$log" >&2; exit 1; }

# launch MPI N: the command prefix that starts N ranks.
launch() {
    case $1 in
    zmpi) echo "$zmpirun -n $2 -w $workers" ;;
    mpich) echo "mpiexec.mpich -n $2" ;;
    openmpi) echo "mpiexec.openmpi --oversubscribe -n $2 $ompi_mca" ;;
    esac
}

# perf stat (software task-clock, no hardware counters needed) measures
# the CPU time of each job when it is there and allowed.
cpustat=""
if command -v perf >/dev/null 2>&1 &&
    perf stat -x, -e task-clock -o /dev/null true >/dev/null 2>&1; then
    cpustat="perf stat -x, -e task-clock -o $bin/cpu --"
fi
start=$(date +%s)
# The host's load decides how much of the cores each MPI gets (zmpi's 2
# worker threads against N processes): the report states it.
load0=$(cut -d' ' -f1 /proc/loadavg)
r=1
while [ "$r" -le "$rounds" ]; do
    for n in $ranks; do
        for app in cg27 isort; do
            if [ $app = cg27 ]; then
                args="-n $edge -iters $(iters "$cg_iters" "$n") -reps 2"
            else
                args="-keys $keys -iters $(iters "$sort_iters" "$n")"
            fi
            # Alternate the order of the MPIs from round to round too, so
            # that none always runs right after the same other one.
            order=$built
            [ $((r % 2)) = 0 ] && order=$(echo $built | tr ' ' '\n' | tac | tr '\n' ' ')
            for mpi in $order; do
                cmd="$(launch $mpi "$n") $bin/${app}_$mpi $args"
                t0=$(date +%s.%N)
                # shellcheck disable=SC2086
                if res=$($cpustat timeout "$tmo" $cmd 2>"$bin/err"); then
                    status=ok
                else
                    status="failed($?)"
                fi
                line=$(echo "$res" | grep "^$app: ranks" | tail -1 || true)
                case $line in
                *"check OK"*) ;;
                *"check FAILED"*) status=wrong ;;
                *) [ $status = ok ] && status=noline ;;
                esac
                us=$(echo "$line" | awk '{for (i = 1; i < NF; i++) if ($i == "us_per_iter") print $(i + 1)}')
                cus=$(echo "$line" | awk '{for (i = 1; i < NF; i++) if ($i == "comm_us_per_iter") print $(i + 1)}')
                secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
                # CPUs the whole job got on average (its CPU time over its
                # wall time, setup included): on a busy host, how much of
                # the cores each MPI won from the other jobs.
                cpus=-
                if [ -n "$cpustat" ] && [ -s "$bin/cpu" ]; then
                    cpus=$(awk -F, -v s="$secs" '$3 == "task-clock" && s > 0 { printf "%.2f", $1 / 1000 / s }' "$bin/cpu")
                    rm -f "$bin/cpu"
                fi
                printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$r" "$app" "$n" "$mpi" \
                    "$status" "${us:--}" "${cus:--}" "$cmd" "${cpus:--}" >>"$raw"
                printf 'round %s %-6s %3s ranks %-8s %-10s %12s us/iter (%.1f s)\n' \
                    "$r" "$app" "$n" "$mpi" "$status" "${us:--}" "$secs"
                [ $status = ok ] || head -c 400 "$bin/err" >&2
            done
        done
    done
    r=$((r + 1))
done
elapsed=$(( $(date +%s) - start ))
load1=$(cut -d' ' -f1 /proc/loadavg)

python3 "$here/apps_plot.py" --raw "$raw" --out "$out" --elapsed "$elapsed" \
    --command "bench/apps_run.sh $*" --workers "$workers" \
    --params "cg27 -n $edge -reps 2, iterations by ranks: $cg_iters; isort -keys $keys, iterations by ranks: $sort_iters" \
    --ompi-mca "$ompi_mca" --builds "$raw.cmds" --load "$load0 at the start, $load1 at the end"
rm -f "$raw.cmds"
