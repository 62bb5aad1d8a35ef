#!/bin/sh
# Installs what spoor needs, builds it, and runs its main job on the bundled
# sample: `spoor dump` of a two-hart Siemens-messaging capture with idle
# fill, periodic sync sequences and a corrupted stretch it recovers from.
set -eu
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake -S . -B build -G Ninja >/dev/null
cmake --build build -j "$(nproc)" >/dev/null
exec ./build/host/spoor dump --params samples/demo.ini --encap siemens --unsynced \
	build/samples/demo.siemens.bin
