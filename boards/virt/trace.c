// SPDX-License-Identifier: MIT
/*
 * The virtual board's trace subsystem: Trace Control Interface registers,
 * the E-Trace encoder model fed from the hart's events, encapsulation, and
 * the RAM (SMEM) and PIB sinks.
 */
#include <stdlib.h>
#include <string.h>

#include "spoor/error.h"
#include "spoor/ingress.h"
#include "spoor/insn.h"
#include "spoor/te_inst.h"
#include "trace.h"

/* trTeImpl: version 1.0, component type 1 (encoder), E-Trace protocol 2.0. */
#define TE_IMPL		(0x1u | 0x1u << 8 | 0x2u << 16)
/* trRamImpl: version 1.0, type 9 (RAM sink), trRamHasSMEM. */
#define RAM_IMPL	(0x1u | 0x9u << 8 | 1u << 13)
/* trPibImpl: version 1.0, type 0xA (PIB sink). */
#define PIB_IMPL	(0x1u | 0xau << 8)

/* trTeControl bits software can write (the rest read as fixed values). */
#define TE_CONTROL_RW	(TR_TE_ACTIVE | TR_TE_ENABLE | TR_TE_INST_TRACING | TR_TE_INHIBIT_SRC | \
			 0xfu << TR_TE_SYNC_MAX_SHIFT)
#define RAM_CONTROL_RW	(TR_SINK_ACTIVE | TR_SINK_ENABLE | TR_RAM_STOP_ON_WRAP)
#define PIB_CONTROL_RW	(TR_SINK_ACTIVE | TR_SINK_ENABLE)
#define TS_CONTROL_RW	(TR_TS_ACTIVE | TR_TS_COUNT | TR_TS_RUN_IN_DEBUG | \
			 3u << TR_TS_PRESCALE_SHIFT | TR_TS_ENABLE)

/* Packets between two alignment sync sequences in the sinks' byte stream. */
#define SYNC_EVERY	256

struct spoor_vtrace {
	struct spoor_vtrace_config cfg;
	struct spoor_iss *iss;
	uint32_t te_control, te_features, ram_control, pib_control;
	uint32_t ts_control;
	uint64_t ts_ticks;			/* the timestamp unit's clock, before prescaling */
	uint64_t ram_start, ram_limit, ram_wp;	/* wp: word address | wrap flag (bit 0) */
	struct spoor_encoder *enc;		/* while tracing */
	bool halted;
	bool have_prev;				/* there is a last retired instruction */
	bool prev_decoded;			/* prev holds it (else only prev_raw) */
	struct spoor_insn prev;
	uint32_t prev_raw;
	uint8_t word[4];			/* RAM sink bytes not yet written */
	unsigned nword;
	struct spoor_vtrace_stats st;
};

struct spoor_vtrace *spoor_vtrace_new(const struct spoor_vtrace_config *cfg, struct spoor_iss *iss)
{
	struct spoor_vtrace *tr;

	if (!cfg || !cfg->params || !iss || spoor_encap_config_check(&cfg->encap))
		return NULL;
	tr = calloc(1, sizeof(*tr));
	if (!tr)
		return NULL;
	tr->cfg = *cfg;
	tr->iss = iss;
	return tr;
}

void spoor_vtrace_free(struct spoor_vtrace *tr)
{
	if (!tr)
		return;
	spoor_encoder_free(tr->enc);
	free(tr);
}

/* ---- sinks --------------------------------------------------------------- */

/* Writes one 32-bit word at the RAM sink's write pointer and advances it. */
static void ram_word(struct spoor_vtrace *tr)
{
	uint64_t wp = tr->ram_wp & ~UINT64_C(3);
	uint32_t w = (uint32_t)tr->word[0] | (uint32_t)tr->word[1] << 8 |
		     (uint32_t)tr->word[2] << 16 | (uint32_t)tr->word[3] << 24;

	tr->nword = 0;
	if (spoor_iss_bus_write(tr->iss, wp, 4, w))
		return;		/* a buffer outside memory: the words are lost */
	tr->st.ram_bytes += 4;
	if (wp >= (tr->ram_limit & ~UINT64_C(3))) {
		/* Wrap: back to the start, trRamWrap set. */
		tr->ram_wp = (tr->ram_start & ~UINT64_C(3)) | 1;
		tr->st.ram_wraps++;
		if (tr->ram_control & TR_RAM_STOP_ON_WRAP)
			tr->ram_control &= ~TR_SINK_ENABLE;
	} else {
		tr->ram_wp = (wp + 4) | (tr->ram_wp & 1);
	}
}

