// SPDX-License-Identifier: MIT
/*
 * Round trip through the virtual board: a program runs on the ISS with
 * tracing on (trace control registers written as a debugger would), the
 * PIB sink's byte stream is captured, and spoor's decoder must reproduce the
 * ISS's retired-instruction sequence and its traps (cause, epc, tval)
 * exactly, for every encoder option set.  VIRT_TRAPS=N: the program traps
 * for ever; its first N traps are traced and compared.
 *
 * usage: virt_roundtrip PROG.elf   (prints "N passed, N failed")
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iss.h"
#include "spoor/decoder.h"
#include "spoor/error.h"
#include "spoor/image.h"
#include "spoor/trace.h"
#include "trace.h"

#define TRACE_BASE 0x0d000000u

struct vec {
	uint64_t *v;
	size_t n, cap;
};

static void vec_push(struct vec *a, uint64_t x)
{
	if (a->n == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 65536;
		a->v = realloc(a->v, a->cap * sizeof(*a->v));
		if (!a->v)
			abort();
	}
	a->v[a->n++] = x;
}

struct bytes {
	uint8_t *b;
	size_t n, cap;
};

/* A run: the board, what it retired, what its trace port sent. */
struct run {
	struct spoor_iss *iss;
	struct spoor_vtrace *tr;
	struct vec retired;
	struct vec traps;	/* per trap: cause (bit 63: interrupt), epc, tval */
	struct bytes pib;
	unsigned xlen;
	unsigned ended_ntr;	/* support packets: ended after an uninferable jump */
};

/* The PIB sink's output: kept for decoding. */
static void pib_out(void *ctx, const uint8_t *b, size_t n)
{
	struct bytes *o = ctx;

	if (o->n + n > o->cap) {
		o->cap = (o->n + n) * 2;
		o->b = realloc(o->b, o->cap);
		if (!o->b)
			abort();
	}
	memcpy(o->b + o->n, b, n);
	o->n += n;
}

/* The hart's events: the retired sequence E-Trace reports, then the trace unit. */
static void hook(void *ctx, const struct spoor_iss_event *ev)
{
	struct run *r = ctx;
	struct spoor_insn in;

	if (ev->kind == SPOOR_ISS_EV_RETIRE) {
		vec_push(&r->retired, ev->pc);
	} else if (ev->kind == SPOOR_ISS_EV_EXCEPTION) {
		/* ecall and ebreak count as retired. */
		spoor_insn_decode(ev->insn, r->xlen, &in);
		if (in.cls == SPOOR_INSN_ECALL)
			vec_push(&r->retired, ev->pc);
		vec_push(&r->traps, ev->cause);
		vec_push(&r->traps, ev->pc);
		vec_push(&r->traps, ev->tval);
	} else if (ev->kind == SPOOR_ISS_EV_INTERRUPT) {
		/* An interrupt has no EPC in the trace, nor a tval. */
		vec_push(&r->traps, ev->cause | 1ull << 63);
		vec_push(&r->traps, 0);
		vec_push(&r->traps, 0);
	}
	spoor_vtrace_event(r->tr, ev);
}

struct variant {
	const char *name;
	uint32_t features;	/* trTeInstFeatures */
	unsigned rss, ccs, cache, bpred;
	uint32_t compat;	/* decoder rules */
	/*
	 * Only when named: implicit exception needs the trap vector the
	 * decoder is given (the last mtvec/stvec) to be the one of every trap,
	 * which programs that move their trap vector do not satisfy.
	 */
	bool only_named;
};

/* Encoder parameters for @xlen and @v. */
static void make_params(struct spoor_params *p, unsigned xlen, const struct variant *v)
{
	spoor_params_init(p);
	p->iaddress_width_p = xlen;
	p->iaddress_lsb_p = 1;
	p->ecause_width_p = 6;
	p->privilege_width_p = 2;
	p->itype_width_p = 4;
	p->return_stack_size_p = v->rss;
	p->call_counter_size_p = v->ccs;
	p->cache_size_p = v->cache;
	p->bpred_size_p = v->bpred;
	p->f0s_width_p = v->cache && v->bpred ? 1 : 0;
	p->ioptions_width_p = 6;
	p->ioption_bit[SPOOR_IOPT_SIJUMP] = 5;
}

