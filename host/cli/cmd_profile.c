// SPDX-License-Identifier: MIT
/*
 * spoor profile: flat and call-graph profiles of a trace (profile.h) as a
 * callgrind file, folded stacks or a terminal top-N; the inputs and the
 * reading are spoor decode's (cli_analysis.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_analysis.h"
#include "spoor/error.h"
#include "spoor/funcs.h"
#include "spoor/profile.h"

enum prof_format { FMT_AUTO = -1, FMT_CALLGRIND, FMT_FOLDED, FMT_TOP };

enum {
	OPT_FORMAT = CLI_OPT_ANALYSIS,
	OPT_TOP,
};

struct prof_cmd {
	int format;		/* enum prof_format */
	const char *out_path;	/* -o, or NULL: stdout */
	unsigned long top;	/* --top: rows of the top-N (0: all) */
	char cmd_line[512];	/* for callgrind's "cmd:" */
	struct cli_output out;	/* opened by start(): a bad -o fails before decoding */
	struct spoor_sink *sink;
};

static const struct option prof_options[] = {
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "output", required_argument, NULL, 'o' },
	{ NULL, 0, NULL, 0 },
};

/* Returns a profile command's state with the defaults, or NULL. */
static void *prof_new(void)
{
	struct prof_cmd *p = calloc(1, sizeof(*p));

	if (p) {
		p->format = FMT_AUTO;
		p->top = 20;
	}
	return p;
}

/* Returns 0 after taking option @c, or an exit status after a message. */
static int prof_option(void *st, int c, const char *arg)
{
	static const char *const formats[] = { "callgrind", "folded", "top" };
	struct prof_cmd *p = st;
	int i;

	switch (c) {
	case OPT_FORMAT:
		i = cli_choice("profile", "--format", arg, formats, 3);
		if (i < 0)
			return CLI_EXIT_ERROR;
		p->format = i;
		return 0;
	case OPT_TOP:
		return cli_parse_uint("profile", "--top", arg, 0, 1000000, &p->top) ?
		       0 : CLI_EXIT_ERROR;
	case 'o':
		p->out_path = arg;
		return 0;
	default:
		fprintf(stderr, "spoor profile: unknown option\n");
		return CLI_EXIT_ERROR;
	}
}

/* Returns whether @s ends with @suffix. */
static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

/* The format the name of output file @path asks for (top when none). */
static int format_of(const char *path)
{
	const char *base;

	if (!path)
		return FMT_TOP;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (!strncmp(base, "callgrind.out", 13) || ends_with(base, ".callgrind"))
		return FMT_CALLGRIND;
	if (ends_with(base, ".folded"))
		return FMT_FOLDED;
	return FMT_TOP;
}

/* Returns the profile's sink, or NULL after a message. */
static struct spoor_sink *prof_start(void *st, struct spoor_funcs *funcs)
{
	struct prof_cmd *p = st;
	const char *elf = spoor_image_elf_name(spoor_funcs_image(funcs));

	if (p->format == FMT_AUTO)
		p->format = format_of(p->out_path);
	snprintf(p->cmd_line, sizeof(p->cmd_line), "%s", elf ? elf : "spoor profile");
	if (cli_output_open(&p->out, "profile", p->out_path))
		return NULL;
	p->sink = spoor_profile_new(funcs);
	if (!p->sink)
		fprintf(stderr, "spoor profile: out of memory\n");
	return p->sink;
}

/* The hottest ten functions so far. */
static void prof_refresh(void *st, FILE *out)
{
	struct prof_cmd *p = st;

	if (p->sink)
		spoor_profile_write_top(p->sink, out, 10);
}

/*
 * Returns 0 after writing the profile and putting the file in place, or
 * CLI_EXIT_ERROR after a message (the file at -o left as it was).
 */
static int prof_finish(void *st)
{
	struct prof_cmd *p = st;
	FILE *out = p->out.f;
	int ret;

	if (!p->sink)
		return CLI_EXIT_ERROR;
	errno = 0;
	switch (p->format) {
	case FMT_CALLGRIND:
		ret = spoor_profile_write_callgrind(p->sink, out, p->cmd_line);
		break;
	case FMT_FOLDED:
		ret = spoor_profile_write_folded(p->sink, out);
		break;
	default:
		ret = spoor_profile_write_top(p->sink, out, (unsigned)p->top);
		break;
	}
	return cli_output_done(&p->out, ret);
}

/* Frees the state and its sink (an output not finished is dropped). */
static void prof_free(void *st)
{
	struct prof_cmd *p = st;

	if (!p)
		return;
	cli_output_close(&p->out, false);
	spoor_sink_free(p->sink);
	free(p);
}

const struct cli_analysis cli_profile = {
	.name = "profile",
	.summary = "Flat and call-graph profiles by retired instructions (and timestamp ticks):\n"
		   "callgrind (KCachegrind, callgrind_annotate), folded stacks (flamegraph.pl,\n"
		   "speedscope) or a top-N with inclusive and exclusive counts.",
	.usage = "  --format F           callgrind, folded or top (default: from -o's name,\n"
		 "                       callgrind.out.* or *.callgrind: callgrind, *.folded:\n"
		 "                       folded; else top)\n"
		 "  -o, --output FILE    write to FILE (default: standard output)\n"
		 "  --top N              rows of the top-N (default 20, 0: every function)\n",
	.options = prof_options,
	.shortopts = "o:",
	.new = prof_new,
	.option = prof_option,
	.start = prof_start,
	.refresh = prof_refresh,
	.finish = prof_finish,
	.free = prof_free,
};
