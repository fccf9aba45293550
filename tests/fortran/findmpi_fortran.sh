#!/bin/sh
# findmpi_fortran.sh: CMake's FindMPI finds zmpi's Fortran bindings through
# the build-tree zmpifort: MPI_Fortran_HAVE_F77_HEADER, _F90_MODULE and
# _F08_MODULE are all true, and a `use mpi_f08` program linked with
# MPI::MPI_Fortran runs as 4 ranks under zmpirun.
# Usage: findmpi_fortran.sh WRAPDIR ZMPIRUN CMAKE FC
[ $# -eq 4 ] || { echo "usage: findmpi_fortran.sh WRAPDIR ZMPIRUN CMAKE FC"; exit 2; }
WRAPDIR=$1
ZMPIRUN=$2
CMAKE=$3
FC=$4
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/hello.f90" <<'F90'
program hello
  use mpi_f08
  implicit none
  integer :: rank, size
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  write(*, '(a,i0,a,i0)') 'hello from rank ', rank, ' of ', size
  call MPI_Finalize()
end program hello
F90
cat >"$tmp/CMakeLists.txt" <<'CML'
cmake_minimum_required(VERSION 3.10)
project(findmpi_fortran LANGUAGES Fortran)
find_package(MPI REQUIRED COMPONENTS Fortran)
message(STATUS "probe: f77=${MPI_Fortran_HAVE_F77_HEADER} f90=${MPI_Fortran_HAVE_F90_MODULE} f08=${MPI_Fortran_HAVE_F08_MODULE}")
add_executable(hello hello.f90)
target_link_libraries(hello PRIVATE MPI::MPI_Fortran)
CML
if ! "$CMAKE" -S "$tmp" -B "$tmp/build" -DCMAKE_Fortran_COMPILER="$FC" \
    -DMPI_Fortran_COMPILER="$WRAPDIR/zmpifort" -DMPIEXEC_EXECUTABLE="$ZMPIRUN" \
    >"$tmp/log" 2>&1 || ! "$CMAKE" --build "$tmp/build" >>"$tmp/log" 2>&1; then
    echo "FAIL: configure or build failed:"
    sed 's/^/  | /' "$tmp/log"
    exit 1
fi
if ! grep -q "probe: f77=TRUE f90=TRUE f08=TRUE" "$tmp/log"; then
    echo "FAIL: FindMPI did not find every Fortran binding:"
    grep 'probe:' "$tmp/log"
    exit 1
fi
"$ZMPIRUN" -n 4 "$tmp/build/hello" >"$tmp/out" 2>&1 || { echo "FAIL: hello exited $?"; cat "$tmp/out"; exit 1; }
for r in 0 1 2 3; do
    grep -qx "hello from rank $r of 4" "$tmp/out" ||
        { echo "FAIL: rank $r missing:"; cat "$tmp/out"; exit 1; }
done
echo "FindMPI works with zmpifort (mpif.h, mpi, mpi_f08)"
