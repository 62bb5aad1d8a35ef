// SPDX-License-Identifier: MIT
/*
 * Tests for instruction classification: hand-written encodings for every
 * class and flag, RV32/RV64 differences, reserved encodings and extreme
 * offsets; then binutils as the reference: objdump's listings of
 * tests/programs/insn (every instruction of the supported extensions), of
 * every 16-bit parcel and of pseudo-random 32-bit words, built by
 * tests/CMakeLists.txt; then random words for robustness.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rng.h"
#include "spoor/error.h"
#include "spoor/insn.h"

enum {
	SEQ = SPOOR_INSN_SEQ,
	BRANCH = SPOOR_INSN_BRANCH,
	JUMP = SPOOR_INSN_JUMP,
	JALR = SPOOR_INSN_JALR,
	XRET = SPOOR_INSN_XRET,
	ECALL = SPOOR_INSN_ECALL,
	INVALID = SPOOR_INSN_INVALID,
	NCLASS,
	CALL = SPOOR_INSN_CALL,
	RET = SPOOR_INSN_RETURN,
	UPPER = SPOOR_INSN_UPPER,
};

/* Counts a check that the caller already reported when it failed. */
static void count(bool ok)
{
	if (ok)
		check_passed++;
	else
		check_failed++;
}

/* Returns the length the low bits of @raw give (2, 4, or 0 for 48-bit and longer). */
static unsigned int low_bits_len(uint32_t raw)
{
	if ((raw & 3) != 3)
		return 2;
	return (raw & 0x1c) != 0x1c ? 4 : 0;
}

/* ---- hand-written encodings ---- */

/* One expectation: @xlen 0 means both. */
struct want {
	uint32_t raw;
	unsigned int xlen;
	uint8_t len, cls, flags, rd, rs1;
	int64_t imm;
};

