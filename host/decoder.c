// SPDX-License-Identifier: MIT
/*
 * Instruction trace reconstruction: the E-Trace v2.0 decoder algorithm
 * ("Decoder" chapter: process_te_inst, follow_execution_path, next_pc and
 * friends), run against the program image.
 *
 * The spec reports one pc at a time; here report_pc() feeds a block
 * builder, and runs of sequential instructions are skipped in one step with
 * a block cache (distance from an address to the next control-flow
 * instruction), so following the path costs about one step per branch.
 *
 * Output is pulled: put() stores the packet, next() runs the algorithm
 * until an item is ready.  The follow loop can stop between two steps when
 * the small output queue is full and resume at the next call, so a packet
 * that retires any number of instructions needs constant memory.
 *
 * Traps (report_trap()): exception_address() with the case of a trap taken
 * before its handler's first instruction retired (payload chapter, "thaddr"):
 * a 3.1 with thaddr 0 holds its own EPC when pc is at a jalr or xRET (or not
 * known), else the EPC of the trap after it; a 3.0 after such packets is
 * where the handler started, taken without following the path to it.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "spoor/decoder.h"
#include "spoor/error.h"

/* The per-step functions of the hot loop: inlined into it. */
#define HOT static inline __attribute__((always_inline))

#define QUEUE_SIZE 16		/* items; a step emits at most 4 */
#define QUEUE_ROOM 5		/* free slots needed before a step */
#define ICACHE_BITS 14		/* decoded instructions, direct-mapped */
#define BCACHE_BITS 14		/* sequential runs, direct-mapped */
#define SCAN_LIMIT 4096		/* instructions a run may span */
#define RAS_LIMIT (1u << 16)	/* return stack entries the decoder keeps */
#define IDLE_LIMIT (1u << 24)	/* follow steps without a branch before giving up */

/* What the follow loop is doing between calls. */
enum loop_state {
	LOOP_IDLE,		/* packet done */
	LOOP_START,		/* packet stored, not yet processed */
	LOOP_FOLLOW,		/* follow_execution_path() */
	LOOP_NTR,		/* process_support(): ended_ntr after an inferred address */
};

struct icache_entry {
	uint64_t addr;		/* tag; ~0 = empty */
	struct spoor_insn insn;
};

struct bcache_entry {
	uint64_t start;		/* tag; ~0 = empty */
	uint64_t cf;		/* first address >= start that is not sequential code */
	uint64_t prev;		/* address of the instruction before cf (if n > 0) */
	uint32_t n;		/* instructions in [start, cf) */
	bool cf_ok;		/* cf holds a valid instruction */
	struct spoor_insn cf_insn;	/* the instruction at cf */
	struct spoor_insn prev_insn;	/* the instruction at prev */
};

struct ras_entry {
	uint64_t link;
};

struct spoor_decoder {
	struct spoor_decoder_config cfg;
	const struct spoor_params *p;
	struct spoor_image *img;
	unsigned xlen;
	uint64_t addr_mask;	/* iaddress_width_p bits */

	/* The spec's decoder state. */
	uint64_t pc, last_pc, address;
	struct spoor_insn cur;	/* the instruction at pc (valid once pc is reported) */
	struct spoor_insn last;	/* the instruction at last_pc */
	uint64_t branch_map;	/* bit 0: oldest unprocessed branch, 0 = taken */
	uint64_t branches;
	bool stop_at_last_branch;
	bool inferred_address;
	bool start_of_trace;
	bool use_bpred;
	unsigned privilege;
	uint32_t options;
	struct spoor_te_inst prev_pkt;	/* packet of the inferred address */
	struct ras_entry *ras;
	uint64_t ras_max;
	uint64_t irstack_depth;
	uint64_t *jtc;		/* jump target cache, 2^cache_size_p entries */
	uint8_t *bpred;		/* 2-bit predictor states, 2^bpred_size_p entries */
	uint64_t context;
	bool lost;		/* after a gap: ignore packets until a sync */

	/* The packet being processed. */
	enum loop_state loop;
	struct spoor_te_inst pkt;
	uint64_t offset;
	uint64_t prev_address;	/* follow_execution_path()'s previous_address */
	bool sync_follow;	/* the loop follows a format 3.0 packet mid-trace */
	uint64_t idle_steps;	/* follow steps since a branch or a stop */
	bool flag_notify, flag_updiscon, flag_irreport;

	/* Block builder. */
	bool open;
	struct spoor_block blk;
	uint8_t last_cls;	/* class of blk.last */
	bool trap_pending;	/* the open block ends in a trap */
	/*
	 * The packet before this one reported a trap with thaddr 0: nothing
	 * retired since, so this packet's exception was taken at the first
	 * instruction of that trap's handler, whose address that packet gave.
	 */
	bool after_trap_only;
	bool trap_only_handler_known;
	uint64_t trap_only_handler;
	/*
	 * The last packet that reported an instruction or a trap was a 3.1
	 * with thaddr 0: nothing retired since pc, so the next retired
	 * instruction is the first of the last trap's handler.
	 */
	bool nothing_retired;
	uint64_t extend_at;	/* an instruction here extends the open block (1: none) */
	bool flush_req, flush_final;

	/* Output queue. */
	struct spoor_dec_item q[QUEUE_SIZE];
	unsigned q_head, q_len;

	struct spoor_decoder_stats st;
	struct icache_entry *icache;
	struct bcache_entry *bcache;
};

/* ---- output ------------------------------------------------------------ */

/* Returns a queue slot for a new item (the caller checked there is room). */
HOT struct spoor_dec_item *q_push(struct spoor_decoder *dec, uint8_t kind)
{
	struct spoor_dec_item *it = &dec->q[(dec->q_head + dec->q_len++) % QUEUE_SIZE];

	it->kind = kind;
	it->source = dec->cfg.source;
	it->offset = dec->offset;
	return it;
}

/* Returns a new event item of @kind. */
static struct spoor_event *emit_event(struct spoor_decoder *dec, uint8_t kind)
{
	struct spoor_dec_item *it = q_push(dec, SPOOR_DEC_EVENT);

	memset(&it->event, 0, sizeof(it->event));
	it->event.kind = kind;
	it->event.priv = (uint8_t)dec->privilege;
	return &it->event;
}

