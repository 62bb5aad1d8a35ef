// SPDX-License-Identifier: MIT
/* One end of a GDB remote-protocol link: see conn.h. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "conn.h"
#include "spoor/error.h"

int gs_conn_init(struct gs_conn *c, int fd, const char *name, size_t max_packet)
{
	struct spoor_rsp_config cfg = { .max_packet = max_packet };

	memset(c, 0, sizeof(*c));
	c->fd = fd;
	c->name = name;
	c->rsp = spoor_rsp_decoder_new(&cfg);
	if (!c->rsp) {
		c->fd = -1;
		close(fd);
		return SPOOR_E_NOMEM;
	}
	return 0;
}

void gs_conn_close(struct gs_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	spoor_rsp_decoder_free(c->rsp);
	c->rsp = NULL;
	free(c->last);
	c->last = NULL;
	c->last_len = c->last_cap = 0;
	c->pending = false;
}

/* Writes all of @len bytes; returns 0 or SPOOR_E_IO. */
static int write_all(struct gs_conn *c, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = write(c->fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return SPOOR_E_IO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Keeps a copy of the packet @buf as the one to resend; returns 0 or SPOOR_E_NOMEM. */
static int remember(struct gs_conn *c, const void *buf, size_t len)
{
	if (c->noack)
		return 0;
	if (len > c->last_cap) {
		uint8_t *n = realloc(c->last, len);

		if (!n)
			return SPOOR_E_NOMEM;
		c->last = n;
		c->last_cap = len;
	}
	memcpy(c->last, buf, len);
	c->last_len = len;
	return 0;
}

/* Logs @len bytes of a packet to or from the peer. */
static void log_packet(const struct gs_conn *c, bool out, const void *bytes, size_t len)
{
	fprintf(stderr, "spoor gdbserver: %s %s %.*s%s\n", out ? "to" : "from", c->name,
		(int)(len < 200 ? len : 200), (const char *)bytes, len < 200 ? "" : "...");
}

int gs_conn_send_raw(struct gs_conn *c, const void *bytes, size_t len, bool is_packet)
{
	int ret;

	if (c->log)
		log_packet(c, true, bytes, len);
	if (c->fd < 0)
		return SPOOR_E_IO;
	if (is_packet) {
		ret = remember(c, bytes, len);
		if (ret)
			return ret;
		c->packets_out++;
	}
	return write_all(c, bytes, len);
}

int gs_conn_send(struct gs_conn *c, const void *body, size_t len)
{
	size_t room = spoor_rsp_frame_bound(len);
	uint8_t stack[4096], *buf = room <= sizeof(stack) ? stack : malloc(room);
	int n, ret;

	if (!buf)
		return SPOOR_E_NOMEM;
	n = spoor_rsp_frame('$', body, len, buf, room);
	ret = n < 0 ? n : gs_conn_send_raw(c, buf, (size_t)n, true);
	if (buf != stack)
		free(buf);
	return ret;
}

int gs_conn_send_str(struct gs_conn *c, const char *body)
{
	return gs_conn_send(c, body, strlen(body));
}

bool gs_conn_ready(const struct gs_conn *c)
{
	struct pollfd p = { .fd = c->fd, .events = POLLIN };

	return c->pending || (c->fd >= 0 && poll(&p, 1, 0) > 0);
}

/* Milliseconds on the monotonic clock. */
static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int gs_conn_next(struct gs_conn *c, struct spoor_rsp_item *it, int timeout_ms)
{
	int64_t deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
	struct pollfd p = { .fd = c->fd, .events = POLLIN };
	ssize_t n;
	int k;

	if (c->fd < 0)
		return SPOOR_E_CLOSED;
	for (;;) {
		while (c->pending) {
			k = spoor_rsp_next(c->rsp, it, sizeof(*it));
			if (k < 0)
				return k;
			if (k == 0) {
				c->pending = false;
				break;
			}
			switch (k) {
			case SPOOR_RSP_ACK:
				continue;
			case SPOOR_RSP_NAK:
				if (!c->noack && c->last_len &&
				    write_all(c, c->last, c->last_len))
					return SPOOR_E_IO;
				continue;
			case SPOOR_RSP_PACKET:
			case SPOOR_RSP_NOTIFY:
				c->packets_in++;
				if (c->log)
					log_packet(c, false, it->raw, it->raw_len);
				if (!c->noack && write_all(c, "+", 1))
					return SPOOR_E_IO;
				return k;
			case SPOOR_RSP_ERROR:
				c->errors++;
				if (it->reason == SPOOR_E_CHECKSUM && !c->noack &&
				    write_all(c, "-", 1))
					return SPOOR_E_IO;
				return k;
			default:
				return k;
			}
		}
		for (;;) {
			int wait = deadline < 0 ? -1 : (int)(deadline - now_ms());

			if (deadline >= 0 && wait < 0)
				wait = 0;
			k = poll(&p, 1, wait);
			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0)
				return SPOOR_E_IO;
			if (k == 0)
				return 0;
			break;
		}
		n = read(c->fd, c->inbuf, sizeof(c->inbuf));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0 && errno != ECONNRESET)
			return SPOOR_E_IO;
		if (n <= 0)
			return SPOOR_E_CLOSED;
		if (spoor_rsp_feed(c->rsp, c->inbuf, (size_t)n))
			return SPOOR_E_INVAL;
		c->pending = true;
	}
}
