// SPDX-License-Identifier: MIT
/*
 * Unit tests of the call tree (calls.c) on synthetic blocks over a real
 * test program (recursion.elf, RV64): nodes per call path and how entered,
 * counts, exclusive and inclusive instructions, recursion, traps, time,
 * several sources, the text and JSON writers with a depth limit, failed
 * writes and bad arguments.
 */
#include <errno.h>

#include "check.h"
#include "spoor/calls.h"
#include "spoor/error.h"
#include "spoor/image.h"

static struct spoor_image *img;
static struct spoor_funcs *funcs;
static struct spoor_diag diag;

/* Returns the start of the function named @name (0 when none). */
static uint64_t start_of(const char *name, uint32_t *id)
{
	for (uint32_t i = 0; i < spoor_funcs_count(funcs); i++) {
		if (!strcmp(spoor_funcs_get(funcs, i)->name, name)) {
			*id = i;
			return spoor_funcs_get(funcs, i)->start;
		}
	}
	return 0;
}

/* Feeds block [start, start + 2n) of @n 2-byte instructions (last at @last). */
static void blk(struct spoor_sink *s, uint32_t src, uint64_t start, uint64_t last, uint64_t n,
		uint8_t end, uint64_t next)
{
	size_t avail;
	const uint8_t *p = spoor_image_ptr(img, last, &avail);
	struct spoor_block b = { .start = start, .last = last, .ninsn = n, .next = next,
				 .end = end, .last_len = p && (p[0] & 3) == 3 ? 4 : 2 };

	spoor_sink_blocks(s, src, &b, 1);
}

/* Returns the address of the jal in @from calling @to (scans the bytes). */
static uint64_t call_in(uint64_t from, uint64_t end, uint64_t to)
{
	for (uint64_t a = from; a + 4 <= end; a += 2) {
		size_t avail;
		const uint8_t *p = spoor_image_ptr(img, a, &avail);
		uint32_t w = p[0] | p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
		int64_t imm;

		if ((w & 0xfff) != 0x0ef)	/* jal ra */
			continue;
		imm = (int64_t)((w & 0xff000) | ((w >> 9) & 0x800) | ((w >> 20) & 0x7fe));
		if (w >> 31)
			imm -= 1 << 20;
		if (a + (uint64_t)imm == to)
			return a;
	}
	return 0;
}

/* Returns the ret in [from, end). */
static uint64_t ret_in(uint64_t from, uint64_t end)
{
	for (uint64_t a = from; a + 2 <= end; a += 2) {
		const uint8_t *p = spoor_image_ptr(img, a, NULL);

		if (p[0] == 0x82 && p[1] == 0x80)	/* c.jr ra */
			return a;
	}
	return 0;
}

