// SPDX-License-Identifier: MIT
/*
 * Tests for program images.  Expected bytes and symbols were looked up with
 * riscv64-unknown-elf-objdump -d / nm -S / addr2line on the conformance ELFs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "rng.h"
#include "spoor/error.h"
#include "spoor/image.h"

#define DHRY	SPOOR_VECTORS "/elf/dhrystone.riscv"
#define STATE	SPOOR_VECTORS "/elf/embench-statemate.riscv"

static char tmpdir[] = "/tmp/spoor-test-image-XXXXXX";

/* Returns @path's bytes (malloc'd) and their count in *@len; aborts on failure. */
static uint8_t *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		abort();
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
		abort();
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* Writes @len bytes to @name in the temporary directory; returns its path (static). */
static const char *write_tmp(const char *name, const uint8_t *bytes, size_t len)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "wb");
	if (!f || (len && fwrite(bytes, 1, len, f) != len))
		abort();
	fclose(f);
	return path;
}

/* Adds ELF @path at @offset; returns spoor_image_add_elf()'s result (diag printed). */
static int add_elf(struct spoor_image *img, const char *path, int64_t offset)
{
	struct spoor_diag d;
	int ret = spoor_image_add_elf(img, path, offset, &d);

	if (ret)
		fprintf(stderr, "add_elf: %s\n", d.msg);
	return ret;
}

/* Returns the little-endian 32-bit word at @addr, or -1 when fewer than 4 bytes are there. */
static int64_t word_at(const struct spoor_image *img, uint64_t addr)
{
	size_t avail;
	const uint8_t *p = spoor_image_ptr(img, addr, &avail);

	if (!p || avail < 4)
		return -1;
	return (int64_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
			 (uint32_t)p[3] << 24);
}

/* Returns how many bytes follow @addr in its segment (0 when unmapped). */
static size_t avail_at(const struct spoor_image *img, uint64_t addr)
{
	size_t avail = 12345;

	spoor_image_ptr(img, addr, &avail);
	return avail;
}

/* Returns 1 when @addr is symbol @name plus @offset. */
static int sym_is(const struct spoor_image *img, uint64_t addr, const char *name, uint64_t offset)
{
	const char *n = NULL;
	uint64_t off = ~0ull;

	if (spoor_image_symbol(img, addr, &n, &off)) {
		fprintf(stderr, "no symbol at 0x%" PRIx64 " (want %s)\n", addr, name);
		return 0;
	}
	if (strcmp(n, name) || off != offset) {
		fprintf(stderr, "0x%" PRIx64 ": %s+0x%" PRIx64 ", want %s+0x%" PRIx64 "\n",
			addr, n, off, name, offset);
		return 0;
	}
	return 1;
}

/* Returns 1 when @addr has no symbol. */
static int no_sym(const struct spoor_image *img, uint64_t addr)
{
	const char *n;
	uint64_t off;

	return spoor_image_symbol(img, addr, &n, &off) == SPOOR_E_NOT_FOUND;
}

/* Returns the final path component of @path. */
static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* Returns 1 when @addr is at line @line of a file named @file. */
static int line_is(struct spoor_image *img, uint64_t addr, const char *file, int line)
{
	const char *f = NULL;
	int l = 0;

	if (spoor_image_line(img, addr, &f, &l)) {
		fprintf(stderr, "no line at 0x%" PRIx64 "\n", addr);
		return 0;
	}
	if (strcmp(base_name(f), file) || l != line) {
		fprintf(stderr, "0x%" PRIx64 ": %s:%d, want %s:%d\n", addr, f, l, file, line);
		return 0;
	}
	return 1;
}

