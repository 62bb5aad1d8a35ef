/* SPDX-License-Identifier: MIT */
/*
 * Profiles (spoor profile): flat and call-graph profiles by retired
 * instructions, and by timestamp ticks when the trace has them.  The sink
 * is the call tree of calls.h (a calling-context tree over spoor_callstack:
 * calls and returns from spoor's own classification, tail calls,
 * longjmp-like unwinds and traps that never return handled there), so
 * memory grows with the program's distinct call paths, never with the
 * trace; the writers below turn it into callgrind files (KCachegrind,
 * QCachegrind, callgrind_annotate), folded stacks (flamegraph.pl,
 * speedscope) and a terminal top-N.  spoor_calls_node() and the other
 * calls.h readers work on a profile sink too.
 */
#ifndef SPOOR_PROFILE_H
#define SPOOR_PROFILE_H

#include <stdio.h>

#include "spoor/calls.h"
#include "spoor/funcs.h"
#include "spoor/sink.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Returns a profile sink over the functions @funcs (kept by pointer: must
 * outlive it, and so must its image), or NULL (no memory, NULL @funcs).
 */
struct spoor_sink *spoor_profile_new(struct spoor_funcs *funcs);

/*
 * The profile as a callgrind file (format version 1) to @out: events Ir
 * (retired instructions) and, when the trace had timestamps, Time; each
 * function (fl=/fn=, its source file and the line of its first
 * instruction from DWARF, "???" and 0 without) with its exclusive cost on
 * that line and one calls= arc per callee with the callee's inclusive
 * cost; "summary:" and "totals:" are the instructions retired (so
 * callgrind_annotate's PROGRAM TOTALS is the instruction count).
 * Recursion: an arc from a function to itself counts every call, but only
 * the calls its outermost activation makes carry their inclusive cost
 * (the deeper ones are inside those already), so the arc never exceeds
 * its caller's inclusive cost nor the total: fib's arc to fib is the cost
 * of all the recursion below the outermost fib, once.  Mutual recursion
 * (f calls g calls f) is left to KCachegrind's cycle detection: each of
 * its arcs carries the inclusive cost of every call.
 * @cmd_line (may be NULL) goes into "cmd:".  Returns 0, SPOOR_E_IO (a
 * failed write, errno set), SPOOR_E_NOMEM or SPOOR_E_INVAL (not a profile
 * or call-tree sink, NULL).
 */
int spoor_profile_write_callgrind(struct spoor_sink *s, FILE *out, const char *cmd_line);

/*
 * The profile as folded stacks to @out: one line "outer;...;inner COUNT"
 * per call path with instructions retired in its innermost function
 * (exclusive), trap and interrupt handlers as "[trap CAUSE] name" and
 * "[interrupt CAUSE] name", each line prefixed "source N;" when more than
 * one source traced.  The counts sum to the instructions retired.
 * Returns as spoor_profile_write_callgrind().
 */
int spoor_profile_write_folded(struct spoor_sink *s, FILE *out);

/*
 * The flat profile to @out: a header with the totals, then the @n (0:
 * every) functions that retired the most instructions themselves, each
 * with exclusive and inclusive instructions and their share of the total,
 * and the calls to it (call instructions; not tail calls, jumps or traps);
 * the time columns too when the trace had timestamps.  A function's
 * inclusive count is its outermost activations' (recursion counts once).
 * The header says how many call paths were dropped when the tree reached
 * its node cap (calls.h), if any.
 * Returns as spoor_profile_write_callgrind().
 */
int spoor_profile_write_top(struct spoor_sink *s, FILE *out, unsigned n);

#ifdef __cplusplus
}
#endif

#endif /* SPOOR_PROFILE_H */
