// SPDX-License-Identifier: MIT
/* Tests for capture files: the codec (capture.h) and the file writer and reader (capture_file.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "rng.h"
#include "spoor/capture.h"
#include "spoor/capture_file.h"
#include "spoor/error.h"

static char tmpdir[] = "/tmp/spoor-capture-XXXXXX";

/* A header: Siemens, src_bits 6, and some text. */
static struct spoor_capture_header header(void)
{
	static const char text[] = "board=boards/virt-rv64.ini\nprobe=tcp:127.0.0.1:4000\n";
	struct spoor_capture_header h = { .start_ns = 1764000000123456789ull, .text = text,
					  .text_len = sizeof(text) - 1 };

	spoor_encap_config_init(&h.encap, SPOOR_ENCAP_SIEMENS);
	return h;
}

/* The codec: round trips, every cut, every flipped byte. */
static void test_codec(void)
{
	struct spoor_capture_header h = header(), g;
	struct spoor_capture_record r = { .type = SPOOR_CAPTURE_DATA, .time_ns = 5, .offset = 77 }, q;
	static uint8_t buf[4096];
	uint8_t data[300];
	int n, m;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)rnd();
	n = spoor_capture_header_encode(&h, buf, sizeof(buf));
	CHECK_EQ(n, SPOOR_CAPTURE_HEADER + h.text_len);
	CHECK_EQ(spoor_capture_header_decode(buf, (size_t)n, &g), n);
	CHECK_EQ(g.start_ns, h.start_ns);
	CHECK_EQ(g.encap.kind, SPOOR_ENCAP_SIEMENS);
	CHECK_EQ(g.encap.src_bits, 6);
	CHECK(g.text_len == h.text_len && !memcmp(g.text, h.text, h.text_len));
	for (int cut = 0; cut < n; cut++)
		CHECK_EQ(spoor_capture_header_decode(buf, (size_t)cut, &g), SPOOR_E_TRUNCATED);
	for (int i = 8; i < n; i++) {
		buf[i] ^= 0x40;
		m = spoor_capture_header_decode(buf, (size_t)n, &g);
		CHECK(m == SPOOR_E_CHECKSUM || (i >= 12 && i < 16 && m < 0));
		buf[i] ^= 0x40;
	}
	/* Not a capture: a raw stream. */
	CHECK_EQ(spoor_capture_header_decode((const uint8_t *)"\x06\x81\x32", 3, &g), 0);
	CHECK_EQ(spoor_capture_header_decode((const uint8_t *)"SPOORCAT and more bytes", 23, &g), 0);
	CHECK_EQ(spoor_capture_header_encode(&h, buf, 10), SPOOR_E_NOSPACE);

	r.payload = data;
	r.len = sizeof(data);
	n = spoor_capture_record_encode(&r, buf, sizeof(buf));
	CHECK_EQ(n, spoor_capture_record_size(&r));
	CHECK_EQ(spoor_capture_record_decode(buf, (size_t)n, &q), n);
	CHECK(q.type == SPOOR_CAPTURE_DATA && q.len == sizeof(data) && q.offset == 77 &&
	      q.time_ns == 5 && !memcmp(q.payload, data, sizeof(data)));
	for (int cut = 0; cut < n; cut++)
		CHECK_EQ(spoor_capture_record_decode(buf, (size_t)cut, &q),
			 cut >= 8 && buf[0] > 3 ? SPOOR_E_BAD_FIELD : SPOOR_E_TRUNCATED);
	for (int i = 8; i < n; i++) {
		buf[i] ^= 1;
		CHECK_EQ(spoor_capture_record_decode(buf, (size_t)n, &q), SPOOR_E_CHECKSUM);
		buf[i] ^= 1;
	}
	buf[0] = 9;
	CHECK_EQ(spoor_capture_record_decode(buf, (size_t)n, &q), SPOOR_E_BAD_FIELD);
	r = (struct spoor_capture_record){ .type = SPOOR_CAPTURE_LOSS, .count = 1234, .offset = 9 };
	n = spoor_capture_record_encode(&r, buf, sizeof(buf));
	CHECK_EQ(spoor_capture_record_decode(buf, (size_t)n, &q), n);
	CHECK(q.type == SPOOR_CAPTURE_LOSS && q.count == 1234 && q.offset == 9);
	r.type = 7;
	CHECK_EQ(spoor_capture_record_encode(&r, buf, sizeof(buf)), SPOOR_E_INVAL);
}

