// SPDX-License-Identifier: MIT
/*
 * The call tree: a calling-context tree built from the call stacks
 * (callstack.h), one node per (parent node, function, how entered), found
 * through a small open-addressing hash; and its text and JSON writers.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json_str.h"
#include "spoor/calls.h"
#include "spoor/error.h"

#define HASH_MIN 1024
#define INDENT_MAX 64		/* levels the text indents; deeper ones say "[N] " */

struct cnode {
	uint32_t parent, func, source, depth;
	uint32_t first_child, next_sibling;
	uint8_t kind;
	bool interrupt, outermost;
	uint64_t cause;
	uint64_t count, self, self_time;
	uint64_t dropped;	/* new paths below folded into it (the node cap) */
};

struct calls_src {
	uint32_t source;
	uint32_t root;		/* its root node */
	uint32_t *path;		/* node of each frame of its stack */
	unsigned cap;
	unsigned fold;		/* frames from this depth up are folded (0: none) */
};

struct calls {
	struct spoor_sink sink;		/* first: the sink is the object */
	struct spoor_funcs *funcs;
	struct spoor_callstack *cs;
	struct cnode *nodes;
	size_t n, cap;
	uint32_t max_nodes;		/* the node cap */
	uint64_t dropped;		/* new paths folded into their caller at the cap */
	uint32_t *hash;			/* node numbers, SPOOR_CALLS_NONE: free */
	size_t hcap;			/* a power of 2 */
	struct calls_src *src;
	size_t nsrc;
	struct calls_src *cur;		/* the source being fed */
	uint64_t *incl, *incl_time;	/* inclusive counts, as of the last update */
	size_t incl_n;			/* nodes they cover */
	bool dirty;			/* counts changed since */
	bool has_time;
};

static void calls_blocks(struct spoor_sink *s, uint32_t source, const struct spoor_block *b,
			 size_t n);
static void calls_event(struct spoor_sink *s, const struct spoor_dec_item *it);
static void calls_restart(struct spoor_sink *s);
static void calls_free(struct spoor_sink *s);

static const struct spoor_sink_ops calls_ops = {
	.name = "calls", .blocks = calls_blocks, .event = calls_event,
	.restart = calls_restart, .free = calls_free,
};

/* Returns @s as a call tree, or NULL when it is none. */
static struct calls *to_calls(const struct spoor_sink *s)
{
	return s && s->ops == &calls_ops ? (struct calls *)s : NULL;
}

/* Returns the hash slot to start at for a node of this key. */
static size_t key_slot(const struct calls *c, uint32_t parent, uint32_t func, uint8_t kind,
		       uint64_t cause)
{
	uint64_t h = ((uint64_t)parent << 32 | func) * UINT64_C(0x9e3779b97f4a7c15);

	h ^= (cause * 2 + kind) * UINT64_C(0xc2b2ae3d27d4eb4f);
	return (size_t)(h >> 32) & (c->hcap - 1);
}

/* Returns whether node @nd has this key. */
static bool key_match(const struct cnode *nd, uint32_t parent, uint32_t func, uint8_t kind,
		      bool interrupt, uint64_t cause)
{
	return nd->parent == parent && nd->func == func && nd->kind == kind &&
	       nd->interrupt == interrupt && nd->cause == cause;
}

/* Doubles the hash table; returns 0 or SPOOR_E_NOMEM. */
static int hash_grow(struct calls *c)
{
	size_t cap = c->hcap ? 2 * c->hcap : HASH_MIN;
	uint32_t *h = malloc(cap * sizeof(*h));

	if (!h)
		return SPOOR_E_NOMEM;
	memset(h, 0xff, cap * sizeof(*h));
	free(c->hash);
	c->hash = h;
	c->hcap = cap;
	for (size_t i = 0; i < c->n; i++) {
		const struct cnode *nd = &c->nodes[i];
		size_t j;

		if (nd->parent == SPOOR_CALLS_NONE)
			continue;	/* roots are found by source */
		j = key_slot(c, nd->parent, nd->func, nd->kind, nd->cause);
		while (h[j] != SPOOR_CALLS_NONE)
			j = (j + 1) & (cap - 1);
		h[j] = (uint32_t)i;
	}
	return 0;
}

