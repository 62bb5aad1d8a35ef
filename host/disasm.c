// SPDX-License-Identifier: MIT
/*
 * RISC-V disassembly as objdump -d prints it, by binutils' libopcodes
 * (Debian: binutils-multiarch-dev, whose libopcodes knows every target).
 * libopcodes prints an instruction through callbacks: the text goes straight
 * into the caller's buffer, target addresses get their <sym+off> from the
 * program image, and the bytes come from the caller's pointer.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * dis-asm.h includes bfd.h, which in some binutils releases refuses to be
 * compiled ("config.h must be included before this header") unless PACKAGE
 * (normally from the including package's config.h) is defined.  2.40's does
 * not check; defining it anyway keeps other releases building.
 */
#ifndef PACKAGE
#define PACKAGE "spoor"
#endif
#include <dis-asm.h>

#include "spoor/disasm.h"
#include "spoor/error.h"

struct spoor_disasm {
	struct disassemble_info info;	/* libopcodes' state and our callbacks */
	disassembler_ftype print;	/* print_insn_riscv */
	const struct spoor_image *img;	/* names target addresses; may be NULL */
	uint64_t addr_mask;		/* targets wrap at 2^XLEN */
	/* The instruction being disassembled. */
	const uint8_t *bytes;
	uint64_t addr;
	size_t avail;			/* its length: libopcodes reads no further */
	bool mem_error;			/* libopcodes could not read its bytes */
	/* The output: the caller's buffer, filled by the callbacks. */
	char *out;
	size_t size, len;
	bool comment;			/* objdump's trailing comment began: left out */
};

/* Appends @n bytes of @s to the output, as many as fit. */
static void out_put(struct spoor_disasm *d, const char *s, size_t n)
{
	size_t room = d->size - d->len - 1;

	if (n > room)
		n = room;
	memcpy(d->out + d->len, s, n);
	d->len += n;
	d->out[d->len] = '\0';
}

/* Appends printf-style text to the output, cut to what fits; "%s" and text
 * without conversions (most of what libopcodes prints) skip vsnprintf. */
static void out_vappend(struct spoor_disasm *d, const char *fmt, va_list ap)
{
	size_t room = d->size - d->len;
	int n;

	if (fmt[0] == '%' && fmt[1] == 's' && !fmt[2]) {
		const char *s = va_arg(ap, const char *);

		out_put(d, s, strlen(s));
		return;
	}
	if (!strchr(fmt, '%')) {
		out_put(d, fmt, strlen(fmt));
		return;
	}
	n = vsnprintf(d->out + d->len, room, fmt, ap);
	if (n > 0)
		d->len += (size_t)n < room ? (size_t)n : room - 1;
}

/* As out_vappend(), with the arguments. */
__attribute__((format(printf, 2, 3)))
static void out_append(struct spoor_disasm *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	out_vappend(d, fmt, ap);
	va_end(ap);
}

/* libopcodes' unstyled output callback (@stream is the handle). */
__attribute__((format(printf, 2, 3)))
static int out_plain(void *stream, const char *fmt, ...)
{
	struct spoor_disasm *d = stream;
	va_list ap;

	if (d->comment)
		return 0;
	va_start(ap, fmt);
	out_vappend(d, fmt, ap);
	va_end(ap);
	return 0;
}

/* libopcodes' styled output callback: the style only tells where objdump's
 * trailing comment starts, which is dropped with all that follows it. */
__attribute__((format(printf, 3, 4)))
static int out_styled(void *stream, enum disassembler_style style, const char *fmt, ...)
{
	struct spoor_disasm *d = stream;
	va_list ap;

	if (style == dis_style_comment_start)
		d->comment = true;
	if (d->comment)
		return 0;
	va_start(ap, fmt);
	out_vappend(d, fmt, ap);
	va_end(ap);
	return 0;
}

/* Prints a target address as objdump does: hex without 0x, then <sym+off>. */
static void print_address(bfd_vma vma, struct disassemble_info *info)
{
	struct spoor_disasm *d = info->application_data;
	uint64_t addr = (uint64_t)vma & d->addr_mask, off;
	const char *name;

	if (d->comment)
		return;
	out_append(d, "%" PRIx64, addr);
	if (!d->img || spoor_image_symbol_floor(d->img, addr, &name, &off))
		return;
	if (off)
		out_append(d, " <%s+0x%" PRIx64 ">", name, off);
	else
		out_append(d, " <%s>", name);
}

/* Gives libopcodes the instruction's bytes; returns 0 or -1 outside them. */
static int read_memory(bfd_vma memaddr, bfd_byte *myaddr, unsigned int length,
		       struct disassemble_info *info)
{
	struct spoor_disasm *d = info->application_data;
	uint64_t off = (uint64_t)memaddr - d->addr;