static const struct want wants[] = {
	/* Sequential, both xlens (upper half of a 16-bit parcel ignored). */
	{ 0x00000013, 0, 4, SEQ, 0, 0, 0, 0 },		/* addi x0, x0, 0 */
	{ 0x00000001, 0, 2, SEQ, 0, 0, 0, 0 },		/* c.nop */
	{ 0xdead0001, 0, 2, SEQ, 0, 0, 0, 0 },		/* c.nop, next parcel above */
	{ 0x0ff0000f, 0, 4, SEQ, 0, 0, 0, 0 },		/* fence */
	{ 0x8330000f, 0, 4, SEQ, 0, 0, 0, 0 },		/* fence.tso */
	{ 0x0ff0808f, 0, 4, SEQ, 0, 0, 0, 0 },		/* fence, rd/rs1 (ignored) set */
	{ 0x0000100f, 0, 4, SEQ, 0, 0, 0, 0 },		/* fence.i */
	{ 0x10500073, 0, 4, SEQ, 0, 0, 0, 0 },		/* wfi */
	{ 0x12208073, 0, 4, SEQ, 0, 0, 0, 0 },		/* sfence.vma x1, x2 */
	{ 0x300110f3, 0, 4, SEQ, 0, 0, 0, 0 },		/* csrrw x1, mstatus, x2 */
	{ 0x3420f1f3, 0, 4, SEQ, 0, 0, 0, 0 },		/* csrrci x3, mcause, 1 */
	{ 0xc0001073, 0, 4, SEQ, 0, 0, 0, 0 },		/* unimp = csrrw x0, cycle, x0 */
	{ 0x02f746b3, 0, 4, SEQ, 0, 0, 0, 0 },		/* div */
	{ 0x100120af, 0, 4, SEQ, 0, 0, 0, 0 },		/* lr.w */
	{ 0xe6b6252f, 0, 4, SEQ, 0, 0, 0, 0 },		/* amomaxu.w.aqrl */
	{ 0x80012087, 0, 4, SEQ, 0, 0, 0, 0 },		/* flw */
	{ 0x7fffbfa7, 0, 4, SEQ, 0, 0, 0, 0 },		/* fsd */
	{ 0x203170c3, 0, 4, SEQ, 0, 0, 0, 0 },		/* fmadd.s */
	{ 0x401170d3, 0, 4, SEQ, 0, 0, 0, 0 },		/* fcvt.s.d */
	{ 0x420201d3, 0, 4, SEQ, 0, 0, 0, 0 },		/* fcvt.d.s */
	{ 0xe00302d3, 0, 4, SEQ, 0, 0, 0, 0 },		/* fmv.x.w */
	{ 0x7101, 0, 2, SEQ, 0, 0, 0, 0 },		/* c.addi16sp x2, -512 */
	{ 0x808a, 0, 2, SEQ, 0, 0, 0, 0 },		/* c.mv x1, x2 */
	{ 0x908a, 0, 2, SEQ, 0, 0, 0, 0 },		/* c.add x1, x2 */
	{ 0x8001, 0, 2, SEQ, 0, 0, 0, 0 },		/* c.srli64 x8 (HINT) */
	{ 0x4005, 0, 2, SEQ, 0, 0, 0, 0 },		/* c.li x0, 1 (HINT) */

	/* RV32/RV64 differences in the compressed encodings. */
	{ 0x6080, 0, 2, SEQ, 0, 0, 0, 0 },		/* c.flw / c.ld */
	{ 0xffe4, 0, 2, SEQ, 0, 0, 0, 0 },		/* c.fsw / c.sd */
	{ 0x70fe, 0, 2, SEQ, 0, 0, 0, 0 },		/* c.flwsp f1 / c.ldsp x1 */
	{ 0xff86, 0, 2, SEQ, 0, 0, 0, 0 },		/* c.fswsp / c.sdsp */
	{ 0x6002, 32, 2, SEQ, 0, 0, 0, 0 },		/* c.flwsp f0, 0(x2) */
	{ 0x6002, 64, 2, INVALID, 0, 0, 0, 0 },	/* c.ldsp x0: reserved */
	{ 0x2085, 32, 2, JUMP, CALL, 1, 0, 96 },	/* c.jal . + 96 */
	{ 0x2085, 64, 2, SEQ, 0, 0, 0, 0 },		/* c.addiw x1, 1 */
	{ 0x2ffd, 32, 2, JUMP, CALL, 1, 0, 2046 },	/* c.jal . + 2046 */
	{ 0x2ffd, 64, 2, SEQ, 0, 0, 0, 0 },		/* c.addiw x31, -1 */
	{ 0x3001, 32, 2, JUMP, CALL, 1, 0, -2048 },	/* c.jal . - 2048 */
	{ 0x3001, 64, 2, INVALID, 0, 0, 0, 0 },	/* c.addiw x0: reserved */
	{ 0x2001, 32, 2, JUMP, CALL, 1, 0, 0 },		/* c.jal . */
	{ 0x2001, 64, 2, INVALID, 0, 0, 0, 0 },	/* c.addiw x0: reserved */
	{ 0x9c05, 32, 2, INVALID, 0, 0, 0, 0 },	/* c.subw */
	{ 0x9c05, 64, 2, SEQ, 0, 0, 0, 0 },
	{ 0x9f3d, 32, 2, INVALID, 0, 0, 0, 0 },	/* c.addw */
	{ 0x9f3d, 64, 2, SEQ, 0, 0, 0, 0 },
	{ 0x9001, 32, 2, INVALID, 0, 0, 0, 0 },	/* c.srli x8, 32: NSE on RV32 */
	{ 0x9001, 64, 2, SEQ, 0, 0, 0, 0 },
	{ 0x9401, 32, 2, INVALID, 0, 0, 0, 0 },	/* c.srai x8, 32 */
	{ 0x9401, 64, 2, SEQ, 0, 0, 0, 0 },
	{ 0x1082, 32, 2, INVALID, 0, 0, 0, 0 },	/* c.slli x1, 32 */
	{ 0x1082, 64, 2, SEQ, 0, 0, 0, 0 },
	{ 0x02011093, 32, 4, INVALID, 0, 0, 0, 0 },	/* slli x1, x2, 32 */
	{ 0x02011093, 64, 4, SEQ, 0, 0, 0, 0 },

	/* Reserved compressed encodings. */
	{ 0x0000, 0, 2, INVALID, 0, 0, 0, 0 },		/* c.unimp */
	{ 0x0004, 0, 2, INVALID, 0, 0, 0, 0 },		/* c.addi4spn x9, 0 */
	{ 0x6101, 0, 2, INVALID, 0, 0, 0, 0 },		/* c.addi16sp 0 */
	{ 0x6281, 0, 2, INVALID, 0, 0, 0, 0 },		/* c.lui x5, 0 */
	{ 0x6001, 0, 2, INVALID, 0, 0, 0, 0 },		/* c.lui x0, 0 */
	{ 0x8002, 0, 2, INVALID, 0, 0, 0, 0 },		/* c.jr x0 */
	{ 0x4002, 0, 2, INVALID, 0, 0, 0, 0 },		/* c.lwsp x0 */
	{ 0x8000, 0, 2, INVALID, 0, 0, 0, 0 },		/* quadrant 0, funct3 100 */
	{ 0x9c41, 0, 2, INVALID, 0, 0, 0, 0 },		/* quadrant 1 reserved ALU op */
	{ 0x9c61, 0, 2, INVALID, 0, 0, 0, 0 },

	/* Invalid 32-bit encodings and lengths. */
	{ 0xffffffff, 0, 0, INVALID, 0, 0, 0, 0 },	/* all ones: 48-bit+ */
	{ 0x0000001f, 0, 0, INVALID, 0, 0, 0, 0 },	/* 48-bit */
	{ 0x0000003f, 0, 0, INVALID, 0, 0, 0, 0 },	/* 64-bit */
	{ 0x0000007f, 0, 0, INVALID, 0, 0, 0, 0 },	/* 80-bit+ */
	{ 0x0000000b, 0, 4, INVALID, 0, 0, 0, 0 },	/* custom-0 */
	{ 0x0000005b, 0, 4, INVALID, 0, 0, 0, 0 },	/* custom-2 */
	{ 0x00002057, 0, 4, INVALID, 0, 0, 0, 0 },	/* OP-V */
	{ 0x00001007, 0, 4, INVALID, 0, 0, 0, 0 },	/* flh */
	{ 0x04000053, 0, 4, INVALID, 0, 0, 0, 0 },	/* fadd.h */
	{ 0x06000053, 0, 4, INVALID, 0, 0, 0, 0 },	/* fadd.q */
	{ 0x00005053, 0, 4, INVALID, 0, 0, 0, 0 },	/* fadd.s, rm 101 */
	{ 0x00006053, 0, 4, INVALID, 0, 0, 0, 0 },	/* fadd.s, rm 110 */
	{ 0x58100053, 0, 4, INVALID, 0, 0, 0, 0 },	/* fsqrt.s, rs2 1 */
	{ 0xa0003053, 0, 4, INVALID, 0, 0, 0, 0 },	/* feq.s, funct3 3 */
	{ 0xc0400053, 0, 4, INVALID, 0, 0, 0, 0 },	/* fcvt.?.s, rs2 4 */
	{ 0xe0100053, 0, 4, INVALID, 0, 0, 0, 0 },	/* fmv.x.w, rs2 1 */
	{ 0x101120af, 0, 4, INVALID, 0, 0, 0, 0 },	/* lr.w, rs2 1 */
	{ 0x2800202f, 0, 4, INVALID, 0, 0, 0, 0 },	/* AMO funct5 00101 */
	{ 0x40001033, 0, 4, INVALID, 0, 0, 0, 0 },	/* funct7 0x20 sll */
	{ 0x00007003, 0, 4, INVALID, 0, 0, 0, 0 },	/* load funct3 7 */
	{ 0x00004023, 0, 4, INVALID, 0, 0, 0, 0 },	/* store funct3 4 */
	{ 0x0000200f, 0, 4, INVALID, 0, 0, 0, 0 },	/* MISC-MEM funct3 2 (cbo) */
	{ 0x00002063, 0, 4, INVALID, 0, 0, 0, 0 },	/* branch funct3 2 */
	{ 0x00003063, 0, 4, INVALID, 0, 0, 0, 0 },	/* branch funct3 3 */
	{ 0x00009067, 0, 4, INVALID, 0, 0, 0, 0 },	/* jalr funct3 1 */
	{ 0x00300073, 0, 4, INVALID, 0, 0, 0, 0 },	/* SYSTEM funct3 0, imm 3 */
	{ 0x302000f3, 0, 4, INVALID, 0, 0, 0, 0 },	/* mret with rd = x1 */
	{ 0x12000173, 0, 4, INVALID, 0, 0, 0, 0 },	/* sfence.vma with rd = x2 */
	{ 0x22000073, 0, 4, INVALID, 0, 0, 0, 0 },	/* hfence.vvma */
	{ 0x00004073, 0, 4, INVALID, 0, 0, 0, 0 },	/* SYSTEM funct3 4 */

	/* Conditional branches, extreme offsets. */
	{ 0x80208063, 0, 4, BRANCH, 0, 0, 1, -4096 },	/* beq x1, x2, . - 4096 */
	{ 0x7e209fe3, 0, 4, BRANCH, 0, 0, 1, 4094 },	/* bne x1, x2, . + 4094 */
	{ 0xfe62cae3, 0, 4, BRANCH, 0, 0, 5, -12 },	/* blt x5, x6 */
	{ 0xfe83d8e3, 0, 4, BRANCH, 0, 0, 7, -16 },	/* bge x7, x8 */
	{ 0xfea4e6e3, 0, 4, BRANCH, 0, 0, 9, -20 },	/* bltu x9, x10 */
	{ 0xfec5f4e3, 0, 4, BRANCH, 0, 0, 11, -24 },	/* bgeu x11, x12 */
	{ 0x00000e63, 0, 4, BRANCH, 0, 0, 0, 28 },	/* beq x0, x0, . + 28 */
	{ 0xd001, 0, 2, BRANCH, 0, 0, 8, -256 },	/* c.beqz x8, . - 256 */
	{ 0xeffd, 0, 2, BRANCH, 0, 0, 15, 254 },	/* c.bnez x15, . + 254 */
	{ 0xc781, 0, 2, BRANCH, 0, 0, 15, 8 },		/* c.beqz x15, . + 8 */

	/* Inferable jumps. */
	{ 0x8000006f, 0, 4, JUMP, 0, 0, 0, -1048576 },	/* jal x0, . - 1 MiB */
	{ 0x7ffff0ef, 0, 4, JUMP, CALL, 1, 0, 1048574 },	/* jal x1, . + 1 MiB - 2 */
	{ 0x010002ef, 0, 4, JUMP, CALL, 5, 0, 16 },	/* jal x5 */
	{ 0x00c003ef, 0, 4, JUMP, 0, 7, 0, 12 },	/* jal x7 */
	{ 0xb001, 0, 2, JUMP, 0, 0, 0, -2048 },		/* c.j . - 2048 */
	{ 0xaffd, 0, 2, JUMP, 0, 0, 0, 2046 },		/* c.j . + 2046 */
	{ 0x06400067, 0, 4, JUMP, 0, 0, 0, 100 },	/* jalr x0, 100(x0) */
	{ 0x800000e7, 0, 4, JUMP, CALL, 1, 0, -2048 },	/* jalr x1, -2048(x0) */
	{ 0x7ff002e7, 0, 4, JUMP, CALL, 5, 0, 2047 },	/* jalr x5, 2047(x0) */

	/* Uninferable jumps: the RAS hint table. */
	{ 0x00008067, 0, 4, JALR, RET, 0, 1, 0 },	/* jalr x0, 0(x1) */
	{ 0x00028067, 0, 4, JALR, RET, 0, 5, 0 },	/* jalr x0, 0(x5) */
	{ 0x000280e7, 0, 4, JALR, CALL | RET, 1, 5, 0 },	/* jalr x1, 0(x5) */
	{ 0x000082e7, 0, 4, JALR, CALL | RET, 5, 1, 0 },	/* jalr x5, 0(x1) */
	{ 0x008080e7, 0, 4, JALR, CALL, 1, 1, 8 },	/* jalr x1, 8(x1) */
	{ 0xffc282e7, 0, 4, JALR, CALL, 5, 5, -4 },	/* jalr x5, -4(x5) */
	{ 0x7ff500e7, 0, 4, JALR, CALL, 1, 10, 2047 },	/* jalr x1, 2047(x10) */
	{ 0x80060067, 0, 4, JALR, 0, 0, 12, -2048 },	/* jalr x0, -2048(x12) */
	{ 0x00038367, 0, 4, JALR, 0, 6, 7, 0 },		/* jalr x6, 0(x7) */
	{ 0x00c083e7, 0, 4, JALR, RET, 7, 1, 12 },	/* jalr x7, 12(x1) */
	{ 0x8082, 0, 2, JALR, RET, 0, 1, 0 },		/* c.jr x1 */
	{ 0x8282, 0, 2, JALR, RET, 0, 5, 0 },		/* c.jr x5 */
	{ 0x8302, 0, 2, JALR, 0, 0, 6, 0 },		/* c.jr x6 */
	{ 0x9082, 0, 2, JALR, CALL, 1, 1, 0 },		/* c.jalr x1 */
	{ 0x9282, 0, 2, JALR, CALL | RET, 1, 5, 0 },	/* c.jalr x5 */
	{ 0x9502, 0, 2, JALR, CALL, 1, 10, 0 },		/* c.jalr x10 */

	/* Traps and returns from them. */
	{ 0x00000073, 0, 4, ECALL, 0, 0, 0, 0 },	/* ecall */
	{ 0x00100073, 0, 4, ECALL, 0, 0, 0, 0 },	/* ebreak */
	{ 0x9002, 0, 2, ECALL, 0, 0, 0, 0 },		/* c.ebreak */
	{ 0x00200073, 0, 4, XRET, 0, 0, 0, 0 },		/* uret */
	{ 0x10200073, 0, 4, XRET, 0, 0, 0, 0 },		/* sret */
	{ 0x30200073, 0, 4, XRET, 0, 0, 0, 0 },		/* mret */
	{ 0x7b200073, 0, 4, XRET, 0, 0, 0, 0 },		/* dret */

	/* Upper immediates. */
	{ 0x123452b7, 0, 4, SEQ, UPPER, 5, 0, 0x12345000 },	/* lui x5, 0x12345 */
	{ 0xfffff0b7, 0, 4, SEQ, UPPER, 1, 0, -4096 },		/* lui x1, 0xfffff */
	{ 0x80000fb7, 0, 4, SEQ, UPPER, 31, 0, -0x80000000ll },	/* lui x31, 0x80000 */
	{ 0x00001037, 0, 4, SEQ, UPPER, 0, 0, 0x1000 },		/* lui x0, 1 (HINT) */
	{ 0x00000097, 0, 4, SEQ, UPPER, 1, 0, 0 },		/* auipc x1, 0 */
	{ 0x80000297, 0, 4, SEQ, UPPER, 5, 0, -0x80000000ll },	/* auipc x5, 0x80000 */
	{ 0x7ffffF97, 0, 4, SEQ, UPPER, 31, 0, 0x7ffff000 },	/* auipc x31, 0x7ffff */
	{ 0x6085, 0, 2, SEQ, UPPER, 1, 0, 0x1000 },		/* c.lui x1, 1 */
	{ 0x7281, 0, 2, SEQ, UPPER, 5, 0, -0x20000 },		/* c.lui x5, 0xfffe0 */
	{ 0x6ffd, 0, 2, SEQ, UPPER, 31, 0, 0x1f000 },		/* c.lui x31, 0x1f */
	{ 0x71fd, 0, 2, SEQ, UPPER, 3, 0, -0x1000 },		/* c.lui x3, 0xfffff */
	{ 0x6005, 0, 2, SEQ, UPPER, 0, 0, 0x1000 },		/* c.lui x0, 1 (HINT) */
};

