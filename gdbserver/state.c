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

#include "spoor/encap.h"
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
	gs_state_stop_probe(s);
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

/* What reading a replayed file hands on (called with the lock held). */
struct load_ctx {
	struct gs_state *s;
	const char *path;
	int ret;
};

/* A replayed file's trace bytes: into the pipeline. */
static void load_data(void *arg, uint64_t offset, const uint8_t *buf, size_t len)
{
	struct load_ctx *l = arg;

	(void)offset;
	if (!l->ret)
		l->ret = feed_locked(l->s, buf, len);
}

/* A capture's LOSS record: a gap. */
static void load_loss(void *arg, uint64_t offset, uint64_t lost)
{
	struct load_ctx *l = arg;

	(void)offset;
	l->s->losses++;
	if (!l->ret)
		l->ret = spoor_trace_gap(l->s->trace, lost);
}

/* A capture that goes bad: a warning; it is read up to there. */
static void load_error(void *arg, uint64_t at, int reason, const char *what)
{
	struct load_ctx *l = arg;

	(void)reason;
	l->s->replay_damaged = true;
	fprintf(stderr, "spoor gdbserver: warning: %s: file offset %" PRIu64 ": %s; read up to "
		"there\n", l->path, at, what);
}

int gs_state_load_file(struct gs_state *s, const char *path, char *err, size_t size)
{
	static const struct spoor_source_ops ops = {
		.data = load_data, .loss = load_loss, .error = load_error,
	};
	struct load_ctx l = { .s = s, .path = path };
	struct spoor_capture_header h;
	struct spoor_source *src;
	struct spoor_diag diag;
	struct stat st;
	char *spec;
	int ret;

	if (stat(path, &st)) {
		snprintf(err, size, "%s: %s", path, strerror(errno));
		return SPOOR_E_IO;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, size, "%s: %s", path, spoor_errstr(SPOOR_E_NOT_REGULAR));
		return SPOOR_E_NOT_REGULAR;
	}
	/* "file:" first: a file named like a probe ("usb") is still a file. */
	spec = malloc(strlen(path) + 6);
	if (!spec) {
		snprintf(err, size, "%s: %s", path, spoor_errstr(SPOOR_E_NOMEM));
		return SPOOR_E_NOMEM;
	}
	sprintf(spec, "file:%s", path);
	ret = spoor_source_open(spec, &src, &diag);
	free(spec);
	if (ret < 0) {
		snprintf(err, size, "%s", diag.msg);
		return ret;
	}
	pthread_mutex_lock(&s->lock);
	s->replay = path;
	s->replay_capture = !spoor_source_header(src, &h);
	do
		ret = spoor_source_poll(src, -1, &ops, &l);
	while (ret == SPOOR_SOURCE_MORE && !l.ret);
	if (ret < 0 && !l.ret) {
		snprintf(err, size, "reading %s: %s", path,
			 ret == SPOOR_E_IO ? strerror(errno) : spoor_errstr(ret));
		l.ret = ret;
	} else if (l.ret) {
		snprintf(err, size, "%s: decoding: %s", path, spoor_errstr(l.ret));
	}
	if (!l.ret) {
		l.ret = spoor_trace_finish(s->trace);
		if (l.ret)
			snprintf(err, size, "%s: decoding: %s", path, spoor_errstr(l.ret));
	}
	pthread_mutex_unlock(&s->lock);
	spoor_source_close(src);
	return l.ret;
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
	if (s->thread_started && s->tcp_fd >= 0) {
		shutdown(s->tcp_fd, SHUT_RDWR);
		pthread_join(s->thread, NULL);
		s->thread_started = false;
	}
	if (s->tcp_fd >= 0)
		close(s->tcp_fd);
	s->tcp_fd = -1;
}

