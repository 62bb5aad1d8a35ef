// SPDX-License-Identifier: MIT
/*
 * Tests for the te_inst codec: the spec's worked byte examples, randomized
 * encode/decode round trips over every format and parameter widths 0..64,
 * compression, status-bit meanings, and malformed input.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "params_fixture.h"
#include "rng.h"
#include "spoor/error.h"
#include "spoor/te_inst.h"

static uint64_t mask(unsigned w)
{
	return w >= 64 ? ~0ull : (1ull << w) - 1;
}

/* Decodes @bytes, then re-encodes and expects the same bytes back. */
static int decode_bytes(const struct spoor_params *p, const uint8_t *bytes, size_t len,
			struct spoor_te_inst *pkt)
{
	uint8_t out[SPOOR_TE_MAX_PAYLOAD];
	int ret = spoor_te_inst_decode(p, bytes, len, pkt);
	int n;

	CHECK(ret > 0);
	if (ret <= 0)
		return ret;
	n = spoor_te_inst_encode(p, pkt, out, sizeof(out));
	CHECK_EQ(n, len);
	CHECK(n == (int)len && !memcmp(out, bytes, len));
	return ret;
}

static void test_spec_examples(void)
{
	struct spoor_params p;
	struct spoor_te_inst pkt;

	debug_params(&p);

	/* format 1: address 0x80000104, branches 1, branch_map 0 */
	decode_bytes(&p, (const uint8_t[]){ 0x05, 0x04, 0x01, 0x00, 0x80, 0x00 }, 6, &pkt);
	CHECK_EQ(pkt.v[SPOOR_TE_F_FORMAT], 1);
	CHECK_EQ(pkt.v[SPOOR_TE_F_BRANCHES], 1);
	CHECK_EQ(pkt.v[SPOOR_TE_F_BRANCH_MAP], 0);
	CHECK_EQ(pkt.v[SPOOR_TE_F_ADDRESS], 0x80000104);
	CHECK_EQ(spoor_te_full_address(&p, pkt.v[SPOOR_TE_F_ADDRESS]), 0x80000104);
	CHECK_EQ(pkt.status, 0);

	/* format 2: address 0x8000010c */
	decode_bytes(&p, (const uint8_t[]){ 0x32, 0x04, 0x00, 0x00, 0x02 }, 5, &pkt);
	CHECK_EQ(pkt.v[SPOOR_TE_F_FORMAT], 2);
	CHECK_EQ(pkt.v[SPOOR_TE_F_ADDRESS], 0x8000010c);
	CHECK(!spoor_te_has(&pkt, SPOOR_TE_F_BRANCHES));
	CHECK(!spoor_te_has(&pkt, SPOOR_TE_F_IRDEPTH));	/* width 0 */

	/* format 3.1: ecause 2, thaddr 0, address 0x80000222, tval 0 */
	decode_bytes(&p, (const uint8_t[]){ 0x77, 0, 0, 0, 0, 0x81, 0x88, 0, 0, 0x20 }, 10, &pkt);
	CHECK_EQ(pkt.v[SPOOR_TE_F_FORMAT], 3);
	CHECK_EQ(pkt.v[SPOOR_TE_F_SUBFORMAT], SPOOR_TE_SYNC_TRAP);
	CHECK_EQ(pkt.v[SPOOR_TE_F_BRANCH], 1);
	CHECK_EQ(pkt.v[SPOOR_TE_F_PRIVILEGE], 3);
	CHECK_EQ(pkt.v[SPOOR_TE_F_CONTEXT], 0);
	CHECK_EQ(pkt.v[SPOOR_TE_F_ECAUSE], 2);
	CHECK_EQ(pkt.v[SPOOR_TE_F_INTERRUPT], 0);
	CHECK_EQ(pkt.v[SPOOR_TE_F_THADDR], 0);
	CHECK_EQ(pkt.v[SPOOR_TE_F_ADDRESS], 0x80000222);
	CHECK(spoor_te_has(&pkt, SPOOR_TE_F_TVAL));
	CHECK_EQ(pkt.v[SPOOR_TE_F_TVAL], 0);
	CHECK(!spoor_te_has(&pkt, SPOOR_TE_F_TIME));	/* notime_p */

	/*
	 * then format 3.0.  The spec annotates it "address=800001b0", but its
	 * bytes put 0x200000d8 in the address field at the bit the two other
	 * sync examples (0x80000222, 0x20010522) use: the annotation is off.
	 */
	decode_bytes(&p, (const uint8_t[]){ 0x73, 0, 0, 0, 0, 0x6c, 0, 0, 0x10 }, 9, &pkt);
	CHECK_EQ(pkt.v[SPOOR_TE_F_SUBFORMAT], SPOOR_TE_SYNC_START);
	CHECK_EQ(pkt.v[SPOOR_TE_F_BRANCH], 1);
	CHECK_EQ(pkt.v[SPOOR_TE_F_PRIVILEGE], 3);
	CHECK_EQ(pkt.v[SPOOR_TE_F_ADDRESS], 0x200000d8);

	/* timer interrupt: format 1, branches 15, map 0x5555 */
	decode_bytes(&p, (const uint8_t[]){ 0xbd, 0xaa, 0xaa, 0x68, 0, 0, 0x20 }, 7, &pkt);
	CHECK_EQ(pkt.v[SPOOR_TE_F_FORMAT], 1);
	CHECK_EQ(pkt.v[SPOOR_TE_F_BRANCHES], 15);
	CHECK_EQ(pkt.v[SPOOR_TE_F_BRANCH_MAP], 0x5555);

	/* format 3.1: ecause 7, interrupt 1, thaddr 1, address 0x800001b0, no tval */
	decode_bytes(&p, (const uint8_t[]){ 0x77, 0, 0, 0, 0x80, 0x33, 0x6c, 0, 0, 0x20 }, 10, &pkt);
	CHECK_EQ(pkt.v[SPOOR_TE_F_ECAUSE], 7);
	CHECK_EQ(pkt.v[SPOOR_TE_F_INTERRUPT], 1);
	CHECK_EQ(pkt.v[SPOOR_TE_F_THADDR], 1);
	CHECK_EQ(pkt.v[SPOOR_TE_F_ADDRESS], 0x800001b0);
	CHECK(!spoor_te_has(&pkt, SPOOR_TE_F_TVAL));

	/* support: ioptions 4 = full_address */
	decode_bytes(&p, (const uint8_t[]){ 0x1f, 0x04 }, 2, &pkt);
	CHECK_EQ(pkt.v[SPOOR_TE_F_SUBFORMAT], SPOOR_TE_SYNC_SUPPORT);
	CHECK_EQ(pkt.v[SPOOR_TE_F_IENABLE], 1);
	CHECK_EQ(pkt.v[SPOOR_TE_F_ENCODER_MODE], 0);
	CHECK_EQ(pkt.v[SPOOR_TE_F_QUAL_STATUS], 0);
	CHECK_EQ(pkt.v[SPOOR_TE_F_IOPTIONS], 4);
	CHECK_EQ((pkt.v[SPOOR_TE_F_IOPTIONS] >> p.ioption_bit[SPOOR_IOPT_FULL_ADDRESS]) & 1, 1);

	/* start: address 0x20010522 */
	decode_bytes(&p, (const uint8_t[]){ 0x73, 0, 0, 0, 0, 0x91, 0x82, 0, 0x10 }, 9, &pkt);
	CHECK_EQ(pkt.v[SPOOR_TE_F_ADDRESS], 0x20010522);
}

