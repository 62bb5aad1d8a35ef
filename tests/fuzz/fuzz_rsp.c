// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the GDB remote-protocol decoder on arbitrary bytes, fed
 * in chunks whose sizes the first input bytes choose.  Checks, beyond the
 * sanitizers: bodies stay within the limit and end in a NUL, raw bytes
 * within theirs, offsets never go back, every packet's body frames again
 * and decodes to itself, and the whole input decodes to the same items
 * whatever the chunking (but for reports of junk, which come per chunk).
 */
#include <stdlib.h>
#include <string.h>

#include "spoor/error.h"
#include "spoor/rsp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond) do { if (!(cond)) __builtin_trap(); } while (0)
#define MAXP 512

/* A digest of the items of @data fed in chunks of @chunk (0: byte-varying). */
static uint64_t run(const uint8_t *data, size_t size, size_t chunk, uint64_t *count)
{
	struct spoor_rsp_config cfg = { .max_packet = MAXP };
	struct spoor_rsp_decoder *d = spoor_rsp_decoder_new(&cfg);
	struct spoor_rsp_item it;
	uint64_t h = 1469598103934665603ull, last = 0;
	size_t off = 0;
	int k;

	REQUIRE(d);
	*count = 0;
	while (off < size) {
		size_t n = chunk ? chunk : 1 + (size_t)data[off] % 17;

		if (n > size - off)
			n = size - off;
		REQUIRE(spoor_rsp_feed(d, data + off, n) == 0);
		while ((k = spoor_rsp_next(d, &it, sizeof(it))) > 0) {
			REQUIRE(k >= SPOOR_RSP_PACKET && k <= SPOOR_RSP_ERROR && (int)it.kind == k);
			REQUIRE(it.offset >= last && it.offset < off + n);
			last = it.offset;
			/* Errors for junk come per chunk; everything else must not
			 * depend on the chunking. */
			if (k != SPOOR_RSP_ERROR || it.reason != SPOOR_E_PROTOCOL)
				h = (h ^ (uint64_t)k ^ it.offset << 8) * 1099511628211ull;
			if (k == SPOOR_RSP_PACKET || k == SPOOR_RSP_NOTIFY) {
				uint8_t framed[2 * MAXP + 8];
				struct spoor_rsp_decoder *e = spoor_rsp_decoder_new(&cfg);
				struct spoor_rsp_item back;
				int m;

				REQUIRE(it.len <= MAXP && it.data[it.len] == 0);
				REQUIRE(it.raw_len >= 4 && it.raw_len <= 2 * MAXP + 4);
				for (size_t i = 0; i < it.len; i++)
					h = (h ^ it.data[i]) * 1099511628211ull;
				/* The body framed again decodes to itself. */
				m = spoor_rsp_frame(k == SPOOR_RSP_PACKET ? '$' : '%', it.data, it.len,
						    framed, sizeof(framed));
				REQUIRE(e && m > 0);
				REQUIRE(spoor_rsp_feed(e, framed, (size_t)m) == 0);
				REQUIRE(spoor_rsp_next(e, &back, sizeof(back)) == k);
				REQUIRE(back.len == it.len && !memcmp(back.data, it.data, it.len));
				REQUIRE(spoor_rsp_next(e, &back, sizeof(back)) == 0);
				spoor_rsp_decoder_free(e);
			} else if (k == SPOOR_RSP_ERROR) {
				REQUIRE(it.reason < 0 && it.raw_len <= 2 * MAXP + 4);
			}
			(*count)++;
		}
		REQUIRE(k == 0);
		off += n;
	}
	spoor_rsp_decoder_free(d);
	return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t n1, n2;

	REQUIRE(run(data, size, size ? size : 1, &n1) == run(data, size, 0, &n2));
	return 0;
}
