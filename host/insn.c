// SPDX-License-Identifier: MIT
/*
 * RISC-V instruction classification: length, validity for RV32/RV64
 * IMAFDC + Zicsr + Zifencei (plus the privileged xret, wfi and sfence.vma
 * instructions), and the control-flow facts the E-Trace decoder needs.
 *
 * One switch on the major opcode (32-bit) or on quadrant and funct3
 * (16-bit), then a few field checks: no tables.  Validity follows the
 * unprivileged spec: HINT encodings are valid, reserved and custom (NSE)
 * ones are not, and the fields the spec says implementations ignore (fence
 * rd/rs1/fm, fence.i imm/rs1/rd) are not checked.
 */
#include <stdbool.h>

#include "spoor/error.h"
#include "spoor/insn.h"

/* 32-bit major opcodes (bits 6:0). */
enum {
	OPC_LOAD = 0x03,
	OPC_LOAD_FP = 0x07,
	OPC_MISC_MEM = 0x0f,
	OPC_OP_IMM = 0x13,
	OPC_AUIPC = 0x17,
	OPC_OP_IMM_32 = 0x1b,
	OPC_STORE = 0x23,
	OPC_STORE_FP = 0x27,
	OPC_AMO = 0x2f,
	OPC_OP = 0x33,
	OPC_LUI = 0x37,
	OPC_OP_32 = 0x3b,
	OPC_MADD = 0x43,
	OPC_MSUB = 0x47,
	OPC_NMSUB = 0x4b,
	OPC_NMADD = 0x4f,
	OPC_OP_FP = 0x53,
	OPC_BRANCH = 0x63,
	OPC_JALR = 0x67,
	OPC_JAL = 0x6f,
	OPC_SYSTEM = 0x73,
};

/* Whole SYSTEM instructions without operands. */
enum {
	INSN_ECALL = 0x00000073,
	INSN_EBREAK = 0x00100073,
	INSN_URET = 0x00200073,
	INSN_SRET = 0x10200073,
	INSN_MRET = 0x30200073,
	INSN_DRET = 0x7b200073,
	INSN_WFI = 0x10500073,
};

/* Returns the @n bits of @raw starting at bit @lo. */
static inline uint32_t bits(uint32_t raw, unsigned int lo, unsigned int n)
{
	return (raw >> lo) & ((1u << n) - 1);
}

/* Returns the low @n bits of @v sign-extended to 64 bits. */
static inline int64_t sext(uint32_t v, unsigned int n)
{
	int64_t sign = (int64_t)1 << (n - 1);

	return ((int64_t)(v & ((1ull << n) - 1)) ^ sign) - sign;
}

/* Returns the rd field (bits 11:7) of @raw. */
static inline unsigned int rd_of(uint32_t raw)
{
	return bits(raw, 7, 5);
}

/* Returns the rs1 field (bits 19:15) of @raw. */
static inline unsigned int rs1_of(uint32_t raw)
{
	return bits(raw, 15, 5);
}

/* Returns the rs2 field (bits 24:20) of @raw. */
static inline unsigned int rs2_of(uint32_t raw)
{
	return bits(raw, 20, 5);
}

/* Returns the funct3 field (bits 14:12) of @raw. */
static inline unsigned int funct3_of(uint32_t raw)
{
	return bits(raw, 12, 3);
}

/* Returns the funct7 field (bits 31:25) of @raw. */
static inline unsigned int funct7_of(uint32_t raw)
{
	return raw >> 25;
}

/* Returns the B-type (conditional branch) byte offset of @raw. */
static int64_t imm_b(uint32_t raw)
{
	return sext(bits(raw, 31, 1) << 12 | bits(raw, 7, 1) << 11 |
		    bits(raw, 25, 6) << 5 | bits(raw, 8, 4) << 1, 13);
}

/* Returns the J-type (jal) byte offset of @raw. */
static int64_t imm_j(uint32_t raw)
{
	return sext(bits(raw, 31, 1) << 20 | bits(raw, 12, 8) << 12 |
		    bits(raw, 20, 1) << 11 | bits(raw, 21, 10) << 1, 21);
}

