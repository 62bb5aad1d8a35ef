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

#include "spoor/calls.h"
#include "spoor/error.h"

#define HASH_MIN 1024

struct cnode {
	uint32_t parent, func, source, depth;
	uint32_t first_child, next_sibling;
	uint8_t kind;
	bool interrupt, outermost;
	uint64_t cause;
	uint64_t count, self, self_time;
};

struct calls_src {
	uint32_t source;
	uint32_t root;		/* its root node */
	uint32_t *path;		/* node of each frame of its stack */
	unsigned cap;
};

struct calls {
	struct spoor_sink sink;		/* first: the sink is the object */
	struct spoor_funcs *funcs;
	struct spoor_callstack *cs;
	struct cnode *nodes;
	size_t n, cap;
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
 * The child of @parent for frame @fr, made on first sight.  Returns its
 * number, or SPOOR_CALLS_NONE (no memory).
 */
static uint32_t child_get(struct calls *c, uint32_t parent, const struct spoor_cs_frame *fr)
{
	bool trap = fr->kind == SPOOR_CS_TRAP || fr->kind == SPOOR_CS_INTERRUPT;
	uint64_t cause = trap ? fr->cause : 0;
	bool interrupt = trap && fr->interrupt;
	uint32_t id;
	size_t j;

	if (2 * (c->n + 1) > c->hcap && hash_grow(c))
		return SPOOR_CALLS_NONE;
	j = key_slot(c, parent, fr->func, fr->kind, cause);
	while ((id = c->hash[j]) != SPOOR_CALLS_NONE) {
		if (key_match(&c->nodes[id], parent, fr->func, fr->kind, interrupt, cause))
			return id;
		j = (j + 1) & (c->hcap - 1);
	}
	id = node_add(c, parent, fr->func, c->nodes[parent].source);
	if (id == SPOOR_CALLS_NONE)
		return id;
	c->nodes[id].kind = fr->kind;
	c->nodes[id].interrupt = interrupt;
	c->nodes[id].cause = cause;
	c->hash[j] = id;
	return id;
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

/* Callstack: a frame was entered; finds its node. */
static void cb_enter(void *ctx, uint32_t source, const struct spoor_cs_frame *stack,
		     unsigned depth)
{
	struct calls *c = ctx;
	struct calls_src *s = src_get(c, source);
	uint32_t parent, id;

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
	id = child_get(c, parent, &stack[depth - 1]);
	if (id == SPOOR_CALLS_NONE) {
		set_error(c, SPOOR_E_NOMEM);
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

static void calls_event(struct spoor_sink *sk, const struct spoor_dec_item *it)
{
	struct calls *c = (struct calls *)sk;
	int ret = spoor_callstack_event(c->cs, it);

	if (ret)
		set_error(c, ret);
}

static void calls_restart(struct spoor_sink *sk)
{
	spoor_callstack_reset(((struct calls *)sk)->cs);
}

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

struct spoor_sink *spoor_calls_new(struct spoor_funcs *funcs, unsigned max_depth)
{
	static const struct spoor_callstack_ops ops = {
		.enter = cb_enter, .insns = cb_insns, .time = cb_time,
	};
	struct spoor_callstack_config cfg = {
		.funcs = funcs, .max_depth = max_depth, .ops = &ops,
	};
	struct calls *c;

	if (!funcs)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->sink.ops = &calls_ops;
	c->funcs = funcs;
	cfg.ctx = c;
	c->cs = spoor_callstack_new(&cfg);
	if (!c->cs || hash_grow(c)) {
		calls_free(&c->sink);
		return NULL;
	}
	return &c->sink;
}

struct spoor_funcs *spoor_calls_funcs(const struct spoor_sink *s)
{
	const struct calls *c = to_calls(s);

	return c ? c->funcs : NULL;
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

	if (!c || !out || id >= c->n || update(c))
		return SPOOR_E_INVAL;
	cn = &c->nodes[id];
	nd = (struct spoor_calls_node){
		.parent = cn->parent, .func = cn->func, .source = cn->source,
		.depth = cn->depth, .kind = cn->kind, .interrupt = cn->interrupt,
		.outermost = cn->outermost, .cause = cn->cause, .count = cn->count,
		.self = cn->self, .insns = c->incl[id], .self_time = cn->self_time,
		.time = c->incl_time[id],
	};
	memcpy(out, &nd, size < sizeof(nd) ? size : sizeof(nd));
	return 0;
}

uint64_t spoor_calls_total(struct spoor_sink *s, uint64_t *time, bool *has_time)
{
	struct calls *c = to_calls(s);
	uint64_t insns = 0, t = 0;

	if (c && !update(c)) {
		for (size_t i = 0; i < c->nsrc; i++) {
			insns += c->incl[c->src[i].root];
			t += c->incl_time[c->src[i].root];
		}
	}
	if (time)
		*time = t;
	if (has_time)
		*has_time = c && c->has_time;
	return insns;
}

/* ---- writers ------------------------------------------------------------ */

struct writer {
	struct calls *c;
	FILE *out;
	unsigned max_depth;
	uint32_t *kids;		/* scratch: children of one node while sorting */
};

/* qsort order of node numbers: inclusive instructions down, then function up. */
static struct calls *sort_ctx;

/* Returns the order of two children (hottest first). */
static int kid_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct calls *c = sort_ctx;

	if (c->incl[x] != c->incl[y])
		return c->incl[x] > c->incl[y] ? -1 : 1;
	if (c->nodes[x].func != c->nodes[y].func)
		return c->nodes[x].func < c->nodes[y].func ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * Relinks every node's children hottest first.  Returns 0 or
 * SPOOR_E_NOMEM.
 */
static int sort_children(struct calls *c)
{
	uint32_t *kids;
	int ret = update(c);

	if (ret)
		return ret;
	kids = malloc((c->n ? c->n : 1) * sizeof(*kids));
	if (!kids)
		return SPOOR_E_NOMEM;
	sort_ctx = c;
	for (size_t i = 0; i < c->n; i++) {
		size_t k = 0;

		for (uint32_t ch = c->nodes[i].first_child; ch != SPOOR_CALLS_NONE;
		     ch = c->nodes[ch].next_sibling)
			kids[k++] = ch;
		if (k < 2)
			continue;
		qsort(kids, k, sizeof(*kids), kid_cmp);
		c->nodes[i].first_child = kids[0];
		for (size_t j = 0; j + 1 < k; j++)
			c->nodes[kids[j]].next_sibling = kids[j + 1];
		c->nodes[kids[k - 1]].next_sibling = SPOOR_CALLS_NONE;
	}
	free(kids);
	return 0;
}

/* The name of function @func (never NULL). */
static const char *func_name(const struct calls *c, uint32_t func)
{
	const struct spoor_func *f = spoor_funcs_get(c->funcs, func);

	return f && f->name ? f->name : "?";
}

/* Returns the number of nodes below @id and their entries into *@entries. */
static uint64_t below(const struct calls *c, uint32_t id, uint64_t *entries)
{
	uint64_t n = 0;

	for (uint32_t ch = c->nodes[id].first_child; ch != SPOOR_CALLS_NONE;
	     ch = c->nodes[ch].next_sibling) {
		n += 1 + below(c, ch, entries);
		*entries += c->nodes[ch].count;
	}
	return n;
}

/* Writes node @id and what is below it as text, @level deep. */
static void text_node(struct writer *w, uint32_t id, unsigned level)
{
	const struct calls *c = w->c;
	const struct cnode *nd = &c->nodes[id];

	fprintf(w->out, "%*s", (int)(2 * level), "");
	if (nd->kind == SPOOR_CS_TRAP || nd->kind == SPOOR_CS_INTERRUPT)
		fprintf(w->out, "[%s %" PRIu64 "] ", nd->interrupt ? "interrupt" : "trap",
			nd->cause);
	fputs(func_name(c, nd->func), w->out);
	if (nd->kind != SPOOR_CS_CALL && nd->kind != SPOOR_CS_TRAP &&
	    nd->kind != SPOOR_CS_INTERRUPT)
		fprintf(w->out, " (%s)", spoor_cs_kind_name(nd->kind));
	fprintf(w->out, "  count %" PRIu64 "  insns %" PRIu64 "  self %" PRIu64, nd->count,
		c->incl[id], nd->self);
	if (c->has_time)
		fprintf(w->out, "  time %" PRIu64 "  self_time %" PRIu64, c->incl_time[id],
			nd->self_time);
	fputc('\n', w->out);
	if (nd->first_child == SPOOR_CALLS_NONE)
		return;
	if (w->max_depth && nd->depth >= w->max_depth) {
		uint64_t entries = 0, n = below(c, id, &entries);

		fprintf(w->out, "%*s... %" PRIu64 " more below (%" PRIu64 " entries, %" PRIu64
			" instructions)\n", (int)(2 * level + 2), "", n, entries,
			c->incl[id] - nd->self);
		return;
	}
	for (uint32_t ch = nd->first_child; ch != SPOOR_CALLS_NONE; ch = c->nodes[ch].next_sibling)
		text_node(w, ch, level + 1);
}

/* Returns 0 when @out took everything, else SPOOR_E_IO (errno set). */
static int out_check(FILE *out)
{
	if (fflush(out) || ferror(out)) {
		if (!errno)
			errno = EIO;
		return SPOOR_E_IO;
	}
	return 0;
}

/* Returns the sources' order: by source number. */
static int src_cmp(const void *a, const void *b)
{
	const struct calls_src *x = a, *y = b;

	return x->source < y->source ? -1 : x->source > y->source;
}

int spoor_calls_write_text(struct spoor_sink *s, FILE *out, unsigned max_depth)
{
	struct writer w = { .c = to_calls(s), .out = out, .max_depth = max_depth };
	struct calls *c = w.c;
	int ret;

	if (!c || !out)
		return SPOOR_E_INVAL;
	ret = sort_children(c);
	if (ret)
		return ret;
	qsort(c->src, c->nsrc, sizeof(*c->src), src_cmp);
	c->cur = NULL;
	for (size_t i = 0; i < c->nsrc; i++) {
		uint32_t root = c->src[i].root;

		fprintf(out, "source %" PRIu32 ": %" PRIu64 " instructions", c->src[i].source,
			c->incl[root]);
		if (c->has_time)
			fprintf(out, ", time %" PRIu64, c->incl_time[root]);
		fputc('\n', out);
		for (uint32_t ch = c->nodes[root].first_child; ch != SPOOR_CALLS_NONE;
		     ch = c->nodes[ch].next_sibling)
			text_node(&w, ch, 1);
	}
	return out_check(out);
}

/* Writes @str as a JSON string. */
static void json_str(FILE *out, const char *str)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)str; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

/* Writes node @id and what is below it as a JSON object. */
static void json_node(struct writer *w, uint32_t id)
{
	const struct calls *c = w->c;
	const struct cnode *nd = &c->nodes[id];
	bool first = true;

	fputs("{\"function\":", w->out);
	json_str(w->out, func_name(c, nd->func));
	fprintf(w->out, ",\"kind\":\"%s\"", spoor_cs_kind_name(nd->kind));
	if (nd->kind == SPOOR_CS_TRAP || nd->kind == SPOOR_CS_INTERRUPT)
		fprintf(w->out, ",\"cause\":%" PRIu64, nd->cause);
	fprintf(w->out, ",\"count\":%" PRIu64 ",\"insns\":%" PRIu64 ",\"self\":%" PRIu64,
		nd->count, c->incl[id], nd->self);
	if (c->has_time)
		fprintf(w->out, ",\"time\":%" PRIu64 ",\"self_time\":%" PRIu64, c->incl_time[id],
			nd->self_time);
	if (w->max_depth && nd->depth >= w->max_depth && nd->first_child != SPOOR_CALLS_NONE) {
		fputs(",\"truncated\":true,\"children\":[]}", w->out);
		return;
	}
	fputs(",\"children\":[", w->out);
	for (uint32_t ch = nd->first_child; ch != SPOOR_CALLS_NONE; ch = c->nodes[ch].next_sibling) {
		if (!first)
			fputc(',', w->out);
		first = false;
		json_node(w, ch);
	}
	fputs("]}", w->out);
}

int spoor_calls_write_json(struct spoor_sink *s, FILE *out, unsigned max_depth)
{
	struct writer w = { .c = to_calls(s), .out = out, .max_depth = max_depth };
	struct calls *c = w.c;
	uint64_t total = 0;
	int ret;

	if (!c || !out)
		return SPOOR_E_INVAL;
	ret = sort_children(c);
	if (ret)
		return ret;
	qsort(c->src, c->nsrc, sizeof(*c->src), src_cmp);
	c->cur = NULL;
	for (size_t i = 0; i < c->nsrc; i++)
		total += c->incl[c->src[i].root];
	fprintf(out, "{\"instructions\":%" PRIu64 ",\"sources\":[", total);
	for (size_t i = 0; i < c->nsrc; i++) {
		uint32_t root = c->src[i].root;
		bool first = true;

		fprintf(out, "%s\n{\"source\":%" PRIu32 ",\"insns\":%" PRIu64, i ? "," : "",
			c->src[i].source, c->incl[root]);
		if (c->has_time)
			fprintf(out, ",\"time\":%" PRIu64, c->incl_time[root]);
		fputs(",\"children\":[", out);
		for (uint32_t ch = c->nodes[root].first_child; ch != SPOOR_CALLS_NONE;
		     ch = c->nodes[ch].next_sibling) {
			fputs(first ? "\n" : ",\n", out);
			first = false;
			json_node(&w, ch);
		}
		fputs("]}", out);
	}
	fputs("]}\n", out);
	return out_check(out);
}
