#!/bin/sh
# io_compare.sh: bench/io_bench.c on zmpi, MPICH (ROMIO) and Open MPI
# (OMPIO), alternated, RUNS times per rank count (zmpi also as 2 processes
# of 1 worker each, "zmpi-p2", when a network backend is built), plus a
# dd-style floor
# (one process writing then reading the same bytes with 4 MiB calls).
# Each run reports its best of 3 iterations; the table shows the best
# write and read bandwidth (MB/s) over the runs per MPI, pattern and rank
# count, as a Markdown table (bench/results/io.md).
#
#   io_compare.sh ZMPI_BINDIR DIR [RUNS [BLOCK_MIB [STRIDED_MIB [NPS...]]]]
#
# DIR holds the files (a disk-backed directory; tmpfs measures memory).
# Defaults: 3 runs, a 1024 MiB 3-D array, 64 MiB of 64-byte records (the
# strided pattern is slow on some peers), ranks 2 16 64.
bin=$(cd "$1" 2>/dev/null && pwd) dir=$2 runs=${3:-3} bmib=${4:-1024} smib=${5:-64}
[ -x "$bin/zmpirun" ] && [ -d "$dir" ] ||
    { echo "usage: $0 ZMPI_BINDIR DIR [RUNS [BLOCK_MIB [STRIDED_MIB [NPS...]]]]" >&2; exit 2; }
shift 5 2>/dev/null || shift $#
nps=${*:-2 16 64}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/zmpi-io.XXXXXX") || exit 1
trap 'rm -rf "$work"; rm -f "$dir"/io_bench_*.dat "$dir"/io_floor.dat' EXIT
"$bin/zmpicc" -O2 -o "$work/zmpi" "$here/io_bench.c" || exit 1
mpis=zmpi
# zmpi as two processes (each aggregates its own ranks), when a network
# backend was built next to the tools.
ls "$bin"/../libzmpi_net_*.so >/dev/null 2>&1 && mpis="$mpis zmpi-p2"
command -v mpicc.mpich >/dev/null && mpicc.mpich -O2 -o "$work/mpich" "$here/io_bench.c" &&
    mpis="$mpis mpich"
command -v mpicc.openmpi >/dev/null && mpicc.openmpi -O2 -o "$work/openmpi" "$here/io_bench.c" &&
    mpis="$mpis openmpi"
run() { # mpi np pattern mib
    case $1 in
    zmpi) "$bin/zmpirun" -n "$2" -w 2 "$work/zmpi" -p "$3" -m "$4" -i 3 -d "$dir" ;;
    zmpi-p2) "$bin/zmpirun" -n "$2" -p 2 -w 1 "$work/zmpi" -p "$3" -m "$4" -i 3 -d "$dir" ;;
    mpich) mpiexec.mpich -n "$2" "$work/mpich" -p "$3" -m "$4" -i 3 -d "$dir" ;;
    openmpi) mpiexec.openmpi --oversubscribe --allow-run-as-root -n "$2" "$work/openmpi" \
                 -p "$3" -m "$4" -i 3 -d "$dir" 2>/dev/null ;;
    esac
}
for np in $nps; do
    i=0
    while [ "$i" -lt "$runs" ]; do
        for m in $mpis; do
            run "$m" "$np" block3d "$bmib" | sed "s/^/$m /" >>"$work/out"
            run "$m" "$np" strided "$smib" | sed "s/^/$m /" >>"$work/out"
        done
        i=$((i + 1))
    done
done
# The floor: dd writing and reading the block pattern's size.
dd if=/dev/zero of="$dir/io_floor.dat" bs=4M count=$((bmib / 4)) conv=fsync 2>"$work/ddw"
dd if="$dir/io_floor.dat" of=/dev/null bs=4M 2>"$work/ddr"
echo "dd floor, $bmib MiB: write $(tail -1 "$work/ddw" | sed 's/.*, //'), read (page cache)" \
     "$(tail -1 "$work/ddr" | sed 's/.*, //')"
echo
echo "| pattern | ranks | MiB | $(for m in $mpis; do printf '%s write | %s read | ' $m $m; done)"
echo "|---|---:|---:|$(for m in $mpis; do printf -- '---:|---:|'; done)"
for pat in block3d strided; do
    for np in $nps; do
        line="| $pat | $np | $([ $pat = block3d ] && echo $bmib || echo $smib) |"
        for m in $mpis; do
            w=$(awk -v m="$m" -v p="$pat" -v n="$np" '$1 == m && $2 == p && $4 == n { print $8 }' \
                "$work/out" | sort -g | tail -1)
            r=$(awk -v m="$m" -v p="$pat" -v n="$np" '$1 == m && $2 == p && $4 == n { print $11 }' \
                "$work/out" | sort -g | tail -1)
            line="$line ${w:--} | ${r:--} |"
        done
        echo "$line"
    done
done
