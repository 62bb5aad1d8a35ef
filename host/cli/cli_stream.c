// SPDX-License-Identifier: MIT
/* Shared options and the read-deframe loop of the stream-reading commands. */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cli_stream.h"
#include "spoor/board.h"
#include "spoor/config_file.h"
#include "spoor/error.h"

#define MAX_SOURCE 65535	/* srcID is at most 16 bits */

const char cli_stream_usage[] =
	"  --board FILE         a board descriptor (boards/*.ini): parameters and encapsulation\n"
	"  --params FILE        encoder parameters (*.scf or INI); default: spec defaults\n"
	"  --param KEY=VALUE    set one parameter (over --params or --board)\n"
	"  --encap KIND         raw | siemens | atb | etrace-encap (default: the board's,\n"
	"                       else raw)\n"
	"  --src-bits S         srcID/index bits per frame (siemens default 6)\n"
	"  --ts-bytes T         timestamp bytes when a header's bit 7 is set\n"
	"  --type-bits Y        type bits per frame (siemens default 2)\n"
	"  --atid N             ATB: the ATID the file's bytes came from (default 0)\n"
	"  --sync-run N         null bytes that form a sync sequence (default: per encap)\n"
	"  --block-size M       packets are aligned to M-byte blocks (RAM sink)\n"
	"  --unsynced           start unsynchronised: wait for a sync sequence\n"
	"                       (default: the stream's first byte starts a packet)\n"
	"  --source N           only the packets of source (hart) N\n";

static const struct option stream_options[CLI_STREAM_NOPTS] = {
	{ "params", required_argument, NULL, CLI_OPT_PARAMS },
	{ "param", required_argument, NULL, CLI_OPT_PARAM },
	{ "encap", required_argument, NULL, CLI_OPT_ENCAP },
	{ "src-bits", required_argument, NULL, CLI_OPT_SRC_BITS },
	{ "ts-bytes", required_argument, NULL, CLI_OPT_TS_BYTES },
	{ "type-bits", required_argument, NULL, CLI_OPT_TYPE_BITS },
	{ "atid", required_argument, NULL, CLI_OPT_ATID },
	{ "sync-run", required_argument, NULL, CLI_OPT_SYNC_RUN },
	{ "block-size", required_argument, NULL, CLI_OPT_BLOCK_SIZE },
	{ "unsynced", no_argument, NULL, CLI_OPT_UNSYNCED },
	{ "source", required_argument, NULL, CLI_OPT_SOURCE },
	{ "board", required_argument, NULL, CLI_OPT_BOARD },
};

bool cli_parse_uint(const char *cmd, const char *opt, const char *s, unsigned long min,
		    unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || *s == '-' || v < min || v > max) {
		fprintf(stderr, "spoor %s: %s: '%s' is not a number from %lu to %lu\n", cmd, opt, s,
			min, max);
		return false;
	}
	*out = v;
	return true;
}

bool cli_parse_size(const char *cmd, const char *opt, const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned shift = 0;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end == 'k' || *end == 'K')
		shift = 10;
	else if (*end == 'M' || *end == 'm')
		shift = 20;
	else if (*end == 'G' || *end == 'g')
		shift = 30;
	if (shift)
		end++;
	if (errno || end == s || *end || *s == '-' || !v || v > (~0ull >> shift)) {
		fprintf(stderr, "spoor %s: %s: '%s' is not a size (a number of bytes, with k, M "
			"or G after it)\n", cmd, opt, s);
		return false;
	}
	*out = (uint64_t)v << shift;
	return true;
}

int cli_choice(const char *cmd, const char *opt, const char *arg, const char *const *names,
	       int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(arg, names[i]))
			return i;
	fprintf(stderr, "spoor %s: %s: unknown value '%s' (", cmd, opt, arg);
	for (int i = 0; i < n; i++)
		fprintf(stderr, "%s%s", i ? ", " : "", names[i]);
	fputs(")\n", stderr);
	return -1;
}

