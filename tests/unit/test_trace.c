// SPDX-License-Identifier: MIT
/* Tests for the trace pipeline (trace.h): bytes in, blocks and events out. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "check.h"
#include "spoor/config_file.h"
#include "spoor/error.h"
#include "spoor/trace.h"

/* What the callbacks saw. */
struct seen {
	struct spoor_trace *tr;
	uint32_t want_source;		/* only its pcs are kept */
	uint64_t *pcs;
	size_t npcs, cap;
	size_t blocks, open_blocks, events, gaps, stream, bad;
	uint32_t sources_seen;		/* bit per source < 32 */
};

static void push(struct seen *s, uint64_t pc)
{
	if (s->npcs == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 65536;
		s->pcs = realloc(s->pcs, s->cap * sizeof(*s->pcs));
		if (!s->pcs)
			abort();
	}
	s->pcs[s->npcs++] = pc;
}

static void on_blocks(void *ctx, uint32_t source, uint64_t offset,
		      const struct spoor_block *b, size_t n)
{
	struct seen *s = ctx;
	struct spoor_decoder *dec = spoor_trace_decoder(s->tr, source);
	struct spoor_insn in;

	(void)offset;
	if (source < 32)
		s->sources_seen |= 1u << source;
	for (size_t i = 0; i < n; i++) {
		uint64_t a = b[i].start;

		s->blocks++;
		s->open_blocks += b[i].end == SPOOR_BLK_OPEN;
		if (source != s->want_source)
			continue;
		for (uint64_t k = 0; k < b[i].ninsn; k++) {
			push(s, a);
			if (!dec || spoor_decoder_insn(dec, a, &in))
				break;
			a += in.len;
		}
	}
}

static void on_event(void *ctx, const struct spoor_dec_item *it)
{
	struct seen *s = ctx;

	s->events++;
	s->gaps += it->event.kind == SPOOR_EV_GAP;
}

static void on_stream(void *ctx, const struct spoor_deframe_item *it)
{
	struct seen *s = ctx;

	(void)it;
	s->stream++;
}

static void on_bad(void *ctx, uint32_t source, uint64_t offset, int err)
{
	struct seen *s = ctx;

	(void)source;
	(void)offset;
	(void)err;
	s->bad++;
}

static const struct spoor_trace_ops ops = {
	.blocks = on_blocks, .event = on_event, .stream = on_stream, .bad_packet = on_bad,
};

/* Reads file @path whole into a malloc'd buffer. */
static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b = malloc(4 << 20);

	*len = 0;
	if (f && b)
		*len = fread(b, 1, 4 << 20, f);
	if (f)
		fclose(f);
	return b;
}

/* The reference decoder's pcs of @path (gzip). */
static uint64_t *ref_pcs(const char *path, size_t *n)
{
	gzFile f = gzopen(path, "rb");
	uint64_t *v = malloc(sizeof(*v) << 22);
	char line[64];

	*n = 0;
	while (f && v && gzgets(f, line, sizeof(line)) && *n < (1u << 22))
		v[(*n)++] = strtoull(line, NULL, 16);
	if (f)
		gzclose(f);
	return v;
}

/* A configuration for reference suite @suite (64-bit parameters, raw, spike's ROM). */
static bool config(struct spoor_trace_config *cfg, const char *suite, const char *elf)
{
	struct spoor_diag d;
	char path[512];

	spoor_trace_config_init(cfg);
	snprintf(path, sizeof(path), SPOOR_VECTORS "/%s/hardware_64.scf", suite);
	if (spoor_params_load(&cfg->params, path, &d))
		return false;
	cfg->image = spoor_image_new();
	snprintf(path, sizeof(path), SPOOR_VECTORS "/elf/%s.riscv", elf);
	return cfg->image && !spoor_image_add_elf(cfg->image, path, 0, &d) &&
	       !spoor_image_add_spike_rom(cfg->image, 64);
}

/*
 * Runs @len bytes of @buf through a pipeline of @cfg in chunks of @chunk
 * (0: whole), flushing (not ending) after @flush_at bytes if non-zero.
 */
