// SPDX-License-Identifier: MIT
/* Streaming deframer: packet boundaries, synchronisation and block alignment per source. */
#include <endian.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "spoor/deframe.h"
#include "spoor/error.h"

#define ATB_LANES 128
/* Frames per batch (drain(), and next_frames() on bit-packed layouts), and
 * bytes per realigned payload (the largest, one byte more, and room for
 * word stores) */
#define BATCH_SLOTS SPOOR_DEFRAME_BATCH
#define SLOT_BYTES 48

/* Keeps the rare paths out of spoor_deframe_next()'s fast path. */
#if defined(__GNUC__)
#define DF_NOINLINE __attribute__((noinline))
#else
#define DF_NOINLINE
#endif

/* The alignment state of one source's byte stream. */
struct df_lane {
	uint64_t pos;		/* bytes of this lane's stream before the current chunk */
	uint64_t part_off;	/* stream offset of the held frame's header */
	uint64_t skipped;	/* bytes skipped since sync was lost (or the start) */
	uint32_t nulls;		/* consecutive null bytes seen while unsynchronised */
	uint8_t have;		/* bytes held of an incomplete frame */
	uint8_t need;		/* that frame's size */
	bool synced;
	uint8_t buf[SPOOR_FRAME_MAX];
};

/* The frame's flow, type, msg and has_timestamp: four bytes in a row. */
enum { TAG_FLOW, TAG_TYPE, TAG_MSG, TAG_TS, TAG_BYTES };
_Static_assert(offsetof(struct spoor_frame, type) == offsetof(struct spoor_frame, flow) + TAG_TYPE &&
	       offsetof(struct spoor_frame, msg) == offsetof(struct spoor_frame, flow) + TAG_MSG &&
	       offsetof(struct spoor_frame, has_timestamp) ==
	       offsetof(struct spoor_frame, flow) + TAG_TS && sizeof(bool) == 1,
	       "struct spoor_frame: flow, type, msg, has_timestamp are not four bytes in a row");

/* What a header byte says, precomputed: eight bytes, one load. */
struct hdr_info {
	int8_t size;		/* frame size, 1 for null, or negative error */
	uint8_t poff;		/* aligned layouts: payload offset in the frame */
	uint8_t plen;		/* aligned layouts: payload length */
	uint8_t unused;
	uint8_t tag[TAG_BYTES];	/* aligned layouts: the frame's flow, type (RAW: flow), msg, has_timestamp */
};

struct spoor_deframe {
	struct spoor_deframe_config cfg;
	struct spoor_deframe_stats stats;
	const uint8_t *chunk;	/* current chunk */
	size_t len;		/* its length */
	size_t pos;		/* next byte of it to examine */
	uint64_t base;		/* stream offset of chunk[0] */
	uint64_t lane_base;	/* lane stream offset of chunk[0] */
	struct df_lane *lane;	/* lane of the current chunk */
	uint32_t source;	/* its source (ATID), 0 for one-lane kinds */
	uint32_t sync_run;
	uint32_t block_size;
	uint8_t null_mask;	/* a byte is null when (b & null_mask) == 0 */
	bool aligned;		/* payload byte-aligned right after srcID and timestamp */
	bool atb;
	bool finished;
	unsigned n_lanes;
	unsigned trunc_next;	/* next lane to check for a truncated frame */
	bool fast;		/* no block alignment: next_fast() may apply */
	bool plain;		/* aligned, no srcID bytes, no timestamps: a frame is 1 + length bytes */
	bool fast_now;		/* fast, and the lane is synchronised with nothing held */
	uint8_t src_bytes;	/* whole srcID bytes (aligned layouts) */
	uint8_t ts_bytes;	/* timestamp bytes when extend = 1 */
	struct hdr_info info[256];	/* per header byte */
	uint8_t scratch[SPOOR_FRAME_PAYLOAD_MAX + 1];
	uint8_t type_msg[256];	/* enum spoor_msg_type of each type value */
	/* next_frames(), bit-packed layouts: the realigned payloads of one batch */
	uint8_t slots[BATCH_SLOTS][SLOT_BYTES];
	struct df_lane lanes[];
};

