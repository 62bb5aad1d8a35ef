// SPDX-License-Identifier: MIT
/* Tests for the probe's USB protocol (probe.h): payloads, the bulk stream, images. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "check.h"
#include "rng.h"
#include "spoor/error.h"
#include "spoor/probe.h"

static void test_payloads(void)
{
	struct spoor_probe_info info = {
		.protocol_version = SPOOR_PROBE_PROTOCOL_VERSION, .firmware_version = 0x010203,
		.capabilities = SPOOR_PROBE_CAP_DDR | SPOOR_PROBE_CAP_DFU, .buffer_size = 1u << 24,
		.port_widths = 0x808b, .serial = "SIM-0001", .target = SPOOR_PROBE_TARGET_SIM,
	}, info2;
	struct spoor_probe_config cfg = { .port_width = 4, .flags = SPOOR_PROBE_CFG_DDR, .encap = 1,
					  .src_bits = 6 }, cfg2;
	struct spoor_probe_status st = { .state = SPOOR_PROBE_CAPTURING, .bytes_captured = 1ull << 40,
					 .bytes_lost = 12345, .overflows = 3, .high_water = 4096 }, st2;
	uint8_t buf[64];

	CHECK_EQ(spoor_probe_info_encode(&info, buf), SPOOR_PROBE_INFO_SIZE);
	CHECK_EQ(spoor_probe_info_decode(buf, SPOOR_PROBE_INFO_SIZE, &info2), 0);
	CHECK_EQ(info2.firmware_version, 0x010203);
	CHECK_EQ(info2.buffer_size, 1u << 24);
	CHECK_EQ(info2.port_widths, 0x808b);
	CHECK_EQ(info2.target, SPOOR_PROBE_TARGET_SIM);
	CHECK(!strcmp(info2.serial, "SIM-0001"));
	CHECK_EQ(spoor_probe_info_decode(buf, SPOOR_PROBE_INFO_SIZE - 1, &info2), SPOOR_E_TRUNCATED);
	buf[20] = 0x07;
	CHECK_EQ(spoor_probe_info_decode(buf, SPOOR_PROBE_INFO_SIZE, &info2), SPOOR_E_BAD_FIELD);
	memset(info.serial, 'x', sizeof(info.serial));
	CHECK_EQ(spoor_probe_info_encode(&info, buf), SPOOR_E_INVAL);	/* no NUL */
	info.serial[SPOOR_PROBE_SERIAL_MAX] = '\0';
	CHECK_EQ(spoor_probe_info_encode(&info, buf), SPOOR_PROBE_INFO_SIZE);
	CHECK_EQ(spoor_probe_info_decode(buf, SPOOR_PROBE_INFO_SIZE, &info2), 0);
	CHECK_EQ(strlen(info2.serial), SPOOR_PROBE_SERIAL_MAX);

	CHECK_EQ(spoor_probe_config_encode(&cfg, buf), SPOOR_PROBE_CONFIG_SIZE);
	CHECK_EQ(spoor_probe_config_decode(buf, SPOOR_PROBE_CONFIG_SIZE, &cfg2), 0);
	CHECK(!memcmp(&cfg, &cfg2, sizeof(cfg)));
	buf[0] = 3;
	CHECK_EQ(spoor_probe_config_decode(buf, SPOOR_PROBE_CONFIG_SIZE, &cfg2), SPOOR_E_BAD_FIELD);
	buf[0] = 16;
	buf[1] = 0x80;
	CHECK_EQ(spoor_probe_config_decode(buf, SPOOR_PROBE_CONFIG_SIZE, &cfg2), SPOOR_E_BAD_FIELD);
	cfg.port_width = 32;
	CHECK_EQ(spoor_probe_config_encode(&cfg, buf), SPOOR_E_INVAL);

	CHECK_EQ(spoor_probe_status_encode(&st, buf), SPOOR_PROBE_STATUS_SIZE);
	CHECK_EQ(spoor_probe_status_decode(buf, SPOOR_PROBE_STATUS_SIZE, &st2), 0);
	CHECK(!memcmp(&st, &st2, sizeof(st)));
	st.bytes_lost = st.bytes_captured + 1;
	spoor_probe_status_encode(&st, buf);
	CHECK_EQ(spoor_probe_status_decode(buf, SPOOR_PROBE_STATUS_SIZE, &st2), SPOOR_E_BAD_FIELD);
	st.state = 9;
	CHECK_EQ(spoor_probe_status_encode(&st, buf), SPOOR_E_INVAL);
	CHECK_EQ(spoor_probe_status_decode(NULL, 32, &st2), SPOOR_E_INVAL);
}

