#!/bin/sh
# cmake --install into a scratch prefix, then build and run a consumer of
# libspoor with only pkg-config's flags.
# usage: test_install.sh BUILD_DIR SOURCE_DIR CC [EXTRA_CFLAGS]
set -eu
build=$1 src=$2 cc=$3 extra=${4:-}
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
# shellcheck disable=SC2046
# shellcheck disable=SC2086
"$cc" -std=c11 -Wall -Werror $extra "$src/tests/install/consumer.c" -o "$prefix/consumer" \
	$(pkg-config --cflags --libs --static libspoor)
out=$("$prefix/consumer")
[ "$out" = "format 2 address 0x8000010c, no program image covers the address" ] ||
	{ echo "unexpected output: $out"; exit 1; }
test -x "$prefix/bin/spoor"
echo "installed libspoor works: $out"