static void test_dhrystone(void)
{
	struct spoor_image *img = spoor_image_new();
	char buf[128];

	CHECK(img != NULL);
	CHECK_EQ(add_elf(img, DHRY, 0), 0);
	CHECK_EQ(spoor_image_xlen(img), 64);
	/* Instructions as objdump -d shows them. */
	CHECK_EQ(word_at(img, 0x80000000), 0x41014081);	/* li ra,0; li sp,0 */
	CHECK_EQ(word_at(img, 0x80001050), 0x0056079b);	/* Proc_8: addw a5,a2,5 */
	CHECK_EQ(word_at(img, 0x80001054), 0x0c800713);	/* li a4,200 */
	CHECK_EQ(word_at(img, 0x800019e8), 0xe5867155);	/* main: addi sp; sd ra */
	CHECK_EQ(word_at(img, 0x80002874), 0xffffed30);	/* last file word */
	/* Segment 1: [0x80000000, 0x800001c6); segment 2: [0x80001000, 0x800050c0). */
	CHECK_EQ(avail_at(img, 0x80000000), 0x1c6);
	CHECK_EQ(avail_at(img, 0x800001c5), 1);
	CHECK_EQ(avail_at(img, 0x800001c6), 0);
	CHECK(spoor_image_ptr(img, 0x800001c6, NULL) == NULL);
	CHECK(spoor_image_ptr(img, 0x7fffffff, NULL) == NULL);
	CHECK_EQ(avail_at(img, 0x80001000), 0x40c0);
	CHECK_EQ(avail_at(img, 0x800050bf), 1);
	CHECK_EQ(avail_at(img, 0x800050c0), 0);
	CHECK_EQ(avail_at(img, 0), 0);
	/* The zero fill past the file bytes (.sbss/.bss). */
	CHECK_EQ(word_at(img, 0x80002878), 0);
	CHECK_EQ(word_at(img, 0x800050bc), 0);
	/* Symbols as nm -S shows them. */
	CHECK(sym_is(img, 0x80000000, "_start", 0));
	CHECK(sym_is(img, 0x80000122, "_start", 0x122));
	CHECK(sym_is(img, 0x80000130, "trap_entry", 0xc));
	CHECK(sym_is(img, 0x800001c4, "trap_entry", 0xa0));
	CHECK(no_sym(img, 0x80000500));		/* between segments */
	CHECK(no_sym(img, 0x80001000));		/* tohost: a label in data */
	CHECK(sym_is(img, 0x80001048, "Proc_7", 0));
	CHECK(sym_is(img, 0x8000104e, "Proc_7", 6));
	CHECK(sym_is(img, 0x80001050, "Proc_8", 0));
	CHECK(sym_is(img, 0x800016ac, "handle_trap", 0));	/* weak */
	CHECK(sym_is(img, 0x800012c0, "vprintfmt", 8));	/* local */
	CHECK(sym_is(img, 0x800019e8, "main", 0));
	CHECK(sym_is(img, 0x80001a00, "main", 0x18));
	CHECK(sym_is(img, 0x80002990 + 9999, "Arr_2_Glob", 9999));
	CHECK(sym_is(img, 0x80003078, "Arr_2_Glob", 0x6e8));	/* not __global_pointer$ */
	CHECK(no_sym(img, 0));			/* TLS symbols are no addresses */
	CHECK(no_sym(img, 0x40));
	CHECK(no_sym(img, 0x800050c0));		/* past counter_names */
	CHECK(no_sym(img, ~0ull));
	spoor_image_describe(img, 0x80000004, buf, sizeof(buf));
	CHECK(strcmp(buf, DHRY " [0x80000000, 0x800001c6)") == 0);
	spoor_image_describe(img, 0x1234, buf, sizeof(buf));
	CHECK(strcmp(buf, "no image covers 0x1234") == 0);
	spoor_image_free(img);
}

static void test_statemate(void)
{
	struct spoor_image *img = spoor_image_new();
	const char *f;
	int l;

	CHECK_EQ(add_elf(img, STATE, 0), 0);
	CHECK_EQ(spoor_image_xlen(img), 32);
	CHECK_EQ(word_at(img, 0x20010000), 0x000207b7);	/* lui a5,0x20 */
	CHECK_EQ(word_at(img, 0x20010004), 0x00002197);	/* auipc gp,0x2 */
	CHECK_EQ(word_at(img, 0x20010020), 0x00008067);	/* ret */
	CHECK_EQ(word_at(img, 0x20010cc8), 0x04812c23);	/* FH_DU: sw s0,88(sp) */
	CHECK_EQ(avail_at(img, 0x20010000), 0x2154);
	CHECK_EQ(avail_at(img, 0x20012154), 0);
	CHECK_EQ(avail_at(img, 0x2000fffe), 0);
	CHECK(sym_is(img, 0x20010000, "my_spike_entry", 0));
	CHECK(sym_is(img, 0x20010020, "my_spike_entry", 0x20));
	CHECK(sym_is(img, 0x20010cc8, "FH_DU", 4));
	CHECK(sym_is(img, 0x20011650, "benchmark_body.constprop.4", 0xc));
	CHECK(sym_is(img, 0x20011856, "initialise_benchmark", 2));	/* size 0 */
	CHECK(sym_is(img, 0x20011b80, "__eqdf2", 4));	/* alias of __nedf2 */
	CHECK(sym_is(img, 0x20011ed0, "__clz_tab", 0));	/* object */
	CHECK(no_sym(img, 0x20000000));
	/* Source lines as addr2line gives them. */
	CHECK(line_is(img, 0x20010080, "main.c", 20));
	CHECK(line_is(img, 0x20010000, "crt0-spike.c", 140));
	CHECK(line_is(img, 0x20011b7c, "eqdf2.c", 43));
	CHECK_EQ(spoor_image_line(img, 0x20011df4, &f, &l), SPOOR_E_NOT_FOUND);	/* memset */
	CHECK_EQ(spoor_image_line(img, 0x10000000, &f, &l), SPOOR_E_NOT_FOUND);
	spoor_image_free(img);
}

