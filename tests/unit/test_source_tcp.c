// SPDX-License-Identifier: MIT
/*
 * Tests for the tcp: trace source and the layer above it (spoor/source.h)
 * against a scripted probe on loopback: requests and replies, bulk bytes
 * that come while a request waits (kept, in order), a short, malformed or
 * missing reply (an error, never a hang), a STALL, zero-length messages, a
 * probe that goes away and comes back; and spoor_dfu_flash() against the
 * sim probe: a download interrupted halfway leaves the old firmware running.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "spoor/dfu.h"
#include "spoor/error.h"
#include "spoor/source.h"

/* What the scripted probe does with the requests of one connection. */
enum script {
	S_GOOD,		/* GET_INFO answered; bulk records sent before each reply */
	S_SHORT,	/* GET_INFO answered with 10 bytes */
	S_BAD_KIND,	/* a reply of an unknown kind */
	S_SILENT,	/* no reply at all */
	S_STALL,	/* every request stalled */
	S_CLOSE,	/* the connection closed after the first reply */
};

struct fake {
	int listen_fd;
	uint16_t port;
	enum script script;
	pthread_t thread;
};

/* Sends a message of @kind/@status with @len bytes of @data. */
static void send_msg(int fd, uint8_t kind, uint8_t status, const void *data, uint32_t len)
{
	struct spoor_probe_msg m = { .kind = kind, .status = status, .length = len };
	uint8_t h[SPOOR_PROBE_MSG_HEADER];

	if (kind == 'X') {
		memset(h, 0, sizeof(h));
		h[0] = 'X';
	} else {
		spoor_probe_msg_encode(&m, h);
	}
	if (send(fd, h, sizeof(h), MSG_NOSIGNAL) < 0 ||
	    (len && send(fd, data, len, MSG_NOSIGNAL) < 0))
		return;
}

/* Reads exactly @n bytes; false at the end. */
static bool read_all(int fd, uint8_t *b, size_t n)
{
	while (n) {
		ssize_t k = read(fd, b, n);

		if (k <= 0)
			return false;
		b += k;
		n -= (size_t)k;
	}
	return true;
}

/* A DATA record of @n bytes (values from @first), sequence @seq. */
static size_t data_record(uint8_t *out, uint8_t seq, uint8_t first, size_t n)
{
	spoor_probe_record_header(SPOOR_PROBE_REC_DATA, seq, n, out);
	for (size_t i = 0; i < n; i++)
		out[SPOOR_PROBE_REC_HEADER + i] = (uint8_t)(first + i);
	return SPOOR_PROBE_REC_HEADER + n;
}

/* One connection's requests, answered as the script says. */
static void serve(struct fake *f, int fd)
{
	struct spoor_probe_info info = {
		.protocol_version = SPOOR_PROBE_PROTOCOL_VERSION, .firmware_version = 0x010000,
		.port_widths = 0x808b, .serial = "FAKE1", .target = SPOOR_PROBE_TARGET_SIM,
	};
	uint8_t setup[SPOOR_PROBE_SETUP_SIZE], payload[4096], rec[64];
	struct spoor_probe_setup s;
	uint8_t seq = 0;
	unsigned replies = 0;

	while (read_all(fd, setup, sizeof(setup))) {
		spoor_probe_setup_decode(setup, sizeof(setup), &s);
		if (!(s.request_type & 0x80) && s.length && !read_all(fd, payload, s.length))
			break;
		switch (f->script) {
		case S_GOOD: {
			/* Bulk bytes first: the host keeps them for its next poll. */
			size_t n = data_record(rec, seq, (uint8_t)(seq * 16), 16);

			seq++;
			send_msg(fd, SPOOR_PROBE_MSG_BULK, 0, rec, 5);
			send_msg(fd, SPOOR_PROBE_MSG_BULK, 0, NULL, 0);
			send_msg(fd, SPOOR_PROBE_MSG_BULK, 0, rec + 5, (uint32_t)n - 5);
			if (s.request == SPOOR_PROBE_GET_INFO && (s.request_type & 0x80)) {
				spoor_probe_info_encode(&info, payload);
				send_msg(fd, SPOOR_PROBE_MSG_CONTROL, 0, payload, SPOOR_PROBE_INFO_SIZE);
			} else {
				send_msg(fd, SPOOR_PROBE_MSG_CONTROL, 0, NULL, 0);
			}
			break;
		}
		case S_SHORT:
			memset(payload, 0, 10);
			send_msg(fd, SPOOR_PROBE_MSG_CONTROL, 0, payload, 10);
			break;
		case S_BAD_KIND:
			send_msg(fd, 'X', 0, NULL, 0);
			break;
		case S_SILENT:
			break;
		case S_STALL:
			send_msg(fd, SPOOR_PROBE_MSG_CONTROL, SPOOR_PROBE_STALL, NULL, 0);
			break;
		case S_CLOSE:
			spoor_probe_info_encode(&info, payload);
			send_msg(fd, SPOOR_PROBE_MSG_CONTROL, 0, payload, SPOOR_PROBE_INFO_SIZE);
			return;
		}
		replies++;
	}
	(void)replies;
}

