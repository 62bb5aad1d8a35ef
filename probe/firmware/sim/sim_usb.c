// SPDX-License-Identifier: MIT
/*
 * The sim port's USB front: the device model (sim.h) as the spoor probe of
 * probe/PROTOCOL.md, an emulated USB device under umockdev (usb_emu.h).
 * At run time: interface 0 vendor-specific with bulk IN 0x81, interface 1
 * DFU run-time (FE/01/01).  After DETACH and a USB reset it re-enumerates
 * in DFU mode (one interface, FE/01/02, same serial); a reset from there
 * brings the run-time device back, running whatever image is committed.
 */
#include <stdio.h>

#include "sim_front.h"
#include "spoor/error.h"
#include "usb_emu.h"

#define SIM_USB_BCD_DEVICE 0x0100
#define SIM_USB_MAX_PACKET 512
#define SIM_USB_DFU_ATTRS 0x07		/* can download, can upload, manifestation tolerant */
#define SIM_USB_DFU_DETACH_MS 1000
#define SIM_USB_DFU_TRANSFER 4096
#define SIM_USB_DFU_VERSION 0x0110

struct sim_usb {
	struct sim_probe *p;
	bool dfu;			/* enumerated in DFU mode */
	struct usb_emu_device run, dfu_dev;
};

/* Appends a little-endian 16-bit value to @b at @i. */
static void put16(uint8_t *b, size_t i, unsigned v)
{
	b[i] = (uint8_t)v;
	b[i + 1] = (uint8_t)(v >> 8);
}

/* Builds the device's descriptors in run-time (@dfu false) or DFU mode. */
static int build_device(struct usb_emu_device *dev, const char *serial, bool dfu)
{
	uint8_t d[18] = { 18, 0x01 }, cfg[9] = { 9, 0x02 }, intf[9] = { 9, 0x04 };
	static const uint8_t ep[7] = { 7, 0x05, SPOOR_PROBE_EP_TRACE, 0x02,
				       SIM_USB_MAX_PACKET & 0xff, SIM_USB_MAX_PACKET >> 8, 0 };
	uint8_t func[9] = { 9, 0x21, SIM_USB_DFU_ATTRS };
	int ret = 0;

	put16(d, 2, 0x0200);		/* bcdUSB */
	d[7] = 64;			/* bMaxPacketSize0 */
	put16(d, 8, SPOOR_PROBE_VID);
	put16(d, 10, SPOOR_PROBE_PID);
	put16(d, 12, SIM_USB_BCD_DEVICE);
	d[14] = 1;
	d[15] = 2;
	d[16] = 3;
	d[17] = 1;			/* bNumConfigurations */
	cfg[4] = dfu ? 1 : 2;		/* bNumInterfaces */
	cfg[5] = 1;			/* bConfigurationValue */
	cfg[7] = 0x80;			/* bus powered */
	cfg[8] = 250;			/* 500 mA */
	put16(func, 3, SIM_USB_DFU_DETACH_MS);
	put16(func, 5, SIM_USB_DFU_TRANSFER);
	put16(func, 7, SIM_USB_DFU_VERSION);

	dev->desc_len = 0;
	ret |= usb_emu_append(dev, d, sizeof(d));
	ret |= usb_emu_append(dev, cfg, sizeof(cfg));
	if (!dfu) {
		intf[2] = SPOOR_PROBE_IF_TRACE;
		intf[4] = 1;		/* bNumEndpoints */
		intf[5] = 0xff;
		intf[8] = 4;
		ret |= usb_emu_append(dev, intf, sizeof(intf));
		ret |= usb_emu_append(dev, ep, sizeof(ep));
	}
	/* DFU mode has the DFU interface alone, as interface 0. */
	intf[2] = dfu ? 0 : SPOOR_PROBE_IF_DFU;
	intf[4] = 0;
	intf[5] = 0xfe;			/* application specific */
	intf[6] = 0x01;			/* DFU */
	intf[7] = dfu ? 0x02 : 0x01;	/* DFU mode / run time */
	intf[8] = 5;
	ret |= usb_emu_append(dev, intf, sizeof(intf));
	ret |= usb_emu_append(dev, func, sizeof(func));
	if (ret)
		return SPOOR_E_NOSPACE;
	usb_emu_finish(dev);
	dev->strings[1] = "spoor";
	dev->strings[2] = dfu ? "spoor trace probe (sim, DFU mode)" : "spoor trace probe (sim)";
	dev->strings[3] = serial;
	dev->strings[4] = "spoor trace";
	dev->strings[5] = "spoor firmware";
	return 0;
}