/* Returns the CJ-format (c.j, c.jal) byte offset of @raw. */
static int64_t imm_cj(uint32_t raw)
{
	return sext(bits(raw, 12, 1) << 11 | bits(raw, 11, 1) << 4 |
		    bits(raw, 9, 2) << 8 | bits(raw, 8, 1) << 10 |
		    bits(raw, 7, 1) << 6 | bits(raw, 6, 1) << 7 |
		    bits(raw, 3, 3) << 1 | bits(raw, 2, 1) << 5, 12);
}

/* Returns the CB-format (c.beqz, c.bnez) byte offset of @raw. */
static int64_t imm_cb(uint32_t raw)
{
	return sext(bits(raw, 12, 1) << 8 | bits(raw, 10, 2) << 3 |
		    bits(raw, 5, 2) << 6 | bits(raw, 3, 2) << 1 |
		    bits(raw, 2, 1) << 5, 9);
}

/* Returns true when register @r is a link register (x1 or x5). */
static inline bool is_link(unsigned int r)
{
	return r == 1 || r == 5;
}

/* Returns the CALL/RETURN flags of a jump writing @rd and reading @rs1 (0 for jal). */
static uint8_t ras_flags(unsigned int rd, unsigned int rs1)
{
	if (is_link(rd) && is_link(rs1))
		return rd == rs1 ? SPOOR_INSN_CALL : SPOOR_INSN_CALL | SPOOR_INSN_RETURN;
	if (is_link(rd))
		return SPOOR_INSN_CALL;
	return is_link(rs1) ? SPOOR_INSN_RETURN : 0;
}

/* Returns true after recording a conditional branch on @rs1 by @off bytes. */
static bool set_branch(struct spoor_insn *in, unsigned int rs1, int64_t off)
{
	in->cls = SPOOR_INSN_BRANCH;
	in->rs1 = rs1;
	in->imm = off;
	return true;
}

/* Returns true after recording a pc-relative jump by @off bytes linking to @rd. */
static bool set_jal(struct spoor_insn *in, unsigned int rd, int64_t off)
{
	in->cls = SPOOR_INSN_JUMP;
	in->flags = ras_flags(rd, 0);
	in->rd = rd;
	in->imm = off;
	return true;
}

/* Returns true after recording a jump to @rs1 + @off linking to @rd. */
static bool set_jalr(struct spoor_insn *in, unsigned int rd, unsigned int rs1, int64_t off)
{
	/* With rs1 = x0 the target is @off itself: inferable. */
	in->cls = rs1 ? SPOOR_INSN_JALR : SPOOR_INSN_JUMP;
	in->flags = ras_flags(rd, rs1);
	in->rd = rd;
	in->rs1 = rs1;
	in->imm = off;
	return true;
}

/* Returns true after recording that @rd gets the upper immediate @value. */
static bool set_upper(struct spoor_insn *in, unsigned int rd, int64_t value)
{
	in->flags = SPOOR_INSN_UPPER;
	in->rd = rd;
	in->imm = value;
	return true;
}

/* Returns true after setting the class of @in to @cls. */
static bool set_class(struct spoor_insn *in, enum spoor_insn_class cls)
{
	in->cls = cls;
	return true;
}

/* Returns true when @rm is a valid static or dynamic rounding mode (not 5 or 6). */
static inline bool rm_ok(unsigned int rm)
{
	return rm != 5 && rm != 6;
}