void cli_stream_init(struct cli_stream *s, const char *cmd)
{
	memset(s, 0, sizeof(*s));
	s->cmd = cmd;
	spoor_params_init(&s->params);
	spoor_encap_config_init(&s->dcfg.encap, SPOOR_ENCAP_RAW);
	s->dcfg.start_synced = true;
	s->only_source = -1;
	s->src_bits = s->ts_bytes = s->type_bits = -1;
	s->encap_kind = -1;
}

const char cli_exit_usage[] =
	"\nExit status: 0 clean; 1 completed, but with gaps or inconsistencies in the trace\n"
	"(counted on stderr); 2 error (bad usage, unreadable or invalid input, failed write).\n";

int cli_output_check(const char *cmd, FILE *out, int err)
{
	errno = 0;
	if (fflush(out) == 0 && !ferror(out))
		return 0;
	if (!err)
		err = errno;
	fprintf(stderr, "spoor %s: writing output: %s\n", cmd, err ? strerror(err) : "write error");
	return CLI_EXIT_ERROR;
}

void cli_stream_options(const struct option *own, struct option *out)
{
	size_t n = 0;

	memcpy(out, stream_options, sizeof(stream_options));
	while (own[n].name)
		n++;
	memcpy(out + CLI_STREAM_NOPTS, own, (n + 1) * sizeof(*own));
}

/* Applies "KEY=VALUE" to the parameters; returns false after an error message. */
static bool set_param(struct cli_stream *s, const char *arg)
{
	char key[64], hint[200];
	const char *eq = strchr(arg, '=');
	int ret;

	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(key)) {
		fprintf(stderr, "spoor %s: --param: expected KEY=VALUE, got '%s'\n", s->cmd, arg);
		return false;
	}
	memcpy(key, arg, (size_t)(eq - arg));
	key[eq - arg] = '\0';
	ret = spoor_params_set(&s->params, key, eq + 1);
	if (ret) {
		spoor_params_describe(key, hint, sizeof(hint));
		fprintf(stderr, "spoor %s: --param %s: %s; %s\n", s->cmd, arg, spoor_errstr(ret),
			hint);
		return false;
	}
	return true;
}

/* Loads the board or parameter file, then --param; returns false after an error message. */
static bool load_params(struct cli_stream *s)
{
	struct spoor_diag diag;

	if (s->board_path) {
		struct spoor_board b;

		spoor_board_init(&b);
		if (spoor_board_load(&b, s->board_path, &diag)) {
			fprintf(stderr, "spoor %s: %s\n", s->cmd, diag.msg);
			return false;
		}
		s->params = b.params;
		if (s->encap_kind < 0)
			s->dcfg.encap = b.encap;
		memcpy(s->isa, b.isa, sizeof(s->isa));
	}
	if (s->params_path && spoor_params_load(&s->params, s->params_path, &diag)) {
		fprintf(stderr, "spoor %s: %s\n", s->cmd, diag.msg);
		return false;
	}
	for (unsigned i = 0; i < s->nparams; i++)
		if (!set_param(s, s->param_args[i]))
			return false;
	return true;
}

/* Remembers the file of option @opt in *@slot; returns false if it was given already. */
static bool once(struct cli_stream *s, const char *opt, const char **slot, const char *arg)
{
	if (*slot) {
		fprintf(stderr, "spoor %s: %s given twice ('%s' and '%s')\n", s->cmd, opt, *slot,
			arg);
		return false;
	}
	*slot = arg;
	return true;
}

/* Parses an option's number into *@out; returns false after an error message. */
static bool number(struct cli_stream *s, const char *opt, const char *arg, unsigned long min,
		   unsigned long max, long *out)
{
	unsigned long v;

	if (!cli_parse_uint(s->cmd, opt, arg, min, max, &v))
		return false;
	*out = (long)v;
	return true;
}

