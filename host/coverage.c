// SPDX-License-Identifier: MIT
/*
 * Coverage: a hash table of the distinct blocks retired (first and last
 * instruction → executions, taken, not taken), spread over the program's
 * instructions, source lines and conditional branches when written out.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "json_str.h"
#include "spoor/coverage.h"
#include "spoor/error.h"
#include "spoor/insn.h"

#define NO_FILE UINT32_MAX
#define PENDING 8		/* sources with a trap event awaiting its block */
#define NAME_MAX_COL 40		/* widest function column of the summary */
#define SOURCE_COL 24		/* the summary's source column */
#define TOP_NAME_COL 28		/* the live view's function column */

/* A distinct block; count 0: an empty slot. */
struct cov_block {
	uint64_t start, last;
	uint64_t count;		/* executions */
	uint64_t taken, not_taken;	/* of them, ending at a conditional branch so */
};

/* An instruction of a function symbol (the program map, built on first output). */
struct cov_insn {
	uint64_t addr;
	uint32_t func;		/* spoor_funcs number */
	uint32_t file;		/* index into files, or NO_FILE */
	int line;
	uint8_t len, cls;
};

/* An instruction retired outside the program map (unknown code). */
struct cov_extra {
	uint64_t addr;
	uint64_t count, taken, not_taken;
	uint32_t func;
};

/* What one function amounts to (a summary row). */
struct cov_fstat {
	uint64_t insns_hit, insns;
	uint64_t lines_hit, lines;
	uint64_t br_hit, br;
	uint64_t calls;		/* executions of its first instruction */
	uint64_t retired;	/* instructions retired in it */
	uint32_t file;		/* file of its first instruction with a line, or NO_FILE */
	int line;
};

/* A trap event whose block (the one the trap ends) has not come yet. */
struct cov_pending {
	uint32_t source;
	bool used, has_epc;
	uint64_t epc;
};

struct spoor_coverage {
	struct spoor_sink sink;
	struct spoor_funcs *funcs;
	struct spoor_image *img;
	unsigned xlen;
	/* the blocks: open addressing, cap a power of 2, at most half full */
	struct cov_block *tab;
	size_t cap, used;
	unsigned shift;		/* 64 - log2(cap) */
	uint64_t retired;
	struct cov_pending pending[PENDING];
	unsigned npending;
	/* the program map (every instruction of every function symbol) */
	bool mapped;
	struct cov_insn *insns;
	size_t ninsns;
	const char **files;
	size_t nfiles, files_cap;
	/* the expansion: counts per map instruction, unknown code, per function */
	uint64_t *count, *taken, *not_taken;
	struct cov_extra *extra;
	size_t nextra, extra_cap;
	struct cov_fstat *fstat;
	size_t nfstat;
	struct spoor_coverage_totals totals;
};

static const struct spoor_sink_ops cov_ops;

/* Returns the coverage sink @s is, or NULL when it is none. */
static struct spoor_coverage *cov_of(struct spoor_sink *s)
{
	return s && s->ops == &cov_ops ? (struct spoor_coverage *)s : NULL;
}

/* Returns the slot of block (@start, @last) in @tab (found, or the empty one for it). */
static inline struct cov_block *slot_of(struct cov_block *tab, size_t cap, unsigned shift,
					uint64_t start, uint64_t last)
{
	size_t j = (size_t)(((start ^ (last << 17)) * UINT64_C(0x9e3779b97f4a7c15)) >> shift);

	while (tab[j].count && (tab[j].start != start || tab[j].last != last))
		j = (j + 1) & (cap - 1);
	return &tab[j];
}

/* Doubles the block table; returns 0 or SPOOR_E_NOMEM. */
static int tab_grow(struct spoor_coverage *c)
{
	size_t cap = c->cap ? 2 * c->cap : 1024, i;
	unsigned shift = c->cap ? c->shift - 1 : 64 - 10;
	struct cov_block *tab = calloc(cap, sizeof(*tab));

	if (!tab)
		return SPOOR_E_NOMEM;
	for (i = 0; i < c->cap; i++)
		if (c->tab[i].count)
			*slot_of(tab, cap, shift, c->tab[i].start, c->tab[i].last) = c->tab[i];
	free(c->tab);
	c->tab = tab;
	c->cap = cap;
	c->shift = shift;
	return 0;
}

/* Returns the pending trap of @source (taking it), or NULL. */
static struct cov_pending *pending_take(struct spoor_coverage *c, uint32_t source)
{
	for (unsigned i = 0; i < PENDING; i++) {
		if (c->pending[i].used && c->pending[i].source == source) {
			c->pending[i].used = false;
			c->npending--;
			return &c->pending[i];
		}
	}
	return NULL;
}

/*
 * A block of @source ending in a trap: when its last instruction is a
 * conditional branch, the trap event's EPC (the instruction that would
 * have retired next) tells which way it went.
 */
static void trap_branch(struct spoor_coverage *c, uint32_t source, const struct spoor_block *b,
			struct cov_block *e)
{
	const struct spoor_block_info *bi;
	struct cov_pending *p = pending_take(c, source);