/* Appends a node; returns its number or SPOOR_CALLS_NONE (no memory). */
static uint32_t node_add(struct calls *c, uint32_t parent, uint32_t func, uint32_t source)
{
	struct cnode *nd;

	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 256;

		if (cap >= SPOOR_CALLS_NONE)
			return SPOOR_CALLS_NONE;
		nd = realloc(c->nodes, cap * sizeof(*nd));
		if (!nd)
			return SPOOR_CALLS_NONE;
		c->nodes = nd;
		c->cap = cap;
	}
	nd = &c->nodes[c->n];
	memset(nd, 0, sizeof(*nd));
	nd->parent = parent;
	nd->func = func;
	nd->source = source;
	nd->first_child = SPOOR_CALLS_NONE;
	nd->next_sibling = SPOOR_CALLS_NONE;
	nd->outermost = true;
	if (parent != SPOOR_CALLS_NONE) {
		struct cnode *p = &c->nodes[parent];

		nd->depth = p->depth + 1;
		nd->next_sibling = p->first_child;
		p->first_child = (uint32_t)c->n;
		for (uint32_t a = parent; a != SPOOR_CALLS_NONE; a = c->nodes[a].parent) {
			if (c->nodes[a].func == func) {
				nd->outermost = false;
				break;
			}
		}
	}
	c->dirty = true;
	return (uint32_t)c->n++;
}

/*
 * The child of @parent for frame @fr, made on first sight, into *@id.
 * Returns 0, 1 when it is new and the tree is at its node cap (none
 * made), or SPOOR_E_NOMEM.
 */
static int child_get(struct calls *c, uint32_t parent, const struct spoor_cs_frame *fr,
		     uint32_t *id)
{
	bool trap = fr->kind == SPOOR_CS_TRAP || fr->kind == SPOOR_CS_INTERRUPT;
	uint64_t cause = trap ? fr->cause : 0;
	bool interrupt = trap && fr->interrupt;
	uint32_t k;
	size_t j;

	j = key_slot(c, parent, fr->func, fr->kind, cause);
	while ((k = c->hash[j]) != SPOOR_CALLS_NONE) {
		if (key_match(&c->nodes[k], parent, fr->func, fr->kind, interrupt, cause)) {
			*id = k;
			return 0;
		}
		j = (j + 1) & (c->hcap - 1);
	}
	if (c->n >= c->max_nodes)
		return 1;
	if (2 * (c->n + 1) > c->hcap) {
		if (hash_grow(c))
			return SPOOR_E_NOMEM;
		j = key_slot(c, parent, fr->func, fr->kind, cause);
		while (c->hash[j] != SPOOR_CALLS_NONE)
			j = (j + 1) & (c->hcap - 1);
	}
	k = node_add(c, parent, fr->func, c->nodes[parent].source);
	if (k == SPOOR_CALLS_NONE)
		return SPOOR_E_NOMEM;
	c->nodes[k].kind = fr->kind;
	c->nodes[k].interrupt = interrupt;
	c->nodes[k].cause = cause;
	c->hash[j] = k;
	*id = k;
	return 0;
}

/* The state of @source, made on first sight; NULL when out of memory. */
static struct calls_src *src_get(struct calls *c, uint32_t source)
{
	struct calls_src *n;
	uint32_t root;

	if (c->cur && c->cur->source == source)
		return c->cur;
	for (size_t i = 0; i < c->nsrc; i++)
		if (c->src[i].source == source)
			return c->cur = &c->src[i];
	/* (A root is made even at the node cap: sources are few, the harts.) */
	root = node_add(c, SPOOR_CALLS_NONE, SPOOR_FUNC_NONE, source);
	if (root == SPOOR_CALLS_NONE)
		return NULL;
	n = realloc(c->src, (c->nsrc + 1) * sizeof(*n));
	if (!n) {
		c->n--;		/* the root just made */
		return NULL;
	}
	c->src = n;
	c->src[c->nsrc] = (struct calls_src){ .source = source, .root = root };
	return c->cur = &c->src[c->nsrc++];
}

