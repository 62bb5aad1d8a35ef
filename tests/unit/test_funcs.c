// SPDX-License-Identifier: MIT
/*
 * Unit tests of the functions of an image (funcs.c) over a real test
 * program (recursion.elf, RV64): dense numbering in address order, lookups,
 * pseudo functions for unknown code, the per-block cache.
 */
#include "check.h"
#include "spoor/error.h"
#include "spoor/funcs.h"
#include "spoor/insn.h"
static struct spoor_diag diag;

/* Returns the number of the function named @name, or SPOOR_FUNC_NONE. */
static uint32_t func_named(const struct spoor_funcs *f, const char *name)
{
	for (uint32_t i = 0; i < spoor_funcs_count(f); i++)
		if (!strcmp(spoor_funcs_get(f, i)->name, name))
			return i;
	return SPOOR_FUNC_NONE;
}

int main(int argc, char **argv)
{
	struct spoor_image *img = spoor_image_new();
	struct spoor_funcs *f;
	const struct spoor_func *fn;
	const struct spoor_block_info *bi;
	uint32_t fib, main_f, id, first_pseudo;
	size_t nsyms;

	check_args(argc, argv, "Checks the functions of recursion.elf and the block cache.");
	CHECK(!spoor_funcs_new(NULL));
	if (!img || spoor_image_add_elf(img, ISS_RECURSION_RV64, 0, &diag)) {
		fprintf(stderr, "cannot load %s\n", ISS_RECURSION_RV64);
		return 1;
	}
	f = spoor_funcs_new(img);
	CHECK(f);
	if (!f)
		return check_done();
	CHECK_EQ(spoor_funcs_xlen(f), 64);
	CHECK(spoor_funcs_image(f) == img);
	nsyms = spoor_funcs_symbols(f);
	CHECK(nsyms > 8);
	CHECK_EQ(spoor_funcs_count(f), nsyms);
	/* Numbered in address order, ranges not overlapping, no pseudo ones. */
	for (uint32_t i = 0; i + 1 < nsyms; i++) {
		CHECK(spoor_funcs_get(f, i)->start < spoor_funcs_get(f, i + 1)->start);
		CHECK(!spoor_funcs_get(f, i)->pseudo);
	}
	CHECK(!spoor_funcs_get(f, (uint32_t)nsyms));
	CHECK(!spoor_funcs_get(NULL, 0));
	fib = func_named(f, "fib");
	main_f = func_named(f, "main");
	CHECK(fib != SPOOR_FUNC_NONE && main_f != SPOOR_FUNC_NONE);
	if (fib == SPOOR_FUNC_NONE || main_f == SPOOR_FUNC_NONE)
		return check_done();
	fn = spoor_funcs_get(f, fib);
	CHECK_EQ(spoor_funcs_find(f, fn->start), fib);
	CHECK_EQ(spoor_funcs_find(f, fn->start + 2), fib);
	CHECK_EQ(spoor_funcs_find(f, fn->end - 2), fib);
	CHECK(spoor_funcs_find(f, fn->end) != fib);
	CHECK_EQ(spoor_funcs_find(NULL, 0), SPOOR_FUNC_NONE);

	/* Unknown code: one pseudo function per 4 KiB page, made once. */
	id = spoor_funcs_find(f, 0x4000123);
	first_pseudo = id;
	CHECK_EQ(id, nsyms);
	fn = spoor_funcs_get(f, id);
	CHECK(fn && fn->pseudo);
	CHECK_EQ(fn->start, 0x4000000);
	CHECK_EQ(fn->end, 0x4001000);
	CHECK(!strcmp(fn->name, "0x4000000?"));
	CHECK_EQ(spoor_funcs_find(f, 0x4000ffe), id);
	CHECK_EQ(spoor_funcs_find(f, 0x4001000), id + 1);
	/* Many pages: the table grows, every page keeps its number. */
	for (uint64_t p = 0; p < 3000; p++)
		spoor_funcs_find(f, 0x10000000 + (p << 12));
	CHECK_EQ(spoor_funcs_count(f), nsyms + 2 + 3000);
	for (uint64_t p = 0; p < 3000; p++)
		CHECK_EQ(spoor_funcs_find(f, 0x10000000 + (p << 12) + 8), nsyms + 2 + p);
	CHECK_EQ(spoor_funcs_find(f, 0x4000000), first_pseudo);
	CHECK_EQ(spoor_funcs_find(f, UINT64_MAX - 1), spoor_funcs_count(f) - 1);
	CHECK_EQ(spoor_funcs_get(f, (uint32_t)spoor_funcs_count(f) - 1)->end, UINT64_MAX);

	/* The block cache: function and last instruction of a block. */
	{
		const struct spoor_func *ff = spoor_funcs_get(f, fib);
		uint64_t a, call = 0, ret = 0;

		for (a = ff->start; a < ff->end;) {
			size_t avail;
			const uint8_t *p = spoor_image_ptr(img, a, &avail);
			struct spoor_insn in;
			uint32_t raw = p[0] | p[1] << 8 | (avail >= 4 ? (uint32_t)p[2] << 16 |
							   (uint32_t)p[3] << 24 : 0);

			spoor_insn_decode(raw, 64, &in);
			if (!call && (in.flags & SPOOR_INSN_CALL))
				call = a;
			if (!ret && (in.flags & SPOOR_INSN_RETURN))
				ret = a;
			a += in.len ? in.len : 2;
		}
		CHECK(call && ret);
		struct spoor_block b = { .start = ff->start, .last = call, .ninsn = 3,
					 .end = SPOOR_BLK_JUMP, .next = ff->start, .last_len = 4 };

		bi = spoor_funcs_block(f, &b);
		CHECK(bi);
		CHECK_EQ(bi->func, fib);
		CHECK_EQ(bi->last_func, fib);
		CHECK_EQ(bi->last_cls, SPOOR_INSN_JUMP);
		CHECK_EQ(bi->last_flags & SPOOR_INSN_CALL, SPOOR_INSN_CALL);
		CHECK(spoor_funcs_block(f, &b) == bi);	/* cached */
		b.last = ret;
		bi = spoor_funcs_block(f, &b);
		CHECK_EQ(bi->last_cls, SPOOR_INSN_JALR);
		CHECK_EQ(bi->last_flags & SPOOR_INSN_RETURN, SPOOR_INSN_RETURN);
		/* A block running from main's end into the next function. */
		b.start = spoor_funcs_get(f, main_f)->start;
		b.last = ff->start;
		bi = spoor_funcs_block(f, &b);
		CHECK_EQ(bi->func, main_f);
		CHECK_EQ(bi->last_func, fib);
		/* Code no image has. */
		b.start = 0x4000000;
		b.last = 0x4000010;
		bi = spoor_funcs_block(f, &b);
		CHECK(bi);
		CHECK_EQ(bi->last_cls, SPOOR_INSN_INVALID);
		CHECK_EQ(bi->func, first_pseudo);
		CHECK(!spoor_funcs_block(NULL, &b));
		CHECK(!spoor_funcs_block(f, NULL));
	}
	spoor_funcs_free(f);
	spoor_funcs_free(NULL);
	spoor_image_free(img);
	return check_done();
}
