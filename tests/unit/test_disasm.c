// SPDX-License-Identifier: MIT
/* Tests for the disassembler (disasm.h): objdump's text for known encodings. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "spoor/disasm.h"
#include "spoor/error.h"
#include "spoor/image.h"

struct known {
	uint32_t raw;		/* 16-bit ones in the low half */
	uint64_t addr;
	const char *text;	/* riscv64-unknown-elf-objdump 2.40's */
};

/* Checks that @raw at @addr gives @want and its length (@want NULL: not an
 * instruction, SPOOR_E_BAD_INSN). */
static void check_one(struct spoor_disasm *d, uint32_t raw, uint64_t addr, const char *want)
{
	const uint8_t bytes[4] = { (uint8_t)raw, (uint8_t)(raw >> 8), (uint8_t)(raw >> 16),
				   (uint8_t)(raw >> 24) };
	int len = (raw & 3) == 3 ? 4 : 2;
	char buf[128];
	int n;

	memset(buf, 'x', sizeof(buf));
	n = spoor_disasm_insn(d, addr, bytes, sizeof(bytes), buf, sizeof(buf));
	if (want) {
		CHECK_EQ(n, len);
		CHECK(!strcmp(buf, want));
	} else {
		CHECK_EQ(n, SPOOR_E_BAD_INSN);
	}
	if ((want && strcmp(buf, want)) || (!want && n != SPOOR_E_BAD_INSN))
		fprintf(stderr, "  0x%08x: got %d '%s', want '%s'\n", raw, n, buf,
			want ? want : "(not an instruction)");
}

/* Both XLENs: the same bits, objdump's text. */
static void test_known(void)
{
	static const struct known common[] = {
		{ 0x1141, 0x80000100, "add\tsp,sp,-16" },	/* c.addi */
		{ 0x8082, 0x80000102, "ret" },
		{ 0x4501, 0x8000010a, "li\ta0,0" },
		{ 0x852e, 0x8000010c, "mv\ta0,a1" },
		{ 0xc119, 0x8000010e, "beqz\ta0,80000114" },	/* c.beqz */
		{ 0x9002, 0x80000110, "ebreak" },
		{ 0x0000, 0x80000108, "unimp" },
		{ 0x00000013, 0x80000100, "nop" },
		{ 0xfe010113, 0x80000104, "add\tsp,sp,-32" },
		{ 0x024000ef, 0x80000108, "jal\t8000012c" },
		{ 0x00050863, 0x8000010c, "beqz\ta0,8000011c" },
		{ 0xc0001073, 0x80000110, "unimp" },
		{ 0x30200073, 0x80000114, "mret" },
		{ 0x02b50533, 0x80000118, "mul\ta0,a0,a1" },
		{ 0x34202573, 0x80000120, "csrr\ta0,mcause" },
		{ 0x0000100f, 0x80000124, "fence.i" },
		{ 0x1005272f, 0x80000128, "lr.w\ta4,(a0)" },
		{ 0x00053507, 0x8000012c, "fld\tfa0,0(a0)" },
		{ 0x00000073, 0x80000130, "ecall" },
		{ 0xfe0008e3, 0x80000010, "beqz\tzero,80000000" },	/* backwards */
	};
	static const struct known rv32[] = {
		{ 0x6108, 0x80000104, "flw\tfa0,0(a0)" },	/* c.flw */
		{ 0x2085, 0x80000106, "jal\t80000166" },	/* c.jal */
		{ 0xff1ff06f, 0x00000004, "j\tfffffff4" },	/* wraps at 2^32 */
		{ 0x0005051b, 0x8000011c, NULL },		/* addiw: RV64 only */
	};
	static const struct known rv64[] = {
		{ 0x6108, 0x80000104, "ld\ta0,0(a0)" },		/* c.ld */
		{ 0x2085, 0x80000106, "addw\tra,ra,1" },	/* c.addiw */
		{ 0xff1ff06f, 0x00000004, "j\tfffffffffffffff4" },
		{ 0x0005051b, 0x8000011c, "sext.w\ta0,a0" },
	};
	struct spoor_disasm *d32 = spoor_disasm_new(32, NULL), *d64 = spoor_disasm_new(64, NULL);

	CHECK(d32 && d64);
	if (!d32 || !d64)
		goto cleanup;
	for (size_t i = 0; i < sizeof(common) / sizeof(common[0]); i++) {
		check_one(d32, common[i].raw, common[i].addr, common[i].text);
		check_one(d64, common[i].raw, common[i].addr, common[i].text);
	}
	for (size_t i = 0; i < sizeof(rv32) / sizeof(rv32[0]); i++)
		check_one(d32, rv32[i].raw, rv32[i].addr, rv32[i].text);
	for (size_t i = 0; i < sizeof(rv64) / sizeof(rv64[0]); i++)
		check_one(d64, rv64[i].raw, rv64[i].addr, rv64[i].text);
cleanup:
	spoor_disasm_free(d32);
	spoor_disasm_free(d64);
}

