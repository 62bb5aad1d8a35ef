/* SPDX-License-Identifier: MIT */
/*
 * The timeline: the trace as Chrome/Perfetto trace-event JSON (the "JSON
 * object format" that ui.perfetto.dev and chrome://tracing open).  One
 * process (pid 1, named after the program), one thread per hart (tid = the
 * source), functions as nested slices ("B"/"E" events, from the call
 * stacks of callstack.h), traps and interrupts as instants ("i") at the
 * handler's entry, gaps, lost packets and trace stop/start as instants on
 * the hart's track.
 *
 * Events are written as they happen, never kept: memory grows with the
 * program (and the call stack depth), never with the trace.  On every
 * track every "B" has its "E" (open slices are closed at the end) and ts
 * never decreases in file order.
 *
 * The time axis: "ts" counts microseconds in that format.  With timestamps
 * in the trace (EV_TIME), ts is the hart's last timestamp in ticks (1 µs on
 * the axis = 1 tick); without, ts is the number of instructions the hart
 * retired (1 µs = 1 instruction).  The process and thread names and
 * otherData.time_axis say which.
 *
 * For huge traces: min_insns drops slices shorter than that many
 * instructions (a slice's "B" is written once it has lasted that long, so
 * every "B" written gets its "E"); max_events stops after that many events,
 * closing every open slice.
 */
#ifndef SPOOR_TIMELINE_H
#define SPOOR_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "spoor/funcs.h"
#include "spoor/sink.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What ts counts. */
enum spoor_tl_axis {
	SPOOR_TL_AXIS_AUTO,	/* timestamps if one came before the first block, else instructions */
	SPOOR_TL_AXIS_INSNS,	/* retired instructions of the hart */
	SPOOR_TL_AXIS_TIME,	/* timestamp ticks (0 until a hart's first timestamp) */
};

struct spoor_timeline_config {
	const char *process_name;	/* NULL: the image's ELF file name (copied) */
	uint64_t min_insns;	/* 0: every slice; else only slices of at least this many insns */
	uint64_t max_events;	/* 0: no limit; else stop after this many (then close the slices) */
	unsigned max_depth;	/* call stack bound; 0: SPOOR_CALLSTACK_DEPTH */
	uint8_t axis;		/* enum spoor_tl_axis */
};

/* Fills @cfg with the defaults: every slice, no limit, the axis chosen automatically. */
void spoor_timeline_config_init(struct spoor_timeline_config *cfg);

/*
 * Returns a timeline sink writing to @out (kept by pointer, not closed),
 * with the functions of @funcs (kept by pointer: must outlive the sink), or
 * NULL (NULL @funcs or @out, an axis out of range, no memory).  @cfg NULL
 * means the defaults.  Nothing is written before the first event or block;
 * spoor_timeline_finish() completes the file.  A write that fails sets the
 * sink's error (spoor_sink_error(): SPOOR_E_IO) and the sink stops writing;
 * no memory sets SPOOR_E_NOMEM.
 */
struct spoor_sink *spoor_timeline_new(struct spoor_funcs *funcs, FILE *out,
				      const struct spoor_timeline_config *cfg);

/*
 * Ends the timeline @s: closes every open slice at its hart's end time,
 * writes the closing brackets, displayTimeUnit and otherData (time_axis,
 * counts) and flushes @out.  Further blocks and events are ignored.
 * Returns 0, SPOOR_E_IO (a write failed, now or before: errno as it was
 * then), SPOOR_E_NOMEM (the sink ran out of memory: the file is complete
 * but lacks what came after) or SPOOR_E_INVAL (@s is not a timeline, or
 * was finished already).
 */
int spoor_timeline_finish(struct spoor_sink *s);

struct spoor_timeline_stats {
	uint64_t events;	/* trace events written (metadata included) */
	uint64_t slices;	/* slices written (B/E pairs) */
	uint64_t dropped;	/* slices dropped: shorter than min_insns, or after max_events */
	uint64_t traps;		/* trap and interrupt instants */
	uint64_t gaps;		/* gap and lost-packet instants */
	uint8_t axis;		/* enum spoor_tl_axis: AUTO while not decided yet */
	bool truncated;		/* max_events was reached */
};

/*
 * The counts of @s so far into @st (@size: sizeof(*st) as the caller knows
 * it).  Returns 0 or SPOOR_E_INVAL (@s is not a timeline, NULL).
 */
int spoor_timeline_stats(const struct spoor_sink *s, struct spoor_timeline_stats *st,
			 size_t size);

/*
 * The name of trap @cause ("illegal instruction", "machine timer"), or
 * NULL when the privileged spec gives it none.
 */
const char *spoor_timeline_cause_name(uint64_t cause, bool interrupt);

#ifdef __cplusplus
}
#endif

#endif /* SPOOR_TIMELINE_H */
