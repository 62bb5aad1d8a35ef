// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the library pipeline (trace.h), bytes -> reconstruction.
 * Arbitrary bytes are read as a reference-flow raw stream (the first byte chooses parameters and options)
 * and decoded against a real program (a conformance ELF and spike's boot
 * ROM).  Beyond the sanitizers it checks that every block lies in the
 * program and that decoding always finishes.
 */
#include <stdlib.h>
#include <string.h>

#include "spoor/decoder.h"
#include "spoor/error.h"
#include "spoor/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond) do { if (!(cond)) __builtin_trap(); } while (0)

static struct spoor_image *img;

/* Loads the program once. */
static struct spoor_image *image(void)
{
	struct spoor_diag d;

	if (img)
		return img;
	img = spoor_image_new();
	REQUIRE(img);
	REQUIRE(!spoor_image_add_elf(img, SPOOR_VECTORS "/elf/br_j_asm.riscv", 0, &d));
	REQUIRE(!spoor_image_add_spike_rom(img, 64));
	return img;
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
	struct spoor_params *p = &cfg.params;
	uint8_t sel;

	if (size < 1)
		return 0;
	sel = data[0];
	spoor_trace_config_init(&cfg);
	p->iaddress_width_p = 64;
	p->iaddress_lsb_p = sel & 1;
	p->context_width_p = 32;
	p->nocontext_p = 0;
	p->ecause_width_p = 5;
	p->return_stack_size_p = (sel & 2) ? 3 : 0;
	p->call_counter_size_p = (sel & 4) ? 4 : 0;
	p->cache_size_p = (sel & 8) ? 3 : 0;
	cfg.image = image();
	cfg.options = (sel >> 3) & 0x2f;	/* not branch prediction: counts up to 2^32 */
	cfg.compat = (sel & 0x80) ? SPOOR_COMPAT_REFERENCE : 0;
	trace = spoor_trace_new(&cfg, &ops, NULL);
	REQUIRE(trace);
	/* The stream in two chunks, then its end: decoding always finishes. */
	REQUIRE(!spoor_trace_feed(trace, data + 1, (size - 1) / 2));
	REQUIRE(!spoor_trace_feed(trace, data + 1 + (size - 1) / 2, size - 1 - (size - 1) / 2));
	REQUIRE(!spoor_trace_finish(trace));
	spoor_trace_free(trace);
	trace = NULL;
	return 0;
}
