#!/bin/sh
# Install the Debian packages zmpi needs to build and test, if missing,
# and any packages named as arguments.
# Runs as root (apt-get) or with sudo when available.
set -eu
need=""
for pkg in cmake gcc g++ gfortran make pkg-config python3 gdb "$@"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need="$need $pkg"
done
[ -z "$need" ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
echo "zmpi: installing Debian packages:$need"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $need
