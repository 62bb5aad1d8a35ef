// SPDX-License-Identifier: MIT
/*
 * Tests for the reconstruction decoder: the API contract, what blocks and
 * events say, resynchronisation after corrupt packets, and the output queue.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "check.h"
#include "rng.h"
#include "spoor/config_file.h"
#include "spoor/decoder.h"
#include "spoor/error.h"

/* One reference test: its packets, its program and its expected PCs. */
struct vector {
	struct spoor_params params;
	struct spoor_image *img;
	struct spoor_te_inst *pkts;
	uint64_t *offsets;
	size_t npkts;
	uint64_t *pcs;
	size_t npcs;
};

/* What a run of the decoder produced. */
struct result {
	uint64_t *pcs;
	size_t npcs, cap;
	size_t blocks, gaps, syncs, traps, max_queue_run;
	int first_gap;
	bool blocks_ok;		/* every block consistent with its instructions */
};

static void push_pc(struct result *r, uint64_t pc)
{
	if (r->npcs == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 4096;
		r->pcs = realloc(r->pcs, r->cap * sizeof(*r->pcs));
		if (!r->pcs)
			abort();
	}
	r->pcs[r->npcs++] = pc;
}

/* Reads the gzipped PC list @path. */
static bool read_pcs(const char *path, struct vector *v)
{
	gzFile f = gzopen(path, "rb");
	char line[64];
	size_t cap = 0;

	if (!f)
		return false;
	while (gzgets(f, line, sizeof(line))) {
		if (v->npcs == cap) {
			cap = cap ? 2 * cap : 4096;
			v->pcs = realloc(v->pcs, cap * sizeof(*v->pcs));
			if (!v->pcs)
				abort();
		}
		v->pcs[v->npcs++] = strtoull(line, NULL, 16);
	}
	gzclose(f);
	return v->npcs > 0;
}

/* Reads the raw stream @path into packets (header: length in bits 4:0). */
static bool read_packets(const char *path, struct vector *v)
{
	static uint8_t buf[1 << 20];
	FILE *f = fopen(path, "rb");
	size_t len, i = 0;

	if (!f)
		return false;
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	v->pkts = calloc(len, sizeof(*v->pkts));
	v->offsets = calloc(len, sizeof(*v->offsets));
	while (i < len) {
		size_t n = buf[i] & 0x1f;

		if (!n || i + 1 + n > len ||
		    spoor_te_inst_decode(&v->params, buf + i + 1, n, &v->pkts[v->npkts]) < 0)
			return false;
		v->offsets[v->npkts++] = i;
		i += 1 + n;
	}
	return true;
}

static bool load_vector(const char *suite, const char *test, struct vector *v)
{
	char path[512];
	struct spoor_diag d;

	memset(v, 0, sizeof(*v));
	spoor_params_init(&v->params);
	snprintf(path, sizeof(path), SPOOR_VECTORS "/%s/hardware_64.scf", suite);
	if (spoor_params_load(&v->params, path, &d))
		return false;
	v->img = spoor_image_new();
	snprintf(path, sizeof(path), SPOOR_VECTORS "/elf/%s.riscv", test);
	if (!v->img || spoor_image_add_elf(v->img, path, 0, &d) ||
	    spoor_image_add_spike_rom(v->img, 64))
		return false;
	snprintf(path, sizeof(path), SPOOR_VECTORS "/%s/%s.te_inst_raw", suite, test);
	if (!read_packets(path, v))
		return false;
	snprintf(path, sizeof(path), SPOOR_VECTORS "/%s/%s.decoder.trace.gz", suite, test);
	return read_pcs(path, v);
}

static void free_vector(struct vector *v)
{
	spoor_image_free(v->img);
	free(v->pkts);
	free(v->offsets);
	free(v->pcs);
}

