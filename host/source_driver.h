/* SPDX-License-Identifier: MIT */
/*
 * The table of functions behind every trace source (spoor/source.h), as
 * OpenOCD's adapter drivers: one file per driver (source_usb.c,
 * source_ftdi.c, source_tcp.c, source_file.c), one line in source.c's list.
 * Internal to libspoor.
 *
 * A driver moves bytes; the layer in source.c makes sense of them.  Its
 * read() hands what came to spoor_source_bytes() (the spoor probe's record
 * stream, or raw trace bytes, as the driver's @framing says) or, for a
 * file that has records of its own, to spoor_source_item().
 */
#ifndef SPOOR_SOURCE_DRIVER_H
#define SPOOR_SOURCE_DRIVER_H

#include "spoor/source.h"

/* Internal to libspoor: not exported from libspoor.so (whose map exports spoor_*). */
#define SPOOR_INTERNAL __attribute__((visibility("hidden")))

enum spoor_source_framing {
	SPOOR_FRAMING_RECORDS,	/* the probe's bulk records (probe/PROTOCOL.md) */
	SPOOR_FRAMING_RAW,	/* trace bytes as the port gave them */
	SPOOR_FRAMING_ITEMS,	/* the driver calls spoor_source_item() itself */
};

struct spoor_source_list {
	struct spoor_source_desc *v;
	size_t n, cap;
};

/* Appends @d to @list.  Returns 0 or SPOOR_E_NOMEM. */
SPOOR_INTERNAL int spoor_source_list_add(struct spoor_source_list *list,
					 const struct spoor_source_desc *d);

struct spoor_source_driver {
	const char *name;		/* "usb": the spec's prefix */
	const char *usage;		/* "usb[:SERIAL]" */
	const char *help;		/* one line for --help and spoor probes */
	enum spoor_source_framing framing;
	bool live;			/* a probe, not a file */

	/*
	 * Appends the attached devices to @list (spoor_source_list_add());
	 * NULL for drivers that cannot enumerate (tcp, file).
	 */
	int (*scan)(struct spoor_source_list *list, struct spoor_diag *diag);
	/* Opens @arg (the spec after "name:", "" for none); sets src->priv. */
	int (*open)(struct spoor_source *src, const char *arg, struct spoor_diag *diag);
	void (*close)(struct spoor_source *src);
	/*
	 * A control request (spoor_source_control()); NULL when the source has
	 * none.  GET_INFO, SET_CONFIG, START, STOP and GET_STATUS go through it
	 * unless the driver has its own op below.
	 */
	int (*control)(struct spoor_source *src, uint8_t request_type, uint8_t request,
		       uint16_t value, uint16_t index, uint8_t *data, uint16_t len,
		       int timeout_ms);
	/* Optional replacements of the vendor requests (ftdi, file). */
	int (*info)(struct spoor_source *src, struct spoor_probe_info *info);
	int (*configure)(struct spoor_source *src, const struct spoor_probe_config *cfg);
	int (*start)(struct spoor_source *src);	/* called after START, or instead */
	int (*stop)(struct spoor_source *src);	/* called before STOP, or instead */
	int (*header)(struct spoor_source *src, struct spoor_capture_header *h);
	/*
	 * Waits up to @timeout_ms (0: don't wait) for bytes and hands them
	 * to spoor_source_bytes() / spoor_source_item().  Returns
	 * SPOOR_SOURCE_IDLE, SPOOR_SOURCE_MORE, SPOOR_SOURCE_DONE (a file's
	 * end) or a negative spoor_error (SPOOR_E_NO_DEVICE when unplugged,
	 * after handing out everything that came before).
	 */
	int (*read)(struct spoor_source *src, int timeout_ms);
	/*
	 * A USB reset (after a DFU DETACH: the device comes back in DFU mode;
	 * after a download: with its new firmware).  The layer then reopens it
	 * by serial.  NULL: the source cannot be reset.
	 */
	int (*reset)(struct spoor_source *src);
	/* The DFU interface's number (NULL: SPOOR_PROBE_IF_DFU); negative: none. */
	int (*dfu_interface)(struct spoor_source *src);
	/*
	 * Looks for the device with serial @src->serial again and opens it
	 * (usb); NULL: the source cannot come back.  Returns 0,
	 * SPOOR_E_NO_DEVICE (not there yet) or another error.
	 */
	int (*reopen)(struct spoor_source *src, struct spoor_diag *diag);
};

/* What the layer keeps of a source; drivers use priv, serial and name. */
struct spoor_source {
	const struct spoor_source_driver *drv;
	void *priv;			/* the driver's */
	char name[128];			/* "usb:SERIAL" (drivers may refine it in open) */
	char serial[SPOOR_PROBE_SERIAL_MAX + 1];	/* drivers fill it in open */
	/* The layer's state. */
	struct spoor_probe_stream *records;	/* SPOOR_FRAMING_RECORDS */
	uint64_t raw_offset;		/* SPOOR_FRAMING_RAW: trace bytes so far */
	const struct spoor_source_ops *ops;	/* during poll */
	void *ctx;
	struct spoor_probe_config cfg;
	bool configured, capturing, unknown_loss, ended;
	bool stop_due;			/* RAW: stopped by the host; the end once drained */
};

/* A driver's read(): @len bytes came from the device (framing RECORDS or RAW). */
SPOOR_INTERNAL void spoor_source_bytes(struct spoor_source *src, const uint8_t *buf, size_t len);

/* A driver's read() (framing ITEMS): one item of kind SPOOR_PROBE_ITEM_*. */
SPOOR_INTERNAL void spoor_source_item(struct spoor_source *src, const struct spoor_probe_item *item);

/* The drivers. */
SPOOR_INTERNAL extern const struct spoor_source_driver spoor_source_usb;
SPOOR_INTERNAL extern const struct spoor_source_driver spoor_source_ftdi;
SPOOR_INTERNAL extern const struct spoor_source_driver spoor_source_tcp;
SPOOR_INTERNAL extern const struct spoor_source_driver spoor_source_file;

#endif /* SPOOR_SOURCE_DRIVER_H */
