// SPDX-License-Identifier: MIT
/*
 * Benchmark: deframe + te_inst decode over a large in-memory stream built by
 * concatenating trace files (by default every reference te_inst_raw stream),
 * fed in fixed-size chunks as a probe transport would deliver them.
 *
 * usage: bench_deframe [--mb N] [--chunk BYTES] [--encap KIND --src-bits S
 *        --ts-bytes T --type-bits Y] [--params FILE.scf] FILE...
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "spoor/config_file.h"
#include "spoor/deframe.h"
#include "spoor/error.h"
#include "spoor/te_inst.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Appends file @path to @buf (capacity @cap) at @len; returns bytes read. */
static size_t read_file(const char *path, uint8_t *buf, size_t len, size_t cap)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f) {
		perror(path);
		exit(1);
	}
	n = fread(buf + len, 1, cap - len, f);
	fclose(f);
	return n;
}

struct result {
	uint64_t frames, packets, bad, bits;
};

/* A pass: the parameters to decode with (NULL: deframe only), and its counts. */
struct pass {
	const struct spoor_params *p;
	struct result r;
};

/*
 * Counts @n frames: with parameters, decodes their te_inst packets and
 * counts the results (what a consumer must look at); without, counts
 * payload bits.
 */
static void count_frames(void *arg, const struct spoor_frame *fr, size_t n)
{
	struct pass *ps = arg;
	const struct spoor_params *p = ps->p;
	struct result *r = &ps->r;
	struct spoor_te_inst pkts[SPOOR_DEFRAME_BATCH];
	int used[SPOOR_DEFRAME_BATCH];

	r->frames += n;
	if (!p) {
		for (size_t i = 0; i < n; i++)
			r->bits += 8u * fr[i].payload_len;
		return;
	}
	spoor_te_inst_decode_frames(p, 0, fr, n, pkts, used);
	for (size_t i = 0; i < n; i++) {
		r->bad += used[i] < 0;
		r->packets += used[i] > 0;	/* 0: not a te_inst frame */
	}
}

/* One pass over @buf, as a bulk consumer would run it (no te_inst decode
 * when @p is NULL); returns the counts. */
static struct result run(const struct spoor_deframe_config *cfg, const struct spoor_params *p,
			 const uint8_t *buf, size_t len, size_t chunk)
{
	struct spoor_deframe *df = spoor_deframe_new(cfg);
	struct pass ps = { .p = p };

	if (!df) {
		fprintf(stderr, "bench_deframe: bad deframer configuration\n");
		exit(1);
	}
	for (size_t pos = 0; pos < len; pos += chunk) {
		size_t n = len - pos < chunk ? len - pos : chunk;

		spoor_deframe_feed(df, buf + pos, n, 0);
		spoor_deframe_drain(df, count_frames, NULL, &ps);
	}
	spoor_deframe_finish(df);
	spoor_deframe_drain(df, count_frames, NULL, &ps);
	spoor_deframe_free(df);
	return ps.r;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mb", required_argument, NULL, 'm' },
		{ "chunk", required_argument, NULL, 'c' },
		{ "encap", required_argument, NULL, 'e' },
		{ "src-bits", required_argument, NULL, 's' },
		{ "ts-bytes", required_argument, NULL, 't' },
		{ "type-bits", required_argument, NULL, 'y' },
		{ "params", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char usage[] =
		"usage: bench_deframe [--mb N] [--chunk BYTES] [--encap KIND --src-bits S\n"
		"                     --ts-bytes T --type-bits Y] [--params F] FILE...\n"
		"Deframes the FILEs' streams, concatenated and repeated to N MiB (default 256),\n"
		"fed in chunks, with and without te_inst decoding; prints MB/s.\n";
	struct spoor_deframe_config cfg = { .start_synced = true };
	struct spoor_params params;
	struct spoor_diag diag;
	size_t target = 256u << 20, chunk = 65536, seed_len = 0, len = 0;
	enum spoor_encap_kind kind = SPOOR_ENCAP_RAW;
	long s = -1, t = -1, y = -1;
	struct result r = { 0 };
	uint8_t *seed, *buf;
	int c;

	spoor_params_init(&params);
	params.iaddress_width_p = 64;
	params.context_width_p = 32;
	params.nocontext_p = 0;
	params.ecause_width_p = 5;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'm': target = strtoul(optarg, NULL, 0) << 20; break;
		case 'c': chunk = strtoul(optarg, NULL, 0); break;
		case 'e':
			if (spoor_encap_kind_parse(optarg, &kind)) {
				fprintf(stderr, "bench_deframe: unknown encapsulation %s\n", optarg);
				return 2;
			}
			break;
		case 's': s = strtol(optarg, NULL, 0); break;
		case 't': t = strtol(optarg, NULL, 0); break;
		case 'y': y = strtol(optarg, NULL, 0); break;
		case 'p':
			if (spoor_params_load(&params, optarg, &diag)) {
				fprintf(stderr, "bench_deframe: %s\n", diag.msg);
				return 1;
			}
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind >= argc || !chunk || !target) {
		fputs(usage, stderr);
		return 2;
	}
	spoor_encap_config_init(&cfg.encap, kind);
	if (s >= 0)
		cfg.encap.src_bits = (unsigned)s;
	if (t >= 0)
		cfg.encap.ts_bytes = (unsigned)t;
	if (y >= 0)
		cfg.encap.type_bits = (unsigned)y;

	seed = malloc(64u << 20);
	buf = malloc(target);
	if (!seed || !buf)
		return 1;
	for (int i = optind; i < argc; i++)
		seed_len += read_file(argv[i], seed, seed_len, 64u << 20);
	if (!seed_len)
		return 1;
	/* Concatenated streams stay valid: every file starts at a packet. */
	while (len + seed_len <= target) {
		memcpy(buf + len, seed, seed_len);
		len += seed_len;
	}
	for (int pass = 0; pass < 2; pass++) {
		const struct spoor_params *p = pass ? &params : NULL;
		double best = 1e30;

		for (int rep = 0; rep < 5; rep++) {
			double t0 = now(), dt;
			struct result x = run(&cfg, p, buf, len, chunk);

			if (pass)
				r.packets = x.packets, r.bad = x.bad;
			else
				r = x;	/* frames and payload bits */
			dt = now() - t0;
			if (dt < best)
				best = dt;
		}
		if (!pass)
			printf("stream: %.1f MB (%zu-byte seed x %zu), %zu-byte chunks, encap %s\n",
			       (double)len / 1e6, seed_len, len / seed_len, chunk,
			       spoor_encap_kind_name(kind));
		printf("%-15s best of 5: %.3f s, %.0f MB/s, %.1f M frames/s\n",
		       pass ? "deframe+decode:" : "deframe only:", best, (double)len / best / 1e6,
		       (double)r.frames / best / 1e6);
	}
	printf("frames %llu, te_inst packets %llu, bad %llu, %.2f payload bits/frame\n",
	       (unsigned long long)r.frames, (unsigned long long)r.packets,
	       (unsigned long long)r.bad, r.frames ? (double)r.bits / (double)r.frames : 0.0);
	free(seed);
	free(buf);
	return 0;
}
