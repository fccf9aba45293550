#!/bin/sh
# migrate_net.sh [--regex RE]... -- CMD...: runs a job that must succeed
# (exit status 0) and whose combined stdout and stderr must match every RE
# (extended regular expressions).  The output is copied to this script's.
out=$(mktemp) || exit 99
res=$(mktemp) || exit 99
trap 'rm -f "$out" "$res"' EXIT
: >"$res"
while [ $# -gt 0 ]; do
    case $1 in
    --regex) printf '%s\n' "$2" >>"$res"; shift 2 ;;
    --) shift; break ;;
    *) echo "migrate_net.sh: unknown option '$1'" >&2; exit 99 ;;
    esac
done
"$@" >"$out" 2>&1
status=$?
cat "$out"
[ "$status" -eq 0 ] || { echo "FAIL: exit status $status"; exit 1; }
while IFS= read -r re; do
    grep -Eq -- "$re" "$out" || { echo "FAIL: no match for: $re"; exit 1; }
done <"$res"
echo "migrate_net.sh: ok"