int cli_stream_option(struct cli_stream *s, int c, const char *arg)
{
	enum spoor_encap_kind kind;
	long v;

	switch (c) {
	case CLI_OPT_BOARD:
		return once(s, "--board", &s->board_path, arg) ? 1 : -1;
	case CLI_OPT_PARAMS:
		return once(s, "--params", &s->params_path, arg) ? 1 : -1;
	case CLI_OPT_PARAM:
		if (s->nparams == CLI_MAX_PARAMS) {
			fprintf(stderr, "spoor %s: more than %d --param options\n", s->cmd,
				CLI_MAX_PARAMS);
			return -1;
		}
		s->param_args[s->nparams++] = arg;
		return 1;
	case CLI_OPT_ENCAP:
		if (spoor_encap_kind_parse(arg, &kind)) {
			fprintf(stderr, "spoor %s: --encap: unknown encapsulation '%s' "
				"(raw, siemens, atb, etrace-encap)\n", s->cmd, arg);
			return -1;
		}
		s->encap_kind = (int)kind;
		spoor_encap_config_init(&s->dcfg.encap, kind);
		return 1;
	case CLI_OPT_SRC_BITS:
		return number(s, "--src-bits", arg, 0, 16, &s->src_bits) ? 1 : -1;
	case CLI_OPT_TS_BYTES:
		return number(s, "--ts-bytes", arg, 0, 8, &s->ts_bytes) ? 1 : -1;
	case CLI_OPT_TYPE_BITS:
		return number(s, "--type-bits", arg, 0, 8, &s->type_bits) ? 1 : -1;
	case CLI_OPT_ATID:
		if (!number(s, "--atid", arg, 0, 127, &v))
			return -1;
		s->atid = (unsigned)v;
		return 1;
	case CLI_OPT_SYNC_RUN:
		if (!number(s, "--sync-run", arg, 1, 1u << 20, &v))
			return -1;
		s->dcfg.sync_run = (unsigned)v;
		return 1;
	case CLI_OPT_BLOCK_SIZE:
		if (!number(s, "--block-size", arg, 2, 1ul << 30, &v))
			return -1;
		s->dcfg.block_size = (unsigned)v;
		return 1;
	case CLI_OPT_UNSYNCED:
		s->dcfg.start_synced = false;
		return 1;
	case CLI_OPT_SOURCE:
		return number(s, "--source", arg, 0, MAX_SOURCE, &s->only_source) ? 1 : -1;
	default:
		return 0;
	}
}

int cli_bad_option(const char *cmd, int c, char **argv)
{
	if (c == ':')
		fprintf(stderr, "spoor %s: option '%s' needs a value\n", cmd, argv[optind - 1]);
	else
		fprintf(stderr, "spoor %s: unknown option '%s' (try 'spoor %s --help')\n", cmd,
			argv[optind - 1], cmd);
	return CLI_EXIT_ERROR;
}

int cli_stream_apply(struct cli_stream *s)
{
	struct spoor_encap_config *e = &s->dcfg.encap;
	const char *why;

	if (s->board_path && s->params_path) {
		fprintf(stderr, "spoor %s: --board and --params both give the encoder parameters: "
			"use one (and --param KEY=VALUE to change a parameter)\n", s->cmd);
		return CLI_EXIT_ERROR;
	}
	if (!load_params(s))
		return CLI_EXIT_ERROR;
	if (s->src_bits >= 0)
		e->src_bits = (unsigned)s->src_bits;
	if (s->ts_bytes >= 0)
		e->ts_bytes = (unsigned)s->ts_bytes;
	if (s->type_bits >= 0)
		e->type_bits = (unsigned)s->type_bits;
	if (spoor_encap_config_check(e)) {
		fprintf(stderr, "spoor %s: the encapsulation options do not fit %s\n", s->cmd,
			spoor_encap_kind_name(e->kind));
		return CLI_EXIT_ERROR;
	}
	if (spoor_params_check(&s->params, &why)) {
		fprintf(stderr, "spoor %s: parameters: %s\n", s->cmd, why);
		return CLI_EXIT_ERROR;
	}
	return 0;
}

int cli_stream_open(struct cli_stream *s, int argc, char **argv)
{
	int status;

	if (optind != argc - 1) {
		fprintf(stderr, "spoor %s: expected one input FILE (or - for stdin); "
			"try 'spoor %s --help'\n", s->cmd, s->cmd);
		return CLI_EXIT_ERROR;
	}
	status = cli_stream_apply(s);
	if (status)
		return status;
	return cli_stream_open_input(s, argv[optind]);
}

