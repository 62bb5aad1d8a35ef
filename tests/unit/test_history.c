// SPDX-License-Identifier: MIT
/* Tests for the bounded execution history (history.h). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rng.h"
#include "spoor/error.h"
#include "spoor/history.h"

/* A block of @n 4-byte instructions from @start, ending with a jump. */
static struct spoor_block blk(uint64_t start, uint64_t n)
{
	struct spoor_block b = {
		.start = start, .last = start + 4 * (n - 1), .ninsn = n, .next = start + 0x100,
		.end = SPOOR_BLK_JUMP, .last_len = 4, .priv = 3,
	};

	return b;
}

static void test_args(void)
{
	struct spoor_history *h = spoor_history_new(4);
	struct spoor_history_info info;
	struct spoor_block b = blk(0x1000, 3);
	uint32_t ids[2];

	CHECK(spoor_history_new(0) == NULL);
	CHECK(h != NULL);
	CHECK_EQ(spoor_history_size(h), 4);
	CHECK_EQ(spoor_history_size(NULL), 0);
	CHECK_EQ(spoor_history_add(NULL, 0, &b, 1), SPOOR_E_INVAL);
	CHECK_EQ(spoor_history_add(h, 0, NULL, 1), SPOOR_E_INVAL);
	CHECK_EQ(spoor_history_add(h, 0, NULL, 0), 0);
	CHECK_EQ(spoor_history_resize(h, 0), SPOOR_E_INVAL);
	CHECK_EQ(spoor_history_resize(NULL, 3), SPOOR_E_INVAL);
	CHECK_EQ(spoor_history_gap(NULL, 0), SPOOR_E_INVAL);
	CHECK_EQ(spoor_history_info(NULL, 0, &info, sizeof(info)), SPOOR_E_INVAL);
	CHECK_EQ(spoor_history_info(h, 0, NULL, sizeof(info)), SPOOR_E_INVAL);
	CHECK(spoor_history_block(NULL, 0, 0) == NULL);
	CHECK_EQ(spoor_history_sources(NULL, ids, 2), 0);
	/* Nothing yet: zeros. */
	memset(&info, 0xa5, sizeof(info));
	CHECK_EQ(spoor_history_info(h, 7, &info, sizeof(info)), 0);
	CHECK_EQ(info.first | info.next | info.insns | info.total_insns | info.gaps, 0);
	CHECK(spoor_history_block(h, 7, 0) == NULL);
	CHECK_EQ(spoor_history_sources(h, ids, 2), 0);
	spoor_history_clear(NULL);
	spoor_history_free(NULL);
	spoor_history_free(h);
}

/* The ring keeps the newest blocks; sequence numbers go on; counts follow. */
static void test_ring(void)
{
	struct spoor_history *h = spoor_history_new(3);
	struct spoor_history_info info;
	struct spoor_block b[5];

	for (int i = 0; i < 5; i++)
		b[i] = blk(0x1000 + 0x100 * (unsigned)i, (unsigned)i + 1);
	CHECK_EQ(spoor_history_add(h, 2, b, 2), 0);
	spoor_history_info(h, 2, &info, sizeof(info));
	CHECK_EQ(info.first, 0);
	CHECK_EQ(info.next, 2);
	CHECK_EQ(info.insns, 3);
	CHECK_EQ(spoor_history_block(h, 2, 1)->start, 0x1100);
	CHECK_EQ(spoor_history_add(h, 2, b + 2, 3), 0);
	spoor_history_info(h, 2, &info, sizeof(info));
	CHECK_EQ(info.first, 2);
	CHECK_EQ(info.next, 5);
	CHECK_EQ(info.insns, 3 + 4 + 5);
	CHECK_EQ(info.total_insns, 15);
	CHECK(spoor_history_block(h, 2, 1) == NULL);
	CHECK(spoor_history_block(h, 2, 5) == NULL);
	for (uint64_t s = 2; s < 5; s++)
		CHECK_EQ(spoor_history_block(h, 2, s)->ninsn, s + 1);
	/* Shrinking keeps the newest, growing keeps everything. */
	CHECK_EQ(spoor_history_resize(h, 2), 0);
	spoor_history_info(h, 2, &info, sizeof(info));
	CHECK_EQ(info.first, 3);
	CHECK_EQ(info.insns, 9);
	CHECK_EQ(spoor_history_resize(h, 10), 0);
	CHECK_EQ(spoor_history_add(h, 2, b, 1), 0);
	spoor_history_info(h, 2, &info, sizeof(info));
	CHECK_EQ(info.first, 3);
	CHECK_EQ(info.next, 6);
	CHECK_EQ(spoor_history_block(h, 2, 5)->start, 0x1000);
	/* Clearing forgets the blocks, not the numbering. */
	spoor_history_clear(h);
	spoor_history_info(h, 2, &info, sizeof(info));
	CHECK_EQ(info.first, 6);
	CHECK_EQ(info.next, 6);
	CHECK_EQ(info.insns, 0);
	CHECK(spoor_history_block(h, 2, 5) == NULL);
	spoor_history_free(h);
}

