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
            printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: %s\nComponents: main\n' \
                "$VERSION_CODENAME" > /etc/apt/sources.list.d/zmpi-mpich-src.sources
            apt-get update -qq >/dev/null 2>&1
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
