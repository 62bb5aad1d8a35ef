// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: deframer + te_inst decoder on arbitrary bytes.
 * The first OPT_BYTES input bytes choose the configuration (see configure():
 * every encapsulation with its S/T/Y, sync run, block alignment, start
 * state, chunk sizes, ATB sources, encoder parameters and packet layout);
 * the rest is the stream.  Checks, beyond the sanitizers: the byte
 * accounting of the deframer is exact, every frame fits its bounds, every
 * packet that decodes re-encodes and decodes to the same fields, and a
 * batch of frames decodes as its frames do one by one.
 */
#include <stdlib.h>
#include <string.h>

#include "spoor/deframe.h"
#include "spoor/error.h"
#include "spoor/te_inst.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond) do { if (!(cond)) __builtin_trap(); } while (0)

#define OPT_BYTES 6

/* What the option bytes chose, besides the deframer's configuration. */
struct choice {
	struct spoor_params p;
	uint32_t layout;	/* enum spoor_te_layout */
	unsigned chunk_seed;	/* chunk sizes */
	unsigned sources;	/* ATB: ATIDs the chunks rotate through */
	uint64_t fed;		/* stream bytes fed so far */
};

/* Encoder parameters from @sel and @more. */
static void choose_params(struct spoor_params *p, uint8_t sel, uint8_t more)
{
	static const uint8_t widths[4] = { 0, 39, 48, 16 };

	spoor_params_init(p);
	p->iaddress_width_p = widths[(more >> 4) & 3] ? widths[(more >> 4) & 3] : (sel & 1) ? 64 : 32;
	p->iaddress_lsb_p = (sel >> 1) % 3;
	p->nocontext_p = (sel >> 3) & 1;
	p->context_width_p = 32;
	p->notime_p = (sel >> 4) & 1;
	p->time_width_p = 40;
	p->ecause_width_p = 5 + (more & 3);
	p->privilege_width_p = 2 ^ ((more >> 2) & 3);
	p->return_stack_size_p = (sel >> 5) & 1 ? 3 : 0;
	p->call_counter_size_p = (sel >> 6) & 1 ? 9 : 0;
	p->bpred_size_p = (sel >> 7) & 1 ? 4 : 0;
	p->cache_size_p = (sel >> 2) & 1 ? 4 : 0;
	p->f0s_width_p = p->bpred_size_p && p->cache_size_p ? 1 : 0;
	p->ioptions_width_p = 5 + ((more >> 6) & 1);
}

/*
 * Reads the option bytes @o into @cfg and @c:
 *   o[0] bits 0-1 encapsulation, 2-3 Y, 4 block alignment, 5-6 its size,
 *        7 start synchronised
 *   o[1] bits 0-4 S (mod 17), 5-7 T
 *   o[2] encoder parameters (widths, options)
 *   o[3] bit 0: T + 1, bit 1: the encapsulation's own S/T/Y, bit 2: ATB
 *        sources, bits 3-7 chunk sizes
 *   o[4] bits 0-1 ecause width, 2-3 privilege width, 4-5 address width,
 *        6 ioptions width, 7 implicit-exception layout
 *   o[5] sync run (0: the encapsulation's default)
 */
static void configure(const uint8_t *o, struct spoor_deframe_config *cfg, struct choice *c)
{
	struct spoor_encap_config *ec = &cfg->encap;

	memset(cfg, 0, sizeof(*cfg));
	spoor_encap_config_init(ec, (enum spoor_encap_kind)(o[0] & 3));
	if (ec->kind != SPOOR_ENCAP_RAW && !(o[3] & 2)) {
		ec->src_bits = ec->kind == SPOOR_ENCAP_ATB ? 0 : (o[1] & 0x1f) % 17;
		ec->ts_bytes = (o[1] >> 5) + (o[3] & 1);
		ec->type_bits = (o[0] >> 2) & 3;
		if (spoor_encap_config_check(ec)) {	/* Siemens' type values need Y >= 2 */
			ec->type_te_inst = 0;
			ec->type_te_data = 1;
		}
	}
	cfg->block_size = (o[0] & 0x10) ? 16u << ((o[0] >> 5) & 3) : 0;
	cfg->start_synced = o[0] & 0x80;
	cfg->sync_run = o[5];
	choose_params(&c->p, o[2], o[4]);
	c->layout = (o[4] & 0x80) ? SPOOR_TE_IMPLICIT_EXCEPTION : 0;
	c->chunk_seed = o[3] >> 3;
	c->sources = ec->kind == SPOOR_ENCAP_ATB && (o[3] & 4) ? 3 : 1;
	c->fed = 0;
}