/* Milliseconds on the monotonic clock. */
static int64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* A loss of @lost bytes at trace offset @offset: a gap in the pipeline (lock held). */
static void probe_gap_locked(struct gs_state *s, uint64_t offset, uint64_t lost)
{
	int ret = spoor_trace_gap(s->trace, lost);

	s->losses++;
	if (ret)
		snprintf(s->source_error, sizeof(s->source_error), "decoding: %s",
			 spoor_errstr(ret));
	if (lost != SPOOR_SOURCE_LOST_UNKNOWN)
		fprintf(stderr, "spoor gdbserver: %s: %" PRIu64 " trace bytes lost at trace offset %"
			PRIu64 " (the probe's buffer overflowed): a gap in the history\n",
			spoor_source_name(s->probe), lost, offset);
}

/* The probe's trace bytes: into the pipeline and the raw copy. */
static void probe_data(void *ctx, uint64_t offset, const uint8_t *buf, size_t len)
{
	struct gs_state *s = ctx;
	int ret;

	pthread_mutex_lock(&s->lock);
	/* Bytes missing that no overflow announced: a loss all the same. */
	if (offset > s->probe_next && s->probe_bytes)
		probe_gap_locked(s, s->probe_next, offset - s->probe_next);
	s->probe_bytes += len;
	s->probe_next = offset + len;
	ret = feed_locked(s, buf, len);
	if (ret && !s->source_error[0])
		snprintf(s->source_error, sizeof(s->source_error), "decoding: %s",
			 spoor_errstr(ret));
	pthread_mutex_unlock(&s->lock);
}

/* The probe lost bytes (an overflow, an unplug): a gap. */
static void probe_loss(void *ctx, uint64_t offset, uint64_t lost)
{
	struct gs_state *s = ctx;

	pthread_mutex_lock(&s->lock);
	probe_gap_locked(s, offset, lost);
	/* Back after an unplug, the probe counts from 0 again. */
	s->probe_next = lost == SPOOR_SOURCE_LOST_UNKNOWN ? 0 : offset + lost;
	pthread_mutex_unlock(&s->lock);
}

/* The probe's record stream is not well formed: said; the layer below resynchronises. */
static void probe_error(void *ctx, uint64_t at, int reason, const char *what)
{
	struct gs_state *s = ctx;

	(void)reason;
	fprintf(stderr, "spoor gdbserver: %s: probe stream offset %" PRIu64 ": %s; "
		"resynchronising\n", spoor_source_name(s->probe), at, what);
}

/*
 * The probe went away: waits for it in one-second steps (a shutdown ends
 * the wait).  Returns 0 when it is back, or an error after setting
 * source_error.
 */
static int probe_unplugged(struct gs_state *s)
{
	const char *name = spoor_source_name(s->probe);
	int ret = SPOOR_E_TIMEOUT;

	fprintf(stderr, "spoor gdbserver: %s: the probe is gone (unplugged?) after %" PRIu64
		" trace bytes; waiting %d s for it to come back\n", name, s->probe_bytes,
		GS_PROBE_RECONNECT_MS / 1000);
	for (int waited = 0; waited < GS_PROBE_RECONNECT_MS && !atomic_load(&s->probe_stop);
	     waited += 1000) {
		ret = spoor_source_reconnect(s->probe, 1000);
		if (ret != SPOOR_E_TIMEOUT)
			break;
	}
	if (!ret) {
		fprintf(stderr, "spoor gdbserver: %s: back; tracing again (what it sent while "
			"away is lost: a gap in the history)\n", name);
		return 0;
	}
	pthread_mutex_lock(&s->lock);
	snprintf(s->source_error, sizeof(s->source_error), "%s: the probe is gone: %s", name,
		 ret == SPOOR_E_TIMEOUT ? "it did not come back in time" : spoor_errstr(ret));
	pthread_mutex_unlock(&s->lock);
	fprintf(stderr, "spoor gdbserver: %s\n", s->source_error);
	return ret;
}

