// SPDX-License-Identifier: MIT
/* Capture files on disk: an append-only writer and a record-by-record reader. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "spoor/capture_file.h"
#include "spoor/error.h"

#define RECORD_MAX (SPOOR_CAPTURE_RECORD + SPOOR_CAPTURE_MAX_PAYLOAD + SPOOR_CAPTURE_TRAILER)

struct spoor_capture_writer {
	int fd;
	bool failed;
	uint64_t start_mono;	/* CLOCK_MONOTONIC at the start, ns */
	uint64_t offset;	/* trace bytes so far, lost ones included */
	uint8_t buf[RECORD_MAX];
};

struct spoor_capture_reader {
	int fd;
	uint64_t pos;		/* file offset of the next record */
	struct spoor_capture_header hdr;
	uint8_t *text;
	uint8_t buf[RECORD_MAX];
};

/* Nanoseconds on @clock. */
static uint64_t now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Writes all @len bytes at @buf to @fd; returns 0 or -1 (errno set). */
static int write_all(int fd, const uint8_t *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

int spoor_capture_writer_open(const char *path, const struct spoor_capture_header *h,
			      struct spoor_capture_writer **out, struct spoor_diag *diag)
{
	struct spoor_capture_header hdr;
	struct spoor_capture_writer *w;
	int n;

	if (!path || !h || !out || !diag)
		return SPOOR_E_INVAL;
	w = calloc(1, sizeof(*w));
	if (!w) {
		snprintf(diag->msg, sizeof(diag->msg), "%s: out of memory", path);
		return SPOOR_E_NOMEM;
	}
	hdr = *h;
	if (!hdr.start_ns)
		hdr.start_ns = now_ns(CLOCK_REALTIME);
	w->start_mono = now_ns(CLOCK_MONOTONIC);
	n = spoor_capture_header_encode(&hdr, w->buf, sizeof(w->buf));
	if (n < 0) {
		snprintf(diag->msg, sizeof(diag->msg), "%s: bad capture header: %s", path,
			 spoor_errstr(n));
		free(w);
		return SPOOR_E_INVAL;
	}
	w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (w->fd < 0 || write_all(w->fd, w->buf, (size_t)n)) {
		snprintf(diag->msg, sizeof(diag->msg), "%s: %s", path, strerror(errno));
		if (w->fd >= 0)
			close(w->fd);
		free(w);
		return SPOOR_E_IO;
	}
	*out = w;
	return 0;
}

/* Appends record @r with one write; returns 0 or SPOOR_E_IO. */
static int append(struct spoor_capture_writer *w, struct spoor_capture_record *r)
{
	int n;

	if (w->failed)
		return SPOOR_E_IO;
	r->time_ns = now_ns(CLOCK_MONOTONIC) - w->start_mono;
	r->offset = w->offset;
	n = spoor_capture_record_encode(r, w->buf, sizeof(w->buf));
	if (n < 0 || write_all(w->fd, w->buf, (size_t)n)) {
		w->failed = true;
		return SPOOR_E_IO;
	}
	return 0;
}

int spoor_capture_write_data(struct spoor_capture_writer *w, const uint8_t *buf, size_t len)
{
	struct spoor_capture_record r = { .type = SPOOR_CAPTURE_DATA };

	if (!w || (len && !buf))
		return SPOOR_E_INVAL;
	while (len) {
		r.payload = buf;
		r.len = len < SPOOR_CAPTURE_MAX_PAYLOAD ? len : SPOOR_CAPTURE_MAX_PAYLOAD;
		if (append(w, &r))
			return SPOOR_E_IO;
		w->offset += r.len;
		buf += r.len;
		len -= r.len;
	}
	return 0;
}

int spoor_capture_write_loss(struct spoor_capture_writer *w, uint64_t lost)
{
	struct spoor_capture_record r = { .type = SPOOR_CAPTURE_LOSS, .count = lost };

	if (!w)
		return SPOOR_E_INVAL;
	if (append(w, &r))
		return SPOOR_E_IO;
	/* An unknown loss (a probe away a while): offsets go on as the bytes come. */
	if (lost != SPOOR_CAPTURE_LOST_UNKNOWN)
		w->offset += lost;
	return 0;
}

uint64_t spoor_capture_writer_offset(const struct spoor_capture_writer *w)
{
	return w ? w->offset : 0;
}

int spoor_capture_writer_close(struct spoor_capture_writer *w)
{
	struct spoor_capture_record r = { .type = SPOOR_CAPTURE_END };
	int ret;

	if (!w)
		return SPOOR_E_INVAL;
	r.count = w->offset;
	ret = append(w, &r);
	if (close(w->fd) && !ret)
		ret = SPOOR_E_IO;
	free(w);
	return ret;
}

/* Reads up to @len bytes at file offset @off into @buf; returns the count or -1. */
static ssize_t read_at(int fd, uint8_t *buf, size_t len, uint64_t off)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = pread(fd, buf + got, len - got, (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

int spoor_capture_reader_open(const char *path, struct spoor_capture_reader **out,
			      struct spoor_diag *diag)
{
	struct spoor_capture_reader *r;
	struct stat st;
	ssize_t n;
	int ret;

	if (!path || !out || !diag)
		return SPOOR_E_INVAL;
	r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(diag->msg, sizeof(diag->msg), "%s: out of memory", path);
		return SPOOR_E_NOMEM;
	}
	r->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (r->fd < 0 || fstat(r->fd, &st)) {
		snprintf(diag->msg, sizeof(diag->msg), "%s: %s", path, strerror(errno));
		ret = SPOOR_E_IO;
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(diag->msg, sizeof(diag->msg), "%s: not a regular file", path);
		ret = SPOOR_E_NOT_REGULAR;
		goto fail;
	}
	n = read_at(r->fd, r->buf, SPOOR_CAPTURE_HEADER + SPOOR_CAPTURE_MAX_TEXT, 0);
	ret = n < 0 ? SPOOR_E_IO : spoor_capture_header_decode(r->buf, (size_t)n, &r->hdr);
	if (ret <= 0) {
		if (!ret)
			ret = SPOOR_E_BAD_FORMAT;
		snprintf(diag->msg, sizeof(diag->msg), "%s: %s", path,
			 ret == SPOOR_E_IO ? strerror(errno) : ret == SPOOR_E_BAD_FORMAT ?
			 "not a capture file of a version this spoor reads" :
			 ret == SPOOR_E_TRUNCATED ? "the capture header is cut short" :
			 spoor_errstr(ret));
		goto fail;
	}
	/* The header's text, kept apart from the record buffer. */
	r->text = malloc(r->hdr.text_len + 1);
	if (!r->text) {
		ret = SPOOR_E_NOMEM;
		snprintf(diag->msg, sizeof(diag->msg), "%s: out of memory", path);
		goto fail;
	}
	memcpy(r->text, r->hdr.text, r->hdr.text_len);
	r->text[r->hdr.text_len] = '\0';
	r->hdr.text = (const char *)r->text;
	r->pos = (uint64_t)ret;
	*out = r;
	return 0;
fail:
	spoor_capture_reader_close(r);
	return ret;
}

const struct spoor_capture_header *spoor_capture_reader_header(const struct spoor_capture_reader *r)
{
	return r ? &r->hdr : NULL;
}

int spoor_capture_reader_next(struct spoor_capture_reader *r, struct spoor_capture_record *rec)
{
	ssize_t n;
	int ret;

	if (!r || !rec)
		return SPOOR_E_INVAL;
	n = read_at(r->fd, r->buf, SPOOR_CAPTURE_RECORD, r->pos);
	if (n < 0)
		return SPOOR_E_IO;
	if (n == 0)
		return 0;	/* the file ends after a whole record */
	ret = spoor_capture_record_decode(r->buf, (size_t)n, rec);
	if (ret == SPOOR_E_TRUNCATED && n == SPOOR_CAPTURE_RECORD) {
		/* The header is whole: read the payload and the CRC too. */
		size_t rest = (size_t)(r->buf[4] | r->buf[5] << 8 | r->buf[6] << 16 |
				       (uint32_t)r->buf[7] << 24) + SPOOR_CAPTURE_TRAILER;
		ssize_t m = read_at(r->fd, r->buf + n, rest, r->pos + (uint64_t)n);

		if (m < 0)
			return SPOOR_E_IO;
		ret = spoor_capture_record_decode(r->buf, (size_t)(n + m), rec);
	}
	if (ret < 0)
		return ret;
	r->pos += (uint64_t)ret;
	return rec->type == SPOOR_CAPTURE_END ? 0 : 1;
}

uint64_t spoor_capture_reader_pos(const struct spoor_capture_reader *r)
{
	return r ? r->pos : 0;
}

void spoor_capture_reader_close(struct spoor_capture_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	free(r->text);
	free(r);
}
