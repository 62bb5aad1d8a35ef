// SPDX-License-Identifier: MIT
/*
 * Unit tests of the call stacks (callstack.c) on synthetic blocks over a
 * real test program (recursion.elf, RV64): calls, returns, recursion, tail
 * calls, longjmp-like returns, traps and interrupts popped by xret, traps
 * that never return, returns with no frame, the depth limit, gaps, calls
 * cut by a trap or by an open block; every frame entered is left exactly
 * once, in nesting order.
 */
#include "check.h"
#include "spoor/callstack.h"
#include "spoor/error.h"
#include "spoor/image.h"
#include "spoor/insn.h"

/* The program's landmarks, found by decoding it. */
struct prog {
	struct spoor_image *img;
	struct spoor_funcs *funcs;
	uint32_t start_f, main_f, fib_f, ack_f, trap_f;
	uint64_t start, main, fib, ack, trap;	/* function starts */
	uint64_t start_call_main;	/* jal main in _start */
	uint64_t main_call_fib, main_call_ack;	/* in main */
	uint64_t fib_call_fib;		/* the first jal fib in fib */
	uint64_t fib_ret;		/* fib's ret */
	uint64_t trap_mret;		/* trap_entry's mret */
};

static struct prog P;
static struct spoor_diag diag;

/* Returns the first instruction of @f of class @cls with @flags (and target @to, if not 0). */
static uint64_t scan(uint32_t f, int cls, int flags, uint64_t to)
{
	const struct spoor_func *fn = spoor_funcs_get(P.funcs, f);

	for (uint64_t a = fn->start; a < fn->end;) {
		size_t avail;
		const uint8_t *p = spoor_image_ptr(P.img, a, &avail);
		struct spoor_insn in;
		uint32_t raw;

		if (!p || avail < 2)
			break;
		raw = p[0] | p[1] << 8 | (avail >= 4 ? (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24 : 0);
		if (spoor_insn_decode(raw, 64, &in) < 0) {
			a += in.len ? in.len : 2;
			continue;
		}
		if (in.cls == cls && (in.flags & flags) == flags &&
		    (!to || a + (uint64_t)in.imm == to))
			return a;
		a += in.len;
	}
	return 0;
}

/* Returns the number of the function named @name. */
static uint32_t func_named(const char *name)
{
	for (uint32_t i = 0; i < spoor_funcs_count(P.funcs); i++)
		if (!strcmp(spoor_funcs_get(P.funcs, i)->name, name))
			return i;
	return SPOOR_FUNC_NONE;
}

/* Loads the program and finds its landmarks; returns 0 or -1. */
static int prog_load(void)
{
	P.img = spoor_image_new();
	if (!P.img || spoor_image_add_elf(P.img, ISS_RECURSION_RV64, 0, &diag))
		return -1;
	P.funcs = spoor_funcs_new(P.img);
	if (!P.funcs)
		return -1;
	P.start_f = func_named("_start");
	P.main_f = func_named("main");
	P.fib_f = func_named("fib");
	P.ack_f = func_named("ack");
	P.trap_f = func_named("trap_entry");
	if (P.start_f == SPOOR_FUNC_NONE || P.main_f == SPOOR_FUNC_NONE ||
	    P.fib_f == SPOOR_FUNC_NONE || P.ack_f == SPOOR_FUNC_NONE ||
	    P.trap_f == SPOOR_FUNC_NONE)
		return -1;
	P.start = spoor_funcs_get(P.funcs, P.start_f)->start;
	P.main = spoor_funcs_get(P.funcs, P.main_f)->start;
	P.fib = spoor_funcs_get(P.funcs, P.fib_f)->start;
	P.ack = spoor_funcs_get(P.funcs, P.ack_f)->start;
	P.trap = spoor_funcs_get(P.funcs, P.trap_f)->start;
	P.start_call_main = scan(P.start_f, SPOOR_INSN_JUMP, SPOOR_INSN_CALL, P.main);
	P.main_call_fib = scan(P.main_f, SPOOR_INSN_JUMP, SPOOR_INSN_CALL, P.fib);
	P.main_call_ack = scan(P.main_f, SPOOR_INSN_JUMP, SPOOR_INSN_CALL, P.ack);
	P.fib_call_fib = scan(P.fib_f, SPOOR_INSN_JUMP, SPOOR_INSN_CALL, P.fib);
	P.fib_ret = scan(P.fib_f, SPOOR_INSN_JALR, SPOOR_INSN_RETURN, 0);
	P.trap_mret = scan(P.trap_f, SPOOR_INSN_XRET, 0, 0);
	return P.start_call_main && P.main_call_fib && P.main_call_ack && P.fib_call_fib &&
	       P.fib_ret && P.trap_mret ? 0 : -1;
}

/* A recorder: a shadow stack that every callback must agree with. */
struct rec {
	struct spoor_cs_frame shadow[8192];
	unsigned depth, max;
	uint64_t enters, leaves, insns, bad;
	unsigned why[4];
	uint64_t time;
	uint64_t other;		/* enters less leaves of the other sources */
};

static void on_enter(void *ctx, uint32_t source, const struct spoor_cs_frame *stack, unsigned depth)
{
	struct rec *r = ctx;

	if (source) {
		r->other++;
		return;
	}
	r->enters++;
	if (depth != r->depth + 1 || depth > 8192) {
		r->bad++;
		return;
	}
	r->shadow[r->depth++] = stack[depth - 1];
	if (depth > r->max)
		r->max = depth;
}

static void on_leave(void *ctx, uint32_t source, const struct spoor_cs_frame *stack, unsigned depth,
		     enum spoor_cs_leave why)
{
	struct rec *r = ctx;

	if (source) {
		r->other--;
		return;
	}
	r->leaves++;
	r->why[why & 3]++;
	if (depth != r->depth || !depth || stack[depth - 1].func != r->shadow[depth - 1].func ||
	    stack[depth - 1].kind != r->shadow[depth - 1].kind) {
		r->bad++;
		return;
	}
	r->depth--;
}

static void on_insns(void *ctx, uint32_t source, const struct spoor_cs_frame *stack, unsigned depth,
		     const struct spoor_block *b, const struct spoor_block_info *bi)
{
	struct rec *r = ctx;

	if (source)
		return;
	r->insns += b->ninsn;
	/* The top frame's function is the block's. */
	if (!depth || depth != r->depth || stack[depth - 1].func != bi->func)
		r->bad++;
}

static void on_time(void *ctx, uint32_t source, const struct spoor_cs_frame *stack, unsigned depth,
		    uint64_t elapsed)
{
	struct rec *r = ctx;

	(void)source;
	(void)stack;
	(void)depth;
	r->time += elapsed;
}

static const struct spoor_callstack_ops rec_ops = {
	.enter = on_enter, .leave = on_leave, .insns = on_insns, .time = on_time,
};

/* Returns a new call stack set recording into @r, @max_depth deep. */
static struct spoor_callstack *cs_new(struct rec *r, unsigned max_depth)
{
	struct spoor_callstack_config cfg = {
		.funcs = P.funcs, .max_depth = max_depth, .ops = &rec_ops, .ctx = r,
	};

	memset(r, 0, sizeof(*r));
	return spoor_callstack_new(&cfg);
}

/* Feeds one block [start, last] of @n instructions ending @end to @next. */
static void blk(struct spoor_callstack *cs, uint64_t start, uint64_t last, uint8_t end,
		uint64_t next)
{
	size_t avail;
	const uint8_t *p = spoor_image_ptr(P.img, last, &avail);
	struct spoor_block b = {
		.start = start, .last = last, .ninsn = (last - start) / 2 + 1, .next = next,
		.end = end, .last_len = p && (p[0] & 3) == 3 ? 4 : 2,
	};

	CHECK_EQ(spoor_callstack_blocks(cs, 0, &b, 1), 0);
}

/* Feeds a trap event. */
static void trap_ev(struct spoor_callstack *cs, uint64_t cause, bool interrupt, uint64_t epc)
{
	struct spoor_dec_item it = { .kind = SPOOR_DEC_EVENT };

	it.event.kind = SPOOR_EV_TRAP;
	it.event.cause = cause;
	it.event.interrupt = interrupt;
	it.event.address = P.trap;
	it.event.epc = epc;
	it.event.has_epc = epc != 0;
	CHECK_EQ(spoor_callstack_event(cs, &it), 0);
}

/* Feeds an event of @kind (GAP, TIME). */
static void simple_ev(struct spoor_callstack *cs, uint8_t kind, uint64_t time)
{
	struct spoor_dec_item it = { .kind = SPOOR_DEC_EVENT };

	it.event.kind = kind;
	it.event.time = time;
	CHECK_EQ(spoor_callstack_event(cs, &it), 0);
}

/* The top frame of source 0: its function and kind (or NONE). */
static uint32_t top(struct spoor_callstack *cs, uint8_t *kind, unsigned *depth)
{
	const struct spoor_cs_frame *st;
	unsigned d = spoor_callstack_get(cs, 0, &st);

	if (depth)
		*depth = d;
	if (kind)
		*kind = d ? st[d - 1].kind : 0xff;
	return d ? st[d - 1].func : SPOOR_FUNC_NONE;
}

/* Ends the trace and checks that every frame was left once, in order. */
static void finish(struct spoor_callstack *cs, struct rec *r)
{
	spoor_callstack_reset(cs);
	CHECK_EQ(r->bad, 0);
	CHECK_EQ(r->depth, 0);
	CHECK_EQ(r->enters, r->leaves);
	CHECK_EQ(spoor_callstack_get(cs, 0, NULL), 0);
	CHECK_EQ(r->other, 0);
	spoor_callstack_free(cs);
}

/* _start calls main, main calls fib; the stack after it: depth 3. */
static void to_fib(struct spoor_callstack *cs)
{
	blk(cs, P.start, P.start_call_main, SPOOR_BLK_JUMP, P.main);
	blk(cs, P.main, P.main_call_fib, SPOOR_BLK_JUMP, P.fib);
}

static void test_calls_returns(void)
{
	struct rec r;
	struct spoor_callstack *cs = cs_new(&r, 0);
	uint8_t kind;
	unsigned d;
	uint64_t insns;

	to_fib(cs);
	CHECK_EQ(top(cs, &kind, &d), P.fib_f);
	CHECK_EQ(kind, SPOOR_CS_CALL);
	CHECK_EQ(d, 3);
	/* fib returns to main, main goes on in itself. */
	blk(cs, P.fib, P.fib_ret, SPOOR_BLK_UNINFERABLE, P.main_call_fib + 4);
	CHECK_EQ(top(cs, &kind, &d), P.main_f);
	CHECK_EQ(d, 2);
	CHECK_EQ(r.why[SPOOR_CS_LEAVE_RETURN], 1);
	blk(cs, P.main_call_fib + 4, P.main_call_ack, SPOOR_BLK_JUMP, P.ack);
	CHECK_EQ(top(cs, NULL, &d), P.ack_f);
	CHECK_EQ(d, 3);
	CHECK_EQ(spoor_callstack_clock(cs, 0, &insns, NULL, NULL), 0);
	CHECK_EQ(insns, r.insns);
	/* The bottom frame is the ROOT where the trace began. */
	{
		const struct spoor_cs_frame *st;

		spoor_callstack_get(cs, 0, &st);
		CHECK_EQ(st[0].kind, SPOOR_CS_ROOT);
		CHECK_EQ(st[0].func, P.start_f);
		CHECK_EQ(st[1].ret, P.start_call_main + 4);
	}
	finish(cs, &r);
}

static void test_recursion(void)
{
	struct rec r;
	struct spoor_callstack *cs = cs_new(&r, 0);
	unsigned d;

	to_fib(cs);
	for (int i = 0; i < 100; i++)
		blk(cs, P.fib, P.fib_call_fib, SPOOR_BLK_JUMP, P.fib);
	CHECK_EQ(top(cs, NULL, &d), P.fib_f);
	CHECK_EQ(d, 103);
	for (int i = 0; i < 100; i++)
		blk(cs, P.fib_call_fib + 4, P.fib_ret, SPOOR_BLK_UNINFERABLE, P.fib_call_fib + 4);
	CHECK_EQ(top(cs, NULL, &d), P.fib_f);
	CHECK_EQ(d, 3);
	blk(cs, P.fib_call_fib + 4, P.fib_ret, SPOOR_BLK_UNINFERABLE, P.main_call_fib + 4);
	CHECK_EQ(top(cs, NULL, &d), P.main_f);
	CHECK_EQ(d, 2);
	CHECK_EQ(r.why[SPOOR_CS_LEAVE_RETURN], 101);
	finish(cs, &r);
}

static void test_tail_and_jump(void)
{
	struct rec r;
	struct spoor_callstack *cs = cs_new(&r, 0);
	uint8_t kind;
	unsigned d;

	to_fib(cs);
	/* fib jumps to ack's start: a tail call, ack returns to main. */
	blk(cs, P.fib, P.fib + 2, SPOOR_BLK_TAKEN, P.ack);
	blk(cs, P.ack, P.ack, SPOOR_BLK_NOT_TAKEN, P.ack + 2);
	CHECK_EQ(top(cs, &kind, &d), P.ack_f);
	CHECK_EQ(kind, SPOOR_CS_TAIL);
	CHECK_EQ(d, 3);
	CHECK_EQ(r.why[SPOOR_CS_LEAVE_REPLACED], 1);
	blk(cs, P.ack + 2, P.fib_ret, SPOOR_BLK_UNINFERABLE, P.main_call_fib + 4);
	(void)0;
	finish(cs, &r);

	/* Into another function's middle: a jump; its return still matches. */
	cs = cs_new(&r, 0);
	to_fib(cs);
	blk(cs, P.fib, P.fib + 2, SPOOR_BLK_TAKEN, P.ack + 4);
	blk(cs, P.ack + 4, P.ack + 4, SPOOR_BLK_NOT_TAKEN, P.ack + 6);
	CHECK_EQ(top(cs, &kind, &d), P.ack_f);
	CHECK_EQ(kind, SPOOR_CS_JUMP);
	CHECK_EQ(d, 3);
	blk(cs, P.fib, P.fib_ret, SPOOR_BLK_UNINFERABLE, P.main_call_fib + 4);
	CHECK_EQ(top(cs, NULL, &d), P.main_f);
	CHECK_EQ(d, 2);
	finish(cs, &r);
}

static void test_longjmp_and_unmatched(void)
{
	struct rec r;
	struct spoor_callstack *cs = cs_new(&r, 0);
	unsigned d;

	to_fib(cs);
	for (int i = 0; i < 5; i++)
		blk(cs, P.fib, P.fib_call_fib, SPOOR_BLK_JUMP, P.fib);
	/* A return to main, but to no return address: unwinds to main. */
	blk(cs, P.fib, P.fib_ret, SPOOR_BLK_UNINFERABLE, P.main + 2);
	CHECK_EQ(top(cs, NULL, &d), P.main_f);
	CHECK_EQ(d, 2);
	CHECK_EQ(r.why[SPOOR_CS_LEAVE_UNWIND], 6);
	finish(cs, &r);

	/* The trace begins in fib, which returns to a caller never seen. */
	cs = cs_new(&r, 0);
	blk(cs, P.fib + 2, P.fib_ret, SPOOR_BLK_UNINFERABLE, P.main_call_fib + 4);
	CHECK_EQ(spoor_callstack_get(cs, 0, NULL), 0);
	CHECK_EQ(r.why[SPOOR_CS_LEAVE_RETURN], 1);
	blk(cs, P.main_call_fib + 4, P.main_call_ack, SPOOR_BLK_JUMP, P.ack);
	CHECK_EQ(top(cs, NULL, &d), P.ack_f);
	CHECK_EQ(d, 2);
	finish(cs, &r);
}

static void test_traps(void)
{
	struct rec r;
	struct spoor_callstack *cs = cs_new(&r, 0);
	const struct spoor_cs_frame *st;
	uint8_t kind;
	unsigned d;

	to_fib(cs);
	/* An exception in fib: the handler frame, popped by its mret. */
	trap_ev(cs, 2, false, P.fib + 4);
	blk(cs, P.fib, P.fib + 2, SPOOR_BLK_TRAP, 0);
	blk(cs, P.trap, P.trap + 4, SPOOR_BLK_NOT_TAKEN, P.trap + 6);
	d = spoor_callstack_get(cs, 0, &st);
	CHECK_EQ(d, 4);
	CHECK_EQ(st[3].kind, SPOOR_CS_TRAP);
	CHECK_EQ(st[3].cause, 2);
	CHECK_EQ(st[3].site, P.fib + 4);
	CHECK_EQ(st[3].func, P.trap_f);
	blk(cs, P.trap + 6, P.trap_mret, SPOOR_BLK_UNINFERABLE, P.fib + 4);
	CHECK_EQ(top(cs, NULL, &d), P.fib_f);
	CHECK_EQ(d, 3);
	/* An interrupt, and an exception in its handler before it runs. */
	trap_ev(cs, 7, true, 0);
	blk(cs, P.fib + 4, P.fib + 6, SPOOR_BLK_TRAP, 0);
	trap_ev(cs, 3, false, P.trap + 2);
	blk(cs, P.trap, P.trap, SPOOR_BLK_TRAP, 0);
	blk(cs, P.trap, P.trap + 4, SPOOR_BLK_NOT_TAKEN, P.trap + 6);
	d = spoor_callstack_get(cs, 0, &st);
	CHECK_EQ(d, 5);
	CHECK_EQ(st[3].kind, SPOOR_CS_INTERRUPT);
	CHECK(st[3].interrupt);
	CHECK_EQ(st[3].cause, 7);
	CHECK_EQ(st[4].kind, SPOOR_CS_TRAP);
	CHECK_EQ(st[4].cause, 3);
	/* The handler goes on in another function: still a handler. */
	blk(cs, P.trap + 6, P.trap + 8, SPOOR_BLK_TAKEN, P.ack);
	blk(cs, P.ack, P.ack, SPOOR_BLK_NOT_TAKEN, P.ack + 2);
	CHECK_EQ(top(cs, &kind, &d), P.ack_f);
	CHECK_EQ(kind, SPOOR_CS_TRAP);
	blk(cs, P.trap + 6, P.trap_mret, SPOOR_BLK_UNINFERABLE, P.trap + 2);
	blk(cs, P.trap + 2, P.trap_mret, SPOOR_BLK_UNINFERABLE, P.fib + 8);
	CHECK_EQ(top(cs, NULL, &d), P.fib_f);
	CHECK_EQ(d, 3);
	/* An xret with no handler frame: the stack starts afresh. */
	blk(cs, P.trap + 2, P.trap_mret, SPOOR_BLK_UNINFERABLE, P.main + 2);
	blk(cs, P.main + 2, P.main_call_ack, SPOOR_BLK_JUMP, P.ack);
	CHECK_EQ(top(cs, NULL, &d), P.ack_f);
	CHECK_EQ(d, 2);
	finish(cs, &r);
}

static void test_trap_cuts_call(void)
{
	struct rec r;
	struct spoor_callstack *cs = cs_new(&r, 0);
	uint8_t kind;
	unsigned d;

	blk(cs, P.start, P.start_call_main, SPOOR_BLK_JUMP, P.main);
	/* An interrupt right after main's call to fib: the call completes at the mret. */
	trap_ev(cs, 7, true, 0);
	blk(cs, P.main, P.main_call_fib, SPOOR_BLK_TRAP, 0);
	blk(cs, P.trap, P.trap_mret, SPOOR_BLK_UNINFERABLE, P.fib);
	blk(cs, P.fib, P.fib_ret, SPOOR_BLK_UNINFERABLE, P.main_call_fib + 4);
	CHECK_EQ(top(cs, NULL, &d), P.main_f);
	CHECK_EQ(d, 2);
	/* An exception at the call's target: the call first, then the handler. */
	trap_ev(cs, 1, false, P.ack);
	blk(cs, P.main_call_fib + 4, P.main_call_ack, SPOOR_BLK_TRAP, 0);
	blk(cs, P.trap, P.trap + 2, SPOOR_BLK_NOT_TAKEN, P.trap + 4);
	{
		const struct spoor_cs_frame *st;

		d = spoor_callstack_get(cs, 0, &st);
		CHECK_EQ(d, 4);
		CHECK_EQ(st[2].func, P.ack_f);
		CHECK_EQ(st[2].kind, SPOOR_CS_CALL);
		CHECK_EQ(st[3].kind, SPOOR_CS_TRAP);
	}
	blk(cs, P.trap + 4, P.trap_mret, SPOOR_BLK_UNINFERABLE, P.ack);
	CHECK_EQ(top(cs, &kind, &d), P.ack_f);
	CHECK_EQ(kind, SPOOR_CS_CALL);
	CHECK_EQ(d, 3);
	/* A call in a block cut OPEN (a live flush): the next block is the callee. */
	blk(cs, P.ack, P.ack + 2, SPOOR_BLK_NOT_TAKEN, P.ack + 4);
	blk(cs, P.fib, P.fib_call_fib, SPOOR_BLK_OPEN, 0);	/* (a jump into fib: jump frame) */
	blk(cs, P.fib, P.fib + 2, SPOOR_BLK_NOT_TAKEN, P.fib + 4);
	CHECK_EQ(top(cs, NULL, &d), P.fib_f);
	CHECK_EQ(d, 4);
	finish(cs, &r);
}

static void test_bounds(void)
{
	struct rec r;
	struct spoor_callstack *cs = cs_new(&r, 16);
	unsigned d;

	/* Recursion past the depth limit: the stack is given up, never deeper. */
	to_fib(cs);
	for (int i = 0; i < 1000; i++) {
		blk(cs, P.fib, P.fib_call_fib, SPOOR_BLK_JUMP, P.fib);
		CHECK(spoor_callstack_get(cs, 0, NULL) <= 16);
	}
	CHECK_EQ(r.max, 16);
	CHECK(r.why[SPOOR_CS_LEAVE_RESET] > 0);
	finish(cs, &r);

	/* Traps that never return: bounded too. */
	cs = cs_new(&r, 64);
	to_fib(cs);
	for (int i = 0; i < 10000; i++) {
		trap_ev(cs, 2, false, 0);
		blk(cs, P.trap, P.trap + 2, SPOOR_BLK_TRAP, 0);
	}
	CHECK(r.max <= 64);
	CHECK_EQ(r.bad, 0);
	finish(cs, &r);

	/* A gap ends every frame; time goes to whatever runs. */
	cs = cs_new(&r, 0);
	simple_ev(cs, SPOOR_EV_TIME, 100);
	to_fib(cs);
	simple_ev(cs, SPOOR_EV_TIME, 150);
	CHECK_EQ(r.time, 50);
	simple_ev(cs, SPOOR_EV_GAP, 0);
	CHECK_EQ(spoor_callstack_get(cs, 0, NULL), 0);
	CHECK_EQ(r.why[SPOOR_CS_LEAVE_RESET], 3);
	blk(cs, P.fib, P.fib_ret, SPOOR_BLK_UNINFERABLE, P.main_call_fib + 4);
	blk(cs, P.main_call_fib + 4, P.main_call_ack, SPOOR_BLK_JUMP, P.ack);
	CHECK_EQ(top(cs, NULL, &d), P.ack_f);
	CHECK_EQ(d, 2);
	{
		uint64_t insns, t;
		bool has;

		CHECK_EQ(spoor_callstack_clock(cs, 0, &insns, &t, &has), 0);
		CHECK(has);
		CHECK_EQ(t, 150);
		CHECK_EQ(insns, r.insns);
	}
	/* Another source has its own stack. */
	{
		struct spoor_block b = { .start = P.fib, .last = P.fib + 2, .ninsn = 2,
					 .end = SPOOR_BLK_NOT_TAKEN, .next = P.fib + 4,
					 .last_len = 2 };

		CHECK_EQ(spoor_callstack_blocks(cs, 1, &b, 1), 0);
		CHECK_EQ(spoor_callstack_get(cs, 1, NULL), 1);
		CHECK_EQ(spoor_callstack_get(cs, 0, NULL), 2);
	}
	spoor_callstack_reset(cs);
	CHECK_EQ(spoor_callstack_get(cs, 1, NULL), 0);
	finish(cs, &r);
}

static void test_invalid(void)
{
	struct spoor_callstack_config cfg = { 0 };
	struct spoor_dec_item it = { .kind = SPOOR_DEC_BLOCK };
	struct rec r;
	struct spoor_callstack *cs;

	CHECK(!spoor_callstack_new(NULL));
	CHECK(!spoor_callstack_new(&cfg));
	cs = cs_new(&r, 0);
	CHECK_EQ(spoor_callstack_blocks(NULL, 0, NULL, 0), SPOOR_E_INVAL);
	CHECK_EQ(spoor_callstack_blocks(cs, 0, NULL, 1), SPOOR_E_INVAL);
	CHECK_EQ(spoor_callstack_blocks(cs, 0, NULL, 0), 0);
	CHECK_EQ(spoor_callstack_event(cs, NULL), SPOOR_E_INVAL);
	CHECK_EQ(spoor_callstack_event(cs, &it), SPOOR_E_INVAL);
	CHECK_EQ(spoor_callstack_clock(NULL, 0, NULL, NULL, NULL), SPOOR_E_INVAL);
	CHECK_EQ(spoor_callstack_get(NULL, 0, NULL), 0);
	CHECK(!strcmp(spoor_cs_kind_name(SPOOR_CS_TAIL), "tail"));
	CHECK(!strcmp(spoor_cs_kind_name((enum spoor_cs_kind)99), "?"));
	CHECK(!strcmp(spoor_cs_leave_name(SPOOR_CS_LEAVE_UNWIND), "unwind"));
	/* Blocks of code no image has: pseudo functions, no crash. */
	blk(cs, 0x4000000, 0x4000010, SPOOR_BLK_UNINFERABLE, 0x5000000);
	blk(cs, 0x5000000, 0x5000000, SPOOR_BLK_END, 0);
	spoor_callstack_reset(NULL);
	spoor_callstack_free(NULL);
	finish(cs, &r);
}

int main(int argc, char **argv)
{
	check_args(argc, argv, "Checks the call stacks on synthetic blocks over recursion.elf.");
	if (prog_load()) {
		fprintf(stderr, "cannot load %s or find its landmarks\n", ISS_RECURSION_RV64);
		return 1;
	}
	test_calls_returns();
	test_recursion();
	test_tail_and_jump();
	test_longjmp_and_unmatched();
	test_traps();
	test_trap_cuts_call();
	test_bounds();
	test_invalid();
	spoor_funcs_free(P.funcs);
	spoor_image_free(P.img);
	return check_done();
}
