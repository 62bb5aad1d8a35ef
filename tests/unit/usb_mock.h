/* SPDX-License-Identifier: MIT */
/*
 * A small USB device model under umockdev, for the unit tests of the usb
 * and ftdi trace sources (test_source_usb.c, test_source_ftdi.c): its
 * descriptors in sysfs, string descriptors, vendor requests answered by a
 * callback, one bulk IN endpoint streaming the bytes the test queues (FTDI
 * style with 2 status bytes in front of every packet, if asked),
 * cancellation and unplugging.  Only what the drivers need: the emulator of
 * the whole sim probe is tests/usb/'s.
 *
 * The test program runs under libumockdev-preload (mock_reexec()); the
 * ioctls of libusb on /dev/bus/usb/BBB/001 come to mock_ioctl() on
 * umockdev's worker thread, hence the lock.
 */
#ifndef SPOOR_TEST_USB_MOCK_H
#define SPOOR_TEST_USB_MOCK_H

#include <errno.h>
#include <sys/ioctl.h>
#include <linux/usbdevice_fs.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <umockdev.h>

struct mock_dev {
	/* Set by the test before mock_add(). */
	int bus;			/* the device is /dev/bus/usb/BBB/001 */
	const char *descriptors;	/* hex: device and configuration descriptors */
	const char *strings[4];		/* string descriptors 1..3 */
	/* A vendor request: returns the IN bytes written to @data, 0, or -EPIPE. */
	int (*vendor)(struct mock_dev *m, const uint8_t *setup, uint8_t *data, int len);
	uint8_t stream_ep;		/* the bulk IN endpoint that streams */
	unsigned int packet;		/* FTDI: packet size (2 status bytes each); 0: plain */
	bool busy;			/* claiming an interface: EBUSY */
	bool no_sg;			/* no scatter-gather: libusb makes 16 KiB URBs */
	/* The device's state, under lock. */
	pthread_mutex_t lock;
	uint8_t *stream;		/* bytes queued for the bulk IN endpoint */
	size_t len, pos, cap;
	GList *flying;			/* bulk URBs submitted (UMockdevIoctlData) */
	GList *ready;			/* URBs completed, to be reaped */
	bool unplugged;
	unsigned int submits, discards, claims, releases, requests;
	/* umockdev's. */
	UMockdevIoctlBase *handler;
	char node[64], sys[64];
};

/* The testbed of every device (mock_init()). */
static UMockdevTestbed *mock_tb;

/* Re-executes the program under libumockdev-preload unless it is. */
static inline void mock_reexec(char **argv)
{
	const char *pre = getenv("LD_PRELOAD"), *asan = getenv("ASAN_OPTIONS");
	char opts[512], preload[512];

	if (pre && strstr(pre, "libumockdev-preload"))
		return;
	snprintf(preload, sizeof(preload), "%s%slibumockdev-preload.so.0", pre ? pre : "",
		 pre && *pre ? ":" : "");
	/* ASan would refuse the preload coming before its runtime. */
	snprintf(opts, sizeof(opts), "%s%sverify_asan_link_order=0", asan ? asan : "",
		 asan && *asan ? ":" : "");
	setenv("ASAN_OPTIONS", opts, 1);
	setenv("LD_PRELOAD", preload, 1);
	execv("/proc/self/exe", argv);
	perror("execv /proc/self/exe");
	exit(1);
}

/* Queues @len bytes for the bulk IN endpoint. */
static inline void mock_queue(struct mock_dev *m, const void *buf, size_t len)
{
	pthread_mutex_lock(&m->lock);
	if (m->len + len > m->cap) {
		m->cap = (m->len + len) * 2;
		m->stream = realloc(m->stream, m->cap);
		if (!m->stream)
			abort();
	}
	memcpy(m->stream + m->len, buf, len);
	m->len += len;
	pthread_mutex_unlock(&m->lock);
}

/* Bytes queued and not yet sent. */
static inline size_t mock_pending(struct mock_dev *m)
{
	size_t n;

	pthread_mutex_lock(&m->lock);
	n = m->len - m->pos;
	pthread_mutex_unlock(&m->lock);
	return n;
}

/* The URB of @d (a resolved struct usbdevfs_urb). */
static inline struct usbdevfs_urb *mock_urb(UMockdevIoctlData *d)
{
	return (struct usbdevfs_urb *)d->data;
}

/* Fills @buf (@len bytes) from the stream; returns the bytes (0: nothing to send). */
static size_t mock_fill(struct mock_dev *m, uint8_t *buf, size_t len)
{
	size_t avail = m->len - m->pos, out = 0;

	if (!m->packet) {
		out = avail < len ? avail : len;
		if (out)
			memcpy(buf, m->stream + m->pos, out);
		m->pos += out;
		return out;
	}
	/* FTDI: 2 status bytes, then up to packet - 2 data bytes; a short packet ends it. */
	while (out + m->packet <= len) {
		size_t d = m->len - m->pos;

		if (d > m->packet - 2)
			d = m->packet - 2;
		buf[out] = 0x32;
		buf[out + 1] = 0x60;
		if (d)
			memcpy(buf + out + 2, m->stream + m->pos, d);
		m->pos += d;
		out += 2 + d;
		if (d < m->packet - 2)
			break;
	}
	return out;
}

