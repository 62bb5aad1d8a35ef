// SPDX-License-Identifier: MIT
/*
 * The ftdi trace source: an FT2232H (0403:6010) or FT232H (0403:6014)
 * whose FIFO interface takes the 8-bit trace port, read raw through
 * libftdi1.  On an FT2232H channel A is usually the target's JTAG, so the
 * trace is on channel B in the 245 asynchronous FIFO mode its EEPROM sets
 * (the mode BITMODE_RESET returns to); channel A of an FT2232H and the
 * FT232H are read in the synchronous FIFO mode (BITMODE_SYNCFF).
 *
 * The bytes come through a ring of asynchronous libusb bulk transfers on
 * libftdi's handle, each packet's two modem status bytes stripped, handed
 * to spoor_source_bytes() in the order the transfers were submitted.  The
 * chip has no START/STOP: start() and stop() are the capture's edges.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ftdi.h>
#include <libusb.h>

#include "source_driver.h"
#include "spoor/error.h"
#include "usb_ring.h"

#define FT_VID 0x0403
#define FT_PID_2232H 0x6010
#define FT_PID_232H 0x6014
#define FT_XFERS 8			/* bulk IN transfers in flight */
#define FT_XFER_SIZE (64 * 1024)	/* bytes each, a multiple of the packet size */
#define FT_STATUS_BYTES 2		/* modem status in front of every packet */
#define FT_LATENCY_MS 2

struct ft_priv {
	struct ftdi_context *f;
	bool opened;		/* ftdi_usb_open_dev() succeeded */
	uint16_t pid;
	char chan;		/* 'A' or 'B'; 0 in the spec: the default */
	unsigned int mps;	/* the IN endpoint's packet size */
	struct usb_ring ring;	/* the bulk IN transfers; ring.gone: unplugged */
};

/* The chip's name for @pid. */
static const char *chip_name(uint16_t pid)
{
	return pid == FT_PID_2232H ? "FT2232H" : "FT232H";
}

/*
 * Splits the spec's argument "SERIAL", "SERIAL:C" or ":C" (C: channel A
 * or B) into @serial and *@chan (0: none given).  Returns 0 or SPOOR_E_INVAL.
 */
static int parse_arg(const char *arg, char *serial, size_t size, char *chan,
		     struct spoor_diag *diag)
{
	const char *colon = strrchr(arg, ':');
	size_t n = colon ? (size_t)(colon - arg) : strlen(arg);

	*chan = 0;
	if (colon) {
		if (strlen(colon + 1) != 1 || !strchr("AaBb", colon[1])) {
			usb_say(diag, "ftdi:%.64s: the channel after ':' must be A or B", arg);
			return SPOOR_E_INVAL;
		}
		*chan = (char)toupper((unsigned char)colon[1]);
	}
	if (n > SPOOR_PROBE_SERIAL_MAX || n >= size || memchr(arg, ':', n)) {
		usb_say(diag, "ftdi:%.64s: not SERIAL[:A|B] (a serial has %d characters at most)",
		    arg, SPOOR_PROBE_SERIAL_MAX);
		return SPOOR_E_INVAL;
	}
	memcpy(serial, arg, n);
	serial[n] = 0;
	return 0;
}

/*
 * Removes the @FT_STATUS_BYTES modem status bytes in front of every
 * @mps-byte packet of the @len bytes at @buf, in place.  Returns the bytes left.
 */
static size_t strip_status(void *arg, uint8_t *buf, size_t len)
{
	size_t mps = ((struct ft_priv *)arg)->mps;
	size_t out = 0;

	for (size_t off = 0; off < len; off += mps) {
		size_t n = len - off < mps ? len - off : mps;

		if (n > FT_STATUS_BYTES) {
			memmove(buf + out, buf + off + FT_STATUS_BYTES, n - FT_STATUS_BYTES);
			out += n - FT_STATUS_BYTES;
		}
	}
	return out;
}