/* Emits the open block, ended by @end with next address @next. */
HOT void close_block(struct spoor_decoder *dec, uint8_t end, uint64_t next)
{
	struct spoor_dec_item *it;

	if (!dec->open)
		return;
	it = q_push(dec, SPOOR_DEC_BLOCK);
	it->block = dec->blk;
	it->block.end = end;
	it->block.next = next;
	dec->open = false;
	dec->extend_at = 1;
	dec->st.blocks++;
}

/* How a block whose last instruction has class @cls ends when @next follows. */
static uint8_t block_end_for(const struct spoor_decoder *dec, uint8_t cls, uint64_t next)
{
	switch (cls) {
	case SPOOR_INSN_BRANCH:
		return next == dec->blk.last + dec->blk.last_len ? SPOOR_BLK_NOT_TAKEN :
								    SPOOR_BLK_TAKEN;
	case SPOOR_INSN_JUMP:
		return SPOOR_BLK_JUMP;
	case SPOOR_INSN_ECALL:
		return SPOOR_BLK_ECALL;
	case SPOOR_INSN_JALR:
	case SPOOR_INSN_XRET:
		return SPOOR_BLK_UNINFERABLE;
	default:
		return SPOOR_BLK_END;
	}
}

/*
 * report_pc() for @n instructions ending at @addr (the last of them has
 * length @len and class @cls): extends the open block when they follow it
 * sequentially, else closes it and opens a new one.
 */
HOT void report_run(struct spoor_decoder *dec, uint64_t first, uint64_t addr, uint64_t n,
		       uint8_t len, uint8_t cls)
{
	if (first == dec->extend_at) {
		dec->blk.ninsn += n;
	} else {
		if (dec->open)
			close_block(dec, dec->trap_pending ? SPOOR_BLK_TRAP :
				    block_end_for(dec, dec->last_cls, first), first);
		dec->trap_pending = false;
		dec->open = true;
		dec->blk.start = first;
		dec->blk.ninsn = n;
		dec->blk.priv = (uint8_t)dec->privilege;
	}
	dec->blk.last = addr;
	dec->blk.last_len = len;
	dec->last_cls = cls;
	/* Only a block ending in sequential code goes on; 1 is no address. */
	dec->extend_at = cls == SPOOR_INSN_SEQ ? addr + len : 1;
	dec->st.instructions += n;
}

/* ---- program image ----------------------------------------------------- */

static inline int get_insn(struct spoor_decoder *dec, uint64_t addr, const struct spoor_insn **out);

/* report_pc(): retires the instruction at @addr.  Returns 0 or an error
 * (no valid instruction there). */
HOT int report_pc(struct spoor_decoder *dec, uint64_t addr)
{
	const struct spoor_insn *in;
	int ret = get_insn(dec, addr, &in);

	if (ret)
		return ret;
	dec->cur = *in;
	report_run(dec, addr, addr, 1, in->len, in->cls);
	return 0;
}

/* Decodes the instruction at @addr through the cache; returns 0 or an error. */
HOT int get_insn(struct spoor_decoder *dec, uint64_t addr, const struct spoor_insn **out)
{
	struct icache_entry *e = &dec->icache[(addr >> 1) & ((1u << ICACHE_BITS) - 1)];
	int ret;

	if (e->addr == addr) {
		*out = &e->insn;
		return 0;
	}
	ret = spoor_image_insn(dec->img, addr, dec->xlen, &e->insn);
	if (ret < 0) {
		e->addr = ~UINT64_C(0);
		return ret;
	}
	e->addr = addr;
	*out = &e->insn;
	return 0;
}

int spoor_decoder_insn(struct spoor_decoder *dec, uint64_t addr, struct spoor_insn *insn)
{
	const struct spoor_insn *in;
	int ret;

	if (!dec || !insn)
		return SPOOR_E_INVAL;
	ret = get_insn(dec, addr, &in);
	if (!ret)
		*insn = *in;
	return ret;
}

/* The sequential run starting at @start (a cached block-cache entry). */
HOT const struct bcache_entry *get_run(struct spoor_decoder *dec, uint64_t start)
{
	struct bcache_entry *e = &dec->bcache[(start >> 1) & ((1u << BCACHE_BITS) - 1)];
	const struct spoor_insn *in;
	uint64_t a = start, prev = 0;
	uint32_t n = 0;

	if (e->start == start)
		return e;
	memset(&e->prev_insn, 0, sizeof(e->prev_insn));
	while (n < SCAN_LIMIT && !get_insn(dec, a, &in) && in->cls == SPOOR_INSN_SEQ) {
		e->prev_insn = *in;
		prev = a;
		a += in->len;
		n++;
	}
	e->start = start;
	e->cf = a;
	e->prev = prev;
	e->n = n;
	e->cf_ok = !get_insn(dec, a, &in);
	if (e->cf_ok)
		e->cf_insn = *in;
	return e;
}

/* True when the instruction at @addr is a conditional branch. */
static bool is_branch_at(struct spoor_decoder *dec, uint64_t addr)
{
	const struct spoor_insn *in;

	return !get_insn(dec, addr, &in) && in->cls == SPOOR_INSN_BRANCH;
}

/* ---- instruction classes in the spec's terms --------------------------- */

static bool is_uninferable_discon(const struct spoor_insn *in)
{
	return in->cls == SPOOR_INSN_JALR || in->cls == SPOOR_INSN_XRET ||
	       in->cls == SPOOR_INSN_ECALL;
}

/* Calls push a return address: x1 only in the reference flow, else x1/x5. */
static bool is_call(const struct spoor_decoder *dec, const struct spoor_insn *in)
{
	if (!(in->flags & SPOOR_INSN_CALL))
		return false;
	if (dec->cfg.compat & SPOOR_COMPAT_REFERENCE)
		return in->rd == 1;
	return true;
}

/* Returns that may be implicit: x1 with rd = x0 in the reference flow. */
static bool is_return(const struct spoor_decoder *dec, const struct spoor_insn *in)
{
	if (!(in->flags & SPOOR_INSN_RETURN))
		return false;
	if (dec->cfg.compat & SPOOR_COMPAT_REFERENCE)
		return in->rs1 == 1 && in->rd == 0;
	return !(in->flags & SPOOR_INSN_CALL);
}

/* ---- return stack, jump target cache, branch predictor ------------------ */

