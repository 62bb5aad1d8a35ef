// SPDX-License-Identifier: MIT
/*
 * Tests for the virtual board's ISS: instruction semantics on hand-assembled
 * snippets (every RV32/RV64 IMAC group, Zicsr), traps and their CSRs,
 * interrupts, delegation, privilege changes, Debug Mode, the devices, ELF
 * loading, and the API's argument checks.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "iss.h"
#include "spoor/error.h"

#define BASE	0x80000000u
#define DATA	(BASE + 0x1000u)
#define VEC	(BASE + 0x800u)

/* Registers. */
enum { ZERO, RA, SP, GP, TP, T0, T1, T2, S0, S1, A0, A1, A2, A3, A4, A5, A6, A7 };

/* CSR numbers. */
enum {
	SSTATUS = 0x100, SIE = 0x104, STVEC = 0x105, SSCRATCH = 0x140, SEPC = 0x141,
	SCAUSE = 0x142, STVAL = 0x143, SIP = 0x144, SATP = 0x180,
	MSTATUS = 0x300, MISA = 0x301, MEDELEG = 0x302, MIDELEG = 0x303, MIE = 0x304,
	MTVEC = 0x305, MCOUNTEREN = 0x306, MSTATUSH = 0x310, MSCRATCH = 0x340, MEPC = 0x341,
	MCAUSE = 0x342, MTVAL = 0x343, MIP = 0x344, PMPCFG0 = 0x3a0, PMPCFG1 = 0x3a1,
	PMPADDR0 = 0x3b0, DCSR = 0x7b0, DPC = 0x7b1, DSCRATCH0 = 0x7b2,
	MCYCLE = 0xb00, MINSTRET = 0xb02, MCYCLEH = 0xb80, CYCLE = 0xc00, TIME = 0xc01,
	INSTRET = 0xc02, MHARTID = 0xf14,
};

/* Instruction encoders. */
#define enc_r(f7, rs2, rs1, f3, rd, op) \
	((uint32_t)(f7) << 25 | (uint32_t)(rs2) << 20 | (uint32_t)(rs1) << 15 | \
	 (uint32_t)(f3) << 12 | (uint32_t)(rd) << 7 | (uint32_t)(op))
#define enc_i(imm, rs1, f3, rd, op) \
	((uint32_t)(imm) << 20 | (uint32_t)(rs1) << 15 | (uint32_t)(f3) << 12 | \
	 (uint32_t)(rd) << 7 | (uint32_t)(op))

static uint32_t enc_s(int32_t imm, unsigned rs2, unsigned rs1, unsigned f3)
{
	uint32_t u = (uint32_t)imm;

	return (u >> 5 & 0x7f) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | (u & 31) << 7 | 0x23;
}

static uint32_t enc_b(int32_t imm, unsigned rs2, unsigned rs1, unsigned f3)
{
	uint32_t u = (uint32_t)imm;

	return (u >> 12 & 1) << 31 | (u >> 5 & 0x3f) << 25 | rs2 << 20 | rs1 << 15 |
	       f3 << 12 | (u >> 1 & 0xf) << 8 | (u >> 11 & 1) << 7 | 0x63;
}

static uint32_t enc_j(int32_t imm, unsigned rd)
{
	uint32_t u = (uint32_t)imm;

	return (u >> 20 & 1) << 31 | (u >> 1 & 0x3ff) << 21 | (u >> 11 & 1) << 20 |
	       (u >> 12 & 0xff) << 12 | rd << 7 | 0x6f;
}

#define ADDI(rd, rs1, imm)	enc_i(imm, rs1, 0, rd, 0x13)
#define LUI(rd, imm)		((uint32_t)(imm) << 12 | (rd) << 7 | 0x37)
#define AUIPC(rd, imm)		((uint32_t)(imm) << 12 | (rd) << 7 | 0x17)
#define JALR(rd, rs1, imm)	enc_i(imm, rs1, 0, rd, 0x67)
#define LOAD(f3, rd, rs1, imm)	enc_i(imm, rs1, f3, rd, 0x03)
#define STORE(f3, rs2, rs1, imm) enc_s(imm, rs2, rs1, f3)
#define CSRRW(rd, csr, rs1)	enc_i(csr, rs1, 1, rd, 0x73)
#define CSRRS(rd, csr, rs1)	enc_i(csr, rs1, 2, rd, 0x73)
#define CSRRC(rd, csr, rs1)	enc_i(csr, rs1, 3, rd, 0x73)
#define CSRRWI(rd, csr, u)	enc_i(csr, u, 5, rd, 0x73)
#define CSRRSI(rd, csr, u)	enc_i(csr, u, 6, rd, 0x73)
#define CSRRCI(rd, csr, u)	enc_i(csr, u, 7, rd, 0x73)
#define AMO(f5, f3, rd, rs1, rs2) enc_r((f5) << 2, rs2, rs1, f3, rd, 0x2f)
#define ECALL	0x00000073u
#define EBREAK	0x00100073u
#define MRET	0x30200073u
#define SRET	0x10200073u
#define WFI	0x10500073u
#define DRET	0x7b200073u
#define NOP	0x00000013u
#define FENCE	0x0ff0000fu
#define FENCE_I	0x0000100fu
#define SFENCE	0x12000073u

/* The last events the hook saw. */
static struct spoor_iss_event events[64];
static unsigned nevents;

static void hook(void *ctx, const struct spoor_iss_event *ev)
{
	(void)ctx;
	events[nevents++ % 64] = *ev;
}

/* Returns the @i-th event of the last run (counting from its first). */
static const struct spoor_iss_event *ev(unsigned i)
{
	return &events[i % 64];
}

static char uart_buf[256];
static size_t uart_len;

static void uart(void *ctx, uint8_t c)
{
	(void)ctx;
	if (uart_len < sizeof(uart_buf) - 1)
		uart_buf[uart_len++] = (char)c;
}

/* Returns a new ISS of @xlen with the hook, pc at BASE. */
static struct spoor_iss *mk(unsigned xlen)
{
	struct spoor_iss_config cfg = { .xlen = xlen, .ram_size = 1 << 20, .uart_tx = uart };
	struct spoor_iss *iss = spoor_iss_new(&cfg);

	if (!iss) {
		fprintf(stderr, "spoor_iss_new failed\n");
		exit(1);
	}
	spoor_iss_set_hook(iss, hook, NULL);
	spoor_iss_write_reg(iss, SPOOR_ISS_REG_PC, BASE);
	return iss;
}

/* Loads @n words at @addr. */
static void put(struct spoor_iss *iss, uint64_t addr, const uint32_t *w, size_t n)
{
	CHECK_EQ(spoor_iss_load(iss, addr, w, 4 * n), 0);
}

static uint64_t X(struct spoor_iss *iss, unsigned r)
{
	uint64_t v = 0xdead;

	CHECK_EQ(spoor_iss_read_reg(iss, r, &v), 0);
	return v;
}

static void setx(struct spoor_iss *iss, unsigned r, uint64_t v)
{
	CHECK_EQ(spoor_iss_write_reg(iss, r, v), 0);
}

static uint64_t csr(struct spoor_iss *iss, unsigned n)
{
	uint64_t v = 0xdead;

	CHECK_EQ(spoor_iss_read_csr(iss, n, &v), 0);
	return v;
}

static void setcsr(struct spoor_iss *iss, unsigned n, uint64_t v)
{
	CHECK_EQ(spoor_iss_write_csr(iss, n, v), 0);
}

/* Runs @n instructions from the events' point of view; returns the stop reason. */
static int run(struct spoor_iss *iss, uint64_t n)
{
	nevents = 0;
	return spoor_iss_step(iss, n);
}

/* Executes @insn at BASE with a1 = @a, a2 = @b; returns a0. */
static uint64_t exec1(struct spoor_iss *iss, uint32_t insn, uint64_t a, uint64_t b)
{
	put(iss, BASE, &insn, 1);
	setx(iss, SPOOR_ISS_REG_PC, BASE);
	setx(iss, A0, 0x5a5a);
	setx(iss, A1, a);
	setx(iss, A2, b);
	CHECK_EQ(run(iss, 1), SPOOR_ISS_STOP_COUNT);
	return X(iss, A0);
}

struct alu_case {
	const char *name;
	uint32_t insn;
	uint64_t a, b;
	uint64_t r64, r32;
	int rv64_only;
};

#define RR(f7, f3)	enc_r(f7, A2, A1, f3, A0, 0x33)
#define RRW(f7, f3)	enc_r(f7, A2, A1, f3, A0, 0x3b)
#define RI(f3, imm)	enc_i(imm, A1, f3, A0, 0x13)
#define RIW(f3, imm)	enc_i(imm, A1, f3, A0, 0x1b)
#define M1		(~0ull)

