/* SPDX-License-Identifier: MIT */
/*
 * Every RV32 IMAFDC + Zicsr + Zifencei instruction, for test_insn's
 * cross-check against objdump: the common set, then the RV32-only forms.
 */
	.option	norelax
	.text
	.globl	_start
_start:
	.include "common.inc"

	.option	rvc
	c.flw	f8, 0(x9)
	c.flw	f15, 124(x8)
	c.fsw	f9, 124(x15)
	c.flwsp	f1, 252(x2)
	c.flwsp	f0, 0(x2)
	c.fswsp	f31, 252(x2)

	/* c.jal, backward, forward and at its largest offsets. */
cjal_back:
	c.nop
	c.jal	cjal_back
	c.jal	cjal_fwd
	c.nop
cjal_fwd:
ext_cjal_back:
	.skip	2048
	c.jal	ext_cjal_back
	c.jal	. + 2046
	.skip	2044
	c.nop
