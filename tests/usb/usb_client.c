// SPDX-License-Identifier: MIT
/*
 * A test client of the emulated spoor probe (spoor-probe-sim --usb), with
 * the real libusb: it runs as the COMMAND under the testbed.  Also makes
 * the files the tests feed in (trace bytes, firmware images).
 *
 *   usb_client gen FILE SIZE                 deterministic pseudo-random bytes
 *   usb_client mkimage FILE VERSION SIZE [corrupt]
 *                                            a firmware image for the sim port
 *   usb_client stream FILE                   GET_INFO, SET_CONFIG, START, then the
 *                                            bulk stream (8 async transfers) must
 *                                            decode to FILE's bytes exactly
 *   usb_client unplug FILE                   the same until the probe is unplugged:
 *                                            in-flight transfers end NO_DEVICE, then
 *                                            hotplug brings it back and it streams
 *                                            FILE again
 *   usb_client version VERSION               GET_INFO's firmware version is VERSION
 *                                            (a device in DFU mode is reset first)
 *
 * Exit status 0 if all went as expected, 1 otherwise (with a message).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libusb.h>

#include "spoor/error.h"
#include "spoor/probe.h"

#define NXFER 8
#define XFER_SIZE (256u << 10)
#define DEADLINE_MS 30000
#define CTRL_TIMEOUT 2000

/* What the streaming transfers share. */
struct stream {
	libusb_context *ctx;
	struct libusb_transfer *xfer[NXFER];
	const uint8_t *want;		/* the input file */
	size_t want_len;
	uint64_t got;			/* trace bytes checked so far */
	uint64_t usb_bytes;		/* bulk bytes received */
	struct spoor_probe_stream *dec;
	int active;			/* transfers submitted */
	bool done, failed, no_device;
};

/* Reports a failure on stderr; returns 1. */
static int fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "usb_client: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

/* Milliseconds on the monotonic clock. */
static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The test data: xorshift64 bytes, the same for a seed every time. */
static void pattern(uint8_t *b, size_t n, uint64_t seed)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
	size_t i;

	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		b[i] = (uint8_t)(x >> 24);
	}
}

/* Reads a whole file; returns its bytes (malloc'd) or NULL. */
static uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		goto out;
	b = malloc(n ? (size_t)n : 1);
	if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	*len = (size_t)n;
out:
	fclose(f);
	return b;
}

/* Writes @n bytes to a new file @path; returns 0 or 1. */
static int write_file(const char *path, const uint8_t *b, size_t n)
{
	FILE *f = fopen(path, "wb");
	int bad;

	if (!f)
		return fail("%s: %s", path, strerror(errno));
	bad = fwrite(b, 1, n, f) != n;
	bad |= fclose(f) != 0;
	return bad ? fail("%s: write failed", path) : 0;
}

/* gen FILE SIZE */
static int cmd_gen(const char *path, const char *size)
{
	size_t n = strtoull(size, NULL, 0);
	uint8_t *b = malloc(n ? n : 1);
	int ret;

	if (!b)
		return fail("out of memory");
	pattern(b, n, n);
	ret = write_file(path, b, n);
	free(b);
	return ret;
}

/* mkimage FILE VERSION SIZE [corrupt] */
static int cmd_mkimage(const char *path, const char *version, const char *size, bool corrupt)
{
	struct spoor_probe_image img = { .target = SPOOR_PROBE_TARGET_SIM };
	size_t n = strtoull(size, NULL, 0);
	uint8_t *b = malloc(SPOOR_PROBE_IMAGE_HEADER + n);
	int ret;

	if (!b)
		return fail("out of memory");
	pattern(b + SPOOR_PROBE_IMAGE_HEADER, n, 7);
	img.version = (uint32_t)strtoul(version, NULL, 0);
	img.length = (uint32_t)n;
	img.crc32 = spoor_probe_crc32(0, b + SPOOR_PROBE_IMAGE_HEADER, n);
	spoor_probe_image_header(&img, b);
	if (corrupt && n)
		b[SPOOR_PROBE_IMAGE_HEADER + n / 2] ^= 0x40;
	ret = write_file(path, b, SPOOR_PROBE_IMAGE_HEADER + n);
	free(b);
	return ret;
}

/* Opens the probe, waiting up to @ms for it to appear; NULL if it does not. */
static libusb_device_handle *open_probe(libusb_context *ctx, int ms)
{
	long long end = now_ms() + ms;
	struct timeval tv = { 0, 20000 };
	libusb_device_handle *h;

	for (;;) {
		h = libusb_open_device_with_vid_pid(ctx, SPOOR_PROBE_VID, SPOOR_PROBE_PID);
		if (h || now_ms() > end)
			return h;
		libusb_handle_events_timeout_completed(ctx, &tv, NULL);
	}
}

