// SPDX-License-Identifier: MIT
/* Encapsulation codecs: E-Trace-Encap bit layout shared by raw, Siemens, ATB and E-Trace-Encap. */
#include <string.h>

#include "spoor/encap.h"
#include "spoor/error.h"

#define HDR_LENGTH(h)	((unsigned)(h) & 0x1f)
#define HDR_FLOW(h)	(((unsigned)(h) >> 5) & 3)
#define HDR_EXTEND(h)	((unsigned)(h) >> 7)

/* Flow values of the reference flow's te_inst_raw headers. */
#define RAW_FLOW_TE_INST 2
#define RAW_FLOW_TE_DATA 3

static const char *const kind_names[] = {
	[SPOOR_ENCAP_RAW] = "raw",
	[SPOOR_ENCAP_SIEMENS] = "siemens",
	[SPOOR_ENCAP_ATB] = "atb",
	[SPOOR_ENCAP_ETRACE] = "etrace-encap",
};

#define N_KINDS (sizeof(kind_names) / sizeof(kind_names[0]))

/* Returns 0 after filling @cfg with @kind's defaults, or SPOOR_E_INVAL. */
int spoor_encap_config_init(struct spoor_encap_config *cfg, enum spoor_encap_kind kind)
{
	if (!cfg || (unsigned)kind >= N_KINDS)
		return SPOOR_E_INVAL;
	memset(cfg, 0, sizeof(*cfg));
	cfg->kind = kind;
	switch (kind) {
	case SPOOR_ENCAP_RAW:
		cfg->type_te_inst = RAW_FLOW_TE_INST;
		cfg->type_te_data = RAW_FLOW_TE_DATA;
		break;
	case SPOOR_ENCAP_SIEMENS:
		cfg->src_bits = 6;
		cfg->ts_bytes = 2;
		cfg->type_bits = 2;
		cfg->type_te_inst = 2;
		cfg->type_te_data = 3;
		break;
	case SPOOR_ENCAP_ATB:
		cfg->ts_bytes = 2;
		cfg->type_te_inst = 0;
		cfg->type_te_data = 1;
		break;
	case SPOOR_ENCAP_ETRACE:
		cfg->type_te_inst = 0;
		cfg->type_te_data = 1;
		break;
	}
	return 0;
}

/* Returns 0 when @cfg's fields are in range for its kind, else SPOOR_E_INVAL. */
int spoor_encap_config_check(const struct spoor_encap_config *cfg)
{
	if (!cfg || (unsigned)cfg->kind >= N_KINDS)
		return SPOOR_E_INVAL;
	if (cfg->src_bits > 16 || cfg->ts_bytes > 8 || cfg->type_bits > 8)
		return SPOOR_E_INVAL;
	/* raw has no srcID, timestamp or type; ATB's source is the ATID */
	if (cfg->kind == SPOOR_ENCAP_RAW && (cfg->src_bits || cfg->ts_bytes || cfg->type_bits))
		return SPOOR_E_INVAL;
	if (cfg->kind == SPOOR_ENCAP_ATB && cfg->src_bits)
		return SPOOR_E_INVAL;
	if (cfg->kind != SPOOR_ENCAP_RAW && cfg->type_bits) {
		if (cfg->type_te_inst >> cfg->type_bits || cfg->type_te_data >> cfg->type_bits)
			return SPOOR_E_INVAL;
		if (cfg->type_te_inst == cfg->type_te_data)
			return SPOOR_E_INVAL;
	}
	return 0;
}

/* Returns 0 and sets *@kind from its name, or SPOOR_E_INVAL. */
int spoor_encap_kind_parse(const char *name, enum spoor_encap_kind *kind)
{
	unsigned i;

	if (!name || !kind)
		return SPOOR_E_INVAL;
	for (i = 0; i < N_KINDS; i++) {
		if (!strcmp(name, kind_names[i])) {
			*kind = (enum spoor_encap_kind)i;
			return 0;
		}
	}
	return SPOOR_E_INVAL;
}

/* Returns the name of @kind, or "unknown". */
const char *spoor_encap_kind_name(enum spoor_encap_kind kind)
{
	if ((unsigned)kind >= N_KINDS)
		return "unknown";
	return kind_names[kind];
}

