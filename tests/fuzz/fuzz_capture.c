// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: capture files (capture.h), header then records, as the
 * reader walks them.  Beyond the sanitizers: a record that decodes re-encodes
 * to the same bytes, and every length stays inside the input.
 */
#include <string.h>

#include "spoor/capture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond) do { if (!(cond)) __builtin_trap(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t again[SPOOR_CAPTURE_RECORD + SPOOR_CAPTURE_MAX_PAYLOAD + SPOOR_CAPTURE_TRAILER];
	struct spoor_capture_header h;
	struct spoor_capture_record r;
	int n = spoor_capture_header_decode(data, size, &h);
	size_t pos;

	if (n <= 0)
		return 0;
	REQUIRE((size_t)n <= size && h.text_len <= SPOOR_CAPTURE_MAX_TEXT);
	for (pos = (size_t)n; pos < size; pos += (size_t)n) {
		n = spoor_capture_record_decode(data + pos, size - pos, &r);
		if (n <= 0)
			break;
		REQUIRE((size_t)n <= size - pos);
		REQUIRE(spoor_capture_record_encode(&r, again, sizeof(again)) == n);
		REQUIRE(!memcmp(again, data + pos, (size_t)n));
	}
	return 0;
}
