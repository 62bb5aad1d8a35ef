// SPDX-License-Identifier: MIT
/*
 * The tcp: trace source: a spoor probe served over TCP (probe/PROTOCOL.md,
 * "The TCP binding"), such as the sim port's.  Requests go out as SETUP
 * packets; the probe's messages are control replies and bulk IN bytes, the
 * latter kept while a request waits for its reply and handed out at the
 * next read.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "source_driver.h"
#include "spoor/error.h"

#define READ_CHUNK (1 << 20)
#define PENDING_MAX (64u << 20)	/* bulk bytes kept while a request waits */

struct tcp_source {
	int fd;
	char host[256], port[16];
	struct spoor_probe_msg_split split;	/* the messages coming in */
	/* A control reply being read. */
	uint8_t *reply;
	uint16_t reply_max;
	int reply_len;			/* bytes of it, or a negative error; -1000 none yet */
	/* Bulk bytes that came while waiting for a reply. */
	uint8_t *pending;
	size_t npending;
	uint8_t *buf;			/* READ_CHUNK */
};

#define NO_REPLY (-1000)

/* Milliseconds since some fixed point. */
static int64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Connects to the probe at host:port; returns 0 or an error with @diag. */
static int tcp_connect(struct spoor_source *src, struct spoor_diag *diag)
{
	struct tcp_source *t = src->priv;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	int fd = -1, one = 1, err;

	err = getaddrinfo(t->host, t->port, &hints, &res);
	if (err) {
		snprintf(diag->msg, sizeof(diag->msg), "%s: %s", src->name, gai_strerror(err));
		return SPOOR_E_NO_DEVICE;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0)
			continue;
		if (!connect(fd, ai->ai_addr, ai->ai_addrlen))
			break;
		err = errno;
		close(fd);
		fd = -1;
		errno = err;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		snprintf(diag->msg, sizeof(diag->msg), "%s: cannot connect: %s", src->name,
			 strerror(errno));
		return SPOOR_E_NO_DEVICE;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	t->fd = fd;
	memset(&t->split, 0, sizeof(t->split));
	t->npending = 0;
	return 0;
}

static void tcp_close(struct spoor_source *src)
{
	struct tcp_source *t = src->priv;

	if (!t)
		return;
	if (t->fd >= 0)
		close(t->fd);
	free(t->pending);
	free(t->buf);
	free(t);
	src->priv = NULL;
}