static const struct alu_case alu_cases[] = {
	{ "add", RR(0, 0), 5, 7, 12, 12, 0 },
	{ "add ovf", RR(0, 0), 0x7fffffff, 1, 0x80000000, 0x80000000, 0 },
	{ "sub", RR(0x20, 0), 5, 7, M1 - 1, 0xfffffffe, 0 },
	{ "sll", RR(0, 1), 1, 63, 1ull << 63, 1u << 31, 0 },
	{ "slt", RR(0, 2), M1, 1, 1, 1, 0 },
	{ "sltu", RR(0, 3), M1, 1, 0, 0, 0 },
	{ "xor", RR(0, 4), 0xff00, 0x0ff0, 0xf0f0, 0xf0f0, 0 },
	{ "srl", RR(0, 5), M1, 4, M1 >> 4, 0x0fffffff, 0 },
	{ "sra", RR(0x20, 5), (uint64_t)-256, 4, (uint64_t)-16, 0xfffffff0, 0 },
	{ "or", RR(0, 6), 0xf0, 0x0f, 0xff, 0xff, 0 },
	{ "and", RR(0, 7), 0xf0, 0x3c, 0x30, 0x30, 0 },
	{ "mul", RR(1, 0), (uint64_t)-3, 7, (uint64_t)-21, 0xffffffeb, 0 },
	{ "mulh", RR(1, 1), 0x80000000, 0x80000000, 0, 0x40000000, 0 },
	{ "mulhsu", RR(1, 2), M1, M1, M1, 0xffffffff, 0 },
	{ "mulhu", RR(1, 3), M1, M1, M1 - 1, 0xfffffffe, 0 },
	{ "div", RR(1, 4), (uint64_t)-7, 2, (uint64_t)-3, 0xfffffffd, 0 },
	{ "div0", RR(1, 4), 7, 0, M1, 0xffffffff, 0 },
	{ "div ovf", RR(1, 4), 0x80000000, M1, 0xffffffff80000000ull, 0x80000000, 0 },
	{ "divu", RR(1, 5), 7, 2, 3, 3, 0 },
	{ "divu0", RR(1, 5), 7, 0, M1, 0xffffffff, 0 },
	{ "rem", RR(1, 6), (uint64_t)-7, 2, M1, 0xffffffff, 0 },
	{ "rem0", RR(1, 6), 7, 0, 7, 7, 0 },
	{ "rem ovf", RR(1, 6), 0x80000000, M1, 0, 0, 0 },
	{ "remu", RR(1, 7), 7, 4, 3, 3, 0 },
	{ "remu0", RR(1, 7), 7, 0, 7, 7, 0 },
	{ "addi", RI(0, -1), 5, 0, 4, 4, 0 },
	{ "slti", RI(2, 1), M1, 0, 1, 1, 0 },
	{ "sltiu", RI(3, -1), 0, 0, 1, 1, 0 },
	{ "xori", RI(4, -1), 0xf, 0, ~0xfull, 0xfffffff0, 0 },
	{ "ori", RI(6, 0x100), 1, 0, 0x101, 0x101, 0 },
	{ "andi", RI(7, 0x7f0), 0xfff, 0, 0x7f0, 0x7f0, 0 },
	{ "slli", RI(1, 5), 3, 0, 96, 96, 0 },
	{ "srli", RI(5, 4), M1, 0, M1 >> 4, 0x0fffffff, 0 },
	{ "srai", RI(5, 0x400 | 4), (uint64_t)-256, 0, (uint64_t)-16, 0xfffffff0, 0 },
	{ "lui", LUI(A0, 0x80000), 0, 0, 0xffffffff80000000ull, 0x80000000, 0 },
	{ "auipc", AUIPC(A0, 1), 0, 0, BASE + 0x1000, BASE + 0x1000, 0 },
	{ "slli 63", RI(1, 63), 1, 0, 1ull << 63, 0, 1 },
	{ "addw", RRW(0, 0), 0x7fffffff, 1, 0xffffffff80000000ull, 0, 1 },
	{ "subw", RRW(0x20, 0), 0, 1, M1, 0, 1 },
	{ "sllw", RRW(0, 1), 1, 31 + 32, 0xffffffff80000000ull, 0, 1 },
	{ "srlw", RRW(0, 5), 0xffffffff80000000ull, 4, 0x08000000, 0, 1 },
	{ "sraw", RRW(0x20, 5), 0x80000000, 4, 0xfffffffff8000000ull, 0, 1 },
	{ "mulw", RRW(1, 0), 0x10000, 0x10000, 0, 0, 1 },
	{ "divw", RRW(1, 4), 0x80000000, M1, 0xffffffff80000000ull, 0, 1 },
	{ "divuw", RRW(1, 5), 0xffffffff, 0, M1, 0, 1 },
	{ "remw", RRW(1, 6), (uint64_t)-7, 2, M1, 0, 1 },
	{ "remuw", RRW(1, 7), (uint64_t)-7, 5, 4, 0, 1 },
	{ "addiw", RIW(0, 1), 0x7fffffff, 0, 0xffffffff80000000ull, 0, 1 },
	{ "slliw", RIW(1, 31), 1, 0, 0xffffffff80000000ull, 0, 1 },
	{ "srliw", RIW(5, 4), 0x80000000, 0, 0x08000000, 0, 1 },
	{ "sraiw", RIW(5, 0x400 | 4), 0x80000000, 0, 0xfffffffff8000000ull, 0, 1 },
};

/* Every ALU, M and upper-immediate operation, both XLENs. */
static void test_alu(void)
{
	for (unsigned xlen = 32; xlen <= 64; xlen += 32) {
		struct spoor_iss *iss = mk(xlen);

		for (size_t i = 0; i < sizeof(alu_cases) / sizeof(alu_cases[0]); i++) {
			const struct alu_case *c = &alu_cases[i];
			uint64_t r = exec1(iss, c->insn, c->a, c->b);

			if (xlen == 32 && c->rv64_only) {
				/* Illegal on RV32: a trap, a0 untouched. */
				CHECK_EQ(csr(iss, MCAUSE), 2);
				CHECK_EQ(csr(iss, MTVAL), c->insn);
				CHECK_EQ(r, 0x5a5a);
				continue;
			}
			if (r != (xlen == 64 ? c->r64 : c->r32))
				fprintf(stderr, "rv%u %s\n", xlen, c->name);
			CHECK_EQ(r, xlen == 64 ? c->r64 : c->r32);
		}
		/* x0 stays zero. */
		exec1(iss, ADDI(ZERO, A1, 5), 1, 0);
		CHECK_EQ(X(iss, ZERO), 0);
		spoor_iss_free(iss);
	}
}

/* Loads and stores of every width, sign and zero extension. */
static void test_load_store(void)
{
	for (unsigned xlen = 32; xlen <= 64; xlen += 32) {
		struct spoor_iss *iss = mk(xlen);
		uint64_t v;

		setx(iss, A2, 0x8899aabbccddeeffull);
		exec1(iss, STORE(xlen == 64 ? 3 : 2, A2, A1, 0), DATA, 0x8899aabbccddeeffull);
		CHECK_EQ(spoor_iss_bus_read(iss, DATA, 4, &v), 0);
		CHECK_EQ(v, 0xccddeeff);
		CHECK_EQ(exec1(iss, LOAD(0, A0, A1, 0), DATA, 0), xlen == 64 ? M1 : 0xffffffff);
		CHECK_EQ(exec1(iss, LOAD(4, A0, A1, 0), DATA, 0), 0xff);
		CHECK_EQ(exec1(iss, LOAD(1, A0, A1, 2), DATA, 0),
			 xlen == 64 ? 0xffffffffffffccddull : 0xffffccdd);
		CHECK_EQ(exec1(iss, LOAD(5, A0, A1, 2), DATA, 0), 0xccdd);
		CHECK_EQ(exec1(iss, LOAD(2, A0, A1, 0), DATA, 0),
			 xlen == 64 ? 0xffffffffccddeeffull : 0xccddeeff);
		exec1(iss, STORE(0, A2, A1, 8), DATA, 0x7f);
		exec1(iss, STORE(1, A2, A1, 10), DATA, 0x1234);
		CHECK_EQ(spoor_iss_bus_read(iss, DATA + 8, 4, &v), 0);
		CHECK_EQ(v, 0x1234007f);
		exec1(iss, STORE(2, A2, A1, -4), DATA + 16, 0x55667788);
		CHECK_EQ(exec1(iss, LOAD(2, A0, A1, 12), DATA, 0), 0x55667788);
		if (xlen == 64) {
			CHECK_EQ(exec1(iss, LOAD(3, A0, A1, 0), DATA, 0), 0x8899aabbccddeeffull);
			CHECK_EQ(exec1(iss, LOAD(6, A0, A1, 0), DATA, 0), 0xccddeeff);
		} else {
			/* ld, lwu, sd are illegal on RV32. */
			exec1(iss, LOAD(3, A0, A1, 0), DATA, 0);
			CHECK_EQ(csr(iss, MCAUSE), 2);
			exec1(iss, LOAD(6, A0, A1, 0), DATA, 0);
			CHECK_EQ(csr(iss, MCAUSE), 2);
			/* Addresses wrap at 32 bits. */
			CHECK_EQ(exec1(iss, LOAD(2, A0, A1, -4), DATA + 4, 0), 0xccddeeff);
		}
		/* Misaligned: carried out by default. */
		CHECK_EQ(exec1(iss, LOAD(5, A0, A1, 1), DATA, 0), 0xddee);
		spoor_iss_free(iss);
	}
}

/* Branches (taken and not), jal, jalr, with the hook's flags. */
static void test_control(void)
{
	for (unsigned xlen = 32; xlen <= 64; xlen += 32) {
		struct spoor_iss *iss = mk(xlen);
		static const unsigned f3s[] = { 0, 1, 4, 5, 6, 7 };
		/* beq bne blt bge bltu bgeu with a1 = -1, a2 = 1. */
		static const int taken[] = { 0, 1, 1, 0, 0, 1 };

		for (unsigned i = 0; i < 6; i++) {
			exec1(iss, enc_b(-16, A2, A1, f3s[i]), M1, 1);
			CHECK_EQ(X(iss, SPOOR_ISS_REG_PC), taken[i] ? BASE - 16 : BASE + 4);
			CHECK_EQ(ev(0)->flags, SPOOR_ISS_F_BRANCH | (taken[i] ? SPOOR_ISS_F_TAKEN : 0));
			CHECK_EQ(ev(0)->kind, SPOOR_ISS_EV_RETIRE);
			CHECK_EQ(ev(0)->next_pc, X(iss, SPOOR_ISS_REG_PC));
		}
		exec1(iss, enc_j(0x800, A0), 0, 0);
		CHECK_EQ(X(iss, SPOOR_ISS_REG_PC), BASE + 0x800);
		CHECK_EQ(X(iss, A0), BASE + 4);
		CHECK_EQ(ev(0)->flags, SPOOR_ISS_F_JUMP);
		/* jalr: target bit 0 cleared; rd = rs1 reads before writing. */
		exec1(iss, JALR(A1, A1, 3), BASE + 0x100, 0);
		CHECK_EQ(X(iss, SPOOR_ISS_REG_PC), BASE + 0x102);
		CHECK_EQ(X(iss, A1), BASE + 4);
		CHECK_EQ(ev(0)->flags, SPOOR_ISS_F_JUMP | SPOOR_ISS_F_INDIRECT);
		CHECK_EQ(ev(0)->size, 4);
		CHECK_EQ(ev(0)->insn, JALR(A1, A1, 3));
		CHECK_EQ(ev(0)->priv, SPOOR_ISS_PRV_M);
		/* jalr with funct3 != 0 is illegal. */
		exec1(iss, JALR(A1, A1, 0) | 1 << 12, BASE, 0);
		CHECK_EQ(csr(iss, MCAUSE), 2);
		/* fence, fence.i and sfence.vma (M mode) are no-ops. */
		exec1(iss, FENCE, 0, 0);
		exec1(iss, FENCE_I, 0, 0);
		exec1(iss, SFENCE, 0, 0);
		CHECK_EQ(X(iss, SPOOR_ISS_REG_PC), BASE + 4);
		spoor_iss_free(iss);
	}
}