/* 32-bit instructions valid on RV64 only. */
static const uint32_t rv64_only[] = {
	0x80013083,	/* ld */
	0x7ff26183,	/* lwu */
	0x00533423,	/* sd */
	0x03f11093,	/* slli x1, x2, 63 */
	0x43f35293,	/* srai x5, x6, 63 */
	0xfff1009b,	/* addiw */
	0x41f4539b,	/* sraiw */
	0x003100bb,	/* addw */
	0x4062823b,	/* subw */
	0x02f776bb,	/* remuw */
	0x100130af,	/* lr.d */
	0x0021b0af,	/* amoadd.d */
	0xc02170d3,	/* fcvt.l.s */
	0xd23473d3,	/* fcvt.d.lu */
	0xe20504d3,	/* fmv.x.d */
	0xf20605d3,	/* fmv.d.x */
};

/* Decodes @w for @xlen; returns true (after reporting) when every field matches. */
static bool want_matches(const struct want *w, unsigned int xlen)
{
	struct spoor_insn in;
	int ret = spoor_insn_decode(w->raw, xlen, &in);
	int want_ret = w->cls == INVALID ? SPOOR_E_BAD_INSN : w->len;
	uint32_t raw = w->len == 2 ? w->raw & 0xffff : w->raw;
	bool ok = ret == want_ret && in.raw == raw && in.len == w->len && in.cls == w->cls &&
		  in.flags == w->flags && in.rd == w->rd && in.rs1 == w->rs1 && in.imm == w->imm;

	if (!ok)
		fprintf(stderr, "%s: 0x%08x xlen %u: got ret %d len %u %s flags %u rd %u rs1 %u "
			"imm %" PRId64 "\n", __FILE__, w->raw, xlen, ret, in.len,
			spoor_insn_class_name(in.cls), in.flags, in.rd, in.rs1, in.imm);
	return ok;
}

