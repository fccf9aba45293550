#!/bin/sh
# Cross-build zmpi for AArch64 and run a subset of the tests under
# qemu-user, so the AArch64 context switch and the memory-ordering of the
# p2p paths are exercised on every CI run.  Needs gcc-aarch64-linux-gnu and
# qemu-user (scripts/test.sh installs them).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build="$top/build-aarch64"
cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_SYSTEM_NAME=Linux -DCMAKE_SYSTEM_PROCESSOR=aarch64 \
    -DCMAKE_C_COMPILER=aarch64-linux-gnu-gcc \
    -DCMAKE_ASM_COMPILER=aarch64-linux-gnu-gcc \
    -DCMAKE_CXX_COMPILER=g++ >/dev/null
# Only the library and the test programs: the tools' own tests run natively.
cmake --build "$build" -j "$(nproc)" --target zmpi zt_p2p_modes zt_p2p_order \
    zt_p2p_probe zt_stress zt_coll zt_ring zt_wrong zt_priv_globals >/dev/null
export QEMU_LD_PREFIX=/usr/aarch64-linux-gnu
fails=0

# run NP WORKERS PROGRAM ARGS...: one job under qemu, which must succeed.
run() {
    np=$1 w=$2 prog=$3
    shift 3
    if ZMPI_NP=$np ZMPI_WORKERS=$w timeout 300 \
        qemu-aarch64 -E "LD_LIBRARY_PATH=$build" "$build/tests/zt_$prog" "$@" \
        >"$build/last.out" 2>&1; then
        echo "aarch64: $prog ${np}x$w: ok"
    else
        echo "aarch64: $prog ${np}x$w: FAILED"
        cat "$build/last.out"
        fails=$((fails + 1))
    fi
}

# wrong MISTAKE NP WORKERS REGEX: an erroneous program must fail by itself.
wrong() {
    if ZMPI_NP=$2 ZMPI_WORKERS=$3 ZMPI_STACK_SIZE=65536 sh "$top/tests/expect_fail.sh" \
        --timeout 120 --regex "$4" -- \
        qemu-aarch64 -E "LD_LIBRARY_PATH=$build" "$build/tests/zt_wrong" "$1" \
        >"$build/last.out" 2>&1; then
        echo "aarch64: wrong $1: failed as expected"
    else
        echo "aarch64: wrong $1: FAILED"
        cat "$build/last.out"
        fails=$((fails + 1))
    fi
}

run 2 1 p2p_modes
run 4 2 p2p_modes
run 2 2 p2p_order
run 7 2 p2p_probe
run 7 2 stress 3 300 40000
run 3 3 stress 4 300 300000
run 64 2 coll
run 1000 2 ring 2
run 16 2 priv_globals
wrong stack_overflow 2 2 "stack overflow"
wrong deadlock_recv_first 3 2 "deadlock"
[ "$fails" -eq 0 ] || { echo "aarch64: $fails failed"; exit 1; }
echo "aarch64: all passed"
