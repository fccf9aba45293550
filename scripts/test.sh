#!/bin/sh
# Build zmpi and run the whole test suite (ctest).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh"
cmake -S "$top" -B "$top/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$top/build" -j "$(nproc)"
"$top/scripts/check_layers.sh"
cd "$top/build"
exec ctest --output-on-failure -j "$(nproc)" --timeout 300