static void run(const struct spoor_trace_config *cfg, const uint8_t *buf, size_t len,
		size_t chunk, size_t flush_at, struct seen *s, uint32_t source)
{
	memset(s, 0, sizeof(*s));
	s->want_source = source;
	s->tr = spoor_trace_new(cfg, &ops, s);
	CHECK(s->tr != NULL);
	if (!s->tr)
		return;
	if (!chunk)
		chunk = len;
	for (size_t off = 0; off < len; off += chunk) {
		size_t k = len - off < chunk ? len - off : chunk;

		if (flush_at && off < flush_at && off + k >= flush_at) {
			CHECK_EQ(spoor_trace_feed(s->tr, buf + off, flush_at - off), 0);
			CHECK_EQ(spoor_trace_flush(s->tr), 0);
			CHECK_EQ(spoor_trace_feed(s->tr, buf + flush_at, off + k - flush_at), 0);
			continue;
		}
		CHECK_EQ(spoor_trace_feed(s->tr, buf + off, k), 0);
	}
	CHECK_EQ(spoor_trace_finish(s->tr), 0);
}

static void test_args(void)
{
	struct spoor_trace_config cfg;
	struct spoor_trace_stats st;
	struct spoor_trace *tr;

	CHECK(spoor_trace_new(NULL, &ops, NULL) == NULL);
	spoor_trace_config_init(&cfg);
	cfg.params.iaddress_width_p = 0;	/* fails spoor_params_check() */
	CHECK(spoor_trace_new(&cfg, &ops, NULL) == NULL);
	spoor_trace_config_init(&cfg);
	tr = spoor_trace_new(&cfg, NULL, NULL);
	CHECK(tr != NULL);
	CHECK_EQ(spoor_trace_feed(NULL, (const uint8_t *)"", 0), SPOOR_E_INVAL);
	CHECK_EQ(spoor_trace_feed(tr, NULL, 3), SPOOR_E_INVAL);
	CHECK_EQ(spoor_trace_feed(tr, NULL, 0), 0);
	CHECK(spoor_trace_decoder(tr, 0) == NULL);
	CHECK(spoor_trace_decoder(tr, 1u << 20) == NULL);
	CHECK_EQ(spoor_trace_stats(NULL, &st, sizeof(st)), SPOOR_E_INVAL);
	CHECK_EQ(spoor_trace_stats(tr, NULL, sizeof(st)), SPOOR_E_INVAL);
	CHECK_EQ(spoor_trace_finish(tr), 0);
	CHECK_EQ(spoor_trace_finish(tr), SPOOR_E_INVAL);
	CHECK_EQ(spoor_trace_flush(tr), SPOOR_E_INVAL);
	CHECK_EQ(spoor_trace_feed(tr, (const uint8_t *)"\x01", 1), SPOOR_E_INVAL);
	CHECK_EQ(spoor_trace_flush(NULL), SPOOR_E_INVAL);
	spoor_trace_free(tr);
	spoor_trace_free(NULL);
}

/* A reference stream in chunks of any size, and flushed mid-way: the reference pcs. */
static void test_reference(void)
{
	static const size_t chunks[] = { 0, 1, 7, 4096 };
	struct spoor_trace_config cfg;
	struct spoor_trace_stats st;
	struct seen s, whole;
	size_t len, nref;
	uint8_t *buf = slurp(SPOOR_VECTORS "/itype3_basic/towers.te_inst_raw", &len);
	uint64_t *ref = ref_pcs(SPOOR_VECTORS "/itype3_basic/towers.decoder.trace.gz", &nref);

	CHECK(len > 0 && nref > 1000);
	CHECK(config(&cfg, "itype3_basic", "towers"));
	memset(&whole, 0, sizeof(whole));
	for (size_t i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
		run(&cfg, buf, len, chunks[i], 0, &s, 0);
		CHECK_EQ(s.npcs, nref);
		CHECK(s.npcs == nref && !memcmp(s.pcs, ref, nref * sizeof(*ref)));
		CHECK_EQ(s.gaps, 0);
		CHECK_EQ(s.bad, 0);
		CHECK_EQ(s.open_blocks, 0);
		if (!i) {
			spoor_trace_stats(s.tr, &st, sizeof(st));
			CHECK_EQ(st.sources, 1);
			CHECK_EQ(st.decoder.instructions, nref);
			CHECK_EQ(st.deframe.bytes, len);
			CHECK(st.packets > 100);
			CHECK_EQ(st.bad_packets, 0);
			whole = s;
			whole.pcs = NULL;
		} else {
			CHECK_EQ(s.blocks, whole.blocks);
			CHECK_EQ(s.events, whole.events);
		}
		spoor_trace_free(s.tr);
		free(s.pcs);
	}
	/* Flushed in the middle: one open block, then decoding goes on as before. */
	run(&cfg, buf, len, 4096, len / 2, &s, 0);
	CHECK_EQ(s.open_blocks, 1);
	CHECK_EQ(s.npcs, nref);
	CHECK(s.npcs == nref && !memcmp(s.pcs, ref, nref * sizeof(*ref)));
	spoor_trace_free(s.tr);
	free(s.pcs);
	spoor_image_free(cfg.image);
	free(buf);
	free(ref);
}

