#!/bin/sh
# ckpt_restart.sh ZMPIRUN PROGRAM NP [OPTIONS...]: the job's result is the
# same run straight through (with checkpoints on), and ended after its
# checkpoint then restarted with 1 and with 2 workers; a second restart
# from the same checkpoint gives it again.  The checkpoint goes to a fresh
# directory.  OPTIONS go to every zmpirun (a job of several processes:
# -p 2 --interleave --net mpich).  With CK_LAYOUTS set, the restarts run
# with each of its comma-separated option lists instead (other process
# counts and rank orders: -p 3 --net mpich,-p 1), with 1 worker, then 2.
set -u
run=$1 prog=$2 np=$3
shift 3
dir=$(mktemp -d "${TMPDIR:-/tmp}/zmpi-ckpt.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
export MPIEXEC_TIMEOUT=60
whole=$("$run" --checkpoint -n "$np" -w 2 "$@" "$prog" "$dir/a") ||
    { echo "FAIL: the whole run failed: $whole"; exit 1; }
echo "whole run: $whole"
case $whole in *"checksum "*"cmdline ok"*) ;; *) echo "FAIL: no checksum"; exit 1 ;; esac
case $whole in *succeeded*) echo "FAIL: an error was not returned"; exit 1 ;; esac
stop=$(CK_STOP=1 "$run" --checkpoint -n "$np" -w 2 "$@" "$prog" "$dir/b") ||
    { echo "FAIL: the run to the checkpoint failed: $stop"; exit 1; }
case $stop in *"stopped after the checkpoint"*) ;; *) echo "FAIL: $stop"; exit 1 ;; esac
check_restart() { # WORKERS OPTIONS...
    w=$1
    shift
    again=$("$run" --restart "$dir/b" -w "$w" "$@" </dev/null) ||
        { echo "FAIL: restart with $w workers ($*) failed: $again"; exit 1; }
    echo "restart, $w workers ($*): $again"
    [ "$again" = "$whole" ] || { echo "FAIL: the restart's result differs"; exit 1; }
}
if [ -z "${CK_LAYOUTS:-}" ]; then
    for w in 1 2 1; do
        check_restart "$w" "$@"
    done
else
    echo "$CK_LAYOUTS" | tr ',' '\n' | while read -r layout; do
        for w in 1 2; do
            # shellcheck disable=SC2086 # the layout is a list of options
            check_restart "$w" $layout
        done
    done || exit 1
fi
echo "ckpt_restart: ok"
