/* SPDX-License-Identifier: MIT */
/*
 * Analysis sinks: consumers of the pipeline's blocks and events (trace.h),
 * never of packets.  Coverage (coverage.h), profiles (profile.h), the call
 * tree (calls.h) and the timeline (timeline.h) each embed a struct
 * spoor_sink first and are fed through the one table below, so a command,
 * spoor stream or a test drives any of them, or several at once, the same
 * way: spoor_sink_trace_ops() as the pipeline's callbacks, or the
 * spoor_sink_*() calls by hand.  What each sink writes out is its own API.
 */
#ifndef SPOOR_SINK_H
#define SPOOR_SINK_H

#include <stddef.h>
#include <stdint.h>

#include "spoor/decoder.h"
#include "spoor/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

struct spoor_sink;

struct spoor_sink_ops {
	const char *name;
	/* @n (>= 1) blocks of @source, in order. */
	void (*blocks)(struct spoor_sink *s, uint32_t source, const struct spoor_block *b,
		       size_t n);
	/* A decoder event (it->kind SPOOR_DEC_EVENT). */
	void (*event)(struct spoor_sink *s, const struct spoor_dec_item *it);
	/*
	 * The trace fed so far ended and an unrelated one follows (the next
	 * capture file of a merge): per-source state, such as call stacks,
	 * ends here; what was counted stays.  May be NULL.
	 */
	void (*restart)(struct spoor_sink *s);
	void (*free)(struct spoor_sink *s);
};

struct spoor_sink {
	const struct spoor_sink_ops *ops;
	int error;		/* the first error (SPOOR_E_NOMEM ...) the sink hit, or 0 */
};

/* Feeds @n blocks of @source to @s. */
void spoor_sink_blocks(struct spoor_sink *s, uint32_t source, const struct spoor_block *b,
		       size_t n);
/* Feeds an event to @s. */
void spoor_sink_event(struct spoor_sink *s, const struct spoor_dec_item *it);
/* Tells @s an unrelated trace follows (see spoor_sink_ops.restart). */
void spoor_sink_restart(struct spoor_sink *s);
/* Returns the first error @s hit (a negative spoor_error), or 0. */
int spoor_sink_error(const struct spoor_sink *s);
/* Frees @s (any sink; NULL is fine). */
void spoor_sink_free(struct spoor_sink *s);

/*
 * A sink that feeds each of the @n sinks in @sinks (kept by pointer, not
 * owned: free them after it), in order: several analyses of one pass.  Its
 * error is the first of theirs.  Returns it, or NULL (no memory, NULL
 * argument).
 */
struct spoor_sink *spoor_sink_tee_new(struct spoor_sink *const *sinks, size_t n);

/*
 * Pipeline callbacks (trace.h) that feed the sink given as the pipeline's
 * context: spoor_trace_new(cfg, spoor_sink_trace_ops(), sink).
 */
const struct spoor_trace_ops *spoor_sink_trace_ops(void);

#ifdef __cplusplus
}
#endif

#endif /* SPOOR_SINK_H */
