/* SPDX-License-Identifier: MIT */
/*
 * Internals of the virtual board's instruction-set simulator, shared by
 * iss.c (state, step loop, traps, debug), exec.c (decoder and instruction
 * handlers), csr.c (CSRs) and devices.c (bus, devices, ELF loading).
 */
#ifndef SPOOR_ISS_PRIV_H
#define SPOOR_ISS_PRIV_H

#include <stdint.h>
#include <string.h>

#include "iss.h"

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

/* Decoded-instruction cache: direct-mapped by pc / 2. */
#define DC_BITS		16
#define DC_SIZE		(1u << DC_BITS)
#define DC_MASK		(DC_SIZE - 1)
#define DC_INVALID	1	/* an odd tag: matches no pc */

/* RAM pages that hold decoded instructions (stores to them invalidate). */
#define CODE_PAGE_SHIFT	12

/* Index of the write-only sink register that rd = x0 writes go to. */
#define REG_SINK	32

/* What an instruction handler returns. */
enum exec_result {
	R_SEQ = 0,	/* retired, pc advanced */
	R_NOT_TAKEN,	/* retired branch, not taken */
	R_TAKEN,	/* retired branch, taken */
	R_JUMP,		/* retired jal */
	R_IJUMP,	/* retired jalr */
	R_XRET,		/* retired mret/sret/dret */
	R_TRAP,		/* raised an exception (s->ev_cause, s->ev_tval); pc is the vector */
	R_DEBUG,	/* ebreak entered Debug Mode; did not retire */
};

struct spoor_iss;
struct dinsn;

typedef int (*exec_fn)(struct spoor_iss *s, const struct dinsn *d);

/* One decoded instruction. */
struct dinsn {
	uint64_t pc;		/* tag: the address it was decoded at */
	exec_fn fn;
	int32_t imm;		/* immediate; CSR number for CSR instructions */
	uint32_t raw;		/* instruction bits */
	uint8_t rd, rs1, rs2, len;
};

/* mstatus fields. */
#define MS_SIE		(1ull << 1)
#define MS_MIE		(1ull << 3)
#define MS_SPIE		(1ull << 5)
#define MS_MPIE		(1ull << 7)
#define MS_SPP		(1ull << 8)
#define MS_MPP_SHIFT	11
#define MS_MPP		(3ull << MS_MPP_SHIFT)
#define MS_MPRV		(1ull << 17)
#define MS_SUM		(1ull << 18)
#define MS_MXR		(1ull << 19)
#define MS_TVM		(1ull << 20)
#define MS_TW		(1ull << 21)
#define MS_TSR		(1ull << 22)
#define MS_UXL64	(2ull << 32)
#define MS_SXL64	(2ull << 34)

/* Interrupt bits (mip/mie) and causes. */
#define IRQ_SSI		1
#define IRQ_MSI		3
#define IRQ_STI		5
#define IRQ_MTI		7
#define IRQ_SEI		9
#define IRQ_MEI		11
#define MIP_SSIP	(1ull << IRQ_SSI)
#define MIP_MSIP	(1ull << IRQ_MSI)
#define MIP_STIP	(1ull << IRQ_STI)
#define MIP_MTIP	(1ull << IRQ_MTI)
#define MIP_SEIP	(1ull << IRQ_SEI)
#define MIP_MEIP	(1ull << IRQ_MEI)

/* Exception causes. */
#define EXC_INSN_MISALIGNED	0
#define EXC_INSN_ACCESS		1
#define EXC_ILLEGAL		2
#define EXC_BREAKPOINT		3
#define EXC_LOAD_MISALIGNED	4
#define EXC_LOAD_ACCESS		5
#define EXC_STORE_MISALIGNED	6
#define EXC_STORE_ACCESS	7
#define EXC_ECALL_U		8
#define EXC_ECALL_S		9
#define EXC_ECALL_M		11

/* dcsr: xdebugver 4, and the cause field. */
#define DCSR_XDEBUGVER4		(4ull << 28)
#define DCSR_CAUSE_SHIFT	6
#define DCSR_CAUSE		(7ull << DCSR_CAUSE_SHIFT)

/* Single-step state (dcsr.step after a resume). */
enum step_state {
	STEP_NONE = 0,
	STEP_ARMED,	/* resumed: the next instruction is the stepped one */
	STEP_DONE,	/* it executed: halt before the one after */
};

/* Size of the boot ROM image we build (the rest of the ROM reads zero). */
#define ROM_BYTES	0x80

struct iss_mmio {
	uint64_t base, size;
	struct spoor_iss_device dev;
};

struct spoor_iss {
	/* Hot state first. */
	uint64_t x[33];		/* x0-x31 and the x0 write sink */
	uint64_t pc;
	uint64_t cycle;		/* executed instructions plus wfi skips: the time base */
	uint64_t instret;
	uint64_t next_check;	/* cycle at which the slow checks run (0: now) */
	uint8_t *ram;
	uint64_t ram_base;
	uint64_t ram_size;
	uint8_t *code_pages;	/* per RAM page: nonzero if decoded code lives there */
	struct dinsn *dc;
	int misaligned_traps;
	int priv;
	spoor_iss_hook_fn hook;
	void *hook_ctx;
	uint64_t ev_cause, ev_tval;	/* the last exception, for the hook */

