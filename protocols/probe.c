// SPDX-License-Identifier: MIT
/* The trace probe's USB protocol: payloads, the bulk stream, images (probe.h). */
#include <stdlib.h>
#include <string.h>

#include "spoor/error.h"
#include "spoor/probe.h"
#include "le.h"

/* ---- little-endian fields ------------------------------------------------- */

/* True for a port width the protocol knows. */
static bool width_ok(unsigned w)
{
	return w == 1 || w == 2 || w == 4 || w == 8 || w == 16;
}

/* ---- control payloads ------------------------------------------------------ */

int spoor_probe_info_encode(const struct spoor_probe_info *in, uint8_t *out)
{
	size_t n;

	if (!in || !out)
		return SPOOR_E_INVAL;
	n = strnlen(in->serial, sizeof(in->serial));
	if (n > SPOOR_PROBE_SERIAL_MAX)
		return SPOOR_E_INVAL;
	memset(out, 0, SPOOR_PROBE_INFO_SIZE);
	put16(out, in->protocol_version);
	put16(out + 2, in->port_widths);
	put32(out + 4, in->firmware_version);
	put32(out + 8, in->capabilities);
	put32(out + 12, in->buffer_size);
	memcpy(out + 16, in->serial, n);	/* NUL-padded to 32 bytes */
	put32(out + 48, in->target);
	return SPOOR_PROBE_INFO_SIZE;
}

int spoor_probe_info_decode(const uint8_t *buf, size_t len, struct spoor_probe_info *out)
{
	if (!buf || !out)
		return SPOOR_E_INVAL;
	if (len < SPOOR_PROBE_INFO_SIZE)
		return SPOOR_E_TRUNCATED;
	memset(out, 0, sizeof(*out));
	out->protocol_version = get16(buf);
	out->port_widths = get16(buf + 2);
	out->firmware_version = get32(buf + 4);
	out->capabilities = get32(buf + 8);
	out->buffer_size = get32(buf + 12);
	out->target = get32(buf + 48);
	/* Up to the first NUL (the rest is padding). */
	memcpy(out->serial, buf + 16, strnlen((const char *)buf + 16, SPOOR_PROBE_SERIAL_MAX));
	/* Printable serials only: a host prints and matches them. */
	for (const char *c = out->serial; *c; c++)
		if (*c < 0x20 || *c > 0x7e)
			return SPOOR_E_BAD_FIELD;
	return 0;
}

int spoor_probe_config_encode(const struct spoor_probe_config *in, uint8_t *out)
{
	if (!in || !out || !width_ok(in->port_width) ||
	    (in->flags & ~(SPOOR_PROBE_CFG_DDR | SPOOR_PROBE_CFG_FALLING)))
		return SPOOR_E_INVAL;
	memset(out, 0, SPOOR_PROBE_CONFIG_SIZE);
	out[0] = in->port_width;
	out[1] = in->flags;
	out[2] = in->encap;
	out[3] = in->src_bits;
	out[4] = in->ts_bytes;
	out[5] = in->type_bits;
	return SPOOR_PROBE_CONFIG_SIZE;
}

int spoor_probe_config_decode(const uint8_t *buf, size_t len, struct spoor_probe_config *out)
{
	if (!buf || !out)
		return SPOOR_E_INVAL;
	if (len < SPOOR_PROBE_CONFIG_SIZE)
		return SPOOR_E_TRUNCATED;
	if (!width_ok(buf[0]) || (buf[1] & ~(SPOOR_PROBE_CFG_DDR | SPOOR_PROBE_CFG_FALLING)) ||
	    buf[6] || buf[7])
		return SPOOR_E_BAD_FIELD;
	out->port_width = buf[0];
	out->flags = buf[1];
	out->encap = buf[2];
	out->src_bits = buf[3];
	out->ts_bytes = buf[4];
	out->type_bits = buf[5];
	return 0;
}