static void test_spike_rom(void)
{
	static const uint8_t rom64[20] = {
		0x97, 0x02, 0x00, 0x00, 0x93, 0x85, 0x02, 0x02, 0x73, 0x25,
		0x40, 0xf1, 0x83, 0xb2, 0x82, 0x01, 0x67, 0x80, 0x02, 0x00,
	};
	struct spoor_image *img = spoor_image_new();
	const uint8_t *p;
	size_t avail;
	char buf[128];

	CHECK_EQ(spoor_image_add_spike_rom(img, 64), 0);
	p = spoor_image_ptr(img, 0x1000, &avail);
	CHECK(p && avail == 20 && memcmp(p, rom64, 20) == 0);
	CHECK_EQ(avail_at(img, 0x1013), 1);
	CHECK_EQ(avail_at(img, 0x1014), 0);
	CHECK_EQ(avail_at(img, 0xfff), 0);
	CHECK_EQ(spoor_image_xlen(img), 0);
	CHECK(sym_is(img, 0x1010, "spike-bootrom", 0x10));
	CHECK(no_sym(img, 0x1014));
	spoor_image_describe(img, 0x1000, buf, sizeof(buf));
	CHECK(strcmp(buf, "spike-bootrom [0x1000, 0x1014)") == 0);
	CHECK_EQ(spoor_image_add_spike_rom(img, 64), SPOOR_E_OVERLAP);
	CHECK_EQ(spoor_image_add_spike_rom(img, 32), SPOOR_E_OVERLAP);
	CHECK_EQ(spoor_image_add_raw(img, "x", 0x1013, rom64, 1), SPOOR_E_OVERLAP);
	CHECK_EQ(spoor_image_add_raw(img, "x", 0xff0, rom64, 0x11), SPOOR_E_OVERLAP);
	CHECK_EQ(spoor_image_add_raw(img, "before", 0xff0, rom64, 0x10), 0);	/* adjacent */
	CHECK_EQ(spoor_image_add_raw(img, "after", 0x1014, rom64, 4), 0);
	CHECK(sym_is(img, 0xfff, "before", 0xf));
	CHECK(sym_is(img, 0x1017, "after", 3));
	CHECK_EQ(word_at(img, 0x1014), 0x00000297);
	CHECK_EQ(avail_at(img, 0x1000), 20);		/* still its own segment */
	spoor_image_free(img);

	img = spoor_image_new();
	CHECK_EQ(spoor_image_add_spike_rom(img, 32), 0);
	CHECK_EQ(word_at(img, 0x100c), 0x0182a283);	/* lw t0,24(t0) */
	CHECK_EQ(word_at(img, 0x1010), 0x00028067);
	CHECK_EQ(spoor_image_add_spike_rom(img, 16), SPOOR_E_INVAL);
	spoor_image_free(img);
}

static void test_raw_and_elf(void)
{
	struct spoor_image *img = spoor_image_new();
	static const uint8_t nops[8] = { 0x13, 0, 0, 0, 0x13, 0, 0, 0 };
	struct spoor_diag d;
	const char *f;
	char buf[256];
	int l;

	/* A blob where the ELF wants to go: the ELF is refused whole. */
	CHECK_EQ(spoor_image_add_raw(img, "blob", 0x80001040, nops, 8), 0);
	CHECK_EQ(spoor_image_add_elf(img, DHRY, 0, &d), SPOOR_E_OVERLAP);
	CHECK(strstr(d.msg, DHRY) != NULL);
	CHECK(strstr(d.msg, "blob [0x80001040, 0x80001048)") != NULL);
	CHECK(strstr(d.msg, "overlaps") != NULL);
	CHECK(spoor_image_ptr(img, 0x80000000, NULL) == NULL);
	CHECK(no_sym(img, 0x800019e8));
	CHECK_EQ(spoor_image_xlen(img), 0);
	spoor_image_free(img);

	/* ROM + ELF + a blob in the ELF's gap. */
	img = spoor_image_new();
	CHECK_EQ(spoor_image_add_spike_rom(img, 64), 0);
	CHECK_EQ(add_elf(img, DHRY, 0), 0);
	CHECK_EQ(spoor_image_add_raw(img, "gap", 0x800001c6, nops, 8), 0);
	CHECK_EQ(spoor_image_add_raw(img, "x", 0x800001c0, nops, 8), SPOOR_E_OVERLAP);
	CHECK_EQ(spoor_image_xlen(img), 64);
	CHECK_EQ(word_at(img, 0x100c), 0x0182b283);
	CHECK_EQ(word_at(img, 0x80000000), 0x41014081);
	CHECK_EQ(word_at(img, 0x800001c6), 0x13);
	CHECK(sym_is(img, 0x1000, "spike-bootrom", 0));
	CHECK(sym_is(img, 0x800001c4, "trap_entry", 0xa0));
	CHECK(sym_is(img, 0x800001c8, "gap", 2));
	CHECK(sym_is(img, 0x800019ea, "main", 2));
	CHECK_EQ(spoor_image_line(img, 0x1000, &f, &l), SPOOR_E_NOT_FOUND);
	CHECK_EQ(spoor_image_line(img, 0x800019e8, &f, &l), SPOOR_E_NOT_FOUND);	/* no DWARF */
	spoor_image_describe(img, 0x800001c8, buf, sizeof(buf));
	CHECK(strcmp(buf, "gap [0x800001c6, 0x800001ce)") == 0);
	/* The same ELF again at the same place. */
	CHECK_EQ(spoor_image_add_elf(img, DHRY, 0, &d), SPOOR_E_OVERLAP);
	CHECK(strstr(d.msg, DHRY ": segment " DHRY " [0x80000000, 0x800001c6) overlaps "
		      DHRY " [0x80000000, 0x800001c6)") != NULL);
	spoor_image_free(img);
}