/* Fills @inf with what @header means under @ec. */
static void fill_info(const struct spoor_encap_config *ec, uint8_t header, struct hdr_info *inf)
{
	unsigned flow = (header >> 5) & 3;

	inf->size = (int8_t)spoor_encap_frame_size(ec, header);
	inf->poff = (uint8_t)(1 + ec->src_bits / 8 + ((header & 0x80) ? ec->ts_bytes : 0));
	inf->plen = inf->size > inf->poff ? (uint8_t)(inf->size - inf->poff) : 0;
	inf->tag[TAG_FLOW] = (uint8_t)flow;
	inf->tag[TAG_TS] = (header & 0x80) != 0;
	if (ec->kind == SPOOR_ENCAP_RAW) {
		inf->tag[TAG_TYPE] = (uint8_t)flow;
		inf->tag[TAG_MSG] = flow == 2 ? SPOOR_MSG_TE_INST : SPOOR_MSG_TE_DATA;
	} else {
		inf->tag[TAG_TYPE] = 0;
		inf->tag[TAG_MSG] = SPOOR_MSG_TE_INST;
	}
}

/* Returns a new deframer for @cfg, or NULL. */
struct spoor_deframe *spoor_deframe_new(const struct spoor_deframe_config *cfg)
{
	const struct spoor_encap_config *ec;
	struct spoor_deframe *df;
	unsigned n, i;

	if (!cfg || spoor_encap_config_check(&cfg->encap))
		return NULL;
	ec = &cfg->encap;
	n = ec->kind == SPOOR_ENCAP_ATB ? ATB_LANES : 1;
	df = calloc(1, sizeof(*df) + n * sizeof(df->lanes[0]));
	if (!df)
		return NULL;
	df->cfg = *cfg;
	df->n_lanes = n;
	df->atb = ec->kind == SPOOR_ENCAP_ATB;
	df->sync_run = cfg->sync_run ? cfg->sync_run : spoor_encap_sync_run(ec);
	df->block_size = cfg->block_size;
	df->null_mask = ec->kind == SPOOR_ENCAP_ETRACE ? 0x1f : 0xff;
	df->aligned = ec->src_bits % 8 == 0 && ec->type_bits == 0;
	df->plain = df->aligned && ec->src_bits == 0 &&
		    (ec->kind == SPOOR_ENCAP_RAW || ec->ts_bytes == 0);
	df->fast = !cfg->block_size;
	df->src_bytes = (uint8_t)(ec->src_bits / 8);
	df->ts_bytes = (uint8_t)ec->ts_bytes;
	for (i = 0; i < 256; i++) {
		fill_info(ec, (uint8_t)i, &df->info[i]);
		df->type_msg[i] = (uint8_t)spoor_encap_msg_type(ec, i);
	}
	for (i = 0; i < n; i++)
		df->lanes[i].synced = cfg->start_synced;
	df->lane = &df->lanes[0];
	return df;
}

void spoor_deframe_free(struct spoor_deframe *df)
{
	free(df);
}

/* Sets df->fast_now from the current lane's state. */
static void update_fast(struct spoor_deframe *df)
{
	df->fast_now = df->fast && !df->finished && df->lane->synced && !df->lane->have;
}

/* Returns 0 after making @buf the current chunk of @source's stream, or SPOOR_E_INVAL. */
int spoor_deframe_feed(struct spoor_deframe *df, const uint8_t *buf, size_t len, unsigned source)
{
	struct df_lane *ln;

	if (!df || (!buf && len) || df->finished || df->pos < df->len)
		return SPOOR_E_INVAL;
	if (!df->atb)
		source = 0;
	else if (source >= ATB_LANES)
		return SPOOR_E_INVAL;
	ln = &df->lanes[source];
	df->base += df->len;
	df->chunk = buf;
	df->len = len;
	df->pos = 0;
	df->lane = ln;
	df->source = source;
	df->lane_base = ln->pos;
	ln->pos += len;
	df->stats.bytes += len;
	update_fast(df);
	return 0;
}

int spoor_deframe_gap(struct spoor_deframe *df, unsigned source, uint64_t lost,
		      struct spoor_deframe_item *item)
{
	struct df_lane *ln;
	uint64_t skip = lost == SPOOR_DEFRAME_LOST_UNKNOWN ? 0 : lost;

