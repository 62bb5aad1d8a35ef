// SPDX-License-Identifier: MIT
/*
 * Tests for the encoder model: API edge cases, the spec's worked byte
 * examples ("Code fragment and transport"), branch prediction and jump
 * target cache packets, and round trips of a small hand-assembled program
 * (run by a minimal interpreter into a spike trace, read back with the spike
 * reader, encoded, then decoded by spoor's decoder) with every option, where
 * the conformance vectors have no example (sijump, mispredicted returns,
 * reports right after an implicit return, traps and privilege changes).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "params_fixture.h"
#include "spoor/decoder.h"
#include "spoor/encap.h"
#include "spoor/encoder.h"
#include "spoor/error.h"
#include "spoor/image.h"
#include "spoor/spike_trace.h"
#include "spoor/te_inst.h"
#include "spoor/trace.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Returns the number of packets drained from @enc into @pkts (at most @max). */
static unsigned drain(struct spoor_encoder *enc, struct spoor_te_inst *pkts, unsigned n,
		      unsigned max)
{
	struct spoor_te_inst tmp;

	while (spoor_encoder_next(enc, n < max ? &pkts[n] : &tmp) == 1)
		n++;
	return n;
}

/* Returns true when @pkt encodes to exactly the @len bytes @want. */
static bool payload_is(const struct spoor_params *p, const struct spoor_te_inst *pkt,
		       const uint8_t *want, size_t len)
{
	uint8_t buf[SPOOR_TE_MAX_PAYLOAD];
	int n = spoor_te_inst_encode(p, pkt, buf, sizeof(buf));

	if (n != (int)len || memcmp(buf, want, len)) {
		fprintf(stderr, "payload:");
		for (int i = 0; i < n; i++)
			fprintf(stderr, " %02x", buf[i]);
		fprintf(stderr, "\n");
		return false;
	}
	return true;
}

/* Returns a retired instruction record. */
static struct spoor_ingress rec(uint64_t addr, unsigned itype, unsigned size)
{
	struct spoor_ingress r = { 0 };

	r.iaddr = addr;
	r.itype = (uint8_t)itype;
	r.iretire = 1;
	r.ilastsize = size == 4;
	r.priv = 3;
	return r;
}

/* Returns nothing; pushes @r into @enc and checks it is accepted. */
static void push(struct spoor_encoder *enc, struct spoor_ingress r)
{
	CHECK_EQ(spoor_encoder_push(enc, &r), 0);
}

static void test_api(void)
{
	struct spoor_params p;
	struct spoor_encoder_config cfg = { 0 };
	struct spoor_encoder *enc;
	struct spoor_te_inst pkt;
	struct spoor_encoder_stats st;
	struct spoor_ingress r = rec(0x1000, 0, 4);
	const char *why;
	int ret = 0;

	debug_params(&p);
	CHECK(spoor_encoder_new(NULL) == NULL);
	CHECK(spoor_encoder_new(&cfg) == NULL);		/* no params */
	CHECK_EQ(spoor_encoder_check_config(NULL, &why), SPOOR_E_INVAL);
	cfg.params = &p;
	cfg.options = 1u << 6;
	CHECK_EQ(spoor_encoder_check_config(&cfg, &why), SPOOR_E_INVAL);
	cfg.options = SPOOR_OPT_IMPLICIT_RETURN;	/* itype_width_p 3 */
	CHECK_EQ(spoor_encoder_check_config(&cfg, &why), SPOOR_E_BAD_CONFIG);
	CHECK(why != NULL);
	CHECK(spoor_encoder_new(&cfg) == NULL);
	cfg.options = SPOOR_OPT_BRANCH_PREDICTION;	/* bpred_size_p 0 */
	CHECK_EQ(spoor_encoder_check_config(&cfg, &why), SPOOR_E_BAD_CONFIG);
	cfg.options = SPOOR_OPT_JUMP_TARGET_CACHE;	/* cache_size_p 0 */
	CHECK_EQ(spoor_encoder_check_config(&cfg, &why), SPOOR_E_BAD_CONFIG);
	p.bpred_size_p = 4;
	p.cache_size_p = 4;			/* both, without f0s_width_p */
	CHECK_EQ(spoor_encoder_check_config(&cfg, &why), SPOOR_E_BAD_CONFIG);
	p.f0s_width_p = 1;
	cfg.options = SPOOR_OPT_JUMP_TARGET_CACHE | SPOOR_OPT_BRANCH_PREDICTION;
	CHECK_EQ(spoor_encoder_check_config(&cfg, &why), 0);
	debug_params(&p);
	cfg.options = SPOOR_OPT_FULL_ADDRESS;
	CHECK_EQ(spoor_encoder_check_config(&cfg, NULL), 0);

	enc = spoor_encoder_new(&cfg);
	CHECK(enc != NULL);
	if (!enc)
		return;
	CHECK_EQ(spoor_encoder_push(NULL, &r), SPOOR_E_INVAL);
	CHECK_EQ(spoor_encoder_push(enc, NULL), SPOOR_E_INVAL);
	CHECK_EQ(spoor_encoder_next(NULL, &pkt), SPOOR_E_INVAL);
	CHECK_EQ(spoor_encoder_next(enc, NULL), SPOOR_E_INVAL);
	CHECK_EQ(spoor_encoder_stats(NULL, &st), SPOOR_E_INVAL);
	CHECK_EQ(spoor_encoder_stats(enc, NULL), SPOOR_E_INVAL);
	/* itypes the parameters do not have */
	r.itype = 7;
	CHECK_EQ(spoor_encoder_push(enc, &r), SPOOR_E_INVAL);
	r.itype = SPOOR_ITYPE_RETURN;			/* 4-bit itype only */
	CHECK_EQ(spoor_encoder_push(enc, &r), SPOOR_E_INVAL);
	r.itype = 16;
	CHECK_EQ(spoor_encoder_push(enc, &r), SPOOR_E_INVAL);
	/* nothing retired and no trap: ignored */
	r.itype = 0;
	r.iretire = 0;
	CHECK_EQ(spoor_encoder_push(enc, &r), 0);
	/* the support packet is pending from the start */
	CHECK_EQ(spoor_encoder_next(enc, &pkt), 1);
	CHECK_EQ(pkt.v[SPOOR_TE_F_FORMAT], 3);
	CHECK_EQ(pkt.v[SPOOR_TE_F_SUBFORMAT], SPOOR_TE_SYNC_SUPPORT);
	CHECK_EQ(pkt.v[SPOOR_TE_F_IENABLE], 1);
	CHECK_EQ(pkt.v[SPOOR_TE_F_IOPTIONS], 4);
	CHECK_EQ(spoor_encoder_next(enc, &pkt), 0);
	/* an undrained queue fills up */
	r.iretire = 1;
	for (int i = 0; i < 64 && !ret; i++) {
		r.iaddr = 0x1000 + 8 * (uint64_t)i;
		r.itype = SPOOR_ITYPE_UNINFERABLE;	/* a packet per instruction */
		ret = spoor_encoder_push(enc, &r);
	}
	CHECK_EQ(ret, SPOOR_E_NOSPACE);
	CHECK_EQ(spoor_encoder_finish(enc), SPOOR_E_NOSPACE);
	drain(enc, NULL, 0, 0);
	CHECK_EQ(spoor_encoder_finish(enc), 0);
	CHECK_EQ(spoor_encoder_finish(enc), SPOOR_E_INVAL);
	CHECK_EQ(spoor_encoder_push(enc, &r), SPOOR_E_INVAL);	/* after finish */
	CHECK_EQ(spoor_encoder_stats(enc, &st), 0);
	CHECK(st.records > 0 && st.packets > 0);
	spoor_encoder_free(enc);
	spoor_encoder_free(NULL);

	/* tracing that stops before any instruction: support, support */
	enc = spoor_encoder_new(&cfg);
	CHECK(enc != NULL);
	if (!enc)
		return;
	CHECK_EQ(spoor_encoder_finish(enc), 0);
	{
		struct spoor_te_inst pk[4];
		unsigned n = drain(enc, pk, 0, 4);

		CHECK_EQ(n, 2);
		CHECK_EQ(pk[1].v[SPOOR_TE_F_SUBFORMAT], SPOOR_TE_SYNC_SUPPORT);
		CHECK_EQ(pk[1].v[SPOOR_TE_F_IENABLE], 0);
		CHECK_EQ(pk[1].v[SPOOR_TE_F_QUAL_STATUS], SPOOR_TE_QUAL_ENDED_REP);
	}
	spoor_encoder_free(enc);
}

