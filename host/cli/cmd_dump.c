// SPDX-License-Identifier: MIT
/* spoor dump: deframe a trace stream and print its te_inst packets. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "spoor/config_file.h"
#include "spoor/deframe.h"
#include "spoor/error.h"
#include "spoor/te_inst.h"
#include "spoor/te_print.h"

enum out_format { OUT_TEXT, OUT_JSON, OUT_CSV };

#define MAX_SOURCES 65536	/* srcID is at most 16 bits */
#define READ_CHUNK 65536

struct dump {
	struct spoor_params params;
	struct spoor_deframe_config dcfg;
	enum out_format format;
	long only_source;		/* -1: all */
	bool quiet;
	unsigned atid;
	FILE *out;
	/* Per-source address interpretation from the last support packet. */
	uint8_t addr_mode[MAX_SOURCES];
	/* Statistics. */
	uint64_t kinds[4][4];		/* [format][subformat] */
	uint64_t packets, payload_bytes, bad_packets, te_data, other;
	uint64_t per_source[MAX_SOURCES];
};

static void dump_usage(FILE *out)
{
	fputs("usage: spoor dump [OPTIONS] FILE|-\n"
	      "Print the te_inst packets of a captured trace stream, one per line.\n\n"
	      "  --params FILE        encoder parameters (*.scf or INI); default: spec defaults\n"
	      "  --param KEY=VALUE    set one parameter (after --params)\n"
	      "  --encap KIND         raw | siemens | atb | etrace-encap (default raw)\n"
	      "  --src-bits S         srcID/index bits per frame (siemens default 6)\n"
	      "  --ts-bytes T         timestamp bytes when a header's bit 7 is set\n"
	      "  --type-bits Y        type bits per frame (siemens default 2)\n"
	      "  --atid N             ATB: the ATID the file's bytes came from (default 0)\n"
	      "  --sync-run N         null bytes that form a sync sequence (default: per encap)\n"
	      "  --block-size M       packets are aligned to M-byte blocks (RAM sink)\n"
	      "  --unsynced           start unsynchronised: wait for a sync sequence\n"
	      "                       (default: the stream's first byte starts a packet)\n"
	      "  --source N           print only packets from source N\n"
	      "  --format FMT         text | json | csv (the reference flow's te_inst CSV)\n"
	      "  -q, --quiet          no summary\n"
	      "  -h, --help           this help\n", out);
}

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

enum {
	OPT_PARAMS = 256, OPT_PARAM, OPT_ENCAP, OPT_SRC_BITS, OPT_TS_BYTES, OPT_TYPE_BITS,
	OPT_ATID, OPT_SYNC_RUN, OPT_BLOCK_SIZE, OPT_UNSYNCED, OPT_SOURCE, OPT_FORMAT,
};

static const struct option dump_options[] = {
	{ "params", required_argument, NULL, OPT_PARAMS },
	{ "param", required_argument, NULL, OPT_PARAM },
	{ "encap", required_argument, NULL, OPT_ENCAP },
	{ "src-bits", required_argument, NULL, OPT_SRC_BITS },
	{ "ts-bytes", required_argument, NULL, OPT_TS_BYTES },
	{ "type-bits", required_argument, NULL, OPT_TYPE_BITS },
	{ "atid", required_argument, NULL, OPT_ATID },
	{ "sync-run", required_argument, NULL, OPT_SYNC_RUN },
	{ "block-size", required_argument, NULL, OPT_BLOCK_SIZE },
	{ "unsynced", no_argument, NULL, OPT_UNSYNCED },
	{ "source", required_argument, NULL, OPT_SOURCE },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Applies "KEY=VALUE" to the parameters; returns false after an error message. */
static bool set_param(struct dump *d, const char *arg)
{
	char key[64];
	const char *eq = strchr(arg, '=');
	int ret;

	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(key)) {
		fprintf(stderr, "spoor dump: --param: expected KEY=VALUE, got '%s'\n", arg);
		return false;
	}
	memcpy(key, arg, (size_t)(eq - arg));
	key[eq - arg] = '\0';
	ret = spoor_params_set(&d->params, key, eq + 1);
	if (ret) {
		fprintf(stderr, "spoor dump: --param %s: %s\n", arg, spoor_errstr(ret));
		return false;
	}
	return true;
}