/* The probe's reader thread: polls it until it is gone or the server stops. */
static void *probe_reader(void *arg)
{
	static const struct spoor_source_ops ops = {
		.data = probe_data, .loss = probe_loss, .error = probe_error,
	};
	struct gs_state *s = arg;
	const char *name = spoor_source_name(s->probe);
	int64_t t_stop = 0;
	int ret;

	for (;;) {
		if (!t_stop && atomic_load(&s->probe_stop)) {
			/* Shutdown: STOP, then what the probe still holds, until its END. */
			t_stop = now_ms();
			ret = spoor_source_stop(s->probe);
			if (ret < 0) {
				fprintf(stderr, "spoor gdbserver: %s: stopping the capture: %s\n",
					name, spoor_errstr(ret));
				break;
			}
		}
		if (t_stop && now_ms() - t_stop > GS_PROBE_DRAIN_MS) {
			fprintf(stderr, "spoor gdbserver: %s: no end of capture %d s after STOP; "
				"closing\n", name, GS_PROBE_DRAIN_MS / 1000);
			break;
		}
		ret = spoor_source_poll(s->probe, 100, &ops, s);
		if (ret == SPOOR_SOURCE_DONE) {
			if (!t_stop) {
				pthread_mutex_lock(&s->lock);
				snprintf(s->source_error, sizeof(s->source_error),
					 "%s: the probe ended the capture", name);
				pthread_mutex_unlock(&s->lock);
				fprintf(stderr, "spoor gdbserver: %s\n", s->source_error);
			}
			break;
		}
		if (ret == SPOOR_E_NO_DEVICE && !t_stop) {
			if (probe_unplugged(s))
				break;
			continue;
		}
		if (ret < 0) {
			if (t_stop)
				break;
			pthread_mutex_lock(&s->lock);
			snprintf(s->source_error, sizeof(s->source_error), "%s: %s", name,
				 ret == SPOOR_E_IO ? strerror(errno) : spoor_errstr(ret));
			pthread_mutex_unlock(&s->lock);
			fprintf(stderr, "spoor gdbserver: %s\n", s->source_error);
			break;
		}
	}
	pthread_mutex_lock(&s->lock);
	/* The trace ended: its last blocks. */
	spoor_trace_finish(s->trace);
	s->source_closed = true;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

int gs_state_start_probe(struct gs_state *s, const char *spec,
			 const struct spoor_probe_config *pcfg, char *err, size_t size)
{
	struct spoor_probe_config cfg = *pcfg;
	struct spoor_probe_info info;
	struct spoor_diag diag;
	int ret;

	ret = spoor_source_open(spec, &s->probe, &diag);
	if (ret < 0) {
		snprintf(err, size, "%s", diag.msg);
		s->probe = NULL;
		return ret;
	}
	ret = spoor_source_info(s->probe, &info);
	if (ret < 0) {
		snprintf(err, size, "%s: reading the probe's info: %s",
			 spoor_source_name(s->probe), spoor_errstr(ret));
		goto fail;
	}
	spoor_source_config_for(&cfg, NULL, &info);
	ret = spoor_source_configure(s->probe, &cfg);
	if (ret < 0) {
		snprintf(err, size, "%s: the probe refused the configuration (%u-bit port, %s): %s",
			 spoor_source_name(s->probe), cfg.port_width,
			 spoor_encap_kind_name((enum spoor_encap_kind)cfg.encap),
			 spoor_errstr(ret));
		goto fail;
	}
	ret = spoor_source_start(s->probe);
	if (ret < 0) {
		snprintf(err, size, "%s: starting the capture: %s", spoor_source_name(s->probe),
			 spoor_errstr(ret));
		goto fail;
	}
	atomic_store(&s->probe_stop, 0);
	if (pthread_create(&s->thread, NULL, probe_reader, s)) {
		snprintf(err, size, "%s: cannot start the trace reader thread",
			 spoor_source_name(s->probe));
		ret = SPOOR_E_NOMEM;
		goto fail;
	}
	s->thread_started = true;
	return 0;
fail:
	spoor_source_close(s->probe);
	s->probe = NULL;
	return ret;
}

void gs_state_stop_probe(struct gs_state *s)
{
	if (!s->probe)
		return;
	if (s->thread_started) {
		atomic_store(&s->probe_stop, 1);
		pthread_join(s->thread, NULL);
		s->thread_started = false;
	}
	spoor_source_close(s->probe);
	s->probe = NULL;
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
