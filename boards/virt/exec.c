// SPDX-License-Identifier: MIT
/*
 * Instruction handlers and the decoder of the virtual board's ISS.
 *
 * RV32 registers are kept sign-extended to 64 bits, so that most handlers
 * serve both XLENs: an RV32 add is an RV64 addw, comparisons work on the
 * extended values.  Only what forms addresses (loads, stores, AMOs, jalr)
 * or links (jal, jalr, auipc) and mulh* have per-XLEN versions.  Every
 * handler sets s->pc and returns an enum exec_result.
 */
#include <stdint.h>
#include <string.h>

#include "iss_priv.h"

#define A32	0xffffffffull
#define A64	(~0ull)

/* Immediate of handler @d as a 64-bit value. */
#define IMM	((uint64_t)(int64_t)d->imm)

/* Defines handler @name setting rd to @expr of a = rs1, b = rs2. */
#define OP_RR(name, expr) \
static int name(struct spoor_iss *s, const struct dinsn *d) \
{ \
	uint64_t a = s->x[d->rs1], b = s->x[d->rs2]; \
	s->x[d->rd] = (expr); \
	s->pc = d->pc + d->len; \
	return R_SEQ; \
}

/* Defines handler @name setting rd to @expr of a = rs1, b = immediate. */
#define OP_RI(name, expr) \
static int name(struct spoor_iss *s, const struct dinsn *d) \
{ \
	uint64_t a = s->x[d->rs1], b = IMM; \
	s->x[d->rd] = (expr); \
	s->pc = d->pc + d->len; \
	return R_SEQ; \
}

#define SRA64(a, sh)	((uint64_t)((int64_t)(a) >> (sh)))
#define SRA32(a, sh)	sext32((uint64_t)((int32_t)(uint32_t)(a) >> (sh)))
#define SLT(a, b)	((uint64_t)((int64_t)(a) < (int64_t)(b)))

OP_RR(op_add, a + b)
OP_RR(op_sub, a - b)
OP_RR(op_sll, a << (b & 63))
OP_RR(op_slt, SLT(a, b))
OP_RR(op_sltu, (uint64_t)(a < b))
OP_RR(op_xor, a ^ b)
OP_RR(op_srl, a >> (b & 63))
OP_RR(op_sra, SRA64(a, b & 63))
OP_RR(op_or, a | b)
OP_RR(op_and, a & b)
OP_RR(op_addw, sext32(a + b))
OP_RR(op_subw, sext32(a - b))
OP_RR(op_sllw, sext32(a << (b & 31)))
OP_RR(op_srlw, sext32((uint32_t)a >> (b & 31)))
OP_RR(op_sraw, SRA32(a, b & 31))
OP_RI(op_addi, a + b)
OP_RI(op_slti, SLT(a, b))
OP_RI(op_sltiu, (uint64_t)(a < b))
OP_RI(op_xori, a ^ b)
OP_RI(op_ori, a | b)
OP_RI(op_andi, a & b)
OP_RI(op_slli, a << b)
OP_RI(op_srli, a >> b)
OP_RI(op_srai, SRA64(a, b))
OP_RI(op_addiw, sext32(a + b))
OP_RI(op_slliw, sext32(a << b))
OP_RI(op_srliw, sext32((uint32_t)a >> b))
OP_RI(op_sraiw, SRA32(a, b))

/* lui; returns R_SEQ. */
static int op_lui(struct spoor_iss *s, const struct dinsn *d)
{
	s->x[d->rd] = IMM;
	s->pc = d->pc + d->len;
	return R_SEQ;
}

/* Signed 64-bit division as RISC-V defines it; returns the quotient. */
static uint64_t div64(uint64_t a, uint64_t b)
{
	if (!b)
		return ~0ull;
	if (a == 1ull << 63 && b == ~0ull)
		return a;
	return (uint64_t)((int64_t)a / (int64_t)b);
}

/* Signed 64-bit remainder as RISC-V defines it; returns the remainder. */
static uint64_t rem64(uint64_t a, uint64_t b)
{
	if (!b)
		return a;
	if (a == 1ull << 63 && b == ~0ull)
		return 0;
	return (uint64_t)((int64_t)a % (int64_t)b);
}

/* Signed 32-bit division, sign-extended; returns the quotient. */
static uint64_t div32(uint64_t a, uint64_t b)
{
	int32_t x = (int32_t)(uint32_t)a, y = (int32_t)(uint32_t)b;

	if (!y)
		return ~0ull;
	if (x == INT32_MIN && y == -1)
		return sext32((uint32_t)x);
	return sext32((uint32_t)(x / y));
}

/* Signed 32-bit remainder, sign-extended; returns the remainder. */
static uint64_t rem32(uint64_t a, uint64_t b)
{
	int32_t x = (int32_t)(uint32_t)a, y = (int32_t)(uint32_t)b;

	if (!y)
		return sext32((uint32_t)x);
	if (x == INT32_MIN && y == -1)
		return 0;
	return sext32((uint32_t)(x % y));
}

/* Unsigned 32-bit division, sign-extended; returns the quotient. */
static uint64_t divu32(uint64_t a, uint64_t b)
{
	uint32_t x = (uint32_t)a, y = (uint32_t)b;

	return y ? sext32(x / y) : ~0ull;
}

