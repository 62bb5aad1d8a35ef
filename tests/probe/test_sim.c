// SPDX-License-Identifier: MIT
/*
 * Tests for the sim port (probe/firmware/sim): spoor-probe-sim run as a
 * process, a host talking to it over the TCP binding (probe/PROTOCOL.md)
 * on 127.0.0.1, the bulk stream read back with the host's decoder
 * (spoor/probe.h).  Every byte of a replayed file arrives at its trace
 * offset; a loss (injected, replayed from a capture file, or a slow host)
 * is reported exactly where and as large as it was; DFU takes a good image
 * and refuses a bad one; faults (stall, unplug) look as on USB.
 *
 *   test_sim [NAME...]   runs the named tests (all without a name)
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "rng.h"
#include "spoor/capture_file.h"
#include "spoor/error.h"
#include "spoor/probe.h"

#define FILE_SIZE (4u << 20)
#define MSG_BUF (SPOOR_PROBE_MSG_HEADER + SPOOR_PROBE_MSG_MAX)
#define GAPS 8

/* DFU requests and states (USB DFU 1.1) as the host sends and sees them. */
enum { DFU_DETACH, DFU_DNLOAD, DFU_UPLOAD, DFU_GETSTATUS, DFU_CLRSTATUS, DFU_GETSTATE };
enum { APP_IDLE = 0, APP_DETACH = 1, DFU_IDLE = 2, DFU_DNLOAD_IDLE = 5, DFU_ERROR = 10 };
enum { DFU_OK = 0, DFU_ERR_TARGET = 1, DFU_ERR_VERIFY = 7 };

static char tmpdir[256];
static int host_rcvbuf;		/* a host's socket receive buffer (0: the system's) */

struct sim {
	pid_t pid;
	unsigned port;
};

/* A host on the TCP binding, and what it has seen of the bulk stream. */
struct host {
	int fd;
	struct spoor_probe_stream *st;
	uint8_t *msg;
	const uint8_t *ref;		/* the trace expected at offset 0 ... */
	size_t ref_len;
	bool ref_loops;			/* ... again and again (--loop) */
	uint64_t next;			/* the trace offset expected next */
	uint64_t data, lost;		/* DATA bytes, bytes in OVERFLOW records */
	unsigned overflows;		/* OVERFLOW records */
	uint64_t gap_at[GAPS], gap_n[GAPS];	/* the losses, adjacent ones merged */
	unsigned gaps;
	bool ended;
	uint64_t total;			/* of the END record */
	unsigned bad;			/* bytes or records not as expected */
	uint64_t bulk;			/* bulk bytes received */
};

/* Returns milliseconds on the monotonic clock. */
static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Writes @n bytes of @b to @path in the temporary directory; returns 0 or -1. */
static int write_file(const char *name, const void *b, size_t n, char *path, size_t size)
{
	FILE *f;
	size_t w;

	snprintf(path, size, "%s/%s", tmpdir, name);
	f = fopen(path, "wb");
	if (!f)
		return -1;
	w = fwrite(b, 1, n, f);
	return fclose(f) || w != n ? -1 : 0;
}

/* Returns @n pseudo-random bytes (malloc'd). */
static uint8_t *random_bytes(size_t n)
{
	uint8_t *b = malloc(n);

	for (size_t i = 0; b && i < n; i += 8) {
		uint64_t v = rnd();

		memcpy(b + i, &v, n - i < 8 ? n - i : 8);
	}
	return b;
}

/*
 * Starts spoor-probe-sim --listen 127.0.0.1:0 with @args (NULL-terminated)
 * and reads the port it prints.  Returns 0, or -1 when it did not come up
 * (s->pid is then still to be waited for).
 */
static int sim_start(struct sim *s, const char *const *args)
{
	const char *argv[32] = { SIM_PROGRAM, "--listen", "127.0.0.1:0" };
	char line[128] = "";
	size_t n = 3, len = 0;
	int pfd[2];
	int64_t end = now_ms() + 5000;

	for (; args && *args && n < 31; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	s->port = 0;
	if (pipe(pfd))
		return -1;
	s->pid = fork();
	if (s->pid == 0) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		close(pfd[1]);
		execv(SIM_PROGRAM, (char **)argv);
		_exit(127);
	}
	close(pfd[1]);
	while (s->pid > 0 && len < sizeof(line) - 1 && !strchr(line, '\n') && now_ms() < end) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		ssize_t r;

		if (poll(&p, 1, 100) <= 0)
			continue;
		r = read(pfd[0], line + len, sizeof(line) - 1 - len);
		if (r <= 0)
			break;
		len += (size_t)r;
		line[len] = 0;
	}
	close(pfd[0]);
	if (sscanf(line, "listening on 127.0.0.1:%u", &s->port) != 1 || !s->port)
		return -1;
	return 0;
}

