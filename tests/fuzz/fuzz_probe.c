// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: what a host reads from a probe — the bulk stream's
 * records, the control payloads, firmware images and the TCP binding's
 * SETUP packets and message headers — on arbitrary bytes.
 * Checks, beyond the sanitizers: DATA pieces lie in the chunk fed and
 * continue the trace offsets; the items (offsets, kinds, bytes) do not
 * depend on how the stream is chunked; decoded payloads encode back to
 * bytes that decode to the same values.
 */
#include <string.h>

#include "spoor/error.h"
#include "spoor/probe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond) do { if (!(cond)) __builtin_trap(); } while (0)

/* A digest of the stream items of @data in chunks of @chunk (0: varying). */
static uint64_t run(const uint8_t *data, size_t size, size_t chunk)
{
	struct spoor_probe_stream *s = spoor_probe_stream_new();
	struct spoor_probe_item it;
	uint64_t h = 1469598103934665603ull, trace = 0;
	size_t off = 0;
	int k;

	REQUIRE(s);
	while (off < size) {
		size_t n = chunk ? chunk : 1 + (size_t)data[off] % 23;

		if (n > size - off)
			n = size - off;
		REQUIRE(!spoor_probe_stream_feed(s, data + off, n));
		while ((k = spoor_probe_stream_next(s, &it, sizeof(it))) > 0) {
			REQUIRE(k == (int)it.kind && k <= SPOOR_PROBE_ITEM_ERROR);
			if (k == SPOOR_PROBE_ITEM_DATA) {
				REQUIRE(it.len && it.data >= data + off && it.data + it.len <= data + off + n);
				REQUIRE(it.offset == trace);
				trace += it.len;
				for (size_t i = 0; i < it.len; i++)
					h = (h ^ it.data[i]) * 1099511628211ull;
				/* DATA pieces split differently with the chunks: their bytes count. */
				continue;
			}
			if (k == SPOOR_PROBE_ITEM_OVERFLOW)
				trace = it.offset + it.lost;
			if (k == SPOOR_PROBE_ITEM_END)
				trace = 0;
			if (k == SPOOR_PROBE_ITEM_ERROR) {
				REQUIRE(it.reason < 0);
				trace = it.offset;
			}
			h = (h ^ (uint64_t)k ^ it.stream_offset << 4 ^ it.offset << 20 ^ it.lost) *
			    1099511628211ull;
		}
		REQUIRE(k == 0);
		off += n;
	}
	spoor_probe_stream_free(s);
	return h;
}

/*
 * A digest of the TCP binding messages in @data taken in chunks of @chunk
 * (0: varying): headers, payload bytes and ends, the same however chunked.
 */
static uint64_t split(const uint8_t *data, size_t size, size_t chunk)
{
	struct spoor_probe_msg_split s = { 0 };
	struct spoor_probe_msg m;
	uint64_t h = 1469598103934665603ull, payload = 0;
	const uint8_t *p;
	size_t off = 0, n, k;
	int ret = 0;

	while (off < size && ret >= 0) {
		const uint8_t *b = data + off;
		size_t len = chunk ? chunk : 1 + (size_t)data[off] % 17;

		if (len > size - off)
			len = size - off;
		off += len;
		while ((ret = spoor_probe_msg_split(&s, &b, &len, &m, &p, &k)) > 0) {
			if (ret == SPOOR_PROBE_SPLIT_PAYLOAD) {
				REQUIRE(k && p >= data && p + k <= data + off);
				for (size_t i = 0; i < k; i++)
					h = (h ^ p[i]) * 1099511628211ull;
				payload += k;
				continue;
			}
			if (ret == SPOOR_PROBE_SPLIT_END) {
				REQUIRE(payload == m.length);
				payload = 0;
			}
			h = (h ^ (uint64_t)ret ^ (uint64_t)m.kind << 8 ^ (uint64_t)m.length << 16) *
			    1099511628211ull;
		}
		REQUIRE(ret <= 0);
		n = s.offset;
		REQUIRE(n <= off);
	}
	return h ^ (uint64_t)(ret < 0) << 63 ^ s.offset;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct spoor_probe_info info, info2;
	struct spoor_probe_config cfg, cfg2;
	struct spoor_probe_status st, st2;
	struct spoor_probe_image img;
	struct spoor_probe_setup su, su2;
	struct spoor_probe_msg m, m2;
	uint8_t buf[64];

	REQUIRE(run(data, size, size ? size : 1) == run(data, size, 0));
	REQUIRE(split(data, size, size ? size : 1) == split(data, size, 0));
	if (!spoor_probe_info_decode(data, size, &info)) {
		REQUIRE(spoor_probe_info_encode(&info, buf) == SPOOR_PROBE_INFO_SIZE);
		REQUIRE(!spoor_probe_info_decode(buf, sizeof(buf), &info2));
		REQUIRE(!memcmp(&info, &info2, sizeof(info)));
	}
	if (!spoor_probe_config_decode(data, size, &cfg)) {
		REQUIRE(spoor_probe_config_encode(&cfg, buf) == SPOOR_PROBE_CONFIG_SIZE);
		REQUIRE(!spoor_probe_config_decode(buf, sizeof(buf), &cfg2));
		REQUIRE(!memcmp(&cfg, &cfg2, sizeof(cfg)));
	}
	if (!spoor_probe_status_decode(data, size, &st)) {
		REQUIRE(spoor_probe_status_encode(&st, buf) == SPOOR_PROBE_STATUS_SIZE);
		REQUIRE(!spoor_probe_status_decode(buf, sizeof(buf), &st2));
		REQUIRE(!memcmp(&st, &st2, sizeof(st)));
	}
	if (!spoor_probe_setup_decode(data, size, &su)) {
		REQUIRE(spoor_probe_setup_encode(&su, buf) == SPOOR_PROBE_SETUP_SIZE);
		REQUIRE(!memcmp(buf, data, SPOOR_PROBE_SETUP_SIZE));
		REQUIRE(!spoor_probe_setup_decode(buf, SPOOR_PROBE_SETUP_SIZE, &su2));
	}
	if (!spoor_probe_msg_decode(data, size, &m)) {
		REQUIRE(m.length <= SPOOR_PROBE_MSG_MAX);
		REQUIRE(spoor_probe_msg_encode(&m, buf) == SPOOR_PROBE_MSG_HEADER);
		REQUIRE(!memcmp(buf, data, SPOOR_PROBE_MSG_HEADER));
		REQUIRE(!spoor_probe_msg_decode(buf, SPOOR_PROBE_MSG_HEADER, &m2));
		REQUIRE(m2.kind == m.kind && m2.status == m.status && m2.length == m.length);
	}
	if (!spoor_probe_image_check(data, size, SPOOR_PROBE_TARGET_SIM, &img))
		REQUIRE(img.length == size - SPOOR_PROBE_IMAGE_HEADER);
	return 0;
}