/* Status bits: notify/updiscon/irreport meanings survive a round trip. */
static void test_status_bits(void)
{
	struct spoor_params p;
	struct spoor_te_inst pkt, back;
	uint8_t buf[SPOOR_TE_MAX_PAYLOAD];
	int n;

	debug_params(&p);
	p.return_stack_size_p = 2;	/* irdepth: 3 bits */
	for (uint32_t st = 0; st < 8; st++) {
		for (int neg = 0; neg < 2; neg++) {
			memset(&pkt, 0, sizeof(pkt));
			spoor_te_set(&pkt, SPOOR_TE_F_FORMAT, SPOOR_TE_FORMAT_ADDR);
			spoor_te_set(&pkt, SPOOR_TE_F_ADDRESS, neg ? ~0x40ull : 0x40);
			CHECK_EQ(spoor_te_inst_set_status(&p, &pkt, st, 5), 0);
			n = spoor_te_inst_encode(&p, &pkt, buf, sizeof(buf));
			CHECK(n > 0);
			CHECK(spoor_te_inst_decode(&p, buf, (size_t)n, &back) > 0);
			CHECK_EQ(back.status, st);
			CHECK_EQ(back.v[SPOOR_TE_F_IRDEPTH], (st & SPOOR_TE_IRREPORT) ? 5 :
				 pkt.v[SPOOR_TE_F_IRDEPTH]);
			/* Unreported irdepth copies the bit before it: compresses away. */
			if (!(st & SPOOR_TE_IRREPORT))
				CHECK_EQ(back.v[SPOOR_TE_F_IRDEPTH],
					 back.v[SPOOR_TE_F_UPDISCON] ? 7 : 0);
		}
	}
	/* Nothing set: a small positive delta packs into one byte. */
	memset(&pkt, 0, sizeof(pkt));
	spoor_te_set(&pkt, SPOOR_TE_F_FORMAT, SPOOR_TE_FORMAT_ADDR);
	spoor_te_set(&pkt, SPOOR_TE_F_ADDRESS, 0xc);
	spoor_te_inst_set_status(&p, &pkt, 0, 0);
	CHECK_EQ(spoor_te_inst_encode(&p, &pkt, buf, sizeof(buf)), 1);
	CHECK_EQ(buf[0], 0x32);
	/* The reference encoder's all-ones irdepth costs bytes but decodes. */
	spoor_te_inst_set_status(&p, &pkt, SPOOR_TE_IRDEPTH_ONES, 0);
	CHECK_EQ(pkt.v[SPOOR_TE_F_IRDEPTH], 7);
	n = spoor_te_inst_encode(&p, &pkt, buf, sizeof(buf));
	CHECK(n > 1);
	CHECK(spoor_te_inst_decode(&p, buf, (size_t)n, &back) > 0);
	CHECK_EQ(back.status, 0);

	/* Jump target cache: irreport follows branch_map's or branches' MSB. */
	p.cache_size_p = 3;
	for (unsigned branches = 0; branches < 32; branches += 5) {
		memset(&pkt, 0, sizeof(pkt));
		spoor_te_set(&pkt, SPOOR_TE_F_FORMAT, SPOOR_TE_FORMAT_EXT);
		spoor_te_set(&pkt, SPOOR_TE_F_INDEX, 5);
		spoor_te_set(&pkt, SPOOR_TE_F_BRANCHES, branches);
		if (branches)
			spoor_te_set(&pkt, SPOOR_TE_F_BRANCH_MAP,
				     mask(spoor_te_branch_map_width(branches)) & 0x5555555);
		CHECK_EQ(spoor_te_inst_set_status(&p, &pkt, SPOOR_TE_IRREPORT, 3), 0);
		n = spoor_te_inst_encode(&p, &pkt, buf, sizeof(buf));
		CHECK(n > 0 && spoor_te_inst_decode(&p, buf, (size_t)n, &back) > 0);
		CHECK_EQ(back.status, SPOOR_TE_IRREPORT);
		CHECK_EQ(back.v[SPOOR_TE_F_IRDEPTH], 3);
		CHECK_EQ(back.v[SPOOR_TE_F_INDEX], 5);
		CHECK_EQ(back.v[SPOOR_TE_F_SUBFORMAT], SPOOR_TE_EXT_JTC);
		CHECK(!spoor_te_has(&back, SPOOR_TE_F_SUBFORMAT));	/* f0s_width_p 0 */
	}
}

