#!/bin/sh
# SPDX-License-Identifier: MIT
# spoor gdbserver --probe in front of stock OpenOCD on the virtual board:
# the trace from spoor virt's trace port through the sim probe
# (spoor-probe-sim --input tcp:..., served over TCP), the probe configured
# and started by spoor gdbserver.  As test_proxy.sh with the trace port:
# gdb-multiarch breaks at stage_a, records, continues to stage_b: the
# history is exactly what the ISS retired in between; reverse-stepi and
# reverse-continue land on the right pcs; continuing to stage_c stitches the
# new history on (delta reads).
#
# usage: test_probe_live.sh SPOOR OPENOCD GDB BOARD CFG ELF NM ISS_RUN SIM
set -eu
[ $# -eq 9 ] || { echo "usage: $0 SPOOR OPENOCD GDB BOARD CFG ELF NM ISS_RUN SIM" >&2; exit 2; }
spoor=$1 openocd=$2 gdb=$3 board=$4 cfg=$5 elf=$6 nm=$7 iss_run=$8 sim=$9
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
# No leak check in the sim (sanitizer builds): LeakSanitizer was seen to hang
# at its exit, after SIGTERM, while its trace-port thread runs.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	timeout "$DEBUG_TIMEOUT" "$sim" --listen 127.0.0.1:0 --input "tcp:127.0.0.1:$TRACE_PORT" \
	>"$t/sim.out" 2>"$t/sim.err" &
DEBUG_PIDS="$DEBUG_PIDS $!"
SIM_PORT=""
for _ in $(seq 100); do
	SIM_PORT=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$t/sim.out" 2>/dev/null || true)
	[ -n "$SIM_PORT" ] && break
	sleep 0.05
done
[ -n "$SIM_PORT" ] || die "the sim probe did not start" "$t/sim.err"
start_gdbserver "$spoor" --openocd "127.0.0.1:$GDB_PORT" --probe "tcp:127.0.0.1:$SIM_PORT" \
	--board "$board" --elf "$elf" --once --verbose
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
	die "gdb failed" "$t/gdb.log" "$GS_LOG" "$OCD_LOG" "$t/sim.err"
cat "$t/gdb.log"
same_pcs "$t/got_ab" "$t/want_ab" "stage_a to stage_b"
field() { sed -n "s/^$1 pc=0x\([0-9a-f]*\).*/\1/p" "$t/gdb.log" | head -n 1; }
[ "$(field RS1)" = "$(tail -n 1 "$t/want_ab")" ] ||
	die "reverse-stepi: pc $(field RS1)" "$t/gdb.log"
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
grep -q "^source: probe tcp:127.0.0.1:$SIM_PORT$" "$t/gdb.log" ||
	die "monitor trace status does not name the probe" "$t/gdb.log"
nab=$(wc -l <"$t/want_ab") nac=$(wc -l <"$t/want_ac")
echo "PASS: probe source, $nab + $((nac - nab)) instructions"
