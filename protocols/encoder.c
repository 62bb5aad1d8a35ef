// SPDX-License-Identifier: MIT
/*
 * E-Trace instruction trace encoder model: the spec's "Reference Compressed
 * Branch Trace Algorithm" (exampleAlgorithm.adoc, its flow chart) with the
 * packet rules of payload.adoc, for a single-retirement hart.
 *
 * Each push() moves the 3-stage pipeline on by one instruction and runs the
 * flow chart for the current one (step()).  The decisions follow the
 * reference flow's encoder_model.py where it implements the chart (the
 * baseline algorithm: formats 1, 2 and 3, packet-counting resync), so that
 * the default output matches its te_inst_raw streams byte for byte; the
 * departures it makes from the spec are reproduced only with
 * reference_quirks (listed in encoder.h).
 *
 * The reference implements none of the optional modes.  They follow the
 * spec, and where the spec leaves a choice, the decoder algorithm of
 * decoder.adoc (which spoor's decoder implements), since a packet stream is
 * only correct if a decoder can follow it:
 *  - full address: format 1/2 addresses are absolute instead of relative to
 *    the last address sent (the differential base is the address of the last
 *    format 0/1/2, 3.0 or 3.1-with-thaddr packet, as the decoder keeps it).
 *  - implicit return (itype_width_p 4 needed to see calls and returns):
 *    calls (itype 8, 9, 12) push their return address on a stack of
 *    2^return_stack_size_p entries (the oldest is dropped when full), or
 *    count in a counter of call_counter_size_p bits (2^n at most).  A return
 *    (itype 13) is not an uninferable discontinuity when the stack is not
 *    empty and (stack only) its top equals the actual target; it is popped.
 *    A mispredicted return is reported as an updiscon with irreport set and
 *    irdepth the stack depth (the decoder then takes the reported address and
 *    keeps its stack as it is, so the encoder does not pop either).  The
 *    decoder takes the first return at that depth on its path for the one
 *    reported (irdepth cannot always tell which return is meant: spec issue
 *    #254), so when an implicit return since the last packet had the same
 *    depth, the mispredicted return itself is reported first (notify).  When
 *    a return's target traps, see "trap at a jump target" below.  Every
 *    format 3.0/3.1 resets the depth (the decoder does).  irdepth is also
 *    reported for an inferred address when returns since the last call and
 *    no branch since the last return leave recursion ambiguous.  Co-routine
 *    swaps are always reported (the decoder never takes them as returns) and
 *    push.
 *  - sijump: an uninferable jump flagged sijump is treated as inferable
 *    unless the jump itself is reported by a format 3 packet (the decoder
 *    then does not know the preceding instruction).
 *  - An address packet for the instruction right after such an inferred
 *    jump (implicit return or sijump) needs help: a decoder stops at a
 *    reported address only when it got there by an uninferable jump taken
 *    from the packet, or when the previous instruction is no uninferable
 *    jump, or on notify.  For an implicit return the encoder then reports the
 *    return as mispredicted after all (irreport, irdepth = its depth, the
 *    stack entry goes back): the decoder takes the packet's address as the
 *    return's target and stops.  When another implicit return since the last
 *    packet had the same depth (the decoder would take that one) or for
 *    sijump, the packet sets notify instead: the decoder stops at the first
 *    visit of the address after the last branch.  stats.ambiguous counts the
 *    packets where neither is certain.
 *  - branch prediction (format 0 subformat 0): a table of 2^bpred_size_p
 *    2-bit counters indexed by address >> iaddress_lsb_p; a prediction
 *    changes after two misses in a row; reset when tracing starts (the first
 *    sync).  When the branch map holds 31 branches that were all predicted,
 *    the encoder counts correct predictions instead (pbc); a miss then sends
 *    a count without address (branch_fmt 0), which also tells the missed
 *    branch's outcome; an address to report sends a count with address
 *    (branch_fmt 2, or 3 when the current branch missed).
 *  - jump target cache (format 0 subformat 1): a direct-mapped cache of
 *    2^cache_size_p entries indexed by address >> iaddress_lsb_p, holding
 *    the targets of uninferable jumps as the decoder sees them (the address
 *    of the packet that follows one).  The target of an uninferable jump that
 *    is in the cache is sent as its index when that is not longer than the
 *    format 1/2 packet and no notify/updiscon bit is needed.
 *  - implicit exception: a format 3.1 with thaddr 1 has no address (the
 *    decoder takes the handler from the trap vector); such packets must be
 *    serialized with the layout spoor_encoder_layout() gives.  (The
 *    reference sets the ioption but keeps the address, a stream that a
 *    decoder honouring the option cannot parse: not reproduced.)
 *  - context: a change with ctype 2 or 3 (or at the target of an updiscon)
 *    is reported by a format 3.0 (ppccd), one with ctype 1 by a format 3.2
 *    on the first instruction without another packet.
 *  - notify (trigger[2]): a format 0/1/2 packet with notify set.
 *  - resync: the packet counter of the reference (format 3.0 once more than
 *    resync_max packets went out, a format 1 with pending branches first).
 *  - An instruction that trapped without retiring is not reported by a
 *    format 0/1/2 or 3.0 (spec mode): a resync waits for the trap packet;
 *    the first traced instruction trapping is sent as a 3.1 with thaddr 0.
 *  - Trap at a jump target: when the target of a jalr or xRET traps without
 *    retiring, a 3.1 with thaddr 0 gives the EPC on that cycle (payload
 *    chapter, "thaddr"), also for a jump the decoder infers (sijump, an
 *    implicit or mispredicted return): the decoder's exception_address()
 *    reads the EPC from the packet whenever its pc is at a jalr.  The 3.0
 *    at the handler that follows starts the decoder there (nothing retired
 *    in between), so it pops no return and follows no sijump.
 *  - Trap after trap (a handler's first instruction traps too): each trap
 *    is reported once, by a 3.1 with thaddr 0.  Normally that packet goes
 *    out on the next cycle with the address of the instruction that trapped
 *    next: the next trap's EPC, which the decoder keeps.  In a run of traps
 *    that began with one reported on its own cycle with its EPC (at the
 *    target of an updiscon, or the first traced instruction), every trap is
 *    reported so: the reference reports the first one twice there.
 */
#include <stdlib.h>
#include <string.h>

#include "spoor/encoder.h"
#include "spoor/error.h"

