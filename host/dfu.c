// SPDX-License-Identifier: MIT
/*
 * The host side of USB DFU 1.1 for the spoor probe (spoor/dfu.h).  Written
 * here rather than calling dfu-util: it is a program, not a library, and the
 * probe needs its own checks around the download (target, read-back,
 * version after reset).  Stock dfu-util works against the probe too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "spoor/dfu.h"
#include "spoor/error.h"

/* DFU 1.1 class requests and states (the spec's numbers). */
enum { DFU_DETACH, DFU_DNLOAD, DFU_UPLOAD, DFU_GETSTATUS, DFU_CLRSTATUS, DFU_GETSTATE, DFU_ABORT };
enum {
	ST_APP_IDLE, ST_APP_DETACH, ST_IDLE, ST_DNLOAD_SYNC, ST_DNBUSY, ST_DNLOAD_IDLE,
	ST_MANIFEST_SYNC, ST_MANIFEST, ST_MANIFEST_WAIT_RESET, ST_UPLOAD_IDLE, ST_ERROR,
};

#define BLOCK 4096		/* wTransferSize of the probe */
#define CONTROL_MS 2000
#define RESET_MS 10000		/* time for the probe to come back after a reset */
#define BUSY_POLLS 1000		/* GETSTATUS polls while busy before giving up */

static const char *const status_names[] = {
	"OK", "errTARGET", "errFILE", "errWRITE", "errERASE", "errCHECK_ERASED", "errPROG",
	"errVERIFY", "errADDRESS", "errNOTDONE", "errFIRMWARE", "errVENDOR", "errUSBR",
	"errPOR", "errUNKNOWN", "errSTALLEDPKT",
};

const char *spoor_dfu_status_name(unsigned status)
{
	return status < sizeof(status_names) / sizeof(status_names[0]) ? status_names[status] :
									  "(unknown status)";
}

struct dfu {
	struct spoor_source *src;
	int intf;
	struct spoor_diag *diag;
};

/* A DFU class request; returns the bytes transferred or an error. */
static int request(struct dfu *d, uint8_t req, uint16_t value, uint8_t *data, uint16_t len,
		   bool in)
{
	return spoor_source_control(d->src, in ? SPOOR_PROBE_DFU_REQTYPE_IN :
					   SPOOR_PROBE_DFU_REQTYPE_OUT, req, value,
				    (uint16_t)d->intf, data, len, CONTROL_MS);
}

/* GETSTATUS: fills @status and @state (waiting out bwPollTimeout).  Returns 0 or an error. */
static int get_status(struct dfu *d, uint8_t *status, uint8_t *state)
{
	uint8_t b[6];
	int ret = request(d, DFU_GETSTATUS, 0, b, sizeof(b), true);
	unsigned poll_ms;

	if (ret < 0)
		return ret;
	if (ret < 6)
		return SPOOR_E_PROTOCOL;
	*status = b[0];
	*state = b[4];
	poll_ms = b[1] | b[2] << 8 | (unsigned)b[3] << 16;
	if (poll_ms > 10000)
		poll_ms = 10000;
	if (poll_ms)
		nanosleep(&(struct timespec){ .tv_sec = poll_ms / 1000,
					      .tv_nsec = (long)(poll_ms % 1000) * 1000000 }, NULL);
	return 0;
}

/* Says why the probe refused (its DFU status) and clears the error. */
static int refused(struct dfu *d, const char *what, uint8_t status)
{
	snprintf(d->diag->msg, sizeof(d->diag->msg), "%s: the probe refused the %s: %s%s",
		 spoor_source_name(d->src), what, spoor_dfu_status_name(status),
		 status == 1 ? " (the image is for other hardware)" :
		 status == 2 || status == 7 ? " (the image is damaged)" :
		 status == 8 ? " (the image is larger than the probe's firmware slot)" : "");
	request(d, DFU_CLRSTATUS, 0, NULL, 0, false);
	return SPOOR_E_STALL;
}

/* Says what failed with @err. */
static int failed(struct dfu *d, const char *what, int err)
{
	snprintf(d->diag->msg, sizeof(d->diag->msg), "%s: %s: %s", spoor_source_name(d->src),
		 what, spoor_errstr(err));
	return err;
}