/*
 * The spec's worked examples: an illegal opcode at the target of an
 * uninferable jump, and a timer interrupt after 15 branches.
 */
static void run_spec_examples(bool quirks)
{
	static const uint8_t support[] = { 0x1f, 0x04 };
	static const uint8_t start[] = { 0x73, 0x00, 0x00, 0x00, 0x00, 0x91, 0x82, 0x00, 0x10 };
	static const uint8_t f1[] = { 0x05, 0x04, 0x01, 0x00, 0x80, 0x00 };
	static const uint8_t f2[] = { 0x32, 0x04, 0x00, 0x00, 0x02 };
	static const uint8_t trap0[] = { 0x77, 0x00, 0x00, 0x00, 0x00, 0x81, 0x88, 0x00, 0x00,
					 0x20 };
	/* The spec prints 73 00 00 00 00 6c 00 00 10 for this one, which holds
	 * address 0x200000d8, not its annotation 0x800001b0 (see test_te_inst). */
	static const uint8_t start2[] = { 0x73, 0x00, 0x00, 0x00, 0x00, 0xd8, 0x00, 0x00, 0x40 };
	static const uint8_t f1_15[] = { 0xbd, 0xaa, 0xaa, 0x68, 0x00, 0x00, 0x20 };
	static const uint8_t trap1[] = { 0x77, 0x00, 0x00, 0x00, 0x80, 0x33, 0x6c, 0x00, 0x00,
					 0x20 };
	struct spoor_params p;
	struct spoor_encoder_config cfg = { 0 };
	struct spoor_te_inst pk[32];
	struct spoor_encoder *enc;
	struct spoor_ingress r;
	unsigned n = 0;

	debug_params(&p);
	cfg.params = &p;
	cfg.options = SPOOR_OPT_FULL_ADDRESS;
	cfg.resync_max = 32;
	cfg.reference_quirks = quirks;
	enc = spoor_encoder_new(&cfg);
	CHECK(enc != NULL);
	if (!enc)
		return;
	/* Start at 0x20010522; a taken branch on the way to 0x8000014c. */
	push(enc, rec(0x20010522, SPOOR_ITYPE_NONE, 2));
	push(enc, rec(0x20010524, SPOOR_ITYPE_TAKEN, 4));
	push(enc, rec(0x8000014c, SPOOR_ITYPE_NONE, 4));
	push(enc, rec(0x80000150, SPOOR_ITYPE_NONE, 4));
	push(enc, rec(0x80000154, SPOOR_ITYPE_UNINFERABLE, 2));	/* jalr t0 */
	push(enc, rec(0x80000104, SPOOR_ITYPE_NONE, 4));
	push(enc, rec(0x80000108, SPOOR_ITYPE_NONE, 4));
	push(enc, rec(0x8000010c, SPOOR_ITYPE_UNINFERABLE, 2));	/* jr t0 */
	r = rec(0x80000222, SPOOR_ITYPE_EXCEPTION, 2);		/* unimp */
	r.iretire = 0;
	r.cause = 2;
	push(enc, r);
	push(enc, rec(0x800001b0, SPOOR_ITYPE_NONE, 2));
	push(enc, rec(0x800001e0, SPOOR_ITYPE_NONE, 4));
	/* 15 branches, not taken and taken in turn, then the interrupt. */
	for (unsigned i = 0; i < 15; i++)
		push(enc, rec(0x80000300 + 4 * i, i & 1 ? SPOOR_ITYPE_TAKEN :
			      SPOOR_ITYPE_NOT_TAKEN, 4));
	push(enc, rec(0x800001a2, SPOOR_ITYPE_NONE, 4));
	r = rec(0x800001a6, SPOOR_ITYPE_INTERRUPT, 2);
	r.iretire = 0;
	r.cause = 7;
	push(enc, r);
	push(enc, rec(0x800001b0, SPOOR_ITYPE_NONE, 2));
	n = drain(enc, pk, n, 32);
	CHECK_EQ(spoor_encoder_finish(enc), 0);
	n = drain(enc, pk, n, 32);
	spoor_encoder_free(enc);

	CHECK_EQ(n, quirks ? 10 : 9);
	if (n < 9)
		return;
	CHECK(payload_is(&p, &pk[0], support, sizeof(support)));
	CHECK(payload_is(&p, &pk[1], start, sizeof(start)));
	CHECK(payload_is(&p, &pk[2], f1, sizeof(f1)));
	CHECK(payload_is(&p, &pk[3], f2, sizeof(f2)));
	CHECK(payload_is(&p, &pk[4], trap0, sizeof(trap0)));
	CHECK(payload_is(&p, &pk[5], start2, sizeof(start2)));
	CHECK(payload_is(&p, &pk[6], f1_15, sizeof(f1_15)));
	CHECK(payload_is(&p, &pk[7], trap1, sizeof(trap1)));
	/* quirks: one more address packet for the last instruction */
	if (quirks)
		CHECK_EQ(pk[8].v[SPOOR_TE_F_FORMAT], SPOOR_TE_FORMAT_ADDR);
	CHECK_EQ(pk[n - 1].v[SPOOR_TE_F_SUBFORMAT], SPOOR_TE_SYNC_SUPPORT);
	CHECK_EQ(pk[n - 1].v[SPOOR_TE_F_IENABLE], 0);
	CHECK_EQ(pk[n - 1].v[SPOOR_TE_F_QUAL_STATUS], SPOOR_TE_QUAL_ENDED_REP);
}

static void test_spec_examples(void)
{
	run_spec_examples(false);
	run_spec_examples(true);
}

/*
 * Returns the packets of a loop: @n_taken taken branches at 0x1004 (then a
 * not taken one when @exit), then a jalr to 0x2000.
 */
static unsigned run_loop(struct spoor_params *p, uint32_t options, unsigned n_taken, bool exit,
			 struct spoor_te_inst *pk, unsigned max)
{
	struct spoor_encoder_config cfg = { 0 };
	struct spoor_encoder *enc;
	unsigned n = 0;

