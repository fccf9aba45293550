#!/bin/sh
# debug_gdb.sh ZMPICC GDBPY SRCDIR WORKERS: gdb with zmpi's helper
# (GDBPY: tools/gdb/zmpi.py, loaded with -x; or the directory of libzmpi,
# from which gdb auto-loads its copy libzmpi.so.<version>-gdb.py) on 4 ranks of tests/debug_gdb.c, privatized, on
# WORKERS workers, stopped at a breakpoint in rank 1 while rank 0 waits in
# MPI_Recv and ranks 2 and 3 in MPI_Barrier:
#   - `zmpi ranks` lists the 4 ranks with their state and MPI call;
#   - `zmpi rank 2` then `bt` shows rank 2's MPI_Barrier and the line of
#     debug_gdb.c, and `print g` rank 2's own value (102), `zmpi rank 0`
#     rank 0's (100);
#   - `zmpi rank none` gives back the stopped rank's frame (g is 101);
#   - after `zmpi rank 0`, `continue` resumes correctly (the helper puts
#     the worker's registers back first) and the program ends normally.
# Exits 77 (skipped) when gdb, or its Python, is missing.
set -u
ZMPICC=$1 GDBPY=$2 SRC=$3 WORKERS=$4
if ! command -v gdb >/dev/null 2>&1 || ! gdb -batch -nx -ex 'python print(1)' >/dev/null 2>&1
then
    echo "debug_gdb: gdb with Python is not installed (Debian package gdb): skipped"
    exit 77
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$ZMPICC" -g -O0 -o "$tmp/prog" "$SRC/debug_gdb.c" || exit 1
cd "$tmp" || exit 1
if [ -d "$GDBPY" ]; then
    load="-iex"; what="add-auto-load-safe-path $GDBPY"
else
    load="-x"; what=$GDBPY
fi
# No stealing: an idle worker could otherwise take rank 3 from worker 1
# before rank 2 has reached the barrier (seen on a loaded machine), and the
# checks below need rank 2 in it.
ZMPI_STEAL=0 ZMPI_TMPDIR=$tmp ZMPI_NP=4 ZMPI_WORKERS=$WORKERS timeout 100 gdb -batch -nx "$load" "$what" \
    -ex 'set breakpoint pending on' -ex 'break stop_here' -ex run \
    -ex 'zmpi ranks' \
    -ex 'zmpi rank 2' -ex bt -ex 'print g' \
    -ex 'zmpi rank 0' -ex 'print g' \
    -ex 'zmpi rank none' -ex 'print g' \
    -ex 'zmpi apply all print g' \
    -ex 'zmpi rank 0' -ex continue \
    --args ./prog >out 2>&1
cat out
recv=$(grep -n "LINE recv" "$SRC/debug_gdb.c" | cut -d: -f1)
barrier=$(grep -n "LINE barrier" "$SRC/debug_gdb.c" | cut -d: -f1)
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
want() { grep -Eq "$1" out || fail "$2"; }
want "^  0 +0 +parked +MPI_Recv, called from main \(debug_gdb.c:$recv\)" \
    "zmpi ranks: rank 0 not parked in MPI_Recv at debug_gdb.c:$recv"
want "^  1 +0 +running +thread [0-9]+: stop_here \(debug_gdb.c:[0-9]+\)" \
    "zmpi ranks: rank 1 not running in stop_here"
send=$(grep -n "LINE send" "$SRC/debug_gdb.c" | cut -d: -f1)
# On two workers, ranks 2 and 3 may still be entering the barrier on the
# other worker when gdb stops the program, rank 3 even still sending.
running="running +thread [0-9]+: "
want "^  2 +[01] +(parked +|ready +|$running)MPI_Barrier, called from main \(debug_gdb.c:$barrier\)" \
    "zmpi ranks: rank 2 not waiting in MPI_Barrier at debug_gdb.c:$barrier"
want "^  3 +[01] +(parked +|ready +|$running)(MPI_Barrier, called from main \(debug_gdb.c:$barrier\)|MPI_Send, called from main \(debug_gdb.c:$send\))" \
    "zmpi ranks: rank 3 not in MPI_Barrier at debug_gdb.c:$barrier (or MPI_Send)"
[ "$(grep -Ec '^[ *] +[0-9]+ +[0-9]+ +(running|parked|ready)' out)" -eq 4 ] ||
    fail "zmpi ranks does not list exactly 4 ranks"
want "^\[rank 2, (parked|ready|running)" "zmpi rank 2 did not select rank 2"
want "in P?MPI_Barrier \(" "bt shows no MPI_Barrier"
want "in main \(.*\) at .*debug_gdb.c:$barrier" "bt shows no main at debug_gdb.c:$barrier"
[ "$(grep -E '^\$[0-9]+ = ' out | head -3 | sed 's/.* = //' | tr '\n' ' ')" = "102 100 101 " ] ||
    fail "print g after zmpi rank 2 / rank 0 / none did not show 102 100 101"
[ "$(grep -E '^\$[0-9]+ = ' out | sed -n '4,7p' | sed 's/.* = //' | tr '\n' ' ')" = \
  "100 101 102 103 " ] || fail "zmpi apply all print g did not show 100 101 102 103"
want "has its own registers again \(was showing rank 0\)" \
    "continue did not put the worker's registers back first"
want "rank 1 at the breakpoint, g 101" "rank 1 did not go on after the breakpoint"
want "debug_gdb: done, g 100" "the program did not finish"
want "exited normally" "the program did not exit normally"
left=$(ls "$tmp" | grep -c '^zmpi-')
[ $fails -eq 0 ] && echo "debug_gdb 4x$WORKERS: ok ($left copies left for zmpirun to remove)"
[ $fails -eq 0 ]
