// SPDX-License-Identifier: MIT
/* spoor capture: record a probe's trace into a capture file (host/CAPTURE.md). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_probe.h"
#include "cli_stream.h"
#include "spoor/deframe.h"
#include "spoor/error.h"

static void capture_usage(FILE *out)
{
	fputs("usage: spoor capture --probe SOURCE -o FILE [OPTIONS]\n"
	      "Record what a trace probe captures into FILE, as it comes: every record is on disk\n"
	      "when it is written, so an unplug, a crash or a full disk loses at most the\n"
	      "record in flight. Stops at Ctrl-C (or SIGTERM, SIGHUP), after --duration or\n"
	      "--size; the probe then drains its buffer into the file. 'spoor decode', 'dump',\n"
	      "'stream --probe file:FILE' and 'gdbserver --replay' read the file.\n\n"
	      "  -o, --output FILE    the capture file (created or truncated)\n"
	      "  --format F           capture (default: spoor's capture file, with losses and\n"
	      "                       times) | raw (the trace bytes alone, for other tools;\n"
	      "                       a loss is then only counted)\n", out);
	fputs(cli_probe_usage, out);
	fputs("  --board FILE         the board: its encapsulation (set up in the probe) and name\n"
	      "  --encap KIND ...     or the encapsulation and its options, as 'spoor decode':\n",
	      out);
	fputs(cli_stream_usage, out);
	fputs("  -q, --quiet          no summary line\n"
	      "  -h, --help           this help\n", out);
	fputs(cli_exit_usage, out);
}

enum { OPT_FORMAT = 500 };

static const struct option capture_own_options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct capture {
	struct cli_stream in;	/* board, parameters, encapsulation (no input) */
	struct cli_probe probe;
	const char *out;
	bool quiet, raw;
	FILE *raw_f;			/* --format raw */
	int raw_errno;
	struct spoor_deframe *df;	/* the sync state for the status line */
};

/* Parses the command line; returns 0, -1 (help shown) or an exit status. */
static int parse_args(struct capture *c, int argc, char **argv)
{
	enum { OWN = sizeof(capture_own_options) / sizeof(capture_own_options[0]) };
	struct option probe_own[CLI_PROBE_NOPTS + OWN];
	struct option opts[CLI_STREAM_NOPTS + CLI_PROBE_NOPTS + OWN];
	int ch, ret;

	cli_probe_options(capture_own_options, probe_own);
	cli_stream_options(probe_own, opts);
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":o:qh", opts, NULL)) != -1) {
		ret = cli_stream_option(&c->in, ch, optarg);
		if (!ret)
			ret = cli_probe_option(&c->probe, ch, optarg);
		if (ret < 0)
			return CLI_EXIT_ERROR;
		if (ret > 0)
			continue;
		switch (ch) {
		case 'o':
			c->out = optarg;
			break;
		case OPT_FORMAT: {
			static const char *const names[] = { "capture", "raw" };
			int i = cli_choice("capture", "--format", optarg, names, 2);

			if (i < 0)
				return CLI_EXIT_ERROR;
			c->raw = i == 1;
			break;
		}
		case 'q':
			c->quiet = true;
			break;
		case 'h':
			capture_usage(stdout);
			return -1;
		default:
			return cli_bad_option("capture", ch, argv);
		}
	}
	if (optind != argc) {
		fprintf(stderr, "spoor capture: unexpected argument '%s' (the probe is --probe, "
			"the file -o)\n", argv[optind]);
		return CLI_EXIT_ERROR;
	}
	if (!c->out) {
		fprintf(stderr, "spoor capture: no output file: -o FILE\n");
		return CLI_EXIT_ERROR;
	}
	return cli_stream_apply(&c->in);
}

/* Trace bytes: only followed for the status line's sync state. */
static void on_data(void *ctx, uint64_t offset, const uint8_t *buf, size_t len)
{
	struct capture *c = ctx;
	struct spoor_deframe_item it;

	(void)offset;
	if (c->raw_f && !c->raw_errno && fwrite(buf, 1, len, c->raw_f) != len)
		c->raw_errno = errno ? errno : EIO;
	if (!c->df || spoor_deframe_feed(c->df, buf, len, c->in.atid))
		return;
	while (spoor_deframe_next(c->df, &it, sizeof(it)) > 0)
		if (it.kind == SPOOR_DF_SYNC)
			c->probe.sync_state = "in sync";
		else if (it.kind == SPOOR_DF_SYNC_LOST)
			c->probe.sync_state = "sync lost";
}

static void on_loss(void *ctx, uint64_t offset, uint64_t lost)
{
	struct capture *c = ctx;
	struct spoor_deframe_item it;

	(void)offset;
	if (c->df && !spoor_deframe_gap(c->df, c->in.atid, lost, &it))
		c->probe.sync_state = "searching";
}

int cmd_capture(int argc, char **argv)
{
	static const struct spoor_source_ops ops = { .data = on_data, .loss = on_loss };
	struct capture *c = calloc(1, sizeof(*c));
	char text[4200] = "";
	int status, ret;

	if (!c) {
		fprintf(stderr, "spoor capture: out of memory\n");
		return CLI_EXIT_ERROR;
	}
	cli_stream_init(&c->in, "capture");
	cli_probe_init(&c->probe, "capture");
	status = parse_args(c, argc, argv);
	if (status)
		goto out;
	if (c->in.board_path)
		snprintf(text, sizeof(text), "board=%s\n", c->in.board_path);
	else if (c->in.params_path)
		snprintf(text, sizeof(text), "params=%s\n", c->in.params_path);
	c->in.dcfg.start_synced = false;	/* a probe joins a running trace port */
	c->df = spoor_deframe_new(&c->in.dcfg);
	c->probe.sync_state = "searching";
	if (c->raw) {
		c->raw_f = fopen(c->out, "wb");
		if (!c->raw_f) {
			fprintf(stderr, "spoor capture: cannot create '%s': %s\n", c->out,
				strerror(errno));
			status = CLI_EXIT_ERROR;
			goto out;
		}
	}
	status = cli_probe_start(&c->probe, &c->in.dcfg.encap, c->raw ? NULL : c->out, text);
	while (!status) {
		ret = cli_probe_poll(&c->probe, 100, &ops, c);
		if (ret == 1)
			break;
		status = ret;
		if (c->raw_errno)
			break;
	}
	if (c->raw_f && fclose(c->raw_f) && !c->raw_errno)
		c->raw_errno = errno;
	if (c->raw_errno) {
		/* Said by cli_probe_finish(), as a capture file's failed write. */
		c->probe.cap_errno = c->raw_errno;
		c->probe.cap_path = c->out;
	}
	ret = cli_probe_finish(&c->probe, c->quiet);
	if (!status || ret == CLI_EXIT_ERROR)
		status = ret;
out:
	spoor_deframe_free(c->df);
	free(c);
	return status < 0 ? CLI_EXIT_CLEAN : status;
}
