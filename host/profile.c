// SPDX-License-Identifier: MIT
/*
 * Profiles: the call tree of calls.c written as callgrind files, folded
 * stacks and a flat top-N.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json_str.h"
#include "spoor/error.h"
#include "spoor/profile.h"

/* (A profile sink is a call tree with the default stack depth and node cap.) */
struct spoor_sink *spoor_profile_new(struct spoor_funcs *funcs)
{
	return spoor_calls_new(funcs, 0);
}

/* Per function, summed over the tree. */
struct flat {
	uint64_t self, insns, calls, self_time, time;
};

/* Everything the writers read, taken once. */
struct snap {
	struct spoor_calls_node *nodes;
	size_t n;
	struct flat *flat;
	size_t nfuncs;
	uint64_t total, total_time;
	bool has_time;
	uint64_t dropped;	/* call paths folded at the node cap */
	unsigned max_depth;	/* of the deepest node */
	unsigned sources;	/* roots */
};

/* Frees what snap_take() took. */
static void snap_free(struct snap *sn)
{
	free(sn->nodes);
	free(sn->flat);
}

/*
 * Takes the tree of @s into @sn; returns 0, SPOOR_E_INVAL (not a call-tree
 * sink) or SPOOR_E_NOMEM.
 */
static int snap_take(struct spoor_sink *s, struct snap *sn)
{
	struct spoor_funcs *funcs = spoor_calls_funcs(s);
	struct spoor_calls_total t;
	int ret;

	memset(sn, 0, sizeof(*sn));
	if (!funcs)
		return SPOOR_E_INVAL;
	ret = spoor_calls_total(s, &t, sizeof(t));
	if (ret)
		return ret;
	sn->total = t.insns;
	sn->total_time = t.time;
	sn->has_time = t.has_time;
	sn->dropped = t.dropped;
	sn->n = spoor_calls_count(s);
	sn->nfuncs = spoor_funcs_count(funcs);
	sn->nodes = calloc(sn->n ? sn->n : 1, sizeof(*sn->nodes));
	sn->flat = calloc(sn->nfuncs ? sn->nfuncs : 1, sizeof(*sn->flat));
	if (!sn->nodes || !sn->flat) {
		snap_free(sn);
		return SPOOR_E_NOMEM;
	}
	for (size_t i = 0; i < sn->n; i++) {
		struct spoor_calls_node *nd = &sn->nodes[i];
		struct flat *f;

		ret = spoor_calls_node(s, (uint32_t)i, nd, sizeof(*nd));
		if (ret) {
			snap_free(sn);
			return ret;
		}
		if (nd->depth > sn->max_depth)
			sn->max_depth = nd->depth;
		if (nd->parent == SPOOR_CALLS_NONE) {
			sn->sources++;
			continue;
		}
		if (nd->func >= sn->nfuncs)
			continue;
		f = &sn->flat[nd->func];
		f->self += nd->self;
		f->self_time += nd->self_time;
		if (nd->outermost) {
			f->insns += nd->insns;
			f->time += nd->time;
		}
		if (nd->kind == SPOOR_CS_CALL)
			f->calls += nd->count;
	}
	return 0;
}

/* ---- folded stacks ------------------------------------------------------ */

/* Writes one frame of a folded path. */
static void folded_frame(FILE *out, const struct spoor_sink *s, const struct spoor_calls_node *nd)
{
	if (nd->kind == SPOOR_CS_TRAP || nd->kind == SPOOR_CS_INTERRUPT)
		fprintf(out, "[%s %" PRIu64 "] ", nd->interrupt ? "interrupt" : "trap", nd->cause);
	/* ';' separates frames: a name must not hold one. */
	for (const char *p = spoor_calls_func_name(s, nd->func); *p; p++)
		fputc(*p == ';' ? ':' : *p, out);
}

int spoor_profile_write_folded(struct spoor_sink *s, FILE *out)
{
	struct snap sn;
	uint32_t *path;
	int ret;

	if (!out)
		return SPOOR_E_INVAL;
	ret = snap_take(s, &sn);
	if (ret)
		return ret;
	path = malloc((sn.max_depth + 1) * sizeof(*path));
	if (!path) {
		snap_free(&sn);
		return SPOOR_E_NOMEM;
	}
	for (size_t i = 0; i < sn.n; i++) {
		const struct spoor_calls_node *nd = &sn.nodes[i];
		unsigned k = 0;

		if (nd->parent == SPOOR_CALLS_NONE || !nd->self)
			continue;
		for (uint32_t a = (uint32_t)i; sn.nodes[a].parent != SPOOR_CALLS_NONE;
		     a = sn.nodes[a].parent)
			path[k++] = a;
		if (sn.sources > 1)
			fprintf(out, "source %" PRIu32 ";", nd->source);
		while (k-- > 0) {
			folded_frame(out, s, &sn.nodes[path[k]]);
			if (k)
				fputc(';', out);
		}
		fprintf(out, " %" PRIu64 "\n", nd->self);
	}
	free(path);
	snap_free(&sn);
	return json_str_out_check(out);
}