	cfg.params = p;
	cfg.options = options;
	cfg.resync_max = 1000;
	enc = spoor_encoder_new(&cfg);
	CHECK(enc != NULL);
	if (!enc)
		return 0;
	push(enc, rec(0x1000, SPOOR_ITYPE_NONE, 4));
	for (unsigned i = 0; i < n_taken; i++) {
		push(enc, rec(0x1004, SPOOR_ITYPE_TAKEN, 4));
		push(enc, rec(0x1000, SPOOR_ITYPE_NONE, 4));
		n = drain(enc, pk, n, max);
	}
	push(enc, rec(0x1004, exit ? SPOOR_ITYPE_NOT_TAKEN : SPOOR_ITYPE_NONE, 4));
	push(enc, rec(0x1008, SPOOR_ITYPE_UNINFERABLE, 4));
	push(enc, rec(0x2000, SPOOR_ITYPE_NONE, 4));
	push(enc, rec(0x2004, SPOOR_ITYPE_NONE, 4));
	CHECK_EQ(spoor_encoder_finish(enc), 0);
	n = drain(enc, pk, n, max);
	spoor_encoder_free(enc);
	return n;
}

/* Branch prediction: a map with a miss, then counts (with and without address). */
static void test_branch_prediction(void)
{
	struct spoor_params p;
	struct spoor_te_inst pk[32];
	unsigned n;

	debug_params(&p);
	p.bpred_size_p = 4;
	/*
	 * 70 taken, 1 not taken: the first taken one misses (predictors start
	 * at "not taken"), so 31 go out as a map; the next 31 were predicted:
	 * counting (pbc 31); 8 more; the loop exit misses: count 8, no address.
	 */
	n = run_loop(&p, SPOOR_OPT_BRANCH_PREDICTION, 70, true, pk, 32);
	CHECK_EQ(n, 7);
	if (n == 7) {
		CHECK_EQ(pk[1].v[SPOOR_TE_F_SUBFORMAT], SPOOR_TE_SYNC_START);
		CHECK_EQ(pk[2].v[SPOOR_TE_F_FORMAT], SPOOR_TE_FORMAT_BRANCH);
		CHECK_EQ(pk[2].v[SPOOR_TE_F_BRANCHES], 0);
		CHECK_EQ(pk[3].v[SPOOR_TE_F_FORMAT], SPOOR_TE_FORMAT_EXT);
		CHECK_EQ(pk[3].v[SPOOR_TE_F_BRANCH_COUNT], 8);
		CHECK_EQ(pk[3].v[SPOOR_TE_F_BRANCH_FMT], SPOOR_TE_BFMT_NO_ADDR);
		CHECK(!spoor_te_has(&pk[3], SPOOR_TE_F_ADDRESS));
		/* the missed branch is implied by the count: an address only
		 * (relative to the sync's 0x1000) */
		CHECK_EQ(pk[4].v[SPOOR_TE_F_FORMAT], SPOOR_TE_FORMAT_ADDR);
		CHECK_EQ(pk[4].v[SPOOR_TE_F_ADDRESS], 0x1000);
	}
	/* 69 taken, then the jalr while counting: count with address. */
	n = run_loop(&p, SPOOR_OPT_BRANCH_PREDICTION, 69, false, pk, 32);
	CHECK_EQ(n, 6);
	if (n == 6) {
		CHECK_EQ(pk[3].v[SPOOR_TE_F_FORMAT], SPOOR_TE_FORMAT_EXT);
		CHECK_EQ(pk[3].v[SPOOR_TE_F_BRANCH_COUNT], 7);
		CHECK_EQ(pk[3].v[SPOOR_TE_F_BRANCH_FMT], SPOOR_TE_BFMT_ADDR);
		CHECK_EQ(pk[3].v[SPOOR_TE_F_ADDRESS], 0x1000);
	}
	/* Without prediction: maps only. */
	n = run_loop(&p, 0, 70, true, pk, 32);
	CHECK_EQ(n, 7);
	if (n == 7) {
		CHECK_EQ(pk[2].v[SPOOR_TE_F_FORMAT], SPOOR_TE_FORMAT_BRANCH);
		CHECK_EQ(pk[3].v[SPOOR_TE_F_FORMAT], SPOOR_TE_FORMAT_BRANCH);
		CHECK_EQ(pk[4].v[SPOOR_TE_F_BRANCHES], 9);
		CHECK_EQ(pk[4].v[SPOOR_TE_F_BRANCH_MAP], 0x100);
	}
}

/* Jump target cache: the second jump to the same target sends its index. */
static void test_jump_target_cache(void)
{
	struct spoor_params p;
	struct spoor_encoder_config cfg = { 0 };
	struct spoor_te_inst pk[16];
	struct spoor_encoder *enc;
	unsigned n;

	debug_params(&p);
	p.cache_size_p = 3;
	cfg.params = &p;
	cfg.options = SPOOR_OPT_JUMP_TARGET_CACHE | SPOOR_OPT_FULL_ADDRESS;
	enc = spoor_encoder_new(&cfg);
	CHECK(enc != NULL);
	if (!enc)
		return;
	for (int i = 0; i < 2; i++) {
		push(enc, rec(0x80001000, SPOOR_ITYPE_NONE, 4));
		push(enc, rec(0x80001004, SPOOR_ITYPE_UNINFERABLE, 4));
		push(enc, rec(0x80004004, SPOOR_ITYPE_NOT_TAKEN, 4));
		push(enc, rec(0x80004008, SPOOR_ITYPE_UNINFERABLE, 4));
	}
	push(enc, rec(0x80001000, SPOOR_ITYPE_NONE, 4));
	CHECK_EQ(spoor_encoder_finish(enc), 0);
	n = drain(enc, pk, 0, 16);
	spoor_encoder_free(enc);
	/* support, start, f1 and f2 (misses), 0.1 and 0.1 (hits), support */
	CHECK_EQ(n, 7);
	if (n != 7)
		return;
	CHECK_EQ(pk[2].v[SPOOR_TE_F_FORMAT], SPOOR_TE_FORMAT_BRANCH);
	CHECK_EQ(pk[3].v[SPOOR_TE_F_FORMAT], SPOOR_TE_FORMAT_ADDR);
	CHECK_EQ(pk[4].v[SPOOR_TE_F_FORMAT], SPOOR_TE_FORMAT_EXT);
	CHECK_EQ(pk[4].v[SPOOR_TE_F_SUBFORMAT], SPOOR_TE_EXT_JTC);
	CHECK_EQ(pk[4].v[SPOOR_TE_F_INDEX], 0x80004004 & 7);
	CHECK_EQ(pk[4].v[SPOOR_TE_F_BRANCHES], 1);
	CHECK_EQ(pk[4].v[SPOOR_TE_F_BRANCH_MAP], 1);
	CHECK_EQ(pk[5].v[SPOOR_TE_F_FORMAT], SPOOR_TE_FORMAT_EXT);
	CHECK_EQ(pk[5].v[SPOOR_TE_F_INDEX], 0x80001000 & 7);
	CHECK_EQ(pk[5].v[SPOOR_TE_F_BRANCHES], 0);
	/* the last instruction followed an uninferable jump: ended_ntr */
	CHECK_EQ(pk[6].v[SPOOR_TE_F_QUAL_STATUS], SPOOR_TE_QUAL_ENDED_NTR);
}

/* Returns the packets for @recs (@n records) with @cfg, finished, in @pk. */
static unsigned encode_all(const struct spoor_encoder_config *cfg, const struct spoor_ingress *recs,
			   unsigned n, struct spoor_te_inst *pk, unsigned max)
{
	struct spoor_encoder *enc = spoor_encoder_new(cfg);
	unsigned np = 0;

	CHECK(enc != NULL);
	if (!enc)
		return 0;
	for (unsigned i = 0; i < n; i++) {
		push(enc, recs[i]);
		np = drain(enc, pk, np, max);
	}
	CHECK_EQ(spoor_encoder_finish(enc), 0);
	np = drain(enc, pk, np, max);
	spoor_encoder_free(enc);
	return np;
}