/* Unsigned 32-bit remainder, sign-extended; returns the remainder. */
static uint64_t remu32(uint64_t a, uint64_t b)
{
	uint32_t x = (uint32_t)a, y = (uint32_t)b;

	return y ? sext32(x % y) : sext32(x);
}

OP_RR(op_mul, a * b)
OP_RR(op_mulh64, (uint64_t)(((__int128)(int64_t)a * (__int128)(int64_t)b) >> 64))
OP_RR(op_mulhsu64, (uint64_t)(((__int128)(int64_t)a * (__int128)b) >> 64))
OP_RR(op_mulhu64, (uint64_t)(((unsigned __int128)a * b) >> 64))
OP_RR(op_div, div64(a, b))
OP_RR(op_divu, b ? a / b : ~0ull)
OP_RR(op_rem, rem64(a, b))
OP_RR(op_remu, b ? a % b : a)
OP_RR(op_mulw, sext32(a * b))
OP_RR(op_mulh32, sext32((uint64_t)(((int64_t)(int32_t)a * (int64_t)(int32_t)b) >> 32)))
OP_RR(op_mulhsu32, sext32((uint64_t)(((int64_t)(int32_t)a * (int64_t)(uint32_t)b) >> 32)))
OP_RR(op_mulhu32, sext32(((uint64_t)(uint32_t)a * (uint32_t)b) >> 32))
OP_RR(op_divw, div32(a, b))
OP_RR(op_divuw, divu32(a, b))
OP_RR(op_remw, rem32(a, b))
OP_RR(op_remuw, remu32(a, b))

/* auipc, RV64; returns R_SEQ. */
static int op_auipc64(struct spoor_iss *s, const struct dinsn *d)
{
	s->x[d->rd] = d->pc + IMM;
	s->pc = d->pc + d->len;
	return R_SEQ;
}

/* auipc, RV32; returns R_SEQ. */
static int op_auipc32(struct spoor_iss *s, const struct dinsn *d)
{
	s->x[d->rd] = sext32(d->pc + IMM);
	s->pc = d->pc + d->len;
	return R_SEQ;
}

/* jal, RV64; returns R_JUMP. */
static int op_jal64(struct spoor_iss *s, const struct dinsn *d)
{
	s->x[d->rd] = d->pc + d->len;
	s->pc = d->pc + IMM;
	return R_JUMP;
}

/* jal, RV32; returns R_JUMP. */
static int op_jal32(struct spoor_iss *s, const struct dinsn *d)
{
	s->x[d->rd] = sext32(d->pc + d->len);
	s->pc = (uint32_t)(d->pc + IMM);
	return R_JUMP;
}

/* jalr, RV64; returns R_IJUMP. */
static int op_jalr64(struct spoor_iss *s, const struct dinsn *d)
{
	uint64_t t = (s->x[d->rs1] + IMM) & ~1ull;

	s->x[d->rd] = d->pc + d->len;
	s->pc = t;
	return R_IJUMP;
}

/* jalr, RV32; returns R_IJUMP. */
static int op_jalr32(struct spoor_iss *s, const struct dinsn *d)
{
	uint64_t t = (uint32_t)(s->x[d->rs1] + IMM) & ~1ull;

	s->x[d->rd] = sext32(d->pc + d->len);
	s->pc = t;
	return R_IJUMP;
}

/* Defines branch handler @name taken when @cond of a = rs1, b = rs2. */
#define OP_BRANCH(name, cond) \
static int name(struct spoor_iss *s, const struct dinsn *d) \
{ \
	uint64_t a = s->x[d->rs1], b = s->x[d->rs2]; \
	if (cond) { \
		s->pc = d->pc + IMM; \
		return R_TAKEN; \
	} \
	s->pc = d->pc + d->len; \
	return R_NOT_TAKEN; \
}

OP_BRANCH(op_beq, a == b)
OP_BRANCH(op_bne, a != b)
OP_BRANCH(op_blt, (int64_t)a < (int64_t)b)
OP_BRANCH(op_bge, (int64_t)a >= (int64_t)b)
OP_BRANCH(op_bltu, a < b)
OP_BRANCH(op_bgeu, a >= b)

/* Slow load path (devices, faults); returns 0, or 1 with the trap taken. */
static int load_slow(struct spoor_iss *s, const struct dinsn *d, uint64_t addr,
		     unsigned size, uint64_t *v)
{
	if ((addr & (size - 1)) && s->misaligned_traps) {
		iss_exception(s, d->pc, EXC_LOAD_MISALIGNED, addr);
		return 1;
	}
	if (iss_bus_read(s, addr, size, v)) {
		iss_exception(s, d->pc, EXC_LOAD_ACCESS, addr);
		return 1;
	}
	return 0;
}

/* Slow store path (devices, faults); returns 0, or 1 with the trap taken. */
static int store_slow(struct spoor_iss *s, const struct dinsn *d, uint64_t addr,
		      unsigned size, uint64_t v)
{
	if ((addr & (size - 1)) && s->misaligned_traps) {
		iss_exception(s, d->pc, EXC_STORE_MISALIGNED, addr);
		return 1;
	}
	if (iss_bus_write(s, addr, size, v)) {
		iss_exception(s, d->pc, EXC_STORE_ACCESS, addr);
		return 1;
	}
	return 0;
}