/* Is the device enumerating in DFU mode (its interface 0 is DFU, protocol 2)? */
static bool in_dfu_mode(libusb_device_handle *h)
{
	struct libusb_config_descriptor *cfg;
	bool dfu = false;

	if (libusb_get_active_config_descriptor(libusb_get_device(h), &cfg))
		return false;
	if (cfg->bNumInterfaces >= 1 && cfg->interface[0].num_altsetting >= 1) {
		const struct libusb_interface_descriptor *i = &cfg->interface[0].altsetting[0];

		dfu = i->bInterfaceClass == 0xfe && i->bInterfaceProtocol == 0x02;
	}
	libusb_free_config_descriptor(cfg);
	return dfu;
}

/* GET_INFO into @info; returns 0 or a libusb error. */
static int get_info(libusb_device_handle *h, struct spoor_probe_info *info)
{
	uint8_t b[SPOOR_PROBE_INFO_SIZE];
	int r;

	r = libusb_control_transfer(h, SPOOR_PROBE_REQTYPE_IN, SPOOR_PROBE_GET_INFO, 0,
				    SPOOR_PROBE_IF_TRACE, b, sizeof(b), CTRL_TIMEOUT);
	if (r < 0)
		return r;
	if (spoor_probe_info_decode(b, (size_t)r, info))
		return LIBUSB_ERROR_OTHER;
	return 0;
}

/* Opens the probe, claims the trace interface and checks GET_INFO. */
static libusb_device_handle *open_and_check(libusb_context *ctx, int ms)
{
	struct spoor_probe_info info;
	libusb_device_handle *h = open_probe(ctx, ms);
	char name[64] = "";
	int r;

	if (!h) {
		fail("no device %04x:%04x", SPOOR_PROBE_VID, SPOOR_PROBE_PID);
		return NULL;
	}
	r = libusb_claim_interface(h, SPOOR_PROBE_IF_TRACE);
	if (!r)
		r = get_info(h, &info);
	if (!r) {
		struct libusb_device_descriptor dd;

		libusb_get_device_descriptor(libusb_get_device(h), &dd);
		r = libusb_get_string_descriptor_ascii(h, dd.iSerialNumber, (uint8_t *)name,
						       sizeof(name));
		r = r < 0 ? r : 0;
	}
	if (r) {
		fail("open: %s", libusb_error_name(r));
		libusb_close(h);
		return NULL;
	}
	if (strcmp(name, info.serial) || info.protocol_version != SPOOR_PROBE_PROTOCOL_VERSION) {
		fail("GET_INFO: serial '%s' (string descriptor '%s'), protocol %#x", info.serial,
		     name, info.protocol_version);
		libusb_close(h);
		return NULL;
	}
	return h;
}

/* SET_CONFIG (8-bit port, raw) and START. */
static int start_capture(libusb_device_handle *h)
{
	struct spoor_probe_config cfg = { .port_width = 8 };
	uint8_t b[SPOOR_PROBE_CONFIG_SIZE];
	int r;

	spoor_probe_config_encode(&cfg, b);
	r = libusb_control_transfer(h, SPOOR_PROBE_REQTYPE_OUT, SPOOR_PROBE_SET_CONFIG, 0,
				    SPOOR_PROBE_IF_TRACE, b, sizeof(b), CTRL_TIMEOUT);
	if (r == (int)sizeof(b))
		r = libusb_control_transfer(h, SPOOR_PROBE_REQTYPE_OUT, SPOOR_PROBE_START, 0,
					    SPOOR_PROBE_IF_TRACE, NULL, 0, CTRL_TIMEOUT);
	return r < 0 ? fail("SET_CONFIG/START: %s", libusb_error_name(r)) : 0;
}

/* Checks the records in @n bytes at @b against the file. */
static void check(struct stream *s, const uint8_t *b, size_t n)
{
	struct spoor_probe_item it;
	int k;

	s->usb_bytes += n;
	if (spoor_probe_stream_feed(s->dec, b, n)) {
		s->failed = !fail("decoder refused a chunk");
		return;
	}
	while ((k = spoor_probe_stream_next(s->dec, &it, sizeof(it))) > 0) {
		if (s->failed)
			continue;
		if (k == SPOOR_PROBE_ITEM_DATA) {
			if (it.offset != s->got || it.len > s->want_len - s->got ||
			    memcmp(it.data, s->want + s->got, it.len)) {
				s->failed = !fail("DATA at trace offset %llu (%zu bytes) differs "
						  "from the file (%llu bytes matched)",
						  (unsigned long long)it.offset, it.len,
						  (unsigned long long)s->got);
				continue;
			}
			s->got += it.len;
		} else if (k != SPOOR_PROBE_ITEM_END) {
			s->failed = !fail("stream item %d at stream offset %llu (reason %d)", k,
					  (unsigned long long)it.stream_offset, it.reason);
		}
	}
	if (s->got == s->want_len)
		s->done = true;
}