static void *fake_thread(void *arg)
{
	struct fake *f = arg;
	int fd;

	while ((fd = accept(f->listen_fd, NULL, NULL)) >= 0) {
		serve(f, fd);
		close(fd);
	}
	return NULL;
}

/* Starts a scripted probe on 127.0.0.1; returns false if it can't. */
static bool fake_start(struct fake *f, enum script script)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);

	f->script = script;
	f->listen_fd = socket(AF_INET, SOCK_STREAM, 0);
	if (f->listen_fd < 0 || bind(f->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(f->listen_fd, 4) || getsockname(f->listen_fd, (struct sockaddr *)&sa, &len))
		return false;
	f->port = ntohs(sa.sin_port);
	return !pthread_create(&f->thread, NULL, fake_thread, f);
}

static void fake_stop(struct fake *f)
{
	shutdown(f->listen_fd, SHUT_RDWR);
	close(f->listen_fd);
	pthread_join(f->thread, NULL);
}

/* Opens tcp:127.0.0.1:PORT. */
static int open_fake(const struct fake *f, struct spoor_source **src, struct spoor_diag *d)
{
	char spec[64];

	snprintf(spec, sizeof(spec), "tcp:127.0.0.1:%u", f->port);
	return spoor_source_open(spec, src, d);
}

struct got {
	uint8_t bytes[4096];
	size_t n;
	uint64_t next;
	bool in_order;
};