/* Copies the string @in to @out (@size bytes), printable ASCII only. */
static void clean_string(const char *in, char *out, size_t size)
{
	size_t i;

	for (i = 0; in[i] && i + 1 < size; i++)
		out[i] = in[i] >= 0x20 && in[i] < 0x7f ? in[i] : '?';
	out[i] = 0;
}

/* One FTDI chip found: its device, PID, strings (or why they could not be read). */
struct ft_found {
	libusb_device *dev;
	uint16_t pid;
	char serial[SPOOR_PROBE_SERIAL_MAX + 1];
	char product[64];
	int err;		/* ftdi_usb_get_strings()'s error, 0 if read */
	char why[96];
};

/*
 * Calls @fn for every FT2232H and FT232H attached, until it returns
 * nonzero (returned).  Returns 0, that, or SPOOR_E_USB (@diag says why).
 */
static int for_each_chip(struct ftdi_context *f,
			 int (*fn)(void *ctx, const struct ft_found *d), void *ctx,
			 struct spoor_diag *diag)
{
	static const uint16_t pids[] = { FT_PID_2232H, FT_PID_232H };
	int ret = 0;

	for (size_t k = 0; k < sizeof(pids) / sizeof(pids[0]) && !ret; k++) {
		struct ftdi_device_list *list = NULL;
		int n = ftdi_usb_find_all(f, &list, FT_VID, pids[k]);

		if (n < 0) {
			usb_say(diag, "cannot list USB devices: %s", ftdi_get_error_string(f));
			return SPOOR_E_USB;
		}
		for (struct ftdi_device_list *l = list; l && !ret; l = l->next) {
			struct ft_found d = { .dev = l->dev, .pid = pids[k] };
			char serial[128] = "", product[128] = "";

			d.err = ftdi_usb_get_strings(f, l->dev, NULL, 0, product, sizeof(product),
						     serial, sizeof(serial));
			if (d.err < 0)
				snprintf(d.why, sizeof(d.why), "%s", ftdi_get_error_string(f));
			clean_string(serial, d.serial, sizeof(d.serial));
			clean_string(product, d.product, sizeof(d.product));
			ret = fn(ctx, &d);
		}
		ftdi_list_free(&list);
	}
	return ret;
}

/* The synthetic GET_INFO of an FTDI FIFO with serial @serial. */
static void fill_info(struct spoor_probe_info *info, uint16_t pid, const char *serial)
{
	memset(info, 0, sizeof(*info));
	info->port_widths = 1u << 7;	/* 8 bits */
	info->buffer_size = pid == FT_PID_2232H ? 4096 : 1024;	/* the chip's RX FIFO */
	snprintf(info->serial, sizeof(info->serial), "%s", serial);
}

/* for_each_chip() while scanning: appends @d to the list. */
static int scan_one(void *ctx, const struct ft_found *d)
{
	struct spoor_source_desc desc;

	memset(&desc, 0, sizeof(desc));
	snprintf(desc.driver, sizeof(desc.driver), "ftdi");
	desc.vid = FT_VID;
	desc.pid = d->pid;
	snprintf(desc.serial, sizeof(desc.serial), "%s", d->serial);
	if (d->err < 0)
		snprintf(desc.product, sizeof(desc.product), "%s (%.40s)", chip_name(d->pid),
			 d->why);
	else if (d->product[0])
		snprintf(desc.product, sizeof(desc.product), "%s", d->product);
	else
		snprintf(desc.product, sizeof(desc.product), "%s", chip_name(d->pid));
	if (d->serial[0])
		snprintf(desc.address, sizeof(desc.address), "ftdi:%s", d->serial);
	else
		snprintf(desc.address, sizeof(desc.address), "ftdi");
	if (d->err >= 0) {
		fill_info(&desc.info, d->pid, d->serial);
		desc.have_info = true;
	}
	return spoor_source_list_add(ctx, &desc);
}

