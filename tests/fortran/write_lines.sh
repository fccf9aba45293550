#!/bin/sh
# write_lines.sh ZMPIRUN PROGRAM NP WORKERS: runs write_lines.f90's program
# with stdout redirected to a file and checks that every line is intact
# (one of its three forms, with the payload its rank and line number give)
# and that every rank wrote all its lines, in order.
run=$1 prog=$2 np=$3 workers=$4
out=$(mktemp "${TMPDIR:-/tmp}/zmpi-wl.XXXXXX") || exit 1
trap 'rm -f "$out"' EXIT
"$run" -n "$np" -w "$workers" "$prog" >"$out" || { echo "FAIL: the run failed"; exit 1; }
awk -v np="$np" -v nlines=120 '
    function bad(why) { printf "FAIL: line %d: %s: [%s]\n", NR, why, $0; errs++ }
    # The payload write_lines.f90 writes for rank r, line i.
    function payload(r, i,    n, s, k, c) {
        n = 20 + (r * 7 + i) % 80; c = sprintf("%c", 65 + (r + i) % 26); s = ""
        for (k = 0; k < n; k++) s = s c
        return s
    }
    {
        if ($1 == "L" && NF == 4) { r = $2; i = $3; ok = ($4 == r * 100000 + i) }
        else if ($1 == "P" && NF == 4) { r = $2; i = $3; ok = ($4 == r * 100000 + i) }
        else if ($1 == "F" && NF == 5) { r = $2; i = $3; ok = ($4 == length($5) && $5 == payload(r, i)) }
        else { bad("not a whole line"); next }
        if (!ok) { bad("wrong contents"); next }
        if (r < 0 || r >= np) { bad("no such rank"); next }
        if (i != last[r] + 1) bad(sprintf("rank %d: line %d after %d", r, i, last[r]))
        last[r] = i
    }
    END {
        for (r = 0; r < np; r++)
            if (last[r] != nlines) { printf "FAIL: rank %d wrote %d lines\n", r, last[r]; errs++ }
        if (NR != np * nlines) { printf "FAIL: %d lines, not %d\n", NR, np * nlines; errs++ }
        if (errs) exit 1
        printf "write_lines: %d lines from %d ranks, all intact\n", NR, np
    }' "$out"
