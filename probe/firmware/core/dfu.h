/* SPDX-License-Identifier: MIT */
/*
 * The probe firmware's USB DFU 1.1 interface: the DFU state machine over a
 * flash with two image slots.  A download goes to the slot not running; it
 * becomes the one to boot (commit) only after the whole image checks
 * (probe.h: magic, header CRC, this probe's target ID, length, image CRC),
 * so an interrupted, corrupt or foreign download leaves the running
 * firmware in charge.  Manifestation-tolerant: after a good download the
 * device is back in dfuIDLE (dfu-util then does not wait or reset).
 */
#ifndef SPOOR_FW_DFU_H
#define SPOOR_FW_DFU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum spoor_dfu_request {
	SPOOR_DFU_DETACH = 0, SPOOR_DFU_DNLOAD, SPOOR_DFU_UPLOAD, SPOOR_DFU_GETSTATUS,
	SPOOR_DFU_CLRSTATUS, SPOOR_DFU_GETSTATE, SPOOR_DFU_ABORT,
};

enum spoor_dfu_state {
	SPOOR_DFU_APP_IDLE = 0, SPOOR_DFU_APP_DETACH, SPOOR_DFU_IDLE, SPOOR_DFU_DNLOAD_SYNC,
	SPOOR_DFU_DNBUSY, SPOOR_DFU_DNLOAD_IDLE, SPOOR_DFU_MANIFEST_SYNC, SPOOR_DFU_MANIFEST,
	SPOOR_DFU_MANIFEST_WAIT_RESET, SPOOR_DFU_UPLOAD_IDLE, SPOOR_DFU_ERROR,
};

enum spoor_dfu_status {
	SPOOR_DFU_OK = 0, SPOOR_DFU_ERR_TARGET, SPOOR_DFU_ERR_FILE, SPOOR_DFU_ERR_WRITE,
	SPOOR_DFU_ERR_ERASE, SPOOR_DFU_ERR_CHECK_ERASED, SPOOR_DFU_ERR_PROG, SPOOR_DFU_ERR_VERIFY,
	SPOOR_DFU_ERR_ADDRESS, SPOOR_DFU_ERR_NOTDONE, SPOOR_DFU_ERR_FIRMWARE, SPOOR_DFU_ERR_VENDOR,
	SPOOR_DFU_ERR_USBR, SPOOR_DFU_ERR_POR, SPOOR_DFU_ERR_UNKNOWN, SPOOR_DFU_ERR_STALLEDPKT,
};

#define SPOOR_DFU_STATUS_SIZE 6

/* The flash, as a port provides it: two slots of slot_size bytes. */
struct spoor_fw_flash {
	size_t slot_size;
	int (*erase)(void *ctx, unsigned slot);			/* 0 or < 0 */
	int (*write)(void *ctx, unsigned slot, uint32_t off, const uint8_t *b, size_t n);
	int (*read)(void *ctx, unsigned slot, uint32_t off, uint8_t *b, size_t n);
	int (*commit)(void *ctx, unsigned slot);		/* boot @slot from now on */
	unsigned (*active)(void *ctx);				/* the slot running */
	void *ctx;
};

struct spoor_fw_dfu {
	const struct spoor_fw_flash *flash;
	uint32_t target;	/* this probe's target ID */
	uint8_t state;		/* enum spoor_dfu_state */
	uint8_t status;		/* enum spoor_dfu_status */
	uint16_t next_block;	/* wBlockNum the next DNLOAD must have */
	uint32_t dl_len;	/* bytes downloaded so far */
	uint32_t ul_off;	/* bytes uploaded so far */
	bool detach;		/* DETACH came: the port resets into DFU mode */
	bool committed;		/* a download was committed: it runs from the next reset */
	uint8_t committed_slot;	/* ... from this slot (UPLOAD reads it back) */
};

/*
 * Sets @dfu up for @flash and @target, in run-time mode (appIDLE: DETACH
 * is all it takes) or DFU mode (dfuIDLE).
 */
void spoor_fw_dfu_init(struct spoor_fw_dfu *dfu, const struct spoor_fw_flash *flash,
		       uint32_t target, bool runtime);

/*
 * A DFU class request @request with wValue @value and @len data bytes at
 * @data (DNLOAD) or room for @len bytes (UPLOAD, GETSTATUS, GETSTATE).
 * Returns the bytes of an IN reply, 0 for a request taken, or -1 to STALL
 * (the state then is dfuERROR, as the spec asks, in DFU mode).
 */
int spoor_fw_dfu_request(struct spoor_fw_dfu *dfu, uint8_t request, uint16_t value,
			 uint8_t *data, size_t len);

#endif