/* Lists the FT2232H and FT232H chips attached. */
static int ft_scan(struct spoor_source_list *list, struct spoor_diag *diag)
{
	struct ftdi_context *f = ftdi_new();
	int ret;

	if (!f) {
		usb_say(diag, "cannot use USB (libftdi's context)");
		return SPOOR_E_USB;
	}
	ret = for_each_chip(f, scan_one, list, diag);
	ftdi_free(f);
	return ret;
}

/* What find_chip() looks for and what it found. */
struct ft_search {
	const char *serial;	/* "": any */
	libusb_device *dev;	/* the first match, referenced */
	uint16_t pid;
	char got[SPOOR_PROBE_SERIAL_MAX + 1];
	unsigned int nfound, nclosed;
	char seen[256];
	char why[96];
};

/* Appends ", @s" (or "@s" first) to the list @buf of @size bytes. */
static void append_name(char *buf, size_t size, const char *s)
{
	size_t n = strlen(buf);

	if (n + 1 < size)
		snprintf(buf + n, size - n, "%s%s", n ? ", " : "", *s ? s : "(no serial)");
}

/* for_each_chip() while opening: keeps the chip asked for. */
static int find_one(void *ctx, const struct ft_found *d)
{
	struct ft_search *s = ctx;

	if (d->err < 0) {
		s->nclosed++;
		snprintf(s->why, sizeof(s->why), "%s", d->why);
		return 0;
	}
	append_name(s->seen, sizeof(s->seen), d->serial);
	if (*s->serial && strcmp(s->serial, d->serial))
		return 0;
	if (!s->nfound++) {
		s->dev = libusb_ref_device(d->dev);
		s->pid = d->pid;
		snprintf(s->got, sizeof(s->got), "%s", d->serial);
	}
	return 0;
}

/* Sets the chip up for reading its FIFO.  Returns 0 or an error, @diag says which step. */
static int setup_chip(struct ft_priv *p, const char *name, struct spoor_diag *diag)
{
	struct ftdi_context *f = p->f;
	bool sync = p->chan == 'A';
	const char *step;

	step = "reset";
	if (ftdi_usb_reset(f) < 0)
		goto fail;
	step = "set the latency timer";
	if (ftdi_set_latency_timer(f, FT_LATENCY_MS) < 0)
		goto fail;
	step = "reset the bit mode";
	if (ftdi_set_bitmode(f, 0xff, BITMODE_RESET) < 0)
		goto fail;
	if (sync) {
		step = "set the synchronous FIFO mode";
		if (ftdi_set_bitmode(f, 0xff, BITMODE_SYNCFF) < 0)
			goto fail;
		step = "set RTS/CTS flow control";
		if (ftdi_setflowctrl(f, SIO_RTS_CTS_HS) < 0)
			goto fail;
	}
	step = "purge its buffers";
	if (ftdi_tcioflush(f) < 0)
		goto fail;
	return 0;
fail:
	usb_say(diag, "%s: cannot %s: %s", name, step, ftdi_get_error_string(f));
	return SPOOR_E_USB;
}

/*
 * Finds the chip with serial @serial ("": the only one), opens channel
 * @chan (0: the default) and sets it up.  Sets src->serial and src->name.
 */
static int attach(struct spoor_source *src, const char *serial, char chan,
		  struct spoor_diag *diag)
{
	struct ft_priv *p = src->priv;
	struct ft_search s = { .serial = serial };
	char name[sizeof(src->name)];
	int r, ret;