/* Returns true when the OP-FP instruction @raw is a valid F or D instruction. */
static bool op_fp_valid(uint32_t raw, bool rv64)
{
	unsigned int fmt = funct7_of(raw) & 3, rs2 = rs2_of(raw), f3 = funct3_of(raw);

	if (fmt > 1)		/* H and Q */
		return false;
	switch (funct7_of(raw) >> 2) {
	case 0x00:		/* fadd */
	case 0x01:		/* fsub */
	case 0x02:		/* fmul */
	case 0x03:		/* fdiv */
		return rm_ok(f3);
	case 0x0b:		/* fsqrt */
		return rs2 == 0 && rm_ok(f3);
	case 0x04:		/* fsgnj, fsgnjn, fsgnjx */
		return f3 <= 2;
	case 0x05:		/* fmin, fmax */
		return f3 <= 1;
	case 0x08:		/* fcvt.s.d (fmt S, rs2 D), fcvt.d.s (fmt D, rs2 S) */
		return rs2 == (fmt ^ 1) && rm_ok(f3);
	case 0x14:		/* fle, flt, feq */
		return f3 <= 2;
	case 0x18:		/* fcvt.{w,wu,l,lu}.fmt */
	case 0x1a:		/* fcvt.fmt.{w,wu,l,lu} */
		return (rs2 <= 1 || (rv64 && rs2 <= 3)) && rm_ok(f3);
	case 0x1c:		/* fmv.x.w, fmv.x.d (RV64), fclass */
		return rs2 == 0 && (f3 == 1 || (f3 == 0 && (fmt == 0 || rv64)));
	case 0x1e:		/* fmv.w.x, fmv.d.x (RV64) */
		return rs2 == 0 && f3 == 0 && (fmt == 0 || rv64);
	default:
		return false;
	}
}

/* Returns true when the AMO-opcode instruction @raw is a valid A instruction. */
static bool amo_valid(uint32_t raw, bool rv64)
{
	/* amoadd, amoswap, lr, sc, amoxor, amoor, amoand, amomin[u], amomax[u] */
	const uint32_t funct5_ok = 0x1111111f;
	unsigned int funct5 = raw >> 27;

	if (funct3_of(raw) != 2 && !(rv64 && funct3_of(raw) == 3))
		return false;
	if (funct5 == 0x02 && rs2_of(raw))	/* lr */
		return false;
	return funct5_ok >> funct5 & 1;
}

/* Returns true after classifying the SYSTEM instruction @in->raw, false if invalid. */
static bool decode_system(struct spoor_insn *in)
{
	uint32_t raw = in->raw;

	switch (funct3_of(raw)) {
	case 0:
		break;
	case 4:			/* hypervisor loads and stores */
		return false;
	default:		/* csrrw, csrrs, csrrc, csrrwi, csrrsi, csrrci */
		return true;
	}
	switch (raw) {
	case INSN_ECALL:
	case INSN_EBREAK:
		return set_class(in, SPOOR_INSN_ECALL);
	case INSN_URET:
	case INSN_SRET:
	case INSN_MRET:
	case INSN_DRET:
		return set_class(in, SPOOR_INSN_XRET);
	case INSN_WFI:
		return true;
	default:		/* sfence.vma rs1, rs2 */
		return (raw & 0xfe007fff) == 0x12000073;
	}
}

/* Returns true when the OP-IMM instruction @raw is valid (shift amounts fit xlen). */
static bool op_imm_valid(uint32_t raw, bool rv64)
{
	switch (funct3_of(raw)) {
	case 1:			/* slli */
		return (raw >> (rv64 ? 26 : 25)) == 0;
	case 5:			/* srli, srai */
		return ((raw >> (rv64 ? 26 : 25)) & ~(rv64 ? 0x10u : 0x20u)) == 0;
	default:
		return true;
	}
}

/* Returns true when the OP-IMM-32 (RV64) instruction @raw is valid. */
static bool op_imm_32_valid(uint32_t raw)
{
	switch (funct3_of(raw)) {
	case 0:			/* addiw */
		return true;
	case 1:			/* slliw */
		return funct7_of(raw) == 0;
	case 5:			/* srliw, sraiw */
		return (funct7_of(raw) & ~0x20u) == 0;
	default:
		return false;
	}
}

/* Returns true when the OP (register-register, I and M) instruction @raw is valid. */
static bool op_valid(uint32_t raw)
{
	switch (funct7_of(raw)) {
	case 0x00:		/* add .. and */
	case 0x01:		/* mul .. remu */
		return true;
	case 0x20:		/* sub, sra */
		return funct3_of(raw) == 0 || funct3_of(raw) == 5;
	default:
		return false;
	}
}