/* Returns the frame size for @header under a checked @cfg, or a negative error. */
static int frame_size(const struct spoor_encap_config *cfg, uint8_t header)
{
	unsigned len = HDR_LENGTH(header);
	unsigned ext = HDR_EXTEND(header);

	if (cfg->kind == SPOOR_ENCAP_RAW) {
		if (ext)
			return SPOOR_E_BAD_HEADER;
		if (len && HDR_FLOW(header) != RAW_FLOW_TE_INST &&
		    HDR_FLOW(header) != RAW_FLOW_TE_DATA)
			return SPOOR_E_BAD_HEADER;
	}
	if (!len)
		return 1;		/* null.idle or null.alignment */
	if (ext && !cfg->ts_bytes)
		return SPOOR_E_BAD_HEADER;
	/* srcID % 8 and type bits, plus at least one payload bit */
	if (len * 8 < cfg->src_bits % 8 + cfg->type_bits + 1)
		return SPOOR_E_BAD_LENGTH;
	return (int)(1 + cfg->src_bits / 8 + (ext ? cfg->ts_bytes : 0) + len);
}

/* Returns the size on the wire of the frame starting with @header, or a negative error. */
int spoor_encap_frame_size(const struct spoor_encap_config *cfg, uint8_t header)
{
	if (spoor_encap_config_check(cfg))
		return SPOOR_E_INVAL;
	return frame_size(cfg, header);
}

/* Returns @n (<= 64) bits of the LSB-first bit stream @p starting at bit @pos. */
static uint64_t get_bits(const uint8_t *p, size_t pos, unsigned n)
{
	uint64_t v = 0;
	unsigned got = 0;

	while (got < n) {
		unsigned sh = pos % 8;
		unsigned take = 8 - sh;

		if (take > n - got)
			take = n - got;
		v |= (uint64_t)((p[pos / 8] >> sh) & ((1u << take) - 1)) << got;
		got += take;
		pos += take;
	}
	return v;
}

/* Returns the message type a transmitted type value (RAW: flow) stands for. */
enum spoor_msg_type spoor_encap_msg_type(const struct spoor_encap_config *cfg, unsigned type)
{
	if (cfg->kind == SPOOR_ENCAP_RAW)
		return type == RAW_FLOW_TE_INST ? SPOOR_MSG_TE_INST : SPOOR_MSG_TE_DATA;
	if (!cfg->type_bits)
		return SPOOR_MSG_TE_INST;	/* one packet type */
	if (type == cfg->type_te_inst)
		return SPOOR_MSG_TE_INST;
	if (type == cfg->type_te_data)
		return SPOOR_MSG_TE_DATA;
	return SPOOR_MSG_OTHER;
}

/*
 * Returns the payload length after moving the @avail payload bits starting at
 * bit @pos of @body into @scratch, byte-aligned.  Leftover bits beyond the
 * whole bytes make one more byte unless they only repeat the last bit.
 */
static uint32_t realign_payload(const uint8_t *body, size_t pos, unsigned avail, uint8_t *scratch)
{
	unsigned whole = avail / 8, rest = avail % 8;
	unsigned sh = pos % 8, i;
	const uint8_t *p = body + pos / 8;
	unsigned v;

	for (i = 0; i < whole; i++) {
		v = p[i] >> sh;
		if (sh)
			v |= (unsigned)p[i + 1] << (8 - sh);
		scratch[i] = (uint8_t)v;
	}
	if (!rest)
		return whole;
	/* the leftover bits are the top @rest bits of the frame's last byte */
	scratch[whole] = (uint8_t)get_bits(body, pos + whole * 8, rest);
	return spoor_encap_payload_end(scratch, whole, rest);
}

uint32_t spoor_encap_payload_end(uint8_t *payload, unsigned whole, unsigned rest)
{
	unsigned v, fill;

	if (!rest)
		return whole;
	v = payload[whole] & ((1u << rest) - 1);
	if (whole) {
		fill = (payload[whole - 1] & 0x80) ? (1u << rest) - 1 : 0;
		if (v == fill)
			return whole;	/* padding only */
	}
	if (v >> (rest - 1))
		v |= 0xffu << rest;	/* pad with the last bit */
	payload[whole] = (uint8_t)v;
	return whole + 1;
}

/* Fills srcID, timestamp and type of @frm from @buf; returns the payload's body bit position. */
static size_t decode_fields(const struct spoor_encap_config *cfg, const uint8_t *buf,
			    struct spoor_frame *frm)
{
	const uint8_t *body = buf + 1;
	size_t pos = cfg->src_bits;