static int tcp_open(struct spoor_source *src, const char *arg, struct spoor_diag *diag)
{
	struct tcp_source *t;
	const char *colon = strrchr(arg, ':');
	size_t hl;
	int ret;

	if (!colon || colon == arg || !colon[1] || strlen(colon + 1) >= sizeof(t->port) ||
	    (size_t)(colon - arg) >= sizeof(t->host)) {
		snprintf(diag->msg, sizeof(diag->msg), "tcp:%s: not HOST:PORT", arg);
		return SPOOR_E_INVAL;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return SPOOR_E_NOMEM;
	t->fd = -1;
	t->buf = malloc(READ_CHUNK);
	src->priv = t;
	if (!t->buf) {
		ret = SPOOR_E_NOMEM;
		goto fail;
	}
	hl = (size_t)(colon - arg);
	/* [::1]:PORT */
	if (arg[0] == '[' && hl > 2 && arg[hl - 1] == ']')
		memcpy(t->host, arg + 1, hl - 2);
	else
		memcpy(t->host, arg, hl);
	strcpy(t->port, colon + 1);
	ret = tcp_connect(src, diag);
	if (ret < 0)
		goto fail;
	return 0;
fail:
	tcp_close(src);
	return ret;
}

/* Keeps @n bulk bytes for the next read.  Returns 0 or an error. */
static int keep_bulk(struct tcp_source *t, const uint8_t *b, size_t n)
{
	uint8_t *p;

	if (t->npending + n > PENDING_MAX)
		return SPOOR_E_TOO_BIG;
	p = realloc(t->pending, t->npending + n);
	if (!p)
		return SPOOR_E_NOMEM;
	memcpy(p + t->npending, b, n);
	t->pending = p;
	t->npending += n;
	return 0;
}

/*
 * Takes @n received bytes apart into messages: bulk bytes go to the layer
 * (or are kept when @keep), a control reply into t->reply.  Returns 0 or a
 * protocol error.
 */
static int take(struct spoor_source *src, const uint8_t *b, size_t n, bool keep)
{
	struct tcp_source *t = src->priv;
	struct spoor_probe_msg m;
	const uint8_t *data;
	size_t k;
	int ret;

	while ((ret = spoor_probe_msg_split(&t->split, &b, &n, &m, &data, &k)) > 0) {
		bool control = m.kind == SPOOR_PROBE_MSG_CONTROL;

		switch (ret) {
		case SPOOR_PROBE_SPLIT_HEADER:
			/* A reply nobody asked for, or longer than asked. */
			if (control && (t->reply_len != NO_REPLY || !t->reply ||
					m.length > t->reply_max ||
					(m.status == SPOOR_PROBE_STALL && m.length)))
				return SPOOR_E_PROTOCOL;
			if (control)
				t->reply_len = 0;
			break;
		case SPOOR_PROBE_SPLIT_PAYLOAD:
			if (control) {
				memcpy(t->reply + t->reply_len, data, k);
				t->reply_len += (int)k;
			} else if (keep) {
				ret = keep_bulk(t, data, k);
				if (ret < 0)
					return ret;
			} else {
				spoor_source_bytes(src, data, k);
			}
			break;
		case SPOOR_PROBE_SPLIT_END:
			if (control) {
				if (m.status == SPOOR_PROBE_STALL)
					t->reply_len = SPOOR_E_STALL;
				t->reply = NULL;	/* done */
			}
			break;
		}
	}
	return ret < 0 ? SPOOR_E_PROTOCOL : 0;
}

/* Waits up to @timeout_ms for bytes and takes them.  Returns bytes, 0 on timeout, or an error. */
static int receive(struct spoor_source *src, int timeout_ms, bool keep)
{
	struct tcp_source *t = src->priv;
	struct pollfd pfd = { .fd = t->fd, .events = POLLIN };
	ssize_t n;
	int ret;

	if (t->fd < 0)
		return SPOOR_E_NO_DEVICE;
	ret = poll(&pfd, 1, timeout_ms);
	if (ret < 0)
		return errno == EINTR ? 0 : SPOOR_E_IO;
	if (!ret)
		return 0;
	n = recv(t->fd, t->buf, READ_CHUNK, MSG_DONTWAIT);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 :
		       errno == ECONNRESET ? SPOOR_E_NO_DEVICE : SPOOR_E_IO;
	if (!n) {
		/* The probe went away (the sim's unplug). */
		close(t->fd);
		t->fd = -1;
		return SPOOR_E_NO_DEVICE;
	}
	ret = take(src, t->buf, (size_t)n, keep);
	return ret < 0 ? ret : (int)n;
}

/* Sends all @n bytes.  Returns 0 or an error. */
static int send_all(struct tcp_source *t, const uint8_t *b, size_t n)
{
	while (n) {
		ssize_t k = send(t->fd, b, n, MSG_NOSIGNAL);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return errno == EPIPE || errno == ECONNRESET ? SPOOR_E_NO_DEVICE : SPOOR_E_IO;
		b += k;
		n -= (size_t)k;
	}
	return 0;
}

static int tcp_control(struct spoor_source *src, uint8_t request_type, uint8_t request,
		       uint16_t value, uint16_t index, uint8_t *data, uint16_t len, int timeout_ms)
{
	struct tcp_source *t = src->priv;
	struct spoor_probe_setup s = {
		.request_type = request_type, .request = request,
		.value = value, .index = index, .length = len,
	};
	uint8_t setup[SPOOR_PROBE_SETUP_SIZE];
	bool in = request_type & 0x80;
	int64_t deadline = now_ms() + timeout_ms;
	int ret;

	if (t->fd < 0)
		return SPOOR_E_NO_DEVICE;
	spoor_probe_setup_encode(&s, setup);
	ret = send_all(t, setup, sizeof(setup));
	if (!ret && !in && len)
		ret = send_all(t, data, len);
	if (ret < 0)
		return ret;
	t->reply = in ? data : setup;	/* an OUT request's reply has no data */
	t->reply_max = in ? len : 0;
	t->reply_len = NO_REPLY;
	while (t->reply) {
		int64_t left = deadline - now_ms();

		if (left <= 0) {
			ret = SPOOR_E_TIMEOUT;
			break;
		}
		ret = receive(src, (int)left, true);
		if (ret < 0)
			break;
	}
	t->reply = NULL;
	if (ret < 0) {
		/* The stream's state is unknown now: a late reply would be misread. */
		if (ret != SPOOR_E_NO_DEVICE && t->fd >= 0) {
			close(t->fd);
			t->fd = -1;
		}
		return ret;
	}
	return t->reply_len;
}

static int tcp_read(struct spoor_source *src, int timeout_ms)
{
	struct tcp_source *t = src->priv;
	int ret;

	if (t->npending) {
		/* What came while a request waited, first. */
		size_t n = t->npending;

		t->npending = 0;
		spoor_source_bytes(src, t->pending, n);
		return SPOOR_SOURCE_MORE;
	}
	ret = receive(src, timeout_ms, false);
	if (ret < 0)
		return ret;
	return ret ? SPOOR_SOURCE_MORE : SPOOR_SOURCE_IDLE;
}

/* The sim probe takes a closed connection as a USB reset. */
static int tcp_reset(struct spoor_source *src)
{
	struct tcp_source *t = src->priv;

	if (t->fd >= 0) {
		close(t->fd);
		t->fd = -1;
	}
	return 0;
}

static int tcp_reopen(struct spoor_source *src, struct spoor_diag *diag)
{
	struct tcp_source *t = src->priv;

	if (t->fd >= 0) {
		close(t->fd);
		t->fd = -1;
	}
	return tcp_connect(src, diag);
}

const struct spoor_source_driver spoor_source_tcp = {
	.name = "tcp",
	.usage = "tcp:HOST:PORT",
	.help = "a spoor probe served over TCP (the sim probe: spoor-probe-sim --listen)",
	.framing = SPOOR_FRAMING_RECORDS,
	.live = true,
	.open = tcp_open,
	.close = tcp_close,
	.control = tcp_control,
	.read = tcp_read,
	.reset = tcp_reset,
	.reopen = tcp_reopen,
};