int spoor_probe_status_encode(const struct spoor_probe_status *in, uint8_t *out)
{
	if (!in || !out || in->state > SPOOR_PROBE_STOPPING)
		return SPOOR_E_INVAL;
	put32(out, in->state);
	put32(out + 4, in->overflows);
	put64(out + 8, in->bytes_captured);
	put64(out + 16, in->bytes_lost);
	put32(out + 24, in->high_water);
	put32(out + 28, 0);
	return SPOOR_PROBE_STATUS_SIZE;
}

int spoor_probe_status_decode(const uint8_t *buf, size_t len, struct spoor_probe_status *out)
{
	if (!buf || !out)
		return SPOOR_E_INVAL;
	if (len < SPOOR_PROBE_STATUS_SIZE)
		return SPOOR_E_TRUNCATED;
	memset(out, 0, sizeof(*out));
	out->state = get32(buf);
	out->overflows = get32(buf + 4);
	out->bytes_captured = get64(buf + 8);
	out->bytes_lost = get64(buf + 16);
	out->high_water = get32(buf + 24);
	if (out->state > SPOOR_PROBE_STOPPING || out->bytes_lost > out->bytes_captured)
		return SPOOR_E_BAD_FIELD;
	return 0;
}

/* ---- records ------------------------------------------------------------------ */

int spoor_probe_record_header(uint8_t type, uint8_t seq, size_t len, uint8_t *out)
{
	if (!out || len > SPOOR_PROBE_REC_MAX ||
	    (type != SPOOR_PROBE_REC_DATA && type != SPOOR_PROBE_REC_OVERFLOW &&
	     type != SPOOR_PROBE_REC_END))
		return SPOOR_E_INVAL;
	out[0] = type;
	out[1] = seq;
	put16(out + 2, (uint16_t)len);
	return SPOOR_PROBE_REC_HEADER;
}

int spoor_probe_overflow_record(uint8_t seq, uint64_t offset, uint32_t lost, uint8_t *out)
{
	spoor_probe_record_header(SPOOR_PROBE_REC_OVERFLOW, seq, SPOOR_PROBE_OVERFLOW_SIZE, out);
	put64(out + 4, offset);
	put32(out + 12, lost);
	return SPOOR_PROBE_REC_HEADER + SPOOR_PROBE_OVERFLOW_SIZE;
}

int spoor_probe_end_record(uint8_t seq, uint64_t total, uint8_t *out)
{
	spoor_probe_record_header(SPOOR_PROBE_REC_END, seq, SPOOR_PROBE_END_SIZE, out);
	put64(out + 4, total);
	return SPOOR_PROBE_REC_HEADER + SPOOR_PROBE_END_SIZE;
}

struct spoor_probe_stream {
	uint8_t hdr[SPOOR_PROBE_REC_HEADER];
	size_t hdr_have;
	uint8_t type;		/* the record being read; 0 between records */
	size_t left;		/* its payload bytes still to come */
	uint8_t small[SPOOR_PROBE_OVERFLOW_SIZE];	/* an OVERFLOW/END payload */
	size_t small_have;
	bool have_seq;
	uint8_t seq;		/* the next sequence number expected */
	bool skipping;		/* looking for a header after an error (reported once) */
	uint64_t trace;		/* trace bytes so far, lost ones included */
	uint64_t pos;		/* stream offset of the next byte */
	uint64_t rec_pos;	/* stream offset of the record being read */
	const uint8_t *buf;
	size_t len, at;
};

struct spoor_probe_stream *spoor_probe_stream_new(void)
{
	return calloc(1, sizeof(struct spoor_probe_stream));
}

void spoor_probe_stream_free(struct spoor_probe_stream *s)
{
	free(s);
}

int spoor_probe_stream_feed(struct spoor_probe_stream *s, const uint8_t *buf, size_t len)
{
	if (!s || (!buf && len) || s->at < s->len)
		return SPOOR_E_INVAL;
	s->buf = buf;
	s->len = len;
	s->at = 0;
	return 0;
}

