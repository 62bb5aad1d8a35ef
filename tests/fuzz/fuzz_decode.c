// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the library pipeline (trace.h), bytes -> reconstruction,
 * against a real program.  The first two input bytes choose the program,
 * its encoder parameters, encapsulation and options; the rest is the stream:
 *   data[1] bit 0 clear: the reference flow — a raw stream of a conformance
 *     ELF (br_j_asm) and spike's boot ROM, parameters and options from
 *     data[0] (see reference());
 *   data[1] bit 0 set: the virtual board — Siemens messaging of a test
 *     program (tests/fuzz/decode-programs: deepcall RV64 or, with bit 1,
 *     exceptions RV32) under boards/virt-rv*.ini's parameters less the
 *     branch predictor (see board()).
 * Beyond the sanitizers it checks that every block lies in the program and
 * that decoding always finishes.  The blocks and events also go to the
 * analysis sinks (coverage, call tree and profile, timeline), whose outputs
 * are written (to /dev/null) at the end: whatever a stream decodes to, they
 * neither crash nor fail.
 */
#include <stdlib.h>
#include <string.h>

#include <stdio.h>

#include "spoor/calls.h"
#include "spoor/coverage.h"
#include "spoor/decoder.h"
#include "spoor/error.h"
#include "spoor/funcs.h"
#include "spoor/profile.h"
#include "spoor/sink.h"
#include "spoor/timeline.h"
#include "spoor/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond) do { if (!(cond)) __builtin_trap(); } while (0)

/* The program @which (0: reference, 1: RV64 board, 2: RV32 board), loaded once. */
static struct spoor_image *image(unsigned which)
{
	static struct spoor_image *img[3];
	static const char *const elf[3] = {
		SPOOR_VECTORS "/elf/br_j_asm.riscv",
		SPOOR_FUZZ_DIR "/decode-programs/deepcall-rv64.elf",
		SPOOR_FUZZ_DIR "/decode-programs/exceptions-rv32.elf",
	};
	struct spoor_diag d;

	if (img[which])
		return img[which];
	img[which] = spoor_image_new();
	REQUIRE(img[which]);
	REQUIRE(!spoor_image_add_elf(img[which], elf[which], 0, &d));
	if (!which)
		REQUIRE(!spoor_image_add_spike_rom(img[which], 64));
	return img[which];
}

/* The reference flow's configuration, parameters and options from @sel. */
static void reference(struct spoor_trace_config *cfg, uint8_t sel)
{
	struct spoor_params *p = &cfg->params;

	p->iaddress_width_p = 64;
	p->iaddress_lsb_p = sel & 1;
	p->context_width_p = 32;
	p->nocontext_p = 0;
	p->ecause_width_p = 5;
	p->return_stack_size_p = (sel & 2) ? 3 : 0;
	p->call_counter_size_p = (sel & 4) ? 4 : 0;
	p->cache_size_p = (sel & 8) ? 3 : 0;
	cfg->image = image(0);
	cfg->options = (sel >> 3) & 0x2f;	/* not branch prediction: counts up to 2^32 */
	cfg->compat = (sel & 0x80) ? SPOOR_COMPAT_REFERENCE : 0;
}

/*
 * The virtual board's configuration (boards/virt-rv*.ini without the branch
 * predictor, whose counts go up to 2^32): @sel bit 7 the reference flow's
 * rules; @mode bit 1 RV32, bit 2 a synchronised start, bits 3-7 flip the
 * options implicit-return, implicit-exception, full-address,
 * jump-target-cache, sijump.
 */
static void board(struct spoor_trace_config *cfg, uint8_t sel, uint8_t mode)
{
	struct spoor_params *p = &cfg->params;

	p->iaddress_width_p = (mode & 2) ? 32 : 64;
	p->iaddress_lsb_p = 1;
	p->privilege_width_p = 2;
	p->ecause_width_p = 6;
	p->nocontext_p = 1;
	p->notime_p = 1;
	p->itype_width_p = 4;
	p->return_stack_size_p = 3;
	p->cache_size_p = 4;
	p->f0s_width_p = 1;
	p->ioptions_width_p = 6;
	p->ioption_bit[SPOOR_IOPT_SIJUMP] = 5;
	spoor_encap_config_init(&cfg->deframe.encap, SPOOR_ENCAP_SIEMENS);
	cfg->deframe.start_synced = mode & 4;
	cfg->image = image((mode & 2) ? 2 : 1);
	cfg->options = SPOOR_OPT_IMPLICIT_RETURN | SPOOR_OPT_JUMP_TARGET_CACHE | SPOOR_OPT_SIJUMP;
	cfg->options ^= ((mode >> 3) & 0xf) | ((mode & 0x80) ? SPOOR_OPT_SIJUMP : 0);
	cfg->compat = (sel & 0x80) ? SPOOR_COMPAT_REFERENCE : 0;
}