	p->f = ftdi_new();
	if (!p->f) {
		usb_say(diag, "ftdi: cannot use USB (libftdi's context)");
		return SPOOR_E_USB;
	}
	ret = for_each_chip(p->f, find_one, &s, diag);
	if (ret < 0)
		goto out;
	if (s.nfound > 1) {
		usb_say(diag, "ftdi: %u FT2232H/FT232H attached (%s): name one, ftdi:SERIAL",
		    s.nfound, s.seen);
		ret = SPOOR_E_INVAL;
		goto out;
	}
	if (!s.nfound) {
		ret = SPOOR_E_NO_DEVICE;
		if (s.nclosed) {
			usb_say(diag, "ftdi%s%s: %u FTDI chip%s cannot be opened: %s",
			    *serial ? ":" : "", serial, s.nclosed, s.nclosed > 1 ? "s" : "",
			    s.why);
			ret = SPOOR_E_IO;
		} else if (*serial) {
			usb_say(diag, "ftdi:%s: no FT2232H/FT232H with that serial attached%s%s%s",
			    serial, s.seen[0] ? " (there is: " : "", s.seen, s.seen[0] ? ")" : "");
		} else {
			usb_say(diag, "ftdi: no FT2232H (0403:6010) or FT232H (0403:6014) attached");
		}
		goto out;
	}
	if (!chan)
		chan = s.pid == FT_PID_2232H ? 'B' : 'A';
	if (s.pid == FT_PID_2232H)
		snprintf(name, sizeof(name), "ftdi:%s:%c", s.got, chan);
	else
		snprintf(name, sizeof(name), "ftdi%s%s", s.got[0] ? ":" : "", s.got);
	if (s.pid == FT_PID_232H && chan != 'A') {
		usb_say(diag, "%s: an FT232H has one channel (A), not %c", name, chan);
		ret = SPOOR_E_INVAL;
		goto out;
	}
	p->pid = s.pid;
	p->chan = chan;
	ftdi_set_interface(p->f, chan == 'A' ? INTERFACE_A : INTERFACE_B);
	r = ftdi_usb_open_dev(p->f, s.dev);
	if (r < 0) {
		/* -5: claiming failed, -11: a kernel driver would not let go. */
		ret = r == -5 || r == -11 ? SPOOR_E_BUSY : r == -4 ? SPOOR_E_IO : SPOOR_E_USB;
		usb_say(diag, "%s: cannot open: %s%s", name, ftdi_get_error_string(p->f),
		    ret == SPOOR_E_BUSY ? " (in use by another program?)" : "");
		goto out;
	}
	p->opened = true;
	p->mps = p->f->max_packet_size;
	if (p->mps <= FT_STATUS_BYTES || p->mps > FT_XFER_SIZE) {
		usb_say(diag, "%s: an impossible packet size (%u bytes)", name, p->mps);
		ret = SPOOR_E_USB;
		goto out;
	}
	usb_ring_init(&p->ring, FT_XFERS, FT_XFER_SIZE / p->mps * p->mps);
	p->ring.filter = strip_status;
	p->ring.filter_arg = p;
	p->ring.ctx = p->f->usb_ctx;
	p->ring.h = p->f->usb_dev;
	ret = setup_chip(p, name, diag);
	if (ret < 0)
		goto out;
	p->ring.gone = false;
	snprintf(src->serial, sizeof(src->serial), "%s", s.got);
	snprintf(src->name, sizeof(src->name), "%s", name);
out:
	if (s.dev)
		libusb_unref_device(s.dev);
	return ret;
}

/* Lets go of the chip and libftdi's context (transfers cancelled first). */
static void detach(struct ft_priv *p)
{
	/* A transfer libusb still holds points into libftdi's context: leaked with it. */
	bool stuck = usb_ring_release(&p->ring);

	if (p->f && !stuck) {
		if (p->opened)
			ftdi_usb_close(p->f);
		ftdi_free(p->f);
	}
	p->f = NULL;
	p->opened = false;
}