/* Records the first error. */
static void set_error(struct calls *c, int err)
{
	if (!c->sink.error)
		c->sink.error = err;
}

/*
 * Callstack: a frame was entered; finds its node.  A new path at the node
 * cap (or without memory for it) is folded into its parent node, and so
 * is every frame above it until the stack comes back below it.
 */
static void cb_enter(void *ctx, uint32_t source, const struct spoor_cs_frame *stack,
		     unsigned depth)
{
	struct calls *c = ctx;
	struct calls_src *s = src_get(c, source);
	uint32_t parent, id;
	int ret;

	if (!s) {
		set_error(c, SPOOR_E_NOMEM);
		return;
	}
	if (depth > s->cap) {
		unsigned cap = s->cap ? 2 * s->cap : 64;
		uint32_t *p;

		while (cap < depth)
			cap *= 2;
		p = realloc(s->path, cap * sizeof(*p));
		if (!p) {
			set_error(c, SPOOR_E_NOMEM);
			return;
		}
		s->path = p;
		s->cap = cap;
	}
	parent = depth > 1 ? s->path[depth - 2] : s->root;
	if (s->fold && depth > s->fold) {
		s->path[depth - 1] = parent;	/* above a folded frame: folded too */
		return;
	}
	s->fold = 0;
	ret = child_get(c, parent, &stack[depth - 1], &id);
	if (ret) {
		if (ret < 0)
			set_error(c, ret);
		c->nodes[parent].dropped++;
		c->dropped++;
		c->dirty = true;
		s->fold = depth;
		id = parent;	/* counted there: the path stays whole */
	} else {
		c->nodes[id].count++;
	}
	s->path[depth - 1] = id;
}

/* Callstack: a block retired in the top frame (the hot path). */
static void cb_insns(void *ctx, uint32_t source, const struct spoor_cs_frame *stack,
		     unsigned depth, const struct spoor_block *b,
		     const struct spoor_block_info *bi)
{
	struct calls *c = ctx;
	struct calls_src *s = c->cur;

	(void)stack;
	(void)bi;
	if (!s || s->source != source)
		s = src_get(c, source);
	if (!s)
		return;
	c->nodes[depth <= s->cap ? s->path[depth - 1] : s->root].self += b->ninsn;
	c->dirty = true;
}

/* Callstack: the clock moved on while the top frame ran. */
static void cb_time(void *ctx, uint32_t source, const struct spoor_cs_frame *stack,
		    unsigned depth, uint64_t elapsed)
{
	struct calls *c = ctx;
	struct calls_src *s = src_get(c, source);

	(void)stack;
	if (!s)
		return;
	c->nodes[depth && depth <= s->cap ? s->path[depth - 1] : s->root].self_time += elapsed;
	c->has_time = true;
	c->dirty = true;
}

/* Sink: @n blocks of @source through the call stacks into the tree. */
static void calls_blocks(struct spoor_sink *sk, uint32_t source, const struct spoor_block *b,
			 size_t n)
{
	struct calls *c = (struct calls *)sk;
	int ret;

	if (!src_get(c, source)) {
		set_error(c, SPOOR_E_NOMEM);
		return;
	}
	ret = spoor_callstack_blocks(c->cs, source, b, n);
	if (ret)
		set_error(c, ret);
}

/* Sink: an event (traps, gaps, time) through the call stacks. */
static void calls_event(struct spoor_sink *sk, const struct spoor_dec_item *it)
{
	struct calls *c = (struct calls *)sk;
	int ret = spoor_callstack_event(c->cs, it);

	if (ret)
		set_error(c, ret);
}

/* Sink: an unrelated trace follows; every stack ends, the tree stays. */
static void calls_restart(struct spoor_sink *sk)
{
	spoor_callstack_reset(((struct calls *)sk)->cs);
}