/* Stops the sim with SIGTERM (unless it exited); returns its exit status (128 + signal). */
static int sim_end(struct sim *s, bool term)
{
	int st;

	if (s->pid <= 0)
		return -1;
	if (term)
		kill(s->pid, SIGTERM);
	if (waitpid(s->pid, &st, 0) != s->pid)
		return -1;
	s->pid = 0;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Connects to 127.0.0.1:@port; returns the socket or -1 (errno set). */
static int connect_port(unsigned port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1, e;

	if (fd < 0)
		return -1;
	if (host_rcvbuf)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &host_rcvbuf, sizeof(host_rcvbuf));
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* Connects host @h to @port, expecting @ref; returns 0 or -1. */
static int host_open(struct host *h, unsigned port, const uint8_t *ref, size_t ref_len)
{
	memset(h, 0, sizeof(*h));
	h->ref = ref;
	h->ref_len = ref_len;
	h->fd = connect_port(port);
	h->st = spoor_probe_stream_new();
	h->msg = malloc(MSG_BUF);
	return h->fd >= 0 && h->st && h->msg ? 0 : -1;
}

/* Closes the host's connection and frees what it holds. */
static void host_close(struct host *h)
{
	if (h->fd >= 0)
		close(h->fd);
	h->fd = -1;
	spoor_probe_stream_free(h->st);
	free(h->msg);
}

/* Receives @n bytes by @end (ms); returns 0, -2 at the deadline, -3 when closed. */
static int recv_all(int fd, uint8_t *b, size_t n, int64_t end)
{
	while (n) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int64_t left = end - now_ms();
		ssize_t r;

		if (left <= 0)
			return -2;
		if (poll(&p, 1, (int)left) <= 0)
			continue;
		r = recv(fd, b, n, 0);
		if (r <= 0)
			return -3;
		b += r;
		n -= (size_t)r;
	}
	return 0;
}

/* Does DATA at trace offset @off match the expected trace? */
static bool data_ok(const struct host *h, uint64_t off, const uint8_t *d, size_t n)
{
	while (n) {
		uint64_t at = h->ref_loops ? off % h->ref_len : off;
		size_t k;

		if (at >= h->ref_len)
			return false;
		k = h->ref_len - at < n ? (size_t)(h->ref_len - at) : n;
		if (memcmp(h->ref + at, d, k))
			return false;
		off += k;
		d += k;
		n -= k;
	}
	return true;
}

/* Decodes @n bulk bytes into what @h has seen. */
static void host_bulk(struct host *h, const uint8_t *b, size_t n)
{
	struct spoor_probe_item it;
	int k;

	h->bulk += n;
	if (spoor_probe_stream_feed(h->st, b, n)) {
		h->bad++;
		return;
	}
	while ((k = spoor_probe_stream_next(h->st, &it, sizeof(it))) > 0) {
		switch (k) {
		case SPOOR_PROBE_ITEM_DATA:
			if (it.offset != h->next || !data_ok(h, it.offset, it.data, it.len))
				h->bad++;
			h->next = it.offset + it.len;
			h->data += it.len;
			break;
		case SPOOR_PROBE_ITEM_OVERFLOW:
			if (it.offset != h->next)
				h->bad++;
			h->overflows++;
			h->lost += it.lost;
			if (h->gaps && h->gap_at[h->gaps - 1] + h->gap_n[h->gaps - 1] == it.offset) {
				h->gap_n[h->gaps - 1] += it.lost;
			} else if (h->gaps < GAPS) {
				h->gap_at[h->gaps] = it.offset;
				h->gap_n[h->gaps++] = it.lost;
			}
			h->next = it.offset + it.lost;
			break;
		case SPOOR_PROBE_ITEM_END:
			if (it.offset != h->next)
				h->bad++;
			h->ended = true;
			h->total = it.offset;
			h->next = 0;
			break;
		default:
			fprintf(stderr, "stream error at %llu: %s\n",
				(unsigned long long)it.stream_offset, spoor_errstr(it.reason));
			h->bad++;
			break;
		}
	}
	if (k < 0)
		h->bad++;
}

/*
 * Reads one message by @end; bulk bytes go to host_bulk().  Returns its
 * kind (its header in @m, a control reply's data at h->msg), or -2 at the
 * deadline, -3 when the sim closed, -4 for a bad header.
 */
static int host_msg(struct host *h, struct spoor_probe_msg *m, int64_t end)
{
	int r = recv_all(h->fd, h->msg, SPOOR_PROBE_MSG_HEADER, end);

	if (r)
		return r;
	if (spoor_probe_msg_decode(h->msg, SPOOR_PROBE_MSG_HEADER, m))
		return -4;
	/* A message begun is read whole. */
	r = recv_all(h->fd, h->msg, m->length, now_ms() + 5000);
	if (r)
		return r;
	if (m->kind == SPOOR_PROBE_MSG_BULK)
		host_bulk(h, h->msg, m->length);
	return m->kind;
}

/*
 * Sends a control request (OUT: @len bytes of @data) and waits up to
 * @ms for its reply (IN: into @data).  Returns the reply's length, -1 for
 * a STALL, or -2 at the deadline, -3 when closed, -4 for a bad message.
 */
static int ctl_wait(struct host *h, uint8_t type, uint8_t req, uint16_t value, uint16_t index,
		    uint16_t len, uint8_t *data, int ms)
{
	struct spoor_probe_setup s = { .request_type = type, .request = req, .value = value,
				       .index = index, .length = len };
	uint8_t setup[SPOOR_PROBE_SETUP_SIZE];
	struct spoor_probe_msg m;
	int64_t end = now_ms() + ms;
	int r;

	spoor_probe_setup_encode(&s, setup);
	if (send(h->fd, setup, sizeof(setup), MSG_NOSIGNAL) != (ssize_t)sizeof(setup))
		return -3;
	if (!(type & 0x80) && len &&
	    send(h->fd, data, len, MSG_NOSIGNAL) != (ssize_t)len)
		return -3;
	for (;;) {
		r = host_msg(h, &m, end);
		if (r < 0)
			return r;
		if (r != SPOOR_PROBE_MSG_CONTROL)
			continue;
		if (m.status == SPOOR_PROBE_STALL)
			return m.length ? -4 : -1;
		if ((type & 0x80) ? m.length > len : m.length != 0)
			return -4;
		if (type & 0x80)
			memcpy(data, h->msg, m.length);
		return (int)m.length;
	}
}