/* ---- flat top-N --------------------------------------------------------- */

/* A function while the flat profile is sorted: its keys, and its number. */
struct flat_key {
	uint64_t self, insns;
	uint32_t func;
};

/* Returns the order of two functions: exclusive instructions down, inclusive down, number up. */
static int flat_cmp(const void *a, const void *b)
{
	const struct flat_key *x = a, *y = b;

	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	if (x->insns != y->insns)
		return x->insns > y->insns ? -1 : 1;
	return x->func < y->func ? -1 : x->func > y->func;
}

/* Returns @part as a percentage of @whole. */
static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

int spoor_profile_write_top(struct spoor_sink *s, FILE *out, unsigned n)
{
	struct flat_key *ids;
	size_t k = 0;
	struct snap sn;
	int ret;

	if (!out)
		return SPOOR_E_INVAL;
	ret = snap_take(s, &sn);
	if (ret)
		return ret;
	ids = malloc((sn.nfuncs ? sn.nfuncs : 1) * sizeof(*ids));
	if (!ids) {
		snap_free(&sn);
		return SPOOR_E_NOMEM;
	}
	for (size_t f = 0; f < sn.nfuncs; f++)
		if (sn.flat[f].self || sn.flat[f].insns || sn.flat[f].calls)
			ids[k++] = (struct flat_key){ .self = sn.flat[f].self,
						      .insns = sn.flat[f].insns,
						      .func = (uint32_t)f };
	if (k > 1)
		qsort(ids, k, sizeof(*ids), flat_cmp);
	fprintf(out, "instructions: %" PRIu64, sn.total);
	if (sn.has_time)
		fprintf(out, ", time: %" PRIu64 " ticks", sn.total_time);
	fprintf(out, ", functions: %zu", k);
	if (sn.dropped)
		fprintf(out, ", dropped paths: %" PRIu64, sn.dropped);
	fputc('\n', out);
	fprintf(out, "%14s %6s %14s %6s %10s", "exclusive", "%", "inclusive", "%", "calls");
	if (sn.has_time)
		fprintf(out, " %12s %6s %12s %6s", "excl time", "%", "incl time", "%");
	fputs("  function\n", out);
	if (n && k > n)
		k = n;
	for (size_t i = 0; i < k; i++) {
		const struct flat *f = &sn.flat[ids[i].func];

		fprintf(out, "%14" PRIu64 " %6.2f %14" PRIu64 " %6.2f %10" PRIu64, f->self,
			pct(f->self, sn.total), f->insns, pct(f->insns, sn.total), f->calls);
		if (sn.has_time)
			fprintf(out, " %12" PRIu64 " %6.2f %12" PRIu64 " %6.2f", f->self_time,
				pct(f->self_time, sn.total_time), f->time,
				pct(f->time, sn.total_time));
		fprintf(out, "  %s\n", spoor_calls_func_name(s, ids[i].func));
	}
	free(ids);
	snap_free(&sn);
	return json_str_out_check(out);
}

/* ---- callgrind ---------------------------------------------------------- */

/* A call arc: caller function to callee function, summed over the tree. */
struct arc {
	uint32_t from, to;
	uint64_t calls, insns, time;
};