/* Checks one block against the program: lengths, its end and next address. */
static bool block_ok(struct spoor_decoder *dec, const struct spoor_block *b, struct result *r)
{
	struct spoor_insn in;
	uint64_t a = b->start;

	for (uint64_t i = 0; i < b->ninsn; i++) {
		if (spoor_decoder_insn(dec, a, &in))
			return false;
		push_pc(r, a);
		/* Only the last instruction of a block may change the flow. */
		if (i + 1 < b->ninsn && in.cls != SPOOR_INSN_SEQ)
			return false;
		if (i + 1 < b->ninsn)
			a += in.len;
	}
	if (a != b->last || in.len != b->last_len)
		return false;
	switch (b->end) {
	case SPOOR_BLK_TAKEN:
		return in.cls == SPOOR_INSN_BRANCH && b->next == b->last + (uint64_t)in.imm;
	case SPOOR_BLK_NOT_TAKEN:
		return in.cls == SPOOR_INSN_BRANCH && b->next == b->last + in.len;
	case SPOOR_BLK_JUMP:
		return in.cls == SPOOR_INSN_JUMP;
	case SPOOR_BLK_UNINFERABLE:
		return in.cls == SPOOR_INSN_JALR || in.cls == SPOOR_INSN_XRET;
	case SPOOR_BLK_ECALL:
		return in.cls == SPOOR_INSN_ECALL;
	default:
		return true;
	}
}

/* Runs @v's packets (packet @corrupt replaced by @bad when non-NULL). */
static void run(struct vector *v, size_t corrupt, const struct spoor_te_inst *bad,
		struct result *r)
{
	struct spoor_decoder_config cfg = {
		.params = &v->params, .image = v->img, .compat = SPOOR_COMPAT_REFERENCE,
	};
	struct spoor_decoder *dec = spoor_decoder_new(&cfg);
	struct spoor_dec_item it;
	int ret;

	memset(r, 0, sizeof(*r));
	r->blocks_ok = true;
	r->first_gap = 0;
	CHECK(dec != NULL);
	if (!dec)
		return;
	for (size_t i = 0; i <= v->npkts; i++) {
		size_t run_len = 0;

		if (i == v->npkts)
			CHECK_EQ(spoor_decoder_flush(dec, true), 0);
		else
			CHECK_EQ(spoor_decoder_put(dec, bad && i == corrupt ? bad : &v->pkts[i],
						   v->offsets[i]), 0);
		while ((ret = spoor_decoder_next(dec, &it, sizeof(it))) > 0) {
			run_len++;
			if (it.kind == SPOOR_DEC_BLOCK) {
				r->blocks++;
				if (!block_ok(dec, &it.block, r))
					r->blocks_ok = false;
			} else if (it.event.kind == SPOOR_EV_GAP) {
				if (!r->gaps++)
					r->first_gap = it.event.reason;
			} else if (it.event.kind == SPOOR_EV_SYNC) {
				r->syncs++;
			} else if (it.event.kind == SPOOR_EV_TRAP) {
				r->traps++;
			}
		}
		CHECK_EQ(ret, 0);
		if (run_len > r->max_queue_run)
			r->max_queue_run = run_len;
	}
	spoor_decoder_free(dec);
}

/* The library reproduces the reference PCs, in consistent blocks. */
static void test_reference(void)
{
	static const char *const tests[][2] = {
		{ "itype3_basic", "br_j_asm" }, { "itype3_basic", "towers" },
		{ "itype3_debug", "qsort" }, { "itype4_debug", "median" },
	};

	for (size_t t = 0; t < sizeof(tests) / sizeof(tests[0]); t++) {
		struct vector v;
		struct result r;

		CHECK(load_vector(tests[t][0], tests[t][1], &v));
		run(&v, 0, NULL, &r);
		CHECK(r.blocks_ok);
		CHECK_EQ(r.gaps, 0);
		CHECK_EQ(r.npcs, v.npcs);
		CHECK(r.npcs == v.npcs && !memcmp(r.pcs, v.pcs, v.npcs * sizeof(*v.pcs)));
		CHECK(r.blocks > 10);
		free(r.pcs);
		free_vector(&v);
	}
}

/* Index of the first packet after @i that is a format 3 start or trap packet. */
static size_t next_sync(const struct vector *v, size_t i)
{
	for (i++; i < v->npkts; i++)
		if (v->pkts[i].v[SPOOR_TE_F_FORMAT] == SPOOR_TE_FORMAT_SYNC &&
		    v->pkts[i].v[SPOOR_TE_F_SUBFORMAT] <= SPOOR_TE_SYNC_TRAP)
			return i;
	return i;
}