#define QUEUE_SIZE 16		/* packets */
#define STEP_ROOM 5		/* most packets one push (3) or finish (5) queues */
#define MAX_BRANCHES 31
#define TABLE_BITS_MAX 20	/* bpred and jump target cache index bits */
#define STACK_BITS_MAX 16	/* return stack entries: 2^16 at most */
#define PBC_MAX (UINT64_C(0xffffffff) + MAX_BRANCHES)

/* One pipeline stage. */
struct slot {
	struct spoor_ingress in;
	bool valid;		/* a qualified instruction */
	bool retired;
	bool trap;		/* itype 1 or 2 */
	bool branch, taken;
	bool uninf;		/* an uninferable discontinuity by its itype */
	bool call, ret;
	/* Decided while the slot is the current instruction. */
	bool synced;		/* reported by a format 3.0, or 3.1 with thaddr 1 */
	bool updiscon;		/* the decoder stops after it: its target is reported */
	bool hidden;		/* uninferable, but the decoder infers it (return, sijump) */
	bool popped;		/* an implicit return that popped popped_link */
	bool mispredict;	/* a return reported because the stack's top was wrong */
	uint64_t pre_depth;	/* return stack depth before the return */
	uint64_t popped_link;
	uint64_t saved_lo, saved_hi;	/* return depth range before this return */
};

struct spoor_encoder {
	struct spoor_encoder_config cfg;
	const struct spoor_params *p;
	uint32_t opts;
	bool quirks;
	bool finished;
	struct slot s[3];	/* the pipeline's storage */
	struct slot *ps[3];	/* previous, current, next: rotated, never copied */

	/* Packet state. */
	bool starting;		/* no synchronisation since tracing started */
	uint64_t last_addr;	/* differential address base */
	unsigned resync_count, resync_max;
	bool trap_reported;
	bool step_updiscon;	/* updiscon flag of the last step (reference finish) */
	bool reported_updiscon;	/* the last address packet reported an updiscon target */
	bool context_pending;	/* an imprecise context change not yet reported */

	/* Branches not yet reported. */
	unsigned branches;
	uint32_t branch_map;	/* bit i: branch i not taken */
	bool map_ok;		/* all branches in the map were predicted */
	uint64_t pbc;		/* correctly predicted branches counted (>= 31), or 0 */
	bool bp_fail;		/* the current branch missed while counting */

	/* Branch predictor: 2^bpred_size_p states (bit 1 prediction, bit 0 last outcome). */
	uint8_t *bpred;
	uint64_t bpred_mask;

	/* Jump target cache. */
	uint64_t *jtc;
	uint64_t jtc_mask;
	bool ujump_pending;	/* an uninferable jump the decoder has not followed yet */

	/* Implicit return: a ring of return addresses, or a counter. */
	uint64_t *ras;
	uint64_t ras_base;
	uint64_t depth, depth_max;
	bool ret_since_call, branch_since_ret;
	uint64_t ret_lo, ret_hi;	/* depths of implicit returns since the last packet */

	struct spoor_te_inst q[QUEUE_SIZE];
	unsigned q_head, q_len;
	struct spoor_encoder_stats st;
};

/* ---- helpers ------------------------------------------------------------ */

/* Returns a mask of @w low bits. */
static inline uint64_t mask_of(unsigned w)
{
	return w >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << w) - 1;
}

/* Returns the size in bytes of the instruction in @in. */
static inline uint64_t insn_size(const struct spoor_ingress *in)
{
	return UINT64_C(2) << (in->ilastsize & 7);
}

/* Returns true when the option @o is enabled. */
static inline bool opt(const struct spoor_encoder *enc, uint32_t o)
{
	return (enc->opts & o) != 0;
}

/* Returns true when implicit return has a stack or counter to work with. */
static inline bool ir_active(const struct spoor_encoder *enc)
{
	return opt(enc, SPOOR_OPT_IMPLICIT_RETURN) && enc->depth_max > 0;
}

/* ---- packet queue ------------------------------------------------------- */

/* Returns a zeroed packet at the end of the queue (the caller checked room). */
static struct spoor_te_inst *q_add(struct spoor_encoder *enc, unsigned format)
{
	struct spoor_te_inst *pkt = &enc->q[(enc->q_head + enc->q_len++) % QUEUE_SIZE];

	memset(pkt, 0, sizeof(*pkt));
	spoor_te_set(pkt, SPOOR_TE_F_FORMAT, format);
	enc->st.packets++;
	enc->st.format[format]++;
	/* The reference counts every packet towards the resync timer. */
	enc->resync_count++;
	return pkt;
}

/* Returns a format 3 packet of subformat @sf at the end of the queue. */
static struct spoor_te_inst *q_add_sync(struct spoor_encoder *enc, unsigned sf)
{
	struct spoor_te_inst *pkt = q_add(enc, SPOOR_TE_FORMAT_SYNC);

	spoor_te_set(pkt, SPOOR_TE_F_SUBFORMAT, sf);
	enc->st.sync[sf]++;
	return pkt;
}

/* ---- branch predictor, jump target cache, return stack ------------------ */

/* Returns nothing; every predictor entry predicts not taken, last outcome taken. */
static void bpred_reset(struct spoor_encoder *enc)
{
	if (enc->bpred)
		memset(enc->bpred, 1, enc->bpred_mask + 1);
}

/* Returns the predicted outcome of the branch at @addr, then learns @taken. */
static bool bpred_step(struct spoor_encoder *enc, uint64_t addr, bool taken)
{
	uint8_t *s = &enc->bpred[(addr >> enc->p->iaddress_lsb_p) & enc->bpred_mask];
	bool predicted = (*s >> 1) & 1;

	/* The prediction changes after two misses in a row. */
	if (((*s >> 1) & 1) != (*s & 1))
		*s = (uint8_t)((taken << 1) | (*s & 1));
	*s = (uint8_t)((*s & 2) | taken);
	return predicted;
}

/* Returns the jump target cache index of @addr. */
static inline uint64_t jtc_index(const struct spoor_encoder *enc, uint64_t addr)
{
	return (addr >> enc->p->iaddress_lsb_p) & enc->jtc_mask;
}

/* Returns nothing; records @addr as the decoder does after an uninferable jump. */
static void jtc_follow(struct spoor_encoder *enc, uint64_t addr)
{
	if (enc->ujump_pending && enc->jtc)
		enc->jtc[jtc_index(enc, addr)] = addr;
	enc->ujump_pending = false;
}

