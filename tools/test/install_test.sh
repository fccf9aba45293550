#!/bin/sh
# Tests the install tree: installs the build into a temporary prefix, moves
# the tree elsewhere (the wrappers and zmpi.pc must find it from their own
# location), and builds and runs a program with the installed zmpicc (also
# through a symbolic link) and with pkg-config.
# Usage: install_test.sh CMAKE BUILDDIR
# Exits 77 (skipped) if libzmpi is not built.

[ $# -eq 2 ] || { echo "usage: install_test.sh CMAKE BUILDDIR"; exit 2; }
. "$(dirname "$0")/lib.sh"
CMAKE=$1
BUILDDIR=$2
if ! have_libzmpi "$BUILDDIR"; then
    echo "SKIP: no libzmpi.so/libzmpi_main.a in $BUILDDIR"
    exit 77
fi

# check_hello CMD...: runs CMD (a launcher and program); all 4 ranks greet.
check_hello() {
    "$@" >"$tmp/out" 2>&1 || fail "'$*' exited $?"
    for r in 0 1 2 3; do
        grep -qx "hello from rank $r of 4" "$tmp/out" ||
            { fail "'$*': rank $r missing:"; sed 's/^/  | /' "$tmp/out"; return; }
    done
}

"$CMAKE" --install "$BUILDDIR" --prefix "$tmp/prefix" >"$tmp/log" 2>&1 ||
    { fail "install failed:"; sed 's/^/  | /' "$tmp/log"; exit 1; }
mv "$tmp/prefix" "$tmp/moved"
p=$tmp/moved
for f in bin/zmpicc bin/zmpicxx bin/zmpirun lib/pkgconfig/zmpi.pc \
    include/mpi.h lib/libzmpi_main.a; do
    [ -e "$p/$f" ] || fail "$f not installed"
done

cp "$testdir/hello.c" "$tmp/hello.c"

out=$("$p/bin/zmpicc" -showme:incdirs)
[ "$out" = "$p/include" ] || fail "moved zmpicc looks for headers in '$out'"
"$p/bin/zmpicc" -o "$tmp/hello" "$tmp/hello.c" ||
    fail "installed zmpicc failed"
check_hello "$p/bin/zmpirun" -n 4 "$tmp/hello"

mkdir "$tmp/links"
ln -s "$p/bin/zmpicc" "$tmp/links/zmpicc"
ln -s "$p/bin/zmpicxx" "$tmp/links/zmpicxx"
cp "$tmp/hello.c" "$tmp/hello.cpp"
"$tmp/links/zmpicxx" -o "$tmp/hello_cxx" "$tmp/hello.cpp" ||
    fail "zmpicxx through a symbolic link failed"
check_hello "$p/bin/zmpirun" -n 4 "$tmp/hello_cxx"

if command -v pkg-config >/dev/null 2>&1; then
    flags=$(PKG_CONFIG_PATH=$p/lib/pkgconfig pkg-config --cflags --libs zmpi) ||
        fail "pkg-config does not know zmpi"
    # The flags hold no spaces inside words (the path has none), so plain
    # word splitting is right here.
    cc -o "$tmp/hello_pc" "$tmp/hello.c" $flags || fail "pkg-config build failed"
    check_hello "$p/bin/zmpirun" -n 4 "$tmp/hello_pc"
fi

if [ "$failures" -ne 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "all install checks passed"