	if ((uint64_t)memaddr < d->addr || off > d->avail || length > d->avail - off)
		return -1;
	memcpy(myaddr, d->bytes + off, length);
	return 0;
}

/* Notes that libopcodes could not read the instruction (it prints nothing). */
static void memory_error(int status, bfd_vma memaddr, struct disassemble_info *info)
{
	struct spoor_disasm *d = info->application_data;

	(void)status;
	(void)memaddr;
	d->mem_error = true;
}

/* Returns a disassembler for @xlen naming targets from @img (disasm.h). */
struct spoor_disasm *spoor_disasm_new(unsigned xlen, const struct spoor_image *img)
{
	static const uint8_t nop[4] = { 0x13, 0x00, 0x00, 0x00 };
	struct spoor_disasm *d;
	unsigned long mach;
	char scratch[32];

	if (xlen == 32)
		mach = bfd_mach_riscv32;
	else if (xlen == 64)
		mach = bfd_mach_riscv64;
	else
		return NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	init_disassemble_info(&d->info, d, out_plain, out_styled);
	d->info.application_data = d;
	d->info.arch = bfd_arch_riscv;
	d->info.mach = mach;
	d->info.endian = BFD_ENDIAN_LITTLE;
	d->info.endian_code = BFD_ENDIAN_LITTLE;
	d->info.read_memory_func = read_memory;
	d->info.memory_error_func = memory_error;
	d->info.print_address_func = print_address;
	disassemble_init_for_target(&d->info);
	/* Without an ELF file (bfd) the ISA is libopcodes' default, rv64gc
	 * (IMAFDC, Zicsr, Zifencei); XLEN comes from the machine. */
	d->print = disassembler(bfd_arch_riscv, false, mach, NULL);
	if (!d->print) {
		free(d);
		return NULL;
	}
	d->img = img;
	d->addr_mask = xlen == 32 ? UINT32_MAX : UINT64_MAX;
	/* libopcodes allocates its private state on the first instruction:
	 * do that here, so that spoor_disasm_insn() never allocates. */
	spoor_disasm_insn(d, 0, nop, sizeof(nop), scratch, sizeof(scratch));
	return d;
}

/* Frees @d (may be NULL) and libopcodes' state for it. */
void spoor_disasm_free(struct spoor_disasm *d)
{
	if (!d)
		return;
	disassemble_free_target(&d->info);
	free(d);
}

/* Disassembles the instruction in @bytes at @addr into @buf (disasm.h). */
int spoor_disasm_insn(struct spoor_disasm *d, uint64_t addr, const uint8_t *bytes, size_t avail,
		      char *buf, size_t size)
{
	size_t len;
	int n;

	if (buf && size)
		buf[0] = '\0';
	if (!d || !bytes || !buf || !size || !avail)
		return SPOOR_E_INVAL;
	/* The length the low bits give: 16, 32, or 48 bits and more. */
	if ((bytes[0] & 0x03) != 0x03)
		len = 2;
	else if ((bytes[0] & 0x1c) != 0x1c)
		len = 4;
	else
		return SPOOR_E_BAD_INSN;
	if (avail < len)
		return SPOOR_E_BAD_INSN;
	d->bytes = bytes;
	d->addr = addr;
	d->avail = len;
	d->mem_error = false;
	d->out = buf;
	d->size = size;
	d->len = 0;
	d->comment = false;
	d->info.insn_info_valid = 0;
	d->info.insn_type = dis_nonbranch;
	d->info.target = 0;
	n = d->print((bfd_vma)addr, &d->info);
	while (d->len && buf[d->len - 1] == ' ')
		buf[--d->len] = '\0';
	d->out = NULL;
	d->bytes = NULL;
	if (d->mem_error || n != (int)len) {
		buf[0] = '\0';
		return SPOOR_E_BAD_INSN;
	}
	/* Bits libopcodes knows no instruction for: ".word\t0x..." */
	if (d->info.insn_type == dis_noninsn)
		return SPOOR_E_BAD_INSN;
	return n;
}

/* Disassembles the instruction at @addr in @img into @buf (disasm.h). */
int spoor_disasm_at(struct spoor_disasm *d, const struct spoor_image *img, uint64_t addr,
		    char *buf, size_t size)
{
	const uint8_t *p;
	size_t avail;

	if (buf && size)
		buf[0] = '\0';
	if (!d || !img || !buf || !size)
		return SPOOR_E_INVAL;
	p = spoor_image_ptr(img, addr, &avail);
	if (!p)
		return SPOOR_E_NO_IMAGE;
	return spoor_disasm_insn(d, addr, p, avail, buf, size);
}
