#!/bin/sh
# SPDX-License-Identifier: MIT
# spoor gdbserver in front of stock OpenOCD on the virtual board, with the
# trace from the trace port (SOURCE tcp), from the RAM sink read through
# OpenOCD (SOURCE ram), or from a probe on the trace port (SOURCE probe: the
# sim probe SIM served over TCP, --probe).  gdb-multiarch breaks at stage_a, records, continues
# to stage_b: the history is exactly what the ISS retired in between;
# reverse-stepi and reverse-continue land on the right pcs; continuing to
# stage_c stitches the new history on (delta reads).  Then a board that
# traces from its entry: GDB finds it recording at connect.
#
# usage: test_proxy.sh SPOOR OPENOCD GDB BOARD CFG ELF NM ISS_RUN SOURCE [SIM]
set -eu
[ $# -ge 9 ] || { echo "usage: $0 SPOOR OPENOCD GDB BOARD CFG ELF NM ISS_RUN tcp|ram|probe [SIM]" >&2; exit 2; }
spoor=$1 openocd=$2 gdb=$3 board=$4 cfg=$5 elf=$6 nm=$7 iss_run=$8 source=$9 sim=${10:-}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../debug/lib.sh"
. "$here/lib.sh"
t=$DEBUG_TMP
xlen=$(sed -n 's/^isa = rv\([0-9]*\).*/\1/p' "$board")

iss_log "$iss_run" "$elf" "$t/iss"
a=$(sym "$nm" stage_a "$elf") b=$(sym "$nm" stage_b "$elf") c=$(sym "$nm" stage_c "$elf")
m=$(sym "$nm" mix "$elf")
interval "$t/iss" "${a#0x}" "${b#0x}" >"$t/want_ab"
interval "$t/iss" "${a#0x}" "${c#0x}" >"$t/want_ac"
[ -s "$t/want_ab" ] || die "no stage_a..stage_b interval in the ISS log"
# The last visit of mix before stage_b: where reverse-continue stops.
last_mix=$(grep -n "^${m#0x}\$" "$t/want_ab" | tail -n 1 | cut -d: -f1)
back=$(( $(wc -l <"$t/want_ab") - last_mix + 1 ))

start_spoor_virt "$spoor" "$board" "$elf" --halt-on-start
start_openocd "$openocd" "$cfg"
if [ "$source" = tcp ]; then
	start_gdbserver "$spoor" --openocd "127.0.0.1:$GDB_PORT" --trace-port "127.0.0.1:$TRACE_PORT" \
		--board "$board" --elf "$elf" --once --verbose
elif [ "$source" = probe ]; then
	# No leak check in the sim (sanitizer builds): LeakSanitizer was seen to
	# hang at its exit, after SIGTERM, while its trace-port thread runs.
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		timeout "$DEBUG_TIMEOUT" "$sim" --listen 127.0.0.1:0 \
		--input "tcp:127.0.0.1:$TRACE_PORT" >"$t/sim.out" 2>"$t/sim.err" &
	DEBUG_PIDS="$DEBUG_PIDS $!"
	SIM_PORT=""
	for _ in $(seq 100); do
		SIM_PORT=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$t/sim.out")
		[ -n "$SIM_PORT" ] && break
		sleep 0.05
	done
	[ -n "$SIM_PORT" ] || die "the sim probe did not start" "$t/sim.err"
	start_gdbserver "$spoor" --openocd "127.0.0.1:$GDB_PORT" --probe "tcp:127.0.0.1:$SIM_PORT" \
		--board "$board" --elf "$elf" --once --verbose
else
	start_gdbserver "$spoor" --openocd "127.0.0.1:$GDB_PORT" --ram-sink --board "$board" \
		--elf "$elf" --once --verbose
fi
timeout "$DEBUG_TIMEOUT" "$gdb" -nx -batch -x "$here/history.py" \
	-ex "set pagination off" -ex "set confirm off" -ex "set osabi none" \
	-ex "set architecture riscv:rv$xlen" -ex "file $elf" \
	-ex "target extended-remote 127.0.0.1:$GS_PORT" \
	-ex "break *$a" -ex "continue" \
	-ex "record btrace" \
	-ex "break *$b" -ex "continue" \
	-ex "info record" -ex "dump-history $t/got_ab" \
	-ex "reverse-stepi" -ex 'printf "RS1 pc=%#lx\n", $pc' \
	-ex "reverse-stepi" -ex 'printf "RS2 pc=%#lx\n", $pc' \
	-ex "break *$m" -ex "reverse-continue" -ex 'printf "RC pc=%#lx\n", $pc' \
	-ex "info record" \
	-ex "record goto begin" -ex 'printf "BEGIN pc=%#lx\n", $pc' \
	-ex "record goto end" -ex 'printf "END pc=%#lx\n", $pc' \
	-ex "delete" -ex "break *$c" -ex "continue" \
	-ex "dump-history $t/got_ac" \
	-ex "monitor trace status" \
	-ex "record stop" -ex "detach" >"$t/gdb.log" 2>&1 ||
	die "gdb failed" "$t/gdb.log" "$GS_LOG" "$OCD_LOG"
cat "$t/gdb.log"
same_pcs "$t/got_ab" "$t/want_ab" "stage_a to stage_b"
field() { sed -n "s/^$1 pc=0x\([0-9a-f]*\).*/\1/p" "$t/gdb.log" | head -n 1; }
[ "$(field RS1)" = "$(tail -n 1 "$t/want_ab")" ] || die "reverse-stepi: pc $(field RS1)" "$t/gdb.log"
[ "$(field RS2)" = "$(tail -n 2 "$t/want_ab" | head -n 1)" ] ||
	die "reverse-stepi twice: pc $(field RS2)" "$t/gdb.log"
[ "$(field RC)" = "${m#0x}" ] || die "reverse-continue: pc $(field RC), want $m" "$t/gdb.log"
grep -q "Replay in progress.  At instruction $last_mix\." "$t/gdb.log" ||
	die "reverse-continue did not stop at the last visit of mix (instruction $last_mix, $back back)" \
		"$t/gdb.log"
[ "$(field BEGIN)" = "${a#0x}" ] || die "record goto begin: pc $(field BEGIN), want $a" "$t/gdb.log"
[ "$(field END)" = "${b#0x}" ] || die "record goto end: pc $(field END), want $b" "$t/gdb.log"
# The new history came as deltas, stitched on; none was refused.
grep -q 'from GDB \$qXfer:btrace:read:delta' "$GS_LOG" || die "GDB read no delta" "$GS_LOG"
! grep -q 'no delta' "$GS_LOG" || die "a delta read was refused" "$GS_LOG"
same_pcs "$t/got_ac" "$t/want_ac" "stage_a to stage_c (stitched)"
[ "$source" != probe ] || grep -q "^source: probe tcp:127.0.0.1:$SIM_PORT$" "$t/gdb.log" ||
	die "monitor trace status does not name the probe" "$t/gdb.log"
echo "PASS: $source source, $(wc -l <"$t/want_ab") + $(( $(wc -l <"$t/want_ac") - $(wc -l <"$t/want_ab") )) instructions"
[ "$source" = tcp ] || exit 0

# Tracing on from the program's entry, before GDB comes: GDB finds the
# target recording and reads everything from the entry on.
wait "$GS_PID" 2>/dev/null || true
debug_cleanup
trap debug_cleanup EXIT
DEBUG_TMP=$(mktemp -d "${TMPDIR:-/tmp}/spoor-debug.XXXXXX") DEBUG_PIDS=""
t=$DEBUG_TMP
iss_log "$iss_run" "$elf" "$t/iss"
entry=$(head -n 1 "$t/iss")
interval "$t/iss" "$entry" "${b#0x}" >"$t/want_eb"
start_spoor_virt "$spoor" "$board" "$elf" --halt-on-start --trace-on-start --wait-probe
start_gdbserver "$spoor" --openocd-cfg "$cfg" --openocd-c "set VIRT_JTAG_PORT $JTAG_PORT" \
	--trace-port "127.0.0.1:$TRACE_PORT" --board "$board" --elf "$elf" --once
timeout "$DEBUG_TIMEOUT" "$gdb" -nx -batch -x "$here/history.py" \
	-ex "set pagination off" -ex "set confirm off" -ex "set osabi none" \
	-ex "set architecture riscv:rv$xlen" -ex "file $elf" \
	-ex "target extended-remote 127.0.0.1:$GS_PORT" \
	-ex "break *$b" -ex "continue" \
	-ex "info record" -ex "dump-history $t/got_eb" \
	-ex "detach" >"$t/gdb2.log" 2>&1 || die "gdb failed (always on)" "$t/gdb2.log" "$GS_LOG"
cat "$t/gdb2.log"
grep -q "Target is recording using Branch Trace Store" "$t/gdb2.log" ||
	die "GDB did not find the target recording" "$t/gdb2.log" "$GS_LOG"
same_pcs "$t/got_eb" "$t/want_eb" "entry to stage_b (always on, OpenOCD started by spoor)"
echo "PASS: always on, $(wc -l <"$t/want_eb") instructions"
