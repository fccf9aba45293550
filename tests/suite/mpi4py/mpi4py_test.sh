#!/bin/sh
# mpi4py_test.sh: mpi4py, built from its release source against zmpi with
# zmpicc, runs its own test suite at one rank (a program started without
# zmpirun is a one-rank job, which is how Python runs MPI code).
#
#   mpi4py_test.sh ZMPICC
#
# The source is not part of zmpi: pip downloads the pinned release from
# PyPI.  The build is kept in $MPI4PY_WORK (default: a directory beside the
# build tree) and redone only when zmpi's mpi.h changes, since mpi4py's
# configuration probes which MPI functions mpi.h declares.
#
# The whole suite runs and must pass (mpi4py's own skips aside), except
# the modules of MPI chapters zmpi does not have yet, tracked by open
# issues: EXCLUDED below (dynamic processes).
#
# Exit status: 0 pass, 1 fail, 77 skipped (only when the source cannot be
# downloaded or built for lack of Python packaging tools).
#
# Environment:
#   MPI4PY_VERSION   release to test (default 4.1.2)
#   MPI4PY_WORK      work directory
set -u
zmpicc=$1
version=${MPI4PY_VERSION:-4.1.2}
here=$(cd "$(dirname "$0")" && pwd)
work=${MPI4PY_WORK:-$(dirname "$(dirname "$zmpicc")")/mpi4py-work}
mkdir -p "$work"

# Modules left out (regular expression on module names): dynamic processes
# (MPI_Comm_spawn, ports) are not implemented yet (issue 15).
EXCLUDED='test_dynproc'

python3 -c 'import setuptools, wheel' 2>/dev/null || pip install -q wheel setuptools ||
    { echo "SKIP: cannot install Python packaging tools"; exit 77; }
# NumPy arrays widen the suite's buffer tests; without it they are skipped.
python3 -c 'import numpy' 2>/dev/null || pip install -q numpy ||
    echo "mpi4py_test: numpy could not be installed; its array tests are skipped"

# ---- Build (or reuse) the mpi4py wheel ------------------------------------
inc=$("$zmpicc" -showme:compile | tr ' ' '\n' | sed -n 's/^-I//p' | head -n 1)
stamp=$(cat "$inc/mpi.h" "$here/mpi4py_test.sh" | sha256sum | cut -c1-16)
site="$work/site-$stamp"
if [ ! -d "$site/mpi4py" ]; then
    rm -rf "$work"/site-* "$work/src" "$work/wheel"
    mkdir -p "$work/src" "$work/wheel"
    pip download -q --no-deps --no-binary :all: -d "$work/src" "mpi4py==$version" ||
        { echo "SKIP: cannot download mpi4py $version"; exit 77; }
    tar -xzf "$work/src/mpi4py-$version.tar.gz" -C "$work/src" || exit 1
    echo "mpi4py_test: building mpi4py $version with $zmpicc (a few minutes)"
    (cd "$work/src/mpi4py-$version" &&
        MPICC="$zmpicc" pip wheel -q --no-deps -w "$work/wheel" . \
            >"$work/build.log" 2>&1) || { tail -n 40 "$work/build.log"; echo "FAIL: build"; exit 1; }
    pip install -q --no-deps --target "$site" "$work"/wheel/mpi4py-*.whl || exit 1
fi
tests="$work/src/mpi4py-$version/test"
if [ ! -d "$tests" ]; then
    pip download -q --no-deps --no-binary :all: -d "$work/src" "mpi4py==$version" &&
        tar -xzf "$work/src/mpi4py-$version.tar.gz" -C "$work/src" || exit 1
fi

# ---- Run ------------------------------------------------------------------
export PYTHONPATH="$site"
export MPIEXEC_TIMEOUT=600
echo "mpi4py_test: whole suite at one rank, without: $EXCLUDED"
(cd "$tests" && timeout 900 python3 main.py --no-builddir -e "$EXCLUDED") >"$work/suite.log" 2>&1
rc=$?
grep -E '^(ERROR|FAIL):' "$work/suite.log"
tail -n 4 "$work/suite.log"
if [ $rc -ne 0 ]; then
    echo "FAIL: mpi4py test suite (log: $work/suite.log)"
    exit 1
fi
echo "mpi4py_test: mpi4py test suite passed"
exit 0
