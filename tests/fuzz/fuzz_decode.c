// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: packets -> reconstruction.  Arbitrary bytes are read as a
 * reference-flow raw stream (the first byte chooses parameters and options)
 * and decoded against a real program (a conformance ELF and spike's boot
 * ROM).  Beyond the sanitizers it checks that every block lies in the
 * program and that decoding always finishes.
 */
#include <stdlib.h>
#include <string.h>

#include "spoor/decoder.h"
#include "spoor/deframe.h"
#include "spoor/error.h"

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

static void drain(struct spoor_decoder *dec)
{
	struct spoor_dec_item it;
	struct spoor_insn in;
	int ret;

	while ((ret = spoor_decoder_next(dec, &it, sizeof(it))) > 0) {
		if (it.kind != SPOOR_DEC_BLOCK)
			continue;
		REQUIRE(it.block.ninsn > 0);
		REQUIRE(!spoor_decoder_insn(dec, it.block.start, &in));
		REQUIRE(!spoor_decoder_insn(dec, it.block.last, &in));
	}
	REQUIRE(ret == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct spoor_deframe_config dcfg = { .start_synced = true };
	struct spoor_decoder_config cfg = { 0 };
	struct spoor_params p;
	struct spoor_deframe *df;
	struct spoor_decoder *dec;
	struct spoor_deframe_item it;
	struct spoor_te_inst pkt;
	uint8_t sel;

	if (size < 1)
		return 0;
	sel = data[0];
	spoor_params_init(&p);
	p.iaddress_width_p = 64;
	p.iaddress_lsb_p = sel & 1;
	p.context_width_p = 32;
	p.nocontext_p = 0;
	p.ecause_width_p = 5;
	p.return_stack_size_p = (sel & 2) ? 3 : 0;
	p.call_counter_size_p = (sel & 4) ? 4 : 0;
	p.cache_size_p = (sel & 8) ? 3 : 0;
	cfg.params = &p;
	cfg.image = image();
	cfg.options = (sel >> 3) & 0x2f;	/* not branch prediction: counts up to 2^32 */
	cfg.compat = (sel & 0x80) ? SPOOR_COMPAT_REFERENCE : 0;
	spoor_encap_config_init(&dcfg.encap, SPOOR_ENCAP_RAW);
	df = spoor_deframe_new(&dcfg);
	dec = spoor_decoder_new(&cfg);
	REQUIRE(df && dec);
	REQUIRE(!spoor_deframe_feed(df, data + 1, size - 1, 0));
	for (int pass = 0; pass < 2; pass++) {
		/* The chunk, then the end of the stream. */
		if (pass)
			REQUIRE(!spoor_deframe_finish(df));
		while (spoor_deframe_next(df, &it, sizeof(it)) > 0) {
			if (it.kind != SPOOR_DF_FRAME || it.frame.msg != SPOOR_MSG_TE_INST)
				continue;
			if (spoor_te_inst_decode(&p, it.frame.payload, it.frame.payload_len,
						 &pkt) < 0)
				continue;
			REQUIRE(!spoor_decoder_put(dec, &pkt, it.frame.offset));
			drain(dec);
		}
	}
	REQUIRE(!spoor_decoder_flush(dec, true));
	drain(dec);
	spoor_decoder_free(dec);
	spoor_deframe_free(df);
	return 0;
}