/* Parses the command line into @d; returns 0, or the exit status to use. */
static int parse_args(struct dump *d, int argc, char **argv, const char **path)
{
	struct spoor_encap_config *e = &d->dcfg.encap;
	long src_bits = -1, ts_bytes = -1, type_bits = -1;
	unsigned long v;
	struct spoor_diag diag;
	const char *why;
	int c, ret;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":qh", dump_options, NULL)) != -1) {
		switch (c) {
		case OPT_PARAMS:
			ret = spoor_params_load(&d->params, optarg, &diag);
			if (ret) {
				fprintf(stderr, "spoor dump: %s\n", diag.msg);
				return 1;
			}
			break;
		case OPT_PARAM:
			if (!set_param(d, optarg))
				return 2;
			break;
		case OPT_ENCAP: {
			enum spoor_encap_kind kind;

			if (spoor_encap_kind_parse(optarg, &kind)) {
				fprintf(stderr, "spoor dump: --encap: unknown encapsulation '%s' "
					"(raw, siemens, atb, etrace-encap)\n", optarg);
				return 2;
			}
			spoor_encap_config_init(e, kind);
			break;
		}
		case OPT_SRC_BITS:
			if (!cli_parse_uint("dump", "--src-bits", optarg, 0, 16, &v))
				return 2;
			src_bits = (long)v;
			break;
		case OPT_TS_BYTES:
			if (!cli_parse_uint("dump", "--ts-bytes", optarg, 0, 8, &v))
				return 2;
			ts_bytes = (long)v;
			break;
		case OPT_TYPE_BITS:
			if (!cli_parse_uint("dump", "--type-bits", optarg, 0, 8, &v))
				return 2;
			type_bits = (long)v;
			break;
		case OPT_ATID:
			if (!cli_parse_uint("dump", "--atid", optarg, 0, 127, &v))
				return 2;
			d->atid = (unsigned)v;
			break;
		case OPT_SYNC_RUN:
			if (!cli_parse_uint("dump", "--sync-run", optarg, 1, 1u << 20, &v))
				return 2;
			d->dcfg.sync_run = (unsigned)v;
			break;
		case OPT_BLOCK_SIZE:
			if (!cli_parse_uint("dump", "--block-size", optarg, 2, 1ul << 30, &v))
				return 2;
			d->dcfg.block_size = (unsigned)v;
			break;
		case OPT_UNSYNCED:
			d->dcfg.start_synced = false;
			break;
		case OPT_SOURCE:
			if (!cli_parse_uint("dump", "--source", optarg, 0, MAX_SOURCES - 1, &v))
				return 2;
			d->only_source = (long)v;
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "text"))
				d->format = OUT_TEXT;
			else if (!strcmp(optarg, "json"))
				d->format = OUT_JSON;
			else if (!strcmp(optarg, "csv"))
				d->format = OUT_CSV;
			else {
				fprintf(stderr, "spoor dump: --format: unknown format '%s' "
					"(text, json, csv)\n", optarg);
				return 2;
			}
			break;
		case 'q':
			d->quiet = true;
			break;
		case 'h':
			dump_usage(stdout);
			return -1;
		case ':':
			fprintf(stderr, "spoor dump: option '%s' needs a value\n", argv[optind - 1]);
			return 2;
		default:
			fprintf(stderr, "spoor dump: unknown option '%s' (try 'spoor dump --help')\n",
				argv[optind - 1]);
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "spoor dump: expected one input FILE (or - for stdin); "
			"try 'spoor dump --help'\n");
		return 2;
	}
	*path = argv[optind];
	if (src_bits >= 0)
		e->src_bits = (unsigned)src_bits;
	if (ts_bytes >= 0)
		e->ts_bytes = (unsigned)ts_bytes;
	if (type_bits >= 0)
		e->type_bits = (unsigned)type_bits;
	if (spoor_encap_config_check(e)) {
		fprintf(stderr, "spoor dump: the encapsulation options do not fit %s\n",
			spoor_encap_kind_name(e->kind));
		return 2;
	}
	if (spoor_params_check(&d->params, &why)) {
		fprintf(stderr, "spoor dump: parameters: %s\n", why);
		return 2;
	}
	return 0;
}

