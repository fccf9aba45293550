#!/bin/sh
# oversub_run.sh: bench/oversub.c on zmpi, MPICH and Open MPI, RUNS times
# each (alternated), on an idle host and under a synthetic competing load:
# one busy process pinned to each core the job may use (taskset), as other
# jobs sharing a node would be.  Prints per MPI and load the median and the
# worst run of the communicator loop (s) and of the 8-byte ping-pong (us).
#
#   oversub_run.sh ZMPI_BINDIR [RUNS [NP [WORKERS]]]
#
# ZMPI_BINDIR holds zmpicc and zmpirun (<build>/tools or <prefix>/bin).
# Defaults: 20 runs, 4 ranks, 2 workers (zmpi).  The system MPIs are used
# when their compilers are installed (mpicc.mpich, mpicc.openmpi).
bin=$(cd "$1" 2>/dev/null && pwd) runs=${2:-20} np=${3:-4} nw=${4:-2}
[ -x "$bin/zmpirun" ] || { echo "usage: $0 ZMPI_BINDIR [RUNS [NP [WORKERS]]]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/zmpi-oversub.XXXXXX") || exit 1
hogs=
stop_load() { [ -n "$hogs" ] && kill $hogs 2>/dev/null; wait 2>/dev/null; hogs=; }
trap 'stop_load; rm -rf "$work"' EXIT
comms=${OVERSUB_COMMS:-2000} pp=${OVERSUB_PP:-20000}
mpis="zmpi"
"$bin/zmpicc" -O2 -o "$work/zmpi" "$here/oversub.c" || exit 1
if command -v mpicc.mpich >/dev/null; then
    mpicc.mpich -O2 -o "$work/mpich" "$here/oversub.c" && mpis="$mpis mpich"
fi
if command -v mpicc.openmpi >/dev/null; then
    mpicc.openmpi -O2 -o "$work/openmpi" "$here/oversub.c" && mpis="$mpis openmpi"
fi
run() {
    case $1 in
    zmpi) "$bin/zmpirun" -n "$np" -w "$nw" "$work/zmpi" "$comms" "$pp" ;;
    mpich) mpiexec.mpich -n "$np" "$work/mpich" "$comms" "$pp" ;;
    openmpi) mpiexec.openmpi --oversubscribe --allow-run-as-root -n "$np" \
                 "$work/openmpi" "$comms" "$pp" ;;
    esac
}
start_load() {
    for c in $(seq 0 $(($(nproc) - 1))); do
        taskset -c "$c" sh -c 'while :; do :; done' &
        hogs="$hogs $!"
    done
}
for load in idle loaded; do
    [ "$load" = loaded ] && start_load
    i=0
    while [ "$i" -lt "$runs" ]; do
        for m in $mpis; do
            MPIEXEC_TIMEOUT=300 run "$m" 2>/dev/null | sed "s/^/$m $load /" >>"$work/out"
        done
        i=$((i + 1))
    done
    stop_load
done
printf "%-8s %-7s %5s %12s %12s %12s %12s\n" mpi load runs "comm med s" "comm worst" \
    "pp med us" "pp worst"
for load in idle loaded; do
    for m in $mpis; do
        c=$(awk -v m="$m" -v l="$load" '$1 == m && $2 == l { print $4 }' "$work/out" | sort -g)
        p=$(awk -v m="$m" -v l="$load" '$1 == m && $2 == l { print $6 }' "$work/out" | sort -g)
        n=$(echo "$c" | grep -c .)
        [ "$n" -gt 0 ] || continue
        printf "%-8s %-7s %5d %12s %12s %12s %12s\n" "$m" "$load" "$n" \
            "$(echo "$c" | sed -n "$(((n + 1) / 2))p")" "$(echo "$c" | tail -1)" \
            "$(echo "$p" | sed -n "$(((n + 1) / 2))p")" "$(echo "$p" | tail -1)"
    done
done
