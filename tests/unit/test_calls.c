// SPDX-License-Identifier: MIT
/*
 * Unit tests of the call tree (calls.c) on synthetic blocks over a real
 * test program (recursion.elf, RV64): nodes per call path and how entered,
 * counts, exclusive and inclusive instructions, recursion, traps, time,
 * several sources, the text and JSON writers with a depth limit, failed
 * writes and bad arguments; a 300,000-deep recursion written without
 * recursion and with bounded indentation; the node cap folding new paths
 * into their caller; names that are not UTF-8 in the JSON; out of memory.
 */
#define _GNU_SOURCE	/* (fopencookie) */
#include <errno.h>
#include <stdbool.h>

#include "check.h"
#include "spoor/calls.h"
#include "spoor/error.h"
#include "spoor/image.h"
#include "spoor/profile.h"
#include "../../host/json_str.h"

#include "fail_alloc.h"

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

/* What a writer wrote, as the counting stream below saw it. */
struct seen {
	uint64_t bytes, lines;
	size_t line, longest;	/* the current line's length, the longest's */
	long nest, deepest;	/* JSON: [ and { open now, at most */
	bool negative;		/* a ] or } closed what was not open */
};

/* fopencookie write: counts @buf into the struct seen @c, keeping none of it. */
static ssize_t seen_write(void *c, const char *buf, size_t n)
{
	struct seen *sn = c;

	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '\n') {
			sn->lines++;
			if (sn->line > sn->longest)
				sn->longest = sn->line;
			sn->line = 0;
			continue;
		}
		sn->line++;
		if (buf[i] == '[' || buf[i] == '{') {
			if (++sn->nest > sn->deepest)
				sn->deepest = sn->nest;
		} else if (buf[i] == ']' || buf[i] == '}') {
			if (--sn->nest < 0)
				sn->negative = true;
		}
	}
	sn->bytes += n;
	return (ssize_t)n;
}

/* Returns a stream that counts what is written into @sn. */
static FILE *seen_open(struct seen *sn)
{
	memset(sn, 0, sizeof(*sn));
	return fopencookie(sn, "w", (cookie_io_functions_t){ .write = seen_write });
}

/*
 * fib calling itself 300,000 deep and back: the writers walk it without
 * recursion (they crashed on the stack), the text indents 64 levels at
 * most and says the level beyond, the JSON nests every level.
 */
static void test_deep(uint64_t fib, uint64_t c_rec, uint64_t r_fib)
{
	enum { DEEP = 300000 };
	struct spoor_sink *s = spoor_calls_new(funcs, DEEP + 1);
	struct spoor_calls_total tot;
	struct seen sn;
	char *buf = NULL;
	size_t len = 0;
	FILE *out;

	CHECK(s);
	if (!s)
		return;
	for (int i = 0; i < DEEP; i++)
		blk(s, 0, fib, c_rec, 7, SPOOR_BLK_JUMP, fib);
	blk(s, 0, fib, r_fib, 3, SPOOR_BLK_UNINFERABLE, c_rec + 4);
	for (int i = 0; i < DEEP; i++)
		blk(s, 0, c_rec + 4, r_fib, 4, SPOOR_BLK_UNINFERABLE, c_rec + 4);
	CHECK_EQ(spoor_sink_error(s), 0);
	CHECK_EQ(spoor_calls_count(s), DEEP + 2);
	CHECK_EQ(spoor_calls_total(s, &tot, sizeof(tot)), 0);
	CHECK_EQ(tot.insns, (uint64_t)DEEP * 11 + 3);

	out = seen_open(&sn);
	CHECK_EQ(spoor_calls_write_text(s, out, 0), 0);
	fclose(out);
	CHECK_EQ(sn.lines, DEEP + 2);
	CHECK(sn.longest < 2 * 64 + 100);	/* the indent stops at 64 levels */
	out = seen_open(&sn);
	CHECK_EQ(spoor_calls_write_json(s, out, 0), 0);
	fclose(out);
	CHECK(!sn.negative);
	CHECK_EQ(sn.nest, 0);
	CHECK(sn.deepest > 2 * DEEP);	/* every level an object in an array */
	/* The level where the indent stops, and beyond. */
	out = open_memstream(&buf, &len);
	CHECK_EQ(spoor_calls_write_text(s, out, 70), 0);
	fclose(out);
	CHECK(strstr(buf, "\n" "                                                                "
		      "                                                                fib  count 1 "));
	CHECK(strstr(buf, "[65] fib  count 1 "));
	CHECK(strstr(buf, "[71] ... 299931 more below ("));
	CHECK(!strstr(buf, "[72]"));
	free(buf);
	spoor_sink_free(s);
}

