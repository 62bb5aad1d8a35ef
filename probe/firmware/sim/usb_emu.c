// SPDX-License-Identifier: MIT
/*
 * usbdevfs emulation over umockdev (usb_emu.h).  The device node of the
 * emulated device is served by a UMockdevIoctlBase whose handle-ioctl
 * handler runs on umockdev's worker thread; the client's memory is read
 * and written only through umockdev_ioctl_data_resolve() and set_ptr().
 *
 * Each plug uses a new device address (/dev/bus/usb/001/NNN), so a node
 * opened before an unplug or a re-enumeration keeps answering ENODEV while
 * the new one works.
 */
#include <errno.h>
#include <linux/usbdevice_fs.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <umockdev.h>

#include "spoor/error.h"
#include "usb_emu.h"

extern char **environ;

#define USB_EMU_BUS 1
#define USB_EMU_DEVPATH "/devices/pci0000:00/0000:00:14.0/usb1/1-1"
#define USB_EMU_SYSPATH "/sys" USB_EMU_DEVPATH
#define USB_EMU_PRELOAD "libumockdev-preload.so.0"
#define USB_EMU_SETUP 8

/* One URB submitted by a client and not reaped yet. */
struct emu_urb {
	struct emu_urb *next;
	UMockdevIoctlClient *client;	/* whose it is (a reference; purged when it goes) */
	UMockdevIoctlData *urb;		/* the client's struct usbdevfs_urb (a reference) */
	UMockdevIoctlData *buf;		/* its buffer (a reference; NULL if empty) */
	uint8_t type, ep;
	unsigned int flags;		/* USBDEVFS_URB_* */
	size_t len;			/* buffer length */
	bool done;			/* completed: status and actual wait for a reap */
	int status, actual;
};

struct usb_emu {
	const struct usb_emu_ops *ops;
	void *ctx;
	pthread_mutex_t lock;
	UMockdevTestbed *tb;
	UMockdevIoctlBase *handler;
	struct usb_emu_device dev;	/* the device plugged, or last plugged */
	bool plugged;
	unsigned devnum;		/* its address (0: never plugged) */
	unsigned attached;		/* nodes 2..attached have the handler */
	struct emu_urb *urbs, **tail;	/* in submission order */
	uint64_t bulk_bytes;
	uint64_t unplug_after;
	unsigned replug_ms;
	bool unplugged_once, replug_due;
	uint64_t replug_at;		/* ms (now_ms()) */
	const struct usb_emu_device *reenum;	/* after a reset: enumerate as this */
	UMockdevIoctlClient *reenum_client;	/* ... when this client goes (a reference) */
	uint64_t reenum_at;		/* ... or at this time */
	uint32_t caps;			/* what GET_CAPABILITIES answers */
};

/* Milliseconds on the monotonic clock. */
static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Reads /proc/self/cmdline into a NULL-terminated argv (one allocation), or NULL. */
static char **self_argv(void)
{
	size_t size = 0, cap = 4096, n, argc = 0, i;
	char *text = NULL, *p, **argv;
	FILE *f = fopen("/proc/self/cmdline", "rb");

	if (!f)
		return NULL;
	text = malloc(cap);
	while (text && (n = fread(text + size, 1, cap - size, f)) > 0) {
		size += n;
		if (size == cap) {
			char *bigger = realloc(text, cap * 2);

			if (!bigger) {
				free(text);
				text = NULL;
				break;
			}
			text = bigger;
			cap *= 2;
		}
	}
	fclose(f);
	if (!text || !size)
		goto fail;
	for (i = 0; i < size; i++)
		argc += text[i] == '\0';
	argv = malloc((argc + 1) * sizeof(*argv) + size);
	if (!argv)
		goto fail;
	p = (char *)(argv + argc + 1);
	memcpy(p, text, size);
	free(text);
	for (i = 0; i < argc; i++) {
		argv[i] = p;
		p += strlen(p) + 1;
	}
	argv[argc] = NULL;
	return argv;
fail:
	free(text);
	return NULL;
}

/* Sets @name to @value, or to "@old@sep@value" if it is set. */
static int env_append(const char *name, const char *value, const char *sep, bool front)
{
	const char *old = getenv(name);
	char *both;
	int ret;

	if (!old || !*old)
		return setenv(name, value, 1);
	both = malloc(strlen(old) + strlen(value) + strlen(sep) + 1);
	if (!both)
		return -1;
	if (front)
		sprintf(both, "%s%s%s", value, sep, old);
	else
		sprintf(both, "%s%s%s", old, sep, value);
	ret = setenv(name, both, 1);
	free(both);
	return ret;
}

