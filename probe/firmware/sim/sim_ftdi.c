// SPDX-License-Identifier: MIT
/*
 * The sim port's FIFO front: the device model's raw trace bytes (no
 * records) from an emulated FTDI FT2232H (usb_emu.h), as a probe built
 * from one would deliver them: channel B (interface 1, bulk IN 0x83) in
 * asynchronous FIFO mode carries the trace, channel A (interface 0, 0x81 /
 * 0x02) would carry JTAG and only ever answers idle.  Like the chip, every
 * 512-byte packet starts with the two modem status bytes; with nothing to
 * send a channel answers a bare status packet once its latency timer ran
 * out.  Capture starts when the host sets a bit mode on channel B, or at
 * its first read there.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "sim_front.h"
#include "spoor/error.h"
#include "usb_emu.h"

#define FTDI_VID 0x0403
#define FTDI_PID_2232H 0x6010
#define FTDI_BCD_2232H 0x0700
#define FTDI_PACKET 512
#define FTDI_STATUS0 0x31	/* modem status: CTS, DSR, ... */
#define FTDI_STATUS1 0x60	/* line status: transmitter empty */
#define FTDI_EP_A_IN 0x81
#define FTDI_EP_B_IN 0x83
#define FTDI_LATENCY_DEFAULT 16

/* libftdi's (and the chip's) vendor requests. */
enum ftdi_request {
	FTDI_RESET = 0x00, FTDI_SET_MODEM_CTRL, FTDI_SET_FLOW_CTRL, FTDI_SET_BAUDRATE,
	FTDI_SET_DATA, FTDI_POLL_MODEM_STATUS, FTDI_SET_EVENT_CHAR, FTDI_SET_ERROR_CHAR,
	FTDI_SET_LATENCY_TIMER = 0x09, FTDI_GET_LATENCY_TIMER, FTDI_SET_BITMODE,
	FTDI_READ_PINS, FTDI_READ_EEPROM = 0x90, FTDI_WRITE_EEPROM, FTDI_ERASE_EEPROM,
};

struct sim_ftdi {
	struct sim_probe *p;
	bool started;			/* START sent to the model */
	unsigned latency[2];		/* ms, per channel */
	uint64_t last_idle[2];		/* when a channel last sent a bare status packet */
	struct usb_emu_device dev;
};

/* Milliseconds on the monotonic clock. */
static uint64_t ftdi_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Builds the FT2232H's descriptors. */
static int build_device(struct usb_emu_device *dev, const char *serial)
{
	static const uint8_t d[18] = {
		18, 0x01, 0x00, 0x02, 0, 0, 0, 64, FTDI_VID & 0xff, FTDI_VID >> 8,
		FTDI_PID_2232H & 0xff, FTDI_PID_2232H >> 8, FTDI_BCD_2232H & 0xff,
		FTDI_BCD_2232H >> 8, 1, 2, 3, 1,
	};
	static const uint8_t cfg[9] = { 9, 0x02, 0, 0, 2, 1, 0, 0x80, 50 };
	uint8_t intf[9] = { 9, 0x04, 0, 0, 2, 0xff, 0xff, 0xff, 2 };
	uint8_t ep[7] = { 7, 0x05, 0, 0x02, FTDI_PACKET & 0xff, FTDI_PACKET >> 8, 0 };
	int ret = 0;
	unsigned i;

	dev->desc_len = 0;
	ret |= usb_emu_append(dev, d, sizeof(d));
	ret |= usb_emu_append(dev, cfg, sizeof(cfg));
	for (i = 0; i < 2; i++) {
		intf[2] = (uint8_t)i;
		ret |= usb_emu_append(dev, intf, sizeof(intf));
		ep[2] = (uint8_t)(0x81 + 2 * i);	/* 0x81, 0x83 */
		ret |= usb_emu_append(dev, ep, sizeof(ep));
		ep[2] = (uint8_t)(0x02 + 2 * i);	/* 0x02, 0x04 */
		ret |= usb_emu_append(dev, ep, sizeof(ep));
	}
	if (ret)
		return SPOOR_E_NOSPACE;
	usb_emu_finish(dev);
	dev->strings[1] = "FTDI";
	dev->strings[2] = "Dual RS232-HS";
	dev->strings[3] = serial;
	return 0;
}

/* Starts the model's capture once. */
static void ftdi_start(struct sim_ftdi *f)
{
	struct spoor_probe_setup s = {
		.request_type = SPOOR_PROBE_REQTYPE_OUT, .request = SPOOR_PROBE_START,
		.index = SPOOR_PROBE_IF_TRACE,
	};

	if (f->started)
		return;
	if (sim_probe_control(f->p, &s, NULL) < 0)
		fprintf(stderr, "spoor-probe-sim: the model refused START\n");
	f->started = true;
}

/* The channel (0: A, 1: B) a request's wIndex names (1: A, 2: B; 0 taken as A). */
static unsigned ftdi_channel(uint16_t index)
{
	return (index & 0xff) == 2 ? 1 : 0;
}

