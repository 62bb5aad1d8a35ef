// SPDX-License-Identifier: MIT
/*
 * spoor gdbserver against hostile and clumsy peers, on loopback: bad
 * checksums, junk, oversized and truncated packets, malformed requests,
 * binary noise, a client that leaves mid-transfer; and in proxy mode an
 * "OpenOCD" (played here) that refuses, answers garbage or dies.  After
 * each, the server must still answer the next GDB connection.
 *
 * usage: rsp_torture SPOOR ELF BOARD CAPTURE   (prints "N passed, N failed")
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "spoor/rsp.h"

static unsigned passed, failed;

#define CHECK(cond, what) do { \
	if (cond) { \
		passed++; \
	} else { \
		failed++; \
		fprintf(stderr, "FAIL: %s (line %d)\n", what, __LINE__); \
	} \
} while (0)

/* Connects to 127.0.0.1:@port; returns the socket or -1. */
static int dial(unsigned port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Writes @len bytes; returns false on an error. */
static bool put(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
	}
	return true;
}

/* Sends @body framed. */
static bool send_pkt(int fd, const char *body)
{
	uint8_t buf[4096];
	int n = spoor_rsp_frame('$', body, strlen(body), buf, sizeof(buf));

	return n > 0 && put(fd, buf, (size_t)n);
}

/*
 * Reads bytes for up to @ms until a whole packet came; its body into @out.
 * Returns the body's length, -1 on time-out or close.  Acks and '-' go to @acks.
 */
static int recv_pkt(int fd, char *out, size_t room, int ms, char *acks, size_t acks_room)
{
	struct spoor_rsp_decoder *d = spoor_rsp_decoder_new(NULL);
	struct spoor_rsp_item it;
	uint8_t buf[4096];
	size_t na = 0;
	int ret = -1;

	if (acks)
		acks[0] = '\0';
	while (d) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;
		int k;

		if (poll(&p, 1, ms) <= 0)
			break;
		n = recv(fd, buf, 1, 0);	/* byte by byte: nothing of the next reply is lost */
		if (n <= 0)
			break;
		spoor_rsp_feed(d, buf, (size_t)n);
		while ((k = spoor_rsp_next(d, &it, sizeof(it))) > 0) {
			if ((k == SPOOR_RSP_ACK || k == SPOOR_RSP_NAK) && acks && na + 1 < acks_room) {
				acks[na++] = k == SPOOR_RSP_ACK ? '+' : '-';
				acks[na] = '\0';
			}
			if (k == SPOOR_RSP_PACKET && ret < 0) {
				size_t m = it.len < room ? it.len : room - 1;

				memcpy(out, it.data, m);	/* binary bodies too */
				out[m] = '\0';
				ret = (int)it.len;
			}
		}
		if (ret >= 0)
			break;
	}
	spoor_rsp_decoder_free(d);
	return ret;
}

/* One request, its reply (acknowledged).  Returns the reply length or -1. */
static int ask(int fd, const char *req, char *out, size_t room)
{
	int n;

	if (!send_pkt(fd, req))
		return -1;
	n = recv_pkt(fd, out, room, 3000, NULL, 0);
	if (n >= 0)
		put(fd, "+", 1);
	return n;
}

/* A fresh connection answers qSupported with btrace features. */
static bool healthy(unsigned port)
{
	char reply[4096];
	int fd = dial(port), n;
	bool ok;

	if (fd < 0)
		return false;
	put(fd, "+", 1);
	n = ask(fd, "qSupported:multiprocess+;swbreak+", reply, sizeof(reply));
	ok = n > 0 && strstr(reply, "qXfer:btrace:read+");
	close(fd);
	return ok;
}

