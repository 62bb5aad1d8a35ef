/* SPDX-License-Identifier: MIT */
/*
 * Encapsulation codecs: how te_inst payloads are wrapped for transport.
 *
 * All four supported encapsulations share the bit layout of RISC-V
 * E-Trace-Encap 1.0: a header byte (length[4:0], flow[6:5], extend[7]),
 * then, as one LSB-first bit stream, srcID (src_bits), a ts_bytes-byte
 * little-endian timestamp when extend = 1, type (type_bits) and the payload;
 * the body is padded to a byte with the payload's last bit.  header.length
 * counts the body bytes minus whole srcID bytes (src_bits / 8) and minus the
 * timestamp bytes.  A header with length 0 is a null packet (one byte).
 *
 * - SPOOR_ENCAP_RAW: the reference flow's te_inst_raw: no srcID, no
 *   timestamp, no type field; the flow bits carry the message type
 *   (2 = te_inst, 3 = te_data) and extend must be 0.
 * - SPOOR_ENCAP_SIEMENS: Siemens messaging: index (srcID) of src_bits
 *   (default 6), 2-byte timestamp when bit 7 is set, 2-bit type
 *   (2 = te_inst, 3 = te_data).
 * - SPOOR_ENCAP_ATB: ATB-style: no srcID (the transport gives ATID per
 *   chunk), 2-byte timestamp when bit 7 is set, no type field.
 * - SPOOR_ENCAP_ETRACE: E-Trace-Encap with S, T, Y from the configuration
 *   (type 0 = te_inst, 1 = te_data).
 * Pure: no I/O, no globals.
 */
#ifndef SPOOR_ENCAP_H
#define SPOOR_ENCAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum spoor_encap_kind {
	SPOOR_ENCAP_RAW,
	SPOOR_ENCAP_SIEMENS,
	SPOOR_ENCAP_ATB,
	SPOOR_ENCAP_ETRACE,
};

/* What a frame carries. */
enum spoor_msg_type {
	SPOOR_MSG_TE_INST,
	SPOOR_MSG_TE_DATA,
	SPOOR_MSG_OTHER,	/* a type value this configuration does not assign */
};

struct spoor_encap_config {
	enum spoor_encap_kind kind;
	unsigned src_bits;	/* S: srcID bits in the frame, 0..16 */
	unsigned ts_bytes;	/* T: timestamp bytes when extend = 1, 0..8 */
	unsigned type_bits;	/* Y: type bits, 0..8 */
	unsigned type_te_inst;	/* type value of te_inst packets */
	unsigned type_te_data;	/* type value of te_data packets */
};

/* Largest frame on the wire: header, 2 srcID bytes, 8 timestamp bytes, 31 bytes. */
#define SPOOR_FRAME_MAX 42
/* Largest payload a frame carries. */
#define SPOOR_FRAME_PAYLOAD_MAX 31

struct spoor_frame {
	uint64_t offset;	/* stream offset of the header byte */
	uint32_t size;		/* bytes on the wire, header included */
	uint32_t source;	/* srcID, or ATID for ATB */
	uint8_t flow;		/* header flow bits (message type for RAW) */
	uint8_t type;		/* type value as transmitted (RAW: the flow bits) */
	uint8_t msg;		/* enum spoor_msg_type */
	bool has_timestamp;
	uint64_t timestamp;
	uint32_t payload_len;	/* payload bytes */
	uint32_t payload_room;	/* bytes readable from payload on (>= payload_len) */
	const uint8_t *payload;	/* valid until the producer's next call */
};

/* Fills @cfg with the defaults of @kind (see above).  Returns 0 or SPOOR_E_INVAL. */
int spoor_encap_config_init(struct spoor_encap_config *cfg, enum spoor_encap_kind kind);

/* Checks @cfg's ranges.  Returns 0 or SPOOR_E_INVAL. */
int spoor_encap_config_check(const struct spoor_encap_config *cfg);

/* Parses "raw", "siemens", "atb" or "etrace-encap".  Returns 0 or SPOOR_E_INVAL. */
int spoor_encap_kind_parse(const char *name, enum spoor_encap_kind *kind);
const char *spoor_encap_kind_name(enum spoor_encap_kind kind);