/* Is the header in s->hdr one a probe sends?  Its payload length then in *@len. */
static bool header_ok(const struct spoor_probe_stream *s, size_t *len)
{
	*len = get16(s->hdr + 2);
	switch (s->hdr[0]) {
	case SPOOR_PROBE_REC_DATA:
		return *len > 0 && *len <= SPOOR_PROBE_REC_MAX;
	case SPOOR_PROBE_REC_OVERFLOW:
		return *len == SPOOR_PROBE_OVERFLOW_SIZE;
	case SPOOR_PROBE_REC_END:
		return *len == SPOOR_PROBE_END_SIZE;
	default:
		return false;
	}
}

/* Fills an ERROR item at stream offset @at; the trace goes on from s->trace. */
static int error_item(const struct spoor_probe_stream *s, struct spoor_probe_item *it,
		      uint64_t at, int reason)
{
	memset(it, 0, sizeof(*it));
	it->kind = SPOOR_PROBE_ITEM_ERROR;
	it->stream_offset = at;
	it->offset = s->trace;
	it->reason = reason;
	return SPOOR_PROBE_ITEM_ERROR;
}

/* A complete OVERFLOW or END payload: the item (or an ERROR if it disagrees). */
static int small_item(struct spoor_probe_stream *s, struct spoor_probe_item *it)
{
	uint64_t off = get64(s->small);

	memset(it, 0, sizeof(*it));
	it->stream_offset = s->rec_pos;
	it->offset = off;
	if (s->type == SPOOR_PROBE_REC_OVERFLOW) {
		it->kind = SPOOR_PROBE_ITEM_OVERFLOW;
		it->lost = get32(s->small + 8);
		if (off != s->trace) {
			/* The probe's count is the one to go on from. */
			s->trace = off + it->lost;
			return error_item(s, it, s->rec_pos, SPOOR_E_BAD_FIELD);
		}
		s->trace += it->lost;
		return it->kind;
	}
	/* The end of a capture: the next one counts from 0. */
	it->kind = SPOOR_PROBE_ITEM_END;
	if (off != s->trace) {
		s->trace = 0;
		return error_item(s, it, s->rec_pos, SPOOR_E_BAD_LENGTH);
	}
	s->trace = 0;
	return it->kind;
}

/* Takes the header byte at the chunk position; returns an item kind or 0. */
static int header_byte(struct spoor_probe_stream *s, struct spoor_probe_item *it)
{
	size_t len;

	if (!s->hdr_have)
		s->rec_pos = s->pos;
	s->hdr[s->hdr_have++] = s->buf[s->at++];
	s->pos++;
	if (s->hdr_have < SPOOR_PROBE_REC_HEADER)
		return 0;
	if (!header_ok(s, &len)) {
		/* Not a header: slide by one byte and look again. */
		bool report = !s->skipping;

		memmove(s->hdr, s->hdr + 1, SPOOR_PROBE_REC_HEADER - 1);
		s->hdr_have--;
		s->rec_pos++;
		s->skipping = true;
		return report ? error_item(s, it, s->rec_pos - 1, SPOOR_E_BAD_HEADER) : 0;
	}
	s->hdr_have = 0;
	s->skipping = false;
	s->type = s->hdr[0];
	s->left = len;
	s->small_have = 0;
	if (s->have_seq && s->hdr[1] != s->seq) {
		s->seq = (uint8_t)(s->hdr[1] + 1);
		return error_item(s, it, s->rec_pos, SPOOR_E_PROTOCOL);	/* records lost */
	}
	s->have_seq = true;
	s->seq = (uint8_t)(s->hdr[1] + 1);
	return 0;
}

