#!/bin/sh
# hpcc_test.sh: the HPC Challenge benchmark (HPCC 1.5.0), a suite written
# for process-based MPI with global variables, built with zmpicc unchanged
# and run under zmpirun on 2 and 64 ranks (issue 5).
#
#   hpcc_test.sh ZMPICC ZMPIRUN
#   hpcc_test.sh --check HPCCOUTF NP    (only check an existing output file)
#
# HPCC's source is not part of zmpi: the script fetches Debian's copy of the
# upstream tarball (hpcc_1.5.0.orig.tar.gz) with apt-get source, adding a
# deb-src entry first if none is configured and it runs as root.  It builds
# with our arch file Make.zmpi and reference BLAS (single-threaded), runs
# with hpccinf_<N>.txt from this directory, and checks HPCC's own verdicts
# in hpccoutf.txt.  If mpicc.mpich and mpirun.mpich exist, the same source
# is also built with them and run on 2 ranks, so the checks are known to
# accept real output from a process-based MPI.
#
# Exit status: 0 pass, 1 fail, 77 skipped (only when the tarball or the
# reference BLAS cannot be downloaded).
#
# Environment:
#   HPCC_TARBALL=path   use this copy of hpcc_1.5.0.orig.tar.gz, no download
#   HPCC_RANKS="2 64"   rank counts to run (each needs hpccinf_<N>.txt)
#   HPCC_WORKERS=2      zmpirun workers
#   HPCC_TIMEOUT=900    seconds per run (MPIEXEC_TIMEOUT)
#   HPCC_MPICH=0        skip the MPICH comparison run
#   HPCC_KEEP=1         keep the work directory (printed at the end)
#   HPCC_EXTRA_CFLAGS, HPCC_EXTRA_LIBS   added to the zmpicc compile and
#                       link lines (for trying out an extra object while
#                       developing; the test itself sets neither)

failures=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# ---- Checking HPCC's output ---------------------------------------------

# value KEY FILE: the value of KEY=... in the summary section.
value() {
    sed -n "s/^$1=//p" "$2" | head -n 1
}

# positive KEY FILE: KEY is in the summary and greater than zero.
positive() {
    v=$(value "$1" "$2")
    [ -n "$v" ] && awk -v v="$v" 'BEGIN { exit !(v + 0 > 0) }'
}

# ra_errors_ok FILE: every RandomAccess check passed, or missed at most 3% of
# the table.  HPCC's own MPI update loop misses a few updates at high rank
# counts whatever the MPI does (MPICH 4.0 at 64 ranks on this 2-core machine:
# 842 and 876 of 262144 entries, 0.3%); how many depends on timing, and on a
# loaded machine zmpi and MPICH both reach 1.2%, which HPCC calls failed.  A
# library that lost messages would miss far more, and tests/p2p_* check
# delivery exactly, so 3% keeps this test about HPCC's verdicts, not the load.
ra_errors_ok() {
    awk '/errors in .* locations/ {
             if ($2 + 0 > 0.03 * $5) bad = 1 }
         END { exit bad }' "$1"
}

# ra_only_failure FILE: HPCC's Success=0 came from a RandomAccess check within
# ra_errors_ok's bound and nothing else failed (the other verdicts are checked
# one by one in check_output).
ra_only_failure() {
    grep -q "locations (failed)" "$1" && ra_errors_ok "$1"
}

