// SPDX-License-Identifier: MIT
/*
 * Benchmark: GDB's branch trace read, end to end over loopback — what GDB
 * does after "record btrace" on a long history: qXfer:btrace:read:all in
 * PacketSize pieces until the last ('l') one, each acknowledged.  It runs
 * against a spoor gdbserver already listening (bench/btrace.sh starts one
 * on a capture) and reports the history's size (monitor trace status), the
 * document's size and the time of the whole read (best of --runs).
 *
 * usage: bench_btrace [--runs N] PORT
 */
#include <arpa/inet.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "spoor/rsp.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct link {
	int fd;
	struct spoor_rsp_decoder *dec;
	uint8_t buf[1 << 16];
	bool pending;
};

/* Sends @body as a packet; returns false on an error. */
static bool send_pkt(struct link *l, const char *body)
{
	uint8_t out[1024];
	int n = spoor_rsp_frame('$', body, strlen(body), out, sizeof(out));

	return n > 0 && write(l->fd, out, (size_t)n) == n;
}

/* Waits for the next packet; copies its body to @out (up to @room); returns its length or -1. */
static long recv_pkt(struct link *l, char *out, size_t room)
{
	struct spoor_rsp_item it;

	for (;;) {
		while (l->pending) {
			int k = spoor_rsp_next(l->dec, &it, sizeof(it));

			if (k == 0) {
				l->pending = false;
				break;
			}
			if (k == SPOOR_RSP_PACKET) {
				size_t n = it.len < room - 1 ? it.len : room - 1;

				memcpy(out, it.data, n);
				out[n] = '\0';
				if (write(l->fd, "+", 1) != 1)
					return -1;
				return (long)it.len;
			}
		}
		ssize_t n = read(l->fd, l->buf, sizeof(l->buf));

		if (n <= 0)
			return -1;
		spoor_rsp_feed(l->dec, l->buf, (size_t)n);
		l->pending = true;
	}
}

int main(int argc, char **argv)
{
	static char reply[1 << 17];
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct spoor_rsp_config rc = { .max_packet = 1 << 17 };
	struct link l = { 0 };
	int runs = 5, one = 1, o;
	double best = 1e9;
	unsigned long long doc = 0, pieces = 0;
	char req[128], status[4096] = "";

	static const struct option opts[] = {
		{ "runs", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char usage[] =
		"usage: bench_btrace [--runs N] PORT\n"
		"Reads GDB's branch trace (qXfer:btrace:read) from a spoor gdbserver on\n"
		"127.0.0.1:PORT the way GDB does, best of N runs (default 5); bench/btrace.sh\n"
		"starts the server on a capture.\n";

	while ((o = getopt_long(argc, argv, "r:h", opts, NULL)) != -1) {
		if (o == 'h') {
			fputs(usage, stdout);
			return 0;
		}
		if (o != 'r' || (runs = atoi(optarg)) < 1) {
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		fputs(usage, stderr);
		return 2;
	}
	a.sin_port = htons((uint16_t)atoi(argv[optind]));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l.fd = socket(AF_INET, SOCK_STREAM, 0);
	l.dec = spoor_rsp_decoder_new(&rc);
	if (l.fd < 0 || !l.dec || connect(l.fd, (struct sockaddr *)&a, sizeof(a))) {
		perror("bench_btrace: connect");
		return 1;
	}
	setsockopt(l.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (write(l.fd, "+", 1) != 1 || !send_pkt(&l, "qSupported:swbreak+") ||
	    recv_pkt(&l, reply, sizeof(reply)) < 0)
		return 1;
	printf("qSupported: %s\n", reply);
	/* "monitor trace status": the history's size. */
	send_pkt(&l, "qRcmd,747261636520737461747573");
	for (;;) {
		long n = recv_pkt(&l, reply, sizeof(reply));

		if (n < 0)
			return 1;
		if (reply[0] != 'O' || !strcmp(reply, "OK"))
			break;
		size_t k = strlen(status);
		int m = spoor_rsp_unhex(reply + 1, (size_t)n - 1, (uint8_t *)status + k,
					sizeof(status) - k - 1);

		if (m > 0)
			status[k + (size_t)m] = '\0';
	}
	fputs(status, stdout);
	for (int r = 0; r < runs; r++) {
		unsigned long long off = 0;
		double t0 = now();

		pieces = 0;
		for (;;) {
			long n;

			snprintf(req, sizeof(req), "qXfer:btrace:read:all:%llx,3ffb", off);
			if (!send_pkt(&l, req))
				return 1;
			n = recv_pkt(&l, reply, sizeof(reply));
			if (n < 1 || (reply[0] != 'm' && reply[0] != 'l')) {
				fprintf(stderr, "bench_btrace: bad reply '%.40s'\n", reply);
				return 1;
			}
			off += (unsigned long long)n - 1;
			pieces++;
			if (reply[0] == 'l')
				break;
		}
		doc = off;
		if (now() - t0 < best)
			best = now() - t0;
	}
	printf("qXfer:btrace:read:all: %.1f KB in %llu pieces, best of %d: %.3f s (%.0f MB/s)\n",
	       (double)doc / 1e3, pieces, runs, best, (double)doc / best / 1e6);
	close(l.fd);
	return 0;
}
