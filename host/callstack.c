// SPDX-License-Identifier: MIT
/*
 * Call stacks from blocks and events (see callstack.h for the rules).
 */
#include <stdlib.h>
#include <string.h>

#include "spoor/callstack.h"
#include "spoor/error.h"

struct cs_source {
	uint32_t source;
	struct spoor_cs_frame *stack;
	unsigned depth, cap;
	uint64_t insns;		/* instructions retired */
	uint64_t time;		/* last timestamp */
	bool has_time;
	/*
	 * A trap event came (it comes before the block the trap ends): its
	 * handler is the block after one that ends SPOOR_BLK_TRAP or ECALL,
	 * or the next block when that starts at the handler address.
	 */
	bool trap_pending, trap_interrupt, trap_has_epc;
	uint64_t trap_cause, trap_epc, trap_handler;
	/*
	 * The trap that ended the previous block (SPOOR_BLK_TRAP): the event
	 * pending when that block came, for the handler frame of the next.
	 */
	bool armed, armed_interrupt, armed_has_epc;
	uint64_t armed_cause, armed_epc;
	/*
	 * A call or return whose target is not known yet: the last
	 * instruction of a block that ended OPEN (its target is the next
	 * block's start), or of one a trap ended before its target retired
	 * (the target is where the handler frame at defer_depth returns to).
	 */
	bool open_flow, defer_flow;
	uint8_t open_cls, open_flags, open_len, defer_flags, defer_len;
	uint64_t open_last, defer_last;
	unsigned defer_depth;
	uint64_t prev_last;	/* last instruction of the previous block */
	uint8_t prev_end, prev_len;
};

struct spoor_callstack {
	struct spoor_funcs *funcs;
	unsigned max_depth;
	struct spoor_callstack_ops ops;
	void *ctx;
	struct cs_source **src;
	size_t nsrc;
	struct cs_source *last;	/* the source of the last call */
};

static const char *const kind_names[] = {
	[SPOOR_CS_ROOT] = "root", [SPOOR_CS_CALL] = "call", [SPOOR_CS_TAIL] = "tail",
	[SPOOR_CS_JUMP] = "jump", [SPOOR_CS_TRAP] = "trap",
	[SPOOR_CS_INTERRUPT] = "interrupt",
};

static const char *const reason_names[] = {
	[SPOOR_CS_LEAVE_RETURN] = "return", [SPOOR_CS_LEAVE_UNWIND] = "unwind",
	[SPOOR_CS_LEAVE_REPLACED] = "replaced", [SPOOR_CS_LEAVE_RESET] = "reset",
};

const char *spoor_cs_kind_name(enum spoor_cs_kind kind)
{
	return (unsigned)kind < sizeof(kind_names) / sizeof(kind_names[0]) ? kind_names[kind] : "?";
}

const char *spoor_cs_leave_name(enum spoor_cs_leave why)
{
	return (unsigned)why < sizeof(reason_names) / sizeof(reason_names[0]) ?
	       reason_names[why] : "?";
}

struct spoor_callstack *spoor_callstack_new(const struct spoor_callstack_config *cfg)
{
	struct spoor_callstack *cs;

	if (!cfg || !cfg->funcs)
		return NULL;
	cs = calloc(1, sizeof(*cs));
	if (!cs)
		return NULL;
	cs->funcs = cfg->funcs;
	cs->max_depth = cfg->max_depth ? cfg->max_depth : SPOOR_CALLSTACK_DEPTH;
	if (cfg->ops)
		cs->ops = *cfg->ops;
	cs->ctx = cfg->ctx;
	return cs;
}

void spoor_callstack_free(struct spoor_callstack *cs)
{
	if (!cs)
		return;
	for (size_t i = 0; i < cs->nsrc; i++) {
		free(cs->src[i]->stack);
		free(cs->src[i]);
	}
	free(cs->src);
	free(cs);
}

/* The state of @source, or NULL when it has none yet. */
static struct cs_source *source_find(const struct spoor_callstack *cs, uint32_t source)
{
	if (cs->last && cs->last->source == source)
		return cs->last;
	for (size_t i = 0; i < cs->nsrc; i++)
		if (cs->src[i]->source == source)
			return cs->src[i];
	return NULL;
}

/* The state of @source, made on first sight; NULL when out of memory. */
static struct cs_source *source_get(struct spoor_callstack *cs, uint32_t source)
{
	struct cs_source *s = source_find(cs, source), **n;

	if (s)
		return cs->last = s;
	n = realloc(cs->src, (cs->nsrc + 1) * sizeof(*n));
	if (!n)
		return NULL;
	cs->src = n;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->source = source;
	s->prev_end = SPOOR_BLK_END;
	cs->src[cs->nsrc++] = s;
	return cs->last = s;
}