# check_output FILE NP LABEL: HPCC's own verdicts for every test it ran.
check_output() {
    f=$1 np=$2 label=$3
    [ -s "$f" ] || { fail "$label: no hpccoutf.txt"; return; }
    grep -q "^End of HPC Challenge tests\." "$f" ||
        fail "$label: HPCC did not reach its end"
    [ "$(value Success "$f")" = 1 ] || ra_only_failure "$f" ||
        fail "$label: HPCC's overall verdict is not Success=1"
    [ "$(value HPLMaxProcs "$f")" = "$np" ] ||
        fail "$label: HPCC saw $(value HPLMaxProcs "$f") ranks, not $np"
    # HPL, and PTRANS which uses HPL's checks: residuals passed, none failed.
    grep -q "^||Ax-b||_oo/.*PASSED" "$f" ||
        fail "$label: no passed HPL residual check"
    grep -q "tests completed and failed residual checks" "$f" &&
        [ -z "$(grep "tests completed and failed residual checks" "$f" | grep -v "^ *0 tests")" ] ||
        fail "$label: HPL or PTRANS failed a residual check"
    if grep -q "FAILED" "$f"; then
        fail "$label: FAILED in the output"
    fi
    [ -n "$(value PTRANS_residual "$f")" ] ||
        fail "$label: no PTRANS result"
    # RandomAccess (MPI, star, and their LCG variants): HPCC accepts up to 1%
    # wrong table entries and says passed or failed; see ra_errors_ok for the
    # MPI variants' timing-dependent misses.
    [ "$(grep -c "errors in .* locations" "$f")" -ge 4 ] ||
        fail "$label: RandomAccess did not run its four checks"
    ra_errors_ok "$f" || fail "$label: RandomAccess check failed"
    grep -q "Solution Validates" "$f" || fail "$label: STREAM did not validate"
    # DGEMM, STREAM, FFT, RandomAccess: ranks whose own check failed.
    if grep "^Node(s) with error" "$f" | grep -qv "error 0$"; then
        fail "$label: some rank failed a local check (Node(s) with error)"
    fi
    [ "$(value MPIFFT_Procs "$f")" = "$np" ] || fail "$label: MPI FFT did not use $np ranks"
    for k in HPL_Tflops PTRANS_GBs MPIRandomAccess_GUPs StarSTREAM_Triad \
             MPIFFT_Gflops StarDGEMM_Gflops MaxPingPongLatency_usec; do
        positive "$k" "$f" || fail "$label: result $k missing or not positive"
    done
    echo "hpcc_test: $label: HPL scaled residual $(sed -n 's/^||Ax-b||_oo.*= *\([0-9.e+-]*\) .*/\1/p' "$f" | head -n 1)," \
        "MPIRandomAccess errors $(value MPIRandomAccess_Errors "$f")," \
        "MPIFFT maxErr $(value MPIFFT_maxErr "$f")"
}