/* Gets the probe into dfuIDLE: DETACH and a reset when it runs its firmware. */
static int enter_dfu(struct dfu *d, const struct spoor_dfu_ops *ops, void *ctx)
{
	uint8_t status, state;
	int ret = get_status(d, &status, &state);

	if (ret < 0)
		return failed(d, "DFU status", ret);
	if (state == ST_ERROR) {
		request(d, DFU_CLRSTATUS, 0, NULL, 0, false);
		ret = get_status(d, &status, &state);
		if (ret < 0)
			return failed(d, "DFU status", ret);
	}
	if (state == ST_DNLOAD_IDLE || state == ST_UPLOAD_IDLE) {
		request(d, DFU_ABORT, 0, NULL, 0, false);
		state = ST_IDLE;
	}
	if (state == ST_IDLE)
		return 0;
	if (state != ST_APP_IDLE)
		return failed(d, "DFU state", SPOOR_E_PROTOCOL);
	if (ops && ops->progress)
		ops->progress(ctx, SPOOR_DFU_PHASE_DETACH, 0, 0);
	ret = request(d, DFU_DETACH, 1000, NULL, 0, false);
	if (ret < 0)
		return failed(d, "DFU DETACH", ret);
	ret = spoor_source_reset(d->src, RESET_MS);
	if (ret < 0)
		return failed(d, "switching into DFU mode", ret);
	d->intf = spoor_source_dfu_interface(d->src);
	ret = get_status(d, &status, &state);
	if (ret < 0)
		return failed(d, "DFU status", ret);
	if (state != ST_IDLE)
		return failed(d, "switching into DFU mode (the probe did not come back in DFU mode)",
			      SPOOR_E_PROTOCOL);
	return 0;
}

/* Waits through dfuDNBUSY/dfuMANIFEST; returns the state, or an error. */
static int settle(struct dfu *d, uint8_t *status)
{
	uint8_t state;
	int ret;

	for (int i = 0; i < BUSY_POLLS; i++) {
		ret = get_status(d, status, &state);
		if (ret < 0)
			return ret;
		if (state != ST_DNBUSY && state != ST_MANIFEST && state != ST_DNLOAD_SYNC &&
		    state != ST_MANIFEST_SYNC)
			return state;
	}
	return SPOOR_E_TIMEOUT;
}

static int download(struct dfu *d, const uint8_t *img, size_t len,
		    const struct spoor_dfu_ops *ops, void *ctx)
{
	uint8_t status;
	uint16_t block = 0;
	int ret;

	for (size_t off = 0; off < len; off += BLOCK, block++) {
		uint16_t n = (uint16_t)(len - off < BLOCK ? len - off : BLOCK);

		if (ops && ops->cancel && ops->cancel(ctx)) {
			request(d, DFU_ABORT, 0, NULL, 0, false);
			snprintf(d->diag->msg, sizeof(d->diag->msg), "%s: interrupted after %zu of "
				 "%zu bytes; the download was aborted and the old firmware still "
				 "runs", spoor_source_name(d->src), off, len);
			return SPOOR_E_INVAL;
		}
		ret = request(d, DFU_DNLOAD, block, (uint8_t *)img + off, n, false);
		if (ret == SPOOR_E_STALL) {
			get_status(d, &status, &(uint8_t){ 0 });
			return refused(d, "download", status);
		}
		if (ret < 0)
			return failed(d, "DFU DNLOAD", ret);
		ret = settle(d, &status);
		if (ret < 0)
			return failed(d, "DFU status", ret);
		if (ret == ST_ERROR)
			return refused(d, "download", status);
		if (ops && ops->progress)
			ops->progress(ctx, SPOOR_DFU_PHASE_DOWNLOAD, off + n, len);
	}
	/* The end of the download: the probe checks the image and commits it. */
	if (ops && ops->progress)
		ops->progress(ctx, SPOOR_DFU_PHASE_MANIFEST, 0, 0);
	ret = request(d, DFU_DNLOAD, block, NULL, 0, false);
	if (ret < 0 && ret != SPOOR_E_STALL)
		return failed(d, "DFU DNLOAD (end)", ret);
	ret = settle(d, &status);
	if (ret < 0)
		return failed(d, "DFU status", ret);
	if (ret == ST_ERROR || status)
		return refused(d, "image", status);
	return 0;
}