/* LR/SC and the AMOs, misaligned ones trapping. */
static void test_atomics(void)
{
	for (unsigned xlen = 32; xlen <= 64; xlen += 32) {
		struct spoor_iss *iss = mk(xlen);
		/* Memory 10, rs2 3 or -2: the new memory value; rd gets 10. */
		static const struct { unsigned f5; uint64_t b, mem; } amos[] = {
			{ 0x01, 3, 3 }, { 0x00, 3, 13 }, { 0x04, 3, 9 }, { 0x0c, 3, 2 },
			{ 0x08, 3, 11 }, { 0x10, (uint64_t)-2, 0xfffffffe },
			{ 0x14, (uint64_t)-2, 10 }, { 0x18, (uint64_t)-2, 10 },
			{ 0x1c, (uint64_t)-2, 0xfffffffe },
		};
		uint64_t v;

		for (unsigned i = 0; i < 9; i++) {
			spoor_iss_bus_write(iss, DATA, 4, 10);
			CHECK_EQ(exec1(iss, AMO(amos[i].f5, 2, A0, A1, A2), DATA, amos[i].b), 10);
			spoor_iss_bus_read(iss, DATA, 4, &v);
			CHECK_EQ(v, amos[i].mem);
		}
		/* amoadd.w returns the old value sign-extended. */
		spoor_iss_bus_write(iss, DATA, 4, 0x80000000);
		CHECK_EQ(exec1(iss, AMO(0x00, 2, A0, A1, A2), DATA, 1),
			 xlen == 64 ? 0xffffffff80000000ull : 0x80000000);
		/* lr/sc: success, then failure without a reservation. */
		CHECK_EQ(exec1(iss, AMO(0x02, 2, A0, A1, ZERO), DATA, 0), xlen == 64 ?
			 0xffffffff80000001ull : 0x80000001);
		CHECK_EQ(exec1(iss, AMO(0x03, 2, A0, A1, A2), DATA, 42), 0);
		spoor_iss_bus_read(iss, DATA, 4, &v);
		CHECK_EQ(v, 42);
		CHECK_EQ(exec1(iss, AMO(0x03, 2, A0, A1, A2), DATA, 43), 1);
		spoor_iss_bus_read(iss, DATA, 4, &v);
		CHECK_EQ(v, 42);
		/* Misaligned: LR -> load misaligned, AMO/SC -> store misaligned. */
		exec1(iss, AMO(0x02, 2, A0, A1, ZERO), DATA + 2, 0);
		CHECK_EQ(csr(iss, MCAUSE), 4);
		CHECK_EQ(csr(iss, MTVAL), DATA + 2);
		CHECK_EQ(ev(0)->kind, SPOOR_ISS_EV_EXCEPTION);
		exec1(iss, AMO(0x01, 2, A0, A1, A2), DATA + 1, 0);
		CHECK_EQ(csr(iss, MCAUSE), 6);
		/* Outside RAM: store/AMO access fault. */
		exec1(iss, AMO(0x00, 2, A0, A1, A2), 0x10000000, 0);
		CHECK_EQ(csr(iss, MCAUSE), 7);
		if (xlen == 64) {
			spoor_iss_bus_write(iss, DATA, 8, 1ull << 40);
			CHECK_EQ(exec1(iss, AMO(0x00, 3, A0, A1, A2), DATA, 1ull << 33), 1ull << 40);
			spoor_iss_bus_read(iss, DATA, 8, &v);
			CHECK_EQ(v, (1ull << 40) + (1ull << 33));
			CHECK_EQ(exec1(iss, AMO(0x10, 3, A0, A1, A2), DATA, M1), v);
			spoor_iss_bus_read(iss, DATA, 8, &v);
			CHECK_EQ(v, M1);
			exec1(iss, AMO(0x02, 3, A0, A1, ZERO), DATA, 0);
			CHECK_EQ(exec1(iss, AMO(0x03, 3, A0, A1, A2), DATA, 5), 0);
			exec1(iss, AMO(0x00, 3, A0, A1, A2), DATA + 4, 0);
			CHECK_EQ(csr(iss, MCAUSE), 6);
		} else {
			exec1(iss, AMO(0x00, 3, A0, A1, A2), DATA, 0);
			CHECK_EQ(csr(iss, MCAUSE), 2);
		}
		spoor_iss_free(iss);
	}
}

/* Runs the 16-bit parcels @h from BASE for @n instructions. */
static void run16(struct spoor_iss *iss, const uint16_t *h, size_t len, uint64_t n)
{
	CHECK_EQ(spoor_iss_load(iss, BASE, h, 2 * len), 0);
	setx(iss, SPOOR_ISS_REG_PC, BASE);
	CHECK_EQ(run(iss, n), SPOOR_ISS_STOP_COUNT);
}

/* The C extension (encodings from binutils). */
static void test_compressed(void)
{
	static const uint16_t alu[] = {
		0x4515,	/* c.li a0, 5 */
		0x1575,	/* c.addi a0, -3 */
		0x65c9,	/* c.lui a1, 0x12 */
		0x862a,	/* c.mv a2, a0 */
		0x962e,	/* c.add a2, a1 */
		0x8e09,	/* c.sub a2, a0 */
		0x8e29,	/* c.xor a2, a0 */
		0x8e49,	/* c.or a2, a0 */
		0x8e6d,	/* c.and a2, a1 */
		0x8a7d,	/* c.andi a2, 31 */
		0x060e,	/* c.slli a2, 3 */
		0x8205,	/* c.srli a2, 1 */
		0x8609,	/* c.srai a2, 2 */
		0x0001,	/* c.nop */
	};
	static const uint16_t mem[] = {
		0x7139,	/* c.addi16sp sp, -64 */
		0x0814,	/* c.addi4spn a3, sp, 16 */
		0xc42a,	/* c.swsp a0, 8(sp) */
		0x4722,	/* c.lwsp a4, 8(sp) */
		0xc2cc,	/* c.sw a1, 4(a3) */
		0x42dc,	/* c.lw a5, 4(a3) */
	};
	static const uint16_t mem64[] = {
		0xe82e,	/* c.sdsp a1, 16(sp) */
		0x6742,	/* c.ldsp a4, 16(sp) */
		0xe688,	/* c.sd a0, 8(a3) */
		0x669c,	/* c.ld a5, 8(a3) */
		0x2505,	/* c.addiw a0, 1 */
		0x9d2d,	/* c.addw a0, a1 */
		0x9d0d,	/* c.subw a0, a1 */
	};
	static const uint16_t jumps[] = {
		0xa019,	/* 0: c.j 6 */
		0x0001,
		0x0001,
		0xc111,	/* 6: c.beqz a0, a */
		0x0001,
		0xe111,	/* a: c.bnez a0, e */
		0x0001,
		0x8502,	/* e: c.jr a0 */
	};

	for (unsigned xlen = 32; xlen <= 64; xlen += 32) {
		struct spoor_iss *iss = mk(xlen);
		uint64_t mask = xlen == 64 ? M1 : 0xffffffff;
		uint64_t a2;

		run16(iss, alu, 14, 14);
		CHECK_EQ(X(iss, A0), 2);
		CHECK_EQ(X(iss, A1), 0x12000);
		a2 = ((((2 + 0x12000 - 2) ^ 2) | 2) & 0x12000 & 31) << 3;
		a2 = (a2 >> 1) >> 2;
		CHECK_EQ(X(iss, A2), a2);
		CHECK_EQ(X(iss, SPOOR_ISS_REG_PC), BASE + 28);
		CHECK_EQ(ev(0)->size, 2);
		CHECK_EQ(ev(0)->insn, 0x4515);
		/* c.srai of a negative value. */
		setx(iss, A2, (uint64_t)-64);
		run16(iss, &alu[12], 1, 1);
		CHECK_EQ(X(iss, A2), (uint64_t)-16 & mask);

		setx(iss, SP, DATA + 0x100);
		setx(iss, A0, 0x11223344);
		setx(iss, A1, 0x55667788);
		run16(iss, mem, 6, 6);
		CHECK_EQ(X(iss, SP), DATA + 0xc0);
		CHECK_EQ(X(iss, A3), DATA + 0xd0);
		CHECK_EQ(X(iss, A4), 0x11223344);
		CHECK_EQ(X(iss, A5), 0x55667788);
		if (xlen == 64) {
			setx(iss, A1, 0x0123456789abcdefull);
			setx(iss, A0, 0x7fffffff);
			run16(iss, mem64, 4, 4);
			CHECK_EQ(X(iss, A4), 0x0123456789abcdefull);
			CHECK_EQ(X(iss, A5), 0x7fffffff);
			setx(iss, A1, 1);
			run16(iss, &mem64[4], 3, 3);
			CHECK_EQ(X(iss, A0), 0xffffffff80000000ull);
		} else {
			/* c.jal (RV32; c.addiw on RV64). */
			static const uint16_t jal[] = { 0x2011, 0x0001, 0x0001 };

			run16(iss, jal, 3, 1);
			CHECK_EQ(X(iss, SPOOR_ISS_REG_PC), BASE + 4);
			CHECK_EQ(X(iss, RA), BASE + 2);
			/* c.ld is illegal on RV32. */
			run16(iss, &mem64[3], 1, 1);
			CHECK_EQ(csr(iss, MCAUSE), 2);
			CHECK_EQ(csr(iss, MTVAL), 0x669c);
		}

		setx(iss, A0, 0);
		run16(iss, jumps, 8, 2);	/* c.j, c.beqz taken */
		CHECK_EQ(X(iss, SPOOR_ISS_REG_PC), BASE + 0xa);
		CHECK_EQ(ev(1)->flags, SPOOR_ISS_F_BRANCH | SPOOR_ISS_F_TAKEN);
		CHECK_EQ(ev(0)->flags, SPOOR_ISS_F_JUMP);
		setx(iss, A0, BASE + 0x40);
		run16(iss, jumps, 8, 4);	/* c.j, c.beqz not taken, c.nop, c.bnez */
		CHECK_EQ(X(iss, SPOOR_ISS_REG_PC), BASE + 0xe);
		CHECK_EQ(run(iss, 1), SPOOR_ISS_STOP_COUNT);	/* c.jr a0 */
		CHECK_EQ(X(iss, SPOOR_ISS_REG_PC), BASE + 0x40);
		CHECK_EQ(ev(0)->flags, SPOOR_ISS_F_JUMP | SPOOR_ISS_F_INDIRECT);
		{
			static const uint16_t jalr[] = { 0x9502 };	/* c.jalr a0 */
			static const uint16_t zero[] = { 0x0000 };	/* illegal */
			static const uint16_t ebreak[] = { 0x9002 };

			run16(iss, jalr, 1, 1);
			CHECK_EQ(X(iss, RA), BASE + 2);
			run16(iss, zero, 1, 1);
			CHECK_EQ(csr(iss, MCAUSE), 2);
			CHECK_EQ(ev(0)->size, 2);
			run16(iss, ebreak, 1, 1);
			CHECK_EQ(csr(iss, MCAUSE), 3);
			CHECK_EQ(csr(iss, MTVAL), 0);	/* c.ebreak: as QEMU */
		}
		{
			/* c.slli a2, 33: RV64 only. */
			static const uint16_t sl[] = { 0x1606 };

			setx(iss, A2, 1);
			run16(iss, sl, 1, 1);
			if (xlen == 64)
				CHECK_EQ(X(iss, A2), 1ull << 33);
			else
				CHECK_EQ(csr(iss, MCAUSE), 2);
		}
		spoor_iss_free(iss);
	}
}