static void test_offsets(void)
{
	struct spoor_image *img = spoor_image_new();
	struct spoor_diag d;

	struct spoor_image *img32 = spoor_image_new();

	CHECK_EQ(add_elf(img, DHRY, 0), 0);
	CHECK_EQ(add_elf(img, DHRY, 0x10000000), 0);
	/* One image holds programs of one class. */
	CHECK_EQ(spoor_image_add_elf(img, STATE, -0x20000000, &d), SPOOR_E_MISMATCH);
	CHECK(strstr(d.msg, "an RV32 program, but the image already holds RV64 programs") != NULL);
	CHECK_EQ(add_elf(img32, STATE, -0x20000000), 0);
	CHECK_EQ(spoor_image_xlen(img), 64);
	CHECK_EQ(spoor_image_xlen(img32), 32);
	CHECK_EQ(spoor_image_rvc(img), 1);
	CHECK_EQ(spoor_image_rvc(img32), 0);	/* its e_flags are 0, though it has C code */
	CHECK(!strcmp(spoor_image_elf_name(img32), STATE));
	CHECK_EQ(word_at(img, 0x80000000), 0x41014081);
	CHECK_EQ(word_at(img, 0x90000000), 0x41014081);
	CHECK_EQ(word_at(img, 0x90001050), 0x0056079b);
	CHECK_EQ(word_at(img32, 0x10000), 0x000207b7);
	CHECK_EQ(avail_at(img, 0x90001000), 0x40c0);
	CHECK(sym_is(img, 0x800019e8, "main", 0));
	CHECK(sym_is(img, 0x900019ec, "main", 4));
	CHECK(sym_is(img32, 0x10080, "main", 0));
	CHECK(no_sym(img, 0x90000500));
	CHECK(line_is(img32, 0x10080, "main.c", 20));
	CHECK_EQ(spoor_image_add_elf(img, DHRY, 0x10000000, &d), SPOOR_E_OVERLAP);
	CHECK(strstr(d.msg, "[0x90000000, 0x900001c6) overlaps") != NULL);
	CHECK_EQ(spoor_image_add_elf(img, DHRY, 0x1000, &d), SPOOR_E_OVERLAP);
	/* Below address 0 (wrapping round), past the top of an RV32 address space. */
	CHECK_EQ(spoor_image_add_elf(img, DHRY, -0x80000002ll, &d), SPOOR_E_BAD_ELF);
	CHECK(strstr(d.msg, "does not fit the address space") != NULL);
	CHECK_EQ(spoor_image_add_elf(img32, STATE, 0xe0000000, &d), SPOOR_E_BAD_ELF);
	CHECK(strstr(d.msg, "does not fit the address space") != NULL);
	/* Off the instruction alignment: 2 bytes with C, 4 without. */
	CHECK_EQ(spoor_image_add_elf(img, DHRY, -1, &d), SPOOR_E_BAD_ELF);
	CHECK(strstr(d.msg, "load offset -1 is not a multiple of 2") != NULL);
	CHECK_EQ(spoor_image_add_elf(img, DHRY, INT64_MAX, &d), SPOOR_E_BAD_ELF);
	CHECK_EQ(spoor_image_add_elf(img, DHRY, INT64_MAX - 1, &d), 0);	/* 0x800000007ffffffe */
	CHECK(sym_is(img, 0x800019e8ull + INT64_MAX - 1, "main", 0));
	spoor_image_free(img);
	spoor_image_free(img32);
}

/* Checks that loading @path fails with @err and a diag naming the file and containing @what. */
static void check_broken(const char *path, int err, const char *what)
{
	struct spoor_image *img = spoor_image_new();
	struct spoor_diag d;
	int ret;

	memset(d.msg, 'x', sizeof(d.msg));
	d.msg[sizeof(d.msg) - 1] = '\0';
	ret = spoor_image_add_elf(img, path, 0, &d);
	CHECK_EQ(ret, err);
	CHECK(strncmp(d.msg, path, strlen(path)) == 0 && d.msg[strlen(path)] == ':');
	if (!strstr(d.msg, what)) {
		fprintf(stderr, "diag '%s' lacks '%s'\n", d.msg, what);
		CHECK(0);
	}
	CHECK(spoor_image_ptr(img, 0x80000000, NULL) == NULL);
	CHECK_EQ(spoor_image_xlen(img), 0);
	spoor_image_free(img);
}

