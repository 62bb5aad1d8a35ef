// SPDX-License-Identifier: MIT
/*
 * Tests for the probe firmware's DFU interface (probe/firmware/core/dfu.h)
 * over a flash of two slots in memory: a good image becomes the one to
 * boot; a foreign, corrupt, truncated, oversized, out-of-order or
 * interrupted download is refused and the running image stays.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dfu.h"
#include "rng.h"
#include "spoor/probe.h"

#define SLOT (64 * 1024)

struct flash {
	uint8_t slot[2][SLOT];
	unsigned active;
	unsigned commits;
};

static int f_erase(void *ctx, unsigned s)
{
	memset(((struct flash *)ctx)->slot[s], 0xff, SLOT);
	return 0;
}

static int f_write(void *ctx, unsigned s, uint32_t off, const uint8_t *b, size_t n)
{
	if (off + n > SLOT)
		return -1;
	memcpy(((struct flash *)ctx)->slot[s] + off, b, n);
	return 0;
}

static int f_read(void *ctx, unsigned s, uint32_t off, uint8_t *b, size_t n)
{
	if (off + n > SLOT)
		return -1;
	memcpy(b, ((struct flash *)ctx)->slot[s] + off, n);
	return 0;
}

static int f_commit(void *ctx, unsigned s)
{
	struct flash *f = ctx;

	f->active = s;
	f->commits++;
	return 0;
}

static unsigned f_active(void *ctx)
{
	return ((struct flash *)ctx)->active;
}

/* An image of @n bytes for @target, version @version, in a malloc'd buffer. */
static uint8_t *image(uint32_t target, uint32_t version, size_t n)
{
	uint8_t *b = malloc(SPOOR_PROBE_IMAGE_HEADER + n);
	struct spoor_probe_image img = { .target = target, .version = version,
					 .length = (uint32_t)n };

	for (size_t i = 0; i < n; i++)
		b[SPOOR_PROBE_IMAGE_HEADER + i] = (uint8_t)rnd();
	img.crc32 = spoor_probe_crc32(0, b + SPOOR_PROBE_IMAGE_HEADER, n);
	spoor_probe_image_header(&img, b);
	return b;
}

/*
 * Downloads @len bytes of @b in 1 KiB blocks as dfu-util does (DNLOAD,
 * GETSTATUS each), ending with an empty DNLOAD and GETSTATUS unless @cut.
 * Returns the final status byte (or 0xff when a request stalled first).
 */
static uint8_t download(struct spoor_fw_dfu *d, const uint8_t *b, size_t len, bool cut,
			bool swap_blocks)
{
	uint8_t st[SPOOR_DFU_STATUS_SIZE], blk[1024];
	uint16_t block = 0;

	for (size_t off = 0; off < len; off += 1024, block++) {
		size_t n = len - off < 1024 ? len - off : 1024;
		uint16_t num = swap_blocks && block == 1 ? 2 : block;

		memcpy(blk, b + off, n);
		if (spoor_fw_dfu_request(d, SPOOR_DFU_DNLOAD, num, blk, n))
			return spoor_fw_dfu_request(d, SPOOR_DFU_GETSTATUS, 0, st, sizeof(st)) ==
			       SPOOR_DFU_STATUS_SIZE ? st[0] : 0xff;
		if (spoor_fw_dfu_request(d, SPOOR_DFU_GETSTATUS, 0, st, sizeof(st)) !=
		    SPOOR_DFU_STATUS_SIZE || st[4] != SPOOR_DFU_DNLOAD_IDLE)
			return 0xfe;
	}
	if (cut)
		return SPOOR_DFU_OK;
	if (spoor_fw_dfu_request(d, SPOOR_DFU_DNLOAD, block, NULL, 0))
		return 0xfd;
	spoor_fw_dfu_request(d, SPOOR_DFU_GETSTATUS, 0, st, sizeof(st));
	return st[0];
}