/* Re-executes this program under umockdev's preload unless it runs under it already. */
int usb_emu_preload(void)
{
	const char *pre = getenv("LD_PRELOAD");
	char **argv;

	if (pre && strstr(pre, "libumockdev-preload")) {
		unsetenv("SPOOR_USB_EMU_REEXEC");
		return 0;
	}
	if (getenv("SPOOR_USB_EMU_REEXEC")) {
		fprintf(stderr, "usb emulation: %s did not stay in LD_PRELOAD\n", USB_EMU_PRELOAD);
		return SPOOR_E_IO;
	}
	argv = self_argv();
	if (!argv) {
		fprintf(stderr, "usb emulation: cannot read /proc/self/cmdline\n");
		return SPOOR_E_IO;
	}
	/* The preload first; an ASan runtime then is not, which ASan must accept. */
	if (env_append("LD_PRELOAD", USB_EMU_PRELOAD, ":", true) ||
	    env_append("ASAN_OPTIONS", "verify_asan_link_order=0", ":", false) ||
	    setenv("SPOOR_USB_EMU_REEXEC", "1", 1)) {
		free(argv);
		return SPOOR_E_NOMEM;
	}
	fflush(NULL);
	execv("/proc/self/exe", argv);
	fprintf(stderr, "usb emulation: cannot re-execute %s under %s: %s\n", argv[0],
		USB_EMU_PRELOAD, strerror(errno));
	free(argv);
	return SPOOR_E_IO;
}

/* The address a client's node has (/dev/bus/usb/001/NNN), or 0. */
static unsigned client_devnum(UMockdevIoctlClient *client)
{
	const char *node = umockdev_ioctl_client_get_devnode(client);
	const char *slash = node ? strrchr(node, '/') : NULL;

	return slash ? (unsigned)strtoul(slash + 1, NULL, 10) : 0;
}

/* Drops one URB (unlinked already). */
static void urb_free(struct emu_urb *u)
{
	if (u->buf)
		g_object_unref(u->buf);
	g_object_unref(u->urb);
	g_object_unref(u->client);
	free(u);
}

/* Unlinks *@pp from the list (fixing the tail) and returns it. */
static struct emu_urb *urb_unlink(struct usb_emu *e, struct emu_urb **pp)
{
	struct emu_urb *u = *pp;

	*pp = u->next;
	if (e->tail == &u->next)
		e->tail = pp;
	u->next = NULL;
	return u;
}

/* Completes @u with @status and @actual bytes (it waits for a reap). */
static void urb_done(struct emu_urb *u, int status, int actual)
{
	u->done = true;
	u->status = status;
	u->actual = actual;
}

/* Appends @dev's string descriptor @index (0: the language IDs) to @out; returns bytes or -1. */
static int string_desc(const struct usb_emu_device *dev, unsigned index, uint8_t *out,
		       size_t max)
{
	uint8_t d[2 + 2 * 126];
	size_t n = 2, i;
	const char *s;

	if (index == 0) {
		d[n++] = 0x09;	/* English (US) */
		d[n++] = 0x04;
	} else {
		if (index >= USB_EMU_STRINGS || !dev->strings[index])
			return -1;
		s = dev->strings[index];
		for (i = 0; s[i] && i < 126; i++) {
			d[n++] = (uint8_t)s[i];
			d[n++] = 0;
		}
	}
	d[0] = (uint8_t)n;
	d[1] = 0x03;
	n = n < max ? n : max;
	memcpy(out, d, n);
	return (int)n;
}

/* Finds descriptor @type in the configuration (after interface @intf, or any if -1); NULL if none. */
static const uint8_t *find_desc(const struct usb_emu_device *dev, uint8_t type, int intf)
{
	size_t off = 18;
	int cur = -1;

	while (off + 2 <= dev->desc_len && dev->desc[off] >= 2) {
		const uint8_t *d = dev->desc + off;

		if (d[1] == 0x04)
			cur = d[2];
		else if (d[1] == type && (intf < 0 || cur == intf))
			return d;
		off += d[0];
	}
	return NULL;
}