/*
 * Runs @elf with tracing per @v; with @stop_at > 0, tracing stops after that
 * many executed instructions instead of at the program's end.  Returns 0 or -1.
 */
static int run_board(const char *elf, const struct spoor_params *p, const struct variant *v,
		     uint64_t stop_at, struct run *r)
{
	const char *he = getenv("VIRT_HALT_EVERY");
	uint64_t halt_every = he ? strtoull(he, NULL, 0) : 0;
	struct spoor_iss_config icfg = { 0 };
	struct spoor_vtrace_config tcfg = { .params = p, .features = 0x3f };
	struct spoor_iss_device dev;
	int ret, xlen = spoor_iss_elf_xlen(elf);

	if (xlen < 0)
		return -1;
	memset(r, 0, sizeof(*r));
	r->xlen = (unsigned)xlen;
	icfg.xlen = r->xlen;
	r->iss = spoor_iss_new(&icfg);
	tcfg.xlen = r->xlen;
	tcfg.pib_out = pib_out;
	tcfg.pib_ctx = &r->pib;
	spoor_encap_config_init(&tcfg.encap, SPOOR_ENCAP_SIEMENS);
	r->tr = spoor_vtrace_new(&tcfg, r->iss);
	if (!r->iss || !r->tr || spoor_iss_load_elf(r->iss, elf, NULL))
		return -1;
	dev = (struct spoor_iss_device){
		.read = (int (*)(void *, uint64_t, unsigned, uint64_t *))spoor_vtrace_read,
		.write = (int (*)(void *, uint64_t, unsigned, uint64_t))spoor_vtrace_write,
		.ctx = r->tr,
	};
	if (spoor_iss_add_device(r->iss, TRACE_BASE, SPOOR_VTRACE_SIZE, &dev))
		return -1;
	spoor_iss_set_hook(r->iss, hook, r);
	/* What a debugger does: options, sink on, then tracing on. */
	spoor_iss_bus_write(r->iss, TRACE_BASE + SPOOR_VTRACE_TE + TR_TE_INST_FEATURES, 4,
			    v->features);
	spoor_iss_bus_write(r->iss, TRACE_BASE + SPOOR_VTRACE_PIB + TR_CONTROL, 4,
			    TR_SINK_ACTIVE | TR_SINK_ENABLE);
	spoor_iss_bus_write(r->iss, TRACE_BASE + SPOOR_VTRACE_TE + TR_CONTROL, 4,
			    TR_TE_ACTIVE | TR_TE_ENABLE | TR_TE_INST_TRACING |
			    2u << TR_TE_SYNC_MAX_SHIFT);
	if (halt_every) {
		/* A debugger halts the hart now and then; tracing pauses and resumes. */
		do {
			ret = spoor_iss_step(r->iss, halt_every);
			if (ret != SPOOR_ISS_STOP_COUNT)
				break;
			spoor_iss_enter_debug(r->iss, SPOOR_ISS_DEBUG_HALTREQ);
			ret = spoor_iss_step(r->iss, 1);
			if (ret != SPOOR_ISS_STOP_HALTED || spoor_iss_resume(r->iss))
				return -1;
		} while (spoor_iss_instret(r->iss) < 50000000);
		spoor_iss_bus_write(r->iss, TRACE_BASE + SPOOR_VTRACE_TE + TR_CONTROL, 4,
				    TR_TE_ACTIVE);
		return ret == SPOOR_ISS_STOP_EXIT && spoor_iss_exit_code(r->iss) == 0 ? 0 : -1;
	}
	if (getenv("VIRT_TRAPS")) {
		/* A program that traps for ever: trace its first VIRT_TRAPS traps. */
		uint64_t want = strtoull(getenv("VIRT_TRAPS"), NULL, 0) * 3;

		for (unsigned i = 0; i < 10000000 && r->traps.n < want; i++)
			if (spoor_iss_step(r->iss, 1) < 0)
				return -1;
		spoor_iss_bus_write(r->iss, TRACE_BASE + SPOOR_VTRACE_TE + TR_CONTROL, 4,
				    TR_TE_ACTIVE);
		return r->traps.n >= want ? 0 : -1;
	}
	if (stop_at) {
		ret = spoor_iss_step(r->iss, stop_at);
		spoor_iss_bus_write(r->iss, TRACE_BASE + SPOOR_VTRACE_TE + TR_CONTROL, 4,
				    TR_TE_ACTIVE);
		return ret == SPOOR_ISS_STOP_COUNT || ret == SPOOR_ISS_STOP_EXIT ? 0 : -1;
	}
	do
		ret = spoor_iss_step(r->iss, 1u << 20);
	while (ret == SPOOR_ISS_STOP_COUNT && spoor_iss_instret(r->iss) < 50000000);
	/* Tracing off: the last instruction and the end-of-trace packet. */
	spoor_iss_bus_write(r->iss, TRACE_BASE + SPOOR_VTRACE_TE + TR_CONTROL, 4, TR_TE_ACTIVE);
	return ret == SPOOR_ISS_STOP_EXIT && spoor_iss_exit_code(r->iss) == 0 ? 0 : -1;
}