/* Defines load handler @name of a @type with address mask @amask. */
#define OP_LOAD(name, type, amask) \
static int name(struct spoor_iss *s, const struct dinsn *d) \
{ \
	uint64_t addr = (s->x[d->rs1] + IMM) & (amask); \
	uint64_t off = addr - s->ram_base; \
	type v; \
	if (likely(off <= s->ram_size - sizeof(type)) && \
	    likely(!((addr & (sizeof(type) - 1)) && s->misaligned_traps))) { \
		memcpy(&v, s->ram + off, sizeof(type)); \
	} else { \
		uint64_t w; \
		if (load_slow(s, d, addr, sizeof(type), &w)) \
			return R_TRAP; \
		v = (type)w; \
	} \
	s->x[d->rd] = (uint64_t)(int64_t)v; \
	s->pc = d->pc + d->len; \
	return R_SEQ; \
}

/* Defines store handler @name of a @type with address mask @amask. */
#define OP_STORE(name, type, amask) \
static int name(struct spoor_iss *s, const struct dinsn *d) \
{ \
	uint64_t addr = (s->x[d->rs1] + IMM) & (amask); \
	uint64_t off = addr - s->ram_base; \
	type v = (type)s->x[d->rs2]; \
	if (likely(off <= s->ram_size - sizeof(type)) && \
	    likely(!((addr & (sizeof(type) - 1)) && s->misaligned_traps))) { \
		memcpy(s->ram + off, &v, sizeof(type)); \
		if (unlikely(s->code_pages[off >> CODE_PAGE_SHIFT] | \
			     s->code_pages[(off + sizeof(type) - 1) >> CODE_PAGE_SHIFT])) \
			iss_code_written(s, addr, sizeof(type)); \
	} else if (store_slow(s, d, addr, sizeof(type), v)) { \
		return R_TRAP; \
	} \
	s->pc = d->pc + d->len; \
	return R_SEQ; \
}

OP_LOAD(op_lb32, int8_t, A32)
OP_LOAD(op_lh32, int16_t, A32)
OP_LOAD(op_lw32, int32_t, A32)
OP_LOAD(op_lbu32, uint8_t, A32)
OP_LOAD(op_lhu32, uint16_t, A32)
OP_LOAD(op_lb64, int8_t, A64)
OP_LOAD(op_lh64, int16_t, A64)
OP_LOAD(op_lw64, int32_t, A64)
OP_LOAD(op_ld64, uint64_t, A64)
OP_LOAD(op_lbu64, uint8_t, A64)
OP_LOAD(op_lhu64, uint16_t, A64)
OP_LOAD(op_lwu64, uint32_t, A64)
OP_STORE(op_sb32, uint8_t, A32)
OP_STORE(op_sh32, uint16_t, A32)
OP_STORE(op_sw32, uint32_t, A32)
OP_STORE(op_sb64, uint8_t, A64)
OP_STORE(op_sh64, uint16_t, A64)
OP_STORE(op_sw64, uint32_t, A64)
OP_STORE(op_sd64, uint64_t, A64)

/*
 * Checks an LR/SC/AMO address (@load: LR) and finds its RAM bytes; returns
 * a pointer to them, or NULL with the trap taken (misaligned, not RAM).
 */
static uint8_t *amo_ptr(struct spoor_iss *s, const struct dinsn *d, uint64_t addr,
			unsigned size, int load)
{
	uint64_t off = addr - s->ram_base;

	if (addr & (size - 1)) {
		iss_exception(s, d->pc, load ? EXC_LOAD_MISALIGNED : EXC_STORE_MISALIGNED, addr);
		return NULL;
	}
	if (off > s->ram_size - size) {
		iss_exception(s, d->pc, load ? EXC_LOAD_ACCESS : EXC_STORE_ACCESS, addr);
		return NULL;
	}
	return s->ram + off;
}

/* Defines LR handler @name of a @type (signed) with address mask @amask. */
#define OP_LR(name, type, amask) \
static int name(struct spoor_iss *s, const struct dinsn *d) \
{ \
	uint64_t addr = s->x[d->rs1] & (amask); \
	uint8_t *p = amo_ptr(s, d, addr, sizeof(type), 1); \
	type v; \
	if (!p) \
		return R_TRAP; \
	memcpy(&v, p, sizeof(type)); \
	s->x[d->rd] = (uint64_t)(int64_t)v; \
	s->res_addr = addr; \
	s->res_valid = 1; \
	s->pc = d->pc + d->len; \
	return R_SEQ; \
}

