// SPDX-License-Identifier: MIT
/*
 * Tests for the probe firmware core (probe/firmware/core/fw.h): requests,
 * the capture buffer's overflow accounting, and its bulk stream read back
 * by the host's decoder (probe.h) — every byte kept arrives in order at its
 * trace offset, every byte lost is reported where it was lost.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fw.h"
#include "rng.h"
#include "spoor/error.h"

static const struct spoor_probe_info info = {
	.protocol_version = SPOOR_PROBE_PROTOCOL_VERSION, .firmware_version = 0x000100,
	.capabilities = SPOOR_PROBE_CAP_DDR, .port_widths = 0x008b /* 1, 2, 4, 8 */, .serial = "UNIT",
};

static void test_requests(void)
{
	static uint8_t mem[1024];
	struct spoor_fw fw;
	struct spoor_probe_info got;
	struct spoor_probe_config c = { .port_width = 8, .flags = SPOOR_PROBE_CFG_DDR };
	struct spoor_probe_status st;
	uint8_t d[64];

	CHECK_EQ(spoor_fw_init(&fw, mem, 1000, &info), SPOOR_E_INVAL);
	CHECK_EQ(spoor_fw_init(&fw, mem, 32, &info), SPOOR_E_INVAL);
	CHECK_EQ(spoor_fw_init(&fw, mem, sizeof(mem), &info), 0);
	CHECK_EQ(spoor_fw_control(&fw, SPOOR_PROBE_GET_INFO, d, sizeof(d)), SPOOR_PROBE_INFO_SIZE);
	CHECK_EQ(spoor_probe_info_decode(d, SPOOR_PROBE_INFO_SIZE, &got), 0);
	CHECK_EQ(got.buffer_size, sizeof(mem));
	CHECK(!strcmp(got.serial, "UNIT"));
	CHECK_EQ(spoor_fw_control(&fw, SPOOR_PROBE_GET_INFO, d, 10), -1);
	CHECK_EQ(spoor_fw_control(&fw, 0x77, d, 0), -1);
	spoor_probe_config_encode(&c, d);
	CHECK_EQ(spoor_fw_control(&fw, SPOOR_PROBE_SET_CONFIG, d, SPOOR_PROBE_CONFIG_SIZE), 0);
	CHECK_EQ(fw.cfg.port_width, 8);
	c.port_width = 16;	/* a width this probe does not have */
	spoor_probe_config_encode(&c, d);
	CHECK_EQ(spoor_fw_control(&fw, SPOOR_PROBE_SET_CONFIG, d, SPOOR_PROBE_CONFIG_SIZE), -1);
	CHECK_EQ(fw.cfg.port_width, 8);
	c.port_width = 4;
	c.flags = SPOOR_PROBE_CFG_FALLING;	/* no falling-edge capability */
	spoor_probe_config_encode(&c, d);
	CHECK_EQ(spoor_fw_control(&fw, SPOOR_PROBE_SET_CONFIG, d, SPOOR_PROBE_CONFIG_SIZE), -1);
	CHECK_EQ(spoor_fw_control(&fw, SPOOR_PROBE_SET_CONFIG, d, 3), -1);
	/* Bytes while idle go nowhere. */
	CHECK_EQ(spoor_fw_trace_in(&fw, d, 10), 0);
	CHECK_EQ(spoor_fw_control(&fw, SPOOR_PROBE_START, NULL, 0), 0);
	CHECK_EQ(spoor_fw_control(&fw, SPOOR_PROBE_START, NULL, 0), -1);
	c.flags = 0;
	spoor_probe_config_encode(&c, d);
	CHECK_EQ(spoor_fw_control(&fw, SPOOR_PROBE_SET_CONFIG, d, SPOOR_PROBE_CONFIG_SIZE), -1);
	CHECK_EQ(spoor_fw_trace_in(&fw, d, 10), 10);
	CHECK_EQ(spoor_fw_control(&fw, SPOOR_PROBE_GET_STATUS, d, sizeof(d)),
		 SPOOR_PROBE_STATUS_SIZE);
	CHECK_EQ(spoor_probe_status_decode(d, SPOOR_PROBE_STATUS_SIZE, &st), 0);
	CHECK_EQ(st.state, SPOOR_PROBE_CAPTURING);
	CHECK_EQ(st.bytes_captured, 10);
	CHECK_EQ(st.high_water, 10);
	CHECK_EQ(spoor_fw_control(&fw, SPOOR_PROBE_STOP, NULL, 0), 0);
	CHECK_EQ(fw.state, SPOOR_PROBE_STOPPING);
	/* Drained: DATA then END, and idle again. */
	CHECK_EQ(spoor_fw_bulk_in(&fw, d, sizeof(d)), 4 + 10 + 4 + 8);
	CHECK_EQ(d[0], SPOOR_PROBE_REC_DATA);
	CHECK_EQ(d[14], SPOOR_PROBE_REC_END);
	CHECK_EQ(fw.state, SPOOR_PROBE_IDLE);
	CHECK_EQ(spoor_fw_bulk_in(&fw, d, sizeof(d)), 0);
}