static void test_broken(void)
{
	static const size_t cuts[] = { 3, 4, 16, 40, 63, 64, 100, 0x1000, 0x1100, 0x2000,
				       0x3000, 0x4000, 17984 - 64 * 5, 17984 - 1 };
	uint8_t garbage[4096];
	uint8_t *elf;
	char name[64];
	size_t len, i;

	elf = read_all(DHRY, &len);
	CHECK_EQ(len, 17984);
	for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		snprintf(name, sizeof(name), "cut-%zu.elf", cuts[i]);
		check_broken(write_tmp(name, elf, cuts[i]), SPOOR_E_BAD_ELF,
			     cuts[i] < 4 ? "not an ELF file" : "truncated");
	}
	check_broken(write_tmp("empty.elf", elf, 0), SPOOR_E_BAD_ELF, "empty file");
	for (i = 0; i < sizeof(garbage); i++)
		garbage[i] = (uint8_t)rnd();
	check_broken(write_tmp("garbage.elf", garbage, sizeof(garbage)), SPOOR_E_BAD_ELF,
		     "not an ELF file");
	memcpy(garbage, "\177ELF", 4);
	check_broken(write_tmp("garbage2.elf", garbage, sizeof(garbage)), SPOOR_E_BAD_ELF, "");
	check_broken("/bin/true", SPOOR_E_BAD_ELF, "not a RISC-V ELF file (machine 62)");
	snprintf(name, sizeof(name), "%s/nonexistent.elf", tmpdir);
	check_broken(name, SPOOR_E_IO, "No such file");
	check_broken(tmpdir, SPOOR_E_BAD_ELF, "not a regular file");
	/* No executable segment: clear PF_X of both program headers (e_phoff 64, 56 bytes each). */
	elf[64 + 4] &= (uint8_t)~1;
	elf[64 + 56 + 4] &= (uint8_t)~1;
	check_broken(write_tmp("nox.elf", elf, len), SPOOR_E_BAD_ELF, "no executable segment");
	free(elf);
}

/*
 * Loads @len bytes of @elf with random bytes changed and looks things up in
 * it; anything but a crash (or a sanitizer report) is fine.
 */
static void mutate_once(const uint8_t *elf, size_t len, uint64_t shoff, unsigned *loaded)
{
	uint8_t *buf = malloc(len);
	struct spoor_image *img = spoor_image_new();
	struct spoor_diag d;
	const char *path, *n, *f;
	uint64_t a, off;
	size_t i, k;
	int ret, l;

	memcpy(buf, elf, len);
	for (k = 0; k < 1 + rnd_below(4); k++) {
		switch (rnd_below(3)) {
		case 0:
			i = rnd_below(0x100);			/* ELF and program headers */
			break;
		case 1:
			i = shoff + rnd_below(len - shoff);	/* section headers */
			break;
		default:
			i = rnd_below(len);			/* anywhere, mostly DWARF */
			break;
		}
		buf[i] = (uint8_t)rnd();
	}
	path = write_tmp("mutant.elf", buf, len);
	ret = spoor_image_add_elf(img, path, 0, &d);
	if (ret) {
		CHECK(ret < 0 && ret >= SPOOR_E_LAST && strstr(d.msg, path) == d.msg);
	} else {
		(*loaded)++;
		for (a = 0x20010000; a < 0x20012400; a += 0x40) {
			spoor_image_ptr(img, a, NULL);
			spoor_image_symbol(img, a, &n, &off);
			spoor_image_line(img, a, &f, &l);
		}
	}
	spoor_image_free(img);
	free(buf);
}

static void test_mutants(void)
{
	unsigned loaded = 0, i;
	uint8_t *elf;
	size_t len;

	/* statemate: ELF32 with DWARF, section headers at 0xf2ec. */
	elf = read_all(STATE, &len);
	for (i = 0; i < 300; i++)
		mutate_once(elf, len, 0xf2ec, &loaded);
	CHECK(loaded > 0);
	free(elf);
}

/* Returns the line number of "LINE:@name" in the test program's source, or 0. */
static int marker_line(const char *name)
{
	char line[256], tag[64];
	FILE *f = fopen(SPOOR_IMAGE_LINES_SRC, "r");
	int n = 0, found = 0;

	if (!f)
		return 0;
	snprintf(tag, sizeof(tag), "LINE:%s ", name);
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, tag)) {
			found = n;
			break;
		}
	}
	fclose(f);
	return found;
}

/* Returns the line of the first "}" at the start of a line after @from, or 0. */
static int closing_line(int from)
{
	FILE *f = fopen(SPOOR_IMAGE_LINES_SRC, "r");
	char line[256];
	int n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (++n > from && !strcmp(line, "}\n"))
			break;
	}
	fclose(f);
	return n > from ? n : 0;
}