/* Zicsr: the six instructions, WARL fields, read-only and missing CSRs. */
static void test_csr(void)
{
	for (unsigned xlen = 32; xlen <= 64; xlen += 32) {
		struct spoor_iss *iss = mk(xlen);
		uint64_t v;

		CHECK_EQ(csr(iss, MISA), (xlen == 64 ? 2ull << 62 : 1ull << 30) | 0x141105);
		CHECK_EQ(exec1(iss, CSRRW(A0, MSCRATCH, A1), 0x1234, 0), 0);
		CHECK_EQ(exec1(iss, CSRRS(A0, MSCRATCH, A1), 0x00f0, 0), 0x1234);
		CHECK_EQ(exec1(iss, CSRRC(A0, MSCRATCH, A1), 0x0204, 0), 0x12f4);
		CHECK_EQ(exec1(iss, CSRRWI(A0, MSCRATCH, 7), 0, 0), 0x10f0);
		CHECK_EQ(exec1(iss, CSRRSI(A0, MSCRATCH, 8), 0, 0), 7);
		CHECK_EQ(exec1(iss, CSRRCI(A0, MSCRATCH, 1), 0, 0), 15);
		CHECK_EQ(csr(iss, MSCRATCH), 14);
		/* Writes of all ones: WARL legalisation. */
		exec1(iss, CSRRW(A0, MSTATUS, A1), M1, 0);
		v = csr(iss, MSTATUS);
		CHECK_EQ(v & 0x7e19aa, 0x7e19aa);
		CHECK_EQ(v & 0x1e000, 0);	/* no FS/XS/VS */
		if (xlen == 64)
			CHECK_EQ(v >> 32, 0xa);	/* UXL = SXL = 64 */
		/* MPP = 2 is reserved: kept. */
		exec1(iss, CSRRC(A0, MSTATUS, A1), 0x1800, 0);
		exec1(iss, CSRRS(A0, MSTATUS, A1), 0x1000, 0);
		CHECK_EQ(csr(iss, MSTATUS) & 0x1800, 0);
		CHECK_EQ(csr(iss, SSTATUS) & 0x1800, 0);
		exec1(iss, CSRRW(A0, MTVEC, A1), M1, 0);
		CHECK_EQ(csr(iss, MTVEC), (xlen == 64 ? M1 : 0xffffffff) & ~2ull);
		exec1(iss, CSRRW(A0, MEPC, A1), M1, 0);
		CHECK_EQ(csr(iss, MEPC), (xlen == 64 ? M1 : 0xffffffff) & ~1ull);
		exec1(iss, CSRRW(A0, MIE, A1), M1, 0);
		CHECK_EQ(csr(iss, MIE), 0xaaa);
		exec1(iss, CSRRW(A0, MIDELEG, A1), M1, 0);
		CHECK_EQ(csr(iss, MIDELEG), 0x222);
		CHECK_EQ(csr(iss, SIE), 0x222);
		exec1(iss, CSRRW(A0, MEDELEG, A1), M1, 0);
		CHECK_EQ(csr(iss, MEDELEG), 0xb3ff);
		exec1(iss, CSRRW(A0, MIP, A1), M1, 0);
		CHECK_EQ(csr(iss, MIP), 0x222);
		exec1(iss, CSRRW(A0, SATP, A1), M1, 0);
		CHECK_EQ(csr(iss, SATP), 0);	/* bare only */
		exec1(iss, CSRRW(A0, PMPADDR0, A1), 0x12345, 0);
		CHECK_EQ(csr(iss, PMPADDR0), 0x12345);
		exec1(iss, CSRRW(A0, PMPCFG0, A1), 0x1f, 0);
		CHECK_EQ(csr(iss, PMPCFG0), 0x1f);
		CHECK_EQ(spoor_iss_read_csr(iss, PMPCFG1, &v), xlen == 64 ? SPOOR_E_NO_CSR : 0);
		CHECK_EQ(spoor_iss_read_csr(iss, MSTATUSH, &v), xlen == 64 ? SPOOR_E_NO_CSR : 0);
		CHECK_EQ(spoor_iss_read_csr(iss, MCYCLEH, &v), xlen == 64 ? SPOOR_E_NO_CSR : 0);
		/* Read-only CSR written: illegal; csrrs with x0 only reads it. */
		exec1(iss, CSRRW(A0, MHARTID, A1), 1, 0);
		CHECK_EQ(csr(iss, MCAUSE), 2);
		CHECK_EQ(exec1(iss, CSRRS(A0, MHARTID, ZERO), 0, 0), 0);
		CHECK_EQ(X(iss, SPOOR_ISS_REG_PC), BASE + 4);
		/* Missing CSR: illegal, mtval = the instruction. */
		exec1(iss, CSRRS(A0, 0x7c0, ZERO), 0, 0);
		CHECK_EQ(csr(iss, MCAUSE), 2);
		CHECK_EQ(csr(iss, MTVAL), CSRRS(A0, 0x7c0, ZERO));
		/* dcsr from outside Debug Mode: illegal. */
		exec1(iss, CSRRS(A0, DCSR, ZERO), 0, 0);
		CHECK_EQ(csr(iss, MCAUSE), 2);
		/* Counters: minstret counts retired instructions. */
		setcsr(iss, MINSTRET, 100);
		CHECK_EQ(exec1(iss, CSRRS(A0, INSTRET, ZERO), 0, 0), 100);
		CHECK_EQ(exec1(iss, CSRRS(A0, MINSTRET, ZERO), 0, 0), 101);
		/* An instruction's own minstret write is what the next one sees. */
		exec1(iss, CSRRW(A0, MINSTRET, A1), 500, 0);
		CHECK_EQ(csr(iss, MINSTRET), 500);
		setcsr(iss, MCYCLE, 1000);
		CHECK_EQ(exec1(iss, CSRRS(A0, CYCLE, ZERO), 0, 0), 1000);
		CHECK_EQ(exec1(iss, CSRRS(A0, TIME, ZERO), 0, 0) > 0, 1);
		spoor_iss_free(iss);
	}
}

/* Returns to M mode as a debugger does: halt, dcsr.prv = M, resume. */
static void to_m(struct spoor_iss *iss)
{
	uint64_t pc = X(iss, SPOOR_ISS_REG_PC);

	CHECK_EQ(spoor_iss_enter_debug(iss, SPOOR_ISS_DEBUG_HALTREQ), 0);
	setcsr(iss, DCSR, csr(iss, DCSR) | 3);
	CHECK_EQ(spoor_iss_resume(iss), 0);
	CHECK_EQ(spoor_iss_priv(iss), SPOOR_ISS_PRV_M);
	CHECK_EQ(X(iss, SPOOR_ISS_REG_PC), pc);
}

/* Sets up a trap vector at VEC that just spins (jal x0, 0). */
static void vec_spin(struct spoor_iss *iss)
{
	uint32_t j = enc_j(0, ZERO);

	put(iss, VEC, &j, 1);
	setcsr(iss, MTVEC, VEC);
	setcsr(iss, STVEC, VEC + 0x100);
	put(iss, VEC + 0x100, &j, 1);
}

