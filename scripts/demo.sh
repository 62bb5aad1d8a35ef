#!/bin/sh
# Installs what spoor needs, builds it, and runs its main job live, end to
# end, on the bundled default: a test program (recursion.elf) runs on the
# virtual board with tracing on; the sim probe takes its trace port and
# shows up as a USB device (emulated under umockdev, through the real
# libusb); spoor stream decodes what the probe captures on screen as it
# comes and keeps the capture; spoor decode replays that capture to the same
# instructions, and spoor gdbserver serves it to gdb-multiarch as its
# execution history (record btrace: reverse stepping, no hardware).
set -eu
cd "$(dirname "$0")/.."
[ -n "${DEMO_NO_INSTALL:-}" ] || ./scripts/install-deps.sh
cmake -S . -B build -G Ninja >/dev/null
cmake --build build -j "$(nproc)" >/dev/null
spoor=build/host/spoor
sim=build/probe/firmware/spoor-probe-sim
prog=build/tests/programs/iss/c64/recursion.elf
board=boards/virt-rv64.ini
export TMPDIR="$PWD/build"	# umockdev's testbed

echo "== spoor virt: $prog on the virtual board (RV64), tracing on, waiting for a probe"
: >build/demo.virt	# (there before the board, for the loop below to read)
"$spoor" virt --board "$board" --trace-on-start --wait-probe --exit "$prog" \
	>build/demo.virt 2>&1 &
virt=$!
port=""
for _ in $(seq 100); do
	port=$(sed -n 's/^trace: 127\.0\.0\.1:\([0-9]*\).*/\1/p' build/demo.virt)
	[ -n "$port" ] && break
	sleep 0.1
done
[ -n "$port" ] || { cat build/demo.virt; exit 1; }
sed -n '1,2p' build/demo.virt

echo
echo "== the sim probe on its trace port, as USB device 1209:0001; spoor stream decodes live"
echo "   spoor-probe-sim --input tcp:127.0.0.1:$port --usb -- \\"
echo "   spoor stream --probe usb --board $board --elf $prog --unsynced --format text \\"
echo "                --idle 1 -o build/demo.cap"
"$sim" --input "tcp:127.0.0.1:$port" --usb -- \
	"$spoor" stream --probe usb --board "$board" --elf "$prog" --unsynced --format text \
	--idle 1 --status off -o build/demo.cap >build/demo.live
wait "$virt"
head -n 12 build/demo.live
echo "   ... ($(wc -l <build/demo.live) lines; the program printed:"
sed -n '4,$p' build/demo.virt | sed 's/^/     /'
echo "   )"

echo
echo "== spoor dump: the capture's first te_inst packets (Siemens messaging)"
"$spoor" dump --board "$board" --unsynced build/demo.cap >build/demo.packets
head -n 6 build/demo.packets
grep -A2 '^summary' build/demo.packets

echo
echo "== spoor decode: the capture replayed gives the same instructions as live"
"$spoor" decode --board "$board" --elf "$prog" --unsynced --format text --stats \
	build/demo.cap >build/demo.txt
cmp build/demo.live build/demo.txt && echo "   identical: $(wc -l <build/demo.txt) lines"

echo
echo "== spoor gdbserver + gdb-multiarch: the capture as GDB's execution history (no hardware)"
: >build/demo.gdbserver	# (there before the server, for the loop below to read)
"$spoor" gdbserver --replay build/demo.cap --elf "$prog" --board "$board" --unsynced \
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

echo
echo "== What ran: coverage, the hottest functions, the call tree (from the capture)"
"$spoor" coverage --board "$board" --elf "$prog" --unsynced -o build/demo.info build/demo.cap
"$spoor" coverage --board "$board" --elf "$prog" --unsynced build/demo.cap | grep '^coverage:'
"$spoor" profile --board "$board" --elf "$prog" --unsynced --top 5 build/demo.cap
"$spoor" calls --board "$board" --elf "$prog" --unsynced --depth 3 build/demo.cap | head -n 8
"$spoor" timeline --board "$board" --elf "$prog" --unsynced -o build/demo.trace.json build/demo.cap
echo "   lcov tracefile build/demo.info (genhtml --branch-coverage -o build/demo-html build/demo.info),"
echo "   Perfetto/Chrome timeline build/demo.trace.json (ui.perfetto.dev)"