/* ctl_wait() with two seconds to answer. */
static int ctl(struct host *h, uint8_t type, uint8_t req, uint16_t value, uint16_t index,
	       uint16_t len, uint8_t *data)
{
	return ctl_wait(h, type, req, value, index, len, data, 2000);
}

/* A vendor request with no data (START, STOP); returns as ctl(). */
static int vendor(struct host *h, uint8_t req)
{
	return ctl(h, SPOOR_PROBE_REQTYPE_OUT, req, 0, 0, 0, NULL);
}

/* Reads bulk messages until the trace reached offset @upto (or END); returns true if so. */
static bool host_until(struct host *h, uint64_t upto, int ms)
{
	struct spoor_probe_msg m;
	int64_t end = now_ms() + ms;

	while (h->next < upto && !h->ended) {
		if (host_msg(h, &m, end) < 0)
			return false;
	}
	return h->next >= upto;
}

/* Reads bulk messages until the END record; returns true if it came. */
static bool host_end(struct host *h, int ms)
{
	struct spoor_probe_msg m;
	int64_t end = now_ms() + ms;

	while (!h->ended) {
		if (host_msg(h, &m, end) < 0)
			return false;
	}
	return true;
}

/* GET_INFO into @info; returns 0, or what ctl() returned. */
static int get_info(struct host *h, struct spoor_probe_info *info)
{
	uint8_t d[SPOOR_PROBE_INFO_SIZE];
	int r = ctl(h, SPOOR_PROBE_REQTYPE_IN, SPOOR_PROBE_GET_INFO, 0, 0, sizeof(d), d);

	if (r != SPOOR_PROBE_INFO_SIZE)
		return r < 0 ? r : -4;
	return spoor_probe_info_decode(d, sizeof(d), info) ? -4 : 0;
}

/* GET_STATUS into @st; returns 0, or what ctl() returned. */
static int get_status(struct host *h, struct spoor_probe_status *st)
{
	uint8_t d[SPOOR_PROBE_STATUS_SIZE];
	int r = ctl(h, SPOOR_PROBE_REQTYPE_IN, SPOOR_PROBE_GET_STATUS, 0, 0, sizeof(d), d);

	if (r != SPOOR_PROBE_STATUS_SIZE)
		return r < 0 ? r : -4;
	return spoor_probe_status_decode(d, sizeof(d), st) ? -4 : 0;
}

/* ---- the tests ---------------------------------------------------------------- */

/* Requests, a raw file replayed losslessly through a small buffer, twice; STOP, END. */
static void test_stream(void)
{
	uint8_t *ref = random_bytes(FILE_SIZE), d[64];
	struct spoor_probe_config cfg = { .port_width = 8, .flags = SPOOR_PROBE_CFG_DDR };
	struct spoor_probe_info info;
	struct spoor_probe_status st;
	char path[512];
	struct sim s;
	struct host h;
	int64_t t0;

	CHECK(!write_file("raw.bin", ref, FILE_SIZE, path, sizeof(path)));
	CHECK(!sim_start(&s, (const char *const[]){ "--input", path, "--buffer", "64k",
						    "--serial", "TESTSIM1", NULL }));
	CHECK(!host_open(&h, s.port, ref, FILE_SIZE));
	CHECK_EQ(get_info(&h, &info), 0);
	CHECK_EQ(info.protocol_version, SPOOR_PROBE_PROTOCOL_VERSION);
	CHECK_EQ(info.firmware_version, 0x010000);
	CHECK_EQ(info.target, SPOOR_PROBE_TARGET_SIM);
	CHECK(info.capabilities & SPOOR_PROBE_CAP_DFU);
	CHECK_EQ(info.buffer_size, 64 << 10);
	CHECK(!strcmp(info.serial, "TESTSIM1"));
	/* What the probe cannot take is STALLed. */
	spoor_probe_config_encode(&cfg, d);
	CHECK_EQ(ctl(&h, SPOOR_PROBE_REQTYPE_OUT, SPOOR_PROBE_SET_CONFIG, 0, 0,
		     SPOOR_PROBE_CONFIG_SIZE, d), 0);
	CHECK_EQ(ctl(&h, SPOOR_PROBE_REQTYPE_OUT, SPOOR_PROBE_SET_CONFIG, 0, 0, 3, d), -1);
	CHECK_EQ(ctl(&h, SPOOR_PROBE_REQTYPE_IN, 0x77, 0, 0, 8, d), -1);
	CHECK_EQ(ctl(&h, SPOOR_PROBE_REQTYPE_OUT, 0x77, 0, 0, 0, d), -1);
	CHECK_EQ(ctl(&h, SPOOR_PROBE_REQTYPE_OUT, SPOOR_PROBE_GET_INFO, 0, 0, 0, d), -1);
	CHECK_EQ(ctl(&h, SPOOR_PROBE_REQTYPE_IN, SPOOR_PROBE_GET_INFO, 0, 1, sizeof(d), d), -1);
	CHECK_EQ(ctl(&h, 0x80, 6, 0x0100, 0, 18, d), -1);	/* a standard request */
	CHECK_EQ(ctl(&h, SPOOR_PROBE_DFU_REQTYPE_OUT, DFU_DNLOAD, 0, 1, 4, d), -1);
	CHECK_EQ(ctl(&h, SPOOR_PROBE_REQTYPE_IN, SPOOR_PROBE_GET_STATUS, 0, 0, 8, d), -1);
	/* Nothing flows while idle. */
	CHECK(!host_until(&h, 1, 100));
	CHECK_EQ(h.bulk, 0);
	t0 = now_ms();
	CHECK_EQ(vendor(&h, SPOOR_PROBE_START), 0);
	CHECK_EQ(vendor(&h, SPOOR_PROBE_START), -1);
	CHECK_EQ(ctl(&h, SPOOR_PROBE_REQTYPE_OUT, SPOOR_PROBE_SET_CONFIG, 0, 0,
		     SPOOR_PROBE_CONFIG_SIZE, d), -1);
	CHECK(host_until(&h, FILE_SIZE, 10000));
	printf("stream: %u bytes through a 64 KiB buffer in %lld ms\n", FILE_SIZE,
	       (long long)(now_ms() - t0));
	CHECK_EQ(h.data, FILE_SIZE);
	CHECK_EQ(h.overflows, 0);
	CHECK_EQ(h.bad, 0);
	CHECK_EQ(get_status(&h, &st), 0);
	CHECK_EQ(st.state, SPOOR_PROBE_CAPTURING);
	CHECK_EQ(st.bytes_captured, FILE_SIZE);
	CHECK_EQ(st.bytes_lost, 0);
	CHECK(st.high_water <= 64 << 10);
	CHECK_EQ(vendor(&h, SPOOR_PROBE_STOP), 0);
	CHECK(host_end(&h, 2000));
	CHECK_EQ(h.total, FILE_SIZE);
	CHECK_EQ(get_status(&h, &st), 0);
	CHECK_EQ(st.state, SPOOR_PROBE_IDLE);
	/* The next capture replays the file from its start. */
	h.ended = false;
	h.data = 0;
	CHECK_EQ(vendor(&h, SPOOR_PROBE_START), 0);
	CHECK(host_until(&h, FILE_SIZE / 2, 10000));
	CHECK_EQ(vendor(&h, SPOOR_PROBE_STOP), 0);
	CHECK(host_end(&h, 5000));
	CHECK(h.total >= FILE_SIZE / 2 && h.total <= FILE_SIZE);
	CHECK_EQ(h.overflows, 0);
	CHECK_EQ(h.bad, 0);
	host_close(&h);
	CHECK_EQ(sim_end(&s, true), 0);
	free(ref);
}