/* True when @tail (n PCs) ends @all. */
static bool ends_with(const uint64_t *all, size_t nall, const uint64_t *tail, size_t n)
{
	return n <= nall && !memcmp(all + nall - n, tail, n * sizeof(*tail));
}

/*
 * A packet whose address leaves the program: a GAP, and decoding resumes at
 * the next sync packet, after which the PCs are the reference's again.
 */
static void test_resync(void)
{
	struct vector v;
	struct result r, good;
	unsigned tried = 0;

	CHECK(load_vector("itype3_debug", "towers", &v));
	run(&v, 0, NULL, &good);
	for (size_t i = 10; i < v.npkts && tried < 20; i += v.npkts / 60) {
		struct spoor_te_inst bad = v.pkts[i];
		size_t sync = next_sync(&v, i);
		size_t keep;

		if (bad.v[SPOOR_TE_F_FORMAT] != SPOOR_TE_FORMAT_ADDR || sync >= v.npkts)
			continue;
		tried++;
		bad.v[SPOOR_TE_F_ADDRESS] = 0x123456780ull;	/* no image there */
		run(&v, i, &bad, &r);
		CHECK_EQ(r.gaps, 1);
		CHECK(r.first_gap == SPOOR_E_NO_IMAGE || r.first_gap == SPOOR_E_TRACE);
		CHECK(r.blocks_ok);
		/* Everything from the sync packet on matches the clean run. */
		keep = 0;
		{
			struct result tail;
			struct vector w = v;

			/* The support packet (options), then from the sync packet on. */
			w.pkts = v.pkts + sync - 1;
			w.offsets = v.offsets + sync - 1;
			w.npkts = v.npkts - sync + 1;
			run(&w, 0, &v.pkts[0], &tail);
			keep = tail.npcs;
			CHECK(keep > 0);
			CHECK(ends_with(r.pcs, r.npcs, tail.pcs, tail.npcs));
			CHECK(ends_with(good.pcs, good.npcs, tail.pcs, tail.npcs));
			free(tail.pcs);
		}
		/* Nothing invented: fewer PCs than the clean run. */
		CHECK(r.npcs < good.npcs);
		free(r.pcs);
	}
	CHECK(tried >= 5);
	free(good.pcs);
	free_vector(&v);
}

/* Packets before the first sync: one NO_SYNC gap, then silence until a sync. */
static void test_no_sync(void)
{
	struct vector v;
	struct result r;
	struct vector w;
	size_t first;

	CHECK(load_vector("itype3_basic", "towers", &v));
	/* Start after the first sync packet, at a format 1/2 packet. */
	first = next_sync(&v, 0) + 1;
	while (first < v.npkts && v.pkts[first].v[SPOOR_TE_F_FORMAT] == SPOOR_TE_FORMAT_SYNC)
		first++;
	w = v;
	w.pkts = v.pkts + first;
	w.offsets = v.offsets + first;
	w.npkts = v.npkts - first;
	run(&w, 0, NULL, &r);
	CHECK_EQ(r.gaps, 1);
	CHECK_EQ(r.first_gap, SPOOR_E_NO_SYNC);
	CHECK(r.syncs >= 1);
	CHECK(r.blocks_ok);
	CHECK(r.npcs > 0 && ends_with(v.pcs, v.npcs, r.pcs, r.npcs));
	free(r.pcs);
	free_vector(&v);
}

/* Random packets never crash the decoder, and every run ends. */
static void test_random_packets(void)
{
	struct vector v;
	struct spoor_decoder_config cfg;
	struct spoor_decoder *dec;
	struct spoor_dec_item it;
	unsigned bad = 0;

	CHECK(load_vector("itype3_basic", "br_j_asm", &v));
	cfg = (struct spoor_decoder_config){ .params = &v.params, .image = v.img };
	dec = spoor_decoder_new(&cfg);
	CHECK(dec != NULL);
	for (unsigned i = 0; dec && i < 20000; i++) {
		struct spoor_te_inst pkt = v.pkts[rnd_below(v.npkts)];
		int ret;

		/* Mutate a field of a real packet. */
		if (rnd_below(2)) {
			unsigned f = (unsigned)rnd_below(SPOOR_TE_NFIELDS);

			if (spoor_te_has(&pkt, f))
				pkt.v[f] ^= UINT64_C(1) << rnd_below(8);
		}
		if (spoor_decoder_put(dec, &pkt, i))
			bad++;
		while ((ret = spoor_decoder_next(dec, &it, sizeof(it))) > 0)
			;
		if (ret)
			bad++;
	}
	CHECK_EQ(bad, 0);
	spoor_decoder_free(dec);
	free_vector(&v);
}

