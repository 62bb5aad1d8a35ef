// SPDX-License-Identifier: MIT
/*
 * te_inst packet codec.  One walker describes the field order of every
 * format (spec v2.0 payload tables); decode and encode are the walker with a
 * bit reader or a bit writer, so the two can never disagree on a layout.
 */
#include <endian.h>
#include <string.h>

#include "spoor/error.h"
#include "spoor/te_inst.h"

/* Room for the widest packet (format 3 subformat 1 with 64-bit fields is
 * about 400 bits) plus one word of slack for reads that straddle words. */
#define BITBUF_WORDS 10
static const char *const field_names[SPOOR_TE_NFIELDS] = {
	[SPOOR_TE_F_FORMAT] = "format",
	[SPOOR_TE_F_SUBFORMAT] = "subformat",
	[SPOOR_TE_F_ADDRESS] = "address",
	[SPOOR_TE_F_BRANCH] = "branch",
	[SPOOR_TE_F_BRANCHES] = "branches",
	[SPOOR_TE_F_BRANCH_MAP] = "branch_map",
	[SPOOR_TE_F_BRANCH_COUNT] = "branch_count",
	[SPOOR_TE_F_BRANCH_FMT] = "branch_fmt",
	[SPOOR_TE_F_CONTEXT] = "context",
	[SPOOR_TE_F_ECAUSE] = "ecause",
	[SPOOR_TE_F_IENABLE] = "ienable",
	[SPOOR_TE_F_ENCODER_MODE] = "encoder_mode",
	[SPOOR_TE_F_INTERRUPT] = "interrupt",
	[SPOOR_TE_F_IRREPORT] = "irreport",
	[SPOOR_TE_F_IRDEPTH] = "irdepth",
	[SPOOR_TE_F_NOTIFY] = "notify",
	[SPOOR_TE_F_IOPTIONS] = "ioptions",
	[SPOOR_TE_F_PRIVILEGE] = "privilege",
	[SPOOR_TE_F_QUAL_STATUS] = "qual_status",
	[SPOOR_TE_F_TIME] = "time",
	[SPOOR_TE_F_THADDR] = "thaddr",
	[SPOOR_TE_F_TVAL] = "tval",
	[SPOOR_TE_F_UPDISCON] = "updiscon",
	[SPOOR_TE_F_DENABLE] = "denable",
	[SPOOR_TE_F_DLOSS] = "dloss",
	[SPOOR_TE_F_DOPTIONS] = "doptions",
	[SPOOR_TE_F_INDEX] = "index",
};

const char *spoor_te_field_name(enum spoor_te_field f)
{
	if ((unsigned)f >= SPOOR_TE_NFIELDS)
		return NULL;
	return field_names[f];
}

bool spoor_te_field_is_hex(enum spoor_te_field f)
{
	return f == SPOOR_TE_F_ADDRESS || f == SPOOR_TE_F_TVAL;
}

int spoor_te_ext_subformat(const struct spoor_params *p)
{
	if (p->bpred_size_p && !p->cache_size_p)
		return SPOOR_TE_EXT_BRANCH_COUNT;
	if (p->cache_size_p && !p->bpred_size_p)
		return SPOOR_TE_EXT_JTC;
	if (p->cache_size_p && p->bpred_size_p)
		return p->f0s_width_p ? -2 : -1;	/* -2: transmitted */
	return -1;
}

static inline uint64_t width_mask(unsigned w)
{
	return w >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << w) - 1;
}

/*
 * Bit reader/writer over 64-bit words (bit 0 of word 0 is the first bit
 * transmitted).  Words, not bytes: every load then matches a store of the
 * same size and address, so the CPU forwards it instead of stalling.
 */
/* How the walker runs: DEC_SHORT keeps a payload of up to 8 bytes in
 * registers, DEC_LONG reads the word array, ENCODE writes it. */
enum { ENCODE = 0, DEC_LONG = 1, DEC_SHORT = 2 };

struct bitio {
	uint64_t w[BITBUF_WORDS];	/* DEC_LONG and ENCODE */
	uint64_t w0;			/* DEC_SHORT: the payload */
	uint64_t fill;			/* DEC_SHORT: the bits beyond it */
	unsigned pos;		/* next bit */
	unsigned last;		/* the bit before the next field (MSB of the previous one) */
	uint32_t flags;		/* enum spoor_te_layout: run-time layout options */
	int err;
};

static inline uint64_t load32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