/* Finds the range [*lo, *hi) of function @name in the segment at @base; returns 0 or -1. */
static int func_range(const struct spoor_image *img, uint64_t base, const char *name,
		      uint64_t *lo, uint64_t *hi)
{
	size_t avail = 0, i;
	const char *n;
	uint64_t off;

	*lo = *hi = 0;
	spoor_image_ptr(img, base, &avail);
	for (i = 0; i < avail; i += 2) {
		if (spoor_image_symbol(img, base + i, &n, &off) || strcmp(n, name))
			continue;
		if (!*hi)
			*lo = base + i;
		*hi = base + i + 2;
	}
	return *hi ? 0 : -1;
}

/*
 * Checks that every halfword of function @name maps to a line of lines.c
 * between its marker and its closing brace; returns how many map to @want.
 */
static int check_func_lines(struct spoor_image *img, uint64_t base, const char *name, int want)
{
	int first = marker_line(name), last = closing_line(first), hits = 0, l;
	uint64_t lo, hi, a;
	const char *f;

	CHECK(first > 0 && last > first);
	CHECK_EQ(func_range(img, base, name, &lo, &hi), 0);
	CHECK(hi - lo >= 2);
	for (a = lo; a < hi; a += 2) {
		int ret = spoor_image_line(img, a, &f, &l);

		CHECK_EQ(ret, 0);
		if (ret)
			continue;
		if (strcmp(base_name(f), "lines.c") || l < first || l > last) {
			fprintf(stderr, "%s 0x%" PRIx64 ": %s:%d outside lines.c:%d-%d\n", name, a,
				f, l, first, last);
			CHECK(0);
		}
		hits += l == want;
	}
	return hits;
}

static void test_lines(void)
{
	struct spoor_image *img = spoor_image_new();
	struct spoor_image *moved = spoor_image_new();
	uint64_t lo, hi;
	const char *f1, *f2;
	int l1, l2;

	CHECK_EQ(add_elf(img, SPOOR_IMAGE_LINES_ELF, 0), 0);
	CHECK_EQ(spoor_image_xlen(img), 64);
	check_func_lines(img, 0x80000000, "add_three", 0);
	check_func_lines(img, 0x80000000, "lines_main", 0);
	CHECK(check_func_lines(img, 0x80000000, "sum_odd", marker_line("sum_odd_loop")) > 0);
	/* Loaded elsewhere, the same lines at the shifted addresses. */
	CHECK_EQ(add_elf(moved, SPOOR_IMAGE_LINES_ELF, 0x100000), 0);
	CHECK_EQ(func_range(img, 0x80000000, "sum_odd", &lo, &hi), 0);
	CHECK_EQ(spoor_image_line(img, lo + 2, &f1, &l1), 0);
	CHECK_EQ(spoor_image_line(moved, lo + 2 + 0x100000, &f2, &l2), 0);
	CHECK(l1 == l2 && !strcmp(base_name(f1), base_name(f2)));
	CHECK_EQ(spoor_image_line(moved, lo + 2, &f2, &l2), SPOOR_E_NOT_FOUND);
	spoor_image_free(moved);
	spoor_image_free(img);

	/* Without .debug_aranges, units are searched one by one. */
	img = spoor_image_new();
	CHECK_EQ(add_elf(img, SPOOR_IMAGE_LINES_NOAR, 0), 0);
	check_func_lines(img, 0x80000000, "add_three", 0);
	CHECK(check_func_lines(img, 0x80000000, "sum_odd", marker_line("sum_odd_loop")) > 0);
	spoor_image_free(img);
}

static void test_file_gone(void)
{
	struct spoor_image *img = spoor_image_new();
	const char *path, *f;
	struct spoor_diag d;
	uint8_t *elf;
	size_t len;
	char keep[256];
	int l;

	/* The bytes outlive the file... */
	elf = read_all(STATE, &len);
	path = write_tmp("gone.elf", elf, len);
	snprintf(keep, sizeof(keep), "%s", path);
	CHECK_EQ(add_elf(img, keep, 0), 0);
	CHECK_EQ(unlink(keep), 0);
	CHECK_EQ(word_at(img, 0x20010000), 0x000207b7);
	CHECK(sym_is(img, 0x20010080, "main", 0));
	/* ...but lines come from the file, and only from the same file. */
	CHECK_EQ(spoor_image_line(img, 0x20010080, &f, &l), SPOOR_E_NOT_FOUND);
	spoor_image_free(img);

	img = spoor_image_new();
	write_tmp("changed.elf", elf, len);
	CHECK_EQ(spoor_image_add_elf(img, keep, 0, &d), SPOOR_E_IO);
	path = write_tmp("changed.elf", elf, len);
	CHECK_EQ(add_elf(img, path, 0), 0);
	write_tmp("changed.elf", elf, len - 1);
	CHECK_EQ(spoor_image_line(img, 0x20010080, &f, &l), SPOOR_E_NOT_FOUND);
	spoor_image_free(img);
	free(elf);
}