static void push_return_stack(struct spoor_decoder *dec, uint64_t link)
{
	if (!(dec->options & SPOOR_OPT_IMPLICIT_RETURN) || !dec->ras)
		return;
	if (dec->irstack_depth == dec->ras_max) {
		/* Drop the oldest entry. */
		memmove(dec->ras, dec->ras + 1, (dec->ras_max - 1) * sizeof(*dec->ras));
		dec->irstack_depth--;
	}
	dec->ras[dec->irstack_depth++].link = link;
}

static uint64_t pop_return_stack(struct spoor_decoder *dec)
{
	return dec->ras[--dec->irstack_depth].link;
}

static unsigned jtc_index(const struct spoor_decoder *dec, uint64_t addr)
{
	return (unsigned)((addr >> dec->p->iaddress_lsb_p) &
			  ((UINT64_C(1) << dec->p->cache_size_p) - 1));
}

static void cache_update(struct spoor_decoder *dec, uint64_t addr)
{
	if ((dec->options & SPOOR_OPT_JUMP_TARGET_CACHE) && dec->jtc)
		dec->jtc[jtc_index(dec, addr)] = addr;
}

static unsigned bpred_index(const struct spoor_decoder *dec, uint64_t addr)
{
	return (unsigned)((addr >> dec->p->iaddress_lsb_p) &
			  ((UINT64_C(1) << dec->p->bpred_size_p) - 1));
}

/* Predictor state: bit 1 = predicted outcome (taken), bit 0 = last outcome. */
static void bpred_init(struct spoor_decoder *dec)
{
	if (dec->bpred)
		memset(dec->bpred, 1, (size_t)1 << dec->p->bpred_size_p);
}

static void bpred_update(struct spoor_decoder *dec, uint64_t addr, bool taken)
{
	uint8_t *s;

	if (!(dec->options & SPOOR_OPT_BRANCH_PREDICTION) || !dec->bpred)
		return;
	s = &dec->bpred[bpred_index(dec, addr)];
	/* The prediction changes after two failed predictions in a row. */
	if (((*s >> 1) & 1) != (*s & 1))
		*s = (uint8_t)((taken << 1) | (*s & 1));
	*s = (uint8_t)((*s & 2) | taken);
}

static bool bpred_taken(struct spoor_decoder *dec, uint64_t addr)
{
	bool taken = dec->bpred && (dec->bpred[bpred_index(dec, addr)] >> 1) & 1;

	/* Prediction failed on the final branch of an addr-fail count packet. */
	if (dec->branches == 1 && dec->pkt.v[SPOOR_TE_F_FORMAT] == SPOOR_TE_FORMAT_EXT &&
	    spoor_te_has(&dec->pkt, SPOOR_TE_F_BRANCH_FMT) &&
	    dec->pkt.v[SPOOR_TE_F_BRANCH_FMT] == SPOOR_TE_BFMT_ADDR_FAIL)
		taken = !taken;
	return taken;
}

/* ---- packet predicates -------------------------------------------------- */

static bool includes_bpred_count(const struct spoor_te_inst *t)
{
	return t->v[SPOOR_TE_F_FORMAT] == SPOOR_TE_FORMAT_EXT &&
	       spoor_te_has(t, SPOOR_TE_F_BRANCH_COUNT);
}

static bool includes_cache_index(const struct spoor_te_inst *t)
{
	return t->v[SPOOR_TE_F_FORMAT] == SPOOR_TE_FORMAT_EXT && spoor_te_has(t, SPOOR_TE_F_INDEX);
}

static bool includes_address(const struct spoor_te_inst *t)
{
	return t->v[SPOOR_TE_F_FORMAT] != SPOOR_TE_FORMAT_SYNC &&
	       spoor_te_has(t, SPOOR_TE_F_ADDRESS);
}

static bool is_failed_bpred(const struct spoor_te_inst *t)
{
	return includes_bpred_count(t) && (t->v[SPOOR_TE_F_BRANCH_FMT] == SPOOR_TE_BFMT_NO_ADDR ||
					   t->v[SPOOR_TE_F_BRANCH_FMT] == SPOOR_TE_BFMT_ADDR_FAIL);
}

/* Sets the notify/updiscon/irreport meanings of the current packet. */
static void recover_status_fields(struct spoor_decoder *dec)
{
	const struct spoor_te_inst *t = &dec->pkt;
	bool addr = includes_address(t);

	dec->flag_notify = addr && (t->status & SPOOR_TE_NOTIFY);
	dec->flag_updiscon = addr && (t->status & SPOOR_TE_UPDISCON);
	dec->flag_irreport = (addr || includes_cache_index(t)) && (t->status & SPOOR_TE_IRREPORT);
}

/* ---- errors ------------------------------------------------------------- */

/* Stops decoding at an inconsistency: a GAP event, then wait for a sync. */
static void gap(struct spoor_decoder *dec, int reason)
{
	struct spoor_event *ev;

	close_block(dec, SPOOR_BLK_END, 0);
	ev = emit_event(dec, SPOOR_EV_GAP);
	ev->reason = reason;
	ev->address = dec->pc;
	dec->st.gaps++;
	dec->after_trap_only = false;
	dec->nothing_retired = false;
	dec->lost = true;
	dec->start_of_trace = true;
	dec->inferred_address = false;
	dec->stop_at_last_branch = false;
	dec->branches = 0;
	dec->branch_map = 0;
	dec->loop = LOOP_IDLE;
}

/* ---- the algorithm ------------------------------------------------------ */

/* Consumes one branch outcome; returns 1 taken, 0 not taken, or an error. */
HOT int take_branch(struct spoor_decoder *dec, uint64_t addr)
{
	bool taken;

	if (dec->branches == 0)
		return SPOOR_E_TRACE;	/* cannot resolve branch */
	if (dec->use_bpred) {
		taken = bpred_taken(dec, addr);
	} else {
		taken = !(dec->branch_map & 1);
		dec->branch_map >>= 1;
		dec->use_bpred = includes_bpred_count(&dec->pkt);
	}
	bpred_update(dec, addr, taken);
	dec->idle_steps = 0;
	dec->branches--;
	dec->st.branches++;
	return taken;
}

/* True for jalr/c.jr/c.jalr preceded by auipc/lui/c.lui setting its rs1. */
static bool is_sequential_jump(struct spoor_decoder *dec, const struct spoor_insn *in,
			       uint64_t *target)
{
	const struct spoor_insn *prev = &dec->last;

	if (!(dec->options & SPOOR_OPT_SIJUMP) || in->cls != SPOOR_INSN_JALR ||
	    dec->last_pc == dec->pc || !(prev->flags & SPOOR_INSN_UPPER) || prev->rd != in->rs1)
		return false;
	*target = (uint64_t)prev->imm + (uint64_t)in->imm;
	if ((prev->raw & 0x7f) == 0x17)		/* auipc: pc-relative */
		*target += dec->last_pc;
	*target &= ~UINT64_C(1);
	return true;
}