/*
 * Returns the first @len (1..8) bytes at @buf as a little-endian word, with
 * the bytes above them set to @fill.  Never reads outside buf[0..len): short
 * payloads are read with overlapping loads rather than a byte loop, whose
 * varying trip count the branch predictor cannot follow.
 */
static inline uint64_t load_tail(const uint8_t *buf, size_t len, uint64_t fill)
{
	uint64_t v;

	if (len >= 4) {
		v = load32(buf) | (load32(buf + len - 4) << (8 * (len - 4)));
	} else {
		v = buf[0] | ((uint64_t)buf[len >> 1] << (8 * (len >> 1))) |
		    ((uint64_t)buf[len - 1] << (8 * (len - 1)));
	}
	return len == 8 ? v : v | (fill << (8 * len));
}

/*
 * Loads a payload into io->w, sign-extended from its last bit to the end of
 * the buffer.  Runs once per packet, so it avoids libc calls and loops with
 * data-dependent trip counts.
 */
static inline void load_payload(struct bitio *io, const uint8_t *buf, size_t len)
{
	uint64_t fill = (buf[len - 1] & 0x80) ? ~UINT64_C(0) : 0, t;
	size_t i = 0;
	unsigned n = 0;

	for (unsigned k = 0; k < BITBUF_WORDS; k++)
		io->w[k] = fill;
	for (; len - i > 8; i += 8) {
		memcpy(&t, buf + i, 8);
		io->w[n++] = le64toh(t);
	}
	io->w[n] = load_tail(buf + i, len - i, fill);
}

/* Returns @w bits (1..64) at io->pos and advances. */
static inline __attribute__((always_inline)) uint64_t bits_get(struct bitio *io, unsigned w,
							      const int mode)
{
	unsigned i = io->pos >> 6, sh = io->pos & 63;
	uint64_t v;

	if (mode == DEC_SHORT) {
		if (i) {
			v = io->fill;
		} else {
			v = io->w0 >> sh;
			if (sh + w > 64)
				v |= io->fill << (64 - sh);
		}
	} else {
		v = io->w[i] >> sh;
		if (sh + w > 64)
			v |= io->w[i + 1] << (64 - sh);
	}
	io->pos += w;
	return v & width_mask(w);
}

/* Writes the low @w bits (1..64) of @v at io->pos (buffer starts zeroed). */
static inline void bits_put(struct bitio *io, uint64_t v, unsigned w)
{
	unsigned i = io->pos >> 6, sh = io->pos & 63;

	v &= width_mask(w);
	io->w[i] |= v << sh;
	if (sh + w > 64)
		io->w[i + 1] |= v >> (64 - sh);
	io->pos += w;
}

/* Bit @b of the buffer. */
static inline unsigned bit_at(const struct bitio *io, unsigned b)
{
	return (io->w[b >> 6] >> (b & 63)) & 1;
}

/* True when @v, meant for a @w-bit field, has nothing but sign bits above it. */
static bool fits_width(uint64_t v, unsigned w)
{
	uint64_t hi;

	if (w >= 64)
		return true;
	if (w == 0)
		return v == 0;
	if ((v >> w) == 0)
		return true;
	hi = v >> (w - 1);
	return hi == (~UINT64_C(0) >> (w - 1));
}

/*
 * Transfers one field: reads it into pkt (dec) or writes it from pkt.
 * Fields of width 0 are not transmitted and not marked present.
 */
static inline __attribute__((always_inline)) void field(struct bitio *io, struct spoor_te_inst *pkt, enum spoor_te_field f,
			 unsigned w, const int dec)
{
	uint64_t v;

	if (w == 0)
		return;
	if (dec) {
		v = bits_get(io, w, dec);
		pkt->v[f] = v;
		pkt->present |= UINT32_C(1) << f;
	} else {
		if (!(pkt->present & (UINT32_C(1) << f)) || !fits_width(pkt->v[f], w)) {
			io->err = SPOOR_E_INVAL;
			return;
		}
		v = pkt->v[f] & width_mask(w);
		pkt->v[f] = v;	/* later fields' layout depends on it */
		bits_put(io, v, w);
	}
	io->last = (v >> (w - 1)) & 1;
}

/* A one-bit status field whose meaning is "differs from the bit before it". */
static inline __attribute__((always_inline)) void status_bit(struct bitio *io, struct spoor_te_inst *pkt, enum spoor_te_field f,
			      uint32_t flag, const int dec)
{
	unsigned before = io->last;

	field(io, pkt, f, 1, dec);
	if (dec)
		pkt->status |= (pkt->v[f] != before) ? flag : 0;
}

