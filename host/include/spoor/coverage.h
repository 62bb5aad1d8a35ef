/* SPDX-License-Identifier: MIT */
/*
 * Coverage: which instructions, source lines and conditional branches of
 * the program a trace retired, and how often.  The sink counts distinct
 * blocks only (first and last instruction → executions, and for a block
 * ending at a conditional branch how often it was taken and not taken), so
 * feeding it costs one hash lookup per block and its memory grows with the
 * program, never with the trace.  The counts are spread over instructions,
 * lines (DWARF, via spoor_image_line()) and branches only when they are
 * written out, against every instruction of every function symbol of the
 * image (and, in an executable segment without any function symbol, such
 * as a stripped program's, every instruction a linear sweep finds, in
 * pseudo functions per page: spoor/funcs.h), so what never ran is counted
 * too.  The program map this needs is built on the first output; when
 * that fails (no memory) nothing of it is kept and the next output tries
 * again.
 *
 * Any number of traces may be fed into one sink (spoor_sink_restart()
 * between them): their counts add up.
 */
#ifndef SPOOR_COVERAGE_H
#define SPOOR_COVERAGE_H

#include <stdint.h>
#include <stdio.h>

#include "spoor/funcs.h"
#include "spoor/sink.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Program-wide figures: "hit" of "found" (lcov's words). */
struct spoor_coverage_totals {
	uint64_t insns_hit, insns_found;	/* distinct instructions retired / of the functions */
	uint64_t lines_hit, lines_found;	/* source lines (all files with line information) */
	uint64_t branches_hit, branches_found;	/* branch directions (2 per conditional branch) */
	/*
	 * Functions with instructions; hit: a symbol's when its first
	 * instruction retired (lcov's FNH, FNDA > 0), a pseudo function's
	 * (a page of code without a symbol, no entry point) when any did.
	 */
	uint64_t funcs_hit, funcs_found;
	uint64_t retired;			/* instructions retired in all (with repeats) */
};

/*
 * Returns a new coverage sink over the functions @funcs (kept by pointer:
 * must outlive the sink; the image is spoor_funcs_image()'s), or NULL (no
 * memory, NULL @funcs).  Free it with spoor_sink_free().  Errors met while
 * it is fed (no memory for a new block) are kept for spoor_sink_error().
 */
struct spoor_sink *spoor_coverage_new(struct spoor_funcs *funcs);

/*
 * Writes an lcov tracefile (TN, then per source file SF, FN, FNDA, FNF,
 * FNH, BRDA, BRF, BRH, DA, LF, LH, end_of_record) to @out.  @test_name
 * (may be NULL or empty: no name) is the TN; characters lcov does not
 * accept in it become '_'.  Only code with line information is written.
 * Returns 0, SPOOR_E_NOT_FOUND (the program has no line information at
 * all: nothing is written, as lcov rejects a file without records),
 * SPOOR_E_IO (a write failed: ferror(@out), errno as it was),
 * SPOOR_E_NOMEM, or SPOOR_E_INVAL (NULL argument, not a coverage sink).
 */
int spoor_coverage_write_lcov(struct spoor_sink *s, FILE *out, const char *test_name);

/*
 * Writes the terminal summary to @out: one row per function (function,
 * source file:line, instructions, lines and branches covered of total, and
 * calls: executions of its first instruction), by file then address, a
 * totals row, and the functions that never ran.  Names and sources wider
 * than their column are cut, ending in "...".  Returns 0, SPOOR_E_IO,
 * SPOOR_E_NOMEM or SPOOR_E_INVAL, as spoor_coverage_write_lcov().
 */
int spoor_coverage_write_summary(struct spoor_sink *s, FILE *out);

/*
 * Writes the @max functions that retired the most instructions so far
 * ("function  retired  insns% lines% branches%" rows), after one totals
 * line: the live view (names cut as the summary's).  Returns 0, SPOOR_E_IO,
 * SPOOR_E_NOMEM or SPOOR_E_INVAL, as spoor_coverage_write_lcov().
 */
int spoor_coverage_write_top(struct spoor_sink *s, FILE *out, unsigned max);

/*
 * Fills @t with the totals so far.  Returns 0, SPOOR_E_NOMEM or
 * SPOOR_E_INVAL (NULL argument, not a coverage sink).
 */
int spoor_coverage_totals(struct spoor_sink *s, struct spoor_coverage_totals *t);

/*
 * The counts of the instruction at @addr so far: executions, and for a
 * conditional branch how often it was taken and not taken (NULL pointers
 * are skipped).  Returns 0, SPOOR_E_NOT_FOUND (no function of the image
 * holds an instruction there and none retired there), SPOOR_E_NOMEM or
 * SPOOR_E_INVAL.
 */
int spoor_coverage_insn(struct spoor_sink *s, uint64_t addr, uint64_t *count, uint64_t *taken,
			uint64_t *not_taken);

#ifdef __cplusplus
}
#endif

#endif /* SPOOR_COVERAGE_H */