/* Bits that are no instruction, and lengths that do not fit what is given. */
static void test_bad(void)
{
	static const uint8_t addiw[4] = { 0x1b, 0x05, 0x05, 0x00 };
	static const uint8_t long48[6] = { 0x1f, 0, 0, 0, 0, 0 };
	static const uint8_t ones[4] = { 0xff, 0xff, 0xff, 0xff };
	struct spoor_disasm *d = spoor_disasm_new(32, NULL);
	char buf[64];

	CHECK(d != NULL);
	if (!d)
		return;
	/* libopcodes' text for the bits stays. */
	CHECK_EQ(spoor_disasm_insn(d, 0x100, addiw, 4, buf, sizeof(buf)), SPOOR_E_BAD_INSN);
	CHECK(!strcmp(buf, ".4byte\t0x5051b"));
	/* 48 bits and longer: not for spoor. */
	CHECK_EQ(spoor_disasm_insn(d, 0x100, long48, 6, buf, sizeof(buf)), SPOOR_E_BAD_INSN);
	CHECK_EQ(buf[0], '\0');
	CHECK_EQ(spoor_disasm_insn(d, 0x100, ones, 4, buf, sizeof(buf)), SPOOR_E_BAD_INSN);
	CHECK_EQ(buf[0], '\0');
	/* A 32-bit instruction with only 2 (or 3) bytes readable; 1 byte. */
	CHECK_EQ(spoor_disasm_insn(d, 0x100, addiw, 2, buf, sizeof(buf)), SPOOR_E_BAD_INSN);
	CHECK_EQ(buf[0], '\0');
	CHECK_EQ(spoor_disasm_insn(d, 0x100, addiw, 3, buf, sizeof(buf)), SPOOR_E_BAD_INSN);
	CHECK_EQ(spoor_disasm_insn(d, 0x100, (const uint8_t *)"\x82\x80", 1, buf, sizeof(buf)),
		 SPOOR_E_BAD_INSN);
	/* ... but 2 are enough for a 16-bit one. */
	CHECK_EQ(spoor_disasm_insn(d, 0x100, (const uint8_t *)"\x82\x80", 2, buf, sizeof(buf)), 2);
	CHECK(!strcmp(buf, "ret"));
	/* The handle works on after errors. */
	CHECK_EQ(spoor_disasm_insn(d, 0x100, (const uint8_t *)"\x13\0\0\0", 4, buf, sizeof(buf)),
		 4);
	CHECK(!strcmp(buf, "nop"));
	spoor_disasm_free(d);
}