static bool ram_on(const struct spoor_vtrace *tr)
{
	return (tr->ram_control & (TR_SINK_ACTIVE | TR_SINK_ENABLE)) ==
	       (TR_SINK_ACTIVE | TR_SINK_ENABLE);
}

static bool pib_on(const struct spoor_vtrace *tr)
{
	return (tr->pib_control & (TR_SINK_ACTIVE | TR_SINK_ENABLE)) ==
	       (TR_SINK_ACTIVE | TR_SINK_ENABLE) && tr->cfg.pib_out;
}

/* Sends encapsulated bytes to the enabled sinks. */
static void sink_bytes(struct spoor_vtrace *tr, const uint8_t *b, size_t n)
{
	tr->st.bytes += n;
	if (pib_on(tr))
		tr->cfg.pib_out(tr->cfg.pib_ctx, b, n);
	for (size_t i = 0; i < n && ram_on(tr); i++) {
		tr->word[tr->nword++] = b[i];
		if (tr->nword == 4)
			ram_word(tr);
	}
}

/* Pads the RAM sink's last word with idle (zero) bytes. */
static void sink_flush(struct spoor_vtrace *tr)
{
	if (!tr->nword || !ram_on(tr))
		return;
	while (tr->nword < 4)
		tr->word[tr->nword++] = 0;
	ram_word(tr);
}

/* A synchronisation sequence, so a reader joining here finds packets. */
static void sink_sync(struct spoor_vtrace *tr)
{
	uint8_t seq[64];
	int n = spoor_encap_sync_sequence(&tr->cfg.encap, 0, seq, sizeof(seq));

	if (n > 0)
		sink_bytes(tr, seq, (size_t)n);
}

/* ---- encoder ------------------------------------------------------------- */

/* trTeInstFeatures bits and the encoder options they select. */
static const struct { uint32_t feature, option; } feature_option[] = {
	{ TR_TE_NO_ADDR_DIFF, SPOOR_OPT_FULL_ADDRESS },
	{ TR_TE_NO_TRAP_ADDR, SPOOR_OPT_IMPLICIT_EXCEPTION },
	{ TR_TE_EN_SIJUMP, SPOOR_OPT_SIJUMP },
	{ TR_TE_EN_IMPLICIT_RET, SPOOR_OPT_IMPLICIT_RETURN },
	{ TR_TE_EN_BRANCH_PRED, SPOOR_OPT_BRANCH_PREDICTION },
	{ TR_TE_EN_JTC, SPOOR_OPT_JUMP_TARGET_CACHE },
};

uint32_t spoor_vtrace_feature_options(uint32_t features)
{
	uint32_t options = 0;

	for (size_t i = 0; i < sizeof(feature_option) / sizeof(feature_option[0]); i++)
		if (features & feature_option[i].feature)
			options |= feature_option[i].option;
	return options;
}

uint32_t spoor_vtrace_option_features(uint32_t options)
{
	uint32_t features = 0;

	for (size_t i = 0; i < sizeof(feature_option) / sizeof(feature_option[0]); i++)
		if (options & feature_option[i].option)
			features |= feature_option[i].feature;
	return features;
}

/* The timestamp counter's value: its clock divided by 4^trTsPrescale. */
static uint64_t ts_value(const struct spoor_vtrace *tr)
{
	return tr->ts_ticks >> (2 * ((tr->ts_control >> TR_TS_PRESCALE_SHIFT) & 3));
}

/* The timestamp unit's clock: one tick per retired instruction while it counts. */
static void ts_tick(struct spoor_vtrace *tr)
{
	uint32_t on = TR_TS_ACTIVE | TR_TS_COUNT;

	if ((tr->ts_control & on) == on && (!tr->halted || (tr->ts_control & TR_TS_RUN_IN_DEBUG)))
		tr->ts_ticks++;
}