/* Returns nothing; pushes the return address @link (or counts a call). */
static void ras_push(struct spoor_encoder *enc, uint64_t link)
{
	if (enc->depth == enc->depth_max) {
		/* Full: the oldest entry goes. */
		enc->ras_base++;
		enc->depth--;
	}
	if (enc->ras)
		enc->ras[(enc->ras_base + enc->depth) & (enc->depth_max - 1)] = link;
	enc->depth++;
}

/* Returns the return address on top of the stack (0 for a counter). */
static uint64_t ras_top(const struct spoor_encoder *enc)
{
	if (!enc->ras)
		return 0;
	return enc->ras[(enc->ras_base + enc->depth - 1) & (enc->depth_max - 1)];
}

/* Returns nothing; forgets the depths of implicit returns since the last packet. */
static void ret_range_clear(struct spoor_encoder *enc)
{
	enc->ret_lo = UINT64_MAX;
	enc->ret_hi = 0;
}

/* Returns true when @d lies in the range [@lo, @hi] of implicit return depths. */
static bool ret_range_has(uint64_t lo, uint64_t hi, uint64_t d)
{
	return lo <= d && d <= hi;
}

/* Returns true when @d fits the irdepth field. */
static bool irdepth_fits(const struct spoor_encoder *enc, uint64_t d)
{
	return d <= mask_of(spoor_params_irdepth_width(enc->p));
}

/* ---- branch state ------------------------------------------------------- */

/* Returns true when branch outcomes are waiting to be reported. */
static inline bool branches_pending(const struct spoor_encoder *enc)
{
	return enc->branches || enc->pbc;
}

/* Returns nothing; the branch state after a packet that reported it all. */
static void branches_clear(struct spoor_encoder *enc)
{
	enc->branches = 0;
	enc->branch_map = 0;
	enc->map_ok = true;
	enc->pbc = 0;
	enc->bp_fail = false;
}

/* Returns nothing; records the outcome of the branch @cur in the map or count. */
static void record_branch(struct spoor_encoder *enc, const struct slot *cur)
{
	bool ok = true;

	if (enc->bpred)
		ok = bpred_step(enc, cur->in.iaddr, cur->taken) == cur->taken;
	if (enc->pbc) {
		if (ok)
			enc->pbc++;
		else
			enc->bp_fail = true;
		return;
	}
	if (!cur->taken)
		enc->branch_map |= UINT32_C(1) << enc->branches;
	enc->branches++;
	enc->map_ok = enc->map_ok && ok;
	if (enc->bpred && enc->branches == MAX_BRANCHES && enc->map_ok) {
		/* 31 correct predictions: count them instead of sending a map. */
		branches_clear(enc);
		enc->pbc = MAX_BRANCHES;
	}
}

/* ---- packets ------------------------------------------------------------ */

/* Returns nothing; queues a support packet. */
static void send_support(struct spoor_encoder *enc, bool ienable, unsigned qual)
{
	struct spoor_te_inst *pkt = q_add_sync(enc, SPOOR_TE_SYNC_SUPPORT);
	uint64_t io = 0;

	for (int i = 0; i < SPOOR_IOPT_COUNT; i++) {
		int bit = enc->p->ioption_bit[i];

		/* enum spoor_option bit i is ioption i. */
		if (bit >= 0 && ((enc->opts >> i) & 1))
			io |= UINT64_C(1) << bit;
	}
	spoor_te_set(pkt, SPOOR_TE_F_IENABLE, ienable);
	spoor_te_set(pkt, SPOOR_TE_F_ENCODER_MODE, 0);
	spoor_te_set(pkt, SPOOR_TE_F_QUAL_STATUS, qual);
	spoor_te_set(pkt, SPOOR_TE_F_IOPTIONS, io & mask_of(enc->p->ioptions_width_p));
	spoor_te_set(pkt, SPOOR_TE_F_DENABLE, 0);
	spoor_te_set(pkt, SPOOR_TE_F_DLOSS, 0);
	spoor_te_set(pkt, SPOOR_TE_F_DOPTIONS, 0);
}

/* Returns nothing; sets privilege, time and context of a format 3 packet from @in. */
static void set_sync_context(struct spoor_encoder *enc, struct spoor_te_inst *pkt,
			     const struct spoor_ingress *in)
{
	const struct spoor_params *p = enc->p;

	spoor_te_set(pkt, SPOOR_TE_F_PRIVILEGE, in->priv & mask_of(p->privilege_width_p));
	spoor_te_set(pkt, SPOOR_TE_F_TIME, in->time & mask_of(spoor_params_time_width(p)));
	spoor_te_set(pkt, SPOOR_TE_F_CONTEXT, in->context & mask_of(spoor_params_context_width(p)));
	enc->context_pending = false;
}

/* Returns the full address field of @addr. */
static uint64_t full_field(const struct spoor_encoder *enc, uint64_t addr)
{
	return (addr >> enc->p->iaddress_lsb_p) & mask_of(spoor_params_address_width(enc->p));
}

/* Returns nothing; the state after a format 3.0 or 3.1 (thaddr 1) for @cur. */
static void synced(struct spoor_encoder *enc, struct slot *cur)
{
	cur->synced = true;
	enc->last_addr = cur->in.iaddr;
	enc->starting = false;
	/* The decoder empties its return stack at every synchronisation. */
	enc->depth = 0;
	enc->ret_since_call = false;
	enc->branch_since_ret = false;
	/*
	 * A synchronisation packet initialises the predictor and invalidates
	 * the jump target cache (spec: branch predictor and jump target cache
	 * modes), so a decoder can start at any of them.  The packet's own
	 * instruction is the first the fresh predictor learns, as at the start
	 * of a trace: the decoder takes that branch after the packet.
	 */
	if (enc->bpred) {
		bpred_reset(enc);
		if (cur->branch)
			bpred_step(enc, cur->in.iaddr, cur->taken);
	}
	if (enc->jtc)
		memset(enc->jtc, 0, (enc->jtc_mask + 1) * sizeof(*enc->jtc));
}

/* Returns nothing; queues a format 3.0 for @cur. */
static void send_start(struct spoor_encoder *enc, struct slot *cur)
{
	struct spoor_te_inst *pkt = q_add_sync(enc, SPOOR_TE_SYNC_START);

	spoor_te_set(pkt, SPOOR_TE_F_BRANCH, !(cur->branch && cur->taken));
	set_sync_context(enc, pkt, &cur->in);
	spoor_te_set(pkt, SPOOR_TE_F_ADDRESS, full_field(enc, cur->in.iaddr));
	/* Mid-trace, the decoder follows the path to this address. */
	if (enc->starting)
		enc->ujump_pending = false;
	else
		jtc_follow(enc, cur->in.iaddr);
	synced(enc, cur);
	branches_clear(enc);
	ret_range_clear(enc);
	enc->resync_count = 0;
}