/* A stream a probe sends: @ntrace trace bytes in records, with losses; what the host must see. */
struct model {
	uint8_t *stream, *trace;
	size_t len, ntrace;
	uint64_t lost_at[8], lost_n[8];
	size_t nlost;
};

static void make_stream(struct model *m)
{
	size_t cap = 1 << 20, pos = 0;
	uint64_t off = 0;
	uint8_t seq = 0;

	m->stream = malloc(cap);
	m->trace = malloc(cap);
	m->ntrace = m->len = m->nlost = 0;
	for (int r = 0; r < 300; r++) {
		if (r % 37 == 36 && m->nlost < 8) {
			uint32_t lost = 1 + (uint32_t)rnd_below(100000);

			m->lost_at[m->nlost] = off;
			m->lost_n[m->nlost++] = lost;
			m->len += (size_t)spoor_probe_overflow_record(seq++, off, lost, m->stream + m->len);
			off += lost;
			continue;
		}
		size_t n = 1 + rnd_below(r % 5 ? 600 : SPOOR_PROBE_REC_MAX);

		m->len += (size_t)spoor_probe_record_header(SPOOR_PROBE_REC_DATA, seq++, n,
							    m->stream + m->len);
		for (size_t i = 0; i < n; i++) {
			m->stream[m->len++] = (uint8_t)rnd();
			m->trace[pos++] = m->stream[m->len - 1];
		}
		off += n;
	}
	m->ntrace = pos;
	m->len += (size_t)spoor_probe_end_record(seq, off, m->stream + m->len);
}

/* Feeds @len bytes in random chunks; checks the items against @m.  Returns the errors seen. */
static unsigned run_stream(const uint8_t *stream, size_t len, const struct model *m,
			   size_t max_chunk, bool *ended)
{
	struct spoor_probe_stream *s = spoor_probe_stream_new();
	struct spoor_probe_item it;
	size_t got = 0, nlost = 0, off = 0;
	uint64_t trace_off = 0;
	unsigned errors = 0, bad = 0;
	int k;

	*ended = false;
	while (off < len) {
		size_t n = 1 + rnd_below(max_chunk);

		if (n > len - off)
			n = len - off;
		CHECK_EQ(spoor_probe_stream_feed(s, stream + off, n), 0);
		while ((k = spoor_probe_stream_next(s, &it, sizeof(it))) > 0) {
			switch (k) {
			case SPOOR_PROBE_ITEM_DATA:
				bad += m && (it.offset != trace_off || !it.len ||
					     got + it.len > m->ntrace ||
					     memcmp(it.data, m->trace + got, it.len));
				got += it.len;
				trace_off += it.len;
				break;
			case SPOOR_PROBE_ITEM_OVERFLOW:
				bad += m && (nlost >= m->nlost || it.offset != m->lost_at[nlost] ||
					     it.lost != m->lost_n[nlost]);
				trace_off += it.lost;
				nlost++;
				break;
			case SPOOR_PROBE_ITEM_END:
				bad += m && it.offset != trace_off;
				trace_off = 0;
				*ended = true;
				break;
			default:
				trace_off = it.offset;
				errors++;
				break;
			}
		}
		off += n;
	}
	if (m)
		CHECK_EQ(bad, 0);
	spoor_probe_stream_free(s);
	return errors;
}

/* The payload length in record header @hdr. */
static size_t get_len(const uint8_t *hdr)
{
	return (size_t)(hdr[2] | hdr[3] << 8);
}