static struct spoor_trace *trace;

/* The analyses of the blocks and events (their sinks, a tee of them). */
struct analyses {
	struct spoor_funcs *funcs;
	struct spoor_sink *sink[3], *tee;
};

/* Makes the analysis sinks over @img, timeline output to @null. */
static void analyses_new(struct analyses *a, struct spoor_image *img, FILE *null)
{
	struct spoor_timeline_config tc;

	spoor_timeline_config_init(&tc);
	a->funcs = spoor_funcs_new(img);
	REQUIRE(a->funcs);
	a->sink[0] = spoor_coverage_new(a->funcs);
	a->sink[1] = spoor_calls_new(a->funcs, 64);
	a->sink[2] = spoor_timeline_new(a->funcs, null, &tc);
	a->tee = spoor_sink_tee_new(a->sink, 3);
	REQUIRE(a->sink[0] && a->sink[1] && a->sink[2] && a->tee);
}

/* Writes every analysis out (to @null): none fails; then frees them. */
static void analyses_end(struct analyses *a, FILE *null)
{
	int ret;

	REQUIRE(!spoor_sink_error(a->tee));
	/* (No lcov file for a program without line information: br_j_asm.) */
	ret = spoor_coverage_write_lcov(a->sink[0], null, "fuzz");
	REQUIRE(!ret || ret == SPOOR_E_NOT_FOUND);
	REQUIRE(!spoor_coverage_write_summary(a->sink[0], null));
	REQUIRE(!spoor_calls_write_json(a->sink[1], null, 0));
	REQUIRE(!spoor_calls_write_text(a->sink[1], null, 3));
	REQUIRE(!spoor_profile_write_callgrind(a->sink[1], null, "fuzz"));
	REQUIRE(!spoor_profile_write_folded(a->sink[1], null));
	REQUIRE(!spoor_profile_write_top(a->sink[1], null, 5));
	REQUIRE(!spoor_timeline_finish(a->sink[2]));
	spoor_sink_free(a->tee);
	for (int i = 0; i < 3; i++)
		spoor_sink_free(a->sink[i]);
	spoor_funcs_free(a->funcs);
}

static struct analyses an;

/* Every block lies in the program. */
static void on_blocks(void *ctx, uint32_t source, uint64_t offset, const struct spoor_block *b,
		      size_t n)
{
	struct spoor_decoder *dec = spoor_trace_decoder(trace, source);
	struct spoor_insn in;

	(void)ctx;
	(void)offset;
	REQUIRE(dec);
	spoor_sink_blocks(an.tee, source, b, n);
	for (size_t i = 0; i < n; i++) {
		REQUIRE(b[i].ninsn > 0);
		REQUIRE(!spoor_decoder_insn(dec, b[i].start, &in));
		REQUIRE(!spoor_decoder_insn(dec, b[i].last, &in));
	}
}

/* Events to the analyses. */
static void on_event(void *ctx, const struct spoor_dec_item *it)
{
	(void)ctx;
	spoor_sink_event(an.tee, it);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct spoor_trace_ops ops = { .blocks = on_blocks, .event = on_event };
	static FILE *null;
	struct spoor_trace_config cfg;
	size_t half;

	if (size < 2)
		return 0;
	spoor_trace_config_init(&cfg);
	if (data[1] & 1)
		board(&cfg, data[0], data[1]);
	else
		reference(&cfg, data[0]);
	if (!null)
		null = fopen("/dev/null", "w");
	REQUIRE(null);
	analyses_new(&an, cfg.image, null);
	trace = spoor_trace_new(&cfg, &ops, NULL);
	REQUIRE(trace);
	data += 2;
	size -= 2;
	/* The stream in two chunks, then its end: decoding always finishes. */
	half = size / 2;
	REQUIRE(!spoor_trace_feed(trace, data, half));
	REQUIRE(!spoor_trace_feed(trace, data + half, size - half));
	REQUIRE(!spoor_trace_finish(trace));
	spoor_trace_free(trace);
	trace = NULL;
	analyses_end(&an, null);
	return 0;
}