/* Random parameters: every width from 0 to 64, iaddress_lsb_p 0..2. */
static void random_params(struct spoor_params *p)
{
	spoor_params_init(p);
	p->iaddress_width_p = 3 + rnd_below(62);
	p->iaddress_lsb_p = rnd_below(3);
	p->context_width_p = rnd_below(65);
	p->nocontext_p = rnd_below(4) == 0;
	p->time_width_p = rnd_below(65);
	p->notime_p = rnd_below(2);
	p->ecause_width_p = rnd_below(65);
	p->privilege_width_p = rnd_below(65);
	p->return_stack_size_p = rnd_below(3) ? rnd_below(8) : 0;
	p->call_counter_size_p = rnd_below(2) ? rnd_below(10) : 0;
	p->bpred_size_p = rnd_below(2) ? 1 + rnd_below(8) : 0;
	p->cache_size_p = rnd_below(2) ? 1 + rnd_below(10) : 0;
	p->f0s_width_p = (p->bpred_size_p && p->cache_size_p) || rnd_below(3) == 0 ?
			 1 + rnd_below(3) : 0;
	p->encoder_mode_width_p = rnd_below(4);
	p->ioptions_width_p = 5 + rnd_below(60);
	p->support_data_p = rnd_below(2);
	p->doptions_width_p = rnd_below(65);
	CHECK_EQ(spoor_params_check(p, NULL), 0);
}

static void set_rand(struct spoor_te_inst *pkt, enum spoor_te_field f, unsigned w)
{
	spoor_te_set(pkt, f, rnd() & mask(w));
	/* Long runs of equal bits exercise compression. */
	if (rnd_below(4) == 0)
		pkt->v[f] = 0;
	else if (rnd_below(4) == 0)
		pkt->v[f] = mask(w);
}