int spoor_probe_stream_next(struct spoor_probe_stream *s, struct spoor_probe_item *item,
			    size_t size)
{
	struct spoor_probe_item it;
	int k;

	if (!s || !item || !size)
		return SPOOR_E_INVAL;
	while (s->at < s->len) {
		if (!s->type) {
			k = header_byte(s, &it);
			if (k)
				goto out;
			continue;
		}
		if (s->type == SPOOR_PROBE_REC_DATA) {
			size_t n = s->len - s->at < s->left ? s->len - s->at : s->left;

			memset(&it, 0, sizeof(it));
			it.kind = SPOOR_PROBE_ITEM_DATA;
			it.stream_offset = s->pos;
			it.offset = s->trace;
			it.data = s->buf + s->at;
			it.len = n;
			s->at += n;
			s->pos += n;
			s->trace += n;
			s->left -= n;
			if (!s->left)
				s->type = 0;
			k = SPOOR_PROBE_ITEM_DATA;
			goto out;
		}
		s->small[s->small_have++] = s->buf[s->at++];
		s->pos++;
		if (--s->left)
			continue;
		k = small_item(s, &it);
		s->type = 0;
		goto out;
	}
	return 0;
out:
	memcpy(item, &it, size < sizeof(it) ? size : sizeof(it));
	return k;
}

/* ---- images -------------------------------------------------------------------- */

/*
 * CRC-32 written here rather than taken from zlib: the firmware core links
 * this file on a microcontroller, where zlib is not at hand.  The tests
 * compare it with zlib's crc32().
 */
uint32_t spoor_probe_crc32(uint32_t crc, const void *buf, size_t len)
{
	/* Four bits at a time: a table small enough for any firmware, no state. */
	static const uint32_t nibble[16] = {
		0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac, 0x76dc4190, 0x6b6b51f4,
		0x4db26158, 0x5005713c, 0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
		0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c,
	};
	const uint8_t *p = buf;

	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		crc = nibble[crc & 15] ^ (crc >> 4);
		crc = nibble[crc & 15] ^ (crc >> 4);
	}
	return ~crc;
}

int spoor_probe_image_header(const struct spoor_probe_image *img, uint8_t *out)
{
	if (!img || !out)
		return SPOOR_E_INVAL;
	put32(out, SPOOR_PROBE_IMAGE_MAGIC);
	put32(out + 4, img->target);
	put32(out + 8, img->version);
	put32(out + 12, img->length);
	put32(out + 16, img->crc32);
	put32(out + 20, spoor_probe_crc32(0, out, 20));
	return SPOOR_PROBE_IMAGE_HEADER;
}

int spoor_probe_image_check(const uint8_t *buf, size_t len, uint32_t target,
			    struct spoor_probe_image *img)
{
	if (!buf || !img)
		return SPOOR_E_INVAL;
	if (len < SPOOR_PROBE_IMAGE_HEADER)
		return SPOOR_E_TRUNCATED;
	if (get32(buf) != SPOOR_PROBE_IMAGE_MAGIC || get32(buf + 20) != spoor_probe_crc32(0, buf, 20))
		return SPOOR_E_BAD_HEADER;
	img->target = get32(buf + 4);
	img->version = get32(buf + 8);
	img->length = get32(buf + 12);
	img->crc32 = get32(buf + 16);
	if (img->target != target)
		return SPOOR_E_BAD_CONFIG;
	if (img->length != len - SPOOR_PROBE_IMAGE_HEADER)
		return img->length > len - SPOOR_PROBE_IMAGE_HEADER ? SPOOR_E_TRUNCATED :
								     SPOOR_E_BAD_LENGTH;
	if (spoor_probe_crc32(0, buf + SPOOR_PROBE_IMAGE_HEADER, img->length) != img->crc32)
		return SPOOR_E_CHECKSUM;
	return 0;
}

/* ---- the TCP binding --------------------------------------------------------- */

