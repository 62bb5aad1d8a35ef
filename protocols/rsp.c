// SPDX-License-Identifier: MIT
/*
 * GDB Remote Serial Protocol framing: a byte-at-a-time state machine with
 * bounded buffers (see rsp.h).  Written here rather than taken from a
 * library: Debian packages none that frames RSP without also being a
 * debugger or a stub.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "spoor/error.h"
#include "spoor/rsp.h"

enum rsp_state {
	ST_IDLE,	/* outside packets */
	ST_BODY,	/* in a body */
	ST_ESC,		/* after '}' */
	ST_RLE,		/* after '*': the count comes */
	ST_SUM1,	/* after '#' */
	ST_SUM2,
};

struct spoor_rsp_decoder {
	size_t max;		/* body limit */
	size_t raw_max;		/* raw limit */
	uint8_t *body;		/* decoded body, max + 1 */
	size_t len;
	uint8_t *raw;		/* as received, raw_max */
	size_t raw_len;
	uint8_t *junk;		/* a run of bytes outside packets (up to max) */
	size_t junk_len;
	uint64_t junk_offset;
	enum rsp_state state;
	char lead;		/* '$' or '%' */
	uint8_t sum;		/* running checksum of the body as sent */
	uint8_t sent_sum;	/* the checksum's first digit */
	int error;		/* the first problem in this packet, reported at its end */
	uint64_t pkt_offset;	/* stream offset of the lead byte */
	uint64_t offset;	/* stream offset of the next byte */
	const uint8_t *buf;	/* the chunk */
	size_t pos, buf_len;
};

struct spoor_rsp_decoder *spoor_rsp_decoder_new(const struct spoor_rsp_config *cfg)
{
	struct spoor_rsp_decoder *d = calloc(1, sizeof(*d));
	size_t max = cfg && cfg->max_packet ? cfg->max_packet : SPOOR_RSP_DEFAULT_MAX;

	if (!d || max > SIZE_MAX / 4)
		goto fail;
	d->max = max;
	d->raw_max = 2 * max + 4;
	d->body = malloc(max + 1);
	d->raw = malloc(d->raw_max);
	d->junk = malloc(max);
	if (!d->body || !d->raw || !d->junk)
		goto fail;
	return d;
fail:
	spoor_rsp_decoder_free(d);
	return NULL;
}

void spoor_rsp_decoder_free(struct spoor_rsp_decoder *d)
{
	if (!d)
		return;
	free(d->body);
	free(d->raw);
	free(d->junk);
	free(d);
}

void spoor_rsp_decoder_reset(struct spoor_rsp_decoder *d)
{
	if (!d)
		return;
	d->state = ST_IDLE;
	d->len = d->raw_len = d->junk_len = 0;
	d->error = 0;
	d->offset = 0;
	d->buf = NULL;
	d->pos = d->buf_len = 0;
}

int spoor_rsp_feed(struct spoor_rsp_decoder *d, const uint8_t *buf, size_t len)
{
	if (!d || (!buf && len) || d->pos < d->buf_len)
		return SPOOR_E_INVAL;
	d->buf = buf;
	d->buf_len = len;
	d->pos = 0;
	return 0;
}