/* Returns nothing; queues a format 3.1 for @cur reporting the trap of @exc. */
static void send_trap(struct spoor_encoder *enc, struct slot *cur, const struct slot *exc,
		      bool thaddr, bool reported)
{
	struct spoor_te_inst *pkt = q_add_sync(enc, SPOOR_TE_SYNC_TRAP);
	const struct spoor_params *p = enc->p;
	bool interrupt = exc->in.itype == SPOOR_ITYPE_INTERRUPT;

	spoor_te_set(pkt, SPOOR_TE_F_BRANCH, !(cur->branch && cur->taken));
	set_sync_context(enc, pkt, &cur->in);
	spoor_te_set(pkt, SPOOR_TE_F_ECAUSE, exc->in.cause & mask_of(p->ecause_width_p));
	spoor_te_set(pkt, SPOOR_TE_F_INTERRUPT, interrupt);
	spoor_te_set(pkt, SPOOR_TE_F_THADDR, thaddr);
	/* Implicit exception: the decoder knows the handler from the trap vector. */
	if (!thaddr || !opt(enc, SPOOR_OPT_IMPLICIT_EXCEPTION))
		spoor_te_set(pkt, SPOOR_TE_F_ADDRESS, full_field(enc, cur->in.iaddr));
	if (!interrupt)
		spoor_te_set(pkt, SPOOR_TE_F_TVAL, exc->in.tval & mask_of(p->iaddress_width_p));
	if (thaddr) {
		/* The decoder starts afresh at the handler. */
		enc->ujump_pending = false;
		synced(enc, cur);
	}
	enc->trap_reported = reported;
	branches_clear(enc);
	ret_range_clear(enc);
	enc->resync_count = 0;
}

/* Returns nothing; queues a format 3.2 with the context of @cur. */
static void send_context(struct spoor_encoder *enc, const struct slot *cur)
{
	struct spoor_te_inst *pkt = q_add_sync(enc, SPOOR_TE_SYNC_CONTEXT);

	set_sync_context(enc, pkt, &cur->in);
}

/* Returns the encoded length of @pkt in bytes (a large value if it cannot be encoded). */
static int packet_len(const struct spoor_encoder *enc, const struct spoor_te_inst *pkt)
{
	uint8_t buf[SPOOR_TE_MAX_PAYLOAD];
	int n = spoor_te_inst_encode(enc->p, pkt, buf, sizeof(buf));

	return n > 0 ? n : 1 << 20;
}

/* Returns nothing; fills @pkt as format 0.0, 1 or 2 reporting @addr. */
static void fill_address(struct spoor_encoder *enc, struct spoor_te_inst *pkt, uint64_t addr,
			 uint32_t status, uint64_t irdepth)
{
	const struct spoor_params *p = enc->p;
	uint64_t field;

	if (enc->pbc) {
		spoor_te_set(pkt, SPOOR_TE_F_FORMAT, SPOOR_TE_FORMAT_EXT);
		spoor_te_set(pkt, SPOOR_TE_F_SUBFORMAT, SPOOR_TE_EXT_BRANCH_COUNT);
		spoor_te_set(pkt, SPOOR_TE_F_BRANCH_COUNT, enc->pbc - MAX_BRANCHES);
		spoor_te_set(pkt, SPOOR_TE_F_BRANCH_FMT,
			     enc->bp_fail ? SPOOR_TE_BFMT_ADDR_FAIL : SPOOR_TE_BFMT_ADDR);
	} else if (enc->branches) {
		spoor_te_set(pkt, SPOOR_TE_F_FORMAT, SPOOR_TE_FORMAT_BRANCH);
		spoor_te_set(pkt, SPOOR_TE_F_BRANCHES, enc->branches);
		spoor_te_set(pkt, SPOOR_TE_F_BRANCH_MAP, enc->branch_map);
	} else {
		spoor_te_set(pkt, SPOOR_TE_F_FORMAT, SPOOR_TE_FORMAT_ADDR);
	}
	if (opt(enc, SPOOR_OPT_FULL_ADDRESS))
		field = addr >> p->iaddress_lsb_p;
	else
		field = (uint64_t)((int64_t)(addr - enc->last_addr) >> p->iaddress_lsb_p);
	spoor_te_set(pkt, SPOOR_TE_F_ADDRESS, field & mask_of(spoor_params_address_width(p)));
	spoor_te_inst_set_status(p, pkt, status, irdepth);
}

/* Returns true when the format 0.1 packet @jtc was filled and is the one to send. */
static bool fill_jtc(struct spoor_encoder *enc, struct spoor_te_inst *jtc,
		     const struct spoor_te_inst *addr_pkt, uint64_t addr, uint32_t status,
		     uint64_t irdepth)
{
	uint64_t idx;

	if (!enc->jtc || enc->pbc || (status & (SPOOR_TE_NOTIFY | SPOOR_TE_UPDISCON)))
		return false;
	idx = jtc_index(enc, addr);
	if (enc->jtc[idx] != addr)
		return false;
	memset(jtc, 0, sizeof(*jtc));
	spoor_te_set(jtc, SPOOR_TE_F_FORMAT, SPOOR_TE_FORMAT_EXT);
	spoor_te_set(jtc, SPOOR_TE_F_SUBFORMAT, SPOOR_TE_EXT_JTC);
	spoor_te_set(jtc, SPOOR_TE_F_INDEX, idx);
	spoor_te_set(jtc, SPOOR_TE_F_BRANCHES, enc->branches);
	if (enc->branches)
		spoor_te_set(jtc, SPOOR_TE_F_BRANCH_MAP, enc->branch_map);
	spoor_te_inst_set_status(enc->p, jtc, status, irdepth);
	/* The differential address is sent when it is shorter. */
	return packet_len(enc, jtc) <= packet_len(enc, addr_pkt);
}

/*
 * Returns nothing; queues the format 0, 1 or 2 packet reporting @cur with
 * the status flags @status (and irdepth); @may_jtc allows format 0.1.
 */
