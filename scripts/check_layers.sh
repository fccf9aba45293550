#!/bin/sh
# Enforce the layer order written in CMakeLists.txt: a file under src/<L>/
# may include headers of its own layer and of layers below it only.  The
# layer is the first directory under src/ (src/bindings/fortran/x.c is in
# bindings).  bindings (the Fortran bindings) sit above mpi but use only the
# public interface: they include <mpi.h> and their own headers, no internal
# header of any layer, with one exception: src/mpi/bind_hooks.h, the
# completion hooks the API layer offers the bindings (it needs nothing but
# mpi.h; see its comment for why it is not part of mpi.h), and src/arch/
# headers, where the assembly of their fast paths lives (f08_stub.h).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
order="arch ult core dt net p2p coll rma io mpi bindings"
bad=0
rank() { i=0; for l in $order; do [ "$l" = "$1" ] && { echo $i; return; }; i=$((i+1)); done; echo 99; }
for f in $(find "$top/src" -name '*.[ch]'); do
    layer=${f#"$top/src/"}
    layer=${layer%%/*}
    me=$(rank "$layer")
    for inc in $(grep -v '^#include "mpi/bind_hooks\.h"' "$f" |
                 sed -n 's/^#include "\([a-z0-9_]*\)\/.*/\1/p'); do
        if [ "$(rank "$inc")" -gt "$me" ]; then
            echo "layer violation: $f includes a header of layer '$inc' above '$layer'"
            bad=1
        elif [ "$layer" = bindings ] && [ "$inc" != bindings ] && [ "$inc" != arch ] &&
             [ "$(rank "$inc")" -ne 99 ]; then
            echo "layer violation: $f includes an internal header of layer '$inc'" \
                "(bindings use only mpi.h)"
            bad=1
        fi
    done
done
[ $bad -eq 0 ] && echo "layer check: ok"
exit $bad