/* Remembers how a source's addresses are to be read from its support packet. */
static void note_support(struct dump *d, const struct spoor_frame *frm,
			 const struct spoor_te_inst *pkt)
{
	int bit = d->params.ioption_bit[SPOOR_IOPT_FULL_ADDRESS];
	bool full = bit >= 0 && spoor_te_has(pkt, SPOOR_TE_F_IOPTIONS) &&
		    ((pkt->v[SPOOR_TE_F_IOPTIONS] >> bit) & 1);

	d->addr_mode[frm->source] = full ? SPOOR_ADDR_FULL : SPOOR_ADDR_DIFF;
}

/* Prints the payload bytes of a frame in hex after @label. */
static void print_bytes(FILE *out, const struct spoor_frame *frm)
{
	for (uint32_t i = 0; i < frm->payload_len; i++)
		fprintf(out, " %02x", frm->payload[i]);
}

/* Decodes and prints one frame. */
static void dump_frame(struct dump *d, const struct spoor_frame *frm)
{
	struct spoor_te_inst pkt;
	int ret;

	if (d->only_source >= 0 && frm->source != (uint32_t)d->only_source)
		return;
	d->per_source[frm->source]++;
	if (frm->msg != SPOOR_MSG_TE_INST) {
		if (frm->msg == SPOOR_MSG_TE_DATA)
			d->te_data++;
		else
			d->other++;
		if (d->format == OUT_TEXT) {
			fprintf(d->out, "%08" PRIx64 " src %-3" PRIu32 " %-13s", frm->offset,
				frm->source, frm->msg == SPOOR_MSG_TE_DATA ? "te_data" : "other-type");
			print_bytes(d->out, frm);
			fputc('\n', d->out);
		} else if (d->format == OUT_JSON) {
			fprintf(d->out, "{\"offset\":%" PRIu64 ",\"source\":%" PRIu32
				",\"kind\":\"%s\",\"type\":%u}\n", frm->offset, frm->source,
				frm->msg == SPOOR_MSG_TE_DATA ? "te_data" : "other-type", frm->type);
		}
		return;
	}
	ret = spoor_te_inst_decode(&d->params, frm->payload, frm->payload_len, &pkt);
	if (ret < 0) {
		d->bad_packets++;
		if (d->format == OUT_JSON) {
			fprintf(d->out, "{\"offset\":%" PRIu64 ",\"source\":%" PRIu32
				",\"error\":\"%s\"}\n", frm->offset, frm->source, spoor_errstr(ret));
		} else {
			FILE *o = d->format == OUT_CSV ? stderr : d->out;

			fprintf(o, "%08" PRIx64 " src %-3" PRIu32 " error: bad te_inst packet (%s):",
				frm->offset, frm->source, spoor_errstr(ret));
			print_bytes(o, frm);
			fputc('\n', o);
		}
		return;
	}
	d->packets++;
	d->payload_bytes += frm->payload_len;
	d->kinds[pkt.v[SPOOR_TE_F_FORMAT] & 3][pkt.v[SPOOR_TE_F_SUBFORMAT] & 3]++;
	if (pkt.v[SPOOR_TE_F_FORMAT] == SPOOR_TE_FORMAT_SYNC &&
	    pkt.v[SPOOR_TE_F_SUBFORMAT] == SPOOR_TE_SYNC_SUPPORT)
		note_support(d, frm, &pkt);
	switch (d->format) {
	case OUT_CSV:
		spoor_te_print_csv(d->out, &pkt);
		break;
	case OUT_JSON:
		spoor_te_print_json(d->out, &d->params, frm, &pkt, d->addr_mode[frm->source]);
		break;
	default:
		spoor_te_print_text(d->out, &d->params, frm, &pkt, d->addr_mode[frm->source]);
		break;
	}
}