	frm->source = (uint32_t)get_bits(body, 0, cfg->src_bits);
	frm->has_timestamp = HDR_EXTEND(buf[0]) != 0;
	frm->timestamp = 0;
	if (frm->has_timestamp) {
		frm->timestamp = get_bits(body, pos, cfg->ts_bytes * 8);
		pos += cfg->ts_bytes * 8;
	}
	if (cfg->kind == SPOOR_ENCAP_RAW)
		frm->type = frm->flow;
	else
		frm->type = (uint8_t)get_bits(body, pos, cfg->type_bits);
	frm->msg = (uint8_t)spoor_encap_msg_type(cfg, frm->type);
	return pos + cfg->type_bits;
}

/* Returns 0 after decoding the frame @buf[0..@len) into @frm, or a negative error. */
int spoor_encap_decode(const struct spoor_encap_config *cfg, const uint8_t *buf, size_t len,
		       struct spoor_frame *frm, uint8_t *scratch)
{
	unsigned avail;
	size_t pos;
	int size;

	if (!buf || !frm || !scratch || !len || spoor_encap_config_check(cfg))
		return SPOOR_E_INVAL;
	size = frame_size(cfg, buf[0]);
	if (size < 0)
		return size;
	if (size == 1 || (size_t)size != len)
		return SPOOR_E_INVAL;	/* a null packet, or not the whole frame */
	frm->size = (uint32_t)size;
	frm->flow = (uint8_t)HDR_FLOW(buf[0]);
	pos = decode_fields(cfg, buf, frm);
	avail = HDR_LENGTH(buf[0]) * 8 - cfg->src_bits % 8 - cfg->type_bits;
	if (pos % 8 == 0) {
		/* whole payload bytes up to the frame end: no padding to drop */
		frm->payload = buf + 1 + pos / 8;
		frm->payload_len = avail / 8;
		frm->payload_room = frm->payload_len;
		return 0;
	}
	frm->payload_len = realign_payload(buf + 1, pos, avail, scratch);
	frm->payload_room = frm->payload_len;
	frm->payload = scratch;
	return 0;
}

/* ORs the low @n bits of @v into the zeroed LSB-first bit stream @p at bit @pos. */
static void put_bits(uint8_t *p, size_t pos, uint64_t v, unsigned n)
{
	while (n) {
		unsigned sh = pos % 8;
		unsigned take = 8 - sh;

		if (take > n)
			take = n;
		p[pos / 8] |= (uint8_t)((v & ((1u << take) - 1)) << sh);
		v >>= take;
		n -= take;
		pos += take;
	}
}

/* Returns the flow (RAW) or type value @frm is sent with, or SPOOR_E_INVAL. */
static int type_to_send(const struct spoor_encap_config *cfg, const struct spoor_frame *frm)
{
	unsigned type;

	if (cfg->kind != SPOOR_ENCAP_RAW && !cfg->type_bits)
		return frm->msg == SPOOR_MSG_TE_INST ? 0 : SPOOR_E_INVAL;
	if (frm->msg == SPOOR_MSG_TE_INST)
		type = cfg->kind == SPOOR_ENCAP_RAW ? RAW_FLOW_TE_INST : cfg->type_te_inst;
	else if (frm->msg == SPOOR_MSG_TE_DATA)
		type = cfg->kind == SPOOR_ENCAP_RAW ? RAW_FLOW_TE_DATA : cfg->type_te_data;
	else if (frm->msg == SPOOR_MSG_OTHER)
		type = frm->type;
	else
		return SPOOR_E_INVAL;
	if (cfg->kind == SPOOR_ENCAP_RAW)
		return type == RAW_FLOW_TE_INST || type == RAW_FLOW_TE_DATA ?
		       (int)type : SPOOR_E_INVAL;
	return type >> cfg->type_bits ? SPOOR_E_INVAL : (int)type;
}

/* Returns 0 when @frm's fields can be sent under @cfg, else SPOOR_E_INVAL. */
static int check_frame(const struct spoor_encap_config *cfg, const struct spoor_frame *frm)
{
	if (!frm->payload || !frm->payload_len)
		return SPOOR_E_INVAL;
	if (frm->has_timestamp && !cfg->ts_bytes)
		return SPOOR_E_INVAL;
	if (cfg->src_bits && frm->source >> cfg->src_bits)
		return SPOOR_E_INVAL;
	if (cfg->kind != SPOOR_ENCAP_RAW && frm->flow > 3)
		return SPOOR_E_INVAL;
	return 0;
}

