/* SPDX-License-Identifier: MIT */
/*
 * The spoor trace probe's USB protocol (probe/PROTOCOL.md): identifiers,
 * vendor control requests and their little-endian payloads, the records of
 * the bulk IN stream, and the firmware image header.  Shared by the
 * firmware core and the host; pure, no I/O.
 *
 * The bulk stream is a sequence of records, each a 4-byte header
 * (type, sequence number, 16-bit payload length) and its payload: trace
 * bytes (DATA), a loss (OVERFLOW: where in the trace and how many bytes),
 * or the end of a capture (END: its byte count).  The decoder hands DATA
 * payloads out in place, a record split over transfers in pieces.
 */
#ifndef SPOOR_PROBE_H
#define SPOOR_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* pid.codes' vendor ID and a PID from its test range: a placeholder, configurable. */
#define SPOOR_PROBE_VID 0x1209
#define SPOOR_PROBE_PID 0x0001
#define SPOOR_PROBE_PROTOCOL_VERSION 0x0100	/* 1.0 */

/* Interfaces and the bulk IN endpoint of the trace stream. */
#define SPOOR_PROBE_IF_TRACE 0		/* vendor-specific: requests below, bulk IN */
#define SPOOR_PROBE_IF_DFU 1		/* USB DFU 1.1 (class FE, subclass 01) */
#define SPOOR_PROBE_EP_TRACE 0x81
/* bmRequestType of the vendor requests (to the interface), IN and OUT. */
#define SPOOR_PROBE_REQTYPE_IN 0xc1
#define SPOOR_PROBE_REQTYPE_OUT 0x41
/* bmRequestType of the DFU class requests (to interface SPOOR_PROBE_IF_DFU). */
#define SPOOR_PROBE_DFU_REQTYPE_IN 0xa1
#define SPOOR_PROBE_DFU_REQTYPE_OUT 0x21

/* Vendor control requests (bmRequestType: vendor, interface). */
enum spoor_probe_request {
	SPOOR_PROBE_GET_INFO = 0x01,	/* IN: struct spoor_probe_info */
	SPOOR_PROBE_SET_CONFIG = 0x02,	/* OUT: struct spoor_probe_config */
	SPOOR_PROBE_START = 0x03,	/* no data */
	SPOOR_PROBE_STOP = 0x04,	/* no data: the stream ends with an END record */
	SPOOR_PROBE_GET_STATUS = 0x05,	/* IN: struct spoor_probe_status */
};

enum spoor_probe_caps {
	SPOOR_PROBE_CAP_DDR = 1 << 0,
	SPOOR_PROBE_CAP_FALLING_EDGE = 1 << 1,
	SPOOR_PROBE_CAP_DFU = 1 << 2,
	SPOOR_PROBE_CAP_TIMESTAMPS = 1 << 3,
};

#define SPOOR_PROBE_SERIAL_MAX 32
#define SPOOR_PROBE_INFO_SIZE 52
struct spoor_probe_info {
	uint16_t protocol_version;
	uint32_t firmware_version;	/* major << 16 | minor << 8 | patch */
	uint32_t target;		/* the hardware (SPOOR_PROBE_TARGET_*): the images it takes */
	uint32_t capabilities;		/* enum spoor_probe_caps */
	uint32_t buffer_size;		/* bytes of capture buffer */
	uint16_t port_widths;		/* bit n: a port n + 1 bits wide is supported */
	char serial[SPOOR_PROBE_SERIAL_MAX + 1];	/* NUL-terminated */
};

enum spoor_probe_config_flags {
	SPOOR_PROBE_CFG_DDR = 1 << 0,		/* both clock edges */
	SPOOR_PROBE_CFG_FALLING = 1 << 1,	/* sample on the falling edge (SDR) */
};

#define SPOOR_PROBE_CONFIG_SIZE 8
struct spoor_probe_config {
	uint8_t port_width;	/* 1, 2, 4, 8 or 16 */
	uint8_t flags;		/* enum spoor_probe_config_flags */
	uint8_t encap;		/* enum spoor_encap_kind */
	uint8_t src_bits, ts_bytes, type_bits;	/* the encapsulation's options */
};

enum spoor_probe_state {
	SPOOR_PROBE_IDLE = 0,
	SPOOR_PROBE_CAPTURING = 1,
	SPOOR_PROBE_STOPPING = 2,	/* draining the buffer after STOP */
};

#define SPOOR_PROBE_STATUS_SIZE 32
struct spoor_probe_status {
	uint32_t state;			/* enum spoor_probe_state */
	uint64_t bytes_captured;	/* trace bytes taken from the port, lost ones included */
	uint64_t bytes_lost;		/* of those, dropped when the buffer was full */
	uint32_t overflows;		/* times it was full */
	uint32_t high_water;		/* most bytes the buffer held */
	uint32_t reserved;
};

/*
 * Writes @in's wire form into @out (at least the SIZE above).  Returns the
 * size, or SPOOR_E_INVAL (a bad value: port width, serial too long).
 */