static void set_addr_status(const struct spoor_params *p, struct spoor_te_inst *pkt)
{
	set_rand(pkt, SPOOR_TE_F_ADDRESS, spoor_params_address_width(p));
	set_rand(pkt, SPOOR_TE_F_NOTIFY, 1);
	set_rand(pkt, SPOOR_TE_F_UPDISCON, 1);
	set_rand(pkt, SPOOR_TE_F_IRREPORT, 1);
	set_rand(pkt, SPOOR_TE_F_IRDEPTH, spoor_params_irdepth_width(p));
}

/* A random packet of format @fmt / subformat @sf; false if impossible. */
static bool random_packet(const struct spoor_params *p, unsigned fmt, unsigned sf,
			  struct spoor_te_inst *pkt)
{
	unsigned aw = spoor_params_address_width(p);

	memset(pkt, 0, sizeof(*pkt));
	spoor_te_set(pkt, SPOOR_TE_F_FORMAT, fmt);
	if (fmt == 3) {
		spoor_te_set(pkt, SPOOR_TE_F_SUBFORMAT, sf);
		if (sf == 3) {
			set_rand(pkt, SPOOR_TE_F_IENABLE, 1);
			set_rand(pkt, SPOOR_TE_F_ENCODER_MODE, p->encoder_mode_width_p);
			set_rand(pkt, SPOOR_TE_F_QUAL_STATUS, 2);
			set_rand(pkt, SPOOR_TE_F_IOPTIONS, p->ioptions_width_p);
			set_rand(pkt, SPOOR_TE_F_DENABLE, 1);
			set_rand(pkt, SPOOR_TE_F_DLOSS, 1);
			set_rand(pkt, SPOOR_TE_F_DOPTIONS, p->doptions_width_p);
			return true;
		}
		if (sf != 2)
			set_rand(pkt, SPOOR_TE_F_BRANCH, 1);
		set_rand(pkt, SPOOR_TE_F_PRIVILEGE, p->privilege_width_p);
		set_rand(pkt, SPOOR_TE_F_TIME, spoor_params_time_width(p));
		set_rand(pkt, SPOOR_TE_F_CONTEXT, spoor_params_context_width(p));
		if (sf == 1) {
			set_rand(pkt, SPOOR_TE_F_ECAUSE, p->ecause_width_p);
			set_rand(pkt, SPOOR_TE_F_INTERRUPT, 1);
			set_rand(pkt, SPOOR_TE_F_THADDR, 1);
			set_rand(pkt, SPOOR_TE_F_TVAL, p->iaddress_width_p);
		}
		if (sf < 2)
			set_rand(pkt, SPOOR_TE_F_ADDRESS, aw);
		return true;
	}
	if (fmt == 2) {
		set_addr_status(p, pkt);
		return true;
	}
	if (fmt == 1) {
		unsigned branches = rnd_below(32);

		spoor_te_set(pkt, SPOOR_TE_F_BRANCHES, branches);
		set_rand(pkt, SPOOR_TE_F_BRANCH_MAP, spoor_te_branch_map_width(branches));
		if (branches)
			set_addr_status(p, pkt);
		return true;
	}
	/* Format 0. */
	if ((sf == 0 && !p->bpred_size_p) || (sf == 1 && !p->cache_size_p))
		return false;
	if (!p->f0s_width_p && spoor_te_ext_subformat(p) != (int)sf)
		return false;
	spoor_te_set(pkt, SPOOR_TE_F_SUBFORMAT, sf);
	if (sf == 0) {
		static const unsigned fmts[] = { 0, 2, 3 };

		set_rand(pkt, SPOOR_TE_F_BRANCH_COUNT, 32);
		spoor_te_set(pkt, SPOOR_TE_F_BRANCH_FMT, fmts[rnd_below(3)]);
		if (pkt->v[SPOOR_TE_F_BRANCH_FMT])
			set_addr_status(p, pkt);
	} else {
		unsigned branches = rnd_below(32);

		set_rand(pkt, SPOOR_TE_F_INDEX, p->cache_size_p);
		spoor_te_set(pkt, SPOOR_TE_F_BRANCHES, branches);
		if (branches)
			set_rand(pkt, SPOOR_TE_F_BRANCH_MAP, spoor_te_branch_map_width(branches));
		set_rand(pkt, SPOOR_TE_F_IRREPORT, 1);
		set_rand(pkt, SPOOR_TE_F_IRDEPTH, spoor_params_irdepth_width(p));
	}
	return true;
}

