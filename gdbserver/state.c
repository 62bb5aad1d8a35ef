// SPDX-License-Identifier: MIT
/* The trace behind the server: see state.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "spoor/error.h"
#include "state.h"

/* Pipeline callbacks (called with the lock held). */
static void on_blocks(void *ctx, uint32_t source, uint64_t offset,
		      const struct spoor_block *blocks, size_t n)
{
	struct gs_state *s = ctx;

	(void)offset;
	spoor_history_add(s->hist, source, blocks, n);
}

static void on_event(void *ctx, const struct spoor_dec_item *it)
{
	struct gs_state *s = ctx;

	switch (it->event.kind) {
	case SPOOR_EV_STOP:
		s->stops++;
		pthread_cond_broadcast(&s->cond);
		break;
	case SPOOR_EV_GAP:
	case SPOOR_EV_LOST:
		s->gaps++;
		spoor_history_gap(s->hist, it->source);
		break;
	default:
		break;
	}
}

static void on_stream(void *ctx, const struct spoor_deframe_item *it)
{
	struct gs_state *s = ctx;

	if (it->kind == SPOOR_DF_SYNC_LOST)
		s->gaps++;
}

static const struct spoor_trace_ops state_ops = {
	.blocks = on_blocks, .event = on_event, .stream = on_stream,
};

int gs_state_init(struct gs_state *s, const struct spoor_trace_config *tcfg, size_t blocks)
{
	memset(s, 0, sizeof(*s));
	s->tcp_fd = -1;
	s->tcfg = *tcfg;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	s->hist = spoor_history_new(blocks);
	s->raw = tmpfile();
	if (!s->hist || !s->raw)
		return SPOOR_E_NOMEM;
	s->trace = spoor_trace_new(&s->tcfg, &state_ops, s);
	return s->trace ? 0 : SPOOR_E_INVAL;
}

void gs_state_free(struct gs_state *s)
{
	gs_state_stop_tcp(s);
	spoor_trace_free(s->trace);
	spoor_history_free(s->hist);
	if (s->raw)
		fclose(s->raw);
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->lock);
	memset(s, 0, sizeof(*s));
	s->tcp_fd = -1;
}

/* gs_state_feed() with the lock held. */
static int feed_locked(struct gs_state *s, const uint8_t *buf, size_t len)
{
	if (s->replay || s->raw_failed || s->raw_full) {
		/* nothing to keep, or keeping stopped */
	} else if (s->bytes + len > GS_RAW_MAX) {
		s->raw_full = true;
		fprintf(stderr, "spoor gdbserver: the trace passed %" PRIu64 " MiB: 'monitor trace "
			"save' can no longer save it (capture it with spoor virt --capture or a "
			"probe)\n", GS_RAW_MAX >> 20);
	} else if (fwrite(buf, 1, len, s->raw) != len) {
		s->raw_failed = true;
	}
	s->bytes += len;
	return spoor_trace_feed(s->trace, buf, len);
}

int gs_state_feed(struct gs_state *s, const uint8_t *buf, size_t len)
{
	int ret;

	pthread_mutex_lock(&s->lock);
	ret = feed_locked(s, buf, len);
	pthread_mutex_unlock(&s->lock);
	return ret;
}

int gs_state_load_file(struct gs_state *s, const char *path)
{
	static uint8_t buf[1 << 16];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), ret = 0;
	struct stat st;
	ssize_t n;

	if (fd < 0)
		return SPOOR_E_IO;
	if (fstat(fd, &st)) {
		ret = errno;
		close(fd);
		errno = ret;
		return SPOOR_E_IO;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return SPOOR_E_NOT_REGULAR;
	}
	pthread_mutex_lock(&s->lock);
	s->replay = path;
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = SPOOR_E_IO;
			break;
		}
		ret = feed_locked(s, buf, (size_t)n);
		if (ret)
			break;
	}
	if (!ret)
		ret = spoor_trace_finish(s->trace);
	pthread_mutex_unlock(&s->lock);
	close(fd);
	return ret;
}