/* E-Trace-Encap with srcID 5 and foreign packets of srcID 6: per-source decoders, filtering. */
static void test_sources(void)
{
	struct spoor_trace_config cfg;
	struct spoor_trace_stats st;
	struct seen s;
	size_t len, nref;
	uint8_t *buf = slurp(SPOOR_VECTORS "/encap/towers.B_s8id5_t2_y1_foreign7_sync50.bin", &len);
	uint64_t *ref = ref_pcs(SPOOR_VECTORS "/itype4_basic/towers.decoder.trace.gz", &nref);

	CHECK(config(&cfg, "itype4_basic", "towers"));
	spoor_encap_config_init(&cfg.deframe.encap, SPOOR_ENCAP_ETRACE);
	cfg.deframe.encap.src_bits = 8;
	cfg.deframe.encap.ts_bytes = 2;
	cfg.deframe.encap.type_bits = 1;
	run(&cfg, buf, len, 333, 0, &s, 5);
	CHECK_EQ(s.npcs, nref);
	CHECK(s.npcs == nref && !memcmp(s.pcs, ref, nref * sizeof(*ref)));
	CHECK(s.sources_seen & (1u << 5));
	spoor_trace_stats(s.tr, &st, sizeof(st));
	CHECK_EQ(st.sources, 2);
	CHECK(spoor_trace_decoder(s.tr, 6) != NULL);
	spoor_trace_free(s.tr);
	free(s.pcs);
	cfg.only_source = 5;
	run(&cfg, buf, len, 0, 0, &s, 5);
	CHECK_EQ(s.npcs, nref);
	spoor_trace_stats(s.tr, &st, sizeof(st));
	CHECK_EQ(st.sources, 1);
	CHECK(st.other_frames > 10);
	CHECK(spoor_trace_decoder(s.tr, 6) == NULL);
	CHECK_EQ(s.sources_seen, 1u << 5);
	spoor_trace_free(s.tr);
	free(s.pcs);
	/* Corrupt bytes in the middle of a stream with sync sequences:
	 * reported, and decoding resumes at the next one. */
	free(buf);
	buf = slurp(SPOOR_VECTORS "/encap/towers.A_s0_t0_y0_sync16.bin", &len);
	spoor_encap_config_init(&cfg.deframe.encap, SPOOR_ENCAP_ETRACE);
	cfg.only_source = -1;
	run(&cfg, buf, len, 100, 0, &s, 0);
	CHECK_EQ(s.npcs, nref);
	spoor_trace_free(s.tr);
	free(s.pcs);
	for (size_t i = len / 3; i < len / 3 + 40; i++)
		buf[i] ^= 0x5a;
	run(&cfg, buf, len, 1000, 0, &s, 0);
	CHECK(s.gaps + s.bad + s.stream > 0);
	CHECK(s.npcs > nref / 2 && s.npcs < nref);
	CHECK(s.npcs >= 100 && !memcmp(s.pcs + s.npcs - 100, ref + nref - 100, 100 * sizeof(*ref)));
	spoor_trace_free(s.tr);
	free(s.pcs);
	spoor_image_free(cfg.image);
	free(buf);
	free(ref);
}

/* A board description gives the pipeline its parameters, encapsulation and options. */
static void test_board(void)
{
	struct spoor_trace_config cfg;
	struct spoor_board b;
	struct spoor_diag d;

	spoor_board_init(&b);
	CHECK_EQ(spoor_board_load(&b, SPOOR_SOURCE_DIR "/boards/virt-rv64.ini", &d), 0);
	spoor_trace_config_init(&cfg);
	CHECK(cfg.deframe.start_synced);
	CHECK_EQ(cfg.only_source, (uint64_t)-1);
	spoor_trace_config_board(&cfg, &b);
	CHECK_EQ(cfg.params.iaddress_width_p, 64);
	CHECK_EQ(cfg.params.cache_size_p, b.params.cache_size_p);
	CHECK_EQ(cfg.deframe.encap.kind, SPOOR_ENCAP_SIEMENS);
	CHECK(!cfg.deframe.start_synced);
	CHECK_EQ(cfg.options, b.features);
	CHECK(cfg.options & SPOOR_OPT_JUMP_TARGET_CACHE);
}

int main(int argc, char **argv)
{
	check_args(argc, argv,
		   "Tests for the trace pipeline (trace.h): bytes in, blocks and events out.");
	test_args();
	test_board();
	test_reference();
	test_sources();
	return check_done();
}
