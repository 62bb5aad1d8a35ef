// SPDX-License-Identifier: MIT
/*
 * The trace pipeline (see trace.h): the deframer's bulk path hands frames
 * over in batches, a batch's te_inst payloads are decoded in one call
 * under the layout of the first packet's source (re-decoded one by one
 * where a packet's own source is under another layout, as after a support
 * packet changed it), and each packet's blocks come out of its source's
 * decoder in batches too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spoor/error.h"
#include "spoor/te_inst.h"
#include "spoor/trace.h"

#define MAX_SOURCES 65536
#define BLOCK_BATCH 64

/* A source's time: its frames' timestamps, widened past their wrap-around. */
struct src_clock {
	uint64_t time;
	bool has;
};

struct spoor_trace {
	struct spoor_trace_config cfg;
	struct spoor_trace_ops ops;
	void *ctx;
	struct spoor_deframe *df;
	struct spoor_decoder **dec;	/* by source (dec_cap of them), created on first use */
	uint32_t dec_cap;
	uint32_t *order;		/* the sources in the order they came */
	struct src_clock *clock;	/* by source: its time from frame timestamps */
	uint32_t nsources;
	bool finished;
	int err;			/* a failure inside the deframer's callbacks */
	uint64_t packets, bad_packets, payload_bits, other_frames;
	struct spoor_block blocks[BLOCK_BATCH];
};

void spoor_trace_config_init(struct spoor_trace_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	spoor_params_init(&cfg->params);
	spoor_encap_config_init(&cfg->deframe.encap, SPOOR_ENCAP_RAW);
	cfg->deframe.start_synced = true;
	cfg->compat = SPOOR_COMPAT_REFERENCE;
	cfg->only_source = -1;
}

void spoor_trace_config_board(struct spoor_trace_config *cfg, const struct spoor_board *b)
{
	cfg->params = b->params;
	cfg->deframe.encap = b->encap;
	cfg->deframe.start_synced = false;
	cfg->options = b->features;
	memcpy(cfg->isa, b->isa, sizeof(cfg->isa));
}

int spoor_trace_config_check(const struct spoor_trace_config *cfg, struct spoor_diag *diag)
{
	const char *why, *elf;
	unsigned xlen;
	char *msg = diag->msg;
	size_t size = sizeof(diag->msg);

	msg[0] = '\0';
	if (spoor_params_check(&cfg->params, &why)) {
		snprintf(msg, size, "encoder parameters: %s", why);
		return SPOOR_E_BAD_CONFIG;
	}
	if (spoor_encap_config_check(&cfg->deframe.encap)) {
		snprintf(msg, size, "the encapsulation options do not fit %s",
			 spoor_encap_kind_name(cfg->deframe.encap.kind));
		return SPOOR_E_BAD_CONFIG;
	}
	xlen = spoor_image_xlen(cfg->image);
	elf = spoor_image_elf_name(cfg->image);
	if (!xlen || !elf)
		return 0;
	if (cfg->isa[0] && xlen != (cfg->isa[3] == '2' ? 32u : 64u)) {
		snprintf(msg, size, "'%s' is an RV%u program (ELFCLASS%u), but the board's ISA is %s",
			 elf, xlen, xlen, cfg->isa);
		return SPOOR_E_MISMATCH;
	}
	/* The single-letter extensions are those before the first '_'. */
	if (cfg->isa[0] && spoor_image_rvc(cfg->image) &&
	    !memchr(cfg->isa + 4, 'c', strcspn(cfg->isa + 4, "_"))) {
		snprintf(msg, size, "'%s' uses compressed instructions (ELF flag RVC), but the "
			 "board's ISA %s has no C extension", elf, cfg->isa);
		return SPOOR_E_MISMATCH;
	}
	if (cfg->params.iaddress_width_p > xlen) {
		snprintf(msg, size, "'%s' is an RV%u program (ELFCLASS%u), but the encoder parameters "
			 "say iaddress_width_p = %u", elf, xlen, xlen, cfg->params.iaddress_width_p);
		return SPOOR_E_MISMATCH;
	}
	return 0;
}

struct spoor_trace *spoor_trace_new(const struct spoor_trace_config *cfg,
				    const struct spoor_trace_ops *ops, void *ctx)
{
	struct spoor_trace *tr;
	struct spoor_diag diag;

	if (!cfg || spoor_trace_config_check(cfg, &diag))
		return NULL;
	tr = calloc(1, sizeof(*tr));
	if (!tr)
		return NULL;
	tr->cfg = *cfg;
	if (ops)
		tr->ops = *ops;
	tr->ctx = ctx;
	tr->df = spoor_deframe_new(&tr->cfg.deframe);
	if (!tr->df) {
		spoor_trace_free(tr);
		return NULL;
	}
	return tr;
}

void spoor_trace_free(struct spoor_trace *tr)
{
	if (!tr)
		return;
	for (uint32_t i = 0; i < tr->nsources; i++)
		spoor_decoder_free(tr->dec[tr->order[i]]);
	free(tr->dec);
	free(tr->order);
	free(tr->clock);
	spoor_deframe_free(tr->df);
	free(tr);
}

