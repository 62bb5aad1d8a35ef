// SPDX-License-Identifier: MIT
/*
 * The program's functions for analysis: code symbols numbered densely,
 * pseudo functions for unknown code, and a per-block cache of what a block
 * means to call stacks.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spoor/error.h"
#include "spoor/funcs.h"
#include "spoor/insn.h"

#define PAGE_SHIFT 12
#define CACHE_BITS 14		/* direct-mapped block cache: 16384 entries */
#define PSEUDO_NAME 24		/* "0x" + 16 digits + "?" + NUL, rounded */

struct cache_entry {
	uint64_t start, last;	/* the block; last = 0 with start = 0: empty */
	struct spoor_block_info info;
	bool used;
};

struct spoor_funcs {
	struct spoor_image *img;
	unsigned xlen;
	struct spoor_func *funcs;	/* symbols (by address), then pseudo functions */
	size_t nsyms, nfuncs, cap;
	char **pseudo_names;		/* names of the pseudo functions (each its own allocation) */
	size_t pseudo_cap;
	uint32_t *pages;		/* open addressing: pseudo function numbers by page */
	size_t pages_cap;		/* a power of 2 (0: none yet) */
	struct cache_entry *cache;
};

/* Returns 0 after keeping the code symbols of the image, one per address. */
static int load_symbols(struct spoor_funcs *f)
{
	size_t n = spoor_image_symbol_count(f->img), i;
	struct spoor_image_sym s;

	f->cap = n + 16;
	f->funcs = calloc(f->cap, sizeof(*f->funcs));
	if (!f->funcs)
		return SPOOR_E_NOMEM;
	for (i = 0; i < n; i++) {
		const char *name;
		uint64_t off;

		if (spoor_image_symbol_at(f->img, i, &s) || !s.code || s.kind == SPOOR_SYM_OBJECT)
			continue;
		/* The preferred symbol at an address is the one lookups give. */
		if (spoor_image_symbol(f->img, s.addr, &name, &off) || name != s.name)
			continue;
		if (f->nfuncs && f->funcs[f->nfuncs - 1].start == s.addr)
			continue;
		f->funcs[f->nfuncs].start = s.addr;
		f->funcs[f->nfuncs].end = s.end;
		f->funcs[f->nfuncs].name = s.name;
		f->nfuncs++;
	}
	f->nsyms = f->nfuncs;
	return 0;
}

struct spoor_funcs *spoor_funcs_new(struct spoor_image *img)
{
	struct spoor_funcs *f;

	if (!img)
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->img = img;
	f->xlen = spoor_image_xlen(img) ? spoor_image_xlen(img) : 64;
	f->cache = calloc((size_t)1 << CACHE_BITS, sizeof(*f->cache));
	if (!f->cache || load_symbols(f))
		goto fail;
	return f;
fail:
	spoor_funcs_free(f);
	return NULL;
}

void spoor_funcs_free(struct spoor_funcs *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nfuncs - f->nsyms; i++)
		free(f->pseudo_names[i]);
	free(f->funcs);
	free(f->pseudo_names);
	free(f->pages);
	free(f->cache);
	free(f);
}

size_t spoor_funcs_count(const struct spoor_funcs *f)
{
	return f ? f->nfuncs : 0;
}

size_t spoor_funcs_symbols(const struct spoor_funcs *f)
{
	return f ? f->nsyms : 0;
}

const struct spoor_func *spoor_funcs_get(const struct spoor_funcs *f, uint32_t id)
{
	if (!f || id >= f->nfuncs)
		return NULL;
	return &f->funcs[id];
}

unsigned spoor_funcs_xlen(const struct spoor_funcs *f)
{
	return f ? f->xlen : 0;
}

struct spoor_image *spoor_funcs_image(const struct spoor_funcs *f)
{
	return f ? f->img : NULL;
}

/* Returns the number of the symbol starting at @start, or SPOOR_FUNC_NONE. */
static uint32_t symbol_at(const struct spoor_funcs *f, uint64_t start)
{
	size_t lo = 0, hi = f->nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->funcs[mid].start < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < f->nsyms && f->funcs[lo].start == start ? (uint32_t)lo : SPOOR_FUNC_NONE;
}

/* Hash slot of @page in a table of @cap (a power of 2) entries. */
static size_t page_slot(uint64_t page, size_t cap)
{
	return (size_t)((page * UINT64_C(0x9e3779b97f4a7c15)) >> 32) & (cap - 1);
}