	unsigned xlen;
	uint64_t xmask;		/* XLEN bits set */
	int (*decode)(struct dinsn *d, uint32_t raw);

	/* CSRs. */
	uint64_t mstatus, misa, medeleg, mideleg, mie, mip_sw;
	uint64_t mtvec, stvec, mscratch, sscratch, mepc, sepc;
	uint64_t mcause, scause, mtval, stval;
	uint64_t mcounteren, scounteren, mcountinhibit;
	uint64_t mcycle_off;	/* mcycle = cycle + mcycle_off */
	uint64_t pmpcfg[16], pmpaddr[64];
	uint64_t dcsr, dpc, dscratch[2];
	uint64_t hartid;
	struct iss_mmio mmio[SPOOR_ISS_MAX_DEVICES];	/* added devices */
	unsigned nmmio;

	/* LR/SC reservation. */
	uint64_t res_addr;
	int res_valid;

	/* CLINT: mtime = mtime_base + (cycle - mtime_cycle) / time_div. */
	uint32_t msip;
	uint64_t mtimecmp;
	uint64_t mtime_base, mtime_cycle;
	uint64_t time_div;

	/* UART registers. */
	uint8_t uart_ier, uart_lcr, uart_mcr, uart_scr, uart_dll, uart_dlm;
	void (*uart_tx)(void *ctx, uint8_t byte);
	void *uart_ctx;
	FILE *uart_out;

	/* Boot ROM. */
	uint8_t rom[ROM_BYTES];
	uint64_t start_addr, fdt_addr;

	/* Stop requests, Debug Mode. */
	int stop;		/* pending SPOOR_ISS_STOP_* (0: none) */
	int exited;
	int exit_code;
	int debug_mode;
	enum step_state step;
};

/* iss.c */
/* Raises exception @cause at @pc; returns R_TRAP. */
int iss_exception(struct spoor_iss *s, uint64_t pc, uint64_t cause, uint64_t tval);
/* Carries out xRET from privilege @from (3: mret, 1: sret); returns R_XRET. */
int iss_xret(struct spoor_iss *s, int from);
/* Handles wfi at @pc; returns R_SEQ or R_TRAP. */
int iss_wfi(struct spoor_iss *s, uint64_t pc, unsigned len, uint32_t raw);
/* Handles ebreak at @pc; returns R_TRAP or R_DEBUG. */
int iss_ebreak(struct spoor_iss *s, uint64_t pc);
/* Handles dret at @pc; returns R_XRET or R_TRAP. */
int iss_dret(struct spoor_iss *s, uint64_t pc, uint32_t raw);
/* Invalidates the decoded instructions overlapping [addr, addr + len). */
void iss_code_written(struct spoor_iss *s, uint64_t addr, uint64_t len);
/* Invalidates every decoded instruction. */
void iss_flush_dcache(struct spoor_iss *s);
/* Returns the current mtime. */
uint64_t iss_mtime(const struct spoor_iss *s);
/* Sets mtime to @v from now on. */
void iss_set_mtime(struct spoor_iss *s, uint64_t v);
/* Returns mip with the CLINT's MSIP and MTIP. */
uint64_t iss_mip(const struct spoor_iss *s);

/* exec.c */
/* Decoders per XLEN: fill @d (all but pc) from @raw; return its length (2 or 4). */
int iss_decode_32(struct dinsn *d, uint32_t raw);
int iss_decode_64(struct dinsn *d, uint32_t raw);

/* csr.c */
/* Executes a CSR instruction (@op: 1 rw, 2 rs, 3 rc; +4 immediate); returns R_SEQ or R_TRAP. */
int iss_csr_insn(struct spoor_iss *s, const struct dinsn *d, unsigned op);
/* Reads CSR @csr without checks; returns 0 or SPOOR_E_NO_CSR. */
int iss_csr_read(struct spoor_iss *s, unsigned csr, uint64_t *v);
/* Writes CSR @csr (legalised) without privilege checks; returns 0 or SPOOR_E_NO_CSR. */
int iss_csr_write(struct spoor_iss *s, unsigned csr, uint64_t v);
/* Puts the CSRs in their reset state. */
void iss_csr_reset(struct spoor_iss *s);

/* devices.c */
/* Reads @size bytes at @addr from the bus; returns 0 or SPOOR_E_ACCESS. */
int iss_bus_read(struct spoor_iss *s, uint64_t addr, unsigned size, uint64_t *v);
/* Writes @size bytes at @addr on the bus; returns 0 or SPOOR_E_ACCESS. */
int iss_bus_write(struct spoor_iss *s, uint64_t addr, unsigned size, uint64_t v);
/* Reads a 16-bit instruction parcel at @addr (RAM or ROM); returns 0 or SPOOR_E_ACCESS. */
int iss_fetch16(struct spoor_iss *s, uint64_t addr, uint16_t *v);
/* Builds the boot ROM for the current start and fdt addresses. */
void iss_build_rom(struct spoor_iss *s);
/* Resets the devices (CLINT, UART). */
void iss_devices_reset(struct spoor_iss *s);

/* Sign-extends the low 32 bits of @v. */
static inline uint64_t sext32(uint64_t v)
{
	return (uint64_t)(int64_t)(int32_t)(uint32_t)v;
}

#endif /* SPOOR_ISS_PRIV_H */