/* Does the configuration have interface @n (@ep < 0) or endpoint @ep (then @n is ignored)? */
static bool has_in_config(const struct usb_emu_device *dev, unsigned n, int ep)
{
	size_t off = 18;

	while (off + 2 <= dev->desc_len && dev->desc[off] >= 2) {
		const uint8_t *d = dev->desc + off;

		if (ep < 0 && d[1] == 0x04 && d[0] >= 3 && d[2] == n)
			return true;
		if (ep >= 0 && d[1] == 0x05 && d[0] >= 3 && d[2] == ep)
			return true;
		off += d[0];
	}
	return false;
}

/* A standard request; returns the IN bytes, 0, -1 to STALL, or -2 if not a standard one. */
static int standard_request(struct usb_emu *e, const struct spoor_probe_setup *s, uint8_t *data)
{
	const struct usb_emu_device *dev = &e->dev;
	uint8_t type = s->value >> 8, index = s->value & 0xff;
	const uint8_t *d;
	size_t n;

	if ((s->request_type & 0x60) != 0)
		return -2;
	switch (s->request) {
	case 0x06:	/* GET_DESCRIPTOR */
		if (!(s->request_type & 0x80))
			return -1;
		if ((s->request_type & 0x1f) == 1) {
			/* Interface recipient: a class descriptor (DFU functional). */
			d = find_desc(dev, type, s->index);
			if (!d)
				return -1;
			n = d[0];
		} else if (type == 0x01) {
			d = dev->desc;
			n = 18;
		} else if (type == 0x02 && index == 0) {
			d = dev->desc + 18;
			n = dev->desc_len - 18;
		} else if (type == 0x03) {
			return string_desc(dev, index, data, s->length);
		} else {
			return -1;
		}
		n = n < s->length ? n : s->length;
		memcpy(data, d, n);
		return (int)n;
	case 0x08:	/* GET_CONFIGURATION */
		if (s->length < 1)
			return -1;
		data[0] = 1;
		return 1;
	case 0x0a:	/* GET_INTERFACE */
		if (s->length < 1)
			return -1;
		data[0] = 0;
		return 1;
	case 0x00:	/* GET_STATUS */
		if (s->length < 2)
			return -1;
		data[0] = data[1] = 0;
		return 2;
	case 0x01:	/* CLEAR_FEATURE */
	case 0x03:	/* SET_FEATURE */
	case 0x09:	/* SET_CONFIGURATION */
	case 0x0b:	/* SET_INTERFACE */
		return 0;
	default:
		return -1;
	}
}

/* Runs a control URB's request now: status and actual length into @u. */
static void control_urb(struct usb_emu *e, struct emu_urb *u, int buffer_length)
{
	struct spoor_probe_setup s;
	uint8_t *b = u->buf ? u->buf->data : NULL;
	int ret, room;

	if (!b || buffer_length < USB_EMU_SETUP) {
		urb_done(u, -EINVAL, 0);
		return;
	}
	s.request_type = b[0];
	s.request = b[1];
	s.value = (uint16_t)(b[2] | b[3] << 8);
	s.index = (uint16_t)(b[4] | b[5] << 8);
	s.length = (uint16_t)(b[6] | b[7] << 8);
	room = buffer_length - USB_EMU_SETUP;
	if (s.length > room) {
		urb_done(u, -EINVAL, 0);
		return;
	}
	ret = standard_request(e, &s, b + USB_EMU_SETUP);
	if (ret == -2)
		ret = e->ops->control ? e->ops->control(e->ctx, &s, b + USB_EMU_SETUP) : -1;
	if (ret < 0)
		urb_done(u, -EPIPE, 0);
	else if (s.request_type & 0x80)
		urb_done(u, 0, ret < s.length ? ret : s.length);
	else
		urb_done(u, 0, s.length);
}

/* Completes in-flight URBs of the current device with -ESHUTDOWN and removes it. */
static void unplug_locked(struct usb_emu *e)
{
	struct emu_urb *u;

	if (!e->plugged)
		return;
	for (u = e->urbs; u; u = u->next)
		if (!u->done)
			urb_done(u, -ESHUTDOWN, 0);
	e->plugged = false;
	umockdev_testbed_uevent(e->tb, USB_EMU_SYSPATH, "remove");
	umockdev_testbed_remove_device(e->tb, USB_EMU_SYSPATH);
}

