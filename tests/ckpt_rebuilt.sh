#!/bin/sh
# ckpt_rebuilt.sh ZMPIRUN PROGRAM REBUILT: a checkpoint written by PROGRAM
# is refused by a restart that finds REBUILT (the same source built with
# another layout of its globals) at PROGRAM's path, with a message naming
# the build ids and a failing exit status, and restarts again once the
# original is back.  Both copies run from one fresh directory.
set -u
run=$1 prog=$2 rebuilt=$3
dir=$(mktemp -d "${TMPDIR:-/tmp}/zmpi-ckpt.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
export MPIEXEC_TIMEOUT=60
cp "$prog" "$dir/prog" || exit 1
whole=$("$run" --checkpoint -n 4 -w 2 "$dir/prog" "$dir/a") ||
    { echo "FAIL: the whole run failed: $whole"; exit 1; }
stop=$(CK_STOP=1 "$run" --checkpoint -n 4 -w 2 "$dir/prog" "$dir/b") ||
    { echo "FAIL: the run to the checkpoint failed: $stop"; exit 1; }
cp "$rebuilt" "$dir/prog" || exit 1
if out=$("$run" --restart "$dir/b" -w 2 </dev/null 2>&1); then
    echo "FAIL: the rebuilt program restarted: $out"
    exit 1
fi
echo "rebuilt: $out"
case $out in
*"was written by another build of the program or of zmpi"*"build ids"*) ;;
*) echo "FAIL: no message naming the other build"; exit 1 ;;
esac
cp "$prog" "$dir/prog" || exit 1
again=$("$run" --restart "$dir/b" -w 2 </dev/null) ||
    { echo "FAIL: the original's restart failed: $again"; exit 1; }
[ "$again" = "$whole" ] || { echo "FAIL: the restart's result differs: $again / $whole"; exit 1; }
echo "ckpt_rebuilt: ok"
