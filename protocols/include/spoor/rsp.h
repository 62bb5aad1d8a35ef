/* SPDX-License-Identifier: MIT */
/*
 * GDB Remote Serial Protocol framing, pure and streaming (no I/O): the
 * bytes of one direction of a GDB connection in, items out.
 *
 *   $body#cc   a packet: cc is the modulo-256 sum of the body's bytes as
 *              sent, two hex digits
 *   %body#cc   a notification (stop notifications in non-stop mode)
 *   +  -       acknowledgements (until QStartNoAckMode)
 *   0x03       an interrupt request (Ctrl-C), outside a packet
 *
 * Inside a body, '}' escapes the next byte (sent as byte ^ 0x20: used for
 * '$', '#', '}' and '*' in binary data), and "x*n" repeats x (n - 29)
 * times (run-length encoding, n a printable byte from ' ' + 3 on, never
 * '#' or '$').  The decoder hands out the body with both undone, and the
 * packet's bytes as they came (for a proxy that forwards them unchanged).
 * Buffers are bounded: a body longer than the configured limit is an
 * error item, the decoder skips to the packet's end and goes on.
 */
#ifndef SPOOR_RSP_H
#define SPOOR_RSP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* GDB's PacketSize for spoor's own replies, and the default decode limit. */
#define SPOOR_RSP_DEFAULT_MAX 0x4000

struct spoor_rsp_config {
	size_t max_packet;	/* longest body accepted (decoded), 0 = SPOOR_RSP_DEFAULT_MAX */
};

enum spoor_rsp_kind {
	SPOOR_RSP_PACKET = 1,	/* $body#cc with a matching checksum */
	SPOOR_RSP_NOTIFY,	/* %body#cc with a matching checksum */
	SPOOR_RSP_ACK,		/* + */
	SPOOR_RSP_NAK,		/* - (resend) */
	SPOOR_RSP_INTERRUPT,	/* 0x03 outside a packet */
	/*
	 * A packet that cannot be taken: reason SPOOR_E_CHECKSUM (a receiver
	 * in ack mode answers '-'), SPOOR_E_TOO_LONG (body above the limit),
	 * SPOOR_E_PROTOCOL (bad checksum digits, bad escape or run length,
	 * '$' inside a packet: the new packet starts there), or bytes outside
	 * any packet (junk, reported once per run of them).
	 */
	SPOOR_RSP_ERROR,
};

struct spoor_rsp_item {
	enum spoor_rsp_kind kind;
	uint64_t offset;	/* stream offset of the item's first byte */
	const uint8_t *data;	/* PACKET/NOTIFY: the decoded body (NUL after it) */
	size_t len;
	const uint8_t *raw;	/* PACKET/NOTIFY/ERROR: the bytes as received ($...#cc) */
	size_t raw_len;		/* (ERROR for an oversized packet: its first bytes only) */
	int reason;		/* ERROR: negative spoor_error */
};

struct spoor_rsp_decoder;

/* Returns a new decoder, or NULL (no memory). @cfg may be NULL (defaults). */
struct spoor_rsp_decoder *spoor_rsp_decoder_new(const struct spoor_rsp_config *cfg);
void spoor_rsp_decoder_free(struct spoor_rsp_decoder *dec);

/* Forgets any partial packet (a new connection).  The offset restarts at 0. */
void spoor_rsp_decoder_reset(struct spoor_rsp_decoder *dec);

/*
 * Sets the next chunk of input (the caller keeps it until next() returns
 * 0).  Returns 0, or SPOOR_E_INVAL (the previous chunk is not consumed).
 */
int spoor_rsp_feed(struct spoor_rsp_decoder *dec, const uint8_t *buf, size_t len);

/*
 * Returns the next item's kind (@item filled; data and raw valid until the
 * next call), 0 when the chunk is consumed, or SPOOR_E_INVAL.  @size is
 * sizeof(*item) as the caller knows it.
 */
int spoor_rsp_next(struct spoor_rsp_decoder *dec, struct spoor_rsp_item *item, size_t size);

/* Bytes a body of @len bytes can take framed ($, escapes, #cc). */
static inline size_t spoor_rsp_frame_bound(size_t len)
{
	return 2 * len + 4;
}

/*
 * Frames @len bytes of @body as "$body#cc" (@lead '$') or "%body#cc"
 * (@lead '%') into @out, escaping '$', '#', '}' and '*'; no run-length
 * encoding.  Returns the framed length, or SPOOR_E_NOSPACE / SPOOR_E_INVAL.
 */
int spoor_rsp_frame(char lead, const void *body, size_t len, uint8_t *out, size_t room);

/*
 * Lower-case hex of @n bytes into @out (2n characters, no NUL).  Returns 2n.
 */
size_t spoor_rsp_hex(const void *bytes, size_t n, char *out);

/*
 * Parses @len hex digits (even, either case) into @out.  Returns the bytes
 * written, or SPOOR_E_PROTOCOL (odd length, not hex) / SPOOR_E_NOSPACE.
 */
int spoor_rsp_unhex(const char *hex, size_t len, uint8_t *out, size_t room);

#ifdef __cplusplus
}
#endif

#endif /* SPOOR_RSP_H */