/* Starts `spoor gdbserver ARGS --port 0` and returns its pid; its port in *@port. */
static pid_t start(char *const argv[], unsigned *port)
{
	int p[2];
	pid_t pid;
	char line[256];
	FILE *f;

	if (pipe(p))
		return -1;
	pid = fork();
	if (!pid) {
		dup2(p[1], STDOUT_FILENO);
		close(p[0]);
		close(p[1]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	f = fdopen(p[0], "r");
	*port = 0;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "gdb: 127.0.0.1:%u", port) == 1)
			break;
	/* The rest of its output is not needed; the pipe stays open. */
	return pid;
}

/* Stops the server; returns its exit status (-1 if it crashed). */
static int stop(pid_t pid)
{
	int st;

	kill(pid, SIGTERM);
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void torture_replay(const char *spoor, const char *elf, const char *board,
			   const char *cap)
{
	char *const argv[] = { (char *)spoor, "gdbserver", "--replay", (char *)cap, "--elf",
			       (char *)elf, "--board", (char *)board, "--unsynced", "--port", "0",
			       NULL };
	char reply[65536], acks[16];
	unsigned port;
	pid_t pid = start(argv, &port);
	uint8_t noise[65536];
	int fd, n;

	CHECK(pid > 0 && port, "replay server started");
	if (pid <= 0 || !port)
		return;
	CHECK(healthy(port), "first connection");

	/* A bad checksum is answered with '-', then a good packet works. */
	fd = dial(port);
	put(fd, "$qC#00", 6);
	n = recv_pkt(fd, reply, sizeof(reply), 500, acks, sizeof(acks));
	CHECK(n < 0 && strchr(acks, '-'), "bad checksum gets '-'");
	n = ask(fd, "qC", reply, sizeof(reply));
	CHECK(n > 0 && !strncmp(reply, "QC", 2), "good packet after a bad one");
	/* Junk between packets is skipped. */
	put(fd, "\x01\x02 junk junk ###", 16);
	n = ask(fd, "qAttached", reply, sizeof(reply));
	CHECK(n == 1 && reply[0] == '1', "packet after junk");
	/* Malformed requests: clear errors. */
	n = ask(fd, "qXfer:btrace:read:bogus:0,100", reply, sizeof(reply));
	CHECK(n > 2 && !strncmp(reply, "E.", 2), "unknown btrace annex");
	n = ask(fd, "qXfer:btrace:read:all:zz", reply, sizeof(reply));
	CHECK(n > 2 && !strncmp(reply, "E.", 2), "malformed qXfer offsets");
	n = ask(fd, "mnothex,4", reply, sizeof(reply));
	CHECK(n > 0 && reply[0] == 'E', "malformed m");
	n = ask(fd, "m10,4", reply, sizeof(reply));
	CHECK(n > 0 && reply[0] == 'E', "unmapped memory");
	n = ask(fd, "X80000000,4:abcd", reply, sizeof(reply));
	CHECK(n > 0 && reply[0] == 'E', "writes refused");
	n = ask(fd, "qRcmd,626f677573", reply, sizeof(reply));	/* "bogus" */
	CHECK(n > 0 && reply[0] == 'E', "unknown monitor command");
	n = ask(fd, "qRcmd,747261636520666f6f", reply, sizeof(reply));	/* "trace foo" */
	CHECK(n > 0 && reply[0] == 'E', "unknown trace command");
	n = ask(fd, "qRcmd,7", reply, sizeof(reply));
	CHECK(n > 0 && reply[0] == 'E', "odd hex in qRcmd");
	n = ask(fd, "Qbtrace-conf:bts:size=0", reply, sizeof(reply));
	CHECK(n > 0 && reply[0] == 'E', "bts size 0");
	n = ask(fd, "p999", reply, sizeof(reply));
	CHECK(n > 0 && reply[0] == 'E', "register out of range");
	/* An oversized packet is dropped; the next one is served. */
	{
		static char big[0x20000];

		memset(big, 'a', sizeof(big) - 1);
		big[0] = '$';
		memcpy(big + sizeof(big) - 4, "#00", 3);
		put(fd, big, sizeof(big) - 1);
		n = ask(fd, "qC", reply, sizeof(reply));
		CHECK(n > 0 && !strncmp(reply, "QC", 2), "packet after an oversized one");
	}
	close(fd);
	CHECK(healthy(port), "after malformed requests");

	/* Binary noise, then a connection that ends mid-packet. */
	fd = dial(port);
	srand(7);
	for (size_t i = 0; i < sizeof(noise); i++)
		noise[i] = (uint8_t)rand();
	put(fd, noise, sizeof(noise));
	put(fd, "$qXfer:btrace:read:al", 21);
	close(fd);
	CHECK(healthy(port), "after binary noise and a truncated packet");

	/* A client that asks for the whole history and leaves without reading. */
	fd = dial(port);
	send_pkt(fd, "qXfer:btrace:read:all:0,ffff");
	close(fd);
	CHECK(healthy(port), "after a client left mid-transfer");
	CHECK(stop(pid) == 0, "replay server exits cleanly on SIGTERM");
}

/* Listens on a free loopback port; returns the socket, the port in *@port. */
static int listen_any(unsigned *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 4) ||
	    getsockname(fd, (struct sockaddr *)&a, &len))
		return -1;
	*port = ntohs(a.sin_port);
	return fd;
}