/* The deliberate differences between reference_quirks and the spec. */
static void test_quirks(void)
{
	struct spoor_params p;
	struct spoor_encoder_config cfg = { 0 };
	struct spoor_ingress r[6];
	struct spoor_te_inst pk[16];
	unsigned n;

	/* irdepth that reports nothing: all ones (reference) or updiscon's value */
	debug_params(&p);
	p.itype_width_p = 4;
	p.call_counter_size_p = 9;
	cfg.params = &p;
	r[0] = rec(0x1000, SPOOR_ITYPE_NONE, 4);
	r[1] = rec(0x1004, SPOOR_ITYPE_UNINF_JUMP, 4);
	r[2] = rec(0x2000, SPOOR_ITYPE_NONE, 4);
	r[3] = rec(0x2004, SPOOR_ITYPE_NONE, 4);
	for (int q = 0; q < 2; q++) {
		cfg.reference_quirks = q;
		n = encode_all(&cfg, r, 4, pk, 16);
		CHECK_EQ(n, 5);
		if (n != 5)
			continue;
		CHECK_EQ(pk[2].v[SPOOR_TE_F_FORMAT], SPOOR_TE_FORMAT_ADDR);
		CHECK_EQ(pk[2].v[SPOOR_TE_F_IRDEPTH], q ? 0x1ff : 0);
		CHECK_EQ(pk[n - 1].v[SPOOR_TE_F_QUAL_STATUS], SPOOR_TE_QUAL_ENDED_REP);
	}

	/*
	 * A resync due at an instruction that traps without retiring: the
	 * reference sends a 3.0 with its address (a decoder takes it as
	 * retired); the spec mode waits for the 3.1 of the handler.
	 */
	debug_params(&p);
	cfg.resync_max = 1;
	r[0] = rec(0x1000, SPOOR_ITYPE_NONE, 4);
	r[1] = rec(0x1004, SPOOR_ITYPE_UNINFERABLE, 4);
	r[2] = rec(0x2000, SPOOR_ITYPE_NONE, 4);
	r[3] = rec(0x2004, SPOOR_ITYPE_NONE, 4);
	r[4] = rec(0x2008, SPOOR_ITYPE_EXCEPTION, 4);
	r[4].iretire = 0;
	r[4].cause = 2;
	r[5] = rec(0x3000, SPOOR_ITYPE_NONE, 4);
	for (int q = 0; q < 2; q++) {
		cfg.reference_quirks = q;
		n = encode_all(&cfg, r, 6, pk, 16);
		CHECK(n >= 6);
		if (n < 6)
			continue;
		CHECK_EQ(pk[3].v[SPOOR_TE_F_FORMAT], SPOOR_TE_FORMAT_ADDR);	/* 0x2004 */
		CHECK_EQ(pk[4].v[SPOOR_TE_F_FORMAT], SPOOR_TE_FORMAT_SYNC);
		CHECK_EQ(pk[4].v[SPOOR_TE_F_SUBFORMAT],
			 q ? SPOOR_TE_SYNC_START : SPOOR_TE_SYNC_TRAP);
		CHECK_EQ(pk[4].v[SPOOR_TE_F_ADDRESS], q ? 0x2008 : 0x3000);
		if (q)
			CHECK_EQ(pk[5].v[SPOOR_TE_F_SUBFORMAT], SPOOR_TE_SYNC_TRAP);
	}
}

/* Context and time in format 3, ppccd and imprecise changes, notify. */
static void test_context_notify(void)
{
	struct spoor_params p;
	struct spoor_encoder_config cfg = { 0 };
	struct spoor_ingress r[9];
	struct spoor_te_inst pk[16];
	unsigned n;

	debug_params(&p);
	p.notime_p = 0;
	p.time_width_p = 16;
	cfg.params = &p;
	cfg.options = SPOOR_OPT_FULL_ADDRESS;
	for (unsigned i = 0; i < 9; i++) {
		r[i] = rec(0x1000 + 4 * i, SPOOR_ITYPE_NONE, 4);
		r[i].context = 1;
		r[i].time = 100 + i;
	}
	r[2].context = 2;			/* imprecise: a 3.2 */
	r[2].ctype = SPOOR_CTYPE_IMPRECISE;
	for (unsigned i = 3; i < 9; i++)
		r[i].context = 2;
	r[4].itype = SPOOR_ITYPE_NOT_TAKEN;	/* a branch before a precise change */
	r[5].context = 3;
	r[5].ctype = SPOOR_CTYPE_PRECISE;
	for (unsigned i = 6; i < 9; i++)
		r[i].context = 3;
	r[7].notify = true;
	n = encode_all(&cfg, r, 9, pk, 16);
	/* support, 3.0, 3.2, f1 (the branch), 3.0, f2 (notify), f2 (end), support */
	CHECK_EQ(n, 8);
	if (n != 8)
		return;
	CHECK_EQ(pk[1].v[SPOOR_TE_F_CONTEXT], 1);
	CHECK_EQ(pk[1].v[SPOOR_TE_F_TIME], 100);
	CHECK_EQ(pk[2].v[SPOOR_TE_F_SUBFORMAT], SPOOR_TE_SYNC_CONTEXT);
	CHECK_EQ(pk[2].v[SPOOR_TE_F_CONTEXT], 2);
	CHECK_EQ(pk[2].v[SPOOR_TE_F_TIME], 102);
	CHECK_EQ(pk[3].v[SPOOR_TE_F_FORMAT], SPOOR_TE_FORMAT_BRANCH);
	CHECK_EQ(pk[3].v[SPOOR_TE_F_ADDRESS], 0x1010);
	CHECK_EQ(pk[4].v[SPOOR_TE_F_SUBFORMAT], SPOOR_TE_SYNC_START);
	CHECK_EQ(pk[4].v[SPOOR_TE_F_ADDRESS], 0x1014);
	CHECK_EQ(pk[4].v[SPOOR_TE_F_CONTEXT], 3);
	CHECK_EQ(pk[5].v[SPOOR_TE_F_ADDRESS], 0x101c);
	CHECK(pk[5].status & SPOOR_TE_NOTIFY);
	CHECK(!(pk[6].status & SPOOR_TE_NOTIFY));
}

/* ---- round trips of a hand-assembled program ---------------------------- */

#define PROG_BASE 0x10000
#define PROG_WORDS 0x300		/* code up to 0x10c00 */
#define HANDLER 0x10800
#define DATA_BASE 0x20000
#define DATA_SIZE 4096

enum { ZERO = 0, RA = 1, SP = 2, T0 = 5, T1 = 6, T2 = 7, S0 = 8, A0 = 10, T3 = 28, T6 = 31 };

static uint32_t prog[PROG_WORDS];

static uint32_t i_type(unsigned op, unsigned f3, unsigned rd, unsigned rs1, int imm)
{
	return (uint32_t)(imm & 0xfff) << 20 | rs1 << 15 | f3 << 12 | rd << 7 | op;
}

static uint32_t addi(unsigned rd, unsigned rs1, int imm)
{
	return i_type(0x13, 0, rd, rs1, imm);
}

static uint32_t jalr(unsigned rd, unsigned rs1, int imm)
{
	return i_type(0x67, 0, rd, rs1, imm);
}

static uint32_t ld(unsigned rd, unsigned rs1, int imm)
{
	return i_type(0x03, 3, rd, rs1, imm);
}

static uint32_t sd(unsigned rs2, unsigned rs1, int imm)
{
	return (uint32_t)(imm >> 5 & 0x7f) << 25 | rs2 << 20 | rs1 << 15 | 3 << 12 |
	       (uint32_t)(imm & 0x1f) << 7 | 0x23;
}

