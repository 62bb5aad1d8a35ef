// SPDX-License-Identifier: MIT
/*
 * remote_bitbang TCP server for the virtual board's TAP: non-blocking
 * sockets, one client at a time, answers sent as soon as a chunk of bytes
 * has been handled.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "spoor/error.h"
#include "bitbang.h"

/* Bytes read and handled at once. */
#define CHUNK	4096

struct spoor_bitbang {
	struct spoor_jtag *tap;
	int listen_fd;
	int client_fd;		/* -1: no client */
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

/* Opens a non-blocking socket listening on 127.0.0.1:@port (the port in
 * *@bound); returns it or SPOOR_E_IO. */
static int listen_on(unsigned port, unsigned *bound)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	int one = 1;
	int fd;

	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return SPOOR_E_IO;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons((uint16_t)port);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 1) < 0 ||
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
		free(bb);
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

/* Accepts a waiting client; returns an enum spoor_bitbang_event or SPOOR_E_IO. */
static int accept_client(struct spoor_bitbang *bb)
{
	int one = 1;
	int fd = accept(bb->listen_fd, NULL, NULL);

	if (fd < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ||
		    errno == ECONNABORTED)
			return SPOOR_BITBANG_NONE;
		return SPOOR_E_IO;
	}
	if (set_nonblock(fd)) {
		close(fd);
		return SPOOR_BITBANG_NONE;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	bb->client_fd = fd;
	return SPOOR_BITBANG_ACTIVE;
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
	a = spoor_bitbang_process(bb->tap, in, (size_t)n, bb->out, &quit);
	bb->out_len = (size_t)a;
	bb->out_off = 0;
	if (flush_out(bb) < 0 || quit)
		return drop_client(bb);
	return SPOOR_BITBANG_ACTIVE;
}

/* Waits up to @timeout_ms for @events on @fd; returns the revents, 0, or SPOOR_E_IO. */
static int wait_fd(int fd, short events, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = events };
	int r = poll(&p, 1, timeout_ms);

	if (r < 0)
		return errno == EINTR ? 0 : SPOOR_E_IO;
	return r ? p.revents : 0;
}

int spoor_bitbang_poll(struct spoor_bitbang *bb, int timeout_ms)
{
	int ev;

	if (!bb)
		return SPOOR_E_INVAL;
	if (bb->client_fd < 0) {
		ev = wait_fd(bb->listen_fd, POLLIN, timeout_ms);
		if (ev <= 0)
			return ev;
		return accept_client(bb);
	}
	ev = wait_fd(bb->client_fd, bb->out_len ? POLLOUT : POLLIN, timeout_ms);
	if (ev < 0)
		return drop_client(bb);
	if (!ev)
		return SPOOR_BITBANG_NONE;
	if (bb->out_len) {
		int r = flush_out(bb);

		if (r < 0)
			return drop_client(bb);
		return SPOOR_BITBANG_ACTIVE;
	}
	return serve_client(bb);
}