/* Defines SC handler @name of a @type with address mask @amask. */
#define OP_SC(name, type, amask) \
static int name(struct spoor_iss *s, const struct dinsn *d) \
{ \
	uint64_t addr = s->x[d->rs1] & (amask); \
	uint8_t *p = amo_ptr(s, d, addr, sizeof(type), 0); \
	type v = (type)s->x[d->rs2]; \
	if (!p) \
		return R_TRAP; \
	if (s->res_valid && s->res_addr == addr) { \
		memcpy(p, &v, sizeof(type)); \
		if (unlikely(s->code_pages[(addr - s->ram_base) >> CODE_PAGE_SHIFT])) \
			iss_code_written(s, addr, sizeof(type)); \
		s->x[d->rd] = 0; \
	} else { \
		s->x[d->rd] = 1; \
	} \
	s->res_valid = 0; \
	s->pc = d->pc + d->len; \
	return R_SEQ; \
}

/*
 * Defines AMO handler @name: unsigned @utype, signed @stype, address mask
 * @amask, new memory value @expr of a = old value, b = rs2.
 */
#define OP_AMO(name, utype, stype, amask, expr) \
static int name(struct spoor_iss *s, const struct dinsn *d) \
{ \
	uint64_t addr = s->x[d->rs1] & (amask); \
	uint8_t *p = amo_ptr(s, d, addr, sizeof(utype), 0); \
	utype a, b = (utype)s->x[d->rs2], r; \
	if (!p) \
		return R_TRAP; \
	memcpy(&a, p, sizeof(utype)); \
	r = (utype)(expr); \
	memcpy(p, &r, sizeof(utype)); \
	if (unlikely(s->code_pages[(addr - s->ram_base) >> CODE_PAGE_SHIFT])) \
		iss_code_written(s, addr, sizeof(utype)); \
	s->x[d->rd] = (uint64_t)(int64_t)(stype)a; \
	s->pc = d->pc + d->len; \
	return R_SEQ; \
}

#define SMIN(t, a, b)	((t)(a) < (t)(b) ? (a) : (b))
#define SMAX(t, a, b)	((t)(a) > (t)(b) ? (a) : (b))

