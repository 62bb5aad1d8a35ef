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
 * program's distinct call paths, never with the trace, and never beyond a
 * node cap (max_nodes): a call path first seen once the tree is full is
 * folded into its caller's node (what runs below it counted as the
 * caller's own instructions) and counted as a dropped path, so mutual
 * recursion through several call sites cannot grow the tree exponentially
 * with the stack depth.  The writers walk the tree without recursion.
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

/* The default node cap: 1M nodes (about 100 MB). */
#define SPOOR_CALLS_MAX_NODES (1u << 20)

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
	uint64_t self;		/* instructions retired in it, not below (with dropped paths') */
	uint64_t insns;		/* instructions retired in it and below (inclusive) */
	uint64_t self_time;	/* timestamp ticks while it was the top frame */
	uint64_t time;		/* timestamp ticks in it and below */
	uint64_t dropped;	/* entries of new call paths below it folded into it (node cap) */
};

struct spoor_calls_config {
	struct spoor_funcs *funcs;	/* kept by pointer: must outlive the sink */
	unsigned max_depth;		/* call stack bound; 0: SPOOR_CALLSTACK_DEPTH */
	uint32_t max_nodes;		/* node cap (roots included); 0: SPOOR_CALLS_MAX_NODES */
};

/* Fills @cfg with the defaults (no functions: the caller sets them). */
void spoor_calls_config_init(struct spoor_calls_config *cfg);

/*
 * Returns a call-tree sink as @cfg says, or NULL (no memory, NULL @cfg or
 * functions).
 */
struct spoor_sink *spoor_calls_new_config(const struct spoor_calls_config *cfg);

/*
 * Returns a call-tree sink over the functions @funcs (kept by pointer: must
 * outlive it) with call stacks at most @max_depth deep (0: the default,
 * SPOOR_CALLSTACK_DEPTH) and the default node cap, or NULL (no memory,
 * NULL @funcs).
 */
struct spoor_sink *spoor_calls_new(struct spoor_funcs *funcs, unsigned max_depth);

/* The functions the sink @s counts by, or NULL (not a call-tree sink). */
struct spoor_funcs *spoor_calls_funcs(const struct spoor_sink *s);

/*
 * The name of function @func of the sink @s's functions, as the writers
 * write it: never NULL ("?" for no name, no such function, not a
 * call-tree sink).
 */
const char *spoor_calls_func_name(const struct spoor_sink *s, uint32_t func);

/*
 * The number of nodes so far (0 for NULL or a sink of another kind).
 * Nodes are numbered 0.. with every parent before its children.
 */
size_t spoor_calls_count(const struct spoor_sink *s);

/*
 * Node @id of @s into @out (@size: sizeof(*out) as the caller knows it);
 * the inclusive counts are brought up to date first.  Returns 0,
 * SPOOR_E_NOMEM (no memory for the inclusive counts) or SPOOR_E_INVAL (no
 * such node, not a call-tree sink, NULL).
 */
int spoor_calls_node(struct spoor_sink *s, uint32_t id, struct spoor_calls_node *out,
		     size_t size);

/* What the tree holds so far, as spoor_calls_total() gives it. */
struct spoor_calls_total {
	uint64_t insns;		/* instructions retired in every source */
	uint64_t time;		/* timestamp ticks, summed over the sources */
	bool has_time;		/* any timestamp came */
	uint64_t dropped;	/* call paths folded into their caller: the node cap was reached */
	uint64_t nodes;		/* nodes (spoor_calls_count()) */
	uint32_t max_nodes;	/* the node cap */
};

/*
 * The totals of @s so far into @out (@size: sizeof(*out) as the caller
 * knows it).  Returns 0, SPOOR_E_NOMEM (no memory for the inclusive
 * counts) or SPOOR_E_INVAL (not a call-tree sink, NULL).
 */
int spoor_calls_total(struct spoor_sink *s, struct spoor_calls_total *out, size_t size);

/*
 * The tree as indented text to @out: per source, each node with its kind
 * (traps and interrupts marked with their cause), entries, inclusive and
 * exclusive instructions, hottest first; nodes deeper than @max_depth (0:
 * no limit) summarised in one line under their ancestor at the limit.
 * Two spaces of indent per level, at most 64 levels' worth: deeper nodes
 * say their level as "[N] " after that indent.  A last line counts the
 * dropped paths, if any.  Returns 0, SPOOR_E_IO (a failed write, errno set), SPOOR_E_NOMEM or
 * SPOOR_E_INVAL.
 */
int spoor_calls_write_text(struct spoor_sink *s, FILE *out, unsigned max_depth);

/*
 * The tree as one JSON document to @out: {"instructions":N,
 * "dropped_paths":N, "sources": [{"source":0, "insns":N, "children":[node
 * ...]}]} where a node is {"function":..,"kind":"call","count":..,"insns":..,
 * "self":.., ["cause":..,] ["time":..,"self_time":..,] ["dropped":N,]
 * "children":[...]} ("dropped": entries of call paths folded into it at
 * the node cap; "kind": call, tail, jump,
 * root, trap, interrupt); below @max_depth (0: no limit) a node has
 * "truncated": true with its children's totals in its "insns" only.
 * Returns as spoor_calls_write_text().
 */
int spoor_calls_write_json(struct spoor_sink *s, FILE *out, unsigned max_depth);

#ifdef __cplusplus
}
#endif

#endif /* SPOOR_CALLS_H */
