// SPDX-License-Identifier: MIT
/*
 * The virtual board's bus: RAM, the boot ROM, the SiFive test device, the
 * CLINT and the NS16550A UART at QEMU virt's addresses; and program loading
 * (ELF PT_LOAD segments through libelf, raw bytes).
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <gelf.h>
#include <libelf.h>

#include "iss_priv.h"
#include "spoor/error.h"

#ifndef EM_RISCV
#define EM_RISCV 243
#endif

#define TEST_SIZE	0x1000u
#define CLINT_SIZE	0x10000u
#define CLINT_MSIP	0x0u
#define CLINT_MTIMECMP	0x4000u
#define CLINT_MTIME	0xbff8u
#define UART_SIZE	0x100u

#define TEST_FAIL	0x3333u
#define TEST_PASS	0x5555u
#define TEST_RESET	0x7777u

#define UART_LSR_THRE	0x20u
#define UART_LSR_TEMT	0x40u
#define UART_LCR_DLAB	0x80u

/* Returns the @size low bytes mask. */
static uint64_t size_mask(unsigned size)
{
	return size >= 8 ? ~0ull : (1ull << (8 * size)) - 1;
}

/* Returns @size bytes at byte offset @off of the 64-bit register @reg. */
static uint64_t reg_get(uint64_t reg, unsigned off, unsigned size)
{
	return (reg >> (8 * off)) & size_mask(size);
}

/* Returns the 64-bit register @reg with @size bytes at @off replaced by @v. */
static uint64_t reg_put(uint64_t reg, unsigned off, unsigned size, uint64_t v)
{
	uint64_t m = size_mask(size) << (8 * off);

	return (reg & ~m) | ((v << (8 * off)) & m);
}

/* Reads CLINT register bytes at @off; returns 0 or SPOOR_E_ACCESS. */
static int clint_read(struct spoor_iss *s, uint64_t off, unsigned size, uint64_t *v)
{
	if (off >= CLINT_MTIMECMP && off < CLINT_MTIMECMP + 8) {
		if (off - CLINT_MTIMECMP + size > 8)
			return SPOOR_E_ACCESS;
		*v = reg_get(s->mtimecmp, (unsigned)(off - CLINT_MTIMECMP), size);
	} else if (off >= CLINT_MTIME) {
		if (off - CLINT_MTIME + size > 8)
			return SPOOR_E_ACCESS;
		*v = reg_get(iss_mtime(s), (unsigned)(off - CLINT_MTIME), size);
	} else if (off < 4) {
		if (off + size > 4)
			return SPOOR_E_ACCESS;
		*v = reg_get(s->msip, (unsigned)off, size);
	} else {
		*v = 0;
	}
	return 0;
}

/* Writes CLINT register bytes at @off; returns 0 or SPOOR_E_ACCESS. */
static int clint_write(struct spoor_iss *s, uint64_t off, unsigned size, uint64_t v)
{
	if (off >= CLINT_MTIMECMP && off < CLINT_MTIMECMP + 8) {
		if (off - CLINT_MTIMECMP + size > 8)
			return SPOOR_E_ACCESS;
		s->mtimecmp = reg_put(s->mtimecmp, (unsigned)(off - CLINT_MTIMECMP), size, v);
	} else if (off >= CLINT_MTIME) {
		if (off - CLINT_MTIME + size > 8)
			return SPOOR_E_ACCESS;
		iss_set_mtime(s, reg_put(iss_mtime(s), (unsigned)(off - CLINT_MTIME), size, v));
	} else if (off < 4) {
		if (off + size > 4)
			return SPOOR_E_ACCESS;
		s->msip = (uint32_t)reg_put(s->msip, (unsigned)off, size, v) & 1;
	}
	s->next_check = 0;
	return 0;
}

/* Reads UART register @reg; returns its value. */
static uint8_t uart_reg_read(const struct spoor_iss *s, unsigned reg)
{
	int dlab = (s->uart_lcr & UART_LCR_DLAB) != 0;

	switch (reg) {
	case 0: return dlab ? s->uart_dll : 0;
	case 1: return dlab ? s->uart_dlm : s->uart_ier;
	case 2: return 0x01;	/* IIR: no interrupt pending */
	case 3: return s->uart_lcr;
	case 4: return s->uart_mcr;
	case 5: return UART_LSR_THRE | UART_LSR_TEMT;
	case 7: return s->uart_scr;
	}
	return 0;
}

/* Sends one UART byte to the configured output; returns nothing. */
static void uart_tx(struct spoor_iss *s, uint8_t c)
{
	if (s->uart_tx) {
		s->uart_tx(s->uart_ctx, c);
	} else if (s->uart_out) {
		fputc(c, s->uart_out);
		if (c == '\n')
			fflush(s->uart_out);
	}
}