/* Appends @n bytes at @b to @s as hex digits. */
static void record_hex(GString *s, const uint8_t *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		g_string_append_printf(s, "%02x", b[i]);
}

/* Appends sysfs text attribute @name for string descriptor @index, if there is one. */
static void record_string(GString *s, const struct usb_emu_device *dev, const char *name,
			  unsigned index)
{
	const char *c;

	if (!index || index >= USB_EMU_STRINGS || !dev->strings[index])
		return;
	g_string_append_printf(s, "A: %s=", name);
	for (c = dev->strings[index]; *c; c++)
		g_string_append_c(s, *c == '\\' || *c == '\n' ? '_' : *c);
	g_string_append(s, "\\n\n");
}

/* Plugs e->dev in on the next address. */
static int plug_locked(struct usb_emu *e)
{
	const uint8_t *d = e->dev.desc;
	char node[64];
	GError *err = NULL;
	GString *s;
	gboolean ok;

	unplug_locked(e);
	/* Addresses 2..127, then round again (the nodes keep their handler). */
	e->devnum = e->devnum >= 2 && e->devnum < 127 ? e->devnum + 1 : 2;
	snprintf(node, sizeof(node), "/dev/bus/usb/%03u/%03u", USB_EMU_BUS, e->devnum);
	if (e->devnum > e->attached &&
	    !umockdev_testbed_attach_ioctl(e->tb, node, e->handler, &err)) {
		fprintf(stderr, "usb emulation: cannot attach to %s: %s\n", node,
			err ? err->message : "?");
		g_clear_error(&err);
		return SPOOR_E_IO;
	}
	if (e->devnum > e->attached)
		e->attached = e->devnum;
	s = g_string_new(NULL);
	g_string_append_printf(s, "P: %s\n", USB_EMU_DEVPATH);
	g_string_append_printf(s, "N: bus/usb/%03u/%03u\n", USB_EMU_BUS, e->devnum);
	g_string_append_printf(s, "E: SUBSYSTEM=usb\nE: DEVTYPE=usb_device\nE: DRIVER=usb\n");
	g_string_append_printf(s, "E: DEVNAME=%s\nE: BUSNUM=%03u\nE: DEVNUM=%03u\n", node,
			       USB_EMU_BUS, e->devnum);
	g_string_append_printf(s, "E: PRODUCT=%x/%x/%x\n", d[8] | d[9] << 8, d[10] | d[11] << 8,
			       d[12] | d[13] << 8);
	g_string_append_printf(s, "A: busnum=%u\\n\nA: devnum=%u\\n\n", USB_EMU_BUS, e->devnum);
	g_string_append_printf(s, "A: speed=480\\n\nA: bConfigurationValue=1\\n\n");
	g_string_append_printf(s, "A: bNumConfigurations=1\\n\nA: bMaxPacketSize0=%u\\n\n", d[7]);
	g_string_append_printf(s, "A: idVendor=%04x\\n\nA: idProduct=%04x\\n\n",
			       d[8] | d[9] << 8, d[10] | d[11] << 8);
	g_string_append_printf(s, "A: bcdDevice=%04x\\n\nA: bDeviceClass=%02x\\n\n",
			       d[12] | d[13] << 8, d[4]);
	g_string_append_printf(s, "A: version= 2.00\\n\n");
	record_string(s, &e->dev, "manufacturer", d[14]);
	record_string(s, &e->dev, "product", d[15]);
	record_string(s, &e->dev, "serial", d[16]);
	g_string_append(s, "H: descriptors=");
	record_hex(s, d, e->dev.desc_len);
	g_string_append(s, "\n");
	ok = umockdev_testbed_add_from_string(e->tb, s->str, &err);
	g_string_free(s, TRUE);
	if (!ok) {
		fprintf(stderr, "usb emulation: cannot add the device: %s\n",
			err ? err->message : "?");
		g_clear_error(&err);
		return SPOOR_E_IO;
	}
	/* Under the preload umockdev sent "add" itself. */
	if (!umockdev_in_mock_environment())
		umockdev_testbed_uevent(e->tb, USB_EMU_SYSPATH, "add");
	e->plugged = true;
	return 0;
}

