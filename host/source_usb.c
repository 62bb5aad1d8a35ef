// SPDX-License-Identifier: MIT
/*
 * The usb trace source: the spoor probe (probe/PROTOCOL.md) through
 * libusb-1.0.  Vendor requests go through control(); the bulk IN record
 * stream comes through a ring of asynchronous transfers, handed to
 * spoor_source_bytes() in the order they were submitted.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libusb.h>

#include "source_driver.h"
#include "spoor/error.h"
#include "usb_ring.h"

#define USB_XFERS 8			/* bulk IN transfers in flight */
#define USB_XFER_SIZE (256 * 1024)	/* bytes each (small ones are slow) */
#define USB_INFO_TIMEOUT_MS 500		/* GET_INFO while scanning */

struct usb_priv {
	libusb_context *ctx;
	libusb_device_handle *h;
	bool claimed;
	bool dfu_mode;		/* the device is in DFU mode: firmware only, no trace */
	int dfu_intf;		/* its DFU interface's number, or -1 */
	int claim_intf;		/* the interface claimed */
	uint16_t vid, pid;
	struct usb_ring ring;	/* the bulk IN transfers; ring.gone: unplugged */
};

/* The VID:PID to look for: SPOOR_PROBE_VIDPID=VVVV:PPPP or the default; @who starts a message. */
static int probe_ids(uint16_t *vid, uint16_t *pid, const char *who, struct spoor_diag *diag)
{
	const char *env = getenv("SPOOR_PROBE_VIDPID");
	unsigned long v, p;
	char *end;

	*vid = SPOOR_PROBE_VID;
	*pid = SPOOR_PROBE_PID;
	if (!env || !*env)
		return 0;
	v = strtoul(env, &end, 16);
	if (end == env || end - env > 4 || *end != ':')
		goto bad;
	env = end + 1;
	p = strtoul(env, &end, 16);
	if (end == env || end - env > 4 || *end)
		goto bad;
	*vid = (uint16_t)v;
	*pid = (uint16_t)p;
	return 0;
bad:
	usb_say(diag, "%sSPOOR_PROBE_VIDPID='%.32s' is not VVVV:PPPP (hexadecimal)", who,
	    getenv("SPOOR_PROBE_VIDPID"));
	return SPOOR_E_INVAL;
}

/* Reads string descriptor @idx into @out (@size bytes), printable ASCII only; "" if none. */
static void read_string(libusb_device_handle *h, uint8_t idx, char *out, size_t size)
{
	unsigned char buf[256];
	int n;

	out[0] = 0;
	if (!idx || size < 2)
		return;
	n = libusb_get_string_descriptor_ascii(h, idx, buf, sizeof(buf));
	if (n <= 0)
		return;
	if ((size_t)n > size - 1)
		n = (int)(size - 1);
	for (int i = 0; i < n; i++)
		out[i] = buf[i] >= 0x20 && buf[i] < 0x7f ? (char)buf[i] : '?';
	out[n] = 0;
}

/*
 * Looks at @dev's configuration: sets *@dfu if its DFU interface says DFU
 * mode (protocol 02), *@trace if interface 0 has the bulk IN endpoint 0x81.
 */
static void inspect_config(libusb_device *dev, bool *dfu, bool *trace, int *dfu_intf)
{
	struct libusb_config_descriptor *cfg = NULL;

	*dfu = false;
	*trace = false;
	*dfu_intf = -1;
	if (libusb_get_active_config_descriptor(dev, &cfg) < 0 &&
	    libusb_get_config_descriptor(dev, 0, &cfg) < 0)
		return;
	for (int i = 0; i < cfg->bNumInterfaces; i++) {
		const struct libusb_interface *itf = &cfg->interface[i];

		for (int a = 0; a < itf->num_altsetting; a++) {
			const struct libusb_interface_descriptor *d = &itf->altsetting[a];

			if (d->bInterfaceClass == 0xfe && d->bInterfaceSubClass == 0x01) {
				*dfu_intf = d->bInterfaceNumber;
				if (d->bInterfaceProtocol == 0x02)
					*dfu = true;
			}
			if (d->bInterfaceNumber != SPOOR_PROBE_IF_TRACE || d->bAlternateSetting)
				continue;
			for (int e = 0; e < d->bNumEndpoints; e++) {
				const struct libusb_endpoint_descriptor *ep = &d->endpoint[e];

				if (ep->bEndpointAddress == SPOOR_PROBE_EP_TRACE &&
				    (ep->bmAttributes & 0x03) == LIBUSB_TRANSFER_TYPE_BULK)
					*trace = true;
			}
		}
	}
	libusb_free_config_descriptor(cfg);
}

