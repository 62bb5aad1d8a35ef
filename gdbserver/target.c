// SPDX-License-Identifier: MIT
/* The replay target: ELF memory and the target description (target.h). */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spoor/error.h"
#include "target.h"

/* Sets @diag to "PATH: WHAT" and returns @err. */
static int fail(struct spoor_diag *diag, int err, const char *path, const char *what)
{
	snprintf(diag->msg, sizeof(diag->msg), "%s: %s", path, what);
	return err;
}

/* Adds one segment (its file bytes copied, the rest zero); returns 0 or SPOOR_E_NOMEM. */
static int add_segment(struct gs_memory *m, uint64_t addr, const uint8_t *file, size_t filesz,
		       size_t memsz)
{
	struct gs_segment *s = realloc(m->seg, (m->nseg + 1) * sizeof(*s));
	uint8_t *bytes;

	if (!s)
		return SPOOR_E_NOMEM;
	m->seg = s;
	bytes = calloc(1, memsz ? memsz : 1);
	if (!bytes)
		return SPOOR_E_NOMEM;
	memcpy(bytes, file, filesz);
	m->seg[m->nseg++] = (struct gs_segment){ .addr = addr, .size = memsz, .bytes = bytes };
	return 0;
}

int gs_memory_add_elf(struct gs_memory *m, const char *path, int64_t offset,
		      struct spoor_diag *diag)
{
	Elf *e = NULL;
	size_t n, raw_len;
	char *raw;
	int fd, ret = 0;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return fail(diag, SPOOR_E_BAD_ELF, path, "libelf is unusable");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(diag, SPOOR_E_IO, path, "cannot open");
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getphdrnum(e, &n)) {
		ret = fail(diag, SPOOR_E_BAD_ELF, path, "not an ELF file");
		goto out;
	}
	raw = elf_rawfile(e, &raw_len);
	for (size_t i = 0; i < n && !ret; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || !ph.p_memsz)
			continue;
		if (!raw || ph.p_offset > raw_len || ph.p_filesz > raw_len - ph.p_offset ||
		    ph.p_filesz > ph.p_memsz || ph.p_memsz > (64u << 20)) {
			ret = fail(diag, SPOOR_E_BAD_ELF, path, "a loadable segment is truncated "
				   "or larger than 64 MiB");
			break;
		}
		ret = add_segment(m, ph.p_vaddr + (uint64_t)offset,
				  (const uint8_t *)raw + ph.p_offset, ph.p_filesz, ph.p_memsz);
		if (ret)
			fail(diag, ret, path, "out of memory");
	}
out:
	if (e)
		elf_end(e);
	close(fd);
	return ret;
}

void gs_memory_free(struct gs_memory *m)
{
	for (size_t i = 0; i < m->nseg; i++)
		free(m->seg[i].bytes);
	free(m->seg);
	m->seg = NULL;
	m->nseg = 0;
}

size_t gs_memory_read(const struct gs_memory *m, uint64_t addr, size_t len, uint8_t *out)
{
	for (size_t i = 0; i < m->nseg; i++) {
		const struct gs_segment *s = &m->seg[i];
		uint64_t off = addr - s->addr;

		if (addr < s->addr || off >= s->size)
			continue;
		if (len > s->size - off)
			len = (size_t)(s->size - off);
		memcpy(out, s->bytes + off, len);
		return len;
	}
	return 0;
}

void gs_target_xml(unsigned xlen, struct gs_text *out)
{
	static const char *const names[32] = {
		"zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "fp", "s1", "a0", "a1", "a2",
		"a3", "a4", "a5", "a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9",
		"s10", "s11", "t3", "t4", "t5", "t6",
	};

	gs_text_add(out, "<?xml version=\"1.0\"?>\n"
		    "<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n<target version=\"1.0\">\n"
		    "<architecture>riscv:rv%u</architecture>\n"
		    "<feature name=\"org.gnu.gdb.riscv.cpu\">\n", xlen);
	for (int i = 0; i < 32; i++)
		gs_text_add(out, "<reg name=\"%s\" bitsize=\"%u\" type=\"%s\" regnum=\"%d\"/>\n",
			    names[i], xlen, i == 1 ? "code_ptr" : i == 2 || i == 8 ? "data_ptr" :
			    "int", i);
	gs_text_add(out, "<reg name=\"pc\" bitsize=\"%u\" type=\"code_ptr\" regnum=\"%d\"/>\n"
		    "</feature>\n</target>\n", xlen, GS_REG_PC);
}