/*
 * The symbol objdump names @addr by, found as disasm.c used to: the symbol
 * covering @addr, else walking back byte by byte within @addr's segment to
 * an address a symbol covers.  Returns 0, SPOOR_E_NOT_FOUND, or 1 when the
 * walk gave up after 64 KiB (no answer to compare with).
 */
static int floor_by_walk(const struct spoor_image *img, uint64_t addr, const char **name,
			 uint64_t *off)
{
	uint64_t start = 0, end = 0, a = addr;
	size_t i;

	if (!spoor_image_symbol(img, addr, name, off))
		return 0;
	for (i = 0; !spoor_image_segment_at(img, i, &start, &end); i++)
		if (addr >= start && addr < end)
			break;
	if (i == spoor_image_segment_count(img))
		return SPOOR_E_NOT_FOUND;
	while (a > start) {
		if (addr - a >= 65536)
			return 1;
		a--;
		if (!spoor_image_symbol(img, a, name, off)) {
			*off += addr - a;
			return 0;
		}
	}
	return SPOOR_E_NOT_FOUND;
}

/* Returns 1 when spoor_image_symbol_floor() finds @name + @offset at @addr. */
static int floor_is(const struct spoor_image *img, uint64_t addr, const char *name,
		    uint64_t offset)
{
	const char *n;
	uint64_t off;

	if (spoor_image_symbol_floor(img, addr, &n, &off)) {
		fprintf(stderr, "  no floor symbol at 0x%llx\n", (unsigned long long)addr);
		return 0;
	}
	if (strcmp(n, name) || off != offset) {
		fprintf(stderr, "  floor at 0x%llx: %s+0x%llx, expected %s+0x%llx\n",
			(unsigned long long)addr, n, (unsigned long long)off, name,
			(unsigned long long)offset);
		return 0;
	}
	return 1;
}

/* Checks spoor_image_symbol_floor() against the byte-by-byte walk on every address of @img. */
static void check_floor_all(const struct spoor_image *img)
{
	uint64_t start, end;
	unsigned bad = 0, fallback = 0;

	for (size_t i = 0; !spoor_image_segment_at(img, i, &start, &end); i++) {
		for (uint64_t a = start; a < end; a++) {
			const char *n1 = NULL, *n2 = NULL;
			uint64_t o1 = 0, o2 = 0;
			int r1 = floor_by_walk(img, a, &n1, &o1);
			int r2 = spoor_image_symbol_floor(img, a, &n2, &o2);

			if (r1 == 1)
				continue;
			if (r1 == 0 && spoor_image_symbol(img, a, &n1, &o1))
				fallback++;
			if (r1 != r2 || (!r1 && (n1 != n2 || o1 != o2))) {
				if (!bad++)
					fprintf(stderr, "  floor at 0x%llx differs from the walk\n",
						(unsigned long long)a);
			}
		}
	}
	CHECK_EQ(bad, 0);
	CHECK(fallback > 0);	/* uncovered addresses were tried */
}

static void test_symbol_floor(void)
{
	struct spoor_image *img = spoor_image_new();
	struct spoor_image *img32 = spoor_image_new();
	uint64_t start, end, off;
	const char *n;

	CHECK_EQ(add_elf(img, DHRY, 0), 0);
	CHECK_EQ(add_elf(img32, STATE, 0), 0);
	/* The segments, in address order. */
	CHECK_EQ(spoor_image_segment_count(img), 2);
	CHECK_EQ(spoor_image_segment_at(img, 0, &start, &end), 0);
	CHECK(start == 0x80000000 && end == 0x800001c6);
	CHECK_EQ(spoor_image_segment_at(img, 1, &start, &end), 0);
	CHECK(start == 0x80001000 && end == 0x800050c0);
	CHECK_EQ(spoor_image_segment_at(img, 2, &start, &end), SPOOR_E_INVAL);
	/* Covered: as spoor_image_symbol(). */
	CHECK(floor_is(img, 0x800019ea, "main", 2));
	CHECK(floor_is(img, 0x80000058, "_start", 0x58));
	/* Between Proc_4 (0x28 bytes) and Proc_5: no symbol covers it, objdump says Proc_4+... */
	CHECK(no_sym(img, 0x8000129e));
	CHECK(floor_is(img, 0x8000129e, "Proc_4", 0x28));
	CHECK(floor_is(img, 0x800012a1, "Proc_4", 0x2b));
	CHECK(floor_is(img, 0x800012a2, "Proc_5", 0));
	/* Between the segments, below all symbols: none. */
	CHECK_EQ(spoor_image_symbol_floor(img, 0x80000500, &n, &off), SPOOR_E_NOT_FOUND);
	CHECK_EQ(spoor_image_symbol_floor(img, 0x1000, &n, &off), SPOOR_E_NOT_FOUND);
	/* Every address of both programs: as the walk disasm.c did. */
	check_floor_all(img);
	check_floor_all(img32);
	spoor_image_free(img);
	spoor_image_free(img32);
}

