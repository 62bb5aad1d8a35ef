// SPDX-License-Identifier: MIT
/*
 * Tests for the usb trace source (host/source_usb.c) against a spoor probe
 * modelled under umockdev (usb_mock.h): scanning, opening by serial, the
 * errors (none, several, busy, DFU mode), control requests and stalls, the
 * bulk stream in order through the ring of transfers, unplugging and
 * reopening, closing with transfers in flight.  The driver is included
 * whole; the layer's two functions are stubbed here.
 */
#include "source_usb.c"

#include <glib.h>

#include "check.h"
#include "usb_mock.h"

/* ---- the layer's side, stubbed --------------------------------------------- */

static uint8_t *got;
static size_t got_len, got_cap, got_calls;

void spoor_source_bytes(struct spoor_source *src, const uint8_t *buf, size_t len)
{
	(void)src;
	if (got_len + len > got_cap) {
		got_cap = (got_len + len) * 2;
		got = realloc(got, got_cap);
		if (!got)
			abort();
	}
	memcpy(got + got_len, buf, len);
	got_len += len;
	got_calls++;
}

int spoor_source_list_add(struct spoor_source_list *list, const struct spoor_source_desc *d)
{
	if (list->n == list->cap) {
		list->cap = list->cap ? 2 * list->cap : 4;
		list->v = realloc(list->v, list->cap * sizeof(*list->v));
		if (!list->v)
			abort();
	}
	list->v[list->n++] = *d;
	return 0;
}

/* ---- the probe ------------------------------------------------------------- */

/* Device (1209:0001), configuration: interface 0 vendor with bulk IN 0x81, interface 1 DFU. */
#define PROBE_DESC(dfu_protocol) \
	"12010002000000400912010000010102" "0301" \
	"09022b00020100803209040000 01ff000000" \
	"0705810200020009040100 00fe01" dfu_protocol "00" "09210bff00000410 01"

static const char probe_run[] = PROBE_DESC("01");
static const char probe_dfu[] = PROBE_DESC("02");

/* The GET_INFO of the probe whose serial is string 3. */
static int probe_vendor(struct mock_dev *m, const uint8_t *setup, uint8_t *data, int len)
{
	struct spoor_probe_info info = {
		.protocol_version = SPOOR_PROBE_PROTOCOL_VERSION,
		.firmware_version = 0x000102,
		.target = SPOOR_PROBE_TARGET_SIM,
		.capabilities = SPOOR_PROBE_CAP_DFU,
		.buffer_size = 1 << 20,
		.port_widths = 0x808b,
	};

	snprintf(info.serial, sizeof(info.serial), "%s", m->strings[3]);
	switch (setup[1]) {
	case SPOOR_PROBE_GET_INFO:
		if (setup[0] != SPOOR_PROBE_REQTYPE_IN || len < SPOOR_PROBE_INFO_SIZE)
			return -EPIPE;
		return spoor_probe_info_encode(&info, data);
	case SPOOR_PROBE_START:
	case SPOOR_PROBE_STOP:
		return setup[0] == SPOOR_PROBE_REQTYPE_OUT ? 0 : -EPIPE;
	default:
		return -EPIPE;
	}
}

static struct mock_dev probe1 = {
	.bus = 1, .descriptors = probe_run,
	.strings = { NULL, "pid.codes", "spoor trace probe", "SN0001" },
	.vendor = probe_vendor, .stream_ep = SPOOR_PROBE_EP_TRACE,
};
static struct mock_dev probe2 = {
	.bus = 2, .descriptors = probe_run,
	.strings = { NULL, "pid.codes", "spoor trace probe", "SN0002" },
	.vendor = probe_vendor, .stream_ep = SPOOR_PROBE_EP_TRACE,
};
static struct mock_dev probe_in_dfu = {
	.bus = 3, .descriptors = probe_dfu,
	.strings = { NULL, "pid.codes", "spoor DFU", "SN0003" },
	.vendor = probe_vendor, .stream_ep = SPOOR_PROBE_EP_TRACE,
};