/* Implicit return: the return address comes from the return stack. */
static bool is_implicit_return(struct spoor_decoder *dec, const struct spoor_insn *in)
{
	if (!(dec->options & SPOOR_OPT_IMPLICIT_RETURN) || !is_return(dec, in))
		return false;
	/* A return the encoder reported explicitly (misprediction). */
	if (dec->flag_irreport && spoor_te_has(&dec->pkt, SPOOR_TE_F_IRDEPTH) &&
	    dec->pkt.v[SPOOR_TE_F_IRDEPTH] == dec->irstack_depth)
		return false;
	return dec->irstack_depth > 0;
}

/*
 * next_pc(): moves pc past the instruction at pc.  @address is the target
 * of an uninferable discontinuity.  Returns 1 when it was one (stop here),
 * 0 otherwise, or a negative error.
 */
HOT int next_pc(struct spoor_decoder *dec, uint64_t address)
{
	const struct spoor_insn *in = &dec->cur;
	uint64_t this_pc = dec->pc, target;
	int stop = 0, ret;

	switch (in->cls) {
	case SPOOR_INSN_JUMP:
		if ((in->raw & 0x7f) == 0x67)		/* jalr with rs1 = x0: absolute */
			dec->pc = (uint64_t)in->imm & ~UINT64_C(1);
		else
			dec->pc = this_pc + (uint64_t)in->imm;
		stop = in->imm == 0;			/* a jump to itself */
		break;
	case SPOOR_INSN_BRANCH:
		ret = take_branch(dec, this_pc);
		if (ret < 0)
			return ret;
		dec->pc = this_pc + (ret ? (uint64_t)in->imm : in->len);
		stop = ret && in->imm == 0;		/* a branch to itself */
		break;
	case SPOOR_INSN_JALR:
	case SPOOR_INSN_XRET:
	case SPOOR_INSN_ECALL:
		if (is_sequential_jump(dec, in, &target)) {
			dec->pc = target;
		} else if (is_implicit_return(dec, in)) {
			dec->pc = pop_return_stack(dec);
		} else {
			if (dec->stop_at_last_branch)
				return SPOOR_E_TRACE;	/* unexpected uninferable discontinuity */
			dec->pc = address;
			cache_update(dec, address);
			stop = 1;
		}
		break;
	default:
		dec->pc = this_pc + in->len;
		break;
	}
	if (is_call(dec, in))
		push_return_stack(dec, this_pc + in->len);
	dec->last_pc = this_pc;
	dec->last = *in;
	ret = report_pc(dec, dec->pc);
	return ret ? ret : stop;
}

/*
 * Moves over the sequential run at pc in one step when @address is not
 * inside it: the instructions after pc up to the next control-flow
 * instruction are retired.  Returns 1 if it moved, 0 if not, or an error.
 */
HOT int skip_run(struct spoor_decoder *dec, uint64_t address, bool check_address)
{
	const struct bcache_entry *run;

	if (dec->cur.cls != SPOOR_INSN_SEQ)
		return 0;
	run = get_run(dec, dec->pc);
	/* Let next_pc() report a problem where it is. */
	if (run->n < 2 || !run->cf_ok ||
	    (check_address && address > dec->pc && address < run->cf))
		return 0;
	report_run(dec, dec->pc + dec->cur.len, run->cf, run->n, run->cf_insn.len,
		   run->cf_insn.cls);
	dec->last_pc = run->prev;
	dec->last = run->prev_insn;
	dec->pc = run->cf;
	dec->cur = run->cf_insn;
	return 1;
}

/* Checks the stop conditions of follow_execution_path() at pc. */
HOT int follow_check(struct spoor_decoder *dec, int stop_here, uint64_t address, bool *done)
{
	const struct spoor_te_inst *t = &dec->pkt;
	bool sync = t->v[SPOOR_TE_F_FORMAT] == SPOOR_TE_FORMAT_SYNC;
	const struct spoor_insn *last = &dec->last;
	unsigned limit = dec->cur.cls == SPOOR_INSN_BRANCH ? 1 : 0;

	*done = false;
	if (dec->branches == 1 && limit && dec->stop_at_last_branch) {
		/* Reached the final branch: stop before it, its outcome is unknown. */
		if (is_failed_bpred(t)) {
			/* The map holds the prediction, which is the outcome
			 * inverted: the prediction failed (0 = taken). */
			bool predicted = bpred_taken(dec, dec->pc);

			dec->branch_map = (dec->branch_map & ~UINT64_C(1)) | predicted;
		}
		dec->stop_at_last_branch = false;
		*done = true;
		return 0;
	}
	if (stop_here) {
		/* Reached the address after an uninferable discontinuity. */
		if (dec->branches > limit)
			return SPOOR_E_TRACE;	/* unprocessed branches */
		*done = true;
		return 0;
	}
	if (dec->pc != address || dec->stop_at_last_branch || dec->branches != limit)
		return 0;
	if (!sync && dec->flag_notify) {
		*done = true;
		return 0;
	}
	if (!sync && !dec->flag_updiscon && !is_uninferable_discon(last) &&
	    (!dec->flag_irreport || (spoor_te_has(t, SPOOR_TE_F_IRDEPTH) &&
				     t->v[SPOOR_TE_F_IRDEPTH] == dec->irstack_depth))) {
		/* Reached the address, but maybe not for the last time (looplabel). */
		dec->prev_pkt = *t;
		dec->inferred_address = true;
		*done = true;
		return 0;
	}
	if (sync) {
		if (!(dec->cfg.compat & SPOOR_COMPAT_REFERENCE) &&
		    t->v[SPOOR_TE_F_PRIVILEGE] != dec->privilege && last->cls != SPOOR_INSN_XRET)
			return 0;
		*done = true;
	}
	return 0;
}

static int follow_step_once(struct spoor_decoder *dec);

/*
 * One step of follow_execution_path() (or of process_support()'s ended_ntr
 * loop).  Returns 1 when the loop is done, 0 to go on, or an error.
 */