/* Appends the addresses of the instructions of block @b to @out. */
static void push_block(struct spoor_decoder *dec, const struct spoor_block *b, struct vec *out)
{
	uint64_t a = b->start;
	struct spoor_insn in;

	for (uint64_t n = 0; n < b->ninsn; n++) {
		vec_push(out, a);
		if (spoor_decoder_insn(dec, a, &in))
			break;
		a += in.len;
	}
}

/* What the pipeline's callbacks fill. */
struct decoded {
	struct spoor_trace *tr;
	struct vec *out;
	struct vec *traps;	/* as struct run's; epc ~0 when the decoder gave none */
	uint64_t *gaps;
	unsigned *ended_ntr;
	bool joined;		/* decoding starts mid-stream */
};

static void on_blocks(void *ctx, uint32_t source, uint64_t offset, const struct spoor_block *b,
		      size_t n)
{
	struct decoded *d = ctx;

	(void)offset;
	for (size_t i = 0; i < n; i++)
		push_block(spoor_trace_decoder(d->tr, source), &b[i], d->out);
}

static void on_event(void *ctx, const struct spoor_dec_item *it)
{
	struct decoded *d = ctx;

	if (it->event.kind == SPOOR_EV_STOP && it->event.qual_status == SPOOR_TE_QUAL_ENDED_NTR)
		(*d->ended_ntr)++;
	if (it->event.kind == SPOOR_EV_TRAP) {
		const struct spoor_event *e = &it->event;

		vec_push(d->traps, e->cause | (uint64_t)e->interrupt << 63);
		vec_push(d->traps, e->interrupt ? 0 : e->has_epc ? e->epc : ~0ull);
		vec_push(d->traps, e->interrupt ? 0 : e->tval);
	}
	if (it->event.kind != SPOOR_EV_GAP)
		return;
	/* Joined mid-stream, what precedes the first synchronisation is lost, and said so. */
	if (d->joined && !d->out->n)
		return;
	if (!(*d->gaps)++)
		fprintf(stderr, "gap: %s at 0x%llx, packet at offset %llu\n",
			spoor_errstr(it->event.reason), (unsigned long long)it->event.address,
			(unsigned long long)it->offset);
}

static void on_bad_packet(void *ctx, uint32_t source, uint64_t offset, int err)
{
	struct decoded *d = ctx;

	(void)source;
	(void)offset;
	(void)err;
	(*d->gaps)++;
}