static void send_flow(struct spoor_encoder *enc, const struct slot *cur, uint32_t status,
		      uint64_t irdepth, bool may_jtc)
{
	struct spoor_te_inst pkt, jtc, *out;
	uint64_t addr = cur->in.iaddr;
	bool use_jtc;

	if (enc->quirks)
		status |= SPOOR_TE_IRDEPTH_ONES;
	memset(&pkt, 0, sizeof(pkt));
	fill_address(enc, &pkt, addr, status, irdepth);
	use_jtc = may_jtc && fill_jtc(enc, &jtc, &pkt, addr, status, irdepth);
	out = q_add(enc, use_jtc ? SPOOR_TE_FORMAT_EXT : (unsigned)pkt.v[SPOOR_TE_F_FORMAT]);
	*out = use_jtc ? jtc : pkt;
	if (use_jtc)
		enc->st.jtc_hits++;
	else if (pkt.v[SPOOR_TE_F_FORMAT] == SPOOR_TE_FORMAT_EXT)
		enc->st.counts++;
	jtc_follow(enc, addr);
	enc->last_addr = addr;
	branches_clear(enc);
	ret_range_clear(enc);
}

/* Returns nothing; queues the branches without an address (full map or a missed prediction). */
static void send_branches(struct spoor_encoder *enc)
{
	struct spoor_te_inst *pkt;

	if (enc->pbc) {
		pkt = q_add(enc, SPOOR_TE_FORMAT_EXT);
		spoor_te_set(pkt, SPOOR_TE_F_SUBFORMAT, SPOOR_TE_EXT_BRANCH_COUNT);
		spoor_te_set(pkt, SPOOR_TE_F_BRANCH_COUNT, enc->pbc - MAX_BRANCHES);
		spoor_te_set(pkt, SPOOR_TE_F_BRANCH_FMT, SPOOR_TE_BFMT_NO_ADDR);
		enc->st.counts++;
		/* The packet implies the missed branch's outcome as well. */
		branches_clear(enc);
	} else {
		pkt = q_add(enc, SPOOR_TE_FORMAT_BRANCH);
		spoor_te_set(pkt, SPOOR_TE_F_BRANCHES, 0);
		spoor_te_set(pkt, SPOOR_TE_F_BRANCH_MAP, enc->branch_map);
		branches_clear(enc);
	}
	ret_range_clear(enc);
}

/* ---- the algorithm ------------------------------------------------------ */

/*
 * Returns true after turning the implicit return @prev back into a reported
 * one (its stack entry restored) when the decoder can tell it apart.
 */
static bool unhide_return(struct spoor_encoder *enc, struct slot *prev)
{
	if (!prev->popped || !irdepth_fits(enc, prev->pre_depth) ||
	    ret_range_has(prev->saved_lo, prev->saved_hi, prev->pre_depth))
		return false;
	ras_push(enc, prev->popped_link);
	prev->popped = false;
	prev->hidden = false;
	prev->updiscon = true;
	prev->mispredict = true;
	enc->ujump_pending = true;
	return true;
}

/*
 * Returns nothing; queues the format 0/1/2 packet for the current
 * instruction @cur.  @upd_target: @cur follows an updiscon; @flag_updiscon:
 * the updiscon bit is due; @notify: trigger[2] asked for it.
 */
static void report(struct spoor_encoder *enc, struct slot *prev, struct slot *cur,
		   bool upd_target, bool flag_updiscon, bool notify)
{
	uint32_t status = (notify ? SPOOR_TE_NOTIFY : 0) | (flag_updiscon ? SPOOR_TE_UPDISCON : 0);
	uint64_t irdepth = 0;

	if (upd_target) {
		if (prev->mispredict) {
			status |= SPOOR_TE_IRREPORT;
			irdepth = prev->pre_depth;
			if (!irdepth_fits(enc, irdepth) ||
			    ret_range_has(enc->ret_lo, enc->ret_hi, irdepth))
				enc->st.ambiguous++;
		}
	} else if (prev->valid && prev->hidden) {
		if (unhide_return(enc, prev)) {
			status |= SPOOR_TE_IRREPORT;
			irdepth = prev->pre_depth;
			upd_target = true;
		} else {
			status |= SPOOR_TE_NOTIFY;
			enc->st.ambiguous += prev->popped;
		}
	} else if (!notify && ir_active(enc) && enc->ret_since_call && !enc->branch_since_ret) {
		/* Recursion: the depth tells the decoder which visit is the one. */
		if (irdepth_fits(enc, enc->depth) &&
		    !ret_range_has(enc->ret_lo, enc->ret_hi, enc->depth)) {
			status |= SPOOR_TE_IRREPORT;
			irdepth = enc->depth;
		} else {
			enc->st.ambiguous++;
		}
	}
	enc->reported_updiscon = upd_target;
	send_flow(enc, cur, status, irdepth, upd_target && !(status & SPOOR_TE_IRREPORT));
}

/* Returns true when the next instruction changes privilege or context so that ppccd applies. */
static bool ppccd_between(const struct slot *a, const struct slot *b, bool a_updiscon)
{
	if (b->in.priv != a->in.priv)
		return true;
	if (b->in.context == a->in.context)
		return false;
	return b->in.ctype == SPOOR_CTYPE_PRECISE || b->in.ctype == SPOOR_CTYPE_ASYNC || a_updiscon;
}

/* Returns true when the return @cur will be reported as mispredicted. */
static bool will_mispredict(const struct spoor_encoder *enc, const struct slot *cur,
			    const struct slot *next)
{
	return cur->ret && ir_active(enc) && enc->depth > 0 && enc->ras && next->valid &&
	       ras_top(enc) != next->in.iaddr &&
	       !(opt(enc, SPOOR_OPT_SIJUMP) && cur->in.sijump);
}

/* Returns nothing; decides whether the return @cur stays implicit (popped) or is reported. */
static void decide_return(struct spoor_encoder *enc, struct slot *cur, const struct slot *next)
{
	cur->pre_depth = enc->depth;
	if (enc->ras && next->valid && ras_top(enc) != next->in.iaddr) {
		/* Mispredicted: reported, and the decoder keeps its entry. */
		cur->updiscon = true;
		cur->mispredict = true;
		return;
	}
	cur->popped_link = ras_top(enc);
	cur->saved_lo = enc->ret_lo;
	cur->saved_hi = enc->ret_hi;
	if (cur->pre_depth < enc->ret_lo)
		enc->ret_lo = cur->pre_depth;
	if (cur->pre_depth > enc->ret_hi)
		enc->ret_hi = cur->pre_depth;
	enc->depth--;
	cur->popped = true;
	cur->hidden = true;
	enc->ret_since_call = true;
	enc->branch_since_ret = false;
}