static void test_stream(void)
{
	struct spoor_probe_stream *s = spoor_probe_stream_new();
	struct spoor_probe_item it;
	struct model m;
	bool ended;
	uint8_t junk[8] = { 0x12, 0xa5, 0x00, 0x00, 0x00, 0xff, 0x37, 0x00 };

	CHECK_EQ(spoor_probe_stream_feed(NULL, junk, 1), SPOOR_E_INVAL);
	CHECK_EQ(spoor_probe_stream_next(s, NULL, 1), SPOOR_E_INVAL);
	CHECK_EQ(spoor_probe_stream_feed(s, junk, 8), 0);
	CHECK_EQ(spoor_probe_stream_feed(s, junk, 8), SPOOR_E_INVAL);	/* not consumed */
	/* Junk: one error for the run, nothing else. */
	CHECK_EQ(spoor_probe_stream_next(s, &it, sizeof(it)), SPOOR_PROBE_ITEM_ERROR);
	CHECK_EQ(it.reason, SPOOR_E_BAD_HEADER);
	CHECK_EQ(it.stream_offset, 0);
	CHECK_EQ(spoor_probe_stream_next(s, &it, sizeof(it)), 0);
	spoor_probe_stream_free(s);
	CHECK_EQ(spoor_probe_record_header(0x33, 0, 4, junk), SPOOR_E_INVAL);
	CHECK_EQ(spoor_probe_record_header(SPOOR_PROBE_REC_DATA, 0, SPOOR_PROBE_REC_MAX + 1, junk),
		 SPOOR_E_INVAL);

	/* Any chunking: the same bytes at the same offsets, the losses where they were. */
	make_stream(&m);
	CHECK_EQ(run_stream(m.stream, m.len, &m, 1, &ended), 0);
	CHECK(ended);
	CHECK_EQ(run_stream(m.stream, m.len, &m, 7, &ended), 0);
	CHECK_EQ(run_stream(m.stream, m.len, &m, 100000, &ended), 0);
	CHECK(m.nlost > 3);
	/* A record dropped between probe and host: a sequence error, and the
	 * next loss report disagrees with the bytes seen; then on. */
	{
		uint8_t *cut = malloc(m.len);
		size_t first = SPOOR_PROBE_REC_HEADER + get_len(m.stream);

		memcpy(cut, m.stream, m.len);
		/* Drop the second record. */
		{
			size_t second = SPOOR_PROBE_REC_HEADER + get_len(m.stream + first);

			memmove(cut + first, cut + first + second, m.len - first - second);
			CHECK_EQ(run_stream(cut, m.len - second, NULL, 4096, &ended), 2);
		}
		free(cut);
	}
	/* Junk inside the stream: reported once, the records after it decode. */
	{
		uint8_t *dirty = malloc(m.len + 16);
		size_t first = SPOOR_PROBE_REC_HEADER + get_len(m.stream);

		memcpy(dirty, m.stream, first);
		memset(dirty + first, 0x5a, 16);
		memcpy(dirty + first + 16, m.stream + first, m.len - first);
		CHECK_EQ(run_stream(dirty, m.len + 16, &m, 999, &ended), 1);
		CHECK(ended);
		free(dirty);
	}
	free(m.stream);
	free(m.trace);
}

static void test_images(void)
{
	struct spoor_probe_image img = { .target = SPOOR_PROBE_TARGET_SIM, .version = 0x020000 };
	struct spoor_probe_image back;
	size_t n = 5000;
	uint8_t *buf = malloc(SPOOR_PROBE_IMAGE_HEADER + n);

	for (size_t i = 0; i < n; i++)
		buf[SPOOR_PROBE_IMAGE_HEADER + i] = (uint8_t)rnd();
	/* The CRC is zlib's. */
	CHECK_EQ(spoor_probe_crc32(0, buf + SPOOR_PROBE_IMAGE_HEADER, n),
		 crc32(0, buf + SPOOR_PROBE_IMAGE_HEADER, (uInt)n));
	CHECK_EQ(spoor_probe_crc32(0, "123456789", 9), 0xcbf43926);
	CHECK_EQ(spoor_probe_crc32(spoor_probe_crc32(0, "1234", 4), "56789", 5), 0xcbf43926);
	img.length = (uint32_t)n;
	img.crc32 = spoor_probe_crc32(0, buf + SPOOR_PROBE_IMAGE_HEADER, n);
	CHECK_EQ(spoor_probe_image_header(&img, buf), SPOOR_PROBE_IMAGE_HEADER);
	CHECK_EQ(spoor_probe_image_check(buf, SPOOR_PROBE_IMAGE_HEADER + n, SPOOR_PROBE_TARGET_SIM,
					 &back), 0);
	CHECK_EQ(back.version, 0x020000);
	CHECK_EQ(spoor_probe_image_check(buf, SPOOR_PROBE_IMAGE_HEADER + n, 0x1234, &back),
		 SPOOR_E_BAD_CONFIG);
	CHECK_EQ(spoor_probe_image_check(buf, SPOOR_PROBE_IMAGE_HEADER + n - 1,
					 SPOOR_PROBE_TARGET_SIM, &back), SPOOR_E_TRUNCATED);
	CHECK_EQ(spoor_probe_image_check(buf, 10, SPOOR_PROBE_TARGET_SIM, &back),
		 SPOOR_E_TRUNCATED);
	buf[SPOOR_PROBE_IMAGE_HEADER + 100] ^= 1;
	CHECK_EQ(spoor_probe_image_check(buf, SPOOR_PROBE_IMAGE_HEADER + n, SPOOR_PROBE_TARGET_SIM,
					 &back), SPOOR_E_CHECKSUM);
	buf[SPOOR_PROBE_IMAGE_HEADER + 100] ^= 1;
	buf[9] ^= 1;	/* the version, under the header CRC */
	CHECK_EQ(spoor_probe_image_check(buf, SPOOR_PROBE_IMAGE_HEADER + n, SPOOR_PROBE_TARGET_SIM,
					 &back), SPOOR_E_BAD_HEADER);
	free(buf);
}

