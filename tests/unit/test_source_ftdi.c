// SPDX-License-Identifier: MIT
/*
 * Tests for the ftdi trace source (host/source_ftdi.c): the spec's
 * SERIAL[:A|B], stripping the modem status bytes, and, against an FT2232H
 * and an FT232H modelled under umockdev (usb_mock.h), scanning, opening
 * (channel, FIFO mode, latency), the synthetic info, configure, the raw
 * stream in order, stop, unplugging and reopening.  The driver is included
 * whole; the layer's two functions are stubbed here.
 */
#include "source_ftdi.c"

#include <glib.h>

#include "check.h"
#include "usb_mock.h"

/* ---- the layer's side, stubbed --------------------------------------------- */

static uint8_t *got;
static size_t got_len, got_cap;

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

/* ---- the chips ------------------------------------------------------------- */

/* FT2232H (bcdDevice 0x0700): two vendor interfaces, 0x81/0x02 and 0x83/0x04, 512-byte packets. */
static const char ft2232h_desc[] =
	"1201000200000040030410600007010203 01"
	"0902370002010080fa"
	"09040000 02ffffff02" "0705810200020007050202000200"
	"09040100 02ffffff02" "0705830200020007050402000200";
/* FT232H (bcdDevice 0x0900): one interface. */
static const char ft232h_desc[] =
	"1201000200000040030414600009010203 01"
	"0902200001010080fa"
	"09040000 02ffffff02" "0705810200020007050202000200";

/* The vendor requests the chip was sent: bRequest, wValue, wIndex. */
struct req {
	uint8_t request;
	uint16_t value, index;
};
static struct req reqs[256];
static unsigned int nreqs;

/* Every FTDI vendor request: OUT acknowledged (and logged), IN answered with zeros. */
static int ftdi_vendor(struct mock_dev *m, const uint8_t *setup, uint8_t *data, int len)
{
	(void)m;
	if (setup[0] & 0x80) {
		memset(data, 0, (size_t)len);
		return len;
	}
	if (nreqs < sizeof(reqs) / sizeof(reqs[0]))
		reqs[nreqs++] = (struct req){ setup[1], (uint16_t)(setup[2] | setup[3] << 8),
					      (uint16_t)(setup[4] | setup[5] << 8) };
	return 0;
}

/* Was request @request sent with @value and @index? */
static bool sent(uint8_t request, uint16_t value, uint16_t index)
{
	for (unsigned int i = 0; i < nreqs; i++)
		if (reqs[i].request == request && reqs[i].value == value &&
		    reqs[i].index == index)
			return true;
	return false;
}

static struct mock_dev ft2232h = {
	.bus = 4, .descriptors = ft2232h_desc,
	.strings = { NULL, "FTDI", "Dual RS232-HS", "FT1234" },
	.vendor = ftdi_vendor, .stream_ep = 0x83, .packet = 512,
};
static struct mock_dev ft232h = {
	.bus = 5, .descriptors = ft232h_desc,
	.strings = { NULL, "FTDI", "Single RS232-HS", "FTH001" },
	.vendor = ftdi_vendor, .stream_ep = 0x81, .packet = 512,
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

/* A source as the layer would make it, open on ftdi:@arg. */
static int open_src(struct spoor_source *src, const char *arg, struct spoor_diag *d)
{
	memset(src, 0, sizeof(*src));
	memset(d, 0, sizeof(*d));
	src->drv = &spoor_source_ftdi;
	nreqs = 0;
	return spoor_source_ftdi.open(src, arg, d);
}

/* Reads until @want bytes came (or 5 s passed); returns the last result. */
static int read_until(struct spoor_source *src, size_t want)
{
	long long deadline = usb_ring_now_ms() + 5000;
	int r = 0;

	while (got_len < want && usb_ring_now_ms() < deadline) {
		r = spoor_source_ftdi.read(src, 100);
		if (r < 0)
			return r;
	}
	return r;
}

/* The pattern byte at stream offset @i. */
static uint8_t pattern(size_t i)
{
	return (uint8_t)(i * 13 + (i >> 9));
}

/* ---- tests ---------------------------------------------------------------- */

/* The spec's argument. */
static void test_parse(void)
{
	struct spoor_diag d = { "" };
	char serial[SPOOR_PROBE_SERIAL_MAX + 1];
	char chan;
	static const char *const bad[] = { "FT1:", "FT1:C", "FT1:AB", "a:b:A", ":",
					   "0123456789012345678901234567890123" };

	CHECK_EQ(parse_arg("", serial, sizeof(serial), &chan, &d), 0);
	CHECK(!serial[0] && !chan);
	CHECK_EQ(parse_arg("FT1", serial, sizeof(serial), &chan, &d), 0);
	CHECK(!strcmp(serial, "FT1") && !chan);
	CHECK_EQ(parse_arg("FT1:b", serial, sizeof(serial), &chan, &d), 0);
	CHECK(!strcmp(serial, "FT1") && chan == 'B');
	CHECK_EQ(parse_arg(":A", serial, sizeof(serial), &chan, &d), 0);
	CHECK(!serial[0] && chan == 'A');
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		d.msg[0] = 0;
		CHECK_EQ(parse_arg(bad[i], serial, sizeof(serial), &chan, &d), SPOOR_E_INVAL);
		CHECK(!strncmp(d.msg, "ftdi:", 5));
	}
}

