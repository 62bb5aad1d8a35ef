// SPDX-License-Identifier: MIT
/*
 * The file: trace source: a capture file (host/CAPTURE.md: its DATA, LOSS
 * and END records handed out as a probe's would be) or a raw stream (a
 * file, a pipe, or - for standard input), read as fast as it comes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "source_driver.h"
#include "spoor/capture_file.h"
#include "spoor/error.h"

#define READ_CHUNK (1 << 20)

struct file_source {
	struct spoor_capture_reader *cap;	/* a capture file, or */
	int fd;					/* a raw stream */
	uint8_t *buf;
	uint64_t offset;			/* raw: bytes so far */
	bool done;
};

static void file_close(struct spoor_source *src)
{
	struct file_source *f = src->priv;

	if (!f)
		return;
	spoor_capture_reader_close(f->cap);
	if (f->fd > 0)
		close(f->fd);
	free(f->buf);
	free(f);
	src->priv = NULL;
}

/* Does @fd (a regular file) start with the capture magic?  Rewinds it. */
static bool has_magic(int fd)
{
	char m[sizeof(SPOOR_CAPTURE_MAGIC) - 1];
	bool yes = pread(fd, m, sizeof(m), 0) == (ssize_t)sizeof(m) &&
		   !memcmp(m, SPOOR_CAPTURE_MAGIC, sizeof(m));

	return yes;
}

static int file_open(struct spoor_source *src, const char *arg, struct spoor_diag *diag)
{
	struct file_source *f;
	struct stat st;
	int ret;

	if (!*arg) {
		snprintf(diag->msg, sizeof(diag->msg), "file: no path given (file:PATH, - for stdin)");
		return SPOOR_E_INVAL;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return SPOOR_E_NOMEM;
	src->priv = f;
	snprintf(src->name, sizeof(src->name), "%s", arg);
	f->fd = strcmp(arg, "-") ? open(arg, O_RDONLY | O_CLOEXEC | O_NONBLOCK) : 0;
	if (f->fd < 0) {
		snprintf(diag->msg, sizeof(diag->msg), "cannot open '%s': %s", arg, strerror(errno));
		ret = SPOOR_E_IO;
		goto fail;
	}
	if (fstat(f->fd, &st) < 0 || S_ISDIR(st.st_mode)) {
		snprintf(diag->msg, sizeof(diag->msg), "%s: %s", arg,
			 S_ISDIR(st.st_mode) ? "is a directory" : strerror(errno));
		ret = S_ISDIR(st.st_mode) ? SPOOR_E_NOT_REGULAR : SPOOR_E_IO;
		goto fail;
	}
	if (S_ISREG(st.st_mode) && has_magic(f->fd)) {
		close(f->fd);
		f->fd = -1;
		ret = spoor_capture_reader_open(arg, &f->cap, diag);
		if (ret < 0)
			goto fail;
		return 0;
	}
	/* A raw stream: blocking reads from here on (a pipe, a FIFO). */
	if (f->fd > 0)
		fcntl(f->fd, F_SETFL, fcntl(f->fd, F_GETFL) & ~O_NONBLOCK);
	f->buf = malloc(READ_CHUNK);
	if (!f->buf) {
		ret = SPOOR_E_NOMEM;
		goto fail;
	}
	return 0;
fail:
	file_close(src);
	return ret;
}

static int file_header(struct spoor_source *src, struct spoor_capture_header *h)
{
	struct file_source *f = src->priv;

	if (!f->cap)
		return SPOOR_E_NOT_FOUND;
	*h = *spoor_capture_reader_header(f->cap);
	return 0;
}

/* Copies the value of "@key=" in the header's text into @out (@size bytes). */
static void text_value(const struct spoor_capture_header *h, const char *key, char *out,
		       size_t size)
{
	size_t kl = strlen(key);
	const char *p = h->text, *end = h->text + h->text_len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t ll = (size_t)((nl ? nl : end) - p);

		if (ll > kl && !memcmp(p, key, kl) && p[kl] == '=') {
			size_t vl = ll - kl - 1 < size - 1 ? ll - kl - 1 : size - 1;

			memcpy(out, p + kl + 1, vl);
			out[vl] = 0;
			return;
		}
		p += ll + 1;
	}
}

static int file_info(struct spoor_source *src, struct spoor_probe_info *info)
{
	struct file_source *f = src->priv;
	char v[32] = "";

	memset(info, 0, sizeof(*info));
	if (!f->cap)
		return 0;
	text_value(spoor_capture_reader_header(f->cap), "serial", info->serial,
		   sizeof(info->serial));
	text_value(spoor_capture_reader_header(f->cap), "firmware", v, sizeof(v));
	info->firmware_version = (uint32_t)strtoul(v, NULL, 0);
	return 0;
}

static int file_configure(struct spoor_source *src, const struct spoor_probe_config *cfg)
{
	(void)src;
	(void)cfg;
	return 0;
}

/* One capture record handed out. */
static int read_capture(struct spoor_source *src, struct file_source *f)
{
	struct spoor_capture_record rec;
	struct spoor_probe_item it = { 0 };
	int ret = spoor_capture_reader_next(f->cap, &rec);

	if (ret < 0) {
		/* What was whole is out; say where the file goes bad, then stop. */
		it.kind = SPOOR_PROBE_ITEM_ERROR;
		it.stream_offset = spoor_capture_reader_pos(f->cap);
		it.reason = ret;
		spoor_source_item(src, &it);
		f->done = true;
		return SPOOR_SOURCE_DONE;
	}
	if (!ret) {
		f->done = true;
		return SPOOR_SOURCE_DONE;
	}
	it.offset = rec.offset;
	switch (rec.type) {
	case SPOOR_CAPTURE_DATA:
		it.kind = SPOOR_PROBE_ITEM_DATA;
		it.data = rec.payload;
		it.len = rec.len;
		break;
	case SPOOR_CAPTURE_LOSS:
		it.kind = SPOOR_PROBE_ITEM_OVERFLOW;
		it.lost = rec.count;
		break;
	case SPOOR_CAPTURE_END:
		it.kind = SPOOR_PROBE_ITEM_END;
		it.offset = rec.count;
		break;
	}
	spoor_source_item(src, &it);
	return SPOOR_SOURCE_MORE;
}

static int file_read(struct spoor_source *src, int timeout_ms)
{
	struct file_source *f = src->priv;
	ssize_t n;

	(void)timeout_ms;
	if (f->done)
		return SPOOR_SOURCE_DONE;
	if (f->cap)
		return read_capture(src, f);
	do
		n = read(f->fd, f->buf, READ_CHUNK);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return SPOOR_E_IO;
	if (!n) {
		f->done = true;
		return SPOOR_SOURCE_DONE;
	}
	spoor_source_bytes(src, f->buf, (size_t)n);
	return SPOOR_SOURCE_MORE;
}

const struct spoor_source_driver spoor_source_file = {
	.name = "file",
	.usage = "file:PATH",
	.help = "a capture file (spoor capture) or a raw trace stream; - for standard input",
	.framing = SPOOR_FRAMING_RAW,
	.live = false,
	.open = file_open,
	.close = file_close,
	.info = file_info,
	.configure = file_configure,
	.header = file_header,
	.read = file_read,
};
