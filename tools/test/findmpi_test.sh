#!/bin/sh
# Tests that CMake's FindMPI accepts the build-tree wrappers: a small project
# finds MPI through zmpicc (and zmpicxx), links hello programs with
# MPI::MPI_C / MPI::MPI_CXX, and they run as 4 ranks under zmpirun.
# Usage: findmpi_test.sh WRAPDIR ZMPIRUN LIBDIR CMAKE CC CXX
# Exits 77 (skipped) if libzmpi is not built.

[ $# -eq 6 ] || { echo "usage: findmpi_test.sh WRAPDIR ZMPIRUN LIBDIR CMAKE CC CXX"; exit 2; }
. "$(dirname "$0")/lib.sh"
WRAPDIR=$(abspath "$1")
ZMPIRUN=$(abspath "$2")
LIBDIR=$(abspath "$3")
CMAKE=$4
CC=$5
CXX=$6
if ! have_libzmpi "$LIBDIR"; then
    echo "SKIP: no libzmpi.so/libzmpi_main.a in $LIBDIR"
    exit 77
fi

# The same hello program serves both languages.
cp "$testdir/hello.c" "$tmp/hello.c"
cp "$tmp/hello.c" "$tmp/hello.cpp"

# try_lang LANG SOURCE WRAPPER: configures, builds and runs one project.
try_lang() {
    lang=$1
    src=$tmp/$lang
    mkdir "$src"
    cp "$tmp/$2" "$src/"
    cat >"$src/CMakeLists.txt" <<CML
cmake_minimum_required(VERSION 3.10)
project(findmpi_probe LANGUAGES $lang)
find_package(MPI REQUIRED COMPONENTS $lang)
add_executable(hello $2)
target_link_libraries(hello PRIVATE MPI::MPI_$lang)
CML
    if ! "$CMAKE" -S "$src" -B "$src/build" -DCMAKE_C_COMPILER="$CC" \
        -DCMAKE_CXX_COMPILER="$CXX" -DMPI_${lang}_COMPILER="$WRAPDIR/$3" \
        -DMPIEXEC_EXECUTABLE="$ZMPIRUN" >"$src/log" 2>&1 ||
        ! "$CMAKE" --build "$src/build" >>"$src/log" 2>&1; then
        fail "$lang: configure or build failed:"
        sed 's/^/  | /' "$src/log"
        return
    fi
    # The program must have been linked against zmpi, not a system MPI.
    "$ZMPIRUN" -n 4 "$src/build/hello" >"$src/out" 2>&1 ||
        fail "$lang: hello exited $?"
    for r in 0 1 2 3; do
        grep -qx "hello from rank $r of 4" "$src/out" ||
            { fail "$lang: rank $r missing:"; sed 's/^/  | /' "$src/out"; return; }
    done
}

try_lang C hello.c zmpicc
try_lang CXX hello.cpp zmpicxx

if [ "$failures" -ne 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "FindMPI works with zmpicc and zmpicxx"
