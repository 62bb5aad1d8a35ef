// SPDX-License-Identifier: MIT
/*
 * The sim port's TCP front (probe/PROTOCOL.md, "The TCP binding"): one host
 * at a time sends USB SETUP packets (and OUT data) and gets one control
 * reply each, in order, with the bulk IN stream in messages of up to 1 MiB
 * between them whenever the device model has bytes.  A message is taken
 * from the model only when the last one has gone out, so a slow host
 * leaves the bytes in the probe's buffer: it fills, and the model reports
 * the overflow as a real probe would.
 *
 * A TCP connection is a USB plug-in: when the host goes, the probe is
 * reset (sim_probe_reset(): a capture is dropped; after DETACH the next
 * host finds it in DFU mode; from DFU mode, the image committed last runs).
 * Fault injection: --unplug-after closes the connection after that many
 * bulk bytes and refuses connections for --replug-ms; --stall-after stops
 * answering control requests on a connection after that many.
 */
#include <errno.h>
#include <fcntl.h>
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

#include "sim.h"
#include "sim_front.h"
#include "spoor/error.h"

#define TCP_IN_MAX (SPOOR_PROBE_SETUP_SIZE + 65535)		/* a request and its OUT data */
#define TCP_REPLY_MAX (SPOOR_PROBE_MSG_HEADER + 65535)		/* a control reply */
#define TCP_OUT_CAP (SPOOR_PROBE_MSG_HEADER + SPOOR_PROBE_MSG_MAX + 4 * TCP_REPLY_MAX)
#define TCP_POLL_MS 100		/* the loop looks at *stop this often */
#define TCP_SNDBUF (256 << 10)	/* the socket's send buffer (the kernel doubles it) */
#define TCP_PUMP_ROUNDS 8	/* bulk messages sent in a row before requests are read again */

struct sim_tcp {
	struct sim_probe *p;
	const struct sim_options *o;
	char host[256];
	unsigned port;
	int lfd, cfd;			/* listening socket (-1: unplugged), the host's */
	uint8_t *in;			/* request bytes received: in[0, in_len) */
	size_t in_len;
	uint8_t *out;			/* messages to send: out[out_off, out_len) */
	size_t out_len, out_off;
	uint8_t ctl[65535];		/* IN data of a request */
	uint32_t answered;		/* control requests answered on this connection */
	uint64_t bulk_sent;		/* bulk bytes sent (towards --unplug-after) */
	bool unplugged;			/* the unplug happened (it happens once) */
	bool replug_due, listen_failed;
	struct timespec replug_at;
};

/* Returns milliseconds from now until @t on the monotonic clock (may be negative). */
static long ms_until(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (long)(t->tv_sec - now.tv_sec) * 1000 + (t->tv_nsec - now.tv_nsec) / 1000000;
}

/* Opens a non-blocking socket listening on @host:@port; returns it, or -1 (errno set). */
static int listen_on(const char *host, unsigned port, unsigned *bound)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
	struct addrinfo *ai, *a;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char serv[16];
	int fd = -1, one = 1, saved = 0;

	snprintf(serv, sizeof(serv), "%u", port);
	if (getaddrinfo(host, serv, &hints, &ai)) {
		errno = EADDRNOTAVAIL;
		return -1;
	}
	for (a = ai; a; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
			    a->ai_protocol);
		if (fd < 0)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (!bind(fd, a->ai_addr, a->ai_addrlen) && !listen(fd, 4))
			break;
		saved = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd < 0) {
		errno = saved ? saved : EADDRNOTAVAIL;
		return -1;
	}
	if (getsockname(fd, (struct sockaddr *)&ss, &sl)) {
		close(fd);
		return -1;
	}
	*bound = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port :
						  ((struct sockaddr_in *)&ss)->sin_port);
	return fd;
}