/* Reads the running image back and compares it with @img. */
static int verify(struct dfu *d, const uint8_t *img, size_t len, const struct spoor_dfu_ops *ops,
		  void *ctx)
{
	uint8_t *buf = malloc(BLOCK);
	size_t got = 0;
	int ret = 0;

	if (!buf)
		return SPOOR_E_NOMEM;
	for (uint16_t block = 0;; block++) {
		ret = request(d, DFU_UPLOAD, block, buf, BLOCK, true);
		if (ret < 0) {
			ret = failed(d, "DFU UPLOAD (read-back)", ret);
			break;
		}
		if (got + (size_t)ret > len || memcmp(buf, img + got, (size_t)ret)) {
			snprintf(d->diag->msg, sizeof(d->diag->msg), "%s: the firmware read back "
				 "differs from the image at byte %zu", spoor_source_name(d->src),
				 got);
			ret = SPOOR_E_MISMATCH;
			break;
		}
		got += (size_t)ret;
		if (ops && ops->progress)
			ops->progress(ctx, SPOOR_DFU_PHASE_VERIFY, got, len);
		if (ret < BLOCK) {
			ret = 0;
			break;
		}
	}
	free(buf);
	if (!ret && got != len) {
		snprintf(d->diag->msg, sizeof(d->diag->msg), "%s: read back %zu bytes of the %zu "
			 "written", spoor_source_name(d->src), got, len);
		ret = SPOOR_E_MISMATCH;
	}
	return ret;
}

/* Reads the running image's header by UPLOAD (DFU mode): its target and version. */
static int running_image(struct dfu *d, struct spoor_probe_info *info)
{
	uint8_t b[SPOOR_PROBE_IMAGE_HEADER];
	struct spoor_probe_image img;
	int ret = request(d, DFU_UPLOAD, 0, b, sizeof(b), true);

	/* A short block ends the upload; ABORT ends a longer one. */
	request(d, DFU_ABORT, 0, NULL, 0, false);
	if (ret < 0)
		return ret;
	if (ret < (int)sizeof(b))
		return SPOOR_E_PROTOCOL;
	/* Target 0 is no probe's: the header's fields are filled all the same. */
	ret = spoor_probe_image_check(b, sizeof(b), 0, &img);
	if (ret == SPOOR_E_BAD_HEADER || ret == SPOOR_E_TRUNCATED)
		return SPOOR_E_PROTOCOL;
	memset(info, 0, sizeof(*info));
	info->target = img.target;
	info->firmware_version = img.version;
	return 0;
}

int spoor_dfu_flash(struct spoor_source *src, const uint8_t *img, size_t len,
		    const struct spoor_dfu_ops *ops, void *ctx, uint32_t *old_version,
		    uint32_t *new_version, struct spoor_diag *diag)
{
	struct dfu d = { .src = src, .diag = diag };
	struct spoor_probe_info info;
	struct spoor_probe_image hdr;
	int ret;

	diag->msg[0] = 0;
	d.intf = spoor_source_dfu_interface(src);
	if (d.intf < 0)
		return failed(&d, "no DFU interface", d.intf);
	ret = spoor_source_info(src, &info);
	/* In DFU mode (an update cut short) the image it runs says what it is. */
	if (ret == SPOOR_E_STALL)
		ret = running_image(&d, &info);
	if (ret < 0)
		return failed(&d, "reading the probe's info", ret);
	if (old_version)
		*old_version = info.firmware_version;
	ret = spoor_probe_image_check(img, len, info.target, &hdr);
	if (ret < 0) {
		snprintf(diag->msg, sizeof(diag->msg), "%s: %s", spoor_source_name(src),
			 ret == SPOOR_E_BAD_CONFIG ? "the image is for another probe (target "
			 "ID differs); nothing was sent" :
			 ret == SPOOR_E_BAD_HEADER ? "not a spoor probe firmware image (bad magic "
			 "or header CRC); nothing was sent" :
			 ret == SPOOR_E_CHECKSUM ? "the image is damaged (CRC-32 of its body "
			 "differs); nothing was sent" :
			 "the image's length does not match its header; nothing was sent");
		return ret;
	}
	ret = enter_dfu(&d, ops, ctx);
	if (ret < 0)
		return ret;
	ret = download(&d, img, len, ops, ctx);
	if (!ret)
		ret = verify(&d, img, len, ops, ctx);
	if (ret < 0) {
		/* Refused or cut short: back to run time, where the old firmware runs. */
		spoor_source_reset(src, RESET_MS);
		return ret;
	}
	if (ops && ops->progress)
		ops->progress(ctx, SPOOR_DFU_PHASE_RESET, 0, 0);
	ret = spoor_source_reset(src, RESET_MS);
	if (ret < 0)
		return failed(&d, "restarting the probe", ret);
	ret = spoor_source_info(src, &info);
	if (ret < 0)
		return failed(&d, "reading the probe's info after the update", ret);
	if (new_version)
		*new_version = info.firmware_version;
	if (info.firmware_version != hdr.version) {
		snprintf(diag->msg, sizeof(diag->msg), "%s: after the update the probe runs "
			 "version 0x%06x, not the image's 0x%06x", spoor_source_name(src),
			 (unsigned)info.firmware_version, (unsigned)hdr.version);
		return SPOOR_E_MISMATCH;
	}
	return 0;
}
