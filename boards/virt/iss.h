/* SPDX-License-Identifier: MIT */
/*
 * The virtual board's instruction-set simulator: one RV32IMAC or RV64IMAC
 * hart (Zicsr, Zifencei; M, S and U modes; bare addressing) on a bus laid
 * out like QEMU's `virt` machine:
 *
 *   0x00001000  boot ROM (QEMU's reset vector: a0 = hartid, a1 = fdt,
 *               jumps to the start address, by default the ELF entry)
 *   0x00100000  SiFive test device (0x5555: exit 0, code << 16 | 0x3333:
 *               exit code, 0x7777: reset)
 *   0x02000000  CLINT (msip +0, mtimecmp +0x4000, mtime +0xbff8)
 *   0x10000000  NS16550A UART (THR out; LSR always THRE|TEMT; RBR 0)
 *   0x80000000  RAM (128 MiB by default)
 *
 * Everything is deterministic: mtime advances by one every time_divisor
 * executed instructions, and wfi skips ahead to the next timer interrupt.
 *
 * A retirement hook sees every executed instruction (what an E-Trace
 * encoder's ingress port needs), every exception and every interrupt.  The
 * debug accessors (registers, CSRs, bus, halt/resume/step, dcsr/dpc) are
 * what a debug module drives.  The simulator is not thread-safe: one thread
 * per instance.
 */
#ifndef SPOOR_ISS_H
#define SPOOR_ISS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

struct spoor_iss;

/* Memory map. */
#define SPOOR_ISS_ROM_BASE	0x1000u
#define SPOOR_ISS_ROM_SIZE	0xf000u
#define SPOOR_ISS_TEST_BASE	0x100000u
#define SPOOR_ISS_CLINT_BASE	0x2000000u
#define SPOOR_ISS_UART_BASE	0x10000000u
#define SPOOR_ISS_RAM_BASE	0x80000000u
#define SPOOR_ISS_RAM_DEFAULT	(128u << 20)

/* Privilege levels (as in mstatus.MPP and dcsr.prv). */
#define SPOOR_ISS_PRV_U	0
#define SPOOR_ISS_PRV_S	1
#define SPOOR_ISS_PRV_M	3

/* Register numbers for spoor_iss_read_reg()/write_reg(): 0-31 are x0-x31. */
#define SPOOR_ISS_REG_PC	32

/* dcsr.cause values (for spoor_iss_enter_debug()). */
#define SPOOR_ISS_DEBUG_EBREAK		1
#define SPOOR_ISS_DEBUG_TRIGGER		2
#define SPOOR_ISS_DEBUG_HALTREQ		3
#define SPOOR_ISS_DEBUG_STEP		4
#define SPOOR_ISS_DEBUG_RESETHALTREQ	5

/* Debug CSR numbers and dcsr fields. */
#define SPOOR_ISS_CSR_DCSR	0x7b0
#define SPOOR_ISS_CSR_DPC	0x7b1
#define SPOOR_ISS_DCSR_PRV	0x3u
#define SPOOR_ISS_DCSR_STEP	(1u << 2)
#define SPOOR_ISS_DCSR_STEPIE	(1u << 11)
#define SPOOR_ISS_DCSR_EBREAKU	(1u << 12)
#define SPOOR_ISS_DCSR_EBREAKS	(1u << 13)
#define SPOOR_ISS_DCSR_EBREAKM	(1u << 15)

struct spoor_iss_config {
	unsigned xlen;		/* 32 or 64; 0 means 64 */
	uint64_t ram_size;	/* bytes, a multiple of 4 KiB; 0 means 128 MiB */
	uint32_t time_divisor;	/* executed instructions per mtime tick; 0 means 1 */
	uint64_t hartid;	/* mhartid */
	uint64_t fdt_addr;	/* a1 at the end of the boot ROM */
	/*
	 * Nonzero: misaligned loads and stores trap (load/store address
	 * misaligned).  Zero (the default, as QEMU): they are carried out.
	 * LR/SC and AMOs always trap when misaligned.
	 */
	int misaligned_traps;
	/* UART output: uart_tx(uart_ctx, byte) if set, else written to uart_out
	 * (flushed at each newline) if set, else dropped. */
	void (*uart_tx)(void *ctx, uint8_t byte);
	void *uart_ctx;
	FILE *uart_out;
};

/* Why spoor_iss_step() stopped (non-negative return values). */
enum spoor_iss_stop {
	SPOOR_ISS_STOP_COUNT = 0,	/* executed the requested number */
	SPOOR_ISS_STOP_EXIT,		/* test device exit: spoor_iss_exit_code() */
	SPOOR_ISS_STOP_RESET,		/* test device reset: the hart was reset */
	SPOOR_ISS_STOP_HALTED,		/* in Debug Mode (halted) */
	SPOOR_ISS_STOP_IDLE,		/* wfi with no interrupt that could wake it */
};