static int follow_step(struct spoor_decoder *dec)
{
	/* A path that loops through jumps alone never reaches a corrupt
	 * address: give up after too many steps without a branch. */
	if (++dec->idle_steps > IDLE_LIMIT)
		return SPOOR_E_TRACE;
	return follow_step_once(dec);
}

/* One step of the loop; see follow_step(). */
static int follow_step_once(struct spoor_decoder *dec)
{
	bool done;
	int stop, ret;

	if (dec->loop == LOOP_NTR || dec->inferred_address) {
		/* Iterate from the previously reported address to its second occurrence. */
		ret = skip_run(dec, 0, false);
		if (ret < 0)
			return ret;
		if (ret)
			return 0;
		stop = next_pc(dec, dec->prev_address);
		if (stop < 0)
			return stop;
		if (stop) {
			dec->inferred_address = false;
			if (dec->loop == LOOP_NTR)
				return 1;
		}
		return 0;
	}
	ret = skip_run(dec, dec->address, true);
	if (ret < 0)
		return ret;
	if (ret) {
		ret = follow_check(dec, 0, dec->address, &done);
		return ret < 0 ? ret : done;
	}
	stop = next_pc(dec, dec->address);
	if (stop < 0)
		return stop;
	ret = follow_check(dec, stop, dec->address, &done);
	return ret < 0 ? ret : done;
}

/* ---- packets ------------------------------------------------------------ */

/* Full byte address from an address field. */
static uint64_t field_address(const struct spoor_decoder *dec, const struct spoor_te_inst *t)
{
	return spoor_te_full_address(dec->p, t->v[SPOOR_TE_F_ADDRESS]);
}

/* Reports a privilege change (and the first privilege) as an event. */
static void set_privilege(struct spoor_decoder *dec, unsigned priv, bool force)
{
	if (priv != dec->privilege || force) {
		dec->privilege = priv;
		emit_event(dec, SPOOR_EV_PRIV);
	}
}

/* The address of the next instruction, without side effects; false if unknown. */
static bool peek_next_pc(struct spoor_decoder *dec, uint64_t *next)
{
	const struct spoor_insn *in;

	if (get_insn(dec, dec->pc, &in))
		return false;
	switch (in->cls) {
	case SPOOR_INSN_SEQ:
		*next = dec->pc + in->len;
		return true;
	case SPOOR_INSN_JUMP:
		*next = (in->raw & 0x7f) == 0x67 ? (uint64_t)in->imm & ~UINT64_C(1) :
						   dec->pc + (uint64_t)in->imm;
		return true;
	case SPOOR_INSN_BRANCH:
		if (!dec->branches || dec->use_bpred)
			return false;
		*next = dec->pc + (!(dec->branch_map & 1) ? (uint64_t)in->imm : in->len);
		return true;
	default:
		return false;
	}
}

static int implicit_handler(struct spoor_decoder *dec, uint64_t *addr);

/* report_trap() and report_epc(): the trap event of a format 3.1 packet. */
static void report_trap(struct spoor_decoder *dec)
{
	const struct spoor_te_inst *t = &dec->pkt;
	const struct spoor_insn *in = NULL;
	struct spoor_event *ev;
	bool have = !dec->start_of_trace && !get_insn(dec, dec->pc, &in);
	bool after, handler_known, epc_sent;
	uint64_t handler;

	ev = emit_event(dec, SPOOR_EV_TRAP);
	ev->cause = t->v[SPOOR_TE_F_ECAUSE];
	ev->interrupt = t->v[SPOOR_TE_F_INTERRUPT] & 1;
	ev->tval = spoor_te_has(t, SPOOR_TE_F_TVAL) ? t->v[SPOOR_TE_F_TVAL] : 0;
	ev->address = 0;
	if (t->v[SPOOR_TE_F_THADDR]) {
		if (spoor_te_has(t, SPOOR_TE_F_ADDRESS))
			ev->address = field_address(dec, t);
		else
			implicit_handler(dec, &ev->address);	/* stays 0 if unknown */
	}
	dec->st.traps++;
	dec->trap_pending = true;
	dec->extend_at = 1;
	after = dec->after_trap_only;
	handler = dec->trap_only_handler;
	handler_known = dec->trap_only_handler_known;
	dec->after_trap_only = false;
	/*
	 * exception_address(): the address field holds the EPC (thaddr 0)
	 * when the first traced instruction or the target of an uninferable
	 * discontinuity trapped, and for every trap after such a one while
	 * nothing retires (pc stays at the discontinuity).  ecall and ebreak
	 * are not discontinuities here (they trap; E-Trace 2.0's decoder):
	 * a trap packet after one that retired follows the rules below.
	 */
	epc_sent = !have || (is_uninferable_discon(in) && in->cls != SPOOR_INSN_ECALL);
	if (!t->v[SPOOR_TE_F_THADDR] && !epc_sent) {
		/*
		 * Trap only: the handler's first instruction did not retire.
		 * The address field is where the handler starts (the
		 * instruction current when the packet went out): the EPC of
		 * the exception taken there next (poss_next_epc).
		 */
		dec->after_trap_only = true;
		dec->trap_only_handler_known = spoor_te_has(t, SPOOR_TE_F_ADDRESS);
		dec->trap_only_handler = dec->trap_only_handler_known ? field_address(dec, t) : 0;
	}
	if (ev->interrupt)
		return;
	if (epc_sent) {
		if (!t->v[SPOOR_TE_F_THADDR]) {
			ev->epc = field_address(dec, t);
			ev->has_epc = true;
		}
	} else if (after) {
		/*
		 * The case the E-Trace payload chapter gives under "thaddr": a
		 * second exception before the handler's first instruction
		 * retired, at that handler's address (the previous packet's).
		 */
		ev->epc = handler;
		ev->has_epc = handler_known;
	} else if (in->cls == SPOOR_INSN_ECALL) {
		ev->epc = dec->pc;
		ev->has_epc = true;
	} else {
		ev->has_epc = peek_next_pc(dec, &ev->epc);
	}
}

/* Applies the ioptions of a support packet to the run-time options. */
static uint32_t support_options(const struct spoor_decoder *dec, const struct spoor_te_inst *t)
{
	uint64_t io = spoor_te_has(t, SPOOR_TE_F_IOPTIONS) ? t->v[SPOOR_TE_F_IOPTIONS] : 0;
	uint32_t opts = dec->options;

	for (int i = 0; i < SPOOR_IOPT_COUNT; i++) {
		int bit = dec->p->ioption_bit[i];

		if (bit < 0)
			continue;	/* not reported: keep the configured value */
		/* enum spoor_option bit i is ioption i. */
		if ((io >> bit) & 1)
			opts |= UINT32_C(1) << i;
		else
			opts &= ~(UINT32_C(1) << i);
	}
	return opts;
}