static void test_args(void)
{
	struct spoor_image *img = spoor_image_new();
	static const uint8_t b[4] = { 1, 2, 3, 4 };
	struct spoor_diag d;
	const char *n, *f;
	uint64_t off;
	size_t avail = 99;
	char buf[64];
	int l;

	spoor_image_free(NULL);
	CHECK_EQ(spoor_image_add_elf(NULL, DHRY, 0, &d), SPOOR_E_INVAL);
	CHECK_EQ(spoor_image_add_elf(img, NULL, 0, &d), SPOOR_E_INVAL);
	CHECK_EQ(spoor_image_add_elf(img, DHRY, 0, NULL), SPOOR_E_INVAL);
	CHECK_EQ(spoor_image_add_raw(NULL, "r", 0, b, 4), SPOOR_E_INVAL);
	CHECK_EQ(spoor_image_add_raw(img, NULL, 0, b, 4), SPOOR_E_INVAL);
	CHECK_EQ(spoor_image_add_raw(img, "", 0, b, 4), SPOOR_E_INVAL);
	CHECK_EQ(spoor_image_add_raw(img, "r", 0, NULL, 4), SPOOR_E_INVAL);
	CHECK_EQ(spoor_image_add_raw(img, "r", 0, b, 0), SPOOR_E_INVAL);
	CHECK_EQ(spoor_image_add_raw(img, "r", UINT64_MAX - 2, b, 4), SPOOR_E_INVAL);
	CHECK_EQ(spoor_image_add_spike_rom(NULL, 64), SPOOR_E_INVAL);
	CHECK(spoor_image_ptr(NULL, 0x1000, &avail) == NULL && avail == 0);
	CHECK_EQ(spoor_image_xlen(NULL), 0);
	CHECK_EQ(spoor_image_symbol(NULL, 0, &n, &off), SPOOR_E_INVAL);
	CHECK_EQ(spoor_image_symbol(img, 0, NULL, &off), SPOOR_E_INVAL);
	CHECK_EQ(spoor_image_symbol(img, 0, &n, NULL), SPOOR_E_INVAL);
	CHECK_EQ(spoor_image_symbol_floor(NULL, 0, &n, &off), SPOOR_E_INVAL);
	CHECK_EQ(spoor_image_symbol_floor(img, 0, NULL, &off), SPOOR_E_INVAL);
	CHECK_EQ(spoor_image_symbol_floor(img, 0, &n, NULL), SPOOR_E_INVAL);
	CHECK_EQ(spoor_image_segment_count(NULL), 0);
	CHECK_EQ(spoor_image_segment_count(img), 0);
	CHECK_EQ(spoor_image_segment_at(NULL, 0, &off, &off), SPOOR_E_INVAL);
	CHECK_EQ(spoor_image_segment_at(img, 0, &off, &off), SPOOR_E_INVAL);
	CHECK_EQ(spoor_image_line(NULL, 0, &f, &l), SPOOR_E_INVAL);
	CHECK_EQ(spoor_image_line(img, 0, NULL, &l), SPOOR_E_INVAL);
	CHECK_EQ(spoor_image_line(img, 0, &f, NULL), SPOOR_E_INVAL);
	/* An empty image covers nothing. */
	avail = 99;
	CHECK(spoor_image_ptr(img, 0, &avail) == NULL && avail == 0);
	CHECK_EQ(spoor_image_symbol(img, 0, &n, &off), SPOOR_E_NOT_FOUND);
	CHECK_EQ(spoor_image_symbol_floor(img, 0, &n, &off), SPOOR_E_NOT_FOUND);
	CHECK_EQ(spoor_image_line(img, 0, &f, &l), SPOOR_E_NOT_FOUND);
	spoor_image_describe(NULL, 0x1234, buf, sizeof(buf));
	CHECK(strcmp(buf, "no image covers 0x1234") == 0);
	spoor_image_describe(img, 0x10, NULL, 10);
	buf[0] = 'x';
	spoor_image_describe(img, 0x10, buf, 1);
	CHECK_EQ(buf[0], 0);
	/* The highest byte of the address space. */
	CHECK_EQ(spoor_image_add_raw(img, "top", UINT64_MAX - 4, b, 4), 0);
	CHECK(sym_is(img, UINT64_MAX - 1, "top", 3));
	CHECK(floor_is(img, UINT64_MAX - 1, "top", 3));
	CHECK_EQ(spoor_image_segment_count(img), 1);
	CHECK(spoor_image_ptr(img, UINT64_MAX, NULL) == NULL);
	spoor_image_free(img);
}

int main(int argc, char **argv)
{
	char cmd[64];

	check_args(argc, argv,
		   "Tests for program images: ELF segments, symbols, lines, offsets, broken files.");

	if (!mkdtemp(tmpdir))
		return 1;
	test_args();
	test_dhrystone();
	test_statemate();
	test_spike_rom();
	test_raw_and_elf();
	test_symbol_floor();
	test_offsets();
	test_broken();
	test_mutants();
	test_lines();
	test_file_gone();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmpdir);
	return check_done();
}