/* Encapsulates and sends every packet the encoder has ready. */
static void drain(struct spoor_vtrace *tr)
{
	uint8_t payload[SPOOR_TE_MAX_PAYLOAD], frame[SPOOR_FRAME_MAX];
	uint32_t layout = tr->te_features & TR_TE_NO_TRAP_ADDR ? SPOOR_TE_IMPLICIT_EXCEPTION : 0;
	struct spoor_frame frm = { .msg = SPOOR_MSG_TE_INST };
	struct spoor_te_inst pkt;
	int n;

	if (!tr->enc || spoor_encoder_next(tr->enc, &pkt) != 1)
		return;		/* the usual case: no packet for this instruction */
	if (tr->cfg.encap.src_bits && !(tr->te_control & TR_TE_INHIBIT_SRC))
		frm.source = (tr->te_features >> TR_TE_SRC_ID_SHIFT) & 0xfff;
	if ((tr->ts_control & (TR_TS_ACTIVE | TR_TS_ENABLE)) == (TR_TS_ACTIVE | TR_TS_ENABLE) &&
	    tr->cfg.encap.ts_bytes) {
		frm.has_timestamp = true;
		frm.timestamp = ts_value(tr);	/* the encapsulation keeps the low bytes */
	}
	do {
		n = spoor_te_inst_encode_layout(tr->cfg.params, layout, &pkt, payload,
						sizeof(payload));
		if (n <= 0)
			continue;
		frm.payload = payload;
		frm.payload_len = (uint32_t)n;
		n = spoor_encap_encode(&tr->cfg.encap, &frm, frame, sizeof(frame));
		if (n <= 0)
			continue;	/* longer than the encapsulation takes: dropped */
		tr->st.packets++;
		sink_bytes(tr, frame, (size_t)n);
		/* Periodic alignment sequences let a probe join mid-stream. */
		if (tr->st.packets % SYNC_EVERY == 0)
			sink_sync(tr);
	} while (spoor_encoder_next(tr->enc, &pkt) == 1);
}

static bool tracing(const struct spoor_vtrace *tr)
{
	uint32_t on = TR_TE_ACTIVE | TR_TE_ENABLE | TR_TE_INST_TRACING;

	return (tr->te_control & on) == on && !tr->halted;
}

/* Starts the encoder (support packet, then sync at the next instruction). */
static void start(struct spoor_vtrace *tr)
{
	struct spoor_encoder_config cfg = {
		.params = tr->cfg.params,
		.options = spoor_vtrace_feature_options(tr->te_features),
		.resync_max = 1u << (((tr->te_control >> TR_TE_SYNC_MAX_SHIFT) & 0xf) + 4),
	};

	tr->enc = spoor_encoder_new(&cfg);
	tr->have_prev = false;
	if (!tr->enc)
		return;
	sink_sync(tr);
	drain(tr);
}

/* Stops the encoder: the last instruction, the end-of-trace support packet. */
static void stop(struct spoor_vtrace *tr)
{
	if (!tr->enc)
		return;
	spoor_encoder_finish(tr->enc);
	drain(tr);
	spoor_encoder_free(tr->enc);
	tr->enc = NULL;
	sink_flush(tr);
}

/* Starts or stops the encoder after a register write or a halt/resume. */
static void update(struct spoor_vtrace *tr)
{
	if (tracing(tr) && !tr->enc)
		start(tr);
	else if (!tracing(tr) && tr->enc)
		stop(tr);
}

/* Fills an ingress record from a hart event; returns false for none. */
static bool make_record(struct spoor_vtrace *tr, const struct spoor_iss_event *ev,
			struct spoor_ingress *rec)
{
	unsigned itype_width = tr->cfg.params->itype_width_p == 4 ? 4 : 3;
	struct spoor_insn in;
	bool sijump;

	if (ev->kind == SPOOR_ISS_EV_DEBUG)
		return false;
	if (ev->kind == SPOOR_ISS_EV_RETIRE && !ev->flags) {
		/* Sequential code, most of any program: itype 0, no decoding;
		 * the instruction is decoded later only if a jump needs it. */
		*rec = (struct spoor_ingress){
			.iaddr = ev->pc, .priv = ev->priv, .ilastsize = ev->size == 4, .iretire = 1,
		};
		tr->prev_raw = ev->insn;
		tr->have_prev = true;
		tr->prev_decoded = false;
		return true;
	}
	memset(rec, 0, sizeof(*rec));
	spoor_insn_decode(ev->insn, tr->cfg.xlen, &in);
	rec->iaddr = ev->pc;
	rec->priv = ev->priv;
	rec->ilastsize = ev->size == 4 || in.len == 4;
	rec->iretire = 1;
	switch (ev->kind) {
	case SPOOR_ISS_EV_INTERRUPT:
		/* Reported on the first instruction not executed. */
		rec->itype = SPOOR_ITYPE_INTERRUPT;
		rec->iretire = 0;
		rec->cause = ev->cause;
		break;
	case SPOOR_ISS_EV_EXCEPTION:
		/* ecall, ebreak and c.ebreak retire, then trap. */
		rec->itype = SPOOR_ITYPE_EXCEPTION;
		rec->iretire = in.cls == SPOOR_INSN_ECALL;
		rec->cause = ev->cause;
		rec->tval = ev->tval;
		break;
	default:
		if (tr->have_prev && !tr->prev_decoded && in.cls == SPOOR_INSN_JALR) {
			spoor_insn_decode(tr->prev_raw, tr->cfg.xlen, &tr->prev);
			tr->prev_decoded = true;
		}
		sijump = tr->have_prev && in.cls == SPOOR_INSN_JALR &&
			 (tr->prev.flags & SPOOR_INSN_UPPER) && tr->prev.rd == in.rs1;
		rec->sijump = sijump && (tr->te_features & TR_TE_EN_SIJUMP);
		rec->itype = (uint8_t)spoor_ingress_itype(&in, ev->flags & SPOOR_ISS_F_TAKEN,
							  rec->sijump, itype_width, 0);
		break;
	}
	tr->prev = in;
	tr->prev_decoded = true;
	tr->have_prev = ev->kind == SPOOR_ISS_EV_RETIRE;
	return true;
}

