// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: ELF loading (libelf, libdw) through spoor_image_add_elf()
 * and the lookups the decoder and the listings make on what it loaded.  The
 * input's first byte chooses a load offset and what else the image holds
 * (the same file again, spike's boot ROM); the rest is the file.  Beyond
 * the sanitizers: what loads lies inside the address space of its class,
 * the bytes spoor_image_ptr() returns lie in a segment, instructions read
 * from the entry point on fit in theirs, and a rejected file gets a
 * printable message naming it.  The listings' other lookups run too: the
 * function declaration lines (DWARF subprograms), the disassembly
 * (libopcodes) of what is read, and the functions analysis numbers.
 */
#include "conf_fuzz.h"	/* first: it defines _GNU_SOURCE */

#include "spoor/disasm.h"
#include "spoor/funcs.h"
#include "spoor/image.h"
#include "spoor/insn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Looks @addr up the way decoding and listings do. */
static void probe(struct spoor_image *img, uint64_t addr)
{
	const char *name, *file;
	uint64_t off;
	size_t avail;
	char buf[256];
	int line;

	if (spoor_image_ptr(img, addr, &avail))
		REQUIRE(avail > 0);
	if (!spoor_image_symbol(img, addr, &name, &off))
		REQUIRE(name && off <= addr);
	if (!spoor_image_line(img, addr, &file, &line))
		REQUIRE(file && line >= 0);
	if (!spoor_image_func_line(img, addr, &file, &line))
		REQUIRE(file && line > 0);
	spoor_image_describe(img, addr, buf, sizeof(buf));
}

/* Disassembles the @len-byte instruction at @addr as decode's listing does. */
static void disasm(struct spoor_image *img, uint64_t addr, unsigned len)
{
	static struct spoor_disasm *d[2];
	unsigned x = spoor_image_xlen(img) == 32;
	char buf[160];
	int n;

	if (!d[x])
		d[x] = spoor_disasm_new(x ? 32 : 64, NULL);
	REQUIRE(d[x]);
	n = spoor_disasm_at(d[x], img, addr, buf, sizeof(buf));
	REQUIRE(n == (int)len || n == SPOOR_E_BAD_INSN);
	REQUIRE(memchr(buf, 0, sizeof(buf)));
}

/* The functions analysis numbers: each symbol's range holds what lookups give. */
static void functions(struct spoor_image *img)
{
	struct spoor_funcs *f = spoor_funcs_new(img);

	REQUIRE(f);
	for (size_t i = 0; i < spoor_funcs_symbols(f) && i < 256; i++) {
		const struct spoor_func *fn = spoor_funcs_get(f, (uint32_t)i);

		REQUIRE(fn && fn->name && !fn->pseudo);
		REQUIRE(spoor_funcs_find(f, fn->start) == i);
	}
	spoor_funcs_free(f);
}

/* Reads up to 64 instructions from @addr on, as reconstruction reads them. */
static void walk(struct spoor_image *img, uint64_t addr)
{
	for (int i = 0; i < 64; i++) {
		struct spoor_insn in;
		const uint8_t *b;
		size_t avail;
		uint32_t raw;

		b = spoor_image_ptr(img, addr, &avail);
		if (!b || avail < 2)
			return;
		raw = (uint32_t)b[0] | (uint32_t)b[1] << 8;
		if ((raw & 3) == 3) {
			if (avail < 4)
				return;
			raw |= (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
		}
		if (spoor_insn_decode(raw, spoor_image_xlen(img), &in) < 0)
			return;
		REQUIRE((in.len == 2 || in.len == 4) && in.len <= avail);
		probe(img, addr);
		disasm(img, addr, in.len);
		addr += in.len;
	}
}

/* The entry point of the ELF file @elf (@size bytes; 0 if too short), shifted by @offset. */
static uint64_t entry(const uint8_t *elf, size_t size, int64_t offset)
{
	uint64_t e = 0;

	if (size < 0x20)
		return 0;
	/* e_entry at 0x18 in both classes: 4 bytes (ELFCLASS32) or 8 (ELFCLASS64). */
	for (int i = elf[4] == 1 ? 3 : 7; i >= 0; i--)
		e = e << 8 | elf[0x18 + i];
	return e + (uint64_t)offset;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int64_t offsets[4] = { 0, 0x1000, -0x80000000ll, 1 };
	struct spoor_image *img;
	struct spoor_diag d;
	char path[64];
	int fd, ret;

	if (size < 1)
		return 0;
	fd = fuzz_file(data + 1, size - 1, path, sizeof(path));
	img = spoor_image_new();
	REQUIRE(img);
	ret = spoor_image_add_elf(img, path, offsets[data[0] & 3], &d);
	if (ret) {
		fuzz_check_refusal(ret, d.msg, path);
	} else {
		unsigned xlen = spoor_image_xlen(img);

		REQUIRE(xlen == 32 || xlen == 64);
		/* Addresses the file names: entry-like values from the input. */
		for (size_t i = 1; i + 8 <= size && i < 4096; i += 97) {
			uint64_t a;

			memcpy(&a, data + i, sizeof(a));
			probe(img, a);
			probe(img, 0x80000000u + (a & 0xffff));
		}
		probe(img, 0x80000000u);
		walk(img, entry(data + 1, size - 1, offsets[data[0] & 3]));
		functions(img);
		/* The file again, where it is (an overlap) or 256 MiB on. */
		if (data[0] & 4) {
			int64_t again = offsets[data[0] & 3] + ((data[0] & 8) ? 0x10000000 : 0);

			ret = spoor_image_add_elf(img, path, again, &d);
			if (ret)
				fuzz_check_refusal(ret, d.msg, path);
			REQUIRE(ret || (data[0] & 8));
			probe(img, 0x90000000u);
		}
		if (data[0] & 16) {
			ret = spoor_image_add_spike_rom(img, xlen);
			REQUIRE(!ret || ret == SPOOR_E_OVERLAP);
			walk(img, 0x1000);
		}
	}
	spoor_image_free(img);
	close(fd);
	return 0;
}
