/* SPDX-License-Identifier: MIT */
/*
 * Updating a spoor probe's firmware over USB DFU 1.1 (probe/PROTOCOL.md):
 * the image is checked against the probe's target first, the probe is
 * switched into DFU mode (DETACH and a reset), the image goes down block by
 * block, the probe checks and commits it, the host reads it back and
 * compares, and after a reset the probe runs it and says so (GET_INFO).
 * Anything refused or interrupted leaves the old firmware running.
 */
#ifndef SPOOR_DFU_H
#define SPOOR_DFU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spoor/config_file.h"
#include "spoor/source.h"

#ifdef __cplusplus
extern "C" {
#endif

enum spoor_dfu_phase {
	SPOOR_DFU_PHASE_DETACH,		/* into DFU mode */
	SPOOR_DFU_PHASE_DOWNLOAD,	/* done/total: image bytes sent */
	SPOOR_DFU_PHASE_MANIFEST,	/* the probe checks and commits */
	SPOOR_DFU_PHASE_VERIFY,		/* done/total: bytes read back */
	SPOOR_DFU_PHASE_RESET,		/* back to run time with the new image */
};

struct spoor_dfu_ops {
	/* Progress; may be NULL. */
	void (*progress)(void *ctx, enum spoor_dfu_phase phase, uint64_t done, uint64_t total);
	/* True to give up (Ctrl-C): the download is aborted, the old image stays.  May be NULL. */
	bool (*cancel)(void *ctx);
};

/*
 * Writes image @img (@len bytes: the 24-byte header and the body) into the
 * probe behind @src.  Fills @old_version and @new_version (either may be
 * NULL) with what the probe ran before and runs after.  Returns 0, or a
 * negative spoor_error with @diag saying what and why: the image is for
 * another target or damaged (SPOOR_E_BAD_CONFIG, SPOOR_E_BAD_HEADER,
 * SPOOR_E_CHECKSUM …, before anything is sent), the probe refused it
 * (SPOOR_E_STALL, its DFU status named), the read-back differs
 * (SPOOR_E_MISMATCH), it did not come back (SPOOR_E_TIMEOUT), or
 * SPOOR_E_INVAL after a cancel.
 */
int spoor_dfu_flash(struct spoor_source *src, const uint8_t *img, size_t len,
		    const struct spoor_dfu_ops *ops, void *ctx, uint32_t *old_version,
		    uint32_t *new_version, struct spoor_diag *diag);

/* The name of DFU status @status ("errTARGET" …). */
const char *spoor_dfu_status_name(unsigned status);

#ifdef __cplusplus
}
#endif

#endif