/* Tries to complete the first pending bulk IN URB of each endpoint of @client. */
static void fill_bulk_in(struct usb_emu *e, UMockdevIoctlClient *client, unsigned devnum)
{
	uint32_t seen = 0;
	struct emu_urb *u;

	if (!e->plugged || devnum != e->devnum || !e->ops->bulk_in)
		return;
	for (u = e->urbs; u; u = u->next) {
		uint32_t bit = 1u << (u->ep & 0x0f);
		size_t max, n;

		if (u->client != client || u->done || !(u->ep & 0x80) ||
		    u->type == USBDEVFS_URB_TYPE_CONTROL || (seen & bit))
			continue;
		seen |= bit;
		max = u->buf ? (size_t)u->buf->data_len : 0;
		if (e->unplug_after && !e->unplugged_once &&
		    e->unplug_after - e->bulk_bytes < max)
			max = (size_t)(e->unplug_after - e->bulk_bytes);
		n = max ? e->ops->bulk_in(e->ctx, u->ep, u->buf->data, max) : 0;
		if (!n)
			continue;
		/* A short packet where the host asked for none: -EREMOTEIO (as usbfs). */
		urb_done(u, n < u->len && (u->flags & USBDEVFS_URB_SHORT_NOT_OK) ? -EREMOTEIO : 0,
			 (int)n);
		e->bulk_bytes += n;
		if (e->unplug_after && !e->unplugged_once && e->bulk_bytes >= e->unplug_after) {
			e->unplugged_once = true;
			unplug_locked(e);
			if (e->replug_ms) {
				e->replug_at = now_ms() + e->replug_ms;
				e->replug_due = true;
			}
			return;
		}
	}
}

/* REAPURB(NDELAY): hands the client its oldest completed URB. */
static void reap(struct usb_emu *e, UMockdevIoctlClient *client, UMockdevIoctlData *arg,
		 unsigned devnum)
{
	struct emu_urb **pp, *u;
	struct usbdevfs_urb *urb;
	UMockdevIoctlData *ptr;

	fill_bulk_in(e, client, devnum);
	for (pp = &e->urbs; *pp; pp = &(*pp)->next)
		if ((*pp)->client == client && (*pp)->done)
			break;
	if (!*pp) {
		bool alive = e->plugged && devnum == e->devnum;

		umockdev_ioctl_client_complete(client, -1, alive ? EAGAIN : ENODEV);
		return;
	}
	ptr = umockdev_ioctl_data_resolve(arg, 0, sizeof(void *), NULL);
	if (!ptr) {
		umockdev_ioctl_client_complete(client, -1, EFAULT);
		return;
	}
	u = urb_unlink(e, pp);
	urb = (struct usbdevfs_urb *)u->urb->data;
	urb->status = u->status;
	urb->actual_length = u->actual;
	umockdev_ioctl_data_set_ptr(ptr, 0, u->urb);
	umockdev_ioctl_client_complete(client, 0, 0);
	g_object_unref(ptr);
	urb_free(u);
}

/* SUBMITURB: queues the client's URB (control and OUT ones complete at once). */
static void submit(struct usb_emu *e, UMockdevIoctlClient *client, UMockdevIoctlData *arg)
{
	UMockdevIoctlData *d = umockdev_ioctl_data_resolve(arg, 0, sizeof(struct usbdevfs_urb), NULL);
	struct usbdevfs_urb *urb;
	struct emu_urb *u;

	if (!d) {
		umockdev_ioctl_client_complete(client, -1, EFAULT);
		return;
	}
	urb = (struct usbdevfs_urb *)d->data;
	if (urb->buffer_length < 0 || urb->type == USBDEVFS_URB_TYPE_ISO ||
	    urb->type > USBDEVFS_URB_TYPE_BULK) {
		umockdev_ioctl_client_complete(client, -1, EINVAL);
		goto out;
	}
	if (urb->type != USBDEVFS_URB_TYPE_CONTROL && !has_in_config(&e->dev, 0, urb->endpoint)) {
		umockdev_ioctl_client_complete(client, -1, ENOENT);
		goto out;
	}
	u = calloc(1, sizeof(*u));
	if (!u) {
		umockdev_ioctl_client_complete(client, -1, ENOMEM);
		goto out;
	}
	u->client = g_object_ref(client);
	u->urb = g_object_ref(d);
	u->type = urb->type;
	u->ep = urb->endpoint;
	u->flags = urb->flags;
	u->len = (size_t)urb->buffer_length;
	if (urb->buffer_length > 0) {
		u->buf = umockdev_ioctl_data_resolve(d, G_STRUCT_OFFSET(struct usbdevfs_urb, buffer),
						     (gsize)urb->buffer_length, NULL);
		if (!u->buf) {
			urb_free(u);
			umockdev_ioctl_client_complete(client, -1, EFAULT);
			goto out;
		}
	}
	if (u->type == USBDEVFS_URB_TYPE_CONTROL) {
		control_urb(e, u, urb->buffer_length);
	} else if (!(u->ep & 0x80)) {
		if (e->ops->bulk_out && u->buf)
			e->ops->bulk_out(e->ctx, u->ep, u->buf->data, (size_t)urb->buffer_length);
		urb_done(u, 0, urb->buffer_length);
	}
	*e->tail = u;
	e->tail = &u->next;
	umockdev_ioctl_client_complete(client, 0, 0);
out:
	g_object_unref(d);
}