/* A streaming transfer completed: check it and submit it again. */
static void LIBUSB_CALL on_transfer(struct libusb_transfer *t)
{
	struct stream *s = t->user_data;

	if (t->status == LIBUSB_TRANSFER_COMPLETED) {
		check(s, t->buffer, (size_t)t->actual_length);
		if (!s->done && !s->failed && !s->no_device &&
		    libusb_submit_transfer(t) == 0)
			return;
	} else if (t->status == LIBUSB_TRANSFER_NO_DEVICE) {
		s->no_device = true;
	} else if (t->status != LIBUSB_TRANSFER_CANCELLED) {
		s->failed = !fail("transfer status %s", libusb_error_name((int)t->status));
	}
	s->active--;
}

/*
 * Streams until the whole file came, the device went, a failure or the
 * deadline; leaves no transfer in flight.  Returns 0 or 1.
 */
static int stream_run(struct stream *s, libusb_device_handle *h)
{
	long long end = now_ms() + DEADLINE_MS;
	struct timeval tv = { 0, 100000 };
	bool cancelled = false;
	int i, r;

	s->dec = spoor_probe_stream_new();
	if (!s->dec)
		return fail("out of memory");
	s->got = s->usb_bytes = 0;
	s->done = s->failed = s->no_device = false;
	for (i = 0; i < NXFER; i++) {
		libusb_fill_bulk_transfer(s->xfer[i], h, SPOOR_PROBE_EP_TRACE,
					  s->xfer[i]->buffer, XFER_SIZE, on_transfer, s, 0);
		r = libusb_submit_transfer(s->xfer[i]);
		if (r) {
			fail("submit: %s", libusb_error_name(r));
			s->failed = true;
			break;
		}
		s->active++;
	}
	while (s->active > 0) {
		if (!cancelled && (s->done || s->failed || s->no_device || now_ms() > end)) {
			if (!s->done && !s->failed && !s->no_device)
				s->failed = !fail("deadline: %llu of %zu bytes",
						  (unsigned long long)s->got, s->want_len);
			for (i = 0; i < NXFER; i++)
				libusb_cancel_transfer(s->xfer[i]);
			cancelled = true;
		}
		libusb_handle_events_timeout_completed(s->ctx, &tv, NULL);
	}
	spoor_probe_stream_free(s->dec);
	s->dec = NULL;
	return s->failed;
}

static int arrived, left;

/* Hotplug: counts arrivals and departures of the probe. */
static int LIBUSB_CALL on_hotplug(libusb_context *ctx, libusb_device *dev,
				  libusb_hotplug_event event, void *user)
{
	(void)ctx;
	(void)dev;
	(void)user;
	if (event == LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED)
		arrived++;
	else
		left++;
	return 0;
}

