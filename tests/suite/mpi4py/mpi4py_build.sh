#!/bin/sh
# mpi4py_build.sh: build mpi4py from its release source against zmpi with
# zmpicc, or reuse the build already there.  Sourced by mpi4py_test.sh
# (every run of it, at one rank or across processes, shares one build).
#
# In: zmpicc, version, work (set by the caller).  Out: site (the directory
# to put on PYTHONPATH) and tests (mpi4py's test directory).  Exits 77
# when the source cannot be downloaded or built for lack of Python
# packaging tools, 1 when the build fails.
#
# The build is redone only when zmpi's mpi.h or this file changes, since
# mpi4py's configuration probes which MPI functions mpi.h declares.

python3 -c 'import setuptools, wheel' 2>/dev/null || pip install -q wheel setuptools ||
    { echo "SKIP: cannot install Python packaging tools"; exit 77; }
# NumPy arrays widen the suite's buffer tests; without it they are skipped.
python3 -c 'import numpy' 2>/dev/null || pip install -q numpy ||
    echo "mpi4py_test: numpy could not be installed; its array tests are skipped"

inc=$("$zmpicc" -showme:compile | tr ' ' '\n' | sed -n 's/^-I//p' | head -n 1)
stamp=$(cat "$inc/mpi.h" "$here/mpi4py_build.sh" | sha256sum | cut -c1-16)
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
