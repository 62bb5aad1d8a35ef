// SPDX-License-Identifier: MIT
/* Capture files: the header and record codec (see capture.h, host/CAPTURE.md). */
#include <string.h>

#include "spoor/capture.h"
#include "spoor/error.h"
#include "spoor/probe.h"
#include "le.h"

int spoor_capture_header_encode(const struct spoor_capture_header *h, uint8_t *out, size_t size)
{
	uint32_t crc;
	size_t n;

	if (!h || !out || h->text_len > SPOOR_CAPTURE_MAX_TEXT || (h->text_len && !h->text) ||
	    spoor_encap_config_check(&h->encap))
		return SPOOR_E_INVAL;
	n = SPOOR_CAPTURE_HEADER + h->text_len;
	if (size < n)
		return SPOOR_E_NOSPACE;
	memset(out, 0, SPOOR_CAPTURE_HEADER);
	memcpy(out, SPOOR_CAPTURE_MAGIC, 8);
	put16(out + 8, SPOOR_CAPTURE_VERSION);
	put32(out + 12, (uint32_t)h->text_len);
	put64(out + 16, h->start_ns);
	out[24] = (uint8_t)h->encap.kind;
	out[25] = (uint8_t)h->encap.src_bits;
	out[26] = (uint8_t)h->encap.ts_bytes;
	out[27] = (uint8_t)h->encap.type_bits;
	out[28] = (uint8_t)h->encap.type_te_inst;
	out[29] = (uint8_t)h->encap.type_te_data;
	if (h->text_len)
		memcpy(out + SPOOR_CAPTURE_HEADER, h->text, h->text_len);
	crc = spoor_probe_crc32(0, out, 60);
	crc = spoor_probe_crc32(crc, out + SPOOR_CAPTURE_HEADER, h->text_len);
	put32(out + 60, crc);
	return (int)n;
}

int spoor_capture_header_decode(const uint8_t *buf, size_t len, struct spoor_capture_header *h)
{
	size_t text_len;
	uint32_t crc;

	if (!buf || !h)
		return SPOOR_E_INVAL;
	if (len < 8)
		return memcmp(buf, SPOOR_CAPTURE_MAGIC, len) ? 0 : SPOOR_E_TRUNCATED;
	if (memcmp(buf, SPOOR_CAPTURE_MAGIC, 8))
		return 0;
	if (len < SPOOR_CAPTURE_HEADER)
		return SPOOR_E_TRUNCATED;
	text_len = get32(buf + 12);
	if (text_len > SPOOR_CAPTURE_MAX_TEXT)
		return SPOOR_E_BAD_FIELD;
	if (len < SPOOR_CAPTURE_HEADER + text_len)
		return SPOOR_E_TRUNCATED;
	crc = spoor_probe_crc32(0, buf, 60);
	crc = spoor_probe_crc32(crc, buf + SPOOR_CAPTURE_HEADER, text_len);
	if (crc != get32(buf + 60))
		return SPOOR_E_CHECKSUM;
	if (get16(buf + 8) != SPOOR_CAPTURE_VERSION)
		return SPOOR_E_BAD_FORMAT;
	memset(h, 0, sizeof(*h));
	h->version = get16(buf + 8);
	h->start_ns = get64(buf + 16);
	if (buf[24] > SPOOR_ENCAP_ETRACE)
		return SPOOR_E_BAD_FIELD;
	spoor_encap_config_init(&h->encap, (enum spoor_encap_kind)buf[24]);
	h->encap.src_bits = buf[25];
	h->encap.ts_bytes = buf[26];
	h->encap.type_bits = buf[27];
	h->encap.type_te_inst = buf[28];
	h->encap.type_te_data = buf[29];
	if (spoor_encap_config_check(&h->encap))
		return SPOOR_E_BAD_FIELD;
	h->text = (const char *)buf + SPOOR_CAPTURE_HEADER;
	h->text_len = text_len;
	return (int)(SPOOR_CAPTURE_HEADER + text_len);
}

/* Payload bytes of a record of @type carrying @len DATA bytes. */
static size_t payload_len(enum spoor_capture_type type, size_t len)
{
	return type == SPOOR_CAPTURE_DATA ? len : 8;
}

size_t spoor_capture_record_size(const struct spoor_capture_record *r)
{
	return SPOOR_CAPTURE_RECORD + payload_len(r->type, r->len) + SPOOR_CAPTURE_TRAILER;
}

int spoor_capture_record_encode(const struct spoor_capture_record *r, uint8_t *out, size_t size)
{
	size_t plen, n;

	if (!r || !out || (r->type != SPOOR_CAPTURE_DATA && r->type != SPOOR_CAPTURE_LOSS &&
			   r->type != SPOOR_CAPTURE_END) ||
	    (r->type == SPOOR_CAPTURE_DATA && (r->len > SPOOR_CAPTURE_MAX_PAYLOAD ||
					       (r->len && !r->payload))))
		return SPOOR_E_INVAL;
	plen = payload_len(r->type, r->len);
	n = SPOOR_CAPTURE_RECORD + plen + SPOOR_CAPTURE_TRAILER;
	if (size < n)
		return SPOOR_E_NOSPACE;
	memset(out, 0, SPOOR_CAPTURE_RECORD);
	out[0] = (uint8_t)r->type;
	put32(out + 4, (uint32_t)plen);
	put64(out + 8, r->time_ns);
	put64(out + 16, r->offset);
	if (r->type == SPOOR_CAPTURE_DATA) {
		if (plen)
			memcpy(out + SPOOR_CAPTURE_RECORD, r->payload, plen);
	} else {
		put64(out + SPOOR_CAPTURE_RECORD, r->count);
	}
	put32(out + SPOOR_CAPTURE_RECORD + plen,
	      spoor_probe_crc32(0, out, SPOOR_CAPTURE_RECORD + plen));
	return (int)n;
}

int spoor_capture_record_decode(const uint8_t *buf, size_t len, struct spoor_capture_record *r)
{
	size_t plen;
	unsigned type;

	if (!buf || !r)
		return SPOOR_E_INVAL;
	if (len < SPOOR_CAPTURE_RECORD)
		return SPOOR_E_TRUNCATED;
	type = buf[0];
	plen = get32(buf + 4);
	if ((type != SPOOR_CAPTURE_DATA && type != SPOOR_CAPTURE_LOSS && type != SPOOR_CAPTURE_END) ||
	    buf[1] || buf[2] || buf[3] || (type == SPOOR_CAPTURE_DATA ?
					   plen > SPOOR_CAPTURE_MAX_PAYLOAD : plen != 8))
		return SPOOR_E_BAD_FIELD;
	if (len < SPOOR_CAPTURE_RECORD + plen + SPOOR_CAPTURE_TRAILER)
		return SPOOR_E_TRUNCATED;
	if (get32(buf + SPOOR_CAPTURE_RECORD + plen) !=
	    spoor_probe_crc32(0, buf, SPOOR_CAPTURE_RECORD + plen))
		return SPOOR_E_CHECKSUM;
	memset(r, 0, sizeof(*r));
	r->type = (enum spoor_capture_type)type;
	r->time_ns = get64(buf + 8);
	r->offset = get64(buf + 16);
	if (type == SPOOR_CAPTURE_DATA) {
		r->payload = buf + SPOOR_CAPTURE_RECORD;
		r->len = plen;
	} else {
		r->count = get64(buf + SPOOR_CAPTURE_RECORD);
	}
	return (int)(SPOOR_CAPTURE_RECORD + plen + SPOOR_CAPTURE_TRAILER);
}
