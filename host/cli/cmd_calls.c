// SPDX-License-Identifier: MIT
/*
 * spoor calls: the call tree of a trace (calls.h) as indented text or
 * JSON, to a depth; the inputs and the reading are spoor decode's
 * (cli_analysis.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_analysis.h"
#include "spoor/calls.h"
#include "spoor/error.h"
#include "spoor/funcs.h"

enum calls_format { FMT_TEXT, FMT_JSON, FMT_AUTO };

/* --stack-depth's most: deeper stacks make trees no one reads, and output to match. */
#define STACK_DEPTH_MAX 65536

enum {
	OPT_FORMAT = CLI_OPT_ANALYSIS,
	OPT_DEPTH,
	OPT_STACK_DEPTH,
};

struct calls_cmd {
	int format;		/* enum calls_format (AUTO: json for -o *.json, else text) */
	const char *out_path;	/* -o, or NULL: stdout */
	unsigned long depth;	/* --depth: levels written (0: all) */
	unsigned long stack_depth;	/* --stack-depth: deepest call stack followed */
	struct cli_output out;		/* opened by start(): a bad -o fails before decoding */
	struct spoor_sink *sink;
};

static const struct option calls_options[] = {
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "depth", required_argument, NULL, OPT_DEPTH },
	{ "stack-depth", required_argument, NULL, OPT_STACK_DEPTH },
	{ "output", required_argument, NULL, 'o' },
	{ NULL, 0, NULL, 0 },
};

/* Returns a calls command's state with the defaults, or NULL. */
static void *calls_new(void)
{
	struct calls_cmd *p = calloc(1, sizeof(*p));

	if (p)
		p->format = FMT_AUTO;
	return p;
}

/* Returns 0 after taking option @c, or an exit status after a message. */
static int calls_option(void *st, int c, const char *arg)
{
	static const char *const formats[] = { "text", "json" };
	struct calls_cmd *p = st;
	int i;

	switch (c) {
	case OPT_FORMAT:
		i = cli_choice("calls", "--format", arg, formats, 2);
		if (i < 0)
			return CLI_EXIT_ERROR;
		p->format = i;
		return 0;
	case OPT_DEPTH:
		return cli_parse_uint("calls", "--depth", arg, 0, 1000000, &p->depth) ?
		       0 : CLI_EXIT_ERROR;
	case OPT_STACK_DEPTH:
		return cli_parse_uint("calls", "--stack-depth", arg, 1, STACK_DEPTH_MAX,
				      &p->stack_depth) ? 0 : CLI_EXIT_ERROR;
	case 'o':
		p->out_path = arg;
		return 0;
	default:
		fprintf(stderr, "spoor calls: unknown option\n");
		return CLI_EXIT_ERROR;
	}
}

/* Returns the call tree's sink, or NULL after a message. */
static struct spoor_sink *calls_start(void *st, struct spoor_funcs *funcs)
{
	struct calls_cmd *p = st;

	if (cli_output_open(&p->out, "calls", p->out_path))
		return NULL;
	p->sink = spoor_calls_new(funcs, (unsigned)p->stack_depth);
	if (!p->sink)
		fprintf(stderr, "spoor calls: out of memory\n");
	return p->sink;
}

/* The tree so far, two levels deep. */
static void calls_refresh(void *st, FILE *out)
{
	struct calls_cmd *p = st;

	if (p->sink)
		spoor_calls_write_text(p->sink, out, 2);
}

/*
 * Returns 0 after writing the tree and putting the file in place, or
 * CLI_EXIT_ERROR after a message (the file at -o left as it was).
 */
static int calls_finish(void *st)
{
	struct calls_cmd *p = st;
	size_t n = p->out_path ? strlen(p->out_path) : 0;
	int ret;

	if (!p->sink)
		return CLI_EXIT_ERROR;
	if (p->format == FMT_AUTO)
		p->format = n > 5 && !strcmp(p->out_path + n - 5, ".json") ? FMT_JSON : FMT_TEXT;
	errno = 0;
	if (p->format == FMT_JSON)
		ret = spoor_calls_write_json(p->sink, p->out.f, (unsigned)p->depth);
	else
		ret = spoor_calls_write_text(p->sink, p->out.f, (unsigned)p->depth);
	return cli_output_done(&p->out, ret);
}

/* Frees the state and its sink (an output not finished is dropped). */
static void calls_free(void *st)
{
	struct calls_cmd *p = st;

	if (!p)
		return;
	cli_output_close(&p->out, false);
	spoor_sink_free(p->sink);
	free(p);
}

const struct cli_analysis cli_calls = {
	.name = "calls",
	.summary = "The call tree: nested calls and returns with counts and instructions,\n"
		   "traps and interrupts marked, as text or JSON.",
	.usage = "  --format F           text or json (default: json for -o FILE.json, else text)\n"
		 "  --depth N            write N levels of calls (default 0: all); deeper\n"
		 "                       ones are summed up at the limit\n"
		 "  --stack-depth N      follow call stacks up to N frames deep (default 4096,\n"
		 "                       at most 65536)\n"
		 "  -o, --output FILE    write to FILE (default: standard output)\n",
	.options = calls_options,
	.shortopts = "o:",
	.new = calls_new,
	.option = calls_option,
	.start = calls_start,
	.refresh = calls_refresh,
	.finish = calls_finish,
	.free = calls_free,
};