int spoor_probe_info_encode(const struct spoor_probe_info *in, uint8_t *out);
int spoor_probe_config_encode(const struct spoor_probe_config *in, uint8_t *out);
int spoor_probe_status_encode(const struct spoor_probe_status *in, uint8_t *out);

/*
 * Reads @len bytes of wire form into @out.  Returns 0, or SPOOR_E_TRUNCATED
 * (too short) / SPOOR_E_BAD_FIELD (an impossible value: an unsupported port
 * width or flags, a serial without its NUL, an unknown state).
 */
int spoor_probe_info_decode(const uint8_t *buf, size_t len, struct spoor_probe_info *out);
int spoor_probe_config_decode(const uint8_t *buf, size_t len, struct spoor_probe_config *out);
int spoor_probe_status_decode(const uint8_t *buf, size_t len, struct spoor_probe_status *out);

/* ---- the bulk stream ------------------------------------------------------ */

enum spoor_probe_record_type {
	SPOOR_PROBE_REC_DATA = 0xa5,		/* trace bytes */
	SPOOR_PROBE_REC_OVERFLOW = 0xa6,	/* u64 trace offset, u32 bytes lost */
	SPOOR_PROBE_REC_END = 0xa7,		/* u64 trace bytes of the capture */
};

#define SPOOR_PROBE_REC_HEADER 4
#define SPOOR_PROBE_REC_MAX 16384		/* payload bytes of one record at most */
#define SPOOR_PROBE_OVERFLOW_SIZE 12
#define SPOOR_PROBE_END_SIZE 8

/*
 * Writes a record header for @len payload bytes of @type with sequence
 * number @seq into @out.  Returns SPOOR_PROBE_REC_HEADER or SPOOR_E_INVAL.
 */
int spoor_probe_record_header(uint8_t type, uint8_t seq, size_t len, uint8_t *out);

/* Writes a whole OVERFLOW / END record (header and payload) into @out; returns its size. */
int spoor_probe_overflow_record(uint8_t seq, uint64_t offset, uint32_t lost, uint8_t *out);
int spoor_probe_end_record(uint8_t seq, uint64_t total, uint8_t *out);

enum spoor_probe_item_kind {
	SPOOR_PROBE_ITEM_DATA = 1,	/* trace bytes: data/len, at trace offset */
	SPOOR_PROBE_ITEM_OVERFLOW,	/* lost bytes at trace offset */
	SPOOR_PROBE_ITEM_END,		/* the capture ended, offset = its size; the next
					 * capture's trace offsets start from 0 */
	/*
	 * The stream is not well formed at stream_offset (reason): a bad
	 * record type or length, a sequence number out of order (records
	 * lost between probe and host), an OVERFLOW/END that disagrees with
	 * the bytes seen.  The decoder skips to the next plausible header;
	 * offset is the trace offset the stream goes on from.
	 */
	SPOOR_PROBE_ITEM_ERROR,
};

struct spoor_probe_item {
	enum spoor_probe_item_kind kind;
	uint64_t stream_offset;		/* offset of the item in the USB byte stream */
	uint64_t offset;		/* offset in the trace (DATA, OVERFLOW, END) */
	const uint8_t *data;		/* DATA: in the chunk fed */
	size_t len;			/* DATA: bytes */
	uint64_t lost;			/* OVERFLOW: bytes lost */
	int reason;			/* ERROR: negative spoor_error */
};

struct spoor_probe_stream;

/* Returns a new stream decoder, or NULL. */
struct spoor_probe_stream *spoor_probe_stream_new(void);
void spoor_probe_stream_free(struct spoor_probe_stream *s);

/*
 * Sets the next chunk (kept by the caller until next() returns 0).
 * Returns 0 or SPOOR_E_INVAL (the last chunk is not consumed).
 */
int spoor_probe_stream_feed(struct spoor_probe_stream *s, const uint8_t *buf, size_t len);

/*
 * Returns the next item's kind (@item filled; data valid until the next
 * call), 0 when the chunk is consumed, or SPOOR_E_INVAL.  @size is
 * sizeof(*item) as the caller knows it.
 */
int spoor_probe_stream_next(struct spoor_probe_stream *s, struct spoor_probe_item *item,
			    size_t size);

/* ---- the TCP binding ------------------------------------------------------ */
/*
 * The sim port's TCP service and the host's tcp: transport carry the same
 * requests and bulk stream as USB.  Host to probe: a request, the 8-byte USB
 * SETUP packet then, for an OUT request, its wLength data bytes.  Probe to
 * host: messages, each an 8-byte header (u8 kind, u8 status, u16 zero, u32
 * length) and length bytes: the reply to the last request (kind CONTROL,
 * status ACK with the IN data, or STALL with none), or bulk IN bytes (kind
 * BULK, the records above, cut anywhere) sent whenever the probe has them.
 */
#define SPOOR_PROBE_SETUP_SIZE 8
#define SPOOR_PROBE_MSG_HEADER 8
#define SPOOR_PROBE_MSG_MAX (1u << 20)		/* bytes of one message's payload at most */