/* Ends the trace: the open block ends and a STOP event follows. */
static void trace_stopped(struct spoor_decoder *dec)
{
	struct spoor_event *ev;

	close_block(dec, SPOOR_BLK_END, 0);
	ev = emit_event(dec, SPOOR_EV_STOP);
	ev->qual_status = (uint8_t)dec->pkt.v[SPOOR_TE_F_QUAL_STATUS];
}

/* process_support(): returns 1 when the ended_ntr loop must run, else 0. */
static int process_support(struct spoor_decoder *dec)
{
	const struct spoor_te_inst *t = &dec->pkt;
	unsigned qual = (unsigned)t->v[SPOOR_TE_F_QUAL_STATUS];
	struct spoor_event *ev;

	dec->options = support_options(dec, t);
	if (qual == SPOOR_TE_QUAL_NO_CHANGE) {
		if (t->v[SPOOR_TE_F_IENABLE]) {
			ev = emit_event(dec, SPOOR_EV_START);
			ev->options = dec->options;
		}
		return 0;
	}
	/* Trace ended (or was lost): get ready to start again. */
	dec->start_of_trace = true;
	if (qual == SPOOR_TE_QUAL_TRACE_LOST) {
		close_block(dec, SPOOR_BLK_END, 0);
		ev = emit_event(dec, SPOOR_EV_LOST);
		ev->qual_status = (uint8_t)qual;
		dec->inferred_address = false;
		return 0;
	}
	if (qual == SPOOR_TE_QUAL_ENDED_NTR && dec->inferred_address) {
		dec->inferred_address = false;
		dec->prev_address = dec->pc;
		return 1;
	}
	trace_stopped(dec);
	return 0;
}

/* The end of a synchronisation packet's processing. */
static void sync_done(struct spoor_decoder *dec)
{
	set_privilege(dec, (unsigned)dec->pkt.v[SPOOR_TE_F_PRIVILEGE], false);
	dec->start_of_trace = false;
	dec->lost = false;
	/*
	 * Every synchronisation restarts the return stack, initialises the
	 * branch predictor and invalidates the jump target cache, as the
	 * encoder does when it sends the packet; the packet's own branch, if
	 * any, is taken after this, the fresh predictor's first.
	 */
	dec->irstack_depth = 0;
	bpred_init(dec);
	if (dec->jtc)
		memset(dec->jtc, 0, sizeof(*dec->jtc) << dec->p->cache_size_p);
}

/*
 * The trap handler of an implicit-exception trap packet, from the trap
 * vector of the handler's privilege.  Returns 0 or SPOOR_E_TRACE (no vector).
 */
static int implicit_handler(struct spoor_decoder *dec, uint64_t *addr)
{
	const struct spoor_te_inst *t = &dec->pkt;
	uint64_t tvec = t->v[SPOOR_TE_F_PRIVILEGE] == 3 ? dec->cfg.mtvec : dec->cfg.stvec;

	if (!tvec)
		return SPOOR_E_TRACE;
	*addr = tvec & ~UINT64_C(3);
	if ((tvec & 3) == 1 && (t->v[SPOOR_TE_F_INTERRUPT] & 1))
		*addr += 4 * t->v[SPOOR_TE_F_ECAUSE];
	return 0;
}

/* Format 3 subformats 0 and 1 (with a handler address): synchronisation. */
static int process_sync(struct spoor_decoder *dec)
{
	const struct spoor_te_inst *t = &dec->pkt;
	unsigned sf = (unsigned)t->v[SPOOR_TE_F_SUBFORMAT];
	bool starting = dec->start_of_trace;
	struct spoor_event *ev;
	int ret;

	dec->inferred_address = false;
	if (spoor_te_has(t, SPOOR_TE_F_ADDRESS))
		dec->address = field_address(dec, t);
	else if ((ret = implicit_handler(dec, &dec->address)))
		return ret;
	if (sf == SPOOR_TE_SYNC_TRAP || starting) {
		dec->branches = 0;
		dec->branch_map = 0;
	}
	if (is_branch_at(dec, dec->address)) {
		/* One unprocessed branch if this instruction is a branch. */
		dec->branch_map |= (t->v[SPOOR_TE_F_BRANCH] & 1) << dec->branches;
		dec->branches++;
	}
	if (spoor_te_has(t, SPOOR_TE_F_CONTEXT) && t->v[SPOOR_TE_F_CONTEXT] != dec->context) {
		dec->context = t->v[SPOOR_TE_F_CONTEXT];
		ev = emit_event(dec, SPOOR_EV_CONTEXT);
		ev->context = dec->context;
	}
	if (sf == SPOOR_TE_SYNC_START && !starting && !dec->nothing_retired) {
		/* Resynchronisation mid-trace: follow the path to the address,
		 * then sync_done().  (After trap-only packets the address is
		 * where the handler started: nothing retired on the way, and
		 * following an inferred jump at pc would pop or jump.) */
		dec->prev_address = dec->pc;
		dec->sync_follow = true;
		return 1;
	}
	if (starting) {
		close_block(dec, SPOOR_BLK_END, 0);
		ev = emit_event(dec, SPOOR_EV_SYNC);
		ev->address = dec->address;
		ev->context = dec->context;
		dec->use_bpred = false;
	}
	set_privilege(dec, (unsigned)t->v[SPOOR_TE_F_PRIVILEGE], starting);
	dec->pc = dec->address;
	ret = report_pc(dec, dec->pc);
	if (ret)
		return ret;
	dec->last_pc = dec->pc;
	dec->last = dec->cur;
	sync_done(dec);
	return 0;
}

