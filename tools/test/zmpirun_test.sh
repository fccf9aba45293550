#!/bin/sh
# Tests zmpirun with ordinary programs: zmpirun runs any program, and none of
# this needs the MPI library.
# Usage: zmpirun_test.sh <path to zmpirun>

ZMPIRUN=${1:?usage: zmpirun_test.sh ZMPIRUN}
. "$(dirname "$0")/lib.sh"

# expect_status WANT CMD...: runs CMD and compares its exit status.
expect_status() {
    want=$1
    shift
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" -ne "$want" ]; then
        fail "'$*' exited $got, want $want"
        sed 's/^/  | /' "$tmp/out" "$tmp/err"
    fi
}

# expect_output WANT CMD...: runs CMD and compares its standard output.
expect_output() {
    want=$1
    shift
    got=$("$@" 2>&1)
    [ "$got" = "$want" ] || fail "'$*' printed '$got', want '$want'"
}

# Exit status of the program is zmpirun's exit status.
expect_status 0 "$ZMPIRUN" -n 2 true
expect_status 3 "$ZMPIRUN" -n 4 sh -c 'exit 3'
expect_status 127 "$ZMPIRUN" -n 1 ./no-such-program-here

# Death by a signal: 128 + signal number, and a message naming it.
expect_status 139 "$ZMPIRUN" sh -c 'kill -SEGV $$'
grep -q 'killed by signal SIGSEGV' "$tmp/err" ||
    fail "no 'killed by signal SIGSEGV' message"

# Bad usage exits 2 with a message.
expect_status 2 "$ZMPIRUN"
expect_status 2 "$ZMPIRUN" -n 4
expect_status 2 "$ZMPIRUN" -n 0 true
expect_status 2 "$ZMPIRUN" -n -3 true
expect_status 2 "$ZMPIRUN" -n 4x true
expect_status 2 "$ZMPIRUN" -w 0 true
expect_status 2 "$ZMPIRUN" --stack-size 12q true
expect_status 2 "$ZMPIRUN" --no-such-flag true
grep -q 'unknown option' "$tmp/err" || fail "no 'unknown option' message"
expect_status 2 env MPIEXEC_TIMEOUT=soon "$ZMPIRUN" true
expect_status 0 "$ZMPIRUN" --help

# The job shape reaches the program, from flags or inherited variables.
expect_output "7 3" "$ZMPIRUN" -n 7 -w 3 sh -c 'echo $ZMPI_NP $ZMPI_WORKERS'
expect_output "5 2" "$ZMPIRUN" -np 5 --workers 2 \
    sh -c 'echo $ZMPI_NP $ZMPI_WORKERS'
expect_output "6 4" "$ZMPIRUN" --np=6 --workers=4 \
    sh -c 'echo $ZMPI_NP $ZMPI_WORKERS'
expect_output "9 1" env ZMPI_NP=9 ZMPI_WORKERS=1 "$ZMPIRUN" \
    sh -c 'echo $ZMPI_NP $ZMPI_WORKERS'
expect_output "2" env ZMPI_NP=9 "$ZMPIRUN" -n 2 sh -c 'echo $ZMPI_NP'
expect_output "65536" "$ZMPIRUN" --stack-size 64k sh -c 'echo $ZMPI_STACK_SIZE'
expect_output "3145728" "$ZMPIRUN" --stack-size=3M sh -c 'echo $ZMPI_STACK_SIZE'
expect_output "1073741824" env ZMPI_STACK_SIZE=1g "$ZMPIRUN" \
    sh -c 'echo $ZMPI_STACK_SIZE'
expect_output "12345" "$ZMPIRUN" --stack-size 12345 sh -c 'echo $ZMPI_STACK_SIZE'
# Arguments after the program belong to it, even ones that look like ours.
expect_output "-n 3 --x" "$ZMPIRUN" -n 1 printf '%s %s %s\n' -n 3 --x
expect_output "a b" "$ZMPIRUN" -- sh -c 'echo "$0 $1"' a b

# MPIEXEC_TIMEOUT ends a job that would run far longer, well before 10 s.
start=$(date +%s)
expect_status 124 env MPIEXEC_TIMEOUT=2 "$ZMPIRUN" -n 4 sleep 100
elapsed=$(($(date +%s) - start))
[ "$elapsed" -lt 10 ] || fail "timeout took ${elapsed}s"
grep -q 'timed out after 2 s (MPIEXEC_TIMEOUT)' "$tmp/err" ||
    fail "no timeout message"

# A job that ignores SIGTERM gets SIGKILL 2 s later; the whole process group
# goes, including the sleep that the shell started.
start=$(date +%s)
expect_status 124 env MPIEXEC_TIMEOUT=1 "$ZMPIRUN" \
    sh -c 'trap "" TERM; sleep 100; echo survived'
elapsed=$(($(date +%s) - start))
[ "$elapsed" -lt 10 ] || fail "SIGKILL after timeout took ${elapsed}s"
grep -q survived "$tmp/out" && fail "job survived the timeout"

# SIGTERM sent to zmpirun reaches the job's whole process group.  The job
# says through a FIFO when its trap is set and its sleep started (so that
# the sleep is in the group when the signal comes), so no sleep is needed to
# wait for it.  The sleep's output goes elsewhere: should it survive, it must
# not hold ctest's output pipe open.
mkfifo "$tmp/ready"
"$ZMPIRUN" sh -c 'trap "exit 42" TERM; sleep 100 >/dev/null 2>&1 &
                  echo >"$1"; wait' job "$tmp/ready" &
pid=$!
read -r _ <"$tmp/ready"
kill -TERM "$pid"
wait "$pid"
got=$?
[ "$got" -eq 42 ] || fail "SIGTERM forwarding: exit $got, want 42"

if [ "$failures" -ne 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "all zmpirun checks passed"