void spoor_vtrace_event(void *ctx, const struct spoor_iss_event *ev)
{
	struct spoor_vtrace *tr = ctx;
	struct spoor_ingress rec;

	if (!tr)
		return;
	/* Debug Mode pauses tracing; the next instruction resumes it. */
	if (ev->kind == SPOOR_ISS_EV_DEBUG) {
		spoor_vtrace_halted(tr, true);
		return;
	}
	if (tr->halted)
		spoor_vtrace_halted(tr, false);
	if (ev->kind == SPOOR_ISS_EV_RETIRE)
		ts_tick(tr);
	if (!tr->enc || !make_record(tr, ev, &rec))
		return;
	if (spoor_encoder_push(tr->enc, &rec) == 0)
		tr->st.records++;
	drain(tr);
}

void spoor_vtrace_halted(struct spoor_vtrace *tr, bool halted)
{
	if (!tr || tr->halted == halted)
		return;
	tr->halted = halted;
	update(tr);
}

/* ---- registers ------------------------------------------------------------ */

/* Reads the 32-bit register at @off; false when there is none. */
static bool reg_read(struct spoor_vtrace *tr, uint64_t off, uint32_t *v)
{
	switch (off) {
	case SPOOR_VTRACE_TE + TR_CONTROL:
		*v = tr->te_control | TR_TE_EMPTY | 3u << TR_TE_INST_MODE_SHIFT |
		     1u << TR_TE_SYNC_MODE_SHIFT;
		return true;
	case SPOOR_VTRACE_TE + TR_IMPL:
		*v = TE_IMPL;
		return true;
	case SPOOR_VTRACE_TE + TR_TE_INST_FEATURES:
		*v = tr->te_features | tr->cfg.encap.src_bits << TR_TE_SRC_BITS_SHIFT;
		return true;
	case SPOOR_VTRACE_TE + TR_TS_CONTROL:
		*v = tr->ts_control | 3u << TR_TS_MODE_SHIFT | 63u << TR_TS_WIDTH_SHIFT;
		return true;
	case SPOOR_VTRACE_TE + TR_TS_COUNTER_LOW:
		*v = (uint32_t)ts_value(tr);
		return true;
	case SPOOR_VTRACE_TE + TR_TS_COUNTER_HIGH:
		*v = (uint32_t)(ts_value(tr) >> 32);
		return true;
	case SPOOR_VTRACE_RAM + TR_CONTROL:
		*v = tr->ram_control | TR_SINK_EMPTY | TR_RAM_MODE_SMEM;
		return true;
	case SPOOR_VTRACE_RAM + TR_IMPL:
		*v = RAM_IMPL;
		return true;
	case SPOOR_VTRACE_RAM + TR_RAM_START_LOW:
		*v = (uint32_t)tr->ram_start;
		return true;
	case SPOOR_VTRACE_RAM + TR_RAM_START_HIGH:
		*v = (uint32_t)(tr->ram_start >> 32);
		return true;
	case SPOOR_VTRACE_RAM + TR_RAM_LIMIT_LOW:
		*v = (uint32_t)tr->ram_limit;
		return true;
	case SPOOR_VTRACE_RAM + TR_RAM_LIMIT_HIGH:
		*v = (uint32_t)(tr->ram_limit >> 32);
		return true;
	case SPOOR_VTRACE_RAM + TR_RAM_WP_LOW:
		*v = (uint32_t)tr->ram_wp;
		return true;
	case SPOOR_VTRACE_RAM + TR_RAM_WP_HIGH:
		*v = (uint32_t)(tr->ram_wp >> 32);
		return true;
	case SPOOR_VTRACE_PIB + TR_CONTROL:
		*v = tr->pib_control | TR_SINK_EMPTY;
		return true;
	case SPOOR_VTRACE_PIB + TR_IMPL:
		*v = PIB_IMPL;
		return true;
	default:
		/* Other registers of a present component read as 0. */
		*v = 0;
		return off < SPOOR_VTRACE_SIZE;
	}
}

