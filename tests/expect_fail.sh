#!/bin/sh
# expect_fail.sh: runs an MPI job that must fail, and passes only if it did
# fail the expected way.
#
# Usage: expect_fail.sh [--timeout S] [--exit-code N] [--regex RE]... -- CMD...
#
# The job passes when all of these hold:
#   - it exits with a non-zero status (exactly N if --exit-code is given);
#   - its combined stdout and stderr match every RE (extended regular
#     expressions, case-insensitive);
#   - it ended by itself: it took less than S seconds and the launcher did
#     not report its MPIEXEC_TIMEOUT (which is set to S for the job).
# The job's output is always copied to this script's output.

timeout=60
code=any
regexes_file=$(mktemp) || exit 99
out=$(mktemp) || exit 99
trap 'rm -f "$regexes_file" "$out"' EXIT

while [ $# -gt 0 ]; do
    case $1 in
    --timeout) timeout=$2; shift 2 ;;
    --exit-code) code=$2; shift 2 ;;
    --regex) printf '%s\n' "$2" >>"$regexes_file"; shift 2 ;;
    --) shift; break ;;
    *) echo "expect_fail.sh: unknown option '$1'" >&2; exit 99 ;;
    esac
done
if [ $# -eq 0 ]; then
    echo "expect_fail.sh: no command given" >&2
    exit 99
fi

start=$(date +%s)
MPIEXEC_TIMEOUT=$timeout "$@" >"$out" 2>&1
status=$?
elapsed=$(( $(date +%s) - start ))
cat "$out"
echo "expect_fail.sh: exit status $status after ${elapsed}s"

fail=0
if [ "$status" -eq 0 ]; then
    echo "expect_fail.sh: FAIL: the job succeeded but should have failed"
    fail=1
elif [ "$code" != any ] && [ "$status" -ne "$code" ]; then
    echo "expect_fail.sh: FAIL: exit status $status, expected $code"
    fail=1
fi
if [ "$elapsed" -ge "$timeout" ] || grep -q 'MPIEXEC_TIMEOUT' "$out"; then
    echo "expect_fail.sh: FAIL: the job ran into the ${timeout}s time limit"
    fail=1
fi
while IFS= read -r re; do
    if ! grep -Eiq -e "$re" "$out"; then
        echo "expect_fail.sh: FAIL: output does not match /$re/"
        fail=1
    fi
done <"$regexes_file"
[ "$fail" -eq 0 ] && echo "expect_fail.sh: failed as expected"
exit "$fail"