/* Control requests: the model's (DFU requests in DFU mode go to its DFU interface). */
static int usb_control(void *ctx, const struct spoor_probe_setup *setup, uint8_t *data)
{
	struct sim_usb *u = ctx;
	struct spoor_probe_setup s = *setup;

	if (u->dfu && (s.request_type & 0x7f) == (SPOOR_PROBE_DFU_REQTYPE_OUT & 0x7f) &&
	    s.index == 0)
		s.index = SPOOR_PROBE_IF_DFU;
	return sim_probe_control(u->p, &s, data);
}

/* Bulk IN on the trace endpoint: the model's records. */
static size_t usb_bulk_in(void *ctx, uint8_t ep, uint8_t *buf, size_t max)
{
	struct sim_usb *u = ctx;

	if (u->dfu || ep != SPOOR_PROBE_EP_TRACE)
		return 0;
	return sim_probe_bulk_in(u->p, buf, max);
}

/* The USB reset: after DETACH into DFU mode, from DFU mode back to run time. */
static const struct usb_emu_device *usb_reset(void *ctx)
{
	struct sim_usb *u = ctx;
	bool was = u->dfu;

	sim_probe_reset(u->p);
	u->dfu = sim_probe_dfu_mode(u->p);
	if (!was && !u->dfu)
		return NULL;
	return u->dfu ? &u->dfu_dev : &u->run;
}

/* Back after an unplug: the probe lost power, so it boots again, at run time. */
static const struct usb_emu_device *usb_replug(void *ctx)
{
	struct sim_usb *u = ctx;

	sim_probe_reset(u->p);
	if (sim_probe_dfu_mode(u->p))
		sim_probe_reset(u->p);
	u->dfu = sim_probe_dfu_mode(u->p);
	return u->dfu ? &u->dfu_dev : &u->run;
}

static const struct usb_emu_ops sim_usb_ops = {
	.control = usb_control,
	.bulk_in = usb_bulk_in,
	.reset = usb_reset,
	.replug = usb_replug,
};

/* Runs COMMAND @argv against the model as the spoor probe on USB. */
static int sim_usb_front(struct sim_probe *p, const struct sim_options *o, char **argv)
{
	const char *serial = o->serial ? o->serial : "SIM0001";
	struct sim_usb u = { .p = p };
	struct usb_emu *e = NULL;
	int ret;

	ret = usb_emu_preload();
	if (ret)
		return ret;
	ret = build_device(&u.run, serial, false);
	if (!ret)
		ret = build_device(&u.dfu_dev, serial, true);
	if (ret)
		return ret;
	ret = usb_emu_new(&sim_usb_ops, &u, &e);
	if (ret) {
		fprintf(stderr, "spoor-probe-sim: cannot set up the USB testbed\n");
		return ret;
	}
	usb_emu_set_unplug(e, o->unplug_after, o->replug_ms);
	u.dfu = sim_probe_dfu_mode(p);
	ret = usb_emu_plug(e, u.dfu ? &u.dfu_dev : &u.run);
	if (!ret)
		ret = usb_emu_run(e, argv);
	usb_emu_free(e);
	return ret;
}

/* The front, as spoor-probe-sim's exit status: COMMAND's, or 2 if it could not run. */
int sim_usb_run(struct sim_probe *p, const struct sim_options *o, char **argv)
{
	int ret = sim_usb_front(p, o, argv);

	if (ret >= 0)
		return ret;
	fprintf(stderr, "spoor-probe-sim: %s\n", spoor_errstr(ret));
	return 2;
}