/* Formats 0, 1 and 2: returns 1 to follow the path, or an error. */
static int process_flow(struct spoor_decoder *dec)
{
	const struct spoor_te_inst *t = &dec->pkt;
	uint64_t branches;

	if (dec->inferred_address) {
		/*
		 * The previous packet's address was reached before the
		 * uninferable jump it reports (looplabel): following that jump
		 * is deferred to this packet, but the encoder cached its
		 * target when it sent that packet, so this packet's cache
		 * index already sees it.
		 */
		cache_update(dec, dec->pc);
	}
	if (includes_address(t)) {
		dec->stop_at_last_branch = false;
		if (dec->options & SPOOR_OPT_FULL_ADDRESS)
			dec->address = field_address(dec, t);
		else
			dec->address += (uint64_t)spoor_te_diff_address(dec->p,
									 t->v[SPOOR_TE_F_ADDRESS]);
		dec->address &= dec->addr_mask;
	} else if (includes_cache_index(t)) {
		if (!dec->jtc)
			return SPOOR_E_TRACE;
		dec->stop_at_last_branch = false;
		dec->address = dec->jtc[t->v[SPOOR_TE_F_INDEX] &
					((UINT64_C(1) << dec->p->cache_size_p) - 1)];
	}
	if (includes_bpred_count(t)) {
		dec->use_bpred = dec->branches == 0;
		dec->stop_at_last_branch = t->v[SPOOR_TE_F_BRANCH_FMT] == SPOOR_TE_BFMT_NO_ADDR;
		dec->branches += t->v[SPOOR_TE_F_BRANCH_COUNT] + 31;
		if (is_failed_bpred(t))
			dec->branches++;
	} else if (spoor_te_has(t, SPOOR_TE_F_BRANCHES) &&
		   (t->v[SPOOR_TE_F_FORMAT] == SPOOR_TE_FORMAT_BRANCH ||
		    t->v[SPOOR_TE_F_BRANCHES] > 0)) {
		branches = t->v[SPOOR_TE_F_BRANCHES];
		if (t->v[SPOOR_TE_F_FORMAT] == SPOOR_TE_FORMAT_BRANCH)
			dec->stop_at_last_branch = branches == 0;
		if (dec->branches >= 64 - 31)
			return SPOOR_E_TRACE;	/* branches the path never used */
		dec->branch_map |= (t->v[SPOOR_TE_F_BRANCH_MAP] & 0x7fffffff) << dec->branches;
		dec->branches += branches ? branches : 31;
	}
	dec->prev_address = dec->pc;
	return 1;
}

/* process_te_inst(): returns 1 when the follow loop must run, 0, or an error. */
static int process_packet(struct spoor_decoder *dec)
{
	const struct spoor_te_inst *t = &dec->pkt;
	unsigned fmt = (unsigned)t->v[SPOOR_TE_F_FORMAT];
	unsigned sf = (unsigned)t->v[SPOOR_TE_F_SUBFORMAT];
	struct spoor_event *ev;
	int ret;

	dec->st.packets++;
	dec->use_bpred = false;
	dec->sync_follow = false;
	if (fmt != SPOOR_TE_FORMAT_SYNC || sf != SPOOR_TE_SYNC_TRAP)
		dec->after_trap_only = false;	/* something came between */
	recover_status_fields(dec);
	if (fmt == SPOOR_TE_FORMAT_SYNC) {
		switch (sf) {
		case SPOOR_TE_SYNC_SUPPORT:
			return process_support(dec);
		case SPOOR_TE_SYNC_CONTEXT:
			if (spoor_te_has(t, SPOOR_TE_F_CONTEXT) &&
			    t->v[SPOOR_TE_F_CONTEXT] != dec->context) {
				dec->context = t->v[SPOOR_TE_F_CONTEXT];
				ev = emit_event(dec, SPOOR_EV_CONTEXT);
				ev->context = dec->context;
			}
			if (spoor_te_has(t, SPOOR_TE_F_PRIVILEGE))
				set_privilege(dec, (unsigned)t->v[SPOOR_TE_F_PRIVILEGE], false);
			return 0;
		case SPOOR_TE_SYNC_TRAP:
			report_trap(dec);
			if (!t->v[SPOOR_TE_F_THADDR]) {
				dec->nothing_retired = true;
				return 0;	/* trap only: nothing retired */
			}
			break;
		default:
			break;
		}
		ret = process_sync(dec);
		dec->nothing_retired = false;
		return ret;
	}
	dec->nothing_retired = false;
	if (dec->start_of_trace) {
		/* Expecting the trace to start with format 3: skip until one comes. */
		if (dec->lost)
			return 0;
		dec->lost = true;
		return SPOOR_E_NO_SYNC;
	}
	return process_flow(dec);
}

/* ---- API ---------------------------------------------------------------- */

struct spoor_decoder *spoor_decoder_new(const struct spoor_decoder_config *cfg)
{
	struct spoor_decoder *dec;
	const struct spoor_params *p;
	uint64_t ras;

	if (!cfg || !cfg->params || !cfg->image || spoor_params_check(cfg->params, NULL))
		return NULL;
	p = cfg->params;
	if (p->cache_size_p > 20 || p->bpred_size_p > 20)
		return NULL;
	dec = calloc(1, sizeof(*dec));
	if (!dec)
		return NULL;
	dec->cfg = *cfg;
	dec->p = p;
	dec->img = cfg->image;
	dec->xlen = spoor_image_xlen(cfg->image);
	if (!dec->xlen)
		dec->xlen = p->iaddress_width_p > 32 ? 64 : 32;
	dec->addr_mask = p->iaddress_width_p >= 64 ? ~UINT64_C(0) :
			 (UINT64_C(1) << p->iaddress_width_p) - 1;
	dec->options = cfg->options;
	dec->start_of_trace = true;
	dec->extend_at = 1;
	dec->privilege = ~0u;
	dec->icache = malloc(sizeof(*dec->icache) << ICACHE_BITS);
	dec->bcache = malloc(sizeof(*dec->bcache) << BCACHE_BITS);
	if (!dec->icache || !dec->bcache)
		goto fail;
	memset(dec->icache, 0xff, sizeof(*dec->icache) << ICACHE_BITS);
	memset(dec->bcache, 0xff, sizeof(*dec->bcache) << BCACHE_BITS);
	/* The decoder keeps return addresses even where the encoder only counts. */
	ras = p->return_stack_size_p ? UINT64_C(1) << p->return_stack_size_p :
	      p->call_counter_size_p ? UINT64_C(1) << p->call_counter_size_p : 0;
	if (ras > RAS_LIMIT)
		ras = RAS_LIMIT;
	if (ras) {
		dec->ras = calloc(ras, sizeof(*dec->ras));
		dec->ras_max = ras;
		if (!dec->ras)
			goto fail;
	}
	if (p->cache_size_p) {
		dec->jtc = calloc((size_t)1 << p->cache_size_p, sizeof(*dec->jtc));
		if (!dec->jtc)
			goto fail;
	}
	if (p->bpred_size_p) {
		dec->bpred = malloc((size_t)1 << p->bpred_size_p);
		if (!dec->bpred)
			goto fail;
		bpred_init(dec);
	}
	return dec;
fail:
	spoor_decoder_free(dec);
	return NULL;
}

