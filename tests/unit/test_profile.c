// SPDX-License-Identifier: MIT
/*
 * Unit tests of the profile writers (profile.c) on synthetic blocks over a
 * real test program (recursion.elf, RV64): folded stacks sum to the
 * instructions, recursion counted once in the flat inclusive counts and in
 * the callgrind arcs, the callgrind file's totals, failed writes and bad
 * arguments.
 */
#include "check.h"
#include "spoor/error.h"
#include "spoor/image.h"
#include "spoor/profile.h"

static struct spoor_image *img;
static struct spoor_funcs *funcs;
static struct spoor_diag diag;

/* Returns the start of the function named @name (0 when none). */
static uint64_t start_of(const char *name)
{
	for (uint32_t i = 0; i < spoor_funcs_count(funcs); i++)
		if (!strcmp(spoor_funcs_get(funcs, i)->name, name))
			return spoor_funcs_get(funcs, i)->start;
	return 0;
}

/* Feeds one block; a call when @end is JUMP and the last is a jal ra. */
static void blk(struct spoor_sink *s, uint64_t start, uint64_t last, uint64_t n, uint8_t end,
		uint64_t next)
{
	const uint8_t *p = spoor_image_ptr(img, last, NULL);
	struct spoor_block b = { .start = start, .last = last, .ninsn = n, .next = next,
				 .end = end, .last_len = p && (p[0] & 3) == 3 ? 4 : 2 };

	spoor_sink_blocks(s, 0, &b, 1);
}

/* Returns what @fn wrote for @s (malloc'd). */
static char *written(int (*fn)(struct spoor_sink *, FILE *), struct spoor_sink *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	CHECK_EQ(fn(s, out), 0);
	fclose(out);
	return buf;
}

/* The writers with the shape written() takes. */
static int top_all(struct spoor_sink *s, FILE *out)
{
	return spoor_profile_write_top(s, out, 0);
}

/* The callgrind writer with the shape written() takes. */
static int callgrind(struct spoor_sink *s, FILE *out)
{
	return spoor_profile_write_callgrind(s, out, "prog");
}