/* --drop-at: the port's loss reported as one OVERFLOW at its offset, its size. */
static void test_drop(void)
{
	uint8_t *ref = random_bytes(FILE_SIZE);
	struct spoor_probe_status st;
	char path[512];
	struct sim s;
	struct host h;

	CHECK(!write_file("drop.bin", ref, FILE_SIZE, path, sizeof(path)));
	CHECK(!sim_start(&s, (const char *const[]){ "--input", path, "--drop-at", "1000003:4097",
						    NULL }));
	CHECK(!host_open(&h, s.port, ref, FILE_SIZE));
	CHECK_EQ(vendor(&h, SPOOR_PROBE_START), 0);
	CHECK(host_until(&h, FILE_SIZE, 10000));
	CHECK_EQ(h.gaps, 1);
	CHECK_EQ(h.gap_at[0], 1000003);
	CHECK_EQ(h.gap_n[0], 4097);
	CHECK_EQ(h.lost, 4097);
	CHECK_EQ(h.data, FILE_SIZE - 4097);
	CHECK_EQ(h.bad, 0);
	CHECK_EQ(get_status(&h, &st), 0);
	CHECK_EQ(st.bytes_captured, FILE_SIZE);
	CHECK_EQ(st.bytes_lost, 4097);
	CHECK_EQ(st.overflows, 1);
	CHECK_EQ(vendor(&h, SPOOR_PROBE_STOP), 0);
	CHECK(host_end(&h, 2000));
	CHECK_EQ(h.total, FILE_SIZE);
	host_close(&h);
	CHECK_EQ(sim_end(&s, true), 0);
	free(ref);
}

/* A capture file replayed: its DATA in place, its LOSS (and a missing one) as OVERFLOWs. */
static void test_capture(void)
{
	enum { A = 300000, LOSS = 5000, B = 200000, HOLE = 777, C = 65536 };
	size_t total = A + LOSS + B + HOLE + C;
	uint8_t *ref = random_bytes(total);
	struct spoor_capture_header hdr = { .version = SPOOR_CAPTURE_VERSION };
	struct spoor_capture_writer *w = NULL;
	struct spoor_diag diag;
	char path[512];
	struct sim s;
	struct host h;
	FILE *f;

	/* DATA A, LOSS, DATA B, then DATA C whose offset leaves a hole (a lost LOSS record). */
	snprintf(path, sizeof(path), "%s/replay.spoorcap", tmpdir);
	CHECK_EQ(spoor_capture_writer_open(path, &hdr, &w, &diag), 0);
	if (!w)
		return;
	CHECK_EQ(spoor_capture_write_data(w, ref, A), 0);
	CHECK_EQ(spoor_capture_write_loss(w, LOSS), 0);
	CHECK_EQ(spoor_capture_write_data(w, ref + A + LOSS, B), 0);
	CHECK_EQ(spoor_capture_write_loss(w, HOLE), 0);
	CHECK_EQ(spoor_capture_writer_close(w), 0);
	/* Cut the file's END record and the HOLE's LOSS record, append C at its offset. */
	{
		struct spoor_capture_record rec = {
			.type = SPOOR_CAPTURE_DATA, .offset = A + LOSS + B + HOLE,
			.payload = ref + A + LOSS + B + HOLE, .len = C,
		};
		size_t cut = 2 * (SPOOR_CAPTURE_RECORD + 8 + SPOOR_CAPTURE_TRAILER);
		size_t n = spoor_capture_record_size(&rec);
		uint8_t *b = malloc(n);
		struct stat sb;

		CHECK(!stat(path, &sb));
		CHECK(!truncate(path, sb.st_size - (off_t)cut));
		CHECK_EQ(spoor_capture_record_encode(&rec, b, n), n);
		f = fopen(path, "ab");
		CHECK(f && fwrite(b, 1, n, f) == n);
		if (f)
			fclose(f);
		free(b);
	}
	CHECK(!sim_start(&s, (const char *const[]){ "--input", path, "--buffer", "128k", NULL }));
	CHECK(!host_open(&h, s.port, ref, total));
	CHECK_EQ(vendor(&h, SPOOR_PROBE_START), 0);
	CHECK(host_until(&h, total, 5000));
	CHECK_EQ(h.gaps, 2);
	CHECK_EQ(h.gap_at[0], A);
	CHECK_EQ(h.gap_n[0], LOSS);
	CHECK_EQ(h.gap_at[1], A + LOSS + B);
	CHECK_EQ(h.gap_n[1], HOLE);
	CHECK_EQ(h.data, A + B + C);
	CHECK_EQ(h.bad, 0);
	CHECK_EQ(vendor(&h, SPOOR_PROBE_STOP), 0);
	CHECK(host_end(&h, 2000));
	CHECK_EQ(h.total, total);
	host_close(&h);
	CHECK_EQ(sim_end(&s, true), 0);
	free(ref);
}