static uint32_t u_type(unsigned op, unsigned rd, uint32_t imm20)
{
	return imm20 << 12 | rd << 7 | op;
}

static uint32_t jal(unsigned rd, int off)
{
	uint32_t o = (uint32_t)off;

	return (o >> 20 & 1) << 31 | (o >> 1 & 0x3ff) << 21 | (o >> 11 & 1) << 20 |
	       (o >> 12 & 0xff) << 12 | rd << 7 | 0x6f;
}

static uint32_t branch(unsigned f3, unsigned rs1, unsigned rs2, int off)
{
	uint32_t o = (uint32_t)off;

	return (o >> 12 & 1) << 31 | (o >> 5 & 0x3f) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 |
	       (o >> 1 & 0xf) << 8 | (o >> 11 & 1) << 7 | 0x63;
}

/* Returns nothing; puts @insn at address @at. */
static void put(uint64_t at, uint32_t insn)
{
	prog[(at - PROG_BASE) / 4] = insn;
}

/* Returns nothing; puts a jal/branch at @at to @to. */
static void put_jal(uint64_t at, unsigned rd, uint64_t to)
{
	put(at, jal(rd, (int)(to - at)));
}

/*
 * Returns nothing; assembles the test program (user mode main, machine mode
 * trap handler; addresses below 2 GiB so that lui values are positive).
 */
static void assemble(bool modify_ra)
{
	uint64_t m = PROG_BASE;

	memset(prog, 0, sizeof(prog));
	/* main */
	put(m + 0x00, addi(S0, ZERO, 3));
	put(m + 0x04, u_type(0x17, T0, 0));		/* loop: auipc t0, 0 */
	put(m + 0x08, jalr(RA, T0, 0x100 - 4));		/* call f (sijump) */
	put(m + 0x0c, addi(S0, S0, -1));
	put(m + 0x10, branch(1, S0, ZERO, -12));	/* bne s0, zero, loop */
	put(m + 0x14, addi(A0, ZERO, 4));
	put(m + 0x18, u_type(0x37, T1, 0x10));		/* lui t1, 0x10 */
	put(m + 0x1c, jalr(RA, T1, 0x200));		/* call rec (sijump) */
	put_jal(m + 0x20, RA, m + 0x300);		/* call h: returns to ra + 4 */
	put(m + 0x24, addi(ZERO, ZERO, 0));		/* skipped */
	put_jal(m + 0x28, RA, m + 0x380);		/* call k1 */
	put_jal(m + 0x2c, RA, m + 0x384);		/* call k2 */
	put(m + 0x30, addi(T3, ZERO, 1));		/* reported before the trap */
	put(m + 0x34, 0);				/* illegal */
	put_jal(m + 0x38, RA, m + 0x380);		/* call k1 */
	put(m + 0x3c, addi(T3, ZERO, 2));
	put(m + 0x40, 0x00000073);			/* ecall */
	put(m + 0x44, u_type(0x17, T0, 0));		/* auipc t0, 0 */
	put(m + 0x48, jalr(ZERO, T0, 0x0c));		/* j 0x50 (sijump) */
	put(m + 0x4c, 0);
	put(m + 0x50, addi(T3, ZERO, 3));
	put(m + 0x54, 0);				/* illegal after a sijump target */
	put(m + 0x58, addi(A0, ZERO, 6));
	put_jal(m + 0x5c, RA, m + 0x200);		/* rec again, deeper */
	put(m + 0x60, addi(S0, ZERO, 20));
	put(m + 0x64, addi(S0, S0, -1));		/* a longer loop */
	put(m + 0x68, branch(1, S0, ZERO, -4));
	put_jal(m + 0x6c, RA, m + 0x388);		/* call k3: traps on return */
	put(m + 0x70, addi(T3, ZERO, 4));
	put_jal(m + 0x74, ZERO, m + 0x90);
	/*
	 * 35 branches, predicted the second time: counting, then a return
	 * (reported without implicit return) to a branch: a format 0.0 with
	 * address pointing at it.  That branch's outcome is the prediction
	 * (not taken, the predictor's initial state), which the decoder must
	 * not take from a stale branch map bit.
	 */
	put_jal(m + 0x90, RA, m + 0x500);
	put_jal(m + 0x94, RA, m + 0x500);
	put(m + 0x98, branch(1, ZERO, ZERO, 8));	/* bne zero, zero: not taken */
	put(m + 0x9c, addi(T3, ZERO, 5));
	put(m + 0xa0, addi(T3, ZERO, 6));
	put_jal(m + 0xa4, ZERO, m + 0xa4);		/* end: jump to itself */
	/* f: a leaf */
	put(m + 0x100, addi(T2, T2, 1));
	put(m + 0x104, jalr(ZERO, RA, 0));		/* ret */
	/* rec(a0): recursion, unwinding without branches */
	put(m + 0x200, branch(0, A0, ZERO, 0x24));	/* beqz a0, base */
	put(m + 0x204, addi(SP, SP, -16));
	put(m + 0x208, sd(RA, SP, 0));
	put(m + 0x20c, addi(A0, A0, -1));
	put_jal(m + 0x210, RA, m + 0x200);
	put(m + 0x214, ld(RA, SP, 0));
	put(m + 0x218, addi(SP, SP, 16));
	put(m + 0x21c, jalr(ZERO, RA, 0));
	put(m + 0x224, jalr(ZERO, RA, 0));		/* base: ret */
	for (unsigned i = 0; i < 35; i++)
		put(m + 0x500 + 8 * i, branch(0, ZERO, ZERO, 8));	/* beq zero, zero: taken */
	put(m + 0x500 + 8 * 35, jalr(ZERO, RA, 0));
	/* h: returns elsewhere (a mispredicted return) */
	put(m + 0x300, addi(RA, RA, modify_ra ? 4 : 0));
	put(m + 0x304, jalr(ZERO, RA, 0));
	/* k1, k2: leaves; k3: returns to an illegal instruction */
	put(m + 0x380, jalr(ZERO, RA, 0));
	put(m + 0x384, jalr(ZERO, RA, 0));
	put(m + 0x388, addi(RA, RA, modify_ra ? 8 : 0));
	put(m + 0x38c, jalr(ZERO, RA, 0));		/* to 0x10078 */
	put(m + 0x78, 0);
	put_jal(m + 0x7c, ZERO, m + 0x70);
	/* trap handler */
	put(HANDLER, addi(T2, T2, 1));
	put(HANDLER + 4, 0x30200073);			/* mret */
}

/* The interpreter's state. */
struct cpu {
	int64_t x[32];
	uint64_t pc, resume;
	unsigned priv, saved_priv;
	uint8_t data[DATA_SIZE];
	FILE *out;
	unsigned steps, interrupt_at;
};

/* Returns nothing; writes one spike trace row. */
static void row(struct cpu *c, uint32_t insn, bool exc, uint64_t cause, bool intr)
{
	fprintf(c->out, "1,%llx,%x,%x,%d,%llx,0,%d\n", (unsigned long long)c->pc, insn, c->priv,
		exc, (unsigned long long)cause, intr);
}

/* Returns nothing; takes a trap to the handler, resuming at @resume. */
static void trap(struct cpu *c, uint64_t resume)
{
	c->resume = resume;
	c->saved_priv = c->priv;
	c->priv = 3;
	c->pc = HANDLER;
}