/* The text is cut to the buffer, never past it; the length still comes. */
static void test_truncation(void)
{
	static const uint8_t mul[4] = { 0x33, 0x05, 0xb5, 0x02 };	/* mul a0,a0,a1 */
	static const uint8_t jal[4] = { 0xef, 0x00, 0x40, 0x02 };
	struct spoor_disasm *d = spoor_disasm_new(64, NULL);
	char buf[16];

	CHECK(d != NULL);
	if (!d)
		return;
	for (size_t size = 1; size <= sizeof(buf); size++) {
		memset(buf, '#', sizeof(buf));
		CHECK_EQ(spoor_disasm_insn(d, 0, mul, 4, buf, size), 4);
		CHECK_EQ(strlen(buf), size - 1 < 12 ? size - 1 : 12);
		CHECK(!strncmp(buf, "mul\ta0,a0,a1", strlen(buf)));
		for (size_t i = size; i < sizeof(buf); i++)
			CHECK_EQ(buf[i], '#');
	}
	/* Formatted output (the target address) too. */
	memset(buf, '#', sizeof(buf));
	CHECK_EQ(spoor_disasm_insn(d, 0x80000000, jal, 4, buf, 8), 4);
	CHECK(!strcmp(buf, "jal\t800"));
	CHECK_EQ(buf[8], '#');
	spoor_disasm_free(d);
}

/* Target addresses named from the image: <sym>, <sym+0xoff>. */
static void test_symbols(void)
{
	/* 0x1000: jal 0x1024; 0x1004: beqz a0,0x1000; 0x1008: j 0x3800 (nothing there). */
	static const uint8_t code[] = {
		0xef, 0x00, 0x40, 0x02, 0xe3, 0x0e, 0x05, 0xfe, 0x6f, 0x20, 0x80, 0x7f,
		0x82, 0x80,
	};
	uint8_t code2[0x40] = { 0 };
	struct spoor_image *img = spoor_image_new();
	struct spoor_disasm *d = NULL;
	char buf[64];

	CHECK(img != NULL);
	if (!img)
		return;
	code2[0x3e] = 0x13;	/* the first half of a nop */
	CHECK_EQ(spoor_image_add_raw(img, "rom", 0x1000, code, sizeof(code)), 0);
	CHECK_EQ(spoor_image_add_raw(img, "ram", 0x1020, code2, sizeof(code2)), 0);
	d = spoor_disasm_new(32, img);
	CHECK(d != NULL);
	if (!d)
		goto cleanup;
	CHECK_EQ(spoor_disasm_at(d, img, 0x1000, buf, sizeof(buf)), 4);
	CHECK(!strcmp(buf, "jal\t1024 <ram+0x4>"));
	CHECK_EQ(spoor_disasm_at(d, img, 0x1004, buf, sizeof(buf)), 4);
	CHECK(!strcmp(buf, "beqz\ta0,1000 <rom>"));
	CHECK_EQ(spoor_disasm_at(d, img, 0x1008, buf, sizeof(buf)), 4);
	CHECK(!strcmp(buf, "j\t3800"));
	CHECK_EQ(spoor_disasm_at(d, img, 0x100c, buf, sizeof(buf)), 2);
	CHECK(!strcmp(buf, "ret"));
	CHECK_EQ(spoor_disasm_at(d, img, 0x105c, buf, sizeof(buf)), 2);
	CHECK(!strcmp(buf, "unimp"));
	/* The last 2 bytes of an image: a 32-bit instruction does not fit. */
	CHECK_EQ(spoor_disasm_at(d, img, 0x105e, buf, sizeof(buf)), SPOOR_E_BAD_INSN);
	CHECK_EQ(buf[0], '\0');
	CHECK_EQ(spoor_disasm_at(d, img, 0x2000, buf, sizeof(buf)), SPOOR_E_NO_IMAGE);
	CHECK_EQ(buf[0], '\0');
cleanup:
	spoor_disasm_free(d);
	spoor_image_free(img);
}

/*
 * Targets in a program (dhrystone): one no symbol covers (the bytes after
 * Proc_4, before Proc_5) is named by the nearest symbol below it, as
 * objdump does; one outside the image gets no name.
 */