/*
 * The node cap: a tree of at most 5 nodes; what would go past it is folded
 * into the caller's node and counted as dropped, the totals unchanged.
 */
static void test_cap(uint64_t start, uint64_t main_a, uint64_t fib, uint64_t c_main,
		     uint64_t c_fib, uint64_t c_rec, uint64_t r_fib, uint64_t trap)
{
	struct spoor_calls_config cfg;
	struct spoor_calls_total tot;
	struct spoor_calls_node nd;
	struct spoor_sink *s;
	uint64_t folded_self = 0, main_self = 0;
	char *buf = NULL;
	size_t len = 0;
	FILE *out;

	CHECK(!spoor_calls_new_config(NULL));
	spoor_calls_config_init(&cfg);
	CHECK(!spoor_calls_new_config(&cfg));	/* no functions */
	cfg.funcs = funcs;
	cfg.max_nodes = 5;	/* root, _start, main, fib, fib */
	s = spoor_calls_new_config(&cfg);
	CHECK(s);
	if (!s)
		return;
	for (int round = 0; round < 2; round++) {
		struct spoor_dec_item ev = { .kind = SPOOR_DEC_EVENT };

		blk(s, 0, start, c_main, 10, SPOOR_BLK_JUMP, main_a);
		blk(s, 0, main_a, c_fib, 5, SPOOR_BLK_JUMP, fib);
		blk(s, 0, fib, c_rec, 7, SPOOR_BLK_JUMP, fib);
		blk(s, 0, fib, c_rec, 7, SPOOR_BLK_JUMP, fib);	/* the cap: folded */
		blk(s, 0, fib, r_fib, 3, SPOOR_BLK_UNINFERABLE, c_rec + 4);
		blk(s, 0, c_rec + 4, r_fib, 4, SPOOR_BLK_UNINFERABLE, c_rec + 4);
		blk(s, 0, c_rec + 4, r_fib, 4, SPOOR_BLK_UNINFERABLE, c_fib + 4);
		ev.event.kind = SPOOR_EV_TRAP;
		ev.event.cause = 11;
		ev.event.address = trap;
		spoor_sink_event(s, &ev);
		blk(s, 0, c_fib + 4, c_fib + 8, 2, SPOOR_BLK_TRAP, 0);
		blk(s, 0, trap, trap + 8, 5, SPOOR_BLK_NOT_TAKEN, trap + 10);	/* folded */
		spoor_sink_restart(s);
	}
	CHECK_EQ(spoor_sink_error(s), 0);
	CHECK_EQ(spoor_calls_count(s), 5);
	CHECK_EQ(spoor_calls_total(s, &tot, sizeof(tot)), 0);
	CHECK_EQ(tot.insns, 2 * (10 + 5 + 7 + 7 + 3 + 4 + 4 + 2 + 5));
	CHECK_EQ(tot.dropped, 4);
	CHECK_EQ(tot.max_nodes, 5);
	for (uint32_t i = 0; i < 5; i++) {
		CHECK_EQ(spoor_calls_node(s, i, &nd, sizeof(nd)), 0);
		if (nd.depth == 4) {
			folded_self = nd.self;
			CHECK_EQ(nd.dropped, 2);
		}
		if (nd.depth == 2) {
			main_self = nd.self;
			CHECK_EQ(nd.dropped, 2);
		}
	}
	CHECK_EQ(folded_self, 2 * (7 + 3 + 4));	/* its own, and the fib it called */
	CHECK_EQ(main_self, 2 * (5 + 2 + 5));	/* its own, and the trap handler */
	out = open_memstream(&buf, &len);
	CHECK_EQ(spoor_calls_write_text(s, out, 0), 0);
	fclose(out);
	CHECK(strstr(buf, "    main  count 2  insns 74  self 24  dropped 2\n"));
	CHECK(strstr(buf, "\ndropped paths: 4 (the tree reached its cap of 5 nodes"));
	free(buf);
	out = open_memstream(&buf, &len);
	CHECK_EQ(spoor_calls_write_json(s, out, 0), 0);
	fclose(out);
	CHECK(strstr(buf, "{\"instructions\":94,\"dropped_paths\":4,"));
	CHECK(strstr(buf, "\"self\":24,\"dropped\":2,"));
	free(buf);
	out = open_memstream(&buf, &len);
	CHECK_EQ(spoor_profile_write_top(s, out, 0), 0);
	fclose(out);
	CHECK(!strncmp(buf, "instructions: 94, functions: 3, dropped paths: 4\n", 49));
	free(buf);
	spoor_sink_free(s);
}

/*
 * Names are JSON strings however odd: a quote, a control character and
 * bytes that are not UTF-8 (escaped, \ufffd), UTF-8 kept.
 */
