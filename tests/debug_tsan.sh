#!/bin/sh
# debug_tsan.sh ZMPICC ZMPIRUN SRCDIR NP: ThreadSanitizer on NP privatized
# ranks (2 workers) of tests/debug_tsan.c, built with
# `zmpicc -fsanitize=thread -g -O1`:
#   - clean, the program passes and TSan reports nothing, although its
#     ranks exchange messages across workers, move between them, start
#     threads of their own and share a window's memory (ordered by
#     barriers, fences and a lock);
#   - with race (two threads of a rank) and shared_race (two ranks writing
#     one word of a shared window), TSan reports the data race with the
#     program's function, file and line, and the job ends with TSan's exit
#     status (66).
# Exits 77 (skipped) when the compiler cannot build with TSan or its run
# time cannot start on this machine.
set -u
ZMPICC=$1 ZMPIRUN=$2 SRC=$3 NP=$4
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
if ! "$ZMPICC" -fsanitize=thread -g -O1 -o prog "$SRC/debug_tsan.c" >build.out 2>&1; then
    cat build.out
    echo "debug_tsan: cannot build with -fsanitize=thread (libtsan missing?): skipped"
    exit 77
fi
# TSan refuses some address-space layouts (it needs its fixed shadow
# ranges): a one-rank run that fails with its FATAL message skips.
if ! MPIEXEC_TIMEOUT=60 "$ZMPIRUN" -n 1 ./prog >probe.out 2>&1 &&
    grep -q "FATAL: ThreadSanitizer" probe.out; then
    cat probe.out
    echo "debug_tsan: TSan cannot run here: skipped"
    exit 77
fi
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ZMPI_TMPDIR=$tmp MPIEXEC_TIMEOUT=120 "$ZMPIRUN" -n "$NP" -w 2 ./prog >clean.out 2>&1
status=$?
cat clean.out
[ $status -eq 0 ] || fail "clean program: exit status $status"
grep -q "debug_tsan: ok" clean.out || fail "clean program: its checks did not pass"
grep -q "ThreadSanitizer" clean.out && fail "clean program: TSan reported something"
# Each race: TSan's report at the marked line, in the function given,
# and TSan's exit status.
for race in race:bump shared_race:shared; do
    arg=${race%%:*} func=${race#*:}
    ZMPI_TMPDIR=$tmp MPIEXEC_TIMEOUT=120 "$ZMPIRUN" -n "$NP" -w 2 ./prog "$arg" >bad.out 2>&1
    status=$?
    cat bad.out
    line=$(grep -n "MARK $arg \*/" "$SRC/debug_tsan.c" | cut -d: -f1)
    [ $status -eq 66 ] || fail "$arg: exit status $status, not TSan's 66"
    grep -q "WARNING: ThreadSanitizer: data race" bad.out || fail "$arg: TSan did not report it"
    grep -Eq "#0 $func .*debug_tsan.c:$line" bad.out ||
        fail "$arg: the report does not name $func at debug_tsan.c:$line"
done
left=$(ls "$tmp" | grep -c '^zmpi-')
[ "$left" -eq 0 ] || fail "$left copies of the program left in ZMPI_TMPDIR"
[ $fails -eq 0 ] && echo "debug_tsan: ok"
[ $fails -eq 0 ]