/* Checks the hand-written table, the RV64-only words and bad xlens. */
static void test_hand_written(void)
{
	struct spoor_insn in;

	for (size_t i = 0; i < sizeof(wants) / sizeof(wants[0]); i++) {
		const struct want *w = &wants[i];

		CHECK_EQ(low_bits_len(w->raw), w->len);
		if (w->xlen != 64)
			count(want_matches(w, 32));
		if (w->xlen != 32)
			count(want_matches(w, 64));
	}
	for (size_t i = 0; i < sizeof(rv64_only) / sizeof(rv64_only[0]); i++) {
		struct want w = { rv64_only[i], 64, 4, SEQ, 0, 0, 0, 0 };

		count(want_matches(&w, 64));
		w.cls = INVALID;
		count(want_matches(&w, 32));
	}
	CHECK_EQ(spoor_insn_decode(0x13, 16, &in), SPOOR_E_INVAL);
	CHECK_EQ(in.cls, INVALID);
	CHECK_EQ(spoor_insn_decode(0x0001, 128, &in), SPOOR_E_INVAL);
	CHECK_EQ(in.len, 2);
}

/* Checks spoor_insn_class_name() for every class and one out of range. */
static void test_class_names(void)
{
	CHECK(!strcmp(spoor_insn_class_name(SPOOR_INSN_SEQ), "seq"));
	CHECK(!strcmp(spoor_insn_class_name(SPOOR_INSN_BRANCH), "branch"));
	CHECK(!strcmp(spoor_insn_class_name(SPOOR_INSN_JUMP), "jump"));
	CHECK(!strcmp(spoor_insn_class_name(SPOOR_INSN_JALR), "jalr"));
	CHECK(!strcmp(spoor_insn_class_name(SPOOR_INSN_XRET), "xret"));
	CHECK(!strcmp(spoor_insn_class_name(SPOOR_INSN_ECALL), "ecall"));
	CHECK(!strcmp(spoor_insn_class_name(SPOOR_INSN_INVALID), "invalid"));
	CHECK(!strcmp(spoor_insn_class_name((enum spoor_insn_class)99), "unknown"));
}

