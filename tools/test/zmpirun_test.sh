#!/bin/sh
# Tests zmpirun with ordinary programs: zmpirun runs any program, and none of
# this needs the MPI library.
# Usage: zmpirun_test.sh <path to zmpirun> [<program linked with zmpi that
# prints "ranks: N"> <program that dlopens libzmpi> <libzmpi>]

ZMPIRUN=${1:?usage: zmpirun_test.sh ZMPIRUN [ZMPI_PROGRAM]}
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

# The job shape reaches the program, from flags or inherited variables (a
# shell is not linked with zmpi, so it runs once per rank: copy 0 answers).
first='[ "$ZMPI_COPY" = 0 ] || exit 0;'
expect_output "7 3" "$ZMPIRUN" -n 7 -w 3 sh -c "$first"' echo $ZMPI_NP $ZMPI_WORKERS'
expect_output "5 2" "$ZMPIRUN" -np 5 --workers 2 \
    sh -c "$first"' echo $ZMPI_NP $ZMPI_WORKERS'
expect_output "6 4" "$ZMPIRUN" --np=6 --workers=4 \
    sh -c "$first"' echo $ZMPI_NP $ZMPI_WORKERS'
expect_output "9 1" env ZMPI_NP=9 ZMPI_WORKERS=1 "$ZMPIRUN" \
    sh -c "$first"' echo $ZMPI_NP $ZMPI_WORKERS'
expect_output "2" env ZMPI_NP=9 "$ZMPIRUN" -n 2 sh -c "$first"' echo $ZMPI_NP'

# A program that is not an MPI program runs once per rank, as with mpirun:
# each copy knows its number, only copy 0 reads stdin, and the job fails as
# its first failing copy does.
expect_output "3" sh -c "'$ZMPIRUN' -n 3 hostname | wc -l | tr -d ' '"
expect_output "0 1 2 3 " sh -c "'$ZMPIRUN' -n 4 sh -c 'echo \$ZMPI_COPY' | sort | tr '\n' ' '"
expect_output "x" sh -c "echo x | '$ZMPIRUN' -n 3 cat"
expect_status 5 "$ZMPIRUN" -n 3 sh -c '[ "$ZMPI_COPY" = 1 ] && exit 5; exit 0'
expect_status 143 "$ZMPIRUN" -n 3 sh -c '[ "$ZMPI_COPY" = 2 ] && kill -TERM $$; exit 0'
expect_status 127 "$ZMPIRUN" -n 3 ./no-such-program-here
[ "$(grep -c 'cannot run' "$tmp/err")" = 1 ] || fail "'cannot run' not said once"
# A wrapper around a program linked with zmpi runs once (the ranks run
# inside it): the zmpi program given as the second argument, if any.
if [ -n "$2" ]; then
    expect_output "1" sh -c "'$ZMPIRUN' -n 3 env ZT_WRAPPED=1 '$2' | grep -c 'ranks: 3'"
fi
# A program not linked with zmpi that loads it (python and mpi4py) runs as
# one rank alone, and as copies it stops with advice instead of becoming
# several one-rank jobs: the loader and libzmpi given as arguments 3 and 4.
if [ -n "$4" ]; then
    expect_output "size 1" "$ZMPIRUN" -n 1 "$3" "$4"
    expect_status 1 "$ZMPIRUN" -n 3 "$3" "$4"
    grep -q 'started 3 copies.*zmpirun -n 3 -p 3' "$tmp/err" ||
        fail "no advice for copies of a program that loads zmpi"
fi
# Rank tags: the flags of Open MPI and MPICH set ZMPI_TAG_OUTPUT.
for flag in --tag-output -l -prepend-rank --prepend-rank; do
    expect_output "1" "$ZMPIRUN" "$flag" sh -c 'echo $ZMPI_TAG_OUTPUT'
done
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

# A zmpirun killed by SIGKILL (which it cannot forward) takes its job with
# it: the job, told by a FIFO which process it is, must end by itself.
for n in 1 3; do
    mkfifo "$tmp/orphan$n"
    "$ZMPIRUN" -n $n sh -c '[ "${ZMPI_COPY:-0}" = 0 ] && echo $$ >"$1"; exec sleep 100' \
        job "$tmp/orphan$n" &
    zpid=$!
    read -r jpid <"$tmp/orphan$n"
    kill -KILL "$zpid"
    wait "$zpid" 2>/dev/null
    timeout 10 tail --pid="$jpid" -f /dev/null ||
        { fail "job of $n left running after zmpirun was killed"; kill -KILL "$jpid"; }
done

if [ "$failures" -ne 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "all zmpirun checks passed"