/* Returns the value of hex digit @c, or -1. */
static int hexval(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Records the first problem of the packet being read. */
static void problem(struct spoor_rsp_decoder *d, int err)
{
	if (!d->error)
		d->error = err;
}

/* Appends @c to the decoded body (or notes it is too long). */
static void body_add(struct spoor_rsp_decoder *d, uint8_t c)
{
	if (d->len < d->max)
		d->body[d->len++] = c;
	else
		problem(d, SPOOR_E_TOO_LONG);
}

/* Fills @it with the pending junk run and empties it; returns SPOOR_RSP_ERROR. */
static int junk_item(struct spoor_rsp_decoder *d, struct spoor_rsp_item *it)
{
	it->kind = SPOOR_RSP_ERROR;
	it->offset = d->junk_offset;
	it->raw = d->junk;
	it->raw_len = d->junk_len;
	it->reason = SPOOR_E_PROTOCOL;
	d->junk_len = 0;
	return SPOOR_RSP_ERROR;
}

/* Ends the packet read: fills @it; returns its kind. */
static int packet_item(struct spoor_rsp_decoder *d, struct spoor_rsp_item *it)
{
	d->state = ST_IDLE;
	it->offset = d->pkt_offset;
	it->raw = d->raw;
	it->raw_len = d->raw_len;
	d->body[d->len] = '\0';
	if (d->error) {
		it->kind = SPOOR_RSP_ERROR;
		it->reason = d->error;
		it->data = d->body;
		it->len = d->len;
		return SPOOR_RSP_ERROR;
	}
	it->kind = d->lead == '$' ? SPOOR_RSP_PACKET : SPOOR_RSP_NOTIFY;
	it->data = d->body;
	it->len = d->len;
	return it->kind;
}

/* Starts a packet at lead byte @c. */
static void packet_start(struct spoor_rsp_decoder *d, uint8_t c)
{
	d->state = ST_BODY;
	d->lead = (char)c;
	d->len = 0;
	d->raw[0] = c;
	d->raw_len = 1;
	d->sum = 0;
	d->error = 0;
	d->pkt_offset = d->offset;
}

/* Keeps @c of the packet as received. */
static void raw_add(struct spoor_rsp_decoder *d, uint8_t c)
{
	if (d->raw_len < d->raw_max)
		d->raw[d->raw_len++] = c;
	else
		problem(d, SPOOR_E_TOO_LONG);
}

/*
 * Takes byte @c.  Returns an item kind when @c completed one (@it filled),
 * 0 when not, or -1 when @c must be looked at again (a packet ended
 * before it).
 */
static int step(struct spoor_rsp_decoder *d, uint8_t c, struct spoor_rsp_item *it)
{
	int v;

	switch (d->state) {
	case ST_IDLE:
		if (c == '$' || c == '%' || c == '+' || c == '-' || c == 0x03) {
			if (d->junk_len) {
				junk_item(d, it);
				return -1;	/* reported first, this byte after it */
			}
			if (c == '$' || c == '%') {
				packet_start(d, c);
				return 0;
			}
			it->offset = d->offset;
			it->kind = c == '+' ? SPOOR_RSP_ACK : c == '-' ? SPOOR_RSP_NAK :
				   SPOOR_RSP_INTERRUPT;
			return it->kind;
		}
		if (!d->junk_len)
			d->junk_offset = d->offset;
		if (d->junk_len < d->max)
			d->junk[d->junk_len++] = c;
		return 0;
	case ST_BODY:
		if (c == '$') {
			/* A new packet: this one is abandoned. */
			problem(d, SPOOR_E_PROTOCOL);
			return -1;
		}
		if (c == '#') {
			raw_add(d, c);
			d->state = ST_SUM1;
			return 0;
		}
		raw_add(d, c);
		d->sum = (uint8_t)(d->sum + c);
		if (c == '}') {
			d->state = ST_ESC;
		} else if (c == '*') {
			if (!d->len)
				problem(d, SPOOR_E_PROTOCOL);	/* nothing to repeat */
			d->state = ST_RLE;
		} else {
			body_add(d, c);
		}
		return 0;
	case ST_ESC:
		if (c == '$' || c == '#') {
			problem(d, SPOOR_E_PROTOCOL);
			d->state = ST_BODY;
			return c == '#' ? step(d, c, it) : -1;
		}
		raw_add(d, c);
		d->sum = (uint8_t)(d->sum + c);
		body_add(d, c ^ 0x20);
		d->state = ST_BODY;
		return 0;
	case ST_RLE:
		if (c == '$' || c == '#' || c < ' ' || c > 126) {
			problem(d, SPOOR_E_PROTOCOL);
			d->state = ST_BODY;
			return c == '#' ? step(d, c, it) : c == '$' ? -1 : 0;
		}
		raw_add(d, c);
		d->sum = (uint8_t)(d->sum + c);
		if (d->len)
			for (int n = c - 29; n > 0; n--)
				body_add(d, d->body[d->len - 1]);
		d->state = ST_BODY;
		return 0;
	case ST_SUM1:
	case ST_SUM2:
		if (c == '$') {
			problem(d, SPOOR_E_PROTOCOL);
			return -1;
		}
		raw_add(d, c);
		v = hexval(c);
		if (v < 0)
			problem(d, SPOOR_E_PROTOCOL);
		if (d->state == ST_SUM1) {
			d->sent_sum = (uint8_t)(v < 0 ? 0 : v << 4);
			d->state = ST_SUM2;
			return 0;
		}
		if (v >= 0 && (uint8_t)(d->sent_sum | v) != d->sum)
			problem(d, SPOOR_E_CHECKSUM);
		return packet_item(d, it);
	}
	return 0;
}

int spoor_rsp_next(struct spoor_rsp_decoder *d, struct spoor_rsp_item *item, size_t size)
{
	struct spoor_rsp_item it;
	int k;

	if (!d || !item || !size)
		return SPOOR_E_INVAL;
	memset(&it, 0, sizeof(it));
	while (d->pos < d->buf_len) {
		uint8_t c = d->buf[d->pos];

		k = step(d, c, &it);
		if (k < 0) {
			/* A packet or junk run ended before this byte: report it. */
			if (d->state != ST_IDLE)
				k = packet_item(d, &it);
			else if (it.kind == SPOOR_RSP_ERROR)
				k = SPOOR_RSP_ERROR;
			else
				continue;
			memcpy(item, &it, size < sizeof(it) ? size : sizeof(it));
			return k;
		}
		d->pos++;
		d->offset++;
		if (k > 0) {
			memcpy(item, &it, size < sizeof(it) ? size : sizeof(it));
			return k;
		}
	}
	/* The chunk is consumed: a pending junk run is reported now. */
	if (d->state == ST_IDLE && d->junk_len) {
		k = junk_item(d, &it);
		memcpy(item, &it, size < sizeof(it) ? size : sizeof(it));
		return k;
	}
	return 0;
}

int spoor_rsp_frame(char lead, const void *body, size_t len, uint8_t *out, size_t room)
{
	static const char digits[] = "0123456789abcdef";
	const uint8_t *b = body;
	uint8_t sum = 0;
	size_t n = 0;

	if ((lead != '$' && lead != '%') || !out || (!body && len))
		return SPOOR_E_INVAL;
	if (room < 4)
		return SPOOR_E_NOSPACE;
	out[n++] = (uint8_t)lead;
	for (size_t i = 0; i < len; i++) {
		uint8_t c = b[i];
		bool esc = c == '$' || c == '#' || c == '}' || c == '*';

		if (n + (esc ? 2 : 1) + 3 > room)
			return SPOOR_E_NOSPACE;
		if (esc) {
			out[n++] = '}';
			sum = (uint8_t)(sum + '}');
			c ^= 0x20;
		}
		out[n++] = c;
		sum = (uint8_t)(sum + c);
	}
	out[n++] = '#';
	out[n++] = (uint8_t)digits[sum >> 4];
	out[n++] = (uint8_t)digits[sum & 15];
	return n > (size_t)0x7fffffff ? SPOOR_E_NOSPACE : (int)n;
}

size_t spoor_rsp_hex(const void *bytes, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	const uint8_t *b = bytes;

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	return 2 * n;
}

int spoor_rsp_unhex(const char *hex, size_t len, uint8_t *out, size_t room)
{
	if ((!hex && len) || len % 2)
		return len % 2 ? SPOOR_E_PROTOCOL : SPOOR_E_INVAL;
	if (len / 2 > room)
		return SPOOR_E_NOSPACE;
	for (size_t i = 0; i < len; i += 2) {
		int hi = hexval((uint8_t)hex[i]), lo = hexval((uint8_t)hex[i + 1]);

		if (hi < 0 || lo < 0)
			return SPOOR_E_PROTOCOL;
		out[i / 2] = (uint8_t)(hi << 4 | lo);
	}
	return len / 2 > 0x7fffffff ? SPOOR_E_NOSPACE : (int)(len / 2);
}