/* What a hook event reports. */
enum spoor_iss_event_kind {
	SPOOR_ISS_EV_RETIRE = 0,	/* the instruction at pc retired */
	SPOOR_ISS_EV_EXCEPTION,		/* it raised cause/tval and did not retire */
	SPOOR_ISS_EV_INTERRUPT,		/* interrupt cause taken before the insn at pc */
	SPOOR_ISS_EV_DEBUG,		/* Debug Mode entered before the insn at pc */
};

/* Retirement flags (SPOOR_ISS_EV_RETIRE). */
#define SPOOR_ISS_F_BRANCH	0x01	/* conditional branch */
#define SPOOR_ISS_F_TAKEN	0x02	/* ... that was taken */
#define SPOOR_ISS_F_JUMP	0x04	/* jal/jalr (and their compressed forms) */
#define SPOOR_ISS_F_INDIRECT	0x08	/* jalr: the target comes from a register */
#define SPOOR_ISS_F_XRET	0x10	/* mret/sret/dret */

struct spoor_iss_event {
	uint64_t pc;		/* the instruction's address */
	uint64_t next_pc;	/* where execution goes on (target, trap vector) */
	uint64_t cause;		/* exception/interrupt cause (no interrupt bit), dcsr.cause */
	uint64_t tval;		/* exception tval */
	uint32_t insn;		/* instruction bits (16-bit ones zero-extended); 0 if unknown */
	uint8_t kind;		/* enum spoor_iss_event_kind */
	uint8_t size;		/* instruction size in bytes (2 or 4); 0 if unknown */
	uint8_t priv;		/* privilege the instruction executed at (before a trap) */
	uint8_t flags;		/* SPOOR_ISS_F_* */
};

/* Called for every event, in order, from spoor_iss_step(). */
typedef void (*spoor_iss_hook_fn)(void *ctx, const struct spoor_iss_event *ev);

/* Returns a new simulator in reset state (pc 0x1000, M mode), or NULL
 * (invalid configuration or no memory).  @cfg may be NULL for defaults. */
struct spoor_iss *spoor_iss_new(const struct spoor_iss_config *cfg);
void spoor_iss_free(struct spoor_iss *iss);

/* Resets the hart and the devices (RAM keeps its contents).  Returns 0 or
 * SPOOR_E_INVAL. */
int spoor_iss_reset(struct spoor_iss *iss);

/*
 * Loads the PT_LOAD segments of the RISC-V ELF file @path (matching XLEN)
 * at their physical addresses, zero-filling to p_memsz, and makes the boot
 * ROM jump to its entry (stored in *@entry if not NULL).  Bytes outside RAM
 * are skipped (as QEMU does with a first segment that holds the ELF headers
 * below RAM).  Returns 0, SPOOR_E_IO, SPOOR_E_BAD_ELF (not a RISC-V ELF of
 * this XLEN), SPOOR_E_ACCESS (a segment with no byte in RAM) or
 * SPOOR_E_INVAL.
 */
int spoor_iss_load_elf(struct spoor_iss *iss, const char *path, uint64_t *entry);

/* Returns the XLEN (32 or 64) of the RISC-V ELF file @path, or SPOOR_E_IO,
 * SPOOR_E_BAD_ELF, SPOOR_E_INVAL. */
int spoor_iss_elf_xlen(const char *path);

/* Copies @len bytes into RAM at @addr.  Returns 0, SPOOR_E_ACCESS (not all
 * in RAM) or SPOOR_E_INVAL. */
int spoor_iss_load(struct spoor_iss *iss, uint64_t addr, const void *buf, size_t len);

/* Sets the address the boot ROM jumps to.  Returns 0 or SPOOR_E_INVAL. */
int spoor_iss_set_start(struct spoor_iss *iss, uint64_t addr);

/* A memory-mapped device outside the built-in map (e.g. trace control). */
struct spoor_iss_device {
	/* @off is relative to the device's base; return 0 or SPOOR_E_ACCESS. */
	int (*read)(void *ctx, uint64_t off, unsigned size, uint64_t *value);
	int (*write)(void *ctx, uint64_t off, unsigned size, uint64_t value);
	void *ctx;
};

#define SPOOR_ISS_MAX_DEVICES 4

/*
 * Maps @dev at [@base, @base + @size) on the bus (the hart's loads and
 * stores and spoor_iss_bus_read/write reach it).  Returns 0, SPOOR_E_OVERLAP
 * (overlaps RAM, the ROM, a built-in or added device), SPOOR_E_NOSPACE (too
 * many devices) or SPOOR_E_INVAL.
 */