/* Makes room for source @source in the tables; returns false when out of memory. */
static bool room_for(struct spoor_trace *tr, uint32_t source)
{
	uint32_t cap = tr->dec_cap ? tr->dec_cap : 16;
	struct spoor_decoder **dec;
	struct src_clock *clock;
	uint32_t *order;

	while (cap <= source)
		cap *= 2;
	dec = realloc(tr->dec, cap * sizeof(*dec));
	if (!dec)
		return false;
	tr->dec = dec;
	memset(dec + tr->dec_cap, 0, (cap - tr->dec_cap) * sizeof(*dec));
	order = realloc(tr->order, cap * sizeof(*order));
	if (!order)
		return false;
	tr->order = order;
	clock = realloc(tr->clock, cap * sizeof(*clock));
	if (!clock)
		return false;
	tr->clock = clock;
	memset(clock + tr->dec_cap, 0, (cap - tr->dec_cap) * sizeof(*clock));
	tr->dec_cap = cap;
	return true;
}

/* The decoder of @source, created on first use; NULL when out of memory. */
static struct spoor_decoder *decoder_of(struct spoor_trace *tr, uint32_t source)
{
	struct spoor_decoder_config dc = {
		.params = &tr->cfg.params,
		.image = tr->cfg.image,
		.options = tr->cfg.options,
		.compat = tr->cfg.compat,
		.source = source,
		.mtvec = tr->cfg.mtvec,
		.stvec = tr->cfg.stvec,
	};

	if (source >= tr->dec_cap && !room_for(tr, source)) {
		tr->err = SPOOR_E_NOMEM;
		return NULL;
	}
	if (!tr->dec[source]) {
		tr->dec[source] = spoor_decoder_new(&dc);
		if (!tr->dec[source]) {
			tr->err = SPOOR_E_NOMEM;
			return NULL;
		}
		tr->order[tr->nsources++] = source;
	}
	return tr->dec[source];
}

/* Hands out what the decoder of @source made of its last packet (from @offset). */
static void drain(struct spoor_trace *tr, struct spoor_decoder *dec, uint32_t source,
		  uint64_t offset)
{
	struct spoor_dec_item it;
	int n, k;

	for (;;) {
		n = spoor_decoder_next_blocks(dec, tr->blocks, BLOCK_BATCH);
		if (n > 0 && tr->ops.blocks)
			tr->ops.blocks(tr->ctx, source, offset, tr->blocks, (size_t)n);
		if (n == BLOCK_BATCH)
			continue;
		k = spoor_decoder_next(dec, &it, sizeof(it));
		if (k <= 0)
			return;
		if (k == SPOOR_DEC_BLOCK) {
			if (tr->ops.blocks)
				tr->ops.blocks(tr->ctx, source, it.offset, &it.block, 1);
		} else if (tr->ops.event) {
			tr->ops.event(tr->ctx, &it);
		}
	}
}

/*
 * The timestamp of @frm, after what its packet retired: a TIME event with
 * the source's time, the frame's ts_bytes-wide counter widened to 64 bits
 * (each step forward taken modulo its width: a counter that wrapped
 * between two stamped frames moves on, never back).
 */
static void frame_time(struct spoor_trace *tr, const struct spoor_frame *frm)
{
	struct src_clock *c = &tr->clock[frm->source];
	struct spoor_dec_item it = {
		.kind = SPOOR_DEC_EVENT, .source = frm->source, .offset = frm->offset,
	};

	if (!tr->cfg.deframe.encap.ts_bytes)
		return;
	c->time = spoor_encap_time_widen(&tr->cfg.deframe.encap, c->time, c->has, frm->timestamp);
	c->has = true;
	it.event.kind = SPOOR_EV_TIME;
	it.event.time = c->time;
	if (tr->ops.event)
		tr->ops.event(tr->ctx, &it);
}

/* One te_inst packet of @frm into its decoder. */
static void run_packet(struct spoor_trace *tr, struct spoor_decoder *dec,
		       const struct spoor_frame *frm, const struct spoor_te_inst *pkt)
{
	tr->packets++;
	tr->payload_bits += 8u * frm->payload_len;
	spoor_decoder_put(dec, pkt, frm->offset);
	drain(tr, dec, frm->source, frm->offset);
	if (frm->has_timestamp)
		frame_time(tr, frm);
}

