#!/bin/sh
# Build zmpi and run the whole test suite (ctest).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh" gcc-aarch64-linux-gnu qemu-user
cmake -S "$top" -B "$top/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$top/build" -j "$(nproc)"
"$top/scripts/check_layers.sh"
(cd "$top/build" && ctest --output-on-failure -j "$(nproc)" --timeout 300)
"$top/scripts/test_aarch64.sh"