/* stream FILE / unplug FILE */
static int cmd_stream(const char *path, bool unplug)
{
	struct stream s = { 0 };
	libusb_hotplug_callback_handle hp;
	libusb_device_handle *h = NULL;
	struct spoor_probe_info info;
	int i, r, ret = 1;
	long long t0;

	s.want = read_file(path, &s.want_len);
	if (!s.want)
		return fail("%s: cannot read", path);
	if (libusb_init(&s.ctx)) {
		free((void *)s.want);
		return fail("libusb_init failed");
	}
	for (i = 0; i < NXFER; i++) {
		s.xfer[i] = libusb_alloc_transfer(0);
		if (!s.xfer[i] || !(s.xfer[i]->buffer = malloc(XFER_SIZE)))
			goto out;
	}
	if (unplug && libusb_hotplug_register_callback(s.ctx, LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED |
						       LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT, 0,
						       SPOOR_PROBE_VID, SPOOR_PROBE_PID,
						       LIBUSB_HOTPLUG_MATCH_ANY, on_hotplug, NULL,
						       &hp)) {
		fail("hotplug registration failed");
		goto out;
	}
	h = open_and_check(s.ctx, 5000);
	if (!h || start_capture(h))
		goto out;
	t0 = now_ms();
	if (stream_run(&s, h))
		goto out;
	if (!unplug) {
		if (!s.done)
			goto out;
		printf("usb_client: %zu bytes in %llu bulk bytes, %lld ms\n", s.want_len,
		       (unsigned long long)s.usb_bytes, now_ms() - t0);
		ret = 0;
		goto out;
	}
	if (!s.no_device) {
		fail("no unplug: %llu bytes came", (unsigned long long)s.got);
		goto out;
	}
	r = get_info(h, &info);
	if (r != LIBUSB_ERROR_NO_DEVICE) {
		fail("GET_INFO after the unplug: %s, not NO_DEVICE", libusb_error_name(r));
		goto out;
	}
	printf("usb_client: unplugged after %llu bulk bytes (%llu trace bytes checked)\n",
	       (unsigned long long)s.usb_bytes, (unsigned long long)s.got);
	libusb_close(h);
	h = NULL;
	/* Back after the replug: hotplug says so, and it streams again. */
	t0 = now_ms();
	while ((!left || !arrived) && now_ms() - t0 < 5000) {
		struct timeval tv = { 0, 20000 };

		libusb_handle_events_timeout_completed(s.ctx, &tv, NULL);
	}
	if (!left || !arrived) {
		fail("hotplug: %d departures, %d arrivals", left, arrived);
		goto out;
	}
	h = open_and_check(s.ctx, 5000);
	if (!h || start_capture(h) || stream_run(&s, h) || !s.done)
		goto out;
	printf("usb_client: back after the replug, %zu bytes again\n", s.want_len);
	ret = 0;
out:
	if (h) {
		libusb_release_interface(h, SPOOR_PROBE_IF_TRACE);
		libusb_close(h);
	}
	for (i = 0; i < NXFER; i++) {
		if (s.xfer[i]) {
			free(s.xfer[i]->buffer);
			s.xfer[i]->buffer = NULL;
			libusb_free_transfer(s.xfer[i]);
		}
	}
	libusb_exit(s.ctx);
	free((void *)s.want);
	return ret;
}

/*
 * Opens the run-time device: one in DFU mode (a refused image) is reset
 * back to run time, one going away (re-enumerating after a reset) is
 * waited for.  Returns GET_INFO's answer in @info, or 1.
 */
static int run_time_info(libusb_context *ctx, struct spoor_probe_info *info)
{
	long long end = now_ms() + 5000;
	struct timeval tv = { 0, 50000 };
	libusb_device_handle *h;
	int r = LIBUSB_ERROR_NO_DEVICE;

	while (now_ms() < end) {
		h = open_probe(ctx, (int)(end - now_ms()));
		if (!h)
			break;
		if (in_dfu_mode(h)) {
			r = libusb_reset_device(h);
			if (r && r != LIBUSB_ERROR_NOT_FOUND && r != LIBUSB_ERROR_NO_DEVICE) {
				libusb_close(h);
				return fail("reset: %s", libusb_error_name(r));
			}
			r = LIBUSB_ERROR_NO_DEVICE;
		} else {
			r = get_info(h, info);
		}
		libusb_close(h);
		if (r != LIBUSB_ERROR_NO_DEVICE)
			break;
		libusb_handle_events_timeout_completed(ctx, &tv, NULL);
	}
	return r ? fail("no run-time device: %s", libusb_error_name(r)) : 0;
}

/* version VERSION */
static int cmd_version(const char *version)
{
	uint32_t want = (uint32_t)strtoul(version, NULL, 0);
	struct spoor_probe_info info;
	libusb_context *ctx;
	int ret = 1;

	if (libusb_init(&ctx))
		return fail("libusb_init failed");
	if (run_time_info(ctx, &info))
		goto out;
	if (info.firmware_version != want) {
		fail("firmware version %#x, not %#x", info.firmware_version, want);
		goto out;
	}
	printf("usb_client: firmware version %#x\n", info.firmware_version);
	ret = 0;
out:
	libusb_exit(ctx);
	return ret;
}

/* Prints the usage on @f. */
static void usage(FILE *f)
{
	fprintf(f, "usage: usb_client gen FILE SIZE\n"
		   "       usb_client mkimage FILE VERSION SIZE [corrupt]\n"
		   "       usb_client stream FILE\n"
		   "       usb_client unplug FILE\n"
		   "       usb_client version VERSION\n"
		   "A test client of spoor-probe-sim --usb (run under its testbed).\n");
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "gen"))
		return cmd_gen(argv[2], argv[3]);
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "mkimage"))
		return cmd_mkimage(argv[2], argv[3], argv[4],
				   argc == 6 && !strcmp(argv[5], "corrupt"));
	if (argc == 3 && !strcmp(argv[1], "stream"))
		return cmd_stream(argv[2], false);
	if (argc == 3 && !strcmp(argv[1], "unplug"))
		return cmd_stream(argv[2], true);
	if (argc == 3 && !strcmp(argv[1], "version"))
		return cmd_version(argv[2]);
	usage(stderr);
	return 2;
}
