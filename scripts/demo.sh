#!/bin/sh
# Build zmpi and run the demo: a 2D heat-diffusion solver with halo
# exchange on 64 virtual ranks (user-level threads) on 2 worker threads.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh"
cmake -S "$top" -B "$top/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$top/build" -j "$(nproc)" --target zmpirun heat2d
exec "$top/build/tools/zmpirun" -n 64 -w 2 "$top/build/examples/heat2d" "$@"