/* The FTDI vendor requests: acknowledged, the few IN ones answered. */
static int ftdi_control(void *ctx, const struct spoor_probe_setup *s, uint8_t *data)
{
	struct sim_ftdi *f = ctx;
	unsigned ch = ftdi_channel(s->index);

	if ((s->request_type & 0x60) != 0x40)
		return -1;
	switch (s->request) {
	case FTDI_RESET:
	case FTDI_SET_MODEM_CTRL:
	case FTDI_SET_FLOW_CTRL:
	case FTDI_SET_BAUDRATE:
	case FTDI_SET_DATA:
	case FTDI_SET_EVENT_CHAR:
	case FTDI_SET_ERROR_CHAR:
	case FTDI_WRITE_EEPROM:
	case FTDI_ERASE_EEPROM:
		return 0;
	case FTDI_SET_LATENCY_TIMER:
		if ((s->value & 0xff) == 0)
			return -1;
		f->latency[ch] = s->value & 0xff;
		return 0;
	case FTDI_SET_BITMODE:
		if (ch == 1)
			ftdi_start(f);
		return 0;
	case FTDI_POLL_MODEM_STATUS:
		if (s->length < 2)
			return -1;
		data[0] = FTDI_STATUS0;
		data[1] = FTDI_STATUS1;
		return 2;
	case FTDI_GET_LATENCY_TIMER:
		if (s->length < 1)
			return -1;
		data[0] = (uint8_t)f->latency[ch];
		return 1;
	case FTDI_READ_PINS:
		if (s->length < 1)
			return -1;
		data[0] = 0;
		return 1;
	case FTDI_READ_EEPROM:
		/* A blank EEPROM. */
		if (s->length < 2)
			return -1;
		data[0] = data[1] = 0xff;
		return 2;
	default:
		return -1;
	}
}

/*
 * Bulk IN: 512-byte packets, each the two status bytes and up to 510
 * trace bytes (channel B; channel A has none); a packet not full ends the
 * transfer.  With no bytes at all, a bare status packet once the latency
 * timer ran out (0 before: the URB waits).
 */
static size_t ftdi_bulk_in(void *ctx, uint8_t ep, uint8_t *buf, size_t max)
{
	struct sim_ftdi *f = ctx;
	unsigned ch = ep == FTDI_EP_B_IN ? 1 : 0;
	size_t n = 0, room, got;
	uint64_t now;

	if (ep != FTDI_EP_A_IN && ep != FTDI_EP_B_IN)
		return 0;
	if (ch == 1)
		ftdi_start(f);
	while (max - n > 2) {
		room = (max - n < FTDI_PACKET ? max - n : FTDI_PACKET) - 2;
		got = 0;
		while (ch == 1 && got < room) {
			size_t more = sim_probe_raw_in(f->p, buf + n + 2 + got, room - got);

			if (!more)
				break;
			got += more;
		}
		if (!got)
			break;
		buf[n] = FTDI_STATUS0;
		buf[n + 1] = FTDI_STATUS1;
		n += 2 + got;
		if (got < room)
			break;
	}
	if (n)
		return n;
	now = ftdi_now_ms();
	if (max < 2 || now - f->last_idle[ch] < f->latency[ch])
		return 0;
	f->last_idle[ch] = now;
	buf[0] = FTDI_STATUS0;
	buf[1] = FTDI_STATUS1;
	return 2;
}

/* Back after an unplug: the probe lost power; capture starts again when the host asks. */
static const struct usb_emu_device *ftdi_replug(void *ctx)
{
	struct sim_ftdi *f = ctx;

	sim_probe_reset(f->p);
	f->started = false;
	return NULL;
}

static const struct usb_emu_ops sim_ftdi_ops = {
	.control = ftdi_control,
	.bulk_in = ftdi_bulk_in,
	.replug = ftdi_replug,
};

/* Runs COMMAND @argv against the model as an FT2232H FIFO. */
static int sim_ftdi_front(struct sim_probe *p, const struct sim_options *o, char **argv)
{
	struct sim_ftdi f = {
		.p = p, .latency = { FTDI_LATENCY_DEFAULT, FTDI_LATENCY_DEFAULT },
	};
	struct usb_emu *e = NULL;
	int ret;

	ret = usb_emu_preload();
	if (ret)
		return ret;
	ret = build_device(&f.dev, o->serial ? o->serial : "SIM0001");
	if (ret)
		return ret;
	ret = usb_emu_new(&sim_ftdi_ops, &f, &e);
	if (ret) {
		fprintf(stderr, "spoor-probe-sim: cannot set up the USB testbed\n");
		return ret;
	}
	usb_emu_set_unplug(e, o->unplug_after, o->replug_ms);
	ret = usb_emu_plug(e, &f.dev);
	if (!ret)
		ret = usb_emu_run(e, argv);
	usb_emu_free(e);
	return ret;
}

/* The front, as spoor-probe-sim's exit status: COMMAND's, or 2 if it could not run. */
int sim_ftdi_run(struct sim_probe *p, const struct sim_options *o, char **argv)
{
	int ret = sim_ftdi_front(p, o, argv);

	if (ret >= 0)
		return ret;
	fprintf(stderr, "spoor-probe-sim: %s\n", spoor_errstr(ret));
	return 2;
}