/* The descriptor strings above without their spaces (readability only). */
static void squeeze(struct mock_dev *m)
{
	char *s = g_strdup(m->descriptors), *o = s;

	for (const char *c = m->descriptors; *c; c++)
		if (*c != ' ')
			*o++ = *c;
	*o = 0;
	m->descriptors = s;
}

/* A source as the layer would make it, open on usb:@arg. */
static int open_src(struct spoor_source *src, const char *arg, struct spoor_diag *d)
{
	memset(src, 0, sizeof(*src));
	memset(d, 0, sizeof(*d));
	src->drv = &spoor_source_usb;
	return spoor_source_usb.open(src, arg, d);
}

/* Scans into @list (emptied first). */
static int scan(struct spoor_source_list *list, struct spoor_diag *d)
{
	free(list->v);
	memset(list, 0, sizeof(*list));
	memset(d, 0, sizeof(*d));
	return spoor_source_usb.scan(list, d);
}

/* Reads until @want bytes came (or 5 s passed); returns the last result. */
static int read_until(struct spoor_source *src, size_t want)
{
	long long deadline = usb_ring_now_ms() + 5000;
	int r = 0;

	while (got_len < want && usb_ring_now_ms() < deadline) {
		r = spoor_source_usb.read(src, 100);
		if (r < 0)
			return r;
	}
	return r;
}

/* ---- tests ---------------------------------------------------------------- */

/* Error mapping and SPOOR_PROBE_VIDPID. */
static void test_pure(void)
{
	struct spoor_diag d = { "" };
	uint16_t v, p;

	CHECK_EQ(usb_ring_error(LIBUSB_ERROR_PIPE), SPOOR_E_STALL);
	CHECK_EQ(usb_ring_error(LIBUSB_ERROR_NO_DEVICE), SPOOR_E_NO_DEVICE);
	CHECK_EQ(usb_ring_error(LIBUSB_ERROR_TIMEOUT), SPOOR_E_TIMEOUT);
	CHECK_EQ(usb_ring_error(LIBUSB_ERROR_BUSY), SPOOR_E_BUSY);
	CHECK_EQ(usb_ring_error(LIBUSB_ERROR_OVERFLOW), SPOOR_E_USB);
	unsetenv("SPOOR_PROBE_VIDPID");
	CHECK_EQ(probe_ids(&v, &p, "usb: ", &d), 0);
	CHECK(v == SPOOR_PROBE_VID && p == SPOOR_PROBE_PID);
	setenv("SPOOR_PROBE_VIDPID", "abcd:12", 1);
	CHECK_EQ(probe_ids(&v, &p, "usb: ", &d), 0);
	CHECK(v == 0xabcd && p == 0x12);
	static const char *const bad[] = { "abcd", "abcd:", ":1", "12345:1", "1:12345", "x:1",
					   "1:2:3", "1:2 " };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv("SPOOR_PROBE_VIDPID", bad[i], 1);
		d.msg[0] = 0;
		CHECK_EQ(probe_ids(&v, &p, "usb: ", &d), SPOOR_E_INVAL);
		CHECK(strstr(d.msg, "SPOOR_PROBE_VIDPID"));
	}
	unsetenv("SPOOR_PROBE_VIDPID");
}

