// SPDX-License-Identifier: MIT
/*
 * Analysis sinks: the one table every consumer of blocks and events is fed
 * through, and the pipeline callbacks that feed one.
 */
#include <stdlib.h>
#include <string.h>

#include "spoor/error.h"
#include "spoor/sink.h"

/* The tee: every member in turn. */
struct sink_tee {
	struct spoor_sink base;
	size_t n;
	struct spoor_sink *sinks[];
};

/* Blocks to every member, in order. */
static void tee_blocks(struct spoor_sink *s, uint32_t source, const struct spoor_block *b,
		       size_t n)
{
	struct sink_tee *t = (struct sink_tee *)s;

	for (size_t i = 0; i < t->n; i++)
		spoor_sink_blocks(t->sinks[i], source, b, n);
}

/* An event to every member, in order. */
static void tee_event(struct spoor_sink *s, const struct spoor_dec_item *it)
{
	struct sink_tee *t = (struct sink_tee *)s;

	for (size_t i = 0; i < t->n; i++)
		spoor_sink_event(t->sinks[i], it);
}

/* The restart to every member. */
static void tee_restart(struct spoor_sink *s)
{
	struct sink_tee *t = (struct sink_tee *)s;

	for (size_t i = 0; i < t->n; i++)
		spoor_sink_restart(t->sinks[i]);
}

/* Frees the tee (not its members). */
static void tee_free(struct spoor_sink *s)
{
	free(s);
}

static const struct spoor_sink_ops tee_ops = {
	.name = "tee", .blocks = tee_blocks, .event = tee_event, .restart = tee_restart,
	.free = tee_free,
};

struct spoor_sink *spoor_sink_tee_new(struct spoor_sink *const *sinks, size_t n)
{
	struct sink_tee *t;

	if (!sinks && n)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!sinks[i])
			return NULL;
	t = calloc(1, sizeof(*t) + n * sizeof(t->sinks[0]));
	if (!t)
		return NULL;
	t->base.ops = &tee_ops;
	t->n = n;
	if (n)
		memcpy(t->sinks, sinks, n * sizeof(t->sinks[0]));
	return &t->base;
}

void spoor_sink_blocks(struct spoor_sink *s, uint32_t source, const struct spoor_block *b,
		       size_t n)
{
	if (s && s->ops->blocks && n)
		s->ops->blocks(s, source, b, n);
}

void spoor_sink_event(struct spoor_sink *s, const struct spoor_dec_item *it)
{
	if (s && s->ops->event && it)
		s->ops->event(s, it);
}

void spoor_sink_restart(struct spoor_sink *s)
{
	if (s && s->ops->restart)
		s->ops->restart(s);
}

int spoor_sink_error(const struct spoor_sink *s)
{
	const struct sink_tee *t;

	if (!s)
		return SPOOR_E_INVAL;
	if (s->error || s->ops != &tee_ops)
		return s->error;
	t = (const struct sink_tee *)s;
	for (size_t i = 0; i < t->n; i++)
		if (spoor_sink_error(t->sinks[i]))
			return spoor_sink_error(t->sinks[i]);
	return 0;
}

void spoor_sink_free(struct spoor_sink *s)
{
	if (s)
		s->ops->free(s);
}

/* The pipeline's blocks, to the sink given as its context. */
static void trace_blocks(void *ctx, uint32_t source, uint64_t offset,
			 const struct spoor_block *b, size_t n)
{
	(void)offset;
	spoor_sink_blocks(ctx, source, b, n);
}

/* The pipeline's events, likewise. */
static void trace_event(void *ctx, const struct spoor_dec_item *it)
{
	spoor_sink_event(ctx, it);
}

const struct spoor_trace_ops *spoor_sink_trace_ops(void)
{
	static const struct spoor_trace_ops ops = {
		.blocks = trace_blocks, .event = trace_event,
	};

	return &ops;
}
