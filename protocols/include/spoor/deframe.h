/* SPDX-License-Identifier: MIT */
/*
 * Streaming deframer: finds packet boundaries in a byte stream and splits it
 * into frames (see encap.h), per source.
 *
 * Alignment: a stream starts unsynchronised (unless start_synced).  It
 * becomes synchronised after a run of sync_run null bytes (zero bytes, or
 * for E-Trace-Encap bytes whose length field is 0): the first non-null byte
 * after the run starts a packet.  With block alignment (block_size M > 0)
 * every M-byte block also starts with a packet, packets never span a block,
 * and zero bytes pad to the block end.  On an impossible header or length
 * the deframer drops to unsynchronised, reports a SYNC_LOST item with the
 * offset and reason, counts skipped bytes, and reports SYNC when it resumes.
 *
 * Input arrives in chunks of any size with identical results; a frame split
 * across chunks is buffered internally (at most SPOOR_FRAME_MAX bytes per
 * source).  The caller owns the chunk and keeps it alive until next()
 * returns 0 (chunk consumed).  Memory does not grow with stream length.
 *
 * Every byte fed is accounted for in exactly one counter of struct
 * spoor_deframe_stats: frame_bytes + null_bytes + skipped_bytes +
 * truncated_bytes + pending_bytes == bytes once next() has returned 0.
 * Block positions count each source's (ATID's) own bytes; item offsets are
 * offsets in the whole stream fed, all sources together.
 * Pure: no I/O, no globals.
 */
#ifndef SPOOR_DEFRAME_H
#define SPOOR_DEFRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spoor/encap.h"