/* Scanning: none, one (with its GET_INFO), the VID:PID override. */
static void test_scan(void)
{
	struct spoor_source_list list = { 0 };
	struct spoor_diag d;

	CHECK_EQ(scan(&list, &d), 0);
	CHECK_EQ(list.n, 0);
	mock_add(&probe1);
	CHECK_EQ(scan(&list, &d), 0);
	CHECK_EQ(list.n, 1);
	if (list.n == 1) {
		struct spoor_source_desc *e = &list.v[0];

		CHECK(!strcmp(e->address, "usb:SN0001"));
		CHECK(!strcmp(e->driver, "usb"));
		CHECK(!strcmp(e->serial, "SN0001"));
		CHECK(!strcmp(e->product, "spoor trace probe"));
		CHECK(e->vid == SPOOR_PROBE_VID && e->pid == SPOOR_PROBE_PID);
		CHECK(e->have_info);
		CHECK(!e->dfu_mode);
		CHECK(!strcmp(e->info.serial, "SN0001"));
		CHECK_EQ(e->info.target, SPOOR_PROBE_TARGET_SIM);
	}
	CHECK_EQ(probe1.claims, probe1.releases);
	/* In use by another program: listed, without its info. */
	probe1.busy = true;
	CHECK_EQ(scan(&list, &d), 0);
	CHECK(list.n == 1 && !list.v[0].have_info &&
	      !strcmp(list.v[0].product, "spoor trace probe (in use)"));
	probe1.busy = false;
	setenv("SPOOR_PROBE_VIDPID", "1209:0002", 1);
	CHECK_EQ(scan(&list, &d), 0);
	CHECK_EQ(list.n, 0);
	setenv("SPOOR_PROBE_VIDPID", "nonsense", 1);
	CHECK_EQ(scan(&list, &d), SPOOR_E_INVAL);
	CHECK(!strncmp(d.msg, "SPOOR_PROBE_VIDPID='nonsense'", 29));
	unsetenv("SPOOR_PROBE_VIDPID");
	free(list.v);
}

/* Opening: the only one, by serial, a wrong serial, busy; control requests. */
static void test_open(void)
{
	struct spoor_source src;
	struct spoor_diag d;
	uint8_t buf[64];
	struct spoor_probe_info info;

	CHECK_EQ(open_src(&src, "", &d), 0);
	CHECK(!strcmp(src.name, "usb:SN0001"));
	CHECK(!strcmp(src.serial, "SN0001"));
	CHECK_EQ(spoor_source_usb.control(&src, SPOOR_PROBE_REQTYPE_IN, SPOOR_PROBE_GET_INFO, 0,
					  0, buf, SPOOR_PROBE_INFO_SIZE, 1000),
		 SPOOR_PROBE_INFO_SIZE);
	CHECK_EQ(spoor_probe_info_decode(buf, SPOOR_PROBE_INFO_SIZE, &info), 0);
	CHECK(!strcmp(info.serial, "SN0001"));
	CHECK_EQ(spoor_source_usb.control(&src, SPOOR_PROBE_REQTYPE_OUT, SPOOR_PROBE_START, 0, 0,
					  NULL, 0, 1000), 0);
	CHECK_EQ(spoor_source_usb.control(&src, SPOOR_PROBE_REQTYPE_OUT, 0x7f, 0, 0, NULL, 0,
					  1000), SPOOR_E_STALL);
	/* Nothing started: a read waits, then says so. */
	CHECK_EQ(spoor_source_usb.read(&src, 20), SPOOR_SOURCE_IDLE);
	CHECK_EQ(spoor_source_usb.read(&src, 0), SPOOR_SOURCE_IDLE);
	/* Claimed by us: another open finds it busy. */
	probe1.busy = true;
	{
		struct spoor_source other;

		CHECK_EQ(open_src(&other, "SN0001", &d), SPOOR_E_BUSY);
		CHECK(strstr(d.msg, "usb:SN0001") && strstr(d.msg, "in use"));
		CHECK(!other.priv);
	}
	probe1.busy = false;
	spoor_source_usb.close(&src);
	CHECK(!src.priv);
	CHECK_EQ(probe1.claims, probe1.releases);

	CHECK_EQ(open_src(&src, "SN0001", &d), 0);
	spoor_source_usb.close(&src);
	CHECK_EQ(open_src(&src, "NOPE", &d), SPOOR_E_NO_DEVICE);
	CHECK(strstr(d.msg, "usb:NOPE") && strstr(d.msg, "SN0001"));
	CHECK_EQ(open_src(&src, "0123456789012345678901234567890123", &d), SPOOR_E_INVAL);
}

/* The pattern byte at stream offset @i. */
static uint8_t pattern(size_t i)
{
	return (uint8_t)(i * 7 + (i >> 11));
}