	if (!df || !item || df->finished || df->pos < df->len)
		return SPOOR_E_INVAL;
	if (!df->atb)
		source = 0;
	else if (source >= ATB_LANES)
		return SPOOR_E_INVAL;
	ln = &df->lanes[source];
	memset(item, 0, sizeof(*item));
	item->kind = SPOOR_DF_GAP;
	item->offset = df->base + df->len;
	item->bytes = lost;
	item->source = source;
	/* A frame begun before the gap can't be finished: its end is lost. */
	df->stats.truncated_bytes += ln->have;
	df->stats.pending_bytes -= ln->have;
	ln->have = 0;
	ln->need = 0;
	ln->synced = false;
	ln->nulls = 0;
	ln->pos += skip;
	df->base += df->len + skip;
	df->chunk = NULL;
	df->len = 0;
	df->pos = 0;
	df->lane_base = ln->pos;
	df->stats.gaps++;
	df->stats.lost_bytes += skip;
	update_fast(df);
	return SPOOR_DF_GAP;
}

/* Returns 0 after marking the end of the stream, or SPOOR_E_INVAL (chunk pending). */
int spoor_deframe_finish(struct spoor_deframe *df)
{
	if (!df || df->pos < df->len)
		return SPOOR_E_INVAL;
	df->finished = true;
	update_fast(df);
	return 0;
}

/* Returns bytes from chunk[@i] to the end of its block (block alignment on). */
static uint64_t block_left(const struct spoor_deframe *df, size_t i)
{
	return df->block_size - (df->lane_base + i) % df->block_size;
}

/* Returns SPOOR_DF_SYNC_LOST after dropping to unsynchronised at stream offset @off. */
static int lose_sync(struct spoor_deframe *df, uint64_t off, int reason, unsigned skipped,
		     struct spoor_deframe_item *item)
{
	struct df_lane *ln = df->lane;

	memset(item, 0, sizeof(*item));
	item->kind = SPOOR_DF_SYNC_LOST;
	item->offset = off;
	item->reason = reason;
	item->source = df->source;
	ln->synced = false;
	ln->nulls = 0;
	ln->skipped = skipped;
	df->fast_now = false;
	df->stats.skipped_bytes += skipped;
	df->stats.sync_losses++;
	return SPOOR_DF_SYNC_LOST;
}

/* Returns SPOOR_DF_SYNC after synchronising at chunk[@i]. */
static int gain_sync(struct spoor_deframe *df, size_t i, struct spoor_deframe_item *item)
{
	struct df_lane *ln = df->lane;

	memset(item, 0, sizeof(*item));
	item->kind = SPOOR_DF_SYNC;
	item->offset = df->base + i;
	item->bytes = ln->skipped;
	item->source = df->source;
	ln->synced = true;
	ln->skipped = 0;
	ln->nulls = 0;
	df->stats.syncs++;
	df->pos = i;
	return SPOOR_DF_SYNC;
}

/* Bytes readable from @payload to @end, as a frame's payload_room. */
static inline uint32_t room_to(const uint8_t *payload, const uint8_t *end)
{
	size_t r = (size_t)(end - payload);

	return r > UINT32_MAX ? UINT32_MAX : (uint32_t)r;
}

/* Returns the little-endian @n-byte timestamp at @q. */
static uint64_t read_ts(const uint8_t *q, unsigned n)
{
	uint64_t ts = 0;

	while (n--)
		ts = ts << 8 | q[n];
	return ts;
}

/*
 * Fills @fr from the aligned-layout frame @f (header @h, @size bytes) at
 * stream offset @off; its buffer is readable up to @end.
 */
static inline void fill_aligned(const struct spoor_deframe *df, struct spoor_frame *fr,
				const uint8_t *f, const uint8_t *end, unsigned h, unsigned size,
				uint64_t off)
{
	const struct hdr_info *inf = &df->info[h];

	fr->offset = off;
	fr->size = size;
	fr->flow = (uint8_t)((h >> 5) & 3);
	fr->type = inf->tag[TAG_TYPE];
	fr->msg = inf->tag[TAG_MSG];
	fr->payload = f + inf->poff;
	fr->payload_len = size - inf->poff;
	fr->payload_room = room_to(fr->payload, end);
	fr->source = df->source;	/* ATID for ATB, else 0 */
	if (df->src_bytes)
		fr->source = df->src_bytes > 1 ? (uint32_t)f[1] | (uint32_t)f[2] << 8 : f[1];
	fr->has_timestamp = (h & 0x80) != 0;
	fr->timestamp = (h & 0x80) ? read_ts(f + 1 + df->src_bytes, df->ts_bytes) : 0;
}