/* Leaves the top frame of @s for @why. */
static void pop(struct spoor_callstack *cs, struct cs_source *s, enum spoor_cs_leave why)
{
	if (cs->ops.leave)
		cs->ops.leave(cs->ctx, s->source, s->stack, s->depth, why);
	s->depth--;
}

/* Leaves every frame of @s above level @keep (the top one for @top, the rest for @below). */
static void pop_to(struct spoor_callstack *cs, struct cs_source *s, unsigned keep,
		   enum spoor_cs_leave top, enum spoor_cs_leave below)
{
	bool first = true;

	while (s->depth > keep) {
		pop(cs, s, first ? top : below);
		first = false;
	}
}

/*
 * Pushes @fr onto @s (its clocks set here); a stack at max_depth is given
 * up first.  Returns 0 or SPOOR_E_NOMEM.
 */
static int push(struct spoor_callstack *cs, struct cs_source *s, struct spoor_cs_frame fr)
{
	if (s->depth >= cs->max_depth)
		pop_to(cs, s, 0, SPOOR_CS_LEAVE_RESET, SPOOR_CS_LEAVE_RESET);
	if (s->depth == s->cap) {
		unsigned cap = s->cap ? 2 * s->cap : 64;
		struct spoor_cs_frame *n;

		if (cap > cs->max_depth)
			cap = cs->max_depth;
		n = realloc(s->stack, cap * sizeof(*n));
		if (!n)
			return SPOOR_E_NOMEM;
		s->stack = n;
		s->cap = cap;
	}
	fr.insns = s->insns;
	fr.time = s->time;
	s->stack[s->depth++] = fr;
	if (cs->ops.enter)
		cs->ops.enter(cs->ctx, s->source, s->stack, s->depth);
	return 0;
}

/* Takes the pending trap event (if any) as the one the trap just taken is. */
static void arm_trap(struct cs_source *s)
{
	s->armed = s->trap_pending;
	if (!s->trap_pending)
		return;
	s->armed_interrupt = s->trap_interrupt;
	s->armed_cause = s->trap_cause;
	s->armed_has_epc = s->trap_has_epc;
	s->armed_epc = s->trap_epc;
	s->trap_pending = false;
}

/* The frame for the start of block @b (function @func), before its instructions. */
static int enter_block(struct spoor_callstack *cs, struct cs_source *s,
		       const struct spoor_block *b, uint32_t func)
{
	struct spoor_cs_frame fr = { .func = func };
	const struct spoor_cs_frame *top;
	const struct spoor_func *fn;
	bool after_trap = s->prev_end == SPOOR_BLK_TRAP || s->prev_end == SPOOR_BLK_ECALL;

	if (after_trap || (s->trap_pending && s->trap_handler == b->start)) {
		if (!after_trap)	/* no block ended by it: nothing retired before */
			arm_trap(s);
		fr.kind = s->armed && s->armed_interrupt ? SPOOR_CS_INTERRUPT : SPOOR_CS_TRAP;
		fr.interrupt = s->armed && s->armed_interrupt;
		fr.cause = s->armed ? s->armed_cause : 0;
		if (s->armed && s->armed_has_epc)
			fr.site = s->armed_epc;
		else if (s->prev_end == SPOOR_BLK_ECALL)
			fr.site = s->prev_last;
		else if (s->prev_end == SPOOR_BLK_TRAP && !fr.interrupt)
			fr.site = s->prev_last + s->prev_len;
		s->armed = false;
		return push(cs, s, fr);
	}
	if (!s->depth) {
		fr.kind = SPOOR_CS_ROOT;
		fr.site = b->start;
		return push(cs, s, fr);
	}
	top = &s->stack[s->depth - 1];
	if (top->func == func)
		return 0;
	/*
	 * Into another function without a call: it takes the top frame's
	 * place, and its return address.  A handler that goes on in another
	 * function stays a handler (its xret pops it).
	 */
	fn = spoor_funcs_get(cs->funcs, func);
	if (top->kind == SPOOR_CS_TRAP || top->kind == SPOOR_CS_INTERRUPT) {
		fr.kind = top->kind;
		fr.interrupt = top->interrupt;
		fr.cause = top->cause;
		fr.site = top->site;
	} else {
		fr.kind = fn && fn->start == b->start ? SPOOR_CS_TAIL : SPOOR_CS_JUMP;
		fr.site = s->prev_last;
		fr.ret = top->ret;
	}
	pop(cs, s, SPOOR_CS_LEAVE_REPLACED);
	return push(cs, s, fr);
}

static int flow(struct spoor_callstack *cs, struct cs_source *s, uint8_t flags, uint64_t last,
		uint8_t len, uint64_t target);

/*
 * An xret to @target: back out of the nearest handler frame, or give the
 * stack up.  Returns 0 or SPOOR_E_NOMEM.
 */