/* DISCARDURB: the pending URB at the client's address completes with -ECONNRESET. */
static void discard(struct usb_emu *e, UMockdevIoctlClient *client, UMockdevIoctlData *arg)
{
	gulong addr = *(gulong *)arg->data;
	struct emu_urb *u;

	for (u = e->urbs; u; u = u->next) {
		if (u->client == client && !u->done && u->urb->client_addr == addr) {
			urb_done(u, -ECONNRESET, 0);
			umockdev_ioctl_client_complete(client, 0, 0);
			return;
		}
	}
	umockdev_ioctl_client_complete(client, -1, EINVAL);
}

/* Answers an ioctl that takes a pointer to a value it ignores: 0, or EFAULT if unreadable. */
static void ack_ptr(UMockdevIoctlClient *client, UMockdevIoctlData *arg, size_t size)
{
	UMockdevIoctlData *d = umockdev_ioctl_data_resolve(arg, 0, size, NULL);

	umockdev_ioctl_client_complete(client, d ? 0 : -1, d ? 0 : EFAULT);
	if (d)
		g_object_unref(d);
}

/*
 * CLAIM/RELEASEINTERFACE, SETINTERFACE, DISCONNECT_CLAIM (their argument
 * starts with the interface number): ENOENT for an interface the device
 * has not, EINVAL for an alternate setting (there are none).
 */
static void interface_ioctl(struct usb_emu *e, UMockdevIoctlClient *client,
			    UMockdevIoctlData *arg, size_t size, bool alt)
{
	UMockdevIoctlData *d = umockdev_ioctl_data_resolve(arg, 0, size, NULL);
	unsigned int n, setting = 0;
	int err = 0;

	if (!d) {
		umockdev_ioctl_client_complete(client, -1, EFAULT);
		return;
	}
	memcpy(&n, d->data, sizeof(n));
	if (alt)
		memcpy(&setting, d->data + sizeof(n), sizeof(setting));
	if (!has_in_config(&e->dev, n, -1))
		err = ENOENT;
	else if (setting)
		err = EINVAL;
	umockdev_ioctl_client_complete(client, err ? -1 : 0, err);
	g_object_unref(d);
}

/* Re-enumerates as the device a reset asked for. */
static void reenumerate_locked(struct usb_emu *e)
{
	e->dev = *e->reenum;
	e->reenum = NULL;
	g_clear_object(&e->reenum_client);
	plug_locked(e);
}

/*
 * USBDEVFS_RESET: the front may re-enumerate as another device.  The reset
 * succeeds (libusb then claims the interfaces again, and dfu-util -R wants
 * it to); the disconnect follows when the host closes the node, another
 * one comes, or 100 ms later.
 */
static void reset(struct usb_emu *e, UMockdevIoctlClient *client)
{
	const struct usb_emu_device *next = e->ops->reset ? e->ops->reset(e->ctx) : NULL;

	if (next) {
		if (e->reenum)
			reenumerate_locked(e);
		e->reenum = next;
		e->reenum_client = g_object_ref(client);
		e->reenum_at = now_ms() + 100;
	}
	umockdev_ioctl_client_complete(client, 0, 0);
}

