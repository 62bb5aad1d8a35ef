// SPDX-License-Identifier: MIT
/*
 * Unit tests of the coverage sink (spoor/coverage.h) on a real test program
 * (recursion.elf, rv64 and rv32) fed synthetic blocks: instruction and
 * branch counts, a trap's EPC deciding a branch, merging, the lcov and
 * summary output, NULL and foreign arguments, a full disk; and on the
 * program stripped of symbols and lines.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "spoor/coverage.h"
#include "spoor/error.h"
#include "spoor/funcs.h"
#include "spoor/image.h"
#include "spoor/insn.h"

/* Returns the function named @name, or NULL. */
static const struct spoor_func *func_named(struct spoor_funcs *f, const char *name)
{
	for (uint32_t i = 0; i < spoor_funcs_count(f); i++)
		if (!strcmp(spoor_funcs_get(f, i)->name, name))
			return spoor_funcs_get(f, i);
	return NULL;
}

/*
 * Returns the block from @start to the first conditional branch (its
 * address in *@br, its length in *@len), with @end; ninsn 0 when none.
 */
static struct spoor_block block_to_branch(struct spoor_image *img, unsigned xlen, uint64_t start,
					  uint64_t end, uint8_t how)
{
	struct spoor_block b = { .start = start, .end = how };
	uint64_t a;

	for (a = start; a < end;) {
		size_t avail;
		const uint8_t *p = spoor_image_ptr(img, a, &avail);
		struct spoor_insn in;
		uint32_t raw;

		if (!p || avail < 4)
			break;
		raw = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
		      (uint32_t)p[3] << 24;
		if (spoor_insn_decode(raw, xlen, &in) < 0)
			break;
		b.ninsn++;
		if (in.cls == SPOOR_INSN_BRANCH) {
			b.last = a;
			b.last_len = in.len;
			if (how == SPOOR_BLK_NOT_TAKEN)
				b.next = a + in.len;
			else if (how == SPOOR_BLK_TAKEN)
				b.next = a + (uint64_t)in.imm;
			return b;
		}
		a += in.len;
	}
	b.ninsn = 0;
	return b;
}

/* Returns true when the file @path holds the line @want. */
static bool file_has_line(const char *path, const char *want)
{
	char line[512];
	bool found = false;
	FILE *f = fopen(path, "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		found = !strcmp(line, want);
	}
	fclose(f);
	return found;
}

static const struct spoor_sink_ops other_ops = { .name = "other" };

