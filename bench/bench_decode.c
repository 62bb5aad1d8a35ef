// SPDX-License-Identifier: MIT
/*
 * Benchmark: instruction trace reconstruction (deframe + te_inst decode +
 * decoder, block output) over a long stream made by repeating a reference
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

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct counts {
	uint64_t bytes, packets, blocks, insns, events;
};

/* Gives the decoder one packet (from the frame at @offset) and drains it, counting blocks. */
static void run_packet(struct spoor_decoder *dec, const struct spoor_te_inst *pkt,
		       uint64_t offset, struct counts *c)
{
	struct spoor_dec_item it;
	int ret;

	c->packets++;
	spoor_decoder_put(dec, pkt, offset);
	for (;;) {
		struct spoor_block blocks[64];
		int n = spoor_decoder_next_blocks(dec, blocks, 64);

		for (int i = 0; i < n; i++)
			c->insns += blocks[i].ninsn;
		c->blocks += (uint64_t)(n > 0 ? n : 0);
		if (n == 64)
			continue;
		ret = spoor_decoder_next(dec, &it, sizeof(it));
		if (ret <= 0)
			break;
		if (ret == SPOOR_DEC_BLOCK) {
			c->blocks++;
			c->insns += it.block.ninsn;
		} else {
			c->events++;
		}
	}
}

/* The pipeline behind the deframer. */
struct run {
	struct spoor_decoder *dec;
	const struct spoor_params *p;
	struct counts c;
};

/* Decodes @n frames' packets in one batch and runs each through the decoder. */
static void run_frames(void *arg, const struct spoor_frame *frames, size_t n)
{
	struct run *r = arg;
	struct spoor_te_inst pkts[SPOOR_DEFRAME_BATCH];
	int used[SPOOR_DEFRAME_BATCH];

	spoor_te_inst_decode_frames(r->p, 0, frames, n, pkts, used);
	for (size_t i = 0; i < n; i++)
		if (used[i] > 0)
			run_packet(r->dec, &pkts[i], frames[i].offset, &r->c);
}

/* Streams @total bytes of repeated @seed through the pipeline. */
static struct counts run(const struct spoor_params *p, struct spoor_image *img,
			 const uint8_t *seed, size_t seed_len, uint64_t total)
{
	struct spoor_deframe_config dcfg = { .start_synced = true };
	struct spoor_decoder_config cfg = {
		.params = p, .image = img, .compat = SPOOR_COMPAT_REFERENCE,
	};
	struct run r = { .dec = spoor_decoder_new(&cfg), .p = p };
	struct spoor_deframe *df;

	spoor_encap_config_init(&dcfg.encap, SPOOR_ENCAP_RAW);
	df = spoor_deframe_new(&dcfg);
	if (!r.dec || !df) {
		fprintf(stderr, "bench_decode: setup failed\n");
		exit(1);
	}
	while (r.c.bytes < total) {
		spoor_deframe_feed(df, seed, seed_len, 0);
		r.c.bytes += seed_len;
		spoor_deframe_drain(df, run_frames, NULL, &r);
	}
	spoor_deframe_free(df);
	spoor_decoder_free(r.dec);
	return r.c;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "elf", required_argument, NULL, 'e' },
		{ "spike-rom", no_argument, NULL, 'r' },
		{ "params", required_argument, NULL, 'p' },
		{ "mb", required_argument, NULL, 'm' },
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
		default:
			return 2;
		}
	}
	if (optind != argc - 1 || !spoor_image_xlen(img)) {
		fprintf(stderr, "usage: bench_decode --elf PROG [--spike-rom] --params X.scf "
			"[--mb N] TRACE\n");
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