	if (!p || !p->has_epc || b->end != SPOOR_BLK_TRAP)
		return;
	bi = spoor_funcs_block(c->funcs, b);
	if (!bi || bi->last_cls != SPOOR_INSN_BRANCH)
		return;
	if (p->epc == b->last + b->last_len)
		e->not_taken++;
	else
		e->taken++;
}

/* The hot path: one table lookup per block. */
static void cov_blocks(struct spoor_sink *s, uint32_t source, const struct spoor_block *b,
		       size_t n)
{
	struct spoor_coverage *c = (struct spoor_coverage *)s;

	for (size_t i = 0; i < n; i++) {
		struct cov_block *e;

		if (2 * (c->used + 1) > c->cap && tab_grow(c)) {
			if (!s->error)
				s->error = SPOOR_E_NOMEM;
			continue;
		}
		e = slot_of(c->tab, c->cap, c->shift, b[i].start, b[i].last);
		if (!e->count) {
			e->start = b[i].start;
			e->last = b[i].last;
			c->used++;
		}
		e->count++;
		c->retired += b[i].ninsn;
		if (b[i].end == SPOOR_BLK_TAKEN)
			e->taken++;
		else if (b[i].end == SPOOR_BLK_NOT_TAKEN)
			e->not_taken++;
		if (c->npending)
			trap_branch(c, source, &b[i], e);
	}
}

/* Events: a trap's EPC is kept for the block it ends (which comes next). */
static void cov_event(struct spoor_sink *s, const struct spoor_dec_item *it)
{
	struct spoor_coverage *c = (struct spoor_coverage *)s;
	struct cov_pending *p;
	unsigned i;

	if (it->event.kind != SPOOR_EV_TRAP && it->event.kind != SPOOR_EV_GAP)
		return;
	p = pending_take(c, it->source);
	if (it->event.kind != SPOOR_EV_TRAP)
		return;
	if (!p) {
		for (i = 0; i < PENDING && c->pending[i].used; i++)
			;
		if (i == PENDING)
			return;	/* more harts trapping at once than slots: no outcome */
		p = &c->pending[i];
	}
	p->used = true;
	p->source = it->source;
	p->has_epc = it->event.has_epc;
	p->epc = it->event.epc;
	c->npending++;
}

/* An unrelated trace follows: nothing but pending traps to forget. */
static void cov_restart(struct spoor_sink *s)
{
	struct spoor_coverage *c = (struct spoor_coverage *)s;

	memset(c->pending, 0, sizeof(c->pending));
	c->npending = 0;
}

/* Frees the program map and the counts over it: as before build_map(). */
static void map_free(struct spoor_coverage *c)
{
	free(c->insns);
	free(c->files);
	free(c->count);
	free(c->taken);
	free(c->not_taken);
	c->insns = NULL;
	c->files = NULL;
	c->count = c->taken = c->not_taken = NULL;
	c->ninsns = c->nfiles = c->files_cap = 0;
	c->mapped = false;
}

/* Frees the sink: its blocks, program map and expansion. */
static void cov_free(struct spoor_sink *s)
{
	struct spoor_coverage *c = (struct spoor_coverage *)s;

	free(c->tab);
	map_free(c);
	free(c->extra);
	free(c->fstat);
	free(c);
}

static const struct spoor_sink_ops cov_ops = {
	.name = "coverage",
	.blocks = cov_blocks,
	.event = cov_event,
	.restart = cov_restart,
	.free = cov_free,
};

/* Returns a new coverage sink over @funcs (coverage.h). */
struct spoor_sink *spoor_coverage_new(struct spoor_funcs *funcs)
{
	struct spoor_coverage *c;

	if (!funcs || !spoor_funcs_image(funcs))
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->sink.ops = &cov_ops;
	c->funcs = funcs;
	c->img = spoor_funcs_image(funcs);
	c->xlen = spoor_funcs_xlen(funcs);
	if (tab_grow(c)) {
		free(c);
		return NULL;
	}
	return &c->sink;
}

/* ---- the program map ---------------------------------------------------- */

/*
 * Decodes the instruction at @addr into @in.  Returns its length, or 0
 * when the image has no valid instruction there.
 */
static unsigned insn_at(const struct spoor_coverage *c, uint64_t addr, struct spoor_insn *in)
{
	int n = spoor_image_insn(c->img, addr, c->xlen, in);

	return n > 0 ? (unsigned)n : 0;
}

/*
 * Like insn_at(), but an invalid instruction gives its length too (the
 * encoding's, 2 for longer ones) with in->cls SPOOR_INSN_INVALID.  Returns
 * 0 only where the image has no bytes.
 */
static unsigned insn_len_at(const struct spoor_coverage *c, uint64_t addr, struct spoor_insn *in)
{
	int n = spoor_image_insn(c->img, addr, c->xlen, in);

	if (n > 0 || n == SPOOR_E_NO_IMAGE || n == SPOOR_E_INVAL)
		return n > 0 ? (unsigned)n : 0;
	return in->len == 4 ? 4 : 2;
}

