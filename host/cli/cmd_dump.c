// SPDX-License-Identifier: MIT
/* spoor dump: deframe a trace stream and print its te_inst packets. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_stream.h"
#include "spoor/error.h"
#include "spoor/te_inst.h"
#include "spoor/te_print.h"

enum out_format { OUT_TEXT, OUT_JSON, OUT_CSV };

#define MAX_SOURCES 65536	/* srcID is at most 16 bits */

struct dump {
	struct cli_stream in;
	enum out_format format;
	bool quiet;
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
	      "Print the te_inst packets of a captured trace stream, one per line.\n\n", out);
	fputs(cli_stream_usage, out);
	fputs("  --format FMT         text | json | csv (the reference flow's te_inst CSV)\n"
	      "  -q, --quiet          no summary\n"
	      "  -h, --help           this help\n", out);
	fputs(cli_exit_usage, out);
}

enum { OPT_FORMAT = CLI_OPT_OWN };

static const struct option dump_own_options[] = {
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Parses the command line into @d; returns 0, -1 (help shown) or an exit status. */
static int parse_args(struct dump *d, int argc, char **argv)
{
	struct option opts[CLI_STREAM_NOPTS + 4];
	int c, ret;

	cli_stream_options(dump_own_options, opts);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":qh", opts, NULL)) != -1) {
		ret = cli_stream_option(&d->in, c, optarg);
		if (ret < 0)	/* a bad file, or a bad value */
			return CLI_EXIT_ERROR;
		if (ret > 0)
			continue;
		switch (c) {
		case OPT_FORMAT: {
			static const char *const names[] = { "text", "json", "csv" };
			int i = cli_choice("dump", "--format", optarg, names, 3);

			if (i < 0)
				return CLI_EXIT_ERROR;
			d->format = (enum out_format)i;
			break;
		}
		case 'q':
			d->quiet = true;
			break;
		case 'h':
			dump_usage(stdout);
			return -1;
		default:
			return cli_bad_option("dump", c, argv);
		}
	}
	return cli_stream_open(&d->in, argc, argv);
}