/* notify, updiscon, irreport and irdepth after an address. */
static inline __attribute__((always_inline)) void addr_status(const struct spoor_params *p, struct bitio *io,
			       struct spoor_te_inst *pkt, const int dec)
{
	status_bit(io, pkt, SPOOR_TE_F_NOTIFY, SPOOR_TE_NOTIFY, dec);
	status_bit(io, pkt, SPOOR_TE_F_UPDISCON, SPOOR_TE_UPDISCON, dec);
	status_bit(io, pkt, SPOOR_TE_F_IRREPORT, SPOOR_TE_IRREPORT, dec);
	field(io, pkt, SPOOR_TE_F_IRDEPTH, spoor_params_irdepth_width(p), dec);
}

/* Format 3: synchronisation, trap, context, support. */
static inline __attribute__((always_inline)) int walk_sync(const struct spoor_params *p, struct bitio *io,
			    struct spoor_te_inst *pkt, const int dec)
{
	unsigned sf = (unsigned)pkt->v[SPOOR_TE_F_SUBFORMAT];
	unsigned aw = spoor_params_address_width(p);

	if (sf == SPOOR_TE_SYNC_SUPPORT) {
		field(io, pkt, SPOOR_TE_F_IENABLE, 1, dec);
		field(io, pkt, SPOOR_TE_F_ENCODER_MODE, p->encoder_mode_width_p, dec);
		field(io, pkt, SPOOR_TE_F_QUAL_STATUS, 2, dec);
		field(io, pkt, SPOOR_TE_F_IOPTIONS, p->ioptions_width_p, dec);
		if (p->support_data_p) {
			field(io, pkt, SPOOR_TE_F_DENABLE, 1, dec);
			field(io, pkt, SPOOR_TE_F_DLOSS, 1, dec);
			field(io, pkt, SPOOR_TE_F_DOPTIONS, p->doptions_width_p, dec);
		}
		return 0;
	}
	if (sf != SPOOR_TE_SYNC_CONTEXT)
		field(io, pkt, SPOOR_TE_F_BRANCH, 1, dec);
	field(io, pkt, SPOOR_TE_F_PRIVILEGE, p->privilege_width_p, dec);
	field(io, pkt, SPOOR_TE_F_TIME, spoor_params_time_width(p), dec);
	field(io, pkt, SPOOR_TE_F_CONTEXT, spoor_params_context_width(p), dec);
	if (sf == SPOOR_TE_SYNC_START) {
		field(io, pkt, SPOOR_TE_F_ADDRESS, aw, dec);
	} else if (sf == SPOOR_TE_SYNC_TRAP) {
		field(io, pkt, SPOOR_TE_F_ECAUSE, p->ecause_width_p, dec);
		field(io, pkt, SPOOR_TE_F_INTERRUPT, 1, dec);
		field(io, pkt, SPOOR_TE_F_THADDR, 1, dec);
		/* Implicit exception: no handler address when thaddr is 1. */
		if (!(io->flags & SPOOR_TE_IMPLICIT_EXCEPTION) || !(pkt->v[SPOOR_TE_F_THADDR] & 1))
			field(io, pkt, SPOOR_TE_F_ADDRESS, aw, dec);
		/* tval is omitted for interrupts. */
		if (!(pkt->v[SPOOR_TE_F_INTERRUPT] & 1))
			field(io, pkt, SPOOR_TE_F_TVAL, p->iaddress_width_p, dec);
	}
	return 0;
}

/* Format 0: branch count (subformat 0) or jump target cache index (1). */
static inline __attribute__((always_inline)) int walk_ext(const struct spoor_params *p, struct bitio *io,
			   struct spoor_te_inst *pkt, const int dec)
{
	int sf = spoor_te_ext_subformat(p);
	unsigned branches;

	if (sf == -1)
		return SPOOR_E_BAD_FORMAT;
	if (p->f0s_width_p) {
		field(io, pkt, SPOOR_TE_F_SUBFORMAT, p->f0s_width_p, dec);
		if (io->err)
			return io->err;
		sf = (int)pkt->v[SPOOR_TE_F_SUBFORMAT];
		if (sf != SPOOR_TE_EXT_BRANCH_COUNT && sf != SPOOR_TE_EXT_JTC)
			return SPOOR_E_BAD_FORMAT;
		if ((sf == SPOOR_TE_EXT_BRANCH_COUNT && !p->bpred_size_p) ||
		    (sf == SPOOR_TE_EXT_JTC && !p->cache_size_p))
			return SPOOR_E_BAD_FORMAT;
	} else if (dec) {
		pkt->v[SPOOR_TE_F_SUBFORMAT] = (uint64_t)sf;
	} else if (spoor_te_has(pkt, SPOOR_TE_F_SUBFORMAT) &&
		   pkt->v[SPOOR_TE_F_SUBFORMAT] != (uint64_t)sf) {
		return SPOOR_E_BAD_FORMAT;
	}

