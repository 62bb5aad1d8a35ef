// SPDX-License-Identifier: MIT
/* The probe firmware's USB DFU 1.1 interface over two image slots (dfu.h). */
#include <string.h>

#include "dfu.h"
#include "spoor/error.h"
#include "spoor/probe.h"

void spoor_fw_dfu_init(struct spoor_fw_dfu *dfu, const struct spoor_fw_flash *flash,
		       uint32_t target, bool runtime)
{
	memset(dfu, 0, sizeof(*dfu));
	dfu->flash = flash;
	dfu->target = target;
	dfu->state = runtime ? SPOOR_DFU_APP_IDLE : SPOOR_DFU_IDLE;
}

/* The slot a download goes to: the one not running. */
static unsigned spare(const struct spoor_fw_dfu *dfu)
{
	return dfu->flash->active(dfu->flash->ctx) ? 0 : 1;
}

/* Enters dfuERROR with @status; returns -1 (STALL). */
static int fail(struct spoor_fw_dfu *dfu, uint8_t status)
{
	dfu->state = SPOOR_DFU_ERROR;
	dfu->status = status;
	return -1;
}

/* Checks the downloaded image in the spare slot; returns a DFU status. */
static uint8_t verify(struct spoor_fw_dfu *dfu)
{
	const struct spoor_fw_flash *f = dfu->flash;
	unsigned slot = spare(dfu);
	uint8_t hdr[SPOOR_PROBE_IMAGE_HEADER], chunk[256];
	struct spoor_probe_image img;
	uint32_t crc = 0;
	int ret;

	if (dfu->dl_len < SPOOR_PROBE_IMAGE_HEADER ||
	    f->read(f->ctx, slot, 0, hdr, sizeof(hdr)))
		return SPOOR_DFU_ERR_FILE;
	/* The header alone (its length field then checked against the download). */
	ret = spoor_probe_image_check(hdr, sizeof(hdr), dfu->target, &img);
	if (ret == SPOOR_E_BAD_HEADER)
		return SPOOR_DFU_ERR_FILE;
	if (ret == SPOOR_E_BAD_CONFIG)
		return SPOOR_DFU_ERR_TARGET;
	if (img.length != dfu->dl_len - SPOOR_PROBE_IMAGE_HEADER)
		return SPOOR_DFU_ERR_FILE;
	for (uint32_t off = 0; off < img.length;) {
		size_t n = img.length - off < sizeof(chunk) ? img.length - off : sizeof(chunk);

		if (f->read(f->ctx, slot, SPOOR_PROBE_IMAGE_HEADER + off, chunk, n))
			return SPOOR_DFU_ERR_VERIFY;
		crc = spoor_probe_crc32(crc, chunk, n);
		off += (uint32_t)n;
	}
	return crc == img.crc32 ? SPOOR_DFU_OK : SPOOR_DFU_ERR_VERIFY;
}

/* DNLOAD: a block, or (empty) the end of the download. */
static int dnload(struct spoor_fw_dfu *dfu, uint16_t block, const uint8_t *data, size_t len)
{
	const struct spoor_fw_flash *f = dfu->flash;

	if (dfu->state == SPOOR_DFU_IDLE) {
		if (!len)
			return fail(dfu, SPOOR_DFU_ERR_NOTDONE);
		dfu->dl_len = 0;
		dfu->next_block = block;
		/* A new download overwrites the slot a previous one committed. */
		if (dfu->committed && dfu->committed_slot == spare(dfu))
			dfu->committed = false;
		if (f->erase(f->ctx, spare(dfu)))
			return fail(dfu, SPOOR_DFU_ERR_ERASE);
	} else if (dfu->state != SPOOR_DFU_DNLOAD_IDLE) {
		return fail(dfu, SPOOR_DFU_ERR_STALLEDPKT);
	}
	if (!len) {
		dfu->state = SPOOR_DFU_MANIFEST_SYNC;
		return 0;
	}
	if (block != dfu->next_block)
		return fail(dfu, SPOOR_DFU_ERR_ADDRESS);
	if (len > f->slot_size || dfu->dl_len > f->slot_size - len)
		return fail(dfu, SPOOR_DFU_ERR_ADDRESS);
	if (f->write(f->ctx, spare(dfu), dfu->dl_len, data, len))
		return fail(dfu, SPOOR_DFU_ERR_WRITE);
	dfu->dl_len += (uint32_t)len;
	dfu->next_block = (uint16_t)(block + 1);
	dfu->state = SPOOR_DFU_DNLOAD_SYNC;
	return 0;
}

/*
 * UPLOAD: the image that runs from the next reset — the one committed by a
 * download in this DFU session, else the one running — header and body,
 * @len bytes at a time: what a host reads back to verify an update.
 */