/* Runs every check on @elf. */
static void test_program(const char *elf)
{
	struct spoor_image *img = spoor_image_new();
	struct spoor_funcs *funcs;
	struct spoor_sink *s, other = { .ops = &other_ops };
	struct spoor_coverage_totals t;
	struct spoor_dec_item ev = { .kind = SPOOR_DEC_EVENT, .source = 0 };
	struct spoor_block tk, nt, tr;
	const struct spoor_func *fib;
	uint64_t n, taken, not_taken, fib_start;
	char path[] = "/tmp/test_coverage.XXXXXX", want[128];
	const char *file;
	int line, fd;
	FILE *out;
	struct spoor_diag d = { { 0 } };

	CHECK(img && spoor_image_add_elf(img, elf, 0, &d) == 0);
	funcs = spoor_funcs_new(img);
	CHECK(funcs != NULL);
	if (!funcs)
		return;
	CHECK(spoor_coverage_new(NULL) == NULL);
	s = spoor_coverage_new(funcs);
	CHECK(s != NULL);
	fib = func_named(funcs, "fib");
	CHECK(fib != NULL);
	if (!s || !fib)
		return;
	fib_start = fib->start;
	tk = block_to_branch(img, spoor_funcs_xlen(funcs), fib->start, fib->end, SPOOR_BLK_TAKEN);
	nt = block_to_branch(img, spoor_funcs_xlen(funcs), fib->start, fib->end, SPOOR_BLK_NOT_TAKEN);
	tr = block_to_branch(img, spoor_funcs_xlen(funcs), fib->start, fib->end, SPOOR_BLK_TRAP);
	CHECK(tk.ninsn > 0);

	/* A function is hit when its first instruction ran (lcov's FNH), not any other. */
	{
		struct spoor_sink *s2 = spoor_coverage_new(funcs);
		struct spoor_insn in;
		const uint8_t *p = spoor_image_ptr(img, fib_start, NULL);
		struct spoor_block mid;

		CHECK(s2 != NULL && p != NULL);
		if (s2 && p) {
			spoor_insn_decode((uint32_t)p[0] | (uint32_t)p[1] << 8 |
					  (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24,
					  spoor_funcs_xlen(funcs), &in);
			mid = block_to_branch(img, spoor_funcs_xlen(funcs), fib_start + in.len,
					      fib->end, SPOOR_BLK_TAKEN);
			CHECK(mid.ninsn > 0);
			spoor_sink_blocks(s2, 0, &mid, 1);
			CHECK_EQ(spoor_coverage_totals(s2, &t), 0);
			CHECK_EQ(t.insns_hit, mid.ninsn);
			CHECK_EQ(t.funcs_hit, 0);
			spoor_sink_blocks(s2, 0, &tk, 1);
			CHECK_EQ(spoor_coverage_totals(s2, &t), 0);
			CHECK_EQ(t.funcs_hit, 1);
		}
		spoor_sink_free(s2);
		fib = func_named(funcs, "fib");	/* (pseudo functions may move the table) */
	}

	/* Nothing fed: nothing covered, everything found. */
	CHECK_EQ(spoor_coverage_totals(s, &t), 0);
	CHECK_EQ(t.insns_hit, 0);
	CHECK(t.insns_found > 100 && t.lines_found > 20 && t.branches_found > 10);
	CHECK_EQ(t.branches_found % 2, 0);
	CHECK_EQ(spoor_coverage_insn(s, fib_start, &n, &taken, &not_taken), 0);
	CHECK_EQ(n, 0);

	/* Taken twice, not taken once. */
	spoor_sink_blocks(s, 0, &tk, 1);
	spoor_sink_blocks(s, 0, &tk, 1);
	spoor_sink_blocks(s, 0, &nt, 1);
	CHECK_EQ(spoor_coverage_insn(s, fib_start, &n, NULL, NULL), 0);
	CHECK_EQ(n, 3);
	CHECK_EQ(spoor_coverage_insn(s, tk.last, &n, &taken, &not_taken), 0);
	CHECK_EQ(n, 3);
	CHECK_EQ(taken, 2);
	CHECK_EQ(not_taken, 1);
	CHECK_EQ(spoor_coverage_totals(s, &t), 0);
	CHECK_EQ(t.insns_hit, tk.ninsn);
	CHECK_EQ(t.retired, 3 * tk.ninsn);
	CHECK_EQ(t.branches_hit, 2);
	CHECK_EQ(t.funcs_hit, 1);

	/* A trap right after the branch: its EPC (the fall-through) decides. */
	ev.event.kind = SPOOR_EV_TRAP;
	ev.event.has_epc = true;
	ev.event.epc = tr.last + tr.last_len;
	spoor_sink_event(s, &ev);
	spoor_sink_blocks(s, 0, &tr, 1);
	CHECK_EQ(spoor_coverage_insn(s, tr.last, &n, &taken, &not_taken), 0);
	CHECK_EQ(n, 4);
	CHECK_EQ(taken, 2);
	CHECK_EQ(not_taken, 2);
	/* An interrupt without an EPC: the branch was not evaluated. */
	ev.event.has_epc = false;
	ev.event.interrupt = true;
	spoor_sink_event(s, &ev);
	spoor_sink_blocks(s, 0, &tr, 1);
	CHECK_EQ(spoor_coverage_insn(s, tr.last, &n, &taken, &not_taken), 0);
	CHECK_EQ(n, 5);
	CHECK_EQ(taken + not_taken, 4);

	/* Merging: an unrelated trace's counts add up. */
	spoor_sink_restart(s);
	spoor_sink_blocks(s, 0, &tk, 1);
	CHECK_EQ(spoor_coverage_insn(s, tk.last, &n, &taken, NULL), 0);
	CHECK_EQ(n, 6);
	CHECK_EQ(taken, 3);
	CHECK_EQ(spoor_sink_error(s), 0);

	/* lcov: fib's first line ran 6 times, its function record. */
	fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	out = fopen(path, "w");
	CHECK(out != NULL);
	if (out) {
		CHECK_EQ(spoor_coverage_write_lcov(s, out, "unit test-1"), 0);
		fclose(out);
		CHECK(file_has_line(path, "TN:unit_test_1"));
		CHECK(file_has_line(path, "FNDA:6,fib"));
		CHECK(file_has_line(path, "end_of_record"));
		CHECK(spoor_image_line(img, fib_start, &file, &line) == 0);
		snprintf(want, sizeof(want), "DA:%d,6", line);
		CHECK(file_has_line(path, want));
		/* A function is named at its declaration's line (DWARF). */
		CHECK(spoor_image_func_line(img, fib_start, &file, &line) == 0);
		snprintf(want, sizeof(want), "FN:%d,fib", line);
		CHECK(file_has_line(path, want));
		CHECK(file_has_line(path, "FN:5,fib"));
		CHECK(file_has_line(path, "FNDA:0,print_hex"));
	}
	out = fopen(path, "w");
	if (out) {
		CHECK_EQ(spoor_coverage_write_summary(s, out), 0);
		fclose(out);
		CHECK(file_has_line(path, "never reached:"));
		CHECK(file_has_line(path, "  main (recursion.c:31)"));
	}
	out = fopen(path, "w");
	if (out) {
		CHECK_EQ(spoor_coverage_write_top(s, out, 3), 0);
		fclose(out);
	}
	remove(path);

	/* A full disk is an error. */
	out = fopen("/dev/full", "w");
	if (out) {
		CHECK_EQ(spoor_coverage_write_lcov(s, out, NULL), SPOOR_E_IO);
		clearerr(out);
		CHECK_EQ(spoor_coverage_write_summary(s, out), SPOOR_E_IO);
		fclose(out);
	}

	/* NULL and foreign arguments. */
	CHECK_EQ(spoor_coverage_write_lcov(NULL, stdout, NULL), SPOOR_E_INVAL);
	CHECK_EQ(spoor_coverage_write_lcov(s, NULL, NULL), SPOOR_E_INVAL);
	CHECK_EQ(spoor_coverage_write_summary(&other, stdout), SPOOR_E_INVAL);
	CHECK_EQ(spoor_coverage_write_top(NULL, stdout, 1), SPOOR_E_INVAL);
	CHECK_EQ(spoor_coverage_totals(s, NULL), SPOOR_E_INVAL);
	CHECK_EQ(spoor_coverage_totals(&other, &t), SPOOR_E_INVAL);
	CHECK_EQ(spoor_coverage_insn(NULL, 0, NULL, NULL, NULL), SPOOR_E_INVAL);
	CHECK_EQ(spoor_coverage_insn(s, 0x10, NULL, NULL, NULL), SPOOR_E_NOT_FOUND);

	spoor_sink_free(s);
	spoor_funcs_free(funcs);
	spoor_image_free(img);
}

/*
 * A program without symbols nor lines (@elf stripped of all): every
 * instruction of its executable segments is found, in pseudo functions
 * per page; lcov has nothing to write, the summary works.
 */
static void test_stripped(const char *elf)
{
	struct spoor_image *img = spoor_image_new();
	struct spoor_diag d = { { 0 } };
	struct spoor_coverage_totals t;
	struct spoor_funcs *funcs = NULL;
	struct spoor_sink *s = NULL;
	struct spoor_block b;
	uint64_t start, end, n;
	FILE *out;

	CHECK(img && spoor_image_add_elf(img, elf, 0, &d) == 0);
	funcs = spoor_funcs_new(img);
	CHECK(funcs != NULL);
	if (!funcs)
		goto cleanup;
	CHECK_EQ(spoor_funcs_symbols(funcs), 0);
	s = spoor_coverage_new(funcs);
	CHECK(s != NULL);
	CHECK_EQ(spoor_image_segment_at(img, 0, &start, &end), 0);
	if (!s)
		goto cleanup;
	CHECK_EQ(spoor_coverage_totals(s, &t), 0);
	CHECK(t.insns_found > 100);
	CHECK_EQ(t.insns_hit, 0);
	CHECK_EQ(t.lines_found, 0);
	CHECK(t.funcs_found > 0);
	CHECK_EQ(t.funcs_hit, 0);
	CHECK_EQ(spoor_coverage_insn(s, start, &n, NULL, NULL), 0);	/* found, not run */
	CHECK_EQ(n, 0);
	b = block_to_branch(img, spoor_funcs_xlen(funcs), start, end, SPOOR_BLK_NOT_TAKEN);
	CHECK(b.ninsn > 0);
	spoor_sink_blocks(s, 0, &b, 1);
	CHECK_EQ(spoor_coverage_totals(s, &t), 0);
	CHECK_EQ(t.insns_hit, b.ninsn);
	CHECK(t.insns_found > t.insns_hit);
	CHECK_EQ(t.funcs_hit, 1);	/* the pseudo function of the page that ran */
	out = fopen("/dev/null", "w");
	if (out) {
		CHECK_EQ(spoor_coverage_write_lcov(s, out, NULL), SPOOR_E_NOT_FOUND);
		CHECK_EQ(spoor_coverage_write_summary(s, out), 0);
		fclose(out);
	}
cleanup:
	spoor_sink_free(s);
	spoor_funcs_free(funcs);
	spoor_image_free(img);
}

/* A name wider than the summary's column (40) or the live view's (28) is cut with "...". */
static void test_long_name(void)
{
	static const uint8_t nops[16] = { 0x13, 0, 0, 0, 0x13, 0, 0, 0, 0x13, 0, 0, 0, 0x13 };
	static const char name[] = "a_function_name_much_wider_than_any_column_of_the_summary";
	struct spoor_block b = { .start = 0x1000, .last = 0x1008, .ninsn = 3 };
	struct spoor_image *img = spoor_image_new();
	struct spoor_funcs *funcs = NULL;
	struct spoor_sink *s = NULL;
	char path[] = "/tmp/test_coverage.XXXXXX", want[256];
	FILE *out;
	int fd;

	CHECK(img && spoor_image_add_raw(img, name, 0x1000, nops, sizeof(nops)) == 0);
	funcs = img ? spoor_funcs_new(img) : NULL;
	s = funcs ? spoor_coverage_new(funcs) : NULL;
	CHECK(s != NULL);
	fd = mkstemp(path);
	CHECK(fd >= 0);
	if (!s || fd < 0)
		goto cleanup;
	close(fd);
	spoor_sink_blocks(s, 0, &b, 1);
	out = fopen(path, "w");
	if (out) {
		CHECK_EQ(spoor_coverage_write_summary(s, out), 0);
		fclose(out);
		snprintf(want, sizeof(want), "%.37s...  %-24s  %20s  %20s  %20s  %10d", name, "-",
			 "3/4  75.0%", "-", "-", 1);
		CHECK(file_has_line(path, want));
	}
	out = fopen(path, "w");
	if (out) {
		CHECK_EQ(spoor_coverage_write_top(s, out, 1), 0);
		fclose(out);
		snprintf(want, sizeof(want), "  %.25s... %14d  %18s  %18s  %18s", name, 3,
			 "3/4  75.0%", "-", "-");
		CHECK(file_has_line(path, want));
	}
	remove(path);
cleanup:
	spoor_sink_free(s);
	spoor_funcs_free(funcs);
	spoor_image_free(img);
}

int main(int argc, char **argv)
{
	check_args(argc, argv, "Checks the coverage sink on recursion.elf (rv64, rv32) with "
		   "synthetic blocks.");
	test_program(COV_ELF_RV64);
	test_program(COV_ELF_RV32);
	test_stripped(COV_ELF_STRIPPED);
	test_long_name();
	return check_done();
}