int sim_tcp_open(struct sim_probe *p, const struct sim_options *o, const char *host,
		 unsigned port, struct sim_tcp **out, char *why, size_t why_size)
{
	struct sim_tcp *t;

	if (!p || !o || !out || port > 65535)
		return SPOOR_E_INVAL;
	if (!host)
		host = "127.0.0.1";
	if (strlen(host) >= sizeof(t->host)) {
		snprintf(why, why_size, "host name too long");
		return SPOOR_E_INVAL;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return SPOOR_E_NOMEM;
	t->p = p;
	t->o = o;
	t->cfd = -1;
	strcpy(t->host, host);
	t->in = malloc(TCP_IN_MAX);
	t->out = malloc(TCP_OUT_CAP);
	t->lfd = listen_on(host, port, &t->port);
	if (!t->in || !t->out || t->lfd < 0) {
		int err = t->lfd < 0 ? SPOOR_E_IO : SPOOR_E_NOMEM;

		if (t->lfd < 0)
			snprintf(why, why_size, "cannot listen on %s:%u: %s", host, port,
				 strerror(errno));
		sim_tcp_close(t);
		return err;
	}
	*out = t;
	return 0;
}

unsigned sim_tcp_port(const struct sim_tcp *t)
{
	return t ? t->port : 0;
}

void sim_tcp_close(struct sim_tcp *t)
{
	if (!t)
		return;
	if (t->cfd >= 0)
		close(t->cfd);
	if (t->lfd >= 0)
		close(t->lfd);
	free(t->in);
	free(t->out);
	free(t);
}

/* The host went (or was unplugged): the probe resets as a replugged USB device would. */
static void drop_host(struct sim_tcp *t)
{
	close(t->cfd);
	t->cfd = -1;
	t->in_len = t->out_len = t->out_off = 0;
	t->answered = 0;
	sim_probe_reset(t->p);
}

/* Reads what the host sent; returns 0, or 1 when it closed (or failed). */
static int read_host(struct sim_tcp *t)
{
	while (t->in_len < TCP_IN_MAX) {
		ssize_t n = recv(t->cfd, t->in + t->in_len, TCP_IN_MAX - t->in_len, 0);

		if (n > 0) {
			t->in_len += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : 1;
	}
	return 0;
}

/* Appends a message header (@kind, @status, @len) to the output. */
static void put_header(struct sim_tcp *t, uint8_t kind, uint8_t status, uint32_t len)
{
	struct spoor_probe_msg m = { .kind = kind, .status = status, .length = len };

	spoor_probe_msg_encode(&m, t->out + t->out_len);
	t->out_len += SPOOR_PROBE_MSG_HEADER;
}

/* Answers every whole request received, in order, while the replies fit. */
static void serve_requests(struct sim_tcp *t)
{
	size_t used = 0;

	while (t->in_len - used >= SPOOR_PROBE_SETUP_SIZE &&
	       TCP_OUT_CAP - t->out_len >= TCP_REPLY_MAX) {
		struct spoor_probe_setup s;
		uint8_t *req = t->in + used, *data;
		size_t need;
		int r;

		spoor_probe_setup_decode(req, SPOOR_PROBE_SETUP_SIZE, &s);
		need = SPOOR_PROBE_SETUP_SIZE + (s.request_type & 0x80 ? 0 : s.length);
		if (t->in_len - used < need)
			break;
		used += need;
		/* --stall-after: the firmware no longer answers (the host times out). */
		if (t->o->stall_after && t->answered >= t->o->stall_after)
			continue;
		data = s.request_type & 0x80 ? t->ctl : req + SPOOR_PROBE_SETUP_SIZE;
		r = sim_probe_control(t->p, &s, data);
		if (r < 0) {
			put_header(t, SPOOR_PROBE_MSG_CONTROL, SPOOR_PROBE_STALL, 0);
		} else {
			if (!(s.request_type & 0x80))
				r = 0;
			put_header(t, SPOOR_PROBE_MSG_CONTROL, SPOOR_PROBE_ACK, (uint32_t)r);
			memcpy(t->out + t->out_len, t->ctl, (size_t)r);
			t->out_len += (size_t)r;
		}
		t->answered++;
	}
	memmove(t->in, t->in + used, t->in_len - used);
	t->in_len -= used;
}

/*
 * Takes a new connection: the host, or a second one while the host is
 * there, closed at once.  A host that has just gone (its close not seen
 * yet) is done with first.
 */
static void accept_host(struct sim_tcp *t)
{
	int fd = accept(t->lfd, NULL, NULL), one = 1, sndbuf = TCP_SNDBUF;

	if (fd < 0)
		return;
	if (t->cfd >= 0 && read_host(t)) {
		serve_requests(t);
		drop_host(t);
	}
	if (t->cfd >= 0) {
		close(fd);	/* one host at a time */
		return;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC)) {
		close(fd);
		return;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* Little in flight, as on USB: a slow host leaves the bytes in the probe's buffer. */
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	t->cfd = fd;
}

/* Queues the next bulk message when the output is empty; returns true if one was queued. */
static bool queue_bulk(struct sim_tcp *t)
{
	size_t max = SPOOR_PROBE_MSG_MAX, n;
	uint64_t left = 0;

	if (t->out_len)
		return false;
	if (t->o->unplug_after && !t->unplugged) {
		left = t->o->unplug_after - t->bulk_sent;
		if (left < max)
			max = left < 64 ? 64 : (size_t)left;
	}
	n = sim_probe_bulk_in(t->p, t->out + SPOOR_PROBE_MSG_HEADER, max);
	if (!n)
		return false;
	/* An unplug cuts the stream where it happens: the rest is gone with the capture. */
	if (left && n > left)
		n = (size_t)left;
	put_header(t, SPOOR_PROBE_MSG_BULK, 0, (uint32_t)n);
	t->out_len += n;
	t->bulk_sent += n;
	return true;
}

/* Sends what is queued; returns 0, or 1 when the host is gone. */
static int send_out(struct sim_tcp *t)
{
	while (t->out_off < t->out_len) {
		ssize_t n = send(t->cfd, t->out + t->out_off, t->out_len - t->out_off, MSG_NOSIGNAL);

		if (n > 0) {
			t->out_off += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : 1;
	}
	t->out_len = t->out_off = 0;
	return 0;
}

/* --unplug-after: the cable is pulled; connections are refused until the replug. */
static void unplug(struct sim_tcp *t)
{
	fprintf(stderr, "spoor-probe-sim: unplugged after %llu bulk bytes\n",
		(unsigned long long)t->bulk_sent);
	t->unplugged = true;
	/* Gone from the bus before the host can notice: no connection in between. */
	close(t->lfd);
	t->lfd = -1;
	drop_host(t);
	if (t->o->replug_ms) {
		clock_gettime(CLOCK_MONOTONIC, &t->replug_at);
		t->replug_at.tv_sec += t->o->replug_ms / 1000;
		t->replug_at.tv_nsec += (long)(t->o->replug_ms % 1000) * 1000000L;
		if (t->replug_at.tv_nsec >= 1000000000L) {
			t->replug_at.tv_sec++;
			t->replug_at.tv_nsec -= 1000000000L;
		}
		t->replug_due = true;
	}
}

/* Listens again after an unplug once --replug-ms passed; returns the poll timeout to use. */
static int replug(struct sim_tcp *t)
{
	unsigned port;
	long ms;

	if (!t->replug_due)
		return TCP_POLL_MS;
	ms = ms_until(&t->replug_at);
	if (ms > 0)
		return ms < TCP_POLL_MS ? (int)ms : TCP_POLL_MS;
	t->lfd = listen_on(t->host, t->port, &port);
	if (t->lfd < 0) {
		if (!t->listen_failed)
			fprintf(stderr, "spoor-probe-sim: cannot listen again on %s:%u: %s "
				"(retrying)\n", t->host, t->port, strerror(errno));
		t->listen_failed = true;
		return TCP_POLL_MS;
	}
	fprintf(stderr, "spoor-probe-sim: plugged in again\n");
	t->replug_due = false;
	return TCP_POLL_MS;
}

/* Moves bulk bytes to the host while it takes them; returns 0, or 1 when it is gone. */
static int pump(struct sim_tcp *t)
{
	for (int i = 0; i < TCP_PUMP_ROUNDS; i++) {
		bool queued = queue_bulk(t);

		if (send_out(t))
			return 1;
		if (t->o->unplug_after && !t->unplugged && t->bulk_sent >= t->o->unplug_after &&
		    !t->out_len) {
			unplug(t);
			return 0;
		}
		if (!queued || t->out_len)
			break;
	}
	return 0;
}

int sim_tcp_serve(struct sim_tcp *t, volatile sig_atomic_t *stop)
{
	int efd;

	if (!t || !stop)
		return SPOOR_E_INVAL;
	efd = sim_probe_event_fd(t->p);
	while (!*stop) {
		struct pollfd fds[3];
		int nfds = 0, li = -1, ci = -1, timeout = TCP_POLL_MS;
		bool gone = false;

		if (t->lfd < 0)
			timeout = replug(t);
		if (t->lfd >= 0) {
			li = nfds;
			fds[nfds++] = (struct pollfd){ .fd = t->lfd, .events = POLLIN };
		}
		if (t->cfd >= 0) {
			ci = nfds;
			fds[nfds++] = (struct pollfd){
				.fd = t->cfd,
				.events = (short)((t->in_len < TCP_IN_MAX ? POLLIN : 0) |
						  (t->out_len ? POLLOUT : 0)),
			};
			/* Bulk bytes are wanted only once the last message went out. */
			if (!t->out_len)
				fds[nfds++] = (struct pollfd){ .fd = efd, .events = POLLIN };
		}
		if (poll(fds, (nfds_t)nfds, timeout) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "spoor-probe-sim: poll: %s\n", strerror(errno));
			return SPOOR_E_IO;
		}
		if (t->cfd >= 0) {
			if (ci >= 0 && (fds[ci].revents & (POLLIN | POLLHUP | POLLERR)))
				gone = read_host(t);
			/* Requests before the host's close still count (DETACH, then goodbye). */
			serve_requests(t);
			if (!gone)
				gone = pump(t);
			if (gone && t->cfd >= 0)
				drop_host(t);
		}
		if (li >= 0 && t->lfd >= 0 && fds[li].revents)
			accept_host(t);
	}
	return 0;
}