/* Writes UART register @reg; returns nothing. */
static void uart_reg_write(struct spoor_iss *s, unsigned reg, uint8_t v)
{
	int dlab = (s->uart_lcr & UART_LCR_DLAB) != 0;

	switch (reg) {
	case 0:
		if (dlab)
			s->uart_dll = v;
		else
			uart_tx(s, v);
		break;
	case 1:
		if (dlab)
			s->uart_dlm = v;
		else
			s->uart_ier = v & 0x0f;
		break;
	case 3: s->uart_lcr = v; break;
	case 4: s->uart_mcr = v & 0x1f; break;
	case 7: s->uart_scr = v; break;
	}
}

/* Writes the test device; returns 0 or SPOOR_E_ACCESS. */
static int test_write(struct spoor_iss *s, uint64_t off, unsigned size, uint64_t v)
{
	if (off || (size != 2 && size != 4))
		return SPOOR_E_ACCESS;
	switch (v & 0xffff) {
	case TEST_FAIL:
		s->exit_code = (int)((v >> 16) & 0xffff);
		s->exited = 1;
		s->stop = SPOOR_ISS_STOP_EXIT;
		break;
	case TEST_PASS:
		s->exit_code = 0;
		s->exited = 1;
		s->stop = SPOOR_ISS_STOP_EXIT;
		break;
	case TEST_RESET:
		s->stop = SPOOR_ISS_STOP_RESET;
		break;
	}
	s->next_check = 0;
	return 0;
}

/* Returns 1 if [addr, addr + size) lies in [base, base + len). */
static int within(uint64_t addr, unsigned size, uint64_t base, uint64_t len)
{
	return addr >= base && addr - base < len && size <= len - (addr - base);
}

int iss_bus_read(struct spoor_iss *s, uint64_t addr, unsigned size, uint64_t *v)
{
	*v = 0;
	if (within(addr, size, s->ram_base, s->ram_size)) {
		memcpy(v, s->ram + (addr - s->ram_base), size);
		return 0;
	}
	if (within(addr, size, SPOOR_ISS_ROM_BASE, SPOOR_ISS_ROM_SIZE)) {
		uint64_t off = addr - SPOOR_ISS_ROM_BASE;

		for (unsigned i = 0; i < size && off + i < ROM_BYTES; i++)
			*v |= (uint64_t)s->rom[off + i] << (8 * i);
		return 0;
	}
	if (within(addr, size, SPOOR_ISS_CLINT_BASE, CLINT_SIZE))
		return clint_read(s, addr - SPOOR_ISS_CLINT_BASE, size, v);
	if (within(addr, size, SPOOR_ISS_UART_BASE, UART_SIZE)) {
		for (unsigned i = 0; i < size; i++)
			*v |= (uint64_t)uart_reg_read(s, (unsigned)(addr - SPOOR_ISS_UART_BASE + i) & 7)
			      << (8 * i);
		return 0;
	}
	if (within(addr, size, SPOOR_ISS_TEST_BASE, TEST_SIZE))
		return 0;
	for (unsigned i = 0; i < s->nmmio; i++)
		if (within(addr, size, s->mmio[i].base, s->mmio[i].size))
			return s->mmio[i].dev.read(s->mmio[i].dev.ctx, addr - s->mmio[i].base, size,
						   v);
	return SPOOR_E_ACCESS;
}

int iss_bus_write(struct spoor_iss *s, uint64_t addr, unsigned size, uint64_t v)
{
	if (within(addr, size, s->ram_base, s->ram_size)) {
		uint64_t off = addr - s->ram_base;

		memcpy(s->ram + off, &v, size);
		if (s->code_pages[off >> CODE_PAGE_SHIFT] |
		    s->code_pages[(off + size - 1) >> CODE_PAGE_SHIFT])
			iss_code_written(s, addr, size);
		return 0;
	}
	if (within(addr, size, SPOOR_ISS_ROM_BASE, SPOOR_ISS_ROM_SIZE))
		return 0;	/* ignored, as by QEMU */
	if (within(addr, size, SPOOR_ISS_CLINT_BASE, CLINT_SIZE))
		return clint_write(s, addr - SPOOR_ISS_CLINT_BASE, size, v);
	if (within(addr, size, SPOOR_ISS_UART_BASE, UART_SIZE)) {
		for (unsigned i = 0; i < size; i++)
			uart_reg_write(s, (unsigned)(addr - SPOOR_ISS_UART_BASE + i) & 7,
				       (uint8_t)(v >> (8 * i)));
		return 0;
	}
	if (within(addr, size, SPOOR_ISS_TEST_BASE, TEST_SIZE))
		return test_write(s, addr - SPOOR_ISS_TEST_BASE, size, v);
	for (unsigned i = 0; i < s->nmmio; i++)
		if (within(addr, size, s->mmio[i].base, s->mmio[i].size))
			return s->mmio[i].dev.write(s->mmio[i].dev.ctx, addr - s->mmio[i].base,
						    size, v);
	return SPOOR_E_ACCESS;
}

