/* SPDX-License-Identifier: MIT */
/*
 * te_inst packet codec (E-Trace v2.0, "Instruction Trace Encoder Output
 * Packets").  Encodes and decodes one packet payload: no encapsulation, no
 * state between packets.  Field widths come from struct spoor_params.
 *
 * Fields are kept exactly as transmitted (masked to their width): notify,
 * updiscon and irreport are the raw bits, and SPOOR_TE_* status flags give
 * what they mean ("set" when a bit differs from the bit before it).
 */
#ifndef SPOOR_TE_INST_H
#define SPOOR_TE_INST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spoor/encap.h"
#include "spoor/params.h"

#ifdef __cplusplus
extern "C" {
#endif

enum spoor_te_format {
	SPOOR_TE_FORMAT_EXT = 0,	/* optional efficiency extensions */
	SPOOR_TE_FORMAT_BRANCH = 1,	/* branch map, maybe differential address */
	SPOOR_TE_FORMAT_ADDR = 2,	/* address only */
	SPOOR_TE_FORMAT_SYNC = 3,	/* synchronisation */
};

/* Format 3 subformats. */
enum spoor_te_sync {
	SPOOR_TE_SYNC_START = 0,
	SPOOR_TE_SYNC_TRAP = 1,
	SPOOR_TE_SYNC_CONTEXT = 2,
	SPOOR_TE_SYNC_SUPPORT = 3,
};

/* Format 0 subformats. */
enum spoor_te_ext {
	SPOOR_TE_EXT_BRANCH_COUNT = 0,
	SPOOR_TE_EXT_JTC = 1,
};

/* Format 0 subformat 0 branch_fmt values. */
enum spoor_te_branch_fmt {
	SPOOR_TE_BFMT_NO_ADDR = 0,
	SPOOR_TE_BFMT_ADDR = 2,
	SPOOR_TE_BFMT_ADDR_FAIL = 3,
};

/* Support packet qual_status values. */
enum spoor_te_qual_status {
	SPOOR_TE_QUAL_NO_CHANGE = 0,
	SPOOR_TE_QUAL_ENDED_REP = 1,
	SPOOR_TE_QUAL_TRACE_LOST = 2,
	SPOOR_TE_QUAL_ENDED_NTR = 3,
};

/*
 * Fields, in the column order of the reference flow's te_inst CSV, then the
 * jump target cache index (not a reference column).
 */
enum spoor_te_field {
	SPOOR_TE_F_FORMAT,
	SPOOR_TE_F_SUBFORMAT,
	SPOOR_TE_F_ADDRESS,
	SPOOR_TE_F_BRANCH,
	SPOOR_TE_F_BRANCHES,
	SPOOR_TE_F_BRANCH_MAP,
	SPOOR_TE_F_BRANCH_COUNT,
	SPOOR_TE_F_BRANCH_FMT,
	SPOOR_TE_F_CONTEXT,
	SPOOR_TE_F_ECAUSE,
	SPOOR_TE_F_IENABLE,
	SPOOR_TE_F_ENCODER_MODE,
	SPOOR_TE_F_INTERRUPT,
	SPOOR_TE_F_IRREPORT,
	SPOOR_TE_F_IRDEPTH,
	SPOOR_TE_F_NOTIFY,
	SPOOR_TE_F_IOPTIONS,
	SPOOR_TE_F_PRIVILEGE,
	SPOOR_TE_F_QUAL_STATUS,
	SPOOR_TE_F_TIME,
	SPOOR_TE_F_THADDR,
	SPOOR_TE_F_TVAL,
	SPOOR_TE_F_UPDISCON,
	SPOOR_TE_F_DENABLE,
	SPOOR_TE_F_DLOSS,
	SPOOR_TE_F_DOPTIONS,
	SPOOR_TE_F_INDEX,
	SPOOR_TE_NFIELDS
};

/* Meaning of the compressed status bits, computed by the decoder. */
enum spoor_te_status {
	SPOOR_TE_NOTIFY = 1 << 0,	/* notify differs from address MSB */
	SPOOR_TE_UPDISCON = 1 << 1,	/* updiscon differs from notify */
	SPOOR_TE_IRREPORT = 1 << 2,	/* irreport differs from the bit before it */
	/* spoor_te_inst_set_status() only: fill an unreported irdepth with ones
	 * (the reference encoder's behaviour) instead of copies of updiscon. */
	SPOOR_TE_IRDEPTH_ONES = 1 << 3,
};

struct spoor_te_inst {
	uint32_t present;		/* 1 << SPOOR_TE_F_x for each field in the packet */
	uint32_t status;		/* enum spoor_te_status flags */
	uint64_t v[SPOOR_TE_NFIELDS];	/* field values as transmitted, masked to width;
					 * v[f] means nothing unless present has bit f,
					 * except format 0's subformat: sent or implied */
};

/* Largest payload the codec produces (64-bit widths everywhere). */
#define SPOOR_TE_MAX_PAYLOAD 64

/* Name of field @f as in the reference CSV header ("index" for the JTC index). */
const char *spoor_te_field_name(enum spoor_te_field f);

/* True when @f is printed in hex by the reference flow (address, tval). */
bool spoor_te_field_is_hex(enum spoor_te_field f);

static inline bool spoor_te_has(const struct spoor_te_inst *pkt, enum spoor_te_field f)
{
	return (pkt->present >> f) & 1;
}

/* Sets field @f to @value and marks it present. */
static inline void spoor_te_set(struct spoor_te_inst *pkt, enum spoor_te_field f, uint64_t value)
{
	pkt->present |= UINT32_C(1) << f;
	pkt->v[f] = value;
}

/* Format 0 subformat of a packet: from the f0s field, or inferred from the
 * parameters when f0s_width_p is 0.  Returns -1 when format 0 is impossible. */
int spoor_te_ext_subformat(const struct spoor_params *p);

/*
 * Decodes the payload @buf[0..@len) into @pkt.  Missing high bits are
 * sign-extended from the last bit received.
 * Returns the number of payload bits the fields used (>= 1), or
 * SPOOR_E_INVAL, SPOOR_E_TRUNCATED (len 0), SPOOR_E_BAD_FORMAT (format 0
 * without an extension, unknown subformat), SPOOR_E_BAD_FIELD (reserved
 * branch_fmt), SPOOR_E_TRAILING (more than 7 unused bits: corrupt length).
 */
int spoor_te_inst_decode(const struct spoor_params *p, const uint8_t *buf, size_t len,
			 struct spoor_te_inst *pkt);

/*
 * Encodes @pkt with sign-based compression into @buf (capacity @cap).
 * Fields the format needs must be present; values wider than their field
 * must be sign bits only.  Returns the payload length in bytes, or
 * SPOOR_E_INVAL (missing or too-wide field), SPOOR_E_BAD_FORMAT,
 * SPOOR_E_BAD_FIELD, SPOOR_E_NOSPACE.
 */
int spoor_te_inst_encode(const struct spoor_params *p, const struct spoor_te_inst *pkt,
			 uint8_t *buf, size_t cap);

/* Run-time options that change packet layouts (from the support packet). */
enum spoor_te_layout {
	/* Implicit exception: format 3.1 carries no address when thaddr is 1. */
	SPOOR_TE_IMPLICIT_EXCEPTION = 1 << 0,
};

/* spoor_te_inst_decode() and _encode() under run-time @layout options. */
int spoor_te_inst_decode_layout(const struct spoor_params *p, uint32_t layout, const uint8_t *buf,
				size_t len, struct spoor_te_inst *pkt);
int spoor_te_inst_encode_layout(const struct spoor_params *p, uint32_t layout,
				const struct spoor_te_inst *pkt, uint8_t *buf, size_t cap);

/*
 * spoor_te_inst_decode_layout() for a payload inside a larger buffer: @room
 * bytes are readable from @buf on (@room >= @len; a frame's payload_room).
 * With 8 or more, a short payload is loaded in one go instead of byte by
 * byte: faster, and the bytes after the payload are read but never used.
 */
int spoor_te_inst_decode_room(const struct spoor_params *p, uint32_t layout, const uint8_t *buf,
			      size_t len, size_t room, struct spoor_te_inst *pkt);

/*
 * Decodes the payloads of @n frames (as spoor_deframe_next_frames() gives
 * them) into @pkts[0..n), all under one @layout: @used[i] is what
 * spoor_te_inst_decode_room() returns for frame i, or 0 for a frame that
 * does not carry a te_inst packet (pkts[i] then untouched).  The work that
 * depends only on the parameters is done once per call, so a bulk consumer
 * decodes faster this way than packet by packet.
 * Returns 0 or SPOOR_E_INVAL.
 */
int spoor_te_inst_decode_frames(const struct spoor_params *p, uint32_t layout,
				const struct spoor_frame *frames, size_t n,
				struct spoor_te_inst *pkts, int *used);

/*
 * Fills notify, updiscon, irreport and irdepth of a packet that carries them
 * from their meanings, the way the reference encoder does: each bit is the
 * bit before it, inverted when its flag is set; irdepth is @irdepth when
 * irreport differs from updiscon, otherwise all bits equal to updiscon.
 * Call after the fields before them (address, branch_map, branches) are set.
 * Returns 0 or SPOOR_E_INVAL.
 */
int spoor_te_inst_set_status(const struct spoor_params *p, struct spoor_te_inst *pkt,
			     uint32_t status, uint64_t irdepth);

/* Bits of branch_map for @branches (1/3/7/15/31; 0 means 31 and no address). */
static inline unsigned spoor_te_branch_map_width(unsigned branches)
{
	static const uint8_t width[32] = {
		31, 1, 3, 3, 7, 7, 7, 7, 15, 15, 15, 15, 15, 15, 15, 15,
		31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31,
	};

	return width[branches & 31];
}

/* Byte address of a full address field: shifted left by iaddress_lsb_p. */
uint64_t spoor_te_full_address(const struct spoor_params *p, uint64_t field);

/* Signed byte offset of a differential address field: shifted left by
 * iaddress_lsb_p and sign-extended from iaddress_width_p bits. */
int64_t spoor_te_diff_address(const struct spoor_params *p, uint64_t field);

#ifdef __cplusplus
}
#endif

#endif /* SPOOR_TE_INST_H */