/* Sink: frees the tree and its call stacks (not the functions). */
static void calls_free(struct spoor_sink *sk)
{
	struct calls *c = (struct calls *)sk;

	spoor_callstack_free(c->cs);
	for (size_t i = 0; i < c->nsrc; i++)
		free(c->src[i].path);
	free(c->src);
	free(c->nodes);
	free(c->hash);
	free(c->incl);
	free(c->incl_time);
	free(c);
}

void spoor_calls_config_init(struct spoor_calls_config *cfg)
{
	if (cfg)
		memset(cfg, 0, sizeof(*cfg));
}

struct spoor_sink *spoor_calls_new_config(const struct spoor_calls_config *cfg)
{
	static const struct spoor_callstack_ops ops = {
		.enter = cb_enter, .insns = cb_insns, .time = cb_time,
	};
	struct spoor_callstack_config cc = { .ops = &ops };
	struct calls *c;

	if (!cfg || !cfg->funcs)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->sink.ops = &calls_ops;
	c->funcs = cfg->funcs;
	c->max_nodes = cfg->max_nodes ? cfg->max_nodes : SPOOR_CALLS_MAX_NODES;
	if (c->max_nodes >= SPOOR_CALLS_NONE)
		c->max_nodes = SPOOR_CALLS_NONE - 1;
	cc.funcs = cfg->funcs;
	cc.max_depth = cfg->max_depth;
	cc.ctx = c;
	c->cs = spoor_callstack_new(&cc);
	if (!c->cs || hash_grow(c)) {
		calls_free(&c->sink);
		return NULL;
	}
	return &c->sink;
}

struct spoor_sink *spoor_calls_new(struct spoor_funcs *funcs, unsigned max_depth)
{
	struct spoor_calls_config cfg;

	spoor_calls_config_init(&cfg);
	cfg.funcs = funcs;
	cfg.max_depth = max_depth;
	return spoor_calls_new_config(&cfg);
}

struct spoor_funcs *spoor_calls_funcs(const struct spoor_sink *s)
{
	const struct calls *c = to_calls(s);

	return c ? c->funcs : NULL;
}

const char *spoor_calls_func_name(const struct spoor_sink *s, uint32_t func)
{
	const struct calls *c = to_calls(s);
	const struct spoor_func *f = c ? spoor_funcs_get(c->funcs, func) : NULL;

	return f && f->name ? f->name : "?";
}

size_t spoor_calls_count(const struct spoor_sink *s)
{
	const struct calls *c = to_calls(s);

	return c ? c->n : 0;
}

/* Brings the inclusive counts up to date; returns 0 or SPOOR_E_NOMEM. */
static int update(struct calls *c)
{
	if (!c->dirty && c->incl_n == c->n)
		return 0;
	if (c->incl_n < c->n) {
		uint64_t *a = realloc(c->incl, c->cap * sizeof(*a));

		if (!a)
			return SPOOR_E_NOMEM;
		c->incl = a;
		a = realloc(c->incl_time, c->cap * sizeof(*a));
		if (!a)
			return SPOOR_E_NOMEM;
		c->incl_time = a;
	}
	for (size_t i = 0; i < c->n; i++) {
		c->incl[i] = c->nodes[i].self;
		c->incl_time[i] = c->nodes[i].self_time;
	}
	/* Children come after their parents: add each to its parent, last first. */
	for (size_t i = c->n; i-- > 0;) {
		uint32_t p = c->nodes[i].parent;

		if (p != SPOOR_CALLS_NONE) {
			c->incl[p] += c->incl[i];
			c->incl_time[p] += c->incl_time[i];
		}
	}
	c->incl_n = c->n;
	c->dirty = false;
	return 0;
}