/* The TCP binding's SETUP packets and message headers. */
static void test_tcp_binding(void)
{
	struct spoor_probe_setup s = { .request_type = SPOOR_PROBE_DFU_REQTYPE_OUT, .request = 1,
				       .value = 0x1234, .index = SPOOR_PROBE_IF_DFU,
				       .length = 4096 }, s2;
	struct spoor_probe_msg m = { .kind = SPOOR_PROBE_MSG_BULK, .length = SPOOR_PROBE_MSG_MAX }, m2;
	uint8_t b[SPOOR_PROBE_MSG_HEADER];
	static const uint8_t setup_wire[] = { 0x21, 0x01, 0x34, 0x12, 0x01, 0x00, 0x00, 0x10 };

	CHECK_EQ(spoor_probe_setup_encode(&s, b), SPOOR_PROBE_SETUP_SIZE);
	CHECK(!memcmp(b, setup_wire, sizeof(setup_wire)));
	CHECK_EQ(spoor_probe_setup_decode(b, SPOOR_PROBE_SETUP_SIZE, &s2), 0);
	CHECK(s2.request_type == s.request_type && s2.request == s.request &&
	      s2.value == s.value && s2.index == s.index && s2.length == s.length);
	CHECK_EQ(spoor_probe_setup_decode(b, SPOOR_PROBE_SETUP_SIZE - 1, &s2), SPOOR_E_TRUNCATED);

	CHECK_EQ(spoor_probe_msg_encode(&m, b), SPOOR_PROBE_MSG_HEADER);
	CHECK_EQ(b[0], 0x42);
	CHECK_EQ(spoor_probe_msg_decode(b, sizeof(b), &m2), 0);
	CHECK(m2.kind == m.kind && m2.status == 0 && m2.length == m.length);
	CHECK_EQ(spoor_probe_msg_decode(b, sizeof(b) - 1, &m2), SPOOR_E_TRUNCATED);
	b[7] = 0xff;	/* 4 GiB: longer than any message */
	CHECK_EQ(spoor_probe_msg_decode(b, sizeof(b), &m2), SPOOR_E_TOO_BIG);
	m.length++;
	CHECK_EQ(spoor_probe_msg_encode(&m, b), SPOOR_E_INVAL);
	m = (struct spoor_probe_msg){ .kind = SPOOR_PROBE_MSG_CONTROL, .status = SPOOR_PROBE_STALL };
	CHECK_EQ(spoor_probe_msg_encode(&m, b), SPOOR_PROBE_MSG_HEADER);
	CHECK_EQ(spoor_probe_msg_decode(b, sizeof(b), &m2), 0);
	CHECK_EQ(m2.status, SPOOR_PROBE_STALL);
	b[1] = 2;	/* no such status */
	CHECK_EQ(spoor_probe_msg_decode(b, sizeof(b), &m2), SPOOR_E_BAD_FIELD);
	b[1] = 1;
	b[0] = 'B';	/* a bulk message never stalls */
	CHECK_EQ(spoor_probe_msg_decode(b, sizeof(b), &m2), SPOOR_E_BAD_FIELD);
	b[0] = 'X';
	CHECK_EQ(spoor_probe_msg_decode(b, sizeof(b), &m2), SPOOR_E_BAD_FIELD);
	b[0] = 'C';
	b[2] = 1;	/* reserved */
	CHECK_EQ(spoor_probe_msg_decode(b, sizeof(b), &m2), SPOOR_E_BAD_FIELD);
}

int main(int argc, char **argv)
{
	check_args(argc, argv,
		   "Tests for the probe's USB protocol (probe.h): payloads, the bulk stream, images.");
	test_payloads();
	test_stream();
	test_images();
	test_tcp_binding();
	return check_done();
}