/* Synchronous exceptions and their CSR values. */
static void test_traps(void)
{
	for (unsigned xlen = 32; xlen <= 64; xlen += 32) {
		struct spoor_iss *iss = mk(xlen);
		struct spoor_iss_config cfg = { .xlen = xlen, .misaligned_traps = 1 };
		struct spoor_iss *strict;

		vec_spin(iss);
		setcsr(iss, MSTATUS, 0x8);	/* MIE */
		exec1(iss, ECALL, 0, 0);
		CHECK_EQ(X(iss, SPOOR_ISS_REG_PC), VEC);
		CHECK_EQ(csr(iss, MCAUSE), 11);
		CHECK_EQ(csr(iss, MEPC), BASE);
		CHECK_EQ(csr(iss, MTVAL), 0);
		CHECK_EQ(csr(iss, MSTATUS) & 0x1888, 0x1880);	/* MPP = M, MPIE, !MIE */
		CHECK_EQ(ev(0)->kind, SPOOR_ISS_EV_EXCEPTION);
		CHECK_EQ(ev(0)->cause, 11);
		CHECK_EQ(ev(0)->next_pc, VEC);
		CHECK_EQ(spoor_iss_instret(iss), 0);	/* ecall did not retire */
		exec1(iss, EBREAK, 0, 0);
		CHECK_EQ(csr(iss, MCAUSE), 3);
		CHECK_EQ(csr(iss, MTVAL), 0);	/* as QEMU: the spec allows 0 or the pc */
		exec1(iss, 0xffffffff, 0, 0);
		CHECK_EQ(csr(iss, MCAUSE), 2);
		CHECK_EQ(csr(iss, MTVAL), 0xffffffff);
		/* Load and store access faults: nothing at 0x4000000. */
		exec1(iss, LOAD(2, A0, A1, 0), 0x4000000, 0);
		CHECK_EQ(csr(iss, MCAUSE), 5);
		CHECK_EQ(csr(iss, MTVAL), 0x4000000);
		CHECK_EQ(ev(0)->tval, 0x4000000);
		exec1(iss, STORE(2, A2, A1, 0), 0x4000000, 0);
		CHECK_EQ(csr(iss, MCAUSE), 7);
		/* Writes to the boot ROM are ignored (as by QEMU). */
		exec1(iss, STORE(2, A2, A1, 0), 0x1000, 0);
		CHECK_EQ(X(iss, SPOOR_ISS_REG_PC), BASE + 4);
		/* Instruction access fault: no instruction, size 0. */
		setx(iss, SPOOR_ISS_REG_PC, 0x4000000);
		CHECK_EQ(run(iss, 1), SPOOR_ISS_STOP_COUNT);
		CHECK_EQ(csr(iss, MCAUSE), 1);
		CHECK_EQ(csr(iss, MEPC), 0x4000000);
		CHECK_EQ(ev(0)->kind, SPOOR_ISS_EV_EXCEPTION);
		CHECK_EQ(ev(0)->size, 0);
		/* A 32-bit instruction whose second half is past RAM's end. */
		{
			uint16_t h = 0x0013 & 0xffff;

			spoor_iss_load(iss, BASE + (1 << 20) - 2, &h, 2);
			setx(iss, SPOOR_ISS_REG_PC, BASE + (1 << 20) - 2);
			run(iss, 1);
			CHECK_EQ(csr(iss, MCAUSE), 1);
			CHECK_EQ(csr(iss, MTVAL), BASE + (1 << 20));
		}
		/* Misaligned loads and stores trap when configured so. */
		strict = spoor_iss_new(&cfg);
		spoor_iss_set_hook(strict, hook, NULL);
		vec_spin(strict);
		exec1(strict, LOAD(2, A0, A1, 1), DATA, 0);
		CHECK_EQ(csr(strict, MCAUSE), 4);
		CHECK_EQ(csr(strict, MTVAL), DATA + 1);
		exec1(strict, STORE(1, A2, A1, 3), DATA, 0);
		CHECK_EQ(csr(strict, MCAUSE), 6);
		CHECK_EQ(exec1(strict, LOAD(1, A0, A1, 2), DATA, 0), 0);
		CHECK_EQ(X(strict, SPOOR_ISS_REG_PC), BASE + 4);
		spoor_iss_free(strict);
		spoor_iss_free(iss);
	}
}

/*
 * Trap after trap: with mtvec 0 (nothing mapped there) every trap's handler
 * fetch faults, for ever, as QEMU's -d int logs it: cause 1, mepc and mtval
 * 0, no instruction retired, the hart still in M mode.
 */
static void test_trap_after_trap(void)
{
	const uint32_t first[] = { 0xc0001073u, STORE(2, A2, A1, 0), ECALL };
	static const uint64_t cause[] = { 2, 7, 11 };
	static const uint64_t tval[] = { 0xc0001073u, 0x4000000, 0 };

	for (unsigned xlen = 32; xlen <= 64; xlen += 32) {
		for (unsigned k = 0; k < 3; k++) {
			struct spoor_iss *iss = mk(xlen);

			setcsr(iss, MTVAL, 0x1234);
			exec1(iss, first[k], 0x4000000, 0);
			CHECK_EQ(csr(iss, MCAUSE), cause[k]);
			CHECK_EQ(csr(iss, MEPC), BASE);
			CHECK_EQ(csr(iss, MTVAL), tval[k]);
			CHECK_EQ(ev(0)->kind, SPOOR_ISS_EV_EXCEPTION);
			CHECK_EQ(ev(0)->next_pc, 0);
			CHECK_EQ(run(iss, 3), SPOOR_ISS_STOP_COUNT);
			for (unsigned i = 0; i < 3; i++) {
				CHECK_EQ(ev(i)->kind, SPOOR_ISS_EV_EXCEPTION);
				CHECK_EQ(ev(i)->cause, 1);
				CHECK_EQ(ev(i)->pc, 0);
				CHECK_EQ(ev(i)->tval, 0);
				CHECK_EQ(ev(i)->size, 0);
				CHECK_EQ(ev(i)->next_pc, 0);
			}
			CHECK_EQ(nevents, 3);
			CHECK_EQ(csr(iss, MCAUSE), 1);
			CHECK_EQ(csr(iss, MEPC), 0);
			CHECK_EQ(csr(iss, MTVAL), 0);
			CHECK_EQ(csr(iss, MSTATUS) & 0x1800, 0x1800);	/* MPP = M */
			CHECK_EQ(spoor_iss_priv(iss), 3);
			CHECK_EQ(spoor_iss_instret(iss), 0);
			spoor_iss_free(iss);
		}
	}
}

/* mret/sret privilege changes, illegal privileged instructions. */
static void test_privilege(void)
{
	for (unsigned xlen = 32; xlen <= 64; xlen += 32) {
		struct spoor_iss *iss = mk(xlen);
		uint32_t prog[] = { MRET, ECALL, NOP };

		vec_spin(iss);
		/* mret to U: MPP = U, MPIE = 1. */
		put(iss, BASE, prog, 3);
		setcsr(iss, MEPC, BASE + 4);
		setcsr(iss, MSTATUS, 0x80);
		run(iss, 1);
		CHECK_EQ(spoor_iss_priv(iss), SPOOR_ISS_PRV_U);
		CHECK_EQ(X(iss, SPOOR_ISS_REG_PC), BASE + 4);
		CHECK_EQ(csr(iss, MSTATUS) & 0x1888, 0x88);	/* MIE = MPIE, MPIE = 1, MPP = U */
		CHECK_EQ(ev(0)->flags, SPOOR_ISS_F_XRET);
		CHECK_EQ(ev(0)->priv, SPOOR_ISS_PRV_M);
		run(iss, 1);	/* ecall from U */
		CHECK_EQ(csr(iss, MCAUSE), 8);
		CHECK_EQ(spoor_iss_priv(iss), SPOOR_ISS_PRV_M);
		CHECK_EQ(csr(iss, MSTATUS) & 0x1800, 0);	/* MPP = U */
		CHECK_EQ(ev(0)->priv, SPOOR_ISS_PRV_U);
		/* In U: mret, sret, wfi, sfence.vma, M CSRs are illegal. */
		{
			static const uint32_t bad[] = { MRET, SRET, WFI, SFENCE, CSRRS(A0, MSTATUS, ZERO),
							CSRRS(A0, SSTATUS, ZERO) };

			for (unsigned i = 0; i < 6; i++) {
				setcsr(iss, MSTATUS, 0);
				setcsr(iss, MEPC, BASE);
				put(iss, BASE + 4, &bad[i], 1);
				put(iss, BASE, prog, 1);
				setx(iss, SPOOR_ISS_REG_PC, BASE);
				setcsr(iss, MEPC, BASE + 4);
				run(iss, 2);
				CHECK_EQ(csr(iss, MCAUSE), 2);
				CHECK_EQ(csr(iss, MEPC), BASE + 4);
			}
		}
		/* Counters from U need mcounteren and scounteren. */
		{
			uint32_t rd = CSRRS(A0, CYCLE, ZERO);

			put(iss, BASE + 4, &rd, 1);
			setcsr(iss, MCOUNTEREN, 1);
			setcsr(iss, 0x106, 1);
			setcsr(iss, MSTATUS, 0);
			setx(iss, SPOOR_ISS_REG_PC, BASE);
			setcsr(iss, MCAUSE, 0);
			run(iss, 2);
			CHECK_EQ(X(iss, SPOOR_ISS_REG_PC), BASE + 8);
			CHECK_EQ(csr(iss, MCAUSE), 0);
		}
		/* mret to S, sret to U with SPP = U; TSR makes sret illegal in S. */
		{
			uint32_t p2[] = { MRET, SRET, NOP, NOP };

			to_m(iss);
			put(iss, BASE, p2, 4);
			setx(iss, SPOOR_ISS_REG_PC, BASE);
			setcsr(iss, MSTATUS, 0x800 | 0x20);	/* MPP = S, SPIE */
			setcsr(iss, MEPC, BASE + 4);
			setcsr(iss, SEPC, BASE + 12);
			run(iss, 1);
			CHECK_EQ(spoor_iss_priv(iss), SPOOR_ISS_PRV_S);
			run(iss, 1);
			CHECK_EQ(spoor_iss_priv(iss), SPOOR_ISS_PRV_U);
			CHECK_EQ(X(iss, SPOOR_ISS_REG_PC), BASE + 12);
			CHECK_EQ(csr(iss, SSTATUS) & 0x122, 0x22);	/* SIE = SPIE, SPIE = 1, SPP = U */
			to_m(iss);
			setx(iss, SPOOR_ISS_REG_PC, BASE);
			setcsr(iss, MSTATUS, 0x800 | 0x400000);	/* MPP = S, TSR */
			run(iss, 2);
			CHECK_EQ(csr(iss, MCAUSE), 2);
			CHECK_EQ(csr(iss, MEPC), BASE + 4);
		}
		spoor_iss_free(iss);
	}
}