int main(int argc, char **argv)
{
	static struct flash fl;
	const struct spoor_fw_flash flash = {
		.slot_size = SLOT, .erase = f_erase, .write = f_write, .read = f_read,
		.commit = f_commit, .active = f_active, .ctx = &fl,
	};
	struct spoor_fw_dfu d;
	uint8_t *v1 = image(SPOOR_PROBE_TARGET_SIM, 1, 10000), *v2 = image(SPOOR_PROBE_TARGET_SIM, 2, 20000);
	uint8_t *other = image(0x12345678, 3, 5000), *big = image(SPOOR_PROBE_TARGET_SIM, 4, SLOT);
	uint8_t buf[4096], st[SPOOR_DFU_STATUS_SIZE], state;
	size_t up = 0;
	int n;

	check_args(argc, argv,
		   "Tests for the probe firmware's DFU interface (probe/firmware/core/dfu.h).");

	memcpy(fl.slot[0], v1, SPOOR_PROBE_IMAGE_HEADER + 10000);
	fl.active = 0;

	/* Run-time mode: DETACH, and nothing else but the status requests. */
	spoor_fw_dfu_init(&d, &flash, SPOOR_PROBE_TARGET_SIM, true);
	CHECK_EQ(spoor_fw_dfu_request(&d, SPOOR_DFU_DNLOAD, 0, buf, 16), -1);
	CHECK_EQ(spoor_fw_dfu_request(&d, SPOOR_DFU_GETSTATE, 0, &state, 1), 1);
	CHECK_EQ(state, SPOOR_DFU_APP_IDLE);
	CHECK_EQ(spoor_fw_dfu_request(&d, SPOOR_DFU_DETACH, 1000, NULL, 0), 0);
	CHECK(d.detach);
	CHECK_EQ(d.state, SPOOR_DFU_APP_DETACH);

	/* DFU mode: a good image becomes the one to boot; the upload gives it back. */
	spoor_fw_dfu_init(&d, &flash, SPOOR_PROBE_TARGET_SIM, false);
	CHECK_EQ(download(&d, v2, SPOOR_PROBE_IMAGE_HEADER + 20000, false, false), SPOOR_DFU_OK);
	CHECK_EQ(d.state, SPOOR_DFU_IDLE);
	CHECK_EQ(fl.active, 1);
	CHECK_EQ(fl.commits, 1);
	while ((n = spoor_fw_dfu_request(&d, SPOOR_DFU_UPLOAD, 0, buf, sizeof(buf))) > 0) {
		CHECK(!memcmp(buf, v2 + up, (size_t)n));
		up += (size_t)n;
		if ((size_t)n < sizeof(buf))
			break;
	}
	CHECK_EQ(up, SPOOR_PROBE_IMAGE_HEADER + 20000);
	CHECK_EQ(d.state, SPOOR_DFU_IDLE);

	/* Another target's image: refused, v2 still runs. */
	CHECK_EQ(download(&d, other, SPOOR_PROBE_IMAGE_HEADER + 5000, false, false),
		 SPOOR_DFU_ERR_TARGET);
	CHECK_EQ(d.state, SPOOR_DFU_ERROR);
	CHECK_EQ(fl.active, 1);
	CHECK_EQ(spoor_fw_dfu_request(&d, SPOOR_DFU_DNLOAD, 0, buf, 16), -1);	/* error: stall */
	CHECK_EQ(spoor_fw_dfu_request(&d, SPOOR_DFU_CLRSTATUS, 0, NULL, 0), 0);
	CHECK_EQ(d.state, SPOOR_DFU_IDLE);

	/* A corrupt image: refused. */
	v1[SPOOR_PROBE_IMAGE_HEADER + 5000] ^= 0x10;
	CHECK_EQ(download(&d, v1, SPOOR_PROBE_IMAGE_HEADER + 10000, false, false),
		 SPOOR_DFU_ERR_VERIFY);
	v1[SPOOR_PROBE_IMAGE_HEADER + 5000] ^= 0x10;
	spoor_fw_dfu_request(&d, SPOOR_DFU_CLRSTATUS, 0, NULL, 0);
	/* Cut short (the header promises more): refused. */
	CHECK_EQ(download(&d, v1, SPOOR_PROBE_IMAGE_HEADER + 6000, false, false),
		 SPOOR_DFU_ERR_FILE);
	spoor_fw_dfu_request(&d, SPOOR_DFU_CLRSTATUS, 0, NULL, 0);
	/* Not an image at all. */
	CHECK_EQ(download(&d, v1 + 100, 3000, false, false), SPOOR_DFU_ERR_FILE);
	spoor_fw_dfu_request(&d, SPOOR_DFU_CLRSTATUS, 0, NULL, 0);
	/* Blocks out of order, and a download larger than a slot. */
	CHECK_EQ(download(&d, v1, SPOOR_PROBE_IMAGE_HEADER + 10000, false, true),
		 SPOOR_DFU_ERR_ADDRESS);
	spoor_fw_dfu_request(&d, SPOOR_DFU_CLRSTATUS, 0, NULL, 0);
	CHECK_EQ(download(&d, big, SPOOR_PROBE_IMAGE_HEADER + SLOT, false, false),
		 SPOOR_DFU_ERR_ADDRESS);
	spoor_fw_dfu_request(&d, SPOOR_DFU_CLRSTATUS, 0, NULL, 0);
	/* Interrupted, then aborted: forgotten. */
	CHECK_EQ(download(&d, v1, SPOOR_PROBE_IMAGE_HEADER + 10000, true, false), SPOOR_DFU_OK);
	CHECK_EQ(spoor_fw_dfu_request(&d, SPOOR_DFU_ABORT, 0, NULL, 0), 0);
	CHECK_EQ(d.state, SPOOR_DFU_IDLE);
	CHECK_EQ(fl.active, 1);
	CHECK_EQ(fl.commits, 1);
	/* An empty download: nothing to do. */
	CHECK_EQ(spoor_fw_dfu_request(&d, SPOOR_DFU_DNLOAD, 0, NULL, 0), -1);
	CHECK_EQ(spoor_fw_dfu_request(&d, SPOOR_DFU_GETSTATUS, 0, st, sizeof(st)),
		 SPOOR_DFU_STATUS_SIZE);
	CHECK_EQ(st[0], SPOOR_DFU_ERR_NOTDONE);
	spoor_fw_dfu_request(&d, SPOOR_DFU_CLRSTATUS, 0, NULL, 0);
	/* After all that, v1 goes in fine (into slot 0, the spare one). */
	CHECK_EQ(download(&d, v1, SPOOR_PROBE_IMAGE_HEADER + 10000, false, false), SPOOR_DFU_OK);
	CHECK_EQ(fl.active, 0);
	CHECK_EQ(fl.commits, 2);
	CHECK(!memcmp(fl.slot[1], v2, SPOOR_PROBE_IMAGE_HEADER + 20000));
	free(v1);
	free(v2);
	free(other);
	free(big);
	return check_done();
}