/* --rate with a host that does not read for a while: the buffer overflows, exactly reported. */
static void test_overflow(void)
{
	uint8_t *ref = random_bytes(FILE_SIZE);
	struct spoor_probe_status st;
	char path[512];
	struct sim s;
	struct host h;

	CHECK(!write_file("fast.bin", ref, FILE_SIZE, path, sizeof(path)));
	CHECK(!sim_start(&s, (const char *const[]){ "--input", path, "--rate", "40M",
						    "--buffer", "64k", NULL }));
	/* A host that buffers little (bytes in flight are as good as taken). */
	host_rcvbuf = 64 << 10;
	CHECK(!host_open(&h, s.port, ref, FILE_SIZE));
	host_rcvbuf = 0;
	CHECK_EQ(vendor(&h, SPOOR_PROBE_START), 0);
	/* 4 MiB at 40 MB/s: over in 105 ms, while the host does not read. */
	usleep(300 * 1000);
	CHECK(host_until(&h, FILE_SIZE, 10000));
	printf("overflow: %llu bytes lost in %u gaps, %llu kept\n", (unsigned long long)h.lost,
	       h.gaps, (unsigned long long)h.data);
	CHECK(h.lost >= FILE_SIZE / 8);
	CHECK(h.gaps > 0);
	CHECK_EQ(h.data + h.lost, FILE_SIZE);
	CHECK_EQ(h.bad, 0);
	CHECK_EQ(get_status(&h, &st), 0);
	CHECK_EQ(st.bytes_captured, FILE_SIZE);
	CHECK_EQ(st.bytes_lost, h.lost);
	CHECK_EQ(st.overflows, h.overflows);
	CHECK_EQ(st.high_water, 64 << 10);
	CHECK_EQ(vendor(&h, SPOOR_PROBE_STOP), 0);
	CHECK(host_end(&h, 2000));
	CHECK_EQ(h.total, FILE_SIZE);
	host_close(&h);
	CHECK_EQ(sim_end(&s, true), 0);
	free(ref);
}

/* --rate paces the port (no faster than asked) and --loop replays the file on and on. */
static void test_rate_loop(void)
{
	enum { N = 100000 };
	uint8_t *ref = random_bytes(N);
	char path[512];
	struct sim s;
	struct host h;
	int64_t t0, ms;

	CHECK(!write_file("loop.bin", ref, N, path, sizeof(path)));
	CHECK(!sim_start(&s, (const char *const[]){ "--input", path, "--loop", "--rate", "2M",
						    NULL }));
	CHECK(!host_open(&h, s.port, ref, N));
	h.ref_loops = true;
	t0 = now_ms();
	CHECK_EQ(vendor(&h, SPOOR_PROBE_START), 0);
	CHECK(host_until(&h, 5 * N + 1234, 5000));
	ms = now_ms() - t0;
	printf("rate: %llu bytes at 2 MB/s in %lld ms\n", (unsigned long long)h.next,
	       (long long)ms);
	CHECK(ms >= 200);	/* 500 kB at 2 MB/s: 250 ms */
	CHECK_EQ(h.lost, 0);
	CHECK_EQ(h.bad, 0);
	CHECK_EQ(vendor(&h, SPOOR_PROBE_STOP), 0);
	CHECK(host_end(&h, 2000));
	CHECK(h.total >= 5 * N + 1234);
	CHECK_EQ(h.bad, 0);
	host_close(&h);
	CHECK_EQ(sim_end(&s, true), 0);
	free(ref);
}

/* Listens on 127.0.0.1, a port the system picks; returns the socket (port in *@port) or -1. */
static int listen_any(unsigned *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 1) ||
	    getsockname(fd, (struct sockaddr *)&a, &al)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*port = ntohs(a.sin_port);
	return fd;
}

/* Waits up to @ms for a connection on @lfd; returns it or -1. */
static int accept_wait(int lfd, int ms)
{
	struct pollfd p = { .fd = lfd, .events = POLLIN };

	if (poll(&p, 1, ms) != 1)
		return -1;
	return accept(lfd, NULL, NULL);
}

/* Sends @n bytes of @b; returns 0 or -1. */
static int send_all(int fd, const uint8_t *b, size_t n)
{
	while (n) {
		ssize_t r = send(fd, b, n, MSG_NOSIGNAL);

		if (r <= 0)
			return -1;
		b += r;
		n -= (size_t)r;
	}
	return 0;
}