int spoor_calls_node(struct spoor_sink *s, uint32_t id, struct spoor_calls_node *out,
		     size_t size)
{
	struct calls *c = to_calls(s);
	struct spoor_calls_node nd;
	const struct cnode *cn;
	int ret;

	if (!c || !out || id >= c->n)
		return SPOOR_E_INVAL;
	ret = update(c);
	if (ret)
		return ret;
	cn = &c->nodes[id];
	nd = (struct spoor_calls_node){
		.parent = cn->parent, .func = cn->func, .source = cn->source,
		.depth = cn->depth, .kind = cn->kind, .interrupt = cn->interrupt,
		.outermost = cn->outermost, .cause = cn->cause, .count = cn->count,
		.self = cn->self, .insns = c->incl[id], .self_time = cn->self_time,
		.time = c->incl_time[id], .dropped = cn->dropped,
	};
	memcpy(out, &nd, size < sizeof(nd) ? size : sizeof(nd));
	return 0;
}

int spoor_calls_total(struct spoor_sink *s, struct spoor_calls_total *out, size_t size)
{
	struct calls *c = to_calls(s);
	struct spoor_calls_total t = { 0 };
	int ret;

	if (!c || !out)
		return SPOOR_E_INVAL;
	ret = update(c);
	if (ret)
		return ret;
	for (size_t i = 0; i < c->nsrc; i++) {
		t.insns += c->incl[c->src[i].root];
		t.time += c->incl_time[c->src[i].root];
	}
	t.has_time = c->has_time;
	t.dropped = c->dropped;
	t.nodes = c->n;
	t.max_nodes = c->max_nodes;
	memcpy(out, &t, size < sizeof(t) ? size : sizeof(t));
	return 0;
}

/* ---- writers ------------------------------------------------------------ */

struct writer {
	struct calls *c;
	FILE *out;
	unsigned max_depth;
};

/* A child while its siblings are sorted: the keys, and its number. */
struct kid {
	uint64_t insns;
	uint32_t func, id;
};