/* Fields of width 0 are not transmitted: drop them from the expectation. */
static void expected_present(const struct spoor_te_inst *in, const struct spoor_te_inst *out,
			     uint32_t *want)
{
	*want = in->present;
	for (int f = 0; f < SPOOR_TE_NFIELDS; f++)
		if ((in->present >> f) & 1 && !((out->present >> f) & 1))
			*want &= ~(1u << f);
}

static void test_round_trip(void)
{
	unsigned failures = 0, packets = 0;

	for (int iter = 0; iter < 4000; iter++) {
		struct spoor_params p;
		uint8_t buf[SPOOR_TE_MAX_PAYLOAD], again[SPOOR_TE_MAX_PAYLOAD];

		random_params(&p);
		for (unsigned fmt = 0; fmt < 4; fmt++) {
			for (unsigned sf = 0; sf < (fmt == 3 ? 4u : fmt == 0 ? 2u : 1u); sf++) {
				struct spoor_te_inst pkt, back;
				uint32_t want;
				int n, used, n2;
				bool ok = true;

				if (!random_packet(&p, fmt, sf, &pkt))
					continue;
				packets++;
				n = spoor_te_inst_encode(&p, &pkt, buf, sizeof(buf));
				if (n <= 0) {
					failures++;
					continue;
				}
				used = spoor_te_inst_decode(&p, buf, (size_t)n, &back);
				if (used <= 0 || used + 8 <= n * 8) {
					failures++;
					continue;
				}
				expected_present(&pkt, &back, &want);
				ok = back.present == want;
				for (int f = 0; ok && f < SPOOR_TE_NFIELDS; f++)
					if ((want >> f) & 1)
						ok = back.v[f] == pkt.v[f];
				/* Re-encoding what was decoded is byte-identical. */
				n2 = spoor_te_inst_encode(&p, &back, again, sizeof(again));
				ok = ok && n2 == n && !memcmp(buf, again, (size_t)n);
				/* Compression is minimal: no redundant sign byte. */
				if (n > 1) {
					uint8_t last = buf[n - 1], prev_msb = buf[n - 2] >> 7;

					ok = ok && !(last == (prev_msb ? 0xff : 0x00));
				}
				if (!ok) {
					failures++;
					if (failures < 5)
						fprintf(stderr, "round trip failed: fmt %u sf %u\n",
							fmt, sf);
				}
			}
		}
	}
	CHECK_EQ(failures, 0);
	CHECK(packets > 20000);
}