/* Prints a sync, sync-loss or truncation item. */
static void dump_event(struct dump *d, const struct spoor_deframe_item *it)
{
	FILE *o = d->format == OUT_CSV ? stderr : d->out;
	const char *what;

	if (d->format == OUT_JSON) {
		what = it->kind == SPOOR_DF_SYNC ? "sync" :
		       it->kind == SPOOR_DF_SYNC_LOST ? "sync_lost" : "truncated";
		fprintf(o, "{\"offset\":%" PRIu64 ",\"source\":%" PRIu32 ",\"event\":\"%s\"",
			it->offset, it->source, what);
		if (it->kind == SPOOR_DF_SYNC_LOST)
			fprintf(o, ",\"reason\":\"%s\"", spoor_errstr(it->reason));
		else
			fprintf(o, ",\"bytes\":%" PRIu64, it->bytes);
		fputs("}\n", o);
		return;
	}
	/* Only ATB lanes have their own alignment; elsewhere events are the stream's. */
	if (d->dcfg.encap.kind == SPOOR_ENCAP_ATB)
		fprintf(o, "%08" PRIx64 " src %-3" PRIu32 " ", it->offset, it->source);
	else
		fprintf(o, "%08" PRIx64 " stream  ", it->offset);
	switch (it->kind) {
	case SPOOR_DF_SYNC:
		fprintf(o, "-- synchronised (%" PRIu64 " bytes skipped)\n", it->bytes);
		break;
	case SPOOR_DF_SYNC_LOST:
		fprintf(o, "-- sync lost: %s; skipping to the next sync sequence\n",
			spoor_errstr(it->reason));
		break;
	default:
		fprintf(o, "-- stream ends inside a packet: %" PRIu64 " bytes truncated\n",
			it->bytes);
		break;
	}
}

/* Drains the deframer's items (frames in batches where it can); returns 0 or an error. */
static int drain(struct dump *d, struct spoor_deframe *df)
{
	struct spoor_frame frames[64];
	struct spoor_deframe_item it;
	int ret, k;

	for (;;) {
		k = spoor_deframe_next_frames(df, frames, 64);
		for (int i = 0; i < k; i++)
			dump_frame(d, &frames[i]);
		if (k == 64)
			continue;
		ret = spoor_deframe_next(df, &it, sizeof(it));
		if (ret <= 0)
			return ret;
		if (ret == SPOOR_DF_FRAME)
			dump_frame(d, &it.frame);
		else
			dump_event(d, &it);
	}
}