	if (sf == SPOOR_TE_EXT_BRANCH_COUNT) {
		field(io, pkt, SPOOR_TE_F_BRANCH_COUNT, 32, dec);
		field(io, pkt, SPOOR_TE_F_BRANCH_FMT, 2, dec);
		if (io->err)
			return io->err;
		switch (pkt->v[SPOOR_TE_F_BRANCH_FMT]) {
		case SPOOR_TE_BFMT_NO_ADDR:
			return 0;
		case SPOOR_TE_BFMT_ADDR:
		case SPOOR_TE_BFMT_ADDR_FAIL:
			field(io, pkt, SPOOR_TE_F_ADDRESS, spoor_params_address_width(p), dec);
			addr_status(p, io, pkt, dec);
			return 0;
		default:
			return SPOOR_E_BAD_FIELD;
		}
	}

	field(io, pkt, SPOOR_TE_F_INDEX, p->cache_size_p, dec);
	field(io, pkt, SPOOR_TE_F_BRANCHES, 5, dec);
	if (io->err)
		return io->err;
	branches = (unsigned)pkt->v[SPOOR_TE_F_BRANCHES];
	if (branches)
		field(io, pkt, SPOOR_TE_F_BRANCH_MAP, spoor_te_branch_map_width(branches), dec);
	status_bit(io, pkt, SPOOR_TE_F_IRREPORT, SPOOR_TE_IRREPORT, dec);
	field(io, pkt, SPOOR_TE_F_IRDEPTH, spoor_params_irdepth_width(p), dec);
	return 0;
}

/* Walks the fields of one packet in transmission order. */
static inline __attribute__((always_inline)) int
walk(const struct spoor_params *p, struct bitio *io, struct spoor_te_inst *pkt, const int dec)
{
	unsigned branches;
	int ret = 0;

	field(io, pkt, SPOOR_TE_F_FORMAT, 2, dec);
	if (io->err)
		return io->err;
	switch (pkt->v[SPOOR_TE_F_FORMAT]) {
	case SPOOR_TE_FORMAT_BRANCH:
		field(io, pkt, SPOOR_TE_F_BRANCHES, 5, dec);
		if (io->err)
			return io->err;
		branches = (unsigned)pkt->v[SPOOR_TE_F_BRANCHES];
		field(io, pkt, SPOOR_TE_F_BRANCH_MAP, spoor_te_branch_map_width(branches), dec);
		if (branches == 0)
			break;	/* full 31-bit map, no address */
		/* fall through */
	case SPOOR_TE_FORMAT_ADDR:
		field(io, pkt, SPOOR_TE_F_ADDRESS, spoor_params_address_width(p), dec);
		addr_status(p, io, pkt, dec);
		break;
	case SPOOR_TE_FORMAT_SYNC:
		field(io, pkt, SPOOR_TE_F_SUBFORMAT, 2, dec);
		if (io->err)
			return io->err;
		ret = walk_sync(p, io, pkt, dec);
		break;
	default:
		ret = walk_ext(p, io, pkt, dec);
		break;
	}
	return ret ? ret : io->err;
}

#define F(f) (UINT32_C(1) << SPOOR_TE_F_##f)

/* What the short-packet path needs of the parameters, worked out once. */
struct short_ctx {
	size_t short_len;	/* 8, or 0 when the path does not apply to these parameters */
	unsigned aw;		/* address width */
	unsigned tail;		/* bits from the address on: aw + 3 status bits + irdepth */
	uint64_t addr_mask, st_mask;
	uint32_t addr_present;	/* fields present with an address */
	/* format 0 subformat 1 (jump target cache index) */
	bool jtc;		/* format 0 can be a jump target cache index */
	unsigned f0s, cache, iw;	/* f0s_width_p, cache_size_p, irdepth width */
};