/* ---- objdump listings ---- */

/* One instruction line of an objdump -d listing. */
struct dis {
	uint64_t addr;
	uint32_t raw;
	unsigned int len;	/* 2 or 4, from the number of hex digits */
	char mnem[32];
	const char *ops;	/* operands, then maybe " <sym>" or " # comment" */
};

static const char *const branch_names[] = {
	"beq", "bne", "blt", "bge", "bltu", "bgeu", "c.beqz", "c.bnez", NULL
};
static const char *const jal_names[] = { "jal", "c.j", "c.jal", NULL };
static const char *const xret_names[] = { "uret", "sret", "mret", "dret", NULL };
static const char *const ecall_names[] = { "ecall", "ebreak", "c.ebreak", NULL };
/* objdump's words for "not an instruction of the ISA string". */
static const char *const invalid_names[] = { ".2byte", ".4byte", "c.unimp", NULL };
/* Data (mapping symbol $d, e.g. .skip): not instructions. */
static const char *const data_names[] = { ".byte", ".short", ".word", ".dword", NULL };
static const char *const upper_names[] = { "lui", "auipc", "c.lui", NULL };

/* Mnemonics all_rv32.S and all_rv64.S must produce (.aq/.rl suffixes stripped). */
static const char *const common_names[] = {
	"lui", "auipc", "jal", "jalr", "beq", "bne", "blt", "bge", "bltu", "bgeu",
	"lb", "lh", "lw", "lbu", "lhu", "sb", "sh", "sw", "addi", "slti", "sltiu", "xori",
	"ori", "andi", "slli", "srli", "srai", "add", "sub", "sll", "slt", "sltu", "xor",
	"srl", "sra", "or", "and", "fence", "fence.tso", "fence.i", "ecall", "ebreak",
	"uret", "sret", "mret", "dret", "wfi", "sfence.vma", "unimp",
	"csrrw", "csrrs", "csrrc", "csrrwi", "csrrsi", "csrrci",
	"mul", "mulh", "mulhsu", "mulhu", "div", "divu", "rem", "remu",
	"lr.w", "sc.w", "amoswap.w", "amoadd.w", "amoxor.w", "amoand.w", "amoor.w",
	"amomin.w", "amomax.w", "amominu.w", "amomaxu.w",
	"flw", "fsw", "fmadd.s", "fmsub.s", "fnmsub.s", "fnmadd.s", "fadd.s", "fsub.s",
	"fmul.s", "fdiv.s", "fsqrt.s", "fsgnj.s", "fsgnjn.s", "fsgnjx.s", "fmin.s", "fmax.s",
	"fcvt.w.s", "fcvt.wu.s", "fmv.x.w", "feq.s", "flt.s", "fle.s", "fclass.s",
	"fcvt.s.w", "fcvt.s.wu", "fmv.w.x",
	"fld", "fsd", "fmadd.d", "fmsub.d", "fnmsub.d", "fnmadd.d", "fadd.d", "fsub.d",
	"fmul.d", "fdiv.d", "fsqrt.d", "fsgnj.d", "fsgnjn.d", "fsgnjx.d", "fmin.d", "fmax.d",
	"fcvt.s.d", "fcvt.d.s", "feq.d", "flt.d", "fle.d", "fclass.d", "fcvt.w.d",
	"fcvt.wu.d", "fcvt.d.w", "fcvt.d.wu",
	"c.addi4spn", "c.fld", "c.lw", "c.fsd", "c.sw", "c.addi", "c.li", "c.addi16sp",
	"c.lui", "c.srli", "c.srai", "c.andi", "c.sub", "c.xor", "c.or", "c.and", "c.j",
	"c.beqz", "c.bnez", "c.slli", "c.fldsp", "c.lwsp", "c.jr", "c.mv", "c.ebreak",
	"c.jalr", "c.add", "c.fsdsp", "c.swsp", "c.slli64", "c.srli64", "c.srai64", NULL
};
static const char *const rv64_names[] = {
	"ld", "lwu", "sd", "addiw", "slliw", "srliw", "sraiw", "addw", "subw", "sllw",
	"srlw", "sraw", "mulw", "divw", "divuw", "remw", "remuw",
	"lr.d", "sc.d", "amoswap.d", "amoadd.d", "amoxor.d", "amoand.d", "amoor.d",
	"amomin.d", "amomax.d", "amominu.d", "amomaxu.d",
	"fcvt.l.s", "fcvt.lu.s", "fcvt.s.l", "fcvt.s.lu", "fcvt.l.d", "fcvt.lu.d",
	"fcvt.d.l", "fcvt.d.lu", "fmv.x.d", "fmv.d.x",
	"c.ld", "c.sd", "c.addiw", "c.subw", "c.addw", "c.ldsp", "c.sdsp", NULL
};
static const char *const rv32_names[] = {
	"c.flw", "c.fsw", "c.flwsp", "c.fswsp", "c.jal", NULL
};

/* Returns the index of @m in @list, or -1. */
static int find_name(const char *const *list, const char *m)
{
	for (int i = 0; list[i]; i++)
		if (!strcmp(list[i], m))
			return i;
	return -1;
}