/* Fills @d's info by GET_INFO if interface 0 can be claimed (not in use elsewhere). */
static void scan_info(libusb_device_handle *h, struct spoor_source_desc *d)
{
	uint8_t buf[SPOOR_PROBE_INFO_SIZE];
	size_t len;
	int n;

	n = libusb_claim_interface(h, SPOOR_PROBE_IF_TRACE);
	if (n == LIBUSB_ERROR_BUSY) {
		len = strlen(d->product);
		snprintf(d->product + len, sizeof(d->product) - len, " (in use)");
	}
	if (n < 0)
		return;
	n = libusb_control_transfer(h, SPOOR_PROBE_REQTYPE_IN, SPOOR_PROBE_GET_INFO, 0,
				    SPOOR_PROBE_IF_TRACE, buf, sizeof(buf), USB_INFO_TIMEOUT_MS);
	if (n == SPOOR_PROBE_INFO_SIZE && !spoor_probe_info_decode(buf, (size_t)n, &d->info))
		d->have_info = true;
	libusb_release_interface(h, SPOOR_PROBE_IF_TRACE);
}

/* Lists the spoor probes attached. */
static int usb_scan(struct spoor_source_list *list, struct spoor_diag *diag)
{
	libusb_context *ctx = NULL;
	libusb_device **devs = NULL;
	uint16_t vid, pid;
	ssize_t n;
	int r, ret;

	ret = probe_ids(&vid, &pid, "", diag);
	if (ret < 0)
		return ret;
	r = libusb_init(&ctx);
	if (r < 0) {
		usb_say(diag, "cannot use USB: %s", libusb_strerror(r));
		return usb_ring_error(r);
	}
	n = libusb_get_device_list(ctx, &devs);
	if (n < 0) {
		usb_say(diag, "cannot list USB devices: %s", libusb_strerror((int)n));
		ret = usb_ring_error((int)n);
		goto out;
	}
	for (ssize_t i = 0; i < n; i++) {
		struct libusb_device_descriptor dd;
		struct spoor_source_desc d;
		libusb_device_handle *h;
		bool dfu, trace;
		int dfu_intf;

		if (libusb_get_device_descriptor(devs[i], &dd) < 0 ||
		    dd.idVendor != vid || dd.idProduct != pid)
			continue;
		memset(&d, 0, sizeof(d));
		snprintf(d.driver, sizeof(d.driver), "usb");
		d.vid = vid;
		d.pid = pid;
		inspect_config(devs[i], &dfu, &trace, &dfu_intf);
		d.dfu_mode = dfu;
		r = libusb_open(devs[i], &h);
		if (r < 0) {
			snprintf(d.product, sizeof(d.product), "spoor probe (bus %u device %u: %s)",
				 libusb_get_bus_number(devs[i]),
				 libusb_get_device_address(devs[i]), libusb_strerror(r));
		} else {
			read_string(h, dd.iSerialNumber, d.serial, sizeof(d.serial));
			read_string(h, dd.iProduct, d.product, sizeof(d.product));
			if (!d.product[0])
				snprintf(d.product, sizeof(d.product), "spoor probe");
			if (!dfu && trace)
				scan_info(h, &d);
			libusb_close(h);
		}
		if (!d.product[0])
			snprintf(d.product, sizeof(d.product), "spoor probe");
		if (d.serial[0])
			snprintf(d.address, sizeof(d.address), "usb:%s", d.serial);
		else
			snprintf(d.address, sizeof(d.address), "usb");
		ret = spoor_source_list_add(list, &d);
		if (ret < 0)
			goto out;
	}
	ret = 0;
out:
	if (devs)
		libusb_free_device_list(devs, 1);
	libusb_exit(ctx);
	return ret;
}