int spoor_probe_setup_encode(const struct spoor_probe_setup *in, uint8_t *out)
{
	if (!in || !out)
		return SPOOR_E_INVAL;
	out[0] = in->request_type;
	out[1] = in->request;
	put16(out + 2, in->value);
	put16(out + 4, in->index);
	put16(out + 6, in->length);
	return SPOOR_PROBE_SETUP_SIZE;
}

int spoor_probe_setup_decode(const uint8_t *buf, size_t len, struct spoor_probe_setup *out)
{
	if (!buf || !out)
		return SPOOR_E_INVAL;
	if (len < SPOOR_PROBE_SETUP_SIZE)
		return SPOOR_E_TRUNCATED;
	out->request_type = buf[0];
	out->request = buf[1];
	out->value = get16(buf + 2);
	out->index = get16(buf + 4);
	out->length = get16(buf + 6);
	return 0;
}

int spoor_probe_msg_encode(const struct spoor_probe_msg *in, uint8_t *out)
{
	if (!in || !out || (in->kind != SPOOR_PROBE_MSG_CONTROL && in->kind != SPOOR_PROBE_MSG_BULK) ||
	    in->status > SPOOR_PROBE_STALL || in->length > SPOOR_PROBE_MSG_MAX)
		return SPOOR_E_INVAL;
	out[0] = in->kind;
	out[1] = in->status;
	put16(out + 2, 0);
	put32(out + 4, in->length);
	return SPOOR_PROBE_MSG_HEADER;
}

int spoor_probe_msg_decode(const uint8_t *buf, size_t len, struct spoor_probe_msg *out)
{
	if (!buf || !out)
		return SPOOR_E_INVAL;
	if (len < SPOOR_PROBE_MSG_HEADER)
		return SPOOR_E_TRUNCATED;
	out->kind = buf[0];
	out->status = buf[1];
	out->length = get32(buf + 4);
	if ((out->kind != SPOOR_PROBE_MSG_CONTROL && out->kind != SPOOR_PROBE_MSG_BULK) ||
	    out->status > SPOOR_PROBE_STALL || (out->kind == SPOOR_PROBE_MSG_BULK && out->status) ||
	    get16(buf + 2))
		return SPOOR_E_BAD_FIELD;
	if (out->length > SPOOR_PROBE_MSG_MAX)
		return SPOOR_E_TOO_BIG;
	return 0;
}

int spoor_probe_msg_split(struct spoor_probe_msg_split *s, const uint8_t **buf, size_t *len,
			  struct spoor_probe_msg *msg, const uint8_t **data, size_t *n)
{
	int ret;

	if (!s || !buf || !len || !msg || !data || !n || (!*buf && *len))
		return SPOOR_E_INVAL;
	if (s->have == SPOOR_PROBE_MSG_HEADER && !s->left) {
		/* The message whose payload was taken last ends here (also when empty). */
		s->have = 0;
		*msg = s->msg;
		return SPOOR_PROBE_SPLIT_END;
	}
	if (s->have < SPOOR_PROBE_MSG_HEADER) {
		size_t k = SPOOR_PROBE_MSG_HEADER - s->have;

		if (!*len)
			return 0;
		k = k < *len ? k : *len;
		memcpy(s->hdr + s->have, *buf, k);
		s->have += k;
		*buf += k;
		*len -= k;
		if (s->have < SPOOR_PROBE_MSG_HEADER)
			return 0;
		ret = spoor_probe_msg_decode(s->hdr, sizeof(s->hdr), &s->msg);
		if (ret < 0)
			return ret;
		s->offset += SPOOR_PROBE_MSG_HEADER;
		s->left = s->msg.length;
		*msg = s->msg;
		return SPOOR_PROBE_SPLIT_HEADER;
	}
	if (!*len)
		return 0;
	*n = s->left < *len ? s->left : *len;
	*data = *buf;
	*buf += *n;
	*len -= *n;
	s->left -= (uint32_t)*n;
	s->offset += *n;
	*msg = s->msg;
	return SPOOR_PROBE_SPLIT_PAYLOAD;
}
