/* SPDX-License-Identifier: MIT */
/*
 * Call stacks rebuilt from blocks and events, one per source (hart), for
 * the profile, call tree and timeline sinks.  Calls and returns come from
 * spoor's own classification of each block's last instruction (insn.h:
 * jal/jalr writing a link register call, jalr/c.jr reading one return) and
 * the block's next address; traps and interrupts (EV_TRAP) push a handler
 * frame that an xret (mret, sret) pops.  Control that moves into another
 * function without a call replaces the top frame: to the start of a
 * function it is a tail call, elsewhere a jump.  Hence the top frame's
 * function is always the function of the instructions retiring.
 *
 * Nothing grows without bound: a return that matches no frame's return
 * address unwinds to the nearest frame whose function holds the target
 * (longjmp), or else starts the stack afresh there; a trap that never
 * returns is unwound by the next xret or reset; a stack deeper than
 * max_depth, a gap in the trace (EV_GAP) and the end of the trace
 * (spoor_callstack_reset()) end every frame.  Every frame entered is left
 * exactly once, in nesting order, so consumers can draw slices.
 *
 * Time: each source counts the instructions it retired; when the trace
 * has timestamps (EV_TIME events) its time is the last one seen.
 */
#ifndef SPOOR_CALLSTACK_H
#define SPOOR_CALLSTACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spoor/decoder.h"
#include "spoor/funcs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a frame was entered. */
enum spoor_cs_kind {
	SPOOR_CS_ROOT,	/* where the trace, or a new stack, began: the caller is unknown */
	SPOOR_CS_CALL,	/* a call instruction */
	SPOOR_CS_TAIL,	/* a jump to a function's start from another function: tail call */
	SPOOR_CS_JUMP,	/* control moved into another function's middle without a call */
	SPOOR_CS_TRAP,	/* an exception handler (ecall, ebreak, faults) */
	SPOOR_CS_INTERRUPT,	/* an interrupt handler */
};

/* Why a frame was left. */
enum spoor_cs_leave {
	SPOOR_CS_LEAVE_RETURN,	/* it returned (a return to its return address, or an xret of a handler) */
	SPOOR_CS_LEAVE_UNWIND,	/* a return or xret further down the stack unwound it (longjmp) */
	SPOOR_CS_LEAVE_REPLACED,	/* a tail call or jump took its place */
	SPOOR_CS_LEAVE_RESET,	/* the stack was given up: a gap, the trace's end, too deep, a
				 * return or xret that matches nothing */
};

struct spoor_cs_frame {
	uint32_t func;		/* spoor_funcs number */
	uint8_t kind;		/* enum spoor_cs_kind */
	bool interrupt;		/* TRAP/INTERRUPT: the event's interrupt flag */
	uint64_t site;		/* CALL/TAIL/JUMP: the instruction that made it; TRAP: the epc
				 * (0 when unknown); ROOT: the first instruction */
	uint64_t ret;		/* CALL: the return address expected; else 0 */
	uint64_t cause;		/* TRAP/INTERRUPT: the cause */
	uint64_t insns;		/* the source's instruction count when it was entered */
	uint64_t time;		/* the source's time when it was entered */
};

struct spoor_callstack_ops {
	/*
	 * Block @b retired in the top frame, stack[depth - 1] (depth >= 1);
	 * @bi is what the block means (funcs.h).
	 */
	void (*insns)(void *ctx, uint32_t source, const struct spoor_cs_frame *stack, unsigned depth,
		      const struct spoor_block *b, const struct spoor_block_info *bi);
	/* stack[depth - 1] was just entered. */
	void (*enter)(void *ctx, uint32_t source, const struct spoor_cs_frame *stack, unsigned depth);
	/* stack[depth - 1] is being left (still on the stack during the call). */
	void (*leave)(void *ctx, uint32_t source, const struct spoor_cs_frame *stack, unsigned depth,
		      enum spoor_cs_leave why);
	/*
	 * The source's clock moved on by @elapsed timestamp ticks (EV_TIME),
	 * with @depth (maybe 0) frames on its stack.
	 */
	void (*time)(void *ctx, uint32_t source, const struct spoor_cs_frame *stack, unsigned depth,
		     uint64_t elapsed);
};

struct spoor_callstack_config {
	struct spoor_funcs *funcs;	/* kept by pointer */
	unsigned max_depth;		/* 0: SPOOR_CALLSTACK_DEPTH */
	const struct spoor_callstack_ops *ops;	/* any callback may be NULL */
	void *ctx;
};

#define SPOOR_CALLSTACK_DEPTH 4096

struct spoor_callstack;

/* Returns a new set of call stacks (every source empty), or NULL. */
struct spoor_callstack *spoor_callstack_new(const struct spoor_callstack_config *cfg);
/* Frees @cs (NULL is fine) without calling the callbacks for open frames. */
void spoor_callstack_free(struct spoor_callstack *cs);

/* Follows @n blocks of @source.  Returns 0, SPOOR_E_INVAL or SPOOR_E_NOMEM. */
int spoor_callstack_blocks(struct spoor_callstack *cs, uint32_t source,
			   const struct spoor_block *b, size_t n);

/* Follows an event (traps, gaps, time).  Returns 0, SPOOR_E_INVAL or SPOOR_E_NOMEM. */
int spoor_callstack_event(struct spoor_callstack *cs, const struct spoor_dec_item *it);

/* Ends every frame of every source (SPOOR_CS_LEAVE_RESET): the end of a trace. */
void spoor_callstack_reset(struct spoor_callstack *cs);

/*
 * The stack of @source: sets *@stack (valid until the next call) and
 * returns its depth (0 when empty or unknown).
 */
unsigned spoor_callstack_get(const struct spoor_callstack *cs, uint32_t source,
			     const struct spoor_cs_frame **stack);

/*
 * The clock of @source: instructions retired so far, and the time (last
 * timestamp; *@has_time false when none came).  Returns 0 or SPOOR_E_INVAL.
 */
int spoor_callstack_clock(const struct spoor_callstack *cs, uint32_t source, uint64_t *insns,
			  uint64_t *time, bool *has_time);

/* The names of the kinds and reasons ("call", "tail", ... ; "return", ...). */
const char *spoor_cs_kind_name(enum spoor_cs_kind kind);
const char *spoor_cs_leave_name(enum spoor_cs_leave why);

#ifdef __cplusplus
}
#endif

#endif /* SPOOR_CALLSTACK_H */