/* Doubles the page table; returns 0 or SPOOR_E_NOMEM. */
static int pages_grow(struct spoor_funcs *f)
{
	size_t cap = f->pages_cap ? 2 * f->pages_cap : 64, i;
	uint32_t *pages = malloc(cap * sizeof(*pages));

	if (!pages)
		return SPOOR_E_NOMEM;
	memset(pages, 0xff, cap * sizeof(*pages));
	for (i = 0; i < f->pages_cap; i++) {
		uint32_t id = f->pages[i];
		size_t j;

		if (id == SPOOR_FUNC_NONE)
			continue;
		j = page_slot(f->funcs[id].start >> PAGE_SHIFT, cap);
		while (pages[j] != SPOOR_FUNC_NONE)
			j = (j + 1) & (cap - 1);
		pages[j] = id;
	}
	free(f->pages);
	f->pages = pages;
	f->pages_cap = cap;
	return 0;
}

/* Makes the pseudo function of @page; returns its number or SPOOR_FUNC_NONE. */
static uint32_t pseudo_new(struct spoor_funcs *f, uint64_t page)
{
	size_t k = f->nfuncs - f->nsyms;

	if (f->nfuncs == f->cap) {
		struct spoor_func *n = realloc(f->funcs, 2 * f->cap * sizeof(*n));

		if (!n)
			return SPOOR_FUNC_NONE;
		f->funcs = n;
		f->cap *= 2;
	}
	if (k == f->pseudo_cap) {
		size_t cap = k ? 2 * k : 16;
		char **names = realloc(f->pseudo_names, cap * sizeof(*names));

		if (!names)
			return SPOOR_FUNC_NONE;
		f->pseudo_names = names;
		f->pseudo_cap = cap;
	}
	f->pseudo_names[k] = malloc(PSEUDO_NAME);
	if (!f->pseudo_names[k])
		return SPOOR_FUNC_NONE;
	snprintf(f->pseudo_names[k], PSEUDO_NAME, "0x%" PRIx64 "?", page << PAGE_SHIFT);
	f->funcs[f->nfuncs] = (struct spoor_func){
		.start = page << PAGE_SHIFT, .end = (page + 1) << PAGE_SHIFT,
		.name = f->pseudo_names[k], .pseudo = true,
	};
	if (!f->funcs[f->nfuncs].end)
		f->funcs[f->nfuncs].end = UINT64_MAX;
	return (uint32_t)f->nfuncs++;
}

/* The pseudo function of the page of @addr, made on first sight. */
static uint32_t pseudo_find(struct spoor_funcs *f, uint64_t addr)
{
	uint64_t page = addr >> PAGE_SHIFT;
	uint32_t id;
	size_t j;

	/* Keep the table at most half full. */
	if (2 * (f->nfuncs - f->nsyms + 1) > f->pages_cap && pages_grow(f))
		return SPOOR_FUNC_NONE;
	j = page_slot(page, f->pages_cap);
	while (f->pages[j] != SPOOR_FUNC_NONE) {
		if (f->funcs[f->pages[j]].start >> PAGE_SHIFT == page)
			return f->pages[j];
		j = (j + 1) & (f->pages_cap - 1);
	}
	id = pseudo_new(f, page);
	if (id != SPOOR_FUNC_NONE)
		f->pages[j] = id;
	return id;
}

uint32_t spoor_funcs_find(struct spoor_funcs *f, uint64_t addr)
{
	const char *name;
	uint64_t off;
	uint32_t id;

	if (!f)
		return SPOOR_FUNC_NONE;
	if (!spoor_image_symbol(f->img, addr, &name, &off)) {
		id = symbol_at(f, addr - off);
		if (id != SPOOR_FUNC_NONE)
			return id;
	}
	return pseudo_find(f, addr);
}

/* Classifies the instruction at @addr into @bi (INVALID when the image lacks it). */
static void classify_last(const struct spoor_funcs *f, uint64_t addr, struct spoor_block_info *bi)
{
	struct spoor_insn in;

	bi->last_cls = SPOOR_INSN_INVALID;
	bi->last_flags = 0;
	if (spoor_image_insn(f->img, addr, f->xlen, &in) < 0)
		return;
	bi->last_cls = in.cls;
	bi->last_flags = in.flags;
}

const struct spoor_block_info *spoor_funcs_block(struct spoor_funcs *f,
						 const struct spoor_block *b)
{
	struct cache_entry *e;
	size_t slot;

	if (!f || !b)
		return NULL;
	slot = (size_t)(((b->start ^ (b->last << 7)) * UINT64_C(0x9e3779b97f4a7c15)) >>
			(64 - CACHE_BITS));
	e = &f->cache[slot];
	if (e->used && e->start == b->start && e->last == b->last)
		return &e->info;
	e->info.func = spoor_funcs_find(f, b->start);
	e->info.last_func = b->last == b->start ? e->info.func : spoor_funcs_find(f, b->last);
	if (e->info.func == SPOOR_FUNC_NONE || e->info.last_func == SPOOR_FUNC_NONE) {
		e->used = false;
		return NULL;
	}
	classify_last(f, b->last, &e->info);
	e->start = b->start;
	e->last = b->last;
	e->used = true;
	return &e->info;
}