/* Returns true when the OP-32 (RV64) instruction @raw is valid. */
static bool op_32_valid(uint32_t raw)
{
	switch (funct7_of(raw)) {
	case 0x00:		/* addw, sllw, srlw */
		return 0x23 >> funct3_of(raw) & 1;
	case 0x01:		/* mulw, divw, divuw, remw, remuw */
		return 0xf1 >> funct3_of(raw) & 1;
	case 0x20:		/* subw, sraw */
		return 0x21 >> funct3_of(raw) & 1;
	default:
		return false;
	}
}

/* Returns true after classifying the 32-bit instruction @in->raw, false if invalid. */
static bool decode_32(struct spoor_insn *in, bool rv64)
{
	uint32_t raw = in->raw;
	unsigned int f3 = funct3_of(raw);

	switch (raw & 0x7f) {
	case OPC_LUI:
	case OPC_AUIPC:
		return set_upper(in, rd_of(raw), sext(raw & 0xfffff000u, 32));
	case OPC_JAL:
		return set_jal(in, rd_of(raw), imm_j(raw));
	case OPC_JALR:
		return f3 == 0 && set_jalr(in, rd_of(raw), rs1_of(raw), sext(raw >> 20, 12));
	case OPC_BRANCH:
		return f3 != 2 && f3 != 3 && set_branch(in, rs1_of(raw), imm_b(raw));
	case OPC_LOAD:		/* lb lh lw (ld) lbu lhu (lwu) */
		return (rv64 ? 0x7f : 0x37) >> f3 & 1;
	case OPC_STORE:		/* sb sh sw (sd) */
		return (rv64 ? 0x0f : 0x07) >> f3 & 1;
	case OPC_OP_IMM:
		return op_imm_valid(raw, rv64);
	case OPC_OP_IMM_32:
		return rv64 && op_imm_32_valid(raw);
	case OPC_OP:
		return op_valid(raw);
	case OPC_OP_32:
		return rv64 && op_32_valid(raw);
	case OPC_MISC_MEM:	/* fence, fence.tso, fence.i */
		return f3 <= 1;
	case OPC_SYSTEM:
		return decode_system(in);
	case OPC_AMO:
		return amo_valid(raw, rv64);
	case OPC_LOAD_FP:	/* flw, fld */
	case OPC_STORE_FP:	/* fsw, fsd */
		return f3 == 2 || f3 == 3;
	case OPC_MADD:
	case OPC_MSUB:
	case OPC_NMSUB:
	case OPC_NMADD:		/* fmt S or D */
		return bits(raw, 25, 2) <= 1 && rm_ok(f3);
	case OPC_OP_FP:
		return op_fp_valid(raw, rv64);
	default:
		return false;
	}
}

/* Returns true after classifying quadrant 1 funct3 100 (c.srli .. c.addw), false if reserved. */
static bool c_alu_valid(uint32_t raw, bool rv64)
{
	bool bit12 = raw & 0x1000;

	switch (bits(raw, 10, 2)) {
	case 0:			/* c.srli */
	case 1:			/* c.srai: shamt[5] must be 0 on RV32 */
		return rv64 || !bit12;
	case 2:			/* c.andi */
		return true;
	default:		/* c.sub c.xor c.or c.and; RV64 c.subw c.addw */
		return !bit12 || (rv64 && !(raw & 0x40));
	}
}

/* Returns true after classifying quadrant 2 funct3 100 (c.jr .. c.add), false if reserved. */
static bool decode_c_jr(struct spoor_insn *in)
{
	unsigned int rs1 = rd_of(in->raw), rs2 = bits(in->raw, 2, 5);

	if (rs2)		/* c.mv, c.add */
		return true;
	if (!(in->raw & 0x1000))	/* c.jr; rs1 = x0 reserved */
		return rs1 && set_jalr(in, 0, rs1, 0);
	if (!rs1)
		return set_class(in, SPOOR_INSN_ECALL);	/* c.ebreak */
	return set_jalr(in, 1, rs1, 0);			/* c.jalr */
}

