// SPDX-License-Identifier: MIT
/*
 * Benchmark: instruction trace reconstruction (the library pipeline of
 * trace.h: deframe + te_inst decode + decoder, block output) over a long stream made by repeating a reference
 * te_inst_raw stream, fed in chunks as a probe would deliver it.  The stream
 * is generated on the fly, so the process's peak RSS shows what decoding
 * itself needs: compare --mb 1 with --mb 1024.
 *
 * usage: bench_decode --elf PROG.riscv [--spike-rom] --params X.scf [--mb N] TRACE
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "spoor/config_file.h"
#include "spoor/decoder.h"
#include "spoor/deframe.h"
#include "spoor/error.h"
#include "spoor/image.h"
#include "spoor/te_inst.h"
#include "spoor/trace.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct counts {
	uint64_t bytes, packets, blocks, insns, events;
};

/* The pipeline's blocks, counted. */
static void on_blocks(void *ctx, uint32_t source, uint64_t offset, const struct spoor_block *b,
		      size_t n)
{
	struct counts *c = ctx;

	(void)source;
	(void)offset;
	for (size_t i = 0; i < n; i++)
		c->insns += b[i].ninsn;
	c->blocks += n;
}

static void on_event(void *ctx, const struct spoor_dec_item *it)
{
	struct counts *c = ctx;

	(void)it;
	c->events++;
}

/* Streams @total bytes of repeated @seed through the library pipeline (trace.h). */
static struct counts run(const struct spoor_params *p, struct spoor_image *img,
			 const uint8_t *seed, size_t seed_len, uint64_t total)
{
	static const struct spoor_trace_ops ops = { .blocks = on_blocks, .event = on_event };
	struct spoor_trace_config cfg;
	struct spoor_trace_stats st;
	struct counts c = { 0 };
	struct spoor_trace *tr;

	spoor_trace_config_init(&cfg);
	cfg.params = *p;
	cfg.image = img;
	tr = spoor_trace_new(&cfg, &ops, &c);
	if (!tr) {
		fprintf(stderr, "bench_decode: setup failed\n");
		exit(1);
	}
	while (c.bytes < total) {
		if (spoor_trace_feed(tr, seed, seed_len)) {
			fprintf(stderr, "bench_decode: the pipeline failed\n");
			exit(1);
		}
		c.bytes += seed_len;
	}
	spoor_trace_finish(tr);
	spoor_trace_stats(tr, &st, sizeof(st));
	c.packets = st.packets;
	spoor_trace_free(tr);
	return c;
}

static const char usage[] =
	"usage: bench_decode --elf PROG [--spike-rom] --params X.scf [--mb N] TRACE\n"
	"Decodes TRACE (a raw te_inst stream, repeated to N MiB) against PROG through\n"
	"the library pipeline and prints instructions and bytes per second.\n";

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "elf", required_argument, NULL, 'e' },
		{ "spike-rom", no_argument, NULL, 'r' },
		{ "params", required_argument, NULL, 'p' },
		{ "mb", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct spoor_image *img = spoor_image_new();
	struct spoor_params params;
	struct spoor_diag diag;
	uint64_t total = 256ull << 20;
	bool rom = false;
	struct counts c;
	struct rusage ru;
	uint8_t *seed;
	size_t seed_len;
	double t0, dt;
	FILE *f;
	int o;

	spoor_params_init(&params);
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'e':
			if (spoor_image_add_elf(img, optarg, 0, &diag)) {
				fprintf(stderr, "bench_decode: %s\n", diag.msg);
				return 1;
			}
			break;
		case 'r':
			rom = true;
			break;
		case 'p':
			if (spoor_params_load(&params, optarg, &diag)) {
				fprintf(stderr, "bench_decode: %s\n", diag.msg);
				return 1;
			}
			break;
		case 'm':
			total = strtoull(optarg, NULL, 0) << 20;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind != argc - 1 || !spoor_image_xlen(img)) {
		fputs(usage, stderr);
		return 2;
	}
	if (rom)
		spoor_image_add_spike_rom(img, spoor_image_xlen(img));
	f = fopen(argv[optind], "rb");
	seed = malloc(16u << 20);
	if (!f || !seed)
		return 1;
	seed_len = fread(seed, 1, 16u << 20, f);
	fclose(f);

	t0 = now();
	c = run(&params, img, seed, seed_len, total);
	dt = now() - t0;
	getrusage(RUSAGE_SELF, &ru);
	printf("stream %.1f MB: %llu packets, %llu blocks, %llu instructions, %llu events\n",
	       (double)c.bytes / 1e6, (unsigned long long)c.packets,
	       (unsigned long long)c.blocks, (unsigned long long)c.insns,
	       (unsigned long long)c.events);
	printf("reconstruction: %.3f s, %.0f M instructions/s, %.1f M blocks/s, %.0f MB/s\n", dt,
	       (double)c.insns / dt / 1e6, (double)c.blocks / dt / 1e6,
	       (double)c.bytes / dt / 1e6);
	printf("peak RSS: %ld KiB\n", ru.ru_maxrss);
	free(seed);
	spoor_image_free(img);
	return 0;
}
