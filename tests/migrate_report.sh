#!/bin/sh
# migrate_report.sh: runs an MPI job that must succeed and whose combined
# output must match every given regular expression (extended, one per
# --regex), e.g. the per-worker loads zmpirun --lb-report prints.
#
# Usage: migrate_report.sh [--timeout S] [--regex RE]... -- CMD...
timeout=120
regexes_file=$(mktemp) || exit 99
out=$(mktemp) || exit 99
trap 'rm -f "$regexes_file" "$out"' EXIT
while [ $# -gt 0 ]; do
    case $1 in
    --timeout) timeout=$2; shift 2 ;;
    --regex) printf '%s\n' "$2" >>"$regexes_file"; shift 2 ;;
    --) shift; break ;;
    *) echo "migrate_report.sh: unknown option '$1'" >&2; exit 99 ;;
    esac
done
[ $# -gt 0 ] || { echo "migrate_report.sh: no command given" >&2; exit 99; }
MPIEXEC_TIMEOUT=$timeout "$@" >"$out" 2>&1
status=$?
cat "$out"
if [ $status -ne 0 ]; then
    echo "migrate_report.sh: FAIL: exit status $status"
    exit 1
fi
while IFS= read -r re; do
    if ! grep -Eq -- "$re" "$out"; then
        echo "migrate_report.sh: FAIL: output does not match: $re"
        exit 1
    fi
done <"$regexes_file"
echo "migrate_report.sh: ok"
