// SPDX-License-Identifier: MIT
/*
 * remote_bitbang TCP server for the virtual board's TAP: non-blocking
 * sockets, one client served at a time, answers sent as soon as a chunk of
 * bytes has been handled.  Every pending connection is accepted at once: a
 * newcomer takes the port over from a client that has been silent for
 * SPOOR_BITBANG_IDLE_MS, and is closed at once while the client is busy.
 */
#define _GNU_SOURCE	/* accept4 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "spoor/error.h"
#include "bitbang.h"

/* Bytes read and handled at once. */
#define CHUNK	4096

struct spoor_bitbang {
	struct spoor_jtag *tap;
	int listen_fd;
	int client_fd;		/* -1: no client */
	uint64_t client_seen;	/* when the client last sent bytes (ms, monotonic) */
	unsigned port;
	uint8_t out[CHUNK];	/* answers not sent yet */
	size_t out_len;
	size_t out_off;
};

/* Handles protocol byte @c; returns its answer ('0'/'1'), 0 for none, or 'Q'. */
static int process_byte(struct spoor_jtag *tap, uint8_t c)
{
	if (c >= '0' && c <= '7') {
		unsigned v = c - '0';

		spoor_jtag_pins(tap, v & 4, v & 2, v & 1);
		return 0;
	}
	if (c >= 'r' && c <= 'u') {
		unsigned v = c - 'r';

		spoor_jtag_reset(tap, v & 2, v & 1);
		return 0;
	}
	if (c == 'R')
		return spoor_jtag_tdo(tap) ? '1' : '0';
	if (c == 'Q')
		return 'Q';
	return 0;	/* 'B', 'b' and anything else */
}

int spoor_bitbang_process(struct spoor_jtag *tap, const uint8_t *in, size_t len,
			  uint8_t *out, int *quit)
{
	int n = 0;

	if (!tap || (len && (!in || !out)) || len > (size_t)INT32_MAX)
		return SPOOR_E_INVAL;
	if (quit)
		*quit = 0;
	for (size_t i = 0; i < len; i++) {
		int a = process_byte(tap, in[i]);

		if (a == 'Q') {
			if (quit)
				*quit = 1;
			break;
		}
		if (a)
			out[n++] = (uint8_t)a;
	}
	return n;
}

/* Makes @fd non-blocking; returns 0 or SPOOR_E_IO. */
static int set_nonblock(int fd)
{
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return SPOOR_E_IO;
	return 0;
}

/* Milliseconds on the monotonic clock. */
static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * Opens a non-blocking socket listening on 127.0.0.1:@port (the port in
 * *@bound) with a full backlog; returns the fd or SPOOR_E_IO (errno set).
 */
static int listen_on(unsigned port, unsigned *bound)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	int one = 1;
	int fd;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return SPOOR_E_IO;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons((uint16_t)port);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, SOMAXCONN) < 0 ||
	    set_nonblock(fd) || getsockname(fd, (struct sockaddr *)&sa, &sl) < 0) {
		int err = errno;

		close(fd);
		errno = err;
		return SPOOR_E_IO;
	}
	*bound = ntohs(sa.sin_port);
	return fd;
}

int spoor_bitbang_open(struct spoor_jtag *tap, unsigned port, struct spoor_bitbang **out)
{
	struct spoor_bitbang *bb;
	int fd;

	if (!tap || !out || port > 65535)
		return SPOOR_E_INVAL;
	bb = calloc(1, sizeof(*bb));
	if (!bb)
		return SPOOR_E_NOMEM;
	fd = listen_on(port, &bb->port);
	if (fd < 0) {
		int err = errno;

		free(bb);
		errno = err;
		return fd;
	}
	bb->tap = tap;
	bb->listen_fd = fd;
	bb->client_fd = -1;
	*out = bb;
	return 0;
}

/* Closes the client connection; returns SPOOR_BITBANG_QUIT. */
static int drop_client(struct spoor_bitbang *bb)
{
	if (bb->client_fd >= 0)
		close(bb->client_fd);
	bb->client_fd = -1;
	bb->out_len = 0;
	bb->out_off = 0;
	return SPOOR_BITBANG_QUIT;
}

void spoor_bitbang_close(struct spoor_bitbang *bb)
{
	if (!bb)
		return;
	drop_client(bb);
	close(bb->listen_fd);
	free(bb);
}

unsigned spoor_bitbang_port(const struct spoor_bitbang *bb)
{
	return bb ? bb->port : 0;
}