/* Appends ", @s" (or "@s" first) to the list @buf of @size bytes. */
static void append_name(char *buf, size_t size, const char *s)
{
	size_t n = strlen(buf);

	if (n + 1 < size)
		snprintf(buf + n, size - n, "%s%s", n ? ", " : "", *s ? s : "(no serial)");
}

/*
 * Finds and opens the probe with serial @serial ("": the only one) in
 * p->ctx, into p->h; its serial into @got.  Returns 0, SPOOR_E_NO_DEVICE,
 * SPOOR_E_INVAL (several, none named) or the error of opening it.
 */
static int find_probe(struct usb_priv *p, const char *serial, char *got, size_t got_size,
		      struct spoor_diag *diag)
{
	libusb_device **devs = NULL;
	libusb_device_handle *found = NULL;
	char seen[256] = "", why[128] = "";
	unsigned int nfound = 0, nclosed = 0, ndfu = 0;
	libusb_device_handle *dfu_h = NULL;	/* a probe in DFU mode */
	char dfu_serial[SPOOR_PROBE_SERIAL_MAX + 1] = "";
	int dfu_at = -1;
	int open_err = 0, ret;
	ssize_t n;

	n = libusb_get_device_list(p->ctx, &devs);
	if (n < 0) {
		usb_say(diag, "usb: cannot list USB devices: %s", libusb_strerror((int)n));
		return usb_ring_error((int)n);
	}
	for (ssize_t i = 0; i < n; i++) {
		struct libusb_device_descriptor dd;
		libusb_device_handle *h;
		char s[SPOOR_PROBE_SERIAL_MAX + 1];
		bool dfu, trace;
		int r, dfu_intf;

		if (libusb_get_device_descriptor(devs[i], &dd) < 0 ||
		    dd.idVendor != p->vid || dd.idProduct != p->pid)
			continue;
		r = libusb_open(devs[i], &h);
		if (r < 0) {
			nclosed++;
			open_err = r;
			continue;
		}
		read_string(h, dd.iSerialNumber, s, sizeof(s));
		if (*serial && strcmp(s, serial)) {
			append_name(seen, sizeof(seen), s);
			libusb_close(h);
			continue;
		}
		inspect_config(devs[i], &dfu, &trace, &dfu_intf);
		/*
		 * In DFU mode it takes firmware (spoor flash), not traces: opened
		 * when named by its serial, or when it is the only probe there.
		 */
		if ((dfu && !*serial) || (!dfu && !trace)) {
			ndfu++;
			snprintf(why, sizeof(why), "%s%s: %s", *s ? "usb:" : "usb", s,
				 dfu ? "in DFU mode (it takes firmware, not traces)" :
				 "no bulk IN endpoint 0x81 on interface 0");
			if (dfu && !dfu_h) {
				dfu_h = h;
				dfu_at = dfu_intf;
				snprintf(dfu_serial, sizeof(dfu_serial), "%s", s);
			} else {
				libusb_close(h);
			}
			continue;
		}
		append_name(seen, sizeof(seen), s);
		nfound++;
		if (!found) {
			found = h;
			p->dfu_mode = dfu;
			p->dfu_intf = dfu_intf;
			snprintf(got, got_size, "%s", s);
		} else {
			libusb_close(h);
		}
	}
	libusb_free_device_list(devs, 1);
	if (!nfound && ndfu == 1 && dfu_h) {
		/* The only probe, in DFU mode. */
		p->h = dfu_h;
		p->dfu_mode = true;
		p->dfu_intf = dfu_at;
		snprintf(got, got_size, "%s", dfu_serial);
		return 0;
	}
	if (dfu_h)
		libusb_close(dfu_h);
	if (nfound == 1) {
		p->h = found;
		return 0;
	}
	if (found)
		libusb_close(found);
	if (nfound > 1) {
		usb_say(diag, "usb: %u spoor probes attached (%s): name one, usb:SERIAL", nfound, seen);
		return SPOOR_E_INVAL;
	}
	ret = SPOOR_E_NO_DEVICE;
	if (ndfu) {
		usb_say(diag, "%s", why);
	} else if (nclosed) {
		usb_say(diag, "usb%s%s: %u spoor probe%s (%04x:%04x) cannot be opened: %s%s",
		    *serial ? ":" : "", serial, nclosed, nclosed > 1 ? "s" : "", p->vid, p->pid,
		    libusb_strerror(open_err),
		    open_err == LIBUSB_ERROR_ACCESS ? " (a udev rule giving access?)" : "");
		ret = usb_ring_error(open_err) == SPOOR_E_NO_DEVICE ? SPOOR_E_NO_DEVICE : SPOOR_E_IO;
	} else if (*serial) {
		usb_say(diag, "usb:%s: no spoor probe with that serial attached%s%s%s", serial,
		    seen[0] ? " (there is: " : "", seen, seen[0] ? ")" : "");
	} else {
		usb_say(diag, "usb: no spoor probe (USB %04x:%04x) attached", p->vid, p->pid);
	}
	return ret;
}

