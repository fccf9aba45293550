# mpich_fetch.sh: sourced by the scripts that run MPICH's own test programs
# (suite/fortran, suite/mpich_c).  mpich_fetch DIR puts Debian's copy of the
# MPICH source tarball (mpich_*.orig.tar.*) into DIR, from $MPICH_TARBALL
# when set, else with apt-get source (adding a deb-src entry first if none
# is configured and it runs as root).  It exits the calling script with 77
# (skipped) when that is impossible, and prints the tarball's path.
mpich_fetch() {
    if [ -n "${MPICH_TARBALL:-}" ]; then
        cp "$MPICH_TARBALL" "$1/" || exit 1
    else
        command -v apt-get >/dev/null || { echo "SKIP: no apt-get" >&2; exit 77; }
        if ! grep -rqs '^deb-src\|^Types:.*deb-src' /etc/apt/sources.list \
                /etc/apt/sources.list.d; then
            [ "$(id -u)" = 0 ] || { echo "SKIP: no deb-src entry and not root" >&2; exit 77; }
            . /etc/os-release
            # apt refuses every source when two entries of one URI name
            # different keyrings (Debian 12's debian.sources names one),
            # so the entry takes the keyring of the binary entry, if any.
            signed=$(awk '/^URIs:[ \t]*http:\/\/deb\.debian\.org\/debian\/?[ \t]*$/ { f = 1 }
                          /^[ \t]*$/ { f = 0 }
                          f && /^Signed-By:/ { print $2; exit }' \
                         /etc/apt/sources.list.d/*.sources 2>/dev/null)
            src=/etc/apt/sources.list.d/zmpi-mpich-src.sources
            printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: %s\nComponents: main\n' \
                "$VERSION_CODENAME" > "$src"
            [ -z "$signed" ] || printf 'Signed-By: %s\n' "$signed" >> "$src"
            # An entry apt cannot read would break every later apt-get.
            apt-get update -qq >/dev/null 2>&1 || { rm -f "$src"; apt-get update -qq >/dev/null 2>&1; }
        fi
        (cd "$1" && apt-get source --download-only mpich >apt.log 2>&1) ||
            { (cd "$1" && apt-get update -qq >/dev/null 2>&1 &&
               apt-get source --download-only mpich >apt.log 2>&1); } ||
            { tail -n 3 "$1/apt.log" >&2; echo "SKIP: apt-get source mpich failed" >&2; exit 77; }
    fi
    t=$(ls "$1"/mpich_*.orig.tar.* 2>/dev/null | head -n 1)
    [ -n "$t" ] || { echo "SKIP: no MPICH tarball" >&2; exit 77; }
    echo "$t"
}

# mpich_setup TAG PART...: make the work directory $work (zmpi-TAG.*,
# removed at exit unless MPICH_KEEP=1 says to keep it), fetch the tarball
# into it and unpack test/mpi/PART... of it; sets M to that test/mpi.
mpich_setup() {
    tag=$1
    shift
    work=$(mktemp -d "${TMPDIR:-/tmp}/zmpi-$tag.XXXXXX") || exit 1
    trap mpich_cleanup EXIT
    tarball=$(mpich_fetch "$work") || exit $?
    top=$(tar tf "$tarball" | head -n 1 | cut -d/ -f1)
    tar xf "$tarball" -C "$work" $(for p in "$@"; do echo "$top/test/mpi/$p"; done) ||
        { echo "FAIL: cannot unpack $tarball"; exit 1; }
    M=$work/$top/test/mpi
}

mpich_cleanup() {
    if [ "${MPICH_KEEP:-0}" = 1 ]; then echo "kept $work"; else rm -rf "$work"; fi
}