/* Answers control URB @u (setup and data in @buf): sets its status and length. */
static void mock_control(struct mock_dev *m, struct usbdevfs_urb *u, uint8_t *buf)
{
	uint8_t rt = buf[0], req = buf[1];
	unsigned int value = buf[2] | buf[3] << 8, wlen = buf[6] | buf[7] << 8;
	uint8_t *data = buf + 8;
	int n = 0;

	if (wlen > (unsigned int)u->buffer_length - 8)
		wlen = (unsigned int)u->buffer_length - 8;
	m->requests++;
	if (rt == 0x80 && req == 0x06 && value >> 8 == 3) {
		unsigned int idx = value & 0xff;
		uint8_t d[256];

		if (idx == 0) {
			memcpy(d, "\x04\x03\x09\x04", 4);
			n = 4;
		} else if (idx < 4 && m->strings[idx]) {
			size_t l = strlen(m->strings[idx]);

			d[0] = (uint8_t)(2 + 2 * l);
			d[1] = 3;
			for (size_t i = 0; i < l; i++) {
				d[2 + 2 * i] = (uint8_t)m->strings[idx][i];
				d[3 + 2 * i] = 0;
			}
			n = d[0];
		} else {
			n = -EPIPE;
		}
		if (n > 0) {
			n = n < (int)wlen ? n : (int)wlen;
			memcpy(data, d, (size_t)n);
		}
	} else if ((rt & 0x60) == 0x40 && m->vendor) {
		n = m->vendor(m, buf, data, (int)wlen);
	} else {
		n = -EPIPE;
	}
	u->status = n < 0 ? n : 0;
	u->actual_length = n < 0 ? 0 : n;
}

/* Unplugs the device: URBs in flight end with -ESHUTDOWN, then ENODEV. */
static inline void mock_unplug(struct mock_dev *m)
{
	pthread_mutex_lock(&m->lock);
	m->unplugged = true;
	for (GList *l = m->flying; l; l = l->next) {
		mock_urb(l->data)->status = -ESHUTDOWN;
		mock_urb(l->data)->actual_length = 0;
	}
	m->ready = g_list_concat(m->ready, m->flying);
	m->flying = NULL;
	pthread_mutex_unlock(&m->lock);
}

/* The client address of @d against @addr, for g_list_find_custom(). */
static gint mock_cmp_addr(gconstpointer d, gconstpointer addr)
{
	return ((const UMockdevIoctlData *)d)->client_addr != (gulong)addr;
}