/* Streaming: bytes in order, through several rounds of the ring; closing cancels. */
static void test_stream(void)
{
	enum { TOTAL = 5 * 1024 * 1024 + 123 };
	struct spoor_source src;
	struct spoor_diag d;
	uint8_t *buf = malloc(TOTAL);
	unsigned int submits, discards;
	bool same = true;

	for (size_t i = 0; i < TOTAL; i++)
		buf[i] = pattern(i);
	got_len = 0;
	CHECK_EQ(open_src(&src, "", &d), 0);
	submits = probe1.submits;
	CHECK_EQ(spoor_source_usb.start(&src), 0);
	CHECK_EQ(probe1.submits - submits, USB_XFERS);
	CHECK_EQ(spoor_source_usb.start(&src), 0);	/* again: nothing more */
	CHECK_EQ(probe1.submits - submits, USB_XFERS);
	CHECK_EQ(spoor_source_usb.read(&src, 0), SPOOR_SOURCE_IDLE);
	/* In pieces, some smaller than a transfer, some larger. */
	for (size_t off = 0, step = 1000; off < TOTAL; off += step, step *= 3) {
		size_t n = off + step > TOTAL ? TOTAL - off : step;

		mock_queue(&probe1, buf + off, n);
		CHECK_EQ(read_until(&src, off + n), SPOOR_SOURCE_MORE);
	}
	CHECK_EQ(got_len, TOTAL);
	for (size_t i = 0; i < TOTAL && i < got_len; i++)
		same &= got[i] == buf[i];
	CHECK(same);
	CHECK(probe1.submits - submits >= USB_XFERS + TOTAL / USB_XFER_SIZE);
	CHECK_EQ(spoor_source_usb.read(&src, 10), SPOOR_SOURCE_IDLE);
	discards = probe1.discards;
	spoor_source_usb.close(&src);
	CHECK_EQ(probe1.discards - discards, USB_XFERS);
	CHECK_EQ(probe1.claims, probe1.releases);
	free(buf);
}

/* Without scatter-gather libusb splits each transfer into 16 KiB URBs: the same bytes. */
static void test_stream_split(void)
{
	enum { TOTAL = 1024 * 1024 + 7 };
	struct spoor_source src;
	struct spoor_diag d;
	uint8_t *buf = malloc(TOTAL);
	unsigned int submits;

	for (size_t i = 0; i < TOTAL; i++)
		buf[i] = pattern(i + 5);
	got_len = 0;
	probe1.no_sg = true;
	CHECK_EQ(open_src(&src, "", &d), 0);
	submits = probe1.submits;
	CHECK_EQ(spoor_source_usb.start(&src), 0);
	CHECK_EQ(probe1.submits - submits, USB_XFERS * (USB_XFER_SIZE / 16384));
	for (size_t off = 0, step = 50000; off < TOTAL; off += step) {
		size_t n = off + step > TOTAL ? TOTAL - off : step;

		mock_queue(&probe1, buf + off, n);
		CHECK_EQ(read_until(&src, off + n), SPOOR_SOURCE_MORE);
	}
	CHECK(got_len == TOTAL && !memcmp(got, buf, TOTAL));
	spoor_source_usb.close(&src);
	probe1.no_sg = false;
	free(buf);
}