/* Returns true when @m is in @list. */
static bool is_one_of(const char *const *list, const char *m)
{
	return find_name(list, m) >= 0;
}

/* Parses an objdump line (no newline) into @d; returns true for one parcel, code or data. */
static bool parse_dis(const char *line, struct dis *d)
{
	const char *t1 = strchr(line, '\t'), *t2, *p;
	size_t n, m;
	char *end;

	d->addr = strtoull(line, &end, 16);
	if (!t1 || end == line || *end != ':' || end + 1 != t1)
		return false;
	n = strspn(t1 + 1, "0123456789abcdef");
	t2 = strchr(t1 + 1, '\t');
	if ((n != 4 && n != 8) || !t2)
		return false;
	for (p = t1 + 1 + n; p < t2; p++)
		if (*p != ' ')		/* several parcels: .byte data */
			return false;
	d->raw = (uint32_t)strtoul(t1 + 1, NULL, 16);
	d->len = n / 2;
	m = strcspn(t2 + 1, "\t");
	if (m == 0 || m >= sizeof(d->mnem))
		return false;
	memcpy(d->mnem, t2 + 1, m);
	d->mnem[m] = '\0';
	d->ops = t2[1 + m] == '\t' ? t2 + 2 + m : "";
	return true;
}

/* Returns the x register at *@s and advances past it, or -1. */
static int parse_reg(const char **s)
{
	char *end;
	long r;

	if (**s != 'x')
		return -1;
	r = strtol(*s + 1, &end, 10);
	if (end == *s + 1 || r < 0 || r > 31)
		return -1;
	*s = end;
	return (int)r;
}

/* Returns the last comma-separated operand of @ops as a hex number (a target). */
static uint64_t last_hex(const char *ops)
{
	const char *p = ops, *c;

	while ((c = strchr(p, ',')) && c < ops + strcspn(ops, " "))
		p = c + 1;
	return strtoull(p, NULL, 16);
}

/* Returns true when the x register at *@s is @r (advancing), else false. */
static bool reg_is(const char **s, int r)
{
	return parse_reg(s) == r;
}

/* Reports a failed check on @d; returns @ok. */
static bool report(bool ok, const struct dis *d, unsigned int xlen, const char *what)
{
	if (!ok)
		fprintf(stderr, "xlen %u, %" PRIx64 ": %08x %s %s: %s\n", xlen, d->addr, d->raw,
			d->mnem, d->ops, what);
	count(ok);
	return ok;
}

#define LCHECK(d, xlen, cond) report((cond), (d), (xlen), #cond)

/* Returns @v reduced to @xlen bits. */
static uint64_t xmask(uint64_t v, unsigned int xlen)
{
	return xlen == 64 ? v : v & 0xffffffffu;
}

/* Returns the CALL/RETURN flags the RAS hint table gives for jumps writing @rd, reading @rs1. */
static unsigned int want_ras(int rd, int rs1)
{
	bool push = rd == 1 || rd == 5, pop = rs1 == 1 || rs1 == 5;

	if (push && pop && rd == rs1)
		pop = false;
	return (push ? CALL : 0) | (pop ? RET : 0);
}

/* Checks a conditional branch line: rs1 and target. */
static void check_branch(const struct dis *d, unsigned int xlen, const struct spoor_insn *in)
{
	const char *s = d->ops;

	LCHECK(d, xlen, reg_is(&s, in->rs1));
	LCHECK(d, xlen, xmask(d->addr + in->imm, xlen) == xmask(last_hex(d->ops), xlen));
	LCHECK(d, xlen, in->flags == 0 && in->rd == 0);
}

/* Checks a jal, c.j or c.jal line: link register, target and flags. */
static void check_jal(const struct dis *d, unsigned int xlen, const struct spoor_insn *in)
{
	const char *s = d->ops;
	int rd = !strcmp(d->mnem, "c.jal");

	if (!strcmp(d->mnem, "jal"))
		rd = parse_reg(&s);
	LCHECK(d, xlen, in->rd == rd && in->rs1 == 0);
	LCHECK(d, xlen, xmask(d->addr + in->imm, xlen) == xmask(last_hex(d->ops), xlen));
	LCHECK(d, xlen, in->flags == want_ras(rd, 0));
}

/* Checks a jalr, c.jr or c.jalr line: registers, offset (or target) and flags. */
static void check_jalr(const struct dis *d, unsigned int xlen, const struct spoor_insn *in)
{
	const char *s = d->ops, *hash;
	int rd = !strcmp(d->mnem, "c.jalr"), rs1;
	long imm = 0;
	char *end;

	if (!strcmp(d->mnem, "jalr")) {
		rd = parse_reg(&s);
		imm = strtol(s + 1, &end, 10);
		s = end + 1;
		LCHECK(d, xlen, *end == '(');
	}
	rs1 = parse_reg(&s);
	LCHECK(d, xlen, in->rd == rd && in->rs1 == rs1 && in->imm == imm);
	LCHECK(d, xlen, in->flags == want_ras(rd, rs1));
	if (rs1 == 0) {			/* objdump's comment: the absolute target */
		hash = strstr(d->ops, " # ");
		LCHECK(d, xlen, hash && xmask(strtoull(hash + 3, NULL, 16), xlen) ==
					xmask(in->imm, xlen));
	}
}

/* Checks a lui, auipc or c.lui line: rd and the upper immediate. */
static void check_upper(const struct dis *d, unsigned int xlen, const struct spoor_insn *in)
{
	const char *s = d->ops;
	int rd = parse_reg(&s);
	uint32_t field = (uint32_t)strtoul(s + 1, NULL, 16);

	LCHECK(d, xlen, in->flags == UPPER && in->rd == rd);
	LCHECK(d, xlen, in->imm == (int32_t)(field << 12));
}