int main(int argc, char **argv)
{
	uint64_t start, main_a, fib, c_main, c_fib, c_rec, r_fib;
	struct spoor_sink *s;
	char *buf, *line;
	uint64_t sum = 0;
	FILE *full;

	check_args(argc, argv, "Checks the profile writers on synthetic blocks over recursion.elf.");
	img = spoor_image_new();
	if (!img || spoor_image_add_elf(img, ISS_RECURSION_RV64, 0, &diag))
		return 1;
	funcs = spoor_funcs_new(img);
	start = start_of("_start");
	main_a = start_of("main");
	fib = start_of("fib");
	/* Landmarks of recursion.elf as built (-O2): checked by the blocks' effect below. */
	c_main = 0, c_fib = 0, c_rec = 0, r_fib = 0;
	for (uint64_t a = start; a < main_a + 0x100; a += 2) {
		const uint8_t *p = spoor_image_ptr(img, a, NULL);
		uint32_t w = p ? p[0] | p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24 : 0;
		int64_t imm = (int64_t)((w & 0xff000) | ((w >> 9) & 0x800) | ((w >> 20) & 0x7fe));

		if (w >> 31)
			imm -= 1 << 20;
		if ((w & 0xfff) == 0x0ef && a + (uint64_t)imm == main_a && !c_main)
			c_main = a;
		if ((w & 0xfff) == 0x0ef && a + (uint64_t)imm == fib && a >= main_a && !c_fib)
			c_fib = a;
		if ((w & 0xfff) == 0x0ef && a + (uint64_t)imm == fib && a >= fib && !c_rec)
			c_rec = a;
		if (p && p[0] == 0x82 && p[1] == 0x80 && a >= fib && a < fib + 0x40 && !r_fib)
			r_fib = a;
	}
	if (!c_main || !c_fib || !c_rec || !r_fib) {
		fprintf(stderr, "landmarks not found\n");
		return 1;
	}
	CHECK(!spoor_profile_new(NULL));
	s = spoor_profile_new(funcs);
	CHECK(s);
	/* _start → main → fib → fib → fib and back. */
	blk(s, start, c_main, 10, SPOOR_BLK_JUMP, main_a);
	blk(s, main_a, c_fib, 5, SPOOR_BLK_JUMP, fib);
	blk(s, fib, c_rec, 7, SPOOR_BLK_JUMP, fib);
	blk(s, fib, c_rec, 7, SPOOR_BLK_JUMP, fib);
	blk(s, fib, r_fib, 3, SPOOR_BLK_UNINFERABLE, c_rec + 4);
	blk(s, c_rec + 4, r_fib, 4, SPOOR_BLK_UNINFERABLE, c_rec + 4);
	blk(s, c_rec + 4, r_fib, 4, SPOOR_BLK_UNINFERABLE, c_fib + 4);
	blk(s, c_fib + 4, c_fib + 8, 2, SPOOR_BLK_END, 0);
	CHECK_EQ(spoor_sink_error(s), 0);

	/* Folded: one line per path, summing to the 42 instructions. */
	buf = written(spoor_profile_write_folded, s);
	CHECK(strstr(buf, "_start 10\n"));
	CHECK(strstr(buf, "_start;main 7\n"));
	CHECK(strstr(buf, "_start;main;fib 11\n"));
	CHECK(strstr(buf, "_start;main;fib;fib;fib 3\n"));
	CHECK(strstr(buf, "_start;main;fib;fib 11\n"));
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		sum += strtoull(strrchr(line, ' ') + 1, NULL, 10);
	CHECK_EQ(sum, 42);
	free(buf);

	/* Top: recursion counted once in fib's inclusive count; calls. */
	buf = written(top_all, s);
	CHECK(!strncmp(buf, "instructions: 42, functions: 3\n", 31));
	CHECK(strstr(buf, "            25  59.52             25  59.52          3  fib\n"));
	CHECK(strstr(buf, "             7  16.67             32  76.19          1  main\n"));
	CHECK(strstr(buf, "            10  23.81             42 100.00          0  _start\n"));
	free(buf);

	/* Callgrind: totals, self costs and arcs with inclusive costs. */
	buf = written(callgrind, s);
	CHECK(strstr(buf, "# callgrind format\nversion: 1\ncreator: spoor\ncmd: prog\n"
		      "positions: line\nevents: Ir\nsummary: 42\n"));
	CHECK(strstr(buf, "\ntotals: 42\n"));
	CHECK(strstr(buf, "fn=fib\n"));
	CHECK(strstr(buf, "cfn=fib\ncalls=2 "));
	CHECK(strstr(buf, "cfn=main\ncalls=1 "));
	/*
	 * fib's arc to itself: both recursive calls, but the cost of the
	 * recursion below the outermost fib once (14), not at every level
	 * (14 + 3); main's arc to fib: fib's inclusive 25.
	 */
	line = strstr(buf, "cfn=fib\ncalls=2 ");
	line = line ? strchr(line + 16, '\n') : NULL;
	CHECK(line && strtoull(strchr(line + 1, ' ') + 1, NULL, 10) == 14);
	line = strstr(buf, "fn=main\n");
	line = line ? strstr(line, "cfn=fib\ncalls=1 ") : NULL;
	line = line ? strchr(line + 16, '\n') : NULL;
	CHECK(line && strtoull(strchr(line + 1, ' ') + 1, NULL, 10) == 25);
	free(buf);

	/* Failed writes, bad arguments. */
	full = fopen("/dev/full", "w");
	if (full) {
		CHECK_EQ(spoor_profile_write_folded(s, full), SPOOR_E_IO);
		CHECK_EQ(spoor_profile_write_top(s, full, 5), SPOOR_E_IO);
		CHECK_EQ(spoor_profile_write_callgrind(s, full, NULL), SPOOR_E_IO);
		fclose(full);
	}
	CHECK_EQ(spoor_profile_write_folded(NULL, stdout), SPOOR_E_INVAL);
	CHECK_EQ(spoor_profile_write_top(s, NULL, 1), SPOOR_E_INVAL);
	CHECK_EQ(spoor_profile_write_callgrind(NULL, stdout, NULL), SPOOR_E_INVAL);
	spoor_sink_free(s);
	spoor_funcs_free(funcs);
	spoor_image_free(img);
	return check_done();
}