/* Unplugged mid-stream: what came first is handed out, then NO_DEVICE; reopened. */
static void test_unplug(void)
{
	struct spoor_source src;
	struct spoor_diag d;
	uint8_t buf[3000];

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = pattern(i);
	got_len = 0;
	CHECK_EQ(open_src(&src, "SN0001", &d), 0);
	CHECK_EQ(spoor_source_usb.start(&src), 0);
	mock_queue(&probe1, buf, 1000);
	CHECK_EQ(read_until(&src, 1000), SPOOR_SOURCE_MORE);
	CHECK_EQ(got_len, 1000);
	mock_unplug(&probe1);
	CHECK_EQ(read_until(&src, 2000), SPOOR_E_NO_DEVICE);
	CHECK_EQ(spoor_source_usb.read(&src, 0), SPOOR_E_NO_DEVICE);
	CHECK_EQ(spoor_source_usb.control(&src, SPOOR_PROBE_REQTYPE_OUT, SPOOR_PROBE_STOP, 0, 0,
					  NULL, 0, 1000), SPOOR_E_NO_DEVICE);
	/* Gone: reopening says not yet, and the source stays usable. */
	mock_remove(&probe1);
	CHECK_EQ(spoor_source_usb.reopen(&src, &d), SPOOR_E_NO_DEVICE);
	CHECK(strstr(d.msg, "SN0001"));
	CHECK_EQ(spoor_source_usb.read(&src, 0), SPOOR_E_NO_DEVICE);
	CHECK_EQ(spoor_source_usb.control(&src, SPOOR_PROBE_REQTYPE_OUT, SPOOR_PROBE_STOP, 0, 0,
					  NULL, 0, 1000), SPOOR_E_NO_DEVICE);
	/* Back: reopened, started again (the layer's part), streaming. */
	mock_add(&probe1);
	CHECK_EQ(spoor_source_usb.reopen(&src, &d), 0);
	CHECK(!strcmp(src.name, "usb:SN0001"));
	CHECK_EQ(spoor_source_usb.start(&src), 0);
	mock_queue(&probe1, buf + 1000, 2000);
	CHECK_EQ(read_until(&src, 3000), SPOOR_SOURCE_MORE);
	CHECK_EQ(got_len, 3000);
	CHECK(got_len == 3000 && !memcmp(got, buf, 3000));
	spoor_source_usb.close(&src);
	CHECK_EQ(probe1.claims, probe1.releases);
}

/* Several probes: "" is ambiguous, a serial picks one; one in DFU mode only by its serial. */
static void test_several(void)
{
	struct spoor_source_list list = { 0 };
	struct spoor_source src;
	struct spoor_diag d;

	mock_add(&probe_in_dfu);
	CHECK_EQ(scan(&list, &d), 0);
	CHECK_EQ(list.n, 2);
	for (size_t i = 0; i < list.n; i++) {
		if (!strcmp(list.v[i].serial, "SN0003")) {
			CHECK(list.v[i].dfu_mode);
			CHECK(!list.v[i].have_info);
			CHECK(!strcmp(list.v[i].address, "usb:SN0003"));
		} else {
			CHECK(!list.v[i].dfu_mode);
		}
	}
	/* The one in DFU mode does not count for "". */
	CHECK_EQ(open_src(&src, "", &d), 0);
	CHECK(!strcmp(src.serial, "SN0001"));
	spoor_source_usb.close(&src);
	/* Named, it opens (spoor flash takes it there). */
	CHECK_EQ(open_src(&src, "SN0003", &d), 0);
	CHECK(strstr(src.name, "DFU mode"));
	CHECK_EQ(spoor_source_usb.dfu_interface(&src), 1);
	spoor_source_usb.close(&src);

	mock_add(&probe2);
	CHECK_EQ(open_src(&src, "", &d), SPOOR_E_INVAL);
	CHECK(strstr(d.msg, "SN0001") && strstr(d.msg, "SN0002"));
	CHECK_EQ(open_src(&src, "SN0002", &d), 0);
	CHECK(!strcmp(src.name, "usb:SN0002"));
	spoor_source_usb.close(&src);
	free(list.v);
}

int main(int argc, char **argv)
{
	check_args(argc, argv,
		   "Tests the usb trace source (host/source_usb.c) against a spoor probe "
		   "emulated under umockdev.");
	mock_reexec(argv);
	squeeze(&probe1);
	squeeze(&probe2);
	squeeze(&probe_in_dfu);
	test_pure();
	mock_init();
	test_scan();
	test_open();
	test_stream();
	test_stream_split();
	test_unplug();
	test_several();
	free(got);
	mock_fini();
	return check_done();
}