static int do_xret(struct spoor_callstack *cs, struct cs_source *s, uint64_t target)
{
	unsigned k = s->depth;
	bool defer;

	while (k > 0 && s->stack[k - 1].kind != SPOOR_CS_TRAP &&
	       s->stack[k - 1].kind != SPOOR_CS_INTERRUPT)
		k--;
	if (!k) {
		s->defer_flow = false;
		pop_to(cs, s, 0, SPOOR_CS_LEAVE_RESET, SPOOR_CS_LEAVE_RESET);
		return 0;
	}
	pop_to(cs, s, k, SPOOR_CS_LEAVE_UNWIND, SPOOR_CS_LEAVE_UNWIND);
	pop(cs, s, SPOOR_CS_LEAVE_RETURN);
	/* The call or return the trap interrupted completes now. */
	defer = s->defer_flow && s->defer_depth == k;
	if (s->defer_flow && s->defer_depth >= k)
		s->defer_flow = false;
	if (defer && target)
		return flow(cs, s, s->defer_flags, s->defer_last, s->defer_len, target);
	return 0;
}

/* A return to @target: to its caller, further down (longjmp), or nowhere known. */
static void do_return(struct spoor_callstack *cs, struct cs_source *s, uint64_t target)
{
	unsigned k;
	uint32_t func;

	if (!s->depth)
		return;
	for (k = s->depth; k > 0; k--) {
		const struct spoor_cs_frame *fr = &s->stack[k - 1];

		if (fr->ret == target && (fr->kind == SPOOR_CS_CALL || fr->kind == SPOOR_CS_TAIL ||
					  fr->kind == SPOOR_CS_JUMP)) {
			pop_to(cs, s, k, SPOOR_CS_LEAVE_UNWIND, SPOOR_CS_LEAVE_UNWIND);
			pop(cs, s, SPOOR_CS_LEAVE_RETURN);
			return;
		}
	}
	/* No frame returns there: unwind to the nearest frame holding the target. */
	func = spoor_funcs_find(cs->funcs, target);
	for (k = s->depth - 1; k > 0; k--) {
		if (s->stack[k - 1].func == func) {
			pop_to(cs, s, k, SPOOR_CS_LEAVE_UNWIND, SPOOR_CS_LEAVE_UNWIND);
			return;
		}
	}
	/* A return out of where the stack began: the caller was never seen. */
	pop_to(cs, s, 0, SPOOR_CS_LEAVE_RETURN, SPOOR_CS_LEAVE_RESET);
}

/*
 * What a jump with link-register @flags (enum spoor_insn_flags) at @last
 * (@len bytes) to @target does to the stack.  Returns 0 or SPOOR_E_NOMEM.
 */
static int flow(struct spoor_callstack *cs, struct cs_source *s, uint8_t flags, uint64_t last,
		uint8_t len, uint64_t target)
{
	struct spoor_cs_frame fr = { .kind = SPOOR_CS_CALL };

	if (flags & SPOOR_INSN_RETURN)
		do_return(cs, s, target);
	if (!(flags & SPOOR_INSN_CALL))
		return 0;
	fr.func = spoor_funcs_find(cs->funcs, target);
	if (fr.func == SPOOR_FUNC_NONE)
		return SPOOR_E_NOMEM;
	fr.site = last;
	fr.ret = last + len;
	return push(cs, s, fr);
}

/* What the end of block @b does to the stack.  Returns 0 or SPOOR_E_NOMEM. */
static int end_block(struct spoor_callstack *cs, struct cs_source *s, const struct spoor_block *b,
		     const struct spoor_block_info *bi)
{
	bool jump = bi->last_cls == SPOOR_INSN_JUMP || bi->last_cls == SPOOR_INSN_JALR;

	switch (b->end) {
	case SPOOR_BLK_JUMP:
	case SPOOR_BLK_UNINFERABLE:
		if (bi->last_cls == SPOOR_INSN_XRET)
			return do_xret(cs, s, b->next);
		return flow(cs, s, bi->last_flags, b->last, b->last_len, b->next);
	case SPOOR_BLK_OPEN:
		/* The rest of the run comes in the next block: so does the target. */
		if (jump || bi->last_cls == SPOOR_INSN_XRET) {
			s->open_flow = true;
			s->open_cls = bi->last_cls;
			s->open_flags = bi->last_flags;
			s->open_last = b->last;
			s->open_len = b->last_len;
		}
		return 0;
	case SPOOR_BLK_TRAP:
	case SPOOR_BLK_ECALL:
		arm_trap(s);
		/* An xret, call or return retired, then a trap before its target did. */
		if (bi->last_cls == SPOOR_INSN_XRET)
			return do_xret(cs, s, 0);
		if (!jump || !(bi->last_flags & (SPOOR_INSN_CALL | SPOOR_INSN_RETURN)))
			return 0;
		if (s->armed && s->armed_has_epc && !s->armed_interrupt)
			return flow(cs, s, bi->last_flags, b->last, b->last_len, s->armed_epc);
		s->defer_flow = true;
		s->defer_flags = bi->last_flags;
		s->defer_last = b->last;
		s->defer_len = b->last_len;
		s->defer_depth = s->depth + 1;	/* the handler frame's */
		return 0;
	default:
		return 0;
	}
}