/* Delegation of exceptions and interrupts to S mode. */
static void test_delegation(void)
{
	for (unsigned xlen = 32; xlen <= 64; xlen += 32) {
		struct spoor_iss *iss = mk(xlen);
		uint32_t prog[] = { MRET, ECALL, NOP, NOP };
		uint64_t irq = 1ull << (xlen - 1);

		vec_spin(iss);
		put(iss, BASE, prog, 4);
		setcsr(iss, MEDELEG, 1 << 8);
		setcsr(iss, MSTATUS, 0x2);	/* SIE, MPP = U */
		setcsr(iss, MEPC, BASE + 4);
		run(iss, 2);
		CHECK_EQ(spoor_iss_priv(iss), SPOOR_ISS_PRV_S);
		CHECK_EQ(X(iss, SPOOR_ISS_REG_PC), VEC + 0x100);
		CHECK_EQ(csr(iss, SCAUSE), 8);
		CHECK_EQ(csr(iss, SEPC), BASE + 4);
		CHECK_EQ(csr(iss, STVAL), 0);
		CHECK_EQ(csr(iss, SSTATUS) & 0x122, 0x20);	/* SPP = U, SPIE = SIE, !SIE */
		CHECK_EQ(csr(iss, MCAUSE), 0);
		/* ecall from S is not delegated. */
		setcsr(iss, MEDELEG, 1 << 9 | 1 << 8);
		CHECK_EQ(csr(iss, MEDELEG), 1 << 9 | 1 << 8);
		setx(iss, SPOOR_ISS_REG_PC, BASE + 4);
		run(iss, 1);
		CHECK_EQ(csr(iss, SCAUSE), 9);
		CHECK_EQ(csr(iss, SSTATUS) & 0x100, 0x100);	/* SPP = S */
		/* ecall from M is never delegated. */
		to_m(iss);
		setcsr(iss, MEDELEG, 0xffff);
		exec1(iss, ECALL, 0, 0);
		CHECK_EQ(spoor_iss_priv(iss), SPOOR_ISS_PRV_M);
		CHECK_EQ(csr(iss, MCAUSE), 11);

		/* Delegated software interrupt: pending in M, taken once in U. */
		put(iss, BASE, prog, 4);
		setcsr(iss, MIDELEG, 0x2);
		setcsr(iss, MIE, 0x2);
		setcsr(iss, MIP, 0x2);
		CHECK_EQ(csr(iss, SIP), 0x2);
		setcsr(iss, MSTATUS, 0x8);	/* MIE; S interrupts stay off in M */
		setx(iss, SPOOR_ISS_REG_PC, BASE + 8);
		run(iss, 2);
		CHECK_EQ(X(iss, SPOOR_ISS_REG_PC), BASE + 16);
		setcsr(iss, MEPC, BASE + 8);
		setx(iss, SPOOR_ISS_REG_PC, BASE);
		run(iss, 2);	/* mret to U, the interrupt before BASE + 8, the spin */
		CHECK_EQ(X(iss, SPOOR_ISS_REG_PC), VEC + 0x100);
		CHECK_EQ(csr(iss, SCAUSE), irq | 1);
		CHECK_EQ(csr(iss, SEPC), BASE + 8);
		CHECK_EQ(nevents, 3);
		CHECK_EQ(ev(1)->kind, SPOOR_ISS_EV_INTERRUPT);
		CHECK_EQ(ev(1)->pc, BASE + 8);
		CHECK_EQ(ev(1)->cause, 1);
		CHECK_EQ(ev(1)->priv, SPOOR_ISS_PRV_U);
		CHECK_EQ(ev(1)->next_pc, VEC + 0x100);
		CHECK_EQ(ev(2)->pc, VEC + 0x100);
		CHECK_EQ(ev(2)->priv, SPOOR_ISS_PRV_S);
		/* Vectored stvec: base + 4 * cause. */
		setcsr(iss, STVEC, (VEC + 0x100) | 1);
		to_m(iss);
		setcsr(iss, MSTATUS, 0x8);
		setx(iss, SPOOR_ISS_REG_PC, BASE);
		run(iss, 2);
		CHECK_EQ(ev(1)->next_pc, VEC + 0x104);
		/* sip.SSIP writable from S view when delegated. */
		setcsr(iss, SIP, 0);
		CHECK_EQ(csr(iss, MIP), 0);
		spoor_iss_free(iss);
	}
}

/* CLINT timer and software interrupts, wfi, the time divisor. */
static void test_interrupts(void)
{
	for (unsigned xlen = 32; xlen <= 64; xlen += 32) {
		struct spoor_iss_config cfg = { .xlen = xlen, .time_divisor = 10 };
		struct spoor_iss *iss = spoor_iss_new(&cfg);
		uint32_t loop[] = { ADDI(A0, A0, 1), enc_j(-4, ZERO) };
		uint64_t irq = 1ull << (xlen - 1), v;

		spoor_iss_set_hook(iss, hook, NULL);
		vec_spin(iss);
		put(iss, BASE, loop, 2);
		setx(iss, SPOOR_ISS_REG_PC, BASE);
		/* mtime = executed instructions / 10 (no wall clock). */
		CHECK_EQ(run(iss, 100), SPOOR_ISS_STOP_COUNT);
		CHECK_EQ(spoor_iss_bus_read(iss, 0x200bff8, 8, &v), 0);
		CHECK_EQ(v, 10);
		CHECK_EQ(csr(iss, TIME), 10);
		CHECK_EQ(spoor_iss_bus_write(iss, 0x2004000, 8, 15), 0);
		setcsr(iss, MIE, 0x80);
		setcsr(iss, MSTATUS, 0x8);
		CHECK_EQ(run(iss, 100), SPOOR_ISS_STOP_COUNT);
		CHECK_EQ(X(iss, SPOOR_ISS_REG_PC), VEC);
		CHECK_EQ(csr(iss, MCAUSE), irq | 7);
		CHECK_EQ(X(iss, A0), 75);	/* 150 instructions, 75 addi */
		CHECK_EQ(csr(iss, MIP) & 0x80, 0x80);
		/* Vectored mtvec. */
		setcsr(iss, MTVEC, VEC | 1);
		setcsr(iss, MSTATUS, 0x8);
		setx(iss, SPOOR_ISS_REG_PC, BASE);
		run(iss, 1);
		CHECK_EQ(ev(0)->kind, SPOOR_ISS_EV_INTERRUPT);
		CHECK_EQ(ev(0)->next_pc, VEC + 4 * 7);
		CHECK_EQ(ev(1)->pc, VEC + 4 * 7);	/* zeros there: illegal */
		CHECK_EQ(ev(1)->kind, SPOOR_ISS_EV_EXCEPTION);
		/* wfi skips ahead to mtimecmp. */
		{
			uint32_t w[] = { WFI, NOP };

			setcsr(iss, MTVEC, VEC);
			put(iss, BASE, w, 2);
			spoor_iss_bus_read(iss, 0x200bff8, 8, &v);
			spoor_iss_bus_write(iss, 0x2004000, 4, v + 1000);
			spoor_iss_bus_write(iss, 0x2004004, 4, (v + 1000) >> 32);
			setcsr(iss, MSTATUS, 0);	/* wfi wakes with MIE = 0 too */
			setx(iss, SPOOR_ISS_REG_PC, BASE);
			CHECK_EQ(run(iss, 1), SPOOR_ISS_STOP_COUNT);
			CHECK_EQ(X(iss, SPOOR_ISS_REG_PC), BASE + 4);
			spoor_iss_bus_read(iss, 0x200bff8, 8, &v);
			spoor_iss_bus_read(iss, 0x2004000, 8, &irq);
			CHECK_EQ(v >= irq, 1);
			CHECK_EQ(csr(iss, MIP) & 0x80, 0x80);
			/* Nothing to wake: STOP_IDLE, then it goes on. */
			setcsr(iss, MIE, 0);
			setx(iss, SPOOR_ISS_REG_PC, BASE);
			CHECK_EQ(run(iss, 5), SPOOR_ISS_STOP_IDLE);
			CHECK_EQ(X(iss, SPOOR_ISS_REG_PC), BASE + 4);
			CHECK_EQ(run(iss, 1), SPOOR_ISS_STOP_COUNT);
			/* wfi with TW from S: illegal. */
			setcsr(iss, MSTATUS, 0x800 | 0x200000);
			setcsr(iss, MEPC, BASE);
			put(iss, BASE + 8, (uint32_t[]){ MRET }, 1);
			setx(iss, SPOOR_ISS_REG_PC, BASE + 8);
			run(iss, 2);
			CHECK_EQ(csr(iss, MCAUSE), 2);
		}
		/* Software interrupt through msip, taken right after the store. */
		{
			uint32_t p[] = { STORE(2, A2, A1, 0), NOP };

			put(iss, BASE, p, 2);
			setcsr(iss, MIE, 0x8);
			setcsr(iss, MSTATUS, 0x8);
			exec1(iss, p[0], 0x2000000, 1);
			CHECK_EQ(run(iss, 1), SPOOR_ISS_STOP_COUNT);
			CHECK_EQ(csr(iss, MCAUSE), (1ull << (xlen - 1)) | 3);
			CHECK_EQ(csr(iss, MEPC), BASE + 4);
			spoor_iss_bus_read(iss, 0x2000000, 4, &v);
			CHECK_EQ(v, 1);
		}
		spoor_iss_free(iss);
	}
}

