/* SPDX-License-Identifier: MIT */
/*
 * Trace sources: a probe behind a transport, or a file, named by one
 * string — usb[:SERIAL], ftdi[:SERIAL], tcp:HOST:PORT, file:PATH — and read
 * the same way: open, info, configure, start, poll (trace bytes at their
 * trace offsets, losses, the end), stop, close.  The drivers sit behind one
 * table of functions (host/source_driver.h), registered in one list
 * (host/source.c): adding a probe is one file and one line.
 *
 * A probe speaking the spoor protocol (probe/PROTOCOL.md: usb, tcp) sends
 * records; the layer here decodes them (spoor/probe.h) and hands out what
 * they say.  A raw FIFO (ftdi) gives trace bytes only.  A file is a capture
 * file (host/CAPTURE.md: its DATA, LOSS and END records) or a raw stream.
 */
#ifndef SPOOR_SOURCE_H
#define SPOOR_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spoor/capture.h"
#include "spoor/config_file.h"
#include "spoor/probe.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes lost in a gap whose size nobody knows (a probe unplugged and back). */
#define SPOOR_SOURCE_LOST_UNKNOWN UINT64_MAX

/* One attached probe, as spoor_source_scan() finds it. */
struct spoor_source_desc {
	char address[96];		/* what spoor_source_open() takes: "usb:SERIAL" */
	char driver[8];			/* "usb", "ftdi", "tcp", "file" */
	char serial[SPOOR_PROBE_SERIAL_MAX + 1];
	char product[64];		/* the device's product string, or what it is */
	uint16_t vid, pid;
	bool have_info;			/* info below was read (GET_INFO) */
	bool dfu_mode;			/* in DFU mode: it takes firmware, not traces */
	struct spoor_probe_info info;
};

/*
 * Lists the probes attached, from every driver that can enumerate, into a
 * new array *@out of *@n entries (free() it).  A driver that fails is
 * skipped with its reason in @diag.  Returns 0 or SPOOR_E_NOMEM.
 */
int spoor_source_scan(struct spoor_source_desc **out, size_t *n, struct spoor_diag *diag);

/* What polling a source hands out.  Any callback may be NULL. */
struct spoor_source_ops {
	/* @len trace bytes from trace offset @offset, in order; @buf valid during the call. */
	void (*data)(void *ctx, uint64_t offset, const uint8_t *buf, size_t len);
	/*
	 * @lost bytes of the trace are missing at @offset (an overflow in the
	 * probe, or SPOOR_SOURCE_LOST_UNKNOWN: the probe was gone a while);
	 * the next data continues at @offset + @lost (after an unknown loss, at
	 * the offsets the probe counts from then on).
	 */
	void (*loss)(void *ctx, uint64_t offset, uint64_t lost);
	/* The capture ended after @total trace bytes (lost ones included). */
	void (*end)(void *ctx, uint64_t total);
	/*
	 * The record stream is not well formed at @stream_offset (@reason, a
	 * negative spoor_error; @what says what): reported, then skipped to the
	 * next plausible record.
	 */
	void (*error)(void *ctx, uint64_t stream_offset, int reason, const char *what);
};

enum spoor_source_poll {
	SPOOR_SOURCE_IDLE = 0,	/* nothing came within the timeout */
	SPOOR_SOURCE_MORE = 1,	/* something was handed out; poll again */
	SPOOR_SOURCE_DONE = 2,	/* the end: an END record, or a file's end */
};

struct spoor_source;

/*
 * Opens the source @spec ("usb", "usb:SERIAL", "ftdi[:SERIAL]",
 * "tcp:HOST:PORT", "file:PATH"; a bare PATH is taken as file:PATH).
 * Returns 0 with the source in *@out, or a negative spoor_error with @diag
 * naming the source and the reason: SPOOR_E_INVAL (a bad spec),
 * SPOOR_E_NO_DEVICE, SPOOR_E_BUSY, SPOOR_E_IO, SPOOR_E_TIMEOUT …
 */
int spoor_source_open(const char *spec, struct spoor_source **out, struct spoor_diag *diag);

/* Does @spec name a live probe (usb, ftdi, tcp) rather than a file?  Nothing is opened. */
bool spoor_source_spec_live(const char *spec);

