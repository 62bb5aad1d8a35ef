// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: what a remote_bitbang client sends the virtual board's
 * JTAG port, through spoor_bitbang_process() into the TAP, the DTM, the
 * debug module and the hart (abstract commands, program buffer, system bus
 * access), with the hart running a few instructions between chunks as it
 * does between polls.  Beyond the sanitizers: every answer is '0' or '1',
 * at most one per input byte.
 */
#include "conf_fuzz.h"	/* first: it defines _GNU_SOURCE */

#include <string.h>

#include "bitbang.h"
#include "dm.h"
#include "iss.h"
#include "jtag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t out[4096];
	struct spoor_iss_config cfg = { .ram_size = 64u << 10 };
	struct spoor_iss *iss;
	struct spoor_dm *dm;
	struct spoor_jtag *tap;
	int quit = 0;

	if (size < 1)
		return 0;
	cfg.xlen = (data[0] & 1) ? 32 : 64;
	iss = spoor_iss_new(&cfg);
	dm = iss ? spoor_dm_new(iss) : NULL;
	tap = dm ? spoor_jtag_new(dm, SPOOR_JTAG_IDCODE) : NULL;
	REQUIRE(tap);
	/* Chunks of up to 4 KiB, as reads from the socket come. */
	for (size_t pos = 1; pos < size && !quit;) {
		size_t len = size - pos < sizeof(out) ? size - pos : sizeof(out);
		int n = spoor_bitbang_process(tap, data + pos, len, out, &quit);

		REQUIRE(n >= 0 && (size_t)n <= len);
		for (int i = 0; i < n; i++)
			REQUIRE(out[i] == '0' || out[i] == '1');
		spoor_dm_run(dm, 64);
		pos += len;
	}
	spoor_jtag_free(tap);
	spoor_dm_free(dm);
	spoor_iss_free(iss);
	return 0;
}