void spoor_decoder_free(struct spoor_decoder *dec)
{
	if (!dec)
		return;
	free(dec->icache);
	free(dec->bcache);
	free(dec->ras);
	free(dec->jtc);
	free(dec->bpred);
	free(dec);
}

int spoor_decoder_put(struct spoor_decoder *dec, const struct spoor_te_inst *pkt,
		      uint64_t offset)
{
	if (!dec || !pkt || dec->loop != LOOP_IDLE || dec->q_len || dec->flush_req)
		return SPOOR_E_INVAL;
	dec->pkt = *pkt;
	dec->offset = offset;
	dec->loop = LOOP_START;
	return 0;
}

int spoor_decoder_gap(struct spoor_decoder *dec, int reason)
{
	if (!dec || reason >= 0 || dec->loop != LOOP_IDLE || dec->q_len || dec->flush_req)
		return SPOOR_E_INVAL;
	/* Already waiting for a sync: nothing more is lost. */
	if (!dec->lost)
		gap(dec, reason);
	return 0;
}

int spoor_decoder_flush(struct spoor_decoder *dec, bool final)
{
	if (!dec || dec->loop != LOOP_IDLE)
		return SPOOR_E_INVAL;
	dec->flush_req = true;
	dec->flush_final = final;
	return 0;
}

/*
 * A count packet with an address (branch_fmt 2 or 3) that points at a
 * branch leaves that branch pending: its outcome is the prediction (fmt 2)
 * or the prediction inverted (fmt 3), which the map must hold for the next
 * packet, not a stale bit.
 */
static void pending_predicted_branch(struct spoor_decoder *dec)
{
	const struct spoor_te_inst *t = &dec->pkt;

	if (!includes_bpred_count(t) || t->v[SPOOR_TE_F_BRANCH_FMT] == SPOOR_TE_BFMT_NO_ADDR ||
	    dec->branches != 1 || dec->cur.cls != SPOOR_INSN_BRANCH)
		return;
	/* bpred_taken() inverts the prediction for an addr-fail packet. */
	dec->branch_map = (dec->branch_map & ~UINT64_C(1)) | !bpred_taken(dec, dec->pc);
}

/* Runs follow_execution_path() steps while the queue has room. */
static void run_loop(struct spoor_decoder *dec)
{
	int ret;

	while (dec->q_len + QUEUE_ROOM <= QUEUE_SIZE) {
		ret = follow_step(dec);
		if (ret < 0) {
			gap(dec, ret);
			return;
		}
		if (ret) {
			dec->idle_steps = 0;
			if (dec->loop == LOOP_NTR)
				trace_stopped(dec);
			else if (dec->sync_follow)
				sync_done(dec);
			else
				pending_predicted_branch(dec);
			dec->loop = LOOP_IDLE;
			return;
		}
	}
}

int spoor_decoder_next(struct spoor_decoder *dec, struct spoor_dec_item *item, size_t size)
{
	int ret;

	if (!dec || !item || size < sizeof(*item))
		return SPOOR_E_INVAL;
	for (;;) {
		if (dec->q_len) {
			const struct spoor_dec_item *q = &dec->q[dec->q_head];

			item->kind = q->kind;
			item->source = q->source;
			item->offset = q->offset;
			if (q->kind == SPOOR_DEC_BLOCK)
				item->block = q->block;
			else
				item->event = q->event;
			dec->q_head = (dec->q_head + 1) % QUEUE_SIZE;
			dec->q_len--;
			return item->kind;
		}
		switch (dec->loop) {
		case LOOP_START:
			dec->loop = LOOP_IDLE;
			ret = process_packet(dec);
			if (ret < 0)
				gap(dec, ret);
			else if (ret)
				dec->loop = dec->pkt.v[SPOOR_TE_F_FORMAT] == SPOOR_TE_FORMAT_SYNC &&
					    dec->pkt.v[SPOOR_TE_F_SUBFORMAT] == SPOOR_TE_SYNC_SUPPORT ?
					    LOOP_NTR : LOOP_FOLLOW;
			continue;
		case LOOP_FOLLOW:
		case LOOP_NTR:
			run_loop(dec);
			continue;
		default:
			break;
		}
		if (dec->flush_req) {
			dec->flush_req = false;
			if (dec->open) {
				/*
				 * Not final: the instructions so far go out as an open
				 * block; those that follow start the next block.
				 */
				close_block(dec, dec->flush_final ? SPOOR_BLK_END : SPOOR_BLK_OPEN, 0);
			}
			continue;
		}
		return 0;
	}
}

int spoor_decoder_next_blocks(struct spoor_decoder *dec, struct spoor_block *blocks, size_t max)
{
	size_t n = 0;

	if (!dec || (!blocks && max))
		return SPOOR_E_INVAL;
	if (max > INT_MAX)
		max = INT_MAX;
	while (n < max) {
		if (dec->q_len) {
			const struct spoor_dec_item *q = &dec->q[dec->q_head];

			if (q->kind != SPOOR_DEC_BLOCK)
				break;	/* an event: next()'s job */
			blocks[n++] = q->block;
			dec->q_head = (dec->q_head + 1) % QUEUE_SIZE;
			dec->q_len--;
		} else if (dec->loop == LOOP_FOLLOW || dec->loop == LOOP_NTR) {
			run_loop(dec);
		} else {
			break;		/* packet start, flush or done: next()'s job */
		}
	}
	return (int)n;
}

uint32_t spoor_decoder_layout(const struct spoor_decoder *dec)
{
	return dec && (dec->options & SPOOR_OPT_IMPLICIT_EXCEPTION) ? SPOOR_TE_IMPLICIT_EXCEPTION : 0;
}

int spoor_decoder_stats(const struct spoor_decoder *dec, struct spoor_decoder_stats *st,
			size_t size)
{
	if (!dec || !st || size < sizeof(*st))
		return SPOOR_E_INVAL;
	*st = dec->st;
	return 0;
}