/* Two status bytes off every packet; bare status packets give nothing. */
static void test_strip(void)
{
	uint8_t buf[2000], want[2000];
	size_t n = 0, len = 0;

	/* Packets of 512, 512, 2 (bare), 100 bytes, as one transfer would not hold: pieces. */
	for (int p = 0; p < 2; p++) {
		buf[len++] = 0x32;
		buf[len++] = 0x60;
		for (int i = 0; i < 510; i++) {
			want[n] = pattern(n);
			buf[len++] = want[n++];
		}
	}
	CHECK_EQ(strip_status(&(struct ft_priv){ .mps = 512 }, buf, len), n);
	CHECK(!memcmp(buf, want, n));
	/* A short last packet. */
	len = 0;
	n = 0;
	buf[len++] = 0x32;
	buf[len++] = 0x60;
	for (int i = 0; i < 98; i++) {
		want[n] = pattern(n + 7);
		buf[len++] = want[n++];
	}
	CHECK_EQ(strip_status(&(struct ft_priv){ .mps = 512 }, buf, len), 98);
	CHECK(!memcmp(buf, want, 98));
	CHECK_EQ(strip_status(&(struct ft_priv){ .mps = 512 }, buf, 2), 0);
	CHECK_EQ(strip_status(&(struct ft_priv){ .mps = 512 }, buf, 1), 0);
	CHECK_EQ(strip_status(&(struct ft_priv){ .mps = 512 }, buf, 0), 0);
	/* 64-byte packets (full speed). */
	len = 0;
	n = 0;
	for (int p = 0; p < 5; p++) {
		buf[len++] = 0x31;
		buf[len++] = 0x60;
		for (int i = 0; i < (p == 4 ? 10 : 62); i++) {
			want[n] = pattern(n);
			buf[len++] = want[n++];
		}
	}
	CHECK_EQ(strip_status(&(struct ft_priv){ .mps = 64 }, buf, len), n);
	CHECK(!memcmp(buf, want, n));
}

/* Scanning both chips. */
static void test_scan(void)
{
	struct spoor_source_list list = { 0 };
	struct spoor_diag d = { "" };

	CHECK_EQ(spoor_source_ftdi.scan(&list, &d), 0);
	CHECK_EQ(list.n, 2);
	for (size_t i = 0; i < list.n; i++) {
		struct spoor_source_desc *e = &list.v[i];

		CHECK(!strcmp(e->driver, "ftdi"));
		CHECK(e->have_info && e->info.port_widths == 0x80);
		CHECK(!e->dfu_mode);
		CHECK_EQ(e->vid, 0x0403);
		if (e->pid == 0x6010) {
			CHECK(!strcmp(e->address, "ftdi:FT1234"));
			CHECK(!strcmp(e->product, "Dual RS232-HS"));
			CHECK(!strcmp(e->info.serial, "FT1234"));
		} else {
			CHECK_EQ(e->pid, 0x6014);
			CHECK(!strcmp(e->address, "ftdi:FTH001"));
		}
	}
	free(list.v);
}