/* Decodes a payload; if it decodes, re-encoding must round-trip. */
static void check_packet(const struct choice *c, const struct spoor_frame *frm)
{
	const struct spoor_params *p = &c->p;
	struct spoor_te_inst pkt, back;
	uint8_t buf[SPOOR_TE_MAX_PAYLOAD];
	int used, n;

	REQUIRE(frm->payload_len <= SPOOR_FRAME_PAYLOAD_MAX + 1);
	REQUIRE(frm->payload_room >= frm->payload_len);
	/* Reads up to payload_room bytes: ASan checks the deframer's figure. */
	used = spoor_te_inst_decode_room(p, c->layout, frm->payload, frm->payload_len,
					 frm->payload_room, &pkt);
	/* Loaded in one word or byte by byte, the packet is the same. */
	REQUIRE(spoor_te_inst_decode_layout(p, c->layout, frm->payload, frm->payload_len, &back) ==
		used);
	if (used < 0)
		return;
	REQUIRE(back.present == pkt.present && back.status == pkt.status);
	for (int f = 0; f < SPOOR_TE_NFIELDS; f++)
		if (spoor_te_has(&pkt, f))
			REQUIRE(back.v[f] == pkt.v[f]);
	n = spoor_te_inst_encode_layout(p, c->layout, &pkt, buf, sizeof(buf));
	REQUIRE(n > 0 && (uint32_t)n <= frm->payload_len);
	REQUIRE(spoor_te_inst_decode_layout(p, c->layout, buf, (size_t)n, &back) == used);
	REQUIRE(back.present == pkt.present && back.status == pkt.status);
	for (int f = 0; f < SPOOR_TE_NFIELDS; f++)
		if (spoor_te_has(&pkt, f))
			REQUIRE(back.v[f] == pkt.v[f]);
}

/* Checks one frame the deframer gave, and its packet. */
static void check_frame(const struct choice *c, const struct spoor_frame *frm)
{
	REQUIRE(frm->size >= 2 && frm->size <= SPOOR_FRAME_MAX);
	if (frm->msg == SPOOR_MSG_TE_INST)
		check_packet(c, frm);
}

/* Decodes a batch of frames at once: the same as packet by packet. */
static void check_batch(void *arg, const struct spoor_frame *frames, size_t k)
{
	static struct spoor_te_inst pkts[SPOOR_DEFRAME_BATCH];
	const struct choice *c = arg;
	struct spoor_te_inst one;
	int used[SPOOR_DEFRAME_BATCH];

	REQUIRE(k >= 1 && k <= SPOOR_DEFRAME_BATCH);
	REQUIRE(spoor_te_inst_decode_frames(&c->p, c->layout, frames, k, pkts, used) == 0);
	for (size_t i = 0; i < k; i++) {
		check_frame(c, &frames[i]);
		if (frames[i].msg != SPOOR_MSG_TE_INST) {
			REQUIRE(used[i] == 0);
			continue;
		}
		REQUIRE(spoor_te_inst_decode_layout(&c->p, c->layout, frames[i].payload,
						    frames[i].payload_len, &one) == used[i]);
		if (used[i] < 0)
			continue;
		REQUIRE(one.present == pkts[i].present && one.status == pkts[i].status);
		for (int f = 0; f < SPOOR_TE_NFIELDS; f++)
			if (spoor_te_has(&one, f))
				REQUIRE(one.v[f] == pkts[i].v[f]);
	}
}

/* Checks an item other than a frame: it lies in the stream fed and says why. */
static void check_item(void *arg, const struct spoor_deframe_item *item)
{
	const struct choice *c = arg;

	REQUIRE(item->offset < c->fed && item->source < 128);
	if (item->kind == SPOOR_DF_SYNC_LOST)
		REQUIRE(item->reason < 0 && item->reason >= SPOOR_E_LAST);
	else if (item->kind == SPOOR_DF_TRUNCATED)
		REQUIRE(item->bytes >= 1 && item->bytes < SPOOR_FRAME_MAX);
	else
		REQUIRE(item->kind == SPOOR_DF_SYNC && item->bytes <= c->fed);
}

/* Takes every item of the chunk, frames in batches as a bulk consumer would. */
static void drain(struct spoor_deframe *df, const struct choice *c)
{
	REQUIRE(spoor_deframe_drain(df, check_batch, check_item, (void *)c) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct spoor_deframe_config cfg;
	struct spoor_deframe_stats st;
	struct spoor_deframe *df;
	struct choice c;
	size_t pos;

	if (size < OPT_BYTES)
		return 0;
	configure(data, &cfg, &c);
	data += OPT_BYTES;
	size -= OPT_BYTES;

	df = spoor_deframe_new(&cfg);
	REQUIRE(df);
	for (pos = 0; pos < size;) {
		size_t n = 1 + (c.chunk_seed * 7 + pos) % 37;

		if (n > size - pos)
			n = size - pos;
		REQUIRE(spoor_deframe_feed(df, data + pos, n, (unsigned)(pos / 64) % c.sources) == 0);
		c.fed += n;
		drain(df, &c);
		pos += n;
	}
	REQUIRE(spoor_deframe_finish(df) == 0);
	drain(df, &c);
	REQUIRE(spoor_deframe_stats(df, &st, sizeof(st)) == 0);
	REQUIRE(st.bytes == size);
	REQUIRE(st.frame_bytes + st.null_bytes + st.skipped_bytes + st.truncated_bytes == st.bytes);
	spoor_deframe_free(df);
	return 0;
}