/* Returns the index of source file @name (added if new), or NO_FILE (no memory). */
static uint32_t file_index(struct spoor_coverage *c, const char *name)
{
	size_t i;

	for (i = c->nfiles; i-- > 0;)
		if (c->files[i] == name || !strcmp(c->files[i], name))
			return (uint32_t)i;
	if (c->nfiles == c->files_cap) {
		size_t cap = c->files_cap ? 2 * c->files_cap : 16;
		const char **files = realloc(c->files, cap * sizeof(*files));

		if (!files)
			return NO_FILE;
		c->files = files;
		c->files_cap = cap;
	}
	c->files[c->nfiles] = name;
	return (uint32_t)c->nfiles++;
}

/* Orders instructions by address. */
static int insn_cmp(const void *a, const void *b)
{
	const struct cov_insn *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

/*
 * Appends @in to the map, whose allocated size is *@cap.  Returns 0 or
 * SPOOR_E_NOMEM.
 */
static int map_push(struct spoor_coverage *c, size_t *cap, const struct cov_insn *in)
{
	if (c->ninsns == *cap) {
		size_t ncap = *cap ? 2 * *cap : 1024;
		struct cov_insn *ni = realloc(c->insns, ncap * sizeof(*ni));

		if (!ni)
			return SPOOR_E_NOMEM;
		c->insns = ni;
		*cap = ncap;
	}
	c->insns[c->ninsns++] = *in;
	return 0;
}

/*
 * Adds to the map the instructions of [@addr, @end) in the pseudo function
 * of their page: all of them (@need_line false), or only those with line
 * information.  Stops where the image has no bytes.  Returns 0 or
 * SPOOR_E_NOMEM.
 */
static int map_range(struct spoor_coverage *c, size_t *cap, uint64_t addr, uint64_t end,
		     bool need_line)
{
	struct spoor_insn in;
	unsigned len;

	for (; addr < end && (len = insn_len_at(c, addr, &in)) != 0; addr += len) {
		struct cov_insn ci = {
			.addr = addr, .file = NO_FILE, .len = (uint8_t)len, .cls = in.cls,
		};
		const char *file;
		int line;

		if (in.cls == SPOOR_INSN_INVALID)
			continue;
		if (!spoor_image_line(c->img, addr, &file, &line)) {
			ci.file = file_index(c, file);
			ci.line = line;
			if (ci.file == NO_FILE)
				return SPOOR_E_NOMEM;
		} else if (need_line) {
			continue;
		}
		ci.func = spoor_funcs_find(c->funcs, addr);
		if (ci.func == SPOOR_FUNC_NONE || map_push(c, cap, &ci))
			return SPOOR_E_NOMEM;
	}
	return 0;
}

/*
 * Adds to the map the code between function symbols that has line
 * information (a function whose symbol is gone), in the pseudo function of
 * its page.  Returns 0 or SPOOR_E_NOMEM.
 */
static int map_gaps(struct spoor_coverage *c, size_t *cap)
{
	size_t nsyms = spoor_funcs_symbols(c->funcs);
	uint64_t covered = 0;
	int err;

	for (uint32_t id = 0; id + 1 < nsyms; id++) {
		const struct spoor_func *fn = spoor_funcs_get(c->funcs, id);
		uint64_t next = spoor_funcs_get(c->funcs, id + 1)->start;

		if (fn->end > covered)
			covered = fn->end;
		if (covered < next && (err = map_range(c, cap, covered, next, true)))
			return err;
	}
	return 0;
}

/* Returns true when a function symbol starts in [@start, @end). */
static bool has_symbols(const struct spoor_coverage *c, uint64_t start, uint64_t end)
{
	size_t lo = 0, hi = spoor_funcs_symbols(c->funcs);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (spoor_funcs_get(c->funcs, (uint32_t)mid)->start < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < spoor_funcs_symbols(c->funcs) &&
	       spoor_funcs_get(c->funcs, (uint32_t)lo)->start < end;
}

/*
 * Adds to the map every instruction of each executable segment that holds
 * no function symbol (a stripped program), in the pseudo function of its
 * page: what can run there, so that what never ran is counted too.  A
 * linear sweep: data in the segment (.rodata) may decode as instructions.
 * Returns 0 or SPOOR_E_NOMEM.
 */
static int map_bare_segments(struct spoor_coverage *c, size_t *cap)
{
	uint64_t start, end;
	int err;

	for (size_t i = 0; !spoor_image_segment_at(c->img, i, &start, &end); i++)
		if (!has_symbols(c, start, end) && (err = map_range(c, cap, start, end, false)))
			return err;
	return 0;
}

/*
 * Adds to the map every instruction of every function symbol, walked from
 * its start to its end (or the end of the image's bytes), each with its
 * source line.  Returns 0 or SPOOR_E_NOMEM.
 */
static int map_symbols(struct spoor_coverage *c, size_t *cap)
{
	size_t nsyms = spoor_funcs_symbols(c->funcs);
	uint32_t last_file = NO_FILE;
	const char *last_name = NULL;

	for (uint32_t id = 0; id < nsyms; id++) {
		const struct spoor_func *fn = spoor_funcs_get(c->funcs, id);
		uint64_t addr = fn->start, end = fn->end;
		struct spoor_insn in;
		unsigned len;

		for (; addr < end && (len = insn_len_at(c, addr, &in)) != 0; addr += len) {
			struct cov_insn ci = {
				.addr = addr, .func = id, .file = NO_FILE, .len = (uint8_t)len,
				.cls = in.cls,
			};
			const char *file;
			int line;

			/*
			 * Bytes that are no instruction (an unimp, data) are
			 * stepped over; nested symbols: the instruction is the
			 * function lookups give.
			 */
			if (in.cls == SPOOR_INSN_INVALID || spoor_funcs_find(c->funcs, addr) != id)
				continue;
			if (!spoor_image_line(c->img, addr, &file, &line)) {
				if (file != last_name || last_file == NO_FILE) {
					last_file = file_index(c, file);
					last_name = file;
					if (last_file == NO_FILE)
						return SPOOR_E_NOMEM;
				}
				ci.file = last_file;
				ci.line = line;
			}
			if (map_push(c, cap, &ci))
				return SPOOR_E_NOMEM;
		}
	}
	return 0;
}

/*
 * Builds the program map (map_symbols(), map_gaps(), map_bare_segments()),
 * by address, and its zeroed counts.  Returns 0, or SPOOR_E_NOMEM with no
 * map (map_free()): the next call starts over.
 */
static int build_map(struct spoor_coverage *c)
{
	size_t cap = 0, n;
	int err;

	if ((err = map_symbols(c, &cap)) || (err = map_gaps(c, &cap)) ||
	    (err = map_bare_segments(c, &cap)))
		goto fail;
	n = c->ninsns;
	if (n > 1)
		qsort(c->insns, n, sizeof(*c->insns), insn_cmp);
	c->count = calloc(n ? n : 1, sizeof(*c->count));
	c->taken = calloc(n ? n : 1, sizeof(*c->taken));
	c->not_taken = calloc(n ? n : 1, sizeof(*c->not_taken));
	if (!c->count || !c->taken || !c->not_taken) {
		err = SPOOR_E_NOMEM;
		goto fail;
	}
	c->mapped = true;
	return 0;
fail:
	map_free(c);
	return err;
}

/* Returns the index of the first map instruction at or above @addr. */
static size_t map_lower(const struct spoor_coverage *c, uint64_t addr)
{
	size_t lo = 0, hi = c->ninsns;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->insns[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Adds an instruction of unknown code; returns 0 or SPOOR_E_NOMEM. */
static int extra_add(struct spoor_coverage *c, uint64_t addr, const struct cov_block *e,
		     bool last)
{
	if (c->nextra == c->extra_cap) {
		size_t cap = c->extra_cap ? 2 * c->extra_cap : 256;
		struct cov_extra *x = realloc(c->extra, cap * sizeof(*x));

		if (!x)
			return SPOOR_E_NOMEM;
		c->extra = x;
		c->extra_cap = cap;
	}
	c->extra[c->nextra++] = (struct cov_extra){
		.addr = addr, .count = e->count,
		.taken = last ? e->taken : 0, .not_taken = last ? e->not_taken : 0,
	};
	return 0;
}

/* Orders unknown-code instructions by address. */
static int extra_cmp(const void *a, const void *b)
{
	const struct cov_extra *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* Spreads block @e over its instructions.  Returns 0 or SPOOR_E_NOMEM. */
static int expand_block(struct spoor_coverage *c, const struct cov_block *e)
{
	size_t i = map_lower(c, e->start);
	uint64_t addr = e->start;

	for (;;) {
		bool last = addr == e->last;
		unsigned len;

		if (i < c->ninsns && c->insns[i].addr == addr) {
			c->count[i] += e->count;
			if (last) {
				c->taken[i] += e->taken;
				c->not_taken[i] += e->not_taken;
			}
			len = c->insns[i++].len;
		} else {
			struct spoor_insn in;

			len = insn_at(c, addr, &in);
			if (!len)
				return 0;	/* the image lacks it: nothing to attribute */
			if (extra_add(c, addr, e, last))
				return SPOOR_E_NOMEM;
			while (i < c->ninsns && c->insns[i].addr <= addr)
				i++;
		}
		if (last || addr + len <= addr || addr + len > e->last)
			return 0;
		addr += len;
	}
}

/* A map instruction with a line, as the line orders sort it. */
struct line_key {
	uint32_t func, file;
	int line;
	uint32_t i;		/* index into the map */
	uint64_t addr;
};

/* Orders line keys by function, file, line, address. */
static int by_func_line(const void *a, const void *b)
{
	const struct line_key *x = a, *y = b;

	if (x->func != y->func)
		return x->func < y->func ? -1 : 1;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* Orders line keys by file, line, address. */
static int by_file_line(const void *a, const void *b)
{
	const struct line_key *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return (x->addr > y->addr) - (x->addr < y->addr);
}

/*
 * Returns the map instructions that have a line, ordered by @cmp, in *@out
 * (freed by the caller) and their number in *@n; 0 or SPOOR_E_NOMEM.
 */
static int line_order(const struct spoor_coverage *c, int (*cmp)(const void *, const void *),
		      struct line_key **out, size_t *n)
{
	struct line_key *k = malloc((c->ninsns ? c->ninsns : 1) * sizeof(*k));
	size_t m = 0;

	if (!k)
		return SPOOR_E_NOMEM;
	for (size_t i = 0; i < c->ninsns; i++) {
		const struct cov_insn *in = &c->insns[i];

		if (in->file != NO_FILE)
			k[m++] = (struct line_key){
				.func = in->func, .file = in->file, .line = in->line,
				.i = (uint32_t)i, .addr = in->addr,
			};
	}
	if (m > 1)
		qsort(k, m, sizeof(*k), cmp);
	*out = k;
	*n = m;
	return 0;
}

/* Counts the branch directions of map instruction @i into *@hit and *@found. */
static void branch_dirs(const struct spoor_coverage *c, size_t i, uint64_t *hit, uint64_t *found)
{
	if (c->insns[i].cls != SPOOR_INSN_BRANCH)
		return;
	*found += 2;
	*hit += (c->taken[i] > 0) + (c->not_taken[i] > 0);
}

/*
 * Spreads the blocks counted so far over the program: per instruction,
 * per function (fstat) and in all (totals).  Returns 0 or SPOOR_E_NOMEM.
 */
static int expand(struct spoor_coverage *c)
{
	struct spoor_coverage_totals *t = &c->totals;
	struct line_key *keys;
	size_t i, j, nf, n;
	int err;

	if (!c->mapped && (err = build_map(c)))
		return err;
	if (c->ninsns) {	/* (NULL arrays when the program has no instruction) */
		memset(c->count, 0, c->ninsns * sizeof(*c->count));
		memset(c->taken, 0, c->ninsns * sizeof(*c->taken));
		memset(c->not_taken, 0, c->ninsns * sizeof(*c->not_taken));
	}
	c->nextra = 0;
	for (i = 0; i < c->cap; i++)
		if (c->tab[i].count && (err = expand_block(c, &c->tab[i])))
			return err;
	/* Unknown code: one entry per address, in its (pseudo) function. */
	if (c->nextra > 1)
		qsort(c->extra, c->nextra, sizeof(*c->extra), extra_cmp);
	for (i = 0, j = 0; i < c->nextra; i++) {
		if (j && c->extra[j - 1].addr == c->extra[i].addr) {
			c->extra[j - 1].count += c->extra[i].count;
			c->extra[j - 1].taken += c->extra[i].taken;
			c->extra[j - 1].not_taken += c->extra[i].not_taken;
		} else {
			c->extra[j++] = c->extra[i];
		}
	}
	c->nextra = j;
	for (i = 0; i < c->nextra; i++) {
		c->extra[i].func = spoor_funcs_find(c->funcs, c->extra[i].addr);
		if (c->extra[i].func == SPOOR_FUNC_NONE)
			return SPOOR_E_NOMEM;
	}

	nf = spoor_funcs_count(c->funcs);
	free(c->fstat);
	c->fstat = calloc(nf ? nf : 1, sizeof(*c->fstat));
	if (!c->fstat)
		return SPOOR_E_NOMEM;
	c->nfstat = nf;
	memset(t, 0, sizeof(*t));
	t->retired = c->retired;
	for (i = 0; i < nf; i++)
		c->fstat[i].file = NO_FILE;
	for (i = 0; i < c->ninsns; i++) {
		const struct cov_insn *in = &c->insns[i];
		struct cov_fstat *f = &c->fstat[in->func];

		f->insns++;
		f->insns_hit += c->count[i] > 0;
		f->retired += c->count[i];
		if (in->addr == spoor_funcs_get(c->funcs, in->func)->start)
			f->calls = c->count[i];
		if (f->file == NO_FILE && in->file != NO_FILE) {
			f->file = in->file;
			f->line = in->line;
		}
		branch_dirs(c, i, &f->br_hit, &f->br);
	}
	/* A function's line is where DWARF declares it, when in its file. */
	for (i = 0; i < nf; i++) {
		struct cov_fstat *f = &c->fstat[i];
		const char *file;
		int line;

		if (f->file != NO_FILE &&
		    !spoor_image_func_line(c->img, spoor_funcs_get(c->funcs, (uint32_t)i)->start,
					   &file, &line) && !strcmp(file, c->files[f->file]))
			f->line = line;
	}
	for (i = 0; i < c->nextra; i++) {
		struct cov_fstat *f = &c->fstat[c->extra[i].func];

		f->insns++;
		f->insns_hit++;
		f->retired += c->extra[i].count;
		if (c->extra[i].addr == spoor_funcs_get(c->funcs, c->extra[i].func)->start)
			f->calls = c->extra[i].count;
	}
	/* Lines per function, then program-wide. */
	if ((err = line_order(c, by_func_line, &keys, &n)))
		return err;
	for (i = 0; i < n; i = j) {
		const struct line_key *a = &keys[i];
		bool hit = false;

		for (j = i; j < n && keys[j].func == a->func && keys[j].file == a->file &&
			    keys[j].line == a->line; j++)
			hit |= c->count[keys[j].i] > 0;
		c->fstat[a->func].lines++;
		c->fstat[a->func].lines_hit += hit;
	}
	if (n > 1)
		qsort(keys, n, sizeof(*keys), by_file_line);
	for (i = 0; i < n; i = j) {
		const struct line_key *a = &keys[i];
		bool hit = false;

		for (j = i; j < n && keys[j].file == a->file && keys[j].line == a->line; j++)
			hit |= c->count[keys[j].i] > 0;
		t->lines_found++;
		t->lines_hit += hit;
	}
	free(keys);
	for (i = 0; i < nf; i++) {
		const struct cov_fstat *f = &c->fstat[i];

		t->insns_found += f->insns;
		t->insns_hit += f->insns_hit;
		t->branches_found += f->br;
		t->branches_hit += f->br_hit;
		/*
		 * A function is hit when its first instruction retired (lcov's
		 * FNH: FNDA > 0); a pseudo one (a page of code without a
		 * symbol, no entry point) when any of its instructions did.
		 */
		if (f->insns || f->retired) {
			t->funcs_found++;
			if (spoor_funcs_get(c->funcs, (uint32_t)i)->pseudo)
				t->funcs_hit += f->retired > 0;
			else
				t->funcs_hit += f->calls > 0;
		}
	}
	return 0;
}

/* ---- output -------------------------------------------------------------- */

/* Writes @name with what an lcov test name may not hold as '_'. */
static void put_test_name(FILE *out, const char *name)
{
	for (; *name; name++) {
		char ch = *name;

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '_'))
			ch = '_';
		fputc(ch, out);
	}
}

/* A source file as the lcov file orders it. */
struct file_key {
	const char *name;
	uint32_t file;
};

/* Orders files by name. */
static int file_key_cmp(const void *a, const void *b)
{
	return strcmp(((const struct file_key *)a)->name, ((const struct file_key *)b)->name);
}

/* A function as its file's FN records order it. */
struct fn_key {
	int line;
	uint64_t addr;
	uint32_t func;
};

/* Orders functions by line, then address. */
static int fn_key_cmp(const void *a, const void *b)
{
	const struct fn_key *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* Writes one SF record: file @file's functions, branches and lines. */
static void lcov_file(struct spoor_coverage *c, FILE *out, uint32_t file,
		      const struct line_key *keys, size_t n, const struct fn_key *fns,
		      size_t nfns)
{
	uint64_t fnh = 0, brf = 0, brh = 0, lh = 0, lf = 0;
	size_t i, j, k;

	fprintf(out, "SF:%s\n", c->files[file]);
	for (k = 0; k < nfns; k++)
		fprintf(out, "FN:%d,%s\n", fns[k].line, spoor_funcs_get(c->funcs, fns[k].func)->name);
	for (k = 0; k < nfns; k++) {
		uint64_t calls = c->fstat[fns[k].func].calls;

		fprintf(out, "FNDA:%" PRIu64 ",%s\n", calls,
			spoor_funcs_get(c->funcs, fns[k].func)->name);
		fnh += calls > 0;
	}
	fprintf(out, "FNF:%zu\nFNH:%" PRIu64 "\n", nfns, fnh);
	for (i = 0; i < n; i = j) {
		int line = keys[i].line;
		unsigned blk = 0;

		for (j = i; j < n && keys[j].line == line; j++) {
			size_t x = keys[j].i;

			if (c->insns[x].cls != SPOOR_INSN_BRANCH)
				continue;
			if (c->taken[x] || c->not_taken[x])
				fprintf(out, "BRDA:%d,%u,0,%" PRIu64 "\nBRDA:%d,%u,1,%" PRIu64 "\n",
					line, blk, c->taken[x], line, blk, c->not_taken[x]);
			else
				fprintf(out, "BRDA:%d,%u,0,-\nBRDA:%d,%u,1,-\n", line, blk, line, blk);
			brf += 2;
			brh += (c->taken[x] > 0) + (c->not_taken[x] > 0);
			blk++;
		}
	}
	fprintf(out, "BRF:%" PRIu64 "\nBRH:%" PRIu64 "\n", brf, brh);
	for (i = 0; i < n; i = j) {
		int line = keys[i].line;
		uint64_t max = 0;

		for (j = i; j < n && keys[j].line == line; j++)
			if (c->count[keys[j].i] > max)
				max = c->count[keys[j].i];
		fprintf(out, "DA:%d,%" PRIu64 "\n", line, max);
		lf++;
		lh += max > 0;
	}
	fprintf(out, "LF:%" PRIu64 "\nLH:%" PRIu64 "\nend_of_record\n", lf, lh);
}

/* Writes the lcov tracefile (coverage.h). */
int spoor_coverage_write_lcov(struct spoor_sink *s, FILE *out, const char *test_name)
{
	struct spoor_coverage *c = cov_of(s);
	struct file_key *files = NULL;
	struct line_key *keys = NULL;
	struct fn_key *fns = NULL;
	size_t n, i, nsyms;
	int err;

	if (!c || !out)
		return SPOOR_E_INVAL;
	if ((err = expand(c)))
		return err;
	if (!c->nfiles)
		return SPOOR_E_NOT_FOUND;	/* no lines: a file lcov rejects */
	if ((err = line_order(c, by_file_line, &keys, &n)))
		return err;
	nsyms = spoor_funcs_symbols(c->funcs);
	files = malloc((c->nfiles ? c->nfiles : 1) * sizeof(*files));
	fns = malloc((nsyms ? nsyms : 1) * sizeof(*fns));
	if (!files || !fns) {
		err = SPOOR_E_NOMEM;
		goto out;
	}
	for (i = 0; i < c->nfiles; i++)
		files[i] = (struct file_key){ .name = c->files[i], .file = (uint32_t)i };
	if (c->nfiles > 1)
		qsort(files, c->nfiles, sizeof(*files), file_key_cmp);
	fputs("TN:", out);
	if (test_name)
		put_test_name(out, test_name);
	fputc('\n', out);
	for (i = 0; i < c->nfiles; i++) {
		uint32_t file = files[i].file;
		size_t lo = 0, hi, nfns = 0;

		/* keys are by file number: the run of this file. */
		while (lo < n && keys[lo].file != file)
			lo++;
		for (hi = lo; hi < n && keys[hi].file == file; hi++)
			;
		for (uint32_t f = 0; f < nsyms; f++)
			if (c->fstat[f].file == file)
				fns[nfns++] = (struct fn_key){
					.line = c->fstat[f].line,
					.addr = spoor_funcs_get(c->funcs, f)->start, .func = f,
				};
		if (nfns > 1)
			qsort(fns, nfns, sizeof(*fns), fn_key_cmp);
		lcov_file(c, out, file, keys + lo, hi - lo, fns, nfns);
	}
	err = json_str_out_check(out);
out:
	free(keys);
	free(files);
	free(fns);
	return err;
}

/* Returns the last path component of @path. */
static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Writes "HIT/FOUND PCT%" in a column of @width. */
static void put_ratio(FILE *out, uint64_t hit, uint64_t found, int width)
{
	char buf[64];

	if (found)
		snprintf(buf, sizeof(buf), "%" PRIu64 "/%" PRIu64 " %5.1f%%", hit, found,
			 100.0 * (double)hit / (double)found);
	else
		snprintf(buf, sizeof(buf), "-");
	fprintf(out, "  %*s", width, buf);
}

/*
 * Writes @s left-aligned in a column of @width: cut to width - 3 characters
 * and "..." when longer, so that the columns after it stay in place.
 */
static void put_cell(FILE *out, const char *s, int width)
{
	if ((int)strlen(s) <= width)
		fprintf(out, "%-*s", width, s);
	else
		fprintf(out, "%.*s...", width - 3, s);
}

/* A function as the summary and the live view order it. */
struct row_key {
	const char *file;	/* NULL: none (last) */
	uint64_t addr;
	uint64_t retired;
	uint32_t func;
};

/* Orders rows by file name, then address; functions without a file last. */
static int summary_cmp(const void *a, const void *b)
{
	const struct row_key *x = a, *y = b;

	if (x->file != y->file) {
		if (!x->file || !y->file)
			return !x->file ? 1 : -1;
		int d = strcmp(x->file, y->file);

		if (d)
			return d;
	}
	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* Orders rows by instructions retired, most first, then address. */
static int retired_cmp(const void *a, const void *b)
{
	const struct row_key *x = a, *y = b;

	if (x->retired != y->retired)
		return x->retired > y->retired ? -1 : 1;
	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* Writes "file:line" of function statistics @f into @buf. */
static void where(const struct spoor_coverage *c, const struct cov_fstat *f, char *buf,
		  size_t size)
{
	if (f->file == NO_FILE)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%s:%d", base_name(c->files[f->file]), f->line);
}

/* Writes the totals line. */
static void put_totals(FILE *out, const struct spoor_coverage_totals *t)
{
	fprintf(out, "coverage: instructions %" PRIu64 "/%" PRIu64 " (%.1f%%), lines %" PRIu64
		"/%" PRIu64 " (%.1f%%), branches %" PRIu64 "/%" PRIu64 " (%.1f%%), functions %"
		PRIu64 "/%" PRIu64 ", %" PRIu64 " instructions retired\n",
		t->insns_hit, t->insns_found,
		t->insns_found ? 100.0 * (double)t->insns_hit / (double)t->insns_found : 0.0,
		t->lines_hit, t->lines_found,
		t->lines_found ? 100.0 * (double)t->lines_hit / (double)t->lines_found : 0.0,
		t->branches_hit, t->branches_found,
		t->branches_found ? 100.0 * (double)t->branches_hit / (double)t->branches_found :
				    0.0,
		t->funcs_hit, t->funcs_found, t->retired);
}

/*
 * Returns the rows to show (symbols, and pseudo functions that ran) in a
 * new array *@out, ordered by @cmp; their count, or 0 with *@out NULL (no
 * memory).
 */
static size_t rows(const struct spoor_coverage *c, int (*cmp)(const void *, const void *),
		   struct row_key **out)
{
	size_t n = 0;
	struct row_key *r = malloc((c->nfstat ? c->nfstat : 1) * sizeof(*r));

	*out = r;
	if (!r)
		return 0;
	for (uint32_t f = 0; f < c->nfstat; f++) {
		const struct cov_fstat *fs = &c->fstat[f];

		/* Functions without instructions (data, pseudo ones not run). */
		if (!fs->insns && !fs->retired)
			continue;
		r[n++] = (struct row_key){
			.file = fs->file == NO_FILE ? NULL : c->files[fs->file],
			.addr = spoor_funcs_get(c->funcs, f)->start,
			.retired = fs->retired, .func = f,
		};
	}
	if (n > 1)
		qsort(r, n, sizeof(*r), cmp);
	return n;
}

/* Writes the summary table (coverage.h). */
int spoor_coverage_write_summary(struct spoor_sink *s, FILE *out)
{
	struct spoor_coverage *c = cov_of(s);
	struct row_key *r;
	char loc[256];
	size_t n, i, never = 0;
	int err, w = 8;

	if (!c || !out)
		return SPOOR_E_INVAL;
	if ((err = expand(c)))
		return err;
	n = rows(c, summary_cmp, &r);
	if (!r)
		return SPOOR_E_NOMEM;
	for (i = 0; i < n; i++) {
		int len = (int)strlen(spoor_funcs_get(c->funcs, r[i].func)->name);

		if (len > w)
			w = len > NAME_MAX_COL ? NAME_MAX_COL : len;
	}
	fprintf(out, "%-*s  %-*s  %20s  %20s  %20s  %10s\n", w, "function", SOURCE_COL,
		"source", "instructions", "lines", "branches", "calls");
	for (i = 0; i < n; i++) {
		const struct cov_fstat *f = &c->fstat[r[i].func];

		where(c, f, loc, sizeof(loc));
		put_cell(out, spoor_funcs_get(c->funcs, r[i].func)->name, w);
		fputs("  ", out);
		put_cell(out, loc, SOURCE_COL);
		put_ratio(out, f->insns_hit, f->insns, 20);
		put_ratio(out, f->lines_hit, f->lines, 20);
		put_ratio(out, f->br_hit, f->br, 20);
		fprintf(out, "  %10" PRIu64 "\n", f->calls);
	}
	fprintf(out, "%-*s  %-*s", w, "total", SOURCE_COL, "");
	put_ratio(out, c->totals.insns_hit, c->totals.insns_found, 20);
	put_ratio(out, c->totals.lines_hit, c->totals.lines_found, 20);
	put_ratio(out, c->totals.branches_hit, c->totals.branches_found, 20);
	fprintf(out, "  %10s\n", "");
	put_totals(out, &c->totals);
	for (i = 0; i < n; i++) {
		const struct cov_fstat *f = &c->fstat[r[i].func];

		if (f->retired)
			continue;
		if (!never++)
			fputs("never reached:\n", out);
		where(c, f, loc, sizeof(loc));
		fprintf(out, "  %s (%s)\n", spoor_funcs_get(c->funcs, r[i].func)->name, loc);
	}
	if (!never)
		fputs("never reached: none\n", out);
	free(r);
	return json_str_out_check(out);
}

/* Writes the live view: totals and the hottest functions (coverage.h). */
int spoor_coverage_write_top(struct spoor_sink *s, FILE *out, unsigned max)
{
	struct spoor_coverage *c = cov_of(s);
	struct row_key *r;
	size_t n, i;
	int err;

	if (!c || !out)
		return SPOOR_E_INVAL;
	if ((err = expand(c)))
		return err;
	n = rows(c, retired_cmp, &r);
	if (!r)
		return SPOOR_E_NOMEM;
	put_totals(out, &c->totals);
	if (n && max && r[0].retired)
		fprintf(out, "  %-*s %14s %18s %18s %18s\n", TOP_NAME_COL, "function", "retired",
			"instructions", "lines", "branches");
	for (i = 0; i < n && i < max && r[i].retired; i++) {
		const struct cov_fstat *f = &c->fstat[r[i].func];

		fputs("  ", out);
		put_cell(out, spoor_funcs_get(c->funcs, r[i].func)->name, TOP_NAME_COL);
		fprintf(out, " %14" PRIu64, f->retired);
		put_ratio(out, f->insns_hit, f->insns, 18);
		put_ratio(out, f->lines_hit, f->lines, 18);
		put_ratio(out, f->br_hit, f->br, 18);
		fputc('\n', out);
	}
	free(r);
	return json_str_out_check(out);
}

/* Fills @t with the totals so far (coverage.h). */
int spoor_coverage_totals(struct spoor_sink *s, struct spoor_coverage_totals *t)
{
	struct spoor_coverage *c = cov_of(s);
	int err;

	if (!c || !t)
		return SPOOR_E_INVAL;
	if ((err = expand(c)))
		return err;
	*t = c->totals;
	return 0;
}

/* Gives the counts of the instruction at @addr (coverage.h). */
int spoor_coverage_insn(struct spoor_sink *s, uint64_t addr, uint64_t *count, uint64_t *taken,
			uint64_t *not_taken)
{
	struct spoor_coverage *c = cov_of(s);
	uint64_t cnt, tk, nt;
	size_t i;
	int err;

	if (!c)
		return SPOOR_E_INVAL;
	if ((err = expand(c)))
		return err;
	i = map_lower(c, addr);
	if (i < c->ninsns && c->insns[i].addr == addr) {
		cnt = c->count[i];
		tk = c->taken[i];
		nt = c->not_taken[i];
	} else {
		struct cov_extra key = { .addr = addr };
		const struct cov_extra *x = !c->nextra ? NULL :
			bsearch(&key, c->extra, c->nextra, sizeof(*x), extra_cmp);

		if (!x)
			return SPOOR_E_NOT_FOUND;
		cnt = x->count;
		tk = x->taken;
		nt = x->not_taken;
	}
	if (count)
		*count = cnt;
	if (taken)
		*taken = tk;
	if (not_taken)
		*not_taken = nt;
	return 0;
}
