// SPDX-License-Identifier: MIT
/*
 * spoor coverage: instruction, line and branch coverage of one or more
 * traces, as an lcov tracefile or a summary table (spoor/coverage.h).
 */
#include <errno.h>
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
	FILE *out;		/* opened by start(): an unwritable -o fails before decoding */
	struct spoor_funcs *funcs;
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

/* Returns the coverage sink over @img, or NULL after a message. */
static struct spoor_sink *cov_start(void *st, struct spoor_image *img)
{
	struct cov_cli *cc = st;

	if (!img || !spoor_image_elf_name(img)) {
		fprintf(stderr, "spoor coverage: no program: give its ELF file with --elf "
			"(coverage is counted against its functions)\n");
		return NULL;
	}
	if (cc->format == FMT_DEFAULT)
		cc->format = cc->path ? FMT_LCOV : FMT_SUMMARY;
	if (cc->path) {
		cc->out = fopen(cc->path, "w");
		if (!cc->out) {
			fprintf(stderr, "spoor coverage: writing %s: %s\n", cc->path,
				strerror(errno));
			return NULL;
		}
	}
	cc->funcs = spoor_funcs_new(img);
	cc->sink = cc->funcs ? spoor_coverage_new(cc->funcs) : NULL;
	if (!cc->sink) {
		fprintf(stderr, "spoor coverage: %s\n", spoor_errstr(SPOOR_E_NOMEM));
		return NULL;
	}
	return cc->sink;
}

/* The live view: totals and the hottest functions. */
static void cov_refresh(void *st, FILE *out)
{
	struct cov_cli *cc = st;

	if (cc->sink)
		spoor_coverage_write_top(cc->sink, out, TOP_FUNCS);
}

/* Returns 0 after writing the results, or CLI_EXIT_ERROR after a message. */
static int cov_finish(void *st)
{
	struct cov_cli *cc = st;
	FILE *out = cc->out ? cc->out : stdout;
	const char *name = cc->path ? cc->path : "output";
	int err, saved;

	if (!cc->sink)
		return CLI_EXIT_ERROR;
	err = spoor_sink_error(cc->sink);
	if (err) {
		fprintf(stderr, "spoor coverage: %s\n", spoor_errstr(err));
		return CLI_EXIT_ERROR;
	}
	errno = 0;
	if (cc->format == FMT_LCOV)
		err = spoor_coverage_write_lcov(cc->sink, out, cc->test_name);
	else
		err = spoor_coverage_write_summary(cc->sink, out);
	saved = errno;
	if (cc->out) {
		if (fclose(cc->out) && !err) {
			err = SPOOR_E_IO;
			saved = errno;
		}
		cc->out = NULL;
	}
	if (err == SPOOR_E_IO) {
		fprintf(stderr, "spoor coverage: writing %s: %s\n", name,
			saved ? strerror(saved) : "write error");
		return CLI_EXIT_ERROR;
	}
	if (err) {
		fprintf(stderr, "spoor coverage: %s\n", spoor_errstr(err));
		return CLI_EXIT_ERROR;
	}
	return 0;
}

/* Frees the state and its sink. */
static void cov_free(void *st)
{
	struct cov_cli *cc = st;

	if (!cc)
		return;
	if (cc->out)
		fclose(cc->out);
	spoor_sink_free(cc->sink);
	spoor_funcs_free(cc->funcs);
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