/* Defines the nine AMOs of one width and address mask, suffix @sfx. */
#define OP_AMOS(sfx, utype, stype, amask) \
	OP_AMO(op_amoswap##sfx, utype, stype, amask, b) \
	OP_AMO(op_amoadd##sfx, utype, stype, amask, a + b) \
	OP_AMO(op_amoxor##sfx, utype, stype, amask, a ^ b) \
	OP_AMO(op_amoand##sfx, utype, stype, amask, a & b) \
	OP_AMO(op_amoor##sfx, utype, stype, amask, a | b) \
	OP_AMO(op_amomin##sfx, utype, stype, amask, SMIN(stype, a, b)) \
	OP_AMO(op_amomax##sfx, utype, stype, amask, SMAX(stype, a, b)) \
	OP_AMO(op_amominu##sfx, utype, stype, amask, a < b ? a : b) \
	OP_AMO(op_amomaxu##sfx, utype, stype, amask, a > b ? a : b)

OP_LR(op_lrw32, int32_t, A32)
OP_SC(op_scw32, uint32_t, A32)
OP_AMOS(w32, uint32_t, int32_t, A32)
OP_LR(op_lrw64, int32_t, A64)
OP_SC(op_scw64, uint32_t, A64)
OP_AMOS(w64, uint32_t, int32_t, A64)
OP_LR(op_lrd64, int64_t, A64)
OP_SC(op_scd64, uint64_t, A64)
OP_AMOS(d64, uint64_t, int64_t, A64)

/* Illegal instruction; returns R_TRAP. */
static int op_illegal(struct spoor_iss *s, const struct dinsn *d)
{
	return iss_exception(s, d->pc, EXC_ILLEGAL, d->raw);
}

/* fence, fence.i (the decode cache follows every store); returns R_SEQ. */
static int op_nop(struct spoor_iss *s, const struct dinsn *d)
{
	s->pc = d->pc + d->len;
	return R_SEQ;
}

/* ecall; returns R_TRAP. */
static int op_ecall(struct spoor_iss *s, const struct dinsn *d)
{
	static const uint8_t cause[4] = { EXC_ECALL_U, EXC_ECALL_S, 10, EXC_ECALL_M };

	return iss_exception(s, d->pc, cause[s->priv], 0);
}

/* ebreak; returns R_TRAP or R_DEBUG. */
static int op_ebreak(struct spoor_iss *s, const struct dinsn *d)
{
	return iss_ebreak(s, d->pc);
}

/* mret; returns R_XRET or R_TRAP. */
static int op_mret(struct spoor_iss *s, const struct dinsn *d)
{
	if (s->priv != SPOOR_ISS_PRV_M)
		return op_illegal(s, d);
	return iss_xret(s, SPOOR_ISS_PRV_M);
}

/* sret; returns R_XRET or R_TRAP. */
static int op_sret(struct spoor_iss *s, const struct dinsn *d)
{
	if (s->priv == SPOOR_ISS_PRV_U ||
	    (s->priv == SPOOR_ISS_PRV_S && (s->mstatus & MS_TSR)))
		return op_illegal(s, d);
	return iss_xret(s, SPOOR_ISS_PRV_S);
}

/* dret; returns R_XRET or R_TRAP. */
static int op_dret(struct spoor_iss *s, const struct dinsn *d)
{
	return iss_dret(s, d->pc, d->raw);
}

/* wfi; returns R_SEQ or R_TRAP. */
static int op_wfi(struct spoor_iss *s, const struct dinsn *d)
{
	return iss_wfi(s, d->pc, d->len, d->raw);
}

/* sfence.vma (bare addressing: nothing to flush); returns R_SEQ or R_TRAP. */
static int op_sfence_vma(struct spoor_iss *s, const struct dinsn *d)
{
	if (s->priv == SPOOR_ISS_PRV_U ||
	    (s->priv == SPOOR_ISS_PRV_S && (s->mstatus & MS_TVM)))
		return op_illegal(s, d);
	return op_nop(s, d);
}

/* Defines CSR instruction handler @name for iss_csr_insn() operation @op. */
#define OP_CSR(name, op) \
static int name(struct spoor_iss *s, const struct dinsn *d) \
{ \
	return iss_csr_insn(s, d, op); \
}

OP_CSR(op_csrrw, 1)
OP_CSR(op_csrrs, 2)
OP_CSR(op_csrrc, 3)
OP_CSR(op_csrrwi, 5)
OP_CSR(op_csrrsi, 6)
OP_CSR(op_csrrci, 7)

/* Bits @hi..@lo of @v, shifted down. */
#define BITS(v, hi, lo)	(((v) >> (lo)) & ((1u << ((hi) - (lo) + 1)) - 1))

/* Sign-extends the low @bits bits of @v; returns the value. */
static int32_t sext(uint32_t v, unsigned bits)
{
	return (int32_t)(v << (32 - bits)) >> (32 - bits);
}

/* Fills @d as an instruction of handler @fn; returns the length, 4. */
static int set(struct dinsn *d, exec_fn fn, unsigned rd, unsigned rs1, unsigned rs2, int32_t imm)
{
	d->fn = fn;
	d->rd = rd ? rd : REG_SINK;
	d->rs1 = rs1;
	d->rs2 = rs2;
	d->imm = imm;
	return 4;
}

/* Decodes the OP and OP-32 groups; returns the handler, or NULL. */
static exec_fn decode_op(uint32_t raw, int rv64)
{
	static const exec_fn base[8] = {
		op_add, op_sll, op_slt, op_sltu, op_xor, op_srl, op_or, op_and,
	};
	static const exec_fn m64[8] = {
		op_mul, op_mulh64, op_mulhsu64, op_mulhu64, op_div, op_divu, op_rem, op_remu,
	};
	static const exec_fn m32[8] = {
		op_mulw, op_mulh32, op_mulhsu32, op_mulhu32, op_divw, op_divuw, op_remw, op_remuw,
	};
	static const exec_fn w[8] = {
		op_addw, op_sllw, NULL, NULL, NULL, op_srlw, NULL, NULL,
	};
	unsigned f3 = BITS(raw, 14, 12), f7 = raw >> 25;
	int op32 = (raw & 0x7f) == 0x3b;

	if (op32 && !rv64)
		return NULL;
	if (!op32 && !rv64) {
		/* RV32: the 32-bit forms are the RV64 W forms. */
		if (f7 == 0x01)
			return m32[f3];
		if (f7 == 0 && (f3 == 1 || f3 == 5))
			return f3 == 1 ? op_sllw : op_srlw;
		if (f7 == 0)
			return f3 == 0 ? op_addw : base[f3];
		if (f7 == 0x20 && f3 == 0)
			return op_subw;
		if (f7 == 0x20 && f3 == 5)
			return op_sraw;
		return NULL;
	}
	if (op32) {
		if (f7 == 0x01)
			return (f3 == 0 || f3 >= 4) ? m32[f3] : NULL;
		if (f7 == 0)
			return w[f3];
		if (f7 == 0x20 && f3 == 0)
			return op_subw;
		if (f7 == 0x20 && f3 == 5)
			return op_sraw;
		return NULL;
	}
	if (f7 == 0x01)
		return m64[f3];
	if (f7 == 0)
		return base[f3];
	if (f7 == 0x20 && f3 == 0)
		return op_sub;
	if (f7 == 0x20 && f3 == 5)
		return op_sra;
	return NULL;
}

/* Decodes the OP-IMM and OP-IMM-32 groups into @d; returns the handler, or NULL. */
static exec_fn decode_op_imm(uint32_t raw, int rv64, int32_t *imm)
{
	static const exec_fn base[8] = {
		op_addi, NULL, op_slti, op_sltiu, op_xori, NULL, op_ori, op_andi,
	};
	unsigned f3 = BITS(raw, 14, 12);
	int op32 = (raw & 0x7f) == 0x1b;
	int w = op32 || !rv64;
	unsigned shamt = BITS(raw, 25, 20), hi = raw >> 26;

	*imm = (int32_t)raw >> 20;
	if (op32 && !rv64)
		return NULL;
	if (f3 == 0 && op32)
		return op_addiw;
	if (f3 == 0 && !rv64)
		return op_addiw;
	if (op32 && f3 != 1 && f3 != 5)
		return NULL;
	if (f3 != 1 && f3 != 5)
		return base[f3];
	if (w && (shamt & 32))
		return NULL;
	*imm = (int32_t)shamt;
	if (f3 == 1)
		return hi ? NULL : (w ? op_slliw : op_slli);
	if (hi == 0)
		return w ? op_srliw : op_srli;
	if (hi == 0x10)
		return w ? op_sraiw : op_srai;
	return NULL;
}

/* Decodes the AMO group; returns the handler, or NULL. */
static exec_fn decode_amo(uint32_t raw, int rv64)
{
	static const exec_fn w32[32] = {
		[0x00] = op_amoaddw32, [0x01] = op_amoswapw32, [0x02] = op_lrw32,
		[0x03] = op_scw32, [0x04] = op_amoxorw32, [0x08] = op_amoorw32,
		[0x0c] = op_amoandw32, [0x10] = op_amominw32, [0x14] = op_amomaxw32,
		[0x18] = op_amominuw32, [0x1c] = op_amomaxuw32,
	};
	static const exec_fn w64[32] = {
		[0x00] = op_amoaddw64, [0x01] = op_amoswapw64, [0x02] = op_lrw64,
		[0x03] = op_scw64, [0x04] = op_amoxorw64, [0x08] = op_amoorw64,
		[0x0c] = op_amoandw64, [0x10] = op_amominw64, [0x14] = op_amomaxw64,
		[0x18] = op_amominuw64, [0x1c] = op_amomaxuw64,
	};
	static const exec_fn d64[32] = {
		[0x00] = op_amoaddd64, [0x01] = op_amoswapd64, [0x02] = op_lrd64,
		[0x03] = op_scd64, [0x04] = op_amoxord64, [0x08] = op_amoord64,
		[0x0c] = op_amoandd64, [0x10] = op_amomind64, [0x14] = op_amomaxd64,
		[0x18] = op_amominud64, [0x1c] = op_amomaxud64,
	};
	unsigned f3 = BITS(raw, 14, 12), f5 = raw >> 27;

	if (f5 == 0x02 && BITS(raw, 24, 20))
		return NULL;
	if (f3 == 2)
		return rv64 ? w64[f5] : w32[f5];
	if (f3 == 3 && rv64)
		return d64[f5];
	return NULL;
}

/* Decodes the SYSTEM group; returns the handler, or NULL. */
static exec_fn decode_system(uint32_t raw)
{
	static const exec_fn csr[8] = {
		NULL, op_csrrw, op_csrrs, op_csrrc, NULL, op_csrrwi, op_csrrsi, op_csrrci,
	};

	switch (raw) {
	case 0x00000073: return op_ecall;
	case 0x00100073: return op_ebreak;
	case 0x30200073: return op_mret;
	case 0x10200073: return op_sret;
	case 0x10500073: return op_wfi;
	case 0x7b200073: return op_dret;
	}
	if ((raw & 0xfe007fff) == 0x12000073)
		return op_sfence_vma;
	return csr[BITS(raw, 14, 12)];
}

/* Decodes 32-bit instruction @raw into @d; returns 4. */
static int decode32(struct dinsn *d, uint32_t raw, int rv64)
{
	static const exec_fn ld32[8] = {
		op_lb32, op_lh32, op_lw32, NULL, op_lbu32, op_lhu32, NULL, NULL,
	};
	static const exec_fn ld64[8] = {
		op_lb64, op_lh64, op_lw64, op_ld64, op_lbu64, op_lhu64, op_lwu64, NULL,
	};
	static const exec_fn st32[8] = { op_sb32, op_sh32, op_sw32, NULL };
	static const exec_fn st64[8] = { op_sb64, op_sh64, op_sw64, op_sd64 };
	static const exec_fn br[8] = {
		op_beq, op_bne, NULL, NULL, op_blt, op_bge, op_bltu, op_bgeu,
	};
	unsigned rd = BITS(raw, 11, 7), rs1 = BITS(raw, 19, 15), rs2 = BITS(raw, 24, 20);
	unsigned f3 = BITS(raw, 14, 12);
	int32_t imm_i = (int32_t)raw >> 20;
	int32_t imm_s = (int32_t)(raw & 0xfe000000) >> 20 | (int32_t)rd;
	int32_t imm_b = sext((raw >> 31) << 12 | BITS(raw, 7, 7) << 11 |
			     BITS(raw, 30, 25) << 5 | BITS(raw, 11, 8) << 1, 13);
	int32_t imm_j = sext((raw >> 31) << 20 | BITS(raw, 19, 12) << 12 |
			     BITS(raw, 20, 20) << 11 | BITS(raw, 30, 21) << 1, 21);
	exec_fn fn = NULL;

	d->raw = raw;
	d->len = 4;
	switch (raw & 0x7f) {
	case 0x37:
		return set(d, op_lui, rd, 0, 0, (int32_t)(raw & 0xfffff000));
	case 0x17:
		return set(d, rv64 ? op_auipc64 : op_auipc32, rd, 0, 0,
			   (int32_t)(raw & 0xfffff000));
	case 0x6f:
		return set(d, rv64 ? op_jal64 : op_jal32, rd, 0, 0, imm_j);
	case 0x67:
		if (f3)
			break;
		return set(d, rv64 ? op_jalr64 : op_jalr32, rd, rs1, 0, imm_i);
	case 0x63:
		if (!br[f3])
			break;
		return set(d, br[f3], 0, rs1, rs2, imm_b);
	case 0x03:
		fn = rv64 ? ld64[f3] : ld32[f3];
		if (!fn)
			break;
		return set(d, fn, rd, rs1, 0, imm_i);
	case 0x23:
		fn = rv64 ? st64[f3] : st32[f3];
		if (!fn)
			break;
		return set(d, fn, 0, rs1, rs2, imm_s);
	case 0x13:
	case 0x1b:
		fn = decode_op_imm(raw, rv64, &imm_i);
		if (!fn)
			break;
		return set(d, fn, rd, rs1, 0, imm_i);
	case 0x33:
	case 0x3b:
		fn = decode_op(raw, rv64);
		if (!fn)
			break;
		return set(d, fn, rd, rs1, rs2, 0);
	case 0x0f:
		if (f3 > 1)
			break;
		return set(d, op_nop, 0, 0, 0, 0);
	case 0x2f:
		fn = decode_amo(raw, rv64);
		if (!fn)
			break;
		return set(d, fn, rd, rs1, rs2, 0);
	case 0x73:
		fn = decode_system(raw);
		if (!fn)
			break;
		/* CSR instructions: the CSR number as the immediate. */
		return set(d, fn, rd, rs1, 0, (int32_t)(raw >> 20));
	}
	return set(d, op_illegal, 0, 0, 0, 0);
}

/* Fills @d as a 16-bit instruction of handler @fn; returns 2. */
static int set16(struct dinsn *d, exec_fn fn, unsigned rd, unsigned rs1, unsigned rs2,
		 int32_t imm)
{
	set(d, fn, rd, rs1, rs2, imm);
	d->len = 2;
	return 2;
}

/* Decodes quadrant 0 of the C extension into @d; returns 2. */
static int decode_c0(struct dinsn *d, uint32_t raw, int rv64)
{
	unsigned rd = 8 + BITS(raw, 4, 2), rs1 = 8 + BITS(raw, 9, 7);
	unsigned uw = BITS(raw, 12, 10) << 3 | BITS(raw, 6, 6) << 2 | BITS(raw, 5, 5) << 6;
	unsigned ud = BITS(raw, 12, 10) << 3 | BITS(raw, 6, 5) << 6;
	unsigned nz = BITS(raw, 12, 11) << 4 | BITS(raw, 10, 7) << 6 | BITS(raw, 6, 6) << 2 |
		      BITS(raw, 5, 5) << 3;

	switch (BITS(raw, 15, 13)) {
	case 0:
		if (!nz)
			break;
		return set16(d, rv64 ? op_addi : op_addiw, rd, 2, 0, (int32_t)nz);
	case 2:
		return set16(d, rv64 ? op_lw64 : op_lw32, rd, rs1, 0, (int32_t)uw);
	case 3:
		if (!rv64)
			break;
		return set16(d, op_ld64, rd, rs1, 0, (int32_t)ud);
	case 6:
		return set16(d, rv64 ? op_sw64 : op_sw32, 0, rs1, rd, (int32_t)uw);
	case 7:
		if (!rv64)
			break;
		return set16(d, op_sd64, 0, rs1, rd, (int32_t)ud);
	}
	return set16(d, op_illegal, 0, 0, 0, 0);
}

/* Decodes the C.SRLI..C.AND group of quadrant 1 into @d; returns 2. */
static int decode_c1_alu(struct dinsn *d, uint32_t raw, int rv64)
{
	static const exec_fn rr[4] = { op_sub, op_xor, op_or, op_and };
	unsigned r = 8 + BITS(raw, 9, 7), rs2 = 8 + BITS(raw, 4, 2);
	unsigned shamt = BITS(raw, 12, 12) << 5 | BITS(raw, 6, 2);
	int32_t imm = sext(BITS(raw, 12, 12) << 5 | BITS(raw, 6, 2), 6);

	switch (BITS(raw, 11, 10)) {
	case 0:
	case 1:
		if (!rv64 && (shamt & 32))
			break;
		if (BITS(raw, 11, 10) == 0)
			return set16(d, rv64 ? op_srli : op_srliw, r, r, 0, (int32_t)shamt);
		return set16(d, rv64 ? op_srai : op_sraiw, r, r, 0, (int32_t)shamt);
	case 2:
		return set16(d, op_andi, r, r, 0, imm);
	case 3:
		if (!BITS(raw, 12, 12))
			return set16(d, BITS(raw, 6, 5) ? rr[BITS(raw, 6, 5)] :
				     (rv64 ? op_sub : op_subw), r, r, rs2, 0);
		if (!rv64 || BITS(raw, 6, 6))
			break;
		return set16(d, BITS(raw, 5, 5) ? op_addw : op_subw, r, r, rs2, 0);
	}
	return set16(d, op_illegal, 0, 0, 0, 0);
}

/* Decodes quadrant 1 of the C extension into @d; returns 2. */
static int decode_c1(struct dinsn *d, uint32_t raw, int rv64)
{
	unsigned rd = BITS(raw, 11, 7), r = 8 + BITS(raw, 9, 7);
	int32_t imm = sext(BITS(raw, 12, 12) << 5 | BITS(raw, 6, 2), 6);
	int32_t j = sext(BITS(raw, 12, 12) << 11 | BITS(raw, 11, 11) << 4 |
			 BITS(raw, 10, 9) << 8 | BITS(raw, 8, 8) << 10 |
			 BITS(raw, 7, 7) << 6 | BITS(raw, 6, 6) << 7 |
			 BITS(raw, 5, 3) << 1 | BITS(raw, 2, 2) << 5, 12);
	int32_t b = sext(BITS(raw, 12, 12) << 8 | BITS(raw, 11, 10) << 3 |
			 BITS(raw, 6, 5) << 6 | BITS(raw, 4, 3) << 1 | BITS(raw, 2, 2) << 5, 9);
	int32_t sp = sext(BITS(raw, 12, 12) << 9 | BITS(raw, 6, 6) << 4 |
			  BITS(raw, 5, 5) << 6 | BITS(raw, 4, 3) << 7 | BITS(raw, 2, 2) << 5, 10);

	switch (BITS(raw, 15, 13)) {
	case 0:
		return set16(d, rv64 ? op_addi : op_addiw, rd, rd, 0, imm);
	case 1:
		if (!rv64)
			return set16(d, op_jal32, 1, 0, 0, j);
		if (!rd)
			break;
		return set16(d, op_addiw, rd, rd, 0, imm);
	case 2:
		return set16(d, op_addi, rd, 0, 0, imm);
	case 3:
		if (rd == 2 && sp)
			return set16(d, rv64 ? op_addi : op_addiw, 2, 2, 0, sp);
		if (rd == 2 || !imm)
			break;
		return set16(d, op_lui, rd, 0, 0, (int32_t)((uint32_t)imm << 12));
	case 4:
		return decode_c1_alu(d, raw, rv64);
	case 5:
		return set16(d, rv64 ? op_jal64 : op_jal32, 0, 0, 0, j);
	case 6:
		return set16(d, op_beq, 0, r, 0, b);
	case 7:
		return set16(d, op_bne, 0, r, 0, b);
	}
	return set16(d, op_illegal, 0, 0, 0, 0);
}

/* Decodes quadrant 2 of the C extension into @d; returns 2. */
static int decode_c2(struct dinsn *d, uint32_t raw, int rv64)
{
	unsigned rd = BITS(raw, 11, 7), rs2 = BITS(raw, 6, 2);
	unsigned shamt = BITS(raw, 12, 12) << 5 | BITS(raw, 6, 2);
	unsigned lw = BITS(raw, 12, 12) << 5 | BITS(raw, 6, 4) << 2 | BITS(raw, 3, 2) << 6;
	unsigned ld = BITS(raw, 12, 12) << 5 | BITS(raw, 6, 5) << 3 | BITS(raw, 4, 2) << 6;
	unsigned sw = BITS(raw, 12, 9) << 2 | BITS(raw, 8, 7) << 6;
	unsigned sd = BITS(raw, 12, 10) << 3 | BITS(raw, 9, 7) << 6;

	switch (BITS(raw, 15, 13)) {
	case 0:
		if (!rv64 && (shamt & 32))
			break;
		return set16(d, rv64 ? op_slli : op_slliw, rd, rd, 0, (int32_t)shamt);
	case 2:
		if (!rd)
			break;
		return set16(d, rv64 ? op_lw64 : op_lw32, rd, 2, 0, (int32_t)lw);
	case 3:
		if (!rv64 || !rd)
			break;
		return set16(d, op_ld64, rd, 2, 0, (int32_t)ld);
	case 4:
		if (!BITS(raw, 12, 12)) {
			if (rs2)
				return set16(d, op_add, rd, 0, rs2, 0);
			if (!rd)
				break;
			return set16(d, rv64 ? op_jalr64 : op_jalr32, 0, rd, 0, 0);
		}
		if (rs2)
			return set16(d, rv64 ? op_add : op_addw, rd, rd, rs2, 0);
		if (!rd)
			return set16(d, op_ebreak, 0, 0, 0, 0);
		return set16(d, rv64 ? op_jalr64 : op_jalr32, 1, rd, 0, 0);
	case 6:
		return set16(d, rv64 ? op_sw64 : op_sw32, 0, 2, rs2, (int32_t)sw);
	case 7:
		if (!rv64)
			break;
		return set16(d, op_sd64, 0, 2, rs2, (int32_t)sd);
	}
	return set16(d, op_illegal, 0, 0, 0, 0);
}

/* Decodes @raw (a 16-bit parcel zero-extended, or 32 bits) into @d; returns its length. */
static int decode(struct dinsn *d, uint32_t raw, int rv64)
{
	if ((raw & 3) == 3)
		return decode32(d, raw, rv64);
	raw &= 0xffff;
	d->raw = raw;
	switch (raw & 3) {
	case 0:
		return decode_c0(d, raw, rv64);
	case 1:
		return decode_c1(d, raw, rv64);
	default:
		return decode_c2(d, raw, rv64);
	}
}

int iss_decode_32(struct dinsn *d, uint32_t raw)
{
	return decode(d, raw, 0);
}

int iss_decode_64(struct dinsn *d, uint32_t raw)
{
	return decode(d, raw, 1);
}