/* Waits up to @ms for a connection on @lfd. */
static int accept_ms(int lfd, int ms)
{
	struct pollfd p = { .fd = lfd, .events = POLLIN };

	return poll(&p, 1, ms) > 0 ? accept(lfd, NULL, NULL) : -1;
}

/* A new GDB connection through the proxy: qC reaches "OpenOCD" (@lfd) and its answer comes back. */
static bool healthy_proxy(unsigned port, int lfd)
{
	char reply[256];
	int fd = dial(port), ofd, n;
	bool ok = false;

	if (fd < 0)
		return false;
	put(fd, "+", 1);
	send_pkt(fd, "qC");
	ofd = accept_ms(lfd, 3000);
	for (int i = 0; ofd >= 0 && i < 3; i++) {
		n = recv_pkt(ofd, reply, sizeof(reply), 3000, NULL, 0);
		if (n < 0)
			break;
		if (!strcmp(reply, "qC")) {
			send_pkt(ofd, "QC1");
			n = recv_pkt(fd, reply, sizeof(reply), 3000, NULL, 0);
			ok = n == 3 && !strcmp(reply, "QC1");
			break;
		}
		send_pkt(ofd, "E01");	/* the server's own questions */
	}
	if (ofd >= 0)
		close(ofd);
	close(fd);
	return ok;
}