/* ---- trap after trap: the EPC rules ----------------------------------- */

#define TT_HANDLER 0x2000

/* A packet: format 3 (@sf, @addr; a trap's @cause, @tval, @thaddr) or 2 (@addr: the difference). */
static struct spoor_te_inst tt_pkt(unsigned fmt, unsigned sf, uint64_t addr, uint64_t cause,
				   uint64_t tval, bool thaddr)
{
	struct spoor_te_inst t = { 0 };

	spoor_te_set(&t, SPOOR_TE_F_FORMAT, fmt);
	spoor_te_set(&t, SPOOR_TE_F_ADDRESS, addr >> 1);
	if (fmt != SPOOR_TE_FORMAT_SYNC)
		return t;
	spoor_te_set(&t, SPOOR_TE_F_SUBFORMAT, sf);
	spoor_te_set(&t, SPOOR_TE_F_BRANCH, 1);
	spoor_te_set(&t, SPOOR_TE_F_PRIVILEGE, 3);
	if (sf == SPOOR_TE_SYNC_TRAP) {
		spoor_te_set(&t, SPOOR_TE_F_ECAUSE, cause);
		spoor_te_set(&t, SPOOR_TE_F_INTERRUPT, 0);
		spoor_te_set(&t, SPOOR_TE_F_THADDR, thaddr);
		spoor_te_set(&t, SPOOR_TE_F_TVAL, tval);
	}
	return t;
}

/*
 * Returns nothing; decodes @n packets with implicit return on, checking the
 * traps' causes and EPCs (@want: cause, epc pairs, @ntraps of them) and the
 * retired instructions (@pcs, @npcs).
 */
static void tt_check(const char *name, const struct spoor_te_inst *pk, size_t n,
		     const uint64_t *want, unsigned ntraps, const uint64_t *pcs, size_t npcs)
{
	static const uint32_t code[] = {
		[0x000 / 4] = 0x100000ef,	/* jal ra, 0x1100 */
		[0x004 / 4] = 0xc0001073,	/* csrw cycle, zero: illegal */
		[0x100 / 4] = 0x00008067,	/* ret */
		[0x200 / 4] = 0x00000073,	/* ecall */
	};
	static const uint32_t handler[] = { 0x00128293, 0x00128293, 0x0000006f };
	uint8_t bytes[sizeof(code)], hbytes[sizeof(handler)];
	struct spoor_params p;
	struct spoor_image *img = spoor_image_new();
	struct spoor_decoder_config cfg = { 0 };
	struct spoor_decoder *dec = NULL;
	struct spoor_dec_item it;
	struct result r = { 0 };
	unsigned traps = 0;

	for (size_t i = 0; i < sizeof(bytes); i++)
		bytes[i] = (uint8_t)(code[i / 4] >> (8 * (i % 4)));
	for (size_t i = 0; i < sizeof(hbytes); i++)
		hbytes[i] = (uint8_t)(handler[i / 4] >> (8 * (i % 4)));
	spoor_params_init(&p);
	p.iaddress_width_p = 64;
	p.iaddress_lsb_p = 1;
	p.itype_width_p = 4;
	p.ecause_width_p = 5;
	p.privilege_width_p = 2;
	p.return_stack_size_p = 2;
	CHECK(img && !spoor_image_add_raw(img, "code", 0x1000, bytes, sizeof(bytes)) &&
	      !spoor_image_add_raw(img, "handler", TT_HANDLER, hbytes, sizeof(hbytes)));
	cfg.params = &p;
	cfg.image = img;
	cfg.options = SPOOR_OPT_IMPLICIT_RETURN;
	if (img)
		dec = spoor_decoder_new(&cfg);
	CHECK(dec != NULL);
	for (size_t i = 0; dec && i <= n; i++) {
		if (i == n)
			CHECK_EQ(spoor_decoder_flush(dec, true), 0);
		else
			CHECK_EQ(spoor_decoder_put(dec, &pk[i], i), 0);
		while (spoor_decoder_next(dec, &it, sizeof(it)) > 0) {
			if (it.kind == SPOOR_DEC_BLOCK) {
				CHECK(block_ok(dec, &it.block, &r));
			} else if (it.event.kind == SPOOR_EV_TRAP) {
				if (traps < ntraps) {
					CHECK_EQ(it.event.cause, want[2 * traps]);
					CHECK(it.event.has_epc);
					CHECK_EQ(it.event.epc, want[2 * traps + 1]);
				}
				traps++;
			} else if (it.event.kind == SPOOR_EV_GAP) {
				fprintf(stderr, "%s: a gap at packet %zu\n", name, i);
				CHECK(!"a gap");
			}
		}
	}
	CHECK_EQ(traps, ntraps);
	CHECK_EQ(r.npcs, npcs);
	for (size_t i = 0; i < npcs && i < r.npcs; i++)
		CHECK_EQ(r.pcs[i], pcs[i]);
	free(r.pcs);
	spoor_decoder_free(dec);
	spoor_image_free(img);
}

