#!/bin/sh
# mpi4py_test.sh: mpi4py, built from its release source against zmpi with
# zmpicc, runs its own test suite: at one rank (a program started without
# zmpirun is a one-rank job, which is how Python runs MPI code), or as a
# job of NP processes started by the system MPI's launcher, one rank per
# process (issue 17, docs/net.md), followed by mpi4py's ring benchmark
# across the processes.
#
#   mpi4py_test.sh ZMPICC [NP MPIEXEC]
#
# The source is not part of zmpi: pip downloads the pinned release from
# PyPI.  The build (mpi4py_build.sh) is kept in $MPI4PY_WORK (default: a
# directory beside the build tree) and shared by every run of this script.
#
# The whole suite runs and must pass (mpi4py's own skips aside), except
# what zmpi cannot do by design: spawning Python interpreters
# (MPI4PY_TEST_SPAWN below); and, across processes, what zmpi refuses
# there (NP_EXCLUDED below, empty now).
#
# Exit status: 0 pass, 1 fail, 77 skipped (only when the source cannot be
# downloaded or built for lack of Python packaging tools).
#
# Environment:
#   MPI4PY_VERSION   release to test (default 4.1.2)
#   MPI4PY_WORK      work directory
set -u
zmpicc=$1
np=${2:-1}
mpiexec=${3:-}
version=${MPI4PY_VERSION:-4.1.2}
here=$(cd "$(dirname "$0")" && pwd)
work=${MPI4PY_WORK:-$(dirname "$(dirname "$zmpicc")")/mpi4py-work}
mkdir -p "$work"

# Dynamic processes (docs/spawn.md).  mpi4py's spawn tests (test_spawn,
# and test_util_pool's TestProcessPool, whose mpi4py.futures pool spawns
# its workers) spawn sys.executable, a Python interpreter: it cannot
# become virtual ranks, which are threads running a zmpicc-built
# program's main.  zmpi's MPI_Comm_spawn fails at once with MPI_ERR_SPAWN
# naming the command, but mpi4py.futures raises that in its manager thread
# and its futures then wait forever.  MPI4PY_TEST_SPAWN=0 is mpi4py's own
# switch for an MPI that cannot spawn Python: its suite then skips those
# tests itself.
export MPI4PY_TEST_SPAWN=0
# Modules left out: none any more.  test_dynproc (ports, names and
# MPI_Comm_join between processes) runs across processes; mpi4py skips it
# at one rank.

# Test classes left out across processes (substrings of test names, one
# -x each): none any more.  Partitioned communication, files and windows
# work across processes (docs/net.md): test_p2p_buf_part, test_io,
# test_win, test_rma and test_util_sync run whole, shared windows too
# (MPI_COMM_TYPE_SHARED groups the node's processes).
NP_EXCLUDED=''

# ---- Build (or reuse) the mpi4py wheel ------------------------------------
. "$here/mpi4py_build.sh"

# ---- Run ------------------------------------------------------------------
export PYTHONPATH="$site"
export MPIEXEC_TIMEOUT=600
log="$work/suite.log"
if [ "$np" -le 1 ]; then
    echo "mpi4py_test: whole suite at one rank, without the tests that spawn Python" \
        "(MPI4PY_TEST_SPAWN=0)"
    (cd "$tests" && timeout 900 python3 main.py --no-builddir) >"$log" 2>&1
    rc=$?
else
    log="$work/suite-np$np.log"
    xs=""
    for c in $NP_EXCLUDED; do xs="$xs -x $c"; done
    echo "mpi4py_test: whole suite on $np processes ($mpiexec), without the tests" \
        "that spawn Python (MPI4PY_TEST_SPAWN=0)"
    # $xs is split on purpose: one -x option per class.
    # shellcheck disable=SC2086
    (cd "$tests" && timeout 900 "$mpiexec" -n "$np" python3 main.py --no-builddir \
        $xs) >"$log" 2>&1
    rc=$?
fi
grep -E '^(ERROR|FAIL):' "$log"
tail -n 4 "$log"
if [ $rc -ne 0 ]; then
    echo "FAIL: mpi4py test suite (log: $log)"
    exit 1
fi
echo "mpi4py_test: mpi4py test suite passed"
[ "$np" -le 1 ] && exit 0

# ---- Ring benchmark across the processes ----------------------------------
# An eager size and a rendezvous size.  The benchmark checks what arrives
# and only warns when it differs: -W error makes that warning abort the job.
for size in 1 1048576; do
    out=$(timeout 120 "$mpiexec" -n "$np" python3 -W error::UserWarning \
        -m mpi4py.bench ringtest -l 50 -s 5 -n $size 2>&1)
    rc=$?
    echo "$out"
    if [ $rc -ne 0 ] || ! echo "$out" | grep -q "($np processes, $size bytes)"; then
        echo "FAIL: python3 -m mpi4py.bench ringtest -n $size on $np processes"
        exit 1
    fi
done
echo "mpi4py_test: ringtest on $np processes passed"
exit 0
