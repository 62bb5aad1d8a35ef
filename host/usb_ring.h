/* SPDX-License-Identifier: MIT */
/*
 * A ring of asynchronous libusb bulk IN transfers on one endpoint, several
 * in flight, handed to spoor_source_bytes() in the order they were
 * submitted and resubmitted as they are: what the usb and ftdi trace
 * sources read with.  Internal to libspoor.
 */
#ifndef SPOOR_USB_RING_H
#define SPOOR_USB_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libusb.h>

#include "source_driver.h"

#define USB_RING_MAX 16		/* transfers at most */

struct usb_ring;

struct usb_ring_xfer {
	struct usb_ring *r;
	struct libusb_transfer *t;
	bool in_flight;		/* submitted, its callback has not run */
	bool done;		/* its callback ran: to hand out */
};

struct usb_ring {
	libusb_context *ctx;
	libusb_device_handle *h;
	unsigned char ep;
	unsigned int n;		/* transfers */
	size_t size;		/* bytes each */
	/* Turns a transfer's bytes into trace bytes in place, returns their count; NULL: as is. */
	size_t (*filter)(void *arg, uint8_t *buf, size_t len);
	void *filter_arg;
	bool streaming;		/* started and not cancelled: resubmit */
	bool gone;		/* unplugged: a transfer or request said NO_DEVICE */
	bool stuck;		/* transfers that never came back */
	int completed;		/* set by every callback, for the event loop */
	struct usb_ring_xfer x[USB_RING_MAX];
	unsigned int order[USB_RING_MAX];	/* transfers in submission order */
	unsigned int q_head, q_len;
};

/* The spoor_error for libusb error @r. */
SPOOR_INTERNAL int usb_ring_error(int r);

/* Writes a message into @diag, if any. */
SPOOR_INTERNAL __attribute__((format(printf, 2, 3))) void usb_say(struct spoor_diag *diag,
								   const char *fmt, ...);

/* Milliseconds of the monotonic clock. */
SPOOR_INTERNAL long long usb_ring_now_ms(void);

/* Sets @r up for @n transfers (at most USB_RING_MAX) of @size bytes. */
SPOOR_INTERNAL void usb_ring_init(struct usb_ring *r, unsigned int n, size_t size);

/*
 * Starts streaming from endpoint @ep of @h: every transfer submitted (what
 * a cancelled ring still held is dropped); nothing to do while it streams.
 * Returns 0 or an error.
 */
SPOOR_INTERNAL int usb_ring_start(struct usb_ring *r, libusb_context *ctx,
				  libusb_device_handle *h, unsigned char ep);

/* Cancels the transfers in flight and waits (2 s at most) for them; what was done stays queued. */
SPOOR_INTERNAL void usb_ring_cancel(struct usb_ring *r);

/*
 * Cancels and frees the transfers and empties the ring.  Returns true when
 * some never came back: they are leaked on purpose, and the caller must
 * leave the handle and context open for them.
 */
SPOOR_INTERNAL bool usb_ring_release(struct usb_ring *r);

/*
 * Waits up to @timeout_ms for bytes and hands them out in order to
 * spoor_source_bytes(@src).  Returns SPOOR_SOURCE_MORE, SPOOR_SOURCE_IDLE,
 * SPOOR_E_NO_DEVICE (unplugged; everything before was handed out) or
 * SPOOR_E_USB (a transfer failed; what came before it was handed out).
 */
SPOOR_INTERNAL int usb_ring_read(struct usb_ring *r, struct spoor_source *src, int timeout_ms);

#endif
