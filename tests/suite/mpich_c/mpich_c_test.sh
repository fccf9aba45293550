#!/bin/sh
# mpich_c_test.sh: MPICH's own self-checking C test programs (test/mpi of
# MPICH 4.0.2: point to point, collectives, datatypes, communicators,
# groups, attributes, info, init, topologies, error handlers, one-sided,
# I/O, partitioned, spawn, threads, MPI_T), built unchanged with zmpicc and
# run under zmpirun with 2 workers, each on the rank count and arguments of
# MPICH's testlist; with MPICH_PROCS=2 the same runs go across 2
# processes (the network layer over the system MPI).  A program passes
# when it exits 0 and prints "No Errors".
#
#   mpich_c_test.sh ZMPICC ZMPIRUN
#
# MPICH's source is not part of zmpi: the tarball comes from Debian
# (../mpich_fetch.sh).  Exit status: 0 pass, 1 fail, 77 skipped (only when
# the tarball cannot be had).
#
# Environment:
#   MPICH_TARBALL=path  use this copy of mpich_4.0.2.orig.tar.xz
#   MPICH_WORKERS=2     zmpirun workers (per process)
#   MPICH_PROCS=1       processes (zmpirun -p, ranks interleaved; a job of
#                       fewer ranks gets one process per rank)
#   ZMPI_NET=mpich      the system MPI between processes (zmpirun --net)
#   MPICH_JOBS=N        programs built and run at once (default: nproc)
#   MPICH_DIRS="..."    test directories (default: all below)
#   MPICH_KEEP=1        keep the work directory (printed at the end)
#
# Taken from each testlist: every line naming a program of one source file
# with the same name, once per distinct (ranks, arguments).  Left out:
# lines with env= (the same program under MPICH's tuning variables),
# xfail= (MPICH's own expected failures), resultTest= (programs that must
# fail or time out), and the programs below, each with its reason.
set -u

