/* SPDX-License-Identifier: MIT */
/*
 * Instruction trace reconstruction (E-Trace v2.0, "Decoder"): te_inst
 * packets of one source plus the program image in, blocks of retired
 * instructions and events out.
 *
 * A block is a run of retired instructions at consecutive addresses that
 * ends with a control-flow instruction, a trap, or the end of the trace.
 * Blocks are what coverage, profiling and GDB consume; the per-instruction
 * view (spoor_decoder_insn()) sits on top of them.
 *
 * Use: put() one packet, then next() until it returns 0, then put() the
 * next packet.  next() never queues more than a few items: a packet that
 * retires millions of instructions is reconstructed as the caller drains it,
 * in constant memory.
 */
#ifndef SPOOR_DECODER_H
#define SPOOR_DECODER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spoor/image.h"
#include "spoor/insn.h"
#include "spoor/params.h"
#include "spoor/te_inst.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where implementations of the spec differ, the rule to follow. */
enum spoor_dec_compat {
	/*
	 * The reference flow (default): calls are jal/jalr/c.jal/c.jalr
	 * writing x1 only, returns jalr/c.jr reading x1 with rd = x0, and a
	 * sync start mid-trace stops where the address is reached whatever
	 * the privilege.  Off: the spec's x1/x5 link-register rules.
	 */
	SPOOR_COMPAT_REFERENCE = 1 << 0,
};

struct spoor_decoder_config {
	const struct spoor_params *params;	/* kept by pointer: must outlive the decoder */
	struct spoor_image *image;		/* likewise */
	uint32_t options;			/* enum spoor_option until a support packet */
	uint32_t compat;			/* enum spoor_dec_compat */
	uint32_t source;			/* the source (hart) this decoder follows, for items */
	/*
	 * Trap vectors (mtvec, stvec values: base | mode, mode 1 = vectored),
	 * for implicit exception mode, where trap packets omit the handler
	 * address: the handler is found from the privilege and cause.
	 */
	uint64_t mtvec, stvec;
};

/* How a block ended. */
enum spoor_block_end {
	SPOOR_BLK_TAKEN,	/* conditional branch taken (target in next) */
	SPOOR_BLK_NOT_TAKEN,	/* conditional branch not taken */
	SPOOR_BLK_JUMP,		/* inferable jump (jal, c.j, ...) */
	SPOOR_BLK_UNINFERABLE,	/* uninferable discontinuity (jalr, xret, ...), target in next */
	SPOOR_BLK_ECALL,	/* ecall/ebreak: retired, then the trap */
	SPOOR_BLK_TRAP,		/* an exception or interrupt followed */
	SPOOR_BLK_END,		/* the trace ended, or was lost, after the last instruction */
	SPOOR_BLK_OPEN,		/* spoor_decoder_flush(!final): the open block's instructions so
				 * far; the ones after them start the next block */
};

struct spoor_block {
	uint64_t start;		/* first instruction */
	uint64_t last;		/* last instruction (inclusive) */
	uint64_t ninsn;		/* instructions retired */
	uint64_t next;		/* address executed next, where known (0 for END/TRAP/OPEN) */
	uint8_t end;		/* enum spoor_block_end */
	uint8_t last_len;	/* size of the last instruction (2 or 4) */
	uint8_t priv;		/* privilege */
};

enum spoor_event_kind {
	SPOOR_EV_SYNC,		/* synchronised (format 3.0/3.1): address, priv, context */
	SPOOR_EV_TRAP,		/* trap: cause, interrupt, tval, epc (exceptions), address = handler or 0 */
	SPOOR_EV_PRIV,		/* privilege changed to priv */
	SPOOR_EV_CONTEXT,	/* context changed (format 3.2 or in a sync) */
	SPOOR_EV_TIME,		/* a time value from a packet */
	SPOOR_EV_START,		/* tracing (re)started: support packet, ienable, options */
	SPOOR_EV_STOP,		/* tracing stopped: support packet with qual_status ended_rep/ntr */
	SPOOR_EV_LOST,		/* the encoder lost packets (trace_lost) */
	SPOOR_EV_GAP,		/* decoding stopped at an error (reason) until the next sync */
};

