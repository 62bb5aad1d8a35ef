// SPDX-License-Identifier: MIT
/*
 * spoor timeline: the trace as Chrome/Perfetto trace-event JSON (functions
 * as nested slices per hart, traps and interrupts as instants, gaps marked),
 * for ui.perfetto.dev and chrome://tracing.  The front end (cli_analysis.h)
 * reads the inputs; this is the table around the timeline sink.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_analysis.h"
#include "spoor/error.h"
#include "spoor/funcs.h"
#include "spoor/timeline.h"

enum {
	OPT_MIN_INSNS = CLI_OPT_ANALYSIS,
	OPT_MAX_EVENTS,
	OPT_TIME_AXIS,
	OPT_OUTPUT,
};

struct timeline_cmd {
	const char *path;		/* -o FILE; NULL or "-": stdout */
	struct spoor_timeline_config cfg;
	struct spoor_sink *sink;
	struct cli_output out;		/* opened by start(): a bad -o fails before decoding */
};

static const struct option timeline_options[] = {
	{ "output", required_argument, NULL, OPT_OUTPUT },
	{ "min-insns", required_argument, NULL, OPT_MIN_INSNS },
	{ "max-events", required_argument, NULL, OPT_MAX_EVENTS },
	{ "time-axis", required_argument, NULL, OPT_TIME_AXIS },
	{ NULL, 0, NULL, 0 },
};

static const char *const axis_names[] = { "auto", "instructions", "timestamps" };

/* Returns a new command state with the defaults, or NULL. */
static void *timeline_new(void)
{
	struct timeline_cmd *t = calloc(1, sizeof(*t));

	if (t)
		spoor_timeline_config_init(&t->cfg);
	return t;
}

/* Returns 0, or CLI_EXIT_ERROR after a message about option @c. */
static int timeline_option(void *st, int c, const char *arg)
{
	struct timeline_cmd *t = st;
	unsigned long v;
	int i;

	switch (c) {
	case 'o':
	case OPT_OUTPUT:
		t->path = arg;
		return 0;
	case OPT_MIN_INSNS:
		if (!cli_parse_uint("timeline", "--min-insns", arg, 0, ULONG_MAX, &v))
			return CLI_EXIT_ERROR;
		t->cfg.min_insns = v;
		return 0;
	case OPT_MAX_EVENTS:
		if (!cli_parse_uint("timeline", "--max-events", arg, 1, ULONG_MAX, &v))
			return CLI_EXIT_ERROR;
		t->cfg.max_events = v;
		return 0;
	case OPT_TIME_AXIS:
		i = cli_choice("timeline", "--time-axis", arg, axis_names, 3);
		if (i < 0)
			return CLI_EXIT_ERROR;
		t->cfg.axis = (uint8_t)i;
		return 0;
	default:
		fprintf(stderr, "spoor timeline: unknown option\n");
		return CLI_EXIT_ERROR;
	}
}

/* The output's name in messages. */
static const char *out_name(const struct timeline_cmd *t)
{
	return t->path && strcmp(t->path, "-") ? t->path : "standard output";
}

/* Returns the timeline sink over @funcs writing to the output, or NULL after a message. */
static struct spoor_sink *timeline_start(void *st, struct spoor_funcs *funcs)
{
	struct timeline_cmd *t = st;

	if (cli_output_open(&t->out, "timeline", t->path))
		return NULL;
	t->sink = spoor_timeline_new(funcs, t->out.f, &t->cfg);
	if (!t->sink)
		fprintf(stderr, "spoor timeline: out of memory\n");
	return t->sink;
}

/* The live view: the events written so far. */
static void timeline_refresh(void *st, FILE *out)
{
	struct timeline_cmd *t = st;
	struct spoor_timeline_stats s;

	if (!t->sink || spoor_timeline_stats(t->sink, &s, sizeof(s)))
		return;
	fprintf(out, "timeline: %" PRIu64 " events written to %s: %" PRIu64 " slices (%" PRIu64
		" dropped), %" PRIu64 " traps, %" PRIu64 " gaps%s\n", s.events, out_name(t),
		s.slices, s.dropped, s.traps, s.gaps, s.truncated ? "; --max-events reached" : "");
}

/*
 * Completes the file and puts it in place; returns 0, or CLI_EXIT_ERROR
 * after a message (the file at -o left as it was).
 */
static int timeline_finish(void *st)
{
	struct timeline_cmd *t = st;
	struct spoor_timeline_stats s;
	int ret;

	if (!t->sink)
		return CLI_EXIT_ERROR;
	ret = spoor_timeline_finish(t->sink);
	ret = cli_output_done(&t->out, ret);
	if (!ret && !spoor_timeline_stats(t->sink, &s, sizeof(s)) && s.truncated)
		fprintf(stderr, "spoor timeline: stopped after %" PRIu64
			" events (--max-events); open slices closed\n", s.events);
	return ret;
}

/* Frees the state, its sink and functions (an output not finished is dropped). */
static void timeline_free(void *st)
{
	struct timeline_cmd *t = st;

	if (!t)
		return;
	spoor_sink_free(t->sink);
	cli_output_close(&t->out, false);
	free(t);
}

const struct cli_analysis cli_timeline = {
	.name = "timeline",
	.summary = "The trace as Chrome/Perfetto trace-event JSON (ui.perfetto.dev,\n"
		   "chrome://tracing): one track per hart, functions as nested slices,\n"
		   "traps and interrupts as instants, gaps and trace stops marked.  ts is\n"
		   "timestamp ticks when the trace has timestamps, else the hart's retired\n"
		   "instructions (1 us on the axis = 1 instruction); the track names and\n"
		   "otherData.time_axis say which.  Written as it goes, in bounded memory.",
	.usage = "  -o, --output FILE    write the JSON to FILE (default: standard output)\n"
		 "  --min-insns N        only slices of at least N instructions (a call's\n"
		 "                       slice is written once it has lasted N; shorter\n"
		 "                       calls vanish into their caller; one a trap or gap\n"
		 "                       falls in is kept, so it shows where it hit): keeps\n"
		 "                       huge traces small enough for the viewers\n"
		 "  --max-events N       stop after N events, then close every open slice\n"
		 "                       (N plus at most the stack depth; the file ends\n"
		 "                       there and otherData.truncated is true)\n"
		 "  --time-axis AXIS     auto (default: timestamps if the trace has them),\n"
		 "                       instructions, or timestamps\n",
	.options = timeline_options,
	.shortopts = "o:",
	.new = timeline_new,
	.option = timeline_option,
	.start = timeline_start,
	.refresh = timeline_refresh,
	.finish = timeline_finish,
	.free = timeline_free,
};
