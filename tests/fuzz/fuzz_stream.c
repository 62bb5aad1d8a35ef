// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: deframer + te_inst decoder on arbitrary bytes.
 * The first four input bytes choose the encapsulation, its S/T/Y, block
 * alignment, start state, chunk sizes and encoder parameters; the rest is
 * the stream.  Checks, beyond the sanitizers: the byte accounting of the
 * deframer is exact, every frame fits its bounds, every packet that
 * decodes re-encodes and decodes to the same fields, and a batch of frames
 * decodes as its frames do one by one.
 */
#include <stdlib.h>
#include <string.h>

#include "spoor/deframe.h"
#include "spoor/error.h"
#include "spoor/te_inst.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond) do { if (!(cond)) __builtin_trap(); } while (0)

static void choose_params(struct spoor_params *p, uint8_t sel)
{
	spoor_params_init(p);
	p->iaddress_width_p = (sel & 1) ? 64 : 32;
	p->iaddress_lsb_p = (sel >> 1) % 3;
	p->nocontext_p = (sel >> 3) & 1;
	p->context_width_p = 32;
	p->notime_p = (sel >> 4) & 1;
	p->time_width_p = 40;
	p->ecause_width_p = 5;
	p->return_stack_size_p = (sel >> 5) & 1 ? 3 : 0;
	p->call_counter_size_p = (sel >> 6) & 1 ? 9 : 0;
	p->bpred_size_p = (sel >> 7) & 1 ? 4 : 0;
	p->cache_size_p = (sel >> 2) & 1 ? 4 : 0;
	p->f0s_width_p = p->bpred_size_p && p->cache_size_p ? 1 : 0;
}

/* Decodes a payload; if it decodes, re-encoding must round-trip. */
static void check_packet(const struct spoor_params *p, const struct spoor_frame *frm)
{
	struct spoor_te_inst pkt, back;
	uint8_t buf[SPOOR_TE_MAX_PAYLOAD];
	int used, n;

	REQUIRE(frm->payload_len <= SPOOR_FRAME_PAYLOAD_MAX + 1);
	REQUIRE(frm->payload_room >= frm->payload_len);
	/* Reads up to payload_room bytes: ASan checks the deframer's figure. */
	used = spoor_te_inst_decode_room(p, 0, frm->payload, frm->payload_len, frm->payload_room,
					 &pkt);
	/* Loaded in one word or byte by byte, the packet is the same. */
	REQUIRE(spoor_te_inst_decode(p, frm->payload, frm->payload_len, &back) == used);
	if (used < 0)
		return;
	REQUIRE(back.present == pkt.present && back.status == pkt.status);
	for (int f = 0; f < SPOOR_TE_NFIELDS; f++)
		if (spoor_te_has(&pkt, f))
			REQUIRE(back.v[f] == pkt.v[f]);
	n = spoor_te_inst_encode(p, &pkt, buf, sizeof(buf));
	REQUIRE(n > 0 && (uint32_t)n <= frm->payload_len);
	REQUIRE(spoor_te_inst_decode(p, buf, (size_t)n, &back) == used);
	REQUIRE(back.present == pkt.present && back.status == pkt.status);
	for (int f = 0; f < SPOOR_TE_NFIELDS; f++)
		if (spoor_te_has(&pkt, f))
			REQUIRE(back.v[f] == pkt.v[f]);
}

/* Checks one frame the deframer gave, and its packet. */
static void check_frame(const struct spoor_params *p, const struct spoor_frame *frm)
{
	REQUIRE(frm->size >= 2 && frm->size <= SPOOR_FRAME_MAX);
	if (frm->msg == SPOOR_MSG_TE_INST)
		check_packet(p, frm);
}

/* Decodes a batch of frames at once: the same as packet by packet. */
static void check_batch(void *arg, const struct spoor_frame *frames, size_t k)
{
	static struct spoor_te_inst pkts[SPOOR_DEFRAME_BATCH];
	const struct spoor_params *p = arg;
	struct spoor_te_inst one;
	int used[SPOOR_DEFRAME_BATCH];

	REQUIRE(k >= 1 && k <= SPOOR_DEFRAME_BATCH);
	REQUIRE(spoor_te_inst_decode_frames(p, 0, frames, k, pkts, used) == 0);
	for (size_t i = 0; i < k; i++) {
		check_frame(p, &frames[i]);
		if (frames[i].msg != SPOOR_MSG_TE_INST) {
			REQUIRE(used[i] == 0);
			continue;
		}
		REQUIRE(spoor_te_inst_decode(p, frames[i].payload, frames[i].payload_len, &one) ==
			used[i]);
		if (used[i] < 0)
			continue;
		REQUIRE(one.present == pkts[i].present && one.status == pkts[i].status);
		for (int f = 0; f < SPOOR_TE_NFIELDS; f++)
			if (spoor_te_has(&one, f))
				REQUIRE(one.v[f] == pkts[i].v[f]);
	}
}

/* Takes every item of the chunk, frames in batches as a bulk consumer would. */
static void drain(struct spoor_deframe *df, const struct spoor_params *p)
{
	REQUIRE(spoor_deframe_drain(df, check_batch, NULL, (void *)p) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct spoor_deframe_config cfg = { 0 };
	struct spoor_deframe_stats st;
	struct spoor_params p;
	struct spoor_deframe *df;
	unsigned chunk_seed;
	size_t pos;

	if (size < 4)
		return 0;
	spoor_encap_config_init(&cfg.encap, (enum spoor_encap_kind)(data[0] & 3));
	if (cfg.encap.kind == SPOOR_ENCAP_ETRACE) {
		cfg.encap.src_bits = data[1] % 17;
		cfg.encap.ts_bytes = (data[1] >> 5) & 3;
		cfg.encap.type_bits = (data[0] >> 2) & 3;
	}
	cfg.block_size = (data[0] & 0x10) ? 16u << ((data[0] >> 5) & 3) : 0;
	cfg.start_synced = data[0] & 0x80;
	chunk_seed = data[3];
	choose_params(&p, data[2]);
	data += 4;
	size -= 4;

	df = spoor_deframe_new(&cfg);
	REQUIRE(df);
	for (pos = 0; pos < size;) {
		size_t n = 1 + (chunk_seed * 7 + pos) % 37;

		if (n > size - pos)
			n = size - pos;
		REQUIRE(spoor_deframe_feed(df, data + pos, n, (unsigned)(pos / 64) % 3) == 0);
		drain(df, &p);
		pos += n;
	}
	REQUIRE(spoor_deframe_finish(df) == 0);
	drain(df, &p);
	REQUIRE(spoor_deframe_stats(df, &st, sizeof(st)) == 0);
	REQUIRE(st.bytes == size);
	REQUIRE(st.frame_bytes + st.null_bytes + st.skipped_bytes + st.truncated_bytes == st.bytes);
	spoor_deframe_free(df);
	return 0;
}
