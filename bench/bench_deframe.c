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

/* One pass over @buf; returns the counts. */
static struct result run(const struct spoor_deframe_config *cfg, const struct spoor_params *p,
			 const uint8_t *buf, size_t len, size_t chunk)
{
	struct spoor_deframe *df = spoor_deframe_new(cfg);
	struct spoor_deframe_item it;
	struct spoor_te_inst pkt;
	struct result r = { 0 };
	int ret;

	if (!df) {
		fprintf(stderr, "bench_deframe: bad deframer configuration\n");
		exit(1);
	}
	for (size_t pos = 0; pos < len; pos += chunk) {
		size_t n = len - pos < chunk ? len - pos : chunk;

		spoor_deframe_feed(df, buf + pos, n, 0);
		while ((ret = spoor_deframe_next(df, &it, sizeof(it))) > 0) {
			if (ret != SPOOR_DF_FRAME)
				continue;
			r.frames++;
			ret = spoor_te_inst_decode(p, it.frame.payload, it.frame.payload_len, &pkt);
			if (ret < 0) {
				r.bad++;
			} else {
				r.packets++;
				r.bits += 8u * it.frame.payload_len;
			}
		}
	}
	spoor_deframe_finish(df);
	while (spoor_deframe_next(df, &it, sizeof(it)) > 0)
		;
	spoor_deframe_free(df);
	return r;
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
		{ NULL, 0, NULL, 0 },
	};
	struct spoor_deframe_config cfg = { .start_synced = true };
	struct spoor_params params;
	struct spoor_diag diag;
	size_t target = 256u << 20, chunk = 65536, seed_len = 0, len = 0;
	enum spoor_encap_kind kind = SPOOR_ENCAP_RAW;
	long s = -1, t = -1, y = -1;
	double best = 1e30;
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
		default:
			return 2;
		}
	}
	if (optind >= argc || !chunk || !target) {
		fprintf(stderr, "usage: bench_deframe [--mb N] [--chunk BYTES] [--encap KIND "
			"--src-bits S --ts-bytes T --type-bits Y] [--params F] FILE...\n");
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
	for (int rep = 0; rep < 5; rep++) {
		double t0 = now(), dt;

		r = run(&cfg, &params, buf, len, chunk);
		dt = now() - t0;
		if (dt < best)
			best = dt;
	}
	printf("stream: %.1f MB (%zu-byte seed x %zu), %zu-byte chunks, encap %s\n",
	       (double)len / 1e6, seed_len, len / seed_len, chunk, spoor_encap_kind_name(kind));
	printf("frames %llu, te_inst packets %llu, bad %llu, %.2f payload bits/packet\n",
	       (unsigned long long)r.frames, (unsigned long long)r.packets,
	       (unsigned long long)r.bad, r.packets ? (double)r.bits / (double)r.packets : 0.0);
	printf("deframe+decode: best of 5: %.3f s, %.0f MB/s, %.1f M packets/s\n", best,
	       (double)len / best / 1e6, (double)r.packets / best / 1e6);
	free(seed);
	free(buf);
	return 0;
}