/* Returns true when the client has closed its end (nothing left to read but the end). */
static bool client_gone(struct spoor_bitbang *bb)
{
	uint8_t c;
	ssize_t n = recv(bb->client_fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);

	return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

/*
 * Accepts every waiting connection: the first becomes the client when there
 * is none or the client has been idle for SPOOR_BITBANG_IDLE_MS (it is
 * closed: a take-over), the others are closed.  Returns the strongest event
 * (SPOOR_BITBANG_TAKEOVER > SPOOR_BITBANG_ACTIVE > SPOOR_BITBANG_REFUSED >
 * SPOOR_BITBANG_NONE) or SPOOR_E_IO.
 */
static int accept_clients(struct spoor_bitbang *bb)
{
	int ret = SPOOR_BITBANG_NONE, one = 1;

	for (;;) {
		int fd = accept4(bb->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		uint64_t now = now_ms();

		if (fd < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ||
			    errno == ECONNABORTED)
				return ret;
			return errno == EMFILE || errno == ENFILE ? ret : SPOOR_E_IO;
		}
		if (bb->client_fd >= 0 && client_gone(bb))
			drop_client(bb);	/* it closed: its end was not read yet */
		if (bb->client_fd >= 0 && now - bb->client_seen < SPOOR_BITBANG_IDLE_MS) {
			close(fd);	/* the client is busy: it keeps the port */
			if (ret == SPOOR_BITBANG_NONE)
				ret = SPOOR_BITBANG_REFUSED;
			continue;
		}
		if (bb->client_fd >= 0) {
			drop_client(bb);
			ret = SPOOR_BITBANG_TAKEOVER;
		} else if (ret != SPOOR_BITBANG_TAKEOVER) {
			ret = SPOOR_BITBANG_ACTIVE;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		bb->client_fd = fd;
		bb->client_seen = now;
	}
}

/* Sends pending answers; returns 0, 1 if some remain, or -1 (connection lost). */
static int flush_out(struct spoor_bitbang *bb)
{
	while (bb->out_off < bb->out_len) {
		ssize_t n = send(bb->client_fd, bb->out + bb->out_off,
				 bb->out_len - bb->out_off, MSG_NOSIGNAL);

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 1;
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		bb->out_off += (size_t)n;
	}
	bb->out_len = 0;
	bb->out_off = 0;
	return 0;
}

/* Reads and handles a chunk of bytes; returns an enum spoor_bitbang_event. */
static int serve_client(struct spoor_bitbang *bb)
{
	uint8_t in[CHUNK];
	ssize_t n = recv(bb->client_fd, in, sizeof(in), 0);
	int quit, a;

	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return SPOOR_BITBANG_NONE;
	if (n <= 0)
		return drop_client(bb);
	bb->client_seen = now_ms();
	a = spoor_bitbang_process(bb->tap, in, (size_t)n, bb->out, &quit);
	bb->out_len = (size_t)a;
	bb->out_off = 0;
	if (flush_out(bb) < 0 || quit)
		return drop_client(bb);
	return SPOOR_BITBANG_ACTIVE;
}

int spoor_bitbang_poll(struct spoor_bitbang *bb, int timeout_ms)
{
	struct pollfd p[2];
	int n, ev = SPOOR_BITBANG_NONE, cev;

	if (!bb)
		return SPOOR_E_INVAL;
	p[0] = (struct pollfd){ .fd = bb->listen_fd, .events = POLLIN };
	p[1] = (struct pollfd){ .fd = bb->client_fd, .events = bb->out_len ? POLLOUT : POLLIN };
	n = poll(p, bb->client_fd >= 0 ? 2 : 1, timeout_ms);
	if (n < 0)
		return errno == EINTR ? SPOOR_BITBANG_NONE : SPOOR_E_IO;
	if (!n)
		return SPOOR_BITBANG_NONE;
	/* The client first: a take-over below would close it. */
	if (bb->client_fd >= 0 && p[1].revents) {
		if (!bb->out_len)
			ev = serve_client(bb);
		else if (flush_out(bb) < 0)
			ev = drop_client(bb);
		else
			ev = SPOOR_BITBANG_ACTIVE;
	}
	if (p[0].revents) {
		cev = accept_clients(bb);
		if (cev < 0)
			return cev;
		/* A new client outranks the old one's end. */
		if (cev == SPOOR_BITBANG_TAKEOVER || cev == SPOOR_BITBANG_ACTIVE ||
		    ev == SPOOR_BITBANG_NONE)
			ev = cev;
	}
	return ev;
}