/* Returns SPOOR_DF_FRAME after making @item a frame item and counting it. */
static inline int frame_item(struct spoor_deframe *df, struct spoor_deframe_item *item)
{
	item->kind = SPOOR_DF_FRAME;
	item->offset = item->frame.offset;
	item->bytes = 0;
	item->reason = 0;
	item->source = item->frame.source;
	df->stats.frames++;
	df->stats.frame_bytes += item->frame.size;
	return SPOOR_DF_FRAME;
}

/*
 * Returns SPOOR_DF_FRAME after filling @item from the aligned frame @f
 * (header @h) at @off, in a buffer readable up to @end.
 */
static inline int emit_aligned(struct spoor_deframe *df, const uint8_t *f, const uint8_t *end,
			       unsigned h, unsigned size, uint64_t off,
			       struct spoor_deframe_item *item)
{
	fill_aligned(df, &item->frame, f, end, h, size, off);
	return frame_item(df, item);
}

/*
 * Returns SPOOR_DF_FRAME (SYNC_LOST if undecodable) for the @size-byte frame
 * @f at offset @off, in a buffer readable up to @end.
 */
static int emit_frame(struct spoor_deframe *df, const uint8_t *f, const uint8_t *end,
		      unsigned size, uint64_t off, struct spoor_deframe_item *item)
{
	struct spoor_frame *fr = &item->frame;
	int err;

	if (df->aligned)
		return emit_aligned(df, f, end, f[0], size, off, item);
	err = spoor_encap_decode(&df->cfg.encap, f, size, fr, df->scratch);
	if (err)
		return lose_sync(df, off, err, size, item);
	if (fr->payload == df->scratch)
		end = df->scratch + sizeof(df->scratch);
	fr->payload_room = room_to(fr->payload, end);
	if (df->atb)
		fr->source = df->source;
	fr->offset = off;
	return frame_item(df, item);
}

/* Returns an item kind once the frame held in the lane is complete, else 0 (chunk used up). */
static int continue_frame(struct spoor_deframe *df, struct spoor_deframe_item *item)
{
	struct df_lane *ln = df->lane;
	size_t take = ln->need - ln->have;

	if (take > df->len - df->pos)
		take = df->len - df->pos;
	memcpy(ln->buf + ln->have, df->chunk + df->pos, take);
	ln->have += (uint8_t)take;
	df->pos += take;
	df->stats.pending_bytes += take;
	if (ln->have < ln->need)
		return 0;
	df->stats.pending_bytes -= ln->need;
	ln->have = 0;
	return emit_frame(df, ln->buf, ln->buf + sizeof(ln->buf), ln->need, ln->part_off, item);
}

/* Returns 0 after holding the start of the @size-byte frame at chunk[@i] (to the chunk end). */
static int hold_frame(struct spoor_deframe *df, size_t i, int size)
{
	struct df_lane *ln = df->lane;
	size_t have = df->len - i;

	memcpy(ln->buf, df->chunk + i, have);
	ln->have = (uint8_t)have;
	ln->need = (uint8_t)size;
	ln->part_off = df->base + i;
	df->stats.pending_bytes += have;
	df->pos = df->len;
	return 0;
}

/* Returns an item kind for the next frame or sync loss while synchronised, or 0 (chunk used up). */
static int scan_synced(struct spoor_deframe *df, struct spoor_deframe_item *item)
{
	const uint8_t *p = df->chunk;
	size_t i = df->pos, n = df->len;
	int size;

	while (i < n && df->info[p[i]].size == 1)
		i++;
	df->stats.null_bytes += i - df->pos;
	df->pos = i;
	if (i == n)
		return 0;
	size = df->info[p[i]].size;
	if (size < 0) {
		df->pos = i + 1;
		return lose_sync(df, df->base + i, size, 1, item);
	}
	if (df->block_size && (uint64_t)size > block_left(df, i)) {
		df->pos = i + 1;
		return lose_sync(df, df->base + i, SPOOR_E_CROSS_BLOCK, 1, item);
	}
	if ((size_t)size > n - i)
		return hold_frame(df, i, size);
	df->pos = i + (size_t)size;
	return emit_frame(df, p + i, p + n, (unsigned)size, df->base + i, item);
}