static int upload(struct spoor_fw_dfu *dfu, uint8_t *data, size_t len)
{
	const struct spoor_fw_flash *f = dfu->flash;
	unsigned slot = dfu->committed ? dfu->committed_slot : f->active(f->ctx);
	uint8_t hdr[SPOOR_PROBE_IMAGE_HEADER];
	struct spoor_probe_image img;
	uint32_t total;
	size_t n;

	if (dfu->state == SPOOR_DFU_IDLE)
		dfu->ul_off = 0;
	else if (dfu->state != SPOOR_DFU_UPLOAD_IDLE)
		return fail(dfu, SPOOR_DFU_ERR_STALLEDPKT);
	if (f->read(f->ctx, slot, 0, hdr, sizeof(hdr)) ||
	    spoor_probe_image_check(hdr, sizeof(hdr), dfu->target, &img) == SPOOR_E_BAD_HEADER ||
	    img.length > f->slot_size - SPOOR_PROBE_IMAGE_HEADER)
		return fail(dfu, SPOOR_DFU_ERR_FIRMWARE);
	total = SPOOR_PROBE_IMAGE_HEADER + img.length;
	n = total - dfu->ul_off < len ? total - dfu->ul_off : len;
	if (n && f->read(f->ctx, slot, dfu->ul_off, data, n))
		return fail(dfu, SPOOR_DFU_ERR_UNKNOWN);
	dfu->ul_off += (uint32_t)n;
	/* A short block ends the upload. */
	dfu->state = n < len ? SPOOR_DFU_IDLE : SPOOR_DFU_UPLOAD_IDLE;
	return (int)n;
}

/* GETSTATUS: advances the synchronous states (the work is already done). */
static int getstatus(struct spoor_fw_dfu *dfu, uint8_t *data, size_t len)
{
	if (len < SPOOR_DFU_STATUS_SIZE)
		return -1;
	if (dfu->state == SPOOR_DFU_DNLOAD_SYNC) {
		dfu->state = SPOOR_DFU_DNLOAD_IDLE;
	} else if (dfu->state == SPOOR_DFU_MANIFEST_SYNC) {
		unsigned slot = spare(dfu);	/* (a port's commit may switch slots at once) */
		uint8_t st = verify(dfu);

		if (st != SPOOR_DFU_OK)
			fail(dfu, st);
		else if (dfu->flash->commit(dfu->flash->ctx, slot))
			fail(dfu, SPOOR_DFU_ERR_PROG);
		else {
			dfu->committed = true;
			dfu->committed_slot = (uint8_t)slot;
			dfu->state = SPOOR_DFU_IDLE;	/* manifestation tolerant */
		}
	}
	data[0] = dfu->status;
	data[1] = data[2] = data[3] = 0;	/* bwPollTimeout: no wait */
	data[4] = dfu->state;
	data[5] = 0;
	return SPOOR_DFU_STATUS_SIZE;
}

int spoor_fw_dfu_request(struct spoor_fw_dfu *dfu, uint8_t request, uint16_t value,
			 uint8_t *data, size_t len)
{
	bool app = dfu->state == SPOOR_DFU_APP_IDLE || dfu->state == SPOOR_DFU_APP_DETACH;

	switch (request) {
	case SPOOR_DFU_GETSTATUS:
		return getstatus(dfu, data, len);
	case SPOOR_DFU_GETSTATE:
		if (!len)
			return -1;
		data[0] = dfu->state;
		return 1;
	case SPOOR_DFU_DETACH:
		if (dfu->state != SPOOR_DFU_APP_IDLE)
			return app ? -1 : fail(dfu, SPOOR_DFU_ERR_STALLEDPKT);
		dfu->state = SPOOR_DFU_APP_DETACH;
		dfu->detach = true;
		return 0;
	default:
		break;
	}
	if (app)
		return -1;	/* in run-time mode only DETACH and the status requests */
	switch (request) {
	case SPOOR_DFU_DNLOAD:
		return dnload(dfu, value, data, len);
	case SPOOR_DFU_UPLOAD:
		return upload(dfu, data, len);
	case SPOOR_DFU_CLRSTATUS:
		if (dfu->state != SPOOR_DFU_ERROR)
			return fail(dfu, SPOOR_DFU_ERR_STALLEDPKT);
		dfu->state = SPOOR_DFU_IDLE;
		dfu->status = SPOOR_DFU_OK;
		return 0;
	case SPOOR_DFU_ABORT:
		if (dfu->state != SPOOR_DFU_IDLE && dfu->state != SPOOR_DFU_DNLOAD_IDLE &&
		    dfu->state != SPOOR_DFU_UPLOAD_IDLE && dfu->state != SPOOR_DFU_DNLOAD_SYNC &&
		    dfu->state != SPOOR_DFU_MANIFEST_SYNC)
			return fail(dfu, SPOOR_DFU_ERR_STALLEDPKT);
		/* An interrupted download is forgotten: the running image stays. */
		dfu->state = SPOOR_DFU_IDLE;
		dfu->dl_len = 0;
		return 0;
	default:
		return fail(dfu, SPOOR_DFU_ERR_STALLEDPKT);
	}
}
