#!/bin/sh
# migrate_ckpt.sh ZMPIRUN PROGRAM BACKEND [MODE]: ranks moved between processes
# (tests/migrate_net.c, MIG_MODE rotate or MODE) take a checkpoint at the end; restarts in
# three layouts (2 processes interleaved, 3 processes, 1 process) resume
# from it and end with the same result as the job that wrote it.
set -u
run=$1 prog=$2 be=$3
dir=$(mktemp -d "${TMPDIR:-/tmp}/zmpi-migck.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
export MPIEXEC_TIMEOUT=120 MIG_MODE=${4:-rotate} ZMPI_LB_PROC=rotate
whole=$(MIG_CKPT="$dir/c" "$run" -w 2 --checkpoint -n 6 -p 2 --interleave --net "$be" "$prog" 2>&1) ||
    { echo "FAIL: the run failed: $whole"; exit 1; }
echo "run: $whole"
case $whole in *"6 ranks, 36 moves, ok"*) ;; *) echo "FAIL: no result"; exit 1 ;; esac
for layout in "-p 2 --interleave --net $be" "-p 3 --net $be" "-p 1"; do
    # shellcheck disable=SC2086 # the layout is a list of options
    again=$("$run" --restart "$dir/c" -w 2 $layout </dev/null 2>&1) ||
        { echo "FAIL: restart ($layout) failed: $again"; exit 1; }
    echo "restart ($layout): $again"
    [ "$again" = "$whole" ] || { echo "FAIL: the restart's result differs"; exit 1; }
done
echo "migrate_ckpt: ok"