static void print_summary(struct dump *d, const struct spoor_deframe_stats *st)
{
	static const char *const f3[] = { "start", "trap", "context", "support" };
	FILE *o = d->format == OUT_TEXT ? d->out : stderr;
	uint64_t nsrc = 0;

	fprintf(o, "summary: %" PRIu64 " te_inst packets, %" PRIu64 " bytes (%" PRIu64
		" in %" PRIu64 " frames, %" PRIu64 " idle/sync, %" PRIu64 " skipped, %" PRIu64
		" truncated)\n", d->packets, st->bytes, st->frame_bytes, st->frames,
		st->null_bytes, st->skipped_bytes, st->truncated_bytes);
	fprintf(o, "  sync: %" PRIu64 " found, %" PRIu64 " lost; bad packets: %" PRIu64
		"; te_data: %" PRIu64 "; other types: %" PRIu64 "\n", st->syncs, st->sync_losses,
		d->bad_packets, d->te_data, d->other);
	if (d->packets)
		fprintf(o, "  payload: %.2f bits/packet, %.2f wire bytes/packet\n",
			8.0 * (double)d->payload_bytes / (double)d->packets,
			(double)st->frame_bytes / (double)st->frames);
	fprintf(o, "  format 0: %" PRIu64 " branch-count, %" PRIu64 " jtc-index\n",
		d->kinds[0][0], d->kinds[0][1]);
	fprintf(o, "  format 1: %" PRIu64 "  format 2: %" PRIu64 "\n",
		d->kinds[1][0], d->kinds[2][0]);
	for (int i = 0; i < 4; i++)
		fprintf(o, "  format 3.%d (%s): %" PRIu64 "\n", i, f3[i], d->kinds[3][i]);
	for (size_t s = 0; s < MAX_SOURCES; s++)
		nsrc += d->per_source[s] != 0;
	if (nsrc > 1)
		for (size_t s = 0; s < MAX_SOURCES; s++)
			if (d->per_source[s])
				fprintf(o, "  source %zu: %" PRIu64 " frames\n", s, d->per_source[s]);
}

/* Feeds file descriptor @fd through the deframer; returns the exit status. */
static int run(struct dump *d, int fd, const char *path)
{
	struct spoor_deframe_stats st;
	struct spoor_deframe *df;
	uint8_t *buf;
	ssize_t n;
	int ret = 0, status = 0;

	df = spoor_deframe_new(&d->dcfg);
	buf = malloc(READ_CHUNK);
	if (!df || !buf) {
		fprintf(stderr, "spoor dump: cannot set up the deframer\n");
		status = 1;
		goto out;
	}
	if (d->format == OUT_CSV)
		spoor_te_print_csv_header(d->out);
	for (;;) {
		n = read(fd, buf, READ_CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "spoor dump: reading '%s': %s\n", path, strerror(errno));
			status = 1;
			break;
		}
		if (n == 0)
			break;
		ret = spoor_deframe_feed(df, buf, (size_t)n, d->atid);
		if (!ret)
			ret = drain(d, df);
		if (ret < 0)
			break;
	}
	if (ret >= 0) {
		ret = spoor_deframe_finish(df);
		if (!ret)
			ret = drain(d, df);
	}
	if (ret < 0) {
		fprintf(stderr, "spoor dump: deframer: %s\n", spoor_errstr(ret));
		status = 1;
	}
	spoor_deframe_stats(df, &st, sizeof(st));
	if (!d->quiet)
		print_summary(d, &st);
out:
	free(buf);
	spoor_deframe_free(df);
	return status;
}

int cmd_dump(int argc, char **argv)
{
	struct dump *d = calloc(1, sizeof(*d));
	const char *path = NULL;
	int fd, status;

	if (!d) {
		fprintf(stderr, "spoor dump: out of memory\n");
		return 1;
	}
	spoor_params_init(&d->params);
	spoor_encap_config_init(&d->dcfg.encap, SPOOR_ENCAP_RAW);
	d->dcfg.start_synced = true;
	d->only_source = -1;
	d->out = stdout;
	status = parse_args(d, argc, argv, &path);
	if (status) {
		free(d);
		return status < 0 ? 0 : status;
	}
	if (!strcmp(path, "-")) {
		fd = STDIN_FILENO;
	} else {
		fd = open(path, O_RDONLY);
		if (fd < 0) {
			fprintf(stderr, "spoor dump: cannot open '%s': %s\n", path, strerror(errno));
			free(d);
			return 1;
		}
	}
	status = run(d, fd, path);
	if (fd != STDIN_FILENO)
		close(fd);
	if (fflush(stdout) != 0 && !status) {
		fprintf(stderr, "spoor dump: writing output: %s\n", strerror(errno));
		status = 1;
	}
	free(d);
	return status;
}