int iss_fetch16(struct spoor_iss *s, uint64_t addr, uint16_t *v)
{
	uint64_t w;

	if (within(addr, 2, s->ram_base, s->ram_size)) {
		memcpy(v, s->ram + (addr - s->ram_base), 2);
		return 0;
	}
	if (!within(addr, 2, SPOOR_ISS_ROM_BASE, SPOOR_ISS_ROM_SIZE))
		return SPOOR_E_ACCESS;
	iss_bus_read(s, addr, 2, &w);
	*v = (uint16_t)w;
	return 0;
}

/* Stores @v in @size little-endian bytes at @p; returns nothing. */
static void put_le(uint8_t *p, uint64_t v, unsigned size)
{
	for (unsigned i = 0; i < size; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

void iss_build_rom(struct spoor_iss *s)
{
	int rv32 = s->xlen == 32;
	const uint32_t code[6] = {
		0x00000297,			/* auipc t0, 0 */
		0x02828613,			/* addi a2, t0, 40 */
		0xf1402573,			/* csrr a0, mhartid */
		rv32 ? 0x0202a583 : 0x0202b583,	/* lw/ld a1, 32(t0) */
		rv32 ? 0x0182a283 : 0x0182b283,	/* lw/ld t0, 24(t0) */
		0x00028067,			/* jr t0 */
	};
	unsigned w = s->xlen / 8;
	uint8_t *info = s->rom + 0x28;

	memset(s->rom, 0, sizeof(s->rom));
	for (unsigned i = 0; i < 6; i++)
		put_le(s->rom + 4 * i, code[i], 4);
	put_le(s->rom + 0x18, s->start_addr, 8);
	put_le(s->rom + 0x20, s->fdt_addr, 8);
	/* OpenSBI's fw_dynamic_info, as QEMU puts it: magic, version, next
	 * address, next mode (S), options, boot hart. */
	put_le(info, 0x4942534f, w);
	put_le(info + w, 2, w);
	put_le(info + 2 * w, s->start_addr, w);
	put_le(info + 3 * w, 1, w);
	put_le(info + 4 * w, 0, w);
	put_le(info + 5 * w, 0, w);
}

void iss_devices_reset(struct spoor_iss *s)
{
	s->msip = 0;
	s->mtimecmp = UINT64_MAX;
	s->mtime_base = 0;
	s->mtime_cycle = s->cycle;
	s->uart_ier = 0;
	s->uart_lcr = 0;
	s->uart_mcr = 0;
	s->uart_scr = 0;
	s->uart_dll = 0;
	s->uart_dlm = 0;
}

int spoor_iss_set_start(struct spoor_iss *s, uint64_t addr)
{
	if (!s)
		return SPOOR_E_INVAL;
	s->start_addr = addr & s->xmask;
	iss_build_rom(s);
	iss_flush_dcache(s);
	return 0;
}

int spoor_iss_load(struct spoor_iss *s, uint64_t addr, const void *buf, size_t len)
{
	if (!s || (!buf && len))
		return SPOOR_E_INVAL;
	if (!len)
		return 0;
	if (!within(addr, 1, s->ram_base, s->ram_size) || len > s->ram_size - (addr - s->ram_base))
		return SPOOR_E_ACCESS;
	memcpy(s->ram + (addr - s->ram_base), buf, len);
	iss_code_written(s, addr, len);
	return 0;
}

/* Clips segment @ph to RAM: sets *@skip (bytes below RAM) and *@len (bytes
 * in RAM); returns 0, or SPOOR_E_ACCESS if no byte of it is in RAM. */
static int clip_segment(const struct spoor_iss *s, const GElf_Phdr *ph, uint64_t *skip,
			uint64_t *len)
{
	uint64_t start = ph->p_paddr, end = ph->p_paddr + ph->p_memsz;
	uint64_t ram_end = s->ram_base + s->ram_size;

	if (end < start || end <= s->ram_base || start >= ram_end)
		return SPOOR_E_ACCESS;
	*skip = start < s->ram_base ? s->ram_base - start : 0;
	*len = (end > ram_end ? ram_end : end) - (start + *skip);
	return 0;
}

/*
 * Checks that every PT_LOAD segment of @elf fits the file (@size) and has
 * bytes in RAM (QEMU too loads a first segment that holds the ELF headers
 * below RAM); returns 0 or an error.
 */
static int check_segments(struct spoor_iss *s, Elf *elf, size_t n, size_t size)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t skip, len;
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph))
			return SPOOR_E_BAD_ELF;
		if (ph.p_type != PT_LOAD || !ph.p_memsz)
			continue;
		if (ph.p_filesz > ph.p_memsz || ph.p_offset > size ||
		    ph.p_filesz > size - ph.p_offset)
			return SPOOR_E_BAD_ELF;
		if (clip_segment(s, &ph, &skip, &len))
			return SPOOR_E_ACCESS;
	}
	return 0;
}