/* Open blocks are extended by the block that continues them, unless a gap intervened. */
static void test_merge(void)
{
	struct spoor_history *h = spoor_history_new(8);
	struct spoor_history_info info;
	struct spoor_block open = blk(0x2000, 2), more = blk(0x2008, 3), b;

	open.end = SPOOR_BLK_OPEN;
	open.next = 0;
	spoor_history_add(h, 0, &open, 1);
	spoor_history_add(h, 0, &more, 1);
	spoor_history_info(h, 0, &info, sizeof(info));
	CHECK_EQ(info.next, 1);
	CHECK_EQ(info.insns, 5);
	b = *spoor_history_block(h, 0, 0);
	CHECK_EQ(b.start, 0x2000);
	CHECK_EQ(b.last, 0x2010);
	CHECK_EQ(b.ninsn, 5);
	CHECK_EQ(b.end, SPOOR_BLK_JUMP);
	CHECK_EQ(b.next, more.next);
	/* Not right after: a new block. */
	open = blk(0x3000, 1);
	open.end = SPOOR_BLK_OPEN;
	spoor_history_add(h, 0, &open, 1);
	more = blk(0x3008, 1);
	spoor_history_add(h, 0, &more, 1);
	spoor_history_info(h, 0, &info, sizeof(info));
	CHECK_EQ(info.next, 3);
	/* A gap stops merging. */
	open = blk(0x4000, 1);
	open.end = SPOOR_BLK_OPEN;
	spoor_history_add(h, 0, &open, 1);
	CHECK_EQ(spoor_history_gap(h, 0), 0);
	more = blk(0x4004, 1);
	spoor_history_add(h, 0, &more, 1);
	spoor_history_info(h, 0, &info, sizeof(info));
	CHECK_EQ(info.next, 5);
	CHECK_EQ(info.gaps, 1);
	spoor_history_free(h);
}

/* Several sources, each its own ring, listed in order. */
static void test_sources(void)
{
	struct spoor_history *h = spoor_history_new(100);
	uint32_t ids[8];
	struct spoor_block b = blk(0x8000, 1);
	static const uint32_t order[] = { 5, 1, 65535, 3, 1, 0 };

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		CHECK_EQ(spoor_history_add(h, order[i], &b, 1), 0);
	CHECK_EQ(spoor_history_sources(h, ids, 8), 5);
	CHECK_EQ(ids[0], 0);
	CHECK_EQ(ids[1], 1);
	CHECK_EQ(ids[2], 3);
	CHECK_EQ(ids[3], 5);
	CHECK_EQ(ids[4], 65535);
	CHECK_EQ(spoor_history_sources(h, ids, 2), 5);
	CHECK(spoor_history_block(h, 1, 1) != NULL);
	CHECK(spoor_history_block(h, 3, 1) == NULL);
	spoor_history_free(h);
}

/* Random adds, resizes and clears against a plain array of everything added. */
static void test_random(void)
{
	size_t max = 7, cap = 1 << 16, n = 0;
	struct spoor_block *all = malloc(cap * sizeof(*all));
	struct spoor_history *h = spoor_history_new(max);
	uint64_t cleared = 0;
	unsigned bad = 0;

	for (int step = 0; step < 20000 && all; step++) {
		unsigned op = rnd_below(100);

		if (op < 2) {
			max = 1 + rnd_below(300);
			spoor_history_resize(h, max);
		} else if (op < 3) {
			spoor_history_clear(h);
			cleared = n;
		} else if (n < cap) {
			all[n] = blk(0x10000 + 8 * (uint64_t)n, 1 + rnd_below(9));
			spoor_history_add(h, 9, &all[n], 1);
			n++;
		}
		if (step % 97 == 0) {
			struct spoor_history_info info;
			uint64_t insns = 0;

			spoor_history_info(h, 9, &info, sizeof(info));
			bad += info.next != n || info.first < cleared || info.next - info.first > max;
			for (uint64_t s = info.first; s < info.next; s++) {
				const struct spoor_block *b = spoor_history_block(h, 9, s);

				bad += !b || b->start != all[s].start;
				insns += b ? b->ninsn : 0;
			}
			bad += insns != info.insns;
		}
	}
	CHECK_EQ(bad, 0);
	free(all);
	spoor_history_free(h);
}

int main(int argc, char **argv)
{
	check_args(argc, argv, "Tests for the bounded execution history (history.h).");
	test_args();
	test_ring();
	test_merge();
	test_sources();
	test_random();
	return check_done();
}