/* Stops a capture still running (best effort) and closes; NULL is fine. */
void spoor_source_close(struct spoor_source *src);

/* "usb:SERIAL", "tcp:HOST:PORT", "file:PATH": for messages and capture files. */
const char *spoor_source_name(const struct spoor_source *src);

/* Is it a live probe (usb, ftdi, tcp) rather than a file? */
bool spoor_source_live(const struct spoor_source *src);

/* What the probe says of itself (a file: what its capture header says). */
int spoor_source_info(struct spoor_source *src, struct spoor_probe_info *info);

/*
 * A file's capture header (encapsulation and its options, start time,
 * key=value text).  Returns 0, or SPOOR_E_NOT_FOUND (a raw file, a probe).
 */
int spoor_source_header(struct spoor_source *src, struct spoor_capture_header *h);

/*
 * Completes probe configuration @cfg for a trace wrapped as @encap (its
 * encapsulation fields; NULL: left as they are) on a probe that says @info
 * (NULL: not known yet): a port width of 0 becomes 4 bits, or the widest
 * @info lists when it has no 4-bit port (an FTDI FIFO: 8 bits).
 */
void spoor_source_config_for(struct spoor_probe_config *cfg, const struct spoor_encap_config *encap,
			     const struct spoor_probe_info *info);

/* Sets port width, edges and encapsulation (idle only).  Returns 0, SPOOR_E_STALL … */
int spoor_source_configure(struct spoor_source *src, const struct spoor_probe_config *cfg);

/* Starts capturing: trace offsets start at 0.  Returns 0 or an error. */
int spoor_source_start(struct spoor_source *src);

/*
 * Waits up to @timeout_ms for the next bytes and hands out everything that
 * came through @ops.  Returns enum spoor_source_poll, or a negative
 * spoor_error: SPOOR_E_NO_DEVICE (unplugged: everything received before
 * was handed out; spoor_source_reconnect() may bring it back),
 * SPOOR_E_CLOSED, SPOOR_E_IO, SPOOR_E_USB.
 */
int spoor_source_poll(struct spoor_source *src, int timeout_ms,
		      const struct spoor_source_ops *ops, void *ctx);

/* Asks the probe to stop: it drains its buffer, then sends END (poll on until DONE). */
int spoor_source_stop(struct spoor_source *src);

/* What GET_STATUS says.  Returns 0, or SPOOR_E_NOT_FOUND (no such request: ftdi, file). */
int spoor_source_status(struct spoor_source *src, struct spoor_probe_status *st);

/*
 * After SPOOR_E_NO_DEVICE: waits up to @timeout_ms for a probe with the same
 * serial, opens it, configures it as before and, if it was capturing,
 * starts again; the next poll hands out a loss of SPOOR_SOURCE_LOST_UNKNOWN
 * first.  Returns 0, SPOOR_E_TIMEOUT or another error.
 */
int spoor_source_reconnect(struct spoor_source *src, int timeout_ms);

/*
 * A USB reset, then waits up to @timeout_ms for the device (same serial) to
 * be back and reopens it: after a DFU DETACH it comes back in DFU mode,
 * after a download with its new firmware.  Capturing is not restarted.
 * Returns 0, SPOOR_E_NOT_FOUND (no reset: ftdi, file), SPOOR_E_TIMEOUT …
 */
int spoor_source_reset(struct spoor_source *src, int timeout_ms);

/* The number of the probe's DFU interface, or SPOOR_E_NOT_FOUND. */
int spoor_source_dfu_interface(struct spoor_source *src);

/*
 * A control request to the probe (usb, tcp): @request_type's bit 7 says IN
 * (@len bytes read into @data) or OUT (@len bytes sent from @data).
 * Returns the bytes transferred, or SPOOR_E_STALL, SPOOR_E_NO_DEVICE,
 * SPOOR_E_TIMEOUT, SPOOR_E_NOT_FOUND (the source has no control channel) …
 */
int spoor_source_control(struct spoor_source *src, uint8_t request_type, uint8_t request,
			 uint16_t value, uint16_t index, uint8_t *data, uint16_t len,
			 int timeout_ms);

#ifdef __cplusplus
}
#endif

#endif /* SPOOR_SOURCE_H */