/*
 * --input tcp:HOST:PORT, the test as spoor virt's trace port: the sim
 * connects at the first START, its bytes arrive in order; after the trace
 * port closed, the next START connects again.
 */
static void test_tcp_input(void)
{
	enum { N = 1 << 20 };
	uint8_t *ref = random_bytes(N);
	char input[64];
	unsigned port = 0;
	struct sim s;
	struct host h;
	int lfd = listen_any(&port), tfd;

	CHECK(lfd >= 0);
	snprintf(input, sizeof(input), "tcp:127.0.0.1:%u", port);
	CHECK(!sim_start(&s, (const char *const[]){ "--input", input, NULL }));
	CHECK(!host_open(&h, s.port, ref, N));
	/* Not plugged into the target before the first START. */
	CHECK_EQ(accept_wait(lfd, 100), -1);
	CHECK_EQ(vendor(&h, SPOOR_PROBE_START), 0);
	tfd = accept_wait(lfd, 2000);
	CHECK(tfd >= 0);
	CHECK(!send_all(tfd, ref, N));
	CHECK(host_until(&h, N, 5000));
	CHECK_EQ(h.data, N);
	CHECK_EQ(h.bad, 0);
	CHECK_EQ(vendor(&h, SPOOR_PROBE_STOP), 0);
	CHECK(host_end(&h, 2000));
	CHECK_EQ(h.total, N);
	/* The target goes away; the next START plugs into it again. */
	close(tfd);
	usleep(50 * 1000);
	h.ended = false;
	CHECK_EQ(vendor(&h, SPOOR_PROBE_START), 0);
	tfd = accept_wait(lfd, 2000);
	CHECK(tfd >= 0);
	CHECK(!send_all(tfd, ref, 1000));
	CHECK(host_until(&h, 1000, 5000));
	CHECK_EQ(vendor(&h, SPOOR_PROBE_STOP), 0);
	CHECK(host_end(&h, 2000));
	CHECK_EQ(h.total, 1000);
	CHECK_EQ(h.bad, 0);
	if (tfd >= 0)
		close(tfd);
	close(lfd);
	host_close(&h);
	CHECK_EQ(sim_end(&s, true), 0);
	free(ref);
}

/* An image of @n bytes for @target, version @version (malloc'd, header included). */
static uint8_t *image(uint32_t target, uint32_t version, size_t n)
{
	uint8_t *b = random_bytes(SPOOR_PROBE_IMAGE_HEADER + n);
	struct spoor_probe_image img = { .target = target, .version = version,
					 .length = (uint32_t)n };

	img.crc32 = spoor_probe_crc32(0, b + SPOOR_PROBE_IMAGE_HEADER, n);
	spoor_probe_image_header(&img, b);
	return b;
}

/* Connects a host to the sim; returns 0 or -1. */
static int reconnect(struct host *h, const struct sim *s)
{
	host_close(h);
	return host_open(h, s->port, NULL, 0);
}

/* DFU GETSTATE; returns the state or what ctl() returned. */
static int dfu_state(struct host *h)
{
	uint8_t st;
	int r = ctl(h, SPOOR_PROBE_DFU_REQTYPE_IN, DFU_GETSTATE, 0, SPOOR_PROBE_IF_DFU, 1, &st);

	return r == 1 ? st : r < 0 ? r : -4;
}

/*
 * Downloads @len bytes of @b in 4 KiB blocks as dfu-util does; returns the
 * last GETSTATUS's bStatus << 8 | bState, or -1 when a request failed.
 */
static int dfu_download(struct host *h, uint8_t *b, size_t len)
{
	uint8_t st[6];
	uint16_t block = 0;

	for (size_t off = 0;; block++) {
		size_t n = len - off < 4096 ? len - off : 4096;

		if (ctl(h, SPOOR_PROBE_DFU_REQTYPE_OUT, DFU_DNLOAD, block, SPOOR_PROBE_IF_DFU,
			(uint16_t)n, b + off) != 0)
			return -1;
		if (ctl(h, SPOOR_PROBE_DFU_REQTYPE_IN, DFU_GETSTATUS, 0, SPOOR_PROBE_IF_DFU, 6,
			st) != 6)
			return -1;
		if (!n || st[0])
			return st[0] << 8 | st[4];
		off += n;
	}
}

/* DETACH at run time, then a new connection (the replug into DFU mode); returns 0 or -1. */
static int detach(struct host *h, const struct sim *s)
{
	if (dfu_state(h) != APP_IDLE ||
	    ctl(h, SPOOR_PROBE_DFU_REQTYPE_OUT, DFU_DETACH, 1000, SPOOR_PROBE_IF_DFU, 0, NULL) ||
	    dfu_state(h) != APP_DETACH || reconnect(h, s))
		return -1;
	return dfu_state(h) == DFU_IDLE ? 0 : -1;
}

