#!/bin/sh
# cmake --install into a scratch prefix, then build and run a consumer of
# libspoor with only pkg-config's flags, both ways a library is linked:
# shared (pkg-config --libs: libspoor.so.0 and nothing of its dependencies)
# and static (pkg-config --libs --static, every library from its archive).
# usage: test_install.sh BUILD_DIR SOURCE_DIR CC [EXTRA_CFLAGS]
set -eu
build=$1 src=$2 cc=$3 extra=${4:-}
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
want="format 2 address 0x8000010c, no program image covers the address"
fail() { echo "FAIL: $*"; exit 1; }

# The shared object: a soname, and a consumer that needs -lspoor alone.
so=$(readelf -d "$prefix/lib/libspoor.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$so" = "libspoor.so.0" ] || fail "libspoor.so's soname is '$so'"
libs=$(pkg-config --libs libspoor)
# shellcheck disable=SC2086
set -- $libs
[ $# -eq 2 ] && [ "${1#-L}" != "$1" ] && [ "$2" = "-lspoor" ] ||
	fail "pkg-config --libs libspoor gives '$libs'"
# shellcheck disable=SC2046,SC2086
"$cc" -std=c11 -Wall -Werror $extra "$src/tests/install/consumer.c" -o "$prefix/consumer" \
	$(pkg-config --cflags --libs libspoor) -Wl,-rpath,"$prefix/lib"
readelf -d "$prefix/consumer" | grep -q 'NEEDED.*\[libspoor.so.0\]' ||
	fail "the shared consumer does not use libspoor.so.0"
out=$("$prefix/consumer")
[ "$out" = "$want" ] || fail "shared: unexpected output: $out"
echo "shared libspoor works: $out"

# The archive: pkg-config --static lists what it needs; nothing of libspoor
# or its dependencies may be left to the dynamic linker — but libudev
# (libusb's), which Debian ships as a shared object only.
libs=$(pkg-config --libs --static libspoor | sed 's/-ludev/-Wl,-Bdynamic -ludev -Wl,-Bstatic/g')
# shellcheck disable=SC2046,SC2086
"$cc" -std=c11 -Wall -Werror $extra "$src/tests/install/consumer.c" -o "$prefix/consumer-static" \
	$(pkg-config --cflags libspoor) -Wl,-Bstatic $libs -Wl,-Bdynamic
if readelf -d "$prefix/consumer-static" |
	grep -E 'NEEDED.*\[lib(spoor|dw|elf|inih|z|bz2|lzma|usb-1\.0|ftdi1)\.'; then
	fail "the static consumer still needs the shared libraries above"
fi
out=$("$prefix/consumer-static")
[ "$out" = "$want" ] || fail "static: unexpected output: $out"
echo "static libspoor works: $out"
test -x "$prefix/bin/spoor"
