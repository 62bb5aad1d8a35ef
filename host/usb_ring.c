// SPDX-License-Identifier: MIT
/* A ring of asynchronous bulk IN transfers handed out in order (usb_ring.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "spoor/error.h"
#include "usb_ring.h"

#define CANCEL_MS 2000		/* waiting for cancelled transfers at most */

int usb_ring_error(int r)
{
	switch (r) {
	case LIBUSB_ERROR_PIPE:
		return SPOOR_E_STALL;
	case LIBUSB_ERROR_NO_DEVICE:
		return SPOOR_E_NO_DEVICE;
	case LIBUSB_ERROR_TIMEOUT:
		return SPOOR_E_TIMEOUT;
	case LIBUSB_ERROR_BUSY:
		return SPOOR_E_BUSY;
	case LIBUSB_ERROR_NO_MEM:
		return SPOOR_E_NOMEM;
	case LIBUSB_ERROR_ACCESS:
	case LIBUSB_ERROR_IO:
		return SPOOR_E_IO;
	default:
		return SPOOR_E_USB;
	}
}

void usb_say(struct spoor_diag *diag, const char *fmt, ...)
{
	va_list ap;

	if (!diag)
		return;
	va_start(ap, fmt);
	vsnprintf(diag->msg, sizeof(diag->msg), fmt, ap);
	va_end(ap);
}

long long usb_ring_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

void usb_ring_init(struct usb_ring *r, unsigned int n, size_t size)
{
	r->n = n < USB_RING_MAX ? n : USB_RING_MAX;
	r->size = size;
	for (unsigned int i = 0; i < USB_RING_MAX; i++)
		r->x[i].r = r;
}

/* Processes events for up to @ms milliseconds (0: only what is pending). */
static int wait_events(struct usb_ring *r, long long ms)
{
	struct timeval tv = { .tv_sec = (time_t)(ms / 1000), .tv_usec = (long)(ms % 1000) * 1000 };
	int e;

	r->completed = 0;
	e = libusb_handle_events_timeout_completed(r->ctx, &tv, &r->completed);
	if (e < 0 && e != LIBUSB_ERROR_INTERRUPTED)
		return usb_ring_error(e);
	return 0;
}

/* The callback of every transfer: marks it done. */
static void LIBUSB_CALL xfer_done(struct libusb_transfer *t)
{
	struct usb_ring_xfer *x = t->user_data;

	x->in_flight = false;
	x->done = true;
	x->r->completed = 1;
}

/* Submits transfer @i and queues it last.  Returns 0 or an error. */
static int submit(struct usb_ring *r, unsigned int i)
{
	struct usb_ring_xfer *x = &r->x[i];
	int e;

	libusb_fill_bulk_transfer(x->t, r->h, r->ep, x->t->buffer, (int)r->size, xfer_done, x, 0);
	x->done = false;
	e = libusb_submit_transfer(x->t);
	if (e < 0) {
		if (e == LIBUSB_ERROR_NO_DEVICE)
			r->gone = true;
		return usb_ring_error(e);
	}
	x->in_flight = true;
	r->order[(r->q_head + r->q_len) % r->n] = i;
	r->q_len++;
	return 0;
}

int usb_ring_start(struct usb_ring *r, libusb_context *ctx, libusb_device_handle *h,
		   unsigned char ep)
{
	int ret;

	if (r->streaming && r->q_len)
		return 0;	/* still running (from the last capture) */
	r->ctx = ctx;
	r->h = h;
	r->ep = ep;
	r->q_head = 0;
	r->q_len = 0;
	for (unsigned int i = 0; i < r->n; i++) {
		struct usb_ring_xfer *x = &r->x[i];

		if (!x->t) {
			x->t = libusb_alloc_transfer(0);
			if (!x->t)
				return SPOOR_E_NOMEM;
			x->t->buffer = malloc(r->size);
			if (!x->t->buffer) {
				libusb_free_transfer(x->t);
				x->t = NULL;
				return SPOOR_E_NOMEM;
			}
		}
		ret = submit(r, i);
		if (ret < 0) {
			usb_ring_cancel(r);
			r->q_len = 0;
			return ret;
		}
	}
	r->streaming = true;
	return 0;
}