static void torture_proxy(const char *spoor, const char *elf, const char *board)
{
	char upstream[64], reply[4096];
	unsigned up_port, port;
	int lfd = listen_any(&up_port), fd, ofd, n;
	pid_t pid;

	if (lfd < 0) {
		CHECK(0, "fake OpenOCD listens");
		return;
	}
	snprintf(upstream, sizeof(upstream), "127.0.0.1:%u", up_port);
	{
		char *const argv[] = { (char *)spoor, "gdbserver", "--openocd", upstream, "--elf",
				       (char *)elf, "--board", (char *)board, "--port", "0", NULL };

		pid = start(argv, &port);
	}
	CHECK(pid > 0 && port, "proxy server started");
	if (pid <= 0 || !port)
		return;

	/* "OpenOCD" answers the first packet and then dies mid-session. */
	fd = dial(port);
	put(fd, "+", 1);
	send_pkt(fd, "qSupported:swbreak+");
	ofd = accept_ms(lfd, 3000);
	CHECK(ofd >= 0, "the proxy connects to OpenOCD");
	n = recv_pkt(ofd, reply, sizeof(reply), 3000, NULL, 0);
	CHECK(n > 0 && !strncmp(reply, "qSupported", 10), "qSupported forwarded unchanged");
	put(ofd, "+", 1);
	send_pkt(ofd, "PacketSize=4000;QStartNoAckMode+");
	n = recv_pkt(fd, reply, sizeof(reply), 3000, NULL, 0);
	CHECK(n > 0 && strstr(reply, "PacketSize=4000;QStartNoAckMode+;Qbtrace:bts+"),
	      "qSupported reply extended");
	put(fd, "+", 1);
	/* Garbage from OpenOCD is reported, not forwarded, not fatal. */
	put(ofd, "\x07\x07 garbage", 10);
	send_pkt(fd, "qC");
	n = recv_pkt(ofd, reply, sizeof(reply), 3000, NULL, 0);
	CHECK(n == 2, "qC forwarded after OpenOCD's garbage");
	send_pkt(ofd, "QC1");
	n = recv_pkt(fd, reply, sizeof(reply), 3000, NULL, 0);
	CHECK(n == 3 && !strcmp(reply, "QC1"), "reply passed back");
	put(fd, "+", 1);
	/* Binary data goes through intact. */
	{
		static const uint8_t body[] = "X80000000,6:#}$*\x00\xff";
		uint8_t framed[64];
		int m = spoor_rsp_frame('$', body, sizeof(body) - 1, framed, sizeof(framed));

		put(fd, framed, (size_t)m);
		n = recv_pkt(ofd, reply, sizeof(reply), 3000, NULL, 0);
		CHECK(n == (int)sizeof(body) - 1 && !memcmp(reply, body, sizeof(body) - 1),
		      "binary X packet forwarded intact");
		send_pkt(ofd, "OK");
		n = recv_pkt(fd, reply, sizeof(reply), 3000, NULL, 0);
		CHECK(n == 2, "X reply");
		put(fd, "+", 1);
	}
	/* A monitor command's console output, in several packets, then OK. */
	send_pkt(fd, "qRcmd,7265736574");	/* "reset": OpenOCD's */
	n = recv_pkt(ofd, reply, sizeof(reply), 3000, NULL, 0);
	CHECK(n > 0 && !strcmp(reply, "qRcmd,7265736574"), "other monitor commands forwarded");
	send_pkt(ofd, "O6f6e650a");
	send_pkt(ofd, "O74776f0a");
	send_pkt(ofd, "OK");
	n = recv_pkt(fd, reply, sizeof(reply), 3000, NULL, 0);
	CHECK(n > 0 && !strcmp(reply, "O6f6e650a"), "console output 1");
	n = recv_pkt(fd, reply, sizeof(reply), 3000, NULL, 0);
	CHECK(n > 0 && !strcmp(reply, "O74776f0a"), "console output 2");
	n = recv_pkt(fd, reply, sizeof(reply), 3000, NULL, 0);
	CHECK(n == 2 && !strcmp(reply, "OK"), "monitor command's end");
	/* Continue, Ctrl-C, an empty keep-alive, the stop reply. */
	send_pkt(fd, "vCont;c");
	n = recv_pkt(ofd, reply, sizeof(reply), 3000, NULL, 0);
	CHECK(n > 0 && !strcmp(reply, "vCont;c"), "vCont forwarded");
	put(fd, "\x03", 1);
	{
		struct pollfd pf = { .fd = ofd, .events = POLLIN };
		char c = 0;

		CHECK(poll(&pf, 1, 3000) > 0 && recv(ofd, &c, 1, 0) == 1 && c == 3,
		      "Ctrl-C forwarded");
	}
	send_pkt(ofd, "");
	send_pkt(ofd, "T02");
	n = recv_pkt(fd, reply, sizeof(reply), 3000, NULL, 0);
	CHECK(n == 0, "empty packet passed through");
	n = recv_pkt(fd, reply, sizeof(reply), 3000, NULL, 0);
	CHECK(n == 3 && !strcmp(reply, "T02"), "stop reply after the interrupt");
	/* Now OpenOCD dies while GDB waits for an answer. */
	send_pkt(fd, "g");
	recv_pkt(ofd, reply, sizeof(reply), 3000, NULL, 0);
	close(ofd);
	n = recv_pkt(fd, reply, sizeof(reply), 3000, NULL, 0);
	CHECK(n > 2 && !strncmp(reply, "E.", 2) && strstr(reply, "OpenOCD"),
	      "GDB told that OpenOCD went away");
	close(fd);

	/* The next GDB connection works again (with a new OpenOCD connection). */
	fd = dial(port);
	put(fd, "+", 1);
	send_pkt(fd, "qC");
	ofd = accept_ms(lfd, 3000);
	CHECK(ofd >= 0, "reconnects to OpenOCD for the next session");
	n = recv_pkt(ofd, reply, sizeof(reply), 3000, NULL, 0);
	CHECK(n == 2, "next session forwards");
	close(ofd);
	close(fd);

	/* OpenOCD refusing (nothing listening): GDB gets an error naming it. */
	close(lfd);
	fd = dial(port);
	put(fd, "+", 1);
	send_pkt(fd, "qSupported");
	n = recv_pkt(fd, reply, sizeof(reply), 3000, NULL, 0);
	CHECK(n > 2 && !strncmp(reply, "E.", 2) && strstr(reply, "OpenOCD"),
	      "GDB told that OpenOCD refuses");
	close(fd);
	CHECK(stop(pid) == 0, "proxy server exits cleanly on SIGTERM");
}