/* Returns SPOOR_DF_SYNC where a packet is known to start, or 0 (chunk or block used up). */
static int scan_unsynced(struct spoor_deframe *df, struct spoor_deframe_item *item)
{
	struct df_lane *ln = df->lane;
	const uint8_t *p = df->chunk;
	size_t i = df->pos, end = df->len;
	uint8_t mask = df->null_mask;
	uint64_t left;
	int ret = 0;

	if (df->block_size) {
		left = block_left(df, i);
		if (left == df->block_size)
			return gain_sync(df, i, item);	/* a block starts with a packet */
		if (left < end - i)
			end = i + (size_t)left;
	}
	for (; i < end; i++) {
		if (!(p[i] & mask)) {
			if (ln->nulls < df->sync_run)
				ln->nulls++;
			continue;
		}
		if (ln->nulls >= df->sync_run) {
			ret = 1;
			break;
		}
		ln->nulls = 0;
	}
	ln->skipped += i - df->pos;
	df->stats.skipped_bytes += i - df->pos;
	df->pos = i;
	return ret ? gain_sync(df, i, item) : 0;
}

/* Returns SPOOR_DF_TRUNCATED for the next lane holding part of a frame, or 0 (the end). */
static int next_truncated(struct spoor_deframe *df, struct spoor_deframe_item *item)
{
	struct df_lane *ln;

	while (df->trunc_next < df->n_lanes) {
		ln = &df->lanes[df->trunc_next++];
		if (!ln->have)
			continue;
		memset(item, 0, sizeof(*item));
		item->kind = SPOOR_DF_TRUNCATED;
		item->offset = ln->part_off;
		item->bytes = ln->have;
		item->source = df->atb ? (uint32_t)(ln - df->lanes) : 0;
		df->stats.truncated_bytes += ln->have;
		df->stats.pending_bytes -= ln->have;
		ln->have = 0;
		return SPOOR_DF_TRUNCATED;
	}
	return 0;
}

/*
 * Returns SPOOR_DF_FRAME when the next byte heads a valid frame wholly in
 * the chunk, else 0 (the general path takes over).
 */
static inline int next_fast(struct spoor_deframe *df, struct spoor_deframe_item *item)
{
	size_t i = df->pos;
	const uint8_t *f;
	unsigned h, size;

	if (i >= df->len)
		return 0;
	f = df->chunk + i;
	h = f[0];
	size = (unsigned)df->info[h].size;
	/* a null byte (1) or an error (negative: huge unsigned) takes the general path */
	if (size - 2 > SPOOR_FRAME_MAX - 2 || size > df->len - i)
		return 0;
	df->pos = i + size;
	if (!df->aligned)
		return emit_frame(df, f, df->chunk + df->len, size, df->base + i, item);
	return emit_aligned(df, f, df->chunk + df->len, h, size, df->base + i, item);
}

/* Returns the next item's kind or 0, the general way: any state, any layout. */
static DF_NOINLINE int next_slow(struct spoor_deframe *df, struct spoor_deframe_item *item)
{
	int ret = 0;

	if (df->finished)
		return next_truncated(df, item);
	while (df->pos < df->len) {
		if (df->lane->have)
			ret = continue_frame(df, item);
		else if (df->lane->synced)
			ret = scan_synced(df, item);
		else
			ret = scan_unsynced(df, item);
		if (ret)
			break;
	}
	update_fast(df);
	return ret;
}

/* Returns the next item's kind, 0 when the chunk is consumed, or SPOOR_E_INVAL. */
int spoor_deframe_next(struct spoor_deframe *df, struct spoor_deframe_item *item, size_t size)
{
	int ret;

	if (!df || !item || size < sizeof(*item))
		return SPOOR_E_INVAL;
	if (df->fast_now) {
		ret = next_fast(df, item);
		if (ret)
			return ret;
	}
	return next_slow(df, item);
}

/*
 * Puts the complete frames of [@q, @end) into @frames (up to @fr_end) for
 * next_frames().  @plain: the layout has no srcID bytes and no timestamps,
 * so a valid frame is 1 + length bytes: the next frame's position then
 * depends on the header byte alone, not on a table load as well, and the
 * loop runs faster.  Returns the first frame not filled.
 */