/* Decodes the captured stream through the library pipeline; appends the retired addresses to @out. */
static int decode(const char *elf, struct run *r, const struct spoor_params *p,
		  const struct variant *v, struct vec *out, struct vec *traps, uint64_t *gaps)
{
	static const struct spoor_trace_ops ops = {
		.blocks = on_blocks, .event = on_event, .bad_packet = on_bad_packet,
	};
	struct decoded d = { .out = out, .traps = traps, .gaps = gaps,
			     .ended_ntr = &r->ended_ntr };
	struct spoor_trace_config cfg;
	struct spoor_image *img = spoor_image_new();
	struct spoor_diag diag;
	uint8_t rom[32];
	size_t skip = 0;
	int ret = -1;

	for (unsigned i = 0; i < sizeof(rom); i += 4) {
		uint64_t w;

		spoor_iss_bus_read(r->iss, SPOOR_ISS_ROM_BASE + i, 4, &w);
		memcpy(rom + i, &w, 4);
	}
	if (!img || spoor_image_add_elf(img, elf, 0, &diag) ||
	    spoor_image_add_raw(img, "rom", SPOOR_ISS_ROM_BASE, rom, sizeof(rom)))
		goto out;
	spoor_trace_config_init(&cfg);
	cfg.params = *p;
	cfg.image = img;
	cfg.compat = v->compat;
	spoor_encap_config_init(&cfg.deframe.encap, SPOOR_ENCAP_SIEMENS);
	cfg.deframe.start_synced = false;
	/* A decoder joining mid-stream has missed the support packet that
	 * tells the options: it is configured with them, as from a board file. */
	cfg.options = spoor_vtrace_feature_options(v->features);
	/* Implicit exception: the decoder knows the trap vectors (as set last). */
	spoor_iss_read_csr(r->iss, 0x305, &cfg.mtvec);
	spoor_iss_read_csr(r->iss, 0x105, &cfg.stvec);
	d.tr = spoor_trace_new(&cfg, &ops, &d);
	if (!d.tr)
		goto out;
	/* VIRT_JOIN: a probe that connects a quarter of the way through. */
	if (getenv("VIRT_JOIN"))
		skip = r->pib.n / 4;
	d.joined = skip > 0;
	if (!spoor_trace_feed(d.tr, r->pib.b + skip, r->pib.n - skip) && !spoor_trace_finish(d.tr))
		ret = 0;
out:
	spoor_trace_free(d.tr);
	spoor_image_free(img);
	return ret;
}

/* Writes the captured stream to @path (for spoor dump/decode); returns false on error. */
static bool save(const char *path, const struct run *r)
{
	FILE *f = fopen(path, "wb");
	bool ok = f && fwrite(r->pib.b, 1, r->pib.n, f) == r->pib.n;

	if (f)
		ok = !fclose(f) && ok;
	return ok;
}

/* Field @f of the trap at index @k of @t, or 0 past its end (for messages). */
#define TRAP_FIELD(t, k, f) ((k) + (f) < (t)->n ? (unsigned long long)(t)->v[(k) + (f)] : 0ull)

/* Returns the index of the first difference of @a and @b, or -1. */
static long first_diff(const struct vec *a, const struct vec *b)
{
	size_t n = a->n < b->n ? a->n : b->n;

	for (size_t i = 0; i < n; i++)
		if (a->v[i] != b->v[i])
			return (long)i;
	return a->n == b->n ? -1 : (long)n;
}

/* The number of instructions @elf executes (0 if it does not run). */
/*
 * Returns -1 when @b, decoded from a stream joined mid-way, is the end of
 * @a; else the first index of @b that differs (0 when @b is empty: the
 * decoder must find a synchronisation packet to start at).
 */
static long tail_diff(const struct vec *a, const struct vec *b)
{
	size_t off;

	if (!b->n || b->n > a->n)
		return 0;
	off = a->n - b->n;
	for (size_t i = 0; i < b->n; i++)
		if (a->v[off + i] != b->v[i])
			return (long)i;
	return -1;
}