struct spoor_probe_setup {
	uint8_t request_type;	/* bmRequestType: bit 7 IN */
	uint8_t request;	/* bRequest */
	uint16_t value, index, length;	/* wValue, wIndex, wLength */
};

enum spoor_probe_msg_kind {
	SPOOR_PROBE_MSG_CONTROL = 0x43,	/* 'C': the reply to the last request */
	SPOOR_PROBE_MSG_BULK = 0x42,	/* 'B': bulk IN bytes */
};

enum spoor_probe_msg_status {
	SPOOR_PROBE_ACK = 0,
	SPOOR_PROBE_STALL = 1,
};

struct spoor_probe_msg {
	uint8_t kind;		/* enum spoor_probe_msg_kind */
	uint8_t status;		/* enum spoor_probe_msg_status (CONTROL) */
	uint32_t length;	/* payload bytes that follow */
};

/* Writes / reads the 8-byte SETUP packet.  Returns its size / 0, or SPOOR_E_INVAL / SPOOR_E_TRUNCATED. */
int spoor_probe_setup_encode(const struct spoor_probe_setup *in, uint8_t *out);
int spoor_probe_setup_decode(const uint8_t *buf, size_t len, struct spoor_probe_setup *out);

/*
 * Writes / reads a message header.  Returns its size / 0, or SPOOR_E_INVAL,
 * SPOOR_E_TRUNCATED, SPOOR_E_BAD_FIELD (an unknown kind or status, nonzero
 * reserved bytes) / SPOOR_E_TOO_BIG (longer than SPOOR_PROBE_MSG_MAX).
 */
int spoor_probe_msg_encode(const struct spoor_probe_msg *in, uint8_t *out);
int spoor_probe_msg_decode(const uint8_t *buf, size_t len, struct spoor_probe_msg *out);

/*
 * Takes the probe's side of a TCP binding connection apart, in chunks of
 * any size: the caller keeps a struct spoor_probe_msg_split (zeroed to
 * start) and calls spoor_probe_msg_split() until it returns 0.
 */
struct spoor_probe_msg_split {
	uint8_t hdr[SPOOR_PROBE_MSG_HEADER];
	size_t have;			/* header bytes held */
	struct spoor_probe_msg msg;	/* the message being read (have full) */
	uint32_t left;			/* its payload bytes still to come */
	uint64_t offset;		/* stream bytes taken so far */
};

enum spoor_probe_split_kind {
	SPOOR_PROBE_SPLIT_HEADER = 1,	/* a message begins: *msg */
	SPOOR_PROBE_SPLIT_PAYLOAD,	/* @len bytes of its payload at @data (in the chunk) */
	SPOOR_PROBE_SPLIT_END,		/* the message is complete */
};

/*
 * Takes what comes next from *@buf / *@len (advancing them).  Returns
 * enum spoor_probe_split_kind with @msg (HEADER, PAYLOAD, END: the
 * message's header) and @data / @n (PAYLOAD) filled, 0 when the chunk is
 * used up, or a negative error from spoor_probe_msg_decode() (the stream is
 * not well formed at @s->offset: nothing after it can be trusted).
 */
int spoor_probe_msg_split(struct spoor_probe_msg_split *s, const uint8_t **buf, size_t *len,
			  struct spoor_probe_msg *msg, const uint8_t **data, size_t *n);

/* ---- firmware images -------------------------------------------------------- */

#define SPOOR_PROBE_IMAGE_MAGIC 0x50524f53u	/* "SORP" little-endian: 'S','O','R','P' */
#define SPOOR_PROBE_IMAGE_HEADER 24

struct spoor_probe_image {
	uint32_t target;	/* the hardware it is for (SPOOR_PROBE_TARGET_*) */
	uint32_t version;	/* as firmware_version */
	uint32_t length;	/* bytes after the header */
	uint32_t crc32;		/* of those bytes */
};

#define SPOOR_PROBE_TARGET_SIM 0x53494d31u	/* the sim port */

/* CRC-32 (IEEE 802.3, as zlib's crc32()) of @len bytes, continuing @crc (0 to start). */
uint32_t spoor_probe_crc32(uint32_t crc, const void *buf, size_t len);

/* Writes the 24-byte header of @img (magic, target, version, length, crc32, header crc). */
int spoor_probe_image_header(const struct spoor_probe_image *img, uint8_t *out);

/*
 * Checks image @buf (@len bytes: header and body) for @target: magic,
 * header CRC, target, length and body CRC.  Fills @img.  Returns 0, or
 * SPOOR_E_TRUNCATED, SPOOR_E_BAD_HEADER (magic or header CRC),
 * SPOOR_E_BAD_CONFIG (another target), SPOOR_E_BAD_LENGTH, SPOOR_E_CHECKSUM.
 */
int spoor_probe_image_check(const uint8_t *buf, size_t len, uint32_t target,
			    struct spoor_probe_image *img);

#ifdef __cplusplus
}
#endif

#endif /* SPOOR_PROBE_H */