/* Returns nothing; applies what the current instruction @cur does to the encoder's state. */
static void retire(struct spoor_encoder *enc, struct slot *cur, const struct slot *next)
{
	if (!cur->retired)
		return;
	if (cur->branch)
		enc->branch_since_ret = true;
	if (cur->uninf) {
		if (opt(enc, SPOOR_OPT_SIJUMP) && cur->in.sijump && !cur->synced &&
		    cur->in.itype != SPOOR_ITYPE_TRAP_RETURN)
			cur->hidden = true;
		else if (cur->ret && ir_active(enc) && enc->depth > 0)
			decide_return(enc, cur, next);
		else
			cur->updiscon = true;
	}
	if (cur->call && ir_active(enc)) {
		ras_push(enc, cur->in.iaddr + insn_size(&cur->in));
		enc->ret_since_call = false;
	}
	if (cur->updiscon)
		enc->ujump_pending = true;
}

/* The flags of one step (the flow chart's decisions). */
struct step_flags {
	bool exc_only, prev_updiscon, prev_exception, prev_reported, first;
	bool ppccd, ppccd_br, resync_br, resync_exceeded, er_n, next_exc_only;
	bool next_exception, updiscon, rpt_br, cci;
};

/* Returns nothing; computes the flow chart's conditions for the current instruction. */
static void step_flags(struct spoor_encoder *enc, struct step_flags *f)
{
	const struct slot *prev = enc->ps[0], *cur = enc->ps[1], *next = enc->ps[2];
	bool cur_uninf = cur->uninf && !(cur->ret && ir_active(enc) && enc->depth > 0);

	f->exc_only = cur->trap && !cur->retired;
	f->prev_updiscon = prev->valid && prev->updiscon;
	f->prev_exception = prev->valid && prev->trap;
	f->prev_reported = f->prev_exception && enc->trap_reported;
	enc->trap_reported = false;
	f->first = !prev->valid;
	f->ppccd = prev->valid && ppccd_between(prev, cur, f->prev_updiscon);
	f->ppccd_br = branches_pending(enc) && next->valid && ppccd_between(cur, next, cur_uninf);
	f->resync_br = enc->resync_count == enc->resync_max && branches_pending(enc);
	f->resync_exceeded = enc->resync_count > enc->resync_max;
	f->er_n = (cur->retired && cur->trap) || cur->in.notify || enc->pbc == PBC_MAX;
	f->next_exception = next->valid && next->trap;
	f->next_exc_only = f->next_exception && !next->retired;
	f->updiscon = f->prev_updiscon &&
		      (f->next_exception || (next->valid && next->in.priv != cur->in.priv) ||
		       enc->resync_count == enc->resync_max);
	if (!enc->quirks && next->valid && ppccd_between(cur, next, false))
		f->updiscon = f->prev_updiscon;
	f->rpt_br = (!enc->pbc && enc->branches == MAX_BRANCHES) || enc->bp_fail;
	f->cci = prev->valid && cur->in.context != prev->in.context &&
		 cur->in.ctype == SPOOR_CTYPE_IMPRECISE;
	enc->step_updiscon = f->updiscon;
}

/* Returns nothing; the trap decisions when the previous instruction trapped. */
static void step_after_trap(struct spoor_encoder *enc, const struct step_flags *f)
{
	struct slot *prev = enc->ps[0], *cur = enc->ps[1], *next = enc->ps[2];
	bool reported;

	if (f->exc_only && !enc->quirks && f->prev_reported) {
		/*
		 * A second trap before the handler's first instruction retired,
		 * the first already reported with its EPC (at the target of an
		 * updiscon, or the first traced instruction).  Reporting it again
		 * (the flow chart checks "Reported?" only when the handler
		 * retires; so does the reference) would make the decoder see
		 * one trap more, with the handler as its EPC.  This trap goes
		 * out on its own cycle with its EPC instead: the decoder's pc
		 * is still at the updiscon (or unknown), where it takes the
		 * address as the EPC (thaddr, decoder's exception_address()).
		 */
		send_trap(enc, cur, cur, false, true);
	} else if (f->exc_only) {
		/* A second trap before the handler's first instruction retired. */
		reported = enc->quirks ? (f->prev_updiscon || f->next_exception) : false;
		send_trap(enc, cur, prev, false, reported);
		/* At the end of the trace the second trap is reported too (its EPC). */
		if (!enc->quirks && !next->valid)
			send_trap(enc, cur, cur, false, true);
	} else if (f->prev_reported) {
		send_start(enc, cur);
	} else {
		send_trap(enc, cur, prev, true, false);
	}
}

/* Returns true when the step sent a format 3.0 or 3.1 for a (re)start or resync. */
static bool step_sync(struct spoor_encoder *enc, const struct step_flags *f)
{
	struct slot *prev = enc->ps[0], *cur = enc->ps[1];

	if (!f->first && !f->ppccd && !f->resync_exceeded)
		return false;
	if (!enc->quirks && f->exc_only) {
		if (!f->first)
			return false;	/* nothing retired: the trap packet syncs */
		send_trap(enc, cur, cur, false, true);
		return true;
	}
	/* The decoder could not tell a mispredicted return from an implicit one. */
	if (!f->first && !f->ppccd && f->prev_updiscon && prev->mispredict)
		return false;
	send_start(enc, cur);
	return true;
}

/*
 * True when the flow chart can only retire the current instruction: plain
 * sequential code or a branch (already recorded), between two instructions
 * in the same privilege and context, nothing pending or due.  Most
 * instructions of any program; the full step would decide the same, but
 * at many times the cost.
 */
static bool quiet(const struct spoor_encoder *enc, const struct slot *prev, const struct slot *cur,
		  const struct slot *next)
{
	return cur->retired && !cur->trap && !cur->uninf && !cur->call &&
	       !cur->ret && !cur->in.notify &&
	       prev->valid && !prev->trap && !prev->updiscon &&
	       next->valid && !next->trap &&
	       prev->in.priv == cur->in.priv && cur->in.priv == next->in.priv &&
	       prev->in.context == cur->in.context && cur->in.context == next->in.context &&
	       !enc->starting && !enc->context_pending && !enc->bp_fail &&
	       enc->resync_count < enc->resync_max && enc->pbc != PBC_MAX &&
	       (enc->pbc || enc->branches != MAX_BRANCHES);
}