static void test_malformed(void)
{
	struct spoor_params p;
	struct spoor_te_inst pkt;
	uint8_t buf[SPOOR_TE_MAX_PAYLOAD + 4] = { 0 };

	debug_params(&p);
	CHECK_EQ(spoor_te_inst_decode(NULL, buf, 1, &pkt), SPOOR_E_INVAL);
	CHECK_EQ(spoor_te_inst_decode(&p, NULL, 1, &pkt), SPOOR_E_INVAL);
	CHECK_EQ(spoor_te_inst_decode(&p, buf, 1, NULL), SPOOR_E_INVAL);
	CHECK_EQ(spoor_te_inst_decode(&p, buf, 0, &pkt), SPOOR_E_TRUNCATED);
	/* Format 0 needs a branch predictor or a jump target cache. */
	CHECK_EQ(spoor_te_inst_decode(&p, (const uint8_t[]){ 0x00 }, 1, &pkt), SPOOR_E_BAD_FORMAT);
	/* A format 2 packet with trailing zero bytes: corrupt length. */
	CHECK_EQ(spoor_te_inst_decode(&p, (const uint8_t[]){ 0x32, 0x04, 0, 0, 0x02, 0, 0, 0, 0, 0,
							      0, 0 }, 12, &pkt), SPOOR_E_TRAILING);
	CHECK_EQ(spoor_te_inst_decode(&p, buf, sizeof(buf), &pkt), SPOOR_E_TRAILING);
	/* branch_fmt 1 is reserved. */
	p.bpred_size_p = 2;
	memset(&pkt, 0, sizeof(pkt));
	buf[0] = 0x00;		/* format 0, branch_count bits 2.. */
	buf[1] = buf[2] = buf[3] = 0;
	buf[4] = 0x04;		/* branch_fmt at bits 34..35 = 01 */
	CHECK_EQ(spoor_te_inst_decode(&p, buf, 5, &pkt), SPOOR_E_BAD_FIELD);
	/* f0s subformat 2 or 3 is unknown. */
	p.cache_size_p = 2;
	p.f0s_width_p = 2;
	CHECK_EQ(spoor_te_inst_decode(&p, (const uint8_t[]){ 0x08 }, 1, &pkt), SPOOR_E_BAD_FORMAT);

	/* Encoding: missing fields, too-wide values, small buffers. */
	debug_params(&p);
	memset(&pkt, 0, sizeof(pkt));
	spoor_te_set(&pkt, SPOOR_TE_F_FORMAT, SPOOR_TE_FORMAT_ADDR);
	CHECK_EQ(spoor_te_inst_encode(&p, &pkt, buf, sizeof(buf)), SPOOR_E_INVAL);
	spoor_te_set(&pkt, SPOOR_TE_F_ADDRESS, 0x1234);
	spoor_te_inst_set_status(&p, &pkt, 0, 0);
	CHECK_EQ(spoor_te_inst_encode(&p, &pkt, buf, 0), SPOOR_E_NOSPACE);
	CHECK_EQ(spoor_te_inst_encode(&p, &pkt, buf, 1), SPOOR_E_NOSPACE);
	CHECK_EQ(spoor_te_inst_encode(&p, &pkt, buf, 2), 2);
	pkt.v[SPOOR_TE_F_NOTIFY] = 2;
	CHECK_EQ(spoor_te_inst_encode(&p, &pkt, buf, sizeof(buf)), SPOOR_E_INVAL);
	pkt.v[SPOOR_TE_F_NOTIFY] = 0;
	pkt.v[SPOOR_TE_F_FORMAT] = 4;
	CHECK_EQ(spoor_te_inst_encode(&p, &pkt, buf, sizeof(buf)), SPOOR_E_INVAL);
	pkt.v[SPOOR_TE_F_FORMAT] = 0;
	CHECK_EQ(spoor_te_inst_encode(&p, &pkt, buf, sizeof(buf)), SPOOR_E_BAD_FORMAT);
	CHECK_EQ(spoor_te_inst_encode(NULL, &pkt, buf, sizeof(buf)), SPOOR_E_INVAL);
	CHECK_EQ(spoor_te_inst_set_status(&p, NULL, 0, 0), SPOOR_E_INVAL);
}

/* Every byte string decodes to an error or to fields that re-encode. */
static void test_random_bytes(void)
{
	struct spoor_params p;
	unsigned bad = 0;

	for (int iter = 0; iter < 20000; iter++) {
		uint8_t in[40], out[SPOOR_TE_MAX_PAYLOAD];
		struct spoor_te_inst pkt, back;
		bool same;
		size_t len = 1 + rnd_below(sizeof(in));
		int used, n;

		if (iter % 64 == 0)
			random_params(&p);
		for (size_t i = 0; i < len; i++)
			in[i] = (uint8_t)rnd();
		used = spoor_te_inst_decode(&p, in, len, &pkt);
		if (used < 0)
			continue;
		n = spoor_te_inst_encode(&p, &pkt, out, sizeof(out));
		same = n > 0 && spoor_te_inst_decode(&p, out, (size_t)n, &back) == used &&
			    back.present == pkt.present && back.status == pkt.status;

		for (int f = 0; same && f < SPOOR_TE_NFIELDS; f++)
			if (spoor_te_has(&pkt, f))
				same = back.v[f] == pkt.v[f];
		if (!same) {
			if (bad++ < 3)
				fprintf(stderr, "random bytes: n %d used %d fmt %u\n", n, used,
					(unsigned)pkt.v[0]);
		}
	}
	CHECK_EQ(bad, 0);
}

/* True when @a and @b (both from decoding the same payload, returning @used) agree. */
static bool same_decode(const struct spoor_te_inst *a, const struct spoor_te_inst *b, int used)
{
	if (used < 0)
		return true;	/* the packet is unspecified after an error */
	if (a->present != b->present || a->status != b->status)
		return false;
	for (int f = 0; f < SPOOR_TE_NFIELDS; f++)
		if (spoor_te_has(a, f) && a->v[f] != b->v[f])
			return false;
	return true;
}

/*
 * Writes a payload at @buf (room for SPOOR_TE_MAX_PAYLOAD bytes): mostly a
 * random packet, formats 1 and 2 the most often as in a trace, sometimes
 * random bytes.  Returns its length.
 */