/* Opening: which chip, which channel, which mode; info and configure. */
static void test_open(void)
{
	struct spoor_probe_config cfg = { .port_width = 8 };
	struct spoor_probe_info info;
	struct spoor_source src;
	struct spoor_diag d;

	CHECK_EQ(open_src(&src, "", &d), SPOOR_E_INVAL);
	CHECK(strstr(d.msg, "FT1234") && strstr(d.msg, "FTH001"));
	CHECK_EQ(open_src(&src, "NOPE", &d), SPOOR_E_NO_DEVICE);
	CHECK(strstr(d.msg, "ftdi:NOPE"));

	/* FT2232H: channel B (interface index 2), async FIFO: bit mode reset only. */
	CHECK_EQ(open_src(&src, "FT1234", &d), 0);
	CHECK(!strcmp(src.name, "ftdi:FT1234:B"));
	CHECK(!strcmp(src.serial, "FT1234"));
	CHECK(sent(SIO_SET_LATENCY_TIMER_REQUEST, 2, 2));
	CHECK(sent(SIO_SET_BITMODE_REQUEST, 0x00ff, 2));
	CHECK(!sent(SIO_SET_BITMODE_REQUEST, 0x40ff, 2));
	CHECK_EQ(spoor_source_ftdi.info(&src, &info), 0);
	CHECK(!strcmp(info.serial, "FT1234") && info.port_widths == 0x80);
	CHECK_EQ(spoor_source_ftdi.configure(&src, &cfg), 0);
	cfg.port_width = 4;
	CHECK_EQ(spoor_source_ftdi.configure(&src, &cfg), SPOOR_E_STALL);
	cfg.port_width = 8;
	cfg.flags = SPOOR_PROBE_CFG_DDR;
	CHECK_EQ(spoor_source_ftdi.configure(&src, &cfg), SPOOR_E_STALL);
	CHECK(!spoor_source_ftdi.control);
	/* In use: busy. */
	ft2232h.busy = true;
	{
		struct spoor_source other;

		CHECK_EQ(open_src(&other, "FT1234", &d), SPOOR_E_BUSY);
		CHECK(strstr(d.msg, "ftdi:FT1234:B"));
	}
	ft2232h.busy = false;
	spoor_source_ftdi.close(&src);
	CHECK(!src.priv);
	CHECK_EQ(ft2232h.claims, ft2232h.releases);

	/* FT2232H channel A: synchronous FIFO. */
	CHECK_EQ(open_src(&src, "FT1234:a", &d), 0);
	CHECK(!strcmp(src.name, "ftdi:FT1234:A"));
	CHECK(sent(SIO_SET_BITMODE_REQUEST, 0x40ff, 1));
	spoor_source_ftdi.close(&src);

	/* FT232H: one channel, synchronous FIFO with RTS/CTS. */
	CHECK_EQ(open_src(&src, "FTH001", &d), 0);
	CHECK(!strcmp(src.name, "ftdi:FTH001"));
	CHECK(sent(SIO_SET_BITMODE_REQUEST, 0x00ff, 1));
	CHECK(sent(SIO_SET_BITMODE_REQUEST, 0x40ff, 1));
	CHECK(sent(SIO_SET_FLOW_CTRL_REQUEST, 0, SIO_RTS_CTS_HS | 1));
	CHECK_EQ(spoor_source_ftdi.info(&src, &info), 0);
	CHECK_EQ(info.buffer_size, 1024);
	spoor_source_ftdi.close(&src);
	CHECK_EQ(open_src(&src, "FTH001:B", &d), SPOOR_E_INVAL);
	CHECK(strstr(d.msg, "one channel"));
	CHECK_EQ(ft232h.claims, ft232h.releases);
}

