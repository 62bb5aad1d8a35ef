/* SPDX-License-Identifier: MIT */
/*
 * Bounded execution history: the last N blocks of each source (hart), in a
 * ring, so "the last million instructions" costs memory in proportion to
 * blocks, not instructions.  A consumer of the trace pipeline (trace.h)
 * adds blocks as they come; readers (the gdbserver's btrace, analysis)
 * address them by sequence number: the n-th block ever added to a source
 * is number n (from 0), whether it is still held or already dropped, so a
 * reader that remembers the last number it saw asks for what came since.
 *
 * Not thread-safe: a consumer that adds from one thread and reads from
 * another holds its own lock around both.
 */
#ifndef SPOOR_HISTORY_H
#define SPOOR_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "spoor/decoder.h"

#ifdef __cplusplus
extern "C" {
#endif

struct spoor_history_info {
	uint64_t first;		/* sequence number of the oldest block held */
	uint64_t next;		/* sequence number the next block will get (next - first held) */
	uint64_t insns;		/* instructions in the blocks held */
	uint64_t total_insns;	/* instructions ever added */
	uint64_t gaps;		/* gaps marked (spoor_history_gap()) */
};

struct spoor_history;

/* Returns a history keeping @max_blocks (>= 1) blocks per source, or NULL. */
struct spoor_history *spoor_history_new(size_t max_blocks);
void spoor_history_free(struct spoor_history *h);

/* The number of blocks kept per source. */
size_t spoor_history_size(const struct spoor_history *h);

/*
 * Keeps @max_blocks (>= 1) per source from now on; shrinking drops the
 * oldest.  Returns 0, SPOOR_E_INVAL or SPOOR_E_NOMEM (nothing changed).
 */
int spoor_history_resize(struct spoor_history *h, size_t max_blocks);

/*
 * Appends @n blocks of @source, oldest first.  A block that continues an
 * open one (the previous block ended SPOOR_BLK_OPEN and this one starts
 * right after its last instruction) extends it instead of taking a new
 * number.  Returns 0, SPOOR_E_INVAL or SPOOR_E_NOMEM.
 */
int spoor_history_add(struct spoor_history *h, uint32_t source, const struct spoor_block *blocks,
		      size_t n);

/*
 * Notes that the trace of @source lost track (a decoder gap, lost packets):
 * counted, and the next block is not merged with the one before.  Returns
 * 0, SPOOR_E_INVAL or SPOOR_E_NOMEM.
 */
int spoor_history_gap(struct spoor_history *h, uint32_t source);

/* Forgets every block of every source; sequence numbers go on. */
void spoor_history_clear(struct spoor_history *h);

/*
 * Puts up to @max of the sources that have had blocks, in increasing
 * order, into @out; returns how many there are (may exceed @max).
 */
size_t spoor_history_sources(const struct spoor_history *h, uint32_t *out, size_t max);

/* Fills @info for @source (zeros when it has none).  Returns 0 or SPOOR_E_INVAL. */
int spoor_history_info(const struct spoor_history *h, uint32_t source,
		       struct spoor_history_info *info, size_t size);

/*
 * Returns block number @seq of @source, or NULL when it is not held (not
 * yet added, or dropped).  Valid until the history changes.
 */
const struct spoor_block *spoor_history_block(const struct spoor_history *h, uint32_t source,
					      uint64_t seq);

#ifdef __cplusplus
}
#endif

#endif /* SPOOR_HISTORY_H */
