/* SPDX-License-Identifier: MIT */
/*
 * Capture files (host/CAPTURE.md): a header, then self-checking records
 * appended one by one while a capture runs, so that a crash or an unplugged
 * probe loses at most the record being written, and a cut file still reads
 * to its last whole record.  This is the pure codec (no I/O); the file
 * reader and writer are libspoor's (spoor/capture_file.h).
 *
 * Header (little-endian): "SPOORCAP", u16 version, u16 reserved, u32 text
 * length, u64 start time (ns since the epoch), u8 encapsulation kind,
 * src_bits, ts_bytes, type_bits, type of te_inst, type of te_data, 30
 * reserved bytes, u32 CRC-32 of the first 60 bytes and the text; then the text: "key=value" lines (board,
 * probe, serial, firmware, parameters ...).
 *
 * Record: u8 type, 3 reserved bytes, u32 payload length, u64 time (ns since
 * the start), u64 trace offset (of the payload's first byte, lost bytes
 * counted), the payload, u32 CRC-32 of all that.  DATA: trace bytes; LOSS:
 * u64 number of trace bytes lost at the offset; END: u64 total trace bytes.
 */
#ifndef SPOOR_CAPTURE_H
#define SPOOR_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#include "spoor/encap.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SPOOR_CAPTURE_MAGIC "SPOORCAP"
#define SPOOR_CAPTURE_VERSION 1
#define SPOOR_CAPTURE_HEADER 64			/* fixed part */
#define SPOOR_CAPTURE_MAX_TEXT 65536
#define SPOOR_CAPTURE_RECORD 24			/* record header */
#define SPOOR_CAPTURE_TRAILER 4			/* its CRC-32 */
#define SPOOR_CAPTURE_MAX_PAYLOAD (1u << 20)
/* A LOSS record's count when no one knows how many bytes were lost. */
#define SPOOR_CAPTURE_LOST_UNKNOWN UINT64_MAX

enum spoor_capture_type {
	SPOOR_CAPTURE_DATA = 1,
	SPOOR_CAPTURE_LOSS = 2,
	SPOOR_CAPTURE_END = 3,
};

struct spoor_capture_header {
	unsigned version;
	uint64_t start_ns;
	struct spoor_encap_config encap;	/* kind and field widths */
	const char *text;			/* "key=value\n" lines, not NUL-terminated */
	size_t text_len;
};

struct spoor_capture_record {
	enum spoor_capture_type type;
	uint64_t time_ns;
	uint64_t offset;			/* trace offset of the first byte */
	const uint8_t *payload;			/* DATA: the trace bytes */
	size_t len;
	uint64_t count;				/* LOSS: bytes lost; END: total bytes */
};

/*
 * Writes the header of @h into @out (room for @size bytes); returns its
 * length, or SPOOR_E_NOSPACE / SPOOR_E_INVAL (text too long).
 */
int spoor_capture_header_encode(const struct spoor_capture_header *h, uint8_t *out, size_t size);

/*
 * Reads a header from the @len bytes at @buf into @h (text points into
 * @buf).  Returns its length, 0 when @buf does not start with the magic (a
 * raw stream), or SPOOR_E_TRUNCATED (more bytes needed), SPOOR_E_CHECKSUM,
 * SPOOR_E_BAD_FORMAT (unknown version), SPOOR_E_BAD_FIELD (a field with no
 * meaning).
 */
int spoor_capture_header_decode(const uint8_t *buf, size_t len, struct spoor_capture_header *h);

/* Bytes record @r takes in a file (its payload: DATA bytes, or 8 for LOSS and END). */
size_t spoor_capture_record_size(const struct spoor_capture_record *r);

/*
 * Writes record @r into @out (room for @size bytes); returns its length, or
 * SPOOR_E_NOSPACE / SPOOR_E_INVAL (unknown type, payload too long).
 */
int spoor_capture_record_encode(const struct spoor_capture_record *r, uint8_t *out, size_t size);

/*
 * Reads a record from the @len bytes at @buf into @r (payload points into
 * @buf).  Returns its length, or SPOOR_E_TRUNCATED (the bytes end inside
 * it), SPOOR_E_CHECKSUM, SPOOR_E_BAD_FIELD (unknown type, impossible
 * length).
 */
int spoor_capture_record_decode(const uint8_t *buf, size_t len, struct spoor_capture_record *r);

#ifdef __cplusplus
}
#endif

#endif
