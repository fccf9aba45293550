#!/bin/sh
# Tests the build-tree compiler wrappers (zmpicc, zmpicxx): what -show and
# -showme:* print, that the user's arguments pass through intact, and that
# separately compiled objects, static and shared libraries link into MPI
# programs that run under zmpirun.
# Usage: wrapper_test.sh <dir with zmpicc> <zmpirun> <dir with libzmpi.so>
# Exits 77 (skipped) after the library-free checks if libzmpi is not built.

[ $# -eq 3 ] || { echo "usage: wrapper_test.sh WRAPDIR ZMPIRUN LIBDIR"; exit 2; }
. "$(dirname "$0")/lib.sh"
WRAPDIR=$(abspath "$1")
ZMPIRUN=$(abspath "$2")
LIBDIR=$(abspath "$3")
CC="$WRAPDIR/zmpicc"
CXX="$WRAPDIR/zmpicxx"
cd "$tmp" || exit 1

# has TEXT WORD: true if WORD occurs in TEXT as a whole word.
has() {
    case " $1 " in *" $2 "*) return 0 ;; esac
    return 1
}

# run CMD...: runs CMD, failing the test (with its output) if it fails.
run() {
    "$@" >"$tmp/log" 2>&1 || { fail "'$*' failed:"; sed 's/^/  | /' "$tmp/log"; }
}

# check_ranks FILE N TEXT: every rank 0..N-1 printed "rank R of N TEXT".
check_ranks() {
    r=0
    while [ "$r" -lt "$2" ]; do
        grep -qx "rank $r of $2 $3" "$1" ||
            { fail "no 'rank $r of $2 $3' in $1:"; sed 's/^/  | /' "$1"; return; }
        r=$((r + 1))
    done
}

# The sources.  No mutable globals: under zmpi all ranks share them.
mkdir inc "dir with space"
cat >inc/util.h <<'SRC'
int util_value(int rank);
SRC
cat >util.c <<'SRC'
#include "util.h"
int util_value(int rank) { return rank + EXTRA; }
SRC
cat >main.c <<'SRC'
#include <mpi.h>
#include <stdio.h>
#include "util.h"
int main(int argc, char **argv)
{
    int rank, size, v, sum;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    v = util_value(rank);
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("rank %d of %d sum %d %s\n", rank, size, sum, MSG);
    MPI_Finalize();
    return 0;
}
SRC
cat >ring.c <<'SRC'
#include <mpi.h>
/* Passes each rank's number to its right neighbour; returns the left's. */
int ring_left(void)
{
    int rank, size, left;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Sendrecv(&rank, 1, MPI_INT, (rank + 1) % size, 7, &left, 1, MPI_INT,
                 (rank + size - 1) % size, 7, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    return left;
}
SRC
cat >ringapp.c <<'SRC'
#include <mpi.h>
#include <stdio.h>
int ring_left(void);
int main(int argc, char **argv)
{
    int rank, size, left;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    left = ring_left();
    printf("rank %d of %d left %d\n", rank, size, left);
    MPI_Finalize();
    return 0;
}
SRC
cat >"dir with space/hello.cpp" <<'SRC'
#include <mpi.h>
#include <cstdio>
int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::printf("rank %d of %d c++\n", rank, size);
    MPI_Finalize();
    return 0;
}
SRC

# --- What the wrappers print (needs neither library nor compiler). ---
incdir=$("$CC" -showme:incdirs)
libdir=$("$CC" -showme:libdirs)
[ -f "$incdir/mpi.h" ] || fail "-showme:incdirs gave '$incdir', no mpi.h there"
[ "$(cd "$libdir" && pwd -P)" = "$(cd "$LIBDIR" && pwd -P)" ] ||
    fail "-showme:libdirs gave '$libdir', want '$LIBDIR'"
# Programs are privatized by default: compiled position-independent and
# linked as a PIE with zmpi's entry point.
[ "$("$CC" -showme:libs)" = "zmpi_priv zmpi pthread" ] ||
    fail "-showme:libs gave '$("$CC" -showme:libs)'"
out=$("$CC" -showme:compile)
[ "$out" = "-fPIC -I$incdir" ] || fail "-showme:compile gave '$out'"
out=$("$CC" -showme:link)
for w in -pie -Wl,-e,zm_arch_entry -Wl,--wrap=exit "-L$libdir" "-Wl,-rpath,$libdir" \
    -lzmpi_priv -lzmpi -lpthread; do
    has "$out" "$w" || fail "-showme:link lacks '$w': $out"
done
out=$("$CC" -show -O2 -o app main.c)
has "$out" "-I$incdir" || fail "-show lacks -I: $out"
case $out in
    *" -O2 -o app main.c "*"-lzmpi_priv -lzmpi -lpthread") ;;
    *) fail "-show for a link has the wrong order: $out" ;;
