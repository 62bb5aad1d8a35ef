/* SPDX-License-Identifier: MIT */
/*
 * The program image: what code lives at each address.  Several images at
 * once (boot ROM + firmware + application), from ELF files (loadable
 * segments and symbols via libelf, source lines via libdw) or raw bytes
 * (e.g. a boot ROM that is in no ELF), each with an optional load offset.
 */
#ifndef SPOOR_IMAGE_H
#define SPOOR_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "spoor/config_file.h"	/* struct spoor_diag */
#include "spoor/insn.h"

#ifdef __cplusplus
extern "C" {
#endif

struct spoor_image;

/* Returns a new, empty image set, or NULL (no memory). */
struct spoor_image *spoor_image_new(void);
void spoor_image_free(struct spoor_image *img);

/*
 * Adds the executable loadable segments (PT_LOAD with PF_X at p_vaddr; their
 * file bytes, zero-filled to p_memsz, copied) and the function and object
 * symbols (and labels in code sections, such as an assembly _start) of the
 * RISC-V ELF file @path, every address shifted by @offset.  Source lines are
 * read lazily from its DWARF, if any: the file is read again on the first
 * spoor_image_line() for it, and only if it is unchanged (same inode, size
 * and mtime).  Either everything is added or nothing.  Returns 0, or SPOOR_E_IO,
 * SPOOR_E_BAD_ELF (not ELF, not EM_RISCV, truncated, no executable
 * segment, a segment that would leave the address space of its class or
 * wrap around, an @offset off the instruction alignment), SPOOR_E_MISMATCH
 * (an ELF class other than that of the files already added),
 * SPOOR_E_OVERLAP (a segment overlaps one already added), SPOOR_E_NOMEM,
 * SPOOR_E_INVAL, with @diag naming the file and the problem.
 */
int spoor_image_add_elf(struct spoor_image *img, const char *path, int64_t offset,
			struct spoor_diag *diag);

/*
 * Adds @len raw bytes (copied) at address @base under @name (used in
 * messages and as the symbol for its range).  Returns 0, SPOOR_E_OVERLAP,
 * SPOOR_E_NOMEM or SPOOR_E_INVAL (NULL or empty argument, range past 2^64).
 */
int spoor_image_add_raw(struct spoor_image *img, const char *name, uint64_t base,
			const uint8_t *bytes, size_t len);

/* Adds spike's 20-byte boot ROM at 0x1000 for @xlen 32 or 64 (the reference
 * flow's traces start there).  Returns as spoor_image_add_raw(). */
int spoor_image_add_spike_rom(struct spoor_image *img, unsigned xlen);

/*
 * Returns a pointer to the image bytes at @addr and, in *@avail (may be
 * NULL), how many bytes follow contiguously in the same segment; NULL (and
 * *@avail 0) when no image covers @addr.  Fast (a binary search over the
 * segments, no cache: safe from several threads): called once per decoded
 * block.
 */
const uint8_t *spoor_image_ptr(const struct spoor_image *img, uint64_t addr, size_t *avail);

/*
 * Decodes the instruction at @addr (spoor_insn_decode() of the image's
 * bytes there, for @xlen) into @out.  Returns its length (2 or 4), or
 * SPOOR_E_NO_IMAGE (fewer than two bytes there), SPOOR_E_BAD_INSN (not a
 * valid instruction: out->cls SPOOR_INSN_INVALID, out->len the length its
 * low bits give, 0 for 48 bits and more or a 32-bit one its segment's end
 * cuts off) or SPOOR_E_INVAL.
 */
int spoor_image_insn(const struct spoor_image *img, uint64_t addr, unsigned xlen,
		     struct spoor_insn *out);

/* XLEN (32 or 64) of the ELF files added (all have one class), 0 if none. */
unsigned spoor_image_xlen(const struct spoor_image *img);

/* 1 if an added ELF file uses compressed instructions (e_flags RVC), else 0. */
int spoor_image_rvc(const struct spoor_image *img);

/* The path of the first ELF file added, or NULL. */
const char *spoor_image_elf_name(const struct spoor_image *img);

/*
 * Finds the symbol containing @addr: the nearest symbol at or below it whose
 * range holds it.  A symbol with a size covers that size; one without (a
 * label) covers up to the next higher symbol of its file, at most to the end
 * of its segment.  At one address a sized symbol wins over a label, global
 * over weak over local.  Sets *@name (valid while @img lives) and *@offset
 * (addr - symbol).  Returns 0, SPOOR_E_NOT_FOUND or SPOOR_E_INVAL.
 */
int spoor_image_symbol(const struct spoor_image *img, uint64_t addr, const char **name,
		       uint64_t *offset);

/*
 * Finds the symbol objdump names @addr by: the nearest one at or below it,
 * whatever its size.  That is spoor_image_symbol()'s when a symbol covers
 * @addr; otherwise (code after a function that has no symbol of its own,
 * such as a local one the compiler left unnamed) the symbol covering the
 * highest address below @addr, provided that address is in the image
 * segment holding @addr.  One binary search over the symbols.  Sets *@name
 * (valid while @img lives) and *@offset (addr - symbol).  Returns 0,
 * SPOOR_E_NOT_FOUND (no symbol covers @addr and it is in no segment, or no
 * symbol below it in its segment) or SPOOR_E_INVAL (NULL argument).
 */
int spoor_image_symbol_floor(const struct spoor_image *img, uint64_t addr, const char **name,
			     uint64_t *offset);

enum spoor_image_sym_kind {
	SPOOR_SYM_FUNC,		/* STT_FUNC, STT_GNU_IFUNC; a raw image's name */
	SPOOR_SYM_OBJECT,	/* STT_OBJECT: data */
	SPOOR_SYM_LABEL,	/* STT_NOTYPE in a code section (an assembly label) */
};

/* A symbol as spoor_image_symbol_at() gives it. */
struct spoor_image_sym {
	uint64_t addr;		/* first address */
	uint64_t end;		/* end of its range: its size, or up to the next symbol */
	const char *name;	/* valid while the image lives */
	int code;		/* 1: its address is in an executable segment */
	int kind;		/* enum spoor_image_sym_kind */
};

/* The number of symbols of every image added (functions, objects, labels in code). */
size_t spoor_image_symbol_count(const struct spoor_image *img);

/*
 * Symbol @i (0 <= i < spoor_image_symbol_count()), in address order; at one
 * address the one spoor_image_symbol() prefers comes last.  Returns 0 or
 * SPOOR_E_INVAL (no such symbol).
 */
int spoor_image_symbol_at(const struct spoor_image *img, size_t i, struct spoor_image_sym *out);

/* The number of executable segments of every image added (0 for a NULL @img). */
size_t spoor_image_segment_count(const struct spoor_image *img);

/*
 * Executable segment @i (0 <= i < spoor_image_segment_count()), in address
 * order: sets *@start and *@end to its range [start, end).  For walking all
 * the code of a program that has no symbols (coverage's denominators); a
 * segment may hold data too (.rodata in an RWX segment).  Returns 0 or
 * SPOOR_E_INVAL (NULL argument, no such segment).
 */
int spoor_image_segment_at(const struct spoor_image *img, size_t i, uint64_t *start,
			   uint64_t *end);

/*
 * Finds the source line of @addr from DWARF.  Sets *@file (the path as the
 * DWARF gives it, a relative one joined to its unit's compilation directory
 * as addr2line does; valid while @img lives) and *@line.  Returns 0,
 * SPOOR_E_NOT_FOUND (no ELF with line information covers @addr) or
 * SPOOR_E_INVAL.
 */
int spoor_image_line(struct spoor_image *img, uint64_t addr, const char **file, int *line);

/*
 * Where the function starting at @addr is declared, from DWARF (the
 * subprogram's DW_AT_decl_file and DW_AT_decl_line): for listings that
 * name a function by its source line.  Sets *@file (as spoor_image_line()
 * gives paths) and *@line.  Returns 0, SPOOR_E_NOT_FOUND (no DWARF
 * subprogram starts there) or SPOOR_E_INVAL.
 */
int spoor_image_func_line(struct spoor_image *img, uint64_t addr, const char **file, int *line);

/* Describes the segment covering @addr (e.g. "app.elf [0x80000000,
 * 0x80004000)", with the name as added) or "no image covers 0x1234" into
 * @buf; for error messages. */
void spoor_image_describe(const struct spoor_image *img, uint64_t addr, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
