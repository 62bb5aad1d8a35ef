// SPDX-License-Identifier: MIT
/*
 * Makes a two-hart capture from a one-hart one: every te_inst frame of IN
 * (srcID 0) is written as hart 0's, and the first K of them once more as
 * hart 1's, interleaved as a trace funnel would merge two encoders.  Hart
 * 1's history is then the prefix of hart 0's that those K packets give.
 * usage: twohart BOARD.ini IN OUT K
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spoor/board.h"
#include "spoor/deframe.h"
#include "spoor/encap.h"
#include "spoor/error.h"

/* Writes one frame of @src; returns false on an error. */
static bool put(FILE *out, const struct spoor_encap_config *e, const struct spoor_frame *f,
		uint32_t src)
{
	struct spoor_frame g = *f;
	uint8_t buf[SPOOR_FRAME_MAX];
	int n;

	g.source = src;
	n = spoor_encap_encode(e, &g, buf, sizeof(buf));
	return n > 0 && fwrite(buf, 1, (size_t)n, out) == (size_t)n;
}

int main(int argc, char **argv)
{
	struct spoor_deframe_config dcfg = { .start_synced = false };
	struct spoor_deframe_item it;
	struct spoor_diag diag;
	struct spoor_board b;
	struct spoor_deframe *df;
	static uint8_t in[64 << 20], sync[256];
	unsigned long k, frames = 0;
	FILE *f, *out;
	size_t n;
	int len;
	bool ok = true;

	static const char usage[] =
		"usage: twohart BOARD.ini IN OUT K\n"
		"Writes OUT: the trace port capture IN with its frames given to two harts\n"
		"(srcIDs): every frame as hart 0's and the first K once more as hart 1's.\n";

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc != 5) {
		fputs(usage, stderr);
		return 2;
	}
	spoor_board_init(&b);
	if (spoor_board_load(&b, argv[1], &diag)) {
		fprintf(stderr, "twohart: %s\n", diag.msg);
		return 1;
	}
	k = strtoul(argv[4], NULL, 0);
	f = fopen(argv[2], "rb");
	out = fopen(argv[3], "wb");
	if (!f || !out) {
		perror("twohart");
		return 1;
	}
	n = fread(in, 1, sizeof(in), f);
	fclose(f);
	dcfg.encap = b.encap;
	df = spoor_deframe_new(&dcfg);
	len = spoor_encap_sync_sequence(&b.encap, 0, sync, sizeof(sync));
	if (!df || len < 0 || fwrite(sync, 1, (size_t)len, out) != (size_t)len)
		return 1;
	spoor_deframe_feed(df, in, n, 0);
	for (int pass = 0; pass < 2; pass++) {
		if (pass)
			spoor_deframe_finish(df);
		while (spoor_deframe_next(df, &it, sizeof(it)) > 0) {
			if (it.kind != SPOOR_DF_FRAME || it.frame.msg != SPOOR_MSG_TE_INST)
				continue;
			ok &= put(out, &b.encap, &it.frame, 0);
			if (frames++ < k)
				ok &= put(out, &b.encap, &it.frame, 1);
		}
	}
	spoor_deframe_free(df);
	if (fclose(out) || !ok) {
		fprintf(stderr, "twohart: writing %s failed\n", argv[3]);
		return 1;
	}
	printf("%lu frames, %lu of them also as hart 1\n", frames, k < frames ? k : frames);
	return 0;
}