/* Returns the order of two children: inclusive instructions down, function up, number up. */
static int kid_cmp(const void *a, const void *b)
{
	const struct kid *x = a, *y = b;

	if (x->insns != y->insns)
		return x->insns > y->insns ? -1 : 1;
	if (x->func != y->func)
		return x->func < y->func ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * Relinks every node's children hottest first.  Returns 0 or
 * SPOOR_E_NOMEM.
 */
static int sort_children(struct calls *c)
{
	struct kid *kids;
	int ret = update(c);

	if (ret)
		return ret;
	kids = malloc((c->n ? c->n : 1) * sizeof(*kids));
	if (!kids)
		return SPOOR_E_NOMEM;
	for (size_t i = 0; i < c->n; i++) {
		size_t k = 0;

		for (uint32_t ch = c->nodes[i].first_child; ch != SPOOR_CALLS_NONE;
		     ch = c->nodes[ch].next_sibling)
			kids[k++] = (struct kid){ .insns = c->incl[ch], .func = c->nodes[ch].func,
						  .id = ch };
		if (k < 2)
			continue;
		qsort(kids, k, sizeof(*kids), kid_cmp);
		c->nodes[i].first_child = kids[0].id;
		for (size_t j = 0; j + 1 < k; j++)
			c->nodes[kids[j].id].next_sibling = kids[j + 1].id;
		c->nodes[kids[k - 1].id].next_sibling = SPOOR_CALLS_NONE;
	}
	free(kids);
	return 0;
}

/*
 * Returns the node after @id in depth-first order among those below @top
 * (@id's own children skipped unless @descend), or SPOOR_CALLS_NONE at the
 * end: the writers' walk, with no recursion and no stack.
 */
static uint32_t walk_next(const struct calls *c, uint32_t id, uint32_t top, bool descend)
{
	if (descend && c->nodes[id].first_child != SPOOR_CALLS_NONE)
		return c->nodes[id].first_child;
	for (; id != top; id = c->nodes[id].parent)
		if (c->nodes[id].next_sibling != SPOOR_CALLS_NONE)
			return c->nodes[id].next_sibling;
	return SPOOR_CALLS_NONE;
}

/* Returns the number of nodes below @id and their entries into *@entries. */
static uint64_t below(const struct calls *c, uint32_t id, uint64_t *entries)
{
	uint64_t n = 0;

	for (uint32_t k = walk_next(c, id, id, true); k != SPOOR_CALLS_NONE;
	     k = walk_next(c, k, id, true)) {
		n++;
		*entries += c->nodes[k].count;
	}
	return n;
}

/* Writes the indent of @level: two spaces a level, "[N] " beyond INDENT_MAX. */
static void indent(FILE *out, unsigned level)
{
	if (level <= INDENT_MAX)
		fprintf(out, "%*s", (int)(2 * level), "");
	else
		fprintf(out, "%*s[%u] ", 2 * INDENT_MAX, "", level);
}

/* Returns whether the writer stops at node @nd (--depth), with children below it. */
static bool cut_at(const struct writer *w, const struct cnode *nd)
{
	return w->max_depth && nd->depth >= w->max_depth && nd->first_child != SPOOR_CALLS_NONE;
}

/* Writes the line of node @id as text, and the summary of what is below when cut. */
static void text_node(struct writer *w, uint32_t id)
{
	const struct calls *c = w->c;
	const struct cnode *nd = &c->nodes[id];

	indent(w->out, nd->depth);
	if (nd->kind == SPOOR_CS_TRAP || nd->kind == SPOOR_CS_INTERRUPT)
		fprintf(w->out, "[%s %" PRIu64 "] ", nd->interrupt ? "interrupt" : "trap",
			nd->cause);
	fputs(spoor_calls_func_name(&c->sink, nd->func), w->out);
	if (nd->kind != SPOOR_CS_CALL && nd->kind != SPOOR_CS_TRAP &&
	    nd->kind != SPOOR_CS_INTERRUPT)
		fprintf(w->out, " (%s)", spoor_cs_kind_name(nd->kind));
	fprintf(w->out, "  count %" PRIu64 "  insns %" PRIu64 "  self %" PRIu64, nd->count,
		c->incl[id], nd->self);
	if (c->has_time)
		fprintf(w->out, "  time %" PRIu64 "  self_time %" PRIu64, c->incl_time[id],
			nd->self_time);
	if (nd->dropped)
		fprintf(w->out, "  dropped %" PRIu64, nd->dropped);
	fputc('\n', w->out);
	if (cut_at(w, nd)) {
		uint64_t entries = 0, n = below(c, id, &entries);

		indent(w->out, nd->depth + 1);
		fprintf(w->out, "... %" PRIu64 " more below (%" PRIu64 " entries, %" PRIu64
			" instructions)\n", n, entries, c->incl[id] - nd->self);
	}
}

/* Returns the sources' order: by source number. */
static int src_cmp(const void *a, const void *b)
{
	const struct calls_src *x = a, *y = b;

	return x->source < y->source ? -1 : x->source > y->source;
}

/* Gets @c ready to be written: children sorted, sources in order.  Returns 0 or SPOOR_E_NOMEM. */
static int write_prepare(struct calls *c)
{
	int ret = sort_children(c);

	if (ret)
		return ret;
	if (c->nsrc > 1)
		qsort(c->src, c->nsrc, sizeof(*c->src), src_cmp);
	c->cur = NULL;
	return 0;
}

int spoor_calls_write_text(struct spoor_sink *s, FILE *out, unsigned max_depth)
{
	struct writer w = { .c = to_calls(s), .out = out, .max_depth = max_depth };
	struct calls *c = w.c;
	int ret;

	if (!c || !out)
		return SPOOR_E_INVAL;
	ret = write_prepare(c);
	if (ret)
		return ret;
	for (size_t i = 0; i < c->nsrc; i++) {
		uint32_t root = c->src[i].root;

		fprintf(out, "source %" PRIu32 ": %" PRIu64 " instructions", c->src[i].source,
			c->incl[root]);
		if (c->has_time)
			fprintf(out, ", time %" PRIu64, c->incl_time[root]);
		fputc('\n', out);
		for (uint32_t id = walk_next(c, root, root, true); id != SPOOR_CALLS_NONE;
		     id = walk_next(c, id, root, !cut_at(&w, &c->nodes[id])))
			text_node(&w, id);
	}
	if (c->dropped)
		fprintf(out, "dropped paths: %" PRIu64 " (the tree reached its cap of %" PRIu32
			" nodes: what ran in them is counted in their callers' self)\n",
			c->dropped, c->max_nodes);
	return json_str_out_check(out);
}

/* Writes node @id as a JSON object up to its "children" (not included). */
static void json_node(struct writer *w, uint32_t id)
{
	const struct calls *c = w->c;
	const struct cnode *nd = &c->nodes[id];

	fputs("{\"function\":", w->out);
	json_str_put(w->out, spoor_calls_func_name(&c->sink, nd->func));
	fprintf(w->out, ",\"kind\":\"%s\"", spoor_cs_kind_name(nd->kind));
	if (nd->kind == SPOOR_CS_TRAP || nd->kind == SPOOR_CS_INTERRUPT)
		fprintf(w->out, ",\"cause\":%" PRIu64, nd->cause);
	fprintf(w->out, ",\"count\":%" PRIu64 ",\"insns\":%" PRIu64 ",\"self\":%" PRIu64,
		nd->count, c->incl[id], nd->self);
	if (c->has_time)
		fprintf(w->out, ",\"time\":%" PRIu64 ",\"self_time\":%" PRIu64, c->incl_time[id],
			nd->self_time);
	if (nd->dropped)
		fprintf(w->out, ",\"dropped\":%" PRIu64, nd->dropped);
}

/*
 * Writes the nodes below @root as the elements of a JSON array, each with
 * its children nested: a walk of the tree that closes each object when it
 * climbs back out of it.
 */
static void json_tree(struct writer *w, uint32_t root)
{
	const struct calls *c = w->c;
	uint32_t id = c->nodes[root].first_child;

	if (id != SPOOR_CALLS_NONE)
		fputc('\n', w->out);
	while (id != SPOOR_CALLS_NONE) {
		const struct cnode *nd = &c->nodes[id];

		json_node(w, id);
		if (cut_at(w, nd)) {
			fputs(",\"truncated\":true,\"children\":[]}", w->out);
		} else if (nd->first_child != SPOOR_CALLS_NONE) {
			fputs(",\"children\":[", w->out);
			id = nd->first_child;
			continue;
		} else {
			fputs(",\"children\":[]}", w->out);
		}
		/* Done with @id: on to its next sibling, or out to its parent's. */
		for (;;) {
			uint32_t parent = c->nodes[id].parent;

			if (c->nodes[id].next_sibling != SPOOR_CALLS_NONE) {
				fputs(parent == root ? ",\n" : ",", w->out);
				id = c->nodes[id].next_sibling;
				break;
			}
			if (parent == root) {
				id = SPOOR_CALLS_NONE;
				break;
			}
			fputs("]}", w->out);
			id = parent;
		}
	}
}

int spoor_calls_write_json(struct spoor_sink *s, FILE *out, unsigned max_depth)
{
	struct writer w = { .c = to_calls(s), .out = out, .max_depth = max_depth };
	struct calls *c = w.c;
	uint64_t total = 0;
	int ret;

	if (!c || !out)
		return SPOOR_E_INVAL;
	ret = write_prepare(c);
	if (ret)
		return ret;
	for (size_t i = 0; i < c->nsrc; i++)
		total += c->incl[c->src[i].root];
	fprintf(out, "{\"instructions\":%" PRIu64 ",\"dropped_paths\":%" PRIu64 ",\"sources\":[",
		total, c->dropped);
	for (size_t i = 0; i < c->nsrc; i++) {
		uint32_t root = c->src[i].root;

		fprintf(out, "%s\n{\"source\":%" PRIu32 ",\"insns\":%" PRIu64, i ? "," : "",
			c->src[i].source, c->incl[root]);
		if (c->has_time)
			fprintf(out, ",\"time\":%" PRIu64, c->incl_time[root]);
		fputs(",\"children\":[", out);
		json_tree(&w, root);
		fputs("]}", out);
	}
	fputs("]}\n", out);
	return json_str_out_check(out);
}
