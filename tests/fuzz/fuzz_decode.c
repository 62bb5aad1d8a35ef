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
 * that decoding always finishes.
 */
#include <stdlib.h>
#include <string.h>

#include "spoor/decoder.h"
#include "spoor/error.h"
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

/* Every block lies in the program. */
static void on_blocks(void *ctx, uint32_t source, uint64_t offset, const struct spoor_block *b,
		      size_t n)
{
	struct spoor_decoder *dec = spoor_trace_decoder(trace, source);
	struct spoor_insn in;

	(void)ctx;
	(void)offset;
	REQUIRE(dec);
	for (size_t i = 0; i < n; i++) {
		REQUIRE(b[i].ninsn > 0);
		REQUIRE(!spoor_decoder_insn(dec, b[i].start, &in));
		REQUIRE(!spoor_decoder_insn(dec, b[i].last, &in));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct spoor_trace_ops ops = { .blocks = on_blocks };
	struct spoor_trace_config cfg;
	size_t half;

	if (size < 2)
		return 0;
	spoor_trace_config_init(&cfg);
	if (data[1] & 1)
		board(&cfg, data[0], data[1]);
	else
		reference(&cfg, data[0]);
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
	return 0;
}
