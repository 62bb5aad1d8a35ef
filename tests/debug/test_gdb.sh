#!/bin/sh
# SPDX-License-Identifier: MIT
# gdb-multiarch through stock OpenOCD against virt_dbg: load the program,
# break at main and at bump(), continue, stepi, read and write registers
# and memory, and an access to unmapped memory reported as an error.
#
# usage: test_gdb.sh VIRT_DBG OPENOCD GDB CFG XLEN SPIN_ELF NM
set -eu
[ $# -eq 7 ] || { echo "usage: $0 VIRT_DBG OPENOCD GDB CFG XLEN SPIN_ELF NM" >&2; exit 2; }
virt_dbg=$1 openocd=$2 gdb=$3 cfg=$4 xlen=$5 elf=$6 nm=$7
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

main=$(sym "$nm" main "$elf")
bump=$(sym "$nm" bump "$elf")
start_virt "$virt_dbg" "$xlen" "$elf"
start_openocd "$openocd" "$cfg"

log=$DEBUG_TMP/gdb.log
rc=0
timeout "$DEBUG_TIMEOUT" "$gdb" -nx -batch \
	-ex "set pagination off" -ex "set confirm off" -ex "set osabi none" \
	-ex "set architecture riscv:rv$xlen" -ex "file $elf" \
	-ex "target extended-remote 127.0.0.1:$GDB_PORT" \
	-ex "load" \
	-ex 'printf "LOADED pc=%#lx\n", $pc' \
	-ex "break main" -ex "continue" \
	-ex 'printf "AT_MAIN pc=%#lx\n", $pc' \
	-ex "break bump" -ex "continue" \
	-ex 'printf "AT_BUMP pc=%#lx count=%lu\n", $pc, counter' \
	-ex "stepi" \
	-ex 'printf "STEPI pc=%#lx\n", $pc' \
	-ex "info registers pc sp a0" \
	-ex "set var counter = 1000" -ex 'set $a5 = 0x77' \
	-ex 'printf "SET a5=%#lx\n", $a5' \
	-ex "continue" \
	-ex 'printf "AGAIN pc=%#lx count=%lu\n", $pc, counter' \
	-ex "x/wx 0" \
	-ex "delete" -ex "detach" >"$log" 2>&1 || rc=$?
cat "$log"
[ "$rc" -eq 0 ] || die "gdb exited with $rc" "$OCD_LOG" "$VIRT_LOG"

# Prints the value of field $2 on the line starting with $1.
field() {
	sed -n "s/^$1 .*$2=\([0-9a-fx]*\).*/\1/p" "$log" | head -n 1
}
entry=$("$nm" "$elf" | awk '$3 == "_start" { print "0x" $1 }')
loaded=$(field LOADED pc)
at_main=$(field AT_MAIN pc)
at_bump=$(field AT_BUMP pc)
stepi=$(field STEPI pc)
again=$(field AGAIN pc)
[ -n "$loaded" ] && [ $((loaded)) -eq $((entry)) ] || die "pc after load: $loaded, want $entry"
grep -q '^Breakpoint 1, main ()' "$log" || die "main's breakpoint was not hit"
[ -n "$at_main" ] && [ $((at_main)) -ge $((main)) ] && [ $((at_main)) -lt $((main + 64)) ] ||
	die "pc at main: $at_main (main is $main)"
grep -q '^Breakpoint 2, bump ()' "$log" || die "bump's breakpoint was not hit"
[ -n "$at_bump" ] && [ $((at_bump)) -eq $((bump)) ] || die "pc at bump: $at_bump, want $bump"
[ -n "$stepi" ] && [ $((stepi)) -gt $((at_bump)) ] && [ $((stepi)) -le $((at_bump + 4)) ] ||
	die "stepi: pc $stepi after $at_bump"
grep -q '^SET a5=0x77' "$log" || die "register write"
[ -n "$again" ] && [ $((again)) -eq $((bump)) ] || die "pc at bump again: $again"
grep -q '^AGAIN .*count=1001$' "$log" || die "memory write: counter not 1001"
grep -q 'Cannot access memory at address 0x0' "$log" || die "unmapped read did not fail"
echo "PASS: GDB, RV$xlen"