/* Writes a capture: data, a loss, more data, the end; returns the trace bytes written. */
static size_t write_capture(const char *path, uint8_t *trace, size_t len)
{
	struct spoor_capture_header h = header();
	struct spoor_capture_writer *w;
	struct spoor_diag d;

	CHECK_EQ(spoor_capture_writer_open(path, &h, &w, &d), 0);
	CHECK_EQ(spoor_capture_write_data(w, trace, len / 2), 0);
	CHECK_EQ(spoor_capture_write_loss(w, 1000), 0);
	CHECK_EQ(spoor_capture_write_data(w, trace + len / 2, len - len / 2), 0);
	CHECK_EQ(spoor_capture_writer_offset(w), len + 1000);
	CHECK_EQ(spoor_capture_writer_close(w), 0);
	return len;
}

/* Reads @path back: the trace bytes into @got, the loss; returns the last next() result. */
static int read_capture(const char *path, uint8_t *got, size_t *n, uint64_t *lost, bool *ended)
{
	struct spoor_capture_record rec;
	struct spoor_capture_reader *r;
	struct spoor_diag d;
	int ret;

	*n = 0;
	*lost = 0;
	*ended = false;
	ret = spoor_capture_reader_open(path, &r, &d);
	if (ret)
		return ret;
	while ((ret = spoor_capture_reader_next(r, &rec)) > 0) {
		if (rec.type == SPOOR_CAPTURE_DATA) {
			CHECK_EQ(rec.offset, *n + *lost);
			memcpy(got + *n, rec.payload, rec.len);
			*n += rec.len;
		} else {
			*lost += rec.count;
		}
	}
	*ended = !ret && rec.type == SPOOR_CAPTURE_END;
	spoor_capture_reader_close(r);
	return ret;
}

/* The file: round trip, a file cut at every length reads to its last whole record. */
static void test_file(void)
{
	enum { LEN = 3u << 20 };	/* more than one record's payload */
	uint8_t *trace = malloc(LEN), *got = malloc(LEN + 16);
	char path[300], cut[300], cmd[700];
	struct spoor_capture_reader *r;
	struct spoor_diag d;
	uint64_t lost;
	size_t n, prev = 0;
	bool ended;
	FILE *f;
	long size;

	for (size_t i = 0; i < LEN; i++)
		trace[i] = (uint8_t)rnd();
	snprintf(path, sizeof(path), "%s/a.cap", tmpdir);
	write_capture(path, trace, LEN);
	CHECK_EQ(read_capture(path, got, &n, &lost, &ended), 0);
	CHECK(n == LEN && !memcmp(got, trace, LEN) && lost == 1000 && ended);
	CHECK_EQ(spoor_capture_reader_open(path, &r, &d), 0);
	CHECK(!strncmp(spoor_capture_reader_header(r)->text, "board=boards/virt-rv64.ini\n", 27));
	CHECK_EQ(spoor_capture_reader_header(r)->encap.kind, SPOOR_ENCAP_SIEMENS);
	spoor_capture_reader_close(r);
	/* Cut anywhere: what was read is a prefix of the trace, and grows with the file. */
	f = fopen(path, "rb");
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fclose(f);
	snprintf(cut, sizeof(cut), "%s/cut.cap", tmpdir);
	for (long at = SPOOR_CAPTURE_HEADER + 60; at < size; at += 1 + rnd_below(400000)) {
		int ret;

		snprintf(cmd, sizeof(cmd), "head -c %ld %s > %s", at, path, cut);
		CHECK_EQ(system(cmd), 0);
		ret = read_capture(cut, got, &n, &lost, &ended);
		CHECK(ret == SPOOR_E_TRUNCATED || ret == 0);
		CHECK(!ended);
		CHECK(n <= LEN && !memcmp(got, trace, n));
		CHECK(n >= prev || lost);
		prev = n;
	}
	/* Not a capture file, a directory, a missing file. */
	snprintf(cmd, sizeof(cmd), "printf 'raw bytes' > %s/raw.bin", tmpdir);
	CHECK_EQ(system(cmd), 0);
	snprintf(cut, sizeof(cut), "%s/raw.bin", tmpdir);
	CHECK_EQ(spoor_capture_reader_open(cut, &r, &d), SPOOR_E_BAD_FORMAT);
	CHECK(strstr(d.msg, "raw.bin: not a capture file"));
	CHECK_EQ(spoor_capture_reader_open(tmpdir, &r, &d), SPOOR_E_NOT_REGULAR);
	CHECK_EQ(spoor_capture_reader_open("/nonexistent.cap", &r, &d), SPOOR_E_IO);
	CHECK(strstr(d.msg, "No such file"));
	free(trace);
	free(got);
}

int main(int argc, char **argv)
{
	char cmd[64];

	check_args(argc, argv, "Tests for capture files: the codec, the writer and the reader.");
	if (!mkdtemp(tmpdir))
		return 1;
	test_codec();
	test_file();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd))
		return 1;
	return check_done();
}
