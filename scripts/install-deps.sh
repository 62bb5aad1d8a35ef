#!/bin/sh
# Installs the Debian 12 packages spoor builds and tests with (run as root).
set -eu
# lcov (genhtml), valgrind (callgrind_annotate), libdevel-nytprof-perl (it
# ships flamegraph.pl) and chromium: the analysis outputs opened by the tools
# users open them with, in the tests.
# libbz2-dev and liblzma-dev: libdw's own dependencies, which linking the
# static libspoor.a needs (pkg-config --static libspoor; tests/install).
# binutils-multiarch-dev: libopcodes for every target (the disassembler),
# with binutils-dev (dis-asm.h) as its dependency.
packages="build-essential cmake ninja-build pkg-config clang libclang-rt-14-dev
	libinih-dev zlib1g-dev gzip libelf-dev libdw-dev libbz2-dev liblzma-dev gcc-riscv64-unknown-elf binutils-riscv64-unknown-elf picolibc-riscv64-unknown-elf
	qemu-system-misc openocd gdb-multiarch python3
	libusb-1.0-0-dev libudev-dev libftdi1-dev umockdev libumockdev-dev dfu-util
	binutils-multiarch-dev
	lcov valgrind libdevel-nytprof-perl chromium fonts-dejavu-core"
missing=""
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing
fi