/* umockdev's handler of the usbfs ioctls on the device node. */
static gboolean mock_ioctl(UMockdevIoctlBase *h, UMockdevIoctlClient *c, gpointer user)
{
	struct mock_dev *m = user;
	UMockdevIoctlData *arg = umockdev_ioctl_client_get_arg(c);
	gulong req = umockdev_ioctl_client_get_request(c);
	long res = 0;
	int err = 0;

	(void)h;
	pthread_mutex_lock(&m->lock);
	switch (req) {
	case USBDEVFS_GET_CAPABILITIES: {
		UMockdevIoctlData *d = umockdev_ioctl_data_resolve(arg, 0, sizeof(guint32), NULL);

		*(guint32 *)d->data = (m->no_sg ? 0 : USBDEVFS_CAP_BULK_SCATTER_GATHER |
							   USBDEVFS_CAP_NO_PACKET_SIZE_LIM) |
				      USBDEVFS_CAP_REAP_AFTER_DISCONNECT | USBDEVFS_CAP_ZERO_PACKET;
		g_object_unref(d);
		break;
	}
	case USBDEVFS_CLAIMINTERFACE:
	case USBDEVFS_DISCONNECT_CLAIM:
		if (m->unplugged) {
			res = -1;
			err = ENODEV;
		} else if (m->busy) {
			res = -1;
			err = EBUSY;
		} else {
			m->claims++;
		}
		break;
	case USBDEVFS_RELEASEINTERFACE:
		m->releases++;
		break;
	case USBDEVFS_SETINTERFACE:
	case USBDEVFS_CLEAR_HALT:
	case USBDEVFS_RESET:
	case USBDEVFS_RESETEP:
		break;
	case USBDEVFS_GETDRIVER:
	case USBDEVFS_IOCTL:
		res = -1;
		err = ENODATA;
		break;
	case USBDEVFS_SUBMITURB: {
		UMockdevIoctlData *d, *b;
		struct usbdevfs_urb *u;

		if (m->unplugged) {
			res = -1;
			err = ENODEV;
			break;
		}
		d = umockdev_ioctl_data_resolve(arg, 0, sizeof(struct usbdevfs_urb), NULL);
		u = mock_urb(d);
		b = umockdev_ioctl_data_resolve(d, G_STRUCT_OFFSET(struct usbdevfs_urb, buffer),
						(gsize)u->buffer_length, NULL);
		/* Written at reap time through this very copy. */
		g_object_set_data_full(G_OBJECT(d), "mock-buf", b, g_object_unref);
		m->submits++;
		if (u->type == USBDEVFS_URB_TYPE_CONTROL) {
			mock_control(m, u, b->data);
			m->ready = g_list_append(m->ready, d);
		} else {
			m->flying = g_list_append(m->flying, d);
		}
		break;
	}
	case USBDEVFS_REAPURB:
	case USBDEVFS_REAPURBNDELAY: {
		UMockdevIoctlData *d = NULL, *p;

		if (m->ready) {
			d = m->ready->data;
			m->ready = g_list_delete_link(m->ready, m->ready);
		} else {
			for (GList *l = m->flying; l; l = l->next) {
				struct usbdevfs_urb *u = mock_urb(l->data);
				UMockdevIoctlData *b = g_object_get_data(l->data, "mock-buf");
				size_t n;

				if (u->endpoint != m->stream_ep)
					continue;
				n = mock_fill(m, b->data, (size_t)u->buffer_length);
				if (!n)
					break;
				u->actual_length = (int)n;
				u->status = 0;
				d = l->data;
				m->flying = g_list_delete_link(m->flying, l);
				break;
			}
		}
		if (!d) {
			res = -1;
			err = m->unplugged ? ENODEV : EAGAIN;
			break;
		}
		p = umockdev_ioctl_data_resolve(arg, 0, sizeof(gpointer), NULL);
		umockdev_ioctl_data_set_ptr(p, 0, d);
		g_object_unref(p);
		g_object_unref(d);
		break;
	}
	case USBDEVFS_DISCARDURB: {
		GList *l = g_list_find_custom(m->flying, *(void **)arg->data, mock_cmp_addr);

		if (!l) {
			res = -1;
			err = EINVAL;
			break;
		}
		m->discards++;
		mock_urb(l->data)->status = -ENOENT;
		mock_urb(l->data)->actual_length = 0;
		m->flying = g_list_remove_link(m->flying, l);
		m->ready = g_list_concat(m->ready, l);
		break;
	}
	default:
		res = -1;
		err = ENOTTY;
		break;
	}
	pthread_mutex_unlock(&m->lock);
	umockdev_ioctl_client_complete(c, res, err);
	return TRUE;
}

/* Makes the testbed (before libusb looks at /sys and /dev). */
static inline void mock_init(void)
{
	mock_tb = umockdev_testbed_new();
}

/* Removes the testbed and its directory. */
static inline void mock_fini(void)
{
	g_clear_object(&mock_tb);
}

/* Plugs the device in (again): a fresh state, the node handled by mock_ioctl(). */
static inline void mock_add(struct mock_dev *m)
{
	char *s;

	if (!m->handler) {
		pthread_mutex_init(&m->lock, NULL);
		m->handler = umockdev_ioctl_base_new();
		g_signal_connect(m->handler, "handle-ioctl", G_CALLBACK(mock_ioctl), m);
	}
	pthread_mutex_lock(&m->lock);
	m->unplugged = false;
	m->len = m->pos = 0;
	pthread_mutex_unlock(&m->lock);
	snprintf(m->node, sizeof(m->node), "/dev/bus/usb/%03d/001", m->bus);
	snprintf(m->sys, sizeof(m->sys), "/sys/devices/usb%d", m->bus);
	umockdev_testbed_attach_ioctl(mock_tb, m->node, m->handler, NULL);
	s = g_strdup_printf("P: /devices/usb%d\n"
			    "N: bus/usb/%03d/001\n"
			    "E: SUBSYSTEM=usb\n"
			    "E: DEVTYPE=usb_device\n"
			    "E: DEVNAME=/dev/bus/usb/%03d/001\n"
			    "E: BUSNUM=%03d\n"
			    "E: DEVNUM=001\n"
			    "A: busnum=%d\\n\n"
			    "A: devnum=1\\n\n"
			    "A: speed=480\\n\n"
			    "A: bConfigurationValue=1\\n\n"
			    "H: descriptors=%s\n",
			    m->bus, m->bus, m->bus, m->bus, m->bus, m->descriptors);
	umockdev_testbed_add_from_string(mock_tb, s, NULL);
	g_free(s);
}

/* Takes the device away (after mock_unplug()): it is no longer enumerated. */
static inline void mock_remove(struct mock_dev *m)
{
	umockdev_testbed_remove_device(mock_tb, m->sys);
	umockdev_testbed_detach_ioctl(mock_tb, m->node, NULL);
}

#endif