/* Opens a context, the probe with serial @serial and claims its trace interface. */
static int attach(struct spoor_source *src, const char *serial, struct spoor_diag *diag)
{
	struct usb_priv *p = src->priv;
	char got[SPOOR_PROBE_SERIAL_MAX + 1] = "";
	int r, ret;

	r = libusb_init(&p->ctx);
	if (r < 0) {
		p->ctx = NULL;
		usb_say(diag, "usb: cannot use USB: %s", libusb_strerror(r));
		return usb_ring_error(r);
	}
	ret = find_probe(p, serial, got, sizeof(got), diag);
	if (ret < 0)
		return ret;
	/* A kernel driver on the interface (none expected) gives way. */
	libusb_set_auto_detach_kernel_driver(p->h, 1);
	p->claim_intf = p->dfu_mode ? p->dfu_intf : SPOOR_PROBE_IF_TRACE;
	r = libusb_claim_interface(p->h, p->claim_intf);
	if (r < 0) {
		ret = usb_ring_error(r);
		usb_say(diag, "usb%s%s: cannot claim interface %d: %s", got[0] ? ":" : "", got,
		    p->claim_intf,
		    ret == SPOOR_E_BUSY ? "in use by another program" : libusb_strerror(r));
		return ret;
	}
	p->claimed = true;
	p->ring.gone = false;
	p->ring.ctx = p->ctx;
	p->ring.h = p->h;
	snprintf(src->serial, sizeof(src->serial), "%s", got);
	snprintf(src->name, sizeof(src->name), "usb%s%s%s", got[0] ? ":" : "", got,
		 p->dfu_mode ? " (in DFU mode)" : "");
	return 0;
}

/* Lets go of the device and the context (transfers cancelled first). */
static void detach(struct usb_priv *p)
{
	/* A transfer libusb still holds points into the handle and the context. */
	bool stuck = usb_ring_release(&p->ring);

	if (p->h) {
		if (p->claimed)
			libusb_release_interface(p->h, p->claim_intf);
		if (!stuck)
			libusb_close(p->h);
	}
	p->h = NULL;
	p->claimed = false;
	if (p->ctx && !stuck)
		libusb_exit(p->ctx);
	p->ctx = NULL;
}

