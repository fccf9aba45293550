#!/bin/sh
# Tests the routes by which build systems find an installed zmpi, each with
# a program that must run with privatized globals on 4 ranks:
#   - find_package(zmpi) and its zmpi::zmpi target (C and C++),
#   - FindMPI through MPI_HOME=<prefix>/mpi with the plain compilers (its
#     flags lack -fPIC: C still runs; C++ with std::cout stops at start
#     with a message naming -fPIC and the fix),
#   - FindMPI with <prefix>/mpi/bin first on PATH and no hint,
#   - CC=zmpicc with find_package(MPI),
#   - pkg-config zmpi (privatized) and zmpi-noprivatize.
# Usage: buildsys_test.sh CMAKE BUILDDIR CC CXX
# Exits 77 (skipped) if libzmpi is not built.

[ $# -eq 4 ] || { echo "usage: buildsys_test.sh CMAKE BUILDDIR CC CXX"; exit 2; }
. "$(dirname "$0")/lib.sh"
CMAKE=$1
BUILDDIR=$2
CC=$3
CXX=$4
if ! have_libzmpi "$BUILDDIR"; then
    echo "SKIP: no libzmpi.so/libzmpi_main.a in $BUILDDIR"
    exit 77
fi
"$CMAKE" --install "$BUILDDIR" --prefix "$tmp/prefix" >"$tmp/log" 2>&1 ||
    { fail "install failed:"; sed 's/^/  | /' "$tmp/log"; exit 1; }
p=$tmp/prefix
cp "$testdir/probe.c" "$testdir/probe.cpp" "$tmp/"

# check_run NAME PROGRAM: 4 ranks, each with its own counter.
check_run() {
    "$p/bin/zmpirun" -n 4 "$2" -n 5 >"$tmp/out" 2>&1 || fail "$1: exited $?"
    for r in 0 1 2 3; do
        grep -qx "rank $r of 4 n=5 counter=$((r + 1))" "$tmp/out" ||
            { fail "$1: rank $r wrong or missing:"; sed 's/^/  | /' "$tmp/out"; return; }
    done
}

# project NAME LANG SOURCE FIND LINK [CMAKE ARGS...]: configures and
# builds a one-program project; prints its build directory.
project() {
    name=$1 lang=$2 src=$3 find=$4 link=$5
    shift 5
    d=$tmp/$name
    mkdir -p "$d"
    cp "$tmp/$src" "$d/"
    cat >"$d/CMakeLists.txt" <<CML
cmake_minimum_required(VERSION 3.18)
project(probe LANGUAGES $lang)
$find
add_executable(probe $src)
target_link_libraries(probe PRIVATE $link)
CML
    if ! "$CMAKE" -S "$d" -B "$d/build" "$@" >"$d/log" 2>&1 ||
        ! "$CMAKE" --build "$d/build" >>"$d/log" 2>&1; then
        fail "$name: configure or build failed:"
        sed 's/^/  | /' "$d/log" >&2
        return 1
    fi
}

for lang in C CXX; do
    src=probe.c
    [ $lang = CXX ] && src=probe.cpp
    project pkg_$lang $lang $src "find_package(zmpi REQUIRED)" zmpi::zmpi \
        -DCMAKE_PREFIX_PATH="$p" -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" &&
        check_run "find_package(zmpi) $lang" "$tmp/pkg_$lang/build/probe"
    project wrapcc_$lang $lang $src "find_package(MPI REQUIRED COMPONENTS $lang)" \
        MPI::MPI_$lang -DCMAKE_C_COMPILER="$p/bin/zmpicc" \
        -DCMAKE_CXX_COMPILER="$p/bin/zmpicxx" &&
        check_run "CC=zmpicc, FindMPI $lang" "$tmp/wrapcc_$lang/build/probe"
done

project home_C C probe.c "find_package(MPI REQUIRED COMPONENTS C)" MPI::MPI_C \
    -DMPI_HOME="$p/mpi" -DCMAKE_C_COMPILER="$CC" &&
    check_run "FindMPI MPI_HOME C" "$tmp/home_C/build/probe"
grep -q "MPI_C_COMPILER:.*=$p/mpi/bin/mpicc" "$tmp/home_C/build/CMakeCache.txt" ||
    fail "FindMPI with MPI_HOME=$p/mpi did not pick zmpi's mpicc"
if project home_CXX CXX probe.cpp "find_package(MPI REQUIRED COMPONENTS CXX)" \
    MPI::MPI_CXX -DMPI_HOME="$p/mpi" -DCMAKE_CXX_COMPILER="$CXX"; then
    if "$p/bin/zmpirun" -n 4 "$tmp/home_CXX/build/probe" >"$tmp/out" 2>&1; then
        fail "a C++ program built without -fPIC ran privatized (std::cout is not per rank)"
    fi
    grep -q "compiled without -fPIC.*_ZSt4cout.*target_compile_options" "$tmp/out" ||
        { fail "no clear message for C++ code without -fPIC:"; sed 's/^/  | /' "$tmp/out"; }
fi

PATH=$p/mpi/bin:$PATH project path_C C probe.c "find_package(MPI REQUIRED COMPONENTS C)" \
    MPI::MPI_C -DCMAKE_C_COMPILER="$CC" &&
    check_run "FindMPI through PATH" "$tmp/path_C/build/probe"

if command -v pkg-config >/dev/null 2>&1; then
    for pc in zmpi zmpi-noprivatize; do
        flags=$(PKG_CONFIG_PATH=$p/lib/pkgconfig pkg-config --cflags --libs $pc) ||
            { fail "pkg-config does not know $pc"; continue; }
        # The prefix holds no spaces, so plain word splitting is right.
        "$CC" -o "$tmp/probe_$pc" "$tmp/probe.c" $flags || { fail "$pc build failed"; continue; }
        if [ $pc = zmpi ]; then
            check_run "pkg-config $pc" "$tmp/probe_$pc"
        else
            "$p/bin/zmpirun" -n 4 "$tmp/probe_$pc" -n 5 >/dev/null 2>&1 ||
                fail "pkg-config $pc: exited $?"
        fi
    done
fi

if [ "$failures" -ne 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "find_package(zmpi), FindMPI (MPI_HOME, PATH, CC=zmpicc) and pkg-config work"
