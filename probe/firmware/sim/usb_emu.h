/* SPDX-License-Identifier: MIT */
/*
 * A small usbdevfs emulation over umockdev, shared by the sim port's USB
 * fronts (sim_usb.c: the spoor probe, sim_ftdi.c: an FT2232H): a testbed
 * with one emulated high-speed device, plugged from its descriptors (sysfs
 * attributes, so libusb enumerates it), its /dev/bus/usb node answering the
 * usbdevfs ioctls libusb issues (claim, reset, control and bulk URBs), hot
 * unplug and replug with uevents, and a COMMAND run under the preload
 * against it.
 *
 * Control requests other than the standard ones this layer answers
 * (GET_DESCRIPTOR from the device's descriptors and strings, GET/SET
 * configuration and interface, GET_STATUS, CLEAR_FEATURE) go to the front;
 * bulk IN URBs are completed, in order per endpoint, when the front has
 * bytes for them (asked each time the host polls with REAPURBNDELAY);
 * bulk OUT URBs are handed to the front and completed at once.
 *
 * One lock: the front's callbacks run under it, one at a time, on
 * umockdev's worker thread (or, for a replug, the thread in usb_emu_run()).
 * libusb only ever polls (REAPURBNDELAY); a blocking REAPURB is answered
 * the same way (EAGAIN when nothing is complete).
 */
#ifndef SPOOR_SIM_USB_EMU_H
#define SPOOR_SIM_USB_EMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spoor/probe.h"

#define USB_EMU_STRINGS 8	/* string descriptors 1..7 */
#define USB_EMU_DESC_MAX 512	/* device and configuration descriptors */

/* What the host sees of a device: its descriptors and strings. */
struct usb_emu_device {
	uint8_t desc[USB_EMU_DESC_MAX];	/* the device descriptor (18 bytes), then the
					 * configuration descriptor with all it holds */
	size_t desc_len;
	const char *strings[USB_EMU_STRINGS];	/* [i]: string descriptor i (ASCII), [0] unused */
};

struct usb_emu_ops {
	/*
	 * A class or vendor control request: @data holds the OUT data or
	 * takes up to setup->length IN bytes.  Returns the IN bytes, 0 for
	 * an OUT request taken, or -1 to STALL.
	 */
	int (*control)(void *ctx, const struct spoor_probe_setup *setup, uint8_t *data);
	/* Fills up to @max bytes of a bulk IN URB on @ep; returns them (0: none yet, it waits). */
	size_t (*bulk_in)(void *ctx, uint8_t ep, uint8_t *buf, size_t max);
	/* The host sent @len bytes on bulk OUT endpoint @ep (may be NULL: dropped). */
	void (*bulk_out)(void *ctx, uint8_t ep, const uint8_t *buf, size_t len);
	/*
	 * The host reset the port (USBDEVFS_RESET).  Returns the device to
	 * enumerate as from now on, or NULL if the device stays (may be NULL:
	 * it stays).  The reset itself succeeds; the device then disconnects
	 * and comes back as the new one on a new address once the host
	 * closed the node, another host opened one, or 100 ms later.
	 */
	const struct usb_emu_device *(*reset)(void *ctx);
	/*
	 * The device comes back after an unplug (a power cycle): returns the
	 * device to enumerate as (may be NULL: the one unplugged).
	 */
	const struct usb_emu_device *(*replug)(void *ctx);
};

struct usb_emu;

/*
 * Makes sure this process runs under umockdev's preload (the emulator
 * needs it for its hotplug events): if LD_PRELOAD does not hold it,
 * re-executes the program (/proc/self/exe, the same arguments) with it
 * and does not return.  Returns 0 when under the preload, or SPOOR_E_IO.
 */
int usb_emu_preload(void);

/*
 * Creates the testbed (in $TMPDIR) for one device answered by @ops with
 * @ctx.  Returns 0 with it in *@out, or SPOOR_E_NOMEM / SPOOR_E_IO.
 */
int usb_emu_new(const struct usb_emu_ops *ops, void *ctx, struct usb_emu **out);

/* Removes the testbed (an emulated device still plugged goes with it). */
void usb_emu_free(struct usb_emu *e);

/*
 * Fault injection: unplug once @after bulk IN bytes were delivered (0:
 * never), and plug the same device in again @replug_ms later (0: never).
 */
void usb_emu_set_unplug(struct usb_emu *e, uint64_t after, unsigned replug_ms);

/* Plugs @dev in (a copy is kept) on the next address.  Returns 0 or SPOOR_E_IO. */
int usb_emu_plug(struct usb_emu *e, const struct usb_emu_device *dev);

/*
 * Unplugs the device: URBs in flight complete with -ESHUTDOWN, then every
 * ioctl on its node fails with ENODEV; the node and sysfs entry go.
 */
void usb_emu_unplug(struct usb_emu *e);

/*
 * Runs COMMAND @argv (NULL-terminated, searched in PATH) in the testbed
 * and waits for it.  Returns its exit status (128 + the signal that ended
 * it), or SPOOR_E_IO if it could not be started.
 */
int usb_emu_run(struct usb_emu *e, char **argv);

/* Bulk IN bytes delivered so far (for tests and messages). */
uint64_t usb_emu_bulk_bytes(struct usb_emu *e);

/*
 * Builds descriptors: appends @len bytes to @dev->desc.  Returns 0 or
 * SPOOR_E_NOSPACE.  usb_emu_finish() then sets the configuration's
 * wTotalLength.
 */
int usb_emu_append(struct usb_emu_device *dev, const uint8_t *b, size_t len);
void usb_emu_finish(struct usb_emu_device *dev);

#endif /* SPOOR_SIM_USB_EMU_H */