/* Returns true after classifying the 16-bit instruction @in->raw, false if invalid. */
static bool decode_16(struct spoor_insn *in, bool rv64)
{
	uint32_t raw = in->raw;
	unsigned int rd = rd_of(raw);
	bool nz6 = (raw & 0x107c) != 0;	/* CI immediate (bits 12, 6:2) nonzero */

	/* Octal: quadrant (bits 1:0), then funct3 (bits 15:13). */
	switch ((raw & 3) << 3 | raw >> 13) {
	case 000:		/* c.addi4spn; nzuimm = 0 reserved (and 0x0000 illegal) */
		return (raw & 0x1fe0) != 0;
	case 004:		/* reserved */
		return false;
	case 001:		/* c.fld */
	case 002:		/* c.lw */
	case 003:		/* RV32 c.flw, RV64 c.ld */
	case 005:		/* c.fsd */
	case 006:		/* c.sw */
	case 007:		/* RV32 c.fsw, RV64 c.sd */
		return true;
	case 010:		/* c.addi, c.nop */
	case 012:		/* c.li */
		return true;
	case 011:		/* RV32 c.jal; RV64 c.addiw (rd = x0 reserved) */
		return rv64 ? rd != 0 : set_jal(in, 1, imm_cj(raw));
	case 013:		/* c.addi16sp (rd = x2), c.lui; nzimm = 0 reserved */
		if (rd == 2 || !nz6)
			return nz6;
		return set_upper(in, rd, sext(bits(raw, 12, 1) << 17 | bits(raw, 2, 5) << 12, 18));
	case 014:
		return c_alu_valid(raw, rv64);
	case 015:		/* c.j */
		return set_jal(in, 0, imm_cj(raw));
	case 016:		/* c.beqz */
	case 017:		/* c.bnez */
		return set_branch(in, 8 + bits(raw, 7, 3), imm_cb(raw));
	case 020:		/* c.slli: shamt[5] must be 0 on RV32 */
		return rv64 || !(raw & 0x1000);
	case 021:		/* c.fldsp */
		return true;
	case 022:		/* c.lwsp; rd = x0 reserved */
		return rd != 0;
	case 023:		/* RV32 c.flwsp; RV64 c.ldsp (rd = x0 reserved) */
		return !rv64 || rd != 0;
	case 024:
		return decode_c_jr(in);
	default:		/* c.fsdsp, c.swsp, RV32 c.fswsp, RV64 c.sdsp */
		return true;
	}
}

/* Returns the length of @raw (2 or 4) after classifying it into @out, or a negative error. */
int spoor_insn_decode(uint32_t raw, unsigned xlen, struct spoor_insn *out)
{
	bool ok;

	*out = (struct spoor_insn){ .raw = raw, .cls = SPOOR_INSN_SEQ };
	if ((raw & 3) != 3) {
		out->raw = raw & 0xffff;
		out->len = 2;
	} else if ((raw & 0x1c) != 0x1c) {
		out->len = 4;
	}
	if (xlen != 32 && xlen != 64) {
		out->cls = SPOOR_INSN_INVALID;
		return SPOOR_E_INVAL;
	}
	if (out->len == 2)
		ok = decode_16(out, xlen == 64);
	else
		ok = out->len == 4 && decode_32(out, xlen == 64);
	if (ok)
		return out->len;
	*out = (struct spoor_insn){ .raw = out->raw, .len = out->len, .cls = SPOOR_INSN_INVALID };
	return SPOOR_E_BAD_INSN;
}

/* Returns the short lowercase name of @cls ("unknown" when out of range). */
const char *spoor_insn_class_name(enum spoor_insn_class cls)
{
	switch (cls) {
	case SPOOR_INSN_SEQ:
		return "seq";
	case SPOOR_INSN_BRANCH:
		return "branch";
	case SPOOR_INSN_JUMP:
		return "jump";
	case SPOOR_INSN_JALR:
		return "jalr";
	case SPOOR_INSN_XRET:
		return "xret";
	case SPOOR_INSN_ECALL:
		return "ecall";
	case SPOOR_INSN_INVALID:
		return "invalid";
	}
	return "unknown";
}
