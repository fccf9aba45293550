#!/bin/sh
# debug_asan.sh ZMPICC ZMPIRUN SRCDIR: AddressSanitizer on 4 privatized
# ranks (2 workers) of tests/debug_checkers.c, built with
# `zmpicc -fsanitize=address -g -O0`:
#   - clean, the program passes and ASan reports nothing;
#   - with heap_overflow, ASan reports the heap buffer overflow with the
#     program's function, file and line (the rank's copy of the program
#     stays on disk while it runs, so the symbolizer can read it), and
#     no copy is left behind once zmpirun is done.
# Exits 77 (skipped) when the compiler cannot build with ASan.
set -u
ZMPICC=$1 ZMPIRUN=$2 SRC=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
if ! "$ZMPICC" -fsanitize=address -g -O0 -o prog "$SRC/debug_checkers.c" >build.out 2>&1; then
    cat build.out
    echo "debug_asan: cannot build with -fsanitize=address (libasan missing?): skipped"
    exit 77
fi
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ZMPI_TMPDIR=$tmp MPIEXEC_TIMEOUT=60 "$ZMPIRUN" -n 4 -w 2 ./prog >clean.out 2>&1
status=$?
cat clean.out
[ $status -eq 0 ] || fail "clean program: exit status $status"
grep -q "debug_checkers: ok" clean.out || fail "clean program: its checks did not pass"
grep -q "AddressSanitizer" clean.out && fail "clean program: ASan reported something"
ZMPI_TMPDIR=$tmp MPIEXEC_TIMEOUT=60 "$ZMPIRUN" -n 4 -w 2 ./prog heap_overflow >bad.out 2>&1
status=$?
cat bad.out
line=$(grep -n "MARK heap_overflow " "$SRC/debug_checkers.c" | cut -d: -f1)
[ $status -ne 0 ] || fail "heap overflow: the job did not fail"
grep -q "ERROR: AddressSanitizer: heap-buffer-overflow" bad.out ||
    fail "heap overflow: ASan did not report it"
grep -Eq "#0 0x[0-9a-f]+ in mistake .*debug_checkers.c:$line" bad.out ||
    fail "heap overflow: the report does not name mistake at debug_checkers.c:$line"
left=$(ls "$tmp" | grep -c '^zmpi-')
[ "$left" -eq 0 ] || fail "$left copies of the program left in ZMPI_TMPDIR"
[ $fails -eq 0 ] && echo "debug_asan: ok"
[ $fails -eq 0 ]