/* Opens usb:@arg ("" the only probe attached). */
static int usb_open(struct spoor_source *src, const char *arg, struct spoor_diag *diag)
{
	struct usb_priv *p;
	int ret;

	if (strlen(arg) > SPOOR_PROBE_SERIAL_MAX) {
		usb_say(diag, "usb:%.40s...: not a serial (%d characters at most)", arg,
		    SPOOR_PROBE_SERIAL_MAX);
		return SPOOR_E_INVAL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return SPOOR_E_NOMEM;
	usb_ring_init(&p->ring, USB_XFERS, USB_XFER_SIZE);
	ret = probe_ids(&p->vid, &p->pid, "usb: ", diag);
	if (ret < 0)
		goto fail;
	src->priv = p;
	ret = attach(src, arg, diag);
	if (ret < 0)
		goto fail;
	return 0;
fail:
	detach(p);
	free(p);
	src->priv = NULL;
	return ret;
}

/* Cancels the transfers, releases the interface and closes. */
static void usb_close(struct spoor_source *src)
{
	struct usb_priv *p = src->priv;

	if (!p)
		return;
	detach(p);
	free(p);
	src->priv = NULL;
}

/* A control request on endpoint 0. */
static int usb_control(struct spoor_source *src, uint8_t request_type, uint8_t request,
		       uint16_t value, uint16_t index, uint8_t *data, uint16_t len,
		       int timeout_ms)
{
	struct usb_priv *p = src->priv;
	int r;

	if (!p || !p->h || p->ring.gone)
		return SPOOR_E_NO_DEVICE;
	if (len && !data)
		return SPOOR_E_INVAL;
	r = libusb_control_transfer(p->h, request_type, request, value, index, data, len,
				    timeout_ms > 0 ? (unsigned int)timeout_ms : 0);
	if (r == LIBUSB_ERROR_NO_DEVICE)
		p->ring.gone = true;
	return r < 0 ? usb_ring_error(r) : r;
}

/* Starts the bulk IN transfers (the layer sent START); still running after a STOP. */
static int usb_start(struct spoor_source *src)
{
	struct usb_priv *p = src->priv;

	if (!p || !p->h || p->ring.gone)
		return SPOOR_E_NO_DEVICE;
	return usb_ring_start(&p->ring, p->ctx, p->h, SPOOR_PROBE_EP_TRACE);
}

/* Waits up to @timeout_ms for bulk data and hands it to spoor_source_bytes(). */
static int usb_read(struct spoor_source *src, int timeout_ms)
{
	struct usb_priv *p = src->priv;

	if (!p || !p->h)
		return SPOOR_E_NO_DEVICE;
	return usb_ring_read(&p->ring, src, timeout_ms);
}

/* A USB reset: the device re-enumerates (in DFU mode after a DETACH); reopen() finds it. */
static int usb_reset(struct spoor_source *src)
{
	struct usb_priv *p = src->priv;
	int r;

	if (!p || !p->h)
		return SPOOR_E_NO_DEVICE;
	usb_ring_cancel(&p->ring);
	r = libusb_reset_device(p->h);
	/* Coming back as another device is what a reset into DFU mode does. */
	if (r < 0 && r != LIBUSB_ERROR_NOT_FOUND && r != LIBUSB_ERROR_NO_DEVICE)
		return usb_ring_error(r);
	detach(p);
	return 0;
}

/* The DFU interface's number (interface 1 at run time; in DFU mode, the only one). */
static int usb_dfu_interface(struct spoor_source *src)
{
	struct usb_priv *p = src->priv;

	return p && p->dfu_intf >= 0 ? p->dfu_intf : SPOOR_E_NOT_FOUND;
}

/* Lets go of the unplugged probe and opens the one with the same serial, if back. */
static int usb_reopen(struct spoor_source *src, struct spoor_diag *diag)
{
	struct usb_priv *p = src->priv;
	char serial[sizeof(src->serial)];
	int ret;

	if (!p)
		return SPOOR_E_INVAL;
	snprintf(serial, sizeof(serial), "%s", src->serial);
	detach(p);
	ret = attach(src, serial, diag);
	/* Just back, it may not be ours yet (udev setting its mode): try again. */
	if (ret == SPOOR_E_IO)
		ret = SPOOR_E_NO_DEVICE;
	if (ret < 0)
		detach(p);
	return ret;
}

const struct spoor_source_driver spoor_source_usb = {
	.name = "usb",
	.usage = "usb[:SERIAL]",
	.help = "a spoor probe on USB (1209:0001, or SPOOR_PROBE_VIDPID=VVVV:PPPP)",
	.framing = SPOOR_FRAMING_RECORDS,
	.live = true,
	.scan = usb_scan,
	.open = usb_open,
	.close = usb_close,
	.control = usb_control,
	.start = usb_start,
	.read = usb_read,
	.reset = usb_reset,
	.dfu_interface = usb_dfu_interface,
	.reopen = usb_reopen,
};