/*
 * A trap taken before the handler's first instruction retired (thaddr 0):
 * after a return whose target trapped, each packet gives its trap's EPC
 * (pc stays at the return), and the 3.0 at the handler is where decoding
 * goes on, without taking the return from the stack; after an ecall that
 * retired, the ecall's EPC is its own address and each packet gives the
 * EPC of the trap after it (the handler's address).
 */
static void test_trap_after_trap(void)
{
	const struct spoor_te_inst ret_pk[] = {
		tt_pkt(SPOOR_TE_FORMAT_SYNC, SPOOR_TE_SYNC_START, 0x1000, 0, 0, false),
		tt_pkt(SPOOR_TE_FORMAT_ADDR, 0, 0x100, 0, 0, false),		/* the ret */
		tt_pkt(SPOOR_TE_FORMAT_SYNC, SPOOR_TE_SYNC_TRAP, 0x1004, 2, 0xc0001073, false),
		tt_pkt(SPOOR_TE_FORMAT_SYNC, SPOOR_TE_SYNC_TRAP, TT_HANDLER, 1, TT_HANDLER, false),
		tt_pkt(SPOOR_TE_FORMAT_SYNC, SPOOR_TE_SYNC_TRAP, TT_HANDLER, 1, TT_HANDLER, false),
		tt_pkt(SPOOR_TE_FORMAT_SYNC, SPOOR_TE_SYNC_START, TT_HANDLER, 0, 0, false),
		tt_pkt(SPOOR_TE_FORMAT_ADDR, 0, 4, 0, 0, false),
	};
	const struct spoor_te_inst ecall_pk[] = {
		tt_pkt(SPOOR_TE_FORMAT_SYNC, SPOOR_TE_SYNC_START, 0x1200, 0, 0, false),
		tt_pkt(SPOOR_TE_FORMAT_SYNC, SPOOR_TE_SYNC_TRAP, TT_HANDLER, 11, 0, false),
		tt_pkt(SPOOR_TE_FORMAT_SYNC, SPOOR_TE_SYNC_TRAP, TT_HANDLER, 1, TT_HANDLER, false),
		tt_pkt(SPOOR_TE_FORMAT_SYNC, SPOOR_TE_SYNC_TRAP, TT_HANDLER, 1, TT_HANDLER, true),
		tt_pkt(SPOOR_TE_FORMAT_ADDR, 0, 4, 0, 0, false),
	};
	static const uint64_t ret_traps[] = { 2, 0x1004, 1, TT_HANDLER, 1, TT_HANDLER };
	static const uint64_t ret_pcs[] = { 0x1000, 0x1100, TT_HANDLER, TT_HANDLER + 4 };
	static const uint64_t ecall_traps[] = { 11, 0x1200, 1, TT_HANDLER, 1, TT_HANDLER };
	static const uint64_t ecall_pcs[] = { 0x1200, TT_HANDLER, TT_HANDLER + 4 };

	tt_check("return", ret_pk, 7, ret_traps, 3, ret_pcs, 4);
	tt_check("ecall", ecall_pk, 5, ecall_traps, 3, ecall_pcs, 3);
}

