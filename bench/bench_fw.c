// SPDX-License-Identifier: MIT
/*
 * Benchmark: the probe firmware's data path in one process, no host.
 *
 * 1. The portable core (probe/firmware/core/fw.h) alone: spoor_fw_trace_in()
 *    takes the trace in chunks as a DMA would deliver them and
 *    spoor_fw_bulk_in() fills bulk IN transfers with records, alternating,
 *    over a few hundred MB; no byte may be lost.
 * 2. The sim port's device model (probe/firmware/sim/sim.h): its trace port
 *    thread replays a file (--loop, rate 0: lossless) into the core behind
 *    the model's lock while this thread takes bulk transfers as the sim's
 *    USB and TCP fronts do (sim_probe_bulk_in(), sim_probe_wait()), the
 *    records checked as the host reads them (spoor/probe.h).
 *
 * Prints MB/s of trace and ns per byte, and the CPU time used per second
 * of wall time (getrusage: user + sys; 100% is one core busy).
 *
 * usage: bench_fw [--mb N] [--chunk BYTES] [--xfer BYTES] [--buffer BYTES] [FILE]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "fw.h"
#include "sim.h"
#include "spoor/error.h"
#include "spoor/probe.h"

#define SEED_MIN (8u << 20)	/* the input is repeated to at least this */
#define VERIFY_BYTES (32u << 20)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU seconds (user + sys) of @who (RUSAGE_SELF, RUSAGE_THREAD). */
static double cpu(int who)
{
	struct rusage ru;

	getrusage(who, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

static void die(const char *what)
{
	fprintf(stderr, "bench_fw: %s\n", what);
	exit(1);
}

/* Loads @path (or, without one, a byte pattern) repeated to at least SEED_MIN bytes. */
static uint8_t *make_seed(const char *path, size_t *len)
{
	size_t n = 0, one;
	uint8_t *b;
	FILE *f;

	b = malloc(2 * SEED_MIN + (64u << 20));
	if (!b)
		die("out of memory");
	if (path) {
		f = fopen(path, "rb");
		if (!f) {
			perror(path);
			exit(1);
		}
		one = fread(b, 1, 64u << 20, f);
		fclose(f);
		if (!one)
			die("the input file is empty");
	} else {
		uint32_t x = 2463534242u;

		one = SEED_MIN;
		for (size_t i = 0; i < one; i++) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			b[i] = (uint8_t)x;
		}
	}
	/* Whole copies: a trace stream stays a stream of whole frames. */
	for (n = one; n < SEED_MIN; n += one)
		memcpy(b + n, b, one);
	*len = n;
	return b;
}

static void fw_start(struct spoor_fw *fw, uint8_t *ring, size_t size)
{
	struct spoor_probe_info info = {
		.protocol_version = SPOOR_PROBE_PROTOCOL_VERSION,
		.target = SPOOR_PROBE_TARGET_SIM,
		.port_widths = 0x808b,
	};

	if (spoor_fw_init(fw, ring, size, &info) ||
	    spoor_fw_control(fw, SPOOR_PROBE_START, NULL, 0) < 0)
		die("cannot start the firmware core");
}

/* The trace bytes in a bulk transfer's records (the host's reading); false on anything else. */
struct reader {
	struct spoor_probe_stream *s;
	uint64_t bytes, next;	/* trace bytes seen; the next offset expected */
	uint64_t bad;		/* overflows, errors, offsets out of order */
	bool ended;
	const uint8_t *expect;	/* the input to compare with, or NULL */
	size_t expect_len;
};

static void read_records(struct reader *r, const uint8_t *buf, size_t n)
{
	struct spoor_probe_item it;

	if (spoor_probe_stream_feed(r->s, buf, n))
		die("the record decoder refused a transfer");
	while (spoor_probe_stream_next(r->s, &it, sizeof(it)) > 0) {
		switch (it.kind) {
		case SPOOR_PROBE_ITEM_DATA:
			if (it.offset != r->next)
				r->bad++;
			for (size_t i = 0; r->expect && i < it.len; i++) {
				if (it.data[i] != r->expect[(it.offset + i) % r->expect_len]) {
					r->bad++;
					break;
				}
			}
			r->bytes += it.len;
			r->next = it.offset + it.len;
			break;
		case SPOOR_PROBE_ITEM_END:
			r->ended = true;
			break;
		default:
			r->bad++;
			break;
		}
	}
}

/*
 * The core alone: @total bytes of @seed in @chunk-byte trace_in() calls,
 * a bulk_in() of up to @xfer bytes whenever a transfer's worth is buffered.
 * With @verify, every transfer goes through the host's record decoder and
 * is compared with the input.  Returns the seconds taken.
 */
static double run_core(const uint8_t *seed, size_t seed_len, uint64_t total, size_t chunk,
		       size_t xfer, size_t ring_size, bool verify, double *cpu_s)
{
	struct reader rd = { .expect = seed, .expect_len = seed_len };
	struct spoor_fw fw;
	uint8_t *ring = malloc(ring_size), *out = malloc(xfer);
	uint64_t fed = 0, sent = 0;
	size_t pos = 0;
	double t0, c0, dt;

	if (!ring || !out)
		die("out of memory");
	if (verify) {
		rd.s = spoor_probe_stream_new();
		if (!rd.s)
			die("out of memory");
	}
	memset(ring, 0, ring_size);
	fw_start(&fw, ring, ring_size);
	c0 = cpu(RUSAGE_SELF);
	t0 = now();
	while (fed < total || fw.head != fw.tail) {
		size_t got;

		/* The DMA side: chunks until a transfer's worth is there (or the input ends). */
		while (fed < total && fw.head - fw.tail < xfer && fw.head - fw.tail < ring_size) {
			size_t n = total - fed < chunk ? (size_t)(total - fed) : chunk;
			size_t room = ring_size - (size_t)(fw.head - fw.tail);

			if (n > room)
				n = room;
			if (n > seed_len - pos)
				n = seed_len - pos;
			if (spoor_fw_trace_in(&fw, seed + pos, n) != n)
				die("the core dropped bytes");
			fed += n;
			pos = pos + n == seed_len ? 0 : pos + n;
		}
		/* The USB side: one bulk IN transfer. */
		got = spoor_fw_bulk_in(&fw, out, xfer);
		if (!got)
			die("bulk_in gave nothing with bytes buffered");
		sent += got;
		if (verify)
			read_records(&rd, out, got);
	}
	dt = now() - t0;
	*cpu_s = cpu(RUSAGE_SELF) - c0;
	if (fw.lost || fw.captured != total || fw.tail != total)
		die("the core lost bytes");
	if (verify && (rd.bad || rd.bytes != total))
		die("the records do not give back the input");
	if (!verify && sent < total)
		die("fewer bytes sent than fed");
	free(ring);
	free(out);
	spoor_probe_stream_free(rd.s);
	return dt;
}

/* A vendor request to the sim's device model; returns its result. */
static int sim_request(struct sim_probe *p, uint8_t request)
{
	struct spoor_probe_setup s = {
		.request_type = SPOOR_PROBE_REQTYPE_OUT, .request = request,
		.index = SPOOR_PROBE_IF_TRACE,
	};

	return sim_probe_control(p, &s, NULL);
}

/*
 * The sim's device model: its trace port thread replays @path (looped,
 * lossless) while this thread takes bulk transfers of up to @xfer bytes
 * until @total trace bytes came, then STOP and the drain to END.
 * Returns the seconds of the first part; @cpu_all and @cpu_front get the CPU
 * seconds of the process and of this thread.
 */
static double run_sim(const char *path, uint64_t total, size_t xfer, size_t ring_size,
		      double *cpu_all, double *cpu_front)
{
	struct sim_options o = {
		.input = path, .loop = true, .buffer_size = ring_size,
	};
	struct reader rd = { .expect = NULL };	/* offsets and losses checked, not bytes */
	struct sim_probe *p;
	uint8_t *out = malloc(xfer);
	char why[256] = "";
	double t0, c0, f0, dt, give_up;

	rd.s = spoor_probe_stream_new();
	if (!out || !rd.s)
		die("out of memory");
	if (sim_probe_new(&o, &p, why, sizeof(why)) || sim_probe_run(p)) {
		fprintf(stderr, "bench_fw: the sim's device model: %s\n", why);
		exit(1);
	}
	if (sim_request(p, SPOOR_PROBE_START) < 0)
		die("the sim refused START");
	c0 = cpu(RUSAGE_SELF);
	f0 = cpu(RUSAGE_THREAD);
	t0 = now();
	while (rd.bytes < total) {
		size_t n = sim_probe_bulk_in(p, out, xfer);

		if (n)
			read_records(&rd, out, n);
		else
			sim_probe_wait(p, 100);
	}
	dt = now() - t0;
	*cpu_all = cpu(RUSAGE_SELF) - c0;
	*cpu_front = cpu(RUSAGE_THREAD) - f0;
	sim_request(p, SPOOR_PROBE_STOP);
	give_up = now() + 10;
	while (!rd.ended && now() < give_up) {
		size_t n = sim_probe_bulk_in(p, out, xfer);

		if (n)
			read_records(&rd, out, n);
		else
			sim_probe_wait(p, 100);
	}
	if (rd.bad || !rd.ended)
		die("the sim lost bytes or never ended the capture");
	sim_probe_free(p);
	spoor_probe_stream_free(rd.s);
	free(out);
	return dt;
}

/* Writes @seed to a new temporary file; returns its path (malloc'd). */
static char *seed_file(const uint8_t *seed, size_t len)
{
	const char *dir = getenv("TMPDIR");
	char *path;
	FILE *f;
	int fd;

	if (asprintf(&path, "%s/bench_fw.XXXXXX", dir && *dir ? dir : "/tmp") < 0)
		die("out of memory");
	fd = mkstemp(path);
	f = fd >= 0 ? fdopen(fd, "wb") : NULL;
	if (!f || fwrite(seed, 1, len, f) != len || fclose(f)) {
		fprintf(stderr, "bench_fw: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	return path;
}

static void report(const char *what, uint64_t bytes, double dt, double cpu_s, const char *more)
{
	printf("%-34s %7.1f MB in %6.3f s: %7.0f MB/s, %6.3f ns/byte, CPU %3.0f%%%s\n", what,
	       (double)bytes / 1e6, dt, (double)bytes / dt / 1e6, dt * 1e9 / (double)bytes,
	       100 * cpu_s / dt, more);
}

static const char usage[] =
	"usage: bench_fw [--mb N] [--chunk BYTES] [--xfer BYTES] [--buffer BYTES] [FILE]\n"
	"The probe firmware's data path in one process: the core's ring buffer\n"
	"(trace_in in CHUNK-byte pieces, default 4096, alternating with bulk_in\n"
	"transfers of XFER bytes, default 64 KiB and 512 KiB), then the sim port's\n"
	"device model (its trace port thread replaying FILE, looped, lossless, while\n"
	"this thread takes bulk transfers of 256 KiB and 1 MiB as its USB and TCP\n"
	"fronts do).  N MiB each (default 1024), a BUFFER-byte ring (default 8 MiB).\n"
	"FILE (default: a byte pattern) is repeated to 8 MiB.  Prints MB/s, ns/byte\n"
	"and CPU time per second of wall time (100% = one core).\n";

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mb", required_argument, NULL, 'm' },
		{ "chunk", required_argument, NULL, 'c' },
		{ "xfer", required_argument, NULL, 'x' },
		{ "buffer", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	size_t core_xfers[2] = { 64u << 10, 512u << 10 }, sim_xfers[2] = { 256u << 10, 1u << 20 };
	uint64_t total = 1024ull << 20;
	size_t chunk = 4096, ring = 8u << 20, seed_len, nx = 2;
	double dt, c, cf;
	uint8_t *seed;
	char *path, label[64], more[64];
	int o;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'm':
			total = strtoull(optarg, NULL, 0) << 20;
			break;
		case 'c':
			chunk = strtoul(optarg, NULL, 0);
			break;
		case 'x':
			core_xfers[0] = sim_xfers[0] = strtoul(optarg, NULL, 0);
			nx = 1;
			break;
		case 'b':
			ring = strtoul(optarg, NULL, 0);
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind < argc - 1 || !total || !chunk || ring < 64 || (ring & (ring - 1)) ||
	    core_xfers[0] < 64) {
		fputs(usage, stderr);
		return 2;
	}
	seed = make_seed(optind < argc ? argv[optind] : NULL, &seed_len);
	printf("input: %s repeated to %zu bytes; ring %zu KiB; trace_in chunks of %zu bytes\n",
	       optind < argc ? argv[optind] : "a byte pattern", seed_len, ring >> 10, chunk);

	/* The core's records, checked against the input once (not timed). */
	run_core(seed, seed_len, VERIFY_BYTES < total ? VERIFY_BYTES : total, chunk, core_xfers[0],
		 ring, true, &c);
	for (size_t i = 0; i < nx; i++) {
		double best = 1e30, best_c = 0;

		for (int rep = 0; rep < 3; rep++) {
			dt = run_core(seed, seed_len, total, chunk, core_xfers[i], ring, false, &c);
			if (dt < best) {
				best = dt;
				best_c = c;
			}
		}
		snprintf(label, sizeof(label), "core, %zu KiB bulk_in (best of 3):",
			 core_xfers[i] >> 10);
		report(label, total, best, best_c, "");
	}

	path = seed_file(seed, seed_len);
	for (size_t i = 0; i < nx; i++) {
		dt = run_sim(path, total, sim_xfers[i], ring, &c, &cf);
		snprintf(label, sizeof(label), "sim model, %zu KiB transfers:", sim_xfers[i] >> 10);
		snprintf(more, sizeof(more), " (front %.0f%%, trace port %.0f%%)", 100 * cf / dt,
			 100 * (c - cf) / dt);
		report(label, total, dt, c, more);
	}
	unlink(path);
	free(path);
	free(seed);
	return 0;
}
