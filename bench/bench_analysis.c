// SPDX-License-Identifier: MIT
/*
 * Benchmark: the analysis sinks (spoor/sink.h) on one core.  A capture is
 * decoded once through the library pipeline and its blocks and events are
 * recorded in memory (up to --max-items); then each sink is fed them
 * --repeat times (spoor_sink_restart() between two passes, as between two
 * captures of a merge) and timed alone, without the decoding: retired
 * instructions per second and the memory the sink added (resident).  Then the whole
 * pipeline with each sink attached, from the capture's bytes, for the
 * end-to-end rate a user sees.
 *
 * usage: bench_analysis --board BOARD.ini --elf PROG.elf [--repeat N]
 *        [--max-items N] CAPTURE   (a capture file, or raw trace bytes)
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "spoor/board.h"
#include "spoor/calls.h"
#include "spoor/capture_file.h"
#include "spoor/coverage.h"
#include "spoor/error.h"
#include "spoor/funcs.h"
#include "spoor/image.h"
#include "spoor/profile.h"
#include "spoor/sink.h"
#include "spoor/timeline.h"
#include "spoor/trace.h"

/* One recorded pipeline output: a block, or (event != NONE) an event. */
struct item {
	uint32_t source;
	uint32_t event;		/* index into the events, or NONE */
	struct spoor_block block;
};

#define NONE UINT32_MAX

struct recording {
	struct item *items;
	size_t n, cap, max;
	struct spoor_dec_item *events;
	size_t nevents, events_cap;
	uint64_t insns;		/* in the blocks recorded */
	bool full;
};

static void rec_push(struct recording *r, const struct item *it)
{
	if (r->n == r->max) {
		r->full = true;
		return;
	}
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 1 << 16;
		r->items = realloc(r->items, r->cap * sizeof(*r->items));
		if (!r->items) {
			fprintf(stderr, "bench_analysis: out of memory\n");
			exit(1);
		}
	}
	r->items[r->n++] = *it;
}

static void rec_blocks(void *ctx, uint32_t source, uint64_t offset, const struct spoor_block *b,
		       size_t n)
{
	struct recording *r = ctx;
	struct item it = { .source = source, .event = NONE };

	(void)offset;
	for (size_t i = 0; i < n && !r->full; i++) {
		it.block = b[i];
		rec_push(r, &it);
		if (!r->full)
			r->insns += b[i].ninsn;
	}
}

static void rec_event(void *ctx, const struct spoor_dec_item *ev)
{
	struct recording *r = ctx;
	struct item it = { .source = ev->source, .event = (uint32_t)r->nevents };

	if (r->full)
		return;
	if (r->nevents == r->events_cap) {
		r->events_cap = r->events_cap ? 2 * r->events_cap : 1024;
		r->events = realloc(r->events, r->events_cap * sizeof(*r->events));
		if (!r->events) {
			fprintf(stderr, "bench_analysis: out of memory\n");
			exit(1);
		}
	}
	r->events[r->nevents++] = *ev;
	rec_push(r, &it);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Peak resident set size so far, in MiB. */
static double peak_mib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_maxrss / 1024.0;
}

/* Resident set size now, in MiB (/proc/self/statm), 0 if unknown. */
static double rss_mib(void)
{
	unsigned long size, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%lu %lu", &size, &resident) != 2)
			resident = 0;
		fclose(f);
	}
	return (double)resident * (double)sysconf(_SC_PAGESIZE) / (1024.0 * 1024.0);
}

/*
 * Feeds @path's bytes through a pipeline with callbacks @ops/@ctx; returns
 * the instructions decoded, or -1.
 */