/* Returns the class objdump's line @d implies. */
static int dis_class(const struct dis *d)
{
	const char *s = d->ops;

	if (is_one_of(invalid_names, d->mnem))
		return INVALID;
	if (is_one_of(branch_names, d->mnem))
		return BRANCH;
	if (is_one_of(jal_names, d->mnem))
		return JUMP;
	if (!strcmp(d->mnem, "c.jr") || !strcmp(d->mnem, "c.jalr"))
		return JALR;
	if (!strcmp(d->mnem, "jalr")) {
		parse_reg(&s);
		return strstr(s, "(x0)") ? JUMP : JALR;
	}
	if (is_one_of(xret_names, d->mnem))
		return XRET;
	return is_one_of(ecall_names, d->mnem) ? ECALL : SEQ;
}

/* Checks one instruction line against spoor_insn_decode(); returns the class it implies. */
static int check_dis(const struct dis *d, unsigned int xlen)
{
	struct spoor_insn in;
	int ret = spoor_insn_decode(d->raw, xlen, &in);
	int cls = dis_class(d);

	LCHECK(d, xlen, in.len == d->len);
	if (!LCHECK(d, xlen, in.cls == cls))
		return cls;
	LCHECK(d, xlen, ret == (cls == INVALID ? SPOOR_E_BAD_INSN : (int)d->len));
	if (cls == BRANCH)
		check_branch(d, xlen, &in);
	else if (cls == JUMP && strcmp(d->mnem, "jalr"))
		check_jal(d, xlen, &in);
	else if (cls == JUMP || cls == JALR)
		check_jalr(d, xlen, &in);
	else if (is_one_of(upper_names, d->mnem))
		check_upper(d, xlen, &in);
	else
		LCHECK(d, xlen, in.flags == 0 && in.rd == 0 && in.rs1 == 0 && in.imm == 0);
	return cls;
}

/* Copies @m without an .aq/.rl/.aqrl suffix to @out; returns @out. */
static const char *base_name(const char *m, char *out, size_t size)
{
	size_t n = strlen(m);

	snprintf(out, size, "%s", m);
	if (n > 5 && !strcmp(m + n - 5, ".aqrl"))
		out[n - 5] = '\0';
	else if (n > 3 && (!strcmp(m + n - 3, ".aq") || !strcmp(m + n - 3, ".rl")))
		out[n - 3] = '\0';
	return out;
}

/* Marks @m in @seen when it is in @list. */
static void mark_seen(const char *const *list, bool *seen, const char *m)
{
	char base[32];
	int i = find_name(list, base_name(m, base, sizeof(base)));

	if (i >= 0)
		seen[i] = true;
}

/* Checks that every name of @list was seen. */
static void check_all_seen(const char *const *list, const bool *seen, const char *path)
{
	for (int i = 0; list[i]; i++) {
		if (!seen[i])
			fprintf(stderr, "%s: no %s\n", path, list[i]);
		CHECK(seen[i]);
	}
}

/* Reads lines from @f into @line until one parses into @d; returns false at the end. */
static bool next_dis(FILE *f, char *line, int size, struct dis *d)
{
	while (fgets(line, size, f)) {
		line[strcspn(line, "\n")] = '\0';
		if (parse_dis(line, d))
			return true;
	}
	return false;
}

/* Opens @path (reporting failure); returns the stream or NULL. */
static FILE *open_listing(const char *path)
{
	FILE *f = fopen(path, "r");

	if (!f)
		perror(path);
	CHECK(f != NULL);
	return f;
}

/* Cross-checks every instruction of an all_rv*.S listing. */
static void test_program_listing(const char *path, unsigned int xlen)
{
	const char *const *extra = xlen == 64 ? rv64_names : rv32_names;
	bool seen_common[sizeof(common_names) / sizeof(common_names[0])] = { false };
	bool seen_extra[sizeof(rv64_names) / sizeof(rv64_names[0])] = { false };
	unsigned int classes[NCLASS] = { 0 }, lines = 0;
	char line[512];
	struct dis d;
	FILE *f = open_listing(path);

	if (!f)
		return;
	while (next_dis(f, line, sizeof(line), &d)) {
		if (is_one_of(data_names, d.mnem))
			continue;
		classes[check_dis(&d, xlen)]++;
		mark_seen(common_names, seen_common, d.mnem);
		mark_seen(extra, seen_extra, d.mnem);
		lines++;
	}
	fclose(f);
	check_all_seen(common_names, seen_common, path);
	check_all_seen(extra, seen_extra, path);
	for (int c = SEQ; c < INVALID; c++)
		CHECK(classes[c] > 0);
	CHECK(lines > 250);
	printf("%s: %u instructions (%u branch, %u jump, %u jalr, %u xret, %u ecall)\n", path,
	       lines, classes[BRANCH], classes[JUMP], classes[JALR], classes[XRET],
	       classes[ECALL]);
}

/*
 * Returns true for the parcels the spec reserves but objdump (binutils 2.40)
 * accepts: c.addi16sp with nzimm 0, and on RV32 c.slli/c.srli/c.srai with
 * shamt[5] set (custom-extension space there).
 */
static bool objdump_lenient_16(uint32_t raw, unsigned int xlen)
{
	if (raw == 0x6101)
		return true;
	if (xlen != 32 || !(raw & 0x1000))
		return false;
	return (raw & 0xe003) == 0x0002 || ((raw & 0xe003) == 0x8001 && !(raw & 0x0800));
}

/* Returns the next 16-bit parcel after @v whose low bits are not 11. */
static uint32_t next_c16(uint32_t v)
{
	return (v & 3) == 2 ? v + 2 : v + 1;
}