/* umockdev's handle-ioctl signal: every ioctl on the emulated device nodes. */
static gboolean handle_ioctl(UMockdevIoctlBase *handler, UMockdevIoctlClient *client,
			     gpointer data)
{
	struct usb_emu *e = data;
	unsigned long request = umockdev_ioctl_client_get_request(client);
	UMockdevIoctlData *arg = umockdev_ioctl_client_get_arg(client);
	unsigned devnum = client_devnum(client);
	bool alive;

	(void)handler;
	pthread_mutex_lock(&e->lock);
	/* Another host after a reset: the device re-enumerated by now. */
	if (e->reenum && client != e->reenum_client)
		reenumerate_locked(e);
	alive = e->plugged && devnum == e->devnum;
	switch (request) {
	case USBDEVFS_REAPURB:
	case USBDEVFS_REAPURBNDELAY:
		reap(e, client, arg, devnum);
		goto out;
	case USBDEVFS_DISCARDURB:
		discard(e, client, arg);
		goto out;
	default:
		break;
	}
	if (!alive) {
		umockdev_ioctl_client_complete(client, -1, ENODEV);
		goto out;
	}
	switch (request) {
	case USBDEVFS_GET_CAPABILITIES: {
		UMockdevIoctlData *d = umockdev_ioctl_data_resolve(arg, 0, sizeof(uint32_t), NULL);

		if (d) {
			memcpy(d->data, &e->caps, sizeof(e->caps));
			g_object_unref(d);
		}
		umockdev_ioctl_client_complete(client, d ? 0 : -1, d ? 0 : EFAULT);
		break;
	}
	case USBDEVFS_SUBMITURB:
		submit(e, client, arg);
		break;
	case USBDEVFS_CLAIMINTERFACE:
	case USBDEVFS_RELEASEINTERFACE:
		interface_ioctl(e, client, arg, sizeof(unsigned int), false);
		break;
	case USBDEVFS_SETINTERFACE:
		interface_ioctl(e, client, arg, sizeof(struct usbdevfs_setinterface), true);
		break;
	case USBDEVFS_DISCONNECT_CLAIM:
		interface_ioctl(e, client, arg, sizeof(struct usbdevfs_disconnect_claim), false);
		break;
	case USBDEVFS_SETCONFIGURATION:
	case USBDEVFS_CLEAR_HALT:
	case USBDEVFS_RESETEP:
		ack_ptr(client, arg, sizeof(unsigned int));
		break;
	case USBDEVFS_GETDRIVER:
	case USBDEVFS_IOCTL:
		/* No kernel driver is bound to any interface. */
		umockdev_ioctl_client_complete(client, -1, ENODATA);
		break;
	case USBDEVFS_GET_SPEED:
		umockdev_ioctl_client_complete(client, 3, 0);	/* USB_SPEED_HIGH */
		break;
	case USBDEVFS_RESET:
		reset(e, client);
		break;
	default:
		umockdev_ioctl_client_complete(client, -1, ENOTTY);
		break;
	}
out:
	pthread_mutex_unlock(&e->lock);
	return TRUE;
}

/* Drops the URBs of clients that closed their node (umockdev 0.17 has no signal for it). */
static void purge_gone_locked(struct usb_emu *e)
{
	struct emu_urb **pp = &e->urbs;

	while (*pp) {
		if (!umockdev_ioctl_client_get_connected((*pp)->client))
			urb_free(urb_unlink(e, pp));
		else
			pp = &(*pp)->next;
	}
}

/* Creates the testbed and the ioctl handler. */
int usb_emu_new(const struct usb_emu_ops *ops, void *ctx, struct usb_emu **out)
{
	struct usb_emu *e = calloc(1, sizeof(*e));
	const char *nosg = getenv("SPOOR_USB_EMU_NO_SG");

	if (!e)
		return SPOOR_E_NOMEM;
	e->ops = ops;
	e->ctx = ctx;
	e->tail = &e->urbs;
	pthread_mutex_init(&e->lock, NULL);
	/* SPOOR_USB_EMU_NO_SG=1: libusb then splits bulk transfers into 16 KiB URBs. */
	e->caps = USBDEVFS_CAP_BULK_CONTINUATION | USBDEVFS_CAP_NO_PACKET_SIZE_LIM |
		  USBDEVFS_CAP_REAP_AFTER_DISCONNECT | USBDEVFS_CAP_ZERO_PACKET;
	if (!nosg || strcmp(nosg, "1"))
		e->caps |= USBDEVFS_CAP_BULK_SCATTER_GATHER;
	else
		e->caps &= ~(uint32_t)USBDEVFS_CAP_NO_PACKET_SIZE_LIM;
	e->tb = umockdev_testbed_new();
	e->handler = umockdev_ioctl_base_new();
	if (!e->tb || !e->handler) {
		usb_emu_free(e);
		return SPOOR_E_IO;
	}
	g_signal_connect(e->handler, "handle-ioctl", G_CALLBACK(handle_ioctl), e);
	*out = e;
	return 0;
}

