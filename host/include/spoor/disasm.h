/* SPDX-License-Identifier: MIT */
/*
 * RISC-V disassembly as objdump -d prints it, by binutils' libopcodes (the
 * same disassembler objdump uses): "addi\tsp,sp,-16", "ret",
 * "jal\t80000124 <main>", "beqz\ta0,8000002c <foo+0x10>".  The text is the
 * mnemonic, a tab and the operands, with objdump's default choices: aliases
 * (li, mv, ret, j ...), ABI register names, branch and jump targets as an
 * address in lowercase hex and, when it is in the program image, <sym+off>
 * with objdump's symbol: the nearest one at or below the address, whatever
 * its size, within the address's image segment (spoor_image_symbol_floor()).
 *
 * Differences from objdump -d: the instruction set is always RV32/RV64
 * IMAFDC + Zicsr + Zifencei (objdump takes the ELF's .riscv.attributes, which
 * only matters for bytes that are not instructions of the program's ISA);
 * bytes that objdump shows as data (".word\t0xc0001073" under a $d mapping
 * symbol, such as an illegal instruction written with .word) are
 * disassembled as the instruction they are ("unimp"); objdump's trailing
 * comments ("# 80001000 <buf>", from the value an auipc/lui before it in
 * the listing or __global_pointer$ leave in a base register) are left out:
 * each instruction is disassembled on its own.
 *
 * libopcodes keeps settings in global variables: use the handles of one
 * process from one thread at a time.
 */
#ifndef SPOOR_DISASM_H
#define SPOOR_DISASM_H

#include <stddef.h>
#include <stdint.h>

#include "spoor/image.h"

#ifdef __cplusplus
extern "C" {
#endif

struct spoor_disasm;

/*
 * Returns a disassembler for @xlen 32 or 64 (which decides c.jal vs c.addiw,
 * c.flw vs c.ld ...), or NULL (another @xlen, no memory).  @img (may be NULL;
 * must outlive the handle) gives the <sym+off> of target addresses.
 */
struct spoor_disasm *spoor_disasm_new(unsigned xlen, const struct spoor_image *img);

/* Frees @d (may be NULL).  No errors. */
void spoor_disasm_free(struct spoor_disasm *d);

/*
 * Disassembles the instruction at address @addr whose bytes are @bytes (the
 * @avail bytes readable there; 4 are enough for any instruction) into @buf
 * as "mnemonic\toperands", NUL-terminated and cut to @size - 1 characters.
 * No allocation.  Returns the length of the instruction (2 or 4), or
 * SPOOR_E_BAD_INSN when it is not one libopcodes knows (@buf then holds its
 * text for the bits, e.g. ".word\t0xc0001073", or is empty when @avail is
 * shorter than the instruction or it is 48 bits or longer), SPOOR_E_INVAL
 * (NULL @d, @bytes or @buf, @avail or @size 0; @buf, if any, is then empty).
 */
int spoor_disasm_insn(struct spoor_disasm *d, uint64_t addr, const uint8_t *bytes, size_t avail,
		      char *buf, size_t size);

/*
 * As spoor_disasm_insn() with the bytes at @addr in @img (spoor_image_ptr()).
 * Returns as spoor_disasm_insn(), or SPOOR_E_NO_IMAGE (empty @buf) when no
 * image covers @addr.
 */
int spoor_disasm_at(struct spoor_disasm *d, const struct spoor_image *img, uint64_t addr,
		    char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
