/* SPDX-License-Identifier: MIT */
/*
 * RISC-V instruction classification for trace decoding (RV32 and RV64 with
 * the C extension): length, and what an instruction does to the flow of
 * control, in the E-Trace spec's terms.
 */
#ifndef SPOOR_INSN_H
#define SPOOR_INSN_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum spoor_insn_class {
	SPOOR_INSN_SEQ,		/* no change of flow (includes auipc/lui, fences, csr ops) */
	SPOOR_INSN_BRANCH,	/* conditional branch: beq..bgeu, c.beqz, c.bnez */
	SPOOR_INSN_JUMP,	/* inferable jump: jal, c.j, c.jal, and jalr with rs1 = x0 */
	SPOOR_INSN_JALR,	/* uninferable jump: jalr (rs1 != x0), c.jr, c.jalr */
	SPOOR_INSN_XRET,	/* uret, sret, mret, dret: uninferable discontinuity */
	SPOOR_INSN_ECALL,	/* ecall, ebreak, c.ebreak: retire, then trap */
	SPOOR_INSN_INVALID,	/* not a valid RV32/RV64 IMAFDC+Zicsr+Zifencei instruction */
};

enum spoor_insn_flags {
	/* Calling convention (link registers x1 and x5), per the spec's
	 * RAS hint table for jal/jalr:
	 *   rd link, rs1 not link        -> CALL (push)
	 *   rd not link, rs1 link        -> RETURN (pop)
	 *   rd link, rs1 link, rd != rs1 -> CALL | RETURN (co-routine swap: pop, push)
	 *   rd link, rs1 link, rd == rs1 -> CALL (push)
	 * jal/c.jal with rd link -> CALL. */
	SPOOR_INSN_CALL = 1 << 0,
	SPOOR_INSN_RETURN = 1 << 1,
	/* auipc, lui, c.lui: rd gets an upper immediate (for sijump). */
	SPOOR_INSN_UPPER = 1 << 2,
	/* jalr/c.jr/c.jalr whose target a preceding auipc/lui on rs1 fixes:
	 * set by the decoder, not by spoor_insn_decode(). */
	SPOOR_INSN_SIJUMP = 1 << 3,
};

struct spoor_insn {
	uint32_t raw;		/* the instruction bits (16-bit ones zero-extended) */
	uint8_t len;		/* 2 or 4 bytes (0 when invalid) */
	uint8_t cls;		/* enum spoor_insn_class */
	uint8_t flags;		/* enum spoor_insn_flags */
	uint8_t rd, rs1;	/* register numbers where the class uses them, else 0 */
	int64_t imm;		/* BRANCH/JUMP: byte offset of the target (JUMP from jalr
				 * with rs1 = x0, the only JUMP with (raw & 0x7f) == 0x67:
				 * absolute target); JALR: the offset added to rs1;
				 * UPPER: the value written (auipc: the pc-relative offset) */
};

/*
 * Classifies the instruction whose first bytes are @raw (the 16-bit parcel
 * in the low half; the next parcel above it for 32-bit instructions) for
 * @xlen 32 or 64 (which decides c.jal vs c.addiw, c.flw vs c.ld ...).
 * Returns the length in bytes (2 or 4), or SPOOR_E_BAD_INSN with
 * out->cls = SPOOR_INSN_INVALID; out->len is then still the length the low
 * bits give (2 or 4), or 0 for 48-bit and longer encodings.  Returns
 * SPOOR_E_INVAL (also with out->cls = SPOOR_INSN_INVALID) when @xlen is
 * neither 32 nor 64.
 */
int spoor_insn_decode(uint32_t raw, unsigned xlen, struct spoor_insn *out);

/* Short lowercase name of a class ("branch", "jalr", ...). */
const char *spoor_insn_class_name(enum spoor_insn_class cls);

#ifdef __cplusplus
}
#endif

#endif