int spoor_iss_add_device(struct spoor_iss *iss, uint64_t base, uint64_t size,
			 const struct spoor_iss_device *dev);

/* Installs @fn (NULL: none) as the event hook.  Returns 0 or SPOOR_E_INVAL. */
int spoor_iss_set_hook(struct spoor_iss *iss, spoor_iss_hook_fn fn, void *ctx);

/*
 * Executes up to @n instructions (retired or trapping ones; taking an
 * interrupt does not count).  Returns an enum spoor_iss_stop, or
 * SPOOR_E_INVAL.  Once the program exited, it keeps returning
 * SPOOR_ISS_STOP_EXIT until spoor_iss_reset().
 */
int spoor_iss_step(struct spoor_iss *iss, uint64_t n);

/* Returns the test device exit code (valid after SPOOR_ISS_STOP_EXIT). */
int spoor_iss_exit_code(const struct spoor_iss *iss);

/* Returns the XLEN (32 or 64), 0 for NULL. */
unsigned spoor_iss_xlen(const struct spoor_iss *iss);

/* Returns the current privilege level (SPOOR_ISS_PRV_*), -1 for NULL. */
int spoor_iss_priv(const struct spoor_iss *iss);

/* Returns the number of retired instructions (minstret), 0 for NULL. */
uint64_t spoor_iss_instret(const struct spoor_iss *iss);

/*
 * Reads/writes x0-x31 or SPOOR_ISS_REG_PC (values are XLEN bits; writes to
 * x0 are ignored).  Return 0 or SPOOR_E_INVAL (NULL, bad number).
 */
int spoor_iss_read_reg(const struct spoor_iss *iss, unsigned reg, uint64_t *value);
int spoor_iss_write_reg(struct spoor_iss *iss, unsigned reg, uint64_t value);

/*
 * Reads/writes a CSR as a debugger does: no privilege checks, read-only
 * CSRs reject writes, WARL fields are legalised.  Return 0, SPOOR_E_NO_CSR
 * (not implemented, or a write to a read-only CSR) or SPOOR_E_INVAL.
 */
int spoor_iss_read_csr(struct spoor_iss *iss, unsigned csr, uint64_t *value);
int spoor_iss_write_csr(struct spoor_iss *iss, unsigned csr, uint64_t value);

/*
 * Reads/writes @size (1, 2, 4 or 8) bytes at physical address @addr through
 * the bus, devices included (a test device write can make the next
 * spoor_iss_step() return SPOOR_ISS_STOP_EXIT).  Return 0, SPOOR_E_ACCESS
 * (nothing there, or a size the device does not take) or SPOOR_E_INVAL.
 */
int spoor_iss_bus_read(struct spoor_iss *iss, uint64_t addr, unsigned size, uint64_t *value);
int spoor_iss_bus_write(struct spoor_iss *iss, uint64_t addr, unsigned size, uint64_t value);

/*
 * Enters Debug Mode (halts) before the next instruction, as the debug spec
 * says: dpc = pc, dcsr.cause = @cause (SPOOR_ISS_DEBUG_*), dcsr.prv = the
 * privilege (the hart runs at M level while halted; the PC of the halted
 * hart is dpc); the hook sees SPOOR_ISS_EV_DEBUG.  ebreak enters it too when
 * dcsr.ebreakm/s/u is set for the current privilege, and so does the end
 * of a single step (dcsr.step).  Returns 0, or SPOOR_E_INVAL (bad cause,
 * already halted).
 */
int spoor_iss_enter_debug(struct spoor_iss *iss, unsigned cause);

/* Returns 1 if halted in Debug Mode, 0 if running, SPOOR_E_INVAL for NULL. */
int spoor_iss_halted(const struct spoor_iss *iss);

/*
 * Leaves Debug Mode as dret does: pc = dpc, privilege = dcsr.prv; with
 * dcsr.step set the hart halts again after one instruction.  Returns 0 or
 * SPOOR_E_INVAL (NULL, not halted).
 */
int spoor_iss_resume(struct spoor_iss *iss);

/*
 * Executes instructions in Debug Mode from @addr (a program buffer) until
 * ebreak (returns 0, still halted), dret (returns 1, resumed), an exception
 * (returns SPOOR_E_ACCESS for a memory fault, SPOOR_E_BAD_INSN otherwise;
 * still halted, no trap CSR changed) or @max instructions (SPOOR_E_RANGE).
 * Nothing is reported to the hook.  Returns SPOOR_E_INVAL if not halted.
 */
int spoor_iss_debug_exec(struct spoor_iss *iss, uint64_t addr, unsigned max);

#ifdef __cplusplus
}
#endif

#endif /* SPOOR_ISS_H */