static void test_api(void)
{
	struct vector v;
	struct spoor_decoder_config cfg = { 0 };
	struct spoor_decoder *dec;
	struct spoor_dec_item it;
	struct spoor_decoder_stats st;
	struct spoor_insn in;

	CHECK(spoor_decoder_new(NULL) == NULL);
	CHECK(spoor_decoder_new(&cfg) == NULL);
	CHECK(load_vector("itype3_basic", "br_j_asm", &v));
	cfg.params = &v.params;
	CHECK(spoor_decoder_new(&cfg) == NULL);		/* no image */
	cfg.image = v.img;
	dec = spoor_decoder_new(&cfg);
	CHECK(dec != NULL);
	CHECK_EQ(spoor_decoder_put(NULL, &v.pkts[0], 0), SPOOR_E_INVAL);
	CHECK_EQ(spoor_decoder_put(dec, NULL, 0), SPOOR_E_INVAL);
	CHECK_EQ(spoor_decoder_next(dec, NULL, sizeof(it)), SPOOR_E_INVAL);
	CHECK_EQ(spoor_decoder_next(dec, &it, sizeof(it) - 1), SPOOR_E_INVAL);
	CHECK_EQ(spoor_decoder_next(dec, &it, sizeof(it)), 0);
	CHECK_EQ(spoor_decoder_stats(dec, NULL, sizeof(st)), SPOOR_E_INVAL);
	CHECK_EQ(spoor_decoder_insn(dec, 0x1000, NULL), SPOOR_E_INVAL);
	CHECK_EQ(spoor_decoder_insn(dec, 0x4, &in), SPOOR_E_NO_IMAGE);
	CHECK_EQ(spoor_decoder_insn(dec, 0x1010, &in), 0);
	CHECK_EQ(in.cls, SPOOR_INSN_JALR);
	/* The support packet, then the sync: not drained -> busy. */
	CHECK_EQ(spoor_decoder_put(dec, &v.pkts[0], v.offsets[0]), 0);
	CHECK_EQ(spoor_decoder_put(dec, &v.pkts[1], v.offsets[1]), SPOOR_E_INVAL);
	CHECK_EQ(spoor_decoder_flush(dec, true), SPOOR_E_INVAL);
	while (spoor_decoder_next(dec, &it, sizeof(it)) > 0)
		;
	CHECK_EQ(spoor_decoder_put(dec, &v.pkts[1], v.offsets[1]), 0);
	while (spoor_decoder_next(dec, &it, sizeof(it)) > 0)
		;
	/* A non-final flush hands out the open block's instructions so far ... */
	CHECK_EQ(spoor_decoder_flush(dec, false), 0);
	CHECK_EQ(spoor_decoder_next(dec, &it, sizeof(it)), SPOOR_DEC_BLOCK);
	CHECK_EQ(it.block.end, SPOOR_BLK_OPEN);
	CHECK_EQ(it.block.start, 0x1000);
	CHECK_EQ(it.block.ninsn, 1);
	CHECK_EQ(it.offset, v.offsets[1]);
	CHECK_EQ(spoor_decoder_next(dec, &it, sizeof(it)), 0);
	/* ... once: nothing is left open for the final one. */
	CHECK_EQ(spoor_decoder_flush(dec, true), 0);
	CHECK_EQ(spoor_decoder_next(dec, &it, sizeof(it)), 0);
	CHECK_EQ(spoor_decoder_stats(dec, &st, sizeof(st)), 0);
	CHECK_EQ(st.packets, 2);
	CHECK_EQ(st.instructions, 1);
	spoor_decoder_free(dec);
	spoor_decoder_free(NULL);
	free_vector(&v);
}

int main(int argc, char **argv)
{
	check_args(argc, argv,
		   "Tests for the reconstruction decoder: API, blocks, events, reference vectors.");
	test_api();
	test_reference();
	test_resync();
	test_no_sync();
	test_random_packets();
	test_trap_after_trap();
	return check_done();
}
