#!/bin/sh
# privatize_test.sh ZMPICC ZMPIRUN SRCDIR: a program built with
# `zmpicc -zmpi-privatize` from two object files and a static library of the
# user's own code gives every rank its own globals, also in the library.
set -eu
ZMPICC=$1 ZMPIRUN=$2 SRC=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cat >lib.c <<'EOS'
int lib_counter;                       /* a global in the static library */
int lib_bump(int by) { lib_counter += by; return lib_counter; }
EOS
cat >helper.c <<'EOS'
static int calls;                      /* file-static in another object */
int helper_calls(void) { return ++calls; }
EOS
cat >app.c <<'EOS'
#include <mpi.h>
#include <stdio.h>
int lib_bump(int by);
int helper_calls(void);
int main(int argc, char **argv)
{
    int rank, bad = 0, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    bad |= lib_bump(rank + 1) != rank + 1;
    bad |= helper_calls() != 1;
    MPI_Barrier(MPI_COMM_WORLD);
    bad |= lib_bump(0) != rank + 1;
    bad |= helper_calls() != 2;
    MPI_Allreduce(&bad, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("ranks with shared globals: %d\n", sum);
    MPI_Finalize();
    return sum != 0;
}
EOS
"$ZMPICC" -zmpi-privatize -O2 -c lib.c
ar rcs libmine.a lib.o
"$ZMPICC" -zmpi-privatize -O2 -c helper.c
"$ZMPICC" -zmpi-privatize -O2 -c app.c
"$ZMPICC" -zmpi-privatize -o app app.o helper.o -L. -lmine
for layout in "64 1" "64 2" "256 1"; do
    set -- $layout
    out=$("$ZMPIRUN" -n "$1" -w "$2" ./app)
    [ "$out" = "ranks with shared globals: 0" ] ||
        { echo "FAIL: $1 ranks on $2 workers: $out"; exit 1; }
done
# Privatization is the default: the same link without the option.
"$ZMPICC" -o app_default app.o helper.o -L. -lmine
[ "$("$ZMPIRUN" -n 8 -w 2 ./app_default)" = "ranks with shared globals: 0" ] ||
    { echo "FAIL: default link does not privatize"; exit 1; }
# Opted out: the ranks share the globals (the program notices), and zmpi,
# told so at link time, does not warn.
"$ZMPICC" -zmpi-no-privatize -o app_shared app.o helper.o -L. -lmine
if "$ZMPIRUN" -n 8 -w 2 ./app_shared >out 2>&1; then
    echo "FAIL: shared globals were not detected"; cat out; exit 1
fi
grep -q "ranks with shared globals: [1-9]" out
if grep -q "warning" out; then echo "FAIL: opted-out program warned"; cat out; exit 1; fi
# Linked by hand the old way, with neither privatization nor the opt-out:
# several ranks get a warning that names the problem and the fix.
cc -o app_legacy app.o helper.o -L. -lmine -Wl,--wrap=main -Wl,--wrap=exit \
    $("$ZMPICC" -zmpi-no-privatize -showme:libdirs | sed 's/^/-L/') -lzmpi_main -lzmpi \
    "-Wl,-rpath,$("$ZMPICC" -showme:libdirs)"
"$ZMPIRUN" -n 4 -w 2 ./app_legacy >out 2>&1 || true
grep -q "warning: .*not linked for privatization.*share" out ||
    { echo "FAIL: no warning for an unprivatized program"; cat out; exit 1; }
"$ZMPIRUN" -n 1 ./app_legacy >out 2>&1
if grep -q "warning" out; then echo "FAIL: one rank warned"; cat out; exit 1; fi
# C++: a global object is constructed once per rank and destroyed when the
# rank ends; a function-local static is per rank; exceptions work.
cat >app.cc <<'EOS'
#include <mpi.h>
#include <cstdio>
#include <stdexcept>
static int constructions;
struct Global {
    int rank = -1;
    Global() { ++constructions; }
    ~Global() { std::printf("destroyed rank %d\n", rank); std::fflush(stdout); }
};
Global g;
static int &local_static() { static int n = 0; return n; }
int main(int argc, char **argv)
{
    int bad = 0, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g.rank);
    local_static() += g.rank;
    MPI_Barrier(MPI_COMM_WORLD);
    bad |= constructions != 1 || local_static() != g.rank;
    try {
        throw std::runtime_error("per-rank");
    } catch (const std::exception &) {
        bad |= 0;
    }
    MPI_Allreduce(&bad, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return sum != 0;
}
EOS
ZMPICXX=$(dirname "$ZMPICC")/zmpicxx
"$ZMPICXX" -zmpi-privatize -O2 -o appxx app.cc
for layout in "64 1" "64 2" "256 1"; do
    set -- $layout
    "$ZMPIRUN" -n "$1" -w "$2" ./appxx >outxx ||
        { echo "FAIL: C++ program on $1 ranks, $2 workers"; cat outxx; exit 1; }
    n=$(grep -c '^destroyed rank' outxx)
    [ "$n" -eq "$1" ] || { echo "FAIL: $n destructor runs, want $1"; exit 1; }
    for r in 0 7 $(($1 - 1)); do
        grep -q "^destroyed rank $r\$" outxx || { echo "FAIL: rank $r not destroyed"; exit 1; }
    done
done
# gdb sees the ranks' copies: a breakpoint in the user's library function
# stops there, with source lines.  (gdb ends the job with the copies still
# on disk; ZMPI_TMPDIR puts them where the trap removes them.)
"$ZMPICC" -zmpi-privatize -g -O0 -o appg app.c helper.c lib.c
ZMPI_TMPDIR=$tmp ZMPI_NP=2 ZMPI_WORKERS=1 timeout 120 gdb -batch -nx -ex 'set breakpoint pending on' \
    -ex 'break lib_bump' -ex run -ex bt --args ./appg >gdb.out 2>&1 || true
grep -Eq 'Breakpoint 1[.0-9]*, lib_bump \(by=1\) at lib.c:2' gdb.out ||
    { echo "FAIL: gdb did not stop in lib_bump"; cat gdb.out; exit 1; }
grep -q 'in main (argc=.*) at app.c:' gdb.out ||
    { echo "FAIL: gdb shows no caller in app.c"; cat gdb.out; exit 1; }
echo "privatize_test: ok"