static inline void short_ctx_init(struct short_ctx *c, const struct spoor_params *p)
{
	unsigned aw = spoor_params_address_width(p), iw = spoor_params_irdepth_width(p);

	c->short_len = iw <= 61 && aw - 1 < 64 ? 8 : 0;
	c->aw = aw;
	c->tail = aw + 3 + iw;
	c->addr_mask = width_mask(aw);
	c->st_mask = width_mask(3 + iw);
	c->addr_present = F(ADDRESS) | F(NOTIFY) | F(UPDISCON) | F(IRREPORT) | (iw ? F(IRDEPTH) : 0);
	/* with f0s_width_p the packet says; without, the parameters do */
	c->jtc = p->cache_size_p && (p->f0s_width_p || !p->bpred_size_p);
	c->f0s = p->f0s_width_p;
	c->cache = p->cache_size_p;
	c->iw = iw;
}

/*
 * What the first byte of a short format 1 or 2 payload says: format in bits
 * 0..1, branches in bits 2..6 (format 1).  A table, so that the fast path
 * spends no instructions working it out.
 */
struct short_head {
	uint32_t map_mask;	/* the branch_map bits */
	uint8_t pos;		/* the address field's first bit (or the packet's end) */
	uint8_t has_addr;	/* 0: format 1 with branches = 0, a full map and no address */
	uint8_t fast;		/* format 1 or 2 */
	uint8_t present;	/* fields present with or without an address */
};

#define HD_FMT(i) ((i) & 3)
#define HD_BR(i) ((i) >> 2)
#define HD_MW(b) ((b) == 0 ? 31 : (b) < 2 ? 1 : (b) < 4 ? 3 : (b) < 8 ? 7 : (b) < 16 ? 15 : 31)
#define HD(i) {									\
	.map_mask = HD_FMT(i) == 1 ? (uint32_t)((UINT64_C(1) << HD_MW(HD_BR(i))) - 1) : 0,	\
	.pos = HD_FMT(i) == 1 ? 7 + HD_MW(HD_BR(i)) : 2,				\
	.has_addr = !(HD_FMT(i) == 1 && HD_BR(i) == 0),					\
	.fast = HD_FMT(i) == 1 || HD_FMT(i) == 2,					\
	.present = F(FORMAT) | (HD_FMT(i) == 1 ? F(BRANCHES) | F(BRANCH_MAP) : 0),	\
}
#define HD4(i) HD(i), HD((i) + 1), HD((i) + 2), HD((i) + 3)
#define HD16(i) HD4(i), HD4((i) + 4), HD4((i) + 8), HD4((i) + 12)

static const struct short_head short_heads[128] = {
	HD16(0), HD16(16), HD16(32), HD16(48), HD16(64), HD16(80), HD16(96), HD16(112),
};

#undef HD16
#undef HD4
#undef HD
#undef HD_MW
#undef HD_BR
#undef HD_FMT

/*
 * Formats 1 and 2 of 1..8 bytes: @head holds the payload's bytes (those
 * beyond @len unspecified), @hd what its first byte says.  The walker's
 * result without its per-field steps, for the packets that make up most of
 * a trace: formats 1 and 2 share one sequence of operations, their
 * differences being table entries and masks rather than branches (which
 * format comes next is what a trace makes unpredictable).
 * Returns the bits used, or SPOOR_E_TRAILING.
 */
static inline int decode_short(const struct short_ctx *c, const struct short_head *hd,
			       uint64_t head, size_t len, struct spoor_te_inst *pkt)
{
	/*
	 * The payload sign-extended from its last bit: bit 63 is then a copy
	 * of it, so an arithmetic shift right by up to 63 yields the bits from
	 * there on with the sign fill above them, as decoding reads missing bits.
	 */
	unsigned sh = 64 - 8 * (unsigned)len;
	int64_t w = (int64_t)(head << sh) >> sh;
	uint32_t has_addr = -(uint32_t)hd->has_addr;
	unsigned pos = hd->pos, spos = pos + c->aw;
	unsigned used = pos + (has_addr & c->tail);	/* 7 + 31 for a full map */
	uint64_t addr, st, bits;

	if (used + 8 <= len * 8)
		return SPOOR_E_TRAILING;
	addr = (uint64_t)(w >> pos) & c->addr_mask;
	st = (uint64_t)(w >> (spos < 63 ? spos : 63)) & c->st_mask;
	pkt->v[SPOOR_TE_F_FORMAT] = head & 3;
	pkt->v[SPOOR_TE_F_BRANCHES] = (head >> 2) & 31;
	pkt->v[SPOOR_TE_F_BRANCH_MAP] = (uint64_t)(w >> 7) & hd->map_mask;
	pkt->v[SPOOR_TE_F_ADDRESS] = addr;
	pkt->v[SPOOR_TE_F_NOTIFY] = st & 1;
	pkt->v[SPOOR_TE_F_UPDISCON] = (st >> 1) & 1;
	pkt->v[SPOOR_TE_F_IRREPORT] = (st >> 2) & 1;
	pkt->v[SPOOR_TE_F_IRDEPTH] = st >> 3;
	pkt->present = hd->present | (has_addr & c->addr_present);
	/* the address MSB, notify, updiscon, irreport in bits 0..3: bit k of
	 * bits ^ (bits >> 1) says whether status bit k differs from the one before */
	bits = (st & 7) << 1 | ((addr >> (c->aw - 1)) & 1);
	pkt->status = has_addr & (uint32_t)((bits ^ (bits >> 1)) & 7);
	return (int)used;
}