/* How many transfers are still with libusb. */
static unsigned int in_flight(const struct usb_ring *r)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < r->n; i++)
		n += r->x[i].t && r->x[i].in_flight;
	return n;
}

void usb_ring_cancel(struct usb_ring *r)
{
	long long deadline = usb_ring_now_ms() + CANCEL_MS;

	r->streaming = false;
	if (!r->ctx)
		return;
	for (unsigned int i = 0; i < r->n; i++)
		if (r->x[i].t && r->x[i].in_flight)
			libusb_cancel_transfer(r->x[i].t);
	while (in_flight(r) && usb_ring_now_ms() < deadline)
		if (wait_events(r, 100) < 0)
			break;
	if (in_flight(r))
		r->stuck = true;
}

bool usb_ring_release(struct usb_ring *r)
{
	bool stuck;

	usb_ring_cancel(r);
	stuck = r->stuck;
	for (unsigned int i = 0; i < r->n; i++) {
		if (r->x[i].t && !stuck) {
			free(r->x[i].t->buffer);
			libusb_free_transfer(r->x[i].t);
		}
		/* Leaked on purpose when stuck: new transfers next time. */
		r->x[i].t = NULL;
		r->x[i].in_flight = r->x[i].done = false;
	}
	r->q_head = r->q_len = 0;
	r->stuck = false;
	r->ctx = NULL;
	r->h = NULL;
	return stuck;
}

/*
 * Hands out the transfers done at the head of the queue, in order, and
 * resubmits them while streaming; *@handed is set if there were bytes.
 */
static int hand_out(struct usb_ring *r, struct spoor_source *src, bool *handed)
{
	while (r->q_len && r->x[r->order[r->q_head]].done) {
		unsigned int i = r->order[r->q_head];
		struct libusb_transfer *t = r->x[i].t;
		size_t n = 0;
		int ret = 0;

		r->x[i].done = false;
		r->q_head = (r->q_head + 1) % r->n;
		r->q_len--;
		if (t->actual_length > 0 && (size_t)t->actual_length <= r->size) {
			n = (size_t)t->actual_length;
			if (r->filter)
				n = r->filter(r->filter_arg, t->buffer, n);
		}
		if (n) {
			spoor_source_bytes(src, t->buffer, n);
			*handed = true;
		}
		switch (t->status) {
		case LIBUSB_TRANSFER_COMPLETED:
		case LIBUSB_TRANSFER_TIMED_OUT:
		case LIBUSB_TRANSFER_CANCELLED:
			break;
		case LIBUSB_TRANSFER_NO_DEVICE:
			r->gone = true;
			return SPOOR_E_NO_DEVICE;
		case LIBUSB_TRANSFER_STALL:
			libusb_clear_halt(r->h, r->ep);
			ret = SPOOR_E_USB;
			break;
		default:	/* ERROR, OVERFLOW (babble) */
			ret = SPOOR_E_USB;
			break;
		}
		if (r->streaming && !r->gone) {
			int e = submit(r, i);

			/* Unplugged: the transfers done behind this one still go out. */
			if (e < 0 && e != SPOOR_E_NO_DEVICE && !ret)
				ret = e;
		}
		if (ret < 0)
			return ret;
	}
	return 0;
}

int usb_ring_read(struct usb_ring *r, struct spoor_source *src, int timeout_ms)
{
	long long deadline = usb_ring_now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
	bool handed = false, waited = false;
	long long left;
	int ret;

	if (!r->ctx)
		return SPOOR_E_NO_DEVICE;
	for (;;) {
		ret = hand_out(r, src, &handed);
		if (ret < 0)
			return ret;
		if (handed)
			return SPOOR_SOURCE_MORE;
		if (r->gone)
			return SPOOR_E_NO_DEVICE;
		left = deadline - usb_ring_now_ms();
		if (left < 0 || (left == 0 && waited))
			return SPOOR_SOURCE_IDLE;
		ret = wait_events(r, left);
		if (ret < 0)
			return ret;
		waited = true;
	}
}
