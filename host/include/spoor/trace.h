/* SPDX-License-Identifier: MIT */
/*
 * The trace pipeline, composed once: bytes → frames (deframe.h) → te_inst
 * packets (te_inst.h) → blocks and events (decoder.h), one decoder per
 * source (hart) created when its first packet comes.  Every consumer — the
 * spoor commands, the gdbserver, live streaming, benchmarks and tests —
 * feeds bytes in chunks of any size and gets blocks and events through a
 * table of callbacks; none wires the stages itself.
 *
 * Use: spoor_trace_new(), then spoor_trace_feed() for each chunk as it
 * arrives (everything it makes is handed to the callbacks before it
 * returns), then spoor_trace_finish() at the end of the stream.
 */
#ifndef SPOOR_TRACE_H
#define SPOOR_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spoor/board.h"
#include "spoor/decoder.h"
#include "spoor/deframe.h"
#include "spoor/image.h"
#include "spoor/params.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where the pipeline's output goes.  Any callback may be NULL. */
struct spoor_trace_ops {
	/*
	 * @n (>= 1) blocks of @source, in order, all made from the packet at
	 * stream offset @offset; the array is valid during the call.
	 */
	void (*blocks)(void *ctx, uint32_t source, uint64_t offset,
		       const struct spoor_block *blocks, size_t n);
	/*
	 * A decoder event (item->kind SPOOR_DEC_EVENT).  The pipeline adds one
	 * kind: after the blocks and events of a packet whose frame carries a
	 * timestamp, SPOOR_EV_TIME with the source's time (the frame's
	 * ts_bytes-wide counter widened to 64 bits across its wrap-arounds).
	 */
	void (*event)(void *ctx, const struct spoor_dec_item *item);
	/*
	 * A deframer item other than a frame: SPOOR_DF_SYNC (synchronised),
	 * SPOOR_DF_SYNC_LOST, SPOOR_DF_TRUNCATED.
	 */
	void (*stream)(void *ctx, const struct spoor_deframe_item *item);
	/* A te_inst frame whose payload does not decode (@err: negative spoor_error). */
	void (*bad_packet)(void *ctx, uint32_t source, uint64_t offset, int err);
};

struct spoor_trace_config {
	struct spoor_params params;		/* copied */
	struct spoor_deframe_config deframe;	/* encapsulation, alignment, start_synced */
	unsigned atid;				/* ATB: the ATID of the bytes fed */
	struct spoor_image *image;		/* kept by pointer: must outlive the trace */
	uint32_t options;			/* enum spoor_option until a support packet */
	uint32_t compat;			/* enum spoor_dec_compat */
	uint64_t mtvec, stvec;			/* trap vectors (implicit exception) */
	int64_t only_source;			/* -1: every source; else only this one */
	char isa[32];				/* the hart's ISA (a board's); "" unknown */
};

/*
 * Fills @cfg with the defaults: spec parameters, raw encapsulation, a
 * synchronised start, the reference flow's rules, every source.
 */
void spoor_trace_config_init(struct spoor_trace_config *cfg);

/*
 * Fills @cfg from board description @b: its encoder parameters,
 * encapsulation, options (the board's features: what a debugger or spoor
 * virt --trace-on-start turns on) and trap-vector hints; the stream is
 * taken to start unsynchronised (a probe joining a running trace port).
 */
void spoor_trace_config_board(struct spoor_trace_config *cfg, const struct spoor_board *b);

/*
 * Checks that @cfg can decode: the parameters are consistent, the
 * encapsulation options fit it, and the program image fits the hart — its
 * ELF class is the board ISA's XLEN, it uses compressed instructions only if
 * the ISA has C, and iaddress_width_p is not wider than its XLEN.  Returns 0,
 * SPOOR_E_BAD_CONFIG or SPOOR_E_MISMATCH with @diag naming both sides.
 */
int spoor_trace_config_check(const struct spoor_trace_config *cfg, struct spoor_diag *diag);

struct spoor_trace_stats {
	struct spoor_deframe_stats deframe;
	struct spoor_decoder_stats decoder;	/* summed over the sources */
	uint64_t packets;		/* te_inst packets decoded */
	uint64_t bad_packets;		/* te_inst frames that did not decode */
	uint64_t payload_bits;		/* bits of te_inst payload */
	uint64_t other_frames;		/* frames of other message types or sources */
	uint32_t sources;		/* decoders created */
};

struct spoor_trace;

/*
 * Returns a new pipeline, or NULL (spoor_trace_config_check() fails: the parameters
 * fail spoor_params_check(), a bad encapsulation; or no memory).
 */
struct spoor_trace *spoor_trace_new(const struct spoor_trace_config *cfg,
				    const struct spoor_trace_ops *ops, void *ctx);
void spoor_trace_free(struct spoor_trace *tr);

/*
 * Runs the next @len bytes of the stream through the pipeline, handing
 * everything they complete to the callbacks before it returns (a frame
 * split across chunks is kept until its end comes).  The caller may reuse
 * @buf afterwards.  Returns 0, SPOOR_E_INVAL (finished, NULL) or
 * SPOOR_E_NOMEM (a new source's decoder).
 */
int spoor_trace_feed(struct spoor_trace *tr, const uint8_t *buf, size_t len);

/*
 * The source lost @lost bytes of the stream here (a probe's overflow, a
 * capture file's LOSS record; SPOOR_DEFRAME_LOST_UNKNOWN when no one knows
 * how many): the stream callback gets a SPOOR_DF_GAP item, a frame begun
 * before it is dropped, the deframer looks for the next frame by zero-run
 * alignment, and every source's decoder ends its block with a GAP event
 * (reason SPOOR_E_LOST) and waits for the next synchronisation packet.
 * Stream offsets move on by @lost.  Returns 0 or SPOOR_E_INVAL.
 */
int spoor_trace_gap(struct spoor_trace *tr, uint64_t lost);

/*
 * End of the stream: a frame cut off is reported (stream callback,
 * SPOOR_DF_TRUNCATED) and every source's open block is handed out, ending
 * SPOOR_BLK_END.  Returns 0 or SPOOR_E_INVAL.
 */
int spoor_trace_finish(struct spoor_trace *tr);

/*
 * Hands out every source's open block without ending the trace (end
 * SPOOR_BLK_OPEN): "what ran so far" while more may come.  Decoding goes on
 * with the next feed() as if nothing happened.  Returns 0 or SPOOR_E_INVAL.
 */
int spoor_trace_flush(struct spoor_trace *tr);

/*
 * The decoder of @source, or NULL when no packet of it came yet: for the
 * per-instruction view (spoor_decoder_insn()) and its statistics.
 */
struct spoor_decoder *spoor_trace_decoder(struct spoor_trace *tr, uint32_t source);

/* Copies the counters (@size = sizeof(*st)).  Returns 0 or SPOOR_E_INVAL. */
int spoor_trace_stats(const struct spoor_trace *tr, struct spoor_trace_stats *st, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* SPOOR_TRACE_H */