esac
# With -zmpi-no-privatize (or ZMPI_PRIVATIZE=0) the program is an ordinary
# executable whose main and exit the launcher stub takes over.
for optout in "-zmpi-no-privatize" ""; do
    if [ -n "$optout" ]; then
        out=$("$CC" $optout -showme:link)
    else
        out=$(ZMPI_PRIVATIZE=0 "$CC" -showme:link)
    fi
    for w in -Wl,--wrap=main -Wl,--wrap=exit -Wl,-u,zmpi_globals_shared_by_choice \
        "-L$libdir" "-Wl,-rpath,$libdir" -lzmpi_main -lzmpi -lpthread; do
        has "$out" "$w" || fail "opt-out '$optout' -showme:link lacks '$w': $out"
    done
done
[ "$("$CC" -zmpi-no-privatize -showme:compile)" = "-I$incdir" ] ||
    fail "-zmpi-no-privatize -showme:compile gave '$("$CC" -zmpi-no-privatize -showme:compile)'"
out=$("$CC" -showme -c main.c)
case $out in *-lzmpi*|*--wrap*) fail "-showme -c links: $out" ;; esac
out=$("$CC" -show -MD -MF dep.d -c main.c)
case $out in *-lzmpi*) fail "-MD -c links: $out" ;; esac
out=$("$CC" -compile-info)
case $out in *-lzmpi*) fail "-compile-info links: $out" ;; esac
out=$("$CC" -link-info)
has "$out" -lzmpi_priv || fail "-link-info lacks -lzmpi_priv: $out"
out=$("$CC" -show -fPIC -shared -o libring.so ring.c)
has "$out" -lzmpi || fail "-shared lacks -lzmpi: $out"
case $out in *zmpi_main*|*--wrap*) fail "-shared got program flags: $out" ;; esac
out=$("$CC" -show '-DMSG="a b"' main.c)
has "$out" '"-DMSG=\"a b\""' || fail "-show quoting: $out"
out=$(ZMPI_CC=my-cc "$CC" -show -c x.c)
case $out in "my-cc "*) ;; *) fail "ZMPI_CC ignored: $out" ;; esac
out=$(ZMPI_CXX=my-cxx ZMPI_CC=my-cc "$CXX" -show -c x.cpp)
case $out in "my-cxx "*) ;; *) fail "zmpicxx does not use ZMPI_CXX: $out" ;; esac

# --- Compile-only modes need only the header. ---
run "$CC" -E -Iinc -DMSG='"x"' main.c -o main.i
grep -q 'MPI_Allreduce' main.i || fail "-E output lacks MPI_Allreduce"
grep -q 'rank %d of %d' main.i || fail "-E output lacks main's body"
run "$CC" -M main.c -Iinc -o main.dep
grep -q 'mpi\.h' main.dep || fail "-M output does not name mpi.h"
run "$CC" -Iinc -DEXTRA=5 '-DMSG="hello world"' -c -MMD -o main.o main.c
[ -f main.o ] && [ -f main.d ] || fail "-c -MMD made no main.o/main.d"
run "$CC" --version
"$CC" >/dev/null 2>&1 && fail "zmpicc with no arguments succeeded"

if ! have_libzmpi "$LIBDIR"; then
    echo "SKIP: no libzmpi.so/libzmpi_main.a in $LIBDIR ($failures failures so far)"
    [ "$failures" -eq 0 ] && exit 77
    exit 1
fi

# --- Programs built from pieces, run as 4 ranks. ---
run "$CC" -Iinc -DEXTRA=5 -c -o util.o util.c
run "$CC" -o app main.o util.o
run "$ZMPIRUN" -n 4 ./app
cp log app.out
check_ranks app.out 4 "sum 26 hello world"

ar rcs libutil.a util.o
run "$CC" -o app_ar main.o -L. -lutil
run "$ZMPIRUN" -n 4 -w 2 ./app_ar
cp log app_ar.out
check_ranks app_ar.out 4 "sum 26 hello world"

# Sources and -D values with spaces, compile and link in one step.
cp main.c "dir with space/main prog.c"
run "$CC" -Iinc -DEXTRA=1 '-DMSG="spaced out"' -o "dir with space/app" \
    "dir with space/main prog.c" util.c
run "$ZMPIRUN" -n 3 "dir with space/app"
cp log spaced.out
check_ranks spaced.out 3 "sum 6 spaced out"

# An MPI shared library and a program linked against it.
run "$CC" -fPIC -shared -o libring.so ring.c
run "$CC" -o ringapp ringapp.c -L. -lring "-Wl,-rpath,$tmp"
run "$ZMPIRUN" -n 4 ./ringapp
cp log ring.out
for r in 0 1 2 3; do
    grep -qx "rank $r of 4 left $(((r + 3) % 4))" ring.out ||
        fail "ring: rank $r wrong: $(cat ring.out)"
done

# C++ through zmpicxx.
run "$CXX" -O1 -o cxxapp "dir with space/hello.cpp"
run "$ZMPIRUN" -n 4 ./cxxapp
cp log cxx.out
check_ranks cxx.out 4 "c++"

if [ "$failures" -ne 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "all wrapper checks passed"