/* Debug Mode: ebreak with dcsr.ebreakm, halt, single step, program buffer, dret. */
static void test_debug(void)
{
	for (unsigned xlen = 32; xlen <= 64; xlen += 32) {
		struct spoor_iss *iss = mk(xlen);
		uint32_t prog[] = { ADDI(A0, A0, 1), EBREAK, ADDI(A0, A0, 2), ADDI(A0, A0, 4), NOP };
		uint32_t pbuf[] = { CSRRS(A1, DPC, ZERO), CSRRS(A2, DCSR, ZERO), EBREAK };
		uint64_t dcsr;

		vec_spin(iss);
		dcsr = csr(iss, DCSR);
		CHECK_EQ(dcsr >> 28, 4);	/* xdebugver */
		CHECK_EQ(dcsr & 3, 3);
		CHECK_EQ(spoor_iss_halted(iss), 0);
		put(iss, BASE, prog, 5);
		setcsr(iss, DCSR, dcsr | SPOOR_ISS_DCSR_EBREAKM);
		CHECK_EQ(run(iss, 10), SPOOR_ISS_STOP_HALTED);
		CHECK_EQ(nevents, 2);
		CHECK_EQ(ev(1)->kind, SPOOR_ISS_EV_DEBUG);
		CHECK_EQ(ev(1)->cause, SPOOR_ISS_DEBUG_EBREAK);
		CHECK_EQ(ev(1)->pc, BASE + 4);
		CHECK_EQ(spoor_iss_halted(iss), 1);
		CHECK_EQ(csr(iss, DPC), BASE + 4);
		CHECK_EQ((csr(iss, DCSR) >> 6) & 7, SPOOR_ISS_DEBUG_EBREAK);
		CHECK_EQ(X(iss, A0), 1);
		CHECK_EQ(spoor_iss_instret(iss), 1);
		/* Halted: nothing runs. */
		CHECK_EQ(run(iss, 10), SPOOR_ISS_STOP_HALTED);
		CHECK_EQ(nevents, 0);
		/* The program buffer reads dpc and dcsr, ebreak returns. */
		put(iss, DATA, pbuf, 3);
		CHECK_EQ(spoor_iss_debug_exec(iss, DATA, 10), 0);
		CHECK_EQ(X(iss, A1), BASE + 4);
		CHECK_EQ((X(iss, A2) >> 6) & 7, 1);
		CHECK_EQ(spoor_iss_halted(iss), 1);
		/* An exception in the program buffer changes no trap CSR. */
		setcsr(iss, MCAUSE, 0);
		put(iss, DATA, (uint32_t[]){ LOAD(2, A0, ZERO, 0) }, 1);
		CHECK_EQ(spoor_iss_debug_exec(iss, DATA, 10), SPOOR_E_ACCESS);
		put(iss, DATA, (uint32_t[]){ 0xffffffff }, 1);
		CHECK_EQ(spoor_iss_debug_exec(iss, DATA, 10), SPOOR_E_BAD_INSN);
		CHECK_EQ(csr(iss, MCAUSE), 0);
		put(iss, DATA, (uint32_t[]){ NOP, enc_j(-4, ZERO) }, 2);
		CHECK_EQ(spoor_iss_debug_exec(iss, DATA, 10), SPOOR_E_RANGE);
		/* Single step over the next instruction. */
		setcsr(iss, DPC, BASE + 8);
		setcsr(iss, DCSR, csr(iss, DCSR) | SPOOR_ISS_DCSR_STEP);
		CHECK_EQ(spoor_iss_resume(iss), 0);
		CHECK_EQ(spoor_iss_halted(iss), 0);
		CHECK_EQ(run(iss, 10), SPOOR_ISS_STOP_HALTED);
		CHECK_EQ(X(iss, A0), 3);
		CHECK_EQ(csr(iss, DPC), BASE + 12);
		CHECK_EQ((csr(iss, DCSR) >> 6) & 7, SPOOR_ISS_DEBUG_STEP);
		/* One more step, with spoor_iss_step(1). */
		CHECK_EQ(spoor_iss_resume(iss), 0);
		CHECK_EQ(run(iss, 1), SPOOR_ISS_STOP_HALTED);
		CHECK_EQ(X(iss, A0), 7);
		/* dret from the program buffer resumes (step cleared). */
		setcsr(iss, DCSR, csr(iss, DCSR) & ~(uint64_t)SPOOR_ISS_DCSR_STEP);
		put(iss, DATA, (uint32_t[]){ DRET }, 1);
		CHECK_EQ(spoor_iss_debug_exec(iss, DATA, 10), 1);
		CHECK_EQ(spoor_iss_halted(iss), 0);
		CHECK_EQ(X(iss, SPOOR_ISS_REG_PC), BASE + 16);
		/* dret outside Debug Mode: illegal. */
		exec1(iss, DRET, 0, 0);
		CHECK_EQ(csr(iss, MCAUSE), 2);
		/* Halt request, privilege kept in dcsr.prv; resume to U. */
		put(iss, BASE, prog, 1);
		setcsr(iss, MSTATUS, 0);
		setcsr(iss, MEPC, BASE);
		exec1(iss, MRET, 0, 0);
		CHECK_EQ(spoor_iss_priv(iss), SPOOR_ISS_PRV_U);
		CHECK_EQ(spoor_iss_enter_debug(iss, SPOOR_ISS_DEBUG_HALTREQ), 0);
		CHECK_EQ(csr(iss, DCSR) & 3, SPOOR_ISS_PRV_U);
		CHECK_EQ((csr(iss, DCSR) >> 6) & 7, SPOOR_ISS_DEBUG_HALTREQ);
		CHECK_EQ(spoor_iss_enter_debug(iss, SPOOR_ISS_DEBUG_HALTREQ), SPOOR_E_INVAL);
		CHECK_EQ(spoor_iss_resume(iss), 0);
		CHECK_EQ(spoor_iss_priv(iss), SPOOR_ISS_PRV_U);
		/* ebreak in U: a breakpoint exception unless dcsr.ebreaku. */
		put(iss, BASE, (uint32_t[]){ EBREAK }, 1);
		setx(iss, SPOOR_ISS_REG_PC, BASE);
		run(iss, 1);
		CHECK_EQ(csr(iss, MCAUSE), 3);
		setcsr(iss, DCSR, csr(iss, DCSR) | SPOOR_ISS_DCSR_EBREAKU);
		setcsr(iss, MSTATUS, 0);
		exec1(iss, MRET, 0, 0);
		put(iss, BASE, (uint32_t[]){ EBREAK }, 1);
		CHECK_EQ(run(iss, 2), SPOOR_ISS_STOP_HALTED);
		CHECK_EQ(csr(iss, DCSR) & 3, SPOOR_ISS_PRV_U);
		spoor_iss_free(iss);
	}
}

/* Boot ROM, UART, test device, self-modifying code. */
static void test_board(void)
{
	for (unsigned xlen = 32; xlen <= 64; xlen += 32) {
		struct spoor_iss_config cfg = { .xlen = xlen, .hartid = 0, .fdt_addr = 0x87e00000,
						.uart_tx = uart };
		struct spoor_iss *iss = spoor_iss_new(&cfg);
		uint32_t prog[] = {
			LUI(A1, 0x10000),	/* a1 = UART */
			LOAD(4, A3, A1, 5),	/* LSR */
			ADDI(A2, ZERO, 'h'),
			STORE(0, A2, A1, 0),
			ADDI(A2, ZERO, 'i'),
			STORE(0, A2, A1, 0),
			LUI(A1, 0x100),		/* test device */
			LUI(A2, 0x2a003),	/* 0x2a003000 */
			ADDI(A2, A2, 0x333),	/* fail code 0x2a00 */
			STORE(2, A2, A1, 0),
			NOP,
		};
		uint64_t v;

		CHECK_EQ(X(iss, SPOOR_ISS_REG_PC), 0x1000);
		CHECK_EQ(spoor_iss_priv(iss), SPOOR_ISS_PRV_M);
		put(iss, BASE, prog, 11);
		uart_len = 0;
		CHECK_EQ(spoor_iss_step(iss, 6), SPOOR_ISS_STOP_COUNT);	/* the ROM */
		CHECK_EQ(X(iss, SPOOR_ISS_REG_PC), BASE);
		CHECK_EQ(X(iss, A0), 0);
		CHECK_EQ(X(iss, A1), 0x87e00000);
		CHECK_EQ(X(iss, A2), 0x1028);
		CHECK_EQ(spoor_iss_step(iss, 100), SPOOR_ISS_STOP_EXIT);
		CHECK_EQ(spoor_iss_exit_code(iss), 0x2a00);
		CHECK_EQ(X(iss, A3), 0x60);
		CHECK_EQ(X(iss, SPOOR_ISS_REG_PC), BASE + 40);
		CHECK(uart_len == 2 && !memcmp(uart_buf, "hi", 2));
		CHECK_EQ(spoor_iss_step(iss, 100), SPOOR_ISS_STOP_EXIT);
		/* Pass, then reset. */
		CHECK_EQ(spoor_iss_reset(iss), 0);
		CHECK_EQ(spoor_iss_bus_write(iss, 0x100000, 4, 0x5555), 0);
		CHECK_EQ(spoor_iss_step(iss, 1), SPOOR_ISS_STOP_EXIT);
		CHECK_EQ(spoor_iss_exit_code(iss), 0);
		spoor_iss_reset(iss);
		setx(iss, SPOOR_ISS_REG_PC, BASE + 20);
		CHECK_EQ(spoor_iss_bus_write(iss, 0x100000, 4, 0x7777), 0);
		CHECK_EQ(spoor_iss_step(iss, 1), SPOOR_ISS_STOP_RESET);
		CHECK_EQ(X(iss, SPOOR_ISS_REG_PC), 0x1000);
		/* Devices through the bus. */
		CHECK_EQ(spoor_iss_bus_read(iss, 0x10000005, 1, &v), 0);
		CHECK_EQ(v, 0x60);
		CHECK_EQ(spoor_iss_bus_read(iss, 0x10000000, 1, &v), 0);
		CHECK_EQ(v, 0);
		CHECK_EQ(spoor_iss_bus_read(iss, 0x1018, 4, &v), 0);
		CHECK_EQ(v, BASE);
		CHECK_EQ(spoor_iss_bus_read(iss, 0x2004004, 8, &v), SPOOR_E_ACCESS);
		CHECK_EQ(spoor_iss_bus_read(iss, 0x3000000, 4, &v), SPOOR_E_ACCESS);
		CHECK_EQ(spoor_iss_bus_read(iss, BASE + (1 << 20) - 2, 4, &v), 0);
		/* Self-modifying code: a store over a decoded instruction. */
		{
			uint32_t smc[] = { ADDI(A0, ZERO, 1), STORE(2, A2, A1, 0), enc_j(-8, ZERO) };

			spoor_iss_set_start(iss, BASE);
			put(iss, BASE, smc, 3);
			setx(iss, SPOOR_ISS_REG_PC, BASE);
			setx(iss, A1, BASE);
			setx(iss, A2, ADDI(A0, ZERO, 2));
			spoor_iss_step(iss, 4);
			CHECK_EQ(X(iss, A0), 2);
			CHECK_EQ(X(iss, SPOOR_ISS_REG_PC), BASE + 4);
		}
		spoor_iss_free(iss);
	}
}