/* Returns the size of the frame encoded into @out, or a negative error. */
int spoor_encap_encode(const struct spoor_encap_config *cfg, const struct spoor_frame *frm,
		       uint8_t *out, size_t cap)
{
	unsigned ext, flow, len, size, bits, pad_bits, i;
	uint8_t *body;
	size_t pos;
	int type, err;

	if (!frm || !out || spoor_encap_config_check(cfg))
		return SPOOR_E_INVAL;
	err = check_frame(cfg, frm);
	if (err)
		return err;
	type = type_to_send(cfg, frm);
	if (type < 0)
		return type;
	if (frm->payload_len > SPOOR_FRAME_PAYLOAD_MAX)
		return SPOOR_E_TOO_LONG;
	ext = frm->has_timestamp ? 1 : 0;
	flow = cfg->kind == SPOOR_ENCAP_RAW ? (unsigned)type : frm->flow;
	bits = cfg->src_bits % 8 + cfg->type_bits + frm->payload_len * 8;
	len = (bits + 7) / 8;
	if (len > 31)
		return SPOOR_E_TOO_LONG;
	size = 1 + cfg->src_bits / 8 + ext * cfg->ts_bytes + len;
	if (size > cap)
		return SPOOR_E_NOSPACE;
	memset(out, 0, size);
	out[0] = (uint8_t)(len | flow << 5 | ext << 7);
	body = out + 1;
	put_bits(body, 0, frm->source, cfg->src_bits);
	pos = cfg->src_bits;
	if (ext) {
		put_bits(body, pos, frm->timestamp, cfg->ts_bytes * 8);
		pos += cfg->ts_bytes * 8;
	}
	put_bits(body, pos, (unsigned)type, cfg->type_bits);
	pos += cfg->type_bits;
	/* payload bytes, then padding with the payload's last bit */
	if (pos % 8 == 0) {
		memcpy(body + pos / 8, frm->payload, frm->payload_len);
	} else {
		for (i = 0; i < frm->payload_len; i++)
			put_bits(body, pos + i * 8, frm->payload[i], 8);
	}
	pos += frm->payload_len * 8;
	pad_bits = (size - 1) * 8 - (unsigned)pos;
	if (pad_bits && (frm->payload[frm->payload_len - 1] & 0x80))
		put_bits(body, pos, ~0ull, pad_bits);
	return (int)size;
}

/* Returns the longest run of null bytes a normal frame can hold after its header (the spec's N). */
static unsigned longest_null_run(const struct spoor_encap_config *cfg)
{
	return 31 + cfg->ts_bytes + cfg->src_bits / 8;
}

/* Returns the number of null bytes that make a synchronisation sequence. */
unsigned spoor_encap_sync_run(const struct spoor_encap_config *cfg)
{
	unsigned n;

	if (!cfg)
		return 32;
	n = longest_null_run(cfg);
	if (cfg->kind == SPOOR_ENCAP_ETRACE)
		return n;
	return n + 1 > 32 ? n + 1 : 32;
}

/* Returns the length of the synchronisation sequence written to @out, or a negative error. */
int spoor_encap_sync_sequence(const struct spoor_encap_config *cfg, unsigned zero_run,
			      uint8_t *out, size_t cap)
{
	unsigned n;

	if (!out || spoor_encap_config_check(cfg))
		return SPOOR_E_INVAL;
	if (cfg->kind == SPOOR_ENCAP_ETRACE) {
		n = longest_null_run(cfg);
		if (n + 1 > cap)
			return SPOOR_E_NOSPACE;
		memset(out, 0, n);
		out[n] = 0x80;		/* null.alignment */
		return (int)(n + 1);
	}
	n = zero_run ? zero_run : spoor_encap_sync_run(cfg);
	if (n > cap || n > (unsigned)INT32_MAX)
		return SPOOR_E_NOSPACE;
	memset(out, 0, n);
	return (int)n;
}

uint64_t spoor_encap_time_widen(const struct spoor_encap_config *cfg, uint64_t prev, bool have,
				uint64_t stamp)
{
	unsigned bits = cfg ? 8 * cfg->ts_bytes : 0;
	uint64_t mask = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;

	if (!bits)
		return stamp;
	if (!have)
		return stamp & mask;
	return prev + (((stamp & mask) - (prev & mask)) & mask);
}