/* Collects the console output (O packets) GDB gets until the final OK into @text. */
static void console_text(int fd, char *text, size_t size)
{
	char reply[4096];
	int n;

	text[0] = '\0';
	for (int i = 0; i < 20; i++) {
		size_t k = strlen(text);
		int m;

		n = recv_pkt(fd, reply, sizeof(reply), 3000, NULL, 0);
		if (n < 0 || !strcmp(reply, "OK"))
			return;
		if (reply[0] != 'O')
			continue;
		m = spoor_rsp_unhex(reply + 1, (size_t)n - 1, (uint8_t *)text + k, size - k - 1);
		if (m > 0)
			text[k + (size_t)m] = '\0';
	}
}

/*
 * Starts spoor gdbserver in front of a fake OpenOCD and a fake trace port,
 * both listening here (*@lfd, *@tfd), with --stop-timeout @timeout.
 * Returns its pid (its port in *@port), or -1 after a failed check.
 */
static pid_t start_with_fakes(const char *spoor, const char *elf, const char *board,
			      const char *timeout, unsigned *port, int *lfd, int *tfd)
{
	char upstream[64], tport[64];
	unsigned up_port, t_port;
	pid_t pid;

	*lfd = listen_any(&up_port);
	*tfd = listen_any(&t_port);
	if (*lfd < 0 || *tfd < 0) {
		CHECK(0, "fake OpenOCD and trace port listen");
		return -1;
	}
	snprintf(upstream, sizeof(upstream), "127.0.0.1:%u", up_port);
	snprintf(tport, sizeof(tport), "127.0.0.1:%u", t_port);
	{
		char *const argv[] = { (char *)spoor, "gdbserver", "--openocd", upstream,
				       "--trace-port", tport, "--elf", (char *)elf, "--board",
				       (char *)board, "--stop-timeout", (char *)timeout, "--port",
				       "0", NULL };

		pid = start(argv, port);
	}
	CHECK(pid > 0 && *port, "server with a fake OpenOCD and trace port started");
	return pid > 0 && *port ? pid : -1;
}

