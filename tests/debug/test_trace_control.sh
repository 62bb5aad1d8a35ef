#!/bin/sh
# Trace control through stock OpenOCD: enable tracing with memory writes to
# the trace control registers, read the RAM sink back, decode it: the
# result is the path the ISS executed.
# usage: test_trace_control.sh SPOOR OPENOCD CFG BOARD ELF ISS_RUN
set -u
spoor=$1 openocd=$2 cfg=$3 board=$4 elf=$5 iss_run=$6
. "$(dirname "$0")/lib.sh"

log=$DEBUG_TMP/virt.log
timeout "$DEBUG_TIMEOUT" "$spoor" virt --board "$board" --halt-on-start "$elf" >"$log" 2>&1 &
DEBUG_PIDS="$DEBUG_PIDS $!"
JTAG_PORT=""
for _ in $(seq 100); do
	JTAG_PORT=$(sed -n 's/^jtag: 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$log" 2>/dev/null || true)
	[ -n "$JTAG_PORT" ] && break
	sleep 0.1
done
[ -n "$JTAG_PORT" ] || die "spoor virt did not report its JTAG port" "$log"

ocd=$DEBUG_TMP/openocd.log
timeout "$DEBUG_TIMEOUT" "$openocd" -c "set VIRT_JTAG_PORT $JTAG_PORT" -c "set VIRT_GDB_PORT disabled" \
	-c "set VIRT_TELNET_PORT disabled" -c "set VIRT_TCL_PORT disabled" -f "$cfg" \
	-c "set TRACE_BASE 0x0d000000; set BUF_START 0x87000000; set BUF_LIMIT 0x870ffffc" \
	-c "set FEATURES 0x3c; set OUT_DIR $DEBUG_TMP" \
	-f "$(dirname "$0")/trace_control.tcl" >"$ocd" 2>&1 || die "OpenOCD failed" "$ocd" "$log"
grep -q '^trTeControl 0x0041003f$' "$ocd" || die "trTeControl does not read back" "$ocd"
grep -q '^trTeImpl 0x00020101$' "$ocd" || die "trTeImpl is not E-Trace 2.0, version 1.0" "$ocd"
grep -q '^trRamWP 0x870' "$ocd" || die "the RAM sink did not move" "$ocd"

"$spoor" decode --board "$board" --elf "$elf" --raw "$DEBUG_TMP/rom.bin@0x1000" --unsynced \
	--format pcs "$DEBUG_TMP/trace.bin" >"$DEBUG_TMP/got" 2>"$DEBUG_TMP/dec.err" ||
	die "spoor decode failed" "$DEBUG_TMP/dec.err"
"$iss_run" --trace "$DEBUG_TMP/iss.tr" "$elf" >/dev/null
awk '$1 == "R" { print $2 } $1 == "E" && ($3 == "3" || $3 == "8" || $3 == "9" || $3 == "b") { print $2 }' \
	"$DEBUG_TMP/iss.tr" >"$DEBUG_TMP/want"
cmp -s "$DEBUG_TMP/want" "$DEBUG_TMP/got" ||
	die "the decoded RAM sink differs from the ISS ($(wc -l <"$DEBUG_TMP/want") vs $(wc -l <"$DEBUG_TMP/got") instructions)" "$DEBUG_TMP/dec.err"
echo "trace control via OpenOCD: $(wc -l <"$DEBUG_TMP/got") instructions decoded from the RAM sink match the ISS"