int main(int argc, char **argv)
{
	uint32_t start_f, main_f, fib_f, trap_f;
	uint64_t start, main_a, fib, trap, c_main, c_fib, c_rec, r_fib, total;
	struct spoor_calls_node nd;
	struct spoor_sink *s;
	char *buf = NULL;
	size_t len = 0;
	FILE *out;
	bool has_time;
	uint64_t time;

	check_args(argc, argv, "Checks the call tree on synthetic blocks over recursion.elf.");
	img = spoor_image_new();
	if (!img || spoor_image_add_elf(img, ISS_RECURSION_RV64, 0, &diag))
		return 1;
	funcs = spoor_funcs_new(img);
	start = start_of("_start", &start_f);
	main_a = start_of("main", &main_f);
	fib = start_of("fib", &fib_f);
	trap = start_of("trap_entry", &trap_f);
	c_main = call_in(start, start + 0x80, main_a);
	c_fib = call_in(main_a, main_a + 0x100, fib);
	c_rec = call_in(fib, fib + 0x40, fib);
	r_fib = ret_in(fib, fib + 0x40);
	if (!c_main || !c_fib || !c_rec || !r_fib || !trap) {
		fprintf(stderr, "landmarks not found\n");
		return 1;
	}
	CHECK(!spoor_calls_new(NULL, 0));
	s = spoor_calls_new(funcs, 0);
	CHECK(s);
	CHECK(spoor_calls_funcs(s) == funcs);
	/* _start → main → fib → fib → fib, back; a trap in main; twice. */
	for (int round = 0; round < 2; round++) {
		struct spoor_dec_item ev = { .kind = SPOOR_DEC_EVENT };

		blk(s, 0, start, c_main, 10, SPOOR_BLK_JUMP, main_a);
		blk(s, 0, main_a, c_fib, 5, SPOOR_BLK_JUMP, fib);
		blk(s, 0, fib, c_rec, 7, SPOOR_BLK_JUMP, fib);
		blk(s, 0, fib, c_rec, 7, SPOOR_BLK_JUMP, fib);
		blk(s, 0, fib, r_fib, 3, SPOOR_BLK_UNINFERABLE, c_rec + 4);
		blk(s, 0, c_rec + 4, r_fib, 4, SPOOR_BLK_UNINFERABLE, c_rec + 4);
		blk(s, 0, c_rec + 4, r_fib, 4, SPOOR_BLK_UNINFERABLE, c_fib + 4);
		ev.event.kind = SPOOR_EV_TRAP;
		ev.event.cause = 11;
		ev.event.address = trap;
		spoor_sink_event(s, &ev);
		blk(s, 0, c_fib + 4, c_fib + 8, 2, SPOOR_BLK_TRAP, 0);
		ev.event.kind = SPOOR_EV_TIME;
		ev.event.time = 1000 * (uint64_t)round;
		spoor_sink_event(s, &ev);
		blk(s, 0, trap, trap + 8, 5, SPOOR_BLK_NOT_TAKEN, trap + 10);
		ev.event.time = 1000 * (uint64_t)round + 40;
		spoor_sink_event(s, &ev);
		spoor_sink_restart(s);	/* the next capture */
	}
	/* Another source: one block. */
	blk(s, 3, fib, fib + 4, 3, SPOOR_BLK_NOT_TAKEN, fib + 6);
	CHECK_EQ(spoor_sink_error(s), 0);
	total = spoor_calls_total(s, &time, &has_time);
	CHECK_EQ(total, 2 * (10 + 5 + 7 + 7 + 3 + 4 + 4 + 2 + 5) + 3);
	CHECK(has_time);
	CHECK_EQ(time, 80);
	/* Nodes: source 0's root, _start, main, fib, fib, fib, trap; source 3's root, fib. */
	CHECK_EQ(spoor_calls_count(s), 9);
	for (uint32_t i = 0; i < spoor_calls_count(s); i++) {
		CHECK_EQ(spoor_calls_node(s, i, &nd, sizeof(nd)), 0);
		if (nd.parent != SPOOR_CALLS_NONE)
			CHECK(nd.parent < i);
		if (nd.func == fib_f && nd.source == 0 && nd.depth == 3) {
			CHECK_EQ(nd.kind, SPOOR_CS_CALL);
			CHECK_EQ(nd.count, 2);
			CHECK_EQ(nd.self, 22);
			CHECK_EQ(nd.insns, 50);
			CHECK(nd.outermost);
		}
		if (nd.func == fib_f && nd.depth == 5) {
			CHECK_EQ(nd.self, 6);
			CHECK(!nd.outermost);
		}
		if (nd.func == trap_f) {
			CHECK_EQ(nd.kind, SPOOR_CS_TRAP);
			CHECK_EQ(nd.cause, 11);
			CHECK_EQ(nd.depth, 3);
			CHECK_EQ(nd.self_time, 80);
			CHECK_EQ(nd.count, 2);
		}
		if (nd.func == start_f) {
			CHECK_EQ(nd.kind, SPOOR_CS_ROOT);
			CHECK_EQ(nd.insns, total - 3);
		}
	}
	CHECK_EQ(spoor_calls_node(s, 9, &nd, sizeof(nd)), SPOOR_E_INVAL);
	CHECK_EQ(spoor_calls_node(s, 0, NULL, sizeof(nd)), SPOOR_E_INVAL);

	/* Text: every node, the trap marked; depth 2 sums up what is below. */
	out = open_memstream(&buf, &len);
	CHECK_EQ(spoor_calls_write_text(s, out, 0), 0);
	fclose(out);
	CHECK(strstr(buf, "source 0: 94 instructions, time 80\n"));
	CHECK(strstr(buf, "source 3: 3 instructions"));
	CHECK(strstr(buf, "  _start (root)  count 2  insns 94  self 20"));
	CHECK(strstr(buf, "      [trap 11] trap_entry  count 2  insns 10  self 10"));
	CHECK(strstr(buf, "      fib  count 2  insns 50  self 22"));
	free(buf);
	out = open_memstream(&buf, &len);
	CHECK_EQ(spoor_calls_write_text(s, out, 2), 0);
	fclose(out);
	CHECK(strstr(buf, "      ... 4 more below (8 entries, 60 instructions)\n"));
	CHECK(!strstr(buf, "trap_entry"));
	free(buf);

	/* JSON. */
	out = open_memstream(&buf, &len);
	CHECK_EQ(spoor_calls_write_json(s, out, 1), 0);
	fclose(out);
	CHECK(!strncmp(buf, "{\"instructions\":97,\"sources\":[", 30));
	CHECK(strstr(buf, "{\"function\":\"_start\",\"kind\":\"root\",\"count\":2,\"insns\":94,"
		      "\"self\":20,\"time\":80,\"self_time\":0,\"truncated\":true,\"children\":[]}"));
	free(buf);
	out = open_memstream(&buf, &len);
	CHECK_EQ(spoor_calls_write_json(s, out, 0), 0);
	fclose(out);
	CHECK(strstr(buf, "\"function\":\"trap_entry\",\"kind\":\"trap\",\"cause\":11,"));
	free(buf);

	/* Failed writes and bad arguments. */
	out = fopen("/dev/full", "w");
	if (out) {
		CHECK_EQ(spoor_calls_write_json(s, out, 0), SPOOR_E_IO);
		CHECK_EQ(spoor_calls_write_text(s, out, 0), SPOOR_E_IO);
		fclose(out);
	}
	CHECK_EQ(spoor_calls_write_text(NULL, stdout, 0), SPOOR_E_INVAL);
	CHECK_EQ(spoor_calls_write_json(s, NULL, 0), SPOOR_E_INVAL);
	CHECK_EQ(spoor_calls_count(NULL), 0);
	CHECK_EQ(spoor_calls_total(NULL, NULL, NULL), 0);
	spoor_sink_free(s);
	spoor_funcs_free(funcs);
	spoor_image_free(img);
	return check_done();
}
