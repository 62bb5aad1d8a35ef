/* SPDX-License-Identifier: MIT */
/*
 * Every 16-bit parcel whose low bits are not 11 (so each is a whole
 * compressed instruction), in order: disassembled as a raw binary so
 * test_insn can compare its validity verdicts with objdump's.
 */
	.data
	.set	i, 0
	.rept	65536
	.if	(i & 3) != 3
	.2byte	i
	.endif
	.set	i, i + 1
	.endr