/* Streaming: the bytes in order without status bytes; stop hands out what came before. */
static void test_stream(void)
{
	enum { TOTAL = 700 * 1024 + 77 };
	struct spoor_source src;
	struct spoor_diag d;
	uint8_t *buf = malloc(TOTAL);
	unsigned int submits;

	for (size_t i = 0; i < TOTAL; i++)
		buf[i] = pattern(i);
	got_len = 0;
	CHECK_EQ(open_src(&src, "FT1234", &d), 0);
	CHECK_EQ(spoor_source_ftdi.read(&src, 10), SPOOR_SOURCE_IDLE);	/* not started */
	submits = ft2232h.submits;
	nreqs = 0;
	CHECK_EQ(spoor_source_ftdi.start(&src), 0);
	CHECK(sent(SIO_RESET_REQUEST, SIO_TCIFLUSH, 2));	/* the chip's FIFO purged */
	CHECK(ft2232h.submits - submits >= FT_XFERS);
	/* Idle: bare status packets only. */
	CHECK_EQ(spoor_source_ftdi.read(&src, 20), SPOOR_SOURCE_IDLE);
	CHECK_EQ(got_len, 0);
	for (size_t off = 0, step = 777; off < TOTAL; off += step, step *= 2) {
		size_t n = off + step > TOTAL ? TOTAL - off : step;

		mock_queue(&ft2232h, buf + off, n);
		CHECK_EQ(read_until(&src, off + n), SPOOR_SOURCE_MORE);
	}
	CHECK(got_len == TOTAL && !memcmp(got, buf, TOTAL));

	/* Bytes arrived but not handed out yet when the host stops: the next reads have them. */
	got_len = 0;
	mock_queue(&ft2232h, buf, 5000);
	for (long long t = usb_ring_now_ms() + 2000; mock_pending(&ft2232h) && usb_ring_now_ms() < t;)
		libusb_handle_events_timeout_completed(((struct ft_priv *)src.priv)->ring.ctx,
						       &(struct timeval){ .tv_usec = 10000 }, NULL);
	CHECK_EQ(mock_pending(&ft2232h), 0);
	CHECK_EQ(spoor_source_ftdi.stop(&src), 0);
	for (unsigned int i = 0; i < FT_XFERS; i++)
		CHECK(!((struct ft_priv *)src.priv)->ring.x[i].in_flight);
	CHECK_EQ(read_until(&src, 5000), SPOOR_SOURCE_MORE);
	CHECK(got_len == 5000 && !memcmp(got, buf, 5000));
	CHECK_EQ(spoor_source_ftdi.read(&src, 0), SPOOR_SOURCE_IDLE);
	/* Stopped at once: the transfers in flight are cancelled, nothing came. */
	submits = ft2232h.discards;
	CHECK_EQ(spoor_source_ftdi.start(&src), 0);
	CHECK_EQ(spoor_source_ftdi.stop(&src), 0);
	CHECK_EQ(ft2232h.discards - submits, FT_XFERS);
	CHECK_EQ(spoor_source_ftdi.read(&src, 0), SPOOR_SOURCE_IDLE);
	CHECK_EQ(got_len, 5000);
	/* And again. */
	got_len = 0;
	CHECK_EQ(spoor_source_ftdi.start(&src), 0);
	mock_queue(&ft2232h, buf, 3000);
	CHECK_EQ(read_until(&src, 3000), SPOOR_SOURCE_MORE);
	CHECK(got_len == 3000 && !memcmp(got, buf, 3000));
	spoor_source_ftdi.close(&src);
	CHECK_EQ(ft2232h.claims, ft2232h.releases);
	free(buf);
}

/* Unplugged: NO_DEVICE after what came before; reopened on the same channel. */
static void test_unplug(void)
{
	struct spoor_source src;
	struct spoor_diag d;
	uint8_t buf[2000];

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = pattern(i);
	got_len = 0;
	CHECK_EQ(open_src(&src, "FT1234:B", &d), 0);
	CHECK_EQ(spoor_source_ftdi.start(&src), 0);
	mock_queue(&ft2232h, buf, 1000);
	CHECK_EQ(read_until(&src, 1000), SPOOR_SOURCE_MORE);
	mock_unplug(&ft2232h);
	CHECK_EQ(read_until(&src, 2000), SPOOR_E_NO_DEVICE);
	CHECK_EQ(got_len, 1000);
	CHECK_EQ(spoor_source_ftdi.read(&src, 0), SPOOR_E_NO_DEVICE);
	mock_remove(&ft2232h);
	CHECK_EQ(spoor_source_ftdi.reopen(&src, &d), SPOOR_E_NO_DEVICE);
	CHECK(strstr(d.msg, "FT1234"));
	CHECK_EQ(spoor_source_ftdi.read(&src, 0), SPOOR_E_NO_DEVICE);
	CHECK_EQ(spoor_source_ftdi.start(&src), SPOOR_E_NO_DEVICE);
	mock_add(&ft2232h);
	nreqs = 0;
	CHECK_EQ(spoor_source_ftdi.reopen(&src, &d), 0);
	CHECK(!strcmp(src.name, "ftdi:FT1234:B"));
	CHECK(sent(SIO_SET_LATENCY_TIMER_REQUEST, 2, 2));
	CHECK_EQ(spoor_source_ftdi.start(&src), 0);
	mock_queue(&ft2232h, buf + 1000, 1000);
	CHECK_EQ(read_until(&src, 2000), SPOOR_SOURCE_MORE);
	CHECK(got_len == 2000 && !memcmp(got, buf, 2000));
	spoor_source_ftdi.close(&src);
}

int main(int argc, char **argv)
{
	check_args(argc, argv,
		   "Tests the ftdi trace source (host/source_ftdi.c) against an FT2232H and an "
		   "FT232H emulated under umockdev.");
	mock_reexec(argv);
	squeeze(&ft2232h);
	squeeze(&ft232h);
	test_parse();
	test_strip();
	mock_init();
	mock_add(&ft2232h);
	mock_add(&ft232h);
	test_scan();
	test_open();
	test_stream();
	test_unplug();
	free(got);
	mock_fini();
	return check_done();
}