static unsigned program_length(const char *elf)
{
	struct spoor_iss_config cfg = { .xlen = spoor_iss_elf_xlen(elf) == 32 ? 32 : 64 };
	struct spoor_iss *iss = spoor_iss_new(&cfg);
	uint64_t n = 0;

	if (iss && !spoor_iss_load_elf(iss, elf, NULL) &&
	    spoor_iss_step(iss, 50000000) == SPOOR_ISS_STOP_EXIT)
		n = spoor_iss_instret(iss);
	spoor_iss_free(iss);
	return (unsigned)n;
}

static const char usage[] =
	"usage: virt_roundtrip PROG.elf [VARIANT [STOPS STEP]]\n"
	"Runs PROG on the virtual board under every encoder option set (or VARIANT) and\n"
	"checks that the decoded trace is the ISS's retirement; prints \"N passed, N failed\".\n"
	"  STOPS > 1: stop tracing after STEP, 2*STEP, ... instructions\n"
	"  (STEP 0: spread the STOPS points over the program)\n"
	"  VIRT_HALT_EVERY=N in the environment: halt and resume the hart\n"
	"  every N instructions (tracing pauses in Debug Mode)\n"
	"  VIRT_EXPECT_NTR=1: fail unless some trace ended with ended_ntr\n"
	"  VIRT_JOIN=1: decode from a quarter of the way through the trace port's bytes\n"
	"  (the decoded instructions must be the run's last ones)\n";

