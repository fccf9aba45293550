#!/bin/sh
# map_budget.sh: a job whose ranks need more memory maps than the kernel's
# vm.max_map_count allows fails before any rank starts, naming the limit and
# the value to raise it to (issue 20), for a privatized program (4 maps per
# rank) and one linked without privatization (2 per rank).
#
#   map_budget.sh EXPECT_FAIL ZMPIRUN PRIV_PROGRAM SHARED_PROGRAM
#
# Exit 77 (skipped) where the limit cannot be read or is too large for a
# quick test.
ef=$1 run=$2 priv=$3 shared=$4
max=$(cat /proc/sys/vm/max_map_count 2>/dev/null) || exit 77
[ -n "$max" ] && [ "$max" -le 1000000 ] || { echo "SKIP: vm.max_map_count=$max"; exit 77; }
# Just over the limit for each kind of program.
for kind in priv shared; do
    if [ $kind = priv ]; then prog=$priv n=$((max / 4 + 64)); else prog=$shared n=$((max / 2 + 64)); fi
    sh "$ef" --timeout 30 --exit-code 1 --regex "$n (privatized )?ranks in this process need" \
        --regex "vm.max_map_count = $max" --regex "sysctl -w vm.max_map_count=[0-9]+" -- \
        "$run" -n "$n" -w 2 "$prog" || exit 1
done