/* Bits from @pos on of the sign-extended short payload @w (copies of its sign beyond bit 63). */
static inline uint64_t short_from(int64_t w, unsigned pos)
{
	return (uint64_t)(w >> (pos < 63 ? pos : 63));
}

/*
 * Format 0 subformat 1 of 1..8 bytes (@head, as for decode_short()), the
 * jump target cache index that traces with the cache on are full of: its
 * fields lie where the parameters and the branch count put them.  Returns
 * the bits used, SPOOR_E_TRAILING, or 0 when the walker must decode it
 * (another subformat, or a bad one).
 */
static inline int decode_jtc(const struct short_ctx *c, uint64_t head, size_t len,
			     struct spoor_te_inst *pkt)
{
	unsigned sh = 64 - 8 * (unsigned)len;
	int64_t w = (int64_t)(head << sh) >> sh;
	unsigned pos = 2 + c->f0s, branches, mw, used;
	uint64_t irreport;

	if (c->f0s && (short_from(w, 2) & width_mask(c->f0s)) != SPOOR_TE_EXT_JTC)
		return 0;
	pkt->v[SPOOR_TE_F_INDEX] = short_from(w, pos) & width_mask(c->cache);
	pos += c->cache;
	branches = (unsigned)short_from(w, pos) & 31;
	pos += 5;
	mw = branches ? spoor_te_branch_map_width(branches) : 0;
	pkt->v[SPOOR_TE_F_BRANCH_MAP] = short_from(w, pos) & width_mask(mw);
	pos += mw;
	used = pos + 1 + c->iw;
	if (used + 8 <= len * 8)
		return SPOOR_E_TRAILING;
	irreport = short_from(w, pos) & 1;
	pkt->v[SPOOR_TE_F_FORMAT] = SPOOR_TE_FORMAT_EXT;
	pkt->v[SPOOR_TE_F_SUBFORMAT] = SPOOR_TE_EXT_JTC;	/* sent or implied */
	pkt->v[SPOOR_TE_F_BRANCHES] = branches;
	pkt->v[SPOOR_TE_F_IRREPORT] = irreport;
	pkt->v[SPOOR_TE_F_IRDEPTH] = short_from(w, pos + 1) & width_mask(c->iw);
	pkt->present = F(FORMAT) | (c->f0s ? F(SUBFORMAT) : 0) | F(INDEX) | F(BRANCHES) |
		       (mw ? F(BRANCH_MAP) : 0) | F(IRREPORT) | (c->iw ? F(IRDEPTH) : 0);
	/* irreport means something when it differs from the bit before it */
	pkt->status = irreport != (short_from(w, pos - 1) & 1) ? SPOOR_TE_IRREPORT : 0;
	return (int)used;
}

#undef F

/* Any packet, through the walker.  Returns the bits used or an error. */
static __attribute__((noinline)) int decode_walk(const struct spoor_params *p, uint32_t flags,
						 const uint8_t *buf, size_t len,
						 struct spoor_te_inst *pkt)
{
	struct bitio io;
	int ret;

	io.flags = flags;
	if (len == 0)
		return SPOOR_E_TRUNCATED;
	if (len > SPOOR_TE_MAX_PAYLOAD)
		return SPOOR_E_TRAILING;
	io.pos = 0;
	io.last = 0;
	io.err = 0;
	pkt->present = 0;
	pkt->status = 0;
	if (len <= 8) {
		io.fill = (buf[len - 1] & 0x80) ? ~UINT64_C(0) : 0;
		io.w0 = load_tail(buf, len, io.fill);
		ret = walk(p, &io, pkt, DEC_SHORT);
	} else {
		load_payload(&io, buf, len);
		ret = walk(p, &io, pkt, DEC_LONG);
	}
	if (ret)
		return ret;
	/* A compressed packet is padded to a byte: at most 7 bits are unused. */
	if (io.pos + 8 <= len * 8)
		return SPOOR_E_TRAILING;
	return (int)io.pos;
}