int cli_stream_open_input(struct cli_stream *s, const char *path)
{
	struct spoor_capture_header h;
	struct spoor_diag diag;
	struct stat sb;
	int ret;

	s->path = path;
	s->capture = false;
	s->size = 0;
	if (spoor_source_spec_live(s->path)) {
		fprintf(stderr, "spoor %s: '%s' is a probe: capture from it with 'spoor capture' "
			"or decode it live with 'spoor stream' (a file of that name: ./%s)\n",
			s->cmd, s->path, s->path);
		return CLI_EXIT_ERROR;
	}
	ret = spoor_source_open(s->path, &s->src, &diag);
	if (ret < 0) {
		fprintf(stderr, "spoor %s: %s\n", s->cmd, diag.msg);
		return CLI_EXIT_ERROR;
	}
	if (!spoor_source_header(s->src, &h)) {
		/* The capture says how its bytes are wrapped, unless told otherwise. */
		s->capture = true;
		if (s->encap_kind < 0) {
			s->dcfg.encap = h.encap;
			if (spoor_encap_config_check(&s->dcfg.encap)) {
				fprintf(stderr, "spoor %s: %s: the capture's encapsulation "
					"options are not valid\n", s->cmd, s->path);
				cli_stream_close(s);
				return CLI_EXIT_ERROR;
			}
		}
	}
	if (strcmp(s->path, "-") && !stat(s->path, &sb) && S_ISREG(sb.st_mode))
		s->size = (uint64_t)sb.st_size;
	return 0;
}

void cli_stream_count_loss(struct cli_stream *s, uint64_t lost)
{
	s->losses++;
	if (lost != SPOOR_SOURCE_LOST_UNKNOWN)
		s->lost += lost;
}

void cli_stream_losses(const struct cli_stream *s, FILE *out)
{
	if (s->losses)
		fprintf(out, ", %" PRIu64 " loss%s in the capture (%" PRIu64 " bytes known lost)",
			s->losses, s->losses == 1 ? "" : "es", s->lost);
	if (s->damaged)
		fputs(", the capture file is damaged", out);
}

void cli_stream_close(struct cli_stream *s)
{
	spoor_source_close(s->src);
	s->src = NULL;
}

/* What drain() hands the deframer's items to. */
struct drain_ctx {
	const struct cli_stream *s;
	const struct cli_stream_ops *ops;
	void *ctx;
};

/* The frames of the chosen source (all with --source unset), one by one. */
static void drain_frames(void *arg, const struct spoor_frame *frames, size_t n)
{
	const struct drain_ctx *d = arg;

	for (size_t i = 0; i < n; i++)
		if (d->s->only_source < 0 || frames[i].source == (uint32_t)d->s->only_source)
			d->ops->frame(d->ctx, &frames[i]);
}

static void drain_item(void *arg, const struct spoor_deframe_item *it)
{
	const struct drain_ctx *d = arg;

	d->ops->event(d->ctx, it);
}

/* Hands the deframer's items to @ops; returns 0 or a negative error. */
static int drain(struct cli_stream *s, struct spoor_deframe *df, const struct cli_stream_ops *ops,
		 void *ctx)
{
	struct drain_ctx d = { .s = s, .ops = ops, .ctx = ctx };

	return spoor_deframe_drain(df, drain_frames, drain_item, &d);
}

/* What a read of the input hands on. */
struct read_ctx {
	struct cli_stream *s;
	const struct cli_read_ops *ops;
	void *ctx;
	uint64_t done;
	int status;
};

static void read_data(void *arg, uint64_t offset, const uint8_t *buf, size_t len)
{
	struct read_ctx *r = arg;

	(void)offset;
	if (r->status)
		return;
	r->status = r->ops->chunk(r->ctx, buf, len);
	r->done += len;
	if (r->ops->progress)
		r->ops->progress(r->ctx, r->done, r->s->size);
}