/* Returns false when the program ended (its jump to itself). */
static bool step_cpu(struct cpu *c)
{
	uint32_t in = c->pc - PROG_BASE < sizeof(prog) ? prog[(c->pc - PROG_BASE) / 4] : 0;
	unsigned op = in & 0x7f, rd = in >> 7 & 31, rs1 = in >> 15 & 31, rs2 = in >> 20 & 31;
	int64_t sign = (int32_t)in >> 31, a = c->x[rs1], b = c->x[rs2];
	int64_t imm_i = (int32_t)in >> 20;
	int64_t imm_b = (int64_t)((uint64_t)sign << 12 | (in >> 7 & 1) << 11 |
				  (in >> 25 & 0x3f) << 5 | (in >> 8 & 0xf) << 1);
	int64_t imm_j = (int64_t)((uint64_t)sign << 20 | (in >> 12 & 0xff) << 12 |
				  (in >> 20 & 1) << 11 | (in >> 21 & 0x3ff) << 1);
	int64_t imm_s = (int64_t)((uint64_t)((int32_t)in >> 25) << 5 | (in >> 7 & 0x1f));
	uint64_t next = c->pc + 4, t;

	if (++c->steps == c->interrupt_at && c->priv == 0) {
		row(c, in, true, UINT64_C(0x8000000000000007), true);
		trap(c, c->pc);
		return true;
	}
	if (in == 0 || in == 0x00000073) {
		/* illegal instruction (not retired) or ecall (retired, then the trap) */
		row(c, in, true, in ? 8 + c->priv : 2, false);
		trap(c, c->pc + 4);
		return true;
	}
	row(c, in, false, 0, false);
	switch (op) {
	case 0x13:
		c->x[rd] = a + imm_i;
		break;
	case 0x17:
		c->x[rd] = (int64_t)(c->pc + (uint64_t)(int64_t)(int32_t)(in & 0xfffff000));
		break;
	case 0x37:
		c->x[rd] = (int32_t)(in & 0xfffff000);
		break;
	case 0x6f:
		if (imm_j == 0)
			return false;
		c->x[rd] = (int64_t)next;
		next = c->pc + (uint64_t)imm_j;
		break;
	case 0x67:
		t = (uint64_t)(a + imm_i) & ~UINT64_C(1);
		c->x[rd] = (int64_t)next;
		next = t;
		break;
	case 0x63:
		if ((in >> 12 & 7) == 0 ? a == b : a != b)
			next = c->pc + (uint64_t)imm_b;
		break;
	case 0x03:
		memcpy(&c->x[rd], &c->data[(uint64_t)(a + imm_i) - DATA_BASE], 8);
		break;
	case 0x23:
		memcpy(&c->data[(uint64_t)(a + imm_s) - DATA_BASE], &b, 8);
		break;
	case 0x73:		/* mret */
		next = c->resume;
		c->priv = c->saved_priv;
		break;
	}
	c->x[0] = 0;
	c->pc = next;
	return true;
}

/* Returns the number of rows of the trace written to @path. */
static unsigned write_trace(const char *path, unsigned interrupt_at)
{
	static struct cpu c;
	unsigned rows = 0;

	memset(&c, 0, sizeof(c));
	c.pc = PROG_BASE;
	c.x[SP] = DATA_BASE + DATA_SIZE;
	c.interrupt_at = interrupt_at;
	c.out = fopen(path, "w+");
	if (!c.out)
		return 0;
	fprintf(c.out, "VALID,ADDRESS,INSN,PRIVILEGE,EXCEPTION,ECAUSE,TVAL,INTERRUPT\n");
	while (rows < 100000 && step_cpu(&c))
		rows++;
	fclose(c.out);
	return rows;
}

/* Returns the number of PCs in @pcs after appending the block @b (at most @max). */
static size_t block_pcs(struct spoor_decoder *dec, const struct spoor_block *b, uint64_t *pcs,
			size_t n, size_t max)
{
	struct spoor_insn in;
	uint64_t a = b->start;

	for (uint64_t i = 0; i < b->ninsn && n < max; i++) {
		pcs[n++] = a;
		if (spoor_decoder_insn(dec, a, &in))
			break;
		a += in.len;
	}
	return n;
}

struct rt_case {
	const char *name;
	uint32_t options;
	unsigned rss, ccs, bpred, cache;
	bool x1x5;
	bool quirks;
	bool well_behaved;	/* returns go where the calls said (a call counter) */
};

/* Returns the number of retired PCs of the trace at @path, read into @pcs. */
static size_t trace_pcs(const char *path, uint64_t *pcs, size_t max)
{
	char line[256];
	unsigned long long addr, insn, priv, exc, cause, tval, intr;
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f) && n < max) {
		if (sscanf(line, "1,%llx,%llx,%llx,%llx,%llx,%llx,%llx", &addr, &insn, &priv, &exc,
			   &cause, &tval, &intr) != 7)
			continue;
		if (intr || (exc && insn != 0x73))
			continue;	/* trapped without retiring */
		pcs[n++] = addr;
	}
	fclose(f);
	return n;
}

/* The round trip's decoded PCs. */
struct rt_out {
	struct spoor_trace *tr;
	uint64_t *pcs;
	size_t n, max;
};

static void rt_blocks(void *ctx, uint32_t source, uint64_t offset, const struct spoor_block *b,
		      size_t n)
{
	struct rt_out *o = ctx;

	(void)offset;
	for (size_t i = 0; i < n; i++)
		o->n = block_pcs(spoor_trace_decoder(o->tr, source), &b[i], o->pcs, o->n, o->max);
}

/*
 * Returns true after encoding the trace at @path with @tc and resync
 * interval @resync, framing its packets (raw encapsulation), decoding the
 * bytes through the library pipeline and comparing the PCs with @want.
 */