/* ELF loading and a whole program (the hello test program). */
static void test_elf(void)
{
	static const char *const elfs[2] = { ISS_HELLO_RV32, ISS_HELLO_RV64 };

	for (unsigned i = 0; i < 2; i++) {
		struct spoor_iss_config cfg = { .xlen = 32 + 32 * i, .uart_tx = uart };
		struct spoor_iss *iss = spoor_iss_new(&cfg);
		struct spoor_iss_config other = { .xlen = 64 - 32 * i };
		struct spoor_iss *wrong = spoor_iss_new(&other);
		uint64_t entry = 0;

		CHECK_EQ(spoor_iss_elf_xlen(elfs[i]), 32 + 32 * i);
		CHECK_EQ(spoor_iss_load_elf(wrong, elfs[i], NULL), SPOOR_E_BAD_ELF);
		CHECK_EQ(spoor_iss_load_elf(iss, elfs[i], &entry), 0);
		CHECK_EQ(entry, BASE);
		uart_len = 0;
		CHECK_EQ(spoor_iss_step(iss, 1000000), SPOOR_ISS_STOP_EXIT);
		CHECK_EQ(spoor_iss_exit_code(iss), 0);
		uart_buf[uart_len] = 0;
		CHECK(strstr(uart_buf, "PASS\n") != NULL);
		spoor_iss_free(iss);
		spoor_iss_free(wrong);
	}
}

/* NULL and invalid arguments. */
static void test_api(void)
{
	struct spoor_iss_config bad = { .xlen = 48 };
	struct spoor_iss *iss;
	uint64_t v;

	CHECK(spoor_iss_new(&bad) == NULL);
	bad.xlen = 64;
	bad.ram_size = 1000;
	CHECK(spoor_iss_new(&bad) == NULL);
	bad.xlen = 32;
	bad.ram_size = 4ull << 30;
	CHECK(spoor_iss_new(&bad) == NULL);
	spoor_iss_free(NULL);
	CHECK_EQ(spoor_iss_reset(NULL), SPOOR_E_INVAL);
	CHECK_EQ(spoor_iss_step(NULL, 1), SPOOR_E_INVAL);
	CHECK_EQ(spoor_iss_load_elf(NULL, "x", NULL), SPOOR_E_INVAL);
	CHECK_EQ(spoor_iss_load(NULL, BASE, "x", 1), SPOOR_E_INVAL);
	CHECK_EQ(spoor_iss_set_start(NULL, BASE), SPOOR_E_INVAL);
	CHECK_EQ(spoor_iss_set_hook(NULL, hook, NULL), SPOOR_E_INVAL);
	CHECK_EQ(spoor_iss_read_reg(NULL, 1, &v), SPOOR_E_INVAL);
	CHECK_EQ(spoor_iss_write_reg(NULL, 1, 0), SPOOR_E_INVAL);
	CHECK_EQ(spoor_iss_read_csr(NULL, MSTATUS, &v), SPOOR_E_INVAL);
	CHECK_EQ(spoor_iss_write_csr(NULL, MSTATUS, 0), SPOOR_E_INVAL);
	CHECK_EQ(spoor_iss_bus_read(NULL, BASE, 4, &v), SPOOR_E_INVAL);
	CHECK_EQ(spoor_iss_bus_write(NULL, BASE, 4, 0), SPOOR_E_INVAL);
	CHECK_EQ(spoor_iss_enter_debug(NULL, 1), SPOOR_E_INVAL);
	CHECK_EQ(spoor_iss_halted(NULL), SPOOR_E_INVAL);
	CHECK_EQ(spoor_iss_resume(NULL), SPOOR_E_INVAL);
	CHECK_EQ(spoor_iss_debug_exec(NULL, BASE, 1), SPOOR_E_INVAL);
	CHECK_EQ(spoor_iss_elf_xlen(NULL), SPOOR_E_INVAL);
	CHECK_EQ(spoor_iss_exit_code(NULL), 0);
	CHECK_EQ(spoor_iss_xlen(NULL), 0);
	CHECK_EQ(spoor_iss_priv(NULL), -1);
	CHECK_EQ(spoor_iss_instret(NULL), 0);

	iss = spoor_iss_new(NULL);
	CHECK(iss != NULL);
	CHECK_EQ(spoor_iss_xlen(iss), 64);
	CHECK_EQ(spoor_iss_read_reg(iss, 33, &v), SPOOR_E_INVAL);
	CHECK_EQ(spoor_iss_read_reg(iss, 1, NULL), SPOOR_E_INVAL);
	CHECK_EQ(spoor_iss_write_reg(iss, 33, 0), SPOOR_E_INVAL);
	CHECK_EQ(spoor_iss_write_reg(iss, 0, 5), 0);
	CHECK_EQ(X(iss, 0), 0);
	CHECK_EQ(spoor_iss_read_csr(iss, MSTATUS, NULL), SPOOR_E_INVAL);
	CHECK_EQ(spoor_iss_read_csr(iss, 0x7c0, &v), SPOOR_E_NO_CSR);
	CHECK_EQ(spoor_iss_write_csr(iss, 0x7c0, 0), SPOOR_E_NO_CSR);
	CHECK_EQ(spoor_iss_write_csr(iss, MHARTID, 0), SPOOR_E_NO_CSR);
	CHECK_EQ(spoor_iss_write_csr(iss, CYCLE, 0), SPOOR_E_NO_CSR);
	CHECK_EQ(spoor_iss_bus_read(iss, BASE, 3, &v), SPOOR_E_INVAL);
	CHECK_EQ(spoor_iss_bus_read(iss, BASE, 4, NULL), SPOOR_E_INVAL);
	CHECK_EQ(spoor_iss_bus_write(iss, BASE, 16, 0), SPOOR_E_INVAL);
	CHECK_EQ(spoor_iss_bus_read(iss, 0, 4, &v), SPOOR_E_ACCESS);
	CHECK_EQ(spoor_iss_bus_write(iss, 0, 4, 0), SPOOR_E_ACCESS);
	CHECK_EQ(spoor_iss_bus_write(iss, 0x100000, 1, 0x55), SPOOR_E_ACCESS);
	CHECK_EQ(spoor_iss_load(iss, BASE, NULL, 4), SPOOR_E_INVAL);
	CHECK_EQ(spoor_iss_load(iss, 0x1000, "x", 1), SPOOR_E_ACCESS);
	CHECK_EQ(spoor_iss_load(iss, BASE + (128u << 20) - 1, "xy", 2), SPOOR_E_ACCESS);
	CHECK_EQ(spoor_iss_load_elf(iss, NULL, NULL), SPOOR_E_INVAL);
	CHECK_EQ(spoor_iss_load_elf(iss, "/nonexistent/prog.elf", NULL), SPOOR_E_IO);
	CHECK_EQ(spoor_iss_load_elf(iss, __FILE__, NULL), SPOOR_E_BAD_ELF);
	CHECK_EQ(spoor_iss_elf_xlen(__FILE__), SPOOR_E_BAD_ELF);
	CHECK_EQ(spoor_iss_enter_debug(iss, 0), SPOOR_E_INVAL);
	CHECK_EQ(spoor_iss_enter_debug(iss, 6), SPOOR_E_INVAL);
	CHECK_EQ(spoor_iss_resume(iss), SPOOR_E_INVAL);
	CHECK_EQ(spoor_iss_debug_exec(iss, BASE, 1), SPOOR_E_INVAL);
	CHECK_EQ(spoor_iss_step(iss, 0), SPOOR_ISS_STOP_COUNT);
	CHECK_EQ(X(iss, SPOOR_ISS_REG_PC), 0x1000);
	spoor_iss_free(iss);
}

int main(int argc, char **argv)
{
	check_args(argc, argv,
		   "Tests for the virtual board's ISS: instruction semantics, traps, CSRs, devices.");
	test_api();
	test_alu();
	test_load_store();
	test_control();
	test_atomics();
	test_compressed();
	test_csr();
	test_traps();
	test_trap_after_trap();
	test_privilege();
	test_delegation();
	test_interrupts();
	test_debug();
	test_board();
	test_elf();
	return check_done();
}
