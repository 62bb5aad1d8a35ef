#!/bin/sh
# SPDX-License-Identifier: MIT
# Stock OpenOCD against virt_dbg: examine, halt, step, registers, memory,
# a software breakpoint, reset (the checks are in openocd_check.tcl).
#
# usage: test_openocd.sh VIRT_DBG OPENOCD CFG XLEN SPIN_ELF NM OBJCOPY
set -eu
[ $# -eq 7 ] || { echo "usage: $0 VIRT_DBG OPENOCD CFG XLEN SPIN_ELF NM OBJCOPY" >&2; exit 2; }
virt_dbg=$1 openocd=$2 cfg=$3 xlen=$4 elf=$5 nm=$6 objcopy=$7
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

"$objcopy" -O binary -j .text "$elf" "$DEBUG_TMP/text.bin"
text=$(od -An -tx4 -N16 -v "$DEBUG_TMP/text.bin" | xargs)
bump=$(sym "$nm" bump "$elf")
counter=$(sym "$nm" counter "$elf")

start_virt "$virt_dbg" "$xlen" "$elf"
log=$DEBUG_TMP/openocd.log
rc=0
timeout "$DEBUG_TIMEOUT" "$openocd" -c "set VIRT_JTAG_PORT $JTAG_PORT" -c "set VIRT_GDB_PORT disabled" \
	-c "set VIRT_TELNET_PORT disabled" -c "set VIRT_TCL_PORT disabled" -f "$cfg" \
	-c "set XLEN $xlen; set BUMP $bump; set COUNTER $counter; set TEXT {$text}" \
	-f "$here/openocd_check.tcl" >"$log" 2>&1 || rc=$?
grep '^openocd_check:' "$log" || true
[ "$rc" -eq 0 ] || die "openocd exited with $rc" "$log" "$VIRT_LOG"
grep -q 'tap/device found: 0x10e31913' "$log" || die "no IDCODE" "$log"
grep -q 'Examined RISC-V core; found 1 harts' "$log" || die "examine failed" "$log"
grep -q "XLEN=$xlen" "$log" || die "XLEN is not $xlen" "$log"
grep -q '^openocd_check: all passed' "$log" || die "checks failed" "$log" "$VIRT_LOG"
grep -q '^spin: running' "$VIRT_LOG" || die "no UART output" "$VIRT_LOG"
echo "PASS: OpenOCD, RV$xlen"
