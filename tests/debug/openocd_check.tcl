# SPDX-License-Identifier: MIT
# Checks of the virtual board's debug path run inside stock OpenOCD by
# test_openocd.sh, after boards/virt-rv{32,64}.cfg, with these Tcl
# variables set: XLEN, BUMP (the address of bump() in spin.c), COUNTER (the
# address of its counter) and TEXT (the first four words at 0x80000000 as
# mdw prints them).  Prints "openocd_check: ok: ..." or "... FAIL: ..."
# for each check, then shuts OpenOCD down (with an error if one failed).

set failures 0

# Records a failed check; returns nothing.
proc fail {msg} {
	global failures
	incr failures
	echo "openocd_check: FAIL: $msg"
}

# Checks that $got equals $want; returns nothing.
proc expect {what got want} {
	if {$got eq $want} {
		echo "openocd_check: ok: $what: $got"
	} else {
		fail "$what: got $got, want $want"
	}
}

# Returns register $name as a number, from reg's "name (/N): 0x..." output.
proc regval {name} {
	set out [reg $name]
	if {![regexp {: (0x[0-9a-fA-F]+)} $out -> v]} {
		fail "reg $name: $out"
		return -1
	}
	return [expr {$v + 0}]
}

# Returns what command $cmd (mdw, mdh, mdb, mdd) prints for $n items at $addr.
proc mem {cmd addr n} {
	set out [$cmd $addr $n]
	if {![regexp {: ([0-9a-fA-F ]+)} $out -> w]} {
		fail "$cmd $addr $n: $out"
		return ""
	}
	return [string trim $w]
}

# Returns the low 32 bits of spin.c's counter.
proc counter {} {
	global COUNTER
	return [expr {"0x[mem mdw $COUNTER 1]" + 0}]
}

# Returns $v as 0x-prefixed hex.
proc hex {v} {
	return [format 0x%x $v]
}

init

# Examine left the running hart running; halt, pc, step.
expect "state after examine" [riscv.cpu curstate] running
halt
expect "state after halt" [riscv.cpu curstate] halted
set pc0 [regval pc]
expect "pc in the program" [expr {$pc0 >= 0x80000000 && $pc0 < 0x80000100}] 1
expect "dcsr.cause after halt" [expr {([regval dcsr] >> 6) & 7}] 3
step
set pc1 [regval pc]
expect "step moves pc" [expr {$pc1 != $pc0}] 1
expect "dcsr.cause after step" [expr {([regval dcsr] >> 6) & 7}] 4

# Memory through System Bus Access: 8, 16, 32 (and 64) bits.
expect "mdw 0x80000000 4" [mem mdw 0x80000000 4] $TEXT
mww 0x80100000 0xdeadbeef
mww 0x80100004 0x01234567
expect "mdw after mww" [mem mdw 0x80100000 2] "deadbeef 01234567"
mwh 0x80100002 0x5a5a
mwb 0x80100001 0x77
expect "mdw after mwh, mwb" [mem mdw 0x80100000 1] "5a5a77ef"
expect "mdh" [mem mdh 0x80100002 1] "5a5a"
expect "mdb" [mem mdb 0x80100000 3] "ef 77 5a"
if {$XLEN == 64} {
	mwd 0x80100008 0x1122334455667788
	expect "mdd after mwd" [mem mdd 0x80100008 1] "1122334455667788"
}
expect "mdw of unmapped 0x0 fails" [expr {[catch {mdw 0 1}] != 0}] 1

# Registers through abstract commands.
reg a0 0x1234
expect "a0 written" [hex [regval a0]] 0x1234
reg mscratch 0x5a5a
expect "mscratch written" [hex [regval mscratch]] 0x5a5a
expect "misa.MXL" [expr {([regval misa] >> ($XLEN - 2)) & 3}] [expr {$XLEN == 64 ? 2 : 1}]

# A software breakpoint (c.ebreak or ebreak, as the instruction is long).
set len [expr {("0x[mem mdh $BUMP 1]" & 3) == 3 ? 4 : 2}]
bp $BUMP $len
resume
wait_halt 2000
expect "pc at the breakpoint" [hex [regval pc]] [hex $BUMP]
expect "dcsr.cause at the breakpoint" [expr {([regval dcsr] >> 6) & 7}] 1
set c1 [counter]
# Off the breakpoint with a step, then on to it again: one more call.
rbp $BUMP
step
bp $BUMP $len
resume
wait_halt 2000
expect "pc at the breakpoint again" [hex [regval pc]] [hex $BUMP]
expect "one call later" [counter] [expr {$c1 + 1}]
rbp all
resume
expect "state after resume" [riscv.cpu curstate] running
sleep 100
halt
expect "the program ran" [expr {[counter] > $c1 + 1}] 1

# Reset through ndmreset: halted at the reset vector.
reset halt
expect "state after reset halt" [riscv.cpu curstate] halted
expect "pc after reset halt" [hex [regval pc]] 0x1000
resume
expect "state after the last resume" [riscv.cpu curstate] running

if {$failures} {
	echo "openocd_check: $failures failed"
	shutdown error
} else {
	echo "openocd_check: all passed"
	shutdown
}