/* Cross-checks the listing of every 16-bit parcel: validity, classes and targets. */
static void test_c16_listing(const char *path, unsigned int xlen)
{
	unsigned int lines = 0, lenient = 0, accepted = 0, in_order = 0;
	uint32_t want_raw = 0;
	struct spoor_insn in;
	char line[512];
	struct dis d;
	FILE *f = open_listing(path);

	if (!f)
		return;
	while (next_dis(f, line, sizeof(line), &d)) {
		in_order += d.raw == want_raw && d.len == 2;
		want_raw = next_c16(want_raw);
		lines++;
		if (!objdump_lenient_16(d.raw, xlen)) {
			check_dis(&d, xlen);
			continue;
		}
		lenient++;
		accepted += !is_one_of(invalid_names, d.mnem);
		spoor_insn_decode(d.raw, xlen, &in);
		LCHECK(&d, xlen, in.cls == INVALID);
	}
	fclose(f);
	CHECK_EQ(lines, 49152);
	CHECK_EQ(in_order, 49152);
	CHECK_EQ(lenient, xlen == 32 ? 1 + 1024 + 2 * 256 : 1);
	printf("%s: %u parcels; of %u the spec reserves, objdump accepts %u\n", path, lines,
	       lenient, accepted);
}

/* Where objdump (binutils 2.40) and the spec part on 32-bit words. */
enum {
	AGREE,
	SPEC_RESERVES,		/* objdump accepts */
	SPEC_ALLOWS,		/* objdump rejects */
};

/*
 * Returns where @raw lies for @xlen: rounding modes 101/110 are reserved
 * (objdump prints "unknown"), and so are RV32 shifts by 32 or more; fence
 * and fence.i are valid whatever the fields the spec says to ignore, and
 * fcvt.d.s, fcvt.d.w and fcvt.d.wu whatever their rounding mode (objdump
 * wants those fields 0).
 */
static int objdump_differs_32(uint32_t raw, unsigned int xlen)
{
	unsigned int opc = raw & 0x7f, f3 = (raw >> 12) & 7, f7 = raw >> 25;
	unsigned int rs2 = (raw >> 20) & 31;
	bool fp = opc == 0x43 || opc == 0x47 || opc == 0x4b || opc == 0x4f || opc == 0x53;

	if (fp && (f3 == 5 || f3 == 6))
		return SPEC_RESERVES;
	if (xlen == 32 && opc == 0x13 && (f3 == 1 || f3 == 5) && (raw & (1u << 25)))
		return SPEC_RESERVES;
	if (opc == 0x0f && f3 <= 1)
		return SPEC_ALLOWS;
	if (opc == 0x53 && ((f7 == 0x21 && rs2 == 0) || (f7 == 0x69 && rs2 <= 1)))
		return SPEC_ALLOWS;
	return AGREE;
}

/* Compares verdicts over the listing of pseudo-random 32-bit words. */
static void test_r32_listing(const char *path, unsigned int xlen)
{
	unsigned int lines = 0, differ = 0, valid = 0;
	struct spoor_insn in;
	char line[512];
	struct dis d;
	FILE *f = open_listing(path);
	int where;

	if (!f)
		return;
	while (next_dis(f, line, sizeof(line), &d)) {
		lines++;
		where = objdump_differs_32(d.raw, xlen);
		if (where == AGREE) {
			valid += check_dis(&d, xlen) != INVALID;
			continue;
		}
		spoor_insn_decode(d.raw, xlen, &in);
		LCHECK(&d, xlen, in.cls == (where == SPEC_RESERVES ? INVALID : SEQ));
		differ += (in.cls == INVALID) != is_one_of(invalid_names, d.mnem);
	}
	fclose(f);
	CHECK(lines > 80000);
	CHECK(valid > 20000);
	printf("%s: %u words, %u valid, %u where objdump departs from the spec\n", path, lines,
	       valid, differ);
}

/* ---- robustness ---- */

/* Returns true when spoor_insn_decode() is self-consistent on @raw for @xlen. */
static bool consistent(uint32_t raw, unsigned int xlen)
{
	unsigned int len = low_bits_len(raw);
	struct spoor_insn in;
	int ret = spoor_insn_decode(raw, xlen, &in);

	if (in.len != len || in.raw != (len == 2 ? raw & 0xffff : raw))
		return false;
	if (ret < 0)
		return ret == SPOOR_E_BAD_INSN && in.cls == INVALID && !in.flags && !in.rd &&
		       !in.rs1 && !in.imm;
	if (ret != (int)len || len == 0 || in.cls >= INVALID || in.rd > 31 || in.rs1 > 31)
		return false;
	if (in.cls == BRANCH)
		return in.imm % 2 == 0 && in.imm >= -4096 && in.imm <= 4094;
	if (in.cls == JUMP && in.rs1 == 0 && (raw & 0x7f) != 0x67)
		return in.imm % 2 == 0 && in.imm >= -(1 << 20) && in.imm < (1 << 20);
	return true;
}

/* Feeds random words and every 16-bit value to both xlens. */
static void test_random(void)
{
	unsigned int bad = 0;

	for (int i = 0; i < 1000000; i++) {
		uint32_t raw = (uint32_t)rnd();

		bad += !consistent(raw, 32) + !consistent(raw, 64);
	}
	for (uint32_t raw = 0; raw <= 0xffff; raw++)
		bad += !consistent(raw, 32) + !consistent(raw, 64);
	CHECK_EQ(bad, 0);
}

int main(int argc, char **argv)
{
	check_args(argc, argv,
		   "Tests for instruction classification: hand-written encodings, objdump listings.");
	test_hand_written();
	test_class_names();
	test_program_listing(INSN_DIS_RV32, 32);
	test_program_listing(INSN_DIS_RV64, 64);
	test_c16_listing(INSN_C16_RV32, 32);
	test_c16_listing(INSN_C16_RV64, 64);
	test_r32_listing(INSN_R32_RV32, 32);
	test_r32_listing(INSN_R32_RV64, 64);
	test_random();
	return check_done();
}
