// SPDX-License-Identifier: MIT
/*
 * Bounded execution history: a ring of blocks per source.  A ring's
 * storage grows by doubling up to the limit, so a large limit costs
 * nothing until the blocks come.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "spoor/error.h"
#include "spoor/history.h"

struct hist_source {
	uint32_t id;
	struct spoor_block *ring;
	size_t cap;		/* allocated entries (<= the history's limit) */
	size_t head;		/* index of the oldest block */
	size_t count;		/* blocks held */
	uint64_t first;		/* sequence number of ring[head] */
	uint64_t insns, total_insns, gaps;
	bool no_merge;		/* a gap since the last block */
};

struct spoor_history {
	size_t max;
	struct hist_source *src;	/* sorted by id */
	size_t nsrc, src_cap;
};

struct spoor_history *spoor_history_new(size_t max_blocks)
{
	struct spoor_history *h;

	if (!max_blocks)
		return NULL;
	h = calloc(1, sizeof(*h));
	if (h)
		h->max = max_blocks;
	return h;
}

void spoor_history_free(struct spoor_history *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->nsrc; i++)
		free(h->src[i].ring);
	free(h->src);
	free(h);
}

size_t spoor_history_size(const struct spoor_history *h)
{
	return h ? h->max : 0;
}

/* Returns the index where source @id is or would go in h->src. */
static size_t find_slot(const struct spoor_history *h, uint32_t id)
{
	size_t lo = 0, hi = h->nsrc;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (h->src[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Returns source @id, or NULL when it has none. */
static const struct hist_source *find(const struct spoor_history *h, uint32_t id)
{
	size_t i = find_slot(h, id);

	return i < h->nsrc && h->src[i].id == id ? &h->src[i] : NULL;
}

/* Returns source @id, created if need be, or NULL (no memory). */
static struct hist_source *get(struct spoor_history *h, uint32_t id)
{
	size_t i = find_slot(h, id);

	if (i < h->nsrc && h->src[i].id == id)
		return &h->src[i];
	if (h->nsrc == h->src_cap) {
		size_t cap = h->src_cap ? 2 * h->src_cap : 4;
		struct hist_source *n = realloc(h->src, cap * sizeof(*n));

		if (!n)
			return NULL;
		h->src = n;
		h->src_cap = cap;
	}
	memmove(&h->src[i + 1], &h->src[i], (h->nsrc - i) * sizeof(*h->src));
	memset(&h->src[i], 0, sizeof(h->src[i]));
	h->src[i].id = id;
	h->nsrc++;
	return &h->src[i];
}

/* Returns the block @k places after the oldest held. */
static struct spoor_block *at(const struct hist_source *s, size_t k)
{
	return &s->ring[(s->head + k) % s->cap];
}

/*
 * Moves the newest min(count, @cap) blocks into a new ring of @cap entries.
 * Returns 0 or SPOOR_E_NOMEM (nothing changed).
 */
static int relocate(struct hist_source *s, size_t cap)
{
	size_t keep = s->count < cap ? s->count : cap, drop = s->count - keep;
	struct spoor_block *ring = malloc(cap * sizeof(*ring));

	if (!ring)
		return SPOOR_E_NOMEM;
	for (size_t k = 0; k < keep; k++)
		ring[k] = *at(s, drop + k);
	for (size_t k = 0; k < drop; k++)
		s->insns -= at(s, k)->ninsn;
	free(s->ring);
	s->ring = ring;
	s->cap = cap;
	s->head = 0;
	s->count = keep;
	s->first += drop;
	return 0;
}

int spoor_history_resize(struct spoor_history *h, size_t max_blocks)
{
	if (!h || !max_blocks)
		return SPOOR_E_INVAL;
	for (size_t i = 0; i < h->nsrc; i++) {
		struct hist_source *s = &h->src[i];

		if (s->cap > max_blocks && relocate(s, max_blocks))
			return SPOOR_E_NOMEM;
	}
	h->max = max_blocks;
	return 0;
}

/* Returns true when @b continues the open block @prev. */
static bool continues(const struct spoor_block *prev, const struct spoor_block *b)
{
	return prev->end == SPOOR_BLK_OPEN && b->start == prev->last + prev->last_len &&
	       b->priv == prev->priv;
}

/* Appends one block to @s; returns 0 or SPOOR_E_NOMEM. */
static int add_one(struct spoor_history *h, struct hist_source *s, const struct spoor_block *b)
{
	struct spoor_block *slot;

	s->total_insns += b->ninsn;
	if (s->count && !s->no_merge && continues(at(s, s->count - 1), b)) {
		slot = at(s, s->count - 1);
		slot->last = b->last;
		slot->ninsn += b->ninsn;
		slot->next = b->next;
		slot->end = b->end;
		slot->last_len = b->last_len;
		s->insns += b->ninsn;
		return 0;
	}
	s->no_merge = false;
	if (s->count == s->cap && s->cap < h->max) {
		size_t cap = s->cap ? 2 * s->cap : 64;

		if (relocate(s, cap < h->max ? cap : h->max))
			return SPOOR_E_NOMEM;
	}
	if (s->count == s->cap) {
		/* Full: the oldest goes. */
		s->insns -= at(s, 0)->ninsn;
		s->head = (s->head + 1) % s->cap;
		s->first++;
		s->count--;
	}
	*at(s, s->count) = *b;
	s->count++;
	s->insns += b->ninsn;
	return 0;
}

int spoor_history_add(struct spoor_history *h, uint32_t source, const struct spoor_block *blocks,
		      size_t n)
{
	struct hist_source *s;
	int ret;

	if (!h || (!blocks && n))
		return SPOOR_E_INVAL;
	if (!n)
		return 0;
	s = get(h, source);
	if (!s)
		return SPOOR_E_NOMEM;
	for (size_t i = 0; i < n; i++) {
		ret = add_one(h, s, &blocks[i]);
		if (ret)
			return ret;
	}
	return 0;
}

int spoor_history_gap(struct spoor_history *h, uint32_t source)
{
	struct hist_source *s;

	if (!h)
		return SPOOR_E_INVAL;
	s = get(h, source);
	if (!s)
		return SPOOR_E_NOMEM;
	s->gaps++;
	s->no_merge = true;
	return 0;
}

void spoor_history_clear(struct spoor_history *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->nsrc; i++) {
		struct hist_source *s = &h->src[i];

		s->first += s->count;
		s->count = 0;
		s->head = 0;
		s->insns = 0;
		s->no_merge = true;
	}
}

size_t spoor_history_sources(const struct spoor_history *h, uint32_t *out, size_t max)
{
	if (!h)
		return 0;
	for (size_t i = 0; i < h->nsrc && i < max; i++)
		out[i] = h->src[i].id;
	return h->nsrc;
}

int spoor_history_info(const struct spoor_history *h, uint32_t source,
		       struct spoor_history_info *info, size_t size)
{
	struct spoor_history_info v = { 0 };
	const struct hist_source *s;

	if (!h || !info)
		return SPOOR_E_INVAL;
	s = find(h, source);
	if (s) {
		v.first = s->first;
		v.next = s->first + s->count;
		v.insns = s->insns;
		v.total_insns = s->total_insns;
		v.gaps = s->gaps;
	}
	memcpy(info, &v, size < sizeof(v) ? size : sizeof(v));
	return 0;
}

const struct spoor_block *spoor_history_block(const struct spoor_history *h, uint32_t source,
					      uint64_t seq)
{
	const struct hist_source *s;

	if (!h)
		return NULL;
	s = find(h, source);
	if (!s || seq < s->first || seq - s->first >= s->count)
		return NULL;
	return at(s, (size_t)(seq - s->first));
}