/*
 * Total size on the wire of the frame whose first byte is @header: 1 for a
 * null packet, else 1 + whole srcID bytes + timestamp bytes + length.
 * Returns the size, or SPOOR_E_BAD_HEADER (RAW with bit 7 set or a type
 * other than te_inst/te_data; extend = 1 without a timestamp) or
 * SPOOR_E_BAD_LENGTH (length too short for srcID and type bits).
 */
int spoor_encap_frame_size(const struct spoor_encap_config *cfg, uint8_t header);

/*
 * Ends a payload being realigned to a byte boundary: @whole bytes, then
 * @rest (0..7) leftover bits in the low bits of payload[whole].  Leftover
 * bits that only repeat the MSB of the last whole byte are padding; others
 * make one more byte, padded with their last bit (written back).  Returns
 * the payload length.
 */
uint32_t spoor_encap_payload_end(uint8_t *payload, unsigned whole, unsigned rest);

/* The message type that the type value @type (RAW: the flow bits) stands for under @cfg. */
enum spoor_msg_type spoor_encap_msg_type(const struct spoor_encap_config *cfg, unsigned type);

/*
 * Decodes the complete frame @buf[0..@len) (len = spoor_encap_frame_size()).
 * The payload is realigned to a byte boundary into @scratch (at least
 * SPOOR_FRAME_PAYLOAD_MAX + 1 bytes) unless it already starts on one, in
 * which case frm->payload points into @buf.  Padding bits beyond the
 * payload's last byte are dropped when they only repeat its last bit.
 * frm->type is 0 when there is no type field.  frm->offset is left to the
 * caller.  Returns 0, SPOOR_E_INVAL (also for a null packet, which is no
 * frame), SPOOR_E_BAD_HEADER or SPOOR_E_BAD_LENGTH.
 */
int spoor_encap_decode(const struct spoor_encap_config *cfg, const uint8_t *buf, size_t len,
		       struct spoor_frame *frm, uint8_t *scratch);

/*
 * Encodes one frame carrying frm->payload (payload_len bytes), frm->source,
 * frm->flow, frm->msg (or frm->type when msg is SPOOR_MSG_OTHER) and, when
 * frm->has_timestamp, frm->timestamp into @out (capacity @cap).
 * The payload is sent as payload_len * 8 bits.  Returns the frame size, or
 * SPOOR_E_INVAL (also: a srcID wider than S, a timestamp with T = 0, a
 * message other than te_inst without a type field), SPOOR_E_TOO_LONG (length
 * field overflow), SPOOR_E_NOSPACE.
 */
int spoor_encap_encode(const struct spoor_encap_config *cfg, const struct spoor_frame *frm,
		       uint8_t *out, size_t cap);

/*
 * Writes a synchronisation sequence for @cfg into @out: for ETRACE,
 * 31 + T + S/8 null.idle bytes then one null.alignment (0x80); otherwise
 * @zero_run zero bytes (0: the default run, see spoor_encap_sync_run()).
 * Returns its length, or SPOOR_E_NOSPACE.
 */
int spoor_encap_sync_sequence(const struct spoor_encap_config *cfg, unsigned zero_run,
			      uint8_t *out, size_t cap);

/*
 * Default number of null bytes after which the next non-null byte starts a
 * packet: ETRACE: 31 + T + S/8 bytes whose length field is 0 (the spec's N);
 * others: 2^5 = 32 zero bytes, raised to one more than the longest zero run
 * a frame can contain when timestamps or srcID bytes lengthen frames.
 */
unsigned spoor_encap_sync_run(const struct spoor_encap_config *cfg);

/*
 * Widens a frame's timestamp @stamp (its low 8 * cfg->ts_bytes bits count)
 * to 64 bits after @prev, the widened value of the source's previous
 * stamped frame (@have false: none yet, the stamp is taken as it is): the
 * counter moves forward modulo its width, so one that wrapped between two
 * stamped frames moves on, never back.  Returns the widened time; @stamp
 * itself when the configuration has no timestamp bytes.
 */
uint64_t spoor_encap_time_widen(const struct spoor_encap_config *cfg, uint64_t prev, bool have,
				uint64_t stamp);

#ifdef __cplusplus
}
#endif

#endif /* SPOOR_ENCAP_H */
