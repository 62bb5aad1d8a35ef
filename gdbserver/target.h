/* SPDX-License-Identifier: MIT */
/*
 * The replay target: what a self-contained GDB target made of a capture
 * and its program needs besides the history — memory from the ELF files'
 * loadable segments, and a RISC-V target description (rv32/rv64: x0-x31
 * and pc, the only register a trace knows).
 */
#ifndef SPOOR_GS_TARGET_H
#define SPOOR_GS_TARGET_H

#include <stddef.h>
#include <stdint.h>

#include "btrace.h"
#include "spoor/image.h"

struct gs_segment {
	uint64_t addr;
	size_t size;		/* memory size: file bytes, zero-filled */
	uint8_t *bytes;
};

struct gs_memory {
	struct gs_segment *seg;
	size_t nseg;
};

/*
 * Adds every PT_LOAD segment of ELF file @path (shifted by @offset) to @m.
 * Returns 0, or SPOOR_E_IO / SPOOR_E_BAD_ELF / SPOOR_E_NOMEM with @diag.
 */
int gs_memory_add_elf(struct gs_memory *m, const char *path, int64_t offset,
		      struct spoor_diag *diag);
void gs_memory_free(struct gs_memory *m);

/*
 * Copies up to @len bytes at @addr into @out: as many as one segment holds
 * contiguously from @addr.  Returns the count, or 0 when no segment covers
 * @addr.
 */
size_t gs_memory_read(const struct gs_memory *m, uint64_t addr, size_t len, uint8_t *out);

/* Writes the target description (target.xml) for @xlen into @out. */
void gs_target_xml(unsigned xlen, struct gs_text *out);

/* GDB's register number of the pc in that description. */
#define GS_REG_PC 32

#endif
