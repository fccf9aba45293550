#!/bin/sh
# run_one.sh: one step of mpich_c_test.sh, which exports work, M, INC,
# objs, CC, RUN, WORKERS and PROCS.
#   run_one.sh build "DIR PROG"            compile DIR/PROG.c into $work/bin
#   run_one.sh run "DIR PROG RANKS ARGS"   run it; print PASS or FAIL (with
#                                          the end of its output) at once
set -u
what=$1
set -- $2
d=$1 prog=$2
exe=$work/bin/$d/$prog
if [ "$what" = build ]; then
    mkdir -p "$work/bin/$d"
    "$CC" -O1 -w $INC -o "$exe" "$M/$d/$prog.c" $objs -lm -lpthread >"$exe.clog" 2>&1 ||
        rm -f "$exe"
    exit 0
fi
np=$3
shift 3
key="$d/$prog -n $np $*"
if [ ! -x "$exe" ]; then
    printf 'FAIL (build): %s\n%s\n' "$key" "$(head -n 5 "$exe.clog" | sed 's/^/    /')"
    exit 0
fi
run=$exe.$np.$(echo "$*" | tr -c 'a-zA-Z0-9=\n' _)
log=$run.log
# Each run in a directory of its own: the I/O programs write files named
# alike in their working directory.  The program is there too, for those
# that spawn "./<name>".
mkdir -p "$run.d"
ln -s "$exe" "$run.d/$prog"
# Across processes, ranks are interleaved so that neighbours sit in
# different processes; a job of fewer ranks than PROCS gets one process
# per rank.
procs=$PROCS
[ "$np" -lt "$procs" ] && procs=$np
(cd "$run.d" && MPIEXEC_TIMEOUT=120 timeout 150 "$RUN" -n "$np" -w "$WORKERS" \
    -p "$procs" --interleave "$exe" "$@" >"$log" 2>&1)
rc=$?
rm -rf "$run.d"
if [ $rc -eq 0 ] && grep -qi "No Errors" "$log"; then
    printf 'PASS: %s\n' "$key"
else
    # One write, so that the lines of runs in parallel do not mix.
    printf 'FAIL (exit %s): %s\n%s\n' "$rc" "$key" "$(tail -n 8 "$log" | sed 's/^/    /')"
fi