static bool round_trip(const char *path, const struct rt_case *tc, unsigned resync,
		       const uint64_t *want, size_t nwant, struct spoor_image *img)
{
	static const struct spoor_trace_ops ops = { .blocks = rt_blocks };
	static uint64_t got[20000];
	struct rt_out out = { .pcs = got, .max = 20000 };
	struct spoor_params p;
	struct spoor_encoder_config ecfg = { 0 };
	struct spoor_trace_config tcfg;
	struct spoor_spike_config scfg = { 64, 4, true, 0 };
	struct spoor_encap_config raw;
	struct spoor_spike_reader *r;
	struct spoor_encoder *enc;
	struct spoor_ingress in;
	struct spoor_te_inst pkt;
	uint8_t buf[SPOOR_TE_MAX_PAYLOAD], frame[SPOOR_FRAME_MAX];
	size_t n;
	bool ok;
	int ret, err, len;

	spoor_params_init(&p);
	p.iaddress_width_p = 64;
	p.iaddress_lsb_p = 1;
	p.itype_width_p = 4;
	p.ecause_width_p = 5;
	p.privilege_width_p = 2;
	p.sijump_p = 1;
	p.return_stack_size_p = tc->rss;
	p.call_counter_size_p = tc->ccs;
	p.bpred_size_p = tc->bpred;
	p.cache_size_p = tc->cache;
	p.f0s_width_p = tc->bpred && tc->cache;
	ecfg.params = &p;
	ecfg.options = tc->options;
	ecfg.resync_max = resync;
	ecfg.reference_quirks = tc->quirks;
	spoor_trace_config_init(&tcfg);
	tcfg.params = p;
	tcfg.image = img;
	tcfg.options = tc->options & SPOOR_OPT_SIJUMP;
	tcfg.compat = tc->x1x5 ? 0 : SPOOR_COMPAT_REFERENCE;
	tcfg.mtvec = HANDLER;
	spoor_encap_config_init(&raw, SPOOR_ENCAP_RAW);
	scfg.flags = tc->x1x5 ? SPOOR_SPIKE_X1X5 : 0;
	r = spoor_spike_open(path, &scfg, &err);
	enc = spoor_encoder_new(&ecfg);
	out.tr = spoor_trace_new(&tcfg, &ops, &out);
	CHECK(r && enc && out.tr);
	ok = r && enc && out.tr;
	for (bool more = ok; more;) {
		ret = spoor_spike_next(r, &in);
		CHECK(ret >= 0);
		more = ret == 1;
		if (more)
			CHECK_EQ(spoor_encoder_push(enc, &in), 0);
		else
			CHECK_EQ(spoor_encoder_finish(enc), 0);
		while (spoor_encoder_next(enc, &pkt) == 1) {
			/* Through the codec with the layout the options give, framed. */
			struct spoor_frame frm = { .msg = SPOOR_MSG_TE_INST, .flow = 2 };

			len = spoor_te_inst_encode_layout(&p, spoor_encoder_layout(enc), &pkt, buf,
							  sizeof(buf));
			CHECK(len > 0);
			frm.payload = buf;
			frm.payload_len = (uint32_t)(len > 0 ? len : 0);
			len = spoor_encap_encode(&raw, &frm, frame, sizeof(frame));
			CHECK(len > 0);
			CHECK_EQ(spoor_trace_feed(out.tr, frame, (size_t)(len > 0 ? len : 0)), 0);
		}
	}
	if (ok) {
		CHECK_EQ(spoor_trace_finish(out.tr), 0);
		ok = out.n == nwant && !memcmp(got, want, out.n * sizeof(*got));
	}
	n = out.n;
	if (!ok) {
		size_t i = 0;

		while (i < n && i < nwant && got[i] == want[i])
			i++;
		fprintf(stderr, "round trip %s resync %u: %zu of %zu PCs, first difference at %zu"
			" (0x%llx, want 0x%llx)\n", tc->name, resync, n, nwant, i,
			i < n ? (unsigned long long)got[i] : 0ull,
			i < nwant ? (unsigned long long)want[i] : 0ull);
	}
	spoor_trace_free(out.tr);
	spoor_encoder_free(enc);
	spoor_spike_close(r);
	return ok;
}

static void test_round_trips(void)
{
	enum { IR = SPOOR_OPT_IMPLICIT_RETURN, SJ = SPOOR_OPT_SIJUMP };
	static const struct rt_case cases[] = {
		/* name, options, rss, ccs, bpred, cache, x1x5, quirks, well_behaved */
		{ "differential", 0, 0, 0, 0, 0, false, false, false },
		{ "full address", SPOOR_OPT_FULL_ADDRESS, 0, 0, 0, 0, false, false, false },
		{ "reference quirks", 0, 0, 0, 0, 0, false, true, false },
		{ "sijump", SJ, 0, 0, 0, 0, false, false, false },
		{ "implicit return, stack, x1", IR, 2, 0, 0, 0, false, false, false },
		{ "implicit return, stack, x1/x5", IR, 4, 0, 0, 0, true, false, false },
		{ "implicit return, counter", IR, 0, 3, 0, 0, false, false, true },
		{ "implicit return, counter, x1/x5", IR, 0, 1, 0, 0, true, false, true },
		{ "jump target cache", SPOOR_OPT_JUMP_TARGET_CACHE, 0, 0, 0, 2, false, false,
		  false },
		{ "branch prediction", SPOOR_OPT_BRANCH_PREDICTION, 0, 0, 3, 0, false, false,
		  false },
		{ "implicit return + sijump", IR | SJ, 3, 0, 0, 0, false, false, false },
		{ "implicit return (counter) + sijump", IR | SJ, 0, 4, 0, 0, true, false, true },
		{ "implicit exception", SPOOR_OPT_IMPLICIT_EXCEPTION, 0, 0, 0, 0, false, false,
		  false },
		{ "implicit exception, quirks", SPOOR_OPT_IMPLICIT_EXCEPTION, 0, 0, 0, 0, false,
		  true, false },
		{ "everything", SPOOR_OPT_ALL, 3, 0, 4, 3, true, false, false },
		{ "everything, x1", SPOOR_OPT_ALL, 5, 0, 4, 3, false, false, false },
		{ "everything, counter", SPOOR_OPT_ALL, 0, 2, 4, 3, false, false, true },
	};
	static const unsigned resyncs[] = { 0, 1, 2, 3, 5 };
	static const unsigned interrupts[] = { 0, 9, 30, 77 };
	static uint64_t want[20000];
	char path[] = "/tmp/spoor-test-encoder-XXXXXX";
	uint8_t bytes[sizeof(prog)];
	size_t nwant;
	int fd;

	fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	close(fd);
	for (int wb = 0; wb < 2; wb++) {
		struct spoor_image *prog_img = spoor_image_new();

		assemble(!wb);
		for (size_t i = 0; i < PROG_WORDS; i++)
			for (int k = 0; k < 4; k++)
				bytes[4 * i + (size_t)k] = (uint8_t)(prog[i] >> (8 * k));
		CHECK(prog_img && !spoor_image_add_raw(prog_img, "prog", PROG_BASE, bytes,
						       sizeof(bytes)));
		for (size_t k = 0; prog_img && k < ARRAY_SIZE(interrupts); k++) {
			CHECK(write_trace(path, interrupts[k]) > 100);
			nwant = trace_pcs(path, want, 20000);
			CHECK(nwant > 100);
			for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
				if (cases[i].well_behaved && !wb)
					continue;
				for (size_t j = 0; j < ARRAY_SIZE(resyncs); j++)
					CHECK(round_trip(path, &cases[i], resyncs[j], want, nwant,
							 prog_img));
			}
		}
		spoor_image_free(prog_img);
	}
	unlink(path);
}

/* ---- trap after trap ------------------------------------------------------ */

#define TT_BASE 0x1000
#define TT_HANDLER 0x2000
#define TT_ILLEGAL 0xc0001073u		/* csrw cycle, zero */

/* One run of traps: the instructions before the first, and what it is. */
struct tt_case {
	const char *name;
	uint64_t retired[3];		/* retired before the first trap (0 ends) */
	uint64_t epc;			/* the first trap's instruction */
	unsigned itype, cause;		/* of the instruction at retired[last] */
	bool first_retires;		/* ecall: it retires, then traps */
	bool sijump;			/* the jump before the trap is sequentially inferable */
};

/* What the decoder made of a run: traps and retired instructions. */
struct tt_out {
	uint64_t cause[8], epc[8];
	bool has_epc[8];
	unsigned traps, trap_packets;
	uint64_t pcs[16];
	unsigned npcs;
};

/* Returns the image of the trap-after-trap program (the caller frees it). */
static struct spoor_image *tt_image(void)
{
	static const uint32_t code[] = {
		[0x00 / 4] = 0x00128293,	/* addi t0, t0, 1 */
		[0x04 / 4] = 0x00030067,	/* jr t1 (to 0x1100) */
		[0x08 / 4] = 0x00001337,	/* lui t1, 0x1 */
		[0x0c / 4] = 0x10030067,	/* jalr zero, 0x100(t1): sijump */
		[0x10 / 4] = 0x00128293,	/* addi t0, t0, 1 */
		[0x14 / 4] = 0x00000073,	/* ecall */
		[0x18 / 4] = 0x00128293,	/* addi t0, t0, 1 */
		[0x1c / 4] = TT_ILLEGAL,
		[0x100 / 4] = TT_ILLEGAL,	/* the jumps' target */
	};
	static const uint32_t handler[] = { 0x00128293, 0x00128293, 0x0000006f };
	uint8_t bytes[sizeof(code)], hbytes[sizeof(handler)];
	struct spoor_image *img = spoor_image_new();

