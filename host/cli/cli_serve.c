// SPDX-License-Identifier: MIT
/* The byte-stream server of spoor stream --serve (cli_serve.h). */
#define _GNU_SOURCE	/* accept4() */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli_serve.h"

struct serve_client {
	int fd;
	char name[48];
	uint8_t *q;		/* queued bytes */
	size_t off, len, cap;
};

struct cli_serve {
	const char *cmd;
	int listen_fd;
	struct serve_client c[CLI_SERVE_MAX_CLIENTS];
	unsigned n;
};

struct cli_serve *cli_serve_new(const char *cmd, const char *addr)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	const char *colon = strrchr(addr, ':');
	char host[64] = "127.0.0.1";
	struct cli_serve *s;
	unsigned long port;
	socklen_t len = sizeof(sa);
	int one = 1;

	if (colon) {
		if ((size_t)(colon - addr) >= sizeof(host) || colon == addr) {
			fprintf(stderr, "spoor %s: --serve: bad address '%s'\n", cmd, addr);
			return NULL;
		}
		memcpy(host, addr, (size_t)(colon - addr));
		host[colon - addr] = 0;
	}
	if (!cli_parse_uint(cmd, "--serve", colon ? colon + 1 : addr, 0, 65535, &port))
		return NULL;
	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1) {
		fprintf(stderr, "spoor %s: --serve: '%s' is not an IPv4 address\n", cmd, host);
		return NULL;
	}
	sa.sin_port = htons((uint16_t)port);
	s = calloc(1, sizeof(*s));
	if (!s) {
		fprintf(stderr, "spoor %s: out of memory\n", cmd);
		return NULL;
	}
	s->cmd = cmd;
	s->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->listen_fd < 0)
		goto fail;
	setsockopt(s->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(s->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(s->listen_fd, 16) ||
	    getsockname(s->listen_fd, (struct sockaddr *)&sa, &len))
		goto fail;
	fprintf(stderr, "spoor %s: serving on %s:%u\n", cmd, host, ntohs(sa.sin_port));
	return s;
fail:
	fprintf(stderr, "spoor %s: --serve %s: %s\n", cmd, addr, strerror(errno));
	if (s->listen_fd >= 0)
		close(s->listen_fd);
	free(s);
	return NULL;
}

/* Disconnects client @i (with a message when @why). */
static void drop(struct cli_serve *s, unsigned i, const char *why)
{
	struct serve_client *c = &s->c[i];

	if (why)
		fprintf(stderr, "spoor %s: client %s %s: disconnected\n", s->cmd, c->name, why);
	close(c->fd);
	free(c->q);
	s->c[i] = s->c[--s->n];
	memset(&s->c[s->n], 0, sizeof(s->c[s->n]));
}

void cli_serve_free(struct cli_serve *s)
{
	if (!s)
		return;
	while (s->n)
		drop(s, s->n - 1, NULL);
	close(s->listen_fd);
	free(s);
}

/* Accepts every client waiting. */
static void accept_all(struct cli_serve *s)
{
	struct sockaddr_in peer;
	socklen_t len = sizeof(peer);
	int fd, one = 1;

	while ((fd = accept4(s->listen_fd, (struct sockaddr *)&peer, &len,
			     SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		struct serve_client *c;

		if (s->n == CLI_SERVE_MAX_CLIENTS) {
			fprintf(stderr, "spoor %s: already %d clients; one more refused\n", s->cmd,
				CLI_SERVE_MAX_CLIENTS);
			close(fd);
			continue;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		c = &s->c[s->n++];
		memset(c, 0, sizeof(*c));
		c->fd = fd;
		snprintf(c->name, sizeof(c->name), "%s:%u", inet_ntoa(peer.sin_addr),
			 ntohs(peer.sin_port));
		len = sizeof(peer);
	}
}

/* Sends what client @i's socket takes; false when it was dropped. */
static bool flush_client(struct cli_serve *s, unsigned i)
{
	struct serve_client *c = &s->c[i];

	while (c->off < c->len) {
		ssize_t k = send(c->fd, c->q + c->off, c->len - c->off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (k <= 0) {
			drop(s, i, "went away");
			return false;
		}
		c->off += (size_t)k;
	}
	if (c->off == c->len)
		c->off = c->len = 0;
	return true;
}

void cli_serve_write(struct cli_serve *s, const void *buf, size_t len)
{
	for (unsigned i = s->n; i-- > 0;) {
		struct serve_client *c = &s->c[i];

		if (c->len - c->off + len > CLI_SERVE_BACKLOG) {
			drop(s, i, "fell more than 64 MiB behind");
			continue;
		}
		if (c->off && c->len + len > c->cap) {
			memmove(c->q, c->q + c->off, c->len - c->off);
			c->len -= c->off;
			c->off = 0;
		}
		if (c->len + len > c->cap) {
			size_t cap = c->cap ? c->cap : 65536;
			uint8_t *q;

			while (cap < c->len + len)
				cap *= 2;
			q = realloc(c->q, cap);
			if (!q) {
				drop(s, i, "could not be queued for (out of memory)");
				continue;
			}
			c->q = q;
			c->cap = cap;
		}
		memcpy(c->q + c->len, buf, len);
		c->len += len;
		flush_client(s, i);
	}
}

void cli_serve_poll(struct cli_serve *s, int timeout_ms)
{
	struct pollfd p[CLI_SERVE_MAX_CLIENTS + 1];
	unsigned n = 0;

	p[n++] = (struct pollfd){ .fd = s->listen_fd, .events = POLLIN };
	for (unsigned i = 0; i < s->n; i++)
		p[n++] = (struct pollfd){ .fd = s->c[i].fd,
					  .events = s->c[i].len > s->c[i].off ? POLLOUT : 0 };
	if (poll(p, n, timeout_ms) <= 0)
		return;
	if (p[0].revents)
		accept_all(s);
	for (unsigned k = n; k-- > 1;)
		if (p[k].revents && k - 1 < s->n)
			flush_client(s, k - 1);
}

void cli_serve_drain(struct cli_serve *s, int timeout_ms)
{
	struct timespec t0, t;
	int left = timeout_ms;
	bool pending = true;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (left > 0 && pending) {
		pending = false;
		for (unsigned i = 0; i < s->n; i++)
			pending |= s->c[i].len > s->c[i].off;
		if (pending)
			cli_serve_poll(s, left < 50 ? left : 50);
		clock_gettime(CLOCK_MONOTONIC, &t);
		left = timeout_ms - (int)((t.tv_sec - t0.tv_sec) * 1000 +
					  (t.tv_nsec - t0.tv_nsec) / 1000000);
	}
	for (unsigned i = s->n; i-- > 0;)
		if (s->c[i].len > s->c[i].off)
			drop(s, i, "did not take the end of the stream in time");
}