struct spoor_event {
	uint8_t kind;		/* enum spoor_event_kind */
	uint8_t priv;
	bool interrupt;
	bool has_epc;
	int reason;		/* SPOOR_EV_GAP: negative spoor_error */
	uint64_t address;	/* SYNC: the address; TRAP: handler (thaddr) or 0; GAP: the pc */
	uint64_t cause;
	uint64_t tval;
	uint64_t epc;
	uint64_t context;
	uint64_t time;
	uint32_t options;	/* START: enum spoor_option in force */
	uint8_t qual_status;	/* START/STOP/LOST */
};

enum spoor_dec_item_kind {
	SPOOR_DEC_BLOCK = 1,
	SPOOR_DEC_EVENT = 2,
};

struct spoor_dec_item {
	uint8_t kind;		/* enum spoor_dec_item_kind */
	uint32_t source;
	uint64_t offset;	/* stream offset of the packet that produced it */
	union {
		struct spoor_block block;	/* SPOOR_DEC_BLOCK */
		struct spoor_event event;	/* SPOOR_DEC_EVENT */
	};
};

struct spoor_decoder_stats {
	uint64_t packets;
	uint64_t instructions;
	uint64_t blocks;
	uint64_t branches;	/* conditional branches resolved */
	uint64_t gaps;
	uint64_t traps;
};

struct spoor_decoder;

/* Returns a new decoder, or NULL (bad configuration or no memory). */
struct spoor_decoder *spoor_decoder_new(const struct spoor_decoder_config *cfg);
void spoor_decoder_free(struct spoor_decoder *dec);

/*
 * Gives the decoder the next te_inst packet of its source, which came from
 * stream offset @offset.  The previous packet must be drained (next()
 * returned 0).  Returns 0, or SPOOR_E_INVAL (not drained, NULL).
 * Inconsistencies are not errors here: next() reports them as GAP events
 * and the decoder waits for the next synchronisation packet.
 */
int spoor_decoder_put(struct spoor_decoder *dec, const struct spoor_te_inst *pkt,
		      uint64_t offset);

/*
 * Returns the next item: SPOOR_DEC_BLOCK or SPOOR_DEC_EVENT (@item filled),
 * 0 when the packet is fully processed, or SPOOR_E_INVAL.  @size is
 * sizeof(*item) as the caller knows it.
 */
int spoor_decoder_next(struct spoor_decoder *dec, struct spoor_dec_item *item, size_t size);

/*
 * The fast path for bulk consumers: puts up to @max blocks into @blocks and
 * returns how many.  It stops at anything that is not a block (an event,
 * the start of the next packet's processing, the end): call next() when it
 * returns fewer than @max.  Mixing the two gives the same items as next()
 * alone.  Returns the count or SPOOR_E_INVAL.
 */
int spoor_decoder_next_blocks(struct spoor_decoder *dec, struct spoor_block *blocks, size_t max);

/*
 * The trace lost bytes here (@reason: a negative spoor_error, such as
 * SPOOR_E_LOST for a probe's overflow): the open block ends, a GAP event
 * says so (unless decoding already waits for a sync), and decoding resumes
 * at the next synchronisation packet.  Call with nothing pending (after
 * next() returned 0); take the block and event with next().  Returns 0 or
 * SPOOR_E_INVAL.
 */
int spoor_decoder_gap(struct spoor_decoder *dec, int reason);

/*
 * End of the trace: the open block, if any, is emitted by next() with end
 * SPOOR_BLK_END (@final) or SPOOR_BLK_OPEN (not final: decoding goes on,
 * the instructions after it in the blocks that follow).
 * Returns 0 or SPOOR_E_INVAL (not drained).
 */
int spoor_decoder_flush(struct spoor_decoder *dec, bool final);

/*
 * The run-time layout options (enum spoor_te_layout) the next packet of this
 * source is encoded with, as the support packets so far set them: pass them
 * to spoor_te_inst_decode_layout().
 */
uint32_t spoor_decoder_layout(const struct spoor_decoder *dec);

/* Copies the counters.  Returns 0 or SPOOR_E_INVAL. */
int spoor_decoder_stats(const struct spoor_decoder *dec, struct spoor_decoder_stats *st,
			size_t size);

/*
 * Per-instruction view of a block: the instruction at @addr (inside @blk)
 * and the address of the one after it.  Returns 0, or SPOOR_E_NO_IMAGE /
 * SPOOR_E_BAD_INSN.  Uses the decoder's instruction cache.
 */
int spoor_decoder_insn(struct spoor_decoder *dec, uint64_t addr, struct spoor_insn *insn);

#ifdef __cplusplus
}
#endif

#endif
