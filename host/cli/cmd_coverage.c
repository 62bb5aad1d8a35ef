// SPDX-License-Identifier: MIT
/*
 * spoor coverage: instruction, line and branch coverage of one or more
 * traces, as an lcov tracefile or a summary table (spoor/coverage.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_analysis.h"
#include "spoor/coverage.h"
#include "spoor/error.h"
#include "spoor/funcs.h"

#define TOP_FUNCS 10		/* functions in the live view */

enum cov_format { FMT_DEFAULT, FMT_LCOV, FMT_SUMMARY };

enum { OPT_FORMAT = CLI_OPT_ANALYSIS, OPT_TEST_NAME };

struct cov_cli {
	enum cov_format format;
	const char *path;	/* -o, or NULL: stdout */
	const char *test_name;
	struct cli_output out;	/* opened by start(): a bad -o fails before decoding */
	struct spoor_sink *sink;
};

static const struct option cov_options[] = {
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "output", required_argument, NULL, 'o' },
	{ "test-name", required_argument, NULL, OPT_TEST_NAME },
	{ NULL, 0, NULL, 0 },
};

/* Returns the command's state with the defaults, or NULL. */
static void *cov_new(void)
{
	return calloc(1, sizeof(struct cov_cli));
}

/* Returns 0 after taking option @c, or CLI_EXIT_ERROR after a message. */
static int cov_option(void *st, int c, const char *arg)
{
	static const char *const formats[] = { "lcov", "summary" };
	struct cov_cli *cc = st;
	int i;

	switch (c) {
	case OPT_FORMAT:
		i = cli_choice("coverage", "--format", arg, formats, 2);
		if (i < 0)
			return CLI_EXIT_ERROR;
		cc->format = i ? FMT_SUMMARY : FMT_LCOV;
		return 0;
	case 'o':
		cc->path = arg;
		return 0;
	case OPT_TEST_NAME:
		cc->test_name = arg;
		return 0;
	default:
		fprintf(stderr, "spoor coverage: unknown option\n");
		return CLI_EXIT_ERROR;
	}
}

/*
 * Returns 0 when the program has source lines an lcov tracefile can hold,
 * or CLI_EXIT_ERROR after a message.
 */
static int cov_check_lines(struct cov_cli *cc, const struct spoor_image *img)
{
	struct spoor_coverage_totals t;
	int err = spoor_coverage_totals(cc->sink, &t);

	if (err) {
		fprintf(stderr, "spoor coverage: %s\n", spoor_errstr(err));
		return CLI_EXIT_ERROR;
	}
	if (!t.lines_found) {
		fprintf(stderr, "spoor coverage: %s has no line information (DWARF): lcov needs "
			"source lines; --format summary works without\n",
			spoor_image_elf_name(img));
		return CLI_EXIT_ERROR;
	}
	return 0;
}

/* Returns the coverage sink over @funcs, or NULL after a message. */
static struct spoor_sink *cov_start(void *st, struct spoor_funcs *funcs)
{
	struct spoor_image *img = spoor_funcs_image(funcs);
	struct cov_cli *cc = st;

	if (!img || !spoor_image_elf_name(img)) {
		fprintf(stderr, "spoor coverage: no program: give its ELF file with --elf "
			"(coverage is counted against its functions)\n");
		return NULL;
	}
	if (cc->format == FMT_DEFAULT)
		cc->format = cc->path ? FMT_LCOV : FMT_SUMMARY;
	cc->sink = spoor_coverage_new(funcs);
	if (!cc->sink) {
		fprintf(stderr, "spoor coverage: %s\n", spoor_errstr(SPOOR_E_NOMEM));
		return NULL;
	}
	/* Both fail before decoding: an unwritable -o, no lines for lcov. */
	if (cli_output_open(&cc->out, "coverage", cc->path) ||
	    (cc->format == FMT_LCOV && cov_check_lines(cc, img)))
		return NULL;
	return cc->sink;
}

/* The live view: totals and the hottest functions. */
static void cov_refresh(void *st, FILE *out)
{
	struct cov_cli *cc = st;

	if (cc->sink)
		spoor_coverage_write_top(cc->sink, out, TOP_FUNCS);
}

/*
 * Returns 0 after writing the results and putting the -o file in place, or
 * CLI_EXIT_ERROR after a message (a previous -o file then stays as it was).
 */
static int cov_finish(void *st)
{
	struct cov_cli *cc = st;
	int err;

	if (!cc->sink || !cc->out.f)
		return cli_output_close(&cc->out, false);
	errno = 0;
	if (cc->format == FMT_LCOV)
		err = spoor_coverage_write_lcov(cc->sink, cc->out.f, cc->test_name);
	else
		err = spoor_coverage_write_summary(cc->sink, cc->out.f);
	return cli_output_done(&cc->out, err);
}

/* Frees the state and its sink; an -o file not finished is dropped. */
static void cov_free(void *st)
{
	struct cov_cli *cc = st;

	if (!cc)
		return;
	cli_output_close(&cc->out, false);
	spoor_sink_free(cc->sink);
	free(cc);
}

const struct cli_analysis cli_coverage = {
	.name = "coverage",
	.summary = "instruction, line and branch coverage (lcov tracefile or summary)",
	.usage =
		"  --format FMT         lcov (an lcov tracefile: genhtml renders it) | summary\n"
		"                       (a table per function, then those never reached);\n"
		"                       default: lcov with -o, else summary\n"
		"  -o, --output FILE    write to FILE instead of stdout\n"
		"  --test-name NAME     the tracefile's test name (TN)\n",
	.options = cov_options,
	.shortopts = "o:",
	.new = cov_new,
	.option = cov_option,
	.start = cov_start,
	.refresh = cov_refresh,
	.finish = cov_finish,
	.free = cov_free,
};