static void test_nearest_symbol(void)
{
	static const uint8_t j4[4] = { 0x6f, 0x00, 0x40, 0x00 };	/* j .+4 */
	struct spoor_image *img = spoor_image_new();
	struct spoor_disasm *d = NULL;
	struct spoor_diag diag;
	char buf[64];

	CHECK(img != NULL);
	if (!img)
		return;
	CHECK_EQ(spoor_image_add_elf(img, SPOOR_VECTORS "/elf/dhrystone.riscv", 0, &diag), 0);
	d = spoor_disasm_new(64, img);
	CHECK(d != NULL);
	if (!d)
		goto cleanup;
	CHECK_EQ(spoor_disasm_insn(d, 0x8000129a, j4, 4, buf, sizeof(buf)), 4);
	CHECK(!strcmp(buf, "j\t8000129e <Proc_4+0x28>"));
	CHECK_EQ(spoor_disasm_insn(d, 0x8000129e, j4, 4, buf, sizeof(buf)), 4);
	CHECK(!strcmp(buf, "j\t800012a2 <Proc_5>"));
	CHECK_EQ(spoor_disasm_insn(d, 0x800004fc, j4, 4, buf, sizeof(buf)), 4);
	CHECK(!strcmp(buf, "j\t80000500"));
cleanup:
	spoor_disasm_free(d);
	spoor_image_free(img);
}

/* NULL and empty arguments, XLENs. */
static void test_args(void)
{
	static const uint8_t nop[4] = { 0x13, 0, 0, 0 };
	struct spoor_disasm *d = spoor_disasm_new(64, NULL);
	struct spoor_image *img = spoor_image_new();
	char buf[16] = "unchanged";

	CHECK(spoor_disasm_new(0, NULL) == NULL);
	CHECK(spoor_disasm_new(16, NULL) == NULL);
	CHECK(spoor_disasm_new(128, NULL) == NULL);
	spoor_disasm_free(NULL);
	CHECK(d != NULL && img != NULL);
	if (!d || !img)
		goto cleanup;
	CHECK_EQ(spoor_disasm_insn(NULL, 0, nop, 4, buf, sizeof(buf)), SPOOR_E_INVAL);
	CHECK_EQ(buf[0], '\0');
	CHECK_EQ(spoor_disasm_insn(d, 0, NULL, 4, buf, sizeof(buf)), SPOOR_E_INVAL);
	CHECK_EQ(spoor_disasm_insn(d, 0, nop, 0, buf, sizeof(buf)), SPOOR_E_INVAL);
	CHECK_EQ(spoor_disasm_insn(d, 0, nop, 4, NULL, 16), SPOOR_E_INVAL);
	strcpy(buf, "unchanged");
	CHECK_EQ(spoor_disasm_insn(d, 0, nop, 4, buf, 0), SPOOR_E_INVAL);
	CHECK(!strcmp(buf, "unchanged"));
	CHECK_EQ(spoor_disasm_at(NULL, img, 0, buf, sizeof(buf)), SPOOR_E_INVAL);
	CHECK_EQ(spoor_disasm_at(d, NULL, 0, buf, sizeof(buf)), SPOOR_E_INVAL);
	CHECK_EQ(spoor_disasm_at(d, img, 0, NULL, 16), SPOOR_E_INVAL);
	CHECK_EQ(spoor_disasm_at(d, img, 0, buf, sizeof(buf)), SPOOR_E_NO_IMAGE);
	/* Several handles at once. */
	{
		struct spoor_disasm *d2 = spoor_disasm_new(32, img);

		CHECK(d2 != NULL);
		CHECK_EQ(spoor_disasm_insn(d2, 0, nop, 4, buf, sizeof(buf)), 4);
		CHECK(!strcmp(buf, "nop"));
		spoor_disasm_free(d2);
		CHECK_EQ(spoor_disasm_insn(d, 0, nop, 4, buf, sizeof(buf)), 4);
		CHECK(!strcmp(buf, "nop"));
	}
cleanup:
	spoor_disasm_free(d);
	spoor_image_free(img);
}

int main(int argc, char **argv)
{
	check_args(argc, argv, "Tests for the disassembler (disasm.h): objdump's text for known "
		   "RV32/RV64 encodings, bad ones, truncation, symbols, arguments.");
	test_known();
	test_bad();
	test_truncation();
	test_symbols();
	test_nearest_symbol();
	test_args();
	return check_done();
}
