// SPDX-License-Identifier: MIT
/*
 * Benchmark: the live probe path end to end.  spoor-probe-sim replays a
 * trace (the file repeated to at least 8 MiB, looped, rate 0: the port
 * delivers only what fits in the probe's buffer, so nothing may be lost);
 * this program is the host: a spoor_source ("tcp:127.0.0.1:PORT", or "usb"
 * with the sim as an emulated USB device under umockdev) configured and
 * started, polled, every data chunk taken as far as a stage says:
 *
 *   transport  the source alone (transport and the probe's record stream);
 *   deframe    + the trace deframer (spoor/deframe.h);
 *   packets    + te_inst packet decoding (spoor_te_inst_decode_frames());
 *   decode     the whole pipeline of spoor/trace.h against the program
 *              (instruction reconstruction, block output).
 *
 * Each stage is timed over --mb MiB after --warmup-mb MiB, and prints MB/s
 * of trace, instructions/s (decode) and the CPU time (user + sys) per second
 * of wall time of the host process (getrusage) and of the sim process
 * (/proc/PID/stat, all its threads); 100% is one core busy.  A loss fails.
 *
 * --usb runs the stages in a second instance of this program that the sim
 * runs as its COMMAND (spoor-probe-sim --usb -- bench_live --child ...).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "spoor/config_file.h"
#include "spoor/deframe.h"
#include "spoor/error.h"
#include "spoor/image.h"
#include "spoor/source.h"
#include "spoor/te_inst.h"
#include "spoor/trace.h"

#define SEED_MIN (8u << 20)	/* the input file is repeated to at least this */
#define IDLE_LIMIT_S 20		/* no byte for this long: the run failed */

enum stage { ST_TRANSPORT, ST_DEFRAME, ST_PACKETS, ST_DECODE, ST_COUNT };
static const char *const stage_names[ST_COUNT] = { "transport", "deframe", "packets", "decode" };

