# lib.sh: what the tool tests share.  Sourced, not run:
#   . "$(dirname "$0")/lib.sh"
# It sets $testdir, makes a temporary directory $tmp (removed when the test
# exits), and counts failures reported with fail; each test ends with its
# own summary.

# The directory of the tests' own files, absolute, for use after a cd.
testdir=$(cd "$(dirname "$0")" && pwd) || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0

# fail MESSAGE...: reports one failed check and counts it.
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# abspath PATH: PATH made absolute against the current directory, since the
# tests work in directories of their own.
abspath() {
    case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac
}

# have_libzmpi DIR: true if DIR holds the built library and launcher stub.
have_libzmpi() {
    [ -e "$1/libzmpi.so" ] && [ -e "$1/libzmpi_main.a" ]
}