/* Sets the low or high half of a 64-bit register, 4-byte aligned. */
static void set_half(uint64_t *reg, bool high, uint32_t v)
{
	if (high)
		*reg = (*reg & 0xffffffffu) | (uint64_t)v << 32;
	else
		*reg = (*reg & ~UINT64_C(0xffffffff)) | (v & ~3u);
}

/* Writes the 32-bit register at @off; false when there is none. */
static bool reg_write(struct spoor_vtrace *tr, uint64_t off, uint32_t v)
{
	switch (off) {
	case SPOOR_VTRACE_TE + TR_CONTROL:
		/* Tracing can be enabled only on an active encoder. */
		if (!(v & TR_TE_ACTIVE))
			v = 0;
		tr->te_control = v & TE_CONTROL_RW;
		update(tr);
		return true;
	case SPOOR_VTRACE_TE + TR_TS_CONTROL:
		/* Inactive: the unit is held in reset. */
		if (!(v & TR_TS_ACTIVE) || (v & TR_TS_RESET))
			tr->ts_ticks = 0;
		tr->ts_control = v & TR_TS_ACTIVE ? v & TS_CONTROL_RW : 0;
		return true;
	case SPOOR_VTRACE_TE + TR_TE_INST_FEATURES:
		/* WARL: only what the hardware has; the srcID field is writable. */
		tr->te_features = (v & tr->cfg.features) | (v & (0xfffu << TR_TE_SRC_ID_SHIFT));
		return true;
	case SPOOR_VTRACE_RAM + TR_CONTROL:
		if (!(v & TR_SINK_ENABLE) && ram_on(tr))
			sink_flush(tr);
		tr->ram_control = v & TR_SINK_ACTIVE ? v & RAM_CONTROL_RW : 0;
		return true;
	case SPOOR_VTRACE_RAM + TR_RAM_START_LOW:
	case SPOOR_VTRACE_RAM + TR_RAM_START_HIGH:
		set_half(&tr->ram_start, off & 4, v);
		return true;
	case SPOOR_VTRACE_RAM + TR_RAM_LIMIT_LOW:
	case SPOOR_VTRACE_RAM + TR_RAM_LIMIT_HIGH:
		set_half(&tr->ram_limit, off & 4, v);
		return true;
	case SPOOR_VTRACE_RAM + TR_RAM_WP_LOW:
		/* Writing trRamWPLow clears trRamWrap. */
		tr->ram_wp = (tr->ram_wp & ~UINT64_C(0xffffffff)) | (v & ~3u);
		tr->nword = 0;
		return true;
	case SPOOR_VTRACE_RAM + TR_RAM_WP_HIGH:
		set_half(&tr->ram_wp, true, v);
		return true;
	case SPOOR_VTRACE_PIB + TR_CONTROL:
		tr->pib_control = v & TR_SINK_ACTIVE ? v & PIB_CONTROL_RW : 0;
		return true;
	default:
		return off < SPOOR_VTRACE_SIZE;	/* reserved: writes ignored */
	}
}

int spoor_vtrace_read(struct spoor_vtrace *tr, uint64_t offset, unsigned size, uint64_t *value)
{
	uint32_t lo, hi = 0;

	if (!tr || !value || (offset & 3) || (size != 4 && size != 8))
		return SPOOR_E_ACCESS;
	if (!reg_read(tr, offset, &lo) || (size == 8 && !reg_read(tr, offset + 4, &hi)))
		return SPOOR_E_ACCESS;
	*value = lo | (uint64_t)hi << 32;
	return 0;
}

int spoor_vtrace_write(struct spoor_vtrace *tr, uint64_t offset, unsigned size, uint64_t value)
{
	if (!tr || (offset & 3) || (size != 4 && size != 8))
		return SPOOR_E_ACCESS;
	if (!reg_write(tr, offset, (uint32_t)value))
		return SPOOR_E_ACCESS;
	if (size == 8 && !reg_write(tr, offset + 4, (uint32_t)(value >> 32)))
		return SPOOR_E_ACCESS;
	return 0;
}

void spoor_vtrace_stats(const struct spoor_vtrace *tr, struct spoor_vtrace_stats *st)
{
	if (tr && st)
		*st = tr->st;
}