static long long run_capture(const char *path, const struct spoor_trace_config *cfg,
			     const struct spoor_trace_ops *ops, void *ctx)
{
	struct spoor_trace_stats st;
	struct spoor_capture_reader *rd;
	struct spoor_capture_record rec;
	struct spoor_diag diag;
	struct spoor_trace *tr;
	long long bytes = 0;
	int ret;

	tr = spoor_trace_new(cfg, ops, ctx);
	if (!tr)
		return -1;
	if (spoor_capture_reader_open(path, &rd, &diag)) {
		/* Not a capture file: the raw trace bytes (spoor virt --capture). */
		static uint8_t buf[1 << 16];
		FILE *f = fopen(path, "rb");
		size_t n;

		if (!f) {
			fprintf(stderr, "bench_analysis: %s\n", diag.msg);
			spoor_trace_free(tr);
			return -1;
		}
		while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
			spoor_trace_feed(tr, buf, n);
		fclose(f);
		spoor_trace_finish(tr);
		spoor_trace_stats(tr, &st, sizeof(st));
		spoor_trace_free(tr);
		return (long long)st.decoder.instructions;
	}
	while ((ret = spoor_capture_reader_next(rd, &rec)) == 1) {
		if (rec.type == SPOOR_CAPTURE_DATA) {
			spoor_trace_feed(tr, rec.payload, rec.len);
			bytes += (long long)rec.len;
		} else if (rec.type == SPOOR_CAPTURE_LOSS) {
			spoor_trace_gap(tr, rec.count);
		}
	}
	spoor_trace_finish(tr);
	spoor_trace_stats(tr, &st, sizeof(st));
	spoor_trace_free(tr);
	spoor_capture_reader_close(rd);
	(void)bytes;
	return ret < 0 ? -1 : (long long)st.decoder.instructions;
}

enum sink_kind { SINK_COVERAGE, SINK_PROFILE, SINK_CALLS, SINK_TIMELINE, NSINKS };

static const char *const sink_names[NSINKS] = {
	"coverage", "profile (call graph)", "calls (call tree)", "timeline (to /dev/null)",
};

/* A new sink of @kind over @funcs (timeline writing to @null). */
static struct spoor_sink *sink_new(enum sink_kind kind, struct spoor_funcs *funcs, FILE *null)
{
	struct spoor_timeline_config tc;

	switch (kind) {
	case SINK_COVERAGE:
		return spoor_coverage_new(funcs);
	case SINK_PROFILE:
		return spoor_profile_new(funcs);
	case SINK_CALLS:
		return spoor_calls_new(funcs, 0);
	default:
		spoor_timeline_config_init(&tc);
		return spoor_timeline_new(funcs, null, &tc);
	}
}

/* Finishes @s the way its command does at the end (output to @null); returns 0 or an error. */
static int sink_end(enum sink_kind kind, struct spoor_sink *s, FILE *null)
{
	switch (kind) {
	case SINK_COVERAGE:
		return spoor_coverage_write_lcov(s, null, "bench");
	case SINK_PROFILE:
		return spoor_profile_write_callgrind(s, null, "bench");
	case SINK_CALLS:
		return spoor_calls_write_json(s, null, 0);
	default:
		return spoor_timeline_finish(s);
	}
}

/* Feeds the recording to @s @repeat times; returns the seconds it took. */
static double feed(struct spoor_sink *s, const struct recording *r, unsigned repeat)
{
	double t0 = now();

	for (unsigned k = 0; k < repeat; k++) {
		size_t i = 0;

		if (k)
			spoor_sink_restart(s);
		while (i < r->n) {
			const struct item *it = &r->items[i];

			if (it->event != NONE) {
				spoor_sink_event(s, &r->events[it->event]);
				i++;
				continue;
			}
			/* Runs of blocks of one source go in one call, as the pipeline hands them. */
			struct spoor_block run[64];
			size_t m = 0;

			while (i < r->n && m < 64 && r->items[i].event == NONE &&
			       r->items[i].source == it->source)
				run[m++] = r->items[i++].block;
			spoor_sink_blocks(s, it->source, run, m);
		}
	}
	return now() - t0;
}