int spoor_te_inst_decode(const struct spoor_params *p, const uint8_t *buf, size_t len,
			 struct spoor_te_inst *pkt)
{
	return spoor_te_inst_decode_room(p, 0, buf, len, len, pkt);
}

int spoor_te_inst_decode_layout(const struct spoor_params *p, uint32_t layout, const uint8_t *buf,
				size_t len, struct spoor_te_inst *pkt)
{
	return spoor_te_inst_decode_room(p, layout, buf, len, len, pkt);
}

int spoor_te_inst_decode_room(const struct spoor_params *p, uint32_t layout, const uint8_t *buf,
			      size_t len, size_t room, struct spoor_te_inst *pkt)
{
	const struct short_head *hd;
	struct short_ctx c;
	uint64_t head;
	int ret;

	if (!p || !buf || !pkt || room < len)
		return SPOOR_E_INVAL;
	/* Fast path: formats 1 and 2 of up to 8 bytes, most of any trace. */
	short_ctx_init(&c, p);
	if (len - 1 >= c.short_len)
		return decode_walk(p, layout, buf, len, pkt);
	if (room >= 8) {
		memcpy(&head, buf, sizeof(head));	/* the bytes after the payload are ignored */
		head = le64toh(head);
	} else {
		head = load_tail(buf, len, 0);
	}
	hd = &short_heads[head & 127];
	if (hd->fast)
		return decode_short(&c, hd, head, len, pkt);
	if ((head & 3) == SPOOR_TE_FORMAT_EXT && c.jtc && (ret = decode_jtc(&c, head, len, pkt)))
		return ret;
	return decode_walk(p, layout, buf, len, pkt);
}

/* One frame of a batch.  Returns what decode_frames() reports for it. */
static inline int decode_frame(const struct spoor_params *p, uint32_t layout,
			       const struct short_ctx *c, const struct spoor_frame *fr,
			       struct spoor_te_inst *pkt)
{
	const struct short_head *hd;
	size_t len = fr->payload_len;
	uint64_t head;

	if (fr->msg != SPOOR_MSG_TE_INST)
		return 0;
	/* short payloads with room for one 8-byte load: most of them */
	if (len - 1 < c->short_len && fr->payload_room >= 8) {
		memcpy(&head, fr->payload, sizeof(head));
		head = le64toh(head);
		hd = &short_heads[head & 127];
		if (hd->fast)
			return decode_short(c, hd, head, len, pkt);
		if ((head & 3) == SPOOR_TE_FORMAT_EXT && c->jtc) {
			int ret = decode_jtc(c, head, len, pkt);

			if (ret)
				return ret;
		}
	}
	return spoor_te_inst_decode_room(p, layout, fr->payload, len, fr->payload_room, pkt);
}

int spoor_te_inst_decode_frames(const struct spoor_params *p, uint32_t layout,
				const struct spoor_frame *frames, size_t n,
				struct spoor_te_inst *pkts, int *used)
{
	struct short_ctx c;

	if (!p || (n && (!frames || !pkts || !used)))
		return SPOOR_E_INVAL;
	short_ctx_init(&c, p);
	for (size_t i = 0; i < n; i++)
		used[i] = decode_frame(p, layout, &c, &frames[i], &pkts[i]);
	return 0;
}

int spoor_te_inst_encode(const struct spoor_params *p, const struct spoor_te_inst *pkt,
			 uint8_t *buf, size_t cap)
{
	return spoor_te_inst_encode_layout(p, 0, pkt, buf, cap);
}

/*
 * Returns the highest bit below @total that differs from @msb, or -1 when
 * all of them equal it: a word at a time, not a bit at a time.
 */
static int highest_differing(const struct bitio *io, unsigned total, unsigned msb)
{
	uint64_t fill = msb ? ~UINT64_C(0) : 0;

	for (int w = (int)((total - 1) >> 6); w >= 0; w--) {
		uint64_t x = io->w[w] ^ fill;
		unsigned top = (unsigned)w * 64;

		if (top + 64 > total)
			x &= ((UINT64_C(1) << (total - top)) - 1);
		if (x)
			return (int)top + 63 - __builtin_clzll(x);
	}
	return -1;
}

