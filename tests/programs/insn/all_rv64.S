/* SPDX-License-Identifier: MIT */
/*
 * Every RV64 IMAFDC + Zicsr + Zifencei instruction, for test_insn's
 * cross-check against objdump: the common set, then the RV64-only forms.
 */
	.option	norelax
	.text
	.globl	_start
_start:
	.include "common.inc"

	.option	norvc
	ld	x1, -2048(x2)
	lwu	x3, 2047(x4)
	sd	x5, 8(x6)
	slli	x1, x2, 63
	srli	x3, x4, 32
	srai	x5, x6, 63
	addiw	x1, x2, -1
	slliw	x3, x4, 31
	srliw	x5, x6, 1
	sraiw	x7, x8, 31
	addw	x1, x2, x3
	subw	x4, x5, x6
	sllw	x7, x8, x9
	srlw	x10, x11, x12
	sraw	x13, x14, x15
	mulw	x1, x2, x3
	divw	x4, x5, x6
	divuw	x7, x8, x9
	remw	x10, x11, x12
	remuw	x13, x14, x15

	lr.d	x1, (x2)
	lr.d.aqrl	x3, (x4)
	sc.d	x1, x2, (x3)
	sc.d.aq	x4, x5, (x6)
	amoswap.d	x1, x2, (x3)
	amoadd.d	x1, x2, (x3)
	amoxor.d	x1, x2, (x3)
	amoand.d	x1, x2, (x3)
	amoor.d	x1, x2, (x3)
	amomin.d	x1, x2, (x3)
	amomax.d	x1, x2, (x3)
	amominu.d	x1, x2, (x3)
	amomaxu.d.rl	x1, x2, (x3)

	fcvt.l.s	x1, f2
	fcvt.lu.s	x3, f4, rtz
	fcvt.s.l	f5, x6
	fcvt.s.lu	f7, x8
	fcvt.l.d	x1, f2
	fcvt.lu.d	x3, f4
	fcvt.d.l	f5, x6, rne
	fcvt.d.lu	f7, x8
	fmv.x.d	x9, f10
	fmv.d.x	f11, x12

	/* jal at its largest offsets. */
ext_jal_back:
	.skip	1048576
	jal	x0, ext_jal_back
	jal	x1, . + 1048574
	.skip	1048570

	.option	rvc
	c.ld	x8, 0(x9)
	c.ld	x15, 248(x8)
	c.sd	x9, 248(x15)
	c.addiw	x1, 1
	c.addiw	x2, -32
	c.addiw	x31, 0
	c.subw	x8, x9
	c.addw	x14, x15
	c.ldsp	x1, 504(x2)
	c.ldsp	x31, 0(x2)
	c.sdsp	x1, 504(x2)
	c.srli	x8, 63
	c.srai	x9, 32
	c.slli	x1, 63
	c.nop