/* Opens ftdi:@arg: "" the only chip, SERIAL, SERIAL:A|B or :A|B. */
static int ft_open(struct spoor_source *src, const char *arg, struct spoor_diag *diag)
{
	char serial[SPOOR_PROBE_SERIAL_MAX + 1];
	struct ft_priv *p;
	char chan;
	int ret;

	ret = parse_arg(arg, serial, sizeof(serial), &chan, diag);
	if (ret < 0)
		return ret;
	p = calloc(1, sizeof(*p));
	if (!p)
		return SPOOR_E_NOMEM;
	src->priv = p;
	ret = attach(src, serial, chan, diag);
	if (ret < 0) {
		detach(p);
		free(p);
		src->priv = NULL;
	}
	return ret;
}

/* Cancels the transfers and closes the chip. */
static void ft_close(struct spoor_source *src)
{
	struct ft_priv *p = src->priv;

	if (!p)
		return;
	detach(p);
	free(p);
	src->priv = NULL;
}

/* What the chip is, as GET_INFO would say. */
static int ft_info(struct spoor_source *src, struct spoor_probe_info *info)
{
	struct ft_priv *p = src->priv;

	if (!p || !p->opened)
		return SPOOR_E_NO_DEVICE;
	fill_info(info, p->pid, src->serial);
	return 0;
}

/* Takes an 8-bit port sampled on one edge only (the FIFO's). */
static int ft_configure(struct spoor_source *src, const struct spoor_probe_config *cfg)
{
	(void)src;
	if (cfg->port_width != 8 || cfg->flags)
		return SPOOR_E_STALL;
	return 0;
}

/* Starts reading the FIFO: what it held before is dropped. */
static int ft_start(struct spoor_source *src)
{
	struct ft_priv *p = src->priv;

	if (!p || !p->opened || p->ring.gone)
		return SPOOR_E_NO_DEVICE;
	if (p->ring.streaming)
		return 0;
	if (ftdi_tcioflush(p->f) < 0)
		return SPOOR_E_USB;
	return usb_ring_start(&p->ring, p->f->usb_ctx, p->f->usb_dev, (unsigned char)p->f->out_ep);
}

/* Stops reading: what came before is handed out by the next reads. */
static int ft_stop(struct spoor_source *src)
{
	struct ft_priv *p = src->priv;

	if (!p || !p->opened)
		return SPOOR_E_NO_DEVICE;
	usb_ring_cancel(&p->ring);
	return 0;
}

/* Waits up to @timeout_ms for FIFO bytes and hands them to spoor_source_bytes(). */
static int ft_read(struct spoor_source *src, int timeout_ms)
{
	struct ft_priv *p = src->priv;

	if (!p || !p->opened)
		return SPOOR_E_NO_DEVICE;
	return usb_ring_read(&p->ring, src, timeout_ms);
}

/* Lets go of the unplugged chip and opens the one with the same serial, if back. */
static int ft_reopen(struct spoor_source *src, struct spoor_diag *diag)
{
	struct ft_priv *p = src->priv;
	char serial[sizeof(src->serial)];
	char chan;
	int ret;

	if (!p)
		return SPOOR_E_INVAL;
	snprintf(serial, sizeof(serial), "%s", src->serial);
	chan = p->chan;
	detach(p);
	ret = attach(src, serial, chan, diag);
	/* Just back, it may not be ours yet (udev setting its mode): try again. */
	if (ret == SPOOR_E_IO)
		ret = SPOOR_E_NO_DEVICE;
	if (ret < 0)
		detach(p);
	return ret;
}

const struct spoor_source_driver spoor_source_ftdi = {
	.name = "ftdi",
	.usage = "ftdi[:SERIAL][:A|B]",
	.help = "an FT2232H (channel B: async FIFO) or FT232H (sync FIFO), 8-bit port, raw",
	.framing = SPOOR_FRAMING_RAW,
	.live = true,
	.scan = ft_scan,
	.open = ft_open,
	.close = ft_close,
	.info = ft_info,
	.configure = ft_configure,
	.start = ft_start,
	.stop = ft_stop,
	.read = ft_read,
	.reopen = ft_reopen,
};