static void test_names(uint32_t fib_f, uint64_t fib, uint64_t c_rec, uint64_t r_fib)
{
	struct spoor_func *f = (struct spoor_func *)spoor_funcs_get(funcs, fib_f);
	const char *name = f->name;
	struct spoor_sink *s = spoor_calls_new(funcs, 0);
	char *buf = NULL, *esc;
	size_t len = 0;
	FILE *out;

	f->name = "f\"i\\b\x01\xff\xc3\xa9\xed\xa0\x80";
	blk(s, 0, fib, c_rec, 7, SPOOR_BLK_JUMP, fib);
	blk(s, 0, fib, r_fib, 3, SPOOR_BLK_UNINFERABLE, c_rec + 4);
	out = open_memstream(&buf, &len);
	CHECK_EQ(spoor_calls_write_json(s, out, 0), 0);
	fclose(out);
	CHECK(strstr(buf, "{\"function\":\"f\\\"i\\\\b\\u0001\\ufffd\xc3\xa9"
		      "\\ufffd\\ufffd\\ufffd\",\"kind\":\"root\""));
	for (const unsigned char *p = (const unsigned char *)buf; *p; p++)
		CHECK(*p < 0x80 || *p == 0xc3 || *p == 0xa9);	/* only the é */
	free(buf);
	esc = json_str_escape(f->name);
	CHECK(esc && !strcmp(esc, "f\\\"i\\\\b\\u0001\\ufffd\xc3\xa9\\ufffd\\ufffd\\ufffd"));
	free(esc);
	f->name = name;
	spoor_sink_free(s);
}

/* Out of memory: the readers say so (SPOOR_E_NOMEM), not "no such node". */
static void test_nomem(uint64_t fib, uint64_t c_rec, uint64_t r_fib)
{
	struct spoor_sink *s = spoor_calls_new(funcs, 0);
	struct spoor_calls_total tot;
	struct spoor_calls_node nd;

	blk(s, 0, fib, c_rec, 7, SPOOR_BLK_JUMP, fib);
	blk(s, 0, fib, r_fib, 3, SPOOR_BLK_UNINFERABLE, c_rec + 4);
	if (FAIL_ALLOC) {
		alloc_fail = 0;
		CHECK_EQ(spoor_calls_node(s, 1, &nd, sizeof(nd)), SPOOR_E_NOMEM);
		alloc_fail = 0;
		CHECK_EQ(spoor_calls_total(s, &tot, sizeof(tot)), SPOOR_E_NOMEM);
		alloc_fail = -1;
	}
	CHECK_EQ(spoor_calls_node(s, 1, &nd, sizeof(nd)), 0);
	CHECK_EQ(nd.insns, 10);
	CHECK_EQ(spoor_calls_node(s, 3, &nd, sizeof(nd)), SPOOR_E_INVAL);
	CHECK_EQ(spoor_calls_total(s, &tot, sizeof(tot)), 0);
	CHECK_EQ(tot.insns, 10);
	spoor_sink_free(s);
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
	struct spoor_calls_total tot;

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
	CHECK_EQ(spoor_calls_total(s, &tot, sizeof(tot)), 0);
	total = tot.insns;
	CHECK_EQ(total, 2 * (10 + 5 + 7 + 7 + 3 + 4 + 4 + 2 + 5) + 3);
	CHECK(tot.has_time);
	CHECK_EQ(tot.time, 80);
	CHECK_EQ(tot.dropped, 0);
	CHECK_EQ(tot.nodes, 9);
	CHECK_EQ(tot.max_nodes, SPOOR_CALLS_MAX_NODES);
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
	CHECK(!strncmp(buf, "{\"instructions\":97,\"dropped_paths\":0,\"sources\":[", 48));
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
	CHECK_EQ(spoor_calls_total(NULL, &tot, sizeof(tot)), SPOOR_E_INVAL);
	CHECK_EQ(spoor_calls_total(s, NULL, sizeof(tot)), SPOOR_E_INVAL);
	CHECK(!strcmp(spoor_calls_func_name(s, fib_f), "fib"));
	CHECK(!strcmp(spoor_calls_func_name(s, SPOOR_FUNC_NONE), "?"));
	CHECK(!strcmp(spoor_calls_func_name(NULL, fib_f), "?"));
	spoor_sink_free(s);

	test_deep(fib, c_rec, r_fib);
	test_cap(start, main_a, fib, c_main, c_fib, c_rec, r_fib, trap);
	test_names(fib_f, fib, c_rec, r_fib);
	test_nomem(fib, c_rec, r_fib);
	spoor_funcs_free(funcs);
	spoor_image_free(img);
	return check_done();
}