# "--check FILE NP" only checks an existing hpccoutf.txt from NP ranks.
if [ "${1-}" = --check ] && [ $# -eq 3 ]; then
    check_output "$2" "$3" "$2"
    [ "$failures" -eq 0 ] && echo "hpcc_test: all checks passed"
    [ "$failures" -eq 0 ]
    exit
fi
if [ $# -ne 2 ]; then
    echo "usage: $0 ZMPICC ZMPIRUN  or  $0 --check HPCCOUTF NP" >&2
    exit 2
fi

testdir=$(cd "$(dirname "$0")" && pwd) || exit 1
abspath() {
    case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac
}
zmpicc=$(abspath "$1")
zmpirun=$(abspath "$2")
ranks=${HPCC_RANKS-2 64}
workers=${HPCC_WORKERS-2}
run_timeout=${HPCC_TIMEOUT-900}
tarname=hpcc_1.5.0.orig.tar.gz

work=$(mktemp -d "${TMPDIR:-/tmp}/zmpi-hpcc.XXXXXX") || exit 1
if [ "${HPCC_KEEP-0}" = 1 ]; then
    trap 'echo "hpcc_test: work directory kept: $work"' EXIT
else
    trap 'rm -rf "$work"' EXIT
fi
skip() {
    echo "SKIP: $*"
    exit 77
}

# ---- The source tarball -------------------------------------------------

# Adds a deb-src entry for Debian's main archive (root only), so that
# apt-get source works on a machine that only has binary entries.
add_deb_src() {
    [ "$(id -u)" = 0 ] || return 1
    [ -r /etc/os-release ] || return 1
    codename=$(. /etc/os-release && echo "${VERSION_CODENAME-}")
    [ -n "$codename" ] || return 1
    keyring=/usr/share/keyrings/debian-archive-keyring.gpg
    {
        echo "Types: deb-src"
        echo "URIs: http://deb.debian.org/debian"
        echo "Suites: $codename"
        echo "Components: main"
        [ -r "$keyring" ] && echo "Signed-By: $keyring"
    } > /etc/apt/sources.list.d/zmpi-hpcc-src.sources || return 1
    apt-get update -qq > "$work/apt-update.log" 2>&1
}

# apt-get verifies the tarball against the signed Sources index.  Only the
# orig tarball matters; the Debian packaging part may fail to download,
# so success is judged by the file being there.
fetch_tarball() {
    if [ -n "${HPCC_TARBALL-}" ]; then
        cp "$HPCC_TARBALL" "$work/$tarname" && return 0
        return 1
    fi
    command -v apt-get > /dev/null 2>&1 || return 1
    (cd "$work" && apt-get source --download-only hpcc \
        > "$work/apt-source.log" 2>&1)
    [ -s "$work/$tarname" ] && return 0
    add_deb_src || return 1
    (cd "$work" && apt-get source --download-only hpcc \
        >> "$work/apt-source.log" 2>&1)
    [ -s "$work/$tarname" ]
}

fetch_tarball || {
    cat "$work/apt-source.log" 2>/dev/null | tail -5
    skip "cannot download $tarname (no deb-src entry, not root, or offline)"
}
echo "hpcc_test: source $tarname ($(wc -c < "$work/$tarname") bytes)"

# ---- Reference BLAS -----------------------------------------------------

# Debian's libblas3 puts the reference BLAS here; other BLAS packages take
# over the generic libblas.so.3 name through alternatives, so we link this
# file by path and put its directory first in the run path.
multiarch=$(cc -print-multiarch 2>/dev/null || gcc -print-multiarch 2>/dev/null)
blasdir=/usr/lib/${multiarch:-x86_64-linux-gnu}/blas
if [ ! -e "$blasdir/libblas.so.3" ] && [ "$(id -u)" = 0 ]; then
    apt-get install -y -qq libblas3 > "$work/apt-blas.log" 2>&1 ||
        { apt-get update -qq > /dev/null 2>&1 &&
          apt-get install -y -qq libblas3 >> "$work/apt-blas.log" 2>&1; }
fi
[ -e "$blasdir/libblas.so.3" ] || skip "reference BLAS ($blasdir/libblas.so.3) missing and not installable"
blaslib="$blasdir/libblas.so.3 -Wl,-rpath,$blasdir"

# ---- Build --------------------------------------------------------------

# build NAME MPICC [EXTRA_CFLAGS [EXTRA_LIBS]]: unpacks a fresh tree in
# $work/NAME and builds hpcc in it with our arch file; HPCC's own files are
# not modified.  Prints the path of the program.
build() {
    dir=$work/$1
    mkdir -p "$dir" && tar -xzf "$work/$tarname" -C "$dir" || return 1
    src=$(echo "$dir"/hpcc-*)
    cp "$testdir/Make.zmpi" "$src/hpl/Make.zmpi" || return 1
    (cd "$src" && make arch=zmpi \
        MPICC="$2${3:+ $3}" BLASLIB="${4:+$4 }$blaslib" \
        > "$dir/build.log" 2>&1)
    if [ ! -x "$src/hpcc" ]; then
        grep -E "undefined reference|error" "$dir/build.log" | sort -u | head -20 >&2
        return 1
    fi
    echo "$src/hpcc"
}

# run_one LABEL NP DIR CMD...: runs HPCC with hpccinf_NP.txt in DIR (HPCC
# reads hpccinf.txt from and appends hpccoutf.txt to its working directory).
run_one() {
    label=$1 np=$2 dir=$3
    shift 3
    if ! mkdir -p "$dir" || ! cp "$testdir/hpccinf_$np.txt" "$dir/hpccinf.txt"; then
        fail "$label: no input file hpccinf_$np.txt"
        return 1
    fi
    start=$(date +%s.%N)
    (cd "$dir" && MPIEXEC_TIMEOUT=$run_timeout "$@" > run.log 2>&1)
    rc=$?
    end=$(date +%s.%N)
    secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
    echo "hpcc_test: $label: exit $rc after $secs s"
    if [ "$rc" != 0 ]; then
        fail "$label: exit status $rc"
        tail -n 20 "$dir/run.log"
    fi
    check_output "$dir/hpccoutf.txt" "$np" "$label"
}

if hpcc=$(build zmpi "$zmpicc" "${HPCC_EXTRA_CFLAGS-}" "${HPCC_EXTRA_LIBS-}"); then
    for np in $ranks; do
        run_one "zmpi $np ranks" "$np" "$work/run-zmpi-$np" \
            "$zmpirun" -n "$np" -w "$workers" "$hpcc"
    done
else
    fail "HPCC does not build with zmpicc (see above)"
fi

if [ "${HPCC_MPICH-1}" != 0 ] && command -v mpicc.mpich > /dev/null 2>&1 &&
   command -v mpirun.mpich > /dev/null 2>&1; then
    if hpcc_m=$(build mpich mpicc.mpich); then
        run_one "MPICH 2 ranks" 2 "$work/run-mpich-2" \
            timeout "$run_timeout" mpirun.mpich -n 2 "$hpcc_m"
    else
        fail "HPCC does not build with mpicc.mpich"
    fi
fi

if [ "$failures" -ne 0 ]; then
    echo "hpcc_test: $failures check(s) failed"
    exit 1
fi
echo "hpcc_test: all checks passed"
exit 0