static size_t random_payload(const struct spoor_params *p, uint8_t *buf)
{
	static const unsigned fmts[] = { 1, 1, 1, 2, 2, 3, 0 };
	struct spoor_te_inst pkt;
	unsigned fmt = fmts[rnd_below(7)];
	size_t len;
	int n;

	if (rnd_below(8) && random_packet(p, fmt, rnd_below(fmt == 3 ? 4 : 2), &pkt)) {
		if (fmt != 3)
			spoor_te_inst_set_status(p, &pkt, (uint32_t)rnd_below(8),
						 rnd() & mask(spoor_params_irdepth_width(p)));
		n = spoor_te_inst_encode(p, &pkt, buf, SPOOR_TE_MAX_PAYLOAD);
		if (n > 0)
			return (size_t)n;
	}
	len = 1 + rnd_below(rnd_below(2) ? 8 : 40);
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)rnd();
	return len;
}

/*
 * spoor_te_inst_decode_room() with bytes to spare after the payload, and
 * spoor_te_inst_decode_frames() on batches of frames, give what
 * spoor_te_inst_decode() gives payload by payload; frames that carry no
 * te_inst packet are reported as 0 and their packets left alone.
 */
static void test_decode_room_and_frames(void)
{
	enum { MAXN = 100 };
	static uint8_t buf[MAXN * (SPOOR_TE_MAX_PAYLOAD + 16)];
	static struct spoor_frame fr[MAXN];
	static struct spoor_te_inst got[MAXN], want;
	struct spoor_params p;
	unsigned bad_room = 0, bad_batch = 0, packets = 0, short_ok = 0;
	int used[MAXN];

	for (int iter = 0; iter < 1500; iter++) {
		size_t n = 1 + rnd_below(MAXN), pos = 0;

		random_params(&p);
		for (size_t i = 0; i < n; i++) {
			size_t len = random_payload(&p, buf + pos), spare = rnd_below(16);

			/* the bytes after the payload are junk: they must not matter */
			for (size_t j = 0; j < spare; j++)
				buf[pos + len + j] = (uint8_t)rnd();
			memset(&fr[i], 0, sizeof(fr[i]));
			fr[i].msg = rnd_below(16) ? SPOOR_MSG_TE_INST : SPOOR_MSG_TE_DATA;
			fr[i].payload = buf + pos;
			fr[i].payload_len = (uint32_t)len;
			fr[i].payload_room = (uint32_t)(len + spare);
			pos += len + spare;
		}
		memset(got, 0x5a, sizeof(got));
		CHECK_EQ(spoor_te_inst_decode_frames(&p, 0, fr, n, got, used), 0);
		for (size_t i = 0; i < n; i++) {
			struct spoor_te_inst room;
			int ref = spoor_te_inst_decode(&p, fr[i].payload, fr[i].payload_len, &want);
			int r = spoor_te_inst_decode_room(&p, 0, fr[i].payload, fr[i].payload_len,
							  fr[i].payload_room, &room);

			packets++;
			if (r != ref || !same_decode(&room, &want, ref))
				bad_room++;
			if (fr[i].msg != SPOOR_MSG_TE_INST) {
				struct spoor_te_inst untouched;

				memset(&untouched, 0x5a, sizeof(untouched));
				if (used[i] != 0 || memcmp(&got[i], &untouched, sizeof(untouched)))
					bad_batch++;
				continue;
			}
			if (used[i] != ref || !same_decode(&got[i], &want, ref)) {
				if (bad_batch++ < 3)
					fprintf(stderr, "decode_frames: frame %zu of %zu: %d, want %d\n",
						i, n, used[i], ref);
			}
			short_ok += ref > 0 && fr[i].payload_len <= 8 &&
				    (want.v[SPOOR_TE_F_FORMAT] == 1 || want.v[SPOOR_TE_F_FORMAT] == 2);
		}
	}
	CHECK_EQ(bad_room, 0);
	CHECK_EQ(bad_batch, 0);
	/* the fast paths were exercised, not only the walker */
	CHECK(short_ok > packets / 4);
	CHECK_EQ(spoor_te_inst_decode_frames(NULL, 0, fr, 1, got, used), SPOOR_E_INVAL);
	CHECK_EQ(spoor_te_inst_decode_frames(&p, 0, NULL, 1, got, used), SPOOR_E_INVAL);
	CHECK_EQ(spoor_te_inst_decode_frames(&p, 0, fr, 1, NULL, used), SPOOR_E_INVAL);
	CHECK_EQ(spoor_te_inst_decode_frames(&p, 0, fr, 1, got, NULL), SPOOR_E_INVAL);
	CHECK_EQ(spoor_te_inst_decode_frames(&p, 0, NULL, 0, NULL, NULL), 0);
	CHECK_EQ(spoor_te_inst_decode_room(&p, 0, buf, 4, 3, &want), SPOOR_E_INVAL);
}

