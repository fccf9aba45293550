#!/bin/sh
# debug_valgrind.sh ZMPICC ZMPIRUN SRCDIR MODE LINK WORKERS [RANKS [STACK]]:
# valgrind's memcheck on RANKS (4) virtual ranks of tests/debug_checkers.c,
# built by zmpicc with LINK = priv (the default, a copy of the program per
# rank) or noprivatize (-zmpi-no-privatize), on WORKERS workers, with
# STACK-byte rank stacks if given (small stacks lie close together, which
# memcheck takes for huge frames unless zmpi registers them as stacks).
#   MODE clean: the program passes its checks and memcheck reports
#     "ERROR SUMMARY: 0 errors", with no warning about stack switches.
#   MODE invalid_read / uninit: memcheck reports that error at the
#     program's line marked "MARK <mode>" (debug_checkers.c:<line>).
# Either way no copy of the program is left in ZMPI_TMPDIR.  Exits 77
# (skipped) when valgrind is not installed.
set -u
ZMPICC=$1 ZMPIRUN=$2 SRC=$3 MODE=$4 LINK=$5 WORKERS=$6 RANKS=${7:-4} STACK=${8:-}
if ! command -v valgrind >/dev/null 2>&1; then
    echo "debug_valgrind: valgrind is not installed (Debian package valgrind): skipped"
    exit 77
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
flags=""
[ "$LINK" = noprivatize ] && flags=-zmpi-no-privatize
"$ZMPICC" $flags -g -O1 -o "$tmp/prog" "$SRC/debug_checkers.c" || exit 1
arg=""
[ "$MODE" = clean ] || arg=$MODE
cd "$tmp" || exit 1
stack=""
[ -n "$STACK" ] && stack="--stack-size $STACK"
ZMPI_TMPDIR=$tmp MPIEXEC_TIMEOUT=80 "$ZMPIRUN" -n "$RANKS" -w "$WORKERS" $stack \
    valgrind ./prog $arg >out 2>&1
status=$?
cat out
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
grep -q "ERROR SUMMARY:" out || fail "valgrind printed no error summary"
grep -q "client switching stacks" out && fail "valgrind took a rank switch for a huge frame"
grep -q "debug_checkers: ok" out || fail "the program's own checks did not pass"
if [ "$MODE" = clean ]; then
    [ $status -eq 0 ] || fail "exit status $status"
    grep -q "ERROR SUMMARY: 0 errors" out || fail "memcheck reported errors in a clean program"
else
    line=$(grep -n "MARK $MODE " "$SRC/debug_checkers.c" | cut -d: -f1)
    case $MODE in
    invalid_read) what="Invalid read of size 4" ;;
    uninit) what="Conditional jump or move depends on uninitialised value" ;;
    *) echo "debug_valgrind: unknown mode $MODE"; exit 1 ;;
    esac
    grep -q "$what" out || fail "memcheck did not report: $what"
    grep -Eq "(at|by) 0x[0-9A-F]+: mistake \(debug_checkers.c:$line\)" out ||
        fail "the report does not name debug_checkers.c:$line"
    grep -Eq "ERROR SUMMARY: [1-9]" out || fail "the error summary counts no error"
fi
left=$(ls "$tmp" | grep -c '^zmpi-')
[ "$left" -eq 0 ] || fail "$left copies of the program left in ZMPI_TMPDIR"
[ $fails -eq 0 ] && echo "debug_valgrind $MODE $LINK ${RANKS}x$WORKERS: ok"
[ $fails -eq 0 ]