/* Removes the testbed, its directory and every URB. */
void usb_emu_free(struct usb_emu *e)
{
	if (!e)
		return;
	if (e->handler)
		g_signal_handlers_disconnect_by_data(e->handler, e);
	while (e->urbs)
		urb_free(urb_unlink(e, &e->urbs));
	g_clear_object(&e->reenum_client);
	if (e->tb)
		g_object_unref(e->tb);
	if (e->handler)
		g_object_unref(e->handler);
	pthread_mutex_destroy(&e->lock);
	free(e);
}

/* Sets the unplug fault. */
void usb_emu_set_unplug(struct usb_emu *e, uint64_t after, unsigned replug_ms)
{
	pthread_mutex_lock(&e->lock);
	e->unplug_after = after;
	e->replug_ms = replug_ms;
	pthread_mutex_unlock(&e->lock);
}

/* Plugs @dev in. */
int usb_emu_plug(struct usb_emu *e, const struct usb_emu_device *dev)
{
	int ret;

	pthread_mutex_lock(&e->lock);
	e->dev = *dev;
	ret = plug_locked(e);
	pthread_mutex_unlock(&e->lock);
	return ret;
}

/* Unplugs the device. */
void usb_emu_unplug(struct usb_emu *e)
{
	pthread_mutex_lock(&e->lock);
	unplug_locked(e);
	pthread_mutex_unlock(&e->lock);
}

/* Bulk IN bytes delivered. */
uint64_t usb_emu_bulk_bytes(struct usb_emu *e)
{
	uint64_t n;

	pthread_mutex_lock(&e->lock);
	n = e->bulk_bytes;
	pthread_mutex_unlock(&e->lock);
	return n;
}

/*
 * Plugs the device back in if a replug is due, re-enumerates if a reset's
 * is (its host closed the node), drops the URBs of closed nodes.
 */
static void replug_if_due(struct usb_emu *e)
{
	uint64_t now = now_ms();

	pthread_mutex_lock(&e->lock);
	if (e->replug_due && now >= e->replug_at) {
		const struct usb_emu_device *dev = e->ops->replug ? e->ops->replug(e->ctx) : NULL;

		e->replug_due = false;
		if (dev)
			e->dev = *dev;
		plug_locked(e);
	}
	if (e->reenum && (now >= e->reenum_at ||
			  !umockdev_ioctl_client_get_connected(e->reenum_client)))
		reenumerate_locked(e);
	purge_gone_locked(e);
	pthread_mutex_unlock(&e->lock);
}

/* Runs COMMAND in the testbed and waits for it. */
int usb_emu_run(struct usb_emu *e, char **argv)
{
	struct timespec tick = { 0, 2 * 1000 * 1000 };
	pid_t pid;
	int ret, status;

	if (!argv || !argv[0])
		return SPOOR_E_INVAL;
	fflush(NULL);
	ret = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
	if (ret) {
		fprintf(stderr, "usb emulation: cannot run %s: %s\n", argv[0], strerror(ret));
		return SPOOR_E_IO;
	}
	for (;;) {
		ret = waitpid(pid, &status, WNOHANG);
		if (ret == pid)
			break;
		if (ret < 0 && errno != EINTR) {
			fprintf(stderr, "usb emulation: waitpid: %s\n", strerror(errno));
			return SPOOR_E_IO;
		}
		replug_if_due(e);
		nanosleep(&tick, NULL);
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* Appends descriptor bytes. */
int usb_emu_append(struct usb_emu_device *dev, const uint8_t *b, size_t len)
{
	if (len > sizeof(dev->desc) - dev->desc_len)
		return SPOOR_E_NOSPACE;
	memcpy(dev->desc + dev->desc_len, b, len);
	dev->desc_len += len;
	return 0;
}

/* Sets the configuration descriptor's wTotalLength. */
void usb_emu_finish(struct usb_emu_device *dev)
{
	size_t total = dev->desc_len - 18;

	dev->desc[18 + 2] = (uint8_t)total;
	dev->desc[18 + 3] = (uint8_t)(total >> 8);
}