/* Remembers how a source's addresses are to be read from its support packet. */
static void note_support(struct dump *d, const struct spoor_frame *frm,
			 const struct spoor_te_inst *pkt)
{
	int bit = d->in.params.ioption_bit[SPOOR_IOPT_FULL_ADDRESS];
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
	unsigned fmt;
	int ret;

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
	ret = spoor_te_inst_decode_room(&d->in.params, 0, frm->payload, frm->payload_len,
					frm->payload_room, &pkt);
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
	/* formats 1 and 2 have no subformat (format 0's may be inferred, not sent) */
	fmt = (unsigned)pkt.v[SPOOR_TE_F_FORMAT] & 3;
	d->kinds[fmt][fmt == SPOOR_TE_FORMAT_EXT || fmt == SPOOR_TE_FORMAT_SYNC ?
		      pkt.v[SPOOR_TE_F_SUBFORMAT] & 3 : 0]++;
	if (pkt.v[SPOOR_TE_F_FORMAT] == SPOOR_TE_FORMAT_SYNC &&
	    pkt.v[SPOOR_TE_F_SUBFORMAT] == SPOOR_TE_SYNC_SUPPORT)
		note_support(d, frm, &pkt);
	switch (d->format) {
	case OUT_CSV:
		spoor_te_print_csv(d->out, &pkt);
		break;
	case OUT_JSON:
		spoor_te_print_json(d->out, &d->in.params, frm, &pkt, d->addr_mode[frm->source]);
		break;
	default:
		spoor_te_print_text(d->out, &d->in.params, frm, &pkt, d->addr_mode[frm->source]);
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
		       it->kind == SPOOR_DF_SYNC_LOST ? "sync_lost" :
		       it->kind == SPOOR_DF_GAP ? "lost" : "truncated";
		fprintf(o, "{\"offset\":%" PRIu64 ",\"source\":%" PRIu32 ",\"event\":\"%s\"",
			it->offset, it->source, what);
		if (it->kind == SPOOR_DF_SYNC_LOST)
			fprintf(o, ",\"reason\":\"%s\"", spoor_errstr(it->reason));
		else if (it->kind == SPOOR_DF_GAP && it->bytes == SPOOR_DEFRAME_LOST_UNKNOWN)
			fputs(",\"bytes\":null", o);
		else
			fprintf(o, ",\"bytes\":%" PRIu64, it->bytes);
		fputs("}\n", o);
		return;
	}
	/* Only ATB lanes have their own alignment; elsewhere events are the stream's. */
	if (d->in.dcfg.encap.kind == SPOOR_ENCAP_ATB)
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
	case SPOOR_DF_GAP:
		if (it->bytes == SPOOR_DEFRAME_LOST_UNKNOWN)
			fputs("-- trace lost (the probe was away); skipping to the next sync "
			      "sequence\n", o);
		else
			fprintf(o, "-- %" PRIu64 " bytes lost (the probe's buffer overflowed); "
				"skipping to the next sync sequence\n", it->bytes);
		break;
	default:
		fprintf(o, "-- stream ends inside a packet: %" PRIu64 " bytes truncated\n",
			it->bytes);
		break;
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

/* cli_stream callbacks. */
static void on_frame(void *ctx, const struct spoor_frame *frm)
{
	dump_frame(ctx, frm);
}

static void on_event(void *ctx, const struct spoor_deframe_item *it)
{
	dump_event(ctx, it);
}

/* After each chunk: stops at the first failed write. */
static int on_check(void *ctx)
{
	struct dump *d = ctx;

	return ferror(d->out) ? cli_output_check("dump", d->out, errno) : 0;
}

/*
 * What a complete read of the stream amounted to: CLI_EXIT_CLEAN, or
 * CLI_EXIT_GAPS after one line on stderr counting the problems.
 */
static int stream_verdict(struct dump *d, const struct spoor_deframe_stats *st)
{
	uint64_t problems = st->sync_losses + d->bad_packets + (st->truncated_bytes != 0) +
			    d->in.losses + d->in.damaged;

	if (!d->packets) {
		fprintf(stderr, "spoor dump: no te_inst packet in %" PRIu64 " bytes (%s)\n",
			st->bytes, !st->bytes ? "empty input" : !st->frames ?
			"no frame found: wrong encapsulation, or no sync" :
			"none decoded: wrong parameters?");
		return CLI_EXIT_GAPS;
	}
	if (!problems)
		return CLI_EXIT_CLEAN;
	fprintf(stderr, "spoor dump: completed with %" PRIu64 " problem%s: %" PRIu64 " stream sync "
		"loss%s, %" PRIu64 " bad packet%s%s", problems, problems == 1 ? "" : "s",
		st->sync_losses, st->sync_losses == 1 ? "" : "es", d->bad_packets,
		d->bad_packets == 1 ? "" : "s",
		st->truncated_bytes ? ", the stream ends inside a packet" : "");
	cli_stream_losses(&d->in, stderr);
	fputc('\n', stderr);
	return CLI_EXIT_GAPS;
}

int cmd_dump(int argc, char **argv)
{
	static const struct cli_stream_ops ops = { .frame = on_frame, .event = on_event,
						   .check = on_check };
	struct spoor_deframe_stats st;
	struct dump *d = calloc(1, sizeof(*d));
	int status;

	if (!d) {
		fprintf(stderr, "spoor dump: out of memory\n");
		return CLI_EXIT_ERROR;
	}
	cli_stream_init(&d->in, "dump");
	d->out = stdout;
	status = parse_args(d, argc, argv);
	if (status) {
		free(d);
		return status < 0 ? CLI_EXIT_CLEAN : status;
	}
	if (d->format == OUT_CSV)
		spoor_te_print_csv_header(d->out);
	status = cli_stream_run(&d->in, &ops, d, &st);
	if (!d->quiet)
		print_summary(d, &st);
	if (!status)
		status = cli_output_check("dump", stdout, 0);
	if (!status)
		status = stream_verdict(d, &st);
	free(d);
	return status;
}