#ifdef __cplusplus
extern "C" {
#endif

struct spoor_deframe_config {
	struct spoor_encap_config encap;
	unsigned sync_run;	/* null bytes that make a sync sequence; 0 = spoor_encap_sync_run() */
	unsigned block_size;	/* M-byte block alignment, 0 = none */
	bool start_synced;	/* the first byte starts a packet (a capture from the encoder's start) */
};

enum spoor_deframe_kind {
	SPOOR_DF_FRAME = 1,	/* item.frame is a complete frame */
	SPOOR_DF_SYNC,		/* synchronised at item.offset; item.bytes skipped before it */
	SPOOR_DF_SYNC_LOST,	/* impossible header at item.offset; item.reason says why */
	SPOOR_DF_TRUNCATED,	/* end of stream inside a frame: item.bytes lost at item.offset */
	SPOOR_DF_GAP,		/* the source lost item.bytes at item.offset (spoor_deframe_gap()) */
};

/* Bytes lost in a gap of unknown size (spoor_deframe_gap()). */
#define SPOOR_DEFRAME_LOST_UNKNOWN UINT64_MAX

struct spoor_deframe_item {
	enum spoor_deframe_kind kind;
	uint64_t offset;	/* stream offset the item refers to */
	uint64_t bytes;		/* SYNC: bytes skipped while unsynchronised; TRUNCATED: bytes lost */
	int reason;		/* SYNC_LOST: negative spoor_error */
	uint32_t source;	/* source (ATB lane) the item belongs to */
	struct spoor_frame frame;	/* SPOOR_DF_FRAME only */
};

struct spoor_deframe_stats {
	uint64_t bytes;		/* bytes fed */
	uint64_t frames;	/* complete frames */
	uint64_t frame_bytes;	/* bytes in complete frames */
	uint64_t null_bytes;	/* idle / alignment / block padding bytes while synchronised */
	uint64_t skipped_bytes;	/* bytes dropped while unsynchronised */
	uint64_t truncated_bytes;	/* bytes of a frame cut off by the end of stream */
	uint64_t sync_losses;	/* SYNC_LOST items */
	uint64_t syncs;		/* SYNC items */
	uint64_t pending_bytes;	/* bytes held of frames not yet complete */
	uint64_t gaps;		/* spoor_deframe_gap() calls */
	uint64_t lost_bytes;	/* bytes they said were lost (the known ones) */
};

struct spoor_deframe;

/* Returns a new deframer, or NULL on an invalid configuration or no memory. */
struct spoor_deframe *spoor_deframe_new(const struct spoor_deframe_config *cfg);
void spoor_deframe_free(struct spoor_deframe *df);

/*
 * Sets the next chunk of input.  @source is the ATID for ATB (each ATID is
 * its own byte stream with its own alignment state, up to 128 ATIDs) and
 * ignored otherwise.  The previous chunk must have been consumed.
 * Returns 0, SPOOR_E_INVAL (chunk still pending, bad source).
 */
int spoor_deframe_feed(struct spoor_deframe *df, const uint8_t *buf, size_t len, unsigned source);

/*
 * Marks the end of the stream: a frame still incomplete is reported by a
 * SPOOR_DF_TRUNCATED item from next().  Returns 0 or SPOOR_E_INVAL.
 */
int spoor_deframe_finish(struct spoor_deframe *df);

/*
 * Returns the next item: SPOOR_DF_FRAME, SPOOR_DF_SYNC, SPOOR_DF_SYNC_LOST
 * or SPOOR_DF_TRUNCATED (@item filled), 0 when the chunk is consumed (feed
 * more, or after finish(): the end), or SPOOR_E_INVAL.  @size is
 * sizeof(*item) as the caller knows it.  A frame's payload pointer is valid
 * until the next call.
 */
int spoor_deframe_next(struct spoor_deframe *df, struct spoor_deframe_item *item, size_t size);

/*
 * The fast path for bulk consumers: puts up to @max complete frames of the
 * current chunk into @frames and returns how many (0..@max).  It stops at
 * anything else — idle bytes, a sync event, a frame split across chunks or
 * too near the chunk's end, block alignment — so call spoor_deframe_next()
 * when it returns fewer than @max: that handles every case.  Mixing the two
 * gives the same frames and counters as next() alone.  Payloads point into
 * the caller's chunk, or, for layouts whose payloads are not byte-aligned
 * (srcID bits not a multiple of 8, type bits), into the deframer's own
 * buffer (up to SPOOR_DEFRAME_BATCH frames a call), valid until the next call.
 * Returns the count or SPOOR_E_INVAL.
 */
int spoor_deframe_next_frames(struct spoor_deframe *df, struct spoor_frame *frames, size_t max);

/* The most frames spoor_deframe_drain() hands on in one call. */
#define SPOOR_DEFRAME_BATCH 64

/*
 * Hands every item of the current chunk on, as a bulk consumer takes them
 * (next_frames() in batches, next() for the rest): complete frames to
 * @on_frames, up to SPOOR_DEFRAME_BATCH at a time (payloads valid during
 * the call), every
 * other item to @on_item (may be NULL).  Returns 0 once the chunk is
 * consumed (after finish(): the stream's end), or SPOOR_E_INVAL.
 */
int spoor_deframe_drain(struct spoor_deframe *df,
			void (*on_frames)(void *ctx, const struct spoor_frame *frames, size_t n),
			void (*on_item)(void *ctx, const struct spoor_deframe_item *item), void *ctx);

/*
 * The bytes of @source's stream (the ATID for ATB, else ignored) that
 * would come next are lost: @lost of them (SPOOR_DEFRAME_LOST_UNKNOWN: no
 * one knows how many), as a probe's overflow says.  The current chunk must
 * have been consumed.  A frame held in part is dropped (counted as
 * truncated), the lane goes unsynchronised — the next frame is found again
 * by zero-run alignment — and the stream offsets move on by @lost.  Fills
 * @item (SPOOR_DF_GAP: where and how much) for the caller to report.
 * Returns SPOOR_DF_GAP or SPOOR_E_INVAL.
 */
int spoor_deframe_gap(struct spoor_deframe *df, unsigned source, uint64_t lost,
		      struct spoor_deframe_item *item);

/* Copies the counters into @stats (@size = sizeof(*stats)).  Returns 0 or SPOOR_E_INVAL. */
int spoor_deframe_stats(const struct spoor_deframe *df, struct spoor_deframe_stats *stats,
			size_t size);

/* Stream offset of the next byte to be examined. */
uint64_t spoor_deframe_offset(const struct spoor_deframe *df);

#ifdef __cplusplus
}
#endif

#endif /* SPOOR_DEFRAME_H */