/* DFU over TCP: a good image runs after the replug; corrupt or foreign ones are refused. */
static void test_dfu(void)
{
	enum { BODY = 100000 };
	uint8_t *good = image(SPOOR_PROBE_TARGET_SIM, 0x020304, BODY);
	uint8_t *bad = image(SPOOR_PROBE_TARGET_SIM, 0x030000, BODY);
	uint8_t *foreign = image(0x12345678, 0x030000, BODY);
	uint8_t *up = malloc(SPOOR_PROBE_IMAGE_HEADER + BODY + 4096);
	struct spoor_probe_info info;
	char flash[512];
	size_t got = 0;
	struct sim s;
	struct host h = { .fd = -1 };
	int r;

	bad[SPOOR_PROBE_IMAGE_HEADER + 5000] ^= 0x10;
	snprintf(flash, sizeof(flash), "%s/flash.bin", tmpdir);
	unlink(flash);
	CHECK(!sim_start(&s, (const char *const[]){ "--flash", flash, NULL }));
	CHECK(!host_open(&h, s.port, NULL, 0));
	CHECK_EQ(get_info(&h, &info), 0);
	CHECK_EQ(info.firmware_version, 0x010000);
	CHECK_EQ(info.target, SPOOR_PROBE_TARGET_SIM);
	/* DFU mode's requests are refused at run time. */
	CHECK_EQ(ctl(&h, SPOOR_PROBE_DFU_REQTYPE_OUT, DFU_DNLOAD, 0, SPOOR_PROBE_IF_DFU, 16, good),
		 -1);
	CHECK_EQ(ctl(&h, SPOOR_PROBE_DFU_REQTYPE_IN, DFU_UPLOAD, 0, SPOOR_PROBE_IF_DFU, 16, up), -1);
	CHECK_EQ(detach(&h, &s), 0);
	/* In DFU mode: no vendor requests, a download of the good image. */
	CHECK_EQ(get_info(&h, &info), -1);
	CHECK_EQ(dfu_download(&h, good, SPOOR_PROBE_IMAGE_HEADER + BODY), DFU_IDLE);
	CHECK(!reconnect(&h, &s));
	CHECK_EQ(get_info(&h, &info), 0);
	CHECK_EQ(info.firmware_version, 0x020304);
	CHECK_EQ(dfu_state(&h), APP_IDLE);
	/* A corrupt image, then one for other hardware: refused, 2.3.4 runs on. */
	CHECK_EQ(detach(&h, &s), 0);
	CHECK_EQ(dfu_download(&h, bad, SPOOR_PROBE_IMAGE_HEADER + BODY),
		 DFU_ERR_VERIFY << 8 | DFU_ERROR);
	CHECK_EQ(ctl(&h, SPOOR_PROBE_DFU_REQTYPE_OUT, DFU_CLRSTATUS, 0, SPOOR_PROBE_IF_DFU, 0,
		     NULL), 0);
	CHECK_EQ(dfu_state(&h), DFU_IDLE);
	CHECK_EQ(dfu_download(&h, foreign, SPOOR_PROBE_IMAGE_HEADER + BODY),
		 DFU_ERR_TARGET << 8 | DFU_ERROR);
	CHECK(!reconnect(&h, &s));
	CHECK_EQ(get_info(&h, &info), 0);
	CHECK_EQ(info.firmware_version, 0x020304);
	/* An interrupted download (the host goes midway) changes nothing either. */
	CHECK_EQ(detach(&h, &s), 0);
	CHECK_EQ(ctl(&h, SPOOR_PROBE_DFU_REQTYPE_OUT, DFU_DNLOAD, 0, SPOOR_PROBE_IF_DFU, 4096, bad),
		 0);
	CHECK(!reconnect(&h, &s));
	CHECK_EQ(get_info(&h, &info), 0);
	CHECK_EQ(info.firmware_version, 0x020304);
	/* UPLOAD in DFU mode reads back the image running: the good one. */
	CHECK_EQ(detach(&h, &s), 0);
	do {
		r = ctl(&h, SPOOR_PROBE_DFU_REQTYPE_IN, DFU_UPLOAD, 0, SPOOR_PROBE_IF_DFU, 4096,
			up + got);
		got += r > 0 ? (size_t)r : 0;
	} while (r == 4096 && got <= SPOOR_PROBE_IMAGE_HEADER + BODY);
	CHECK_EQ(got, SPOOR_PROBE_IMAGE_HEADER + BODY);
	CHECK(!memcmp(up, good, SPOOR_PROBE_IMAGE_HEADER + BODY));
	host_close(&h);
	CHECK_EQ(sim_end(&s, true), 0);
	/* The flash file keeps it: a new sim boots 2.3.4. */
	CHECK(!sim_start(&s, (const char *const[]){ "--flash", flash, NULL }));
	CHECK(!host_open(&h, s.port, NULL, 0));
	CHECK_EQ(get_info(&h, &info), 0);
	CHECK_EQ(info.firmware_version, 0x020304);
	host_close(&h);
	CHECK_EQ(sim_end(&s, true), 0);
	/* A file that is no sim flash is refused. */
	CHECK(!write_file("notflash.bin", good, 1000, flash, sizeof(flash)));
	CHECK(sim_start(&s, (const char *const[]){ "--flash", flash, NULL }));
	CHECK_EQ(sim_end(&s, false), 2);
	free(good);
	free(bad);
	free(foreign);
	free(up);
}

/* --stall-after: the requests after the first N get no answer at all. */
static void test_stall(void)
{
	struct spoor_probe_info info;
	struct sim s;
	struct host h;

	CHECK(!sim_start(&s, (const char *const[]){ "--stall-after", "3", NULL }));
	CHECK(!host_open(&h, s.port, NULL, 0));
	CHECK_EQ(get_info(&h, &info), 0);
	CHECK_EQ(vendor(&h, 0x77), -1);
	CHECK_EQ(get_info(&h, &info), 0);
	CHECK_EQ(ctl_wait(&h, SPOOR_PROBE_REQTYPE_OUT, SPOOR_PROBE_START, 0, 0, 0, NULL, 300), -2);
	/* A replug (a new connection) brings it back. */
	host_close(&h);
	CHECK(!host_open(&h, s.port, NULL, 0));
	CHECK_EQ(get_info(&h, &info), 0);
	host_close(&h);
	CHECK_EQ(sim_end(&s, true), 0);
}