/* Copies the RAM part of every PT_LOAD segment of @elf (file bytes @file); returns nothing. */
static void copy_segments(struct spoor_iss *s, Elf *elf, size_t n, const char *file)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t skip, len, fil;
		GElf_Phdr ph;
		uint8_t *dst;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !ph.p_memsz ||
		    clip_segment(s, &ph, &skip, &len))
			continue;
		dst = s->ram + (ph.p_paddr + skip - s->ram_base);
		fil = ph.p_filesz > skip ? ph.p_filesz - skip : 0;
		if (fil > len)
			fil = len;
		memcpy(dst, file + ph.p_offset + skip, fil);
		memset(dst + fil, 0, len - fil);
	}
}

/* Opens @path as an ELF file; returns the handle (with *@fd) or NULL. */
static Elf *open_elf(const char *path, int *fd, int *err)
{
	Elf *elf;

	*err = SPOOR_E_BAD_ELF;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0) {
		*err = SPOOR_E_IO;
		return NULL;
	}
	elf = elf_begin(*fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		close(*fd);
		return NULL;
	}
	return elf;
}

int spoor_iss_elf_xlen(const char *path)
{
	GElf_Ehdr eh;
	int fd, err, cls;
	Elf *elf;

	if (!path)
		return SPOOR_E_INVAL;
	elf = open_elf(path, &fd, &err);
	if (!elf)
		return err;
	cls = gelf_getclass(elf);
	if (!gelf_getehdr(elf, &eh) || eh.e_machine != EM_RISCV)
		cls = ELFCLASSNONE;
	elf_end(elf);
	close(fd);
	if (cls == ELFCLASS32)
		return 32;
	return cls == ELFCLASS64 ? 64 : SPOOR_E_BAD_ELF;
}

int spoor_iss_load_elf(struct spoor_iss *s, const char *path, uint64_t *entry)
{
	GElf_Ehdr eh;
	size_t n, size;
	char *file;
	int fd, ret;
	Elf *elf;

	if (!s || !path)
		return SPOOR_E_INVAL;
	elf = open_elf(path, &fd, &ret);
	if (!elf)
		return ret;
	ret = SPOOR_E_BAD_ELF;
	if (!gelf_getehdr(elf, &eh) || eh.e_machine != EM_RISCV ||
	    gelf_getclass(elf) != (s->xlen == 64 ? ELFCLASS64 : ELFCLASS32))
		goto out;
	file = elf_rawfile(elf, &size);
	if (!file || elf_getphdrnum(elf, &n))
		goto out;
	ret = check_segments(s, elf, n, size);
	if (ret)
		goto out;
	copy_segments(s, elf, n, file);
	iss_flush_dcache(s);
	s->start_addr = eh.e_entry & s->xmask;
	iss_build_rom(s);
	if (entry)
		*entry = s->start_addr;
out:
	elf_end(elf);
	close(fd);
	return ret;
}

/* True when [a, a + n) and [b, b + m) share a byte. */
static bool overlaps(uint64_t a, uint64_t n, uint64_t b, uint64_t m)
{
	return a < b + m && b < a + n;
}

int spoor_iss_add_device(struct spoor_iss *s, uint64_t base, uint64_t size,
			 const struct spoor_iss_device *dev)
{
	static const uint64_t fixed[][2] = {
		{ SPOOR_ISS_ROM_BASE, SPOOR_ISS_ROM_SIZE }, { SPOOR_ISS_TEST_BASE, TEST_SIZE },
		{ SPOOR_ISS_CLINT_BASE, CLINT_SIZE }, { SPOOR_ISS_UART_BASE, UART_SIZE },
	};

	if (!s || !dev || !dev->read || !dev->write || !size || base + size < base)
		return SPOOR_E_INVAL;
	if (s->nmmio == SPOOR_ISS_MAX_DEVICES)
		return SPOOR_E_NOSPACE;
	if (overlaps(base, size, s->ram_base, s->ram_size))
		return SPOOR_E_OVERLAP;
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (overlaps(base, size, fixed[i][0], fixed[i][1]))
			return SPOOR_E_OVERLAP;
	for (unsigned i = 0; i < s->nmmio; i++)
		if (overlaps(base, size, s->mmio[i].base, s->mmio[i].size))
			return SPOOR_E_OVERLAP;
	s->mmio[s->nmmio].base = base;
	s->mmio[s->nmmio].size = size;
	s->mmio[s->nmmio].dev = *dev;
	s->nmmio++;
	return 0;
}