struct args {
	const char *sim, *trace, *elf, *params_path;
	bool usb, child, spike_rom;
	unsigned stages;		/* bit per enum stage */
	uint64_t total, warmup;
	const char *buffer, *rate;
	int host_cpu, sim_cpu;		/* -1: not pinned */
	long slack_ns;			/* -1: left alone */
	struct spoor_encap_config encap;
	struct spoor_params params;
	bool have_params;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double self_cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

/* CPU seconds (utime + stime, every thread) of process @pid, or -1. */
static double proc_cpu(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ut, st;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	/* After "(comm)": state is field 3, utime 14, stime 15. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			 &ut, &st) != 2)
		return -1;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static void pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		fprintf(stderr, "bench_live: cannot pin to CPU %d: %s\n", cpu, strerror(errno));
}

/* ---- one stage ------------------------------------------------------------------------- */

struct run {
	enum stage stage;
	uint64_t bytes, next;		/* trace bytes taken; the next offset expected */
	uint64_t losses, lost, errors;
	uint64_t frames, packets, bad_packets, insns, blocks;
	bool ended;
	struct spoor_deframe *df;
	struct spoor_trace *tr;
	const struct spoor_params *params;
};

static void on_frames(void *ctx, const struct spoor_frame *fr, size_t n)
{
	struct run *r = ctx;
	struct spoor_te_inst pkts[SPOOR_DEFRAME_BATCH];
	int used[SPOOR_DEFRAME_BATCH];

	r->frames += n;
	if (r->stage != ST_PACKETS)
		return;
	spoor_te_inst_decode_frames(r->params, 0, fr, n, pkts, used);
	for (size_t i = 0; i < n; i++) {
		r->bad_packets += used[i] < 0;
		r->packets += used[i] > 0;
	}
}

static void on_blocks(void *ctx, uint32_t source, uint64_t offset, const struct spoor_block *b,
		      size_t n)
{
	struct run *r = ctx;

	(void)source;
	(void)offset;
	for (size_t i = 0; i < n; i++)
		r->insns += b[i].ninsn;
	r->blocks += n;
}

static void on_data(void *ctx, uint64_t offset, const uint8_t *buf, size_t len)
{
	struct run *r = ctx;

	if (offset != r->next) {
		r->losses++;
		r->lost += offset - r->next;
	}
	r->bytes += len;
	r->next = offset + len;
	switch (r->stage) {
	case ST_DEFRAME:
	case ST_PACKETS:
		spoor_deframe_feed(r->df, buf, len, 0);
		spoor_deframe_drain(r->df, on_frames, NULL, r);
		break;
	case ST_DECODE:
		spoor_trace_feed(r->tr, buf, len);
		break;
	default:
		break;
	}
}

static void on_loss(void *ctx, uint64_t offset, uint64_t lost)
{
	struct run *r = ctx;
	struct spoor_deframe_item it;

	r->losses++;
	r->lost += lost;
	r->next = offset + lost;
	/* Counted as a failure; the stages are told, as a consumer must. */
	if (r->df)
		spoor_deframe_gap(r->df, 0, lost, &it);
	if (r->tr)
		spoor_trace_gap(r->tr, lost);
}

static void on_end(void *ctx, uint64_t total)
{
	struct run *r = ctx;

	(void)total;
	r->ended = true;
}

static void on_error(void *ctx, uint64_t stream_offset, int reason, const char *what)
{
	struct run *r = ctx;

	r->errors++;
	fprintf(stderr, "bench_live: record stream error at %llu: %s (%s)\n",
		(unsigned long long)stream_offset, what, spoor_errstr(reason));
}

static const struct spoor_source_ops src_ops = {
	.data = on_data, .loss = on_loss, .end = on_end, .error = on_error,
};

/* Polls @src until @r has @until bytes; returns 0, or -1 (an error or nothing for too long). */
static int poll_until(struct spoor_source *src, struct run *r, uint64_t until)
{
	double idle_since = now();

	while (r->bytes < until && !r->ended) {
		uint64_t before = r->bytes;
		int ret = spoor_source_poll(src, 500, &src_ops, r);

		if (ret < 0) {
			fprintf(stderr, "bench_live: %s: %s\n", spoor_source_name(src),
				spoor_errstr(ret));
			return -1;
		}
		if (r->bytes != before)
			idle_since = now();
		else if (now() - idle_since > IDLE_LIMIT_S) {
			fprintf(stderr, "bench_live: %s: no trace for %d s\n",
				spoor_source_name(src), IDLE_LIMIT_S);
			return -1;
		}
	}
	return 0;
}

/*
 * Runs stage @st against the probe @spec (the sim, process @sim_pid):
 * prints a line of figures.  Returns 0, or 1 (a failure or a loss).
 */
static int run_stage(const struct args *a, struct spoor_image *img, const char *spec,
		     pid_t sim_pid, enum stage st)
{
	static const struct spoor_trace_ops tr_ops = { .blocks = on_blocks };
	struct spoor_deframe_config dcfg = { .start_synced = true };
	struct spoor_trace_config tcfg;
	struct spoor_probe_config pcfg = { .port_width = 4 };
	struct spoor_probe_info info;
	struct spoor_source *src = NULL;
	struct spoor_diag diag;
	struct run r = { .stage = st, .params = &a->params }, base;
	double t0, t1, c0, c1, s0, s1, dt;
	int ret, fail = 1;

	dcfg.encap = a->encap;
	if (st == ST_DEFRAME || st == ST_PACKETS) {
		r.df = spoor_deframe_new(&dcfg);
		if (!r.df) {
			fprintf(stderr, "bench_live: bad deframer configuration\n");
			return 1;
		}
	} else if (st == ST_DECODE) {
		spoor_trace_config_init(&tcfg);
		tcfg.params = a->params;
		tcfg.image = img;
		tcfg.deframe = dcfg;
		r.tr = spoor_trace_new(&tcfg, &tr_ops, &r);
		if (!r.tr) {
			fprintf(stderr, "bench_live: the pipeline's configuration is bad\n");
			return 1;
		}
	}
	ret = spoor_source_open(spec, &src, &diag);
	if (ret < 0) {
		fprintf(stderr, "bench_live: %s\n", diag.msg);
		goto out;
	}
	spoor_source_config_for(&pcfg, &a->encap, NULL);
	if ((ret = spoor_source_info(src, &info)) < 0 ||
	    (ret = spoor_source_configure(src, &pcfg)) < 0 ||
	    (ret = spoor_source_start(src)) < 0) {
		fprintf(stderr, "bench_live: %s: %s\n", spoor_source_name(src), spoor_errstr(ret));
		goto out;
	}
	if (poll_until(src, &r, a->warmup))
		goto out;
	base = r;	/* the counts of the warm-up */
	t0 = now();
	c0 = self_cpu();
	s0 = proc_cpu(sim_pid);
	if (poll_until(src, &r, base.bytes + a->total))
		goto out;
	t1 = now();
	c1 = self_cpu();
	s1 = proc_cpu(sim_pid);
	dt = t1 - t0;
	{
		uint64_t bytes = r.bytes - base.bytes, insns = r.insns - base.insns;
		uint64_t packets = r.packets - base.packets, frames = r.frames - base.frames;

		/* The rest: STOP, the probe drains its buffer, END. */
		spoor_source_stop(src);
		if (poll_until(src, &r, UINT64_MAX) || !r.ended) {
			fprintf(stderr, "bench_live: the capture did not end\n");
			goto out;
		}
		if (r.tr)
			spoor_trace_finish(r.tr);
		printf("%-4s %-9s %7.1f MB in %6.2f s: %7.1f MB/s", a->usb ? "usb" : "tcp",
		       stage_names[st], (double)bytes / 1e6, dt, (double)bytes / dt / 1e6);
		if (st == ST_DECODE)
			printf(", %5.0f M insn/s", (double)insns / dt / 1e6);
		else if (st == ST_PACKETS)
			printf(", %5.1f M pkt/s ", (double)packets / dt / 1e6);
		else if (st == ST_DEFRAME)
			printf(", %5.1f M frm/s ", (double)frames / dt / 1e6);
		else
			printf("%17s", "");
		printf("  CPU host %3.0f%%, sim %3.0f%%  lost %llu\n", 100 * (c1 - c0) / dt,
		       s0 < 0 || s1 < 0 ? -1.0 : 100 * (s1 - s0) / dt,
		       (unsigned long long)r.lost);
		fflush(stdout);
	}
	fail = r.losses || r.errors || r.bad_packets;
	if (r.losses || r.errors)
		fprintf(stderr, "bench_live: %llu losses (%llu bytes), %llu stream errors\n",
			(unsigned long long)r.losses, (unsigned long long)r.lost,
			(unsigned long long)r.errors);
	if (r.bad_packets)
		fprintf(stderr, "bench_live: %llu te_inst frames did not decode\n",
			(unsigned long long)r.bad_packets);
out:
	spoor_source_close(src);
	spoor_deframe_free(r.df);
	spoor_trace_free(r.tr);
	return fail;
}

/* Every stage asked for, against @spec; returns 0 or 1. */
static int run_stages(const struct args *a, const char *spec, pid_t sim_pid)
{
	struct spoor_image *img = NULL;
	struct spoor_diag diag;
	int fail = 0;

	if (a->stages & (1u << ST_DECODE)) {
		img = spoor_image_new();
		if (!img || spoor_image_add_elf(img, a->elf, 0, &diag)) {
			fprintf(stderr, "bench_live: %s\n", img ? diag.msg : "out of memory");
			return 1;
		}
		if (a->spike_rom)
			spoor_image_add_spike_rom(img, spoor_image_xlen(img));
	}
	for (int st = 0; st < ST_COUNT; st++)
		if (a->stages & (1u << st))
			fail |= run_stage(a, img, spec, sim_pid, (enum stage)st);
	spoor_image_free(img);
	return fail;
}

/* ---- the sim ------------------------------------------------------------------------------ */

/* Writes @path repeated to at least SEED_MIN bytes (whole copies) to a new temporary file. */
static char *make_input(const char *path)
{
	const char *dir = getenv("TMPDIR");
	size_t cap = 64u << 20, n, total = 0;
	uint8_t *b = malloc(cap);
	char *out = NULL;
	FILE *f = fopen(path, "rb"), *o;
	int fd;

	if (!f || !b) {
		fprintf(stderr, "bench_live: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	n = fread(b, 1, cap, f);
	fclose(f);
	if (!n || asprintf(&out, "%s/bench_live.XXXXXX", dir && *dir ? dir : "/tmp") < 0) {
		fprintf(stderr, "bench_live: %s: empty\n", path);
		exit(1);
	}
	fd = mkstemp(out);
	o = fd >= 0 ? fdopen(fd, "wb") : NULL;
	while (o && total < SEED_MIN && fwrite(b, 1, n, o) == n)
		total += n;
	if (!o || fclose(o) || total < SEED_MIN) {
		fprintf(stderr, "bench_live: %s: %s\n", out, strerror(errno));
		exit(1);
	}
	free(b);
	return out;
}

/* Forks the sim with @argv, its stdout into a pipe (read end in *@out_fd when wanted). */
static pid_t spawn_sim(const struct args *a, char **argv, int *out_fd)
{
	int fds[2] = { -1, -1 };
	pid_t pid;

	if (out_fd && pipe(fds)) {
		perror("bench_live: pipe");
		exit(1);
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("bench_live: fork");
		exit(1);
	}
	if (!pid) {
		if (out_fd) {
			dup2(fds[1], STDOUT_FILENO);
			close(fds[0]);
			close(fds[1]);
		}
		/* The sim goes with this program, however it ends. */
		prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);
		pin(a->sim_cpu);
		execv(a->sim, argv);
		fprintf(stderr, "bench_live: %s: %s\n", a->sim, strerror(errno));
		_exit(127);
	}
	if (out_fd) {
		close(fds[1]);
		*out_fd = fds[0];
	}
	return pid;
}

/* The sim's common options into @v from index @n; returns the next index. */
static int sim_options(const struct args *a, const char *input, char **v, int n)
{
	v[n++] = (char *)a->sim;
	v[n++] = "--input";
	v[n++] = (char *)input;
	v[n++] = "--loop";
	if (a->buffer) {
		v[n++] = "--buffer";
		v[n++] = (char *)a->buffer;
	}
	if (a->rate) {
		v[n++] = "--rate";
		v[n++] = (char *)a->rate;
	}
	return n;
}

/* tcp: the sim listening, this process the host.  Returns the exit status. */
static int bench_tcp(const struct args *a, const char *input)
{
	char *v[16], line[256], spec[300];
	unsigned port = 0;
	int n, fd, status, fail;
	pid_t pid;
	FILE *f;

	n = sim_options(a, input, v, 0);
	v[n++] = "--listen";
	v[n++] = "127.0.0.1:0";
	v[n] = NULL;
	pid = spawn_sim(a, v, &fd);
	f = fdopen(fd, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "listening on 127.0.0.1:%u", &port) == 1)
			break;
	if (!port) {
		fprintf(stderr, "bench_live: the sim did not say where it listens\n");
		kill(pid, SIGTERM);
		waitpid(pid, &status, 0);
		return 1;
	}
	pin(a->host_cpu);
	snprintf(spec, sizeof(spec), "tcp:127.0.0.1:%u", port);
	fail = run_stages(a, spec, pid);
	kill(pid, SIGTERM);
	waitpid(pid, &status, 0);
	if (f)
		fclose(f);
	return fail;
}

/* usb: the sim runs this program again (--child) as its COMMAND.  Returns the exit status. */
static int bench_usb(const struct args *a, const char *input, int argc, char **argv)
{
	char **v = calloc((size_t)argc + 24, sizeof(*v)), self[4096];
	ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int n, status;
	pid_t pid;

	if (!v || sl <= 0) {
		fprintf(stderr, "bench_live: cannot find this program\n");
		return 1;
	}
	self[sl] = 0;
	n = sim_options(a, input, v, 0);
	v[n++] = "--usb";
	v[n++] = "--";
	v[n++] = self;
	v[n++] = "--child";
	for (int i = 1; i < argc; i++)
		v[n++] = argv[i];
	v[n] = NULL;
	pid = spawn_sim(a, v, NULL);
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	free(v);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* ---- main --------------------------------------------------------------------------------- */

static const char usage[] =
	"usage: bench_live --sim PATH [--usb] [--stages LIST] [--mb N] [--warmup-mb N]\n"
	"                  [--buffer SIZE] [--rate BYTES] [--pin HOST_CPU,SIM_CPU]\n"
	"                  [--timer-slack NS] [--params X.scf [--elf PROG [--spike-rom]]]\n"
	"                  [--encap KIND [--src-bits S] [--ts-bytes T] [--type-bits Y]] TRACE\n"
	"The live probe path end to end: spoor-probe-sim (PATH) replays TRACE (repeated\n"
	"to 8 MiB, looped, lossless) and this program takes it as a host over tcp (or,\n"
	"with --usb, from the sim as a USB device under umockdev), through the stages\n"
	"of LIST (comma-separated; default: every one the options allow):\n"
	"  transport  the trace source alone (transport + the probe's records)\n"
	"  deframe    + the trace deframer (--encap ...)\n"
	"  packets    + te_inst packet decoding (needs --params)\n"
	"  decode     + instruction reconstruction, spoor/trace.h (needs --elf too)\n"
	"Each stage runs N MiB (default 512) after N MiB of warm-up (default 16) and\n"
	"prints MB/s of trace, instructions/s, and the CPU time per second of wall\n"
	"time of the host process and of the sim (100% = one core).  --buffer and\n"
	"--rate go to the sim; --pin pins the host and the sim to CPUs; --timer-slack\n"
	"sets every process's timer slack (prctl).  Exits 1 if a byte was lost.\n";

static int parse(int argc, char **argv, struct args *a)
{
	static const struct option opts[] = {
		{ "sim", required_argument, NULL, 'S' },
		{ "usb", no_argument, NULL, 'u' },
		{ "child", no_argument, NULL, 'C' },
		{ "stages", required_argument, NULL, 'g' },
		{ "mb", required_argument, NULL, 'm' },
		{ "warmup-mb", required_argument, NULL, 'w' },
		{ "buffer", required_argument, NULL, 'b' },
		{ "rate", required_argument, NULL, 'r' },
		{ "pin", required_argument, NULL, 'P' },
		{ "timer-slack", required_argument, NULL, 'k' },
		{ "params", required_argument, NULL, 'p' },
		{ "elf", required_argument, NULL, 'e' },
		{ "spike-rom", no_argument, NULL, 'R' },
		{ "encap", required_argument, NULL, 'E' },
		{ "src-bits", required_argument, NULL, 's' },
		{ "ts-bytes", required_argument, NULL, 't' },
		{ "type-bits", required_argument, NULL, 'y' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum spoor_encap_kind kind = SPOOR_ENCAP_RAW;
	long s = -1, t = -1, y = -1;
	struct spoor_diag diag;
	char *list = NULL;
	int o;

	memset(a, 0, sizeof(*a));
	a->total = 512ull << 20;
	a->warmup = 16ull << 20;
	a->host_cpu = a->sim_cpu = -1;
	a->slack_ns = -1;
	spoor_params_init(&a->params);
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'S': a->sim = optarg; break;
		case 'u': a->usb = true; break;
		case 'C': a->child = true; break;
		case 'g': list = strdup(optarg); break;	/* argv goes to --child as is */
		case 'm': a->total = strtoull(optarg, NULL, 0) << 20; break;
		case 'w': a->warmup = strtoull(optarg, NULL, 0) << 20; break;
		case 'b': a->buffer = optarg; break;
		case 'r': a->rate = optarg; break;
		case 'P':
			if (sscanf(optarg, "%d,%d", &a->host_cpu, &a->sim_cpu) != 2) {
				fprintf(stderr, "bench_live: --pin HOST_CPU,SIM_CPU\n");
				return 2;
			}
			break;
		case 'k': a->slack_ns = strtol(optarg, NULL, 0); break;
		case 'p':
			if (spoor_params_load(&a->params, optarg, &diag)) {
				fprintf(stderr, "bench_live: %s\n", diag.msg);
				return 2;
			}
			a->have_params = true;
			break;
		case 'e': a->elf = optarg; break;
		case 'R': a->spike_rom = true; break;
		case 'E':
			if (spoor_encap_kind_parse(optarg, &kind)) {
				fprintf(stderr, "bench_live: unknown encapsulation %s\n", optarg);
				return 2;
			}
			break;
		case 's': s = strtol(optarg, NULL, 0); break;
		case 't': t = strtol(optarg, NULL, 0); break;
		case 'y': y = strtol(optarg, NULL, 0); break;
		case 'h':
			fputs(usage, stdout);
			exit(0);
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind != argc - 1 || !a->sim || !a->total) {
		fputs(usage, stderr);
		return 2;
	}
	a->trace = argv[optind];
	spoor_encap_config_init(&a->encap, kind);
	if (s >= 0)
		a->encap.src_bits = (unsigned)s;
	if (t >= 0)
		a->encap.ts_bytes = (unsigned)t;
	if (y >= 0)
		a->encap.type_bits = (unsigned)y;
	if (!list) {
		a->stages = 1u << ST_TRANSPORT | 1u << ST_DEFRAME;
		if (a->have_params)
			a->stages |= 1u << ST_PACKETS;
		if (a->have_params && a->elf)
			a->stages |= 1u << ST_DECODE;
		return 0;
	}
	for (char *w = strtok(list, ","); w; w = strtok(NULL, ",")) {
		int st;

		for (st = 0; st < ST_COUNT && strcmp(w, stage_names[st]); st++)
			;
		if (st == ST_COUNT) {
			fprintf(stderr, "bench_live: unknown stage %s\n", w);
			return 2;
		}
		a->stages |= 1u << st;
	}
	if ((a->stages & (1u << ST_PACKETS) && !a->have_params) ||
	    (a->stages & (1u << ST_DECODE) && (!a->have_params || !a->elf))) {
		fprintf(stderr, "bench_live: packets needs --params, decode --params and --elf\n");
		return 2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct args a;
	char *input;
	int ret;

	ret = parse(argc, argv, &a);
	if (ret)
		return ret;
	signal(SIGPIPE, SIG_IGN);
	if (a.child) {
		/* Under the sim's --usb: the host side; the sim is the parent. */
		pin(a.host_cpu);
		return run_stages(&a, "usb", getppid());
	}
	if (a.slack_ns >= 0 && prctl(PR_SET_TIMERSLACK, (unsigned long)a.slack_ns, 0, 0, 0))
		perror("bench_live: PR_SET_TIMERSLACK");
	input = make_input(a.trace);
	printf("trace: %s (%s, repeated to 8 MiB, looped); %s; %llu MiB per stage\n", a.trace,
	       spoor_encap_kind_name(a.encap.kind), a.usb ? "usb (umockdev)" : "tcp (loopback)",
	       (unsigned long long)(a.total >> 20));
	fflush(stdout);
	ret = a.usb ? bench_usb(&a, input, argc, argv) : bench_tcp(&a, input);
	unlink(input);
	free(input);
	return ret;
}
