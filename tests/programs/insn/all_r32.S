/* SPDX-License-Identifier: MIT */
/*
 * 100000 pseudo-random words (xorshift32) made into 32-bit instruction
 * parcels (low bits 11, bits 4:2 not 111), disassembled as a raw binary so
 * test_insn can compare its validity verdicts with objdump's.
 */
	.data
	.set	x, 0x2545f491
	.rept	100000
	.set	x, (x ^ (x << 13)) & 0xffffffff
	.set	x, x ^ (x >> 17)
	.set	x, (x ^ (x << 5)) & 0xffffffff
	.if	(x & 0x1c) != 0x1c
	.4byte	x | 3
	.endif
	.endr
