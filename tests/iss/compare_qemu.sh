#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Runs a test program on QEMU's virt machine and on spoor's ISS (iss_run)
# and compares the executed PC sequences, the UART output and the exit
# code.
#
# usage: compare_qemu.sh ISS_RUN QEMU_SYSTEM_RISCVxx PROG.elf WORKDIR
#
# The comparison rule.  QEMU runs with -singlestep -d exec,nochain, so every
# executed translation block is one instruction and logs one "Trace" line
# (format of QEMU 7.2: "Trace 0: 0xHOSTPTR [CS_BASE/PC/FLAGS/CFLAGS] SYM";
# the PC is the second field in brackets) before it runs.  An instruction
# that raises an exception (ecall, ebreak, illegal instruction, a faulting
# or misaligned load/store/AMO, a jump to a misaligned target) has been
# entered, so it has its line although it does not retire.  An instruction
# fetch that faults never forms a block: no line.  An instruction before
# which an interrupt is taken does not run then: no line (it gets one when
# it runs after the handler).  So the ISS's sequence is: the pc of every
# retired instruction ("R") and of every exception ("E"), except exceptions
# with cause 1 (instruction access fault); interrupts ("I") are left out.
# Both sequences are compared from the first pc 0x80000000 (after the boot
# ROM at 0x1000) to the end, which is the store to the test device that
# ends the program.  (QEMU's -icount would make its mtime deterministic, but
# it logs every instruction that touches a device twice: it is not used.)
set -eu

if [ $# -ne 4 ]; then
	echo "usage: $0 ISS_RUN QEMU PROG.elf WORKDIR" >&2
	exit 2
fi
iss_run=$1
qemu=$2
elf=$3
work=$4
name=$(basename "$elf" .elf)
mkdir -p "$work"
qlog=$work/$name.qemu.log
qpcs=$work/$name.qemu.pcs
ipcs=$work/$name.iss.pcs
itrace=$work/$name.iss.trace
rm -f "$qlog" "$qpcs" "$ipcs" "$itrace"

# From the first 0x80000000 on, one pc a line, hex without leading zeros.
from_ram() {
	sed 's/^0*//; s/^$/0/' | awk 'f || $0 == "80000000" { f = 1; print }'
}

qrc=0
timeout 60 "$qemu" -M virt -bios none -kernel "$elf" -nographic -monitor none \
	-singlestep -d exec,nochain -D "$qlog" </dev/null >"$work/$name.qemu.out" 2>&1 || qrc=$?
if [ "$qrc" -eq 124 ]; then
	echo "FAIL: QEMU timed out" >&2
	exit 1
fi
sed -n 's/^Trace [0-9]*: [^ ]* \[[0-9a-f]*\/\([0-9a-f]*\)\/.*/\1/p' "$qlog" | from_ram >"$qpcs"
rm -f "$qlog"

irc=0
"$iss_run" --max 50000000 --trace "$itrace" "$elf" >"$work/$name.iss.out" 2>&1 || irc=$?
awk '$1 == "R" || ($1 == "E" && $3 != "1") { print $2 }' "$itrace" | from_ram >"$ipcs"
rm -f "$itrace"

status=0
if [ "$qrc" -ne "$irc" ]; then
	echo "FAIL: exit code: QEMU $qrc, ISS $irc" >&2
	status=1
fi
if ! tr -d '\r' <"$work/$name.qemu.out" | cmp -s - "$work/$name.iss.out"; then
	echo "FAIL: UART output differs:" >&2
	tr -d '\r' <"$work/$name.qemu.out" | diff - "$work/$name.iss.out" | head -20 >&2 || true
	status=1
fi
qn=$(wc -l <"$qpcs")
in=$(wc -l <"$ipcs")
if [ "$qn" -eq 0 ] || ! cmp -s "$qpcs" "$ipcs"; then
	echo "FAIL: PC sequences differ (QEMU $qn, ISS $in instructions); first difference:" >&2
	diff "$qpcs" "$ipcs" | head -20 >&2 || true
	status=1
fi
if [ "$status" -eq 0 ]; then
	echo "$(basename "$(dirname "$elf")")/$name: $qn instructions, exit code $qrc: identical"
	rm -f "$qpcs" "$ipcs"
fi
exit "$status"
