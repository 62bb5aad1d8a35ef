/* SPDX-License-Identifier: MIT */
/*
 * The program's functions as analysis sees them: every code symbol of the
 * image (spoor_image_symbol()'s choice at each address) gets a small dense
 * number, so sinks count per function in arrays; code that no symbol
 * covers gets one pseudo function per 4 KiB page ("0x80001000?"), made on
 * first sight.  A cache keyed by the block's first and last address gives,
 * in about one memory access per block, the block's function and what its
 * last instruction does to the flow of control (call, return, xret): what
 * call stacks are built from.  Memory grows with the program, never with
 * the trace.
 */
#ifndef SPOOR_FUNCS_H
#define SPOOR_FUNCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spoor/decoder.h"
#include "spoor/image.h"

#ifdef __cplusplus
extern "C" {
#endif

struct spoor_func {
	uint64_t start, end;	/* [start, end): the symbol's range (a page for pseudo ones) */
	const char *name;	/* valid while the funcs object lives */
	bool pseudo;		/* no symbol covers it: a page of unknown code */
};

/* What a block means to call stacks. */
struct spoor_block_info {
	uint32_t func;		/* function of the block's first instruction */
	uint32_t last_func;	/* function of its last instruction */
	uint8_t last_cls;	/* enum spoor_insn_class of the last instruction */
	uint8_t last_flags;	/* enum spoor_insn_flags of it (CALL, RETURN) */
};

#define SPOOR_FUNC_NONE UINT32_MAX

struct spoor_funcs;

/*
 * Returns the functions of @img (kept by pointer: must outlive them), or
 * NULL (no memory).  The code symbols are numbered 0.. in address order.
 */
struct spoor_funcs *spoor_funcs_new(struct spoor_image *img);
/* Frees @f (NULL is fine); the image stays. */
void spoor_funcs_free(struct spoor_funcs *f);

/* The number of functions known so far (symbols, then pseudo functions). */
size_t spoor_funcs_count(const struct spoor_funcs *f);

/* The number of code symbols (pseudo functions are numbered after them). */
size_t spoor_funcs_symbols(const struct spoor_funcs *f);

/*
 * Function @id, or NULL when there is no such number.  The pointer is valid
 * until the next spoor_funcs_find() or spoor_funcs_block() (a new pseudo
 * function may move the table); the name as long as @f lives.
 */
const struct spoor_func *spoor_funcs_get(const struct spoor_funcs *f, uint32_t id);

/*
 * The function containing @addr; a pseudo function when no symbol covers
 * it.  Returns its number, or SPOOR_FUNC_NONE (no memory for a new pseudo
 * function, NULL @f).
 */
uint32_t spoor_funcs_find(struct spoor_funcs *f, uint64_t addr);

/*
 * What block @b means (cached): its function and its last instruction's
 * class and flags.  Returns NULL only when out of memory; an instruction
 * the image lacks classifies as SPOOR_INSN_INVALID.
 */
const struct spoor_block_info *spoor_funcs_block(struct spoor_funcs *f,
						 const struct spoor_block *b);

/* The image's XLEN (for instruction decoding by the sinks). */
unsigned spoor_funcs_xlen(const struct spoor_funcs *f);

/* The image. */
struct spoor_image *spoor_funcs_image(const struct spoor_funcs *f);

#ifdef __cplusplus
}
#endif

#endif /* SPOOR_FUNCS_H */