if [ $# -ne 2 ]; then
    echo "usage: $0 ZMPICC ZMPIRUN" >&2
    exit 2
fi
# Absolute paths: the programs run from directories of their own.
abs() { case $1 in /*) echo "$1" ;; *) echo "$(pwd)/$1" ;; esac; }
CC=$(abs "$1") RUN=$(abs "$2")
WORKERS=${MPICH_WORKERS:-2}
PROCS=${MPICH_PROCS:-1}
JOBS=${MPICH_JOBS:-$(nproc 2>/dev/null || echo 2)}
DIRS=${MPICH_DIRS:-"pt2pt coll comm group attr info init topo datatype errhan rma io part
spawn mpi_t threads/pt2pt threads/comm threads/init threads/coll threads/rma threads/part
threads/spawn threads/mpi_t"}

# dir/program: why it cannot pass on a correct MPI 4.1 other than MPICH.
SKIP="
coll/oplxor          MPI_LXOR on floating-point types: an MPICH extension
coll/nonblocking2    stores MPI_Datatype handles in an int array (MPICH's handles are ints)
coll/nonblocking3    the same
datatype/lbub_oldapi MPI_LB, MPI_UB, MPI_Type_extent: removed in MPI 3.0
datatype/typename_oldapi      the same
datatype/indexed_misc_oldapi  the same
datatype/struct_no_real_types the same
datatype/pack_external        switches on MPI_Datatype values (MPICH's handles are ints)
datatype/indexed_misc uses a datatype handle after freeing it (MPICH reuses the handle)
datatype/typename    wants the name MPI_C_COMPLEX for MPI_C_FLOAT_COMPLEX, and MPI_INTEGER16
attr/attrerrtype     expects a datatype's error on MPI_COMM_WORLD's handler (MPI 3; 4.1 uses MPI_COMM_SELF's)
attr/keyval_double_free       frees a keyval twice, which zmpi reports as the error it is
attr/keyval_double_free_comm  the same
attr/keyval_double_free_type  the same
attr/keyval_double_free_win   the same
topo/cartsuball      expects MPI_COMM_NULL on all but one rank from a Cart_sub keeping no dimension
topo/dims5           compares Dims_create with MPICH's own choice among equally balanced factorizations
errhan/adderr        calls MPIX_Delete_error_class/code/string, MPICH's extensions
rma/win_shared_noncontig_put  expects a NULL base for a rank with a segment of size 0
rma/win_info         expects MPI_Win_get_info to return a hint as set, not the one in effect
rma/mutex_bench      needs a second source file (MCS mutex)
io/async             uses MPIO_Request, a ROMIO type
io/bigtype           writes and reads a 2 GiB file through 4 GiB of buffers: minutes of disk time
io/i_bigtype         the same
io/tst_fileview      expects MPI_ERR_IO for a filetype with decreasing displacements (zmpi: MPI_ERR_TYPE)
part/multipart       expects MPI_ERROR written in statuses that MPI_Waitall returns without an error
part/nonblocking_pready       sends with MPI_DATATYPE_NULL, which is not a datatype
mpi_t/qmpi_test      QMPI, MPICH's tool interface
threads/init/mult_session     expects MPI_THREAD_MULTIPLE from a session made without the thread_level hint (zmpi's default: MPI_THREAD_SINGLE)
threads/spawn/multispawn      calls MPI_Comm_spawn from threads the rank created, which zmpi refuses (README)
threads/spawn/th_taskmanager  the same
threads/pt2pt/multisend4      25 threads of 5 ranks on 2 cores: 35 s with MPICH, past the time limit here
"

. "$(dirname "$0")/../mpich_fetch.sh"
mpich_setup mpichc include util dtpools $DIRS

# ---- What configure would write ----------------------------------------

cat > "$M/include/mpitestconf.h" <<'CONF'
#define HAVE_DLFCN_H 1
#define HAVE_DOUBLE__COMPLEX 1
#define HAVE_FLOAT__COMPLEX 1
#define HAVE_GETRUSAGE 1
#define HAVE_INTTYPES_H 1
#define HAVE_LONG_DOUBLE 1
#define HAVE_LONG_DOUBLE__COMPLEX 1
#define HAVE_LONG_LONG 1
#define HAVE_MEMORY_H 1
#define HAVE_MPI_IO 1
#define HAVE_MPI_SPAWN 1
#define HAVE_MPI_WIN_CREATE 1
#define HAVE_PTHREAD_H 1
#define HAVE_STDARG_H 1
#define HAVE_STDINT_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRDUP 1
#define HAVE_STRINGS_H 1
#define HAVE_STRING_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_SYS_STAT_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_UNISTD_H 1
#define HAVE_USLEEP 1
#define HAVE__BOOL 1
#define POINTERINT_t int64_t
#define SIZEOF_INT 4
#define SIZEOF_LONG 8
#define SIZEOF_LONG_LONG 8
#define SIZEOF_MPI_OFFSET 8
#define SIZEOF_SHORT 2
#define SIZEOF_VOID_P 8
#define STDC_HEADERS 1
#define USE_LONG_DOUBLE_COMPLEX 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_POSIX
CONF
sed -e 's/#undef \(HAVE_[A-Z_]*\|STDC_HEADERS\)$/#define \1 1/' \
    -e '/NEEDS_STRDUP_DECL\|LT_OBJDIR/d' \
    "$M/dtpools/dtpoolsconf.h.in" > "$M/dtpools/dtpoolsconf.h"

# The support code every program links: MTest and the datatype pools.
INC="-I$M/include -I$M/dtpools/include"
objs=
for src in "$M"/util/mtest.c "$M"/util/mtest_common.c "$M"/util/dtypes.c \
           "$M"/util/mtest_thread.c "$M"/dtpools/src/*.c; do
    o=$work/$(basename "$src" .c).o
    "$CC" -O1 -w $INC -c -o "$o" "$src" >"$o.log" 2>&1 ||
        { cat "$o.log"; echo "FAIL: cannot build $src"; exit 1; }
    objs="$objs $o"
done

# ---- The runs ------------------------------------------------------------

# One line per run: "dir prog ranks args...", the testlists' lines kept.
runs=$work/runs
: > "$runs"
for d in $DIRS; do
    cat "$M/$d/testlist.in" "$M/$d/testlist" 2>/dev/null |
        grep -v '^#' | grep -v '@' | grep -v 'env=\|xfail=\|resultTest=' |
        while read -r prog np rest; do
            [ -n "$prog" ] && [ -f "$M/$d/$prog.c" ] || continue
            case "$SKIP" in *"
$d/$prog "*) continue ;; esac
            args=$(for w in $rest; do case $w in arg=*) printf ' %s' "${w#arg=}" ;; esac; done)
            echo "$d $prog $np$args"
        done
done | sort -u > "$runs"

# Build every program once, then run the runs, JOBS at once each
# (run_one.sh, next to this script).
export work M INC objs CC RUN WORKERS PROCS
one=$(dirname "$0")/run_one.sh
start=$(date +%s)
cut -d' ' -f1,2 "$runs" | sort -u | xargs -P "$JOBS" -I{} sh "$one" build {}
xargs -P "$JOBS" -I{} sh "$one" run {} < "$runs" > "$work/results"
end=$(date +%s)

npass=$(grep -c '^PASS' "$work/results")
nfail=$(grep -c '^FAIL' "$work/results")
grep -v '^PASS' "$work/results"
echo "mpich_c_test: $npass passed, $nfail failed, of $(wc -l < "$runs") runs" \
     "($((end - start)) s, $JOBS at once, $PROCS processes of $WORKERS workers)"
[ "$nfail" -eq 0 ]