	for (size_t i = 0; i < sizeof(bytes); i++)
		bytes[i] = (uint8_t)(code[i / 4] >> (8 * (i % 4)));
	for (size_t i = 0; i < sizeof(hbytes); i++)
		hbytes[i] = (uint8_t)(handler[i / 4] >> (8 * (i % 4)));
	if (img && (spoor_image_add_raw(img, "code", TT_BASE, bytes, sizeof(bytes)) ||
		    spoor_image_add_raw(img, "handler", TT_HANDLER, hbytes, sizeof(hbytes)))) {
		spoor_image_free(img);
		img = NULL;
	}
	return img;
}

/*
 * Returns nothing; encodes @tc (then two fetch faults at the handler, which
 * then runs two instructions) with @options and decodes the packets into @o.
 */
static void tt_run(const struct tt_case *tc, uint32_t options, struct spoor_image *img,
		   struct tt_out *o)
{
	struct spoor_ingress r[8];
	struct spoor_te_inst pk[32];
	struct spoor_params p;
	struct spoor_encoder_config ecfg = { 0 };
	struct spoor_decoder_config dcfg = { 0 };
	struct spoor_decoder *dec;
	struct spoor_dec_item it;
	unsigned n = 0, np;

	memset(o, 0, sizeof(*o));
	spoor_params_init(&p);
	p.iaddress_width_p = 64;
	p.iaddress_lsb_p = 1;
	p.itype_width_p = 4;
	p.ecause_width_p = 5;
	p.privilege_width_p = 2;
	p.sijump_p = 1;
	for (unsigned i = 0; i < 3 && tc->retired[i]; i++) {
		r[n] = rec(tc->retired[i], SPOOR_ITYPE_NONE, 4);
		if (i == 2 || !tc->retired[i + 1]) {
			r[n].itype = (uint8_t)tc->itype;
			r[n].sijump = tc->sijump;
		}
		n++;
	}
	if (!tc->first_retires) {
		r[n] = rec(tc->epc, SPOOR_ITYPE_EXCEPTION, 4);
		r[n].iretire = 0;
		r[n++].tval = TT_ILLEGAL;
	}
	r[n - 1].cause = tc->cause;
	for (int i = 0; i < 2; i++) {
		r[n] = rec(TT_HANDLER, SPOOR_ITYPE_EXCEPTION, 4);
		r[n].iretire = 0;
		r[n].cause = 1;
		r[n++].tval = TT_HANDLER;
	}
	r[n++] = rec(TT_HANDLER, SPOOR_ITYPE_NONE, 4);
	r[n++] = rec(TT_HANDLER + 4, SPOOR_ITYPE_NONE, 4);
	ecfg.params = &p;
	ecfg.options = options;
	np = encode_all(&ecfg, r, n, pk, 32);
	dcfg.params = &p;
	dcfg.image = img;
	dcfg.options = options;
	dcfg.mtvec = TT_HANDLER;
	dec = spoor_decoder_new(&dcfg);
	CHECK(dec != NULL);
	if (!dec)
		return;
	for (unsigned i = 0; i <= np; i++) {
		if (i == np) {
			CHECK_EQ(spoor_decoder_flush(dec, true), 0);
		} else {
			CHECK_EQ(spoor_decoder_put(dec, &pk[i], i), 0);
			o->trap_packets += pk[i].v[SPOOR_TE_F_FORMAT] == SPOOR_TE_FORMAT_SYNC &&
					   pk[i].v[SPOOR_TE_F_SUBFORMAT] == SPOOR_TE_SYNC_TRAP;
		}
		while (spoor_decoder_next(dec, &it, sizeof(it)) > 0) {
			if (it.kind == SPOOR_DEC_BLOCK) {
				o->npcs = (unsigned)block_pcs(dec, &it.block, o->pcs, o->npcs, 16);
			} else if (it.event.kind == SPOOR_EV_TRAP && o->traps < 8) {
				o->cause[o->traps] = it.event.cause;
				o->epc[o->traps] = it.event.epc;
				o->has_epc[o->traps++] = it.event.has_epc;
			} else if (it.event.kind == SPOOR_EV_GAP) {
				CHECK(!"a gap");
			}
		}
	}
	spoor_decoder_free(dec);
}

/*
 * Trap after trap (the handler's first instruction faults twice, then it
 * runs): each trap is reported once and decodes to its cause and EPC, after
 * a plain instruction, at the target of a jump (uninferable, or inferred by
 * sijump), after an ecall and on the first traced instruction; the decoder
 * then starts at the handler.
 */
static void test_trap_after_trap(void)
{
	static const struct tt_case cases[] = {
		{ "illegal", { 0x1018 }, 0x101c, SPOOR_ITYPE_NONE, 2, false, false },
		{ "jump target", { 0x1000, 0x1004 }, 0x1100, SPOOR_ITYPE_UNINF_JUMP, 2, false,
		  false },
		{ "sijump target", { 0x1008, 0x100c }, 0x1100, SPOOR_ITYPE_UNINF_JUMP, 2, false,
		  true },
		{ "ecall", { 0x1010, 0x1014 }, 0x1014, SPOOR_ITYPE_EXCEPTION, 11, true, false },
		{ "first traced", { 0 }, 0x101c, SPOOR_ITYPE_NONE, 2, false, false },
	};
	static const uint32_t options[] = {
		0, SPOOR_OPT_SIJUMP, SPOOR_OPT_IMPLICIT_EXCEPTION, SPOOR_OPT_FULL_ADDRESS,
	};
	struct spoor_image *img = tt_image();
	struct tt_out o;

	CHECK(img != NULL);
	for (size_t i = 0; img && i < ARRAY_SIZE(cases); i++) {
		const struct tt_case *tc = &cases[i];

		unsigned nret = 0;

		while (nret < 3 && tc->retired[nret])
			nret++;
		for (size_t k = 0; k < ARRAY_SIZE(options); k++) {
			tt_run(tc, options[k], img, &o);
			CHECK_EQ(o.trap_packets, 3);
			CHECK_EQ(o.traps, 3);
			if (o.traps != 3) {
				fprintf(stderr, "trap after trap, %s, options 0x%x: %u traps\n",
					tc->name, options[k], o.traps);
				continue;
			}
			CHECK_EQ(o.cause[0], tc->cause);
			CHECK(o.has_epc[0] && o.epc[0] == tc->epc);
			for (unsigned t = 1; t < 3; t++) {
				CHECK_EQ(o.cause[t], 1);
				CHECK(o.has_epc[t] && o.epc[t] == TT_HANDLER);
			}
			/* The instructions before the traps, then the handler's two. */
			CHECK_EQ(o.npcs, nret + 2);
			if (o.npcs != nret + 2)
				continue;
			for (unsigned j = 0; j < nret; j++)
				CHECK_EQ(o.pcs[j], tc->retired[j]);
			CHECK_EQ(o.pcs[nret], TT_HANDLER);
			CHECK_EQ(o.pcs[nret + 1], TT_HANDLER + 4);
		}
	}
	spoor_image_free(img);
}

int main(int argc, char **argv)
{
	check_args(argc, argv,
		   "Tests for the encoder model: API, the spec's worked examples, round trips.");
	test_api();
	test_spec_examples();
	test_branch_prediction();
	test_jump_target_cache();
	test_quirks();
	test_context_notify();
	test_round_trips();
	test_trap_after_trap();
	return check_done();
}