static inline struct spoor_frame *run_frames(const struct spoor_deframe *df, const uint8_t **pq,
					     const uint8_t *end, struct spoor_frame *frames,
					     struct spoor_frame *fr_end, const bool plain)
{
	const struct hdr_info *info = df->info;
	const uint64_t off0 = df->base - (uint64_t)(uintptr_t)df->chunk;	/* + an address: its offset */
	const uint32_t source = df->source;
	const unsigned src_bytes = df->src_bytes, ts_bytes = df->ts_bytes;
	const uint8_t *q = *pq;
	struct spoor_frame *fr;

	for (fr = frames; fr < fr_end && q < end; fr++) {
		unsigned h = q[0];
		const struct hdr_info inf = info[h];
		unsigned size = plain ? 1 + (h & 0x1f) : (unsigned)inf.size;

		/* a null byte (1) or an error (negative: huge unsigned) ends the run */
		if ((unsigned)inf.size - 2 > SPOOR_FRAME_MAX - 2 || size > (size_t)(end - q))
			break;
		fr->offset = off0 + (uint64_t)(uintptr_t)q;
		fr->size = size;
		fr->source = source;
		memcpy((uint8_t *)fr + offsetof(struct spoor_frame, flow), inf.tag, TAG_BYTES);
		fr->timestamp = 0;
		fr->payload = q + inf.poff;
		fr->payload_len = inf.plen;
		fr->payload_room = (uint32_t)(end - fr->payload);
		if (!plain && (src_bytes | (h & 0x80))) {
			if (src_bytes)
				fr->source = src_bytes > 1 ? (uint32_t)q[1] | (uint32_t)q[2] << 8 : q[1];
			if (h & 0x80)
				fr->timestamp = read_ts(q + 1 + src_bytes, ts_bytes);
		}
		q += size;
	}
	*pq = q;
	return fr;
}