/* A batch of frames from the deframer. */
static void on_frames(void *arg, const struct spoor_frame *frames, size_t n)
{
	struct spoor_trace *tr = arg;
	struct spoor_te_inst pkts[SPOOR_DEFRAME_BATCH], one;
	int used[SPOOR_DEFRAME_BATCH];
	struct spoor_decoder *dec;
	uint32_t layout = 0;
	bool batch = false;

	for (size_t i = 0; i < n; i++) {
		const struct spoor_frame *f = &frames[i];
		const struct spoor_te_inst *pkt;
		uint32_t lay;
		int ret;

		if (f->msg != SPOOR_MSG_TE_INST ||
		    (tr->cfg.only_source >= 0 && f->source != (uint64_t)tr->cfg.only_source) ||
		    f->source >= MAX_SOURCES) {
			tr->other_frames++;
			continue;
		}
		dec = decoder_of(tr, f->source);
		if (!dec)
			return;
		lay = spoor_decoder_layout(dec);
		if (!batch) {
			/* The rest of the batch at once, under this packet's layout. */
			layout = lay;
			spoor_te_inst_decode_frames(&tr->cfg.params, layout, f, n - i, pkts + i,
						    used + i);
			batch = true;
		}
		if (lay == layout) {
			ret = used[i];
			pkt = &pkts[i];
		} else {
			ret = spoor_te_inst_decode_room(&tr->cfg.params, lay, f->payload,
							f->payload_len, f->payload_room, &one);
			pkt = &one;
		}
		if (ret < 0) {
			tr->bad_packets++;
			if (tr->ops.bad_packet)
				tr->ops.bad_packet(tr->ctx, f->source, f->offset, ret);
			continue;
		}
		run_packet(tr, dec, f, pkt);
	}
}

/* A deframer item other than a frame. */
static void on_item(void *arg, const struct spoor_deframe_item *it)
{
	struct spoor_trace *tr = arg;

	if (tr->ops.stream)
		tr->ops.stream(tr->ctx, it);
}

int spoor_trace_feed(struct spoor_trace *tr, const uint8_t *buf, size_t len)
{
	int ret;

	if (!tr || tr->finished || (!buf && len))
		return SPOOR_E_INVAL;
	if (!len)
		return 0;
	ret = spoor_deframe_feed(tr->df, buf, len, tr->cfg.atid);
	if (!ret)
		ret = spoor_deframe_drain(tr->df, on_frames, on_item, tr);
	if (!ret && tr->err) {
		ret = tr->err;
		tr->err = 0;
	}
	return ret;
}

int spoor_trace_gap(struct spoor_trace *tr, uint64_t lost)
{
	struct spoor_deframe_item it;
	int ret;

	if (!tr || tr->finished)
		return SPOOR_E_INVAL;
	ret = spoor_deframe_gap(tr->df, tr->cfg.atid, lost, &it);
	if (ret < 0)
		return ret;
	on_item(tr, &it);
	/* Every source: which of them the lost bytes belonged to, no one knows. */
	for (uint32_t i = 0; i < tr->nsources; i++) {
		uint32_t s = tr->order[i];

		spoor_decoder_gap(tr->dec[s], SPOOR_E_LOST);
		drain(tr, tr->dec[s], s, it.offset);
	}
	return 0;
}

/* Flushes every source's decoder (@final: the end) and hands out what it gives. */
static void flush_all(struct spoor_trace *tr, bool final)
{
	for (uint32_t i = 0; i < tr->nsources; i++) {
		uint32_t s = tr->order[i];

		spoor_decoder_flush(tr->dec[s], final);
		drain(tr, tr->dec[s], s, spoor_deframe_offset(tr->df));
	}
}

int spoor_trace_finish(struct spoor_trace *tr)
{
	int ret;

	if (!tr || tr->finished)
		return SPOOR_E_INVAL;
	tr->finished = true;
	ret = spoor_deframe_finish(tr->df);
	if (!ret)
		ret = spoor_deframe_drain(tr->df, on_frames, on_item, tr);
	flush_all(tr, true);
	return ret ? ret : tr->err;
}

int spoor_trace_flush(struct spoor_trace *tr)
{
	if (!tr || tr->finished)
		return SPOOR_E_INVAL;
	flush_all(tr, false);
	return 0;
}

struct spoor_decoder *spoor_trace_decoder(struct spoor_trace *tr, uint32_t source)
{
	return tr && source < tr->dec_cap ? tr->dec[source] : NULL;
}

int spoor_trace_stats(const struct spoor_trace *tr, struct spoor_trace_stats *st, size_t size)
{
	struct spoor_trace_stats v;
	struct spoor_decoder_stats ds;

	if (!tr || !st)
		return SPOOR_E_INVAL;
	memset(&v, 0, sizeof(v));
	spoor_deframe_stats(tr->df, &v.deframe, sizeof(v.deframe));
	for (uint32_t i = 0; i < tr->nsources; i++) {
		if (spoor_decoder_stats(tr->dec[tr->order[i]], &ds, sizeof(ds)))
			continue;
		v.decoder.packets += ds.packets;
		v.decoder.instructions += ds.instructions;
		v.decoder.blocks += ds.blocks;
		v.decoder.branches += ds.branches;
		v.decoder.gaps += ds.gaps;
		v.decoder.traps += ds.traps;
	}
	v.packets = tr->packets;
	v.bad_packets = tr->bad_packets;
	v.payload_bits = tr->payload_bits;
	v.other_frames = tr->other_frames;
	v.sources = tr->nsources;
	memcpy(st, &v, size < sizeof(v) ? size : sizeof(v));
	return 0;
}