/* Implicit exception: a trap packet with thaddr 1 carries no address. */
static void test_implicit_exception(void)
{
	struct spoor_params p;
	struct spoor_te_inst pkt, back;
	uint8_t a[SPOOR_TE_MAX_PAYLOAD], b[SPOOR_TE_MAX_PAYLOAD];
	int na, nb;

	debug_params(&p);
	for (unsigned thaddr = 0; thaddr < 2; thaddr++) {
		memset(&pkt, 0, sizeof(pkt));
		spoor_te_set(&pkt, SPOOR_TE_F_FORMAT, SPOOR_TE_FORMAT_SYNC);
		spoor_te_set(&pkt, SPOOR_TE_F_SUBFORMAT, SPOOR_TE_SYNC_TRAP);
		spoor_te_set(&pkt, SPOOR_TE_F_BRANCH, 1);
		spoor_te_set(&pkt, SPOOR_TE_F_PRIVILEGE, 3);
		spoor_te_set(&pkt, SPOOR_TE_F_CONTEXT, 0);
		spoor_te_set(&pkt, SPOOR_TE_F_ECAUSE, 2);
		spoor_te_set(&pkt, SPOOR_TE_F_INTERRUPT, 0);
		spoor_te_set(&pkt, SPOOR_TE_F_THADDR, thaddr);
		spoor_te_set(&pkt, SPOOR_TE_F_ADDRESS, 0x80000222);
		spoor_te_set(&pkt, SPOOR_TE_F_TVAL, 0x1234);
		na = spoor_te_inst_encode_layout(&p, SPOOR_TE_IMPLICIT_EXCEPTION, &pkt, a, sizeof(a));
		nb = spoor_te_inst_encode(&p, &pkt, b, sizeof(b));
		CHECK(na > 0 && nb > 0);
		/* Without the address the packet is shorter, and only then. */
		CHECK(thaddr ? na < nb : na == nb && !memcmp(a, b, (size_t)na));
		CHECK(spoor_te_inst_decode_layout(&p, SPOOR_TE_IMPLICIT_EXCEPTION, a, (size_t)na,
						  &back) > 0);
		CHECK_EQ(spoor_te_has(&back, SPOOR_TE_F_ADDRESS), !thaddr);
		CHECK_EQ(back.v[SPOOR_TE_F_TVAL], 0x1234);
		CHECK_EQ(back.v[SPOOR_TE_F_ECAUSE], 2);
	}
}

static void test_addresses(void)
{
	struct spoor_params p;

	spoor_params_init(&p);
	p.iaddress_width_p = 64;
	p.iaddress_lsb_p = 1;
	/* 0x7ffffffffffffff9 in 63 bits is -7 halfwords. */
	CHECK_EQ(spoor_te_diff_address(&p, 0x7ffffffffffffff9ull), -14);
	CHECK_EQ(spoor_te_full_address(&p, 0x800), 0x1000);
	p.iaddress_width_p = 32;
	CHECK_EQ(spoor_te_diff_address(&p, 0x7ffffff9ull), -14);
	CHECK_EQ(spoor_te_diff_address(&p, 0x10), 0x20);
	CHECK_EQ(spoor_te_full_address(&p, 0x7fffffff), 0xfffffffe);
	CHECK(!strcmp(spoor_te_field_name(SPOOR_TE_F_BRANCH_MAP), "branch_map"));
	CHECK(spoor_te_field_name(SPOOR_TE_NFIELDS) == NULL);
	CHECK(spoor_te_field_is_hex(SPOOR_TE_F_TVAL));
	CHECK(!spoor_te_field_is_hex(SPOOR_TE_F_CONTEXT));
	CHECK_EQ(spoor_te_branch_map_width(0), 31);
	CHECK_EQ(spoor_te_branch_map_width(2), 3);
	CHECK_EQ(spoor_te_branch_map_width(8), 15);
	CHECK_EQ(spoor_te_branch_map_width(16), 31);
}

int main(int argc, char **argv)
{
	check_args(argc, argv,
		   "Tests for the te_inst codec: the spec's worked byte examples and randomized round trips.");
	test_spec_examples();
	test_status_bits();
	test_round_trip();
	test_malformed();
	test_random_bytes();
	test_decode_room_and_frames();
	test_implicit_exception();
	test_addresses();
	return check_done();
}