/*
 * --unplug-after: the connection ends after exactly that many bulk bytes,
 * connections are refused for --replug-ms, then the probe is back, idle.
 */
static void test_unplug(void)
{
	uint8_t *ref = random_bytes(FILE_SIZE);
	struct spoor_probe_status st;
	struct spoor_probe_msg m;
	char path[512];
	struct sim s;
	struct host h;
	int64_t t0;
	int fd = -1, r;

	CHECK(!write_file("unplug.bin", ref, FILE_SIZE, path, sizeof(path)));
	CHECK(!sim_start(&s, (const char *const[]){ "--input", path, "--unplug-after", "100001",
						    "--replug-ms", "300", NULL }));
	CHECK(!host_open(&h, s.port, ref, FILE_SIZE));
	CHECK_EQ(vendor(&h, SPOOR_PROBE_START), 0);
	do
		r = host_msg(&h, &m, now_ms() + 5000);
	while (r > 0);
	t0 = now_ms();
	CHECK_EQ(r, -3);
	CHECK_EQ(h.bulk, 100001);
	CHECK(h.data > 90000);
	CHECK_EQ(h.bad, 0);
	host_close(&h);
	fd = connect_port(s.port);
	CHECK(fd < 0 && errno == ECONNREFUSED);
	if (fd >= 0)
		close(fd);
	while ((fd = connect_port(s.port)) < 0 && now_ms() - t0 < 3000)
		usleep(20 * 1000);
	CHECK(fd >= 0);
	CHECK(now_ms() - t0 >= 250);
	if (fd >= 0)
		close(fd);
	/* Back, as a freshly plugged probe: idle. */
	usleep(50 * 1000);
	CHECK(!host_open(&h, s.port, ref, FILE_SIZE));
	CHECK_EQ(get_status(&h, &st), 0);
	CHECK_EQ(st.state, SPOOR_PROBE_IDLE);
	CHECK_EQ(st.bytes_captured, 0);
	host_close(&h);
	CHECK_EQ(sim_end(&s, true), 0);
	free(ref);
}

/* One host at a time: a second connection is closed at once; the first goes on. */
static void test_one_host(void)
{
	struct spoor_probe_info info;
	struct sim s;
	struct host h;
	uint8_t b;
	int fd;

	CHECK(!sim_start(&s, NULL));
	CHECK(!host_open(&h, s.port, NULL, 0));
	CHECK_EQ(get_info(&h, &info), 0);
	fd = connect_port(s.port);
	CHECK(fd >= 0);
	if (fd >= 0) {
		CHECK_EQ(recv_all(fd, &b, 1, now_ms() + 2000), -3);
		close(fd);
	}
	CHECK_EQ(get_info(&h, &info), 0);
	CHECK(!strcmp(info.serial, "SIM0001"));
	host_close(&h);
	CHECK_EQ(sim_end(&s, true), 0);
}

/* Bad usage and unusable inputs: exit status 2, at once. */
static void test_usage(void)
{
	static const char *const bad[][4] = {
		{ "--buffer", "1000" }, { "--drop-at", "5" }, { "--drop-at", "5:0" },
		{ "--input", "/nonexistent/trace.bin" }, { "--input", "/" },
		{ "--input", "tcp:nohost" }, { "--rate", "fast" }, { "--serial", "" },
		{ "--serial", "0123456789abcdef0123456789abcdefX" }, { "--listen", "99999" },
		{ "stray" }, { "--stall-after", "-1" },
	};
	struct sim s;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(sim_start(&s, bad[i]));
		CHECK_EQ(sim_end(&s, false), 2);
	}
}

static const struct {
	const char *name;
	void (*run)(void);
} tests[] = {
	{ "stream", test_stream }, { "drop", test_drop }, { "capture", test_capture },
	{ "overflow", test_overflow }, { "rate_loop", test_rate_loop }, { "dfu", test_dfu },
	{ "stall", test_stall }, { "unplug", test_unplug }, { "one_host", test_one_host },
	{ "tcp_input", test_tcp_input }, { "usage", test_usage },
};

/* Removes the temporary directory's files and the directory. */
static void cleanup(void)
{
	static const char *const names[] = {
		"raw.bin", "drop.bin", "replay.spoorcap", "fast.bin", "loop.bin", "flash.bin",
		"notflash.bin", "unplug.bin",
	};
	char path[512];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", tmpdir, names[i]);
		unlink(path);
	}
	rmdir(tmpdir);
}

int main(int argc, char **argv)
{
	const char *tmp = getenv("TMPDIR");
	int ran = 0;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: %s [NAME...]\nRuns the sim port's tests against %s over TCP "
		       "(all, or the NAMEs:", argv[0], SIM_PROGRAM);
		for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
			printf(" %s", tests[i].name);
		printf(") and prints \"N passed, N failed\"; exit status 0 when none failed, "
		       "1 when some did, 2 for an unknown NAME.\n");
		return 0;
	}
	signal(SIGPIPE, SIG_IGN);
	snprintf(tmpdir, sizeof(tmpdir), "%s/spoor-sim-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 2;
	}
	for (int a = 1; a < argc; a++) {
		size_t i;

		for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
			if (!strcmp(argv[a], tests[i].name))
				break;
		if (i == sizeof(tests) / sizeof(tests[0])) {
			fprintf(stderr, "%s: no test '%s' (try --help)\n", argv[0], argv[a]);
			cleanup();
			return 2;
		}
		tests[i].run();
		ran++;
	}
	for (size_t i = 0; !ran && i < sizeof(tests) / sizeof(tests[0]); i++)
		tests[i].run();
	cleanup();
	return check_done();
}
