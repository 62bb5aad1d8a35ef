/* SPDX-License-Identifier: MIT */
/*
 * The sim port: the firmware core (core/fw.h, core/dfu.h) running as a
 * process, with a file as its flash, a thread as its trace port (bytes
 * from spoor virt's trace port or a capture file replayed at a chosen
 * rate) and one of three USB fronts: a TCP service (probe/PROTOCOL.md, "The
 * TCP binding"; sim_tcp.c), an emulated USB device under umockdev
 * (sim_usb.c), or an emulated FT2232H FIFO (sim_ftdi.c, raw trace bytes).
 *
 * The device model below is what every front calls; it is thread-safe (one
 * lock: the trace thread, the front and umockdev's worker thread call it).
 */
#ifndef SPOOR_SIM_H
#define SPOOR_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spoor/probe.h"

struct sim_probe;

struct sim_options {
	const char *serial;		/* "SIM0001" by default */
	const char *flash_path;		/* file with the two slots; NULL: in memory */
	const char *input;		/* "tcp:HOST:PORT" (spoor virt's trace port) or a file
					 * (capture or raw); NULL: no trace */
	uint64_t rate;			/* input bytes/s; 0: as fast as the buffer drains, never lost */
	bool loop;			/* replay the file again at its end */
	size_t buffer_size;		/* capture buffer (a power of two), default 8 MiB */
	/* Fault injection for tests. */
	uint64_t drop_at, drop_count;	/* the port loses drop_count bytes at trace offset drop_at */
	uint64_t unplug_after;		/* bulk bytes sent before an unplug (0: never) */
	unsigned replug_ms;		/* ... and back after this long (0: never) */
	uint32_t stall_after;		/* control requests answered before the probe stops answering (0: never) */
};

/* Creates the device model (not running yet).  Returns 0 or a negative spoor_error with @why. */
int sim_probe_new(const struct sim_options *opt, struct sim_probe **out, char *why, size_t why_size);
void sim_probe_free(struct sim_probe *p);

/* Starts / stops the trace input thread. */
int sim_probe_run(struct sim_probe *p);
void sim_probe_halt(struct sim_probe *p);

/*
 * A control request (vendor requests to interface 0, DFU class requests to
 * interface 1): @data holds the OUT data or takes up to setup->length bytes
 * of IN data.  Returns the IN bytes (0 for OUT), or -1 to STALL.
 */
int sim_probe_control(struct sim_probe *p, const struct spoor_probe_setup *setup, uint8_t *data);

/* Fills up to @max bytes of the next bulk IN transfer; returns the bytes (0: none now). */
size_t sim_probe_bulk_in(struct sim_probe *p, uint8_t *buf, size_t max);

/* Raw trace bytes for a FIFO front (sim_ftdi.c): the buffer's bytes without records. */
size_t sim_probe_raw_in(struct sim_probe *p, uint8_t *buf, size_t max);

/* Waits up to @timeout_ms until bulk bytes may be there.  Returns true if so. */
bool sim_probe_wait(struct sim_probe *p, int timeout_ms);

/* Is the device enumerating in DFU mode (after DETACH and a reset)? */
bool sim_probe_dfu_mode(struct sim_probe *p);

/* The USB reset: after a DETACH, into DFU mode; from DFU mode, back to run time (a new image runs). */
void sim_probe_reset(struct sim_probe *p);

/* What GET_INFO answers now (the running image's version). */
void sim_probe_info(struct sim_probe *p, struct spoor_probe_info *info);

#endif /* SPOOR_SIM_H */
