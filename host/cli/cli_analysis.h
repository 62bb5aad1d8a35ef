/* SPDX-License-Identifier: MIT */
/*
 * The analysis commands (spoor coverage, profile, calls, timeline): each is
 * one table below, around its sink (spoor/sink.h).  The front end in
 * cmd_decode.c gives every one the inputs and options of spoor decode
 * (--board, --elf, --params, --encap, --unsynced ..., one or more capture
 * files or -, merged), feeds the library pipeline's blocks and events to the
 * sink, and calls finish() at the end; spoor stream feeds the same tables
 * live (--coverage FILE, --profile FILE, ...) and calls refresh() every
 * second for a top-like view.
 */
#ifndef SPOOR_CLI_ANALYSIS_H
#define SPOOR_CLI_ANALYSIS_H

#include <getopt.h>
#include <stdio.h>

#include "spoor/funcs.h"
#include "spoor/sink.h"

/* getopt_long values of the analysis commands' own long options start here. */
#define CLI_OPT_ANALYSIS 400

struct cli_analysis {
	const char *name;		/* the command: "coverage" */
	const char *summary;		/* one line: what it makes */
	const char *usage;		/* its own options' help lines */
	const struct option *options;	/* its own long options, zero-terminated */
	const char *shortopts;		/* its own short options ("o:"), without ':' first */
	/* Its state with the defaults, or NULL (no memory). */
	void *(*new)(void);
	/*
	 * One of its options (@c: a getopt_long value of its own, or 'o' for
	 * the output file when spoor stream sets it).  Returns 0, or an exit
	 * status after a one-line message.
	 */
	int (*option)(void *st, int c, const char *arg);
	/*
	 * Options parsed, the program loaded: returns its sink over @funcs
	 * (the program's functions, one table for every analysis of the run,
	 * kept by the front end until the sinks are freed; the image through
	 * spoor_funcs_image()), owned by @st; or NULL after a one-line message.
	 */
	struct spoor_sink *(*start)(void *st, struct spoor_funcs *funcs);
	/* The live view so far (a few lines, hottest first) to @out; may be NULL. */
	void (*refresh)(void *st, FILE *out);
	/*
	 * The end: writes the results (to -o FILE, else stdout).  Returns 0,
	 * or CLI_EXIT_ERROR after a message (a failed write is an error).  Not
	 * called when the sink failed other than by a write (out of memory):
	 * the front end says so, and free() drops the output.
	 */
	int (*finish)(void *st);
	/* Frees @st and its sink. */
	void (*free)(void *st);
};

extern const struct cli_analysis cli_coverage, cli_profile, cli_calls, cli_timeline;

/* Runs analysis command @an with the command line (argv[0] is its name). */
int cli_analysis_main(const struct cli_analysis *an, int argc, char **argv);

#endif
