/* SPDX-License-Identifier: MIT */
/*
 * The call tree (spoor calls): every call path the trace took, aggregated
 * as a calling-context tree.  A node is a function reached by one path
 * from its source's root, and how it was entered there (call, tail call,
 * jump, trap or interrupt with its cause): how many times it was entered,
 * the instructions retired in it (exclusive) and below it (inclusive), and
 * the timestamp ticks likewise when the trace has them.  Built on
 * spoor_callstack (callstack.h), so tail calls, longjmp-like unwinds and
 * traps that never return are handled there; the tree grows with the
 * program's distinct call paths, never with the trace.
 *
 * The profile sink (profile.h) is this tree with other writers.
 */
#ifndef SPOOR_CALLS_H
#define SPOOR_CALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "spoor/callstack.h"
#include "spoor/funcs.h"
#include "spoor/sink.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SPOOR_CALLS_NONE UINT32_MAX

/* A node of the tree, as spoor_calls_node() gives it. */
struct spoor_calls_node {
	uint32_t parent;	/* its parent's number; SPOOR_CALLS_NONE for a source's root */
	uint32_t func;		/* spoor_funcs number; SPOOR_FUNC_NONE for a source's root */
	uint32_t source;	/* the source (hart) */
	uint32_t depth;		/* 0 for a source's root, 1 for the frames at its bottom ... */
	uint8_t kind;		/* enum spoor_cs_kind: how it was entered */
	bool interrupt;		/* TRAP/INTERRUPT: an interrupt */
	bool outermost;		/* no ancestor runs the same function (not recursion) */
	uint64_t cause;		/* TRAP/INTERRUPT: the cause */
	uint64_t count;		/* times entered */
	uint64_t self;		/* instructions retired in it, not below */
	uint64_t insns;		/* instructions retired in it and below (inclusive) */
	uint64_t self_time;	/* timestamp ticks while it was the top frame */
	uint64_t time;		/* timestamp ticks in it and below */
};

/*
 * Returns a call-tree sink over the functions @funcs (kept by pointer: must
 * outlive it) with call stacks at most @max_depth deep (0: the default,
 * SPOOR_CALLSTACK_DEPTH), or NULL (no memory, NULL @funcs).
 */
struct spoor_sink *spoor_calls_new(struct spoor_funcs *funcs, unsigned max_depth);

/* The functions the sink @s counts by, or NULL (not a call-tree sink). */
struct spoor_funcs *spoor_calls_funcs(const struct spoor_sink *s);

/*
 * The number of nodes so far (0 for NULL or a sink of another kind).
 * Nodes are numbered 0.. with every parent before its children.
 */
size_t spoor_calls_count(const struct spoor_sink *s);

/*
 * Node @id of @s into @out (@size: sizeof(*out) as the caller knows it);
 * the inclusive counts are brought up to date first.  Returns 0 or
 * SPOOR_E_INVAL (no such node, not a call-tree sink, NULL).
 */
int spoor_calls_node(struct spoor_sink *s, uint32_t id, struct spoor_calls_node *out,
		     size_t size);

/*
 * The instructions retired so far in every source, and whether any
 * timestamps came (*@has_time, may be NULL) with their ticks (*@time, may
 * be NULL).  Returns the instruction count (0 for NULL).
 */
uint64_t spoor_calls_total(struct spoor_sink *s, uint64_t *time, bool *has_time);

/*
 * The tree as indented text to @out: per source, each node with its kind
 * (traps and interrupts marked with their cause), entries, inclusive and
 * exclusive instructions, hottest first; nodes deeper than @max_depth (0:
 * no limit) summarised in one line under their ancestor at the limit.
 * Returns 0, SPOOR_E_IO (a failed write, errno set), SPOOR_E_NOMEM or
 * SPOOR_E_INVAL.
 */
int spoor_calls_write_text(struct spoor_sink *s, FILE *out, unsigned max_depth);

/*
 * The tree as one JSON document to @out: {"instructions":N, "sources":
 * [{"source":0, "insns":N, "children":[node ...]}]} where a node is
 * {"function":..,"kind":"call","count":..,"insns":..,"self":.., ["cause":..,]
 * ["time":..,"self_time":..,] "children":[...]} ("kind": call, tail, jump,
 * root, trap, interrupt); below @max_depth (0: no limit) a node has
 * "truncated": true with its children's totals in its "insns" only.
 * Returns as spoor_calls_write_text().
 */
int spoor_calls_write_json(struct spoor_sink *s, FILE *out, unsigned max_depth);

#ifdef __cplusplus
}
#endif

#endif /* SPOOR_CALLS_H */
