#!/bin/sh
# priv_output_check.sh TAG ZMPIRUN NP PROGRAM: runs PROGRAM (priv_output.c)
# on NP ranks over 2 workers, stdout and stderr to files, and checks that
# every line is whole and in order per rank; TAG=1 runs with
# ZMPI_TAG_OUTPUT=1 and requires each line to start with its rank's tag.
# TAG may also be a zmpirun flag (--tag-output, -l ...): tags asked for
# by that flag instead of the variable.
tag=$1 zmpirun=$2 np=$3 prog=$4 flag=
case $tag in -*) flag=$tag tag=1 ;; esac
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
if [ -n "$flag" ]; then
    env -u ZMPI_TAG_OUTPUT "$zmpirun" "$flag" -n "$np" -w 2 "$prog" >"$tmp/out" 2>"$tmp/err"
else
    ZMPI_TAG_OUTPUT=$tag "$zmpirun" -n "$np" -w 2 "$prog" >"$tmp/out" 2>"$tmp/err"
fi ||
    { echo "FAIL: job exited $?"; cat "$tmp/err"; exit 1; }
awk -v tag="$tag" -v np="$np" -v what=stdout '
    { line = $0
      if (tag == 1) {
          if (!match(line, /^\[[0-9]+\] /)) { print "FAIL: untagged " what " line: " $0; bad = 1; next }
          t = substr(line, 2, RLENGTH - 3); line = substr(line, RLENGTH + 1)
      }
      if (what == "stdout") {
          if (line !~ /^rank [0-9]+ line [0-9]+: 0 1 2 x 4 5 6 x 8 9 10 x end$/) { print "FAIL: torn line: " $0; bad = 1; next }
      } else if (line !~ /^err rank [0-9]+ line [0-9]+$/) { print "FAIL: torn line: " $0; bad = 1; next }
      split(line, f, /[ :]+/); r = what == "stdout" ? f[2] : f[3]; n = what == "stdout" ? f[4] : f[5]
      if (tag == 1 && t != r) { print "FAIL: line of rank " r " tagged " t; bad = 1 }
      if (n != next_line[r] + 0) { print "FAIL: rank " r " line " n " out of order"; bad = 1 }
      next_line[r] = n + (what == "stdout" ? 1 : 5); count++
    }
    END { want = np * (what == "stdout" ? 20 : 4)
          if (count != want) { print "FAIL: " count " " what " lines, want " want; bad = 1 }
          exit bad }' "$tmp/out" || exit 1
sed -n '1,$p' "$tmp/err" | awk -v tag="$tag" -v np="$np" '
    { line = $0
      if (tag == 1) { if (!match(line, /^\[[0-9]+\] /)) { print "FAIL: untagged stderr line: " $0; bad = 1; next }
                      line = substr(line, RLENGTH + 1) }
      if (line !~ /^err rank [0-9]+ line [0-9]+$/) { print "FAIL: torn stderr line: " $0; bad = 1 } else count++ }
    END { if (count != np * 4) { print "FAIL: " count " stderr lines, want " np * 4; bad = 1 }; exit bad }' || exit 1
echo "whole lines from $np ranks (tag=$tag)"