int main(int argc, char **argv)
{
	static const struct variant variants[] = {
		{ "differential", 0, 0, 0, 0, 0, SPOOR_COMPAT_REFERENCE, false },
		{ "full-address", TR_TE_NO_ADDR_DIFF, 0, 0, 0, 0, SPOOR_COMPAT_REFERENCE, false },
		{ "implicit-return-stack", TR_TE_EN_IMPLICIT_RET, 3, 0, 0, 0, SPOOR_COMPAT_REFERENCE, false },
		{ "implicit-return-counter", TR_TE_EN_IMPLICIT_RET, 0, 4, 0, 0,
		  SPOOR_COMPAT_REFERENCE, false },
		{ "sijump", TR_TE_EN_SIJUMP, 0, 0, 0, 0, SPOOR_COMPAT_REFERENCE, false },
		{ "jump-target-cache", TR_TE_EN_JTC, 0, 0, 4, 0, SPOOR_COMPAT_REFERENCE, false },
		/* A 4-entry cache with full addresses: collisions and replacements. */
		{ "jump-target-cache-full-address", TR_TE_EN_JTC | TR_TE_NO_ADDR_DIFF, 0, 0, 2, 0,
		  SPOOR_COMPAT_REFERENCE, false },
		{ "branch-prediction", TR_TE_EN_BRANCH_PRED, 0, 0, 0, 6, SPOOR_COMPAT_REFERENCE, false },
		{ "implicit-exception", TR_TE_NO_TRAP_ADDR, 0, 0, 0, 0, SPOOR_COMPAT_REFERENCE, true },
		{ "everything", TR_TE_EN_IMPLICIT_RET | TR_TE_EN_SIJUMP | TR_TE_EN_JTC |
		  TR_TE_EN_BRANCH_PRED, 3, 0, 4, 6, SPOOR_COMPAT_REFERENCE, false },
	};
	unsigned passed = 0, failed = 0, ended_ntr = 0;

	unsigned stops = 1, stop_step = 0;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (argc > 4) {
		stops = (unsigned)strtoul(argv[3], NULL, 0);
		stop_step = (unsigned)strtoul(argv[4], NULL, 0);
		if (!stop_step)
			stop_step = program_length(argv[1]) / (stops + 1) + 1;
	}
	for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]) * stops; i++) {
		const struct variant *v = &variants[i % (sizeof(variants) / sizeof(variants[0]))];
		uint64_t stop_at = stop_step ? (uint64_t)stop_step * (i / (sizeof(variants) /
							 sizeof(variants[0])) + 1) : 0;
		struct spoor_params p;
		struct vec got = { 0 }, got_traps = { 0 };
		uint64_t gaps = 0;
		struct run r;
		long d, td = -1;

		/*
		 * "no-implicit-return" leaves out the implicit return variants:
		 * E-Trace 2.0's irdepth cannot always say which of several
		 * returns to the same address (recursion) a final packet
		 * reports (spec issue #254), so tracing stopped at an arbitrary
		 * point may decode a few instructions short.
		 */
		if (argc > 2 && strcmp(argv[2], v->name) && strcmp(argv[2], "all") &&
		    !(!strcmp(argv[2], "no-implicit-return") &&
		      !(v->features & TR_TE_EN_IMPLICIT_RET)))
			continue;
		if (v->only_named && (argc < 3 || strcmp(argv[2], v->name)))
			continue;
		make_params(&p, spoor_iss_elf_xlen(argv[1]) == 32 ? 32 : 64, v);
		if (run_board(argv[1], &p, v, stop_at, &r) ||
		    decode(argv[1], &r, &p, v, &got, &got_traps, &gaps)) {
			fprintf(stderr, "%s: %s: the board did not run\n", argv[1], v->name);
			failed++;
		} else if (getenv("VIRT_SAVE") && !save(getenv("VIRT_SAVE"), &r)) {
			fprintf(stderr, "%s: %s: the board did not run\n", argv[1], v->name);
			failed++;
		} else if ((d = getenv("VIRT_JOIN") ? tail_diff(&r.retired, &got) :
				first_diff(&r.retired, &got)) >= 0 || gaps ||
			   (!getenv("VIRT_JOIN") && !stop_at &&
			    (td = first_diff(&r.traps, &got_traps)) >= 0)) {
			if (td >= 0) {
				size_t k = (size_t)td / 3 * 3;

				fprintf(stderr, "%s: %s: trap %zu of %zu (%zu decoded) differs: "
					"cause, epc, tval 0x%llx 0x%llx 0x%llx, decoded "
					"0x%llx 0x%llx 0x%llx\n", argv[1], v->name, k / 3,
					r.traps.n / 3, got_traps.n / 3,
					TRAP_FIELD(&r.traps, k, 0), TRAP_FIELD(&r.traps, k, 1),
					TRAP_FIELD(&r.traps, k, 2), TRAP_FIELD(&got_traps, k, 0),
					TRAP_FIELD(&got_traps, k, 1), TRAP_FIELD(&got_traps, k, 2));
			}
			fprintf(stderr, "%s: %s: %zu retired, %zu decoded, %llu gaps, first "
				"difference at %ld: 0x%llx vs 0x%llx (%zu trace bytes)\n", argv[1],
				v->name, r.retired.n, got.n, (unsigned long long)gaps, d,
				d >= 0 && (size_t)d < r.retired.n ?
				(unsigned long long)r.retired.v[d] : 0ull,
				d >= 0 && (size_t)d < got.n ? (unsigned long long)got.v[d] : 0ull,
				r.pib.n);
			failed++;
		} else {
			printf("%s: %s: %zu instructions, %zu traps, %zu trace bytes (%.3f "
			       "bits/instruction)\n", argv[1], v->name, r.retired.n, r.traps.n / 3,
			       r.pib.n, r.retired.n ? 8.0 * (double)r.pib.n / (double)r.retired.n : 0);
			passed++;
		}
		ended_ntr += r.ended_ntr;
		spoor_vtrace_free(r.tr);
		spoor_iss_free(r.iss);
		free(r.retired.v);
		free(r.traps.v);
		free(r.pib.b);
		free(got.v);
		free(got_traps.v);
	}
	printf("%u passed, %u failed; %u traces ended with ended_ntr\n", passed, failed,
	       ended_ntr);
	/* VIRT_EXPECT_NTR: the run must include a trace whose last instruction
	 * followed an uninferable jump (qual_status ended_ntr), decoded exactly. */
	if (getenv("VIRT_EXPECT_NTR") && !ended_ntr) {
		fprintf(stderr, "no trace ended with ended_ntr\n");
		return 1;
	}
	return failed ? 1 : 0;
}
