#!/bin/sh
# Installs what spoor needs, builds it, and runs its main job on the bundled
# default: a test program (recursion.elf) runs on the virtual board with
# tracing on, its trace port is captured, and spoor decodes the capture back
# into every instruction the hart retired.
set -eu
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake -S . -B build -G Ninja >/dev/null
cmake --build build -j "$(nproc)" >/dev/null
prog=build/tests/programs/iss/c64/recursion.elf
board=boards/virt-rv64.ini

echo "== spoor virt: $prog on the virtual board (RV64), trace port captured"
./build/host/spoor virt --board "$board" --trace-on-start --capture build/demo.trace --exit "$prog"

echo
echo "== spoor dump: the first te_inst packets on the trace port (Siemens messaging)"
./build/host/spoor dump --board "$board" --unsynced build/demo.trace >build/demo.packets
head -n 8 build/demo.packets
grep -A3 '^summary' build/demo.packets

echo
echo "== spoor decode: the instructions the hart retired (first 20 of build/demo.txt)"
./build/host/spoor decode --board "$board" --elf "$prog" --unsynced --format text --stats \
	build/demo.trace >build/demo.txt
head -n 20 build/demo.txt
