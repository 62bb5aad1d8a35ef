#!/bin/sh
# Installs what spoor needs, builds it, and runs its main job on the bundled
# default: a test program (recursion.elf) runs on the virtual board with
# tracing on, its trace port is captured, and spoor decodes the capture back
# into every instruction the hart retired, then serves it to gdb-multiarch
# as its execution history (record btrace: reverse stepping, no hardware).
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

echo
echo "== spoor gdbserver + gdb-multiarch: the capture as GDB's execution history (no hardware)"
./build/host/spoor gdbserver --replay build/demo.trace --elf "$prog" --board "$board" --unsynced \
	--once --port 0 >build/demo.gdbserver 2>&1 &
gs=$!
port=""
for _ in $(seq 100); do
	port=$(sed -n 's/^gdb: 127\.0\.0\.1:\([0-9]*\)$/\1/p' build/demo.gdbserver)
	[ -n "$port" ] && break
	sleep 0.1
done
[ -n "$port" ] || { cat build/demo.gdbserver; exit 1; }
timeout 60 gdb-multiarch -nx -batch -ex "set osabi none" -ex "file $prog" \
	-ex "target extended-remote 127.0.0.1:$port" -ex "info record" \
	-ex "record instruction-history" -ex "reverse-stepi 20" -ex "monitor trace status" \
	-ex "detach" 2>&1
wait "$gs"