static void got_data(void *ctx, uint64_t offset, const uint8_t *buf, size_t len)
{
	struct got *g = ctx;

	g->in_order &= offset == g->next;
	g->next = offset + len;
	if (g->n + len <= sizeof(g->bytes)) {
		memcpy(g->bytes + g->n, buf, len);
		g->n += len;
	}
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Requests, replies, and the bulk bytes that came meanwhile, in order. */
static void test_good(void)
{
	static const struct spoor_source_ops ops = { .data = got_data };
	struct spoor_probe_info info;
	struct spoor_source *src = NULL;
	struct got g = { .in_order = true };
	struct spoor_diag d;
	struct fake f;
	double t0;
	int ret;

	CHECK(fake_start(&f, S_GOOD));
	CHECK_EQ(open_fake(&f, &src, &d), 0);
	CHECK(spoor_source_live(src));
	CHECK_EQ(spoor_source_info(src, &info), 0);
	CHECK(!strcmp(info.serial, "FAKE1"));
	CHECK_EQ(info.target, SPOOR_PROBE_TARGET_SIM);
	CHECK_EQ(spoor_source_start(src), 0);	/* the record stream starts anew */
	CHECK_EQ(spoor_source_status(src, &(struct spoor_probe_status){ 0 }), SPOOR_E_PROTOCOL);
	t0 = now();
	while (g.n < 48 && now() - t0 < 5) {
		ret = spoor_source_poll(src, 100, &ops, &g);
		CHECK(ret >= 0);
		if (ret < 0)
			break;
	}
	/* Three requests, each preceded by one 16-byte record: all of them, in order. */
	CHECK_EQ(g.n, 48);
	CHECK(g.in_order);
	for (size_t i = 0; i < g.n; i++)
		if (g.bytes[i] != (uint8_t)i)
			CHECK(!"bytes out of order");
	spoor_source_close(src);
	fake_stop(&f);
}

/* A reply that is short, malformed, missing or a STALL: an error in bounded time. */
static void test_bad_replies(void)
{
	struct spoor_probe_info info;
	struct spoor_source *src = NULL;
	struct spoor_diag d;
	struct fake f;
	double t0;

	CHECK(fake_start(&f, S_SHORT));
	CHECK_EQ(open_fake(&f, &src, &d), 0);
	CHECK_EQ(spoor_source_info(src, &info), SPOOR_E_PROTOCOL);
	spoor_source_close(src);
	fake_stop(&f);

	CHECK(fake_start(&f, S_BAD_KIND));
	CHECK_EQ(open_fake(&f, &src, &d), 0);
	CHECK_EQ(spoor_source_info(src, &info), SPOOR_E_PROTOCOL);
	/* The stream's state is lost: the connection is dropped, later calls fail cleanly. */
	CHECK_EQ(spoor_source_info(src, &info), SPOOR_E_NO_DEVICE);
	spoor_source_close(src);
	fake_stop(&f);

	CHECK(fake_start(&f, S_SILENT));
	CHECK_EQ(open_fake(&f, &src, &d), 0);
	t0 = now();
	CHECK_EQ(spoor_source_info(src, &info), SPOOR_E_TIMEOUT);
	CHECK(now() - t0 < 3);
	spoor_source_close(src);
	fake_stop(&f);

	CHECK(fake_start(&f, S_STALL));
	CHECK_EQ(open_fake(&f, &src, &d), 0);
	CHECK_EQ(spoor_source_info(src, &info), SPOOR_E_STALL);
	CHECK_EQ(spoor_source_start(src), SPOOR_E_STALL);
	spoor_source_close(src);
	fake_stop(&f);
}

/* The probe goes away: NO_DEVICE; reconnect finds it again, with an unknown loss. */
static void test_gone(void)
{
	static const struct spoor_source_ops ops = { 0 };
	struct spoor_probe_info info;
	struct spoor_source *src = NULL;
	struct spoor_diag d;
	struct fake f;
	int ret = 0;

	CHECK(fake_start(&f, S_CLOSE));
	CHECK_EQ(open_fake(&f, &src, &d), 0);
	CHECK_EQ(spoor_source_info(src, &info), 0);
	for (int i = 0; i < 50 && ret >= 0; i++)
		ret = spoor_source_poll(src, 20, &ops, NULL);
	CHECK_EQ(ret, SPOOR_E_NO_DEVICE);
	CHECK_EQ(spoor_source_reconnect(src, 2000), 0);
	CHECK_EQ(spoor_source_info(src, &info), 0);
	spoor_source_close(src);
	fake_stop(&f);

	/* Nothing there at all. */
	CHECK_EQ(spoor_source_open("tcp:127.0.0.1:1", &src, &d), SPOOR_E_NO_DEVICE);
	CHECK(strstr(d.msg, "tcp:127.0.0.1:1") != NULL);
	CHECK_EQ(spoor_source_open("tcp:nowhere", &src, &d), SPOOR_E_INVAL);
	CHECK_EQ(spoor_source_open("", &src, &d), SPOOR_E_INVAL);
}

/* The sim probe on a free port; returns its pid and sets *@port. */
static pid_t start_sim(const char *flash, uint16_t *port)
{
	int p[2];
	pid_t pid;
	char line[128];
	FILE *in;

	if (pipe(p))
		return -1;
	pid = fork();
	if (!pid) {
		dup2(p[1], STDOUT_FILENO);
		close(p[0]);
		execl(SPOOR_SIM, SPOOR_SIM, "--listen", "127.0.0.1:0", "--flash", flash, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	in = fdopen(p[0], "r");
	*port = 0;
	if (in && fgets(line, sizeof(line), in))
		sscanf(line, "listening on 127.0.0.1:%hu", port);
	if (in)
		fclose(in);
	return pid;
}

static int cancels;

/* Gives up after the tenth block written. */
static bool cancel_halfway(void *ctx)
{
	(void)ctx;
	return ++cancels > 10;
}

/* spoor_dfu_flash(): interrupted, refused, then done; the version says which runs. */
static void test_flash(void)
{
	struct spoor_dfu_ops stop = { .cancel = cancel_halfway };
	char flash[] = "/tmp/spoor-test-flash-XXXXXX", spec[64];
	struct spoor_source *src = NULL;
	struct spoor_probe_image hdr = { .target = SPOOR_PROBE_TARGET_SIM, .version = 0x020304 };
	struct spoor_probe_info info;
	struct spoor_diag d;
	uint32_t old_v = 0, new_v = 0;
	size_t len = SPOOR_PROBE_IMAGE_HEADER + 300000;
	uint8_t *img = malloc(len);
	uint16_t port;
	pid_t sim;
	int fd = mkstemp(flash);

	CHECK(img && fd >= 0);
	if (!img || fd < 0)
		return;
	close(fd);
	unlink(flash);	/* the sim makes it, with firmware 1.0.0 */
	for (size_t i = SPOOR_PROBE_IMAGE_HEADER; i < len; i++)
		img[i] = (uint8_t)(i * 7);
	hdr.length = (uint32_t)(len - SPOOR_PROBE_IMAGE_HEADER);
	hdr.crc32 = spoor_probe_crc32(0, img + SPOOR_PROBE_IMAGE_HEADER, hdr.length);
	spoor_probe_image_header(&hdr, img);
	sim = start_sim(flash, &port);
	CHECK(sim > 0 && port);
	snprintf(spec, sizeof(spec), "tcp:127.0.0.1:%u", port);
	CHECK_EQ(spoor_source_open(spec, &src, &d), 0);
	if (!src)
		goto out;
	/* Interrupted after ten blocks: aborted, 1.0.0 still runs. */
	CHECK_EQ(spoor_dfu_flash(src, img, len, &stop, NULL, &old_v, &new_v, &d), SPOOR_E_INVAL);
	CHECK(strstr(d.msg, "interrupted") && strstr(d.msg, "old firmware still runs"));
	CHECK_EQ(old_v, 0x010000);
	/* Back at run time by itself: GET_INFO answers (it stalls in DFU mode). */
	CHECK_EQ(spoor_source_info(src, &info), 0);
	CHECK_EQ(info.firmware_version, 0x010000);
	/* A damaged body: refused before anything is sent. */
	img[SPOOR_PROBE_IMAGE_HEADER + 5] ^= 1;
	CHECK_EQ(spoor_dfu_flash(src, img, len, NULL, NULL, NULL, NULL, &d), SPOOR_E_CHECKSUM);
	img[SPOOR_PROBE_IMAGE_HEADER + 5] ^= 1;
	/* And now through: verified, 2.3.4 runs. */
	CHECK_EQ(spoor_dfu_flash(src, img, len, NULL, NULL, &old_v, &new_v, &d), 0);
	CHECK_EQ(new_v, 0x020304);
	CHECK_EQ(spoor_source_info(src, &info), 0);
	CHECK_EQ(info.firmware_version, 0x020304);
out:
	spoor_source_close(src);
	if (sim > 0) {
		kill(sim, SIGTERM);
		waitpid(sim, NULL, 0);
	}
	unlink(flash);
	free(img);
}

/* spoor_source_config_for(): the encapsulation's fields, and the port width by default. */
static void test_config_for(void)
{
	struct spoor_encap_config e = { .kind = SPOOR_ENCAP_SIEMENS, .src_bits = 6, .type_bits = 2 };
	struct spoor_probe_info fifo = { .port_widths = 1u << 7 };	/* 8 bits only */
	struct spoor_probe_info all = { .port_widths = 0x808b };
	struct spoor_probe_config c = { 0 };

	spoor_source_config_for(&c, &e, NULL);
	CHECK(c.encap == SPOOR_ENCAP_SIEMENS && c.src_bits == 6 && c.type_bits == 2);
	CHECK_EQ(c.port_width, 4);
	c.port_width = 0;
	spoor_source_config_for(&c, NULL, &fifo);
	CHECK_EQ(c.port_width, 8);
	CHECK_EQ(c.encap, SPOOR_ENCAP_SIEMENS);	/* left as it was */
	c.port_width = 0;
	spoor_source_config_for(&c, NULL, &all);
	CHECK_EQ(c.port_width, 4);
	c.port_width = 2;	/* given: kept, even if the probe lacks it */
	spoor_source_config_for(&c, NULL, &fifo);
	CHECK_EQ(c.port_width, 2);
}

int main(int argc, char **argv)
{
	check_args(argc, argv,
		   "Tests for the tcp: trace source (scripted probe) and spoor_dfu_flash() (sim).");
	signal(SIGPIPE, SIG_IGN);
	test_config_for();
	test_good();
	test_bad_replies();
	test_gone();
	test_flash();
	return check_done();
}