/* Returns nothing; runs the flow chart for the current instruction. */
static void step(struct spoor_encoder *enc)
{
	struct slot *prev = enc->ps[0], *cur = enc->ps[1], *next = enc->ps[2];
	struct step_flags f;

	if (!cur->valid)
		return;
	if (cur->branch)
		record_branch(enc, cur);
	if (quiet(enc, prev, cur, next)) {
		/* What step_flags() and retire() leave for such an instruction. */
		enc->trap_reported = false;
		enc->step_updiscon = false;
		if (cur->branch)
			enc->branch_since_ret = true;
		return;
	}
	step_flags(enc, &f);
	if (f.cci)
		enc->context_pending = true;

	if (f.prev_exception) {
		step_after_trap(enc, &f);
		goto done;
	}
	if (step_sync(enc, &f))
		goto done;
	if (f.exc_only && prev->valid && (f.prev_updiscon || prev->hidden)) {
		/*
		 * The target of a jalr or xRET trapped: the decoder's pc stays
		 * at that jump, where exception_address() takes the EPC from
		 * the packet (thaddr 0), also when it infers the jump (sijump,
		 * implicit or mispredicted return).  The 3.0 at the handler
		 * that follows starts the decoder there without following the
		 * jump (nothing retired in between): it pops no return.
		 */
		send_trap(enc, cur, cur, false, true);
		goto done;
	}
	if (f.prev_updiscon) {
		report(enc, prev, cur, true, f.updiscon, false);
		goto done;
	}
	if (!enc->quirks && f.exc_only) {
		/* Nothing retired; at the end of the trace, the trap is reported. */
		if (!next->valid)
			send_trap(enc, cur, cur, false, true);
		goto done;
	}
	if ((f.resync_br && (enc->quirks || !prev->hidden)) || f.er_n) {
		report(enc, prev, cur, false, false, cur->in.notify);
		goto done;
	}
	if (f.next_exc_only || f.ppccd_br || !next->valid) {
		report(enc, prev, cur, false, false, false);
		goto done;
	}
	if (f.rpt_br)
		send_branches(enc);
	if (enc->context_pending)
		send_context(enc, cur);
	if (will_mispredict(enc, cur, next) &&
	    ret_range_has(enc->ret_lo, enc->ret_hi, enc->depth))
		report(enc, prev, cur, false, false, true);
done:
	retire(enc, cur, next);
}

/* ---- API ---------------------------------------------------------------- */

int spoor_encoder_check_config(const struct spoor_encoder_config *cfg, const char **why)
{
	const struct spoor_params *p = cfg ? cfg->params : NULL;
	const char *reason = NULL;
	uint32_t o;

	if (why)
		*why = NULL;
	if (!cfg || !p || (cfg->options & ~(uint32_t)SPOOR_OPT_ALL)) {
		if (why)
			*why = "no configuration, no parameters or unknown options";
		return SPOOR_E_INVAL;
	}
	if (spoor_params_check(p, why))
		return SPOOR_E_BAD_CONFIG;
	o = cfg->options;
	if ((o & SPOOR_OPT_IMPLICIT_RETURN) && p->itype_width_p < 4)
		reason = "implicit return needs itype_width_p 4 (calls and returns)";
	else if ((o & SPOOR_OPT_IMPLICIT_RETURN) && p->return_stack_size_p > STACK_BITS_MAX)
		reason = "return_stack_size_p above 16";
	else if ((o & SPOOR_OPT_BRANCH_PREDICTION) && !p->bpred_size_p)
		reason = "branch prediction needs bpred_size_p";
	else if ((o & SPOOR_OPT_JUMP_TARGET_CACHE) && !p->cache_size_p)
		reason = "the jump target cache needs cache_size_p";
	else if ((o & (SPOOR_OPT_BRANCH_PREDICTION | SPOOR_OPT_JUMP_TARGET_CACHE)) &&
		 spoor_te_ext_subformat(p) == -1)
		reason = "format 0 needs f0s_width_p with both bpred_size_p and cache_size_p";
	else if (p->bpred_size_p > TABLE_BITS_MAX || p->cache_size_p > TABLE_BITS_MAX)
		reason = "bpred_size_p or cache_size_p above 20";
	if (why)
		*why = reason;
	return reason ? SPOOR_E_BAD_CONFIG : 0;
}

/* Returns 0 after allocating the tables the options need, or SPOOR_E_NOMEM. */
static int alloc_tables(struct spoor_encoder *enc)
{
	const struct spoor_params *p = enc->p;

	if (opt(enc, SPOOR_OPT_BRANCH_PREDICTION)) {
		enc->bpred_mask = mask_of(p->bpred_size_p);
		enc->bpred = malloc(enc->bpred_mask + 1);
		if (!enc->bpred)
			return SPOOR_E_NOMEM;
		bpred_reset(enc);
	}
	if (opt(enc, SPOOR_OPT_JUMP_TARGET_CACHE)) {
		enc->jtc_mask = mask_of(p->cache_size_p);
		/* Zeroed like the decoder's. */
		enc->jtc = calloc(enc->jtc_mask + 1, sizeof(*enc->jtc));
		if (!enc->jtc)
			return SPOOR_E_NOMEM;
	}
	if (opt(enc, SPOOR_OPT_IMPLICIT_RETURN) && p->return_stack_size_p) {
		enc->depth_max = UINT64_C(1) << p->return_stack_size_p;
		enc->ras = calloc(enc->depth_max, sizeof(*enc->ras));
		if (!enc->ras)
			return SPOOR_E_NOMEM;
	} else if (opt(enc, SPOOR_OPT_IMPLICIT_RETURN) && p->call_counter_size_p) {
		enc->depth_max = p->call_counter_size_p >= 63 ? UINT64_C(1) << 63 :
				 UINT64_C(1) << p->call_counter_size_p;
	}
	return 0;
}

struct spoor_encoder *spoor_encoder_new(const struct spoor_encoder_config *cfg)
{
	struct spoor_encoder *enc;

