#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs rsp_torture against spoor gdbserver on a capture of ELF made here.
# usage: test_torture.sh SPOOR RSP_TORTURE BOARD ELF
set -u
spoor=$1 torture=$2 board=$3 elf=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
timeout 60 "$spoor" virt --board "$board" --trace-on-start --capture "$tmp/cap.bin" --exit "$elf" \
	>/dev/null 2>&1 || { echo "FAIL: spoor virt"; exit 1; }
timeout 120 "$torture" "$spoor" "$elf" "$board" "$tmp/cap.bin" || exit 1

# Bad use: one clear line, exit status 2 (usage) or 1 (what was asked failed).
fail=0
expect() {
	want=$1 pattern=$2
	shift 2
	"$spoor" gdbserver "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	if [ "$rc" -ne "$want" ] || ! grep -q -- "$pattern" "$tmp/err"; then
		echo "FAIL: spoor gdbserver $*: exit $rc, wanted $want and '$pattern':"
		cat "$tmp/err"
		fail=1
	fi
}
expect 2 "no program" --replay "$tmp/cap.bin"
expect 2 "no OpenOCD" --replay "$tmp/cap.bin" --openocd 127.0.0.1:1 --elf "$elf"
expect 2 "ADDRESS,SIZE" --ram-sink=0x80000000 --elf "$elf"
expect 2 "from 0 to 65535" --port 70000 --elf "$elf"
expect 2 "nonexistent.cap" --replay /nonexistent.cap --elf "$elf"
expect 2 "did not open its GDB port" --openocd-cfg /nonexistent.cfg --elf "$elf" --board "$board"
expect 2 "trace port" --trace-port 127.0.0.1:1 --elf "$elf" --board "$board"
# Never read without bound: a device or a directory is not a capture.
expect 2 "/dev/zero: not a regular file" --replay /dev/zero --elf "$elf" --board "$board"
expect 2 "$tmp: not a regular file" --replay "$tmp" --elf "$elf" --board "$board"
# The program must fit the board.
expect 2 "is an RV64 program (ELFCLASS64), but the board's ISA is rv32imac" \
	--replay "$tmp/cap.bin" --elf "$elf" --board "${board%64.ini}32.ini"
expect 2 "given twice" --replay "$tmp/cap.bin" --elf "$elf" --board "$board" --board "$board"
[ "$fail" -eq 0 ] && echo "PASS: bad use"
exit "$fail"