int spoor_te_inst_encode_layout(const struct spoor_params *p, uint32_t layout,
				const struct spoor_te_inst *pkt, uint8_t *buf, size_t cap)
{
	struct spoor_te_inst tmp;
	struct bitio io;
	unsigned total, keep, nbytes, msb;
	int ret;

	if (!p || !pkt || !buf)
		return SPOOR_E_INVAL;
	/* The walker only reads pkt when encoding; it takes a mutable pointer. */
	tmp = *pkt;
	memset(&io, 0, sizeof(io));
	io.flags = layout;
	ret = walk(p, &io, &tmp, ENCODE);
	if (ret)
		return ret;
	total = io.pos;

	/* Sign-based compression: keep up to the highest bit that differs from
	 * the MSB, plus one copy of the MSB. */
	msb = bit_at(&io, total - 1);
	keep = highest_differing(&io, total, msb) + 2;
	nbytes = (keep + 7) / 8;
	if (nbytes > cap)
		return SPOOR_E_NOSPACE;
	/* Pad to a byte with the MSB: every bit from keep on is a copy of it. */
	for (unsigned w = keep >> 6; w <= (nbytes * 8 - 1) >> 6; w++) {
		uint64_t above = w == keep >> 6 ? ~UINT64_C(0) << (keep & 63) : ~UINT64_C(0);

		io.w[w] = msb ? io.w[w] | above : io.w[w] & ~above;
	}
	for (unsigned i = 0; i < nbytes; i++)
		buf[i] = (uint8_t)(io.w[i >> 3] >> (8 * (i & 7)));
	return (int)nbytes;
}

int spoor_te_inst_set_status(const struct spoor_params *p, struct spoor_te_inst *pkt,
			     uint32_t status, uint64_t irdepth)
{
	unsigned before, w, fmt;
	uint64_t v;

	if (!p || !pkt || !spoor_te_has(pkt, SPOOR_TE_F_FORMAT))
		return SPOOR_E_INVAL;
	fmt = (unsigned)pkt->v[SPOOR_TE_F_FORMAT];
	if (fmt == SPOOR_TE_FORMAT_EXT && spoor_te_has(pkt, SPOOR_TE_F_INDEX)) {
		/* Jump target cache: irreport follows branch_map or branches. */
		if (pkt->v[SPOOR_TE_F_BRANCHES]) {
			w = spoor_te_branch_map_width((unsigned)pkt->v[SPOOR_TE_F_BRANCHES]);
			before = (pkt->v[SPOOR_TE_F_BRANCH_MAP] >> (w - 1)) & 1;
		} else {
			before = (pkt->v[SPOOR_TE_F_BRANCHES] >> 4) & 1;
		}
	} else {
		if (!spoor_te_has(pkt, SPOOR_TE_F_ADDRESS))
			return SPOOR_E_INVAL;
		w = spoor_params_address_width(p);
		before = (pkt->v[SPOOR_TE_F_ADDRESS] >> (w - 1)) & 1;
		before ^= !!(status & SPOOR_TE_NOTIFY);
		spoor_te_set(pkt, SPOOR_TE_F_NOTIFY, before);
		before ^= !!(status & SPOOR_TE_UPDISCON);
		spoor_te_set(pkt, SPOOR_TE_F_UPDISCON, before);
	}
	v = before ^ !!(status & SPOOR_TE_IRREPORT);
	spoor_te_set(pkt, SPOOR_TE_F_IRREPORT, v);
	w = spoor_params_irdepth_width(p);
	if (w) {
		if (status & SPOOR_TE_IRREPORT)
			v = irdepth & width_mask(w);
		else if (status & SPOOR_TE_IRDEPTH_ONES)
			v = width_mask(w);
		else
			v = before ? width_mask(w) : 0;
		spoor_te_set(pkt, SPOOR_TE_F_IRDEPTH, v);
	}
	pkt->status = status & (SPOOR_TE_NOTIFY | SPOOR_TE_UPDISCON | SPOOR_TE_IRREPORT);
	return 0;
}

uint64_t spoor_te_full_address(const struct spoor_params *p, uint64_t field_value)
{
	return (field_value << p->iaddress_lsb_p) & width_mask(p->iaddress_width_p);
}

int64_t spoor_te_diff_address(const struct spoor_params *p, uint64_t field_value)
{
	uint64_t v = field_value << p->iaddress_lsb_p;
	unsigned sh = 64 - p->iaddress_width_p;

	return (int64_t)(v << sh) >> sh;
}