/* Prints the usage to @f; returns @status. */
static int usage(FILE *f, int status)
{
	fprintf(f, "usage: bench_analysis --board BOARD.ini --elf PROG.elf [--repeat N] "
		"[--max-items N] CAPTURE\n"
		"Times the analysis sinks (coverage, profile, calls, timeline) on the blocks and\n"
		"events of CAPTURE (a capture file, or raw trace bytes), alone and behind the\n"
		"pipeline: M instructions/s on one core, and peak memory.\n");
	return status;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "board", required_argument, NULL, 'b' },
		{ "elf", required_argument, NULL, 'e' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "max-items", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *board_path = NULL, *elf = NULL;
	struct recording rec = { .max = 4u << 20 };
	struct spoor_trace_ops rops = { .blocks = rec_blocks, .event = rec_event };
	struct spoor_trace_config cfg;
	struct spoor_board board;
	struct spoor_diag diag;
	struct spoor_image *img;
	unsigned repeat = 5;
	char *end;
	FILE *null;
	double t;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			board_path = optarg;
			break;
		case 'e':
			elf = optarg;
			break;
		case 'r':
			repeat = (unsigned)strtoul(optarg, &end, 0);
			if (*end || repeat > 1000)
				return usage(stderr, 2);
			break;
		case 'm':
			rec.max = (size_t)strtoull(optarg, &end, 0);
			if (*end)
				return usage(stderr, 2);
			break;
		case 'h':
			return usage(stdout, 0);
		default:
			return usage(stderr, 2);
		}
	}
	if (!board_path || !elf || optind != argc - 1 || !repeat || !rec.max)
		return usage(stderr, 2);
	spoor_board_init(&board);
	img = spoor_image_new();
	null = fopen("/dev/null", "w");
	if (!img || !null || spoor_board_load(&board, board_path, &diag) ||
	    spoor_image_add_elf(img, elf, 0, &diag)) {
		fprintf(stderr, "bench_analysis: %s\n", img && null ? diag.msg : "out of memory");
		return 1;
	}
	spoor_trace_config_init(&cfg);
	spoor_trace_config_board(&cfg, &board);
	cfg.image = img;
	memcpy(cfg.isa, board.isa, sizeof(cfg.isa));

	/* Decode once, recording blocks and events. */
	t = now();
	if (run_capture(argv[optind], &cfg, &rops, &rec) < 0)
		return 1;
	t = now() - t;
	printf("recorded %zu items (%" PRIu64 " instructions%s) in %.2f s; peak RSS %.0f MiB\n",
	       rec.n, rec.insns, rec.full ? ", the capture's first part" : "", t, peak_mib());
	printf("%-26s %12s %10s %12s\n", "sink alone", "M insn/s", "ns/block", "+RSS MiB");
	for (int k = 0; k < NSINKS; k++) {
		double before = rss_mib();
		struct spoor_funcs *funcs = spoor_funcs_new(img);
		struct spoor_sink *s = funcs ? sink_new((enum sink_kind)k, funcs, null) : NULL;
		double secs;
		size_t blocks = 0;
		int err;

		if (!s) {
			fprintf(stderr, "bench_analysis: cannot make the %s sink\n", sink_names[k]);
			return 1;
		}
		for (size_t i = 0; i < rec.n; i++)
			blocks += rec.items[i].event == NONE;
		secs = feed(s, &rec, repeat);
		err = sink_end((enum sink_kind)k, s, null);
		if (!blocks || secs <= 0) {
			fprintf(stderr, "bench_analysis: no blocks decoded\n");
			return 1;
		}
		/* (What the sink keeps: the memory it added, with its output written.) */
		printf("%-26s %12.1f %10.2f %12.1f%s\n", sink_names[k],
		       (double)rec.insns * repeat / secs / 1e6, secs * 1e9 / ((double)blocks * repeat),
		       rss_mib() - before, spoor_sink_error(s) || err ? "  (sink error)" : "");
		spoor_sink_free(s);
		spoor_funcs_free(funcs);
	}

	/* End to end: the capture's bytes through the pipeline into each sink. */
	printf("%-26s %12s\n", "pipeline + sink", "M insn/s");
	for (int k = -1; k < NSINKS; k++) {
		struct spoor_funcs *funcs = spoor_funcs_new(img);
		struct spoor_sink *s = k < 0 || !funcs ? NULL : sink_new((enum sink_kind)k, funcs, null);
		struct spoor_trace_ops none = { 0 };
		long long insns;
		double secs;

		if (!funcs || (k >= 0 && !s)) {
			fprintf(stderr, "bench_analysis: out of memory\n");
			return 1;
		}
		t = now();
		insns = run_capture(argv[optind], &cfg, s ? spoor_sink_trace_ops() : &none, s);
		if (insns < 0)
			return 1;
		if (s)
			sink_end((enum sink_kind)k, s, null);
		secs = now() - t;
		printf("%-26s %12.1f\n", k < 0 ? "(decode alone)" : sink_names[k],
		       (double)insns / secs / 1e6);
		spoor_sink_free(s);
		spoor_funcs_free(funcs);
	}
	fclose(null);
	spoor_image_free(img);
	free(rec.items);
	free(rec.events);
	return 0;
}
