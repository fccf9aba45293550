#!/bin/sh
# Build zmpi and run the whole test suite (ctest).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
# MPICH and Open MPI check that the MPI+MPI examples and the zmpi_hy
# primitives verify with process-based MPIs too, and zmpi as 2 processes
# of one node, whose shared windows span them (hy/test_hy.sh).
"$top/scripts/deps.sh" gcc-aarch64-linux-gnu qemu-user mpich libmpich-dev openmpi-bin libopenmpi-dev valgrind
cmake -S "$top" -B "$top/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$top/build" -j "$(nproc)"
"$top/scripts/check_layers.sh"
(cd "$top/build" && ctest --output-on-failure -j "$(nproc)" --timeout 300)
"$top/hy/test_hy.sh" mpich openmpi zmpi-procs
"$top/scripts/test_aarch64.sh"