/*
 * A capture with a buffer too small for the port: random bursts in, random
 * transfers out; the host's decoder must see every kept byte at its offset
 * and every loss exactly.  @drain_every: transfers per burst (0 = rarely).
 */
static void run_capture(size_t bufsize, unsigned bursts, unsigned drain_every)
{
	uint8_t *mem = malloc(bufsize), *in = malloc(1 << 22), *xfer = malloc(65536);
	uint8_t *kept = malloc(1 << 22);	/* the model: kept bytes, in order */
	uint64_t total = 0, nkept = 0, lost = 0, got = 0, got_lost = 0, bad = 0;
	struct spoor_probe_stream *s = spoor_probe_stream_new();
	struct spoor_probe_item it;
	struct spoor_fw fw;
	bool ended = false;
	int k;

	CHECK_EQ(spoor_fw_init(&fw, mem, bufsize, &info), 0);
	CHECK_EQ(spoor_fw_control(&fw, SPOOR_PROBE_START, NULL, 0), 0);
	for (unsigned b = 0; b <= bursts; b++) {
		if (b < bursts) {
			size_t n = 1 + rnd_below(bufsize / 2 + 1);
			size_t keep;

			for (size_t i = 0; i < n; i++)
				in[i] = (uint8_t)rnd();
			keep = spoor_fw_trace_in(&fw, in, n);
			memcpy(kept + nkept, in, keep);
			nkept += keep;
			lost += n - keep;
			total += n;
		} else {
			spoor_fw_control(&fw, SPOOR_PROBE_STOP, NULL, 0);
		}
		for (unsigned d = 0; d < (b == bursts ? 1000u : drain_every ? drain_every :
					  (rnd_below(8) == 0)); d++) {
			size_t n = spoor_fw_bulk_in(&fw, xfer, 16 + rnd_below(3000));

			if (!n && b == bursts)
				break;
			spoor_probe_stream_feed(s, xfer, n);
			while ((k = spoor_probe_stream_next(s, &it, sizeof(it))) > 0) {
				if (k == SPOOR_PROBE_ITEM_DATA) {
					bad += it.offset != got + got_lost || got + it.len > nkept ||
					       memcmp(it.data, kept + got, it.len);
					got += it.len;
				} else if (k == SPOOR_PROBE_ITEM_OVERFLOW) {
					bad += it.offset != got + got_lost;
					got_lost += it.lost;
				} else if (k == SPOOR_PROBE_ITEM_END) {
					bad += it.offset != total;
					ended = true;
				} else {
					bad++;
				}
			}
		}
	}
	CHECK_EQ(bad, 0);
	CHECK(ended);
	CHECK_EQ(got, nkept);
	CHECK_EQ(got_lost, lost);
	CHECK_EQ(fw.captured, total);
	CHECK_EQ(fw.lost, lost);
	CHECK_EQ(fw.state, SPOOR_PROBE_IDLE);
	CHECK(fw.high_water <= bufsize);
	spoor_probe_stream_free(s);
	free(mem);
	free(in);
	free(xfer);
	free(kept);
}

static void test_capture(void)
{
	run_capture(4096, 400, 0);	/* overflowing: losses, marks in use */
	run_capture(4096, 400, 4);	/* drained often: few or no losses */
	run_capture(64, 2000, 0);	/* more losses than marks: merged, still exact */
	run_capture(1 << 16, 50, 1);
}

int main(int argc, char **argv)
{
	check_args(argc, argv,
		   "Tests for the probe firmware core (fw.h): requests, capture, overflow.");
	test_requests();
	test_capture();
	return check_done();
}