	if (spoor_encoder_check_config(cfg, NULL))
		return NULL;
	enc = calloc(1, sizeof(*enc));
	if (!enc)
		return NULL;
	for (int i = 0; i < 3; i++)
		enc->ps[i] = &enc->s[i];
	enc->cfg = *cfg;
	enc->p = cfg->params;
	enc->opts = cfg->options;
	enc->quirks = cfg->reference_quirks;
	enc->resync_max = cfg->resync_max ? cfg->resync_max : SPOOR_ENC_RESYNC_DEFAULT;
	enc->starting = true;
	branches_clear(enc);
	ret_range_clear(enc);
	if (alloc_tables(enc)) {
		spoor_encoder_free(enc);
		return NULL;
	}
	/* Tracing starts: tell the decoder how the encoder works. */
	send_support(enc, true, SPOOR_TE_QUAL_NO_CHANGE);
	return enc;
}

void spoor_encoder_free(struct spoor_encoder *enc)
{
	if (!enc)
		return;
	free(enc->bpred);
	free(enc->jtc);
	free(enc->ras);
	free(enc);
}

/* Returns true when @in's itype exists for the itype width of the parameters. */
static bool itype_ok(const struct spoor_encoder *enc, const struct spoor_ingress *in)
{
	if (in->itype > SPOOR_ITYPE_INF_OTHER || in->itype == 7)
		return false;
	return in->itype < SPOOR_ITYPE_UNINF_CALL || enc->p->itype_width_p >= 4;
}

/* Returns nothing; fills the pipeline slot @s from the ingress record @in. */
static void classify(struct slot *s, const struct spoor_ingress *in)
{
	unsigned t = in->itype;

	/* Field by field, not memset(): a rep stos start-up per instruction
	 * costs more than the whole slot's plain stores. */
	s->in = *in;
	s->valid = true;
	s->synced = s->updiscon = s->hidden = s->popped = s->mispredict = false;
	s->branch = s->taken = s->uninf = s->call = s->ret = false;
	s->pre_depth = s->popped_link = s->saved_lo = s->saved_hi = 0;
	s->trap = t == SPOOR_ITYPE_EXCEPTION || t == SPOOR_ITYPE_INTERRUPT;
	s->retired = !s->trap || in->iretire;
	if (!s->retired)
		return;
	s->branch = t == SPOOR_ITYPE_NOT_TAKEN || t == SPOOR_ITYPE_TAKEN;
	s->taken = t == SPOOR_ITYPE_TAKEN;
	s->uninf = t == SPOOR_ITYPE_TRAP_RETURN || t == SPOOR_ITYPE_UNINFERABLE ||
		   t == SPOOR_ITYPE_UNINF_CALL || t == SPOOR_ITYPE_UNINF_JUMP ||
		   t == SPOOR_ITYPE_COROUTINE_SWAP || t == SPOOR_ITYPE_RETURN ||
		   t == SPOOR_ITYPE_UNINF_OTHER;
	s->call = t == SPOOR_ITYPE_UNINF_CALL || t == SPOOR_ITYPE_INF_CALL ||
		  t == SPOOR_ITYPE_COROUTINE_SWAP;
	s->ret = t == SPOOR_ITYPE_RETURN;
}

/* Returns nothing; moves the pipeline on, @in (or nothing, when NULL) entering it. */
static void shift(struct spoor_encoder *enc, const struct spoor_ingress *in)
{
	struct slot *oldest = enc->ps[0];

	enc->ps[0] = enc->ps[1];
	enc->ps[1] = enc->ps[2];
	enc->ps[2] = oldest;
	if (in)
		classify(oldest, in);
	else
		memset(oldest, 0, sizeof(*oldest));
}

int spoor_encoder_push(struct spoor_encoder *enc, const struct spoor_ingress *rec)
{
	bool trap;

	if (!enc || !rec || enc->finished || !itype_ok(enc, rec))
		return SPOOR_E_INVAL;
	trap = rec->itype == SPOOR_ITYPE_EXCEPTION || rec->itype == SPOOR_ITYPE_INTERRUPT;
	if (!rec->iretire && !trap)
		return 0;	/* nothing retired, nothing trapped */
	if (enc->q_len + STEP_ROOM > QUEUE_SIZE)
		return SPOOR_E_NOSPACE;
	enc->st.records++;
	shift(enc, rec);
	step(enc);
	return 0;
}

/* Returns nothing; the reference's end: the last instruction is its own next one. */
static void finish_reference(struct spoor_encoder *enc)
{
	struct slot last = *enc->ps[2];

	shift(enc, NULL);
	*enc->ps[2] = last;
	step(enc);
	if (enc->ps[1]->valid) {
		/* One more packet for it, with the flags of that step. */
		send_flow(enc, enc->ps[1], enc->step_updiscon ? SPOOR_TE_UPDISCON : 0, 0, false);
	}
	send_support(enc, false, SPOOR_TE_QUAL_ENDED_REP);
}

int spoor_encoder_finish(struct spoor_encoder *enc)
{
	if (!enc || enc->finished)
		return SPOOR_E_INVAL;
	if (enc->q_len + STEP_ROOM > QUEUE_SIZE)
		return SPOOR_E_NOSPACE;
	enc->finished = true;
	if (enc->quirks) {
		finish_reference(enc);
		return 0;
	}
	/* The next instruction is unqualified: the last one gets reported. */
	enc->reported_updiscon = false;
	shift(enc, NULL);
	step(enc);
	/* An ecall or ebreak that retired and trapped: no handler instruction
	 * follows to report its trap with, so it is reported alone. */
	if (enc->ps[1]->valid && enc->ps[1]->trap && enc->ps[1]->retired)
		send_trap(enc, enc->ps[1], enc->ps[1], false, true);
	send_support(enc, false, enc->reported_updiscon ? SPOOR_TE_QUAL_ENDED_NTR :
			  SPOOR_TE_QUAL_ENDED_REP);
	return 0;
}

int spoor_encoder_next(struct spoor_encoder *enc, struct spoor_te_inst *pkt)
{
	if (!enc || !pkt)
		return SPOOR_E_INVAL;
	if (!enc->q_len)
		return 0;
	*pkt = enc->q[enc->q_head];
	enc->q_head = (enc->q_head + 1) % QUEUE_SIZE;
	enc->q_len--;
	return 1;
}

uint32_t spoor_encoder_layout(const struct spoor_encoder *enc)
{
	if (!enc || !opt(enc, SPOOR_OPT_IMPLICIT_EXCEPTION))
		return 0;
	return SPOOR_TE_IMPLICIT_EXCEPTION;
}

int spoor_encoder_stats(const struct spoor_encoder *enc, struct spoor_encoder_stats *st)
{
	if (!enc || !st)
		return SPOOR_E_INVAL;
	*st = enc->st;
	return 0;
}