/* A trace port that sends noise and closes: reported, never fatal. */
static void torture_trace_port(const char *spoor, const char *elf, const char *board)
{
	char reply[4096], text[4096] = "";
	uint8_t noise[4096];
	unsigned port;
	int lfd, tfd, fd, ofd, cfd, n;
	pid_t pid = start_with_fakes(spoor, elf, board, "1000", &port, &lfd, &tfd);

	if (pid < 0)
		return;
	cfd = accept_ms(tfd, 3000);
	CHECK(cfd >= 0, "the server connects to the trace port");
	srand(11);
	for (size_t i = 0; i < sizeof(noise); i++)
		noise[i] = (uint8_t)rand();
	put(cfd, noise, sizeof(noise));
	close(cfd);
	usleep(200000);
	fd = dial(port);
	put(fd, "+", 1);
	send_pkt(fd, "qRcmd,747261636520737461747573");	/* "trace status" */
	ofd = accept_ms(lfd, 3000);
	/* The server asks whether tracing is on: "OpenOCD" cannot tell. */
	n = recv_pkt(ofd, reply, sizeof(reply), 3000, NULL, 0);
	CHECK(n > 0 && reply[0] == 'm', "the server reads the trace control register");
	send_pkt(ofd, "E01");
	console_text(fd, text, sizeof(text));
	CHECK(strstr(text, "(closed)") && strstr(text, "bytes: 4096"),
	      "status shows the trace port closed after its 4096 bytes");
	close(ofd);
	close(fd);
	CHECK(healthy_proxy(port, lfd), "the server still serves");
	close(lfd);
	close(tfd);
	CHECK(stop(pid) == 0, "server exits cleanly on SIGTERM");
}

/* Milliseconds on the monotonic clock. */
static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Tracing on, but the trace port never reports the halt: the stop reply
 * waits --stop-timeout, then goes to GDB with a gap in the history.
 */
static void torture_stop_timeout(const char *spoor, const char *elf, const char *board)
{
	char reply[4096], text[4096] = "";
	unsigned port;
	int lfd, tfd, fd, ofd, cfd, n;
	long t0, dt;
	pid_t pid = start_with_fakes(spoor, elf, board, "300", &port, &lfd, &tfd);

	if (pid < 0)
		return;
	cfd = accept_ms(tfd, 3000);
	fd = dial(port);
	put(fd, "+", 1);
	send_pkt(fd, "vCont;c");
	ofd = accept_ms(lfd, 3000);
	/* trTeControl: active, enabled, instruction tracing. */
	n = recv_pkt(ofd, reply, sizeof(reply), 3000, NULL, 0);
	CHECK(n > 0 && reply[0] == 'm', "the server reads trTeControl");
	send_pkt(ofd, "07004000");
	n = recv_pkt(ofd, reply, sizeof(reply), 3000, NULL, 0);
	CHECK(n > 0 && !strcmp(reply, "vCont;c"), "vCont forwarded");
	t0 = now_ms();
	send_pkt(ofd, "T05");
	n = recv_pkt(fd, reply, sizeof(reply), 5000, NULL, 0);
	dt = now_ms() - t0;
	CHECK(n == 3 && !strcmp(reply, "T05"), "the stop reply comes");
	CHECK(dt >= 250 && dt < 3000, "after the stop timeout, not later");
	put(fd, "+", 1);
	send_pkt(fd, "qRcmd,747261636520737461747573");	/* "trace status" */
	console_text(fd, text, sizeof(text));
	CHECK(strstr(text, "gaps: 1\n") != NULL, "the lost end of trace is a gap");
	close(ofd);
	close(fd);
	if (cfd >= 0)
		close(cfd);
	close(lfd);
	close(tfd);
	CHECK(stop(pid) == 0, "server exits cleanly on SIGTERM");
}

int main(int argc, char **argv)
{
	static const char usage[] =
		"usage: rsp_torture SPOOR ELF BOARD CAPTURE\n"
		"Attacks a spoor gdbserver (replay of CAPTURE, proxy, trace port) with malformed,\n"
		"oversized and interrupted GDB packets; prints \"N passed, N failed\".\n";

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc != 5) {
		fputs(usage, stderr);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	torture_replay(argv[1], argv[2], argv[3], argv[4]);
	torture_proxy(argv[1], argv[2], argv[3]);
	torture_trace_port(argv[1], argv[2], argv[3]);
	torture_stop_timeout(argv[1], argv[2], argv[3]);
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
