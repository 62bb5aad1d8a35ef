// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: ELF loading (libelf, libdw) through spoor_image_add_elf()
 * and the lookups the decoder and the listings make on what it loaded.  The
 * input's first byte chooses a load offset; the rest is the file.  Beyond
 * the sanitizers: what loads lies inside the address space of its class,
 * the bytes spoor_image_ptr() returns lie in a segment, and a rejected file
 * gets a printable message naming it.
 */
#include "conf_fuzz.h"	/* first: it defines _GNU_SOURCE */

#include "spoor/image.h"

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
	spoor_image_describe(img, addr, buf, sizeof(buf));
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
	}
	spoor_image_free(img);
	close(fd);
	return 0;
}