int gs_connect(const char *host_port, char *err, size_t size)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *ai, *p;
	const char *colon = strrchr(host_port, ':');
	char host[256];
	int fd = -1, r, one = 1;

	if (!colon || colon == host_port || (size_t)(colon - host_port) >= sizeof(host) ||
	    !colon[1]) {
		snprintf(err, size, "'%s' is not HOST:PORT", host_port);
		return -1;
	}
	memcpy(host, host_port, (size_t)(colon - host_port));
	host[colon - host_port] = '\0';
	r = getaddrinfo(host, colon + 1, &hints, &ai);
	if (r) {
		snprintf(err, size, "%s: %s", host_port, gai_strerror(r));
		return -1;
	}
	for (p = ai; p; p = p->ai_next) {
		fd = socket(p->ai_family, p->ai_socktype | SOCK_CLOEXEC, p->ai_protocol);
		if (fd < 0)
			continue;
		if (!connect(fd, p->ai_addr, p->ai_addrlen))
			break;
		snprintf(err, size, "cannot connect to %s: %s", host_port, strerror(errno));
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd >= 0)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* The reader thread: the trace port's bytes into the pipeline until it closes. */
static void *tcp_reader(void *arg)
{
	struct gs_state *s = arg;
	uint8_t *buf = malloc(1 << 16);
	ssize_t n;
	int ret = 0;

	while (buf) {
		n = read(s->tcp_fd, buf, 1 << 16);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			pthread_mutex_lock(&s->lock);
			if (n < 0)
				snprintf(s->source_error, sizeof(s->source_error),
					 "reading the trace port: %s", strerror(errno));
			break;
		}
		pthread_mutex_lock(&s->lock);
		ret = feed_locked(s, buf, (size_t)n);
		pthread_mutex_unlock(&s->lock);
		if (ret) {
			pthread_mutex_lock(&s->lock);
			snprintf(s->source_error, sizeof(s->source_error), "decoding: %s",
				 spoor_errstr(ret));
			break;
		}
	}
	if (!buf)
		pthread_mutex_lock(&s->lock);
	/* The stream ended: its last blocks. */
	spoor_trace_finish(s->trace);
	s->source_closed = true;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	free(buf);
	return NULL;
}

int gs_state_start_tcp(struct gs_state *s, const char *host_port, char *err, size_t size)
{
	s->tcp_fd = gs_connect(host_port, err, size);
	if (s->tcp_fd < 0)
		return SPOOR_E_IO;
	if (pthread_create(&s->thread, NULL, tcp_reader, s)) {
		snprintf(err, size, "cannot start the trace reader thread");
		close(s->tcp_fd);
		s->tcp_fd = -1;
		return SPOOR_E_IO;
	}
	s->thread_started = true;
	return 0;
}

void gs_state_stop_tcp(struct gs_state *s)
{
	if (s->thread_started) {
		shutdown(s->tcp_fd, SHUT_RDWR);
		pthread_join(s->thread, NULL);
		s->thread_started = false;
	}
	if (s->tcp_fd >= 0)
		close(s->tcp_fd);
	s->tcp_fd = -1;
}

bool gs_state_wait_stops(struct gs_state *s, uint64_t stops, int timeout_ms)
{
	struct timespec ts;
	bool ok;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += timeout_ms / 1000;
	ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&s->lock);
	while (s->stops <= stops && !s->source_closed)
		if (pthread_cond_timedwait(&s->cond, &s->lock, &ts))
			break;
	ok = s->stops > stops;
	pthread_mutex_unlock(&s->lock);
	return ok;
}

int gs_state_save(struct gs_state *s, const char *path)
{
	uint8_t buf[1 << 15];
	FILE *in, *out;
	size_t n;
	int ret = 0;

	pthread_mutex_lock(&s->lock);
	if (s->raw_full) {
		ret = SPOOR_E_TOO_BIG;
		goto unlock;
	}
	in = s->replay ? fopen(s->replay, "rb") : s->raw;
	if (!in || s->raw_failed || fflush(in)) {
		ret = SPOOR_E_IO;
		goto unlock;
	}
	out = fopen(path, "wb");
	if (!out) {
		ret = SPOOR_E_IO;
		goto close_in;
	}
	rewind(in);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			ret = SPOOR_E_IO;
	if (ferror(in))
		ret = SPOOR_E_IO;
	if (fclose(out))
		ret = SPOOR_E_IO;
	fseek(in, 0, SEEK_END);
close_in:
	if (in != s->raw)
		fclose(in);
unlock:
	pthread_mutex_unlock(&s->lock);
	return ret;
}