static void read_loss(void *arg, uint64_t offset, uint64_t lost)
{
	struct read_ctx *r = arg;

	(void)offset;
	cli_stream_count_loss(r->s, lost);
	if (!r->status && r->ops->gap)
		r->status = r->ops->gap(r->ctx, lost);
}

static void read_error(void *arg, uint64_t at, int reason, const char *what)
{
	struct read_ctx *r = arg;

	(void)reason;
	r->s->damaged = true;
	fprintf(stderr, "spoor %s: %s: file offset %" PRIu64 ": %s; read up to there\n",
		r->s->cmd, r->s->path, at, what);
}

int cli_stream_read(struct cli_stream *s, const struct cli_read_ops *ops, void *ctx)
{
	static const struct spoor_source_ops src_ops = {
		.data = read_data, .loss = read_loss, .error = read_error,
	};
	struct read_ctx r = { .s = s, .ops = ops, .ctx = ctx };
	int ret;

	do
		ret = spoor_source_poll(s->src, -1, &src_ops, &r);
	while (ret == SPOOR_SOURCE_MORE && !r.status);
	if (ret < 0 && !r.status) {
		fprintf(stderr, "spoor %s: reading '%s': %s\n", s->cmd, s->path,
			ret == SPOOR_E_IO ? strerror(errno) : spoor_errstr(ret));
		r.status = CLI_EXIT_ERROR;
	}
	cli_stream_close(s);
	return r.status;
}

/* What cli_stream_run() reads through. */
struct run_ctx {
	struct cli_stream *s;
	struct spoor_deframe *df;
	const struct cli_stream_ops *ops;
	void *ctx;
};

/* A loss in the input: the deframer resynchronises after it. */
static int run_gap(void *arg, uint64_t lost)
{
	struct run_ctx *r = arg;
	struct spoor_deframe_item it;
	int ret = spoor_deframe_gap(r->df, r->s->atid, lost, &it);

	if (ret < 0) {
		fprintf(stderr, "spoor %s: deframer: %s\n", r->s->cmd, spoor_errstr(ret));
		return CLI_EXIT_ERROR;
	}
	r->ops->event(r->ctx, &it);
	return 0;
}

/* One chunk through the deframer; returns 0 or an exit status after a message. */
static int run_chunk(void *arg, const uint8_t *buf, size_t len)
{
	struct run_ctx *r = arg;
	int ret = spoor_deframe_feed(r->df, buf, len, r->s->atid);

	if (!ret)
		ret = drain(r->s, r->df, r->ops, r->ctx);
	if (ret < 0) {
		fprintf(stderr, "spoor %s: deframer: %s\n", r->s->cmd, spoor_errstr(ret));
		return CLI_EXIT_ERROR;
	}
	return r->ops->check ? r->ops->check(r->ctx) : 0;
}

static void run_progress(void *arg, uint64_t done, uint64_t total)
{
	struct run_ctx *r = arg;

	if (r->ops->progress)
		r->ops->progress(r->ctx, done, total);
}

int cli_stream_run(struct cli_stream *s, const struct cli_stream_ops *ops, void *ctx,
		   struct spoor_deframe_stats *st)
{
	static const struct cli_read_ops rops = {
		.chunk = run_chunk, .gap = run_gap, .progress = run_progress,
	};
	struct run_ctx r = { .s = s, .df = spoor_deframe_new(&s->dcfg), .ops = ops, .ctx = ctx };
	int status, ret;

	memset(st, 0, sizeof(*st));
	if (!r.df) {
		fprintf(stderr, "spoor %s: cannot set up the deframer\n", s->cmd);
		cli_stream_close(s);
		return CLI_EXIT_ERROR;
	}
	status = cli_stream_read(s, &rops, &r);
	if (!status) {
		ret = spoor_deframe_finish(r.df);
		if (!ret)
			ret = drain(s, r.df, ops, ctx);
		if (ret < 0) {
			fprintf(stderr, "spoor %s: deframer: %s\n", s->cmd, spoor_errstr(ret));
			status = CLI_EXIT_ERROR;
		}
	}
	spoor_deframe_stats(r.df, st, sizeof(*st));
	spoor_deframe_free(r.df);
	return status;
}