/* Forgets what a trace that ended or broke off left pending on @s. */
static void source_clear(struct cs_source *s)
{
	s->trap_pending = false;
	s->armed = false;
	s->open_flow = false;
	s->defer_flow = false;
	s->prev_end = SPOOR_BLK_END;
}

int spoor_callstack_blocks(struct spoor_callstack *cs, uint32_t source,
			   const struct spoor_block *b, size_t n)
{
	struct cs_source *s;
	int ret;

	if (!cs || (!b && n))
		return SPOOR_E_INVAL;
	s = source_get(cs, source);
	if (!s)
		return SPOOR_E_NOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct spoor_block_info *bi = spoor_funcs_block(cs->funcs, &b[i]);

		if (!bi)
			return SPOOR_E_NOMEM;
		if (s->open_flow) {
			s->open_flow = false;
			ret = s->open_cls == SPOOR_INSN_XRET ?
			      do_xret(cs, s, b[i].start) :
			      flow(cs, s, s->open_flags, s->open_last, s->open_len, b[i].start);
			if (ret)
				return ret;
		}
		ret = enter_block(cs, s, &b[i], bi->func);
		if (ret)
			return ret;
		if (cs->ops.insns)
			cs->ops.insns(cs->ctx, source, s->stack, s->depth, &b[i], bi);
		s->insns += b[i].ninsn;
		ret = end_block(cs, s, &b[i], bi);
		if (ret)
			return ret;
		s->prev_last = b[i].last;
		s->prev_end = b[i].end;
		s->prev_len = b[i].last_len;
	}
	return 0;
}

int spoor_callstack_event(struct spoor_callstack *cs, const struct spoor_dec_item *it)
{
	const struct spoor_event *e;
	struct cs_source *s;

	if (!cs || !it || it->kind != SPOOR_DEC_EVENT)
		return SPOOR_E_INVAL;
	e = &it->event;
	if (e->kind != SPOOR_EV_TRAP && e->kind != SPOOR_EV_GAP && e->kind != SPOOR_EV_TIME)
		return 0;
	s = source_get(cs, it->source);
	if (!s)
		return SPOOR_E_NOMEM;
	switch (e->kind) {
	case SPOOR_EV_TRAP:
		s->trap_pending = true;
		s->trap_interrupt = e->interrupt;
		s->trap_cause = e->cause;
		s->trap_has_epc = e->has_epc;
		s->trap_epc = e->epc;
		s->trap_handler = e->address;
		break;
	case SPOOR_EV_GAP:
		source_clear(s);
		pop_to(cs, s, 0, SPOOR_CS_LEAVE_RESET, SPOOR_CS_LEAVE_RESET);
		break;
	default:
		if (s->has_time && e->time > s->time && cs->ops.time)
			cs->ops.time(cs->ctx, s->source, s->stack, s->depth, e->time - s->time);
		if (!s->has_time || e->time > s->time)
			s->time = e->time;
		s->has_time = true;
		break;
	}
	return 0;
}

void spoor_callstack_reset(struct spoor_callstack *cs)
{
	if (!cs)
		return;
	for (size_t i = 0; i < cs->nsrc; i++) {
		source_clear(cs->src[i]);
		cs->src[i]->has_time = false;	/* an unrelated trace's clock follows */
		pop_to(cs, cs->src[i], 0, SPOOR_CS_LEAVE_RESET, SPOOR_CS_LEAVE_RESET);
	}
}

unsigned spoor_callstack_get(const struct spoor_callstack *cs, uint32_t source,
			     const struct spoor_cs_frame **stack)
{
	const struct cs_source *s = cs ? source_find(cs, source) : NULL;

	if (stack)
		*stack = s ? s->stack : NULL;
	return s ? s->depth : 0;
}

int spoor_callstack_clock(const struct spoor_callstack *cs, uint32_t source, uint64_t *insns,
			  uint64_t *time, bool *has_time)
{
	const struct cs_source *s;

	if (!cs)
		return SPOOR_E_INVAL;
	s = source_find(cs, source);
	if (insns)
		*insns = s ? s->insns : 0;
	if (time)
		*time = s ? s->time : 0;
	if (has_time)
		*has_time = s && s->has_time;
	return 0;
}