/* Returns the order of two arcs: by caller, then callee. */
static int arc_cmp(const void *a, const void *b)
{
	const struct arc *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

/* Where a function is: its file and first line (from DWARF, or "???" and 0). */
struct pos {
	const char *file;
	int line;
	bool known;
};

/* Returns the position of function @func, looked up on first use. */
static const struct pos *func_pos(struct spoor_funcs *funcs, struct pos *pos, uint32_t func)
{
	struct pos *p = &pos[func];

	if (!p->known) {
		const struct spoor_func *f = spoor_funcs_get(funcs, func);

		p->known = true;
		p->file = "???";
		p->line = 0;
		if (f && !f->pseudo &&
		    spoor_image_line(spoor_funcs_image(funcs), f->start, &p->file, &p->line)) {
			p->file = "???";
			p->line = 0;
		}
		if (p->line < 0)
			p->line = 0;
	}
	return p;
}

/* Writes a name after its "fn=" and the like (no line breaks in it). */
static void cg_name(FILE *out, const char *key, const char *name)
{
	fputs(key, out);
	for (const char *p = name; *p; p++)
		fputc(*p == '\n' || *p == '\r' ? ' ' : *p, out);
	fputc('\n', out);
}

/* Collects the arcs of the tree, merged, into *@out; returns their number or -1. */
static long arcs_take(const struct snap *sn, struct arc **out)
{
	struct arc *a = malloc((sn->n ? sn->n : 1) * sizeof(*a));
	size_t k = 0, m = 0;

	if (!a)
		return -1;
	for (size_t i = 0; i < sn->n; i++) {
		const struct spoor_calls_node *nd = &sn->nodes[i];
		const struct spoor_calls_node *p;

		if (nd->parent == SPOOR_CALLS_NONE)
			continue;
		p = &sn->nodes[nd->parent];
		if (p->parent == SPOOR_CALLS_NONE || !nd->count)
			continue;	/* a bottom frame: nothing called it */
		a[k] = (struct arc){ .from = p->func, .to = nd->func, .calls = nd->count,
				     .insns = nd->insns, .time = nd->time };
		/*
		 * Self-recursion: only the calls the outermost activation makes
		 * carry their inclusive cost; the deeper ones are inside those
		 * already (as the flat inclusive counts recursion once).
		 */
		if (p->func == nd->func && !p->outermost)
			a[k].insns = a[k].time = 0;
		k++;
	}
	if (k > 1)
		qsort(a, k, sizeof(*a), arc_cmp);
	for (size_t i = 0; i < k; i++) {
		if (m && a[m - 1].from == a[i].from && a[m - 1].to == a[i].to) {
			a[m - 1].calls += a[i].calls;
			a[m - 1].insns += a[i].insns;
			a[m - 1].time += a[i].time;
		} else {
			a[m++] = a[i];
		}
	}
	*out = a;
	return (long)m;
}

int spoor_profile_write_callgrind(struct spoor_sink *s, FILE *out, const char *cmd_line)
{
	struct spoor_funcs *funcs = spoor_calls_funcs(s);
	struct arc *arcs = NULL;
	struct pos *pos = NULL;
	struct snap sn;
	size_t j = 0;
	long na;
	int ret;

	if (!out)
		return SPOOR_E_INVAL;
	ret = snap_take(s, &sn);
	if (ret)
		return ret;
	na = arcs_take(&sn, &arcs);
	pos = calloc(sn.nfuncs ? sn.nfuncs : 1, sizeof(*pos));
	if (na < 0 || !pos) {
		ret = SPOOR_E_NOMEM;
		goto out;
	}
	fputs("# callgrind format\nversion: 1\ncreator: spoor\n", out);
	if (cmd_line)
		cg_name(out, "cmd: ", cmd_line);
	fprintf(out, "positions: line\nevents: Ir%s\n", sn.has_time ? " Time" : "");
	fprintf(out, "summary: %" PRIu64, sn.total);
	if (sn.has_time)
		fprintf(out, " %" PRIu64, sn.total_time);
	fputc('\n', out);
	for (uint32_t f = 0; f < sn.nfuncs; f++) {
		const struct flat *fl = &sn.flat[f];
		const struct pos *p;

		while (j < (size_t)na && arcs[j].from < f)
			j++;
		if (!fl->self && !fl->self_time && (j == (size_t)na || arcs[j].from != f))
			continue;
		p = func_pos(funcs, pos, f);
		fputc('\n', out);
		cg_name(out, "fl=", p->file);
		cg_name(out, "fn=", spoor_calls_func_name(s, f));
		fprintf(out, "%d %" PRIu64, p->line, fl->self);
		if (sn.has_time)
			fprintf(out, " %" PRIu64, fl->self_time);
		fputc('\n', out);
		for (; j < (size_t)na && arcs[j].from == f; j++) {
			const struct pos *q = func_pos(funcs, pos, arcs[j].to);

			cg_name(out, "cfi=", q->file);
			cg_name(out, "cfn=", spoor_calls_func_name(s, arcs[j].to));
			fprintf(out, "calls=%" PRIu64 " %d\n%d %" PRIu64, arcs[j].calls, q->line,
				p->line, arcs[j].insns);
			if (sn.has_time)
				fprintf(out, " %" PRIu64, arcs[j].time);
			fputc('\n', out);
		}
	}
	fprintf(out, "\ntotals: %" PRIu64, sn.total);
	if (sn.has_time)
		fprintf(out, " %" PRIu64, sn.total_time);
	fputc('\n', out);
	ret = json_str_out_check(out);
out:
	free(arcs);
	free(pos);
	snap_free(&sn);
	return ret;
}