static inline uint64_t load64_le(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

/* Bits [@pos, @pos + @n) (n 0..64) of the LSB-first bit stream @p; reads p[pos / 8 .. pos / 8 + 8]. */
static inline uint64_t bits_at(const uint8_t *p, unsigned pos, unsigned n)
{
	unsigned sh = pos % 8;
	uint64_t v = load64_le(p + pos / 8) >> sh;

	if (sh)
		v |= (uint64_t)p[pos / 8 + 8] << (64 - sh);
	return n >= 64 ? v : v & ((UINT64_C(1) << n) - 1);
}

/*
 * Moves the @avail payload bits at bit @pos of @body into @out, byte-aligned,
 * a word at a time (reading up to 8 bytes past the body, writing up to 8
 * past the payload), and returns the payload length: spoor_encap_decode()'s
 * realignment, the leftover bits ending it the same way.
 */
static inline uint32_t realign_words(const uint8_t *body, unsigned pos, unsigned avail,
				     uint8_t *out)
{
	const uint8_t *src = body + pos / 8;
	unsigned sh = pos % 8, whole = avail / 8;

	for (unsigned i = 0; i <= whole; i += 8) {
		uint64_t w = load64_le(src + i) >> sh;

		if (sh)
			w |= (uint64_t)src[i + 8] << (64 - sh);
		w = htole64(w);
		memcpy(out + i, &w, sizeof(w));
	}
	return spoor_encap_payload_end(out, whole, avail % 8);
}

/*
 * next_frames() for layouts whose fields are not whole bytes (a srcID not a
 * multiple of 8 bits, type bits): the fields are read and the payloads
 * realigned a word at a time, into the deframer's slots, for frames with 8
 * bytes after them in the chunk (the others take next()'s way).  Returns
 * the first frame not filled.
 */
static struct spoor_frame *run_frames_bits(struct spoor_deframe *df, const uint8_t **pq,
					   const uint8_t *end, struct spoor_frame *frames,
					   struct spoor_frame *fr_end)
{
	const struct spoor_encap_config *ec = &df->cfg.encap;
	const uint64_t off0 = df->base - (uint64_t)(uintptr_t)df->chunk;
	const unsigned s = ec->src_bits, t8 = ec->ts_bytes * 8, y = ec->type_bits;
	const uint8_t *q = *pq;
	struct spoor_frame *fr;

	if (fr_end - frames > BATCH_SLOTS)
		fr_end = frames + BATCH_SLOTS;
	for (fr = frames; fr < fr_end && q < end; fr++) {
		const unsigned h = q[0], size = (unsigned)df->info[h].size;
		const uint8_t *body = q + 1;
		uint8_t *slot = df->slots[fr - frames];
		unsigned pos = s, type;

		if (size - 2 > SPOOR_FRAME_MAX - 2 || size + 8 > (size_t)(end - q))
			break;
		fr->offset = off0 + (uint64_t)(uintptr_t)q;
		fr->size = size;
		fr->flow = (uint8_t)((h >> 5) & 3);
		fr->source = ec->kind == SPOOR_ENCAP_ATB ? df->source : (uint32_t)bits_at(body, 0, s);
		fr->has_timestamp = (h & 0x80) != 0;
		fr->timestamp = 0;
		if (h & 0x80) {
			fr->timestamp = bits_at(body, pos, t8);
			pos += t8;
		}
		type = ec->kind == SPOOR_ENCAP_RAW ? fr->flow : (unsigned)bits_at(body, pos, y);
		fr->type = (uint8_t)type;
		fr->msg = df->type_msg[type];
		fr->payload_len = realign_words(body, pos + y, (h & 0x1f) * 8 - s % 8 - y, slot);
		fr->payload = slot;
		fr->payload_room = SLOT_BYTES;
		q += size;
	}
	*pq = q;
	return fr;
}

/* Returns the number of frames put in @frames (0..@max), or SPOOR_E_INVAL. */
int spoor_deframe_next_frames(struct spoor_deframe *df, struct spoor_frame *frames, size_t max)
{
	const uint8_t *start, *q, *end;
	struct spoor_frame *fr;

	if (!df || (!frames && max))
		return SPOOR_E_INVAL;
	if (max > INT_MAX)
		max = INT_MAX;
	if (!df->fast_now || df->pos >= df->len || !max)
		return 0;
	/* One pass looks at most 4 GiB ahead, so that payload_room fits its 32 bits. */
	start = q = df->chunk + df->pos;
	end = q + (df->len - df->pos > UINT32_MAX ? UINT32_MAX : df->len - df->pos);
	if (!df->aligned)
		fr = run_frames_bits(df, &q, end, frames, frames + max);
	else if (df->plain)
		fr = run_frames(df, &q, end, frames, frames + max, true);
	else
		fr = run_frames(df, &q, end, frames, frames + max, false);
	df->pos += (size_t)(q - start);
	df->stats.frames += (uint64_t)(fr - frames);
	df->stats.frame_bytes += (uint64_t)(q - start);
	return (int)(fr - frames);
}

int spoor_deframe_drain(struct spoor_deframe *df,
			void (*on_frames)(void *ctx, const struct spoor_frame *frames, size_t n),
			void (*on_item)(void *ctx, const struct spoor_deframe_item *item), void *ctx)
{
	struct spoor_frame frames[BATCH_SLOTS];
	struct spoor_deframe_item it;
	int k, ret;

	if (!df || !on_frames)
		return SPOOR_E_INVAL;
	for (;;) {
		k = spoor_deframe_next_frames(df, frames, BATCH_SLOTS);
		if (k > 0)
			on_frames(ctx, frames, (size_t)k);
		if (k == BATCH_SLOTS)
			continue;
		ret = spoor_deframe_next(df, &it, sizeof(it));
		if (ret <= 0)
			return ret;
		if (ret == SPOOR_DF_FRAME)
			on_frames(ctx, &it.frame, 1);
		else if (on_item)
			on_item(ctx, &it);
	}
}

/* Returns 0 after copying the counters into @stats, or SPOOR_E_INVAL. */
int spoor_deframe_stats(const struct spoor_deframe *df, struct spoor_deframe_stats *stats,
			size_t size)
{
	if (!df || !stats || size < sizeof(*stats))
		return SPOOR_E_INVAL;
	*stats = df->stats;
	return 0;
}

/* Returns the stream offset of the next byte to be examined. */
uint64_t spoor_deframe_offset(const struct spoor_deframe *df)
{
	return df ? df->base + df->pos : 0;
}
